/*
 * tests/diagnosis/mpi_costs.c -- what MPI costs on this machine at a given
 * rank count, for the diagnosis suite's generator (gen.py): the CPU time of
 * one small MPI_Allreduce and of sending one MB in a ring of MPI_Sendrecv,
 * per process, averaged over the processes.  CPU time, as the analysis
 * judges a preempted process's MPI calls and as busy-polling MPI spends
 * wall time on a dedicated node.  Prints two lines:
 *   allreduce_ms X
 *   sendrecv_ms_per_mb Y
 *   mpirun -np P ./mpi_costs
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the mean over the processes of mine */
static double mean_cpu(double mine)
{
    double sum = 0;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / n;
}

int main(int argc, char **argv)
{
    enum { NRED = 20000, NMSG = 40, COUNT = 1 << 17 }; /* 1 MB of doubles */
    double v = 1, t = 0, c0, ar, sr;
    double *snd = calloc(COUNT, sizeof *snd), *rcv = calloc(COUNT, sizeof *rcv);
    int rank, n, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (!snd || !rcv)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < NRED / 10; i++)
        MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    c0 = cpu_now();
    for (i = 0; i < NRED; i++)
        MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ar = mean_cpu((cpu_now() - c0) / NRED);
    MPI_Barrier(MPI_COMM_WORLD);
    c0 = cpu_now();
    for (i = 0; i < NMSG; i++)
        MPI_Sendrecv(snd, COUNT, MPI_DOUBLE, (rank + 1) % n, 3, rcv, COUNT, MPI_DOUBLE,
                     (rank + n - 1) % n, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sr = mean_cpu((cpu_now() - c0) / NMSG / (COUNT * 8 / 1e6));
    if (rank == 0)
        printf("allreduce_ms %.6g\nsendrecv_ms_per_mb %.6g\n", 1e3 * ar, 1e3 * sr);
    free(snd);
    free(rcv);
    MPI_Finalize();
    return 0;
}
