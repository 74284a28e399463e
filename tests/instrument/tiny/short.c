/* tests/instrument/tiny/short.c -- the short-function rule and bisection
 * loops (docs/instrument.md, "Small regions"), for instrument_tiny.t.
 * Left out: wrap1() and wrap_ext() (a few statements, calls to a function
 * of this file or of another file), via_ptr() (a call through a pointer),
 * alloc_or_die() (malloc, and an error path that reports and exits),
 * branches() (30 statements written, 16 on its longest path), bs_shift()
 * and halve_loop() (bisection loops), grow() (its rare branch calls cheap
 * functions of a header); kept: wrap_hdr() (calls a function
 * defined in a header, with a loop), ext_a() and ext_b() (short callers of
 * ext_work(), defined in another file: maybe left out there, so no
 * calling context to keep), box_of() (asserts: a call that does not
 * return costs nothing per visit; CoMD's getBoxFromTuple), wrap_mpi() (an MPI call), wrap_io() (printf),
 * three() (three calls), ctx_a() (a short caller of kernel(), which is
 * called from several places: its region is kernel's calling context),
 * mpi_path() (a branch that communicates and
 * returns is no error path), long25() (25 statements), omp_wrap() (an
 * OpenMP directive), not_bs() (a linear loop with a halving in it). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "short.h"
int MPI_Barrier(int comm);
double ext_work(long n);
static double kernel(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)i;
    return s;
}
static double solo(long n)
{
    double s = 1;
    for (long i = 0; i < n; i++)
        s *= 1.0000001;
    return s;
}
double wrap1(long n)
{
    double x = solo(n);
    return x * 2;
}
double ctx_a(long n)
{
    double x = kernel(n);
    return x * 2;
}
double wrap_ext(long n)
{
    return ext_work(n) + 1;
}
double via_ptr(double (*cb)(long), long n)
{
    return cb(n);
}
double *alloc_or_die(size_t n)
{
    double *p = malloc(n * sizeof *p);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    p[0] = 0;
    return p;
}
double branches(double x)
{
    double y = 0;
    if (x > 0) {
        y += x; y *= 2; y -= 1; y += x * x; y /= 3; y += 1; y *= x; y -= 2;
        y += 3; y *= 1.5; y -= x; y += 0.5; y *= 0.9; y += x / 2; y -= 0.1;
    } else {
        y -= x; y *= 3; y += 1; y -= x * x; y /= 5; y -= 1; y *= -x; y += 2;
        y -= 3; y *= 2.5; y += x; y -= 0.5; y *= 0.8; y -= x / 2; y += 0.1;
    }
    return y;
}
long bs_shift(const int *a, long n, int q)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = (lo + hi) >> 1;
        if (a[mid] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
int halve_loop(int x)
{
    while (x > 1)
        x /= 2;
    return x;
}
double *grow(double *buf, long *cap, long need)
{
    double *nb;
    if (need <= *cap)
        return buf;
    nb = hdr_alloc((size_t)need * 2 * sizeof *nb);
    if (!nb) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(nb, buf, (size_t)*cap * sizeof *nb);
    hdr_release(buf);
    *cap = need * 2;
    return nb;
}
int box_of(const int *grid, int ix, int iy)
{
    int b = ix + grid[0] * iy;
    assert(b >= 0);
    assert(b < grid[0] * grid[1]);
    return b;
}
double ext_a(long n)
{
    return ext_work(n) + 1;
}
double ext_b(long n)
{
    return ext_work(2 * n);
}
double wrap_hdr(long n)
{
    return hdr_work(n);
}
double wrap_mpi(long n)
{
    MPI_Barrier(0);
    return kernel(n);
}
double wrap_io(long n)
{
    printf("%ld\n", n);
    return kernel(n);
}
double three(long n)
{
    return kernel(n) + kernel(n + 1) + kernel(n + 2);
}
int mpi_path(int x)
{
    if (x < 0) {
        MPI_Barrier(0);
        return -1;
    }
    return x + 1;
}
double long25(double x)
{
    double y = x;
    y += 1; y += 2; y += 3; y += 4; y += 5; y += 6; y += 7; y += 8;
    y += 9; y += 10; y += 11; y += 12; y += 13; y += 14; y += 15; y += 16;
    y += 17; y += 18; y += 19; y += 20; y += 21; y += 22; y += 23;
    return y;
}
double omp_wrap(long n)
{
    double s = 0;
#pragma omp parallel
    s += kernel(n);
    return s;
}
double not_bs(const double *a, int n)
{
    int i = 0;
    double s = 0;
    while (i < n) {
        s += a[(i + n) / 2];
        i++;
    }
    return s;
}
