/*
 * runtime/probe.c -- the probe hot path and per-thread measurement state.
 *
 * Each thread owns a calling-context tree (node = static region + parent
 * node) stored in fixed-size chunks that never move, and a stack of open
 * frames.  enter/exit read the cycle counter (rdtsc, calibrated against
 * CLOCK_MONOTONIC) and the interpolated thread CPU time (one real
 * CLOCK_THREAD_CPUTIME_ID read per interval, rt_internal.h), plus counters
 * when a backend is active.  After warm-up (every context seen once) the
 * path takes no lock and allocates nothing.  Mismatched exits are repaired
 * when the region is open further down the stack and counted either way;
 * frames deeper than AA_RT_MAX_DEPTH are not recorded.  Also: global
 * initialisation (configuration from the environment, clock calibration),
 * the region registry, thread registration, throttling, pause/resume, and
 * the warning when a multi-rank launch is measured without the MPI library.
 */
#include "runtime/rt_internal.h"
#include "runtime/aa_runtime.h"

#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

aa_rt_global aa_rt_g;
AA_RT_TLS aa_rt_thread *aa_rt_self;
/* the gates of the innermost open node of this thread (aa_probe.h) */
__thread aa_runtime_gates *aa_runtime_gates_at __attribute__((tls_model("initial-exec")));
/* what objects instrumented before the probes stepped into gated nodes
 * read: never set, so their probes always call the runtime */
__thread aa_runtime_gates *aa_runtime_gates_now __attribute__((tls_model("initial-exec")));
/* the gates of every context while AUTOANALYZER_DISABLE is set: a slot no
 * descriptor matches, and `off`, so every scope probe returns at once */
static aa_runtime_gates off_gates = {{(const aa_runtime_region *)&off_gates}, {0}, {NULL}, 1};
static AA_RT_TLS int thread_dead; /* its state was closed by the key destructor */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static aa_rt_region *regions;     /* index 0 = whole program */
static int nregions, capregions;
static aa_rt_thread *threads;     /* list head (atomic) */
static int next_thread_id;
static pthread_key_t thread_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* ---- errors ------------------------------------------------------------------ */
void aa_rt_fail(const char *fmt, ...)
{
    va_list ap;
    aa_rt_thread *t = aa_rt_self;
    int saved = t ? t->in_rt : 0;
    if (__atomic_exchange_n(&aa_rt_g.failed_once, 1, __ATOMIC_RELAXED))
        return;
    if (t) /* the runtime's own message is not the program's I/O */
        t->in_rt = 1;
    fputs("autoanalyzer: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (profiling continues where possible; the program is not affected)\n", stderr);
    if (t)
        t->in_rt = saved;
}

/* ---- clock calibration ------------------------------------------------------ */
static int tsc_invariant(void)
{
#ifdef AA_RT_HAVE_TSC
    unsigned a, b, c, d;
    const char *f = getenv("AUTOANALYZER_CLOCK");
    if (f && strcmp(f, "monotonic") == 0)
        return 0;
    if (f && *f && strcmp(f, "tsc") != 0 && strcmp(f, "auto") != 0)
        aa_rt_setting_warn("AUTOANALYZER_CLOCK", f, "expected monotonic, tsc or auto",
                           "auto: the TSC when invariant");
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a < 0x80000007u)
        return 0;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* One (tick, CLOCK_MONOTONIC) pair read as close together as possible: the
 * tick is read between two monotonic readings and the tightest of a few
 * tries is kept, so a preemption or a VM exit between the two clocks (a
 * loaded node) cannot skew the calibration by its length. */
static void clock_pair(uint64_t *tick, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = aa_rt_mono_ns(), t = aa_rt_now(), b = aa_rt_mono_ns();
        if (b >= a && b - a < best) {
            best = b - a;
            *tick = t;
            *mono = a + (b - a) / 2;
        }
        if (best < 1000)
            break;
    }
    if (best == UINT64_MAX) { /* monotonic went backwards: cannot happen */
        *tick = aa_rt_now();
        *mono = aa_rt_mono_ns();
    }
}

/* Refines ticks_per_sec over the whole run so far (called before output). */
void aa_rt_set_clock_calibration(void)
{
    uint64_t m, t;
    if (!aa_rt_g.use_tsc)
        return;
    clock_pair(&t, &m);
    if (m - aa_rt_g.mono0 > 20000000ull && t > aa_rt_g.tsc0) {
        aa_rt_g.ticks_per_sec = (double)(t - aa_rt_g.tsc0) * 1e9 / (double)(m - aa_rt_g.mono0);
        aa_rt_g.ns_per_tick = 1e9 / aa_rt_g.ticks_per_sec;
    }
}

#ifndef AA_RT_HAVE_TSC
static void clock_setting(void)
{
    const char *f = getenv("AUTOANALYZER_CLOCK");
    if (f && *f && strcmp(f, "monotonic") && strcmp(f, "tsc") && strcmp(f, "auto"))
        aa_rt_setting_warn("AUTOANALYZER_CLOCK", f, "expected monotonic, tsc or auto", "monotonic");
}
#endif

static void calibrate(void)
{
#ifndef AA_RT_HAVE_TSC
    clock_setting();
#endif
    aa_rt_g.use_tsc = tsc_invariant();
    aa_rt_g.mono0 = aa_rt_mono_ns();
    if (!aa_rt_g.use_tsc) {
        aa_rt_g.tsc0 = aa_rt_g.mono0;
        aa_rt_g.ticks_per_sec = 1e9;
        aa_rt_g.ns_per_tick = 1.0;
        return;
    }
    clock_pair(&aa_rt_g.tsc0, &aa_rt_g.mono0);
    uint64_t m, t;
    do { /* 2 ms busy calibration; refined at output over the whole run */
        clock_pair(&t, &m);
    } while (m - aa_rt_g.mono0 < 2000000ull);
    aa_rt_g.ticks_per_sec = (double)(t - aa_rt_g.tsc0) * 1e9 / (double)(m - aa_rt_g.mono0);
    aa_rt_g.ns_per_tick = 1e9 / aa_rt_g.ticks_per_sec;
    if (!(aa_rt_g.ticks_per_sec > 1e6)) { /* nonsense: fall back */
        aa_rt_g.use_tsc = 0;
        aa_rt_g.tsc0 = aa_rt_g.mono0;
        aa_rt_g.ticks_per_sec = 1e9;
        aa_rt_g.ns_per_tick = 1.0;
    }
}

