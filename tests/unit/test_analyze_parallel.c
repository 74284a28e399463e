/*
 * tests/unit/test_analyze_parallel.c -- the parallel analysis
 * (analyze/parallel.c) on one rank against the serial analysis on the same
 * synthetic experiments: the same regions, severity classes, region values,
 * process clusters and findings (kind, region, CCCR, slow and waiting
 * processes), with exact clustering (64 processes and fewer) and through
 * data bubbles (more); and a rank holding no process of its own.
 * tests/e2e/analyze_mpi.t runs it over MPI ranks.
 */
#include "analyze/aa_analyze.h"
#include "cluster/aa_cluster.h"
#include "tests/tap.h"
#include "tests/unit/test_analyze_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int same_ranks(const int *a, size_t na, const int *b, size_t nb)
{
    size_t i;
    if (na != nb)
        return 0;
    for (i = 0; i < na; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static int same_strings(char *const *a, size_t na, char *const *b, size_t nb)
{
    size_t i;
    if (na != nb)
        return 0;
    for (i = 0; i < na; i++)
        if (strcmp(a[i], b[i]))
            return 0;
    return 1;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || (isnan(a) && isnan(b));
}

/* The causes with their evidence, the suggestion and the confidence. */
static int same_causes(const aa_finding *a, const aa_finding *b)
{
    size_t i;
    int same = same_strings(a->causes, a->ncauses, b->causes, b->ncauses) &&
               ((!a->suggestion && !b->suggestion) ||
                (a->suggestion && b->suggestion && strcmp(a->suggestion, b->suggestion) == 0)) &&
               close_to(a->confidence, b->confidence);
    for (i = 0; i < a->ncauses && same; i++)
        same = strcmp(a->evidence[i].attribute, b->evidence[i].attribute) == 0 &&
               close_to(a->evidence[i].value, b->evidence[i].value) &&
               close_to(a->evidence[i].reference, b->evidence[i].reference);
    if (!same)
        diag("region %zu: serial %zu causes%s%s, parallel %zu%s%s; confidence %g, %g", a->region,
             a->ncauses, a->ncauses ? " " : "", a->ncauses ? a->causes[0] : "", b->ncauses,
             b->ncauses ? " " : "", b->ncauses ? b->causes[0] : "", a->confidence, b->confidence);
    return same;
}

static int same_contexts(const aa_finding *a, const aa_finding *b)
{
    size_t i;
    if (a->ncontexts != b->ncontexts)
        return 0;
    for (i = 0; i < a->ncontexts; i++)
        if (a->contexts[i] != b->contexts[i])
            return 0;
    return 1;
}

static void compare(const char *what, const aa_analysis *s, const aa_analysis *p)
{
    size_t r, i, bad = 0;
    ok(p->nprocesses == s->nprocesses, "%s: %zu processes", what, p->nprocesses);
    ok(p->nregions == s->nregions, "%s: %zu regions (serial %zu)", what, p->nregions, s->nregions);
    if (p->nregions != s->nregions)
        return;
    for (r = 0; r < s->nregions; r++)
        bad += p->regions[r].id != s->regions[r].id || p->regions[r].parent != s->regions[r].parent ||
               p->regions[r].nprocs_run != s->regions[r].nprocs_run;
    ok(!bad, "%s: the same region tree in the same order", what);
    for (r = 0, bad = 0; r < s->nregions; r++)
        bad += p->severity[r] != s->severity[r] ||
               fabs(p->region_value[r] - s->region_value[r]) > 1e-9 * fabs(s->region_value[r]);
    ok(!bad, "%s: the same region values and severity classes (%zu differ)", what, bad);
    ok(fabs(p->noise_rel - s->noise_rel) <= 1e-12 && close_to(p->noise_visits, s->noise_visits) &&
           close_to(p->noise_one_visit, s->noise_one_visit),
       "%s: the same noise (%g, serial %g), visits' (%g) and one visit's (%g, serial %g)", what,
       p->noise_rel, s->noise_rel, p->noise_visits, p->noise_one_visit, s->noise_one_visit);
    ok(p->nclusters == s->nclusters &&
           aa_cluster_same_partition(p->cluster_of, s->cluster_of, s->nprocesses),
       "%s: the same %zu clusters (parallel %zu)", what, s->nclusters, p->nclusters);
    ok(p->nfindings == s->nfindings, "%s: %zu findings (serial %zu)", what, p->nfindings,
       s->nfindings);
    for (i = 0, bad = 0; i < s->nfindings && i < p->nfindings; i++) {
        const aa_finding *a = &s->findings[i], *b = &p->findings[i];
        if (a->kind != b->kind || a->region != b->region || a->cccr != b->cccr ||
            a->severity_class != b->severity_class || a->wait_region != b->wait_region ||
            (a->wait_kind != b->wait_kind &&
             (!a->wait_kind || !b->wait_kind || strcmp(a->wait_kind, b->wait_kind) != 0)) ||
            !same_ranks(a->slow_ranks, a->nslow, b->slow_ranks, b->nslow) ||
            !same_ranks(a->wait_ranks, a->nwait, b->wait_ranks, b->nwait) ||
            fabs(a->impact_s - b->impact_s) > 1e-9 * fabs(a->impact_s) ||
            fabs(a->excess_s - b->excess_s) > 1e-9 * fabs(a->excess_s) ||
            fabs(a->run_share - b->run_share) > 1e-9 * fabs(a->run_share) ||
            fabs(a->confidence - b->confidence) > 1e-9 ||
            (a->kind == AA_FINDING_DISSIMILARITY && isfinite(a->late_s) != isfinite(b->late_s)) ||
            (a->kind == AA_FINDING_DISSIMILARITY && isfinite(a->late_s) &&
             fabs(a->late_s - b->late_s) > 1e-9 * fmax(1e-6, fabs(a->late_s))) ||
            !same_contexts(a, b)) {
            diag("finding %zu: serial kind %d region %zu, parallel kind %d region %zu", i,
                 (int)a->kind, a->region, (int)b->kind, b->region);
            bad++;
        }
    }
    ok(!bad, "%s: the same findings in the same order", what);
    bad = p->nsuspects != s->nsuspects;
    for (i = 0; !bad && i < s->nsuspects; i++)
        bad += p->suspects[i] != s->suspects[i] ||
               fabs(p->suspect_sep[i] - s->suspect_sep[i]) > 1e-9 * s->suspect_sep[i];
    ok(!bad, "%s: the same %zu suspects (parallel %zu)", what, s->nsuspects, p->nsuspects);
    ok(p->placement_dropped == s->placement_dropped &&
           (!s->placement_dropped ||
            (p->placement_region == s->placement_region &&
             same_ranks(s->placement_slow, s->nplacement_slow, p->placement_slow,
                        p->nplacement_slow) &&
             p->placement_regions == s->placement_regions &&
             close_to(p->placement_ratio, s->placement_ratio) &&
             close_to(p->placement_speed, s->placement_speed) &&
             close_to(p->placement_spread, s->placement_spread))),
       "%s: the same %zu imbalances dropped as the CPUs' speed, the same figures", what,
       s->placement_dropped);
    ok(p->placement_undecided == s->placement_undecided &&
           p->placement_undecided_regions == s->placement_undecided_regions,
       "%s: the same %zu imbalances the CPUs may explain, too few regions to tell", what,
       s->placement_undecided);
    ok(p->speed_dropped == s->speed_dropped &&
           (!s->speed_dropped ||
            (p->speed_region == s->speed_region &&
             same_ranks(s->speed_slow, s->nspeed_slow, p->speed_slow,
                        p->nspeed_slow) &&
             p->speed_regions == s->speed_regions &&
             close_to(p->speed_ratio, s->speed_ratio) &&
             close_to(p->speed_uniform, s->speed_uniform) &&
             close_to(p->speed_spread, s->speed_spread))),
       "%s: the same %zu imbalances dropped as the processes' speed, the same figures", what,
       s->speed_dropped);
    ok(p->pace_dropped == s->pace_dropped &&
           (!s->pace_dropped ||
            (p->pace_region == s->pace_region &&
             same_ranks(s->pace_slow, s->npace_slow, p->pace_slow, p->npace_slow) &&
             close_to(p->pace_ratio, s->pace_ratio) &&
             close_to(p->pace_slower, s->pace_slower) && close_to(p->pace_se, s->pace_se))),
       "%s: the same %zu imbalances dropped as the CPUs' measured pace, the same figures", what,
       s->pace_dropped);
    for (i = 0, bad = 0; i < s->nfindings && i < p->nfindings; i++)
        bad += !same_causes(&s->findings[i], &p->findings[i]);
    ok(!bad, "%s: the same root causes, evidence, suggestions and confidence (%zu differ)", what,
       bad);
    ok(same_strings(s->attributes, s->nattributes, p->attributes, p->nattributes) &&
           same_strings(s->unavailable, s->nunavailable, p->unavailable, p->nunavailable) &&
           same_strings(s->core_dissim, s->ncore_dissim, p->core_dissim, p->ncore_dissim) &&
           same_strings(s->core_disp, s->ncore_disp, p->core_disp, p->ncore_disp) &&
           s->ninconsistent == p->ninconsistent,
       "%s: the same attributes, cores and inconsistent rows", what);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The distributions of the wall time of the root and of region id 6 (the
 * inner loop) against the values sorted here. */
static void check_dist(const char *what, const aa_experiment *e, const aa_analysis *p,
                       const aa_region_dist *d)
{
    size_t r, q, i, n;
    int bad = 0;
    double *v = malloc(e->nprocesses * sizeof *v);
    int mw = aa_experiment_metric_index(e, "wall");
    for (r = 0; r < p->nregions; r++) {
        if (p->regions[r].id != 0 && p->regions[r].id != 6)
            continue;
        for (q = 0, n = 0; q < e->nprocesses; q++) {
            const aa_thread *t = &e->processes[q].threads[0];
            for (i = 0; i < t->nnodes; i++)
                if (t->nodes[i].region == p->regions[r].id)
                    v[n++] = aa_node_values(e, t, i)[mw];
        }
        qsort(v, n, sizeof *v, cmp_d);
        bad += d[r].n != n || d[r].min != v[0] || d[r].max != v[n - 1] ||
               d[r].median != (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) ||
               d[r].p90 != v[(size_t)ceil(0.9 * (double)n) - 1];
    }
    ok(!bad, "%s: exact wall distributions of the root and the inner loop", what);
    free(v);
}

/* cpu_sq of every node of e: visits whose CPU time varies by `rel` of their
 * mean (sqrt(cpu_sq - cpu^2 / visits) = rel x cpu; 0: all alike), and with
 * `spike` the processes of the synthetic slow group (p % 4 == 1) spending
 * all their CPU time in one visit of each region: a spike, not more work. */
static int add_cpu_sq(aa_experiment *e, int spike, double rel)
{
    int mv = aa_experiment_metric_index(e, "visits"), mc = aa_experiment_metric_index(e, "cpu");
    int mq = aa_experiment_add_metric(e, "cpu_sq", "s2");
    size_t p, t, i;
    if (mv < 0 || mc < 0 || mq < 0)
        return -1;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++) {
            const aa_thread *th = &e->processes[p].threads[t];
            for (i = 0; i < th->nnodes; i++) {
                double *v = aa_node_values(e, th, i), c = v[mc], n = v[mv];
                v[mq] = spike && p % 4 == 1 ? c * c : n > 0 ? c * c / n + rel * c * rel * c : NAN;
            }
        }
    return 0;
}

/* Process i's values (every node, every metric) times f. */
static void scale_process(aa_experiment *e, size_t i, double f)
{
    size_t t, v;
    for (t = 0; t < e->processes[i].nthreads; t++)
        for (v = 0; v < e->processes[i].threads[t].nnodes * e->nmetrics; v++)
            e->processes[i].threads[t].values[v] *= f;
}

static int has_note(const aa_analysis *a, const char *text)
{
    size_t i;
    for (i = 0; i < a->nnotes; i++)
        if (strstr(a->notes[i], text))
            return 1;
    return 0;
}

/* Every process of e and its experiment, as aa_analyze_parallel takes them. */
static void proc_arrays(const aa_experiment *e, const aa_experiment ***ex, const aa_process ***pr)
{
    size_t i;
    *ex = malloc(e->nprocesses * sizeof **ex);
    *pr = malloc(e->nprocesses * sizeof **pr);
    for (i = 0; i < e->nprocesses; i++) {
        (*ex)[i] = e;
        (*pr)[i] = &e->processes[i];
    }
}

/* The processes of an experiment handed out 5 at a time, as a generator
 * or a reader would (aa_psource): the analysis passes over them in blocks. */
typedef struct block_src {
    const aa_experiment **ex;
    const aa_process **pr;
    size_t n, loads;
} block_src;

static int block_load(void *ctx, size_t first, size_t *count, const aa_experiment *const **exps,
                      const aa_process *const **procs, aa_err *err)
{
    block_src *b = ctx;
    (void)err;
    *exps = b->ex + first;
    *procs = b->pr + first;
    *count = b->n - first < 5 ? b->n - first : 5;
    b->loads++;
    return AA_OK;
}

/* One scenario at np processes with the synthetic noise and seed; the last
 * nslow processes then run everything `factor` times slower; spike: with
 * cpu_sq (add_cpu_sq); blocks: also through an aa_psource of 5 processes a
 * time (block_load). */
/* when > 0: every process gets a `run_delay` of this share of its wall time
 * (the scheduler's evidence of an oversubscribed node) */
static double g_run_delay_share;
/* > 0: process i's values scaled by 1 + g_gradient x i / P (every process
 * doing different work) and cpu_sq set for visits varying by 0.5% */
static double g_gradient;
/* 1: the processes shared two CPUs of one host, the slow ones CPU 1 */
static int g_cpus;
/* 1: the slow processes are slower in every region alike (expected: the
 * processes' speed) */
static int g_speed;
/* > 0: cpu_sq set for visits whose totals vary by this (one visit by more:
 * the noise of a region visited once) */
static double g_visit_rel;
/* 1: a cluster apart only by its speed is expected to be merged */
static int g_merge;
/* > 0: every node's MPI calls times this (the resolution outside MPI calls,
 * mpi_call_res, then matters) */
static double g_calls;

/* Process p's whole-program wall time (thread 0's root; metric 0 is wall). */
static double root_wall(const aa_experiment *e, const aa_process *p)
{
    size_t i;
    int w = aa_experiment_metric_index(e, "wall");
    if (!p->nthreads || w < 0)
        return 0;
    for (i = 0; i < p->threads[0].nnodes; i++)
        if (p->threads[0].nodes[i].parent < 0)
            return aa_node_values(e, &p->threads[0], i)[w];
    return 0;
}

/* the options of one_case's analyses (NULL: the defaults) */
static const aa_analyze_options *g_o;

static void one_case(aa_synth_scenario sc, const char *name, int np, double noise, unsigned seed,
                     int nslow, double factor, int spike, int blocks)
{
    aa_synth_options so;
    aa_experiment *e = NULL;
    aa_analysis *s = NULL, *p = NULL;
    aa_err err;
    aa_pcomm cm;
    const aa_experiment **ex;
    const aa_process **pr;
    size_t i;
    char what[160];
    aa_synth_options_init(&so);
    so.scenario = sc;
    so.nprocs = np;
    so.noise = noise;
    so.seed = seed;
    if (nslow)
        snprintf(what, sizeof what, "%s, %d processes, %d of them %g x slower (noise %g)", name,
                 np, nslow, factor, noise);
    else
        snprintf(what, sizeof what, "%s, %d processes", name, np);
    memset(&err, 0, sizeof err);
    if (aa_synth_generate(&so, &e, NULL, NULL, &err)) {
        ok(0, "%s: synthetic experiment: %s", what, err.msg);
        return;
    }
    for (i = e->nprocesses - (size_t)nslow; i < e->nprocesses; i++)
        scale_process(e, i, factor);
    for (i = 0; g_gradient > 0 && i < e->nprocesses; i++)
        scale_process(e, i, 1.0 + g_gradient * (double)i / (double)e->nprocesses);
    if (g_gradient > 0 && add_cpu_sq(e, 0, 0.005)) {
        ok(0, "%s: cpu_sq", what);
        return;
    }
    if (g_gradient > 0)
        strcat(what, ", all different");
    if (g_calls > 0) {
        int mc = aa_experiment_metric_index(e, "mpi_calls");
        size_t pp, t, nd;
        for (pp = 0; mc >= 0 && pp < e->nprocesses; pp++)
            for (t = 0; t < e->processes[pp].nthreads; t++)
                for (nd = 0; nd < e->processes[pp].threads[t].nnodes; nd++)
                    aa_node_values(e, &e->processes[pp].threads[t], nd)[mc] *= g_calls;
        strcat(what, mc >= 0 ? ", many MPI calls" : ", no mpi_calls");
    }
    if (g_visit_rel > 0 && add_cpu_sq(e, 0, g_visit_rel)) {
        ok(0, "%s: cpu_sq", what);
        return;
    }
    if (g_visit_rel > 0)
        strcat(what, ", visits varying");
    if (spike && add_cpu_sq(e, 1, 0)) {
        ok(0, "%s: cpu_sq", what);
        return;
    }
    if (spike)
        strcat(what, ", a spike in one visit");
    for (i = 0; g_run_delay_share > 0 && i < e->nprocesses; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.9f", g_run_delay_share * root_wall(e, &e->processes[i]));
        aa_process_set_attr(&e->processes[i], "run_delay", buf);
    }
    if (g_run_delay_share > 0)
        strcat(what, ", run delay");
    for (i = 0; g_cpus && i < e->nprocesses; i++)
        aa_process_set_attr(&e->processes[i], "cpus",
                            i >= e->nprocesses - (size_t)nslow ? "1:0.990,0:0.010" : "0:1.000");
    if (g_cpus)
        strcat(what, ", the slow ones on CPU 1");
    if (aa_analyze_run(e, g_o, &s, &err)) {
        ok(0, "%s: serial analysis: %s", what, err.msg);
        return;
    }
    proc_arrays(e, &ex, &pr);
    aa_pcomm_single(&cm);
    if (aa_analyze_parallel(&cm, ex, pr, e->nprocesses, e, g_o, &p, &err))
        ok(0, "%s: parallel analysis: %s", what, err.msg);
    else {
        aa_region_dist *d = NULL;
        compare(what, s, p);
        if (g_run_delay_share > 0)
            ok(has_note(s, "processes were preempted") && has_note(p, "processes were preempted"),
               "%s: the processes are preempted in both", what);
        if (spike)
            ok(has_note(s, "carried by a few visits") && has_note(p, "carried by a few visits"),
               "%s: the imbalance is the spike's in both", what);
        /* the speeds taken out before the processes are compared
         * (speed_normalize), or else found as the CPUs' or the processes'
         * speed afterwards: either way one cluster, the same in both */
        if (g_cpus)
            ok(((has_note(s, "the CPUs the processes shared") &&
                 has_note(p, "the CPUs the processes shared")) ||
                (s->speed_normalized && p->speed_normalized)) &&
                   s->nclusters == 1,
               "%s: the CPUs' speed in both, one cluster", what);
        if (g_speed)
            ok(((has_note(s, "the processes' speed") && has_note(p, "the processes' speed") &&
                 s->speed_dropped > 0) ||
                (s->speed_normalized && p->speed_normalized)) &&
                   s->nclusters == 1,
               "%s: the processes' speed in both, one cluster", what);
        if (g_merge)
            ok((has_note(s, "only by its processes' speed") &&
                has_note(p, "only by its processes' speed")) ||
                   (s->speed_normalized && p->speed_normalized && p->nclusters == 2),
               "%s: the slow group one cluster in both (%zu clusters)", what, p->nclusters);
        if (g_visit_rel > 0)
            ok(s->noise_one_visit > s->noise_rel && has_note(s, "noise of a region visited once") &&
                   has_note(p, "noise of a region visited once"),
               "%s: a region visited once on one visit's noise in both (%g)", what,
               p->noise_one_visit);
        if (g_gradient > 0)
            ok(has_note(s, "they do different work") && has_note(p, "they do different work") &&
                   fabs(s->noise_rel - 4 * 0.005) < 1e-9,
               "%s: the noise capped at the visits' spread in both (%g)", what, p->noise_rel);
        if (aa_analyze_parallel_dist(&cm, ex, pr, e->nprocesses, p, g_o, &d, &err))
            ok(0, "%s: distributions: %s", what, err.msg);
        else
            check_dist(what, e, p, d);
        free(d);
    }
    if (blocks) {
        block_src b = {ex, pr, e->nprocesses - e->nprocesses % 5, 0};
        aa_psource src = {b.n, &b, block_load};
        aa_analysis *pb = NULL;
        aa_analyze_free(p);
        p = NULL;
        strcat(what, ", 5 processes at a time");
        if (aa_analyze_parallel_source(&cm, &src, e, g_o, &pb, &err))
            ok(0, "%s: parallel analysis: %s", what, err.msg);
        else {
            ok(b.loads >= 3 * src.n / 5, "%s: %zu loads: the passes went over the blocks", what,
               b.loads);
            /* the serial analysis of the same processes */
            aa_analyze_free(s);
            s = NULL;
            size_t all = e->nprocesses;
            e->nprocesses = src.n;
            if (aa_analyze_run(e, g_o, &s, &err))
                ok(0, "%s: serial analysis: %s", what, err.msg);
            else {
                compare(what, s, pb);
                if (g_run_delay_share > 0)
                    ok(has_note(pb, "processes were preempted"),
                       "%s: the processes are preempted", what);
            }
            e->nprocesses = all;
        }
        aa_analyze_free(pb);
    }
    aa_analyze_free(s);
    aa_analyze_free(p);
    free(ex);
    free(pr);
    aa_experiment_free(e);
}

/* The end of a case of serial_and_parallel: everything freed. */
static void end_case(aa_experiment *e, const aa_experiment **ex, const aa_process **pr,
                     aa_analysis *s, aa_analysis *p)
{
    aa_analyze_free(s);
    aa_analyze_free(p);
    free(ex);
    free(pr);
    aa_experiment_free(e);
}

/* The parallel analysis of e through a source of 5 processes at a time
 * (block_load) against the serial one s ("what, 5 at a time"). */
static void compare_in_blocks(const char *what, const aa_pcomm *cm, const aa_experiment *e,
                              const aa_experiment **ex, const aa_process **pr,
                              const aa_analysis *s)
{
    block_src b = {ex, pr, e->nprocesses, 0};
    aa_psource src = {b.n, &b, block_load};
    aa_analysis *pb = NULL;
    aa_err err;
    char w[200];
    snprintf(w, sizeof w, "%s, 5 at a time", what);
    memset(&err, 0, sizeof err);
    if (aa_analyze_parallel_source(cm, &src, e, NULL, &pb, &err))
        ok(0, "%s: parallel analysis: %s", w, err.msg);
    else
        compare(w, s, pb);
    aa_analyze_free(pb);
}

/* Rank 0 a master (synthetic --master): both analyses leave it out, and so
 * do the distributions; also through a source of 5 processes at a time. */
static void master_case(int np)
{
    aa_synth_options so;
    aa_experiment *e = NULL;
    aa_analysis *s = NULL, *p = NULL;
    aa_region_dist *d = NULL;
    aa_err err;
    aa_pcomm cm;
    const aa_experiment **ex;
    const aa_process **pr;
    char what[64];
    aa_synth_options_init(&so);
    so.scenario = AA_SYNTH_SLOW_GROUP;
    so.nprocs = np;
    so.master = 1;
    snprintf(what, sizeof what, "slow-group, %d processes, rank 0 a master", np);
    memset(&err, 0, sizeof err);
    if (aa_synth_generate(&so, &e, NULL, NULL, &err) || aa_analyze_run(e, NULL, &s, &err)) {
        ok(0, "%s: %s", what, err.msg);
        return;
    }
    proc_arrays(e, &ex, &pr);
    aa_pcomm_single(&cm);
    ok(s->nexcluded_ranks == 1 && s->excluded_ranks[0] == 0, "%s: the serial analysis excludes it",
       what);
    if (aa_analyze_parallel(&cm, ex, pr, e->nprocesses, e, NULL, &p, &err))
        ok(0, "%s: parallel analysis: %s", what, err.msg);
    else {
        ok(p->nexcluded_ranks == 1 && p->excluded_ranks[0] == 0 && has_note(p, "as a master"),
           "%s: the parallel analysis excludes it, with the note", what);
        compare(what, s, p);
        ok(!aa_analyze_parallel_dist(&cm, ex, pr, e->nprocesses, p, NULL, &d, &err) &&
               d[0].n == e->nprocesses - 1,
           "%s: the distributions leave it out too (%s)", what, err.msg);
        free(d);
    }
    compare_in_blocks(what, &cm, e, ex, pr, s);
    end_case(e, ex, pr, s, p);
}

/* The serial analysis of e (*s) and the parallel one on a single rank (*p,
 * NULL when it failed), compared; 0 when the serial one failed (nothing
 * else done). */
static int serial_and_parallel(const char *what, aa_experiment *e, aa_analysis **s,
                               aa_analysis **p, const aa_experiment ***ex,
                               const aa_process ***pr, aa_pcomm *cm)
{
    aa_err err;
    memset(&err, 0, sizeof err);
    *s = *p = NULL;
    if (aa_analyze_run(e, NULL, s, &err)) {
        ok(0, "%s: serial analysis: %s", what, err.msg);
        return 0;
    }
    proc_arrays(e, ex, pr);
    aa_pcomm_single(cm);
    if (aa_analyze_parallel(cm, *ex, *pr, e->nprocesses, e, NULL, p, &err)) {
        ok(0, "%s: parallel analysis: %s", what, err.msg);
        *p = NULL;
    } else
        compare(what, *s, *p);
    return 1;
}

/* Does a CCCR of kind at region `at` name cause `name`? */
static int has_cause(const aa_analysis *a, aa_finding_kind kind, long at, const char *name)
{
    size_t i, k;
    for (i = 0; i < a->nfindings; i++) {
        const aa_finding *f = &a->findings[i];
        if (f->kind != kind || !f->cccr || (long)f->region != at)
            continue;
        for (k = 0; k < f->ncauses; k++)
            if (strcmp(f->causes[k], name) == 0)
                return 1;
    }
    return 0;
}

/* Waiting in main's time-step loop itself (an MPI_Allreduce written in
 * the loop, as Fortran codes write it): 16 processes, 4 of them 1 s longer
 * in a loop inside it; the others' wait is the time-step loop's own MPI
 * time in both analyses (the loop is in the whole-program chain, its MPI
 * time is still no set-up).  With io 1: rank 0 instead writes alone (0.9
 * s inside 24 I/O calls, metrics.c add_io_work) while the others wait: the
 * imbalance is rank 0's writing in both; io 2: rank 0 instead waits 0.9 s
 * for a device off the CPU, no run delay (metrics.c add_blocked). */
static void wait_in_loop_case(int io)
{
    aa_experiment *e = aa_experiment_new();
    aa_analysis *s = NULL, *p = NULL;
    aa_pcomm cm;
    const aa_experiment **ex;
    const aa_process **pr;
    const char *what = io == 2 ? "rank 0 waiting for a device"
                       : io ? "rank 0 writing alone" : "waiting in main's loop";
    int r, mt = -1, mc = -1, mn = -1, mk = -1;
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    aa_experiment_add_metric(e, "mpi_wall", "s");
    if (io == 0) /* the waits are collective calls */
        mk = aa_experiment_add_metric(e, "mpi_coll_wall", "s");
    if (io == 2) /* blocked time counts where the time inside MPI is subtracted */
        mc = aa_experiment_add_metric(e, "mpi_cpu", "s");
    if (io == 1) {
        mt = aa_experiment_add_metric(e, "io_time", "s");
        mc = aa_experiment_add_metric(e, "io_cpu", "s");
        mn = aa_experiment_add_metric(e, "io_calls", "count");
    }
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@10", AA_KIND_LOOP);
    add_region(e, 3, 2, "loop@12", AA_KIND_LOOP);
    if (io)
        add_region(e, 4, 2, io == 2 ? "wait_for_device" : "write_checkpoint", AA_KIND_FUNCTION);
    for (r = 0; r < 16; r++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, r), 0);
        int slow = io ? r == 0 : r % 4 == 3;
        double comp = !io && slow ? 3.0 : 2.0, wio = io && slow ? 0.9 : 0;
        double wait = slow ? 0.01 : io ? 0.91 : 1.01, init = 0.1;
        long n0 = aa_thread_add_node(e, t, 0, -1), n1 = aa_thread_add_node(e, t, 1, (int32_t)n0);
        long n2 = aa_thread_add_node(e, t, 2, (int32_t)n1), n3 = aa_thread_add_node(e, t, 3, (int32_t)n2);
        double *v = aa_node_values(e, t, (size_t)n0);
        size_t n;
        v[0] = comp + wio + wait + init, v[1] = comp + 0.02 + (wio > 0 ? 0.01 : 0), v[2] = wait + init;
        memcpy(aa_node_values(e, t, (size_t)n1), v, 3 * sizeof *v);
        v = aa_node_values(e, t, (size_t)n2);
        v[0] = comp + wio + wait, v[1] = comp + 0.01 + (wio > 0 ? 0.01 : 0), v[2] = wait;
        v = aa_node_values(e, t, (size_t)n3);
        v[0] = v[1] = comp, v[2] = 0;
        if (wio > 0) {
            long n4 = aa_thread_add_node(e, t, 4, (int32_t)n2);
            v = aa_node_values(e, t, (size_t)n4);
            v[0] = wio, v[1] = 0.01, v[2] = 0;
        }
        aa_process_set_attr(&e->processes[r], "run_delay", "0");
        for (n = 0; mk >= 0 && n < t->nnodes; n++)
            aa_node_values(e, t, n)[mk] = aa_node_values(e, t, n)[2];
        for (n = 0; io == 2 && n < t->nnodes; n++)
            aa_node_values(e, t, n)[mc] = 0;
        for (n = 0; io == 1 && n < t->nnodes; n++) {
            v = aa_node_values(e, t, n);
            v[mt] = n == 3 ? 0 : wio, v[mc] = n == 3 ? 0 : wio > 0 ? 0.01 : 0;
            v[mn] = n == 3 ? 0 : wio > 0 ? 24 : 0;
        }
    }
    e->nprocs = 16;
    if (!serial_and_parallel(what, e, &s, &p, &ex, &pr, &cm)) {
        aa_experiment_free(e);
        return;
    }
    if (p) {
        size_t i;
        long w = -2, at = -2;
        const char *kind = NULL;
        for (i = 0; i < p->nfindings; i++)
            if (p->findings[i].kind == AA_FINDING_DISSIMILARITY && p->findings[i].cccr) {
                w = p->findings[i].wait_region;
                at = (long)p->findings[i].region;
                kind = p->findings[i].wait_kind;
            }
        ok(w >= 0 && p->regions[w].info && p->regions[w].info->name &&
               strcmp(p->regions[w].info->name, "loop@10") == 0,
           "%s: the others wait in the time-step loop (%ld)", what, w);
        if (io == 0)
            ok(kind && strcmp(kind, "collective calls") == 0,
               "%s: in collective calls, in both", what);
        if (io == 1)
            ok(at >= 0 && strcmp(p->regions[at].info->name, "write_checkpoint") == 0 &&
                   (p->io_call_cost != NULL) && (s->io_call_cost != NULL),
               "%s: the imbalance is the writing, in both", what);
        if (io == 2)
            ok(at >= 0 && strcmp(p->regions[at].info->name, "wait_for_device") == 0 &&
                   p->proc_metric_blocked && s->proc_metric_blocked &&
                   has_cause(p, AA_FINDING_DISSIMILARITY, at, "blocked_time"),
               "%s: the imbalance is the device wait, blocked off the CPU, in both", what);
    }
    end_case(e, ex, pr, s, p);
}

