/*
 * profile/aa_profile.h -- the measurement data model and its XML format.
 *
 * An experiment is one run of a program: its environment, the metric list,
 * the static regions (from the instrumenter's region map), and one record
 * per process.  A process holds threads; a thread holds the nodes of its
 * calling-context tree of regions (SPEC §3.1), each with one value per
 * metric.  A per-rank profile file is an experiment holding one process;
 * `collect` merges them.  The same XML format (docs/profile-format.md,
 * docs/profile.xsd) is used for both, and a region map is the <regions>
 * part on its own.
 *
 * Values are doubles; NAN means "not measured" (the metric is unavailable on
 * that process, or the region was throttled).  Never use 0 for that.
 */
#ifndef AA_PROFILE_H
#define AA_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/aa_common.h"

#define AA_PROFILE_FORMAT_VERSION 1

/* ---- regions ------------------------------------------------------------ */
typedef enum aa_region_kind {
    AA_KIND_PROGRAM = 0, /* the whole program: the root, id 0 */
    AA_KIND_FUNCTION,
    AA_KIND_LOOP,
    AA_KIND_CALL,  /* call site of an interesting routine (MPI, libm, I/O...) */
    AA_KIND_USER,  /* #pragma autoanalyzer region / API */
    AA_KIND_COUNT_
} aa_region_kind;

const char *aa_region_kind_name(aa_region_kind k); /* "program", "function", ... */
int aa_region_kind_parse(const char *s, aa_region_kind *out); /* 0 ok, -1 unknown */

#define AA_REGION_ROOT 0u /* id of the whole-program region */

typedef struct aa_region {
    uint32_t id;         /* stable id (SPEC §3.4); 0 = whole program */
    aa_region_kind kind;
    char *name;          /* display name: "main", "loop@42", "MPI_Send@57" */
    char *function;      /* enclosing function, "" for the program */
    char *file;          /* source file as given to the compiler, "" if none */
    int line, col, end_line, end_col; /* 0 when unknown */
    uint32_t parent;     /* static parent region id; 0 for top-level ones */
} aa_region;
/* 1 when two descriptions of one region id disagree on what the region is
 * (kind, name, function, file, position, static parent): merging them is
 * an error. */
int aa_region_identity_differs(const aa_region *a, const aa_region *b);

/* ---- metrics ------------------------------------------------------------ */
/* Known metric names (SPEC §9) with their units.  Names starting with
 * "papi_" (extra counters configured by the user) are accepted as well. */
typedef struct aa_metric_info {
    const char *name;
    const char *unit;  /* "count", "s", "bytes" */
    const char *description;
} aa_metric_info;

const aa_metric_info *aa_metric_lookup(const char *name); /* NULL if unknown */
const aa_metric_info *aa_metric_known(size_t *count);     /* the whole table */
int aa_metric_name_valid(const char *name); /* known, or papi_[a-z0-9_]+ */
/* Busy time of a node or process: its CPU time plus its waits in MPI
 * (mpi_wall - mpi_cpu, when positive) and I/O (io_time); NAN without CPU
 * time; NAN MPI or I/O values count 0.  The share of the wall time it does
 * not explain is time the process was runnable and not run (or asleep):
 * aa_unexplained_share, 0 when unknown.  The profile-guided filter and
 * the analysis call a process preempted above a threshold of it. */
double aa_busy_time(double cpu, double mpi_wall, double mpi_cpu, double io_time);
double aa_unexplained_share(double wall, double busy);
/* The share of a process's wall time (its whole-program wall; busy as
 * aa_busy_time) the machine did not run it while it wanted to: the larger
 * of aa_unexplained_share and its run delay (seconds, NAN: unknown) over
 * wall.  The run delay is the scheduler's (the runtime's `run_delay`
 * process attribute, aa_process_run_delay): on an oversubscribed node it
 * is mostly inside MPI waits, which busy time counts as waiting. */
