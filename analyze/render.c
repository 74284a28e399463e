/*
 * analyze/render.c -- the three renderings of an analysis (SPEC §5.5, §9):
 * a readable terminal report, JSON with the fixed keys of §9, and XML with
 * the same content.  Names from the program are escaped in JSON and XML;
 * in the text report control characters are replaced.
 */
#include "analyze/aa_analyze.h"
#include "analyze/an_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const aa_region *reg_info(const aa_analysis *a, size_t r)
{
    return a->regions[r].info;
}

static const char *s_or(const char *s, const char *d)
{
    return s ? s : d;
}

static const char *reg_name(const aa_analysis *a, size_t r)
{
    const aa_region *ri = reg_info(a, r);
    if (ri && ri->name && *ri->name)
        return ri->name;
    return r == 0 ? "(program)" : "(unknown region)";
}

/* ---- text ----------------------------------------------------------------- */
static void put_clean(aa_buf *b, const char *s)
{
    for (; s && *s; s++)
        aa_buf_putc(b, ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s);
}

/* The k-th caller (k >= 1) of node p: the parent of the function node
 * that encloses p (p itself for a function), k times; -1 at the root. */
static long caller_at(const aa_analysis *a, long p, int k)
{
    while (k-- > 0) {
        while (p > 0 && (!a->regions[p].info || a->regions[p].info->kind != AA_KIND_FUNCTION))
            p = a->regions[p].parent;
        if (p <= 0)
            return -1;
        p = a->regions[p].parent;
        if (p <= 0 || !a->regions[p].info)
            return -1;
    }
    return p;
}

/* What a report prints for caller node c: its function, and its own name
 * when it is a loop or call site (two loops of main calling one function). */
