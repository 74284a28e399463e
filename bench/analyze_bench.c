/*
 * bench/analyze_bench.c -- `make bench`: analysis time of `autoanalyzer
 * analyze` on synthetic experiments (analyze/synth.c, slow-group scenario)
 * held in memory, for P x R in {1024, 4096, 16384} x {100, 500}, on one
 * core; prints how the time grows with P and R against the SPEC §8 targets
 * (1,024 x 500 < 2 s, 16,384 x 500 < 20 s).  With --read it also writes the
 * 1,024 x 500 experiment to a temporary file and times reading it back.
 *
 *   analyze_bench [--quick] [--read] [--max-procs N]
 */
#include "analyze/aa_analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    static const int procs[] = {1024, 4096, 16384};
    static const size_t regs[] = {100, 500};
    double t[3][2];
    int quick = 0, readback = 0, maxp = 16384, i, j;
    aa_err err;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--read") == 0)
            readback = 1;
        else if (strcmp(argv[i], "--max-procs") == 0 && i + 1 < argc)
            maxp = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: analyze_bench [--quick] [--read] [--max-procs N]\n");
            return 2;
        }
    }
    if (quick)
        maxp = 1024;
    printf("# analyze bench: synthetic slow-group experiments, times in s (one core)\n");
    printf("%8s %6s %10s %10s %9s %9s\n", "P", "R", "generate", "analyze", "clusters",
           "findings");
    for (i = 0; i < 3; i++)
        for (j = 0; j < 2; j++) {
            aa_synth_options so;
            aa_experiment *e;
            aa_analysis *a;
            double t0, t1, t2;
            t[i][j] = -1;
            if (procs[i] > maxp)
                continue;
            aa_synth_options_init(&so);
            so.scenario = AA_SYNTH_SLOW_GROUP;
            so.nprocs = procs[i];
            so.nregions = regs[j];
            t0 = now();
            if (aa_synth_generate(&so, &e, NULL, NULL, &err)) {
                fprintf(stderr, "analyze_bench: %s\n", err.msg);
                return 1;
            }
            t1 = now();
            if (aa_analyze_run(e, NULL, &a, &err)) {
                fprintf(stderr, "analyze_bench: %s\n", err.msg);
                return 1;
            }
            t2 = now();
            t[i][j] = t2 - t1;
            printf("%8d %6zu %10.2f %10.3f %9zu %9zu\n", procs[i], regs[j], t1 - t0, t2 - t1,
                   a->nclusters, a->nfindings);
            fflush(stdout);
            aa_analyze_free(a);
            if (readback && procs[i] == 1024 && regs[j] == 500) {
                char path[] = "/tmp/aa-analyze-bench-XXXXXX";
                int fd = mkstemp(path);
                aa_experiment *r = NULL;
                double w0, w1, w2;
                if (fd < 0)
                    return 1;
                close(fd);
                w0 = now();
                if (aa_experiment_write(e, path, &err))
                    fprintf(stderr, "analyze_bench: write: %s\n", err.msg);
                w1 = now();
                if (aa_experiment_read(path, &r, &err))
                    fprintf(stderr, "analyze_bench: read: %s\n", err.msg);
                w2 = now();
                printf("# 1024 x 500 experiment file: write %.2f s, read %.2f s\n", w1 - w0,
                       w2 - w1);
                aa_experiment_free(r);
                unlink(path);
            }
            aa_experiment_free(e);
        }
    printf("# growth with P (R=500): ");
    for (i = 1; i < 3; i++)
        if (t[i][1] > 0 && t[i - 1][1] > 0)
            printf(" x%.1f for %dx P;", t[i][1] / t[i - 1][1], procs[i] / procs[i - 1]);
    printf("\n# growth with R (500 vs 100): ");
    for (i = 0; i < 3; i++)
        if (t[i][0] > 0 && t[i][1] > 0)
            printf(" P=%d x%.1f;", procs[i], t[i][1] / t[i][0]);
    printf("\n# targets: 1024 x 500 < 2 s: %s",
           t[0][1] < 0 ? "not run" : t[0][1] < 2 ? "met" : "MISSED");
    printf("; 16384 x 500 < 20 s: %s\n",
           t[2][1] < 0 ? "not run" : t[2][1] < 20 ? "met" : "MISSED");
    return 0;
}
