/*
 * runtime/rt_internal.h -- private interface between the parts of the
 * measurement runtime (probes, clocks, counters, I/O interposition, profile
 * output) and the MPI layer (libautoanalyzer-mpi).  Not installed.
 *
 * Symbols named aa_rt_* are exported from libautoanalyzer.so only so that
 * libautoanalyzer-mpi can use them; they are not a user API.
 */
#ifndef AA_RT_INTERNAL_H
#define AA_RT_INTERNAL_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "profile/aa_profile.h"
#include "runtime/aa_probe.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define AA_RT_HAVE_TSC 1
#endif

#define AA_RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define AA_RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define AA_RT_TLS __thread __attribute__((tls_model("initial-exec")))

#define AA_RT_MAX_DEPTH 512      /* open frames per thread; deeper enters are not recorded */
#define AA_RT_THR_MIN_SAMPLE 1000 /* visits an early throttling tier times at least (default) */
#define AA_RT_PLACE_SLOTS 8 /* CPUs a thread's samples tell apart (more: "other") */
#define AA_RT_PACE_SLOTS 256 /* spin times a thread keeps (full: every other one, half as often) */
#define AA_RT_PACE_ITERS 500 /* the spin's dependent additions (about 1 us) */
#define AA_RT_THR_TIERS 20 /* CALLS (at most 1e15) down to a FIRST of at least 1 */
#define AA_RT_CHUNK_SHIFT 8      /* nodes per chunk = 256 */
#define AA_RT_CHUNK (1 << AA_RT_CHUNK_SHIFT)
#define AA_RT_MAX_CHUNKS 4096    /* => at most 1,048,576 nodes per thread */
#define AA_RT_MAX_CTR 8          /* hardware/fake counters */
/* AUTOANALYZER_FORMAT: the form of the profiles written (docs/runtime.md,
 * "Profile format"): auto is binary from AA_RT_BINARY_NPROCS processes on
 * (auto:N from N on) */
enum { AA_RT_FORMAT_AUTO, AA_RT_FORMAT_XML, AA_RT_FORMAT_BINARY };
#define AA_RT_BINARY_NPROCS 1024

enum {
    AA_RT_NODE_THROTTLED = 1u,   /* this calling context is not measured any more */
    AA_RT_NODE_NO_THROTTLE = 2u, /* region refined in round 2: never throttled */
    AA_RT_NODE_PARENT_OK = 4u,   /* entering here abandons no frame (probe.c) */
};

/* Per-node accumulators besides time and counters (attributed to the
 * innermost open node; made inclusive when the profile is built). */
enum {
    AA_RT_X_MPI_WALL, /* seconds */
    AA_RT_X_MPI_CPU,
    AA_RT_X_MPI_CALLS,
    AA_RT_X_MPI_SENT,
    AA_RT_X_MPI_RECV,
    AA_RT_X_IO_READ,
    AA_RT_X_IO_WRITE,
    AA_RT_X_IO_TIME,
    AA_RT_X_IO_CALLS,
    /* MPI wall time and bytes (sent + received) by kind of call; the kind
     * is the first column of runtime/mpi_prototypes.txt */
    AA_RT_X_MPI_P2P_WALL,
    AA_RT_X_MPI_COLL_WALL,
    AA_RT_X_MPI_WAIT_WALL,
    AA_RT_X_MPI_RMA_WALL,
    AA_RT_X_MPI_IO_WALL,
    AA_RT_X_MPI_P2P_BYTES,
    AA_RT_X_MPI_COLL_BYTES,
    AA_RT_X_MPI_RMA_BYTES,
    /* CPU time inside the wrapped I/O calls (kernel copies, directory
     * locks): left out of the process metric as CPU time inside MPI is */
    AA_RT_X_IO_CPU,
    /* what the real CPU clock reads at the starts and ends of the node's
     * MPI and I/O calls corrected the interpolated CPU time by, summed as
     * absolute values: how far its split of CPU time inside/outside the
     * calls can be off */
    AA_RT_X_CPU_FIX,
    /* steps at a synchronizing call site (rt_mpi.h aa_mpi_sync_step): a
     * node's pairing points are its first synchronizing MPI call (blocking
     * collective, wait, blocking point-to-point) in each of its visits --
     * or, while it has been entered once (a time-step loop calling MPI in
     * its body), the calls from the same call site of the first one's
     * function.  Each pairing point after the first adds one step: w = the
     * thread's CPU time outside MPI and I/O calls since the previous point
     * (the step's work), t = the wall time of all the thread's synchronizing
     * calls since then, this one included (the step's waits).  Sums of w,
     * t, w^2, t^2 and w*t: per process, how the wait moves with the step's
     * own work (work that moves between processes from step to step shows
     * as a wait falling as the own work rises) */
    AA_RT_X_SYNC_STEPS,
    AA_RT_X_SYNC_WORK,
    AA_RT_X_SYNC_WAIT,
    AA_RT_X_SYNC_WORK_SQ,
    AA_RT_X_SYNC_WAIT_SQ,
    AA_RT_X_SYNC_CROSS,
    AA_RT_X_COUNT_
};