static int same_caller_label(const aa_analysis *a, long c, long d)
{
    const aa_region *x, *y;
    if (c < 0 || d < 0)
        return c == d;
    x = a->regions[c].info;
    y = a->regions[d].info;
    if (strcmp(x->function ? x->function : "", y->function ? y->function : ""))
        return 0;
    if (x->kind == AA_KIND_FUNCTION && y->kind == AA_KIND_FUNCTION)
        return 1;
    return !strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

#define CALLER_MAX_DEPTH 64

/* 1 when the callers 1..k of nodes r and s show the same labels. */
static int same_callers_to(const aa_analysis *a, size_t r, size_t s, int k)
{
    for (int j = 1; j <= k; j++)
        if (!same_caller_label(a, caller_at(a, (long)r, j), caller_at(a, (long)s, j)))
            return 0;
    return 1;
}

long aa_analysis_caller(const aa_analysis *a, size_t r)
{
    size_t i, n = 0;
    long first = caller_at(a, (long)r, 1);
    for (i = 0; i < a->nregions && n < 2; i++)
        n += a->regions[i].id == a->regions[r].id;
    if (n < 2 || first < 0)
        return -1;
    /* the nearest caller up to which no other node of r's region shows the
     * same callers (clover_pack_message_left is called from
     * clover_pack_left in two contexts that differ five callers up) */
    for (int k = 1; k <= CALLER_MAX_DEPTH; k++) {
        long c = caller_at(a, (long)r, k);
        int alone = 1;
        if (c < 0)
            break;
        for (i = 0; i < a->nregions && alone; i++)
            if (i != r && a->regions[i].id == a->regions[r].id && same_callers_to(a, r, i, k))
                alone = 0;
        if (alone)
            return c;
    }
    return first;
}

int aa_analysis_caller_label(const aa_analysis *a, size_t r, aa_buf *b)
{
    long cc = aa_analysis_caller(a, r), direct = caller_at(a, (long)r, 1);
    const aa_region *ci;
    if (cc <= 0)
        return 0;
    ci = a->regions[cc].info;
    aa_buf_puts(b, ci->function && *ci->function ? ci->function : ci->name ? ci->name : "?");
    if (ci->kind != AA_KIND_FUNCTION && ci->name && *ci->name) {
        aa_buf_putc(b, ' ');
        aa_buf_puts(b, ci->name);
    }
    if (direct > 0 && direct != cc) {
        const aa_region *di = a->regions[direct].info;
        aa_buf_puts(b, " via ");
        aa_buf_puts(b, di->function && *di->function ? di->function : di->name ? di->name : "?");
    }
    return 1;
}

/* "file:line function name" of region r, without its calling context */
static void put_site(aa_buf *b, const aa_analysis *a, size_t r)
{
    const aa_region *ri = reg_info(a, r);
    if (ri && ri->file && *ri->file) {
        put_clean(b, ri->file);
        aa_buf_printf(b, ":%d ", ri->line);
    }
    if (ri && ri->function && *ri->function && strcmp(ri->function, ri->name ? ri->name : "")) {
        put_clean(b, ri->function);
        aa_buf_putc(b, ' ');
    }
    put_clean(b, reg_name(a, r));
}

static void put_location(aa_buf *b, const aa_analysis *a, size_t r)
{
    aa_buf label;
    put_site(b, a, r);
    aa_buf_init(&label);
    if (aa_analysis_caller_label(a, r, &label) && !label.failed) {
        aa_buf_puts(b, " (called from ");
        put_clean(b, label.data);
        aa_buf_putc(b, ')');
    }
    aa_buf_free(&label);
}

/* A finding's region: over its calling contexts when it has several */
static void put_finding_location(aa_buf *b, const aa_analysis *a, const aa_finding *f)
{
    if (!f->ncontexts) {
        put_location(b, a, f->region);
        return;
    }
    put_site(b, a, f->region);
    aa_buf_printf(b, " (over %zu calling contexts)", f->ncontexts);
}

static void put_ranks(aa_buf *b, const int *r, size_t n)
{
    aa_put_rankset(b, r, n); /* "0-1535", "1-2045:4" */
}

static void put_num(aa_buf *b, double v)
{
    if (isnan(v))
        aa_buf_puts(b, "n/a");
    else if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
        aa_buf_printf(b, "%.3g", v);
    else
        aa_buf_printf(b, "%.4g", v);
}

/* "waiting: ranks R wait X s each in MPI (kind) in [n] location" of a
 * finding with a wait region (no line end: the caller says why). */
static void text_waiting(aa_buf *b, const aa_analysis *a, const aa_finding *f)
{
    aa_buf_printf(b, "      waiting: rank%s ", f->nwait == 1 ? "" : "s");
    put_ranks(b, f->wait_ranks, f->nwait);
    aa_buf_puts(b, f->nwait == 1 ? " waits " : " wait ");
    put_num(b, f->nwait ? f->wait_s / (double)f->nwait : 0);
    aa_buf_printf(b, " s each in MPI%s%s%s in [%zu] ", f->wait_kind ? " (" : "",
                  f->wait_kind ? f->wait_kind : "", f->wait_kind ? ")" : "",
                  a->regions[f->wait_region].index);
    put_location(b, a, (size_t)f->wait_region);
}

/* An imbalance whose others wait, each, more than twice as long as its
 * slow processes are late from its region (aa_finding late_s), and longer
 * by more than the whole program's noise (eps): most of the wait has
 * other causes. */
int aa_finding_waits_beyond_late(const aa_analysis *a, const aa_finding *f)
{
    double w = f->nwait ? f->wait_s / (double)f->nwait : 0, late = fmax(0, f->late_s);
    return f->nwait && isfinite(f->late_s) && w > 2 * late && w - late > fmax(0, a->eps_used);
}

/* "impact ..." line of a finding: what it costs, in seconds and share */
static void text_impact(aa_buf *b, const aa_analysis *a, const aa_finding *f)
{
    size_t i;
    aa_buf_puts(b, "      impact ");
    put_num(b, f->impact_s);
    if (f->kind == AA_FINDING_DISSIMILARITY) {
        aa_buf_printf(b, " s per slow process (%.1f%% of the run): rank%s ", 100 * f->run_share,
                      f->nslow == 1 ? "" : "s");
        put_ranks(b, f->slow_ranks, f->nslow);
        if (f->excess_s > f->impact_s) { /* an_idle_bound: made up elsewhere in part */
            aa_buf_puts(b, f->nslow == 1 ? " spends " : " spend ");
            put_num(b, f->excess_s);
            aa_buf_puts(b, " s beyond the others here, but the others are idle only ");
            put_num(b, f->impact_s);
            aa_buf_puts(b, " s in all: the rest is made up in other regions before they "
                           "synchronize\n");
        } else {
            aa_buf_puts(b, f->nslow == 1 ? " spends it beyond the others\n"
                                         : " spend it beyond the others\n");
        }
        if (f->wait_region >= 0 && aa_finding_waits_beyond_late(a, f)) {
            /* a process waits at most as long as the one it waits for is
             * late: the rest of the wait is not this region's */
            text_waiting(b, a, f);
            aa_buf_printf(b, "; rank%s ", f->nslow == 1 ? "" : "s");
            put_ranks(b, f->slow_ranks, f->nslow);
            aa_buf_puts(b, f->nslow == 1 ? " is late by only " : " are late by only ");
            put_num(b, fmax(0, f->late_s));
            aa_buf_puts(b, " s from here: most of the wait has other causes\n");
        } else if (f->wait_region >= 0) {
            text_waiting(b, a, f);
            aa_buf_printf(b, " because rank%s ", f->nslow == 1 ? "" : "s");
            put_ranks(b, f->slow_ranks, f->nslow);
            aa_buf_puts(b, f->nslow == 1 ? " is late from here\n" : " are late from here\n");
        }
    } else if (f->kind == AA_FINDING_DYNAMIC) {
        aa_buf_printf(b, " s per process (%.1f%% of the run) waited because the heaviest step "
                      "moves between processes\n", 100 * f->run_share);
        if (f->wait_region >= 0) {
            text_waiting(b, a, f);
            aa_buf_puts(b, ", the longer the less work each had in that step: one step's "
                           "work varies by ");
            put_num(b, f->step_work_sd);
            aa_buf_puts(b, " s (");
            put_num(b, f->step_noise_sd);
            aa_buf_printf(b, " s of it as the machine varies the same work) over %.0f steps, "
                             "every process's total alike\n",
                          f->steps);
        }
    } else {
        aa_buf_printf(b, " s per process in its own code (%.1f%% of the run)%s\n",
                      100 * f->run_share,
                      f->ncontexts ? ", added over the calling contexts it runs in" : "");
        for (i = 0; i < f->ncontexts; i++) {
            size_t r = f->contexts[i];
            aa_buf_printf(b, "      context [%zu] ", a->regions[r].index);
            put_location(b, a, r);
            aa_buf_puts(b, ": value ");
            put_num(b, a->region_value[r]);
            aa_buf_putc(b, '\n');
        }
    }
}

/* the word for a finding's kind in the ranked list */
static const char *kind_word(const aa_finding *f)
{
    return f->kind == AA_FINDING_DISSIMILARITY ? "imbalance"
           : f->kind == AA_FINDING_DYNAMIC     ? "dynamic  "
                                               : "hotspot  ";
}

static void text_finding(aa_buf *b, const aa_analysis *a, const aa_finding *f)
{
    size_t i;
    aa_buf_printf(b, "  [%zu] ", a->regions[f->region].index);
    put_finding_location(b, a, f);
    aa_buf_printf(b, "\n      %s", f->cccr ? "CCCR" : "CCR ");
    if (f->kind == AA_FINDING_DISSIMILARITY)
        aa_buf_printf(b, "  effect %.2f", f->effect);
    else if (f->kind == AA_FINDING_DYNAMIC)
        aa_buf_printf(b, "  slope %.2f, correlation %.2f of the wait on the step's work",
                      -f->effect, -f->severity);
    else {
        aa_buf_printf(b, "  class %d, value ", f->severity_class);
        put_num(b, f->effect); /* the region's value, over its contexts when several */
    }
    aa_buf_printf(b, "  severity %.2f  confidence %.2f\n", f->severity, f->confidence);
    text_impact(b, a, f);
    if (f->history_runs)
        aa_buf_printf(b, "      found before: in %zu earlier run%s (a priority)\n",
                      f->history_runs, f->history_runs == 1 ? "" : "s");
    if (!f->cccr)
        return;
    if (f->kind == AA_FINDING_DYNAMIC)
        aa_buf_puts(b, "      root cause: the work of one step differs between the processes, "
                       "a different one the heaviest from step to step\n");
    else if (f->ncauses) {
        aa_buf_puts(b, "      root causes:");
        for (i = 0; i < f->ncauses; i++) {
            aa_buf_printf(b, "%s %s (", i ? "," : "", f->causes[i]);
            put_num(b, f->evidence[i].value);
            aa_buf_puts(b, f->kind == AA_FINDING_DISSIMILARITY ? " on the slow processes vs "
                                                               : " here vs ");
            put_num(b, f->evidence[i].reference);
            aa_buf_puts(b, f->kind == AA_FINDING_DISSIMILARITY ? " on the others)"
                                                               : " in non-critical regions)");
        }
        aa_buf_putc(b, '\n');
    } else
        aa_buf_puts(b, "      root causes: none of the measured attributes explains it\n");
    aa_buf_printf(b, "      suggestion: %s\n", f->suggestion ? f->suggestion : "");
}

int aa_analyze_format_text(const aa_analysis *a, aa_buf *b)
{
    size_t i, n;
    const aa_experiment *e = a->exp;
    aa_buf_puts(b, "AutoAnalyzer report");
    if (e && e->program && *e->program) {
        aa_buf_puts(b, " for ");
        put_clean(b, e->program);
    }
    if (e && e->id && *e->id) {
        aa_buf_puts(b, " (experiment ");
        put_clean(b, e->id);
        aa_buf_putc(b, ')');
    }
    aa_buf_printf(b, "\n%zu process%s analysed, %zu region%s", a->nprocesses,
                  a->nprocesses == 1 ? "" : "es", a->nregions, a->nregions == 1 ? "" : "s");
    if (a->nexcluded_ranks) {
        aa_buf_puts(b, ", excluded ranks ");
        put_ranks(b, a->excluded_ranks, a->nexcluded_ranks);
    }
    aa_buf_puts(b, "\n\n");
    an_history_text(a, b);
    for (i = n = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        if (!f->cccr)
            continue;
        if (!n++)
            aa_buf_puts(b, "Findings by impact:\n");
        aa_buf_printf(b, "  %zu. %s ", n, kind_word(f));
        put_num(b, f->impact_s);
        aa_buf_printf(b, " s (%.1f%% of the run) in [%zu] ", 100 * f->run_share,
                      a->regions[f->region].index);
        put_finding_location(b, a, f);
        aa_buf_putc(b, '\n');
    }
    if (n)
        aa_buf_putc(b, '\n');

    aa_buf_printf(b, "Dissimilarity (processes; metric: %s time outside MPI%s%s%s%s)\n",
                  a->proc_metric, a->proc_metric_io ? " and I/O calls" : "",
                  a->speed_normalized ? " over each process's speed" : "",
                  a->io_call_cost ? ", the I/O calls at their mean cost" : "",
                  a->proc_metric_blocked ? ", time blocked outside them" : "");
    aa_buf_printf(b, "  %zu cluster%s", a->nclusters, a->nclusters == 1 ? "" : "s");
    aa_buf_puts(b, a->nclusters > 1 ? " -- processes behave differently\n"
                                    : " -- no dissimilarity bottleneck\n");
    for (i = 0; i < a->nclusters; i++) {
        aa_buf_printf(b, "    cluster %zu (%zu rank%s, mean ", i, a->cluster_size[i],
                      a->cluster_size[i] == 1 ? "" : "s");
        put_num(b, a->cluster_mean ? a->cluster_mean[i] : NAN);
        aa_buf_puts(b, " s): ");
        put_ranks(b, a->cluster_ranks[i], a->cluster_size[i]);
        aa_buf_putc(b, '\n');
    }
    for (i = n = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISSIMILARITY) {
            if (!n++)
                aa_buf_puts(b, "  bottlenecks (CCCRs first, strongest effect first):\n");
            text_finding(b, a, &a->findings[i]);
        }
    for (i = 0; i < a->nsuspects && a->nclusters < 2; i++) {
        if (!i)
            aa_buf_puts(b, "  where they differ most (not significant; refined in round 2):\n");
        aa_buf_printf(b, "    [%zu] ", a->regions[a->suspects[i]].index);
        put_location(b, a, a->suspects[i]);
        aa_buf_printf(b, "  spread %.1f noise deviations\n", a->suspect_sep[i]);
    }
    aa_buf_printf(b, "\nDisparity (regions; metric: %s)\n", a->region_metric);
    for (i = n = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISPARITY) {
            if (!n++)
                aa_buf_puts(b, "  bottlenecks (CCCRs first, highest value first):\n");
            text_finding(b, a, &a->findings[i]);
        }
    if (!n)
        aa_buf_puts(b, "  no critical code region\n");
    if (a->dynamic_measured) {
        aa_buf_puts(b, "\nDynamic imbalance (steps; the wait at each step's synchronization "
                       "against the step's own work)\n");
        for (i = n = 0; i < a->nfindings; i++)
            if (a->findings[i].kind == AA_FINDING_DYNAMIC) {
                n++;
                text_finding(b, a, &a->findings[i]);
            }
        if (!n)
            aa_buf_puts(b, "  none: no process waits longer in the steps it has less work in\n");
    }
    aa_buf_puts(b, "\nRoot-cause attributes used:");
    for (i = 0; i < a->nattributes; i++)
        aa_buf_printf(b, " %s", a->attributes[i]);
    aa_buf_puts(b, a->nattributes ? "\n" : " none\n");
    if (a->ncore_dissim || a->ncore_disp) {
        aa_buf_puts(b, "Core attributes:");
        if (a->ncore_dissim) {
            aa_buf_puts(b, " dissimilarity");
            for (i = 0; i < a->ncore_dissim; i++)
                aa_buf_printf(b, " %s", a->core_dissim[i]);
        }
        if (a->ncore_disp) {
            aa_buf_puts(b, a->ncore_dissim ? ";" : "");
            aa_buf_puts(b, " disparity");
            for (i = 0; i < a->ncore_disp; i++)
                aa_buf_printf(b, " %s", a->core_disp[i]);
        }
        aa_buf_putc(b, '\n');
    }
    if (a->nunavailable) {
        aa_buf_puts(b, "Unavailable attributes:");
        for (i = 0; i < a->nunavailable; i++)
            aa_buf_printf(b, " %s", a->unavailable[i]);
        aa_buf_putc(b, '\n');
    }
    if (a->ninconsistent)
        aa_buf_printf(b, "Inconsistent decision-table pairs skipped: %zu\n", a->ninconsistent);
    if (a->nnotes) {
        aa_buf_puts(b, "Notes:\n");
        for (i = 0; i < a->nnotes; i++) {
            aa_buf_puts(b, "  - ");
            put_clean(b, a->notes[i]);
            aa_buf_putc(b, '\n');
        }
    }
    return b->failed ? AA_EENV : AA_OK;
}

/* ---- JSON ------------------------------------------------------------------ */
/* "KEY": "0-1535,2047" beside the full array, for people reading the JSON */
static void json_rankset(aa_json *j, const char *key, const int *r, size_t n)
{
    char *s = aa_rankset_str(r, n);
    aa_json_key(j, key);
    if (s)
        aa_json_str(j, s);
    else
        aa_json_null(j);
    free(s);
}

static void json_region_fields(aa_json *j, const aa_analysis *a, size_t r)
{
    const aa_region *ri = reg_info(a, r);
    aa_json_key(j, "index");
    aa_json_int(j, (long long)a->regions[r].index);
    aa_json_key(j, "id");
    aa_json_int(j, a->regions[r].id);
    aa_json_key(j, "name");
    aa_json_str(j, reg_name(a, r));
    aa_json_key(j, "kind");
    aa_json_str(j, ri ? aa_region_kind_name(ri->kind) : "unknown");
    aa_json_key(j, "function");
    aa_json_str(j, ri ? s_or(ri->function, "") : "");
    aa_json_key(j, "file");
    aa_json_str(j, ri ? s_or(ri->file, "") : "");
    aa_json_key(j, "line");
    aa_json_int(j, ri ? ri->line : 0);
}

/* dissimilarity.placement and dissimilarity.speed: the imbalances dropped
 * as the CPUs' speed (analyze/placement.c) or the processes' speed
 * (analyze/speed.c) -- how many, the largest one's region, slow ranks and
 * figures -- null when none */
typedef struct json_dropped_set {
    size_t dropped, region, nslow, regions;
    const int *slow;
    double ratio, speed, spread;
} json_dropped_set;

static void json_dropped(aa_json *j, const aa_analysis *a, const char *key,
                         const json_dropped_set *d)
{
    size_t i;
    aa_json_key(j, key);
    if (!d->dropped || d->region >= a->nregions) {
        aa_json_null(j);
        return;
    }
    aa_json_obj_begin(j);
    aa_json_key(j, "dropped");
    aa_json_int(j, (long long)d->dropped);
    aa_json_key(j, "region");
    aa_json_obj_begin(j);
    json_region_fields(j, a, d->region);
    aa_json_obj_end(j);
    aa_json_key(j, "slow_ranks");
    aa_json_arr_begin(j);
    for (i = 0; i < d->nslow; i++)
        aa_json_int(j, d->slow[i]);
    aa_json_arr_end(j);
    json_rankset(j, "slow_rank_set", d->slow, d->nslow);
    aa_json_key(j, "region_ratio");
    aa_json_num(j, d->ratio);
    aa_json_key(j, "speed");
    aa_json_num(j, d->speed);
    aa_json_key(j, "spread");
    aa_json_num(j, d->spread);
    aa_json_key(j, "regions");
    aa_json_int(j, (long long)d->regions);
    aa_json_obj_end(j);
}

static void json_placement(aa_json *j, const aa_analysis *a)
{
    json_dropped_set d = {a->placement_dropped, a->placement_region, a->nplacement_slow,
                          a->placement_regions, a->placement_slow, a->placement_ratio,
                          a->placement_speed, a->placement_spread};
    json_dropped(j, a, "placement", &d);
}

/* dissimilarity.placement_undecided: the imbalances kept although their
 * partition follows the CPUs, too few regions telling the CPUs' pace from
 * the work; null when none. */
static void json_placement_undecided(aa_json *j, const aa_analysis *a)
{
    aa_json_key(j, "placement_undecided");
    if (!a->placement_undecided) {
        aa_json_null(j);
        return;
    }
    aa_json_obj_begin(j);
    aa_json_key(j, "imbalances");
    aa_json_int(j, (long long)a->placement_undecided);
    aa_json_key(j, "regions");
    aa_json_int(j, (long long)a->placement_undecided_regions);
    aa_json_obj_end(j);
}

static void json_speed(aa_json *j, const aa_analysis *a)
{
    json_dropped_set d = {a->speed_dropped, a->speed_region, a->nspeed_slow, a->speed_regions,
                          a->speed_slow, a->speed_ratio, a->speed_uniform, a->speed_spread};
    json_dropped(j, a, "speed", &d);
}

/* dissimilarity.pace: speed is the slow processes' measured pace ratio less
 * 1, spread its standard error (log), regions 0 (the pace is not measured
 * on them) */
static void json_pace(aa_json *j, const aa_analysis *a)
{
    json_dropped_set d = {a->pace_dropped, a->pace_region, a->npace_slow, 0,
                          a->pace_slow, a->pace_ratio, a->pace_slower, a->pace_se};
    json_dropped(j, a, "pace", &d);
}

static void json_parent_index(aa_json *j, const aa_analysis *a, size_t r)
{
    long par = a->regions[r].parent;
    aa_json_key(j, "parent_index");
    if (par < 0)
        aa_json_null(j);
    else
        aa_json_int(j, (long long)a->regions[par].index);
}

static void json_finding(aa_json *j, const aa_analysis *a, const aa_finding *f)
{
    size_t i;
    aa_json_obj_begin(j);
    aa_json_key(j, "region");
    aa_json_int(j, a->regions[f->region].id);
    json_region_fields(j, a, f->region);
    aa_json_key(j, "ccr");
    aa_json_bool(j, f->ccr);
    aa_json_key(j, "cccr");
    aa_json_bool(j, f->cccr);
    aa_json_key(j, "severity");
    aa_json_num(j, f->severity);
    if (f->kind == AA_FINDING_DISPARITY) {
        aa_json_key(j, "severity_class");
        aa_json_int(j, f->severity_class);
        aa_json_key(j, "value");
        aa_json_num(j, f->effect);
        aa_json_key(j, "contexts"); /* the regions it adds up, [] for the region alone */
        aa_json_arr_begin(j);
        for (i = 0; i < f->ncontexts; i++) {
            aa_json_obj_begin(j);
            json_region_fields(j, a, f->contexts[i]);
            aa_json_key(j, "value");
            aa_json_num(j, a->region_value[f->contexts[i]]);
            aa_json_obj_end(j);
        }
        aa_json_arr_end(j);
    } else {
        aa_json_key(j, "effect");
        aa_json_num(j, f->effect);
    }
    aa_json_key(j, "confidence");
    aa_json_num(j, f->confidence);
    aa_json_key(j, "impact_seconds");
    aa_json_num(j, f->impact_s);
    if (f->kind == AA_FINDING_DISSIMILARITY) {
        aa_json_key(j, "excess_seconds");
        aa_json_num(j, f->excess_s);
    }
    aa_json_key(j, "run_share");
    aa_json_num(j, f->run_share);
    if (f->kind == AA_FINDING_DYNAMIC) {
        aa_json_key(j, "steps");
        aa_json_num(j, f->steps);
        aa_json_key(j, "step_work_sd");
        aa_json_num(j, f->step_work_sd);
        aa_json_key(j, "step_noise_sd");
        aa_json_num(j, f->step_noise_sd);
    }
    if (f->kind != AA_FINDING_DISPARITY) {
        aa_json_key(j, "wait_seconds");
        aa_json_num(j, f->wait_s);
        if (f->kind == AA_FINDING_DISSIMILARITY) {
            aa_json_key(j, "late_seconds");
            aa_json_num(j, f->late_s);
        }
        aa_json_key(j, "wait_region");
        if (f->wait_region >= 0) {
            aa_json_obj_begin(j);
            json_region_fields(j, a, (size_t)f->wait_region);
            aa_json_obj_end(j);
        } else {
            aa_json_null(j);
        }
        aa_json_key(j, "wait_kind");
        if (f->wait_kind)
            aa_json_str(j, f->wait_kind);
        else
            aa_json_null(j);
        aa_json_key(j, "waiting_ranks");
        aa_json_arr_begin(j);
        for (i = 0; i < f->nwait; i++)
            aa_json_int(j, f->wait_ranks[i]);
        aa_json_arr_end(j);
        json_rankset(j, "waiting_rank_set", f->wait_ranks, f->nwait);
        aa_json_key(j, "slow_ranks");
        aa_json_arr_begin(j);
        for (i = 0; i < f->nslow; i++)
            aa_json_int(j, f->slow_ranks[i]);
        aa_json_arr_end(j);
        json_rankset(j, "slow_rank_set", f->slow_ranks, f->nslow);
    }
    aa_json_key(j, "rank");
    aa_json_int(j, (long long)(f - a->findings) + 1);
    aa_json_key(j, "root_causes");
    aa_json_arr_begin(j);
    for (i = 0; i < f->ncauses; i++)
        aa_json_str(j, f->causes[i]);
    aa_json_arr_end(j);
    aa_json_key(j, "evidence");
    aa_json_obj_begin(j);
    for (i = 0; i < f->ncauses; i++) {
        aa_json_key(j, f->evidence[i].attribute);
        aa_json_obj_begin(j);
        aa_json_key(j, "value");
        aa_json_num(j, f->evidence[i].value);
        aa_json_key(j, "reference");
        aa_json_num(j, f->evidence[i].reference);
        aa_json_obj_end(j);
    }
    aa_json_obj_end(j);
    aa_json_key(j, "suggestion");
    aa_json_str(j, f->suggestion ? f->suggestion : "");
    if (f->history_runs) {
        aa_json_key(j, "history_runs");
        aa_json_int(j, (long long)f->history_runs);
    }
    aa_json_obj_end(j);
}

static void json_strs(aa_json *j, const char *key, char **s, size_t n)
{
    size_t i;
    aa_json_key(j, key);
    aa_json_arr_begin(j);
    for (i = 0; i < n; i++)
        aa_json_str(j, s[i]);
    aa_json_arr_end(j);
}

/* Region severity keyed by static id: the highest class over its contexts. */
static int id_severity(const aa_analysis *a, size_t r, int *first)
{
    size_t i;
    int s = a->severity[r];
    *first = 1;
    for (i = 0; i < a->nregions; i++)
        if (a->regions[i].id == a->regions[r].id) {
            if (i < r) {
                *first = 0;
                return 0;
            }
            if (a->severity[i] > s)
                s = a->severity[i];
        }
    return s;
}

int aa_analyze_format_json(const aa_analysis *a, aa_buf *b)
{
    aa_json j;
    size_t i, k;
    const aa_experiment *e = a->exp;
    aa_json_init(&j, b, 1);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "experiment");
    aa_json_str(&j, e && e->id ? e->id : "");
    aa_json_key(&j, "program");
    aa_json_str(&j, e && e->program ? e->program : "");
    aa_json_key(&j, "processes");
    aa_json_int(&j, (long long)a->nprocesses);
    aa_json_key(&j, "ranks");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nprocesses; i++)
        aa_json_int(&j, a->ranks[i]);
    aa_json_arr_end(&j);
    json_rankset(&j, "rank_set", a->ranks, a->nprocesses);
    aa_json_key(&j, "excluded_ranks");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nexcluded_ranks; i++)
        aa_json_int(&j, a->excluded_ranks[i]);
    aa_json_arr_end(&j);
    json_rankset(&j, "excluded_rank_set", a->excluded_ranks, a->nexcluded_ranks);
    aa_json_key(&j, "regions");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nregions; i++) {
        long par = a->regions[i].parent;
        aa_json_obj_begin(&j);
        json_region_fields(&j, a, i);
        aa_json_key(&j, "parent");
        if (par < 0)
            aa_json_null(&j);
        else
            aa_json_int(&j, a->regions[par].id);
        json_parent_index(&j, a, i);
        aa_json_key(&j, "depth");
        aa_json_int(&j, a->regions[i].depth);
        aa_json_key(&j, "processes");
        aa_json_int(&j, (long long)a->regions[i].nprocs_run);
        aa_json_key(&j, "value");
        aa_json_num(&j, a->region_value[i]);
        aa_json_key(&j, "severity");
        aa_json_int(&j, a->severity[i]);
        aa_json_obj_end(&j);
    }
    aa_json_arr_end(&j);

    aa_json_key(&j, "dissimilarity");
    aa_json_obj_begin(&j);
    aa_json_key(&j, "metric");
    aa_json_str(&j, a->proc_metric);
    aa_json_key(&j, "outside_io");
    aa_json_bool(&j, a->proc_metric_io);
    aa_json_key(&j, "io_calls_at_mean_cost");
    aa_json_bool(&j, a->io_call_cost != NULL);
    aa_json_key(&j, "blocked_time");
    aa_json_bool(&j, a->proc_metric_blocked);
    aa_json_key(&j, "speed_normalized");
    aa_json_bool(&j, a->speed_normalized);
    aa_json_key(&j, "min_pts");
    aa_json_int(&j, (long long)a->min_pts_used);
    aa_json_key(&j, "eps");
    aa_json_num(&j, a->eps_used);
    aa_json_key(&j, "noise");
    aa_json_obj_begin(&j);
    aa_json_key(&j, "relative");
    aa_json_num(&j, a->noise_rel);
    aa_json_key(&j, "between_processes");
    aa_json_num(&j, a->noise_between);
    aa_json_key(&j, "between_measured");
    aa_json_num(&j, a->noise_between_measured > 0 ? a->noise_between_measured
                                                   : a->noise_between);
    aa_json_key(&j, "visits");
    aa_json_num(&j, a->noise_visits);
    aa_json_key(&j, "one_visit");
    aa_json_num(&j, a->noise_one_visit);
    aa_json_obj_end(&j);
    json_placement(&j, a);
    json_placement_undecided(&j, a);
    json_speed(&j, a);
    json_pace(&j, a);
    aa_json_key(&j, "clusters");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nclusters; i++) {
        aa_json_obj_begin(&j);
        aa_json_key(&j, "id");
        aa_json_int(&j, (long long)i);
        aa_json_key(&j, "mean");
        aa_json_num(&j, a->cluster_mean ? a->cluster_mean[i] : NAN);
        aa_json_key(&j, "ranks");
        aa_json_arr_begin(&j);
        for (k = 0; k < a->cluster_size[i]; k++)
            aa_json_int(&j, a->cluster_ranks[i][k]);
        aa_json_arr_end(&j);
        json_rankset(&j, "rank_set", a->cluster_ranks[i], a->cluster_size[i]);
        aa_json_obj_end(&j);
    }
    aa_json_arr_end(&j);
    aa_json_key(&j, "bottlenecks");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISSIMILARITY)
            json_finding(&j, a, &a->findings[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "core");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->ncore_dissim; i++)
        aa_json_str(&j, a->core_dissim[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "suspects");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nsuspects; i++) {
        aa_json_obj_begin(&j);
        aa_json_key(&j, "region");
        aa_json_int(&j, a->regions[a->suspects[i]].id);
        json_region_fields(&j, a, a->suspects[i]);
        aa_json_key(&j, "separation");
        aa_json_num(&j, a->suspect_sep[i]);
        aa_json_obj_end(&j);
    }
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);

    aa_json_key(&j, "disparity");
    aa_json_obj_begin(&j);
    aa_json_key(&j, "metric");
    aa_json_str(&j, a->region_metric);
    aa_json_key(&j, "severity");
    aa_json_obj_begin(&j);
    for (i = 1; i < a->nregions; i++) {
        int first, s = id_severity(a, i, &first);
        char key[16];
        if (!first)
            continue;
        snprintf(key, sizeof key, "%u", a->regions[i].id);
        aa_json_key(&j, key);
        aa_json_int(&j, s);
    }
    aa_json_obj_end(&j);
    aa_json_key(&j, "bottlenecks");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISPARITY)
            json_finding(&j, a, &a->findings[i]);
    aa_json_arr_end(&j);
    aa_json_key(&j, "core");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->ncore_disp; i++)
        aa_json_str(&j, a->core_disp[i]);
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);

    aa_json_key(&j, "dynamic");
    aa_json_obj_begin(&j);
    aa_json_key(&j, "measured");
    aa_json_bool(&j, a->dynamic_measured);
    aa_json_key(&j, "bottlenecks");
    aa_json_arr_begin(&j);
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DYNAMIC)
            json_finding(&j, a, &a->findings[i]);
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);

    json_strs(&j, "attributes", a->attributes, a->nattributes);
    json_strs(&j, "unavailable", a->unavailable, a->nunavailable);
    aa_json_key(&j, "inconsistent_pairs");
    aa_json_int(&j, (long long)a->ninconsistent);
    an_history_json(&j, a);
    json_strs(&j, "notes", a->notes, a->nnotes);
    aa_json_obj_end(&j);
    aa_buf_putc(b, '\n');
    return b->failed ? AA_EENV : AA_OK;
}

