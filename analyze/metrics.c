/*
 * analyze/metrics.c -- the metric values the analysis works on: metrics
 * gathered per analysed process and region (P x R), which process ran which
 * region, attribute values, self values (a region's value minus its
 * children's), self wall time, the regions that stand for the whole program
 * and the whole-program wall time (WPWT) without its MPI set-up, and the
 * main metric the processes are compared on.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median whole-program time of the analysed processes (0 if none). */
/* The median of the positive finite values v[0], v[stride], ... (P of
 * them); 0 when there is none. */
static double median_positive(const an_ctx *c, const double *v, size_t stride)
{
    double *w = malloc((c->P ? c->P : 1) * sizeof *w), m = 0;
    size_t q, n = 0;
    if (!w)
        return 0;
    for (q = 0; q < c->P; q++)
        if (v[q * stride] > 0 && isfinite(v[q * stride]))
            w[n++] = v[q * stride];
    if (n) {
        qsort(w, n, sizeof *w, cmp_dbl);
        m = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    }
    free(w);
    return m;
}

double an_median_wpwt(const an_ctx *c)
{
    return median_positive(c, c->wpwt, 1);
}

double an_median_program_metric(const an_ctx *c)
{
    return median_positive(c, c->MM, c->R);
}

/* ---- metric gathering ------------------------------------------------------ */
/* Sums metric mi over threads into M (P x R, region-major per process); nodes
 * a process did not run stay 0; a node whose values are all NaN is NaN.
 * Returns the number of finite values seen. */
size_t an_gather_row(an_ctx *c, int mi, size_t q, double *row, unsigned char *anyfin)
{
    const aa_experiment *e = c->e;
    size_t R = c->R, t, i, finite = 0, p = c->proc[q], off = 0;
    const aa_process *pr = &e->processes[p];
    memset(row, 0, R * sizeof *row);
    if (mi < 0)
        return 0;
    memset(anyfin, 0, R);
    for (t = 0; t < pr->nthreads; t++) {
        const aa_thread *th = &pr->threads[t];
        const double *v = th->values + mi;
        for (i = 0; i < th->nnodes; i++, v += e->nmetrics) {
            long ti = c->map[p][off + i], r = c->t2r[ti];
            if (an_node_folded(th, c->map[p] + off, i))
                continue;
            if (r < 0) {
                /* excluded code does not count in its ancestors either */
                if (c->exroot && c->exroot[ti] && !isnan(*v)) {
                    long up;
                    for (up = c->tree.par[ti]; up >= 0; up = c->tree.par[up])
                        if (c->t2r[up] >= 0)
                            row[c->t2r[up]] -= *v;
                }
                continue;
            }
            if (!isnan(*v)) {
                row[r] += *v;
                anyfin[r] = 1;
                finite++;
            }
        }
        off += th->nnodes;
    }
    for (i = 0; i < R; i++)
        if (c->ran[q * R + i] && !anyfin[i])
            row[i] = NAN;
    return finite;
}

size_t an_gather(an_ctx *c, int mi, double *M)
{
    size_t P = c->P, R = c->R, q, finite = 0;
    unsigned char *anyfin;
    if (mi < 0) {
        memset(M, 0, P * R * sizeof *M);
        return 0;
    }
    anyfin = calloc(R ? R : 1, 1);
    if (!anyfin) {
        memset(M, 0, P * R * sizeof *M);
        return 0;
    }
    for (q = 0; q < P; q++)
        finite += an_gather_row(c, mi, q, M + q * R, anyfin);
    free(anyfin);
    return finite;
}

void an_gather2(an_ctx *c, int m1, double *M1, int m2, double *M2, size_t *f1, size_t *f2)
{
    size_t P = c->P, R = c->R, q;
    unsigned char *anyfin = calloc(R ? R : 1, 1);
    *f1 = *f2 = 0;
    if (!anyfin || m1 < 0 || m2 < 0) {
        free(anyfin);
        *f1 = an_gather(c, m1, M1);
        *f2 = an_gather(c, m2, M2);
        return;
    }
    /* the second walk of a process finds its values in the cache */
    for (q = 0; q < P; q++) {
        *f1 += an_gather_row(c, m1, q, M1 + q * R, anyfin);
        *f2 += an_gather_row(c, m2, q, M2 + q * R, anyfin);
    }
    free(anyfin);
}

