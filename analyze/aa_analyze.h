/*
 * analyze/aa_analyze.h -- the offline analysis of SPEC §5: from an
 * experiment to dissimilarity bottlenecks (OPTICS over per-process
 * vectors), disparity bottlenecks (k-means severity classes over CRNM),
 * their narrowing to CCCRs on the region tree, and rough-set root causes;
 * plus the terminal, XML and JSON renderings (§5.5, §9).
 */
#ifndef AA_ANALYZE_H
#define AA_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "common/aa_common.h"
#include "profile/aa_profile.h"

typedef enum aa_proc_metric {
    AA_PMETRIC_CPU = 0, /* CPU time outside MPI (default) */
    AA_PMETRIC_WALL,
} aa_proc_metric;

typedef enum aa_region_metric {
    AA_RMETRIC_CRNM = 0, /* (CRWT / WPWT) x CPI (default) */
    AA_RMETRIC_CPI,
    AA_RMETRIC_WALL,
} aa_region_metric;

/* ---- history-guided analysis (analyze/history.c) -------------------------
 * Knowledge from earlier runs of the same application or configuration
 * (Karavanic's history-guided diagnosis: prunes, priorities, thresholds),
 * given to the analysis as data; the engine reads it from the Program
 * Space (aa_engine_history_load).  Region ids are static (stable) ids. */
typedef struct aa_analyze_prune {
    uint32_t region_id;     /* a region the prune covers (it, or one below it) */
    const char *resource;   /* the pruned resource, for the report (/Code path) */
    const char *reason;     /* "" none */
} aa_analyze_prune;

typedef struct aa_analyze_priority {
    uint32_t region_id;     /* earlier runs found a bottleneck here ... */
    size_t nruns;           /* ... in this many of them */
} aa_analyze_priority;

typedef struct aa_analyze_history {
    const char *source;               /* where it comes from ("Program Space X, app Y") */
    size_t nprunes;                   /* several entries may share a resource */
    const aa_analyze_prune *prunes;
    size_t npriorities;
    const aa_analyze_priority *priorities;
    size_t npriority_runs;
    const long long *priority_runs;   /* the executions they come from (EIDs) */
    size_t nnoise;                    /* learned run-to-run noise by region: */
    const uint32_t *noise_ids;
    const double *noise_spread;       /* relative standard deviation between runs */
    size_t nnoise_runs;
    const long long *noise_runs;      /* the executions it was learned from */
    double noise_factor;              /* <= 0: 3 */
} aa_analyze_history;

