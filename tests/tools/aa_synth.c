/*
 * tests/tools/aa_synth.c -- test helper (not installed): writes a synthetic
 * experiment with an injected bottleneck (analyze/synth.c) to a file, and
 * prints the injected region id and root-cause attribute.
 *
 *   aa_synth [--scenario none|slow-group|l2|disk-io|mpi-bytes|dynamic] [--procs N]
 *            [--regions R] [--noise X] [--seed S] [--no-counters] [--master]
 *            [--threads T] [--drop-rank N] [--binary] [--whole]
 *            (-o FILE | --split DIR)
 *
 * --split writes one rank-<N>.xml per process (as AUTOANALYZER_COLLECT=files
 * would); --drop-rank leaves one rank's file out.  --binary writes the
 * binary form instead of XML (rank-<N>.aab with --split).  --whole rounds the
 * values as the runtime writes them: times to whole nanoseconds, counts to
 * whole numbers (aa_experiment_values_whole).
 */
#include "analyze/aa_analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One experiment per process, written as DIR/rank-<N>.xml. */
static int split(const aa_experiment *e, const char *dir, long drop, int binary, aa_err *err)
{
    size_t p, t, i, k;
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *src = &e->processes[p];
        aa_experiment *o;
        aa_process *dst;
        char path[4096];
        int rc;
        if (src->rank == drop)
            continue;
        o = aa_experiment_new();
        o->id = aa_strdup(e->id);
        o->program = aa_strdup(e->program);
        o->nprocs = e->nprocs;
        for (k = 0; k < e->nmetrics; k++)
            aa_experiment_add_metric(o, e->metrics[k].name, e->metrics[k].unit);
        for (i = 0; i < e->nregions; i++)
            aa_experiment_add_region(o, &e->regions[i]);
        dst = aa_experiment_add_process(o, src->rank);
        free(dst->host);
        dst->host = aa_strdup(src->host);
        dst->pid = src->pid;
        for (i = 0; i < src->nunavailable; i++)
            aa_process_add_unavailable(dst, src->unavailable[i]);
        for (t = 0; t < src->nthreads; t++) {
            const aa_thread *st = &src->threads[t];
            aa_thread *dt = aa_process_add_thread(dst, st->id);
            for (i = 0; i < st->nnodes; i++) {
                long n = aa_thread_add_node(o, dt, st->nodes[i].region, st->nodes[i].parent);
                memcpy(aa_node_values(o, dt, (size_t)n), aa_node_values(e, st, i),
                       e->nmetrics * sizeof(double));
            }
        }
        snprintf(path, sizeof path, "%s/rank-%d.%s", dir, src->rank, binary ? "aab" : "xml");
        rc = binary ? aa_experiment_write_binary(o, path, err) : aa_experiment_write(o, path, err);
        aa_experiment_free(o);
        if (rc)
            return rc;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: aa_synth [--scenario none|slow-group|l2|disk-io|mpi-bytes|dynamic] "
                    "[--procs N] [--regions R] [--noise X] [--seed S] [--no-counters] "
                    "[--master] [--threads T] [--drop-rank N] [--binary] [--whole] "
                    "(-o FILE | --split DIR)\n");
    return 2;
}

int main(int argc, char **argv)
{
    aa_synth_options o;
    const char *out = NULL, *cause, *dir = NULL;
    long drop = -1;
    aa_experiment *e;
    aa_err err;
    uint32_t region;
    int i, binary = 0, whole = 0;
    aa_synth_options_init(&o);
    for (i = 1; i < argc; i++) {
        long v;
        double d;
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-counters") == 0)
            o.no_counters = 1;
        else if (strcmp(a, "--master") == 0)
            o.master = 1;
        else if (strcmp(a, "--binary") == 0)
            binary = 1;
        else if (strcmp(a, "--whole") == 0)
            whole = 1;
        else if (!val)
            return usage();
        else if (strcmp(a, "--scenario") == 0 && !aa_synth_scenario_parse(val, &o.scenario))
            i++;
        else if (strcmp(a, "--procs") == 0 && !aa_parse_long(val, &v) && v > 0 && v < 1000000)
            o.nprocs = (int)v, i++;
        else if (strcmp(a, "--regions") == 0 && !aa_parse_long(val, &v) && v > 0 && v < 100000)
            o.nregions = (size_t)v, i++;
        else if (strcmp(a, "--threads") == 0 && !aa_parse_long(val, &v) && v > 0 && v < 1000)
            o.nthreads = (int)v, i++;
        else if (strcmp(a, "--seed") == 0 && !aa_parse_long(val, &v) && v >= 0)
            o.seed = (unsigned)v, i++;
        else if (strcmp(a, "--noise") == 0 && !aa_parse_double(val, &d) && d >= 0 && d < 1)
            o.noise = d, i++;
        else if (strcmp(a, "-o") == 0)
            out = val, i++;
        else if (strcmp(a, "--split") == 0)
            dir = val, i++;
        else if (strcmp(a, "--drop-rank") == 0 && !aa_parse_long(val, &v))
            drop = v, i++;
        else
            return usage();
    }
    if (!out == !dir)
        return usage();
    if (aa_synth_generate(&o, &e, &region, &cause, &err))
        e = NULL;
    else if (whole)
        aa_experiment_values_whole(e);
    if (!e ||
        (out ? (binary ? aa_experiment_write_binary(e, out, &err) : aa_experiment_write(e, out, &err))
             : split(e, dir, drop, binary, &err))) {
        fprintf(stderr, "aa_synth: %s\n", err.msg);
        return 4;
    }
    printf("%u %s\n", region, cause);
    aa_experiment_free(e);
    return 0;
}
