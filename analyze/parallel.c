/*
 * analyze/parallel.c -- the analysis as a parallel job (aa_analyze_parallel):
 * the phases of analyze.c over processes spread across the ranks of a job,
 * each rank holding a contiguous block of them (in rank order).  No rank
 * ever holds another rank's profiles; what a phase needs of all processes
 * comes through the collectives of aa_pcomm:
 *  - the region tree: the ranks' trees merged up a binomial tree, then
 *    broadcast (one tree of R nodes, not P);
 *  - sums and extremes per region (whole-program chain, region values of
 *    the disparity analysis, value ranges, cluster sums): element-wise
 *    reductions of R (or k) numbers;
 *  - exact medians (the noise model, the median program time): bisection
 *    on the bit patterns of the non-negative values, one reduction of
 *    counts per step (64 steps), each rank counting in its sorted columns;
 *  - the clustering of a level: each rank groups its processes into data
 *    bubbles (leaders within eps/10, as dissim.c), the leaders are merged
 *    up the binomial tree and broadcast, the bubbles' counts, sums and sums
 *    of squares are reduced, and every rank clusters the same bubbles with
 *    dissim.c's an_level_cluster (OPTICS, then the significance merge on
 *    the bubbles' sums, then single components), and the CCR tests of the
 *    level's components (an_level_ccr_test) are spread over the ranks, the
 *    results max-reduced;
 *    with few processes (<= 64) or bubbles that do not compress (more than
 *    a quarter of the processes), the level's vectors (P x the level's
 *    regions, not the profiles) are gathered and clustered by the same
 *    functions exactly as the serial analysis does.
 * The decisions (CCR tests, severity classes, CCCRs, the reported level,
 * the waits of imbalances) are then the serial analysis' own, taken on
 * every rank from the same reduced numbers, so every rank takes the same
 * path through the collectives and ends with the same aa_analysis.  Root
 * causes are causes.c's own, on reduced region means (disparity) and on the
 * attribute columns of a CCCR's region gathered (P x the attributes);
 * the cpu_sq spike test and the disparity confidence reduce counts and an
 * exact median.  A rank's processes come from an aa_psource a block at a
 * time (a few passes: the tree, the values, the root causes), so that it
 * need not hold them all.  Master detection is tree.c's rule on reduced
 * per-node counts and an exact median.  Not done in parallel: excluded
 * ranks and regions (a usage error).
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the region tree ----------------------------------------------------------- */
/* a tree on the wire: per node its id and its parent's index (parents first) */
typedef struct pa_wnode {
    uint32_t id;
    int32_t parent;
} pa_wnode;

/* Adds the n wire nodes w to t; map (optional, n) gets their indices in t. */
static int pt_merge(an_rtree *t, const pa_wnode *w, size_t n, long *map)
{
    long *m = map ? map : malloc((n ? n : 1) * sizeof *m);
    size_t i;
    int rc = 0;
    if (!m)
        return -1;
    for (i = 0; i < n && !rc; i++) {
        long par = i == 0 ? -1 : (w[i].parent >= 0 && (size_t)w[i].parent < i) ? m[w[i].parent] : -2;
        if (par == -2 || (m[i] = i == 0 ? an_rtree_child(t, -1, AA_REGION_ROOT)
                                        : an_rtree_child(t, par, w[i].id)) < 0)
            rc = -1;
    }
    if (!map)
        free(m);
    return rc;
}

static pa_wnode *pt_wire(const an_rtree *t)
{
    pa_wnode *w = malloc((t->n ? t->n : 1) * sizeof *w);
    size_t i;
    if (!w)
        return NULL;
    for (i = 0; i < t->n; i++) {
        w[i].id = t->id[i];
        w[i].parent = (int32_t)t->par[i];
    }
    return w;
}

/* ---- the job's state ------------------------------------------------------------- */
enum { M_WALL, M_MPIW, M_CPU, M_MPIC, M_CYC, M_INS, M_IO, M_IOC, M_FIX, M_IOCALLS, M_N };
static const char *const pa_metric[M_N] = {"wall", "mpi_wall", "cpu", "mpi_cpu",
                                           "cycles", "instructions", "io_time", "io_cpu",
                                           "cpu_fix", "io_calls"};
/* what the MPI calls of a preempted process need at most (x->cap) */
static const char *const cap_metric[3] = {"mpi_calls", "mpi_bytes_sent", "mpi_bytes_recv"};

typedef struct pa_found {
    size_t region;
    long level;
    an_clust cp;
    double effect, severity, confidence, impact;
    double excess;     /* dissim.c's dis_found excess (impact: an_idle_bound of it) */
    double own_impact; /* the slow processes' excess in the region's own code */
    int dropped, cccr;
    int made_up;       /* dropped: an_idle_bound's */
    int placement;          /* dropped: follows the CPUs the processes shared */
    an_place_verdict place; /* ... its figures (placement.c) */
    int speed;              /* dropped: the processes' speed (speed.c) */
    an_speed_verdict spd;   /* ... its figures */
    int pace;               /* dropped: the CPUs' measured pace (pace.c) */
    an_pace_verdict pc;     /* ... its figures */
    size_t k;
    int *lab; /* by local process */
    size_t slow;
} pa_found;

typedef struct pa {
    const aa_pcomm *cm;
    const aa_analyze_options *o;
    aa_err *err;
    an_ctx dc;      /* for the serial kernels: err (and a, for notes) only */
    aa_analysis *a;
    const aa_psource *src;
    /* the block of local processes loaded: [b0, b0 + bn), their experiments,
     * processes and node maps (thread-major, node -> index in x->t) */
    size_t b0, bn;
    const aa_experiment *const *le;
    const aa_process *const *lp;
    size_t L, P, off;
    /* region tree */
    an_rtree t;
    size_t R;
    long *t2r;
    size_t *cstart, *clist, *send;
    unsigned char *rkind; /* by region: RK_* */
    long **map;        /* by process of the block */
    size_t mapn;       /* maps allocated */
    int *rk;           /* by local process: its rank */
    size_t skip;       /* 1: the source's first process (rank 0, a master) is left out */
    unsigned char *keep; /* by tree node: run by an analysed process (NULL: all) */
    /* L x R each */
    unsigned char *ran;
    double *M[M_N];
    int usable[M_N];   /* in some process's experiment and measured by it */
    int have[M_N];     /* usable, with some finite value anywhere */
    double *MM, *SW;
    double *SWmpi; /* the MPI calls' CPU time in SW where judged on CPU time, else NULL */
    double *blocked; /* L x R: the self blocked time (main_metric_blocked), or NULL */
    double *MMraw; /* MM before the speeds were taken out (the noise model's), or NULL */
    double *wpwt, *dwpwt;
    double *idle_mpi; /* by local process: an_ctx's (an_idle_mpi), NULL without mpi_wall */
    unsigned char *whole;
    size_t npreempted; /* over every rank (self_wall) */
    double *run_delay; /* by local process: the scheduler's run delay (s), NAN unknown */
    double *pace;      /* by local process: measured (1/0), log pace, its standard error
                          (pace.c an_pace_of) */
    uint64_t *place_key; /* by local process: its host and CPU (placement.c), 0 unknown */
    /* L x R: the CPU time MPI calls need at most on a dedicated node (calls x
     * mpi_call_cpu + bytes sent and received / mpi_copy_rate; disparity.c's
     * judge_on_cpu), inclusive; have_cap: all three metrics measured */
    double *cap;
    int have_cap;
    size_t *dobj, ndobj;
    int cpi_ok;
    double *pre, *range, wmed, mmed, run_med; /* run_med: an_ctx's */
    an_clust cp;
    int fixed_eps;
    pa_found *found;
    size_t nfound;
    double **dcol;     /* by found: L x na_local attribute values at its region */
    size_t na_local;
} pa;

static int pa_nomem(pa *x)
{
    return aa_err_set(x->err, AA_EENV, "analyze: out of memory");
}

static int pa_comm(pa *x, int rc)
{
    return rc ? aa_err_set(x->err, AA_EENV, "analyze: a collective operation failed") : AA_OK;
}

static int pa_sum(pa *x, double *v, size_t n)
{
    return n ? pa_comm(x, x->cm->sum(x->cm->ctx, v, n)) : AA_OK;
}

static int pa_max(pa *x, double *v, size_t n)
{
    return n ? pa_comm(x, x->cm->max(x->cm->ctx, v, n)) : AA_OK;
}

/* What the phases ask of a region's static details, the same on every
 * rank (x->rkind: agreed by region_kinds): the rank files of a run need
 * not all list every region. */
enum { RK_KNOWN = 1, RK_FUNCTION = 2, RK_SETUP = 4, RK_CALL = 8 };

static int r_known(const pa *x, size_t r)
{
    return x->rkind[r] & RK_KNOWN;
}

static int r_function(const pa *x, size_t r)
{
    return (x->rkind[r] & RK_FUNCTION) != 0;
}

static int r_setup(const pa *x, size_t r)
{
    return (x->rkind[r] & RK_SETUP) != 0;
}

/* ---- binomial tree reduction of byte blobs -------------------------------------- */
typedef int (*pa_mergefn)(pa *x, void **acc, size_t *nacc, const void *in, size_t nin, void *arg);

/* Every rank's blob merged (merge(acc, in)) up a binomial tree to rank 0,
 * then broadcast: *blob is the result on every rank. */
static int pa_reduce(pa *x, void **blob, size_t *n, pa_mergefn merge, void *arg)
{
    const aa_pcomm *cm = x->cm;
    int step, rc = AA_OK;
    for (step = 1; step < cm->size; step <<= 1) {
        if (cm->rank & step) {
            rc = pa_comm(x, cm->send(cm->ctx, cm->rank - step, *blob, *n));
            break;
        }
        if (cm->rank + step < cm->size) {
            void *in = NULL;
            size_t nin = 0;
            if ((rc = pa_comm(x, cm->recv(cm->ctx, cm->rank + step, &in, &nin))))
                break;
            rc = merge(x, blob, n, in, nin, arg);
            free(in);
            if (rc)
                break;
        }
    }
    if (rc)
        return rc;
    if (cm->size > 1) {
        if (cm->rank != 0) {
            free(*blob);
            *blob = NULL;
            *n = 0;
        }
        rc = pa_comm(x, cm->bcast(cm->ctx, blob, n));
    }
    return rc;
}

static int tree_merge(pa *x, void **acc, size_t *nacc, const void *in, size_t nin, void *arg)
{
    an_rtree t;
    int rc;
    (void)arg;
    memset(&t, 0, sizeof t);
    rc = pt_merge(&t, *acc, *nacc / sizeof(pa_wnode), NULL) ||
         pt_merge(&t, in, nin / sizeof(pa_wnode), NULL);
    if (!rc) {
        pa_wnode *w = pt_wire(&t);
        if (!w)
            rc = 1;
        else {
            free(*acc);
            *acc = w;
            *nacc = t.n * sizeof *w;
        }
    }
    an_rtree_free(&t);
    return rc ? pa_nomem(x) : AA_OK;
}

/* The processes of the block from local index b0 loaded (x->le, x->lp,
 * x->bn) and their nodes mapped into tree t (x->map). */
static int load_block(pa *x, size_t b0, an_rtree *t)
{
    size_t q, th, n;
    int rc;
    for (q = 0; q < x->mapn; q++)
        free(x->map[q]);
    x->mapn = 0;
    x->b0 = b0;
    if ((rc = x->src->load(x->src->ctx, b0 + x->skip, &x->bn, &x->le, &x->lp, x->err)))
        return rc;
    if (x->bn == 0 || x->bn > x->L - b0)
        return aa_err_set(x->err, AA_EENV, "analyze: the process source gave %zu processes at "
                          "%zu of %zu", x->bn, b0, x->L);
    free(x->map);
    if (!(x->map = calloc(x->bn + 1, sizeof *x->map)))
        return pa_nomem(x);
    for (q = 0; q < x->bn; q++) {
        const aa_process *pr = x->lp[q];
        for (th = 0, n = 0; th < pr->nthreads; th++)
            n += pr->threads[th].nnodes;
        if (!(x->map[q] = malloc((n ? n : 1) * sizeof **x->map)))
            return pa_nomem(x);
        x->mapn = q + 1;
        if ((rc = an_rtree_map(t, pr, x->map[q], x->err)))
            return rc;
    }
    return AA_OK;
}

/* The processes of the block from b0 mapped into the region tree x->t
 * (every node is in it: a source that gives other processes than in the
 * first pass is an error). */
static int load_mapped(pa *x, size_t b0)
{
    size_t n = x->t.n;
    int rc = load_block(x, b0, &x->t);
    if (!rc && x->t.n != n)
        rc = aa_err_set(x->err, AA_EENV, "analyze: the process source changed between passes");
    return rc;
}

/* Local process q loaded and mapped, a pass over the processes starting at
 * q == 0. */
static int at_process(pa *x, size_t q)
{
    return q == 0 || q >= x->b0 + x->bn ? load_mapped(x, q) : AA_OK;
}

/* The local processes' nodes into a local tree (a block at a time), merged
 * over the ranks into x->t; x->rk: the local processes' ranks. */
static int build_tree(pa *x)
{
    an_rtree lt;
    size_t q, nb;
    void *blob = NULL;
    int rc = AA_OK;
    memset(&lt, 0, sizeof lt);
    if (!(x->rk = malloc((x->L + 1) * sizeof *x->rk)) ||
        an_rtree_child(&lt, -1, AA_REGION_ROOT) != 0)
        goto oom;
    for (q = 0; q < x->L; q += x->bn) {
        size_t i;
        if ((rc = load_block(x, q, &lt)))
            goto out;
        for (i = 0; i < x->bn; i++)
            x->rk[q + i] = x->lp[i]->rank;
    }
    if (!(blob = pt_wire(&lt)))
        goto oom;
    nb = lt.n * sizeof(pa_wnode);
    if ((rc = pa_reduce(x, &blob, &nb, tree_merge, NULL)))
        goto out;
    if (pt_merge(&x->t, blob, nb / sizeof(pa_wnode), NULL))
        goto oom;
    goto out;
oom:
    rc = pa_nomem(x);
out:
    free(blob);
    an_rtree_free(&lt);
    return rc;
}

static const uint32_t *sort_ids;
static int cmp_node_id(const void *a, const void *b)
{
    size_t u = *(const size_t *)a, v = *(const size_t *)b;
    return sort_ids[u] < sort_ids[v] ? -1 : sort_ids[u] > sort_ids[v];
}

/* Regions: the tree's nodes (those kept: x->keep) depth-first, children by
 * id (tree.c's order). */
static int build_regions(pa *x)
{
    size_t n = x->t.n, i, k, sp = 0, *cc = calloc(n + 1, sizeof *cc);
    size_t *cst = calloc(n + 1, sizeof *cst), *cl = malloc(n * sizeof *cl);
    size_t *stack = malloc((n + 1) * sizeof *stack);
    aa_analysis *a = x->a;
    int rc = AA_OK;
    x->t2r = malloc(n * sizeof *x->t2r);
    a->regions = calloc(n, sizeof *a->regions);
    x->cstart = calloc(n + 1, sizeof *x->cstart);
    x->clist = malloc(n * sizeof *x->clist);
    x->send = malloc((n + 1) * sizeof *x->send);
    if (!cc || !cst || !cl || !stack || !x->t2r || !a->regions || !x->cstart || !x->clist ||
        !x->send) {
        rc = pa_nomem(x);
        goto out;
    }
    for (i = 1; i < n; i++)
        if (!x->keep || x->keep[i])
            cc[x->t.par[i]]++;
    for (i = 0; i < n; i++) {
        cst[i + 1] = cst[i] + cc[i];
        x->t2r[i] = -1;
    }
    memset(cc, 0, (n + 1) * sizeof *cc);
    for (i = 1; i < n; i++)
        if (!x->keep || x->keep[i])
            cl[cst[x->t.par[i]] + cc[x->t.par[i]]++] = i;
    sort_ids = x->t.id;
    for (i = 0; i < n; i++)
        qsort(cl + cst[i], cst[i + 1] - cst[i], sizeof *cl, cmp_node_id);
    stack[sp++] = 0;
    x->R = 0;
    while (sp) {
        size_t t = stack[--sp], r = x->R++;
        aa_an_region *ar = &a->regions[r];
        x->t2r[t] = (long)r;
        ar->index = r + 1;
        ar->id = x->t.id[t];
        ar->parent = t == 0 ? -1 : x->t2r[x->t.par[t]];
        ar->depth = t == 0 ? 0 : a->regions[ar->parent].depth + 1;
        ar->info = aa_experiment_region(a->exp, ar->id);
        for (k = cst[t + 1]; k > cst[t]; k--)
            stack[sp++] = cl[k - 1];
    }
    a->nregions = x->R;
    /* children lists by region, subtree ends */
    memset(cc, 0, (n + 1) * sizeof *cc);
    for (i = 1; i < x->R; i++)
        x->cstart[a->regions[i].parent + 1]++;
    for (i = 0; i < x->R; i++)
        x->cstart[i + 1] += x->cstart[i];
    for (i = 1; i < x->R; i++) {
        size_t pp = (size_t)a->regions[i].parent;
        x->clist[x->cstart[pp] + cc[pp]++] = i;
    }
    for (i = x->R; i-- > 0;)
        x->send[i] = i + 1;
    for (i = x->R; i-- > 1;)
        if (x->send[i] > x->send[a->regions[i].parent])
            x->send[a->regions[i].parent] = x->send[i];
out:
    free(cc);
    free(cst);
    free(cl);
    free(stack);
    return rc;
}

/* x->rkind: every rank's view of the regions' details, or-ed. */
static int region_kinds(pa *x)
{
    size_t R = x->R, r, k;
    double *f = calloc(4 * R + 1, sizeof *f);
    int rc;
    if (!f || !(x->rkind = calloc(R + 1, 1))) {
        free(f);
        return pa_nomem(x);
    }
    for (r = 0; r < R; r++) {
        const aa_region *ri = x->a->regions[r].info;
        f[r] = ri != NULL;
        f[R + r] = ri && ri->kind == AA_KIND_FUNCTION;
        f[2 * R + r] = an_is_mpi_setup(ri);
        f[3 * R + r] = ri && ri->kind == AA_KIND_CALL;
    }
    if (!(rc = pa_max(x, f, 4 * R)))
        for (r = 0; r < R; r++)
            for (k = 0; k < 4; k++)
                if (f[k * R + r] > 0)
                    x->rkind[r] |= (unsigned char)(1u << k);
    free(f);
    return rc;
}

static size_t nchildren(const pa *x, size_t r)
{
    return x->cstart[r + 1] - x->cstart[r];
}

/* ---- values ------------------------------------------------------------------------ */
/* Metric `name` of local process q by region (an_gather's rules: summed over
 * threads, 0 where not run, NaN where run with no finite value); the
 * number of finite values. */
static size_t gather_row(pa *x, size_t q, const char *name, double *row, unsigned char *anyfin)
{
    const aa_experiment *e = x->le[q - x->b0];
    const aa_process *pr = x->lp[q - x->b0];
    int mi = aa_experiment_metric_index(e, name);
    size_t th, i, o = 0, fin = 0, R = x->R;
    memset(row, 0, R * sizeof *row);
    if (mi < 0)
        return 0;
    memset(anyfin, 0, R);
    for (th = 0; th < pr->nthreads; th++) {
        const aa_thread *tt = &pr->threads[th];
        const double *v = tt->values + mi;
        for (i = 0; i < tt->nnodes; i++, v += e->nmetrics) {
            long r = x->t2r[x->map[q - x->b0][o + i]];
            if (an_node_folded(tt, x->map[q - x->b0] + o, i))
                continue;
            if (!isnan(*v)) {
                row[r] += *v;
                anyfin[r] = 1;
                fin++;
            }
        }
        o += tt->nnodes;
    }
    for (i = 0; i < R; i++)
        if (x->ran[q * R + i] && !anyfin[i])
            row[i] = NAN;
    return fin;
}

/* Metric `name` is in local process q's experiment and measured by it
 * (an_metric_usable's test, per process). */
