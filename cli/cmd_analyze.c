/*
 * cli/cmd_analyze.c -- `autoanalyzer analyze`: reads an experiment (a file,
 * or an output directory holding experiment.xml), runs the analysis of
 * SPEC §5 and prints the terminal report; --json and --xml write the same
 * content in the formats of §9.  Exit 0 on success (findings are not
 * failures), 2 on usage errors, 3 on bad input.
 */
#include "cli/cli.h"

#include "analyze/aa_analyze.h"
#include "engine/aa_engine.h"
#include "profile/aa_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_analyze_summary[] = "locate bottlenecks and their root causes in an experiment";
const char cmd_analyze_usage[] =
    "usage: autoanalyzer analyze [options] EXPERIMENT | --from-space EID [--db DB]\n"
    "\n"
    "EXPERIMENT is an experiment file (experiment.xml, optionally gzipped, or the\n"
    "binary experiment.aab) or the output directory of a run (experiment.xml or\n"
    ".aab, or rank-*.xml / rank-*.aab files which are merged as by\n"
    "'autoanalyzer collect'; missing ranks are reported).\n"
    "\n"
    "Finds dissimilarity bottlenecks (processes behaving differently: OPTICS over\n"
    "per-process vectors) and disparity bottlenecks (regions with a high share of\n"
    "the run: 5 severity classes by exact 1-D k-means), narrows them to CCCRs on\n"
    "the region tree and names root causes with rough sets (docs/analysis.md).\n"
    "Also finds dynamic imbalance: every total alike, yet each step the ranks\n"
    "wait for whichever had the most work in it (from the runtime's step pairs\n"
    "at synchronizing MPI calls; docs/analysis.md section 3a).\n"
    "\n"
    "options:\n"
    "  --list-settings          print the analysis thresholds that --set takes (name,\n"
    "                           default, range, unit, justification) and exit\n"
    "  --from-space EID         analyse execution EID stored in the Program Space (its\n"
    "                           experiment directory is not needed)\n"
    "  --history-from-space NAME\n"
    "                           history-guided analysis: apply what the Program Space\n"
    "                           knows of configuration NAME (run --name, else the\n"
    "                           application): its prunes (space prune) remove\n"
    "                           findings, the regions earlier runs found bottlenecks\n"
    "                           in come first among equals, and the run-to-run noise\n"
    "                           of its stored runs raises a region's noise floor; the\n"
    "                           report says what was used (docs/analysis.md)\n"
    "  --db DB                  Program Space for --from-space and\n"
    "                           --history-from-space (default\n"
    "                           $AUTOANALYZER_DB or autoanalyzer-space.db)\n"
    "  --json FILE              write the JSON report ('-' = stdout)\n"
    "  --xml FILE               write the XML report ('-' = stdout)\n"
    "  -o, --output FILE        write the text report to FILE instead of stdout\n"
    "  -q, --quiet              no text report\n"
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "\n"
    "exit status: 0 analysed, 2 usage error, 3 bad input, 4 environment\n";

/* Reads a file, or merges an output directory (experiment.xml or
 * rank-*.xml files, plus region maps) with the engine's loader; missing
 * ranks become a note.  A path that does not exist is bad input here. */
static int load_input(const char *path, aa_experiment **e, char **missing, aa_err *err)
{
    char *note = NULL;
    int rc;
    *missing = NULL;
    rc = aa_engine_load(path, e, NULL, &note, NULL, err);
    if (rc == AA_OK && note) {
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s; the analysis covers the others", note);
        *missing = aa_buf_detach(&b);
    }
    free(note);
    return rc;
}

/* The history of configuration name from the Program Space db, as the
 * analysis' input; an explicit request wants a Program Space with stored
 * executions of name. */
static int history_input(const char *db, const char *name, const aa_experiment *e,
                         aa_engine_history *h, aa_analyze_options *o, aa_err *err)
{
    int rc = aa_engine_history_load(db, name, NULL, e, h, err);
    if (rc)
        return rc;
    if (!h->found)
        return aa_err_set(err, AA_EINPUT, "%s: no Program Space there (--history-from-space)",
                          db ? db : AA_SPACE_DEFAULT_DB);
    if (!h->nexecutions)
        return aa_err_set(err, AA_EINPUT,
                          "--history-from-space %s: no stored execution of that name or "
                          "application in %s",
                          name, db ? db : AA_SPACE_DEFAULT_DB);
    o->history = &h->h;
    return AA_OK;
}

int cmd_analyze(int argc, char **argv)
{
    aa_analyze_options o;
    const char *input = NULL, *json = NULL, *xml = NULL, *outp = NULL, *db = NULL;
    const char *history = NULL;
    aa_engine_history hist;
    long long from_space = 0;
    int quiet = 0, list_settings = 0, i, rc = EXIT_OK;
    aa_err err;
    char *missing = NULL;
    aa_experiment *e = NULL;
    aa_analysis *a = NULL;
    aa_buf tb, jb, xb;
    aa_analyze_options_init(&o);
    memset(&hist, 0, sizeof hist);
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
        int st = EXIT_OK, r = cli_analysis_opt("analyze", argc, argv, &i, &o, &st);
        if (r == CLI_AOPT_ERROR) {
            rc = st;
            goto out;
        }
        if (r == CLI_AOPT_OK) {
            continue;
        } else if (strcmp(arg, "--list-settings") == 0) {
            list_settings = 1;
        } else if (strcmp(arg, "--json") == 0) {
            NEEDVAL();
            json = val;
        } else if (strcmp(arg, "--from-space") == 0) {
            long v;
            NEEDVAL();
            if (aa_parse_long(val, &v) || v < 1) {
                rc = cli_usage_error("analyze", "--from-space wants an execution id, not '%s'",
                                     val);
                goto out;
            }
            from_space = v;
        } else if (strcmp(arg, "--history-from-space") == 0) {
            NEEDVAL();
            history = val;
        } else if (strcmp(arg, "--db") == 0) {
            NEEDVAL();
            db = val;
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
    if (list_settings) {
        rc = cli_analysis_list_settings(stdout);
        goto out;
    }
    if (!input && !from_space) {
        rc = cli_usage_error("analyze", "no experiment given");
        goto out;
    }
    if (input && from_space) {
        rc = cli_usage_error("analyze", "give an experiment or --from-space EID, not both");
        goto out;
    }
    if (!db)
        db = getenv("AUTOANALYZER_DB");
    {
        /* the experiment: a file or directory, or a stored execution */
        char name[48];
        snprintf(name, sizeof name, "execution %lld", from_space);
        if ((rc = from_space ? aa_engine_load_stored(db, from_space, &e, NULL, &err)
                             : load_input(input, &e, &missing, &err)) ||
            (history && (rc = history_input(db, history, e, &hist, &o, &err))) ||
            ((rc = aa_analyze_run(e, &o, &a, &err)) &&
             (rc != AA_EINPUT || (aa_err_prefix(&err, "%s", from_space ? name : input), 1)))) {
            /* an experiment that read but cannot be analysed is named too */
            rc = cli_fail(&err);
            goto out;
        }
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
    aa_engine_history_free(&hist);
    aa_experiment_free(e);
    free(missing);
    cli_analysis_free(&o);
    return rc;
}
