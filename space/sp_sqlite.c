/*
 * space/sp_sqlite.c -- the SQLite backend of the Program Space: a database
 * file in WAL mode with a long busy timeout, write transactions opened with
 * BEGIN IMMEDIATE (so concurrent writers queue instead of failing), and
 * bulk loads through one cached prepared INSERT.
 */
#include "space/sp_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sq_db {
    sp_db base;
    sqlite3 *h;
    sqlite3_stmt *bulk;
    int bulk_ncols;
} sq_db;

struct sp_stmt {
    sq_db *db;
    sqlite3_stmt *st;
};

static int sq_error(sq_db *d, int rc, aa_err *err, const char *what)
{
    int code = AA_EENV;
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
        code = AA_EINPUT;
    return aa_err_set(err, code, "%s: %s: %s", d->base.location, what,
                      d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
}

static void sq_close(sp_db *db)
{
    sq_db *d = (sq_db *)db;
    if (d->bulk)
        sqlite3_finalize(d->bulk);
    if (d->h)
        sqlite3_close_v2(d->h);
    free(d->base.location);
    free(d);
}

static int sq_exec(sp_db *db, const char *sql, aa_err *err)
{
    sq_db *d = (sq_db *)db;
    int rc = sqlite3_exec(d->h, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? AA_OK : sq_error(d, rc, err, "query failed");
}

static int sq_prepare(sp_db *db, const char *sql, sp_stmt **out, aa_err *err)
{
    sq_db *d = (sq_db *)db;
    sp_stmt *s = calloc(1, sizeof *s);
    int rc;
    if (!s)
        return aa_err_set(err, AA_EENV, "out of memory");
    s->db = d;
    rc = sqlite3_prepare_v2(d->h, sql, -1, &s->st, NULL);
    if (rc != SQLITE_OK) {
        free(s);
        return sq_error(d, rc, err, "prepare failed");
    }
    *out = s;
    return AA_OK;
}

static int sq_bind_int(sp_stmt *s, int i, long long v) { return sqlite3_bind_int64(s->st, i, v); }
static int sq_bind_double(sp_stmt *s, int i, double v) { return sqlite3_bind_double(s->st, i, v); }
static int sq_bind_text(sp_stmt *s, int i, const char *v)
{
    return v ? sqlite3_bind_text(s->st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s->st, i);
}

static int sq_step(sp_stmt *s, aa_err *err)
{
    int rc = sqlite3_step(s->st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    sq_error(s->db, rc, err, "query failed");
    return -1;
}

static long long sq_col_int(sp_stmt *s, int i) { return sqlite3_column_int64(s->st, i); }
static double sq_col_double(sp_stmt *s, int i) { return sqlite3_column_double(s->st, i); }
static const char *sq_col_text(sp_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s->st, i);
    return t ? (const char *)t : "";
}
static int sq_col_null(sp_stmt *s, int i) { return sqlite3_column_type(s->st, i) == SQLITE_NULL; }
static void sq_reset(sp_stmt *s)
{
    sqlite3_reset(s->st);
    sqlite3_clear_bindings(s->st);
}
static void sq_finalize(sp_stmt *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->st);
    free(s);
}

static int sq_begin_write(sp_db *db, aa_err *err)
{
    int rc = sq_exec(db, "BEGIN IMMEDIATE", err);
    if (rc == AA_OK)
        db->in_tx = 1;
    return rc;
}

static int sq_begin_read(sp_db *db, aa_err *err)
{
    int rc = sq_exec(db, "BEGIN", err);
    if (rc == AA_OK)
        db->in_tx = 1;
    return rc;
}

static int sq_commit(sp_db *db, aa_err *err)
{
    int rc = sq_exec(db, "COMMIT", err);
    if (rc != AA_OK)
        sq_exec(db, "ROLLBACK", NULL);
    db->in_tx = 0;
    return rc;
}

static void sq_rollback(sp_db *db)
{
    sq_db *d = (sq_db *)db;
    if (d->bulk) {
        sqlite3_finalize(d->bulk);
        d->bulk = NULL;
    }
    if (db->in_tx)
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
    db->in_tx = 0;
}

static int sq_bulk_begin(sp_db *db, const char *table, const char *const *cols, int ncols,
                         aa_err *err)
{
    sq_db *d = (sq_db *)db;
    aa_buf b;
    int i, rc;
    aa_buf_init(&b);
    aa_buf_printf(&b, "INSERT INTO %s(", table);
    for (i = 0; i < ncols; i++)
        aa_buf_printf(&b, "%s%s", i ? "," : "", cols[i]);
    aa_buf_puts(&b, ") VALUES(");
    for (i = 0; i < ncols; i++)
        aa_buf_puts(&b, i ? ",?" : "?");
    aa_buf_puts(&b, ")");
    rc = sqlite3_prepare_v2(d->h, b.data, -1, &d->bulk, NULL);
    aa_buf_free(&b);
    if (rc != SQLITE_OK)
        return sq_error(d, rc, err, "prepare failed");
    d->bulk_ncols = ncols;
    return AA_OK;
}

static int sq_bulk_row(sp_db *db, const sp_val *vals, aa_err *err)
{
    sq_db *d = (sq_db *)db;
    int i, rc;
    for (i = 0; i < d->bulk_ncols; i++) {
        const sp_val *v = &vals[i];
        if (v->type == SP_INT)
            sqlite3_bind_int64(d->bulk, i + 1, v->i);
        else if (v->type == SP_DOUBLE)
            sqlite3_bind_double(d->bulk, i + 1, v->d);
        else if (v->type == SP_TEXT)
            sqlite3_bind_text(d->bulk, i + 1, v->s, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(d->bulk, i + 1);
    }
    rc = sqlite3_step(d->bulk);
    sqlite3_reset(d->bulk);
    if (rc != SQLITE_DONE)
        return sq_error(d, rc, err, "insert failed");
    return AA_OK;
}

static int sq_bulk_end(sp_db *db, aa_err *err)
{
    sq_db *d = (sq_db *)db;
    (void)err;
    sqlite3_finalize(d->bulk);
    d->bulk = NULL;
    return AA_OK;
}

static const sp_ops sq_ops = {
    "sqlite",     sq_close,      sq_exec,      sq_prepare,   sq_bind_int,    sq_bind_double,
    sq_bind_text, sq_step,       sq_col_int,   sq_col_double, sq_col_text,   sq_col_null,
    sq_reset,     sq_finalize,   sq_begin_write, sq_begin_read, sq_commit,   sq_rollback,
    sq_bulk_begin, sq_bulk_row,  sq_bulk_end,
};

int sp_sqlite_open(const char *path, int create, sp_db **out, aa_err *err)
{
    sq_db *d = calloc(1, sizeof *d);
    int rc;
    if (!d)
        return aa_err_set(err, AA_EENV, "out of memory");
    d->base.ops = &sq_ops;
    d->base.location = aa_strdup(path);
    d->base.without_rowid = " WITHOUT ROWID";
    rc = sqlite3_open_v2(path, &d->h, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
                         NULL);
    if (rc == SQLITE_CANTOPEN && !create && access(path, F_OK) != 0) {
        rc = aa_err_set(err, AA_EINPUT,
                        "%s: no Program Space there (no such file; 'space add' or 'space "
                        "import' creates one)",
                        path);
        sq_close(&d->base);
        return rc;
    }
    if (rc != SQLITE_OK) {
        rc = aa_err_set(err, AA_EENV, "%s: cannot open database: %s", path,
                        d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
        sq_close(&d->base);
        return rc;
    }
    sqlite3_busy_timeout(d->h, 120000);
    sqlite3_extended_result_codes(d->h, 0);
    /* journal_mode=WAL touches the file: a non-database file fails here. */
    rc = sq_exec(&d->base,
                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                 "PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;",
                 err);
    if (rc != AA_OK) {
        sq_close(&d->base);
        return rc;
    }
    *out = &d->base;
    return AA_OK;
}
