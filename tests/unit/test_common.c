/*
 * tests/unit/test_common.c -- common/: number parsing and formatting, the
 * string buffer, JSON writer escaping and commas, the JSON reader (lines,
 * malformed input), output files (atomic for regular files, symlinks
 * followed, FIFOs written in place), globbing, edit distance.
 */
#include "common/aa_common.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_numbers(void)
{
    double d;
    long l;
    uint32_t u;
    char out[32];
    ok(aa_parse_double("1.5", &d) == 0 && d == 1.5, "parse 1.5");
    ok(aa_parse_double("1e3", &d) == 0 && d == 1000, "parse 1e3");
    ok(aa_parse_double("nan", &d) != 0, "reject nan");
    ok(aa_parse_double("inf", &d) != 0, "reject inf");
    ok(aa_parse_double("", &d) != 0, "reject empty");
    ok(aa_parse_double("1.5x", &d) != 0, "reject trailing junk");
    ok(aa_parse_double(" 1", &d) != 0, "reject leading space");
    ok(aa_parse_double("1e999", &d) != 0, "reject overflow");
    ok(aa_parse_long("-42", &l) == 0 && l == -42, "parse -42");
    ok(aa_parse_long("4x", &l) != 0, "reject 4x");
    ok(aa_parse_u32("4294967295", &u) == 0 && u == 4294967295u, "u32 max");
    ok(aa_parse_u32("4294967296", &u) != 0, "u32 overflow");
    ok(aa_parse_u32("-1", &u) != 0, "u32 negative");
    aa_format_double(out, 0.1);
    is_str(out, "0.1", "format 0.1 shortest");
    aa_format_double(out, 3);
    is_str(out, "3", "format integer");
    aa_format_double(out, 1.0 / 3);
    ok(strtod(out, NULL) == 1.0 / 3, "format 1/3 round-trips (%s)", out);
}

static void test_json(void)
{
    aa_buf b;
    aa_json j;
    aa_buf_init(&b);
    aa_json_init(&j, &b, 0);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "a");
    aa_json_arr_begin(&j);
    aa_json_int(&j, 1);
    aa_json_num(&j, 0.5);
    aa_json_null(&j);
    aa_json_num(&j, NAN);
    aa_json_arr_end(&j);
    aa_json_key(&j, "s\"q");
    aa_json_str(&j, "x\n\x01<");
    aa_json_key(&j, "e");
    aa_json_obj_begin(&j);
    aa_json_obj_end(&j);
    aa_json_obj_end(&j);
    is_str(b.data, "{\"a\":[1,0.5,null,null],\"s\\\"q\":\"x\\n\\u0001<\",\"e\":{}}",
           "compact JSON with escapes");
    aa_buf_reset(&b);
    aa_json_init(&j, &b, 1);
    aa_json_obj_begin(&j);
    aa_json_key(&j, "k");
    aa_json_bool(&j, 1);
    aa_json_obj_end(&j);
    is_str(b.data, "{\n  \"k\": true\n}", "pretty JSON");
    aa_buf_free(&b);
}

