/*
 * runtime/mpi.c -- the hand-written part of libautoanalyzer-mpi: MPI_Init,
 * MPI_Init_thread (rank/size, a private duplicate of MPI_COMM_WORLD, the
 * experiment id and output directory broadcast from rank 0, hosts and MPI
 * library version), MPI_Finalize (profile collection), MPI_Abort (this
 * rank's profile first) and MPI_Pcontrol (0 pause, 1 resume).
 *
 * Collection: AUTOANALYZER_COLLECT=mpi (default) packs every rank's profile
 * (runtime/pack.c), gathers the packs to rank 0 over the private
 * communicator, and rank 0 merges them into one experiment.xml;
 * AUTOANALYZER_COLLECT=files makes every rank write rank-<N>.xml.
 * Also the Fortran bindings of these calls.
 */
#include "runtime/rt_mpi.h"
#include "runtime/aa_runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static MPI_Comm aa_comm = MPI_COMM_NULL;

static void after_init(void)
{
    aa_rt_thread *t = aa_rt_thread_get();
    char buf[sizeof aa_rt_g.experiment_id + sizeof aa_rt_g.outdir];
    int len = 0, flag = 0;
    if (t)
        t->in_mpi = 1;
    PMPI_Initialized(&flag);
    if (!flag)
        goto out;
    aa_rt_g.mpi_used = 1;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &aa_comm) != MPI_SUCCESS) {
        aa_comm = MPI_COMM_NULL;
        aa_rt_fail("cannot duplicate MPI_COMM_WORLD; profiles are written per rank");
        aa_rt_g.collect_files = 1;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &aa_rt_g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &aa_rt_g.nprocs);
    /* one experiment id and output directory for all ranks */
    memset(buf, 0, sizeof buf);
    if (aa_rt_g.rank == 0) {
        aa_err err;
        aa_err_clear(&err);
        /* rank 0 claims a new directory (the default name) for all */
        if (aa_rt_choose_outdir(&err) != AA_OK)
            aa_rt_fail("%s", err.msg);
        memcpy(buf, aa_rt_g.experiment_id, sizeof aa_rt_g.experiment_id);
        memcpy(buf + sizeof aa_rt_g.experiment_id, aa_rt_g.outdir, sizeof aa_rt_g.outdir);
    }
    if (aa_comm != MPI_COMM_NULL &&
        PMPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, aa_comm) == MPI_SUCCESS) {
        memcpy(aa_rt_g.experiment_id, buf, sizeof aa_rt_g.experiment_id);
        memcpy(aa_rt_g.outdir, buf + sizeof aa_rt_g.experiment_id, sizeof aa_rt_g.outdir);
        aa_rt_g.experiment_id[sizeof aa_rt_g.experiment_id - 1] = 0;
        aa_rt_g.outdir[sizeof aa_rt_g.outdir - 1] = 0;
    }
    if (PMPI_Get_library_version(buf, &len) == MPI_SUCCESS) {
        buf[len > 0 && len < (int)sizeof buf ? len : 0] = 0;
        buf[strcspn(buf, "\n")] = 0;
        snprintf(aa_rt_g.mpi_library, sizeof aa_rt_g.mpi_library, "%s", buf);
    }
    /* OpenMPI installs its own handlers in MPI_Init: ours go first, then
     * chain to them. */
    aa_rt_install_signal_handlers();
out:
    if (t)
        t->in_mpi = 0;
}

int MPI_Init(int *argc, char ***argv)
{
    aa_mpi_call c;
    int m = aa_mpi_begin(&c), rc = PMPI_Init(argc, argv);
    /* the runtime's own set-up (a collective duplicate of MPI_COMM_WORLD,
     * the broadcast of the experiment id) is part of the user's MPI_Init
     * call: counted outside it, a rank that finished PMPI_Init first and
     * polled in the duplicate for the others showed milliseconds of CPU in
     * main's own code (bench/diagnosis.md, thirteenth step) */
    if (rc == MPI_SUCCESS)
        after_init();
    if (m) /* collective over MPI_COMM_WORLD: the coll kind */
        aa_mpi_end(&c, AA_MPI_COLL, 0, 0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    aa_mpi_call c;
    int m = aa_mpi_begin(&c), rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) /* inside the call, as in MPI_Init */
        after_init();
    if (m)
        aa_mpi_end(&c, AA_MPI_COLL, 0, 0);
    return rc;
}