/* ---- configuration ------------------------------------------------------------ */
/* A setting that is not what its variable takes: one warning on stderr
 * (each variable is read once), then the default is used. */
void aa_rt_setting_warn(const char *name, const char *value, const char *expect,
                        const char *dflt)
{
    fprintf(stderr, "autoanalyzer: warning: %s='%s': %s (using %s)\n", name, value, expect, dflt);
}

/* A decimal number in [lo, hi]; 0 when it is one. */
static int parse_range(const char *s, double lo, double hi, double *out)
{
    double v;
    if (aa_parse_double(s, &v) || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* Visits of the first throttling tier: CALLS, CALLS / 10, CALLS / 100, as
 * long as a tier times at least `least` visits (maybe_throttle). */
static uint64_t first_tier(uint64_t calls, uint64_t least, int tiers)
{
    uint64_t first = calls;
    while (tiers-- > 0 && first / 10 >= least && first / 10 > 0)
        first /= 10;
    return first;
}

static void read_throttle(void)
{
    const char *s = getenv("AUTOANALYZER_THROTTLE");
    double calls = 100000, usec = 10, least = -1;
    if (s && *s) {
        char tmp[64];
        char *comma, *comma2 = NULL;
        snprintf(tmp, sizeof tmp, "%s", s);
        comma = strchr(tmp, ',');
        if (comma)
            comma2 = strchr(comma + 1, ',');
        if (strcmp(tmp, "0") == 0 || strcmp(tmp, "off") == 0 || strcmp(tmp, "none") == 0) {
            calls = 0;
        } else {
            double c, u, f = -1;
            if (comma)
                *comma = 0;
            if (comma2)
                *comma2 = 0;
            if (!comma || strlen(s) >= sizeof tmp || parse_range(tmp, 0, 1e15, &c) ||
                parse_range(comma + 1, 0, 1e6, &u) || c != (double)(uint64_t)c ||
                (comma2 && (parse_range(comma2 + 1, 1, c, &f) || f != (double)(uint64_t)f)))
                aa_rt_setting_warn("AUTOANALYZER_THROTTLE", s,
                                   "expected CALLS,USEC[,FIRST] (CALLS a whole number up to 1e15, "
                                   "USEC 0 to 1e6, FIRST a whole number from 1 to CALLS) or 0",
                                   "100000,10");
            else {
                calls = c;
                usec = u;
                least = f;
            }
        }
    }
    aa_rt_g.thr_calls = calls > 0 ? (uint64_t)calls : UINT64_MAX;
    aa_rt_g.thr_ticks = (uint64_t)(usec * 1e-6 * aa_rt_g.ticks_per_sec);
    aa_rt_g.thr_first = aa_rt_g.thr_calls == UINT64_MAX ? UINT64_MAX
                        : least > 0 ? first_tier(aa_rt_g.thr_calls, (uint64_t)least, 64)
                                    : first_tier(aa_rt_g.thr_calls, AA_RT_THR_MIN_SAMPLE, 2);
    aa_rt_g.thr_first_given = least > 0;
    {
        uint64_t c = aa_rt_g.thr_calls, k = aa_rt_g.thr_ticks;
        int n = 0;
        do {
            aa_rt_g.thr_tier_calls[n] = c;
            aa_rt_g.thr_tier_ticks[n++] = k;
            c /= 10;
            k /= 10;
        } while (n < AA_RT_THR_TIERS && aa_rt_g.thr_tier_calls[n - 1] > aa_rt_g.thr_first && c > 0);
        aa_rt_g.thr_ntiers = n;
    }
}

/* AUTOANALYZER_FORMAT: xml, binary, auto (binary from AA_RT_BINARY_NPROCS
 * processes on) or auto:N (from N on). */
static void read_format(void)
{
    const char *s = getenv("AUTOANALYZER_FORMAT");
    double n;
    aa_rt_g.format = AA_RT_FORMAT_AUTO;
    aa_rt_g.binary_from = AA_RT_BINARY_NPROCS;
    if (!s || !*s || strcmp(s, "auto") == 0)
        return;
    if (strcmp(s, "xml") == 0)
        aa_rt_g.format = AA_RT_FORMAT_XML;
    else if (strcmp(s, "binary") == 0)
        aa_rt_g.format = AA_RT_FORMAT_BINARY;
    else if (strncmp(s, "auto:", 5) == 0 && parse_range(s + 5, 1, 1 << 30, &n) == 0 &&
             n == (double)(int)n)
        aa_rt_g.binary_from = (int)n;
    else
        aa_rt_setting_warn("AUTOANALYZER_FORMAT", s,
                           "expected xml, binary, auto or auto:N (binary from N processes on)",
                           "auto");
}

/* AUTOANALYZER_COLLECT_BATCH: bytes of packs rank 0 receives at a time */
static void read_batch(void)
{
    const char *s = getenv("AUTOANALYZER_COLLECT_BATCH");
    double n;
    aa_rt_g.batch_bytes = AA_RT_BATCH_BYTES;
    if (!s || !*s)
        return;
    if (parse_range(s, 1, 1e12, &n) == 0 && n == (double)(size_t)n)
        aa_rt_g.batch_bytes = (size_t)n;
    else
        aa_rt_setting_warn("AUTOANALYZER_COLLECT_BATCH", s,
                           "expected a whole number of bytes from 1 to 1e12", "67108864");
}

static void program_name(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    const char *p = "program";
    if (n > 0) {
        buf[n] = 0;
        p = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
    } else if (program_invocation_short_name) {
        p = program_invocation_short_name;
    }
    snprintf(aa_rt_g.program, sizeof aa_rt_g.program, "%.255s", p);
}

static void thread_destructor(void *arg);
static void read_refine(void);

/* The CPU's pace: the ticks a fixed spin of AA_RT_PACE_ITERS dependent
 * additions takes now.  The same work costs a process on one virtual CPU
 * of an oversubscribed node up to 1.6 times the CPU time it costs on
 * another (the host shares the physical core); a program of one or two
 * regions cannot tell that from work, a spin's median over the run can
 * (bench/pace_probe.c, bench/diagnosis.md thirty-third step).  The median
 * leaves out the spins the thread was preempted in.  Kept in a fixed
 * array: when it is full every other sample is dropped and samples are
 * taken half as often, so the kept ones stay spread over the run.  About
 * 1 us at most once a millisecond (place_interval). */
static AA_RT_TLS volatile double pace_sink; /* per thread: no race between threads */

static void pace_sample(aa_rt_thread *t)
{
    uint64_t a, b;
    double s = 0;
    int i;
    if (t->pace_stride > 1 && ++t->pace_skip < t->pace_stride)
        return;
    t->pace_skip = 0;
    a = aa_rt_now();
    for (i = 0; i < AA_RT_PACE_ITERS; i++)
        s += (double)(i % 5) * 0.25;
    pace_sink = s;
    b = aa_rt_now();
    if (t->npace == AA_RT_PACE_SLOTS) {
        for (i = 0; i < AA_RT_PACE_SLOTS / 2; i++)
            t->pace[i] = t->pace[2 * i + 1];
        t->npace = AA_RT_PACE_SLOTS / 2;
        t->pace_stride = t->pace_stride ? 2 * t->pace_stride : 2;
    }
    t->pace[t->npace++] = b > a ? (b - a > UINT32_MAX ? UINT32_MAX : (uint32_t)(b - a)) : 0;
}

/* The CPU the thread runs on now gets the ticks since the previous sample
 * (a process that stays on one CPU, as the scheduler keeps them, gets all
 * of its time there); the analysis tells processes that shared a CPU
 * (analyze/placement.c).  At most one sample per place_interval (1 ms):
 * a few hundred nanoseconds per millisecond. */
void aa_rt_place_sample(aa_rt_thread *t, uint64_t now)
{
    int cpu = sched_getcpu(), i;
    uint64_t d = t->place_last && now > t->place_last ? now - t->place_last : 0;
    t->place_last = now ? now : 1;
    pace_sample(t);
    if (cpu < 0)
        return;
    for (i = 0; i < AA_RT_PLACE_SLOTS; i++)
        if (t->place_cpu[i] == cpu + 1 || !t->place_cpu[i]) {
            t->place_cpu[i] = cpu + 1;
            t->place_ticks[i] += d;
            return;
        }
    t->place_ticks[AA_RT_PLACE_SLOTS] += d;
}

static void do_init(void)
{
    const char *s;
    double us = 100;
    calibrate();
    aa_rt_g.start_time = time(NULL);
    aa_rt_g.run_delay0 = aa_rt_run_delay_ns();
    s = getenv("AUTOANALYZER_CPU_INTERVAL_US");
    if (s && *s && parse_range(s, 0, 1e7, &us)) {
        aa_rt_setting_warn("AUTOANALYZER_CPU_INTERVAL_US", s,
                           "expected a number of microseconds from 0 to 1e7", "100");
        us = 100;
    }
    aa_rt_g.cpu_interval = (uint64_t)(us * 1e-6 * aa_rt_g.ticks_per_sec);
    aa_rt_g.place_interval = (uint64_t)(1e-3 * aa_rt_g.ticks_per_sec);
    read_throttle();
    read_refine();
    s = getenv("AUTOANALYZER_COLLECT");
    aa_rt_g.collect_files = s && strcmp(s, "files") == 0;
    if (s && *s && strcmp(s, "files") && strcmp(s, "mpi"))
        aa_rt_fail("AUTOANALYZER_COLLECT='%s': expected mpi or files (using mpi)", s);
    read_format();
    read_batch();
    aa_rt_g.rank = 0;
    aa_rt_g.nprocs = 1;
    aa_rt_g.pid = (long)getpid();
    if (!getcwd(aa_rt_g.start_cwd, sizeof aa_rt_g.start_cwd))
        aa_rt_g.start_cwd[0] = 0;
    program_name();
    aa_rt_g.crash_outdir_new =
        aa_rt_default_outdir(aa_rt_g.crash_outdir, sizeof aa_rt_g.crash_outdir);
    aa_rt_new_experiment_id(aa_rt_g.experiment_id, sizeof aa_rt_g.experiment_id);
    pthread_key_create(&thread_key, thread_destructor);
    regions = calloc(64, sizeof *regions);
    if (regions) {
        capregions = 64;
        nregions = 1;
        regions[0].kind = AA_KIND_PROGRAM;
        regions[0].name = aa_rt_g.program;
        regions[0].function = "";
        regions[0].file = "";
    }
    s = getenv("AUTOANALYZER_DISABLE");
    if (s && *s && strcmp(s, "0") != 0) {
        /* measure nothing, write nothing (every rank sees the same setting,
         * so the MPI collection is skipped everywhere) */
        aa_rt_g.paused = 1;
        aa_rt_g.written = 1;
        aa_rt_g.disabled = 1;
        aa_rt_g.ctr_backend = 0;
        aa_rt_io_init();
        __atomic_store_n(&aa_rt_g.initialized, 1, __ATOMIC_RELEASE);
        return;
    }
    aa_rt_counters_init();
    aa_rt_io_init();
    __atomic_store_n(&aa_rt_g.initialized, 1, __ATOMIC_RELEASE);
}

void aa_rt_init(void)
{
    pthread_once(&init_once, do_init);
}

/* Rank and size of a multi-process launch from the launcher's environment
 * (Open MPI, MPICH/Intel MPI hydra, an srun job step); 0 when none. */
static int launch_rank_size(long *rank, long *size)
{
    static const char *const vars[][2] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, /* Open MPI mpirun/prterun */
        {"PMI_RANK", "PMI_SIZE"},                         /* MPICH, Intel MPI (hydra) */
        {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},         /* srun (not an sbatch script) */
    };
    size_t i;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *r = getenv(vars[i][0]), *n = getenv(vars[i][1]);
        char *end;
        if (!r || !n || !*r || !*n)
            continue;
        *rank = strtol(r, &end, 10);
        if (*end)
            continue;
        *size = strtol(n, &end, 10);
        if (*end)
            continue;
        return 1;
    }
    return 0;
}

