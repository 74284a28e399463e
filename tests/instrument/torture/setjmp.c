/* setjmp/longjmp: functions and regions containing them are left alone.
 * WARN: setjmp
 * EXPECT: main 1
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void thrower(int x)
{
    if (x > 2)
        longjmp(env, x);
}

static int catcher(void)
{
    volatile int i = 0;
    if (setjmp(env))
        return i;
    for (i = 0; i < 10; i++)
        thrower(i);
    return -1;
}

int main(void)
{
    printf("%d\n", catcher());
    return 0;
}