typedef struct aa_rt_node {
    uint32_t region;      /* registry index (0 = whole program) */
    int32_t parent;       /* node index, -1 for the root */
    int32_t first_child;  /* node index, -1 none */
    int32_t next_sibling; /* node index, -1 none */
    uint32_t flags;
    int32_t self;         /* its own node index */
    int32_t depth;        /* its depth in the tree = its frame's index on the stack */
    uint32_t id;          /* its region's id, known once gated (frames the runtime reopens) */
    uint64_t visits;
    uint64_t wall;        /* inclusive, clock ticks */
    double cpu;           /* inclusive, ns */
    double cpu_sq;        /* sum over visits of the squared CPU time of a visit, ns^2 */
    int32_t sync_fn;      /* the first synchronizing MPI function called here (its
                           * wrapper's number; 0: none yet) ... */
    const void *sync_site; /* ... and its call site (return address) */
    uint64_t sync_visit;  /* the visit of the last pairing point (visits + untimed) */
    int32_t sync_have;    /* a pairing point was marked */
    double sync_mark;     /* the thread's CPU ns outside MPI at the last pairing point */
    double sync_tmark;    /* the thread's synchronizing wall time (s) after it */
    uint64_t untimed;     /* visits after throttling through the runtime (not timed) */
    uint64_t ctr[AA_RT_MAX_CTR];
    double x[AA_RT_X_COUNT_];
    /* throttled children gated at the probe (aa_probe.h): while this node
     * is the innermost open one, aa_runtime_gates_at points here */
    aa_runtime_gates gates;
    int32_t gate_child[AA_RUNTIME_GATES]; /* node index of each gated child */
} aa_rt_node;

typedef struct aa_rt_frame {
    int32_t node;
    uint32_t region;
    int32_t throttled;    /* 1: opened in a throttled context (no clock read);
                           * 2: reopened after the probes stepped into a gated node */
    int32_t user;         /* begun through the user API (not lexical) */
    uint32_t id;          /* the region's id (static-parent checks) */
    uint32_t pad_;
    aa_runtime_gates *gates; /* its node's gates (aa_runtime_gates_at while innermost) */
    uint64_t t_enter;
    double cpu_enter;
    uint64_t ctr_enter[AA_RT_MAX_CTR];
} aa_rt_frame;

