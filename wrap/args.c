/*
 * wrap/args.c -- the compiler command's argument model: response files
 * (`@file`, expanded recursively with gcc's quoting rules and written back
 * in the same syntax), the classification of every argument (options and
 * their values, joined or separate; sources by language, honouring `-x`;
 * objects, archives, shared libraries, -l), the mode (-c, -S, -E, queries)
 * and the recognition of configure-time checks (autoconf, CMake, meson).
 */
#include "wrap/wrap_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- growable argv -------------------------------------------------------- */
int wrap_argv_push(wrap_argv *v, const char *s)
{
    if (v->n + 2 > v->cap) {
        int cap = v->cap ? 2 * v->cap : 32;
        char **p = realloc(v->v, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        v->v = p;
        v->cap = cap;
    }
    if (!(v->v[v->n] = aa_strdup(s)))
        return -1;
    v->v[++v->n] = NULL;
    return 0;
}

void wrap_argv_free(wrap_argv *v)
{
    aa_wrap_free_argv(v->n, v->v);
    v->v = NULL;
    v->n = v->cap = 0;
}

void aa_wrap_free_argv(int argc, char **argv)
{
    if (!argv)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

/* ---- response files ------------------------------------------------------- */
/* Splits text like libiberty's buildargv. */
static int split_response(const char *s, wrap_argv *out)
{
    aa_buf cur;
    int sq = 0, dq = 0, bs = 0, have = 0, rc = 0;
    aa_buf_init(&cur);
    for (;; s++) {
        char c = *s;
        if (!c || (!sq && !dq && !bs && (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
                                         c == '\f' || c == '\v'))) {
            if (have) {
                aa_buf_putc(&cur, '\0');
                if (cur.failed || wrap_argv_push(out, cur.data)) {
                    rc = -1;
                    break;
                }
                aa_buf_reset(&cur);
                have = 0;
            }
            if (!c)
                break;
            continue;
        }
        have = 1;
        if (bs) {
            aa_buf_putc(&cur, c);
            bs = 0;
        } else if (c == '\\') {
            bs = 1;
        } else if (sq) {
            if (c == '\'')
                sq = 0;
            else
                aa_buf_putc(&cur, c);
        } else if (dq) {
            if (c == '"')
                dq = 0;
            else
                aa_buf_putc(&cur, c);
        } else if (c == '\'') {
            sq = 1;
        } else if (c == '"') {
            dq = 1;
        } else {
            aa_buf_putc(&cur, c);
        }
    }
    aa_buf_free(&cur);
    return rc;
}

/* libiberty gives up after this many expansions (a file including itself). */
#define MAX_EXPANSIONS 2000

static int expand_into(const char *arg, wrap_argv *out, int *budget, int *used)
{
    char *data = NULL;
    size_t len;
    aa_err e;
    wrap_argv sub = {0};
    int rc = 0;
    if (arg[0] != '@' || !arg[1] || *budget <= 0 || aa_read_file(arg + 1, &data, &len, &e))
        return wrap_argv_push(out, arg);
    (*budget)--;
    *used = 1;
    if (split_response(data, &sub))
        rc = -1;
    for (int i = 0; !rc && i < sub.n; i++)
        rc = expand_into(sub.v[i], out, budget, used);
    wrap_argv_free(&sub);
    free(data);
    return rc;
}

int aa_wrap_expand_response_files(int argc, char *const *argv, int *outc, char ***outv,
                                  int *used, aa_err *err)
{
    wrap_argv out = {0};
    int budget = MAX_EXPANSIONS, u = 0;
    for (int i = 0; i < argc; i++)
        if (expand_into(argv[i], &out, &budget, &u)) {
            wrap_argv_free(&out);
            return aa_err_set(err, AA_EENV, "out of memory");
        }
    if (!out.v && !(out.v = calloc(1, sizeof *out.v)))
        return aa_err_set(err, AA_EENV, "out of memory");
    *outc = out.n;
    *outv = out.v;
    if (used)
        *used = u;
    return AA_OK;
}

void aa_wrap_quote_response(aa_buf *b, int argc, char *const *argv)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!*s)
            aa_buf_puts(b, "''");
        for (; *s; s++) {
            if (strchr(" \t\n\r\f\v'\"\\", *s))
                aa_buf_putc(b, '\\');
            aa_buf_putc(b, *s);
        }
        aa_buf_putc(b, '\n');
    }
}

