/*
 * analyze/analyze.c -- the offline analysis of SPEC §5: the entry point
 * (aa_analyze_run, aa_analyze_free), notes, and the order of the phases,
 * each in its file:
 * 1. Region tree (tree.c): the calling-context nodes of every thread of
 *    every analysed process are merged into one tree whose nodes are
 *    identified by their path of static region ids (threads of a process
 *    are summed).
 * 2. Metrics (metrics.c): wall time, whole-program time, the main metric.
 * 3. Disparity (disparity.c, §5.2, §5.3): CRNM (or CPI, or wall fraction)
 *    on self values averaged over processes, 5 severity classes by exact
 *    1-D k-means, CCR/CCCR.
 * 4. Dissimilarity (dissim.c, §5.1, §5.3): per-process vectors of the main
 *    metric (CPU time outside MPI, or wall time outside MPI) over the
 *    regions of one tree level, clustered with OPTICS; CCR tests by
 *    removing a component and by clustering a component alone; recursion
 *    into the children of CCRs.
 * 5. Root causes (causes.c, §5.4): one dissimilarity decision table per
 *    dissimilarity CCCR and one disparity table, analysed with roughset/.
 * 6. Dynamic imbalance (dynamic.c): processes alike in total that wait at
 *    each step for whichever had the most work in it (before the
 *    disparity findings: its waits are its cost, no hotspot).
 * 7. Findings (findings.c): confidence, and one ranking across kinds.
 * Values are inclusive (every metric except wall_excl is recorded inclusive);
 * see docs/analysis.md for the exact definitions.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <stdlib.h>
#include <string.h>

int an_strlist_add(char ***list, size_t *n, const char *s)
{
    char **nl = realloc(*list, (*n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    *list = nl;
    if (!(nl[*n] = aa_strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

void an_strlist_free(char **list, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int an_nomem(an_ctx *c)
{
    return aa_err_set(c->err, AA_EENV, "analyze: out of memory");
}

int an_note(an_ctx *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return an_strlist_add(&c->a->notes, &c->a->nnotes, buf) ? an_nomem(c) : AA_OK;
}

/* The phases of the analysis, in order: each reads what the ones before it
 * left in the context. */
static int (*const phases[])(an_ctx *) = {
    an_select_processes,     /* analysed processes, master, region tree */
    an_region_list,          /* kept regions in preorder, who ran them */
    an_subtree_ends,
    an_dissim_applicable,    /* a single process: nothing to compare */
    an_partial_values,       /* note on throttled (partial) contexts */
    an_metric_buffers,
    an_wall_wpwt,            /* wall time, whole-program wall time */
    an_whole_program,        /* regions standing for the program, WPWT */
    an_main_metric,          /* time outside MPI the processes are compared on */
    an_disparity_classes,    /* region values, severity classes */
    an_dissim_levels,        /* OPTICS per tree level, dissimilarity CCRs */
    an_attributes,           /* root-cause attributes and their values */
    an_dissim_impact,        /* impact, dropped CCRs, CCCRs */
    an_dissim_clusters,      /* the processes' clusters: the largest finding's level */
    an_dissim_findings,      /* with rough-set root causes */
    an_dissim_suspects,      /* where to look in round 2 */
    an_dynamic_findings,     /* dynamic.c: imbalance moving between processes */
    an_disparity_findings,   /* disparity CCRs with root causes */
    an_disparity_confidence,
    an_rank_findings,        /* all findings in one order */
    an_history_apply,        /* history.c: knowledge of earlier runs, when given */
};

static int run(an_ctx *c)
{
    size_t i;
    int rc;
    for (i = 0; i < sizeof phases / sizeof phases[0]; i++)
        if ((rc = phases[i](c)))
            return rc;
    return AA_OK;
}

