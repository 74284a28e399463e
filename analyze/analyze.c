/*
 * analyze/analyze.c -- the offline analysis of SPEC §5.
 *
 * 1. Region tree: the calling-context nodes of every thread of every
 *    analysed process are merged into one tree whose nodes are identified by
 *    their path of static region ids (threads of a process are summed).
 * 2. Dissimilarity (§5.1, §5.3): per-process vectors of the main metric (CPU
 *    time outside MPI, or wall time outside MPI) over the regions of one tree
 *    level, clustered with OPTICS; CCR tests by removing a component and by
 *    clustering a component alone; recursion into the children of CCRs.
 * 3. Disparity (§5.2, §5.3): CRNM (or CPI, or wall fraction) averaged over
 *    processes, 5 severity classes by exact 1-D k-means, CCR/CCCR.
 * 4. Root causes (§5.4): one dissimilarity decision table per dissimilarity
 *    CCCR and one disparity table, analysed with roughset/.
 * Values are inclusive (every metric except wall_excl is recorded inclusive);
 * see docs/analysis.md for the exact definitions.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"
#include "roughset/aa_roughset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- attribute table ------------------------------------------------------ */
static const an_attr_def attr_defs[] = {
    {"l1_miss_rate", "l1_dcm", "l1_dca", AN_RATE, 1,
     "many L1 data cache misses: improve locality (loop interchange, blocking, contiguous access)",
     NULL},
    {"l2_miss_rate", "l2_dcm", "l2_dca", AN_RATE, 1,
     "many L2 cache misses: block loops for the cache, shrink the working set, improve data layout",
     NULL},
    {"disk_io_bytes", "io_read_bytes", "io_write_bytes", AN_SUM, 1,
     "heavy disk I/O: buffer output, use collective I/O, fewer and larger writes", NULL},
    {"mpi_bytes", "mpi_bytes_sent", "mpi_bytes_recv", AN_SUM, 1,
     "much MPI traffic: aggregate messages, send less data, overlap communication with computation",
     NULL},
    {"instructions", "instructions", NULL, AN_ONE, 1,
     "much computation: use a cheaper algorithm, vectorize, avoid redundant work",
     "these processes execute more instructions here: redistribute the work (load imbalance)"},
    {"mpi_time", "mpi_wall", NULL, AN_ONE, 1,
     "much time inside MPI: reduce synchronization, overlap communication, balance the load that causes waiting",
     NULL},
    {"io_time", "io_time", NULL, AN_ONE, 1,
     "much time inside I/O calls: buffer, use asynchronous or collective I/O", NULL},
    {"page_faults", "page_faults", NULL, AN_ONE, 0,
     "many page faults: reduce the memory footprint, reuse buffers, touch memory in order", NULL},
    {"cpi", "cycles", "instructions", AN_RATE, 0,
     "high cycles per instruction: look at memory stalls and dependencies", NULL},
};

const an_attr_def *an_attr_table(size_t *n)
{
    *n = sizeof attr_defs / sizeof attr_defs[0];
    return attr_defs;
}

