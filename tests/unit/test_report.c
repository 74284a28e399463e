/*
 * tests/unit/test_report.c -- the HTML report and the run comparison on
 * synthetic experiments (analyze's generator): sections and charts present,
 * program names escaped (a region renamed to a <script> tag), the OPTICS
 * plot recomputed, a comparison of a run with itself finds no change, a run
 * with an injected slow group against a clean one finds a new bottleneck
 * and a slowdown, and aa_report_escape escapes the five special characters.
 */
#include "analyze/aa_analyze.h"
#include "report/aa_report.h"
#include "tests/tap.h"
#include "tests/unit/test_analyze_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aa_experiment *synth(aa_synth_scenario sc, unsigned seed)
{
    aa_synth_options o;
    aa_experiment *e = NULL;
    aa_err err;
    aa_synth_options_init(&o);
    o.scenario = sc;
    o.nprocs = 8;
    o.seed = seed;
    o.no_counters = 1;
    if (aa_synth_generate(&o, &e, NULL, NULL, &err) != AA_OK)
        diag("synth: %s", err.msg);
    return e;
}

static aa_analysis *analyse(const aa_experiment *e)
{
    aa_analyze_options o;
    aa_analysis *a = NULL;
    aa_err err;
    aa_analyze_options_init(&o);
    if (aa_analyze_run(e, &o, &a, &err) != AA_OK)
        diag("analyze: %s", err.msg);
    return a;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p = hay;
    while ((p = strstr(p, needle))) {
        n++;
        p += strlen(needle);
    }
    return n;
}

/* A clean run of nprocs processes where rank slow spends extra seconds
 * more CPU (and wall) time in the function "transpose" (its callers'
 * inclusive values grow with it). */
