/*
 * cluster/labels.c -- the labels of OPTICS' extraction at eps without the
 * ordering (aa_cluster_optics_labels): an exact shortcut where every point
 * is a core point at eps, OPTICS (cluster/optics.c) otherwise.
 *
 * Why the shortcut is exact.  Let every point be a core point, core(p) <=
 * eps, and let max_eps be unbounded.  Within a connected component C of the
 * eps-graph (edges: d(p,q) <= eps, d the exact sqrt(cl_dist2) OPTICS uses)
 * an unprocessed point adjacent to a processed one has reachability
 * max(core(p), d(p,q)) <= eps, while every point outside C has
 * reachability > eps (its distances to the processed points all exceed eps
 * and reachability is max(core, d) >= d).  OPTICS therefore processes C to
 * the end before it leaves it, the extraction gives C one cluster id, and
 * no point is isolated.  The clusters are the components; only their ids
 * need the order in which OPTICS meets them: the first is the component of
 * point 0 (OPTICS starts at the lowest index), and after components S the
 * next is that of the unprocessed point q of least reachability
 * min over p in S of max(core(p), d(p,q)) = min over p in S of d(p,q) (a
 * distance across components exceeds eps >= core(p)), the lowest index
 * among equal values (the seed list's tie rule).  Both are computed exactly,
 * with the same cl_dist2 and sqrt as OPTICS, so the labels are OPTICS' own
 * bit for bit (tests/unit/test_cluster.c compares them on random data with
 * ties, duplicates and non-core points).
 *
 * One dimension (each component of a level clustered alone, the common
 * call): sort; rounding is monotone, so the points within eps of a point
 * are a run of the sorted order around it (two pointers count them: core
 * test in O(n)), the components are the runs between gaps > eps, and the
 * nearest processed point of a component lies next to one of its ends.
 * O(n log n + k^2) for k components.
 *
 * More dimensions: hubs.  A pass in index order makes a point a hub unless
 * it lies within eps of an existing hub, and then joins the first such hub
 * (a hub's members are connected through it).  Core test: a point's
 * neighbours are searched in its own hub first (usually MinPts - 1 of them
 * are found there at once), then in hubs the triangle inequality does not
 * rule out.  Components: two hubs are joined when their centres lie within
 * eps, never when the centres lie further apart than eps plus both radii,
 * and by a search of member pairs otherwise.  Work is counted in distance
 * evaluations and bounded by 32 n + n^2 / 16 (about an eighth of what
 * OPTICS' core distances alone cost); past it, or with more than
 * CL_HUB_MAX hubs, OPTICS runs instead.  Data that is not finite, or a
 * bounded max_eps, always take OPTICS.
 */
#include "cluster/aa_cluster.h"
#include "cluster/cl_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* More hubs than this: the data is spread at the scale of eps, OPTICS. */
#define CL_HUB_MAX 4096
/* More components than this in one dimension: OPTICS (k^2 steps). */
#define CL_COMP_MAX 4096
/* Relative margin of the triangle-inequality bounds: covers the rounding
 * of cl_dist2 (relative (dim + 3) 2^-53) and of sqrt for dim < 10^6. */
#define TRI_SLACK 1e-9

typedef struct sc {
    const double *x;
    size_t n, dim, m; /* m = MinPts - 1 neighbours */
    double eps, e2hi; /* e2hi: a squared distance >= e2hi exceeds eps */
    size_t used, budget;
    size_t hub_max;
} sc;

static inline double sc_d2(sc *s, size_t i, size_t j, double bound)
{
    s->used++;
    return cl_dist2(s->x + i * s->dim, s->x + j * s->dim, s->dim, bound);
}

/* d(i,j) <= eps, decided exactly as OPTICS decides it. */
static inline int sc_within(sc *s, size_t i, size_t j)
{
    double d2 = sc_d2(s, i, j, s->e2hi);
    return d2 < s->e2hi && sqrt(d2) <= s->eps;
}

