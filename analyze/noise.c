/*
 * analyze/noise.c -- the noise model of the dissimilarity analysis: how
 * much processes that do the same work differ on the clustered metric
 * (CPU time outside MPI) in this run, and from it the OPTICS threshold eps
 * of each tree level.
 *
 * The noise is measured, not assumed: in an SPMD run processes doing the
 * same work in a region differ by the noise, so the typical spread of a
 * region's own (self) time across processes, relative to its median, is
 * the run's relative noise.  The spread of a region is the median gap
 * between its sorted values, scaled to a standard deviation (gap_scale):
 * groups of processes doing different work -- the imbalance itself, which
 * in a data-dependent code is in most regions (a particle code's every
 * particle routine) -- leave the gaps inside the groups as the noise, where
 * a median absolute deviation read the imbalance as noise (the 2-of-4-rank
 * particle imbalance of PRK PIC: "noise 79%").  The run's noise is the
 * median over the regions that carry enough time to be measured at all.
 * The noise of the regions is independent (each has its
 * own visits, its own descheduling), so a level's component -- a region
 * with its subtree -- varies by noise x sqrt(sum of its regions' squared
 * median self values), and two processes doing the same work differ by
 * sqrt(2) times that over the level's components.  Processes differ when
 * they differ by more than noise_factor times that, and by more than the
 * resolution of the CPU clock.
 *
 * When the processes do different work in almost every region (miniAMR
 * without load balancing: one rank holds most blocks, the others differ
 * among themselves too), every region's gaps are the work, and the spread
 * between processes says nothing about the noise.  The processes' own
 * visits do: a region's visits on one process vary by the noise and by
 * step-to-step work (cpu_sq), and sqrt(V) / cpu (V = cpu_sq - cpu^2 /
 * visits) is how much the region's total varies from them.  The spread
 * between processes is trusted up to noise_visit_cap times that (an_visit_
 * noise, an_noise_capped) -- in the regions every process visited at least
 * twice, the cap's evidence: a region visited once (an allocation, a set-up
 * loop) varies by its page faults and first touches, which no visit spread
 * shows, and keeps the spread between processes (an_visit_weight).
 */
#include "analyze/an_internal.h"

#include <math.h>
#include <stddef.h>
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
    double hi, lo;
    size_t i;
    if (n == 0)
        return 0;
    hi = aa_select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    lo = v[0];
    for (i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * (lo + hi);
}

/* The q-quantile of v[0..n) (reordered), interpolated between neighbours;
 * q 0.5 is exactly the median above (the MPI analysis computes the same). */
double an_quantile(double *v, size_t n, double q)
{
    double pos, lo, hi;
    size_t k;
    if (n == 0)
        return 0;
    if (q == 0.5)
        return median_inplace(v, n);
    qsort(v, n, sizeof *v, cmp_double);
    pos = (q <= 0 ? 0 : q >= 1 ? 1 : q) * (double)(n - 1);
    k = (size_t)pos;
    lo = v[k];
    hi = k + 1 < n ? v[k + 1] : lo;
    return lo + (pos - (double)k) * (hi - lo);
}

/* The spread of a region is the median gap between its sorted values,
 * the largest gap left out, scaled to a standard deviation for normal
 * noise: unlike the median absolute deviation, it is not set by groups of
 * processes doing different work (two ranks of four with 50x the
 * particles: the gaps inside each group are the noise, the one gap between
 * them is not).  The largest gap is left out (with three values or more)
 * because with few processes the one gap between two groups moves the
 * median: of four processes, one slow, the median of the three gaps is
 * the larger of the two gaps among the three others, on average 1.9 times
 * their noise's median gap (edge probes no_sync and final_reduce: one
 * region, rank 1 1.9x the others, which lie within 5%: noise 13%, the
 * imbalance 5.8 standard errors, below separation_t).  gap_scale: the
 * factor making it unbiased for n normal values, computed by a
 * deterministic simulation (400 samples of n values up to n = 64, fewer for
 * more values, whose median gap varies less); x, g: n scratch values. */
static double std_normal(unsigned long long *st)
{
    double u = 0;
    int i;
    for (i = 0; i < 12; i++) {
        *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
        u += (double)(*st >> 11) / 9007199254740992.0;
    }
    return u - 6.0;
}

/* The median of the m gaps g (reordered) less the largest one (m >= 2). */
static double trimmed_gap_median(double *g, size_t m)
{
    size_t i, top = 0;
    if (m < 2)
        return median_inplace(g, m);
    for (i = 1; i < m; i++)
        if (g[i] > g[top])
            top = i;
    g[top] = g[m - 1];
    return median_inplace(g, m - 1);
}

double an_gap_scale(size_t n, double *x, double *g)
{
    size_t samples = n <= 64 ? 400 : 25600 / n > 8 ? 25600 / n : 8, s, i;
    unsigned long long st = 0x9e3779b97f4a7c15ULL;
    double sum = 0;
    if (n < 2)
        return 0;
    for (s = 0; s < samples; s++) {
        for (i = 0; i < n; i++)
            x[i] = std_normal(&st);
        qsort(x, n, sizeof *x, cmp_double);
        for (i = 0; i + 1 < n; i++)
            g[i] = x[i + 1] - x[i];
        sum += trimmed_gap_median(g, n - 1);
    }
    return sum > 0 ? (double)samples / sum : 0;
}

