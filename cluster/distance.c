/*
 * cluster/distance.c -- distances for OPTICS: the exact squared Euclidean
 * distance (one fixed summation order), and the approximate all-pairs
 * matrix with rigorous error bounds (cl_dmat, see cl_internal.h).
 *
 * The matrix.  The points are centred, y_i = fl(x_i - c) with c the column
 * means (centring does not change distances and makes the norms, hence the
 * error bound, small), and
 *     A_ij = fl((s_i + s_j) - 2 * dot(y_i, y_j)),   s_i = fl(||y_i||^2),
 * where the dot products are a matrix product computed in 8x8 point tiles
 * from packed panels (the 500-dim data of a tile pair is streamed once per
 * 64 multiply-adds; AVX-512 or AVX2+FMA kernel chosen at run time, portable
 * kernel otherwise).  A_ij * 2^e (e makes the largest possible value about 2^100)
 * is stored as a float: n^2 * 4 bytes.
 *
 * Why the bound in cl_internal.h holds.  With u = 2^-53 and
 * gamma_m = m u / (1 - m u), any summation of m terms, in any order and with
 * or without fused multiply-add, errs by at most gamma_m * sum |terms|.  Let
 * a = ||y_i||, b = ||y_j|| (exact norms of the rounded centred points):
 *  - dot: error <= gamma_dim * a * b <= gamma_dim (a^2 + b^2) / 2;
 *    s_i, s_j: error <= gamma_dim * a^2, gamma_dim * b^2; the two final
 *    additions add <= 2u * 2 (a^2 + b^2) (1 + small).  So A_ij is within
 *    (2 dim + 5) u (a^2 + b^2) of ||y_i - y_j||^2.
 *  - centring: y = fl(x - c) errs by <= u |x - c| per component, so
 *    | ||y_i - y_j|| - ||x_i - x_j|| | <= u (a + b) (1 + u) and the squares
 *    differ by <= 2u (a + b)^2 (1 + small) <= 4u (a^2 + b^2) (1 + small).
 *  - cl_dist2 (the exact value OPTICS reports) sums dim terms fl(d)^2 with
 *    d = x_ik - x_jk: relative error <= gamma_(dim+3) of ||x_i - x_j||^2,
 *    which is <= 2 (a^2 + b^2) (1 + small).
 *  Total: <= (4 dim + 16) u (a^2 + b^2) (1 + small); we use
 *  k = (8 dim + 64) u times the computed s_i + s_j (which are within
 *  gamma_dim of a^2, b^2).  Underflow adds at most 2^-1074 per operation:
 *  the term (8 dim + 64) 2^-1074, and the float conversion adds relative
 *  2^-24 (|a| 2^-22 covers it and the rounding of the bound arithmetic)
 *  plus, for subnormal floats, 2^-150 scaled units: 2^-149 / 2^e.
 *  The matrix is used only when 2^-700 <= max s_i <= 2^700 and all values
 *  are finite, so that 2^e and every scaled value stay in range.
 */
#include "cluster/cl_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CL_HAVE_X86 1
#endif

/* ---- exact distance ------------------------------------------------------ */

typedef double v2d __attribute__((vector_size(16)));

