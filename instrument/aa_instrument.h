/*
 * instrument/aa_instrument.h -- the source-to-source instrumenter (SPEC §3).
 *
 * Parses one C or C++ translation unit with libclang (the user's real flags), finds
 * code regions by mode (functions, loops, call sites of MPI / libm / POSIX /
 * libc routines, user pragmas), filters them (globs, Score-P-like filter
 * files, a region plan, a round-1 analysis for --refine), checks that each
 * region can be wrapped without changing what the program computes (SPEC
 * §3.3; unsafe ones are skipped with "file:line:col: warning: autoanalyzer:
 * ... not instrumented: reason", summarised per file), and
 * produces the instrumented source text plus the region map.  The rewrite
 * inserts text into the original bytes only: a prelude with the probe ABI
 * (runtime/aa_probe.h) and one static descriptor per region, then
 * `{ <scope>; <original statement> }` around loops and call statements and
 * `<scope>;` after a function body's opening brace (C: a cleanup-attribute
 * handle; C++: an RAII guard, so exceptions close regions too).  Insertions never add
 * newlines, so every user line keeps its number (a `#line 1` follows the
 * prelude).
 */
#ifndef AA_INSTRUMENT_H
#define AA_INSTRUMENT_H

#include <stdint.h>
#include <stdio.h>

#include "common/aa_common.h"
#include "profile/aa_profile.h"

/* Modes (SPEC §3.2), a bit set. */
enum {
    AA_MODE_FUNCTIONS = 1u << 0,
    AA_MODE_OUTER_LOOPS = 1u << 1,
    AA_MODE_INNER_LOOPS = 1u << 2, /* all loops */
    AA_MODE_MPI = 1u << 3,
    AA_MODE_MATHLIB = 1u << 4,
    AA_MODE_SYSCALLS = 1u << 5,
    AA_MODE_LIBC = 1u << 6,
    AA_MODE_USER = 1u << 7,
    /* also the small regions the size rules leave out by default: static
     * inline functions, tiny leaf functions, tiny constant-trip loops */
    AA_MODE_TINY = 1u << 8,
};
#define AA_MODE_DEFAULT (AA_MODE_FUNCTIONS | AA_MODE_OUTER_LOOPS)
#define AA_MODE_ALL 0x1ffu

/* The size rules (docs/instrument.md, "Small regions"): a leaf function of
 * at most this many statements, and a loop of at most this many iterations
 * (constant bounds) with a straight-line body, are not instrumented by
 * default. */
#define AA_TINY_MAX_STATEMENTS 12
#define AA_TINY_MAX_TRIPS 8
/* The short-function rule (same section): a function without loops but
 * tiny and bisection ones, of at most this many statements (error paths
 * aside), calling no MPI, I/O or other library routine that may wait and
 * at most AA_SHORT_MAX_CALLS functions of the program. */
#define AA_SHORT_MAX_STATEMENTS 24
#define AA_SHORT_MAX_CALLS 2
/* A nest of for loops whose trip counts are bounded once the enclosing
 * loops' variables take their values, straight-line otherwise, executing
 * at most this many statements: 8 iterations of a 24-statement body, what
 * the tiny-loop rule already lets a short function execute. */
#define AA_TINY_MAX_NEST_STATEMENTS (AA_TINY_MAX_TRIPS * AA_SHORT_MAX_STATEMENTS)

/* Parses "functions,outer-loops,..." (also "all", "default"). */
int aa_instrument_parse_modes(const char *list, unsigned *modes, aa_err *err);

/* Region filter: Score-P-like rules over function names and file names,
 * applied in order (the last matching rule wins, default include). */
