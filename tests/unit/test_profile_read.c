/*
 * tests/unit/test_profile_read.c -- the XML reader of profile/: round trips
 * (write -> read -> write is byte-identical, and the model read back equals
 * the one written) for several shapes, gzip-compressed input, region maps,
 * and every bad-input fixture in tests/data/profile/bad/ giving AA_EINPUT
 * with the expected "FILE:LINE: message".
 */
#include "profile/aa_profile.h"
#include "tests/tap.h"
#include "tests/unit/test_profile_util.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[256];

/* The writer's output conforms to docs/profile.xsd (xmllint is part of
 * libxml2-utils, installed by the build's dependency step). */
static void xsd_valid(const char *path, const char *what)
{
    char cmd[1024];
    int rc;
    if (system("xmllint --version >/dev/null 2>&1") != 0) {
        ok(1, "# SKIP %s: xmllint not installed", what);
        return;
    }
    snprintf(cmd, sizeof cmd, "xmllint --noout --schema docs/profile.xsd '%s' 2>&1 | grep -v ' validates$'", path);
    rc = system(cmd);
    ok(rc != 0, "%s: valid against docs/profile.xsd", what);
}

static void roundtrip(aa_experiment *e, const char *what)
{
    aa_buf b1, b2;
    aa_err err;
    aa_experiment *back = NULL;
    char path[512];
    const char *d;
    aa_buf_init(&b1);
    aa_buf_init(&b2);
    if (!ok(aa_experiment_write_buf(e, &b1, &err) == AA_OK, "%s: written", what)) {
        diag("%s", err.msg);
        goto out;
    }
    if (!ok(aa_experiment_read_memory(b1.data, b1.len, what, &back, &err) == AA_OK,
            "%s: read back", what)) {
        diag("%s", err.msg);
        goto out;
    }
    d = tpu_diff(e, back);
    ok(d == NULL, "%s: model equal after read (%s)", what, d ? d : "same");
    aa_experiment_write_buf(back, &b2, &err);
    ok(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "%s: write-read-write identical", what);
    aa_experiment_free(back);
    back = NULL;
    /* through a file too */
    snprintf(path, sizeof path, "%s/rt.xml", tmpdir);
    ok(aa_experiment_write(e, path, &err) == AA_OK, "%s: written to file", what);
    ok(aa_experiment_read(path, &back, &err) == AA_OK && back && tpu_diff(e, back) == NULL,
       "%s: file read back equal", what);
    xsd_valid(path, what);
out:
    aa_experiment_free(back);
    aa_buf_free(&b1);
    aa_buf_free(&b2);
}

static void test_roundtrips(void)
{
    aa_experiment *e;
    aa_region r = {7, AA_KIND_USER, "<&>\"' ünïcödé ✓ 😀", "f\"n", "dir/a b&c.c", 1, 2, 3, 4, 103};
    aa_process *p;
    aa_thread *t;
    long n;
    static const double odd[] = {5e-324, 1.7976931348623157e308, 0.1, 1.0 / 3, 9007199254740993.0,
                                 123456789012345678.0, 1e-300, 2.5e15, 0};

    e = tpu_build("exp-rt-1", 4, NULL, 4, 2, 20, 40);
    roundtrip(e, "4 ranks x 2 threads, unavailable metrics, throttled nodes");
    aa_experiment_free(e);

    e = tpu_build("one", 1, NULL, 1, 1, 3, 5);
    roundtrip(e, "1 rank");
    aa_experiment_free(e);

    e = tpu_build("per-rank", 16, (const int[]){11}, 1, 1, 5, 9);
    roundtrip(e, "per-rank file of rank 11 of 16");
    aa_experiment_free(e);

    e = aa_experiment_new();
    e->id = strdup("");
    e->program = strdup("");
    e->nprocs = 3;
    roundtrip(e, "empty experiment");
    aa_experiment_add_process(e, 2);
    roundtrip(e, "empty process");
    aa_process_add_thread(aa_experiment_process(e, 2), 5);
    roundtrip(e, "empty thread");
    aa_experiment_free(e);

    e = tpu_build("nasty \"<id>\" & 'q'", 2, NULL, 2, 1, 2, 3);
    aa_experiment_add_region(e, &r);
    aa_experiment_set_attr(e, "args", "  leading and trailing spaces  \ttab\nnewline\r\ncrlf ]]> <!-- x -->");
    aa_experiment_set_attr(e, "empty", "");
    aa_experiment_set_attr(e, "utf8", "naïve 日本語 \xF0\x9F\x98\x80");
    p = aa_experiment_process(e, 1);
    free(p->host);
    p->host = strdup("h&<>\"'");
    aa_process_set_attr(p, "env:OMP_NUM_THREADS", "4");
    t = &p->threads[0];
    n = aa_thread_add_node(e, t, 7, 0);
    memcpy(aa_node_values(e, t, (size_t)n), odd, sizeof odd < e->nmetrics * sizeof(double) ? sizeof odd : e->nmetrics * sizeof(double));
    roundtrip(e, "escaping of names, UTF-8, extreme numbers");
    aa_experiment_free(e);
}