/* A metric is usable when it is in the experiment, at least one analysed
 * process measured it, and some value is finite. */
int an_metric_usable(an_ctx *c, const char *name, int *mi)
{
    size_t q, measured = 0;
    *mi = aa_experiment_metric_index(c->e, name);
    if (*mi < 0)
        return 0;
    for (q = 0; q < c->P; q++)
        if (!aa_process_metric_unavailable(&c->e->processes[c->proc[q]], name))
            measured++;
    return measured > 0;
}

int an_fill_ran(an_ctx *c)
{
    const aa_experiment *e = c->e;
    size_t q, t, i;
    c->ran = calloc((c->P * c->R) + 1, 1);
    if (!c->ran)
        return an_nomem(c);
    for (q = 0; q < c->P; q++) {
        size_t p = c->proc[q], off = 0;
        const aa_process *pr = &e->processes[p];
        for (t = 0; t < pr->nthreads; t++) {
            for (i = 0; i < pr->threads[t].nnodes; i++) {
                long r = c->t2r[c->map[p][off + i]];
                if (r >= 0)
                    c->ran[q * c->R + r] = 1;
            }
            off += pr->threads[t].nnodes;
        }
    }
    for (i = 0; i < c->R; i++) {
        size_t n = 0;
        for (q = 0; q < c->P; q++)
            n += c->ran[q * c->R + i];
        c->a->regions[i].nprocs_run = n;
    }
    return AA_OK;
}

/* The blocked time (add_blocked) of every process by region, inclusive,
 * into M (NaN where a process did not run the region); tmp: R + 1
 * scratch (an_gather_attr's tmp, c->T2: P x R + 1).  0 when it was not
 * derived. */
static int gather_blocked(const an_ctx *c, double *M, double *tmp)
{
    size_t q, r, R = c->R;
    if (!c->blocked)
        return 0;
    for (q = 0; q < c->P; q++) {
        double *row = M + q * R;
        memset(row, 0, R * sizeof *row);
        an_add_over_subtrees(c->blocked + q * R, NULL, c->send, c->ran + q * R, R, tmp, row);
        for (r = 0; r < R; r++)
            if (!c->ran[q * R + r])
                row[r] = NAN;
    }
    return 1;
}

/* Attribute values (P x R) into M; returns 1 when available. */
int an_gather_attr(an_ctx *c, const an_attr_def *d, double *M, double *tmp)
{
    int m1, m2 = -1;
    size_t i, n = c->P * c->R, f1, f2 = 1;
    if (d->kind == AN_BLOCKED)
        return gather_blocked(c, M, tmp);
    if (!an_metric_usable(c, d->m1, &m1))
        return 0;
    if (d->m2 && !an_metric_usable(c, d->m2, &m2))
        return 0;
    if (d->m2)
        an_gather2(c, m1, M, m2, tmp, &f1, &f2);
    else
        f1 = an_gather(c, m1, M);
    if (!f1 || !f2)
        return 0;
    for (i = 0; i < n; i++) {
        double v = M[i];
        if (d->kind == AN_SUM) {
            double w = tmp[i];
            v = isnan(v) ? w : isnan(w) ? v : v + w;
        } else if (d->kind == AN_RATE) {
            double w = tmp[i];
            v = (isnan(v) || isnan(w)) ? NAN : w > 0 ? v / w : 0;
        }
        M[i] = v;
    }
    return 1;
}

