/* Size rules, continued (docs/instrument.md, "Small regions"): visit()
 * uses a do { } while (0) macro (runs once: no loop) whose statements count
 * as one; sort3() is 7 statements as written (19 as expanded); coulomb() is
 * 12 straight-line statements (tiny), coulomb13() 13 (no tiny leaf: a
 * short leaf, at most 24); halve() holds a real do-while loop, so it is no
 * leaf, but a halving one (x /= 2) and search() a binary search: both are
 * bounded search functions, left out with their loops; two() has two loops, noisy() calls printf beside its loop
 * and the loop spanning show() calls printf: their loops stay; the loop of
 * macro() spans its body beside a tiny loop, calling only a tiny helper: it
 * is left out (the shape of XSBench's calculate_macro_xs), and so is that of
 * pick12() beside 14 straight-line statements (a table search of n entries;
 * with a constant n it would be a tiny nest, tests/instrument/tiny/nest.c). */
#include <math.h>
#include <stdio.h>
#define SETB(bm, v) do { (bm)[(v) >> 6] |= 1ull << ((v) & 63); (bm)[0] |= 1; } while (0)
#define SWAP(a, b, t) do { t = a; a = b; b = t; } while (0)
static unsigned long long seen[16];
static int queue[1024], nq;
static void visit(int v)
{
    if (!(seen[v >> 6] >> (v & 63) & 1)) {
        SETB(seen, v);
        queue[nq++] = v;
    }
}
static void sort3(double *v)
{
    double t;
    if (v[0] > v[1])
        SWAP(v[0], v[1], t);
    if (v[1] > v[2])
        SWAP(v[1], v[2], t);
    if (v[0] > v[1])
        SWAP(v[0], v[1], t);
}
static double coulomb(double x, double y, double q1, double q2, double *fx, double *fy)
{
    double r, r2, f;
    r2 = x * x + y * y;
    r = sqrt(r2);
    f = q1 * q2 / r2;
    *fx = f * x / r;
    *fy = f * y / r;
    if (r2 > 4)
        f = 0;
    x = fabs(x);
    y = fabs(y);
    f *= 2;
    return f + x + y;
}
static double coulomb13(double x, double y, double q1, double q2, double *fx, double *fy)
{
    double r, r2, f;
    r2 = x * x + y * y;
    r = sqrt(r2);
    f = q1 * q2 / r2;
    *fx = f * x / r;
    *fy = f * y / r;
    if (r2 > 4)
        f = 0;
    x = fabs(x);
    y = fabs(y);
    f += 1;
    f *= 2;
    return f + x + y;
}
static int halve(int x)
{
    do {
        x /= 2;
    } while (x > 1);
    return x;
}
static long search(const double *a, long n, double q)
{
    long lo = 0, hi = n - 1, len = hi - lo;
    while (len > 1) {
        long mid = lo + len / 2;
        if (a[mid] > q)
            hi = mid;
        else
            lo = mid;
        len = hi - lo;
    }
    return lo;
}
static double two(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    for (int i = 0; i < n; i++)
        s -= a[i] / 2;
    return s;
}
static double noisy(const double *a, int n)
{
    double s = 0;
    printf("n=%d\n", n);
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
static void show(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        printf("%g\n", a[i]);
}
static void micro(double x, double *v)
{
    v[0] = x;
    v[1] = 2 * x;
    v[2] = x * x;
}
static void macro(const double *a, int n, double *out)
{
    int k;
    for (k = 0; k < 3; k++)
        out[k] = 0;
    for (int j = 0; j < n; j++) {
        double v[3];
        micro(a[j], v);
        for (k = 0; k < 3; k++)
            out[k] += v[k] * a[j];
    }
}
static int pick12(double roll, int n)
{
    double d[12], s = 0;
    d[0] = 0.14; d[1] = 0.05; d[2] = 0.27; d[3] = 0.13;
    d[4] = 0.15; d[5] = 0.06; d[6] = 0.07; d[7] = 0.05;
    d[8] = 0.01; d[9] = 0.02; d[10] = 0.03; d[11] = 0.02;
    for (int i = 0; i < n; i++) {
        s += d[i];
        if (roll < s)
            return i;
    }
    return 0;
}
int main(void)
{
    double a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, fx, fy;
    visit(3);
    sort3(a);
    show(a, 2);
    macro(a, 4, a + 4);
    a[0] = pick12(0.5, 12);
    printf("%d %g %g %d %ld %g %g\n", nq, coulomb(1, 2, 1, 1, &fx, &fy),
           coulomb13(1, 2, 1, 1, &fx, &fy), halve(100), search(a, 8, 2.5), two(a, 8), noisy(a, 8));
    return 0;
}
