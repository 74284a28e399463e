/*
 * analyze/disparity.c -- the disparity analysis (SPEC §5.2, §5.3): every
 * region's CRNM (or CPI, or wall fraction) on its self values, averaged over
 * processes, in 5 severity classes by exact 1-D k-means; the regions of the
 * top classes holding enough of the run are the disparity CCRs/CCCRs.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1-D severity classes ---------------------------------------------------- */
/* k-means into 5 classes; with k_used < 5 classes, class j maps to
 * round(4j/(k_used-1)) so the top class is always "very high" (4) and the
 * bottom one "very low" (0).  centers (optional) get the 5-class centers
 * of the used classes. */
int an_severity_classes(an_ctx *c, const double *v, size_t n, int *cls, double *centers,
                        size_t *kused, double merge_rel)
{
    aa_kmeans_result km;
    size_t i, j, k;
    int grp[5] = {0, 0, 0, 0, 0};
    if (n == 0) {
        *kused = 0;
        return AA_OK;
    }
    memset(&km, 0, sizeof km);
    if (aa_cluster_kmeans1d(v, n, 5, &km, c->err))
        return c->err->code ? c->err->code : AA_EENV;
    /* merge_rel > 0: adjacent classes whose centers differ by no more than
     * merge_rel of the larger one are one class (noise, not a level) */
    k = 0;
    for (j = 0; j < km.k && j < 5; j++) {
        if (j > 0 && merge_rel > 0 &&
            km.centers[j] - km.centers[j - 1] <= merge_rel * fabs(km.centers[j]))
            grp[j] = grp[j - 1];
        else
            grp[j] = (int)k++;
    }
    /* With 5 classes the labels are the severities.  With fewer (few
     * distinct values, or merged classes) each class gets the level nearest
     * to its center's position between the lowest and the highest center,
     * so the top class is "very high" (4) and the bottom one "very low" (0). */
    {
        double gc[5] = {0, 0, 0, 0, 0};
        int sev[5] = {0, 0, 0, 0, 0};
        for (j = km.k < 5 ? km.k : 5; j-- > 0;)
            gc[grp[j]] = km.centers[j]; /* lowest center of each group */
        for (j = 0; j < k; j++)
            sev[j] = k == 5 ? (int)j
                     : k <= 1 || !(gc[k - 1] > gc[0])
                         ? 0
                         : (int)lround(4.0 * (gc[j] - gc[0]) / (gc[k - 1] - gc[0]));
        for (i = 0; i < n; i++)
            cls[i] = sev[grp[km.labels[i]]];
    }
    km.k = k;
    if (centers)
        for (i = 0; i < km.k && i < 5; i++)
            centers[i] = km.centers[i];
    *kused = km.k;
    aa_cluster_kmeans_free(&km);
    return AA_OK;
}

double an_region_metric_value(const aa_analysis *a, double frac, double cpi)
{
    if (strcmp(a->region_metric, "crnm") == 0)
        return frac * cpi;
    if (strcmp(a->region_metric, "cpi") == 0)
        return cpi;
    return frac;
}

/* The region metric asked for, or the wall fraction when cycles or
 * instructions were not measured; cycles into T1, instructions into T2. */
static int choose_region_metric(an_ctx *c)
{
    const aa_analyze_options *o = c->o;
    aa_analysis *a = c->a;
    c->cpi_ok = an_metric_usable(c, "cycles", &c->m_cyc) &&
                an_metric_usable(c, "instructions", &c->m_ins);
    if (c->cpi_ok) {
        size_t fc, fi;
        an_gather2(c, c->m_cyc, c->T1, c->m_ins, c->T2, &fc, &fi);
        c->cpi_ok = fc > 0 && fi > 0;
    }
    a->region_metric = o->region_metric == AA_RMETRIC_CRNM ? "crnm"
                       : o->region_metric == AA_RMETRIC_CPI ? "cpi"
                                                            : "wall";
    if (o->region_metric != AA_RMETRIC_WALL && !c->cpi_ok) {
        a->region_metric = "wall";
        return an_note(c, "CPI unavailable (cycles or instructions not measured): regions are "
                          "ranked by their wall-time fraction instead of %s",
                       o->region_metric == AA_RMETRIC_CRNM ? "CRNM" : "CPI");
    }
    return AA_OK;
}

