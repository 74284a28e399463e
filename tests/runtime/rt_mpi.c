/*
 * tests/runtime/rt_mpi.c -- an MPI program annotated by hand with the probe
 * API, with known costs per region: sleep (wall >> cpu), busy (cpu ~ wall),
 * POSIX/stdio I/O of exactly 3,600 bytes written and 1,500 read, a
 * communication region sending and receiving exactly 4,880 bytes per rank
 * (Sendrecv 4,000 + Allreduce 80 + Isend/Irecv 800), MPI-IO writing exactly
 * 256 bytes and reading 128 per rank, one-sided Put 800 / Get 200 bytes,
 * collectives (Bcast, Alltoallv, Gather) with known per-rank byte counts, a
 * time-step loop of 10 steps (a halo function with two MPI_Sendrecv a visit,
 * an MPI_Allreduce in the loop's body: 9 paired steps each, sync_*), a loop calling a leaf 5 times, recursion, the scope
 * form with an early return, a mismatched exit, MPI_Pcontrol pause/resume.
 * argv[1] = scratch directory (default ".").
 */
#include <mpi.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_sleep, 2, 1, 1, 30, "sleep_region", "sleep_region");
RT_REGION(r_busy, 3, 1, 1, 40, "busy_region", "busy_region");
RT_REGION(r_io, 4, 1, 1, 50, "io_region", "io_region");
RT_REGION(r_comm, 5, 1, 1, 60, "comm_region", "comm_region");
RT_REGION(r_mpiio, 6, 1, 1, 70, "mpiio_region", "mpiio_region");
RT_REGION(r_loop, 7, 1, 2, 80, "loop@80", "main");
RT_REGION(r_leaf, 8, 0, 1, 90, "leaf", "leaf");
RT_REGION(r_rec, 9, 0, 1, 100, "rec", "rec");
RT_REGION(r_early, 10, 0, 1, 110, "early", "early");
RT_REGION(r_never, 11, 1, 4, 120, "never_entered", "main");
RT_REGION(r_paused, 12, 1, 4, 130, "paused_region", "main");
RT_REGION(r_rma, 13, 1, 1, 140, "rma_region", "rma_region");
RT_REGION(r_coll, 14, 1, 1, 150, "coll_region", "coll_region");
RT_REGION(r_steps, 15, 1, 2, 160, "loop@160", "main");
RT_REGION(r_halo, 16, 0, 1, 170, "halo", "halo");

static volatile int sink;

static int rec(int n)
{
    AA_RUNTIME_SCOPE(r_rec);
    return n <= 1 ? 1 : n + rec(n - 1);
}