static inline double sc_dist(sc *s, size_t i, size_t j)
{
    return sqrt(sc_d2(s, i, j, INFINITY));
}

/* ---- one dimension ------------------------------------------------------- */

static const double *sort_x;
static int cmp_pos(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = sort_x[i], y = sort_x[j];
    if (x != y)
        return (x > y) - (x < y);
    return (i > j) - (i < j);
}

/* 1 labelled, 0 not all core (or too many components), -1 out of memory. */
static int labels_1d(sc *s, int *labels, size_t *ncl)
{
    size_t n = s->n, t, lo = 0, hi = 0, k = 0, g, step;
    size_t *pos = malloc(n * sizeof *pos), *start = NULL;
    double *val = NULL;
    size_t *rank = NULL;
    unsigned char *in = NULL;
    int rc = 1;
    if (!pos)
        return -1;
    for (t = 0; t < n; t++)
        pos[t] = t;
    sort_x = s->x;
    qsort(pos, n, sizeof *pos, cmp_pos);
    /* core test: the points within eps of pos[t] are pos[lo..hi] */
    for (t = 0; t < n; t++) {
        while (lo < t && !sc_within(s, pos[lo], pos[t]))
            lo++;
        if (hi < t)
            hi = t;
        while (hi + 1 < n && sc_within(s, pos[t], pos[hi + 1]))
            hi++;
        if ((t - lo) + (hi - t) < s->m) {
            rc = 0;
            goto out;
        }
    }
    /* components: runs of the sorted order between gaps > eps */
    for (t = 0; t < n; t++) {
        if (t > 0 && !sc_within(s, pos[t - 1], pos[t]))
            k++;
        labels[pos[t]] = (int)k; /* provisional: by position */
    }
    k++;
    if (k > CL_COMP_MAX) {
        rc = 0;
        goto out;
    }
    *ncl = k;
    if (k == 1)
        goto out;
    start = malloc((k + 1) * sizeof *start);
    rank = malloc(k * sizeof *rank);
    val = malloc(k * sizeof *val);
    in = calloc(k, 1);
    if (!start || !rank || !val || !in) {
        rc = -1;
        goto out;
    }
    for (t = 0, g = 0; t < n; t++)
        if (t == 0 || labels[pos[t]] != labels[pos[t - 1]])
            start[g++] = t;
    start[k] = n;
    /* OPTICS' order of the components */
    g = (size_t)labels[0];
    in[g] = 1;
    rank[g] = 0;
    for (step = 1; step < k; step++) {
        double best = INFINITY;
        size_t left = k, bg = k, bq = SIZE_MAX, h;
        /* per component: the distance of its end points to the nearest
         * processed points, the last one of the nearest processed component
         * on the left and the first one of that on the right */
        for (g = 0; g < k; g++) {
            size_t right;
            double d = INFINITY;
            if (in[g]) {
                left = g;
                continue;
            }
            for (right = g + 1; right < k && !in[right]; right++)
                ;
            if (left < k)
                d = sc_dist(s, pos[start[left + 1] - 1], pos[start[g]]);
            if (right < k) {
                double dr = sc_dist(s, pos[start[g + 1] - 1], pos[start[right]]);
                if (dr < d)
                    d = dr;
            }
            val[g] = d;
            if (d < best)
                best = d;
        }
        /* among the components at that distance, the one holding the lowest
         * point index at exactly that distance (rounding can put inner
         * points, and duplicates of the ends, at the same value) */
        left = k;
        for (g = 0; g < k; g++) {
            size_t right;
            if (in[g]) {
                left = g;
                continue;
            }
            if (val[g] != best)
                continue;
            for (right = g + 1; right < k && !in[right]; right++)
                ;
            for (h = start[g]; h < start[g + 1]; h++) {
                size_t q = pos[h];
                double d = INFINITY;
                if (q >= bq)
                    continue;
                if (left < k)
                    d = sc_dist(s, pos[start[left + 1] - 1], q);
                if (right < k) {
                    double dr = sc_dist(s, q, pos[start[right]]);
                    if (dr < d)
                        d = dr;
                }
                if (d == best) {
                    bq = q;
                    bg = g;
                }
            }
        }
        in[bg] = 1;
        rank[bg] = step;
    }
    for (t = 0; t < n; t++)
        labels[t] = (int)rank[labels[t]];
out:
    free(pos);
    free(start);
    free(rank);
    free(val);
    free(in);
    return rc;
}

