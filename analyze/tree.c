/*
 * analyze/tree.c -- which processes are analysed and the region tree they
 * ran: excluded ranks and master detection (SPEC §5.1), the calling-context
 * nodes of every thread of every analysed process merged into one tree whose
 * nodes are identified by their path of static region ids (threads of a
 * process are summed), and the tree's kept nodes ordered depth-first into
 * the regions of the analysis, with their children lists and subtree ends.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static int rtree_rehash(an_rtree *t)
{
    size_t ncap = t->hcap ? t->hcap * 2 : 256, i;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    long *nv = malloc(ncap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (i = 0; i < t->hcap; i++)
        if (t->hk[i]) {
            size_t s = hslot(t->hk[i], ncap);
            while (nk[s])
                s = (s + 1) & (ncap - 1);
            nk[s] = t->hk[i];
            nv[s] = t->hv[i];
        }
    free(t->hk);
    free(t->hv);
    t->hk = nk;
    t->hv = nv;
    t->hcap = ncap;
    return 0;
}

long an_rtree_child(an_rtree *t, long parent, uint32_t id)
{
    uint64_t k = hkey(parent, id);
    size_t s;
    if ((t->n + 1) * 2 > t->hcap && rtree_rehash(t))
        return -1;
    s = hslot(k, t->hcap);
    while (t->hk[s]) {
        if (t->hk[s] == k)
            return t->hv[s];
        s = (s + 1) & (t->hcap - 1);
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        uint32_t *ni = realloc(t->id, nc * sizeof *ni);
        long *np;
        if (!ni)
            return -1;
        t->id = ni;
        if (!(np = realloc(t->par, nc * sizeof *np)))
            return -1;
        t->par = np;
        t->cap = nc;
    }
    t->id[t->n] = id;
    t->par[t->n] = parent;
    t->hk[s] = k;
    t->hv[s] = (long)t->n;
    return (long)t->n++;
}

static void note_fold(an_rtree *t, uint32_t id)
{
    size_t k;
    t->nfolded++;
    for (k = 0; k < t->nfold_id; k++)
        if (t->fold_id[k] == id)
            return;
    if (t->nfold_id < sizeof t->fold_id / sizeof t->fold_id[0])
        t->fold_id[t->nfold_id++] = id;
}

int an_rtree_map(an_rtree *t, const aa_process *pr, long *map, aa_err *err)
{
    size_t th, i;
    for (th = 0; th < pr->nthreads; th++) {
        const aa_thread *tt = &pr->threads[th];
        for (i = 0; i < tt->nnodes; i++) {
            const aa_node *nd = &tt->nodes[i];
            long par;
            if (nd->parent < 0) {
                if (nd->region == AA_REGION_ROOT) {
                    map[i] = 0;
                    continue;
                }
                par = 0;
            } else if (nd->parent >= (int32_t)i) {
                return aa_err_set(err, AA_EINPUT, "rank %d thread %d node %zu: parent does not "
                                  "precede it", pr->rank, tt->id, i);
            } else {
                par = map[nd->parent];
            }
            if (par > 0 && t->id[par] == nd->region) {
                map[i] = par; /* direct recursion: folded (an_node_folded) */
                note_fold(t, nd->region);
                continue;
            }
            if ((map[i] = an_rtree_child(t, par, nd->region)) < 0)
                return aa_err_set(err, AA_EENV, "analyze: out of memory");
        }
        map += tt->nnodes;
    }
    return AA_OK;
}

void an_rtree_free(an_rtree *t)
{
    free(t->id);
    free(t->par);
    free(t->hk);
    free(t->hv);
    memset(t, 0, sizeof *t);
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
/* The note on folded recursion: which regions (the first few). */
static int note_recursion(an_ctx *c)
{
    char names[256] = "";
    size_t k, len = 0;
    if (!c->tree.nfolded)
        return AA_OK;
    for (k = 0; k < c->tree.nfold_id && len < sizeof names - 1; k++) {
        const aa_region *r = aa_experiment_region(c->e, c->tree.fold_id[k]);
        int w = snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                         r && r->name ? r->name : "?");
        len += w > 0 ? (size_t)w : 0;
    }
    if (len >= sizeof names)
        len = sizeof names - 1;
    return an_note(c, "direct recursion folded: the deeper calls of %s%s count in the "
                      "outermost call, their callees with its callees (%zu call-tree node%s "
                      "of the processes merged)", names, c->tree.nfold_id == 4 ? ", ..." : "",
                   c->tree.nfolded, c->tree.nfolded == 1 ? "" : "s");
}

