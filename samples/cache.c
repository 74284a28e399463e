/*
 * samples/cache.c -- cache-hostile hotspot sample for AutoAnalyzer.
 *
 * Each rank owns an N x N matrix of doubles stored row-major (N = 1024,
 * 8 MB, small; N = 2048, 32 MB, large -- both far larger than the L2 cache)
 * and computes its row sums and its column sums REPS times.  Both do
 * exactly the same number of additions; only the access order differs.
 *
 * THE BOTTLENECK (a disparity bottleneck caused by cache misses):
 *   function column_sums(), the nested loop
 *       for (j = 0; j < n; j++)          <- outer loop over columns
 *           for (i = 0; i < n; i++)      <- inner loop walks DOWN a column,
 *               s += m[i * n + j]           the line marked "CACHE MISSES HERE"
 *   The inner loop strides n * 8 bytes (8 or 16 KB) between consecutive
 *   accesses, so nearly every access misses L1 and L2 (and the TLB); it runs
 *   several times slower than row_sums(), whose inner loop is contiguous.
 *   The root cause to find is the L1/L2 miss rate, not the instruction count.
 *   Light regions: fill_matrix(), row_sums(), compare_sums().
 *
 * BOTTLENECK-AT: column_sums() line 98 ("CACHE MISSES HERE")
 *
 * Usage: mpirun -np 4 build/samples/cache [-s small|large] [-n REPS]
 * Output: result lines and `checksum: <value>`.  The matrix holds small
 * integers, so every sum is exact and the checksum is an integer that does
 * not depend on summation order, timing or scheduling.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_SMALL 1024
#define N_LARGE 2048
#define REPS_DEFAULT 12

typedef struct {
    int n, reps;
} config;

/* Parses -s small|large and -n REPS; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->n = N_SMALL;
    cfg->reps = REPS_DEFAULT;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->n = N_SMALL;
            else if (strcmp(s, "large") == 0)
                cfg->n = N_LARGE;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 100000)
                return -1;
            cfg->reps = (int)n;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Small integer values (0..99), different on every rank. */
static void fill_matrix(double *m, int n, int rank)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            m[(size_t)i * n + j] = (double)((i * 31 + j * 17 + rank * 7) % 100);
}

/* Light region: contiguous, cache-friendly traversal. */
static void row_sums(const double *m, int n, double *rows)
{
    int i, j;
    for (i = 0; i < n; i++) {
        double s = 0.0;
        for (j = 0; j < n; j++)
            s += m[(size_t)i * n + j];
        rows[i] = s;
    }
}

/* The hotspot: column-major traversal of a row-major matrix. */
static void column_sums(const double *m, int n, double *cols)
{
    int i, j;
    for (j = 0; j < n; j++) {
        double s = 0.0;
        for (i = 0; i < n; i++)
            s += m[(size_t)i * n + j]; /* CACHE MISSES HERE */
        cols[j] = s;
    }
}

/* Both traversals must see the same total; returns it, or -1 on mismatch. */
static double compare_sums(const double *rows, const double *cols, int n)
{
    double tr = 0.0, tc = 0.0;
    int i;
    for (i = 0; i < n; i++) {
        tr += rows[i];
        tc += cols[i];
    }
    if (tr != tc)
        return -1.0;
    return tr;
}

/* Number of columns whose sum exceeds the mean; stops early once `limit` such
 * columns were seen. */
static int count_heavy_columns(const double *cols, int n, double mean, int limit)
{
    int j, count = 0;
    for (j = 0; j < n; j++) {
        if (cols[j] <= mean)
            continue;
        if (++count >= limit)
            break;
    }
    return count;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, r, heavy = 0;
    double *m, *rows, *cols, total = 0.0;
    uint64_t local = 0, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n REPS]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    m = malloc(sizeof *m * (size_t)cfg.n * (size_t)cfg.n);
    rows = malloc(sizeof *rows * (size_t)cfg.n);
    cols = malloc(sizeof *cols * (size_t)cfg.n);
    if (!m || !rows || !cols) {
        fprintf(stderr, "cache: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fill_matrix(m, cfg.n, rank);
    for (r = 0; r < cfg.reps; r++) {
        row_sums(m, cfg.n, rows);
        column_sums(m, cfg.n, cols);
        total = compare_sums(rows, cols, cfg.n);
        if (total < 0) {
            fprintf(stderr, "cache: rank %d: row and column totals differ\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        heavy = count_heavy_columns(cols, cfg.n, total / cfg.n, cfg.n);
    }
    local = (uint64_t)total + (uint64_t)heavy;
    MPI_Reduce(&local, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("cache: %d ranks, %d x %d doubles (%zu MB) per rank, %d repetitions\n",
               size, cfg.n, cfg.n, (size_t)cfg.n * cfg.n * sizeof(double) >> 20, cfg.reps);
        printf("rank 0 matrix total: %.0f, columns above mean: %d\n", total, heavy);
        printf("checksum: %llu\n", (unsigned long long)checksum);
    }
    free(m);
    free(rows);
    free(cols);
    MPI_Finalize();
    return 0;
}
