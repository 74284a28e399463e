/*
 * bench/mpi_calls.c -- the cost of one measured MPI call (bench/mpi_calls.sh):
 * N calls of a synchronizing call (MPI_Allreduce of one double, which also
 * pairs steps: docs/runtime.md) and of a non-synchronizing one (MPI_Iprobe),
 * timed; prints "allreduce_ns A iprobe_ns B" (per call, rank 0).  Built
 * plainly and with `autoanalyzer cc mpicc`, the difference is the wrapper's.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000000, flag, rank, i;
    double x = 1, y = 0, t0, t1, t2;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (n < 1)
        n = 1;
    t0 = now();
    for (i = 0; i < n; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t1 = now();
    for (i = 0; i < n; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st);
    t2 = now();
    if (rank == 0)
        printf("allreduce_ns %.1f iprobe_ns %.1f\n", (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9);
    MPI_Finalize();
    return y < 0;
}