static int build_tree(an_ctx *c, const unsigned char *cand)
{
    const aa_experiment *e = c->e;
    size_t p, t;
    if (an_rtree_child(&c->tree, -1, AA_REGION_ROOT) != 0) /* root = tree index 0 */
        return an_nomem(c);
    c->mapoff = calloc(e->nprocesses + 1, sizeof *c->mapoff);
    c->map = calloc(e->nprocesses ? e->nprocesses : 1, sizeof *c->map);
    if (!c->mapoff || !c->map)
        return an_nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        size_t n = 0;
        int rc;
        if (!cand[p])
            continue;
        for (t = 0; t < pr->nthreads; t++)
            n += pr->threads[t].nnodes;
        c->map[p] = malloc((n ? n : 1) * sizeof **c->map);
        if (!c->map[p])
            return an_nomem(c);
        if ((rc = an_rtree_map(&c->tree, pr, c->map[p], c->err)))
            return rc;
    }
    return note_recursion(c);
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
    unsigned char *seen = calloc(c->tree.n ? c->tree.n : 1, 1);
    if (!seen)
        return an_nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        const aa_process *pr = &e->processes[p];
        size_t off = 0;
        if (!sel[p] || (only_rank >= 0 && pr->rank != only_rank))
            continue;
        memset(seen, 0, c->tree.n);
        for (t = 0; t < pr->nthreads; t++) {
            for (i = 0; i < pr->threads[t].nnodes; i++)
                seen[c->map[p][off + i]] = 1;
            off += pr->threads[t].nnodes;
        }
        for (i = 0; i < c->tree.n; i++)
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

/* Metric m of experiment process p summed by tree node over its threads
 * (inclusive values; NaN as 0) into incl. */
static void node_incl(an_ctx *c, size_t p, int m, double *incl)
{
    const aa_experiment *e = c->e;
    const aa_process *pr = &e->processes[p];
    size_t t, i, off = 0;
    memset(incl, 0, c->tree.n * sizeof *incl);
    for (t = 0; t < pr->nthreads && m >= 0; t++) {
        const aa_thread *th = &pr->threads[t];
        for (i = 0; i < th->nnodes; i++) {
            double x = aa_node_values(e, th, i)[m];
            if (!an_node_folded(th, c->map[p] + off, i))
                incl[c->map[p][off + i]] += isnan(x) ? 0 : x;
        }
        off += th->nnodes;
    }
}

/* Time of experiment process p by tree node: its own (self) wall time,
 * without the self MPI time of the program and its entry function (MPI_Init
 * and MPI_Finalize: set-up, not work), >= 0.  incl, mpi: ntree scratch.
 * Children follow their parents, so in ascending order a node's value is
 * still inclusive when it is taken from its parent's. */
static void node_self_work(an_ctx *c, size_t p, double *incl, double *mpi, double *self)
{
    size_t i;
    node_incl(c, p, aa_experiment_metric_index(c->e, "wall"), incl);
    node_incl(c, p, aa_experiment_metric_index(c->e, "mpi_wall"), mpi);
    memcpy(self, incl, c->tree.n * sizeof *self);
    for (i = 1; i < c->tree.n; i++) {
        self[c->tree.par[i]] -= incl[i];
        mpi[c->tree.par[i]] -= mpi[i];
    }
    for (i = 0; i < c->tree.n; i++) {
        if (c->tree.par[i] < 0 || c->tree.par[c->tree.par[i]] < 0)
            self[i] -= mpi[i];
        if (self[i] < 0)
            self[i] = 0;
    }
}

