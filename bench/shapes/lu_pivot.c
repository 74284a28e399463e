/*
 * bench/shapes/lu_pivot.c -- overhead shape "dense kernel with a small
 * pivot helper" (issue 14), modelled on HPL's unblocked panel
 * factorisation: LU with partial pivoting where every column calls a
 * small pivot search (idamax), a row swap and a scaling helper, and every
 * row of the trailing matrix is updated by a daxpy helper (n^2/2 calls of
 * a loop of up to n elements).
 * Prints a checksum and "kernel_s T" (the factorisations' wall time).
 *   lu_pivot [N]                   default 1000
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double *A;

static int idamax(int n, const double *x, int incx)
{
    int imax = 0;
    double vmax = fabs(x[0]);
    for (int i = 1; i < n; i++)
        if (fabs(x[i * incx]) > vmax) {
            vmax = fabs(x[i * incx]);
            imax = i;
        }
    return imax;
}

static void dswap(int n, double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double t = x[i];
        x[i] = y[i];
        y[i] = t;
    }
}

static void daxpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

void dgetf2(int n, double *a, int *ipiv)
{
    for (int k = 0; k < n; k++) {
        /* column k, rows k..n-1: stride n in row-major storage */
        int p = k + idamax(n - k, &a[k * n + k], n);
        ipiv[k] = p;
        if (p != k)
            dswap(n, &a[k * n], &a[p * n]);
        double piv = 1.0 / a[k * n + k];
        for (int i = k + 1; i < n; i++) {
            double l = a[i * n + k] * piv;
            a[i * n + k] = l;
            daxpy(n - k - 1, -l, &a[k * n + k + 1], &a[i * n + k + 1]);
        }
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    unsigned s = 3;
    MPI_Init(&argc, &argv);
    A = malloc((size_t)n * n * sizeof *A);
    int *ipiv = malloc(n * sizeof *ipiv);
    double t0 = MPI_Wtime(), sum = 0;
    for (int rep = 0; rep < 2; rep++) {
        for (long i = 0; i < (long)n * n; i++) {
            s = s * 1103515245u + 12345u;
            A[i] = (s >> 8) * (1.0 / 16777216.0) - 0.5;
        }
        dgetf2(n, A, ipiv);
        for (int i = 0; i < n; i++)
            sum += A[(long)i * n + i];
    }
    double t = MPI_Wtime() - t0;
    printf("checksum %.6e\nkernel_s %.4f\n", sum, t);
    MPI_Finalize();
    return 0;
}
