/*
 * bench/edge_probes/root_branch.c -- edge probe: a balanced SPMD program
 * whose rank 0 takes the root's branch of MPI_Reduce (MPI_IN_PLACE) and
 * prints a line every step.  Expected: one cluster, no rank excluded as a
 * master, no imbalance; `compute`, the only work, is the hotspot.
 */
#include <mpi.h>
#include <stdio.h>
static double compute(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.25; return s; }
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = compute(3000000);
        if (rank == 0)
            MPI_Reduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        else
            MPI_Reduce(&s, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            tot += s;
            printf("step %d\n", step);
        }
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
