/*
 * bench/edge_probes/final_reduce.c -- edge probe: no time-step loop.  Each
 * rank integrates its block of intervals in `integrate` and the partial
 * sums meet once, in an MPI_Reduce called from main -- where MPI_Init and
 * MPI_Finalize are called too, the set-up MPI the analysis leaves out of
 * the program's time.  The last rank takes twice the intervals of the
 * others (its block holds the remainder of a bad split), so the others
 * wait for it in main's MPI_Reduce.  Expected: the last rank alone, the
 * innermost region `integrate` (its loop spans the body: measured by the
 * function's region).
 */
#include <mpi.h>
#include <stdio.h>
static double integrate(long lo, long hi, double h)
{
    double s = 0;
    for (long i = lo; i < hi; i++) {
        double x = (i + 0.5) * h;
        s += 4.0 / (1.0 + x * x);
    }
    return s * h;
}
int main(int argc, char **argv)
{
    int rank, size;
    long n = 30000000;
    double part, pi = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long lo = rank * n, hi = lo + (rank == size - 1 ? 2 * n : n);
    part = integrate(lo, hi, 1.0 / ((size + 1) * (double)n));
    MPI_Reduce(&part, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi: %.6f\n", pi);
    MPI_Finalize();
    return 0;
}