/* The share of process p's time spent in the nodes marked (or unmarked,
 * want == 0) in mark; its total time into *total.  incl, mpi, self: ntree
 * scratch. */
static double work_share(an_ctx *c, size_t p, const unsigned char *mark, int want,
                         double *incl, double *mpi, double *self, double *total)
{
    double in = 0, all = 0;
    size_t i;
    node_self_work(c, p, incl, mpi, self);
    for (i = 0; i < c->tree.n; i++) {
        all += self[i];
        if ((mark[i] != 0) == want)
            in += self[i];
    }
    *total = all;
    return all > 0 ? in / all : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Master detection (§5.1), from the dominant work: rank 0 is a master when
 * at least master_min_share of its time (wall time without MPI set-up: a
 * master's work is mostly handing out tasks and waiting for results) is
 * spent in regions no other process runs, and at least that share of the
 * (median) other process's time in regions rank 0 does not run: the two do
 * different work.  Call-path
 * differences alone (rank 0 printing results, skipping a loop, taking the
 * root branch of a reduction) leave rank 0 in, and so does a rank 0 with
 * extra work of its own beside the common work (overloaded, not a
 * master: the others' work is in regions it runs too). */
static int detect_master(an_ctx *c, unsigned char *cand, int *is_master, double *share0)
{
    const aa_experiment *e = c->e;
    size_t p, i, nothers = 0, no = 0;
    size_t *cnt = calloc(c->tree.n, sizeof *cnt);
    unsigned char *r0 = calloc(c->tree.n, 1), *others = malloc(e->nprocesses);
    unsigned char *only0 = calloc(c->tree.n, 1);
    double *incl = malloc(c->tree.n * sizeof *incl), *self = malloc(c->tree.n * sizeof *self);
    double *mpi = malloc(c->tree.n * sizeof *mpi);
    double *oshare = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *oshare);
    double min = c->o->master_min_share, tot;
    long p0 = -1;
    int rc = AA_OK;
    *is_master = 0;
    *share0 = 0;
    if (!cnt || !r0 || !others || !only0 || !incl || !self || !mpi || !oshare) {
        rc = an_nomem(c);
        goto out;
    }
    for (p = 0; p < e->nprocesses; p++) {
        others[p] = cand[p] && e->processes[p].rank != 0;
        nothers += others[p];
        if (cand[p] && e->processes[p].rank == 0)
            p0 = (long)p;
    }
    if (p0 < 0 || nothers < 2)
        goto out;
    count_runs(c, others, cnt, -1, NULL);
    count_runs(c, cand, NULL, 0, r0);
    for (i = 1; i < c->tree.n; i++)
        only0[i] = r0[i] && cnt[i] == 0;
    *share0 = work_share(c, (size_t)p0, only0, 1, incl, mpi, self, &tot);
    for (p = 0; p < e->nprocesses; p++)
        if (others[p])
            oshare[no++] = work_share(c, p, r0, 0, incl, mpi, self, &tot);
    qsort(oshare, no, sizeof *oshare, cmp_dbl);
    *is_master = *share0 >= min && oshare[(no - 1) / 2] >= min;
out:
    free(cnt);
    free(r0);
    free(others);
    free(only0);
    free(incl);
    free(mpi);
    free(self);
    free(oshare);
    return rc;
}

/* The children lists by region index (c->cstart, c->clist); in preorder,
 * children come in id order. */
static int region_children(an_ctx *c)
{
    const aa_analysis *a = c->a;
    size_t i, *ccount = calloc(c->R + 1, sizeof *ccount);
    c->cstart = calloc(c->R + 1, sizeof *c->cstart);
    c->clist = malloc((c->R ? c->R : 1) * sizeof *c->clist);
    if (!ccount || !c->cstart || !c->clist) {
        free(ccount);
        return an_nomem(c);
    }
    for (i = 1; i < c->R; i++)
        c->cstart[a->regions[i].parent + 1]++;
    for (i = 0; i < c->R; i++)
        c->cstart[i + 1] += c->cstart[i];
    for (i = 1; i < c->R; i++) {
        size_t pp = (size_t)a->regions[i].parent;
        c->clist[c->cstart[pp] + ccount[pp]++] = i;
    }
    free(ccount);
    return AA_OK;
}

/* Orders kept nodes depth-first (children by region id) into regions[]. */
static int build_regions(an_ctx *c, const unsigned char *keep)
{
    size_t i, n = c->tree.n, k;
    size_t *ccount = calloc(n + 1, sizeof *ccount), *cst = calloc(n + 1, sizeof *cst);
    size_t *cl = malloc((n ? n : 1) * sizeof *cl), *stack = malloc((n + 1) * sizeof *stack);
    size_t sp = 0;
    aa_analysis *a = c->a;
    if (!ccount || !cst || !cl || !stack)
        goto oom;
    for (i = 1; i < n; i++)
        if (keep[i])
            ccount[c->tree.par[i]]++;
    for (i = 0; i < n; i++)
        cst[i + 1] = cst[i] + ccount[i];
    memset(ccount, 0, (n + 1) * sizeof *ccount);
    for (i = 1; i < n; i++)
        if (keep[i]) {
            size_t pp = (size_t)c->tree.par[i];
            cl[cst[pp] + ccount[pp]++] = i;
        }
    for (i = 0; i < n; i++)
        qsort_r(cl + cst[i], cst[i + 1] - cst[i], sizeof *cl, cmp_u32_node, c->tree.id);
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
        ar->id = c->tree.id[t];
        ar->parent = t == 0 ? -1 : c->t2r[c->tree.par[t]];
        ar->depth = t == 0 ? 0 : a->regions[ar->parent].depth + 1;
        ar->info = aa_experiment_region(c->e, ar->id);
        for (k = cst[t + 1]; k > cst[t]; k--)
            stack[sp++] = cl[k - 1];
    }
    a->nregions = c->R;
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
    return an_nomem(c);
}

size_t an_nchildren(const an_ctx *c, size_t r)
{
    return c->cstart[r + 1] - c->cstart[r];
}

/* Candidates: every process of the experiment but the excluded ranks. */
static int select_candidates(an_ctx *c)
{
    const aa_experiment *e = c->e;
    aa_analysis *a = c->a;
    size_t p;
    c->cand = calloc(e->nprocesses ? e->nprocesses : 1, 1);
    if (!c->cand)
        return an_nomem(c);
    for (p = 0; p < e->nprocesses; p++) {
        if (rank_excluded(c->o, e->processes[p].rank)) {
            a->excluded_ranks[a->nexcluded_ranks++] = e->processes[p].rank;
            continue;
        }
        c->cand[p] = 1;
    }
    return AA_OK;
}

/* Rank 0 leaves the candidates when it is a master process (detect_master). */
static int exclude_master(an_ctx *c)
{
    const aa_experiment *e = c->e;
    aa_analysis *a = c->a;
    int master, rc;
    size_t p;
    double share;
    if (!c->o->auto_exclude_master)
        return AA_OK;
    if ((rc = detect_master(c, c->cand, &master, &share)))
        return rc;
    if (!master)
        return AA_OK;
    for (p = 0; p < e->nprocesses; p++)
        if (c->cand[p] && e->processes[p].rank == 0)
            c->cand[p] = 0;
    a->excluded_ranks[a->nexcluded_ranks++] = 0;
    return an_note(c,
                   "rank 0 behaves as a master: excluded (%.0f%% of its work is in regions no "
                   "other process runs, and it does not run the regions holding most of the "
                   "others' work); rerun the analysis with --no-auto-exclude to keep it",
                   100 * share);
}

/* The analysed processes (c->proc, a->ranks): the candidates left, in
 * experiment order; an input error when there is none. */
static int list_processes(an_ctx *c)
{
    const aa_experiment *e = c->e;
    aa_analysis *a = c->a;
    size_t p;
    c->proc = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *c->proc);
    a->ranks = malloc((e->nprocesses ? e->nprocesses : 1) * sizeof *a->ranks);
    if (!c->proc || !a->ranks)
        return an_nomem(c);
    for (p = 0; p < e->nprocesses; p++)
        if (c->cand[p]) {
            a->ranks[c->P] = e->processes[p].rank;
            c->proc[c->P++] = p;
        }
    a->nprocesses = c->P;
    if (c->P == 0)
        return aa_err_set(c->err, AA_EINPUT, "no processes to analyse (%zu in the experiment, "
                                             "%zu excluded)", e->nprocesses, a->nexcluded_ranks);
    return AA_OK;
}

