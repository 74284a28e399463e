/*
 * tests/space/fuzz_space.c -- libFuzzer target for the Program Space
 * export-format reader (aa_space_import) on an in-memory SQLite database:
 * any input must give AA_OK or AA_EINPUT with a "name:line:" message,
 * never a crash.  Built and run by `make fuzz-space` (space/module.mk).
 * A database that took an import is dropped, so every input meets an
 * empty one: kept, it grew with every accepted input and the import
 * slowed from thousands of executions per second to about a hundred.
 */
#include <stdlib.h>
#include <string.h>

#include "space/aa_space.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static aa_space *s;
    aa_err err;
    char *text;
    long long *eids = NULL;
    size_t n = 0;
    int rc;
    if (!s && aa_space_open("sqlite::memory:", &s, &err) != AA_OK)
        abort();
    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    if (strlen(text) == size) {
        rc = aa_space_import(s, text, "fuzz", &eids, &n, &err);
        if (rc != AA_OK && (rc != AA_EINPUT || strncmp(err.msg, "fuzz:", 5) != 0))
            abort();
        free(eids);
        if (rc == AA_OK && n > 0) {
            aa_space_close(s);
            s = NULL;
        }
    }
    free(text);
    return 0;
}
