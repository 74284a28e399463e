/*
 * tests/unit/test_engine.c -- the engine's nightly gates on hand-built
 * comparisons: the region-slowdown gate counts a region whose share of the
 * run was tiny in the baseline but large now (the larger of the two shares),
 * measures in the configured metric (wall time or CPU time outside MPI),
 * skips throttled regions, and a passed gate is reported as such; the
 * new-bottleneck gate lists each new core bottleneck.  Also the Program
 * Space round trip the engine relies on: an execution stored with its
 * experiment is loaded back identical, one imported from the text format
 * says it has no experiment, and the last comparable run skips failed and
 * incomplete runs.  Run-to-run noise learned from stored runs raises a
 * region's slowdown limit, and a failed run is not learned from; applied to
 * a report's comparison it turns a change within 3x the noise into none and
 * says which stored runs it learned from.
 */
#include "engine/aa_engine.h"
#include "space/aa_space.h"
#include "tests/space/fixture.h"
#include "tests/tap.h"
#include "tests/unit/test_analyze_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static aa_report_diff diff(const char *region, double before, double after, double share,
                           double share_after, double mb, double ma)
{
    aa_report_diff d;
    memset(&d, 0, sizeof d);
    d.region = (char *)region;
    d.before = before;
    d.after = after;
    d.delta = after - before;
    d.relative = before > 0 ? d.delta / before : INFINITY;
    d.share = share;
    d.share_after = share_after;
    d.main_before = mb;
    d.main_after = ma;
    return d;
}

static size_t tripped(const aa_engine_gate *g, size_t n, const char *name)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++)
        k += g[i].tripped && !strcmp(g[i].name, name);
    return k;
}

static void gates(void)
{
    aa_report_diff d[3];
    aa_report_change nc;
    aa_report_comparison c;
    aa_engine_result r;
    aa_engine_gate_options o;
    aa_engine_gate *g = NULL;
    size_t n = 0;
    aa_err err;

    /* 0.85 ms -> 2.23 s: baseline share 0.04%, current share 70% */
    d[0] = diff("#7 extra (x.c:5)", 0.00085, 2.23, 0.0004, 0.70, 0.0008, 2.2);
    /* a large region, 5% slower in wall time but 50% in CPU time */
    d[1] = diff("#2 main (x.c:1)", 2.0, 2.1, 0.9, 0.6, 1.0, 1.5);
    /* throttled: partial values are no slowdown */
    d[2] = diff("#3 loop (x.c:3)", 1.0, 3.0, 0.5, 0.6, 1.0, 3.0);
    d[2].partial = 1;
    memset(&c, 0, sizeof c);
    c.baseline_label = "stored run 1";
    c.ndiffs = 3;
    c.diffs = d;
    aa_engine_result_init(&r);
    r.cmp = &c;

    memset(&o, 0, sizeof o);
    o.max_slowdown = 0.10;
    o.min_share = 0.02;
    is_int(aa_engine_gates(&r, &o, &g, &n, &err), AA_OK, "gates evaluated");
    is_int((int)tripped(g, n, "region-slowdown"), 1, "wall: one region tripped");
    ok(n && g[0].region && strstr(g[0].region, "extra"),
       "a region with a tiny baseline share counts by its current share");
    ok(n && strstr(g[0].message, "limit 10.0%") && strstr(g[0].message, "wall time"),
       "the message states the limit and the metric: %s", n ? g[0].message : "");
    is_int((int)aa_report_slowdowns(&c, 0.10, 0.02, NULL, 0), 1,
           "aa_report_slowdowns uses the larger share too");
    aa_engine_gates_free(g, n);

    o.metric = "cpu";
    is_int(aa_engine_gates(&r, &o, &g, &n, &err), AA_OK, "gates on CPU time");
    is_int((int)tripped(g, n, "region-slowdown"), 2, "cpu: the region slower in CPU time trips too");
    aa_engine_gates_free(g, n);

    o.metric = NULL;
    o.max_slowdown = 1e4;
    o.fail_new = 1;
    memset(&nc, 0, sizeof nc);
    nc.kind = AA_FINDING_DISPARITY;
    nc.region = "#7 extra (x.c:5)";
    c.nnew = 1;
    c.new_cccrs = &nc;
    is_int(aa_engine_gates(&r, &o, &g, &n, &err), AA_OK, "both gates");
    is_int((int)n, 2, "one record per gate");
    is_int((int)tripped(g, n, "new-cccr"), 1, "the new core bottleneck trips its gate");
    ok(n == 2 && !g[1].tripped && !strcmp(g[1].name, "region-slowdown"),
       "a gate that passed is reported as passed");
    aa_engine_gates_free(g, n);
    r.cmp = NULL;
    ok(aa_engine_gates(&r, &o, &g, &n, &err) != AA_OK, "no comparison: no gates");
}