/* ---- the whole-program chain ------------------------------------------------------ */
/* Regions that stand for the whole program: the root, and, repeatedly,
 * children of chain members whose mean share of WPWT is at least 95% (a
 * child of the root, or a loop or block of a chain function: never a called
 * function below the entry function)
 * (typically main and its iteration loop).  MPI time spent directly in the
 * root or in a chain *function* (MPI_Init, MPI_Finalize, top-level
 * broadcasts; it is the function's exclusive mpi_wall) is setup, not work:
 * it is taken out of WPWT, and the chain is recomputed until it is stable.
 * Chain regions are classified but never CCRs (see the disparity part). */
/* The MPI time (sub, P) of every process spent directly in the root or in
 * a chain function: its exclusive mpi_wall (T: mpi_wall, P x R). */
static void chain_mpi_time(an_ctx *c, const double *T, double *sub)
{
    const aa_analysis *a = c->a;
    size_t P = c->P, R = c->R, q, r, i;
    memset(sub, 0, P * sizeof *sub);
    for (r = 0; r < R; r++) {
        const aa_region *ri = a->regions[r].info;
        if (!c->whole[r] || (r > 0 && (!ri || ri->kind != AA_KIND_FUNCTION)))
            continue;
        for (q = 0; q < P; q++) {
            double ex = T[q * R + r];
            if (isnan(ex))
                continue;
            for (i = c->cstart[r]; i < c->cstart[r + 1]; i++) {
                double v = T[q * R + c->clist[i]];
                ex -= isnan(v) ? 0 : v;
            }
            if (ex > 0)
                sub[q] += ex;
        }
    }
}

/* Adds to the chain the children of chain members holding at least 95% of
 * WPWT on average; 1 when one was added. */
static int chain_grow(an_ctx *c, const double *W)
{
    const aa_analysis *a = c->a;
    size_t P = c->P, R = c->R, q, r;
    int changed = 0;
    for (r = 1; r < R; r++) {
        double fs = 0;
        const aa_region *ri = a->regions[r].info;
        if (c->whole[r] || !c->whole[a->regions[r].parent])
            continue;
        /* the chain never follows a call below the entry function: a
         * function called from main's loop that takes 98% of the work
         * is the hotspot, not the whole program */
        if (a->regions[r].parent != 0 && (!ri || ri->kind == AA_KIND_FUNCTION))
            continue;
        for (q = 0; q < P; q++) {
            double w = W[q * R + r];
            fs += (c->wpwt[q] > 0 && !isnan(w)) ? w / c->wpwt[q] : 0;
        }
        if (P && fs / (double)P >= 0.95) {
            c->whole[r] = 1;
            changed = 1;
        }
    }
    return changed;
}

/* The MPI wall time of each of n processes outside the set-up MPI (sub,
 * chain_mpi_time's): where a process waits for the others (T: mpi_wall,
 * n x R; NAN where its whole program has none).  NULL: out of memory. */
double *an_idle_mpi(const double *T, const double *sub, size_t n, size_t R)
{
    double *m = malloc((n + 1) * sizeof *m);
    size_t q;
    if (!m)
        return NULL;
    for (q = 0; q < n; q++)
        m[q] = isnan(T[q * R]) ? NAN : fmax(0, T[q * R] - sub[q]);
    return m;
}

static int whole_chain(an_ctx *c, const double *W, double *T)
{
    size_t P = c->P, R = c->R, q;
    int mi, have_mpi = an_metric_usable(c, "mpi_wall", &mi) && an_gather(c, mi, T) > 0;
    double *raw = malloc((P + 1) * sizeof *raw), *sub = calloc(P + 1, sizeof *sub);
    int changed = 1;
    size_t nsub = 0;
    c->whole = calloc(R + 1, 1);
    c->dobj = malloc((R + 1) * sizeof *c->dobj);
    if (!raw || !sub || !c->whole || !c->dobj) {
        free(raw);
        free(sub);
        return an_nomem(c);
    }
    memcpy(raw, c->wpwt, P * sizeof *raw);
    c->whole[0] = 1;
    while (changed) {
        /* WPWT = raw - exclusive MPI of the root and chain functions */
        if (have_mpi)
            chain_mpi_time(c, T, sub);
        else
            memset(sub, 0, P * sizeof *sub);
        for (q = 0; q < P; q++) {
            double w = raw[q] - sub[q];
            c->wpwt[q] = w > 0 ? w : raw[q];
        }
        changed = chain_grow(c, W);
    }
    if (have_mpi && !(c->idle_mpi = an_idle_mpi(T, sub, P, R))) {
        free(raw);
        free(sub);
        return an_nomem(c);
    }
    for (q = 0; q < P; q++)
        if (sub[q] > 0 && c->wpwt[q] < raw[q])
            nsub++;
    if (nsub) {
        double ms = 0, mr = 0;
        for (q = 0; q < P; q++) {
            ms += raw[q] - c->wpwt[q];
            mr += raw[q];
        }
        free(raw);
        free(sub);
        return an_note(c, "MPI time outside every region but the whole program (MPI_Init, "
                          "MPI_Finalize, ...) is left out of the whole-program time: %.3g s "
                          "of %.3g s on average",
                       ms / (double)P, mr / (double)P);
    }
    free(raw);
    free(sub);
    return AA_OK;
}

