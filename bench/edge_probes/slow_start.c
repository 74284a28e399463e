/*
 * bench/edge_probes/slow_start.c -- edge probe: one long wait, once.  Rank
 * 0 sleeps 1 s in `read_input` before the others meet it at a barrier;
 * then every rank computes alike.  Expected: rank 0 alone, the innermost
 * region `read_input` (visited once), cause blocked_time.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
static double compute(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.25; return s; }
static void read_input(int rank)
{
    if (rank == 0)
        sleep(1);
}
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    read_input(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double tot = 0, s;
    for (int step = 0; step < 20; step++) {
        s = compute(2000000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