/* A process of a multi-rank launch whose MPI_Init was never intercepted
 * (libautoanalyzer-mpi not linked, or dropped by --as-needed) measures
 * itself alone: say so once per launch, from its rank 0, on stderr. */
static void warn_unmeasured_ranks(void)
{
    long rank = 0, size = 0;
    if ((long)getpid() != aa_rt_g.pid || !launch_rank_size(&rank, &size) || size < 2 || rank != 0)
        return; /* forked children, single processes and other ranks stay quiet */
    fprintf(stderr,
            "autoanalyzer: warning: %s runs as %ld processes, but MPI_Init was not intercepted "
            "(libautoanalyzer-mpi is not linked, or MPI_Init was never called): each "
            "process's profile covers that process only; link through the wrapper "
            "(autoanalyzer cc mpicc), `pkg-config --libs autoanalyzer-mpi` or CMake's "
            "AutoAnalyzer::mpi\n",
            aa_rt_g.program, size);
}

static void atexit_handler(void)
{
    aa_rt_thread *t = aa_rt_self;
    if (aa_rt_g.written)
        return;
    if (aa_rt_g.mpi_used && !aa_rt_g.mpi_finalized) {
        aa_rt_write_own_profile("exit() before MPI_Finalize");
    } else if (!aa_rt_g.mpi_used) {
        warn_unmeasured_ranks();
        aa_rt_write_own_profile(NULL);
    }
    (void)t;
}

