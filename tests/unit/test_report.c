/*
 * tests/unit/test_report.c -- the HTML report and the run comparison on
 * synthetic experiments (analyze's generator): sections and charts present,
 * program names escaped (a region renamed to a <script> tag), the OPTICS
 * plot recomputed, a comparison of a run with itself finds no change, a run
 * with an injected slow group against a clean one finds a new bottleneck
 * and a slowdown, and aa_report_escape escapes the five special characters.
 */
#include "analyze/aa_analyze.h"
#include "report/aa_report.h"
#include "tests/tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static aa_experiment *synth(aa_synth_scenario sc, unsigned seed)
{
    aa_synth_options o;
    aa_experiment *e = NULL;
    aa_err err;
    aa_synth_options_init(&o);
    o.scenario = sc;
    o.nprocs = 8;
    o.seed = seed;
    o.no_counters = 1;
    if (aa_synth_generate(&o, &e, NULL, NULL, &err) != AA_OK)
        diag("synth: %s", err.msg);
    return e;
}

static aa_analysis *analyse(const aa_experiment *e)
{
    aa_analyze_options o;
    aa_analysis *a = NULL;
    aa_err err;
    aa_analyze_options_init(&o);
    if (aa_analyze_run(e, &o, &a, &err) != AA_OK)
        diag("analyze: %s", err.msg);
    return a;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p = hay;
    while ((p = strstr(p, needle))) {
        n++;
        p += strlen(needle);
    }
    return n;
}

