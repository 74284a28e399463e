/*
 * cli/cmd_cc.c -- `autoanalyzer cc`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_cc_summary[] = "(cc: not built yet)";
const char cmd_cc_usage[] = "usage: autoanalyzer cc ...\n\nNot built yet.\n";

int cmd_cc(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer cc: not built yet\n");
    return EXIT_ENV;
}