static int usable_here(const pa *x, size_t q, const char *name)
{
    return aa_experiment_metric_index(x->le[q - x->b0], name) >= 0 &&
           !aa_process_metric_unavailable(x->lp[q - x->b0], name);
}

/* Who ran what, every metric the phases use, and which are usable. */
static int gather_values(pa *x)
{
    size_t L = x->L, R = x->R, q, th, i, m;
    unsigned char *anyfin = malloc(R + 1);
    double use[2 * M_N], capuse[6] = {0, 0, 0, 0, 0, 0}, *runs = calloc(R + 1, sizeof *runs);
    double *tmp = NULL, *calls = calloc(2 * R + 1, sizeof *calls);
    int rc = AA_OK;
    x->ran = calloc(L * R + 1, 1);
    x->run_delay = malloc((L + 1) * sizeof *x->run_delay);
    x->pace = malloc((3 * L + 1) * sizeof *x->pace);
    x->place_key = malloc((L + 1) * sizeof *x->place_key);
    x->cap = malloc((L * R + 1) * sizeof *x->cap);
    tmp = malloc((3 * R + 1) * sizeof *tmp);
    for (m = 0; m < M_N; m++)
        x->M[m] = malloc((L * R + 1) * sizeof *x->M[m]);
    for (m = 0; m < M_N && x->M[m]; m++)
        ;
    if (!anyfin || !runs || !x->ran || !x->run_delay || !x->pace || !x->place_key || !x->cap || !tmp ||
        !calls || m < M_N) {
        rc = pa_nomem(x);
        goto out;
    }
    memset(use, 0, sizeof use);
    for (q = 0; q < L; q++) {
        const aa_process *pr;
        size_t o = 0;
        if ((rc = at_process(x, q)))
            goto out;
        pr = x->lp[q - x->b0];
        x->run_delay[q] = aa_process_run_delay(pr);
        x->pace[3 * q] = an_pace_of(pr, &x->pace[3 * q + 1], &x->pace[3 * q + 2]);
        x->place_key[q] = an_place_key(pr, x->o->placement_min_share);
        for (th = 0; th < pr->nthreads; th++) {
            for (i = 0; i < pr->threads[th].nnodes; i++)
                x->ran[q * R + x->t2r[x->map[q - x->b0][o + i]]] = 1;
            o += pr->threads[th].nnodes;
        }
        for (i = 0; i < R; i++)
            runs[i] += x->ran[q * R + i];
        for (m = 0; m < M_N; m++) {
            if (usable_here(x, q, pa_metric[m]))
                use[m] = 1;
            use[M_N + m] += (double)gather_row(x, q, pa_metric[m], x->M[m] + q * R, anyfin);
        }
        for (m = 0; m < 3; m++) {
            if (usable_here(x, q, cap_metric[m]))
                capuse[m] = 1;
            capuse[3 + m] += (double)gather_row(x, q, cap_metric[m], tmp + m * R, anyfin);
        }
        for (i = 0; i < R; i++) {
            x->cap[q * R + i] = tmp[i] * x->o->mpi_call_cpu_s +
                                (tmp[R + i] + tmp[2 * R + i]) / x->o->mpi_copy_rate;
            if (x->ran[q * R + i] && isfinite(tmp[i])) {
                calls[i] += tmp[i];
                calls[R + i] += 1;
            }
        }
    }
    if ((rc = pa_max(x, use, M_N)) || (rc = pa_sum(x, use + M_N, M_N)) ||
        (rc = pa_max(x, capuse, 3)) || (rc = pa_sum(x, capuse + 3, 3)) ||
        (rc = pa_sum(x, runs, R)) || (rc = pa_sum(x, calls, 2 * R)))
        goto out;
    /* metrics.c's region_means of mpi_calls (x->dc.callm; main_metric keeps
     * it when the time inside MPI is subtracted) */
    if (capuse[0] > 0 && capuse[3] > 0) {
        for (i = 0; i < R; i++)
            calls[i] = calls[R + i] > 0 ? calls[i] / calls[R + i] : 0;
        x->dc.callm = calls;
        calls = NULL;
    }
    x->have_cap = 1;
    for (m = 0; m < 3; m++)
        x->have_cap &= capuse[m] > 0 && capuse[3 + m] > 0;
    for (m = 0; m < M_N; m++) {
        x->usable[m] = use[m] > 0;
        x->have[m] = use[m] > 0 && use[M_N + m] > 0;
    }
    for (i = 0; i < R; i++)
        x->a->regions[i].nprocs_run = (size_t)runs[i];
out:
    free(anyfin);
    free(runs);
    free(tmp);
    free(calls);
    return rc;
}

/* Self values (an_self_values) of the nrow x R values M into S. */
static void self_values(const pa *x, const double *M, double *S, size_t nrow)
{
    size_t q, r, i, R = x->R;
    for (q = 0; q < nrow; q++)
        for (r = 0; r < R; r++) {
            double v = M[q * R + r];
            v = isnan(v) ? 0 : v;
            for (i = x->cstart[r]; i < x->cstart[r + 1]; i++) {
                double w = M[q * R + x->clist[i]];
                v -= isnan(w) ? 0 : w;
            }
            S[q * R + r] = v > 0 ? v : 0;
        }
}

/* ---- exact distributed order statistics ------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static double bitsd(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* For every column c < nc, the k[2c] and k[2c+1]-th smallest (0-based) of
 * the values v[q * stride + col[c]] over every rank's q where use (may be
 * NULL) allows; values >= 0 (+0, finite or infinite).  A column with
 * fewer values gets 0.  The order of non-negative doubles is the order of
 * their bit patterns, so a search on the patterns finds them exactly: each
 * step splits the interval left into PA_SPLIT parts and reduces the counts
 * of the values up to each part's top (one reduction per step, 16 steps). */
#define PA_SPLIT 16
static int pa_kth(pa *x, const double *v, const unsigned char *use, size_t stride,
                  const size_t *col, size_t nc, const double *k, double *out)
{
    size_t L = x->L, c, q, j, step;
    uint64_t *s = malloc((L * nc + 1) * sizeof *s), *lo = malloc((2 * nc + 1) * sizeof *lo);
    uint64_t *hi = malloc((2 * nc + 1) * sizeof *hi);
    size_t *ns = calloc(nc + 1, sizeof *ns);
    double *cnt = malloc((2 * nc * PA_SPLIT + 1) * sizeof *cnt);
    int rc = AA_OK;
    if (!s || !lo || !hi || !ns || !cnt) {
        rc = pa_nomem(x);
        goto out;
    }
    for (c = 0; c < nc; c++) {
        uint64_t *sc = s + c * L;
        for (q = 0; q < L; q++)
            if (!use || use[q * stride + col[c]])
                sc[ns[c]++] = dbits(v[q * stride + col[c]]);
        qsort(sc, ns[c], sizeof *sc, cmp_u64);
    }
    for (j = 0; j < 2 * nc; j++) {
        lo[j] = 0;
        hi[j] = 0x7ff0000000000000ULL;
    }
    for (step = 0; step < 20; step++) { /* 16 steps of 4 bits cover the 63 */
        int open = 0;
        for (j = 0; j < 2 * nc; j++) {
            const uint64_t *sc = s + (j / 2) * L;
            uint64_t w = (hi[j] - lo[j]) / PA_SPLIT + 1; /* part width */
            size_t b, a = 0;
            for (b = 0; b < PA_SPLIT; b++) {
                /* values <= the top of part b */
                uint64_t top = b + 1 == PA_SPLIT || lo[j] + (b + 1) * w - 1 > hi[j]
                                   ? hi[j] : lo[j] + (b + 1) * w - 1;
                size_t e = ns[j / 2];
                while (a < e) {
                    size_t m = a + (e - a) / 2;
                    if (sc[m] <= top)
                        a = m + 1;
                    else
                        e = m;
                }
                cnt[j * PA_SPLIT + b] = (double)a;
            }
            open |= lo[j] < hi[j];
        }
        if (!open)
            break;
        if ((rc = pa_sum(x, cnt, 2 * nc * PA_SPLIT)))
            goto out;
        for (j = 0; j < 2 * nc; j++) {
            uint64_t w = (hi[j] - lo[j]) / PA_SPLIT + 1;
            size_t b;
            if (lo[j] >= hi[j])
                continue;
            for (b = 0; b + 1 < PA_SPLIT && cnt[j * PA_SPLIT + b] < k[j] + 1; b++)
                ;
            {
                uint64_t nlo = lo[j] + b * w, top = lo[j] + (b + 1) * w - 1;
                if (b + 1 < PA_SPLIT && top < hi[j])
                    hi[j] = top;
                lo[j] = nlo;
            }
        }
    }
    for (j = 0; j < 2 * nc; j++)
        out[j] = k[j] < 0 ? 0 : bitsd(lo[j]);
out:
    free(s);
    free(lo);
    free(hi);
    free(ns);
    free(cnt);
    return rc;
}

/* Medians (as noise.c's: the mean of the two middle values for an even
 * count; 0 for none) of the columns col[0..nc) of v over every rank's
 * values allowed by use. */
static int pa_medians(pa *x, const double *v, const unsigned char *use, size_t stride,
                      const size_t *col, size_t nc, double *med)
{
    size_t L = x->L, c, q;
    double *n = calloc(nc + 1, sizeof *n), *k = calloc(2 * nc + 1, sizeof *k);
    double *o = calloc(2 * nc + 1, sizeof *o);
    int rc;
    if (!n || !k || !o) {
        free(n), free(k), free(o);
        return pa_nomem(x);
    }
    for (c = 0; c < nc; c++)
        for (q = 0; q < L; q++)
            n[c] += !use || use[q * stride + col[c]];
    if (!(rc = pa_sum(x, n, nc))) {
        for (c = 0; c < nc; c++) {
            size_t cn = (size_t)n[c];
            k[2 * c] = cn ? (double)(cn % 2 ? cn / 2 : cn / 2 - 1) : -1;
            k[2 * c + 1] = cn ? (double)(cn / 2) : -1;
        }
        rc = pa_kth(x, v, use, stride, col, nc, k, o);
    }
    for (c = 0; c < nc && !rc; c++)
        med[c] = k[2 * c] < 0 ? 0 : k[2 * c] == k[2 * c + 1] ? o[2 * c] : 0.5 * (o[2 * c] + o[2 * c + 1]);
    free(n), free(k), free(o);
    return rc;
}

/* The median of the positive finite v[q * stride] (metrics.c's
 * median_positive). */
static int median_positive(pa *x, const double *v, size_t stride, double *med)
{
    unsigned char *use = malloc(x->L + 1);
    double *w = malloc((x->L + 1) * sizeof *w);
    size_t q, zero = 0;
    int rc;
    if (!use || !w) {
        free(use), free(w);
        return pa_nomem(x);
    }
    for (q = 0; q < x->L; q++) {
        double y = v[q * stride];
        use[q] = y > 0 && isfinite(y);
        w[q] = use[q] ? y : 0;
    }
    rc = pa_medians(x, w, use, 1, &zero, 1, med);
    free(use), free(w);
    return rc;
}

/* ---- metrics (metrics.c) -------------------------------------------------------------- */
static int wall_wpwt(pa *x)
{
    size_t q, i, R = x->R;
    double zero = 0;
    const double *W = x->M[M_WALL];
    if (!x->have[M_WALL])
        return aa_err_set(x->err, AA_EINPUT, "experiment has no wall time values (metric "
                                             "'wall'); nothing to analyse");
    if (!(x->wpwt = calloc(x->L + 1, sizeof *x->wpwt)))
        return pa_nomem(x);
    for (q = 0; q < x->L; q++) {
        double w = W[q * R];
        if (!x->ran[q * R] || isnan(w)) {
            w = 0;
            for (i = x->cstart[0]; i < x->cstart[1]; i++) {
                double v = W[q * R + x->clist[i]];
                w += isnan(v) ? 0 : v;
            }
        }
        x->wpwt[q] = w;
        zero += !(w > 0);
    }
    if (pa_sum(x, &zero, 1))
        return x->err->code;
    if (zero)
        return an_note(&x->dc, "zero-length run: whole-program wall time is 0 on %zu "
                       "process%s; their region fractions count as 0",
                       (size_t)zero, zero == 1 ? "" : "es");
    return AA_OK;
}

/* metrics.c's whole_chain over the ranks: the chain grows on the mean
 * shares reduced over all processes. */
static int whole_chain(pa *x)
{
    size_t L = x->L, R = x->R, q, r, i;
    const double *W = x->M[M_WALL], *T = x->M[M_MPIW];
    int have_mpi = x->have[M_MPIW], changed = 1;
    double *raw = malloc((L + 1) * sizeof *raw), *sub = calloc(L + 1, sizeof *sub);
    double *fs = malloc((R + 1) * sizeof *fs), tot[3];
    aa_analysis *a = x->a;
    int rc = AA_OK;
    x->whole = calloc(R + 1, 1);
    if (!raw || !sub || !fs || !x->whole) {
        rc = pa_nomem(x);
        goto out;
    }
    memcpy(raw, x->wpwt, L * sizeof *raw);
    if ((rc = median_positive(x, raw, 1, &x->run_med)))
        goto out;
    x->whole[0] = 1;
    while (changed) {
        memset(sub, 0, L * sizeof *sub);
        for (r = 0; r < R && have_mpi; r++) {
            if (!x->whole[r] || (r > 0 && !r_function(x, r)))
                continue;
            for (q = 0; q < L; q++) {
                double ex = T[q * R + r];
                if (isnan(ex))
                    continue;
                for (i = x->cstart[r]; i < x->cstart[r + 1]; i++) {
                    double v = T[q * R + x->clist[i]];
                    ex -= isnan(v) ? 0 : v;
                }
                if (ex > 0)
                    sub[q] += ex;
            }
        }
        for (q = 0; q < L; q++) {
            double w = raw[q] - sub[q];
            x->wpwt[q] = w > 0 ? w : raw[q];
        }
        memset(fs, 0, R * sizeof *fs);
        for (r = 1; r < R; r++) {
            if (x->whole[r] || !x->whole[a->regions[r].parent] ||
                (a->regions[r].parent != 0 && (!r_known(x, r) || r_function(x, r))))
                continue;
            for (q = 0; q < L; q++) {
                double w = W[q * R + r];
                fs[r] += (x->wpwt[q] > 0 && !isnan(w)) ? w / x->wpwt[q] : 0;
            }
        }
        if ((rc = pa_sum(x, fs, R)))
            goto out;
        changed = 0;
        for (r = 1; r < R; r++)
            if (fs[r] > 0 && fs[r] / (double)x->P >= 0.95 && !x->whole[r]) {
                x->whole[r] = 1;
                changed = 1;
            }
    }
    if (have_mpi && !(x->idle_mpi = an_idle_mpi(T, sub, L, R))) {
        rc = pa_nomem(x);
        goto out;
    }
    memset(tot, 0, sizeof tot);
    for (q = 0; q < L; q++) {
        tot[0] += sub[q] > 0 && x->wpwt[q] < raw[q];
        tot[1] += raw[q] - x->wpwt[q];
        tot[2] += raw[q];
    }
    if ((rc = pa_sum(x, tot, 3)))
        goto out;
    if (tot[0] > 0)
        rc = an_note(&x->dc, "MPI time outside every region but the whole program (MPI_Init, "
                     "MPI_Finalize, ...) is left out of the whole-program time: %.3g s "
                     "of %.3g s on average", tot[1] / (double)x->P, tot[2] / (double)x->P);
out:
    free(raw);
    free(sub);
    free(fs);
    return rc;
}

/* metrics.c's subtract_io: time inside I/O calls left out of MM */
static void main_metric_io(pa *x, int use_cpu)
{
    size_t i, n = x->L * x->R;
    int io = use_cpu ? M_IOC : M_IO;
    const double *S = x->M[io];
    if (!x->have[io] || !(x->o->io_out > 0))
        return;
    for (i = 0; i < n; i++) {
        double v = x->MM[i] - (isnan(S[i]) ? 0 : S[i]);
        x->MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
    }
    x->a->proc_metric_io = 1;
}

/* metrics.c's add_io_work: each local process's I/O calls in a region's
 * own code at the region's cost a call over the job (sums reduced), put
 * back into MM over each region's subtree */
static int main_metric_io_work(pa *x)
{
    size_t L = x->L, R = x->R, q;
    double *sio, *scall, *rate, *pre;
    int rc = AA_OK;
    if (!(x->o->io_work > 0) || !x->a->proc_metric_io || !x->have[M_IO] || !x->have[M_IOCALLS])
        return AA_OK;
    sio = malloc((L * R + 1) * sizeof *sio);
    scall = malloc((L * R + 1) * sizeof *scall);
    rate = calloc(2 * R + 1, sizeof *rate);
    pre = malloc((R + 1) * sizeof *pre);
    if (!sio || !scall || !rate || !pre) {
        rc = pa_nomem(x);
        goto out;
    }
    self_values(x, x->M[M_IO], sio, L);
    self_values(x, x->M[M_IOCALLS], scall, L);
    an_io_work_sums(sio, scall, L, R, rate);
    if ((rc = pa_sum(x, rate, 2 * R)))
        goto out;
    an_io_work_rates(rate, R);
    for (q = 0; q < L; q++)
        an_add_over_subtrees(scall + q * R, rate, x->send, x->ran + q * R, R, pre, x->MM + q * R);
    x->a->io_call_cost = rate; /* its first R entries */
    rate = NULL;
out:
    free(sio);
    free(scall);
    free(rate);
    free(pre);
    return rc;
}

/* metrics.c's add_blocked: each local process's blocked time outside the
 * calls beyond its run delay, put back into MM over each region's subtree
 * and kept by region (x->blocked; all local: a process's own values and
 * run delay) */
static int main_metric_blocked(pa *x)
{
    static const int mk[6] = {M_WALL, M_MPIW, M_IO, M_CPU, M_MPIC, M_IOC};
    size_t L = x->L, R = x->R, q, r, k;
    double *S[6] = {NULL}, *b = malloc((R + 1) * sizeof *b), *pre = malloc((R + 1) * sizeof *pre);
    int rc = AA_OK, any = 0;
    for (k = 0; k < 6; k++)
        S[k] = calloc(R + 1, sizeof *S[k]);
    x->blocked = calloc(L * R + 1, sizeof *x->blocked);
    if (!b || !pre || !x->blocked || !S[0] || !S[1] || !S[2] || !S[3] || !S[4] || !S[5]) {
        rc = pa_nomem(x);
        goto out;
    }
    for (q = 0; q < L; q++) {
        double cpu = 0;
        for (k = 0; k < 6; k++) {
            if (!x->have[mk[k]]) {
                memset(S[k], 0, R * sizeof *S[k]);
                continue;
            }
            self_values(x, x->M[mk[k]] + q * R, S[k], 1);
        }
        for (r = 0; r < R; r++)
            cpu += S[3][r];
        if (!(x->run_delay[q] >= 0) || !(cpu > 0))
            continue;
        aa_blocked_row(S[0], S[1], S[2], S[3], S[4], S[5], R, x->run_delay[q], b);
        for (r = 0; r < R; r++)
            if (r_setup(x, r))
                b[r] = 0;
        an_add_over_subtrees(b, NULL, x->send, x->ran + q * R, R, pre, x->MM + q * R);
        memcpy(x->blocked + q * R, b, R * sizeof *b);
        any = 1;
    }
    {
        double u = any;
        if ((rc = pa_max(x, &u, 1)))
            goto out;
        x->a->proc_metric_blocked = u > 0;
        any = u > 0;
    }
out:
    if (rc || !any) {
        free(x->blocked);
        x->blocked = NULL;
    }
    for (k = 0; k < 6; k++)
        free(S[k]);
    free(b), free(pre);
    return rc;
}

/* metrics.c's cpu_fix_means: the mean cpu_fix of each region over the
 * processes that ran it, summed over the job (x->dc.fixm) */
