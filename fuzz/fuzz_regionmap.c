/*
 * fuzz/fuzz_regionmap.c -- libFuzzer target for region maps as collect
 * reads and merges them (profile/xml_read.c, collect/collect.c): the input
 * is a *.regions.xml beside a fixed one-rank profile.  collect must merge
 * it or refuse it with AA_EINPUT naming a file (the map, or the profile a
 * region came from), and a merged experiment
 * must write and read back (no dangling parents, no conflicting ids).
 */
#include "collect/aa_collect.h"
#include "fuzz/fuzz_file.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/regionmap", "tests/data/regionmap/fuzz-regress",
                                        NULL};

static const char rank0[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<experiment xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" id=\"f\" program=\"p\" "
    "nprocs=\"1\">\n  <metrics><metric name=\"visits\" unit=\"count\"/></metrics>\n"
    "  <regions>\n    <region id=\"0\" kind=\"program\" name=\"program\"/>\n"
    "    <region id=\"12\" kind=\"loop\" name=\"loop@42\" function=\"solve\"/>\n  </regions>\n"
    "  <process rank=\"0\" host=\"h\" pid=\"1\"><thread id=\"0\">\n"
    "    <node region=\"0\" parent=\"-1\" v=\"1\"/><node region=\"12\" parent=\"0\" v=\"3\"/>\n"
    "  </thread></process>\n</experiment>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_put("x.regions.xml", data, size);
    const char *r0 = fuzz_put("rank-0.xml", rank0, sizeof rank0 - 1);
    char dir[512];
    aa_collect_options o = {.no_program_maps = 1};
    aa_collect_report rep;
    aa_experiment *e = NULL, *back = NULL;
    aa_err err;
    int rc;
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(r0, '/') - r0), r0);
    rc = aa_collect_dir_opts(dir, &o, &e, &rep, &err);
    if (rc == AA_OK) {
        aa_buf b;
        aa_buf_init(&b);
        if (aa_experiment_write_buf(e, &b, &err) != AA_OK ||
            aa_experiment_read_memory(b.data, b.len, "merged", &back, &err) != AA_OK) {
            fprintf(stderr, "merged experiment does not read back: %s\n", err.msg);
            abort();
        }
        aa_experiment_free(back);
        aa_buf_free(&b);
    } else if (rc != AA_EENV && (rc != AA_EINPUT || !strstr(err.msg, dir))) {
        fprintf(stderr, "status %d, message names no file: %s\n", rc, err.msg);
        abort();
    }
    aa_experiment_free(e);
    aa_collect_report_free(&rep);
    return 0;
}
