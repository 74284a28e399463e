/* Recursion: the function region nests inside itself.
 * EXPECT: fib 177
 * EXPECT: ack 20
 */
#include <stdio.h>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int ack(int m, int n)
{
    while (m > 0) {
        if (n == 0) { n = 1; m--; continue; }
        n = ack(m, n - 1);
        m--;
    }
    return n + 1;
}

int main(void)
{
    printf("%d %d\n", fib(10), ack(2, 3));
    return 0;
}
