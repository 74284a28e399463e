/*
 * bench/edge_probes/device_wait.c -- edge probe: an imbalance of time off
 * the CPU.  Every step rank 2 sleeps 20 ms (usleep: waiting for a device)
 * before the allreduce; its CPU time is the others'.  Expected: rank 2
 * alone, the innermost region `wait_device`, cause blocked_time.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
static double compute(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.25; return s; }
static void wait_device(int rank)
{
    if (rank == 2)
        usleep(20000);
}
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = compute(2000000);
        wait_device(rank);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
