/*
 * bench/shapes/xs_lookup.c -- overhead shape "lookup kernel" (issue 14),
 * modelled on XSBench's event-based nuclide-grid lookup: every lookup picks
 * a material and, for each of its nuclides, calls a tiny binary search
 * (grid_search_nuclide, a non-static leaf function as in XSBench) and a
 * small interpolation helper.  ~9.5e6 search and interpolation calls per default run.
 * Prints a checksum and "kernel_s T" (the lookup loop's wall time).
 *   xs_lookup [LOOKUPS]            default 500,000
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NUCS 64
#define GRIDPTS 1024
#define MATS 12

typedef struct {
    double energy, total_xs, elastic_xs, absorbtion_xs, fission_xs, nu_fission_xs;
} NuclideGridPoint;

static NuclideGridPoint grids[NUCS][GRIDPTS];
static int num_nucs[MATS], mats[MATS][NUCS];
static double concs[MATS][NUCS];

static inline double LCG_random_double(uint64_t *seed)
{
    *seed = 2806196910506780709ULL * *seed + 1ULL;
    return (double)(*seed >> 11) * 0x1.0p-53;
}

long grid_search_nuclide(long n, double quarry, const NuclideGridPoint *A, long low, long high)
{
    (void)n;
    long length = high - low;
    while (length > 1) {
        long examinationPoint = low + length / 2;
        if (A[examinationPoint].energy > quarry)
            high = examinationPoint;
        else
            low = examinationPoint;
        length = high - low;
    }
    return low;
}

void calculate_micro_xs(double p_energy, int nuc, double *xs)
{
    long idx = grid_search_nuclide(GRIDPTS, p_energy, grids[nuc], 0, GRIDPTS - 1);
    if (idx == GRIDPTS - 1)
        idx--;
    const NuclideGridPoint *lo = &grids[nuc][idx], *hi = lo + 1;
    double f = (hi->energy - p_energy) / (hi->energy - lo->energy);
    xs[0] = hi->total_xs - f * (hi->total_xs - lo->total_xs);
    xs[1] = hi->elastic_xs - f * (hi->elastic_xs - lo->elastic_xs);
    xs[2] = hi->absorbtion_xs - f * (hi->absorbtion_xs - lo->absorbtion_xs);
    xs[3] = hi->fission_xs - f * (hi->fission_xs - lo->fission_xs);
    xs[4] = hi->nu_fission_xs - f * (hi->nu_fission_xs - lo->nu_fission_xs);
}

void calculate_macro_xs(double p_energy, int mat, double *macro)
{
    double xs[5];
    for (int k = 0; k < 5; k++)
        macro[k] = 0;
    for (int j = 0; j < num_nucs[mat]; j++) {
        calculate_micro_xs(p_energy, mats[mat][j], xs);
        for (int k = 0; k < 5; k++)
            macro[k] += xs[k] * concs[mat][j];
    }
}

static int pick_mat(uint64_t *seed)
{
    return (int)(LCG_random_double(seed) * MATS);
}

int main(int argc, char **argv)
{
    long lookups = argc > 1 ? atol(argv[1]) : 500000;
    uint64_t seed = 42;
    MPI_Init(&argc, &argv);
    for (int n = 0; n < NUCS; n++) {
        double e = 0;
        for (int g = 0; g < GRIDPTS; g++) {
            e += LCG_random_double(&seed) / GRIDPTS;
            grids[n][g] = (NuclideGridPoint){e, LCG_random_double(&seed), LCG_random_double(&seed),
                                             LCG_random_double(&seed), LCG_random_double(&seed),
                                             LCG_random_double(&seed)};
        }
    }
    for (int m = 0; m < MATS; m++) {
        num_nucs[m] = 8 + m * 2;
        for (int j = 0; j < num_nucs[m]; j++) {
            mats[m][j] = (int)(LCG_random_double(&seed) * NUCS);
            concs[m][j] = LCG_random_double(&seed);
        }
    }
    double t0 = MPI_Wtime(), verification = 0;
    for (long i = 0; i < lookups; i++) {
        double macro[5];
        double e = LCG_random_double(&seed) * 0.9;
        int mat = pick_mat(&seed);
        calculate_macro_xs(e, mat, macro);
        verification += macro[0] + macro[4];
    }
    double t = MPI_Wtime() - t0;
    printf("checksum %.6e\nkernel_s %.4f\n", verification, t);
    MPI_Finalize();
    return 0;
}