/* ---- more dimensions: hubs ------------------------------------------------ */

typedef struct hubs {
    size_t nh;
    size_t *centre;   /* by hub: its point */
    double *rad;      /* by hub: max distance of a member to the centre */
    size_t *first;    /* nh + 1: members of hub h are mem[first[h]..first[h+1]) */
    size_t *mem;      /* n: points by hub, in index order */
    size_t *of;       /* n: hub of each point */
} hubs;

static void hubs_free(hubs *h)
{
    free(h->centre);
    free(h->rad);
    free(h->first);
    free(h->mem);
    free(h->of);
    memset(h, 0, sizeof *h);
}

/* 1 built, 0 too many hubs, -1 out of memory. */
static int hubs_build(sc *s, hubs *h)
{
    size_t n = s->n, cap = n < s->hub_max ? n : s->hub_max, i, l;
    memset(h, 0, sizeof *h);
    h->centre = malloc(cap * sizeof *h->centre);
    h->rad = calloc(cap, sizeof *h->rad);
    h->of = malloc(n * sizeof *h->of);
    h->mem = malloc(n * sizeof *h->mem);
    if (!h->centre || !h->rad || !h->of || !h->mem)
        return -1;
    for (i = 0; i < n; i++) {
        for (l = 0; l < h->nh; l++) {
            double d2 = sc_d2(s, i, h->centre[l], s->e2hi);
            if (d2 < s->e2hi && sqrt(d2) <= s->eps) {
                double d = sqrt(d2);
                if (d > h->rad[l])
                    h->rad[l] = d;
                break;
            }
        }
        if (s->used > s->budget)
            return 0;
        if (l == h->nh) {
            if (h->nh == cap)
                return 0;
            h->centre[h->nh++] = i;
        }
        h->of[i] = l;
    }
    h->first = calloc(h->nh + 1, sizeof *h->first);
    if (!h->first)
        return -1;
    for (i = 0; i < n; i++)
        h->first[h->of[i] + 1]++;
    for (l = 0; l < h->nh; l++)
        h->first[l + 1] += h->first[l];
    {
        size_t *fill = malloc((h->nh + 1) * sizeof *fill);
        if (!fill)
            return -1;
        memcpy(fill, h->first, (h->nh + 1) * sizeof *fill);
        for (i = 0; i < n; i++)
            h->mem[fill[h->of[i]]++] = i;
        free(fill);
    }
    return 1;
}

/* May a member of hub a lie within eps of a point at distance dc from a's
 * centre?  (False only when the triangle inequality rules it out.) */
static inline int may_reach(double dc, double rad, double eps)
{
    return !(dc * (1 - TRI_SLACK) - rad * (1 + TRI_SLACK) > eps * (1 + TRI_SLACK));
}

/* Is point i a core point?  1 yes, 0 no, -2 budget spent. */
static int core_nd(sc *s, const hubs *h, size_t i, double *dcen)
{
    size_t found = 0, own = h->of[i], l, t;
    if (s->m == 0)
        return 1;
    for (t = h->first[own]; t < h->first[own + 1]; t++) {
        size_t j = h->mem[t];
        if (j != i && sc_within(s, i, j) && ++found >= s->m)
            return 1;
    }
    for (l = 0; l < h->nh; l++) {
        if (l == own)
            continue;
        dcen[l] = sc_dist(s, i, h->centre[l]);
        if (!may_reach(dcen[l], h->rad[l], s->eps))
            continue;
        for (t = h->first[l]; t < h->first[l + 1]; t++)
            if (sc_within(s, i, h->mem[t]) && ++found >= s->m)
                return 1;
        if (s->used > s->budget)
            return -2;
    }
    return 0;
}

