/*
 * wrap/aa_wrap.h -- the compiler wrapper's engine (`autoanalyzer cc`,
 * `autoanalyzer-mpicc` ...).
 *
 * Responsible for turning one compiler command line into the command that
 * builds the same thing instrumented and linked with the AutoAnalyzer
 * runtime, without ever breaking the build: the argument model (response
 * files expanded with gcc's quoting rules, every argument classified), the
 * decision (pass through, compile, link), MPI detection, instrumenting each
 * C source in a forked child with a time limit (a crash, abnormal exit or
 * timeout compiles the original source with one warning), the runtime link
 * flags (kept by the linker whatever --as-needed says, before the MPI
 * library), the region map embedded into the object, and running the real
 * compiler.  cli/cmd_cc.c only reads the environment and prints.
 */
#ifndef AA_WRAP_H
#define AA_WRAP_H

#include <stdio.h>

#include "common/aa_common.h"
#include "instrument/aa_instrument.h"

/* ---- response files --------------------------------------------------- */
/* Expands every `@file` argument (recursively, gcc/libiberty rules:
 * whitespace separates, '...' and "..." group, a backslash escapes the next
 * character anywhere; a file that cannot be read stays a literal argument).
 * *outv is NULL-terminated; free with aa_wrap_free_argv.  *used is set to 1
 * when at least one file was expanded. */
int aa_wrap_expand_response_files(int argc, char *const *argv, int *outc, char ***outv,
                                  int *used, aa_err *err);
/* Appends args to b in response-file syntax (one per line, escaped so that
 * aa_wrap_expand_response_files reads them back unchanged). */
void aa_wrap_quote_response(aa_buf *b, int argc, char *const *argv);
void aa_wrap_free_argv(int argc, char **argv);

/* ---- the argument model ------------------------------------------------ */
enum aa_wrap_lang {
    AA_LANG_NONE = 0, /* not a source file */
    AA_LANG_C,        /* instrumented */
    AA_LANG_C_PREPROCESSED, /* .i: compiled as it is */
    AA_LANG_CXX,      /* instrumented */
    AA_LANG_FORTRAN,
    AA_LANG_ASM,
    AA_LANG_OTHER,
};

enum aa_wrap_kind {
    AA_WARG_OPTION = 0, /* a flag, with a joined value if any */
    AA_WARG_VALUE,      /* the separate value of the option before it */
    AA_WARG_SOURCE,     /* a file compiled here (lang says which language) */
    AA_WARG_OBJECT,     /* .o and other linker inputs */
    AA_WARG_ARCHIVE,    /* a static library given by path (.a) */
    AA_WARG_SHLIB,      /* a shared library given by path (.so, .so.N) */
    AA_WARG_LIBFLAG,    /* -lNAME, -l NAME is an OPTION + VALUE */
    AA_WARG_STDIN,      /* "-" */
};

typedef struct aa_wrap_arg {
    char *text;
    int kind; /* enum aa_wrap_kind */
    int lang; /* enum aa_wrap_lang, for AA_WARG_SOURCE */
} aa_wrap_arg;

enum aa_wrap_mode {
    AA_WRAP_LINK = 0,   /* no -c/-S/-E: compile what is given, then link */
    AA_WRAP_COMPILE,    /* -c */
    AA_WRAP_ASSEMBLY,   /* -S */
    AA_WRAP_PREPROCESS, /* -E, or -M/-MM without -MD */
    AA_WRAP_QUERY,      /* --version, -v alone, -dump*, -print-*, --help, -### */
};

typedef struct aa_wrap_cmd {
    char *compiler;      /* argv[0] as given */
    int orig_argc;       /* the command as given, response files unexpanded */
    char **orig_argv;    /* NULL-terminated, orig_argv[0] is the compiler */
    int argc;            /* the arguments after the compiler, expanded */
    aa_wrap_arg *argv;
    int used_response_file;
    int mode;            /* enum aa_wrap_mode */
    const char *output;  /* -o value (points into argv) or NULL */
    const char *depfile; /* -MF value or NULL */
    int md;              /* -MD or -MMD */
    int ninputs;         /* sources, objects, libraries by path, "-" */
    int nsources;        /* AA_WARG_SOURCE of any language */
    int nc;              /* C, C++ and Fortran sources (instrumentable) */
    int is_static;       /* -static, -static-pie */
    int is_shared;       /* -shared */
    int no_runtime_link; /* -r, -nostdlib, -nodefaultlibs, -nostartfiles */
    int mpi_lib_index;   /* first argument naming an MPI library, or -1 */
} aa_wrap_cmd;

