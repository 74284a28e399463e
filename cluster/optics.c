/*
 * cluster/optics.c -- OPTICS (Ankerst, Breunig, Kriegel, Sander 1999) for
 * dense row-major points with Euclidean distance, plus the cluster extraction
 * the analyzer uses (ExtractDBSCAN-style at eps, isolated points get their
 * own cluster ids) and the scale-free defaults of SPEC §5.1.
 *
 * Every distance that enters the result (core distances, reachabilities)
 * is the exact value cl_dist2 computes in one fixed order (8 lanes, then
 * the tail), so d(a,b) == d(b,a) bit for bit and results are deterministic
 * and do not depend on the machine.  Two methods compute the same result:
 *
 * Matrix (many points of many dimensions; cluster/distance.c): all pairwise
 * squared distances are first computed approximately as a tiled matrix
 * product (||x||^2 + ||y||^2 - 2 x.y on centred data, SIMD kernels) and
 * stored as floats, n^2 * 4 bytes, with a rigorous per-pair bound that
 * encloses the exact cl_dist2 value.  Every decision OPTICS takes is then
 * settled from the bounds when they are conclusive, and from the exact
 * distance otherwise:
 *  - core distance of i: the MinPts-1 smallest upper bounds of row i give H
 *    >= the exact answer; the exact distances of the points whose lower
 *    bound is <= H (usually MinPts-1 points) give the answer;
 *  - reachability update of q by p (only when core(p) < reach(q), as
 *    always): lower bound above min(reach(q), max_eps)^2 -> no update;
 *    upper bound below core(p)^2 -> the new value is core(p), which needs no
 *    distance; otherwise the exact distance, as in the direct method.
 *  The margins (relative 2^-40 on the thresholds) make the conclusive cases
 *  hold also after the rounding of sqrt, so both methods give identical
 *  results bit for bit (tests/unit/test_cluster.c checks this).  Cost:
 *  n^2 dim / 2 multiply-adds in the matrix product (near the peak of one
 *  core), O(n^2) float comparisons, exact distances for a few per point.
 *
 * Direct (few points, few dimensions, too many points for the memory, data
 * the float matrix cannot represent): pass 1 computes all core distances
 * over cache-sized blocks of point pairs (each pair once), pass 2 runs the
 * ordering and computes a distance only when it can lower a reachability
 * value (lower bounds from vector norms and partial sums prune the rest;
 * the pruning is exact, never changes the result).  O(n (dim + MinPts))
 * memory.
 */
#include "cluster/aa_cluster.h"
#include "cluster/cl_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Margin that makes the norm and partial-sum pruning safe against rounding. */
#define PRUNE_SLACK (1.0 + 1e-9)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A lower bound of d(i,j) from the vector norms, reduced by a margin that
 * covers the rounding of the norms. */
static inline double norm_lb(double ni, double nj)
{
    double lb = fabs(ni - nj) - 1e-11 * (ni + nj);
    return lb > 0 ? lb : 0;
}

void aa_cluster_optics_defaults(const double *x, size_t n, size_t dim, size_t *min_pts,
                                double *eps)
{
    /* MinPts: 2 for small process counts (single linkage: every pair of close
     * points is a cluster, so a slow group of 2 is one cluster), growing to 5
     * for hundreds of points so that lone noisy points cannot chain clusters. */
    size_t m = n / 32;
    if (m < 2)
        m = 2;
    if (m > 5)
        m = 5;
    if (min_pts)
        *min_pts = m;
    if (eps) {
        double *norms = n ? malloc(n * sizeof *norms) : NULL;
        double med = 0, mx = 0;
        size_t i, k;
        if (norms) {
            for (i = 0; i < n; i++) {
                double s = 0;
                for (k = 0; k < dim; k++)
                    s += x[i * dim + k] * x[i * dim + k];
                norms[i] = sqrt(s);
                if (norms[i] > mx)
                    mx = norms[i];
            }
            qsort(norms, n, sizeof *norms, cmp_double);
            med = norms[(n - 1) / 2]; /* lower median */
            free(norms);
        }
        /* 10% of the median norm: noise of a few percent per component gives
         * nearest-neighbour distances well below it, a 2x work difference in
         * a region that carries a noticeable share of the time gives more. */
        *eps = 0.1 * med;
        if (!(*eps > 0))
            *eps = 0.1 * mx;
        if (!(*eps > 0) || !isfinite(*eps))
            *eps = 1.0; /* all vectors zero: every distance is 0, one cluster */
    }
}

