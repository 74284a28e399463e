/*
 * cli/analysis_opts.c -- the analysis options shared by every command that
 * runs the analysis (analyze, run, report, nightly, space add), in the
 * style of git's parse-options: one parser for --metric, --region-metric,
 * --min-pts, --eps, --exclude-ranks, --exclude-regions, --attributes,
 * --no-auto-exclude and `--set NAME=VALUE` (the numeric thresholds of
 * aa_analyze_tunables(), looked up in that table, never listed here), the
 * help text that describes them (CLI_ANALYSIS_OPTIONS_HELP in cli/cli.h),
 * the `--list-settings` table, and freeing what the parser allocates.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_ranks(const char *s, int **out, size_t *n)
{
    char *copy = aa_strdup(s), *tok, *save = NULL;
    int any = 0;
    if (!copy)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        long a, b, r;
        if (dash) {
            *dash = 0;
            if (aa_parse_long(tok, &a) || aa_parse_long(dash + 1, &b))
                goto bad;
        } else {
            if (aa_parse_long(tok, &a))
                goto bad;
            b = a;
        }
        if (a < 0 || b < a || b - a > 1000000)
            goto bad;
        for (r = a; r <= b; r++) {
            int *nr = realloc(*out, (*n + 1) * sizeof *nr);
            if (!nr)
                goto bad;
            *out = nr;
            nr[(*n)++] = (int)r;
        }
        any = 1;
    }
    free(copy);
    return any ? 0 : -1;
bad:
    free(copy);
    return -1;
}

static int split_list(const char *s, char ***out, size_t *n)
{
    char *copy = aa_strdup(s), *tok, *save = NULL;
    if (!copy)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **nl = realloc(*out, (*n + 1) * sizeof *nl);
        if (!nl) {
            free(copy);
            return -1;
        }
        *out = nl;
        if (!(nl[*n] = aa_strdup(tok))) {
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return 0;
}

/* The option names that take a value, and the one flag. */
static const char *const value_opts[] = {"--metric",          "--region-metric", "--min-pts",
                                         "--eps",             "--exclude-ranks", "--exclude-regions",
                                         "--attributes",      "--set",           NULL};

int cli_analysis_parse(int argc, char **argv, int *i, aa_analyze_options *o, aa_err *err)
{
    const char *arg = argv[*i], *val = NULL, *eq;
    char name[32];
    size_t nlen;
    int k;

    if (strcmp(arg, "--no-auto-exclude") == 0) {
        o->auto_exclude_master = 0;
        return CLI_AOPT_OK;
    }
    if (strncmp(arg, "--", 2) != 0)
        return CLI_AOPT_NONE;
    /* --opt VALUE or --opt=VALUE */
    eq = strchr(arg, '=');
    nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (nlen >= sizeof name)
        return CLI_AOPT_NONE;
    memcpy(name, arg, nlen);
    name[nlen] = 0;
    for (k = 0; value_opts[k]; k++)
        if (strcmp(value_opts[k], name) == 0)
            break;
    if (!value_opts[k])
        return CLI_AOPT_NONE;
    if (eq) {
        val = eq + 1;
    } else {
        if (*i + 1 >= argc) {
            aa_err_set(err, AA_EUSAGE, "%s needs a value", name);
            return CLI_AOPT_ERROR;
        }
        val = argv[++*i];
    }

    if (strcmp(name, "--metric") == 0 || strcmp(name, "--region-metric") == 0) {
        int region_opt = name[2] == 'r';
        if (!region_opt && strcmp(val, "cpu") == 0)
            o->proc_metric = AA_PMETRIC_CPU;
        else if (!region_opt && strcmp(val, "wall") == 0)
            o->proc_metric = AA_PMETRIC_WALL;
        else if (strcmp(val, "crnm") == 0)
            o->region_metric = AA_RMETRIC_CRNM;
        else if (strcmp(val, "cpi") == 0)
            o->region_metric = AA_RMETRIC_CPI;
        else if (region_opt && strcmp(val, "wall") == 0)
            o->region_metric = AA_RMETRIC_WALL;
        else {
            aa_err_set(err, AA_EUSAGE, "%s: unknown metric '%s' (%s)", name, val,
                       region_opt ? "crnm, cpi or wall" : "cpu or wall");
            return CLI_AOPT_ERROR;
        }
    } else if (strcmp(name, "--min-pts") == 0) {
        long v;
        if (aa_parse_long(val, &v) || v < 1) {
            aa_err_set(err, AA_EUSAGE, "--min-pts: expected a positive integer, got '%s'", val);
            return CLI_AOPT_ERROR;
        }
        o->min_pts = (size_t)v;
    } else if (strcmp(name, "--eps") == 0) {
        double v;
        if (aa_parse_double(val, &v) || !(v > 0) || v > 1e300) {
            aa_err_set(err, AA_EUSAGE, "--eps: expected a positive number, got '%s'", val);
            return CLI_AOPT_ERROR;
        }
        o->eps = v;
    } else if (strcmp(name, "--exclude-ranks") == 0) {
        if (parse_ranks(val, &o->exclude_ranks, &o->nexclude_ranks)) {
            aa_err_set(err, AA_EUSAGE, "--exclude-ranks: bad rank list '%s' (e.g. 0,4-7)", val);
            return CLI_AOPT_ERROR;
        }
    } else if (strcmp(name, "--exclude-regions") == 0) {
        if (split_list(val, &o->exclude_regions, &o->nexclude_regions)) {
            aa_err_set(err, AA_EENV, "out of memory");
            return CLI_AOPT_ERROR;
        }
    } else if (strcmp(name, "--attributes") == 0) {
        size_t first = o->nattributes, a;
        if (split_list(val, &o->attributes, &o->nattributes)) {
            aa_err_set(err, AA_EENV, "out of memory");
            return CLI_AOPT_ERROR;
        }
        for (a = first; a < o->nattributes; a++) {
            if (!aa_analyze_attribute_known(o->attributes[a])) {
                aa_err_set(err, AA_EUSAGE, "--attributes: unknown attribute '%s'",
                           o->attributes[a]);
                return CLI_AOPT_ERROR;
            }
        }
    } else { /* --set NAME=VALUE: the table in analyze/options.c decides */
        if (aa_analyze_options_set(o, val, err) != AA_OK)
            return CLI_AOPT_ERROR;
    }
    return CLI_AOPT_OK;
}

