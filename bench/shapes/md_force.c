/*
 * bench/shapes/md_force.c -- overhead shape "neighbour-list force loop"
 * (issue 14), modelled on CoMD's link-cell Lennard-Jones force: atoms are
 * binned into boxes; for every box the 27 neighbour boxes come from small
 * box helpers (getBoxFromTuple, getNeighborBoxes), the atom loops have
 * tiny trip counts (~8 atoms per box) and every pair goes through small
 * vector and pair-potential helpers (3-trip loops in vec_sub).
 * Prints the energy and "kernel_s T" (the force loop's wall time).
 *   md_force [STEPS]               default 60
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 10 /* boxes per dimension */
#define PERBOX 8
#define NBOX (NB * NB * NB)

static double r[NBOX][PERBOX][3], f[NBOX][PERBOX][3];
static int nAtoms[NBOX];

static int getBoxFromTuple(int ix, int iy, int iz)
{
    ix = (ix + NB) % NB;
    iy = (iy + NB) % NB;
    iz = (iz + NB) % NB;
    return ix + NB * (iy + NB * iz);
}

static void getTuple(int iBox, int *ix, int *iy, int *iz)
{
    *ix = iBox % NB;
    *iy = (iBox / NB) % NB;
    *iz = iBox / (NB * NB);
}

int getNeighborBoxes(int iBox, int *nbrBoxes)
{
    int ix, iy, iz, n = 0;
    getTuple(iBox, &ix, &iy, &iz);
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int k = -1; k <= 1; k++)
                nbrBoxes[n++] = getBoxFromTuple(ix + i, iy + j, iz + k);
    return n;
}

static double vec_sub(double *d, const double *a, const double *b, const double *shift)
{
    double r2 = 0;
    for (int m = 0; m < 3; m++) {
        d[m] = a[m] - b[m] - shift[m];
        r2 += d[m] * d[m];
    }
    return r2;
}

static double lj_pair(double r2, double *fr)
{
    double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
    *fr = ir2 * ir6 * (48.0 * ir6 - 24.0);
    return 4.0 * ir6 * (ir6 - 1.0);
}

static void image_shift(int iBox, int jBox, double *shift)
{
    int ix, iy, iz, jx, jy, jz;
    getTuple(iBox, &ix, &iy, &iz);
    getTuple(jBox, &jx, &jy, &jz);
    shift[0] = jx - ix > 1 ? -NB : jx - ix < -1 ? NB : 0;
    shift[1] = jy - iy > 1 ? -NB : jy - iy < -1 ? NB : 0;
    shift[2] = jz - iz > 1 ? -NB : jz - iz < -1 ? NB : 0;
}

double ljForce(void)
{
    double epot = 0, rcut2 = 1.2 * 1.2;
    for (int iBox = 0; iBox < NBOX; iBox++) {
        int nbr[27];
        int nNbr = getNeighborBoxes(iBox, nbr);
        for (int jTmp = 0; jTmp < nNbr; jTmp++) {
            int jBox = nbr[jTmp];
            double shift[3];
            image_shift(iBox, jBox, shift);
            for (int ii = 0; ii < nAtoms[iBox]; ii++)
                for (int jj = 0; jj < nAtoms[jBox]; jj++) {
                    double d[3], fr;
                    if (jBox == iBox && jj == ii)
                        continue;
                    double r2 = vec_sub(d, r[iBox][ii], r[jBox][jj], shift);
                    if (r2 > rcut2)
                        continue;
                    epot += 0.5 * lj_pair(r2, &fr);
                    for (int m = 0; m < 3; m++)
                        f[iBox][ii][m] += fr * d[m];
                }
        }
    }
    return epot;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    unsigned s = 7;
    MPI_Init(&argc, &argv);
    for (int b = 0; b < NBOX; b++) {
        int ix, iy, iz;
        getTuple(b, &ix, &iy, &iz);
        nAtoms[b] = PERBOX;
        for (int a = 0; a < PERBOX; a++) {
            s = s * 1103515245u + 12345u;
            r[b][a][0] = ix + 0.25 + 0.5 * (a & 1) + 1e-3 * (s >> 24);
            r[b][a][1] = iy + 0.25 + 0.5 * ((a >> 1) & 1);
            r[b][a][2] = iz + 0.25 + 0.5 * ((a >> 2) & 1);
        }
    }
    double t0 = MPI_Wtime(), e = 0;
    for (int t = 0; t < steps; t++)
        e += ljForce();
    double t = MPI_Wtime() - t0;
    printf("epot %.6e fx %.6e\nkernel_s %.4f\n", e, f[1][1][0], t);
    MPI_Finalize();
    return 0;
}
