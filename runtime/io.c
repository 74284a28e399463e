/*
 * runtime/io.c -- I/O interposition: read, write, pread, pwrite (and the
 * *64 names), readv, writev, fread, fwrite.  The wrappers find the real
 * function with dlsym(RTLD_NEXT) and add bytes, time and calls to the
 * innermost open region of the calling thread (io_read_bytes,
 * io_write_bytes, io_time, io_calls).
 *
 * Nothing is counted when the thread has no measurement state, when
 * measurement is paused, inside the runtime itself (its profile writes) or
 * inside an MPI call (MPI-IO is counted once by its own wrapper).  The
 * definitions are in the executable when the static library is linked
 * (probe.c references aa_rt_io_init, which pulls this object in), and in
 * libautoanalyzer.so otherwise; both interpose libc for a dynamically
 * linked program.  A fully static (-static) program gets no interposition.
 */
#include "runtime/rt_internal.h"

#include <dlfcn.h>
#include <stdio.h>
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
} io_ctx;

static inline int io_begin(io_ctx *c)
{
    aa_rt_thread *t = aa_rt_self;
    if (!t || t->in_rt || t->in_mpi || t->depth <= 0 ||
        __atomic_load_n(&aa_rt_g.paused, __ATOMIC_RELAXED))
        return 0;
    c->t = t;
    c->t0 = aa_rt_now();
    return 1;
}

static inline void io_end(io_ctx *c, double rbytes, double wbytes)
{
    uint64_t now = aa_rt_now();
    aa_rt_thread *t = c->t;
    aa_rt_node *n;
    if (t->depth <= 0)
        return;
    n = aa_rt_node_at(t, t->stack[t->depth - 1].node);
    n->x[AA_RT_X_IO_READ] += rbytes;
    n->x[AA_RT_X_IO_WRITE] += wbytes;
    n->x[AA_RT_X_IO_TIME] += (double)(now - c->t0) / aa_rt_g.ticks_per_sec;
    n->x[AA_RT_X_IO_CALLS] += 1;
}

#define POS(r) ((r) > 0 ? (double)(r) : 0.0)

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
