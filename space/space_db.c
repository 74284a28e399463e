/*
 * space/space_db.c -- opening a Program Space: choosing the backend from
 * the location (file path, sqlite:PATH, postgresql://...), the versioned
 * schema with its ordered migration steps (recorded in schema_migrations
 * and applied on open under the write lock), the write-transaction retry
 * loop, and the small helpers (hash maps, timestamps) the rest of space/
 * shares.  The schema text is the same for both backends.
 */
#include "space/sp_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

/* Ordered migrations: index i brings the schema to version i + 1. */
static const struct {
    const char *description;
    const char *sql;
} migrations[AA_SPACE_SCHEMA_VERSION] = {
    {"applications, executions, resources, foci, results, findings",
     "CREATE TABLE applications(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
     "CREATE TABLE executions(eid INTEGER PRIMARY KEY,\n"
     "  app INTEGER NOT NULL REFERENCES applications(id),\n"
     "  experiment TEXT NOT NULL, started TEXT NOT NULL, nprocs INTEGER NOT NULL,\n"
     "  added TEXT NOT NULL);\n"
     "CREATE TABLE execution_attrs(eid INTEGER NOT NULL REFERENCES executions(eid),\n"
     "  name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(eid, name));\n"
     "CREATE TABLE resources(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,\n"
     "  name TEXT NOT NULL, type TEXT NOT NULL, hierarchy TEXT NOT NULL,\n"
     "  parent INTEGER REFERENCES resources(id));\n"
     /* The large tables below are written only by the importer, which keeps
      * their references valid; they carry no foreign keys so that bulk
      * loads stay fast on both backends. */
     "CREATE TABLE resource_closure(ancestor INTEGER NOT NULL, descendant INTEGER NOT NULL,\n"
     "  depth INTEGER NOT NULL, PRIMARY KEY(ancestor, descendant)){WITHOUT_ROWID};\n"
     "CREATE INDEX resource_closure_descendant ON resource_closure(descendant);\n"
     "CREATE TABLE execution_resources(eid INTEGER NOT NULL, resource INTEGER NOT NULL,\n"
     "  PRIMARY KEY(eid, resource)){WITHOUT_ROWID};\n"
     "CREATE TABLE metrics(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,\n"
     "  unit TEXT NOT NULL);\n"
     "CREATE TABLE foci(id INTEGER PRIMARY KEY, code INTEGER NOT NULL,\n"
     "  machine INTEGER NOT NULL, process INTEGER NOT NULL, UNIQUE(code, machine, process));\n"
     "CREATE TABLE results(eid INTEGER NOT NULL, metric INTEGER NOT NULL,\n"
     "  focus INTEGER NOT NULL, value DOUBLE PRECISION NOT NULL,\n"
     "  PRIMARY KEY(eid, metric, focus)){WITHOUT_ROWID};\n"
     "CREATE TABLE findings(eid INTEGER NOT NULL REFERENCES executions(eid),\n"
     "  seq INTEGER NOT NULL, kind TEXT NOT NULL, region TEXT NOT NULL,\n"
     "  severity DOUBLE PRECISION NOT NULL, severity_class INTEGER NOT NULL,\n"
     "  confidence DOUBLE PRECISION NOT NULL, causes TEXT NOT NULL,\n"
     "  suggestion TEXT NOT NULL, PRIMARY KEY(eid, seq));\n"},
    {"mapping directives; attribute index",
     "CREATE TABLE mappings(seq INTEGER PRIMARY KEY, old_prefix TEXT NOT NULL,\n"
     "  new_prefix TEXT NOT NULL);\n"
     "CREATE INDEX execution_attrs_by_value ON execution_attrs(name, value);\n"},
    {"experiment documents; stable region ids of code resources",
     "CREATE TABLE experiment_documents(eid INTEGER PRIMARY KEY REFERENCES executions(eid),\n"
     "  encoding TEXT NOT NULL, size INTEGER NOT NULL, body TEXT NOT NULL);\n"
     /* the stable region id (SPEC 3.4) of each /Code resource of an
      * execution, so regions are matched across executions by identity,
      * not by their names with line numbers */
     "CREATE TABLE execution_regions(eid INTEGER NOT NULL, resource INTEGER NOT NULL,\n"
     "  region BIGINT NOT NULL, PRIMARY KEY(eid, resource)){WITHOUT_ROWID};\n"},
    {"prunes: code resources marked irrelevant for an application",
     /* Karavanic's prunes (history-guided analysis): a /Code resource the
      * analysis of the application (configuration name or application)
      * leaves out, with the stable region id it had when pruned so that it
      * follows the region when lines move; region is NULL for a resource
      * that is no region (a file, a directory) */
     "CREATE TABLE prunes(application TEXT NOT NULL, resource TEXT NOT NULL,\n"
     "  region BIGINT, reason TEXT NOT NULL, added TEXT NOT NULL,\n"
     "  PRIMARY KEY(application, resource));\n"},
    {"what each finding costs; the calling contexts a hotspot adds up",
     /* impact and run_share NULL for findings stored before; a finding
      * over several calling contexts (nodes of one static region, so one
      * /Code path) has one row per context naming the caller that tells
      * it apart, idx 0 the largest context's */
     "ALTER TABLE findings ADD COLUMN impact DOUBLE PRECISION;\n"
     "ALTER TABLE findings ADD COLUMN run_share DOUBLE PRECISION;\n"
     "CREATE TABLE finding_contexts(eid INTEGER NOT NULL, seq INTEGER NOT NULL,\n"
     "  idx INTEGER NOT NULL, caller TEXT NOT NULL, PRIMARY KEY(eid, seq, idx));\n"},
};