void aa_cluster_optics_free(aa_optics_result *r)
{
    if (!r)
        return;
    free(r->ordering);
    free(r->reachability);
    free(r->core_distance);
    free(r->labels);
    memset(r, 0, sizeof *r);
}

/* Inserts d2 into the ascending list kn[0..m-1] when it is smaller than the
 * current last element. */
static inline void knn_insert(double *kn, size_t m, double d2)
{
    size_t i;
    if (!(d2 < kn[m - 1]))
        return;
    i = m - 1;
    while (i > 0 && kn[i - 1] > d2) {
        kn[i] = kn[i - 1];
        i--;
    }
    kn[i] = d2;
}

static void core_distances_direct(const double *x, size_t n, size_t dim, size_t min_pts,
                           const double *norm, double *core, double *kn)
{
    size_t m = min_pts - 1; /* neighbours besides the point itself */
    size_t bs, i0, j0, i, j;
    for (i = 0; i < n * m; i++)
        kn[i] = INFINITY;
    bs = dim ? 131072 / (dim * sizeof(double)) : 256;
    if (bs < 4)
        bs = 4;
    if (bs > 256)
        bs = 256;
    for (i0 = 0; i0 < n; i0 += bs) {
        size_t i1 = i0 + bs < n ? i0 + bs : n;
        for (j0 = i0; j0 < n; j0 += bs) {
            size_t j1 = j0 + bs < n ? j0 + bs : n;
            for (i = i0; i < i1; i++) {
                const double *xi = x + i * dim;
                double *ki = kn + i * m;
                for (j = j0 > i ? j0 : i + 1; j < j1; j++) {
                    double *kj = kn + j * m;
                    double bound = ki[m - 1] > kj[m - 1] ? ki[m - 1] : kj[m - 1];
                    double lb = norm_lb(norm[i], norm[j]), d2;
                    if (isfinite(bound)) {
                        bound *= PRUNE_SLACK;
                        if (lb * lb >= bound)
                            continue;
                    }
                    d2 = cl_dist2(xi, x + j * dim, dim, bound);
                    knn_insert(ki, m, d2);
                    knn_insert(kj, m, d2);
                }
            }
        }
    }
    for (i = 0; i < n; i++)
        core[i] = sqrt(kn[i * m + m - 1]);
}

/* Inserts v into the ascending list kf[0..m-1] when it is smaller than the
 * current last element. */
static inline void knn_insert_f(float *kf, size_t m, float v)
{
    size_t i = m - 1;
    while (i > 0 && kf[i - 1] > v) {
        kf[i] = kf[i - 1];
        i--;
    }
    kf[i] = v;
}

/* The first j >= from with row[j] < thr, or n; 16 at a time (the compiler
 * vectorises the fixed-length inner loop). */
static size_t scan_below(const float *row, size_t from, size_t n, float thr)
{
    while (from + 16 <= n) {
        int any = 0;
        size_t k;
        for (k = 0; k < 16; k++)
            any |= row[from + k] < thr;
        if (any)
            break;
        from += 16;
    }
    while (from < n && !(row[from] < thr))
        from++;
    return from;
}

/* Core distances from the matrix.  With the row tolerance t both bounds
 * increase with the stored float, so the MinPts-1 smallest floats of a row
 * give H >= the exact (MinPts-1)-th neighbour distance (squared); only
 * points whose lower bound is <= H can be among the MinPts-1 nearest, so
 * their exact distances (usually just MinPts-1 of them) decide.  The scans
 * compare floats only. */
