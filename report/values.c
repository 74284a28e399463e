/*
 * report/values.c -- maps every calling-context node of every process onto
 * the analysis' region tree (by the path of static region ids) and sums the
 * node metrics per process and region: the main process metric (CPU time
 * outside MPI, or wall time, as the analysis used) and inclusive wall time.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct child_key {
    long parent;
    uint32_t id;
    size_t idx;
} child_key;

static int key_cmp(const void *pa, const void *pb)
{
    const child_key *a = pa, *b = pb;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return 0;
}

static double val(const aa_experiment *e, const aa_thread *t, size_t node, int m)
{
    if (m < 0)
        return NAN;
    return aa_node_values(e, t, node)[m];
}

static int rank_excluded(const aa_analysis *a, int rank)
{
    size_t i;
    for (i = 0; i < a->nexcluded_ranks; i++)
        if (a->excluded_ranks[i] == rank)
            return 1;
    return 0;
}

/* Inclusive by region (R) to self values, in place (preorder: a child's
 * index is above its parent's). */
static void self_of(const aa_analysis *a, double *v, size_t R)
{
    size_t i;
    for (i = 1; i < R; i++)
        if (a->regions[i].parent >= 0)
            v[a->regions[i].parent] -= v[i];
}

/* Self values by region (R) added to a process's main values (m) summed
 * over each region's subtree, bottom-up (v overwritten). */
static void add_over_subtrees(const aa_analysis *a, double *v, double *m, size_t R)
{
    size_t i;
    for (i = R; i-- > 1;)
        if (a->regions[i].parent >= 0)
            v[a->regions[i].parent] += v[i];
    for (i = 0; i < R; i++)
        if (!isnan(m[i]))
            m[i] += v[i];
}

/* The analysis's io_work (analyze/metrics.c add_io_work): each process's
 * I/O calls in a region's own code (calls: inclusive, by process and
 * region, overwritten) at the region's mean cost a call, summed over the
 * subtree, added to its main values. */
static void add_io_calls(const aa_analysis *a, rp_values *out, double *calls)
{
    size_t p, i, R = out->nreg;
    for (p = 0; p < out->nproc; p++) {
        double *c = calls + p * R;
        self_of(a, c, R);
        for (i = 0; i < R; i++)
            c[i] = (c[i] > 0 ? c[i] : 0) * a->io_call_cost[i];
        add_over_subtrees(a, c, out->main + p * R, R);
    }
}

/* The factor the analysis multiplied the process's CPU time by (its speed
 * taken out: speed_normalize), 1 when none or not analysed. */
static double speed_factor_of(const aa_analysis *a, int rank)
{
    size_t i;
    for (i = 0; a->speed_factor && i < a->nprocesses; i++)
        if (a->ranks[i] == rank)
            return a->speed_factor[i];
    return 1;
}

/* The analysis's blocked time (analyze/metrics.c add_blocked, profile's
 * aa_blocked_row) added to the main values: six (nproc x R) inclusive
 * sums of wall, MPI wall, I/O time, CPU, MPI CPU, I/O CPU (overwritten);
 * b, pre: R + 1 scratch. */
static void add_blocked(const aa_analysis *a, const aa_experiment *e, rp_values *out,
                        double *const six[6], double *b)
{
    size_t p, i, k, R = out->nreg;
    for (p = 0; p < out->nproc; p++) {
        double delay = aa_process_run_delay(&e->processes[p]), cpu = 0, *m = out->main + p * R;
        for (k = 0; k < 6; k++)
            self_of(a, six[k] + p * R, R);
        for (i = 0; i < R; i++)
            cpu += six[3][p * R + i];
        if (!(delay >= 0) || !(cpu > 0))
            continue;
        aa_blocked_row(six[0] + p * R, six[1] + p * R, six[2] + p * R, six[3] + p * R,
                       six[4] + p * R, six[5] + p * R, R, delay, b);
        for (i = 0; i < R; i++)
            if (aa_region_is_mpi_setup(a->regions[i].info))
                b[i] = 0;
        add_over_subtrees(a, b, m, R);
    }
}

