/* Other pragmas and _Pragma directly before a loop: never separated from
 * their loop.
 * WARN: directly under a #pragma
 * WARN: directly follows a macro
 * EXPECT: main 1
 */
#include <stdio.h>

#define UNROLL2 _Pragma("GCC unroll 2")

int main(void)
{
    int v[64], s = 0;
#pragma GCC unroll 4
    for (int i = 0; i < 64; i++)
        v[i] = i;
    _Pragma("GCC ivdep")
    for (int i = 0; i < 64; i++)
        s += v[i];
    UNROLL2
    for (int i = 0; i < 8; i++)
        s -= i;
    printf("%d\n", s);
    return 0;
}
