/*
 * cli/cmd_cc.c -- `autoanalyzer cc COMPILER ARGS...` and the one-word
 * wrappers (autoanalyzer-mpicc ... dispatch here from cli/main.c): reads
 * the environment (modes, filter, plan, map directory, runtime directory,
 * time limit, the off switches), prints usage, and hands the command to
 * the wrapper engine in wrap/ (aa_wrap_build), whose exit status is the
 * compiler's.  Switched off, the compiler is exec'd unchanged.
 */
#include "cli/cli.h"
#include "instrument/aa_instrument.h"
#include "wrap/aa_wrap.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_cc_summary[] = "compiler wrapper: instrument, compile and link with the runtime";
const char cmd_cc_usage[] =
    "usage: autoanalyzer cc COMPILER [ARGS...]\n"
    "       autoanalyzer-COMPILER [ARGS...]   (autoanalyzer-mpicc, autoanalyzer-gcc ...)\n"
    "\n"
    "Drop-in compiler: make CC=autoanalyzer-mpicc, make CC=\"autoanalyzer cc mpicc\",\n"
    "cmake -DCMAKE_C_COMPILER=autoanalyzer-mpicc, or CMake's\n"
    "CMAKE_C_COMPILER_LAUNCHER=\"autoanalyzer;cc\" (with\n"
    "CMAKE_C_LINKER_LAUNCHER the same, so the runtime is linked).\n"
    "Every C file compiled is instrumented first (in a child process: if the\n"
    "instrumenter fails, crashes or times out, the original is compiled with a\n"
    "warning); its region map is embedded in the object.  Links add the\n"
    "AutoAnalyzer runtime (MPI wrappers for MPI programs) so that the linker\n"
    "always keeps it.  Response files (@file) are read.  -E, -M, --version and\n"
    "similar queries, and configure-time checks (conftest, CMake try_compile)\n"
    "pass straight through.  C++ and Fortran sources are compiled as they are.\n"
    "\n"
    "environment:\n"
    "  AUTOANALYZER_WRAPPER=off  plain pass-through (also AUTOANALYZER_DISABLE=1)\n"
    "  AUTOANALYZER_MODE     instrumentation modes (default functions,outer-loops;\n"
    "                        `tiny` adds static inline and tiny leaf functions and\n"
    "                        tiny constant-trip loops, left out by default)\n"
    "  AUTOANALYZER_PROBE_IN_BODY=1  a C function's probe in its body, not in a\n"
    "                        wrapper around the outlined body (docs/instrument.md)\n"
    "  AUTOANALYZER_FILTER   Score-P-like filter file\n"
    "  AUTOANALYZER_FILTER_FROM  a measured experiment: its tiny hot functions are\n"
    "                        not instrumented (as `autoanalyzer filter --from`)\n"
    "  AUTOANALYZER_PLAN     region plan file\n"
    "  AUTOANALYZER_REFINE   round-1 analysis for a refined (round 2) build (the\n"
    "                        experiment.xml beside it also filters, as above)\n"
    "  AUTOANALYZER_MAPDIR   also write each region map here\n"
    "                        (<file>-<hash>.regions.xml)\n"
    "  AUTOANALYZER_LIBDIR   where libautoanalyzer lives (default ../lib next\n"
    "                        to this program)\n"
    "  AUTOANALYZER_INSTRUMENT_TIMEOUT  seconds per file (default 300)\n"
    "  AUTOANALYZER_QUIET=1  no instrumentation warnings\n";

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

/* AUTOANALYZER_WRAPPER=off|0|no|false, AUTOANALYZER_DISABLE=1 (older
 * name), or a wrapper already running around this compiler. */
static int switched_off(void)
{
    const char *w = getenv("AUTOANALYZER_WRAPPER");
    if (w && (!strcmp(w, "off") || !strcmp(w, "0") || !strcmp(w, "no") || !strcmp(w, "false")))
        return 1;
    return env_on("AUTOANALYZER_DISABLE") || env_on("AUTOANALYZER_WRAPPER_ACTIVE");
}

static int exec_compiler(char **argv)
{
    fflush(NULL);
    execvp(argv[0], argv);
    fprintf(stderr, "autoanalyzer cc: cannot run %s: %s\n", argv[0], strerror(errno));
    return 127;
}

