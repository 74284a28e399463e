/*
 * fuzz/fuzz_elf.c -- libFuzzer target for the embedded region map reader
 * (profile/regionmap_elf.c: ELF32/ELF64 in both byte orders, ar archives,
 * framed maps); `make fuzz-elf`, part of `make fuzz`.
 *
 * Every input goes through aa_regionmap_read_elf_memory.  Besides crashes,
 * leaks and undefined behaviour (ASan+UBSan), it checks the contract: an
 * accepted input gives a map whose ids are unique and that the writer
 * accepts; a rejected one gives AA_EINPUT (or AA_EENV for memory) with a
 * message naming the input ("fuzz...") and no map.  Findings go to
 * tests/data/elf/fuzz-regress/, which tests/unit/test_regionmap_elf.c
 * replays.
 */
#include "profile/aa_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aa_regionmap *m = NULL;
    aa_err err;
    size_t nmaps = 0, i;
    int rc = aa_regionmap_read_elf_memory(data, size, "fuzz", &m, &nmaps, &err);
    if (rc == AA_OK) {
        aa_buf b;
        if (!m) {
            fprintf(stderr, "accepted without a map\n");
            abort();
        }
        for (i = 1; i < m->nregions; i++)
            if (m->regions[i].id <= m->regions[i - 1].id) {
                fprintf(stderr, "merged regions not sorted and unique\n");
                abort();
            }
        aa_buf_init(&b);
        if (aa_regionmap_write_buf(m, &b, &err) != AA_OK) {
            fprintf(stderr, "accepted map does not write: %s\n", err.msg);
            abort();
        }
        aa_buf_free(&b);
    } else if ((rc != AA_EINPUT && rc != AA_EENV) || m ||
               (rc == AA_EINPUT && strncmp(err.msg, "fuzz", 4) != 0)) {
        fprintf(stderr, "bad rejection: status %d, map %p: %s\n", rc, (void *)m, err.msg);
        abort();
    }
    aa_regionmap_free(m);
    return 0;
}
