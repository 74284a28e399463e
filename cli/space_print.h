/*
 * cli/space_print.h -- private to cli/: the text and JSON renderings of the
 * Program Space operators' results (space/aa_space.h returns them as
 * data), and the human formatting of a value with its unit.
 */
#ifndef AA_CLI_SPACE_PRINT_H
#define AA_CLI_SPACE_PRINT_H

#include "common/aa_common.h"
#include "space/aa_space.h"

/* v in its unit for people: "1.23 s", "45.6 ms", "1.5 MiB", "12.3 k"
 * (counts), "3.2 UNIT" otherwise; at most 4 significant digits. */
void space_format_value(char out[48], double v, const char *unit);

void space_print_list(aa_buf *out, const aa_space_execution *v, size_t n, int json);
void space_print_show(aa_buf *out, const aa_space_shown *x, int json);
void space_print_query(aa_buf *out, const aa_space_query *q, const aa_space_query_result *r,
                       int json);
void space_print_diff(aa_buf *out, const aa_space_diff_result *r, int json);
void space_print_perfdiff(aa_buf *out, long long a, long long b,
                          const aa_space_perfdiff_options *o,
                          const aa_space_perfdiff_result *r, int json);
/* `prune --list`: "APP PATH [region ID] [reason]" lines, or a JSON array. */
void space_print_prunes(aa_buf *out, const aa_space_prune *v, size_t n, int json);

#endif
