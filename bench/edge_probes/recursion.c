/*
 * bench/edge_probes/recursion.c -- edge probe: an imbalance inside a
 * recursive function.  Every step each rank walks a binary tree to depth 7
 * (128 leaves of 20,000 iterations), rank 3 to depth 9 (4x the leaves);
 * `other` is the same work everywhere.  Expected: rank 3 alone, the
 * innermost region the leaf work (`leaf` called from `walk`), one finding
 * for the recursion, not one per depth.
 */
#include <mpi.h>
#include <stdio.h>
static double leaf(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i & 3) * 0.5; return s; }
static double walk(int depth, int maxd)
{
    if (depth == maxd)
        return leaf(20000);
    return walk(depth + 1, maxd) + walk(depth + 1, maxd);
}
static double other(void) { return leaf(3000000); }
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double tot = 0, s;
    for (int step = 0; step < 20; step++) {
        s = walk(0, rank == 3 ? 9 : 7);
        s += other();
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
