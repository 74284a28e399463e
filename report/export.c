/*
 * report/export.c -- an experiment in the formats other tools read
 * (docs/report.md, "Formats other tools read"):
 *   - tidy CSV, one row per rank x thread x calling-context node x metric,
 *     RFC 4180, for pandas and R;
 *   - Hatchet's literal format (a JSON list of root nodes, each
 *     {"frame": {"name", "type"}, "metrics": {...}, "children": [...]}),
 *     the calling-context trees of all processes merged by the path of
 *     region ids, with the mean per process of every metric, inclusive
 *     ("<metric> (inc)") and exclusive ("<metric>"); wall time is also
 *     "time (inc)" and "time", the names Hatchet and Thicket use.
 * Values of the profile are inclusive (docs/profile-format.md); exclusive
 * values are the node's minus its children's, except for visits, which
 * count the node's own entries (both columns carry them unchanged).
 */
#include "report/aa_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared ----------------------------------------------------------------- */

static const char *region_name(const aa_region *r)
{
    return r && r->name && *r->name ? r->name : "?";
}

/* exclusive value of node n of thread t for metric m: NAN when not measured */
static double exclusive_value(const aa_experiment *e, const aa_thread *t, size_t n, size_t m,
                              const size_t *first_child, const size_t *next)
{
    double v = aa_node_values(e, t, n)[m];
    size_t c;
    if (isnan(v) || !strcmp(e->metrics[m].name, "visits") ||
        !strcmp(e->metrics[m].name, "untimed_visits"))
        return v; /* visits count the node's own entries */
    for (c = first_child[n]; c != (size_t)-1; c = next[c]) {
        double cv = aa_node_values(e, t, c)[m];
        if (!isnan(cv))
            v -= cv;
    }
    return v < 0 ? 0 : v;
}

/* first child / next sibling lists of one thread's nodes, in node order */
static int thread_children(const aa_thread *t, size_t **first, size_t **next)
{
    size_t n;
    *first = malloc((t->nnodes + 1) * sizeof **first);
    *next = malloc((t->nnodes + 1) * sizeof **next);
    if (!*first || !*next) {
        free(*first);
        free(*next);
        return -1;
    }
    for (n = 0; n < t->nnodes; n++)
        (*first)[n] = (*next)[n] = (size_t)-1;
    for (n = t->nnodes; n-- > 0;) {
        int32_t p = t->nodes[n].parent;
        if (p >= 0 && (size_t)p < n) {
            (*next)[n] = (*first)[p];
            (*first)[p] = n;
        }
    }
    return 0;
}

/* ---- CSV ---------------------------------------------------------------------- */

static void csv_field(aa_buf *o, const char *s)
{
    if (!s)
        s = "";
    if (strpbrk(s, ",\"\r\n")) {
        aa_buf_putc(o, '"');
        for (; *s; s++) {
            if (*s == '"')
                aa_buf_putc(o, '"');
            aa_buf_putc(o, *s);
        }
        aa_buf_putc(o, '"');
    } else {
        aa_buf_puts(o, s);
    }
}

static void csv_num(aa_buf *o, double v)
{
    char s[32];
    aa_format_double(s, v);
    aa_buf_puts(o, s);
}

/* "main/solve/loop@55": region names from the root, the root left out */
static void node_path(aa_buf *o, const aa_experiment *e, const aa_thread *t, size_t n)
{
    size_t chain[256], k = 0;
    long i = (long)n;
    while (i >= 0 && k < 256) {
        chain[k++] = (size_t)i;
        i = t->nodes[i].parent;
    }
    while (k-- > 0) {
        const aa_region *r = aa_experiment_region(e, t->nodes[chain[k]].region);
        if (r && r->id == 0 && t->nodes[chain[k]].parent < 0)
            continue;
        aa_buf_puts(o, region_name(r));
        if (k)
            aa_buf_putc(o, '/');
    }
}

