/*
 * analyze/placement.c -- process differences that follow the CPUs the
 * processes shared, not their work.
 *
 * On a node running more processes than it has cores, the processes that
 * share one CPU are charged CPU time at that CPU's pace: a virtual CPU whose
 * host is busier, or the core that takes the interrupts, makes every
 * process on it 1-3% "slower" in every region.  The processes then split
 * into groups as tight and as significant as any imbalance: on the
 * diagnosis suite's balanced runs of 6-8 ranks on 2 cores, 7 of the 8
 * false partitions were exactly the processes' CPUs (bench/diagnosis.md,
 * nineteenth step).  Such a split is a block effect: the processes of one
 * CPU share it, so their spread within the group says nothing about it.
 * What it is compared with is how much the same two groups differ in the
 * program's other regions.  An imbalance of a region is explained by the
 * placement when
 *  1. the processes shared CPUs (some CPU of some host ran two or more of
 *     them, each for at least placement_min_share of its time) and the
 *     partition follows them: every CPU's processes are in one cluster, and
 *     those processes are in two clusters or more (a process the scheduler
 *     moved between CPUs runs at a mix of their paces and may be in
 *     either);
 *  2. over the regions that could hold a finding by themselves (self value
 *     at least finding_min_share of the program on every process), at
 *     least AN_PLACE_MIN_REGIONS of them, the slow processes' log ratio to
 *     the others has a median m (the groups' speed) and a spread s (1.4826
 *     median absolute deviations): the region's own log ratio d is within
 *     placement_z x sqrt(s^2 + se^2) of m (se: the standard error of d from
 *     the processes' spread within their groups).
 * A region with more work on the slow processes stands out of the others:
 * on the suite's 8 true imbalances that followed the CPUs (N8b-N14),
 * (d - m) / sqrt(s^2 + se^2) was 4.6-176, on its 4 false ones of a uniform
 * speed -0.4 to 0.5.
 * More work in every region alike (an uneven decomposition) on processes
 * that happen to share a CPU looks the same as a slower CPU: an
 * oversubscribed run cannot tell them apart, and the note says so.  With
 * one process per core no CPU runs two processes and nothing here applies.
 * The statistics are sums over processes, so that the parallel analysis
 * (parallel.c) reduces the same numbers and takes the same decision.
 */
#include "analyze/an_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a of the host name and the CPU: the placement key (0: none). */
uint64_t an_place_key(const aa_process *p, double min_share)
{
    double share;
    int cpu = aa_process_main_cpu(p, &share);
    uint64_t h = 1469598103934665603ull;
    const char *s;
    if (cpu < 0 || !(share >= min_share))
        return 0;
    for (s = p->host ? p->host : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ (uint64_t)(unsigned)cpu) * 1099511628211ull;
    return h ? h : 1;
}

typedef struct place_pair {
    uint64_t key;
    int label;
} place_pair;

static int cmp_pair(const void *a, const void *b)
{
    const place_pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->label > y->label) - (x->label < y->label);
}

static int an_place_split(const uint64_t *key, const int *labels, size_t P, int need_split);

int an_place_shared(const uint64_t *key, size_t P)
{
    int *zero = calloc(P ? P : 1, sizeof *zero), rc; /* one label: only the keys count */
    if (!zero)
        return -1;
    rc = an_place_split(key, zero, P, 0);
    free(zero);
    return rc;
}

/* The pairs of the processes with a key, sorted; *n of them; NULL on no
 * memory. */
static place_pair *placed_pairs(const uint64_t *key, const int *labels, size_t P, size_t *n)
{
    place_pair *v = malloc((P ? P : 1) * sizeof *v);
    size_t a;
    *n = 0;
    if (!v)
        return NULL;
    for (a = 0; a < P; a++)
        if (key[a])
            v[*n].key = key[a], v[(*n)++].label = labels[a];
    qsort(v, *n, sizeof *v, cmp_pair); /* O(P log P): 131,072 processes in the MPI analysis */
    return v;
}

/* 1 when some key is shared and processes sharing a key share a label; with
 * need_split, also the placed processes carry two labels or more. */
