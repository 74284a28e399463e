/*
 * analyze/history.c -- the history-guided analysis (Karavanic's directives,
 * seed chapter 5): the knowledge of earlier runs given in
 * aa_analyze_options.history is applied to the findings after they are
 * ranked.  Prunes remove the findings in pruned regions; learned run-to-run
 * noise raises a region's noise floor, so an imbalance the region's time
 * varies by between runs of the same version is removed; priorities (regions
 * where earlier runs found bottlenecks) mark the findings there and put them
 * first among findings of equal rank.  aa_analysis.history records what was
 * used and what it did; the renderings say so (text, JSON, XML).
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_NOISE_FACTOR 3.0

void an_history_free(aa_an_history *h)
{
    size_t i;
    if (!h)
        return;
    for (i = 0; i < h->nprunes; i++) {
        free(h->prunes[i].resource);
        free(h->prunes[i].reason);
    }
    free(h->prunes);
    free(h->source);
    free(h->priority_runs);
    free(h->noise_runs);
    free(h);
}

static long long *copy_eids(const long long *v, size_t n)
{
    long long *c = calloc(n + 1, sizeof *c);
    if (c && n)
        memcpy(c, v, n * sizeof *c);
    return c;
}

/* The record of what is used: one entry per pruned resource, the runs. */
static aa_an_history *history_record(const aa_analyze_history *in)
{
    aa_an_history *h = calloc(1, sizeof *h);
    size_t i, k;
    if (!h)
        return NULL;
    h->source = aa_strdup(in->source ? in->source : "");
    h->prunes = calloc(in->nprunes + 1, sizeof *h->prunes);
    h->priority_runs = copy_eids(in->priority_runs, in->npriority_runs);
    h->noise_runs = copy_eids(in->noise_runs, in->nnoise_runs);
    if (!h->source || !h->prunes || !h->priority_runs || !h->noise_runs) {
        an_history_free(h);
        return NULL;
    }
    h->npriority_runs = in->npriority_runs;
    h->nnoise_runs = in->nnoise_runs;
    h->npriorities = in->npriorities;
    h->nnoise = in->nnoise;
    h->noise_factor = in->noise_factor > 0 ? in->noise_factor : HISTORY_NOISE_FACTOR;
    for (i = 0; i < in->nprunes; i++) {
        const char *res = in->prunes[i].resource ? in->prunes[i].resource : "";
        for (k = 0; k < h->nprunes; k++)
            if (strcmp(h->prunes[k].resource, res) == 0)
                break;
        if (k == h->nprunes) {
            h->prunes[k].resource = aa_strdup(res);
            h->prunes[k].reason = aa_strdup(in->prunes[i].reason ? in->prunes[i].reason : "");
            if (!h->prunes[k].resource || !h->prunes[k].reason) {
                h->nprunes++;
                an_history_free(h);
                return NULL;
            }
            h->nprunes++;
        }
    }
    return h;
}

/* The prune covering region id (its entry in h->prunes), or -1. */
static long pruned_by(const aa_analyze_history *in, const aa_an_history *h, uint32_t id)
{
    size_t i, k;
    for (i = 0; i < in->nprunes; i++)
        if (in->prunes[i].region_id == id) {
            const char *res = in->prunes[i].resource ? in->prunes[i].resource : "";
            for (k = 0; k < h->nprunes; k++)
                if (strcmp(h->prunes[k].resource, res) == 0)
                    return (long)k;
        }
    return -1;
}

static double learned_noise(const aa_analyze_history *in, uint32_t id)
{
    size_t i;
    for (i = 0; i < in->nnoise; i++)
        if (in->noise_ids[i] == id)
            return in->noise_spread[i];
    return NAN;
}

static size_t priority_runs(const aa_analyze_history *in, uint32_t id)
{
    size_t i;
    for (i = 0; i < in->npriorities; i++)
        if (in->priorities[i].region_id == id)
            return in->priorities[i].nruns;
    return 0;
}

/* An imbalance's excess relative to the region's mean time (main metric)
 * over the processes that ran it. */
static double relative_excess(const an_ctx *c, const aa_finding *f)
{
    size_t q, n = 0, R = c->R, r = f->region;
    double sum = 0;
    if (!c->MM || !c->ran)
        return INFINITY;
    for (q = 0; q < c->P; q++)
        if (c->ran[q * R + r] && !isnan(c->MM[q * R + r])) {
            sum += c->MM[q * R + r];
            n++;
        }
    return n && sum > 0 ? f->impact_s / (sum / (double)n) : INFINITY;
}

