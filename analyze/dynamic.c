/*
 * analyze/dynamic.c -- imbalance that moves between processes from step
 * to step (a "dynamic" imbalance): every process's total work is alike,
 * yet they wait at each step's synchronization for whichever one had the
 * most work in that step.
 *
 * Profiles sum over the run, so the clustering of processes (dissim.c)
 * cannot see it: the totals are equal.  The runtime therefore pairs, at
 * each region's synchronizing MPI call (the first blocking collective,
 * wait or blocking point-to-point function called there; rt_mpi.h
 * aa_mpi_sync_step), one step's work w -- the CPU time outside MPI and I/O
 * calls from one pairing point to the next: a region's first synchronizing call in
 * each of its visits -- with the step's waits t, the wall time of the
 * synchronizing calls in between, and keeps the sums of w, t, w^2, t^2
 * and w*t (metrics sync_*).  In a
 * bulk-synchronous step a process waits for the latest one:
 * t = transfer + (max over processes of w) - w, so within one process, from
 * step to step, the wait falls as its own work rises, with slope -1.  Work
 * that varies alike on every process (every fourth step heavier for all)
 * leaves t unrelated to w (slope 0), and so does the waiting that the
 * preemption of an oversubscribed node causes (CPU time does not grow
 * with it).  A static imbalance has no variation of w within a process.
 *
 * For each region with such pairs, over the processes with at least
 * AN_DYN_MIN_STEPS own pairs (their steps less their own means: the
 * within-process regression), the slope b = S_wt / S_ww and the
 * correlation rho = S_wt / sqrt(S_ww S_tt) give a dynamic imbalance when
 *  1. rho <= -dynamic_corr, significant: atanh(-rho) sqrt(dof - 3) >=
 *     dynamic_z (Fisher's z; dof: the steps less one per process);
 *  2. b <= -dynamic_slope (the wait falls by at least that share of the
 *     work the process lacks);
 *  3. its impact -- the wait per process the variation explains, steps x
 *     min(1, -b) x sd x sqrt(P - 1), at most the wait measured there --
 *     is at least finding_min_share of the median whole-program process
 *     metric (CPU time outside MPI and I/O: the dissimilarity's floor, on
 *     the scale of the work whose spread the cost is -- the run's wall
 *     time, many times it where the processes were preempted, left 12
 *     ranks' 6% moving load of the suite at 0.65%) and at least the
 *     resolution.  sqrt(P - 1) sd is what
 *     the latest of P processes can exceed their mean by in a step
 *     (Samuelson's inequality; exact when one process at a time is heavy);
 *     the slope counts up to 1: a process cannot wait for more work than
 *     it lacks, and a steeper slope is waiting from elsewhere (on a loaded
 *     node a preempted process is late, and the interpolated CPU clock
 *     charges it a little of the preemption as work).  sd is the spread
 *     of the steps' work beyond the machine's noise where processes
 *     shared a CPU (machine_noise; on cores of their own one visit's
 *     spread is the program's, sd = sd(w)): sd(w)^2 less
 *     (dynamic_noise_k x one visit's relative noise x the mean step
 *     work)^2 -- the same work on a CPU shared with other processes takes
 *     more or less CPU time from visit to visit (its caches refilled
 *     after each switch), every process alike, and a rank that happens to
 *     be the latest more often is no load that moves.
 * More than half of the processes must show the pattern in their own steps
 * (a master/worker case's 2 of 5 is no load that moves), and more than
 * half of the steps' latest ones (an_dyn_latest_add: a process that is
 * never the latest shows it from its own jitter).
 * The finding names where the varying work is: below the nearest region
 * around the call site that repeats per step (a loop or user region: not a
 * function or a call-site region such as MPI_Allreduce@61), the region whose visits' CPU time
 * varies most (sum over processes of cpu_sq - cpu^2 / visits, within
 * processes, times its visits a step when more than one: an inner loop
 * entered k times a step spreads the step's variation over k visits) and
 * holds at least a quarter of the steps' work variation, descending while
 * a child holds half of its variation -- leaving out the regions that hold
 * synchronizing calls (their CPU time holds the waits: MPI polls on the
 * CPU); that region's own code when none does.  The serial and the
 * parallel analysis (parallel.c) add each process with an_dynamic_add and
 * decide on the summed values with an_dynamic_findings_from.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(AN_DYN_R_VISITS - AN_DYN_R_KINDS == AN_WAIT_KINDS &&
                   AN_DYN_SUMS - AN_DYN_KINDS == AN_WAIT_KINDS,
               "a row and a sum for each wait kind");

const char *an_dyn_metric(size_t k)
{
    static const char *const sync[AN_DYN_R_KINDS] = {"sync_steps",   "sync_work",
                                                     "sync_wait",    "sync_work_sq",
                                                     "sync_wait_sq", "sync_cross"};
    static const char *const visits[3] = {"visits", "cpu", "cpu_sq"};
    if (k < AN_DYN_R_KINDS)
        return sync[k];
    if (k < AN_DYN_R_VISITS) /* the wait kinds, in an_wait_kind's order */
        return an_wait_metric[k - AN_DYN_R_KINDS];
    return visits[k - AN_DYN_R_VISITS];
}