__attribute__((constructor)) static void aa_rt_constructor(void)
{
    aa_rt_init();
    aa_rt_thread_get(); /* the main thread is thread 0 */
    atexit(atexit_handler);
    aa_rt_install_signal_handlers();
}

/* ---- regions refined in round 2: never throttled ------------------------------ */
/* A round-2 build flags the regions it refined (AA_RUNTIME_REFINED in the
 * descriptor's kind; aa_runtime_enter_refined_f in Fortran).
 * AUTOANALYZER_REFINE names, at run time, the round-1 analysis a build was
 * refined from (the file `autoanalyzer cc` and `instrument --refine` read:
 * analysis JSON, analysis XML or a list of region ids/names, one per line)
 * -- for objects built before the flag, or to exempt more regions.  The
 * regions flagged or named, and every region inside them (same function,
 * or a static parent that is refined), are never throttled. */
static char **refine_tok;
static int nrefine;
static int any_refined; /* some region registered is never throttled */

static void refine_add(const char *tok, size_t n)
{
    char **nt;
    char *c;
    if (n == 0 || n > 255)
        return;
    nt = realloc(refine_tok, (size_t)(nrefine + 1) * sizeof *nt);
    if (!nt)
        return;
    refine_tok = nt;
    if (!(c = malloc(n + 1)))
        return;
    memcpy(c, tok, n);
    c[n] = 0;
    refine_tok[nrefine++] = c;
}

/* The value after every `key` (a quoted string or a bare word). */
static void refine_scan(const char *data, const char *key)
{
    const char *q = data;
    size_t kl = strlen(key);
    while ((q = strstr(q, key)) != NULL) {
        const char *b;
        q += kl;
        while (*q == ' ' || *q == '\t' || *q == ':' || *q == '=')
            q++;
        if (*q == '"' || *q == '\'') {
            char quote = *q++;
            for (b = q; *q && *q != quote; q++)
                ;
        } else {
            for (b = q; *q && (isalnum((unsigned char)*q) || *q == '_' || *q == '@'); q++)
                ;
        }
        refine_add(b, (size_t)(q - b));
    }
}