/* ---- the analysis --------------------------------------------------------------- */
/* Self values: each region's value minus its children's (P x R), >= 0. */
void an_self_row(const an_ctx *c, const double *row, double *self)
{
    size_t r, i, R = c->R;
    for (r = 0; r < R; r++) {
        double v = row[r];
        v = isnan(v) ? 0 : v;
        for (i = c->cstart[r]; i < c->cstart[r + 1]; i++) {
            double w = row[c->clist[i]];
            v -= isnan(w) ? 0 : w;
        }
        self[r] = v > 0 ? v : 0;
    }
}

void an_self_values(an_ctx *c, const double *M, double *self)
{
    size_t q, R = c->R;
    for (q = 0; q < c->P; q++)
        an_self_row(c, M + q * R, self + q * R);
}

/* 1 for a region that is MPI set-up wherever it sits: a call-site region
 * of MPI_Init, MPI_Init_thread or MPI_Finalize (refinement makes them) */
int an_is_mpi_setup(const aa_region *ri)
{
    return aa_region_is_mpi_setup(ri);
}

/* Self wall time (P x R) of every region: its wall minus its children's;
 * for the regions that stand for the whole program (c->whole) also minus
 * their own MPI time (MPI_Init, MPI_Finalize), and 0 for MPI set-up call
 * regions.  tmp: P x R scratch. */
int an_self_wall(an_ctx *c, const double *W, double *tmp, double *SW)
{
    size_t q, r, P = c->P, R = c->R;
    int mi, have_mpi = an_metric_usable(c, "mpi_wall", &mi) && an_gather(c, mi, tmp) > 0;
    double *mself = have_mpi ? malloc(P * R * sizeof *mself) : NULL;
    if (have_mpi && !mself)
        return an_nomem(c);
    an_self_values(c, W, SW);
    if (mself)
        an_self_values(c, tmp, mself);
    for (r = 0; r < R; r++) {
        const aa_region *ri = c->a->regions[r].info;
        for (q = 0; q < P; q++) {
            double *v = &SW[q * R + r];
            if (an_is_mpi_setup(ri))
                *v = 0;
            else if (c->whole[r] && mself)
                *v = fmax(0, *v - mself[q * R + r]);
        }
    }
    free(mself);
    return AA_OK;
}

/* Phase: the P x R buffers of the phases and the per-region results. */
int an_metric_buffers(an_ctx *c)
{
    size_t P = c->P, R = c->R;
    aa_analysis *a = c->a;
    c->MM = malloc(P * R * sizeof *c->MM);
    c->W = malloc(P * R * sizeof *c->W);
    c->T1 = malloc(P * R * sizeof *c->T1);
    c->T2 = malloc((P * R + 1) * sizeof *c->T2); /* + 1: gather_blocked's prefix sums */
    c->wpwt = calloc(P, sizeof *c->wpwt);
    a->severity = calloc(R, sizeof *a->severity);
    a->region_value = calloc(R, sizeof *a->region_value);
    if (!c->MM || !c->W || !c->T1 || !c->T2 || !c->wpwt || !a->severity || !a->region_value)
        return an_nomem(c);
    return AA_OK;
}

