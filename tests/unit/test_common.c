/*
 * tests/unit/test_common.c -- common/: number parsing and formatting, the
 * string buffer, JSON writer escaping and commas, atomic files, globbing,
 * edit distance.
 */
#include "common/aa_common.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <sys/stat.h>
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

int main(void)
{
    test_numbers();
    test_json();
    test_atomic();
    test_strings();
    return tap_done();
}
