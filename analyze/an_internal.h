/*
 * analyze/an_internal.h -- private to analyze/: the attribute table shared
 * by the analysis and the renderings (render.c), small helpers for growable
 * string lists, and the analysis' shared context (an_ctx) with the phases
 * and helpers of its files: tree.c (processes, region tree), metrics.c
 * (metric values, whole program), dissim.c (dissimilarity), disparity.c
 * (disparity), causes.c (attributes, root causes), findings.c (findings,
 * ranking, confidence); analyze.c runs the phases in order.
 */
#ifndef AA_AN_INTERNAL_H
#define AA_AN_INTERNAL_H

#include "analyze/aa_analyze.h"
#include "roughset/aa_roughset.h"

#include <stddef.h>
#include <stdint.h>

/* AN_BLOCKED: no base metric of the experiment; the blocked time metrics.c
 * add_blocked derives (an_ctx blocked), inclusive */
enum an_attr_kind { AN_ONE, AN_SUM, AN_RATE, AN_BLOCKED };

typedef struct an_attr_def {
    const char *name;
    const char *m1, *m2; /* base metrics */
    int kind;            /* an_attr_kind */
    int is_default;
    const char *suggest;       /* one-line suggestion when it is a cause */
    const char *suggest_dissim; /* for dissimilarity findings (NULL = suggest) */
} an_attr_def;

const an_attr_def *an_attr_table(size_t *n);
const an_attr_def *an_attr_find(const char *name);

/* Appends a copy of s to a string list; -1 on no memory. */
int an_strlist_add(char ***list, size_t *n, const char *s);
void an_strlist_free(char **list, size_t n);

/* Noise model (noise.c).  The run's relative noise of the clustered metric:
 * the median, over regions run by all P processes whose median self value
 * is at least min_value, of 1.4826 x MAD / median of their self values
 * (self: P x R, row per process).  0 when no region qualifies.
 * per_region (R entries, or NULL): each qualifying region's own spread,
 * NaN for the others. */
/* noise.c: the median gap between the sorted values v[0..n), the largest
 * gap left out when there are two or more (sorts v; g: n scratch), and the
 * factor making it a standard deviation for n normal values (x, g: n
 * scratch). */
double an_median_gap(double *v, double *g, size_t n);
double an_gap_scale(size_t n, double *x, double *g);
double an_noise_relative(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double min_value, double quantile, size_t *nused, double *per_region);
/* The processes' own noise (noise.c): the relative spread of a region's
 * total that its visits give (rel: P x R, sqrt(cpu_sq - cpu^2 / visits) /
 * cpu, NaN below 2 visits), median over the processes, then over the
 * regions that qualify as for an_noise_relative and have a value on every
 * process; *nused: how many regions.  an_noise_capped: the run's noise, the
 * spread between processes (gap_noise) but at most cap x visit_noise when
 * that was measured on at least AN_VISIT_NOISE_MIN_REGIONS regions (cap 0:
 * no cap).  One: a small program of two regions, one of them work growing
 * with the rank, read its own imbalance as a 24% noise between processes,
 * while its visits varied by 0.3%; over the suite's 1,440 re-analysed runs
 * 1 instead of 3 lost nothing and gained 2 (master/worker set-up loops
 * judged on one visit's noise), the real applications 2 (bench/
 * diagnosis.md, twenty-second step). */
#define AN_VISIT_NOISE_MIN_REGIONS 1
/* an_noise_floored: the run's noise (noise, an_noise_capped's) at least the
 * processes' own visits' spread (visit_noise, measured on nvisit regions)
 * where the spread between processes was measured on fewer than
 * AN_NOISE_FEW_REGIONS regions of the same work (nused): one or two
 * regions are one or two samples of that spread.  In the edge probe
 * fnptr_dispatch the only region of the same work, `gather`, gave 0.36%
 * while the visits of every region varied the totals by 1.5%: ranks 0,1
 * and 2, 3.5% apart in smooth_coarse, were two clusters (bench/
 * diagnosis.md, thirty-fourth step).  The suite's programs have 5 phases
 * or more of the same work.  Where neither was measured -- no region that
 * every process ran: processes of different roles, even ranks in one
 * kernel and odd ranks in another -- the noise is that of one visit
 * (one_visit, an_one_visit_noise's, measured on none regions that two
 * processes or more ran), the most a region's total varies by: the edge
 * probe split_roles read "noise 0%", judged at the clock's resolution, and
 * called rank 2 2.4% above rank 0 in sweep_x an imbalance of 7.8% of the
 * run (the odd ranks, which never ran sweep_x, counted as 0). */
#define AN_NOISE_FEW_REGIONS 3
double an_noise_floored(double noise, double visit_noise, size_t nused, size_t nvisit,
                        double one_visit, size_t none);
/* The spread between processes bounded by noise_max (max 0: none); the
 * measured spread into *measured when it was above it, else 0. */
double an_noise_bounded(double between, double max, double *measured);
double an_visit_noise(const double *self, const unsigned char *ran, const double *rel, size_t P,
                      size_t R, double min_value, size_t *nused);
double an_noise_capped(double gap_noise, double visit_noise, size_t nvisit, double cap);
/* How much one visit of a region varies (noise.c): one (P x R) is
 * sqrt(visits) x the rel above, NaN below 2 visits; its median over the
 * processes with a value -- at most between[r] where that is finite (the
 * region's spread between processes times the square root of its median
 * visits: what its visits differ by from one process to another, when
 * they all do the same work that changes from visit to visit) -- then
 * over the regions at least two processes ran with a median self value
 * (over them) of at least min_value and a value on at least two: master
 * and workers, or processes that take different branches, each have
 * visits that repeat.  *nused: how many regions. */
double an_one_visit_noise(const double *self, const unsigned char *ran, const double *one,
                          const double *between, size_t P, size_t R, double min_value,
                          size_t *nused);
/* The q-quantile of v[0..n) (reordered); q 0.5: the median */
double an_quantile(double *v, size_t n, double q);
/* Prefix sums over the regions in preorder of their squared median self
 * values, each times its weight (pre: R + 1 entries), so that a subtree's
 * sum is one difference; -1 on no memory. */
