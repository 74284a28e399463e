/*
 * space/sp_internal.h -- private to space/: the database vtable both
 * backends implement (SQLite in sp_sqlite.c, PostgreSQL in sp_pg.c), the
 * bulk-load interface (prepared INSERTs on SQLite, COPY on PostgreSQL),
 * and small hash tables shared by the import and the operators.
 *
 * SQL is written once with `?` placeholders; the PostgreSQL backend
 * rewrites them to $1, $2 ... when preparing.  Every value goes through a
 * bound parameter.
 */
#ifndef AA_SPACE_INTERNAL_H
#define AA_SPACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/aa_common.h"
#include "space/aa_space.h"

typedef struct sp_db sp_db;

enum { SP_NULL = 0, SP_INT, SP_DOUBLE, SP_TEXT };
typedef struct sp_val {
    int type;
    long long i;
    double d;
    const char *s;
} sp_val;

static inline sp_val sp_int(long long v) { sp_val x = {SP_INT, v, 0, NULL}; return x; }
static inline sp_val sp_dbl(double v) { sp_val x = {SP_DOUBLE, 0, v, NULL}; return x; }
static inline sp_val sp_txt(const char *v) { sp_val x = {v ? SP_TEXT : SP_NULL, 0, 0, v}; return x; }
typedef struct sp_stmt sp_stmt;

typedef struct sp_ops {
    const char *name;
    void (*close)(sp_db *db);
    /* One or more statements without parameters. */
    int (*exec)(sp_db *db, const char *sql, aa_err *err);
    int (*prepare)(sp_db *db, const char *sql, sp_stmt **out, aa_err *err);
    /* Parameters are 1-based. */
    int (*bind_int)(sp_stmt *st, int i, long long v);
    int (*bind_double)(sp_stmt *st, int i, double v);
    int (*bind_text)(sp_stmt *st, int i, const char *v);
    /* 1 = a row is available, 0 = done, -1 = error (err filled). */
    int (*step)(sp_stmt *st, aa_err *err);
    long long (*col_int)(sp_stmt *st, int i);
    double (*col_double)(sp_stmt *st, int i);
    const char *(*col_text)(sp_stmt *st, int i); /* "" for NULL */
    int (*col_null)(sp_stmt *st, int i);
    void (*reset)(sp_stmt *st); /* keeps the statement, clears bindings/results */
    void (*finalize)(sp_stmt *st);
    /* Write transaction: exclusive among writers (BEGIN IMMEDIATE /
     * pg_advisory_xact_lock). */
    int (*begin_write)(sp_db *db, aa_err *err);
    int (*begin_read)(sp_db *db, aa_err *err);
    int (*commit)(sp_db *db, aa_err *err);
    void (*rollback)(sp_db *db);
    /* Bulk load: rows of ncols typed values. */
    int (*bulk_begin)(sp_db *db, const char *table, const char *const *cols, int ncols,
                      aa_err *err);
    int (*bulk_row)(sp_db *db, const struct sp_val *vals, aa_err *err);
    int (*bulk_end)(sp_db *db, aa_err *err);
} sp_ops;

struct sp_db {
    const sp_ops *ops;
    char *location;    /* for messages (password elided) */
    int retryable;     /* the last error was a serialization failure / deadlock */
    int in_tx;
    /* Schema text substitution for {WITHOUT_ROWID}. */
    const char *without_rowid;
};

struct aa_space {
    sp_db *db;
    char *created;  /* the SQLite file this open created, NULL otherwise */
};

/* Runs fn inside a write transaction, retrying serialization failures. */
int sp_write_tx(aa_space *s, int (*fn)(aa_space *s, void *arg, aa_err *err), void *arg,
                aa_err *err);

/* create = 0: the file must exist (AA_EINPUT otherwise). */
int sp_sqlite_open(const char *path, int create, sp_db **out, aa_err *err);
int sp_pg_open(const char *url, sp_db **out, aa_err *err);

/* Convenience wrappers. */
int sp_exec(sp_db *db, const char *sql, aa_err *err);
/* Runs a statement with text parameters and returns the first column of
 * the first row as an integer (def when there is no row). */
int sp_query_int(sp_db *db, const char *sql, const char *const *params, int nparams,
                 long long def, long long *out, aa_err *err);

