/* tests/instrument/outline/kernel.c -- the shape of XSBench's lookup: a
 * kernel (macro) calling a search helper (micro) that the compiler inlines
 * into it.  Instrumented with only function regions, macro's outlined body
 * must compile to the same instructions as the plain macro
 * (tests/e2e/instrument_outline.t). */
#include <stdio.h>
double micro(const double *g, long n, double e, double *xs)
{
    long lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (g[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    double f = (e - g[lo]) / (g[hi] - g[lo] + 1e-30);
    for (int k = 0; k < 5; k++)
        xs[k] = f * (k + 1) + g[lo] * k;
    return f;
}
double macro(const double *g, long n, const double *es, int m, double *out)
{
    double s = 0;
    for (int k = 0; k < 5; k++)
        out[k] = 0;
    for (int j = 0; j < m; j++) {
        double xs[5];
        s += micro(g, n, es[j], xs);
        for (int k = 0; k < 5; k++)
            out[k] += xs[k] * es[j];
    }
    for (int j = 0; j < m; j++)
        printf("%g\n", out[j % 5]);
    return s;
}