int rp_values_compute(const aa_analysis *a, const aa_experiment *e, rp_values *out,
                      aa_err *err)
{
    size_t i, p, t, n, R = a->nregions;
    child_key *keys = NULL;
    long *map = NULL;
    size_t maxnodes = 0;
    int m_wall, m_cpu, m_mpi_cpu, m_mpi_wall, m_io_cpu, m_io_calls, use_wall, m6[6];
    double *calls = NULL, *six[6] = {NULL}, *b = NULL;
    static const char *const six_names[6] = {"wall", "mpi_wall", "io_time", "cpu", "mpi_cpu",
                                             "io_cpu"};
    size_t k6;

    memset(out, 0, sizeof *out);
    out->nreg = R;
    out->nproc = e->nprocesses;
    m_wall = aa_experiment_metric_index(e, "wall");
    m_cpu = aa_experiment_metric_index(e, "cpu");
    m_mpi_cpu = aa_experiment_metric_index(e, "mpi_cpu");
    m_mpi_wall = aa_experiment_metric_index(e, "mpi_wall");
    /* the analysis's process metric: CPU time inside I/O calls left out too */
    m_io_cpu = a->proc_metric_io ? aa_experiment_metric_index(e, "io_cpu") : -1;
    use_wall = a->proc_metric && strcmp(a->proc_metric, "wall") == 0;
    /* ... and each process's I/O calls at their region's mean cost put back */
    m_io_calls = a->io_call_cost ? aa_experiment_metric_index(e, "io_calls") : -1;
    out->main_label = use_wall ? "wall time"
                      : m_io_calls >= 0 && a->proc_metric_blocked
                          ? "CPU time outside MPI and I/O calls, the I/O calls at their mean "
                            "cost, time blocked outside them"
                      : m_io_calls >= 0 ? "CPU time outside MPI and I/O calls, the I/O calls "
                                          "at their mean cost"
                      : a->proc_metric_blocked ? "CPU time outside MPI and I/O calls, time "
                                                 "blocked outside them"
                      : m_io_cpu >= 0   ? "CPU time outside MPI and I/O calls"
                                        : "CPU time outside MPI";

    keys = calloc(R ? R : 1, sizeof *keys);
    out->ranks = calloc(out->nproc ? out->nproc : 1, sizeof *out->ranks);
    out->excluded = calloc(out->nproc ? out->nproc : 1, sizeof *out->excluded);
    out->main = malloc((out->nproc * R + 1) * sizeof(double));
    out->wall = malloc((out->nproc * R + 1) * sizeof(double));
    out->partial = calloc(R + 1, 1);
    if (m_io_calls >= 0 && !(calls = calloc(out->nproc * R + 1, sizeof *calls)))
        goto nomem;
    /* ... and the blocked time outside the calls (add_blocked) */
    for (k6 = 0; k6 < 6; k6++) {
        m6[k6] = aa_experiment_metric_index(e, six_names[k6]);
        if (a->proc_metric_blocked && !use_wall &&
            !(six[k6] = calloc(out->nproc * R + 1, sizeof *six[k6])))
            goto nomem;
    }
    if (a->proc_metric_blocked && !use_wall && !(b = calloc(R + 1, sizeof *b)))
        goto nomem;
    if (!keys || !out->ranks || !out->excluded || !out->main || !out->wall || !out->partial)
        goto nomem;
    for (i = 0; i < out->nproc * R; i++)
        out->main[i] = out->wall[i] = NAN;
    for (i = 0; i < R; i++) {
        keys[i].parent = a->regions[i].parent;
        keys[i].id = a->regions[i].id;
        keys[i].idx = i;
    }
    qsort(keys, R, sizeof *keys, key_cmp);

    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        double speed = speed_factor_of(a, pr->rank);
        out->ranks[p] = pr->rank;
        out->excluded[p] = rank_excluded(a, pr->rank);
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            if (th->nnodes > maxnodes) {
                long *nm = realloc(map, th->nnodes * sizeof *map);
                if (!nm)
                    goto nomem;
                map = nm;
                maxnodes = th->nnodes;
            }
            for (n = 0; n < th->nnodes; n++) {
                const aa_node *nd = &th->nodes[n];
                child_key k, *hit;
                double w, c, mc, mw, mainv, *cell;
                long pidx = -1;
                map[n] = -2;
                if (nd->parent >= 0) {
                    if ((size_t)nd->parent >= n || map[nd->parent] < 0)
                        continue; /* parent not in the analysed tree */
                    pidx = map[nd->parent];
                }
                k.parent = pidx;
                k.id = nd->region;
                hit = bsearch(&k, keys, R, sizeof *keys, key_cmp);
                if (!hit)
                    continue;
                map[n] = (long)hit->idx;
                if (nd->flags & AA_NODE_THROTTLED)
                    out->partial[hit->idx] = 1;
                w = val(e, th, n, m_wall);
                c = val(e, th, n, m_cpu);
                mc = val(e, th, n, m_mpi_cpu);
                mw = val(e, th, n, m_mpi_wall);
                if (use_wall)
                    mainv = w;
                else if (!isnan(c)) {
                    double ic = m_io_cpu >= 0 ? val(e, th, n, m_io_cpu) : NAN;
                    mainv = c - (isnan(mc) ? 0 : mc) - (isnan(ic) ? 0 : ic);
                    if (mainv > 0) /* the process's speed taken out, as the analysis did */
                        mainv *= speed;
                }
                else if (!isnan(w))
                    mainv = w - (isnan(mw) ? 0 : mw);
                else
                    mainv = NAN;
                if (!isnan(mainv) && mainv < 0)
                    mainv = 0;
                cell = &out->main[p * R + hit->idx];
                if (!isnan(mainv))
                    *cell = isnan(*cell) ? mainv : *cell + mainv;
                cell = &out->wall[p * R + hit->idx];
                if (!isnan(w))
                    *cell = isnan(*cell) ? w : (w > *cell ? w : *cell);
                if (calls && !use_wall && !isnan(val(e, th, n, m_io_calls)))
                    calls[p * R + hit->idx] += val(e, th, n, m_io_calls);
                for (k6 = 0; b && k6 < 6; k6++)
                    if (m6[k6] >= 0 && !isnan(val(e, th, n, m6[k6])))
                        six[k6][p * R + hit->idx] += val(e, th, n, m6[k6]);
            }
        }
    }
    if (calls)
        add_io_calls(a, out, calls);
    if (b)
        add_blocked(a, e, out, six, b);
    free(calls);
    for (k6 = 0; k6 < 6; k6++)
        free(six[k6]);
    free(b);
    free(keys);
    free(map);
    return AA_OK;