/* row's value in region r's own code (inclusive less its children) */
static double own_of(const double *row, size_t r, const size_t *cstart, const size_t *clist)
{
    double v;
    size_t i;
    if (!row)
        return 0;
    v = isnan(row[r]) ? 0 : row[r];
    for (i = cstart[r]; i < cstart[r + 1]; i++)
        v -= isnan(row[clist[i]]) ? 0 : row[clist[i]];
    return v;
}

/* One process's steps at region r less their own means: n steps, the sums
 * of work W and wait T, the sums of squares and cross products about the
 * means; 0 when too few steps or not finite. */
typedef struct proc_steps {
    double n, W, T, ww, tt, wt;
} proc_steps;

static int proc_steps_at(const double *const *rows, size_t r, const size_t *cstart,
                         const size_t *clist, proc_steps *p)
{
    p->n = floor(own_of(rows[AN_DYN_R_STEPS], r, cstart, clist) + 0.5);
    if (p->n < AN_DYN_MIN_STEPS)
        return 0;
    p->W = own_of(rows[AN_DYN_R_WORK], r, cstart, clist);
    p->T = own_of(rows[AN_DYN_R_WAIT], r, cstart, clist);
    p->ww = own_of(rows[AN_DYN_R_WORK_SQ], r, cstart, clist) - p->W * p->W / p->n;
    p->tt = own_of(rows[AN_DYN_R_WAIT_SQ], r, cstart, clist) - p->T * p->T / p->n;
    p->wt = own_of(rows[AN_DYN_R_CROSS], r, cstart, clist) - p->W * p->T / p->n;
    return p->ww >= 0 && p->tt >= 0 && isfinite(p->wt);
}

/* The process's own steps show the pattern: the correlation and the slope
 * pass as the pooled ones must. */
static int proc_agrees(const proc_steps *p, const aa_analyze_options *o)
{
    return p->ww > 0 && p->tt > 0 && p->wt < 0 && p->wt / sqrt(p->ww * p->tt) <= -o->dynamic_corr &&
           p->wt / p->ww <= -o->dynamic_slope;
}

