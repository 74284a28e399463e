/*
 * report/views.c -- the report's views that work on the region tree and on
 * single findings: per-region means (inclusive and exclusive wall time per
 * process, in seconds and share of the run), the expandable, sortable call
 * tree, a finding's per-rank bar chart with absolute values, and the source
 * lines of a finding's region when its file can be read.  The script that
 * expands and sorts the tree is part of html.c's inline script.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)
#define MAX_RANK_BARS 500
#define TREE_OPEN_DEPTH 2  /* deeper nodes start collapsed */
#define SRC_CONTEXT 2      /* lines shown before and after a region */
#define SRC_MAX_LINES 24

typedef struct rank_cluster {
    int rank, cluster;
} rank_cluster;

static int rc_cmp(const void *pa, const void *pb)
{
    const rank_cluster *a = pa, *b = pb;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* cluster[] by process index of v, through the analysis' rank list */
static int map_clusters(const aa_analysis *a, const rp_values *v, int *cluster)
{
    size_t i, p;
    rank_cluster *rc = malloc((a->nprocesses ? a->nprocesses : 1) * sizeof *rc);
    if (!rc)
        return -1;
    for (i = 0; i < a->nprocesses; i++) {
        rc[i].rank = a->ranks[i];
        rc[i].cluster = a->cluster_of ? a->cluster_of[i] : 0;
    }
    qsort(rc, a->nprocesses, sizeof *rc, rc_cmp);
    for (p = 0; p < v->nproc; p++) {
        rank_cluster k, *hit;
        k.rank = v->ranks[p];
        hit = v->excluded[p] ? NULL : bsearch(&k, rc, a->nprocesses, sizeof *rc, rc_cmp);
        cluster[p] = hit ? hit->cluster : -1;
    }
    free(rc);
    return 0;
}

int rp_stats_compute(const aa_analysis *a, const rp_values *v, rp_stats *s)
{
    size_t R = v->nreg, r, p, n = 0;
    memset(s, 0, sizeof *s);
    s->incl = calloc(R + 1, sizeof *s->incl);
    s->excl = calloc(R + 1, sizeof *s->excl);
    s->main_mean = calloc(R + 1, sizeof *s->main_mean);
    s->cluster = calloc(v->nproc + 1, sizeof *s->cluster);
    s->first_child = malloc((R + 1) * sizeof *s->first_child);
    s->next_sibling = malloc((R + 1) * sizeof *s->next_sibling);
    if (!s->incl || !s->excl || !s->main_mean || !s->cluster || !s->first_child ||
        !s->next_sibling || map_clusters(a, v, s->cluster)) {
        rp_stats_free(s);
        return -1;
    }
    for (p = 0; p < v->nproc; p++) {
        if (v->excluded[p])
            continue;
        n++;
        for (r = 0; r < R; r++) {
            double w = v->wall[p * R + r], m = v->main[p * R + r];
            if (!isnan(w))
                s->incl[r] += w;
            if (!isnan(m))
                s->main_mean[r] += m;
        }
    }
    for (r = 0; r < R; r++) {
        s->incl[r] = n ? s->incl[r] / (double)n : 0;
        s->main_mean[r] = n ? s->main_mean[r] / (double)n : 0;
        s->first_child[r] = s->next_sibling[r] = NONE;
    }
    for (r = R; r-- > 0;) { /* children in region order */
        long par = a->regions[r].parent;
        if (par >= 0 && (size_t)par < R) {
            s->next_sibling[r] = s->first_child[par];
            s->first_child[par] = r;
        } else if (s->incl[r] > s->run_s) {
            s->run_s = s->incl[r];
        }
    }
    for (r = 0; r < R; r++) {
        size_t c;
        double e = s->incl[r];
        for (c = s->first_child[r]; c != NONE; c = s->next_sibling[c])
            e -= s->incl[c];
        s->excl[r] = e > 0 ? e : 0;
    }
    return 0;
}

void rp_stats_free(rp_stats *s)
{
    free(s->incl);
    free(s->excl);
    free(s->main_mean);
    free(s->cluster);
    free(s->first_child);
    free(s->next_sibling);
    memset(s, 0, sizeof *s);
}

/* ---- call tree ------------------------------------------------------------ */

static void tree_time_cells(aa_buf *o, double t, double run)
{
    aa_buf_printf(o, "<td class=\"num\" data-v=\"%.9g\">", t);
    rp_put_time(o, t);
    aa_buf_printf(o, "</td><td class=\"num\" data-v=\"%.9g\">", run > 0 ? t / run : 0);
    if (run > 0)
        aa_buf_printf(o, "%.1f%%", 100 * t / run);
    else
        aa_buf_puts(o, "n/a");
    aa_buf_puts(o, "</td>");
}

static void tree_row(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                     size_t r)
{
    int d = a->regions[r].depth, sev = a->severity ? a->severity[r] : -1;
    int has_children = s->first_child[r] != NONE;
    long par = a->regions[r].parent;
    aa_buf_printf(o, "<tr data-i=\"%zu\" data-p=\"%ld\" data-d=\"%d\"%s%s>", r, par, d,
                  d < TREE_OPEN_DEPTH ? " data-open=\"1\"" : "",
                  d > TREE_OPEN_DEPTH ? " hidden" : "");
    aa_buf_printf(o, "<td data-v=\"%zu\" style=\"padding-left:%dpx\">", a->regions[r].index,
                  4 + 16 * d);
    if (has_children)
        aa_buf_printf(o, "<button class=\"tg\" aria-label=\"expand or collapse\">%s</button>",
                      d < TREE_OPEN_DEPTH ? "&#9662;" : "&#9656;");
    else
        aa_buf_puts(o, "<span class=\"tg\"></span>");
    rp_put_region(o, a, r);
    if (v->partial[r])
        aa_buf_puts(o, " <span class=\"partial\" title=\"throttled: values cover only the "
                       "visits before measuring stopped\">partial</span>");
    aa_buf_puts(o, "</td>");
    tree_time_cells(o, s->incl[r], s->run_s);
    tree_time_cells(o, s->excl[r], s->run_s);
    aa_buf_printf(o, "<td class=\"num\" data-v=\"%zu\">%zu</td>", a->regions[r].nprocs_run,
                  a->regions[r].nprocs_run);
    aa_buf_printf(o, "<td data-v=\"%d\">%s</td></tr>", sev,
                  d == 0 ? "-" : rp_severity_name(sev));
}

void rp_section_calltree(aa_buf *o, const aa_analysis *a, const rp_values *v,
                         const rp_stats *s)
{
    size_t *stack, top = 0, r;
    aa_buf_puts(o, "<section id=\"calltree\"><h2>Call tree</h2><p>Every region in its calling "
                   "context: mean wall time per process, inclusive (with everything it calls) "
                   "and exclusive (its own code), in seconds and as a share of the run. "
                   "&#9656; expands a region; a click on a column heading sorts the regions "
                   "under each parent.</p>");
    stack = malloc((v->nreg + 1) * sizeof *stack);
    if (!stack) {
        aa_buf_puts(o, "<p>out of memory</p></section>\n");
        return;
    }
    aa_buf_puts(o, "<div class=\"scroll\"><table class=\"tree\" id=\"aa-tree\"><thead><tr>"
                   "<th>region</th><th>inclusive</th><th>% of run</th><th>exclusive</th>"
                   "<th>% of run</th><th>processes</th><th>severity</th></tr></thead><tbody>");
    for (r = v->nreg; r-- > 0;) /* roots, first one on top of the stack */
        if (a->regions[r].parent < 0)
            stack[top++] = r;
    while (top) {
        size_t c, n = 0, k;
        r = stack[--top];
        tree_row(o, a, v, s, r);
        for (c = s->first_child[r]; c != NONE; c = s->next_sibling[c])
            stack[top + n++] = c;
        for (k = 0; k < n / 2; k++) { /* first child on top */
            size_t t = stack[top + k];
            stack[top + k] = stack[top + n - 1 - k];
            stack[top + n - 1 - k] = t;
        }
        top += n;
    }
    aa_buf_puts(o, "</tbody></table></div></section>\n");
    free(stack);
}

/* ---- a finding's per-rank bars ------------------------------------------ */

static int is_slow(const aa_finding *f, int rank)
{
    size_t i;
    for (i = 0; i < f->nslow; i++)
        if (f->slow_ranks[i] == rank)
            return 1;
    return 0;
}

void rp_rank_bars(aa_buf *o, const aa_analysis *a, const rp_values *v, const rp_stats *s,
                  const aa_finding *f, size_t nth)
{
    size_t R = v->nreg, r = f->region, n = v->nproc, bin, nb, b, p;
    double max = 0, bw;
    int left = 70, plot_w = 980, plot_h = 110, top = 8, W, H;
    char *slow = calloc(n + 1, 1);
    /* an imbalance in the metric the processes were clustered by, a hotspot
     * in the region's wall time (an MPI call has no CPU time outside MPI) */
    const double *val = f->kind == AA_FINDING_DISSIMILARITY ? v->main : v->wall;
    const char *what = f->kind == AA_FINDING_DISSIMILARITY ? v->main_label : "Wall time";
    (void)a;
    (void)s;
    if (!slow || !n) {
        free(slow);
        return;
    }
    for (p = 0; p < n; p++) {
        double x = val[p * R + r];
        if (!isnan(x) && x > max)
            max = x;
        slow[p] = f->kind == AA_FINDING_DISSIMILARITY && is_slow(f, v->ranks[p]);
    }
    bin = (n + MAX_RANK_BARS - 1) / MAX_RANK_BARS;
    nb = (n + bin - 1) / bin;
    bw = (double)plot_w / (double)nb;
    W = left + plot_w + 10;
    H = top + plot_h + 34;
    aa_buf_puts(o, "<div class=\"rankbars\"><p class=\"muted\">");
    aa_buf_puts(o, what);
    aa_buf_puts(o, " in this region (inclusive) on every rank");
    if (bin > 1)
        aa_buf_printf(o, " (each bar is %zu ranks: the largest value of them)", bin);
    aa_buf_puts(o, f->kind == AA_FINDING_DISSIMILARITY
                       ? "; red: the slow ranks, blue: the others, grey: excluded."
                       : "; grey: excluded ranks.");
    if (v->partial[r])
        aa_buf_puts(o, " <span class=\"partial\">partial: the region was throttled, these "
                       "values cover only the visits before</span>");
    aa_buf_printf(o, "</p><svg class=\"aa-chart\" data-chart=\"ranks-%zu\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  nth, W, H, W, H);
    aa_buf_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"></line>", left,
                  top, left, top + plot_h);
    aa_buf_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"></line>", left,
                  top + plot_h, left + plot_w, top + plot_h);
    aa_buf_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 4, top + 10);
    rp_put_time(o, max);
    aa_buf_printf(o, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">0 s</text>", left - 4,
                  top + plot_h);
    for (b = 0; b < nb; b++) {
        size_t p0 = b * bin, p1 = p0 + bin < n ? p0 + bin : n, q;
        double m = NAN, sum = 0, h;
        int any_slow = 0, all_excl = 1, cnt = 0;
        for (q = p0; q < p1; q++) {
            double x = val[q * R + r];
            any_slow |= slow[q];
            all_excl &= v->excluded[q] != 0;
            if (isnan(x))
                continue;
            if (isnan(m) || x > m)
                m = x;
            sum += x;
            cnt++;
        }
        h = isnan(m) || max <= 0 ? 0 : m / max * plot_h;
        aa_buf_printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                         "data-tip=\"",
                      left + b * bw, top + plot_h - h, bw > 2 ? bw - 1 : bw, h,
                      all_excl ? "#bbbbbb" : any_slow ? "#d62728" : "#1f77b4");
        if (p1 - p0 > 1)
            aa_buf_printf(o, "ranks %d-%d: largest ", v->ranks[p0], v->ranks[p1 - 1]);
        else
            aa_buf_printf(o, "rank %d: ", v->ranks[p0]);
        rp_put_time(o, m);
        if (p1 - p0 > 1 && cnt) {
            aa_buf_puts(o, ", mean ");
            rp_put_time(o, sum / cnt);
        }
        aa_buf_puts(o, "\"></rect>");
    }
    aa_buf_printf(o, "<text x=\"%d\" y=\"%d\">rank %d</text>", left, top + plot_h + 16,
                  v->ranks[0]);
    aa_buf_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %d</text>", left + plot_w,
                  top + plot_h + 16, v->ranks[n - 1]);
    aa_buf_puts(o, "</svg></div>");
    free(slow);
}

