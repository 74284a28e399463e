/* Nested loops of every kind, braced and braceless.
 * EXPECT: main 1
 * EXPECT: loop@12 1
 * EXPECT: loop@13 4
 */
#include <stdio.h>

int main(void)
{
    long s = 0;
    int k = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            while (k < i * j)
                k++, s += k;
    do
        for (int i = 0; i < 2; i++) { s -= i; }
    while (0);
    for (;;) { if (++k > 20) break; }
    printf("%ld %d\n", s, k);
    return 0;
}