void an_dynamic_add(double *s, size_t R, const double *const *rows, const size_t *cstart,
                    const size_t *clist, const aa_analyze_options *o)
{
    size_t r, k;
    for (r = 0; r < R; r++) {
        double *v = s + r * AN_DYN_SUMS;
        proc_steps p;
        const double *rv = rows[AN_DYN_R_VISITS], *rc = rows[AN_DYN_R_CPU];
        const double *rq = rows[AN_DYN_R_CPU_SQ], *rs = rows[AN_DYN_R_STEPS];
        double vis = rv ? rv[r] : 0, cpu = rc ? rc[r] : 0, sq = rq ? rq[r] : 0;
        if (vis >= 2 && isfinite(cpu) && isfinite(sq) && sq - cpu * cpu / vis > 0) {
            v[AN_DYN_VISIT_VAR] += sq - cpu * cpu / vis;
            v[AN_DYN_VISITS] += vis;
        }
        if (rs && rs[r] > 0)
            v[AN_DYN_SYNC_IN] += rs[r];
        if (!proc_steps_at(rows, r, cstart, clist, &p))
            continue;
        v[AN_DYN_STEPS] += p.n;
        v[AN_DYN_SWW] += p.ww;
        v[AN_DYN_STT] += p.tt;
        v[AN_DYN_SWT] += p.wt;
        v[AN_DYN_WAIT] += p.T;
        v[AN_DYN_WORK] += p.W;
        v[AN_DYN_PROCS] += 1;
        if (proc_agrees(&p, o))
            v[AN_DYN_AGREE] += 1;
        for (k = 0; k < AN_WAIT_KINDS; k++)
            v[AN_DYN_KINDS + k] += fmax(0, own_of(rows[AN_DYN_R_KINDS + k], r, cstart, clist));
    }
}

int an_dynamic_judge(const double *v, const aa_analyze_options *o, double mmed, double noise,
                     double moving, double agree, an_dyn_verdict *out)
{
    double procs = v[AN_DYN_PROCS], steps = v[AN_DYN_STEPS], dof = steps - procs;
    double sww = v[AN_DYN_SWW], stt = v[AN_DYN_STT], swt = v[AN_DYN_SWT], wait, sd;
    memset(out, 0, sizeof *out);
    if (procs < 2 || dof <= 3 || !(sww > 0) || !(stt > 0))
        return 0;
    out->procs = procs;
    out->steps = steps / procs;
    out->slope = swt / sww;
    out->corr = swt / sqrt(sww * stt);
    out->sd_work = sqrt(sww / dof);
    out->sd_noise = o->dynamic_noise_k * noise * v[AN_DYN_WORK] / steps;
    sd = out->sd_work > out->sd_noise ? sqrt(sww / dof - out->sd_noise * out->sd_noise) : 0;
    out->z = out->corr < 0 ? atanh(fmin(-out->corr, 1 - 1e-12)) * sqrt(dof - 3) : 0;
    wait = v[AN_DYN_WAIT] / procs;
    out->wait = wait;
    out->moving = moving;
    out->impact = fmin(wait, out->steps * fmin(1, -out->slope) * sd * sqrt(procs - 1) * moving);
    out->agree = fmin(agree >= 0 ? agree : 1, v[AN_DYN_AGREE] / procs);
    return out->corr <= -o->dynamic_corr && out->z >= o->dynamic_z &&
           out->slope <= -o->dynamic_slope && out->agree > AN_DYN_MAJORITY &&
           out->impact >= o->resolution_s && mmed > 0 &&
           out->impact / mmed >= o->finding_min_share;
}

/* ---- whether the latest process changes from step to step ----
 * The variation costs waits only where it changes which process is the
 * latest: with one process far heavier in every step (a static imbalance,
 * found by the clustering) the others' own jitter makes their waits vary
 * with slope -1 too, but no one waits for it (a probe of 300 steps of
 * 0.25 ms, rank 3 twice the work: found as a 1.6-2.6% "dynamic" imbalance
 * in 3 of 4 runs).  The cost of the variation is E[max_p w_p] - max_p
 * E[w_p]; with each process's steps independent normals (its own mean and
 * spread) it is taken on a grid and divided by the same with the means
 * alike, where the Samuelson bound of the impact stands: the moving share,
 * 1 for a load that visits every process alike, 0 for one process always
 * the latest by many spreads.  The processes' means differ by chance too
 * (a load that visits rank 0 six times in 11 steps, rank 1 five times):
 * they are shrunk towards their mean by the share of their variance that
 * chance (sd^2 / steps) does not explain. */