/* Phase: the analysed processes, and the tree of the nodes they ran. */
int an_select_processes(an_ctx *c)
{
    int rc;
    if ((rc = select_candidates(c)) || (rc = build_tree(c, c->cand)) ||
        (rc = exclude_master(c)))
        return rc;
    return list_processes(c);
}

/* Tree nodes kept as regions (keep): run by an analysed process and not
 * excluded by --exclude-regions (with their subtrees); the topmost excluded
 * nodes are marked in c->exroot. */
static int keep_nodes(an_ctx *c, unsigned char *keep)
{
    const aa_analyze_options *o = c->o;
    size_t i, nexcl = 0, *cnt = calloc(c->tree.n, sizeof *cnt);
    if (!cnt)
        return an_nomem(c);
    count_runs(c, c->cand, cnt, -1, NULL);
    keep[0] = 1;
    for (i = 1; i < c->tree.n; i++) { /* parents precede children */
        uint32_t id = c->tree.id[i];
        keep[i] = cnt[i] > 0 && keep[c->tree.par[i]];
        if (keep[i] && o->nexclude_regions &&
            region_excluded(o, aa_experiment_region(c->e, id), id)) {
            keep[i] = 0;
            if (!c->exroot && !(c->exroot = calloc(c->tree.n, 1))) {
                free(cnt);
                return an_nomem(c);
            }
            c->exroot[i] = 1;
            nexcl++;
        }
    }
    free(cnt);
    if (nexcl)
        return an_note(c, "%zu region node%s excluded by --exclude-regions (with "
                          "their sub-regions; their time is removed from the enclosing regions)",
                       nexcl, nexcl == 1 ? "" : "s");
    return AA_OK;
}