/* ---- preempted processes ------------------------------------------------------- */
/* On a loaded machine every interval of a process is stretched by the time
 * slices the machine gives to others: its computation (wall/CPU of 5-15 on
 * the 2-core development VM with 4-16 ranks) and above all its waits in
 * MPI, where it waits for processes the machine is not running -- a
 * collective that costs microseconds on a dedicated node takes a time slice
 * of every late process.  Wall time then says nothing of a region's cost on
 * a dedicated node, and its waits in MPI least of all.
 *
 * A process is preempted (the test of the profile-guided filter,
 * instrument/pfilter.c) when more than preempted_share of its wall time is
 * neither CPU time nor waiting in MPI (mpi_wall - mpi_cpu) or I/O (io_time):
 * time it was runnable and not run; or when the scheduler says so: its run
 * delay (the runtime's `run_delay`, the time it was runnable and waiting for
 * a CPU) is more than that share of its wall time.  The second sees the
 * preemption an oversubscribed node hides inside MPI waits: a process
 * waiting for a partner the machine is not running yields and queues, and
 * its wait counts as waiting in MPI, so its wall time is all explained.
 * Once any process is preempted, every process's regions are judged on
 * their self CPU time (its MPI calls' CPU time included: copying
 * messages, polling) plus their self I/O time (io_time: a write that
 * waits for the disk keeps its wait; the CPU time of I/O calls counts
 * twice, at most doubling an I/O region) instead of their self wall time,
 * and their shares are taken of the sum of these (c->dwpwt); MPI set-up
 * stays out as on wall time.  On a dedicated node no process is preempted
 * and nothing changes.  A process that sleeps or waits for a lock or a
 * device outside MPI and I/O looks preempted too: its blocked time (off
 * the CPU outside the calls beyond its run delay, metrics.c add_blocked)
 * counts in its regions as well, as it does in the process metric --
 * without it a region where every process sleeps 40% of the run was no
 * hotspot (bench/diagnosis.md, thirty-second step).  Every process, not only the
 * preempted ones: a process the machine ran waits in MPI for a partner it
 * did not, and on its wall time that wait is a hotspot (suite seed 2922:
 * two ranks, one preempted 38% of its wall time, the other waiting 0.30 s
 * of 0.57 in the halo exchange, a hotspot at confidence 0.5). */

/* The share of process q's wall time (its whole-program region) that its
 * CPU time and waits do not explain, or its run delay if larger; 0 when
 * unknown.  CPU, MW, MC, IO: process q's inclusive values by region (IO
 * may be NULL). */
static double unexplained_share(const an_ctx *c, size_t q, const double *CPU, const double *MW,
                                const double *MC, const double *IO)
{
    size_t k = q * c->R; /* region 0: the whole program; the rows are q's */
    if (!c->ran[k])
        return 0;
    return aa_preempted_share(c->W[k], aa_busy_time(CPU[0], MW[0], MC[0], IO ? IO[0] : NAN),
                              aa_process_run_delay(&c->e->processes[c->proc[q]]));
}

/* Process q's self CPU + I/O values into c->SW (set-up MPI CPU time left
 * out as an_self_wall leaves out set-up MPI wall time) and their sum into
 * c->dwpwt[q].  SCPU, SMC, SIO: q's self CPU, MPI CPU and I/O time by
 * region (SIO may be NULL).  The MPI calls' CPU time counts as far as the
 * calls need it on a dedicated node (mpi_call_cpu per call, their bytes at
 * mpi_copy_rate; SCALLS, SBYTES: q's self calls and bytes sent and
 * received, NULL: not measured, all of it counts): beyond that it is
 * polling for processes the machine did not run. */
