/*
 * tests/diagnosis/kernel.h -- the calibrated work unit of the diagnosis
 * validation suite's generated programs (tests/diagnosis/gen.py copies it
 * beside every program).  aa_work(n, x) runs a dependent floating-point
 * chain of n steps, so its cost is proportional to n (about 9-10 ns per
 * step on the 2-core development VM: AA_ITERS_PER_MS steps are about one
 * millisecond of CPU) and its result is exact and deterministic.  It lives
 * in a header on purpose: the instrumenter never edits headers, so the
 * kernel's loop is never a region and its cost is charged to the calling
 * region, which is where the generator injects it.
 */
#ifndef AA_DIAG_KERNEL_H
#define AA_DIAG_KERNEL_H
#include <stdint.h>
#include <string.h>

#define AA_ITERS_PER_MS 100000L

static inline double aa_work(long n, double x)
{
    double s = 0.0;
    long i;
    x = 1.0 + x * 1e-3;
    for (i = 0; i < n; i++) {
        x = x * 0.999999 + 0.5;
        s += x / (1.0 + s * 1e-9);
    }
    return (s + x) * 1e-9;
}

/* Mixes a double's bits into a 64-bit hash (for the timing-free checksum). */
static inline uint64_t aa_bits(double v, uint64_t h)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    h ^= b + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h;
}

/* Deterministic jitter in [-1, 1] from (seed, rank, step): the noise axis. */
static inline double aa_jitter(uint64_t seed, int rank, int step)
{
    uint64_t h = aa_bits((double)seed, (uint64_t)rank * 1000003u + (uint64_t)step);
    return ((double)(h >> 11) / 9007199254740992.0) * 2.0 - 1.0;
}

/* n scaled by the noise level: n * (1 + noise * jitter), deterministic. */
static inline long aa_scaled(long n, double noise, uint64_t seed, int rank, int step)
{
    return (long)(n * (1.0 + noise * aa_jitter(seed, rank, step)));
}
#endif