int an_level_spread_init(const double *self, const unsigned char *ran, size_t P, size_t R,
                         const double *weight, double *pre);
/* The weight of a region's squared median in those sums (NULL weights: 1):
 * 1 for a region every process that ran it visited at least twice
 * (visits_seen); for the others the larger of (noise_between / noise_rel)^2
 * -- when the run's noise was capped by the visits' spread (an_noise_capped)
 * their noise stays the spread between processes -- and (one_visit /
 * noise_rel)^2: a region visited once varies at least as much as one visit
 * (one_visit: noise_one_visit, 0 when not measured). */
double an_visit_weight(double noise_between, double noise_rel, double one_visit,
                       int visits_seen);
/* OPTICS eps of the level set[0..m) of the region tree (regions in
 * preorder, subtree of r = [r, subtree_end[r])): factor x noise_rel x
 * sqrt(2 x the sum of the squared median self values of every region in the
 * level's subtrees), at least resolution. */
double an_level_eps(const double *pre, const size_t *set, size_t m, const size_t *subtree_end,
                    double noise_rel, double factor, double resolution);

/* Differences that follow the CPUs the processes shared (placement.c).  The
 * placement key of a process: its host and main CPU (aa_process_main_cpu)
 * when that CPU had at least min_share of its time, else 0 (a process the
 * scheduler moved: its pace is a mix).  The partition follows the
 * placement when some key is shared, the processes with a key carry two
 * labels or more, and processes sharing a key share a label (O(P log P));
 * processes without one may carry any label. */
uint64_t an_place_key(const aa_process *p, double min_share);
int an_place_follows(const uint64_t *key, const int *labels, size_t P); /* -1: no memory */
/* 1 when some key is shared (-1: no memory). */
int an_place_shared(const uint64_t *key, size_t P);
/* Sums over the processes for one imbalance (group 1: its slow processes),
 * one array that the parallel analysis reduces as it is: 4 x R -- by group
 * the self values of each region, and how many processes ran it with a
 * positive one -- then AN_PLACE_SCALARS: processes by group, the sum of the
 * logs of the imbalance's region value by group, processes without a
 * positive value there, the sum of squares of those logs about their own
 * cluster's mean (the partition's clusters: the processes that are not
 * slow may be several). */
#define AN_PLACE_SCALARS 6
#define AN_PLACE_MIN_REGIONS 5
typedef struct an_place_sums {
    size_t R;
    double *v; /* an_place_sums_len(s) doubles */
} an_place_sums;
typedef struct an_place_verdict {
    size_t nregions; /* regions compared */
    double speed;    /* median log ratio slow / others over them */
    double spread;   /* 1.4826 x their median absolute deviation */
    double diff;     /* the imbalance's log ratio (mean of logs) */
    double scale;    /* sqrt(spread^2 + its standard error^2) */
    int undecided;   /* the partition follows the CPUs, but fewer than
                        AN_PLACE_MIN_REGIONS regions tell their pace from the work */
} an_place_verdict;
int an_place_sums_init(an_place_sums *s, size_t R); /* -1: no memory */
void an_place_sums_free(an_place_sums *s);
size_t an_place_sums_len(const an_place_sums *s); /* doubles in v */
/* Adds one process's value of the imbalance's region to its cluster's
 * sums (cl: 2 per cluster, the sum of the logs of the positive values and
 * their count; the caller reduces them before an_place_cluster_means). */
void an_place_cluster_add(double *cl, int label, double value);
/* The sums cl of k clusters into their means of logs, in place (cl[2 j]). */
void an_place_cluster_means(double *cl, size_t k);
/* Adds one process: self (R values; ran: R flags or NULL), the value of
 * the imbalance's region and its cluster's mean log value there
 * (an_place_cluster_means). */
void an_place_add(an_place_sums *s, int slow, const double *self, const unsigned char *ran,
                  double value, double cluster_log);
/* 1 when the imbalance is the speed of the CPUs (placement.c), 0 when not
 * or not to be told, -1 on no memory; program_metric: the median program
 * metric; k: the clusters of the partition. */
int an_place_judge(const an_place_sums *s, const aa_analyze_options *o, double program_metric,
                   size_t k, an_place_verdict *v);
/* Records on a the n imbalances the placement explains, with the largest
 * one's region, slow ranks (ns) and figures; -1 on no memory. */
int an_place_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                    const an_place_verdict *v);
/* The note on the imbalances the placement explains, from what
 * an_place_record put on a (slow_set: its slow ranks, compactly). */
void an_place_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set);

/* Differences that are the processes' speed, every region alike (speed.c).
 * rs: 2 x R sums over the processes -- how many ran region r with a self
 * value of at least min_value, and the sum of the logs of those values --
 * which the parallel analysis reduces as they are. */
void an_speed_region_add(double *rs, size_t R, const double *self, const unsigned char *ran,
                         double min_value);
/* One process's speed (median log excess over the processes' mean log over
 * the regions all P ran with min_value) and spread (1.4826 MAD); nregions 0
 * when fewer than AN_PLACE_MIN_REGIONS; -1 on no memory. */
int an_speed_process(const double *rs, size_t R, double P, const double *self,
                     const unsigned char *ran, double min_value, double *speed, double *spread,
                     size_t *nregions);
/* Sums over the processes for one imbalance (AN_SPEED_SUMS doubles, group 1
 * its slow processes): processes by group, sum of the log of the region's
 * value by group, sum of speeds by group, sum of spreads, processes without
 * a positive value. */
#define AN_SPEED_SUMS 8
void an_speed_add(double *v, int slow, double speed, double spread, double value);
typedef struct an_speed_verdict {
    size_t nregions; /* regions the speeds come from */
    double diff;     /* the imbalance's log ratio slow / others (mean of logs) */
    double speed;    /* the slow processes' speed less the others' (log) */
    double spread;   /* the processes' mean spread of their excess over regions */
    double z;        /* (diff - speed) / (spread x sqrt(1/|S| + 1/|F|)) */
} an_speed_verdict;
typedef struct an_pace_verdict {
    double diff; /* the imbalance's log ratio slow / others (mean of logs) */
    double pace; /* the slow processes' log pace less the others' */
    double se;   /* its standard error */
    double z;    /* pace / se */
} an_pace_verdict;
/* 1 when the imbalance is the processes' speed, 0 when not or not to be
 * told. */
