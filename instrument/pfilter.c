/*
 * instrument/pfilter.c -- the profile-guided filter (`autoanalyzer filter`,
 * `instrument --filter-from`): reads a measured experiment and lists the
 * functions whose probes cost more than they tell -- visited at least
 * min_visits times (summed over every process and thread) with a mean
 * exclusive wall time per visit under max_ns_per_visit, or throttled by the
 * runtime for the same reason --, with the expected saving (timed visits x
 * the estimated cost of one probe pair, plus the visits counted untimed
 * after throttling x AA_PFILTER_UNTIMED_NS), and formats them as a Score-P filter
 * file that filter.c reads back.  `main` is never listed.
 *
 * On a loaded machine the wall time of a tiny region is inflated by the
 * time slices other processes take while it is open (one 20-ms preemption
 * adds 200 ns to each of 100,000 visits).  A process whose wall time is
 * mostly not explained by its CPU time and its MPI and I/O waits
 * (AA_PFILTER_PREEMPTED) was preempted: its regions are then judged by
 * that busy time (cpu + MPI wait + I/O time) where it is below the wall
 * time, so that a region waiting in MPI or I/O still counts its waits.
 *
 * Exclusive: a function is judged by its own time per visit, not that of
 * the measured regions it calls (a message layer's send, tiny itself, now
 * and then running a handler): left out, its visits go to its caller and
 * its children stay measured, nested in the caller.  Its MPI and I/O
 * calls, which are not regions, are its own time, so a function that
 * waits is kept.  A node's children cost it, per visit, their mean time
 * per timed visit times their visits per visit of the node (throttled
 * nodes time only their first visits).
 */
#include "instrument/instr_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct acc {
    double visits, untimed, wall; /* wall: exclusive, over the timed visits */
    int throttled;
} acc;

/* Metric indices (-1: not in the experiment). */
typedef struct mix {
    int visits, untimed, wall, cpu, mpi_wall, mpi_cpu, io_time;
} mix;

/* Busy time of a node (aa_busy_time); NAN when the experiment lacks CPU
 * time. */
static double busy_time(const mix *m, const double *v)
{
    return aa_busy_time(m->cpu < 0 ? NAN : v[m->cpu], m->mpi_wall < 0 ? NAN : v[m->mpi_wall],
                        m->mpi_cpu < 0 ? NAN : v[m->mpi_cpu], m->io_time < 0 ? NAN : v[m->io_time]);
}

static int entry_cmp(const void *a, const void *b)
{
    const aa_pfilter_entry *x = a, *y = b;
    if (x->saving_s != y->saving_s)
        return x->saving_s > y->saving_s ? -1 : 1;
    return strcmp(x->function, y->function);
}

/* Share of process pr's wall time (its thread 0's root) that its busy
 * time or its run delay say it was not run; 0 when unknown. */
static double unexplained(const aa_experiment *e, const aa_process *pr, const mix *m)
{
    for (size_t t = 0; t < pr->nthreads; t++) {
        const aa_thread *th = &pr->threads[t];
        for (size_t i = 0; th->id == 0 && i < th->nnodes; i++) {
            const double *v = aa_node_values(e, th, i);
            if (th->nodes[i].parent >= 0)
                continue;
            return aa_preempted_share(v[m->wall], busy_time(m, v), aa_process_run_delay(pr));
        }
    }
    return 0;
}

/* Time of node i: the wall time, or the busy time where it is lower in a
 * preempted process; NAN when unknown. */
static double node_time(const aa_experiment *e, const aa_thread *th, size_t i, const mix *m,
                        int preempted)
{
    const double *v = aa_node_values(e, th, i);
    double w = v[m->wall], b;
    if (preempted && !isnan(b = busy_time(m, v)) && (isnan(w) || b < w))
        w = b;
    return w;
}

/* Visits of node i: timed (*t) and all. */
static double node_visits(const aa_experiment *e, const aa_thread *th, size_t i, const mix *m,
                          double *t)
{
    const double *v = aa_node_values(e, th, i);
    double u = m->untimed >= 0 && !isnan(v[m->untimed]) ? v[m->untimed] : 0;
    *t = isnan(v[m->visits]) ? 0 : v[m->visits];
    return *t + u;
}

/* Exclusive time per timed visit of every node of th into ex (NAN when
 * unknown): its own mean time per visit less, for each child, the child's
 * mean time per timed visit x its visits per visit of the node. */
