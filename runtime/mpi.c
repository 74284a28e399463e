/*
 * runtime/mpi.c -- the hand-written part of libautoanalyzer-mpi: MPI_Init,
 * MPI_Init_thread (rank/size, a private duplicate of MPI_COMM_WORLD, the
 * experiment id and output directory broadcast from rank 0, hosts and MPI
 * library version), MPI_Finalize (profile collection), MPI_Abort (this
 * rank's profile first) and MPI_Pcontrol (0 pause, 1 resume).
 *
 * Collection: AUTOANALYZER_COLLECT=mpi (default) packs every rank's profile
 * (runtime/pack.c) and sends the packs to rank 0 over the private
 * communicator, a batch of ranks at a time; rank 0 merges each batch as it
 * arrives into one experiment.xml (experiment.aab in the binary form,
 * AUTOANALYZER_FORMAT); AUTOANALYZER_COLLECT=files makes every rank write
 * rank-<N>.xml (.aab).
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
        aa_mpi_end(&c, AA_MPI_COLL, 0, NULL, 0, 0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    aa_mpi_call c;
    int m = aa_mpi_begin(&c), rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) /* inside the call, as in MPI_Init */
        after_init();
    if (m)
        aa_mpi_end(&c, AA_MPI_COLL, 0, NULL, 0, 0);
    return rc;
}

static size_t batch_bytes(void)
{
    return aa_rt_g.batch_bytes ? aa_rt_g.batch_bytes : AA_RT_BATCH_BYTES;
}

/* Collection tags on the runtime's private communicator. */
enum { TAG_GO = 0x4141, TAG_PACK = 0x4142 };

/* Rank 0's receiving side: the packs of the other ranks, a batch at a time
 * (at most AUTOANALYZER_COLLECT_BATCH bytes, default AA_RT_BATCH_BYTES, and
 * AA_RT_BATCH_RANKS ranks): a rank sends its pack when rank 0 says "go",
 * so rank 0 never holds more than one batch of packs besides the merged
 * experiment (the whole job's packs no longer need one buffer, nor a
 * Gatherv count below 2^31 bytes).  Each pack is
 * merged as soon as its batch has arrived, then the buffer is reused. */
static void receive_batches(aa_rt_merge *m, const int *lens, int size, const aa_buf *own,
                            char *buf, MPI_Request *req)
{
    int from = 0, to, r, n, lost;
    char go = 1;
    size_t off;
    for (; from < size; from = to) {
        to = aa_rt_batch_end(lens, size, from, batch_bytes(), AA_RT_BATCH_RANKS);
        lost = 0;
        for (r = from, n = 0, off = 0; r < to; r++) {
            if (r == 0 || lens[r] == 0)
                continue;
            if (PMPI_Irecv(buf + off, lens[r], MPI_CHAR, r, TAG_PACK, aa_comm, &req[n]) !=
                MPI_SUCCESS) {
                req[n] = MPI_REQUEST_NULL;
                lost = 1;
            }
            n++;
            if (PMPI_Send(&go, 1, MPI_CHAR, r, TAG_GO, aa_comm) != MPI_SUCCESS)
                lost = 1;
            off += (size_t)lens[r];
        }
        if (n && PMPI_Waitall(n, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            lost = 1; /* this batch's ranks are missing */
        for (r = from, off = 0; r < to; r++) {
            if (r == 0) {
                aa_rt_merge_pack(m, 0, own->data, (size_t)lens[0]);
                continue;
            }
            aa_rt_merge_pack(m, r, buf + off, lost ? 0 : (size_t)lens[r]);
            off += (size_t)lens[r];
        }
    }
}

/* Gathers every rank's packed profile to rank 0, which merges them and
 * writes experiment.xml, or experiment.aab in the binary form. */
static void collect_mpi(aa_rt_thread *t)
{
    aa_err err;
    aa_experiment *e;
    aa_buf b;
    int len, size = aa_rt_g.nprocs, rank = aa_rt_g.rank, i, ok = 1;
    int *lens = NULL;
    char *buf = NULL;
    MPI_Request *req = NULL;
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
        if (!lens)
            ok = 0;
    }
    /* every rank takes part in the collectives, whatever happened */
    if (PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, aa_comm) != MPI_SUCCESS)
        ok = 0;
    if (rank == 0 && ok && e) {
        /* the biggest batch's buffer and requests, taken before anyone sends */
        size_t most = 1;
        int from, to, r, nmax = 1;
        for (from = 0; from < size; from = to) {
            size_t bytes = 0;
            to = aa_rt_batch_end(lens, size, from, batch_bytes(), AA_RT_BATCH_RANKS);
            for (r = from; r < to; r++)
                bytes += r ? (size_t)lens[r] : 0;
            most = bytes > most ? bytes : most;
            nmax = to - from > nmax ? to - from : nmax;
        }
        buf = malloc(most);
        req = malloc((size_t)nmax * sizeof *req);
        if (!buf || !req)
            ok = 0;
    } else if (rank == 0) {
        ok = 0;
    }
    /* rank 0 says whether it can receive; if not, nobody sends */
    if (PMPI_Bcast(&ok, 1, MPI_INT, 0, aa_comm) != MPI_SUCCESS)
        ok = 0;
    if (ok && rank != 0 && len > 0) {
        char go;
        if (PMPI_Recv(&go, 1, MPI_CHAR, 0, TAG_GO, aa_comm, MPI_STATUS_IGNORE) == MPI_SUCCESS)
            PMPI_Send(b.data, len, MPI_CHAR, 0, TAG_PACK, aa_comm);
    }
    if (rank == 0) {
        aa_rt_merge m;
        memset(&m, 0, sizeof m);
        if (!ok) {
            aa_rt_fail("cannot gather the profiles to rank 0; writing rank 0's own profile");
            aa_rt_g.written = 0;
            aa_rt_g.collect_files = 1;
            aa_rt_write_own_profile(NULL);
        } else if (aa_rt_merge_begin(&m, e, size) == 0) {
            aa_experiment_free(e);
            e = NULL;
            receive_batches(&m, lens, size, &b, buf, req);
            free(buf);
            buf = NULL;
            if (aa_rt_merge_finish(&m) != 0) {
                aa_rt_fail("out of memory merging the profiles");
            } else if (aa_rt_make_outdir(&err) != AA_OK) {
                aa_rt_fail("%s", err.msg);
            } else {
                char path[4200];
                const char *ext = aa_rt_profile_ext();
                snprintf(path, sizeof path, "%s/experiment%s", aa_rt_g.outdir, ext);
                if (aa_rt_write_experiment(m.e, path, &err) != AA_OK)
                    aa_rt_fail("cannot write the experiment: %s", err.msg);
                else
                    aa_rt_remove_other_form(aa_rt_g.outdir, "experiment", ext);
            }
        } else {
            /* nothing can be merged: the packs are still taken, so no rank waits */
            for (i = 1; i < size; i++)
                if (lens[i] > 0) {
                    char go = 1;
                    PMPI_Send(&go, 1, MPI_CHAR, i, TAG_GO, aa_comm);
                    PMPI_Recv(buf, lens[i], MPI_CHAR, i, TAG_PACK, aa_comm, MPI_STATUS_IGNORE);
                }
            aa_rt_fail("out of memory merging the profiles");
        }
        aa_rt_merge_free(&m);
    }
    aa_rt_g.written = 1;
    aa_experiment_free(e);
    aa_buf_free(&b);
    free(lens);
    free(buf);
    free(req);
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
