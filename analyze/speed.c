/*
 * analyze/speed.c -- process differences that are the processes' speed:
 * slower in every region alike, not in one.
 *
 * A process whose CPU runs slower -- a virtual CPU whose host is busy, a
 * core sharing its execution units with a busy sibling, a lower clock --
 * is charged more CPU time for the same work in every region it runs.
 * The analysis, which clusters processes region by region, then finds it
 * "imbalanced" in whichever regions are large enough to show it.  On the
 * 16-core VM of bench/diagnosis.md's twentieth step, with one process per
 * core, processes doing identical work differed by up to 31% over a run
 * (per-CPU pace measured alone: 172-224 ms for the same work), and 52% of
 * the suite's cases got a false imbalance that way.
 *
 * The processes' speed is measured from the program itself.  Over the
 * regions that could hold a finding by themselves on every process (self
 * value at least finding_min_share of the median program metric), at
 * least AN_PLACE_MIN_REGIONS of them, each process's log excess over the
 * processes' mean log value in a region has a median over the regions (the
 * process's speed u_p) and a spread (1.4826 median absolute deviations,
 * s_p).  An imbalance of region R between its slow processes S and the
 * others F is the speed when
 *  1. the slow processes are slower everywhere: U = mean_S u - mean_F u > 0,
 *     and not more than a CPU's pace can differ: U <= log(speed_max);
 *  2. what is left of the region's difference after the speeds,
 *     D = (mean_S log x_R - mean_F log x_R) - U, is within speed_z x
 *     s x sqrt(1/|S| + 1/|F|), s the processes' mean spread s_p.
 * An injected imbalance stands out of its region's neighbours: over the
 * suite's runs (bench/diagnosis.md, twentieth step) the true imbalances'
 * D / (s sqrt(1/|S| + 1/|F|)) was 6.6 or more (135 on this 2-core VM,
 * 118 on the 16-core one), the false ones of a uniform speed -1.1 to 5.0.
 * More work in every region alike (an uneven decomposition of every loop)
 * looks the same without instruction counts: speed_max keeps the ratios no
 * CPU's pace reaches (miniAMR with lb_opt 0: rank 0 1.7-2.8 times slower
 * in every region), and the note says what it cannot tell.
 * Every statistic is a sum over processes, or a per-process figure from
 * the process's own regions, so that the parallel analysis (parallel.c)
 * reduces the same numbers and takes the same decision.
 */
#include "analyze/an_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void an_speed_region_add(double *rs, size_t R, const double *self, const unsigned char *ran,
                         double min_value)
{
    size_t r;
    for (r = 0; r < R; r++)
        if ((!ran || ran[r]) && self[r] > 0 && self[r] >= min_value) {
            rs[r] += 1;
            rs[R + r] += log(self[r]);
        }
}

int an_speed_process(const double *rs, size_t R, double P, const double *self,
                     const unsigned char *ran, double min_value, double *speed, double *spread,
                     size_t *nregions)
{
    size_t r, k = 0;
    double *e = malloc((R ? R : 1) * sizeof *e);
    *speed = *spread = 0;
    *nregions = 0;
    if (!e)
        return -1;
    for (r = 0; r < R; r++)
        if (rs[r] == P && P > 0 && (!ran || ran[r]) && self[r] > 0 && self[r] >= min_value)
            e[k++] = log(self[r]) - rs[R + r] / P;
    if (k >= AN_PLACE_MIN_REGIONS) {
        *speed = an_quantile(e, k, 0.5);
        for (r = 0; r < k; r++)
            e[r] = fabs(e[r] - *speed);
        *spread = 1.4826 * an_quantile(e, k, 0.5);
        *nregions = k;
    }
    free(e);
    return 0;
}

int an_speeds(an_ctx *c, const double *self, double thr, double **sp, size_t *k)
{
    double *rs = calloc(2 * c->R + 1, sizeof *rs), *v = malloc((2 * c->P + 1) * sizeof *v);
    size_t q;
    int rc = 0;
    *sp = NULL;
    *k = 0;
    if (!rs || !v)
        rc = -1;
    for (q = 0; !rc && q < c->P; q++)
        an_speed_region_add(rs, c->R, self + q * c->R, c->ran + q * c->R, thr);
    for (q = 0; !rc && q < c->P; q++)
        rc = an_speed_process(rs, c->R, (double)c->P, self + q * c->R, c->ran + q * c->R, thr,
                              &v[q], &v[c->P + q], k);
    free(rs);
    if (rc || *k == 0) {
        free(v);
        return rc ? an_nomem(c) : AA_OK;
    }
    *sp = v;
    return AA_OK;
}