int an_dyn_step_work(const double *const *rows, size_t r, const size_t *cstart,
                     const size_t *clist, double *mu, double *sd, double *n)
{
    double W, ww;
    *n = floor(own_of(rows[AN_DYN_R_STEPS], r, cstart, clist) + 0.5);
    if (*n < AN_DYN_MIN_STEPS)
        return 0;
    W = own_of(rows[AN_DYN_R_WORK], r, cstart, clist);
    ww = own_of(rows[AN_DYN_R_WORK_SQ], r, cstart, clist) - W * W / *n;
    if (!isfinite(W) || !(ww >= 0) || !isfinite(ww))
        return 0;
    *mu = W / *n;
    *sd = sqrt(ww / (*n - 1));
    return 1;
}

int an_dyn_begin(an_dyn_state *st, const double *s, size_t R, const aa_analyze_options *o,
                 double mmed, double noise, double *moving, double *agree)
{
    size_t r, i, nc = 0;
    memset(st, 0, sizeof *st);
    st->o = o;
    for (r = 0; r < R; r++) {
        moving[r] = 1;
        agree[r] = -1;
    }
    if (!(st->cand = malloc((R + 1) * sizeof *st->cand)))
        return -1;
    for (r = 0; r < R; r++) {
        an_dyn_verdict v;
        if (an_dynamic_judge(s + r * AN_DYN_SUMS, o, mmed, noise, 1, 1, &v))
            st->cand[nc++] = r;
    }
    if (nc && (!(st->sums = calloc(AN_DYN_SPAN_SUMS * nc, sizeof *st->sums)) ||
               !(st->most = malloc(2 * nc * sizeof *st->most)) ||
               !(st->shape = malloc(AN_DYN_SHAPE * nc * sizeof *st->shape)) ||
               !(st->g = calloc(2 * AN_DYN_GRID * nc, sizeof *st->g)) ||
               !(st->lat = calloc(2 * nc, sizeof *st->lat)))) {
        an_dyn_end(st, NULL, NULL);
        return -1;
    }
    for (i = 0; i < nc; i++) {
        st->most[2 * i] = -HUGE_VAL; /* the largest mean */
        st->most[2 * i + 1] = 0;     /* the largest spread */
    }
    st->nc = nc;
    return 0;
}

void an_dyn_span_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                     const size_t *clist)
{
    size_t i;
    double mu, sd, n;
    for (i = 0; i < st->nc; i++)
        if (an_dyn_step_work(rows, st->cand[i], cstart, clist, &mu, &sd, &n)) {
            double *u = st->sums + AN_DYN_SPAN_SUMS * i, *m = st->most + 2 * i;
            u[0] += 1;
            u[1] += mu;
            u[2] += mu * mu;
            u[3] += sd * sd / n;
            m[0] = fmax(m[0], mu);
            m[1] = fmax(m[1], sd);
        }
}

void an_dyn_shape(an_dyn_state *st)
{
    size_t i;
    for (i = 0; i < st->nc; i++) {
        const double *u = st->sums + AN_DYN_SPAN_SUMS * i, *m = st->most + 2 * i;
        double *h = st->shape + AN_DYN_SHAPE * i, n = u[0], grand = n > 0 ? u[1] / n : 0;
        double between = n > 1 ? (u[2] - u[1] * u[1] / n) / (n - 1) : 0;
        double chance = n > 0 ? u[3] / n : 0;
        h[0] = grand;
        h[1] = between > 0 ? fmax(0, 1 - chance / between) : 0; /* the shrinkage */
        h[2] = grand + h[1] * (m[0] - grand);                    /* the largest mean */
        h[3] = m[1];                                             /* the largest spread */
    }
}