static int an_place_split(const uint64_t *key, const int *labels, size_t P, int need_split)
{
    size_t a, n;
    place_pair *v = placed_pairs(key, labels, P, &n);
    int shared = 0, split = 0;
    if (!v)
        return -1;
    for (a = 1; a < n && shared >= 0; a++) {
        split |= v[a].label != v[0].label;
        if (v[a].key == v[a - 1].key)
            shared = v[a].label != v[a - 1].label ? -2 : 1;
    }
    free(v);
    return shared > 0 && (split || !need_split);
}

int an_place_follows(const uint64_t *key, const int *labels, size_t P)
{
    return an_place_split(key, labels, P, 1);
}

int an_place_sums_init(an_place_sums *s, size_t R)
{
    memset(s, 0, sizeof *s);
    s->R = R;
    s->v = calloc(4 * R + AN_PLACE_SCALARS, sizeof *s->v);
    return s->v ? 0 : -1;
}

void an_place_sums_free(an_place_sums *s)
{
    free(s->v);
    s->v = NULL;
}

size_t an_place_sums_len(const an_place_sums *s)
{
    return 4 * s->R + AN_PLACE_SCALARS;
}

void an_place_cluster_add(double *cl, int label, double value)
{
    if (label >= 0 && value > 0) {
        cl[2 * label] += log(value);
        cl[2 * label + 1] += 1;
    }
}

void an_place_cluster_means(double *cl, size_t k)
{
    size_t j;
    for (j = 0; j < k; j++)
        cl[2 * j] = cl[2 * j + 1] > 0 ? cl[2 * j] / cl[2 * j + 1] : 0;
}

void an_place_add(an_place_sums *s, int slow, const double *self, const unsigned char *ran,
                  double value, double cluster_log)
{
    size_t r, g = slow ? 1 : 0;
    double *sc = s->v + 4 * s->R;
    sc[g] += 1; /* processes */
    if (value > 0) {
        sc[2 + g] += log(value);
        sc[5] += (log(value) - cluster_log) * (log(value) - cluster_log);
    } else
        sc[4] += 1; /* without a positive value */
    for (r = 0; r < s->R; r++)
        if ((!ran || ran[r]) && self[r] > 0) {
            s->v[g * s->R + r] += self[r];
            s->v[(2 + g) * s->R + r] += 1;
        }
}

/* The regions' log ratios slow / others (d, R entries) over the regions
 * every process ran with at least min_value on each side; how many. */
static size_t region_ratios(const an_place_sums *s, double min_value, double *d)
{
    const double *n = s->v + 4 * s->R;
    size_t r, k = 0;
    for (r = 0; r < s->R; r++) {
        double a = s->v[s->R + r] / n[1], b = s->v[r] / n[0];
        if (s->v[2 * s->R + r] == n[0] && s->v[3 * s->R + r] == n[1] && b >= min_value &&
            a >= min_value)
            d[k++] = log(a / b);
    }
    return k;
}

int an_place_judge(const an_place_sums *s, const aa_analyze_options *o, double program_metric,
                   size_t ncl, an_place_verdict *v)
{
    const double *sc = s->v + 4 * s->R, *n = sc, *lx = sc + 2;
    double df, se, *d;
    size_t r, k;
    memset(v, 0, sizeof *v);
    if (!(o->placement_z > 0) || !(n[0] >= 1 && n[1] >= 1) || sc[4] > 0 || !(program_metric > 0))
        return 0;
    if (!(d = malloc((s->R ? s->R : 1) * sizeof *d)))
        return -1;
    v->nregions = k = region_ratios(s, o->finding_min_share * program_metric, d);
    if (k >= AN_PLACE_MIN_REGIONS) { /* median and 1.4826 MAD (noise.c's median) */
        v->speed = an_quantile(d, k, 0.5);
        for (r = 0; r < k; r++)
            d[r] = fabs(d[r] - v->speed);
        v->spread = 1.4826 * an_quantile(d, k, 0.5);
    }
    free(d);
    if (k < AN_PLACE_MIN_REGIONS) {
        v->undecided = 1;
        return 0;
    }
    v->diff = lx[1] / n[1] - lx[0] / n[0];
    /* the spread within the partition's clusters: where the processes that
     * are not slow form several clusters, their spread about the mean of
     * all of them is the partition itself (seed 2914 of the suite: 8 ranks
     * in three groups, 1.5, 6.9 and 12.1 ms in face_flux, and every other
     * region alike within 0.2% -- "278.8% slower in face_flux, the CPUs'
     * speed"); with two clusters it is the same as the groups' own spread */
    df = n[0] + n[1] - (double)(ncl > 2 ? ncl : 2);
    se = df >= 1 ? sqrt(fmax(0, sc[5]) / df) * sqrt(1 / n[0] + 1 / n[1]) : 0;
    v->scale = sqrt(v->spread * v->spread + se * se);
    return v->diff - v->speed <= o->placement_z * v->scale;
}

