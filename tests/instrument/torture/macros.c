/* Macros containing calls and whole loops, do-while(0) macros, calls in
 * macro arguments: regions whose boundaries come from a macro are left
 * alone with a diagnostic -- but for a loop a macro opens and the file
 * closes (REPEAT(3) { ... }: macro_loops.c).
 * EXPECT: main 1
 * EXPECT: loop@24 1
 * WARN: not entirely in the main file
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

#define REPEAT(n) for (int r_ = 0; r_ < (n); r_++)
#define SUM_TO(n, acc) do { for (int q_ = 0; q_ < (n); q_++) (acc) += q_; } while (0)
#define LOG(x) do { printf("log %d\n", (int)(x)); } while (0)
#define CALL(x) x
#define SQRT_OF(x) sqrt(x)

int main(void)
{
    int acc = 0;
    char buf[16];
    double d;
    REPEAT(3) { acc++; }
    SUM_TO(4, acc);
    LOG(acc);
    CALL(memset(buf, 0, sizeof buf));
    CALL(printf("%d\n", acc));
    d = SQRT_OF(16.0);
    d = CALL(sqrt(d));
    if (acc)
        LOG(d);
    for (int i = 0; i < 2; i++) LOG(i);
    printf("%g %d\n", d, buf[3]);
    return 0;
}
