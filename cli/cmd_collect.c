/*
 * cli/cmd_collect.c -- `autoanalyzer collect`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_collect_summary[] = "(collect: not built yet)";
const char cmd_collect_usage[] = "usage: autoanalyzer collect ...\n\nNot built yet.\n";

int cmd_collect(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer collect: not built yet\n");
    return EXIT_ENV;
}
