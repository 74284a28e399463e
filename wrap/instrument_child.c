/*
 * wrap/instrument_child.c -- instruments one source file in a forked child
 * so that nothing the instrumenter does can break the build.  The child
 * parses and rewrites the file, appends the embedded region map, writes the
 * result into a private temporary directory (same base name, so default
 * object names do not change) and the map into AUTOANALYZER_MAPDIR when
 * set, and reports a one-line reason through a pipe when it declines.  The
 * parent waits at most the time limit: a crash (signal), an abnormal exit
 * or a timeout leaves the source to be compiled as it is, with one warning.
 * Fault injection for the tests, read only in the child:
 * AUTOANALYZER_TEST_CRASH=1|segv (SIGSEGV), abort, exit (exit status 70),
 * hang (sleeps until killed).
 */
#include "wrap/wrap_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Child exit statuses. */
enum {
    CHILD_OK = 0,       /* instrumented file written */
    CHILD_DECLINED = 3, /* reason in the pipe; compile the original */
    CHILD_QUIET = 4,    /* compile the original without a word (already instrumented) */
};

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

char *wrap_fortran_map_name(const char *tmppath)
{
    aa_buf b;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s.aamap.c", tmppath);
    return aa_buf_detach(&b);
}

char *wrap_mapdir_name(const char *mapdir, const char *source)
{
    char abs[PATH_MAX];
    aa_buf b;
    const char *key = realpath(source, abs) ? abs : source;
    aa_buf_init(&b);
    aa_buf_printf(&b, "%s/%s-%08x.regions.xml", mapdir, base_name(source), fnv1a(key));
    return aa_buf_detach(&b);
}

/* ---- fault injection (tests) --------------------------------------------------- */
static void test_fault(void)
{
    const char *f = getenv("AUTOANALYZER_TEST_CRASH");
    if (!f || !*f || !strcmp(f, "0"))
        return;
    if (!strcmp(f, "abort"))
        abort();
    if (!strcmp(f, "exit"))
        _exit(70);
    if (!strcmp(f, "hang"))
        for (;;)
            pause();
    raise(SIGSEGV);
}

