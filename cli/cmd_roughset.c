/*
 * cli/cmd_roughset.c -- `autoanalyzer roughset`: reads a decision table from
 * CSV (first column object id, last column decision, the others condition
 * attributes named by the header), runs roughset/ and prints the core,
 * reducts, inconsistent pairs and every object's local reducts, as text or
 * as the JSON of SPEC §9 (names sorted within each list, lists sorted).
 * Values are compared for equality only: numbers by value ("1" == "1.0"),
 * anything else as text.
 */
#include "cli/cli.h"
#include "common/aa_csv.h"
#include "roughset/aa_roughset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_roughset_summary[] = "core, reducts and local reducts of a decision table (CSV)";
const char cmd_roughset_usage[] =
    "usage: autoanalyzer roughset [--json [FILE|-]] FILE.csv\n"
    "\n"
    "Rough-set analysis of a decision table: the first column is the object\n"
    "id, the last the decision, the others condition attributes named by the\n"
    "header row (a1, a2, ... without one; at most 64).  Values are compared\n"
    "for equality only.  Prints the decision-relative core, all reducts (a\n"
    "greedy one, flagged, past 20 attributes), pairs of objects with equal\n"
    "conditions and different decisions (inconsistent: skipped), and each\n"
    "object's local reducts (prime implicants of its discernibility function).\n"
    "\n"
    "--json [FILE|-]  write JSON (to stdout when FILE is - or omitted):\n"
    "  {\"core\":[names], \"reducts\":[[names]...], \"inconsistent\":[[id,id]...],\n"
    "   \"objects\":{\"<id>\":{\"local_reducts\":[[names]...]}}}\n"
    "  names sorted within each list, lists sorted.\n"
    "\n"
    "exit status: 0 ok, 2 bad options, 3 malformed table, 4 file not readable\n";

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A set as a sorted, NULL-terminated name list. */
typedef struct namelist {
    const char **v;
    size_t n;
} namelist;

static int cmp_list(const void *pa, const void *pb)
{
    const namelist *a = pa, *b = pb;
    size_t i;
    for (i = 0; i < a->n && i < b->n; i++) {
        int c = strcmp(a->v[i], b->v[i]);
        if (c)
            return c;
    }
    return (a->n > b->n) - (a->n < b->n);
}

static int to_list(const aa_dtable *t, aa_attrset s, namelist *l)
{
    size_t k;
    l->n = 0;
    l->v = malloc((t->nattrs + 1) * sizeof *l->v);
    if (!l->v)
        return -1;
    for (k = 0; k < t->nattrs; k++)
        if (s >> k & 1)
            l->v[l->n++] = t->attr_names[k];
    qsort(l->v, l->n, sizeof *l->v, cmp_str);
    return 0;
}

/* Sorted lists for n sets; NULL on no memory. */
static namelist *lists(const aa_dtable *t, const aa_attrset *s, size_t n)
{
    namelist *l = calloc(n ? n : 1, sizeof *l);
    size_t i;
    if (!l)
        return NULL;
    for (i = 0; i < n; i++)
        if (to_list(t, s[i], &l[i])) {
            while (i-- > 0)
                free(l[i].v);
            free(l);
            return NULL;
        }
    qsort(l, n, sizeof *l, cmp_list);
    return l;
}

static void free_lists(namelist *l, size_t n)
{
    size_t i;
    if (!l)
        return;
    for (i = 0; i < n; i++)
        free(l[i].v);
    free(l);
}

static void json_lists(aa_json *j, const namelist *l, size_t n)
{
    size_t i, k;
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++) {
        aa_json_arr_begin(j);
        for (k = 0; k < l[i].n; k++)
            aa_json_str(j, l[i].v[k]);
        aa_json_arr_end(j);
    }
    aa_json_arr_end(j);
}

static void text_lists(aa_buf *b, const namelist *l, size_t n)
{
    size_t i, k;
    if (!n)
        aa_buf_puts(b, "(none)");
    for (i = 0; i < n; i++) {
        aa_buf_puts(b, i ? "  {" : "{");
        for (k = 0; k < l[i].n; k++)
            aa_buf_printf(b, "%s%s", k ? ", " : "", l[i].v[k]);
        aa_buf_putc(b, '}');
    }
    aa_buf_putc(b, '\n');
}