/* Parses `compiler args...` (argv[0] is the compiler).  Expands response
 * files.  Fails only when out of memory. */
int aa_wrap_parse(int argc, char *const *argv, aa_wrap_cmd *cmd, aa_err *err);
void aa_wrap_cmd_free(aa_wrap_cmd *cmd);

/* A configure-time check (autoconf conftest, CMake try_compile and
 * compiler identification, meson sanity checks): compiled as it is and
 * never linked with the runtime.  Returns 1 and a short reason. */
int aa_wrap_is_configure_check(const aa_wrap_cmd *cmd, const char *cwd, const char **why);

/* ---- MPI ---------------------------------------------------------------- */
/* 1 when the compiler's base name is an MPI compiler (mpicc, mpicxx,
 * mpic++, mpif77, mpif90, mpifort, mpiicc, mpiicpc, mpiifort ...). */
int aa_wrap_is_mpi_compiler(const char *compiler);
/* 1 when an argument names an MPI library: -lmpi, -lmpi_*, -lmpich*,
 * -lmpifort, -l:libmpi..., a path whose base name is libmpi*.so* /
 * libmpi*.a / libmpich*, also inside -Wl,a,b,c lists. */
int aa_wrap_arg_is_mpi_lib(const char *arg);
/* 1 when the ELF object or archive at path has an undefined MPI_ / PMPI_
 * / mpi_ (Fortran) symbol; names the first one in sym (may be NULL). */
int aa_wrap_file_references_mpi(const char *path, char *sym, size_t symlen);
/* Is this link an MPI program?  Signals in order: the compiler's name, an
 * MPI library on the line, an object or static library referencing MPI.
 * *why describes the signal (static storage or a buffer in cmd's lifetime:
 * copy it before freeing cmd). */
int aa_wrap_link_is_mpi(const aa_wrap_cmd *cmd, char *why, size_t whylen);
/* The MPI compiler's own compile flags (-I, -D, -isystem, -include ...):
 * Open MPI's --showme:compile, else MPICH/Intel -compile_info / -show.
 * *argv NULL-terminated (free with aa_wrap_free_argv); 0 flags when the
 * compiler tells nothing.  Never fails the caller: returns AA_OK or AA_EENV
 * (out of memory). */
int aa_wrap_mpi_compile_flags(const char *compiler, int *argc, char ***argv, aa_err *err);

/* ---- running it --------------------------------------------------------- */
typedef struct aa_wrap_opts {
    unsigned modes;                /* instrumentation modes, 0 = default */
    const aa_instr_filter *filter; /* NULL = everything */
    const aa_instr_plan *plan;     /* NULL = none */
    const char *libdir;            /* runtime libraries; NULL = not linked */
    const char *mapdir;            /* also write <base>-<hash>.regions.xml here */
    double timeout_s;              /* per source; <= 0: 300 s */
    FILE *diag;                    /* warnings ("autoanalyzer: warning: ..."); NULL = none */
    const char *cwd;               /* working directory (configure checks); NULL = ask */
    int probe_in_body;             /* C functions: the probe in the body, not in
                                    * a wrapper (aa_instrument_opts) */
} aa_wrap_opts;

/* Builds `cmd` through the wrapper: instruments every C source (each in a
 * forked child), compiles and links with the runtime when linking, fixes
 * dependency files, removes its temporary files.  *status is the real
 * compiler's exit status (128+signal when it was killed).  Returns AA_OK
 * when the compiler ran; AA_EENV when it could not be started. */
int aa_wrap_build(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, int *status, aa_err *err);

/* Runs argv (NULL-terminated) as a child and waits; the exit status as
 * aa_wrap_build's.  AA_EENV when it cannot be started. */
int aa_wrap_spawn(char *const *argv, int *status, aa_err *err);

/* The runtime's link arguments for `cmd` (appended to *v / *n, strings
 * allocated): -Wl,--push-state,--no-as-needed <libdir>/libautoanalyzer-mpi.so
 * <libdir>/libautoanalyzer.so -Wl,--pop-state -Wl,-rpath,<libdir> (MPI
 * programs), the core library only otherwise, the .a files inside
 * --whole-archive with -static.  AA_EENV when the libraries are not in
 * libdir (err names them). */
int aa_wrap_runtime_link_args(const aa_wrap_cmd *cmd, int mpi, const char *libdir, int *n,
                              char ***v, aa_err *err);

#endif