/* Gathers all packed profiles to rank 0, which writes experiment.xml. */
static void collect_mpi(aa_rt_thread *t)
{
    aa_err err;
    aa_experiment *e;
    aa_buf b;
    int len, size = aa_rt_g.nprocs, rank = aa_rt_g.rank, i, ok = 1;
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    aa_err_clear(&err);
    aa_buf_init(&b);
    e = aa_rt_build_experiment(&err);
    if (!e || aa_rt_pack(e, &b) != 0) {
        aa_rt_fail("cannot build the profile of rank %d: %s", rank, e ? "out of memory" : err.msg);
        aa_buf_reset(&b);
    }
    len = b.failed ? 0 : (int)b.len;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        displs = calloc((size_t)size, sizeof *displs);
        if (!lens || !displs)
            ok = 0;
    }
    /* every rank takes part in both collectives, whatever happened */
    if (PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, aa_comm) != MPI_SUCCESS)
        ok = 0;
    if (rank == 0 && ok) {
        long long total = 0;
        for (i = 0; i < size; i++) {
            displs[i] = (int)total;
            total += lens[i];
        }
        if (total > 2147483647LL || !(all = malloc((size_t)total + 1)))
            ok = 0;
    }
    /* rank 0 says whether it can receive; if not, nobody sends */
    if (PMPI_Bcast(&ok, 1, MPI_INT, 0, aa_comm) != MPI_SUCCESS)
        ok = 0;
    if (ok) {
        char dummy = 0;
        if (PMPI_Gatherv(len ? b.data : &dummy, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
                         aa_comm) != MPI_SUCCESS)
            ok = 0;
    }
    if (rank == 0) {
        if (!ok || !e) {
            aa_rt_fail("cannot gather the profiles to rank 0; writing rank 0's own profile");
            aa_rt_g.written = 0;
            aa_rt_g.collect_files = 1;
            aa_rt_write_own_profile(NULL);
        } else {
            char missing[1024] = "", hosts[4096] = "", path[4200];
            size_t p;
            /* a fresh experiment with rank 0's header (id, program,
             * environment); every rank's pack, rank 0's included, is
             * merged into it */
            aa_experiment *m = aa_experiment_new();
            if (m) {
                size_t k;
                m->id = strdup(e->id);
                m->program = strdup(e->program);
                m->nprocs = size;
                for (k = 0; k < e->nattrs; k++)
                    aa_experiment_set_attr(m, e->attrs[k].name, e->attrs[k].value);
            }
            aa_experiment_free(e);
            e = m;
            for (i = 0; e && i < size; i++) {
                if (lens[i] == 0 || aa_rt_unpack_merge(e, all + displs[i], (size_t)lens[i], &err)) {
                    size_t l = strlen(missing);
                    snprintf(missing + l, sizeof missing - l, "%s%d", l ? " " : "", i);
                }
            }
            if (e) {
                for (p = 0; p < e->nprocesses; p++) {
                    const char *h = e->processes[p].host ? e->processes[p].host : "";
                    size_t l = strlen(hosts), hl = strlen(h);
                    char *f = strstr(hosts, h);
                    int dup = 0;
                    while (f && hl) {
                        if ((f == hosts || f[-1] == ' ') && (f[hl] == 0 || f[hl] == ' ')) {
                            dup = 1;
                            break;
                        }
                        f = strstr(f + 1, h);
                    }
                    if (!dup && hl)
                        snprintf(hosts + l, sizeof hosts - l, "%s%s", l ? " " : "", h);
                }
                aa_experiment_set_attr(e, "hosts", hosts);
                if (missing[0])
                    aa_experiment_set_attr(e, "missing_ranks", missing);
                if (aa_rt_make_outdir(&err) != AA_OK) {
                    aa_rt_fail("%s", err.msg);
                } else {
                    snprintf(path, sizeof path, "%s/experiment.xml", aa_rt_g.outdir);
                    if (aa_rt_write_experiment(e, path, &err) != AA_OK)
                        aa_rt_fail("cannot write the experiment: %s", err.msg);
                }
            } else {
                aa_rt_fail("out of memory merging the profiles");
            }
        }
    }
    aa_rt_g.written = 1;
    aa_experiment_free(e);
    aa_buf_free(&b);
    free(lens);
    free(displs);
    free(all);
    (void)t;
}

int MPI_Finalize(void)
{
    aa_rt_thread *t = aa_rt_thread_get();
    int rc, saved = 0;
    if (t) {
        saved = t->in_rt;
        t->in_rt = 1;
        t->in_mpi = 1;
    }
    /* every rank takes part in the collection, whatever its own state, so
     * that nobody waits for it */
    if (!aa_rt_g.written) {
        if (aa_rt_g.collect_files || aa_comm == MPI_COMM_NULL) {
            aa_rt_write_own_profile(NULL);
            aa_rt_g.written = 1;
        } else {
            collect_mpi(t);
        }
    }
    if (t) {
        t->in_mpi = 0;
        t->in_rt = saved;
    }
    if (aa_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&aa_comm);
    rc = PMPI_Finalize();
    aa_rt_g.mpi_finalized = 1;
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (!aa_rt_g.written)
        aa_rt_write_own_profile("MPI_Abort");
    return PMPI_Abort(comm, errorcode);
}

int MPI_Pcontrol(const int level, ...)
{
    if (level == 0)
        aa_runtime_pause();
    else if (level == 1)
        aa_runtime_resume();
    return MPI_SUCCESS;
}

/* ---- Fortran bindings of the hand-written calls (the generated ones are
 * in mpi_wrappers.c); gfortran names, mpif.h / `use mpi`. ---- */
void mpi_init_(MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MPI_Init(NULL, NULL);
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0;
    *ierr = (MPI_Fint)MPI_Init_thread(NULL, NULL, (int)*required, &p);
    *provided = (MPI_Fint)p;
}

void mpi_finalize_(MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MPI_Finalize();
}

void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MPI_Abort(PMPI_Comm_f2c(*comm), (int)*errorcode);
}

void mpi_pcontrol_(MPI_Fint *level)
{
    MPI_Pcontrol((int)*level);
}

/* ---- `use mpi_f08` (Open MPI's mpi_*_f08_ names): the calls that make the
 * process known to the runtime.  Their ierror is OPTIONAL, so it may be
 * NULL; handles are one-integer derived types, passed by reference like an
 * integer.  The other f08 routines are generated (mpi_wrappers.c). ---- */
void mpi_init_f08_(MPI_Fint *ierr);
void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_f08_(MPI_Fint *ierr);
void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);
void mpi_pcontrol_f08_(MPI_Fint *level);

void mpi_init_f08_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int p = 0, rc = MPI_Init_thread(NULL, NULL, (int)*required, &p);
    *provided = (MPI_Fint)p;
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

void mpi_finalize_f08_(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    int rc = MPI_Abort(PMPI_Comm_f2c(*comm), (int)*errorcode);
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

void mpi_pcontrol_f08_(MPI_Fint *level)
{
    MPI_Pcontrol((int)*level);
}
