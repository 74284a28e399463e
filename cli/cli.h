/*
 * cli/cli.h -- private to cli/: the command table and the helpers every
 * subcommand uses for --help, usage errors and turning library errors into
 * exit statuses (SPEC §2: 0 ok, 1 gate tripped, 2 usage, 3 bad input,
 * 4 environment).
 */
#ifndef AA_CLI_H
#define AA_CLI_H

#include "analyze/aa_analyze.h"
#include "common/aa_common.h"

#include <stdio.h>

enum {
    EXIT_OK = 0,
    EXIT_FINDINGS = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_ENV = 4,
};

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
    const char *usage; /* full --help text */
} cli_command;

extern const cli_command cli_commands[];
const cli_command *cli_find(const char *name);

/* argv contains -h or --help before any "--". */
int cli_wants_help(int argc, char **argv);
/* Prints the command's usage to stdout; returns 0. */
int cli_print_help(const char *name);
/* Prints "autoanalyzer NAME: message" and a hint to stderr; returns 2. */
int cli_usage_error(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "autoanalyzer: <err->msg>" to stderr; returns err->code (or 4). */
int cli_fail(const aa_err *err);
/* Prints each line of notes (may be NULL) as "autoanalyzer NAME: line". */
void cli_print_notes(const char *name, const char *notes);
/* Writes text to path through aa_write_file_atomic: atomically for a
 * regular file, in place for a device or FIFO, stdout for "-" or NULL. */
int cli_write_output(const char *path, const aa_buf *text, aa_err *err);

/* ---- analysis options (cli/analysis_opts.c) ------------------------------
 * One parser for the options of the analysis, used by every command that
 * runs it (analyze, run, report, nightly, space add).  The numeric
 * thresholds come from the table of analyze/options.c through --set. */
enum {
    CLI_AOPT_NONE = 0,  /* argv[*i] is not an analysis option: nothing consumed */
    CLI_AOPT_OK = 1,    /* taken (with its value: *i points at the last word used) */
    CLI_AOPT_ERROR = -1 /* bad value: err says which option and value */
};
/* Tries argv[*i] (--opt VALUE or --opt=VALUE) as an analysis option and
 * sets o; allocations in o are released by cli_analysis_free. */
int cli_analysis_parse(int argc, char **argv, int *i, aa_analyze_options *o, aa_err *err);
/* The same for a command: on CLI_AOPT_ERROR prints the usage error naming
 * the option and the value and sets *status (2, or 4 on no memory). */
int cli_analysis_opt(const char *cmd, int argc, char **argv, int *i, aa_analyze_options *o,
                     int *status);
/* Frees what the parser allocated in o (exclusion lists, attributes). */
void cli_analysis_free(aa_analyze_options *o);
/* `analyze --list-settings`: the tunables table, one aligned line each. */
int cli_analysis_list_settings(FILE *fp);

/* The help text of the shared options, one copy for every command's usage. */
#define CLI_ANALYSIS_OPTIONS_HELP                                                           \
    "analysis options (the same for analyze, run, report, nightly and space add):\n"        \
    "  --metric cpu|wall        process metric: CPU (default) or wall time, both\n"         \
    "                           outside MPI; 'crnm', 'cpi' are accepted as well and\n"      \
    "                           set --region-metric (the SPEC's wording)\n"                 \
    "  --region-metric crnm|cpi|wall\n"                                                     \
    "                           region metric: CRNM (default), CPI or wall fraction\n"      \
    "  --min-pts N              OPTICS MinPts (counts the point itself)\n"                  \
    "  --eps X                  OPTICS extraction threshold in metric units (s)\n"          \
    "  --exclude-ranks LIST     ranks left out, e.g. 0,4-7\n"                               \
    "  --exclude-regions LIST   region ids or name globs left out (with sub-regions)\n"     \
    "  --no-auto-exclude        keep rank 0 even when it looks like a master\n"             \
    "  --attributes LIST        root-cause attributes (default l1_miss_rate,\n"             \
    "                           l2_miss_rate,disk_io_bytes,mpi_bytes,instructions,\n"       \
    "                           mpi_time,io_time,blocked_time; also page_faults, cpi)\n"    \
    "  --set NAME=VALUE         set one threshold of the analysis (repeatable);\n"          \
    "                           `autoanalyzer analyze --list-settings` lists them with\n"   \
    "                           their defaults, ranges, units and justifications\n"

/* One declaration per subcommand, defined in cli/cmd_<name>.c. */
#define CLI_COMMANDS(X)                                                        \
    X(instrument) X(filter) X(cc) X(run) X(collect) X(convert) X(analyze) X(report) X(space)        \
    X(cluster) X(roughset) X(nightly) X(export) X(import) X(version) X(help)
#define CLI_DECLARE(n) int cmd_##n(int argc, char **argv); \
    extern const char cmd_##n##_summary[]; extern const char cmd_##n##_usage[];
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

#endif
