/*
 * tests/space/mkexp.c -- writes one of the hand-built experiments of
 * tests/space/fixture.h to an XML file, for the Program Space end-to-end
 * tests: space_mkexp SCENARIO OUT.xml [NPROCS], or with OUT a directory
 * ending in '/', one rank-<N>.xml per process (files collection mode).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/space/fixture.h"

int main(int argc, char **argv)
{
    aa_experiment *e;
    aa_err err;
    long np = 0;
    if (argc < 3 || argc > 4 || (argc == 4 && aa_parse_long(argv[3], &np))) {
        fprintf(stderr, "usage: space_mkexp base|renamed|slow|cancel|evil|moved|onefile|huge OUT.xml [NPROCS]\n");
        return 2;
    }
    e = space_fixture(argv[1], (int)np);
    if (e && argv[2][0] && argv[2][strlen(argv[2]) - 1] == '/') {
        /* per-rank files: the same experiment seen through one process */
        aa_process *all = e->processes;
        size_t n = e->nprocesses, i;
        int rc = 0;
        for (i = 0; i < n && !rc; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%srank-%d.xml", argv[2], all[i].rank);
            e->processes = &all[i];
            e->nprocesses = 1;
            if (aa_experiment_write(e, path, &err) != AA_OK) {
                fprintf(stderr, "space_mkexp: %s\n", err.msg);
                rc = 4;
            }
        }
        e->processes = all;
        e->nprocesses = n;
        aa_experiment_free(e);
        return rc;
    }
    if (!e || aa_experiment_write(e, argv[2], &err) != AA_OK) {
        fprintf(stderr, "space_mkexp: %s\n", e ? err.msg : "out of memory");
        aa_experiment_free(e);
        return 4;
    }
    aa_experiment_free(e);
    return 0;
}
