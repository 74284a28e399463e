/*
 * instrument/aa_instrument.h -- the source-to-source instrumenter (SPEC §3).
 *
 * Parses one C translation unit with libclang (the user's real flags), finds
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
 * `<scope>;` after a function body's opening brace.  Insertions never add
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
};
#define AA_MODE_DEFAULT (AA_MODE_FUNCTIONS | AA_MODE_OUTER_LOOPS)
#define AA_MODE_ALL 0xffu

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