const an_attr_def *an_attr_find(const char *name)
{
    size_t i, n;
    const an_attr_def *t = an_attr_table(&n);
    for (i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

int an_strlist_add(char ***list, size_t *n, const char *s)
{
    char **nl = realloc(*list, (*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (!(nl[*n] = aa_strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

void an_strlist_free(char **list, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* ---- context -------------------------------------------------------------- */
typedef struct an_ctx {
    const aa_experiment *e;
    const aa_analyze_options *o;
    aa_analysis *a;
    aa_err *err;
    /* merged tree (all nodes of all non-excluded processes) */
    size_t ntree, tcap;
    uint32_t *tid;    /* static region id */
    long *tparent;    /* tree index of the parent, -1 for the root */
    uint64_t *hkeys;  /* open addressing: (parent+1)<<32 | id, 0 = empty */
    long *hvals;
    size_t hcap;
    long **map;       /* by experiment process, thread-major flat: node -> tree */
    size_t *mapoff;   /* by experiment process: offsets of threads in map */
    /* analysed processes */
    size_t P;
    size_t *proc;     /* experiment process indices */
    /* regions (kept tree nodes) */
    size_t R;
    long *t2r;        /* tree index -> region index, -1 dropped */
    size_t *r2t;
    size_t *cstart, *clist; /* children of region r: clist[cstart[r]..cstart[r+1]) */
    unsigned char *ran;     /* P*R */
    double *wpwt;           /* by analysed process */
    unsigned char *whole;   /* by region: stands for the whole program */
    unsigned char *exroot;  /* by tree node: topmost node excluded by region */
    size_t *dobj, ndobj;    /* regions classified by the disparity analysis */
    size_t *send;           /* by region: end of its subtree (preorder) */
} an_ctx;

static int nomem(an_ctx *c);
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median whole-program time of the analysed processes (0 if none). */
static double median_wpwt(const an_ctx *c)
{
    double *w = malloc((c->P ? c->P : 1) * sizeof *w), m = 0;
    size_t q, n = 0;
    if (!w)
        return 0;
    for (q = 0; q < c->P; q++)
        if (c->wpwt[q] > 0 && isfinite(c->wpwt[q]))
            w[n++] = c->wpwt[q];
    if (n) {
        qsort(w, n, sizeof *w, cmp_dbl);
        m = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    }
    free(w);
    return m;
}

static int nomem(an_ctx *c)
{
    return aa_err_set(c->err, AA_EENV, "analyze: out of memory");
}

static int note(an_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note_throttled(an_ctx *c);
static int note(an_ctx *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return an_strlist_add(&c->a->notes, &c->a->nnotes, buf) ? nomem(c) : AA_OK;
}

static uint64_t hkey(long parent, uint32_t id)
{
    return ((uint64_t)(parent + 1) << 32 | id) + 1; /* never 0 */
}

static size_t hslot(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static int tree_rehash(an_ctx *c)
{
    size_t ncap = c->hcap ? c->hcap * 2 : 1024, i;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    long *nv = malloc(ncap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (i = 0; i < c->hcap; i++)
        if (c->hkeys[i]) {
            size_t s = hslot(c->hkeys[i], ncap);
            while (nk[s])
                s = (s + 1) & (ncap - 1);
            nk[s] = c->hkeys[i];
            nv[s] = c->hvals[i];
        }
    free(c->hkeys);
    free(c->hvals);
    c->hkeys = nk;
    c->hvals = nv;
    c->hcap = ncap;
    return 0;
}

/* Tree index of child `id` of `parent` (created when missing); -1 on no memory. */
static long tree_child(an_ctx *c, long parent, uint32_t id)
{
    uint64_t k = hkey(parent, id);
    size_t s;
    if ((c->ntree + 1) * 2 > c->hcap && tree_rehash(c))
        return -1;
    s = hslot(k, c->hcap);
    while (c->hkeys[s]) {
        if (c->hkeys[s] == k)
            return c->hvals[s];
        s = (s + 1) & (c->hcap - 1);
    }
    if (c->ntree == c->tcap) {
        size_t nc = c->tcap ? c->tcap * 2 : 256;
        uint32_t *ni = realloc(c->tid, nc * sizeof *ni);
        long *np;
        if (!ni)
            return -1;
        c->tid = ni;
        np = realloc(c->tparent, nc * sizeof *np);
        if (!np)
            return -1;
        c->tparent = np;
        c->tcap = nc;
    }
    c->tid[c->ntree] = id;
    c->tparent[c->ntree] = parent;
    c->hkeys[s] = k;
    c->hvals[s] = (long)c->ntree;
    return (long)c->ntree++;
}

static int rank_excluded(const aa_analyze_options *o, int rank)
{
    size_t i;
    for (i = 0; i < o->nexclude_ranks; i++)
        if (o->exclude_ranks[i] == rank)
            return 1;
    return 0;
}

static int region_excluded(const aa_analyze_options *o, const aa_region *r, uint32_t id)
{
    size_t i;
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%u", id);
    for (i = 0; i < o->nexclude_regions; i++) {
        const char *pat = o->exclude_regions[i];
        if (strcmp(pat, idbuf) == 0)
            return 1;
        if (r && r->name && aa_glob_match(pat, r->name))
            return 1;
        if (r && r->function && r->kind == AA_KIND_FUNCTION && aa_glob_match(pat, r->function))
            return 1;
    }
    return 0;
}

/* Maps every node of every thread of the candidate processes into the tree. */
static int build_tree(an_ctx *c, const unsigned char *cand)
{
    const aa_experiment *e = c->e;
    size_t p, t, i, total = 0;
    if (tree_child(c, -2, AA_REGION_ROOT) != 0) /* root = tree index 0 */
        return nomem(c);
    c->mapoff = calloc(e->nprocesses + 1, sizeof *c->mapoff);
    c->map = calloc(e->nprocesses ? e->nprocesses : 1, sizeof *c->map);
    if (!c->mapoff || !c->map)
        return nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        size_t n = 0, off = 0;
        if (!cand[p])
            continue;
        for (t = 0; t < pr->nthreads; t++)
            n += pr->threads[t].nnodes;
        c->map[p] = malloc((n ? n : 1) * sizeof **c->map);
        if (!c->map[p])
            return nomem(c);
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            long *m = c->map[p] + off;
            for (i = 0; i < th->nnodes; i++) {
                const aa_node *nd = &th->nodes[i];
                long par;
                if (nd->parent < 0) {
                    if (nd->region == AA_REGION_ROOT) {
                        m[i] = 0;
                        continue;
                    }
                    par = 0;
                } else if (nd->parent >= (int32_t)i) {
                    return aa_err_set(c->err, AA_EINPUT,
                                      "rank %d thread %d node %zu: parent does not precede it",
                                      pr->rank, th->id, i);
                } else {
                    par = m[nd->parent];
                }
                if ((m[i] = tree_child(c, par, nd->region)) < 0)
                    return nomem(c);
            }
            off += th->nnodes;
        }
        total += n;
    }
    (void)total;
    return AA_OK;
}

static int cmp_u32_node(const void *a, const void *b, void *arg)
{
    const uint32_t *id = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return id[x] < id[y] ? -1 : id[x] > id[y];
}

/* Processes that ran tree node n (per candidate), into cnt[n]. */
static int count_runs(an_ctx *c, const unsigned char *sel, size_t *cnt, int only_rank,
                      unsigned char *mark)
{
    const aa_experiment *e = c->e;
    size_t p, t, i;
    unsigned char *seen = calloc(c->ntree ? c->ntree : 1, 1);
    if (!seen)
        return nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        size_t off = 0;
        if (!sel[p] || (only_rank >= 0 && pr->rank != only_rank))
            continue;
        memset(seen, 0, c->ntree);
        for (t = 0; t < pr->nthreads; t++) {
            for (i = 0; i < pr->threads[t].nnodes; i++)
                seen[c->map[p][off + i]] = 1;
            off += pr->threads[t].nnodes;
        }
        for (i = 0; i < c->ntree; i++)
            if (seen[i]) {
                if (cnt)
                    cnt[i]++;
                if (mark)
                    mark[i] = 1;
            }
    }
    free(seen);
    return AA_OK;
}

/* Master detection (§5.1): rank 0 runs regions no other process runs, and
 * does not run some region every other process runs. */
static int detect_master(an_ctx *c, unsigned char *cand, int *is_master, size_t *nonly)
{
    const aa_experiment *e = c->e;
    size_t p, i, nothers = 0, only = 0, missing = 0;
    size_t *cnt = calloc(c->ntree, sizeof *cnt);
    unsigned char *r0 = calloc(c->ntree, 1), *others = malloc(e->nprocesses);
    long p0 = -1;
    *is_master = 0;
    *nonly = 0;
    if (!cnt || !r0 || !others) {
        free(cnt);
        free(r0);
        free(others);
        return nomem(c);
    }
    for (p = 0; p < e->nprocesses; p++) {
        others[p] = cand[p] && e->processes[p].rank != 0;
        nothers += others[p];
        if (cand[p] && e->processes[p].rank == 0)
            p0 = (long)p;
    }
    if (p0 >= 0 && nothers >= 2) {
        count_runs(c, others, cnt, -1, NULL);
        count_runs(c, cand, NULL, 0, r0);
        for (i = 1; i < c->ntree; i++) {
            if (r0[i] && cnt[i] == 0)
                only++;
            if (!r0[i] && cnt[i] == nothers)
                missing++;
        }
        if (only && missing) {
            *is_master = 1;
            *nonly = only;
        }
    }
    free(cnt);
    free(r0);
    free(others);
    return AA_OK;
}

/* Orders kept nodes depth-first (children by region id) into regions[]. */
static int build_regions(an_ctx *c, const unsigned char *keep)
{
    size_t i, n = c->ntree, k;
    size_t *ccount = calloc(n + 1, sizeof *ccount), *cst = calloc(n + 1, sizeof *cst);
    size_t *cl = malloc((n ? n : 1) * sizeof *cl), *stack = malloc((n + 1) * sizeof *stack);
    size_t sp = 0;
    aa_analysis *a = c->a;
    if (!ccount || !cst || !cl || !stack)
        goto oom;
    for (i = 1; i < n; i++)
        if (keep[i])
            ccount[c->tparent[i]]++;
    for (i = 0; i < n; i++)
        cst[i + 1] = cst[i] + ccount[i];
    memset(ccount, 0, (n + 1) * sizeof *ccount);
    for (i = 1; i < n; i++)
        if (keep[i]) {
            size_t pp = (size_t)c->tparent[i];
            cl[cst[pp] + ccount[pp]++] = i;
        }
    for (i = 0; i < n; i++)
        qsort_r(cl + cst[i], cst[i + 1] - cst[i], sizeof *cl, cmp_u32_node, c->tid);
    c->t2r = malloc((n ? n : 1) * sizeof *c->t2r);
    c->r2t = malloc((n ? n : 1) * sizeof *c->r2t);
    a->regions = calloc(n ? n : 1, sizeof *a->regions);
    if (!c->t2r || !c->r2t || !a->regions)
        goto oom;
    for (i = 0; i < n; i++)
        c->t2r[i] = -1;
    c->R = 0;
    stack[sp++] = 0;
    while (sp) {
        size_t t = stack[--sp], r = c->R++;
        aa_an_region *ar = &a->regions[r];
        c->t2r[t] = (long)r;
        c->r2t[r] = t;
        ar->index = r + 1;
        ar->id = c->tid[t];
        ar->parent = t == 0 ? -1 : c->t2r[c->tparent[t]];
        ar->depth = t == 0 ? 0 : a->regions[ar->parent].depth + 1;
        ar->info = aa_experiment_region(c->e, ar->id);
        for (k = cst[t + 1]; k > cst[t]; k--)
            stack[sp++] = cl[k - 1];
    }
    a->nregions = c->R;
    /* children lists by region index */
    c->cstart = calloc(c->R + 1, sizeof *c->cstart);
    c->clist = malloc((c->R ? c->R : 1) * sizeof *c->clist);
    if (!c->cstart || !c->clist)
        goto oom;
    for (i = 1; i < c->R; i++)
        c->cstart[a->regions[i].parent + 1]++;
    for (i = 0; i < c->R; i++)
        c->cstart[i + 1] += c->cstart[i];
    memset(ccount, 0, (n + 1) * sizeof *ccount);
    for (i = 1; i < c->R; i++) { /* preorder: children come in id order */
        size_t pp = (size_t)a->regions[i].parent;
        c->clist[c->cstart[pp] + ccount[pp]++] = i;
    }
    free(ccount);
    free(cst);
    free(cl);
    free(stack);
    return AA_OK;
oom:
    free(ccount);
    free(cst);
    free(cl);
    free(stack);
    return nomem(c);
}

static size_t nchildren(const an_ctx *c, size_t r)
{
    return c->cstart[r + 1] - c->cstart[r];
}

/* ---- metric gathering ------------------------------------------------------ */
/* Sums metric mi over threads into M (P x R, region-major per process); nodes
 * a process did not run stay 0; a node whose values are all NaN is NaN.
 * Returns the number of finite values seen. */
static size_t gather(an_ctx *c, int mi, double *M)
{
    const aa_experiment *e = c->e;
    size_t P = c->P, R = c->R, q, t, i, finite = 0;
    unsigned char *anyfin;
    memset(M, 0, P * R * sizeof *M);
    if (mi < 0)
        return 0;
    anyfin = calloc(R ? R : 1, 1);
    if (!anyfin)
        return 0;
    for (q = 0; q < P; q++) {
        size_t p = c->proc[q], off = 0;
        const aa_process *pr = &e->processes[p];
        double *row = M + q * R;
        memset(anyfin, 0, R);
        for (t = 0; t < pr->nthreads; t++) {
            const aa_thread *th = &pr->threads[t];
            const double *v = th->values + mi;
            for (i = 0; i < th->nnodes; i++, v += e->nmetrics) {
                long ti = c->map[p][off + i], r = c->t2r[ti];
                if (r < 0) {
                    /* excluded code does not count in its ancestors either */
                    if (c->exroot && c->exroot[ti] && !isnan(*v)) {
                        long up;
                        for (up = c->tparent[ti]; up >= 0; up = c->tparent[up])
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
    }
    free(anyfin);
    return finite;
}

/* A metric is usable when it is in the experiment, at least one analysed
 * process measured it, and some value is finite. */
static int metric_usable(an_ctx *c, const char *name, int *mi)
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

static int fill_ran(an_ctx *c)
{
    const aa_experiment *e = c->e;
    size_t q, t, i;
    c->ran = calloc((c->P * c->R) + 1, 1);
    if (!c->ran)
        return nomem(c);
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

/* Attribute values (P x R) into M; returns 1 when available. */
static int gather_attr(an_ctx *c, const an_attr_def *d, double *M, double *tmp)
{
    int m1, m2 = -1;
    size_t i, n = c->P * c->R, f1, f2 = 1;
    if (!metric_usable(c, d->m1, &m1))
        return 0;
    if (d->m2 && !metric_usable(c, d->m2, &m2))
        return 0;
    f1 = gather(c, m1, M);
    if (d->m2)
        f2 = gather(c, m2, tmp);
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

/* ---- clustering helpers ---------------------------------------------------- */
typedef struct an_clust {
    size_t min_pts;
    double eps;
} an_clust;

/* OPTICS over n rows of dim columns (dim 0 or identical rows: one cluster). */
static int cluster_rows(an_ctx *c, const double *x, size_t n, size_t dim, const an_clust *cp,
                        int *labels, size_t *ncl)
{
    size_t i, j;
    int same = 1;
    aa_optics_params par;
    aa_optics_result res;
    for (i = 1; i < n && same; i++)
        for (j = 0; j < dim; j++)
            if (x[i * dim + j] != x[j]) {
                same = 0;
                break;
            }
    if (dim == 0 || n < 2 || same) {
        for (i = 0; i < n; i++)
            labels[i] = 0;
        *ncl = n ? 1 : 0;
        return AA_OK;
    }
    par.min_pts = cp->min_pts;
    par.eps = cp->eps;
    par.max_eps = INFINITY;
    memset(&res, 0, sizeof res);
    if (aa_cluster_optics(x, n, dim, &par, &res, c->err))
        return c->err->code ? c->err->code : AA_EENV;
    memcpy(labels, res.labels, n * sizeof *labels);
    *ncl = res.nclusters;
    aa_cluster_optics_free(&res);
    return AA_OK;
}

/* Data bubbles (Breunig et al. 2001) for large process counts: a leader
 * pass groups points lying within r = eps/10 of a leader (in the full
 * vectors of a level, hence in every projection of them too); OPTICS then
 * runs on the bubble means, each repeated min(members, MinPts) times so
 * that density (MinPts counts points) is kept.  Distances move by at most
 * 2r = eps/5.  Only for more than AN_BUBBLE_MIN points, and only when the
 * bubbles are at most a quarter of the points; otherwise exact. */
#define AN_BUBBLE_MIN 64


typedef struct an_bub {
    size_t n, dim, nb;
    size_t *of;    /* by point: bubble */
    size_t *count; /* by bubble */
    double *mean;  /* nb x dim */
} an_bub;

static void bub_free(an_bub *b)
{
    free(b->of);
    free(b->count);
    free(b->mean);
    memset(b, 0, sizeof *b);
}

static int bub_build(an_ctx *c, const double *x, size_t n, size_t dim, double r, an_bub *b)
{
    size_t i, l, k, cap = n / 4;
    size_t *lead;
    double r2 = r * r;
    memset(b, 0, sizeof *b);
    b->n = n;
    b->dim = dim;
    if (n <= AN_BUBBLE_MIN || !(r > 0) || dim == 0)
        return AA_OK;
    lead = malloc(cap * sizeof *lead);
    b->of = malloc(n * sizeof *b->of);
    if (!lead || !b->of) {
        free(lead);
        bub_free(b);
        return nomem(c);
    }
    for (i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        for (l = 0; l < b->nb; l++) {
            const double *xl = x + lead[l] * dim;
            double d2 = 0;
            for (k = 0; k < dim && d2 <= r2; k++) {
                double d = xi[k] - xl[k];
                d2 += d * d;
            }
            if (d2 <= r2)
                break;
        }
        if (l == b->nb) {
            if (b->nb == cap) { /* too spread out: exact clustering */
                free(lead);
                bub_free(b);
                b->n = n;
                b->dim = dim;
                return AA_OK;
            }
            lead[b->nb++] = i;
        }
        b->of[i] = l;
    }
    free(lead);
    b->count = calloc(b->nb, sizeof *b->count);
    b->mean = calloc(b->nb * dim, sizeof *b->mean);
    if (!b->count || !b->mean) {
        bub_free(b);
        return nomem(c);
    }
    for (i = 0; i < n; i++) {
        b->count[b->of[i]]++;
        for (k = 0; k < dim; k++)
            b->mean[b->of[i] * dim + k] += x[i * dim + k];
    }
    for (l = 0; l < b->nb; l++)
        for (k = 0; k < dim; k++)
            b->mean[l * dim + k] /= (double)b->count[l];
    return AA_OK;
}

static int cluster_rows(an_ctx *c, const double *x, size_t n, size_t dim, const an_clust *cp,
                        int *labels, size_t *ncl);

/* Clusters the points of x (n x dim) on all columns (skip = only = -1), all
 * but column skip, or column only; through the bubbles b when it has any. */
static int cluster_sel(an_ctx *c, const double *x, size_t n, size_t dim, const an_bub *b,
                       long skip, long only, const an_clust *cp, int *labels, size_t *ncl)
{
    size_t nd = only >= 0 ? 1 : skip >= 0 ? dim - 1 : dim, npts = 0, i, k, l, w;
    const double *src = b->nb ? b->mean : x;
    size_t nsrc = b->nb ? b->nb : n;
    size_t *first = NULL;
    double *Y;
    int *lab;
    int rc;
    if (b->nb) {
        first = malloc(b->nb * sizeof *first);
        if (!first)
            return nomem(c);
        for (l = 0; l < b->nb; l++) {
            size_t copies = b->count[l] < cp->min_pts ? b->count[l] : cp->min_pts;
            first[l] = npts;
            npts += copies ? copies : 1;
        }
    } else {
        npts = n;
    }
    Y = malloc((npts * (nd ? nd : 1) + 1) * sizeof *Y);
    lab = malloc((npts + 1) * sizeof *lab);
    if (!Y || !lab) {
        free(first);
        free(Y);
        free(lab);
        return nomem(c);
    }
    for (i = 0, w = 0; i < nsrc; i++) {
        size_t copies = 1, t;
        if (b->nb) {
            copies = b->count[i] < cp->min_pts ? b->count[i] : cp->min_pts;
            if (!copies)
                copies = 1;
        }
        for (t = 0; t < copies; t++, w++) {
            size_t o = 0;
            for (k = 0; k < dim; k++) {
                if ((only >= 0 && (long)k != only) || (long)k == skip)
                    continue;
                Y[w * nd + o++] = src[i * dim + k];
            }
        }
    }
    rc = cluster_rows(c, Y, npts, nd, cp, lab, ncl);
    if (!rc) {
        if (b->nb)
            for (i = 0; i < n; i++)
                labels[i] = lab[first[b->of[i]]];
        else
            memcpy(labels, lab, n * sizeof *labels);
    }
    free(first);
    free(Y);
    free(lab);
    return rc;
}

static size_t count_labels(const int *l, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++)
        if ((size_t)l[i] + 1 > k)
            k = (size_t)l[i] + 1;
    return k;
}

/* ---- findings --------------------------------------------------------------- */
static aa_finding *add_finding(an_ctx *c, aa_finding_kind kind, size_t region)
{
    aa_analysis *a = c->a;
    aa_finding *nf = realloc(a->findings, (a->nfindings + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    a->findings = nf;
    nf += a->nfindings++;
    memset(nf, 0, sizeof *nf);
    nf->kind = kind;
    nf->region = region;
    nf->severity_class = -1;
    nf->slow_cluster = -1;
    return nf;
}

/* ---- dissimilarity ---------------------------------------------------------- */
typedef struct dis_found {
    size_t region;
    double effect, severity, confidence;
    double impact; /* s per slow process beyond the others */
    int dropped;   /* impact below finding_min_share */
    int cccr;
    int *labels; /* level partition (owned), P entries */
} dis_found;

typedef struct dis_state {
    an_ctx *c;
    const double *MM; /* main metric P x R */
    an_clust cp;
    dis_found *found;
    size_t nfound;
} dis_state;

/* Severity and confidence of region r's component under partition lab. */
static void dis_props(dis_state *s, size_t r, const int *lab, size_t k, double *sev,
                      double *conf)
{
    an_ctx *c = s->c;
    size_t q, j, good = 0;
    double *sum = calloc(k, sizeof *sum), *mean;
    size_t *cnt = calloc(k, sizeof *cnt);
    double mx = -INFINITY, mn = INFINITY;
    *sev = 0;
    *conf = 0;
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return;
    }
    mean = sum;
    for (q = 0; q < c->P; q++) {
        double v = s->MM[q * c->R + r];
        sum[lab[q]] += isnan(v) ? 0 : v;
        cnt[lab[q]]++;
    }
    for (j = 0; j < k; j++) {
        mean[j] = cnt[j] ? sum[j] / (double)cnt[j] : 0;
        if (cnt[j] && mean[j] > mx)
            mx = mean[j];
        if (cnt[j] && mean[j] < mn)
            mn = mean[j];
    }
    *sev = mx > 0 ? (mx - mn) / mx : 0;
    for (q = 0; q < c->P; q++) {
        double v = s->MM[q * c->R + r], own;
        int best = 1;
        v = isnan(v) ? 0 : v;
        own = fabs(v - mean[lab[q]]);
        for (j = 0; j < k; j++)
            if (cnt[j] && (int)j != lab[q] && fabs(v - mean[j]) < own)
                best = 0;
        good += best;
    }
    *conf = c->P ? (double)good / (double)c->P : 0;
    free(sum);
    free(cnt);
}

/* Tests the regions in set[0..m) (one level); recurses into CCR children.
 * Returns AA_OK; *any_ccr tells whether a CCR was found at this level. */
static int dis_level(dis_state *s, const size_t *set, size_t m, int *any_ccr)
{
    an_ctx *c = s->c;
    size_t P = c->P, q, j, i, k, kk;
    double *X = NULL, *Y = NULL, *B = NULL, btot = 0;
    int *ref = NULL, *lab = NULL, rc = AA_OK;
    int *isccr = NULL;
    an_bub bub;
    memset(&bub, 0, sizeof bub);
    *any_ccr = 0;
    if (m == 0 || P < 2)
        return AA_OK;
    X = malloc(P * m * sizeof *X);
    Y = malloc(P * (m ? m : 1) * sizeof *Y);
    ref = malloc(P * sizeof *ref);
    lab = malloc(P * sizeof *lab);
    B = calloc(m, sizeof *B);
    isccr = calloc(m, sizeof *isccr);
    if (!X || !Y || !ref || !lab || !B || !isccr) {
        rc = nomem(c);
        goto out;
    }
    for (q = 0; q < P; q++)
        for (j = 0; j < m; j++) {
            double v = s->MM[q * c->R + set[j]];
            X[q * m + j] = isnan(v) ? 0 : v;
        }
    if ((rc = bub_build(c, X, P, m, 0.1 * s->cp.eps, &bub)) ||
        (rc = cluster_sel(c, X, P, m, &bub, -1, -1, &s->cp, ref, &k)))
        goto out;
    if (k < 2)
        goto out;
    /* between-cluster sum of squares per component */
    {
        double *csum = calloc(k, sizeof *csum);
        size_t *ccnt = calloc(k, sizeof *ccnt);
        if (!csum || !ccnt) {
            free(csum);
            free(ccnt);
            rc = nomem(c);
            goto out;
        }
        for (j = 0; j < m; j++) {
            double tot = 0;
            memset(csum, 0, k * sizeof *csum);
            memset(ccnt, 0, k * sizeof *ccnt);
            for (q = 0; q < P; q++) {
                csum[ref[q]] += X[q * m + j];
                ccnt[ref[q]]++;
                tot += X[q * m + j];
            }
            tot /= (double)P;
            for (i = 0; i < k; i++)
                if (ccnt[i]) {
                    double d = csum[i] / (double)ccnt[i] - tot;
                    B[j] += (double)ccnt[i] * d * d;
                }
            btot += B[j];
        }
        free(csum);
        free(ccnt);
    }
    for (j = 0; j < m; j++) {
        int changed, alone_same;
        /* without component j */
        if ((rc = cluster_sel(c, X, P, m, &bub, (long)j, -1, &s->cp, lab, &kk)))
            goto out;
        changed = kk != k || !aa_cluster_same_partition(lab, ref, P);
        /* component j alone */
        if ((rc = cluster_sel(c, X, P, m, &bub, -1, (long)j, &s->cp, lab, &kk)))
            goto out;
        alone_same = kk == k && aa_cluster_same_partition(lab, ref, P);
        isccr[j] = changed || alone_same;
    }
    for (j = 0; j < m; j++) {
        dis_found *f;
        size_t r = set[j];
        int child_ccr = 0;
        if (!isccr[j])
            continue;
        *any_ccr = 1;
        {
            dis_found *nf = realloc(s->found, (s->nfound + 1) * sizeof *nf);
            if (!nf) {
                rc = nomem(c);
                goto out;
            }
            s->found = nf;
        }
        f = &s->found[s->nfound++];
        memset(f, 0, sizeof *f);
        f->region = r;
        f->effect = btot > 0 ? B[j] / btot : 0;
        f->labels = malloc(P * sizeof *f->labels);
        if (!f->labels) {
            rc = nomem(c);
            goto out;
        }
        memcpy(f->labels, ref, P * sizeof *ref);
        dis_props(s, r, ref, k, &f->severity, &f->confidence);
        {
            size_t fi = s->nfound - 1;
            rc = dis_level(s, c->clist + c->cstart[r], nchildren(c, r), &child_ccr);
            if (rc)
                goto out;
            s->found[fi].cccr = !child_ccr;
        }
    }
out:
    bub_free(&bub);
    free(X);
    free(Y);
    free(ref);
    free(lab);
    free(B);
    free(isccr);
    return rc;
}

/* ---- rough sets --------------------------------------------------------------- */
typedef struct rs_rows {
    size_t nrows;
    size_t *row_of;  /* by object: distinct row index */
    size_t *count;   /* by row: objects */
    size_t *first;   /* by row: first object */
} rs_rows;

typedef struct rs_sort_ctx {
    const int *vals;
    const int *dec;
    size_t na;
} rs_sort_ctx;

static int cmp_rows(const void *a, const void *b, void *arg)
{
    const rs_sort_ctx *s = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b, j;
    for (j = 0; j < s->na; j++) {
        int u = s->vals[x * s->na + j], v = s->vals[y * s->na + j];
        if (u != v)
            return u < v ? -1 : 1;
    }
    if (s->dec[x] != s->dec[y])
        return s->dec[x] < s->dec[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Builds the table of distinct (conditions, decision) rows and analyses it. */
static int rs_run(an_ctx *c, size_t nobj, size_t na, char **names, const int *vals,
                  const int *dec, rs_rows *rows, aa_dtable **tab, aa_roughset_result *res)
{
    size_t *ord = malloc((nobj ? nobj : 1) * sizeof *ord), i;
    rs_sort_ctx sc = {vals, dec, na};
    aa_dtable *t = NULL;
    memset(rows, 0, sizeof *rows);
    memset(res, 0, sizeof *res);
    *tab = NULL;
    rows->row_of = malloc((nobj ? nobj : 1) * sizeof *rows->row_of);
    rows->count = calloc(nobj ? nobj : 1, sizeof *rows->count);
    rows->first = malloc((nobj ? nobj : 1) * sizeof *rows->first);
    if (!ord || !rows->row_of || !rows->count || !rows->first) {
        free(ord);
        return nomem(c);
    }
    for (i = 0; i < nobj; i++)
        ord[i] = i;
    qsort_r(ord, nobj, sizeof *ord, cmp_rows, &sc);
    for (i = 0; i < nobj; i++) {
        size_t o = ord[i];
        if (i == 0 || memcmp(vals + o * na, vals + ord[i - 1] * na, na * sizeof *vals) ||
            dec[o] != dec[ord[i - 1]]) {
            rows->first[rows->nrows] = o;
            rows->nrows++;
        }
        rows->row_of[o] = rows->nrows - 1;
        rows->count[rows->nrows - 1]++;
    }
    free(ord);
    t = aa_roughset_table_new(rows->nrows, na, (const char *const *)names);
    if (!t)
        return nomem(c);
    for (i = 0; i < rows->nrows; i++) {
        char id[32];
        size_t o = rows->first[i];
        snprintf(id, sizeof id, "%zu", o);
        if (aa_roughset_table_set_object(t, i, id, vals + o * na, dec[o])) {
            aa_roughset_table_free(t);
            return nomem(c);
        }
    }
    if (aa_roughset_analyze(t, res, c->err)) {
        aa_roughset_table_free(t);
        return c->err->code ? c->err->code : AA_EENV;
    }
    *tab = t;
    return AA_OK;
}

static void rs_rows_free(rs_rows *r)
{
    free(r->row_of);
    free(r->count);
    free(r->first);
}

/* The first shortest local reduct of row containing an attribute with
 * high[a] != 0; returns the set of its high attributes (0 if none). */
static aa_attrset pick_causes(const aa_roughset_result *res, size_t row, const int *high)
{
    size_t i, a;
    for (i = 0; i < res->nlocal[row]; i++) {
        aa_attrset s = res->local[row][i], h = 0;
        for (a = 0; a < 64; a++)
            if ((s >> a & 1) && high[a])
                h |= (aa_attrset)1 << a;
        if (h)
            return h;
    }
    return 0;
}

static int add_core(an_ctx *c, aa_attrset core, char **names, size_t na, char ***list,
                    size_t *n)
{
    size_t a, i;
    for (a = 0; a < na; a++) {
        int have = 0;
        if (!(core >> a & 1))
            continue;
        for (i = 0; i < *n; i++)
            if (strcmp((*list)[i], names[a]) == 0)
                have = 1;
        if (!have && an_strlist_add(list, n, names[a]))
            return nomem(c);
    }
    return AA_OK;
}

static int set_causes(an_ctx *c, aa_finding *f, aa_attrset causes, char **names,
                      const an_attr_def **defs, size_t na, const double *val,
                      const double *ref)
{
    size_t a, k = 0;
    aa_buf sb;
    aa_buf_init(&sb);
    for (a = 0; a < na; a++)
        if (causes >> a & 1)
            k++;
    f->causes = calloc(k ? k : 1, sizeof *f->causes);
    f->evidence = calloc(k ? k : 1, sizeof *f->evidence);
    if (!f->causes || !f->evidence)
        return nomem(c);
    for (a = 0; a < na; a++) {
        const char *sg;
        if (!(causes >> a & 1))
            continue;
        f->causes[f->ncauses] = aa_strdup(names[a]);
        f->evidence[f->ncauses].attribute = aa_strdup(names[a]);
        f->evidence[f->ncauses].value = val[a];
        f->evidence[f->ncauses].reference = ref[a];
        f->ncauses++;
        sg = (f->kind == AA_FINDING_DISSIMILARITY && defs[a]->suggest_dissim)
                 ? defs[a]->suggest_dissim
                 : defs[a]->suggest;
        if (sb.len)
            aa_buf_puts(&sb, "; ");
        aa_buf_puts(&sb, sg);
    }
    if (!sb.len)
        aa_buf_puts(&sb, f->kind == AA_FINDING_DISSIMILARITY
                             ? "load imbalance: redistribute the work of this region among processes"
                             : "hotspot: optimize this region (no measured attribute explains it)");
    f->suggestion = aa_buf_detach(&sb);
    aa_buf_free(&sb);
    return f->suggestion ? AA_OK : nomem(c);
}

/* ---- 1-D severity classes ---------------------------------------------------- */
/* k-means into 5 classes; with k_used < 5 classes, class j maps to
 * round(4j/(k_used-1)) so the top class is always "very high" (4) and the
 * bottom one "very low" (0).  centers (optional) get the 5-class centers
 * of the used classes. */
static int severity_classes(an_ctx *c, const double *v, size_t n, int *cls, double *centers,
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
static int whole_chain(an_ctx *c, const double *W, double *T)
{
    const aa_analysis *a = c->a;
    size_t P = c->P, R = c->R, q, r, i;
    int mi, have_mpi = metric_usable(c, "mpi_wall", &mi) && gather(c, mi, T) > 0;
    double *raw = malloc((P + 1) * sizeof *raw), *sub = calloc(P + 1, sizeof *sub);
    int changed = 1;
    size_t nsub = 0;
    c->whole = calloc(R + 1, 1);
    c->dobj = malloc((R + 1) * sizeof *c->dobj);
    if (!raw || !sub || !c->whole || !c->dobj) {
        free(raw);
        free(sub);
        return nomem(c);
    }
    memcpy(raw, c->wpwt, P * sizeof *raw);
    c->whole[0] = 1;
    while (changed) {
        changed = 0;
        /* WPWT = raw - exclusive MPI of the root and chain functions */
        memset(sub, 0, P * sizeof *sub);
        for (r = 0; r < R && have_mpi; r++) {
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
        for (q = 0; q < P; q++) {
            double w = raw[q] - sub[q];
            c->wpwt[q] = w > 0 ? w : raw[q];
        }
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
        return note(c, "MPI time outside every region but the whole program (MPI_Init, "
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
static void an_self_values(an_ctx *c, const double *M, double *self)
{
    size_t q, r, i, R = c->R;
    for (q = 0; q < c->P; q++)
        for (r = 0; r < R; r++) {
            double v = M[q * R + r];
            v = isnan(v) ? 0 : v;
            for (i = c->cstart[r]; i < c->cstart[r + 1]; i++) {
                double w = M[q * R + c->clist[i]];
                v -= isnan(w) ? 0 : w;
            }
            self[q * R + r] = v > 0 ? v : 0;
        }
}

/* The slow cluster of a dissimilarity finding (largest mean process metric
 * in its region) and the time its processes spend there beyond the mean of
 * the others (>= 0). */
static size_t dis_slow_cluster(const an_ctx *c, const int *labels, size_t region,
                               const double *MM, double *impact)
{
    size_t k = count_labels(labels, c->P), slow = 0, j, q, ns = 0, no = 0;
    double best = -INFINITY, ss = 0, so = 0;
    for (j = 0; j < k; j++) {
        double sum = 0;
        size_t n = 0;
        for (q = 0; q < c->P; q++)
            if (labels[q] == (int)j) {
                sum += MM[q * c->R + region];
                n++;
            }
        if (n && sum / (double)n > best) {
            best = sum / (double)n;
            slow = j;
        }
    }
    for (q = 0; q < c->P; q++) {
        if (labels[q] == (int)slow) {
            ss += MM[q * c->R + region];
            ns++;
        } else {
            so += MM[q * c->R + region];
            no++;
        }
    }
    *impact = ns && no ? fmax(0, ss / (double)ns - so / (double)no) : 0;
    return slow;
}

/* All findings in one order, across kinds: CCCRs first, then by impact
 * (seconds) descending; stable, so equal impacts keep the analysis' order. */
static void rank_findings(aa_analysis *a)
{
    size_t x, y;
    for (x = 1; x < a->nfindings; x++)
        for (y = x; y > 0; y--) {
            aa_finding *u = &a->findings[y - 1], *v = &a->findings[y], t;
            if (v->cccr > u->cccr || (v->cccr == u->cccr && v->impact_s > u->impact_s)) {
                t = *u;
                *u = *v;
                *v = t;
            } else
                break;
        }
}

/* 1 for a region that is MPI set-up wherever it sits: a call-site region
 * of MPI_Init, MPI_Init_thread or MPI_Finalize (refinement makes them) */
static int is_mpi_setup(const aa_region *ri)
{
    return ri && ri->kind == AA_KIND_CALL && ri->name &&
           (strncmp(ri->name, "MPI_Init@", 9) == 0 || strncmp(ri->name, "MPI_Init_thread@", 16) == 0 ||
            strncmp(ri->name, "MPI_Finalize@", 13) == 0);
}

/* Self wall time (P x R) of every region: its wall minus its children's;
 * for the regions that stand for the whole program (c->whole) also minus
 * their own MPI time (MPI_Init, MPI_Finalize), and 0 for MPI set-up call
 * regions.  tmp: P x R scratch. */
static int an_self_wall(an_ctx *c, const double *W, double *tmp, double *SW)
{
    size_t q, r, P = c->P, R = c->R;
    int mi, have_mpi = metric_usable(c, "mpi_wall", &mi) && gather(c, mi, tmp) > 0;
    double *mself = have_mpi ? malloc(P * R * sizeof *mself) : NULL;
    if (have_mpi && !mself)
        return nomem(c);
    an_self_values(c, W, SW);
    if (mself)
        an_self_values(c, tmp, mself);
    for (r = 0; r < R; r++) {
        const aa_region *ri = c->a->regions[r].info;
        for (q = 0; q < P; q++) {
            double *v = &SW[q * R + r];
            if (is_mpi_setup(ri))
                *v = 0;
            else if (c->whole[r] && mself)
                *v = fmax(0, *v - mself[q * R + r]);
        }
    }
    free(mself);
    return AA_OK;
}

static int run(an_ctx *c)
{
    const aa_experiment *e = c->e;
    const aa_analyze_options *o = c->o;
    aa_analysis *a = c->a;
    size_t p, q, r, i, j, P, R;
    unsigned char *cand = NULL, *keep = NULL;
    double *MM = NULL, *W = NULL, *T1 = NULL, *T2 = NULL, *SW = NULL, wmed = 0;
    int rc = AA_OK, m_cpu, m_mcpu, m_wall, m_mwall, m_cyc, m_ins;
    int use_cpu, cpi_ok;
    size_t nattr = 0;
    const an_attr_def **adefs = NULL;
    char **anames = NULL;
    double *aval = NULL; /* nattr x R: region averages */
    double **dcols = NULL; /* per dissim CCCR: nattr x P attribute values */
    dis_state ds;
    size_t ndccr = 0;
    memset(&ds, 0, sizeof ds);

    /* processes */
    cand = calloc(e->nprocesses ? e->nprocesses : 1, 1);
    if (!cand)
        return nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        if (rank_excluded(o, e->processes[p].rank)) {
            a->excluded_ranks[a->nexcluded_ranks++] = e->processes[p].rank;
            continue;
        }
        cand[p] = 1;
    }
    if ((rc = build_tree(c, cand)))
        goto out;
    if (o->auto_exclude_master) {
        int master;
        size_t nonly;
        if ((rc = detect_master(c, cand, &master, &nonly)))
            goto out;
        if (master) {
            for (p = 0; p < e->nprocesses; p++)
                if (cand[p] && e->processes[p].rank == 0)
                    cand[p] = 0;
            a->excluded_ranks[a->nexcluded_ranks++] = 0;
            if ((rc = note(c,
                           "rank 0 excluded as a master process: it runs %zu region%s no "
                           "other process runs and skips regions all others run "
                           "(--no-auto-exclude keeps it)",
                           nonly, nonly == 1 ? "" : "s")))
                goto out;
        }
    }
    c->proc = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *c->proc);
    a->ranks = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *a->ranks);
    if (!c->proc || !a->ranks) {
        rc = nomem(c);
        goto out;
    }
    for (p = 0; p < e->nprocesses; p++)
        if (cand[p]) {
            a->ranks[c->P] = e->processes[p].rank;
            c->proc[c->P++] = p;
        }
    a->nprocesses = c->P;
    P = c->P;
    if (P == 0) {
        rc = aa_err_set(c->err, AA_EINPUT, "no processes to analyse (%zu in the experiment, "
                        "%zu excluded)", e->nprocesses, a->nexcluded_ranks);
        goto out;
    }
    /* regions kept: run by an analysed process, not excluded (with subtree) */
    keep = calloc(c->ntree, 1);
    {
        size_t *cnt = calloc(c->ntree, sizeof *cnt), nexcl = 0;
        if (!keep || !cnt) {
            free(cnt);
            rc = nomem(c);
            goto out;
        }
        count_runs(c, cand, cnt, -1, NULL);
        keep[0] = 1;
        for (i = 1; i < c->ntree; i++) { /* parents precede children */
            uint32_t id = c->tid[i];
            keep[i] = cnt[i] > 0 && keep[c->tparent[i]];
            if (keep[i] && o->nexclude_regions &&
                region_excluded(o, aa_experiment_region(e, id), id)) {
                keep[i] = 0;
                if (!c->exroot && !(c->exroot = calloc(c->ntree, 1))) {
                    free(cnt);
                    rc = nomem(c);
                    goto out;
                }
                c->exroot[i] = 1;
                nexcl++;
            }
        }
        free(cnt);
        if (nexcl && (rc = note(c, "%zu region node%s excluded by --exclude-regions (with "
                                   "their sub-regions; their time is removed from the enclosing regions)",
                                nexcl, nexcl == 1 ? "" : "s")))
            goto out;
    }
    if ((rc = build_regions(c, keep)) || (rc = fill_ran(c)))
        goto out;
    R = c->R;
    /* subtree ends: regions are in preorder, so the subtree of r is
     * [r, send[r]) */
    if (!(c->send = malloc((R + 1) * sizeof *c->send))) {
        rc = nomem(c);
        goto out;
    }
    for (r = R; r-- > 0;)
        c->send[r] = r + 1;
    for (r = R; r-- > 1;)
        if (c->send[r] > c->send[a->regions[r].parent])
            c->send[a->regions[r].parent] = c->send[r];
    if (P == 1 && (rc = note(c, "single process: no dissimilarity analysis")))
        goto out;
    if ((rc = note_throttled(c)))
        goto out;

    MM = malloc(P * R * sizeof *MM);
    W = malloc(P * R * sizeof *W);
    T1 = malloc(P * R * sizeof *T1);
    T2 = malloc(P * R * sizeof *T2);
    c->wpwt = calloc(P, sizeof *c->wpwt);
    a->severity = calloc(R, sizeof *a->severity);
    a->region_value = calloc(R, sizeof *a->region_value);
    if (!MM || !W || !T1 || !T2 || !c->wpwt || !a->severity || !a->region_value) {
        rc = nomem(c);
        goto out;
    }

    /* wall and WPWT */
    {
        int wall_ok = metric_usable(c, "wall", &m_wall) && gather(c, m_wall, W) > 0;
        size_t zero = 0;
        if (!wall_ok) {
            rc = aa_err_set(c->err, AA_EINPUT, "experiment has no wall time values (metric "
                                               "'wall'); nothing to analyse");
            goto out;
        }
        for (q = 0; q < P; q++) {
            double w = W[q * R];
            if (!c->ran[q * R] || isnan(w)) {
                w = 0;
                for (i = c->cstart[0]; i < c->cstart[1]; i++) {
                    double v = W[q * R + c->clist[i]];
                    w += isnan(v) ? 0 : v;
                }
            }
            c->wpwt[q] = w;
            if (!(w > 0))
                zero++;
        }
        if (zero && (rc = note(c, "zero-length run: whole-program wall time is 0 on %zu "
                                  "process%s; their region fractions count as 0",
                               zero, zero == 1 ? "" : "es")))
            goto out;
    }

    /* the whole-program chain and WPWT without top-level MPI time */
    if ((rc = whole_chain(c, W, T1)))
        goto out;

    /* main metric */
    use_cpu = o->proc_metric == AA_PMETRIC_CPU && metric_usable(c, "cpu", &m_cpu) &&
              gather(c, m_cpu, MM) > 0;
    if (o->proc_metric == AA_PMETRIC_CPU && !use_cpu &&
        (rc = note(c, "CPU time unavailable: processes compared on wall time outside MPI")))
        goto out;
    a->proc_metric = use_cpu ? "cpu" : "wall";
    if (!use_cpu)
        memcpy(MM, W, P * R * sizeof *MM);
    {
        const char *sub = use_cpu ? "mpi_cpu" : "mpi_wall";
        int ms = -1;
        if (metric_usable(c, sub, &ms) && gather(c, ms, T1) > 0) {
            for (i = 0; i < P * R; i++) {
                double v = MM[i] - (isnan(T1[i]) ? 0 : T1[i]);
                MM[i] = isnan(v) ? 0 : v < 0 ? 0 : v;
            }
        } else {
            for (i = 0; i < P * R; i++)
                if (isnan(MM[i]))
                    MM[i] = 0;
            if ((rc = note(c, "%s unavailable: time inside MPI is not subtracted from the "
                              "process metric", sub)))
                goto out;
        }
    }
    (void)m_mcpu;
    (void)m_mwall;

    /* ---- disparity ---- */
    /* region fractions on self values (the region's own code: its wall time
     * minus its sub-regions'), so that enclosing regions never compete with
     * what they enclose; MPI set-up time is set-up wherever it sits */
    SW = malloc(P * R * sizeof *SW);
    if (!SW) {
        rc = nomem(c);
        goto out;
    }
    if ((rc = an_self_wall(c, W, T2, SW)))
        goto out;
    cpi_ok = metric_usable(c, "cycles", &m_cyc) && metric_usable(c, "instructions", &m_ins);
    if (cpi_ok)
        cpi_ok = gather(c, m_cyc, T1) > 0 && gather(c, m_ins, T2) > 0;
    a->region_metric = o->region_metric == AA_RMETRIC_CRNM ? "crnm"
                       : o->region_metric == AA_RMETRIC_CPI ? "cpi"
                                                            : "wall";
    if (o->region_metric != AA_RMETRIC_WALL && !cpi_ok) {
        a->region_metric = "wall";
        if ((rc = note(c, "CPI unavailable (cycles or instructions not measured): regions are "
                          "ranked by their wall-time fraction instead of %s",
                       o->region_metric == AA_RMETRIC_CRNM ? "CRNM" : "CPI")))
            goto out;
    }
    for (r = 0; r < R; r++) {
        double s = 0;
        for (q = 0; q < P; q++) {
            size_t k = q * R + r;
            double frac, cpi = 0, v;
            if (!c->ran[k])
                continue;
            frac = (c->wpwt[q] > 0 && !isnan(SW[k])) ? fmin(1, SW[k] / c->wpwt[q]) : 0;
            if (cpi_ok && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
                cpi = T1[k] / T2[k];
            if (strcmp(a->region_metric, "crnm") == 0)
                v = frac * cpi;
            else if (strcmp(a->region_metric, "cpi") == 0)
                v = cpi;
            else
                v = frac;
            s += v;
        }
        a->region_value[r] = s / (double)P;
    }
    /* every region is classified on its self value (the root has none) */
    c->ndobj = 0;
    for (r = 1; r < R; r++)
        if (!is_mpi_setup(a->regions[r].info))
            c->dobj[c->ndobj++] = r;
    if (c->ndobj) {
        int *cls = malloc(c->ndobj * sizeof *cls);
        double *v = malloc(c->ndobj * sizeof *v), centers[5] = {0, 0, 0, 0, 0};
        size_t ku;
        if (!cls || !v) {
            free(cls);
            free(v);
            rc = nomem(c);
            goto out;
        }
        for (i = 0; i < c->ndobj; i++)
            v[i] = a->region_value[c->dobj[i]];
        rc = severity_classes(c, v, c->ndobj, cls, centers, &ku, 0);
        for (i = 0; i < c->ndobj && !rc; i++)
            a->severity[c->dobj[i]] = cls[i];
        free(cls);
        free(v);
        if (rc)
            goto out;
    }

    /* ---- dissimilarity ---- */
    ds.c = c;
    ds.MM = MM;
    if (P >= 2) {
        size_t m = nchildren(c, 0);
        const size_t *set = c->clist + c->cstart[0];
        double *X = malloc(P * (m ? m : 1) * sizeof *X);
        int *lab = malloc(P * sizeof *lab);
        size_t k = 1, dmp;
        double deps;
        int any;
        if (!X || !lab) {
            free(X);
            free(lab);
            rc = nomem(c);
            goto out;
        }
        for (q = 0; q < P; q++)
            for (j = 0; j < m; j++)
                X[q * m + j] = MM[q * R + set[j]];
        if (m) {
            aa_cluster_optics_defaults(X, P, m, &dmp, &deps);
        } else {
            dmp = 2;
            deps = 0;
        }
        ds.cp.min_pts = o->min_pts ? o->min_pts : dmp;
        /* eps from the run's measured noise (noise.c), on the metric's own
         * scale, never below the CPU clock's resolution */
        if (!(o->eps > 0) && m) {
            double *self = malloc(P * R * sizeof *self);
            size_t nused = 0;
            if (!self) {
                free(X);
                free(lab);
                rc = nomem(c);
                goto out;
            }
            an_self_values(c, MM, self);
            a->noise_rel = an_noise_relative(self, c->ran, P, R, o->resolution_s, &nused);
            deps = an_level_eps(self, c->ran, P, R, set, m, c->send, a->noise_rel,
                                o->noise_factor, o->resolution_s);
            free(self);
            if ((rc = note(c, "noise: processes doing the same work differ by %.2g%% in CPU "
                              "time (median over %zu regions); differences count from %g s",
                           100 * a->noise_rel, nused, deps)))
            {
                free(X);
                free(lab);
                goto out;
            }
        }
        ds.cp.eps = o->eps > 0 ? o->eps : deps;
        if (!(ds.cp.eps > 0))
            ds.cp.eps = 1e-300; /* all-zero data: identical points only */
        a->min_pts_used = ds.cp.min_pts;
        a->eps_used = ds.cp.eps;
        {
            an_bub tb;
            rc = bub_build(c, X, P, m, 0.1 * ds.cp.eps, &tb);
            if (!rc)
                rc = cluster_sel(c, X, P, m, &tb, -1, -1, &ds.cp, lab, &k);
            bub_free(&tb);
        }
        free(X);
        if (rc) {
            free(lab);
            goto out;
        }
        a->cluster_of = lab;
        if ((rc = dis_level(&ds, set, m, &any)))
            goto out;
    } else {
        a->cluster_of = calloc(1, sizeof *a->cluster_of);
        if (!a->cluster_of) {
            rc = nomem(c);
            goto out;
        }
    }
    /* clusters: sizes, ranks, means; renumbered by ascending mean program metric */
    {
        size_t k = count_labels(a->cluster_of, P), *ord, *inv;
        double *mean = calloc(k ? k : 1, sizeof *mean);
        ord = malloc((k ? k : 1) * sizeof *ord);
        inv = malloc((k ? k : 1) * sizeof *inv);
        a->nclusters = k;
        a->cluster_size = calloc(k ? k : 1, sizeof *a->cluster_size);
        a->cluster_ranks = calloc(k ? k : 1, sizeof *a->cluster_ranks);
        a->cluster_mean = calloc(k ? k : 1, sizeof *a->cluster_mean);
        if (!mean || !ord || !inv || !a->cluster_size || !a->cluster_ranks || !a->cluster_mean) {
            free(mean);
            free(ord);
            free(inv);
            rc = nomem(c);
            goto out;
        }
        for (q = 0; q < P; q++) {
            mean[a->cluster_of[q]] += MM[q * R];
            a->cluster_size[a->cluster_of[q]]++;
        }
        for (j = 0; j < k; j++) {
            mean[j] = a->cluster_size[j] ? mean[j] / (double)a->cluster_size[j] : 0;
            ord[j] = j;
        }
        /* stable order: keep label order (OPTICS order, deterministic) */
        for (j = 0; j < k; j++)
            inv[ord[j]] = j;
        for (j = 0; j < k; j++) {
            a->cluster_mean[j] = mean[j];
            a->cluster_ranks[j] = malloc((a->cluster_size[j] ? a->cluster_size[j] : 1) *
                                         sizeof **a->cluster_ranks);
            if (!a->cluster_ranks[j]) {
                free(mean);
                free(ord);
                free(inv);
                rc = nomem(c);
                goto out;
            }
            a->cluster_size[j] = 0;
        }
        for (q = 0; q < P; q++) {
            size_t l = inv[a->cluster_of[q]];
            a->cluster_ranks[l][a->cluster_size[l]++] = a->ranks[q];
        }
        free(mean);
        free(ord);
        free(inv);
    }

    /* ---- attributes ---- */
    {
        size_t na_tab;
        const an_attr_def *tab = an_attr_table(&na_tab);
        adefs = calloc(na_tab + o->nattributes + 1, sizeof *adefs);
        anames = calloc(na_tab + o->nattributes + 1, sizeof *anames);
        if (!adefs || !anames) {
            rc = nomem(c);
            goto out;
        }
        if (o->nattributes) {
            for (i = 0; i < o->nattributes; i++) {
                const an_attr_def *d = an_attr_find(o->attributes[i]);
                if (!d) {
                    rc = aa_err_set(c->err, AA_EUSAGE, "unknown attribute '%s'",
                                    o->attributes[i]);
                    goto out;
                }
                adefs[nattr++] = d;
            }
        } else {
            for (i = 0; i < na_tab; i++)
                if (tab[i].is_default)
                    adefs[nattr++] = &tab[i];
        }
    }
    /* dissimilarity CCCRs (strongest effect first) */
    for (i = 0; i < ds.nfound; i++)
        ndccr += ds.found[i].cccr;
    dcols = calloc(ds.nfound ? ds.nfound : 1, sizeof *dcols);
    aval = calloc(nattr * R + 1, sizeof *aval);
    if (!dcols || !aval) {
        rc = nomem(c);
        goto out;
    }
    for (i = 0; i < ds.nfound; i++) {
        dcols[i] = malloc((nattr * P + 1) * sizeof **dcols);
        if (!dcols[i]) {
            rc = nomem(c);
            goto out;
        }
    }
    {
        size_t used = 0;
        const an_attr_def **ud = calloc(nattr + 1, sizeof *ud);
        if (!ud) {
            rc = nomem(c);
            goto out;
        }
        for (j = 0; j < nattr; j++) {
            if (!gather_attr(c, adefs[j], T1, T2)) {
                if (an_strlist_add(&a->unavailable, &a->nunavailable, adefs[j]->name)) {
                    free(ud);
                    rc = nomem(c);
                    goto out;
                }
                continue;
            }
            for (r = 0; r < R; r++) {
                double s = 0;
                size_t n = 0;
                for (q = 0; q < P; q++) {
                    double v = T1[q * R + r];
                    if (adefs[j]->kind == AN_RATE) {
                        if (c->ran[q * R + r] && !isnan(v)) {
                            s += v;
                            n++;
                        }
                    } else {
                        s += isnan(v) ? 0 : v;
                        n++;
                    }
                }
                aval[used * R + r] = n ? s / (double)n : 0;
            }
            for (i = 0; i < ds.nfound; i++)
                for (q = 0; q < P; q++) {
                    double v = T1[q * R + ds.found[i].region];
                    dcols[i][used * P + q] = isnan(v) ? 0 : v;
                }
            ud[used] = adefs[j];
            anames[used] = (char *)adefs[j]->name;
            used++;
        }
        memcpy(adefs, ud, used * sizeof *ud);
        free(ud);
        nattr = used;
        for (j = 0; j < nattr; j++)
            if (an_strlist_add(&a->attributes, &a->nattributes, anames[j])) {
                rc = nomem(c);
                goto out;
            }
    }
    if (a->nunavailable) {
        aa_buf nb;
        aa_buf_init(&nb);
        for (i = 0; i < a->nunavailable; i++)
            aa_buf_printf(&nb, "%s%s", i ? ", " : "", a->unavailable[i]);
        rc = note(c, "attributes not measured in this experiment (left out of the root-cause "
                     "tables): %s", nb.data ? nb.data : "");
        aa_buf_free(&nb);
        if (rc)
            goto out;
    }
    if (nattr > 64)
        nattr = 64;

    /* ---- impact of the dissimilarity CCRs; too small ones are dropped ----
     * A CCR whose slow processes spend less than finding_min_share of the
     * run beyond the others is no finding; a CCR all of whose CCR
     * descendants were dropped is then the innermost one (a CCCR). */
    wmed = median_wpwt(c);
    for (i = 0; i < ds.nfound; i++) {
        double imp;
        dis_slow_cluster(c, ds.found[i].labels, ds.found[i].region, MM, &imp);
        ds.found[i].impact = imp;
        ds.found[i].dropped = wmed > 0 && imp / wmed < o->finding_min_share;
    }
    for (i = 0; i < ds.nfound; i++) {
        size_t r0 = ds.found[i].region;
        if (ds.found[i].dropped)
            continue;
        ds.found[i].cccr = 1;
        for (j = 0; j < ds.nfound; j++)
            if (j != i && !ds.found[j].dropped && ds.found[j].region > r0 &&
                ds.found[j].region < c->send[r0])
                ds.found[i].cccr = 0;
    }

    /* ---- dissimilarity findings with root causes ---- */
    {
        /* order: CCCRs by effect (descending), then the other CCRs */
        size_t *ord = malloc((ds.nfound ? ds.nfound : 1) * sizeof *ord), x, y;
        if (!ord) {
            rc = nomem(c);
            goto out;
        }
        for (i = 0; i < ds.nfound; i++)
            ord[i] = i;
        for (x = 1; x < ds.nfound; x++) /* insertion sort, stable */
            for (y = x; y > 0; y--) {
                dis_found *u = &ds.found[ord[y - 1]], *v = &ds.found[ord[y]];
                if ((v->cccr > u->cccr) || (v->cccr == u->cccr && v->effect > u->effect)) {
                    size_t t = ord[y];
                    ord[y] = ord[y - 1];
                    ord[y - 1] = t;
                } else
                    break;
            }
        for (x = 0; x < ds.nfound && !rc; x++) {
            dis_found *df = &ds.found[ord[x]];
            aa_finding *f;
            if (df->dropped)
                continue;
            f = add_finding(c, AA_FINDING_DISSIMILARITY, df->region);
            size_t k = count_labels(df->labels, P), slow = 0;
            aa_attrset causes = 0;
            double *val = calloc(nattr + 1, sizeof *val), *refv = calloc(nattr + 1, sizeof *refv);
            if (!f || !val || !refv) {
                free(val);
                free(refv);
                rc = nomem(c);
                break;
            }
            f->ccr = 1;
            f->cccr = df->cccr;
            f->effect = df->effect;
            f->severity = df->severity;
            f->confidence = df->confidence;
            slow = dis_slow_cluster(c, df->labels, df->region, MM, &f->impact_s);
            f->slow_cluster = (int)slow;
            f->slow_ranks = malloc(P * sizeof *f->slow_ranks);
            if (!f->slow_ranks) {
                free(val);
                free(refv);
                rc = nomem(c);
                break;
            }
            for (q = 0; q < P; q++)
                if (df->labels[q] == (int)slow)
                    f->slow_ranks[f->nslow++] = a->ranks[q];
            f->wait_s = f->impact_s * (double)(P - f->nslow);
            f->run_share = wmed > 0 ? f->impact_s / wmed : 0;
            (void)k;
            if (df->cccr && nattr) {
                int *vals = malloc(P * nattr * sizeof *vals), *lab = malloc(P * sizeof *lab);
                int high[64];
                rs_rows rows;
                aa_dtable *tab = NULL;
                aa_roughset_result res;
                memset(high, 0, sizeof high);
                if (!vals || !lab) {
                    free(vals);
                    free(lab);
                    free(val);
                    free(refv);
                    rc = nomem(c);
                    break;
                }
                for (j = 0; j < nattr && !rc; j++) {
                    const double *col = dcols[ord[x]] + j * P;
                    an_clust acp;
                    size_t kk, ns = 0, no = 0;
                    double ss = 0, so = 0;
                    aa_cluster_optics_defaults(col, P, 1, &acp.min_pts, &acp.eps);
                    if (!(acp.eps > 0))
                        acp.eps = 1e-300;
                    {
                        an_bub tb;
                        rc = bub_build(c, col, P, 1, 0.1 * acp.eps, &tb);
                        if (!rc)
                            rc = cluster_sel(c, col, P, 1, &tb, -1, -1, &acp, lab, &kk);
                        bub_free(&tb);
                    }
                    for (q = 0; q < P; q++) {
                        vals[q * nattr + j] = lab[q];
                        if (df->labels[q] == (int)slow) {
                            ss += col[q];
                            ns++;
                        } else {
                            so += col[q];
                            no++;
                        }
                    }
                    val[j] = ns ? ss / (double)ns : 0;
                    refv[j] = no ? so / (double)no : 0;
                    high[j] = kk > 1 && val[j] > refv[j];
                }
                if (!rc)
                    rc = rs_run(c, P, nattr, anames, vals, df->labels, &rows, &tab, &res);
                if (!rc) {
                    /* the row holding most processes of the slow cluster */
                    size_t best = 0, bc = 0;
                    for (i = 0; i < rows.nrows; i++)
                        if (df->labels[rows.first[i]] == (int)slow && rows.count[i] > bc) {
                            bc = rows.count[i];
                            best = i;
                        }
                    if (bc)
                        causes = pick_causes(&res, best, high);
                    a->ninconsistent += res.ninconsistent;
                    rc = add_core(c, res.core, anames, nattr, &a->core_dissim, &a->ncore_dissim);
                    aa_roughset_result_free(&res, rows.nrows);
                    aa_roughset_table_free(tab);
                    rs_rows_free(&rows);
                }
                free(vals);
                free(lab);
            }
            if (!rc)
                rc = set_causes(c, f, causes, anames, adefs, nattr, val, refv);
            free(val);
            free(refv);
        }
        free(ord);
        if (rc)
            goto out;
    }

    /* ---- disparity findings with root causes ---- */
    if (c->ndobj) {
        size_t n = c->ndobj, ncccr = 0;
        long *pos = malloc(R * sizeof *pos);
        double *tv = malloc(n * sizeof *tv);
        int *isccr = calloc(R, sizeof *isccr), *iscccr = calloc(R, sizeof *iscccr);
        int *vals = malloc((n * nattr + 1) * sizeof *vals), *dec = malloc(n * sizeof *dec);
        int *cls = malloc(n * sizeof *cls);
        size_t *ord = malloc(R * sizeof *ord), *send = malloc(R * sizeof *send), x, y;
        double maxv = 0;
        rs_rows rows;
        aa_dtable *tab = NULL;
        aa_roughset_result res;
        int have_rs = 0;
        memset(&rows, 0, sizeof rows);
        if (!isccr || !iscccr || !vals || !dec || !cls || !ord || !pos || !tv || !send) {
            free(send);
            free(pos);
            free(tv);
            free(isccr);
            free(iscccr);
            free(vals);
            free(dec);
            free(cls);
            free(ord);
            rc = nomem(c);
            goto out;
        }
        for (r = 0; r < R; r++)
            pos[r] = -1;
        for (i = 0; i < n; i++)
            pos[c->dobj[i]] = (long)i;
        /* CCR: a region of the top severity classes whose own code holds at
         * least disparity_min_share of the run.  On self values every CCR
         * stands for its own cost, so every CCR is a CCCR (SPEC §5.3: no CCR
         * below it explains it). */
        for (r = 1; r < R; r++) {
            isccr[r] = pos[r] >= 0 && a->severity[r] >= 3 &&
                       a->region_value[r] >= o->disparity_min_share;
            iscccr[r] = isccr[r];
            ncccr += (size_t)isccr[r];
            if (a->region_value[r] > maxv)
                maxv = a->region_value[r];
        }
        /* table: attribute j of region r = 1 when its severity class is >= 3
         * among r and the regions *unrelated* to r (neither its ancestors
         * nor its descendants).  Values are inclusive, so an ancestor always
         * holds at least the sum of its children's values: classified
         * together, an enclosing loop calling two equal I/O functions would
         * take the top class and push both functions down to the middle
         * one (docs/analysis.md).  Regions are numbered in preorder, so the
         * subtree of r is [r, send[r]). */
        memcpy(send, c->send, R * sizeof *send);
        for (j = 0; j < nattr && !rc; j++) {
            for (i = 0; i < n && !rc; i++) {
                size_t ri = c->dobj[i], m = 0, self = 0, ku;
                double mx = -INFINITY, mn = INFINITY, xv = aval[j * R + ri];
                vals[i * nattr + j] = 0;
                for (y = 0; y < n; y++) {
                    size_t u = c->dobj[y];
                    if (u != ri && ((u > ri && u < send[ri]) || (ri > u && ri < send[u])))
                        continue; /* a descendant or an ancestor */
                    if (u == ri)
                        self = m;
                    tv[m] = aval[j * R + u];
                    if (tv[m] > mx)
                        mx = tv[m];
                    if (tv[m] < mn)
                        mn = tv[m];
                    m++;
                }
                /* a spread under 10% of the largest value is noise, not a
                 * class; the lowest value is in the lowest class */
                if (!(mx > 0) || mx - mn <= 0.1 * fabs(mx) || !(xv > mn))
                    continue;
                rc = severity_classes(c, tv, m, cls, NULL, &ku, 0.1);
                if (!rc)
                    vals[i * nattr + j] = cls[self] >= 3;
            }
        }
        for (i = 0; i < n; i++)
            dec[i] = isccr[c->dobj[i]];
        if (!rc && nattr) {
            rc = rs_run(c, n, nattr, anames, vals, dec, &rows, &tab, &res);
            have_rs = !rc;
            if (have_rs) {
                a->ninconsistent += res.ninconsistent;
                rc = add_core(c, res.core, anames, nattr, &a->core_disp, &a->ncore_disp);
            }
        }
        /* findings: CCCRs by value (descending), then other CCRs */
        for (r = 0; r < R; r++)
            ord[r] = r;
        for (x = 1; x < R; x++)
            for (y = x; y > 0; y--) {
                size_t u = ord[y - 1], v = ord[y];
                int ku = iscccr[u], kv = iscccr[v];
                if (kv > ku || (kv == ku && a->region_value[v] > a->region_value[u])) {
                    ord[y] = u;
                    ord[y - 1] = v;
                } else
                    break;
            }
        for (x = 0; x < R && !rc; x++) {
            size_t rr = ord[x];
            aa_finding *f;
            aa_attrset causes = 0;
            double *val, *refv;
            if (rr == 0 || !isccr[rr])
                continue;
            f = add_finding(c, AA_FINDING_DISPARITY, rr);
            val = calloc(nattr + 1, sizeof *val);
            refv = calloc(nattr + 1, sizeof *refv);
            if (!f || !val || !refv) {
                free(val);
                free(refv);
                rc = nomem(c);
                break;
            }
            f->ccr = 1;
            f->cccr = iscccr[rr];
            f->severity_class = a->severity[rr];
            {
                double sw = 0, sh = 0;
                for (q = 0; q < P; q++) {
                    double v = SW[q * R + rr];
                    sw += isnan(v) ? 0 : v;
                    sh += (c->wpwt[q] > 0 && !isnan(v)) ? fmin(1, v / c->wpwt[q]) : 0;
                }
                f->impact_s = sw / (double)P;
                f->run_share = sh / (double)P;
            }
            f->severity = maxv > 0 ? a->region_value[rr] / maxv : 0;
            f->effect = a->region_value[rr];
            f->confidence = 0; /* filled below from per-process values */
            if (iscccr[rr] && have_rs) {
                int high[64];
                size_t row = rows.row_of[pos[rr]];
                memset(high, 0, sizeof high);
                for (j = 0; j < nattr; j++) {
                    double s = 0;
                    size_t m = 0;
                    high[j] = vals[pos[rr] * nattr + j] == 1;
                    val[j] = aval[j * R + rr];
                    for (i = 0; i < n; i++)
                        if (!isccr[c->dobj[i]]) {
                            s += aval[j * R + c->dobj[i]];
                            m++;
                        }
                    refv[j] = m ? s / (double)m : 0;
                }
                causes = pick_causes(&res, row, high);
            }
            rc = set_causes(c, f, causes, anames, adefs, nattr, val, refv);
            free(val);
            free(refv);
        }
        if (have_rs) {
            aa_roughset_result_free(&res, rows.nrows);
            aa_roughset_table_free(tab);
        }
        rs_rows_free(&rows);
        free(pos);
        free(tv);
        free(isccr);
        free(iscccr);
        free(vals);
        free(dec);
        free(cls);
        free(ord);
        free(send);
        if (rc)
            goto out;
        (void)ncccr;
    }

    /* disparity confidence: share of processes on which the region's own
     * value (same metric) lies above the class boundary, the midpoint between
     * the smallest CCR value and the largest non-CCR value */
    if (c->ndobj) {
        double lo = INFINITY, hi = 0, thr;
        int cyc_ok = cpi_ok && gather(c, m_cyc, T1) > 0 && gather(c, m_ins, T2) > 0;
        for (i = 0; i < c->ndobj; i++) {
            r = c->dobj[i];
            if (a->severity[r] >= 3 && a->region_value[r] < lo)
                lo = a->region_value[r];
            if (a->severity[r] < 3 && a->region_value[r] > hi)
                hi = a->region_value[r];
        }
        thr = isfinite(lo) ? (lo + hi) / 2 : INFINITY;
        for (i = 0; i < a->nfindings; i++) {
            aa_finding *f = &a->findings[i];
            size_t good = 0, k;
            if (f->kind != AA_FINDING_DISPARITY)
                continue;
            for (q = 0; q < P; q++) {
                double frac, cpi = 0, v;
                k = q * R + f->region;
                frac = (c->wpwt[q] > 0 && !isnan(W[k])) ? fmin(1, W[k] / c->wpwt[q]) : 0;
                if (cyc_ok && c->ran[k] && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
                    cpi = T1[k] / T2[k];
                if (strcmp(a->region_metric, "crnm") == 0)
                    v = frac * cpi;
                else if (strcmp(a->region_metric, "cpi") == 0)
                    v = cpi;
                else
                    v = frac;
                if (c->ran[k] && v > thr)
                    good++;
            }
            f->confidence = P ? (double)good / (double)P : 0;
        }
    }
    rank_findings(a);
out:
    for (i = 0; i < ds.nfound; i++)
        free(ds.found[i].labels);
    free(ds.found);
    if (dcols)
        for (i = 0; i < ds.nfound; i++)
            free(dcols[i]);
    free(dcols);
    free(aval);
    free(adefs);
    free(anames);
    free(cand);
    free(keep);
    free(MM);
    free(W);
    free(SW);
    free(T1);
    free(T2);
    (void)ndccr;
    return rc;
}

static void ctx_free(an_ctx *c)
{
    free(c->send);
    size_t p;
    if (c->map)
        for (p = 0; p < c->e->nprocesses; p++)
            free(c->map[p]);
    free(c->map);
    free(c->mapoff);
    free(c->tid);
    free(c->tparent);
    free(c->hkeys);
    free(c->hvals);
    free(c->proc);
    free(c->t2r);
    free(c->r2t);
    free(c->cstart);
    free(c->clist);
    free(c->ran);
    free(c->wpwt);
    free(c->whole);
    free(c->dobj);
    free(c->exroot);
}

int aa_analyze_run(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **out,
                   aa_err *err)
{
    an_ctx c;
    aa_analyze_options defo;
    aa_analysis *a;
    int rc;
    *out = NULL;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "analyze: no experiment");
    if (!o) {
        aa_analyze_options_init(&defo);
        o = &defo;
    }
    a = calloc(1, sizeof *a);
    if (!a)
        return aa_err_set(err, AA_EENV, "analyze: out of memory");
    a->exp = e;
    a->proc_metric = "cpu";
    a->region_metric = "crnm";
    a->excluded_ranks = calloc(e->nprocesses + 1, sizeof *a->excluded_ranks);
    memset(&c, 0, sizeof c);
    c.e = e;
    c.o = o;
    c.a = a;
    c.err = err;
    if (!a->excluded_ranks)
        rc = aa_err_set(err, AA_EENV, "analyze: out of memory");
    else if (e->nprocesses == 0)
        rc = aa_err_set(err, AA_EINPUT, "experiment has no processes");
    else
        rc = run(&c);
    ctx_free(&c);
    if (rc) {
        aa_analyze_free(a);
        return rc;
    }
    *out = a;
    return AA_OK;
}

/* Calling contexts the runtime stopped measuring after many very short
 * visits (flags="throttled"): their values are partial, so a drop of their
 * time is fewer measured visits, not a speed-up.  One note names them. */
static int note_throttled(an_ctx *c)
{
    const aa_experiment *e = c->e;
    uint32_t ids[8];
    size_t nids = 0, nnodes = 0, p, t, n, k;
    aa_buf b;
    int rc;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++)
            for (n = 0; n < e->processes[p].threads[t].nnodes; n++) {
                const aa_node *nd = &e->processes[p].threads[t].nodes[n];
                if (!(nd->flags & AA_NODE_THROTTLED))
                    continue;
                nnodes++;
                for (k = 0; k < nids && ids[k] != nd->region; k++)
                    ;
                if (k == nids && nids < sizeof ids / sizeof ids[0])
                    ids[nids++] = nd->region;
            }
    if (!nnodes)
        return AA_OK;
    aa_buf_init(&b);
    for (k = 0; k < nids; k++) {
        const aa_region *r = aa_experiment_region(e, ids[k]);
        aa_buf_printf(&b, "%s%s", k ? ", " : "", r && r->name ? r->name : "?");
    }
    rc = note(c, "partial values: %zu calling context%s throttled after many very short visits "
                 "(%s%s); their time covers only the visits before throttling, so a lower time "
                 "there is no speed-up",
              nnodes, nnodes == 1 ? "" : "s", b.data ? b.data : "", nids == 8 ? ", ..." : "");
    aa_buf_free(&b);
    return rc;
}

int aa_analyze_add_note(aa_analysis *a, const char *note)
{
    return an_strlist_add(&a->notes, &a->nnotes, note) ? AA_EENV : AA_OK;
}

void aa_analyze_free(aa_analysis *a)
{
    size_t i, j;
    if (!a)
        return;
    free(a->regions);
    free(a->cluster_size);
    if (a->cluster_ranks)
        for (i = 0; i < a->nclusters; i++)
            free(a->cluster_ranks[i]);
    free(a->cluster_ranks);
    free(a->excluded_ranks);
    free(a->severity);
    free(a->region_value);
    for (i = 0; i < a->nfindings; i++) {
        aa_finding *f = &a->findings[i];
        for (j = 0; j < f->ncauses; j++) {
            free(f->causes[j]);
            free(f->evidence[j].attribute);
        }
        free(f->causes);
        free(f->evidence);
        free(f->suggestion);
        free(f->slow_ranks);
    }
    free(a->findings);
    an_strlist_free(a->core_dissim, a->ncore_dissim);
    an_strlist_free(a->core_disp, a->ncore_disp);
    an_strlist_free(a->unavailable, a->nunavailable);
    an_strlist_free(a->notes, a->nnotes);
    an_strlist_free(a->attributes, a->nattributes);
    free(a->ranks);
    free(a->cluster_of);
    free(a->cluster_mean);
    free(a);
}
