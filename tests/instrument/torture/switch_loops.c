/* Switch statements with loops in cases, loops containing switches,
 * break inside both.
 * EXPECT: classify 22
 */
#include <stdio.h>

static int classify(int x)
{
    int r = 0;
    switch (x % 4) {
    case 0:
        for (int i = 0; i < x; i++)
            r += i;
        break;
    case 1:
        while (r < x) {
            r += 3;
            if (r == 7)
                break;
        }
        /* fall through */
    case 2:
        r++;
        break;
    default:
        do {
            r--;
        } while (r > -x);
    }
    return r;
}

int main(void)
{
    int t = 0;
    for (int i = 0; i < 12; i++) {
        switch (i) {
        case 5:
            continue;
        default:
            t += classify(i);
            break;
        }
        t += classify(i) == 0;
    }
    printf("%d\n", t);
    return t > 1000;
}
