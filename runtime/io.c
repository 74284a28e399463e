/*
 * runtime/io.c -- I/O interposition.  Data calls: read, write, pread,
 * pwrite (and the *64 names), readv, writev, and the stdio family counted
 * at its API -- fread, fwrite, fgets, fputs, puts, fputc, putc, putchar,
 * fprintf, printf, vfprintf, vprintf, fscanf, scanf, vfscanf (their C99
 * names __isoc99_*), the _FORTIFY names (__*_chk) -- plus fflush and fclose (time and
 * calls: that is where buffered data reaches the kernel).  Metadata calls:
 * open, openat, creat, fopen (and *64), close, the stat family (stat,
 * lstat, fstat, fstatat, statx and the *64 names), mkdir,
 * rmdir, unlink, unlinkat, rename, renameat, fsync, fdatasync, ftruncate,
 * truncate: time and calls, no bytes.  The wrappers find the real function
 * with dlsym(RTLD_NEXT) and add bytes, time and calls to the innermost open
 * region of the calling thread (io_read_bytes, io_write_bytes, io_time,
 * io_cpu, io_calls; io_cpu is the thread's CPU time inside the call, read
 * as for MPI calls, which the analysis leaves out of the process metric).
 *
 * A call is counted once: an I/O call made while another is being measured
 * (a stdio call that the C library or a cookie stream carries out with
 * write(2), an fclose closing its descriptor) is not counted again (the
 * thread's in_io flag).  glibc's own stdio reaches the kernel through
 * internal calls that no wrapper sees, so stdio bytes are the bytes the
 * program handed to the API.  Nothing is counted when the thread has no
 * measurement state, when measurement is paused, inside the runtime itself
 * (its profile writes) or inside an MPI call (MPI-IO is counted once by its
 * own wrapper).  The definitions are in the executable when the static
 * library is linked (probe.c references aa_rt_io_init, which pulls this
 * object in), and in libautoanalyzer.so otherwise; both interpose libc for
 * a dynamically linked program.  A fully static (-static) program gets no
 * interposition.  Not wrapped: the character readers fgetc/getc (a clock
 * read per character would cost more than the call) and the *_unlocked
 * variants.
 */