static void space_round_trip(void)
{
    char db[] = "/tmp/aa-test-engine-XXXXXX";
    int fd = mkstemp(db);
    aa_space *s = NULL;
    aa_err err;
    aa_experiment *a = space_fixture("base", 4), *b = space_fixture("slow", 4), *back = NULL;
    aa_space_add_options o;
    long long e1 = 0, e2 = 0, e3 = 0, last = 0, *imp = NULL;
    size_t nimp = 0;
    aa_buf x1, x2, text;
    aa_attr fail = {"exit_status", "139"};

    close(fd);
    unlink(db);
    aa_err_clear(&err);
    if (aa_space_open(db, &s, &err) != AA_OK) {
        diag("open: %s", err.msg);
        return;
    }
    memset(&o, 0, sizeof o);
    is_int(aa_space_add(s, a, &o, &e1, &err), AA_OK, "store a run");
    is_int(aa_space_load_experiment(s, e1, &back, &err), AA_OK, "load it back from the Space");
    aa_buf_init(&x1);
    aa_buf_init(&x2);
    aa_experiment_write_buf(a, &x1, &err);
    if (back)
        aa_experiment_write_buf(back, &x2, &err);
    ok(x1.len && x1.len == x2.len && !memcmp(x1.data, x2.data, x1.len),
       "the stored experiment is the experiment (%zu bytes)", x1.len);
    aa_experiment_free(back);
    back = NULL;
    is_int(aa_space_load_experiment(s, 99, &back, &err), AA_EINPUT, "unknown execution");
    ok(strstr(err.msg, "unknown execution 99") != NULL, "unknown execution is named");

    /* a failed run stored after it is never the baseline */
    o.nattrs = 1;
    o.attrs = &fail;
    is_int(aa_space_add(s, b, &o, &e2, &err), AA_OK, "store a failed run");
    aa_space_close(s);
    is_int(aa_engine_find_last(db, NULL, a->program, NULL, NULL, &last, &err), AA_OK, "find last");
    is_int((int)last, (int)e1, "the failed run is not the baseline");

    /* an execution imported from the text format has no experiment */
    aa_space_open(db, &s, &err);
    aa_buf_init(&text);
    aa_space_export(s, e1, &text, &err);
    is_int(aa_space_import(s, text.data, "x.txt", &imp, &nimp, &err), AA_OK, "re-import");
    e3 = nimp ? imp[0] : 0;
    is_int(aa_space_load_experiment(s, e3, &back, &err), AA_EINPUT,
           "an imported execution cannot be loaded");
    ok(strstr(err.msg, "has no stored experiment") != NULL, "and says why: %s", err.msg);
    aa_space_close(s);
    is_int(aa_engine_find_last(db, NULL, a->program, a, NULL, &last, &err), AA_OK, "find last again");
    is_int((int)last, -1, "neither the run itself nor an execution without its experiment");
    free(imp);
    aa_buf_free(&text);
    aa_buf_free(&x1);
    aa_buf_free(&x2);
    aa_experiment_free(a);
    aa_experiment_free(b);
    unlink(db);
}

/* Scales the values of region id's nodes by f. */
static void scale_region(aa_experiment *e, uint32_t id, double f)
{
    size_t p, t, k, m;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++) {
            aa_thread *th = &e->processes[p].threads[t];
            for (k = 0; k < th->nnodes; k++)
                if (th->nodes[k].region == id)
                    for (m = 0; m < e->nmetrics; m++)
                        aa_node_values(e, th, k)[m] *= f;
        }
}

/* The diff of region id in r's comparison, or NULL. */
static const aa_report_diff *diff_of(const aa_engine_result *r, uint32_t id)
{
    size_t i;
    for (i = 0; r->cmp && i < r->cmp->ndiffs; i++)
        if (r->cmp->diffs[i].region_id == id)
            return &r->cmp->diffs[i];
    return NULL;
}

/* A report's comparison judged with the noise of the stored runs (db holds
 * four good runs of "solver" whose loop@10 varies by 8.2%). */
