/*
 * wrap/wrap_internal.h -- private to wrap/: a growable NULL-terminated argv,
 * the per-source instrumentation in a forked child, and the pieces the
 * build step (wrap.c) assembles.
 */
#ifndef AA_WRAP_INTERNAL_H
#define AA_WRAP_INTERNAL_H

#include "wrap/aa_wrap.h"

typedef struct wrap_argv {
    char **v; /* NULL-terminated once anything was pushed */
    int n, cap;
} wrap_argv;

/* Appends a copy of s; -1 when out of memory. */
int wrap_argv_push(wrap_argv *v, const char *s);
void wrap_argv_free(wrap_argv *v);

/* Outcome of instrumenting one source. */
enum wrap_instr_status {
    WRAP_INSTR_OK = 0,      /* tmppath holds the instrumented source */
    WRAP_INSTR_SKIPPED,     /* compile the original (a warning was printed, or none needed) */
};

typedef struct wrap_source {
    int argi;      /* index in cmd->argv */
    char *tmpdir;  /* private directory, NULL when not instrumented */
    char *tmppath; /* tmpdir/<same base name> */
} wrap_source;

/* Instruments cmd->argv[s->argi] in a forked child that writes the
 * instrumented text (with the embedded region map) into a private
 * temporary directory, and the map into o->mapdir when set.  Waits at most
 * o->timeout_s.  Never fails the build: on any problem the source is left
 * to be compiled as it is (s->tmppath NULL) and one warning is printed. */
int wrap_instrument_source(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, int nflags,
                           char *const *flags, int embed, wrap_source *s);

/* The region map as a top-level asm statement appended to the instrumented
 * translation unit (section .autoanalyzer.regions), when profile/ offers it. */
int wrap_embed_map(const aa_regionmap *m, aa_buf *out, aa_err *err);

/* A Fortran source's region map as a companion C file (top-level asm) that
 * the build compiles beside it: <tmppath>.aamap.c. */
char *wrap_fortran_map_name(const char *tmppath);

/* The map file name in mapdir for source path: <base>-<8 hex of FNV-1a of
 * the absolute path>.regions.xml. */
char *wrap_mapdir_name(const char *mapdir, const char *source);

/* The dependency file gcc writes for source s, or NULL when none. */
char *wrap_depfile_name(const aa_wrap_cmd *cmd, const char *source);
/* Replaces every occurrence of tmp by orig in the file dep. */
void wrap_fix_depfile(const char *dep, const char *tmp, const char *orig);

#endif