static void exclusive_per_visit(const aa_experiment *e, const aa_thread *th, const mix *m,
                                int preempted, double *ex)
{
    for (size_t i = 0; i < th->nnodes; i++) {
        double t, w = node_time(e, th, i, m, preempted);
        node_visits(e, th, i, m, &t);
        ex[i] = t > 0 && !isnan(w) ? w / t : NAN;
    }
    for (size_t i = th->nnodes; i-- > 0;) {
        long p = (long)th->nodes[i].parent;
        double t, all = node_visits(e, th, i, m, &t), pt, pall, w = node_time(e, th, i, m, preempted);
        if (p < 0 || (size_t)p >= th->nnodes || t <= 0 || isnan(w))
            continue;
        pall = node_visits(e, th, (size_t)p, m, &pt);
        if (pall > 0 && !isnan(ex[p]))
            ex[p] -= w / t * (all / pall);
    }
    for (size_t i = 0; i < th->nnodes; i++)
        if (ex[i] < 0)
            ex[i] = 0;
}

/* Sums visits and exclusive time per region over every node. */
static int accumulate(const aa_experiment *e, const mix *m, acc *a, double *run_s,
                      double *lost)
{
    *run_s = 0;
    *lost = 0;
    for (size_t p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        double root = 0, u = unexplained(e, pr, m);
        int preempted = u > AA_PFILTER_PREEMPTED;
        if (u > *lost)
            *lost = u;
        for (size_t t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            double *ex = malloc((th->nnodes ? th->nnodes : 1) * sizeof *ex);
            if (!ex)
                return -1;
            exclusive_per_visit(e, th, m, preempted, ex);
            for (size_t i = 0; i < th->nnodes; i++) {
                const double *v = aa_node_values(e, th, i);
                const aa_region *r = aa_experiment_region(e, th->nodes[i].region);
                double w = v[m->wall];
                size_t k;
                if (th->nodes[i].parent < 0 && th->id == 0 && !isnan(w))
                    root += w;
                if (!r)
                    continue;
                k = (size_t)(r - e->regions);
                if (!isnan(v[m->visits]))
                    a[k].visits += v[m->visits];
                if (m->untimed >= 0 && !isnan(v[m->untimed]))
                    a[k].untimed += v[m->untimed];
                if (!isnan(ex[i]) && !isnan(v[m->visits]))
                    a[k].wall += ex[i] * v[m->visits];
                if ((th->nodes[i].flags & AA_NODE_THROTTLED) && m->untimed < 0)
                    a[k].throttled = 1; /* its later visits were not counted */
            }
            free(ex);
        }
        if (root > *run_s)
            *run_s = root;
    }
    return 0;
}

