/*
 * engine/gates.c -- the nightly gates on a comparison with the last run
 * (docs/nightly.md): a core bottleneck (CCCR) the baseline did not have,
 * and a region slower than the allowed fraction in the configured metric
 * (wall time, or CPU time outside MPI), counting regions that take at
 * least min_share of the program in either run; a region whose
 * run-to-run noise is known from the stored history (aa_engine_learn_noise)
 * trips only beyond noise_factor times that noise.  Returns one record per
 * tripped gate instance and one per enabled gate that passed, for the
 * text, JSON and JUnit outputs of `nightly`.
 */
#include "engine/engine_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aa_engine_gates_free(aa_engine_gate *g, size_t n)
{
    size_t i;
    for (i = 0; g && i < n; i++) {
        free(g[i].region);
        free(g[i].message);
    }
    free(g);
}

static int push(aa_engine_gate **v, size_t *n, const char *name, int tripped, const char *region,
                char *message)
{
    aa_engine_gate *q = realloc(*v, (*n + 1) * sizeof *q);
    if (!q || !message) {
        free(message);
        return -1;
    }
    *v = q;
    q[*n].name = name;
    q[*n].tripped = tripped;
    q[*n].region = region ? aa_strdup(region) : NULL;
    q[*n].message = message;
    (*n)++;
    return 0;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, f);
    if (vasprintf(&s, f, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

int aa_engine_gates(const aa_engine_result *r, const aa_engine_gate_options *o,
                    aa_engine_gate **out, size_t *n, aa_err *err)
{
    const aa_report_comparison *c = r->cmp;
    int cpu = o->metric && strcmp(o->metric, "cpu") == 0;
    const char *unit = cpu ? "CPU time outside MPI" : "wall time";
    size_t k, tripped = 0;
    *out = NULL;
    *n = 0;
    if (!c)
        return aa_err_set(err, AA_EINPUT, "no comparison to check the gates on");
    if (o->fail_new) {
        for (k = 0; k < c->nnew; k++)
            if (push(out, n, "new-cccr", 1, c->new_cccrs[k].region,
                     fmt("new core bottleneck (%s): %s",
                         aa_finding_kind_name(c->new_cccrs[k].kind),
                         c->new_cccrs[k].region)))
                goto nomem;
        if (!c->nnew && push(out, n, "new-cccr", 0, NULL,
                             fmt("no core bottleneck that %s did not have", c->baseline_label)))
            goto nomem;
    }
    if (o->max_slowdown >= 0) {
        for (k = 0; k < c->ndiffs; k++) {
            const aa_report_diff *d = &c->diffs[k];
            double before = cpu ? d->main_before : d->before, after = cpu ? d->main_after : d->after;
            double rel = before > 0 ? (after - before) / before : (after > before ? INFINITY : 0);
            double nz = o->noise ? aa_engine_noise_of(o->noise, d->region_id) : NAN;
            double limit = o->max_slowdown, factor = o->noise_factor > 0 ? o->noise_factor
                                                                         : AA_ENGINE_NOISE_FACTOR;
            char why[160] = "";
            if (isfinite(nz) && factor * nz > limit) {
                limit = factor * nz;
                snprintf(why, sizeof why, ", raised from %.1f%% to %.0fx its run-to-run noise "
                                          "of %.1f%% in %zu stored runs",
                         o->max_slowdown * 100, factor, nz * 100, o->noise->nruns);
            }
            if (d->partial || (d->share < o->min_share && d->share_after < o->min_share) ||
                !(rel > limit))
                continue;
            tripped++;
            if (push(out, n, "region-slowdown", 1, d->region,
                     fmt("region slower by %.1f%% (limit %.1f%%%s): %s (%.6g s -> %.6g s %s per "
                         "process)",
                         isfinite(rel) ? rel * 100 : 1e9, limit * 100, why, d->region, before,
                         after, unit)))
                goto nomem;
        }
        if (!tripped &&
            push(out, n, "region-slowdown", 0, NULL,
                 fmt("no region slower by more than %.1f%% (%s, regions of at least %.1f%% of "
                     "the run)", o->max_slowdown * 100, unit, o->min_share * 100)))
            goto nomem;
    }
    return AA_OK;
nomem:
    aa_engine_gates_free(*out, *n);
    *out = NULL;
    *n = 0;
    return aa_err_set(err, AA_EENV, "out of memory");
}
