/*
 * bench/report_bench.c -- `make bench-report`: the HTML report at scale.
 * Builds a synthetic experiment in memory (analyze/synth.c, slow-group
 * scenario; default 10,000 ranks x 2,000 regions), analyses it, renders the
 * report and writes it to a file; prints the time of each phase and the
 * size of the page.  bench/report_bench.sh then loads the page in headless
 * Chromium and prints its load time.
 *
 *   report_bench [--procs P] [--regions R] -o REPORT.html
 */
#include "analyze/aa_analyze.h"
#include "report/aa_report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the process (user + sys): the figure to compare on a
 * shared machine. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    aa_synth_options so;
    aa_analyze_options ao;
    aa_experiment *e = NULL;
    aa_analysis *a = NULL;
    aa_buf html;
    aa_err err;
    const char *out = NULL;
    double t0, t1, t2, t3, c0, c1, c2, c3;
    int i;

    aa_synth_options_init(&so);
    so.scenario = AA_SYNTH_SLOW_GROUP;
    so.nprocs = 10000;
    so.nregions = 2000;
    so.no_counters = 1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--procs") && i + 1 < argc)
            so.nprocs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--regions") && i + 1 < argc)
            so.nregions = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "usage: report_bench [--procs P] [--regions R] -o REPORT.html\n");
            return 2;
        }
    }
    if (!out || so.nprocs < 2 || so.nregions < 13) {
        fprintf(stderr, "usage: report_bench [--procs P>=2] [--regions R>=13] -o REPORT.html\n");
        return 2;
    }
    t0 = now();
    c0 = cpu();
    if (aa_synth_generate(&so, &e, NULL, NULL, &err)) {
        fprintf(stderr, "report_bench: %s\n", err.msg);
        return 4;
    }
    t1 = now();
    c1 = cpu();
    aa_analyze_options_init(&ao);
    ao.optics_keep = SIZE_MAX; /* as `autoanalyzer report` */
    if (aa_analyze_run(e, &ao, &a, &err)) {
        fprintf(stderr, "report_bench: %s\n", err.msg);
        return 4;
    }
    t2 = now();
    c2 = cpu();
    aa_buf_init(&html);
    if (aa_report_html(a, e, NULL, &html, &err) ||
        aa_write_file_atomic(out, html.data, html.len, &err)) {
        fprintf(stderr, "report_bench: %s\n", err.msg);
        return 4;
    }
    t3 = now();
    c3 = cpu();
    printf("ranks %d regions %zu (analysed tree: %zu regions)\n", so.nprocs, so.nregions,
           a->nregions);
    printf("generate %.2f s, analyse %.2f s, render and write %.2f s\n", t1 - t0, t2 - t1,
           t3 - t2);
    printf("CPU: generate %.2f s, analyse %.2f s, render and write %.2f s\n", c1 - c0, c2 - c1,
           c3 - c2);
    printf("html_bytes %zu (%.1f MiB)\n", html.len, (double)html.len / (1024.0 * 1024.0));
    aa_buf_free(&html);
    aa_analyze_free(a);
    aa_experiment_free(e);
    return 0;
}
