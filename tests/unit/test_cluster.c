/*
 * tests/unit/test_cluster.c -- OPTICS and k-means: hand-computed cases
 * (core distances, reachability, ordering, labels, optimal 1-D partitions),
 * and property tests against straightforward reference implementations
 * (OPTICS with a full distance matrix and a linear seed list; k-means1d SSE
 * against exhaustive and random partitions), plus aa_cluster_same_partition.
 * OPTICS is checked through each of its methods (direct distances, the
 * bounded approximate distance matrix with the fast and the portable
 * kernel), which must agree bit for bit also on real-valued data with
 * near-ties and on data of extreme magnitude.
 */
#include "cluster/aa_cluster.h"
#include "cluster/cl_internal.h"
#include "tests/tap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rs = 88172645463325252ULL;
static unsigned rnd(unsigned m)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (unsigned)(rs % m);
}

/* ---- reference OPTICS: textbook, O(n^2) memory ----------------------- */
typedef struct ref {
    size_t ord[256];
    double reach[256], core[256];
    int labels[256];
} ref;

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void ref_optics(const double *x, size_t n, size_t dim, size_t mp, double eps,
                       double max_eps, ref *r)
{
    static double D[256][256], tmp[256];
    int done[256] = {0}, next = 0, cid = -1;
    size_t i, j, k, no = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (k = 0; k < dim; k++)
                s += (x[i * dim + k] - x[j * dim + k]) * (x[i * dim + k] - x[j * dim + k]);
            D[i][j] = sqrt(s);
        }
    for (i = 0; i < n; i++) {
        size_t m = 0;
        for (j = 0; j < n; j++)
            if (D[i][j] <= max_eps)
                tmp[m++] = D[i][j];
        qsort(tmp, m, sizeof *tmp, cmpd);
        r->core[i] = m >= mp ? tmp[mp - 1] : INFINITY;
        r->reach[i] = INFINITY;
    }
    for (i = 0; i < n; i++) {
        size_t p = i;
        if (done[i])
            continue;
        for (;;) {
            size_t best = n;
            done[p] = 1;
            r->ord[no++] = p;
            if (isfinite(r->core[p]))
                for (j = 0; j < n; j++)
                    if (!done[j] && D[p][j] <= max_eps) {
                        double nr = fmax(r->core[p], D[p][j]);
                        if (nr < r->reach[j])
                            r->reach[j] = nr;
                    }
            for (j = 0; j < n; j++)
                if (!done[j] && isfinite(r->reach[j]) &&
                    (best == n || r->reach[j] < r->reach[best]))
                    best = j;
            if (best == n)
                break;
            p = best;
        }
    }
    for (i = 0; i < n; i++) {
        size_t q = r->ord[i];
        if (r->reach[q] > eps) {
            if (r->core[q] <= eps)
                cid = r->labels[q] = next++;
            else
                r->labels[q] = next++;
        } else {
            r->labels[q] = cid;
        }
    }
}

