/*
 * bench/edge_probes/no_sync.c -- edge probe: an embarrassingly parallel
 * program with no MPI call between MPI_Init and MPI_Finalize.  Each rank
 * simulates its own walkers in `simulate`; rank 1 has twice the walkers.
 * The others wait for it only in MPI_Finalize, the set-up MPI the
 * analysis leaves out of the program's time.  Expected: rank 1 alone, the
 * innermost region `simulate` (its walker loop spans the body).
 */
#include <mpi.h>
#include <stdio.h>
static double simulate(int walkers, unsigned seed)
{
    double pos = 0;
    for (int w = 0; w < walkers; w++) {
        for (int t = 0; t < 100000; t++) {
            seed = seed * 1103515245u + 12345u;
            pos += (seed >> 16 & 1) ? 0.5 : -0.5;
        }
    }
    return pos;
}
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double pos = simulate(rank == 1 ? 1200 : 600, 17u + rank);
    if (rank == 0)
        printf("rank 0 drift: %.1f\n", pos);
    MPI_Finalize();
    return 0;
}