int an_speed_judge(const double *v, size_t nregions, const aa_analyze_options *o,
                   int normalized, an_speed_verdict *out);
/* Records on a the n imbalances the speed explains, with the largest one's
 * region, slow ranks (ns) and figures; -1 on no memory. */
int an_speed_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                    const an_speed_verdict *v);
/* The note on them, from what an_speed_record put on a. */
void an_speed_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set);
/* Differences that follow the CPUs' measured pace (pace.c).  A process's
 * log pace and its standard error (an_pace_of: 0 when not measured); sums
 * over the processes for one imbalance (AN_PACE_SUMS doubles, group 1 its
 * slow processes): processes by group, sum of log paces by group, sum of
 * their squared standard errors by group, processes without a pace, sum of
 * the log of the region's value by group, processes without a positive
 * value. */
int an_pace_of(const aa_process *p, double *lp, double *se);
#define AN_PACE_SUMS 10
void an_pace_add(double *v, int slow, int measured, double lp, double se, double value);
/* 1 when the imbalance is the CPUs' measured pace, 0 when not or not to be
 * told. */
int an_pace_judge(const double *v, const aa_analyze_options *o, an_pace_verdict *out);
/* Records on a the n imbalances the pace explains, with the largest one's
 * region, slow ranks (ns) and figures; -1 on no memory. */
int an_pace_record(aa_analysis *a, size_t n, size_t region, const int *slow, size_t ns,
                   const an_pace_verdict *v);
/* The note on them, from what an_pace_record put on a. */
void an_pace_note_text(char *buf, size_t size, const aa_analysis *a, const char *slow_set,
                       double pace_k);
/* Clusters apart only by their CPUs' measured pace.  Sums by cluster over
 * its processes, AN_PACE_CSUMS(m) doubles for a level of m components:
 * processes, sum of log paces, sum of their squared standard errors,
 * processes without a pace, then for each component the sum of the log of
 * its value and how many processes had none. */
#define AN_PACE_CSUMS(m) (4 + 2 * (m))
void an_pace_cluster_add(double *cs, size_t m, int measured, double lp, double se,
                         const double *x);
/* 1 when clusters a and b (their sums ca, cb) differ by their CPUs' pace
 * alone; *score: the largest component difference in pace log ratios. */
int an_pace_pair(const double *ca, const double *cb, size_t m, const aa_analyze_options *o,
                 double *score);
/* Clusters apart only by their processes' speed (speed.c).  Sums by
 * cluster over its processes, AN_SPEED_CSUMS(m) doubles for a level of m
 * components: processes, sum of speeds, sum of spreads, then for each
 * component the sum of the log of its value and how many processes had
 * none (x: the process's m component values). */
#define AN_SPEED_CSUMS(m) (3 + 2 * (m))
/* Partitions of more clusters are left as they are: the pair search costs
 * clusters^3 x components, and a level cut that fine is not a few
 * processes' speed. */
#define AN_SPEED_MERGE_MAX 64
void an_speed_cluster_add(double *cs, size_t m, double speed, double spread, const double *x);
/* 1 when clusters a and b (their sums ca, cb) differ by their speed alone;
 * *score: the largest standard errors left on a component (the pair with
 * the least merges first). */
int an_speed_pair(const double *ca, const double *cb, size_t m, size_t nregions,
                  const aa_analyze_options *o, double *score);
/* Labels a and b (of labels[0..n), 0-based and dense) made one, the
 * smaller label; the labels above the other one down by one. */
void an_speed_merge_labels(int *labels, size_t n, int a, int b);

/* ---- the analysis' context ------------------------------------------------- */
typedef struct an_ctx an_ctx;

/* placement.c: records n imbalances the placement explains on c->a, with the largest
 * one's region, slow processes (labels: a partition of c->a's analysed
 * processes, `slow` the slow cluster) and figures, and adds the note;
 * AA_OK or AA_EENV (no memory). */
int an_place_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                    const an_place_verdict *v);
/* The kept imbalances whose partition follows the CPUs but that too few
 * regions could judge (an_place_verdict.undecided): n of them, the largest
 * one's partition (labels, its slow cluster) and verdict; recorded on the
 * analysis and said in a note.  -1 on no memory. */
int an_place_undecided_report(an_ctx *c, const int *labels, int slow, size_t n,
                              const an_place_verdict *v);
/* placement.c: the ranks of the slow cluster `slow` of labels (a partition
 * of c->a's analysed processes) and their compact set; AA_OK, or AA_EENV
 * with nothing allocated. */
int an_slow_rank_set(an_ctx *c, const int *labels, int slow, int **ranks, size_t *n,
                     char **set);
/* speed.c: the same for the imbalances the processes' speed explains. */
int an_speed_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                    const an_speed_verdict *v);
/* pace.c: the same for the imbalances the CPUs' measured pace explains. */
int an_pace_report(an_ctx *c, const int *labels, int slow, size_t n, size_t region,
                   const an_pace_verdict *v);
/* speed.c: the note on n clusters made one with another (an_speed_pair). */
int an_speed_merge_note(an_ctx *c, size_t n);
/* pace.c: the same for clusters apart only by the CPUs' pace (an_pace_pair). */
int an_pace_merge_note(an_ctx *c, size_t n);

typedef struct an_clust {
    size_t min_pts;
    double eps;
    /* significance of the clusters (dissim.c merge_insignificant): 0 = off;
     * else clusters whose means are closer than sig standard errors (for
     * several columns: the chi-square equivalent of the same tail), or
     * closer than res, are merged; sd_floor: by column of the level, the
     * smallest standard deviation of one process there (the noise model) */
    double sig, res;
    const double *sd_floor;
} an_clust;

/* dissim.c: whether an imbalance whose partition speed_merge changed still
 * differs in its own region: g = {slow processes, sum, sum of squares,
 * other processes, sum, sum of squares} of the region's values; cp: the
 * region's significance parameters (an_level_significance over the region
 * alone; sig 0: no test, it differs). */