typedef struct aa_analyze_options {
    aa_proc_metric proc_metric;
    aa_region_metric region_metric;
    size_t min_pts;            /* 0 = default */
    double eps;                /* <= 0 = default */
    int auto_exclude_master;   /* default 1 */
    size_t nexclude_ranks;
    int *exclude_ranks;
    size_t nexclude_regions;
    char **exclude_regions;    /* region ids or name globs */
    size_t nattributes;        /* 0 = default attribute set of §5.4 */
    char **attributes;         /* attribute names (l1_miss_rate, ...) */
    /* the analysis' thresholds: defaults, ranges and the suite figures that
     * justify them are in aa_analyze_tunables() (analyze/options.c) */
    double noise_factor;       /* OPTICS eps of a level: this x the noise distance there */
    double separation_t;       /* two clusters of a level differ when their means are this
                                  many standard errors apart (0: OPTICS alone decides) */
    double resolution_s;       /* smallest per-process CPU difference (s) */
    double disparity_min_share; /* smallest self share of the run of a hotspot */
    double finding_min_share;  /* smallest impact share of the run of any finding */
    double spike_z;            /* an imbalance is kept when it exceeds this many standard
                                  errors of its slow processes' excess visit spread */
    double placement_z;        /* an imbalance following the shared CPUs is a speed when the
                                  slow processes are slower outside it by this many standard
                                  errors and not inside it beyond that */
    double placement_min_share; /* a process's main CPU: at least this share of its time */
    double speed_z;            /* an imbalance is the processes' speed when what the speeds
                                  leave of it is within this many spreads (0: off) */
    double speed_max;          /* ... and the speeds differ by at most this factor */
    double pace_k;             /* with too few regions for the speed, an imbalance is the CPUs'
                                  measured pace when its log ratio is at most this many times
                                  the slow processes' log pace ratio (0: off) */
    double pace_z;             /* ... which is this many standard errors or more */
    double own_share;          /* a CCR with CCR descendants stays innermost when this
                                  share of its difference is in its own code */
    double io_out;             /* 1: time inside I/O calls left out of the process metric;
                                  0: kept in */
    double disk_min_rate;      /* "heavy disk I/O" needs this many bytes per s of I/O time */
    double speed_normalize;    /* 1: each process's CPU time divided by its speed before the
                                  processes are compared (the noise measured before) */
    double blocked_work;       /* 1: time off the CPU outside MPI and I/O beyond the run
                                  delay's share (sleeping, waiting for a device) counts */
    double io_work;            /* 1: each process's I/O calls at the region's mean cost a
                                  call put back into it (io_out 1); 0: not */
    double idle_bound;         /* 1: an imbalance costs at most what the other processes are
                                  idle (its difference made up elsewhere before they
                                  synchronize costs nothing); 0: not bounded */
    double cpu_fix_k;          /* a region's noise floor: this times its mean cpu_fix */
    double mpi_call_res_s;     /* ... and this times its mean MPI calls (s a call) */
    double noise_quantile;     /* the run's relative noise: this quantile over its regions */
    double noise_max;          /* the spread between processes is noise up to this share */
    double noise_visit_cap;    /* ... at most this times the spread the processes' own visits
                                  give (0: no cap) */
    double one_visit_k;        /* a region some process visited once varies by at least this
                                  times how much one visit varies (0: off) */
    double preempted_share;    /* a process was preempted: this share of its wall time
                                  neither CPU time nor waiting in MPI or I/O */
    double mpi_call_cpu_s;     /* preempted process: CPU time an MPI call needs at most */
    double mpi_copy_rate;      /* ... plus its bytes at this rate (bytes/s) */
    double master_min_share;   /* master: share of rank 0's time in regions only it runs */
    double traffic_min_rate;   /* bytes/s of a region for "much MPI traffic" */
    double traffic_min_call;   /* ... and bytes per MPI call */
    double dynamic_corr;       /* dynamic imbalance: the wait at a step's synchronization
                                  correlates with the step's own work at most -this */
    double dynamic_slope;      /* ... falls by at least this share of the work lacking */
    double dynamic_z;          /* ... the correlation this many standard errors (Fisher z) */
    double dynamic_noise_k;    /* ... its cost counts the steps' work spread beyond this
                                  times one visit's relative noise of the step's mean work */
    const aa_analyze_history *history; /* NULL: none (analyze/history.c applies it) */
    size_t optics_keep;        /* the OPTICS ordering of the reported level is kept (for the
                                  report's reachability plot) up to this many processes:
                                  AA_OPTICS_KEEP_DEFAULT; the report asks for all (SIZE_MAX):
                                  1.2 s CPU at 16,384 processes, docs/report.md */
} aa_analyze_options;

#define AA_OPTICS_KEEP_DEFAULT 4096

void aa_analyze_options_init(aa_analyze_options *o);

/* 1 when `name` is a root-cause attribute the analysis knows (the
 * attribute table of causes.c: what `--attributes` may name), else 0. */
int aa_analyze_attribute_known(const char *name);

/* The numeric thresholds of the analysis, one entry each: the name used by
 * `--set NAME=VALUE`, the field it sets, its default and range, its unit and
 * the justification (what it catches and what it falsely flags). */
typedef struct aa_analyze_tunable {
    const char *name;
    size_t offset;      /* offsetof(aa_analyze_options, field), a double */
    double def, min, max;
    const char *unit;
    const char *why;
} aa_analyze_tunable;

const aa_analyze_tunable *aa_analyze_tunables(size_t *n);
const aa_analyze_tunable *aa_analyze_tunable_find(const char *name);
/* Sets one tunable from "NAME=VALUE"; AA_EUSAGE with a message naming the
 * setting (unknown name, not a number, out of range). */
int aa_analyze_options_set(aa_analyze_options *o, const char *assignment, aa_err *err);

/* A region of the analysed region tree (calling-context nodes merged over
 * processes and threads; identified by the path of static region ids). */
typedef struct aa_an_region {
    size_t index;         /* ordinal shown in reports (1-based) */
    uint32_t id;          /* static region id */
    long parent;          /* index into regions[] of the parent node, -1 root */
    int depth;            /* 0 = whole program */
    const aa_region *info; /* points into the experiment */
    size_t nprocs_run;    /* analysed processes that ran it */
} aa_an_region;