static int cpu_fix_means(pa *x)
{
    size_t q, r, L = x->L, R = x->R;
    double *acc;
    int rc;
    if (!x->have[M_FIX])
        return AA_OK;
    if (!(acc = calloc(2 * R + 1, sizeof *acc)))
        return pa_nomem(x);
    for (q = 0; q < L; q++)
        for (r = 0; r < R; r++) {
            double v = x->M[M_FIX][q * R + r];
            if (x->ran[q * R + r] && isfinite(v)) {
                acc[r] += v;
                acc[R + r] += 1;
            }
        }
    if (!(rc = pa_sum(x, acc, 2 * R))) {
        for (r = 0; r < R; r++)
            acc[r] = acc[R + r] > 0 ? acc[r] / acc[R + r] : 0;
        x->dc.fixm = acc;
        return AA_OK;
    }
    free(acc);
    return rc;
}

/* metrics.c's an_main_metric */
static int speeds_local(pa *x, const double *S, double **sp, size_t *k);
static int gather_rows(pa *x, const void *v, size_t w, void **all);

/* metrics.c's speed_begin: the local processes' factors (all 1 on every
 * rank: *f NULL) and their CPU part of MM (c0) */
static int speed_begin(pa *x, double **c0, double **f)
{
    size_t L = x->L, R = x->R, q, k = 0;
    double *S = NULL, *sp = NULL, ext[3] = {-INFINITY, -INFINITY, 0};
    int rc;
    *c0 = *f = NULL;
    if (!(x->o->speed_normalize > 0) || x->P < 2)
        return AA_OK;
    if (!(S = malloc((L * R + 1) * sizeof *S)) || !(*f = malloc((L + 1) * sizeof **f))) {
        free(S);
        return pa_nomem(x);
    }
    self_values(x, x->MM, S, L);
    if ((rc = median_positive(x, x->MM, R, &x->mmed)) || (rc = speeds_local(x, S, &sp, &k)))
        goto out;
    for (q = 0; q < L; q++) {
        (*f)[q] = sp ? an_speed_factor(sp[q], k, x->o->speed_max) : 1;
        ext[0] = fmax(ext[0], -1 / (*f)[q]); /* minus the fastest pace */
        ext[1] = fmax(ext[1], 1 / (*f)[q]);
        ext[2] = fmax(ext[2], (*f)[q] != 1);
    }
    if ((rc = pa_max(x, ext, 3)))
        goto out;
    if (ext[2] > 0) {
        if (!(*c0 = malloc((L * R + 1) * sizeof **c0))) {
            rc = pa_nomem(x);
            goto out;
        }
        memcpy(*c0, x->MM, L * R * sizeof **c0);
        x->a->speed_lo = -ext[0];
        x->a->speed_hi = ext[1];
    }
out:
    free(S);
    free(sp);
    if (!*c0) {
        free(*f);
        *f = NULL;
    }
    return rc;
}

/* metrics.c's speed_end, the factors gathered (a->speed_factor) */
static int speed_end(pa *x, double *c0, double *f)
{
    size_t n = x->L * x->R;
    void *all = NULL;
    int rc = AA_OK;
    if (c0 && !(x->MMraw = malloc((n + 1) * sizeof *x->MMraw)))
        rc = pa_nomem(x);
    else if (c0 && !(rc = gather_rows(x, f, sizeof *f, &all))) {
        memcpy(x->MMraw, x->MM, n * sizeof *x->MMraw);
        an_speed_apply(x->MM, c0, f, x->L, x->R);
        x->a->speed_normalized = 1;
        x->a->speed_factor = all;
        rc = an_speed_normalized_note(&x->dc, x->a);
    }
    free(c0);
    free(f);
    return rc;
}

static int main_metric(pa *x)
{
    size_t i, n = x->L * x->R;
    int use_cpu = x->o->proc_metric == AA_PMETRIC_CPU && x->have[M_CPU];
    int sub = use_cpu ? M_MPIC : M_MPIW, rc;
    const double *S = x->M[sub];
    if (!(x->MM = malloc((n + 1) * sizeof *x->MM)))
        return pa_nomem(x);
    if (x->o->proc_metric == AA_PMETRIC_CPU && !use_cpu &&
        (rc = an_note(&x->dc, "CPU time unavailable: processes compared on wall time outside MPI")))
        return rc;
    x->a->proc_metric = use_cpu ? "cpu" : "wall";
    memcpy(x->MM, x->M[use_cpu ? M_CPU : M_WALL], n * sizeof *x->MM);
    if (x->have[sub]) {
        for (i = 0; i < n; i++) {
            double v = x->MM[i] - (isnan(S[i]) ? 0 : S[i]);
            x->MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
        }
        double *c0 = NULL, *f = NULL;
        main_metric_io(x, use_cpu);
        if (use_cpu && (rc = speed_begin(x, &c0, &f)))
            return rc;
        if ((rc = main_metric_io_work(x)) ||
            (use_cpu && x->o->blocked_work > 0 && x->have[M_WALL] && x->have[M_MPIW] &&
             (rc = main_metric_blocked(x)))) {
            free(c0), free(f);
            return rc;
        }
        if ((rc = speed_end(x, c0, f)))
            return rc;
        return use_cpu ? cpu_fix_means(x) : AA_OK;
    }
    for (i = 0; i < n; i++)
        if (isnan(x->MM[i]))
            x->MM[i] = 0;
    free(x->dc.callm); /* nothing left outside MPI calls to resolve */
    x->dc.callm = NULL;
    main_metric_io(x, use_cpu);
    if ((rc = main_metric_io_work(x)) || (use_cpu && (rc = cpu_fix_means(x))))
        return rc;
    return an_note(&x->dc, "%s unavailable: time inside MPI is not subtracted from the "
                   "process metric", pa_metric[sub]);
}

/* ---- disparity (disparity.c) ------------------------------------------------------------ */
/* Local process q's regions judged on CPU, I/O and blocked time, as disparity.c's
 * judge_on_cpu (buf: 4R scratch). */
static void judge_on_cpu(pa *x, size_t q, double *buf)
{
    size_t R = x->R, k = q * R, r;
    double *sc = buf, *smc = buf + R, *sio = buf + 2 * R, *scap = buf + 3 * R, sum = 0;
    int have_io = x->have[M_IO];
    self_values(x, x->M[M_CPU] + k, sc, 1);
    self_values(x, x->M[M_MPIC] + k, smc, 1);
    if (have_io)
        self_values(x, x->M[M_IO] + k, sio, 1);
    if (x->have_cap)
        self_values(x, x->cap + k, scap, 1);
    for (r = 0; r < R; r++) {
        x->SW[k + r] = an_judged_on_cpu(sc[r], smc[r], have_io ? sio[r] : 0,
                                        x->blocked ? x->blocked[k + r] : 0,
                                        x->have_cap ? scap[r] : NAN, r_setup(x, r), x->whole[r],
                                        &x->SWmpi[k + r]);
        sum += x->SW[k + r];
    }
    x->dwpwt[q] = sum;
}

/* an_self_wall, then disparity.c's judgement on CPU and I/O time of every
 * process once one was preempted (per process: no collective but the
 * count; the self values of the other metrics a process row at a time). */
static int self_wall(pa *x)
{
    size_t L = x->L, R = x->R, q, r, n = L * R;
    int have_mpi = x->have[M_MPIW];
    int judge = x->usable[M_CPU] && x->usable[M_MPIW] && x->usable[M_MPIC], have_io = x->have[M_IO];
    double *ms = malloc((4 * R + 1) * sizeof *ms), cnt[2] = {0, 0};
    int rc = AA_OK;
    x->SW = malloc((n + 1) * sizeof *x->SW);
    x->dwpwt = malloc((L + 1) * sizeof *x->dwpwt);
    if (!ms || !x->SW || !x->dwpwt)
        goto oom;
    self_values(x, x->M[M_WALL], x->SW, L);
    for (q = 0; q < L; q++) {
        self_values(x, x->M[M_MPIW] + q * R, ms, 1);
        for (r = 0; r < R; r++) {
            double *v = &x->SW[q * R + r];
            if (r_setup(x, r))
                *v = 0;
            else if (x->whole[r] && have_mpi)
                *v = fmax(0, *v - ms[r]);
        }
    }
    memcpy(x->dwpwt, x->wpwt, L * sizeof *x->dwpwt);
    for (q = 0; q < L && judge; q++) {
        size_t k = q * R;
        double u = 0;
        if (x->ran[k])
            u = aa_preempted_share(x->M[M_WALL][k],
                                   aa_busy_time(x->M[M_CPU][k], x->M[M_MPIW][k],
                                                x->M[M_MPIC][k], have_io ? x->M[M_IO][k] : NAN),
                                   x->run_delay[q]);
        if (u > x->o->preempted_share) {
            cnt[0]++;
            cnt[1] += u;
        }
    }
    if ((rc = pa_sum(x, cnt, 2)))
        goto out;
    /* every process once one is: the others' waits in MPI are for it */
    if (cnt[0] > 0 && !(x->SWmpi = malloc((n + 1) * sizeof *x->SWmpi)))
        goto oom;
    for (q = 0; q < L && cnt[0] > 0; q++)
        judge_on_cpu(x, q, ms);
    x->npreempted = (size_t)cnt[0];
    if (cnt[0] > 0)
        rc = an_note(&x->dc, "%zu of %zu processes were preempted (on average %.0f%% of their wall "
                     "time the machine ran other processes: neither CPU time nor waiting in "
                     "MPI or I/O, or runnable and waiting for a CPU): every process's "
                     "regions are judged on %s for hotspots, as wall time "
                     "and the waits in MPI for the processes not run were stretched by "
                     "the load", (size_t)cnt[0], x->P, 100 * cnt[1] / cnt[0],
                     x->blocked ? "CPU time, I/O time and time blocked outside the calls"
                                : "CPU and I/O time");
    goto out;
oom:
    rc = pa_nomem(x);
out:
    free(ms);
    return rc;
}

static double region_metric_of(const pa *x, size_t q, size_t r)
{
    size_t k = q * x->R + r;
    const double *C = x->M[M_CYC], *I = x->M[M_INS];
    double frac = (x->dwpwt[q] > 0 && !isnan(x->SW[k])) ? fmin(1, x->SW[k] / x->dwpwt[q]) : 0;
    double cpi = 0;
    if (x->cpi_ok && !isnan(C[k]) && !isnan(I[k]) && I[k] > 0)
        cpi = C[k] / I[k];
    return an_region_metric_value(x->a, frac, cpi);
}

static int disparity_classes(pa *x)
{
    const aa_analyze_options *o = x->o;
    aa_analysis *a = x->a;
    size_t q, r, i, ku, R = x->R;
    double centers[5];
    int *cls, rc;
    double *v;
    if ((rc = self_wall(x)))
        return rc;
    x->cpi_ok = x->have[M_CYC] && x->have[M_INS];
    a->region_metric = o->region_metric == AA_RMETRIC_CRNM ? "crnm"
                       : o->region_metric == AA_RMETRIC_CPI ? "cpi" : "wall";
    if (o->region_metric != AA_RMETRIC_WALL && !x->cpi_ok) {
        a->region_metric = "wall";
        if ((rc = an_note(&x->dc, "CPI unavailable (cycles or instructions not measured): "
                          "regions are ranked by their wall-time fraction instead of %s",
                          o->region_metric == AA_RMETRIC_CRNM ? "CRNM" : "CPI")))
            return rc;
    }
    a->severity = calloc(R + 1, sizeof *a->severity);
    a->region_value = calloc(R + 1, sizeof *a->region_value);
    x->dobj = malloc((R + 1) * sizeof *x->dobj);
    if (!a->severity || !a->region_value || !x->dobj)
        return pa_nomem(x);
    for (r = 0; r < R; r++)
        for (q = 0; q < x->L; q++)
            if (x->ran[q * R + r])
                a->region_value[r] += region_metric_of(x, q, r);
    if ((rc = pa_sum(x, a->region_value, R)))
        return rc;
    for (r = 0; r < R; r++)
        a->region_value[r] /= (double)x->P;
    for (r = 1; r < R; r++)
        if (!r_setup(x, r))
            x->dobj[x->ndobj++] = r;
    if (!x->ndobj)
        return AA_OK;
    cls = malloc(x->ndobj * sizeof *cls);
    v = malloc(x->ndobj * sizeof *v);
    if (!cls || !v) {
        free(cls), free(v);
        return pa_nomem(x);
    }
    for (i = 0; i < x->ndobj; i++)
        v[i] = a->region_value[x->dobj[i]];
    rc = an_severity_classes(&x->dc, v, x->ndobj, cls, centers, &ku, 0);
    for (i = 0; i < x->ndobj && !rc; i++)
        a->severity[x->dobj[i]] = cls[i];
    free(cls), free(v);
    return rc;
}

/* ---- dissimilarity (dissim.c, noise.c) ----------------------------------------------- */
/* The points (or bubbles) one level is clustered on, the same on every
 * rank: n items of dim values with their weights (processes), and the
 * item of every local process. */
typedef struct pa_items {
    size_t n, dim;
    double *x, *w;
    size_t *of;   /* by local process */
    an_bub bub;   /* bubbles: nb = n, of = identity; empty for points */
} pa_items;

static void items_free(pa_items *it)
{
    free(it->x);
    free(it->w);
    free(it->of);
    free(it->bub.of);
    free(it->bub.count);
    free(it->bub.sq);
    memset(it, 0, sizeof *it);
}

typedef struct lead_arg {
    size_t dim;
    double r2;
} lead_arg;

static size_t lead_find(const double *lead, size_t nl, const double *p, size_t dim, double r2,
                        int nearest)
{
    size_t l, k, best = nl;
    double bd = INFINITY;
    for (l = 0; l < nl; l++) {
        double d2 = 0;
        for (k = 0; k < dim && (nearest || d2 <= r2); k++) {
            double d = p[k] - lead[l * dim + k];
            d2 += d * d;
        }
        if (!nearest && d2 <= r2)
            return l;
        if (nearest && d2 < bd) {
            bd = d2;
            best = l;
        }
    }
    return best;
}

/* Adds to *acc the leaders of `in` that lie farther than r from all of its. */
static int lead_merge(pa *x, void **acc, size_t *nacc, const void *in, size_t nin, void *arg)
{
    const lead_arg *la = arg;
    size_t dim = la->dim, row = dim * sizeof(double), na = *nacc / row, ni = nin / row, i;
    const double *src = in;
    double *d = realloc(*acc, (na + ni + 1) * row);
    if (!d)
        return pa_nomem(x);
    for (i = 0; i < ni; i++)
        if (lead_find(d, na, src + i * dim, dim, la->r2, 0) == na)
            memcpy(d + na++ * dim, src + i * dim, row);
    *acc = d;
    *nacc = na * row;
    return AA_OK;
}

/* The level's points X (L x m, local) as items: bubbles of radius r when
 * they compress (with their points' counts, sums and sums of squares, for
 * the significance of clusters), else all P points gathered in rank order. */
static int level_items(pa *x, const double *X, size_t m, double r, pa_items *it)
{
    size_t L = x->L, P = x->P, q, l, k, nl = 0;
    double *lead = NULL;
    size_t nb = 0;
    void *blob;
    lead_arg la;
    int rc = AA_OK;
    memset(it, 0, sizeof *it);
    it->dim = m;
    if (!(it->of = malloc((L + 1) * sizeof *it->of)))
        return pa_nomem(x);
    if (P > 64 && r > 0 && m > 0) {
        la.dim = m;
        la.r2 = r * r;
        if (!(lead = malloc((L + 1) * m * sizeof *lead)))
            return pa_nomem(x);
        for (q = 0; q < L; q++)
            if (lead_find(lead, nl, X + q * m, m, la.r2, 0) == nl)
                memcpy(lead + nl++ * m, X + q * m, m * sizeof *lead);
        blob = lead;
        nb = nl * m * sizeof *lead;
        if ((rc = pa_reduce(x, &blob, &nb, lead_merge, &la)))
            return rc;
        lead = blob;
        nl = nb / (m * sizeof *lead);
        if (nl > P / 4) { /* too spread out: exact, as dissim.c's bub_build */
            free(lead);
            lead = NULL;
        }
    }
    if (lead) {
        size_t row = 2 * m + 1; /* count, sums, sums of squares */
        double *acc = calloc(nl * row + 1, sizeof *acc);
        size_t *newi = malloc((nl + 1) * sizeof *newi), n = 0;
        if (!acc || !newi) {
            free(acc), free(newi), free(lead);
            return pa_nomem(x);
        }
        for (q = 0; q < L; q++) {
            l = lead_find(lead, nl, X + q * m, m, la.r2, 0);
            if (l == nl)
                l = lead_find(lead, nl, X + q * m, m, la.r2, 1);
            it->of[q] = l;
            acc[l * row] += 1;
            for (k = 0; k < m; k++) {
                acc[l * row + 1 + k] += X[q * m + k];
                acc[l * row + 1 + m + k] += X[q * m + k] * X[q * m + k];
            }
        }
        free(lead);
        if ((rc = pa_sum(x, acc, nl * row))) {
            free(acc), free(newi);
            return rc;
        }
        it->x = malloc((nl * m + 1) * sizeof *it->x);
        it->w = malloc((nl + 1) * sizeof *it->w);
        it->bub.count = malloc((nl + 1) * sizeof *it->bub.count);
        it->bub.of = malloc((nl + 1) * sizeof *it->bub.of);
        it->bub.sq = malloc((nl * m + 1) * sizeof *it->bub.sq);
        if (!it->x || !it->w || !it->bub.count || !it->bub.of || !it->bub.sq) {
            free(acc), free(newi);
            return pa_nomem(x);
        }
        for (l = 0; l < nl; l++) {
            double c = acc[l * row];
            newi[l] = n;
            if (!(c > 0))
                continue;
            for (k = 0; k < m; k++) {
                it->x[n * m + k] = acc[l * row + 1 + k] / c;
                it->bub.sq[n * m + k] = acc[l * row + 1 + m + k];
            }
            it->w[n] = c;
            it->bub.count[n] = (size_t)c;
            it->bub.of[n] = n;
            n++;
        }
        for (q = 0; q < L; q++)
            it->of[q] = newi[it->of[q]];
        free(acc), free(newi);
        it->n = it->bub.n = it->bub.nb = n;
        it->bub.dim = m;
        it->bub.mean = it->x;
        return AA_OK;
    }
    /* the points themselves */
    {
        void *all = NULL;
        size_t nall = 0;
        if ((rc = pa_comm(x, x->cm->allgather(x->cm->ctx, X, L * m * sizeof *X, &all, &nall))))
            return rc;
        it->x = all;
        it->n = P;
        if (!(it->w = malloc((P + 1) * sizeof *it->w)))
            return pa_nomem(x);
        for (q = 0; q < P; q++)
            it->w[q] = 1;
        for (q = 0; q < L; q++)
            it->of[q] = x->off + q;
    }
    return AA_OK;
}

static int dis_level(pa *x, long level, const size_t *set, size_t m, int searching, int *any);

/* dissim.c's dis_props over the ranks: severity and confidence of region
 * r under the local labels lab (k clusters). */
static int dis_props(pa *x, size_t r, const int *lab, size_t k, double *sev, double *conf)
{
    size_t q, j, R = x->R;
    double *s = calloc(2 * k + 2, sizeof *s), *mean, mx = -INFINITY, mn = INFINITY, good = 0;
    int rc;
    if (!s)
        return pa_nomem(x);
    for (q = 0; q < x->L; q++) {
        double v = x->MM[q * R + r];
        s[lab[q]] += isnan(v) ? 0 : v;
        s[k + lab[q]] += 1;
    }
    if ((rc = pa_sum(x, s, 2 * k))) {
        free(s);
        return rc;
    }
    mean = s;
    for (j = 0; j < k; j++) {
        mean[j] = s[k + j] > 0 ? s[j] / s[k + j] : 0;
        if (s[k + j] > 0 && mean[j] > mx)
            mx = mean[j];
        if (s[k + j] > 0 && mean[j] < mn)
            mn = mean[j];
    }
    *sev = mx > 0 ? (mx - mn) / mx : 0;
    for (q = 0; q < x->L; q++) {
        double v = x->MM[q * R + r], own;
        int best = 1;
        v = isnan(v) ? 0 : v;
        own = fabs(v - mean[lab[q]]);
        for (j = 0; j < k; j++)
            if (s[k + j] > 0 && (int)j != lab[q] && fabs(v - mean[j]) < own)
                best = 0;
        good += best;
    }
    rc = pa_sum(x, &good, 1);
    *conf = x->P ? good / (double)x->P : 0;
    free(s);
    return rc;
}