/* ---- XML -------------------------------------------------------------------- */
static void xesc(aa_buf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '<': aa_buf_puts(b, "&lt;"); break;
        case '>': aa_buf_puts(b, "&gt;"); break;
        case '&': aa_buf_puts(b, "&amp;"); break;
        case '"': aa_buf_puts(b, "&quot;"); break;
        case '\'': aa_buf_puts(b, "&apos;"); break;
        default:
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
                aa_buf_putc(b, '?'); /* not representable in XML 1.0 */
            else
                aa_buf_putc(b, (char)ch);
        }
    }
}

void an_xml_escape(aa_buf *b, const char *s) { xesc(b, s); }

static void xnum(aa_buf *b, double v)
{
    char t[32];
    if (!isfinite(v)) {
        aa_buf_puts(b, "NaN");
        return;
    }
    aa_format_double(t, v);
    aa_buf_puts(b, t);
}

static void xml_region_attrs(aa_buf *b, const aa_analysis *a, size_t r)
{
    const aa_region *ri = reg_info(a, r);
    aa_buf_printf(b, " index=\"%zu\" id=\"%u\" name=\"", a->regions[r].index, a->regions[r].id);
    xesc(b, reg_name(a, r));
    aa_buf_printf(b, "\" kind=\"%s\" function=\"", ri ? aa_region_kind_name(ri->kind) : "unknown");
    xesc(b, ri ? ri->function : "");
    aa_buf_puts(b, "\" file=\"");
    xesc(b, ri ? ri->file : "");
    aa_buf_printf(b, "\" line=\"%d\"", ri ? ri->line : 0);
}

