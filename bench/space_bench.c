/*
 * bench/space_bench.c -- Program Space benchmark (SPEC §8): imports two
 * 1,024-process x 500-region experiments built in memory with the model API
 * (the second has one slower function) and runs a performance difference
 * between them, breadth-first and exhaustive.  Targets: import < 10 s,
 * perfdiff < 2 s.  usage: space_bench DB [P R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "space/aa_space.h"
#include "tests/space/fixture.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine wall time includes waiting. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    aa_space *s;
    aa_experiment *a, *b;
    aa_err err;
    long P = 1024, R = 500;
    long long ea, eb;
    double t0, t_a, t_b, t_pd, t_pdx, c0, c_a, c_b, c_pd, c_pdx;
    size_t nd = 0, ndx = 0;
    aa_space_perfdiff_options po = {"wall", 5.0, 1, 0, NULL, 0};
    aa_space_perfdiff_result pd;
    int fail = 0;
    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: space_bench DB [P R]\n");
        return 2;
    }
    if (argc == 4 && (aa_parse_long(argv[2], &P) || aa_parse_long(argv[3], &R) || P < 1 || R < 2))
        return 2;
    a = space_fixture_big((int)P, (int)R, -1);
    b = space_fixture_big((int)P, (int)R, 37 % (int)(R / 2));
    if (aa_space_open(argv[1], &s, &err) != AA_OK) {
        fprintf(stderr, "space_bench: %s\n", err.msg);
        return 4;
    }
    t0 = now();
    c0 = cpu();
    if (aa_space_add(s, a, NULL, &ea, &err) != AA_OK)
        goto bad;
    t_a = now() - t0;
    c_a = cpu() - c0;
    t0 = now();
    c0 = cpu();
    if (aa_space_add(s, b, NULL, &eb, &err) != AA_OK)
        goto bad;
    t_b = now() - t0;
    c_b = cpu() - c0;
    t0 = now();
    c0 = cpu();
    if (aa_space_perfdiff(s, ea, eb, &po, &pd, &err) != AA_OK)
        goto bad;
    t_pd = now() - t0;
    c_pd = cpu() - c0;
    nd = pd.ndiffering;
    aa_space_perfdiff_free(&pd);
    po.exhaustive = 1;
    t0 = now();
    c0 = cpu();
    if (aa_space_perfdiff(s, ea, eb, &po, &pd, &err) != AA_OK)
        goto bad;
    t_pdx = now() - t0;
    c_pdx = cpu() - c0;
    ndx = pd.n;
    aa_space_perfdiff_free(&pd);
    printf("space bench [%s] %ld processes x %ld regions\n", aa_space_backend(s), P, R);
    printf("  import first experiment:   %7.3f s wall %7.3f s cpu  (target < 10 s)%s\n", t_a,
           c_a, t_a < 10 ? "" : "  OVER TARGET");
    printf("  import second experiment:  %7.3f s wall %7.3f s cpu\n", t_b, c_b);
    printf("  perfdiff (every focus):    %7.3f s wall %7.3f s cpu  (%zu differing foci; "
           "target < 2 s)%s\n",
           t_pd, c_pd, nd, t_pd < 2 ? "" : "  OVER TARGET");
    printf("  perfdiff exhaustive:       %7.3f s wall %7.3f s cpu  (%zu foci listed)\n", t_pdx,
           c_pdx, ndx);
    fail = nd == 0;
    aa_space_close(s);
    aa_experiment_free(a);
    aa_experiment_free(b);
    return fail;
bad:
    fprintf(stderr, "space_bench: %s\n", err.msg);
    aa_space_close(s);
    return 4;
}