typedef struct aa_rt_thread {
    struct aa_rt_thread *next; /* global list of all threads ever seen */
    int id;
    int finished;              /* the thread has exited; its frames are closed */
    pthread_t handle;
    int depth;                 /* open frames; stack[0] is the root */
    int skip;                  /* enters not recorded (paused, too deep) still to exit */
    int skip_ovf;              /* skipping because too deep: every enter is unrecorded */
    int in_rt;                 /* inside the runtime: its own I/O is not counted */
    int in_mpi;                /* inside an MPI wrapper (recursion guard) */
    double mpi_cpu_ns;         /* CPU ns inside measured MPI calls so far (the CPU
                                * time outside them: the steps' work, rt_mpi.h) */
    double sync_wall;          /* s in synchronizing MPI calls so far (the steps' waits) */
    double io_cpu_ns;          /* CPU ns inside measured I/O calls so far (left out of
                                * the steps' work with the MPI calls': the kernel's
                                * page-cache work varies from call to call) */
    int in_io;                 /* inside an I/O wrapper: nested I/O calls (a stdio call
                                * writing through write()) count once */
    /* CPU time interpolation (see docs/runtime.md) */
    uint64_t cpu_w_last;       /* tick of the last real read */
    double cpu_c_last;         /* thread CPU ns at that read */
    double cpu_fix;            /* ns of the last real read's correction of the
                                  interpolation that land in the wrong segment (cpu_fix) */
    uint64_t cpu_at_last;      /* tick of the last estimate or read */
    /* counters */
    uint64_t fake_tick;
    int papi_set;
    uint64_t ctr_last[AA_RT_MAX_CTR]; /* last PAPI reading (for output from other threads) */
    /* diagnostics */
    uint64_t mismatched, overflow, throttled;
    /* placement: the CPUs the thread ran on, sampled at real CPU-time reads
     * at most every place_interval ticks; each sample gets the ticks since
     * the previous one */
    uint64_t place_last;       /* tick of the last sample (0: none yet) */
    int place_cpu[AA_RT_PLACE_SLOTS];        /* CPU + 1 (0: free slot) */
    uint64_t place_ticks[AA_RT_PLACE_SLOTS + 1]; /* by slot; the last: other CPUs */
    /* pace: a fixed spin timed in ticks at the placement samples (probe.c
     * aa_rt_pace_sample), one in pace_stride of them */
    uint32_t pace[AA_RT_PACE_SLOTS];
    int npace;
    uint32_t pace_stride, pace_skip;
    int nnodes;                /* published with release order */
    aa_rt_node *chunks[AA_RT_MAX_CHUNKS];
    aa_rt_frame stack[AA_RT_MAX_DEPTH];
} aa_rt_thread;

/* Registered static region (index = handle). */
typedef struct aa_rt_region {
    uint32_t id, parent;
    int kind;
    int line, col, end_line, end_col;
    const char *name, *function, *file;
    int no_throttle; /* refined in round 2 (AUTOANALYZER_REFINE) */
} aa_rt_region;

