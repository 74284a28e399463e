/*
 * tests/runtime/rt_throttle.c -- an imbalanced inner region reached first,
 * very often and briefly, under one caller and later, with rank-dependent
 * work, under another (the predictor/corrector pattern).  Throttling must
 * stop only the first calling context: the second one keeps being measured,
 * so the analysis can find its imbalance.
 *   predictor(): 150,000 visits of mix() of well under 10 us (throttled)
 *   corrector(): 300 visits of mix() of ~0.1 ms, ~0.5 ms on the last rank
 * A third function, refined(), calls mix_r() as often and as briefly as
 * predictor(); run with AUTOANALYZER_REFINE naming refined() it is never
 * throttled.  fortran_nest() does the same through the Fortran probes,
 * which pass an id and a name only: an outer loop@80 (id 160, named by the
 * refine list) around a new inner loop@82 (id 170) visited as often and as
 * briefly -- refined as a loop in a refined context.  A round-2 build
 * flags what it refined, and then no environment is needed: built()
 * (id 180, kind | AA_RUNTIME_REFINED) around an unflagged loop@92 (its
 * static parent is built()), and through the Fortran probes an outer
 * loop@100 entered by aa_runtime_enter_refined_f around a plain inner
 * loop@102, each visited as often and as briefly.  poller() calls
 * poll_once(), one MPI_Test, 150,000 times: throttled, the time of the
 * MPI calls of its untimed visits is poller()'s.  Arguments: none.
 */
#include <mpi.h>
#include <string.h>

#include "tests/runtime/rt_common.h"

RT_REGION(r_main, 100, 0, 1, 30, "main", "main");
RT_REGION(r_pred, 110, 0, 1, 40, "predictor", "predictor");
RT_REGION(r_corr, 120, 0, 1, 50, "corrector", "corrector");
RT_REGION(r_mix, 130, 0, 1, 60, "mix", "mix");
RT_REGION(r_refd, 140, 0, 1, 70, "refined", "refined");
RT_REGION(r_mixr, 150, 140, 2, 72, "loop@72", "refined");
RT_REGION(r_built, 180, 0, 1 | AA_RUNTIME_REFINED, 90, "built", "built");
RT_REGION(r_bloop, 190, 180, 2, 92, "loop@92", "built");
RT_REGION(r_poller, 220, 0, 1, 110, "poller", "poller");
RT_REGION(r_poll1, 230, 0, 1, 120, "poll_once", "poll_once");

static volatile double sink;

typedef void fortran_enter(const int32_t *id, const char *name, size_t name_len);

/* Two nested loops through the Fortran probes (names "loop@NN"): the outer
 * one entered by `enter_outer`, the inner one visited 150,000 times. */
static void fortran_nest(fortran_enter *enter_outer, int32_t outer, const char *oname,
                         int32_t inner, const char *iname)
{
    enter_outer(&outer, oname, strlen(oname));
    for (int i = 0; i < 150000; i++) {
        aa_runtime_enter_f_(&inner, iname, strlen(iname));
        sink += i;
        aa_runtime_exit_f_(&inner, iname, strlen(iname));
    }
    aa_runtime_exit_f_(&outer, oname, strlen(oname));
}

/* A function around a loop visited 150,000 times, each visit very short:
 * refined() (named by the refine list) or built() (flagged by the build;
 * its loop is not). */
static void function_nest(aa_runtime_region *fn, aa_runtime_region *loop)
{
    aa_runtime_enter(fn);
    for (int i = 0; i < 150000; i++) {
        aa_runtime_enter(loop);
        sink += i;
        aa_runtime_exit(loop);
    }
    aa_runtime_exit(fn);
}

/* A polling loop: poll_once() (one MPI_Test of a null request: a wrapped
 * call that returns at once) 150,000 times, throttled; it keeps its calls,
 * the time of those of its untimed visits is poller()'s, whose own time
 * holds those visits. */
static void poller(void)
{
    int flag;
    aa_runtime_enter(&r_poller);
    for (int i = 0; i < 150000; i++) {
        MPI_Request none = MPI_REQUEST_NULL;
        aa_runtime_enter(&r_poll1);
        MPI_Test(&none, &flag, MPI_STATUS_IGNORE);
        aa_runtime_exit(&r_poll1);
    }
    aa_runtime_exit(&r_poller);
}

static void mix(int work)
{
    aa_runtime_enter(&r_mix);
    for (int i = 0; i < work; i++)
        sink += i * 0.5;
    aa_runtime_exit(&r_mix);
}

static void predictor(void)
{
    aa_runtime_enter(&r_pred);
    for (int i = 0; i < 150000; i++)
        mix(2);
    aa_runtime_exit(&r_pred);
}

static void corrector(int rank, int nprocs)
{
    aa_runtime_enter(&r_corr);
    for (int i = 0; i < 300; i++)
        mix(rank == nprocs - 1 ? 200000 : 40000);
    aa_runtime_exit(&r_corr);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    aa_runtime_enter(&r_main);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    predictor();
    function_nest(&r_refd, &r_mixr);
    fortran_nest(aa_runtime_enter_f_, 160, "loop@80", 170, "loop@82");
    function_nest(&r_built, &r_bloop);
    /* the Fortran probes of a round-2 build: the outer loop was refined */
    fortran_nest(aa_runtime_enter_refined_f_, 200, "loop@100", 210, "loop@102");
    poller();
    corrector(rank, nprocs);
    MPI_Barrier(MPI_COMM_WORLD);
    aa_runtime_exit(&r_main);
    MPI_Finalize();
    return 0;
}
