/*
 * space/space_add.c -- turning an experiment into a Program Space
 * execution: the EventMap (resource hierarchies /Code/<file>/<function>/
 * <region>..., /Machine/<host>, /Process/<rank>/<thread>), the SpaceMap
 * attributes (the experiment's environment plus overrides), and the
 * performance results at foci: every code region x every process, code
 * region x all processes (sums), whole program x each host, and code region
 * x thread when a process has several threads.  Every code resource
 * (region, file, directory) gets the inclusive value of its outermost
 * calling-context nodes, so nothing is counted twice (docs/space.md).
 */
#include "space/sp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_component(aa_buf *b, const char *s, size_t n)
{
    size_t i;
    aa_buf_putc(b, '/');
    for (i = 0; i < n; i++) {
        if (s[i] == '/')
            aa_buf_puts(b, "%2F");
        else if (s[i] == '%')
            aa_buf_puts(b, "%25");
        else if (s[i] == '\n' || s[i] == '\t')
            aa_buf_putc(b, ' ');
        else
            aa_buf_putc(b, s[i]);
    }
}

/* /Code/<dir>/.../<file>: the file name's components become levels. */
static void file_path(aa_buf *b, const char *file)
{
    const char *p = file;
    int any = 0;
    aa_buf_puts(b, "/Code");
    while (p && *p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && !(n == 1 && p[0] == '.')) {
            put_component(b, p, n);
            any = 1;
        }
        p = e ? e + 1 : NULL;
    }
    if (!any)
        aa_buf_puts(b, "/<unknown>");
}

static const char *region_label(const aa_region *r)
{
    if (r->name && *r->name)
        return r->name;
    if (r->kind == AA_KIND_FUNCTION && r->function && *r->function)
        return r->function;
    return "region";
}