/* dissim.c's add_ccr: the children searched, levels without a difference
 * looked through. */
static int add_ccr(pa *x, long level, const an_clust *cp, size_t r, double effect,
                   const int *lab, size_t k)
{
    pa_found *f, *nf = realloc(x->found, (x->nfound + 1) * sizeof *nf);
    size_t fi;
    int child = 0, rc;
    if (!nf)
        return pa_nomem(x);
    x->found = nf;
    fi = x->nfound++;
    f = &x->found[fi];
    memset(f, 0, sizeof *f);
    f->region = r;
    f->effect = effect;
    f->level = level;
    f->cp = *cp;
    f->cp.sd_floor = NULL; /* the level's, freed with it */
    f->k = k;
    if (!(f->lab = malloc((x->L + 1) * sizeof *f->lab)))
        return pa_nomem(x);
    memcpy(f->lab, lab, x->L * sizeof *lab);
    if ((rc = dis_props(x, r, lab, k, &f->severity, &f->confidence)) ||
        (rc = dis_level(x, (long)r, x->clist + x->cstart[r], nchildren(x, r), 1, &child)))
        return rc;
    x->found[fi].cccr = !child;
    return AA_OK;
}

static an_clust level_params(const pa *x, const size_t *set, size_t m)
{
    an_clust cp = x->cp;
    if (!x->fixed_eps && x->pre)
        cp.eps = an_level_eps(x->pre, set, m, x->send, x->a->noise_rel, x->o->noise_factor,
                              x->o->resolution_s);
    return cp;
}

static int search_below(pa *x, const size_t *set, size_t m)
{
    size_t j;
    int rc, any;
    for (j = 0; j < m; j++)
        if (nchildren(x, set[j]) &&
            (rc = dis_level(x, (long)set[j], x->clist + x->cstart[set[j]], nchildren(x, set[j]),
                            1, &any)))
            return rc;
    return AA_OK;
}

/* dissim.c's an_level_ccr_tests spread over the ranks: every rank holds
 * the same level, rank r tests the components j = r, r + size, ... (each
 * test clusters the level twice: it is where the time of a wide level
 * goes), and a max-reduction of m + 1 numbers gives every rank all the
 * results and tells them whether some rank failed, so that none waits in a
 * collective another has left. */
static int pa_level_ccr_tests(pa *x, an_level *lv, const int *ref, size_t k, int *lab,
                              int *isccr)
{
    size_t m = lv->m, j, step = x->cm->size > 0 ? (size_t)x->cm->size : 1;
    double *v = calloc(m + 1, sizeof *v);
    int rc = AA_OK, crc;
    if (!v)
        return pa_nomem(x);
    for (j = x->cm->rank > 0 ? (size_t)x->cm->rank : 0; j < m && !rc; j += step) {
        int one = 0;
        rc = an_level_ccr_test(lv, j, ref, k, lab, &one);
        v[j] = one;
    }
    v[m] = rc ? 1 : 0;
    crc = pa_max(x, v, m + 1);
    if (!rc && !crc && v[m] > 0)
        rc = aa_err_set(x->err, AA_EENV, "analyze: the CCR tests failed on another rank");
    for (j = 0; j < m; j++)
        isccr[j] = v[j] > 0;
    free(v);
    return rc ? rc : crc;
}

/* dissim.c's dis_level over the ranks: the level's items (points or
 * bubbles, the same on every rank) clustered by dissim.c's own
 * an_level_cluster and tested by an_level_ccr_test, the components spread
 * over the ranks (pa_level_ccr_tests). */
static int dis_level(pa *x, long level, const size_t *set, size_t m, int searching, int *any)
{
    size_t L = x->L, R = x->R, q, j, i, k = 1;
    double *X = NULL, *B = NULL, btot = 0;
    int *ref = NULL, *lab = NULL, *loc = NULL, *isccr = NULL, rc = AA_OK;
    pa_items it;
    an_clust cp;
    an_level lv;
    memset(&it, 0, sizeof it);
    memset(&lv, 0, sizeof lv);
    *any = 0;
    if (m == 0 || x->P < 2)
        return AA_OK;
    cp = level_params(x, set, m);
    cp.sig = 0;
    cp.sd_floor = NULL;
    if (an_level_uniform(x->range, x->fixed_eps ? NULL : x->pre, x->send, set, m, cp.eps,
                         x->a->noise_rel, x->o))
        return searching ? search_below(x, set, m) : AA_OK;
    X = malloc((L * m + 1) * sizeof *X);
    B = calloc(m, sizeof *B);
    loc = malloc((L + 1) * sizeof *loc);
    isccr = calloc(m, sizeof *isccr);
    if (!X || !B || !loc || !isccr) {
        rc = pa_nomem(x);
        goto out;
    }
    if ((rc = an_level_significance(&x->dc, x->pre, x->send, x->fixed_eps, set, m, &cp)))
        goto out;
    for (q = 0; q < L; q++)
        for (j = 0; j < m; j++) {
            double v = x->MM[q * R + set[j]];
            X[q * m + j] = isnan(v) ? 0 : v;
        }
    if ((rc = level_items(x, X, m, 0.1 * cp.eps, &it)))
        goto out;
    ref = malloc((it.n + 1) * sizeof *ref);
    lab = malloc((it.n + 1) * sizeof *lab);
    if (!ref || !lab) {
        rc = pa_nomem(x);
        goto out;
    }
    lv.c = &x->dc;
    lv.n = it.n;
    lv.m = m;
    lv.X = it.x;
    lv.bub = &it.bub;
    lv.cp = &cp;
    lv.spread = x->pre;
    lv.send = x->send;
    lv.set = set;
    if ((rc = an_level_cluster(&lv, -1, -1, ref, &k)))
        goto out;
    if (k >= 2) {
        /* between-cluster sums of squares by component (dissim.c's between_ss) */
        double *cs = calloc(k, sizeof *cs), *cw = calloc(k, sizeof *cw);
        if (!cs || !cw) {
            free(cs), free(cw);
            rc = pa_nomem(x);
            goto out;
        }
        for (j = 0; j < m; j++) {
            double tot = 0, wt = 0;
            memset(cs, 0, k * sizeof *cs);
            memset(cw, 0, k * sizeof *cw);
            for (i = 0; i < it.n; i++) {
                cs[ref[i]] += it.w[i] * it.x[i * m + j];
                cw[ref[i]] += it.w[i];
                tot += it.w[i] * it.x[i * m + j];
                wt += it.w[i];
            }
            tot /= wt;
            for (i = 0; i < k; i++)
                if (cw[i] > 0) {
                    double d = cs[i] / cw[i] - tot;
                    B[j] += cw[i] * d * d;
                }
            btot += B[j];
        }
        free(cs), free(cw);
        for (q = 0; q < L; q++)
            loc[q] = ref[it.of[q]];
        rc = pa_level_ccr_tests(x, &lv, ref, k, lab, isccr);
        for (j = 0; j < m && !rc; j++)
            if (isccr[j]) {
                *any = 1;
                rc = add_ccr(x, level, &cp, set[j], btot > 0 ? B[j] / btot : 0, loc, k);
            }
    }
    if (!rc && searching && !*any)
        rc = search_below(x, set, m);
out:
    an_level_free(&lv);
    items_free(&it);
    free(X), free(B), free(ref), free(lab), free(loc), free(isccr);
    free((double *)cp.sd_floor);
    return rc;
}

/* By qualifying region qc[0..nq): the median gap between the P processes'
 * values of S, scaled to a standard deviation (noise.c), into out. */
static int region_gaps(pa *x, const double *S, const size_t *qc, size_t nq, double *out)
{
    size_t L = x->L, R = x->R, P = x->P, r, q;
    double *loc = malloc((L + 1) * sizeof *loc), *g = malloc((P + 1) * sizeof *g), scale;
    double *tmp = malloc((P + 1) * sizeof *tmp);
    int rc = AA_OK;
    if (!loc || !g || !tmp) {
        free(loc), free(g), free(tmp);
        return pa_nomem(x);
    }
    scale = an_gap_scale(P, tmp, g);
    for (r = 0; r < nq && !rc; r++) {
        void *all = NULL;
        size_t nall = 0;
        for (q = 0; q < L; q++)
            loc[q] = S[q * R + qc[r]];
        rc = pa_comm(x, x->cm->allgather(x->cm->ctx, loc, L * sizeof *loc, &all, &nall));
        if (!rc && nall != P * sizeof *loc)
            rc = aa_err_set(x->err, AA_EENV, "analyze: ranks disagree on the process count");
        if (!rc)
            out[r] = scale * an_median_gap(all, g, P);
        free(all);
    }
    free(loc), free(g), free(tmp);
    return rc;
}

/* The metrics of a node's visits (dissim.c's visit_metrics) */
static const char *const pa_visit[3] = {"visits", "cpu", "cpu_sq"};

/* *all: whether each of pa_visit is measured by some process (a collective;
 * look 0: this rank's processes are not asked). */
static int visit_metrics_measured(pa *x, int look, int *all)
{
    double use[3] = {0, 0, 0};
    size_t q, m;
    int rc;
    *all = 0;
    for (q = 0; q < x->L && look; q++) {
        if ((rc = at_process(x, q)))
            return rc;
        for (m = 0; m < 3; m++)
            use[m] = fmax(use[m], usable_here(x, q, pa_visit[m]));
    }
    if ((rc = pa_max(x, use, 3)))
        return rc;
    *all = use[0] > 0 && use[1] > 0 && use[2] > 0;
    return AA_OK;
}

/* The median over the qualifying regions qc[0..nq) with a value on at least
 * min_cnt processes (cnt: how many had one) of the exact medians of v over
 * the processes (fin: which values are finite), each at most cap[r] where
 * that is finite (cap NULL: none); 0 below AN_VISIT_NOISE_MIN_REGIONS
 * regions.  col, med: nq + 1 scratch. */
static int visit_median(pa *x, const double *v, const unsigned char *fin, const double *cnt,
                        double min_cnt, const double *cap, const size_t *qc, size_t nq,
                        size_t *col, double *med, double *out, size_t *nused)
{
    size_t r, n = 0;
    int rc;
    *out = 0;
    *nused = 0;
    for (r = 0; r < nq; r++)
        if (cnt[r] >= min_cnt)
            col[n++] = qc[r];
    if (n && (rc = pa_medians(x, v, fin, x->R, col, n, med)))
        return rc;
    for (r = 0; cap && r < n; r++)
        if (isfinite(cap[col[r]]) && cap[col[r]] < med[r])
            med[r] = cap[col[r]];
    if (n >= AN_VISIT_NOISE_MIN_REGIONS) {
        *out = an_quantile(med, n, 0.5);
        *nused = n;
    }
    return AA_OK;
}

/* noise.c's an_visit_noise over the ranks: by local process and region
 * sqrt(cpu_sq - cpu^2 / visits) / cpu (NaN below 2 visits), exact medians
 * over the processes of the qualifying regions qc[0..nq) with a value on
 * every process, then their median (*noise); and an_one_visit_noise: of
 * that times sqrt(visits), over the regions q1[0..n1) with a value on two
 * processes or more (*one, times one_visit_k); 0 when the process metric is
 * not CPU time, cpu_sq was not measured, or no region qualifies. */
static int visit_noise(pa *x, const size_t *qc, size_t nq, const size_t *q1, size_t n1,
                       double *between, double *noise, size_t *nvisit, double *one,
                       size_t *none, unsigned char *seen)
{
    size_t L = x->L, R = x->R, q, r, m;
    double *row = NULL, *rel = NULL, *cnt = NULL, *med = NULL, *rel1 = NULL, *vis = NULL;
    unsigned char *anyfin = NULL, *fin = NULL, *vfin = NULL;
    size_t *col = NULL;
    int rc = AA_OK, all;
    *noise = *one = 0;
    *nvisit = *none = 0;
    memset(seen, 1, R);
    if (strcmp(x->a->proc_metric, "cpu") || (!nq && !n1))
        return AA_OK;
    if ((rc = visit_metrics_measured(x, 1, &all)) || !all)
        return rc;
    row = malloc((3 * R + 1) * sizeof *row);
    anyfin = malloc(R + 1);
    rel = malloc((L * R + 1) * sizeof *rel);
    rel1 = malloc((L * R + 1) * sizeof *rel1);
    vis = malloc((L * R + 1) * sizeof *vis);
    fin = malloc(L * R + 1);
    vfin = malloc(L * R + 1);
    cnt = calloc(2 * nq + n1 + R + 1, sizeof *cnt);
    med = malloc((nq + n1 + 1) * sizeof *med);
    col = malloc((nq + n1 + 1) * sizeof *col);
    if (!row || !anyfin || !rel || !rel1 || !vis || !fin || !vfin || !cnt || !med || !col) {
        rc = pa_nomem(x);
        goto out;
    }
    for (q = 0; q < L; q++) {
        if ((rc = at_process(x, q)))
            goto out;
        for (m = 0; m < 3; m++)
            gather_row(x, q, pa_visit[m], row + m * R, anyfin);
        for (r = 0; r < R; r++) {
            double N = row[r], C = row[R + r], Q = row[2 * R + r];
            size_t k = q * R + r;
            rel[k] = N >= 2 && C > 0 && !isnan(Q) ? sqrt(fmax(0, Q - C * C / N)) / C : NAN;
            fin[k] = isfinite(rel[k]);
            rel1[k] = fin[k] ? rel[k] * sqrt(N) : NAN;
            vis[k] = N;
            vfin[k] = isfinite(N);
        }
        for (r = 0; r < nq; r++) {
            cnt[r] += fin[q * R + qc[r]];
            cnt[nq + n1 + R + r] += vfin[q * R + qc[r]];
        }
        for (r = 0; r < n1; r++)
            cnt[nq + r] += fin[q * R + q1[r]];
        for (r = 0; r < R; r++)
            cnt[nq + n1 + r] += !x->ran[q * R + r] || fin[q * R + r];
    }
    if ((rc = pa_sum(x, cnt, 2 * nq + n1 + R)))
        goto out;
    for (r = 0; r < R; r++)
        seen[r] = cnt[nq + n1 + r] == (double)x->P;
    if ((rc = visit_median(x, rel, fin, cnt, (double)x->P, NULL, qc, nq, col, med, noise,
                           nvisit)))
        goto out;
    if (x->o->one_visit_k > 0) {
        /* dissim.c's one_visit_between: the regions' spread between
         * processes (between, by region) times the square root of their
         * median visits, as the cap of one visit's noise (between, in place) */
        size_t n = 0;
        for (r = 0; r < nq; r++)
            if (isfinite(between[qc[r]]) && cnt[nq + n1 + R + r] == (double)x->P)
                col[n++] = qc[r];
        if (n && (rc = pa_medians(x, vis, vfin, R, col, n, med)))
            goto out;
        for (r = 0; r < R; r++)
            row[r] = NAN;
        for (r = 0; r < n; r++)
            row[col[r]] = between[col[r]] * sqrt(med[r]);
        memcpy(between, row, R * sizeof *between);
        if ((rc = visit_median(x, rel1, fin, cnt + nq, 2, between, q1, n1, col, med, one, none)))
            goto out;
    }
    *one *= x->o->one_visit_k;
out:
    free(row), free(anyfin), free(rel), free(rel1), free(vis), free(fin), free(vfin), free(cnt);
    free(med), free(col);
    return rc;
}

/* noise.c's noise model from exact medians over the ranks and each qualifying
 * region's column gathered in turn: the spread
 * prefix sums (x->pre) and the run's relative noise. */
static int noise_model(pa *x, size_t *nused)
{
    size_t L = x->L, R = x->R, r, q, n = 0, nq = 0, nvisit = 0, none = 0;
    double *S = malloc((L * R + 1) * sizeof *S), *med = malloc((R + 1) * sizeof *med);
    double *all = calloc(R + 1, sizeof *all), *mad = malloc((R + 1) * sizeof *mad);
    size_t *col = calloc(R + 1, sizeof *col), *qc = malloc((R + 1) * sizeof *qc);
    size_t *q1 = malloc((R + 1) * sizeof *q1), n1 = 0;
    double *between = malloc((R + 1) * sizeof *between);
    unsigned char *use = calloc(L * R + 1, 1), *seen = malloc(R + 1);
    int rc;
    x->pre = malloc((R + 1) * sizeof *x->pre);
    if (!S || !med || !all || !mad || !col || !qc || !q1 || !between || !use || !seen || !x->pre) {
        rc = pa_nomem(x);
        goto out;
    }
    self_values(x, x->MMraw ? x->MMraw : x->MM, S, x->L); /* speeds and all */
    for (r = 0; r < R; r++) {
        col[r] = r;
        for (q = 0; q < L; q++) {
            size_t k = q * R + r;
            use[k] = x->ran[k] && isfinite(S[k]);
            all[r] += use[k];
        }
    }
    if ((rc = pa_sum(x, all, R)) || (rc = pa_medians(x, S, use, R, col, R, med)))
        goto out;
    /* regions run by every process with a median of at least the resolution
     * (qc); for the one visit's noise by two or more (q1) */
    for (r = 1; r < R && x->P >= 2; r++) {
        if (all[r] == (double)x->P && med[r] >= x->o->resolution_s && med[r] > 0)
            qc[nq++] = r;
        if (all[r] >= 2 && med[r] >= x->o->resolution_s && med[r] > 0)
            q1[n1++] = r;
    }
    /* the median gap of each region's sorted values: its column gathered
     * (P values, one region at a time) */
    if (nq && (rc = region_gaps(x, S, qc, nq, mad)))
        goto out;
    for (r = 0; r < R; r++)
        between[r] = NAN;
    for (r = 0; r < nq; r++) {
        all[n++] = mad[r] / med[qc[r]];
        between[qc[r]] = all[n - 1];
    }
    x->a->noise_between = an_noise_bounded(n ? an_quantile(all, n, x->o->noise_quantile) : 0,
                                           x->o->noise_max, &x->a->noise_between_measured);
    if ((rc = visit_noise(x, qc, nq, q1, n1, between, &x->a->noise_visits, &nvisit,
                          &x->a->noise_one_visit, &none, seen)))
        goto out;
    *nused = n;
    x->a->noise_rel = an_noise_floored(an_noise_capped(x->a->noise_between,
                                                       x->a->noise_visits, nvisit,
                                                       x->o->noise_visit_cap),
                                       x->a->noise_visits, n, nvisit,
                                       x->a->noise_one_visit, none);
    /* dissim.c's spread_sums: a region weighted by an_visit_weight */
    x->pre[0] = 0;
    for (r = 0; r < R; r++)
        x->pre[r + 1] = x->pre[r] + an_visit_weight(x->a->noise_between, x->a->noise_rel,
                                                    x->a->noise_one_visit, seen[r]) *
                                        med[r] * med[r];
out:
    free(S), free(med), free(mad), free(col), free(qc), free(q1), free(between), free(use);
    free(seen);
    free(all);
    return rc;
}