double an_judged_on_cpu(double cpu, double mpi_cpu, double io, double blocked, double cap,
                        int setup, int whole, double *mpi_part)
{
    double mpi = fmin(mpi_cpu, cap); /* fmin: NAN gives the other */
    *mpi_part = setup || whole ? 0 : fmax(0, mpi);
    return setup ? 0 : fmax(0, cpu - mpi_cpu) + io + blocked + *mpi_part;
}

static void judge_on_cpu(an_ctx *c, size_t q, const double *SCPU, const double *SMC,
                         const double *SIO, const double *SCALLS, const double *SBYTES)
{
    size_t r, R = c->R, k = q * R;
    double sum = 0;
    for (r = 0; r < R; r++) {
        double cap = SCALLS && SBYTES ? SCALLS[r] * c->o->mpi_call_cpu_s +
                                            SBYTES[r] / c->o->mpi_copy_rate
                                      : NAN;
        c->SW[k + r] = an_judged_on_cpu(SCPU[r], SMC[r], SIO ? SIO[r] : 0,
                                        c->blocked ? c->blocked[k + r] : 0, cap,
                                        an_is_mpi_setup(c->a->regions[r].info), c->whole[r],
                                        &c->SWmpi[k + r]);
        sum += c->SW[k + r];
    }
    c->dwpwt[q] = sum;
}

/* Is metric `name` usable with a finite value somewhere (what
 * an_gather(...) > 0 tells), asked one process at a time? */
static int metric_finite(an_ctx *c, const char *name, double *row, unsigned char *anyfin)
{
    size_t q;
    int m;
    if (!an_metric_usable(c, name, &m))
        return 0;
    for (q = 0; q < c->P; q++)
        if (an_gather_row(c, m, q, row, anyfin) > 0)
            return 1;
    return 0;
}

/* Process q's self values of metric mi into out, added to sum when it is
 * not NULL (tmp: R scratch). */
static void self_row_of(an_ctx *c, int mi, size_t q, double *tmp, unsigned char *anyfin,
                        double *out, double *sum)
{
    size_t r;
    an_gather_row(c, mi, q, tmp, anyfin);
    an_self_row(c, tmp, out);
    for (r = 0; sum && r < c->R; r++)
        sum[r] += out[r];
}

/* Phase step: once a process was preempted, every process judged on CPU
 * time; c->dwpwt; a note says how many were.  One process at a time (rows
 * of R values, not P x R arrays): a pass over all of them decides which
 * were preempted from their whole-program values, a second judges them. */
