/*
 * cli/cmd_export.c -- `autoanalyzer export`: writes an experiment in a
 * format other tools read (report/export.c): tidy CSV for pandas and R,
 * Hatchet's literal format for Hatchet and Thicket, or CUBE4 for Cube.
 */
#include "cli/cli.h"
#include "engine/aa_engine.h"
#include "report/aa_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_export_summary[] = "write an experiment as CSV, Hatchet literal (JSON) or CUBE4";
const char cmd_export_usage[] =
    "usage: autoanalyzer export EXP|DIR --format csv|hatchet|cube [-o FILE]\n"
    "       autoanalyzer export --from-space EID [--db DB] --format ... [-o FILE]\n"
    "\n"
    "Writes the experiment (a file, a directory holding experiment.xml or\n"
    "rank-N.xml files, or the one stored with execution EID in the Program\n"
    "Space) in a format other tools read (docs/report.md):\n"
    "  csv      tidy CSV (RFC 4180), one row per rank x thread x calling-context\n"
    "           node x metric: rank,thread,node,parent,region_id,region,kind,\n"
    "           function,file,line,path,metric,unit,inclusive,exclusive,throttled\n"
    "           (pandas.read_csv, R read.csv)\n"
    "  hatchet  Hatchet's literal format: a JSON list of root nodes with frame,\n"
    "           metrics and children; the processes' trees merged, each metric the\n"
    "           mean per process, inclusive as \"NAME (inc)\", wall time also as\n"
    "           \"time (inc)\" and \"time\" (hatchet.GraphFrame.from_literal)\n"
    "  cube     CUBE4 (.cubex, Cube 4.4's layout: a tar of anchor.xml and per\n"
    "           metric N.index/N.data): the merged call tree, one location per\n"
    "           thread under its process and host, exclusive values (Cube)\n"
    "\n"
    "  -o FILE            output (default stdout; written atomically)\n"
    "  --from-space EID   the experiment stored with execution EID\n"
    "  --db DB            Program Space for --from-space (default\n"
    "                     $AUTOANALYZER_DB or autoanalyzer-space.db)\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 3 malformed experiment, 4 environment.\n";

int cmd_export(int argc, char **argv)
{
    const char *exp = NULL, *out = NULL, *fmt = NULL, *db = NULL;
    long from_space = 0;
    aa_export_format f;
    aa_experiment *e = NULL;
    char *dir = NULL, *note = NULL;
    aa_buf text;
    aa_err err;
    int i, rc;

    if (cli_wants_help(argc, argv))
        return cli_print_help("export");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--format") || !strcmp(a, "--db") ||
            !strcmp(a, "--from-space")) {
            if (i + 1 >= argc)
                return cli_usage_error("export", "option %s needs a value", a);
            if (!strcmp(a, "-o")) {
                out = argv[++i];
            } else if (!strcmp(a, "--db")) {
                db = argv[++i];
            } else if (!strcmp(a, "--from-space")) {
                if (aa_parse_long(argv[++i], &from_space) || from_space < 1)
                    return cli_usage_error("export", "--from-space wants an execution id, not '%s'",
                                           argv[i]);
            } else {
                fmt = argv[++i];
            }
        } else if (!strncmp(a, "--format=", 9)) {
            fmt = a + 9;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("export", "unknown option '%s'", a);
        } else if (!exp) {
            exp = a;
        } else {
            return cli_usage_error("export", "more than one experiment given");
        }
    }
    if (!exp && !from_space)
        return cli_usage_error("export", "no experiment given");
    if (exp && from_space)
        return cli_usage_error("export", "give an experiment or --from-space EID, not both");
    if (!fmt)
        return cli_usage_error("export", "no --format given (csv, hatchet or cube)");
    if (aa_export_format_parse(fmt, &f))
        return cli_usage_error("export", "unknown format '%s' (csv, hatchet or cube)", fmt);
    aa_err_clear(&err);
    if (from_space) /* the stored execution's experiment (engine/load.c) */
        rc = aa_engine_load_stored(db ? db : getenv("AUTOANALYZER_DB"), from_space, &e, NULL, &err);
    else
        rc = aa_engine_load(exp, &e, &dir, &note, NULL, &err);
    if (rc)
        return cli_fail(&err);
    if (note) /* the export holds the ranks that have a profile */
        fprintf(stderr, "autoanalyzer: warning: %s\n", note);
    free(note);
    aa_buf_init(&text);
    rc = aa_export(e, f, &text, &err);
    if (rc == AA_OK)
        rc = cli_write_output(out, &text, &err);
    aa_buf_free(&text);
    aa_experiment_free(e);
    free(dir);
    return rc ? cli_fail(&err) : EXIT_OK;
}
