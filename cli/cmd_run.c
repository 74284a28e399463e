/*
 * cli/cmd_run.c -- `autoanalyzer run`: parses the command line, runs the
 * engine (engine/aa_engine.h: launch, collect, analyse, compare, store,
 * write the outputs) and prints the text or JSON report and where the run
 * went (SPEC §1, §4.3, §5.5, §6).
 */
#include "cli/cli.h"
#include "engine/aa_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_run_summary[] = "run a program, then analyse, store and report the run";
const char cmd_run_usage[] =
    "usage: autoanalyzer run [--np N] [--name NAME] [--attr k=v]... [--out DIR]\n"
    "                        [--db DB] [--no-store] [--json] [-o REPORT.html]\n"
    "                        [--baseline EXP|DIR] [analysis options] -- LAUNCH...\n"
    "\n"
    "Runs LAUNCH (an instrumented program, e.g. built with `autoanalyzer cc mpicc`)\n"
    "with AUTOANALYZER_OUTPUT set to a new experiment directory, then collects the\n"
    "profiles, analyses the run, stores it in the Program Space and writes\n"
    "analysis.json, analysis.xml and report.html into the directory.  Prints the\n"
    "text report (or the JSON with --json).\n"
    "\n"
    "  --np N        run N processes: LAUNCH is prefixed with `mpirun -np N`\n"
    "                (plus --oversubscribe when N exceeds the cores) unless it\n"
    "                already starts with mpirun, mpiexec or srun.  Without --np a\n"
    "                non-MPI program runs directly.\n"
    "  --name NAME   configuration name, stored as attribute `name`; the report\n"
    "                compares with the last stored run of the same name\n"
    "  --attr k=v    extra attribute of the run (repeatable)\n"
    "  --out DIR     experiment directory (default ./autoanalyzer-<program>-<date>-<time>)\n"
    "  --db DB       Program Space (file, sqlite:PATH or postgresql://...; default\n"
    "                $AUTOANALYZER_DB or autoanalyzer-space.db)\n"
    "  --no-store    do not store the run in the Program Space\n"
    "  -o FILE       HTML report path (default DIR/report.html)\n"
    "  --json        print the analysis as JSON instead of text\n"
    "  --baseline EXP\n"
    "                compare with this experiment (file or directory) instead of\n"
    "                the last stored run of the same name\n"
    "\n"
    CLI_ANALYSIS_OPTIONS_HELP
    "  The run and the run it is compared with are analysed with the same options.\n"
    "\n"
    "AUTOANALYZER_COLLECT (mpi or files) is passed through; default mpi.\n"
    "Exit status: 0 ok; 2 usage; 3 bad profile; 4 the program failed (its status is\n"
    "reported and a profile it left behind is still analysed) or no profile was written.\n";

int cmd_run(int argc, char **argv)
{
    aa_engine_run_options o;
    aa_engine_result r;
    aa_analyze_options ao;
    aa_err err;
    char **attrs = NULL;
    int i, rc, json = 0;
    aa_buf text;

    memset(&o, 0, sizeof o);
    aa_err_clear(&err);
    aa_analyze_options_init(&ao);
    attrs = calloc((size_t)argc + 1, sizeof *attrs);
    if (!attrs)
        return EXIT_ENV;
    o.attrs = attrs;
    o.analysis = &ao;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            rc = cli_print_help("run");
            goto done;
        }
        if ((r = cli_analysis_opt("run", argc, argv, &i, &ao, &rc)) == CLI_AOPT_ERROR)
            goto done;
        if (r == CLI_AOPT_OK)
            continue;
        if (!strcmp(a, "--no-store")) {
            o.no_store = 1;
            continue;
        }
        if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        }
        if (i + 1 >= argc) {
            rc = cli_usage_error("run", "option %s needs a value", a);
            goto done;
        }
        if (!strcmp(a, "--np")) {
            long np;
            if (aa_parse_long(argv[++i], &np) || np < 1 || np > 1000000) {
                rc = cli_usage_error("run", "--np wants a positive number, not '%s'", argv[i]);
                goto done;
            }
            o.np = (int)np;
        } else if (!strcmp(a, "--name")) {
            o.name = argv[++i];
        } else if (!strcmp(a, "--attr")) {
            const char *kv = argv[++i];
            if (!strchr(kv, '=') || kv[0] == '=') {
                rc = cli_usage_error("run", "--attr wants k=v, not '%s'", kv);
                goto done;
            }
            attrs[o.nattrs++] = argv[i];
        } else if (!strcmp(a, "--out")) {
            o.out_dir = argv[++i];
        } else if (!strcmp(a, "--db")) {
            o.db = argv[++i];
        } else if (!strcmp(a, "-o")) {
            o.report = argv[++i];
        } else if (!strcmp(a, "--baseline")) {
            o.baseline = argv[++i];
        } else {
            rc = cli_usage_error("run", "unknown option '%s'", a);
            goto done;
        }
    }
    if (i >= argc) {
        rc = cli_usage_error("run", "no program to run (give it after --)");
        goto done;
    }
    o.launch = argv + i;
    o.nlaunch = argc - i;

    rc = aa_engine_run(&o, &r, &err);
    cli_print_notes("run", r.notes);
    if (rc != AA_OK) {
        int st = r.prog_status;
        aa_engine_result_free(&r);
        if (st > 0 && rc == AA_EENV)
            fprintf(stderr, "autoanalyzer run: the program failed with exit status %d\n", st);
        rc = cli_fail(&err);
        goto done;
    }
    aa_buf_init(&text);
    if (json)
        aa_analyze_format_json(r.an, &text);
    else
        aa_analyze_format_text(r.an, &text);
    if (text.len)
        fwrite(text.data, 1, text.len, stdout);
    aa_buf_free(&text);
    if (!json) {
        if (r.cmp)
            printf("\nCompared with %s: %zu new, %zu gone, %zu changed core bottleneck%s.\n",
                   r.cmp->baseline_label, r.cmp->nnew, r.cmp->ngone, r.cmp->nchanged,
                   r.cmp->nnew + r.cmp->ngone + r.cmp->nchanged == 1 ? "" : "s");
        if (r.cmp && r.cmp->history)
            printf("history: %s\n", r.cmp->history);
        printf("\nexperiment: %s\n", r.dir);
        if (r.eid >= 0)
            printf("stored as execution %lld\n", r.eid);
        printf("report: %s\n", r.report_path);
    }
    fflush(stdout);
    rc = EXIT_OK;
    if (r.prog_status != 0) {
        fprintf(stderr, "autoanalyzer run: the program failed with exit status %d "
                        "(its profile was analysed)\n", r.prog_status);
        rc = EXIT_ENV;
    }
    aa_engine_result_free(&r);
done:
    cli_analysis_free(&ao);
    free(attrs);
    return rc;
}