int main(void)
{
    aa_experiment *clean = synth(AA_SYNTH_NONE, 3), *slow = synth(AA_SYNTH_SLOW_GROUP, 3);
    aa_analysis *ac, *as;
    aa_report_comparison *cmp = NULL;
    aa_buf b;
    aa_err err;
    size_t i;
    int renamed = 0;

    ok(clean && slow, "synthetic experiments");
    if (!clean || !slow)
        return tap_done();
    /* hostile names in the slow run */
    for (i = 0; i < slow->nregions; i++) {
        if (slow->regions[i].kind == AA_KIND_LOOP && !renamed) {
            free(slow->regions[i].name);
            slow->regions[i].name = strdup("<script>alert('x')</script>");
            free(slow->regions[i].file);
            slow->regions[i].file = strdup("a\"b&c.c");
            renamed = 1;
        }
    }
    aa_experiment_set_attr(slow, "note", "<img src=x onerror=alert(1)>");
    ac = analyse(clean);
    as = analyse(slow);
    ok(ac && as, "analyses");
    if (!ac || !as)
        return tap_done();

    aa_buf_init(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html of the slow run");
    ok(b.data && strncmp(b.data, "<!DOCTYPE html>", 15) == 0, "starts with the doctype");
    ok(strstr(b.data, "</html>") != NULL, "complete document");
    is_int((int)count(b.data, "<script"), 1, "one script element");
    ok(!strstr(b.data, "<script>alert"), "region name escaped");
    ok(strstr(b.data, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != NULL,
       "escaped name shown");
    ok(!strstr(b.data, "<img"), "attribute value escaped");
    ok(strstr(b.data, "a&quot;b&amp;c.c") != NULL, "file name escaped");
    ok(strstr(b.data, "data-chart=\"severity\"") && strstr(b.data, "data-chart=\"heatmap\"") &&
           strstr(b.data, "data-chart=\"optics\""),
       "three charts");
    ok(strstr(b.data, "id=\"comparison\"") == NULL, "no comparison without a baseline");
    ok(strstr(b.data, "2 clusters") != NULL || strstr(b.data, "clusters.</p>") != NULL,
       "OPTICS plot states its clusters");
    ok(strstr(b.data, "class=\"unavail\">l1_miss_rate<") != NULL, "unmeasured attributes listed");
    ok(strstr(b.data, "<th>impact</th>") && strstr(b.data, "%)</td>"),
       "findings table states their impact (seconds, share of the run)");
    {
        /* the report's own views and words */
        const char *fs = strstr(b.data, "<div class=\"finding\"><h3>1. Imbalance in ");
        const char *hm = strstr(b.data, "<section id=\"heatmap\">");
        const char *hme = hm ? strstr(hm, "</section>") : NULL;
        const char *op = strstr(b.data, "<section id=\"optics\">"), *q;
        size_t nundef = 0, tall = 0;
        ok(strstr(b.data, "<tr><th>run time</th><td>") != NULL, "summary: the run time in seconds");
        ok(fs && strstr(fs, " s (") && strstr(fs, "% of the run)</h3><p><b>ranks "),
           "first finding: seconds, share of the run, then who in plain words");
        ok(fs && strstr(fs, "here per cluster of processes: cluster 0 ("), "finding: cluster means");
        ok(fs && strstr(fs, "data-chart=\"ranks-1\""), "finding: per-rank bar chart");
        ok(strstr(b.data, "<section id=\"legend\">") && strstr(b.data, "<dt>CCCR</dt>") &&
               strstr(b.data, "<dt>effect</dt>") && strstr(b.data, "<dt>confidence</dt>"),
           "legend of the terms");
        is_int((int)count(b.data, "<tr data-i=\""), (int)as->nregions,
               "call tree: one row per region");
        ok(strstr(b.data, "<th>inclusive</th>") && strstr(b.data, "<th>exclusive</th>"),
           "call tree: inclusive and exclusive times");
        ok(hm && hme && !strstr(hm, "rotate(-60)\">#"), "heat map: no #ordinal column labels");
        /* colour on share of the run: every cell under 5% of the run stays light
         * (the run: the median whole-program time the analysis measures impact by) */
        for (q = hm; q && hme && as->findings[0].run_share > 0 &&
                     (q = strstr(q, "<rect ")) && q < hme;
             q++) {
            const char *fill = strstr(q, "fill=\"#"), *tip = strstr(q, "data-tip=\"rank ");
            const char *end = tip ? strchr(tip + 10, '"') : NULL, *t;
            double run = as->findings[0].impact_s / as->findings[0].run_share, secs;
            unsigned r, g, bb;
            if (!fill || !tip || !end || sscanf(fill, "fill=\"#%2x%2x%2x", &r, &g, &bb) != 3)
                continue;
            for (t = tip; strstr(t, ": ") && strstr(t, ": ") < end; t = strstr(t, ": ") + 2)
                ;
            secs = atof(t);
            if (strncmp(strchr(t, ' ') ? strchr(t, ' ') : t, " ms", 3) == 0)
                secs *= 1e-3;
            else if (strncmp(strchr(t, ' ') ? strchr(t, ' ') : t, " &#181;s", 8) == 0)
                secs *= 1e-6;
            if (secs < 0.05 * run && g < 0xe0)
                tall++;
        }
        is_int((int)tall, 0, "heat map: no dark cell for a region under 5% of the run");
        for (q = op; q && (q = strstr(q, "reachability undefined")); q++) {
            const char *h = q;
            while (h > op && strncmp(h, "height=\"", 8))
                h--;
            nundef++;
            if (atof(h + 8) > 20)
                tall++;
        }
        ok(nundef >= 1 && tall == 0,
           "OPTICS: %zu undefined reachabilities drawn short, not as the tallest bar", nundef);
    }
    as->ninconsistent = 2;
    aa_buf_reset(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html with inconsistent pairs");
    ok(strstr(b.data, "<span class=\"muted\">2 inconsistent object pairs skipped") != NULL,
       "inconsistent pairs: a quiet note, not a warning");
    as->ninconsistent = 0;
    aa_buf_reset(&b);
    is_int(aa_report_html(as, NULL, NULL, &b, &err), AA_OK, "html of the slow run again");
    {
        /* one source of numbers: the plot is the analysis' own clustering */
        const char *sec = strstr(b.data, "<section id=\"optics\">");
        const char *end = sec ? strstr(sec, "</section>") : NULL;
        char want[64], *part = NULL;
        snprintf(want, sizeof want, ". %zu cluster%s.</p>", as->nclusters,
                 as->nclusters == 1 ? "" : "s");
        if (sec && end)
            part = strndup(sec, (size_t)(end - sec));
        ok(part && strstr(part, want), "OPTICS plot: the analysis' %zu clusters", as->nclusters);
        ok(part && count(part, "data-tip=\"rank ") == as->nprocesses,
           "OPTICS plot: one bar per analysed process");
        ok(part && strstr(part, "MinPts") && as->optics_order, "OPTICS plot: the analysis' run");
        free(part);
    }

    /* comparisons */
    is_int(aa_report_compare(as, as, "itself", &cmp, &err), AA_OK, "compare a run with itself");
    if (cmp) {
        double maxd = 0;
        is_int((int)(cmp->nnew + cmp->ngone + cmp->nchanged), 0, "no bottleneck changes");
        for (i = 0; i < cmp->ndiffs; i++)
            if (fabs(cmp->diffs[i].delta) > maxd)
                maxd = fabs(cmp->diffs[i].delta);
        ok(maxd == 0, "no performance differences");
        ok(cmp->ndiffs == as->nregions, "every region compared");
        is_int((int)aa_report_slowdowns(cmp, 0.0, 0.0, NULL, 0), 0, "no slowdown");
        aa_report_comparison_free(cmp);
    }
    cmp = NULL;
    is_int(aa_report_compare(as, ac, "clean", &cmp, &err), AA_OK, "compare slow with clean");
    if (cmp) {
        size_t idx[4];
        ok(cmp->nnew >= 1, "the slow group is a new core bottleneck (%zu new)", cmp->nnew);
        ok(cmp->ndiffs > 0 && cmp->diffs[0].delta > 0, "largest difference is a slowdown");
        ok(aa_report_slowdowns(cmp, 0.10, 0.02, idx, 4) >= 1, "slowdown gate at 10%% trips");
        ok(aa_report_slowdowns(cmp, 1000.0, 0.02, idx, 4) == 0, "slowdown gate at 100000%% does not");
        aa_buf_reset(&b);
        is_int(aa_report_html(as, slow, cmp, &b, &err), AA_OK, "html with a comparison");
        ok(strstr(b.data, "id=\"comparison\"") && strstr(b.data, "<tr class=\"new\">"),
           "comparison lists the new bottleneck");
        aa_report_comparison_free(cmp);
    }
    cmp = NULL;
    is_int(aa_report_compare(ac, as, "slow", &cmp, &err), AA_OK, "compare clean with slow");
    if (cmp) {
        ok(cmp->ngone >= 1, "the other way round it is gone (%zu gone)", cmp->ngone);
        aa_report_comparison_free(cmp);
    }

    aa_buf_reset(&b);
    aa_report_escape(&b, "<a href=\"x\">'&'</a>");
    is_str(b.data, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;", "escape");
    aa_buf_reset(&b);
    aa_report_escape(&b, NULL);
    ok(b.len == 0, "escape NULL");

    aa_buf_free(&b);
    aa_analyze_free(ac);
    aa_analyze_free(as);
    aa_experiment_free(clean);
    aa_experiment_free(slow);
    return tap_done();
}
