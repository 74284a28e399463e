/* Calls through function pointers, callbacks, qsort comparators.
 * EXPECT: twice 3
 */
#include <stdio.h>
#include <stdlib.h>

static int twice(int x) { return 2 * x; }
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void)
{
    int (*f)(int) = twice;
    int (*tab[2])(int) = {twice, twice};
    int v[5] = {5, 3, 1, 4, 2};
    qsort(v, 5, sizeof v[0], cmp);
    printf("%d %d %d %d\n", f(2), tab[1](3), (*f)(1), v[0] + v[4]);
    return 0;
}