int an_merged_difference(const double *g, const an_clust *cp);
/* dissim.c: the note on n imbalances an_merged_difference dropped. */
int an_unmerged_note(an_ctx *c, size_t n);

typedef struct an_bub {
    size_t n, dim, nb;
    size_t *of;    /* by point: bubble */
    size_t *count; /* by bubble */
    double *mean;  /* nb x dim */
    double *sq;    /* nb x dim: sums of squares of each bubble's points, or NULL; set by
                      the parallel analysis, which clusters the bubble means themselves
                      (n = nb, of the identity) and tests significance on them */
} an_bub;

typedef struct dis_found {
    size_t region;
    double effect, severity, confidence;
    double impact; /* s per slow process beyond the others, at most what the others
                      are idle (an_idle_bound) */
    double excess; /* s per slow process beyond the others */
    int dropped;   /* impact below finding_min_share, or carried by a few visits */
    int made_up;   /* dropped: its excess is made up elsewhere (an_idle_bound) */
    int spike;     /* dropped: carried by a few visits */
    int placement; /* dropped: follows the CPUs the processes shared (placement.c) */
    an_place_verdict place; /* ... its figures */
    int speed;     /* dropped: the processes' speed, every region alike (speed.c) */
    an_speed_verdict spd; /* ... its figures */
    int pace;      /* dropped: the CPUs' measured pace (pace.c) */
    int unmerged;  /* dropped: no difference in its region once clusters apart only by
                      speed or pace were made one (an_merged_difference) */
    an_pace_verdict pc; /* ... its figures */
    int cccr;
    int own;       /* a CCCR although CCR descendants are findings: most of its
                      difference is in its own code (own_share) */
    int *labels; /* level partition (owned), P entries */
    long level;  /* the region whose children form the level (-1: the root level) */
    an_clust cp; /* the level's MinPts and eps */
} dis_found;

typedef struct dis_state {
    an_ctx *c;
    const double *MM; /* main metric P x R */
    an_clust cp;      /* MinPts; eps of the top level (or the user's, for every level) */
    int fixed_eps;    /* the user set eps: every level uses it */
    double *spread;   /* R + 1: prefix sums of squared median self values (noise.c) */
    double *range;    /* by region: max - min of MM over the processes */
    double *smpi;     /* P x R: MPI wall time of each region's own code, or NULL */
    dis_found *found;
    size_t nfound;
} dis_state;

typedef struct rs_rows {
    size_t nrows;
    size_t *row_of;  /* by object: distinct row index */
    size_t *count;   /* by row: objects */
    size_t *first;   /* by row: first object */
} rs_rows;

/* The disparity CCRs and their decision table (disparity.c, causes.c). */
typedef struct an_disp {
    size_t n;             /* classified regions: c->dobj[0..n) */
    long *pos;            /* by region: its index in dobj, -1 if not classified */
    int *isccr, *iscccr;  /* by region */
    long *rep;            /* by region: the context carrying its region's hotspot over
                             several contexts (an_context_hotspots), else -1 */
    int *vals;            /* n x nattr: the table's condition values */
    int *dec;             /* by classified region: the decision (CCR) */
    double maxv;          /* the largest region value */
    size_t nwaits;        /* top-class regions that are an imbalance's waiting */
    rs_rows rows;         /* the table's distinct rows */
    aa_dtable *tab;
    aa_roughset_result res;
    int have_rs;          /* tab and res hold a result */
} an_disp;

/* A tree of calling contexts identified by their path of static region ids
 * (tree.c; the parallel analysis builds its ranks' trees with it too):
 * nodes in creation order (parents first, the root at index 0), found by
 * (parent, id) through an open-addressing index. */
typedef struct an_rtree {
    size_t n, cap;
    uint32_t *id;  /* static region id */
    long *par;     /* index of the parent, -1 for the root */
    uint64_t *hk;  /* open addressing: ((parent+1)<<32 | id) + 1, 0 = empty */
    long *hv;
    size_t hcap;
    size_t nfolded;        /* nodes folded into their parent (direct recursion) */
    uint32_t fold_id[4];   /* the first regions folded, for the note */
    size_t nfold_id;
} an_rtree;

/* Index of child `id` of node `parent` (-1: the root itself), created when
 * missing; -1 on no memory. */
long an_rtree_child(an_rtree *t, long parent, uint32_t id);
/* Every node of every thread of process pr into t (which holds its root):
 * map (thread-major, one per node) gets their indices.  AA_EINPUT when a
 * node's parent does not precede it, AA_EENV on no memory (err set). */
int an_rtree_map(an_rtree *t, const aa_process *pr, long *map, aa_err *err);
void an_rtree_free(an_rtree *t);
/* Direct recursion is folded: a node of the same static region as its
 * parent node maps to the parent's tree node (its children merge with the
 * parent's), and its values, inside the parent's inclusive ones, count
 * nothing.  1 when node i of thread th (map: that thread's part) is one. */
static inline int an_node_folded(const aa_thread *th, const long *map, size_t i)
{
    int32_t up = th->nodes[i].parent;
    return up >= 0 && map[up] == map[i];
}

