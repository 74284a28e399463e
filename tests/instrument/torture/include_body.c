/* Code #include'd inside a function body and inside a loop: region
 * boundaries must lie in the main file.
 * EXPECT: main 1
 */
#include <stdio.h>

static int body(int x)
{
#include "include_body.inc"
}

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++) {
#include "include_loop.inc"
    }
    printf("%d %d\n", s, body(4));
    return 0;
}
