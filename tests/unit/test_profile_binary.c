/*
 * tests/unit/test_profile_binary.c -- the binary experiment form
 * (profile/binary.c): round trips that keep every field and value bit for
 * bit, the one loader (aa_experiment_read / _read_memory take both forms),
 * determinism, size against XML, and a strict reader: every flipped byte
 * and every truncation of a small file is refused with AA_EINPUT and a
 * "name:offset: " message, never accepted, never a crash.
 */
#include "profile/aa_profile.h"
#include "profile/profile_internal.h"
#include "tests/tap.h"
#include "tests/unit/test_profile_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Status of reading data as a binary experiment named "t.aab". */
static int read_status(const void *data, size_t len, aa_err *err)
{
    aa_experiment *e = NULL;
    int rc = aa_experiment_read_memory(data, len, "t.aab", &e, err);
    aa_experiment_free(e);
    return rc;
}

static void test_round_trip(void)
{
    static const int ranks[] = {0, 2, 5};
    aa_experiment *e = tpu_build("run-1", 8, ranks, 3, 2, 9, 25), *back = NULL, *back2 = NULL;
    aa_buf bin, bin2, xml, xml2;
    aa_err err;
    const char *d;
    aa_buf_init(&bin);
    aa_buf_init(&bin2);
    aa_buf_init(&xml);
    aa_buf_init(&xml2);
    /* a host, a pid, attributes, a tree that differs in one thread */
    free(e->processes[1].host);
    e->processes[1].host = strdup("node-1");
    e->processes[1].pid = 4242;
    aa_process_set_attr(&e->processes[2], "binding", "0-3");
    e->processes[2].threads[1].nodes[3].flags = AA_NODE_THROTTLED;
    is_int(aa_experiment_write_binary_buf(e, &bin, &err), AA_OK, "experiment written as binary");
    ok(aa_experiment_is_binary(bin.data, bin.len), "it starts with the magic bytes");
    is_int(aa_experiment_read_memory(bin.data, bin.len, "t.aab", &back, &err), AA_OK,
           "the one loader reads it from memory");
    d = back ? tpu_diff(e, back) : "not read";
    ok(d == NULL, "every field and value comes back (%s)", d ? d : "same");
    aa_experiment_write_buf(e, &xml, &err);
    if (back)
        aa_experiment_write_buf(back, &xml2, &err);
    ok(xml.len == xml2.len && memcmp(xml.data, xml2.data, xml.len) == 0,
       "its XML is the original's, byte for byte");
    if (back)
        aa_experiment_write_binary_buf(back, &bin2, &err);
    ok(bin.len == bin2.len && memcmp(bin.data, bin2.data, bin.len) == 0,
       "writing again gives the same bytes");
    {
        char path[] = "/tmp/aa-test-binary-XXXXXX";
        int fd = mkstemp(path);
        close(fd);
        is_int(aa_experiment_write_binary(e, path, &err), AA_OK, "written to a file");
        is_int(aa_experiment_read(path, &back2, &err), AA_OK, "aa_experiment_read takes the file");
        d = back2 ? tpu_diff(e, back2) : "not read";
        ok(d == NULL, "the file holds the same experiment (%s)", d ? d : "same");
        unlink(path);
    }
    aa_experiment_free(back);
    aa_experiment_free(back2);
    aa_experiment_free(e);
    aa_buf_free(&bin);
    aa_buf_free(&bin2);
    aa_buf_free(&xml);
    aa_buf_free(&xml2);
}

/* NAN and constant columns, no metrics, no processes. */
static void test_edges(void)
{
    aa_experiment *e = tpu_build("edges", 4, NULL, 4, 1, 3, 6), *back = NULL;
    aa_buf b;
    aa_err err;
    const char *d;
    size_t p, i;
    for (p = 0; p < e->nprocesses; p++)
        for (i = 0; i < e->processes[p].threads[0].nnodes; i++) {
            e->processes[p].threads[0].values[i * e->nmetrics + 0] = 7;   /* constant */
            e->processes[p].threads[0].values[i * e->nmetrics + 7] = NAN; /* not measured */
        }
    aa_buf_init(&b);
    aa_experiment_write_binary_buf(e, &b, &err);
    is_int(aa_experiment_read_binary_memory(b.data, b.len, "t.aab", &back, &err), AA_OK,
           "constant and NAN columns read");
    d = back ? tpu_diff(e, back) : "not read";
    ok(d == NULL, "constant and NAN columns come back (%s)", d ? d : "same");
    aa_experiment_free(back);
    aa_experiment_free(e);
    aa_buf_free(&b);

    e = aa_experiment_new();
    e->id = strdup("empty");
    e->program = strdup("p");
    e->nprocs = 1;
    aa_buf_init(&b);
    is_int(aa_experiment_write_binary_buf(e, &b, &err), AA_OK, "empty experiment written");
    is_int(aa_experiment_read_binary_memory(b.data, b.len, "t.aab", &back, &err), AA_OK,
           "empty experiment read");
    aa_experiment_free(back);
    aa_experiment_free(e);
    aa_buf_free(&b);
}

