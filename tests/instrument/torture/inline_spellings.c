/* Non-static inline functions in every spelling get no probe, and neither
 * do their loops and calls (an inline definition may not reference the
 * static region descriptors: gcc rejects that under -Werror): inline,
 * __inline, __inline__, inline only on an earlier declaration, extern
 * inline, gnu_inline, inline from a macro.  static inline is instrumented.
 * FLAGS: -std=gnu11
 * EXPECT: sq 1
 * EXPECT: main 1
 * WARN: function c99_only not instrumented: non-static inline.*\(and 6 more like it in this file\)
 * WARN: loop not instrumented: the enclosing function is a non-static inline function \(and 6 more
 * WARN: call to memset not instrumented: the enclosing function is a non-static inline function
 */
#include <stdio.h>
#include <string.h>

#define INL inline

/* inline definitions (never called: no external definition is needed) */
inline int c99_only(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i;
    return s;
}

__inline int kw1(int x)
{
    char b[4];
    memset(b, x, sizeof b);
    while (x-- > 0)
        b[0]++;
    return b[0];
}

__inline__ int kw2(int x)
{
    do
        x++;
    while (x < 3);
    return x;
}

INL int via_macro(int x)
{
    for (int i = 0; i < 2; i++)
        x += i;
    return x;
}

extern inline __attribute__((gnu_inline)) int gi(int x)
{
    for (int i = 0; i < 2; i++)
        x *= 2;
    return x;
}

/* external definitions that are still declared inline */
inline int later(int x);
int later(int x)
{
    for (int i = 0; i < 2; i++)
        x -= i;
    return x;
}

extern inline int ext(int x)
{
    for (int i = 0; i < 2; i++)
        x += 3;
    return x;
}

static inline int sq(int x)
{
    int r = 0;
    for (int i = 0; i < x; i++)
        r += x;
    return r;
}

int main(void)
{
    printf("%d %d %d\n", sq(3), later(5), ext(1));
    return 0;
}