/* ---- source lines --------------------------------------------------------- */

static FILE *open_source(const char *file, const char *source_dir)
{
    FILE *fp = fopen(file, "r");
    if (!fp && source_dir && *source_dir && file[0] != '/') {
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_printf(&b, "%s/%s", source_dir, file);
        if (!b.failed)
            fp = fopen(b.data, "r");
        aa_buf_free(&b);
    }
    return fp;
}

void rp_source_lines(aa_buf *o, const aa_analysis *a, size_t region, const char *source_dir)
{
    const aa_region *ri = a->regions[region].info;
    int first, last, ln = 0, c, col = 0, shown = 0;
    FILE *fp;
    if (!ri || !ri->file || !*ri->file || ri->line <= 0)
        return;
    if (!(fp = open_source(ri->file, source_dir)))
        return;
    first = ri->line > SRC_CONTEXT ? ri->line - SRC_CONTEXT : 1;
    last = (ri->end_line >= ri->line ? ri->end_line : ri->line) + SRC_CONTEXT;
    if (last - first + 1 > SRC_MAX_LINES)
        last = first + SRC_MAX_LINES - 1;
    aa_buf_puts(o, "<details class=\"src\"><summary>source: ");
    aa_report_escape(o, ri->file);
    aa_buf_printf(o, ":%d</summary><pre>", ri->line);
    ln = 1;
    while ((c = fgetc(fp)) != EOF && ln <= last) {
        char ch[2] = {(char)c, 0};
        if (ln >= first) {
            if (col == 0) {
                int in = ln >= ri->line && ln <= (ri->end_line >= ri->line ? ri->end_line : ri->line);
                aa_buf_printf(o, "<span class=\"%s\">%5d  ", in ? "hl" : "ln", ln);
                shown++;
            }
            if (c == '\n')
                aa_buf_puts(o, "</span>\n");
            else if (c == '\t')
                aa_buf_puts(o, "    ");
            else if ((unsigned char)c >= 0x20 || c == '\r')
                aa_report_escape(o, c == '\r' ? "" : ch);
            else
                aa_buf_putc(o, '?');
        }
        if (c == '\n') {
            ln++;
            col = 0;
        } else {
            col++;
        }
    }
    if (col && ln >= first && ln <= last)
        aa_buf_puts(o, "</span>\n");
    fclose(fp);
    if (!shown)
        aa_buf_puts(o, "(the file is shorter than the recorded line: it changed since the run)\n");
    aa_buf_puts(o, "</pre></details>");
}

