/*
 * instrument/calls.c -- classifies a called routine for the call-site modes
 * of SPEC §3.2: MPI (MPI_* / PMPI_*), libm, POSIX I/O and process calls
 * ("syscalls"), and the other C library routines (any function declared in
 * a system header that is none of the former).  Also names the routines
 * that make a region unsafe to wrap (setjmp/longjmp and friends), and the
 * calls that cannot block (libm, <ctype.h>, abs, compiler builtins) for the
 * tiny-leaf-function rule, and for the short-function rule the memory and
 * string routines that compute in the process without waiting, the
 * routines that only report (printf, perror, ...) and those that do not
 * return (exit, abort, MPI_Abort, ...), which mark an error path.
 */
#include "instrument/instr_private.h"

#include <stdlib.h>
#include <string.h>

static const char *const math_names[] = {
    "acos", "acosf", "acosh", "acoshf", "acoshl", "acosl", "asin", "asinf",
    "asinh", "asinhf", "asinhl", "asinl", "atan", "atan2", "atan2f", "atan2l",
    "atanf", "atanh", "atanhf", "atanhl", "atanl", "cbrt", "cbrtf", "cbrtl",
    "ceil", "ceilf", "ceill", "copysign", "copysignf", "cos", "cosf", "cosh",
    "coshf", "coshl", "cosl", "erf", "erfc", "erfcf", "erff", "exp", "exp2",
    "exp2f", "expf", "expl", "expm1", "expm1f", "fabs", "fabsf", "fabsl",
    "fdim", "floor", "floorf", "floorl", "fma", "fmaf", "fmax", "fmaxf",
    "fmin", "fminf", "fmod", "fmodf", "fmodl", "frexp", "hypot", "hypotf",
    "ldexp", "ldexpf", "lgamma", "llrint", "llround", "log", "log10", "log10f",
    "log1p", "log1pf", "log2", "log2f", "logf", "logl", "lrint", "lround",
    "modf", "modff", "nearbyint", "pow", "powf", "powl", "remainder", "rint",
    "round", "roundf", "scalbn", "sin", "sincos", "sincosf", "sinf", "sinh",
    "sinhf", "sinhl", "sinl", "sqrt", "sqrtf", "sqrtl", "tan", "tanf", "tanh",
    "tanhf", "tanhl", "tanl", "tgamma", "trunc", "truncf",
};

static const char *const sys_names[] = {
    "accept", "access", "bind", "chdir", "chmod", "chown", "close", "closedir",
    "connect", "creat", "dup", "dup2", "dup3", "execl", "execle", "execlp",
    "execv", "execve", "execvp", "fchmod", "fcntl", "fdatasync", "fork",
    "fstat", "fsync", "ftruncate", "getdents", "ioctl", "kill", "link",
    "listen", "lseek", "lstat", "mkdir", "mkfifo", "mmap", "msync", "munmap",
    "nanosleep", "open", "openat", "opendir", "pipe", "pipe2", "poll",
    "posix_spawn", "posix_spawnp", "pread", "preadv", "pselect", "pwrite",
    "pwritev", "read", "readdir", "readlink", "readv", "recv", "recvfrom",
    "recvmsg", "rename", "rmdir", "select", "send", "sendmsg", "sendto",
    "sleep", "socket", "stat", "symlink", "sync", "truncate", "unlink",
    "usleep", "wait", "waitpid", "write", "writev",
};

/* <ctype.h> and <stdlib.h> routines that only compute (sorted). */
static const char *const pure_names[] = {
    "abs",     "imaxabs", "isalnum", "isalpha", "isascii", "isblank", "iscntrl",
    "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace", "isupper",
    "isxdigit", "labs",   "llabs",   "tolower", "toupper",
};

/* Memory and string routines: they compute in the process and never wait
 * (short-function rule; sorted). */
static const char *const memory_names[] = {
    "aligned_alloc", "calloc", "free", "malloc", "memcmp", "memcpy", "memmove",
    "memset", "posix_memalign", "realloc", "strcmp", "strcpy", "strlen",
    "strncmp", "strncpy",
};

/* Routines that only report: what an error path calls before it returns
 * or stops the program (sorted). */
static const char *const report_names[] = {
    "fflush", "fprintf", "fputc", "fputs", "perror", "printf", "putchar",
    "puts", "vfprintf", "vprintf",
};

/* Routines that do not return: the end of an error path (sorted). */
static const char *const noreturn_names[] = {
    "MPI_Abort", "_Exit", "__assert_fail", "__builtin_trap", "__builtin_unreachable",
    "_exit", "abort", "err", "errx", "exit", "quick_exit",
};

/* Calls that make a region (and its function) unsafe to wrap. */
static const char *const unsafe_names[] = {
    "__builtin_longjmp", "__builtin_setjmp", "__longjmp_chk", "__sigsetjmp",
    "_longjmp", "_setjmp", "getcontext", "longjmp", "makecontext", "setcontext",
    "setjmp", "siglongjmp", "sigsetjmp", "swapcontext", "vfork",
};

static int cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int in(const char *const *v, size_t n, const char *s)
{
    return bsearch(&s, v, n, sizeof *v, cmp) != NULL;
}

#define IN(v, s) in(v, sizeof v / sizeof v[0], s)

int instr_call_class(const char *name, int in_system_header)
{
    if (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0)
        return AA_MODE_MPI;
    if (IN(math_names, name))
        return AA_MODE_MATHLIB;
    if (IN(sys_names, name))
        return AA_MODE_SYSCALLS;
    if (in_system_header && strncmp(name, "__builtin", 9) != 0)
        return AA_MODE_LIBC;
    return 0;
}

int instr_call_pure(const char *name)
{
    return IN(math_names, name) || IN(pure_names, name) ||
           (strncmp(name, "__builtin_", 10) == 0 && strcmp(name, "__builtin_trap") != 0);
}

int instr_call_unsafe(const char *name)
{
    return IN(unsafe_names, name);
}

int instr_call_memory(const char *name)
{
    return IN(memory_names, name);
}

int instr_call_report(const char *name)
{
    return IN(report_names, name);
}

int instr_call_noreturn(const char *name)
{
    return IN(noreturn_names, name);
}

int instr_call_tables_sorted(void)
{
    const char *const *t[] = {math_names,   sys_names,   unsafe_names,  pure_names,
                              memory_names, report_names, noreturn_names};
    size_t n[] = {sizeof math_names / sizeof *math_names,
                  sizeof sys_names / sizeof *sys_names,
                  sizeof unsafe_names / sizeof *unsafe_names,
                  sizeof pure_names / sizeof *pure_names,
                  sizeof memory_names / sizeof *memory_names,
                  sizeof report_names / sizeof *report_names,
                  sizeof noreturn_names / sizeof *noreturn_names};
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        for (size_t i = 1; i < n[k]; i++)
            if (strcmp(t[k][i - 1], t[k][i]) >= 0)
                return 0;
    return 1;
}
