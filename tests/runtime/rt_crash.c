/*
 * tests/runtime/rt_crash.c -- MPI program that ends abnormally inside an
 * annotated region; the runtime must still leave each rank's profile
 * (rank-<N>.xml, with the open regions closed).  argv[1]: "segv" (every rank
 * dereferences NULL), "term" (every rank raises SIGTERM), "abort" (rank 0
 * calls MPI_Abort), "exit" (every rank calls exit(0) without MPI_Finalize),
 * "flushsegv" (every rank writes its profile with aa_runtime_flush, then
 * dereferences NULL: the crash profile must replace the flushed one).
 */
#include <mpi.h>
#include <signal.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 10, "main", "main");
RT_REGION(r_doomed, 2, 1, 1, 20, "doomed", "doomed");

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "segv";
    int rank;
    aa_runtime_enter(&r_main);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    aa_runtime_enter(&r_doomed);
    rt_busy(0.02);
    if (strcmp(mode, "flushsegv") == 0)
        aa_runtime_flush();
    if (strcmp(mode, "segv") == 0 || strcmp(mode, "flushsegv") == 0) {
        volatile int *p = NULL;
        *p = rank;
    } else if (strcmp(mode, "term") == 0) {
        raise(SIGTERM);
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 7);
        rt_sleep(5);
    } else if (strcmp(mode, "exit") == 0) {
        exit(0);
    }
    aa_runtime_exit(&r_doomed);
    MPI_Finalize();
    aa_runtime_exit(&r_main);
    return 0;
}