/* What the reader builds grows through the model's API like any other
 * experiment (the arrays have the room the model assumes: ASan checks). */
static void test_grows(void)
{
    aa_experiment *e = tpu_build("grow", 64, NULL, 9, 1, 4, 8), *back = NULL;
    aa_buf b;
    aa_err err;
    int ok_all = 1;
    aa_buf_init(&b);
    aa_experiment_write_binary_buf(e, &b, &err);
    if (aa_experiment_read_binary_memory(b.data, b.len, "t.aab", &back, &err) != AA_OK)
        back = NULL;
    ok(back != NULL, "read back");
    if (back) {
        for (size_t p = 0; p < back->nprocesses; p++) {
            aa_thread *t = &back->processes[p].threads[0];
            ok_all &= aa_thread_add_node(back, t, 0, 0) >= 0;
            ok_all &= aa_process_add_thread(&back->processes[p], 7) != NULL;
        }
        ok_all &= aa_experiment_add_process(back, 40) != NULL;
        ok_all &= aa_experiment_add_metric(back, "papi_tot_ins", "count") >= 0;
        ok(ok_all, "nodes, threads, processes and metrics added");
        is_int(aa_experiment_check(back, &err), AA_OK, "the grown experiment is sound");
    }
    aa_experiment_free(back);
    aa_experiment_free(e);
    aa_buf_free(&b);
}

/* Every flipped byte and every truncation is refused, with a message. */
static void test_corruption(void)
{
    aa_experiment *e = tpu_build("bad", 4, NULL, 4, 1, 4, 5);
    aa_buf b;
    aa_err err;
    size_t i, accepted = 0, unnamed = 0, notinput = 0;
    char *copy;
    aa_buf_init(&b);
    aa_experiment_write_binary_buf(e, &b, &err);
    copy = malloc(b.len);
    for (i = 0; i < b.len; i++) {
        int rc;
        memcpy(copy, b.data, b.len);
        copy[i] ^= 0x5a;
        rc = read_status(copy, b.len, &err);
        if (rc == AA_OK)
            accepted++;
        else if (rc != AA_EINPUT)
            notinput++;
        else if (!starts_with(err.msg, "t.aab:") && i >= 8)
            unnamed++;
    }
    is_int((int)accepted, 0, "no flipped byte is accepted");
    is_int((int)notinput, 0, "every flipped byte is bad input (AA_EINPUT)");
    is_int((int)unnamed, 0, "every message names the file and an offset");
    for (i = 0, accepted = 0, notinput = 0; i < b.len; i++) {
        int rc = read_status(b.data, i, &err);
        if (rc == AA_OK)
            accepted++;
        else if (rc != AA_EINPUT && i >= 8)
            notinput++;
    }
    is_int((int)accepted, 0, "no truncation is accepted");
    is_int((int)notinput, 0, "every truncation is bad input");
    /* a message for a checksum failure, with the section's offset */
    memcpy(copy, b.data, b.len);
    copy[b.len - 40] ^= 1;
    read_status(copy, b.len, &err);
    ok(strstr(err.msg, "t.aab:") && strstr(err.msg, "checksum"), "checksum message: %s",
       err.msg);
    /* a newer version is named as such (header checksum fixed up) */
    {
        unsigned char *u = (unsigned char *)copy;
        uint32_t c;
        memcpy(copy, b.data, b.len);
        u[8] = 3;
        /* the CRC-32 of the first 20 bytes, little-endian, at 20 */
        {
            uint32_t crc = 0xFFFFFFFFu;
            for (int k = 0; k < 20; k++) {
                crc ^= u[k];
                for (int j = 0; j < 8; j++)
                    crc = crc >> 1 ^ (0xEDB88320u & (0u - (crc & 1)));
            }
            c = ~crc;
        }
        u[20] = (unsigned char)c;
        u[21] = (unsigned char)(c >> 8);
        u[22] = (unsigned char)(c >> 16);
        u[23] = (unsigned char)(c >> 24);
        read_status(copy, b.len, &err);
        ok(starts_with(err.msg, "t.aab:8: unsupported binary format version 3"),
           "version message: %s", err.msg);
    }
    free(copy);
    aa_buf_free(&b);
    aa_experiment_free(e);
}

