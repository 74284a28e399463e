/* exit() from inside nested regions, atexit handlers, exit status.
 * EXPECT: main 1
 * EXPECT: leave 1
 */
#include <stdio.h>
#include <stdlib.h>

static void bye(void) { puts("bye"); }

static void leave(int code)
{
    for (int i = 0; i < 3; i++)
        if (i == 1) {
            fflush(stdout);
            exit(code);
        }
}

int main(void)
{
    atexit(bye);
    for (int i = 0;; i++) {
        printf("%d\n", i);
        if (i == 2)
            leave(3);
    }
}
