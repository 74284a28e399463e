/*
 * bench/shapes/pic_push.c -- overhead shape "particle push" (issue 14): a
 * 1-D electrostatic particle-in-cell step where every particle goes
 * through small per-particle helpers (cell index, field interpolation,
 * boundary wrap, the push itself), as in PIC codes such as PRK PIC.
 * ~1.2e8 particle pushes per default run, 4-5 helper calls each.
 * Prints a checksum and "kernel_s T" (the time-step loop's wall time).
 *   pic_push [STEPS]               default 300
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NP 400000
#define NX 4096
#define L 1.0

typedef struct {
    double x, v, q;
} particle;

static particle part[NP];
static double E[NX], rho[NX];

static inline int cell_of(double x)
{
    return (int)(x * (NX / L));
}

static double field_at(double x)
{
    int i = cell_of(x);
    double w = x * (NX / L) - i;
    int j = i + 1 == NX ? 0 : i + 1;
    return (1 - w) * E[i] + w * E[j];
}

static double wrap(double x)
{
    if (x < 0)
        x += L;
    if (x >= L)
        x -= L;
    return x;
}

static void deposit(const particle *p)
{
    rho[cell_of(p->x)] += p->q;
}

void push_particle(particle *p, double dt)
{
    p->v += dt * p->q * field_at(p->x);
    p->x = wrap(p->x + dt * p->v);
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    unsigned s = 1;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < NP; i++) {
        s = s * 1103515245u + 12345u;
        part[i].x = (s >> 8) * (L / 16777216.0);
        part[i].v = 0;
        part[i].q = (i & 1) ? 1.0 : -1.0;
    }
    double t0 = MPI_Wtime();
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < NX; i++)
            rho[i] = 0;
        for (int i = 0; i < NP; i++)
            deposit(&part[i]);
        for (int i = 0; i < NX; i++)
            E[i] = 1e-4 * (rho[(i + 1) % NX] - rho[(i + NX - 1) % NX]);
        for (int i = 0; i < NP; i++)
            push_particle(&part[i], 1e-3);
    }
    double t = MPI_Wtime() - t0, sum = 0;
    for (int i = 0; i < NP; i++)
        sum += part[i].x + part[i].v;
    printf("checksum %.6e\nkernel_s %.4f\n", sum, t);
    MPI_Finalize();
    return 0;
}
