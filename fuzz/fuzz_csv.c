/*
 * fuzz/fuzz_csv.c -- libFuzzer target for the CSV reader and what reads it
 * (`make fuzz-csv`, part of `make fuzz`).
 *
 * Every input goes through aa_csv_parse (all header modes) and
 * aa_csv_parse_matrix.  A rejection must be AA_EINPUT with a
 * "fuzz:LINE:COL: " message.  An accepted small matrix is clustered with
 * OPTICS (ordering must be a permutation, labels in range, never -1) and
 * its first column with kmeans1d (labels follow the centres' order).
 */
#include "cluster/aa_cluster.h"
#include "common/aa_csv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_message(int rc, const aa_err *err)
{
    unsigned long line, col;
    if (rc != AA_EINPUT) {
        fprintf(stderr, "unexpected status %d: %s\n", rc, err->msg);
        abort();
    }
    if (sscanf(err->msg, "fuzz:%lu:%lu: ", &line, &col) != 2 || line == 0 || col == 0) {
        fprintf(stderr, "message does not name the position: %s\n", err->msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    aa_csv c;
    aa_csv_matrix m;
    aa_err err;
    int mode, rc;
    for (mode = 0; mode < 3; mode++) {
        rc = aa_csv_parse("fuzz", text, size, mode, 1, &c, &err);
        if (rc)
            check_message(rc, &err);
        else
            aa_csv_free(&c);
    }
    rc = aa_csv_parse_matrix("fuzz", text, size, &m, &err);
    if (rc) {
        check_message(rc, &err);
        return 0;
    }
    if (m.nrows <= 64 && m.ncols <= 8) {
        aa_optics_result r;
        aa_kmeans_result k;
        size_t i, *seen = calloc(m.nrows, sizeof *seen);
        double *col = malloc(m.nrows * sizeof *col);
        if (aa_cluster_optics(m.x, m.nrows, m.ncols, NULL, &r, &err) == 0) {
            for (i = 0; i < m.nrows; i++) {
                if (r.ordering[i] >= m.nrows || seen[r.ordering[i]]++)
                    abort();
                if (r.labels[i] < 0 || (size_t)r.labels[i] >= r.nclusters)
                    abort();
            }
            aa_cluster_optics_free(&r);
        }
        for (i = 0; i < m.nrows; i++)
            col[i] = m.x[i * m.ncols];
        if (aa_cluster_kmeans1d(col, m.nrows, 3, &k, &err) == 0) {
            size_t a, b;
            for (a = 0; a < m.nrows; a++)
                for (b = 0; b < m.nrows; b++)
                    if (col[a] < col[b] && k.labels[a] > k.labels[b])
                        abort();
            aa_cluster_kmeans_free(&k);
        }
        free(seen);
        free(col);
    }
    aa_csv_matrix_free(&m);
    return 0;
}
