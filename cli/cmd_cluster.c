/*
 * cli/cmd_cluster.c -- `autoanalyzer cluster optics|kmeans1d`: runs the
 * clustering of cluster/ on the rows of a CSV file and prints a readable
 * table, or the JSON of SPEC §9 with --json.  Bad CSV -> exit 3 with
 * FILE:LINE:COL, bad options -> exit 2.
 */
#include "cli/cli.h"
#include "cluster/aa_cluster.h"
#include "common/aa_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_cluster_summary[] = "cluster the rows of a CSV file (OPTICS, 1-D k-means)";
const char cmd_cluster_usage[] =
    "usage: autoanalyzer cluster optics [--min-pts N] [--eps X] [--max-eps X]\n"
    "                               [--json [FILE|-]] FILE.csv\n"
    "       autoanalyzer cluster kmeans1d -k K [--json [FILE|-]] FILE.csv\n"
    "\n"
    "Clusters the rows of FILE.csv (numbers only; a header row is optional).\n"
    "\n"
    "optics     OPTICS (Ankerst et al. 1999), Euclidean distance.  MinPts counts\n"
    "           the point itself; processing starts at the lowest-index\n"
    "           unprocessed point and ties go to the lowest index.  Clusters are\n"
    "           extracted at eps; a point reachable from no cluster is isolated\n"
    "           and gets its own cluster id.\n"
    "  --min-pts N   default: max(2, min(5, n/32))\n"
    "  --eps X       default: 0.1 x the median row norm\n"
    "  --max-eps X   generating distance (default: unbounded)\n"
    "kmeans1d   exact one-dimensional k-means (dynamic programming) on a single\n"
    "           column; class 0 has the lowest center; fewer distinct values\n"
    "           than K give fewer classes.\n"
    "  -k K          number of classes\n"
    "\n"
    "--json [FILE|-]  write JSON (to stdout when FILE is - or omitted):\n"
    "  optics:   {\"ordering\", \"reachability\", \"core_distance\", \"labels\", ...}\n"
    "            indexed by row; undefined distances are null\n"
    "  kmeans1d: {\"labels\", \"centers\", \"sse\"}\n"
    "Without --json a readable table is printed.\n"
    "\n"
    "exit status: 0 ok, 2 bad options, 3 malformed CSV, 4 file not readable\n";

/* Options shared by both subcommands. */
typedef struct opts {
    const char *input;
    const char *json; /* NULL: text */
    long min_pts;
    double eps, max_eps;
    long k;
} opts;

static int parse(int argc, char **argv, opts *o, int kmeans)
{
    int i, npos = 0;
    /* count the positional arguments, skipping option values */
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--min-pts") == 0 || strcmp(argv[i], "--eps") == 0 ||
            strcmp(argv[i], "--max-eps") == 0 || strcmp(argv[i], "-k") == 0)
            i++;
        else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)
            npos++;
    }
    for (i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (strncmp(a, "--json", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
            if (a[6] == '=') {
                o->json = a + 7;
            } else if (i + 1 < argc && (argv[i + 1][0] != '-' || !argv[i + 1][1]) &&
                       (o->input || npos >= 2)) {
                /* "--json FILE" when an input file remains besides FILE */
                o->json = argv[++i];
                npos--;
            } else {
                o->json = "-";
            }
            continue;
        }
        if (!kmeans && (strcmp(a, "--min-pts") == 0 || strcmp(a, "--eps") == 0 ||
                        strcmp(a, "--max-eps") == 0)) {
            if (i + 1 >= argc)
                return cli_usage_error("cluster", "%s needs a value", a);
            val = argv[++i];
            if (strcmp(a, "--min-pts") == 0) {
                if (aa_parse_long(val, &o->min_pts) || o->min_pts < 1)
                    return cli_usage_error("cluster", "--min-pts: '%s' is not a positive integer",
                                           val);
            } else {
                double *dst = strcmp(a, "--eps") == 0 ? &o->eps : &o->max_eps;
                if (aa_parse_double(val, dst) || !(*dst > 0))
                    return cli_usage_error("cluster", "%s: '%s' is not a positive number", a,
                                           val);
            }
            continue;
        }
        if (kmeans && (strcmp(a, "-k") == 0 || strncmp(a, "-k", 2) == 0)) {
            val = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return cli_usage_error("cluster", "-k needs a value");
            if (aa_parse_long(val, &o->k) || o->k < 1 || o->k > 1000000)
                return cli_usage_error("cluster", "-k: '%s' is not a positive integer", val);
            continue;
        }
        if (a[0] == '-' && a[1])
            return cli_usage_error("cluster", "unknown option '%s'", a);
        if (o->input)
            return cli_usage_error("cluster", "more than one input file ('%s', '%s')",
                                   o->input, a);
        o->input = a;
        npos--;
    }
    if (!o->input)
        return cli_usage_error("cluster", "no input file");
    if (kmeans && o->k < 1)
        return cli_usage_error("cluster", "kmeans1d needs -k K");
    return 0;
}

