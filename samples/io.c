/*
 * samples/io.c -- disk-I/O-heavy sample for AutoAnalyzer.
 *
 * Every rank creates a private temporary directory (mkdtemp under $TMPDIR,
 * or /tmp), writes a data file and reads it back, once with POSIX write()/
 * read() and once with stdio fwrite()/fread(), then removes everything.
 * Per iteration and rank it writes, and reads back, exactly
 *     8 MiB (8388608 bytes) with -s small,  32 MiB (33554432 bytes) with -s large,
 * half through POSIX calls and half through stdio; -n ITER repeats that.
 * So bytes written per rank = bytes read per rank = SIZE * ITER.
 *
 * THE BOTTLENECK (a disparity bottleneck whose root cause is disk I/O):
 *   function posix_roundtrip(), the loop `for (off = 0; off < bytes; ...)`
 *   that calls write() (the line marked "IO WRITE HERE") and the read-back
 *   loop below it; and function stdio_roundtrip(), the fwrite() loop (line
 *   marked "STDIO WRITE HERE") and its fread() loop.  These regions move all
 *   the bytes; the light region fill_block() and verify_block() only touch
 *   a 64 KiB buffer.  The root cause to find is disk_io_bytes / io_time.
 *
 * BOTTLENECK-AT: posix_roundtrip() line 112 ("IO WRITE HERE")
 * BOTTLENECK-AT: stdio_roundtrip() line 163 ("STDIO WRITE HERE")
 *
 * Usage: mpirun -np 4 build/samples/io [-s small|large] [-n ITER]
 * Output: `bytes written per rank: N`, `bytes read per rank: N` (identical
 * on every rank, checked), and `checksum: <value>` (integer, independent of
 * timing and scheduling).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024L * 1024L)
#define SIZE_SMALL (8 * MIB)
#define SIZE_LARGE (32 * MIB)
#define BLOCK (64 * 1024)

typedef struct {
    long size;
    int iters;
} config;

/* Parses -s small|large and -n ITER; returns 0 on success, -1 on bad input. */
static int parse_args(int argc, char **argv, config *cfg)
{
    int i;
    cfg->size = SIZE_SMALL;
    cfg->iters = 1;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "small") == 0)
                cfg->size = SIZE_SMALL;
            else if (strcmp(s, "large") == 0)
                cfg->size = SIZE_LARGE;
            else
                return -1;
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 1000)
                return -1;
            cfg->iters = (int)n;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Deterministic content of block number `blk` of a file. */
static void fill_block(unsigned char *buf, long blk, int rank)
{
    long i;
    for (i = 0; i < BLOCK; i++)
        buf[i] = (unsigned char)((i * 7 + blk * 13 + rank * 29) & 0xff);
}

/* Adds the block to the running checksum; returns 0 if the block holds what
 * fill_block() wrote, -1 otherwise. */
static int verify_block(const unsigned char *buf, long blk, int rank, uint64_t *sum)
{
    long i;
    for (i = 0; i < BLOCK; i++) {
        if (buf[i] != (unsigned char)((i * 7 + blk * 13 + rank * 29) & 0xff))
            return -1;
        *sum += buf[i];
    }
    return 0;
}

/* Writes `bytes` with write() and reads them back with read().  Counts the
 * bytes actually transferred.  Returns 0, or -1 with a message on error. */
