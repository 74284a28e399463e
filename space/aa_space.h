/*
 * space/aa_space.h -- the Program Space (SPEC §6): a database of
 * executions (EIDs with SpaceMap attributes), their resource hierarchies
 * (/Code, /Machine, /Process path names with a closure table), performance
 * results keyed by (execution, metric, focus) and analysis findings; and
 * the operators over it: selection by attributes, queries with
 * ancestors/descendants and aggregation across executions, structural
 * difference, performance difference, mapping directives, and a
 * line-oriented export/import format (docs/space.md).
 *
 * Two backends behave identically: SQLite (a file path or sqlite:PATH;
 * the default) and PostgreSQL (postgresql://... URL).  The schema is
 * versioned; pending migrations are applied on open.  Every write is one
 * transaction; concurrent writers are serialized by the database.
 */
#ifndef AA_SPACE_H
#define AA_SPACE_H

#include <stddef.h>

#include "common/aa_common.h"
#include "profile/aa_profile.h"

#define AA_SPACE_SCHEMA_VERSION 5
#define AA_SPACE_DEFAULT_DB "autoanalyzer-space.db"

typedef struct aa_space aa_space;

/* location: NULL = $AUTOANALYZER_DB or AA_SPACE_DEFAULT_DB.  A bad URL or an
 * unreachable server gives AA_EENV; a file that is not a database AA_EINPUT. */
int aa_space_open(const char *location, aa_space **out, aa_err *err);
/* The same for a space that must exist already (reading commands): a SQLite
 * file that does not exist gives AA_EINPUT instead of a new empty database. */
int aa_space_open_existing(const char *location, aa_space **out, aa_err *err);
void aa_space_close(aa_space *s);
/* Closes s after a write that failed: a SQLite file created by this open
 * that holds no execution and no mapping is removed, so a rejected first
 * `add` or `import` leaves no empty database behind. */
void aa_space_close_failed(aa_space *s);
const char *aa_space_backend(const aa_space *s); /* "sqlite" / "postgresql" */
/* Schema version in the database (after the migrations applied on open). */
int aa_space_schema_version(aa_space *s, int *version, aa_err *err);
/* Applies pending migrations (also done by open); *applied = how many. */
int aa_space_migrate(aa_space *s, int *applied, aa_err *err);

/* ---- import ----------------------------------------------------------------- */
typedef struct aa_space_finding {
    const char *kind;       /* "dissimilarity" / "disparity" / "dynamic" */
    const char *region;     /* /Code/... path */
    double severity;        /* [0,1] */
    int severity_class;     /* 0..4, -1 */
    double confidence;      /* [0,1] */
    size_t ncauses;
    char *const *causes;
    const char *suggestion; /* may be NULL */
    long long region_id;    /* stable region id of region, -1 unknown (set by
                             * aa_space_latest_findings; not read by add) */
    double impact_s;        /* what it costs (s; aa_finding's impact_s), NAN unknown
                             * (stored before schema version 5) */
    double run_share;       /* ... of the run, NAN unknown */
    size_t ncontexts;       /* a hotspot over its calling contexts (one static
                             * region): the /Code path of each context's caller,
                             * the one that tells it apart (the analysis's
                             * "called from"), the largest first; 0 otherwise */
    char *const *contexts;
} aa_space_finding;

typedef struct aa_space_add_options {
    const char *application;  /* NULL = the experiment's program name */
    size_t nattrs;
    const aa_attr *attrs;     /* SpaceMap attributes overriding the experiment's */
    size_t nfindings;
    const aa_space_finding *findings;
    int no_document;          /* do not keep the experiment document (see
                               * aa_space_load_experiment) */
    long fail_after_rows;     /* testing: fail after this many result rows (0 = off) */
    int full;                 /* every process's values and the document, however many
                               * processes (see aa_space_add_compact) */
} aa_space_add_options;

/* Runs of more processes than this are stored compact unless `full`:
 * distributions per region and metric, sums, representative processes
 * (space/space_add.c describes the content). */
#define AA_SPACE_COMPACT_MIN 64
/* 1 when aa_space_add stores e compact under options o. */
int aa_space_add_compact(const aa_experiment *e, const aa_space_add_options *o);

/* Stores one execution in one transaction (all or nothing). */
int aa_space_add(aa_space *s, const aa_experiment *e, const aa_space_add_options *o,
                 long long *eid, aa_err *err);

/* The /Code path of every region of e, indexed like e->regions (the same
 * paths aa_space_add stores).  Free with aa_space_free_strings. */
char **aa_space_code_paths(const aa_experiment *e);
void aa_space_free_strings(char **v, size_t n);

/* ---- selection -------------------------------------------------------------- */
typedef struct aa_space_where {
    size_t n;
    const char *const *keys;
    const char *const *values;
} aa_space_where;

