/*
 * tests/unit/test_analyze_history.c -- the history-guided analysis
 * (analyze/history.c) on a hand-built experiment: two hotspots of equal
 * impact and an imbalance.  Without history the analysis' order stays; a
 * priority puts its region first among equals and marks the finding; a
 * prune removes the findings in the pruned region and says so; learned
 * run-to-run noise larger than the imbalance removes it, noise below the
 * run's own changes nothing; the renderings say which history was used.
 */
#include "analyze/aa_analyze.h"
#include "tests/tap.h"
#include "tests/unit/test_analyze_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { R_PROG, R_MAIN, R_A, R_B, R_C };

static long node(aa_experiment *e, aa_thread *t, uint32_t id, long parent, double s)
{
    long n = aa_thread_add_node(e, t, id, (int32_t)parent);
    double *v = aa_node_values(e, t, (size_t)n);
    v[0] = s;
    v[1] = s;
    return n;
}

/* 8 processes: loops A and B take 30 s each everywhere (equal hotspots);
 * loop C takes 10 s, 14 s on ranks 4-7 (an imbalance of 4 s, a third of
 * its mean); main's own code varies by about 1% between processes. */
static aa_experiment *build(void)
{
    aa_experiment *e = aa_experiment_new();
    int p;
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    add_region(e, R_PROG, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, R_MAIN, 0, "main", AA_KIND_FUNCTION);
    add_region(e, R_A, R_MAIN, "A", AA_KIND_LOOP);
    add_region(e, R_B, R_MAIN, "B", AA_KIND_LOOP);
    add_region(e, R_C, R_MAIN, "C", AA_KIND_LOOP);
    for (p = 0; p < 8; p++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, p), 0);
        double c = p >= 4 ? 14 : 10, tot = 30 + 30 + c + 2 + 0.02 * (p % 3);
        long r = node(e, t, R_PROG, -1, tot), m = node(e, t, R_MAIN, r, tot);
        node(e, t, R_A, m, 30);
        node(e, t, R_B, m, 30);
        node(e, t, R_C, m, c);
    }
    return e;
}

static long find(const aa_analysis *a, uint32_t id, aa_finding_kind kind)
{
    size_t i;
    for (i = 0; i < a->nfindings; i++)
        if (a->regions[a->findings[i].region].id == id && a->findings[i].kind == kind)
            return (long)i;
    return -1;
}

/* The JSON writer's pretty layout squeezed to one line: no newlines, no
 * indentation, no space after a key's colon. */
static char *compact(char *s)
{
    char *r = s, *w = s;
    while (r && *r) {
        if (*r == '\n') {
            for (r++; *r == ' '; r++)
                ;
            continue;
        }
        if (r[0] == '"' && r[1] == ':' && r[2] == ' ') {
            *w++ = '"';
            *w++ = ':';
            r += 3;
            continue;
        }
        *w++ = *r++;
    }
    if (w)
        *w = 0;
    return s;
}

static aa_analysis *run(const aa_experiment *e, const aa_analyze_history *h)
{
    aa_analyze_options o;
    aa_analysis *a = NULL;
    aa_err err;
    aa_analyze_options_init(&o);
    o.history = h;
    if (aa_analyze_run(e, &o, &a, &err) != AA_OK) {
        diag("analysis failed: %s", err.msg);
        return NULL;
    }
    return a;
}

