/*
 * tests/runtime/rt_serial.c -- a non-MPI program annotated by hand with the
 * probe API: sleep, busy and I/O regions with known costs, a loop calling a
 * leaf, recursion (shallow and deeper than the runtime's stack limit), the
 * scope form with early returns, mismatched exits, an OpenMP parallel
 * region, a tiny region called often enough to be throttled, user regions
 * by name and the Fortran entry points.  argv[1] selects an ending:
 * "normal" (default), "exit" (exit(3) inside a region), "segv", "term".
 * argv[2] = directory for the I/O region's scratch file (default ".").
 */
#include <omp.h>
#include <signal.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 1, 0, 1, 20, "main", "main");
RT_REGION(r_sleep, 2, 1, 1, 30, "sleep_region", "sleep_region");
RT_REGION(r_busy, 3, 1, 1, 40, "busy_region", "busy_region");
RT_REGION(r_io, 4, 1, 1, 50, "io_region", "io_region");
RT_REGION(r_loop, 5, 1, 2, 60, "loop@60", "main");
RT_REGION(r_leaf, 6, 0, 1, 70, "leaf", "leaf");
RT_REGION(r_rec, 7, 0, 1, 80, "rec", "rec");
RT_REGION(r_early, 8, 0, 1, 90, "early", "early");
RT_REGION(r_after, 9, 1, 1, 100, "after_early", "main");
RT_REGION(r_a, 10, 1, 4, 110, "mis_a", "main");
RT_REGION(r_b, 11, 10, 4, 120, "mis_b", "main");
RT_REGION(r_never, 12, 1, 4, 130, "never_entered", "main");
RT_REGION(r_omp, 13, 1, 2, 140, "omp_work", "main");
RT_REGION(r_tiny, 14, 1, 1, 150, "tiny", "tiny");
RT_REGION(r_deep, 15, 0, 1, 160, "deep", "deep");
RT_REGION(r_end, 16, 1, 4, 170, "ending", "main");

/* what the compiler wrapper would link in */
const char aa_runtime_compiler[] = "test-cc 1.0";

static volatile int sink;

static void leaf(int i)
{
    aa_runtime_enter(&r_leaf);
    sink += i;
    aa_runtime_exit(&r_leaf);
}

static int rec(int n)
{
    AA_RUNTIME_SCOPE(r_rec);
    if (n <= 1)
        return 1;
    return n + rec(n - 1);
}

static int deep(int n)
{
    AA_RUNTIME_SCOPE(r_deep);
    if (n <= 0)
        return 0;
    return 1 + deep(n - 1);
}

static int early(int x)
{
    AA_RUNTIME_SCOPE(r_early);
    if (x == 1)
        return 10;
    for (int i = 0; i < 10; i++)
        if (i == x)
            return i;
    return -1;
}

static void tiny(void)
{
    aa_runtime_enter(&r_tiny);
    sink++;
    aa_runtime_exit(&r_tiny);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    const char *dir = argc > 2 ? argv[2] : ".";
    int id1 = 901;
    aa_runtime_enter(&r_main);

    double c0 = rt_thread_cpu();
    aa_runtime_enter(&r_sleep);
    rt_sleep(0.2);
    double c1 = rt_thread_cpu();
    aa_runtime_exit(&r_sleep);

    aa_runtime_enter(&r_busy);
    double c2 = rt_thread_cpu();
    rt_busy(0.2);
    double c3 = rt_thread_cpu();
    aa_runtime_exit(&r_busy);
    printf("truth %d sleep_cpu=%.9f busy_cpu=%.9f\n", 0, c1 - c0, c3 - c2);
    fflush(stdout);

    aa_runtime_enter(&r_io);
    if (rt_io(dir, 0) != 0) {
        perror("rt_io");
        return 1;
    }
    aa_runtime_exit(&r_io);

    aa_runtime_enter(&r_loop);
    for (int i = 0; i < 5; i++)
        leaf(i);
    aa_runtime_exit(&r_loop);

    sink += rec(4);
    sink += deep(600); /* deeper than the runtime records: must not crash */
    sink += early(1) + early(3) + early(20);
    aa_runtime_enter(&r_after); /* must be a child of main, not of early */
    aa_runtime_exit(&r_after);

    /* mismatched exits: one repaired (mis_b left open), one stray */
    aa_runtime_enter(&r_a);
    aa_runtime_enter(&r_b);
    aa_runtime_exit(&r_a);
    aa_runtime_exit(&r_never);

#pragma omp parallel num_threads(3)
    {
        aa_runtime_enter(&r_omp);
        rt_busy(0.02);
        aa_runtime_exit(&r_omp);
    }

    for (int i = 0; i < 300; i++)
        tiny();

    aa_runtime_user_begin("user_block");
    aa_runtime_user_begin("user_inner");
    aa_runtime_user_end("user_inner");
    aa_runtime_user_end("user_block");

    aa_runtime_enter_f_(&id1, "fortran_sub   ", 14);
    aa_runtime_exit_f_(&id1, "fortran_sub   ", 14);

    aa_runtime_pause();
    aa_runtime_user_begin("paused_region"); /* not recorded */
    aa_runtime_user_end("paused_region");
    aa_runtime_resume();

    aa_runtime_enter(&r_end);
    if (strcmp(mode, "exit") == 0)
        exit(3); /* profile still written, ending and main closed now */
    if (strcmp(mode, "segv") == 0) {
        volatile int *p = NULL;
        *p = 1;
    }
    if (strcmp(mode, "term") == 0)
        raise(SIGTERM);
    aa_runtime_exit(&r_end);
    aa_runtime_exit(&r_main);
    printf("sink %d\n", sink > 0);
    return 0;
}
