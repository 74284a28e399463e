/*
 * report/compare.c -- compares two analysed runs of the same program
 * (history-guided analysis, SPEC §6): which core bottlenecks (CCCRs) are
 * new, which are gone, which changed severity class, and the per-region
 * performance difference of the mean inclusive wall time per process, over
 * the regions common to both runs.  Regions are matched by the path of
 * stable region ids from the root (SPEC §3.4), so the same loop in a
 * rebuilt program is the same region.
 */
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct side {
    const aa_analysis *a;
    char **keys;   /* by region index */
    double *mean;  /* mean inclusive wall per process, by region index */
    double *main;  /* mean of the analysis' process metric, by region index */
    char *partial; /* by region index: throttled somewhere, values partial */
} side;

static void side_free(side *s)
{
    size_t i;
    if (s->keys)
        for (i = 0; i < s->a->nregions; i++)
            free(s->keys[i]);
    free(s->keys);
    free(s->mean);
    free(s->main);
    free(s->partial);
}

static int side_init(side *s, const aa_analysis *a, aa_err *err)
{
    rp_values v;
    size_t i, p, np = 0;
    memset(s, 0, sizeof *s);
    s->a = a;
    s->keys = calloc(a->nregions ? a->nregions : 1, sizeof *s->keys);
    s->mean = calloc(a->nregions ? a->nregions : 1, sizeof *s->mean);
    s->main = calloc(a->nregions ? a->nregions : 1, sizeof *s->main);
    s->partial = calloc(a->nregions ? a->nregions : 1, 1);
    if (!s->keys || !s->mean || !s->main || !s->partial)
        return aa_err_set(err, AA_EENV, "report: out of memory");
    for (i = 0; i < a->nregions; i++)
        if (!(s->keys[i] = rp_region_key(a, i)))
            return aa_err_set(err, AA_EENV, "report: out of memory");
    if (!a->exp)
        return AA_OK;
    if (rp_values_compute(a, a->exp, &v, err))
        return err->code;
    for (p = 0; p < v.nproc; p++)
        if (!v.excluded[p])
            np++;
    for (i = 0; i < a->nregions; i++) {
        double sum = 0, msum = 0;
        for (p = 0; p < v.nproc; p++) {
            double w = v.wall[p * v.nreg + i], m = v.main[p * v.nreg + i];
            if (!v.excluded[p] && !isnan(w))
                sum += w;
            if (!v.excluded[p] && !isnan(m))
                msum += m;
        }
        s->mean[i] = np ? sum / (double)np : 0;
        s->main[i] = np ? msum / (double)np : 0;
        s->partial[i] = v.partial[i];
    }
    rp_values_free(&v);
    return AA_OK;
}

static long find_key(const side *s, const char *key)
{
    size_t i;
    for (i = 0; i < s->a->nregions; i++)
        if (strcmp(s->keys[i], key) == 0)
            return (long)i;
    return -1;
}

/* The finding of this kind on region idx (the CCCR one first), or NULL. */
static const aa_finding *find_finding(const aa_analysis *a, aa_finding_kind kind, size_t idx)
{
    size_t i;
    const aa_finding *best = NULL;
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        if (f->kind == kind && f->region == idx && (!best || (f->cccr && !best->cccr)))
            best = f;
    }
    return best;
}

static int push_change(aa_report_change **arr, size_t *n, const aa_analysis *a, size_t idx,
                       aa_finding_kind kind, const aa_finding *before,
                       const aa_finding *after)
{
    aa_report_change *na = realloc(*arr, (*n + 1) * sizeof **arr), *c;
    if (!na)
        return -1;
    *arr = na;
    c = &na[*n];
    c->kind = kind;
    c->region = rp_region_label(a, idx);
    if (!c->region)
        return -1;
    c->cccr_before = before ? before->cccr : -1;
    c->cccr_after = after ? after->cccr : -1;
    c->class_before = before ? before->severity_class : -1;
    c->class_after = after ? after->severity_class : -1;
    c->severity_before = before ? before->severity : NAN;
    c->severity_after = after ? after->severity : NAN;
    (*n)++;
    return 0;
}

static int diff_cmp(const void *pa, const void *pb)
{
    const aa_report_diff *a = pa, *b = pb;
    double x = fabs(a->delta), y = fabs(b->delta);
    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->path, b->path);
}

static char *focus_path(const aa_analysis *a, size_t idx)
{
    aa_buf b;
    const aa_region *r = a->regions[idx].info;
    aa_buf_init(&b);
    aa_buf_puts(&b, "/Code");
    if (r && r->file && r->file[0])
        aa_buf_printf(&b, "/%s", r->file);
    if (r && r->function && r->function[0])
        aa_buf_printf(&b, "/%s", r->function);
    if (r && r->name && r->name[0] && (!r->function || strcmp(r->name, r->function)))
        aa_buf_printf(&b, "/%s", r->name);
    if (!r)
        aa_buf_printf(&b, "/region-%u", a->regions[idx].id);
    return aa_buf_detach(&b);
}