/* One stored execution, as data. */
typedef struct aa_space_execution {
    long long eid;
    char *application, *experiment, *started;
    long nprocs;
    size_t nattrs;
    aa_attr *attrs;           /* sorted by name */
    int has_document;         /* the experiment can be loaded back */
} aa_space_execution;

/* The executions matching w (NULL = all), in EID order.  Free with
 * aa_space_executions_free. */
int aa_space_executions(aa_space *s, const aa_space_where *w, aa_space_execution **out,
                        size_t *n, aa_err *err);
void aa_space_executions_free(aa_space_execution *v, size_t n);
/* The attribute's value in x, or NULL. */
const char *aa_space_execution_attr(const aa_space_execution *x, const char *name);

/* The experiment stored with execution eid (everything the analysis and
 * the report read), rebuilt without its experiment directory.  AA_EINPUT
 * "unknown execution N", or "execution N has no stored experiment" for
 * executions imported from the text format or stored before schema 3. */
int aa_space_load_experiment(aa_space *s, long long eid, aa_experiment **e, aa_err *err);

/* One execution in full: its record, counts, metrics with their units and
 * its findings.  Unknown EIDs give AA_EINPUT "unknown execution N".  Free
 * with aa_space_shown_free. */
typedef struct aa_space_shown {
    aa_space_execution *x;     /* one */
    long long nresources, nresults;
    size_t nmetrics;
    char **metrics, **units;   /* sorted by name */
    size_t nfindings;
    aa_space_finding *findings; /* in stored order */
} aa_space_shown;
int aa_space_show(aa_space *s, long long eid, aa_space_shown *out, aa_err *err);
void aa_space_shown_free(aa_space_shown *x);
/* Number of executions (all applications). */
int aa_space_count(aa_space *s, long long *n, aa_err *err);

typedef enum aa_space_relatives {
    AA_SPACE_SELF = 0,
    AA_SPACE_DESCENDANTS,
    AA_SPACE_ANCESTORS,
} aa_space_relatives;

typedef struct aa_space_query {
    const char *metric;
    size_t nfoci;
    const char *const *foci;   /* resource paths, at most one per hierarchy */
    aa_space_relatives relatives;
    aa_space_where where;
    const char *agg;           /* NULL, "max", "min", "mean", "sum" */
} aa_space_query;

/* One result of a query: one execution's value at a focus, or (agg) the
 * aggregate over the selected executions. */
typedef struct aa_space_query_row {
    long long eid;        /* 0 when aggregated */
    char *focus[3];       /* code, machine, process resource paths */
    double value;
    long long executions; /* aggregated over this many executions (1 otherwise) */
    char *stored;         /* the code path as this execution stored it, when it is
                           * the queried region under other line numbers (it moved
                           * lines: same stable region id, same application); NULL
                           * otherwise and when aggregated */
} aa_space_query_row;

typedef struct aa_space_query_result {
    char *unit;           /* the metric's unit, "" unknown */
    size_t n;
    aa_space_query_row *rows; /* by focus (code, machine, process), then EID */
} aa_space_query_result;

/* A /Code focus follows its region across executions of the same
 * application when its lines moved (the stable region ids, as diff and
 * perfdiff): such rows carry the queried path in focus[0] and the stored
 * one in `stored`, and aggregate with the others.  Free r with
 * aa_space_query_free. */
int aa_space_run_query(aa_space *s, const aa_space_query *q, aa_space_query_result *r,
                       aa_err *err);
void aa_space_query_free(aa_space_query_result *r);

/* History (SPEC §6, history-guided analysis): the findings stored with
 * the latest execution (highest EID) matching w, e.g. application=NAME,
 * for round-2 refinement from earlier bottlenecks.  *eid = 0 and *n = 0
 * when no execution matches.  Free with aa_space_findings_free. */
int aa_space_latest_findings(aa_space *s, const aa_space_where *w, long long *eid,
                             aa_space_finding **out, size_t *n, aa_err *err);
void aa_space_findings_free(aa_space_finding *f, size_t n);
/* The findings stored with execution eid, in order, with their stable
 * region ids (AA_EINPUT for an unknown EID). */
int aa_space_findings_of(aa_space *s, long long eid, aa_space_finding **out, size_t *n,
                         aa_err *err);

/* The whole-run value of metric for every code region of eid that has a
 * stable region id: the result at focus (region, /Machine, /Process), the
 * sum over processes (and calling contexts).  Free with free(). */
typedef struct aa_space_region_value {
    uint32_t region_id;
    double value;
} aa_space_region_value;
int aa_space_region_values(aa_space *s, long long eid, const char *metric,
                           aa_space_region_value **out, size_t *n, aa_err *err);

/* ---- prunes (history-guided analysis) ----------------------------------------
 * Karavanic's prunes: /Code resources marked irrelevant for an application
 * (the configuration name of `run --name`, else the application), which the
 * history-guided analysis leaves out (a finding at the resource or a region
 * below it is removed and the report says so). */
