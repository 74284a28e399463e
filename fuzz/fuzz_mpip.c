/*
 * fuzz/fuzz_mpip.c -- libFuzzer target for the mpiP report reader
 * (report/import_mpip.c, `autoanalyzer import --format mpip`).  Any input is
 * accepted or refused with AA_EINPUT naming "fuzz.mpiP:LINE: " (AA_EENV on
 * no memory), never a crash, leak or undefined behaviour; what is accepted
 * must pass the model's checks and write as XML that reads back with the
 * same processes, regions and nodes.
 */
#include "report/aa_report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/mpip", "tests/data/mpip/fuzz-regress", NULL};

static void refused(int rc, const aa_err *err)
{
    unsigned long line;
    if (rc == AA_EENV)
        return;
    if (rc != AA_EINPUT || sscanf(err->msg, "fuzz.mpiP:%lu: ", &line) != 1 || line == 0) {
        fprintf(stderr, "status %d, message does not name file and line: %s\n", rc, err->msg);
        abort();
    }
}

static void accepted(const aa_experiment *e)
{
    aa_experiment *back = NULL;
    aa_buf x;
    aa_err err;
    size_t p;
    if (aa_experiment_check(e, &err) || !e->nprocesses || e->nmetrics < 3) {
        fprintf(stderr, "accepted an experiment that fails its checks: %s\n", err.msg);
        abort();
    }
    aa_buf_init(&x);
    if (aa_experiment_write_buf(e, &x, &err) ||
        aa_experiment_read_memory(x.data, x.len, "fuzz.xml", &back, &err)) {
        fprintf(stderr, "the imported experiment does not read back: %s\n", err.msg);
        abort();
    }
    if (back->nprocesses != e->nprocesses || back->nregions != e->nregions)
        abort();
    for (p = 0; p < e->nprocesses; p++)
        if (back->processes[p].nthreads != 1 ||
            back->processes[p].threads[0].nnodes != e->processes[p].threads[0].nnodes)
            abort();
    aa_experiment_free(back);
    aa_buf_free(&x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aa_experiment *e = NULL;
    aa_err err;
    int rc = aa_import_mpip_text("fuzz.mpiP", (const char *)data, size, &e, &err);
    if (rc) {
        refused(rc, &err);
        if (e)
            abort(); /* nothing handed out on failure */
        return 0;
    }
    accepted(e);
    aa_experiment_free(e);
    return 0;
}