static char *runtime_libdir(void)
{
    const char *env = getenv("AUTOANALYZER_LIBDIR");
    char exe[PATH_MAX], cand[PATH_MAX + 16];
    ssize_t n;
    if (env && *env)
        return aa_strdup(env);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    /* <prefix>/bin/autoanalyzer -> <prefix>/lib */
    snprintf(cand, sizeof cand, "%s/lib", dirname(dirname(exe)));
    return realpath(cand, exe) ? aa_strdup(exe) : NULL;
}

/* The instrumenter's settings from the environment; exit status or 0. */
static int read_settings(aa_wrap_opts *o, aa_instr_filter **filter, aa_instr_plan **plan)
{
    const char *env, *pf, *rf, *ff;
    aa_err err;
    if ((env = getenv("AUTOANALYZER_MODE")) && *env &&
        aa_instrument_parse_modes(env, &o->modes, &err)) {
        fprintf(stderr, "autoanalyzer cc: AUTOANALYZER_MODE: %s\n", err.msg);
        return EXIT_USAGE;
    }
    o->probe_in_body = env_on("AUTOANALYZER_PROBE_IN_BODY");
    if ((env = getenv("AUTOANALYZER_FILTER")) && *env) {
        *filter = aa_instr_filter_new();
        if (!*filter || aa_instr_filter_load(*filter, env, &err)) {
            fprintf(stderr, "autoanalyzer cc: AUTOANALYZER_FILTER: %s\n",
                    *filter ? err.msg : "out of memory");
            return EXIT_INPUT;
        }
    }
    pf = getenv("AUTOANALYZER_PLAN");
    rf = getenv("AUTOANALYZER_REFINE");
    ff = getenv("AUTOANALYZER_FILTER_FROM");
    if ((pf && *pf) || (rf && *rf) || (ff && *ff)) {
        *plan = aa_instr_plan_new();
        if (!*plan || (pf && *pf && aa_instr_plan_load(*plan, pf, &err)) ||
            (rf && *rf && aa_instr_plan_load_refine(*plan, rf, &err)) ||
            (ff && *ff && aa_instr_plan_load_filter_from(*plan, ff, 0, &err))) {
            fprintf(stderr, "autoanalyzer cc: %s\n", *plan ? err.msg : "out of memory");
            return EXIT_INPUT;
        }
    }
    if ((env = getenv("AUTOANALYZER_INSTRUMENT_TIMEOUT")) && *env &&
        (aa_parse_double(env, &o->timeout_s) || o->timeout_s <= 0)) {
        fprintf(stderr, "autoanalyzer cc: AUTOANALYZER_INSTRUMENT_TIMEOUT: '%s' is not a "
                        "positive number of seconds\n", env);
        return EXIT_USAGE;
    }
    o->filter = *filter;
    o->plan = *plan;
    o->mapdir = getenv("AUTOANALYZER_MAPDIR");
    o->diag = env_on("AUTOANALYZER_QUIET") ? NULL : stderr;
    return 0;
}

int cmd_cc(int argc, char **argv)
{
    aa_wrap_opts o;
    aa_wrap_cmd cmd;
    aa_instr_filter *filter = NULL;
    aa_instr_plan *plan = NULL;
    char *libdir = NULL;
    aa_err err;
    int rc, status = 0;

    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(cmd_cc_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (switched_off())
        return exec_compiler(argv + 1);
    memset(&o, 0, sizeof o);
    rc = read_settings(&o, &filter, &plan);
    if (rc == 0 && aa_wrap_parse(argc - 1, argv + 1, &cmd, &err)) {
        rc = cli_fail(&err);
    } else if (rc == 0) {
        o.libdir = libdir = runtime_libdir();
        if (aa_wrap_build(&cmd, &o, &status, &err)) {
            fprintf(stderr, "autoanalyzer cc: %s\n", err.msg);
            rc = 127;
        } else {
            rc = status;
        }
        aa_wrap_cmd_free(&cmd);
    }
    free(libdir);
    aa_instr_filter_free(filter);
    aa_instr_plan_free(plan);
    return rc;
}