static int judge_preempted_on_cpu(an_ctx *c)
{
    size_t P = c->P, R = c->R, q, npre = 0, iofin = 0;
    int mcpu, mmw, mmc, mio, mcalls = -1, msent = -1, mrecv = -1, io_usable, have_io,
        have_calls;
    double *buf, *CPU, *MW, *MC, *IO, *SCPU, *SMC, *SIO, *SCALLS, *SBYTES, *STMP, lost = 0;
    unsigned char *anyfin;
    for (q = 0; q < P; q++)
        c->dwpwt[q] = c->wpwt[q];
    if (!an_metric_usable(c, "cpu", &mcpu) || !an_metric_usable(c, "mpi_wall", &mmw) ||
        !an_metric_usable(c, "mpi_cpu", &mmc))
        return AA_OK;
    buf = malloc((R ? R : 1) * 11 * sizeof *buf);
    anyfin = malloc(R ? R : 1);
    if (!buf || !anyfin) {
        free(buf), free(anyfin);
        return an_nomem(c);
    }
    CPU = buf, MW = buf + R, MC = buf + 2 * R, IO = buf + 3 * R, SCPU = buf + 4 * R;
    SMC = buf + 5 * R, SIO = buf + 6 * R, SCALLS = buf + 7 * R, SBYTES = buf + 8 * R;
    STMP = buf + 9 * R;
    io_usable = an_metric_usable(c, "io_time", &mio);
    for (q = 0; q < P; q++) {
        double u;
        an_gather_row(c, mcpu, q, CPU, anyfin);
        an_gather_row(c, mmw, q, MW, anyfin);
        an_gather_row(c, mmc, q, MC, anyfin);
        if (io_usable)
            iofin += an_gather_row(c, mio, q, IO, anyfin);
        /* without a finite I/O value anywhere, IO[0] of a process that ran
         * is NaN: the same as leaving I/O out */
        u = unexplained_share(c, q, CPU, MW, MC, io_usable ? IO : NULL);
        if (!(u > c->o->preempted_share))
            continue;
        npre++;
        lost += u;
    }
    c->npreempted = npre;
    if (npre && !(c->SWmpi = malloc(P * R * sizeof *c->SWmpi))) {
        free(buf), free(anyfin);
        return an_nomem(c);
    }
    have_io = io_usable && iofin > 0;
    /* the calls and bytes of the MPI calls */
    have_calls = npre && metric_finite(c, "mpi_calls", STMP, anyfin) &&
                 metric_finite(c, "mpi_bytes_sent", STMP, anyfin) &&
                 metric_finite(c, "mpi_bytes_recv", STMP, anyfin);
    if (have_calls) {
        an_metric_usable(c, "mpi_calls", &mcalls);
        an_metric_usable(c, "mpi_bytes_sent", &msent);
        an_metric_usable(c, "mpi_bytes_recv", &mrecv);
    }
    /* every process once one is: the others' waits in MPI are for it */
    for (q = 0; q < P && npre; q++) {
        an_gather_row(c, mcpu, q, CPU, anyfin);
        an_self_row(c, CPU, SCPU);
        an_gather_row(c, mmc, q, MC, anyfin);
        an_self_row(c, MC, SMC);
        if (have_io) {
            an_gather_row(c, mio, q, IO, anyfin);
            an_self_row(c, IO, SIO);
        }
        if (have_calls) {
            self_row_of(c, mcalls, q, STMP, anyfin, SCALLS, NULL);
            self_row_of(c, msent, q, STMP, anyfin, SBYTES, NULL);
            self_row_of(c, mrecv, q, STMP, anyfin, MW, SBYTES);
        }
        judge_on_cpu(c, q, SCPU, SMC, have_io ? SIO : NULL, have_calls ? SCALLS : NULL,
                     have_calls ? SBYTES : NULL);
    }
    free(buf);
    free(anyfin);
    if (!npre)
        return AA_OK;
    return an_note(c, "%zu of %zu processes were preempted (on average %.0f%% of their wall "
                      "time the machine ran other processes: neither CPU time nor waiting in "
                      "MPI or I/O, or runnable and waiting for a CPU): every process's "
                      "regions are judged on %s for hotspots, as wall time "
                      "and the waits in MPI for the processes not run were stretched by "
                      "the load",
                   npre, P, 100 * lost / (double)npre,
                   c->blocked ? "CPU time, I/O time and time blocked outside the calls"
                              : "CPU and I/O time");
}

/* Every region's value (a->region_value): its region metric on self
 * values, averaged over the processes. */
