/*
 * cli/cmd_cc.c -- `autoanalyzer cc COMPILER ARGS...`: the compiler wrapper
 * (SPEC §3.7).  Each C source being compiled is instrumented into a
 * temporary file with the same base name (so default object names do not
 * change) and compiled from there with the user's flags plus
 * `-iquote <source dir>` (quoted includes still resolve); its region map
 * goes next to the object (<obj>.regions.xml) or into AUTOANALYZER_MAPDIR.
 * At link time the runtime is added: -lautoanalyzer-mpi -lautoanalyzer for
 * MPI programs, -lautoanalyzer otherwise, before the user's libraries.  A
 * file that cannot be instrumented is compiled as it is, with a warning;
 * preprocessing-only and query invocations pass straight through.
 */
#include "cli/cli.h"
#include "instrument/aa_instrument.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char cmd_cc_summary[] = "compiler wrapper: instrument, compile and link with the runtime";
const char cmd_cc_usage[] =
    "usage: autoanalyzer cc COMPILER [ARGS...]\n"
    "\n"
    "Drop-in compiler: make CC=\"autoanalyzer cc mpicc\", or CMake's\n"
    "CMAKE_C_COMPILER_LAUNCHER=\"autoanalyzer;cc\" (with\n"
    "CMAKE_C_LINKER_LAUNCHER the same, so the runtime is linked).\n"
    "Every .c file compiled is instrumented first; its region map is written\n"
    "to <object>.regions.xml (or into $AUTOANALYZER_MAPDIR).  Links add the\n"
    "AutoAnalyzer runtime (MPI wrappers for MPI programs).  A file that cannot\n"
    "be instrumented is compiled unchanged with a warning.  -E, -M, -MM,\n"
    "--version and similar queries pass straight through.\n"
    "\n"
    "environment:\n"
    "  AUTOANALYZER_MODE     instrumentation modes (default functions,outer-loops)\n"
    "  AUTOANALYZER_FILTER   Score-P-like filter file\n"
    "  AUTOANALYZER_PLAN     region plan file\n"
    "  AUTOANALYZER_REFINE   round-1 analysis for a refined (round 2) build\n"
    "  AUTOANALYZER_MAPDIR   directory for the region maps\n"
    "  AUTOANALYZER_LIBDIR   where libautoanalyzer lives (default ../lib next\n"
    "                        to this program)\n"
    "  AUTOANALYZER_QUIET=1  no instrumentation warnings\n"
    "  AUTOANALYZER_DISABLE=1  plain pass-through\n";

/* Options whose value is the next argument. */
static int takes_value(const char *a)
{
    static const char *const v[] = {"-o", "-MF", "-MT", "-MQ", "-x", "-I", "-D", "-U",
                                     "-include", "-imacros", "-isystem", "-iquote",
                                     "-idirafter", "-L", "-l", "-Xlinker", "-Xpreprocessor",
                                     "-Xassembler", "-T", "-u", "-z", "-aux-info", "-wrapper",
                                     "--param", "-isysroot", "-e", "-B", NULL};
    for (int i = 0; v[i]; i++)
        if (!strcmp(a, v[i]))
            return 1;
    return 0;
}

static int run(char **argv)
{
    pid_t pid;
    int st;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "autoanalyzer cc: fork: %s\n", strerror(errno));
        return EXIT_ENV;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "autoanalyzer cc: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return EXIT_ENV;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int pass_through(int n, char **args)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    int rc;
    if (!v)
        return EXIT_ENV;
    memcpy(v, args, (size_t)n * sizeof *v);
    rc = run(v);
    free(v);
    return rc;
}

static int is_c_source(const char *a)
{
    size_t l = strlen(a);
    return l > 2 && !strcmp(a + l - 2, ".c");
}

static int is_mpi_compiler(const char *cc)
{
    const char *b = strrchr(cc, '/');
    b = b ? b + 1 : cc;
    return !strncmp(b, "mpi", 3);
}