/* Phase: wall time (W) and the whole-program wall time of every process
 * (WPWT: the root's, or the sum of its children's when the root has none);
 * an input error without wall time. */
int an_wall_wpwt(an_ctx *c)
{
    size_t P = c->P, R = c->R, q, i, zero = 0;
    int m_wall;
    int wall_ok = an_metric_usable(c, "wall", &m_wall) && an_gather(c, m_wall, c->W) > 0;
    if (!wall_ok)
        return aa_err_set(c->err, AA_EINPUT, "experiment has no wall time values (metric "
                                             "'wall'); nothing to analyse");
    for (q = 0; q < P; q++) {
        double w = c->W[q * R];
        if (!c->ran[q * R] || isnan(w)) {
            w = 0;
            for (i = c->cstart[0]; i < c->cstart[1]; i++) {
                double v = c->W[q * R + c->clist[i]];
                w += isnan(v) ? 0 : v;
            }
        }
        c->wpwt[q] = w;
        if (!(w > 0))
            zero++;
    }
    c->run_med = an_median_wpwt(c); /* before whole_chain leaves set-up MPI out */
    if (zero)
        return an_note(c, "zero-length run: whole-program wall time is 0 on %zu "
                          "process%s; their region fractions count as 0",
                       zero, zero == 1 ? "" : "es");
    return AA_OK;
}

/* Phase: the whole-program chain and WPWT without top-level MPI time. */
int an_whole_program(an_ctx *c)
{
    return whole_chain(c, c->W, c->T1);
}

/* Time inside the wrapped I/O calls subtracted from MM: the CPU (wall) time
 * there is the kernel's copying and locking, which depends on what the
 * other processes of the node do as the time inside MPI depends on the
 * partners; an I/O hotspot is a disparity finding, I/O bytes stay exact.
 * Experiments without io_cpu (older runtimes, imports) keep it in. */
static int subtract_io(an_ctx *c, int use_cpu)
{
    size_t i, n = c->P * c->R;
    int mi = -1;
    if (!(c->o->io_out > 0) || !an_metric_usable(c, use_cpu ? "io_cpu" : "io_time", &mi) ||
        an_gather(c, mi, c->T2) <= 0)
        return AA_OK;
    for (i = 0; i < n; i++) {
        double v = c->MM[i] - (isnan(c->T2[i]) ? 0 : c->T2[i]);
        c->MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
    }
    c->a->proc_metric_io = 1;
    return AA_OK;
}

/* The I/O a process does is its own work, not waiting: a rank that writes
 * a checkpoint alone while the others wait for it in MPI is the late one.
 * But the time of each call depends on the node's other processes (the
 * disk, the page cache: subtract_io), so what enters MM is each process's
 * I/O calls in a region's own code at the region's mean cost a call over
 * all processes (sum of io_time / sum of io_calls): processes doing the
 * same I/O get the same time, a process doing more (or the only one doing
 * any) gets its calls' worth.  MM is inclusive: each region's modeled time
 * is the sum over its subtree (preorder, ends c->send).  An experiment
 * without io_calls keeps MM as it is. */
void an_io_work_sums(const double *sio, const double *scall, size_t n, size_t R, double *sums)
{
    size_t q, r;
    for (q = 0; q < n; q++)
        for (r = 0; r < R; r++) {
            sums[r] += sio[q * R + r];
            sums[R + r] += scall[q * R + r];
        }
}

void an_io_work_rates(double *sums, size_t R)
{
    size_t r;
    for (r = 0; r < R; r++)
        sums[r] = sums[R + r] > 0 ? sums[r] / sums[R + r] : 0;
}

void an_add_over_subtrees(const double *self, const double *scale, const size_t *send,
                          const unsigned char *ran, size_t R, double *pre, double *mm)
{
    size_t r;
    pre[0] = 0;
    for (r = 0; r < R; r++)
        pre[r + 1] = pre[r] + self[r] * (scale ? scale[r] : 1);
    for (r = 0; r < R; r++)
        if (ran[r])
            mm[r] += pre[send[r]] - pre[r];
}