/* Every one of 8 processes waits 0.3 s a step for a device off the CPU
 * (poll_device) beside 0.2 s of computation that the machine's load
 * stretched (run delay 0.15 s: every process judged on CPU time,
 * disparity.c): poll_device is a hotspot of blocked time in both
 * analyses. */
static void blocked_hotspot_case(void)
{
    aa_experiment *e = aa_experiment_new();
    aa_analysis *s = NULL, *p = NULL;
    aa_pcomm cm;
    const aa_experiment **ex;
    const aa_process **pr;
    const char *what = "every rank waiting for a device on a loaded node";
    int r, mc;
    aa_experiment_add_metric(e, "wall", "s");
    aa_experiment_add_metric(e, "cpu", "s");
    aa_experiment_add_metric(e, "mpi_wall", "s");
    mc = aa_experiment_add_metric(e, "mpi_cpu", "s");
    add_region(e, 0, 0, "prog", AA_KIND_PROGRAM);
    add_region(e, 1, 0, "main", AA_KIND_FUNCTION);
    add_region(e, 2, 1, "loop@10", AA_KIND_LOOP);
    add_region(e, 3, 2, "compute", AA_KIND_FUNCTION);
    add_region(e, 4, 2, "poll_device", AA_KIND_FUNCTION);
    for (r = 0; r < 8; r++) {
        aa_thread *t = aa_process_add_thread(aa_experiment_add_process(e, r), 0);
        double comp = 0.2 * (1 + 0.002 * sin(r * 3.0)), wall = comp + 0.15 + 0.3 + 0.01;
        long n[5];
        size_t i;
        n[0] = aa_thread_add_node(e, t, 0, -1);
        n[1] = aa_thread_add_node(e, t, 1, (int32_t)n[0]);
        n[2] = aa_thread_add_node(e, t, 2, (int32_t)n[1]);
        n[3] = aa_thread_add_node(e, t, 3, (int32_t)n[2]);
        n[4] = aa_thread_add_node(e, t, 4, (int32_t)n[2]);
        for (i = 0; i < 5; i++) {
            double *v = aa_node_values(e, t, (size_t)n[i]);
            v[0] = i < 3 ? wall : i == 3 ? comp + 0.15 : 0.3;
            v[1] = i < 3 ? comp + 0.005 : i == 3 ? comp : 0;
            v[2] = i < 3 ? 0.01 : 0;
            v[mc] = i < 3 ? 0.005 : 0;
        }
        aa_process_set_attr(&e->processes[r], "run_delay", "0.15");
    }
    e->nprocs = 8;
    if (!serial_and_parallel(what, e, &s, &p, &ex, &pr, &cm)) {
        aa_experiment_free(e);
        return;
    }
    if (p) {
        size_t at = 0;
        while (at < p->nregions && !(p->regions[at].info && p->regions[at].info->name &&
                                     strcmp(p->regions[at].info->name, "poll_device") == 0))
            at++;
        ok(at < p->nregions && has_cause(p, AA_FINDING_DISPARITY, (long)at, "blocked_time"),
           "%s: poll_device a hotspot of blocked time, in both", what);
    }
    end_case(e, ex, pr, s, p);
}