static inline v2d load2(const double *p)
{
    v2d v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The fixed order in which the 8 lane sums are combined. */
#define LANES(s0, s1, s2, s3)                                                   \
    ((((s0)[0] + (s2)[0]) + ((s0)[1] + (s2)[1])) +                              \
     (((s1)[0] + (s3)[0]) + ((s1)[1] + (s3)[1])))

double cl_dist2(const double *a, const double *b, size_t dim, double bound)
{
    v2d s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
    size_t k = 0;
    double s;
    while (k + 8 <= dim) {
        size_t stop = k + 64 <= dim ? k + 64 : dim;
        for (; k + 8 <= stop; k += 8) {
            v2d d0 = load2(a + k) - load2(b + k);
            v2d d1 = load2(a + k + 2) - load2(b + k + 2);
            v2d d2 = load2(a + k + 4) - load2(b + k + 4);
            v2d d3 = load2(a + k + 6) - load2(b + k + 6);
            s0 += d0 * d0;
            s1 += d1 * d1;
            s2 += d2 * d2;
            s3 += d3 * d3;
        }
        s = LANES(s0, s1, s2, s3);
        if (s >= bound)
            return s;
    }
    s = LANES(s0, s1, s2, s3);
    for (; k < dim; k++) {
        double d = a[k] - b[k];
        s += d * d;
    }
    return s;
}

/* ---- dot-product tiles ---------------------------------------------------
 * A panel holds 8 points, dimension-major: p[k * 8 + r] = y_(8 panel + r),k.
 * A kernel adds dot(point r of pa, point q of pb) over dim dimensions to
 * c[r * 8 + q]. */

typedef void (*tile_fn)(const double *pa, const double *pb, size_t dim, double *c);

static void tile_generic(const double *pa, const double *pb, size_t dim, double *c)
{
    double acc[64];
    size_t k, r, q;
    memcpy(acc, c, sizeof acc);
    for (k = 0; k < dim; k++) {
        const double *a = pa + k * 8, *b = pb + k * 8;
        for (r = 0; r < 8; r++)
            for (q = 0; q < 8; q++)
                acc[r * 8 + q] += a[r] * b[q];
    }
    memcpy(c, acc, sizeof acc);
}

#ifdef CL_HAVE_X86
/* AVX2: 4 x 8 register block (8 accumulators), run for rows 0-3 and 4-7. */
__attribute__((target("avx2,fma"))) static void tile_avx2(const double *pa, const double *pb,
                                                           size_t dim, double *c)
{
    int h;
    for (h = 0; h < 2; h++) {
        double *o = c + 32 * h;
        __m256d c00 = _mm256_loadu_pd(o), c01 = _mm256_loadu_pd(o + 4);
        __m256d c10 = _mm256_loadu_pd(o + 8), c11 = _mm256_loadu_pd(o + 12);
        __m256d c20 = _mm256_loadu_pd(o + 16), c21 = _mm256_loadu_pd(o + 20);
        __m256d c30 = _mm256_loadu_pd(o + 24), c31 = _mm256_loadu_pd(o + 28);
        const double *a = pa + 4 * h, *b = pb;
        size_t k;
        for (k = 0; k < dim; k++, a += 8, b += 8) {
            __m256d b0 = _mm256_load_pd(b), b1 = _mm256_load_pd(b + 4), t;
            t = _mm256_broadcast_sd(a);
            c00 = _mm256_fmadd_pd(t, b0, c00);
            c01 = _mm256_fmadd_pd(t, b1, c01);
            t = _mm256_broadcast_sd(a + 1);
            c10 = _mm256_fmadd_pd(t, b0, c10);
            c11 = _mm256_fmadd_pd(t, b1, c11);
            t = _mm256_broadcast_sd(a + 2);
            c20 = _mm256_fmadd_pd(t, b0, c20);
            c21 = _mm256_fmadd_pd(t, b1, c21);
            t = _mm256_broadcast_sd(a + 3);
            c30 = _mm256_fmadd_pd(t, b0, c30);
            c31 = _mm256_fmadd_pd(t, b1, c31);
        }
        _mm256_storeu_pd(c + (4 * h + 0) * 8, c00);
        _mm256_storeu_pd(c + (4 * h + 0) * 8 + 4, c01);
        _mm256_storeu_pd(c + (4 * h + 1) * 8, c10);
        _mm256_storeu_pd(c + (4 * h + 1) * 8 + 4, c11);
        _mm256_storeu_pd(c + (4 * h + 2) * 8, c20);
        _mm256_storeu_pd(c + (4 * h + 2) * 8 + 4, c21);
        _mm256_storeu_pd(c + (4 * h + 3) * 8, c30);
        _mm256_storeu_pd(c + (4 * h + 3) * 8 + 4, c31);
    }
}
#endif

/* AVX-512: 8 x 8 block in 8 zmm accumulators, one load and 8 broadcasts
 * per k (on the Zen 4 here 28 GFMA/s in cache against 23 for AVX2). */
__attribute__((target("avx512f"))) static void tile_avx512(const double *pa, const double *pb,
                                                            size_t dim, double *c)
{
    __m512d c0 = _mm512_loadu_pd(c), c1 = _mm512_loadu_pd(c + 8), c2 = _mm512_loadu_pd(c + 16),
            c3 = _mm512_loadu_pd(c + 24), c4 = _mm512_loadu_pd(c + 32),
            c5 = _mm512_loadu_pd(c + 40), c6 = _mm512_loadu_pd(c + 48),
            c7 = _mm512_loadu_pd(c + 56);
    size_t k;
    for (k = 0; k < dim; k++, pa += 8, pb += 8) {
        __m512d b = _mm512_load_pd(pb);
        c0 = _mm512_fmadd_pd(_mm512_set1_pd(pa[0]), b, c0);
        c1 = _mm512_fmadd_pd(_mm512_set1_pd(pa[1]), b, c1);
        c2 = _mm512_fmadd_pd(_mm512_set1_pd(pa[2]), b, c2);
        c3 = _mm512_fmadd_pd(_mm512_set1_pd(pa[3]), b, c3);
        c4 = _mm512_fmadd_pd(_mm512_set1_pd(pa[4]), b, c4);
        c5 = _mm512_fmadd_pd(_mm512_set1_pd(pa[5]), b, c5);
        c6 = _mm512_fmadd_pd(_mm512_set1_pd(pa[6]), b, c6);
        c7 = _mm512_fmadd_pd(_mm512_set1_pd(pa[7]), b, c7);
    }
    _mm512_storeu_pd(c, c0);
    _mm512_storeu_pd(c + 8, c1);
    _mm512_storeu_pd(c + 16, c2);
    _mm512_storeu_pd(c + 24, c3);
    _mm512_storeu_pd(c + 32, c4);
    _mm512_storeu_pd(c + 40, c5);
    _mm512_storeu_pd(c + 48, c6);
    _mm512_storeu_pd(c + 56, c7);
}

static tile_fn pick_tile(int kernel)
{
#ifdef CL_HAVE_X86
    if (kernel == CL_KERNEL_AUTO && __builtin_cpu_supports("avx512f"))
        return tile_avx512;
    if (kernel != CL_KERNEL_GENERIC && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma"))
        return tile_avx2;
#endif
    (void)kernel;
    return tile_generic;
}

/* ---- the matrix ---------------------------------------------------------- */

void cl_dmat_free(cl_dmat *m)
{
    if (!m)
        return;
    free(m->f);
    free(m->s);
    memset(m, 0, sizeof *m);
}

/* Panels of IB_PANELS * 8 points are kept in L2 while the others stream. */
#define IB_PANELS 16
#define KC 128

int cl_dmat_build(cl_dmat *m, const double *x, size_t n, size_t dim, int kernel)
{
    size_t npan = (n + 7) / 8, i, j, k, ib, ip, jp;
    double *c = NULL, *pk = NULL, maxs = 0, scale, acc[IB_PANELS * 64];
    tile_fn tile = pick_tile(kernel);
    int ex;

    memset(m, 0, sizeof *m);
    if (n == 0 || dim == 0 || n > 46340) /* n^2 floats <= 8 GiB */
        return -1;
    m->n = n;
    m->f = malloc(n * n * sizeof *m->f);
    m->s = malloc(n * sizeof *m->s);
    c = calloc(dim, sizeof *c);
    pk = aligned_alloc(64, npan * dim * 8 * sizeof *pk);
    if (!m->f || !m->s || !c || !pk)
        goto fail;

    /* column means, centred packed panels, squared norms */
    for (i = 0; i < n; i++)
        for (k = 0; k < dim; k++)
            c[k] += x[i * dim + k];
    for (k = 0; k < dim; k++)
        c[k] /= (double)n;
    memset(pk, 0, npan * dim * 8 * sizeof *pk);
    for (i = 0; i < n; i++) {
        double *p = pk + (i / 8) * dim * 8 + i % 8, s = 0;
        for (k = 0; k < dim; k++) {
            double y = x[i * dim + k] - c[k];
            p[k * 8] = y;
            s += y * y;
        }
        if (!isfinite(s))
            goto fail;
        m->s[i] = s;
        if (s > maxs)
            maxs = s;
    }
    if (!(maxs >= 0x1p-700 && maxs <= 0x1p700))
        goto fail;
    frexp(maxs, &ex); /* maxs < 2^ex, so every |A_ij| < 2^(ex+2) (1 + small) */
    m->smax = maxs;
    m->scale = scale = ldexp(1.0, 100 - (ex + 2));
    m->inv_scale = ldexp(1.0, (ex + 2) - 100);
    m->k = (8.0 * (double)dim + 64.0) * 0x1p-53;
    m->abs = 0x1p-149 * m->inv_scale + (8.0 * (double)dim + 64.0) * 0x1p-1074;

    /* Upper triangle of panel pairs, mirrored into the lower one.  For each
     * column panel jp, the dimensions are taken in chunks of KC so that the
     * chunk of jp (8 KB) stays in L1 while the row panels of the block
     * (in L2) stream past it. */
    for (ib = 0; ib < npan; ib += IB_PANELS) {
        size_t ie = ib + IB_PANELS < npan ? ib + IB_PANELS : npan;
        for (jp = ib; jp < npan; jp++) {
            size_t ipe = ie < jp + 1 ? ie : jp + 1, k0;
            memset(acc, 0, (ipe - ib) * 64 * sizeof *acc);
            for (k0 = 0; k0 < dim; k0 += KC) {
                size_t len = dim - k0 < KC ? dim - k0 : KC;
                const double *pb = pk + jp * dim * 8 + k0 * 8;
                for (ip = ib; ip < ipe; ip++)
                    tile(pk + ip * dim * 8 + k0 * 8, pb, len, acc + (ip - ib) * 64);
            }
            for (ip = ib; ip < ipe; ip++) {
                const double *t = acc + (ip - ib) * 64;
                size_t r, q;
                for (r = 0; r < 8 && ip * 8 + r < n; r++) {
                    i = ip * 8 + r;
                    for (q = 0; q < 8 && jp * 8 + q < n; q++) {
                        float f;
                        j = jp * 8 + q;
                        f = (float)(((m->s[i] + m->s[j]) - 2 * t[r * 8 + q]) * scale);
                        m->f[i * n + j] = f;
                        m->f[j * n + i] = f;
                    }
                }
            }
        }
    }
    free(c);
    free(pk);
    return 0;
fail:
    free(c);
    free(pk);
    cl_dmat_free(m);
    return -1;
}