static aa_experiment *synth_outlier(int nprocs, int slow, double extra)
{
    aa_synth_options o;
    aa_experiment *e = NULL;
    aa_err err;
    size_t p, n;
    int mc, mw;
    aa_synth_options_init(&o);
    o.scenario = AA_SYNTH_NONE;
    o.nprocs = nprocs;
    o.seed = 5;
    o.no_counters = 1;
    if (aa_synth_generate(&o, &e, NULL, NULL, &err) != AA_OK) {
        diag("synth: %s", err.msg);
        return NULL;
    }
    mc = aa_experiment_metric_index(e, "cpu");
    mw = aa_experiment_metric_index(e, "wall");
    for (p = 0; p < e->nprocesses && extra > 0; p++) {
        aa_thread *t = &e->processes[p].threads[0];
        if (e->processes[p].rank != slow)
            continue;
        for (n = 0; n < t->nnodes; n++) {
            const aa_region *r = aa_experiment_region(e, t->nodes[n].region);
            long q;
            if (!r || strcmp(r->name, "transpose"))
                continue;
            for (q = (long)n; q >= 0; q = t->nodes[q].parent) {
                aa_node_values(e, t, (size_t)q)[mc] += extra;
                aa_node_values(e, t, (size_t)q)[mw] += extra;
            }
        }
    }
    return e;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The section of the page with this id ("" when absent); caller frees. */
static char *section(const char *html, const char *id)
{
    char open[64];
    const char *s, *e;
    snprintf(open, sizeof open, "<section id=\"%s\">", id);
    s = strstr(html, open);
    e = s ? strstr(s, "</section>") : NULL;
    return s && e ? strndup(s, (size_t)(e - s)) : strdup("");
}

/* Reports of runs with more processes than the heat map has rows and the
 * reachability plot has bars: groups and runs that keep an outlier visible,
 * the distribution section, the OPTICS ordering only when asked for. */
static void at_scale(void)
{
    aa_experiment *e = synth_outlier(400, 301, 2.0), *big = synth_outlier(1100, -1, 0);
    aa_analyze_options o;
    aa_analysis *a = NULL, *ab = NULL;
    aa_buf b;
    aa_err err;
    char *hm, *ds, *op;
    const char *q, *row = NULL;
    size_t i, nrows = 0, nbars = 0, covered = 0, first = 0;
    double tallest = -1, best = -1;

    ok(e && big, "synthetic runs of 400 and 1,100 processes");
    if (!e || !big)
        return;
    aa_analyze_options_init(&o);
    o.optics_keep = 10;
    is_int(aa_analyze_run(e, &o, &a, &err), AA_OK, "analysis keeping the ordering up to 10");
    ok(a && !a->optics_order && !a->optics_reach, "400 processes: no OPTICS ordering kept");
    aa_analyze_free(a);
    a = NULL;
    o.optics_keep = SIZE_MAX;
    is_int(aa_analyze_run(e, &o, &a, &err), AA_OK, "analysis keeping the ordering at any size");
    ok(a && a->optics_order && a->optics_reach, "400 processes: the ordering kept when asked");
    is_int(aa_analyze_run(big, &o, &ab, &err), AA_OK, "analysis of 1,100 processes");
    if (!a || !ab)
        return;
    aa_buf_init(&b);
    is_int(aa_report_html(a, NULL, NULL, &b, &err), AA_OK, "html of 400 processes");
    hm = section(b.data, "heatmap");
    ds = section(b.data, "distribution");
    /* heat map: 100 rows of 4 ranks; rank 301's row shows its value */
    ok(strstr(hm, "Each row is a group of 4 consecutive ranks (100 rows for 400 processes)") != NULL,
       "heat map: groups of 4 ranks");
    for (q = hm; (q = strstr(q, " text-anchor=\"end\">ranks ")); q++)
        nrows++;
    is_int((int)nrows, 100, "heat map: 100 row labels");
    {
        /* the transpose cell of the outlier's row: its largest value is rank 301's */
        const char *cell = strstr(hm, "data-tip=\"ranks 300-303, #"), *end;
        int found = 0, dark = 0;
        for (; cell; cell = strstr(cell + 1, "data-tip=\"ranks 300-303, #")) {
            end = strchr(cell + 10, '"');
            if (end && strstr(cell, " transpose ") && strstr(cell, " transpose ") < end &&
                strstr(cell, "on rank 301;") && strstr(cell, "on rank 301;") < end) {
                const char *fill = cell;
                unsigned r, g, bb;
                while (fill > hm && strncmp(fill, "fill=\"#", 7))
                    fill--;
                found = 1;
                /* the largest, 2.4 s, is over 100% of the 2.1 s run: dark
                 * red (a mean over the 4 ranks would be 44%: g 0x96) */
                dark = sscanf(fill, "fill=\"#%2x%2x%2x", &r, &g, &bb) == 3 && g < 0x60;
                break;
            }
        }
        ok(found, "heat map: the outlier's row names rank 301 as the largest in transpose");
        ok(dark, "heat map: and that cell is coloured, not averaged away");
    }
    ok(strstr(ds, "data-chart=\"distribution\"") != NULL, "distribution section drawn");
    ok(strstr(ds, "transpose (synth.c:") && strstr(ds, "on rank 301 ("),
       "distribution: the slowest process in transpose is rank 301");
    {
        /* the numbers: transpose's median against a sort of its values */
        const char *tr = strstr(ds, "<tr><td>#"), *dv;
        double *x = calloc(e->nprocesses, sizeof *x), want = NAN;
        size_t n = 0, p, k;
        int mc = aa_experiment_metric_index(e, "cpu"), mm = aa_experiment_metric_index(e, "mpi_cpu");
        for (; tr && !(strstr(tr, " transpose (") && strstr(tr, " transpose (") < strstr(tr, "</td>"));
             tr = strstr(tr + 1, "<tr><td>#"))
            ;
        for (p = 0; x && p < e->nprocesses; p++) {
            const aa_thread *t = &e->processes[p].threads[0];
            for (k = 0; k < t->nnodes; k++)
                if (!strcmp(aa_experiment_region(e, t->nodes[k].region)->name, "transpose")) {
                    const double *vv = aa_node_values(e, t, k);
                    double y = vv[mc] - (mm >= 0 && !isnan(vv[mm]) ? vv[mm] : 0), f = 1;
                    size_t i;
                    /* the process's speed taken out, as the analysis compared it */
                    for (i = 0; a->speed_factor && i < a->nprocesses; i++)
                        if (a->ranks[i] == e->processes[p].rank)
                            f = a->speed_factor[i];
                    x[n++] = y > 0 ? y * f : 0;
                }
        }
        if (n) {
            qsort(x, n, sizeof *x, cmp_dbl);
            want = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
        }
        dv = tr ? strstr(tr, "data-v=\"") : NULL;    /* smallest */
        dv = dv ? strstr(dv + 1, "data-v=\"") : NULL; /* median */
        ok(n == 400 && dv && fabs(atof(dv + 8) - want) <= 1e-8 * want,
           "distribution: transpose's median %.9g is the median of its 400 values (%.9g)",
           dv ? atof(dv + 8) : NAN, want);
        free(x);
    }
    free(hm);
    free(ds);

    /* the reachability plot of 1,100 processes: runs of 2 in 550 bars */
    aa_buf_reset(&b);
    is_int(aa_report_html(ab, NULL, NULL, &b, &err), AA_OK, "html of 1,100 processes");
    op = section(b.data, "optics");
    for (i = 0; i < ab->nprocesses; i++) { /* the first largest reachability in OPTICS order */
        double r = ab->optics_reach[ab->optics_order[i]];
        if (isfinite(r) && r > best) {
            best = r;
            first = ab->optics_order[i];
        }
    }
    for (q = op; (q = strstr(q, "<rect ")); q++) {
        const char *h = strstr(q, "height=\""), *tip = strstr(q, "data-tip=\"");
        const char *end = strstr(q, "</rect>");
        if (!tip || !end || tip > end || !h)
            continue;
        nbars++;
        covered += (size_t)atol(tip + 10);
        if (atof(h + 8) > tallest + 1e-9) {
            char want[48];
            tallest = atof(h + 8);
            snprintf(want, sizeof want, "(rank %d)", ab->ranks[first]);
            row = strstr(tip, want) && strstr(tip, want) < end ? tip : NULL;
        }
    }
    is_int((int)nbars, 550, "OPTICS plot: 550 bars of 2 processes");
    is_int((int)covered, 1100, "OPTICS plot: the bars cover every process");
    ok(row != NULL, "OPTICS plot: the tallest bar is the largest reachability (rank %d)",
       ab->ranks[first]);
    free(op);
    aa_buf_free(&b);
    aa_analyze_free(a);
    aa_analyze_free(ab);
    aa_experiment_free(e);
    aa_experiment_free(big);
}

/* One source of numbers with the I/O calls at their mean cost (the
 * analysis's io_work): rank 0 writes alone (24 calls, 0.9 s inside them,
 * 12 ms of CPU of which 10 ms inside); the page shows the metric the
 * analysis compared, 2 ms outside the calls + 24 calls x 37.5 ms = 902 ms
 * for rank 0 in the checkpoint function, and says what it is. */
static void io_calls_costed(void)
{
    aa_experiment *e = aa_experiment_new();
    aa_analysis *a = NULL;
    aa_buf b;
    aa_err err;
    int r, mw = aa_experiment_add_metric(e, "wall", "s"), mc = aa_experiment_add_metric(e, "cpu", "s");
    int mm = aa_experiment_add_metric(e, "mpi_wall", "s"), mp = aa_experiment_add_metric(e, "mpi_cpu", "s");
    int it = aa_experiment_add_metric(e, "io_time", "s"), ic = aa_experiment_add_metric(e, "io_cpu", "s");
    int in = aa_experiment_add_metric(e, "io_calls", "count");
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@20", AA_KIND_LOOP);
    add_region(e, 3, 2, "compute", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "write_checkpoint", AA_KIND_FUNCTION);
    for (r = 0; r < 4; r++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, r), 0);
        double comp = 2.0 * (1 + 0.001 * r), wio = r == 0 ? 0.9 : 0, wait = r == 0 ? 0.01 : 0.91;
        long n0 = aa_thread_add_node(e, t, 0, -1), n1 = aa_thread_add_node(e, t, 1, (int32_t)n0);
        long n2 = aa_thread_add_node(e, t, 2, (int32_t)n1), n3 = aa_thread_add_node(e, t, 3, (int32_t)n2);
        long k, nodes[3] = {n0, n1, n2};
        for (k = 0; k < 3; k++) {
            double *v = aa_node_values(e, t, (size_t)nodes[k]);
            v[mw] = comp + wio + wait + (r == 0 ? 0.002 : 0), v[mc] = comp + (r == 0 ? 0.012 : 0);
            v[mm] = wait, v[mp] = 0, v[it] = wio, v[ic] = r == 0 ? 0.01 : 0, v[in] = r == 0 ? 24 : 0;
        }
        {
            double *v = aa_node_values(e, t, (size_t)n3);
            v[mw] = v[mc] = comp, v[mm] = v[mp] = v[it] = v[ic] = v[in] = 0;
        }
        if (r == 0) {
            long n4 = aa_thread_add_node(e, t, 4, (int32_t)n2);
            double *v = aa_node_values(e, t, (size_t)n4);
            v[mw] = 0.902, v[mc] = 0.012, v[mm] = v[mp] = 0, v[it] = 0.9, v[ic] = 0.01, v[in] = 24;
        }
    }
    e->nprocs = 4;
    is_int(aa_analyze_run(e, NULL, &a, &err), AA_OK, "I/O calls at their mean cost: analysed");
    if (!a) {
        aa_experiment_free(e);
        return;
    }
    ok(a->io_call_cost != NULL, "the analysis put the I/O calls back at their mean cost");
    aa_buf_init(&b);
    is_int(aa_report_html(a, e, NULL, &b, &err), AA_OK, "I/O calls at their mean cost: html");
    ok(b.data && strstr(b.data, "CPU time outside MPI and I/O calls, the I/O calls at their mean cost"),
       "the page names the metric the analysis compared");
    ok(b.data && strstr(b.data, "cluster 0 (rank 0) <b>902 ms</b>"),
       "rank 0's checkpoint: 2 ms outside the calls + 24 calls at their cost = 902 ms");
    aa_buf_free(&b);
    aa_analyze_free(a);
    aa_experiment_free(e);
}