static void core_distances_matrix(const cl_dmat *mt, const double *x, size_t n, size_t dim,
                                  size_t min_pts, double *core, float *kf, double *cd)
{
    size_t m = min_pts - 1, i, j, t;
    for (i = 0; i < n; i++) {
        const double *xi = x + i * dim;
        const float *row = mt->f + i * n;
        size_t ne = 0;
        double tol = cl_dmat_row_tol(mt, i), a, h, bound, cap;
        float fcap;
        for (t = 0; t < m; t++)
            kf[t] = INFINITY;
        for (j = 0; (j = scan_below(row, j, n, kf[m - 1])) < n; j++)
            if (j != i)
                knn_insert_f(kf, m, row[j]);
        a = (double)kf[m - 1] * mt->inv_scale;
        h = a + fabs(a) * 0x1p-22 + tol;
        /* lower bound <= h needs a - |a| 2^-22 <= h + tol: a <= cap */
        cap = (h + tol) * (1 + 0x1p-20) * mt->scale;
        fcap = cap >= 0x1p127 ? INFINITY : nextafterf((float)cap, INFINITY);
        fcap = nextafterf(fcap, INFINITY); /* row[j] <= fcap  <=>  row[j] < this */
        /* values >= bound (> h) are cut short: they cannot be the answer */
        bound = h + h * 0x1p-30 + DBL_MIN;
        for (j = 0; (j = scan_below(row, j, n, fcap)) < n; j++) {
            if (j != i) {
                double lo, hi;
                cl_dmat_bounds(mt, i, j, &lo, &hi);
                if (lo <= h)
                    cd[ne++] = cl_dist2(xi, x + j * dim, dim, bound);
            }
        }
        /* ne >= m: the m points of the smallest floats qualified */
        qsort(cd, ne, sizeof *cd, cmp_double);
        core[i] = sqrt(cd[m - 1]);
    }
}

/* Use the matrix only where it pays off (the direct method with its norm
 * pruning is fast for few points or few dimensions) and where it fits
 * (n^2 floats: 1 GiB at 16,384 points, at most 2 GiB). */
#define MATRIX_MIN_N 256
#define MATRIX_MIN_DIM 16
#define MATRIX_MAX_N 23170

int aa_cluster_optics(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                      aa_optics_result *out, aa_err *err)
{
    return cl_optics(x, n, dim, p, out, err, CL_OPTICS_AUTO);
}

