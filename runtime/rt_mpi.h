/*
 * runtime/rt_mpi.h -- helpers used by the generated PMPI wrappers
 * (build/gen/runtime/mpi_wrappers.c, from runtime/mpi_prototypes.txt by
 * runtime/mpi_gen.pl) and by runtime/mpi.c: entering/leaving a measured MPI
 * call with a recursion guard (MPI calls made inside MPI count once), and
 * byte counts from counts and datatypes.  Private to libautoanalyzer-mpi.
 */
#ifndef AA_RT_MPI_H
#define AA_RT_MPI_H

#include <mpi.h>

#include "runtime/rt_internal.h"

/* Kinds of MPI calls (first column of runtime/mpi_prototypes.txt): each
 * has its own wall-time metric (mpi_<kind>_wall), and the three that move
 * data between processes a byte metric (mpi_<kind>_bytes, sent + received).
 * The kinds partition the calls, so their wall times add up to mpi_wall. */
enum { AA_MPI_P2P, AA_MPI_COLL, AA_MPI_WAIT, AA_MPI_RMA, AA_MPI_IO, AA_MPI_KINDS_ };
static const int aa_mpi_kind_wall[AA_MPI_KINDS_] = {
    AA_RT_X_MPI_P2P_WALL, AA_RT_X_MPI_COLL_WALL, AA_RT_X_MPI_WAIT_WALL, AA_RT_X_MPI_RMA_WALL,
    AA_RT_X_MPI_IO_WALL};
static const int aa_mpi_kind_bytes[AA_MPI_KINDS_] = {
    AA_RT_X_MPI_P2P_BYTES, AA_RT_X_MPI_COLL_BYTES, -1, AA_RT_X_MPI_RMA_BYTES, -1};

typedef struct aa_mpi_call {
    aa_rt_thread *t;
    uint64_t t0;
    double c0;
    double fix; /* the correction of a real read at the start (cpu_fix) */
} aa_mpi_call;

static inline int aa_mpi_begin(aa_mpi_call *c)
{
    aa_rt_thread *t = aa_rt_self;
    if (AA_RT_UNLIKELY(!t)) {
        t = aa_rt_thread_get();
        if (!t)
            return 0;
    }
    if (t->in_mpi || t->in_rt)
        return 0;
    t->in_mpi = 1;
    c->t = t;
    c->t0 = aa_rt_now();
    c->c0 = aa_rt_cpu_at(t, c->t0);
    c->fix = aa_rt_fix_at(t, c->t0);
    return 1;
}

/* A synchronizing call (sync: its wrapper's number; site: its return
 * address) at node n, entered at CPU time c0, taking wall seconds: the
 * node's pairing points and steps (rt_internal.h, AA_RT_X_SYNC_*). */
static inline void aa_mpi_sync_step(aa_rt_thread *t, aa_rt_node *n, int sync, const void *site,
                                    double c0, double wall)
{
    double outside = c0 - t->mpi_cpu_ns - t->io_cpu_ns, w, s;
    uint64_t visit = n->visits + n->untimed;
    int point;
    t->sync_wall += wall;
    if (visit > 1) /* a node entered per step: its first call in each visit */
        point = n->sync_visit != visit;
    else if (n->sync_fn == 0) { /* entered once: the first call's function and site */
        n->sync_fn = sync;
        n->sync_site = site;
        point = 1;
    } else
        point = n->sync_fn == sync && n->sync_site == site;
    if (!point)
        return;
    if (n->sync_have) {
        w = (outside - n->sync_mark) / 1e9;
        s = t->sync_wall - n->sync_tmark;
        if (w < 0)
            w = 0;
        n->x[AA_RT_X_SYNC_STEPS] += 1;
        n->x[AA_RT_X_SYNC_WORK] += w;
        n->x[AA_RT_X_SYNC_WAIT] += s;
        n->x[AA_RT_X_SYNC_WORK_SQ] += w * w;
        n->x[AA_RT_X_SYNC_WAIT_SQ] += s * s;
        n->x[AA_RT_X_SYNC_CROSS] += w * s;
    }
    n->sync_have = 1;
    n->sync_visit = visit;
    n->sync_mark = outside;
    n->sync_tmark = t->sync_wall;
}

/* cls: AA_MPI_P2P..AA_MPI_IO; sync: the wrapper's number for a call that
 * can wait for other processes (blocking collectives, waits, blocking
 * point-to-point: mpi_gen.pl), 0 for others; site: where it was called
 * from (the wrapper's return address).  For the I/O kind, sent =
 * bytes written and recv = bytes read (io_* metrics). */