/* One source of numbers with blocked time (the analysis's blocked_work):
 * rank 0 waits 0.9 s for a device off the CPU (no run delay); the page
 * shows 900 ms for rank 0 there, as the analysis compared it. */
static void blocked_time_shown(void)
{
    aa_experiment *e = aa_experiment_new();
    aa_analysis *a = NULL;
    aa_buf b;
    aa_err err;
    int r, mw = aa_experiment_add_metric(e, "wall", "s"), mc = aa_experiment_add_metric(e, "cpu", "s");
    int mm = aa_experiment_add_metric(e, "mpi_wall", "s"), mp = aa_experiment_add_metric(e, "mpi_cpu", "s");
    int mk = aa_experiment_add_metric(e, "mpi_coll_wall", "s");
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@20", AA_KIND_LOOP);
    add_region(e, 3, 2, "compute", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "wait_for_device", AA_KIND_FUNCTION);
    for (r = 0; r < 4; r++) {
        aa_process *pr = aa_experiment_add_process(e, r);
        aa_thread *t = aa_process_add_thread(pr, 0);
        double comp = 2.0 * (1 + 0.001 * r), dev = r == 0 ? 0.9 : 0, wait = r == 0 ? 0.01 : 0.91;
        long n0 = aa_thread_add_node(e, t, 0, -1), n1 = aa_thread_add_node(e, t, 1, (int32_t)n0);
        long n2 = aa_thread_add_node(e, t, 2, (int32_t)n1), n3 = aa_thread_add_node(e, t, 3, (int32_t)n2);
        long k, nodes[3] = {n0, n1, n2};
        for (k = 0; k < 3; k++) {
            double *v = aa_node_values(e, t, (size_t)nodes[k]);
            v[mw] = comp + dev + wait, v[mc] = comp, v[mm] = v[mk] = wait, v[mp] = 0;
        }
        {
            double *v = aa_node_values(e, t, (size_t)n3);
            v[mw] = v[mc] = comp, v[mm] = v[mp] = v[mk] = 0;
        }
        if (r == 0) {
            double *v = aa_node_values(e, t, (size_t)aa_thread_add_node(e, t, 4, (int32_t)n2));
            v[mw] = 0.9, v[mc] = v[mm] = v[mp] = v[mk] = 0;
        }
        aa_process_set_attr(pr, "run_delay", "0");
    }
    e->nprocs = 4;
    is_int(aa_analyze_run(e, NULL, &a, &err), AA_OK, "blocked time: analysed");
    if (!a) {
        aa_experiment_free(e);
        return;
    }
    ok(a->proc_metric_blocked, "the analysis counted the blocked time");
    aa_buf_init(&b);
    is_int(aa_report_html(a, e, NULL, &b, &err), AA_OK, "blocked time: html");
    ok(b.data && strstr(b.data, "time blocked outside them"), "the page names the metric");
    ok(b.data && strstr(b.data, "cluster 0 (rank 0) <b>900 ms</b>"),
       "rank 0's device wait: 900 ms blocked, as the analysis compared it");
    ok(b.data && strstr(b.data, "each for it in collective calls in "),
       "the others' wait: in collective calls (mpi_coll_wall)");
    ok(b.data && !strstr(b.data, "late by only"), "... as long as rank 0 is late: its region's");
    aa_buf_free(&b);
    {
        /* the same wait against a lateness of 0.1 s from the region: most
         * of it has other causes (aa_finding_waits_beyond_late) */
        size_t i;
        for (i = 0; i < a->nfindings; i++)
            if (a->findings[i].kind == AA_FINDING_DISSIMILARITY)
                a->findings[i].late_s = 0.1;
        aa_buf_init(&b);
        is_int(aa_report_html(a, e, NULL, &b, &err), AA_OK, "blocked time, late 0.1 s: html");
        ok(b.data && strstr(b.data, ", but it is late by only 100 ms from this region: most of "
                                    "the wait has other causes"),
           "... a wait 9x the lateness: the card says most of it has other causes");
        aa_buf_free(&b);
    }
    aa_analyze_free(a);
    aa_experiment_free(e);
}

