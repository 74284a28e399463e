/*
 * tests/runtime/rt_common.h -- helpers shared by the hand-annotated runtime
 * test programs: region descriptors as the instrumenter would emit them,
 * and workloads with known costs (sleep, busy CPU, exact I/O bytes).
 */
#ifndef RT_COMMON_H
#define RT_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/aa_runtime.h"

#define RT_REGION(var, id, parent, kind, line, name, func)                      \
    static aa_runtime_region var = {id, parent, kind, line, 1, line + 5, 1,     \
                                    name, func, __FILE__, 0}

static inline double rt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread (the truth the runtime is checked against). */
static inline double rt_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Burns CPU for about `sec` seconds of wall time. */
static inline double rt_busy(double sec)
{
    volatile double x = 0;
    double t0 = rt_now();
    while (rt_now() - t0 < sec)
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
    return x;
}

static inline void rt_sleep(double sec)
{
    struct timespec ts = {(time_t)sec, (long)((sec - (time_t)sec) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Writes exactly 3,600 bytes (3 x 1000 write, 500 fwrite, 100 pwrite) and
 * reads back exactly 1,500 (1000 read, 500 fread) in `dir`. */
static inline int rt_io(const char *dir, int tag)
{
    char path[4096], buf[1000];
    int fd;
    FILE *fp;
    memset(buf, 'x', sizeof buf);
    snprintf(path, sizeof path, "%s/io-%d.dat", dir, tag);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            return -1;
    if (pwrite(fd, buf, 100, 3000) != 100)
        return -1;
    close(fd);
    fp = fopen(path, "a");
    if (!fp || fwrite(buf, 1, 500, fp) != 500)
        return -1;
    fclose(fp);
    fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, buf, 1000) != 1000)
        return -1;
    close(fd);
    fp = fopen(path, "r");
    if (!fp || fread(buf, 1, 500, fp) != 500)
        return -1;
    fclose(fp);
    unlink(path);
    return 0;
}

#endif