/* Control characters and invalid UTF-8 cannot be carried by XML 1.0: they
 * become U+FFFD, and the result is stable from the first write on. */
static void test_unrepresentable(void)
{
    aa_experiment *e = tpu_build("ctl", 1, NULL, 1, 1, 2, 2), *back = NULL;
    aa_buf b1, b2;
    aa_err err;
    aa_buf_init(&b1);
    aa_buf_init(&b2);
    aa_experiment_set_attr(e, "bad", "a\x01" "b\x1f" "c\xff" "d\xc3");
    ok(aa_experiment_write_buf(e, &b1, &err) == AA_OK, "control chars written");
    ok(aa_experiment_read_memory(b1.data, b1.len, "ctl", &back, &err) == AA_OK, "and read back");
    is_str(back ? aa_experiment_attr(back, "bad") : NULL,
           "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD" "d\xEF\xBF\xBD", "replaced by U+FFFD");
    if (back)
        aa_experiment_write_buf(back, &b2, &err);
    ok(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "second write identical");
    aa_experiment_free(back);
    aa_experiment_free(e);
    aa_buf_free(&b1);
    aa_buf_free(&b2);
}

static int write_gz(const char *path, const char *data, size_t len)
{
    gzFile gz = gzopen(path, "wb");
    if (!gz)
        return -1;
    if (len && gzwrite(gz, data, (unsigned)len) != (int)len) {
        gzclose(gz);
        return -1;
    }
    return gzclose(gz) == Z_OK ? 0 : -1;
}

static void test_gzip(void)
{
    aa_experiment *e = tpu_build("gz", 4, NULL, 4, 1, 10, 30), *back = NULL;
    aa_buf b;
    aa_err err;
    char path[512], *raw = NULL;
    size_t rawlen = 0;
    aa_buf_init(&b);
    aa_experiment_write_buf(e, &b, &err);
    snprintf(path, sizeof path, "%s/rank-0.xml.gz", tmpdir);
    ok(write_gz(path, b.data, b.len) == 0, "gzip file written");
    ok(aa_experiment_read(path, &back, &err) == AA_OK, "gzip file read");
    ok(back && tpu_diff(e, back) == NULL, "gzip content equal");
    aa_experiment_free(back);
    back = NULL;
    /* truncate the compressed file */
    aa_read_file(path, &raw, &rawlen, &err);
    {
        FILE *fp = fopen(path, "wb");
        fwrite(raw, 1, rawlen / 2, fp);
        fclose(fp);
    }
    is_int(aa_experiment_read(path, &back, &err), AA_EINPUT, "truncated gzip file rejected");
    ok(strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, ":1: damaged or truncated gzip data"),
       "message: %s", err.msg);
    ok(back == NULL, "no experiment returned");
    free(raw);
    aa_experiment_free(e);
    aa_buf_free(&b);
}