static inline void aa_mpi_end(aa_mpi_call *c, int cls, int sync, const void *site, double sent,
                              double recv)
{
    aa_rt_thread *t = c->t;
    uint64_t now = aa_rt_now();
    double cpu = aa_rt_cpu_at(t, now);
    double wall = (double)(now - c->t0) / aa_rt_g.ticks_per_sec, fix;
    aa_rt_node *n;
    t->in_mpi = 0;
    n = aa_rt_current_node(t);
    cpu = (cpu - c->c0) / 1e9;
    fix = c->fix + aa_rt_fix_at(t, now);
    if (cpu < 0)
        cpu = 0;
    if (cpu > wall + fix)
        cpu = wall + fix; /* wall plus the misplaced correction: see io.c's io_end */
    if (!n) {
        t->mpi_cpu_ns += cpu * 1e9;
        return;
    }
    /* calls and bytes: the region that makes the call (exact per region) */
    n->x[AA_RT_X_MPI_CALLS] += 1;
    if (aa_mpi_kind_bytes[cls] >= 0)
        n->x[aa_mpi_kind_bytes[cls]] += sent + recv;
    if (cls == AA_MPI_IO) {
        n->x[AA_RT_X_IO_WRITE] += sent;
        n->x[AA_RT_X_IO_READ] += recv;
        n->x[AA_RT_X_IO_CALLS] += 1;
    } else {
        n->x[AA_RT_X_MPI_SENT] += sent;
        n->x[AA_RT_X_MPI_RECV] += recv;
    }
    /* time: the node whose visit is timed (a throttled visit's is its
     * caller's) */
    n = aa_rt_timed_node(t);
    if (sync) /* before this call's CPU counts as MPI: the step's work ends at c0 */
        aa_mpi_sync_step(t, n, sync, site, c->c0, wall);
    t->mpi_cpu_ns += cpu * 1e9;
    n->x[AA_RT_X_MPI_WALL] += wall;
    n->x[AA_RT_X_MPI_CPU] += cpu;
    n->x[AA_RT_X_CPU_FIX] += fix;
    n->x[aa_mpi_kind_wall[cls]] += wall;
    if (cls == AA_MPI_IO)
        n->x[AA_RT_X_IO_TIME] += wall;
}

static inline double aa_mpi_tsize(MPI_Datatype t)
{
    int s = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS || s < 0)
        return 0;
    return (double)s;
}

#define AA_B(count, type) ((count) > 0 ? (double)(count) * aa_mpi_tsize(type) : 0.0)
#define AA_IP(buf) ((const void *)(buf) == (const void *)MPI_IN_PLACE)

static inline int aa_mpi_np(MPI_Comm c)
{
    int n = 0;
    if (c == MPI_COMM_NULL || PMPI_Comm_size(c, &n) != MPI_SUCCESS)
        return 0;
    return n;
}

static inline int aa_mpi_rank(MPI_Comm c)
{
    int r = -1;
    if (c == MPI_COMM_NULL || PMPI_Comm_rank(c, &r) != MPI_SUCCESS)
        return -1;
    return r;
}

#define AA_NP(comm) aa_mpi_np(comm)
#define AA_ROOT(root, comm) ((root) == aa_mpi_rank(comm))

static inline double aa_mpi_sum(const int *counts, int n)
{
    double s = 0;
    int i;
    if (!counts)
        return 0;
    for (i = 0; i < n; i++)
        if (counts[i] > 0)
            s += counts[i];
    return s;
}

static inline double aa_mpi_sumw(const int *counts, const MPI_Datatype *types, int n)
{
    double s = 0;
    int i;
    if (!counts || !types)
        return 0;
    for (i = 0; i < n; i++)
        s += AA_B(counts[i], types[i]);
    return s;
}

#define AA_SUM(counts, n) aa_mpi_sum((counts), (n))
#define AA_SUMW(counts, types, n) aa_mpi_sumw((counts), (types), (n))

/* Bytes actually received, from a status (never MPI_STATUS_IGNORE here:
 * the wrappers substitute their own). */
static inline double aa_mpi_got(const MPI_Status *st, MPI_Datatype t)
{
    int n = 0;
    if (!st || PMPI_Get_count(st, t, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (double)n * aa_mpi_tsize(t);
}
#define AA_GOT(status, type) aa_mpi_got((status), (type))

/* ---- Fortran bindings ----
 * OpenMPI's Fortran sentinels are addresses of common blocks in libmpi
 * (referenced weakly: other MPI libraries name them differently). */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
#define AA_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

static inline void *aa_fbuf(void *b)
{
    if (&mpi_fortran_in_place_ && b == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (&mpi_fortran_bottom_ && b == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return b;
}

static inline int aa_fstatus_ignore(const MPI_Fint *s)
{
    return !s || (&mpi_fortran_status_ignore_ && (const void *)s == (const void *)&mpi_fortran_status_ignore_);
}

static inline int aa_fstatuses_ignore(const MPI_Fint *s)
{
    return !s ||
           (&mpi_fortran_statuses_ignore_ && (const void *)s == (const void *)&mpi_fortran_statuses_ignore_);
}

#endif