int cli_analysis_opt(const char *cmd, int argc, char **argv, int *i, aa_analyze_options *o,
                     int *status)
{
    aa_err err;
    int r;
    aa_err_clear(&err);
    r = cli_analysis_parse(argc, argv, i, o, &err);
    if (r == CLI_AOPT_ERROR) {
        if (err.code == AA_EUSAGE)
            *status = cli_usage_error(cmd, "%s", err.msg);
        else
            *status = cli_fail(&err);
    }
    return r;
}

void cli_analysis_free(aa_analyze_options *o)
{
    size_t k;
    free(o->exclude_ranks);
    for (k = 0; k < o->nexclude_regions; k++)
        free(o->exclude_regions[k]);
    free(o->exclude_regions);
    for (k = 0; k < o->nattributes; k++)
        free(o->attributes[k]);
    free(o->attributes);
    o->exclude_ranks = NULL;
    o->exclude_regions = NULL;
    o->attributes = NULL;
    o->nexclude_ranks = o->nexclude_regions = o->nattributes = 0;
}

int cli_analysis_list_settings(FILE *fp)
{
    size_t n, k, wname = 4, wdef = 7, wrange = 5, wunit = 4;
    const aa_analyze_tunable *t = aa_analyze_tunables(&n);
    char def[32], range[80];
    for (k = 0; k < n; k++) {
        size_t l = strlen(t[k].name);
        if (l > wname)
            wname = l;
        l = (size_t)snprintf(def, sizeof def, "%g", t[k].def);
        if (l > wdef)
            wdef = l;
        l = (size_t)snprintf(range, sizeof range, "%g..%g", t[k].min, t[k].max);
        if (l > wrange)
            wrange = l;
        l = strlen(t[k].unit ? t[k].unit : "");
        if (l > wunit)
            wunit = l;
    }
    fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %s\n", (int)wname, "name", (int)wdef, "default",
            (int)wrange, "range", (int)wunit, "unit", "justification");
    for (k = 0; k < n; k++) {
        snprintf(def, sizeof def, "%g", t[k].def);
        snprintf(range, sizeof range, "%g..%g", t[k].min, t[k].max);
        fprintf(fp, "%-*s  %-*s  %-*s  %-*s  %s\n", (int)wname, t[k].name, (int)wdef, def,
                (int)wrange, range, (int)wunit, t[k].unit ? t[k].unit : "",
                t[k].why ? t[k].why : "");
    }
    return fflush(fp) ? EXIT_ENV : EXIT_OK;
}