static void compare_history(const char *db)
{
    static const double f[2] = {1.2, 1.5};
    int i;
    for (i = 0; i < 2; i++) {
        aa_engine_result r;
        aa_err err;
        const aa_report_diff *d;
        aa_engine_result_init(&r);
        aa_err_clear(&err);
        r.exp = space_fixture("base", 4);
        scale_region(r.exp, 3, f[i]);
        if (aa_engine_analyze(r.exp, NULL, &r.an, &err) != AA_OK ||
            aa_engine_compare(&r, space_fixture("base", 4), NULL, NULL, &err) != AA_OK) {
            ok(0, "compare: %s", err.msg);
            aa_engine_result_free(&r);
            continue;
        }
        is_int(aa_engine_compare_history(&r, db, NULL, "solver", -1, 0, &err), AA_OK,
               "history applied to the comparison");
        d = diff_of(&r, 3);
        ok(d && fabs(d->noise - 0.0816497) < 1e-4, "loop@10 carries its learned noise (8.2%%)");
        if (i == 0) {
            ok(d && d->within_noise, "20%% slower is within 3x its noise: no change");
            is_int((int)aa_report_slowdowns(r.cmp, 0.10, 0.0, NULL, 0), 0,
                   "and no slowdown beyond 10%% is counted");
            ok(r.cmp->history && strstr(r.cmp->history, "learned from 4 stored runs of solver") &&
                   strstr(r.cmp->history, "EIDs 4, 3, 2, 1"),
               "the comparison says which stored runs it learned from: %s",
               r.cmp->history ? r.cmp->history : "(none)");
        } else {
            ok(d && !d->within_noise, "50%% slower is beyond 3x its noise");
            is_int((int)aa_report_slowdowns(r.cmp, 0.10, 0.0, NULL, 0), 1,
                   "and counts as a slowdown");
        }
        aa_engine_result_free(&r);
    }
    {
        aa_engine_result r;
        aa_err err;
        char none[] = "/tmp/aa-test-engine-nodb-XXXXXX";
        int fd = mkstemp(none);
        close(fd);
        unlink(none);
        aa_engine_result_init(&r);
        r.exp = space_fixture("base", 4);
        if (aa_engine_analyze(r.exp, NULL, &r.an, &err) == AA_OK &&
            aa_engine_compare(&r, space_fixture("base", 4), NULL, NULL, &err) == AA_OK) {
            is_int(aa_engine_compare_history(&r, none, NULL, "solver", -1, 0, &err), AA_OK,
                   "no Program Space: no history, no error");
            ok(r.cmp->history && strstr(r.cmp->history, "no run-to-run noise known: 0 good stored runs"),
               "and the comparison says so");
            ok(access(none, F_OK) != 0, "no database created");
        }
        aa_engine_result_free(&r);
    }
}

static void noise(void)
{
    char db[] = "/tmp/aa-test-engine-noise-XXXXXX";
    int fd = mkstemp(db), i;
    static const double f[5] = {1.0, 1.1, 0.9, 1.0, 5.0};
    aa_space *s = NULL;
    aa_space_add_options o;
    aa_attr fail = {"exit_status", "1"};
    aa_engine_noise nz;
    aa_engine_gate_options go;
    aa_engine_gate *g = NULL;
    aa_report_diff d;
    aa_report_comparison c;
    aa_engine_result r;
    size_t n = 0;
    aa_err err;
    long long eid;

    close(fd);
    unlink(db);
    aa_err_clear(&err);
    if (aa_space_open(db, &s, &err) != AA_OK) {
        diag("open: %s", err.msg);
        return;
    }
    for (i = 0; i < 5; i++) {
        aa_experiment *e = space_fixture("base", 4);
        scale_region(e, 3, f[i]); /* loop@10 varies by +-10% */
        memset(&o, 0, sizeof o);
        if (i == 4) { /* a failed run, 5x slower: never learned from */
            o.nattrs = 1;
            o.attrs = &fail;
        }
        aa_space_add(s, e, &o, &eid, &err);
        aa_experiment_free(e);
    }
    aa_space_close(s);
    is_int(aa_engine_learn_noise(db, NULL, "solver", "wall", -1, &nz, &err), AA_OK,
           "noise learned");
    is_int((int)nz.nruns, 4, "from the four good runs, not the failed one");
    is_double(aa_engine_noise_of(&nz, 3), 0.0816497, 1e-4,
              "loop@10: the sample standard deviation over the mean (8.2%%)");
    is_double(aa_engine_noise_of(&nz, 4), 0, 1e-9, "loop@20 did not vary");
    ok(isnan(aa_engine_noise_of(&nz, 99)), "an unknown region has no noise");

    d = diff("#3 loop@10 (solver.c:10)", 1.0, 1.2, 0.5, 0.5, 1.0, 1.2);
    d.region_id = 3;
    memset(&c, 0, sizeof c);
    c.baseline_label = "stored run 4";
    c.ndiffs = 1;
    c.diffs = &d;
    aa_engine_result_init(&r);
    r.cmp = &c;
    memset(&go, 0, sizeof go);
    go.max_slowdown = 0.10;
    go.min_share = 0.02;
    aa_engine_gates(&r, &go, &g, &n, &err);
    is_int((int)tripped(g, n, "region-slowdown"), 1, "20%% slower at a 10%% limit trips");
    aa_engine_gates_free(g, n);
    go.noise = &nz;
    aa_engine_gates(&r, &go, &g, &n, &err);
    is_int((int)tripped(g, n, "region-slowdown"), 0,
           "with its noise of 8.2%% learned, 20%% is within 3x the noise");
    aa_engine_gates_free(g, n);
    d.after = 1.5;
    aa_engine_gates(&r, &go, &g, &n, &err);
    is_int((int)tripped(g, n, "region-slowdown"), 1, "50%% slower trips");
    ok(n && strstr(g[0].message, "raised from 10.0%") && strstr(g[0].message, "4 stored runs"),
       "the message says the history raised the limit: %s", n ? g[0].message : "");
    aa_engine_gates_free(g, n);
    aa_engine_noise_free(&nz);
    is_int(aa_engine_learn_noise(db, "nosuchname", NULL, "wall", -1, &nz, &err), AA_OK,
           "no runs of a configuration");
    is_int((int)nz.n, 0, "no noise without history");
    aa_engine_noise_free(&nz);
    compare_history(db);
    unlink(db);
}

