/*
 * tests/diagnosis/io_costs.c -- what the diagnosis suite's I/O costs on this
 * machine at a given rank count, for its generator (gen.py): every process
 * does what the generated I/O phases do, all at once, in a directory of its
 * own under $TMPDIR (or /tmp), and the time per unit is averaged over the
 * processes -- the time the analysis judges such a region on.  The
 * generated work is calibrated in CPU time; a process judged on wall time
 * (a dedicated node) spends it as wall time, and one the machine preempted
 * (more processes than cores) is judged on its CPU time plus the time
 * inside the I/O calls the runtime wraps (docs/analysis.md §3).  So the
 * calls the runtime wraps (write, fwrite) are timed on the wall clock,
 * inside the calls, as the runtime's io_time counts them, and the others
 * (fprintf, the metadata calls: their CPU time outside any wrapped call)
 * on the process's CPU clock.  The units, as gen.py spends them:
 *   write_ms_per_mb    write() of 64 kB chunks, back to the file's start
 *                      every 64 chunks (the page cache, not the disk)
 *   fwrite_ms_per_mb   the same through fwrite() and rewind()
 *   fprintf_ms_per_kline   1000 formatted lines into a file opened "w"
 *   meta_ms            one open(O_CREAT) + close + stat + unlink
 * Prints one "name value" line each:
 *   mpirun -np P ./io_costs
 * Exit 1 (with a message) when the directory or a file cannot be written.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { CHUNK = 1 << 16, NCHUNK = 2048, NLINE = 40000, NMETA = 4000 };
static char buf[CHUNK];

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the mean over the processes of mine */
static double mean_over(double mine)
{
    double sum = 0;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / n;
}

/* 0 on success; the phases' CPU time per unit in ms in *ms */
static int time_write(const char *path, double *ms)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), b;
    double in = 0;
    if (fd < 0)
        return -1;
    for (b = 0; b < NCHUNK; b++) {
        double t0 = wall_now();
        ssize_t n = write(fd, buf, sizeof buf);
        in += wall_now() - t0;
        if (n != (ssize_t)sizeof buf) {
            close(fd);
            return -1;
        }
        if (b % 64 == 63)
            lseek(fd, 0, SEEK_SET);
    }
    *ms = 1e3 * in / (NCHUNK * (CHUNK / 1e6));
    return close(fd);
}

static int time_fwrite(const char *path, double *ms)
{
    FILE *f = fopen(path, "wb");
    double in = 0;
    int b;
    if (!f)
        return -1;
    for (b = 0; b < NCHUNK; b++) {
        double t0 = wall_now();
        size_t n = fwrite(buf, 1, sizeof buf, f);
        in += wall_now() - t0;
        if (n != sizeof buf) {
            fclose(f);
            return -1;
        }
        if (b % 64 == 63)
            rewind(f);
    }
    *ms = 1e3 * in / (NCHUNK * (CHUNK / 1e6));
    return fclose(f) ? -1 : 0;
}

static int time_fprintf(const char *path, double *ms)
{
    double c0 = cpu_now();
    int b, k;
    for (k = 0; k < NLINE / 1000; k++) {
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        for (b = 0; b < 1000; b++)
            fprintf(f, "step %d cell %d value %.6e residual %.3e\n", k, b, b * 0.5,
                    1.0 / (b + 1));
        if (fclose(f))
            return -1;
    }
    *ms = 1e3 * (cpu_now() - c0) / (NLINE / 1000);
    return 0;
}

static int time_meta(const char *dir, int rank, double *ms)
{
    char path[600];
    struct stat st;
    double c0 = cpu_now();
    int b;
    for (b = 0; b < NMETA; b++) {
        int fd;
        snprintf(path, sizeof path, "%s/m-%d-%d", dir, rank, b % 8);
        fd = open(path, O_WRONLY | O_CREAT, 0600);
        if (fd < 0)
            return -1;
        close(fd);
        if (stat(path, &st) != 0)
            return -1;
        unlink(path);
    }
    *ms = 1e3 * (cpu_now() - c0) / NMETA;
    return 0;
}

int main(int argc, char **argv)
{
    const char *t = getenv("TMPDIR");
    char dir[512], path[600];
    double w = 0, fw = 0, fp = 0, mt = 0;
    int rank, bad = 0, anybad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 'x', sizeof buf);
    snprintf(dir, sizeof dir, "%s/aa-io-costs-%d-%d", t && *t ? t : "/tmp", (int)getpid(), rank);
    bad = mkdir(dir, 0700) != 0;
    snprintf(path, sizeof path, "%s/ckpt", dir);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = bad || time_write(path, &w);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = bad || time_fwrite(path, &fw);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = bad || time_fprintf(path, &fp);
    MPI_Barrier(MPI_COMM_WORLD);
    bad = bad || time_meta(dir, rank, &mt);
    unlink(path);
    rmdir(dir);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        if (bad)
            fprintf(stderr, "io_costs: rank %d: cannot write in %s\n", rank, dir);
        MPI_Finalize();
        return 1;
    }
    w = mean_over(w);
    fw = mean_over(fw);
    fp = mean_over(fp);
    mt = mean_over(mt);
    if (rank == 0)
        printf("write_ms_per_mb %.6g\nfwrite_ms_per_mb %.6g\nfprintf_ms_per_kline %.6g\n"
               "meta_ms %.6g\n", w, fw, fp, mt);
    MPI_Finalize();
    return 0;
}
