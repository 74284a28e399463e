/*
 * fuzz/fuzz_profile.c -- libFuzzer target for the profile readers
 * (`make fuzz`, FUZZ_SECONDS=60 by default).
 *
 * Every input is fed to aa_experiment_read_memory and
 * aa_regionmap_read_memory.  Besides crashes, leaks and undefined behaviour
 * (ASan+UBSan), it checks the reader/writer contract: whatever the reader
 * accepts, the writer must write, the reader must accept again, and a
 * second write must give the same bytes; a rejected input must come with
 * AA_EINPUT (or AA_EENV) and a "name:line: " message.
 */
#include "profile/aa_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_message(int rc, const aa_err *err)
{
    if (rc != AA_EINPUT && rc != AA_EENV) {
        fprintf(stderr, "unexpected status %d: %s\n", rc, err->msg);
        abort();
    }
    if (rc == AA_EINPUT && strncmp(err->msg, "fuzz:", 5) != 0) {
        fprintf(stderr, "message does not name the input: %s\n", err->msg);
        abort();
    }
}

/* The readers of process attributes the analysis uses (run delay, the CPUs
 * a process ran on, the CPU's pace): any text gives "none" or a value in range. */
static void check_process_attrs(const aa_experiment *e)
{
    size_t i;
    for (i = 0; i < e->nprocesses; i++) {
        double share = -1, d = aa_process_run_delay(&e->processes[i]);
        int cpu = aa_process_main_cpu(&e->processes[i], &share);
        if (!(d >= 0) && d == d) {
            fprintf(stderr, "run delay %g out of range\n", d);
            abort();
        }
        if (cpu < -1 || (cpu >= 0 && !(share >= 0 && share <= 1)) || (cpu < 0 && share != 0)) {
            fprintf(stderr, "main cpu %d, share %g out of range\n", cpu, share);
            abort();
        }
        {
            double ns, mad, n;
            int has = aa_process_pace(&e->processes[i], &ns, &mad, &n);
            if (has ? !(ns > 0 && mad >= 0 && n >= 1) : (ns != 0 || mad != 0 || n != 0)) {
                fprintf(stderr, "pace %g, %g, %g out of range\n", ns, mad, n);
                abort();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aa_experiment *e = NULL, *back = NULL;
    aa_regionmap *m = NULL, *mback = NULL;
    aa_err err;
    int rc;

    rc = aa_experiment_read_memory((const char *)data, size, "fuzz", &e, &err);
    if (rc == AA_OK)
        check_process_attrs(e);
    if (rc == AA_OK) {
        aa_buf b1, b2;
        aa_buf_init(&b1);
        aa_buf_init(&b2);
        if (aa_experiment_write_buf(e, &b1, &err) != AA_OK) {
            fprintf(stderr, "accepted experiment does not write: %s\n", err.msg);
            abort();
        }
        if (aa_experiment_read_memory(b1.data, b1.len, "fuzz", &back, &err) != AA_OK) {
            fprintf(stderr, "written experiment does not read: %s\n", err.msg);
            abort();
        }
        aa_experiment_write_buf(back, &b2, &err);
        if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
            fprintf(stderr, "write-read-write differs\n");
            abort();
        }
        aa_experiment_free(back);
        aa_buf_free(&b1);
        aa_buf_free(&b2);
    } else {
        check_message(rc, &err);
        if (e)
            abort();
    }
    aa_experiment_free(e);

    rc = aa_regionmap_read_memory((const char *)data, size, "fuzz", &m, &err);
    if (rc == AA_OK) {
        aa_buf b1, b2;
        aa_buf_init(&b1);
        aa_buf_init(&b2);
        if (aa_regionmap_write_buf(m, &b1, &err) != AA_OK ||
            aa_regionmap_read_memory(b1.data, b1.len, "fuzz", &mback, &err) != AA_OK) {
            fprintf(stderr, "region map round trip failed: %s\n", err.msg);
            abort();
        }
        aa_regionmap_write_buf(mback, &b2, &err);
        if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
            fprintf(stderr, "region map write-read-write differs\n");
            abort();
        }
        aa_regionmap_free(mback);
        aa_buf_free(&b1);
        aa_buf_free(&b2);
    } else {
        check_message(rc, &err);
    }
    aa_regionmap_free(m);
    return 0;
}