/* ---- per-region distributions over the processes -------------------------- */

#define MAX_DIST_ROWS 20
#define DIST_MIN_SHARE 0.001 /* of the run: smaller spreads are noise (2% of a 3 ms helper) */

typedef struct dist_row {
    size_t region, n;
    double min, median, p90, max, mean, sd;
    int max_rank;
} dist_row;

/* The distribution of region r's main metric over the analysed processes
 * that ran it, as aa_region_dist defines it (median: the mean of the two
 * middle values for an even count; p90: nearest rank), and the rank of
 * the largest value; tmp holds v->nproc doubles.  0 when no process ran it. */
static size_t dist_of(const rp_values *v, size_t r, double *tmp, dist_row *d)
{
    size_t p, n = 0, at = 0;
    double sum = 0, sq = 0;
    memset(d, 0, sizeof *d);
    d->region = r;
    for (p = 0; p < v->nproc; p++) {
        double x = v->main[p * v->nreg + r];
        if (v->excluded[p] || isnan(x))
            continue;
        if (!n || x > d->max) {
            d->max = x;
            at = p;
        }
        if (!n || x < d->min)
            d->min = x;
        sum += x;
        sq += x * x;
        tmp[n++] = x;
    }
    if (!n)
        return 0;
    d->n = n;
    d->max_rank = v->ranks[at];
    d->mean = sum / (double)n;
    d->sd = sqrt(fmax(0, sq / (double)n - d->mean * d->mean));
    d->median = aa_select_kth(tmp, n, n / 2);
    if (n % 2 == 0) { /* the lower middle: the largest of the lower half */
        double lo = tmp[0];
        for (p = 1; p < n / 2; p++)
            lo = tmp[p] > lo ? tmp[p] : lo;
        d->median = (d->median + lo) / 2;
    }
    d->p90 = aa_select_kth(tmp, n, (size_t)ceil(0.9 * (double)n) - 1);
    return n;
}