static void test_history(void)
{
    aa_experiment *e = build();
    aa_analysis *a = run(e, NULL);
    long ia, ib, ic;
    static const long long runs[] = {7, 5};
    static const aa_analyze_priority prio[] = {{R_B, 2}};
    static const aa_analyze_prune prune[] = {{R_A, "/Code/t.c/f/A", "not ours"}};
    uint32_t noise_id[] = {R_C};
    double noise_big[] = {0.2}, noise_small[] = {0};
    aa_analyze_history h;
    aa_buf b;

    if (!a) {
        ok(0, "analysis without history");
        aa_experiment_free(e);
        return;
    }
    ia = find(a, R_A, AA_FINDING_DISPARITY);
    ib = find(a, R_B, AA_FINDING_DISPARITY);
    ic = find(a, R_C, AA_FINDING_DISSIMILARITY);
    ok(ia >= 0 && ib >= 0, "two hotspots, A and B");
    ok(ia >= 0 && ib >= 0 && a->findings[ia].impact_s == a->findings[ib].impact_s,
       "of equal impact");
    ok(ia < ib, "without history A comes first");
    ok(ic >= 0, "the imbalance in C is found");
    ok(a->history == NULL, "no history record without history");
    aa_buf_init(&b);
    aa_analyze_format_text(a, &b);
    ok(!strstr(b.data, "History used"), "and the text says nothing of it");
    aa_buf_free(&b);
    aa_analyze_free(a);

    /* priorities */
    memset(&h, 0, sizeof h);
    h.source = "test";
    h.npriorities = 1;
    h.priorities = prio;
    h.npriority_runs = 2;
    h.priority_runs = runs;
    a = run(e, &h);
    if (a) {
        ia = find(a, R_A, AA_FINDING_DISPARITY);
        ib = find(a, R_B, AA_FINDING_DISPARITY);
        ok(ib >= 0 && ib < ia, "a priority comes first among equal findings");
        is_int(ib >= 0 ? (long long)a->findings[ib].history_runs : -1, 2,
               "and says in how many earlier runs it was found");
        is_int(a->history ? (long long)a->history->nprioritized : -1, 1, "one finding prioritized");
        aa_buf_init(&b);
        aa_analyze_format_text(a, &b);
        ok(b.data && strstr(b.data,
              "priorities from executions 7, 5: 1 region with earlier bottlenecks, "
                     "1 finding there now"),
           "the text says where the priorities come from");
        ok(b.data && strstr(b.data,
              "found before: in 2 earlier runs"),
           "and marks the finding");
        aa_buf_reset(&b);
        aa_analyze_format_json(a, &b);
        compact(b.data);
        ok(b.data && strstr(b.data,
              "\"history\":{\"source\":\"test\",\"pruned\":[],\"priorities_from\":"
                     "[7,5],\"priority_regions\":1,\"prioritized_findings\":1"),
           "the JSON too");
        ok(b.data && strstr(b.data,
              "\"history_runs\":2"),
           "with the finding's earlier runs");
        aa_buf_reset(&b);
        aa_analyze_format_xml(a, &b);
        ok(b.data && strstr(b.data,
              "<history source=\"test\" priority_regions=\"1\""),
           "and the XML");
        aa_buf_free(&b);
    } else {
        ok(0, "analysis with priorities");
    }
    aa_analyze_free(a);

    /* prunes */
    memset(&h, 0, sizeof h);
    h.nprunes = 1;
    h.prunes = prune;
    a = run(e, &h);
    if (a) {
        ok(find(a, R_A, AA_FINDING_DISPARITY) < 0, "a prune removes the finding in its region");
        ok(find(a, R_B, AA_FINDING_DISPARITY) >= 0, "and leaves the others");
        is_int(a->history ? (long long)a->history->nremoved : -1, 1, "one finding removed");
        is_int(a->history && a->history->nprunes ? (long long)a->history->prunes[0].nregions : -1,
               1, "the prune covers one region");
        aa_buf_init(&b);
        aa_analyze_format_text(a, &b);
        ok(b.data && strstr(b.data,
              "pruned: 1 resource (/Code/t.c/f/A: not ours), 1 finding removed"),
           "the text says what was pruned and why");
        aa_buf_reset(&b);
        aa_analyze_format_json(a, &b);
        compact(b.data);
        ok(b.data && strstr(b.data,
              "\"pruned\":[{\"resource\":\"/Code/t.c/f/A\",\"reason\":\"not ours\","
                     "\"regions\":1,\"findings_removed\":1}]"),
           "the JSON too");
        aa_buf_free(&b);
    } else {
        ok(0, "analysis with prunes");
    }
    aa_analyze_free(a);

    /* learned noise: C varies by 20% between runs; its 10% imbalance is
     * within 3 times that */
    memset(&h, 0, sizeof h);
    h.nnoise = 1;
    h.noise_ids = noise_id;
    h.noise_spread = noise_big;
    h.nnoise_runs = 2;
    h.noise_runs = runs;
    a = run(e, &h);
    if (a) {
        ok(find(a, R_C, AA_FINDING_DISSIMILARITY) < 0,
           "an imbalance within the region's run-to-run noise is removed");
        is_int(a->history ? (long long)a->history->nnoise_removed : -1, 1, "and counted");
        is_int(a->history ? (long long)a->history->nnoise_raised : -1, 1,
               "the history raised the region's noise floor");
        aa_buf_init(&b);
        aa_analyze_format_text(a, &b);
        ok(b.data && strstr(b.data,
              "noise from executions 7, 5: 1 region, 1 noisier between runs than within "
                     "this one; 1 imbalance within 3 times that noise removed"),
           "the text says so");
        aa_buf_free(&b);
    } else {
        ok(0, "analysis with noise");
    }
    aa_analyze_free(a);
    h.noise_spread = noise_small;
    a = run(e, &h);
    if (a) {
        ok(find(a, R_C, AA_FINDING_DISSIMILARITY) >= 0,
           "a region that did not vary between runs changes nothing");
        is_int(a->history ? (long long)a->history->nnoise_raised : -1, 0, "nothing raised");
    } else {
        ok(0, "analysis with small noise");
    }
    aa_analyze_free(a);
    aa_experiment_free(e);
}

int main(void)
{
    test_history();
    return tap_done();
}