static int posix_roundtrip(const char *path, long bytes, int rank, unsigned char *buf,
                           long *written, long *nread, uint64_t *sum)
{
    long off;
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    for (off = 0; off < bytes; off += BLOCK) {
        ssize_t n;
        fill_block(buf, off / BLOCK, rank);
        n = write(fd, buf, BLOCK); /* IO WRITE HERE */
        if (n != BLOCK) {
            perror(path);
            close(fd);
            return -1;
        }
        *written += n;
    }
    if (fsync(fd) != 0) { /* a checkpoint must reach the disk */
        perror(path);
        close(fd);
        return -1;
    }
    if (close(fd) != 0) {
        perror(path);
        return -1;
    }
    fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return -1;
    }
    for (off = 0; off < bytes; off += BLOCK) {
        ssize_t n = read(fd, buf, BLOCK);
        if (n < 0 && errno == EINTR) {
            off -= BLOCK;
            continue;
        }
        if (n != BLOCK || verify_block(buf, off / BLOCK, rank, sum) != 0) {
            fprintf(stderr, "%s: short or corrupt read at offset %ld\n", path, off);
            close(fd);
            return -1;
        }
        *nread += n;
    }
    close(fd);
    return unlink(path);
}

/* The same round trip through stdio (fwrite/fread). */
static int stdio_roundtrip(const char *path, long bytes, int rank, unsigned char *buf,
                           long *written, long *nread, uint64_t *sum)
{
    long off;
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        return -1;
    }
    for (off = 0; off < bytes; off += BLOCK) {
        fill_block(buf, off / BLOCK + 1000, rank);
        if (fwrite(buf, 1, BLOCK, fp) != BLOCK) /* STDIO WRITE HERE */
            break;
        *written += BLOCK;
    }
    if (fclose(fp) != 0 || off < bytes) {
        perror(path);
        return -1;
    }
    fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    for (off = 0; off < bytes; off += BLOCK) {
        size_t n = fread(buf, 1, BLOCK, fp);
        if (n != BLOCK || verify_block(buf, off / BLOCK + 1000, rank, sum) != 0) {
            fprintf(stderr, "%s: short or corrupt read at offset %ld\n", path, off);
            fclose(fp);
            return -1;
        }
        *nread += (long)n;
    }
    fclose(fp);
    return unlink(path);
}

int main(int argc, char **argv)
{
    config cfg;
    int rank, size, it, rc = 0, anyfail = 0;
    char dir[4096], path[4200];
    const char *tmp;
    unsigned char *buf;
    long written = 0, nread = 0, lo[2], hi[2], mine[2];
    uint64_t sum = 0, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &cfg) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [-s small|large] [-n ITER]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(dir, sizeof dir, "%s/aa-io-sample.XXXXXX", tmp);
    buf = malloc(BLOCK);
    if (!buf || !mkdtemp(dir)) {
        perror(dir);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (it = 0; it < cfg.iters && rc == 0; it++) {
        snprintf(path, sizeof path, "%s/posix-%d.dat", dir, rank);
        rc = posix_roundtrip(path, cfg.size / 2, rank, buf, &written, &nread, &sum);
        if (rc != 0)
            break;
        snprintf(path, sizeof path, "%s/stdio-%d.dat", dir, rank);
        rc = stdio_roundtrip(path, cfg.size / 2, rank, buf, &written, &nread, &sum);
    }
    if (rc != 0) {
        snprintf(path, sizeof path, "%s/posix-%d.dat", dir, rank);
        unlink(path);
        snprintf(path, sizeof path, "%s/stdio-%d.dat", dir, rank);
        unlink(path);
    }
    rmdir(dir);
    free(buf);

    MPI_Allreduce(&rc, &anyfail, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    mine[0] = written;
    mine[1] = nread;
    MPI_Allreduce(mine, lo, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &checksum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("io: %d ranks, %d iteration(s), %ld bytes per rank per iteration\n",
               size, cfg.iters, cfg.size);
        if (anyfail == 0 && lo[0] == hi[0] && lo[1] == hi[1]) {
            printf("bytes written per rank: %ld\n", written);
            printf("bytes read per rank: %ld\n", nread);
            printf("checksum: %llu\n", (unsigned long long)checksum);
        } else {
            fprintf(stderr, "io: I/O failed or ranks disagree on byte counts\n");
        }
    }
    rc = (anyfail == 0 && lo[0] == hi[0] && lo[1] == hi[1]) ? 0 : 1;
    MPI_Finalize();
    return rc;
}
