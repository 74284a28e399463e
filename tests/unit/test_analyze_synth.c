/*
 * tests/unit/test_analyze_synth.c -- synthetic experiments with known
 * injected bottlenecks (analyze/synth.c): for every scenario, several seeds,
 * process counts and noise, the analyzer must report EXACTLY the injected
 * CCCR and root cause -- (1) a slow rank group in a nested loop
 * (dissimilarity, cause instructions), (2) high L2 miss rate, (3) heavy disk
 * I/O, (4) heavy MPI traffic (disparity) -- and nothing else as a CCCR of
 * that kind.  Also the VM case without hardware counters and threads.
 */
#include "analyze/aa_analyze.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>

static size_t count_cccr(const aa_analysis *a, aa_finding_kind k, const aa_finding **last)
{
    size_t i, n = 0;
    for (i = 0; i < a->nfindings; i++)
        if (a->findings[i].kind == k && a->findings[i].cccr) {
            n++;
            *last = &a->findings[i];
        }
    return n;
}

static int has(char **l, size_t n, const char *s)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(l[i], s) == 0)
            return 1;
    return 0;
}

static void check(aa_synth_scenario sc, int procs, unsigned seed, double noise, int no_counters,
                  int threads)
{
    aa_synth_options so;
    aa_experiment *e = NULL;
    aa_analysis *a = NULL;
    aa_err err;
    uint32_t want;
    const char *cause;
    const aa_finding *f = NULL;
    char tag[128];
    aa_synth_options_init(&so);
    so.scenario = sc;
    so.nprocs = procs;
    so.seed = seed;
    so.noise = noise;
    so.no_counters = no_counters;
    so.nthreads = threads;
    so.nregions = 13 + seed % 20;
    snprintf(tag, sizeof tag, "scenario %d, P=%d, seed %u, noise %.2f%s%s", (int)sc, procs, seed,
             noise, no_counters ? ", no counters" : "", threads > 1 ? ", threads" : "");
    if (!ok(aa_synth_generate(&so, &e, &want, &cause, &err) == AA_OK, "%s: generated", tag) ||
        !ok(aa_analyze_run(e, NULL, &a, &err) == AA_OK, "%s: analysed", tag)) {
        diag("%s", err.msg);
        aa_experiment_free(e);
        return;
    }
    if (sc == AA_SYNTH_DYNAMIC) {
        is_int(a->nclusters, 1, "one cluster: every total alike");
        is_int(count_cccr(a, AA_FINDING_DISSIMILARITY, &f), 0, "no dissimilarity CCCR");
        f = NULL;
        if (ok(count_cccr(a, AA_FINDING_DYNAMIC, &f) == 1, "%s: one dynamic CCCR", tag) && f)
            ok(a->regions[f->region].id == want && f->nwait == (size_t)procs &&
                   fabs(f->effect - 1) < 0.2,
               "%s: in the solve loop (region %u), every process waits, slope %.2f", tag,
               a->regions[f->region].id, -f->effect);
    } else if (sc == AA_SYNTH_SLOW_GROUP) {
        size_t i, k;
        int exact = a->nclusters == 2;
        is_int(a->nclusters, 2, "two clusters");
        for (i = 0; exact && i < a->nclusters; i++)
            for (k = 0; k < a->cluster_size[i]; k++)
                if ((a->cluster_ranks[i][k] % 4 == 1) != (a->cluster_size[i] == (size_t)procs / 4))
                    exact = 0;
        ok(exact, "%s: the slow cluster is exactly ranks 1,5,9,...", tag);
        if (ok(count_cccr(a, AA_FINDING_DISSIMILARITY, &f) == 1, "%s: one dissimilarity CCCR",
               tag) &&
            f) {
            is_int(a->regions[f->region].id, want, "it is the inner loop");
            if (no_counters) /* instructions cannot be measured: no named cause */
                ok(f->ncauses == 0 && strstr(f->suggestion, "imbalance"),
                   "%s: no cause, imbalance suggestion", tag);
            else
                ok(f->ncauses == 1 && strcmp(f->causes[0], cause) == 0,
                   "%s: cause %s (got %s)", tag, cause, f->ncauses ? f->causes[0] : "none");
        }
    } else {
        is_int(a->nclusters, 1, "one cluster: no dissimilarity bottleneck");
        is_int(count_cccr(a, AA_FINDING_DISSIMILARITY, &f), 0, "no dissimilarity CCCR");
        f = NULL;
        if (ok(count_cccr(a, AA_FINDING_DISPARITY, &f) == 1, "%s: one disparity CCCR (got %zu)",
               tag, count_cccr(a, AA_FINDING_DISPARITY, &f)) &&
            f) {
            ok(a->regions[f->region].id == want, "%s: CCCR is region %u (got %u)", tag, want,
               a->regions[f->region].id);
            ok(f->ncauses == 1 && strcmp(f->causes[0], cause) == 0, "%s: cause %s (got %s)",
               tag, cause, f->ncauses ? f->causes[0] : "none");
            ok(f->severity > 0 && f->severity <= 1 && f->confidence > 0.5 &&
                   f->confidence <= 1,
               "severity %.2f and confidence %.2f in range", f->severity, f->confidence);
            ok(f->ncauses && f->evidence[0].value > f->evidence[0].reference,
               "evidence: value above reference");
        }
    }
    if (no_counters) {
        ok(has(a->unavailable, a->nunavailable, "l2_miss_rate") &&
               has(a->unavailable, a->nunavailable, "instructions") &&
               has(a->unavailable, a->nunavailable, "l1_miss_rate"),
           "%s: counter attributes listed as unavailable", tag);
        is_str(a->region_metric, "wall", "CRNM fell back to the wall fraction");
    } else {
        /* blocked_time needs a run delay, which synthetic processes do not record */
        ok(a->nunavailable == 1 && strcmp(a->unavailable[0], "blocked_time") == 0,
           "every attribute available but blocked_time");
    }
    aa_analyze_free(a);
    aa_experiment_free(e);
}