static int add_io_work(an_ctx *c)
{
    size_t P = c->P, R = c->R, q;
    int mt = -1, mc = -1, rc = AA_OK;
    double *sio, *scall, *rate, *pre;
    if (!(c->o->io_work > 0) || !c->a->proc_metric_io || !an_metric_usable(c, "io_time", &mt) ||
        !an_metric_usable(c, "io_calls", &mc))
        return AA_OK;
    sio = malloc(P * R * sizeof *sio);
    scall = malloc(P * R * sizeof *scall);
    rate = calloc(2 * R + 1, sizeof *rate);
    pre = malloc((R + 1) * sizeof *pre);
    if (!sio || !scall || !rate || !pre) {
        rc = an_nomem(c);
        goto out;
    }
    an_gather(c, mt, c->T1);
    an_gather(c, mc, c->T2);
    an_self_values(c, c->T1, sio);
    an_self_values(c, c->T2, scall);
    an_io_work_sums(sio, scall, P, R, rate);
    an_io_work_rates(rate, R);
    for (q = 0; q < P; q++)
        an_add_over_subtrees(scall + q * R, rate, c->send, c->ran + q * R, R, pre, c->MM + q * R);
    c->a->io_call_cost = rate; /* its first R entries */
    rate = NULL;
out:
    free(sio);
    free(scall);
    free(rate);
    free(pre);
    return rc;
}

/* Time a process spends off the CPU outside MPI and I/O calls without
 * being preempted -- sleeping, waiting for a lock, a device or a page --
 * is its own time as I/O is: a rank that waits 20 ms for a device every
 * step while the others wait for it in MPI is the late one, and its CPU
 * time does not show it.  What the machine's load takes is not, and per
 * region the two cannot be told apart (preemption is not spread over a
 * process's regions by their CPU time: a set-up loop of the suite lost 48
 * ms of 98 to it on two ranks of four).  Per process they can: the run
 * delay (/proc schedstat: runnable, not running) is the preempted part, so
 * its blocked time is its off-CPU time outside the calls beyond its run
 * delay, shared out over its regions -- the run delay taken where it ran
 * first, by CPU time, then from the smallest off-CPU times (profile's
 * aa_blocked_row) -- and added to MM over each region's subtree.
 * A process without a run delay measured (another OS, an import) gets
 * nothing added; on a dedicated node the run delay is ~0 and blocked time
 * is the off-CPU time outside the calls.  Kept by region (c->blocked) for
 * the hotspots judged on CPU time (disparity.c) and the cause blocked_time
 * (causes.c). */