/* A hotspot over its two calling contexts (test_context_exp) goes into
 * the Program Space with its cost and the callers that tell its contexts
 * apart, and reads back so (aa_engine_findings, aa_space_findings_of). */
static void context_finding_stored(void)
{
    char db[] = "/tmp/aa-test-engine-XXXXXX";
    int fd = mkstemp(db);
    aa_experiment *e = test_context_exp(0, 4);
    aa_analysis *an = NULL;
    aa_space *s = NULL;
    aa_space_finding *f = NULL, *back = NULL;
    aa_space_add_options o;
    size_t n = 0, nb = 0, i;
    long long eid = 0;
    aa_err err;
    const aa_space_finding *k = NULL;
    close(fd);
    unlink(db);
    if (!ok(aa_analyze_run(e, NULL, &an, &err) == AA_OK &&
                aa_engine_findings(an, e, &f, &n, &err) == AA_OK,
            "context hotspot: analysed, its findings for the Space")) {
        aa_analyze_free(an);
        aa_experiment_free(e);
        return;
    }
    for (i = 0; i < n; i++)
        if (f[i].ncontexts)
            k = &f[i];
    ok(k && k->ncontexts == 2 && strstr(k->region, "kernel") && k->impact_s > 0.2 &&
           k->run_share > 0.2 && strstr(k->contexts[0], "sweep_") &&
           strstr(k->contexts[1], "sweep_") && strcmp(k->contexts[0], k->contexts[1]) != 0,
       "... the kernel over its two sweeps, its cost stated (%s, %s)",
       k ? k->contexts[0] : "-", k && k->ncontexts > 1 ? k->contexts[1] : "-");
    memset(&o, 0, sizeof o);
    o.nfindings = n;
    o.findings = f;
    ok(aa_space_open(db, &s, &err) == AA_OK && aa_space_add(s, e, &o, &eid, &err) == AA_OK &&
           aa_space_findings_of(s, eid, &back, &nb, &err) == AA_OK && nb == n,
       "... stored and read back");
    for (i = 0; k && i < nb; i++)
        if (back[i].ncontexts) {
            ok(back[i].ncontexts == 2 && !strcmp(back[i].contexts[0], k->contexts[0]) &&
                   !strcmp(back[i].contexts[1], k->contexts[1]) &&
                   fabs(back[i].impact_s - k->impact_s) <= 1e-12 * k->impact_s &&
                   fabs(back[i].run_share - k->run_share) <= 1e-12,
               "... with the same contexts and cost");
            k = NULL;
        }
    ok(!k, "... the stored finding over contexts found");
    aa_space_findings_free(back, nb);
    aa_space_close(s);
    aa_engine_findings_free(f, n);
    aa_analyze_free(an);
    aa_experiment_free(e);
    unlink(db);
}

int main(void)
{
    gates();
    space_round_trip();
    context_finding_stored();
    noise();
    return tap_done();
}
