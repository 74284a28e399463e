#include <stdio.h>
static double grid[4096];
long lookup(double q)
{
    long lo = 0, hi = 4095, len = hi - lo;
    while (len > 1) {
        long mid = lo + len / 2;
        if (grid[mid] > q)
            hi = mid;
        else
            lo = mid;
        len = hi - lo;
    }
    return lo;
}
double solve(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)lookup((i % 4096) * 0.5);
    return s;
}
int main(void)
{
    for (int i = 0; i < 4096; i++)
        grid[i] = i * 0.5;
    printf("%g\n", solve(300000));
    return 0;
}
