/*
 * cli/cmd_analyze.c -- `autoanalyzer analyze`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_analyze_summary[] = "(analyze: not built yet)";
const char cmd_analyze_usage[] = "usage: autoanalyzer analyze ...\n\nNot built yet.\n";

int cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer analyze: not built yet\n");
    return EXIT_ENV;
}
