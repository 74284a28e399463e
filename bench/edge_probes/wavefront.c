/*
 * bench/edge_probes/wavefront.c -- edge probe: a pipelined sweep, as in
 * NPB LU or Sweep3D.  Each sweep passes eight blocks down the ranks: rank
 * r receives a block's boundary from r-1, computes the block in
 * `sweep_block` and sends to r+1.  Every rank computes alike, but the
 * pipeline fills and drains: rank r waits for r blocks at the start of
 * each sweep, so the waits in MPI_Recv grow with the rank while the work
 * does not.  Expected: one cluster, no imbalance (waiting is not work);
 * `sweep_block`, the work, the hotspot.
 */
#include <mpi.h>
#include <stdio.h>
static double sweep_block(double in, long n)
{
    double s = in;
    for (long i = 0; i < n; i++)
        s = s * 0.999999 + (i % 3) * 0.5;
    return s;
}
int main(int argc, char **argv)
{
    int rank, size;
    double tot = 0, b;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int sweep = 0; sweep < 12; sweep++) {
        for (int blk = 0; blk < 8; blk++) {
            b = 1.0;
            if (rank > 0)
                MPI_Recv(&b, 1, MPI_DOUBLE, rank - 1, blk, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            b = sweep_block(b, 400000);
            if (rank < size - 1)
                MPI_Send(&b, 1, MPI_DOUBLE, rank + 1, blk, MPI_COMM_WORLD);
        }
        MPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += b;
    }
    if (rank == 0)
        printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