static void xml_finding(aa_buf *b, const aa_analysis *a, const aa_finding *f)
{
    size_t i;
    aa_buf_puts(b, "    <bottleneck");
    xml_region_attrs(b, a, f->region);
    aa_buf_printf(b, " ccr=\"%s\" cccr=\"%s\" severity=\"", f->ccr ? "true" : "false",
                  f->cccr ? "true" : "false");
    xnum(b, f->severity);
    if (f->kind == AA_FINDING_DISPARITY) {
        aa_buf_printf(b, "\" severity_class=\"%d\" value=\"", f->severity_class);
        xnum(b, f->effect);
        if (f->ncontexts) {
            aa_buf_puts(b, "\" contexts=\"");
            for (i = 0; i < f->ncontexts; i++)
                aa_buf_printf(b, "%s%zu", i ? " " : "", a->regions[f->contexts[i]].index);
        }
    } else {
        aa_buf_puts(b, "\" effect=\"");
        xnum(b, f->effect);
    }
    aa_buf_puts(b, "\" confidence=\"");
    xnum(b, f->confidence);
    aa_buf_puts(b, "\" impact_seconds=\"");
    xnum(b, f->impact_s);
    if (f->kind == AA_FINDING_DISSIMILARITY) {
        aa_buf_puts(b, "\" excess_seconds=\"");
        xnum(b, f->excess_s);
    }
    aa_buf_puts(b, "\" run_share=\"");
    xnum(b, f->run_share);
    aa_buf_printf(b, "\" rank=\"%zu", (size_t)(f - a->findings) + 1);
    aa_buf_puts(b, "\">\n");
    for (i = 0; i < f->ncauses; i++) {
        aa_buf_puts(b, "      <root_cause attribute=\"");
        xesc(b, f->causes[i]);
        aa_buf_puts(b, "\" value=\"");
        xnum(b, f->evidence[i].value);
        aa_buf_puts(b, "\" reference=\"");
        xnum(b, f->evidence[i].reference);
        aa_buf_puts(b, "\"/>\n");
    }
    aa_buf_puts(b, "      <suggestion>");
    xesc(b, f->suggestion);
    aa_buf_puts(b, "</suggestion>\n    </bottleneck>\n");
}

