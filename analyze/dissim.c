/*
 * analyze/dissim.c -- the dissimilarity analysis (SPEC §5.1, §5.3):
 * per-process vectors of the main metric (CPU time outside MPI, or wall time
 * outside MPI) over the regions of one tree level, clustered with OPTICS
 * (through data bubbles for many processes); CCR tests by removing a
 * component and by clustering a component alone; recursion into the
 * children of CCRs; the clusters of the processes, the slow cluster of a
 * finding and the impact of every CCR.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"
#include "cluster/aa_cluster.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* OPTICS over n rows of dim columns (dim 0 or identical rows: one cluster). */
static int cluster_rows(an_ctx *c, const double *x, size_t n, size_t dim, const an_clust *cp,
                        int *labels, size_t *ncl)
{
    size_t i, j;
    int same = 1;
    aa_optics_params par;
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
    if (aa_cluster_optics_labels(x, n, dim, &par, labels, ncl, c->err))
        return c->err->code ? c->err->code : AA_EENV;
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
        return an_nomem(c);
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
        return an_nomem(c);
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

/* ---- significance of clusters ------------------------------------------------ */
/* OPTICS cuts where the points thin out: at an eps small enough to separate
 * groups whose members lie a few noise deviations apart it also cuts a
 * noisy continuum, and at an eps large enough not to, it chains groups whose
 * means differ by many standard errors (three groups of 5 processes 25%
 * apart, each spread by 5%).  So a level is cut at a small eps and the
 * clusters are then tested the way a difference of means is tested.  Each
 * component j is a region's value with its own spread: the squared
 * difference of the means of clusters a and b is weighed by the
 * within-cluster variance w_j of that component (pooled over a and b, at
 * least the noise model's variance of one process there: a singleton or two
 * identical processes have no spread of their own),
 *     T^2 = sum_j d_j^2 / w_j / (1/n_a + 1/n_b),
 * over the components whose means differ by at least res (a smaller
 * difference is no difference at all).  A region whose groups lie far apart
 * for its own noise is thereby not drowned by the noise of a large sibling
 * (a difference measured along the line joining the means was: the
 * siblings' chance differences tilt that line into their own noise).  T^2
 * has d degrees of freedom under no difference, so a pair differs when T^2
 * exceeds the chi-square quantile whose tail is that of sig normal standard
 * deviations (both sides): sig^2 for one component, more for several.  The
 * least separated pair is merged until every pair differs. */
typedef struct sep_groups {
    size_t k, d;
    size_t *n;         /* by group: points */
    double *sum, *sq;  /* k x d */
    int *rep;          /* by group: the smallest original label merged into it */
} sep_groups;

/* log of the regularised upper incomplete gamma function Q(a, x), a > 0,
 * x >= 0 (series below a + 1, continued fraction above: Numerical Recipes'
 * gammq, in logarithms so that tails far beyond a double's range compare). */
static double log_gamma_q(double a, double x)
{
    double lpre, sum, term, b, cc, dd, h;
    int i;
    if (x <= 0)
        return 0;
    lpre = -x + a * log(x) - lgamma(a);
    if (x < a + 1) {
        sum = term = 1 / a;
        for (i = 1; i < 1000 && fabs(term) > fabs(sum) * 1e-16; i++) {
            term *= x / (a + i);
            sum += term;
        }
        return log1p(-fmin(1.0, exp(lpre) * sum));
    }
    b = x + 1 - a;
    cc = 1 / 1e-300;
    dd = 1 / b;
    h = dd;
    for (i = 1; i < 1000; i++) {
        double an = -i * (i - a), del;
        b += 2;
        dd = an * dd + b;
        dd = fabs(dd) < 1e-300 ? 1e-300 : dd;
        cc = b + an / cc;
        cc = fabs(cc) < 1e-300 ? 1e-300 : cc;
        dd = 1 / dd;
        del = dd * cc;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return lpre + log(h);
}

/* log P(|Z| > z) for a standard normal Z (asymptotic beyond erfc's range). */
static double log_normal_two_sided(double z)
{
    double y = z / sqrt(2.0);
    if (y < 25)
        return log(erfc(y));
    return -y * y - log(y * 1.7724538509055160273) + log1p(-1 / (2 * y * y));
}

/* The T^2 threshold for d components: the chi-square(d) quantile whose
 * upper tail equals P(|Z| > sig) (sig^2 when d = 1). */
static double sep_threshold(double sig, size_t d)
{
    double target, lo, hi;
    int i;
    if (d <= 1)
        return sig * sig;
    target = log_normal_two_sided(sig);
    lo = sig * sig;
    hi = lo + 10.0 * (double)d + 100;
    while (log_gamma_q(0.5 * (double)d, 0.5 * hi) > target)
        hi *= 2;
    for (i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (log_gamma_q(0.5 * (double)d, 0.5 * mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* T^2 of groups a and b (0 when their means are closer than res;
 * INFINITY when a component differs with no spread at all); *used: the
 * components whose means differ by at least res, the only ones summed. */
static double sep_score(const sep_groups *g, const double *floor2, size_t a, size_t b, double res,
                        size_t *used)
{
    size_t j, d = g->d;
    double na = (double)g->n[a], nb = (double)g->n[b], D2 = 0, t2 = 0, df = na + nb - 2;
    *used = 0;
    for (j = 0; j < d; j++) {
        double dj = g->sum[a * d + j] / na - g->sum[b * d + j] / nb;
        D2 += dj * dj;
    }
    if (!(sqrt(D2) >= res) || D2 == 0)
        return 0;
    for (j = 0; j < d; j++) {
        double ma = g->sum[a * d + j] / na, mb = g->sum[b * d + j] / nb, dj = ma - mb;
        double w = df > 0 ? (g->sq[a * d + j] - na * ma * ma + g->sq[b * d + j] - nb * mb * mb) /
                                df
                          : 0;
        if (!(fabs(dj) >= res))
            continue;
        ++*used;
        w = w > floor2[j] ? w : floor2[j];
        if (!(w > 0))
            return INFINITY;
        t2 += dj * dj / w;
    }
    return t2 / (1 / na + 1 / nb);
}

static void sep_merge(sep_groups *g, int *owner, size_t k0, size_t a, size_t b)
{
    size_t j, d = g->d, last = g->k - 1;
    for (j = 0; j < k0; j++)
        if (owner[j] == (int)b)
            owner[j] = (int)a;
        else if (owner[j] == (int)last)
            owner[j] = (int)b;
    g->n[a] += g->n[b];
    for (j = 0; j < d; j++) {
        g->sum[a * d + j] += g->sum[b * d + j];
        g->sq[a * d + j] += g->sq[b * d + j];
    }
    if (g->rep[b] < g->rep[a])
        g->rep[a] = g->rep[b];
    if (b != last) {
        g->n[b] = g->n[last];
        g->rep[b] = g->rep[last];
        memcpy(g->sum + b * d, g->sum + last * d, d * sizeof *g->sum);
        memcpy(g->sq + b * d, g->sq + last * d, d * sizeof *g->sq);
    }
    g->k--;
}

/* Up to this many clusters the sums of a level are kept (k0 x m doubles). */
#define AN_SUMS_MAX_K 64

/* L's cluster sums over all its components for labels (k0 clusters), as
 * merge_insignificant accumulates them (every column on its own, over the
 * points in order: a column's sums do not depend on the others).  0 ready,
 * -1 not kept (too many clusters), or an error code. */
static int level_sums(an_level *L, const int *labels, size_t k0)
{
    size_t n = L->n, m = L->m, i, j;
    const an_bub *bub = L->bub;
    const double *x = L->X;
    if (k0 == 0 || k0 > AN_SUMS_MAX_K)
        return -1;
    if (L->ms_ready && L->ms_k0 == k0 && memcmp(L->ms_lab, labels, n * sizeof *labels) == 0)
        return 0;
    L->ms_ready = 0;
    free(L->ms_lab), free(L->ms_n), free(L->ms_sum), free(L->ms_sq);
    L->ms_lab = malloc((n ? n : 1) * sizeof *L->ms_lab);
    L->ms_n = calloc(k0, sizeof *L->ms_n);
    L->ms_sum = calloc(k0 * (m ? m : 1), sizeof *L->ms_sum);
    L->ms_sq = calloc(k0 * (m ? m : 1), sizeof *L->ms_sq);
    if (!L->ms_lab || !L->ms_n || !L->ms_sum || !L->ms_sq)
        return an_nomem(L->c);
    memcpy(L->ms_lab, labels, n * sizeof *labels);
    L->ms_k0 = k0;
    for (i = 0; i < n; i++) {
        size_t l = (size_t)labels[i], w = bub && bub->sq ? bub->count[i] : 1;
        L->ms_n[l] += w;
        for (j = 0; j < m; j++) {
            double v = x[i * m + j];
            L->ms_sum[l * m + j] += bub && bub->sq ? (double)w * v : v;
            L->ms_sq[l * m + j] += bub && bub->sq ? bub->sq[i * m + j] : v * v;
        }
    }
    L->ms_ready = 1;
    return 0;
}

/* Merges the clusters (labels, *ncl) of the points x (n x dim, columns as
 * cluster_sel selects them) that do not differ significantly; relabels
 * 0..k-1 in the order of their smallest original label.  When the bubbles
 * bub carry their points' sums of squares (bub->sq: the parallel
 * analysis), x holds the bubble means themselves and each row counts
 * bub->count points. */
static int merge_insignificant(an_ctx *c, an_level *L, const double *x, size_t n, size_t dim,
                               const an_bub *bub, long skip, long only, const an_clust *cp,
                               int *labels, size_t *ncl, double *separation)
{
    size_t d = only >= 0 ? 1 : skip >= 0 ? dim - 1 : dim, k0 = *ncl, i, j, o, a, b;
    sep_groups g;
    double *thr = malloc((d + 1) * sizeof *thr), *floor2 = malloc((d ? d : 1) * sizeof *floor2);
    int *group_of = malloc((k0 ? k0 : 1) * sizeof *group_of), rc = AA_OK, kept;
    memset(&g, 0, sizeof g);
    g.k = k0;
    g.d = d;
    g.n = calloc(k0 ? k0 : 1, sizeof *g.n);
    g.sum = calloc((k0 ? k0 : 1) * (d ? d : 1), sizeof *g.sum);
    g.sq = calloc((k0 ? k0 : 1) * (d ? d : 1), sizeof *g.sq);
    g.rep = malloc((k0 ? k0 : 1) * sizeof *g.rep);
    if (!thr || !floor2 || !group_of || !g.n || !g.sum || !g.sq || !g.rep) {
        rc = an_nomem(c);
        goto out;
    }
    for (j = 0, o = 0; j < dim; j++) {
        if ((only >= 0 && (long)j != only) || (long)j == skip)
            continue;
        floor2[o] = cp->sd_floor ? cp->sd_floor[j] * cp->sd_floor[j] : 0;
        o++;
    }
    for (i = 0; i < k0; i++)
        g.rep[i] = group_of[i] = (int)i;
    /* all components but at most one of a level: its kept sums */
    kept = L && only < 0 ? level_sums(L, labels, k0) : -1;
    if (kept > 0) {
        rc = kept;
        goto out;
    }
    if (kept == 0) {
        for (i = 0; i < k0; i++) {
            g.n[i] = L->ms_n[i];
            for (j = 0, o = 0; j < dim; j++) {
                if ((long)j == skip)
                    continue;
                g.sum[i * d + o] = L->ms_sum[i * dim + j];
                g.sq[i * d + o] = L->ms_sq[i * dim + j];
                o++;
            }
        }
    } else for (i = 0; i < n; i++) {
        size_t l = (size_t)labels[i], w = bub && bub->sq ? bub->count[i] : 1;
        g.n[l] += w;
        for (j = 0, o = 0; j < dim; j++) {
            double v;
            if ((only >= 0 && (long)j != only) || (long)j == skip)
                continue;
            v = x[i * dim + j];
            g.sum[l * d + o] += bub && bub->sq ? (double)w * v : v;
            g.sq[l * d + o] += bub && bub->sq ? bub->sq[i * dim + j] : v * v;
            o++;
        }
    }
    /* the threshold of a pair has as many degrees of freedom as components
     * it sums: those closer than the resolution add nothing to T^2 and
     * must not raise the bar (thr[u], computed when first needed) */
    for (j = 0; j <= d; j++)
        thr[j] = 0;
    while (g.k >= 2) {
        double worst = INFINITY, worst_t = 0;
        size_t wa = 0, wb = 1, used;
        for (a = 0; a < g.k; a++)
            for (b = a + 1; b < g.k; b++) {
                double t = sep_score(&g, floor2, a, b, cp->res, &used), ratio;
                if (used && !(thr[used] > 0))
                    thr[used] = sep_threshold(cp->sig, used);
                ratio = used ? t / thr[used] : 0;
                if (ratio < worst) {
                    worst = ratio;
                    worst_t = t;
                    wa = a;
                    wb = b;
                }
            }
        if (worst >= 1) {
            if (separation)
                *separation = sqrt(worst_t);
            break;
        }
        sep_merge(&g, group_of, k0, wa, wb);
    }
    /* new label of a group: how many surviving groups have a smaller rep */
    for (a = 0; a < g.k; a++) {
        size_t rank = 0;
        for (b = 0; b < g.k; b++)
            rank += g.rep[b] < g.rep[a];
        g.n[a] = rank;
    }
    for (i = 0; i < n; i++)
        labels[i] = (int)g.n[group_of[labels[i]]];
    *ncl = g.k;
out:
    free(thr);
    free(floor2);
    free(group_of);
    free(g.n);
    free(g.sum);
    free(g.sq);
    free(g.rep);
    return rc;
}

/* Clusters the points of x (n x dim) on all columns (skip = only = -1), all
 * but column skip, or column only; through the bubbles b when it has any. */
static int cluster_sel(an_ctx *c, an_level *L, const double *x, size_t n, size_t dim,
                       const an_bub *b,
                       long skip, long only, const an_clust *cp, int *labels, size_t *ncl,
                       double *separation)
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
            return an_nomem(c);
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
        return an_nomem(c);
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
        if (separation)
            *separation = 0;
        if (cp->sig > 0 && *ncl >= 2)
            rc = merge_insignificant(c, L, x, n, dim, b, skip, only, cp, labels, ncl, separation);
    }
    free(first);
    free(Y);
    free(lab);
    return rc;
}

int an_cluster_all(an_ctx *c, const double *x, size_t n, size_t dim, const an_clust *cp,
                   int *labels, size_t *ncl)
{
    an_bub tb;
    int rc = bub_build(c, x, n, dim, 0.1 * cp->eps, &tb);
    if (!rc)
        rc = cluster_sel(c, NULL, x, n, dim, &tb, -1, -1, cp, labels, ncl, NULL);
    bub_free(&tb);
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

/* ---- dissimilarity ---------------------------------------------------------- */
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

/* Between-cluster sum of squares of every component of the level (B, m)
 * under the partition ref (k clusters) of the points X (P x m); *btot:
 * their sum. */
static int between_ss(an_ctx *c, const double *X, size_t m, const int *ref, size_t k, double *B,
                      double *btot)
{
    size_t P = c->P, q, j, i;
    double *csum = calloc(k, sizeof *csum);
    size_t *ccnt = calloc(k, sizeof *ccnt);
    if (!csum || !ccnt) {
        free(csum);
        free(ccnt);
        return an_nomem(c);
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
        *btot += B[j];
    }
    free(csum);
    free(ccnt);
    return AA_OK;
}

static an_clust level_params(const dis_state *s, const size_t *set, size_t m);

/* A level being clustered (an_level, an_internal.h): the partitions of its
 * components taken one at a time are computed when first needed. */
void an_level_free(an_level *L)
{
    free(L->cols_lab);
    free(L->cols_k);
    free(L->cols_sep);
    L->cols_lab = NULL;
    L->cols_k = NULL;
    L->cols_sep = NULL;
    L->cols_ready = 0;
    free(L->ms_lab);
    free(L->ms_n);
    free(L->ms_sum);
    free(L->ms_sq);
    L->ms_lab = NULL;
    L->ms_n = NULL;
    L->ms_sum = NULL;
    L->ms_sq = NULL;
    L->ms_ready = 0;
}

/* Each component alone, clustered at its own noise eps (a difference in one
 * component of many is diluted by the noise of the others in the distance
 * between whole vectors: a function among ten siblings whose three groups
 * of processes lie ten standard errors apart). */
static int lvl_columns(an_level *L)
{
    an_ctx *c = L->c;
    const aa_analyze_options *o = c->o;
    size_t P = L->n, j;
    int rc;
    L->cols_ready = 1;
    L->cols_lab = malloc(L->m * P * sizeof *L->cols_lab);
    L->cols_k = calloc(L->m, sizeof *L->cols_k);
    L->cols_sep = calloc(L->m, sizeof *L->cols_sep);
    if (!L->cols_lab || !L->cols_k || !L->cols_sep)
        return an_nomem(c);
    for (j = 0; j < L->m; j++) {
        an_clust cj = *L->cp; /* sig > 0: the noise model is there, eps not fixed */
        cj.eps = an_level_eps(L->spread, L->set + j, 1, L->send, c->a->noise_rel,
                              o->noise_factor, o->resolution_s);
        if ((rc = cluster_sel(c, L, L->X, P, L->m, L->bub, -1, (long)j, &cj, L->cols_lab + j * P,
                              &L->cols_k[j], &L->cols_sep[j])))
            return rc;
    }
    return AA_OK;
}

/* The partition of the level on all its components but skip (-1: all), or
 * on component only: OPTICS at the level's eps, clusters that do not
 * differ significantly merged; when that leaves one cluster, the most
 * separated partition of a single component (not skip), if it holds on
 * the components clustered. */
int an_level_cluster(an_level *L, long skip, long only, int *labels, size_t *k)
{
    an_ctx *c = L->c;
    size_t P = L->n, j, best = L->m;
    int rc = cluster_sel(c, L, L->X, P, L->m, L->bub, skip, only, L->cp, labels, k, NULL);
    if (rc || *k >= 2 || only >= 0 || !(L->cp->sig > 0) || L->m < 2)
        return rc;
    if (!L->cols_ready && (rc = lvl_columns(L)))
        return rc;
    for (j = 0; j < L->m; j++)
        if ((long)j != skip && L->cols_k[j] >= 2 &&
            (best == L->m || L->cols_sep[j] > L->cols_sep[best]))
            best = j;
    if (best == L->m)
        return AA_OK;
    memcpy(labels, L->cols_lab + best * P, P * sizeof *labels);
    *k = L->cols_k[best];
    return merge_insignificant(c, L, L->X, P, L->m, L->bub, skip, -1, L->cp, labels, k, NULL);
}

/* The CCR tests of every component j of the level (isccr[j]): the
 * partition changes without it, or it alone gives a partition that agrees
 * with the level's -- the same, finer (it separates every two processes
 * the level does) or coarser with at least two clusters (it separates some
 * of the level's clusters and splits none).  The paper asks for the same
 * partition; when the processes all differ, the level's partition combines
 * the evidence of its components and is finer than any one of them:
 * miniAMR without load balancing, where rank 0 holds 9x the blocks and
 * ranks 1-3 differ among themselves too, has the level {0} {1,2} {3}
 * while the stencil and the communication alone each give {0} {1,2,3};
 * neither was a CCR, and a 1-ms check-sum loop, whose removal changed the
 * partition, was the only finding (bench/diagnosis.md, seventeenth step).
 * lab: P scratch. */
int an_level_ccr_test(an_level *L, size_t j, const int *ref, size_t k, int *lab, int *isccr)
{
    size_t P = L->n, kk;
    int rc, changed, alone_agrees;
    /* without component j */
    if ((rc = an_level_cluster(L, (long)j, -1, lab, &kk)))
        return rc;
    changed = kk != k || !aa_cluster_same_partition(lab, ref, P);
    /* component j alone */
    if ((rc = an_level_cluster(L, -1, (long)j, lab, &kk)))
        return rc;
    alone_agrees = kk >= 2 && (aa_cluster_refines(lab, ref, P) || aa_cluster_refines(ref, lab, P));
    *isccr = changed || alone_agrees;
    return AA_OK;
}

int an_level_ccr_tests(an_level *L, const int *ref, size_t k, int *lab, int *isccr)
{
    size_t j;
    int rc;
    for (j = 0; j < L->m; j++)
        if ((rc = an_level_ccr_test(L, j, ref, k, lab, &isccr[j])))
            return rc;
    return AA_OK;
}

static int dis_level(dis_state *s, long level, const size_t *set, size_t m, int searching,
                     int *any_ccr);

/* The level of region r's children: their set and count. */
static int dis_children(dis_state *s, size_t r, int searching, int *any_ccr)
{
    an_ctx *c = s->c;
    return dis_level(s, (long)r, c->clist + c->cstart[r], an_nchildren(c, r), searching, any_ccr);
}

/* Records region r, a CCR of effect `effect` under the partition ref (k
 * clusters) of its level (cp: the level's parameters), and tests the level
 * of its children: it is a CCCR when none of them is a CCR.  The children
 * are searched as the levels above a first CCR are: a level on which the
 * processes do not differ is looked through, since the region that carries
 * the difference may sit beside large, noisy siblings (seed 299 of the
 * suite: `predict` 8.5 ms on rank 0 against 1.2 ms, inside a time-step
 * loop of 120 ms whose noise hides it; bench/diagnosis.md, thirteenth
 * step).  Whether r stays the innermost one is settled by its descendants
 * that are findings (an_dissim_impact). */
static int add_ccr(dis_state *s, long level, const an_clust *cp, size_t r, double effect,
                   const int *ref, size_t k)
{
    an_ctx *c = s->c;
    size_t P = c->P, fi;
    dis_found *f, *nf = realloc(s->found, (s->nfound + 1) * sizeof *nf);
    int child_ccr = 0, rc;
    if (!nf)
        return an_nomem(c);
    s->found = nf;
    fi = s->nfound++;
    f = &s->found[fi];
    memset(f, 0, sizeof *f);
    f->region = r;
    f->effect = effect;
    f->level = level;
    f->cp = *cp;
    f->cp.sd_floor = NULL;
    f->labels = malloc(P * sizeof *f->labels);
    if (!f->labels)
        return an_nomem(c);
    memcpy(f->labels, ref, P * sizeof *ref);
    dis_props(s, r, ref, k, &f->severity, &f->confidence);
    if ((rc = dis_children(s, r, 1, &child_ccr)))
        return rc;
    s->found[fi].cccr = !child_ccr;
    return AA_OK;
}

/* The clustering parameters of the level set[0..m): MinPts of the run and
 * the level's own eps (noise.c) -- a level of small regions has a small
 * expected spread, so a difference local to it is judged against its own
 * noise, not against the noise of the whole program. */
static an_clust level_params(const dis_state *s, const size_t *set, size_t m)
{
    const an_ctx *c = s->c;
    const aa_analyze_options *o = c->o;
    an_clust cp = s->cp;
    if (!s->fixed_eps && s->spread)
        cp.eps = an_level_eps(s->spread, set, m, c->send, c->a->noise_rel, o->noise_factor,
                              o->resolution_s);
    return cp;
}

/* The significance test of the level's clusters (merge_insignificant): on
 * unless the user fixed eps; the noise model's standard deviation of one
 * process in each component (its subtree's median self values, noise.c:
 * the prefix sums spread, subtrees ending at send). */
int an_level_significance(an_ctx *c, const double *spread, const size_t *send, int fixed_eps,
                          const size_t *set, size_t m, an_clust *cp)
{
    double *sd;
    size_t j;
    cp->sig = 0;
    cp->sd_floor = NULL;
    if (fixed_eps || !spread || !(c->o->separation_t > 0))
        return AA_OK;
    if (!(sd = malloc((m ? m : 1) * sizeof *sd)))
        return an_nomem(c);
    for (j = 0; j < m; j++) {
        double var = spread[send[set[j]]] - spread[set[j]];
        double fix = c->fixm ? c->o->cpu_fix_k * c->fixm[set[j]] : 0;
        double calls = c->callm ? c->o->mpi_call_res_s * c->callm[set[j]] : 0;
        /* the noise model's spread, the interpolated CPU time's measured
         * resolution (cpu_fix) and what is left outside the MPI calls
         * between them (mpi_call_res_s a call), independent */
        sd[j] = sqrt(c->a->noise_rel * c->a->noise_rel * (var > 0 ? var : 0) + fix * fix +
                     calls * calls);
    }
    cp->sig = c->o->separation_t;
    cp->res = c->o->resolution_s;
    cp->sd_floor = sd;
    return AA_OK;
}

/* 1 when no two processes can be farther apart than eps on the level
 * set[0..m): the largest distance is at most the norm of the components'
 * ranges; and, with a noise model (spread; NULL when eps is the user's), no
 * component alone spans more than its own noise eps (an_level_cluster
 * tries each component alone). */
int an_level_uniform(const double *range, const double *spread, const size_t *send,
                     const size_t *set, size_t m, double eps, double noise_rel,
                     const aa_analyze_options *o)
{
    double d2 = 0;
    size_t j;
    if (!range)
        return 0;
    for (j = 0; j < m; j++)
        d2 += range[set[j]] * range[set[j]];
    if (sqrt(d2) > eps)
        return 0;
    for (j = 0; j < m && spread; j++)
        if (range[set[j]] >
            an_level_eps(spread, set + j, 1, send, noise_rel, o->noise_factor, o->resolution_s))
            return 0;
    return 1;
}

static int level_uniform(const dis_state *s, const size_t *set, size_t m, double eps)
{
    const an_ctx *c = s->c;
    return an_level_uniform(s->range, s->fixed_eps ? NULL : s->spread, c->send, set, m, eps,
                            c->a->noise_rel, c->o);
}

/* Descends into the children levels of every region of the set (searching
 * for a level on which the processes differ). */
static int dis_search_below(dis_state *s, const size_t *set, size_t m)
{
    size_t j;
    int rc, any;
    for (j = 0; j < m; j++)
        if (an_nchildren(s->c, set[j]) && (rc = dis_children(s, set[j], 1, &any)))
            return rc;
    return AA_OK;
}

/* Tests the regions in set[0..m) (one level, the children of region
 * `level`); recurses into CCR children.  While searching (no enclosing
 * CCR), a level on which the processes do not differ is looked through:
 * a difference local to a small region is invisible against the noise of
 * everything around it and shows on a deeper level only.  *any_ccr tells
 * whether a CCR was found at this level. */
static int dis_level(dis_state *s, long level, const size_t *set, size_t m, int searching,
                     int *any_ccr)
{
    an_ctx *c = s->c;
    size_t P = c->P, q, j, k = 1;
    double *X = NULL, *B = NULL, btot = 0;
    int *ref = NULL, *lab = NULL, rc = AA_OK;
    int *isccr = NULL;
    an_bub bub;
    an_clust cp;
    an_level L;
    memset(&bub, 0, sizeof bub);
    memset(&L, 0, sizeof L);
    *any_ccr = 0;
    if (m == 0 || P < 2)
        return AA_OK;
    cp = level_params(s, set, m);
    if (level_uniform(s, set, m, cp.eps))
        return searching ? dis_search_below(s, set, m) : AA_OK;
    X = malloc(P * m * sizeof *X);
    ref = malloc(P * sizeof *ref);
    lab = malloc(P * sizeof *lab);
    B = calloc(m, sizeof *B);
    isccr = calloc(m, sizeof *isccr);
    if (!X || !ref || !lab || !B || !isccr || (rc = an_level_significance(c, s->spread, c->send, s->fixed_eps, set, m, &cp))) {
        rc = rc ? rc : an_nomem(c);
        rc = an_nomem(c);
        goto out;
    }
    for (q = 0; q < P; q++)
        for (j = 0; j < m; j++) {
            double v = s->MM[q * c->R + set[j]];
            X[q * m + j] = isnan(v) ? 0 : v;
        }
    L.c = c;
    L.n = P;
    L.m = m;
    L.X = X;
    L.bub = &bub;
    L.cp = &cp;
    L.spread = s->spread;
    L.send = c->send;
    L.set = set;
    if ((rc = bub_build(c, X, P, m, 0.1 * cp.eps, &bub)) ||
        (rc = an_level_cluster(&L, -1, -1, ref, &k)))
        goto out;
    if (k >= 2 && ((rc = between_ss(c, X, m, ref, k, B, &btot)) ||
                   (rc = an_level_ccr_tests(&L, ref, k, lab, isccr))))
        goto out;
    for (j = 0; j < m && !rc && k >= 2; j++)
        if (isccr[j]) {
            *any_ccr = 1;
            rc = add_ccr(s, level, &cp, set[j], btot > 0 ? B[j] / btot : 0, ref, k);
        }
    if (!rc && searching && !*any_ccr)
        rc = dis_search_below(s, set, m);
out:
    an_level_free(&L);
    bub_free(&bub);
    free(X);
    free(ref);
    free(lab);
    free(B);
    free(isccr);
    free((double *)cp.sd_floor);
    return rc;
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

/* Phase: a note when there is a single process (nothing to compare). */
int an_dissim_applicable(an_ctx *c)
{
    if (c->P == 1)
        return an_note(c, "single process: no dissimilarity analysis");
    return AA_OK;
}

/* The visits, CPU time and cpu_sq of every process and region (P x R
 * each, an_gather), or all NULL when one of them was not measured. */
static int visit_metrics(an_ctx *c, double **N, double **C, double **Q)
{
    size_t PR = c->P * c->R;
    int mv, mc, mq;
    *N = *C = *Q = NULL;
    if (!an_metric_usable(c, "cpu_sq", &mq) || !an_metric_usable(c, "visits", &mv) ||
        !an_metric_usable(c, "cpu", &mc))
        return AA_OK;
    *N = malloc(PR * sizeof **N);
    *C = malloc(PR * sizeof **C);
    *Q = malloc(PR * sizeof **Q);
    if (!*N || !*C || !*Q) {
        free(*N), free(*C), free(*Q);
        *N = *C = *Q = NULL;
        return an_nomem(c);
    }
    an_gather(c, mv, *N);
    an_gather(c, mc, *C);
    an_gather(c, mq, *Q);
    return AA_OK;
}

/* By process and region: *rel, how much the total varies from its visits,
 * sqrt(cpu_sq - cpu^2 / visits) / cpu, *one, how much one visit varies,
 * rel x sqrt(visits) (NaN below 2 visits), and *vis, the visits; all NULL
 * when the process metric is not CPU time or cpu_sq was not measured. */
static int visit_relative(an_ctx *c, double **rel, double **one, double **vis)
{
    size_t k;
    double *N, *C, *Q;
    int rc;
    *rel = *one = *vis = NULL;
    if (strcmp(c->a->proc_metric, "cpu"))
        return AA_OK;
    if ((rc = visit_metrics(c, &N, &C, &Q)) || !Q)
        return rc;
    for (k = 0; k < c->P * c->R; k++) {
        Q[k] = N[k] >= 2 && C[k] > 0 && !isnan(Q[k])
                   ? sqrt(fmax(0, Q[k] - C[k] * C[k] / N[k])) / C[k] : NAN;
        C[k] = isfinite(Q[k]) ? Q[k] * sqrt(N[k]) : NAN;
    }
    *rel = Q;
    *one = C;
    *vis = N;
    return AA_OK;
}

/* By region: its spread between processes (between, an_noise_relative's)
 * times the square root of its median visits over the processes, NaN where
 * either is not there -- what one visit differs by between processes when
 * the visits are independent (an_one_visit_noise's cap).  tmp: P. */
static void one_visit_between(const an_ctx *c, const double *between, const double *vis,
                              double *tmp, double *out)
{
    size_t q, r, P = c->P, R = c->R;
    for (r = 0; r < R; r++) {
        out[r] = NAN;
        if (!isfinite(between[r]))
            continue;
        for (q = 0; q < P && isfinite(vis[q * R + r]); q++)
            tmp[q] = vis[q * R + r];
        if (q == P)
            out[r] = between[r] * sqrt(an_quantile(tmp, P, 0.5));
    }
}

/* ds->spread from the self values, a region some process visited once
 * weighted by an_visit_weight (rel: visit_relative's, or NULL). */
static int spread_sums(an_ctx *c, const double *self, const double *rel)
{
    size_t P = c->P, R = c->R, q, r;
    double *w = NULL;
    int rc = AA_OK;
    if (rel && (c->a->noise_rel < c->a->noise_between || c->a->noise_one_visit > c->a->noise_rel)) {
        if (!(w = malloc((R ? R : 1) * sizeof *w)))
            return an_nomem(c);
        for (r = 0; r < R; r++) {
            int seen = 1;
            for (q = 0; q < P && seen; q++)
                seen = !c->ran[q * R + r] || isfinite(rel[q * R + r]);
            w[r] = an_visit_weight(c->a->noise_between, c->a->noise_rel,
                                   c->a->noise_one_visit, seen);
        }
    }
    if (an_level_spread_init(self, c->ran, P, R, w, c->ds.spread))
        rc = an_nomem(c);
    free(w);
    return rc;
}

/* The run's noise (noise.c): the spread between processes, at most
 * noise_visit_cap times the spread of their own visits; how much one visit
 * varies (the noise of a region visited once: one_visit_k times it); and
 * what the levels' eps are made of: the prefix sums of the regions' squared
 * median self values (ds->spread). */
static int noise_model(an_ctx *c, size_t *nused)
{
    const aa_analyze_options *o = c->o;
    size_t P = c->P, R = c->R, nvisit = 0, none = 0;
    double *self = malloc(P * R * sizeof *self), *rel = NULL, *one = NULL, *vis = NULL;
    double *between = malloc((2 * R + P + 1) * sizeof *between);
    int rc;
    c->ds.spread = malloc((R + 1) * sizeof *c->ds.spread);
    if (!self || !between || !c->ds.spread) {
        free(self), free(between);
        return an_nomem(c);
    }
    an_self_values(c, c->MMraw ? c->MMraw : c->MM, self); /* speeds and all */
    c->a->noise_between = an_noise_bounded(an_noise_relative(self, c->ran, P, R,
                                                             o->resolution_s, o->noise_quantile,
                                                             nused, between),
                                           o->noise_max, &c->a->noise_between_measured);
    if ((rc = visit_relative(c, &rel, &one, &vis))) {
        free(self), free(between);
        return rc;
    }
    c->a->noise_visits = rel ? an_visit_noise(self, c->ran, rel, P, R, o->resolution_s, &nvisit)
                             : 0;
    if (nvisit < AN_VISIT_NOISE_MIN_REGIONS)
        c->a->noise_visits = 0;
    if (one && o->one_visit_k > 0) {
        one_visit_between(c, between, vis, between + 2 * R, between + R);
        c->a->noise_one_visit = o->one_visit_k * an_one_visit_noise(self, c->ran, one,
                                                                     between + R, P, R,
                                                                     o->resolution_s, &none);
    } else
        c->a->noise_one_visit = 0;
    if (none < AN_VISIT_NOISE_MIN_REGIONS)
        c->a->noise_one_visit = 0;
    c->a->noise_rel = an_noise_floored(an_noise_capped(c->a->noise_between, c->a->noise_visits,
                                                       nvisit, o->noise_visit_cap),
                                       c->a->noise_visits, *nused, nvisit,
                                       c->a->noise_one_visit, none);
    rc = spread_sums(c, self, rel);
    free(rel), free(one), free(vis), free(self), free(between);
    return rc;
}

/* By region: how far apart the processes are at most (ds->range). */
static int region_ranges(an_ctx *c)
{
    size_t P = c->P, R = c->R, q, r;
    double *rg = malloc((R ? R : 1) * sizeof *rg);
    if (!rg)
        return an_nomem(c);
    for (r = 0; r < R; r++) {
        double lo = INFINITY, hi = -INFINITY;
        for (q = 0; q < P; q++) {
            double v = c->MM[q * R + r];
            v = isnan(v) ? 0 : v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        rg[r] = P ? hi - lo : 0;
    }
    c->ds.range = rg;
    return AA_OK;
}

/* The note on the noise model, serial and MPI analysis alike. */
int an_noise_note(an_ctx *c, const aa_analysis *a, size_t nused, double eps)
{
    int rc = AA_OK;
    if (a->noise_between_measured > 0)
        rc = an_note(c, "noise: processes differ by %.2g%% in CPU time (median over %zu "
                        "regions), more than processes doing the same work differ by "
                        "(noise_max %.2g%%): they do different work, and the spread between "
                        "them is taken as %.2g%%",
                     100 * a->noise_between_measured, nused, 100 * c->o->noise_max,
                     100 * a->noise_between);
    if (rc)
        return rc;
    if (nused == 0 && a->noise_rel > a->noise_visits && a->noise_rel == a->noise_one_visit)
        rc = an_note(c, "noise: no region that every process ran to tell how much processes "
                        "doing the same work differ; taken as the %.2g%% one visit of the "
                        "program's regions varies by; differences count from %g s on the "
                        "whole program, from less on levels of smaller regions",
                     100 * a->noise_rel, eps);
    else if (a->noise_rel > a->noise_between)
        rc = an_note(c, "noise: processes doing the same work differ by %.2g%% in CPU time "
                        "(median over %zu region%s), less than the %.2g%% their own visits "
                        "vary by, which is taken (so few regions are few samples of the "
                        "spread); differences count from %g s on the whole program, from less "
                        "on levels of smaller regions",
                     100 * a->noise_between, nused, nused == 1 ? "" : "s",
                     100 * a->noise_visits, eps);
    else if (a->noise_rel < a->noise_between)
        rc = an_note(c, "noise: processes differ by %.2g%% in CPU time (median over %zu "
                        "regions), more than %g times the %.2g%% their own visits vary by: "
                        "they do different work, and the noise is taken as %.2g%%; differences "
                        "count from %g s on the whole program, from less on levels of smaller "
                        "regions",
                     100 * a->noise_between, nused, c->o->noise_visit_cap,
                     100 * a->noise_visits, 100 * a->noise_rel, eps);
    else
        rc = an_note(c, "noise: processes doing the same work differ by %.2g%% in CPU time "
                        "(median over %zu regions); differences count from %g s on the "
                        "whole program, from less on levels of smaller regions",
                     100 * a->noise_rel, nused, eps);
    if (!rc && a->noise_one_visit > a->noise_rel)
        rc = an_note(c, "noise of a region visited once: %.2g%%, as much as one visit of the "
                        "program's regions varies (a single visit averages nothing out)",
                     100 * a->noise_one_visit);
    return rc;
}

/* The clustering parameters (MinPts of the run; eps of the top level, or
 * the user's for every level), then the CCR search from the top level. */
static int search_levels(an_ctx *c)
{
    const aa_analyze_options *o = c->o;
    aa_analysis *a = c->a;
    dis_state *ds = &c->ds;
    size_t m = an_nchildren(c, 0), dmp = 2, nused = 0;
    const size_t *set = c->clist + c->cstart[0];
    int any, rc;
    aa_cluster_optics_defaults(NULL, c->P, 0, &dmp, NULL);
    ds->cp.min_pts = o->min_pts ? o->min_pts : dmp;
    ds->fixed_eps = o->eps > 0;
    ds->cp.eps = o->eps;
    if ((rc = region_ranges(c)))
        return rc;
    if (!ds->fixed_eps) {
        if ((rc = noise_model(c, &nused)))
            return rc;
        ds->cp = level_params(ds, set, m);
        if ((rc = an_noise_note(c, a, nused, ds->cp.eps)))
            return rc;
    }
    if (!(ds->cp.eps > 0))
        ds->cp.eps = 1e-300; /* all-zero data: identical points only */
    a->min_pts_used = ds->cp.min_pts;
    a->eps_used = ds->cp.eps;
    return dis_level(ds, 0, set, m, 1, &any);
}

/* Phase: the dissimilarity CCRs (c->ds), level by level. */
int an_dissim_levels(an_ctx *c)
{
    c->ds.c = c;
    c->ds.MM = c->MM;
    return c->P >= 2 ? search_levels(c) : AA_OK;
}

/* The finding whose partition is the processes' clustering: the kept
 * dissimilarity CCCR of the largest impact, the bottleneck the report
 * leads with (an enclosing CCR can hold a larger difference of other
 * processes: the time-step loop where rank 0 is slower overall, above the
 * CCCR where ranks 0 and 2 carry the injected work); a CCR only when no
 * CCCR was kept; an enclosing one before its descendants at equal impact;
 * NULL when there is none. */
int an_reported_before(int cccr, double impact, int best_cccr, double best_impact)
{
    return cccr != best_cccr ? cccr > best_cccr : impact > best_impact;
}

static const dis_found *reported_level(const dis_state *ds)
{
    const dis_found *best = NULL;
    size_t i;
    for (i = 0; i < ds->nfound; i++)
        if (!ds->found[i].dropped &&
            (!best || an_reported_before(ds->found[i].cccr, ds->found[i].impact, best->cccr,
                                         best->impact)))
            best = &ds->found[i];
    return best;
}

/* The OPTICS ordering and reachability of the reported level, kept for the
 * reports' plot (exact OPTICS, the direct method for few dimensions: O(P)
 * memory; up to o->optics_keep processes, by default 4,096: the ordering
 * costs O(P^2), 1.2 s CPU at 16,384 processes, which only the report needs). */

static int keep_optics(an_ctx *c, long level, const an_clust *cp)
{
    aa_analysis *a = c->a;
    size_t P = c->P, R = c->R, m = an_nchildren(c, (size_t)level), q, j;
    const size_t *set = c->clist + c->cstart[level];
    aa_optics_params par;
    aa_optics_result res;
    double *X;
    a->optics_level = level;
    if (P < 2 || P > c->o->optics_keep || m == 0)
        return AA_OK;
    if (!(X = malloc(P * m * sizeof *X)))
        return an_nomem(c);
    for (q = 0; q < P; q++)
        for (j = 0; j < m; j++) {
            double v = c->MM[q * R + set[j]];
            X[q * m + j] = isnan(v) ? 0 : v;
        }
    par.min_pts = cp->min_pts;
    par.eps = cp->eps;
    par.max_eps = INFINITY;
    memset(&res, 0, sizeof res);
    if (aa_cluster_optics(X, P, m, &par, &res, c->err)) {
        free(X);
        return c->err->code ? c->err->code : AA_EENV;
    }
    free(X);
    a->optics_order = res.ordering;
    a->optics_reach = res.reachability;
    res.ordering = NULL;
    res.reachability = NULL;
    aa_cluster_optics_free(&res);
    return AA_OK;
}

/* Phase: the clusters of the processes: the partition of the level of
 * the largest kept dissimilarity (one cluster when there is none); sizes,
 * ranks, mean program metric, in label order (OPTICS order,
 * deterministic). */
int an_dissim_clusters(an_ctx *c)
{
    aa_analysis *a = c->a;
    const dis_found *rep = reported_level(&c->ds);
    size_t P = c->P, R = c->R, q, j, k;
    double *mean;
    int rc;
    a->cluster_of = calloc(P ? P : 1, sizeof *a->cluster_of);
    if (!a->cluster_of)
        return an_nomem(c);
    if (rep) {
        memcpy(a->cluster_of, rep->labels, P * sizeof *a->cluster_of);
        a->eps_used = rep->cp.eps;
    }
    if ((rc = keep_optics(c, rep ? rep->level : 0, rep ? &rep->cp : &c->ds.cp)))
        return rc;
    k = count_labels(a->cluster_of, P);
    mean = calloc(k ? k : 1, sizeof *mean);
    a->nclusters = k;
    a->cluster_size = calloc(k ? k : 1, sizeof *a->cluster_size);
    a->cluster_ranks = calloc(k ? k : 1, sizeof *a->cluster_ranks);
    a->cluster_mean = calloc(k ? k : 1, sizeof *a->cluster_mean);
    if (!mean || !a->cluster_size || !a->cluster_ranks || !a->cluster_mean) {
        free(mean);
        return an_nomem(c);
    }
    for (q = 0; q < P; q++) {
        mean[a->cluster_of[q]] += c->MM[q * R];
        a->cluster_size[a->cluster_of[q]]++;
    }
    for (j = 0; j < k; j++) {
        a->cluster_mean[j] = a->cluster_size[j] ? mean[j] / (double)a->cluster_size[j] : 0;
        a->cluster_ranks[j] = malloc((a->cluster_size[j] ? a->cluster_size[j] : 1) *
                                     sizeof **a->cluster_ranks);
        if (!a->cluster_ranks[j]) {
            free(mean);
            return an_nomem(c);
        }
        a->cluster_size[j] = 0;
    }
    for (q = 0; q < P; q++) {
        size_t l = (size_t)a->cluster_of[q];
        a->cluster_ranks[l][a->cluster_size[l]++] = a->ranks[q];
    }
    free(mean);
    return AA_OK;
}

/* ---- imbalances carried by a few visits ------------------------------------------ */
/* A descheduled process can come back with a few milliseconds more CPU time
 * in whatever region it was in (cold caches, a virtual CPU's stolen time
 * charged to the thread): a heavy tail in one visit that the noise model of
 * the totals (noise.c, a median absolute deviation) does not see, and on a
 * deep level one such visit makes a single process look slow.  The runtime's
 * cpu_sq tells it apart: for process p and region r with n visits of CPU
 * times c_i, V = cpu_sq - cpu^2/n = sum (c_i - mean)^2 is the spread of the
 * total that comes from the visits differing (the variance of the total
 * for independent visits).  The spread every process has (the median V over
 * the processes that ran r: work that varies from step to step, measurement
 * error) is no evidence either way; what a process has beyond it is.  An
 * imbalance is kept when its excess exceeds spike_z standard errors of the
 * slow processes' mean from that excess spread: one 10-ms visit on one
 * process gives a ratio near 1, the same extra work in every one of n
 * visits a ratio growing with sqrt(n).  A region visited once has V = 0:
 * nothing to tell, the imbalance is kept. */

/* The spread of a process's visits to a region that its work outside the
 * calls must carry: V = cpu_sq - cpu^2 / visits of the visits' whole CPU
 * time, less what its CPU time inside MPI and I/O calls there (inside, s)
 * could carry if it all came in one visit, inside^2 (1 - 1 / visits).  A
 * halo function's visits spread by the polling of its MPI_Waitall: suite
 * seed 1746 (late sender, rank 2 3.1x the work before its sends, 12 ms
 * more outside the calls) had V 2.7e-3 s^2 on rank 2 from 58 ms of MPI
 * CPU time and the imbalance was dropped as a spike; the spread left is 0.
 * 0 below 2 visits. */
double an_visit_spread(double visits, double cpu, double cpu_sq, double inside)
{
    double v;
    if (!(visits >= 2) || isnan(cpu) || isnan(cpu_sq))
        return 0;
    v = cpu_sq - cpu * cpu / visits;
    if (inside > 0 && isfinite(inside))
        v -= inside * inside * (1 - 1 / visits);
    return fmax(0, v);
}

/* The CPU time inside MPI and I/O calls (P x R, an_gather; 0 where not
 * measured) into *M, or NULL when neither was. */
static int inside_calls(an_ctx *c, double **M)
{
    size_t k, PR = c->P * c->R;
    int mm, mi, hm = an_metric_usable(c, "mpi_cpu", &mm), hi = an_metric_usable(c, "io_cpu", &mi);
    double *tmp;
    *M = NULL;
    if (!hm && !hi)
        return AA_OK;
    *M = calloc(PR + 1, sizeof **M);
    tmp = malloc((PR + 1) * sizeof *tmp);
    if (!*M || !tmp) {
        free(*M), free(tmp);
        *M = NULL;
        return an_nomem(c);
    }
    for (k = 0; k < 2; k++) {
        size_t i;
        if (!(k ? hi : hm))
            continue;
        an_gather(c, k ? mi : mm, tmp);
        for (i = 0; i < PR; i++)
            (*M)[i] += isfinite(tmp[i]) && tmp[i] > 0 ? tmp[i] : 0;
    }
    free(tmp);
    return AA_OK;
}

/* V (P x R) of every process and region (an_visit_spread), or NULL (*V
 * untouched) when cpu_sq was not measured. */
static int visit_spread(an_ctx *c, double **V)
{
    size_t k;
    double *N, *C, *Q, *M;
    int rc;
    *V = NULL;
    if ((rc = visit_metrics(c, &N, &C, &Q)) || !Q)
        return rc;
    if ((rc = inside_calls(c, &M))) {
        free(N), free(C), free(Q);
        return rc;
    }
    for (k = 0; k < c->P * c->R; k++)
        Q[k] = an_visit_spread(N[k], C[k], Q[k], M ? M[k] : 0);
    free(N), free(C), free(M);
    *V = Q;
    return AA_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The ratio of the slow cluster's excess in region r to the standard error
 * of its mean from its processes' spread beyond the median spread;
 * INFINITY when there is no such spread.  tmp: P doubles. */
static double excess_over_spikes(const an_ctx *c, const double *V, const int *labels, size_t slow,
                                 size_t r, double excess, double *tmp)
{
    size_t q, n = 0, ns = 0;
    double med, e = 0;
    for (q = 0; q < c->P; q++)
        if (c->ran[q * c->R + r])
            tmp[n++] = V[q * c->R + r];
    if (!n)
        return INFINITY;
    qsort(tmp, n, sizeof *tmp, cmp_double);
    med = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
    for (q = 0; q < c->P; q++)
        if (labels[q] == (int)slow) {
            e += fmax(0, V[q * c->R + r] - med);
            ns++;
        }
    if (!ns || !(e > 0))
        return INFINITY;
    return excess / (sqrt(e) / (double)ns);
}

/* The excess of the slow cluster of the partition `labels` in region r's
 * own code: its value less its children's, mean of the slow processes less
 * the mean of the others (may be < 0). */
static double own_excess(const an_ctx *c, const int *labels, size_t r, const double *MM)
{
    size_t slow = dis_slow_cluster(c, labels, r, MM, &(double){0}), q, i, ns = 0, no = 0;
    double ss = 0, so = 0;
    for (q = 0; q < c->P; q++) {
        double v = MM[q * c->R + r];
        for (i = c->cstart[r]; i < c->cstart[r + 1]; i++)
            v -= MM[q * c->R + c->clist[i]];
        if (labels[q] == (int)slow) {
            ss += v;
            ns++;
        } else {
            so += v;
            no++;
        }
    }
    return ns && no ? ss / (double)ns - so / (double)no : 0;
}

/* 1 when a CCR whose descendants hold findings is an innermost one all the
 * same: own_share of its impact (s per slow process) is in its own code and
 * that part alone is a finding (finding_min_share of mmed, the median
 * program metric).  pic-geometric-8 of bench/real_diagnosis.sh: the
 * particle initialisation loop differs by 63 ms, 60 of them in its own
 * code; a 2-ms difference in the random-number helper it calls hid it. */
int an_own_difference(const aa_analyze_options *o, double impact, double own, double mmed)
{
    return impact > 0 && own >= o->own_share * impact && mmed > 0 &&
           own / mmed >= o->finding_min_share;
}

/* ---- what the others are idle: an imbalance's cost, at most ----------------------- *
 * An imbalance costs the run the time the other processes wait for its slow
 * ones.  Two phases heavy on opposite ranks (phase_a 2x on rank 0, phase_b
 * 2x on rank 1) with no synchronization between them are each an imbalance
 * region by region, yet every process does the same work between two
 * synchronizations and nobody waits: balancing one of them alone makes the
 * run slower.  The others' idle time bounds what any imbalance of theirs
 * costs: the latest process's whole-program time (setup MPI out) less
 * their work there (the process metric before the speeds were taken out).
 * On a loaded node that difference holds every time slice the machine
 * gave to others, so a process waits at most its time inside MPI (set-up
 * MPI out): in `recursion` (bench/edge_probes) the latest rank, slow in
 * another region, never waited while the others' CPU time in a leaf was
 * 22% above its own, and wall less work made that 2.3% of the run an
 * imbalance the others are idle for.  Where the processes run at
 * different speeds (speed_normalize), their net excess on the whole
 * program, the speeds taken out, counts as cost as well.  The bound applies
 * only when it is below the excess by more than the whole program's noise
 * (eps): an imbalance the others wait for keeps its excess as its impact. */
double an_idle_bound(double excess, double tmax, double work_o, double mpi_o, double diff_root,
                     double eps)
{
    double bound, idle;
    if (!(excess > 0) || !isfinite(tmax) || !isfinite(work_o) || !isfinite(diff_root))
        return excess;
    idle = tmax - work_o;
    if (isfinite(mpi_o) && mpi_o < idle)
        idle = mpi_o;
    bound = fmax(0, fmax(idle, diff_root));
    return bound < excess - fmax(0, eps) ? bound : excess;
}

int an_made_up_note(an_ctx *c, size_t n)
{
    return an_note(c, "%zu process difference%s made up in other regions before the processes "
                      "synchronize (the others are idle less than the difference: it costs "
                      "nothing) %s not reported (idle_bound)",
                   n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

/* The latest analysed process's whole-program time (NAN: none known). */
static double latest_wpwt(const an_ctx *c)
{
    double t = NAN;
    size_t q;
    for (q = 0; q < c->P; q++)
        if (isfinite(c->wpwt[q]) && !(c->wpwt[q] <= t))
            t = c->wpwt[q];
    return t;
}

/* an_idle_bound of the slow cluster of the partition labels, whose
 * processes spend `excess` beyond the others. */
static double idle_bound(const an_ctx *c, const int *labels, size_t slow, double tmax,
                         double excess)
{
    const double *raw = c->MMraw ? c->MMraw : c->MM;
    double wo = 0, ms = 0, mo = 0, ns = 0, no = 0, mpi = c->idle_mpi ? 0 : NAN;
    size_t q;
    if (!(c->o->idle_bound > 0))
        return excess;
    for (q = 0; q < c->P; q++)
        if (labels[q] == (int)slow) {
            ms += c->MM[q * c->R];
            ns++;
        } else {
            wo += raw[q * c->R];
            mo += c->MM[q * c->R];
            mpi += c->idle_mpi ? c->idle_mpi[q] : 0;
            no++;
        }
    if (!ns || !no)
        return excess;
    return an_idle_bound(excess, tmax, wo / no, mpi / no, ms / ns - mo / no, c->a->eps_used);
}

/* ---- a branch only the slow processes take ---------------------------------------- *
 * Processes with different roles (a coupled model's ocean and atmosphere
 * ranks, I/O server ranks, PME ranks beside the particle ranks) take
 * different branches of one `if` between the same synchronizations: ranks
 * 0-1 spend 60 ms in ocean(), ranks 2-5 30 ms in atmos() instead.  Compared
 * region by region, ocean() is 60 ms "beyond the others" and atmos() an
 * imbalance of ranks 2-5, who are the ones waiting.  What the slow
 * processes spend beyond the others is the branch less the alternative:
 * for a region r no other process ran, b its topmost such ancestor (r
 * itself included) and p b's parent, the alternatives are p's children no
 * slow process ran and some other did; r's impact is scaled by (mean_S(b) -
 * mean_O(alternatives)) / mean_S(b), in [0, 1] -- ocean() 30 ms, atmos() 0
 * (no finding).  Regions every process runs are as before. */

size_t an_branch_set(const aa_analysis *a, const size_t *cstart, const size_t *clist, size_t r,
                     size_t *set)
{
    size_t n = 0, i;
    long u, below = -1; /* the chain's previous region: in the set already */
    for (u = (long)r; u >= 0; below = u, u = a->regions[u].parent) {
        set[n++] = (size_t)u;
        for (i = cstart[u]; i < cstart[u + 1]; i++)
            if ((long)clist[i] != below)
                set[n++] = clist[i];
    }
    return n;
}

void an_branch_add(double *sums, const size_t *set, size_t n, const unsigned char *ran,
                   const double *mm, int slow)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (ran[set[i]]) {
            sums[4 * i + (slow ? 0 : 1)] += 1;
            sums[4 * i + (slow ? 2 : 3)] += isfinite(mm[set[i]]) ? mm[set[i]] : 0;
        }
}

/* the index of region r in set (n when absent) */
static size_t set_index(const size_t *set, size_t n, size_t r)
{
    size_t i;
    for (i = 0; i < n && set[i] != r; i++)
        ;
    return i;
}

double an_branch_share(const aa_analysis *a, const size_t *cstart, const size_t *clist,
                       const size_t *set, size_t n, const double *sums, double ns, double no)
{
    size_t b = set[0], i, j;
    double alt = 0, mine;
    int any = 0;
    if (!(ns > 0) || !(no > 0) || sums[1] > 0)
        return 1;
    while (a->regions[b].parent >= 0) {
        size_t p = (size_t)a->regions[b].parent;
        if ((j = set_index(set, n, p)) == n || sums[4 * j + 1] > 0)
            break;
        b = p;
    }
    if (a->regions[b].parent < 0)
        return 1;
    for (i = cstart[a->regions[b].parent]; i < cstart[a->regions[b].parent + 1]; i++)
        if ((j = set_index(set, n, clist[i])) < n && sums[4 * j] == 0 && sums[4 * j + 1] > 0) {
            alt += sums[4 * j + 3];
            any = 1;
        }
    j = set_index(set, n, b);
    mine = j < n ? sums[4 * j + 2] / ns : 0;
    if (!any || !(mine > 0))
        return 1;
    return fmin(1, fmax(0, (mine - alt / no) / mine));
}

/* The serial analysis's share of found region r (slow: its slow cluster). */
static double branch_share(an_ctx *c, const int *labels, size_t slow, size_t r)
{
    size_t q, n, ns = 0, no = 0, *set;
    double *sums, share = 1;
    for (q = 0; q < c->P; q++)
        if (labels[q] != (int)slow && c->ran[q * c->R + r])
            return 1; /* another process ran it: as before */
    set = malloc((c->R + 1) * sizeof *set);
    sums = calloc(4 * (c->R + 1), sizeof *sums);
    if (set && sums) {
        n = an_branch_set(c->a, c->cstart, c->clist, r, set);
        for (q = 0; q < c->P; q++) {
            int s = labels[q] == (int)slow;
            an_branch_add(sums, set, n, c->ran + q * c->R, c->MM + q * c->R, s);
            ns += s != 0;
            no += s == 0;
        }
        share = an_branch_share(c->a, c->cstart, c->clist, set, n, sums, (double)ns, (double)no);
    }
    free(set);
    free(sums);
    return share;
}

/* ---- imbalances that follow the shared CPUs (placement.c) -------------------------- */
/* The placement keys of the analysed processes, or NULL (*keys) when no
 * process shares its CPU with another (nothing to test). */
int an_place_keys(an_ctx *c, uint64_t **keys)
{
    size_t q;
    uint64_t *k = calloc(c->P ? c->P : 1, sizeof *k);
    int shared = -1;
    *keys = NULL;
    if (k) {
        for (q = 0; q < c->P; q++)
            k[q] = an_place_key(&c->e->processes[c->proc[q]], c->o->placement_min_share);
        shared = an_place_shared(k, c->P);
    }
    if (shared > 0)
        *keys = k;
    else
        free(k);
    return shared < 0 ? an_nomem(c) : AA_OK;
}

/* 1 when the imbalance f (slow cluster `slow`) is the speed of the CPUs the
 * processes shared (placement.c), f->place set; -1 on no memory.  self: the
 * self values (P x R). */
static int place_explained(an_ctx *c, const uint64_t *keys, const double *self, dis_found *f,
                           size_t slow)
{
    an_place_sums s;
    size_t q, k = count_labels(f->labels, c->P);
    double *cl;
    int rc = keys ? an_place_follows(keys, f->labels, c->P) : 0;
    if (rc <= 0)
        return rc;
    if (!(cl = calloc(2 * k + 1, sizeof *cl)))
        return -1;
    if (an_place_sums_init(&s, c->R)) {
        free(cl);
        return -1;
    }
    for (q = 0; q < c->P; q++)
        an_place_cluster_add(cl, f->labels[q], c->MM[q * c->R + f->region]);
    an_place_cluster_means(cl, k);
    for (q = 0; q < c->P; q++)
        an_place_add(&s, f->labels[q] == (int)slow, self + q * c->R, c->ran + q * c->R,
                     c->MM[q * c->R + f->region], f->labels[q] >= 0 ? cl[2 * f->labels[q]] : 0);
    rc = an_place_judge(&s, c->o, c->mmed, k, &f->place);
    an_place_sums_free(&s);
    free(cl);
    return rc;
}

/* The note on the imbalances the placement explains, with the largest
 * one's slow processes and figures. */
static int place_note(an_ctx *c, size_t n, const dis_found *f)
{
    size_t slow = dis_slow_cluster(c, f->labels, f->region, c->MM, &(double){0});
    return an_place_report(c, f->labels, (int)slow, n, f->region, &f->place);
}

/* The note on the kept imbalances whose partition follows the CPUs that
 * too few regions could judge (placement.c), with the largest one's slow
 * processes. */
static int place_undecided_note(an_ctx *c)
{
    const dis_state *ds = &c->ds;
    size_t i, n = 0, top = SIZE_MAX;
    for (i = 0; i < ds->nfound; i++)
        if (!ds->found[i].dropped && ds->found[i].place.undecided) {
            if (top == SIZE_MAX || ds->found[i].impact > ds->found[top].impact)
                top = i;
            n++;
        }
    if (!n)
        return AA_OK;
    return an_place_undecided_report(
        c, ds->found[top].labels,
        (int)dis_slow_cluster(c, ds->found[top].labels, ds->found[top].region, c->MM,
                              &(double){0}),
        n, &ds->found[top].place);
}

/* ---- imbalances that are the processes' speed (speed.c) ------------------------- */
/* The clusters of f's partition apart only by their processes' speed
 * (speed.c, sp) or, in a program of too few regions for that, by their
 * CPUs' measured pace (pace.c, pace non-NULL) made one, while three or
 * more remain; *merged and *by_pace: the most merges in one partition so
 * far, and how many partitions were merged by the pace. */
static int speed_merge(an_ctx *c, const double *sp, const double *pace, size_t k, dis_found *f,
                       size_t *merged, size_t *by_pace)
{
    size_t level = f->level < 0 ? 0 : (size_t)f->level, m = an_nchildren(c, level);
    const size_t *set = c->clist + c->cstart[level];
    size_t K = count_labels(f->labels, c->P), q, j, a, b, n = 0;
    size_t w = pace ? AN_PACE_CSUMS(m) : AN_SPEED_CSUMS(m);
    double *cs, *x;
    if ((!sp && !pace) || K < 3 || K > AN_SPEED_MERGE_MAX || !m)
        return AA_OK;
    cs = malloc(K * w * sizeof *cs);
    x = malloc(m * sizeof *x);
    if (!cs || !x) {
        free(cs), free(x);
        return an_nomem(c);
    }
    while (K >= 3) {
        double best = INFINITY, sc;
        size_t ba = 0, bb = 0;
        memset(cs, 0, K * w * sizeof *cs);
        for (q = 0; q < c->P; q++) {
            double *to = cs + (size_t)f->labels[q] * w;
            for (j = 0; j < m; j++)
                x[j] = c->ran[q * c->R + set[j]] ? c->MM[q * c->R + set[j]] : 0;
            if (pace)
                an_pace_cluster_add(to, m, pace[3 * q] > 0, pace[3 * q + 1], pace[3 * q + 2], x);
            else
                an_speed_cluster_add(to, m, sp[q], sp[c->P + q], x);
        }
        for (a = 0; a < K; a++)
            for (b = a + 1; b < K; b++)
                if ((pace ? an_pace_pair(cs + a * w, cs + b * w, m, c->o, &sc)
                          : an_speed_pair(cs + a * w, cs + b * w, m, k, c->o, &sc)) &&
                    sc < best) {
                    best = sc;
                    ba = a;
                    bb = b;
                }
        if (best == INFINITY)
            break;
        an_speed_merge_labels(f->labels, c->P, (int)ba, (int)bb);
        K--;
        ++n;
    }
    free(cs);
    free(x);
    *merged = n > *merged ? n : *merged;
    *by_pace += n && pace;
    return AA_OK;
}

/* A merge leaves the slow cluster against processes of two clusters that
 * were apart: the level's significance test no longer covers the region
 * itself.  It is tested as the level tests one component
 * (merge_insignificant): the difference of the means against the pooled
 * within-group variance, at least the noise model's, T^2 >= sig^2.  In the
 * edge probe root_io, rank 0 wrote the output and shared the slower CPU
 * with rank 2: compute was {0}, {2}, {1,3} (the CPUs' split beside the
 * writer), and once {2} and {1,3} were one (their pace), rank 0's compute,
 * 0.0907 s against 0.0668, 0.0927 and 0.0660 s, was "an imbalance of
 * 0.0155 s".  Where the pace made the merge, each process's value is
 * first divided by its CPU's pace relative to the processes' mean (the
 * merged cluster's spread is the CPUs' split the merge explained): rank
 * 0's compute is then T 1.8; in cxx_virtual, rank 1's 3x the fluid work
 * against ranks of both CPUs, T 14 (without the division 4.4, below
 * separation_t 6: the imbalance was lost). */
int an_merged_difference(const double *g, const an_clust *cp)
{
    double ns = g[0], no = g[3], ms, mo, d, df, w, fl;
    if (!(cp->sig > 0) || !(ns >= 1 && no >= 1))
        return 1;
    ms = g[1] / ns;
    mo = g[4] / no;
    d = ms - mo;
    if (!(fabs(d) >= cp->res))
        return 0;
    df = ns + no - 2;
    w = df > 0 ? fmax(0, g[2] - ns * ms * ms + g[5] - no * mo * mo) / df : 0;
    fl = cp->sd_floor ? cp->sd_floor[0] * cp->sd_floor[0] : 0;
    w = fmax(w, fl);
    if (!(w > 0))
        return 1;
    return d * d / w / (1 / ns + 1 / no) >= cp->sig * cp->sig;
}

int an_unmerged_note(an_ctx *c, size_t n)
{
    return an_note(c, "%zu process difference%s not significant in %s own region once the "
                      "clusters apart only by speed or pace were made one (not reported)",
                   n, n == 1 ? " is" : "s are", n == 1 ? "its" : "their");
}

/* The sums of an_merged_difference for f's region, slow cluster `slow`;
 * pace (pace_read's, NULL: the speed made the merge): the values divided
 * by each process's pace relative to the mean, when every process has
 * one. */
static int merged_differs(an_ctx *c, const dis_found *f, size_t slow, const double *pace,
                          int *differs)
{
    double g[6] = {0}, mlp = 0;
    an_clust cp = f->cp;
    size_t q;
    int rc;
    for (q = 0; pace && q < c->P; q++)
        if (pace[3 * q] > 0)
            mlp += pace[3 * q + 1] / (double)c->P;
        else
            pace = NULL; /* a process without a pace: the values as they are */
    for (q = 0; q < c->P; q++) {
        double v = c->MM[q * c->R + f->region], *to = g + (f->labels[q] == (int)slow ? 0 : 3);
        v = isnan(v) ? 0 : v / (pace ? exp(pace[3 * q + 1] - mlp) : 1);
        to[0] += 1;
        to[1] += v;
        to[2] += v * v;
    }
    if ((rc = an_level_significance(c, c->ds.spread, c->send, c->ds.fixed_eps, &f->region, 1,
                                    &cp)))
        return rc;
    *differs = an_merged_difference(g, &cp);
    free((double *)cp.sd_floor);
    return AA_OK;
}

/* 1 when the imbalance f (slow cluster `slow`) is the processes' speed,
 * f->spd set. */
static int speed_explained(an_ctx *c, const double *sp, size_t k, dis_found *f, size_t slow)
{
    double v[AN_SPEED_SUMS] = {0};
    size_t q;
    if (!sp)
        return 0;
    for (q = 0; q < c->P; q++)
        an_speed_add(v, f->labels[q] == (int)slow, sp[q], sp[c->P + q],
                     c->MM[q * c->R + f->region]);
    return an_speed_judge(v, k, c->o, c->a->speed_normalized, &f->spd);
}

static int speed_note(an_ctx *c, size_t n, const dis_found *f)
{
    size_t slow = dis_slow_cluster(c, f->labels, f->region, c->MM, &(double){0});
    return an_speed_report(c, f->labels, (int)slow, n, f->region, &f->spd);
}

/* ---- imbalances that are the CPUs' measured pace (pace.c) ---------------------- */
/* The processes' measured paces (3 x P: measured 1/0, log pace, its
 * standard error; an_pace_of) where the program has too few regions (k) to
 * measure their speed from its own code; *pace NULL where the test does
 * not apply. */
static int pace_read(an_ctx *c, size_t k, double **pace)
{
    size_t q;
    *pace = NULL;
    if (k >= AN_PLACE_MIN_REGIONS || !(c->o->pace_k > 0))
        return AA_OK;
    if (!(*pace = malloc((3 * c->P + 1) * sizeof **pace)))
        return an_nomem(c);
    for (q = 0; q < c->P; q++)
        (*pace)[3 * q] = an_pace_of(&c->e->processes[c->proc[q]], &(*pace)[3 * q + 1],
                                    &(*pace)[3 * q + 2]);
    return AA_OK;
}

/* 1 when the imbalance f (slow cluster `slow`) follows the CPUs' measured
 * pace (pace_read's; NULL: not tested), f->pc set. */
static int pace_explained(an_ctx *c, const double *pace, dis_found *f, size_t slow)
{
    double v[AN_PACE_SUMS] = {0};
    size_t q;
    if (!pace)
        return 0;
    for (q = 0; q < c->P; q++)
        an_pace_add(v, f->labels[q] == (int)slow, pace[3 * q] > 0, pace[3 * q + 1],
                    pace[3 * q + 2], c->MM[q * c->R + f->region]);
    return an_pace_judge(v, c->o, &f->pc);
}

static int pace_note(an_ctx *c, size_t n, const dis_found *f)
{
    size_t slow = dis_slow_cluster(c, f->labels, f->region, c->MM, &(double){0});
    return an_pace_report(c, f->labels, (int)slow, n, f->region, &f->pc);
}

/* The i-th imbalance dropped for the reason *why points at; *top keeps the
 * largest one dropped for it (its note names it), *n counts them. */
static void dis_drop(dis_state *ds, size_t i, int *why, size_t *top, size_t *n)
{
    ds->found[i].dropped = *why = 1;
    if (*top == SIZE_MAX || ds->found[i].impact > ds->found[*top].impact)
        *top = i;
    (*n)++;
}

/* Phase: impact of the dissimilarity CCRs; too small ones are dropped, and
 * so are those carried by a few visits (above).  A CCR whose slow
 * processes spend less than finding_min_share of the program's main metric
 * (CPU time outside MPI) beyond the others is no finding; a CCR all of
 * whose CCR descendants were dropped is then the innermost one (a CCCR). */
int an_dissim_impact(an_ctx *c)
{
    dis_state *ds = &c->ds;
    size_t i, j, nspike = 0;
    size_t nplace = 0, place_top = SIZE_MAX, nspeed = 0, speed_top = SIZE_MAX, k = 0;
    size_t nmerged = 0, nmade = 0, npace = 0, pace_top = SIZE_MAX, nmerged_pace = 0, nunmerged = 0;
    double *V = NULL, *tmp = NULL, *self = NULL, *sp = NULL, *pace = NULL, tmax;
    uint64_t *keys = NULL;
    int rc = visit_spread(c, &V);
    if (rc || (rc = an_place_keys(c, &keys))) {
        free(V);
        return rc;
    }
    if ((V && !(tmp = malloc((c->P ? c->P : 1) * sizeof *tmp))) ||
        ((keys || c->o->speed_z > 0) && !(self = malloc((c->P * c->R + 1) * sizeof *self)))) {
        free(V);
        free(tmp);
        free(keys);
        return an_nomem(c);
    }
    c->wmed = an_median_wpwt(c);
    c->mmed = an_median_program_metric(c);
    tmax = latest_wpwt(c);
    if (self)
        an_self_values(c, c->MM, self);
    if ((self && c->o->speed_z > 0 &&
         (rc = an_speeds(c, self, c->o->finding_min_share * c->mmed, &sp, &k))) ||
        (rc = pace_read(c, k, &pace))) {
        free(V), free(tmp), free(keys), free(self), free(sp);
        return rc;
    }
    for (i = 0; i < ds->nfound; i++) {
        dis_found *f = &ds->found[i];
        double imp;
        size_t slow, k0 = count_labels(f->labels, c->P);
        int differs = 1;
        if ((rc = speed_merge(c, sp, pace, k, f, &nmerged, &nmerged_pace)))
            break;
        slow = dis_slow_cluster(c, f->labels, f->region, c->MM, &imp);
        if (count_labels(f->labels, c->P) < k0 && (rc = merged_differs(c, f, slow, pace, &differs)))
            break;
        f->excess = imp *= branch_share(c, f->labels, slow, f->region);
        f->impact = idle_bound(c, f->labels, slow, tmax, imp);
        /* judged on the metric's own scale: on a loaded node the wall time of
         * a run is many times its CPU time */
        f->dropped = c->mmed > 0 && f->impact / c->mmed < c->o->finding_min_share;
        if (f->dropped && !(imp / c->mmed < c->o->finding_min_share)) {
            f->made_up = 1;
            nmade++;
        }
        if (!f->dropped && !differs) {
            f->dropped = f->unmerged = 1;
            nunmerged++;
        }
        if (!f->dropped && V &&
            excess_over_spikes(c, V, f->labels, slow, f->region, imp, tmp) < c->o->spike_z) {
            f->dropped = f->spike = 1;
            nspike++;
        }
        if (!f->dropped && (rc = place_explained(c, keys, self, f, slow))) {
            if (rc < 0)
                break;
            rc = AA_OK;
            dis_drop(ds, i, &f->placement, &place_top, &nplace);
        }
        if (!f->dropped && speed_explained(c, sp, k, f, slow)) {
            dis_drop(ds, i, &f->speed, &speed_top, &nspeed);
        }
        if (!f->dropped && pace_explained(c, pace, f, slow)) {
            dis_drop(ds, i, &f->pace, &pace_top, &npace);
        }
    }
    free(sp);
    free(pace);
    free(V);
    free(tmp);
    free(keys);
    free(self);
    if (rc)
        return an_nomem(c);
    for (i = 0; i < ds->nfound; i++) {
        dis_found *f = &ds->found[i];
        size_t r0 = f->region;
        if (f->dropped)
            continue;
        f->cccr = 1;
        for (j = 0; j < ds->nfound; j++)
            if (j != i && !ds->found[j].dropped && ds->found[j].region > r0 &&
                ds->found[j].region < c->send[r0])
                f->cccr = 0;
        if (!f->cccr && an_own_difference(c->o, f->excess,
                                          fmin(f->impact, own_excess(c, f->labels, f->region, c->MM)),
                                          c->mmed))
            f->cccr = f->own = 1;
    }
    if (nplace && (rc = place_note(c, nplace, &ds->found[place_top])))
        return rc;
    if (nspeed && (rc = speed_note(c, nspeed, &ds->found[speed_top])))
        return rc;
    if (npace && (rc = pace_note(c, npace, &ds->found[pace_top])))
        return rc;
    if ((rc = place_undecided_note(c)))
        return rc;
    if (nmerged && (rc = nmerged_pace ? an_pace_merge_note(c, nmerged)
                                      : an_speed_merge_note(c, nmerged)))
        return rc;
    if (nunmerged && (rc = an_unmerged_note(c, nunmerged)))
        return rc;
    if (nmade && (rc = an_made_up_note(c, nmade)))
        return rc;
    if (nspike)
        return an_note(c, "%zu process difference%s carried by a few visits (the slow processes' "
                          "visits spread beyond the others' by as much as the difference: a "
                          "CPU-time spike, not more work) %s not reported",
                       nspike, nspike == 1 ? "" : "s", nspike == 1 ? "is" : "are");
    return AA_OK;
}

/* The order of the findings: CCCRs by effect (descending), then the other
 * CCRs (a stable insertion sort); NULL on no memory. */
static size_t *dis_order(const dis_state *ds)
{
    size_t *ord = malloc((ds->nfound ? ds->nfound : 1) * sizeof *ord), i, x, y;
    if (!ord)
        return NULL;
    for (i = 0; i < ds->nfound; i++)
        ord[i] = i;
    for (x = 1; x < ds->nfound; x++)
        for (y = x; y > 0; y--) {
            const dis_found *u = &ds->found[ord[y - 1]], *v = &ds->found[ord[y]];
            if ((v->cccr > u->cccr) || (v->cccr == u->cccr && v->effect > u->effect)) {
                size_t t = ord[y];
                ord[y] = ord[y - 1];
                ord[y - 1] = t;
            } else
                break;
        }
    return ord;
}

/* The finding of dissimilarity CCR c->ds.found[i]: its slow cluster, their
 * impact and the others' wait, and (for a CCCR) its root causes. */
/* The MPI wall time of each region's own code by process (c->ds.smpi);
 * left NULL when MPI time is not measured. */
static int self_mpi_wall(an_ctx *c)
{
    size_t P = c->P, R = c->R;
    int mw;
    double *M;
    if (c->ds.smpi || !an_metric_usable(c, "mpi_wall", &mw))
        return AA_OK;
    if (!(M = malloc(P * R * sizeof *M)) || !(c->ds.smpi = malloc(P * R * sizeof *c->ds.smpi))) {
        free(M);
        return an_nomem(c);
    }
    an_gather(c, mw, M);
    an_self_values(c, M, c->ds.smpi);
    free(M);
    return AA_OK;
}

const char *const an_wait_metric[AN_WAIT_KINDS] = {"mpi_coll_wall", "mpi_p2p_wall",
                                                   "mpi_wait_wall", "mpi_rma_wall",
                                                   "mpi_io_wall"};
static const char *const wait_words[AN_WAIT_KINDS] = {
    "collective calls", "point-to-point calls", "MPI_Wait/MPI_Test", "one-sided calls",
    "MPI I/O"};

const char *an_wait_kind(const double *sums, double nw, double ns)
{
    size_t k, best = AN_WAIT_KINDS;
    double most = 0;
    if (!(nw > 0) || !(ns > 0))
        return NULL;
    for (k = 0; k < AN_WAIT_KINDS; k++) {
        double d = sums[k] / nw - sums[AN_WAIT_KINDS + k] / ns;
        if (d > most) {
            most = d;
            best = k;
        }
    }
    return best < AN_WAIT_KINDS ? wait_words[best] : NULL;
}

/* The kind of MPI call the processes outside the slow cluster wait in at
 * region r (an_wait_kind over the processes' own time there). */
static int wait_kind_of(an_ctx *c, const int *labels, int slow, size_t r, aa_finding *f)
{
    size_t P = c->P, R = c->R, q, k, i;
    double sums[2 * AN_WAIT_KINDS] = {0}, nw = 0, ns = 0;
    double *row = malloc((R + 1) * sizeof *row);
    unsigned char *fin = malloc(R + 1);
    int mi;
    if (!row || !fin) {
        free(row), free(fin);
        return an_nomem(c);
    }
    for (q = 0; q < P; q++) {
        if (labels[q] == slow)
            ns += 1;
        else
            nw += 1;
    }
    for (k = 0; k < AN_WAIT_KINDS; k++) {
        if (!an_metric_usable(c, an_wait_metric[k], &mi))
            continue;
        for (q = 0; q < P; q++) {
            double v;
            an_gather_row(c, mi, q, row, fin);
            v = isnan(row[r]) ? 0 : row[r];
            for (i = c->cstart[r]; i < c->cstart[r + 1]; i++)
                v -= isnan(row[c->clist[i]]) ? 0 : row[c->clist[i]];
            sums[(labels[q] == slow ? AN_WAIT_KINDS : 0) + k] += v > 0 ? v : 0;
        }
    }
    f->wait_kind = an_wait_kind(sums, nw, ns);
    free(row), free(fin);
    return AA_OK;
}

/* Where the processes outside the slow cluster wait for it (Scalasca's
 * wait states, from profiles): the region whose own MPI time they exceed
 * the slow processes' by most; f->wait_s is that excess over all of them.
 * Set-up MPI time (MPI_Init, MPI_Finalize: the root and the whole-program
 * chain's functions, and their call sites) is no waiting; the MPI time in
 * the chain's loops is (an MPI_Allreduce in main's time-step loop, as
 * Fortran codes and many C codes write it). */
/* How late the slow processes are from region r (aa_finding late_s): their
 * mean wall time outside MPI there less the others' (NAN without mpi_wall). */
static int late_by(an_ctx *c, const int *labels, int slow, size_t r, double *late)
{
    size_t q, R = c->R;
    double s[4] = {0}, *row;
    unsigned char *fin;
    int mw;
    *late = NAN;
    if (!an_metric_usable(c, "mpi_wall", &mw))
        return AA_OK;
    row = malloc((R + 1) * sizeof *row);
    fin = malloc(R + 1);
    if (!row || !fin) {
        free(row), free(fin);
        return an_nomem(c);
    }
    for (q = 0; q < c->P; q++) {
        double w = c->W[q * R + r], m;
        an_gather_row(c, mw, q, row, fin);
        m = isnan(row[r]) ? 0 : row[r];
        s[labels[q] == slow] += isnan(w) ? 0 : w - m;
        s[2 + (labels[q] == slow)] += 1;
    }
    free(row), free(fin);
    if (s[2] > 0 && s[3] > 0)
        *late = s[1] / s[3] - s[0] / s[2];
    return AA_OK;
}

static int wait_site(an_ctx *c, const int *labels, int slow, aa_finding *f)
{
    size_t P = c->P, R = c->R, q, r, nf = 0, ns = 0;
    double best = 0;
    int rc;
    f->wait_region = -1;
    f->wait_s = NAN;
    f->late_s = NAN;
    if (!c->ds.smpi)
        return AA_OK;
    f->wait_s = 0;
    for (r = 1; r < R; r++) {
        double sf = 0, ss = 0;
        const aa_region *ri = c->a->regions[r].info;
        if ((c->whole[r] && (!ri || ri->kind == AA_KIND_FUNCTION)) || an_is_mpi_setup(ri))
            continue;
        nf = ns = 0;
        for (q = 0; q < P; q++) {
            double v = c->ds.smpi[q * R + r];
            v = isnan(v) ? 0 : v;
            if (labels[q] == slow) {
                ss += v;
                ns++;
            } else {
                sf += v;
                nf++;
            }
        }
        if (nf && ns && sf / (double)nf - ss / (double)ns > best) {
            best = sf / (double)nf - ss / (double)ns;
            f->wait_region = (long)r;
        }
    }
    if (f->wait_region < 0 || best < c->o->resolution_s) {
        f->wait_region = -1;
        return AA_OK;
    }
    if (!(f->wait_ranks = malloc(P * sizeof *f->wait_ranks)))
        return an_nomem(c);
    for (q = 0; q < P; q++)
        if (labels[q] != slow)
            f->wait_ranks[f->nwait++] = c->a->ranks[q];
    f->wait_s = best * (double)f->nwait;
    if ((rc = late_by(c, labels, slow, f->region, &f->late_s)))
        return rc;
    return wait_kind_of(c, labels, slow, (size_t)f->wait_region, f);
}

static int dis_finding(an_ctx *c, size_t i)
{
    const dis_found *df = &c->ds.found[i];
    size_t P = c->P, q, slow;
    aa_finding *f = an_add_finding(c, AA_FINDING_DISSIMILARITY, df->region);
    aa_attrset causes = 0;
    double *val = calloc(c->nattr + 1, sizeof *val), *refv = calloc(c->nattr + 1, sizeof *refv);
    int rc = AA_OK;
    if (!f || !val || !refv) {
        free(val);
        free(refv);
        return an_nomem(c);
    }
    f->ccr = 1;
    f->cccr = df->cccr;
    f->effect = df->effect;
    f->severity = df->severity;
    f->confidence = df->confidence;
    slow = dis_slow_cluster(c, df->labels, df->region, c->MM, &(double){0});
    f->impact_s = df->impact; /* an_dissim_impact's: a branch less its alternative, */
    f->excess_s = df->excess; /* ... at most what the others are idle */
    /* the cluster id where the finding's level has the reported partition */
    f->slow_cluster = aa_cluster_same_partition(df->labels, c->a->cluster_of, P) ? (int)slow : -1;
    f->slow_ranks = malloc(P * sizeof *f->slow_ranks);
    if (!f->slow_ranks) {
        free(val);
        free(refv);
        return an_nomem(c);
    }
    for (q = 0; q < P; q++)
        if (df->labels[q] == (int)slow)
            f->slow_ranks[f->nslow++] = c->a->ranks[q];
    f->run_share = an_share_of_run(f->impact_s, c->run_med);
    if ((rc = self_mpi_wall(c)) || (rc = wait_site(c, df->labels, (int)slow, f))) {
        free(val);
        free(refv);
        return rc;
    }
    if (df->cccr && c->nattr)
        rc = an_dissim_causes(c, i, slow, val, refv, &causes);
    if (!rc)
        rc = an_set_causes(c, f, causes, c->anames, c->adefs, c->nattr, val, refv);
    free(val);
    free(refv);
    return rc;
}

/* Phase: the dissimilarity findings with their root causes. */
int an_dissim_findings(an_ctx *c)
{
    size_t *ord = dis_order(&c->ds), x;
    int rc = AA_OK;
    if (!ord)
        return an_nomem(c);
    for (x = 0; x < c->ds.nfound && !rc; x++)
        if (!c->ds.found[ord[x]].dropped)
            rc = dis_finding(c, ord[x]);
    free(ord);
    return rc;
}

/* ---- suspects: where round 2 should look ------------------------------------ */
/* An imbalance that is not significant on a region may be on a part of it:
 * a loop holding the extra work inside a function whose other loops add
 * their noise.  The two-round flow (SPEC §6) refines the findings of round
 * 1; with none there, it has nowhere to go.  The suspects are the regions
 * whose processes lie widest apart against the noise model, without being
 * a finding: refined in round 2, where a loop is judged on its own, smaller
 * noise.  They are no finding and carry no claim. */
/* Region r's spread in noise standard deviations of a difference between
 * two processes, or -1 when r is no candidate: not a function or loop, a
 * range below the resolution, no noise model there. */
static double suspect_sep(const aa_analysis *a, const double *range, const double *pre,
                          const size_t *send, double resolution, size_t r)
{
    const aa_region *info = a->regions[r].info;
    double s2 = pre[send[r]] - pre[r];
    if (!info || (info->kind != AA_KIND_FUNCTION && info->kind != AA_KIND_LOOP) ||
        !(range[r] >= resolution) || !(s2 > 0))
        return -1;
    return range[r] / (sqrt(2.0 * s2) * a->noise_rel);
}

int an_suspects(aa_analysis *a, const double *range, const double *pre, const size_t *send,
                double resolution)
{
    size_t r, i, n = 0, R = a->nregions;
    size_t best[AN_MAX_SUSPECTS];
    double sep[AN_MAX_SUSPECTS], *z;
    free(a->suspects);
    free(a->suspect_sep);
    a->suspects = NULL;
    a->suspect_sep = NULL;
    a->nsuspects = 0;
    if (!range || !pre || !send || !(a->noise_rel > 0) || R < 2)
        return AA_OK;
    if (!(z = malloc(R * sizeof *z)))
        return -1;
    z[0] = -1;
    for (r = 1; r < R; r++)
        z[r] = suspect_sep(a, range, pre, send, resolution, r);
    for (r = 1; r < R; r++) {
        size_t d;
        int inner = 1, found = 0;
        if (!(z[r] >= AN_SUSPECT_MIN))
            continue;
        for (i = 0; i < a->nfindings && !found; i++)
            found = a->findings[i].kind == AA_FINDING_DISSIMILARITY && a->findings[i].region == r;
        if (found)
            continue;
        /* the innermost only: a region enclosing a wider-than-noise one
         * (main, a time-step loop) would refine everything */
        for (d = r + 1; d < send[r] && inner; d++)
            inner = !(z[d] >= AN_SUSPECT_MIN);
        if (!inner)
            continue;
        /* kept among the widest AN_MAX_SUSPECTS, widest first */
        if (n < AN_MAX_SUSPECTS)
            n++;
        else if (!(z[r] > sep[n - 1]))
            continue;
        for (i = n - 1; i > 0 && sep[i - 1] < z[r]; i--) {
            best[i] = best[i - 1];
            sep[i] = sep[i - 1];
        }
        best[i] = r;
        sep[i] = z[r];
    }
    free(z);
    if (!n)
        return AA_OK;
    a->suspects = malloc(n * sizeof *a->suspects);
    a->suspect_sep = malloc(n * sizeof *a->suspect_sep);
    if (!a->suspects || !a->suspect_sep)
        return -1;
    memcpy(a->suspects, best, n * sizeof *best);
    memcpy(a->suspect_sep, sep, n * sizeof *sep);
    a->nsuspects = n;
    return AA_OK;
}

int an_dissim_suspects(an_ctx *c)
{
    int rc;
    if (c->P < 2 || c->ds.fixed_eps)
        return AA_OK;
    rc = an_suspects(c->a, c->ds.range, c->ds.spread, c->send, c->o->resolution_s);
    return rc ? an_nomem(c) : AA_OK;
}
