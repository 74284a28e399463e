/* A static inline function defined in a header: headers are never edited,
 * only the main file's functions are instrumented.
 * EXPECT: main 1
 * EXPECT: local_sq 5
 */
#include <stdio.h>
#include "header_inline.h"

static inline int local_sq(int x) { return x * x; }

int main(void)
{
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += hdr_cube(i) + local_sq(i);
    printf("%d\n", s);
    return 0;
}