struct an_ctx {
    const aa_experiment *e;
    const aa_analyze_options *o;
    aa_analysis *a;
    aa_err *err;
    /* merged tree (all nodes of all non-excluded processes) */
    an_rtree tree;
    long **map;       /* by experiment process, thread-major flat: node -> tree */
    size_t *mapoff;   /* by experiment process: offsets of threads in map */
    /* analysed processes */
    size_t P;
    size_t *proc;     /* experiment process indices */
    /* regions (kept tree nodes) */
    size_t R;
    long *t2r;        /* tree index -> region index, -1 dropped */
    size_t *r2t;
    size_t *cstart, *clist; /* children of region r: clist[cstart[r]..cstart[r+1]) */
    unsigned char *ran;     /* P*R */
    double *wpwt;           /* by analysed process */
    double *idle_mpi;       /* by analysed process: its MPI wall time outside the set-up
                             * MPI (metrics.c whole_chain), where an idle process waits;
                             * NAN unknown; NULL without mpi_wall */
    double *dwpwt;          /* by analysed process: the disparity values' whole program */
    size_t npreempted; /* analysed processes preempted: every one judged on CPU + I/O time
                        * (disparity.c) */
    unsigned char *whole;   /* by region: stands for the whole program */
    unsigned char *exroot;  /* by tree node: topmost node excluded by region */
    size_t *dobj, ndobj;    /* regions classified by the disparity analysis */
    size_t *send;           /* by region: end of its subtree (preorder) */
    /* the phases' values, P x R each (a row per analysed process) */
    unsigned char *cand;    /* by experiment process: a candidate for the analysis */
    double *MM;             /* main metric: CPU (or wall) time outside MPI */
    double *fixm;           /* by region: mean over the processes that ran it of cpu_fix
                               (inclusive; the interpolated CPU time's corrections), NULL
                               when not measured */
    double *callm;          /* by region: mean over the processes that ran it of its MPI
                               calls (inclusive), when the time inside MPI was subtracted
                               from the process metric; NULL otherwise */
    double *W;              /* wall time */
    double *SW;             /* self wall time */
    double *SWmpi;          /* P x R: the MPI calls' CPU time in SW where the processes
                             * are judged on CPU time (disparity.c), else NULL */
    double *blocked;        /* P x R: each process's self time blocked off the CPU
                             * outside the calls beyond its run delay (metrics.c
                             * add_blocked), or NULL where not derived */
    double *T1, *T2;        /* scratch; cycles and instructions after an_disparity_classes */
    int cpi_ok;             /* cycles and instructions measured */
    int m_cyc, m_ins;       /* their metric indices */
    double wmed;            /* median whole-program time (MPI set-up left out) */
    double run_med;         /* median whole-program wall time as run: what "% of the
                               run" is of (an imbalance whose processes wait in main's
                               own MPI would exceed 100% of wmed) */
    double mmed;            /* median whole-program main metric */
    dis_state ds;           /* dissimilarity CCRs */
    /* root-cause attributes (an_attributes) */
    size_t nattr;
    const an_attr_def **adefs;
    char **anames;
    double *aval;           /* nattr x R: region averages */
    double **dcols;         /* by dissimilarity CCR: nattr x P process values */
    double *traffic_rate;   /* by region: MPI bytes per second of MPI time, or NULL */
    double *traffic_size;   /* by region: MPI bytes per MPI call, or NULL */
    double *disk_rate;      /* by region: I/O bytes per second of I/O time, or NULL */
    double *MMraw;          /* MM before the processes' speed was taken out (the noise
                             * model's values), or NULL when it was not */
};


