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

enum an_attr_kind { AN_ONE, AN_SUM, AN_RATE };

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
 * (self: P x R, row per process).  0 when no region qualifies. */
double an_noise_relative(const double *self, const unsigned char *ran, size_t P, size_t R,
                         double min_value, size_t *nused);
/* OPTICS eps of the level set[0..m) of the region tree (regions in
 * preorder, subtree of r = [r, subtree_end[r])): factor x noise_rel x
 * sqrt(2 x the sum of the squared median self values of every region in the
 * level's subtrees), at least resolution. */
double an_level_eps(const double *self, const unsigned char *ran, size_t P, size_t R,
                    const size_t *set, size_t m, const size_t *subtree_end, double noise_rel,
                    double factor, double resolution);

/* ---- the analysis' context ------------------------------------------------- */
typedef struct an_ctx {
    const aa_experiment *e;
    const aa_analyze_options *o;
    aa_analysis *a;
    aa_err *err;
    /* merged tree (all nodes of all non-excluded processes) */
    size_t ntree, tcap;
    uint32_t *tid;    /* static region id */
    long *tparent;    /* tree index of the parent, -1 for the root */
    uint64_t *hkeys;  /* open addressing: (parent+1)<<32 | id, 0 = empty */
    long *hvals;
    size_t hcap;
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
    unsigned char *whole;   /* by region: stands for the whole program */
    unsigned char *exroot;  /* by tree node: topmost node excluded by region */
    size_t *dobj, ndobj;    /* regions classified by the disparity analysis */
    size_t *send;           /* by region: end of its subtree (preorder) */
} an_ctx;

typedef struct an_clust {
    size_t min_pts;
    double eps;
} an_clust;

typedef struct an_bub {
    size_t n, dim, nb;
    size_t *of;    /* by point: bubble */
    size_t *count; /* by bubble */
    double *mean;  /* nb x dim */
} an_bub;

typedef struct dis_found {
    size_t region;
    double effect, severity, confidence;
    double impact; /* s per slow process beyond the others */
    int dropped;   /* impact below finding_min_share */
    int cccr;
    int *labels; /* level partition (owned), P entries */
} dis_found;

typedef struct dis_state {
    an_ctx *c;
    const double *MM; /* main metric P x R */
    an_clust cp;
    dis_found *found;
    size_t nfound;
} dis_state;

typedef struct rs_rows {
    size_t nrows;
    size_t *row_of;  /* by object: distinct row index */
    size_t *count;   /* by row: objects */
    size_t *first;   /* by row: first object */
} rs_rows;

/* analyze.c: errors and notes */
int an_nomem(an_ctx *c);
int an_note(an_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tree.c */
int an_rank_excluded(const aa_analyze_options *o, int rank);
int an_region_excluded(const aa_analyze_options *o, const aa_region *r, uint32_t id);
int an_build_tree(an_ctx *c, const unsigned char *cand);
int an_count_runs(an_ctx *c, const unsigned char *sel, size_t *cnt, int only_rank,
                  unsigned char *mark);
int an_detect_master(an_ctx *c, unsigned char *cand, int *is_master, size_t *nonly);
int an_build_regions(an_ctx *c, const unsigned char *keep);
size_t an_nchildren(const an_ctx *c, size_t r);

/* metrics.c */
double an_median_wpwt(const an_ctx *c);
size_t an_gather(an_ctx *c, int mi, double *M);
int an_metric_usable(an_ctx *c, const char *name, int *mi);
int an_fill_ran(an_ctx *c);
int an_gather_attr(an_ctx *c, const an_attr_def *d, double *M, double *tmp);
int an_whole_chain(an_ctx *c, const double *W, double *T);
void an_self_values(an_ctx *c, const double *M, double *self);
int an_is_mpi_setup(const aa_region *ri);
int an_self_wall(an_ctx *c, const double *W, double *tmp, double *SW);

/* dissim.c */
void an_bub_free(an_bub *b);
int an_bub_build(an_ctx *c, const double *x, size_t n, size_t dim, double r, an_bub *b);
int an_cluster_sel(an_ctx *c, const double *x, size_t n, size_t dim, const an_bub *b,
                   long skip, long only, const an_clust *cp, int *labels, size_t *ncl);
size_t an_count_labels(const int *l, size_t n);
int an_dis_level(dis_state *s, const size_t *set, size_t m, int *any_ccr);
size_t an_dis_slow_cluster(const an_ctx *c, const int *labels, size_t region,
                           const double *MM, double *impact);

/* disparity.c */
int an_severity_classes(an_ctx *c, const double *v, size_t n, int *cls, double *centers,
                        size_t *kused, double merge_rel);

/* causes.c */
int an_rs_run(an_ctx *c, size_t nobj, size_t na, char **names, const int *vals,
              const int *dec, rs_rows *rows, aa_dtable **tab, aa_roughset_result *res);
void an_rs_rows_free(rs_rows *r);
aa_attrset an_pick_causes(const aa_roughset_result *res, size_t row, const int *high);
int an_add_core(an_ctx *c, aa_attrset core, char **names, size_t na, char ***list,
                size_t *n);
int an_set_causes(an_ctx *c, aa_finding *f, aa_attrset causes, char **names,
                  const an_attr_def **defs, size_t na, const double *val,
                  const double *ref);

/* findings.c */
aa_finding *an_add_finding(an_ctx *c, aa_finding_kind kind, size_t region);
void an_rank_findings(aa_analysis *a);

#endif
