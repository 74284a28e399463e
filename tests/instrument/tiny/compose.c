/* Size rules composed (docs/instrument.md, "Small regions"): helpers that
 * only call functions already left out, or hold only tiny loops, are tiny
 * too -- the shapes of particle pushes and small vector helpers.  vsub()
 * holds one tiny loop; scaled() calls the static inline sq() and the tiny
 * leaf vsub(); later() calls late_leaf(), defined after it (the rules run
 * to a fixed point over the file first: tiny too); busy() calls printf (may
 * block). */
#include <stdio.h>
static inline double sq(double x) { return x * x; }
static void vsub(const double *a, const double *b, double *c)
{
    for (int d = 0; d < 3; d++)
        c[d] = a[d] - b[d];
}
static double scaled(const double *a, const double *b)
{
    double c[3];
    vsub(a, b, c);
    return sq(c[0]) + sq(c[1]) + sq(c[2]);
}
static double late_leaf(double x);
static double later(double x) { return late_leaf(x) + 1; }
static double late_leaf(double x) { return x * 2; }
static void busy(double x) { for (int k = 0; k < 2; k++) printf("%g\n", x); }
int main(void)
{
    double a[3] = {1, 2, 3}, b[3] = {0, 1, 1};
    busy(scaled(a, b) + later(1.0));
    return 0;
}