static int add_blocked(an_ctx *c)
{
    static const char *const names[6] = {"wall", "mpi_wall", "io_time", "cpu", "mpi_cpu",
                                         "io_cpu"};
    size_t P = c->P, R = c->R, q, r, k;
    double *S[6] = {NULL}, *M = NULL, *b = NULL, *pre = NULL;
    int mi[6], rc = AA_OK, any = 0;
    if (!(c->o->blocked_work > 0) || strcmp(c->a->proc_metric, "cpu") != 0)
        return AA_OK;
    for (k = 0; k < 6; k++)
        if (!an_metric_usable(c, names[k], &mi[k]))
            mi[k] = -1;
    if (mi[0] < 0 || mi[1] < 0 || mi[3] < 0) /* without MPI wall time waiting looks blocked */
        return AA_OK;
    M = malloc(P * R * sizeof *M);
    b = malloc((R + 1) * sizeof *b);
    pre = malloc((R + 1) * sizeof *pre);
    c->blocked = calloc(P * R + 1, sizeof *c->blocked);
    for (k = 0; k < 6; k++)
        S[k] = calloc(P * R + 1, sizeof *S[k]);
    if (!M || !b || !pre || !c->blocked || !S[0] || !S[1] || !S[2] || !S[3] || !S[4] ||
        !S[5]) {
        rc = an_nomem(c);
        goto out;
    }
    for (k = 0; k < 6; k++)
        if (mi[k] >= 0) {
            an_gather(c, mi[k], M);
            for (q = 0; q < P * R; q++)
                if (isnan(M[q]))
                    M[q] = 0;
            an_self_values(c, M, S[k]);
        }
    for (q = 0; q < P; q++) {
        double delay = aa_process_run_delay(&c->e->processes[c->proc[q]]);
        double cpu = 0;
        for (r = 0; r < R; r++)
            cpu += S[3][q * R + r];
        if (!(delay >= 0) || !(cpu > 0))
            continue;
        aa_blocked_row(S[0] + q * R, S[1] + q * R, S[2] + q * R, S[3] + q * R, S[4] + q * R,
                       S[5] + q * R, R, delay, b);
        for (r = 0; r < R; r++) /* MPI set-up regions stay out as their MPI time does */
            if (an_is_mpi_setup(c->a->regions[r].info))
                b[r] = 0;
        an_add_over_subtrees(b, NULL, c->send, c->ran + q * R, R, pre, c->MM + q * R);
        memcpy(c->blocked + q * R, b, R * sizeof *b);
        any = 1;
    }
    c->a->proc_metric_blocked = any;
out:
    if (rc || !any) {
        free(c->blocked);
        c->blocked = NULL;
    }
    for (k = 0; k < 6; k++)
        free(S[k]);
    free(M), free(b), free(pre);
    return rc;
}

/* The processes' speed taken out (speed_normalize; speed.c): a process
 * whose CPU runs slower -- a busy virtual CPU's host, a lower clock, a
 * core sharing its units -- is charged more CPU time for the same work in
 * every region, and on the 16-core VM of bench/diagnosis.md processes
 * doing the same work differed by up to 31%: a 1.25x imbalance on two
 * ranks was lost among ranks 10% slower everywhere.  Each process's pace
 * is its median excess over the processes' mean across the regions that
 * could hold a finding by themselves (speed.c an_speed_process); its CPU
 * part of MM (c0: before the I/O calls and blocked time, which its CPU
 * does not pace, were added) is divided by it.  speed_begin measures the
 * paces and keeps c0 and the factors; speed_end keeps MM as it was for
 * the noise model (c->MMraw: how much processes doing the same work
 * differ, speeds and all) and takes the speeds out of MM. */
static int speed_begin(an_ctx *c, double **c0, double **f)
{
    size_t P = c->P, R = c->R, q, k = 0;
    double *self, *sp = NULL, lo = INFINITY, hi = -INFINITY;
    int rc = AA_OK, any = 0;
    *c0 = *f = NULL;
    if (!(c->o->speed_normalize > 0) || P < 2)
        return AA_OK;
    self = malloc(P * R * sizeof *self);
    *f = malloc(P * sizeof **f);
    if (!self || !*f) {
        rc = an_nomem(c);
        goto out;
    }
    an_self_values(c, c->MM, self);
    if ((rc = an_speeds(c, self, c->o->finding_min_share * an_median_program_metric(c), &sp, &k)) ||
        !sp)
        goto out;
    for (q = 0; q < P; q++) {
        (*f)[q] = an_speed_factor(sp[q], k, c->o->speed_max);
        any |= (*f)[q] != 1;
        lo = fmin(lo, 1 / (*f)[q]);
        hi = fmax(hi, 1 / (*f)[q]);
    }
    if (!any)
        goto out;
    if (!(*c0 = malloc(P * R * sizeof **c0))) {
        rc = an_nomem(c);
        goto out;
    }
    memcpy(*c0, c->MM, P * R * sizeof **c0);
    c->a->speed_lo = lo;
    c->a->speed_hi = hi;
out:
    free(self);
    free(sp);
    if (!*c0) {
        free(*f);
        *f = NULL;
    }
    return rc;
}