/* ---- hash tables ---------------------------------------------------------- */
/* String -> int64 (strings are copied). */
typedef struct sp_strmap {
    size_t cap, n;
    char **keys;
    long long *vals;
} sp_strmap;

void sp_strmap_init(sp_strmap *m);
void sp_strmap_free(sp_strmap *m);
/* Returns 1 and sets *val when found, 0 otherwise. */
int sp_strmap_get(const sp_strmap *m, const char *key, long long *val);
int sp_strmap_put(sp_strmap *m, const char *key, long long val); /* -1 no memory */

/* (a,b,c) -> value, all in [-2^31, 2^31): ids and indices.  One 16-byte
 * slot per entry, so a probe touches one cache line. */
typedef struct sp_trislot {
    int32_t a, b, c, v; /* a == INT32_MIN: empty */
} sp_trislot;

typedef struct sp_trimap {
    size_t cap, n;
    sp_trislot *slots;
} sp_trimap;

void sp_trimap_init(sp_trimap *m);
void sp_trimap_free(sp_trimap *m);
int sp_trimap_get(const sp_trimap *m, long long a, long long b, long long c, long long *val);
int sp_trimap_put(sp_trimap *m, long long a, long long b, long long c, long long val);


/* ---- one execution, ready to store (built from an experiment or parsed
 * from the export format) ---------------------------------------------------- */
typedef struct sp_result {
    int metric;                 /* index into metrics */
    int code, machine, process; /* indices into resources */
    double value;
} sp_result;

typedef struct sp_exec_data {
    char *application, *experiment, *started;
    long nprocs;
    size_t nattrs, cap_attrs;
    char **attr_names, **attr_values;
    size_t nres, cap_res;
    char **res_path, **res_type;
    sp_strmap res_index;        /* path -> index */
    size_t nmetrics, cap_metrics;
    char **metric_names, **metric_units;
    size_t nresults, cap_results;
    sp_result *results;
    size_t nfindings, cap_findings;
    aa_space_finding *findings; /* all strings owned */
    size_t nregion_ids, cap_region_ids;
    long *region_res;           /* resource index ... */
    long long *region_ids;      /* ... and its stable region id */
    char *document;             /* encoded experiment (sp_doc_encode), NULL = none */
    size_t document_size;       /* its size before encoding */
    long fail_after_rows;
} sp_exec_data;

void sp_exec_data_init(sp_exec_data *d);
void sp_exec_data_free(sp_exec_data *d);
int sp_exec_data_attr(sp_exec_data *d, const char *name, const char *value); /* set/replace */
/* Adds a resource (and any missing ancestors, typed "group"); returns its
 * index or -1.  An existing path keeps its first type. */
long sp_exec_data_resource(sp_exec_data *d, const char *path, const char *type);
long sp_exec_data_metric(sp_exec_data *d, const char *name, const char *unit);
int sp_exec_data_result(sp_exec_data *d, int metric, long code, long machine, long process,
                        double value);
int sp_exec_data_finding(sp_exec_data *d, const aa_space_finding *f);
/* Records the stable region id of resource res. */
int sp_exec_data_region_id(sp_exec_data *d, long res, long long id);
/* The first metric of d that the space stores with another unit: *which =
 * its index and unit = the stored unit; *which = -1 when there is none. */
int sp_metric_conflict(aa_space *s, const sp_exec_data *d, long *which, char *unit, size_t n,
                       aa_err *err);
/* Stores d inside the current write transaction (AA_EINPUT for a metric the
 * space has in another unit). */
int sp_store_execution(aa_space *s, const sp_exec_data *d, long long *eid, aa_err *err);
/* Hierarchy name ("Code") of a path; NULL for a malformed path. */
int sp_path_valid(const char *path);

/* The experiment document stored with an execution (space/space_doc.c):
 * the XML text, zlib-compressed and base64-encoded so that both backends
 * keep it as text.  *out is malloc'd. */
#define SP_DOC_ENCODING "xml+zlib+base64"
int sp_doc_encode(const aa_experiment *e, char **out, size_t *xml_size, aa_err *err);

/* Appends mapping directives inside the current write transaction. */
int sp_map_store_in_tx(aa_space *s, const aa_space_map *m, aa_err *err);

/* Current time as ISO-8601 UTC. */
void sp_now_iso(char out[32]);

#endif