static void region_values(an_ctx *c)
{
    aa_analysis *a = c->a;
    size_t P = c->P, R = c->R, q, r;
    const double *SW = c->SW, *T1 = c->T1, *T2 = c->T2;
    for (r = 0; r < R; r++) {
        double s = 0;
        for (q = 0; q < P; q++) {
            size_t k = q * R + r;
            double frac, cpi = 0;
            if (!c->ran[k])
                continue;
            frac = (c->dwpwt[q] > 0 && !isnan(SW[k])) ? fmin(1, SW[k] / c->dwpwt[q]) : 0;
            if (c->cpi_ok && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
                cpi = T1[k] / T2[k];
            s += an_region_metric_value(a, frac, cpi);
        }
        a->region_value[r] = s / (double)P;
    }
}

/* Severity classes (a->severity) of the classified regions (c->dobj): every
 * region but the root and MPI set-up regions. */
static int classify_regions(an_ctx *c)
{
    aa_analysis *a = c->a;
    size_t r, i, ku;
    int *cls, rc;
    double *v, centers[5] = {0, 0, 0, 0, 0};
    c->ndobj = 0;
    for (r = 1; r < c->R; r++)
        if (!an_is_mpi_setup(a->regions[r].info))
            c->dobj[c->ndobj++] = r;
    if (!c->ndobj)
        return AA_OK;
    cls = malloc(c->ndobj * sizeof *cls);
    v = malloc(c->ndobj * sizeof *v);
    if (!cls || !v) {
        free(cls);
        free(v);
        return an_nomem(c);
    }
    for (i = 0; i < c->ndobj; i++)
        v[i] = a->region_value[c->dobj[i]];
    rc = an_severity_classes(c, v, c->ndobj, cls, centers, &ku, 0);
    for (i = 0; i < c->ndobj && !rc; i++)
        a->severity[c->dobj[i]] = cls[i];
    free(cls);
    free(v);
    return rc;
}

/* Phase: region fractions on self values (the region's own code: its wall
 * time minus its sub-regions'), so that enclosing regions never compete
 * with what they enclose; MPI set-up time is set-up wherever it sits; a
 * preempted process's regions on their CPU time.  The
 * regions' values and their severity classes. */
int an_disparity_classes(an_ctx *c)
{
    int rc;
    c->SW = malloc(c->P * c->R * sizeof *c->SW);
    c->dwpwt = malloc((c->P ? c->P : 1) * sizeof *c->dwpwt);
    if (!c->SW || !c->dwpwt)
        return an_nomem(c);
    if ((rc = an_self_wall(c, c->W, c->T2, c->SW)) || (rc = judge_preempted_on_cpu(c)) ||
        (rc = choose_region_metric(c)))
        return rc;
    region_values(c);
    return classify_regions(c);
}

static void disp_free(an_disp *d)
{
    if (d->have_rs) {
        aa_roughset_result_free(&d->res, d->rows.nrows);
        aa_roughset_table_free(d->tab);
    }
    an_rs_rows_free(&d->rows);
    free(d->pos);
    free(d->isccr);
    free(d->iscccr);
    free(d->rep);
    free(d->vals);
    free(d->dec);
}

/* ---- waits of imbalances ------------------------------------------------------ */
/* The MPI time the other processes spend waiting for an imbalance's slow
 * ones is the imbalance's cost (its wait state: aa_finding wait_region,
 * wait_s), not a hotspot of the region where they wait: a halo exchange
 * that the fast ranks sit in for 0.4 s because one rank does 6x the work
 * costs microseconds once the work is balanced.  So is the wait of a
 * dynamic imbalance (dynamic.c: every process waits, in turn).  Region r's own value
 * leaves out, for every waiting process, the largest per-process wait that
 * a reported imbalance names at r -- where the processes are judged on CPU
 * time, out of their MPI calls' CPU time there, at most: a process waiting
 * for a late one polls in its MPI calls (suite seed 2968: ranks 0,1 polled
 * 0.24-0.34 s of CPU in halo_update's 125 calls waiting 0.42 s each for
 * rank 2, a false hotspot on the 1 ms a call they were credited). */
static double wait_of(const an_ctx *c, size_t q, size_t r)
{
    const aa_analysis *a = c->a;
    double w = 0;
    size_t i, j;
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        if (f->kind == AA_FINDING_DISPARITY || f->wait_region != (long)r || !f->nwait ||
            !(f->wait_s > 0))
            continue;
        for (j = 0; j < f->nwait; j++)
            if (f->wait_ranks[j] == a->ranks[q])
                w = fmax(w, f->wait_s / (double)f->nwait);
    }
    return w;
}

