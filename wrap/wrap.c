/*
 * wrap/wrap.c -- one compiler command through the wrapper, as named phases:
 * decide (pass through queries, preprocessing and configure-time checks),
 * instrument each C and C++ source (wrap/instrument_child.c), assemble the real
 * command (instrumented sources in place of the originals, `-iquote` to
 * their directories, the runtime before the MPI library when linking),
 * run it (through a response file when the original used one), point
 * dependency files back at the real sources, and remove temporaries.
 */
#include "wrap/wrap_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- running a command ------------------------------------------------------- */
int aa_wrap_spawn(char *const *argv, int *status, aa_err *err)
{
    pid_t pid;
    int st, fd[2];
    char buf[512];
    ssize_t n;
    fflush(NULL);
    if (pipe2(fd, O_CLOEXEC))
        return aa_err_set(err, AA_EENV, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return aa_err_set(err, AA_EENV, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int e;
        close(fd[0]);
        /* a wrapper inside the compiler (OMPI_CC=autoanalyzer-gcc) passes through */
        setenv("AUTOANALYZER_WRAPPER_ACTIVE", "1", 1);
        execvp(argv[0], argv);
        e = errno;
        if (write(fd[1], strerror(e), strlen(strerror(e))) < 0)
            _exit(127);
        _exit(127);
    }
    close(fd[1]);
    while ((n = read(fd[0], buf, sizeof buf - 1)) < 0 && errno == EINTR)
        ;
    close(fd[0]);
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return aa_err_set(err, AA_EENV, "waitpid: %s", strerror(errno));
    if (n > 0) {
        buf[n] = '\0';
        return aa_err_set(err, AA_EENV, "cannot run %s: %s", argv[0], buf);
    }
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return AA_OK;
}

/* ---- region map in the object ------------------------------------------------- */
int wrap_embed_map(const aa_regionmap *m, aa_buf *out, aa_err *err)
{
    /* only ELF assemblers know .pushsection NAME,"",@progbits */
    aa_buf_puts(out, "\n#if defined(__ELF__)");
    if (aa_regionmap_embed_asm(m, out, err))
        return err->code;
    aa_buf_puts(out, "#endif\n");
    return out->failed ? aa_err_set(err, AA_EENV, "out of memory") : AA_OK;
}

/* ---- dependency files ------------------------------------------------------------ */
char *wrap_depfile_name(const aa_wrap_cmd *cmd, const char *source)
{
    aa_buf d;
    if (!cmd->md && !cmd->depfile)
        return NULL;
    aa_buf_init(&d);
    if (cmd->depfile) {
        aa_buf_puts(&d, cmd->depfile);
    } else if (cmd->output) {
        const char *slash = strrchr(cmd->output, '/'), *dot = strrchr(cmd->output, '.');
        size_t l = dot && (!slash || dot > slash) ? (size_t)(dot - cmd->output)
                                                   : strlen(cmd->output);
        aa_buf_printf(&d, "%.*s.d", (int)l, cmd->output);
    } else {
        const char *b = strrchr(source, '/'), *dot;
        b = b ? b + 1 : source;
        dot = strrchr(b, '.');
        aa_buf_printf(&d, "%.*s.d", (int)(dot ? (size_t)(dot - b) : strlen(b)), b);
    }
    return aa_buf_detach(&d);
}

void wrap_fix_depfile(const char *dep, const char *tmp, const char *orig)
{
    char *data;
    size_t len, tl = strlen(tmp);
    aa_buf b;
    aa_err err;
    const char *p, *q;
    struct stat st;
    char *real;
    /* never replace -MF /dev/null or a pipe by a regular file; a symbolic
     * link keeps pointing at its target, which is rewritten */
    if (stat(dep, &st) || !S_ISREG(st.st_mode) || !(real = realpath(dep, NULL)))
        return;
    if (aa_read_file(real, &data, &len, &err)) {
        free(real);
        return;
    }
    if (!strstr(data, tmp)) {
        free(data);
        free(real);
        return;
    }
    aa_buf_init(&b);
    for (p = data; (q = strstr(p, tmp)) != NULL; p = q + tl) {
        aa_buf_add(&b, p, (size_t)(q - p));
        aa_buf_puts(&b, orig);
    }
    aa_buf_puts(&b, p);
    if (!b.failed)
        aa_write_file_atomic(real, b.data ? b.data : "", b.len, &err);
    aa_buf_free(&b);
    free(data);
    free(real);
}

/* ---- phases ---------------------------------------------------------------------- */
static void warnf(const aa_wrap_opts *o, const char *fmt, const char *a, const char *b)
{
    if (o->diag) {
        fputs("autoanalyzer: warning: ", o->diag);
        fprintf(o->diag, fmt, a, b);
        fputc('\n', o->diag);
    }
}

/* Pass through untouched: queries, preprocessing, configure checks, -r. */
static int wants_pass_through(const aa_wrap_cmd *cmd, const aa_wrap_opts *o)
{
    char cwdbuf[PATH_MAX];
    const char *cwd = o->cwd, *why;
    if (cmd->mode == AA_WRAP_QUERY || cmd->mode == AA_WRAP_PREPROCESS)
        return 1;
    if (!cwd)
        cwd = getcwd(cwdbuf, sizeof cwdbuf) ? cwdbuf : NULL;
    if (aa_wrap_is_configure_check(cmd, cwd, &why))
        return 1;
    /* nothing to instrument and nothing to link */
    if (cmd->mode != AA_WRAP_LINK && cmd->nc == 0)
        return 1;
    return 0;
}

/* Every compile through the wrapper defines AUTOANALYZER, so the user
 * region macros of aa_user.h are on (a later -UAUTOANALYZER wins). */
#define AA_WRAP_DEFINE "-DAUTOANALYZER=1"

/* Flags the instrumenter parses with: everything but the sources, plus the
 * MPI compiler's own compile flags. */
static int parse_flags(const aa_wrap_cmd *cmd, wrap_argv *pf)
{
    int n = 0, rc = wrap_argv_push(pf, AA_WRAP_DEFINE);
    char **mf = NULL;
    aa_err err;
    for (int i = 0; i < cmd->argc && !rc; i++)
        if (cmd->argv[i].kind != AA_WARG_SOURCE)
            rc = wrap_argv_push(pf, cmd->argv[i].text);
    if (!rc && aa_wrap_is_mpi_compiler(cmd->compiler) &&
        aa_wrap_mpi_compile_flags(cmd->compiler, &n, &mf, &err) == AA_OK) {
        for (int i = 0; i < n && !rc; i++)
            rc = wrap_argv_push(pf, mf[i]);
        aa_wrap_free_argv(n, mf);
    }
    if (!rc && !pf->v && !(pf->v = calloc(1, sizeof *pf->v)))
        rc = -1;
    return rc;
}

static void instrument_sources(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, wrap_source *src,
                               int nsrc)
{
    wrap_argv pf = {0};
    if (parse_flags(cmd, &pf)) {
        for (int k = 0; k < nsrc; k++)
            warnf(o, "%s: out of memory%s; compiled uninstrumented", cmd->argv[src[k].argi].text, "");
        wrap_argv_free(&pf);
        return;
    }
    for (int k = 0; k < nsrc; k++)
        wrap_instrument_source(cmd, o, pf.n, pf.v, cmd->mode != AA_WRAP_ASSEMBLY, &src[k]);
    wrap_argv_free(&pf);
}

/* Where the runtime goes: before the MPI library, else before the first
 * -l after the last input file, else at the end. */
static int runtime_position(const aa_wrap_cmd *cmd)
{
    int last_input = -1;
    if (cmd->mpi_lib_index >= 0)
        return cmd->mpi_lib_index;
    for (int i = 0; i < cmd->argc; i++)
        if (cmd->argv[i].kind != AA_WARG_OPTION && cmd->argv[i].kind != AA_WARG_VALUE &&
            cmd->argv[i].kind != AA_WARG_LIBFLAG)
            last_input = i;
    for (int i = last_input + 1; i < cmd->argc; i++)
        if (cmd->argv[i].kind == AA_WARG_LIBFLAG ||
            (!strcmp(cmd->argv[i].text, "-l") && i + 1 < cmd->argc))
            return i;
    return cmd->argc;
}

static int links_runtime(const aa_wrap_cmd *cmd)
{
    return cmd->mode == AA_WRAP_LINK && !cmd->no_runtime_link && cmd->ninputs > 0 &&
           !(cmd->output && !strcmp(cmd->output, "/dev/null"));
}

/* The runtime's link arguments, or none (with a warning) when it cannot be
 * linked. */
static int runtime_args(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, wrap_argv *rt)
{
    char why[512];
    int mpi, n = 0;
    char **v = NULL;
    aa_err err;
    if (!links_runtime(cmd))
        return 0;
    if (!o->libdir) {
        warnf(o, "%s%s: runtime library directory not found (set AUTOANALYZER_LIBDIR); "
                 "linked without the runtime", cmd->output ? cmd->output : "a.out", "");
        return 0;
    }
    mpi = aa_wrap_link_is_mpi(cmd, why, sizeof why);
    if (aa_wrap_runtime_link_args(cmd, mpi, o->libdir, &n, &v, &err)) {
        warnf(o, "%s; %s linked without the runtime", err.msg, cmd->output ? cmd->output : "a.out");
        return 0;
    }
    rt->v = v;
    rt->n = rt->cap = n;
    return 0;
}

static int compiles_sources(const aa_wrap_cmd *cmd)
{
    for (int i = 0; i < cmd->argc; i++)
        if (cmd->argv[i].kind == AA_WARG_SOURCE)
            return 1;
    return 0;
}

static int is_fortran(const aa_wrap_cmd *cmd, const wrap_source *s)
{
    return cmd->argv[s->argi].lang == AA_LANG_FORTRAN;
}

/* -c of a Fortran source: its region map is compiled from the companion C
 * file and joined to the object (ld -r), which then carries the map like a
 * C object.  On any failure the object stays as compiled, without the map
 * (one warning). */
static void fortran_attach_maps(const aa_wrap_cmd *cmd, const aa_wrap_opts *o,
                                const wrap_source *src, int nsrc)
{
    for (int k = 0; k < nsrc; k++) {
        const char *path = cmd->argv[src[k].argi].text;
        char *m, *mo = NULL, *obj = NULL, *tmp = NULL;
        aa_buf b;
        aa_err err;
        int st = 1;
        if (!src[k].tmppath || !is_fortran(cmd, &src[k]) || cmd->mode != AA_WRAP_COMPILE)
            continue;
        m = wrap_fortran_map_name(src[k].tmppath);
        aa_buf_init(&b);
        if (cmd->output && cmd->nc == 1) {
            aa_buf_puts(&b, cmd->output);
        } else {
            const char *base = strrchr(path, '/'), *dot;
            base = base ? base + 1 : path;
            dot = strrchr(base, '.');
            aa_buf_printf(&b, "%.*s.o", (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
        }
        obj = aa_buf_detach(&b);
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s.o", m ? m : "");
        mo = aa_buf_detach(&b);
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s.aa-ld.o", obj ? obj : "");
        tmp = aa_buf_detach(&b);
        if (m && mo && obj && tmp) {
            char *cc[] = {"cc", "-c", m, "-o", mo, NULL};
            char *ld[] = {"ld", "-r", "-o", tmp, obj, mo, NULL};
            if (aa_wrap_spawn(cc, &st, &err) == AA_OK && st == 0 &&
                aa_wrap_spawn(ld, &st, &err) == AA_OK && st == 0)
                st = rename(tmp, obj) ? 1 : 0;
            else
                st = 1;
        }
        if (st) {
            if (tmp)
                unlink(tmp);
            warnf(o, "%s: the region map could not be joined to %s; the object has none", path,
                  obj ? obj : "the object");
        }
        if (mo)
            unlink(mo);
        free(m);
        free(mo);
        free(obj);
        free(tmp);
    }
}

/* Compile and link in one command: each Fortran source's map is compiled
 * to an object by the C compiler first (<companion>.o) and that object
 * goes on the command beside the source -- a Fortran driver may not
 * compile C (flang-new runs no C front end).  On failure the program is
 * built without that map (one warning). */
static void fortran_compile_maps(const aa_wrap_cmd *cmd, const aa_wrap_opts *o,
                                 const wrap_source *src, int nsrc)
{
    for (int k = 0; k < nsrc; k++) {
        char *m, *mo;
        aa_buf b;
        aa_err err;
        int st = 1;
        if (!src[k].tmppath || !is_fortran(cmd, &src[k]) || cmd->mode != AA_WRAP_LINK)
            continue;
        m = wrap_fortran_map_name(src[k].tmppath);
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s.o", m ? m : "");
        mo = aa_buf_detach(&b);
        if (m && mo && access(m, R_OK) == 0) {
            char *cc[] = {"cc", "-c", m, "-o", mo, NULL};
            if (aa_wrap_spawn(cc, &st, &err) != AA_OK)
                st = 1;
            if (st) {
                unlink(mo);
                warnf(o, "%s: its region map could not be compiled (%s); the program has none",
                      cmd->argv[src[k].argi].text, "cc -c");
            }
        }
        free(m);
        free(mo);
    }
}

static int assemble(const aa_wrap_cmd *cmd, const wrap_source *src, int nsrc,
                    const wrap_argv *rt, wrap_argv *out)
{
    int rc = wrap_argv_push(out, cmd->compiler), pos = runtime_position(cmd);
    if (!rc && compiles_sources(cmd))
        rc = wrap_argv_push(out, AA_WRAP_DEFINE);
    for (int k = 0; k < nsrc && !rc; k++)
        if (src[k].tmppath) {
            /* the original directory: #include "..." in C, INCLUDE in Fortran */
            char *d = aa_strdup(cmd->argv[src[k].argi].text);
            rc = !d || wrap_argv_push(out, is_fortran(cmd, &src[k]) ? "-I" : "-iquote") ||
                 wrap_argv_push(out, dirname(d));
            free(d);
        }
    for (int i = 0; i <= cmd->argc && !rc; i++) {
        const char *a = i < cmd->argc ? cmd->argv[i].text : NULL;
        if (i == pos)
            for (int r = 0; r < rt->n && !rc; r++)
                rc = wrap_argv_push(out, rt->v[r]);
        if (!a)
            break;
        for (int k = 0; k < nsrc; k++)
            if (src[k].argi == i && src[k].tmppath)
                a = src[k].tmppath;
        if (!rc)
            rc = wrap_argv_push(out, a);
        /* a Fortran source's region map, its object linked beside it */
        for (int k = 0; k < nsrc && !rc; k++)
            if (src[k].argi == i && src[k].tmppath && is_fortran(cmd, &src[k]) &&
                cmd->mode == AA_WRAP_LINK) {
                char *m = wrap_fortran_map_name(src[k].tmppath);
                aa_buf mo;
                aa_buf_init(&mo);
                aa_buf_printf(&mo, "%s.o", m ? m : "");
                rc = !m || mo.failed || (access(mo.data, R_OK) == 0 && wrap_argv_push(out, mo.data));
                aa_buf_free(&mo);
                free(m);
            }
    }
    return rc ? -1 : 0;
}

/* Runs the command, through a response file when the original used one. */
static int run_command(const aa_wrap_cmd *cmd, wrap_argv *c, int *status, aa_err *err)
{
    const char *tmpd = getenv("TMPDIR");
    char dir[PATH_MAX];
    aa_buf text, path, at;
    char *v[3];
    int rc;
    if (!cmd->used_response_file)
        return aa_wrap_spawn(c->v, status, err);
    snprintf(dir, sizeof dir, "%s/aa-rsp.XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
    if (!mkdtemp(dir))
        return aa_wrap_spawn(c->v, status, err);
    aa_buf_init(&text);
    aa_buf_init(&path);
    aa_buf_init(&at);
    aa_wrap_quote_response(&text, c->n - 1, c->v + 1);
    aa_buf_printf(&path, "%s/args.rsp", dir);
    aa_buf_printf(&at, "@%s", path.data ? path.data : "");
    if (text.failed || path.failed || at.failed ||
        aa_write_file_atomic(path.data, text.data ? text.data : "", text.len, err)) {
        rc = aa_wrap_spawn(c->v, status, err);
    } else {
        v[0] = c->v[0];
        v[1] = at.data;
        v[2] = NULL;
        rc = aa_wrap_spawn(v, status, err);
    }
    if (path.data)
        unlink(path.data);
    rmdir(dir);
    aa_buf_free(&text);
    aa_buf_free(&path);
    aa_buf_free(&at);
    return rc;
}

static void fix_depfiles(const aa_wrap_cmd *cmd, const wrap_source *src, int nsrc)
{
    for (int k = 0; k < nsrc; k++) {
        char *d;
        if (!src[k].tmppath)
            continue;
        d = wrap_depfile_name(cmd, cmd->argv[src[k].argi].text);
        if (d)
            wrap_fix_depfile(d, src[k].tmppath, cmd->argv[src[k].argi].text);
        free(d);
    }
}

static void remove_temporaries(wrap_source *src, int nsrc)
{
    for (int k = 0; k < nsrc; k++) {
        if (src[k].tmppath) {
            char *m = wrap_fortran_map_name(src[k].tmppath);
            if (m) {
                size_t n = strlen(m);
                unlink(m);
                char *mo = malloc(n + 3);
                if (mo) {
                    memcpy(mo, m, n);
                    memcpy(mo + n, ".o", 3);
                    unlink(mo);
                    free(mo);
                }
            }
            free(m);
            unlink(src[k].tmppath);
        }
        if (src[k].tmpdir)
            rmdir(src[k].tmpdir);
        free(src[k].tmppath);
        free(src[k].tmpdir);
    }
}

int aa_wrap_build(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, int *status, aa_err *err)
{
    wrap_source *src;
    wrap_argv rt = {0}, c = {0};
    int nsrc = 0, rc;

    if (wants_pass_through(cmd, o))
        return aa_wrap_spawn(cmd->orig_argv, status, err);
    src = calloc((size_t)cmd->nc + 1, sizeof *src);
    if (!src)
        return aa_wrap_spawn(cmd->orig_argv, status, err);
    for (int i = 0; i < cmd->argc; i++)
        if (cmd->argv[i].kind == AA_WARG_SOURCE &&
            (cmd->argv[i].lang == AA_LANG_C || cmd->argv[i].lang == AA_LANG_CXX ||
             cmd->argv[i].lang == AA_LANG_FORTRAN))
            src[nsrc++].argi = i;
    instrument_sources(cmd, o, src, nsrc);
    runtime_args(cmd, o, &rt);
    fortran_compile_maps(cmd, o, src, nsrc);
    if (assemble(cmd, src, nsrc, &rt, &c)) {
        /* out of memory: the original command still builds */
        rc = aa_wrap_spawn(cmd->orig_argv, status, err);
    } else {
        rc = run_command(cmd, &c, status, err);
        if (rc == AA_OK)
            fix_depfiles(cmd, src, nsrc);
        if (rc == AA_OK && *status == 0)
            fortran_attach_maps(cmd, o, src, nsrc);
    }
    remove_temporaries(src, nsrc);
    free(src);
    wrap_argv_free(&rt);
    wrap_argv_free(&c);
    return rc;
}
