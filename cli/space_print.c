/*
 * cli/space_print.c -- how `autoanalyzer space` shows the Program Space
 * operators' results: the JSON documents of docs/space.md and the text
 * for people, where every value carries its unit and is scaled to it
 * (1.23 s, 45.6 ms, 1.5 MiB, 12.3 k).  The library computes; this file
 * only formats.
 */
#include "cli/space_print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void space_format_value(char out[48], double v, const char *unit)
{
    static const char *const si[] = {"", " k", " M", " G", " T", " P"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double a = fabs(v);
    int i = 0;
    if (!unit)
        unit = "";
    if (isnan(v) || isinf(v)) {
        snprintf(out, 48, "%g%s%s", v, *unit ? " " : "", unit);
    } else if (strcmp(unit, "s") == 0) {
        if (a == 0 || a >= 1)
            snprintf(out, 48, "%.4g s", v);
        else if (a >= 1e-3)
            snprintf(out, 48, "%.4g ms", v * 1e3);
        else if (a >= 1e-6)
            snprintf(out, 48, "%.4g us", v * 1e6);
        else
            snprintf(out, 48, "%.4g ns", v * 1e9);
    } else if (strcmp(unit, "bytes") == 0 || strcmp(unit, "B") == 0) {
        while (a >= 1024 && i < 5) {
            a /= 1024;
            v /= 1024;
            i++;
        }
        snprintf(out, 48, "%.4g %s", v, bin[i]);
    } else if (strcmp(unit, "count") == 0 || !*unit) {
        while (a >= 1000 && i < 5) {
            a /= 1000;
            v /= 1000;
            i++;
        }
        snprintf(out, 48, "%.4g%s", v, si[i]);
    } else {
        snprintf(out, 48, "%.4g %s", v, unit);
    }
}

static void json_focus(aa_json *j, char *const focus[3])
{
    int k;
    aa_json_key(j, "focus");
    aa_json_arr_begin(j);
    for (k = 0; k < 3; k++)
        aa_json_str(j, focus[k]);
    aa_json_arr_end(j);
}

static void json_attrs(aa_json *j, const aa_space_execution *x)
{
    size_t k;
    aa_json_key(j, "attrs");
    aa_json_obj_begin(j);
    for (k = 0; k < x->nattrs; k++) {
        aa_json_key(j, x->attrs[k].name);
        aa_json_str(j, x->attrs[k].value);
    }
    aa_json_obj_end(j);
}

void space_print_list(aa_buf *out, const aa_space_execution *v, size_t n, int json)
{
    size_t i, k;
    aa_json j;
    if (json) {
        aa_json_init(&j, out, 0);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "executions");
        aa_json_arr_begin(&j);
        for (i = 0; i < n; i++) {
            aa_json_obj_begin(&j);
            aa_json_key(&j, "eid");
            aa_json_int(&j, v[i].eid);
            aa_json_key(&j, "application");
            aa_json_str(&j, v[i].application);
            aa_json_key(&j, "experiment");
            aa_json_str(&j, v[i].experiment);
            aa_json_key(&j, "processes");
            aa_json_int(&j, v[i].nprocs);
            aa_json_key(&j, "started");
            aa_json_str(&j, v[i].started);
            json_attrs(&j, &v[i]);
            aa_json_obj_end(&j);
        }
        aa_json_arr_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    aa_buf_printf(out, "%-6s %-20s %6s  %-16s %s\n", "EID", "STARTED", "PROCS", "APPLICATION",
                  "ATTRIBUTES");
    for (i = 0; i < n; i++) {
        aa_buf_printf(out, "%-6lld %-20s %6ld  %-16s", v[i].eid, v[i].started, v[i].nprocs,
                      v[i].application);
        for (k = 0; k < v[i].nattrs; k++)
            aa_buf_printf(out, " %s=%s", v[i].attrs[k].name, v[i].attrs[k].value);
        aa_buf_putc(out, '\n');
    }
}

void space_print_show(aa_buf *out, const aa_space_shown *x, int json)
{
    const aa_space_execution *e = x->x;
    size_t i, k;
    aa_json j;
    if (json) {
        aa_json_init(&j, out, 0);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "eid");
        aa_json_int(&j, e->eid);
        aa_json_key(&j, "application");
        aa_json_str(&j, e->application);
        aa_json_key(&j, "experiment");
        aa_json_str(&j, e->experiment);
        aa_json_key(&j, "started");
        aa_json_str(&j, e->started);
        aa_json_key(&j, "processes");
        aa_json_int(&j, e->nprocs);
        json_attrs(&j, e);
        aa_json_key(&j, "metrics");
        aa_json_arr_begin(&j);
        for (i = 0; i < x->nmetrics; i++)
            aa_json_str(&j, x->metrics[i]);
        aa_json_arr_end(&j);
        aa_json_key(&j, "units");
        aa_json_obj_begin(&j);
        for (i = 0; i < x->nmetrics; i++) {
            aa_json_key(&j, x->metrics[i]);
            aa_json_str(&j, x->units[i]);
        }
        aa_json_obj_end(&j);
        aa_json_key(&j, "resources");
        aa_json_int(&j, x->nresources);
        aa_json_key(&j, "results");
        aa_json_int(&j, x->nresults);
        aa_json_key(&j, "findings");
        aa_json_arr_begin(&j);
        for (i = 0; i < x->nfindings; i++) {
            const aa_space_finding *f = &x->findings[i];
            aa_json_obj_begin(&j);
            aa_json_key(&j, "kind");
            aa_json_str(&j, f->kind);
            aa_json_key(&j, "region");
            aa_json_str(&j, f->region);
            aa_json_key(&j, "severity");
            aa_json_num(&j, f->severity);
            aa_json_key(&j, "severity_class");
            aa_json_int(&j, f->severity_class);
            aa_json_key(&j, "confidence");
            aa_json_num(&j, f->confidence);
            aa_json_key(&j, "causes");
            aa_json_arr_begin(&j);
            for (k = 0; k < f->ncauses; k++)
                aa_json_str(&j, f->causes[k]);
            aa_json_arr_end(&j);
            aa_json_key(&j, "suggestion");
            aa_json_str(&j, f->suggestion ? f->suggestion : "");
            aa_json_key(&j, "impact_seconds");
            if (isfinite(f->impact_s))
                aa_json_num(&j, f->impact_s);
            else
                aa_json_null(&j);
            aa_json_key(&j, "run_share");
            if (isfinite(f->run_share))
                aa_json_num(&j, f->run_share);
            else
                aa_json_null(&j);
            aa_json_key(&j, "contexts");
            aa_json_arr_begin(&j);
            for (k = 0; k < f->ncontexts; k++)
                aa_json_str(&j, f->contexts[k]);
            aa_json_arr_end(&j);
            aa_json_obj_end(&j);
        }
        aa_json_arr_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    aa_buf_printf(out,
                  "execution %lld\n  application  %s\n  experiment   %s\n  started      %s\n"
                  "  processes    %ld\n  resources    %lld\n  results      %lld\n"
                  "  metrics     ",
                  e->eid, e->application, e->experiment, e->started, e->nprocs, x->nresources,
                  x->nresults);
    for (i = 0; i < x->nmetrics; i++)
        aa_buf_printf(out, " %s (%s)", x->metrics[i], *x->units[i] ? x->units[i] : "no unit");
    aa_buf_puts(out, "\n  attributes\n");
    for (i = 0; i < e->nattrs; i++)
        aa_buf_printf(out, "    %s = %s\n", e->attrs[i].name, e->attrs[i].value);
    aa_buf_puts(out, "  findings\n");
    for (i = 0; i < x->nfindings; i++) {
        const aa_space_finding *f = &x->findings[i];
        aa_buf_printf(out, "    %-13s %s", f->kind, f->region);
        if (f->ncontexts > 1)
            aa_buf_printf(out, " (over %zu calling contexts)", f->ncontexts);
        if (isfinite(f->impact_s))
            aa_buf_printf(out, " impact %.4g s", f->impact_s);
        if (isfinite(f->run_share))
            aa_buf_printf(out, " (%.1f%% of the run)", 100 * f->run_share);
        aa_buf_printf(out, " severity %.2f confidence %.2f causes: ", f->severity,
                      f->confidence);
        for (k = 0; k < f->ncauses; k++)
            aa_buf_printf(out, "%s%s", k ? "," : "", f->causes[k]);
        aa_buf_puts(out, f->ncauses ? "\n" : "-\n");
        for (k = 0; f->ncontexts > 1 && k < f->ncontexts; k++)
            aa_buf_printf(out, "      context called from %s\n", f->contexts[k]);
    }
}

void space_print_query(aa_buf *out, const aa_space_query *q, const aa_space_query_result *r,
                       int json)
{
    size_t i;
    if (json) {
        aa_json j;
        aa_json_init(&j, out, 0);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "metric");
        aa_json_str(&j, q->metric);
        aa_json_key(&j, "unit");
        aa_json_str(&j, r->unit ? r->unit : "");
        if (q->agg) {
            aa_json_key(&j, "agg");
            aa_json_str(&j, q->agg);
        }
        aa_json_key(&j, "results");
        aa_json_arr_begin(&j);
        for (i = 0; i < r->n; i++) {
            aa_json_obj_begin(&j);
            if (!q->agg) {
                aa_json_key(&j, "eid");
                aa_json_int(&j, r->rows[i].eid);
            }
            json_focus(&j, r->rows[i].focus);
            if (r->rows[i].stored) {
                aa_json_key(&j, "stored_as");
                aa_json_str(&j, r->rows[i].stored);
            }
            aa_json_key(&j, "value");
            aa_json_num(&j, r->rows[i].value);
            if (q->agg) {
                aa_json_key(&j, "executions");
                aa_json_int(&j, r->rows[i].executions);
            }
            aa_json_obj_end(&j);
        }
        aa_json_arr_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    for (i = 0; i < r->n; i++) {
        const aa_space_query_row *w = &r->rows[i];
        char v[48];
        space_format_value(v, w->value, r->unit);
        if (q->agg)
            aa_buf_printf(out, "%s(%s) %s %s %s = %s over %lld executions\n", q->agg, q->metric,
                          w->focus[0], w->focus[1], w->focus[2], v, w->executions);
        else
            aa_buf_printf(out, "%lld %s %s %s %s = %s%s%s%s\n", w->eid, q->metric, w->focus[0],
                          w->focus[1], w->focus[2], v, w->stored ? " (stored as " : "",
                          w->stored ? w->stored : "", w->stored ? ")" : "");
    }
}

void space_print_diff(aa_buf *out, const aa_space_diff_result *r, int json)
{
    size_t i, k;
    aa_json j;
    if (json) {
        aa_json_init(&j, out, 0);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "only_in");
        aa_json_obj_begin(&j);
        for (k = 0; k < r->n; k++) {
            char key[24];
            snprintf(key, sizeof key, "%lld", r->sides[k].eid);
            aa_json_key(&j, key);
            aa_json_arr_begin(&j);
            for (i = 0; i < r->sides[k].n; i++)
                aa_json_str(&j, r->sides[k].only[i]);
            aa_json_arr_end(&j);
        }
        aa_json_obj_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    for (k = 0; k < r->n; k++) {
        const aa_space_diff_side *d = &r->sides[k];
        const char *prev = NULL;
        aa_buf_printf(out, "only in execution %lld (%zu resource%s):\n", d->eid, d->n,
                      d->n == 1 ? "" : "s");
        for (i = 0; i < d->n; i++) {
            /* placeholders for the common ancestors not shown yet */
            const char *path = d->only[i], *p = path + 1;
            int depth = 0;
            while ((p = strchr(p, '/'))) {
                size_t alen = (size_t)(p - path);
                int shown = prev && strncmp(prev, path, alen) == 0 &&
                            (prev[alen] == 0 || prev[alen] == '/');
                if (!shown) {
                    size_t start = alen;
                    while (start > 0 && path[start - 1] != '/')
                        start--;
                    aa_buf_printf(out, "  %*s[%.*s]\n", depth * 2, "", (int)(alen - start),
                                  path + start);
                }
                depth++;
                p++;
            }
            aa_buf_printf(out, "  %*s+ %s\n", depth * 2, "",
                          depth ? strrchr(path, '/') + 1 : path);
            prev = path;
        }
        if (!d->n)
            aa_buf_puts(out, "  (nothing)\n");
    }
}

void space_print_perfdiff(aa_buf *out, long long a, long long b,
                          const aa_space_perfdiff_options *o,
                          const aa_space_perfdiff_result *r, int json)
{
    size_t i;
    const char *unit = r->unit ? r->unit : "";
    if (json) {
        aa_json j;
        aa_json_init(&j, out, 0);
        aa_json_obj_begin(&j);
        aa_json_key(&j, "metric");
        aa_json_str(&j, o->metric);
        aa_json_key(&j, "unit");
        aa_json_str(&j, unit);
        aa_json_key(&j, "threshold");
        aa_json_num(&j, o->threshold);
        aa_json_key(&j, "relative");
        aa_json_bool(&j, o->relative);
        aa_json_key(&j, "exhaustive");
        aa_json_bool(&j, o->exhaustive);
        aa_json_key(&j, "min_size");
        aa_json_num(&j, o->min_size);
        aa_json_key(&j, "a");
        aa_json_int(&j, a);
        aa_json_key(&j, "b");
        aa_json_int(&j, b);
        aa_json_key(&j, "compared");
        aa_json_int(&j, (long long)r->compared);
        aa_json_key(&j, "differing");
        aa_json_int(&j, (long long)r->ndiffering);
        aa_json_key(&j, "differences");
        aa_json_arr_begin(&j);
        for (i = 0; i < r->n; i++) {
            const aa_space_difference *d = &r->rows[i];
            aa_json_obj_begin(&j);
            json_focus(&j, d->focus);
            aa_json_key(&j, "a");
            aa_json_num(&j, d->a);
            aa_json_key(&j, "b");
            aa_json_num(&j, d->b);
            aa_json_key(&j, "delta");
            aa_json_num(&j, d->delta);
            aa_json_key(&j, "differs");
            aa_json_bool(&j, d->differs);
            aa_json_key(&j, "hidden");
            aa_json_bool(&j, d->hidden);
            aa_json_obj_end(&j);
        }
        aa_json_arr_end(&j);
        aa_json_obj_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    {
        char t[48], m[48];
        if (o->relative)
            snprintf(t, sizeof t, "%g%%", o->threshold);
        else
            space_format_value(t, o->threshold, unit);
        space_format_value(m, o->min_size, unit);
        aa_buf_printf(out,
                      "performance difference of %s (%s) between executions %lld and %lld "
                      "(threshold %s%s%s%s): %zu of %zu common foci differ",
                      o->metric, *unit ? unit : "no unit", a, b, t,
                      o->min_size > 0 ? ", at least " : "", o->min_size > 0 ? m : "",
                      o->exhaustive ? ", exhaustive" : "", r->ndiffering, r->compared);
        if (r->n < r->ndiffering && !o->exhaustive)
            aa_buf_printf(out, ", %zu shown", r->n);
        aa_buf_puts(out, ", largest first\n");
    }
    for (i = 0; i < r->n; i++) {
        const aa_space_difference *d = &r->rows[i];
        char sa[48], sb[48], sd[48], pct[24] = "";
        space_format_value(sa, d->a, unit);
        space_format_value(sb, d->b, unit);
        space_format_value(sd, d->delta, unit);
        if (d->a != 0)
            snprintf(pct, sizeof pct, "(%+.1f%%)", d->delta / fabs(d->a) * 100.0);
        aa_buf_printf(out, "  %s%-11s %-9s <%s, %s, %s>  %s -> %s%s%s\n", d->delta > 0 ? "+" : "",
                      sd, pct, d->focus[0], d->focus[1], d->focus[2], sa, sb,
                      d->hidden ? "  (its parents moved less than the threshold)" : "",
                      d->differs ? "" : "  (within the threshold)");
    }
    if (!r->n)
        aa_buf_puts(out, "  no differences\n");
}

void space_print_prunes(aa_buf *out, const aa_space_prune *v, size_t n, int json)
{
    size_t i;
    aa_json j;
    if (json) {
        aa_json_init(&j, out, 0);
        aa_json_arr_begin(&j);
        for (i = 0; i < n; i++) {
            aa_json_obj_begin(&j);
            aa_json_key(&j, "application");
            aa_json_str(&j, v[i].application);
            aa_json_key(&j, "resource");
            aa_json_str(&j, v[i].resource);
            aa_json_key(&j, "region_id");
            if (v[i].region_id >= 0)
                aa_json_int(&j, v[i].region_id);
            else
                aa_json_null(&j);
            aa_json_key(&j, "reason");
            aa_json_str(&j, v[i].reason);
            aa_json_key(&j, "added");
            aa_json_str(&j, v[i].added);
            aa_json_obj_end(&j);
        }
        aa_json_arr_end(&j);
        aa_buf_putc(out, '\n');
        return;
    }
    for (i = 0; i < n; i++) {
        aa_buf_printf(out, "%s %s", v[i].application, v[i].resource);
        if (v[i].region_id >= 0)
            aa_buf_printf(out, " (region %lld)", v[i].region_id);
        if (*v[i].reason)
            aa_buf_printf(out, ": %s", v[i].reason);
        aa_buf_printf(out, " [%s]\n", v[i].added);
    }
}