/* Region r's value without the waits of imbalances: its region value
 * scaled by the ratio of its mean per-process fraction without them to the
 * one with them; *waited: 1 when there were any. */
static int waits_at(const an_ctx *c, size_t r)
{
    size_t i;
    for (i = 0; i < c->a->nfindings; i++) {
        const aa_finding *f = &c->a->findings[i];
        if (f->kind != AA_FINDING_DISPARITY && f->wait_region == (long)r && f->nwait &&
            f->wait_s > 0)
            return 1;
    }
    return 0;
}

/* (every classified region's: wait_of, a pass over the waiting ranks, only
 * where an imbalance names r) */
static double own_value(const an_ctx *c, size_t r, int *waited)
{
    size_t q, P = c->P, R = c->R;
    double s = 0, s0 = 0;
    int any = waits_at(c, r);
    *waited = 0;
    for (q = 0; q < P; q++) {
        size_t k = q * R + r;
        double v = c->SW[k], w;
        if (!c->ran[k] || isnan(v))
            continue;
        s0 += c->dwpwt[q] > 0 ? fmin(1, v / c->dwpwt[q]) : 0;
        if (any && (w = wait_of(c, q, r)) > 0) {
            v = fmax(0, v - (c->SWmpi ? fmin(w, c->SWmpi[k]) : w));
            *waited = 1;
        }
        s += c->dwpwt[q] > 0 ? fmin(1, v / c->dwpwt[q]) : 0;
    }
    return s0 > 0 ? c->a->region_value[r] * s / s0 : 0;
}

/* ---- a region's own code over its calling contexts ------------------------------ */
/* A region runs in as many tree nodes as calling contexts reach it, and the
 * CCR test above judges each node alone: a kernel called from an x and a y
 * sweep, 13% of the run in each (CloverLeaf's advec_mom_kernel over two
 * contexts: 26%), was no hotspot, where a flat profile (gprof, TAU,
 * HPCToolkit's flat view) puts it first.  A region's own code over all its
 * contexts is judged as one node is: the nodes of one static region (its
 * id) among the classified ones are one hotspot when the own values
 * (without imbalances' waits) of those that are no CCR alone together
 * hold disparity_min_share of the run and at least the smallest value of
 * the top severity classes -- with the contexts that are a hotspot alone
 * then, as a flat profile adds them (a kernel at 25% in one context and
 * 12% in two others is one hotspot of 49% over three, not one of 25%);
 * where the rest is less (a culprit in one context, the kernel's ordinary
 * cost in the others) each context that is a CCR alone stays its own.  Self values are added, as a flat profile's
 * exclusive time (a function's loops are regions of their own, judged
 * the same way; direct recursion is folded already).  A region in one
 * context is what the node test judged. */
typedef struct ctx_node {
    uint32_t id;
    double v;
    size_t r;
} ctx_node;

static int ctx_node_cmp(const void *x, const void *y)
{
    const ctx_node *u = x, *w = y;
    if (u->id != w->id)
        return u->id < w->id ? -1 : 1;
    if (u->v != w->v)
        return u->v > w->v ? -1 : 1; /* the largest context first */
    return u->r < w->r ? -1 : u->r > w->r;
}