static void read_refine(void)
{
    const char *path = getenv("AUTOANALYZER_REFINE");
    FILE *fp;
    char *data;
    size_t len = 0, cap = 65536, k;
    const char *q;
    if (!path || !*path)
        return;
    if (!(fp = fopen(path, "r"))) {
        aa_rt_fail("AUTOANALYZER_REFINE='%s': %s (no region is protected from throttling)", path,
                   strerror(errno));
        return;
    }
    data = malloc(cap + 1);
    while (data) {
        size_t got = fread(data + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
        if (len == cap) {
            char *nd = cap < (64u << 20) ? realloc(data, cap * 2 + 1) : NULL;
            if (!nd)
                break;
            data = nd;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!data)
        return;
    data[len] = 0;
    for (q = data; *q && isspace((unsigned char)*q); q++)
        ;
    if (*q == '{' || *q == '[') {
        refine_scan(data, "\"region\"");
    } else if (*q == '<') {
        refine_scan(data, " region=");
    } else {
        char *line = data, *nl;
        for (; line && *line; line = nl ? nl + 1 : NULL) {
            nl = strchr(line, '\n');
            while (*line == ' ' || *line == '\t')
                line++;
            if (*line == '#')
                continue;
            for (k = 0; line[k] && !isspace((unsigned char)line[k]); k++)
                ;
            refine_add(line, k);
        }
    }
    free(data);
}

static int refine_names(const char *s, uint32_t id)
{
    int i;
    char num[32];
    snprintf(num, sizeof num, "%u", id);
    for (i = 0; i < nrefine; i++) {
        const char *tok = refine_tok[i];
        if ((s && *s && strcmp(tok, s) == 0) || (!s && strcmp(tok, num) == 0))
            return 1;
        if (!s && (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) &&
            strtoul(tok, NULL, 16) == id)
            return 1;
    }
    return 0;
}

/* Called under reg_lock for a region being registered at index h: named
 * by AUTOANALYZER_REFINE, or inside a refined region (named there or
 * flagged by the build, AA_RUNTIME_REFINED). */
static int refined_region(int h)
{
    const aa_rt_region *r = &regions[h];
    int i;
    if (nrefine &&
        (refine_names(NULL, r->id) || refine_names(r->name, 0) || refine_names(r->function, 0)))
        return 1;
    if (!any_refined)
        return 0;
    for (i = 1; i < h; i++) /* a refined static parent or enclosing function */
        if (regions[i].no_throttle &&
            (regions[i].id == r->parent ||
             (regions[i].kind == AA_KIND_FUNCTION && strcmp(regions[i].name, r->function) == 0)))
            return 1;
    return 0;
}

/* ---- region registry ----------------------------------------------------------- */
static int register_region(aa_runtime_region *r)
{
    int i, h = -1, kind;
    aa_rt_init();
    pthread_mutex_lock(&reg_lock);
    h = __atomic_load_n(&r->handle, __ATOMIC_ACQUIRE);
    if (h > 0)
        goto out;
    for (i = 1; i < nregions; i++)
        if (regions[i].id == r->id) {
            h = i;
            break;
        }
    if (h <= 0) {
        if (!regions)
            goto out;
        if (nregions == capregions) {
            /* readers index regions only at output time, under the lock */
            aa_rt_region *n = realloc(regions, (size_t)capregions * 2 * sizeof *n);
            if (!n) {
                aa_rt_fail("out of memory registering region %u", r->id);
                h = -1;
                goto out;
            }
            regions = n;
            capregions *= 2;
        }
        h = nregions++;
        regions[h].id = r->id;
        regions[h].parent = r->parent;
        kind = r->kind & ~AA_RUNTIME_REFINED;
        regions[h].kind = (kind >= 1 && kind < AA_KIND_COUNT_) ? kind : AA_KIND_USER;
        regions[h].line = r->line > 0 ? r->line : 0;
        regions[h].col = r->col > 0 ? r->col : 0;
        regions[h].end_line = r->end_line > 0 ? r->end_line : 0;
        regions[h].end_col = r->end_col > 0 ? r->end_col : 0;
        regions[h].name = r->name ? r->name : "";
        regions[h].function = r->function ? r->function : "";
        regions[h].file = r->file ? r->file : "";
        regions[h].no_throttle = (r->kind & AA_RUNTIME_REFINED) || refined_region(h);
        if (regions[h].no_throttle)
            __atomic_store_n(&any_refined, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&r->handle, h, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&reg_lock);
    return h;
}

/* The registry as it is, without the lock (the fatal-signal handler). */
const aa_rt_region *aa_rt_regions_raw(int *n)
{
    *n = __atomic_load_n(&nregions, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&regions, __ATOMIC_ACQUIRE);
}

/* Copies the registry out (for the profile) under the lock. */
int aa_rt_regions_snapshot(aa_rt_region **out)
{
    int n;
    pthread_mutex_lock(&reg_lock);
    n = nregions;
    *out = malloc((size_t)(n ? n : 1) * sizeof **out);
    if (*out)
        memcpy(*out, regions, (size_t)n * sizeof **out);
    else
        n = 0;
    pthread_mutex_unlock(&reg_lock);
    return n;
}

aa_rt_thread *aa_rt_threads_head(void)
{
    return __atomic_load_n(&threads, __ATOMIC_ACQUIRE);
}

/* ---- nodes ------------------------------------------------------------------------ */
static int new_node(aa_rt_thread *t, uint32_t region, int parent)
{
    int i = t->nnodes;
    aa_rt_node *n;
    if ((i >> AA_RT_CHUNK_SHIFT) >= AA_RT_MAX_CHUNKS)
        return -1;
    if (!t->chunks[i >> AA_RT_CHUNK_SHIFT]) {
        aa_rt_node *c = calloc(AA_RT_CHUNK, sizeof *c);
        if (!c)
            return -1;
        __atomic_store_n(&t->chunks[i >> AA_RT_CHUNK_SHIFT], c, __ATOMIC_RELEASE);
    }
    n = aa_rt_node_at(t, i);
    memset(n, 0, sizeof *n);
    n->region = region;
    n->parent = parent;
    n->self = i;
    n->depth = parent >= 0 ? aa_rt_node_at(t, parent)->depth + 1 : 0;
    /* refined (by the build or AUTOANALYZER_REFINE): the region itself, or a loop or call
     * site whose enclosing node is refined -- a lexical region's calling
     * context parent is a region of its own function, so this is the static
     * rule where the descriptor names no parent (Fortran's probes pass an
     * id and a name only: round 2's new inner DO loop was throttled) */
    if (__atomic_load_n(&any_refined, __ATOMIC_RELAXED) && region > 0) {
        pthread_mutex_lock(&reg_lock);
        if ((int)region < nregions &&
            (regions[region].no_throttle ||
             ((regions[region].kind == AA_KIND_LOOP || regions[region].kind == AA_KIND_CALL) &&
              parent >= 0 && (aa_rt_node_at(t, parent)->flags & AA_RT_NODE_NO_THROTTLE))))
            n->flags |= AA_RT_NODE_NO_THROTTLE;
        pthread_mutex_unlock(&reg_lock);
    }
    n->first_child = -1;
    n->next_sibling = -1;
    if (parent >= 0) {
        aa_rt_node *p = aa_rt_node_at(t, parent);
        n->next_sibling = p->first_child;
        p->first_child = i;
    }
    __atomic_store_n(&t->nnodes, i + 1, __ATOMIC_RELEASE);
    return i;
}

static inline int child_node(aa_rt_thread *t, int parent, uint32_t region)
{
    aa_rt_node *p = aa_rt_node_at(t, parent);
    int c;
    for (c = p->first_child; c >= 0;) {
        aa_rt_node *n = aa_rt_node_at(t, c);
        if (n->region == region)
            return c;
        c = n->next_sibling;
    }
    return new_node(t, region, parent);
}

/* Points the probes' gate check at the innermost open node of t (none
 * while enters are not recorded).  Called wherever depth or skip change. */
static inline void gates_follow(aa_rt_thread *t)
{
    aa_runtime_gates_at =
        AA_RT_UNLIKELY(t->skip || t->depth <= 0) ? NULL : t->stack[t->depth - 1].gates;
}

/* ---- threads ------------------------------------------------------------------------ */
static void close_frame(aa_rt_thread *t, aa_rt_frame *f, uint64_t now, double cpu, const uint64_t *ctr);

static void thread_destructor(void *arg)
{
    aa_rt_thread *t = arg;
    uint64_t now;
    double cpu;
    uint64_t ctr[AA_RT_MAX_CTR];
    if (!t || t->finished)
        return;
    now = aa_rt_now();
    cpu = aa_rt_thread_cpu_ns();
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, ctr);
    while (t->depth > 0)
        close_frame(t, &t->stack[--t->depth], now, cpu, ctr);
    __atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
    aa_rt_self = NULL;
    aa_runtime_gates_at = NULL;
    thread_dead = 1; /* probes from later TLS destructors are ignored */
}

aa_rt_thread *aa_rt_thread_get(void)
{
    aa_rt_thread *t = aa_rt_self;
    if (AA_RT_LIKELY(t != NULL))
        return t;
    if (thread_dead)
        return NULL;
    aa_rt_init();
    t = calloc(1, sizeof *t);
    if (!t) {
        aa_rt_fail("out of memory for a thread's measurement state");
        return NULL;
    }
    t->in_rt = 1;
    aa_rt_self = t;
    t->handle = pthread_self();
    t->id = __atomic_fetch_add(&next_thread_id, 1, __ATOMIC_RELAXED);
    if (new_node(t, 0, -1) != 0) {
        aa_rt_self = NULL;
        free(t);
        aa_rt_fail("out of memory for a thread's measurement state");
        return NULL;
    }
    aa_rt_counters_thread_start(t);
    t->stack[0].node = 0;
    t->stack[0].region = 0;
    t->stack[0].gates = &aa_rt_node_at(t, 0)->gates;
    t->stack[0].t_enter = aa_rt_now();
    t->cpu_w_last = t->stack[0].t_enter;
    t->cpu_c_last = aa_rt_thread_cpu_ns();
    t->stack[0].cpu_enter = t->cpu_c_last;
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, t->stack[0].ctr_enter);
    aa_rt_node_at(t, 0)->visits = 1;
    t->depth = 1;
    gates_follow(t);
    pthread_setspecific(thread_key, t);
    t->next = __atomic_load_n(&threads, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&threads, &t->next, t, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    t->in_rt = 0;
    return t;
}

aa_rt_node *aa_rt_current_node(aa_rt_thread *t)
{
    if (!t || t->in_rt || __atomic_load_n(&aa_rt_g.paused, __ATOMIC_RELAXED) || t->depth <= 0)
        return NULL;
    aa_rt_sync(t);
    return aa_rt_node_at(t, t->stack[t->depth - 1].node);
}

/* ---- the probes --------------------------------------------------------------------- */
/* A longjmp (or an exception) that left instrumented functions without
 * their exits leaves their frames open.  A loop or call region (not a
 * function: any function may call another) lies
 * lexically inside its static parent region (aa_runtime_region.parent),
 * so when it is entered, every frame opened after the innermost open frame
 * of that parent has been left already: if the parent is open but not
 * innermost, the frames above it are abandoned.  They are closed now, each
 * counted as a mismatched exit, and the region nests where it runs.  A
 * frame begun through the user API (which need not be lexical) stops the
 * search.  Once a context is known to be fine (the parent innermost, not
 * open at all, or hidden by a user frame) its node is flagged and not
 * searched again.  Returns 1 when frames were closed. */
static int close_abandoned(aa_rt_thread *t, uint32_t parent)
{
    uint64_t now;
    double cpu;
    uint64_t ctr[AA_RT_MAX_CTR];
    int k;
    for (k = t->depth - 1; k >= 1; k--) {
        if (t->stack[k].user)
            return 0;
        if (t->stack[k].id == parent)
            break;
    }
    if (k < 1 || k == t->depth - 1)
        return 0;
    now = aa_rt_now();
    cpu = aa_rt_cpu_at(t, now);
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, ctr);
    while (t->depth > k + 1) {
        t->depth--;
        t->mismatched++;
        close_frame(t, &t->stack[t->depth], now, cpu, ctr);
    }
    gates_follow(t);
    return 1;
}

/* The scope probes stepped into gated nodes (or back out of them) without
 * the runtime: g, the gates they point at, belong to a node whose nearest
 * ancestor on the stack (a node's depth in the tree is its frame's index)
 * is where the stack and the probes still agree.  Frames above it were
 * left: those the runtime reopened earlier are dropped, others (left by a
 * longjmp) are closed as mismatched exits.  The nodes between it and g's
 * node are reopened as throttled frames, so that what the runtime records
 * next (a measured child, an MPI or I/O call) nests where it runs.  Their
 * visits were counted at the probe. */
void aa_rt_sync_slow(aa_rt_thread *t, aa_runtime_gates *g)
{
    aa_rt_node *m;
    int chain[AA_RT_MAX_DEPTH];
    int nc = 0, k = -1, c;
    if (g->off)
        return;
    m = (aa_rt_node *)(void *)((char *)g - offsetof(aa_rt_node, gates));
    for (c = m->self; c >= 0 && nc < AA_RT_MAX_DEPTH;) {
        aa_rt_node *n = aa_rt_node_at(t, c);
        if (n->depth < t->depth && t->stack[n->depth].node == c) {
            k = n->depth;
            break;
        }
        chain[nc++] = c;
        c = n->parent;
    }
    if (k < 0) { /* not under this thread's stack (cannot happen): follow the stack */
        t->overflow++;
        gates_follow(t);
        return;
    }
    if (t->depth > k + 1) {
        uint64_t now = 0;
        double cpu = 0;
        uint64_t ctr[AA_RT_MAX_CTR];
        int read = 0;
        while (t->depth > k + 1) {
            aa_rt_frame *f = &t->stack[--t->depth];
            if (f->throttled == 2) /* reopened here: nothing to close */
                continue;
            t->mismatched++;
            if (!read && !f->throttled) {
                now = aa_rt_now();
                cpu = aa_rt_cpu_at(t, now);
                if (aa_rt_g.nctr_avail)
                    aa_rt_counters_read(t, ctr);
                read = 1;
            }
            close_frame(t, f, now, cpu, ctr);
        }
    }
    while (nc > 0 && t->depth < AA_RT_MAX_DEPTH) {
        aa_rt_node *n = aa_rt_node_at(t, chain[--nc]);
        aa_rt_frame *f = &t->stack[t->depth++];
        f->node = n->self;
        f->region = n->region;
        f->id = n->id;
        f->user = 0;
        f->throttled = 2;
        f->gates = &n->gates;
    }
    if (nc > 0)
        t->overflow++; /* deeper than the stack: the rest nests higher */
    gates_follow(t);
}

static inline int find_child(aa_rt_thread *t, int parent, uint32_t region)
{
    int c;
    for (c = aa_rt_node_at(t, parent)->first_child; c >= 0;) {
        aa_rt_node *n = aa_rt_node_at(t, c);
        if (n->region == region)
            return c;
        c = n->next_sibling;
    }
    return -1;
}

static inline __attribute__((always_inline)) void enter_at(aa_runtime_region *r, int user)
{
    aa_rt_thread *t;
    aa_rt_frame *f;
    aa_rt_node *n;
    int h, d, c, parent_ok = 0;
    t = aa_rt_self;
    if (AA_RT_UNLIKELY(!t)) {
        t = aa_rt_thread_get();
        if (!t)
            return;
    }
    if (AA_RT_UNLIKELY(t->skip | __atomic_load_n(&aa_rt_g.paused, __ATOMIC_RELAXED) | t->in_rt)) {
        if (aa_rt_g.disabled) {
            /* nothing is ever recorded: stop the scope probes at the gates
             * (enter/exit pairs still come here, and return at once) */
            aa_runtime_gates_at = &off_gates;
            return;
        }
        aa_rt_sync(t); /* the context of the frames not recorded, for after them */
        t->skip++;
        if (t->skip_ovf) /* deeper still: not recorded either */
            t->overflow++;
        aa_runtime_gates_at = NULL;
        return;
    }
    h = __atomic_load_n(&r->handle, __ATOMIC_ACQUIRE);
    if (AA_RT_UNLIKELY(h <= 0)) {
        h = register_region(r);
        if (h <= 0) {
            t->skip++;
            aa_runtime_gates_at = NULL;
            return;
        }
    }
    d = t->depth;
    if (AA_RT_UNLIKELY(d > 0 && aa_runtime_gates_at != t->stack[d - 1].gates)) {
        aa_rt_sync(t); /* the probes stepped into (or out of) gated nodes */
        d = t->depth;
    }
    if (AA_RT_UNLIKELY(r->parent != 0 && d > 1 && t->stack[d - 1].id != r->parent && !user &&
                       (r->kind == AA_KIND_LOOP || r->kind == AA_KIND_CALL))) {
        c = find_child(t, t->stack[d - 1].node, (uint32_t)h);
        if (c < 0 || !(aa_rt_node_at(t, c)->flags & AA_RT_NODE_PARENT_OK)) {
            if (close_abandoned(t, r->parent))
                d = t->depth;
            else
                parent_ok = 1;
        }
    }
    if (AA_RT_UNLIKELY(d >= AA_RT_MAX_DEPTH || d <= 0)) {
        t->overflow++;
        t->skip++;
        t->skip_ovf = 1;
        aa_runtime_gates_at = NULL;
        return;
    }
    c = child_node(t, t->stack[d - 1].node, (uint32_t)h);
    if (AA_RT_UNLIKELY(c < 0)) {
        t->overflow++;
        t->skip++;
        t->skip_ovf = 1;
        aa_runtime_gates_at = NULL;
        return;
    }
    n = aa_rt_node_at(t, c);
    if (AA_RT_UNLIKELY(parent_ok))
        n->flags |= AA_RT_NODE_PARENT_OK;
    f = &t->stack[d];
    f->node = c;
    f->region = (uint32_t)h;
    f->id = r->id;
    f->user = user;
    t->depth = d + 1;
    aa_runtime_gates_at = f->gates = &n->gates;
    if (AA_RT_UNLIKELY(n->flags & AA_RT_NODE_THROTTLED)) {
        /* this calling context is throttled: the frame keeps the stack
         * (and the matching of exits) right, but reads no clock */
        f->throttled = 1;
        n->untimed++;
        return;
    }
    f->throttled = 0;
    n->visits++;
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, f->ctr_enter);
    /* The CPU clock first, the region's start after it: the periodic real
     * thread-CPU-clock read is a system call, and on a loaded CPU the
     * return from a system call is where the thread is descheduled.  Read
     * after the start, the whole time off the CPU would be charged to this
     * region (a short helper showing seconds of wall time and no CPU);
     * read before, it stays in the enclosing interval where it happened.
     * At the exit the end is read first and the clock after (close_frame's
     * callers), for the same reason. */
    {
        uint64_t pre = aa_rt_now();
        f->cpu_enter = aa_rt_cpu_at(t, pre);
        f->t_enter = AA_RT_UNLIKELY(t->cpu_w_last == pre) ? aa_rt_now() : pre;
    }
}