static long region_index(const aa_experiment *e, uint32_t id)
{
    size_t lo = 0, hi = e->nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->regions[mid].id == id)
            return (long)mid;
        if (e->regions[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static char *build_path(const aa_experiment *e, char **paths, long i, int depth)
{
    const aa_region *r = &e->regions[i];
    aa_buf b;
    if (paths[i])
        return paths[i];
    aa_buf_init(&b);
    if (r->id == AA_REGION_ROOT || r->kind == AA_KIND_PROGRAM) {
        aa_buf_puts(&b, "/Code");
    } else if (r->kind == AA_KIND_FUNCTION) {
        file_path(&b, r->file);
        put_component(&b, region_label(r), strlen(region_label(r)));
    } else {
        long pi = r->parent != AA_REGION_ROOT && r->parent != r->id ? region_index(e, r->parent)
                                                                    : -1;
        if (pi >= 0 && depth < (int)e->nregions &&
            e->regions[pi].kind != AA_KIND_PROGRAM) {
            aa_buf_puts(&b, build_path(e, paths, pi, depth + 1));
        } else {
            file_path(&b, r->file);
            if (r->function && *r->function)
                put_component(&b, r->function, strlen(r->function));
        }
        put_component(&b, region_label(r), strlen(region_label(r)));
    }
    paths[i] = aa_buf_detach(&b);
    return paths[i];
}

char **aa_space_code_paths(const aa_experiment *e)
{
    char **paths = calloc(e->nregions + 1, sizeof *paths);
    sp_strmap seen;
    size_t i;
    if (!paths)
        return NULL;
    for (i = 0; i < e->nregions; i++)
        build_path(e, paths, (long)i, 0);
    /* Distinct regions with the same path get "#<id>". */
    sp_strmap_init(&seen);
    for (i = 0; i < e->nregions; i++) {
        if (!paths[i]) {
            aa_space_free_strings(paths, e->nregions);
            sp_strmap_free(&seen);
            return NULL;
        }
        if (sp_strmap_get(&seen, paths[i], NULL)) {
            aa_buf b;
            aa_buf_init(&b);
            aa_buf_printf(&b, "%s#%u", paths[i], e->regions[i].id);
            free(paths[i]);
            paths[i] = aa_buf_detach(&b);
        }
        sp_strmap_put(&seen, paths[i], (long long)i);
    }
    sp_strmap_free(&seen);
    return paths;
}

void aa_space_free_strings(char **v, size_t n)
{
    size_t i;
    if (!v)
        return;
    for (i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static const char *kind_type(const aa_region *r)
{
    if (r->id == AA_REGION_ROOT)
        return "program";
    return aa_region_kind_name(r->kind);
}

static void add_val(double *cell, double v)
{
    if (isnan(v))
        return;
    *cell = isnan(*cell) ? v : *cell + v;
}

typedef struct build {
    const aa_experiment *e;
    sp_exec_data *d;
    size_t ncode;      /* code resources are d->res[0..ncode) */
    long *code_region; /* region index backing each code resource, -1 synthetic */
    long *code_parent; /* parent code resource, -1 for /Code */
    long *region_res;  /* code resource of each region */
} build;

/* vals[c * nm + m] += one thread's value of every code resource c: the
 * inclusive values of its outermost calling-context nodes, i.e. the nodes
 * whose region is c or lies below c, with no such node above them.  A
 * region, a function known only as a parent, a file or a directory thus
 * counts the time during which some of its code is on the stack once:
 * main calling the file's other functions is not counted twice, nor a
 * recursive call, and no aggregate exceeds the program.  A node without a
 * value for a metric (not measured) leaves that metric to its children.
 * Returns -1 when out of memory. */
static int thread_values_of(const build *B, const aa_thread *t, size_t m0, size_t nm,
                            double *vals);

static int thread_values(const build *B, const aa_thread *t, double *vals)
{
    return thread_values_of(B, t, 0, B->e->nmetrics, vals);
}

/* The same for the nm metrics from m0 on only: vals[c * nm + (m - m0)]
 * (the compact storage takes a few metrics per pass over the processes). */
static int thread_values_of(const build *B, const aa_thread *t, size_t m0, size_t nm,
                            double *vals)
{
    size_t n = t->nnodes, i, m, sp = 0;
    long *first = malloc((n + 1) * sizeof *first), *next = malloc((n + 1) * sizeof *next),
         *res = malloc((n + 1) * sizeof *res), *stack = malloc((2 * n + 1) * sizeof *stack);
    int *active = calloc(B->ncode * (nm ? nm : 1) + 1, sizeof *active);
    long roots = -1;
    if (!first || !next || !res || !stack || !active) {
        free(first), free(next), free(res), free(stack), free(active);
        return -1;
    }
    for (i = 0; i < n; i++) {
        long ri = region_index(B->e, t->nodes[i].region);
        first[i] = -1;
        res[i] = ri >= 0 ? B->region_res[ri] : -1;
    }
    /* children lists; nodes whose parent is missing are roots.  Only trees
     * hanging from a root are walked, so a malformed cycle is ignored. */
    for (i = n; i-- > 0;) {
        int32_t p = t->nodes[i].parent;
        if (p >= 0 && (size_t)p < n && (size_t)p != i) {
            next[i] = first[p];
            first[p] = (long)i;
        } else {
            next[i] = roots;
            roots = (long)i;
        }
    }
    for (; roots >= 0; roots = next[roots])
        stack[sp++] = roots;
    while (sp) {
        long x = stack[--sp], node = x >= 0 ? x : -x - 1, c;
        const double *v = aa_node_values(B->e, t, (size_t)node) + m0;
        if (x >= 0) { /* enter: count it where nothing above is counted yet */
            for (c = res[node]; c >= 0; c = B->code_parent[c])
                for (m = 0; m < nm; m++)
                    if (!isnan(v[m]) && active[c * nm + m]++ == 0)
                        add_val(&vals[c * nm + m], v[m]);
            stack[sp++] = -node - 1;
            for (c = first[node]; c >= 0; c = next[c])
                stack[sp++] = c;
        } else { /* leave */
            for (c = res[node]; c >= 0; c = B->code_parent[c])
                for (m = 0; m < nm; m++)
                    if (!isnan(v[m]))
                        active[c * nm + m]--;
        }
    }
    free(first), free(next), free(res), free(stack), free(active);
    return 0;
}

/* Regions with a throttled calling context (flags="throttled") have
 * partial values: the execution attribute partial_regions lists their
 * /Code paths (space-separated), so queries and comparisons can say so. */
static int partial_regions_attr(const aa_experiment *e, char **paths, sp_exec_data *d)
{
    char *seen = calloc(e->nregions + 1, 1);
    aa_buf b;
    size_t p, t, n, i;
    int rc = 0;
    if (!seen)
        return -1;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++)
            for (n = 0; n < e->processes[p].threads[t].nnodes; n++) {
                const aa_node *nd = &e->processes[p].threads[t].nodes[n];
                long ri = (nd->flags & AA_NODE_THROTTLED) ? region_index(e, nd->region) : -1;
                if (ri >= 0)
                    seen[ri] = 1;
            }
    aa_buf_init(&b);
    for (i = 0; i < e->nregions; i++)
        if (seen[i])
            aa_buf_printf(&b, "%s%s", b.len ? " " : "", paths[i]);
    if (b.len)
        rc = sp_exec_data_attr(d, "partial_regions", b.data) ? -1 : 0;
    aa_buf_free(&b);
    free(seen);
    return rc;
}

/* ---- compact storage of big runs --------------------------------------------------
 * A run of more than AA_SPACE_COMPACT_MIN processes is stored, unless
 * asked for in full (aa_space_add_options.full, `space add --full`), as
 * what queries and comparisons of big runs use: the sums over all
 * processes (as in full), the sums per host, the distribution of every
 * code resource x metric over the processes (metrics "<metric>:min",
 * ":median", ":p90", ":max", ":stddev" at the all-processes focus), and the
 * values of three representative processes (the least, median and most
 * whole-program wall time, rank order breaking ties).  The experiment
 * document is not kept (it is the size of the run).  The execution
 * attributes `storage` ("compact") and `representatives` (their ranks)
 * say so.  Memory: the metrics go in groups of about 256 MB of
 * P x resources values, one pass over the processes per group. */
int aa_space_add_compact(const aa_experiment *e, const aa_space_add_options *o)
{
    return !(o && o->full) && e->nprocesses > AA_SPACE_COMPACT_MIN;
}

static const char *const dist_name[] = {"min", "median", "p90", "max", "stddev"};
#define NDIST 5

/* Metrics m0 .. m0 + nm - 1 of process pr by code resource into
 * row[c * nm + (m - m0)] (the sum of its threads' values, as the full
 * storage has them). */
static int process_row(const build *B, const aa_process *pr, size_t m0, size_t nm, double *row)
{
    size_t i, n = B->ncode * nm;
    for (i = 0; i < n; i++)
        row[i] = NAN;
    for (i = 0; i < pr->nthreads; i++)
        if (thread_values_of(B, &pr->threads[i], m0, nm, row))
            return -1;
    return 0;
}

/* d: min, median, p90 (nearest rank), max, stddev of the n values v
 * (reordered). */
static void dist_of(double *v, size_t n, double *d)
{
    double mean = 0, ss = 0, mn = v[0], mx = v[0];
    size_t i, h = n / 2, k90 = (size_t)ceil(0.9 * (double)n) - 1;
    for (i = 0; i < n; i++) {
        mean += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    mean /= (double)n;
    for (i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    aa_select_kth(v, n, h);
    d[1] = v[h];
    if (n % 2 == 0) { /* the lower middle: the largest value before v[h] */
        double lm = v[0];
        for (i = 1; i < h; i++)
            lm = v[i] > lm ? v[i] : lm;
        d[1] = 0.5 * (lm + v[h]);
    }
    if (k90 > h)
        aa_select_kth(v + h, n - h, k90 - h);
    d[2] = v[k90];
    d[0] = mn;
    d[3] = mx;
    d[4] = sqrt(ss / (double)n);
}

typedef struct rank_wall {
    double w;
    size_t p;
} rank_wall;

static int cmp_rank_wall(const void *a, const void *b)
{
    const rank_wall *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* The representatives (rep[0..3): process indices) by whole-program wall;
 * row: scratch of ncode x nmetrics. */
static int representatives(const build *B, double *row, size_t rep[3])
{
    const aa_experiment *e = B->e;
    size_t np = e->nprocesses, p;
    int mw = aa_experiment_metric_index(e, "wall");
    rank_wall *rw = malloc(np * sizeof *rw);
    if (!rw)
        return -1;
    for (p = 0; p < np; p++) {
        rw[p].p = p;
        rw[p].w = 0;
        if (mw >= 0) {
            if (process_row(B, &e->processes[p], (size_t)mw, 1, row)) {
                free(rw);
                return -1;
            }
            rw[p].w = isnan(row[0]) ? 0 : row[0];
        }
    }
    qsort(rw, np, sizeof *rw, cmp_rank_wall);
    rep[0] = rw[0].p;
    rep[1] = rw[np / 2].p;
    rep[2] = rw[np - 1].p;
    free(rw);
    return 0;
}

/* Bytes of per-process values held at once: the metrics are processed in
 * groups of this many doubles over all processes and resources. */
#define COMPACT_GROUP_BYTES ((size_t)256 << 20)
#define PROC_BLOCK 64 /* processes whose rows are transposed at a time */

typedef struct host_proc {
    long res;
    size_t p;
} host_proc;

static int cmp_host_proc(const void *a, const void *b)
{
    const host_proc *x = a, *y = b;
    if (x->res != y->res)
        return x->res < y->res ? -1 : 1;
    return (x->p > y->p) - (x->p < y->p);
}

static int compact_data(build *B, const aa_space_add_options *o, long mach_root, long proc_root)
{
    const aa_experiment *e = B->e;
    sp_exec_data *d = B->d;
    size_t np = e->nprocesses, nm = e->nmetrics, nc = B->ncode, p, c, m, k, i, j;
    size_t rep[3], per_metric = np * nc * sizeof(double), group, g0;
    long rres[3], *host_res = calloc(np + 1, sizeof *host_res);
    host_proc *hp = malloc((np + 1) * sizeof *hp);
    size_t *hof = malloc((np + 1) * sizeof *hof);
    double *buf = NULL, *row = malloc((nc * nm + 1) * sizeof *row), *rows = NULL;
    double *col = malloc((np + nc + 1) * sizeof *col), *hsum = malloc((np + 1) * sizeof *hsum);
    aa_buf b;
    int rc = -1;
    aa_buf_init(&b);
    group = per_metric ? COMPACT_GROUP_BYTES / per_metric : nm;
    group = group < 1 ? 1 : group > nm ? nm : group;
    if (nm) {
        buf = malloc((group * np * nc + 1) * sizeof *buf);
        rows = malloc((PROC_BLOCK * nc * group + 1) * sizeof *rows);
    }
    if (!host_res || !hp || !hof || (nm && (!buf || !rows)) || !row || !col || !hsum ||
        representatives(B, row, rep))
        goto out;
    for (p = 0; p < np; p++) {
        const aa_process *pr = &e->processes[p];
        const char *h = pr->host && *pr->host ? pr->host : "unknown";
        aa_buf_reset(&b);
        aa_buf_puts(&b, "/Machine");
        put_component(&b, h, strlen(h));
        if ((host_res[p] = sp_exec_data_resource(d, b.data, "host")) < 0)
            goto out;
    }
    aa_buf_reset(&b);
    for (k = 0; k < 3; k++) {
        char num[32];
        snprintf(num, sizeof num, "/Process/%d", e->processes[rep[k]].rank);
        if ((rres[k] = sp_exec_data_resource(d, num, "process")) < 0)
            goto out;
        if (k == 0 || rep[k] != rep[k - 1])
            aa_buf_printf(&b, "%s%d", b.len ? " " : "", e->processes[rep[k]].rank);
    }
    if (sp_exec_data_attr(d, "storage", "compact") ||
        sp_exec_data_attr(d, "representatives", b.data))
        goto out;
    /* the first process on each process's host (its host sum goes there) */
    for (p = 0; p < np; p++) {
        hp[p].res = host_res[p];
        hp[p].p = p;
    }
    qsort(hp, np, sizeof *hp, cmp_host_proc);
    for (p = 0; p < np; p++)
        hof[hp[p].p] = p && hp[p].res == hp[p - 1].res ? hof[hp[p - 1].p] : hp[p].p;
    for (g0 = 0; g0 < nm; g0 += group) {
        size_t gn = nm - g0 < group ? nm - g0 : group, p0, pb;
        /* one pass over the processes: the group's columns, metric-major,
         * each resource's processes side by side (mv[c * np + p]); the
         * processes go in blocks, so the columns are written in runs */
        for (p0 = 0; p0 < np; p0 += PROC_BLOCK) {
            pb = np - p0 < PROC_BLOCK ? np - p0 : PROC_BLOCK;
            for (p = 0; p < pb; p++)
                if (process_row(B, &e->processes[p0 + p], g0, gn, rows + p * nc * gn))
                    goto out;
            for (j = 0; j < gn; j++)
                for (c = 0; c < nc; c++) {
                    double *dst = buf + (j * nc + c) * np + p0;
                    for (p = 0; p < pb; p++)
                        dst[p] = rows[(p * nc + c) * gn + j];
                }
        }
        for (j = 0; j < gn; j++) {
            const double *mv = buf + j * np * nc; /* mv[c * np + p] */
            long mi, di[NDIST];
            m = g0 + j;
            mi = sp_exec_data_metric(d, e->metrics[m].name, e->metrics[m].unit);
            for (k = 0; k < NDIST; k++) {
                aa_buf_reset(&b);
                aa_buf_printf(&b, "%s:%s", e->metrics[m].name, dist_name[k]);
                if ((di[k] = sp_exec_data_metric(d, b.data, e->metrics[m].unit)) < 0)
                    goto out;
            }
            if (mi < 0)
                goto out;
            /* sums and distributions over all processes */
            for (c = 0; c < nc; c++) {
                size_t n = 0;
                double sum = 0, dist[NDIST];
                for (p = 0; p < np; p++) {
                    double v = mv[c * np + p];
                    if (!isnan(v)) {
                        col[n++] = v;
                        sum += v;
                    }
                }
                if (!n)
                    continue;
                if (sp_exec_data_result(d, (int)mi, (long)c, mach_root, proc_root, sum))
                    goto out;
                dist_of(col, n, dist);
                for (k = 0; k < NDIST; k++)
                    if (sp_exec_data_result(d, (int)di[k], (long)c, mach_root, proc_root,
                                            dist[k]))
                        goto out;
            }
            /* whole program by host */
            for (p = 0; p < np; p++)
                hsum[p] = NAN;
            for (p = 0; p < np; p++)
                add_val(&hsum[hof[p]], mv[p]);
            for (p = 0; p < np; p++)
                if (!isnan(hsum[p]) &&
                    sp_exec_data_result(d, (int)mi, 0, host_res[p], proc_root, hsum[p]))
                    goto out;
            /* the representatives */
            for (k = 0; k < 3; k++)
                for (c = 0; c < nc && (k == 0 || rep[k] != rep[k - 1]); c++) {
                    double v = mv[c * np + rep[k]];
                    if (!isnan(v) &&
                        sp_exec_data_result(d, (int)mi, (long)c, mach_root, rres[k], v))
                        goto out;
                }
        }
    }
    for (i = 0; o && i < o->nfindings; i++)
        if (sp_exec_data_finding(d, &o->findings[i]))
            goto out;
    rc = 0;
out:
    aa_buf_free(&b);
    free(host_res);
    free(hp);
    free(hof);
    free(buf);
    free(rows);
    free(row);
    free(col);
    free(hsum);
    return rc;
}

static int experiment_data(const aa_experiment *e, const aa_space_add_options *o,
                           sp_exec_data *d, aa_err *err)
{
    build B;
    char **paths = NULL;
    size_t i, m, c, p, nm = e->nmetrics, np = e->nprocesses;
    long code_root, mach_root, proc_root, *proc_res = NULL, *host_res = NULL, *metric_idx = NULL;
    double *vals = NULL, *tvals = NULL, *agg = NULL, *hostagg = NULL;
    int rc = AA_OK;
    char num[32];
    const char *started;

    memset(&B, 0, sizeof B);
    B.e = e;
    B.d = d;
    d->application = aa_strdup(o && o->application ? o->application
                                                   : (e->program && *e->program ? e->program
                                                                                : "unknown"));
    d->experiment = aa_strdup(e->id ? e->id : "");
    d->nprocs = e->nprocs > 0 ? e->nprocs : (long)np;
    started = aa_experiment_attr(e, "start_time");
    if (!started)
        started = aa_experiment_attr(e, "started");
    if (!started)
        started = aa_experiment_attr(e, "date");
    d->started = started ? aa_strdup(started) : NULL;
    d->fail_after_rows = o ? o->fail_after_rows : 0;
    /* SpaceMap: the environment, the basics, then the overrides. */
    for (i = 0; i < e->nattrs; i++)
        if (sp_exec_data_attr(d, e->attrs[i].name, e->attrs[i].value ? e->attrs[i].value : ""))
            goto nomem;
    sp_exec_data_attr(d, "application", d->application);
    snprintf(num, sizeof num, "%ld", d->nprocs);
    sp_exec_data_attr(d, "nprocs", num);
    if (e->id && *e->id)
        sp_exec_data_attr(d, "experiment", e->id);
    for (i = 0; o && i < o->nattrs; i++)
        if (sp_exec_data_attr(d, o->attrs[i].name, o->attrs[i].value))
            goto nomem;
    /* EventMap: code resources first, so they are d->res[0..ncode). */
    paths = aa_space_code_paths(e);
    B.region_res = calloc(e->nregions + 1, sizeof *B.region_res);
    if (!paths || !B.region_res)
        goto nomem;
    if (partial_regions_attr(e, paths, d))
        goto nomem;
    code_root = sp_exec_data_resource(d, "/Code", "program");
    if (code_root != 0)
        goto nomem;
    for (i = 0; i < e->nregions; i++) {
        const aa_region *r = &e->regions[i];
        /* Type the file and directory levels before the region itself. */
        if (r->id != AA_REGION_ROOT && r->kind != AA_KIND_PROGRAM) {
            aa_buf fb;
            aa_buf_init(&fb);
            file_path(&fb, r->file);
            if (sp_exec_data_resource(d, fb.data, "file") < 0) {
                aa_buf_free(&fb);
                goto nomem;
            }
            if (r->kind != AA_KIND_FUNCTION && r->function && *r->function &&
                strncmp(paths[i], fb.data, fb.len) == 0) {
                put_component(&fb, r->function, strlen(r->function));
                if (strncmp(paths[i], fb.data, fb.len) == 0 &&
                    (paths[i][fb.len] == '/' || paths[i][fb.len] == 0))
                    sp_exec_data_resource(d, fb.data, "function");
            }
            aa_buf_free(&fb);
        }
        B.region_res[i] = sp_exec_data_resource(d, paths[i], kind_type(r));
        if (B.region_res[i] < 0 || sp_exec_data_region_id(d, B.region_res[i], r->id))
            goto nomem;
    }
    B.ncode = d->nres;
    B.code_region = malloc(B.ncode * sizeof *B.code_region);
    B.code_parent = malloc(B.ncode * sizeof *B.code_parent);
    if (!B.code_region || !B.code_parent)
        goto nomem;
    for (c = 0; c < B.ncode; c++) {
        const char *path = d->res_path[c], *slash = strrchr(path, '/');
        long long pi = -1;
        B.code_region[c] = -1;
        if (slash != path) {
            char *parent = strndup(path, (size_t)(slash - path));
            if (!parent || !sp_strmap_get(&d->res_index, parent, &pi))
                pi = -1;
            free(parent);
        }
        B.code_parent[c] = (long)pi;
    }
    for (i = 0; i < e->nregions; i++)
        B.code_region[B.region_res[i]] = (long)i;
    mach_root = sp_exec_data_resource(d, "/Machine", "machine");
    proc_root = sp_exec_data_resource(d, "/Process", "execution");
    if (aa_space_add_compact(e, o)) {
        rc = mach_root < 0 || proc_root < 0 ? AA_EENV : compact_data(&B, o, mach_root, proc_root);
        if (rc)
            goto nomem;
        goto out;
    }
    proc_res = calloc(np + 1, sizeof *proc_res);
    host_res = calloc(np + 1, sizeof *host_res);
    metric_idx = calloc(nm + 1, sizeof *metric_idx);
    if (mach_root < 0 || proc_root < 0 || !proc_res || !host_res || !metric_idx)
        goto nomem;
    for (p = 0; p < np; p++) {
        const aa_process *pr = &e->processes[p];
        aa_buf b;
        aa_buf_init(&b);
        aa_buf_puts(&b, "/Machine");
        put_component(&b, pr->host && *pr->host ? pr->host : "unknown",
                      strlen(pr->host && *pr->host ? pr->host : "unknown"));
        host_res[p] = sp_exec_data_resource(d, b.data, "host");
        aa_buf_reset(&b);
        aa_buf_printf(&b, "/Process/%d", pr->rank);
        proc_res[p] = sp_exec_data_resource(d, b.data, "process");
        for (i = 0; i < pr->nthreads; i++) {
            aa_buf_reset(&b);
            aa_buf_printf(&b, "/Process/%d/%d", pr->rank, pr->threads[i].id);
            if (sp_exec_data_resource(d, b.data, "thread") < 0)
                proc_res[p] = -1;
        }
        aa_buf_free(&b);
        if (host_res[p] < 0 || proc_res[p] < 0)
            goto nomem;
    }
    for (m = 0; m < nm; m++) {
        metric_idx[m] = sp_exec_data_metric(d, e->metrics[m].name, e->metrics[m].unit);
        if (metric_idx[m] < 0)
            goto nomem;
    }
    /* Values: all processes first (vals[p][c][m]), then the results in
     * metric-major order so new foci get ascending ids per metric. */
    vals = malloc((np ? np : 1) * B.ncode * (nm ? nm : 1) * sizeof *vals);
    tvals = malloc(B.ncode * (nm ? nm : 1) * sizeof *tvals);
    agg = malloc(B.ncode * (nm ? nm : 1) * sizeof *agg);
    hostagg = malloc((np ? np : 1) * (nm ? nm : 1) * sizeof *hostagg);
    if (!vals || !tvals || !agg || !hostagg)
        goto nomem;
    for (i = 0; i < np * B.ncode * nm; i++)
        vals[i] = NAN;
    for (i = 0; i < B.ncode * nm; i++)
        agg[i] = NAN;
    for (i = 0; i < np * nm; i++)
        hostagg[i] = NAN;
    for (p = 0; p < np; p++) {
        const aa_process *pr = &e->processes[p];
        double *pv = vals + p * B.ncode * nm;
        for (i = 0; i < pr->nthreads; i++)
            if (thread_values(&B, &pr->threads[i], pv))
                goto nomem;
        for (i = 0; i < B.ncode * nm; i++)
            add_val(&agg[i], pv[i]);
        /* per host: hostagg indexed by the first process of that host */
        {
            size_t q;
            for (q = 0; q <= p; q++)
                if (host_res[q] == host_res[p])
                    break;
            for (m = 0; m < nm; m++)
                add_val(&hostagg[q * nm + m], pv[m]);
        }
    }
    for (m = 0; m < nm; m++) {
        for (c = 0; c < B.ncode; c++) {
            double v = agg[c * nm + m];
            if (!isnan(v) && sp_exec_data_result(d, (int)metric_idx[m], (long)c, mach_root,
                                                 proc_root, v))
                goto nomem;
        }
        for (p = 0; p < np; p++) {
            double v = hostagg[p * nm + m];
            if (!isnan(v) &&
                sp_exec_data_result(d, (int)metric_idx[m], 0, host_res[p], proc_root, v))
                goto nomem;
        }
        for (p = 0; p < np; p++)
            for (c = 0; c < B.ncode; c++) {
                double v = vals[(p * B.ncode + c) * nm + m];
                if (!isnan(v) && sp_exec_data_result(d, (int)metric_idx[m], (long)c, mach_root,
                                                     proc_res[p], v))
                    goto nomem;
            }
    }
    /* Threads of multi-threaded processes. */
    for (p = 0; p < np; p++) {
        const aa_process *pr = &e->processes[p];
        if (pr->nthreads < 2)
            continue;
        for (i = 0; i < pr->nthreads; i++) {
            aa_buf b;
            long long tr;
            size_t k;
            for (k = 0; k < B.ncode * nm; k++)
                tvals[k] = NAN;
            if (thread_values(&B, &pr->threads[i], tvals))
                goto nomem;
            aa_buf_init(&b);
            aa_buf_printf(&b, "/Process/%d/%d", pr->rank, pr->threads[i].id);
            if (!sp_strmap_get(&d->res_index, b.data, &tr))
                tr = -1;
            aa_buf_free(&b);
            if (tr < 0)
                goto nomem;
            for (m = 0; m < nm; m++)
                for (c = 0; c < B.ncode; c++)
                    if (!isnan(tvals[c * nm + m]) &&
                        sp_exec_data_result(d, (int)metric_idx[m], (long)c, mach_root, (long)tr,
                                            tvals[c * nm + m]))
                        goto nomem;
        }
    }
    for (i = 0; o && i < o->nfindings; i++)
        if (sp_exec_data_finding(d, &o->findings[i]))
            goto nomem;
    goto out;
nomem:
    rc = aa_err_set(err, AA_EENV, "out of memory building the execution");
out:
    aa_space_free_strings(paths, e->nregions);
    free(B.region_res);
    free(B.code_region);
    free(B.code_parent);
    free(proc_res);
    free(host_res);
    free(metric_idx);
    free(vals);
    free(tvals);
    free(agg);
    free(hostagg);
    return rc;
}

typedef struct add_arg {
    const sp_exec_data *d;
    long long eid;
} add_arg;

static int add_tx(aa_space *s, void *arg, aa_err *err)
{
    add_arg *a = arg;
    return sp_store_execution(s, a->d, &a->eid, err);
}

/* Every stored value is a finite number: a sum that overflows (values
 * near 1e308) is refused rather than stored as inf, which no export could
 * carry. */
static int check_finite(const sp_exec_data *d, aa_err *err)
{
    size_t i;
    for (i = 0; i < d->nresults; i++) {
        const sp_result *r = &d->results[i];
        if (!isfinite(r->value))
            return aa_err_set(err, AA_EINPUT,
                              "metric '%s' at (%s, %s, %s): the value is not a finite number "
                              "(a sum over the calling contexts or processes overflows)",
                              d->metric_names[r->metric], d->res_path[r->code],
                              d->res_path[r->machine], d->res_path[r->process]);
    }
    return AA_OK;
}

int aa_space_add(aa_space *s, const aa_experiment *e, const aa_space_add_options *o,
                 long long *eid, aa_err *err)
{
    sp_exec_data d;
    add_arg a;
    int rc;
    sp_exec_data_init(&d);
    rc = experiment_data(e, o, &d, err);
    if (rc == AA_OK)
        rc = check_finite(&d, err);
    if (rc == AA_OK && !(o && o->no_document) && !aa_space_add_compact(e, o))
        rc = sp_doc_encode(e, &d.document, &d.document_size, err);
    if (rc == AA_OK) {
        a.d = &d;
        a.eid = 0;
        rc = sp_write_tx(s, add_tx, &a, err);
        if (rc == AA_OK && eid)
            *eid = a.eid;
    }
    sp_exec_data_free(&d);
    return rc;
}
