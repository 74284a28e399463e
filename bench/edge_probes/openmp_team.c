/*
 * bench/edge_probes/openmp_team.c -- edge probe (MPI + OpenMP): rank 1
 * does 3x the work of the others inside an `omp parallel for` loop, run
 * with 2 threads a rank.  The loop under the directive is not
 * instrumented (the instrumenter says so); its function is, and a
 * process's CPU time counts its threads.  Expected: rank 1 alone, the
 * innermost region `work`.
 */
#include <mpi.h>
#include <stdio.h>
static double work(long n, int rank)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += (double)(i % 7) * 1e-9 + rank * 1e-12;
    return s;
}
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double tot = 0;
    for (int step = 0; step < 40; step++) {
        long n = 4000000L * (rank == 1 ? 3 : 1);
        double s = work(n, rank);
        MPI_Allreduce(&s, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("checksum: %.3f\n", tot);
    MPI_Finalize();
    return 0;
}