double aa_preempted_share(double wall, double busy, double run_delay);
/* A process's blocked time by region: off the CPU outside MPI and I/O
 * calls (self wall - MPI wall - I/O time - (CPU - MPI CPU - I/O CPU), >= 0)
 * beyond its run delay (s; the scheduler's: runnable, not running):
 * sleeping, waiting for a device, a lock or a page.  The run delay is
 * taken first from each region in proportion to its CPU time (at most its
 * off-CPU time: a process is preempted where it runs, not where it
 * sleeps), then what is left of it from the smallest off-CPU times left
 * first (each region losing at most one level: preemption is thin and
 * everywhere, sleep long and in a few regions); the total is the off-CPU
 * time less the run delay.  sw, smw, sio, scpu, smc, sic: the process's self
 * values by region (R each, 0 where not measured); blocked: R out. */
void aa_blocked_row(const double *sw, const double *smw, const double *sio, const double *scpu,
                    const double *smc, const double *sic, size_t R, double run_delay,
                    double *blocked);
/* 1 for a call-site region of MPI_Init, MPI_Init_thread or MPI_Finalize
 * (refinement makes them): MPI set-up wherever it sits. */
int aa_region_is_mpi_setup(const aa_region *ri);

typedef struct aa_metric {
    char *name;
    char *unit;
} aa_metric;

/* ---- nodes, threads, processes ------------------------------------------ */
enum aa_node_flags {
    AA_NODE_THROTTLED = 1u << 0, /* measurement stopped after many tiny visits */
};

typedef struct aa_node {
    uint32_t region;  /* static region id */
    int32_t parent;   /* index of the parent node in the same thread; -1 = root */
    uint32_t flags;   /* aa_node_flags */
} aa_node;

typedef struct aa_thread {
    int id;           /* 0 = the process's main thread */
    size_t nnodes;
    aa_node *nodes;
    double *values;   /* nnodes * experiment->nmetrics, row-major by node */
} aa_thread;

typedef struct aa_attr {
    char *name;
    char *value;
} aa_attr;

typedef struct aa_process {
    int rank;
    char *host;
    long pid;
    size_t nunavailable;
    char **unavailable; /* metric names this process could not measure */
    size_t nattrs;
    aa_attr *attrs;     /* per-process environment (e.g. cpu binding) */
    size_t nthreads;
    aa_thread *threads;
} aa_process;

typedef struct aa_experiment {
    char *id;           /* experiment id, shared by all ranks of one run */
    char *program;      /* program name */
    int nprocs;         /* number of processes the run had (expected ranks) */
    size_t nattrs;
    aa_attr *attrs;     /* environment of the run (SPEC §4.3) */
    size_t nmetrics;
    aa_metric *metrics;
    size_t nregions;
    aa_region *regions; /* sorted by id, unique ids */
    size_t nprocesses;
    aa_process *processes; /* sorted by rank, unique ranks */
} aa_experiment;

/* Values of node i of thread t. */
static inline double *aa_node_values(const aa_experiment *e, const aa_thread *t, size_t i)
{
    return t->values + i * e->nmetrics;
}

/* Rounds one node's values (e's metric order) to what the runtime measures:
 * times (unit "s") to whole nanoseconds, counts and bytes to whole numbers;
 * NaN and "s2" values stay.  Such columns are stored as integers in the
 * binary form (docs/profile-format.md). */
void aa_values_whole(const aa_experiment *e, double *row);
void aa_experiment_values_whole(aa_experiment *e); /* every node's values */

/* ---- building and freeing -------------------------------------------------
 * All strings are copied.  Functions returning int give AA_OK or an
 * aa_status code with err filled in. */
aa_experiment *aa_experiment_new(void);
void aa_experiment_free(aa_experiment *e);
int aa_experiment_set_attr(aa_experiment *e, const char *name, const char *value);
const char *aa_experiment_attr(const aa_experiment *e, const char *name);
/* Returns the metric index, adding the metric if needed; -1 on no memory.
 * Adding metrics after nodes exist widens every thread's value rows (NAN). */
int aa_experiment_add_metric(aa_experiment *e, const char *name, const char *unit);
int aa_experiment_metric_index(const aa_experiment *e, const char *name); /* -1 */
/* Adds or replaces (same id) a region; keeps regions sorted by id. */
int aa_experiment_add_region(aa_experiment *e, const aa_region *r);
/* Adds copies of n regions whose ids are distinct and not yet in e, in
 * O((nregions + n) + n log n) (one merge, not n insertions); -1 on no memory. */