typedef enum aa_finding_kind {
    AA_FINDING_DISSIMILARITY = 0,
    AA_FINDING_DISPARITY,
    AA_FINDING_DYNAMIC,      /* imbalance moving between processes from step to step
                                (analyze/dynamic.c): region = where the work varies,
                                wait_region = the call site they wait at */
} aa_finding_kind;

/* "dissimilarity", "disparity" or "dynamic": the kind's name in the JSON
 * and XML renderings, the Program Space and the reports. */
const char *aa_finding_kind_name(aa_finding_kind k);

typedef struct aa_cause_evidence {
    char *attribute;   /* attribute name, e.g. "disk_io_bytes" */
    double value;      /* the region's value (mean over its processes) */
    double reference;  /* what it is compared against (mean of the rest) */
} aa_cause_evidence;

typedef struct aa_finding {
    aa_finding_kind kind;
    size_t region;          /* index into result.regions */
    int ccr, cccr;
    int severity_class;     /* disparity: 0..4; dissimilarity: -1 */
    double severity;        /* [0,1] */
    double confidence;      /* [0,1] */
    double effect;          /* dissimilarity: share of between-cluster distance */
    /* impact, comparable across kinds (findings are ranked by it):
     * dissimilarity: the time (s, process metric) each slow process spends
     * in the region beyond the others' mean; disparity: the region's own
     * (self) wall time per process */
    double impact_s;
    double excess_s;        /* dissimilarity: the time each slow process spends in the region
                             * beyond the others' mean; impact_s is less when the others are
                             * idle less than that in all (the difference is made up in other
                             * regions before the processes synchronize), else the same;
                             * other kinds: impact_s */
    double wait_s;          /* dissimilarity: the time the other processes wait, in all, in
                             * wait_region beyond the slow ones (measured MPI time; 0 when
                             * they do not wait, NAN when MPI time is not measured) */
    long wait_region;       /* dissimilarity: where they wait most (region index), else -1 */
    const char *wait_kind;  /* ... in which kind of MPI call ("collective calls",
                               "point-to-point calls", ...; the runtime's mpi_*_wall), or NULL */
    size_t nwait;           /* dissimilarity: the waiting processes (the others) */
    int *wait_ranks;        /* their ranks */
    double late_s;          /* dissimilarity: how late the slow processes are from the region:
                             * their mean wall time outside MPI there beyond the others'
                             * (NAN: unknown); a wait longer than that has other causes too */
    double run_share;       /* impact / the median whole-program time */
    int slow_cluster;       /* dissimilarity: cluster id of the slow processes, else -1 */
    size_t nslow;           /* dissimilarity: slow processes */
    int *slow_ranks;        /* their ranks */
    size_t ncauses;
    char **causes;          /* root-cause attribute names */
    aa_cause_evidence *evidence; /* ncauses entries */
    char *suggestion;       /* one line */
    double steps;           /* dynamic: steps per process paired at the wait region */
    double step_work_sd;    /* dynamic: how much one step's work varies (s, standard
                               deviation within a process); effect: the slope of the wait
                               on it (negated), severity: the correlation (negated),
                               confidence: the share of the processes whose own steps
                               show it, or of the steps whose latest process's do: the
                               less */
    double step_noise_sd;   /* dynamic: ... the part of it the machine's noise explains (s;
                               dynamic_noise_k x one visit's noise x the mean step) */
    size_t ncontexts;       /* disparity: the calling contexts whose own code it adds up
                               (a region hot only over all the contexts it runs in,
                               disparity.c an_context_hotspots), 0 for region alone */
    size_t *contexts;       /* ... their region indices, region (the largest) first;
                               impact_s, run_share and effect are their sums */
    size_t history_runs;    /* history: earlier runs that found a bottleneck in this
                             * region (a priority), 0 none */
} aa_finding;

/* What the history-guided analysis used and did (aa_analysis.history). */
typedef struct aa_an_history_prune {
    char *resource, *reason;
    size_t nregions;        /* regions of the experiment it covers */
    size_t nremoved;        /* findings it removed */
} aa_an_history_prune;

typedef struct aa_an_history {
    char *source;
    size_t nprunes;
    aa_an_history_prune *prunes; /* one per pruned resource */
    size_t nremoved;             /* findings removed by prunes */
    size_t npriority_runs;
    long long *priority_runs;
    size_t npriorities;          /* regions earlier runs found bottlenecks in */
    size_t nprioritized;         /* findings in them now */
    size_t nnoise_runs;
    long long *noise_runs;
    size_t nnoise;               /* regions with learned noise */
    size_t nnoise_raised;        /* of them, noisier between runs than the run's own noise */
    size_t nnoise_removed;       /* imbalances within noise_factor x that noise, removed */
    double noise_factor;
} aa_an_history;

