/*
 * instrument/fortran.c -- the Fortran instrumenter (docs/instrument.md,
 * "Fortran").  Fortran is parsed by flang's own parser through the bridge
 * tool aa-fparse (instrument/fortran/aa_fparse.cpp), which prints program
 * units, DO loops, labels and the statements that leave regions with their
 * positions; .F/.F90 sources (and any source compiled with -cpp) go through
 * the compiler's preprocessor first (`COMPILER -E` with the user's -D/-U/-I
 * flags), as the build will.  This file reads that description strictly,
 * selects regions by mode and filter, the region plan (--refine, split,
 * eliminate, --filter-from) and the size rules (tiny leaf procedures, tiny
 * loops: C's rules on what the parser sees), checks that each can be wrapped
 * (its statements begin and end their lines, no jump leaves it in a way a
 * probe cannot follow), and inserts whole probe lines into the original
 * text: `call aa_runtime_enter_f(ID, 'name')` (`aa_runtime_enter_refined_f`
 * for a region refined in round 2) before a region and
 * `call aa_runtime_exit_f(ID, 'name')` after it and before every statement
 * that leaves it (RETURN, STOP, ERROR STOP, EXIT, CYCLE of an outer loop,
 * GOTO out; a one-line IF holding one becomes an IF block).  Inserted lines
 * respect fixed-form columns (7-72, continuation in column 6) and free-form
 * line length; a line marker (`# N "file"`) after each insertion keeps
 * every user line's number.
 */
#include "instrument/instr_private.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIXED_COLUMNS 72
#define FREE_COLUMNS 132
#define MARKER_LINE "! " "AUTOANALYZER-INSTRUMENTED (Fortran) -- generated, do not edit"

/* ---- the description ------------------------------------------------------------ */
typedef struct f_unit {
    int id, parent;
    char kind[16], name[128];
    int line, endline, execline, execcol, fall_line, fall_col;
    unsigned long long fall_label;
    int pure, entry;
    int sel;                 /* instrumented */
    uint32_t rid;
    const char *why;
} f_unit;

typedef struct f_loop {
    int id, unit, parent;
    int line, col, eline, ecol;
    unsigned long long label;
    char form[16], name[64];
    int directive;
    int sel;
    uint32_t rid;
    char rname[32];
    const char *why;
} f_loop;

typedef struct f_stmt {
    char kind[8];
    int unit, line, col, eline, ecol, ifline, ifcol;
    unsigned long long label;
    char args[256];
    int sel;     /* call: instrumented */
    uint32_t rid;
    char rname[80];
    const char *why;
} f_stmt;

typedef struct f_label {
    int unit;
    unsigned long long label;
    int line;
} f_label;

/* What the size rules read (E, A and T records). */
typedef struct f_exec {
    int unit, line;
    char kind;      /* s statement, c CALL, i I/O, f function reference or array element */
    char name[64];
} f_exec;

typedef struct f_array {
    int unit;
    char name[64];
} f_array;

typedef struct f_trip {
    int loop;
    long long lo, hi, step;
} f_trip;

/* A region left out: "FILE:LINE:COL: warning: autoanalyzer: WHAT not
 * instrumented: WHY" (both static strings). */
typedef struct f_warn {
    int line, col;
    const char *what, *why;
} f_warn;

typedef struct fctx {
    const aa_instrument_opts *o;
    unsigned modes;
    const char *display, *base;
    int fixed, cpp;
    char *text;
    size_t len;
    char **lines;   /* lines[1..nlines], NUL-terminated copies without '\n' */
    int nlines;
    int *cond;      /* preprocessor branch of each line (cpp sources) */
    f_unit *u;
    size_t nu;
    f_loop *l;
    size_t nl;
    f_stmt *s;
    size_t ns;
    f_label *lab;
    size_t nlab;
    f_exec *e;
    size_t ne;
    f_array *a;
    size_t na;
    f_trip *t;
    size_t nt;
    int *tiny;      /* per unit index: left out by the size rules */
    int nskipped;
    int oom;
    f_warn *w;      /* regions left out, said at the end (warn_flush) */
    size_t nw, capw;
} fctx;

int instr_is_fortran(const char *path)
{
    static const char *const sfx[] = {".f", ".for", ".ftn", ".F", ".FOR", ".FTN", ".fpp",
                                      ".FPP", ".f90", ".f95", ".f03", ".f08", ".F90", ".F95",
                                      ".F03", ".F08"};
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return 0;
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++)
        if (!strcmp(dot, sfx[i]))
            return 1;
    return 0;
}

static int fixed_form_name(const char *path)
{
    static const char *const sfx[] = {".f", ".for", ".ftn", ".F", ".FOR", ".FTN", ".fpp", ".FPP"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof sfx / sizeof *sfx; i++)
        if (!strcmp(dot, sfx[i]))
            return 1;
    return 0;
}

static int preprocessed_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (dot[1] == 'F' || !strcmp(dot, ".fpp"));
}

/* ---- running the bridge ----------------------------------------------------------- */
/* The bridge binary: $AUTOANALYZER_FPARSE, else beside the running program,
 * else in ../lib/autoanalyzer/ from it. */
static char *fparse_path(void)
{
    const char *env = getenv("AUTOANALYZER_FPARSE");
    char exe[PATH_MAX], buf[PATH_MAX + 64];
    ssize_t n;
    if (env && *env)
        return aa_strdup(env);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        char *slash;
        exe[n] = 0;
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, sizeof buf, "%s/aa-fparse", exe);
            if (access(buf, X_OK) == 0)
                return aa_strdup(buf);
            snprintf(buf, sizeof buf, "%s/../lib/autoanalyzer/aa-fparse", exe);
            if (access(buf, X_OK) == 0)
                return aa_strdup(buf);
        }
    }
    return NULL;
}

/* Runs argv with stdout to `out` and stderr to `errf`; the exit status, -1
 * when it could not run or was killed. */
static int run_to_files(char *const *argv, const char *out, const char *errf)
{
    pid_t pid = fork();
    int st;
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fi = open("/dev/null", O_RDONLY);
        if (fo < 0 || fe < 0 || fi < 0)
            _exit(127);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The user's flags that matter to preprocessing and parsing. */
static int keep_flag(const char *a, int *takes_next)
{
    *takes_next = 0;
    if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-U") || !strcmp(a, "-include")) ) {
        *takes_next = 1;
        return 1;
    }
    return !strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2) ||
           !strcmp(a, "-cpp") || !strcmp(a, "-nocpp") || !strcmp(a, "-fopenmp") ||
           !strncmp(a, "-std=", 5) || !strcmp(a, "-ffixed-form") || !strcmp(a, "-ffree-form");
}

static int has_flag(int argc, const char *const *argv, const char *f)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], f))
            return 1;
    return 0;
}

/* The first "error" line of flang's messages as file:line:col: what. */
static int parse_failure(const char *errtext, const char *display, aa_err *err)
{
    const char *p = errtext, *best = NULL;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!best && memmem(p, n, ": error: ", 9))
            best = p;
        p = e ? e + 1 : NULL;
    }
    if (best) {
        long line = 0, col = 0;
        const char *q = strstr(best, ": error: "), *k, *msg = q + 9, *e = strchr(msg, '\n');
        /* ...FILE:LINE:COL: error: */
        for (k = q; k > best && k[-1] != ':'; k--)
            ;
        col = strtol(k, NULL, 10);
        if (k > best) {
            const char *m = k - 1;
            while (m > best && m[-1] != ':')
                m--;
            line = strtol(m, NULL, 10);
        }
        return aa_err_set(err, AA_EINPUT, "%s:%ld:%ld: %.*s", display, line > 0 ? line : 1,
                          col > 0 ? col : 1, e ? (int)(e - msg) : (int)strlen(msg), msg);
    }
    return aa_err_set(err, AA_EINPUT, "%s:1: the file does not parse as Fortran", display);
}

/* ---- reading the description ------------------------------------------------------- */
#define GROW(X, arr, n, cap)                                                                \
    do {                                                                                    \
        if ((n) == (cap)) {                                                                 \
            size_t nc_ = (cap) ? 2 * (cap) : 16;                                            \
            void *p_ = realloc((arr), nc_ * sizeof *(arr));                                 \
            if (!p_) {                                                                      \
                (X)->oom = 1;                                                               \
                break;                                                                      \
            }                                                                               \
            (arr) = p_;                                                                     \
            (cap) = nc_;                                                                    \
        }                                                                                   \
    } while (0)

