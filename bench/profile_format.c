/*
 * bench/profile_format.c -- `make bench-profile-format`: size and speed of
 * the two experiment forms, XML (profile/xml_*.c) and binary
 * (profile/binary.c), on a synthetic experiment of P processes x R regions
 * x 18 metrics (analyze/synth.c, slow-group scenario; default 16,384 x
 * 500, the target).  Each form is written to a file and read back
 * N times (default 3); the figures are min and median seconds, with the
 * time to read the file's bytes alone (cache-warm: "disk speed" here) for
 * comparison.  The binary read must give the same values bit for bit.
 * Wall and CPU seconds are both printed: on a shared machine the CPU
 * seconds are the comparable figure.
 *
 * --whole rounds the values as the runtime writes them (times to whole
 * nanoseconds, counts to whole numbers): the binary form then stores them
 * as integers (format version 2).
 *
 *   profile_format [PROCS [REGIONS [REPEATS]]] [--binary-only] [--whole]
 */
#include "analyze/aa_analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of this process: the figure that holds on a shared machine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size : -1;
}

/* Seconds to read the file's bytes into memory (no parsing). */
static double raw_read(const char *path)
{
    static char buf[1 << 20];
    FILE *fp = fopen(path, "rb");
    double t0 = now();
    if (!fp)
        return -1;
    while (fread(buf, 1, sizeof buf, fp) == sizeof buf)
        ;
    fclose(fp);
    return now() - t0;
}

/* 1 when a and b hold the same processes, trees and values, bit for bit. */
static int same_values(const aa_experiment *a, const aa_experiment *b)
{
    if (a->nprocesses != b->nprocesses || a->nmetrics != b->nmetrics)
        return 0;
    for (size_t p = 0; p < a->nprocesses; p++) {
        const aa_process *x = &a->processes[p], *y = &b->processes[p];
        if (x->rank != y->rank || x->nthreads != y->nthreads)
            return 0;
        for (size_t t = 0; t < x->nthreads; t++) {
            const aa_thread *u = &x->threads[t], *v = &y->threads[t];
            if (u->nnodes != v->nnodes ||
                memcmp(u->values, v->values, u->nnodes * a->nmetrics * sizeof(double)))
                return 0;
        }
    }
    return 1;
}

typedef struct form {
    const char *name, *ext;
    int (*write)(const aa_experiment *, const char *, aa_err *);
    double size, write_s, write_cpu, read_min, read_med, cpu_min, cpu_med, raw_s;
} form;

int main(int argc, char **argv)
{
    aa_synth_options so;
    aa_experiment *e = NULL;
    aa_err err;
    int nargs = 0, binary_only = 0, whole = 0, repeats = 3;
    form forms[2] = {{"xml", "xml", aa_experiment_write, 0, 0, 0, 0, 0, 0, 0, 0},
                     {"binary", "aab", aa_experiment_write_binary, 0, 0, 0, 0, 0, 0, 0, 0}};
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    aa_synth_options_init(&so);
    so.scenario = AA_SYNTH_SLOW_GROUP;
    so.nprocs = 16384;
    so.nregions = 500;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--binary-only"))
            binary_only = 1;
        else if (!strcmp(argv[i], "--whole"))
            whole = 1;
        else if (nargs == 0 && (nargs = 1))
            so.nprocs = atoi(argv[i]);
        else if (nargs == 1 && (nargs = 2))
            so.nregions = (size_t)atol(argv[i]);
        else if (nargs == 2 && (nargs = 3))
            repeats = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: profile_format [PROCS [REGIONS [REPEATS]]] [--binary-only] [--whole]\n");
            return 2;
        }
    }
    if (so.nprocs < 1 || so.nregions < 1 || repeats < 1 || repeats > 99)
        return 2;
    if (aa_synth_generate(&so, &e, NULL, NULL, &err)) {
        fprintf(stderr, "profile_format: %s\n", err.msg);
        return 1;
    }
    if (whole)
        aa_experiment_values_whole(e);
    printf("# experiment forms: %d processes x %zu regions x %zu metrics, %d repeats%s\n",
           so.nprocs, so.nregions, e->nmetrics, repeats,
           whole ? ", times in whole ns, whole counts" : "");
    printf("%-7s %12s %9s %9s %9s %9s %9s %9s %9s\n", "form", "bytes", "write_s", "write_cpu",
           "read_min", "read_med", "rcpu_min", "rcpu_med", "bytes_s");
    for (int f = binary_only; f < 2; f++) {
        form *fm = &forms[f];
        char path[512];
        double t[99], c[99], t0, c0;
        snprintf(path, sizeof path, "%s/aa-bench-format-%d.%s", tmp, (int)getpid(), fm->ext);
        t0 = now();
        c0 = cpu_now();
        if (fm->write(e, path, &err)) {
            fprintf(stderr, "profile_format: %s\n", err.msg);
            return 1;
        }
        fm->write_s = now() - t0;
        fm->write_cpu = cpu_now() - c0;
        fm->size = file_size(path);
        fm->raw_s = raw_read(path);
        for (int r = 0; r < repeats; r++) {
            aa_experiment *back = NULL;
            t0 = now();
            c0 = cpu_now();
            if (aa_experiment_read(path, &back, &err)) {
                fprintf(stderr, "profile_format: %s\n", err.msg);
                return 1;
            }
            t[r] = now() - t0;
            c[r] = cpu_now() - c0;
            if (r == 0 && !same_values(e, back)) {
                fprintf(stderr, "profile_format: %s read back differs\n", fm->name);
                return 1;
            }
            aa_experiment_free(back);
        }
        qsort(t, (size_t)repeats, sizeof t[0], cmp_double);
        qsort(c, (size_t)repeats, sizeof c[0], cmp_double);
        fm->read_min = t[0];
        fm->read_med = t[repeats / 2];
        fm->cpu_min = c[0];
        fm->cpu_med = c[repeats / 2];
        printf("%-7s %12.0f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", fm->name, fm->size,
               fm->write_s, fm->write_cpu, fm->read_min, fm->read_med, fm->cpu_min, fm->cpu_med,
               fm->raw_s);
        fflush(stdout);
        unlink(path);
    }
    if (!binary_only)
        printf("# binary / XML: size %.1f%% (target < 10%%), read CPU time %.1f%%\n",
               100 * forms[1].size / forms[0].size, 100 * forms[1].cpu_min / forms[0].cpu_min);
    aa_experiment_free(e);
    return 0;
}