typedef struct aa_analysis {
    const aa_experiment *exp;
    size_t nprocesses;        /* processes analysed */
    size_t nregions;
    aa_an_region *regions;
    /* dissimilarity */
    const char *proc_metric;  /* "cpu" or "wall" */
    int proc_metric_io;       /* time inside I/O calls left out too (io_cpu / io_time) */
    int proc_metric_blocked;  /* blocked time outside the calls counted (blocked_work) */
    int speed_normalized;     /* the processes' speeds taken out (speed_normalize) */
    double speed_lo, speed_hi; /* ... the fastest and slowest pace (time / mean time) */
    double *speed_factor;      /* ... by analysed process (as ranks[]): 1 / its pace, what
                                  its CPU time was multiplied by; NULL when not taken out */
    double *io_call_cost;     /* ... and, by region, the mean cost of an I/O call in its own
                                 code (s): each process's calls at that cost put back into
                                 the metric (io_work); NULL when not */
    size_t nclusters;
    size_t *cluster_size;
    int **cluster_ranks;      /* nclusters lists of ranks */
    size_t nexcluded_ranks;
    int *excluded_ranks;
    /* disparity */
    const char *region_metric; /* "crnm", "cpi", "wall" */
    int *severity;             /* by region index: 0..4 */
    double *region_value;      /* by region index: the averaged metric */
    int dynamic_measured;      /* the runtime paired steps at synchronizing calls (sync_*):
                                  imbalance moving between processes looked for */
    /* findings, strongest first within each kind */
    size_t nfindings;
    aa_finding *findings;
    /* rough-set summary */
    size_t ncore_dissim, ncore_disp;
    char **core_dissim, **core_disp; /* global cores */
    size_t ninconsistent;      /* inconsistent pairs skipped */
    size_t nunavailable;
    char **unavailable;        /* attributes that could not be measured */
    size_t nnotes;
    char **notes;              /* fallbacks taken ("CPI unavailable: ...") */
    /* added: */
    int *ranks;                /* nprocesses analysed ranks */
    int *cluster_of;           /* by analysed process: cluster id */
    double *cluster_mean;      /* by cluster: mean main metric of the program */
    size_t min_pts_used;
    double eps_used;
    double noise_rel;          /* measured relative noise of the process metric */
    double noise_between;      /* the spread between processes it was measured from */
    double noise_between_measured; /* ... that spread as measured when above noise_max
                                    * (noise_between is then noise_max); 0 otherwise */
    double noise_visits;       /* the spread of the processes' own visits (0: not measured) */
    double noise_one_visit;    /* how much one visit of a region varies (0: not measured): the
                                * noise of a region visited once */
    /* imbalances dropped because their partition follows the CPUs the
     * processes shared (analyze/placement.c; docs/analysis.md §2): how
     * many, and the largest one's region (index into regions), slow ranks,
     * its ratio slow / others less 1, the median and spread of that ratio
     * over the regions compared (relative), how many regions */
    size_t placement_dropped;
    size_t placement_region;
    size_t nplacement_slow;
    int *placement_slow;
    double placement_ratio, placement_speed, placement_spread;
    size_t placement_regions;
    /* imbalances kept although their partition follows the CPUs the
     * processes shared: too few regions (placement_undecided_regions, fewer
     * than 5) to tell the CPUs' pace from the work (docs/analysis.md §2) */
    size_t placement_undecided;
    size_t placement_undecided_regions;
    /* imbalances dropped as the processes' speed, every region alike
     * (analyze/speed.c; docs/analysis.md §2): how many, the largest one's
     * region, slow ranks, its ratio slow / others less 1, the slow
     * processes' speed ratio less 1, the processes' mean spread (log), how
     * many regions the speeds come from */
    size_t speed_dropped;
    size_t speed_region;
    size_t nspeed_slow;
    int *speed_slow;
    double speed_ratio, speed_uniform, speed_spread;
    size_t speed_regions;
    /* imbalances dropped as the CPUs' measured pace (analyze/pace.c;
     * docs/analysis.md §2): how many, the largest one's region, slow ranks,
     * its ratio slow / others less 1, the slow processes' pace ratio less
     * 1 and its standard error (log) */
    size_t pace_dropped;
    size_t pace_region;
    size_t npace_slow;
    int *pace_slow;
    double pace_ratio, pace_slower, pace_se;
    /* where the processes differ most against their noise without a
     * finding (not significant): function and loop regions (indices into
     * regions) and their spread in noise standard deviations; the
     * refinement of a two-round flow instruments inside them too */
    size_t nsuspects;
    size_t *suspects;
    double *suspect_sep;
    /* the OPTICS run whose partition cluster_of is: the level (children of
     * region optics_level) and, for up to o->optics_keep processes, the analysed
     * processes (indices into ranks) in OPTICS order with their
     * reachability distances (INFINITY: undefined); NULL otherwise */
    long optics_level;
    size_t *optics_order;
    double *optics_reach;
    size_t nattributes;        /* attributes used in the tables */
    char **attributes;
    aa_an_history *history;    /* what the history-guided analysis used; NULL: no history */
} aa_analysis;