static int read_description(fctx *X, char *d, aa_err *err)
{
    size_t cu = 0, cl = 0, cs = 0, cb = 0, ce = 0, ca = 0, ct = 0;
    int lineno = 0;
    char *save = NULL, *ln;
    for (ln = strtok_r(d, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        int ok = 0, n = 0;
        lineno++;
        if (lineno == 1) {
            char form[8];
            ok = sscanf(ln, "AAFPARSE 1 %7s%n", form, &n) == 1 && !ln[n];
            if (ok)
                X->fixed = !strcmp(form, "fixed");
        } else if (ln[0] == 'U' && ln[1] == ' ') {
            f_unit u;
            char flags[64];
            memset(&u, 0, sizeof u);
            GROW(X, X->u, X->nu, cu);
            ok = !X->oom &&
                 sscanf(ln, "U %d %d %15s %127s %d %d %d %d %d %d %llu %63s%n", &u.id, &u.parent,
                        u.kind, u.name, &u.line, &u.endline, &u.execline, &u.execcol,
                        &u.fall_line, &u.fall_col, &u.fall_label, flags, &n) == 12 &&
                 !ln[n];
            if (ok) {
                u.pure = strstr(flags, "pure") != NULL;
                u.entry = strstr(flags, "entry") != NULL;
                X->u[X->nu++] = u;
            }
        } else if (ln[0] == 'D' && ln[1] == ' ') {
            f_loop l;
            char flags[32];
            memset(&l, 0, sizeof l);
            GROW(X, X->l, X->nl, cl);
            ok = !X->oom &&
                 sscanf(ln, "D %d %d %d %d %d %d %d %llu %15s %63s %31s%n", &l.id, &l.unit,
                        &l.parent, &l.line, &l.col, &l.eline, &l.ecol, &l.label, l.form, l.name,
                        flags, &n) == 11 &&
                 !ln[n];
            if (ok) {
                l.directive = !strcmp(flags, "directive");
                X->l[X->nl++] = l;
            }
        } else if (ln[0] == 'S' && ln[1] == ' ') {
            f_stmt s;
            memset(&s, 0, sizeof s);
            GROW(X, X->s, X->ns, cs);
            ok = !X->oom &&
                 sscanf(ln, "S %7s %d %d %d %d %d %d %d %llu %n", s.kind, &s.unit, &s.line,
                        &s.col, &s.eline, &s.ecol, &s.ifline, &s.ifcol, &s.label, &n) == 9;
            if (ok) {
                snprintf(s.args, sizeof s.args, "%s", ln + n);
                X->s[X->ns++] = s;
            }
        } else if (ln[0] == 'L' && ln[1] == ' ') {
            f_label b;
            GROW(X, X->lab, X->nlab, cb);
            ok = !X->oom && sscanf(ln, "L %d %llu %d%n", &b.unit, &b.label, &b.line, &n) == 3 &&
                 !ln[n];
            if (ok)
                X->lab[X->nlab++] = b;
        } else if (ln[0] == 'E' && ln[1] == ' ') {
            f_exec e;
            GROW(X, X->e, X->ne, ce);
            ok = !X->oom &&
                 sscanf(ln, "E %d %d %c %63s%n", &e.unit, &e.line, &e.kind, e.name, &n) == 4 &&
                 !ln[n] && strchr("scif", e.kind);
            if (ok)
                X->e[X->ne++] = e;
        } else if (ln[0] == 'A' && ln[1] == ' ') {
            f_array a;
            GROW(X, X->a, X->na, ca);
            ok = !X->oom && sscanf(ln, "A %d %63s%n", &a.unit, a.name, &n) == 2 && !ln[n];
            if (ok)
                X->a[X->na++] = a;
        } else if (ln[0] == 'T' && ln[1] == ' ') {
            f_trip t;
            GROW(X, X->t, X->nt, ct);
            ok = !X->oom &&
                 sscanf(ln, "T %d %lld %lld %lld%n", &t.loop, &t.lo, &t.hi, &t.step, &n) == 4 &&
                 !ln[n];
            if (ok)
                X->t[X->nt++] = t;
        }
        if (X->oom)
            return aa_err_set(err, AA_EENV, "out of memory");
        if (!ok)
            return aa_err_set(err, AA_EENV,
                              "%s: the Fortran parser bridge wrote a malformed line %d: %.60s",
                              X->display, lineno, ln);
    }
    if (lineno == 0)
        return aa_err_set(err, AA_EENV, "%s: the Fortran parser bridge wrote nothing", X->display);
    return AA_OK;
}

/* Preprocesses (when the compiler would) and runs the bridge; fills X. */
static int describe(fctx *X, const char *path, int argc, const char *const *argv, aa_err *err)
{
    char pre[PATH_MAX + 16], out[PATH_MAX + 16], errf[PATH_MAX + 16];
    const char *tdir = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    char *tool = fparse_path(), **av = NULL, *desc = NULL, *etext = NULL;
    const char *input = path;
    size_t dlen, elen;
    int ac = 0, rc, openmp = has_flag(argc, argv, "-fopenmp");
    if (!tool)
        return aa_err_set(err, AA_EENV,
                          "the Fortran parser bridge aa-fparse was not found (set AUTOANALYZER_FPARSE)");
    snprintf(tmpl, sizeof tmpl, "%s/aa-fortran.XXXXXX", tdir && *tdir ? tdir : "/tmp");
    if (!mkdtemp(tmpl)) {
        free(tool);
        return aa_err_set(err, AA_EENV, "cannot create a temporary directory (%s)", strerror(errno));
    }
    X->cpp = (preprocessed_name(path) || has_flag(argc, argv, "-cpp")) &&
             !has_flag(argc, argv, "-nocpp");
    if (has_flag(argc, argv, "-ffixed-form"))
        X->fixed = 1;
    else if (has_flag(argc, argv, "-ffree-form"))
        X->fixed = 0;
    else
        X->fixed = fixed_form_name(path);
    snprintf(out, sizeof out, "%s/desc", tmpl);
    snprintf(errf, sizeof errf, "%s/err", tmpl);
    av = calloc((size_t)argc * 2 + 16, sizeof *av);
    if (!av) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    if (X->cpp) {
        /* the compiler's own preprocessor, as the build runs it */
        const char *cc = X->o->compiler && *X->o->compiler && strcmp(X->o->compiler, "none")
                             ? X->o->compiler
                             : "gfortran";
        snprintf(pre, sizeof pre, "%s/pre.%s", tmpl, X->fixed ? "f" : "f90");
        av[ac++] = (char *)cc;
        av[ac++] = "-E";
        av[ac++] = "-cpp";
        av[ac++] = X->fixed ? "-ffixed-form" : "-ffree-form";
        for (int i = 0; i < argc; i++) {
            int next;
            if (keep_flag(argv[i], &next) && strcmp(argv[i], "-ffixed-form") &&
                strcmp(argv[i], "-ffree-form") && strcmp(argv[i], "-nocpp") &&
                strcmp(argv[i], "-cpp")) {
                av[ac++] = (char *)argv[i];
                if (next && i + 1 < argc)
                    av[ac++] = (char *)argv[++i];
            }
        }
        av[ac++] = (char *)path;
        av[ac] = NULL;
        rc = run_to_files(av, pre, errf);
        if (rc != 0) {
            if (aa_read_file(errf, &etext, &elen, err) == AA_OK && strstr(etext, "error"))
                rc = aa_err_set(err, AA_EINPUT, "%s:1: the preprocessor failed: %.200s",
                                X->display, etext);
            else
                rc = aa_err_set(err, AA_EENV, "%s: cannot run the preprocessor %s", X->display, cc);
            goto out;
        }
        input = pre;
        ac = 0;
    }
    av[ac++] = tool;
    av[ac++] = X->fixed ? "--fixed" : "--free";
    if (openmp)
        av[ac++] = "--openmp";
    av[ac++] = "--name";
    av[ac++] = (char *)path;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-I") && i + 1 < argc) {
            av[ac++] = "-I";
            av[ac++] = (char *)argv[++i];
        } else if (!strncmp(argv[i], "-I", 2)) {
            av[ac++] = (char *)argv[i];
        }
    }
    {
        /* INCLUDE lines are searched in the source's directory */
        char *pc = aa_strdup(path);
        static char srcdir[PATH_MAX];
        snprintf(srcdir, sizeof srcdir, "-I%s", pc ? dirname(pc) : ".");
        free(pc);
        av[ac++] = srcdir;
    }
    av[ac++] = (char *)input;
    av[ac] = NULL;
    rc = run_to_files(av, out, errf);
    if (rc == 1) {
        if (aa_read_file(errf, &etext, &elen, err) == AA_OK)
            rc = parse_failure(etext, X->display, err);
        else
            rc = aa_err_set(err, AA_EINPUT, "%s:1: the file does not parse as Fortran", X->display);
        goto out;
    }
    if (rc != 0) {
        rc = aa_err_set(err, AA_EENV, "%s: the Fortran parser bridge %s failed (status %d)",
                        X->display, tool, rc);
        goto out;
    }
    if ((rc = aa_read_file(out, &desc, &dlen, err)))
        goto out;
    rc = read_description(X, desc, err);