void sp_now_iso(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int sp_exec(sp_db *db, const char *sql, aa_err *err) { return db->ops->exec(db, sql, err); }

int sp_query_int(sp_db *db, const char *sql, const char *const *params, int nparams,
                 long long def, long long *out, aa_err *err)
{
    sp_stmt *st;
    int rc = db->ops->prepare(db, sql, &st, err), i, r;
    if (rc != AA_OK)
        return rc;
    for (i = 0; i < nparams; i++)
        db->ops->bind_text(st, i + 1, params[i]);
    r = db->ops->step(st, err);
    if (r < 0)
        rc = err ? err->code : AA_EENV;
    else if (r == 1 && !db->ops->col_null(st, 0))
        *out = db->ops->col_int(st, 0);
    else
        *out = def;
    db->ops->finalize(st);
    return rc;
}

int sp_write_tx(aa_space *s, int (*fn)(aa_space *s, void *arg, aa_err *err), void *arg,
                aa_err *err)
{
    int attempt, rc = AA_OK;
    for (attempt = 0; attempt < 8; attempt++) {
        s->db->retryable = 0;
        rc = s->db->ops->begin_write(s->db, err);
        if (rc == AA_OK) {
            rc = fn(s, arg, err);
            if (rc == AA_OK)
                rc = s->db->ops->commit(s->db, err);
            else
                s->db->ops->rollback(s->db);
        }
        if (rc == AA_OK || !s->db->retryable)
            return rc;
        s->db->ops->rollback(s->db);
    }
    return rc;
}

static int current_version(aa_space *s, long long *v)
{
    aa_err e;
    /* A missing table (fresh database) reads as version 0. */
    if (sp_query_int(s->db, "SELECT MAX(version) FROM schema_migrations", NULL, 0, 0, v, &e) !=
        AA_OK)
        *v = 0;
    return AA_OK;
}

static int migrate_tx(aa_space *s, void *arg, aa_err *err)
{
    int *applied = arg;
    long long v;
    int rc;
    rc = sp_exec(s->db,
                 "CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY,"
                 " description TEXT NOT NULL, applied TEXT NOT NULL)",
                 err);
    if (rc != AA_OK)
        return rc;
    rc = sp_query_int(s->db, "SELECT MAX(version) FROM schema_migrations", NULL, 0, 0, &v, err);
    if (rc != AA_OK)
        return rc;
    if (v > AA_SPACE_SCHEMA_VERSION)
        return aa_err_set(err, AA_EENV,
                          "%s: database schema version %lld is newer than this tool's (%d)",
                          s->db->location, v, AA_SPACE_SCHEMA_VERSION);
    for (; v < AA_SPACE_SCHEMA_VERSION; v++) {
        sp_stmt *st;
        char now[32], ver[24];
        /* The one backend-specific bit: SQLite's WITHOUT ROWID clause. */
        rc = AA_OK;
        {
            aa_buf sql;
            const char *p = migrations[v].sql, *tok;
            aa_buf_init(&sql);
            while ((tok = strstr(p, "{WITHOUT_ROWID}"))) {
                aa_buf_add(&sql, p, (size_t)(tok - p));
                aa_buf_puts(&sql, s->db->without_rowid);
                p = tok + strlen("{WITHOUT_ROWID}");
            }
            aa_buf_puts(&sql, p);
            rc = sp_exec(s->db, sql.data, err);
            aa_buf_free(&sql);
        }
        if (rc != AA_OK) {
            aa_err_prefix(err, "migration %lld", v + 1);
            return rc;
        }
        rc = s->db->ops->prepare(s->db,
                                 "INSERT INTO schema_migrations(version, description, applied)"
                                 " VALUES(?, ?, ?)",
                                 &st, err);
        if (rc != AA_OK)
            return rc;
        sp_now_iso(now);
        snprintf(ver, sizeof ver, "%lld", v + 1);
        s->db->ops->bind_text(st, 1, ver);
        s->db->ops->bind_text(st, 2, migrations[v].description);
        s->db->ops->bind_text(st, 3, now);
        rc = s->db->ops->step(st, err) < 0 ? AA_EENV : AA_OK;
        s->db->ops->finalize(st);
        if (rc != AA_OK)
            return rc;
        (*applied)++;
    }
    return AA_OK;
}

int aa_space_migrate(aa_space *s, int *applied, aa_err *err)
{
    int n = 0, rc;
    long long v;
    current_version(s, &v);
    if (v == AA_SPACE_SCHEMA_VERSION) {
        if (applied)
            *applied = 0;
        return AA_OK;
    }
    rc = sp_write_tx(s, migrate_tx, &n, err);
    if (applied)
        *applied = rc == AA_OK ? n : 0;
    return rc;
}

int aa_space_schema_version(aa_space *s, int *version, aa_err *err)
{
    long long v;
    (void)err;
    current_version(s, &v);
    *version = (int)v;
    return AA_OK;
}

/* The SQLite file a location names, NULL for other backends. */
static const char *sqlite_path(const char *location)
{
    if (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0)
        return NULL;
    if (strncmp(location, "sqlite:", 7) == 0)
        return location + 7;
    return strstr(location, "://") ? NULL : location;
}

static int open_space(const char *location, int create, aa_space **out, aa_err *err)
{
    aa_space *s;
    sp_db *db = NULL;
    const char *file;
    int rc, existed = 1;
    if (!location || !*location)
        location = getenv("AUTOANALYZER_DB");
    if (!location || !*location)
        location = AA_SPACE_DEFAULT_DB;
    file = sqlite_path(location);
    if (file && *file && strcmp(file, ":memory:") != 0)
        existed = access(file, F_OK) == 0;
    if (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0)
        rc = sp_pg_open(location, &db, err);
    else if (file && !*file)
        rc = aa_err_set(err, AA_EENV, "%s: missing file name", location);
    else if (file)
        rc = sp_sqlite_open(file, create, &db, err);
    else
        rc = aa_err_set(err, AA_EENV,
                        "%s: unsupported database URL (use a file path, sqlite:PATH or "
                        "postgresql://...)",
                        location);
    if (rc != AA_OK)
        return rc;
    s = calloc(1, sizeof *s);
    if (!s || (!existed && !(s->created = aa_strdup(file)))) {
        free(s);
        db->ops->close(db);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    s->db = db;
    rc = aa_space_migrate(s, NULL, err);
    if (rc != AA_OK) {
        aa_space_close_failed(s);
        return rc;
    }
    *out = s;
    return AA_OK;
}

int aa_space_open(const char *location, aa_space **out, aa_err *err)
{
    return open_space(location, 1, out, err);
}

int aa_space_open_existing(const char *location, aa_space **out, aa_err *err)
{
    return open_space(location, 0, out, err);
}

void aa_space_close(aa_space *s)
{
    if (!s)
        return;
    s->db->ops->close(s->db);
    free(s->created);
    free(s);
}

void aa_space_close_failed(aa_space *s)
{
    long long n = 1, m = 1;
    char *file;
    aa_err err;
    if (!s)
        return;
    file = s->created;
    s->created = NULL;
    aa_err_clear(&err);
    if (file && aa_space_count(s, &n, &err) == AA_OK &&
        sp_query_int(s->db, "SELECT COUNT(*) FROM mappings", NULL, 0, 1, &m, &err) != AA_OK)
        m = 1;
    aa_space_close(s);
    if (file && n == 0 && m == 0) {
        static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
        size_t i;
        for (i = 0; i < sizeof sfx / sizeof *sfx; i++) {
            aa_buf b;
            aa_buf_init(&b);
            aa_buf_printf(&b, "%s%s", file, sfx[i]);
            if (b.data)
                unlink(b.data);
            aa_buf_free(&b);
        }
    }
    free(file);
}

const char *aa_space_backend(const aa_space *s) { return s->db->ops->name; }

/* ---- hash maps -------------------------------------------------------------- */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_tri(long long a, long long b, long long c)
{
    return fmix64((uint64_t)a * 0x9E3779B97F4A7C15ull + (uint64_t)b * 0xC2B2AE3D27D4EB4Full +
                  (uint64_t)c * 0x165667B19E3779F9ull);
}

void sp_strmap_init(sp_strmap *m) { memset(m, 0, sizeof *m); }

void sp_strmap_free(sp_strmap *m)
{
    size_t i;
    for (i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

int sp_strmap_get(const sp_strmap *m, const char *key, long long *val)
{
    size_t i;
    if (!m->cap)
        return 0;
    for (i = hash_str(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (strcmp(m->keys[i], key) == 0) {
            if (val)
                *val = m->vals[i];
            return 1;
        }
    return 0;
}

static int strmap_insert(sp_strmap *m, char *key, long long val)
{
    size_t i;
    for (i = hash_str(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (strcmp(m->keys[i], key) == 0) {
            free(key);
            m->vals[i] = val;
            return 0;
        }
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

int sp_strmap_put(sp_strmap *m, const char *key, long long val)
{
    char *k;
    if ((m->n + 1) * 2 > m->cap) {
        sp_strmap old = *m;
        size_t i, cap = m->cap ? m->cap * 2 : 64;
        m->keys = calloc(cap, sizeof *m->keys);
        m->vals = calloc(cap, sizeof *m->vals);
        if (!m->keys || !m->vals) {
            free(m->keys);
            free(m->vals);
            *m = old;
            return -1;
        }
        m->cap = cap;
        m->n = 0;
        for (i = 0; i < old.cap; i++)
            if (old.keys[i])
                strmap_insert(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    k = aa_strdup(key);
    if (!k)
        return -1;
    return strmap_insert(m, k, val);
}

#define TRI_EMPTY INT32_MIN

void sp_trimap_init(sp_trimap *m) { memset(m, 0, sizeof *m); }

void sp_trimap_free(sp_trimap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

int sp_trimap_get(const sp_trimap *m, long long a, long long b, long long c, long long *val)
{
    size_t i;
    if (!m->cap)
        return 0;
    for (i = hash_tri(a, b, c) & (m->cap - 1); m->slots[i].a != TRI_EMPTY;
         i = (i + 1) & (m->cap - 1)) {
        const sp_trislot *t = &m->slots[i];
        if (t->a == a && t->b == b && t->c == c) {
            if (val)
                *val = t->v;
            return 1;
        }
    }
    return 0;
}

static void trimap_insert(sp_trimap *m, long long a, long long b, long long c, long long val)
{
    size_t i;
    for (i = hash_tri(a, b, c) & (m->cap - 1); m->slots[i].a != TRI_EMPTY;
         i = (i + 1) & (m->cap - 1)) {
        sp_trislot *t = &m->slots[i];
        if (t->a == a && t->b == b && t->c == c) {
            t->v = (int32_t)val;
            return;
        }
    }
    m->slots[i].a = (int32_t)a;
    m->slots[i].b = (int32_t)b;
    m->slots[i].c = (int32_t)c;
    m->slots[i].v = (int32_t)val;
    m->n++;
}

int sp_trimap_put(sp_trimap *m, long long a, long long b, long long c, long long val)
{
    if (a <= TRI_EMPTY || a > INT32_MAX || b < INT32_MIN || b > INT32_MAX || c < INT32_MIN ||
        c > INT32_MAX || val < INT32_MIN || val > INT32_MAX)
        return -1;
    if ((m->n + 1) * 2 > m->cap) {
        sp_trimap old = *m;
        size_t i, cap = m->cap ? m->cap * 2 : 1024;
        m->slots = malloc(cap * sizeof *m->slots);
        if (!m->slots) {
            *m = old;
            return -1;
        }
        for (i = 0; i < cap; i++)
            m->slots[i].a = TRI_EMPTY;
        m->cap = cap;
        m->n = 0;
        for (i = 0; i < old.cap; i++)
            if (old.slots[i].a != TRI_EMPTY)
                trimap_insert(m, old.slots[i].a, old.slots[i].b, old.slots[i].c, old.slots[i].v);
        free(old.slots);
    }
    trimap_insert(m, a, b, c, val);
    return 0;
}
