/*
 * cli/cmd_analyze.c -- `autoanalyzer analyze`: reads an experiment (a file,
 * or an output directory holding experiment.xml), runs the analysis of
 * SPEC §5 and prints the terminal report; --json and --xml write the same
 * content in the formats of §9.  Exit 0 on success (findings are not
 * failures), 2 on usage errors, 3 on bad input.
 */
#include "cli/cli.h"

#include "analyze/aa_analyze.h"
#include "collect/aa_collect.h"
#include "profile/aa_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cmd_analyze_summary[] = "locate bottlenecks and their root causes in an experiment";
const char cmd_analyze_usage[] =
    "usage: autoanalyzer analyze [options] EXPERIMENT\n"
    "\n"
    "EXPERIMENT is an experiment file (experiment.xml, optionally gzipped) or the\n"
    "output directory of a run (experiment.xml, or rank-*.xml files which are\n"
    "merged as by 'autoanalyzer collect'; missing ranks are reported).\n"
    "\n"
    "Finds dissimilarity bottlenecks (processes behaving differently: OPTICS over\n"
    "per-process vectors) and disparity bottlenecks (regions with a high share of\n"
    "the run: 5 severity classes by exact 1-D k-means), narrows them to CCCRs on\n"
    "the region tree and names root causes with rough sets (docs/analysis.md).\n"
    "\n"
    "options:\n"
    "  --metric cpu|wall        process metric: CPU (default) or wall time, both\n"
    "                           outside MPI; 'crnm', 'cpi' are accepted as well and\n"
    "                           set --region-metric (the SPEC's wording)\n"
    "  --region-metric crnm|cpi|wall\n"
    "                           region metric: CRNM (default), CPI or wall fraction\n"
    "  --min-pts N              OPTICS MinPts (counts the point itself)\n"
    "  --eps X                  OPTICS extraction threshold in metric units (s)\n"
    "  --exclude-ranks LIST     ranks left out, e.g. 0,4-7\n"
    "  --exclude-regions LIST   region ids or name globs left out (with sub-regions)\n"
    "  --no-auto-exclude        keep rank 0 even when it looks like a master\n"
    "  --attributes LIST        root-cause attributes (default l1_miss_rate,\n"
    "                           l2_miss_rate,disk_io_bytes,mpi_bytes,instructions,\n"
    "                           mpi_time,io_time; also page_faults, cpi)\n"
    "  --json FILE              write the JSON report ('-' = stdout)\n"
    "  --xml FILE               write the XML report ('-' = stdout)\n"
    "  -o, --output FILE        write the text report to FILE instead of stdout\n"
    "  -q, --quiet              no text report\n"
    "\n"
    "exit status: 0 analysed, 2 usage error, 3 bad input, 4 environment\n";

static int parse_ranks(const char *s, int **out, size_t *n)
{
    char *copy = aa_strdup(s), *tok, *save = NULL;
    if (!copy)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        long a, b, r;
        if (dash) {
            *dash = 0;
            if (aa_parse_long(tok, &a) || aa_parse_long(dash + 1, &b))
                goto bad;
        } else {
            if (aa_parse_long(tok, &a))
                goto bad;
            b = a;
        }
        if (a < 0 || b < a || b - a > 1000000)
            goto bad;
        for (r = a; r <= b; r++) {
            int *nr = realloc(*out, (*n + 1) * sizeof *nr);
            if (!nr)
                goto bad;
            *out = nr;
            nr[(*n)++] = (int)r;
        }
    }
    free(copy);
    return 0;
bad:
    free(copy);
    return -1;
}