int cl_optics(const double *x, size_t n, size_t dim, const aa_optics_params *p,
              aa_optics_result *out, aa_err *err, int method)
{
    size_t min_pts = p ? p->min_pts : 0;
    double eps = p ? p->eps : 0, max_eps = p ? p->max_eps : INFINITY;
    size_t *unproc = NULL, nun, nord = 0, i;
    double *norm = NULL, *kn = NULL;
    unsigned char *done = NULL;
    int next_id = 0, cid = -1, use_mat = 0;
    cl_dmat mt = {0};

    memset(out, 0, sizeof *out);
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
    out->n = n;
    out->min_pts_used = min_pts;
    out->eps_used = eps;
    out->ordering = malloc((n ? n : 1) * sizeof *out->ordering);
    out->reachability = malloc((n ? n : 1) * sizeof *out->reachability);
    out->core_distance = malloc((n ? n : 1) * sizeof *out->core_distance);
    out->labels = malloc((n ? n : 1) * sizeof *out->labels);
    unproc = malloc((n ? n : 1) * sizeof *unproc);
    norm = malloc((n ? n : 1) * sizeof *norm);
    done = calloc(n ? n : 1, 1);
    if (min_pts > 1 && min_pts <= n)
        kn = malloc(n * (min_pts - 1) * sizeof *kn);
    if (!out->ordering || !out->reachability || !out->core_distance || !out->labels ||
        !unproc || !norm || !done || (min_pts > 1 && min_pts <= n && !kn)) {
        free(unproc);
        free(norm);
        free(done);
        free(kn);
        aa_cluster_optics_free(out);
        return aa_err_set(err, AA_EENV, "optics: out of memory (%zu points)", n);
    }
    for (i = 0; i < n; i++) {
        size_t k;
        double s = 0;
        for (k = 0; k < dim; k++)
            s += x[i * dim + k] * x[i * dim + k];
        norm[i] = sqrt(s);
        out->reachability[i] = INFINITY;
        unproc[i] = i;
    }

    if (method == CL_OPTICS_MATRIX || method == CL_OPTICS_MATRIX_GENERIC ||
        method == CL_OPTICS_MATRIX_AVX2 ||
        (method == CL_OPTICS_AUTO && n >= MATRIX_MIN_N && n <= MATRIX_MAX_N &&
         dim >= MATRIX_MIN_DIM)) {
        /* falls back to the direct method when the matrix cannot be built */
        int kernel = method == CL_OPTICS_MATRIX_GENERIC ? CL_KERNEL_GENERIC
                     : method == CL_OPTICS_MATRIX_AVX2  ? CL_KERNEL_AVX2
                                                        : CL_KERNEL_AUTO;
        use_mat = cl_dmat_build(&mt, x, n, dim, kernel) == 0;
    }

    /* Pass 1: core distances. */
    if (min_pts <= 1) {
        for (i = 0; i < n; i++)
            out->core_distance[i] = 0;
    } else if (min_pts > n) {
        for (i = 0; i < n; i++)
            out->core_distance[i] = INFINITY;
    } else if (use_mat) {
        float *kf = malloc(min_pts * sizeof *kf);
        double *cd = malloc(n * sizeof *cd);
        if (kf && cd)
            core_distances_matrix(&mt, x, n, dim, min_pts, out->core_distance, kf, cd);
        else
            core_distances_direct(x, n, dim, min_pts, norm, out->core_distance, kn);
        free(kf);
        free(cd);
    } else {
        core_distances_direct(x, n, dim, min_pts, norm, out->core_distance, kn);
    }
    for (i = 0; i < n; i++)
        if (out->core_distance[i] > max_eps)
            out->core_distance[i] = INFINITY;

    /* Pass 2: the ordering.  unproc[] holds the unprocessed points in index
     * order, so the first minimum found is the lowest index among ties. */
    nun = n;
    while (nun > 0) {
        size_t pnt = unproc[0], pos = 0;
        for (;;) {
            double cp = out->core_distance[pnt], best = INFINITY;
            /* d^2 below cp2 (rounded down) means d <= cp */
            double cp2 = cp * cp * (1 - 0x1p-40);
            double tol = use_mat ? cl_dmat_row_tol(&mt, pnt) : 0;
            const float *row = use_mat ? mt.f + pnt * n : NULL;
            size_t bestpos = (size_t)-1, w = 0, r;
            const double *xp = x + pnt * dim;
            done[pnt] = 1;
            out->ordering[nord++] = pnt;
            /* remove pnt from unproc while updating the others */
            for (r = 0; r < nun; r++) {
                size_t q = unproc[r];
                double rq;
                if (r == pos)
                    continue;
                rq = out->reachability[q];
                if (isfinite(cp) && cp < rq) {
                    double lb = norm_lb(norm[pnt], norm[q]);
                    double lim = rq < max_eps ? rq : max_eps;
                    int decided = 0;
                    if (use_mat) {
                        /* decide from the bounds when they are conclusive:
                         * d > lim cannot update; d <= cp gives cp */
                        double a = (double)row[q] * mt.inv_scale;
                        double lo = a - fabs(a) * 0x1p-22 - tol;
                        double hi = a + fabs(a) * 0x1p-22 + tol;
                        if (lo > lim * lim * (1 + 0x1p-40)) {
                            decided = 1;
                        } else if (hi < cp2) {
                            out->reachability[q] = rq = cp;
                            decided = 1;
                        }
                    }
                    if (!decided && !(lb > lim * PRUNE_SLACK)) {
                        double bound = isfinite(lim) ? lim * lim * PRUNE_SLACK : INFINITY;
                        double d2 = cl_dist2(xp, x + q * dim, dim, bound);
                        if (d2 < bound) {
                            double d = sqrt(d2);
                            if (d <= max_eps) {
                                double nr = cp > d ? cp : d;
                                if (nr < rq)
                                    out->reachability[q] = rq = nr;
                            }
                        }
                    }
                }
                if (rq < best) {
                    best = rq;
                    bestpos = w;
                }
                unproc[w++] = q;
            }
            nun = w;
            if (bestpos == (size_t)-1)
                break;
            pos = bestpos;
            pnt = unproc[pos];
        }
    }

    /* Extraction at eps. */
    for (i = 0; i < n; i++) {
        size_t q = out->ordering[i];
        if (out->reachability[q] > eps || cid < 0) {
            if (out->core_distance[q] <= eps)
                cid = out->labels[q] = next_id++;
            else
                out->labels[q] = next_id++; /* isolated point */
        } else {
            out->labels[q] = cid;
        }
    }
    out->nclusters = (size_t)next_id;
    cl_dmat_free(&mt);
    free(unproc);
    free(norm);
    free(done);
    free(kn);
    return AA_OK;
}
