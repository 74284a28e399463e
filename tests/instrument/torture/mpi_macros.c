/* MPI calls: plain statements and assignments are wrapped; calls inside
 * macros (error-checking wrappers) and conditions are left alone.
 * MPI: 2
 * EXPECT: MPI_Allreduce@25 1
 * EXPECT: MPI_Bcast@26 1
 * EXPECT: main 1
 * WARN: MPI_Comm_rank not instrumented: the call is part of a larger expression
 */
#include <mpi.h>
#include <stdio.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        if ((call) != MPI_SUCCESS)                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, v, sum = 0, rc;
    MPI_Init(&argc, &argv);
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    v = rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rc = MPI_Bcast(&sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
        return 1;
    for (int i = 0; i < 3; i++)
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("size %d sum %d rc %d\n", size, sum, rc);
    MPI_Finalize();
    return 0;
}
