/*
 * cli/cmd_run.c -- `autoanalyzer run`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_run_summary[] = "(run: not built yet)";
const char cmd_run_usage[] = "usage: autoanalyzer run ...\n\nNot built yet.\n";

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer run: not built yet\n");
    return EXIT_ENV;
}
