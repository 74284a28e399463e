/*
 * bench/edge_probes/many_regions.c -- edge probe: one imbalanced kernel
 * among forty.  Every step each rank runs forty small kernels, each 2.5%
 * of the work, through a loop whose header a macro writes; on ranks 0 and
 * 1 kernel k17 does 4x its work (7.5% more work on those ranks).
 * Expected: ranks 0,1 against 2-5, the innermost region `k17`.
 */
#include <mpi.h>
#include <stdio.h>
#define FOR_EACH_KERNEL(k) for (int k = 0; k < NKERNEL; k++)
#define NKERNEL 40
static double k0(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 2) * 0.5; return s; }
static double k1(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 3) * 0.5; return s; }
static double k2(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 4) * 0.5; return s; }
static double k3(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 5) * 0.5; return s; }
static double k4(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 6) * 0.5; return s; }
static double k5(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 7) * 0.5; return s; }
static double k6(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 8) * 0.5; return s; }
static double k7(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 9) * 0.5; return s; }
static double k8(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 10) * 0.5; return s; }
static double k9(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 11) * 0.5; return s; }
static double k10(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 12) * 0.5; return s; }
static double k11(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 13) * 0.5; return s; }
static double k12(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 14) * 0.5; return s; }
static double k13(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 15) * 0.5; return s; }
static double k14(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 16) * 0.5; return s; }
static double k15(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 17) * 0.5; return s; }
static double k16(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 18) * 0.5; return s; }
static double k17(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 19) * 0.5; return s; }
static double k18(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 20) * 0.5; return s; }
static double k19(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 21) * 0.5; return s; }
static double k20(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 22) * 0.5; return s; }
static double k21(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 23) * 0.5; return s; }
static double k22(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 24) * 0.5; return s; }
static double k23(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 25) * 0.5; return s; }
static double k24(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 26) * 0.5; return s; }
static double k25(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 27) * 0.5; return s; }
static double k26(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 28) * 0.5; return s; }
static double k27(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 29) * 0.5; return s; }
static double k28(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 30) * 0.5; return s; }
static double k29(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 31) * 0.5; return s; }
static double k30(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 32) * 0.5; return s; }
static double k31(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 33) * 0.5; return s; }
static double k32(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 34) * 0.5; return s; }
static double k33(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 35) * 0.5; return s; }
static double k34(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 36) * 0.5; return s; }
static double k35(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 37) * 0.5; return s; }
static double k36(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 38) * 0.5; return s; }
static double k37(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 39) * 0.5; return s; }
static double k38(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 40) * 0.5; return s; }
static double k39(long m) { double s = 0; for (long i = 0; i < m; i++) s += (i % 41) * 0.5; return s; }
static double (*const kernels[NKERNEL])(long) = {
    k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, k17, k18, k19,
    k20, k21, k22, k23, k24, k25, k26, k27, k28, k29, k30, k31, k32, k33, k34, k35, k36, k37, k38, k39};
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double tot = 0, s;
    for (int step = 0; step < 25; step++) {
        s = 0;
        FOR_EACH_KERNEL(k)
            s += kernels[k](k == 17 && rank < 2 ? 1600000 : 400000);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        tot += s;
    }
    if (rank == 0)
        printf("checksum: %.1f\n", tot);
    MPI_Finalize();
    return 0;
}