typedef struct aa_rt_global {
    int initialized;
    int use_tsc;
    double ticks_per_sec;     /* calibrated at start, refined at output */
    double ns_per_tick;
    uint64_t tsc0;            /* start tick and CLOCK_MONOTONIC ns */
    uint64_t mono0;
    time_t start_time;
    long long run_delay0;     /* ns runnable and not run at start (-1: unknown) */
    uint64_t cpu_interval;    /* ticks */
    uint64_t place_interval;  /* ticks between samples of the CPU a thread runs on */
    uint64_t thr_calls;       /* throttling: calls */
    uint64_t thr_ticks;       /* throttling: mean below this many ticks */
    uint64_t thr_first;       /* visits of the first throttling tier (maybe_throttle) */
    int thr_first_given;      /* ... set by AUTOANALYZER_THROTTLE's third field */
    int thr_ntiers;           /* the tiers from thr_calls down to thr_first: */
    uint64_t thr_tier_calls[AA_RT_THR_TIERS]; /* thr_calls / 10^k */
    uint64_t thr_tier_ticks[AA_RT_THR_TIERS]; /* thr_ticks / 10^k */
    int paused;
    /* counters */
    int nctr;                 /* events configured */
    int nctr_avail;           /* events measured */
    int ctr_backend;          /* 0 none, 1 fake, 2 papi */
    char *ctr_metric[AA_RT_MAX_CTR];
    int ctr_available[AA_RT_MAX_CTR];
    char papi_version[32];
    /* process identity, set by the MPI layer when present */
    int mpi_used;             /* MPI_Init was called */
    int mpi_finalized;
    int rank, nprocs;
    int collect_files;        /* 1: AUTOANALYZER_COLLECT=files */
    int format;               /* AUTOANALYZER_FORMAT: AA_RT_FORMAT_* */
    int binary_from;          /* auto: binary from this many processes on */
    size_t batch_bytes;       /* AUTOANALYZER_COLLECT_BATCH (AA_RT_BATCH_BYTES) */
    char experiment_id[96];
    char outdir[4096];
    char start_cwd[4096];     /* working directory at start (relative outputs) */
    char crash_outdir[4096];  /* the output directory's name computed at start, */
    int crash_outdir_new;     /* for the signal handler; 1: a default name (new) */
    int writing;              /* a profile is being written (not from a handler) */
    char program[256];
    int written;              /* a profile of this process has been written */
    int disabled;             /* AUTOANALYZER_DISABLE: measure and write nothing */
    long pid;                 /* process that initialised the runtime (forks do not write) */
    int failed_once;          /* the one error message was printed */
    /* extra experiment-level attributes from the MPI layer */
    char mpi_library[512];
    char hosts[4096];
} aa_rt_global;

extern aa_rt_global aa_rt_g;

/* output.c: nanoseconds the main thread has been runnable but not running
 * (the scheduler's run delay, /proc/self/schedstat), -1 when unknown */
long long aa_rt_run_delay_ns(void);
extern AA_RT_TLS aa_rt_thread *aa_rt_self;

/* ---- clocks ---------------------------------------------------------------- */
static inline uint64_t aa_rt_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t aa_rt_now(void)
{
#ifdef AA_RT_HAVE_TSC
    if (AA_RT_LIKELY(aa_rt_g.use_tsc))
        return __rdtsc();
#endif
    return aa_rt_mono_ns();
}

static inline double aa_rt_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* probe.c: samples the CPU the thread runs on (placement, above). */
void aa_rt_place_sample(aa_rt_thread *t, uint64_t now);

/* Interpolated thread CPU time (ns) at tick `now` (see docs/runtime.md):
 * between real reads the thread runs at full rate -- a probe runs, so the
 * thread is on a CPU, and time slices are longer than the interval, so
 * time off the CPU ends in a real read.  (The previous interval's rate
 * gave the code after a long MPI wait the wait's rate: a balanced
 * program's 66-us sweeps after each halo exchange showed 10-100% of their
 * CPU time on 4 ranks of 2 cores.) */
static inline double aa_rt_cpu_at(aa_rt_thread *t, uint64_t now)
{
    uint64_t dw = now - t->cpu_w_last;
    if (AA_RT_UNLIKELY(dw >= aa_rt_g.cpu_interval || now < t->cpu_w_last)) {
        double c = aa_rt_thread_cpu_ns();
        if (AA_RT_UNLIKELY(now - t->place_last >= aa_rt_g.place_interval))
            aa_rt_place_sample(t, now);
        /* The correction against what the interpolation would have said
         * (the time the thread was off the CPU in the window) belongs to
         * the whole window but lands in its last segment, from the
         * previous estimate to now: the part that belongs to the window's
         * earlier segments is misplaced. */
        if (now >= t->cpu_w_last && dw > 0 && t->cpu_at_last >= t->cpu_w_last) {
            double seg = (double)(now - t->cpu_at_last) / (double)dw;
            t->cpu_fix = fabs(c - (t->cpu_c_last + aa_rt_g.ns_per_tick * (double)dw)) *
                         (seg < 1 ? 1 - seg : 0);
        } else {
            t->cpu_fix = 0;
        }
        t->cpu_at_last = now;
        t->cpu_w_last = now;
        t->cpu_c_last = c;
        return c;
    }
    t->cpu_at_last = now;
    /* dw < cpu_interval here: the signed conversion is exact and one
     * instruction (the unsigned one is a branch and a dozen) */
    return t->cpu_c_last + aa_rt_g.ns_per_tick * (double)(int64_t)dw;
}