/* log P(Z <= z) of a standard normal; z = +-inf for a spread of 0 */
static double log_phi(double z)
{
    return z == HUGE_VAL ? 0 : z == -HUGE_VAL ? -HUGE_VAL : log(0.5 * erfc(-z / sqrt(2.0)));
}

/* the grid's offsets from the largest mean: +-AN_DYN_GRID_SDS spreads */
static double grid_at(double sdmax, size_t i)
{
    return sdmax * AN_DYN_GRID_SDS * (2.0 * (double)i / (AN_DYN_GRID - 1) - 1);
}

static double z_of(double x, double mu, double sd)
{
    return sd > 0 ? (x - mu) / sd : x >= mu ? HUGE_VAL : -HUGE_VAL;
}

void an_dyn_grid_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                     const size_t *clist)
{
    size_t i, j;
    double mu, sd, n;
    for (i = 0; i < st->nc; i++) {
        const double *h = st->shape + AN_DYN_SHAPE * i;
        double *gi = st->g + i * 2 * AN_DYN_GRID;
        if (!(h[3] > 0) || !an_dyn_step_work(rows, st->cand[i], cstart, clist, &mu, &sd, &n))
            continue;
        mu = h[0] + h[1] * (mu - h[0]);
        for (j = 0; j < AN_DYN_GRID; j++) {
            double u = grid_at(h[3], j);
            gi[j] += log_phi(z_of(h[2] + u, mu, sd));       /* the means as measured */
            gi[AN_DYN_GRID + j] += log_phi(z_of(u, 0, sd)); /* the means alike */
        }
    }
}

/* E[max] less the grid's centre from the sums of log P(X_p <= x):
 * lo + the integral of 1 - F (trapezoid), F(lo) ~ 0 and F(hi) ~ 1. */
static double max_excess(const double *lg, double sdmax)
{
    double h = grid_at(sdmax, 1) - grid_at(sdmax, 0), sum = 0;
    size_t j;
    for (j = 0; j < AN_DYN_GRID; j++)
        sum += (j == 0 || j == AN_DYN_GRID - 1 ? 0.5 : 1) * h * (1 - exp(lg[j]));
    return grid_at(sdmax, 0) + sum;
}

/* ---- whether the process that is the latest shows it ----
 * A process that is never the latest waits in every step for one that
 * always is; its own jitter then makes its wait fall as its work rises
 * with slope -1 as well, and costs no one anything.  The pattern counts
 * where the latest process has it: each process's agreement (its own
 * correlation and slope pass) weighed by how often it is the latest,
 * P(X_p = max) = the integral of dF_p(x) prod_{q != p} F_q(x) over the
 * grid of the moving share (the same normals; the product is the grid
 * sum of log F less the process's own term).  On a node whose processes
 * share CPUs the two ranks of a core pair are slower in every step and
 * the others' jitter alone passed: the balanced sample's 4 ranks on 2
 * cores, 3 of 49 runs at a majority of the processes with slopes -0.6 to
 * -1.1 (bench/diagnosis.md, twenty-seventh step). */
void an_dyn_latest_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                       const size_t *clist)
{
    size_t i, j;
    double mu, sd, n;
    proc_steps p;
    for (i = 0; i < st->nc; i++) {
        const double *h = st->shape + AN_DYN_SHAPE * i, *gi = st->g + i * 2 * AN_DYN_GRID;
        double prev = 0, latest = 0;
        if (!(h[3] > 0) || !an_dyn_step_work(rows, st->cand[i], cstart, clist, &mu, &sd, &n) ||
            !proc_steps_at(rows, st->cand[i], cstart, clist, &p))
            continue;
        mu = h[0] + h[1] * (mu - h[0]);
        for (j = 0; j < AN_DYN_GRID; j++) {
            double lf = log_phi(z_of(h[2] + grid_at(h[3], j), mu, sd)), f = exp(lf);
            if (f > prev) /* dF_p at x_j times the others' product there */
                latest += (f - prev) * exp(gi[j] - lf);
            prev = f;
        }
        st->lat[2 * i] += latest * proc_agrees(&p, st->o);
        st->lat[2 * i + 1] += latest;
    }
}

