/*
 * cli/cli.h -- private to cli/: the command table and the helpers every
 * subcommand uses for --help, usage errors and turning library errors into
 * exit statuses (SPEC §2: 0 ok, 1 gate tripped, 2 usage, 3 bad input,
 * 4 environment).
 */
#ifndef AA_CLI_H
#define AA_CLI_H

#include "common/aa_common.h"

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
/* Writes text to path atomically, or to stdout when path is "-". */
int cli_write_output(const char *path, const aa_buf *text, aa_err *err);

/* One declaration per subcommand, defined in cli/cmd_<name>.c. */
#define CLI_COMMANDS(X)                                                        \
    X(instrument) X(filter) X(cc) X(run) X(collect) X(analyze) X(report) X(space)        \
    X(cluster) X(roughset) X(nightly) X(version) X(help)
#define CLI_DECLARE(n) int cmd_##n(int argc, char **argv); \
    extern const char cmd_##n##_summary[]; extern const char cmd_##n##_usage[];
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

#endif
