/*
 * cli/cmd_import.c -- `autoanalyzer import`: reads the profiles of another
 * tool (TAU's profile.N.C.T files, report/import_tau.c; an mpiP report,
 * report/import_mpip.c) and writes them as an experiment, which `autoanalyzer space add` stores and `report
 * --baseline` compares like any other run.
 */
#include "cli/cli.h"
#include "report/aa_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_import_summary[] = "read TAU profiles or an mpiP report into an experiment file";
const char cmd_import_usage[] =
    "usage: autoanalyzer import --format tau DIR -o EXPERIMENT.xml\n"
    "       autoanalyzer import --format mpip REPORT.mpiP -o EXPERIMENT.xml\n"
    "\n"
    "Reads every TAU profile profile.N.C.T in DIR (node N = rank, thread T;\n"
    "context 0) and writes one experiment (docs/profile-format.md): a region per\n"
    "function (file and line from TAU's [{file} {line,col}] suffix), the calling\n"
    "contexts of TAU's callpath entries (a => b), visits and inclusive wall time.\n"
    "mpiP: reads the report's tasks (MPI Time), callsites (their stacks become\n"
    "calling contexts of function and MPI call regions) and callsite time and\n"
    "sent-bytes statistics: visits, wall, mpi_wall, mpi_bytes_sent.\n"
    "Store it with `autoanalyzer space add`, compare with `report --baseline`.\n"
    "\n"
    "  --format tau|mpip  the input format (TAU profiles, an mpiP report)\n"
    "  -o FILE            the experiment to write (atomically)\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 3 malformed profile or report, 4 environment.\n";

int cmd_import(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *fmt = NULL;
    aa_experiment *e = NULL;
    aa_err err;
    int i, rc;

    if (cli_wants_help(argc, argv))
        return cli_print_help("import");
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--format")) {
            if (i + 1 >= argc)
                return cli_usage_error("import", "option %s needs a value", a);
            if (!strcmp(a, "-o"))
                out = argv[++i];
            else
                fmt = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("import", "unknown option '%s'", a);
        } else if (!dir) {
            dir = a;
        } else {
            return cli_usage_error("import", "more than one input given");
        }
    }
    if (!dir)
        return cli_usage_error("import", "no input given (a TAU directory or an mpiP report)");
    if (!fmt || (strcmp(fmt, "tau") && strcmp(fmt, "mpip")))
        return cli_usage_error("import", "%s (--format tau or mpip)",
                               fmt ? "unknown format" : "no --format given");
    if (!out)
        return cli_usage_error("import", "no output given (-o EXPERIMENT.xml)");
    aa_err_clear(&err);
    if ((rc = !strcmp(fmt, "tau") ? aa_import_tau(dir, &e, &err) : aa_import_mpip(dir, &e, &err)))
        return cli_fail(&err);
    rc = aa_experiment_write(e, out, &err);
    if (rc == AA_OK)
        printf("import: %s (%zu processes, %zu regions)\n", out, e->nprocesses, e->nregions);
    aa_experiment_free(e);
    return rc ? cli_fail(&err) : EXIT_OK;
}