static void hand_optics(void)
{
    double x1[] = {0, 1, 2, 10, 11, 30};
    double x2[] = {10, 0, 30, 1, 11, 2};
    double sq[] = {0, 0, 1, 0, 0, 1, 1, 1};
    aa_optics_params p = {2, 3.0, INFINITY};
    aa_optics_result r;
    aa_err err;
    size_t i;
    int ok1;
    {
        size_t ord[] = {0, 1, 2, 3, 4, 5};
        double reach[] = {INFINITY, 1, 1, 8, 1, 19}, core[] = {1, 1, 1, 1, 1, 19};
        int lab[] = {0, 0, 0, 1, 1, 2};
        is_int(aa_cluster_optics(x1, 6, 1, &p, &r, &err), 0, "optics 1-D runs");
        ok1 = 1;
        for (i = 0; i < 6; i++)
            ok1 &= r.ordering[i] == ord[i] && r.reachability[i] == reach[i] &&
                   r.core_distance[i] == core[i] && r.labels[i] == lab[i];
        ok(ok1, "1-D sorted: ordering, reachability, core distances, labels by hand");
        is_int(r.nclusters, 3, "two clusters and one isolated point");
        aa_cluster_optics_free(&r);
    }
    {
        size_t ord[] = {0, 4, 5, 3, 1, 2};
        double reach[] = {INFINITY, 1, 19, 1, 1, 8}, core[] = {1, 1, 19, 1, 1, 1};
        int lab[] = {0, 1, 2, 1, 0, 1};
        aa_cluster_optics(x2, 6, 1, &p, &r, &err);
        ok1 = 1;
        for (i = 0; i < 6; i++)
            ok1 &= r.ordering[i] == ord[i] && r.reachability[i] == reach[i] &&
                   r.core_distance[i] == core[i] && r.labels[i] == lab[i];
        ok(ok1, "1-D shuffled: ordering 0 4 5 3 1 2, labels numbered by first appearance");
        aa_cluster_optics_free(&r);
    }
    {
        aa_optics_params p3 = {3, 0.5, INFINITY};
        aa_cluster_optics(sq, 4, 2, &p3, &r, &err);
        ok(r.ordering[0] == 0 && r.ordering[1] == 1 && r.ordering[2] == 2 &&
               r.ordering[3] == 3,
           "2-D square: ties broken by lowest index");
        ok(r.core_distance[0] == 1 && r.reachability[1] == 1 && r.reachability[2] == 1 &&
               r.reachability[3] == 1,
           "2-D square: core 1 (MinPts counts the point), reachability 1");
        ok(r.labels[0] == 0 && r.labels[1] == 1 && r.labels[2] == 2 && r.labels[3] == 3,
           "eps below every core distance: every point isolated, ids 0..3, no -1");
        aa_cluster_optics_free(&r);
    }
    {
        double same[] = {5, 5, 5, 5, 5, 5};
        aa_cluster_optics(same, 3, 2, NULL, &r, &err);
        ok(r.eps_used > 0 && r.nclusters == 1, "equal vectors: eps > 0, one cluster");
        aa_cluster_optics_free(&r);
        double zero[] = {0, 0, 0, 0};
        aa_cluster_optics(zero, 4, 1, NULL, &r, &err);
        ok(r.eps_used > 0 && r.nclusters == 1, "all-zero vectors: eps > 0, one cluster");
        aa_cluster_optics_free(&r);
    }
    {
        aa_optics_params p1 = {1, 0.5, INFINITY};
        aa_cluster_optics(x1, 6, 1, &p1, &r, &err);
        ok(r.core_distance[3] == 0 && r.nclusters == 6,
           "MinPts 1: core distance 0, points 1 apart are separate at eps 0.5");
        aa_cluster_optics_free(&r);
        aa_optics_params p9 = {9, 100, INFINITY};
        aa_cluster_optics(x1, 6, 1, &p9, &r, &err);
        ok(isinf(r.core_distance[0]) && r.nclusters == 6,
           "MinPts above n: undefined core distances, all isolated");
        aa_cluster_optics_free(&r);
    }
}

static void property_optics(int method, const char *name)
{
    int seed, bad = 0, runs = 0;
    for (seed = 0; seed < 400; seed++) {
        size_t n = 1 + rnd(70), dims[] = {1, 2, 3, 5, 9, 70, 130};
        size_t dim = dims[rnd(7)], mp = 1 + rnd(7), i;
        double *x = malloc(n * dim * sizeof *x);
        double eps = 0.5 + rnd(40) * 0.25, max_eps = rnd(4) == 0 ? 2.0 + rnd(30) : INFINITY;
        unsigned range = dim > 10 ? 3 : 6 + rnd(20);
        aa_optics_params p = {mp, eps, max_eps};
        aa_optics_result r;
        static ref rf;
        aa_err err;
        for (i = 0; i < n * dim; i++)
            x[i] = (double)rnd(range) - 3;
        if (cl_optics(x, n, dim, &p, &r, &err, method)) {
            bad++;
            free(x);
            continue;
        }
        ref_optics(x, n, dim, mp, eps, max_eps, &rf);
        runs++;
        for (i = 0; i < n; i++) {
            if (r.ordering[i] != rf.ord[i] || r.labels[i] != rf.labels[i] ||
                !(r.reachability[i] == rf.reach[i]) || !(r.core_distance[i] == rf.core[i])) {
                if (!bad)
                    diag("seed %d n=%zu dim=%zu minpts=%zu: first difference at %zu", seed,
                         n, dim, mp, i);
                bad++;
                break;
            }
        }
        for (i = 0; i < n; i++)
            if (r.labels[i] < 0 || (size_t)r.labels[i] >= r.nclusters)
                bad++;
        aa_cluster_optics_free(&r);
        free(x);
    }
    ok(bad == 0 && runs == 400,
       "OPTICS (%s) == brute-force reference on 400 random data sets (ties, MinPts 1-7, "
       "max_eps)",
       name);
}