void aa_runtime_enter(aa_runtime_region *r)
{
    enter_at(r, 0);
}

void aa_rt_enter_user(aa_runtime_region *r)
{
    enter_at(r, 1);
}

/* The node of frame f: its gates are that node's (f->gates ==
 * &aa_rt_node_at(t, f->node)->gates wherever a frame is opened), one
 * subtraction instead of the chunk lookup. */
static inline aa_rt_node *frame_node(const aa_rt_frame *f)
{
    return (aa_rt_node *)(void *)((char *)f->gates - offsetof(aa_rt_node, gates));
}

static inline __attribute__((always_inline)) void close_frame_at(aa_rt_thread *t, aa_rt_frame *f,
                                                                  uint64_t now, double cpu,
                                                                  const uint64_t *ctr)
{
    aa_rt_node *n = frame_node(f);
    uint64_t w;
    double c;
    int i;
    (void)t;
    if (f->throttled)
        return; /* opened in a throttled context: nothing was started */
    w = now > f->t_enter ? now - f->t_enter : 0;
    n->wall += w;
    c = cpu - f->cpu_enter;
    if (c < 0)
        c = 0;
    /* cpu <= wall is enforced per node at output, with the calibration
     * refined over the whole run: the 2 ms start calibration is not exact
     * enough to clamp a busy region against (0.3% off = 0.5 ms in 150 ms) */
    n->cpu += c;
    n->cpu_sq += c * c;
    if (aa_rt_g.nctr_avail)
        for (i = 0; i < aa_rt_g.nctr; i++)
            n->ctr[i] += ctr[i] - f->ctr_enter[i];
}