static size_t uf_find(size_t *p, size_t a)
{
    while (p[a] != a)
        a = p[a] = p[p[a]];
    return a;
}

/* Do some member of hub a and some member of hub b lie within eps? */
static int hubs_touch(sc *s, const hubs *h, size_t a, size_t b)
{
    size_t t, u;
    double dc = sc_dist(s, h->centre[a], h->centre[b]);
    if (dc <= s->eps)
        return 1;
    if (!may_reach(dc, h->rad[a] + h->rad[b] * (1 + TRI_SLACK), s->eps))
        return 0;
    for (t = h->first[a]; t < h->first[a + 1]; t++) {
        size_t i = h->mem[t];
        double di = sc_dist(s, i, h->centre[b]);
        if (!may_reach(di, h->rad[b], s->eps))
            continue;
        for (u = h->first[b]; u < h->first[b + 1]; u++)
            if (sc_within(s, i, h->mem[u]))
                return 1;
        if (s->used > s->budget)
            return 0;
    }
    return 0;
}

/* OPTICS' order of the components comp[] (k of them, by point): the first
 * holds point 0, the next the unprocessed point nearest the processed ones
 * (lowest index among equal distances).  rank[] gets the order. */
static int order_nd(sc *s, const size_t *comp, size_t k, size_t *rank)
{
    size_t n = s->n, i, p, step;
    double *best = malloc(n * sizeof *best);
    unsigned char *in = calloc(k, 1);
    size_t cur;
    int rc = 1;
    if (!best || !in) {
        free(best);
        free(in);
        return -1;
    }
    for (i = 0; i < n; i++)
        best[i] = INFINITY;
    cur = comp[0];
    in[cur] = 1;
    rank[cur] = 0;
    if (k == 2) {
        rank[1 - cur] = 1;
        goto out;
    }
    for (step = 1; step < k; step++) {
        double m = INFINITY;
        size_t bq = SIZE_MAX;
        /* lower the reachabilities by the component just processed */
        for (p = 0; p < n; p++) {
            if (comp[p] != cur)
                continue;
            for (i = 0; i < n; i++) {
                double bound, d2;
                if (in[comp[i]])
                    continue;
                bound = isfinite(best[i]) ? best[i] * best[i] * (1 + TRI_SLACK) : INFINITY;
                d2 = sc_d2(s, p, i, bound);
                if (d2 < bound && sqrt(d2) < best[i])
                    best[i] = sqrt(d2);
            }
            if (s->used > s->budget) {
                rc = 0;
                goto out;
            }
        }
        for (i = 0; i < n; i++)
            if (!in[comp[i]] && best[i] < m) {
                m = best[i];
                bq = i;
            }
        cur = comp[bq];
        in[cur] = 1;
        rank[cur] = step;
    }
out:
    free(best);
    free(in);
    return rc;
}