/* Bit-for-bit equality of two OPTICS results. */
static int same_result(const aa_optics_result *a, const aa_optics_result *b)
{
    size_t i;
    if (a->n != b->n || a->nclusters != b->nclusters)
        return 0;
    for (i = 0; i < a->n; i++)
        if (a->ordering[i] != b->ordering[i] || a->labels[i] != b->labels[i] ||
            memcmp(&a->reachability[i], &b->reachability[i], sizeof(double)) ||
            memcmp(&a->core_distance[i], &b->core_distance[i], sizeof(double)))
            return 0;
    return 1;
}

static double gauss(void)
{
    double u = (rnd(1u << 30) + 0.5) / (double)(1u << 30);
    double v = (rnd(1u << 30) + 0.5) / (double)(1u << 30);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Real-valued process-like vectors: groups with 1x / 1.3x / 2x work and
 * noise, duplicated rows, an offset (cancellation in the matrix) and a
 * magnitude scale; every method must give the same result. */
static int methods_agree(size_t n, size_t dim, double noise, double offset, double mag,
                         size_t mp, double max_eps, int *all_direct)
{
    double *x = malloc(n * dim * sizeof *x), *base = malloc(dim * sizeof *base);
    int methods[] = {CL_OPTICS_MATRIX, CL_OPTICS_MATRIX_GENERIC, CL_OPTICS_MATRIX_AVX2,
                     CL_OPTICS_AUTO},
        good = 1;
    aa_optics_params p = {mp, 0, max_eps};
    aa_optics_result rd, rm;
    aa_err err;
    size_t i, k, t;
    double bn = 0;
    for (k = 0; k < dim; k++) {
        base[k] = 0.2 + rnd(1000) / 500.0;
        bn += base[k] * base[k];
    }
    p.eps = 0.1 * sqrt(bn) * mag; /* between the groups' distances */
    for (i = 0; i < n; i++) {
        double f = i % 8 == 3 ? 2.0 : i % 8 == 5 ? 1.3 : 1.0;
        if (i % 10 == 9) { /* exact duplicate of an earlier row */
            memcpy(x + i * dim, x + (i - 1 - rnd((unsigned)(i < 9 ? i : 9))) * dim,
                   dim * sizeof *x);
            continue;
        }
        for (k = 0; k < dim; k++)
            x[i * dim + k] = (offset + base[k] * f * (1 + noise * gauss())) * mag;
    }
    if (cl_optics(x, n, dim, &p, &rd, &err, CL_OPTICS_DIRECT))
        return 0;
    for (t = 0; t < sizeof methods / sizeof *methods; t++) {
        if (cl_optics(x, n, dim, &p, &rm, &err, methods[t])) {
            good = 0;
            break;
        }
        good &= same_result(&rd, &rm);
        aa_cluster_optics_free(&rm);
    }
    if (rd.nclusters == n || rd.nclusters == 1)
        ++*all_direct; /* counted: the cases must not all be trivial */
    aa_cluster_optics_free(&rd);
    free(x);
    free(base);
    return good;
}

static void optics_methods(void)
{
    int bad = 0, trivial = 0, c;
    struct {
        size_t n, dim;
        double noise, offset, mag;
        size_t mp;
        double max_eps;
    } cs[] = {
        {300, 40, 0.03, 0, 1, 5, INFINITY},     {300, 40, 0.03, 0, 1, 2, INFINITY},
        {257, 130, 0.01, 0, 1, 8, INFINITY},    {300, 9, 0.05, 0, 1, 4, 3.0},
        {300, 40, 1e-9, 1e6, 1, 5, INFINITY},   {200, 17, 1e-12, 0, 1, 3, INFINITY},
        {300, 40, 0.03, 0, 1e-100, 5, INFINITY}, {300, 40, 0.03, 0, 1e100, 5, INFINITY},
        {300, 40, 0.03, 0, 1e200, 5, INFINITY},
        {300, 40, 0.03, 0, 1e-300, 5, INFINITY}, {64, 500, 0.03, 0, 1, 1, INFINITY},
        {300, 3, 0.03, 0, 1, 5, INFINITY},      {100, 40, 0, 0, 1, 5, INFINITY},
    };
    for (c = 0; c < (int)(sizeof cs / sizeof *cs); c++)
        if (!methods_agree(cs[c].n, cs[c].dim, cs[c].noise, cs[c].offset, cs[c].mag, cs[c].mp,
                           cs[c].max_eps, &trivial)) {
            diag("case %d (n=%zu dim=%zu noise=%g offset=%g mag=%g): methods differ", c,
                 cs[c].n, cs[c].dim, cs[c].noise, cs[c].offset, cs[c].mag);
            bad++;
        }
    /* only magnitudes 1e-300 and 1e200 may be trivial (distances underflow
     * to 0 / overflow to infinity) */
    ok(bad == 0 && trivial <= 2,
       "OPTICS: matrix (best, portable and AVX2 kernel) == direct bit for bit on %d real-valued "
       "data sets (near-ties, duplicates, offset 1e6, magnitudes 1e-300..1e200)",
       c);
}

/* ---- k-means --------------------------------------------------------- */
static double sse_of(const double *x, size_t n, const int *lab, size_t k)
{
    double s = 0, sum[16] = {0}, cnt[16] = {0};
    size_t i;
    for (i = 0; i < n; i++) {
        sum[lab[i]] += x[i];
        cnt[lab[i]] += 1;
    }
    for (i = 0; i < n; i++) {
        double c = sum[lab[i]] / cnt[lab[i]];
        s += (x[i] - c) * (x[i] - c);
    }
    (void)k;
    return s;
}

static void hand_kmeans(void)
{
    double x[] = {10, 1, 12, 2, 11, 3};
    double y[] = {4, 4, 4, 4};
    double z[] = {1, 1, 5, 5, 9};
    aa_kmeans_result r;
    aa_err err;
    is_int(aa_cluster_kmeans1d(x, 6, 2, &r, &err), 0, "kmeans1d runs");
    ok(r.k == 2 && r.labels[0] == 1 && r.labels[1] == 0 && r.labels[2] == 1 &&
           r.labels[3] == 0 && r.labels[4] == 1 && r.labels[5] == 0,
       "kmeans1d {1,2,3} {10,11,12}: labels ordered by center");
    ok(r.centers[0] == 2 && r.centers[1] == 11 && r.sse == 4, "centers 2, 11; SSE 4");
    aa_cluster_kmeans_free(&r);
    aa_cluster_kmeans1d(y, 4, 5, &r, &err);
    ok(r.k == 1 && r.sse == 0 && r.labels[3] == 0, "one distinct value: one class");
    aa_cluster_kmeans_free(&r);
    aa_cluster_kmeans1d(z, 5, 5, &r, &err);
    ok(r.k == 3 && r.labels[0] == 0 && r.labels[1] == 0 && r.labels[2] == 1 &&
           r.labels[4] == 2 && r.sse == 0,
       "three distinct values, k 5: three classes, equal values together");
    aa_cluster_kmeans_free(&r);
    {
        double w[] = {1, 2, 4, 7, 11, 16};
        /* k = 3: best is {1,2,4} {7,11} {16}? SSE 4.667+8+0 = 12.667 vs
         * {1,2} {4,7} {11,16}: 0.5+4.5+12.5 = 17.5; {1,2,4} {7} {11,16}: 4.667+0+12.5 */
        aa_cluster_kmeans1d(w, 6, 3, &r, &err);
        ok(r.labels[2] == 0 && r.labels[3] == 1 && r.labels[4] == 1 && r.labels[5] == 2 &&
               fabs(r.sse - (14.0 / 3 + 8)) < 1e-12,
           "1 2 4 | 7 11 | 16 is optimal for k 3 (SSE 12.667)");
        aa_cluster_kmeans_free(&r);
    }
    is_int(aa_cluster_kmeans1d(x, 6, 0, &r, &err), AA_EUSAGE, "k = 0 rejected");
    {
        double bad[] = {1, NAN};
        is_int(aa_cluster_kmeans1d(bad, 2, 2, &r, &err), AA_EINPUT, "NaN rejected");
    }
}

static void property_kmeans(void)
{
    int seed, worse = 0, worse_rand = 0;
    for (seed = 0; seed < 300; seed++) {
        size_t n = 1 + rnd(8), k = 1 + rnd(3), i, a, total = 1;
        double x[8], best = INFINITY;
        int lab[8];
        aa_kmeans_result r;
        aa_err err;
        for (i = 0; i < n; i++)
            x[i] = rnd(4) ? (double)rnd(100) / 7 : (double)rnd(3);
        for (i = 0; i < n; i++)
            total *= k;
        for (a = 0; a < total; a++) { /* every assignment to <= k classes */
            size_t t = a;
            for (i = 0; i < n; i++) {
                lab[i] = (int)(t % k);
                t /= k;
            }
            double s = sse_of(x, n, lab, k);
            if (s < best)
                best = s;
        }
        aa_cluster_kmeans1d(x, n, k, &r, &err);
        if (r.sse > best + 1e-9 * (1 + best)) {
            diag("seed %d: sse %.17g > brute force %.17g", seed, r.sse, best);
            worse++;
        }
        aa_cluster_kmeans_free(&r);
    }
    ok(worse == 0, "kmeans1d SSE never above exhaustive search (300 sets, n <= 8, k <= 3)");
    for (seed = 0; seed < 50; seed++) {
        size_t n = 50 + rnd(500), k = 2 + rnd(6), i, t;
        double *x = malloc(n * sizeof *x);
        int *lab = malloc(n * sizeof *lab);
        aa_kmeans_result r;
        aa_err err;
        for (i = 0; i < n; i++)
            x[i] = exp((double)rnd(1000) / 100);
        aa_cluster_kmeans1d(x, n, k, &r, &err);
        for (t = 0; t < 200; t++) {
            size_t c;
            for (i = 0; i < n; i++)
                lab[i] = (int)rnd((unsigned)k);
            for (c = 0; c < k; c++)
                lab[rnd((unsigned)n)] = (int)c;
            if (sse_of(x, n, lab, k) < r.sse * (1 - 1e-12))
                worse_rand++;
        }
        /* also the other local optimum Lloyd would find from sorted splits */
        for (i = 0; i + 1 < n; i++)
            if (x[i] < x[i + 1] && r.labels[i] > r.labels[i + 1])
                worse_rand++; /* labels must follow the centres' order */
        free(x);
        free(lab);
        aa_cluster_kmeans_free(&r);
    }
    ok(worse_rand == 0, "kmeans1d never worse than 10,000 random partitions (n up to 550)");
}

static void general_kmeans(void)
{
    double x[] = {0, 0, 0, 1, 1, 0, 10, 10, 10, 11, 11, 10};
    aa_kmeans_result r, r2;
    aa_err err;
    is_int(aa_cluster_kmeans(x, 6, 2, 2, 7, &r, &err), 0, "general kmeans runs");
    ok(r.k == 2 && r.labels[0] == 0 && r.labels[1] == 0 && r.labels[2] == 0 &&
           r.labels[3] == 1 && r.labels[5] == 1,
       "two obvious 2-D groups, labels by first appearance");
    is_double(r.sse, 4.0 * 2 / 3 * 2 / 2 * 1.0, 1e-9, "SSE of the two groups");
    aa_cluster_kmeans(x, 6, 2, 2, 7, &r2, &err);
    ok(r2.sse == r.sse && aa_cluster_same_partition(r.labels, r2.labels, 6),
       "fixed seed: deterministic");
    aa_cluster_kmeans_free(&r);
    aa_cluster_kmeans_free(&r2);
    aa_cluster_kmeans(x, 6, 2, 10, 7, &r, &err);
    ok(r.k == 6 && r.sse == 0, "k above n: one class per distinct point");
    aa_cluster_kmeans_free(&r);
}

static void same_partition(void)
{
    int a[] = {0, 0, 1, 2, 1}, b[] = {5, 5, 3, -1, 3}, c[] = {0, 0, 1, 1, 1};
    ok(aa_cluster_same_partition(a, b, 5), "renamed labels: same partition");
    ok(!aa_cluster_same_partition(a, c, 5), "merged classes: different");
    ok(!aa_cluster_same_partition(c, a, 5), "split classes: different");
    ok(aa_cluster_same_partition(a, a, 0), "empty: same");
}

/* aa_cluster_refines against its definition (every two points the coarse
 * partition separates, the fine one separates too) on every pair of
 * labelings of 5 points with labels -1..2. */
static void refines(void)
{
    int a[] = {0, 0, 1, 2, 1}, c[] = {0, 0, 1, 1, 1}, x[5], y[5];
    size_t i, j, bad = 0, both = 0;
    long u, v;
    ok(aa_cluster_refines(a, c, 5), "a split class refines the merged one");
    ok(!aa_cluster_refines(c, a, 5), "... and not the other way");
    ok(aa_cluster_refines(a, a, 5), "a partition refines itself");
    for (u = 0; u < 1024; u++)
        for (v = 0; v < 1024; v++) {
            int def = 1;
            for (i = 0; i < 5; i++) {
                x[i] = (int)((u >> (2 * i)) & 3) - 1;
                y[i] = (int)((v >> (2 * i)) & 3) - 1;
            }
            for (i = 0; i < 5; i++)
                for (j = i + 1; j < 5; j++)
                    if (y[i] != y[j] && x[i] == x[j])
                        def = 0;
            bad += aa_cluster_refines(x, y, 5) != def;
            both += def && aa_cluster_refines(y, x, 5) != aa_cluster_same_partition(x, y, 5);
        }
    ok(!bad, "refines as defined on all pairs of labelings (%zu wrong)", bad);
    ok(!both, "refining both ways is the same partition (%zu wrong)", both);
}


/* ---- labels without the ordering (cluster/labels.c) -------------------- */
/* Groups of points around centres spaced apart on some coordinates: integer
 * offsets (exact ties of distances, duplicates, components at equal
 * distances from each other, so the seed list's tie rule decides OPTICS'
 * order of them) or Gaussian ones (near-ties); eps and MinPts such that
 * some data sets have every point a core point and others not.  The
 * shortcut must apply exactly when every point is a core point (the
 * reference's core distances), and its labels and cluster count must be
 * OPTICS' own; the public entry point must always agree with OPTICS. */
static void labels_shortcut(void)
{
    int seed, bad = 0, applied = 0, multi = 0, declined = 0, wrong_apply = 0, auto_bad = 0;
    for (seed = 0; seed < 3000; seed++) {
        size_t dims[] = {1, 1, 1, 2, 3, 7, 40};
        size_t dim = dims[rnd(7)], n = 1 + rnd(rnd(4) == 0 ? 400 : 60), mp = 1 + rnd(5);
        size_t G = 1 + rnd(6), i, k, kc = 0, ka = 0;
        int real = rnd(3) == 0, allcore = 1, rc;
        unsigned range = 1 + rnd(4);
        double spacing = 2 + rnd(8), eps = 0.5 + rnd(8) * 0.5;
        double max_eps = rnd(8) == 0 ? 3.0 + rnd(10) : INFINITY;
        double *x = malloc(n * dim * sizeof *x);
        int *lab = malloc(n * sizeof *lab), *lab2 = malloc(n * sizeof *lab2);
        aa_optics_params p = {mp, eps, max_eps};
        aa_optics_result r;
        aa_err err;
        for (i = 0; i < n; i++) {
            size_t g = rnd((unsigned)G);
            if (i > 0 && rnd(10) == 0) { /* duplicate of an earlier point */
                memcpy(x + i * dim, x + rnd((unsigned)i) * dim, dim * sizeof *x);
                continue;
            }
            for (k = 0; k < dim; k++) {
                double c = (k == 0 || g % 2) ? (double)g * spacing : 0;
                x[i * dim + k] = c + (real ? 0.4 * gauss() : (double)rnd(range));
            }
        }
        if (cl_optics(x, n, dim, &p, &r, &err, CL_OPTICS_DIRECT)) {
            bad++;
            free(x), free(lab), free(lab2);
            continue;
        }
        for (i = 0; i < n; i++)
            allcore &= r.core_distance[i] <= eps;
        if (isinf(max_eps)) {
            rc = cl_optics_shortcut(x, n, dim, mp, eps, SIZE_MAX, lab, &kc);
            if (rc == 1) {
                applied++;
                multi += kc >= 3;
                if (kc != r.nclusters || memcmp(lab, r.labels, n * sizeof *lab)) {
                    if (!bad)
                        diag("seed %d n=%zu dim=%zu minpts=%zu eps=%g: shortcut %zu "
                             "clusters, OPTICS %zu",
                             seed, n, dim, mp, eps, kc, r.nclusters);
                    bad++;
                }
            } else {
                declined++;
            }
            if ((rc == 1) != allcore) {
                if (!wrong_apply)
                    diag("seed %d n=%zu dim=%zu: shortcut %d, every point core: %d", seed, n,
                         dim, rc, allcore);
                wrong_apply++;
            }
        }
        if (cl_optics_labels(x, n, dim, &p, lab2, &ka, &err, CL_LABELS_AUTO) ||
            ka != r.nclusters || memcmp(lab2, r.labels, n * sizeof *lab2))
            auto_bad++;
        aa_cluster_optics_free(&r);
        free(x), free(lab), free(lab2);
    }
    ok(bad == 0, "OPTICS labels by the shortcut == OPTICS' own (3000 random data sets: 1-D "
                 "and 2-40 dimensions, ties, duplicates, MinPts 1-5)");
    ok(wrong_apply == 0, "the shortcut applies exactly when every point is a core point");
    ok(auto_bad == 0, "aa_cluster_optics_labels == OPTICS' labels (also with max_eps, "
                      "non-core points)");
    ok(applied > 300 && declined > 300 && multi > 100,
       "the cases are not trivial (%d labelled by the shortcut, %d with 3+ clusters, %d "
       "declined)",
       applied, multi, declined);
}

/* Process-like vectors at the analyzer's sizes: a main group, a slow group
 * and a few strays, 1-D and 60-D, through the public entry point. */
static void labels_big(void)
{
    int bad = 0, t;
    for (t = 0; t < 6; t++) {
        size_t n = 1500 + 37 * (size_t)t, dim = t % 2 ? 60 : 1, i, k, ka;
        double *x = malloc(n * dim * sizeof *x);
        int *lab = malloc(n * sizeof *lab);
        aa_optics_params p = {5, t < 2 ? 0.02 : t < 4 ? 0.05 : 0.2, INFINITY};
        aa_optics_result r;
        aa_err err;
        for (i = 0; i < n; i++) {
            double f = i % 50 == 7 ? 1.5 : i % 300 == 11 ? 1.2 : 1.0;
            for (k = 0; k < dim; k++)
                x[i * dim + k] = f * (1.0 + 0.01 * gauss()) / (double)dim;
        }
        if (aa_cluster_optics(x, n, dim, &p, &r, &err) ||
            aa_cluster_optics_labels(x, n, dim, &p, lab, &ka, &err))
            bad++;
        else if (ka != r.nclusters || memcmp(lab, r.labels, n * sizeof *lab))
            bad++;
        aa_cluster_optics_free(&r);
        free(x), free(lab);
    }
    ok(bad == 0, "OPTICS labels == OPTICS' own on 1,500-1,700 process-like vectors");
}

int main(void)
{
    hand_optics();
    property_optics(CL_OPTICS_AUTO, "auto");
    property_optics(CL_OPTICS_DIRECT, "direct");
    property_optics(CL_OPTICS_MATRIX, "matrix");
    property_optics(CL_OPTICS_MATRIX_GENERIC, "matrix, portable kernel");
    property_optics(CL_OPTICS_MATRIX_AVX2, "matrix, AVX2 kernel");
    optics_methods();
    labels_shortcut();
    labels_big();
    hand_kmeans();
    property_kmeans();
    general_kmeans();
    same_partition();
    refines();
    return tap_done();
}
