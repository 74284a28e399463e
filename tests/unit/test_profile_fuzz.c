/*
 * tests/unit/test_profile_fuzz.c -- regression inputs of the profile
 * fuzzer: every file in tests/data/profile/fuzz-regress/, the seed corpus
 * fuzz/corpus/profile/ and tests/data/profile/bad/ goes through
 * aa_experiment_read_memory and aa_regionmap_read_memory with the same
 * checks as fuzz/fuzz_profile.c (status is OK or a "name:line:" input
 * error; accepted input round-trips byte-identically).  Under the sanitizer
 * build (`make check`) crashes and leaks fail the test.  Every input is
 * also tried cut at a few lengths.
 */
#include "profile/aa_profile.h"
#include "tests/tap.h"

#include <dirent.h>
#include <stdlib.h>

static int roundtrip_ok(const aa_experiment *e)
{
    aa_buf b1, b2;
    aa_err err;
    aa_experiment *back = NULL;
    int good;
    aa_buf_init(&b1);
    aa_buf_init(&b2);
    good = aa_experiment_write_buf(e, &b1, &err) == AA_OK &&
           aa_experiment_read_memory(b1.data, b1.len, "rt", &back, &err) == AA_OK &&
           aa_experiment_write_buf(back, &b2, &err) == AA_OK && b1.len == b2.len &&
           memcmp(b1.data, b2.data, b1.len) == 0;
    aa_experiment_free(back);
    aa_buf_free(&b1);
    aa_buf_free(&b2);
    return good;
}

/* 1 when the reader behaved on data[0..len). */
static int feed(const char *data, size_t len)
{
    aa_experiment *e = NULL;
    aa_regionmap *m = NULL;
    aa_err err;
    int rc, good = 1;
    rc = aa_experiment_read_memory(data, len, "input", &e, &err);
    if (rc == AA_OK)
        good = roundtrip_ok(e);
    else if (rc != AA_EINPUT || e || strncmp(err.msg, "input:", 6) != 0)
        good = 0;
    aa_experiment_free(e);
    rc = aa_regionmap_read_memory(data, len, "input", &m, &err);
    if (rc != AA_OK && (rc != AA_EINPUT || m || strncmp(err.msg, "input:", 6) != 0))
        good = 0;
    aa_regionmap_free(m);
    return good;
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        char path[1024], *data = NULL;
        size_t len = 0, cuts[4];
        aa_err err;
        int i, good;
        if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0 ||
            strcmp(de->d_name, "expected.txt") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (aa_read_file(path, &data, &len, &err) != AA_OK)
            continue;
        good = feed(data, len);
        cuts[0] = len / 2;
        cuts[1] = len / 3;
        cuts[2] = len > 1 ? len - 1 : 0;
        cuts[3] = len > 20 ? 20 : len;
        for (i = 0; i < 4; i++) {
            /* an exact-size copy so ASan sees reads past the end */
            char *cut = malloc(cuts[i] ? cuts[i] : 1);
            memcpy(cut, data, cuts[i]);
            good &= feed(cut, cuts[i]);
            free(cut);
        }
        ok(good, "%s", path);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

int main(void)
{
    int n = 0;
    n += run_dir("tests/data/profile/fuzz-regress");
    n += run_dir("fuzz/corpus/profile");
    n += run_dir("tests/data/profile/bad");
    ok(n >= 40, "%d inputs fed", n);
    ok(feed("", 0), "empty input");
    ok(feed(NULL, 0), "NULL input");
    return tap_done();
}
