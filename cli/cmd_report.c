/*
 * cli/cmd_report.c -- `autoanalyzer report`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_report_summary[] = "(report: not built yet)";
const char cmd_report_usage[] = "usage: autoanalyzer report ...\n\nNot built yet.\n";

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer report: not built yet\n");
    return EXIT_ENV;
}
