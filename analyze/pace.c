/*
 * analyze/pace.c -- process differences that follow the CPUs' measured
 * pace, in programs with too few regions to measure the processes' speed
 * from their own code.
 *
 * On an oversubscribed node the same work costs the processes of one
 * virtual CPU up to 1.6 times the CPU time it costs those of another (the
 * host shares the physical core).  The speed test (speed.c) and the
 * placement test (placement.c) tell that from work by comparing the
 * region with the program's other regions, which needs
 * AN_PLACE_MIN_REGIONS regions of finding_min_share or more; a program of
 * one to four such regions had its CPUs' split reported as an imbalance
 * (bench/diagnosis.md, thirty-second step: 8 of the edge probes' 60
 * checks).  The runtime times a fixed spin at its placement samples
 * (runtime/probe.c pace_sample) and records the mean of the middle half of
 * those times (aa_process_pace): the CPU's pace while the process ran.
 *
 * An imbalance of region R between its slow processes S and the others F
 * is the CPUs' pace when every process has a measured pace and
 *  1. the slow processes' CPUs were slower: U = mean_S log pace - mean_F
 *     log pace > 0, by pace_z standard errors or more (each process's
 *     standard error 1.4826 MAD / (pace sqrt(samples)));
 *  2. the region's difference D = mean_S log x_R - mean_F log x_R is at
 *     most pace_k x U.
 * The spin is short and the work is long: the CPU time of the same work
 * moves more than the spin's median does (the work runs through the
 * host's busy periods the median leaves out).  Over balanced runs the
 * ratio D / U of the CPUs' splits was 1.5-1.9 (bench/diagnosis.md,
 * thirty-third step, with both sides' figures): pace_k is set above it.
 * More work on processes that happen to run on a slower CPU, by less than
 * that, looks the same, and the note says so.
 *
 * The same measure makes one of two clusters of a partition of three or
 * more that are apart only by their CPUs' pace (an_pace_pair), as the
 * speed does in larger programs (speed.c an_speed_pair): four balanced
 * ranks on two CPUs, one rank alone on the faster one and two sharing the
 * slower one, were three clusters beside the slow rank's own (the edge
 * probe cxx_virtual, bench/diagnosis.md thirty-fourth step).  Every
 * component of the level on which the clusters differ by the resolution
 * or more must differ in the pace's direction, by at most pace_k times
 * the pace's log ratio, and the most different one by 1/pace_k times or
 * more (the ratio the calibration measured on the imbalance's region):
 * less than that on the slower CPU's cluster is less work there that the
 * pace hides (a level of one component, the loop around a kernel that is
 * 1.8 times the work on the slower CPU and 1.3 times its pace, made one
 * of clusters that differ by work).  A component beside it may show less
 * of the pace: in fnptr_dispatch `gather` was 0.28 times the spin's log
 * ratio slower where `smooth_coarse` was 1.2 times.  With one process per core
 * of a quiet node the paces are alike, U is not significant, and nothing
 * here applies.  The statistics are sums over processes, so that the
 * parallel analysis (parallel.c) reduces the same numbers and takes the
 * same decision.
 */
#include "analyze/an_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int an_pace_of(const aa_process *p, double *lp, double *se)
{
    double ns, mad, n;
    *lp = *se = 0;
    if (!aa_process_pace(p, &ns, &mad, &n))
        return 0;
    *lp = log(ns);
    *se = 1.4826 * mad / (ns * sqrt(n));
    return 1;
}

void an_pace_add(double *v, int slow, int measured, double lp, double se, double value)
{
    size_t g = slow ? 1 : 0;
    v[g] += 1;
    if (!measured)
        v[6] += 1;
    v[2 + g] += lp;
    v[4 + g] += se * se;
    if (value > 0)
        v[7 + g] += log(value);
    else
        v[9] += 1;
}

int an_pace_judge(const double *v, const aa_analyze_options *o, an_pace_verdict *out)
{
    double n0 = v[0], n1 = v[1];
    memset(out, 0, sizeof *out);
    if (!(o->pace_k > 0) || !(n0 >= 1 && n1 >= 1) || v[6] > 0 || v[9] > 0)
        return 0;
    out->diff = v[8] / n1 - v[7] / n0;
    out->pace = v[3] / n1 - v[2] / n0;
    out->se = sqrt(v[5] / (n1 * n1) + v[4] / (n0 * n0));
    out->z = out->se > 0 ? out->pace / out->se : (out->pace > 0 ? INFINITY : 0);
    return out->pace > 0 && out->z >= o->pace_z && out->diff <= o->pace_k * out->pace;
}

