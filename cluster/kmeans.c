/*
 * cluster/kmeans.c -- k-means: the exact one-dimensional version by dynamic
 * programming (Wang & Song 2011, Ckmeans.1d.dp) used for the severity classes
 * of SPEC §5.2, general k-means (k-means++ seeding from a fixed-seed GSL
 * generator, Lloyd iterations), and the partition comparison used by the
 * CCR search.
 *
 * kmeans1d works on the distinct sorted values with multiplicities, so equal
 * values always share a class and fewer distinct values than k give fewer
 * classes.  The DP D[c][i] = min_j D[c-1][j] + sse(j..i) is evaluated by
 * divide and conquer over the monotone optimal split points:
 * O(k m log m) for m distinct values.
 */
#include "cluster/aa_cluster.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void aa_cluster_kmeans_free(aa_kmeans_result *r)
{
    if (!r)
        return;
    free(r->labels);
    free(r->centers);
    memset(r, 0, sizeof *r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct dp {
    const double *w, *s1, *s2; /* prefix sums over distinct values, size m+1 */
    const double *prev;        /* D[c-1][*] */
    double *cur;               /* D[c][*] */
    size_t *arg;               /* split point for D[c][i] */
    size_t c;
} dp;

static inline double seg_cost(const dp *d, size_t j, size_t i)
{
    double w = d->w[i] - d->w[j], s = d->s1[i] - d->s1[j];
    double v = d->s2[i] - d->s2[j] - s * s / w;
    return v > 0 ? v : 0;
}

static void solve(dp *d, size_t lo, size_t hi, size_t optlo, size_t opthi)
{
    while (lo <= hi) {
        size_t mid = lo + (hi - lo) / 2, j, jlo, jhi, bestj;
        double best = INFINITY;
        jlo = optlo > d->c - 1 ? optlo : d->c - 1;
        jhi = opthi < mid - 1 ? opthi : mid - 1;
        bestj = jlo;
        for (j = jlo; j <= jhi; j++) {
            double v = d->prev[j] + seg_cost(d, j, mid);
            if (v < best) {
                best = v;
                bestj = j;
            }
        }
        d->cur[mid] = best;
        d->arg[mid] = bestj;
        if (mid > lo)
            solve(d, lo, mid - 1, optlo, bestj);
        lo = mid + 1;
        optlo = bestj;
    }
}

int aa_cluster_kmeans1d(const double *x, size_t n, size_t k, aa_kmeans_result *out,
                        aa_err *err)
{
    double *v = NULL, *w = NULL, *pw = NULL, *p1 = NULL, *p2 = NULL, *D = NULL, *cnt = NULL;
    size_t *A = NULL, *bounds = NULL, m = 0, i, c;
    double shift;
    int rc = AA_OK;

    memset(out, 0, sizeof *out);
    if (k == 0)
        return aa_err_set(err, AA_EUSAGE, "kmeans1d: k must be at least 1");
    for (i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return aa_err_set(err, AA_EINPUT, "kmeans1d: value %zu is not a finite number", i);
    out->n = n;
    out->labels = malloc((n ? n : 1) * sizeof *out->labels);
    v = malloc((n ? n : 1) * sizeof *v);
    if (!out->labels || !v)
        goto nomem;
    if (n == 0) {
        out->centers = malloc(sizeof *out->centers);
        if (!out->centers)
            goto nomem;
        free(v);
        return AA_OK;
    }
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    w = malloc(n * sizeof *w);
    if (!w)
        goto nomem;
    for (i = 0; i < n; i++) {
        if (m && v[m - 1] == v[i]) {
            w[m - 1] += 1;
        } else {
            v[m] = v[i];
            w[m++] = 1;
        }
    }
    if (k > m)
        k = m;
    shift = v[(m - 1) / 2]; /* centre the sums for accuracy */
    pw = malloc((m + 1) * sizeof *pw);
    p1 = malloc((m + 1) * sizeof *p1);
    p2 = malloc((m + 1) * sizeof *p2);
    D = malloc(2 * (m + 1) * sizeof *D);
    A = malloc(k * (m + 1) * sizeof *A);
    bounds = malloc((k + 1) * sizeof *bounds);
    cnt = calloc(k, sizeof *cnt);
    out->centers = malloc(k * sizeof *out->centers);
    if (!pw || !p1 || !p2 || !D || !A || !bounds || !cnt || !out->centers)
        goto nomem;
    pw[0] = p1[0] = p2[0] = 0;
    for (i = 0; i < m; i++) {
        double y = v[i] - shift;
        pw[i + 1] = pw[i] + w[i];
        p1[i + 1] = p1[i] + w[i] * y;
        p2[i + 1] = p2[i] + w[i] * y * y;
    }
    {
        dp d = {pw, p1, p2, NULL, NULL, NULL, 1};
        double *prev = D, *cur = D + (m + 1);
        prev[0] = 0;
        for (i = 1; i <= m; i++) {
            prev[i] = seg_cost(&d, 0, i);
            A[0 * (m + 1) + i] = 0;
        }
        for (c = 2; c <= k; c++) {
            double *t;
            d.prev = prev;
            d.cur = cur;
            d.arg = A + (c - 1) * (m + 1);
            d.c = c;
            for (i = 0; i < c; i++)
                cur[i] = INFINITY;
            solve(&d, c, m, c - 1, m - 1);
            t = prev;
            prev = cur;
            cur = t;
        }
    }
    /* Backtrack: class c covers distinct values [bounds[c], bounds[c+1]). */
    bounds[k] = m;
    for (c = k; c >= 1; c--)
        bounds[c - 1] = c == 1 ? 0 : A[(c - 1) * (m + 1) + bounds[c]];
    for (c = 0; c < k; c++)
        out->centers[c] = 0;
    for (i = 0; i < n; i++) {
        /* binary search the class whose value range holds x[i] */
        size_t lo = 0, hi = k - 1;
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (x[i] >= v[bounds[mid]])
                lo = mid;
            else
                hi = mid - 1;
        }
        out->labels[i] = (int)lo;
        out->centers[lo] += x[i];
        cnt[lo] += 1;
    }
    for (c = 0; c < k; c++)
        out->centers[c] /= cnt[c];
    out->sse = 0;
    for (i = 0; i < n; i++) {
        double e = x[i] - out->centers[out->labels[i]];
        out->sse += e * e;
    }
    out->k = k;
    goto done;
nomem:
    aa_cluster_kmeans_free(out);
    rc = aa_err_set(err, AA_EENV, "kmeans1d: out of memory (%zu values, k = %zu)", n, k);
done:
    free(v);
    free(w);
    free(pw);
    free(p1);
    free(p2);
    free(D);
    free(A);
    free(bounds);
    free(cnt);
    return rc;
}

static double sqdist(const double *a, const double *b, size_t dim)
{
    double s = 0;
    size_t k;
    for (k = 0; k < dim; k++) {
        double d = a[k] - b[k];
        s += d * d;
    }
    return s;
}

int aa_cluster_kmeans(const double *x, size_t n, size_t dim, size_t k, unsigned seed,
                      aa_kmeans_result *out, aa_err *err)
{
    gsl_rng *rng = NULL;
    double *d2 = NULL, *cnt = NULL, *cen = NULL;
    int *map = NULL;
    size_t i, c, kk = 0, it;
    int rc = AA_OK;

    memset(out, 0, sizeof *out);
    if (k == 0)
        return aa_err_set(err, AA_EUSAGE, "kmeans: k must be at least 1");
    for (i = 0; i < n * dim; i++)
        if (!isfinite(x[i]))
            return aa_err_set(err, AA_EINPUT, "kmeans: value %zu of point %zu is not finite",
                              i % dim, i / dim);
    if (k > n)
        k = n;
    out->n = n;
    out->labels = malloc((n ? n : 1) * sizeof *out->labels);
    cen = malloc((k ? k : 1) * (dim ? dim : 1) * sizeof *cen);
    d2 = malloc((n ? n : 1) * sizeof *d2);
    cnt = malloc((k ? k : 1) * sizeof *cnt);
    map = malloc((k ? k : 1) * sizeof *map);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!out->labels || !cen || !d2 || !cnt || !map || !rng)
        goto nomem;
    gsl_rng_set(rng, seed);
    if (n > 0) {
        /* k-means++ seeding */
        size_t first = (size_t)gsl_rng_uniform_int(rng, n);
        memcpy(cen, x + first * dim, dim * sizeof *cen);
        kk = 1;
        for (i = 0; i < n; i++)
            d2[i] = sqdist(x + i * dim, cen, dim);
        while (kk < k) {
            double tot = 0, r, acc = 0;
            size_t pick = n - 1;
            for (i = 0; i < n; i++)
                tot += d2[i];
            if (!(tot > 0))
                break; /* fewer distinct points than k */
            r = gsl_rng_uniform(rng) * tot;
            for (i = 0; i < n; i++) {
                acc += d2[i];
                if (d2[i] > 0 && acc > r) {
                    pick = i;
                    break;
                }
            }
            while (!(d2[pick] > 0))
                pick--; /* rounding at the end of the sum */
            memcpy(cen + kk * dim, x + pick * dim, dim * sizeof *cen);
            for (i = 0; i < n; i++) {
                double t = sqdist(x + i * dim, cen + kk * dim, dim);
                if (t < d2[i])
                    d2[i] = t;
            }
            kk++;
        }
    }
    for (i = 0; i < n; i++)
        out->labels[i] = -1;
    for (it = 0; it < 300 && n > 0; it++) {
        int changed = 0;
        for (i = 0; i < n; i++) {
            double best = INFINITY;
            int bl = 0;
            for (c = 0; c < kk; c++) {
                double t = sqdist(x + i * dim, cen + c * dim, dim);
                if (t < best) {
                    best = t;
                    bl = (int)c;
                }
            }
            if (out->labels[i] != bl) {
                out->labels[i] = bl;
                changed = 1;
            }
        }
        if (!changed)
            break;
        for (c = 0; c < kk; c++)
            cnt[c] = 0;
        memset(d2, 0, n * sizeof *d2);
        {
            double *sum = calloc(kk * (dim ? dim : 1), sizeof *sum);
            if (!sum)
                goto nomem;
            for (i = 0; i < n; i++) {
                size_t j;
                cnt[out->labels[i]] += 1;
                for (j = 0; j < dim; j++)
                    sum[out->labels[i] * dim + j] += x[i * dim + j];
            }
            for (c = 0; c < kk; c++)
                if (cnt[c] > 0) {
                    size_t j;
                    for (j = 0; j < dim; j++)
                        cen[c * dim + j] = sum[c * dim + j] / cnt[c];
                }
            free(sum);
        }
    }
    /* Renumber classes in order of first appearance, dropping empty ones. */
    for (c = 0; c < kk; c++)
        map[c] = -1;
    {
        int next = 0;
        out->centers = malloc((kk ? kk : 1) * (dim ? dim : 1) * sizeof *out->centers);
        if (!out->centers)
            goto nomem;
        for (i = 0; i < n; i++) {
            int l = out->labels[i];
            if (map[l] < 0) {
                map[l] = next;
                memcpy(out->centers + (size_t)next * dim, cen + (size_t)l * dim,
                       dim * sizeof *cen);
                next++;
            }
            out->labels[i] = map[l];
        }
        out->k = (size_t)next;
    }
    out->sse = 0;
    for (i = 0; i < n; i++)
        out->sse += sqdist(x + i * dim, out->centers + (size_t)out->labels[i] * dim, dim);
    goto done;
nomem:
    aa_cluster_kmeans_free(out);
    rc = aa_err_set(err, AA_EENV, "kmeans: out of memory");
done:
    if (rng)
        gsl_rng_free(rng);
    free(d2);
    free(cnt);
    free(cen);
    free(map);
    return rc;
}

typedef struct lab_idx {
    int label;
    size_t idx;
} lab_idx;

static int cmp_lab(const void *a, const void *b)
{
    const lab_idx *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* canon[i] = lowest index with the same label as i. */
static int canonical(const int *l, size_t n, size_t *canon)
{
    lab_idx *t = malloc((n ? n : 1) * sizeof *t);
    size_t i, first = 0;
    if (!t)
        return -1;
    for (i = 0; i < n; i++) {
        t[i].label = l[i];
        t[i].idx = i;
    }
    qsort(t, n, sizeof *t, cmp_lab);
    for (i = 0; i < n; i++) {
        if (i == 0 || t[i].label != t[i - 1].label)
            first = t[i].idx;
        canon[t[i].idx] = first;
    }
    free(t);
    return 0;
}

int aa_cluster_same_partition(const int *a, const int *b, size_t n)
{
    size_t *ca, *cb, i;
    int same = 1;
    if (n == 0)
        return 1;
    ca = malloc(n * sizeof *ca);
    cb = malloc(n * sizeof *cb);
    if (!ca || !cb || canonical(a, n, ca) || canonical(b, n, cb)) {
        /* out of memory: fall back to the quadratic check */
        size_t j;
        free(ca);
        free(cb);
        for (i = 0; i < n && same; i++)
            for (j = i + 1; j < n; j++)
                if ((a[i] == a[j]) != (b[i] == b[j])) {
                    same = 0;
                    break;
                }
        return same;
    }
    for (i = 0; i < n; i++)
        if (ca[i] != cb[i]) {
            same = 0;
            break;
        }
    free(ca);
    free(cb);
    return same;
}

int aa_cluster_refines(const int *fine, const int *coarse, size_t n)
{
    size_t *cf = malloc((n ? n : 1) * sizeof *cf), *cc = malloc((n ? n : 1) * sizeof *cc), i;
    int refines = 1;
    if (!cf || !cc || canonical(fine, n, cf) || canonical(coarse, n, cc)) {
        /* out of memory: the quadratic check */
        size_t j;
        free(cf);
        free(cc);
        for (i = 0; i < n && refines; i++)
            for (j = i + 1; j < n; j++)
                if (fine[i] == fine[j] && coarse[i] != coarse[j]) {
                    refines = 0;
                    break;
                }
        return refines;
    }
    /* every member of a fine cluster is in the coarse cluster of the fine
     * cluster's first member */
    for (i = 0; i < n && refines; i++)
        refines = cc[i] == cc[cf[i]];
    free(cf);
    free(cc);
    return refines;
}