/* close_frame_at out of line (the exits on the probes' path inline it) */
static void close_frame(aa_rt_thread *t, aa_rt_frame *f, uint64_t now, double cpu, const uint64_t *ctr)
{
    close_frame_at(t, f, now, cpu, ctr);
}

/* TAU-like throttling, per calling context: a node that has had at least
 * thr_calls visits averaging under thr_ticks is not measured any more in
 * this thread (its later frames read no clock); the same region in another
 * context, or in another thread, goes on being measured.  Tiers before
 * that: a tenth of the visits averaging under a tenth of the time, and a
 * hundredth under a hundredth (each tier timing at least
 * AA_RT_THR_MIN_SAMPLE visits): with the default 100000,10, a node of
 * under 1 us is throttled after 10,000 visits and one of under 100 ns
 * after 1,000, where the probe pair (~20 ns) would cost it more than 2%
 * -- the first 100,000 timed visits of each such node were most of what
 * throttling left of the measurement's cost on short runs.  Nodes of regions
 * refined in round 2 (AUTOANALYZER_REFINE) are never throttled.  The node
 * is flagged in the profile: its values are partial.
 *
 * A throttled node of a lexical region is also gated in its parent node,
 * when the parent's gates have a free slot: its descriptor, a count and
 * its own gates take the slot, so that the inline scope probe
 * (aa_runtime_enter_scope) of the region, while the parent is the
 * innermost open node, only counts the visit and steps into the node's
 * gates (where its own gated children are) without calling the runtime.
 * Its other children (measured ones), and its MPI and I/O calls, find the
 * node on the stack again (aa_rt_sync).  Probes that call the runtime
 * (enter/exit pairs, Fortran, old objects) keep the throttled frame path
 * above; both ways the visits after throttling are counted
 * (untimed_visits in the profile). */
