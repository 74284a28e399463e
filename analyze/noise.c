/*
 * analyze/noise.c -- the noise model of the dissimilarity analysis: how
 * much processes that do the same work differ on the clustered metric
 * (CPU time outside MPI) in this run, and from it the OPTICS threshold eps
 * of each tree level.
 *
 * The noise is measured, not assumed: in an SPMD run most regions do the
 * same work on every process, so the typical spread of a region's own
 * (self) time across processes, relative to its median, is the run's
 * relative noise.  Robust statistics keep the imbalanced regions (a few,
 * and their time shows up in their own self values only) from setting it:
 * the spread of a region is its scaled median absolute deviation, and the
 * run's noise is the median over the regions that carry enough time to be
 * measured at all (on the diagnosis suite the median separated 77% of the
 * partitions right, the lower quartile 69%: it splits noisy I/O regions).
 * It needs the balanced regions to be the majority: a program of four
 * regions of which two are imbalanced reads its imbalance as noise.  The noise of the regions is independent (each has its
 * own visits, its own descheduling), so a level's component -- a region
 * with its subtree -- varies by noise x sqrt(sum of its regions' squared
 * median self values), and two processes doing the same work differ by
 * sqrt(2) times that over the level's components.  Processes differ when
 * they differ by more than noise_factor times that, and by more than the
 * resolution of the CPU clock.
 */
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median of v[0..n) (sorted in place); 0 for n == 0 */
static double median_inplace(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double an_noise_relative(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double min_value, size_t *nused)
{
    double *col = malloc((P ? P : 1) * sizeof *col), *dev = malloc((P ? P : 1) * sizeof *dev);
    double *rel = malloc((R ? R : 1) * sizeof *rel), out = 0;
    size_t r, q, n = 0;
    if (nused)
        *nused = 0;
    if (!col || !dev || !rel || P < 2) {
        free(col);
        free(dev);
        free(rel);
        return 0;
    }
    for (r = 1; r < R; r++) {
        double med, mad;
        size_t k = 0;
        for (q = 0; q < P; q++) {
            double v = self[q * R + r];
            if (!ran[q * R + r] || !isfinite(v))
                break;
            col[k++] = v;
        }
        if (k < P)
            continue; /* not run by every process: not comparable */
        med = median_inplace(col, P);
        if (!(med >= min_value) || !(med > 0))
            continue;
        for (q = 0; q < P; q++)
            dev[q] = fabs(col[q] - med);
        mad = median_inplace(dev, P);
        rel[n++] = 1.4826 * mad / med;
    }
    if (nused)
        *nused = n;
    out = median_inplace(rel, n);
    free(col);
    free(dev);
    free(rel);
    return out;
}

int an_level_spread_init(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double *pre)
{
    double *col = malloc((P ? P : 1) * sizeof *col);
    size_t q, r;
    if (!col)
        return -1;
    pre[0] = 0;
    for (r = 0; r < R; r++) {
        double med;
        size_t k = 0;
        for (q = 0; q < P; q++)
            if (ran[q * R + r] && isfinite(self[q * R + r]))
                col[k++] = self[q * R + r];
        med = median_inplace(col, k);
        pre[r + 1] = pre[r] + med * med;
    }
    free(col);
    return 0;
}

double an_level_eps(const double *pre, const size_t *set, size_t m, const size_t *subtree_end,
                    double noise_rel, double factor, double resolution)
{
    double var = 0, eps;
    size_t j;
    for (j = 0; j < m; j++)
        var += pre[subtree_end[set[j]]] - pre[set[j]];
    eps = factor * noise_rel * sqrt(2.0 * (var > 0 ? var : 0));
    return eps > resolution ? eps : resolution;
}
