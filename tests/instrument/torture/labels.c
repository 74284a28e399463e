/* Labels: a goto from inside a loop back to a label before it, labelled
 * loops, a goto out of nested loops, a label right after a loop.
 * EXPECT: main 1
 */
#include <stdio.h>

int main(void)
{
    int n = 0, tries = 0;
retry:
    for (int i = 0; i < 5; i++) {
        n++;
        if (i == 2 && tries++ < 2)
            goto retry;
    }
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            if (i * j == 6)
                goto found;
found:
    printf("%d %d\n", n, tries);
    return 0;
}
