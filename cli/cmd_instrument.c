/*
 * cli/cmd_instrument.c -- `autoanalyzer instrument`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_instrument_summary[] = "(instrument: not built yet)";
const char cmd_instrument_usage[] = "usage: autoanalyzer instrument ...\n\nNot built yet.\n";

int cmd_instrument(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer instrument: not built yet\n");
    return EXIT_ENV;
}