static int search_levels(pa *x)
{
    const aa_analyze_options *o = x->o;
    aa_analysis *a = x->a;
    size_t m = nchildren(x, 0), dmp = 2, nused = 0, q, r, L = x->L, R = x->R;
    const size_t *set = x->clist + x->cstart[0];
    double *hi = malloc((2 * R + 1) * sizeof *hi);
    int any, rc;
    if (!hi)
        return pa_nomem(x);
    aa_cluster_optics_defaults(NULL, x->P, 0, &dmp, NULL);
    x->cp.min_pts = o->min_pts ? o->min_pts : dmp;
    x->fixed_eps = o->eps > 0;
    x->cp.eps = o->eps;
    for (r = 0; r < 2 * R; r++)
        hi[r] = -INFINITY;
    for (q = 0; q < L; q++)
        for (r = 0; r < R; r++) {
            double v = x->MM[q * R + r];
            v = isnan(v) ? 0 : v;
            hi[r] = fmax(hi[r], v);
            hi[R + r] = fmax(hi[R + r], -v);
        }
    if ((rc = pa_max(x, hi, 2 * R))) {
        free(hi);
        return rc;
    }
    if (!(x->range = malloc((R + 1) * sizeof *x->range))) {
        free(hi);
        return pa_nomem(x);
    }
    for (r = 0; r < R; r++)
        x->range[r] = hi[r] + hi[R + r];
    free(hi);
    if (!x->fixed_eps) {
        if ((rc = noise_model(x, &nused)))
            return rc;
        x->cp = level_params(x, set, m);
        if ((rc = an_noise_note(&x->dc, a, nused, x->cp.eps)))
            return rc;
    }
    if (!(x->cp.eps > 0))
        x->cp.eps = 1e-300;
    a->min_pts_used = x->cp.min_pts;
    a->eps_used = x->cp.eps;
    return dis_level(x, 0, set, m, 1, &any);
}

/* dissim.c's branch share of found f when no other process than the slow
 * ones ran its region (a reduction of the branch's sums). */
static int branch_share(pa *x, pa_found *f, double ns, double no, double *share)
{
    size_t *set = malloc((x->R + 1) * sizeof *set), n, q;
    double *sums = calloc(4 * (x->R + 1), sizeof *sums);
    int rc;
    *share = 1;
    if (!set || !sums) {
        free(set), free(sums);
        return pa_nomem(x);
    }
    n = an_branch_set(x->a, x->cstart, x->clist, f->region, set);
    for (q = 0; q < x->L; q++)
        an_branch_add(sums, set, n, x->ran + q * x->R, x->MM + q * x->R, f->lab[q] == (int)f->slow);
    if (!(rc = pa_sum(x, sums, 4 * n)))
        *share = an_branch_share(x->a, x->cstart, x->clist, set, n, sums, ns, no);
    free(set), free(sums);
    return rc;
}

/* The slow cluster of found f (largest mean main metric in its region) and
 * the time its processes spend there beyond the others' mean (a branch
 * only they take: less the alternative, branch_share), at most what the
 * others are idle (an_idle_bound; tmax: the latest whole-program time; their MPI
 * wall outside the set-up at most). */
static int slow_cluster(pa *x, pa_found *f, double tmax)
{
    size_t k = f->k, q, j, R = x->R;
    double *s = calloc(7 * k + 1, sizeof *s), best = -INFINITY, ss = 0, ns = 0, so = 0, no = 0;
    double os = 0, oo = 0, ran_other = 0, share = 1, wo = 0, ms = 0, mo = 0, mpi = 0;
    const double *raw = x->MMraw ? x->MMraw : x->MM;
    int rc;
    if (!s)
        return pa_nomem(x);
    for (q = 0; q < x->L; q++) {
        double own = x->MM[q * R + f->region];
        size_t i;
        for (i = x->cstart[f->region]; i < x->cstart[f->region + 1]; i++)
            own -= x->MM[q * R + x->clist[i]];
        s[f->lab[q]] += x->MM[q * R + f->region];
        s[k + f->lab[q]] += 1;
        s[2 * k + f->lab[q]] += own;
        s[3 * k + f->lab[q]] += x->ran[q * R + f->region];
        s[4 * k + f->lab[q]] += raw[q * R];
        s[5 * k + f->lab[q]] += x->MM[q * R];
        s[6 * k + f->lab[q]] += x->idle_mpi ? x->idle_mpi[q] : NAN;
    }
    if ((rc = pa_sum(x, s, 7 * k))) {
        free(s);
        return rc;
    }
    f->slow = 0;
    for (j = 0; j < k; j++)
        if (s[k + j] > 0 && s[j] / s[k + j] > best) {
            best = s[j] / s[k + j];
            f->slow = j;
        }
    for (j = 0; j < k; j++) {
        if (j == f->slow) {
            ss += s[j];
            ns += s[k + j];
            os += s[2 * k + j];
            ms += s[5 * k + j];
        } else {
            so += s[j];
            no += s[k + j];
            oo += s[2 * k + j];
            ran_other += s[3 * k + j];
            wo += s[4 * k + j];
            mo += s[5 * k + j];
            mpi += s[6 * k + j];
        }
    }
    free(s);
    if (ns > 0 && no > 0 && ran_other == 0 && (rc = branch_share(x, f, ns, no, &share)))
        return rc;
    f->excess = f->impact = ns > 0 && no > 0 ? fmax(0, ss / ns - so / no) * share : 0;
    if (ns > 0 && no > 0 && x->o->idle_bound > 0)
        f->impact = an_idle_bound(f->excess, tmax, wo / no, mpi / no, ms / ns - mo / no,
                                  x->a->eps_used);
    f->own_impact = ns > 0 && no > 0 ? os / ns - oo / no : 0;
    return AA_OK;
}

/* dissim.c's test of imbalances carried by a few visits (cpu_sq): the
 * spread V = cpu_sq - cpu^2 / visits of every local process at each kept
 * CCR's region, its median over the processes that ran the region (exact,
 * pa_medians), and the slow processes' spread beyond it (a reduction); a
 * CCR whose impact is fewer than spike_z standard errors of that spread is
 * dropped.  *nspike: how many were. */
static int spike_test(pa *x, size_t *nspike)
{
    size_t L = x->L, R = x->R, nf = x->nfound, q, i, m;
    double *row = NULL, *V = NULL, *s = NULL, *med = NULL;
    unsigned char *anyfin = NULL, *ran = NULL;
    size_t *col = NULL;
    int rc, all;
    *nspike = 0;
    if ((rc = visit_metrics_measured(x, nf > 0, &all)) || !all || !nf)
        return rc;
    row = malloc((5 * R + 1) * sizeof *row);
    anyfin = malloc(R + 1);
    V = malloc((L * nf + 1) * sizeof *V);
    ran = malloc(L * nf + 1);
    col = malloc((nf + 1) * sizeof *col);
    s = calloc(3 * nf + 1, sizeof *s);
    med = calloc(nf + 1, sizeof *med);
    if (!row || !anyfin || !V || !ran || !col || !s || !med) {
        rc = pa_nomem(x);
        goto out;
    }
    for (q = 0; q < L; q++) {
        if ((rc = at_process(x, q)))
            goto out;
        for (m = 0; m < 3; m++)
            gather_row(x, q, pa_visit[m], row + m * R, anyfin);
        for (m = 0; m < 2; m++) { /* the CPU time inside MPI and I/O calls */
            const char *in = m ? "io_cpu" : "mpi_cpu";
            if (!usable_here(x, q, in) || !gather_row(x, q, in, row + (3 + m) * R, anyfin))
                memset(row + (3 + m) * R, 0, R * sizeof *row);
        }
        for (i = 0; i < nf; i++) {
            size_t r = x->found[i].region;
            double in = 0;
            for (m = 3; m < 5; m++)
                in += isfinite(row[m * R + r]) && row[m * R + r] > 0 ? row[m * R + r] : 0;
            V[q * nf + i] = an_visit_spread(row[r], row[R + r], row[2 * R + r], in);
            ran[q * nf + i] = x->ran[q * R + r];
        }
    }
    for (i = 0; i < nf; i++)
        col[i] = i;
    if ((rc = pa_medians(x, V, ran, nf, col, nf, med)))
        goto out;
    for (q = 0; q < L; q++)
        for (i = 0; i < nf; i++) {
            const pa_found *f = &x->found[i];
            s[2 * nf + i] += ran[q * nf + i];
            if (f->lab[q] == (int)f->slow) {
                s[i] += fmax(0, V[q * nf + i] - med[i]);
                s[nf + i] += 1;
            }
        }
    if ((rc = pa_sum(x, s, 3 * nf)))
        goto out;
    for (i = 0; i < nf; i++) {
        pa_found *f = &x->found[i];
        double e = s[i], ns = s[nf + i];
        if (f->dropped || !(s[2 * nf + i] > 0) || !(ns > 0) || !(e > 0))
            continue;
        if (f->excess / (sqrt(e) / ns) < x->o->spike_z) {
            f->dropped = 1;
            (*nspike)++;
        }
    }
out:
    free(row), free(anyfin), free(V), free(ran), free(col), free(s), free(med);
    return rc;
}

static int gather_rows(pa *x, const void *v, size_t w, void **all);
static int gather_ints(pa *x, const int *v, int **all);

/* dissim.c's placement test (placement.c) of one kept imbalance f: its
 * partition against the gathered keys, then the sums reduced; 1 when the
 * CPUs explain it.  S: the local processes' self values. */
static int place_one(pa *x, pa_found *f, const uint64_t *keys, const double *S, int *explained)
{
    an_place_sums s;
    int *lab = NULL, rc;
    size_t q;
    double *cl;
    *explained = 0;
    if ((rc = gather_ints(x, f->lab, &lab)))
        return rc;
    rc = an_place_follows(keys, lab, x->P);
    free(lab);
    if (rc <= 0)
        return rc < 0 ? pa_nomem(x) : AA_OK;
    if (!(cl = calloc(2 * f->k + 1, sizeof *cl)))
        return pa_nomem(x);
    if (an_place_sums_init(&s, x->R)) {
        free(cl);
        return pa_nomem(x);
    }
    for (q = 0; q < x->L; q++)
        an_place_cluster_add(cl, f->lab[q], x->MM[q * x->R + f->region]);
    if (!(rc = pa_sum(x, cl, 2 * f->k))) {
        an_place_cluster_means(cl, f->k);
        for (q = 0; q < x->L; q++)
            an_place_add(&s, f->lab[q] == (int)f->slow, S + q * x->R, x->ran + q * x->R,
                         x->MM[q * x->R + f->region], f->lab[q] >= 0 ? cl[2 * f->lab[q]] : 0);
        if (!(rc = pa_sum(x, s.v, an_place_sums_len(&s))) &&
            (*explained = an_place_judge(&s, x->o, x->mmed, f->k, &f->place)) < 0)
            rc = pa_nomem(x);
    }
    an_place_sums_free(&s);
    free(cl);
    return rc;
}

/* The note on the imbalances the placement explains (dissim.c's place_note):
 * the slow ranks of the largest one. */
static int place_note(pa *x, size_t n, const pa_found *f)
{
    int *lab = NULL, rc = gather_ints(x, f->lab, &lab);
    if (!rc)
        rc = an_place_report(&x->dc, lab, (int)f->slow, n, f->region, &f->place);
    free(lab);
    return rc;
}

/* dissim.c's dis_drop: the i-th imbalance dropped for the reason *why
 * points at, the largest one so dropped in *top, *n counted. */
static void drop_found(pa *x, size_t i, int *why, size_t *top, size_t *n)
{
    x->found[i].dropped = *why = 1;
    if (*top == SIZE_MAX || x->found[i].impact > x->found[*top].impact)
        *top = i;
    (*n)++;
}

/* The kept imbalances that follow the CPUs the processes shared are dropped
 * (dissim.c's an_dissim_impact); the note. */
static int placement_test(pa *x)
{
    uint64_t *keys = NULL;
    double *S = NULL;
    size_t i, n = 0, top = SIZE_MAX;
    int rc, shared, expl;
    for (i = 0; i < x->nfound && x->found[i].dropped; i++)
        ;
    if (i == x->nfound)
        return AA_OK;
    if ((rc = gather_rows(x, x->place_key, sizeof *x->place_key, (void **)&keys)))
        return rc;
    if ((shared = an_place_shared(keys, x->P)) < 0)
        rc = pa_nomem(x);
    if (shared > 0 && !(S = malloc((x->L * x->R + 1) * sizeof *S)))
        rc = pa_nomem(x);
    if (S)
        self_values(x, x->MM, S, x->L);
    for (i = 0; shared > 0 && !rc && i < x->nfound; i++) {
        pa_found *f = &x->found[i];
        if (f->dropped || (rc = place_one(x, f, keys, S, &expl)) || !expl)
            continue;
        drop_found(x, i, &f->placement, &top, &n);
    }
    free(keys);
    free(S);
    return rc || !n ? rc : place_note(x, n, &x->found[top]);
}

/* dissim.c's place_undecided_note: the kept imbalances whose partition
 * follows the CPUs that too few regions could judge, the largest one's
 * slow ranks. */
static int place_undecided_note(pa *x)
{
    size_t i, n = 0, top = SIZE_MAX;
    int *lab = NULL, rc;
    for (i = 0; i < x->nfound; i++)
        if (!x->found[i].dropped && x->found[i].place.undecided) {
            if (top == SIZE_MAX || x->found[i].impact > x->found[top].impact)
                top = i;
            n++;
        }
    if (!n)
        return AA_OK;
    if ((rc = gather_ints(x, x->found[top].lab, &lab)))
        return rc;
    rc = an_place_undecided_report(&x->dc, lab, (int)x->found[top].slow, n, &x->found[top].place);
    free(lab);
    return rc;
}

/* dissim.c's speed test (speed.c): the local processes' speeds from the
 * reduced region sums (*sp: 2 x L, NULL when too few regions; *k). */
static int speeds_local(pa *x, const double *S, double **sp, size_t *k)
{
    double *rs = calloc(2 * x->R + 1, sizeof *rs), *v = malloc((2 * x->L + 1) * sizeof *v);
    double thr = x->o->finding_min_share * x->mmed;
    size_t q, kq = 0;
    int rc = !rs || !v ? pa_nomem(x) : AA_OK;
    *sp = NULL;
    *k = 0;
    for (q = 0; !rc && q < x->L; q++)
        an_speed_region_add(rs, x->R, S + q * x->R, x->ran + q * x->R, thr);
    if (!rc)
        rc = pa_sum(x, rs, 2 * x->R);
    for (q = 0; !rc && q < x->L; q++)
        if (an_speed_process(rs, x->R, (double)x->P, S + q * x->R, x->ran + q * x->R, thr, &v[q],
                             &v[x->L + q], &kq))
            rc = pa_nomem(x);
    /* the regions compared are those every process ran: the same count on
     * every rank, 0 on all when too few (a rank without processes has none) */
    if (!rc) {
        double kk = (double)kq;
        rc = pa_max(x, &kk, 1);
        *k = (size_t)kk;
    }
    free(rs);
    if (rc || *k == 0)
        free(v);
    else
        *sp = v;
    return rc;
}

/* The kept imbalances that are the processes' speed are dropped (dissim.c's
 * an_dissim_impact); the note with the slow ranks of the largest one.
 * sp, k: speeds_local's (sp NULL: no test). */
static int speed_test(pa *x, const double *sp, size_t k)
{
    size_t i, q, n = 0, top = SIZE_MAX;
    int rc = AA_OK;
    for (i = 0; !rc && sp && i < x->nfound; i++) {
        pa_found *f = &x->found[i];
        double v[AN_SPEED_SUMS] = {0};
        if (f->dropped)
            continue;
        for (q = 0; q < x->L; q++)
            an_speed_add(v, f->lab[q] == (int)f->slow, sp[q], sp[x->L + q],
                         x->MM[q * x->R + f->region]);
        if ((rc = pa_sum(x, v, AN_SPEED_SUMS)) || !an_speed_judge(v, k, x->o, x->a->speed_normalized, &f->spd))
            continue;
        drop_found(x, i, &f->speed, &top, &n);
    }
    if (!rc && n) {
        int *lab = NULL;
        if (!(rc = gather_ints(x, x->found[top].lab, &lab)))
            rc = an_speed_report(&x->dc, lab, (int)x->found[top].slow, n, x->found[top].region,
                                 &x->found[top].spd);
        free(lab);
    }
    return rc;
}

/* dissim.c's pace_explained for the kept imbalances, where the regions are
 * too few (k) for the speed; the note with the slow ranks of the largest
 * one. */
static int pace_test(pa *x, size_t k)
{
    size_t i, q, n = 0, top = SIZE_MAX;
    int rc = AA_OK;
    if (k >= AN_PLACE_MIN_REGIONS || !(x->o->pace_k > 0))
        return AA_OK;
    for (i = 0; !rc && i < x->nfound; i++) {
        pa_found *f = &x->found[i];
        double v[AN_PACE_SUMS] = {0};
        if (f->dropped)
            continue;
        for (q = 0; q < x->L; q++)
            an_pace_add(v, f->lab[q] == (int)f->slow, x->pace[3 * q] > 0, x->pace[3 * q + 1],
                        x->pace[3 * q + 2], x->MM[q * x->R + f->region]);
        if ((rc = pa_sum(x, v, AN_PACE_SUMS)) || !an_pace_judge(v, x->o, &f->pc))
            continue;
        drop_found(x, i, &f->pace, &top, &n);
    }
    if (!rc && n) {
        int *lab = NULL;
        if (!(rc = gather_ints(x, x->found[top].lab, &lab)))
            rc = an_pace_report(&x->dc, lab, (int)x->found[top].slow, n, x->found[top].region,
                                &x->found[top].pc);
        free(lab);
    }
    return rc;
}

/* dissim.c's speed_merge: the clusters' sums reduced, the same merges on
 * every rank; by the CPUs' measured pace where the regions are too few (k)
 * for the speed. */
static int speed_merge(pa *x, const double *sp, size_t k, pa_found *f, size_t *merged,
                       size_t *by_pace)
{
    size_t level = f->level < 0 ? 0 : (size_t)f->level, m = nchildren(x, level);
    const size_t *set = x->clist + x->cstart[level];
    int pace = k < AN_PLACE_MIN_REGIONS && x->o->pace_k > 0;
    size_t w = pace ? AN_PACE_CSUMS(m) : AN_SPEED_CSUMS(m), q, j, a, b, n = 0;
    double *cs, *xv;
    int rc = AA_OK;
    if ((!sp && !pace) || f->k < 3 || f->k > AN_SPEED_MERGE_MAX || !m)
        return AA_OK;
    cs = malloc(f->k * w * sizeof *cs);
    xv = malloc(m * sizeof *xv);
    if (!cs || !xv) {
        free(cs), free(xv);
        return pa_nomem(x);
    }
    while (f->k >= 3) {
        double best = INFINITY, sc;
        size_t ba = 0, bb = 0;
        memset(cs, 0, f->k * w * sizeof *cs);
        for (q = 0; q < x->L; q++) {
            double *to = cs + (size_t)f->lab[q] * w;
            for (j = 0; j < m; j++)
                xv[j] = x->ran[q * x->R + set[j]] ? x->MM[q * x->R + set[j]] : 0;
            if (pace)
                an_pace_cluster_add(to, m, x->pace[3 * q] > 0, x->pace[3 * q + 1],
                                    x->pace[3 * q + 2], xv);
            else
                an_speed_cluster_add(to, m, sp[q], sp[x->L + q], xv);
        }
        if ((rc = pa_sum(x, cs, f->k * w)))
            break;
        for (a = 0; a < f->k; a++)
            for (b = a + 1; b < f->k; b++)
                if ((pace ? an_pace_pair(cs + a * w, cs + b * w, m, x->o, &sc)
                          : an_speed_pair(cs + a * w, cs + b * w, m, k, x->o, &sc)) &&
                    sc < best) {
                    best = sc;
                    ba = a;
                    bb = b;
                }
        if (best == INFINITY)
            break;
        an_speed_merge_labels(f->lab, x->L, (int)ba, (int)bb);
        f->k--;
        ++n;
    }
    free(cs);
    free(xv);
    *merged = n > *merged ? n : *merged;
    *by_pace += n && pace;
    return rc;
}

/* dissim.c's merged_differs: the sums reduced; by_pace: the pace made
 * the merge (the values divided by the relative pace). */