int aa_experiment_add_regions(aa_experiment *e, const aa_region *rs, size_t n);
const aa_region *aa_experiment_region(const aa_experiment *e, uint32_t id);
/* 1 when following the regions' static parents comes back to a region
 * (*at: one region of the cycle), else 0 (also -1 on no memory).  A parent
 * that names no region ends its chain.  O(n log n). */
int aa_experiment_parent_cycle(const aa_experiment *e, uint32_t *at);
/* Adds a process with the given rank (must not exist yet); NULL on error. */
aa_process *aa_experiment_add_process(aa_experiment *e, int rank);
aa_process *aa_experiment_process(const aa_experiment *e, int rank);
int aa_process_set_attr(aa_process *p, const char *name, const char *value);
const char *aa_process_attr(const aa_process *p, const char *name); /* NULL: none */
double aa_process_run_delay(const aa_process *p); /* `run_delay` (s); NAN when not recorded */
/* The CPU (of its host) the process ran on most: from `cpus` ("cpu:share,..."
 * of its time during the run, the runtime's samples), else `cpu` (the one it
 * finished on, share 1); *share (optional): that CPU's share of its time.
 * -1 when neither was recorded or readable. */
int aa_process_main_cpu(const aa_process *p, double *share);
/* The CPU's pace the runtime measured in the process: a fixed spin's time
 * (`pace_ns`, ns: the mean of the middle half of its samples), the samples'
 * median absolute deviation (`pace_mad_ns`) and their number
 * (`pace_samples`).  1 when all three were recorded and readable (a time
 * above 0, a whole number of samples from 1), else 0 with all three 0. */
int aa_process_pace(const aa_process *p, double *ns, double *mad_ns, double *samples);
int aa_process_add_unavailable(aa_process *p, const char *metric);
int aa_process_metric_unavailable(const aa_process *p, const char *metric);
aa_thread *aa_process_add_thread(aa_process *p, int id);
/* Appends a node (values NAN); returns its index or -1. */
long aa_thread_add_node(const aa_experiment *e, aa_thread *t, uint32_t region,
                        int32_t parent);

/* Structural checks shared by the reader and the writer: parents precede
 * children, node regions exist, values are finite and >= 0 or NAN. */
int aa_experiment_check(const aa_experiment *e, aa_err *err);

/* Call once from the main thread before reading experiments from several
 * threads at a time (each read is then independent: libxml2's state is per
 * thread once initialised). */
void aa_profile_threads_init(void);

/* ---- XML ------------------------------------------------------------------ */
/* Reads a profile or experiment file (plain or gzip-compressed XML, or the
 * binary form below, told apart by the first bytes).  Malformed
 * input gives AA_EINPUT with "file:line: what is wrong" in err. */
int aa_experiment_read(const char *path, aa_experiment **out, aa_err *err);
int aa_experiment_read_memory(const char *data, size_t len, const char *name,
                              aa_experiment **out, aa_err *err);
/* Writes atomically (temporary file + rename). */
int aa_experiment_write(const aa_experiment *e, const char *path, aa_err *err);
/* Appends the XML text to b (used by the runtime to ship profiles). */
int aa_experiment_write_buf(const aa_experiment *e, aa_buf *b, aa_err *err);

/* ---- compact binary experiments ------------------------------------------
 * The same model in a columnar, compressed, checksummed form for large runs
 * (profile/binary.c, docs/profile-format.md "Binary experiments"; ".aab").
 * aa_experiment_read and aa_experiment_read_memory recognise it by its
 * magic bytes, so every reader of experiments takes both forms.  Malformed
 * input gives AA_EINPUT with "name:offset: what is wrong". */
int aa_experiment_is_binary(const void *data, size_t len); /* magic bytes */
int aa_experiment_read_binary(const char *path, aa_experiment **out, aa_err *err);
int aa_experiment_read_binary_memory(const void *data, size_t len, const char *name,
                                     aa_experiment **out, aa_err *err);
/* For merging the files of one run (collect): reads data as
 * aa_experiment_read_binary_memory does, except that when its header and
 * META section (the run, metrics and regions) are byte for byte those of
 * like_data, a file that read as `like`, they are not read again: *out
 * then has like's run and metrics and no regions of its own (nregions 0),
 * its nodes checked against like's regions.  like must not change while
 * this runs; several threads may share it. */