static void xml_list(aa_buf *b, const char *outer, const char *inner, char **s, size_t n,
                     const char *indent)
{
    size_t i;
    aa_buf_printf(b, "%s<%s>", indent, outer);
    for (i = 0; i < n; i++) {
        aa_buf_printf(b, "<%s>", inner);
        xesc(b, s[i]);
        aa_buf_printf(b, "</%s>", inner);
    }
    aa_buf_printf(b, "</%s>\n", outer);
}

int aa_analyze_format_xml(const aa_analysis *a, aa_buf *b)
{
    size_t i, k;
    const aa_experiment *e = a->exp;
    aa_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<analysis experiment=\"");
    xesc(b, e ? e->id : "");
    aa_buf_puts(b, "\" program=\"");
    xesc(b, e ? e->program : "");
    aa_buf_printf(b, "\" processes=\"%zu\" inconsistent_pairs=\"%zu\">\n", a->nprocesses,
                  a->ninconsistent);
    aa_buf_puts(b, "  <excluded_ranks>");
    for (i = 0; i < a->nexcluded_ranks; i++)
        aa_buf_printf(b, "%s%d", i ? " " : "", a->excluded_ranks[i]);
    aa_buf_puts(b, "</excluded_ranks>\n  <regions>\n");
    for (i = 0; i < a->nregions; i++) {
        long par = a->regions[i].parent;
        aa_buf_puts(b, "    <region");
        xml_region_attrs(b, a, i);
        if (par >= 0)
            aa_buf_printf(b, " parent=\"%u\" parent_index=\"%zu\"", a->regions[par].id,
                          a->regions[par].index);
        aa_buf_printf(b, " depth=\"%d\" processes=\"%zu\" value=\"", a->regions[i].depth,
                      a->regions[i].nprocs_run);
        xnum(b, a->region_value[i]);
        aa_buf_printf(b, "\" severity=\"%d\"/>\n", a->severity[i]);
    }
    aa_buf_puts(b, "  </regions>\n  <dissimilarity metric=\"");
    xesc(b, a->proc_metric);
    aa_buf_printf(b, "\" min_pts=\"%zu\" eps=\"", a->min_pts_used);
    xnum(b, a->eps_used);
    aa_buf_puts(b, "\">\n");
    for (i = 0; i < a->nclusters; i++) {
        aa_buf_printf(b, "    <cluster id=\"%zu\" mean=\"", i);
        xnum(b, a->cluster_mean ? a->cluster_mean[i] : NAN);
        aa_buf_puts(b, "\" ranks=\"");
        for (k = 0; k < a->cluster_size[i]; k++)
            aa_buf_printf(b, "%s%d", k ? " " : "", a->cluster_ranks[i][k]);
        aa_buf_puts(b, "\"/>\n");
    }
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISSIMILARITY)
            xml_finding(b, a, &a->findings[i]);
    xml_list(b, "core", "attribute", a->core_dissim, a->ncore_dissim, "    ");
    for (i = 0; i < a->nsuspects; i++) {
        aa_buf_printf(b, "    <suspect region=\"%lu\" index=\"%zu\" separation=\"",
                      (unsigned long)a->regions[a->suspects[i]].id,
                      a->regions[a->suspects[i]].index);
        xnum(b, a->suspect_sep[i]);
        aa_buf_puts(b, "\"/>\n");
    }
    aa_buf_puts(b, "  </dissimilarity>\n  <disparity metric=\"");
    xesc(b, a->region_metric);
    aa_buf_puts(b, "\">\n");
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DISPARITY)
            xml_finding(b, a, &a->findings[i]);
    xml_list(b, "core", "attribute", a->core_disp, a->ncore_disp, "    ");
    aa_buf_puts(b, "  </disparity>\n");
    aa_buf_printf(b, "  <dynamic measured=\"%s\">\n", a->dynamic_measured ? "true" : "false");
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == AA_FINDING_DYNAMIC)
            xml_finding(b, a, &a->findings[i]);
    aa_buf_puts(b, "  </dynamic>\n");
    xml_list(b, "attributes", "attribute", a->attributes, a->nattributes, "  ");
    xml_list(b, "unavailable", "attribute", a->unavailable, a->nunavailable, "  ");
    an_history_xml(b, a);
    xml_list(b, "notes", "note", a->notes, a->nnotes, "  ");
    aa_buf_puts(b, "</analysis>\n");
    return b->failed ? AA_EENV : AA_OK;
}

