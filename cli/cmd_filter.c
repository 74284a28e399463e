/*
 * cli/cmd_filter.c -- `autoanalyzer filter`: from a measured experiment,
 * the Score-P filter file that leaves out the functions whose probes cost
 * more than they tell (many visits, tiny mean time per visit), with the
 * expected saving.  The selection is instrument/pfilter.c's; this file
 * parses options and prints.
 */
#include "cli/cli.h"
#include "instrument/aa_instrument.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_filter_summary[] = "filter file of tiny hot functions from a measured run";
const char cmd_filter_usage[] =
    "usage: autoanalyzer filter --from EXP [-o FILE] [--min-visits N]\n"
    "                           [--max-ns-per-visit T] [--probe-ns P]\n"
    "\n"
    "Lists the functions of the experiment EXP (experiment.xml, or a run\n"
    "directory holding one) visited at least N times in all (default 100000)\n"
    "with a mean inclusive wall time per visit under T ns (default 1000; CPU\n"
    "time plus MPI and I/O waits when the run was preempted), or\n"
    "throttled by the runtime, as a Score-P filter file (EXCLUDE lines) for\n"
    "`instrument --filter` / AUTOANALYZER_FILTER, and the expected saving:\n"
    "visits x P ns per probe pair (default 30), per process and as a share of\n"
    "the run.  `main` is never listed.\n"
    "\n"
    "Without -o the filter file goes to standard output; with -o FILE it is\n"
    "written there and the summary is printed.\n"
    "\n"
    "exit status: 0 ok, 2 usage, 3 EXP missing or malformed, 4 environment.\n";

int cmd_filter(int argc, char **argv)
{
    const char *from = NULL, *out = NULL;
    aa_pfilter_opts o = {AA_PFILTER_MIN_VISITS, AA_PFILTER_MAX_NS, AA_PFILTER_PROBE_NS};
    aa_pfilter f;
    aa_buf b;
    aa_err err;
    int rc;
    aa_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double *num = !strcmp(a, "--min-visits")         ? &o.min_visits
                      : !strcmp(a, "--max-ns-per-visit") ? &o.max_ns_per_visit
                      : !strcmp(a, "--probe-ns")         ? &o.probe_ns
                                                         : NULL;
        if (!strcmp(a, "--from") || !strcmp(a, "-o") || num) {
            if (i + 1 >= argc)
                return cli_usage_error("filter", "%s needs an argument", a);
            if (num) {
                if (aa_parse_double(argv[i + 1], num) || !(*num >= 0) || *num > 1e18)
                    return cli_usage_error("filter", "%s: '%s' is not a non-negative number", a,
                                           argv[i + 1]);
            } else if (a[1] == 'o')
                out = argv[i + 1];
            else
                from = argv[i + 1];
            i++;
        } else
            return cli_usage_error("filter", "unknown argument '%s'", a);
    }
    if (!from)
        return cli_usage_error("filter", "--from EXP is required");
    if (aa_pfilter_compute(from, &o, &f, &err))
        return cli_fail(&err);
    aa_buf_init(&b);
    aa_pfilter_format(&f, &o, &b);
    rc = cli_write_output(out ? out : "-", &b, &err) ? cli_fail(&err) : EXIT_OK;
    if (!rc && out) {
        printf("%zu function%s to exclude (>= %.0f visits, < %.0f ns per visit):\n", f.n,
               f.n == 1 ? "" : "s", o.min_visits, o.max_ns_per_visit);
        for (size_t k = 0; k < f.n; k++)
            printf("  %-24s %s%.0f visits  %.1f ns/visit  saves %.3g s\n", f.v[k].function,
                   f.v[k].throttled ? ">=" : "", f.v[k].visits, f.v[k].ns_per_visit,
                   f.v[k].saving_s);
        printf("expected saving: %.3g s per process", f.saving_s);
        if (f.run_s > 0)
            printf(" (%.1f%% of the run's %.3g s)", 100.0 * f.saving_s / f.run_s, f.run_s);
        printf(" at %.0f ns per probe pair\nwrote %s\n", o.probe_ns, out);
    }
    aa_buf_free(&b);
    aa_pfilter_free(&f);
    return rc;
}