/* Removes finding i (its storage freed; the order of the others kept). */
static void remove_finding(aa_analysis *a, size_t i)
{
    an_finding_free(&a->findings[i]);
    memmove(&a->findings[i], &a->findings[i + 1], (a->nfindings - i - 1) * sizeof *a->findings);
    a->nfindings--;
}

/* The global order of findings.c (CCCRs first, then impact), with the
 * priorities first among equals; stable. */
static void order_by_priority(aa_analysis *a)
{
    size_t x, y;
    for (x = 1; x < a->nfindings; x++)
        for (y = x; y > 0; y--) {
            aa_finding *u = &a->findings[y - 1], *v = &a->findings[y], t;
            if (v->cccr == u->cccr && v->impact_s == u->impact_s &&
                v->history_runs > u->history_runs) {
                t = *u;
                *u = *v;
                *v = t;
            } else {
                break;
            }
        }
}

/* Phase: applies the history of the options to the ranked findings. */
int an_history_apply(an_ctx *c)
{
    const aa_analyze_history *in = c->o->history;
    aa_analysis *a = c->a;
    aa_an_history *h;
    size_t i, r;
    if (!in)
        return AA_OK;
    if (!(h = a->history = history_record(in)))
        return an_nomem(c);
    /* what each prune covers here */
    for (r = 0; r < a->nregions; r++) {
        long k = pruned_by(in, h, a->regions[r].id);
        if (k >= 0)
            h->prunes[k].nregions++;
    }
    for (i = 0; i < in->nnoise; i++)
        if (in->noise_spread[i] > a->noise_rel)
            h->nnoise_raised++;
    for (i = 0; i < a->nfindings;) {
        aa_finding *f = &a->findings[i];
        uint32_t id = a->regions[f->region].id;
        long k = pruned_by(in, h, id);
        double nz = learned_noise(in, id);
        if (k >= 0) {
            h->prunes[k].nremoved++;
            h->nremoved++;
            remove_finding(a, i);
            continue;
        }
        /* the noise floor of the region: the larger of the run's own noise
         * and the noise between runs of the same version */
        if (f->kind == AA_FINDING_DISSIMILARITY && nz > a->noise_rel &&
            relative_excess(c, f) <= h->noise_factor * nz) {
            h->nnoise_removed++;
            remove_finding(a, i);
            continue;
        }
        if ((f->history_runs = priority_runs(in, id)))
            h->nprioritized++;
        i++;
    }
    order_by_priority(a);
    return AA_OK;
}

/* ---- renderings ---------------------------------------------------------------- */
static void put_eids(aa_buf *b, const long long *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        aa_buf_printf(b, "%s%lld", i ? ", " : "", v[i]);
}

void an_history_text(const aa_analysis *a, aa_buf *b)
{
    const aa_an_history *h = a->history;
    size_t i;
    if (!h)
        return;
    aa_buf_printf(b, "History used (%s):\n", *h->source ? h->source : "given");
    if (h->nprunes) {
        aa_buf_printf(b, "  pruned: %zu resource%s (", h->nprunes, h->nprunes == 1 ? "" : "s");
        for (i = 0; i < h->nprunes; i++) {
            aa_buf_printf(b, "%s%s", i ? "; " : "", h->prunes[i].resource);
            if (*h->prunes[i].reason)
                aa_buf_printf(b, ": %s", h->prunes[i].reason);
        }
        aa_buf_printf(b, "), %zu finding%s removed\n", h->nremoved, h->nremoved == 1 ? "" : "s");
    } else {
        aa_buf_puts(b, "  pruned: none\n");
    }
    if (h->npriority_runs) {
        aa_buf_puts(b, "  priorities from executions ");
        put_eids(b, h->priority_runs, h->npriority_runs);
        aa_buf_printf(b, ": %zu region%s with earlier bottlenecks, %zu finding%s there now\n",
                      h->npriorities, h->npriorities == 1 ? "" : "s", h->nprioritized,
                      h->nprioritized == 1 ? "" : "s");
    } else {
        aa_buf_puts(b, "  priorities: no earlier run stored\n");
    }
    if (h->nnoise_runs && h->nnoise) {
        aa_buf_puts(b, "  noise from executions ");
        put_eids(b, h->noise_runs, h->nnoise_runs);
        aa_buf_printf(b,
                      ": %zu region%s, %zu noisier between runs than within this one; %zu "
                      "imbalance%s within %g times that noise removed\n",
                      h->nnoise, h->nnoise == 1 ? "" : "s", h->nnoise_raised, h->nnoise_removed,
                      h->nnoise_removed == 1 ? "" : "s", h->noise_factor);
    } else {
        aa_buf_puts(b, "  noise: not learned (fewer than 3 good stored runs)\n");
    }
    aa_buf_putc(b, '\n');
}

