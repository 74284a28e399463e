/*
 * bench/edge_probes/rotating.c -- edge probe: a dynamic imbalance.  Every
 * step one rank (step % size) refines its part: `refine` does 5x its work
 * there.  Over the run every rank refines as often, so the totals are
 * balanced, but at every step the others wait for the refining rank.
 * Expected: no dissimilarity, a dynamic imbalance in `refine`.
 */
#include <mpi.h>
#include <stdio.h>
static double refine(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 13) * 0.5; return s; }
static double transport(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i & 7) * 0.25; return s; }
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double tot = 0, s;
    for (int step = 0; step < 40; step++) {
        s = refine(step % size == rank ? 2500000 : 500000);
        s += transport(1500000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