out:
    if (X->cpp)
        unlink(pre);
    unlink(out);
    unlink(errf);
    rmdir(tmpl);
    free(desc);
    free(etext);
    free(av);
    free(tool);
    return rc;
}

/* ---- the source text ------------------------------------------------------------------- */
static int split_lines(fctx *X)
{
    size_t cap = 64;
    char *p = X->text, *end = X->text + X->len;
    X->lines = calloc(cap, sizeof *X->lines);
    if (!X->lines)
        return -1;
    while (p < end) {
        char *e = memchr(p, '\n', (size_t)(end - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
        if ((size_t)X->nlines + 2 >= cap) {
            char **v = realloc(X->lines, 2 * cap * sizeof *v);
            if (!v)
                return -1;
            X->lines = v;
            cap *= 2;
        }
        if (n && p[n - 1] == '\r')
            n--;
        X->lines[++X->nlines] = strndup(p, n);
        if (!X->lines[X->nlines])
            return -1;
        p = e ? e + 1 : end;
    }
    return 0;
}

/* Preprocessor branch of every line: a region must begin and end in the
 * same branch of every #if. */
static int cpp_branches(fctx *X)
{
    int stack[256], depth = 0, next = 1;
    X->cond = calloc((size_t)X->nlines + 2, sizeof *X->cond);
    if (!X->cond)
        return -1;
    stack[0] = 0;
    for (int i = 1; i <= X->nlines; i++) {
        const char *t = X->lines[i];
        while (*t == ' ' || *t == '\t')
            t++;
        if (X->cpp && *t == '#') {
            t++;
            while (*t == ' ' || *t == '\t')
                t++;
            if (!strncmp(t, "if", 2)) {
                if (depth < 255)
                    stack[++depth] = next++;
            } else if (!strncmp(t, "el", 2)) {
                stack[depth] = next++;
            } else if (!strncmp(t, "endif", 5)) {
                if (depth > 0)
                    depth--;
            }
        }
        X->cond[i] = stack[depth];
    }
    return 0;
}

static int line_len(fctx *X, int line)
{
    return line >= 1 && line <= X->nlines ? (int)strlen(X->lines[line]) : 0;
}

/* 1 when the statement at line:col is the first on its line (a label
 * before it is allowed). */
static int begins_line(fctx *X, int line, int col)
{
    const char *t;
    if (line < 1 || line > X->nlines || col < 1)
        return 0;
    t = X->lines[line];
    if (col - 1 > line_len(X, line))
        return 0;
    for (int i = 0; i < col - 1; i++) {
        char c = t[i];
        if (X->fixed) {
            if (c == '\t')
                continue;
            if (i < 5 && (c == ' ' || (c >= '0' && c <= '9')))
                continue;
            if (i == 5 && (c == ' ' || c == '0'))
                continue;
            if (i > 5 && c == ' ')
                continue;
            return 0;
        }
        if (c != ' ' && c != '\t' && !(c >= '0' && c <= '9'))
            return 0;
    }
    return 1;
}

/* 1 when nothing but blanks or a comment follows a statement ending at
 * line:col (col: one past its last character, as the bridge reports). */
static int ends_line(fctx *X, int line, int col)
{
    const char *t;
    int n, lim;
    if (line < 1 || line > X->nlines || col < 1)
        return 0;
    t = X->lines[line];
    n = line_len(X, line);
    lim = X->fixed && n > FIXED_COLUMNS ? FIXED_COLUMNS : n;
    for (int i = col - 1; i < lim; i++) {
        if (t[i] == '!')
            return 1;
        if (t[i] != ' ' && t[i] != '\t')
            return 0;
    }
    return 1;
}

/* A directive comment (!$omp, c$omp, !dir$, !gcc$, ...) on the line before. */
static int directive_before(fctx *X, int line)
{
    for (int k = line - 1; k >= 1; k--) {
        const char *t = X->lines[k];
        int i = 0;
        while (t[i] == ' ' || t[i] == '\t')
            i++;
        if (!t[i])
            continue;
        if (t[i] == '!' || (X->fixed && i == 0 && strchr("cC*", t[i]))) {
            for (int j = i + 1; j < i + 7 && t[j]; j++) {
                if (t[j] == '$') {
                    /* !$omp end parallel do closes a construct: no loop follows it */
                    while (t[j] && t[j] != ' ' && t[j] != '\t')
                        j++;
                    while (t[j] == ' ' || t[j] == '\t')
                        j++;
                    return strncasecmp(t + j, "end", 3) != 0;
                }
                if (!((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z')))
                    break;
            }
            return 0;
        }
        return 0;
    }
    return 0;
}

/* ---- regions ----------------------------------------------------------------------- */
static f_unit *unit_of(fctx *X, int id)
{
    for (size_t i = 0; i < X->nu; i++)
        if (X->u[i].id == id)
            return &X->u[i];
    return NULL;
}

static f_loop *loop_of(fctx *X, int id)
{
    for (size_t i = 0; i < X->nl; i++)
        if (X->l[i].id == id)
            return &X->l[i];
    return NULL;
}

static int loop_contains_line(const f_loop *l, int line)
{
    return line > l->line && line <= l->eline;
}

/* 1 when loop a is b or nested in b. */
static int loop_within(fctx *X, const f_loop *a, const f_loop *b)
{
    while (a) {
        if (a == b)
            return 1;
        a = a->parent ? loop_of(X, a->parent) : NULL;
    }
    return 0;
}

static void skip_loop(fctx *X, f_loop *l, const char *why)
{
    if (l->sel) {
        l->sel = 0;
        l->why = why;
        X->nskipped++;
    }
}

/* Records a region left out; warn_flush says them. */
static void warn_at(fctx *X, int line, int col, const char *what, const char *why)
{
    if (!X->o->diag || line <= 0)
        return;
    if (X->nw == X->capw) {
        size_t cap = X->capw ? 2 * X->capw : 32;
        f_warn *nw = realloc(X->w, cap * sizeof *nw);
        if (!nw) {
            X->oom = 1;
            return;
        }
        X->w = nw;
        X->capw = cap;
    }
    X->w[X->nw++] = (f_warn){line, col > 0 ? col : 1, what, why};
}

static int warn_loc_cmp(const void *a, const void *b)
{
    const f_warn *x = a, *y = b;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line)
                              : (x->col > y->col) - (x->col < y->col);
}

/* The regions left out in source order, each (what, why) once with how
 * many more are like it in the file, as for C (-v: every one). */
static void warn_flush(fctx *X)
{
    if (!X->nw)
        return;
    qsort(X->w, X->nw, sizeof *X->w, warn_loc_cmp);
    for (size_t i = 0; i < X->nw; i++) {
        const f_warn *m = &X->w[i];
        size_t more = 0, k;
        if (!m->what)
            continue;
        for (k = i + 1; k < X->nw; k++) {
            const f_warn *o = &X->w[k];
            if (!o->what || strcmp(o->what, m->what) || strcmp(o->why, m->why))
                continue;
            if (o->line == m->line && o->col == m->col)
                X->w[k].what = NULL; /* the same region said twice */
            else if (!X->o->verbose) {
                X->w[k].what = NULL; /* said with the first */
                more++;
            }
        }
        fprintf(X->o->diag, "%s:%d:%d: warning: autoanalyzer: %s not instrumented: %s", X->display,
                m->line, m->col, m->what, m->why);
        if (more)
            fprintf(X->o->diag, " (and %zu more like it in this file)", more);
        fputc('\n', X->o->diag);
    }
}

/* ---- the plan: --refine / a plan's split, eliminate, --filter-from ---------------------- */
static int split_names(fctx *X, uint32_t id, const char *name)
{
    const aa_instr_plan *pl = X->o->plan;
    for (size_t k = 0; pl && k < pl->nsplit; k++)
        if (instr_plan_names(pl->split[k], id, name))
            return 1;
    return 0;
}

/* A refined loop: named itself, or inside a named loop or procedure. */
static int refined_loop(fctx *X, const f_loop *l)
{
    const f_unit *u = unit_of(X, l->unit);
    for (const f_loop *q = l; q; q = q->parent ? loop_of(X, q->parent) : NULL)
        if (split_names(X, q->rid, q->rname))
            return 1;
    return u && split_names(X, u->rid, u->name);
}

/* A refined call site: named itself, or inside a named loop or procedure. */
static int refined_call(fctx *X, const f_stmt *s)
{
    const f_unit *u = unit_of(X, s->unit);
    if (split_names(X, s->rid, s->rname) || (u && split_names(X, u->rid, u->name)))
        return 1;
    for (size_t k = 0; k < X->nl; k++)
        if (X->l[k].unit == s->unit && loop_contains_line(&X->l[k], s->line) &&
            split_names(X, X->l[k].rid, X->l[k].rname))
            return 1;
    return 0;
}

/* 1 when a split names the unit or one of its regions (never filtered). */
static int refined_in_unit(fctx *X, const f_unit *u)
{
    if (split_names(X, u->rid, u->name))
        return 1;
    for (size_t k = 0; k < X->nl; k++)
        if (X->l[k].unit == u->id && split_names(X, X->l[k].rid, X->l[k].rname))
            return 1;
    for (size_t k = 0; k < X->ns; k++)
        if (X->s[k].unit == u->id && X->s[k].rname[0] && split_names(X, X->s[k].rid, X->s[k].rname))
            return 1;
    return 0;
}

static int plan_ref_found(fctx *X, const char *ref)
{
    for (size_t i = 0; i < X->nu; i++)
        if (instr_plan_names(ref, X->u[i].rid, X->u[i].name))
            return 1;
    for (size_t i = 0; i < X->nl; i++)
        if (instr_plan_names(ref, X->l[i].rid, X->l[i].rname))
            return 1;
    for (size_t i = 0; i < X->ns; i++)
        if (X->s[i].rname[0] && instr_plan_names(ref, X->s[i].rid, X->s[i].rname))
            return 1;
    return 0;
}

/* A plan's eliminate entries drop the regions they name; the profile filter
 * (--filter-from) drops every region of a procedure measured as tiny and
 * hot, unless a refinement names it or one of its regions. */
static void apply_plan(fctx *X)
{
    const aa_instr_plan *pl = X->o->plan;
    static const char hot[] = "tiny and hot in the measured profile (--filter-from)";
    if (!pl)
        return;
    for (size_t k = 0; k < pl->nelim; k++) {
        for (size_t i = 0; i < X->nu; i++)
            if (instr_plan_names(pl->elim[k], X->u[i].rid, X->u[i].name))
                X->u[i].sel = 0;
        for (size_t i = 0; i < X->nl; i++)
            if (instr_plan_names(pl->elim[k], X->l[i].rid, X->l[i].rname))
                X->l[i].sel = 0;
        for (size_t i = 0; i < X->ns; i++)
            if (X->s[i].rname[0] && instr_plan_names(pl->elim[k], X->s[i].rid, X->s[i].rname))
                X->s[i].sel = 0;
    }
    for (size_t i = 0; i < X->nu; i++) {
        f_unit *u = &X->u[i];
        int hit = 0;
        for (size_t k = 0; k < pl->npfilter && !hit; k++)
            hit = !strcmp(pl->pfilter[k], u->name);
        if (!hit || refined_in_unit(X, u))
            continue;
        if (u->sel) {
            u->sel = 0;
            u->why = hot;
            X->nskipped++;
        }
        for (size_t k = 0; k < X->nl; k++)
            if (X->l[k].unit == u->id)
                skip_loop(X, &X->l[k], hot);
        for (size_t k = 0; k < X->ns; k++)
            if (X->s[k].unit == u->id && X->s[k].sel) {
                X->s[k].sel = 0;
                X->s[k].why = hot;
                X->nskipped++;
            }
    }
    if (X->o->warn_unmatched && X->o->diag) {
        static const char fmt[] = "%s:%d: warning: %s '%s' matches no region of %s\n";
        for (size_t k = 0; k < pl->nelim; k++)
            if (!plan_ref_found(X, pl->elim[k]))
                fprintf(X->o->diag, fmt, pl->elim_at[k].file, pl->elim_at[k].line, "eliminate",
                        pl->elim[k], X->display);
        for (size_t k = 0; k < pl->nsplit; k++)
            if (!plan_ref_found(X, pl->split[k]))
                fprintf(X->o->diag, fmt, pl->split_at[k].file, pl->split_at[k].line, "split",
                        pl->split[k], X->display);
    }
}

/* ---- size rules (docs/instrument.md, "Small regions"; C's rules in Fortran terms) ------ */
/* Intrinsics that cost about an arithmetic operation: a reference to one is
 * no call (array intrinsics such as SUM or MATMUL are loops and stay calls). */
static int cheap_intrinsic(const char *n)
{
    static const char *const v[] = {
        "abs", "achar", "acos", "adjustl", "adjustr", "aimag", "aint", "allocated", "amax0",
        "amax1", "amin0", "amin1", "anint", "asin", "associated", "atan", "atan2", "btest",
        "cabs", "ccos", "ceiling", "cexp", "char", "clog", "cmplx", "conjg", "cos", "cosh",
        "csin", "csqrt", "dabs", "dacos", "dasin", "datan", "datan2", "dble", "dcmplx", "dconjg",
        "dcos", "dcosh", "ddim", "dexp", "dfloat", "dim", "dimag", "dint", "dlog", "dlog10",
        "dmax1", "dmin1", "dmod", "dnint", "dprod", "dreal", "dsign", "dsin", "dsinh", "dsqrt",
        "dtan", "dtanh", "epsilon", "exp", "exponent", "float", "floor", "fraction", "huge",
        "iabs", "iachar", "iand", "ibclr", "ibits", "ibset", "ichar", "idim", "idint", "idnint",
        "ieor", "ifix", "index", "int", "ior", "isign", "ishft", "ishftc", "kind", "lbound",
        "len", "len_trim", "lge", "lgt", "lle", "llt", "log", "log10", "logical", "max", "max0",
        "max1", "merge", "min", "min0", "min1", "mod", "modulo", "nint", "not", "present",
        "real", "scale", "sign", "sin", "sinh", "size", "sngl", "sqrt", "tan", "tanh", "tiny",
        "trim", "ubound"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!strcmp(n, v[i]))
            return 1;
    return 0;
}

/* 1 when `name` is an array or statement function of the unit or a host. */
static int local_array(fctx *X, int unit, const char *name)
{
    for (const f_unit *u = unit_of(X, unit); u; u = u->parent ? unit_of(X, u->parent) : NULL)
        for (size_t i = 0; i < X->na; i++)
            if (X->a[i].unit == u->id && !strcmp(X->a[i].name, name))
                return 1;
    return 0;
}

/* 1 when the procedure `name` of this file is left out by the size rules. */
static int tiny_unit_named(fctx *X, const char *name)
{
    for (size_t i = 0; i < X->nu; i++)
        if (X->tiny[i] && !strcmp(X->u[i].name, name))
            return 1;
    return 0;
}

/* A CALL, an I/O statement or a reference to a procedure that is neither
 * an array, a cheap intrinsic nor a tiny procedure of this file. */
static int costly(fctx *X, const f_exec *e)
{
    if (e->kind == 'i')
        return 1;
    if (e->kind == 'c')
        return !tiny_unit_named(X, e->name);
    if (e->kind == 'f')
        return !local_array(X, e->unit, e->name) && !cheap_intrinsic(e->name) &&
               !tiny_unit_named(X, e->name);
    return 0;
}

/* A statement that jumps or stops (GOTO, computed GOTO, STOP, ...). */
static int jumps_in(fctx *X, int unit, int from, int to)
{
    for (size_t i = 0; i < X->ns; i++) {
        const f_stmt *s = &X->s[i];
        if (s->unit == unit && s->line >= from && s->line <= to &&
            (!strcmp(s->kind, "goto") || !strcmp(s->kind, "branch") || !strcmp(s->kind, "stop")))
            return 1;
    }
    return 0;
}

/* The tiny-loop rule: integer-literal bounds, at most AA_TINY_MAX_TRIPS
 * iterations, a straight-line body (no loop, no costly call, no jump). */
static int tiny_loop(fctx *X, const f_loop *l)
{
    const f_trip *t = NULL;
    long long trips;
    for (size_t i = 0; i < X->nt && !t; i++)
        if (X->t[i].loop == l->id)
            t = &X->t[i];
    if (!t || !t->step || !l->line || !l->eline)
        return 0;
    trips = (t->hi - t->lo + t->step) / t->step;
    if (trips > AA_TINY_MAX_TRIPS)
        return 0;
    for (size_t i = 0; i < X->nl; i++)
        if (&X->l[i] != l && X->l[i].unit == l->unit && loop_contains_line(l, X->l[i].line))
            return 0;
    for (size_t i = 0; i < X->ne; i++)
        if (X->e[i].unit == l->unit && loop_contains_line(l, X->e[i].line) && costly(X, &X->e[i]))
            return 0;
    return !jumps_in(X, l->unit, l->line, l->eline);
}

/* The tiny-leaf rule: not the main program, at most AA_TINY_MAX_STATEMENTS
 * executable statements, no loop but tiny ones, no costly call, no jump. */
static int tiny_unit(fctx *X, const f_unit *u)
{
    int n = 0;
    if (!strcmp(u->kind, "program") || u->entry || !u->execline)
        return 0;
    for (size_t i = 0; i < X->ne; i++)
        if (X->e[i].unit == u->id && ((X->e[i].kind == 's' && ++n > AA_TINY_MAX_STATEMENTS) ||
                                      costly(X, &X->e[i])))
            return 0;
    for (size_t i = 0; i < X->nl; i++)
        if (X->l[i].unit == u->id && !tiny_loop(X, &X->l[i]))
            return 0;
    return !jumps_in(X, u->id, u->line, u->endline);
}

/* Small regions are left out (listed in the map with the reason) unless
 * the modes hold `tiny`, a filter names the procedure literally, or a
 * refinement names the region: the procedures first, to a fixed point (a
 * procedure calling only tiny ones of this file is tiny too), then their
 * loops and calls, then tiny loops elsewhere. */
static void size_rules(fctx *X)
{
    const aa_instr_filter *flt = X->o->filter;
    static const char in_tiny[] = "in a tiny leaf function";
    static const char loop_why[] = "tiny loop (constant trip count, straight-line body)";
    if (X->modes & AA_MODE_TINY)
        return;
    X->tiny = calloc(X->nu + 1, sizeof *X->tiny);
    if (!X->tiny) {
        X->oom = 1;
        return;
    }
    for (int pass = 0, changed = 1; pass < 6 && changed; pass++) {
        changed = 0;
        for (size_t i = 0; i < X->nu; i++)
            if (!X->tiny[i] && tiny_unit(X, &X->u[i]))
                X->tiny[i] = changed = 1;
    }
    for (size_t i = 0; i < X->nu; i++) {
        f_unit *u = &X->u[i];
        if (!X->tiny[i] || refined_in_unit(X, u) ||
            (flt && aa_instr_filter_names(flt, X->display, u->name))) {
            X->tiny[i] = 0;
            continue;
        }
        if (u->sel) {
            u->sel = 0;
            u->why = "tiny leaf function";
            X->nskipped++;
        }
        for (size_t k = 0; k < X->nl; k++)
            if (X->l[k].unit == u->id)
                skip_loop(X, &X->l[k], in_tiny);
        for (size_t k = 0; k < X->ns; k++)
            if (X->s[k].unit == u->id && X->s[k].sel) {
                X->s[k].sel = 0;
                X->s[k].why = in_tiny;
                X->nskipped++;
            }
    }
    for (size_t k = 0; k < X->nl; k++) {
        f_loop *l = &X->l[k];
        if (l->sel && !split_names(X, l->rid, l->rname) && tiny_loop(X, l))
            skip_loop(X, l, loop_why);
    }
}

/* 1 when the text before (line, col) is only a directive sentinel
 * (`!$OMP `, `C$OMP `, `!$acc `, `!DIR$ `): a unit whose first executable
 * construct is a directive gets its enter line before the directive. */
static int directive_starts(fctx *X, int line, int col)
{
    const char *t;
    int i = 0;
    if (line < 1 || line > X->nlines || col < 2 || col - 1 > line_len(X, line))
        return 0;
    t = X->lines[line];
    while (i < col - 1 && (t[i] == ' ' || t[i] == '\t'))
        i++;
    if (i >= col - 1 || !(t[i] == '!' || (X->fixed && i == 0 && strchr("cC*", t[i]))))
        return 0;
    i++;
    if (t[i] != '$' && !(t[i] && strchr("dD", t[i]))) /* !$omp, !dir$ */
        return 0;
    while (i < col - 1 && t[i] != ' ' && t[i] != '\t')
        i++;
    while (i < col - 1 && (t[i] == ' ' || t[i] == '\t'))
        i++;
    return i == col - 1 && strchr(t, '$') && strchr(t, '$') < t + i;
}

static void select_units(fctx *X)
{
    const aa_instr_filter *flt = X->o->filter;
    for (size_t i = 0; i < X->nu; i++) {
        f_unit *u = &X->u[i];
        const char *why = NULL;
        if (!(X->modes & AA_MODE_FUNCTIONS) && !split_names(X, u->rid, u->name))
            continue;
        if (flt && !aa_instr_filter_accepts(flt, X->display, u->name))
            continue;
        if (u->pure)
            why = "PURE or ELEMENTAL procedure (it may not call the probes)";
        else if (u->entry)
            why = "it has ENTRY statements (an entry would bypass the region's start)";
        else if (!u->execline)
            why = "no executable statements";
        else if ((!begins_line(X, u->execline, u->execcol) &&
                  !directive_starts(X, u->execline, u->execcol)) || !u->fall_line ||
                 !begins_line(X, u->fall_line, u->fall_col))
            why = "its first executable statement or its END does not begin a line";
        else if (X->cond && X->cond[u->execline] != X->cond[u->fall_line])
            why = "the region crosses a preprocessor conditional";
        if (why) {
            u->why = why;
            X->nskipped++;
            warn_at(X, u->line, 1, "procedure", why);
            continue;
        }
        u->sel = 1;
    }
}

static void select_loops(fctx *X)
{
    const aa_instr_filter *flt = X->o->filter;
    for (size_t i = 0; i < X->nl; i++) {
        f_loop *l = &X->l[i], *p = l->parent ? loop_of(X, l->parent) : NULL;
        f_unit *u = unit_of(X, l->unit);
        const char *why = NULL;
        if (!(X->modes & (p ? AA_MODE_INNER_LOOPS : (AA_MODE_OUTER_LOOPS | AA_MODE_INNER_LOOPS))) &&
            !refined_loop(X, l))
            continue;
        if (!u || (flt && !aa_instr_filter_accepts(flt, X->display, u->name)))
            continue;
        if (u->pure)
            why = "in a PURE or ELEMENTAL procedure";
        else if (l->directive || directive_before(X, l->line))
            why = "loop under a directive (OpenMP, !DIR$, !GCC$)";
        for (f_loop *q = p; q && !why; q = q->parent ? loop_of(X, q->parent) : NULL)
            if (!strcmp(q->form, "concurrent"))
                why = "inside DO CONCURRENT (its body may not call the probes)";
        if (!why && p && l->label && p->label == l->label)
            why = "it shares its terminal statement with an enclosing DO (measured by the outermost one)";
        if (!why && (!l->line || !l->eline))
            why = "the loop is not in this file's text (INCLUDE or macro)";
        if (!why && (!begins_line(X, l->line, l->col) || !ends_line(X, l->eline, l->ecol)))
            why = "its DO or its end shares a line with another statement";
        if (!why && X->cond && X->cond[l->line] != X->cond[l->eline])
            why = "the region crosses a preprocessor conditional";
        if (why) {
            l->why = why;
            X->nskipped++;
            warn_at(X, l->line, l->col, "loop", why);
            continue;
        }
        l->sel = 1;
    }
}

static void select_calls(fctx *X)
{
    const aa_instr_filter *flt = X->o->filter;
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        f_unit *u = unit_of(X, s->unit);
        const char *why = NULL;
        if (strcmp(s->kind, "call") || (!(X->modes & AA_MODE_MPI) && !refined_call(X, s)))
            continue;
        if (!u || (flt && !aa_instr_filter_accepts(flt, X->display, u->name)))
            continue;
        if (u->pure)
            why = "in a PURE or ELEMENTAL procedure";
        else if (strstr(s->args, " alt"))
            why = "the call has alternate returns";
        else if (s->ifline)
            why = "the call is the action of a one-line IF statement";
        else if (!s->line || !begins_line(X, s->line, s->col) || !ends_line(X, s->eline, s->ecol))
            why = "the call shares a line with another statement";
        if (why) {
            s->why = why;
            X->nskipped++;
            warn_at(X, s->line, s->col, "call", why);
            continue;
        }
        s->sel = 1;
    }
}

static int label_line(fctx *X, int unit, unsigned long long label)
{
    for (size_t i = 0; i < X->nlab; i++)
        if (X->lab[i].unit == unit && X->lab[i].label == label)
            return X->lab[i].line;
    return 0;
}

/* Loops left by a branch statement with several possible targets (or an
 * unknown one) cannot be closed on only some paths: they are left out. */
static void branch_rules(fctx *X)
{
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        char *save = NULL, *tok, args[256];
        if (strcmp(s->kind, "branch"))
            continue;
        snprintf(args, sizeof args, "%s", s->args);
        for (tok = strtok_r(args, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
            int tl = 0;
            if (strcmp(tok, "*"))
                tl = label_line(X, s->unit, strtoull(tok, NULL, 10));
            for (size_t k = 0; k < X->nl; k++) {
                f_loop *l = &X->l[k];
                if (l->sel && l->unit == s->unit && loop_contains_line(l, s->line) &&
                    (!tl || !loop_contains_line(l, tl))) {
                    skip_loop(X, l, "a computed or assigned GOTO, arithmetic IF, I/O ERR=/END=/EOR= "
                                    "or alternate return may leave it");
                    warn_at(X, l->line, l->col, "loop", l->why);
                }
            }
        }
    }
}

/* ---- ids, names and the map ------------------------------------------------------------ */
static void loop_path(fctx *X, const f_loop *l, char *out, size_t n)
{
    /* ordinal path among the unit's loops: "loop 2.1" */
    int ord = 1;
    char tail[128] = "";
    const f_loop *p = l->parent ? loop_of(X, l->parent) : NULL;
    for (size_t i = 0; i < X->nl; i++) {
        const f_loop *o = &X->l[i];
        if (o != l && o->unit == l->unit && o->parent == l->parent &&
            (o->line < l->line || (o->line == l->line && o->col < l->col)))
            ord++;
    }
    if (p) {
        loop_path(X, p, tail, sizeof tail);
        snprintf(out, n, "%s.%d", tail, ord);
    } else {
        snprintf(out, n, "loop %d", ord);
    }
}

/* Region names: loop@LINE, MPI_Send@LINE (the C spelling of the routine). */
static void name_regions(fctx *X)
{
    for (size_t i = 0; i < X->nl; i++)
        snprintf(X->l[i].rname, sizeof X->l[i].rname, "loop@%d", X->l[i].line);
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        char name[64];
        if (strcmp(s->kind, "call"))
            continue;
        sscanf(s->args, "%63s", name);
        {
            size_t pre = name[0] == 'p' ? 5 : 4; /* "pmpi_" or "mpi_" */
            for (size_t c = 0; name[c]; c++)
                if ((c < pre || c == pre) && name[c] >= 'a' && name[c] <= 'z')
                    name[c] = (char)(name[c] - 'a' + 'A');
        }
        snprintf(s->rname, sizeof s->rname, "%s@%d", name, s->line);
    }
}

/* Unique ids: re-hash with a salt on a clash (or 0), in source order. */
typedef struct idset {
    uint32_t *v;
    size_t n, cap;
} idset;

static uint32_t unique_id(fctx *X, idset *ids, const char *fn, const char *kind, const char *path)
{
    uint32_t id = aa_instrument_region_hash(X->base, fn, kind, path);
    char salted[300];
    for (int salt = 1;; salt++) {
        int clash = id == 0 || id == 0x80000000u;
        for (size_t i = 0; i < ids->n && !clash; i++)
            clash = ids->v[i] == id;
        if (!clash)
            break;
        snprintf(salted, sizeof salted, "%s#%d", path, salt);
        id = aa_instrument_region_hash(X->base, fn, kind, salted);
    }
    GROW(X, ids->v, ids->n, ids->cap);
    if (!X->oom)
        ids->v[ids->n++] = id;
    return id;
}

/* Ids of every region, selected or not (the plan names regions by id):
 * the C hash of (file, procedure, kind, ordinal path), units first, then
 * loops, then call sites ("call MPI_Send#k" per unit). */
static void number_regions(fctx *X)
{
    idset ids = {0};
    char path[160];
    for (size_t i = 0; i < X->nu; i++)
        X->u[i].rid = unique_id(X, &ids, X->u[i].name, "function", "");
    for (size_t i = 0; i < X->nl; i++) {
        f_loop *l = &X->l[i];
        f_unit *u = unit_of(X, l->unit);
        loop_path(X, l, path, sizeof path);
        l->rid = unique_id(X, &ids, u ? u->name : "", "loop", path);
    }
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        f_unit *u = unit_of(X, s->unit);
        int k = 1;
        char routine[sizeof s->rname];
        if (strcmp(s->kind, "call") || !s->rname[0])
            continue;
        snprintf(routine, sizeof routine, "%s", s->rname);
        *strchr(routine, '@') = 0;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(X->s[j].kind, "call") && X->s[j].unit == s->unit &&
                !strncmp(X->s[j].rname, routine, strlen(routine)) &&
                X->s[j].rname[strlen(routine)] == '@')
                k++;
        snprintf(path, sizeof path, "call %s#%d", routine, k);
        s->rid = unique_id(X, &ids, u ? u->name : "", "call", path);
    }
    free(ids.v);
}