int main(void)
{
    unsigned seed;
    for (seed = 1; seed <= 3; seed++) {
        check(AA_SYNTH_SLOW_GROUP, 16, seed, 0.02, 0, 1);
        check(AA_SYNTH_L2, 16, seed, 0.02, 0, 1);
        check(AA_SYNTH_DISK_IO, 16, seed, 0.02, 0, 1);
        check(AA_SYNTH_MPI_BYTES, 16, seed, 0.02, 0, 1);
    }
    check(AA_SYNTH_DYNAMIC, 16, 3, 0.02, 0, 1);
    check(AA_SYNTH_DYNAMIC, 256, 5, 0.05, 1, 1);
    check(AA_SYNTH_SLOW_GROUP, 64, 7, 0.05, 0, 1);
    check(AA_SYNTH_L2, 64, 7, 0.05, 0, 1);
    check(AA_SYNTH_DISK_IO, 64, 7, 0.05, 0, 1);
    check(AA_SYNTH_MPI_BYTES, 64, 7, 0.05, 0, 1);
    /* above 64 processes clustering goes through data bubbles */
    check(AA_SYNTH_SLOW_GROUP, 256, 11, 0.03, 0, 1);
    check(AA_SYNTH_SLOW_GROUP, 1000, 12, 0.02, 0, 1);
    check(AA_SYNTH_MPI_BYTES, 256, 11, 0.03, 0, 1);
    check(AA_SYNTH_SLOW_GROUP, 8, 9, 0.0, 0, 2);
    check(AA_SYNTH_MPI_BYTES, 8, 9, 0.01, 0, 2);
    /* the VM case: no hardware counters */
    check(AA_SYNTH_DISK_IO, 16, 4, 0.02, 1, 1);
    check(AA_SYNTH_MPI_BYTES, 16, 5, 0.02, 1, 1);
    check(AA_SYNTH_SLOW_GROUP, 16, 6, 0.02, 1, 1);
    return tap_done();
}