static int split_list(const char *s, char ***out, size_t *n)
{
    char *copy = aa_strdup(s), *tok, *save = NULL;
    if (!copy)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **nl = realloc(*out, (*n + 1) * sizeof *nl);
        if (!nl) {
            free(copy);
            return -1;
        }
        *out = nl;
        if (!(nl[*n] = aa_strdup(tok))) {
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return 0;
}

/* Reads a file, or merges an output directory (experiment.xml or
 * rank-*.xml files, plus region maps) with the collect library; missing
 * ranks become a note. */
static int load_input(const char *path, aa_experiment **e, char **missing, aa_err *err)
{
    struct stat st;
    aa_collect_report rep;
    int rc;
    *missing = NULL;
    if (stat(path, &st) != 0)
        return aa_err_set(err, errno == ENOENT ? AA_EINPUT : AA_EENV, "%s: %s", path,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return aa_experiment_read(path, e, err);
    memset(&rep, 0, sizeof rep);
    rc = aa_collect_dir(path, e, &rep, err);
    if (!rc && rep.nmissing) {
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "%zu of %d ranks have no profile in %s (missing: ", rep.nmissing,
                      rep.nprocs, path);
        aa_collect_format_ranks(&b, rep.missing, rep.nmissing);
        aa_buf_puts(&b, "); the analysis covers the others");
        *missing = aa_buf_detach(&b);
        aa_buf_free(&b);
    }
    aa_collect_report_free(&rep);
    return rc;
}

int cmd_analyze(int argc, char **argv)
{
    aa_analyze_options o;
    const char *input = NULL, *json = NULL, *xml = NULL, *outp = NULL;
    int quiet = 0, i, rc = EXIT_OK;
    aa_err err;
    char *missing = NULL;
    aa_experiment *e = NULL;
    aa_analysis *a = NULL;
    aa_buf tb, jb, xb;
    aa_analyze_options_init(&o);
    aa_err_clear(&err);
    aa_buf_init(&tb);
    aa_buf_init(&jb);
    aa_buf_init(&xb);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = NULL;
#define NEEDVAL()                                                                  \
    do {                                                                           \
        if (i + 1 >= argc) {                                                       \
            rc = cli_usage_error("analyze", "%s needs a value", arg);              \
            goto out;                                                              \
        }                                                                          \
        val = argv[++i];                                                           \
    } while (0)
        if (strcmp(arg, "--metric") == 0 || strcmp(arg, "--region-metric") == 0) {
            int region_opt = arg[2] == 'r';
            NEEDVAL();
            if (!region_opt && strcmp(val, "cpu") == 0)
                o.proc_metric = AA_PMETRIC_CPU;
            else if (!region_opt && strcmp(val, "wall") == 0)
                o.proc_metric = AA_PMETRIC_WALL;
            else if (strcmp(val, "crnm") == 0)
                o.region_metric = AA_RMETRIC_CRNM;
            else if (strcmp(val, "cpi") == 0)
                o.region_metric = AA_RMETRIC_CPI;
            else if (region_opt && strcmp(val, "wall") == 0)
                o.region_metric = AA_RMETRIC_WALL;
            else {
                rc = cli_usage_error("analyze", "%s: unknown metric '%s' (%s)", arg, val,
                                     region_opt ? "crnm, cpi or wall" : "cpu or wall");
                goto out;
            }
        } else if (strcmp(arg, "--min-pts") == 0) {
            long v;
            NEEDVAL();
            if (aa_parse_long(val, &v) || v < 1) {
                rc = cli_usage_error("analyze", "--min-pts: expected a positive integer, got "
                                                "'%s'", val);
                goto out;
            }
            o.min_pts = (size_t)v;
        } else if (strcmp(arg, "--eps") == 0) {
            NEEDVAL();
            if (aa_parse_double(val, &o.eps) || !(o.eps > 0)) {
                rc = cli_usage_error("analyze", "--eps: expected a positive number, got '%s'",
                                     val);
                goto out;
            }
        } else if (strcmp(arg, "--exclude-ranks") == 0) {
            NEEDVAL();
            if (parse_ranks(val, &o.exclude_ranks, &o.nexclude_ranks)) {
                rc = cli_usage_error("analyze", "--exclude-ranks: bad rank list '%s' (e.g. "
                                                "0,4-7)", val);
                goto out;
            }
        } else if (strcmp(arg, "--exclude-regions") == 0) {
            NEEDVAL();
            if (split_list(val, &o.exclude_regions, &o.nexclude_regions)) {
                rc = EXIT_ENV;
                goto out;
            }
        } else if (strcmp(arg, "--attributes") == 0) {
            NEEDVAL();
            if (split_list(val, &o.attributes, &o.nattributes)) {
                rc = EXIT_ENV;
                goto out;
            }
        } else if (strcmp(arg, "--no-auto-exclude") == 0) {
            o.auto_exclude_master = 0;
        } else if (strcmp(arg, "--json") == 0) {
            NEEDVAL();
            json = val;
        } else if (strcmp(arg, "--xml") == 0) {
            NEEDVAL();
            xml = val;
        } else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            NEEDVAL();
            outp = val;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(arg, "--") == 0 && i + 1 < argc && !input) {
            input = argv[++i];
        } else if (arg[0] == '-' && arg[1]) {
            rc = cli_usage_error("analyze", "unknown option '%s'", arg);
            goto out;
        } else if (!input) {
            input = arg;
        } else {
            rc = cli_usage_error("analyze", "more than one experiment given ('%s', '%s')",
                                 input, arg);
            goto out;
        }
#undef NEEDVAL
    }
    if (!input) {
        rc = cli_usage_error("analyze", "no experiment given");
        goto out;
    }
    {
        size_t k;
        for (k = 0; k < o.nattributes; k++) {
            static const char *const known[] = {"l1_miss_rate", "l2_miss_rate", "disk_io_bytes",
                                                "mpi_bytes", "instructions", "mpi_time",
                                                "io_time", "page_faults", "cpi"};
            size_t m, ok = 0;
            for (m = 0; m < sizeof known / sizeof known[0]; m++)
                if (strcmp(known[m], o.attributes[k]) == 0)
                    ok = 1;
            if (!ok) {
                rc = cli_usage_error("analyze", "--attributes: unknown attribute '%s'",
                                     o.attributes[k]);
                goto out;
            }
        }
    }
    if ((rc = load_input(input, &e, &missing, &err)) || (rc = aa_analyze_run(e, &o, &a, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    if (missing && aa_analyze_add_note(a, missing)) {
        aa_err_set(&err, AA_EENV, "out of memory");
        rc = cli_fail(&err);
        goto out;
    }
    /* render everything before writing anything */
    if (aa_analyze_format_text(a, &tb) || (json && aa_analyze_format_json(a, &jb)) ||
        (xml && aa_analyze_format_xml(a, &xb))) {
        aa_err_set(&err, AA_EENV, "out of memory while rendering the report");
        rc = cli_fail(&err);
        goto out;
    }
    if ((json && cli_write_output(json, &jb, &err)) || (xml && cli_write_output(xml, &xb, &err)) ||
        ((!quiet || outp) && cli_write_output(outp ? outp : "-", &tb, &err))) {
        rc = cli_fail(&err);
        goto out;
    }
    rc = EXIT_OK;
out:
    aa_buf_free(&tb);
    aa_buf_free(&jb);
    aa_buf_free(&xb);
    aa_analyze_free(a);
    aa_experiment_free(e);
    free(missing);
    free(o.exclude_ranks);
    for (i = 0; i < (int)o.nexclude_regions; i++)
        free(o.exclude_regions[i]);
    free(o.exclude_regions);
    for (i = 0; i < (int)o.nattributes; i++)
        free(o.attributes[i]);
    free(o.attributes);
    return rc;
}