/* A load moving between processes each step (test_dynamic_exp): the
 * finding's card, the summary's count, the table's kind. */
static void dynamic_shown(void)
{
    aa_experiment *e = test_dynamic_exp(0, 4);
    aa_analysis *a = NULL;
    aa_buf b;
    aa_err err;
    is_int(aa_analyze_run(e, NULL, &a, &err), AA_OK, "dynamic imbalance: analysed");
    if (!a) {
        aa_experiment_free(e);
        return;
    }
    aa_buf_init(&b);
    is_int(aa_report_html(a, e, NULL, &b, &err), AA_OK, "dynamic imbalance: html");
    ok(b.data && strstr(b.data, "Imbalance moving between processes in "),
       "the finding's card names the kind");
    ok(b.data && strstr(b.data, "1 moving between processes (dynamic)"), "the summary counts it");
    ok(b.data && strstr(b.data, "for whichever process had the most work in that step") &&
           strstr(b.data, "<td>dynamic</td>"),
       "the plain sentence and the table's kind");
    aa_buf_free(&b);
    aa_analyze_free(a);
    aa_experiment_free(e);
}

/* A region hot only over its two calling contexts (test_context_exp): the
 * card and the table say it adds another context up, the sentence names
 * both. */
static void contexts_shown(void)
{
    aa_experiment *e = test_context_exp(0, 4);
    aa_analyze_options o;
    aa_analysis *a = NULL;
    aa_buf b;
    aa_err err;
    aa_analyze_options_init(&o);
    o.region_metric = AA_RMETRIC_WALL;
    is_int(aa_analyze_run(e, &o, &a, &err), AA_OK, "calling contexts: analysed");
    if (!a) {
        aa_experiment_free(e);
        return;
    }
    aa_buf_init(&b);
    is_int(aa_report_html(a, e, NULL, &b, &err), AA_OK, "calling contexts: html");
    ok(b.data && strstr(b.data, "Hotspot in #") && strstr(b.data, " and 1 more calling context:"),
       "the finding's card says it adds up another context");
    ok(b.data && strstr(b.data, "added over the calling contexts it runs in") &&
           strstr(b.data, "called from sweep_x") && strstr(b.data, "called from sweep_y"),
       "the sentence names both contexts");
    aa_buf_free(&b);
    aa_analyze_free(a);
    aa_experiment_free(e);
}

