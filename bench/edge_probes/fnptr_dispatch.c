/*
 * bench/edge_probes/fnptr_dispatch.c -- edge probe: the heavy work is a
 * different kernel, chosen through a table of function pointers.  Every
 * step each rank calls its smoother through `smoothers[kind]`: ranks 0-2
 * the coarse one, rank 3 the fine one, which does 3x the coarse one's
 * work; `gather` is the same everywhere.  Expected: rank 3 alone, the
 * innermost region `smooth_fine` (ranks 0-2 spend their coarse smoothing
 * waiting for rank 3 anyway: `smooth_coarse` is no imbalance of cost).
 */
#include <mpi.h>
#include <stdio.h>
typedef double (*smoother_fn)(long);
static double smooth_coarse(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 3) * 0.5; return s; }
static double smooth_fine(long n) { double s = 0; for (long i = 0; i < 3 * n; i++) s += (i % 11) * 0.25; return s; }
static double gather(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i & 7) * 0.125; return s; }
static const smoother_fn smoothers[2] = {smooth_coarse, smooth_fine};
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int kind = rank == 3;
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = smoothers[kind](2000000);
        s += gather(1500000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
