/*
 * bench/edge_probes/deep_chain.c -- edge probe: the imbalance six calls
 * deep.  main -> advance -> assemble -> element_loop -> quadrature ->
 * shape_eval; rank 2 evaluates 2.5x as many quadrature points as the
 * others; `update`, beside it in `advance`, is the same everywhere.
 * Expected: rank 2 alone, the innermost region `shape_eval`.
 */
#include <mpi.h>
#include <stdio.h>
static double shape_eval(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 6) * 0.2; return s; }
static double quadrature(long npts) { return shape_eval(npts) + 1.0; }
static double element_loop(int nel, long npts)
{
    double s = 0;
    for (int e = 0; e < nel; e++)
        s += quadrature(npts);
    return s;
}
static double assemble(int rank) { return element_loop(40, rank == 2 ? 125000 : 50000); }
static double update(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i & 15) * 0.0625; return s; }
static double advance(int rank) { return assemble(rank) + update(2000000); }
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = advance(rank);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
