/* Branches on what the compiler predefines: the instrumenter must parse
 * the branches the real compiler compiles (tests/e2e/instrument_compiler.t). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <complex.h>
#include <pthread.h>
#include <mpi.h>

#ifdef __clang__
static int seen_by_clang(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
#define WHO seen_by_clang
#else
static int seen_by_gcc(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
#define WHO seen_by_gcc
#endif

#if defined(__GNUC__) && __GNUC__ >= 5 && !defined(__clang__)
static int gnuc_at_least_5(void) { return 5; }
#endif

#ifdef __STRICT_ANSI__
static int strict_ansi(void) { return 1; }
#else
static int gnu_dialect(void) { return 0; }
#endif

#ifdef _OPENMP
static int with_openmp(void) { return 1; }
#endif

#if defined(FLAVOUR) && FLAVOUR == 2
static int flavour_two(void) { return 2; }
#endif

#ifdef __OPTIMIZE__
static int optimized(void) { return 1; }
#endif

int main(void)
{
    int r = WHO(10);
#if defined(__GNUC__) && __GNUC__ >= 5 && !defined(__clang__)
    r += gnuc_at_least_5();
#endif
#ifdef __STRICT_ANSI__
    r += strict_ansi();
#else
    r += gnu_dialect();
#endif
#ifdef _OPENMP
    r += with_openmp();
#endif
#if defined(FLAVOUR) && FLAVOUR == 2
    r += flavour_two();
#endif
#ifdef __OPTIMIZE__
    r += optimized();
#endif
    printf("%d %g\n", r, sqrt(4.0));
    return 0;
}