nomem:
    free(calls);
    for (k6 = 0; k6 < 6; k6++)
        free(six[k6]);
    free(b);
    free(keys);
    free(map);
    rp_values_free(out);
    return aa_err_set(err, AA_EENV, "report: out of memory");
}

void rp_values_free(rp_values *v)
{
    free(v->ranks);
    free(v->excluded);
    free(v->main);
    free(v->wall);
    free(v->partial);
    memset(v, 0, sizeof *v);
}

char *rp_region_label(const aa_analysis *a, size_t idx)
{
    aa_buf b;
    const aa_region *r = a->regions[idx].info;
    aa_buf_init(&b);
    aa_buf_printf(&b, "#%zu ", a->regions[idx].index);
    if (!r) {
        aa_buf_printf(&b, "region %u", a->regions[idx].id);
    } else {
        aa_buf_puts(&b, r->name && r->name[0] ? r->name : "?");
        if (r->file && r->file[0]) {
            aa_buf_printf(&b, " (%s:%d", r->file, r->line);
            if (r->function && r->function[0] && (!r->name || strcmp(r->function, r->name)))
                aa_buf_printf(&b, " %s", r->function);
            aa_buf_putc(&b, ')');
        }
        aa_buf label;
        aa_buf_init(&label);
        if (aa_analysis_caller_label(a, idx, &label) && !label.failed)
            aa_buf_printf(&b, " called from %s", label.data);
        aa_buf_free(&label);
    }
    return aa_buf_detach(&b);
}

char *rp_region_key(const aa_analysis *a, size_t idx)
{
    aa_buf b;
    uint32_t ids[256];
    int n = 0;
    long i = (long)idx;
    aa_buf_init(&b);
    while (i >= 0 && (size_t)i < a->nregions && n < 256) {
        ids[n++] = a->regions[i].id;
        i = a->regions[i].parent;
    }
    while (n-- > 0)
        aa_buf_printf(&b, "%u%s", ids[n], n ? "/" : "");
    return aa_buf_detach(&b);
}
