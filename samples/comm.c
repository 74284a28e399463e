/*
 * samples/comm.c -- communication-heavy sample for AutoAnalyzer.
 *
 * A distributed transpose-and-shift pattern: every round, each rank
 * exchanges a block with every other rank (MPI_Alltoall), then passes
 * messages around a ring (MPI_Isend/MPI_Irecv to the right/from the left
 * neighbour), with only light local computation in between.
 *
 * Exact traffic per rank (P = number of ranks, R = rounds, default 10 small /
 * 20 large, set with -n):
 *   alltoall:  R * P * BLOCK bytes sent (the send buffer holds P blocks, the
 *              rank's own block included, as MPI counts sendcount * P);
 *              BLOCK = 131072 bytes small, 524288 bytes large;
 *   ring:      R * RING_STEPS * MSG bytes sent; RING_STEPS = 100 small /
 *              200 large, MSG = 8192 bytes small / 32768 bytes large.
 *   The program prints these numbers as `alltoall bytes sent per rank`,
 *   `ring bytes sent per rank` and their sum `bytes sent per rank`; bytes
 *   received per rank are the same.
 *
 * THE BOTTLENECK (a disparity bottleneck whose root cause is MPI traffic):
 *   function transpose_blocks(), the MPI_Alltoall on the line marked
 *   "ALLTOALL HERE", inside the round loop of main(); and function
 *   ring_shift(), its loop `for (step = 0; step < steps; step++)` with the
 *   MPI_Isend/MPI_Irecv pair (line marked "RING HERE").  The local regions
 *   fill_blocks() and combine_blocks() are light.  The root causes to find
 *   are mpi_bytes and mpi_time.
 *
 * BOTTLENECK-AT: transpose_blocks() line 99 ("ALLTOALL HERE")
 * BOTTLENECK-AT: ring_shift() line 110 ("RING HERE")
 *
 * Usage: mpirun -np 4 build/samples/comm [-s small|large] [-n ROUNDS]
 * Output: the byte counts above and `checksum: <value>` (an integer sum,
 * independent of timing and scheduling).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SMALL 131072
#define BLOCK_LARGE 524288
#define MSG_SMALL 8192
#define MSG_LARGE 32768
#define STEPS_SMALL 100
#define STEPS_LARGE 200
#define ROUNDS_SMALL 10
#define ROUNDS_LARGE 20

typedef struct {
    long block, msg;
    int steps, rounds;
} config;

/* Parses -s small|large and -n ROUNDS; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i, large = 0, rounds = 0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                large = 0;
            else if (strcmp(s, "large") == 0)
                large = 1;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 100000)
                return -1;
            rounds = (int)n;
        } else {
            return -1;
        }
    }
    cfg->block = large ? BLOCK_LARGE : BLOCK_SMALL;
    cfg->msg = large ? MSG_LARGE : MSG_SMALL;
    cfg->steps = large ? STEPS_LARGE : STEPS_SMALL;
    cfg->rounds = rounds ? rounds : (large ? ROUNDS_LARGE : ROUNDS_SMALL);
    return 0;
}

/* Block p of the send buffer holds values identifying (round, rank, p). */
static void fill_blocks(int32_t *send, int nper, int size, int rank, int round)
{
    int p, k;
    for (p = 0; p < size; p++)
        for (k = 0; k < nper; k++)
            send[(size_t)p * nper + k] = (round * 7 + rank * 131 + p * 17 + k) & 0xffff;
}

/* The all-to-all exchange: rank r's block p goes to rank p. */
static void transpose_blocks(const int32_t *send, int32_t *recv, int nper)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Alltoall(send, nper, MPI_INT32_T, recv, nper, MPI_INT32_T, comm); /* ALLTOALL HERE */
}

/* Passes a message `steps` times around the ring; each hop adds the rank. */
static void ring_shift(int32_t *msg, int32_t *tmp, int n, int steps, int rank, int size)
{
    int step, k;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (step = 0; step < steps; step++) {
        MPI_Request req[2];
        MPI_Irecv(tmp, n, MPI_INT32_T, left, step, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(msg, n, MPI_INT32_T, right, step, MPI_COMM_WORLD, &req[1]); /* RING HERE */
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        for (k = 0; k < n; k++)
            msg[k] = (tmp[k] + rank + step) & 0xffff;
    }
}

/* Light local work on the received blocks; returns their sum.  A negative
 * value would mean corrupt data: stop at the first one. */
static uint64_t combine_blocks(const int32_t *recv, size_t n, int *bad)
{
    uint64_t s = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        if (recv[k] < 0) {
            *bad = 1;
            break;
        }
        s += (uint64_t)recv[k];
    }
    return s;
}

/* Returns the number of ranks needed for the ring, or 0 if it makes no
 * sense (a single rank sends to itself; allowed, but reported). */
static int ring_peers(int size)
{
    if (size < 2)
        return 0;
    return size;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, round, nper, nmsg, bad = 0, anybad = 0, k;
    int32_t *send, *recv, *msg, *tmp;
    uint64_t local = 0, checksum = 0;
    long a2a_bytes, ring_bytes;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n ROUNDS]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    nper = (int)(cfg.block / (long)sizeof(int32_t));
    nmsg = (int)(cfg.msg / (long)sizeof(int32_t));
    send = malloc((size_t)cfg.block * (size_t)size);
    recv = malloc((size_t)cfg.block * (size_t)size);
    msg = malloc((size_t)cfg.msg);
    tmp = malloc((size_t)cfg.msg);
    if (!send || !recv || !msg || !tmp) {
        fprintf(stderr, "comm: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (k = 0; k < nmsg; k++)
        msg[k] = (rank * 3 + k) & 0xffff;

    for (round = 0; round < cfg.rounds; round++) {
        fill_blocks(send, nper, size, rank, round);
        transpose_blocks(send, recv, nper);
        local += combine_blocks(recv, (size_t)nper * size, &bad);
        ring_shift(msg, tmp, nmsg, cfg.steps, rank, size);
    }
    local += combine_blocks(msg, (size_t)nmsg, &bad);

    a2a_bytes = (long)cfg.rounds * size * cfg.block;
    ring_bytes = (long)cfg.rounds * cfg.steps * cfg.msg;
    MPI_Reduce(&local, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("comm: %d ranks, %d rounds, alltoall block %ld bytes, ring %d x %ld bytes%s\n",
               size, cfg.rounds, cfg.block, cfg.steps, cfg.msg,
               ring_peers(size) ? "" : " (single rank: ring to self)");
        printf("alltoall bytes sent per rank: %ld\n", a2a_bytes);
        printf("ring bytes sent per rank: %ld\n", ring_bytes);
        printf("bytes sent per rank: %ld\n", a2a_bytes + ring_bytes);
        if (!anybad)
            printf("checksum: %llu\n", (unsigned long long)checksum);
        else
            fprintf(stderr, "comm: corrupt data received\n");
    }
    free(send);
    free(recv);
    free(msg);
    free(tmp);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
