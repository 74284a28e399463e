#include <stdio.h>
static int lookup(const int *t, int n, int k)
{
    int lo = 0, hi = n;
    while (lo < hi) { int m = (lo + hi) / 2; if (t[m] < k) lo = m + 1; else hi = m; }
    return lo;
}
static long solve(const int *t, int n)
{
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += lookup(t, n, i);
    return s;
}
int main(void)
{
    int t[4] = {1, 5, 9, 13};
    printf("%ld\n", solve(t, 4));
    return 0;
}
