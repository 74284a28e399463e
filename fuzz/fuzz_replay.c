/*
 * fuzz/fuzz_replay.c -- replays the seed corpus and the kept crash inputs
 * of a libFuzzer target without libFuzzer: linked with one fuzz_<name>.c,
 * which names its directories in fuzz_replay_dirs, it runs the target's
 * LLVMFuzzerInitialize when it has one, then LLVMFuzzerTestOneInput on
 * every file (sorted) and prints TAP, so `make
 * check` replays them in the release and the sanitizer builds.  Run from
 * the top directory; arguments name other directories.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/aa_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
extern const char *const fuzz_replay_dirs[];

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every file of dir; returns the number of TAP lines so far. */
static int replay_dir(const char *dir, int n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t nn = 0;
    if (!d) {
        printf("not ok %d - %s: cannot open\n", ++n, dir);
        return n;
    }
    while ((e = readdir(d))) {
        char **v;
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || (l > 3 && !strcmp(e->d_name + l - 3, ".md")))
            continue;
        v = realloc(names, (nn + 1) * sizeof *v);
        if (!v)
            break;
        names = v;
        names[nn++] = aa_strdup(e->d_name);
    }
    closedir(d);
    if (nn)
        qsort(names, nn, sizeof *names, name_cmp);
    for (size_t i = 0; i < nn; i++) {
        char path[4096], *data = NULL;
        size_t len = 0;
        aa_err err;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (aa_read_file(path, &data, &len, &err)) {
            printf("not ok %d - %s: %s\n", ++n, path, err.msg);
        } else {
            LLVMFuzzerTestOneInput((const uint8_t *)data, len); /* aborts on failure */
            printf("ok %d - %s\n", ++n, path);
        }
        free(data);
        free(names[i]);
    }
    free(names);
    return n;
}

int main(int argc, char **argv)
{
    int n = 0;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            n = replay_dir(argv[i], n);
    else
        for (size_t i = 0; fuzz_replay_dirs[i]; i++)
            n = replay_dir(fuzz_replay_dirs[i], n);
    printf("1..%d\n", n);
    return 0;
}
