/*
 * bench/edge_probes/root_io.c -- edge probe: rank 0 writes the output.
 * Every fifth step the ranks gather an 8 MB field to rank 0, which writes
 * it to a file (fwrite, fflush, fsync) while the others go on to the next
 * step's reduction and wait there.  Expected: rank 0 alone -- a writer,
 * not a master --, the innermost region `write_field`, cause I/O.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define NLOC (256 * 1024)
static double compute(long n) { double s = 0; for (long i = 0; i < n; i++) s += (i % 5) * 0.25; return s; }
static void write_field(FILE *f, const double *all, size_t n)
{
    fwrite(all, sizeof *all, n, f);
    fflush(f);
    fsync(fileno(f));
}
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *mine = malloc(NLOC * sizeof *mine), *all = NULL;
    FILE *f = NULL;
    for (long i = 0; i < NLOC; i++)
        mine[i] = rank + i * 1e-6;
    if (rank == 0) {
        all = malloc((size_t)size * NLOC * sizeof *all);
        f = fopen("root_io.out", "wb");
    }
    double tot = 0, s;
    for (int step = 0; step < 30; step++) {
        s = compute(2000000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
        if (step % 5 == 4) {
            MPI_Gather(mine, NLOC, MPI_DOUBLE, all, NLOC, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0 && f)
                write_field(f, all, (size_t)size * NLOC);
        }
    }
    if (rank == 0) {
        if (f)
            fclose(f);
        remove("root_io.out");
        printf("checksum: %.1f\n", tot);
    }
    free(mine);
    free(all);
    MPI_Finalize();
    return 0;
}