void an_pace_cluster_add(double *cs, size_t m, int measured, double lp, double se,
                         const double *x)
{
    size_t j;
    cs[0] += 1;
    cs[1] += lp;
    cs[2] += se * se;
    if (!measured)
        cs[3] += 1;
    for (j = 0; j < m; j++) {
        if (x[j] > 0)
            cs[4 + 2 * j] += log(x[j]);
        else
            cs[5 + 2 * j] += 1;
    }
}

int an_pace_pair(const double *ca, const double *cb, size_t m, const aa_analyze_options *o,
                 double *score)
{
    double na = ca[0], nb = cb[0], U, se, worst = 0, dir;
    size_t j, used = 0;
    *score = INFINITY;
    if (!(o->pace_k > 0) || !(na >= 1 && nb >= 1) || ca[3] > 0 || cb[3] > 0)
        return 0;
    U = ca[1] / na - cb[1] / nb;
    se = sqrt(ca[2] / (na * na) + cb[2] / (nb * nb));
    if (!(fabs(U) > 0) || !(se > 0 ? fabs(U) / se >= o->pace_z : 1))
        return 0;
    dir = U > 0 ? 1 : -1;
    for (j = 0; j < m; j++) {
        double la, lb, d;
        if (ca[5 + 2 * j] > 0 || cb[5 + 2 * j] > 0) {
            if (ca[5 + 2 * j] < na || cb[5 + 2 * j] < nb)
                return 0; /* run by some processes of one cluster only: work */
            continue;
        }
        la = ca[4 + 2 * j] / na;
        lb = cb[4 + 2 * j] / nb;
        /* geometric means closer than the resolution: no difference */
        if (!(fabs(exp(la) - exp(lb)) >= o->resolution_s))
            continue;
        d = dir * (la - lb) / fabs(U);
        if (!(d >= 0 && d <= o->pace_k))
            return 0;
        worst = d > worst ? d : worst;
        used++;
    }
    if (used && !(worst >= 1 / o->pace_k))
        return 0;
    *score = worst;
    return 1;
}

int an_pace_merge_note(an_ctx *c, size_t n)
{
    return an_note(c, "%zu cluster%s apart from another only by the CPUs' measured pace (every "
                      "region of the level slower on the slower CPUs' processes, by at most "
                      "pace_k times the spin's ratio) made one with it",
                   n, n == 1 ? "" : "s");
}

int an_pace_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                   const an_pace_verdict *v)
{
    free(a->pace_slow);
    a->npace_slow = 0;
    if (!(a->pace_slow = malloc((ns ? ns : 1) * sizeof *a->pace_slow)))
        return -1;
    memcpy(a->pace_slow, slow, ns * sizeof *slow);
    a->npace_slow = ns;
    a->pace_dropped = n;
    a->pace_region = region;
    a->pace_ratio = expm1(v->diff);
    a->pace_slower = expm1(v->pace);
    a->pace_se = v->se;
    return 0;
}

void an_pace_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set,
                       double pace_k)
{
    const aa_region *ri = a->pace_region < a->nregions ? a->regions[a->pace_region].info : NULL;
    size_t n = a->pace_dropped;
    snprintf(buf, size,
             "%zu process difference%s %s the CPUs' pace: ranks %s were %.1f%% slower in %s, and "
             "a fixed spin timed during the run was %.1f%% (+-%.1f%%) slower on their CPUs, "
             "which explains up to %.1f%% (pace_k %g); not reported as an imbalance (the "
             "program has too few regions to compare them with; more work on the processes "
             "of a slower CPU, by less than that, looks the same)",
             n, n == 1 ? "" : "s", n == 1 ? "follows" : "follow", slow_set, 100 * a->pace_ratio,
             ri && ri->name && *ri->name ? ri->name : "the region", 100 * a->pace_slower,
             100 * a->pace_se, 100 * expm1(pace_k * log1p(a->pace_slower)), pace_k);
}

int an_pace_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                   const an_pace_verdict *v)
{
    size_t ns;
    int *r;
    char *set, buf[1024];
    int rc = an_slow_rank_set(c, labels, slow, &r, &ns, &set);
    if (!rc && an_pace_record(c->a, n, region, r, ns, v))
        rc = an_nomem(c);
    if (!rc)
        an_pace_note_text(buf, sizeof buf, c->a, set, c->o->pace_k);
    free(r);
    free(set);
    return rc ? rc : an_note(c, "%s", buf);
}