#include "runtime/rt_internal.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define REAL(name, ret, args)                                                   \
    static ret(*real_##name) args;                                              \
    static ret(*get_##name(void)) args                                          \
    {                                                                           \
        if (!real_##name)                                                       \
            *(void **)&real_##name = dlsym(RTLD_NEXT, #name);                   \
        return real_##name;                                                     \
    }

REAL(read, ssize_t, (int, void *, size_t))
REAL(write, ssize_t, (int, const void *, size_t))
REAL(pread, ssize_t, (int, void *, size_t, off_t))
REAL(pwrite, ssize_t, (int, const void *, size_t, off_t))
REAL(pread64, ssize_t, (int, void *, size_t, off_t))
REAL(pwrite64, ssize_t, (int, const void *, size_t, off_t))
REAL(readv, ssize_t, (int, const struct iovec *, int))
REAL(writev, ssize_t, (int, const struct iovec *, int))
REAL(fread, size_t, (void *, size_t, size_t, FILE *))
REAL(fwrite, size_t, (const void *, size_t, size_t, FILE *))

void aa_rt_io_init(void)
{
    get_read();
    get_write();
    get_fread();
    get_fwrite();
}

typedef struct io_ctx {
    aa_rt_thread *t;
    uint64_t t0;
    double c0;  /* thread CPU time (ns, interpolated as for MPI calls) */
    double fix; /* the correction of a real read at the start (cpu_fix) */
} io_ctx;

static inline int io_begin(io_ctx *c)
{
    aa_rt_thread *t = aa_rt_self;
    if (!t || t->in_rt || t->in_mpi || t->in_io || t->depth <= 0 ||
        __atomic_load_n(&aa_rt_g.paused, __ATOMIC_RELAXED))
        return 0;
    t->in_io = 1;
    c->t = t;
    c->t0 = aa_rt_now();
    c->c0 = aa_rt_cpu_at(t, c->t0);
    c->fix = aa_rt_fix_at(t, c->t0);
    return 1;
}

static inline void io_end(io_ctx *c, double rbytes, double wbytes)
{
    uint64_t now = aa_rt_now();
    aa_rt_thread *t = c->t;
    double wall = (double)(now - c->t0) / aa_rt_g.ticks_per_sec;
    double cpu = (aa_rt_cpu_at(t, now) - c->c0) / 1e9;
    double fix = c->fix + aa_rt_fix_at(t, now);
    aa_rt_node *n;
    t->in_io = 0;
    if (t->depth <= 0)
        return;
    /* At most the wall time plus the misplaced part of a real read's
     * correction (fix): the correction lands in the segment the read
     * happens in, inside or outside a call, in proportion to their lengths;
     * clipping at the wall time alone moved its part beyond it outside the
     * calls (docs/runtime.md, Timing) */
    if (!(cpu > 0))
        cpu = 0;
    if (cpu > wall + fix)
        cpu = wall + fix;
    t->io_cpu_ns += cpu * 1e9;
    aa_rt_sync(t); /* a gated node the probes stepped into does this I/O */
    n = aa_rt_node_at(t, t->stack[t->depth - 1].node);
    n->x[AA_RT_X_IO_READ] += rbytes;
    n->x[AA_RT_X_IO_WRITE] += wbytes;
    n->x[AA_RT_X_IO_CALLS] += 1;
    n = aa_rt_timed_node(t); /* an untimed visit's time is its caller's */
    n->x[AA_RT_X_IO_TIME] += wall;
    n->x[AA_RT_X_IO_CPU] += cpu;
    n->x[AA_RT_X_CPU_FIX] += fix;
}

#define POS(r) ((r) > 0 ? (double)(r) : 0.0)

/* ---- POSIX data calls ------------------------------------------------------ */
ssize_t read(int fd, void *buf, size_t n)
{
    io_ctx c;
    ssize_t r;
    if (!get_read())
        return syscall(SYS_read, fd, buf, n);
    if (!io_begin(&c))
        return real_read(fd, buf, n);
    r = real_read(fd, buf, n);
    io_end(&c, POS(r), 0);
    return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    io_ctx c;
    ssize_t r;
    if (!get_write())
        return syscall(SYS_write, fd, buf, n);
    if (!io_begin(&c))
        return real_write(fd, buf, n);
    r = real_write(fd, buf, n);
    io_end(&c, 0, POS(r));
    return r;
}

#define PREADWRITE(name, bufty, isread)                                         \
    ssize_t name(int fd, bufty buf, size_t n, off_t off)                        \
    {                                                                           \
        io_ctx c;                                                               \
        ssize_t r;                                                              \
        if (!get_##name())                                                      \
            return syscall(isread ? SYS_pread64 : SYS_pwrite64, fd, buf, n, off); \
        if (!io_begin(&c))                                                      \
            return real_##name(fd, buf, n, off);                                \
        r = real_##name(fd, buf, n, off);                                       \
        io_end(&c, isread ? POS(r) : 0, isread ? 0 : POS(r));                   \
        return r;                                                               \
    }

PREADWRITE(pread, void *, 1)
PREADWRITE(pwrite, const void *, 0)
PREADWRITE(pread64, void *, 1)
PREADWRITE(pwrite64, const void *, 0)

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    io_ctx c;
    ssize_t r;
    if (!get_readv())
        return syscall(SYS_readv, fd, iov, cnt);
    if (!io_begin(&c))
        return real_readv(fd, iov, cnt);
    r = real_readv(fd, iov, cnt);
    io_end(&c, POS(r), 0);
    return r;
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    io_ctx c;
    ssize_t r;
    if (!get_writev())
        return syscall(SYS_writev, fd, iov, cnt);
    if (!io_begin(&c))
        return real_writev(fd, iov, cnt);
    r = real_writev(fd, iov, cnt);
    io_end(&c, 0, POS(r));
    return r;
}

/* ---- stdio, counted at the API ------------------------------------------------ */
size_t fread(void *p, size_t size, size_t n, FILE *fp)
{
    io_ctx c;
    size_t r;
    if (!get_fread())
        return 0;
    if (!io_begin(&c))
        return real_fread(p, size, n, fp);
    r = real_fread(p, size, n, fp);
    io_end(&c, (double)r * (double)size, 0);
    return r;
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *fp)
{
    io_ctx c;
    size_t r;
    if (!get_fwrite())
        return 0;
    if (!io_begin(&c))
        return real_fwrite(p, size, n, fp);
    r = real_fwrite(p, size, n, fp);
    io_end(&c, 0, (double)r * (double)size);
    return r;
}

/* A wrapper around the real `name`: CALL evaluates to the result r, then
 * RB / WB (expressions over r and the arguments) are the bytes read and
 * written.  FAIL is returned when the real function cannot be found. */
#define WRAP(ret, name, params, args, FAIL, RB, WB)                             \
    REAL(name, ret, params)                                                     \
    ret name params                                                             \
    {                                                                           \
        io_ctx c;                                                               \
        ret r;                                                                  \
        if (!get_##name())                                                      \
            return FAIL;                                                        \
        if (!io_begin(&c))                                                      \
            return real_##name args;                                            \
        r = real_##name args;                                                   \
        io_end(&c, (RB), (WB));                                                 \
        return r;                                                               \
    }

WRAP(int, fputs, (const char *s, FILE *fp), (s, fp), EOF, 0, r >= 0 ? (double)strlen(s) : 0)
WRAP(int, puts, (const char *s), (s), EOF, 0, r >= 0 ? (double)strlen(s) + 1 : 0)
WRAP(int, fputc, (int ch, FILE *fp), (ch, fp), EOF, 0, r != EOF ? 1.0 : 0)
WRAP(int, putc, (int ch, FILE *fp), (ch, fp), EOF, 0, r != EOF ? 1.0 : 0)
WRAP(int, putchar, (int ch), (ch), EOF, 0, r != EOF ? 1.0 : 0)
WRAP(char *, fgets, (char *s, int n, FILE *fp), (s, n, fp), NULL, r ? (double)strlen(r) : 0, 0)
WRAP(char *, __fgets_chk, (char *s, size_t len, int n, FILE *fp), (s, len, n, fp), NULL,
     r ? (double)strlen(r) : 0, 0)
WRAP(size_t, __fread_chk, (void *p, size_t len, size_t size, size_t n, FILE *fp),
     (p, len, size, n, fp), 0, (double)r * (double)size, 0)
WRAP(int, vfprintf, (FILE *fp, const char *f, va_list ap), (fp, f, ap), -1, 0, POS(r))
WRAP(int, vprintf, (const char *f, va_list ap), (f, ap), -1, 0, POS(r))
WRAP(int, __vfprintf_chk, (FILE *fp, int fl, const char *f, va_list ap), (fp, fl, f, ap), -1, 0,
     POS(r))
WRAP(int, __vprintf_chk, (int fl, const char *f, va_list ap), (fl, f, ap), -1, 0, POS(r))
WRAP(int, fflush, (FILE *fp), (fp), EOF, 0, 0)
WRAP(int, fclose, (FILE *fp), (fp), EOF, 0, 0)

/* The variadic printers forward to the va_list wrappers above (counted
 * there, once). */
int fprintf(FILE *fp, const char *f, ...)
{
    va_list ap;
    int r;
    va_start(ap, f);
    r = vfprintf(fp, f, ap);
    va_end(ap);
    return r;
}

int printf(const char *f, ...)
{
    va_list ap;
    int r;
    va_start(ap, f);
    r = vprintf(f, ap);
    va_end(ap);
    return r;
}

int __fprintf_chk(FILE *fp, int fl, const char *f, ...)
{
    va_list ap;
    int r;
    va_start(ap, f);
    r = __vfprintf_chk(fp, fl, f, ap);
    va_end(ap);
    return r;
}

int __printf_chk(int fl, const char *f, ...)
{
    va_list ap;
    int r;
    va_start(ap, f);
    r = __vprintf_chk(fl, f, ap);
    va_end(ap);
    return r;
}

/* The scanners: bytes consumed = the stream position moved (0 on a stream
 * that cannot tell its position, such as a pipe). */
static inline off_t io_pos(FILE *fp)
{
    return ftello(fp);
}
#define SCAN_BYTES(p0, fp) ((p0) >= 0 && io_pos(fp) > (p0) ? (double)(io_pos(fp) - (p0)) : 0.0)

#define VSCAN(name)                                                             \
    REAL(name, int, (FILE *, const char *, va_list))                            \
    int name(FILE *fp, const char *f, va_list ap)                               \
    {                                                                           \
        io_ctx c;                                                               \
        int r;                                                                  \
        off_t p0;                                                               \
        if (!get_##name())                                                      \
            return EOF;                                                         \
        if (!io_begin(&c))                                                      \
            return real_##name(fp, f, ap);                                      \
        p0 = io_pos(fp);                                                        \
        r = real_##name(fp, f, ap);                                             \
        io_end(&c, SCAN_BYTES(p0, fp), 0);                                      \
        return r;                                                               \
    }
/* (stdio.h maps fscanf, scanf and vfscanf of a C99 program to these) */
VSCAN(__isoc99_vfscanf)

#define SCAN(name, vname, fpexpr, first, params)                                \
    int name params                                                             \
    {                                                                           \
        va_list ap;                                                             \
        int r;                                                                  \
        va_start(ap, first);                                                    \
        r = vname(fpexpr, first, ap);                                           \
        va_end(ap);                                                             \
        return r;                                                               \
    }
SCAN(__isoc99_fscanf, __isoc99_vfscanf, fp, f, (FILE *fp, const char *f, ...))
SCAN(__isoc99_scanf, __isoc99_vfscanf, stdin, f, (const char *f, ...))

/* ---- metadata: time and calls, no bytes --------------------------------------- */
#define META(ret, name, params, args, FAIL) WRAP(ret, name, params, args, FAIL, 0, 0)

/* open and friends take a mode only with O_CREAT / O_TMPFILE */
#define COMMA ,
#define OPENLIKE(name, params, pre, args)                                       \
    REAL(name, int, params)                                                     \
    int name(pre, int flags, ...)                                               \
    {                                                                           \
        io_ctx c;                                                               \
        int r;                                                                  \
        mode_t mode = 0;                                                        \
        if (flags & (O_CREAT | O_TMPFILE)) {                                    \
            va_list ap;                                                         \
            va_start(ap, flags);                                                \
            mode = (mode_t)va_arg(ap, int);                                     \
            va_end(ap);                                                         \
        }                                                                       \
        if (!get_##name())                                                      \
            return -1;                                                          \
        if (!io_begin(&c))                                                      \
            return real_##name args;                                            \
        r = real_##name args;                                                   \
        io_end(&c, 0, 0);                                                       \
        return r;                                                               \
    }
OPENLIKE(open, (const char *, int, ...), const char *path, (path, flags, mode))
OPENLIKE(open64, (const char *, int, ...), const char *path, (path, flags, mode))
OPENLIKE(openat, (int, const char *, int, ...), int dfd COMMA const char *path,
         (dfd, path, flags, mode))
OPENLIKE(openat64, (int, const char *, int, ...), int dfd COMMA const char *path,
         (dfd, path, flags, mode))
META(int, creat, (const char *p, mode_t m), (p, m), -1)
META(int, creat64, (const char *p, mode_t m), (p, m), -1)
META(FILE *, fopen, (const char *p, const char *m), (p, m), NULL)
META(FILE *, fopen64, (const char *p, const char *m), (p, m), NULL)
META(int, close, (int fd), (fd), -1)
META(int, stat, (const char *p, struct stat *s), (p, s), -1)
META(int, lstat, (const char *p, struct stat *s), (p, s), -1)
META(int, fstat, (int fd, struct stat *s), (fd, s), -1)
META(int, fstatat, (int d, const char *p, struct stat *s, int fl), (d, p, s, fl), -1)
META(int, stat64, (const char *p, struct stat64 *s), (p, s), -1)
META(int, lstat64, (const char *p, struct stat64 *s), (p, s), -1)
META(int, fstat64, (int fd, struct stat64 *s), (fd, s), -1)
META(int, fstatat64, (int d, const char *p, struct stat64 *s, int fl), (d, p, s, fl), -1)
META(int, statx, (int d, const char *p, int fl, unsigned m, struct statx *s), (d, p, fl, m, s), -1)
META(int, mkdir, (const char *p, mode_t m), (p, m), -1)
META(int, rmdir, (const char *p), (p), -1)
META(int, unlink, (const char *p), (p), -1)
META(int, unlinkat, (int d, const char *p, int fl), (d, p, fl), -1)
META(int, rename, (const char *a, const char *b), (a, b), -1)
META(int, renameat, (int da, const char *a, int db, const char *b), (da, a, db, b), -1)
META(int, fsync, (int fd), (fd), -1)
META(int, fdatasync, (int fd), (fd), -1)
META(int, ftruncate, (int fd, off_t len), (fd, len), -1)
META(int, ftruncate64, (int fd, off64_t len), (fd, len), -1)
META(int, truncate, (const char *p, off_t len), (p, len), -1)
