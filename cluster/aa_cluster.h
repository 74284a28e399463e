/*
 * cluster/aa_cluster.h -- clustering used by the analyzer (SPEC §5.1, §5.2,
 * §9): OPTICS (Ankerst et al. 1999) with cluster extraction in which isolated
 * points form their own clusters, exact one-dimensional k-means by dynamic
 * programming, and general k-means.  Points are rows of a dense row-major
 * matrix of doubles.
 */
#ifndef AA_CLUSTER_H
#define AA_CLUSTER_H

#include <stddef.h>

#include "common/aa_common.h"

/* ---- OPTICS ---------------------------------------------------------------
 * MinPts counts the point itself.  Processing starts at the lowest-index
 * unprocessed point; ties in the seed list are broken by lowest index, so the
 * result is deterministic.  Undefined distances are INFINITY. */
typedef struct aa_optics_params {
    size_t min_pts; /* 0 = automatic default */
    double eps;     /* extraction threshold; <= 0 or NAN = automatic default */
    double max_eps; /* generating distance; INFINITY (or <= 0) = unbounded */
} aa_optics_params;

typedef struct aa_optics_result {
    size_t n;
    size_t *ordering;       /* n point indices in processing order */
    double *reachability;   /* by point index; INFINITY = undefined */
    double *core_distance;  /* by point index; INFINITY = undefined */
    int *labels;            /* by point index; 0..nclusters-1, never -1 */
    size_t nclusters;
    size_t min_pts_used;
    double eps_used;
} aa_optics_result;

/* Default eps and MinPts for n points of dimension dim (scale-free: eps
 * relative to the median vector norm, documented in
 * docs/analysis-algorithms.md). */
void aa_cluster_optics_defaults(const double *x, size_t n, size_t dim, size_t *min_pts,
                                double *eps);
int aa_cluster_optics(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                      aa_optics_result *out, aa_err *err);
void aa_cluster_optics_free(aa_optics_result *r);
/* The labels and cluster count aa_cluster_optics gives, bit for bit, without
 * its ordering where that is exact and cheaper (cluster/labels.c: every point
 * a core point at eps -- the clusters are then the components of the
 * eps-graph, found by sorting in one dimension and through hubs in more);
 * labels: n ints. */
int aa_cluster_optics_labels(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                             int *labels, size_t *nclusters, aa_err *err);

/* ---- k-means ---------------------------------------------------------------
 * Exact 1-D k-means (optimal SSE, deterministic).  With fewer distinct values
 * than k, uses as many classes as distinct values.  labels[i] in 0..k_used-1,
 * ordered by center (0 = lowest). */
typedef struct aa_kmeans_result {
    size_t n, k;
    int *labels;
    double *centers;
    double sse;
} aa_kmeans_result;

int aa_cluster_kmeans1d(const double *x, size_t n, size_t k, aa_kmeans_result *out,
                        aa_err *err);
/* General k-means (k-means++ seeding with a fixed seed, Lloyd iterations);
 * centers are k*dim. */
int aa_cluster_kmeans(const double *x, size_t n, size_t dim, size_t k, unsigned seed,
                      aa_kmeans_result *out, aa_err *err);
void aa_cluster_kmeans_free(aa_kmeans_result *r);

/* Do two labelings describe the same partition (up to renaming)? */
int aa_cluster_same_partition(const int *a, const int *b, size_t n);
/* Does partition fine refine partition coarse (each of fine's clusters
 * inside one of coarse's: every two points coarse separates, fine does
 * too)?  Every partition refines itself. */
int aa_cluster_refines(const int *fine, const int *coarse, size_t n);

#endif