int aa_analyze_run(const aa_experiment *e, const aa_analyze_options *o, aa_analysis **out,
                   aa_err *err);
void aa_analyze_free(aa_analysis *a);

/* The caller that tells region r's calling context apart, or -1: when r's
 * static region is a node of the analysed tree more than once (a function
 * called from several places), the nearest caller (the parent of the
 * function node enclosing r, then of that one's function, ...) up to which
 * no other node of r's region shows the same callers -- a caller is shown
 * by its function, and its name when it is a loop or call site; the direct
 * caller when nothing tells them apart. */
long aa_analysis_caller(const aa_analysis *a, size_t r);
/* Appends what the reports print after "called from " for region r: the
 * caller of aa_analysis_caller, and " via " the direct caller when that is
 * another ("pdv via clover_pack_left"); 0 (nothing appended) when r needs
 * none. */
int aa_analysis_caller_label(const aa_analysis *a, size_t r, aa_buf *b);
/* Appends a note (e.g. "ranks missing: 3"); AA_EENV on no memory. */
int aa_analyze_add_note(aa_analysis *a, const char *note);

/* 1: an imbalance whose other processes wait, each, more than twice as
 * long as its slow ones are late from its region (late_s), and longer by
 * more than the whole program's noise -- most of the wait has other causes
 * (the text and HTML reports say how late they are from there instead of
 * "because ... late"). */
int aa_finding_waits_beyond_late(const aa_analysis *a, const aa_finding *f);
/* Renderings: terminal text, JSON per SPEC §9, XML with the same content. */
int aa_analyze_format_text(const aa_analysis *a, aa_buf *out);
int aa_analyze_format_json(const aa_analysis *a, aa_buf *out);
int aa_analyze_format_xml(const aa_analysis *a, aa_buf *out);
/* The "History used" lines of the text report (nothing without history). */
int aa_analyze_format_history(const aa_analysis *a, aa_buf *out);

/* ---- synthetic experiments (tests, benchmarks) --------------------------
 * A generated SPMD program (main -> init, solve -> outer loop -> inner loop,
 * transpose -> loop, exchange -> MPI_Alltoall, output -> write, helpers)
 * with noise and one injected bottleneck.  docs/analysis.md describes it. */
typedef enum aa_synth_scenario {
    AA_SYNTH_NONE = 0,
    AA_SYNTH_SLOW_GROUP, /* a quarter of the ranks do 2.5x the work in the inner loop */
    AA_SYNTH_L2,         /* the transpose loop has a high L2 miss rate (CPI 4) */
    AA_SYNTH_DISK_IO,    /* the write call moves many bytes and takes long */
    AA_SYNTH_MPI_BYTES,  /* the MPI_Alltoall call moves many bytes and takes long */
    AA_SYNTH_DYNAMIC,    /* a different quarter of the ranks does 3x the inner loop's
                            work each step, every total alike (dynamic imbalance) */
} aa_synth_scenario;

typedef struct aa_synth_options {
    aa_synth_scenario scenario;
    int nprocs;          /* default 16 */
    size_t nregions;     /* >= 13 static regions; extra ones are helpers */
    double noise;        /* relative, default 0.02 */
    unsigned seed;
    int no_counters;     /* no cycles/instructions/cache counters (VM case) */
    int master;          /* rank 0 is a master running only a manage loop */
    int nthreads;        /* threads per process, default 1 */
} aa_synth_options;

void aa_synth_options_init(aa_synth_options *o);
int aa_synth_scenario_parse(const char *s, aa_synth_scenario *out); /* 0 ok */
/* Builds the experiment.  expect_region gets the static region id of the
 * injected bottleneck (0 for none), expect_cause its root-cause attribute
 * name (static string, "" for none); either may be NULL. */