void an_dyn_end(an_dyn_state *st, double *moving, double *agree)
{
    size_t i;
    for (i = 0; moving && i < st->nc; i++) {
        const double *gi = st->g + i * 2 * AN_DYN_GRID, *l = st->lat + 2 * i;
        double sdmax = st->shape[AN_DYN_SHAPE * i + 3], e, e0;
        if (!(sdmax > 0))
            continue;
        e = max_excess(gi, sdmax);
        e0 = max_excess(gi + AN_DYN_GRID, sdmax);
        moving[st->cand[i]] = e0 > 0 ? fmin(1, fmax(0, e / e0)) : 1;
        if (agree && l[1] > 0)
            agree[st->cand[i]] = fmin(1, l[0] / l[1]);
    }
    free(st->cand), free(st->sums), free(st->most), free(st->shape), free(st->g), free(st->lat);
    memset(st, 0, sizeof *st);
}

/* The region around the call site that repeats per step: the site itself
 * or its nearest ancestor that is not a function or a call site (inner: by
 * region, one of those); the site when every ancestor is one. */
static size_t step_region(const aa_analysis *a, const unsigned char *inner, size_t site)
{
    long r = (long)site;
    while (r > 0 && inner[r])
        r = a->regions[r].parent;
    return r > 0 ? (size_t)r : site;
}

/* Region d holds synchronizing calls (paired steps in its subtree): its
 * visits' CPU time holds waits (MPI polls on the CPU), not only work. */
static int holds_waits(const double *s, size_t d)
{
    return s[d * AN_DYN_SUMS + AN_DYN_SYNC_IN] > 0;
}

/* Region d's variation on the steps' scale: its visits' sum of squares
 * times its visits a step when more than one (k visits that vary together
 * within a step, as an inner loop of the varying work does, spread the
 * step's variation over k; the sum of squares of k x the visit deviation
 * over n steps is k times that of the n k visits). */
static double step_var(const double *s, size_t d, double steps)
{
    double vis = s[d * AN_DYN_SUMS + AN_DYN_VISITS], k = steps > 0 ? vis / steps : 1;
    return s[d * AN_DYN_SUMS + AN_DYN_VISIT_VAR] * (k > 1 ? k : 1);
}

size_t an_dynamic_cause(const aa_analysis *a, const unsigned char *inner, const size_t *send,
                        const size_t *cstart, const size_t *clist, const double *s, size_t site)
{
    size_t top = step_region(a, inner, site), d, best = top, i;
    const double *v = s + site * AN_DYN_SUMS;
    double most = 0, need = 0.25 * v[AN_DYN_SWW], steps = v[AN_DYN_STEPS] + v[AN_DYN_PROCS];
    for (d = top + 1; d < send[top]; d++) {
        double vv = step_var(s, d, steps);
        if (holds_waits(s, d))
            continue;
        if (vv > most) {
            most = vv;
            best = d;
        }
    }
    if (best == top || !(most >= need))
        return top;
    for (;;) {
        size_t next = best;
        double half = 0.5 * step_var(s, best, steps);
        for (i = cstart[best]; i < cstart[best + 1]; i++)
            if (step_var(s, clist[i], steps) >= half && !holds_waits(s, clist[i]))
                next = clist[i];
        if (next == best)
            return best;
        best = next;
    }
}