/* Experiment e analysed serially and in parallel, compared whole and 5
 * processes at a time; dynamic >= 0: so many dynamic findings wanted. */
static void parity_case(const char *what, aa_experiment *e, long dynamic)
{
    aa_analysis *s = NULL, *p = NULL;
    aa_pcomm cm;
    const aa_experiment **ex;
    const aa_process **pr;
    size_t i, nd = 0;
    if (!serial_and_parallel(what, e, &s, &p, &ex, &pr, &cm)) {
        aa_experiment_free(e);
        return;
    }
    if (p && dynamic >= 0) {
        for (i = 0; i < p->nfindings; i++)
            nd += p->findings[i].kind == AA_FINDING_DYNAMIC;
        ok(nd == (size_t)dynamic && p->dynamic_measured && s->dynamic_measured,
           "%s: %zu dynamic findings", what, nd);
    }
    compare_in_blocks(what, &cm, e, ex, pr, s);
    end_case(e, ex, pr, s, p);
}

/* The heaviest step moving between processes (analyze/dynamic.c,
 * test_dynamic_exp): the same dynamic finding in both, beside a static
 * difference too (its moving share: sums and maxima over the ranks), with
 * work varying at random, on CPUs of their own or two processes a CPU (the
 * machine's noise: the placement keys of every rank, or every process
 * preempted), a small one in a run its preemption stretched (the floor on
 * the process metric's median); and none in both where the work varies
 * alike on all, one process is always the latest or the latest never shows
 * it (the latest processes' agreement). */
