/*
 * cluster/cl_internal.h -- private interface of cluster/: the exact
 * fixed-order squared Euclidean distance, and the approximate all-pairs
 * distance matrix with rigorous per-pair error bounds that lets OPTICS
 * decide most comparisons without recomputing distances (cluster/distance.c).
 * Also the internal OPTICS entry point that lets the unit tests force each
 * code path.
 */
#ifndef CL_INTERNAL_H
#define CL_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "cluster/aa_cluster.h"

/* Exact squared distance, summed in one fixed order (so d(a,b) == d(b,a)
 * bit for bit and results do not depend on the machine).  Stops early,
 * returning a value >= bound, once the partial sum reaches bound; a returned
 * value below bound is the full sum. */
double cl_dist2(const double *a, const double *b, size_t dim, double bound);

/* Approximate squared distances of all pairs, stored as floats (row-major
 * n x n, symmetric), with a bound that encloses the exact cl_dist2 value:
 * for a = f[i*n+j] * inv_scale,
 *     |cl_dist2(x_i, x_j) - a| <= |a| * 2^-22 + k * (s[i] + s[j]) + abs
 * (see cluster/distance.c for the derivation). */
typedef struct cl_dmat {
    size_t n;
    float *f;
    double *s; /* squared norms of the centred points */
    double inv_scale, scale, k, abs;
    double smax; /* max of s[] */
} cl_dmat;

/* Dot-product kernels: best available, portable, AVX2+FMA (portable when
 * the CPU lacks it). */
enum { CL_KERNEL_AUTO = 0, CL_KERNEL_GENERIC = 1, CL_KERNEL_AVX2 = 2 };

/* Builds the matrix; returns 0, or -1 when it cannot (out of memory, data
 * whose magnitudes the float matrix cannot represent, non-finite values):
 * the caller then uses the direct method. */
int cl_dmat_build(cl_dmat *m, const double *x, size_t n, size_t dim, int kernel);
void cl_dmat_free(cl_dmat *m);

/* Lower and upper bounds of the exact squared distance of points i and j. */
static inline void cl_dmat_bounds(const cl_dmat *m, size_t i, size_t j, double *lo, double *hi)
{
    double a = (double)m->f[i * m->n + j] * m->inv_scale;
    double t = fabs(a) * 0x1p-22 + m->k * (m->s[i] + m->s[j]) + m->abs;
    *lo = a - t;
    *hi = a + t;
}

/* The same bound with s[j] replaced by max s: one tolerance t per row i,
 * so that a - |a| 2^-22 - t <= exact <= a + |a| 2^-22 + t for every j and
 * both bounds increase with the stored value. */
static inline double cl_dmat_row_tol(const cl_dmat *m, size_t i)
{
    return m->k * (m->s[i] + m->smax) + m->abs;
}

/* OPTICS with a chosen method (aa_cluster_optics uses CL_OPTICS_AUTO). */
enum {
    CL_OPTICS_AUTO = 0,           /* matrix when it pays off and fits */
    CL_OPTICS_DIRECT = 1,         /* no matrix: pruned direct distances */
    CL_OPTICS_MATRIX = 2,         /* matrix, best kernel */
    CL_OPTICS_MATRIX_GENERIC = 3, /* matrix, portable kernel */
    CL_OPTICS_MATRIX_AVX2 = 4,    /* matrix, AVX2 kernel (if the CPU has it) */
};
int cl_optics(const double *x, size_t n, size_t dim, const aa_optics_params *p,
              aa_optics_result *out, aa_err *err, int method);

/* The labels of OPTICS (aa_cluster_optics_labels) with a chosen method. */
enum {
    CL_LABELS_AUTO = 0,   /* the shortcut where it applies, OPTICS otherwise */
    CL_LABELS_OPTICS = 1, /* always OPTICS */
};
int cl_optics_labels(const double *x, size_t n, size_t dim, const aa_optics_params *p,
                     int *labels, size_t *nclusters, aa_err *err, int mode);
/* The shortcut alone (min_pts and eps already resolved, max_eps unbounded):
 * 1 labelled, 0 does not apply (some point not a core point, data not
 * finite, the work bound reached), -1 out of memory.  budget: distance
 * evaluations allowed (0: the default bound; SIZE_MAX: unbounded, and no
 * limit on the hubs either, for the tests). */
int cl_optics_shortcut(const double *x, size_t n, size_t dim, size_t min_pts, double eps,
                       size_t budget, int *labels, size_t *ncl);

#endif