static int assign_ids(fctx *X, aa_regionmap *map)
{
    for (size_t i = 0; i < X->nu; i++) {
        f_unit *u = &X->u[i];
        aa_region r;
        memset(&r, 0, sizeof r);
        r.id = u->rid;
        r.kind = AA_KIND_FUNCTION;
        r.name = u->name;
        r.function = u->name;
        r.file = (char *)X->display;
        r.line = u->line;
        r.col = 1;
        r.end_line = u->endline;
        if (u->sel ? aa_regionmap_add_region(map, &r)
                   : u->why && aa_regionmap_add_skipped(map, &r, u->why))
            X->oom = 1;
    }
    for (size_t i = 0; i < X->nl; i++) {
        f_loop *l = &X->l[i];
        f_unit *u = unit_of(X, l->unit);
        aa_region r;
        memset(&r, 0, sizeof r);
        r.id = l->rid;
        r.kind = AA_KIND_LOOP;
        r.name = l->rname;
        r.function = u ? u->name : "";
        r.file = (char *)X->display;
        r.line = l->line;
        r.col = l->col;
        r.end_line = l->eline;
        r.end_col = l->ecol;
        for (const f_loop *p = l->parent ? loop_of(X, l->parent) : NULL; p;
             p = p->parent ? loop_of(X, p->parent) : NULL)
            if (p->sel) {
                r.parent = p->rid;
                break;
            }
        if (!r.parent && u && u->sel)
            r.parent = u->rid;
        if (l->sel ? aa_regionmap_add_region(map, &r)
                   : l->why && aa_regionmap_add_skipped(map, &r, l->why))
            X->oom = 1;
    }
    {
        /* call sites: "call MPI_Send#k" per unit */
        for (size_t i = 0; i < X->ns; i++) {
            f_stmt *s = &X->s[i];
            f_unit *u = unit_of(X, s->unit);
            aa_region r;
            if (strcmp(s->kind, "call") || !s->rname[0] || (!s->sel && !s->why))
                continue;
            memset(&r, 0, sizeof r);
            r.id = s->rid;
            r.kind = AA_KIND_CALL;
            r.name = s->rname;
            r.function = u ? u->name : "";
            r.file = (char *)X->display;
            r.line = s->line;
            r.col = s->col;
            r.end_line = s->eline;
            r.end_col = s->ecol;
            {
                const f_loop *best = NULL;
                for (size_t k2 = 0; k2 < X->nl; k2++) {
                    const f_loop *l = &X->l[k2];
                    if (l->sel && l->unit == s->unit && loop_contains_line(l, s->line) &&
                        (!best || loop_within(X, l, best)))
                        best = l;
                }
                r.parent = best ? best->rid : (u && u->sel ? u->rid : 0);
            }
            if (s->sel ? aa_regionmap_add_region(map, &r)
                       : s->why && aa_regionmap_add_skipped(map, &r, s->why))
                X->oom = 1;
        }
    }
    return X->oom ? -1 : 0;
}

