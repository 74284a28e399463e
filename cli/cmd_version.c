/*
 * cli/cmd_version.c -- `autoanalyzer version`: the tool version, the
 * profile format version, and the versions of the libraries it was built
 * against.
 */
#include "cli/cli.h"
#include "profile/aa_profile.h"

#include <libxml/xmlversion.h>
#include <stdio.h>
#include <string.h>

const char cmd_version_summary[] = "print version information";
const char cmd_version_usage[] =
    "usage: autoanalyzer version [--verbose]\n\n"
    "Prints the AutoAnalyzer version; with --verbose also the profile format\n"
    "version and the library versions it was built with.\n";

int cmd_version(int argc, char **argv)
{
    int verbose = 0, i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else
            return cli_usage_error("version", "unknown argument '%s'", argv[i]);
    }
    printf("autoanalyzer version %s\n", AA_VERSION);
    if (verbose) {
        printf("profile format: %d\n", AA_PROFILE_FORMAT_VERSION);
        printf("libxml2: %s\n", LIBXML_DOTTED_VERSION);
    }
    return EXIT_OK;
}
