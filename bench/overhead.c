/*
 * bench/overhead.c -- macro benchmark program: a stencil-like computation
 * measured with three granularities: "functions" (the step function, the
 * default mode), "loops" (every loop: the row loop region is entered
 * 796,000 times, ~0.5 us each) and "body" (a region around every inner
 * iteration, 3.2e8 tiny visits: the case throttling exists for).  Built plain and with -DAA_PROBES
 * (hand-inserted probes as the instrumenter would emit them); the script
 * bench/overhead.sh times both.
 *   overhead [functions|loops|body]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AA_PROBES
#include "runtime/aa_probe.h"
static aa_runtime_region r_main = {1, 0, 1, 1, 1, 1, 1, "main", "main", "overhead.c", 0};
static aa_runtime_region r_step = {2, 1, 1, 1, 1, 1, 1, "step", "step", "overhead.c", 0};
static aa_runtime_region r_row = {3, 2, 2, 1, 1, 1, 1, "loop@rows", "step", "overhead.c", 0};
static aa_runtime_region r_cell = {4, 3, 2, 1, 1, 1, 1, "loop@cells", "step", "overhead.c", 0};
#define ENTER(r) aa_runtime_enter(&(r))
#define EXIT(r) aa_runtime_exit(&(r))
#else
#define ENTER(r) ((void)0)
#define EXIT(r) ((void)0)
#endif

#define N 400

static double a[N][N], b[N][N];

#define CELL(i, j) (b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]))

/* Three copies of the step so that the uninstrumented loops compile to the
 * same (vectorised) code in both builds. */
static void step_functions(void)
{
    ENTER(r_step);
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            CELL(i, j);
    memcpy(a, b, sizeof a);
    EXIT(r_step);
}

static void step_loops(void)
{
    ENTER(r_step);
    for (int i = 1; i < N - 1; i++) {
        ENTER(r_row);
        for (int j = 1; j < N - 1; j++)
            CELL(i, j);
        EXIT(r_row);
    }
    memcpy(a, b, sizeof a);
    EXIT(r_step);
}

static void step_body(void)
{
    ENTER(r_step);
    for (int i = 1; i < N - 1; i++) {
        ENTER(r_row);
        for (int j = 1; j < N - 1; j++) {
            ENTER(r_cell);
            CELL(i, j);
            EXIT(r_cell);
        }
        EXIT(r_row);
    }
    memcpy(a, b, sizeof a);
    EXIT(r_step);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "functions";
    void (*step)(void) = strcmp(mode, "body") == 0    ? step_body
                         : strcmp(mode, "loops") == 0 ? step_loops
                                                      : step_functions;
    ENTER(r_main);
    for (int i = 0; i < N; i++)
        a[i][0] = 1.0;
    int iters = argc > 2 ? atoi(argv[2]) : 2000;
    for (int it = 0; it < iters; it++)
        step();
    EXIT(r_main);
    printf("%.6f\n", a[N / 2][1]);
    return 0;
}
