/* Loops without braces in every position: if/else bodies, loop bodies,
 * labels, after case labels, empty bodies.
 * EXPECT: main 1
 */
#include <stdio.h>

int main(void)
{
    int s = 0, i;
    if (s == 0)
        for (i = 0; i < 3; i++)
            s += i;
    else
        while (s > 0)
            s--;
    for (i = 0; i < 3; i++)
        ;
    for (i = 0; i < 3; i++) while (0) ;
    switch (s) {
    case 3:
        for (i = 0; i < 2; i++) s++;
        break;
    }
lbl:
    for (i = 0; i < 2; i++) s += 10;
    if (s < 30)
        goto lbl;
    while (s < 50) s += (int)sizeof(struct { int a; });
    printf("%d %d\n", s, i);
    return 0;
}
