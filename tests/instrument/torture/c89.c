/* Strict C89: the inserted scope is a declaration at the start of a new
 * block, accepted by -std=c89 -pedantic.
 * FLAGS: -std=c89 -pedantic
 * EXPECT: work 1
 */
#include <stdio.h>

static int work(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++) {
        int sq = i * i;
        s += sq;
    }
    return s;
}

int main(void)
{
    printf("%d\n", work(5));
    return 0;
}
