/*
 * tests/tools/aa_synth.c -- test helper (not installed): writes a synthetic
 * experiment with an injected bottleneck (analyze/synth.c) to a file, and
 * prints the injected region id and root-cause attribute.
 *
 *   aa_synth [--scenario none|slow-group|l2|disk-io|mpi-bytes] [--procs N]
 *            [--regions R] [--noise X] [--seed S] [--no-counters] [--master]
 *            [--threads T] -o FILE
 */
#include "analyze/aa_analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: aa_synth [--scenario none|slow-group|l2|disk-io|mpi-bytes] "
                    "[--procs N] [--regions R] [--noise X] [--seed S] [--no-counters] "
                    "[--master] [--threads T] -o FILE\n");
    return 2;
}

int main(int argc, char **argv)
{
    aa_synth_options o;
    const char *out = NULL, *cause;
    aa_experiment *e;
    aa_err err;
    uint32_t region;
    int i;
    aa_synth_options_init(&o);
    for (i = 1; i < argc; i++) {
        long v;
        double d;
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-counters") == 0)
            o.no_counters = 1;
        else if (strcmp(a, "--master") == 0)
            o.master = 1;
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
        else
            return usage();
    }
    if (!out)
        return usage();
    if (aa_synth_generate(&o, &e, &region, &cause, &err) ||
        aa_experiment_write(e, out, &err)) {
        fprintf(stderr, "aa_synth: %s\n", err.msg);
        return 4;
    }
    printf("%u %s\n", region, cause);
    aa_experiment_free(e);
    return 0;
}
