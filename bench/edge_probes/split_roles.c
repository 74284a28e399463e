/*
 * bench/edge_probes/split_roles.c -- edge probe: processes with different
 * roles and the same cost.  Even ranks sweep in x (`sweep_x`), odd ranks
 * in y (`sweep_y`), the same number of operations, and meet at an
 * MPI_Allreduce every step.  The processes differ in where their time
 * goes, not in how much: nobody waits.  Expected: no imbalance (a
 * difference made up before the processes synchronize costs nothing);
 * the two sweeps the work.
 */
#include <mpi.h>
#include <stdio.h>
static double sweep_x(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s = s * 0.9999 + (i & 7) * 0.5;
    return s;
}
static double sweep_y(long n)
{
    double s = 1;
    for (long i = 0; i < n; i++)
        s = s * 0.9999 + (i & 3) * 0.25;
    return s;
}
int main(int argc, char **argv)
{
    int rank;
    double tot = 0, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int step = 0; step < 30; step++) {
        s = rank % 2 ? sweep_y(1500000) : sweep_x(1500000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