int aa_synth_generate(const aa_synth_options *o, aa_experiment **out, uint32_t *expect_region,
                      const char **expect_cause, aa_err *err);

/* ---- the analysis as a parallel job (analyze/parallel.c) ----------------
 * The same analysis over processes spread across the ranks of a job: each
 * rank holds the profiles of a contiguous block of the processes (in rank
 * order) and never sees the others'; what the phases need of all processes
 * (the region tree, sums and extremes per region, exact medians, the
 * processes' data bubbles, the clusters' sums) comes through the
 * collectives of `aa_pcomm`, which the MPI driver (panalyze/) implements
 * with MPI and tests implement for one rank.  Every rank gets the same
 * aa_analysis (ranks lists included); rank 0 writes it. */
typedef struct aa_pcomm {
    void *ctx;
    int rank, size;
    /* element-wise over all ranks, in place, the result on every rank */
    int (*sum)(void *ctx, double *v, size_t n);
    int (*max)(void *ctx, double *v, size_t n);
    /* every rank's n bytes, concatenated in rank order, on every rank
     * (*all malloc'd); sizes are allowed to differ */
    int (*allgather)(void *ctx, const void *buf, size_t n, void **all, size_t *nall);
    /* point to point (the tree reductions) and a broadcast from rank 0 of
     * a malloc'd buffer whose size only rank 0 knows */
    int (*send)(void *ctx, int dest, const void *buf, size_t n);
    int (*recv)(void *ctx, int src, void **buf, size_t *n);
    int (*bcast)(void *ctx, void **buf, size_t *n);
} aa_pcomm;

/* One rank's processes: procs[i] of exps[i] (several may share one
 * experiment), in increasing rank order; nprocs_total: all ranks' sum.
 * info: an experiment naming the static regions (its region table) and
 * the run (id, program).  Excluded ranks or regions, which the parallel
 * analysis does not support, are a usage error. */
int aa_analyze_parallel(const aa_pcomm *cm, const aa_experiment *const *exps,
                        const aa_process *const *procs, size_t n, const aa_experiment *info,
                        const aa_analyze_options *o, aa_analysis **out, aa_err *err);

/* One rank's processes a block at a time (the analysis passes over them a
 * few times: the tree, the values, the root causes), so that a rank need
 * not hold them all (a generator, a reader): n processes; load makes
 * processes [first, first + *count) available as procs[i] of exps[i]
 * (*count >= 1, at most n - first; the same processes on every pass),
 * valid until the next load. */
typedef struct aa_psource {
    size_t n;
    void *ctx;
    int (*load)(void *ctx, size_t first, size_t *count, const aa_experiment *const **exps,
                const aa_process *const **procs, aa_err *err);
} aa_psource;
int aa_analyze_parallel_source(const aa_pcomm *cm, const aa_psource *src,
                               const aa_experiment *info, const aa_analyze_options *o,
                               aa_analysis **out, aa_err *err);

/* The distribution of one region's value over the processes that ran it
 * (exact order statistics; p90: nearest rank). */
typedef struct aa_region_dist {
    size_t n;
    double min, median, p90, max, mean, stddev;
} aa_region_dist;
/* The distributions of the regions of a parallel analysis a (same process
 * blocks as aa_analyze_parallel was given): 2 x a->nregions entries, the
 * inclusive wall time by region index, then the process metric (a->
 * proc_metric outside MPI).  Collective: every rank calls it. */
int aa_analyze_parallel_dist(const aa_pcomm *cm, const aa_experiment *const *exps,
                             const aa_process *const *procs, size_t n, const aa_analysis *a,
                             const aa_analyze_options *o, aa_region_dist **dist, aa_err *err);
int aa_analyze_parallel_dist_source(const aa_pcomm *cm, const aa_psource *src,
                                    const aa_analysis *a, const aa_analyze_options *o,
                                    aa_region_dist **dist, aa_err *err);
/* The distributions d (aa_analyze_parallel_dist) as JSON: per region its
 * fields as in aa_analyze_format_json, then "wall" and "process_metric",
 * each {n, min, median, p90, max, mean, stddev}.  0, or -1 on no memory. */
int aa_analyze_format_dist_json(const aa_analysis *a, const aa_region_dist *d, aa_buf *b);
/* A one-rank aa_pcomm (tests, the serial check of the parallel path). */
void aa_pcomm_single(aa_pcomm *cm);

#endif
