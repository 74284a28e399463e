/*
 * samples/rotating.c -- dynamic load imbalance sample for AutoAnalyzer.
 *
 * Every rank advances its own 1-D field for STEPS time steps and joins an
 * MPI_Allreduce of its residual each step.  In each step one rank -- a
 * different one every step, (step + rank) % P == 0 -- has HEAVY times the
 * cells to advance of the others (a refinement front, a particle cluster,
 * a burning region moving across the domain).  Over the run every rank
 * does the same work; in every step all ranks wait for the one that holds
 * the heavy part.  -m synchronous instead makes every rank heavy in the
 * same steps (every P-th step): the same totals and per-step variation,
 * and nobody waits for anybody -- the control case.
 *   -s small: 48 steps, light step 1.5 ms;  -s large: 96 steps, 3 ms
 *   (about; HEAVY = 4).
 *
 * THE BOTTLENECK (a dynamic imbalance: the heaviest step moves between
 * processes): the work of advance_cells() (the loop marked "VARYING WORK
 * HERE") varies from step to step on every rank; the ranks wait for it in
 * main's time-step loop, in MPI_Allreduce, about (HEAVY - 1) x the light
 * step's time x (P - 1) / P per step.  Totals per rank are equal, so no
 * rank is slower than another over the run; the analysis names it from
 * each rank's waits falling as its own work in the step rises (dynamic
 * imbalance, analyze/dynamic.c).
 *
 * BOTTLENECK-AT: advance_cells() line 81 ("VARYING WORK HERE")
 *
 * Usage: mpirun -np 4 build/samples/rotating [-s small|large]
 *                                            [-m rotating|synchronous]
 * Output: `checksum: <value>` (integer, independent of timing and scheduling).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCELL 2048
#define HEAVY 4

typedef struct {
    int steps;
    int sweeps;      /* sweeps of the field in a light step */
    int synchronous; /* every rank heavy in the same steps */
} config;

/* Parses -s small|large and -m rotating|synchronous; 0, or -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->steps = 48;
    cfg->sweeps = 150;
    cfg->synchronous = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->steps = 48, cfg->sweeps = 150;
            else if (strcmp(s, "large") == 0)
                cfg->steps = 96, cfg->sweeps = 300;
            else
                return -1;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "rotating") == 0)
                cfg->synchronous = 0;
            else if (strcmp(m, "synchronous") == 0)
                cfg->synchronous = 1;
            else
                return -1;
        } else
            return -1;
    }
    return 0;
}

/* One step of the field: `sweeps` smoothing sweeps (integer arithmetic: the
 * same result everywhere); returns the step's residual. */
static long advance_cells(long *u, int sweeps)
{
    long res = 0;
    int s, i;
    for (s = 0; s < sweeps; s++) /* VARYING WORK HERE */
        for (i = 1; i < NCELL - 1; i++)
            u[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4 + (i & 7);
    for (i = 0; i < NCELL; i++)
        res += u[i] & 0xff;
    return res;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, step, i;
    long *u, res, gres, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-m rotating|synchronous]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (!(u = malloc(NCELL * sizeof *u))) {
        perror("malloc");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < NCELL; i++)
        u[i] = (i * 31 + rank * 7) % 1000;
    for (step = 0; step < cfg.steps; step++) {
        int heavy = cfg.synchronous ? step % size == 0 : (step + rank) % size == 0;
        res = advance_cells(u, heavy ? HEAVY * cfg.sweeps : cfg.sweeps);
        MPI_Allreduce(&res, &gres, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        checksum = (checksum * 31 + gres) % 1000000007L;
    }
    if (rank == 0) {
        printf("rotating: %d ranks, %d steps, %s\n", size, cfg.steps,
               cfg.synchronous ? "synchronous" : "rotating");
        printf("checksum: %ld\n", checksum);
    }
    free(u);
    MPI_Finalize();
    return 0;
}
