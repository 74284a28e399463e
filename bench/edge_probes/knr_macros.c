/*
 * bench/edge_probes/knr_macros.c -- edge probe: old-style C.  Functions
 * defined with K&R parameter lists, loops written through macros
 * (FOR_ROWS, FOR_COLS) and array indexing through a macro, as in many
 * older codes.  Rank 0 relaxes twice the rows of the others in `relax`.
 * Expected: rank 0 alone, the innermost region `relax` (its row loop spans
 * the body).
 */
#include <mpi.h>
#include <stdio.h>
#define NCOL 1000
#define IDX(i, j) ((i) * NCOL + (j))
#define FOR_ROWS(i, n) for (i = 1; i < (n) - 1; i++)
#define FOR_COLS(j) for (j = 1; j < NCOL - 1; j++)
static double grid[800 * NCOL];
double relax(rows, w)
int rows;
double w;
{
    int i, j;
    double s = 0;
    FOR_ROWS(i, rows)
        FOR_COLS(j) {
            grid[IDX(i, j)] = (1 - w) * grid[IDX(i, j)] +
                              w * 0.25 * (grid[IDX(i - 1, j)] + grid[IDX(i + 1, j)] +
                                          grid[IDX(i, j - 1)] + grid[IDX(i, j + 1)]);
            s += grid[IDX(i, j)];
        }
    return s;
}
int main(argc, argv)
int argc;
char **argv;
{
    int rank, step;
    double s, tot = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (step = 0; step < (800 * NCOL); step++)
        grid[step] = (step % 11) * 0.1;
    for (step = 0; step < 30; step++) {
        s = relax(rank == 0 ? 800 : 400, 0.8);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.3e\n", tot);
    MPI_Finalize();
    return 0;
}
