/*
 * bench/probe_compare.c -- cost of one region probe pair as the instrumenter
 * emits it, against the alternatives a region timer could use (issue 14).
 * For each method it measures ns per begin+end pair: median over 1,001
 * batches of 1,000 pairs (CLOCK_MONOTONIC around each batch, the empty
 * batch's time subtracted), at nesting depth 1 and 8 (the measured pair is
 * the innermost of 1 or 8 open regions), with 1 thread and with several
 * threads running the same measurement at once (median of the threads'
 * medians).  Methods:
 *   aa-scope   { AA_RUNTIME_SCOPE(desc); } on a static descriptor: the form
 *              the instrumenter emits for function and loop regions;
 *   aa-pair    aa_runtime_enter(&desc); aa_runtime_exit(&desc);
 *   rdtsc      two rdtsc reads, the difference accumulated (lower bound of
 *              any timer; x86-64 only);
 *   clock      two clock_gettime(CLOCK_MONOTONIC), difference accumulated;
 *   caliper    CALI_MARK_BEGIN/CALI_MARK_END (only when built with
 *              -DHAVE_CALIPER against Caliper; with no CALI_CONFIG it only
 *              annotates, with CALI_CONFIG=runtime-report it also profiles).
 *
 *   probe_compare [THREADS...]        default: 1 and the number of CPUs (max 8)
 *   build: cc -O2 -I. bench/probe_compare.c -Lbuild/lib -lautoanalyzer -lpthread
 *          [-DHAVE_CALIPER -I$CALIPER_DIR/include -L$CALIPER_DIR/lib -lcaliper]
 * The AutoAnalyzer runtime's throttling is disabled for the measurement
 * (AUTOANALYZER_THROTTLE=0, set by re-executing itself); the counter
 * backend is whatever AUTOANALYZER_COUNTERS selects (the output says how
 * many counters are read per probe).  Target: the aa pair under 50 ns.
 * Then it re-executes itself once more with AUTOANALYZER_THROTTLE=1000,100
 * (argument --throttled) and measures the two aa forms again once their
 * calling context is throttled (after the warm-up's 20,000 visits): the
 * scope form gated at the probe (aa_runtime_enter_scope counts the visit
 * inline and steps into the region's context), the enter/exit pair through
 * the runtime's throttled path.  Last, with AUTOANALYZER_DISABLE=1
 * (argument --disabled): the scope form stopped at the gates, the pair
 * calling the runtime, which returns at once.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/aa_probe.h"
#include "runtime/aa_runtime.h"
#ifdef HAVE_CALIPER
#include <caliper/cali.h>
#include <caliper/cali_macros.h>
#endif

#define BATCH 1000
#define NBATCH 1001
#define MAXDEPTH 8
#define MAXTHR 64
#define THROTTLED "1000,100" /* the throttled rows: after 1,000 visits under 100 us */

static aa_runtime_region outer[MAXDEPTH] = {
    {1, 0, 1, 1, 1, 2, 1, "outer1", "outer1", "probe_compare.c", 0},
    {2, 1, 1, 1, 1, 2, 1, "outer2", "outer2", "probe_compare.c", 0},
    {3, 2, 1, 1, 1, 2, 1, "outer3", "outer3", "probe_compare.c", 0},
    {4, 3, 1, 1, 1, 2, 1, "outer4", "outer4", "probe_compare.c", 0},
    {5, 4, 1, 1, 1, 2, 1, "outer5", "outer5", "probe_compare.c", 0},
    {6, 5, 1, 1, 1, 2, 1, "outer6", "outer6", "probe_compare.c", 0},
    {7, 6, 1, 1, 1, 2, 1, "outer7", "outer7", "probe_compare.c", 0},
    {8, 7, 1, 1, 1, 2, 1, "outer8", "outer8", "probe_compare.c", 0},
};
static aa_runtime_region r_leaf = {20, 0, 2, 10, 1, 11, 1, "loop@10", "bench", "probe_compare.c", 0};
static const char *cali_names[MAXDEPTH] = {"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"};