static void test_atomic(void)
{
    char dir[] = "/tmp/aa-test-XXXXXX", path[256], *data;
    aa_atomic_file af;
    aa_err err;
    size_t len;
    struct stat st;
    ok(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ok(aa_atomic_open(&af, path, &err) == AA_OK, "atomic open");
    fputs("hello", af.fp);
    ok(stat(path, &st) != 0, "target absent before commit");
    ok(aa_atomic_commit(&af, &err) == AA_OK, "commit");
    ok(aa_read_file(path, &data, &len, &err) == AA_OK && len == 5 &&
           strcmp(data, "hello") == 0,
       "content after commit");
    free(data);
    ok(aa_atomic_open(&af, path, &err) == AA_OK, "second open");
    fputs("partial", af.fp);
    aa_atomic_abort(&af);
    ok(aa_read_file(path, &data, &len, &err) == AA_OK && strcmp(data, "hello") == 0,
       "abort leaves the old file untouched");
    free(data);
    snprintf(path, sizeof path, "%s/no/such/dir/x", dir);
    ok(aa_atomic_open(&af, path, &err) == AA_EENV, "unwritable dir is AA_EENV");
    ok(strstr(err.msg, "no/such/dir") != NULL, "message names the path");
    ok(aa_read_file(path, &data, &len, &err) == AA_EENV, "read of missing file fails");
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ok(system(path) == 0, "cleanup");
}

/* Symbolic links are followed, a FIFO is written in place, "-" is stdout. */
static void test_output_kinds(void)
{
    char dir[] = "/tmp/aa-test-XXXXXX", a[300], b[300], *data;
    aa_err err;
    size_t len;
    struct stat st;
    pid_t pid;
    int status = -1;
    ok(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(a, sizeof a, "%s/target", dir);
    snprintf(b, sizeof b, "%s/link", dir);
    ok(symlink("target", b) == 0, "relative symlink to a new file");
    ok(aa_write_file_atomic(b, "one", 3, &err) == AA_OK, "write through a dangling link");
    ok(lstat(b, &st) == 0 && S_ISLNK(st.st_mode), "the link stays a link");
    ok(aa_read_file(a, &data, &len, &err) == AA_OK && strcmp(data, "one") == 0,
       "the target holds the text");
    free(data);
    ok(chmod(a, 0600) == 0 && aa_write_file_atomic(b, "two", 3, &err) == AA_OK &&
           stat(a, &st) == 0 && (st.st_mode & 0777) == 0600,
       "replacing through the link keeps the target's permissions");
    snprintf(a, sizeof a, "%s/fifo", dir);
    ok(mkfifo(a, 0600) == 0, "mkfifo");
    pid = fork();
    if (pid == 0) { /* the reader: exits 0 when it reads exactly "fifo text" */
        char got[64] = "";
        FILE *f = fopen(a, "r");
        size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
        got[n] = '\0';
        _exit(strcmp(got, "fifo text") != 0);
    }
    alarm(20);
    ok(aa_write_file_atomic(a, "fifo text", 9, &err) == AA_OK, "write to a FIFO: %s",
       err.msg);
    waitpid(pid, &status, 0);
    alarm(0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the FIFO's reader got the text");
    ok(lstat(a, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    snprintf(b, sizeof b, "%s/loop", dir);
    ok(symlink("loop", b) == 0 && aa_write_file_atomic(b, "x", 1, &err) == AA_EENV &&
           strstr(err.msg, "symbolic links") != NULL,
       "a symlink loop is an environment error: %s", err.msg);
    snprintf(a, sizeof a, "rm -rf %s", dir);
    ok(system(a) == 0, "cleanup");
}

static void test_json_read(void)
{
    static const char good[] = "{\n \"a\": [1, 2.5, -3e2, \"x\\u00e9\\ud83d\\ude00\"],\n"
                               " \"big\": 4294967296, \"t\": true, \"n\": null\n}";
    static const struct { const char *text, *want; } bad[] = {
        {"{\"a\": [1, 2", "t.json:1: expected ',' or ']' (the JSON ends early)"},
        {"{\"a\":\n 1,\n}", "t.json:3: expected a member name in quotes"},
        {"{} x", "t.json:1: unexpected text after the JSON value"},
        {"[01]", "t.json:1: expected ',' or ']'"},
        {"\"a\\u0000\"", "t.json:1: \\u0000 in a string"},
        {"\"\\ud800\"", "t.json:1: unpaired surrogate in a \\u escape"},
        {"\"tab\there\"", "t.json:1: control character in a string"},
        {"", "t.json:1: expected a JSON value (the JSON ends early)"},
        {"nul", "t.json:1: unexpected text: expected a JSON value"},
        {"garbage", "t.json:1: malformed number"},
    };
    aa_jv *v;
    aa_err err;
    char deep[1000];
    ok(aa_json_parse(good, sizeof good - 1, "t.json", &v, &err) == AA_OK, "good JSON parses");
    if (v) {
        const aa_jv *a = aa_jv_get(v, "a"), *big = aa_jv_get(v, "big");
        ok(a && a->type == AA_JV_ARR && a->n == 4 && a->line == 2, "array with its line");
        ok(a && a->items[0].is_u64 && a->items[0].u64 == 1 && !a->items[1].is_u64 &&
               a->items[2].num == -300,
           "numbers");
        is_str(a ? a->items[3].str : "", "x\xc3\xa9\xf0\x9f\x98\x80", "escapes decoded to UTF-8");
        ok(big && big->is_u64 && big->u64 == 4294967296ull && big->line == 3,
           "integer above 2^32 kept exact");
        ok(aa_jv_get(v, "t")->type == AA_JV_BOOL && aa_jv_get(v, "n")->type == AA_JV_NULL,
           "literals");
        aa_jv_free(v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = aa_json_parse(bad[i].text, strlen(bad[i].text), "t.json", &v, &err);
        ok(rc == AA_EINPUT && v == NULL, "malformed JSON %zu is bad input", i);
        is_str(rc ? err.msg : "", bad[i].want, "message names file:line");
    }
    memset(deep, '[', sizeof deep);
    ok(aa_json_parse(deep, sizeof deep, "t.json", &v, &err) == AA_EINPUT &&
           strstr(err.msg, "nesting too deep"),
       "deep nesting refused");
}

static void test_strings(void)
{
    aa_err err;
    is_int(aa_edit_distance("anlyze", "analyze"), 1, "edit distance insert");
    is_int(aa_edit_distance("abc", "abc"), 0, "edit distance equal");
    is_int(aa_edit_distance("", "abc"), 3, "edit distance empty");
    ok(aa_glob_match("solve_*", "solve_x"), "glob star");
    ok(!aa_glob_match("solve_?", "solve_xy"), "glob question");
    is_int(aa_err_set(&err, AA_EINPUT, "f.xml:%d: bad", 3), AA_EINPUT, "err_set returns code");
    aa_err_prefix(&err, "reading");
    is_str(err.msg, "reading: f.xml:3: bad", "err prefix");
}

static void rankset_is(const int *r, size_t n, const char *want, const char *name)
{
    char *s = aa_rankset_str(r, n);
    is_str(s, want, name);
    free(s);
}

static void test_rankset(void)
{
    static int big[2048], odd[512], mix[] = {8, 3, 0, 1, 2, 10, 30, 20, 3};
    int two[] = {4, 9}, one[] = {7};
    size_t i;
    for (i = 0; i < 1536; i++)
        big[i] = (int)i;
    rankset_is(big, 1536, "0-1535", "consecutive ranks as a range");
    for (i = 0; i < 512; i++)
        odd[i] = 1 + 4 * (int)i;
    rankset_is(odd, 512, "1-2045:4", "every fourth rank as a stepped range");
    rankset_is(mix, sizeof mix / sizeof *mix, "0-3,8,10-30:10",
               "unsorted with a duplicate: sorted, runs and steps");
    rankset_is(two, 2, "4,9", "two ranks are listed, not stepped");
    for (i = 0; i < 1536; i++) /* all ranks of 2,048 but every fourth from 1 */
        big[i] = (int)(i / 3 * 4 + (i % 3 == 0 ? 0 : i % 3 + 1));
    rankset_is(big, 1536, "0-2046:2,3-2047:4", "the complement of 1-2045:4 in two classes");
    rankset_is(one, 1, "7", "one rank");
    rankset_is(one, 0, "", "no rank");
}

/* aa_select_kth against a sort, on random arrays with many ties and sizes
 * 1..200, every k: the value and the partition around it. */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_select(void)
{
    double v[200], w[200];
    unsigned long long st = 12345;
    size_t n, k, i;
    int bad = 0, badpart = 0;
    for (n = 1; n <= 200; n += 7)
        for (k = 0; k < n; k++) {
            for (i = 0; i < n; i++) {
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                v[i] = w[i] = (double)((st >> 33) % (k % 3 ? 1000 : 5));
            }
            qsort(w, n, sizeof *w, cmp_dbl);
            if (aa_select_kth(v, n, k) != w[k])
                bad++;
            for (i = 0; i < n; i++)
                if ((i < k && v[i] > v[k]) || (i > k && v[i] < v[k]))
                    badpart++;
        }
    ok(bad == 0, "aa_select_kth: the sorted order's value for every k (%d wrong)", bad);
    ok(badpart == 0, "aa_select_kth: nothing larger before k, nothing smaller after (%d)", badpart);
}

int main(void)
{
    test_rankset();
    test_numbers();
    test_select();
    test_json();
    test_atomic();
    test_output_kinds();
    test_json_read();
    test_strings();
    return tap_done();
}