/* ---- options -------------------------------------------------------------- */
/* Options whose value is the next argument (when not joined). */
static const char *const separate_value[] = {
    "-o", "-MF", "-MT", "-MQ", "-x", "-I", "-D", "-U", "-L", "-l", "-include", "-imacros",
    "-isystem", "-iquote", "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore",
    "-imultilib", "-isysroot", "-Xlinker", "-Xpreprocessor", "-Xassembler", "-Xclang",
    "-T", "-u", "-z", "-e", "-aux-info", "-wrapper", "--param", "-B", "-target",
    "-dumpbase", "-dumpbase-ext", "-dumpdir", "-arch", "-F", "-framework", "-A",
    "--sysroot", "--include", "--output", "-Xcuda-ptxas", "-gcc-toolchain", "-J",
    NULL};

/* Options whose value may be joined (-Ifoo, -lm, -ofile). */
static const char *const joinable[] = {"-o", "-I", "-D", "-U", "-L", "-l", "-MF", "-MT", "-MQ",
                                       "-x", "-isystem", "-iquote", "-idirafter", "-B", "-T",
                                       "-u", "-z", "-J", NULL};

static int in_list(const char *a, const char *const *l)
{
    for (int i = 0; l[i]; i++)
        if (!strcmp(a, l[i]))
            return 1;
    return 0;
}

/* If a starts with a joinable option, its name's length, else 0.  Longest
 * match first ("-isystem" before "-I"). */
static size_t joined_prefix(const char *a)
{
    size_t best = 0;
    for (int i = 0; joinable[i]; i++) {
        size_t l = strlen(joinable[i]);
        if (l > best && !strncmp(a, joinable[i], l) && a[l])
            best = l;
    }
    return best;
}