void an_place_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set)
{
    const aa_region *ri = a->placement_region < a->nregions
                              ? a->regions[a->placement_region].info : NULL;
    size_t n = a->placement_dropped;
    snprintf(buf, size,
             "%zu process difference%s follow%s the CPUs the processes shared: ranks %s were "
             "%.1f%% slower in %s, and %.1f%% (+-%.1f%%) in the program's %zu regions of 1%% or "
             "more -- the CPUs' speed, not the work; not reported as an imbalance (with more "
             "processes than cores a slower CPU and more work in every region look the same; "
             "with one process per core this test does not apply)",
             n, n == 1 ? "" : "s", n == 1 ? "s" : "", slow_set, 100 * a->placement_ratio,
             ri && ri->name && *ri->name ? ri->name : "the region", 100 * a->placement_speed,
             100 * a->placement_spread, a->placement_regions);
}

int an_place_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                    const an_place_verdict *v)
{
    free(a->placement_slow);
    a->nplacement_slow = 0;
    if (!(a->placement_slow = malloc((ns ? ns : 1) * sizeof *a->placement_slow)))
        return -1;
    memcpy(a->placement_slow, slow, ns * sizeof *slow);
    a->nplacement_slow = ns;
    a->placement_dropped = n;
    a->placement_region = region;
    a->placement_ratio = expm1(v->diff);
    a->placement_speed = expm1(v->speed);
    a->placement_spread = v->spread;
    a->placement_regions = v->nregions;
    return 0;
}

int an_slow_rank_set(an_ctx *c, const int *labels, int slow, int **ranks, size_t *n,
                     char **set)
{
    aa_analysis *a = c->a;
    size_t q;
    *n = 0;
    *set = NULL;
    if (!(*ranks = malloc((a->nprocesses ? a->nprocesses : 1) * sizeof **ranks)))
        return an_nomem(c);
    for (q = 0; q < a->nprocesses; q++)
        if (labels[q] == slow)
            (*ranks)[(*n)++] = a->ranks[q];
    if (!(*set = aa_rankset_str(*ranks, *n))) {
        free(*ranks);
        *ranks = NULL;
        return an_nomem(c);
    }
    return AA_OK;
}

int an_place_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                    const an_place_verdict *v)
{
    size_t ns;
    int *r;
    char *set, buf[1024];
    int rc = an_slow_rank_set(c, labels, slow, &r, &ns, &set);
    if (!rc && an_place_record(c->a, n, region, r, ns, v))
        rc = an_nomem(c);
    if (!rc)
        an_place_note_text(buf, sizeof buf, c->a, set);
    free(r);
    free(set);
    return rc ? rc : an_note(c, "%s", buf);
}

int an_place_undecided_report(an_ctx *c, const int *labels, int slow, size_t n,
                              const an_place_verdict *v)
{
    size_t ns;
    int *r;
    char *set;
    int rc = an_slow_rank_set(c, labels, slow, &r, &ns, &set);
    if (rc)
        return rc;
    c->a->placement_undecided = n;
    c->a->placement_undecided_regions = v->nregions;
    rc = an_note(c,
                 "%zu process difference%s follow%s the CPUs the processes shared (rank%s %s "
                 "slower): the program has %zu region%s of 1%% or more, fewer than the %d that "
                 "tell a CPU's pace from the work, so %s reported, but may be the CPUs' speed "
                 "(with more processes than cores, processes sharing a slower CPU are slower in "
                 "every region); rerun with one process per core to tell",
                 n, n == 1 ? "" : "s", n == 1 ? "s" : "", ns == 1 ? "" : "s", set, v->nregions,
                 v->nregions == 1 ? "" : "s", AN_PLACE_MIN_REGIONS, n == 1 ? "it is" : "they are");
    free(r);
    free(set);
    return rc;
}