static void num_text(aa_buf *b, double v)
{
    char tmp[32];
    if (!isfinite(v)) {
        aa_buf_puts(b, "undefined");
        return;
    }
    aa_format_double(tmp, v);
    aa_buf_puts(b, tmp);
}

/* "key": [ ... ] for the three element types the cluster JSON uses. */
static void json_sizes(aa_json *j, const char *key, const size_t *v, size_t n)
{
    size_t i;
    aa_json_key(j, key);
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++)
        aa_json_int(j, (long long)v[i]);
    aa_json_arr_end(j);
}

static void json_ints(aa_json *j, const char *key, const int *v, size_t n)
{
    size_t i;
    aa_json_key(j, key);
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++)
        aa_json_int(j, v[i]);
    aa_json_arr_end(j);
}

static void json_nums(aa_json *j, const char *key, const double *v, size_t n)
{
    size_t i;
    aa_json_key(j, key);
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++)
        aa_json_num(j, v[i]);
    aa_json_arr_end(j);
}

static int run_optics(const opts *o, const aa_csv_matrix *m, aa_buf *out, aa_err *err)
{
    aa_optics_params p = {(size_t)o->min_pts, o->eps, o->max_eps > 0 ? o->max_eps : INFINITY};
    aa_optics_result r;
    size_t i;
    int rc = aa_cluster_optics(m->x, m->nrows, m->ncols, &p, &r, err);
    if (rc)
        return rc;
    if (o->json) {
        aa_json j;
        aa_json_init(&j, out, 1);
        aa_json_obj_begin(&j);
        json_sizes(&j, "ordering", r.ordering, r.n);
        json_nums(&j, "reachability", r.reachability, r.n);
        json_nums(&j, "core_distance", r.core_distance, r.n);
        json_ints(&j, "labels", r.labels, r.n);
        aa_json_key(&j, "clusters");
        aa_json_int(&j, (long long)r.nclusters);
        aa_json_key(&j, "min_pts");
        aa_json_int(&j, (long long)r.min_pts_used);
        aa_json_key(&j, "eps");
        aa_json_num(&j, r.eps_used);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
    } else {
        aa_buf_printf(out, "OPTICS: %zu points, %zu dimensions, MinPts %zu, eps ", r.n,
                      m->ncols, r.min_pts_used);
        num_text(out, r.eps_used);
        aa_buf_printf(out, ": %zu cluster%s\n\n", r.nclusters, r.nclusters == 1 ? "" : "s");
        aa_buf_printf(out, "%6s %6s %-22s %-22s %s\n", "order", "row", "reachability",
                      "core distance", "cluster");
        for (i = 0; i < r.n; i++) {
            size_t q = r.ordering[i];
            aa_buf t1, t2;
            aa_buf_init(&t1);
            aa_buf_init(&t2);
            num_text(&t1, r.reachability[q]);
            num_text(&t2, r.core_distance[q]);
            aa_buf_printf(out, "%6zu %6zu %-22s %-22s %d\n", i, q, t1.data, t2.data,
                          r.labels[q]);
            aa_buf_free(&t1);
            aa_buf_free(&t2);
        }
    }
    aa_cluster_optics_free(&r);
    return AA_OK;
}

