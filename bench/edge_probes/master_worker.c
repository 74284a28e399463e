/*
 * bench/edge_probes/master_worker.c -- edge probe: a real master.  Rank 0
 * hands out 120 tasks of varying size one at a time (MPI_Recv from any
 * worker, MPI_Send of the next task) and computes nothing; ranks 1-3 run
 * `solve_task` on what they get.  The workers' loads differ task by task
 * but even out over the run.  Expected: rank 0 recognized as a master and
 * left out, the workers one cluster, no imbalance; `solve_task` the work.
 */
#include <mpi.h>
#include <stdio.h>
static double solve_task(int size)
{
    double s = 0;
    for (long i = 0; i < 20000L * size; i++)
        s += (i % 7) * 0.125 - s * 1e-12;
    return s;
}
int main(int argc, char **argv)
{
    int rank, nprocs, task, next = 0, stop = -1, done = 0;
    double r, tot = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (rank == 0) {
        while (done < nprocs - 1) {
            MPI_Recv(&r, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            tot += r;
            if (next < 120) {
                task = 20 + (next * 37) % 60;
                next++;
                MPI_Send(&task, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD);
            } else {
                MPI_Send(&stop, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD);
                done++;
            }
        }
        printf("total: %.3e\n", tot);
    } else {
        r = 0;
        for (;;) {
            MPI_Send(&r, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            MPI_Recv(&task, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (task < 0)
                break;
            r = solve_task(task);
        }
    }
    MPI_Finalize();
    return 0;
}
