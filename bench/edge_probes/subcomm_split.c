/*
 * bench/edge_probes/subcomm_split.c -- edge probe: an imbalance inside a
 * sub-communicator.  MPI_Comm_split makes two teams of three ranks; each
 * team reduces over its own communicator every step and the world only
 * every tenth step.  In team 0, rank 1 relaxes 3x as many points as its
 * team-mates; team 1 is balanced.  Expected: rank 1 alone, the innermost
 * region `relax`.
 */
#include <mpi.h>
#include <stdio.h>
static double relax(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 7) * 0.125; return s; }
static double couple(long n) { double s = 1; for (long i = 0; i < n; i++) s = s * 0.999 + 1e-3; return s; }
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm team;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2 ? 0 : 1, rank, &team);
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = relax(rank == 1 ? 6000000 : 2000000);
        s += couple(600000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, team);
        if (step % 10 == 9)
            MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Comm_free(&team);
    MPI_Finalize();
    return 0;
}