long an_context_hotspots(const aa_analysis *a, const size_t *dobj, size_t n, const double *own,
                         double min_share, int *isccr, long *rep)
{
    ctx_node *nd = malloc((n ? n : 1) * sizeof *nd);
    double top = INFINITY;
    size_t i, j, k;
    long groups = 0;
    if (!nd)
        return -1;
    for (i = 0; i < a->nregions; i++)
        rep[i] = -1;
    for (i = 0; i < n; i++) {
        size_t r = dobj[i];
        nd[i].id = a->regions[r].id;
        nd[i].v = a->region_value[r];
        nd[i].r = r;
        if (a->severity[r] >= 3 && a->region_value[r] < top)
            top = a->region_value[r];
    }
    qsort(nd, n, sizeof *nd, ctx_node_cmp);
    for (i = 0; i < n; i = j) {
        double rest = 0; /* the contexts that are no hotspot alone */
        for (j = i; j < n && nd[j].id == nd[i].id; j++)
            if (!isccr[nd[j].r])
                rest += own[nd[j].r];
        if (j - i < 2 || !(rest >= min_share) || !(rest >= top))
            continue;
        for (k = i; k < j; k++) {
            isccr[nd[k].r] = 1;
            rep[nd[k].r] = (long)nd[i].r;
        }
        groups++;
    }
    free(nd);
    return groups;
}

/* A finding's severity class and severity from its value (f->effect, over
 * its contexts when it has several: in the top classes, an_context_hotspots)
 * and the largest region value. */
void an_disparity_severity(aa_finding *f, double maxv)
{
    if (f->ncontexts)
        f->severity_class = f->effect >= maxv ? 4 : 3;
    f->severity = maxv > 0 ? fmin(1, f->effect / maxv) : 0;
}

/* The contexts of rr's group (an_context_hotspots' rep) into f, rr (the
 * largest) first; 0, or -1 on no memory. */
int an_finding_contexts(aa_finding *f, const long *rep, size_t R, size_t rr)
{
    size_t r, n = 0;
    for (r = 0; r < R; r++)
        n += rep[r] == (long)rr;
    if (n < 2)
        return AA_OK;
    if (!(f->contexts = malloc(n * sizeof *f->contexts)))
        return -1;
    f->contexts[f->ncontexts++] = rr;
    for (r = 0; r < R; r++)
        if (rep[r] == (long)rr && r != rr)
            f->contexts[f->ncontexts++] = r;
    return AA_OK;
}

/* CCR: a region of the top severity classes whose own code holds at least
 * disparity_min_share of the run.  On self values every CCR stands for its
 * own cost, so every CCR is a CCCR (SPEC §5.3: no CCR below it explains
 * it). */
static int disp_ccrs(an_ctx *c, an_disp *d)
{
    const aa_analysis *a = c->a;
    size_t r, i, R = c->R;
    double *own;
    memset(d, 0, sizeof *d);
    d->n = c->ndobj;
    d->pos = malloc(R * sizeof *d->pos);
    d->isccr = calloc(R, sizeof *d->isccr);
    d->iscccr = calloc(R, sizeof *d->iscccr);
    d->vals = malloc((d->n * c->nattr + 1) * sizeof *d->vals);
    d->dec = malloc(d->n * sizeof *d->dec);
    d->rep = malloc(R * sizeof *d->rep);
    own = calloc(R, sizeof *own);
    if (!d->pos || !d->isccr || !d->iscccr || !d->vals || !d->dec || !d->rep || !own) {
        free(own);
        return an_nomem(c);
    }
    for (r = 0; r < R; r++)
        d->pos[r] = -1;
    for (i = 0; i < d->n; i++)
        d->pos[c->dobj[i]] = (long)i;
    for (r = 1; r < R; r++) {
        int waited = 0;
        own[r] = d->pos[r] >= 0 ? own_value(c, r, &waited) : 0;
        d->isccr[r] = d->pos[r] >= 0 && a->severity[r] >= 3 &&
                      a->region_value[r] >= c->o->disparity_min_share;
        if (d->isccr[r] && own[r] < c->o->disparity_min_share && waited) {
            d->isccr[r] = 0;
            d->nwaits++;
        }
        if (a->region_value[r] > d->maxv)
            d->maxv = a->region_value[r];
    }
    if (an_context_hotspots(a, c->dobj, c->ndobj, own, c->o->disparity_min_share, d->isccr,
                            d->rep) < 0) {
        free(own);
        return an_nomem(c);
    }
    memcpy(d->iscccr, d->isccr, R * sizeof *d->isccr);
    free(own);
    return AA_OK;
}