/* One finding: the varying work in `cause`, the wait at `site`. */
static int add_finding(an_ctx *c, size_t site, size_t cause, const an_dyn_verdict *v,
                       const double *s)
{
    aa_analysis *a = c->a;
    aa_finding *f = an_add_finding(c, AA_FINDING_DYNAMIC, cause);
    double kinds[2 * AN_WAIT_KINDS] = {0};
    size_t q, k;
    if (!f)
        return an_nomem(c);
    f->ccr = f->cccr = 1;
    f->effect = -v->slope;
    f->severity = -v->corr;
    f->confidence = v->agree;
    f->impact_s = f->excess_s = v->impact;
    f->run_share = an_share_of_run(v->impact, c->run_med > 0 ? c->run_med : c->wmed); /* judged on mmed */
    f->wait_region = (long)site;
    for (k = 0; k < AN_WAIT_KINDS; k++) {
        kinds[k] = s[site * AN_DYN_SUMS + AN_DYN_KINDS + k];
        f->wait_s += kinds[k]; /* the MPI time there (the steps' waits may be elsewhere too) */
    }
    f->wait_kind = an_wait_kind(kinds, 1, 1);
    f->step_work_sd = v->sd_work;
    f->step_noise_sd = fmin(v->sd_noise, v->sd_work);
    f->steps = v->steps;
    if (!(f->wait_ranks = malloc((a->nprocesses + 1) * sizeof *f->wait_ranks)))
        return an_nomem(c);
    for (q = 0; q < a->nprocesses; q++)
        f->wait_ranks[f->nwait++] = a->ranks[q];
    if (!(f->suggestion = aa_strdup(
              "dynamic imbalance: the heaviest step moves between processes -- balance each "
              "step's work (repartition more often, or assign work dynamically), not only the "
              "run's totals")))
        return an_nomem(c);
    return AA_OK;
}

int an_dynamic_findings_from(an_ctx *c, const double *s, const double *moving,
                             const double *agree, const unsigned char *inner,
                             const size_t *send, const size_t *cstart,
                             const size_t *clist, double mmed, double noise)
{
    aa_analysis *a = c->a;
    size_t r, j, nf = a->nfindings;
    int rc;
    for (r = 0; r < a->nregions; r++) {
        an_dyn_verdict v;
        size_t cause;
        int dup = 0;
        if (!an_dynamic_judge(s + r * AN_DYN_SUMS, c->o, mmed, noise, moving ? moving[r] : 1,
                              agree ? agree[r] : -1, &v))
            continue;
        cause = an_dynamic_cause(a, inner, send, cstart, clist, s, r);
        /* one finding per varying region: the larger wait */
        for (j = nf; j < a->nfindings; j++)
            if (a->findings[j].region == cause) {
                dup = 1;
                if (v.impact > a->findings[j].impact_s) {
                    an_finding_free(&a->findings[j]);
                    memmove(&a->findings[j], &a->findings[j + 1],
                            (a->nfindings - j - 1) * sizeof a->findings[j]);
                    a->nfindings--;
                    dup = 0;
                }
                break;
            }
        if (!dup && (rc = add_finding(c, r, cause, &v, s)))
            return rc;
    }
    return AA_OK;
}

/* One process's rows (NULL where not measured). */
static void gather_rows(an_ctx *c, const int *mi, size_t q, double **rows, unsigned char *fin)
{
    size_t k;
    for (k = 0; k < AN_DYN_ROWS; k++)
        if (rows[k])
            an_gather_row(c, mi[k], q, rows[k], fin);
}

/* The machine's noise of one visit (relative) the steps' work spread is
 * judged beyond: the analysis's noise_one_visit where processes shared a
 * CPU -- with each other (placement.c's keys) or with whatever else the
 * machine ran (a preempted process: runnable and not running for more than
 * preempted_share of its wall time; under a load that moves the processes
 * between CPUs no two keep one, and the balanced sample beside `make check`
 * showed false dynamic imbalances of 1-2% of the run, bench/diagnosis.md,
 * twenty-ninth step) -- 0 otherwise: on a core of its own one visit varies
 * by the program's work (a load that moves varies every region it is in)
 * more than by the machine; -1 on no memory. */
