/*
 * cli/cmd_space.c -- `autoanalyzer space`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_space_summary[] = "(space: not built yet)";
const char cmd_space_usage[] = "usage: autoanalyzer space ...\n\nNot built yet.\n";

int cmd_space(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer space: not built yet\n");
    return EXIT_ENV;
}
