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
    return nf;
}

/* All findings in one order, across kinds: CCCRs first, then by impact
 * (seconds) descending; stable, so equal impacts keep the analysis' order. */
void an_rank_findings(aa_analysis *a)
{
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
}
