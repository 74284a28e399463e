/* K&R definitions, also under #ifdef/#else beside a prototype-style twin:
 * only the branch the preprocessor keeps is touched.
 * FLAGS: -std=gnu89 -Wno-old-style-definition -Wno-strict-prototypes
 * CLANGFLAGS: -Wno-deprecated-non-prototype -Wno-unknown-warning-option
 * EXPECT: add 2
 * EXPECT: mul 1
 */
#include <stdio.h>

int add(a, b)
int a;
int b;
{
    return a + b;
}

#ifdef USE_PROTOTYPES
int mul(int a, int b)
{
    return a * b;
}
#else
int mul(a, b)
    int a, b;
{
    int r = 0;
    while (b-- > 0)
        r += a;
    return r;
}
#endif

int main()
{
    printf("%d %d %d\n", add(2, 3), mul(4, 5), add(1, 1));
    return 0;
}