/* The compiler wrapper's own flags (mpicc --showme:compile), for parsing. */
static void mpi_compile_flags(const char *cc, aa_buf *b)
{
    char cmd[PATH_MAX + 64];
    FILE *p;
    char line[4096];
    snprintf(cmd, sizeof cmd, "'%s' --showme:compile 2>/dev/null", cc);
    if (strchr(cc, '\'') || !(p = popen(cmd, "r")))
        return;
    while (fgets(line, sizeof line, p))
        aa_buf_puts(b, line);
    if (pclose(p) != 0)
        aa_buf_reset(b);
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

/* Rewrites a make dependency file so it names the original source. */
static void fix_depfile(const char *dep, const char *tmp, const char *orig)
{
    char *data;
    size_t len, tl = strlen(tmp);
    aa_buf b;
    aa_err err;
    const char *p, *q;
    if (aa_read_file(dep, &data, &len, &err))
        return;
    aa_buf_init(&b);
    for (p = data; (q = strstr(p, tmp)) != NULL; p = q + tl) {
        aa_buf_add(&b, p, (size_t)(q - p));
        aa_buf_puts(&b, orig);
    }
    aa_buf_puts(&b, p);
    if (!b.failed)
        aa_write_file_atomic(dep, b.data ? b.data : "", b.len, &err);
    aa_buf_free(&b);
    free(data);
}

typedef struct srcfile {
    int argi;      /* index in args */
    char *tmpdir;  /* NULL when not instrumented */
    char *tmppath;
} srcfile;

int cmd_cc(int argc, char **argv)
{
    char **args, *out = NULL, *depfile = NULL;
    int n, compile_only = 0, link = 1, mpi, md = 0, rc, nsrc = 0, quiet;
    srcfile *src;
    const char *env;
    unsigned modes = 0;
    aa_instr_filter *filter = NULL;
    aa_instr_plan *plan = NULL;
    aa_err err;

    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(cmd_cc_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    args = argv + 1;
    n = argc - 1;
    env = getenv("AUTOANALYZER_DISABLE");
    if (env && *env && strcmp(env, "0"))
        return pass_through(n, args);
    quiet = (env = getenv("AUTOANALYZER_QUIET")) && *env && strcmp(env, "0");
    mpi = is_mpi_compiler(args[0]);
    src = calloc((size_t)n, sizeof *src);
    if (!src)
        return EXIT_ENV;
    for (int i = 1; i < n; i++) {
        const char *a = args[i];
        if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "--version") ||
            !strcmp(a, "-v") || !strncmp(a, "-dump", 5) || !strncmp(a, "-print-", 7) ||
            !strcmp(a, "--help") || !strcmp(a, "-###") || !strncmp(a, "--showme", 8) ||
            !strcmp(a, "-") || !strcmp(a, "-x")) {
            free(src);
            return pass_through(n, args);
        }
        if (!strcmp(a, "-c") || !strcmp(a, "-S")) {
            compile_only = 1;
            link = 0;
        } else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD")) {
            md = 1;
        } else if (!strcmp(a, "-lmpi") || !strncmp(a, "-lmpi_", 6)) {
            mpi = 1;
        } else if (takes_value(a) && i + 1 < n) {
            if (!strcmp(a, "-o"))
                out = args[i + 1];
            else if (!strcmp(a, "-MF"))
                depfile = args[i + 1];
            i++;
        } else if (a[0] != '-' && is_c_source(a)) {
            src[nsrc++].argi = i;
        }
    }
    (void)compile_only;
    if (nsrc == 0 && !link) {
        free(src);
        return pass_through(n, args);
    }
    /* options for the instrumenter */
    if ((env = getenv("AUTOANALYZER_MODE")) && *env &&
        aa_instrument_parse_modes(env, &modes, &err)) {
        fprintf(stderr, "autoanalyzer cc: AUTOANALYZER_MODE: %s\n", err.msg);
        free(src);
        return EXIT_USAGE;
    }
    if ((env = getenv("AUTOANALYZER_FILTER")) && *env) {
        filter = aa_instr_filter_new();
        if (!filter || aa_instr_filter_load(filter, env, &err)) {
            fprintf(stderr, "autoanalyzer cc: AUTOANALYZER_FILTER: %s\n", err.msg);
            aa_instr_filter_free(filter);
            free(src);
            return EXIT_INPUT;
        }
    }
    if (((env = getenv("AUTOANALYZER_PLAN")) && *env) ||
        ((env = getenv("AUTOANALYZER_REFINE")) && *env)) {
        const char *pf = getenv("AUTOANALYZER_PLAN"), *rf = getenv("AUTOANALYZER_REFINE");
        plan = aa_instr_plan_new();
        if (!plan || (pf && *pf && aa_instr_plan_load(plan, pf, &err)) ||
            (rf && *rf && aa_instr_plan_load_refine(plan, rf, &err))) {
            fprintf(stderr, "autoanalyzer cc: %s\n", plan ? err.msg : "out of memory");
            aa_instr_filter_free(filter);
            aa_instr_plan_free(plan);
            free(src);
            return EXIT_INPUT;
        }
    }
    /* instrument each C source into a private temporary directory */
    {
        aa_buf mpiflags;
        char **pargv = calloc((size_t)n + 512, sizeof *pargv);
        int pargc = 0;
        char *mf = NULL;
        aa_buf_init(&mpiflags);
        if (mpi)
            mpi_compile_flags(args[0], &mpiflags);
        if (!pargv) {
            free(src);
            return EXIT_ENV;
        }
        for (int i = 1; i < n; i++) {
            int is_src = 0;
            for (int k = 0; k < nsrc; k++)
                if (src[k].argi == i)
                    is_src = 1;
            if (!is_src)
                pargv[pargc++] = args[i];
        }
        if (mpiflags.len) {
            char *save = NULL;
            mf = aa_buf_detach(&mpiflags);
            for (char *t = strtok_r(mf, " \t\n", &save); t && pargc < n + 500;
                 t = strtok_r(NULL, " \t\n", &save))
                pargv[pargc++] = t;
        }
        for (int k = 0; k < nsrc; k++) {
            const char *path = args[src[k].argi];
            char tmpl[PATH_MAX];
            const char *tmpd = getenv("TMPDIR");
            aa_instrument_opts o;
            aa_instrument_result res;
            char *pc = aa_strdup(path);
            memset(&o, 0, sizeof o);
            o.modes = modes;
            o.filter = filter;
            o.plan = plan;
            o.diag = quiet ? NULL : stderr;
            snprintf(tmpl, sizeof tmpl, "%s/aa-cc.XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
            if (!pc || !mkdtemp(tmpl)) {
                fprintf(stderr, "autoanalyzer cc: warning: %s: cannot create a temporary "
                                "directory; compiled uninstrumented\n", path);
                free(pc);
                continue;
            }
            if (aa_instrument_file(path, pargc, (const char *const *)pargv, &o, &res, &err)) {
                if (strstr(err.msg, "already instrumented"))
                    ; /* pass through quietly */
                else
                    fprintf(stderr, "autoanalyzer cc: warning: %s; %s compiled uninstrumented\n",
                            err.msg, path);
                rmdir(tmpl);
                free(pc);
                continue;
            }
            {
                aa_buf tp, mp;
                const char *mapdir = getenv("AUTOANALYZER_MAPDIR");
                aa_buf_init(&tp);
                aa_buf_init(&mp);
                aa_buf_printf(&tp, "%s/%s", tmpl, basename(pc));
                if (mapdir && *mapdir) {
                    char *b2 = aa_strdup(path);
                    aa_buf_printf(&mp, "%s/%s.regions.xml", mapdir, b2 ? basename(b2) : "x.c");
                    free(b2);
                } else if (out && !link && nsrc == 1) {
                    aa_buf_printf(&mp, "%s.regions.xml", out);
                } else {
                    /* compile and link in one step: next to the program, not
                     * in the working directory */
                    char *b2 = aa_strdup(path), *bn = b2 ? basename(b2) : "x.c";
                    char *od = out ? aa_strdup(out) : NULL;
                    if (od && strchr(od, '/'))
                        aa_buf_printf(&mp, "%s/", dirname(od));
                    aa_buf_printf(&mp, "%.*s.o.regions.xml", (int)strlen(bn) - 2, bn);
                    free(od);
                    free(b2);
                }
                if (aa_write_file_atomic(tp.data, res.source.data, res.source.len, &err) ||
                    aa_regionmap_write(res.map, mp.data, &err)) {
                    fprintf(stderr, "autoanalyzer cc: warning: %s; %s compiled uninstrumented\n",
                            err.msg, path);
                    unlink(tp.data);
                    rmdir(tmpl);
                    aa_buf_free(&tp);
                } else {
                    src[k].tmpdir = aa_strdup(tmpl);
                    src[k].tmppath = aa_buf_detach(&tp);
                }
                aa_buf_free(&mp);
            }
            aa_instrument_result_free(&res);
            free(pc);
        }
        free(pargv);
        free(mf);
    }
    /* the real command */
    {
        char **cmd = calloc((size_t)n + 4 * (size_t)nsrc + 16, sizeof *cmd);
        char *libdir = link ? runtime_libdir() : NULL;
        char *lflag = NULL, *rflag = NULL;
        int c = 0, last_input = 0, inserted = 0;
        if (!cmd) {
            rc = EXIT_ENV;
            goto cleanup;
        }
        for (int i = 1; i < n; i++) {
            if (takes_value(args[i]) && i + 1 < n) {
                i++;
                continue;
            }
            if (args[i][0] != '-')
                last_input = i;
        }
        cmd[c++] = args[0];
        for (int k = 0; k < nsrc; k++)
            if (src[k].tmppath) {
                char *d = aa_strdup(args[src[k].argi]);
                cmd[c++] = "-iquote";
                cmd[c++] = d ? aa_strdup(dirname(d)) : ".";
                free(d);
            }
        if (link && !libdir)
            fprintf(stderr, "autoanalyzer cc: warning: runtime library directory not found "
                            "(set AUTOANALYZER_LIBDIR)\n");
        if (libdir) {
            aa_buf b;
            aa_buf_init(&b);
            aa_buf_printf(&b, "-L%s", libdir);
            lflag = aa_buf_detach(&b);
            aa_buf_init(&b);
            aa_buf_printf(&b, "-Wl,-rpath,%s", libdir);
            rflag = aa_buf_detach(&b);
        }
        for (int i = 1; i < n; i++) {
            int replaced = 0;
            if (libdir && !inserted && i > last_input && !strncmp(args[i], "-l", 2)) {
                cmd[c++] = lflag;
                cmd[c++] = rflag;
                if (mpi)
                    cmd[c++] = "-lautoanalyzer-mpi";
                cmd[c++] = "-lautoanalyzer";
                inserted = 1;
            }
            for (int k = 0; k < nsrc; k++)
                if (src[k].argi == i && src[k].tmppath) {
                    cmd[c++] = src[k].tmppath;
                    replaced = 1;
                }
            if (!replaced)
                cmd[c++] = args[i];
        }
        if (libdir && !inserted) {
            cmd[c++] = lflag;
            cmd[c++] = rflag;
            if (mpi)
                cmd[c++] = "-lautoanalyzer-mpi";
            cmd[c++] = "-lautoanalyzer";
        }
        cmd[c] = NULL;
        rc = run(cmd);
        /* dependency files name the temporary source: point them back */
        if (md || depfile) {
            for (int k = 0; k < nsrc; k++) {
                aa_buf d;
                if (!src[k].tmppath)
                    continue;
                aa_buf_init(&d);
                if (depfile)
                    aa_buf_puts(&d, depfile);
                else if (out) {
                    const char *dot = strrchr(out, '.');
                    aa_buf_printf(&d, "%.*s.d", (int)(dot ? dot - out : (long)strlen(out)), out);
                } else {
                    char *b2 = aa_strdup(args[src[k].argi]), *bn = b2 ? basename(b2) : "x.c";
                    aa_buf_printf(&d, "%.*s.d", (int)strlen(bn) - 2, bn);
                    free(b2);
                }
                fix_depfile(d.data, src[k].tmppath, args[src[k].argi]);
                aa_buf_free(&d);
            }
        }
        for (int k = 0; k < c; k++)
            if (k > 0 && cmd[k - 1] && !strcmp(cmd[k - 1], "-iquote") && cmd[k] &&
                strcmp(cmd[k], "."))
                free(cmd[k]);
        free(cmd);
        free(lflag);
        free(rflag);
        free(libdir);
    }
cleanup:
    for (int k = 0; k < nsrc; k++) {
        if (src[k].tmppath)
            unlink(src[k].tmppath);
        if (src[k].tmpdir)
            rmdir(src[k].tmpdir);
        free(src[k].tmppath);
        free(src[k].tmpdir);
    }
    free(src);
    aa_instr_filter_free(filter);
    aa_instr_plan_free(plan);
    return rc;
}
