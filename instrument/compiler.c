/*
 * instrument/compiler.c -- the real compiler's view of a translation unit.
 *
 * libclang predefines clang's macros (__clang__, __GNUC__ 4, its own
 * feature macros), so a file that gcc compiles may be parsed along other
 * #if branches than gcc takes: probes then land in code gcc never sees, or
 * miss the code it does.  This file asks the real compiler what it
 * predefines for the user's flags (`CC <flags> -dM -E -x c /dev/null`) and
 * which system directories it searches (-v, in the same run), and turns the answer
 * into parse arguments: `-undef` (no clang predefines), the compiler's
 * macro list as a forced include held in memory, and its system directories
 * after libclang's own (-idirafter).  A handful of glibc constructs that
 * glibc emits only for gcc and clang 14 cannot parse are mapped to
 * equivalents in a short compatibility block (see COMPAT below).  Any
 * failure here simply means "parse with libclang's own view".
 */
#include "instrument/instr_private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Where the macro list is "found" by the parser (an unsaved file). */
const char instr_compiler_predef_path[] = "/autoanalyzer-internal/compiler-predefined.h";

/* glibc declares these only for gcc >= 7 / >= 11; clang 14 has no
 * _Float128 keyword (in C; glibc typedefs it for C++) and no
 * __malloc__(deallocator) attribute form; libstdc++'s <compare> names
 * gcc's __float80. */
static const char COMPAT[] =
    "\n/* autoanalyzer: gcc-only glibc constructs, as clang spells them */\n"
    "#if (defined __x86_64__ || defined __i386__ || defined __ia64__ || defined __powerpc64__) && "
    "!defined __cplusplus\n"
    "#define _Float128 __float128\n"
    "#endif\n"
    "#if defined __cplusplus && defined __SIZEOF_FLOAT80__\n"
    "#define __float80 long double\n"
    "#endif\n"
    "#define __malloc__(...) __malloc__\n";

/* Longest a compiler query may take before we give up on it. */
#define QUERY_TIMEOUT_MS 30000
/* Largest answer accepted (gcc prints ~20 KB of macros). */
#define QUERY_MAX_BYTES (4u << 20)

/* ---- which user flags change what the compiler predefines --------------- */

/* Flags whose value is the next argument and that the query must not see. */
static int value_flag(const char *a)
{
    static const char *const v[] = {"-o", "-MF", "-MT", "-MQ", "-x", "-I", "-iquote",
                                     "-isystem", "-idirafter", "-include", "-imacros",
                                     "-Xlinker", "-Xpreprocessor", "-Xassembler", "-L", "-l",
                                     "-T", "-u", "-z", "-aux-info", "--param", "-e", "-B",
                                     NULL};
    for (int i = 0; v[i]; i++)
        if (!strcmp(a, v[i]))
            return 1;
    return 0;
}

/* 1 for flags that can change the predefined macros or the system include
 * directories: language standard, optimisation, target, code generation,
 * sysroot, user -D/-U (applied by the query exactly as gcc applies them). */
static int predef_flag(const char *a)
{
    if (!strncmp(a, "-D", 2) || !strncmp(a, "-U", 2))
        return a[2] != '\0';
    if (!strncmp(a, "-std=", 5) || !strcmp(a, "-ansi") || !strncmp(a, "-O", 2) ||
        !strcmp(a, "-pthread") || !strncmp(a, "--sysroot=", 10) || !strcmp(a, "-nostdinc") ||
        !strcmp(a, "-undef") || !strncmp(a, "-march=", 7) || !strncmp(a, "-mtune=", 7) ||
        !strncmp(a, "-mcpu=", 6))
        return 1;
    if (!strncmp(a, "-m", 2) && a[2])
        return 1; /* -mavx2, -m32, -mno-sse... */
    if (!strncmp(a, "-f", 2))
        return strncmp(a, "-fdiagnostics", 13) && strncmp(a, "-fprofile", 9) &&
               strncmp(a, "-fdump", 6) && strcmp(a, "-fsyntax-only") &&
               strncmp(a, "-fplugin", 8) && strncmp(a, "-fcallgraph-info", 16) &&
               strncmp(a, "-fstack-usage", 13);
    return 0;
}

/* ---- running the compiler ----------------------------------------------- */

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Runs argv with standard input /dev/null, collecting its stdout into out
 * and its stderr into err_out.  0 when it exited 0 in time. */