/* ---- the child ------------------------------------------------------------------- */
static void child_say(int fd, const char *msg)
{
    size_t n = strlen(msg);
    while (n) {
        ssize_t w = write(fd, msg, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        msg += w;
        n -= (size_t)w;
    }
}

/* An already-instrumented Fortran source (`autoanalyzer instrument -o
 * x.f`, e.g. a --refine round 2) cannot carry its map in its text: the map
 * written beside it (x.f.regions.xml) becomes its companion C file, so the
 * program's regions keep their procedure, file and line.  Returns
 * CHILD_OK with the source copied to tmppath, CHILD_QUIET when there is
 * no map beside it (compiled as it is). */
static int fortran_premade(const char *path, const char *tmppath)
{
    aa_buf mp, cm;
    aa_regionmap *m = NULL;
    aa_err err;
    char *text = NULL, *cp = NULL;
    size_t len = 0;
    int rc = CHILD_QUIET;
    aa_buf_init(&mp);
    aa_buf_init(&cm);
    aa_buf_printf(&mp, "%s.regions.xml", path);
    if (mp.failed || access(mp.data, R_OK) || aa_regionmap_read(mp.data, &m, &err) ||
        wrap_embed_map(m, &cm, &err) || cm.failed || !(cp = wrap_fortran_map_name(tmppath)) ||
        aa_read_file(path, &text, &len, &err) ||
        aa_write_file_atomic(cp, cm.data ? cm.data : "", cm.len, &err) ||
        aa_write_file_atomic(tmppath, text, len, &err))
        goto out;
    rc = CHILD_OK;
out:
    if (rc != CHILD_OK && cp)
        unlink(cp);
    aa_regionmap_free(m);
    aa_buf_free(&mp);
    aa_buf_free(&cm);
    free(text);
    free(cp);
    return rc;
}

static int child_main(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, int nflags,
                      char *const *flags, int embed, const char *path, const char *tmppath,
                      int fd)
{
    aa_instrument_opts io;
    aa_instrument_result res;
    aa_err err;
    aa_buf out;
    int fortran = 0;
    for (int i = 0; i < cmd->argc; i++)
        if (cmd->argv[i].kind == AA_WARG_SOURCE && !strcmp(cmd->argv[i].text, path))
            fortran = cmd->argv[i].lang == AA_LANG_FORTRAN;
    test_fault();
    memset(&io, 0, sizeof io);
    io.modes = o->modes;
    io.filter = o->filter;
    io.plan = o->plan;
    io.diag = o->diag;
    io.probe_in_body = o->probe_in_body;
    io.compiler = cmd->compiler;
    if (aa_instrument_file(path, nflags, (const char *const *)flags, &io, &res, &err)) {
        if (strstr(err.msg, "already instrumented"))
            return fortran && embed ? fortran_premade(path, tmppath) : CHILD_QUIET;
        child_say(fd, err.msg);
        return CHILD_DECLINED;
    }
    aa_buf_init(&out);
    aa_buf_add(&out, res.source.data ? res.source.data : "", res.source.len);
    if (embed && fortran) {
        /* Fortran has no top-level asm: the map goes into a companion C
         * file that the build step compiles beside the source */
        aa_buf cm;
        char *cp = wrap_fortran_map_name(tmppath);
        aa_buf_init(&cm);
        if (!cp || wrap_embed_map(res.map, &cm, &err) || cm.failed ||
            aa_write_file_atomic(cp, cm.data ? cm.data : "", cm.len, &err)) {
            child_say(fd, cp ? err.msg : "out of memory");
            return CHILD_DECLINED;
        }
        aa_buf_free(&cm);
        free(cp);
    } else if (embed && wrap_embed_map(res.map, &out, &err)) {
        child_say(fd, err.msg);
        return CHILD_DECLINED;
    }
    if (out.failed) {
        child_say(fd, "out of memory");
        return CHILD_DECLINED;
    }
    if (o->mapdir && *o->mapdir) {
        char *mp = wrap_mapdir_name(o->mapdir, path);
        mkdir(o->mapdir, 0777); /* parallel builds: EEXIST is fine */
        if (!mp || aa_regionmap_write(res.map, mp, &err)) {
            /* the map file is an extra; the build goes on instrumented */
            if (o->diag)
                fprintf(o->diag, "autoanalyzer: warning: %s: region map not written to %s: %s\n",
                        path, o->mapdir, mp ? err.msg : "out of memory");
        }
        free(mp);
    }
    if (aa_write_file_atomic(tmppath, out.data, out.len, &err)) {
        child_say(fd, err.msg);
        return CHILD_DECLINED;
    }
    return CHILD_OK;
}

/* ---- the parent ------------------------------------------------------------------- */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads the child's message until EOF or the deadline; 1 on timeout. */
static int read_until(int fd, double deadline, aa_buf *msg)
{
    for (;;) {
        double left = deadline - now_s();
        struct pollfd p = {fd, POLLIN, 0};
        int r;
        char chunk[512];
        ssize_t n;
        if (left <= 0)
            return 1;
        r = poll(&p, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue; /* re-check the deadline */
        if (r < 0)
            return 0;
        n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        if (msg->len < 4096)
            aa_buf_add(msg, chunk, (size_t)n);
    }
}

/* Empties and removes the private directory (a child killed mid-write may
 * leave a temporary file there). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d) {
        while ((e = readdir(d)) != NULL) {
            aa_buf p;
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            aa_buf_init(&p);
            aa_buf_printf(&p, "%s/%s", dir, e->d_name);
            if (p.data)
                unlink(p.data);
            aa_buf_free(&p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void warn(const aa_wrap_opts *o, const char *path, const char *what)
{
    if (o->diag)
        fprintf(o->diag, "autoanalyzer: warning: %s: %s; compiled uninstrumented\n", path, what);
}

int wrap_instrument_source(const aa_wrap_cmd *cmd, const aa_wrap_opts *o, int nflags,
                           char *const *flags, int embed, wrap_source *s)
{
    const char *path = cmd->argv[s->argi].text, *tmpd = getenv("TMPDIR");
    double limit = o->timeout_s > 0 ? o->timeout_s : 300;
    char tmpl[PATH_MAX];
    aa_buf tp, msg;
    int fd[2], st = 0, timed_out;
    pid_t pid;

    snprintf(tmpl, sizeof tmpl, "%s/aa-cc.XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
    if (!mkdtemp(tmpl)) {
        warn(o, path, "cannot create a temporary directory");
        return 0;
    }
    aa_buf_init(&tp);
    aa_buf_printf(&tp, "%s/%s", tmpl, base_name(path));
    if (tp.failed || pipe2(fd, O_CLOEXEC)) {
        warn(o, path, "out of resources");
        aa_buf_free(&tp);
        rmdir(tmpl);
        return 0;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        warn(o, path, "cannot fork");
        close(fd[0]);
        close(fd[1]);
        aa_buf_free(&tp);
        rmdir(tmpl);
        return 0;
    }
    if (pid == 0) {
        int rc;
        close(fd[0]);
        rc = child_main(cmd, o, nflags, flags, embed, path, tp.data, fd[1]);
        if (o->diag)
            fflush(o->diag);
        _exit(rc);
    }
    close(fd[1]);
    aa_buf_init(&msg);
    timed_out = read_until(fd[0], now_s() + limit, &msg);
    close(fd[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == CHILD_OK &&
        access(tp.data, R_OK) == 0) {
        s->tmpdir = aa_strdup(tmpl);
        s->tmppath = aa_buf_detach(&tp);
        aa_buf_free(&msg);
        return 0;
    }
    {
        char what[4200];
        if (timed_out)
            snprintf(what, sizeof what, "instrumenter timed out after %g s", limit);
        else if (WIFSIGNALED(st))
            snprintf(what, sizeof what, "instrumenter crashed (signal %d)", WTERMSIG(st));
        else if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_DECLINED)
            snprintf(what, sizeof what, "%s", msg.len ? msg.data : "not instrumented");
        else if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_QUIET)
            what[0] = '\0';
        else
            snprintf(what, sizeof what, "instrumenter failed (exit status %d)",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        if (what[0]) {
            /* the instrumenter's own messages already start with file:line */
            if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_DECLINED && !timed_out &&
                !strncmp(what, path, strlen(path)) && o->diag)
                fprintf(o->diag, "autoanalyzer: warning: %s; compiled uninstrumented\n", what);
            else
                warn(o, path, what);
        }
    }
    remove_dir(tmpl);
    aa_buf_free(&tp);
    aa_buf_free(&msg);
    return 0;
}