static void ctx_free(an_ctx *c)
{
    size_t p, i;
    for (i = 0; i < c->ds.nfound; i++)
        free(c->ds.found[i].labels);
    free(c->ds.found);
    free(c->ds.spread);
    free(c->ds.range);
    free(c->ds.smpi);
    if (c->dcols)
        for (i = 0; i < c->ds.nfound; i++)
            free(c->dcols[i]);
    free(c->dcols);
    free(c->aval);
    free(c->traffic_rate);
    free(c->traffic_size);
    free(c->disk_rate);
    free(c->MMraw);
    free(c->adefs);
    free(c->anames);
    free(c->cand);
    free(c->MM);
    free(c->W);
    free(c->SW);
    free(c->SWmpi);
    free(c->blocked);
    free(c->T1);
    free(c->T2);
    free(c->fixm);
    free(c->callm);
    free(c->send);
    if (c->map)
        for (p = 0; p < c->e->nprocesses; p++)
            free(c->map[p]);
    free(c->map);
    free(c->mapoff);
    an_rtree_free(&c->tree);
    free(c->proc);
    free(c->t2r);
    free(c->r2t);
    free(c->cstart);
    free(c->clist);
    free(c->ran);
    free(c->wpwt);
    free(c->idle_mpi);
    free(c->dwpwt);
    free(c->whole);
    free(c->dobj);
    free(c->exroot);
}

int aa_analyze_run(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **out,
                   aa_err *err)
{
    an_ctx c;
    aa_analyze_options defo;
    aa_analysis *a;
    int rc;
    *out = NULL;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "analyze: no experiment");
    if (!o) {
        aa_analyze_options_init(&defo);
        o = &defo;
    }
    a = calloc(1, sizeof *a);
    if (!a)
        return aa_err_set(err, AA_EENV, "analyze: out of memory");
    a->exp = e;
    a->proc_metric = "cpu";
    a->region_metric = "crnm";
    a->excluded_ranks = calloc(e->nprocesses + 1, sizeof *a->excluded_ranks);
    memset(&c, 0, sizeof c);
    c.e = e;
    c.o = o;
    c.a = a;
    c.err = err;
    if (!a->excluded_ranks)
        rc = aa_err_set(err, AA_EENV, "analyze: out of memory");
    else if (e->nprocesses == 0)
        rc = aa_err_set(err, AA_EINPUT, "experiment has no processes");
    else
        rc = run(&c);
    ctx_free(&c);
    if (rc) {
        aa_analyze_free(a);
        return rc;
    }
    *out = a;
    return AA_OK;
}

int aa_analyze_add_note(aa_analysis *a, const char *note)
{
    return an_strlist_add(&a->notes, &a->nnotes, note) ? AA_EENV : AA_OK;
}

void an_finding_free(aa_finding *f)
{
    size_t j;
    for (j = 0; j < f->ncauses; j++) {
        free(f->causes[j]);
        free(f->evidence[j].attribute);
    }
    free(f->causes);
    free(f->evidence);
    free(f->suggestion);
    free(f->slow_ranks);
    free(f->wait_ranks);
    free(f->contexts);
}

void aa_analyze_free(aa_analysis *a)
{
    size_t i;
    if (!a)
        return;
    free(a->regions);
    free(a->io_call_cost);
    free(a->speed_factor);
    free(a->cluster_size);
    if (a->cluster_ranks)
        for (i = 0; i < a->nclusters; i++)
            free(a->cluster_ranks[i]);
    free(a->cluster_ranks);
    free(a->excluded_ranks);
    free(a->severity);
    free(a->region_value);
    for (i = 0; i < a->nfindings; i++)
        an_finding_free(&a->findings[i]);
    free(a->findings);
    an_history_free(a->history);
    free(a->suspects);
    free(a->placement_slow);
    free(a->speed_slow);
    free(a->pace_slow);
    free(a->suspect_sep);
    an_strlist_free(a->core_dissim, a->ncore_dissim);
    an_strlist_free(a->core_disp, a->ncore_disp);
    an_strlist_free(a->unavailable, a->nunavailable);
    an_strlist_free(a->notes, a->nnotes);
    an_strlist_free(a->attributes, a->nattributes);
    free(a->ranks);
    free(a->cluster_of);
    free(a->optics_order);
    free(a->optics_reach);
    free(a->cluster_mean);
    free(a);
}