typedef struct aa_space_prune {
    char *application;
    char *resource;        /* /Code path */
    long long region_id;   /* its stable region id when pruned, -1 none (a file) */
    char *reason;          /* "" none */
    char *added;           /* ISO-8601 UTC */
} aa_space_prune;

/* Adds a prune.  AA_EUSAGE for a path outside /Code; AA_EINPUT when no
 * stored execution belongs to application, when none of them has the
 * resource, or when it is pruned already.  The region id is taken from
 * the latest execution of the application that has the resource. */
int aa_space_prune_add(aa_space *s, const char *application, const char *resource,
                       const char *reason, aa_err *err);
/* AA_EINPUT when there is no such prune. */
int aa_space_prune_remove(aa_space *s, const char *application, const char *resource,
                          aa_err *err);
/* The prunes of application (NULL = all), by application then resource.
 * Free with aa_space_prunes_free. */
int aa_space_prunes(aa_space *s, const char *application, aa_space_prune **out, size_t *n,
                    aa_err *err);
void aa_space_prunes_free(aa_space_prune *v, size_t n);

/* ---- mapping and differences ----------------------------------------------- */
typedef struct aa_space_map {
    size_t n;
    char **from, **to;
} aa_space_map;

void aa_space_map_free(aa_space_map *m);
/* Reads "map OLD NEW" lines (# comments, blank lines); AA_EINPUT with
 * file:line on malformed lines.  Appends to m. */
int aa_space_map_read(const char *path, aa_space_map *m, aa_err *err);
int aa_space_map_add(aa_space_map *m, const char *from, const char *to);
/* Stored directives (in order) / store new ones / clear. */
int aa_space_map_load(aa_space *s, aa_space_map *m, aa_err *err);
int aa_space_map_store(aa_space *s, const aa_space_map *m, aa_err *err);
int aa_space_map_clear(aa_space *s, aa_err *err);
/* Rewrites path by the directives (prefix on whole components, in order). */
char *aa_space_map_apply(const aa_space_map *m, const char *path);

/* Structural difference of 2 to 8 executions (stored mappings plus extra,
 * which may be NULL): per execution, the resources (after mapping) it has
 * and at least one other lacks, sorted with a resource before its
 * descendants.  Free with aa_space_diff_free. */
typedef struct aa_space_diff_side {
    long long eid;
    size_t n;
    char **only;
} aa_space_diff_side;
typedef struct aa_space_diff_result {
    size_t n;
    aa_space_diff_side *sides; /* in the order of eids */
} aa_space_diff_result;
int aa_space_diff(aa_space *s, const long long *eids, size_t n, const aa_space_map *extra,
                  aa_space_diff_result *r, aa_err *err);
void aa_space_diff_free(aa_space_diff_result *r);

typedef struct aa_space_perfdiff_options {
    const char *metric;
    double threshold;
    int relative;   /* threshold is a percentage of a's value */
    int exhaustive; /* list every common focus, differing or not */
    const aa_space_map *extra;
    double min_size; /* leave out differences with |delta| below this (metric units) */
} aa_space_perfdiff_options;

/* One focus compared by perfdiff. */
typedef struct aa_space_difference {
    char *focus[3];  /* code, machine, process resource paths (after mapping) */
    double a, b, delta; /* delta = b - a */
    int differs;     /* beyond the threshold */
    int hidden;      /* differs although no focus it refines does: the top-down
                      * search (Karavanic Fig. 11) would not have reached it */
} aa_space_difference;

typedef struct aa_space_perfdiff_result {
    char *unit;          /* the metric's unit, "" unknown */
    size_t compared;     /* foci common to both executions, each compared once */
    size_t ndiffering;   /* of them, beyond the threshold */
    size_t nhidden;      /* of those, missed by a top-down search */
    size_t n;            /* rows listed: the differing foci (every common focus
                          * with exhaustive) whose |delta| >= min_size ... */
    aa_space_difference *rows; /* ... largest |delta| first, then breadth-first */
} aa_space_perfdiff_result;

/* Performance difference of executions a and b (Karavanic 1999, Fig. 11,
 * computed bottom-up: every common focus once, so a change below a parent
 * that moved less than the threshold is found).  Free r with
 * aa_space_perfdiff_free. */
int aa_space_perfdiff(aa_space *s, long long a, long long b, const aa_space_perfdiff_options *o,
                      aa_space_perfdiff_result *r, aa_err *err);
void aa_space_perfdiff_free(aa_space_perfdiff_result *r);

/* ---- export / import -------------------------------------------------------- */
/* eid < 0: all executions.  Appends the text format to out. */
int aa_space_export(aa_space *s, long long eid, aa_buf *out, aa_err *err);
/* Imports every execution of the text (one transaction); new EIDs appended
 * to *eids (malloc'd).  name is used in error messages (file:line). */
int aa_space_import(aa_space *s, const char *text, const char *name, long long **eids,
                    size_t *neids, aa_err *err);

#endif
