/* Other pragmas and _Pragma directly before a loop: never separated from
 * their loop.
 * WARN: directly under a #pragma
 * EXPECT: main 1
 */
#include <stdio.h>

int main(void)
{
    int v[64], s = 0;
#pragma GCC unroll 4
    for (int i = 0; i < 64; i++)
        v[i] = i;
    _Pragma("GCC ivdep")
    for (int i = 0; i < 64; i++)
        s += v[i];
    printf("%d\n", s);
    return 0;
}
