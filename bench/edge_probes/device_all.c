/*
 * bench/edge_probes/device_all.c -- edge probe: a hotspot of time off the
 * CPU.  Every rank sleeps 10 ms a step in `poll_device` (0.3 s, about 40%
 * of the run) beside a short computation.  Expected: no imbalance; the
 * hotspot `poll_device`, cause blocked_time -- also on a loaded node,
 * where the processes are judged on CPU time.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
static double compute(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.25; return s; }
static void poll_device(void) { usleep(10000); }
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = compute(1000000);
        poll_device();
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
