/*
 * tests/unit/test_csv.c -- the CSV reader: quotes and "" escapes, quoted
 * newlines, CRLF, blank lines, missing final newline, BOM, header detection,
 * the numeric matrix view, and every rejection with its FILE:LINE:COL.
 */
#include "common/aa_csv.h"
#include "tests/tap.h"

#include <string.h>

static int parse(const char *text, int mode, size_t from, aa_csv *c, aa_err *err)
{
    return aa_csv_parse("t.csv", text, strlen(text), mode, from, c, err);
}

static void bad(const char *text, const char *want, const char *name)
{
    aa_csv_matrix m;
    aa_err err;
    aa_err_clear(&err);
    int rc = aa_csv_parse_matrix("t.csv", text, strlen(text), &m, &err);
    ok(rc == AA_EINPUT && strncmp(err.msg, want, strlen(want)) == 0, "%s", name);
    if (rc != AA_EINPUT || strncmp(err.msg, want, strlen(want)) != 0)
        diag("rc %d msg '%s', want '%s'", rc, err.msg, want);
}

int main(void)
{
    aa_csv c;
    aa_csv_matrix m;
    aa_err err;

    is_int(parse("id,\"a, \"\"b\"\"\",c\r\nx, 1 ,\"multi\nline\"\r\n\r\n  \ny,2,3", AA_CSV_HEADER_AUTO,
                 1, &c, &err),
           0, "quoted fields, CRLF, blank lines, no final newline");
    ok(c.header && strcmp(c.header[1], "a, \"b\"") == 0, "header with comma and \"\" escape");
    is_int(c.nrows, 2, "two data rows");
    is_str(c.cells[1], "1", "blanks around unquoted fields trimmed");
    is_str(c.cells[2], "multi\nline", "quoted newline kept");
    is_int(c.lines[1], 6, "line numbers count quoted newlines and blank lines");
    is_int(c.cpos[4], 3, "column of a field");
    aa_csv_free(&c);

    is_int(parse("1,2\n3,4\n", AA_CSV_HEADER_AUTO, 0, &c, &err), 0, "numeric first row");
    ok(!c.header && c.nrows == 2, "no header detected");
    aa_csv_free(&c);
    is_int(parse("\xEF\xBB\xBFx\n1\n", AA_CSV_HEADER_AUTO, 0, &c, &err), 0, "BOM");
    ok(c.header && strcmp(c.header[0], "x") == 0, "BOM skipped before the header");
    aa_csv_free(&c);
    is_int(parse("", AA_CSV_HEADER_AUTO, 0, &c, &err), 0, "empty text parses");
    ok(c.nrows == 0 && c.ncols == 0, "... to nothing");
    aa_csv_free(&c);

    is_int(aa_csv_parse_matrix("t.csv", "x,y\n1,-2.5e3\n 3 ,4", 18, &m, &err), 0, "matrix");
    ok(m.nrows == 2 && m.ncols == 2 && m.x[1] == -2500 && m.x[2] == 3 && m.header,
       "matrix values and header");
    aa_csv_matrix_free(&m);

    bad("a,b\n1,2\n3\n", "t.csv:3:2: too few fields", "ragged (short) row");
    bad("a,b\n1,2\n3,4,5\n", "t.csv:3:5: too many fields", "ragged (long) row");
    bad("a\n1\nnan\n", "t.csv:3:1: 'nan' is not a finite number", "NaN rejected");
    bad("a\n1\n-inf\n", "t.csv:3:1: '-inf' is not a finite number", "infinity rejected");
    bad("a\n1\n1e400\n", "t.csv:3:1: '1e400' is not a finite number", "overflow rejected");
    bad("a,b\n1,\n", "t.csv:2:3: empty field", "empty field");
    bad("a,b\n1,x2\n", "t.csv:2:3: 'x2' is not a finite number", "text in a data row");
    bad("1,\"2\n", "t.csv:1:3: unterminated quoted field", "unterminated quote");
    bad("1,\"2\"x\n", "t.csv:1:6: unexpected character after closing quote", "junk after quote");
    bad("1,2\"\n", "t.csv:1:4: quote inside an unquoted field", "stray quote");
    bad("1,2\r3\n", "t.csv:1:4: carriage return", "lone CR");
    bad("a\n", "t.csv:1:1: no data rows", "header only");
    bad("", "t.csv:1:1: no data rows", "empty file");
    {
        const char nul[] = "1,2\n3,\0\n";
        aa_err_clear(&err);
        ok(aa_csv_parse_matrix("t.csv", nul, sizeof nul - 1, &m, &err) == AA_EINPUT &&
               strstr(err.msg, "t.csv:2:3: NUL"),
           "NUL byte rejected");
    }
    is_int(aa_csv_read_matrix("tests/data/cluster/does-not-exist.csv", &m, &err), AA_EENV,
           "missing file is an environment error");
    return tap_done();
}
