/*
 * samples/hotspot.c -- compute-hotspot sample for AutoAnalyzer.
 *
 * Each rank evaluates a degree-DEGREE polynomial (and its derivative, for a
 * few Newton steps) at every point of its share of a sample set, then builds
 * a histogram of the results.  All ranks do the same work (no imbalance).
 *
 * THE BOTTLENECK (a disparity bottleneck: one region dominates the cost):
 *   function newton_refine(), the nested loop
 *       for (i = 0; i < n; i++)                  <- loop over points
 *           for (step = 0; step < NEWTON_STEPS; step++)
 *               for (k = DEGREE - 1; k >= 0; k--)  <- Horner inner loop, the
 *                   p = p * x + coef[k] ...        line marked "HOTSPOT HERE"
 *   This loop takes well over 80 % of the run time and has by far the
 *   highest instruction count; its data (one array of a few hundred KB and a
 *   small coefficient table) fit in cache, so the cause is the amount of
 *   computation (instructions), not memory or communication.
 *   The light regions: make_points(), build_histogram(), first_peak(),
 *   and the final MPI_Gather.
 *
 * BOTTLENECK-AT: newton_refine() line 101 ("HOTSPOT HERE")
 *
 * Usage: mpirun -np 4 build/samples/hotspot [-s small|large] [-n ITER]
 * Output: result lines and `checksum: <value>`; per-rank sums are combined
 * on rank 0 in rank order, so the value does not depend on timing.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEGREE 24
#define NEWTON_STEPS 6
#define POINTS_SMALL 40000
#define POINTS_LARGE 160000
#define NBINS 64

typedef struct {
    int npoints, iters;
} config;

/* Parses -s small|large and -n ITER; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->npoints = POINTS_SMALL;
    cfg->iters = 6;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->npoints = POINTS_SMALL;
            else if (strcmp(s, "large") == 0)
                cfg->npoints = POINTS_LARGE;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 100000)
                return -1;
            cfg->iters = (int)n;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Coefficients with alternating signs and decreasing magnitude. */
static void make_coefficients(double *coef)
{
    int k;
    for (k = 0; k <= DEGREE; k++)
        coef[k] = ((k % 2) ? -1.0 : 1.0) / (double)(k + 1);
}

/* Points evenly spread in [-0.9, 0.9], this rank's contiguous share. */
static void make_points(double *x, int n, int rank, int size)
{
    int i;
    long total = (long)n * size;
    for (i = 0; i < n; i++) {
        long g = (long)rank * n + i;
        x[i] = -0.9 + 1.8 * (double)g / (double)total;
    }
}

/* The hotspot: a few Newton steps towards a root of p(x) - x/2, every step
 * evaluating p and p' by Horner's rule. */
static void newton_refine(double *x, int n, const double *coef)
{
    int i, step, k;
    for (i = 0; i < n; i++) {
        double xi = x[i];
        for (step = 0; step < NEWTON_STEPS; step++) {
            double p = coef[DEGREE], dp = 0.0;
            for (k = DEGREE - 1; k >= 0; k--) {
                dp = dp * xi + p;
                p = p * xi + coef[k]; /* HOTSPOT HERE */
            }
            p -= 0.5 * xi;
            dp -= 0.5;
            if (dp > -1e-9 && dp < 1e-9)
                break; /* flat: stop refining this point */
            xi -= 0.25 * p / dp;
            if (xi < -1.0)
                xi = -1.0;
            if (xi > 1.0)
                xi = 1.0;
        }
        x[i] = xi;
    }
}

/* Histogram of the refined points over [-1, 1]. */
static void build_histogram(const double *x, int n, long *bins)
{
    int i;
    for (i = 0; i < n; i++) {
        int b = (int)((x[i] + 1.0) * 0.5 * NBINS);
        if (b < 0 || b >= NBINS)
            continue;
        bins[b]++;
    }
}

/* Index of the first bin holding at least `min` points, or -1. */
static int first_peak(const long *bins, long min)
{
    int b;
    for (b = 0; b < NBINS; b++) {
        if (bins[b] >= min)
            return b;
    }
    return -1;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, it, i, peak;
    double coef[DEGREE + 1], *x, local = 0.0, *all = NULL;
    long bins[NBINS];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n ITER]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    x = malloc(sizeof *x * (size_t)cfg.npoints);
    if (!x) {
        fprintf(stderr, "hotspot: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    make_coefficients(coef);
    memset(bins, 0, sizeof bins);
    for (it = 0; it < cfg.iters; it++) {
        make_points(x, cfg.npoints, rank, size);
        newton_refine(x, cfg.npoints, coef);
        build_histogram(x, cfg.npoints, bins);
    }
    for (i = 0; i < cfg.npoints; i++)
        local += x[i];
    peak = first_peak(bins, (long)cfg.npoints / 8);
    local += (double)peak;

    if (rank == 0)
        all = malloc(sizeof *all * (size_t)size);
    MPI_Gather(&local, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double sum = 0.0;
        for (i = 0; i < size; i++)
            sum += all[i];
        printf("hotspot: %d ranks, %d points per rank, degree %d, %d iterations\n",
               size, cfg.npoints, DEGREE, cfg.iters);
        printf("rank 0 first peak bin: %d\n", peak);
        printf("checksum: %.10e\n", sum);
        free(all);
    }
    free(x);
    MPI_Finalize();
    return 0;
}