/* ---- insertions ------------------------------------------------------------------------- */
typedef struct ins {
    int gap;          /* inserted before original line `gap` */
    int order;        /* 0 after-insertions (deeper first), 1 enters, 2 exits */
    int depth;
    int seq;
    int move_label;   /* takes the label of line `gap` */
    aa_buf text;      /* whole lines, without the label */
    int callcount;
} ins;

typedef struct plan {
    ins *v;
    size_t n, cap;
    int *blank_label; /* lines whose label moved */
    /* IF statements split into blocks: line of the action -> index */
    struct split {
        int ifline, ifcol, line, col, eline, ecol;
        aa_buf exits;
    } *sp;
    size_t nsp, capsp;
} plan;

static void probe_line(fctx *X, aa_buf *b, const char *indent, const char *what, uint32_t id,
                       const char *name)
{
    char num[32];
    int32_t sid = (int32_t)id;
    if (id == 0x80000000u)
        snprintf(num, sizeof num, "(-2147483647-1)");
    else
        snprintf(num, sizeof num, "%d", (int)sid);
    if (X->fixed) {
        size_t head = 6 + strlen("call aa_runtime_") + strlen(what) + strlen("_f(") + strlen(num) + 1;
        if (head + strlen(name) + 4 <= FIXED_COLUMNS)
            aa_buf_printf(b, "      call aa_runtime_%s_f(%s,'%s')\n", what, num, name);
        else
            aa_buf_printf(b, "      call aa_runtime_%s_f(%s,\n     &'%s')\n", what, num, name);
    } else {
        aa_buf_printf(b, "%scall aa_runtime_%s_f(%s, '%s')\n", indent, what, num, name);
    }
}