/* analyze.c: errors and notes */
int an_nomem(an_ctx *c);
int an_note(an_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The phases of the analysis, in the order analyze.c runs them; each
 * returns AA_OK or an error code (set in c->err). */
int an_select_processes(an_ctx *c);   /* tree.c: analysed processes, tree */
int an_region_list(an_ctx *c);        /* tree.c: regions, who ran them */
int an_subtree_ends(an_ctx *c);       /* tree.c: c->send */
int an_dissim_applicable(an_ctx *c);  /* dissim.c: note on a single process */
/* dissim.c: the note on the run's noise (a->noise_*) and the top level's eps */
int an_noise_note(an_ctx *c, const aa_analysis *a, size_t nused, double eps);
int an_partial_values(an_ctx *c);     /* tree.c: note on throttled contexts */
int an_metric_buffers(an_ctx *c);     /* metrics.c: P x R buffers */
int an_wall_wpwt(an_ctx *c);          /* metrics.c: W, WPWT */
int an_whole_program(an_ctx *c);      /* metrics.c: c->whole, WPWT without set-up */
/* metrics.c: the MPI wall time of n processes outside the set-up MPI sub
 * (n), from mpi_wall T (n x R), NAN where the whole program has none;
 * NULL: out of memory (an_ctx idle_mpi) */
double *an_idle_mpi(const double *T, const double *sub, size_t n, size_t R);
int an_main_metric(an_ctx *c);        /* metrics.c: MM */
int an_disparity_classes(an_ctx *c);  /* disparity.c: region values, severities */
int an_dissim_levels(an_ctx *c);      /* dissim.c: clustering, CCRs */
int an_dissim_clusters(an_ctx *c);    /* dissim.c: the clusters of the processes */
int an_attributes(an_ctx *c);         /* causes.c: attribute values */
int an_dissim_impact(an_ctx *c);      /* dissim.c: impact, dropped CCRs, CCCRs */
int an_dissim_findings(an_ctx *c);    /* dissim.c: findings with root causes */
int an_dissim_suspects(an_ctx *c);    /* dissim.c: a->suspects (an_suspects) */
int an_disparity_findings(an_ctx *c); /* disparity.c: findings with root causes */
int an_disparity_confidence(an_ctx *c); /* findings.c */
int an_dynamic_findings(an_ctx *c);   /* dynamic.c: imbalance moving between processes */
int an_rank_findings(an_ctx *c);      /* findings.c: the global order */
int an_history_apply(an_ctx *c);      /* history.c: prunes, noise floor, priorities */

/* analyze.c: frees what one finding owns */
void an_finding_free(aa_finding *f);
/* history.c: the record of what the history did, and its renderings */
void an_history_free(aa_an_history *h);
void an_history_text(const aa_analysis *a, aa_buf *b);
void an_history_json(aa_json *j, const aa_analysis *a);
void an_history_xml(aa_buf *b, const aa_analysis *a);
/* render.c: text escaped for XML attributes and content */
void an_xml_escape(aa_buf *b, const char *s);

/* tree.c */
size_t an_nchildren(const an_ctx *c, size_t r);
int an_own_difference(const aa_analyze_options *o, double impact, double own, double mmed);
/* dissim.c: the visits' spread (s^2) of a process in a region that its
 * work outside the calls must carry (the spike test's; inside: its CPU
 * time inside MPI and I/O calls there). */
double an_visit_spread(double visits, double cpu, double cpu_sq, double inside);
/* dissim.c: what an imbalance costs the run, at most -- the impact of an
 * imbalance whose slow processes spend `excess` (s each) in its region
 * beyond the others: the larger of what the others are idle, tmax (the
 * latest process's whole-program time) less work_o (their mean work over
 * the whole program, the process metric before the speeds were taken out)
 * but at most mpi_o (their mean MPI wall time outside the set-up: an idle
 * process waits inside MPI; NAN unknown), and diff_root (the slow
 * processes' excess on the whole program), when that is less than excess
 * by more than eps (the whole program's noise); else excess.  Non-finite
 * inputs but mpi_o: excess. */
double an_idle_bound(double excess, double tmax, double work_o, double mpi_o, double diff_root,
                     double eps);
/* dissim.c: the note on n imbalances an_idle_bound dropped. */
int an_made_up_note(an_ctx *c, size_t n);
/* dissim.c: a branch only the slow processes take (an imbalance's impact
 * less the alternative the others take instead).  set (R + 1): r, its
 * ancestors and their children (an_branch_set, the count); sums (4 a set
 * entry: the slow processes that ran it, the others that did, the slow
 * ones' and the others' main metric there) of each process
 * (an_branch_add; ran, mm: its row); the share of r's impact kept (1 when
 * another process ran r or no alternative exists; ns, no: the slow and
 * the other processes). */
size_t an_branch_set(const aa_analysis *a, const size_t *cstart, const size_t *clist, size_t r,
                     size_t *set);
void an_branch_add(double *sums, const size_t *set, size_t n, const unsigned char *ran,
                   const double *mm, int slow);
double an_branch_share(const aa_analysis *a, const size_t *cstart, const size_t *clist,
                       const size_t *set, size_t n, const double *sums, double ns, double no);

/* metrics.c */
double an_median_wpwt(const an_ctx *c);
/* The median over the processes of the whole program's main metric (CPU
 * time outside MPI): the scale an imbalance of that metric is judged on. */
double an_median_program_metric(const an_ctx *c);
size_t an_gather(an_ctx *c, int mi, double *M);
/* an_gather of process q alone into row (R values; anyfin: R bytes of
 * scratch): the same values, for phases that need one process at a time. */
size_t an_gather_row(an_ctx *c, int mi, size_t q, double *row, unsigned char *anyfin);
/* an_gather of two metrics in one pass over the processes (*f1, *f2: their
 * counts of finite values). */
void an_gather2(an_ctx *c, int m1, double *M1, int m2, double *M2, size_t *f1, size_t *f2);
int an_metric_usable(an_ctx *c, const char *name, int *mi);
int an_fill_ran(an_ctx *c);
int an_gather_attr(an_ctx *c, const an_attr_def *d, double *M, double *tmp);
void an_self_values(an_ctx *c, const double *M, double *self);
/* an_self_values of one process' row (R values). */
void an_self_row(const an_ctx *c, const double *row, double *self);
int an_is_mpi_setup(const aa_region *ri);
/* disparity.c: a region's value on CPU time in a process (the processes
 * judged on CPU time): its CPU time outside MPI calls, its I/O time, its
 * time blocked off the CPU outside the calls and its MPI calls' CPU time up
 * to cap (NAN: no cap), 0 for MPI set-up; the MPI part into *mpi_part (0 in
 * set-up and whole-program regions). */
double an_judged_on_cpu(double cpu, double mpi_cpu, double io, double blocked, double cap,
                        int setup, int whole, double *mpi_part);
/* speed.c: the processes' speed taken out (speed_normalize) */
double an_speed_factor(double u, size_t nregions, double speed_max);
void an_speed_apply(double *mm, const double *c0, const double *f, size_t n, size_t R);
int an_speed_normalized_note(an_ctx *c, const aa_analysis *a);
/* Every analysed process's speed and spread over the regions of at least
 * thr on every process (*sp: 2 x P, NULL when the program has too few
 * regions to tell; *k the regions they come from). */
int an_speeds(an_ctx *c, const double *self, double thr, double **sp, size_t *k);
/* The I/O calls at their region's mean cost (metrics.c add_io_work, shared
 * with parallel.c): sums (2R, zeroed by the caller) += the self io_time
 * (first R) and self io_calls (next R) of n processes; then the first R
 * become the cost a call. */
void an_io_work_sums(const double *sio, const double *scall, size_t n, size_t R, double *sums);
void an_io_work_rates(double *sums, size_t R);
/* One process's row of MM (mm, inclusive) += its self values (x scale by
 * region, NULL: 1) summed over each region's subtree (send: the subtree
 * ends; ran: the regions it ran; pre: R + 1 scratch): the I/O calls at
 * their cost, the blocked time. */
void an_add_over_subtrees(const double *self, const double *scale, const size_t *send,
                          const unsigned char *ran, size_t R, double *pre, double *mm);
int an_self_wall(an_ctx *c, const double *W, double *tmp, double *SW);

/* dynamic.c: imbalance that moves between processes from step to step.
 * Sums by region (AN_DYN_SUMS doubles each), over the processes, that the
 * parallel analysis reduces as they are: steps paired at the region's
 * synchronizing call (of processes with AN_DYN_MIN_STEPS or more), their
 * within-process sums of squares and cross products of work and wait, the
 * wait, the work, the processes, those whose own steps agree (their own correlation
 * and slope pass), the visits' CPU variance (cpu_sq - cpu^2 / visits) and
 * those visits, the
 * steps paired in the region's subtree (inclusive) and the own MPI wall
 * time by wait kind (an_wait_metric's order).  The rows an
 * process adds (AN_DYN_ROWS, an_dyn_metric's metrics; NULL: not measured). */
enum { AN_DYN_STEPS, AN_DYN_SWW, AN_DYN_STT, AN_DYN_SWT, AN_DYN_WAIT, AN_DYN_WORK,
       AN_DYN_PROCS, AN_DYN_AGREE, AN_DYN_VISIT_VAR, AN_DYN_VISITS, AN_DYN_SYNC_IN, AN_DYN_KINDS,
       AN_DYN_SUMS = AN_DYN_KINDS + 5 };
enum { AN_DYN_R_STEPS, AN_DYN_R_WORK, AN_DYN_R_WAIT, AN_DYN_R_WORK_SQ, AN_DYN_R_WAIT_SQ,
       AN_DYN_R_CROSS, AN_DYN_R_KINDS, AN_DYN_R_VISITS = AN_DYN_R_KINDS + 5, AN_DYN_R_CPU,
       AN_DYN_R_CPU_SQ, AN_DYN_ROWS };
#define AN_DYN_MIN_STEPS 4
/* A load moving between processes makes every process wait longer in its
 * lighter steps: more than this share of the processes must show it in
 * their own steps (correlation and slope as the pooled ones'). */
#define AN_DYN_MAJORITY 0.5
/* Whether the machine's noise counts against the steps' work spread
 * (dynamic.c machine_noise, parallel.c dynamic_noise): processes shared a
 * CPU with each other (placement keys) or npreempted of them were
 * preempted by whatever else ran. */
static inline int an_dyn_cpu_shared(int place_shared, size_t npreempted)
{
    return place_shared || npreempted > 0;
}
/* The metric of row k (< AN_DYN_ROWS): the sync_* sums, an_wait_metric's
 * kinds, visits, cpu, cpu_sq. */
const char *an_dyn_metric(size_t k);
void an_dynamic_add(double *s, size_t R, const double *const *rows, const size_t *cstart,
                    const size_t *clist, const aa_analyze_options *o);
typedef struct an_dyn_verdict {
    double procs, steps;  /* processes, steps per process */
    double slope, corr;   /* of the wait on the step's own work, within processes */
    double z;             /* Fisher's z of the correlation */
    double sd_work;       /* the steps' work spread (s) */
    double sd_noise;      /* ... the part the machine's noise makes (s) */
    double wait, impact;  /* per process: the wait there, the part the variation explains */
    double agree;         /* share of processes whose own steps pass, or of the steps
                           * whose latest process's do (an_dyn_latest_add): the less */
    double moving;        /* the share of the variation's cost a changing latest process has */
} an_dyn_verdict;
/* 1 when region v's sums (AN_DYN_SUMS) are a dynamic imbalance; noise:
 * how much one visit varies, relative (the analysis's noise_one_visit; 0:
 * not measured); moving:
 * the region's moving share (1 before it is known); agree: the share of
 * the steps whose latest process shows the pattern (-1: not known; 1: not
 * asked, for the candidates), the share of the processes that show it
 * asked as well. */
int an_dynamic_judge(const double *v, const aa_analyze_options *o, double mmed, double noise,
                     double moving, double agree, an_dyn_verdict *out);
/* The moving share of the candidates (the regions judged with it 1): one
 * process's mean, spread and steps at region r (0: too few steps).
 * an_dyn_begin (moving: R, set to 1; -1 on no memory) finds the candidates
 * and their buffers; a pass over the processes for the span (sums,
 * AN_DYN_SPAN_SUMS a candidate, summed over the processes; most, 2 a
 * candidate, their maximum); the shape from both; a pass for the grid sums
 * (g, 2 x AN_DYN_GRID a candidate, summed over the processes); a pass
 * for the latest process's agreement (lat, 2 a candidate, summed over the
 * processes); an_dyn_end: the shares into moving[cand[i]] and the
 * agreements into agree[cand[i]] (NULL: none; agree: -1 where not known)
 * and the buffers freed. */
#define AN_DYN_GRID 256
#define AN_DYN_GRID_SDS 8.0
#define AN_DYN_SPAN_SUMS 4
#define AN_DYN_SHAPE 4
typedef struct an_dyn_state {
    const aa_analyze_options *o;
    size_t nc, *cand;
    double *sums, *most, *shape, *g, *lat;
} an_dyn_state;
int an_dyn_step_work(const double *const *rows, size_t r, const size_t *cstart,
                     const size_t *clist, double *mu, double *sd, double *n);
int an_dyn_begin(an_dyn_state *st, const double *s, size_t R, const aa_analyze_options *o,
                 double mmed, double noise, double *moving, double *agree);
void an_dyn_span_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                     const size_t *clist);
void an_dyn_shape(an_dyn_state *st);
void an_dyn_grid_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                     const size_t *clist);
void an_dyn_latest_add(an_dyn_state *st, const double *const *rows, const size_t *cstart,
                       const size_t *clist);
