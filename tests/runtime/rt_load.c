/*
 * tests/runtime/rt_load.c -- where descheduled time goes on a loaded CPU.
 * force() does ~1 us of work per iteration and calls the short helper
 * neighbours() (~0.2 us) once per iteration; run beside CPU hogs, both
 * are slowed alike, so each region's wall/CPU ratio should be about the
 * same.  Prints nothing.  Argument: iterations (default 400000).
 */
#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_force, 2, 0, 1, 30, "force", "force");
RT_REGION(r_nb, 3, 0, 1, 40, "neighbours", "neighbours");

static volatile double sink;

__attribute__((noinline)) static void neighbours(int i)
{
    aa_runtime_enter(&r_nb);
    for (int k = 0; k < 40; k++)
        sink += (i + k) * 0.5;
    aa_runtime_exit(&r_nb);
}

__attribute__((noinline)) static void force(long n)
{
    aa_runtime_enter(&r_force);
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 200; k++)
            sink += k * 0.25;
        neighbours((int)i);
    }
    aa_runtime_exit(&r_force);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 400000;
    aa_runtime_enter(&r_main);
    force(n);
    aa_runtime_exit(&r_main);
    return 0;
}
