/* User regions: #pragma autoanalyzer region NAME ... #pragma autoanalyzer end.
 * FLAGS: -Wno-unknown-pragmas
 * EXPECT: setup 1
 * EXPECT: inner 3
 * WARN: declares variables
 * WARN: no matching end
 */
#include <stdio.h>

int main(void)
{
    int s = 0;
#pragma autoanalyzer region setup
    s = 1;
    for (int i = 0; i < 3; i++) {
#pragma autoanalyzer region inner
        s += i;
        if (i == 5)
            break;
#pragma autoanalyzer end
    }
#pragma autoanalyzer end
#pragma autoanalyzer region withdecl
    int t = s * 2;
#pragma autoanalyzer end
#pragma autoanalyzer region dangling
    printf("%d %d\n", s, t);
    return 0;
}
