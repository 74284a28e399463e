/* Variadic functions, functions returning structs, empty functions.
 * EXPECT: vsum 2
 * EXPECT: make 1
 * EXPECT: nothing 2
 */
#include <stdarg.h>
#include <stdio.h>

struct pair { int a; double b; };

static int vsum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static struct pair make(int a) { struct pair p = {a, a / 2.0}; return p; }

static void nothing(void) {}

int main(void)
{
    struct pair p = make(3);
    nothing();
    nothing();
    printf("%d %d %d %g\n", vsum(3, 1, 2, 3), vsum(0), p.a, p.b);
    return 0;
}
