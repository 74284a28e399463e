/*
 * bench/edge_probes/odd_ranks.c -- edge probe: an uneven decomposition on
 * an odd number of ranks (5), with a halo exchange by MPI_Sendrecv.  Of
 * 650 rows every rank owns 100 and the last one the rest, as codes that
 * give the remainder to the last rank do (here a large one): ranks 0-3
 * sweep 100 rows, rank 4 250.
 * Expected: rank 4 alone, the innermost region `sweep` (its row loop).
 */
#include <mpi.h>
#include <stdio.h>
#define NCOL 4000
static double grid[260][NCOL];
static double sweep(int rows) { double r = 0; for (int i = 1; i <= rows; i++) for (int j = 1; j < NCOL - 1; j++) { double v = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]); r += v - grid[i][j]; grid[i][j] = v; } return r; }
static void exchange(int rank, int size, int rows)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(grid[1], NCOL, MPI_DOUBLE, up, 1, grid[rows + 1], NCOL, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(grid[rows], NCOL, MPI_DOUBLE, down, 2, grid[0], NCOL, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = 650, rows = 100;
    if (rank == size - 1 && n - (size - 1) * 100 <= 258)
        rows = n - (size - 1) * 100;
    for (int i = 0; i < 260; i++)
        for (int j = 0; j < NCOL; j++)
            grid[i][j] = (i + j + rank) % 13;
    double res = 0;
    for (int step = 0; step < 150; step++) {
        exchange(rank, size, rows);
        double r = sweep(rows);
        MPI_Allreduce(&r, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("residual: %.3f\n", res);
    MPI_Finalize();
    return 0;
}