/* Phase: the regions (kept nodes in preorder) and which process ran which. */
int an_region_list(an_ctx *c)
{
    unsigned char *keep = calloc(c->tree.n, 1);
    int rc;
    if (!keep)
        return an_nomem(c);
    rc = keep_nodes(c, keep);
    if (!rc)
        rc = build_regions(c, keep);
    if (!rc)
        rc = region_children(c);
    if (!rc)
        rc = an_fill_ran(c);
    free(keep);
    return rc;
}

/* Phase: subtree ends; regions are in preorder, so the subtree of r is
 * [r, send[r]). */
int an_subtree_ends(an_ctx *c)
{
    size_t r, R = c->R;
    if (!(c->send = malloc((R + 1) * sizeof *c->send)))
        return an_nomem(c);
    for (r = R; r-- > 0;)
        c->send[r] = r + 1;
    for (r = R; r-- > 1;)
        if (c->send[r] > c->send[c->a->regions[r].parent])
            c->send[c->a->regions[r].parent] = c->send[r];
    return AA_OK;
}

/* Calling contexts the runtime stopped measuring after many very short
 * visits (flags="throttled"): their values are partial, so a drop of their
 * time is fewer measured visits, not a speed-up.  One note names them. */
int an_partial_values(an_ctx *c)
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
    rc = an_note(c, "partial values: %zu calling context%s throttled after many very short visits "
                    "(%s%s); their time covers only the visits before throttling, so a lower time "
                    "there is no speed-up",
                 nnodes, nnodes == 1 ? "" : "s", b.data ? b.data : "", nids == 8 ? ", ..." : "");
    aa_buf_free(&b);
    return rc;
}
