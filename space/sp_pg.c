/*
 * space/sp_pg.c -- the PostgreSQL backend of the Program Space (libpq):
 * `?` placeholders rewritten to $n and sent as named prepared statements
 * with text parameters, write transactions serialized among writers with a
 * transaction-level advisory lock, serialization failures and deadlocks
 * flagged as retryable, and bulk loads through COPY ... FROM STDIN.
 */
#include "space/sp_internal.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arbitrary key of the advisory lock taken by write transactions. */
#define PG_WRITE_LOCK "7316001"

typedef struct pg_db {
    sp_db base;
    PGconn *c;
    int nstmt;
    aa_buf copy;
    int copy_ncols;
} pg_db;

#define PG_MAXP 32
struct sp_stmt {
    pg_db *db;
    char name[32];
    int nparams;
    char *params[PG_MAXP];
    PGresult *res;
    int executed, row, nrows;
};

static void pg_noticer(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static int pg_fail(pg_db *d, PGresult *r, aa_err *err, const char *what)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorMessage(r) : PQerrorMessage(d->c);
    char clean[1024];
    size_t n;
    int code = AA_EENV;
    snprintf(clean, sizeof clean, "%s", msg && *msg ? msg : "unknown error");
    n = strlen(clean);
    while (n && (clean[n - 1] == '\n' || clean[n - 1] == ' '))
        clean[--n] = 0;
    d->base.retryable = state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0);
    if (state && (strncmp(state, "22", 2) == 0 || strncmp(state, "23", 2) == 0))
        code = AA_EINPUT;
    return aa_err_set(err, code, "%s: %s: %s", d->base.location, what, clean);
}

static void pg_close(sp_db *db)
{
    pg_db *d = (pg_db *)db;
    if (d->c)
        PQfinish(d->c);
    aa_buf_free(&d->copy);
    free(d->base.location);
    free(d);
}