int aa_analyze_format_history(const aa_analysis *a, aa_buf *out)
{
    an_history_text(a, out);
    return out->failed ? AA_EENV : AA_OK;
}

static void json_eids(aa_json *j, const char *key, const long long *v, size_t n)
{
    size_t i;
    aa_json_key(j, key);
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++)
        aa_json_int(j, v[i]);
    aa_json_arr_end(j);
}

void an_history_json(aa_json *j, const aa_analysis *a)
{
    const aa_an_history *h = a->history;
    size_t i;
    if (!h)
        return;
    aa_json_key(j, "history");
    aa_json_obj_begin(j);
    aa_json_key(j, "source");
    aa_json_str(j, h->source);
    aa_json_key(j, "pruned");
    aa_json_arr_begin(j);
    for (i = 0; i < h->nprunes; i++) {
        aa_json_obj_begin(j);
        aa_json_key(j, "resource");
        aa_json_str(j, h->prunes[i].resource);
        aa_json_key(j, "reason");
        aa_json_str(j, h->prunes[i].reason);
        aa_json_key(j, "regions");
        aa_json_int(j, (long long)h->prunes[i].nregions);
        aa_json_key(j, "findings_removed");
        aa_json_int(j, (long long)h->prunes[i].nremoved);
        aa_json_obj_end(j);
    }
    aa_json_arr_end(j);
    json_eids(j, "priorities_from", h->priority_runs, h->npriority_runs);
    aa_json_key(j, "priority_regions");
    aa_json_int(j, (long long)h->npriorities);
    aa_json_key(j, "prioritized_findings");
    aa_json_int(j, (long long)h->nprioritized);
    json_eids(j, "noise_from", h->noise_runs, h->nnoise_runs);
    aa_json_key(j, "noise_regions");
    aa_json_int(j, (long long)h->nnoise);
    aa_json_key(j, "noise_raised");
    aa_json_int(j, (long long)h->nnoise_raised);
    aa_json_key(j, "noise_factor");
    aa_json_num(j, h->noise_factor);
    aa_json_key(j, "findings_within_noise_removed");
    aa_json_int(j, (long long)h->nnoise_removed);
    aa_json_obj_end(j);
}

void an_history_xml(aa_buf *b, const aa_analysis *a)
{
    const aa_an_history *h = a->history;
    size_t i;
    if (!h)
        return;
    aa_buf_puts(b, "  <history source=\"");
    an_xml_escape(b, h->source);
    aa_buf_printf(b, "\" priority_regions=\"%zu\" prioritized_findings=\"%zu\" "
                     "noise_regions=\"%zu\" noise_raised=\"%zu\" noise_factor=\"%g\" "
                     "findings_within_noise_removed=\"%zu\">\n",
                  h->npriorities, h->nprioritized, h->nnoise, h->nnoise_raised, h->noise_factor,
                  h->nnoise_removed);
    for (i = 0; i < h->nprunes; i++) {
        aa_buf_puts(b, "    <pruned resource=\"");
        an_xml_escape(b, h->prunes[i].resource);
        aa_buf_puts(b, "\" reason=\"");
        an_xml_escape(b, h->prunes[i].reason);
        aa_buf_printf(b, "\" regions=\"%zu\" findings_removed=\"%zu\"/>\n",
                      h->prunes[i].nregions, h->prunes[i].nremoved);
    }
    aa_buf_puts(b, "    <priorities_from>");
    put_eids(b, h->priority_runs, h->npriority_runs);
    aa_buf_puts(b, "</priorities_from>\n    <noise_from>");
    put_eids(b, h->noise_runs, h->nnoise_runs);
    aa_buf_puts(b, "</noise_from>\n  </history>\n");
}