void an_dyn_end(an_dyn_state *st, double *moving, double *agree);
/* Where the varying work of the call site `site` is (inner: by region, a
 * function or a call-site region -- what repeats per step is around them;
 * send: subtree ends). */
size_t an_dynamic_cause(const aa_analysis *a, const unsigned char *inner, const size_t *send,
                        const size_t *cstart, const size_t *clist, const double *s, size_t site);
/* The findings from the summed values s (R x AN_DYN_SUMS). */
int an_dynamic_findings_from(an_ctx *c, const double *s, const double *moving,
                             const double *agree, const unsigned char *inner,
                             const size_t *send, const size_t *cstart,
                             const size_t *clist, double mmed, double noise);

/* dissim.c */
/* The placement keys of the analysed processes (placement.c), or NULL
 * (*keys) when no process shares its CPU with another. */
int an_place_keys(an_ctx *c, uint64_t **keys);
/* The kinds of MPI call a wait can be in: the runtime's metric and the
 * words of the report (AN_WAIT_KINDS of them); an_wait_kind: the kind the
 * waiting processes exceed the slow ones by most in their own time in the
 * wait region (sums: by kind, the waiting processes' then the slow ones'
 * sums; nw, ns: how many), NULL when none does. */
#define AN_WAIT_KINDS 5
extern const char *const an_wait_metric[AN_WAIT_KINDS];
const char *an_wait_kind(const double *sums, double nw, double ns);
/* 1 when a kept finding (cccr, impact) is the processes' clustering before
 * the best so far: a CCCR before a CCR, then the larger impact. */
int an_reported_before(int cccr, double impact, int best_cccr, double best_impact);
/* OPTICS on all columns of x (n x dim), through data bubbles when many */
int an_cluster_all(an_ctx *c, const double *x, size_t n, size_t dim, const an_clust *cp,
                   int *labels, size_t *ncl);
/* One level being clustered: n rows of m components (the processes, or in
 * the parallel analysis its gathered points or bubble means), their bubbles
 * (nb 0: none), the level's parameters with its significance test
 * (an_level_significance), and what each component's own eps comes from
 * (an_level_eps on spread, send; set: the level's regions).  The partitions
 * of single components (cols_*) are computed when first needed: zero them
 * at the start, an_level_free at the end. */
