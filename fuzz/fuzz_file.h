/*
 * fuzz/fuzz_file.h -- for targets whose reader takes a file name: the
 * input is written to one temporary file per process (rewritten for every
 * input), named so that messages can be checked to start with it.  The
 * directory and the files written in it are removed when the process exits.
 */
#ifndef AA_FUZZ_FILE_H
#define AA_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[256];
static char fuzz_names[8][64];
static int fuzz_nnames;

/* atexit: removes the files fuzz_put wrote and their directory. */
static void fuzz_cleanup(void)
{
    char path[1024];
    for (int i = 0; i < fuzz_nnames; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, fuzz_names[i]);
        unlink(path);
    }
    rmdir(fuzz_dir);
}

/* Writes data to the temporary directory's file `name`; returns its path
 * (static storage) or aborts. */
static const char *fuzz_put(const char *name, const void *data, size_t size)
{
    static char path[2][1024];
    static int k;
    int known = 0;
    FILE *f;
    if (!fuzz_dir[0]) {
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/aa-fuzz-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(fuzz_dir))
            abort();
        atexit(fuzz_cleanup);
    }
    for (int i = 0; i < fuzz_nnames; i++)
        known |= !strcmp(fuzz_names[i], name);
    if (!known) {
        if (fuzz_nnames == 8 || strlen(name) >= sizeof fuzz_names[0])
            abort();
        strcpy(fuzz_names[fuzz_nnames++], name);
    }
    k ^= 1;
    snprintf(path[k], sizeof path[k], "%s/%s", fuzz_dir, name);
    if (!(f = fopen(path[k], "wb")) || (size && fwrite(data, 1, size, f) != size) || fclose(f))
        abort();
    return path[k];
}

#endif