static int merged_differs(pa *x, const pa_found *f, int by_pace, int *differs)
{
    double g[6] = {0}, mlp[3] = {0};
    an_clust cp = f->cp;
    size_t q;
    int rc;
    for (q = 0; by_pace && q < x->L; q++) {
        mlp[0] += x->pace[3 * q + 1];
        mlp[1] += 1;
        mlp[2] += !(x->pace[3 * q] > 0);
    }
    if (by_pace && (rc = pa_sum(x, mlp, 3)))
        return rc;
    by_pace = by_pace && mlp[2] == 0; /* a process without a pace: the values as they are */
    for (q = 0; q < x->L; q++) {
        double v = x->MM[q * x->R + f->region], *to = g + (f->lab[q] == (int)f->slow ? 0 : 3);
        v = isnan(v) ? 0 : v / (by_pace ? exp(x->pace[3 * q + 1] - mlp[0] / mlp[1]) : 1);
        to[0] += 1;
        to[1] += v;
        to[2] += v * v;
    }
    if ((rc = pa_sum(x, g, 6)) ||
        (rc = an_level_significance(&x->dc, x->pre, x->send, x->fixed_eps, &f->region, 1, &cp)))
        return rc;
    *differs = an_merged_difference(g, &cp);
    free((double *)cp.sd_floor);
    return AA_OK;
}

/* dissim.c's an_dissim_impact and the clusters. */
/* The local processes' speeds (speeds_local; *sp NULL when speed_z is 0 or
 * too few regions). */
static int speeds_of_processes(pa *x, double **sp, size_t *k)
{
    double *S;
    int rc;
    *sp = NULL;
    *k = 0;
    if (!(x->o->speed_z > 0))
        return AA_OK;
    if (!(S = malloc((x->L * x->R + 1) * sizeof *S)))
        return pa_nomem(x);
    self_values(x, x->MM, S, x->L);
    rc = speeds_local(x, S, sp, k);
    free(S);
    return rc;
}

static int dissim_impact(pa *x)
{
    size_t i, j, nspike, k = 0, nmerged = 0, nmade = 0, q, nmerged_pace = 0, nunmerged = 0;
    double *sp = NULL, tmax = -INFINITY;
    int rc;
    for (q = 0; q < x->L; q++)
        if (isfinite(x->wpwt[q]))
            tmax = fmax(tmax, x->wpwt[q]);
    if ((rc = median_positive(x, x->wpwt, 1, &x->wmed)) ||
        (rc = median_positive(x, x->MM, x->R, &x->mmed)) ||
        (rc = pa_max(x, &tmax, 1)) || (rc = speeds_of_processes(x, &sp, &k)))
        return rc;
    if (!isfinite(tmax))
        tmax = NAN;
    for (i = 0; i < x->nfound && !rc; i++) {
        pa_found *f = &x->found[i];
        size_t k0 = f->k;
        int differs = 1;
        if ((rc = speed_merge(x, sp, k, f, &nmerged, &nmerged_pace)) ||
            (rc = slow_cluster(x, f, tmax)) ||
            (f->k < k0 && (rc = merged_differs(x, f, k < AN_PLACE_MIN_REGIONS &&
                                                          x->o->pace_k > 0, &differs))))
            break;
        f->dropped = x->mmed > 0 && f->impact / x->mmed < x->o->finding_min_share;
        if (f->dropped && !(f->excess / x->mmed < x->o->finding_min_share)) {
            f->made_up = 1;
            nmade++;
        }
        if (!f->dropped && !differs) {
            f->dropped = 1;
            nunmerged++;
        }
    }
    if (!rc && !(rc = spike_test(x, &nspike)) && !(rc = placement_test(x)) &&
        !(rc = speed_test(x, sp, k)) && !(rc = pace_test(x, k)))
        rc = place_undecided_note(x);
    free(sp);
    if (!rc && nmerged)
        rc = nmerged_pace ? an_pace_merge_note(&x->dc, nmerged)
                          : an_speed_merge_note(&x->dc, nmerged);
    if (!rc && nunmerged)
        rc = an_unmerged_note(&x->dc, nunmerged);
    if (!rc && nmade)
        rc = an_made_up_note(&x->dc, nmade);
    if (rc)
        return rc;
    for (i = 0; i < x->nfound; i++) {
        size_t r0 = x->found[i].region;
        if (x->found[i].dropped)
            continue;
        x->found[i].cccr = 1;
        for (j = 0; j < x->nfound; j++)
            if (j != i && !x->found[j].dropped && x->found[j].region > r0 &&
                x->found[j].region < x->send[r0])
                x->found[i].cccr = 0;
        if (!x->found[i].cccr &&
            an_own_difference(x->o, x->found[i].excess,
                              fmin(x->found[i].impact, x->found[i].own_impact), x->mmed))
            x->found[i].cccr = 1;
    }
    if (nspike)
        return an_note(&x->dc, "%zu process difference%s carried by a few visits (the slow "
                       "processes' visits spread beyond the others' by as much as the "
                       "difference: a CPU-time spike, not more work) %s not reported",
                       nspike, nspike == 1 ? "" : "s", nspike == 1 ? "is" : "are");
    return AA_OK;
}

/* Every process's row of w bytes (local: L of them, v) on every rank, in
 * rank order. */
static int gather_rows(pa *x, const void *v, size_t w, void **all)
{
    size_t n = 0;
    void *buf = NULL;
    int rc = pa_comm(x, x->cm->allgather(x->cm->ctx, v, x->L * w, &buf, &n));
    if (!rc && n != x->P * w) {
        free(buf);
        return aa_err_set(x->err, AA_EENV, "analyze: ranks disagree on the process count");
    }
    *all = buf;
    return rc;
}

/* Every process's int v (local: L of them) on every rank, in rank order. */
static int gather_ints(pa *x, const int *v, int **all)
{
    void *buf = NULL;
    int rc = gather_rows(x, v, sizeof *v, &buf);
    *all = buf;
    return rc;
}

static int dissim_clusters(pa *x)
{
    aa_analysis *a = x->a;
    const pa_found *rep = NULL;
    size_t P = x->P, q, j, k = 0;
    int *loc = calloc(x->L + 1, sizeof *loc), rc;
    double *s;
    for (j = 0; j < x->nfound; j++)
        if (!x->found[j].dropped &&
            (!rep || an_reported_before(x->found[j].cccr, x->found[j].impact, rep->cccr,
                                        rep->impact)))
            rep = &x->found[j];
    if (!loc)
        return pa_nomem(x);
    if (rep) {
        memcpy(loc, rep->lab, x->L * sizeof *loc);
        a->eps_used = rep->cp.eps;
        k = rep->k;
    } else
        k = 1;
    a->optics_level = rep ? rep->level : 0;
    rc = gather_ints(x, loc, &a->cluster_of);
    free(loc);
    if (rc)
        return rc;
    /* labels in first-appearance order (OPTICS numbers them so) */
    {
        int *ren = malloc((k + 1) * sizeof *ren), next = 0;
        if (!ren)
            return pa_nomem(x);
        for (j = 0; j < k; j++)
            ren[j] = -1;
        for (q = 0; q < P; q++) {
            int l = a->cluster_of[q];
            if (ren[l] < 0)
                ren[l] = next++;
            a->cluster_of[q] = ren[l];
        }
        free(ren);
        k = (size_t)next;
    }
    s = calloc(k + 1, sizeof *s);
    a->nclusters = k;
    a->cluster_size = calloc(k + 1, sizeof *a->cluster_size);
    a->cluster_ranks = calloc(k + 1, sizeof *a->cluster_ranks);
    a->cluster_mean = calloc(k + 1, sizeof *a->cluster_mean);
    if (!s || !a->cluster_size || !a->cluster_ranks || !a->cluster_mean) {
        free(s);
        return pa_nomem(x);
    }
    for (q = 0; q < x->L; q++)
        s[a->cluster_of[x->off + q]] += x->MM[q * x->R];
    if ((rc = pa_sum(x, s, k))) {
        free(s);
        return rc;
    }
    for (q = 0; q < P; q++)
        a->cluster_size[a->cluster_of[q]]++;
    for (j = 0; j < k; j++) {
        a->cluster_mean[j] = a->cluster_size[j] ? s[j] / (double)a->cluster_size[j] : 0;
        if (!(a->cluster_ranks[j] = malloc((a->cluster_size[j] + 1) * sizeof **a->cluster_ranks))) {
            free(s);
            return pa_nomem(x);
        }
        a->cluster_size[j] = 0;
    }
    for (q = 0; q < P; q++) {
        size_t l = (size_t)a->cluster_of[q];
        a->cluster_ranks[l][a->cluster_size[l]++] = a->ranks[q];
    }
    free(s);
    return AA_OK;
}

/* dissim.c's wait_site over the ranks: sums of the self MPI wall time of
 * the slow processes and of the others by region. */
/* dissim.c's wait_kind_of over the ranks: the waiting and the slow local
 * processes' own time at region r by kind of MPI call, reduced */
static int wait_kind_of(pa *x, const pa_found *df, size_t r, aa_finding *f)
{
    size_t q, k, i, R = x->R;
    double s[2 * AN_WAIT_KINDS + 2] = {0}, *row = malloc((R + 1) * sizeof *row);
    unsigned char *fin = malloc(R + 1);
    int rc;
    if (!row || !fin) {
        free(row), free(fin);
        return pa_nomem(x);
    }
    for (q = 0; q < x->L; q++) {
        int slow = df->lab[q] == (int)df->slow;
        if ((rc = at_process(x, q))) { /* the block holding q: a pass of its own */
            free(row), free(fin);
            return rc;
        }
        s[2 * AN_WAIT_KINDS + slow] += 1;
        for (k = 0; k < AN_WAIT_KINDS; k++) {
            double v;
            if (!gather_row(x, q, an_wait_metric[k], row, fin))
                continue;
            v = isnan(row[r]) ? 0 : row[r];
            for (i = x->cstart[r]; i < x->cstart[r + 1]; i++)
                v -= isnan(row[x->clist[i]]) ? 0 : row[x->clist[i]];
            s[(slow ? AN_WAIT_KINDS : 0) + k] += v > 0 ? v : 0;
        }
    }
    free(row), free(fin);
    if ((rc = pa_sum(x, s, 2 * AN_WAIT_KINDS + 2)))
        return rc;
    f->wait_kind = an_wait_kind(s, s[2 * AN_WAIT_KINDS], s[2 * AN_WAIT_KINDS + 1]);
    return AA_OK;
}

/* dissim.c's late_by: the slow processes' mean wall time outside MPI in
 * the found region beyond the others'. */
static int late_by(pa *x, const pa_found *df, double *late)
{
    size_t q, R = x->R, r = df->region;
    double s[4] = {0};
    int rc;
    *late = NAN;
    if (!x->usable[M_MPIW])
        return AA_OK;
    for (q = 0; q < x->L; q++) {
        int slow = df->lab[q] == (int)df->slow;
        double w = x->M[M_WALL][q * R + r], m = x->M[M_MPIW][q * R + r];
        s[slow] += isnan(w) ? 0 : w - (isnan(m) ? 0 : m);
        s[2 + slow] += 1;
    }
    if ((rc = pa_sum(x, s, 4)))
        return rc;
    if (s[2] > 0 && s[3] > 0)
        *late = s[1] / s[3] - s[0] / s[2];
    return AA_OK;
}

static int wait_site(pa *x, const pa_found *df, const int *lab_all, aa_finding *f)
{
    size_t L = x->L, R = x->R, P = x->P, q, r;
    double *s, *SM, best = 0, nf = 0, ns = 0;
    int rc;
    f->wait_region = -1;
    f->wait_s = NAN;
    f->late_s = NAN;
    if (!x->usable[M_MPIW])
        return AA_OK;
    f->wait_s = 0;
    s = calloc(2 * R + 2, sizeof *s);
    SM = malloc((L * R + 1) * sizeof *SM);
    if (!s || !SM) {
        free(s), free(SM);
        return pa_nomem(x);
    }
    self_values(x, x->M[M_MPIW], SM, x->L);
    for (q = 0; q < L; q++) {
        int slow = df->lab[q] == (int)df->slow;
        for (r = 1; r < R; r++) {
            double v = SM[q * R + r];
            s[(slow ? R : 0) + r] += isnan(v) ? 0 : v;
        }
        s[2 * R + slow] += 1;
    }
    free(SM);
    if ((rc = pa_sum(x, s, 2 * R + 2))) {
        free(s);
        return rc;
    }
    nf = s[2 * R];
    ns = s[2 * R + 1];
    for (r = 1; r < R; r++) {
        if ((x->whole[r] && r_function(x, r)) || r_setup(x, r))
            continue;
        if (nf > 0 && ns > 0 && s[r] / nf - s[R + r] / ns > best) {
            best = s[r] / nf - s[R + r] / ns;
            f->wait_region = (long)r;
        }
    }
    free(s);
    if (f->wait_region < 0 || best < x->o->resolution_s) {
        f->wait_region = -1;
        return AA_OK;
    }
    if (!(f->wait_ranks = malloc((P + 1) * sizeof *f->wait_ranks)))
        return pa_nomem(x);
    for (q = 0; q < P; q++)
        if (lab_all[q] != (int)df->slow)
            f->wait_ranks[f->nwait++] = x->a->ranks[q];
    f->wait_s = best * (double)f->nwait;
    if ((rc = late_by(x, df, &f->late_s)))
        return rc;
    return wait_kind_of(x, df, (size_t)f->wait_region, f);
}

/* ---- root causes (causes.c) ------------------------------------------------------------ */
/* Attribute d of local process q by region (an_gather_attr's rules) into
 * v; the finite values of its base metrics added to fin[0], fin[1].  tmp:
 * R scratch. */
static void attr_row(pa *x, size_t q, const an_attr_def *d, double *v, double *tmp,
                     unsigned char *anyfin, double *fin)
{
    size_t r, R = x->R;
    if (d->kind == AN_BLOCKED) { /* metrics.c's gather_blocked */
        memset(v, 0, R * sizeof *v);
        if (!x->blocked)
            return;
        an_add_over_subtrees(x->blocked + q * R, NULL, x->send, x->ran + q * R, R, tmp, v);
        for (r = 0; r < R; r++)
            if (!x->ran[q * R + r])
                v[r] = NAN;
        fin[0] += (double)R;
        return;
    }
    fin[0] += (double)gather_row(x, q, d->m1, v, anyfin);
    if (!d->m2)
        return;
    fin[1] += (double)gather_row(x, q, d->m2, tmp, anyfin);
    for (r = 0; r < x->R; r++) {
        double a = v[r], b = tmp[r];
        if (d->kind == AN_SUM)
            v[r] = isnan(a) ? b : isnan(b) ? a : a + b;
        else if (d->kind == AN_RATE)
            v[r] = (isnan(a) || isnan(b)) ? NAN : b > 0 ? a / b : 0;
    }
}

/* The metrics of the MPI traffic rate and size (causes.c's traffic_rates)
 * and of the disk rate (causes.c's disk_rates) */
#define PA_NTRAFFIC 7
static const char *const pa_traffic[PA_NTRAFFIC] = {"mpi_bytes_sent", "mpi_bytes_recv",
                                                    "mpi_wall",       "mpi_calls",
                                                    "io_read_bytes",  "io_write_bytes",
                                                    "io_time"};

/* One pass over the local processes for causes.c's an_attributes: per
 * chosen attribute j, whether its metrics are usable (u[2j], u[2j+1]) and
 * then, in s, their finite counts (2), the region sums and counts of its
 * region means (2R); after them the usability (u) and region sums (s) of
 * the traffic metrics (PA_NTRAFFIC); x->dcol: the processes' values at every CCR. */
static int attr_local(pa *x, double *u, double *s)
{
    an_ctx *c = &x->dc;
    size_t na = c->nattr, L = x->L, R = x->R, nf = x->nfound, q, j, r, i, m;
    double *v = malloc((R + 1) * sizeof *v), *tmp = malloc((R + 1) * sizeof *tmp);
    double *ts = s + na * (2 + 2 * R);
    unsigned char *anyfin = malloc(R + 1);
    int rc = AA_OK;
    if (!(x->dcol = calloc(nf + 1, sizeof *x->dcol)) || !v || !tmp || !anyfin)
        goto oom;
    for (i = 0; i < nf; i++)
        if (!(x->dcol[i] = malloc((L * na + 1) * sizeof **x->dcol)))
            goto oom;
    for (q = 0; q < L; q++) {
        if ((rc = at_process(x, q)))
            goto out;
        for (j = 0; j < na; j++) {
            const an_attr_def *d = c->adefs[j];
            double *sj = s + j * (2 + 2 * R);
            u[2 * j] = fmax(u[2 * j], d->kind == AN_BLOCKED ? x->blocked != NULL
                                                            : usable_here(x, q, d->m1));
            u[2 * j + 1] = fmax(u[2 * j + 1], !d->m2 || usable_here(x, q, d->m2));
            attr_row(x, q, d, v, tmp, anyfin, sj);
            for (r = 0; r < R; r++) {
                if (d->kind != AN_RATE || (x->ran[q * R + r] && !isnan(v[r]))) {
                    sj[2 + r] += isnan(v[r]) ? 0 : v[r];
                    sj[2 + R + r] += 1;
                }
            }
            for (i = 0; i < nf; i++) {
                double y = v[x->found[i].region];
                x->dcol[i][q * na + j] = isnan(y) ? 0 : y;
            }
        }
        for (m = 0; m < PA_NTRAFFIC; m++) {
            u[2 * na + m] = fmax(u[2 * na + m], usable_here(x, q, pa_traffic[m]));
            gather_row(x, q, pa_traffic[m], v, anyfin);
            for (r = 0; r < R; r++)
                ts[m * R + r] += isnan(v[r]) ? 0 : v[r];
        }
    }
    goto out;
oom:
    rc = pa_nomem(x);
out:
    free(v), free(tmp), free(anyfin);
    return rc;
}

/* causes.c's an_attributes over the ranks: the chosen attributes, those
 * measured somewhere (the others listed as unavailable, with the note),
 * their region means (c->aval, reduced), the processes' values at every
 * CCR (x->dcol, local until a CCCR's causes gather them) and the MPI
 * traffic rates (c->traffic_rate). */
static int attributes(pa *x)
{
    an_ctx *c = &x->dc;
    size_t na, R = x->R, j, k, r, used = 0;
    double *u = NULL, *s = NULL, *ts;
    int rc;
    c->P = x->P;
    c->R = R;
    c->send = x->send;
    c->dobj = x->dobj;
    c->ndobj = x->ndobj;
    if ((rc = an_attr_choose(c)))
        return rc;
    na = c->nattr;
    u = calloc(2 * na + PA_NTRAFFIC + 1, sizeof *u);
    s = calloc(na * (2 + 2 * R) + PA_NTRAFFIC * R + 1, sizeof *s);
    c->aval = calloc(na * R + 1, sizeof *c->aval);
    if (!u || !s || !c->aval) {
        rc = pa_nomem(x);
        goto out;
    }
    if ((rc = attr_local(x, u, s)) || (rc = pa_max(x, u, 2 * na + PA_NTRAFFIC)) ||
        (rc = pa_sum(x, s, na * (2 + 2 * R) + PA_NTRAFFIC * R)))
        goto out;
    for (j = 0; j < na; j++) {
        const an_attr_def *d = c->adefs[j];
        const double *sj = s + j * (2 + 2 * R);
        size_t i, q;
        if (!(u[2 * j] > 0 && u[2 * j + 1] > 0 && sj[0] > 0 && (!d->m2 || sj[1] > 0))) {
            if (an_strlist_add(&x->a->unavailable, &x->a->nunavailable, d->name)) {
                rc = pa_nomem(x);
                goto out;
            }
            continue;
        }
        for (r = 0; r < R; r++)
            c->aval[used * R + r] = sj[2 + R + r] > 0 ? sj[2 + r] / sj[2 + R + r] : 0;
        for (i = 0; i < x->nfound; i++) /* column j becomes column used */
            for (q = 0; q < x->L; q++)
                x->dcol[i][q * na + used] = x->dcol[i][q * na + j];
        c->adefs[used] = d;
        c->anames[used] = (char *)d->name;
        used++;
    }
    for (k = 0; k < used; k++)
        if (an_strlist_add(&x->a->attributes, &x->a->nattributes, c->anames[k])) {
            rc = pa_nomem(x);
            goto out;
        }
    x->na_local = na; /* the stride of x->dcol */
    c->nattr = used;
    if ((rc = an_attr_note_unavailable(c)))
        goto out;
    ts = s + na * (2 + 2 * R);
    if (u[2 * na] > 0 && u[2 * na + 1] > 0 && u[2 * na + 2] > 0) {
        if (!(c->traffic_rate = calloc(R + 1, sizeof *c->traffic_rate))) {
            rc = pa_nomem(x);
            goto out;
        }
        for (r = 0; r < R; r++)
            c->traffic_rate[r] = an_per(ts[r] + ts[R + r], ts[2 * R + r]);
        if (u[2 * na + 3] > 0) {
            if (!(c->traffic_size = calloc(R + 1, sizeof *c->traffic_size))) {
                rc = pa_nomem(x);
                goto out;
            }
            for (r = 0; r < R; r++)
                c->traffic_size[r] = an_per(ts[r] + ts[R + r], ts[3 * R + r]);
        }
    }
    if ((u[2 * na + 4] > 0 || u[2 * na + 5] > 0) && u[2 * na + 6] > 0) {
        if (!(c->disk_rate = calloc(R + 1, sizeof *c->disk_rate))) {
            rc = pa_nomem(x);
            goto out;
        }
        for (r = 0; r < R; r++)
            c->disk_rate[r] = an_per(ts[4 * R + r] + ts[5 * R + r], ts[6 * R + r]);
    }
    if (c->nattr > 64)
        c->nattr = 64;
out:
    free(u), free(s);
    return rc;
}