typedef struct aa_instr_filter aa_instr_filter;
aa_instr_filter *aa_instr_filter_new(void);
void aa_instr_filter_free(aa_instr_filter *f);
/* what: 'F' function glob, 'P' file glob; include: 1 include, 0 exclude. */
int aa_instr_filter_add(aa_instr_filter *f, char what, int include, const char *glob);
/* Reads a filter file (SCOREP_REGION_NAMES_BEGIN ... / SCOREP_FILE_NAMES_BEGIN ...). */
int aa_instr_filter_load(aa_instr_filter *f, const char *path, aa_err *err);
/* 1 when a region of `function` in `file` is to be instrumented. */
int aa_instr_filter_accepts(const aa_instr_filter *f, const char *file, const char *function);
/* 1 when the deciding function rule is an INCLUDE naming `function`
 * literally (no wildcard): such a function is instrumented even when a size
 * rule would leave it out. */
int aa_instr_filter_names(const aa_instr_filter *f, const char *file, const char *function);

/* Region plan (--plan) and refinement set (--refine).  Both name regions by
 * id or by name ("solve", "loop@42" or a function name). */
typedef struct aa_instr_plan aa_instr_plan;
aa_instr_plan *aa_instr_plan_new(void);
void aa_instr_plan_free(aa_instr_plan *p);
/* Plan file: lines `eliminate ID|NAME...`, `split ID|NAME...`, `merge ID|NAME...`
 * (see docs/instrument.md). */
int aa_instr_plan_load(aa_instr_plan *p, const char *path, aa_err *err);
/* Refine file: analysis JSON/XML (bottleneck region ids) or a list with one
 * region id or name per line; each named region is split. */
int aa_instr_plan_load_refine(aa_instr_plan *p, const char *path, aa_err *err);
/* The same for region ids known from elsewhere (the findings stored in the
 * Program Space); origin names them in messages.  AA_EINPUT when n is 0. */
int aa_instr_plan_refine_ids(aa_instr_plan *p, const char *origin, const uint32_t *ids,
                             size_t n, aa_err *err);
/* Profile filter (--filter-from): the functions that aa_instr_pfilter_compute
 * lists for the measured experiment EXP (experiment.xml or a run directory)
 * with the default thresholds are not instrumented, unless a --refine/split
 * names them.  With `quiet_missing`, a missing EXP is not an error (the
 * refine file's sibling experiment.xml is tried this way). */
int aa_instr_plan_load_filter_from(aa_instr_plan *p, const char *exp, int quiet_missing,
                                   aa_err *err);

/* ---- profile-guided filter (autoanalyzer filter) --------------------------
 * From a measured experiment, the regions visited often whose mean
 * exclusive time per visit is tiny (or that the runtime throttled for being
 * so): the probes cost more than what they tell. */
typedef struct aa_pfilter_opts {
    double min_visits;       /* default AA_PFILTER_MIN_VISITS */
    double max_ns_per_visit; /* default AA_PFILTER_MAX_NS */
    double probe_ns;         /* estimated cost of one enter+exit pair */
} aa_pfilter_opts;
#define AA_PFILTER_MIN_VISITS 1e5
#define AA_PFILTER_MAX_NS 1000.0
#define AA_PFILTER_PROBE_NS 30.0
/* A process whose wall time is more than this share neither CPU time nor
 * MPI or I/O wait was preempted (a loaded machine): its regions' time per
 * visit is their busy time where that is lower than their wall time. */
#define AA_PFILTER_PREEMPTED 0.2
/* Cost of a visit after throttling (untimed_visits), ns: gated at the
 * scope probe it is a thread-local load, a compare and an increment
 * (0.3 ns measured, bench/overhead.md); rounded up. */
#define AA_PFILTER_UNTIMED_NS 0.5

typedef struct aa_pfilter_entry {
    char *function;          /* the function to exclude */
    char *file;
    double visits;           /* summed over every process and thread */
    double untimed;          /* of which counted after throttling, not timed */
    double ns_per_visit;     /* mean exclusive wall (or busy) time per visit */
    int throttled;           /* visits are a lower bound (throttled, untimed not counted) */
    double saving_s;         /* timed visits x probe cost + untimed x AA_PFILTER_UNTIMED_NS */
} aa_pfilter_entry;

