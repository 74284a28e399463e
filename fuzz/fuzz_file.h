/*
 * fuzz/fuzz_file.h -- for targets whose reader takes a file name: the
 * input is written to one temporary file per process (rewritten for every
 * input), named so that messages can be checked to start with it.
 */
#ifndef AA_FUZZ_FILE_H
#define AA_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data to the temporary directory's file `name`; returns its path
 * (static storage) or aborts. */
static const char *fuzz_put(const char *name, const void *data, size_t size)
{
    static char dir[256];
    static char path[2][512];
    static int k;
    FILE *f;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/aa-fuzz-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(dir))
            abort();
    }
    k ^= 1;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    if (!(f = fopen(path[k], "wb")) || (size && fwrite(data, 1, size, f) != size) || fclose(f))
        abort();
    return path[k];
}

#endif