static int early(int x)
{
    AA_RUNTIME_SCOPE(r_early);
    if (x > 0)
        return x;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int rank, size;
    aa_runtime_enter(&r_main);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double c0 = rt_thread_cpu();
    aa_runtime_enter(&r_sleep);
    rt_sleep(0.15);
    double c1 = rt_thread_cpu();
    aa_runtime_exit(&r_sleep);

    aa_runtime_enter(&r_busy);
    double c2 = rt_thread_cpu();
    rt_busy(0.15);
    double c3 = rt_thread_cpu();
    aa_runtime_exit(&r_busy);
    printf("truth %d sleep_cpu=%.9f busy_cpu=%.9f\n", rank, c1 - c0, c3 - c2);
    fflush(stdout);

    aa_runtime_enter(&r_io);
    if (rt_io(dir, rank) != 0) {
        perror("rt_io");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    aa_runtime_exit(&r_io);

    aa_runtime_enter(&r_comm);
    {
        int out[1000], in[1000];
        double a[10], b[10];
        MPI_Request rq[2];
        for (int i = 0; i < 1000; i++)
            out[i] = rank;
        for (int i = 0; i < 10; i++)
            a[i] = i;
        MPI_Sendrecv(out, 1000, MPI_INT, (rank + 1) % size, 1, in, 1000, MPI_INT,
                     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(a, b, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Irecv(in, 200, MPI_INT, (rank + size - 1) % size, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, 200, MPI_INT, (rank + 1) % size, 2, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        sink += in[0] + (int)b[1];
    }
    aa_runtime_exit(&r_comm);

    aa_runtime_enter(&r_mpiio);
    {
        char path[4096], buf[256];
        MPI_File fh;
        memset(buf, 'a' + rank % 26, sizeof buf);
        snprintf(path, sizeof path, "%s/mpiio.dat", dir);
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh);
        MPI_File_write_at(fh, (MPI_Offset)rank * 256, buf, 256, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_read_at(fh, 0, buf, 128, MPI_CHAR, MPI_STATUS_IGNORE); /* write-only: fails, 0 bytes */
        MPI_File_close(&fh);
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        MPI_File_read_at(fh, 0, buf, 128, MPI_CHAR, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    }
    aa_runtime_exit(&r_mpiio);

    /* one-sided: Put 100 doubles (800 bytes sent), Get 25 (200 received) */
    aa_runtime_enter(&r_rma);
    {
        double *winbuf = NULL, src[100], dst[25];
        MPI_Win win;
        for (int i = 0; i < 100; i++)
            src[i] = rank;
        /* MPI_Win_allocate: works with OpenMPI's shared-memory osc here */
        MPI_Win_allocate(100 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &winbuf, &win);
        MPI_Win_fence(0, win);
        MPI_Put(src, 100, MPI_DOUBLE, (rank + 1) % size, 0, 100, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        MPI_Get(dst, 25, MPI_DOUBLE, (rank + size - 1) % size, 0, 25, MPI_DOUBLE, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        sink += (int)dst[0];
    }
    aa_runtime_exit(&r_rma);

    /* collectives: Bcast 10 ints from 0, Alltoallv (send i+1 ints to rank
     * i, receive rank+1 from each), Gather 2 ints to 0 */
    aa_runtime_enter(&r_coll);
    {
        int b[10] = {0}, sc[64], sd[64], rc[64], rd[64], sb[64], rb[256], g[2] = {rank, rank}, all[128];
        int off = 0;
        MPI_Bcast(b, 10, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < size && i < 64; i++) {
            sc[i] = i + 1;
            sd[i] = off;
            off += i + 1;
            rc[i] = rank + 1;
            rd[i] = i * (rank + 1);
        }
        for (int i = 0; i < 64; i++)
            sb[i] = rank;
        MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
        MPI_Gather(g, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
        sink += rb[0] + b[0] + all[0];
    }
    aa_runtime_exit(&r_coll);

    /* steps: empty messages (no bytes), the pairing points of docs/runtime.md */
    aa_runtime_enter(&r_steps);
    for (int k = 0; k < 10; k++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        double x = k;
        aa_runtime_enter(&r_halo);
        MPI_Sendrecv(NULL, 0, MPI_BYTE, right, 7, NULL, 0, MPI_BYTE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 8, NULL, 0, MPI_BYTE, right, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        aa_runtime_exit(&r_halo);
        MPI_Allreduce(MPI_IN_PLACE, &x, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sink += x;
    }
    aa_runtime_exit(&r_steps);

    aa_runtime_enter(&r_loop);
    for (int i = 0; i < 5; i++) {
        aa_runtime_enter(&r_leaf);
        sink += i;
        aa_runtime_exit(&r_leaf);
    }
    aa_runtime_exit(&r_loop);

    sink += rec(3) + early(1) + early(0);
    aa_runtime_exit(&r_never); /* stray exit: counted, ignored */

    MPI_Pcontrol(0);
    aa_runtime_enter(&r_paused);
    MPI_Barrier(MPI_COMM_WORLD);
    aa_runtime_exit(&r_paused);
    MPI_Pcontrol(1);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    aa_runtime_exit(&r_main);
    return 0;
}
