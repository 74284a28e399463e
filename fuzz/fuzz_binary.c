/*
 * fuzz/fuzz_binary.c -- libFuzzer target for the binary experiment reader
 * (profile/binary.c).  Every input is read twice: as it is, and with its
 * checksums recomputed (so mutations reach the parser behind them).  Any
 * input is accepted or refused with AA_EINPUT (AA_EENV on no memory) and a
 * "fuzz:" message, never a crash, leak or undefined behaviour; what is
 * accepted must pass the model's checks, write as binary and read back to
 * the same bytes, and write as XML that reads back.
 */
#include "profile/aa_profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/binary", "tests/data/binary/fuzz-regress",
                                        NULL};

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Recomputes the header's and every section's checksums in place. */
static void fix_checksums(unsigned char *p, size_t n)
{
    size_t pos = 24;
    if (n < 24)
        return;
    put32(p + 20, (uint32_t)crc32(0L, p, 20));
    while (n - pos >= 32) {
        uint64_t stored = get64(p + pos + 16);
        if (stored > n - pos - 32)
            break;
        put32(p + pos + 24, (uint32_t)crc32(0L, p + pos + 32, (uInt)stored));
        put32(p + pos + 28, (uint32_t)crc32(0L, p + pos, 28));
        pos += 32 + (size_t)stored;
    }
}

static void check(const unsigned char *data, size_t size)
{
    aa_experiment *e = NULL, *back = NULL, *xback = NULL;
    aa_err err;
    int rc = aa_experiment_read_binary_memory(data, size, "fuzz", &e, &err);
    if (rc == AA_OK) {
        aa_buf b1, b2, x;
        aa_buf_init(&b1);
        aa_buf_init(&b2);
        aa_buf_init(&x);
        if (aa_experiment_check(e, &err) != AA_OK ||
            aa_experiment_write_binary_buf(e, &b1, &err) != AA_OK ||
            aa_experiment_read_binary_memory(b1.data, b1.len, "fuzz", &back, &err) != AA_OK ||
            aa_experiment_write_binary_buf(back, &b2, &err) != AA_OK) {
            fprintf(stderr, "accepted input does not round-trip: %s\n", err.msg);
            abort();
        }
        if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
            fprintf(stderr, "write-read-write differs\n");
            abort();
        }
        if (aa_experiment_write_buf(e, &x, &err) != AA_OK ||
            aa_experiment_read_memory(x.data, x.len, "fuzz", &xback, &err) != AA_OK) {
            fprintf(stderr, "accepted input does not go through XML: %s\n", err.msg);
            abort();
        }
        aa_experiment_free(back);
        aa_experiment_free(xback);
        aa_buf_free(&b1);
        aa_buf_free(&b2);
        aa_buf_free(&x);
    } else if ((rc != AA_EINPUT && rc != AA_EENV) ||
               (rc == AA_EINPUT && strncmp(err.msg, "fuzz:", 5) != 0) || e) {
        fprintf(stderr, "unexpected refusal %d: %s\n", rc, err.msg);
        abort();
    }
    aa_experiment_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    check(data, size);
    memcpy(copy, data, size);
    fix_checksums(copy, size);
    check(copy, size);
    free(copy);
    return 0;
}
