/*
 * bench/profile_io.c -- benchmark of the profile XML writer and reader
 * (`make bench`): builds an experiment of P processes x R region-tree nodes
 * x all 18 standard metrics (default 1,024 x 500), writes it to a buffer and
 * to a file, reads the file back, and prints seconds and MB for each step.
 *
 *   build/bench/profile_io [PROCS [NODES]]
 */
#include "profile/aa_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int nprocs = argc > 1 ? atoi(argv[1]) : 1024, nnodes = argc > 2 ? atoi(argv[2]) : 500;
    size_t nm, m;
    const aa_metric_info *known = aa_metric_known(&nm);
    aa_experiment *e = aa_experiment_new(), *back = NULL;
    unsigned long long seed = 88172645463325252ULL;
    aa_buf b;
    aa_err err;
    char path[256];
    double t0, t1, t2, t3;
    int r, n, metrics = 0;
    if (nprocs < 1 || nnodes < 1)
        return 2;
    e->id = strdup("bench");
    e->program = strdup("bench");
    e->nprocs = nprocs;
    for (m = 0; m < nm && metrics < 18; m++, metrics++)
        aa_experiment_add_metric(e, known[m].name, known[m].unit);
    for (n = 0; n < nnodes; n++) {
        aa_region reg = {(uint32_t)n, n ? AA_KIND_LOOP : AA_KIND_PROGRAM, "", "solve", "solver.c",
                         n, 1, n + 3, 1, n ? (uint32_t)((n - 1) / 4) : 0};
        char name[32];
        snprintf(name, sizeof name, n ? "loop@%d" : "program", n);
        reg.name = name;
        aa_experiment_add_region(e, &reg);
    }
    for (r = 0; r < nprocs; r++) {
        aa_process *p = aa_experiment_add_process(e, r);
        aa_thread *t = aa_process_add_thread(p, 0);
        for (n = 0; n < nnodes; n++) {
            long k = aa_thread_add_node(e, t, (uint32_t)n, n ? (n - 1) / 4 : -1);
            double *v = aa_node_values(e, t, (size_t)k);
            for (m = 0; m < (size_t)metrics; m++) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                /* times are arbitrary doubles (17 digits), counts integers */
                v[m] = strcmp(e->metrics[m].unit, "s") == 0 ? (double)(seed >> 11) / 9007199254740992.0 * 10
                                                            : (double)(seed % 100000000);
            }
        }
    }
    aa_buf_init(&b);
    t0 = now();
    if (aa_experiment_write_buf(e, &b, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t1 = now();
    snprintf(path, sizeof path, "%s/aa-bench-profile-%d.xml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    if (aa_experiment_write(e, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t2 = now();
    if (aa_experiment_read(path, &back, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        unlink(path);
        return 1;
    }
    t3 = now();
    unlink(path);
    printf("profile_io: %d processes x %d nodes x %d metrics = %.1f M values, %.1f MB of XML\n",
           nprocs, nnodes, metrics, (double)nprocs * nnodes * metrics / 1e6, b.len / 1e6);
    printf("profile_io: write to buffer %.2f s (%.0f MB/s)\n", t1 - t0, b.len / 1e6 / (t1 - t0));
    printf("profile_io: write to file   %.2f s (atomic, includes fsync)\n", t2 - t1);
    printf("profile_io: read and check  %.2f s (%.0f MB/s)\n", t3 - t2, b.len / 1e6 / (t3 - t2));
    aa_experiment_free(back);
    aa_experiment_free(e);
    aa_buf_free(&b);
    return 0;
}