int aa_pfilter_compute(const char *exp, const aa_pfilter_opts *o, aa_pfilter *out,
                       aa_err *err)
{
    aa_experiment *e = NULL;
    aa_buf path;
    struct stat st;
    acc *a = NULL;
    int rc;
    mix m;
    memset(out, 0, sizeof *out);
    aa_buf_init(&path);
    if (stat(exp, &st) == 0 && S_ISDIR(st.st_mode)) {
        aa_buf_printf(&path, "%s/experiment.xml", exp);
        if (!path.failed && access(path.data, R_OK) != 0) { /* the binary form */
            aa_buf_reset(&path);
            aa_buf_printf(&path, "%s/experiment.aab", exp);
        }
    } else
        aa_buf_puts(&path, exp);
    if (path.failed)
        return aa_err_set(err, AA_EENV, "out of memory");
    if (access(path.data, R_OK) != 0) {
        rc = aa_err_set(err, AA_EINPUT, "%s:1: cannot read the experiment", path.data);
        goto out;
    }
    if ((rc = aa_experiment_read(path.data, &e, err)))
        goto out;
    m.visits = aa_experiment_metric_index(e, "visits");
    m.untimed = aa_experiment_metric_index(e, "untimed_visits");
    m.wall = aa_experiment_metric_index(e, "wall");
    m.cpu = aa_experiment_metric_index(e, "cpu");
    m.mpi_wall = aa_experiment_metric_index(e, "mpi_wall");
    m.mpi_cpu = aa_experiment_metric_index(e, "mpi_cpu");
    m.io_time = aa_experiment_metric_index(e, "io_time");
    if (m.visits < 0 || m.wall < 0) {
        rc = aa_err_set(err, AA_EINPUT, "%s:1: the experiment has no %s metric", path.data,
                        m.visits < 0 ? "visits" : "wall");
        goto out;
    }
    if (!(a = calloc(e->nregions ? e->nregions : 1, sizeof *a))) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    if (accumulate(e, &m, a, &out->run_s, &out->lost)) {
        rc = aa_err_set(err, AA_EENV, "out of memory");
        goto out;
    }
    out->nprocs = e->nprocesses;
    for (size_t k = 0; k < e->nregions; k++) {
        const aa_region *r = &e->regions[k];
        double ns = a[k].visits > 0 ? a[k].wall / a[k].visits * 1e9 : INFINITY;
        aa_pfilter_entry *v;
        if (r->kind != AA_KIND_FUNCTION || !r->name || !strcmp(r->name, "main") ||
            ns >= o->max_ns_per_visit ||
            (a[k].visits + a[k].untimed < o->min_visits && !a[k].throttled))
            continue;
        /* one entry per function name (static functions of two files share it) */
        for (v = out->v; v < out->v + out->n && strcmp(v->function, r->name); v++)
            ;
        if (v == out->v + out->n) {
            aa_pfilter_entry *nv = realloc(out->v, (out->n + 1) * sizeof *nv);
            if (!nv) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
            out->v = nv;
            v = &nv[out->n];
            memset(v, 0, sizeof *v);
            v->function = aa_strdup(r->name);
            v->file = aa_strdup(r->file ? r->file : "");
            out->n++;
            if (!v->function || !v->file) {
                rc = aa_err_set(err, AA_EENV, "out of memory");
                goto out;
            }
        }
        /* the time per visit is that of the timed visits */
        v->ns_per_visit = ((v->visits - v->untimed) * v->ns_per_visit + a[k].wall * 1e9) /
                          (v->visits - v->untimed + a[k].visits);
        v->visits += a[k].visits + a[k].untimed;
        v->untimed += a[k].untimed;
        v->throttled |= a[k].throttled;
        v->saving_s = ((v->visits - v->untimed) * o->probe_ns + v->untimed * AA_PFILTER_UNTIMED_NS) *
                      1e-9;
    }
    for (size_t k = 0; k < out->n; k++)
        out->saving_s += out->v[k].saving_s;
    if (out->nprocs > 1)
        out->saving_s /= (double)out->nprocs;
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, entry_cmp);
out:
    if (rc)
        aa_pfilter_free(out);
    free(a);
    aa_experiment_free(e);
    aa_buf_free(&path);
    return rc;
}

void aa_pfilter_format(const aa_pfilter *f, const aa_pfilter_opts *o, aa_buf *b)
{
    aa_buf_printf(b, "# autoanalyzer filter: %zu function%s visited >= %.0f times at < %.0f ns "
                     "per visit\n", f->n, f->n == 1 ? "" : "s", o->min_visits,
                  o->max_ns_per_visit);
    aa_buf_printf(b, "# probe cost estimated at %.0f ns per visit; expected saving %.3g s per "
                     "process", o->probe_ns, f->saving_s);
    if (f->run_s > 0)
        aa_buf_printf(b, " (%.1f%% of the run)", 100.0 * f->saving_s / f->run_s);
    if (f->lost > AA_PFILTER_PREEMPTED)
        aa_buf_printf(b, "\n# preempted run: %.0f%% of a process's wall time was neither CPU time "
                         "nor MPI or I/O wait; time per visit from busy time",
                      100.0 * f->lost);
    aa_buf_puts(b, "\nSCOREP_REGION_NAMES_BEGIN\n");
    for (size_t k = 0; k < f->n; k++) {
        const aa_pfilter_entry *v = &f->v[k];
        aa_buf_printf(b, "  EXCLUDE %s # %s%.0f visits", v->function, v->throttled ? ">= " : "",
                      v->visits);
        if (v->untimed > 0)
            aa_buf_printf(b, " (%.0f untimed)", v->untimed);
        aa_buf_printf(b, ", %.1f ns per visit, saves %.3g s\n", v->ns_per_visit, v->saving_s);
    }
    aa_buf_puts(b, "SCOREP_REGION_NAMES_END\n");
}

void aa_pfilter_free(aa_pfilter *f)
{
    for (size_t k = 0; k < f->n; k++) {
        free(f->v[k].function);
        free(f->v[k].file);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}
