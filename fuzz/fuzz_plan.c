/*
 * fuzz/fuzz_plan.c -- libFuzzer target for the instrumenter's selection
 * files (instrument/filter.c): the same input as a filter file, a region
 * plan and a refine file (analysis JSON, XML or a list).  Each must load or
 * be refused with AA_EINPUT naming "file:line:"; never a crash or leak.
 */
#include "fuzz/fuzz_file.h"
#include "instrument/aa_instrument.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/plan", "tests/data/plan/fuzz-regress", NULL};

static void check(int rc, const aa_err *err, const char *path)
{
    size_t n = strlen(path);
    if (rc == AA_OK || rc == AA_EENV)
        return;
    if (rc != AA_EINPUT || strncmp(err->msg, path, n) != 0 || err->msg[n] != ':') {
        fprintf(stderr, "status %d, message does not name the file: %s\n", rc, err->msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("input", data, size);
    aa_instr_filter *f = aa_instr_filter_new();
    aa_instr_plan *p = aa_instr_plan_new();
    aa_err err;
    if (!f || !p)
        abort();
    check(aa_instr_filter_load(f, path, &err), &err, path);
    check(aa_instr_plan_load(p, path, &err), &err, path);
    /* a refine file after a plan: contradictions across the two files */
    check(aa_instr_plan_load_refine(p, path, &err), &err, path);
    aa_instr_plan_free(p);
    aa_instr_filter_free(f);
    return 0;
}