static int run_kmeans1d(const opts *o, const aa_csv_matrix *m, aa_buf *out, aa_err *err)
{
    aa_kmeans_result r;
    size_t i, c;
    int rc;
    if (m->ncols != 1)
        return aa_err_set(err, AA_EINPUT, "%s: kmeans1d needs one column, found %zu", o->input,
                          m->ncols);
    rc = aa_cluster_kmeans1d(m->x, m->nrows, (size_t)o->k, &r, err);
    if (rc)
        return rc;
    if (o->json) {
        aa_json j;
        aa_json_init(&j, out, 1);
        aa_json_obj_begin(&j);
        json_ints(&j, "labels", r.labels, r.n);
        json_nums(&j, "centers", r.centers, r.k);
        aa_json_key(&j, "sse");
        aa_json_num(&j, r.sse);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
    } else {
        aa_buf_printf(out, "1-D k-means: %zu values, %zu class%s (k = %ld), SSE ", r.n, r.k,
                      r.k == 1 ? "" : "es", o->k);
        num_text(out, r.sse);
        aa_buf_puts(out, "\n\nclass  center                  members\n");
        for (c = 0; c < r.k; c++) {
            size_t cnt = 0;
            for (i = 0; i < r.n; i++)
                cnt += r.labels[i] == (int)c;
            aa_buf_printf(out, "%5zu  ", c);
            {
                aa_buf t;
                aa_buf_init(&t);
                num_text(&t, r.centers[c]);
                aa_buf_printf(out, "%-22s  %zu\n", t.data, cnt);
                aa_buf_free(&t);
            }
        }
        aa_buf_puts(out, "\n   row  value                   class\n");
        for (i = 0; i < r.n; i++) {
            aa_buf t;
            aa_buf_init(&t);
            num_text(&t, m->x[i]);
            aa_buf_printf(out, "%6zu  %-22s  %d\n", i, t.data, r.labels[i]);
            aa_buf_free(&t);
        }
    }
    aa_cluster_kmeans_free(&r);
    return AA_OK;
}

int cmd_cluster(int argc, char **argv)
{
    opts o = {NULL, NULL, 0, 0, 0, 0};
    aa_csv_matrix m;
    aa_buf out;
    aa_err err;
    int rc, kmeans;
    if (argc < 2)
        return cli_usage_error("cluster", "which algorithm? (optics or kmeans1d)");
    if (strcmp(argv[1], "optics") == 0)
        kmeans = 0;
    else if (strcmp(argv[1], "kmeans1d") == 0)
        kmeans = 1;
    else
        return cli_usage_error("cluster", "unknown algorithm '%s' (optics or kmeans1d)",
                               argv[1]);
    rc = parse(argc, argv, &o, kmeans);
    if (rc)
        return rc;
    aa_err_clear(&err);
    rc = aa_csv_read_matrix(o.input, &m, &err);
    if (rc)
        return cli_fail(&err);
    aa_buf_init(&out);
    rc = kmeans ? run_kmeans1d(&o, &m, &out, &err) : run_optics(&o, &m, &out, &err);
    if (!rc && out.failed)
        rc = aa_err_set(&err, AA_EENV, "out of memory");
    if (!rc)
        rc = cli_write_output(o.json ? o.json : "-", &out, &err);
    aa_buf_free(&out);
    aa_csv_matrix_free(&m);
    return rc ? cli_fail(&err) : EXIT_OK;
}