typedef struct an_level {
    an_ctx *c;
    size_t n, m;
    const double *X; /* n x m */
    const an_bub *bub;
    const an_clust *cp;
    const double *spread;
    const size_t *send, *set;
    int cols_ready;
    int *cols_lab;    /* m x n */
    size_t *cols_k;   /* by component: clusters alone */
    double *cols_sep; /* by component: their separation (standard errors) */
    /* the significance merge's cluster sums over all m components for the
     * labels ms_lab (k0 clusters): the CCR tests without one component
     * mostly see the same labels, and take their columns from here */
    int ms_ready;
    int *ms_lab;      /* n */
    size_t ms_k0;
    size_t *ms_n;     /* k0 */
    double *ms_sum, *ms_sq; /* k0 x m */
} an_level;
/* cp->sig, res and sd_floor (allocated: the caller frees it) of a level
 * with regions set (m) under the noise model spread (NULL: none). */
int an_level_significance(an_ctx *c, const double *spread, const size_t *send, int fixed_eps,
                          const size_t *set, size_t m, an_clust *cp);
/* a->suspects: up to AN_MAX_SUSPECTS function and loop regions without a
 * dissimilarity finding whose processes' range (range: by region) is at
 * least the resolution and AN_SUSPECT_MIN noise standard deviations of a
 * difference between two processes (the noise model: pre, subtree ends
 * send, a->noise_rel), innermost (no region below is such a one), the
 * widest first; none without a noise model.  -1 on no memory. */
#define AN_MAX_SUSPECTS 3
#define AN_SUSPECT_MIN 2.0
int an_suspects(aa_analysis *a, const double *range, const double *pre, const size_t *send,
                double resolution);
/* 1 when no two processes can differ on the level set[0..m) by more than
 * eps (range: by region, the largest difference between processes), nor,
 * with a noise model (spread; NULL: the user's eps), on one component by
 * more than its own eps. */
int an_level_uniform(const double *range, const double *spread, const size_t *send,
                     const size_t *set, size_t m, double eps, double noise_rel,
                     const aa_analyze_options *o);
/* The partition (labels by row, *k clusters) of the level on all its
 * components but skip (-1: all), or on component only. */
int an_level_cluster(an_level *L, long skip, long only, int *labels, size_t *k);
/* The CCR tests of every component j (isccr[j]) against the partition ref
 * (k clusters); lab: n scratch. */
int an_level_ccr_tests(an_level *L, const int *ref, size_t k, int *lab, int *isccr);
/* The CCR test of component j alone (the parallel analysis spreads the
 * components over its ranks). */
int an_level_ccr_test(an_level *L, size_t j, const int *ref, size_t k, int *lab, int *isccr);
void an_level_free(an_level *L);

/* disparity.c */
int an_severity_classes(an_ctx *c, const double *v, size_t n, int *cls, double *centers,
                        size_t *kused, double merge_rel);
/* A region hot only over all its calling contexts: the nodes of one static
 * region among dobj[0..n), none a CCR alone (isccr), whose own values (own,
 * by region) add up to min_share and to the top classes' smallest value
 * are CCRs (isccr set), rep[r] the largest of them (else -1).  Returns the
 * number of such regions, -1 on no memory. */
long an_context_hotspots(const aa_analysis *a, const size_t *dobj, size_t n, const double *own,
                         double min_share, int *isccr, long *rep);
/* The contexts of rr's group into f (f->contexts, rr first); -1 on no memory. */
int an_finding_contexts(aa_finding *f, const long *rep, size_t R, size_t rr);
/* The nodes a disparity finding adds up: its contexts, or its region alone */
static inline size_t an_finding_nnodes(const aa_finding *f)
{
    return f->ncontexts ? f->ncontexts : 1;
}
static inline size_t an_finding_node(const aa_finding *f, size_t k)
{
    return f->ncontexts ? f->contexts[k] : f->region;
}
/* severity_class (over contexts) and severity from f->effect and maxv */
void an_disparity_severity(aa_finding *f, double maxv);
/* The region metric (a->region_metric) of a wall fraction and a CPI. */
double an_region_metric_value(const aa_analysis *a, double frac, double cpi);

/* causes.c */
/* 0 when attribute d of region r is high only relatively, not in absolute
 * terms: "much MPI traffic" needs traffic_min_rate bytes per second of the
 * region's MPI time. */
int an_cause_significant(const an_ctx *c, const an_attr_def *d, size_t r);
/* amount / per; INFINITY for a positive amount over none, 0 for none */
double an_per(double amount, double per);
void an_rs_rows_free(rs_rows *r);
int an_set_causes(an_ctx *c, aa_finding *f, aa_attrset causes, char **names,
                  const an_attr_def **defs, size_t na, const double *val,
                  const double *ref);
int an_dissim_causes(an_ctx *c, size_t i, size_t slow, double *val, double *refv,
                     aa_attrset *causes);
int an_disparity_table(an_ctx *c, an_disp *d);
aa_attrset an_disparity_causes(an_ctx *c, const an_disp *d, size_t r, double *val,
                               double *refv);

/* A finding's share of the run: its impact over the median whole-program
 * wall time as the run ran (run_med) -- one definition for every kind, so
 * the text, the JSON, the HTML report and the Program Space say the same;
 * a hotspot's judged share (of the time the region values are shares of:
 * CPU and I/O time in a preempted process, the run less set-up MPI) is its
 * value. */
static inline double an_share_of_run(double impact_s, double run_med)
{
    return run_med > 0 ? impact_s / run_med : 0;
}

/* findings.c */
aa_finding *an_add_finding(an_ctx *c, aa_finding_kind kind, size_t region);

/* For the parallel analysis (parallel.c), whose context holds reduced
 * values only: the attributes of the root-cause tables (causes.c: c->adefs,
 * c->anames, c->nattr; the note on those not measured), the release of an
 * an_disp it built (disparity.c), the class boundary of the disparity
 * confidence (findings.c). */
int an_attr_choose(an_ctx *c);
int an_attr_note_unavailable(an_ctx *c);
void an_disp_free(an_disp *d);
double an_disparity_boundary(const an_ctx *c);

#endif
