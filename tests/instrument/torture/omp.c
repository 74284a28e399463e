/* OpenMP: nothing is inserted between a #pragma omp and its statement; the
 * function containing a parallel region is instrumented.
 * FLAGS: -fopenmp
 * EXPECT: sum 1
 * WARN: pragma|OpenMP
 */
#include <stdio.h>

static long sum(int n)
{
    long s = 0, t = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += i;
#pragma omp parallel for collapse(2) reduction(+ : t)
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            t += i * j;
#pragma omp parallel
    {
#pragma omp single
        t += 1;
#pragma omp for reduction(+ : s)
        for (int i = 0; i < 4; i++)
            s += 1;
    }
    return s + t;
}

int main(void)
{
    printf("%ld\n", sum(1000));
    return 0;
}