int aa_export_csv(const aa_experiment *e, aa_buf *o, aa_err *err)
{
    size_t p, t, n, m;
    aa_buf path, row;
    aa_buf_init(&path);
    aa_buf_init(&row);
    aa_buf_puts(o, "rank,thread,node,parent,region_id,region,kind,function,file,line,path,"
                   "metric,unit,inclusive,exclusive,throttled\r\n");
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            size_t *first, *next;
            if (thread_children(th, &first, &next))
                goto nomem;
            for (n = 0; n < th->nnodes; n++) {
                const aa_region *r = aa_experiment_region(e, th->nodes[n].region);
                aa_buf_reset(&path);
                node_path(&path, e, th, n);
                aa_buf_reset(&row);
                aa_buf_printf(&row, "%d,%d,%zu,", pr->rank, th->id, n);
                if (th->nodes[n].parent >= 0)
                    aa_buf_printf(&row, "%d", (int)th->nodes[n].parent);
                aa_buf_printf(&row, ",%u,", th->nodes[n].region);
                csv_field(&row, region_name(r));
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? aa_region_kind_name(r->kind) : "");
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? r->function : "");
                aa_buf_putc(&row, ',');
                csv_field(&row, r ? r->file : "");
                aa_buf_printf(&row, ",%d,", r ? r->line : 0);
                csv_field(&row, path.data ? path.data : "");
                aa_buf_putc(&row, ',');
                for (m = 0; m < e->nmetrics; m++) {
                    double v = aa_node_values(e, th, n)[m];
                    if (isnan(v))
                        continue; /* not measured: no row */
                    aa_buf_add(o, row.data, row.len);
                    csv_field(o, e->metrics[m].name);
                    aa_buf_putc(o, ',');
                    csv_field(o, e->metrics[m].unit);
                    aa_buf_putc(o, ',');
                    csv_num(o, v);
                    aa_buf_putc(o, ',');
                    csv_num(o, exclusive_value(e, th, n, m, first, next));
                    aa_buf_printf(o, ",%d\r\n", (th->nodes[n].flags & AA_NODE_THROTTLED) ? 1 : 0);
                }
            }
            free(first);
            free(next);
        }
    }
    aa_buf_free(&path);
    aa_buf_free(&row);
    if (o->failed)
        return aa_err_set(err, AA_EENV, "export: out of memory");
    return AA_OK;
nomem:
    aa_buf_free(&path);
    aa_buf_free(&row);
    return aa_err_set(err, AA_EENV, "export: out of memory");
}

/* ---- Hatchet literal ------------------------------------------------------------ */

/* The merged calling-context tree. */
typedef struct mnode {
    uint32_t region;
    size_t parent, first_child, next_sibling, last_child;
    double *inc;  /* nmetrics sums over processes */
    double *exc;
    size_t *cnt;  /* processes with a value, per metric */
    int throttled;
} mnode;

typedef struct mtree {
    size_t n, cap, nm;
    mnode *v;
} mtree;

#define NONE ((size_t)-1)

static size_t mtree_child(mtree *t, size_t parent, uint32_t region)
{
    size_t c;
    mnode *x;
    if (parent != NONE) {
        for (c = t->v[parent].first_child; c != NONE; c = t->v[c].next_sibling)
            if (t->v[c].region == region)
                return c;
    } else {
        for (c = 0; c < t->n; c++)
            if (t->v[c].parent == NONE && t->v[c].region == region)
                return c;
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        mnode *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return NONE;
        t->v = nv;
        t->cap = nc;
    }
    x = &t->v[t->n];
    memset(x, 0, sizeof *x);
    x->region = region;
    x->parent = parent;
    x->first_child = x->next_sibling = x->last_child = NONE;
    x->inc = calloc(t->nm + 1, sizeof *x->inc);
    x->exc = calloc(t->nm + 1, sizeof *x->exc);
    x->cnt = calloc(t->nm + 1, sizeof *x->cnt);
    if (!x->inc || !x->exc || !x->cnt) {
        free(x->inc);
        free(x->exc);
        free(x->cnt);
        return NONE;
    }
    if (parent != NONE) {
        if (t->v[parent].last_child == NONE)
            t->v[parent].first_child = t->n;
        else
            t->v[t->v[parent].last_child].next_sibling = t->n;
        t->v[parent].last_child = t->n;
    }
    return t->n++;
}

static void mtree_free(mtree *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        free(t->v[i].inc);
        free(t->v[i].exc);
        free(t->v[i].cnt);
    }
    free(t->v);
}

/* Adds every node of every thread; threads of one process add up. */
static int mtree_build(mtree *t, const aa_experiment *e)
{
    size_t p, th, n, m, *map = NULL, cap = 0;
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        for (th = 0; th < pr->nthreads; th++) {
            const aa_thread *tr = &pr->threads[th];
            size_t *first, *next;
            if (tr->nnodes > cap) {
                size_t *nm = realloc(map, tr->nnodes * sizeof *nm);
                if (!nm)
                    goto nomem;
                map = nm;
                cap = tr->nnodes;
            }
            if (thread_children(tr, &first, &next))
                goto nomem;
            for (n = 0; n < tr->nnodes; n++) {
                int32_t par = tr->nodes[n].parent;
                size_t mp = par >= 0 && (size_t)par < n ? map[par] : NONE;
                size_t x = (par >= 0 && mp == NONE) ? NONE : mtree_child(t, mp, tr->nodes[n].region);
                map[n] = x;
                if (x == NONE) {
                    if (par >= 0 && mp == NONE)
                        continue;
                    free(first);
                    free(next);
                    goto nomem;
                }
                if (tr->nodes[n].flags & AA_NODE_THROTTLED)
                    t->v[x].throttled = 1;
                for (m = 0; m < e->nmetrics; m++) {
                    double v = aa_node_values(e, tr, n)[m];
                    if (isnan(v))
                        continue;
                    t->v[x].inc[m] += v;
                    t->v[x].exc[m] += exclusive_value(e, tr, n, m, first, next);
                    if (th == 0)
                        t->v[x].cnt[m]++;
                }
            }
            free(first);
            free(next);
        }
    }
    free(map);
    return 0;