static void gate(aa_rt_thread *t, int node, aa_runtime_region *r)
{
    aa_rt_node *n = aa_rt_node_at(t, node), *p = aa_rt_node_at(t, n->parent);
    int used = 0;
    while (used < AA_RUNTIME_GATES && p->gates.region[used])
        used++;
    if (used == AA_RUNTIME_GATES)
        return;
    n->id = r->id;
    p->gate_child[used] = node;
    p->gates.inner[used] = &n->gates;
    p->gates.region[used] = r;
}

static void maybe_throttle(aa_rt_thread *t, aa_rt_frame *f, aa_runtime_region *r)
{
    aa_rt_node *n = frame_node(f);
    int k = 0;
    if (n->visits < aa_rt_g.thr_first || f->node == 0 || (n->flags & AA_RT_NODE_NO_THROTTLE))
        return;
    /* an earlier tier: a tenth of the visits, a tenth of the time (the
     * tiers are computed once, read_throttle) */
    while (k + 1 < aa_rt_g.thr_ntiers && n->visits < aa_rt_g.thr_tier_calls[k])
        k++;
    if (n->wall >= n->visits * aa_rt_g.thr_tier_ticks[k])
        return;
    n->flags |= AA_RT_NODE_THROTTLED;
    t->throttled++;
    if (!f->user && n->parent >= 0)
        gate(t, f->node, r);
}

static void exit_mismatch(aa_rt_thread *t, uint32_t h)
{
    int k;
    uint64_t now;
    double cpu;
    uint64_t ctr[AA_RT_MAX_CTR];
    t->mismatched++;
    for (k = t->depth - 1; k >= 1; k--)
        if (t->stack[k].region == h)
            break;
    if (k < 1)
        return; /* not open at all: ignored */
    now = aa_rt_now();
    cpu = aa_rt_cpu_at(t, now);
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, ctr);
    while (t->depth > k)
        close_frame(t, &t->stack[--t->depth], now, cpu, ctr);
    gates_follow(t);
}

void aa_runtime_exit(aa_runtime_region *r)
{
    aa_rt_thread *t = aa_rt_self;
    aa_rt_frame *f;
    uint64_t now;
    uint64_t ctr[AA_RT_MAX_CTR];
    int d, h;
    if (AA_RT_UNLIKELY(!t))
        return;
    if (AA_RT_UNLIKELY(t->skip)) {
        if (--t->skip == 0) {
            t->skip_ovf = 0;
            gates_follow(t);
        }
        return;
    }
    d = t->depth;
    h = __atomic_load_n(&r->handle, __ATOMIC_RELAXED);
    f = &t->stack[d > 0 ? d - 1 : 0];
    if (AA_RT_UNLIKELY(d <= 1 || h <= 0 || f->region != (uint32_t)h)) {
        /* frames the runtime reopened inside r may still be above it
         * (the probes stepped out of them): drop them first */
        aa_rt_sync(t);
        d = t->depth;
        f = &t->stack[d > 0 ? d - 1 : 0];
        if (AA_RT_UNLIKELY(d <= 1 || h <= 0)) {
            if (!aa_rt_g.disabled) /* disabled: the enter was not recorded either */
                t->mismatched++;
            return;
        }
        if (AA_RT_UNLIKELY(f->region != (uint32_t)h)) {
            exit_mismatch(t, (uint32_t)h);
            return;
        }
    }
    t->depth = d - 1;
    aa_runtime_gates_at = t->stack[d - 2].gates;
    if (AA_RT_UNLIKELY(f->throttled))
        return;
    now = aa_rt_now();
    if (aa_rt_g.nctr_avail)
        aa_rt_counters_read(t, ctr);
    close_frame_at(t, f, now, aa_rt_cpu_at(t, now), ctr);
    if (AA_RT_UNLIKELY(frame_node(f)->visits >= aa_rt_g.thr_first))
        maybe_throttle(t, f, r);
}

void aa_runtime_scope_end(aa_runtime_region **r)
{
    if (r && *r)
        aa_runtime_exit(*r);
}

/* ---- pause / resume ------------------------------------------------------------------ */
void aa_runtime_pause(void)
{
    __atomic_store_n(&aa_rt_g.paused, 1, __ATOMIC_RELAXED);
}

void aa_runtime_resume(void)
{
    if (aa_rt_g.disabled)
        return;
    __atomic_store_n(&aa_rt_g.paused, 0, __ATOMIC_RELAXED);
}
