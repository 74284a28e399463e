/*
 * bench/edge_probes/small_clear.c -- edge probe: a small but clear
 * imbalance on eight ranks.  Every rank computes alike in `interior`; in
 * `boundary`, ranks 3 and 7 (the ones holding a domain boundary) do four
 * times the others' work, about 3% of the run.  Expected: ranks 3,7 apart,
 * the innermost region `boundary`, reported with its small impact.
 */
#include <mpi.h>
#include <stdio.h>
static double interior(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (i % 5) * 0.25 + s * 1e-12;
    return s;
}
static double boundary(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (i % 3) * 0.5 - s * 1e-12;
    return s;
}
int main(int argc, char **argv)
{
    int rank;
    double tot = 0, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int step = 0; step < 25; step++) {
        s = interior(2000000);
        s += boundary(rank % 4 == 3 ? 80000 : 20000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
