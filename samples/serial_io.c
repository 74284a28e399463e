/*
 * samples/serial_io.c -- serial checkpoint sample for AutoAnalyzer.
 *
 * Every rank relaxes its own 1-D field for STEPS time steps (the same work
 * on every rank) and joins an MPI_Allreduce of its residual each step.
 * Every CKPT_EVERY steps the field is gathered on rank 0, and rank 0 alone
 * writes it to a checkpoint file (write() in blocks of 64 KiB, then fsync)
 * in a private mkdtemp directory under $TMPDIR or /tmp, removed at the end.
 * Per checkpoint rank 0 writes
 *     4 MiB (4194304 bytes) with -s small,  16 MiB (16777216 bytes) with -s large,
 * the other ranks nothing; -n N is the number of checkpoints (STEPS =
 * CKPT_EVERY x N).
 *
 * THE BOTTLENECK (a dissimilarity bottleneck whose root cause is disk I/O):
 *   rank 0 spends the checkpoints' I/O time alone while ranks 1..P-1 wait
 *   for it in the next step's MPI_Allreduce (in main's time-step loop):
 *   function write_checkpoint(), the write() loop (the line marked
 *   "CHECKPOINT WRITE HERE") and its fsync.  The root cause to find is
 *   disk_io_bytes / io_time; the waiting ranks' time is in the time-step
 *   loop's MPI.
 *
 * BOTTLENECK-AT: write_checkpoint() line 105 ("CHECKPOINT WRITE HERE")
 *
 * Usage: mpirun -np 4 build/samples/serial_io [-s small|large] [-n N]
 * Output: `checkpoint bytes written: N` (rank 0's total, N = SIZE x N) and
 * `checksum: <value>` (integer, independent of timing and scheduling).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024L * 1024L)
#define BLOCK (64 * 1024)
#define CKPT_EVERY 4
#define NCELL 4096

typedef struct {
    long size; /* bytes per checkpoint */
    int nckpt;
} config;

/* Parses -s small|large and -n N; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->size = 4 * MIB;
    cfg->nckpt = 3;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->size = 4 * MIB;
            else if (strcmp(s, "large") == 0)
                cfg->size = 16 * MIB;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 1000)
                return -1;
            cfg->nckpt = (int)n;
        } else {
            return -1;
        }
    }
    return 0;
}

/* One time step of the field: SWEEPS smoothing sweeps (integer arithmetic:
 * the same result everywhere); returns the step's residual. */
static long relax(long *u, int sweeps)
{
    long res = 0;
    int s, i;
    for (s = 0; s < sweeps; s++)
        for (i = 1; i < NCELL - 1; i++)
            u[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4 + (i & 7);
    for (i = 0; i < NCELL; i++)
        res += u[i] & 0xff;
    return res;
}

/* Rank 0's checkpoint: `bytes` of the gathered field, repeated, written in
 * blocks and synced.  Returns the bytes written, -1 on error. */
static long write_checkpoint(const char *path, const long *all, long nall, long bytes)
{
    unsigned char *buf = malloc(BLOCK);
    long off, done = 0;
    int fd = buf ? open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600) : -1;
    if (fd < 0) {
        perror(path);
        free(buf);
        return -1;
    }
    for (off = 0; off < bytes; off += BLOCK) {
        long i;
        for (i = 0; i < BLOCK; i++)
            buf[i] = (unsigned char)(all[(off + i) % nall] & 0xff);
        if (write(fd, buf, BLOCK) != BLOCK) /* CHECKPOINT WRITE HERE */
            break;
        done += BLOCK;
    }
    if (fsync(fd) != 0 || done != bytes) { /* a checkpoint must reach the disk */
        perror(path);
        done = -1;
    }
    close(fd);
    free(buf);
    return done;
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, step, rc = 0, anyfail = 0;
    char dir[4096], path[4200];
    const char *tmp;
    long *u, *all = NULL, written = 0, res, gres, checksum = 0;
    int i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n N]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    u = malloc(NCELL * sizeof *u);
    if (rank == 0)
        all = malloc((size_t)size * NCELL * sizeof *all);
    if (!u || (rank == 0 && !all)) {
        perror("malloc");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < NCELL; i++)
        u[i] = (i * 31 + rank * 7) % 1000;
    dir[0] = '\0';
    if (rank == 0) {
        tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        snprintf(dir, sizeof dir, "%s/aa-serial-io.XXXXXX", tmp);
        if (!mkdtemp(dir)) {
            perror(dir);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        snprintf(path, sizeof path, "%s/checkpoint.dat", dir);
    }
    for (step = 1; step <= CKPT_EVERY * cfg.nckpt; step++) {
        res = relax(u, 2000);
        MPI_Allreduce(&res, &gres, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        checksum = (checksum * 31 + gres) % 1000000007L;
        if (step % CKPT_EVERY == 0) {
            MPI_Gather(u, NCELL, MPI_LONG, all, NCELL, MPI_LONG, 0, MPI_COMM_WORLD);
            if (rank == 0 && rc == 0) {
                long n = write_checkpoint(path, all, (long)size * NCELL, cfg.size);
                rc = n < 0 ? -1 : 0;
                written += n < 0 ? 0 : n;
            }
        }
    }
    if (rank == 0) {
        unlink(path);
        rmdir(dir);
    }
    MPI_Allreduce(&rc, &anyfail, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("serial_io: %d ranks, %d checkpoint(s) of %ld bytes on rank 0\n", size,
               cfg.nckpt, cfg.size);
        if (anyfail == 0) {
            printf("checkpoint bytes written: %ld\n", written);
            printf("checksum: %ld\n", checksum);
        } else {
            fprintf(stderr, "serial_io: a checkpoint failed\n");
        }
    }
    free(u);
    free(all);
    MPI_Finalize();
    return anyfail == 0 ? 0 : 1;
}
