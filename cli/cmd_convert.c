/*
 * cli/cmd_convert.c -- `autoanalyzer convert`: an experiment from the XML
 * interchange format to the compact binary form (profile/binary.c) and
 * back.  Both readers sit behind aa_experiment_read, so the input's form is
 * recognised from its first bytes; the output's comes from --to or the
 * output's name.  This file parses options and prints.
 */
#include "cli/cli.h"
#include "profile/aa_profile.h"

#include <stdio.h>
#include <string.h>

const char cmd_convert_summary[] = "convert an experiment between XML and the binary form";
const char cmd_convert_usage[] =
    "usage: autoanalyzer convert IN OUT [--to xml|binary]\n"
    "\n"
    "Reads the experiment IN (XML, gzip-compressed XML or binary) and writes it\n"
    "to OUT in the other form: --to says which; without it an OUT ending in\n"
    ".aab is binary, one ending in .xml is XML, and otherwise OUT gets the form\n"
    "IN does not have.  OUT '-' is standard output.  The binary form holds the\n"
    "same data (values bit for bit) in a few times less space and reads many\n"
    "times faster; XML stays the documented interchange format\n"
    "(docs/profile-format.md).  Every command that reads experiments (analyze,\n"
    "report, space add, collect, filter) takes either form.\n"
    "\n"
    "exit status: 0 converted, 2 usage, 3 IN missing or malformed, 4 environment.\n";

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* 1 when IN is in the binary form (its first bytes). */
static int input_is_binary(const char *path)
{
    unsigned char head[8];
    size_t n = 0;
    FILE *fp = fopen(path, "rb");
    if (fp) {
        n = fread(head, 1, sizeof head, fp);
        fclose(fp);
    }
    return aa_experiment_is_binary(head, n);
}

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *to = NULL;
    aa_experiment *e = NULL;
    aa_buf b;
    aa_err err;
    int binary, rc;
    aa_err_clear(&err);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--to") || !strncmp(a, "--to=", 5)) {
            if (a[4] == '=')
                to = a + 5;
            else if (i + 1 < argc)
                to = argv[++i];
            else
                return cli_usage_error("convert", "--to needs an argument");
            if (strcmp(to, "xml") && strcmp(to, "binary"))
                return cli_usage_error("convert", "--to: '%s' is neither xml nor binary", to);
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("convert", "unknown option '%s'", a);
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            return cli_usage_error("convert", "unexpected argument '%s'", a);
        }
    }
    if (!in || !out)
        return cli_usage_error("convert", "IN and OUT are required");
    if (to)
        binary = !strcmp(to, "binary");
    else if (ends_with(out, ".aab"))
        binary = 1;
    else if (ends_with(out, ".xml"))
        binary = 0;
    else
        binary = !input_is_binary(in);
    if (aa_experiment_read(in, &e, &err))
        return cli_fail(&err);
    aa_buf_init(&b);
    rc = binary ? aa_experiment_write_binary_buf(e, &b, &err) : aa_experiment_write_buf(e, &b, &err);
    if (!rc)
        rc = cli_write_output(out, &b, &err);
    aa_buf_free(&b);
    aa_experiment_free(e);
    return rc ? cli_fail(&err) : EXIT_OK;
}