/* The root causes of dissimilarity finding f (found df, its partition lab
 * of all processes): for a CCCR, the attribute columns of its region
 * gathered (P x the attributes: not the profiles) and causes.c's own
 * decision table; the suggestion in any case. */
static int dissim_causes(pa *x, size_t i, const int *lab, aa_finding *f)
{
    an_ctx *c = &x->dc;
    const pa_found *df = &x->found[i];
    size_t na = c->nattr, P = x->P, j, q, w = x->na_local;
    double *val = calloc(na + 1, sizeof *val), *refv = calloc(na + 1, sizeof *refv);
    double *cols = NULL;
    void *all = NULL;
    aa_attrset causes = 0;
    int rc = AA_OK;
    if (!val || !refv) {
        rc = pa_nomem(x);
        goto out;
    }
    if (df->cccr && na) {
        dis_found fd;
        if ((rc = gather_rows(x, x->dcol[i], w * sizeof(double), &all)))
            goto out;
        if (!(cols = malloc((na * P + 1) * sizeof *cols))) {
            rc = pa_nomem(x);
            goto out;
        }
        for (j = 0; j < na; j++)
            for (q = 0; q < P; q++)
                cols[j * P + q] = ((const double *)all)[q * w + j];
        memset(&fd, 0, sizeof fd);
        fd.region = df->region;
        fd.labels = (int *)lab;
        c->ds.found = &fd;
        c->ds.nfound = 1;
        c->dcols = &cols;
        rc = an_dissim_causes(c, 0, df->slow, val, refv, &causes);
        c->ds.found = NULL;
        c->ds.nfound = 0;
        c->dcols = NULL;
    }
    if (!rc)
        rc = an_set_causes(c, f, causes, c->anames, c->adefs, na, val, refv);
out:
    free(val), free(refv), free(cols), free(all);
    return rc;
}

static aa_finding *add_finding(pa *x, aa_finding_kind kind, size_t region)
{
    x->dc.a = x->a;
    return an_add_finding(&x->dc, kind, region);
}

static int dissim_findings(pa *x, long *fof)
{
    size_t i, y, z, q, P = x->P;
    size_t *ord = malloc((x->nfound + 1) * sizeof *ord);
    int rc = AA_OK;
    if (!ord)
        return pa_nomem(x);
    for (i = 0; i < x->nfound; i++)
        ord[i] = i;
    for (y = 1; y < x->nfound; y++) /* dissim.c's dis_order */
        for (z = y; z > 0; z--) {
            const pa_found *u = &x->found[ord[z - 1]], *v = &x->found[ord[z]];
            if (v->cccr > u->cccr || (v->cccr == u->cccr && v->effect > u->effect)) {
                size_t t = ord[z];
                ord[z] = ord[z - 1];
                ord[z - 1] = t;
            } else
                break;
        }
    for (y = 0; y < x->nfound && !rc; y++) {
        const pa_found *df = &x->found[ord[y]];
        aa_finding *f;
        int *lab = NULL;
        if (df->dropped)
            continue;
        if (!(f = add_finding(x, AA_FINDING_DISSIMILARITY, df->region))) {
            rc = pa_nomem(x);
            break;
        }
        fof[x->a->nfindings - 1] = (long)ord[y];
        f->ccr = 1;
        f->cccr = df->cccr;
        f->effect = df->effect;
        f->severity = df->severity;
        f->confidence = df->confidence;
        f->impact_s = df->impact;
        f->excess_s = df->excess;
        f->run_share = an_share_of_run(f->impact_s, x->run_med);
        if ((rc = gather_ints(x, df->lab, &lab)))
            break;
        f->slow_cluster = aa_cluster_same_partition(lab, x->a->cluster_of, P) ? 0 : -1;
        if (f->slow_cluster == 0) /* its id in the renumbered clusters */
            for (q = 0; q < P; q++)
                if (lab[q] == (int)df->slow) {
                    f->slow_cluster = x->a->cluster_of[q];
                    break;
                }
        if (!(f->slow_ranks = malloc((P + 1) * sizeof *f->slow_ranks)))
            rc = pa_nomem(x);
        for (q = 0; q < P && !rc; q++)
            if (lab[q] == (int)df->slow)
                f->slow_ranks[f->nslow++] = x->a->ranks[q];
        if (!rc)
            rc = wait_site(x, df, lab, f);
        if (!rc)
            rc = dissim_causes(x, ord[y], lab, f);
        free(lab);
    }
    free(ord);
    return rc;
}

/* disparity.c's wait_of: the largest per-process wait an imbalance names
 * at region r for local process q. */
static double wait_of(const pa *x, const long *fof, size_t q, size_t r)
{
    const aa_analysis *a = x->a;
    double w = 0;
    size_t i;
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        const pa_found *df;
        if (f->kind == AA_FINDING_DYNAMIC && f->wait_region == (long)r && f->nwait &&
            f->wait_s > 0) { /* every process waits in turn */
            w = fmax(w, f->wait_s / (double)f->nwait);
            continue;
        }
        if (f->kind != AA_FINDING_DISSIMILARITY || f->wait_region != (long)r || !f->nwait ||
            !(f->wait_s > 0) || fof[i] < 0)
            continue;
        df = &x->found[fof[i]];
        if (df->lab[q] != (int)df->slow)
            w = fmax(w, f->wait_s / (double)f->nwait);
    }
    return w;
}

/* disparity.c's decision table (an_disparity_table) of the CCRs isccr on
 * the reduced region means of the attributes: the same on every rank. */
static int disparity_table(pa *x, const int *isccr, const long *rep, an_disp *d)
{
    size_t r, i, R = x->R;
    memset(d, 0, sizeof *d);
    d->n = x->ndobj;
    d->pos = malloc((R + 1) * sizeof *d->pos);
    d->isccr = malloc((R + 1) * sizeof *d->isccr);
    d->iscccr = malloc((R + 1) * sizeof *d->iscccr);
    d->rep = malloc((R + 1) * sizeof *d->rep);
    d->vals = malloc((d->n * x->dc.nattr + 1) * sizeof *d->vals);
    d->dec = malloc((d->n + 1) * sizeof *d->dec);
    if (!d->pos || !d->isccr || !d->iscccr || !d->rep || !d->vals || !d->dec)
        return pa_nomem(x);
    for (r = 0; r < R; r++)
        d->pos[r] = -1;
    for (i = 0; i < d->n; i++)
        d->pos[x->dobj[i]] = (long)i;
    memcpy(d->isccr, isccr, R * sizeof *isccr);
    memcpy(d->iscccr, isccr, R * sizeof *isccr);
    memcpy(d->rep, rep, R * sizeof *rep);
    return an_disparity_table(&x->dc, d);
}

/* A disparity finding's causes (causes.c: an_disparity_causes) and
 * suggestion. */
static int disparity_causes(pa *x, const an_disp *d, size_t rr, aa_finding *f)
{
    an_ctx *c = &x->dc;
    double *val = calloc(c->nattr + 1, sizeof *val), *refv = calloc(c->nattr + 1, sizeof *refv);
    aa_attrset causes = 0;
    int rc;
    if (!val || !refv)
        rc = pa_nomem(x);
    else {
        if (d->iscccr[rr] && d->have_rs)
            causes = an_disparity_causes(c, d, rr, val, refv);
        rc = an_set_causes(c, f, causes, c->anames, c->adefs, c->nattr, val, refv);
    }
    free(val), free(refv);
    return rc;
}

/* findings.c's an_disparity_confidence for the findings from index first:
 * the share of processes on which the region's value lies above the class
 * boundary (counts reduced). */
static int disparity_confidence(pa *x, size_t first)
{
    aa_analysis *a = x->a;
    size_t n = a->nfindings - first, i, q;
    double thr = an_disparity_boundary(&x->dc), *cnt = calloc(n + 1, sizeof *cnt);
    int rc;
    if (!cnt)
        return pa_nomem(x);
    for (i = 0; i < n; i++)
        for (q = 0; q < x->L; q++) {
            const aa_finding *f = &a->findings[first + i];
            size_t k, r;
            double v = 0;
            int ran = 0;
            for (k = 0; k < an_finding_nnodes(f); k++) {
                r = an_finding_node(f, k);
                if (x->ran[q * x->R + r]) {
                    ran = 1;
                    v += region_metric_of(x, q, r);
                }
            }
            cnt[i] += ran && v > thr;
        }
    if (!(rc = pa_sum(x, cnt, n)))
        for (i = 0; i < n; i++)
            a->findings[first + i].confidence = cnt[i] / (double)x->P;
    free(cnt);
    return rc;
}

/* disparity.c's CCRs (with own_value), order, findings with their causes,
 * and their confidence. */
static int disparity_findings(pa *x, const long *fof)
{
    aa_analysis *a = x->a;
    size_t R = x->R, L = x->L, r, q, y, z, k, nwaits = 0, first = a->nfindings;
    double *s = calloc(6 * R + 1, sizeof *s), maxv = 0, *own = s + 5 * R;
    int *isccr = calloc(R + 1, sizeof *isccr), rc = AA_OK;
    size_t *ord = malloc((R + 1) * sizeof *ord);
    long *rep = malloc((R + 1) * sizeof *rep);
    an_disp d;
    memset(&d, 0, sizeof d);
    if (!s || !isccr || !ord || !rep) {
        rc = pa_nomem(x);
        goto out;
    }
    if (!x->ndobj)
        goto out;
    /* s: own fractions with and without waits, self wall */
    for (r = 1; r < R; r++)
        for (q = 0; q < L; q++) {
            size_t k = q * R + r;
            double v = x->SW[k], w, d = x->dwpwt[q];
            s[2 * R + r] += isnan(v) ? 0 : v;
            if (!x->ran[k] || isnan(v))
                continue;
            s[r] += d > 0 ? fmin(1, v / d) : 0;
            if ((w = wait_of(x, fof, q, r)) > 0) {
                v = fmax(0, v - (x->SWmpi ? fmin(w, x->SWmpi[k]) : w));
                s[4 * R + r] = 1; /* some process waits there */
            }
            s[R + r] += d > 0 ? fmin(1, v / d) : 0;
        }
    {
        if ((rc = pa_sum(x, s, 4 * R)) || (rc = pa_max(x, s + 4 * R, R)))
            goto out;
        for (r = 1; r < R; r++) {
            int dob = 0, waited;
            for (y = 0; y < x->ndobj; y++)
                dob |= x->dobj[y] == r;
            isccr[r] = dob && a->severity[r] >= 3 && a->region_value[r] >= x->o->disparity_min_share;
            own[r] = s[r] > 0 ? a->region_value[r] * s[R + r] / s[r] : 0;
            waited = s[4 * R + r] > 0;
            if (isccr[r] && own[r] < x->o->disparity_min_share && waited) {
                isccr[r] = 0;
                nwaits++;
            }
            if (a->region_value[r] > maxv)
                maxv = a->region_value[r];
        }
    }
    if (an_context_hotspots(a, x->dobj, x->ndobj, own, x->o->disparity_min_share, isccr, rep) < 0) {
        rc = pa_nomem(x);
        goto out;
    }
    if ((rc = disparity_table(x, isccr, rep, &d)))
        goto out;
    for (r = 0; r < R; r++)
        ord[r] = r;
    for (y = 1; y < R; y++)
        for (z = y; z > 0; z--) {
            size_t u = ord[z - 1], v = ord[z];
            if (isccr[v] > isccr[u] || (isccr[v] == isccr[u] && a->region_value[v] > a->region_value[u])) {
                ord[z] = u;
                ord[z - 1] = v;
            } else
                break;
        }
    for (y = 0; y < R && !rc; y++) {
        size_t rr = ord[y];
        aa_finding *f;
        if (rr == 0 || !isccr[rr] || (rep[rr] >= 0 && rep[rr] != (long)rr))
            continue; /* a hotspot over contexts once, by its largest */
        if (!(f = add_finding(x, AA_FINDING_DISPARITY, rr)) || an_finding_contexts(f, rep, R, rr)) {
            rc = pa_nomem(x);
            break;
        }
        f->ccr = 1;
        f->cccr = 1;
        f->severity_class = a->severity[rr];
        for (k = 0; k < an_finding_nnodes(f); k++) {
            r = an_finding_node(f, k);
            f->impact_s += s[2 * R + r] / (double)x->P;
            f->effect += a->region_value[r];
        }
        f->excess_s = f->impact_s;
        f->run_share = an_share_of_run(f->impact_s, x->run_med);
        an_disparity_severity(f, maxv);
        rc = disparity_causes(x, &d, rr, f);
    }
    if (!rc)
        rc = disparity_confidence(x, first);
    if (!rc && nwaits)
        rc = an_note(&x->dc, "%zu region%s of the top severity class %s where processes wait for "
                     "an imbalance's slow ones (reported with the imbalance: its waiting), no "
                     "hotspot of %s own", nwaits, nwaits == 1 ? "" : "s",
                     nwaits == 1 ? "is" : "are", nwaits == 1 ? "its" : "their");
out:
    an_disp_free(&d);
    free(s), free(isccr), free(ord), free(rep);
    return rc;
}

/* ---- master detection (tree.c) ------------------------------------------------------------ */
/* tree.c's node_self_work for local process q (loaded): by tree node, its
 * own wall time without the self MPI time of the program and its entry
 * function, >= 0.  incl, mpi: x->t.n scratch. */
static void node_self_work(pa *x, size_t q, double *incl, double *mpi, double *self)
{
    const aa_experiment *e = x->le[q - x->b0];
    const aa_process *pr = x->lp[q - x->b0];
    int mw = aa_experiment_metric_index(e, "wall"), mm = aa_experiment_metric_index(e, "mpi_wall");
    size_t n = x->t.n, th, i, o = 0;
    memset(incl, 0, n * sizeof *incl);
    memset(mpi, 0, n * sizeof *mpi);
    for (th = 0; th < pr->nthreads; th++) {
        const aa_thread *tt = &pr->threads[th];
        for (i = 0; i < tt->nnodes; i++) {
            const double *v = aa_node_values(e, tt, i);
            long t = x->map[q - x->b0][o + i];
            if (an_node_folded(tt, x->map[q - x->b0] + o, i))
                continue;
            incl[t] += mw < 0 || isnan(v[mw]) ? 0 : v[mw];
            mpi[t] += mm < 0 || isnan(v[mm]) ? 0 : v[mm];
        }
        o += tt->nnodes;
    }
    memcpy(self, incl, n * sizeof *self);
    for (i = 1; i < n; i++) {
        self[x->t.par[i]] -= incl[i];
        mpi[x->t.par[i]] -= mpi[i];
    }
    for (i = 0; i < n; i++) {
        if (x->t.par[i] < 0 || x->t.par[x->t.par[i]] < 0)
            self[i] -= mpi[i];
        if (self[i] < 0)
            self[i] = 0;
    }
}

/* The share of local process q's self work in the nodes marked (want 1) or
 * not marked (want 0). */
static double work_share(pa *x, size_t q, const unsigned char *mark, int want, double *scratch)
{
    size_t n = x->t.n, i;
    double *self = scratch + 2 * n, in = 0, all = 0;
    node_self_work(x, q, scratch, scratch + n, self);
    for (i = 0; i < n; i++) {
        all += self[i];
        if ((mark[i] != 0) == want)
            in += self[i];
    }
    return all > 0 ? in / all : 0;
}

/* Per tree node the processes but rank 0 that ran it (cnt, n, reduced),
 * whether rank 0 ran it (r0: n, then: rank 0 is among the processes, and
 * is the first of its analysis rank; reduced maxima); cnt[n]: the other
 * processes. */
static int run_counts(pa *x, double *cnt, double *r0)
{
    size_t n = x->t.n, q, th, i, o;
    size_t *stamp = calloc(n + 1, sizeof *stamp);
    int rc = AA_OK;
    if (!stamp)
        return pa_nomem(x);
    for (q = 0; q < x->L && !rc; q++) {
        const aa_process *pr;
        if ((rc = at_process(x, q)))
            break;
        pr = x->lp[q - x->b0];
        for (th = 0, o = 0; th < pr->nthreads; th++) {
            for (i = 0; i < pr->threads[th].nnodes; i++) {
                long t = x->map[q - x->b0][o + i];
                if (stamp[t] == q + 1)
                    continue;
                stamp[t] = q + 1;
                if (x->rk[q] != 0)
                    cnt[t] += 1;
                else
                    r0[t] = 1;
            }
            o += pr->threads[th].nnodes;
        }
        if (x->rk[q] != 0)
            cnt[n] += 1;
        else {
            r0[n] = 1;
            r0[n + 1] = q == 0;
        }
    }
    free(stamp);
    if (!rc && !(rc = pa_sum(x, cnt, n + 1)))
        rc = pa_max(x, r0, n + 2);
    return rc;
}

/* tree.c's detect_master over the ranks: rank 0 is a master when at least
 * master_min_share of its work is in nodes no other process runs and at
 * least that share of the (lower median) other process's work is in nodes
 * rank 0 does not run.  *master, *share0; cnt, r0 as run_counts. */
static int detect_master(pa *x, const double *cnt, const double *r0, int *master, double *share0)
{
    size_t n = x->t.n, q, i, no = (size_t)cnt[n];
    unsigned char *only0 = calloc(n + 1, 1), *mr0 = calloc(n + 1, 1), *use = malloc(x->L + 1);
    double *scratch = malloc((3 * n + 1) * sizeof *scratch), *os = malloc((x->L + 1) * sizeof *os);
    double k[2], med[2], s0 = 0, min = x->o->master_min_share;
    size_t zero = 0;
    int rc = AA_OK;
    *master = 0;
    *share0 = 0;
    if (!only0 || !mr0 || !use || !scratch || !os) {
        rc = pa_nomem(x);
        goto out;
    }
    for (i = 0; i < n; i++) {
        mr0[i] = r0[i] > 0;
        only0[i] = i > 0 && mr0[i] && cnt[i] == 0;
    }
    for (q = 0; q < x->L; q++) {
        if ((rc = at_process(x, q)))
            goto out;
        use[q] = x->rk[q] != 0;
        os[q] = use[q] ? work_share(x, q, mr0, 0, scratch) : 0;
        if (!use[q])
            s0 = work_share(x, q, only0, 1, scratch);
    }
    k[0] = k[1] = (double)((no - 1) / 2);
    if ((rc = pa_sum(x, &s0, 1)) || (rc = pa_kth(x, os, use, 1, &zero, 1, k, med)))
        goto out;
    *share0 = s0;
    *master = s0 >= min && med[0] >= min;
out:
    free(only0), free(mr0), free(use), free(scratch), free(os);
    return rc;
}