static int capture(char *const *argv, aa_buf *out, aa_buf *err_out)
{
    posix_spawn_file_actions_t fa;
    int po[2], pe[2], rc = -1, st, open_fds = 2;
    pid_t pid;
    struct timespec t0;

    if (pipe2(po, O_CLOEXEC))
        return -1;
    if (pipe2(pe, O_CLOEXEC)) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    st = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    if (st) {
        close(po[0]);
        close(pe[0]);
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct pollfd p[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    while (open_fds > 0) {
        long left = QUERY_TIMEOUT_MS - elapsed_ms(&t0);
        if (left <= 0 || out->len + err_out->len > QUERY_MAX_BYTES) {
            kill(pid, SIGKILL);
            break;
        }
        if (poll(p, 2, (int)left) < 0) {
            if (errno == EINTR)
                continue;
            kill(pid, SIGKILL);
            break;
        }
        for (int k = 0; k < 2; k++) {
            char chunk[8192];
            ssize_t n;
            if (p[k].fd < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            n = read(p[k].fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                p[k].fd = -1;
                open_fds--;
                continue;
            }
            aa_buf_add(k ? err_out : out, chunk, (size_t)n);
        }
    }
    if (open_fds == 0)
        rc = 0;
    close(po[0]);
    close(pe[0]);
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        rc = -1;
    return out->failed || err_out->failed ? -1 : rc;
}

/* argv for `compiler <predef flags> EXTRA... -x c /dev/null` (`-x c++`
 * for C++: its predefined macros differ, __cplusplus first of all). */
static char **query_argv(const char *compiler, int cxx, int argc, const char *const *argv,
                         const char *const *extra)
{
    size_t n = 0, ne = 0;
    char **v;
    while (extra[ne])
        ne++;
    v = calloc((size_t)argc + ne + 5, sizeof *v);
    if (!v)
        return NULL;
    v[n++] = (char *)compiler;
    for (int i = 0; i < argc; i++) {
        if (value_flag(argv[i])) {
            i++;
            continue;
        }
        if (predef_flag(argv[i]))
            v[n++] = (char *)argv[i];
        else if ((!strcmp(argv[i], "-D") || !strcmp(argv[i], "-U")) && i + 1 < argc) {
            v[n++] = (char *)argv[i];
            v[n++] = (char *)argv[++i];
        }
    }
    for (size_t k = 0; k < ne; k++)
        v[n++] = (char *)extra[k];
    v[n++] = "-x";
    v[n++] = cxx ? "c++" : "c";
    v[n++] = "/dev/null";
    return v;
}

/* ---- the answers ---------------------------------------------------------- */

/* The system include directories from `-E -v` output, except the
 * compiler's private ones (lib/gcc/<triple>/<ver>/include[-fixed]: its
 * intrinsics headers use builtins only it knows; libclang's resource
 * directory stands in for them). */
static int parse_search_list(const char *text, instr_compiler_view *v)
{
    const char *p = strstr(text, "#include <...> search starts here:");
    if (!p)
        return -1;
    p = strchr(p, '\n');
    while (p && *++p == ' ') {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *dir;
        while (len && (*p == ' '))
            p++, len--;
        /* "(framework directory)" suffixes are macOS-only */
        dir = malloc(len + 1);
        if (!dir)
            return -1;
        memcpy(dir, p, len);
        dir[len] = '\0';
        if (strstr(dir, "/lib/gcc/") || strstr(dir, "/lib/clang/") || !len) {
            free(dir);
        } else {
            char **nd = realloc(v->dirs, (v->ndirs + 1) * sizeof *nd);
            if (!nd) {
                free(dir);
                return -1;
            }
            v->dirs = nd;
            v->dirs[v->ndirs++] = dir;
        }
        p = e;
    }
    return 0;
}

int instr_compiler_view_get(const char *compiler, int cxx, int argc, const char *const *argv,
                            instr_compiler_view *v)
{
    /* one run: the macros on stdout, the search list (-v) on stderr */
    static const char *const query[] = {"-dM", "-E", "-v", NULL};
    char **qa;
    aa_buf out, errs;
    int rc;

    memset(v, 0, sizeof *v);
    if (!compiler || !*compiler)
        return -1;
    aa_buf_init(&out);
    aa_buf_init(&errs);
    qa = query_argv(compiler, cxx, argc, argv, query);
    rc = qa ? capture(qa, &out, &errs) : -1;
    free(qa);
    if (rc || !out.len || !strstr(out.data, "#define __STDC__")) {
        aa_buf_free(&out);
        aa_buf_free(&errs);
        return -1;
    }
    /* 1. predefined macros for these flags, plus the compatibility lines */
    aa_buf_puts(&out, COMPAT);
    if (out.failed) {
        aa_buf_free(&out);
        aa_buf_free(&errs);
        return -1;
    }
    v->predef_len = out.len;
    v->predef = aa_buf_detach(&out);
    /* 2. system include directories (best effort: none is fine) */
    if (errs.data && parse_search_list(errs.data, v)) {
        for (size_t k = 0; k < v->ndirs; k++)
            free(v->dirs[k]);
        free(v->dirs);
        v->dirs = NULL;
        v->ndirs = 0;
    }
    aa_buf_free(&errs);
    return 0;
}

void instr_compiler_view_free(instr_compiler_view *v)
{
    free(v->predef);
    for (size_t k = 0; k < v->ndirs; k++)
        free(v->dirs[k]);
    free(v->dirs);
    memset(v, 0, sizeof *v);
}
