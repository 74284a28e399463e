/* #if branches: only the active branch is instrumented, inactive branches
 * are untouched, regions may not cross a conditional.
 * FLAGS: -DFAST
 * WARN: preprocessor conditional
 * EXPECT: main 1
 * EXPECT: loop@14 1
 */
#include <stdio.h>

int main(void)
{
    int s = 0;
#ifdef FAST
    for (int i = 0; i < 3; i++) s += 2 * i;
#else
    for (int i = 0; i < 3; i++) s += i;
#endif
    for (int i = 0; i < 3; i++) {
#if 1
        s++;
    }
#else
        s--;
    }
#endif
#ifdef FAST
    while (s < 100) {
#else
    while (s < 50) {
#endif
        s += 7;
    }
    printf("%d\n", s);
    return 0;
}