/* Recomputes the header's and every section's CRC-32 in place (to reach
 * the checks behind them). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t k = 0; k < n; k++) {
        crc ^= p[k];
        for (int j = 0; j < 8; j++)
            crc = crc >> 1 ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void fix_checksums(unsigned char *p, size_t n)
{
    size_t pos = 24;
    put_le32(p + 20, crc32_of(p, 20));
    while (n - pos >= 32) {
        uint64_t stored = 0;
        for (int i = 7; i >= 0; i--)
            stored = stored << 8 | p[pos + 16 + i];
        put_le32(p + pos + 24, crc32_of(p + pos + 32, (size_t)stored));
        put_le32(p + pos + 28, crc32_of(p + pos, 28));
        pos += 32 + (size_t)stored;
    }
}

/* The file with its VALS section stored (inflated when compressed), and
 * *at set to the offset of that section's data; checksums recomputed. */
static unsigned char *stored_vals(const unsigned char *p, size_t n, size_t *len, size_t *at)
{
    size_t pos = 24, o = 0;
    unsigned char *out = malloc(n + (1u << 20));
    memcpy(out, p, 24);
    o = 24;
    *at = 0;
    while (n - pos >= 32) {
        uint64_t stored = 0, raw = 0;
        for (int i = 7; i >= 0; i--) {
            stored = stored << 8 | p[pos + 16 + i];
            raw = raw << 8 | p[pos + 8 + i];
        }
        memcpy(out + o, p + pos, 32);
        if (memcmp(p + pos, "VALS", 4) == 0 && p[pos + 4] == 1) {
            uLongf rl = (uLongf)raw;
            uncompress(out + o + 32, &rl, p + pos + 32, (uLong)stored);
            memset(out + o + 4, 0, 4);       /* encoding: stored */
            memcpy(out + o + 16, out + o + 8, 8); /* stored length = raw length */
            *at = o + 32;
            o += 32 + (size_t)raw;
        } else {
            if (memcmp(p + pos, "VALS", 4) == 0)
                *at = o + 32;
            memcpy(out + o + 32, p + pos + 32, (size_t)stored);
            o += 32 + (size_t)stored;
        }
        pos += 32 + (size_t)stored;
    }
    *len = o;
    fix_checksums(out, o);
    return out;
}

/* Version 2: columns of whole counts and of whole nanoseconds are stored
 * as integers, losslessly; a column with one value that is neither keeps
 * the doubles; NaN survives in an integer column. */
/* A big experiment (more rows than one block: compressed planes) gives
 * the bytes of the one-thread writer (want) whatever the writer's thread
 * count and however many columns it gathers at a time. */
static void test_same_bytes(const aa_experiment *e, const aa_buf *want)
{
    static const int threads[] = {2, 4, 8, 16, 0};
    static const size_t cols[] = {1, 3, 7};
    size_t rows = 0, nm = e->nmetrics;
    char path[] = "/tmp/aa-test-binary-XXXXXX";
    int fd = mkstemp(path), same = 1;
    aa_err err;
    for (size_t p = 0; p < e->nprocesses; p++)
        rows += e->processes[p].threads[0].nnodes;
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < sizeof threads / sizeof *threads; i++)
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
            char *data = NULL;
            size_t len = 0;
            aa_binary_set_gather_bytes(cols[c] * rows * sizeof(double));
            if (aa_experiment_write_binary_threads(e, path, threads[i], &err) != AA_OK ||
                aa_read_file(path, &data, &len, &err) != AA_OK || len != want->len ||
                memcmp(data, want->data, len) != 0) {
                diag("threads %d, %zu of %zu columns at a time: other bytes", threads[i], cols[c], nm);
                same = 0;
            }
            free(data);
        }
    aa_binary_set_gather_bytes(0);
    ok(same, "%zu rows: the same bytes with 2, 4, 8, 16 and one per CPU writer threads, "
             "1, 3 and 7 columns gathered at a time", rows);
    unlink(path);
}

