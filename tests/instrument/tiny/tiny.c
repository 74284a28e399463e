/* Size rules (docs/instrument.md, "Small regions"): sq() static inline,
 * norm3() and pick() tiny leaf functions, say() calls printf (may block),
 * heavy() holds three tiny constant-trip loops (NDIM, 0..7, 10 down by 2)
 * and two that are not (a call in the body; n iterations). */
#include <math.h>
#include <stdio.h>
#define NDIM 3
static inline double sq(double x) { return x * x; }
static double norm3(const double *v) { return sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); }
static int pick(int a, int b) { if (a > b) return a; return b; }
static void say(int x) { printf("%d\n", x); }
static double heavy(const double *v, int n)
{
    double s = 0;
    int i, d;
    for (d = 0; d < NDIM; d++)
        s += v[d];
    for (int k = 0; k <= 7; ++k)
        s += k;
    for (i = 10; i > 0; i -= 2)
        s -= i;
    for (i = 0; i < 3; i++)
        say(i);
    for (i = 0; i < n; i++)
        s += sq(v[i]);
    return s;
}
int main(void)
{
    double v[3] = {1, 2, 3};
    say(pick(1, 2));
    printf("%f %f\n", norm3(v), heavy(v, 3));
    return 0;
}
