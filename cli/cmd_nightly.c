/*
 * cli/cmd_nightly.c -- `autoanalyzer nightly`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_nightly_summary[] = "(nightly: not built yet)";
const char cmd_nightly_usage[] = "usage: autoanalyzer nightly ...\n\nNot built yet.\n";

int cmd_nightly(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer nightly: not built yet\n");
    return EXIT_ENV;
}