/* Leading blanks of a free-form line (digits of a label become blanks). */
static void indent_of(fctx *X, int line, int col, char *out, size_t n)
{
    size_t k = 0;
    const char *t = line >= 1 && line <= X->nlines ? X->lines[line] : "";
    for (int i = 0; i < col - 1 && t[i] && k + 1 < n; i++)
        out[k++] = t[i] == '\t' ? '\t' : ' ';
    out[k] = 0;
}

static ins *add_ins(fctx *X, plan *P, int gap, int order, int depth, int move_label)
{
    ins *i;
    GROW(X, P->v, P->n, P->cap);
    if (X->oom)
        return NULL;
    i = &P->v[P->n];
    memset(i, 0, sizeof *i);
    i->gap = gap;
    i->order = order;
    i->depth = depth;
    i->seq = (int)P->n;
    i->move_label = move_label;
    aa_buf_init(&i->text);
    P->n++;
    return i;
}

static int loop_depth(fctx *X, const f_loop *l)
{
    int d = 1;
    while (l->parent && (l = loop_of(X, l->parent)))
        d++;
    return d;
}

/* The regions a statement leaves, innermost first, as exit lines. */
static int exits_for(fctx *X, const f_stmt *s, aa_buf *b, const char *indent)
{
    const f_loop *inner = NULL;
    f_unit *u = unit_of(X, s->unit);
    int n = 0, all = !strcmp(s->kind, "return") || !strcmp(s->kind, "stop");
    int tl = 0;
    const f_loop *target = NULL;
    int cline = 0;
    if (!strcmp(s->kind, "goto"))
        tl = label_line(X, s->unit, strtoull(s->args, NULL, 10));
    if (!strcmp(s->kind, "exit") || !strcmp(s->kind, "cycle")) {
        if (s->args[0] == 'c')
            cline = atoi(s->args + 1);
        else if (s->args[0] != '?')
            target = loop_of(X, atoi(s->args));
    }
    /* innermost enclosing loop */
    for (size_t k = 0; k < X->nl; k++) {
        const f_loop *l = &X->l[k];
        if (l->unit == s->unit && loop_contains_line(l, s->line) && (!inner || loop_within(X, l, inner)))
            inner = l;
    }
    for (const f_loop *l = inner; l; l = l->parent ? loop_of(X, l->parent) : NULL) {
        int leave = 0;
        if (all)
            leave = 1;
        else if (!strcmp(s->kind, "goto"))
            leave = !tl || !loop_contains_line(l, tl);
        else if (!strcmp(s->kind, "exit"))
            /* EXIT goes to just after the target DO's end, where its own exit
             * line is: only the loops inside it are closed here */
            leave = target ? loop_within(X, l, target) && l != target : cline ? l->line > cline : 0;
        else if (!strcmp(s->kind, "cycle"))
            leave = target ? loop_within(X, l, target) && l != target : 0;
        if (leave && l->sel) {
            probe_line(X, b, indent, "exit", l->rid, l->rname);
            n++;
        }
    }
    if (all && u && u->sel) {
        probe_line(X, b, indent, "exit", u->rid, u->name);
        n++;
    }
    return n;
}

