/*
 * fuzz/fuzz_pack.c -- libFuzzer target for the runtime's binary profile
 * format (runtime/pack.c), which rank 0 unpacks at MPI_Finalize: any input
 * is merged into an experiment or refused with AA_EINPUT, never a crash,
 * leak or undefined behaviour; what it accepts must pass the model's checks,
 * write as XML, and pack and unpack again.
 */
#include "runtime/rt_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/pack", "tests/data/pack/fuzz-regress", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aa_experiment *e = aa_experiment_new(), *again;
    aa_err err;
    int rc;
    if (!e)
        abort();
    e->id = strdup("fuzz");
    e->program = strdup("fuzz");
    e->nprocs = 1 << 20;
    rc = aa_rt_unpack_merge(e, data, size, &err);
    if (rc == AA_OK) {
        aa_buf b, xml;
        aa_buf_init(&b);
        aa_buf_init(&xml);
        if (aa_experiment_check(e, &err) != AA_OK ||
            aa_experiment_write_buf(e, &xml, &err) != AA_OK) {
            fprintf(stderr, "accepted pack fails the model: %s\n", err.msg);
            abort();
        }
        if (e->nprocesses == 1) {
            again = aa_experiment_new();
            again->id = strdup("fuzz");
            again->program = strdup("fuzz");
            again->nprocs = e->nprocs;
            if (aa_rt_pack(e, &b) != 0 || aa_rt_unpack_merge(again, b.data, b.len, &err) != AA_OK) {
                fprintf(stderr, "accepted pack does not pack again: %s\n", err.msg);
                abort();
            }
            aa_experiment_free(again);
        }
        aa_buf_free(&b);
        aa_buf_free(&xml);
    } else if (rc != AA_EINPUT && rc != AA_EENV) {
        fprintf(stderr, "unexpected status %d: %s\n", rc, err.msg);
        abort();
    }
    aa_experiment_free(e);
    return 0;
}