nomem:
    free(map);
    return -1;
}

static void hatchet_node(aa_json *j, const aa_experiment *e, const mtree *t, size_t x)
{
    const mnode *nd = &t->v[x];
    const aa_region *r = aa_experiment_region(e, nd->region);
    size_t m, c;
    int wall = aa_experiment_metric_index(e, "wall");
    char key[160];
    aa_json_obj_begin(j);
    aa_json_key(j, "frame");
    aa_json_obj_begin(j);
    aa_json_key(j, "name");
    aa_json_str(j, region_name(r));
    aa_json_key(j, "type");
    aa_json_str(j, r ? aa_region_kind_name(r->kind) : "region");
    aa_json_obj_end(j);
    aa_json_key(j, "metrics");
    aa_json_obj_begin(j);
    if (wall >= 0) {
        size_t k = nd->cnt[wall] ? nd->cnt[wall] : 1;
        aa_json_key(j, "time (inc)");
        aa_json_num(j, nd->inc[wall] / (double)k);
        aa_json_key(j, "time");
        aa_json_num(j, nd->exc[wall] / (double)k);
    }
    for (m = 0; m < e->nmetrics; m++) {
        size_t k = nd->cnt[m] ? nd->cnt[m] : 1;
        snprintf(key, sizeof key, "%s (inc)", e->metrics[m].name);
        aa_json_key(j, key);
        aa_json_num(j, nd->inc[m] / (double)k);
        aa_json_key(j, e->metrics[m].name);
        aa_json_num(j, nd->exc[m] / (double)k);
    }
    aa_json_key(j, "processes");
    aa_json_int(j, wall >= 0 ? (long long)nd->cnt[wall] : 0);
    aa_json_key(j, "throttled");
    aa_json_int(j, nd->throttled);
    aa_json_obj_end(j);
    aa_json_key(j, "attributes");
    aa_json_obj_begin(j);
    aa_json_key(j, "region_id");
    aa_json_int(j, nd->region);
    aa_json_key(j, "file");
    aa_json_str(j, r && r->file ? r->file : "");
    aa_json_key(j, "line");
    aa_json_int(j, r ? r->line : 0);
    aa_json_key(j, "function");
    aa_json_str(j, r && r->function ? r->function : "");
    aa_json_obj_end(j);
    if (nd->first_child != NONE) {
        aa_json_key(j, "children");
        aa_json_arr_begin(j);
        for (c = nd->first_child; c != NONE; c = t->v[c].next_sibling)
            hatchet_node(j, e, t, c);
        aa_json_arr_end(j);
    }
    aa_json_obj_end(j);
}

int aa_export_hatchet(const aa_experiment *e, aa_buf *o, aa_err *err)
{
    mtree t;
    aa_json j;
    size_t x;
    memset(&t, 0, sizeof t);
    t.nm = e->nmetrics;
    if (mtree_build(&t, e)) {
        mtree_free(&t);
        return aa_err_set(err, AA_EENV, "export: out of memory");
    }
    aa_json_init(&j, o, 0);
    aa_json_arr_begin(&j);
    for (x = 0; x < t.n; x++)
        if (t.v[x].parent == NONE)
            hatchet_node(&j, e, &t, x);
    aa_json_arr_end(&j);
    aa_buf_putc(o, '\n');
    mtree_free(&t);
    if (o->failed)
        return aa_err_set(err, AA_EENV, "export: out of memory");
    return AA_OK;
}

int aa_export_format_parse(const char *s, aa_export_format *out)
{
    if (!strcmp(s, "csv"))
        *out = AA_EXPORT_CSV;
    else if (!strcmp(s, "hatchet"))
        *out = AA_EXPORT_HATCHET;
    else
        return -1;
    return 0;
}

int aa_export(const aa_experiment *e, aa_export_format f, aa_buf *out, aa_err *err)
{
    return f == AA_EXPORT_CSV ? aa_export_csv(e, out, err) : aa_export_hatchet(e, out, err);
}