static int build_plan(fctx *X, plan *P)
{
    char ind[256];
    P->blank_label = calloc((size_t)X->nlines + 2, sizeof *P->blank_label);
    if (!P->blank_label)
        return -1;
    for (size_t i = 0; i < X->nu; i++) {
        f_unit *u = &X->u[i];
        ins *a;
        if (!u->sel)
            continue;
        indent_of(X, u->execline, u->execcol, ind, sizeof ind);
        if ((a = add_ins(X, P, u->execline, 1, 0, 0)))
            probe_line(X, &a->text, ind, split_names(X, u->rid, u->name) ? "enter_refined" : "enter",
                       u->rid, u->name);
        indent_of(X, u->fall_line, u->fall_col, ind, sizeof ind);
        if ((a = add_ins(X, P, u->fall_line, 2, 0, u->fall_label != 0)))
            probe_line(X, &a->text, ind, "exit", u->rid, u->name);
    }
    for (size_t i = 0; i < X->nl; i++) {
        f_loop *l = &X->l[i];
        ins *a;
        int d = loop_depth(X, l);
        if (!l->sel)
            continue;
        indent_of(X, l->line, l->col, ind, sizeof ind);
        if ((a = add_ins(X, P, l->line, 1, d, 1)))
            probe_line(X, &a->text, ind, refined_loop(X, l) ? "enter_refined" : "enter", l->rid,
                       l->rname);
        if ((a = add_ins(X, P, l->eline + 1, 0, -d, 0)))
            probe_line(X, &a->text, ind, "exit", l->rid, l->rname);
    }
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        ins *a;
        if (!strcmp(s->kind, "call")) {
            if (!s->sel)
                continue;
            indent_of(X, s->line, s->col, ind, sizeof ind);
            if ((a = add_ins(X, P, s->line, 1, 1000, 1)))
                probe_line(X, &a->text, ind, refined_call(X, s) ? "enter_refined" : "enter",
                           s->rid, s->rname);
            if ((a = add_ins(X, P, s->eline + 1, 0, -1000, 0)))
                probe_line(X, &a->text, ind, "exit", s->rid, s->rname);
            continue;
        }
        if (!strcmp(s->kind, "branch"))
            continue;
        if (!s->ifline) {
            aa_buf b;
            aa_buf_init(&b);
            indent_of(X, s->line, s->col, ind, sizeof ind);
            if (exits_for(X, s, &b, ind) && (a = add_ins(X, P, s->line, 2, 0, s->label != 0))) {
                aa_buf_add(&a->text, b.data, b.len);
            }
            aa_buf_free(&b);
        } else {
            struct split *sp;
            aa_buf b;
            aa_buf_init(&b);
            indent_of(X, s->ifline, s->ifcol, ind, sizeof ind);
            strncat(ind, "  ", sizeof ind - strlen(ind) - 1);
            if (!exits_for(X, s, &b, ind)) {
                aa_buf_free(&b);
                continue;
            }
            GROW(X, P->sp, P->nsp, P->capsp);
            if (X->oom) {
                aa_buf_free(&b);
                return -1;
            }
            sp = &P->sp[P->nsp++];
            sp->ifline = s->ifline;
            sp->ifcol = s->ifcol;
            sp->line = s->line;
            sp->col = s->col;
            sp->eline = s->eline;
            sp->ecol = s->ecol;
            sp->exits = b;
        }
    }
    return X->oom ? -1 : 0;
}

/* Checks the statements the plan edits; a region whose exits cannot be
 * placed is left out (returns 1 when something changed). */
static int check_exits(fctx *X)
{
    int changed = 0;
    for (size_t i = 0; i < X->ns; i++) {
        f_stmt *s = &X->s[i];
        const char *why = NULL;
        aa_buf b;
        if (!strcmp(s->kind, "call") || !strcmp(s->kind, "branch"))
            continue;
        aa_buf_init(&b);
        if (!exits_for(X, s, &b, "")) {
            aa_buf_free(&b);
            continue;
        }
        aa_buf_free(&b);
        if (!s->line)
            why = "a statement leaving it is not in this file's text";
        else if (!s->ifline && !begins_line(X, s->line, s->col))
            why = "a statement leaving it shares its line with another statement";
        else if (s->ifline && (!begins_line(X, s->ifline, s->ifcol) || s->line != s->eline ||
                               !ends_line(X, s->eline, s->ecol)))
            why = "a one-line IF leaving it cannot be turned into an IF block";
        else if (s->ifline && X->fixed && s->ecol - s->col + 1 > FIXED_COLUMNS - 8)
            why = "a one-line IF leaving it cannot be turned into an IF block";
        else if (!strcmp(s->kind, "exit") || !strcmp(s->kind, "cycle")) {
            if (s->args[0] == '?')
                why = "the target of an EXIT or CYCLE is not known";
        }
        if (!why)
            continue;
        for (size_t k = 0; k < X->nl; k++) {
            f_loop *l = &X->l[k];
            if (l->sel && l->unit == s->unit && loop_contains_line(l, s->line)) {
                skip_loop(X, l, why);
                warn_at(X, l->line, l->col, "loop", why);
                changed = 1;
            }
        }
        if (!strcmp(s->kind, "return") || !strcmp(s->kind, "stop")) {
            f_unit *u = unit_of(X, s->unit);
            if (u && u->sel) {
                u->sel = 0;
                u->why = why;
                X->nskipped++;
                warn_at(X, u->line, 1, "procedure", why);
                changed = 1;
            }
        }
    }
    return changed;
}