/* Codes one column: equal values (numbers by value) get equal codes. */
static int code_column(const aa_csv *c, size_t col, int *codes, size_t stride, aa_err *err)
{
    char **keys = malloc((c->nrows ? c->nrows : 1) * sizeof *keys);
    size_t nk = 0, r, i;
    if (!keys)
        return aa_err_set(err, AA_EENV, "out of memory");
    for (r = 0; r < c->nrows; r++) {
        const char *s = c->cells[r * c->ncols + col];
        char num[32];
        double v;
        if (!*s) {
            free(keys);
            return aa_csv_cell_error(c, r, col, err, "empty value");
        }
        if (aa_parse_double(s, &v) == 0) {
            if (v == 0)
                v = 0; /* -0 == 0 */
            aa_format_double(num, v);
            s = num;
        }
        for (i = 0; i < nk; i++)
            if (strcmp(keys[i], s) == 0)
                break;
        if (i == nk) {
            keys[nk] = aa_strdup(s);
            if (!keys[nk]) {
                while (nk-- > 0)
                    free(keys[nk]);
                free(keys);
                return aa_err_set(err, AA_EENV, "out of memory");
            }
            nk++;
        }
        codes[r * stride] = (int)i;
    }
    while (nk-- > 0)
        free(keys[nk]);
    free(keys);
    return AA_OK;
}

static int build_table(const aa_csv *c, aa_dtable **out, aa_err *err)
{
    size_t na, r, k;
    aa_dtable *t;
    int *vals = NULL, *dec = NULL, rc = AA_OK;
    *out = NULL;
    if (c->ncols < 2)
        return aa_err_set(err, AA_EINPUT,
                          "%s:1:1: a decision table needs an id column and a decision column",
                          c->name);
    if (c->nrows == 0)
        return aa_err_set(err, AA_EINPUT, "%s:1:1: no objects (data rows)", c->name);
    na = c->ncols - 2;
    if (na > 64)
        return aa_err_set(err, AA_EINPUT, "%s:1:1: %zu condition attributes (at most 64)",
                          c->name, na);
    if (c->header) {
        size_t a, b;
        for (a = 1; a + 1 < c->ncols; a++) {
            if (!c->header[a][0])
                return aa_err_set(err, AA_EINPUT, "%s: header: attribute %zu has no name",
                                  c->name, a);
            for (b = 1; b < a; b++)
                if (strcmp(c->header[a], c->header[b]) == 0)
                    return aa_err_set(err, AA_EINPUT,
                                      "%s: header: attribute name '%s' appears twice", c->name,
                                      c->header[a]);
        }
    }
    for (r = 0; r < c->nrows; r++) {
        size_t q;
        if (!c->cells[r * c->ncols][0])
            return aa_csv_cell_error(c, r, 0, err, "empty object id");
        for (q = 0; q < r; q++)
            if (strcmp(c->cells[q * c->ncols], c->cells[r * c->ncols]) == 0)
                return aa_csv_cell_error(c, r, 0, err, "object id '%.64s' repeats line %zu",
                                         c->cells[r * c->ncols], c->lines[q]);
    }
    t = aa_roughset_table_new(c->nrows, na,
                              c->header ? (const char *const *)c->header + 1 : NULL);
    vals = malloc((c->nrows * na + 1) * sizeof *vals);
    dec = malloc(c->nrows * sizeof *dec);
    if (!t || !vals || !dec) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto done;
    }
    for (k = 0; k < na && !rc; k++)
        rc = code_column(c, k + 1, vals + k, na, err);
    if (!rc)
        rc = code_column(c, c->ncols - 1, dec, 1, err);
    for (r = 0; r < c->nrows && !rc; r++)
        rc = aa_roughset_table_set_object(t, r, c->cells[r * c->ncols], vals + r * na, dec[r])
                 ? aa_err_set(err, AA_EENV, "out of memory")
                 : AA_OK;
done:
    free(vals);
    free(dec);
    if (rc)
        aa_roughset_table_free(t);
    else
        *out = t;
    return rc;
}

static int cmp_pair_ids(const void *pa, const void *pb)
{
    const char *const *a = pa, *const *b = pb;
    int c = strcmp(a[0], b[0]);
    return c ? c : strcmp(a[1], b[1]);
}