void an_speed_add(double *v, int slow, double speed, double spread, double value)
{
    size_t g = slow ? 1 : 0;
    v[g] += 1;
    v[4 + g] += speed;
    v[6] += spread;
    if (value > 0)
        v[2 + g] += log(value);
    else
        v[7] += 1;
}

int an_speed_judge(const double *v, size_t nregions, const aa_analyze_options *o,
                   int normalized, an_speed_verdict *out)
{
    double n0 = v[0], n1 = v[1], s;
    memset(out, 0, sizeof *out);
    if (!(o->speed_z > 0) || nregions < AN_PLACE_MIN_REGIONS || !(n0 >= 1 && n1 >= 1) ||
        v[7] > 0)
        return 0;
    out->nregions = nregions;
    out->diff = v[3] / n1 - v[2] / n0;
    out->speed = v[5] / n1 - v[4] / n0;
    out->spread = v[6] / (n0 + n1);
    s = out->spread * sqrt(1 / n0 + 1 / n1);
    out->z = s > 0 ? (out->diff - out->speed) / s : (out->diff > out->speed ? INFINITY : 0);
    /* with the speeds taken out (speed_normalize) U is about 0: what is left
     * is judged against how much the processes' pace varies from region to
     * region alone */
    return (out->speed > 0 || normalized) && out->speed <= log(o->speed_max) &&
           out->z <= o->speed_z;
}

int an_speed_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                    const an_speed_verdict *v)
{
    free(a->speed_slow);
    a->nspeed_slow = 0;
    if (!(a->speed_slow = malloc((ns ? ns : 1) * sizeof *a->speed_slow)))
        return -1;
    memcpy(a->speed_slow, slow, ns * sizeof *slow);
    a->nspeed_slow = ns;
    a->speed_dropped = n;
    a->speed_region = region;
    a->speed_ratio = expm1(v->diff);
    a->speed_uniform = expm1(v->speed);
    a->speed_spread = v->spread;
    a->speed_regions = v->nregions;
    return 0;
}

void an_speed_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set)
{
    const aa_region *ri = a->speed_region < a->nregions ? a->regions[a->speed_region].info
                                                        : NULL;
    size_t n = a->speed_dropped;
    if (a->speed_normalized)
        snprintf(buf, size,
                 "%zu process difference%s %s the processes' pace varying from region to "
                 "region: ranks %s were %.1f%% slower in %s once the processes' speed was taken "
                 "out, within how much each process's pace varies over the program's %zu "
                 "regions of 1%% or more (+-%.1f%%); not reported as an imbalance",
                 n, n == 1 ? "" : "s", n == 1 ? "is" : "are", slow_set, 100 * a->speed_ratio,
                 ri && ri->name && *ri->name ? ri->name : "the region", a->speed_regions,
                 100 * a->speed_spread);
    else
        snprintf(buf, size,
                 "%zu process difference%s %s the processes' speed: ranks %s were %.1f%% slower in "
                 "%s, and %.1f%% slower in every one of the program's %zu regions of 1%% or more "
                 "alike (+-%.1f%% from region to region) -- a slower processor, not this region's "
                 "work; not reported as an imbalance (more work in every region alike, an uneven "
                 "decomposition of every loop, looks the same without instruction counts)",
                 n, n == 1 ? "" : "s", n == 1 ? "is" : "are", slow_set, 100 * a->speed_ratio,
                 ri && ri->name && *ri->name ? ri->name : "the region", 100 * a->speed_uniform,
                 a->speed_regions, 100 * a->speed_spread);
}

int an_speed_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                    const an_speed_verdict *v)
{
    size_t ns;
    int *r;
    char *set, buf[1024];
    int rc = an_slow_rank_set(c, labels, slow, &r, &ns, &set);
    if (!rc && an_speed_record(c->a, n, region, r, ns, v))
        rc = an_nomem(c);
    if (!rc)
        an_speed_note_text(buf, sizeof buf, c->a, set);
    free(r);
    free(set);
    return rc ? rc : an_note(c, "%s", buf);
}

/* ---- the processes' speed taken out ------------------------------------------ */
/* A process's factor: 1 / its pace (exp(-u)) when its speed was measured
 * (nregions) and is within speed_max either way, else 1. */
double an_speed_factor(double u, size_t nregions, double speed_max)
{
    if (nregions < AN_PLACE_MIN_REGIONS || !(fabs(u) <= log(speed_max)))
        return 1;
    return exp(-u);
}