static int ins_cmp(const void *a, const void *b)
{
    const ins *x = a, *y = b;
    if (x->gap != y->gap)
        return x->gap < y->gap ? -1 : 1;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    if (x->order == 0 && x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1; /* deeper (more negative) first */
    if (x->order == 1 && x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1; /* outer first */
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Label text of a line's statement (digits before col), blanked in place
 * when `blank`. */
static void take_label(fctx *X, int line, char *out, size_t n, int blank)
{
    char *t = X->lines[line];
    size_t k = 0;
    int lim = X->fixed ? 5 : (int)strlen(t);
    for (int i = 0; i < lim && t[i]; i++) {
        if (t[i] >= '0' && t[i] <= '9') {
            if (k + 1 < n)
                out[k++] = t[i];
            if (blank)
                t[i] = ' ';
        } else if (t[i] != ' ' && t[i] != '\t') {
            break;
        } else if (k) {
            break;
        }
    }
    out[k] = 0;
}

static void put_label(fctx *X, aa_buf *b, const char *label, const char *lines)
{
    /* the label goes on the first inserted line */
    if (X->fixed) {
        aa_buf_printf(b, "%5s", label);
        aa_buf_puts(b, lines + 5);
    } else {
        size_t lead = strspn(lines, " \t");
        aa_buf_printf(b, "%.*s%s ", (int)lead, lines, label);
        aa_buf_puts(b, lines + lead);
    }
}

static void emit_marker(fctx *X, aa_buf *out, int line)
{
    aa_buf_printf(out, "# %d \"%s\"\n", line, X->display);
}

/* An IF statement holding a statement that leaves regions, as an IF block. */
static void emit_split(fctx *X, aa_buf *out, const struct split *sp)
{
    const char *t = X->lines[sp->line];
    int c = sp->col - 1;
    int pre = c;
    char ind[256];
    while (pre > 0 && (t[pre - 1] == ' ' || t[pre - 1] == '\t'))
        pre--;
    if (X->fixed && pre + 5 > FIXED_COLUMNS)
        aa_buf_printf(out, "%.*s\n     & then\n", pre, t);
    else if (!X->fixed && pre + 5 > FREE_COLUMNS)
        aa_buf_printf(out, "%.*s &\n then\n", pre, t);
    else
        aa_buf_printf(out, "%.*s then\n", pre, t);
    aa_buf_add(out, sp->exits.data, sp->exits.len);
    indent_of(X, sp->ifline, sp->ifcol, ind, sizeof ind);
    if (X->fixed)
        aa_buf_printf(out, "      %.*s\n      end if\n", sp->ecol - 1 - c, t + c);
    else
        aa_buf_printf(out, "%s  %.*s\n%send if%s\n", ind, sp->ecol - 1 - c, t + c, ind,
                      t + sp->ecol - 1); /* a trailing comment stays */
}

static int emit(fctx *X, plan *P, aa_buf *out)
{
    size_t k = 0;
    qsort(P->v, P->n, sizeof *P->v, ins_cmp);
    aa_buf_puts(out, MARKER_LINE "\n");
    emit_marker(X, out, 1);
    for (int line = 1; line <= X->nlines + 1; line++) {
        int inserted = 0, label_done = 0;
        char label[16] = "";
        for (; k < P->n && P->v[k].gap == line; k++) {
            ins *a = &P->v[k];
            if (a->move_label && !label_done && line <= X->nlines) {
                take_label(X, line, label, sizeof label, 1);
                label_done = 1;
                if (label[0]) {
                    char *txt = aa_buf_detach(&a->text);
                    aa_buf_init(&a->text);
                    put_label(X, out, label, txt ? txt : "");
                    free(txt);
                    inserted = 1;
                    continue;
                }
            }
            aa_buf_add(out, a->text.data, a->text.len);
            inserted = 1;
        }
        if (line > X->nlines)
            break;
        if (inserted)
            emit_marker(X, out, line);
        {
            const struct split *sp = NULL;
            for (size_t j = 0; j < P->nsp; j++)
                if (P->sp[j].line == line)
                    sp = &P->sp[j];
            if (sp) {
                emit_split(X, out, sp);
                emit_marker(X, out, line + 1);
                continue;
            }
        }
        aa_buf_puts(out, X->lines[line]);
        aa_buf_putc(out, '\n');
    }
    return out->failed ? -1 : 0;
}

static void free_plan(plan *P)
{
    for (size_t i = 0; i < P->n; i++)
        aa_buf_free(&P->v[i].text);
    for (size_t i = 0; i < P->nsp; i++)
        aa_buf_free(&P->sp[i].exits);
    free(P->v);
    free(P->sp);
    free(P->blank_label);
}

static void free_ctx(fctx *X)
{
    for (int i = 1; i <= X->nlines; i++)
        free(X->lines[i]);
    free(X->lines);
    free(X->cond);
    free(X->u);
    free(X->l);
    free(X->s);
    free(X->lab);
    free(X->e);
    free(X->a);
    free(X->t);
    free(X->tiny);
    free(X->text);
    free(X->w);
}

int instr_fortran_file(const char *path, int argc, const char *const *argv,
                       const aa_instrument_opts *o, aa_instrument_result *res, aa_err *err)
{
    static const aa_instrument_opts defaults = {0};
    fctx X;
    plan P;
    char *pathcopy = NULL;
    int rc;
    memset(&X, 0, sizeof X);
    memset(&P, 0, sizeof P);
    memset(res, 0, sizeof *res);
    aa_buf_init(&res->source);
    X.o = o ? o : &defaults;
    X.modes = X.o->modes ? X.o->modes : AA_MODE_DEFAULT;
    X.display = X.o->display_name ? X.o->display_name : path;
    {
        aa_err rerr;
        aa_err_clear(&rerr);
        if (aa_read_file(path, &X.text, &X.len, &rerr))
            return aa_err_set(err, AA_EINPUT, "%s:1: cannot read the source file (%s)", path,
                              rerr.msg);
    }
    if (X.len >= strlen(MARKER_LINE) && !memcmp(X.text, MARKER_LINE, strlen(MARKER_LINE))) {
        free(X.text);
        return aa_err_set(err, AA_EINPUT,
                          "%s:1: already instrumented by autoanalyzer (instrument the original "
                          "source instead)", X.display);
    }
    pathcopy = aa_strdup(X.display);
    X.base = pathcopy ? basename(pathcopy) : "";
    if ((rc = describe(&X, path, argc, argv, err)))
        goto out;
    if (split_lines(&X) || cpp_branches(&X)) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    if (!X.cpp) {
        free(X.cond);
        X.cond = NULL;
    }
    name_regions(&X);
    number_regions(&X);
    select_units(&X);
    select_loops(&X);
    select_calls(&X);
    apply_plan(&X);
    size_rules(&X);
    branch_rules(&X);
    res->map = aa_regionmap_new(X.display);
    if (!res->map) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    /* ids first (exit lines name them), then leave out regions whose exits
     * cannot be placed, until nothing changes */
    for (int round = 0; round < 8; round++) {
        aa_regionmap_free(res->map);
        res->map = aa_regionmap_new(X.display);
        if (!res->map || assign_ids(&X, res->map)) {
            rc = aa_err_set(err, AA_EENV, "out of memory");
            goto out;
        }
        if (!check_exits(&X))
            break;
    }
    if (build_plan(&X, &P) || emit(&X, &P, &res->source)) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    res->nskipped = X.nskipped;
    warn_flush(&X);
    rc = AA_OK;
out:
    free_plan(&P);
    free_ctx(&X);
    free(pathcopy);
    if (rc)
        aa_instrument_result_free(res);
    return rc;
}