static int has_suffix(const char *s, const char *suf)
{
    size_t l = strlen(s), k = strlen(suf);
    return l > k && !strcmp(s + l - k, suf);
}

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* Language of a file by its extension (gcc's table). */
static int lang_of_file(const char *f)
{
    static const struct {
        const char *ext;
        int lang;
    } t[] = {{".c", AA_LANG_C},
             {".i", AA_LANG_C_PREPROCESSED},
             {".h", AA_LANG_OTHER},
             {".cc", AA_LANG_CXX},
             {".cp", AA_LANG_CXX},
             {".cxx", AA_LANG_CXX},
             {".cpp", AA_LANG_CXX},
             {".CPP", AA_LANG_CXX},
             {".c++", AA_LANG_CXX},
             {".C", AA_LANG_CXX},
             {".ii", AA_LANG_CXX},
             {".hpp", AA_LANG_OTHER},
             {".f", AA_LANG_FORTRAN},
             {".for", AA_LANG_FORTRAN},
             {".ftn", AA_LANG_FORTRAN},
             {".F", AA_LANG_FORTRAN},
             {".FOR", AA_LANG_FORTRAN},
             {".fpp", AA_LANG_FORTRAN},
             {".FPP", AA_LANG_FORTRAN},
             {".FTN", AA_LANG_FORTRAN},
             {".f90", AA_LANG_FORTRAN},
             {".f95", AA_LANG_FORTRAN},
             {".f03", AA_LANG_FORTRAN},
             {".f08", AA_LANG_FORTRAN},
             {".F90", AA_LANG_FORTRAN},
             {".F95", AA_LANG_FORTRAN},
             {".F03", AA_LANG_FORTRAN},
             {".F08", AA_LANG_FORTRAN},
             {".s", AA_LANG_ASM},
             {".S", AA_LANG_ASM},
             {".sx", AA_LANG_ASM},
             {".m", AA_LANG_OTHER},
             {".mm", AA_LANG_OTHER},
             {".cu", AA_LANG_OTHER},
             {".go", AA_LANG_OTHER},
             {".d", AA_LANG_OTHER},
             {".ads", AA_LANG_OTHER},
             {".adb", AA_LANG_OTHER},
             {NULL, 0}};
    const char *dot = strrchr(base_name(f), '.');
    if (!dot)
        return AA_LANG_NONE;
    for (int i = 0; t[i].ext; i++)
        if (!strcmp(dot, t[i].ext))
            return t[i].lang;
    return AA_LANG_NONE;
}

/* Language named by -x. */
static int lang_of_x(const char *x)
{
    if (!strcmp(x, "none"))
        return -1; /* back to extensions */
    if (!strcmp(x, "c"))
        return AA_LANG_C;
    if (!strcmp(x, "cpp-output"))
        return AA_LANG_C_PREPROCESSED;
    if (!strncmp(x, "c++", 3) && strcmp(x, "c++-header"))
        return AA_LANG_CXX;
    if (!strncmp(x, "f77", 3) || !strncmp(x, "f95", 3))
        return AA_LANG_FORTRAN;
    if (!strncmp(x, "assembler", 9))
        return AA_LANG_ASM;
    return AA_LANG_OTHER;
}

/* Classifies a non-option argument. */
static void classify_input(aa_wrap_arg *a, int xlang)
{
    const char *b = base_name(a->text);
    int lang;
    if (!strcmp(a->text, "-")) {
        a->kind = AA_WARG_STDIN;
        return;
    }
    if (xlang > 0) { /* -x LANG applies to every following file */
        a->kind = AA_WARG_SOURCE;
        a->lang = xlang;
        return;
    }
    if (has_suffix(b, ".a")) {
        a->kind = AA_WARG_ARCHIVE;
        return;
    }
    if (has_suffix(b, ".so") || strstr(b, ".so.")) {
        a->kind = AA_WARG_SHLIB;
        return;
    }
    lang = lang_of_file(b);
    if (lang != AA_LANG_NONE) {
        a->kind = AA_WARG_SOURCE;
        a->lang = lang;
        return;
    }
    a->kind = AA_WARG_OBJECT; /* .o, .obj, linker scripts, anything else */
}

static int is_query(const char *a)
{
    return !strcmp(a, "--version") || !strcmp(a, "-dumpversion") ||
           !strcmp(a, "-dumpfullversion") || !strcmp(a, "-dumpmachine") ||
           !strcmp(a, "-dumpspecs") || !strncmp(a, "-print-", 7) || !strncmp(a, "--print-", 8) ||
           !strcmp(a, "--help") || !strncmp(a, "--help=", 7) || !strcmp(a, "-###") ||
           !strncmp(a, "--showme", 8) || !strcmp(a, "-show") || !strcmp(a, "-compile_info") ||
           !strcmp(a, "-link_info") || !strcmp(a, "--target-help");
}

/* The first argument naming an MPI library: -lmpi, a libmpi path, inside
 * -Wl,... lists, -l NAME and -Xlinker VALUE (index of the option). */
static int find_mpi_lib(const aa_wrap_cmd *c)
{
    for (int i = 0; i < c->argc; i++) {
        const aa_wrap_arg *a = &c->argv[i];
        if (a->kind == AA_WARG_SOURCE || a->kind == AA_WARG_VALUE)
            continue;
        if (i + 1 < c->argc && c->argv[i + 1].kind == AA_WARG_VALUE) {
            const char *v = c->argv[i + 1].text;
            int hit = 0;
            if (!strcmp(a->text, "-l")) {
                aa_buf b;
                aa_buf_init(&b);
                aa_buf_printf(&b, "-l%s", v);
                hit = b.data && aa_wrap_arg_is_mpi_lib(b.data);
                aa_buf_free(&b);
            } else if (!strcmp(a->text, "-Xlinker")) {
                hit = aa_wrap_arg_is_mpi_lib(v);
            }
            if (hit)
                return i;
            continue;
        }
        if (aa_wrap_arg_is_mpi_lib(a->text))
            return i;
    }
    return -1;
}

/* ---- parse ------------------------------------------------------------------ */
static void note_option(aa_wrap_cmd *c, const char *a, int *preprocess, int *mdep, int *query,
                        int *compile, int *assembly)
{
    if (!strcmp(a, "-c"))
        *compile = 1;
    else if (!strcmp(a, "-S"))
        *assembly = 1;
    else if (!strcmp(a, "-E"))
        *preprocess = 1;
    else if (!strcmp(a, "-M") || !strcmp(a, "-MM"))
        *mdep = 1;
    else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
        c->md = 1;
    else if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
        c->is_static = 1;
    else if (!strcmp(a, "-shared"))
        c->is_shared = 1;
    else if (!strcmp(a, "-r") || !strcmp(a, "-nostdlib") || !strcmp(a, "-nodefaultlibs") ||
             !strcmp(a, "-nostartfiles") || !strcmp(a, "-nolibc"))
        c->no_runtime_link = 1;
    else if (is_query(a))
        *query = 1;
}

int aa_wrap_parse(int argc, char *const *argv, aa_wrap_cmd *cmd, aa_err *err)
{
    int n = 0, used = 0, xlang = -1, preprocess = 0, mdep = 0, query = 0, compile = 0,
        assembly = 0, verbose = 0;
    char **ex = NULL;
    memset(cmd, 0, sizeof *cmd);
    cmd->mpi_lib_index = -1;
    if (argc < 1)
        return aa_err_set(err, AA_EUSAGE, "no compiler given");
    if (!(cmd->compiler = aa_strdup(argv[0])) ||
        !(cmd->orig_argv = calloc((size_t)argc + 1, sizeof *cmd->orig_argv))) {
        aa_wrap_cmd_free(cmd);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (cmd->orig_argc = 0; cmd->orig_argc < argc; cmd->orig_argc++)
        if (!(cmd->orig_argv[cmd->orig_argc] = aa_strdup(argv[cmd->orig_argc]))) {
            aa_wrap_cmd_free(cmd);
            return aa_err_set(err, AA_EENV, "out of memory");
        }
    if (aa_wrap_expand_response_files(argc - 1, argv + 1, &n, &ex, &used, err)) {
        aa_wrap_cmd_free(cmd);
        return err->code;
    }
    cmd->used_response_file = used;
    cmd->argc = n;
    cmd->argv = calloc((size_t)n + 1, sizeof *cmd->argv);
    if (!cmd->argv) {
        aa_wrap_free_argv(n, ex);
        aa_wrap_cmd_free(cmd);
        return aa_err_set(err, AA_EENV, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        cmd->argv[i].text = ex[i];
        ex[i] = NULL;
    }
    free(ex);
    for (int i = 0; i < n; i++) {
        aa_wrap_arg *a = &cmd->argv[i];
        const char *t = a->text;
        size_t jl;
        if (t[0] != '-' || !t[1]) {
            classify_input(a, xlang);
            cmd->ninputs++;
            if (a->kind == AA_WARG_SOURCE) {
                cmd->nsources++;
                if (a->lang == AA_LANG_C || a->lang == AA_LANG_CXX ||
                    a->lang == AA_LANG_FORTRAN)
                    cmd->nc++;
            }
        } else if (in_list(t, separate_value) && i + 1 < n) {
            const char *v = cmd->argv[i + 1].text;
            cmd->argv[i + 1].kind = AA_WARG_VALUE;
            if (!strcmp(t, "-o") || !strcmp(t, "--output"))
                cmd->output = v;
            else if (!strcmp(t, "-MF"))
                cmd->depfile = v;
            else if (!strcmp(t, "-x"))
                xlang = lang_of_x(v);
            i++;
        } else if ((jl = joined_prefix(t)) != 0) {
            const char *v = t + jl;
            if (!strncmp(t, "-l", 2) && jl == 2)
                a->kind = AA_WARG_LIBFLAG;
            else if (jl == 2 && !strncmp(t, "-o", 2))
                cmd->output = v;
            else if (!strncmp(t, "-MF", 3) && jl == 3)
                cmd->depfile = v;
            else if (jl == 2 && !strncmp(t, "-x", 2))
                xlang = lang_of_x(v);
        } else {
            if (!strcmp(t, "-v"))
                verbose = 1;
            note_option(cmd, t, &preprocess, &mdep, &query, &compile, &assembly);
        }
    }
    cmd->mpi_lib_index = find_mpi_lib(cmd);
    if (query || (verbose && cmd->ninputs == 0))
        cmd->mode = AA_WRAP_QUERY;
    else if (preprocess || (mdep && !cmd->md))
        cmd->mode = AA_WRAP_PREPROCESS;
    else if (assembly)
        cmd->mode = AA_WRAP_ASSEMBLY;
    else if (compile)
        cmd->mode = AA_WRAP_COMPILE;
    else
        cmd->mode = AA_WRAP_LINK;
    return AA_OK;
}

void aa_wrap_cmd_free(aa_wrap_cmd *cmd)
{
    if (cmd->argv)
        for (int i = 0; i < cmd->argc; i++)
            free(cmd->argv[i].text);
    free(cmd->argv);
    aa_wrap_free_argv(cmd->orig_argc, cmd->orig_argv);
    free(cmd->compiler);
    memset(cmd, 0, sizeof *cmd);
}

/* ---- configure-time checks ---------------------------------------------------- */
static int conftest_name(const char *path)
{
    const char *b = base_name(path);
    return !strncmp(b, "conftest", 8) || !strncmp(b, "cmTC_", 5) ||
           !strcmp(b, "CMakeCCompilerId.c") || !strcmp(b, "CMakeCXXCompilerId.cpp") ||
           !strcmp(b, "CMakeFortranCompilerId.F") || !strncmp(b, "CMakeCCompilerABI", 17) ||
           !strncmp(b, "CMakeCXXCompilerABI", 19) || !strncmp(b, "CMakeFortranCompilerABI", 23) ||
           !strcmp(b, "CheckFunctionExists.c") || !strcmp(b, "CheckSymbolExists.c") ||
           !strcmp(b, "CheckIncludeFile.c") || !strcmp(b, "CheckIncludeFiles.c") ||
           !strcmp(b, "CheckTypeSize.c") || !strcmp(b, "CheckVariableExists.c") ||
           !strncmp(b, "sanitycheck", 11) || !strcmp(b, "testCCompiler.c");
}

static int conftest_dir(const char *path)
{
    return strstr(path, "/CMakeFiles/CMakeTmp") || strstr(path, "/CMakeFiles/CMakeScratch") ||
           strstr(path, "/CMakeFiles/CMakeTmp") || strstr(path, "CMakeFiles/ShowIncludes") ||
           (strstr(path, "/CMakeFiles/") && strstr(path, "/CompilerId")) ||
           strstr(path, "meson-private/") || !strncmp(path, "CMakeFiles/CMakeTmp", 19) ||
           !strncmp(path, "CMakeFiles/CMakeScratch", 23);
}

int aa_wrap_is_configure_check(const aa_wrap_cmd *cmd, const char *cwd, const char **why)
{
    if (cwd && (conftest_dir(cwd) || (strstr(cwd, "/CMakeFiles/") && strstr(cwd, "/CompilerId")))) {
        *why = "CMake/meson check directory";
        return 1;
    }
    if (cmd->output && (conftest_name(cmd->output) || conftest_dir(cmd->output))) {
        *why = "configure check output";
        return 1;
    }
    for (int i = 0; i < cmd->argc; i++) {
        const aa_wrap_arg *a = &cmd->argv[i];
        if ((a->kind == AA_WARG_SOURCE || a->kind == AA_WARG_OBJECT) &&
            (conftest_name(a->text) || conftest_dir(a->text))) {
            *why = "configure check source";
            return 1;
        }
    }
    return 0;
}
