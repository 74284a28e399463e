/*
 * bench/edge_probes/late_ring.c -- edge probe: a late sender in a ring of
 * nonblocking messages completed in another function.  Rank 0 produces
 * its message with 4x the others' work; every rank posts MPI_Irecv from
 * its left neighbour first and waits in `finish` (MPI_Waitall).  Expected:
 * rank 0 alone -- a slow rank 0, not a master --, the innermost region
 * `produce`, the others' wait named in `finish`.
 */
#include <mpi.h>
#include <stdio.h>
static double field[1024];
static double produce(int rank, long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 9) * 0.1 + rank; return s; }
static void finish(MPI_Request *r, int n) { MPI_Waitall(n, r, MPI_STATUSES_IGNORE); }
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double in[1024], tot = 0;
    for (int step = 0; step < 30; step++) {
        MPI_Request r[2];
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Irecv(in, 1024, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
        field[0] = produce(rank, rank == 0 ? 8000000 : 2000000);
        MPI_Isend(field, 1024, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[1]);
        finish(r, 2);
        tot += in[0];
    }
    if (rank == 0)
        printf("checksum: %d\n", tot > 0);
    MPI_Finalize();
    return 0;
}
