/* GNU statement expressions: loops and calls inside them are left alone.
 * FLAGS: -std=gnu11
 * WARN: statement expression
 * EXPECT: main 1
 */
#include <stdio.h>

#define MAX(a, b) ({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); a_ > b_ ? a_ : b_; })

int main(void)
{
    int x = ({ int s = 0; for (int i = 0; i < 4; i++) s += i; s; });
    int y = ({ puts("in"); 3; });
    printf("%d %d %d\n", x, y, MAX(x, y));
    return 0;
}
