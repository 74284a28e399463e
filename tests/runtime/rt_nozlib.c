/*
 * tests/runtime/rt_nozlib.c -- the runtime's copy of the binary experiment
 * writer where libz.so.1 cannot be loaded: built from the runtime's sources
 * with profile/zlib_dl.c told to load a library that does not exist, it
 * writes an experiment of 3 processes x NODES nodes (whole values, as the
 * runtime writes them) as OUT.aab (every section and plane stored, CRC-32
 * computed without zlib) and as OUT.xml; tests/e2e/runtime_binary.t reads
 * the .aab with the tools' reader and compares it with the XML.  Prints
 * "zlib usable: 0".
 *   rt_nozlib OUT.aab OUT.xml NODES
 */
#include "profile/zlib_dl.h"
#include "tests/unit/test_profile_util.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    aa_experiment *e;
    aa_err err;
    aa_buf b;
    int rc;
    if (argc != 4)
        return 2;
    e = tpu_build("nozlib", 3, NULL, 3, 1, 40, atoi(argv[3]));
    aa_experiment_values_whole(e);
    aa_err_clear(&err);
    aa_buf_init(&b);
    rc = aa_experiment_write_binary_buf(e, &b, &err) ||
         aa_write_file_atomic(argv[1], b.data, b.len, &err) ||
         aa_experiment_write(e, argv[2], &err);
    if (rc)
        fprintf(stderr, "rt_nozlib: %s\n", err.msg);
    printf("zlib usable: %d\n", aa_zdl_usable());
    aa_buf_free(&b);
    aa_experiment_free(e);
    return rc ? 1 : 0;
}