int main(void)
{
    aa_experiment *clean = synth(AA_SYNTH_NONE, 3), *slow = synth(AA_SYNTH_SLOW_GROUP, 3);
    aa_analysis *ac, *as;
    aa_report_comparison *cmp = NULL;
    aa_buf b;
    aa_err err;
    size_t i;
    int renamed = 0;

    ok(clean && slow, "synthetic experiments");
    if (!clean || !slow)
        return tap_done();
    /* hostile names in the slow run */
    for (i = 0; i < slow->nregions; i++) {
        if (slow->regions[i].kind == AA_KIND_LOOP && !renamed) {
            free(slow->regions[i].name);
            slow->regions[i].name = strdup("<script>alert('x')</script>");
            free(slow->regions[i].file);
            slow->regions[i].file = strdup("a\"b&c.c");
            renamed = 1;
        }
    }
    aa_experiment_set_attr(slow, "note", "<img src=x onerror=alert(1)>");
    ac = analyse(clean);
    as = analyse(slow);
    ok(ac && as, "analyses");
    if (!ac || !as)
        return tap_done();

    aa_buf_init(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html of the slow run");
    ok(b.data && strncmp(b.data, "<!DOCTYPE html>", 15) == 0, "starts with the doctype");
    ok(strstr(b.data, "</html>") != NULL, "complete document");
    is_int((int)count(b.data, "<script"), 1, "one script element");
    ok(!strstr(b.data, "<script>alert"), "region name escaped");
    ok(strstr(b.data, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != NULL,
       "escaped name shown");
    ok(!strstr(b.data, "<img"), "attribute value escaped");
    ok(strstr(b.data, "a&quot;b&amp;c.c") != NULL, "file name escaped");
    ok(strstr(b.data, "data-chart=\"severity\"") && strstr(b.data, "data-chart=\"heatmap\"") &&
           strstr(b.data, "data-chart=\"optics\""),
       "three charts");
    ok(strstr(b.data, "id=\"comparison\"") == NULL, "no comparison without a baseline");
    ok(strstr(b.data, "2 clusters") != NULL || strstr(b.data, "clusters.</p>") != NULL,
       "OPTICS plot states its clusters");
    ok(strstr(b.data, "class=\"unavail\">l1_miss_rate<") != NULL, "unmeasured attributes listed");
    ok(strstr(b.data, "<th>impact</th>") && strstr(b.data, "%)</td>"),
       "findings table states their impact (seconds, share of the run)");
    {
        /* the report's own views and words */
        const char *fs = strstr(b.data, "<div class=\"finding\"><h3>1. Imbalance in ");
        const char *hm = strstr(b.data, "<section id=\"heatmap\">");
        const char *hme = hm ? strstr(hm, "</section>") : NULL;
        const char *op = strstr(b.data, "<section id=\"optics\">"), *q;
        size_t nundef = 0, tall = 0;
        ok(strstr(b.data, "<tr><th>run time</th><td>") != NULL, "summary: the run time in seconds");
        ok(fs && strstr(fs, " s (") && strstr(fs, "% of the run)</h3><p><b>ranks "),
           "first finding: seconds, share of the run, then who in plain words");
        ok(fs && strstr(fs, "here per cluster of processes: cluster 0 ("), "finding: cluster means");
        {
            /* one number: a finding's share in its card and in the table is
             * the analysis's run_share (a hotspot's card said 13.5% where
             * the table said 99.2%) */
            size_t i, same = 0, ncards = 0;
            char card[64], cell[64];
            for (i = 0; i < as->nfindings; i++) {
                const aa_finding *f = &as->findings[i];
                snprintf(card, sizeof card, " (%.1f%% of the run)</h3>", 100 * f->run_share);
                snprintf(cell, sizeof cell, " (%.1f%%)", 100 * f->run_share);
                ncards += f->cccr; /* a card for every CCCR (fewer than MAX_CARDS here) */
                same += (!f->cccr || strstr(b.data, card)) && strstr(b.data, cell);
            }
            ok(ncards > 1 && same == as->nfindings,
               "every finding's share in its card and the table is its run_share (%zu of %zu)",
               same, as->nfindings);
        }
        ok(fs && strstr(fs, "data-chart=\"ranks-1\""), "finding: per-rank bar chart");
        ok(strstr(b.data, "<section id=\"legend\">") && strstr(b.data, "<dt>CCCR</dt>") &&
               strstr(b.data, "<dt>effect</dt>") && strstr(b.data, "<dt>confidence</dt>"),
           "legend of the terms");
        is_int((int)count(b.data, "<tr data-i=\""), (int)as->nregions,
               "call tree: one row per region");
        ok(strstr(b.data, "<th>inclusive</th>") && strstr(b.data, "<th>exclusive</th>"),
           "call tree: inclusive and exclusive times");
        ok(hm && hme && !strstr(hm, "rotate(-60)\">#"), "heat map: no #ordinal column labels");
        /* colour on share of the run: every cell under 5% of the run stays light
         * (the run: the median whole-program time the analysis measures impact by) */
        for (q = hm; q && hme && as->findings[0].run_share > 0 &&
                     (q = strstr(q, "<rect ")) && q < hme;
             q++) {
            const char *fill = strstr(q, "fill=\"#"), *tip = strstr(q, "data-tip=\"rank ");
            const char *end = tip ? strchr(tip + 10, '"') : NULL, *t;
            double run = as->findings[0].impact_s / as->findings[0].run_share, secs;
            unsigned r, g, bb;
            if (!fill || !tip || !end || sscanf(fill, "fill=\"#%2x%2x%2x", &r, &g, &bb) != 3)
                continue;
            for (t = tip; strstr(t, ": ") && strstr(t, ": ") < end; t = strstr(t, ": ") + 2)
                ;
            secs = atof(t);
            if (strncmp(strchr(t, ' ') ? strchr(t, ' ') : t, " ms", 3) == 0)
                secs *= 1e-3;
            else if (strncmp(strchr(t, ' ') ? strchr(t, ' ') : t, " &#181;s", 8) == 0)
                secs *= 1e-6;
            if (secs < 0.05 * run && g < 0xe0)
                tall++;
        }
        is_int((int)tall, 0, "heat map: no dark cell for a region under 5% of the run");
        for (q = op; q && (q = strstr(q, "reachability undefined")); q++) {
            const char *h = q;
            while (h > op && strncmp(h, "height=\"", 8))
                h--;
            nundef++;
            if (atof(h + 8) > 20)
                tall++;
        }
        ok(nundef >= 1 && tall == 0,
           "OPTICS: %zu undefined reachabilities drawn short, not as the tallest bar", nundef);
    }
    as->ninconsistent = 2;
    aa_buf_reset(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html with inconsistent pairs");
    ok(strstr(b.data, "<span class=\"muted\">2 inconsistent object pairs skipped") != NULL,
       "inconsistent pairs: a quiet note, not a warning");
    as->ninconsistent = 0;
    aa_buf_reset(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html of the slow run again");
    {
        /* one source of numbers: the plot is the analysis' own clustering */
        const char *sec = strstr(b.data, "<section id=\"optics\">");
        const char *end = sec ? strstr(sec, "</section>") : NULL;
        char want[64], *part = NULL;
        snprintf(want, sizeof want, ". %zu cluster%s.</p>", as->nclusters,
                 as->nclusters == 1 ? "" : "s");
        if (sec && end)
            part = strndup(sec, (size_t)(end - sec));
        ok(part && strstr(part, want), "OPTICS plot: the analysis' %zu clusters", as->nclusters);
        ok(part && count(part, "data-tip=\"rank ") == as->nprocesses,
           "OPTICS plot: one bar per analysed process");
        ok(part && strstr(part, "MinPts") && as->optics_order, "OPTICS plot: the analysis' run");
        free(part);
    }

    /* comparisons */
    is_int(aa_report_compare(as, as, "itself", &cmp, &err), AA_OK, "compare a run with itself");
    if (cmp) {
        double maxd = 0;
        is_int((int)(cmp->nnew + cmp->ngone + cmp->nchanged), 0, "no bottleneck changes");
        for (i = 0; i < cmp->ndiffs; i++)
            if (fabs(cmp->diffs[i].delta) > maxd)
                maxd = fabs(cmp->diffs[i].delta);
        ok(maxd == 0, "no performance differences");
        ok(cmp->ndiffs == as->nregions, "every region compared");
        is_int((int)aa_report_slowdowns(cmp, 0.0, 0.0, NULL, 0), 0, "no slowdown");
        aa_report_comparison_free(cmp);
    }
    cmp = NULL;
    is_int(aa_report_compare(as, ac, "clean", &cmp, &err), AA_OK, "compare slow with clean");
    if (cmp) {
        size_t idx[4];
        ok(cmp->nnew >= 1, "the slow group is a new core bottleneck (%zu new)", cmp->nnew);
        ok(cmp->ndiffs > 0 && cmp->diffs[0].delta > 0, "largest difference is a slowdown");
        ok(aa_report_slowdowns(cmp, 0.10, 0.02, idx, 4) >= 1, "slowdown gate at 10%% trips");
        ok(aa_report_slowdowns(cmp, 1000.0, 0.02, idx, 4) == 0, "slowdown gate at 100000%% does not");
        aa_buf_reset(&b);
        is_int(aa_report_html(as, slow, cmp, &b, &err), AA_OK, "html with a comparison");
        ok(strstr(b.data, "id=\"comparison\"") && strstr(b.data, "<tr class=\"new\">"),
           "comparison lists the new bottleneck");
        aa_report_comparison_free(cmp);
    }
    cmp = NULL;
    is_int(aa_report_compare(ac, as, "slow", &cmp, &err), AA_OK, "compare clean with slow");
    if (cmp) {
        ok(cmp->ngone >= 1, "the other way round it is gone (%zu gone)", cmp->ngone);
        aa_report_comparison_free(cmp);
    }

    aa_buf_reset(&b);
    aa_report_escape(&b, "<a href=\"x\">'&'</a>");
    is_str(b.data, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;", "escape");
    aa_buf_reset(&b);
    aa_report_escape(&b, NULL);
    ok(b.len == 0, "escape NULL");

    aa_buf_free(&b);
    aa_analyze_free(ac);
    aa_analyze_free(as);
    aa_experiment_free(clean);
    aa_experiment_free(slow);
    at_scale();
    io_calls_costed();
    blocked_time_shown();
    contexts_shown();
    dynamic_shown();
    return tap_done();
}