static int pg_exec(sp_db *db, const char *sql, aa_err *err)
{
    pg_db *d = (pg_db *)db;
    PGresult *r = PQexec(d->c, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = AA_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        rc = pg_fail(d, r, err, "query failed");
    PQclear(r);
    return rc;
}

static int pg_prepare(sp_db *db, const char *sql, sp_stmt **out, aa_err *err)
{
    pg_db *d = (pg_db *)db;
    sp_stmt *s = calloc(1, sizeof *s);
    aa_buf b;
    const char *p;
    int quote = 0, rc = AA_OK;
    PGresult *r;
    if (!s)
        return aa_err_set(err, AA_EENV, "out of memory");
    aa_buf_init(&b);
    for (p = sql; *p; p++) {
        if (*p == '\'')
            quote = !quote;
        if (*p == '?' && !quote) {
            aa_buf_printf(&b, "$%d", ++s->nparams);
            continue;
        }
        aa_buf_putc(&b, *p);
    }
    if (s->nparams > PG_MAXP) {
        aa_buf_free(&b);
        free(s);
        return aa_err_set(err, AA_EUSAGE, "too many parameters");
    }
    s->db = d;
    snprintf(s->name, sizeof s->name, "aa_s%d", ++d->nstmt);
    r = PQprepare(d->c, s->name, b.data, 0, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        rc = pg_fail(d, r, err, "prepare failed");
    PQclear(r);
    aa_buf_free(&b);
    if (rc != AA_OK) {
        free(s);
        return rc;
    }
    *out = s;
    return AA_OK;
}

static int pg_set(sp_stmt *s, int i, char *v)
{
    if (i < 1 || i > s->nparams) {
        free(v);
        return -1;
    }
    free(s->params[i - 1]);
    s->params[i - 1] = v;
    return 0;
}

static int pg_bind_int(sp_stmt *s, int i, long long v)
{
    char t[32];
    snprintf(t, sizeof t, "%lld", v);
    return pg_set(s, i, aa_strdup(t));
}

static int pg_bind_double(sp_stmt *s, int i, double v)
{
    char t[32];
    aa_format_double(t, v);
    return pg_set(s, i, aa_strdup(t));
}

static int pg_bind_text(sp_stmt *s, int i, const char *v) { return pg_set(s, i, aa_strdup(v)); }

static int pg_step(sp_stmt *s, aa_err *err)
{
    if (!s->executed) {
        ExecStatusType st;
        s->res = PQexecPrepared(s->db->c, s->name, s->nparams, (const char *const *)s->params,
                                NULL, NULL, 0);
        st = PQresultStatus(s->res);
        s->executed = 1;
        s->row = -1;
        if (st == PGRES_TUPLES_OK)
            s->nrows = PQntuples(s->res);
        else if (st == PGRES_COMMAND_OK)
            s->nrows = 0;
        else {
            pg_fail(s->db, s->res, err, "query failed");
            return -1;
        }
    }
    if (s->row + 1 >= s->nrows)
        return 0;
    s->row++;
    return 1;
}

static long long pg_col_int(sp_stmt *s, int i) { return strtoll(PQgetvalue(s->res, s->row, i), NULL, 10); }
static double pg_col_double(sp_stmt *s, int i) { return strtod(PQgetvalue(s->res, s->row, i), NULL); }
static const char *pg_col_text(sp_stmt *s, int i) { return PQgetvalue(s->res, s->row, i); }
static int pg_col_null(sp_stmt *s, int i) { return PQgetisnull(s->res, s->row, i); }

static void pg_reset(sp_stmt *s)
{
    int i;
    if (s->res)
        PQclear(s->res);
    s->res = NULL;
    s->executed = 0;
    for (i = 0; i < s->nparams; i++) {
        free(s->params[i]);
        s->params[i] = NULL;
    }
}

static void pg_finalize(sp_stmt *s)
{
    char sql[64];
    PGresult *r;
    if (!s)
        return;
    pg_reset(s);
    snprintf(sql, sizeof sql, "DEALLOCATE %s", s->name);
    r = PQexec(s->db->c, sql);
    PQclear(r);
    free(s);
}

static int pg_begin_write(sp_db *db, aa_err *err)
{
    int rc = pg_exec(db, "BEGIN", err);
    if (rc != AA_OK)
        return rc;
    db->in_tx = 1;
    rc = pg_exec(db, "SELECT pg_advisory_xact_lock(" PG_WRITE_LOCK ")", err);
    if (rc != AA_OK) {
        pg_exec(db, "ROLLBACK", NULL);
        db->in_tx = 0;
    }
    return rc;
}

static int pg_begin_read(sp_db *db, aa_err *err)
{
    int rc = pg_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ", err);
    if (rc == AA_OK)
        db->in_tx = 1;
    return rc;
}

static int pg_commit(sp_db *db, aa_err *err)
{
    int rc = pg_exec(db, "COMMIT", err);
    db->in_tx = 0;
    return rc;
}

static void pg_rollback(sp_db *db)
{
    pg_db *d = (pg_db *)db;
    if (PQtransactionStatus(d->c) == PQTRANS_ACTIVE) {
        /* Abandon an unfinished COPY. */
        PQputCopyEnd(d->c, "aborted");
        PGresult *r;
        while ((r = PQgetResult(d->c)))
            PQclear(r);
    }
    if (db->in_tx)
        pg_exec(db, "ROLLBACK", NULL);
    db->in_tx = 0;
}

static int pg_bulk_begin(sp_db *db, const char *table, const char *const *cols, int ncols,
                         aa_err *err)
{
    pg_db *d = (pg_db *)db;
    aa_buf b;
    int i, rc = AA_OK;
    PGresult *r;
    aa_buf_init(&b);
    aa_buf_printf(&b, "COPY %s(", table);
    for (i = 0; i < ncols; i++)
        aa_buf_printf(&b, "%s%s", i ? "," : "", cols[i]);
    aa_buf_puts(&b, ") FROM STDIN");
    r = PQexec(d->c, b.data);
    if (PQresultStatus(r) != PGRES_COPY_IN)
        rc = pg_fail(d, r, err, "COPY failed");
    PQclear(r);
    aa_buf_free(&b);
    aa_buf_reset(&d->copy);
    d->copy_ncols = ncols;
    return rc;
}

static int pg_flush(pg_db *d, aa_err *err)
{
    if (d->copy.len && PQputCopyData(d->c, d->copy.data, (int)d->copy.len) != 1)
        return pg_fail(d, NULL, err, "COPY failed");
    aa_buf_reset(&d->copy);
    return AA_OK;
}

static int pg_bulk_row(sp_db *db, const sp_val *vals, aa_err *err)
{
    pg_db *d = (pg_db *)db;
    int i;
    char num[40];
    for (i = 0; i < d->copy_ncols; i++) {
        const sp_val *v = &vals[i];
        const char *p;
        if (i)
            aa_buf_putc(&d->copy, '\t');
        if (v->type == SP_NULL) {
            aa_buf_puts(&d->copy, "\\N");
            continue;
        }
        if (v->type == SP_INT) {
            /* hand-rolled: this runs for millions of values */
            char *e = num + sizeof num, *q = e;
            unsigned long long u = v->i < 0 ? 0ull - (unsigned long long)v->i
                                            : (unsigned long long)v->i;
            do
                *--q = (char)('0' + u % 10);
            while ((u /= 10));
            if (v->i < 0)
                *--q = '-';
            aa_buf_add(&d->copy, q, (size_t)(e - q));
            continue;
        }
        if (v->type == SP_DOUBLE) {
            /* %.17g reads back as exactly the same double */
            int n = snprintf(num, sizeof num, "%.17g", v->d);
            aa_buf_add(&d->copy, num, (size_t)n);
            continue;
        }
        for (p = v->s; *p; p++) {
            switch (*p) {
            case '\\': aa_buf_puts(&d->copy, "\\\\"); break;
            case '\t': aa_buf_puts(&d->copy, "\\t"); break;
            case '\n': aa_buf_puts(&d->copy, "\\n"); break;
            case '\r': aa_buf_puts(&d->copy, "\\r"); break;
            default: aa_buf_putc(&d->copy, *p);
            }
        }
    }
    aa_buf_putc(&d->copy, '\n');
    if (d->copy.failed)
        return aa_err_set(err, AA_EENV, "out of memory");
    if (d->copy.len > (1u << 20))
        return pg_flush(d, err);
    return AA_OK;
}

static int pg_bulk_end(sp_db *db, aa_err *err)
{
    pg_db *d = (pg_db *)db;
    PGresult *r;
    int rc = pg_flush(d, err);
    if (rc != AA_OK)
        return rc;
    if (PQputCopyEnd(d->c, NULL) != 1)
        return pg_fail(d, NULL, err, "COPY failed");
    while ((r = PQgetResult(d->c))) {
        if (rc == AA_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = pg_fail(d, r, err, "COPY failed");
        PQclear(r);
    }
    return rc;
}

static const sp_ops pg_ops = {
    "postgresql", pg_close,      pg_exec,      pg_prepare,    pg_bind_int,   pg_bind_double,
    pg_bind_text, pg_step,       pg_col_int,   pg_col_double, pg_col_text,   pg_col_null,
    pg_reset,     pg_finalize,   pg_begin_write, pg_begin_read, pg_commit,   pg_rollback,
    pg_bulk_begin, pg_bulk_row,  pg_bulk_end,
};

/* The URL without a password, for messages. */
static char *pg_safe_location(const char *url)
{
    const char *at = strchr(url, '@'), *scheme = strstr(url, "://");
    aa_buf b;
    if (!at || !scheme || at < scheme)
        return aa_strdup(url);
    aa_buf_init(&b);
    {
        const char *colon = memchr(scheme + 3, ':', (size_t)(at - scheme - 3));
        if (!colon)
            return aa_strdup(url);
        aa_buf_add(&b, url, (size_t)(colon - url));
        aa_buf_puts(&b, ":***");
        aa_buf_puts(&b, at);
    }
    return aa_buf_detach(&b);
}

int sp_pg_open(const char *url, sp_db **out, aa_err *err)
{
    pg_db *d = calloc(1, sizeof *d);
    char *msg;
    if (!d)
        return aa_err_set(err, AA_EENV, "out of memory");
    d->base.ops = &pg_ops;
    d->base.location = pg_safe_location(url);
    d->base.without_rowid = "";
    aa_buf_init(&d->copy);
    d->c = PQconnectdb(url);
    if (!d->c || PQstatus(d->c) != CONNECTION_OK) {
        size_t n;
        msg = aa_strdup(d->c ? PQerrorMessage(d->c) : "out of memory");
        n = msg ? strlen(msg) : 0;
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = 0;
        aa_err_set(err, AA_EENV, "%s: cannot connect: %s", d->base.location, msg ? msg : "");
        free(msg);
        pg_close(&d->base);
        return AA_EENV;
    }
    PQsetNoticeProcessor(d->c, pg_noticer, NULL);
    if (pg_exec(&d->base, "SET client_min_messages=warning", err) != AA_OK) {
        pg_close(&d->base);
        return AA_EENV;
    }
    *out = &d->base;
    return AA_OK;
}