static int dist_cmp(const void *pa, const void *pb)
{
    const dist_row *a = pa, *b = pb;
    double x = a->max - a->median, y = b->max - b->median;
    if (x != y)
        return x > y ? -1 : 1;
    return (a->region > b->region) - (a->region < b->region);
}

static void dist_cell(aa_buf *o, double t)
{
    aa_buf_printf(o, "<td class=\"num\" data-v=\"%.9g\">", t);
    rp_put_time(o, t);
    aa_buf_puts(o, "</td>");
}

void rp_section_distribution(aa_buf *o, const aa_analysis *a, const rp_values *v,
                             const rp_stats *s)
{
    size_t r, n = 0, shown, i;
    dist_row *rows = calloc(v->nreg + 1, sizeof *rows);
    double *tmp = malloc((v->nproc + 1) * sizeof *tmp), max = 0;
    int row = 40, plot_w = 760, H;
    aa_buf_puts(o, "<section id=\"distribution\"><h2>Per-region distribution over the "
                   "processes</h2>");
    if (!rows || !tmp) {
        aa_buf_puts(o, "<p>out of memory</p></section>\n");
        free(rows);
        free(tmp);
        return;
    }
    for (r = 0; r < v->nreg; r++)
        if (a->regions[r].depth > 0 && dist_of(v, r, tmp, &rows[n]))
            n++;
    qsort(rows, n, sizeof *rows, dist_cmp);
    for (shown = 0; shown < n && shown < MAX_DIST_ROWS; shown++)
        if (!(rows[shown].max - rows[shown].median >= DIST_MIN_SHARE * s->run_s))
            break; /* within the noise of every region: nothing to show */
    for (i = 0; i < shown; i++)
        max = rows[i].max > max ? rows[i].max : max;
    aa_buf_puts(o, "<p>");
    aa_report_escape(o, v->main_label);
    aa_buf_printf(o, " of a region (inclusive) over the analysed processes that ran it, for "
                     "the %zu regions (of %zu) whose slowest process is furthest above the "
                     "median (by at least 0.1%% of the run): the line spans the smallest to the largest value, the box the "
                     "median to the 90th percentile, the red dot is the slowest process (its "
                     "rank above the bar).  What the heat map shows per group of ranks, here "
                     "per region, with every process counted.</p>",
                  shown, n);
    if (!shown) {
        aa_buf_puts(o, "<p class=\"muted\">In no region is the slowest process 0.1% of the run "
                       "above the median.</p></section>\n");
        free(rows);
        free(tmp);
        return;
    }
    H = 6 + (int)shown * row;
    aa_buf_printf(o, "<svg class=\"aa-chart\" data-chart=\"distribution\" width=\"1000\" "
                     "height=\"%d\" viewBox=\"0 0 1000 %d\" role=\"img\">", H, H);
    for (i = 0; i < shown; i++) {
        const dist_row *d = &rows[i];
        int y = 4 + (int)i * row;
        double k = max > 0 ? plot_w / max : 0;
        double x0 = 2 + d->min * k, x1 = 2 + d->max * k, xm = 2 + d->median * k;
        double x9 = 2 + d->p90 * k;
        aa_buf_printf(o, "<text x=\"2\" y=\"%d\">", y + 11);
        rp_put_region(o, a, d->region);
        aa_buf_puts(o, " &#8212; median ");
        rp_put_time(o, d->median);
        aa_buf_puts(o, ", largest ");
        rp_put_time(o, d->max);
        aa_buf_printf(o, " on rank %d", d->max_rank);
        if (d->median > 0)
            aa_buf_printf(o, " (%.2fx the median)", d->max / d->median);
        aa_buf_puts(o, "</text>");
        aa_buf_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#455a64\">"
                         "</line>",
                      x0, y + 24, x1, y + 24);
        aa_buf_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#9ecae1\" "
                         "data-tip=\"",
                      xm, y + 17, x9 - xm < 1 ? 1 : x9 - xm);
        rp_put_region(o, a, d->region);
        aa_buf_printf(o, ": %zu processes; smallest ", d->n);
        rp_put_time(o, d->min);
        aa_buf_puts(o, ", median ");
        rp_put_time(o, d->median);
        aa_buf_puts(o, ", 90th percentile ");
        rp_put_time(o, d->p90);
        aa_buf_puts(o, ", mean ");
        rp_put_time(o, d->mean);
        aa_buf_puts(o, ", largest ");
        rp_put_time(o, d->max);
        aa_buf_printf(o, " (rank %d)\"></rect>", d->max_rank);
        aa_buf_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#08306b\" "
                         "stroke-width=\"2\"></line>",
                      xm, y + 16, xm, y + 32);
        aa_buf_printf(o, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#d62728\" data-tip=\"rank %d: "
                         "",
                      x1, y + 24, d->max_rank);
        rp_put_time(o, d->max);
        if (s->run_s > 0)
            aa_buf_printf(o, " (%.1f%% of the run)", 100 * d->max / s->run_s);
        aa_buf_puts(o, "\"></circle>");
    }
    aa_buf_puts(o, "</svg><details><summary>the numbers</summary><div class=\"scroll\">"
                   "<table class=\"sortable\"><thead><tr><th>region</th><th>processes</th>"
                   "<th>smallest</th><th>median</th><th>mean</th><th>90th percentile</th>"
                   "<th>largest</th><th>on rank</th><th>std. dev.</th><th>largest / median</th>"
                   "</tr></thead><tbody>");
    for (i = 0; i < shown; i++) {
        const dist_row *d = &rows[i];
        aa_buf_puts(o, "<tr><td>");
        rp_put_region(o, a, d->region);
        aa_buf_printf(o, "</td><td class=\"num\">%zu</td>", d->n);
        dist_cell(o, d->min);
        dist_cell(o, d->median);
        dist_cell(o, d->mean);
        dist_cell(o, d->p90);
        dist_cell(o, d->max);
        aa_buf_printf(o, "<td class=\"num\">%d</td>", d->max_rank);
        dist_cell(o, d->sd);
        if (d->median > 0)
            aa_buf_printf(o, "<td class=\"num\" data-v=\"%.9g\">%.2f</td>", d->max / d->median,
                          d->max / d->median);
        else
            aa_buf_puts(o, "<td class=\"num\" data-v=\"0\">-</td>");
        aa_buf_puts(o, "</tr>");
    }
    aa_buf_puts(o, "</tbody></table></div></details></section>\n");
    free(rows);
    free(tmp);
}
