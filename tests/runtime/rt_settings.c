/*
 * tests/runtime/rt_settings.c -- frames the runtime cannot see close:
 *   deep  recursion 600 regions deep under main: the stack holds 512
 *         frames (the root, main, 510 of rec), every enter beyond is
 *         unrecorded (unrecorded_enters = 90)
 *   jump  main > outer (setjmp) > middle > inner, longjmp from inner back
 *         to outer, which then enters after: middle and inner are abandoned
 *         frames (mismatched_exits = 2) and `after` nests under outer
 * Arguments: deep | jump, then optionally a directory the program changes
 * to before it ends (the profile stays where the run started).  Prints
 * "done" on stdout.
 */
#include <setjmp.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_rec, 2, 1, 1, 30, "rec", "rec");
RT_REGION(r_outer, 3, 1, 1, 40, "outer", "outer");
RT_REGION(r_middle, 4, 1, 1, 50, "middle", "middle");
RT_REGION(r_inner, 5, 1, 1, 60, "inner", "inner");
RT_REGION(r_after, 6, 3, 2, 70, "after", "outer");

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) static int rec(int n)
{
    int v;
    aa_runtime_enter(&r_rec);
    v = n > 0 ? rec(n - 1) + 1 : 0;
    aa_runtime_exit(&r_rec);
    return v;
}

__attribute__((noinline)) static void inner(void)
{
    aa_runtime_enter(&r_inner);
    sink++;
    longjmp(env, 1);
}

__attribute__((noinline)) static void middle(void)
{
    aa_runtime_enter(&r_middle);
    inner();
    aa_runtime_exit(&r_middle);
}

__attribute__((noinline)) static void outer(void)
{
    aa_runtime_enter(&r_outer);
    if (setjmp(env) == 0)
        middle();
    aa_runtime_enter(&r_after);
    sink++;
    aa_runtime_exit(&r_after);
    aa_runtime_exit(&r_outer);
}

int main(int argc, char **argv)
{
    aa_runtime_enter(&r_main);
    if (argc > 1 && strcmp(argv[1], "deep") == 0)
        sink = rec(599);
    else
        outer();
    aa_runtime_exit(&r_main);
    if (argc > 2 && chdir(argv[2]) != 0)
        return 3;
    puts("done");
    return 0;
}