static int speed_end(an_ctx *c, double *c0, double *f)
{
    size_t n = c->P * c->R;
    int rc = AA_OK;
    if (c0 && !(c->MMraw = malloc(n * sizeof *c->MMraw)))
        rc = an_nomem(c);
    else if (c0) {
        memcpy(c->MMraw, c->MM, n * sizeof *c->MMraw);
        an_speed_apply(c->MM, c0, f, c->P, c->R);
        c->a->speed_normalized = 1;
        c->a->speed_factor = f;
        f = NULL;
        rc = an_speed_normalized_note(c, c->a);
    }
    free(c0);
    free(f);
    return rc;
}

/* The mean of metric `name` of each region over the processes that ran it
 * into *out (left NULL when the experiment does not have it; c->T2 is the
 * scratch). */
static int region_means(an_ctx *c, const char *name, double **out)
{
    size_t q, r, P = c->P, R = c->R;
    int mi = -1;
    if (!an_metric_usable(c, name, &mi) || an_gather(c, mi, c->T2) == 0)
        return AA_OK;
    if (!(*out = calloc(R ? R : 1, sizeof **out)))
        return an_nomem(c);
    for (r = 0; r < R; r++) {
        double sum = 0;
        size_t n = 0;
        for (q = 0; q < P; q++)
            if (c->ran[q * R + r] && isfinite(c->T2[q * R + r])) {
                sum += c->T2[q * R + r];
                n++;
            }
        (*out)[r] = n ? sum / (double)n : 0;
    }
    return AA_OK;
}

/* The mean cpu_fix of each region (c->fixm), and, when the time inside MPI
 * was subtracted (mpi_out), its mean MPI calls (c->callm): the resolution
 * of what is left outside them. */
static int resolution_means(an_ctx *c, int use_cpu, int mpi_out)
{
    int rc = use_cpu ? region_means(c, "cpu_fix", &c->fixm) : AA_OK;
    if (!rc && mpi_out)
        rc = region_means(c, "mpi_calls", &c->callm);
    return rc;
}

/* Phase: the main metric (MM) the processes are compared on: CPU time (or
 * wall time when CPU time is not asked for or not measured) minus the time
 * inside MPI and inside I/O calls, >= 0. */
int an_main_metric(an_ctx *c)
{
    const aa_analyze_options *o = c->o;
    size_t i, n = c->P * c->R;
    int m_cpu, ms = -1, rc;
    int use_cpu = o->proc_metric == AA_PMETRIC_CPU && an_metric_usable(c, "cpu", &m_cpu) &&
                  an_gather(c, m_cpu, c->MM) > 0;
    const char *sub = use_cpu ? "mpi_cpu" : "mpi_wall";
    if (o->proc_metric == AA_PMETRIC_CPU && !use_cpu &&
        (rc = an_note(c, "CPU time unavailable: processes compared on wall time outside MPI")))
        return rc;
    c->a->proc_metric = use_cpu ? "cpu" : "wall";
    if (!use_cpu)
        memcpy(c->MM, c->W, n * sizeof *c->MM);
    if (an_metric_usable(c, sub, &ms) && an_gather(c, ms, c->T1) > 0) {
        for (i = 0; i < n; i++) {
            double v = c->MM[i] - (isnan(c->T1[i]) ? 0 : c->T1[i]);
            c->MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
        }
        double *c0 = NULL, *f = NULL;
        if ((rc = subtract_io(c, use_cpu)) || (use_cpu && (rc = speed_begin(c, &c0, &f))))
            return rc;
        if ((rc = add_io_work(c)) || (rc = add_blocked(c))) {
            free(c0), free(f);
            return rc;
        }
        if ((rc = speed_end(c, c0, f)))
            return rc;
        return resolution_means(c, use_cpu, 1);
    }
    for (i = 0; i < n; i++)
        if (isnan(c->MM[i]))
            c->MM[i] = 0;
    if ((rc = subtract_io(c, use_cpu)) || (rc = add_io_work(c)) ||
        (rc = resolution_means(c, use_cpu, 0)))
        return rc;
    return an_note(c, "%s unavailable: time inside MPI is not subtracted from the "
                      "process metric", sub);
}
