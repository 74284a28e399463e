/*
 * bench/cluster_bench.c -- timing of the clustering the analyzer runs
 * (SPEC §8): OPTICS on n = 1,024 / 4,096 / 16,384 points x 500 dimensions
 * (synthetic process vectors: a base region profile, three groups with 1x,
 * 1.3x and 2x work, 3% noise, a few outliers) and exact 1-D k-means (k = 5)
 * on R up to 10,000 values.  Prints one line per case with wall and process
 * CPU time (the machine is shared: CPU time is the figure to compare), and
 * for OPTICS the peak resident set size so far; `make bench`.
 * Usage: cluster_bench [max_n]
 */
#include "cluster/aa_cluster.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

int main(int argc, char **argv)
{
    size_t sizes[] = {1024, 4096, 16384}, dim = 500, maxn = 16384, s;
    size_t rs[] = {100, 1000, 5000, 10000};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    aa_err err;
    if (argc > 1)
        maxn = (size_t)atol(argv[1]);
    gsl_rng_set(rng, 42);
    for (s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s], i, k;
        double *base, *x, t0, t1, c0, c1;
        aa_optics_result r;
        if (n > maxn)
            break;
        base = malloc(dim * sizeof *base);
        x = malloc(n * dim * sizeof *x);
        for (k = 0; k < dim; k++)
            base[k] = gsl_ran_exponential(rng, 1.0);
        for (i = 0; i < n; i++) {
            double f = (i % 8 == 3) ? 2.0 : (i % 8 == 5) ? 1.3 : 1.0;
            if (i % 997 == 1)
                f = 3.0 + (double)(i % 5); /* outliers */
            for (k = 0; k < dim; k++)
                x[i * dim + k] = base[k] * f * (1 + gsl_ran_gaussian(rng, 0.03));
        }
        t0 = now();
        c0 = cpu_now();
        if (aa_cluster_optics(x, n, dim, NULL, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        c1 = cpu_now();
        t1 = now();
        printf("optics   n=%6zu dim=%zu  min_pts=%zu eps=%.4g clusters=%zu  %.3f s wall  "
               "%.3f s cpu  peak rss %.0f MiB\n",
               n, dim, r.min_pts_used, r.eps_used, r.nclusters, t1 - t0, c1 - c0,
               peak_rss_mib());
        fflush(stdout);
        aa_cluster_optics_free(&r);
        free(base);
        free(x);
    }
    for (s = 0; s < sizeof rs / sizeof *rs; s++) {
        size_t n = rs[s], i;
        double *x = malloc(n * sizeof *x), t0, t1;
        aa_kmeans_result r;
        for (i = 0; i < n; i++)
            x[i] = gsl_ran_lognormal(rng, 0, 2);
        t0 = now();
        if (aa_cluster_kmeans1d(x, n, 5, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        t1 = now();
        printf("kmeans1d R=%6zu k=5  sse=%.4g  %.4f s\n", n, r.sse, t1 - t0);
        aa_cluster_kmeans_free(&r);
        free(x);
    }
    gsl_rng_free(rng);
    return 0;
}
