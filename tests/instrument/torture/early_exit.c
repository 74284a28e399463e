/* Early return, break, continue and goto out of loops: every path closes
 * its region.
 * EXPECT: find 3
 * EXPECT: loop_break 1
 */
#include <stdio.h>

static int find(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++) {
        if (v[i] == x)
            return i;
        if (v[i] < 0)
            continue;
    }
    return -1;
}

static int loop_break(int n)
{
    int s = 0;
    for (int i = 0;; i++) {
        if (i == n)
            break;
        for (int j = 0; j < i; j++) {
            if (j == 2)
                goto next;
            s += j;
        }
    next:
        s++;
    }
    while (1) {
        s += 100;
        if (s > 0)
            goto out;
    }
out:
    return s;
}

int main(void)
{
    int v[] = {4, -1, 7, 9};
    printf("%d %d %d\n", find(v, 4, 7), find(v, 4, 5), find(v, 4, 4));
    printf("%d\n", loop_break(6));
    return 0;
}
