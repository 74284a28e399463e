/*
 * analyze/findings.c -- the findings of the analysis: adding one, the
 * confidence of the disparity findings from per-process values, and the
 * global ranking of all findings (CCCRs first, then by impact).
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings --------------------------------------------------------------- */
const char *aa_finding_kind_name(aa_finding_kind k)
{
    return k == AA_FINDING_DISSIMILARITY ? "dissimilarity"
           : k == AA_FINDING_DYNAMIC     ? "dynamic"
                                         : "disparity";
}

aa_finding *an_add_finding(an_ctx *c, aa_finding_kind kind, size_t region)
{
    aa_analysis *a = c->a;
    aa_finding *nf = realloc(a->findings, (a->nfindings + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    a->findings = nf;
    nf += a->nfindings++;
    memset(nf, 0, sizeof *nf);
    nf->kind = kind;
    nf->region = region;
    nf->severity_class = -1;
    nf->slow_cluster = -1;
    nf->wait_region = -1;
    return nf;
}

/* All findings in one order, across kinds: CCCRs first, then by impact
 * (seconds) descending; stable, so equal impacts keep the analysis' order. */
int an_rank_findings(an_ctx *c)
{
    aa_analysis *a = c->a;
    size_t x, y;
    for (x = 1; x < a->nfindings; x++)
        for (y = x; y > 0; y--) {
            aa_finding *u = &a->findings[y - 1], *v = &a->findings[y], t;
            if (v->cccr > u->cccr || (v->cccr == u->cccr && v->impact_s > u->impact_s)) {
                t = *u;
                *u = *v;
                *v = t;
            } else
                break;
        }
    return AA_OK;
}

/* The class boundary of the disparity: the midpoint between the smallest
 * CCR value and the largest value of the other classified regions
 * (infinite without CCRs). */
static double disp_boundary(const an_ctx *c)
{
    const aa_analysis *a = c->a;
    double lo = INFINITY, hi = 0;
    size_t i;
    for (i = 0; i < c->ndobj; i++) {
        size_t r = c->dobj[i];
        if (a->severity[r] >= 3 && a->region_value[r] < lo)
            lo = a->region_value[r];
        if (a->severity[r] < 3 && a->region_value[r] > hi)
            hi = a->region_value[r];
    }
    return isfinite(lo) ? (lo + hi) / 2 : INFINITY;
}

/* Process q's own value of region r (the region metric on its self time,
 * as the disparity values; cycles in T1, instructions in T2 when cyc_ok);
 * *ran: 1 when q ran it. */
static double own_metric(const an_ctx *c, size_t q, size_t r, int cyc_ok, int *ran)
{
    size_t k = q * c->R + r;
    const double *SW = c->SW, *T1 = c->T1, *T2 = c->T2;
    double frac, cpi = 0;
    frac = (c->dwpwt[q] > 0 && !isnan(SW[k])) ? fmin(1, SW[k] / c->dwpwt[q]) : 0;
    if (cyc_ok && c->ran[k] && !isnan(T1[k]) && !isnan(T2[k]) && T2[k] > 0)
        cpi = T1[k] / T2[k];
    *ran |= c->ran[k] != 0;
    return c->ran[k] ? an_region_metric_value(c->a, frac, cpi) : 0;
}

/* The share of processes on which finding f's own value (over its calling
 * contexts when it has several) lies above thr. */
static double process_share(const an_ctx *c, const aa_finding *f, double thr, int cyc_ok)
{
    size_t q, i, good = 0, P = c->P;
    for (q = 0; q < P; q++) {
        double v = 0;
        int ran = 0;
        for (i = 0; i < an_finding_nnodes(f); i++)
            v += own_metric(c, q, an_finding_node(f, i), cyc_ok, &ran);
        if (ran && v > thr)
            good++;
    }
    return P ? (double)good / (double)P : 0;
}

/* Phase: the confidence of the disparity findings: the share of processes
 * on which the region's own value (same metric) lies above the class
 * boundary. */
int an_disparity_confidence(an_ctx *c)
{
    aa_analysis *a = c->a;
    double thr;
    size_t i;
    int cyc_ok;
    if (!c->ndobj)
        return AA_OK;
    thr = disp_boundary(c);
    cyc_ok = 0;
    if (c->cpi_ok) {
        size_t fc, fi;
        an_gather2(c, c->m_cyc, c->T1, c->m_ins, c->T2, &fc, &fi);
        cyc_ok = fc > 0 && fi > 0;
    }
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISPARITY)
            a->findings[i].confidence = process_share(c, &a->findings[i], thr, cyc_ok);
    return AA_OK;
}

/* for the parallel analysis (parallel.c) */
double an_disparity_boundary(const an_ctx *c)
{
    return disp_boundary(c);
}
