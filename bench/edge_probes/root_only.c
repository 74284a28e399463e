/*
 * bench/edge_probes/root_only.c -- edge probe: a region only one process
 * runs.  Every fifth step rank 0 alone packs a checkpoint in
 * `pack_checkpoint` (the others never call it) while every rank advances
 * the field alike in `advance`; the others wait for rank 0 at the next
 * step's MPI_Allreduce.  Expected: rank 0 alone, the innermost region
 * `pack_checkpoint`, a region the fast processes never entered.
 */
#include <mpi.h>
#include <stdio.h>
static double field[400000];
static double advance(void)
{
    double s = 0;
    for (int i = 1; i < 400000 - 1; i++) {
        field[i] = 0.5 * field[i] + 0.25 * (field[i - 1] + field[i + 1]);
        s += field[i];
    }
    return s;
}
static double pack_checkpoint(void)
{
    double c = 0;
    for (int k = 0; k < 24; k++)
        for (int i = 0; i < 400000; i++)
            c += field[i] * (k + 1) - c * 1e-9;
    return c;
}
int main(int argc, char **argv)
{
    int rank;
    double tot = 0, s, ck = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 400000; i++)
        field[i] = (i % 13) * 0.1;
    for (int step = 0; step < 40; step++) {
        s = advance();
        if (rank == 0 && step % 5 == 4)
            ck += pack_checkpoint();
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.3e %.3e\n", tot, ck);
    MPI_Finalize();
    return 0;
}
