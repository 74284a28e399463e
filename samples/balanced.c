/*
 * samples/balanced.c -- balanced baseline for AutoAnalyzer.
 *
 * A 2-D heat-diffusion (Jacobi) solver on a grid split into row blocks, one
 * block per rank.  Every rank owns the same number of rows and does exactly
 * the same work in every phase, so this program has NO bottleneck: it is the
 * reference against which the other samples are judged.  An analysis of it
 * should report no dissimilarity (all ranks in one cluster) and no region of
 * outstanding severity.
 *
 * Where the time goes (all ranks alike):
 *   - jacobi_sweep(): the nested i/j stencil loop (the `for (i = 1; ...`
 *     loop with the inner `for (j = 1; ...`) -- about 60 % of the run;
 *   - smooth_boundary(): a lighter nested loop over the edges;
 *   - exchange_halos(): MPI_Sendrecv of one row to each neighbour;
 *   - residual_norm(): a nested loop plus an MPI_Allreduce (the reduction).
 *
 * BOTTLENECK-AT: none
 *
 * Usage: mpirun -np 4 build/samples/balanced [-s small|large] [-n ITER]
 * Output: result lines and `checksum: <value>`.  The checksum does not depend
 * on timing or scheduling: every rank's arithmetic is fixed, and the per-rank
 * sums are combined on rank 0 in rank order (MPI_Gather, not MPI_Reduce).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_COLS 512
#define LARGE_COLS 1024
#define ROWS_PER_RANK_SMALL 128
#define ROWS_PER_RANK_LARGE 256
#define ITERS_SMALL 300
#define ITERS_LARGE 600

typedef struct {
    int rows, cols, iters;
} config;

/* Parses -s small|large and -n ITER; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i, large = 0;
    cfg->iters = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                large = 0;
            else if (strcmp(s, "large") == 0)
                large = 1;
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
    cfg->rows = large ? ROWS_PER_RANK_LARGE : ROWS_PER_RANK_SMALL;
    cfg->cols = large ? LARGE_COLS : SMALL_COLS;
    if (cfg->iters == 0)
        cfg->iters = large ? ITERS_LARGE : ITERS_SMALL;
    return 0;
}

#define AT(g, i, j) ((g)[(size_t)(i) * (size_t)cols + (size_t)(j)])

/* Initial temperature: a deterministic integer pattern, hot top edge. */
static void init_grid(double *g, int rows, int cols, int rank)
{
    int i, j;
    for (i = 0; i < rows + 2; i++) {
        for (j = 0; j < cols; j++) {
            int gi = rank * rows + i;
            AT(g, i, j) = (double)((gi * 7 + j * 3) % 16);
        }
    }
}

/* Sends the first/last owned rows to the neighbours, receives their halos. */
static void exchange_halos(double *g, int rows, int cols, int rank, int size)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&AT(g, 1, 0), cols, MPI_DOUBLE, up, 0,
                 &AT(g, rows + 1, 0), cols, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(g, rows, 0), cols, MPI_DOUBLE, down, 1,
                 &AT(g, 0, 0), cols, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The main stencil: every interior point becomes the mean of 4 neighbours. */
static void jacobi_sweep(const double *g, double *next, int rows, int cols)
{
    int i, j;
    for (i = 1; i <= rows; i++) {
        for (j = 1; j < cols - 1; j++) {
            AT(next, i, j) = 0.25 * (AT(g, i - 1, j) + AT(g, i + 1, j) +
                                     AT(g, i, j - 1) + AT(g, i, j + 1));
        }
    }
}

/* Keeps the left/right edges fixed and damps the corners of each row. */
static void smooth_boundary(const double *g, double *next, int rows, int cols)
{
    int i, k;
    for (i = 1; i <= rows; i++) {
        AT(next, i, 0) = AT(g, i, 0);
        AT(next, i, cols - 1) = AT(g, i, cols - 1);
        for (k = 1; k < 4; k++) {
            if (k >= cols - 1)
                break;
            AT(next, i, k) = 0.5 * (AT(next, i, k) + AT(g, i, k));
        }
    }
}

/* Sum of squared changes over the owned rows, reduced over all ranks. */
static double residual_norm(const double *g, const double *next, int rows, int cols)
{
    double local = 0.0, global = 0.0;
    int i, j;
    for (i = 1; i <= rows; i++) {
        for (j = 0; j < cols; j++) {
            double d = AT(next, i, j) - AT(g, i, j);
            if (d == 0.0)
                continue;
            local += d * d;
        }
    }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* Sum of the owned rows: the per-rank contribution to the checksum. */
static double grid_sum(const double *g, int rows, int cols)
{
    double s = 0.0;
    int i, j;
    for (i = 1; i <= rows; i++)
        for (j = 0; j < cols; j++)
            s += AT(g, i, j) * (double)((i + j) % 5 + 1);
    return s;
}

/* Combines per-rank values on rank 0 in rank order and prints the checksum. */
static void print_checksum(double local, int rank, int size)
{
    double *all = NULL, sum = 0.0;
    int r;
    if (rank == 0)
        all = malloc(sizeof *all * (size_t)size);
    MPI_Gather(&local, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (r = 0; r < size; r++)
        sum += all[r];
    printf("checksum: %.10e\n", sum);
    free(all);
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, it;
    double *g, *next, res = 0.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n ITER]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int cols = cfg.cols;
    g = calloc((size_t)(cfg.rows + 2) * (size_t)cols, sizeof *g);
    next = calloc((size_t)(cfg.rows + 2) * (size_t)cols, sizeof *next);
    if (!g || !next) {
        fprintf(stderr, "balanced: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    init_grid(g, cfg.rows, cols, rank);
    memcpy(next, g, sizeof *g * (size_t)(cfg.rows + 2) * (size_t)cols);

    for (it = 0; it < cfg.iters; it++) {
        double *tmp;
        exchange_halos(g, cfg.rows, cols, rank, size);
        jacobi_sweep(g, next, cfg.rows, cols);
        smooth_boundary(g, next, cfg.rows, cols);
        res = residual_norm(g, next, cfg.rows, cols);
        tmp = g;
        g = next;
        next = tmp;
    }

    if (rank == 0) {
        printf("balanced: %d ranks, %d x %d grid, %d iterations\n",
               size, cfg.rows * size, cols, cfg.iters);
        printf("final residual: %.6e\n", res);
    }
    print_checksum(grid_sum(g, cfg.rows, cols), rank, size);
    free(g);
    free(next);
    MPI_Finalize();
    return 0;
}
