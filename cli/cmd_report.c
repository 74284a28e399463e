/*
 * cli/cmd_report.c -- `autoanalyzer report`: analyses an experiment and
 * writes the self-contained HTML report (SPEC §5.5), optionally compared
 * with a baseline experiment or with the last comparable run stored in the
 * Program Space (SPEC §6); the baseline may be a stored execution, whose
 * experiment directory need not exist any more.
 */
#include "cli/cli.h"
#include "engine/aa_engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cmd_report_summary[] = "write the self-contained HTML report of an experiment";
const char cmd_report_usage[] =
    "usage: autoanalyzer report EXP|DIR [-o REPORT.html] [--baseline EXP|DIR|EID]\n"
    "                           [--db DB --compare-last] [--source-dir DIR]\n"
    "                           [analysis options]\n"
    "\n"
    "Analyses the experiment (a file, or a directory holding experiment.xml or\n"
    "rank-N.xml files) and writes one HTML file with inline CSS, JavaScript and SVG\n"
    "(it needs no network): a summary in seconds and share of the run, each finding\n"
    "in plain words with its impact, cluster means, per-rank values and source lines,\n"
    "the call tree, a per-region severity chart, a per-process heat map, the OPTICS\n"
    "reachability plot, the root-cause table, the attributes that could not be\n"
    "measured and, with a baseline, the slowdown or speed-up, the new, gone and\n"
    "changed bottlenecks and the largest per-region time differences.\n"
    "\n"
    "  -o FILE            output (default: report.html in the experiment's directory;\n"
    "                     - for stdout)\n"
    "  --baseline EXP     compare with this earlier experiment (a file or directory),\n"
    "                     or with execution EID stored in the Program Space (--db):\n"
    "                     its experiment is loaded from the Space, so its directory\n"
    "                     may be gone\n"
    "  --compare-last     compare with the latest run stored in the Program Space with\n"
    "                     the same `name` attribute (or program), other than this one\n"
    "  --db DB            Program Space for --compare-last and --baseline EID (default\n"
    "                     $AUTOANALYZER_DB or\n"
    "                     autoanalyzer-space.db)\n"
    "  --source-dir DIR   where relative source file names are looked up when they do\n"
    "                     not open from the current directory (default: the\n"
    "                     experiment's directory)\n"
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "  The experiment and its baseline are analysed with the same options.\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 3 malformed experiment, 4 environment.\n";

/* --baseline N names stored execution N when N is a number and no file
 * of that name exists. */
static int stored_eid(const char *s, long long *eid)
{
    struct stat st;
    long v;
    if (stat(s, &st) == 0 || aa_parse_long(s, &v) || v < 1)
        return 0;
    *eid = v;
    return 1;
}

/* The command; ao gets the analysis options and is freed by the caller. */
static int report(int argc, char **argv, aa_analyze_options *ao)
{
    const char *exp = NULL, *out = NULL, *baseline = NULL, *db = NULL, *srcdir = NULL;
    int compare_last = 0, i, rc;
    long long eid = -1;
    char *note = NULL;
    aa_engine_result r;
    aa_analyze_options ao_plot;
    aa_err err;
    aa_buf html;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int st = EXIT_OK, t = cli_analysis_opt("report", argc, argv, &i, ao, &st);
        if (t == CLI_AOPT_ERROR)
            return st;
        if (t == CLI_AOPT_OK)
            continue;
        if (!strcmp(a, "--compare-last")) {
            compare_last = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--baseline") || !strcmp(a, "--db") ||
                   !strcmp(a, "--source-dir")) {
            if (i + 1 >= argc)
                return cli_usage_error("report", "option %s needs a value", a);
            if (!strcmp(a, "-o"))
                out = argv[++i];
            else if (!strcmp(a, "--baseline"))
                baseline = argv[++i];
            else if (!strcmp(a, "--source-dir"))
                srcdir = argv[++i];
            else
                db = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("report", "unknown option '%s'", a);
        } else if (!exp) {
            exp = a;
        } else {
            return cli_usage_error("report", "more than one experiment given");
        }
    }
    if (!exp)
        return cli_usage_error("report", "no experiment given");
    if (baseline && compare_last)
        return cli_usage_error("report", "--baseline and --compare-last exclude each other");

    aa_engine_result_init(&r);
    aa_err_clear(&err);
    /* the reachability plot needs the analysis' OPTICS ordering at any
     * scale; the baseline's is never drawn */
    ao_plot = *ao;
    ao_plot.optics_keep = SIZE_MAX;
    if ((rc = aa_engine_load(exp, &r.exp, &r.dir, &note, NULL, &err)) ||
        ((rc = aa_engine_analyze(r.exp, &ao_plot, &r.an, &err)) &&
         (rc != AA_EINPUT || (aa_err_prefix(&err, "%s", exp), 1)))) {
        /* an experiment that read but cannot be analysed is named too */
        free(note);
        aa_engine_result_free(&r);
        return cli_fail(&err);
    }
    if (note)
        fprintf(stderr, "autoanalyzer report: warning: %s\n", note);
    free(note);
    if (!db)
        db = getenv("AUTOANALYZER_DB");
    if (baseline && stored_eid(baseline, &eid)) {
        rc = aa_engine_compare_stored(&r, db, eid, ao, &err);
    } else if (baseline) {
        rc = aa_engine_compare_path(&r, baseline, ao, &err);
    } else if (compare_last) {
        rc = aa_engine_find_last(db, aa_experiment_attr(r.exp, "name"),
                                 aa_experiment_attr(r.exp, "name") ? NULL : r.exp->program, r.exp,
                                 r.dir, &eid, &err);
        if (rc == AA_OK && eid >= 0)
            rc = aa_engine_compare_stored(&r, db, eid, ao, &err);
        else if (rc == AA_OK)
            fprintf(stderr, "autoanalyzer report: no earlier comparable run in the Program "
                            "Space; writing the report without a comparison\n");
    }
    if (rc == AA_OK && r.cmp) {
        /* history-guided: the run-to-run noise of this configuration's stored runs */
        const char *name = aa_experiment_attr(r.exp, "name");
        rc = aa_engine_compare_history(&r, db, name, name ? NULL : r.exp->program, -1, 0, &err);
        if (rc == AA_OK && r.cmp->history)
            printf("history: %s\n", r.cmp->history);
    }
    if (rc) {
        aa_engine_result_free(&r);
        return cli_fail(&err);
    }
    aa_buf_init(&html);
    if ((rc = aa_report_html_ex(r.an, r.exp, r.cmp, srcdir ? srcdir : r.dir, &html, &err))) {
        aa_buf_free(&html);
        aa_engine_result_free(&r);
        return cli_fail(&err);
    }
    if (!out) {
        aa_buf p;
        aa_buf_init(&p);
        aa_buf_printf(&p, "%s/report.html", r.dir);
        rc = cli_write_output(p.data, &html, &err);
        if (rc == AA_OK)
            printf("report: %s\n", p.data);
        aa_buf_free(&p);
    } else {
        rc = cli_write_output(out, &html, &err);
        if (rc == AA_OK && strcmp(out, "-"))
            printf("report: %s\n", out);
    }
    aa_buf_free(&html);
    aa_engine_result_free(&r);
    return rc ? cli_fail(&err) : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    aa_analyze_options ao;
    int rc;
    aa_analyze_options_init(&ao);
    rc = report(argc, argv, &ao);
    cli_analysis_free(&ao);
    return rc;
}