typedef struct aa_pfilter {
    size_t n;
    aa_pfilter_entry *v;     /* by saving, largest first */
    double run_s;            /* wall time of the run (root region, max over ranks) */
    double saving_s;         /* total (per process: summed / nprocs) */
    size_t nprocs;
    double lost;             /* largest share of a process's wall time that is
                              * not busy time (> AA_PFILTER_PREEMPTED: preempted) */
} aa_pfilter;

/* Reads EXP (an experiment file, or a directory holding experiment.xml)
 * and computes the filter.  AA_EINPUT "file:line: what" for bad input. */
int aa_pfilter_compute(const char *exp, const aa_pfilter_opts *o, aa_pfilter *out,
                       aa_err *err);
/* The Score-P-format filter file text (EXCLUDE lines, comments with the
 * measurements). */
void aa_pfilter_format(const aa_pfilter *f, const aa_pfilter_opts *o, aa_buf *b);
void aa_pfilter_free(aa_pfilter *f);

typedef struct aa_instrument_opts {
    unsigned modes;                 /* 0 = AA_MODE_DEFAULT */
    const aa_instr_filter *filter;  /* NULL = everything */
    const aa_instr_plan *plan;      /* NULL = none */
    FILE *diag;                     /* warnings go here; NULL = silent */
    int verbose;                    /* also print notes (excluded functions...) */
    const char *display_name;       /* file name for #line/map; NULL = path */
    const char *compiler;           /* the real compiler (gcc, mpicc...): parse with
                                     * its predefined macros and include paths, so
                                     * the instrumenter sees the branches it
                                     * compiles; NULL = libclang's own */
    int warn_unmatched;             /* warn ("plan:line: warning: ...") for each
                                     * plan/refine entry naming no region of the
                                     * file (set for one file, not by cc) */
    int probe_in_body;              /* a C function's probe goes into its body
                                     * (the form before the outlined one:
                                     * docs/instrument.md, "The rewrite") */
} aa_instrument_opts;

typedef struct aa_instrument_result {
    aa_buf source;        /* the instrumented translation unit */
    aa_regionmap *map;    /* regions instrumented */
    int nskipped;         /* regions left alone with a diagnostic */
} aa_instrument_result;

/* Instruments `path`, parsed with compiler flags argv[0..argc-1] (only the
 * flags that matter to parsing are used: -I -D -U -std -include -isystem
 * -iquote -fopenmp ...).  Returns AA_OK, AA_EINPUT for a file that does not
 * parse or is already instrumented ("file:line: what"), AA_EENV otherwise. */
int aa_instrument_file(const char *path, int argc, const char *const *argv,
                       const aa_instrument_opts *o, aa_instrument_result *res,
                       aa_err *err);
void aa_instrument_result_free(aa_instrument_result *res);

/* Flags of compile_commands.json for `path` (searched from the file's
 * directory upward, or in `dir` when not NULL).  *argv is NULL-terminated,
 * free with aa_instrument_free_args.  AA_EENV when no entry was found. */
int aa_instrument_compdb_flags(const char *path, const char *dir, int *argc,
                               char ***argv, aa_err *err);
void aa_instrument_free_args(int argc, char **argv);

/* The prelude's probe declarations (kept in sync with runtime/aa_probe.h;
 * a unit test compiles both together). */
const char *aa_instrument_probe_decls(void);
/* Marker the prelude starts with; its presence means "already instrumented". */
#define AA_INSTRUMENT_MARKER "/* AUTOANALYZER-INSTRUMENTED"

/* The stable id of a region (SPEC §3.4) from its identity key, before
 * collision resolution: FNV-1a over "basename\0function\0kind\0path". */
uint32_t aa_instrument_region_hash(const char *basename, const char *function,
                                   const char *kind, const char *path);

#endif
