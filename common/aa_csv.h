/*
 * common/aa_csv.h -- a small, strict CSV reader for the `cluster` and
 * `roughset` commands and anything else that reads tables of numbers.
 * RFC 4180 fields (quotes, "" escapes, quoted newlines), LF or CRLF line
 * ends, blank lines skipped, last line end optional, every row must have as
 * many fields as the first.  Errors are AA_EINPUT with "FILE:LINE:COL: what".
 */
#ifndef AA_CSV_H
#define AA_CSV_H

#include <stddef.h>

#include "common/aa_common.h"

typedef struct aa_csv {
    size_t nrows, ncols; /* data rows (header excluded), fields per row */
    char **header;       /* ncols names, or NULL when there is no header row */
    char **cells;        /* nrows * ncols field texts, row-major */
    size_t *cpos;        /* per cell: 1-based column of the field start */
    size_t *lines;       /* per data row: 1-based line of its first field */
    char *name;          /* file name used in messages */
} aa_csv;

/* Header row handling. */
enum {
    AA_CSV_HEADER_AUTO = 0, /* first row is a header when any of its fields
                               from column `numeric_from` on is not a number */
    AA_CSV_HEADER_NONE = 1,
    AA_CSV_HEADER_ALWAYS = 2,
};

/* Splits text into rows and fields.  name is used in messages. */
int aa_csv_parse(const char *name, const char *text, size_t len, int header_mode,
                 size_t numeric_from, aa_csv *out, aa_err *err);
int aa_csv_read(const char *path, int header_mode, size_t numeric_from, aa_csv *out,
                aa_err *err);
void aa_csv_free(aa_csv *c);

/* Sets err to "NAME:LINE:COL: <fmt>" for cell (row, col); returns AA_EINPUT. */
int aa_csv_cell_error(const aa_csv *c, size_t row, size_t col, aa_err *err, const char *fmt,
                      ...) __attribute__((format(printf, 5, 6)));

/* Numeric matrix: every field of every data row must be a finite number. */
typedef struct aa_csv_matrix {
    size_t nrows, ncols;
    double *x;      /* nrows * ncols, row-major */
    char **header;  /* ncols names or NULL */
} aa_csv_matrix;

int aa_csv_read_matrix(const char *path, aa_csv_matrix *m, aa_err *err);
int aa_csv_parse_matrix(const char *name, const char *text, size_t len, aa_csv_matrix *m,
                        aa_err *err);
void aa_csv_matrix_free(aa_csv_matrix *m);

#endif
