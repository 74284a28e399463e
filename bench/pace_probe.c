/*
 * bench/pace_probe.c -- does a short fixed spin measure a CPU's pace?  On
 * an oversubscribed virtual machine the same work costs processes on one
 * virtual CPU up to 1.6x the CPU time it costs on another (the host shares
 * the physical core), and a program of one or two regions cannot tell
 * that from work (bench/diagnosis.md, thirty-second step).  Every rank
 * computes the same 20 x 20 chunks and, after each chunk, times a
 * 2,000-iteration spin in TSC ticks; it prints its CPU time for the
 * chunks, their wall time, the spin's minimum and median ticks and the
 * CPU it ran on last.  Where the CPU time of equal work differs between
 * the CPUs, compare the ratio of the medians with the ratio of the CPU
 * times.  x86 only (__rdtsc).
 *
 *   mpicc -O2 bench/pace_probe.c -o pace_probe
 *   mpirun --oversubscribe -np 4 ./pace_probe | sort
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define CHUNKS 20
#define STEPS 20
#define SPINS (CHUNKS * STEPS)

static volatile double sink;

static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double compute(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)(i % 5) * 0.25;
    return s;
}

/* 2,000 iterations of the same arithmetic, in TSC ticks: the CPU's pace now */
static unsigned long long spin_ticks(void)
{
    unsigned long long a = __rdtsc();
    double s = 0;
    for (int i = 0; i < 2000; i++)
        s += (double)(i % 5) * 0.25;
    sink = s;
    return __rdtsc() - a;
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    static unsigned long long spins[SPINS];
    int rank, n = 0;
    double cpu = 0, wall = 0, s = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < STEPS; k++) {
        double c0 = thread_cpu_s(), w0 = mono_s();
        for (int j = 0; j < CHUNKS; j++) {
            s = compute(100000);
            spins[n++] = spin_ticks();
        }
        cpu += thread_cpu_s() - c0;
        wall += mono_s() - w0;
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    qsort(spins, (size_t)n, sizeof *spins, cmp_ull);
    printf("rank %d cpu %.4f wall %.4f spin min %llu median %llu cpu_last %d\n", rank, cpu, wall,
           spins[0], spins[n / 2], sched_getcpu());
    MPI_Finalize();
    return 0;
}
