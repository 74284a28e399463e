/* Call-site regions: statements, assignments, (void) casts, braceless
 * bodies; calls inside larger expressions (comma, ternary, conditions,
 * initialisers) are left alone with a diagnostic.
 * EXPECT: sqrt@21 1
 * EXPECT: main 1
 * WARN: larger expression
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char buf[32];
    double d = 2.0;
    int n;
    memset(buf, 0, sizeof buf);
    (void)write(1, "w\n", 2);
    d = sqrt(d);
    d += pow(d, 2.0);
    if (d > 1)
        printf("big\n");
    else
        printf("small\n");
    for (int i = 0; i < 2; i++)
        puts("loop");
    n = d > 0 ? abs(-3) : abs(3);
    n += (printf("comma\n"), 1);
    if (strlen(buf) == 0)
        n++;
    while (0)
        puts("never");
    do
        puts("once");
    while (0);
    switch (n) {
    case 5:
        puts("five");
        break;
    default:
        puts("other");
    }
    snprintf(buf, sizeof buf, "%.3f %d", d, n);
    puts(buf);
    return 0;
}