static void dynamic_case(int mode, int P)
{
    char what[96];
    snprintf(what, sizeof what, "dynamic imbalance mode %d, %d processes", mode, P);
    parity_case(what, test_dynamic_exp(mode, P),
                mode == 0 || mode == 9 || mode >= 11 ? 1 : 0);
}

/* Processes with different roles (test_branch_exp): the branch less its
 * alternative in both. */
static void role_case(int mode, int P)
{
    char what[96];
    snprintf(what, sizeof what, "roles mode %d, %d processes", mode, P);
    parity_case(what, test_branch_exp(mode, P), -1);
}

/* A kernel hot only over its two calling contexts (test_context_exp): the
 * same finding over the same contexts in both. */
static void context_case(int mode, int P)
{
    char what[96];
    snprintf(what, sizeof what, "a region over its calling contexts, mode %d, %d processes", mode, P);
    parity_case(what, test_context_exp(mode, P), -1);
}

static void one(aa_synth_scenario sc, const char *name, int np)
{
    one_case(sc, name, np, 0.02, 1, 0, 1, 0, np == 64);
}

int main(void)
{
    static const struct {
        aa_synth_scenario sc;
        const char *name;
    } sc[] = {{AA_SYNTH_SLOW_GROUP, "slow-group"}, {AA_SYNTH_L2, "l2"},
              {AA_SYNTH_DISK_IO, "disk-io"}, {AA_SYNTH_MPI_BYTES, "mpi-bytes"},
              {AA_SYNTH_NONE, "none"}, {AA_SYNTH_DYNAMIC, "dynamic"}};
    size_t i;
    aa_err err;
    aa_pcomm cm;
    aa_analysis *a = NULL;
    aa_analyze_options nonorm;
    aa_analyze_options_init(&nonorm);
    nonorm.speed_normalize = 0;
    for (i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        one(sc[i].sc, sc[i].name, 16);
        one(sc[i].sc, sc[i].name, 64);
        one(sc[i].sc, sc[i].name, 400); /* data bubbles */
    }
    /* two halves a few percent apart, through data bubbles: the test of the
     * clusters' separation counts each bubble's processes (sums of squares
     * reduced with the bubbles), as the serial test counts the points */
    one_case(AA_SYNTH_NONE, "none", 400, 0.005, 1, 200, 1.03, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 400, 0.002, 1, 200, 1.05, 0, 1);
    /* the test of imbalances carried by a few visits (cpu_sq) */
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 16, 0.02, 1, 0, 1, 1, 0);
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 64, 0.02, 1, 0, 1, 1, 1);
    /* an oversubscribed node: the scheduler's run delay marks every process
     * preempted (their MPI waits then no hotspot), the same in both, also
     * 5 processes at a time (the delay is kept per process, not per block) */
    g_run_delay_share = 0.4;
    one_case(AA_SYNTH_MPI_BYTES, "mpi-bytes", 64, 0.02, 1, 0, 1, 0, 1);
    g_run_delay_share = 0;
    /* every process doing different work (a work factor growing with the
     * rank in every region), visits varying by 0.5%: the noise is capped at
     * noise_visit_cap x 0.5% in both, also 5 processes at a time */
    g_gradient = 2.0;
    one_case(AA_SYNTH_NONE, "none", 16, 0.02, 1, 0, 1, 0, 0);
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 64, 0.02, 1, 0, 1, 0, 1);
    g_gradient = 0;
    /* half the processes 3% slower in every region, and they are the ones
     * that shared CPU 1 (analyze/placement.c): the CPUs' speed in both, also
     * 5 processes at a time (15 of them: the CPUs still follow the halves) */
    g_cpus = 1;
    one_case(AA_SYNTH_NONE, "none", 16, 0.002, 1, 8, 1.03, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 20, 0.002, 1, 10, 1.03, 0, 1);
    /* ... and without the speeds taken out first (speed_normalize 0): the
     * placement test, the speed test and the speed merge find them */
    g_o = &nonorm;
    one_case(AA_SYNTH_NONE, "none", 16, 0.002, 1, 8, 1.03, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 20, 0.002, 1, 10, 1.03, 0, 1);
    g_o = NULL;
    g_cpus = 0;
    /* two processes 12% slower in every region alike, each on its own CPU:
     * the processes' speed (analyze/speed.c) in both, also 5 at a time */
    g_speed = 1;
    one_case(AA_SYNTH_NONE, "none", 16, 0.002, 1, 2, 1.12, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 20, 0.002, 1, 2, 1.12, 0, 1);
    g_o = &nonorm;
    one_case(AA_SYNTH_NONE, "none", 16, 0.002, 1, 2, 1.12, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 20, 0.002, 1, 2, 1.12, 0, 1);
    g_o = NULL;
    g_speed = 0;
    /* visits varying by more than the processes differ: the regions visited
     * once are judged on one visit's noise (noise.c) in both, also 5 at a
     * time */
    g_visit_rel = 0.03;
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 16, 0.005, 1, 0, 1, 0, 0);
    one_case(AA_SYNTH_NONE, "none", 20, 0.005, 1, 2, 1.5, 0, 1);
    g_visit_rel = 0;
    /* the synthetic slow group (p % 4 == 1) with its last process 12% slower
     * in every region: the clusters apart only by that speed are one in both
     * (speed.c an_speed_pair), also 5 at a time */
    g_merge = 1;
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 14, 0.002, 1, 1, 1.12, 0, 0);
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 22, 0.002, 1, 1, 1.12, 0, 1);
    g_o = &nonorm;
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 14, 0.002, 1, 1, 1.12, 0, 0);
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 22, 0.002, 1, 1, 1.12, 0, 1);
    g_o = NULL;
    g_merge = 0;
    /* 10,000 times the MPI calls (a million in the collective region): what
     * is left outside them is resolved alike in both, also 5 at a time */
    g_calls = 1e4;
    one_case(AA_SYNTH_MPI_BYTES, "mpi-bytes", 16, 0.02, 1, 0, 1, 0, 0);
    one_case(AA_SYNTH_SLOW_GROUP, "slow-group", 20, 0.02, 1, 0, 1, 0, 1);
    g_calls = 0;
    master_case(16);
    master_case(68);
    dynamic_case(0, 12);
    dynamic_case(1, 12);
    dynamic_case(8, 12);
    dynamic_case(9, 12);
    dynamic_case(10, 12);
    dynamic_case(11, 12);
    dynamic_case(12, 12);
    dynamic_case(13, 12);
    dynamic_case(14, 12);
    role_case(0, 12);
    role_case(1, 12);
    role_case(2, 12); /* opposite phases: made up (an_idle_bound) */
    role_case(4, 12); /* ... in part */
    role_case(5, 12); /* ... the others preempted outside MPI, not waiting in it */
    context_case(0, 12);
    context_case(2, 12);
    context_case(3, 12); /* one context a hotspot alone, two more that are one together */
    /* processes sharing CPUs of different paces, two kernels: the imbalance
     * kept, the note that it may be the CPUs' in both */
    parity_case("two kernels, shared CPUs of different paces", test_cpu_pace_exp(0, 8), -1);
    parity_case("two kernels, shared CPUs of different paces, 12 processes",
                test_cpu_pace_exp(0, 12), -1);
    /* ... the CPUs' pace measured (analyze/pace.c): explained; with more
     * work in sweep on top, that imbalance kept and residual's explained */
    parity_case("two kernels, the CPUs' pace measured", test_cpu_pace_exp_spin(0, 8, 1.12, 1), -1);
    parity_case("two kernels, the CPUs' pace measured, more work in sweep, 12 processes",
                test_cpu_pace_exp_spin(0, 12, 1.12, 1.6), -1);
    /* ... three clusters, two apart only by the CPUs' measured pace: made
     * one; with more work on the slower CPU's processes: kept apart */
    parity_case("two kernels, clusters apart by the CPUs' pace", test_pace_split_exp(1, 1), -1);
    parity_case("two kernels, clusters apart by the CPUs' pace and by work",
                test_pace_split_exp(1, 1.8), -1);
    /* ... a writer on the slower CPU: compute's split merged by the pace,
     * its difference then not significant */
    parity_case("a writer on the slower CPU, the pace measured", test_writer_split_exp(1), -1);
    /* one region of the same work: the visits' noise taken */
    parity_case("one region of the same work, visits varying", test_few_regions_exp(0.08), -1);
    wait_in_loop_case(0);
    wait_in_loop_case(1);
    wait_in_loop_case(2);
    blocked_hotspot_case();
    /* no process at all: an input error, not a crash */
    memset(&err, 0, sizeof err);
    aa_pcomm_single(&cm);
    ok(aa_analyze_parallel(&cm, NULL, NULL, 0, NULL, NULL, &a, &err) == AA_EINPUT && !a,
       "no processes: an input error (%s)", err.msg);
    return tap_done();
}