/* The global process count (x->P) and this rank's first process (x->off). */
static int count_processes(pa *x)
{
    double n = (double)x->L;
    void *all = NULL;
    size_t nall = 0;
    int rc = pa_comm(x, x->cm->allgather(x->cm->ctx, &n, sizeof n, &all, &nall)), i;
    if (!rc) {
        const double *c = all;
        x->P = 0;
        for (i = 0; i < x->cm->size; i++) {
            if (i == x->cm->rank)
                x->off = x->P;
            x->P += (size_t)c[i];
        }
    }
    free(all);
    return rc;
}

/* Rank 0 leaves the analysis when it behaves as a master (detect, with
 * auto_exclude_master) or when the analysis a left it out (a set): its
 * process is skipped and the nodes only it ran are no regions. */
static int exclude_master(pa *x, const aa_analysis *a)
{
    size_t n = x->t.n, i;
    double *cnt = calloc(n + 1, sizeof *cnt), *r0 = calloc(n + 2, sizeof *r0), share = 0;
    int master = 0, rc = AA_OK;
    if (!cnt || !r0) {
        free(cnt), free(r0);
        return pa_nomem(x);
    }
    if (a)
        for (i = 0; i < a->nexcluded_ranks; i++)
            master |= a->excluded_ranks[i] == 0;
    if ((!a && !x->o->auto_exclude_master) || (a && !master))
        goto out;
    if ((rc = run_counts(x, cnt, r0)))
        goto out;
    if (!a && r0[n] > 0 && cnt[n] >= 2 && (rc = detect_master(x, cnt, r0, &master, &share)))
        goto out;
    if (!master)
        goto out;
    if (!(r0[n + 1] > 0)) { /* not the first process of its rank: kept */
        rc = an_note(&x->dc, "rank 0 behaves as a master, but the parallel analysis leaves out "
                     "only the first process of an analysis rank: kept");
        goto out;
    }
    if (!(x->keep = calloc(n + 1, 1))) {
        rc = pa_nomem(x);
        goto out;
    }
    for (i = 0; i < n; i++)
        x->keep[i] = i == 0 || cnt[i] > 0;
    if (x->L && x->rk[0] == 0) {
        x->skip = 1;
        x->L--;
        memmove(x->rk, x->rk + 1, x->L * sizeof *x->rk);
        x->bn = 0; /* reload */
    }
    if ((rc = count_processes(x)))
        goto out;
    if (!(x->a->excluded_ranks = calloc(1, sizeof *x->a->excluded_ranks))) {
        rc = pa_nomem(x);
        goto out;
    }
    x->a->nexcluded_ranks = 1;
    if (!a)
        rc = an_note(&x->dc, "rank 0 behaves as a master: excluded (%.0f%% of its work is in "
                     "regions no other process runs, and it does not run the regions holding "
                     "most of the others' work); rerun the analysis with --no-auto-exclude to "
                     "keep it", 100 * share);
out:
    free(cnt), free(r0);
    return rc;
}

/* ---- the job ------------------------------------------------------------------------- */
static int unsupported(pa *x)
{
    const aa_analyze_options *o = x->o;
    if (o->nexclude_ranks || o->nexclude_regions)
        return aa_err_set(x->err, AA_EUSAGE, "the parallel analysis takes no --exclude-ranks or "
                          "--exclude-regions (run the serial analysis)");
    return AA_OK;
}

/* ---- dynamic imbalance ------------------------------------------------------ */
/* One local process's rows of dynamic.c (use[k]: NULL where not measured);
 * have: counts the measured rows. */
static int dynamic_rows(pa *x, size_t q, double **rows, double **use, unsigned char *fin,
                        double *have)
{
    size_t k;
    int rc = at_process(x, q);
    for (k = 0; !rc && k < AN_DYN_ROWS; k++) {
        use[k] = usable_here(x, q, an_dyn_metric(k)) &&
                         gather_row(x, q, an_dyn_metric(k), rows[k], fin)
                     ? rows[k]
                     : NULL;
        if (have)
            have[k] += use[k] != NULL;
    }
    return rc;
}

/* dynamic.c's moving shares of the candidates: the span (summed and the
 * maximum over the ranks' processes), the grid and the latest process's
 * agreement (summed), as the serial phase does. */
static int dynamic_moving(pa *x, const double *s, double **rows, unsigned char *fin,
                          double noise, double *moving, double *agree)
{
    an_dyn_state st;
    double *use[AN_DYN_ROWS];
    size_t q;
    int rc = AA_OK;
    if (an_dyn_begin(&st, s, x->R, x->o, x->mmed, noise, moving, agree))
        return pa_nomem(x);
    for (q = 0; st.nc && !rc && q < x->L; q++)
        if (!(rc = dynamic_rows(x, q, rows, use, fin, NULL)) && use[AN_DYN_R_STEPS])
            an_dyn_span_add(&st, (const double *const *)use, x->cstart, x->clist);
    if (st.nc && !rc && !(rc = pa_sum(x, st.sums, AN_DYN_SPAN_SUMS * st.nc)) &&
        !(rc = pa_max(x, st.most, 2 * st.nc)))
        an_dyn_shape(&st);
    for (q = 0; st.nc && !rc && q < x->L; q++)
        if (!(rc = dynamic_rows(x, q, rows, use, fin, NULL)) && use[AN_DYN_R_STEPS])
            an_dyn_grid_add(&st, (const double *const *)use, x->cstart, x->clist);
    if (st.nc && !rc)
        rc = pa_sum(x, st.g, 2 * AN_DYN_GRID * st.nc);
    for (q = 0; st.nc && !rc && q < x->L; q++)
        if (!(rc = dynamic_rows(x, q, rows, use, fin, NULL)) && use[AN_DYN_R_STEPS])
            an_dyn_latest_add(&st, (const double *const *)use, x->cstart, x->clist);
    if (st.nc && !rc)
        rc = pa_sum(x, st.lat, 2 * st.nc);
    an_dyn_end(&st, rc ? NULL : moving, rc ? NULL : agree);
    return rc;
}

/* dynamic.c's machine noise: noise_one_visit where some processes shared a
 * CPU (the placement keys of every rank) or were preempted (self_wall's
 * count), 0 otherwise. */
static int dynamic_noise(pa *x, double *noise)
{
    uint64_t *keys = NULL;
    int rc = gather_rows(x, x->place_key, sizeof *x->place_key, (void **)&keys), shared;
    *noise = 0;
    if (rc)
        return rc;
    if ((shared = an_place_shared(keys, x->P)) < 0)
        rc = pa_nomem(x);
    else if (an_dyn_cpu_shared(shared, x->npreempted))
        *noise = x->a->noise_one_visit;
    free(keys);
    return rc;
}

/* dynamic.c's sums of the local processes (a pass over them), reduced; then
 * the moving shares and its findings, the same on every rank. */
static int dynamic_findings(pa *x)
{
    size_t R = x->R, q, k, r;
    double have[AN_DYN_ROWS] = {0}, *rows[AN_DYN_ROWS] = {0}, *s, *moving, *agree, noise = 0;
    double *use[AN_DYN_ROWS];
    unsigned char *fin = malloc(R + 1), *inner = calloc(R + 1, 1);
    int rc = AA_OK, ok = fin && inner;
    s = calloc(R * AN_DYN_SUMS + 1, sizeof *s);
    moving = malloc((R + 1) * sizeof *moving);
    agree = malloc((R + 1) * sizeof *agree);
    for (k = 0; k < AN_DYN_ROWS; k++)
        ok &= (rows[k] = malloc((R + 1) * sizeof *rows[k])) != NULL;
    if (!ok || !s || !moving || !agree)
        rc = pa_nomem(x);
    for (q = 0; !rc && q < x->L; q++)
        if (!(rc = dynamic_rows(x, q, rows, use, fin, have)) && use[AN_DYN_R_STEPS])
            an_dynamic_add(s, R, (const double *const *)use, x->cstart, x->clist, x->o);
    if (!rc && !(rc = pa_sum(x, have, AN_DYN_ROWS)) && x->P >= 2 && have[AN_DYN_R_STEPS] > 0 &&
        !(rc = pa_sum(x, s, R * AN_DYN_SUMS)) && !(rc = dynamic_noise(x, &noise)) &&
        !(rc = dynamic_moving(x, s, rows, fin, noise, moving, agree))) {
        x->a->dynamic_measured = 1;
        for (r = 0; r < R; r++)
            inner[r] = (x->rkind[r] & (RK_FUNCTION | RK_CALL)) != 0;
        x->dc.run_med = x->run_med;
        x->dc.wmed = x->wmed;
        rc = an_dynamic_findings_from(&x->dc, s, moving, agree, inner, x->send, x->cstart,
                                      x->clist, x->mmed, noise);
    }
    for (k = 0; k < AN_DYN_ROWS; k++)
        free(rows[k]);
    free(s), free(moving), free(agree), free(fin), free(inner);
    return rc;
}

static int run(pa *x)
{
    long *fof = NULL;
    int rc = count_processes(x);
    if (!rc && x->P == 0)
        rc = aa_err_set(x->err, AA_EINPUT, "no processes to analyse");
    if (rc || (rc = unsupported(x)) || (rc = build_tree(x)) || (rc = exclude_master(x, NULL)))
        return rc;
    x->a->nprocesses = x->P;
    if (x->P == 0)
        return aa_err_set(x->err, AA_EINPUT, "no processes to analyse (rank 0 excluded)");
    if ((rc = gather_ints(x, x->rk, &x->a->ranks)) || (rc = build_regions(x)) ||
        (rc = region_kinds(x)) || (rc = gather_values(x)) || (rc = wall_wpwt(x)) ||
        (rc = whole_chain(x)) ||
        (rc = main_metric(x)) || (rc = disparity_classes(x)))
        return rc;
    if (x->P == 1 && (rc = an_note(&x->dc, "single process: no dissimilarity analysis")))
        return rc;
    if ((x->P >= 2 && (rc = search_levels(x))) || (rc = attributes(x)))
        return rc;
    if ((rc = dissim_impact(x)) || (rc = dissim_clusters(x)))
        return rc;
    if (!(fof = malloc((x->nfound + 1) * sizeof *fof)))
        return pa_nomem(x);
    if (!(rc = dissim_findings(x, fof)) && !(rc = dynamic_findings(x)))
        rc = disparity_findings(x, fof);
    free(fof);
    if (!rc && x->P >= 2 && !x->fixed_eps &&
        an_suspects(x->a, x->range, x->pre, x->send, x->o->resolution_s))
        rc = pa_nomem(x);
    if (!rc)
        rc = an_rank_findings(&x->dc);
    return rc;
}

static void pa_free(pa *x)
{
    size_t i;
    an_rtree_free(&x->t);
    for (i = 0; i < x->mapn; i++)
        free(x->map[i]);
    free(x->map);
    free(x->rk);
    free(x->keep);
    free(x->t2r);
    free(x->cstart);
    free(x->clist);
    free(x->send);
    free(x->rkind);
    free(x->ran);
    for (i = 0; i < M_N; i++)
        free(x->M[i]);
    free(x->MM);
    free(x->MMraw);
    free(x->SW);
    free(x->SWmpi);
    free(x->blocked);
    free(x->wpwt);
    free(x->idle_mpi);
    free(x->dwpwt);
    free(x->whole);
    free(x->run_delay);
    free(x->pace);
    free(x->place_key);
    free(x->cap);
    free(x->dobj);
    free(x->pre);
    free(x->range);
    for (i = 0; i < x->nfound; i++) {
        free(x->found[i].lab);
        free(x->dcol ? x->dcol[i] : NULL);
    }
    free(x->found);
    free(x->dcol);
    free(x->dc.adefs);
    free(x->dc.fixm);
    free(x->dc.callm);
    free(x->dc.anames);
    free(x->dc.aval);
    free(x->dc.traffic_rate);
    free(x->dc.traffic_size);
    free(x->dc.disk_rate);
}

/* The job's state over the local processes of src (options o, or the
 * defaults in *defo), with an empty analysis of experiment info. */
static int pa_begin(pa *x, const aa_pcomm *cm, const aa_psource *src, const aa_experiment *info,
                    const aa_analyze_options *o, aa_analyze_options *defo, aa_err *err)
{
    if (!o) {
        aa_analyze_options_init(defo);
        o = defo;
    }
    memset(x, 0, sizeof *x);
    x->cm = cm;
    x->o = o;
    x->err = err;
    x->src = src;
    x->L = src->n;
    if (!(x->a = calloc(1, sizeof *x->a)))
        return aa_err_set(err, AA_EENV, "analyze: out of memory");
    x->a->exp = info;
    x->dc.err = err;
    x->dc.o = o;
    x->dc.a = x->a;
    return AA_OK;
}

int aa_analyze_parallel_source(const aa_pcomm *cm, const aa_psource *src,
                               const aa_experiment *info, const aa_analyze_options *o,
                               aa_analysis **out, aa_err *err)
{
    pa x;
    aa_analyze_options defo;
    int rc;
    *out = NULL;
    if ((rc = pa_begin(&x, cm, src, info, o, &defo, err)))
        return rc;
    x.a->proc_metric = "cpu";
    x.a->region_metric = "crnm";
    x.a->optics_level = 0;
    rc = run(&x);
    pa_free(&x);
    if (rc) {
        aa_analyze_free(x.a);
        return rc;
    }
    *out = x.a;
    return AA_OK;
}

/* ---- processes held in memory ------------------------------------------------------ */
typedef struct mem_src {
    const aa_experiment *const *exps;
    const aa_process *const *procs;
    size_t n;
} mem_src;

static int mem_load(void *ctx, size_t first, size_t *count, const aa_experiment *const **exps,
                    const aa_process *const **procs, aa_err *err)
{
    const mem_src *m = ctx;
    (void)err;
    *count = m->n - first;
    *exps = m->exps + first;
    *procs = m->procs + first;
    return AA_OK;
}

static void mem_source(aa_psource *src, mem_src *m, const aa_experiment *const *exps,
                       const aa_process *const *procs, size_t n)
{
    m->exps = exps;
    m->procs = procs;
    m->n = n;
    src->n = n;
    src->ctx = m;
    src->load = mem_load;
}

int aa_analyze_parallel(const aa_pcomm *cm, const aa_experiment *const *exps,
                        const aa_process *const *procs, size_t n, const aa_experiment *info,
                        const aa_analyze_options *o, aa_analysis **out, aa_err *err)
{
    aa_psource src;
    mem_src m;
    mem_source(&src, &m, exps, procs, n);
    return aa_analyze_parallel_source(cm, &src, info, o, out, err);
}

/* ---- region distributions ------------------------------------------------------- */
/* n, mean, stddev, min, max and the exact median and p90 of column r of the
 * L x R values v (where ran and finite) over the ranks, into d[r]. */
static int dist_of(pa *x, const double *v, aa_region_dist *d)
{
    size_t L = x->L, R = x->R, q, r;
    double *s = calloc(5 * R + 1, sizeof *s), *k = calloc(2 * R + 1, sizeof *k);
    double *o = calloc(2 * R + 1, sizeof *o), *med = calloc(R + 1, sizeof *med);
    size_t *col = malloc((R + 1) * sizeof *col);
    unsigned char *use = malloc(L * R + 1);
    int rc;
    if (!s || !k || !o || !med || !col || !use) {
        rc = pa_nomem(x);
        goto out;
    }
    for (r = 0; r < R; r++) {
        col[r] = r;
        s[3 * R + r] = -INFINITY; /* max */
        s[4 * R + r] = -INFINITY; /* -min */
    }
    for (q = 0; q < L; q++)
        for (r = 0; r < R; r++) {
            size_t i = q * R + r;
            double y = v[i];
            use[i] = x->ran[i] && isfinite(y) && y >= 0;
            if (!use[i])
                continue;
            s[r] += 1;
            s[R + r] += y;
            s[2 * R + r] += y * y;
            s[3 * R + r] = fmax(s[3 * R + r], y);
            s[4 * R + r] = fmax(s[4 * R + r], -y);
        }
    if ((rc = pa_sum(x, s, 3 * R)) || (rc = pa_max(x, s + 3 * R, 2 * R)) ||
        (rc = pa_medians(x, v, use, R, col, R, med)))
        goto out;
    for (r = 0; r < R; r++) {
        size_t n = (size_t)s[r];
        k[2 * r] = k[2 * r + 1] = n ? ceil(0.9 * (double)n) - 1 : -1;
    }
    if ((rc = pa_kth(x, v, use, R, col, R, k, o)))
        goto out;
    for (r = 0; r < R; r++) {
        double n = s[r], mean = n > 0 ? s[R + r] / n : 0;
        d[r].n = (size_t)n;
        d[r].mean = mean;
        d[r].stddev = n > 0 ? sqrt(fmax(0, s[2 * R + r] / n - mean * mean)) : 0;
        d[r].max = n > 0 ? s[3 * R + r] : 0;
        d[r].min = n > 0 ? -s[4 * R + r] : 0;
        d[r].median = med[r];
        d[r].p90 = n > 0 ? o[2 * r] : 0;
    }
out:
    free(s), free(k), free(o), free(med), free(col), free(use);
    return rc;
}

int aa_analyze_parallel_dist_source(const aa_pcomm *cm, const aa_psource *src,
                                    const aa_analysis *a, const aa_analyze_options *o,
                                    aa_region_dist **dist, aa_err *err)
{
    pa x;
    aa_analyze_options defo;
    aa_region_dist *d = NULL;
    int rc;
    *dist = NULL;
    if ((rc = pa_begin(&x, cm, src, a->exp, o, &defo, err)))
        return rc;
    x.P = a->nprocesses;
    /* the phases the distributions need, as aa_analyze_parallel ran them */
    if (!(rc = build_tree(&x)) && !(rc = exclude_master(&x, a)) && !(rc = build_regions(&x)) &&
        !(rc = region_kinds(&x)) && !(rc = gather_values(&x)) && !(rc = main_metric(&x))) {
        if (x.R != a->nregions)
            rc = aa_err_set(err, AA_EUSAGE, "analyze: the distributions' processes are not the "
                            "analysis' (%zu regions, %zu)", x.R, a->nregions);
        else if (!(d = calloc(2 * x.R + 1, sizeof *d)))
            rc = pa_nomem(&x);
        else if (!(rc = dist_of(&x, x.M[M_WALL], d)))
            rc = dist_of(&x, x.MM, d + x.R);
    }
    pa_free(&x);
    aa_analyze_free(x.a);
    if (rc) {
        free(d);
        return rc;
    }
    *dist = d;
    return AA_OK;
}

int aa_analyze_parallel_dist(const aa_pcomm *cm, const aa_experiment *const *exps,
                             const aa_process *const *procs, size_t n, const aa_analysis *a,
                             const aa_analyze_options *o, aa_region_dist **dist, aa_err *err)
{
    aa_psource src;
    mem_src m;
    mem_source(&src, &m, exps, procs, n);
    return aa_analyze_parallel_dist_source(cm, &src, a, o, dist, err);
}

/* ---- one rank ----------------------------------------------------------------------- */
static int one_reduce(void *ctx, double *v, size_t n)
{
    (void)ctx, (void)v, (void)n;
    return 0;
}

static int one_allgather(void *ctx, const void *buf, size_t n, void **all, size_t *nall)
{
    (void)ctx;
    if (!(*all = malloc(n ? n : 1)))
        return -1;
    if (n)
        memcpy(*all, buf, n);
    *nall = n;
    return 0;
}

static int one_send(void *ctx, int dest, const void *buf, size_t n)
{
    (void)ctx, (void)dest, (void)buf, (void)n;
    return -1;
}

static int one_recv(void *ctx, int src, void **buf, size_t *n)
{
    (void)ctx, (void)src, (void)buf, (void)n;
    return -1;
}

static int one_bcast(void *ctx, void **buf, size_t *n)
{
    (void)ctx, (void)buf, (void)n;
    return 0;
}

void aa_pcomm_single(aa_pcomm *cm)
{
    memset(cm, 0, sizeof *cm);
    cm->rank = 0;
    cm->size = 1;
    cm->sum = one_reduce;
    cm->max = one_reduce;
    cm->allgather = one_allgather;
    cm->send = one_send;
    cm->recv = one_recv;
    cm->bcast = one_bcast;
}