int aa_experiment_read_binary_like(const void *data, size_t len, const char *name,
                                   const void *like_data, size_t like_len,
                                   const aa_experiment *like, aa_experiment **out, aa_err *err);
/* Writes atomically (temporary file + rename) / appends to b. */
int aa_experiment_write_binary(const aa_experiment *e, const char *path, aa_err *err);
int aa_experiment_write_binary_buf(const aa_experiment *e, aa_buf *b, aa_err *err);
/* The same with up to `threads` threads compressing a big experiment's
 * columns (0: one per online CPU, at most 16): the bytes written are the
 * same for every count. */
int aa_experiment_write_binary_threads(const aa_experiment *e, const char *path, int threads,
                                       aa_err *err);

/* Region maps: <regionmap> with <region> elements, written by the
 * instrumenter, read by the runtime tooling and `analyze`. */
typedef struct aa_region_skip {
    aa_region region;   /* id, kind, name, position as if instrumented */
    char *reason;       /* "tiny leaf function", "static inline function", ... */
} aa_region_skip;

typedef struct aa_regionmap {
    char *source;       /* the translation unit the map describes */
    size_t nregions;
    aa_region *regions;
    /* Regions the instrumenter chose not to instrument (static size rules,
     * profile filter), with the reason: written as <region ...
     * instrumented="no" reason="..."/>, never merged into experiments. */
    size_t nskipped;
    aa_region_skip *skipped;
} aa_regionmap;

int aa_regionmap_read(const char *path, aa_regionmap **out, aa_err *err);
int aa_regionmap_read_memory(const char *data, size_t len, const char *name,
                             aa_regionmap **out, aa_err *err);
/* Writes regions sorted by id (ids must be unique); atomically to a file or
 * appended to b. */
int aa_regionmap_write(const aa_regionmap *m, const char *path, aa_err *err);
int aa_regionmap_write_buf(const aa_regionmap *m, aa_buf *b, aa_err *err);
aa_regionmap *aa_regionmap_new(const char *source); /* NULL on no memory */
/* Adds or replaces (same id) a deep copy of r; -1 on no memory. */
int aa_regionmap_add_region(aa_regionmap *m, const aa_region *r);
/* Appends r without looking for its id: for a reader that checks
 * duplicates itself (linear add_region would make reading quadratic). */
int aa_regionmap_append_region(aa_regionmap *m, const aa_region *r);
/* Adds a deep copy of r as not instrumented, with its reason; -1 on no memory. */
int aa_regionmap_add_skipped(aa_regionmap *m, const aa_region *r, const char *reason);
void aa_regionmap_free(aa_regionmap *m);

/* ---- region maps inside objects and programs --------------------------
 * The compiler wrapper appends aa_regionmap_embed_asm's text to the
 * instrumented translation unit, so the map travels inside the object (in a
 * non-allocated ELF section that costs no memory at run time) and, through
 * the linker's concatenation of same-named sections, inside the program or
 * shared library.  Each embedded map is framed (magic, length) so that
 * several can be found in one section; zero padding between frames is
 * skipped.  docs/profile-format.md describes the frame. */
#define AA_REGIONMAP_SECTION ".autoanalyzer.regions"
/* Appends to out a top-level `__asm__(...)` statement (valid C and C++,
 * no warnings under -Wall -Wextra -pedantic) holding m serialized. */
int aa_regionmap_embed_asm(const aa_regionmap *m, aa_buf *out, aa_err *err);
/* Reads every framed map of the section of an ELF file (ELF32/ELF64,
 * either byte order) and merges them into one map whose source is path.
 * No section: an empty map, AA_OK.  Not ELF, a malformed file or frame, or
 * two maps giving one id different identities: AA_EINPUT, "path: ...".
 * nmaps (may be NULL) receives the number of framed maps found. */
int aa_regionmap_read_elf(const char *path, aa_regionmap **out, size_t *nmaps,
                          aa_err *err);
int aa_regionmap_read_elf_memory(const void *data, size_t len, const char *name,
                                 aa_regionmap **out, size_t *nmaps, aa_err *err);
void aa_region_free_fields(aa_region *r);
int aa_region_copy(aa_region *dst, const aa_region *src); /* deep copy */

#endif