/* The order of the findings: CCCRs by value (descending), then other CCRs. */
static size_t *disp_order(an_ctx *c, const an_disp *d)
{
    const aa_analysis *a = c->a;
    size_t R = c->R, *ord = malloc(R * sizeof *ord), r, x, y;
    if (!ord)
        return NULL;
    for (r = 0; r < R; r++)
        ord[r] = r;
    for (x = 1; x < R; x++)
        for (y = x; y > 0; y--) {
            size_t u = ord[y - 1], v = ord[y];
            int ku = d->iscccr[u], kv = d->iscccr[v];
            if (kv > ku || (kv == ku && a->region_value[v] > a->region_value[u])) {
                ord[y] = u;
                ord[y - 1] = v;
            } else
                break;
        }
    return ord;
}

/* The finding of disparity CCR rr with its root causes. */
static int disp_finding(an_ctx *c, const an_disp *d, size_t rr)
{
    const aa_analysis *a = c->a;
    size_t q, k, P = c->P, R = c->R;
    aa_finding *f = an_add_finding(c, AA_FINDING_DISPARITY, rr);
    aa_attrset causes = 0;
    double *val = calloc(c->nattr + 1, sizeof *val), *refv = calloc(c->nattr + 1, sizeof *refv);
    double sw = 0;
    int rc;
    if (!f || !val || !refv) {
        free(val);
        free(refv);
        return an_nomem(c);
    }
    f->ccr = 1;
    f->cccr = d->iscccr[rr];
    f->severity_class = a->severity[rr];
    if (an_finding_contexts(f, d->rep, R, rr)) {
        free(val);
        free(refv);
        return an_nomem(c);
    }
    for (k = 0; k < an_finding_nnodes(f); k++) {
        size_t r = an_finding_node(f, k);
        for (q = 0; q < P; q++) {
            double v = c->SW[q * R + r];
            sw += isnan(v) ? 0 : v;
        }
        f->effect += a->region_value[r];
    }
    an_disparity_severity(f, d->maxv);
    f->impact_s = f->excess_s = sw / (double)P;
    f->run_share = an_share_of_run(f->impact_s, c->run_med);
    f->confidence = 0; /* an_disparity_confidence: from per-process values */
    if (d->iscccr[rr] && d->have_rs)
        causes = an_disparity_causes(c, d, rr, val, refv);
    rc = an_set_causes(c, f, causes, c->anames, c->adefs, c->nattr, val, refv);
    free(val);
    free(refv);
    return rc;
}

/* Phase: the disparity CCRs, their decision table and their findings. */
int an_disparity_findings(an_ctx *c)
{
    an_disp d;
    size_t *ord = NULL, x;
    int rc;
    if (!c->ndobj)
        return AA_OK;
    rc = disp_ccrs(c, &d);
    if (!rc)
        rc = an_disparity_table(c, &d);
    if (!rc && !(ord = disp_order(c, &d)))
        rc = an_nomem(c);
    for (x = 0; x < c->R && !rc; x++)
        if (ord[x] != 0 && d.isccr[ord[x]] && (d.rep[ord[x]] < 0 || d.rep[ord[x]] == (long)ord[x]))
            rc = disp_finding(c, &d, ord[x]); /* a hotspot over contexts once, by its largest */
    if (!rc && d.nwaits)
        rc = an_note(c, "%zu region%s of the top severity class %s where processes wait for an "
                        "imbalance's slow ones (reported with the imbalance: its waiting), no "
                        "hotspot of %s own", d.nwaits, d.nwaits == 1 ? "" : "s",
                     d.nwaits == 1 ? "is" : "are", d.nwaits == 1 ? "its" : "their");
    free(ord);
    disp_free(&d);
    return rc;
}

/* for the parallel analysis (parallel.c), which builds its own an_disp */
void an_disp_free(an_disp *d)
{
    disp_free(d);
}