static int render(const aa_dtable *t, const aa_roughset_result *r, int json, aa_buf *out)
{
    namelist *core, *red;
    const char **pairs;
    aa_attrset coreset = r->core;
    size_t i;
    core = lists(t, &coreset, 1);
    red = lists(t, r->reducts, r->nreducts);
    pairs = malloc((2 * r->ninconsistent + 2) * sizeof *pairs);
    if (!core || !red || !pairs) {
        free_lists(core, 1);
        free_lists(red, r->nreducts);
        free(pairs);
        return -1;
    }
    for (i = 0; i < r->ninconsistent; i++) {
        const char *a = t->object_ids[r->inconsistent[i].a];
        const char *b = t->object_ids[r->inconsistent[i].b];
        int sw = strcmp(a, b) > 0;
        pairs[2 * i] = sw ? b : a;
        pairs[2 * i + 1] = sw ? a : b;
    }
    qsort(pairs, r->ninconsistent, 2 * sizeof *pairs, cmp_pair_ids);
    if (json) {
        aa_json j;
        size_t k;
        aa_json_init(&j, out, 1);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "core");
        aa_json_arr_begin(&j);
        for (k = 0; k < core[0].n; k++)
            aa_json_str(&j, core[0].v[k]);
        aa_json_arr_end(&j);
        aa_json_key(&j, "reducts");
        json_lists(&j, red, r->nreducts);
        aa_json_key(&j, "reducts_greedy");
        aa_json_bool(&j, r->reducts_greedy);
        aa_json_key(&j, "inconsistent");
        aa_json_arr_begin(&j);
        for (i = 0; i < r->ninconsistent; i++) {
            aa_json_arr_begin(&j);
            aa_json_str(&j, pairs[2 * i]);
            aa_json_str(&j, pairs[2 * i + 1]);
            aa_json_arr_end(&j);
        }
        aa_json_arr_end(&j);
        if (r->ninconsistent_total > r->ninconsistent) {
            aa_json_key(&j, "inconsistent_total");
            aa_json_int(&j, (long long)r->ninconsistent_total);
        }
        aa_json_key(&j, "objects");
        aa_json_obj_begin(&j);
        for (i = 0; i < t->nobjects; i++) {
            namelist *l = lists(t, r->local[i], r->nlocal[i]);
            if (!l)
                break;
            aa_json_key(&j, t->object_ids[i]);
            aa_json_obj_begin(&j);
            aa_json_key(&j, "local_reducts");
            json_lists(&j, l, r->nlocal[i]);
            aa_json_obj_end(&j);
            free_lists(l, r->nlocal[i]);
        }
        aa_json_obj_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
    } else {
        aa_buf_printf(out, "Decision table: %zu objects, %zu condition attributes\n\n",
                      t->nobjects, t->nattrs);
        aa_buf_puts(out, "core:     ");
        if (core[0].n)
            text_lists(out, core, 1);
        else
            aa_buf_puts(out, "(empty)\n");
        aa_buf_printf(out, "reducts%s: ", r->reducts_greedy ? " (greedy, one of them)" : "");
        text_lists(out, red, r->nreducts);
        aa_buf_printf(out, "inconsistent pairs (skipped): %zu", r->ninconsistent_total);
        for (i = 0; i < r->ninconsistent; i++)
            aa_buf_printf(out, "%s(%s, %s)", i ? " " : "\n  ", pairs[2 * i], pairs[2 * i + 1]);
        aa_buf_puts(out, "\n\nlocal reducts (prime implicants of each object's "
                         "discernibility function):\n");
        for (i = 0; i < t->nobjects; i++) {
            namelist *l = lists(t, r->local[i], r->nlocal[i]);
            if (!l)
                break;
            aa_buf_printf(out, "  %-12s ", t->object_ids[i]);
            text_lists(out, l, r->nlocal[i]);
            free_lists(l, r->nlocal[i]);
        }
    }
    free_lists(core, 1);
    free_lists(red, r->nreducts);
    free(pairs);
    return 0;
}

int cmd_roughset(int argc, char **argv)
{
    const char *input = NULL, *json = NULL;
    int i, npos = 0, rc;
    aa_csv c;
    aa_dtable *t = NULL;
    aa_roughset_result r;
    aa_buf out;
    aa_err err;
    for (i = 1; i < argc; i++)
        if (argv[i][0] != '-' || !argv[i][1])
            npos++;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--json", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
            if (a[6] == '=')
                json = a + 7;
            else if (i + 1 < argc && (argv[i + 1][0] != '-' || !argv[i + 1][1]) &&
                     (input || npos >= 2)) {
                json = argv[++i];
                npos--;
            } else
                json = "-";
            continue;
        }
        if (a[0] == '-' && a[1])
            return cli_usage_error("roughset", "unknown option '%s'", a);
        if (input)
            return cli_usage_error("roughset", "more than one input file ('%s', '%s')", input,
                                   a);
        input = a;
        npos--;
    }
    if (!input)
        return cli_usage_error("roughset", "no input file");
    aa_err_clear(&err);
    rc = aa_csv_read(input, AA_CSV_HEADER_AUTO, 1, &c, &err);
    if (rc)
        return cli_fail(&err);
    rc = build_table(&c, &t, &err);
    aa_csv_free(&c);
    if (rc)
        return cli_fail(&err);
    rc = aa_roughset_analyze(t, &r, &err);
    if (rc) {
        aa_roughset_table_free(t);
        return cli_fail(&err);
    }
    aa_buf_init(&out);
    if (render(t, &r, json != NULL, &out) || out.failed)
        rc = aa_err_set(&err, AA_EENV, "out of memory");
    if (!rc)
        rc = cli_write_output(json ? json : "-", &out, &err);
    aa_buf_free(&out);
    aa_roughset_result_free(&r, t->nobjects);
    aa_roughset_table_free(t);
    return rc ? cli_fail(&err) : EXIT_OK;
}