static void test_int_columns(void)
{
    /* 64 x 100 rows: two blocks of rows, so a stored VALS section with
     * compressed planes (test_versions has the one-block form) */
    aa_experiment *e = tpu_build("ints", 64, NULL, 64, 1, 30, 100), *e2, *back = NULL;
    aa_buf b, b2;
    aa_err err;
    const char *d;
    size_t p, i, nm;
    uint64_t s = 88172645463325252ULL;
    nm = e->nmetrics;
    for (p = 0; p < e->nprocesses; p++) {
        aa_thread *t = &e->processes[p].threads[0];
        for (i = 0; i < t->nnodes; i++) {
            double *v = t->values + i * nm;
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            v[0] = (double)(s % 1000);                       /* visits: counts */
            v[1] = (double)(s % 4000000000ULL) / 1e9;        /* wall: whole ns */
            v[2] = (double)(s % 900000000ULL) / 1e9 + 1e-12; /* wall_excl: not whole ns */
            v[3] = (double)(s % 3000000000ULL) / 1e9;        /* cpu: whole ns, one NaN */
            v[4] = 1e10 + (double)(s % 1000000007ULL);      /* cycles: counts > 2^53 ns */
            v[5] = p == 3 && i == 2 ? NAN : (double)(s % 99991ULL); /* counts and a NaN */
            v[6] = (double)(s % 1000) * 0.25;                 /* mpi_bytes_sent: quarters */
            v[7] = p == 5 && i == 1 ? 0.5 : (double)(s % 77); /* counts but one half */
        }
    }
    e->processes[7].threads[0].values[3 * nm + 3] = NAN;
    e->processes[1].threads[0].values[0 * nm + 4] = 9007199254740992.0; /* 2^53: still exact */
    aa_buf_init(&b);
    aa_buf_init(&b2);
    is_int(aa_experiment_write_binary_buf(e, &b, &err), AA_OK, "integer columns written");
    is_int(aa_experiment_read_binary_memory(b.data, b.len, "t.aab", &back, &err), AA_OK,
           "integer columns read");
    d = back ? tpu_diff(e, back) : "not read";
    ok(d == NULL, "every value comes back bit for bit, NaN included (%s)", d ? d : "same");
    if (back)
        aa_experiment_write_binary_buf(back, &b2, &err);
    ok(b.len == b2.len && memcmp(b.data, b2.data, b.len) == 0, "writing again gives the same bytes");
    aa_experiment_free(back);
    back = NULL;
    test_same_bytes(e, &b);
    /* the same values 1e-12 s off whole nanoseconds are stored as doubles:
     * the integer form of the times is much smaller */
    e2 = tpu_build("ints", 64, NULL, 64, 1, 30, 100);
    for (p = 0; p < e->nprocesses; p++) {
        aa_thread *t = &e->processes[p].threads[0], *t2 = &e2->processes[p].threads[0];
        memcpy(t2->values, t->values, t->nnodes * nm * sizeof *t->values);
        for (i = 0; i < t->nnodes; i++)
            t2->values[i * nm + 1] += 1e-12;
    }
    aa_buf_reset(&b2);
    aa_experiment_write_binary_buf(e2, &b2, &err);
    ok(b.len + 6400 * 2 < b2.len, "whole nanoseconds as integers: %zu bytes, as doubles: %zu bytes",
       b.len, b2.len);
    aa_experiment_free(e2);
    aa_buf_free(&b);
    aa_buf_free(&b2);
    aa_experiment_free(e);
}

/* Files of version 1 (written before integer columns) still read; a
 * version-1 file may not hold an integer column; damaged integer columns
 * are refused with a message. */
