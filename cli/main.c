/*
 * cli/main.c -- entry point of the `autoanalyzer` command: the command
 * table, dispatch, global --help/--version, and "did you mean" on typos.
 * Every subcommand lives in its own file cli/cmd_<name>.c.  Called as
 * autoanalyzer-X (a link to this program: autoanalyzer-mpicc,
 * autoanalyzer-gcc ...), it is the compiler wrapper `cc X`.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_ENTRY(n) {#n, cmd_##n, cmd_##n##_summary, cmd_##n##_usage},
const cli_command cli_commands[] = {CLI_COMMANDS(CLI_ENTRY){NULL, NULL, NULL, NULL}};
#undef CLI_ENTRY

const cli_command *cli_find(const char *name)
{
    const cli_command *c;
    for (c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

int cli_wants_help(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

int cli_print_help(const char *name)
{
    const cli_command *c = cli_find(name);
    if (c)
        fputs(c->usage, stdout);
    return EXIT_OK;
}

int cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "autoanalyzer %s: ", name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'autoanalyzer %s --help'\n", name);
    return EXIT_USAGE;
}

int cli_fail(const aa_err *err)
{
    int code = err->code ? err->code : EXIT_ENV;
    fprintf(stderr, "autoanalyzer: %s\n", err->msg[0] ? err->msg : "failed");
    return code;
}

void cli_print_notes(const char *name, const char *notes)
{
    const char *p = notes, *e;
    while (p && *p) {
        e = strchr(p, '\n');
        fprintf(stderr, "autoanalyzer %s: %.*s\n", name, (int)(e ? e - p : (long)strlen(p)), p);
        p = e ? e + 1 : NULL;
    }
}

int cli_write_output(const char *path, const aa_buf *text, aa_err *err)
{
    return aa_write_file_atomic(path ? path : "-", text->data ? text->data : "", text->len, err);
}

static void print_overview(FILE *fp)
{
    const cli_command *c;
    fprintf(fp, "usage: autoanalyzer [--version] [--help] <command> [<args>]\n\n"
                "Finds why an MPI program is slow: instruments it, measures every code\n"
                "region on every process, locates load imbalance and hotspots, names\n"
                "their root causes and keeps every run in a Program Space.\n\n"
                "commands:\n");
    for (c = cli_commands; c->name; c++)
        fprintf(fp, "   %-11s %s\n", c->name, c->summary);
    fprintf(fp, "\nSee 'autoanalyzer <command> --help' for one command.\n");
}

static int unknown_command(const char *name)
{
    const cli_command *c;
    int best = 1000, n = 0;
    fprintf(stderr, "autoanalyzer: '%s' is not an autoanalyzer command. See 'autoanalyzer --help'.\n",
            name);
    for (c = cli_commands; c->name; c++) {
        int d = aa_edit_distance(name, c->name);
        if (d < best)
            best = d;
    }
    /* git's rule of thumb: suggest when the typo is small for the word. */
    if (best <= 2 || (best <= 3 && strlen(name) > 6)) {
        for (c = cli_commands; c->name; c++)
            if (aa_edit_distance(name, c->name) == best)
                n++;
        fprintf(stderr, "\nThe most similar command%s\n", n > 1 ? "s are" : " is");
        for (c = cli_commands; c->name; c++)
            if (aa_edit_distance(name, c->name) == best)
                fprintf(stderr, "\t%s\n", c->name);
    }
    return EXIT_USAGE;
}

const char cmd_help_summary[] = "show help for a command";
const char cmd_help_usage[] =
    "usage: autoanalyzer help [<command>]\n\n"
    "Without a command, lists the commands; with one, prints its --help.\n";

int cmd_help(int argc, char **argv)
{
    if (argc < 2 || cli_wants_help(argc, argv)) {
        if (argc >= 2)
            return cli_print_help("help");
        print_overview(stdout);
        return EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error("help", "too many arguments");
    if (!cli_find(argv[1]))
        return unknown_command(argv[1]);
    return cli_print_help(argv[1]);
}

/* autoanalyzer-X ARGS... -> autoanalyzer cc X ARGS... */
static int wrapper_link(int argc, char **argv)
{
    const char *b = strrchr(argv[0], '/');
    char **v;
    int rc;
    b = b ? b + 1 : argv[0];
    if (strncmp(b, "autoanalyzer-", 13) != 0 || !b[13])
        return -1;
    v = calloc((size_t)argc + 2, sizeof *v);
    if (!v) {
        fprintf(stderr, "autoanalyzer: out of memory\n");
        return EXIT_ENV;
    }
    v[0] = "cc";
    v[1] = (char *)(b + 13);
    for (int i = 1; i < argc; i++)
        v[i + 1] = argv[i];
    rc = cmd_cc(argc + 1, v);
    free(v);
    return rc;
}

int main(int argc, char **argv)
{
    const cli_command *c;
    int rc;
    if (argc >= 1 && (rc = wrapper_link(argc, argv)) >= 0)
        return rc;
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_overview(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0)
        return cmd_version(1, argv + 1);
    if (argv[1][0] == '-') {
        fprintf(stderr, "autoanalyzer: unknown option '%s'\n", argv[1]);
        print_overview(stderr);
        return EXIT_USAGE;
    }
    c = cli_find(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    /* `cc` and `run` pass everything after them to another program;
     * `space` has one help per subcommand. */
    if (strcmp(c->name, "cc") != 0 && strcmp(c->name, "run") != 0 &&
        strcmp(c->name, "space") != 0 && cli_wants_help(argc - 1, argv + 1))
        return cli_print_help(c->name);
    return c->run(argc - 1, argv + 1);
}
