/*
 * fuzz/fuzz_nightly.c -- libFuzzer target for the configuration of
 * `autoanalyzer nightly` (cli/nightly_cfg.c): the input is the file; the
 * reader must accept it or reject it with AA_EINPUT naming "file:line:",
 * and the command lines of an accepted file (run, analysis) must split or
 * be refused the same way.  ASan's leak check covers the error paths.
 */
#include "cli/nightly_cfg.h"
#include "fuzz/fuzz_file.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/nightly", "tests/data/nightly/fuzz-regress",
                                        NULL};

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
    const char *path = fuzz_put("nightly.conf", data, size);
    nightly_cfg c;
    aa_err err;
    int rc = nightly_cfg_read(path, &c, &err);
    check(rc, &err, path);
    if (rc == AA_OK) {
        const char *lines[2] = {c.run, c.analysis};
        int at[2] = {c.run_line, c.analysis_line};
        for (int i = 0; i < 2; i++) {
            char **w;
            int n, why;
            if (!lines[i])
                continue;
            why = nightly_split_words(lines[i], &w, &n);
            if (why == WORDS_OK) {
                if (n < 1 || w[n] != NULL)
                    abort();
                nightly_free_words(w, n);
            } else if (w || n) {
                abort(); /* a failed split leaves nothing allocated */
            } else {
                check(nightly_words_error(&err, why, path, at[i], "run", lines[i]), &err, path);
            }
        }
    }
    nightly_cfg_free(&c);
    return 0;
}