static void test_versions(void)
{
    aa_experiment *e = NULL, *x = NULL;
    aa_err err;
    aa_buf b;
    const char *d;
    unsigned char *u, *s;
    size_t at, slen;
    is_int(aa_experiment_read("tests/data/binary/v1.aab", &e, &err), AA_OK,
           "a version-1 file reads");
    is_int(aa_experiment_read("tests/data/binary/v1.xml", &x, &err), AA_OK, "its XML twin reads");
    d = e && x ? tpu_diff(x, e) : "not read";
    ok(d == NULL, "the version-1 file holds the XML's values (%s)", d ? d : "same");
    aa_experiment_free(e);
    aa_experiment_free(x);

    /* one process, one thread, 3 nodes: one compressed VALS section whose
     * byte planes are stored inside */
    e = tpu_build("v", 1, NULL, 1, 1, 3, 3);
    for (size_t i = 0; i < e->processes[0].threads[0].nnodes; i++)
        e->processes[0].threads[0].values[i * e->nmetrics] = (double)(i + 1);
    aa_buf_init(&b);
    aa_experiment_write_binary_buf(e, &b, &err);
    u = (unsigned char *)b.data;
    ok(u[8] == 2, "the writer writes version 2");
    u[8] = 1;
    fix_checksums(u, b.len);
    is_int(read_status(b.data, b.len, &err), AA_EINPUT, "version 1 with a compressed VALS refused");
    ok(strstr(err.msg, "compressed (version 2 only)") != NULL, "message: %s", err.msg);
    u[8] = 2;
    fix_checksums(u, b.len);
    s = stored_vals(u, b.len, &slen, &at);
    is_int(read_status(s, slen, &err), AA_OK, "the same with VALS stored reads");
    ok(at && s[at] == 2 && s[at + 1] == 0, "visits are an integer column (mode 2, exponent 0)");
    s[8] = 1;
    fix_checksums(s, slen);
    is_int(read_status(s, slen, &err), AA_EINPUT, "version 1 with an integer column refused");
    ok(strstr(err.msg, "unknown mode 2") != NULL, "message: %s", err.msg);
    s[8] = 2;
    s[at + 1] = 10;
    fix_checksums(s, slen);
    is_int(read_status(s, slen, &err), AA_EINPUT, "exponent 10 refused");
    ok(strstr(err.msg, "t.aab:") && strstr(err.msg, "exponent 10 out of range"), "message: %s",
       err.msg);
    s[at + 1] = 0;
    /* plane 7 (the high byte) of row 0: mode, exponent, then 8 x {enc, len, 3 bytes} */
    ok(s[at + 2 + 7 * 12] == 0, "the high byte plane is stored");
    s[at + 2 + 7 * 12 + 9] = 0x40;
    fix_checksums(s, slen);
    is_int(read_status(s, slen, &err), AA_EINPUT, "an integer above 2^53 refused");
    ok(strstr(err.msg, "out of range"), "message: %s", err.msg);
    free(s);
    aa_buf_free(&b);
    aa_experiment_free(e);
}

/* On many ranks the binary form is a fraction of the XML. */
static void test_size(void)
{
    aa_experiment *e = tpu_build("size", 64, NULL, 64, 1, 20, 40);
    aa_buf x, b;
    aa_err err;
    aa_buf_init(&x);
    aa_buf_init(&b);
    aa_experiment_write_buf(e, &x, &err);
    aa_experiment_write_binary_buf(e, &b, &err);
    ok(b.len * 2 < x.len, "64 ranks: binary %zu bytes, XML %zu bytes", b.len, x.len);
    aa_buf_free(&x);
    aa_buf_free(&b);
    aa_experiment_free(e);
}

/* tests/data/binary/v2-big.aab: 48 processes x 91 nodes (more rows than
 * one block), doubles, integer and constant columns, written by the
 * one-thread writer before the threaded one (aa_synth --scenario
 * slow-group --procs 48 --regions 90 --no-counters --binary): written
 * again, by any thread count, it gives the same bytes. */
static void test_big_fixture(void)
{
    aa_experiment *e = NULL;
    aa_buf want, again;
    char *data = NULL;
    size_t len = 0;
    aa_err err;
    aa_buf_init(&want);
    aa_buf_init(&again);
    if (aa_read_file("tests/data/binary/v2-big.aab", &data, &len, &err) == AA_OK)
        aa_buf_add(&want, data, len);
    free(data);
    is_int(aa_experiment_read_binary_memory(want.data, want.len, "v2-big.aab", &e, &err), AA_OK,
           "v2-big.aab read");
    if (e) {
        aa_experiment_write_binary_buf(e, &again, &err);
        ok(again.len == want.len && memcmp(again.data, want.data, want.len) == 0,
           "v2-big.aab written again: the same %zu bytes", want.len);
        test_same_bytes(e, &want);
    }
    aa_experiment_free(e);
    aa_buf_free(&want);
    aa_buf_free(&again);
}

int main(void)
{
    test_round_trip();
    test_edges();
    test_grows();
    test_corruption();
    test_size();
    test_int_columns();
    test_versions();
    test_big_fixture();
    return tap_done();
}
