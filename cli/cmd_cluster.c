/*
 * cli/cmd_cluster.c -- `autoanalyzer cluster`: placeholder until its component lands.
 */
#include "cli/cli.h"

#include <stdio.h>

const char cmd_cluster_summary[] = "(cluster: not built yet)";
const char cmd_cluster_usage[] = "usage: autoanalyzer cluster ...\n\nNot built yet.\n";

int cmd_cluster(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "autoanalyzer cluster: not built yet\n");
    return EXIT_ENV;
}
