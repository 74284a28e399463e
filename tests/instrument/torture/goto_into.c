/* Jumps into a region from outside: a goto into a loop and Duff's device
 * (case labels inside a loop).  Those loops are left alone.
 * WARN: goto outside the region
 * WARN: case label inside the region
 * EXPECT: main 1
 */
#include <stdio.h>

static int duff(int count)
{
    int n = (count + 3) / 4, s = 0;
    switch (count % 4) {
    case 0:
        do {
            s++;
        case 3:
            s++;
        case 2:
            s++;
        case 1:
            s++;
        } while (--n > 0);
    }
    return s;
}

int main(void)
{
    int i = 5, s = 0;
    goto inside;
    for (i = 0; i < 10; i++) {
    inside:
        s += i;
    }
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            goto again;
        s++;
    again:;
    }
    printf("%d %d\n", s, duff(13));
    return 0;
}