/* MM (n rows of R, inclusive, its CPU part C0 before the I/O and blocked
 * time were added) with each row's CPU part scaled by its factor f. */
void an_speed_apply(double *mm, const double *c0, const double *f, size_t n, size_t R)
{
    size_t q, r;
    for (q = 0; q < n; q++)
        for (r = 0; r < R; r++)
            mm[q * R + r] += c0[q * R + r] * (f[q] - 1);
}

int an_speed_normalized_note(an_ctx *c, const aa_analysis *a)
{
    return an_note(c, "the processes' speed taken out before comparing them: each process's CPU "
                      "time outside the calls divided by its pace over the program's regions "
                      "(from %.1f%% faster to %.1f%% slower than the mean); the noise is measured "
                      "on the values as they were",
                   100 * (1 - a->speed_lo), 100 * (a->speed_hi - 1));
}

/* ---- clusters apart only by their processes' speed --------------------------- */
/* A level's partition can split processes that do the same work when some
 * of them are slower in every region: the injected imbalance's slow ranks
 * {1, 3} become {1} | {3} when rank 1's CPU is 12% slower, and the right
 * diagnosis ("ranks 1 and 3") is lost.  Two clusters a and b of a
 * partition with three or more are one when the difference of their
 * processes' speeds (U = mean_a u - mean_b u, at most log(speed_max)) is
 * all they differ by on every component of the level they can be compared
 * on: |D_j - U| within speed_z standard errors (D_j the mean log ratio of
 * component j; the standard error s x sqrt(1/|a| + 1/|b|) as in
 * an_speed_judge), or what the speed leaves of D_j below the resolution in
 * seconds (the 16-core VM's exchange_halo and global_sum, 0.1 ms of CPU
 * time beside their MPI calls varying by 50% between processes, kept rank
 * 0, 5% slower everywhere, a cluster of its own: 8 of 432 partitions).
 * U itself need not be significant: clusters whose every component differs
 * by less than their processes' region-to-region spread explains were cut
 * apart by a noise model tighter than that spread (3 partitions more of
 * 1,368 runs, none lost; bench/diagnosis.md, twenty-second step). */
void an_speed_cluster_add(double *cs, size_t m, double speed, double spread, const double *x)
{
    size_t j;
    cs[0] += 1;
    cs[1] += speed;
    cs[2] += spread;
    for (j = 0; j < m; j++) {
        if (x[j] > 0)
            cs[3 + 2 * j] += log(x[j]);
        else
            cs[4 + 2 * j] += 1;
    }
}

int an_speed_pair(const double *ca, const double *cb, size_t m, size_t nregions,
                  const aa_analyze_options *o, double *score)
{
    double na = ca[0], nb = cb[0], U, se, worst = 0;
    size_t j, used = 0;
    *score = INFINITY;
    if (!(o->speed_z > 0) || nregions < AN_PLACE_MIN_REGIONS || !(na >= 1 && nb >= 1))
        return 0;
    U = ca[1] / na - cb[1] / nb;
    se = (ca[2] + cb[2]) / (na + nb) * sqrt(1 / na + 1 / nb);
    if (!(se > 0) || !(fabs(U) <= log(o->speed_max)))
        return 0;
    for (j = 0; j < m; j++) {
        double la, lb, z;
        if (ca[4 + 2 * j] > 0 || cb[4 + 2 * j] > 0)
            continue;
        la = ca[3 + 2 * j] / na;
        lb = cb[3 + 2 * j] / nb;
        used++;
        /* what the speed leaves of the component's difference, in seconds
         * (geometric means): below the resolution it is no difference, as
         * in the significance test (a region of a few MPI calls' CPU time
         * varies by 50% and more) */
        if (!(fabs(exp(la) - exp(lb + U)) >= o->resolution_s))
            continue;
        z = fabs(la - lb - U) / se;
        worst = z > worst ? z : worst;
    }
    if (!used || worst > o->speed_z)
        return 0;
    *score = worst;
    return 1;
}

void an_speed_merge_labels(int *labels, size_t n, int a, int b)
{
    size_t i;
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (i = 0; i < n; i++)
        if (labels[i] == hi)
            labels[i] = lo;
        else if (labels[i] > hi)
            labels[i]--;
}

int an_speed_merge_note(an_ctx *c, size_t n)
{
    return an_note(c, "%zu cluster%s apart from another only by %s processes' speed (slower in "
                      "every region alike, by as much as they differ on every region of the "
                      "level) made one with it",
                   n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
}