/* ---- region distributions (the parallel analysis' --regions-json) ---- */
static void json_dist(aa_json *j, const char *key, const aa_region_dist *d)
{
    const char *const name[] = {"min", "median", "p90", "max", "mean", "stddev"};
    const double v[] = {d->min, d->median, d->p90, d->max, d->mean, d->stddev};
    size_t i;
    aa_json_key(j, key);
    aa_json_obj_begin(j);
    aa_json_key(j, "n");
    aa_json_int(j, (long long)d->n);
    for (i = 0; i < sizeof v / sizeof *v; i++) {
        aa_json_key(j, name[i]);
        aa_json_num(j, v[i]);
    }
    aa_json_obj_end(j);
}

int aa_analyze_format_dist_json(const aa_analysis *a, const aa_region_dist *d, aa_buf *b)
{
    aa_json j;
    size_t r;
    aa_json_init(&j, b, 1);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "processes");
    aa_json_int(&j, (long long)a->nprocesses);
    aa_json_key(&j, "process_metric");
    aa_json_str(&j, a->proc_metric);
    aa_json_key(&j, "regions");
    aa_json_arr_begin(&j);
    for (r = 0; r < a->nregions; r++) {
        aa_json_obj_begin(&j);
        json_region_fields(&j, a, r);
        json_parent_index(&j, a, r);
        json_dist(&j, "wall", &d[r]);
        json_dist(&j, "process_metric", &d[a->nregions + r]);
        aa_json_obj_end(&j);
    }
    aa_json_arr_end(&j);
    aa_json_obj_end(&j);
    aa_buf_putc(b, '\n');
    return b->failed ? -1 : 0;
}
