/*
 * bench/edge_probes/two_contexts.c -- edge probe: one kernel, two calling
 * contexts.  `smooth` is called from `phase_a`, where every rank smooths
 * the same number of points, and from `phase_b`, where rank 2 smooths
 * three times the points of the others.  Summed over both callers, rank 2
 * is 40% above the others in `smooth`; in phase_b's context it is 200%
 * above.  Expected: rank 2 alone, the innermost region `smooth` in
 * phase_b's calling context (via phase_b), not in phase_a's.
 */
#include <mpi.h>
#include <stdio.h>
#define NA 1200000
#define NB 400000
static double u[3 * NB > NA ? 3 * NB : NA];
static double smooth(double *v, long n)
{
    double s = 0;
    for (long i = 1; i < n - 1; i++) {
        v[i] = 0.25 * (v[i - 1] + 2 * v[i] + v[i + 1]);
        s += v[i];
    }
    return s;
}
static double phase_a(void) { return smooth(u, NA); }
static double phase_b(int rank) { return smooth(u, rank == 2 ? 3 * NB : NB); }
int main(int argc, char **argv)
{
    int rank;
    double tot = 0, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < (long)(sizeof u / sizeof *u); i++)
        u[i] = (i % 7) * 0.5;
    for (int step = 0; step < 30; step++) {
        s = phase_a();
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
        s = phase_b(rank);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