/* The correction (s) of the real read made at tick `at` (an MPI or I/O
 * call's start or end), 0 when the CPU time there was interpolated: the
 * split of a window's CPU time into inside and outside the call is off by
 * up to that much (cpu_fix). */
static inline double aa_rt_fix_at(const aa_rt_thread *t, uint64_t at)
{
    return t->cpu_w_last == at ? t->cpu_fix / 1e9 : 0.0;
}

static inline aa_rt_node *aa_rt_node_at(aa_rt_thread *t, int i)
{
    return &t->chunks[i >> AA_RT_CHUNK_SHIFT][i & (AA_RT_CHUNK - 1)];
}

/* ---- runtime internals ------------------------------------------------------ */
void aa_rt_init(void);
/* aa_runtime_enter for regions begun through the user API, which need not
 * be lexical (they may stay open after the function that began them). */
void aa_rt_enter_user(aa_runtime_region *r);
aa_rt_thread *aa_rt_thread_get(void); /* current thread's state, created if needed */
/* The scope probes step into gated nodes without calling the runtime
 * (aa_probe.h): aa_runtime_gates_at then names a context the stack does not
 * show.  aa_rt_sync makes the stack follow it (reopens the nodes stepped
 * into, closes those stepped out of) before the runtime uses the innermost
 * frame. */
void aa_rt_sync_slow(aa_rt_thread *t, aa_runtime_gates *g);
static inline void aa_rt_sync(aa_rt_thread *t)
{
    aa_runtime_gates *g = aa_runtime_gates_at;
    if (AA_RT_UNLIKELY(g != NULL && t->depth > 0 && g != t->stack[t->depth - 1].gates))
        aa_rt_sync_slow(t, g);
}
/* Innermost open node of the current thread for attributing MPI / I/O
 * calls and bytes; NULL when nothing should be attributed (no state,
 * paused, inside the runtime). */
aa_rt_node *aa_rt_current_node(aa_rt_thread *t);
/* The node that gets the TIME of an MPI or I/O call (the calls and bytes
 * stay with aa_rt_current_node's, exact per region): the innermost open
 * node whose visit reads the clock -- a visit of a throttled context is
 * not timed, its time is its caller's own, so is the time of its calls
 * (HPL's throttled HPL_bcast_1rinM showed more MPI time than wall time, its
 * caller's own code the time without the MPI).  For a thread with a stack
 * (depth > 0), after aa_rt_sync. */
static inline aa_rt_node *aa_rt_timed_node(aa_rt_thread *t)
{
    int d = t->depth - 1;
    while (d > 0 && t->stack[d].throttled)
        d--;
    return aa_rt_node_at(t, t->stack[d].node);
}
void aa_rt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* AUTOANALYZER_<name> holds something it does not take: one line on stderr. */
void aa_rt_setting_warn(const char *name, const char *value, const char *expect,
                        const char *dflt);
void aa_rt_set_clock_calibration(void);

