/*
 * cli/cmd_roughset.c -- `autoanalyzer roughset`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_roughset_summary[] = "(roughset: not built yet)";
const char cmd_roughset_usage[] = "usage: autoanalyzer roughset ...\n\nNot built yet.\n";

int cmd_roughset(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer roughset: not built yet\n");
    return EXIT_ENV;
}
