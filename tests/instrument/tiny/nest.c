/* tests/instrument/tiny/nest.c -- loop nests for the tiny-nest rule
 * (docs/instrument.md, "Small regions"): nests of for loops whose trip
 * counts are bounded once the enclosing loops' variables take their values,
 * executing at most 192 statements, are as tiny as a tiny loop; the others
 * (too many statements, an unknown bound, a loop variable changed or
 * declared again in the body, a call that may block) stay.  Used by tests/e2e/instrument_tiny.t. */
#include <stdio.h>

static double next_roll(unsigned long *s)
{
    *s = *s * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* a pick from a 12-entry table: a triangular nest (12 x up to 11 steps),
 * 115 statements at most: a short leaf function */
int tri_pick(unsigned long *seed)
{
    double dist[12];
    dist[0] = 0.10;
    dist[1] = 0.05;
    dist[2] = 0.20;
    dist[3] = 0.15;
    dist[4] = 0.10;
    dist[5] = 0.05;
    dist[6] = 0.05;
    dist[7] = 0.10;
    dist[8] = 0.05;
    dist[9] = 0.05;
    dist[10] = 0.05;
    dist[11] = 0.05;
    double roll = next_roll(seed);
    for (int i = 0; i < 12; i++) {
        double running = 0;
        for (int j = i; j > 0; j--)
            running += dist[j];
        if (roll < running)
            return i;
    }
    return 0;
}

/* kept (printf); its nests: */
void report(const double *m, int n)
{
    double s = 0, t = 0, u = 0, v = 0, w = 0, x = 0;
    /* lower triangle of 10 x 10 (66 statements): a tiny nest */
    for (int i = 0; i < 10; i++)
        for (int j = 0; j <= i; j++)
            s += m[i * 10 + j];
    /* one loop of 12 iterations (13 statements): a tiny nest of one loop */
    for (int i = 0; i < 12; i++)
        t += m[i];
    /* 16 x 16 (273 statements): stays */
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            u += m[i * 16 + j];
    /* the inner bound is a parameter: stays */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < n; j++)
            v += m[j];
    /* the outer variable is changed in the body: stays */
    for (int i = 0; i < 10; i++) {
        for (int j = i; j < 10; j++)
            w += m[j];
        if (w < 0)
            i--;
    }
    /* a call that may block inside: stays */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            printf("%d %d\n", i, j);
    /* the outer variable declared again in the body: stays */
    for (int i = 0; i < 4; i++) {
        int i = n * 100;
        for (int j = 0; j < i; j++)
            x += m[j & 255];
    }
    printf("%g %g %g %g %g %g\n", s, t, u, v, w, x);
}

/* an OpenMP region around the work (parsed with -fopenmp, the directive's
 * statement may hide its calls): never tiny, and neither are 12 calls of
 * it */
void par_report(double *m, int n)
{
#pragma omp parallel
    {
#pragma omp single nowait
        {
            report(m, n);
        }
    }
}

void par_reports(double *m)
{
    for (int k = 0; k < 12; k++)
        par_report(m + k, 4);
}

int main(void)
{
    double m[256] = {0};
    unsigned long seed = 1;
    report(m, 4);
    par_reports(m);
    return tri_pick(&seed) > 12;
}
