/*
 * samples/imbalance.c -- load-imbalance sample for AutoAnalyzer.
 *
 * A toy cell-based simulation: every rank owns the same number of cells, but
 * the ranks with `rank % 4 == 3` (rank 3 with 4 ranks; ranks 3 and 7 with 8)
 * own a "refined" part of the domain and run REFINE_FACTOR times as many
 * sub-steps per cell.
 *
 * THE BOTTLENECK (a dissimilarity bottleneck, i.e. load imbalance):
 *   function advance_cells(), its nested loop
 *       for (c = 0; c < ncells; c++)            <- outer loop over cells
 *           for (s = 0; s < substeps; s++)      <- inner loop, see the line
 *               ... v = mix(v, ...)                marked "IMBALANCE HERE"
 *   `substeps` is REFINE_FACTOR (6) times larger on the heavy ranks, so they
 *   spend about 6 times as long in this loop.  All other ranks then wait in
 *   the MPI_Allreduce of exchange_totals() that follows, so their MPI time is
 *   high and the heavy ranks' is low.  Everything else (init_cells,
 *   relax_neighbours, exchange_totals's local loop) is balanced.
 *
 * BOTTLENECK-AT: advance_cells() line 96 ("IMBALANCE HERE")
 *
 * Usage: mpirun -np 4 build/samples/imbalance [-s small|large] [-n ITER]
 * Output: result lines and `checksum: <value>`, an unsigned 64-bit integer
 * (modular sum over ranks), independent of timing and scheduling.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS_SMALL 16384
#define CELLS_LARGE 49152
#define BASE_SUBSTEPS 32
#define REFINE_FACTOR 6
#define ITERS_DEFAULT 30
#define IS_HEAVY(rank) ((rank) % 4 == 3)

typedef struct {
    int ncells, iters;
} config;

/* Parses -s small|large and -n ITER; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->ncells = CELLS_SMALL;
    cfg->iters = ITERS_DEFAULT;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->ncells = CELLS_SMALL;
            else if (strcmp(s, "large") == 0)
                cfg->ncells = CELLS_LARGE;
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

/* A cheap integer mixing step (xorshift-multiply); exact and portable. */
static uint64_t mix(uint64_t v, uint64_t k)
{
    v ^= k + 0x9e3779b97f4a7c15ULL;
    v ^= v >> 31;
    v *= 0xbf58476d1ce4e5b9ULL;
    v ^= v >> 29;
    return v;
}

static void init_cells(uint64_t *cells, int ncells, int rank)
{
    int c;
    for (c = 0; c < ncells; c++)
        cells[c] = mix((uint64_t)rank * 1000003u + (uint64_t)c, 17);
}

/* The imbalanced kernel: heavy ranks run REFINE_FACTOR times the sub-steps. */
static void advance_cells(uint64_t *cells, int ncells, int substeps, int iter)
{
    int c, s;
    for (c = 0; c < ncells; c++) {
        uint64_t v = cells[c];
        for (s = 0; s < substeps; s++) {
            v = mix(v, (uint64_t)(iter * 131 + s)); /* IMBALANCE HERE */
        }
        cells[c] = v;
    }
}

/* Light, balanced smoothing between neighbouring cells. */
static void relax_neighbours(uint64_t *cells, int ncells)
{
    int c;
    for (c = 1; c < ncells; c++) {
        if ((cells[c] & 7u) != 0)
            continue; /* only one cell in eight is relaxed */
        cells[c] ^= cells[c - 1] >> 7;
    }
}

/* Local total of the cells, then a global sum: the collective the light
 * ranks wait in.  Returns the global total. */
static uint64_t exchange_totals(const uint64_t *cells, int ncells)
{
    uint64_t local = 0, global = 0;
    int c;
    for (c = 0; c < ncells; c++)
        local += cells[c] >> 3;
    MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

/* First cell index whose value has the low byte 0, or -1: demonstrates a
 * search loop with an early return. */
static int first_marked_cell(const uint64_t *cells, int ncells)
{
    int c;
    for (c = 0; c < ncells; c++) {
        if ((cells[c] & 0xffu) == 0)
            return c;
    }
    return -1;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, it, substeps, marked, nheavy = 0, r;
    uint64_t *cells, total = 0, checksum = 0, local;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n ITER]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    cells = malloc(sizeof *cells * (size_t)cfg.ncells);
    if (!cells) {
        fprintf(stderr, "imbalance: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    substeps = IS_HEAVY(rank) ? BASE_SUBSTEPS * REFINE_FACTOR : BASE_SUBSTEPS;
    init_cells(cells, cfg.ncells, rank);

    for (it = 0; it < cfg.iters; it++) {
        advance_cells(cells, cfg.ncells, substeps, it);
        relax_neighbours(cells, cfg.ncells);
        total = exchange_totals(cells, cfg.ncells);
    }

    marked = first_marked_cell(cells, cfg.ncells);
    local = total ^ (uint64_t)(marked + 1) * 2654435761u;
    for (it = 0; it < cfg.ncells; it++)
        local += cells[it] & 0xffffu;
    MPI_Reduce(&local, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        for (r = 0; r < size; r++)
            nheavy += IS_HEAVY(r);
        printf("imbalance: %d ranks (%d heavy), %d cells per rank, %d iterations\n",
               size, nheavy, cfg.ncells, cfg.iters);
        printf("sub-steps per cell: %d (heavy ranks %d)\n", BASE_SUBSTEPS,
               BASE_SUBSTEPS * REFINE_FACTOR);
        printf("checksum: %llu\n", (unsigned long long)checksum);
    }
    free(cells);
    MPI_Finalize();
    return 0;
}