/* counters.c */
static const uint64_t aa_rt_fake_mult[AA_RT_MAX_CTR] = {1000, 500, 10, 200, 2, 10, 1, 1};
void aa_rt_counters_init(void);
void aa_rt_counters_thread_start(aa_rt_thread *t);
void aa_rt_counters_read_slow(aa_rt_thread *t, uint64_t *out);
/* The counts at the thread's last probe, readable from another thread. */
void aa_rt_counters_last(const aa_rt_thread *t, uint64_t *out);
static inline void aa_rt_counters_read(aa_rt_thread *t, uint64_t *out)
{
    if (aa_rt_g.ctr_backend == 1) { /* fake: deterministic per-thread event count */
        uint64_t k = ++t->fake_tick;
        int i;
        for (i = 0; i < aa_rt_g.nctr; i++)
            out[i] = k * aa_rt_fake_mult[i];
    } else {
        aa_rt_counters_read_slow(t, out);
    }
}

/* io.c: forces the interposition object to be linked from the static lib. */
void aa_rt_io_init(void);

/* output.c */
/* Builds this process's profile (open regions closed at this moment). */
aa_experiment *aa_rt_build_experiment(aa_err *err);
/* Writes the profile of this process alone (files mode, crash, non-MPI). */
int aa_rt_write_own_profile(const char *why);
/* Creates the output directory (mkdir -p), fills aa_rt_g.outdir. */
int aa_rt_make_outdir(aa_err *err);
/* Fills aa_rt_g.outdir if empty: AUTOANALYZER_OUTPUT (relative to the
 * starting directory), or a default name that is claimed (made, new). */
int aa_rt_choose_outdir(aa_err *err);
/* The directory name; returns 1 for the default name (see output.c). */
int aa_rt_default_outdir(char *out, size_t n);
/* Writes a profile without ever leaving a temporary file behind: the
 * binary form when path ends in ".aab", else XML. */
int aa_rt_write_experiment(const aa_experiment *e, const char *path, aa_err *err);
/* ".aab" when this run's profiles are binary (AUTOANALYZER_FORMAT, the
 * process count), else ".xml". */
const char *aa_rt_profile_ext(void);
/* Removes DIR/BASE in the other form than ext: a profile just written
 * replaces this rank's (or the run's) profile in the other form. */
void aa_rt_remove_other_form(const char *dir, const char *base, const char *ext);
void aa_rt_new_experiment_id(char *out, size_t n);
void aa_rt_install_signal_handlers(void);

/* crash.c: this process's profile from a fatal-signal handler,
 * async-signal-safe; 0 when written. */
int aa_rt_write_crash_profile(int sig, const char *signame);
extern const char *const aa_rt_x_names[AA_RT_X_COUNT_];
extern const char *const aa_rt_x_units[AA_RT_X_COUNT_];

/* pack.c: compact binary form of a one-process experiment (MPI gather). */
int aa_rt_pack(const aa_experiment *e, aa_buf *b);
/* Merges a packed process into e (regions, metrics by name, process). */
int aa_rt_unpack_merge(aa_experiment *e, const void *data, size_t len, aa_err *err);
/* Rank 0's side of the collection (mpi.c; also bench/rt_collect.c): a new
 * experiment with the header of rank 0's own profile (id, program, nprocs,
 * environment); each rank's pack merged in (a failed one is listed as
 * missing); then `hosts` and `missing_ranks` set.  Batches: the ranks whose
 * packs are received together, about AA_RT_BATCH_BYTES at a time. */
typedef struct aa_rt_merge {
    aa_experiment *e;
    aa_buf missing; /* "3 17 ..." */
} aa_rt_merge;
#define AA_RT_BATCH_BYTES (64u << 20)
#define AA_RT_BATCH_RANKS 4096
int aa_rt_merge_begin(aa_rt_merge *m, const aa_experiment *own, int nprocs);
void aa_rt_merge_pack(aa_rt_merge *m, int rank, const void *data, size_t len);
int aa_rt_merge_finish(aa_rt_merge *m);
void aa_rt_merge_free(aa_rt_merge *m);
/* The end of the batch that starts at rank `from`: at most max_ranks ranks
 * and max_bytes of packs (lens[r] bytes each), at least one rank. */
int aa_rt_batch_end(const int *lens, int nprocs, int from, size_t max_bytes, int max_ranks);

#endif