static double machine_noise(an_ctx *c)
{
    uint64_t *keys = NULL;
    double noise;
    if (an_place_keys(c, &keys))
        return -1;
    noise = an_dyn_cpu_shared(keys != NULL, c->npreempted) ? c->a->noise_one_visit : 0;
    free(keys);
    return noise;
}

/* The moving share of every candidate region (moving: R, 1 elsewhere):
 * a pass for the means and spreads, one for the grid, one for the latest
 * processes' agreement. */
static int moving_shares(an_ctx *c, const double *s, const int *mi, double **rows,
                         unsigned char *fin, double noise, double *moving, double *agree)
{
    an_dyn_state st;
    size_t q;
    if (an_dyn_begin(&st, s, c->R, c->o, c->mmed, noise, moving, agree))
        return an_nomem(c);
    for (q = 0; st.nc && q < c->P; q++) {
        gather_rows(c, mi, q, rows, fin);
        an_dyn_span_add(&st, (const double *const *)rows, c->cstart, c->clist);
    }
    an_dyn_shape(&st);
    for (q = 0; st.nc && q < c->P; q++) {
        gather_rows(c, mi, q, rows, fin);
        an_dyn_grid_add(&st, (const double *const *)rows, c->cstart, c->clist);
    }
    for (q = 0; st.nc && q < c->P; q++) {
        gather_rows(c, mi, q, rows, fin);
        an_dyn_latest_add(&st, (const double *const *)rows, c->cstart, c->clist);
    }
    an_dyn_end(&st, moving, agree);
    return AA_OK;
}

/* Phase (serial): the sums of every analysed process, then the findings. */
int an_dynamic_findings(an_ctx *c)
{
    size_t R = c->R, P = c->P, q, k, r;
    int mi[AN_DYN_ROWS], any = 1, rc;
    double *rows[AN_DYN_ROWS] = {0}, *s, *moving, *agree, noise;
    unsigned char *fin, *inner;
    for (k = 0; k < AN_DYN_R_KINDS; k++) /* the six sync_* sums */
        any &= an_metric_usable(c, an_dyn_metric(k), &mi[k]);
    if (!any || P < 2)
        return AA_OK;
    c->a->dynamic_measured = 1;
    s = calloc(R * AN_DYN_SUMS + 1, sizeof *s);
    moving = malloc((R + 1) * sizeof *moving);
    agree = malloc((R + 1) * sizeof *agree);
    fin = malloc(R + 1);
    inner = calloc(R + 1, 1);
    for (k = 0; k < AN_DYN_ROWS; k++)
        rows[k] = malloc((R + 1) * sizeof *rows[k]);
    for (k = 0, any = s && moving && agree && fin && inner; k < AN_DYN_ROWS; k++)
        any &= rows[k] != NULL;
    rc = any ? AA_OK : an_nomem(c);
    for (k = AN_DYN_R_KINDS; !rc && k < AN_DYN_ROWS; k++)
        if (!an_metric_usable(c, an_dyn_metric(k), &mi[k])) {
            free(rows[k]);
            rows[k] = NULL;
        }
    for (q = 0; !rc && q < P; q++) {
        gather_rows(c, mi, q, rows, fin);
        an_dynamic_add(s, R, (const double *const *)rows, c->cstart, c->clist, c->o);
    }
    for (r = 0; !rc && r < R; r++)
        inner[r] = c->a->regions[r].info && (c->a->regions[r].info->kind == AA_KIND_FUNCTION ||
                                             c->a->regions[r].info->kind == AA_KIND_CALL);
    if (!rc)
        rc = (noise = machine_noise(c)) < 0
                 ? an_nomem(c)
                 : moving_shares(c, s, mi, rows, fin, noise, moving, agree);
    if (!rc)
        rc = an_dynamic_findings_from(c, s, moving, agree, inner, c->send, c->cstart, c->clist,
                                      c->mmed, noise);
    for (k = 0; k < AN_DYN_ROWS; k++)
        free(rows[k]);
    free(s), free(moving), free(agree), free(fin), free(inner);
    return rc;
}
