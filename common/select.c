/*
 * common/select.c -- the k-th smallest of an array of doubles without a
 * full sort (quickselect), shared by the analysis' noise model and
 * quantiles, the report's per-region distributions and the Program
 * Space's per-region summaries.  The array is reordered so that v[k] holds
 * the sorted order's own value with no larger value before it and no
 * smaller one after it: a second selection in v + k + 1 continues from it.
 */
#include "common/aa_common.h"

#include <stddef.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The k-th smallest of v[0..n) (0-based), leaving every smaller-ranked value
 * before position k and every larger one after it (quickselect, median-of-three pivots; a range that does
 * not shrink fast is sorted instead).  The value is the sorted order's own,
 * so medians do not change. */
double aa_select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    int rounds = 0;
    while (hi > lo) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], piv, t;
        ptrdiff_t i = lo, j = hi;
        if (++rounds > 64) {
            qsort(v + lo, (size_t)(hi - lo + 1), sizeof *v, cmp_double);
            break;
        }
        piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        while (i <= j) {
            while (v[i] < piv)
                i++;
            while (v[j] > piv)
                j--;
            if (i <= j) {
                t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        }
        /* v[lo..j] <= piv <= v[i..hi], v[j+1..i-1] == piv */
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