double an_median_gap(double *v, double *g, size_t n)
{
    size_t i;
    if (n < 2)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    for (i = 0; i + 1 < n; i++)
        g[i] = v[i + 1] - v[i];
    return trimmed_gap_median(g, n - 1);
}

double an_noise_relative(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double min_value, double quantile, size_t *nused, double *per_region)
{
    double *col = malloc((P ? P : 1) * sizeof *col), *dev = malloc((P ? P : 1) * sizeof *dev);
    double *rel = malloc((R ? R : 1) * sizeof *rel), out = 0, scale;
    size_t r, q, n = 0;
    if (nused)
        *nused = 0;
    for (r = 0; per_region && r < R; r++)
        per_region[r] = NAN;
    if (!col || !dev || !rel || P < 2) {
        free(col);
        free(dev);
        free(rel);
        return 0;
    }
    scale = an_gap_scale(P, col, dev);
    for (r = 1; r < R; r++) {
        double med;
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
        rel[n++] = scale * an_median_gap(col, dev, P) / med;
        if (per_region)
            per_region[r] = rel[n - 1];
    }
    if (nused)
        *nused = n;
    out = an_quantile(rel, n, quantile);
    free(col);
    free(dev);
    free(rel);
    return out;
}

int an_level_spread_init(const double *self, const unsigned char *ran, size_t P, size_t R,
                         const double *weight, double *pre)
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
        pre[r + 1] = pre[r] + (weight ? weight[r] : 1) * med * med;
    }
    free(col);
    return 0;
}

double an_visit_weight(double noise_between, double noise_rel, double one_visit,
                       int visits_seen)
{
    double k = noise_rel > 0 && noise_between > noise_rel ? noise_between / noise_rel : 1;
    double v = noise_rel > 0 && one_visit > noise_rel ? one_visit / noise_rel : 1;
    return visits_seen ? 1 : k > v ? k * k : v * v;
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

/* The median over the regions of the median over the processes of v (P x
 * R, NaN where a process made fewer than 2 visits), each at most cap[r]
 * where that is finite (cap NULL: none): with `every`, the
 * regions every process ran with a value of v, a finite self value and a
 * median self value of at least min_value; without, the regions at least
 * two processes ran with a finite self value, whose median over them is at
 * least min_value, and at least two values of v (over those processes).
 * 0 when no region qualifies; *nused: how many did. */
static double visit_median(const double *self, const unsigned char *ran, const double *v,
                           const double *cap, size_t P, size_t R, double min_value, int every,
                           size_t *nused)
{
    double *col = malloc((P ? P : 1) * sizeof *col), *vr = malloc((P ? P : 1) * sizeof *vr);
    double *reg = malloc((R ? R : 1) * sizeof *reg), out, med;
    size_t r, q, n = 0, k, m;
    *nused = 0;
    if (!col || !vr || !reg) {
        free(col), free(vr), free(reg);
        return 0;
    }
    for (r = 1; r < R && P >= 2; r++) {
        for (q = 0, k = 0, m = 0; q < P; q++) {
            size_t i = q * R + r;
            int has = ran[i] && isfinite(self[i]);
            if (every && (!has || !isfinite(v[i])))
                break;
            if (has)
                col[k++] = self[i];
            if (isfinite(v[i]))
                vr[m++] = v[i];
        }
        if ((every && q < P) || k < 2 || m < 2)
            continue;
        med = median_inplace(col, k);
        if (!(med >= min_value) || (!every && !(med > 0)))
            continue;
        reg[n] = median_inplace(vr, m);
        if (cap && isfinite(cap[r]) && cap[r] < reg[n])
            reg[n] = cap[r];
        n++;
    }
    *nused = n;
    out = median_inplace(reg, n);
    free(col), free(vr), free(reg);
    return out;
}

double an_visit_noise(const double *self, const unsigned char *ran, const double *rel, size_t P,
                      size_t R, double min_value, size_t *nused)
{
    return visit_median(self, ran, rel, NULL, P, R, min_value, 1, nused);
}

double an_one_visit_noise(const double *self, const unsigned char *ran, const double *one,
                          const double *between, size_t P, size_t R, double min_value,
                          size_t *nused)
{
    return visit_median(self, ran, one, between, P, R, min_value, 0, nused);
}

double an_noise_bounded(double between, double max, double *measured)
{
    *measured = 0;
    if (max > 0 && between > max) {
        *measured = between;
        return max;
    }
    return between;
}

double an_noise_capped(double gap_noise, double visit_noise, size_t nvisit, double cap)
{
    if (cap > 0 && nvisit >= AN_VISIT_NOISE_MIN_REGIONS && visit_noise > 0 &&
        gap_noise > cap * visit_noise)
        return cap * visit_noise;
    return gap_noise;
}

double an_noise_floored(double noise, double visit_noise, size_t nused, size_t nvisit,
                        double one_visit, size_t none)
{
    if (nused < AN_NOISE_FEW_REGIONS && nvisit >= AN_VISIT_NOISE_MIN_REGIONS &&
        visit_noise > noise)
        return visit_noise;
    if (nused == 0 && nvisit < AN_VISIT_NOISE_MIN_REGIONS && none >= AN_VISIT_NOISE_MIN_REGIONS &&
        one_visit > noise)
        return one_visit;
    return noise;
}