enum { M_EMPTY, M_SCOPE, M_PAIR, M_RDTSC, M_CLOCK, M_CALIPER, M_N };
static const char *mname[M_N] = {"empty", "aa-scope", "aa-pair", "rdtsc", "clock_gettime", "caliper"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline uint64_t rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return (uint64_t)now();
#endif
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile uint64_t sink;

/* One batch of BATCH pairs of method m; returns ns for the batch. */
static double batch(int m)
{
    uint64_t acc = 0;
    double t0 = now();
    switch (m) {
    case M_EMPTY:
        for (int j = 0; j < BATCH; j++)
            __asm__ volatile("" ::: "memory");
        break;
    case M_SCOPE:
        for (int j = 0; j < BATCH; j++) {
            AA_RUNTIME_SCOPE(r_leaf);
            __asm__ volatile("" ::: "memory");
        }
        break;
    case M_PAIR:
        for (int j = 0; j < BATCH; j++) {
            aa_runtime_enter(&r_leaf);
            __asm__ volatile("" ::: "memory");
            aa_runtime_exit(&r_leaf);
        }
        break;
    case M_RDTSC:
        for (int j = 0; j < BATCH; j++) {
            uint64_t a = rdtsc();
            __asm__ volatile("" ::: "memory");
            acc += rdtsc() - a;
        }
        break;
    case M_CLOCK:
        for (int j = 0; j < BATCH; j++) {
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            __asm__ volatile("" ::: "memory");
            clock_gettime(CLOCK_MONOTONIC, &b);
            acc += (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
        }
        break;
#ifdef HAVE_CALIPER
    case M_CALIPER:
        for (int j = 0; j < BATCH; j++) {
            CALI_MARK_BEGIN("leaf");
            __asm__ volatile("" ::: "memory");
            CALI_MARK_END("leaf");
        }
        break;
#endif
    }
    double t = now() - t0;
    sink += acc;
    return t;
}

static void open_outer(int m, int depth)
{
    for (int d = 0; d < depth - 1; d++) {
        if (m == M_SCOPE || m == M_PAIR)
            aa_runtime_enter(&outer[d]);
#ifdef HAVE_CALIPER
        if (m == M_CALIPER)
            CALI_MARK_BEGIN(cali_names[d]);
#endif
    }
}

static void close_outer(int m, int depth)
{
    for (int d = depth - 2; d >= 0; d--) {
        if (m == M_SCOPE || m == M_PAIR)
            aa_runtime_exit(&outer[d]);
#ifdef HAVE_CALIPER
        if (m == M_CALIPER)
            CALI_MARK_END(cali_names[d]);
#endif
    }
    (void)cali_names;
}

struct job {
    int m, depth;
    double median;
    pthread_barrier_t *bar;
};

static void *run(void *arg)
{
    struct job *jb = arg;
    static __thread double t[NBATCH];
    double empty = 1e30;
    open_outer(jb->m, jb->depth);
    for (int i = 0; i < 20; i++) /* warm-up */
        batch(jb->m);
    for (int i = 0; i < 200; i++) {
        double d = batch(M_EMPTY);
        if (d < empty)
            empty = d;
    }
    if (jb->bar)
        pthread_barrier_wait(jb->bar);
    for (int i = 0; i < NBATCH; i++)
        t[i] = (batch(jb->m) - empty) / BATCH;
    close_outer(jb->m, jb->depth);
    qsort(t, NBATCH, sizeof t[0], cmp);
    jb->median = t[NBATCH / 2];
    return NULL;
}

/* median over nthr threads of the per-thread median ns per pair */
static double measure(int m, int depth, int nthr)
{
    struct job jobs[MAXTHR];
    pthread_t th[MAXTHR];
    pthread_barrier_t bar;
    double med[MAXTHR];
    if (nthr == 1) {
        jobs[0] = (struct job){m, depth, 0, NULL};
        run(&jobs[0]);
        return jobs[0].median;
    }
    pthread_barrier_init(&bar, NULL, (unsigned)nthr);
    for (int i = 0; i < nthr; i++) {
        jobs[i] = (struct job){m, depth, 0, &bar};
        pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    for (int i = 0; i < nthr; i++) {
        pthread_join(th[i], NULL);
        med[i] = jobs[i].median;
    }
    pthread_barrier_destroy(&bar);
    qsort(med, (size_t)nthr, sizeof med[0], cmp);
    return med[nthr / 2];
}

int main(int argc, char **argv)
{
    int thr[8], nthr = 0, first = 1;
    const char *t = getenv("AUTOANALYZER_THROTTLE");
    const int disabled = argc > 1 && strcmp(argv[1], "--disabled") == 0;
    const int throttled = disabled || (argc > 1 && strcmp(argv[1], "--throttled") == 0);
    const char *want = disabled ? "0" : throttled ? THROTTLED : "0";
    const char *dis = getenv("AUTOANALYZER_DISABLE");
    if (!t || strcmp(t, want) != 0 || (dis && *dis) != disabled) { /* read before main */
        setenv("AUTOANALYZER_THROTTLE", want, 1);
        if (disabled)
            setenv("AUTOANALYZER_DISABLE", "1", 1);
        else
            unsetenv("AUTOANALYZER_DISABLE");
        execv("/proc/self/exe", argv);
        perror("execv");
        return 1;
    }
    if (throttled)
        first = 2;
    for (int i = first; i < argc && nthr < 8; i++) {
        int n = atoi(argv[i]);
        if (n >= 1 && n <= MAXTHR)
            thr[nthr++] = n;
    }
    if (nthr == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        thr[nthr++] = 1;
        if (c > 1)
            thr[nthr++] = c > 8 ? 8 : (int)c;
    }
    const char *be = getenv("AUTOANALYZER_COUNTERS");
    const char *cc = getenv("CALI_CONFIG");
#ifdef HAVE_CALIPER
    cali_init();
#endif
    if (!throttled) {
        printf("probe_compare: ns per begin+end pair, median of %d batches of %d; "
               "AUTOANALYZER_COUNTERS=%s (%d counters read per probe)%s%s\n",
               NBATCH, BATCH, be ? be : "(default)", aa_runtime_counters_available(),
               cc ? ", CALI_CONFIG=" : "", cc ? cc : "");
        printf("%-16s", "method");
        for (int k = 0; k < nthr; k++)
            for (int depth = 1; depth <= MAXDEPTH; depth += MAXDEPTH - 1)
                printf(" %4dthr/d%d", thr[k], depth);
        printf("\n");
    }
    for (int m = M_SCOPE; m < (throttled ? M_PAIR + 1 : M_N); m++) {
#ifndef HAVE_CALIPER
        if (m == M_CALIPER)
            continue;
#endif
        printf("%-16s", disabled    ? (m == M_SCOPE ? "aa-scope disabl" : "aa-pair disabl")
                        : throttled ? (m == M_SCOPE ? "aa-scope thrott" : "aa-pair thrott")
                                    : mname[m]);
        for (int k = 0; k < nthr; k++)
            for (int depth = 1; depth <= MAXDEPTH; depth += MAXDEPTH - 1) {
                if (m == M_RDTSC || m == M_CLOCK) {
                    if (depth > 1) { /* depth plays no part */
                        printf(" %11s", "=");
                        continue;
                    }
                }
                printf(" %11.1f", measure(m, depth, thr[k]));
                fflush(stdout);
            }
        printf("\n");
    }
    if (!disabled) { /* the throttled rows, in a process throttling at 1,000 visits;
                      * then the disabled rows */
        char *av[10];
        int n = 0;
        av[n++] = argv[0];
        av[n++] = (char *)(throttled ? "--disabled" : "--throttled");
        for (int i = first; i < argc && n < 9; i++)
            av[n++] = argv[i];
        av[n] = NULL;
        fflush(stdout);
        setenv("AUTOANALYZER_THROTTLE", throttled ? "0" : THROTTLED, 1);
        if (throttled)
            setenv("AUTOANALYZER_DISABLE", "1", 1);
        execv("/proc/self/exe", av);
        perror("execv");
        return 1;
    }
    return 0;
}