/* 1 labelled, 0 not all core (or the work bound reached), -1 out of memory. */
static int labels_nd(sc *s, int *labels, size_t *ncl)
{
    size_t n = s->n, i, l, k = 0;
    size_t *par = NULL, *root = NULL, *rank = NULL;
    double *dcen = NULL;
    hubs h;
    int rc = hubs_build(s, &h);
    if (rc != 1)
        goto out;
    dcen = malloc(h.nh * sizeof *dcen);
    par = malloc(h.nh * sizeof *par);
    root = malloc(n * sizeof *root);
    if (!dcen || !par || !root) {
        rc = -1;
        goto out;
    }
    for (i = 0; i < n; i++) {
        int c = core_nd(s, &h, i, dcen);
        if (c != 1) {
            rc = 0;
            goto out;
        }
    }
    for (l = 0; l < h.nh; l++)
        par[l] = l;
    for (l = 0; l < h.nh; l++) {
        size_t b;
        for (b = l + 1; b < h.nh; b++) {
            size_t ra = uf_find(par, l), rb = uf_find(par, b);
            if (ra == rb)
                continue;
            if (hubs_touch(s, &h, l, b))
                par[ra > rb ? ra : rb] = ra < rb ? ra : rb;
            if (s->used > s->budget) {
                rc = 0;
                goto out;
            }
        }
    }
    /* components numbered by their lowest hub (provisional) */
    for (l = 0; l < h.nh; l++)
        root[l] = uf_find(par, l) == l ? k++ : SIZE_MAX;
    for (i = 0; i < n; i++)
        labels[i] = (int)root[uf_find(par, h.of[i])];
    *ncl = k;
    if (k == 1)
        goto out;
    for (i = 0; i < n; i++)
        root[i] = (size_t)labels[i];
    rank = malloc(k * sizeof *rank);
    if (!rank) {
        rc = -1;
        goto out;
    }
    if ((rc = order_nd(s, root, k, rank)) == 1)
        for (i = 0; i < n; i++)
            labels[i] = (int)rank[root[i]];
out:
    hubs_free(&h);
    free(dcen);
    free(par);
    free(root);
    free(rank);
    return rc;
}

int cl_optics_shortcut(const double *x, size_t n, size_t dim, size_t min_pts, double eps,
                       size_t budget, int *labels, size_t *ncl)
{
    sc s;
    size_t i;
    if (n == 0 || !(eps > 0) || !isfinite(eps) || min_pts > n || dim >= 1000000)
        return 0;
    for (i = 0; i < n * dim; i++)
        if (!isfinite(x[i]))
            return 0;
    if (dim == 0) {
        for (i = 0; i < n; i++)
            labels[i] = 0;
        *ncl = 1;
        return 1;
    }
    s.x = x;
    s.n = n;
    s.dim = dim;
    s.m = min_pts ? min_pts - 1 : 0;
    s.eps = eps;
    s.e2hi = eps * eps * (1 + TRI_SLACK);
    s.used = 0;
    s.budget = budget ? budget : 32 * n + (n / 4) * (n / 4);
    s.hub_max = budget ? n : CL_HUB_MAX;
    return dim == 1 ? labels_1d(&s, labels, ncl) : labels_nd(&s, labels, ncl);
}

int cl_optics_labels(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                     int *labels, size_t *nclusters, aa_err *err, int mode)
{
    size_t min_pts = p ? p->min_pts : 0;
    double eps = p ? p->eps : 0, max_eps = p ? p->max_eps : INFINITY;
    aa_optics_params q;
    aa_optics_result r;
    int rc;
    if (!x && n)
        return aa_err_set(err, AA_EUSAGE, "optics: no data");
    if (!min_pts || !(eps > 0) || !isfinite(eps)) {
        size_t dm;
        double de;
        aa_cluster_optics_defaults(x, n, dim, &dm, &de);
        if (!min_pts)
            min_pts = dm;
        if (!(eps > 0) || !isfinite(eps))
            eps = de;
    }
    if (!(max_eps > 0) || isnan(max_eps))
        max_eps = INFINITY;
    if (mode != CL_LABELS_OPTICS && isinf(max_eps) && n > 0) {
        rc = cl_optics_shortcut(x, n, dim, min_pts, eps, 0, labels, nclusters);
        if (rc < 0)
            return aa_err_set(err, AA_EENV, "optics: out of memory (%zu points)", n);
        if (rc == 1)
            return AA_OK;
    }
    q.min_pts = min_pts;
    q.eps = eps;
    q.max_eps = max_eps;
    if ((rc = cl_optics(x, n, dim, &q, &r, err, CL_OPTICS_AUTO)))
        return rc;
    memcpy(labels, r.labels, n * sizeof *labels);
    *nclusters = r.nclusters;
    aa_cluster_optics_free(&r);
    return AA_OK;
}

int aa_cluster_optics_labels(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                             int *labels, size_t *nclusters, aa_err *err)
{
    return cl_optics_labels(x, n, dim, p, labels, nclusters, err, CL_LABELS_AUTO);
}