static void test_regionmap(void)
{
    aa_regionmap *m = aa_regionmap_new("src/a&b.c"), *back = NULL;
    aa_region r1 = {9, AA_KIND_LOOP, "loop@4", "main", "src/a&b.c", 4, 3, 8, 4, 2};
    aa_region r2 = {2, AA_KIND_FUNCTION, "main", "main", "src/a&b.c", 1, 1, 10, 1, 0};
    aa_buf b1, b2;
    aa_err err;
    char path[512];
    const char *dup = "<?xml version=\"1.0\"?>\n<regionmap version=\"1\" source=\"x\">\n"
                      "<region id=\"1\" kind=\"loop\" name=\"a\"/>\n"
                      "<region id=\"1\" kind=\"loop\" name=\"b\"/>\n</regionmap>\n";
    aa_buf_init(&b1);
    aa_buf_init(&b2);
    aa_regionmap_add_region(m, &r1);
    aa_regionmap_add_region(m, &r2);
    snprintf(path, sizeof path, "%s/a.regions.xml", tmpdir);
    ok(aa_regionmap_write(m, path, &err) == AA_OK, "region map written");
    xsd_valid(path, "region map");
    ok(aa_regionmap_read(path, &back, &err) == AA_OK, "region map read");
    if (back) {
        is_str(back->source, "src/a&b.c", "source");
        is_int(back->nregions, 2, "two regions");
        is_int(back->regions[0].id, 2, "sorted by id");
        is_int(back->regions[1].end_col, 4, "end-col");
        aa_regionmap_write_buf(m, &b1, &err);
        aa_regionmap_write_buf(back, &b2, &err);
        is_str(b2.data, b1.data, "region map write-read-write identical");
        aa_regionmap_free(back);
        back = NULL;
    }
    is_int(aa_regionmap_read_memory(b1.data, 40, "cut.regions.xml", &back, &err), AA_EINPUT,
           "truncated region map rejected");
    is_int(aa_regionmap_read_memory(dup, strlen(dup), "dup.regions.xml", &back, &err),
           AA_EINPUT, "duplicate region id in map");
    is_str(err.msg, "dup.regions.xml:4: duplicate region id 1", "message");
    is_int(aa_regionmap_read_memory("<?xml version=\"1.0\"?>\n<experiment version=\"1\"/>\n", 48,
                                    "exp.xml", &back, &err),
           AA_EINPUT, "experiment is not a region map");
    is_str(err.msg, "exp.xml:2: root element is <experiment>, expected <regionmap>", "message");
    is_int(aa_regionmap_read("no/such/file.regions.xml", &back, &err), AA_EINPUT, "missing file");
    ok(strstr(err.msg, "No such file") != NULL, "message: %s", err.msg);
    aa_regionmap_free(m);
    aa_buf_free(&b1);
    aa_buf_free(&b2);
}

static void test_bad_fixtures(void)
{
    const char *dir = "tests/data/profile/bad";
    char line[256], path[512], want[1200];
    FILE *fp;
    int count = 0;
    aa_experiment *e = NULL;
    aa_err err;
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    fp = fopen(path, "r");
    if (!ok(fp != NULL, "fixture index %s", path))
        return;
    while (fgets(line, sizeof line, fp)) {
        char *name = line, *ln, *msg;
        int rc;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\n")] = '\0';
        ln = strchr(name, '\t');
        msg = ln ? strchr(ln + 1, '\t') : NULL;
        if (!ok(msg != NULL, "index line: %s", line))
            continue;
        *ln++ = '\0';
        *msg++ = '\0';
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = aa_experiment_read(path, &e, &err);
        snprintf(want, sizeof want, "%s:%s: %s", path, ln, msg);
        if (!ok(rc == AA_EINPUT && e == NULL && strncmp(err.msg, want, strlen(want)) == 0,
                "%s rejected", name))
            diag("rc %d\n#   got:  %s\n#   want: %s...", rc, err.msg, want);
        aa_experiment_free(e);
        e = NULL;
        count++;
    }
    fclose(fp);
    ok(count >= 30, "%d bad fixtures checked", count);
    snprintf(path, sizeof path, "tests/data/profile/good.xml");
    ok(aa_experiment_read(path, &e, &err) == AA_OK, "the unmodified base fixture is accepted");
    aa_experiment_free(e);
    is_int(aa_experiment_read("tests/data/profile/nonexistent.xml", &e, &err), AA_EINPUT,
           "missing file");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/aa-profile-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir))
        return 1;
    test_roundtrips();
    test_unrepresentable();
    test_gzip();
    test_regionmap();
    test_bad_fixtures();
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            diag("could not remove %s", tmpdir);
    }
    return tap_done();
}