int aa_report_compare(const aa_analysis *cur, const aa_analysis *base, const char *label,
                      aa_report_comparison **out, aa_err *err)
{
    side sc, sb;
    aa_report_comparison *c = calloc(1, sizeof *c);
    size_t i, k;
    int rc = AA_OK;
    double base_root = 0, cur_root = 0;

    *out = NULL;
    memset(&sc, 0, sizeof sc);
    memset(&sb, 0, sizeof sb);
    if (!c)
        return aa_err_set(err, AA_EENV, "report: out of memory");
    c->baseline_label = aa_strdup(label ? label : "baseline");
    if ((rc = side_init(&sc, cur, err)) || (rc = side_init(&sb, base, err)))
        goto done;
    for (i = 0; i < base->nregions; i++)
        if (base->regions[i].parent < 0 && sb.mean[i] > base_root)
            base_root = sb.mean[i];
    for (i = 0; i < cur->nregions; i++)
        if (cur->regions[i].parent < 0 && sc.mean[i] > cur_root)
            cur_root = sc.mean[i];
    c->run_before = base_root;
    c->run_after = cur_root;

    /* Bottlenecks: new / changed from the current side, gone from the base. */
    for (k = 0; k < 3; k++) {
        aa_finding_kind kind = k == 0 ? AA_FINDING_DISSIMILARITY
                               : k == 1 ? AA_FINDING_DISPARITY
                                        : AA_FINDING_DYNAMIC;
        for (i = 0; i < cur->nfindings; i++) {
            const aa_finding *f = &cur->findings[i], *g;
            long bi;
            if (f->kind != kind || find_finding(cur, kind, f->region) != f)
                continue;
            bi = find_key(&sb, sc.keys[f->region]);
            g = bi >= 0 ? find_finding(base, kind, (size_t)bi) : NULL;
            if (f->cccr && (!g || !g->cccr)) {
                if (push_change(&c->new_cccrs, &c->nnew, cur, f->region, kind, g, f))
                    goto nomem;
            } else if (g && !(g->cccr && !f->cccr) &&
                       (g->cccr != f->cccr || g->severity_class != f->severity_class ||
                        fabs(g->severity - f->severity) > 0.2)) {
                /* (a CCCR that stopped being one is listed by the loop below) */
                if (push_change(&c->changed, &c->nchanged, cur, f->region, kind, g, f))
                    goto nomem;
            }
        }
        for (i = 0; i < base->nfindings; i++) {
            const aa_finding *g = &base->findings[i], *f;
            long ci;
            if (g->kind != kind || !g->cccr || find_finding(base, kind, g->region) != g)
                continue;
            ci = find_key(&sc, sb.keys[g->region]);
            f = ci >= 0 ? find_finding(cur, kind, (size_t)ci) : NULL;
            if (!f || !f->cccr) {
                if (f) { /* still a CCR but no longer a core one */
                    if (push_change(&c->changed, &c->nchanged, cur, (size_t)ci, kind, g, f))
                        goto nomem;
                } else if (push_change(&c->gone, &c->ngone, base, g->region, kind, g, NULL)) {
                    goto nomem;
                }
            }
        }
    }

    /* Performance differences over the common regions. */
    for (i = 0; i < cur->nregions; i++) {
        long bi = find_key(&sb, sc.keys[i]);
        aa_report_diff *d, *nd;
        if (bi < 0) {
            c->nonly_current++;
            continue;
        }
        nd = realloc(c->diffs, (c->ndiffs + 1) * sizeof *nd);
        if (!nd)
            goto nomem;
        c->diffs = nd;
        d = &nd[c->ndiffs];
        d->region = rp_region_label(cur, i);
        d->path = focus_path(cur, i);
        d->region_id = cur->regions[i].id;
        d->noise = 0;
        d->within_noise = 0;
        if (!d->region || !d->path) {
            free(d->region);
            free(d->path);
            goto nomem;
        }
        c->ndiffs++;
        d->before = sb.mean[bi];
        d->after = sc.mean[i];
        d->delta = d->after - d->before;
        d->relative = d->before > 0 ? d->delta / d->before : (d->delta > 0 ? INFINITY : 0);
        d->share = base_root > 0 ? d->before / base_root : 0;
        d->share_after = cur_root > 0 ? d->after / cur_root : 0;
        d->main_before = sb.main[bi];
        d->main_after = sc.main[i];
        d->partial = sc.partial[i] || sb.partial[bi];
    }
    for (i = 0; i < base->nregions; i++)
        if (find_key(&sc, sb.keys[i]) < 0)
            c->nonly_baseline++;
    if (c->ndiffs > 1)
        qsort(c->diffs, c->ndiffs, sizeof *c->diffs, diff_cmp);
    goto done;
nomem:
    rc = aa_err_set(err, AA_EENV, "report: out of memory");
done:
    side_free(&sc);
    side_free(&sb);
    if (rc)
        aa_report_comparison_free(c);
    else
        *out = c;
    return rc;
}

static void free_changes(aa_report_change *c, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(c[i].region);
    free(c);
}

void aa_report_comparison_free(aa_report_comparison *c)
{
    size_t i;
    if (!c)
        return;
    free(c->baseline_label);
    free(c->history);
    free_changes(c->new_cccrs, c->nnew);
    free_changes(c->gone, c->ngone);
    free_changes(c->changed, c->nchanged);
    for (i = 0; i < c->ndiffs; i++) {
        free(c->diffs[i].region);
        free(c->diffs[i].path);
    }
    free(c->diffs);
    free(c);
}

size_t aa_report_slowdowns(const aa_report_comparison *c, double limit, double min_share,
                           size_t *idx, size_t nidx)
{
    size_t i, n = 0;
    for (i = 0; i < c->ndiffs; i++) {
        const aa_report_diff *d = &c->diffs[i];
        if (d->partial || d->within_noise ||
            (d->share < min_share && d->share_after < min_share) ||
            !(d->relative > limit))
            continue;
        if (idx && n < nidx)
            idx[n] = i;
        n++;
    }
    return n;
}
