/*
 * bench/probe.c -- micro-benchmark of the probe cost: median and mean ns per
 * aa_runtime_enter + aa_runtime_exit pair on a warmed-up region, measured
 * in batches of 1,000 pairs with CLOCK_MONOTONIC (the loop overhead of an
 * empty batch is subtracted).  The counter backend is whatever the
 * environment selects; the label argument names it in the output:
 *   AUTOANALYZER_COUNTERS=none bench/probe timing
 *   AUTOANALYZER_COUNTERS=fake bench/probe fake
 *   bench/probe papi   (says "unavailable" when PAPI has no counters here)
 * Throttling is disabled for the measurement (AUTOANALYZER_THROTTLE=0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/aa_runtime.h"

static aa_runtime_region r_outer = {1, 0, 1, 1, 1, 2, 1, "outer", "outer", "probe.c", 0};
static aa_runtime_region r_bench = {2, 1, 1, 3, 1, 4, 1, "bench", "bench", "probe.c", 0};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define BATCH 1000
#define NBATCH 2000

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "timing";
    static double t[NBATCH];
    double empty = 1e30, sum = 0;
    int i, j;
    if (strcmp(label, "papi") == 0) {
        const char *be = getenv("AUTOANALYZER_COUNTERS");
        if (be && strcmp(be, "papi") != 0) {
            printf("probe papi: AUTOANALYZER_COUNTERS=%s, skipped\n", be);
            return 0;
        }
    }
    {
        /* the runtime reads its configuration before main: re-execute with
         * throttling off, or the benchmark region would get throttled */
        const char *thr = getenv("AUTOANALYZER_THROTTLE");
        if (!thr || strcmp(thr, "0") != 0) {
            setenv("AUTOANALYZER_THROTTLE", "0", 1);
            execv("/proc/self/exe", argv);
            perror("execv");
            return 1;
        }
    }
    aa_runtime_enter(&r_outer);
    for (i = 0; i < 10000; i++) { /* warm-up */
        aa_runtime_enter(&r_bench);
        aa_runtime_exit(&r_bench);
    }
    for (i = 0; i < 200; i++) {
        double t0 = now();
        for (j = 0; j < BATCH; j++)
            __asm__ volatile("" ::: "memory");
        double d = now() - t0;
        if (d < empty)
            empty = d;
    }
    for (i = 0; i < NBATCH; i++) {
        double t0 = now();
        for (j = 0; j < BATCH; j++) {
            aa_runtime_enter(&r_bench);
            aa_runtime_exit(&r_bench);
        }
        t[i] = (now() - t0 - empty) / BATCH;
        sum += t[i];
    }
    aa_runtime_exit(&r_outer);
    qsort(t, NBATCH, sizeof t[0], cmp);
    if (strcmp(label, "papi") == 0) {
        int n = aa_runtime_counters_available();
        if (n == 0)
            printf("probe enter+exit with PAPI counters: unavailable (PAPI has none of the events"
                   " on this machine); timing-only figure: median %.1f ns\n",
                   t[NBATCH / 2]);
        else
            printf("probe enter+exit with %d PAPI counters: median %.1f ns, mean %.1f ns, p90 %.1f ns\n",
                   n, t[NBATCH / 2], sum / NBATCH, t[NBATCH * 9 / 10]);
    } else {
        printf("probe enter+exit (%s): median %.1f ns, mean %.1f ns, p90 %.1f ns (target < 50 ns)\n",
               label, t[NBATCH / 2], sum / NBATCH, t[NBATCH * 9 / 10]);
    }
    return 0;
}
