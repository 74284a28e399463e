/*
 * profile/binary.c -- the compact binary form of an experiment (".aab"),
 * beside the XML interchange format (docs/profile-format.md, "Binary
 * experiments").  It exists for runs of thousands of processes: the per-rank
 * values are stored once, by metric column, byte-shuffled and compressed
 * with zlib; calling-context trees that many threads share are stored once
 * and referred to by index.
 *
 * Layout (all integers little-endian):
 *
 *   header   8 bytes magic "\x89AAX\r\n\x1a\n", u32 version (2; 1 reads too),
 *            u32 flags (0),
 *            u32 number of sections (5), u32 CRC-32 of the 20 bytes before
 *   section  u32 tag, u32 encoding (1 = zlib), u64 raw length, u64 stored
 *            length, u32 CRC-32 of the stored bytes, u32 CRC-32 of the 28
 *            header bytes before it; then the stored bytes
 *   sections "META" id, program, nprocs, environment, metrics, regions
 *            "PROC" per process: rank, host, pid, unavailable, attributes,
 *                   threads (id, tree index)
 *            "TREE" the distinct trees: node count, {region, parent, flags}
 *            "VALS" per metric: a mode byte (0 = 8 byte planes of every
 *                   value of the column, 1 = one value for all, 2 (version
 *                   2) = an exponent byte e and the 8 byte planes of whole
 *                   numbers k, the value being k / 10^e), the values in
 *                   process, thread, node order; the first column always
 *                   has planes (zeros when there are no metrics), so the
 *                   section's size bounds the number of nodes
 *            "END!" empty; the file ends there
 *   strings  u32 length (0xFFFFFFFF = none) and the bytes, no NUL inside
 *
 * The reader is strict: every count is checked against what is left of the
 * section, every checksum is verified before the data is used, and a
 * malformed file gives AA_EINPUT with "name:offset: what is wrong" (the
 * offset is the file offset of the section, and the byte within its data
 * once decompressed).  What it accepts passes the same checks as the XML
 * reader's, so it writes as XML and reads back.  The sections are inflated
 * as a stream: reading never holds more than the experiment and one column.
 */
#include "profile/aa_profile.h"
#include "profile/profile_internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef AA_ZLIB_DLOPEN /* the runtime's copy: zlib through dlopen, maybe absent */
#include "profile/zlib_dl.h"
#else
#define AA_ZLIB_USABLE() 1
#endif

#define BIN_VERSION 2u     /* written; version 1 (no integer columns) still reads */
#define BIN_HEADER 24u
#define SEC_HEADER 32u
#define NO_STRING 0xFFFFFFFFu
#define MAX_NPROCS (1L << 24)
#define STAGE_FLUSH (1u << 20)
#define ROW_BLOCK 4096u /* rows the reader transposes at a time */
#define PLANE_LEVEL 1 /* byte planes: level 6 saves 2% and takes twice the time */

static const unsigned char bin_magic[8] = {0x89, 'A', 'A', 'X', '\r', '\n', 0x1a, '\n'};
enum { SEC_META, SEC_PROC, SEC_TREE, SEC_VALS, SEC_END, NSECTIONS };
static const char sec_tags[NSECTIONS][5] = {"META", "PROC", "TREE", "VALS", "END!"};
enum { MODE_PLANES = 0, MODE_CONST = 1, MODE_INT = 2 };
/* Integer columns (version 2): every value is k / 10^e for a whole k below
 * 2^53 (counts: e = 0; times in whole nanoseconds: e = 9), stored as the
 * 8 byte planes of k, with INT_NAN for "not measured". */
#define INT_NAN UINT64_MAX
#define INT_MAX_K (1ULL << 53)
#define INT_MAX_EXP 9
static const double pow10_of[INT_MAX_EXP + 1] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
enum { ENC_STORED = 0, ENC_ZLIB = 1 };

int aa_experiment_is_binary(const void *data, size_t len)
{
    return len >= sizeof bin_magic && memcmp(data, bin_magic, sizeof bin_magic) == 0;
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint64_t dbl_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* CRC-32 of any length (zlib's crc32 takes a uInt). */
static uint32_t crc_of(const unsigned char *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* ==== writer ============================================================== */
typedef struct bwriter {
    aa_buf *out;
    aa_buf stage;    /* small fields of the current section, before deflate */
    z_stream z;
    size_t hdr_at;   /* offset of the current section's header in out */
    uint64_t raw;
    int tag, enc, failed;
    int level;
    int threads;     /* compressing a big column's planes */
} bwriter;

/* Deflates n bytes (or finishes the stream) into out. */
static void sec_deflate(bwriter *w, const void *data, size_t n, int finish)
{
    unsigned char chunk[1 << 16];
    const unsigned char *p = data;
    if (w->failed)
        return;
    if (w->enc == ENC_STORED) {
        aa_buf_add(w->out, data, n);
        return;
    }
    do {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        w->z.next_in = (Bytef *)(uintptr_t)p;
        w->z.avail_in = k;
        p += k;
        n -= k;
        do {
            int zr;
            w->z.next_out = chunk;
            w->z.avail_out = sizeof chunk;
            zr = deflate(&w->z, finish && n == 0 ? Z_FINISH : Z_NO_FLUSH);
            if (zr == Z_STREAM_ERROR) {
                w->failed = 1;
                return;
            }
            aa_buf_add(w->out, chunk, sizeof chunk - w->z.avail_out);
            if (zr == Z_STREAM_END)
                break;
        } while (w->z.avail_out == 0 || (finish && n == 0));
    } while (n);
}

static void sec_flush(bwriter *w)
{
    if (w->stage.len)
        sec_deflate(w, w->stage.data, w->stage.len, 0);
    w->raw += w->stage.len;
    aa_buf_reset(&w->stage);
}

static void sec_begin(bwriter *w, int tag, int enc)
{
    unsigned char zero[SEC_HEADER] = {0};
    if (enc == ENC_ZLIB && !AA_ZLIB_USABLE())
        enc = ENC_STORED; /* the runtime without libz.so.1: stored, still readable */
    w->tag = tag;
    w->enc = enc;
    w->hdr_at = w->out->len;
    w->raw = 0;
    aa_buf_add(w->out, zero, sizeof zero);
    memset(&w->z, 0, sizeof w->z);
    if (enc == ENC_ZLIB && deflateInit(&w->z, w->level) != Z_OK)
        w->failed = 1;
}

static void sec_end(bwriter *w)
{
    unsigned char *h;
    size_t stored;
    sec_flush(w);
    if (w->enc == ENC_ZLIB) {
        sec_deflate(w, "", 0, 1);
        deflateEnd(&w->z);
    }
    if (w->failed || w->out->failed)
        return;
    stored = w->out->len - w->hdr_at - SEC_HEADER;
    h = (unsigned char *)w->out->data + w->hdr_at;
    memcpy(h, sec_tags[w->tag], 4);
    le32(h + 4, (uint32_t)w->enc);
    le64(h + 8, w->raw);
    le64(h + 16, stored);
    le32(h + 24, crc_of(h + SEC_HEADER, stored));
    le32(h + 28, crc_of(h, 28));
}

/* Big data goes straight to deflate, small fields through the stage. */
static void put_bytes(bwriter *w, const void *data, size_t n)
{
    if (n >= STAGE_FLUSH) {
        sec_flush(w);
        sec_deflate(w, data, n, 0);
        w->raw += n;
        return;
    }
    aa_buf_add(&w->stage, data, n);
    if (w->stage.len >= STAGE_FLUSH)
        sec_flush(w);
}

static void put_u32(bwriter *w, uint32_t v)
{
    unsigned char b[4];
    le32(b, v);
    put_bytes(w, b, 4);
}

static void put_u64(bwriter *w, uint64_t v)
{
    unsigned char b[8];
    le64(b, v);
    put_bytes(w, b, 8);
}

static void put_str(bwriter *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!s || n >= NO_STRING) {
        put_u32(w, NO_STRING);
        return;
    }
    put_u32(w, (uint32_t)n);
    put_bytes(w, s, n);
}

static void put_attrs(bwriter *w, const aa_attr *a, size_t n)
{
    put_u32(w, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        put_str(w, a[i].name);
        put_str(w, a[i].value);
    }
}

static void write_meta(bwriter *w, const aa_experiment *e)
{
    size_t i;
    sec_begin(w, SEC_META, ENC_ZLIB);
    put_str(w, e->id);
    put_str(w, e->program);
    put_u32(w, (uint32_t)e->nprocs);
    put_attrs(w, e->attrs, e->nattrs);
    put_u32(w, (uint32_t)e->nmetrics);
    for (i = 0; i < e->nmetrics; i++) {
        put_str(w, e->metrics[i].name);
        put_str(w, e->metrics[i].unit);
    }
    put_u32(w, (uint32_t)e->nregions);
    for (i = 0; i < e->nregions; i++) {
        const aa_region *r = &e->regions[i];
        put_u32(w, r->id);
        put_u32(w, r->parent);
        put_u32(w, (uint32_t)r->kind);
        put_u32(w, (uint32_t)r->line);
        put_u32(w, (uint32_t)r->col);
        put_u32(w, (uint32_t)r->end_line);
        put_u32(w, (uint32_t)r->end_col);
        put_str(w, r->name);
        put_str(w, r->function);
        put_str(w, r->file);
    }
    sec_end(w);
}

/* ---- distinct trees: open addressing over a hash of the node arrays ---- */
typedef struct treeset {
    const aa_thread **trees; /* first thread holding each distinct tree */
    size_t n, cap;
    uint32_t *slots;         /* index + 1, 0 = empty */
    size_t nslots;
} treeset;

static uint64_t tree_hash(const aa_thread *t)
{
    uint64_t h = 1469598103934665603ULL ^ t->nnodes;
    for (size_t i = 0; i < t->nnodes; i++) {
        h = (h ^ t->nodes[i].region) * 1099511628211ULL;
        h = (h ^ (uint32_t)t->nodes[i].parent) * 1099511628211ULL;
        h = (h ^ t->nodes[i].flags) * 1099511628211ULL;
    }
    return h;
}

static int tree_same(const aa_thread *a, const aa_thread *b)
{
    if (a->nnodes != b->nnodes)
        return 0;
    for (size_t i = 0; i < a->nnodes; i++)
        if (a->nodes[i].region != b->nodes[i].region || a->nodes[i].parent != b->nodes[i].parent ||
            a->nodes[i].flags != b->nodes[i].flags)
            return 0;
    return 1;
}

/* Index of t's tree in the set, adding it if new; -1 on no memory. */
static long treeset_index(treeset *s, const aa_thread *t)
{
    uint64_t h = tree_hash(t);
    size_t i;
    if (2 * (s->n + 1) > s->nslots) {
        size_t ns = s->nslots ? 2 * s->nslots : 64, k;
        uint32_t *slots = calloc(ns, sizeof *slots);
        if (!slots)
            return -1;
        for (k = 0; k < s->n; k++) {
            size_t j = tree_hash(s->trees[k]) & (ns - 1);
            while (slots[j])
                j = (j + 1) & (ns - 1);
            slots[j] = (uint32_t)k + 1;
        }
        free(s->slots);
        s->slots = slots;
        s->nslots = ns;
    }
    for (i = h & (s->nslots - 1); s->slots[i]; i = (i + 1) & (s->nslots - 1))
        if (tree_same(s->trees[s->slots[i] - 1], t))
            return (long)s->slots[i] - 1;
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        const aa_thread **v = realloc(s->trees, nc * sizeof *v);
        if (!v)
            return -1;
        s->trees = v;
        s->cap = nc;
    }
    s->trees[s->n] = t;
    s->slots[i] = (uint32_t)s->n + 1;
    return (long)s->n++;
}

static int write_procs_trees(bwriter *w, const aa_experiment *e)
{
    treeset ts = {0};
    size_t p, t, i;
    int rc = 0;
    sec_begin(w, SEC_PROC, ENC_ZLIB);
    put_u32(w, (uint32_t)e->nprocesses);
    for (p = 0; p < e->nprocesses && !rc; p++) {
        const aa_process *pr = &e->processes[p];
        put_u32(w, (uint32_t)pr->rank);
        put_str(w, pr->host);
        put_u64(w, (uint64_t)pr->pid);
        put_u32(w, (uint32_t)pr->nunavailable);
        for (i = 0; i < pr->nunavailable; i++)
            put_str(w, pr->unavailable[i]);
        put_attrs(w, pr->attrs, pr->nattrs);
        put_u32(w, (uint32_t)pr->nthreads);
        for (t = 0; t < pr->nthreads; t++) {
            long k = treeset_index(&ts, &pr->threads[t]);
            if (k < 0) {
                rc = -1;
                break;
            }
            put_u32(w, (uint32_t)pr->threads[t].id);
            put_u32(w, (uint32_t)k);
        }
    }
    sec_end(w);
    sec_begin(w, SEC_TREE, ENC_ZLIB);
    put_u32(w, (uint32_t)ts.n);
    for (i = 0; i < ts.n && !rc; i++) {
        const aa_thread *th = ts.trees[i];
        put_u32(w, (uint32_t)th->nnodes);
        for (size_t k = 0; k < th->nnodes; k++) {
            put_u32(w, th->nodes[k].region);
            put_u32(w, (uint32_t)th->nodes[k].parent);
            put_u32(w, th->nodes[k].flags);
        }
    }
    sec_end(w);
    free(ts.trees);
    free(ts.slots);
    return rc;
}

/* One byte plane of a column, encoded: zlib-compressed, or stored when a
 * sample of it does not compress (the low mantissa bytes of measured values
 * are noise: deflating them costs time and saves nothing). */
typedef struct plane_enc {
    const unsigned char *p; /* the plane, n bytes */
    size_t n;
    int stored;             /* a rank file: stored within the section's stream */
    unsigned char *zbuf;    /* the compressed bytes, zl of them (zcap allocated) */
    size_t zcap, zl;
    int enc, failed;
} plane_enc;

static void plane_encode(plane_enc *pe)
{
    size_t n = pe->n, sample = n < 65536 ? n : 65536;
    uLongf zl = compressBound(n);
    pe->enc = pe->stored || !AA_ZLIB_USABLE() ? ENC_STORED : ENC_ZLIB;
    pe->failed = 0;
    if (pe->enc == ENC_STORED)
        return;
    if (zl > pe->zcap) {
        unsigned char *v = realloc(pe->zbuf, zl);
        if (!v) {
            pe->failed = 1;
            return;
        }
        pe->zbuf = v;
        pe->zcap = zl;
    }
    if (sample >= 4096) {
        uLongf sl = pe->zcap;
        if (compress2(pe->zbuf, &sl, pe->p, sample, 1) != Z_OK) {
            pe->failed = 1;
            return;
        }
        if (sl > sample * 9 / 10)
            pe->enc = ENC_STORED;
    }
    if (pe->enc == ENC_ZLIB) {
        zl = pe->zcap;
        if (compress2(pe->zbuf, &zl, pe->p, n, PLANE_LEVEL) != Z_OK) {
            pe->failed = 1;
            return;
        }
        pe->zl = zl;
        if (zl >= n)
            pe->enc = ENC_STORED;
    }
}

/* Puts an encoded plane: its encoding byte, length and bytes. */
static void plane_emit(bwriter *w, const plane_enc *pe)
{
    unsigned char h[9];
    int z = pe->enc == ENC_ZLIB;
    if (pe->failed) {
        w->failed = 1;
        return;
    }
    h[0] = (unsigned char)pe->enc;
    le64(h + 1, z ? pe->zl : pe->n);
    put_bytes(w, h, sizeof h);
    put_bytes(w, z ? pe->zbuf : pe->p, z ? pe->zl : pe->n);
}

/* The 8 planes of a column encoded by up to `threads` threads (the
 * caller's one of them): each plane is compressed on its own, so the bytes
 * are those of encoding them one after the other. */
typedef struct plane_jobs {
    plane_enc *pe;
    int next;
    pthread_mutex_t lock;
} plane_jobs;

static void *plane_worker(void *arg)
{
    plane_jobs *j = arg;
    for (;;) {
        int i;
        pthread_mutex_lock(&j->lock);
        i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= 8)
            return NULL;
        plane_encode(&j->pe[i]);
    }
}

static void planes_encode(plane_enc pe[8], int threads)
{
    plane_jobs j = {pe, 0, PTHREAD_MUTEX_INITIALIZER};
    pthread_t tid[8];
    int started = 0;
    if (pe[0].stored)
        threads = 1; /* nothing to compress */
    for (int t = 1; t < threads && t < 8; t++)
        if (pthread_create(&tid[started], NULL, plane_worker, &j) == 0)
            started++;
    plane_worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&j.lock);
}

/* k with d == k / 10^e exactly (k at most 2^53), INT_NAN for NaN; or -1
 * when d has no such form. */
static int int_of(double d, int e, uint64_t *k)
{
    double x;
    if (isnan(d)) {
        *k = INT_NAN;
        return 0;
    }
    if (e == 0) {
        if (!(d >= 0 && d <= (double)INT_MAX_K) || signbit(d))
            return -1;
        *k = (uint64_t)d;
        return (double)*k == d ? 0 : -1;
    }
    x = d * pow10_of[e];
    if (!(x >= 0 && x <= (double)INT_MAX_K) || signbit(d))
        return -1;
    /* x + 0.5 is exact below 2^52: rounding half up, as llround does here */
    *k = x < 4503599627370496.0 ? (uint64_t)(x + 0.5) : (uint64_t)llround(x);
    return (double)*k / pow10_of[e] == d ? 0 : -1;
}

/* Splits u into the 8 byte planes at row r. */
static void plane_put(unsigned char *planes, size_t rows, size_t r, uint64_t u)
{
    for (int b = 0; b < 8; b++)
        planes[(size_t)b * rows + r] = (unsigned char)(u >> (8 * b));
}

/* Metrics m0 .. m0+g-1's values in process, thread, node order into
 * cols + j * rows (NaN made the one NaN), in one pass over the values (a
 * column alone is read with a stride of the row); whole[j] is 1 when every
 * value of column j is a whole count (int_of, e = 0). */
static void gather_columns(const aa_experiment *e, size_t m0, size_t g, size_t rows,
                           double *cols, int *whole)
{
    size_t p, t, i, j, r = 0, nm = e->nmetrics;
    for (j = 0; j < g; j++)
        whole[j] = 1;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++) {
            const aa_thread *th = &e->processes[p].threads[t];
            for (i = 0; i < th->nnodes; i++, r++) {
                const double *v = th->values + i * nm + m0;
                for (j = 0; j < g; j++) {
                    double d = v[j];
                    uint64_t k;
                    cols[j * rows + r] = isnan(d) ? NAN : d;
                    if (whole[j])
                        whole[j] = int_of(d, 0, &k) == 0;
                }
            }
        }
}

/* The planes of one column: whole numbers k of value * 10^e when every
 * value has that form (*e: 0 for counts, else 9 for whole nanoseconds,
 * tried when not whole), else the doubles' bits.  Returns the mode. */
static int column_planes(const double *col, size_t rows, int whole, unsigned char *planes,
                         int *e)
{
    size_t r;
    uint64_t k = 0;
    if (whole) {
        *e = 0;
        for (r = 0; r < rows; r++) {
            int_of(col[r], 0, &k);
            plane_put(planes, rows, r, k);
        }
        return MODE_INT;
    }
    *e = 9;
    for (r = 0; r < rows && int_of(col[r], 9, &k) == 0; r++)
        plane_put(planes, rows, r, k);
    if (r == rows)
        return MODE_INT;
    for (r = 0; r < rows; r++)
        plane_put(planes, rows, r, dbl_bits(col[r]));
    return MODE_PLANES;
}

/* Column bytes gathered at a time: a group of columns is one pass over
 * the values. */
#define GATHER_BYTES (32u << 20) /* 16,384 x 500 rows: one column at a time, as before */
static size_t gather_bytes = GATHER_BYTES;

void aa_binary_set_gather_bytes(size_t bytes)
{
    gather_bytes = bytes ? bytes : GATHER_BYTES;
}

/* One column: every value of metric m, in process, thread, node order:
 * one value when all are the same, integers when every value is a whole
 * count (e = 0) or whole nanoseconds (e = 9), else the doubles' bits.  The
 * columns are gathered a group at a time (the rows are strided in memory)
 * and then read in order; a big column's 8 planes are compressed on
 * w->threads threads. */
static int write_values(bwriter *w, const aa_experiment *e)
{
    size_t rows = 0, m, m0, g = 1, p, t, r, nm = e->nmetrics;
    unsigned char *planes;
    double *cols;
    int *whole;
    plane_enc pe[8];
    int small, failed = 0;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++)
            rows += e->processes[p].threads[t].nnodes;
    /* one block of rows (a rank file): one zlib stream over stored planes,
     * since inflating 8 small streams a column costs more than the data */
    small = rows <= ROW_BLOCK;
    sec_begin(w, SEC_VALS, small ? ENC_ZLIB : ENC_STORED);
    if (nm && rows) {
        g = gather_bytes / (rows * sizeof *cols);
        g = g < 1 ? 1 : g > nm ? nm : g;
    }
    planes = malloc(rows ? rows * 8 : 1);
    cols = malloc(rows ? g * rows * sizeof *cols : 1);
    whole = malloc(g * sizeof *whole);
    if (!planes || !cols || !whole) {
        free(planes);
        free(cols);
        free(whole);
        return -1;
    }
    memset(pe, 0, sizeof pe);
    for (int b = 0; b < 8; b++) {
        pe[b].p = planes + (size_t)b * rows;
        pe[b].n = rows;
        pe[b].stored = small;
    }
    /* column 0 always has planes (a column of zeros when there are no
     * metrics), so the section's size bounds the number of rows */
    for (m0 = 0; m0 < (nm ? nm : 1); m0 += g) {
        size_t ng = nm ? (nm - m0 < g ? nm - m0 : g) : 1;
        if (nm)
            gather_columns(e, m0, ng, rows, cols, whole);
        for (m = m0; m < m0 + ng; m++) {
            const double *col = cols + (m - m0) * rows;
            unsigned char mode[2] = {MODE_PLANES, 0};
            uint64_t first = 0;
            int constant = m > 0 && rows, ex = 0;
            if (nm && rows)
                first = dbl_bits(col[0]);
            for (r = 1; r < rows && constant; r++)
                constant = dbl_bits(col[r]) == first;
            if (constant) {
                unsigned char c[9];
                c[0] = MODE_CONST;
                le64(c + 1, first);
                put_bytes(w, c, sizeof c);
                continue;
            }
            if (!nm) {
                memset(planes, 0, rows * 8);
            } else {
                mode[0] = (unsigned char)column_planes(col, rows, whole[m - m0], planes, &ex);
                mode[1] = (unsigned char)ex;
            }
            put_bytes(w, mode, mode[0] == MODE_INT ? 2 : 1);
            planes_encode(pe, w->threads);
            for (int b = 0; b < 8; b++) {
                plane_emit(w, &pe[b]);
                failed |= pe[b].failed;
            }
        }
    }
    for (int b = 0; b < 8; b++)
        free(pe[b].zbuf);
    free(planes);
    free(cols);
    free(whole);
    sec_end(w);
    return failed ? -1 : 0;
}

/* The writer's thread count: 0 is one per online CPU, at most 16. */
static int writer_threads(int threads)
{
    long n = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static int write_binary_buf(const aa_experiment *e, aa_buf *b, int threads, aa_err *err)
{
    bwriter w;
    unsigned char h[BIN_HEADER];
    int rc;
    if (!e)
        return aa_err_set(err, AA_EUSAGE, "no experiment to write");
    if ((rc = aa_experiment_check(e, err)))
        return rc;
    if (e->nmetrics > 0xFFFFu || e->nprocs < 1 || e->nprocs > MAX_NPROCS)
        return aa_err_set(err, AA_EUSAGE, "experiment out of the binary format's range");
    memset(&w, 0, sizeof w);
    w.out = b;
    w.level = 6;
    w.threads = writer_threads(threads);
    aa_buf_init(&w.stage);
    memcpy(h, bin_magic, 8);
    le32(h + 8, BIN_VERSION);
    le32(h + 12, 0);
    le32(h + 16, NSECTIONS);
    le32(h + 20, crc_of(h, 20));
    aa_buf_add(b, h, sizeof h);
    write_meta(&w, e);
    if (write_procs_trees(&w, e) || write_values(&w, e))
        w.failed = 1;
    sec_begin(&w, SEC_END, ENC_ZLIB);
    sec_end(&w);
    aa_buf_free(&w.stage);
    if (w.failed || b->failed || w.stage.failed)
        return aa_err_set(err, AA_EENV, "out of memory writing binary experiment");
    return AA_OK;
}

int aa_experiment_write_binary_buf(const aa_experiment *e, aa_buf *b, aa_err *err)
{
    return write_binary_buf(e, b, 1, err);
}

int aa_experiment_write_binary_threads(const aa_experiment *e, const char *path, int threads,
                                       aa_err *err)
{
    aa_buf b;
    int rc;
    aa_buf_init(&b);
    rc = write_binary_buf(e, &b, threads, err);
    if (rc == AA_OK)
        rc = aa_write_file_atomic(path, b.data, b.len, err);
    else
        aa_err_prefix(err, "%s", path);
    aa_buf_free(&b);
    return rc;
}

int aa_experiment_write_binary(const aa_experiment *e, const char *path, aa_err *err)
{
    return aa_experiment_write_binary_threads(e, path, 1, err);
}

/* ==== reader ============================================================== */
typedef struct breader {
    unsigned version;     /* of the file: 1 or 2 */
    const unsigned char *data;
    size_t len, pos;      /* pos: next section header in data */
    const char *name;
    aa_err *err;
    /* the section being read */
    int tag;
    size_t sec_at;        /* file offset of its header */
    uint64_t raw_len, got; /* raw bytes promised / handed out so far */
    z_stream z;          /* next_in: the cursor in stored sections too */
    int enc, zinit, zend;
    unsigned char buf[1 << 16];
    size_t bpos, blen;
} breader;

static int bfail(breader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bfail(breader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->zinit)
        return aa_err_set(r->err, AA_EINPUT, "%s:%zu: section %s, byte %llu of its data: %s",
                          r->name, r->sec_at, sec_tags[r->tag],
                          (unsigned long long)(r->got - (r->blen - r->bpos)), msg);
    return aa_err_set(r->err, AA_EINPUT, "%s:%zu: %s", r->name, r->sec_at, msg);
}

static int bnomem(breader *r)
{
    return aa_err_set(r->err, AA_EENV, "%s: out of memory reading binary experiment", r->name);
}

/* Reads and checks the header of section tag at r->pos, starts inflating. */
static int sec_open(breader *r, int tag)
{
    const unsigned char *h = r->data + r->pos;
    uint64_t stored;
    r->sec_at = r->pos;
    r->tag = tag;
    if (r->len - r->pos < SEC_HEADER)
        return bfail(r, "file ends before section %s (truncated)", sec_tags[tag]);
    if (crc_of(h, 28) != rd32(h + 28))
        return bfail(r, "checksum mismatch in the header of section %s", sec_tags[tag]);
    if (memcmp(h, sec_tags[tag], 4) != 0)
        return bfail(r, "expected section %s here", sec_tags[tag]);
    if (rd32(h + 4) != ENC_STORED && rd32(h + 4) != ENC_ZLIB)
        return bfail(r, "section %s: unknown encoding %u", sec_tags[tag], rd32(h + 4));
    r->enc = (int)rd32(h + 4);
    r->raw_len = rd64(h + 8);
    stored = rd64(h + 16);
    if (r->enc == ENC_STORED && stored != r->raw_len)
        return bfail(r, "section %s: stored, but raw length %llu differs from stored length %llu",
                     sec_tags[tag], (unsigned long long)r->raw_len, (unsigned long long)stored);
    if (stored > r->len - r->pos - SEC_HEADER)
        return bfail(r, "section %s: %llu stored bytes run past the end of the file (truncated)",
                     sec_tags[tag], (unsigned long long)stored);
    /* deflate cannot shrink by more than about 1032:1 */
    if (r->raw_len / 1032 > stored + 1)
        return bfail(r, "section %s: raw length %llu impossible for %llu stored bytes",
                     sec_tags[tag], (unsigned long long)r->raw_len, (unsigned long long)stored);
    if (crc_of(h + SEC_HEADER, (size_t)stored) != rd32(h + 24))
        return bfail(r, "checksum mismatch in section %s (corrupt data)", sec_tags[tag]);
    memset(&r->z, 0, sizeof r->z);
    if (r->enc == ENC_ZLIB && inflateInit(&r->z) != Z_OK)
        return bnomem(r);
    r->zinit = 1;
    r->zend = 0;
    r->z.next_in = (Bytef *)(uintptr_t)(h + SEC_HEADER);
    r->z.avail_in = 0;
    r->got = 0;
    r->bpos = r->blen = 0;
    r->pos += SEC_HEADER + (size_t)stored;
    return AA_OK;
}

/* Inflates up to n bytes into out (at most what is left of the section). */
static int sec_inflate(breader *r, unsigned char *out, size_t n, size_t *done)
{
    const unsigned char *end = r->data + r->pos;
    *done = 0;
    if (r->enc == ENC_STORED) {
        size_t left = (size_t)(end - r->z.next_in);
        *done = n < left ? n : left;
        memcpy(out, r->z.next_in, *done);
        r->z.next_in += *done;
        r->zend = r->z.next_in == end;
        r->got += *done;
        return AA_OK;
    }
    while (*done < n && !r->zend) {
        int zr;
        size_t want = n - *done;
        if (want > (1u << 30))
            want = 1u << 30;
        if (r->z.avail_in == 0) {
            size_t left = (size_t)(end - r->z.next_in);
            r->z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
        }
        r->z.next_out = out + *done;
        r->z.avail_out = (uInt)want;
        zr = inflate(&r->z, Z_NO_FLUSH);
        *done += want - r->z.avail_out;
        if (zr == Z_STREAM_END)
            r->zend = 1;
        else if (zr == Z_BUF_ERROR && r->z.avail_in == 0 && r->z.next_in == end)
            return bfail(r, "compressed data ends early");
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            return bfail(r, "corrupt compressed data (%s)", r->z.msg ? r->z.msg : "zlib error");
    }
    r->got += *done;
    if (r->got > r->raw_len)
        return bfail(r, "more data than the %llu bytes the header gives",
                     (unsigned long long)r->raw_len);
    return AA_OK;
}

/* n bytes of a stored section in place (no copy). */
static int sec_ptr(breader *r, size_t n, const unsigned char **p)
{
    size_t left = (size_t)(r->data + r->pos - r->z.next_in);
    if (n > left)
        return bfail(r, "%zu bytes needed, %zu left in the section", n, left);
    *p = r->z.next_in;
    r->z.next_in += n;
    r->got += n;
    r->zend = r->z.next_in == r->data + r->pos;
    return AA_OK;
}

/* Hands out exactly n raw bytes of the section. */
static int sec_get(breader *r, void *out, size_t n)
{
    unsigned char *o = out;
    if (r->enc == ENC_STORED) {
        const unsigned char *p = NULL;
        int rc = sec_ptr(r, n, &p);
        if (!rc)
            memcpy(o, p, n);
        return rc;
    }
    while (n) {
        size_t k = r->blen - r->bpos, done;
        int rc;
        if (k) {
            if (k > n)
                k = n;
            memcpy(o, r->buf + r->bpos, k);
            r->bpos += k;
            o += k;
            n -= k;
            continue;
        }
        if (n >= sizeof r->buf) { /* large reads bypass the buffer */
            if ((rc = sec_inflate(r, o, n, &done)))
                return rc;
            r->bpos = r->blen = 0;
            if (done < n)
                return bfail(r, "section data ends %zu bytes early", n - done);
            return AA_OK;
        }
        if ((rc = sec_inflate(r, r->buf, sizeof r->buf, &done)))
            return rc;
        r->bpos = 0;
        r->blen = done;
        if (!done)
            return bfail(r, "section data ends %zu bytes early", n);
    }
    return AA_OK;
}

/* Raw bytes of the section not handed out yet (for bounding counts). */
static uint64_t sec_left(const breader *r)
{
    uint64_t handed = r->got - (r->blen - r->bpos);
    return r->raw_len > handed ? r->raw_len - handed : 0;
}

static int sec_close(breader *r)
{
    unsigned char extra;
    size_t done;
    int rc = AA_OK;
    if (r->bpos != r->blen)
        rc = bfail(r, "%zu unused bytes at the end of the section", r->blen - r->bpos);
    else if ((rc = sec_inflate(r, &extra, 1, &done)) == AA_OK && done)
        rc = bfail(r, "unused bytes at the end of the section");
    else if (rc == AA_OK && (r->got != r->raw_len || !r->zend))
        rc = bfail(r, "section holds %llu bytes, its header says %llu",
                   (unsigned long long)r->got, (unsigned long long)r->raw_len);
    else if (rc == AA_OK && r->z.next_in != r->data + r->pos)
        rc = bfail(r, "stored bytes after the end of the compressed data");
    if (r->enc == ENC_ZLIB)
        inflateEnd(&r->z);
    r->zinit = 0;
    return rc;
}

static int get_u32(breader *r, uint32_t *v)
{
    unsigned char b[4];
    int rc = sec_get(r, b, 4);
    *v = rc ? 0 : rd32(b);
    return rc;
}

static int get_u64(breader *r, uint64_t *v)
{
    unsigned char b[8];
    int rc = sec_get(r, b, 8);
    *v = rc ? 0 : rd64(b);
    return rc;
}

/* A count of items of at least `min` bytes each, checked against what is
 * left of the section. */
static int get_count(breader *r, const char *what, size_t min, uint32_t *n)
{
    int rc = get_u32(r, n);
    if (rc)
        return rc;
    if ((uint64_t)*n * min > sec_left(r))
        return bfail(r, "%u %s cannot fit in the %llu bytes left", *n, what,
                     (unsigned long long)sec_left(r));
    return AA_OK;
}

/* A string: *s is NULL for "none" when allowed, else a new string. */
static int get_str(breader *r, const char *what, int may_be_none, char **s)
{
    uint32_t n;
    int rc;
    *s = NULL;
    if ((rc = get_u32(r, &n)))
        return rc;
    if (n == NO_STRING) {
        if (may_be_none)
            return AA_OK;
        return bfail(r, "%s is missing", what);
    }
    if (n > sec_left(r))
        return bfail(r, "%s: length %u runs past the end of the section", what, n);
    if (!(*s = malloc((size_t)n + 1)))
        return bnomem(r);
    if ((rc = sec_get(r, *s, n))) {
        free(*s);
        *s = NULL;
        return rc;
    }
    (*s)[n] = '\0';
    if (strlen(*s) != n) {
        free(*s);
        *s = NULL;
        return bfail(r, "%s holds a NUL byte", what);
    }
    return AA_OK;
}

static int get_int(breader *r, const char *what, long max, int *v)
{
    uint32_t u;
    int rc = get_u32(r, &u);
    if (rc)
        return rc;
    if (u > (uint64_t)max)
        return bfail(r, "%s %u out of range (0..%ld)", what, u, max);
    *v = (int)u;
    return AA_OK;
}

/* Attributes of the run (p NULL) or of process p: names non-empty, unique. */
static int read_attrs(breader *r, aa_experiment *e, aa_process *p)
{
    uint32_t n, i;
    int rc = get_count(r, "attributes", 8, &n);
    for (i = 0; i < n && !rc; i++) {
        char *name = NULL, *value = NULL;
        int dup;
        if ((rc = get_str(r, "attribute name", 0, &name)) ||
            (rc = get_str(r, "attribute value", 0, &value))) {
            free(name);
            break;
        }
        dup = 0;
        if (p) {
            for (size_t k = 0; k < p->nattrs; k++)
                dup |= strcmp(p->attrs[k].name, name) == 0;
        } else {
            dup = aa_experiment_attr(e, name) != NULL;
        }
        if (!name[0])
            rc = bfail(r, "empty attribute name");
        else if (dup)
            rc = bfail(r, "duplicate attribute '%s'", name);
        else if (p ? aa_process_set_attr(p, name, value) : aa_experiment_set_attr(e, name, value))
            rc = bnomem(r);
        free(name);
        free(value);
    }
    return rc;
}

static int read_metrics(breader *r, aa_experiment *e)
{
    uint32_t n, i;
    int rc = get_count(r, "metrics", 8, &n);
    for (i = 0; i < n && !rc; i++) {
        char *name = NULL, *unit = NULL;
        const aa_metric_info *mi;
        if ((rc = get_str(r, "metric name", 0, &name)) ||
            (rc = get_str(r, "metric unit", 0, &unit))) {
            free(name);
            break;
        }
        mi = aa_metric_lookup(name);
        if (!aa_metric_name_valid(name))
            rc = bfail(r, "unknown metric '%s'", name);
        else if (mi && strcmp(mi->unit, unit) != 0)
            rc = bfail(r, "metric '%s' has unit '%s', expected '%s'", name, unit, mi->unit);
        else if (aa_experiment_metric_index(e, name) >= 0)
            rc = bfail(r, "duplicate metric '%s'", name);
        else if (aa_experiment_add_metric(e, name, unit) < 0)
            rc = bnomem(r);
        free(name);
        free(unit);
    }
    return rc;
}

static int read_regions(breader *r, aa_experiment *e)
{
    uint32_t n, i, kind;
    aa_region *rs;
    uint32_t at = 0;
    int rc = get_count(r, "regions", 40, &n);
    if (rc)
        return rc;
    /* the regions come sorted by id (checked below): read into the room the
     * model assumes and handed over, not copied (a rank file's regions are
     * read 16,384 times in a collect) */
    if (e->nregions)
        return bfail(r, "regions read twice");
    if (!(rs = calloc(aa_profile_cap_of(n ? n : 1), sizeof *rs)))
        return bnomem(r);
    for (i = 0; i < n && !rc; i++) {
        aa_region *g = &rs[i];
        if ((rc = get_u32(r, &g->id)) || (rc = get_u32(r, &g->parent)) ||
            (rc = get_u32(r, &kind)) || (rc = get_int(r, "line", INT_MAX, &g->line)) ||
            (rc = get_int(r, "column", INT_MAX, &g->col)) ||
            (rc = get_int(r, "end line", INT_MAX, &g->end_line)) ||
            (rc = get_int(r, "end column", INT_MAX, &g->end_col)))
            break;
        if (kind >= AA_KIND_COUNT_) {
            rc = bfail(r, "region %u: unknown kind %u", g->id, kind);
            break;
        }
        g->kind = (aa_region_kind)kind;
        if (i && g->id <= rs[i - 1].id) {
            rc = bfail(r, "region %u: ids not strictly increasing (duplicate or out of order)",
                       g->id);
            break;
        }
        if ((rc = get_str(r, "region name", 0, &g->name)) ||
            (rc = get_str(r, "region function", 0, &g->function)) ||
            (rc = get_str(r, "region file", 0, &g->file)))
            break;
    }
    if (rc) {
        for (i = 0; i < n; i++)
            aa_region_free_fields(&rs[i]);
        free(rs);
        return rc;
    }
    e->regions = rs;
    e->nregions = n;
    for (i = 0; i < e->nregions; i++)
        if (e->regions[i].parent && !aa_experiment_region(e, e->regions[i].parent))
            return bfail(r, "region %u: parent %u is not a region here", e->regions[i].id,
                         e->regions[i].parent);
    switch (aa_experiment_parent_cycle(e, &at)) {
    case 0: return AA_OK;
    case 1: return bfail(r, "region %u: its parents form a cycle", at);
    default: return bnomem(r);
    }
}

static int read_meta(breader *r, aa_experiment *e)
{
    uint32_t nprocs;
    int rc;
    if ((rc = sec_open(r, SEC_META)) || (rc = get_str(r, "experiment id", 0, &e->id)) ||
        (rc = get_str(r, "program name", 0, &e->program)) || (rc = get_u32(r, &nprocs)))
        return rc;
    if (nprocs < 1 || nprocs > MAX_NPROCS)
        return bfail(r, "nprocs %u out of range (1..%ld)", nprocs, MAX_NPROCS);
    e->nprocs = (int)nprocs;
    if ((rc = read_attrs(r, e, NULL)) || (rc = read_metrics(r, e)) || (rc = read_regions(r, e)))
        return rc;
    return sec_close(r);
}

/* Processes and their threads; tree index of each thread into *tree_of. */
static int read_procs(breader *r, aa_experiment *e, uint32_t **tree_of, size_t *nthreads_all)
{
    uint32_t n, i, k;
    size_t nt = 0, cap = 0;
    int rc;
    *tree_of = NULL;
    if ((rc = sec_open(r, SEC_PROC)) || (rc = get_count(r, "processes", 32, &n)))
        return rc;
    if (!(e->processes = calloc(n ? aa_profile_cap_of(n) : 1, sizeof *e->processes)))
        return bnomem(r);
    for (i = 0; i < n && !rc; i++) {
        aa_process *p = &e->processes[i];
        uint32_t rank, nun, nth;
        uint64_t pid;
        if ((rc = get_u32(r, &rank)))
            break;
        if (rank >= (uint32_t)e->nprocs) {
            rc = bfail(r, "rank %u is not below nprocs %d", rank, e->nprocs);
            break;
        }
        if (i && rank <= (uint32_t)e->processes[i - 1].rank) {
            rc = bfail(r, "rank %u: ranks not strictly increasing (duplicate or out of order)",
                       rank);
            break;
        }
        p->rank = (int)rank;
        e->nprocesses = i + 1;
        if ((rc = get_str(r, "host", 0, &p->host)) || (rc = get_u64(r, &pid)))
            break;
        if (pid > (uint64_t)LONG_MAX) {
            rc = bfail(r, "rank %u: pid out of range", rank);
            break;
        }
        p->pid = (long)pid;
        if ((rc = get_count(r, "unavailable metrics", 4, &nun)))
            break;
        for (k = 0; k < nun && !rc; k++) {
            char *m = NULL;
            if ((rc = get_str(r, "unavailable metric", 0, &m)))
                break;
            if (!aa_metric_name_valid(m))
                rc = bfail(r, "rank %u: unknown metric '%s' in unavailable", rank, m);
            else if (aa_process_metric_unavailable(p, m))
                rc = bfail(r, "rank %u: metric '%s' listed twice in unavailable", rank, m);
            else if (aa_process_add_unavailable(p, m))
                rc = bnomem(r);
            free(m);
        }
        if (rc || (rc = read_attrs(r, e, p)) || (rc = get_count(r, "threads", 8, &nth)))
            break;
        if (nth && !(p->threads = calloc(aa_profile_cap_of(nth), sizeof *p->threads))) {
            rc = bnomem(r);
            break;
        }
        for (k = 0; k < nth && !rc; k++) {
            uint32_t tid, tree;
            if ((rc = get_u32(r, &tid)) || (rc = get_u32(r, &tree)))
                break;
            if (tid > INT_MAX) {
                rc = bfail(r, "rank %u: thread id %u out of range", rank, tid);
                break;
            }
            for (uint32_t j = 0; j < k && !rc; j++)
                if (p->threads[j].id == (int)tid)
                    rc = bfail(r, "duplicate thread id %u in rank %u", tid, rank);
            if (rc)
                break;
            p->threads[k].id = (int)tid;
            p->nthreads = k + 1;
            if (nt == cap) {
                size_t nc = cap ? 2 * cap : 1024;
                uint32_t *v = realloc(*tree_of, nc * sizeof *v);
                if (!v) {
                    rc = bnomem(r);
                    break;
                }
                *tree_of = v;
                cap = nc;
            }
            (*tree_of)[nt++] = tree;
        }
    }
    *nthreads_all = nt;
    return rc ? rc : sec_close(r);
}

typedef struct tree {
    uint32_t nnodes;
    aa_node *nodes;
} tree;

static int read_trees(breader *r, const aa_experiment *e, tree **trees, uint32_t *ntrees)
{
    uint32_t n, i, k, parent;
    int rc;
    *trees = NULL;
    *ntrees = 0;
    if ((rc = sec_open(r, SEC_TREE)) || (rc = get_count(r, "trees", 4, &n)))
        return rc;
    if (!(*trees = calloc(n ? n : 1, sizeof **trees)))
        return bnomem(r);
    *ntrees = n;
    for (i = 0; i < n && !rc; i++) {
        tree *t = &(*trees)[i];
        if ((rc = get_count(r, "nodes", 12, &t->nnodes)))
            break;
        if (t->nnodes > INT32_MAX) {
            rc = bfail(r, "tree %u: too many nodes", i);
            break;
        }
        if (t->nnodes && !(t->nodes = malloc((size_t)t->nnodes * sizeof *t->nodes))) {
            rc = bnomem(r);
            break;
        }
        for (k = 0; k < t->nnodes && !rc; k++) {
            aa_node *nd = &t->nodes[k];
            if ((rc = get_u32(r, &nd->region)) || (rc = get_u32(r, &parent)) ||
                (rc = get_u32(r, &nd->flags)))
                break;
            nd->parent = (int32_t)parent;
            if (!aa_experiment_region(e, nd->region))
                rc = bfail(r, "tree %u node %u refers to unknown region %u", i, k, nd->region);
            else if (nd->parent < -1 || nd->parent >= (int32_t)k)
                rc = bfail(r, "tree %u node %u: parent %d does not precede it", i, k, nd->parent);
            else if (nd->flags & ~(uint32_t)AA_NODE_THROTTLED)
                rc = bfail(r, "tree %u node %u: unknown flags 0x%x", i, k, nd->flags);
        }
    }
    return rc ? rc : sec_close(r);
}

/* The value arrays of a big experiment lie mostly side by side on the
 * heap: touching them page by page would cost a fault each (more than
 * the data on a virtual machine), so their span is asked for huge pages
 * and populated in one call.  Advice only: a failure changes nothing. */
static void prefault(const aa_experiment *e, size_t bytes)
{
#if defined(MADV_POPULATE_WRITE) && defined(MADV_HUGEPAGE)
    uintptr_t lo = UINTPTR_MAX, hi = 0, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    size_t nm = e->nmetrics ? e->nmetrics : 1;
    if (bytes < (64u << 20) || pg == 0 || (pg & (pg - 1)))
        return;
    for (size_t p = 0; p < e->nprocesses; p++)
        for (size_t t = 0; t < e->processes[p].nthreads; t++) {
            const aa_thread *th = &e->processes[p].threads[t];
            uintptr_t a = (uintptr_t)th->values;
            if (!th->nnodes)
                continue;
            lo = a < lo ? a : lo;
            a += aa_profile_cap_of(th->nnodes) * nm * sizeof *th->values;
            hi = a > hi ? a : hi;
        }
    lo = (lo + pg - 1) & ~(pg - 1);
    hi &= ~(pg - 1);
    if (hi <= lo || hi - lo > 2 * bytes) /* scattered: leave it */
        return;
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)e;
    (void)bytes;
#endif
}

/* Gives every thread a copy of its tree and its value rows. */
static int attach_trees(breader *r, aa_experiment *e, const uint32_t *tree_of, size_t nt,
                        const tree *trees, uint32_t ntrees, size_t *rows)
{
    size_t p, t, j = 0, nm = e->nmetrics ? e->nmetrics : 1, bytes = 0;
    *rows = 0;
    for (p = 0; p < e->nprocesses; p++)
        for (t = 0; t < e->processes[p].nthreads; t++, j++) {
            aa_thread *th = &e->processes[p].threads[t];
            const tree *tr;
            if (j >= nt || tree_of[j] >= ntrees)
                return aa_err_set(r->err, AA_EINPUT, "%s: rank %d thread %d: tree %u is not in the file",
                                  r->name, e->processes[p].rank, th->id, j < nt ? tree_of[j] : 0);
            tr = &trees[tree_of[j]];
            if (!tr->nnodes)
                continue;
            /* the first column holds 8 bytes per node: bound the allocation
             * by what the rest of the file can inflate to before making it */
            *rows += tr->nnodes;
            if ((uint64_t)*rows * 8 > (uint64_t)(r->len - r->pos) * 1032 + 1032)
                return aa_err_set(r->err, AA_EINPUT, "%s:%zu: more nodes than the file can hold",
                                  r->name, r->pos);
            /* the room the model's API assumes (profile_internal.h) */
            th->nodes = malloc(aa_profile_cap_of(tr->nnodes) * sizeof *th->nodes);
            th->values = malloc(aa_profile_cap_of(tr->nnodes) * nm * sizeof *th->values);
            if (!th->nodes || !th->values)
                return bnomem(r);
            memcpy(th->nodes, tr->nodes, tr->nnodes * sizeof *th->nodes);
            th->nnodes = tr->nnodes;
            bytes += aa_profile_cap_of(tr->nnodes) * nm * sizeof *th->values;
        }
    prefault(e, bytes);
    return AA_OK;
}

/* ---- values: the columns are transposed back to rows in blocks of rows,
 * reading every column's byte planes side by side (stored planes in place,
 * compressed ones through one small inflate stream each), so the rows are
 * written once, in order, and no column is ever held whole.  A file of one
 * block (a rank file: a few hundred rows) inflates its planes whole, one
 * after the other, through one shared stream: 144 inflate states a file
 * would cost more than the data. */
typedef struct plane {
    int enc;
    const unsigned char *src; /* its bytes in the file */
    size_t len;
    z_stream own;             /* its stream when the file has several blocks */
    int zinit;
    z_stream *z;              /* own, or the shared one */
    unsigned char *blk;       /* a block of inflated bytes (in colset.blocks) */
} plane;

typedef struct column {
    int mode, exp;
    uint64_t cval;
    plane pl[8];
} column;

typedef struct colset {
    column *c;
    size_t n;
    z_stream shared;          /* one block: every plane in turn */
    int shared_init;
    unsigned char *blocks;    /* n x 8 blocks */
} colset;

static void columns_free(colset *cs)
{
    for (size_t m = 0; cs->c && m < cs->n; m++)
        for (int b = 0; b < 8; b++)
            if (cs->c[m].pl[b].zinit)
                inflateEnd(&cs->c[m].pl[b].own);
    if (cs->shared_init)
        inflateEnd(&cs->shared);
    free(cs->c);
    free(cs->blocks);
}

/* Reads the layout of every column: modes, plane encodings and places. */
static int read_columns(breader *r, colset *cs, size_t rows)
{
    size_t blk = rows < ROW_BLOCK ? (rows ? rows : 1) : ROW_BLOCK;
    if (!(cs->blocks = malloc(cs->n * 8 * blk)))
        return bnomem(r);
    for (size_t m = 0; m < cs->n; m++) {
        column *cols = cs->c;
        unsigned char mode, c[8], h[9];
        int rc;
        if ((rc = sec_get(r, &mode, 1)))
            return rc;
        cols[m].mode = mode;
        if (mode == MODE_CONST) {
            if ((rc = sec_get(r, c, 8)))
                return rc;
            cols[m].cval = rd64(c);
            continue;
        }
        if (mode == MODE_INT && r->version >= 2) {
            unsigned char ex;
            if ((rc = sec_get(r, &ex, 1)))
                return rc;
            if (ex > INT_MAX_EXP)
                return bfail(r, "column %zu: integer exponent %u out of range (0..%d)", m + 1, ex,
                             INT_MAX_EXP);
            cols[m].exp = ex;
        } else if (mode != MODE_PLANES) {
            return bfail(r, "column %zu: unknown mode %u", m + 1, mode);
        }
        for (int b = 0; b < 8; b++) {
            plane *pl = &cols[m].pl[b];
            uint64_t len;
            if ((rc = sec_get(r, h, sizeof h)))
                return rc;
            len = rd64(h + 1);
            if (h[0] != ENC_STORED && h[0] != ENC_ZLIB)
                return bfail(r, "column %zu byte plane %d: unknown encoding %u", m + 1, b, h[0]);
            if (h[0] == ENC_STORED && len != rows)
                return bfail(r, "column %zu byte plane %d: %llu bytes stored for %zu nodes", m + 1,
                             b, (unsigned long long)len, rows);
            if (len > sec_left(r))
                return bfail(r, "column %zu byte plane %d: %llu bytes run past the end of the section",
                             m + 1, b, (unsigned long long)len);
            pl->enc = h[0];
            pl->len = (size_t)len;
            if ((rc = sec_ptr(r, pl->len, &pl->src)))
                return rc;
            if (pl->enc != ENC_ZLIB)
                continue;
            pl->blk = cs->blocks + (m * 8 + (size_t)b) * blk;
            if (rows <= ROW_BLOCK) {
                if (!cs->shared_init && inflateInit(&cs->shared) != Z_OK)
                    return bnomem(r);
                cs->shared_init = 1;
                pl->z = &cs->shared;
            } else {
                if (inflateInit(&pl->own) != Z_OK)
                    return bnomem(r);
                pl->zinit = 1;
                pl->z = &pl->own;
                pl->z->next_in = (Bytef *)(uintptr_t)pl->src;
                pl->z->avail_in = 0;
            }
        }
    }
    return AA_OK;
}

/* Inflates the next n bytes of a compressed plane (finish: and checks that
 * its stream ends there, with nothing after). */
static int plane_inflate(breader *r, plane *pl, size_t m, int b, size_t n, int finish)
{
    const unsigned char *end = pl->src + pl->len;
    unsigned char extra;
    if (!pl->zinit) { /* the shared stream: this plane whole, from its start */
        if (inflateReset(pl->z) != Z_OK)
            return bnomem(r);
        pl->z->next_in = (Bytef *)(uintptr_t)pl->src;
        pl->z->avail_in = 0;
    }
    pl->z->next_out = pl->blk;
    pl->z->avail_out = (uInt)n;
    while (pl->z->avail_out) {
        int zr;
        if (pl->z->avail_in == 0) {
            size_t left = (size_t)(end - pl->z->next_in);
            pl->z->avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
        }
        zr = inflate(pl->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END && pl->z->avail_out)
            return bfail(r, "column %zu byte plane %d: compressed data ends early", m + 1, b);
        if (zr != Z_OK && zr != Z_STREAM_END)
            return bfail(r, "column %zu byte plane %d: corrupt compressed data (%s)", m + 1, b,
                         pl->z->msg ? pl->z->msg : "truncated");
    }
    if (finish) {
        int zr;
        pl->z->next_out = &extra;
        pl->z->avail_out = 1;
        if (pl->z->avail_in == 0) {
            size_t left = (size_t)(end - pl->z->next_in);
            pl->z->avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
        }
        zr = inflate(pl->z, Z_FINISH);
        if (zr != Z_STREAM_END || pl->z->avail_out == 0 || pl->z->next_in != end)
            return bfail(r, "column %zu byte plane %d: more data than its %s nodes", m + 1, b,
                         "column's");
    }
    return AA_OK;
}

/* A compressed VALS section (version 2, files of one block of rows: the
 * planes are stored inside one zlib stream) is inflated whole, checked to
 * its end, and then read as a stored section over the inflated bytes: the
 * reader's cursor is pointed there until vals_view_end. */
typedef struct vview {
    unsigned char *raw;
    const unsigned char *data;
    size_t len, pos;
} vview;

static int vals_view(breader *r, size_t ncols, size_t rows, vview *v)
{
    uint64_t most = (uint64_t)ncols * (3 + 8 * (9 + (uint64_t)rows));
    size_t n;
    int rc;
    if (r->enc == ENC_STORED)
        return AA_OK;
    if (r->version < 2)
        return bfail(r, "section VALS: compressed (version 2 only)");
    if (r->raw_len > most)
        return bfail(r, "section VALS: %llu bytes, more than %zu columns of %zu nodes hold",
                     (unsigned long long)r->raw_len, ncols, rows);
    n = (size_t)r->raw_len;
    if (!(v->raw = malloc(n ? n : 1)))
        return bnomem(r);
    if ((rc = sec_get(r, v->raw, n)) || (rc = sec_close(r)))
        return rc;
    v->data = r->data;
    v->len = r->len;
    v->pos = r->pos;
    r->data = v->raw;
    r->len = r->pos = n;
    r->enc = ENC_STORED;
    r->zinit = 1;
    r->zend = n == 0;
    r->z.next_in = v->raw;
    r->got = 0;
    r->bpos = r->blen = 0;
    return AA_OK;
}

static void vals_view_end(breader *r, vview *v)
{
    if (v->data) {
        r->data = v->data;
        r->len = v->len;
        r->pos = v->pos;
        r->zinit = 0;
    }
    free(v->raw);
}

/* Decodes rows [row0, row0 + n) of column c into out[k * stride]; the
 * first row whose value is bad (negative, infinite, -0, an integer out of
 * range), or n when none. */
static size_t decode_column(const column *c, size_t row0, size_t n, double *out, size_t stride)
{
    const unsigned char *pp[8];
    size_t k;
    if (c->mode == MODE_CONST) {
        double d;
        uint64_t u = c->cval;
        memcpy(&d, &u, sizeof d);
        if (isnan(d))
            d = NAN;
        else if (!isfinite(d) || d < 0 || (d == 0 && signbit(d)))
            return 0;
        for (k = 0; k < n; k++)
            out[k * stride] = d;
        return n;
    }
    for (int b = 0; b < 8; b++)
        pp[b] = c->pl[b].enc == ENC_ZLIB ? c->pl[b].blk : c->pl[b].src + row0;
    if (c->mode == MODE_INT) {
        const double div = pow10_of[c->exp];
        for (k = 0; k < n; k++) {
            uint64_t u = (uint64_t)pp[0][k] | (uint64_t)pp[1][k] << 8 | (uint64_t)pp[2][k] << 16 |
                         (uint64_t)pp[3][k] << 24 | (uint64_t)pp[4][k] << 32 |
                         (uint64_t)pp[5][k] << 40 | (uint64_t)pp[6][k] << 48 |
                         (uint64_t)pp[7][k] << 56;
            if (u > INT_MAX_K) {
                if (u != INT_NAN)
                    return k;
                out[k * stride] = NAN;
            } else {
                out[k * stride] = (double)u / div;
            }
        }
        return n;
    }
    for (k = 0; k < n; k++) {
        uint64_t u = (uint64_t)pp[0][k] | (uint64_t)pp[1][k] << 8 | (uint64_t)pp[2][k] << 16 |
                     (uint64_t)pp[3][k] << 24 | (uint64_t)pp[4][k] << 32 |
                     (uint64_t)pp[5][k] << 40 | (uint64_t)pp[6][k] << 48 | (uint64_t)pp[7][k] << 56;
        double d;
        memcpy(&d, &u, sizeof d);
        if (isnan(d))
            d = NAN;
        else if (!isfinite(d) || d < 0 || (d == 0 && signbit(d)))
            return k;
        out[k * stride] = d;
    }
    return n;
}

/* The message for the bad value of column m at row `row` (decode_column). */
static int bad_value(breader *r, const aa_experiment *e, const column *c, size_t m, size_t row,
                     size_t row0)
{
    size_t p = 0, t = 0, i = row;
    uint64_t u = c->cval;
    double d;
    while (i >= e->processes[p].threads[t].nnodes) {
        i -= e->processes[p].threads[t].nnodes;
        if (++t == e->processes[p].nthreads) {
            t = 0;
            p++;
        }
    }
    if (c->mode != MODE_CONST) {
        u = 0;
        for (int b = 7; b >= 0; b--)
            u = u << 8 | (c->pl[b].enc == ENC_ZLIB ? c->pl[b].blk : c->pl[b].src + row0)[row - row0];
    }
    if (c->mode == MODE_INT)
        return bfail(r, "rank %d thread %d node %zu: %s integer %llu out of range",
                     e->processes[p].rank, e->processes[p].threads[t].id, i, e->metrics[m].name,
                     (unsigned long long)u);
    memcpy(&d, &u, sizeof d);
    return bfail(r, "rank %d thread %d node %zu: bad %s value %g", e->processes[p].rank,
                 e->processes[p].threads[t].id, i, e->metrics[m].name, d);
}

/* The rows go back block by block: each column is decoded into a block of
 * rows (in order, from its planes), then the block's rows are copied to
 * their threads. */
static int read_values(breader *r, aa_experiment *e, size_t rows)
{
    size_t ncols = e->nmetrics ? e->nmetrics : 1, nm = e->nmetrics, row0, p = 0, t = 0, i = 0;
    colset cs;
    vview view = {0};
    column *cols;
    double *blk = NULL;
    int rc;
    memset(&cs, 0, sizeof cs);
    cs.n = ncols;
    if (!(cols = cs.c = calloc(ncols, sizeof *cols)) ||
        !(blk = malloc((rows < ROW_BLOCK ? rows + 1 : ROW_BLOCK) * ncols * sizeof *blk))) {
        free(cols);
        return bnomem(r);
    }
    if ((rc = sec_open(r, SEC_VALS)) || (rc = vals_view(r, ncols, rows, &view)) ||
        (rc = read_columns(r, &cs, rows))) {
        columns_free(&cs);
        vals_view_end(r, &view);
        free(blk);
        return rc;
    }
    for (row0 = 0; row0 < rows && !rc; row0 += ROW_BLOCK) {
        size_t n = rows - row0 < ROW_BLOCK ? rows - row0 : ROW_BLOCK, k, m, bad = n, badm = 0;
        for (m = 0; m < ncols && !rc; m++)
            for (int b = 0; b < 8 && !rc && cols[m].mode != MODE_CONST; b++)
                if (cols[m].pl[b].enc == ENC_ZLIB)
                    rc = plane_inflate(r, &cols[m].pl[b], m, b, n, row0 + n == rows);
        if (rc || !nm)
            break;
        /* the first bad value in row order: the smallest row, then column */
        for (m = 0; m < nm; m++) {
            size_t k1 = decode_column(&cols[m], row0, bad < n ? bad + 1 : n, blk + m, nm);
            if (k1 < bad) {
                bad = k1;
                badm = m;
            }
        }
        if (bad < n) {
            rc = bad_value(r, e, &cols[badm], badm, row0 + bad, row0);
            break;
        }
        for (k = 0; k < n;) { /* runs of rows of one thread */
            aa_thread *th;
            size_t run;
            while (i >= e->processes[p].threads[t].nnodes) { /* next thread with nodes */
                i = 0;
                if (++t == e->processes[p].nthreads) {
                    t = 0;
                    p++;
                }
            }
            th = &e->processes[p].threads[t];
            run = th->nnodes - i < n - k ? th->nnodes - i : n - k;
            memcpy(th->values + i * nm, blk + k * nm, run * nm * sizeof *blk);
            i += run;
            k += run;
        }
    }
    columns_free(&cs);
    free(blk);
    if (!rc)
        rc = sec_close(r);
    vals_view_end(r, &view);
    return rc;
}

static int read_header(breader *r)
{
    const unsigned char *h = r->data;
    r->sec_at = 0;
    if (r->len < BIN_HEADER || !aa_experiment_is_binary(h, r->len))
        return bfail(r, "not a binary experiment (bad magic or truncated header)");
    if (crc_of(h, 20) != rd32(h + 20))
        return bfail(r, "checksum mismatch in the file header");
    if (rd32(h + 8) < 1 || rd32(h + 8) > BIN_VERSION)
        return aa_err_set(r->err, AA_EINPUT,
                          "%s:8: unsupported binary format version %u (this build reads versions 1 to %u)",
                          r->name, rd32(h + 8), BIN_VERSION);
    r->version = rd32(h + 8);
    if (rd32(h + 12) != 0) {
        r->sec_at = 12;
        return bfail(r, "unknown flags 0x%x", rd32(h + 12));
    }
    if (rd32(h + 16) != NSECTIONS) {
        r->sec_at = 16;
        return bfail(r, "%u sections, expected %d", rd32(h + 16), NSECTIONS);
    }
    r->pos = BIN_HEADER;
    return AA_OK;
}

/* Where the META section of a file ends (its header and META are the
 * file's first bytes), or 0 when it cannot tell. */
static size_t meta_end(const unsigned char *d, size_t len)
{
    uint64_t stored;
    if (len < BIN_HEADER + SEC_HEADER)
        return 0;
    stored = rd64(d + BIN_HEADER + 16);
    if (stored > len - BIN_HEADER - SEC_HEADER)
        return 0;
    return BIN_HEADER + SEC_HEADER + (size_t)stored;
}

/* The file's header and META section are byte for byte those of a file
 * that read as like: the run and metrics are copied from like, and its
 * regions lent (nothing else may change them; the caller takes them back
 * before e is returned or freed). */
static int meta_like(breader *r, aa_experiment *e, const aa_experiment *like, size_t end)
{
    size_t i;
    if (!(e->id = strdup(like->id)) || !(e->program = strdup(like->program)))
        return bnomem(r);
    e->nprocs = like->nprocs;
    for (i = 0; i < like->nattrs; i++)
        if (aa_experiment_set_attr(e, like->attrs[i].name, like->attrs[i].value))
            return bnomem(r);
    for (i = 0; i < like->nmetrics; i++)
        if (aa_experiment_add_metric(e, like->metrics[i].name, like->metrics[i].unit) < 0)
            return bnomem(r);
    e->regions = (aa_region *)(uintptr_t)like->regions;
    e->nregions = like->nregions;
    r->pos = end;
    return AA_OK;
}

static int read_binary(const void *data, size_t len, const char *name, const void *like_data,
                       size_t like_len, const aa_experiment *like, aa_experiment **out,
                       aa_err *err)
{
    breader *r = malloc(sizeof *r); /* buf needs no zeroing: 64 KB a rank file */
    aa_experiment *e = aa_experiment_new();
    uint32_t *tree_of = NULL, ntrees = 0, i;
    tree *trees = NULL;
    size_t nt = 0, rows = 0, end;
    int rc, lent = 0;
    *out = NULL;
    if (!r || !e) {
        free(r);
        aa_experiment_free(e);
        return aa_err_set(err, AA_EENV, "%s: out of memory", name ? name : "<memory>");
    }
    memset(r, 0, offsetof(breader, buf));
    r->bpos = r->blen = 0;
    r->data = data;
    r->len = len;
    r->name = name ? name : "<memory>";
    r->err = err;
    if (!(rc = read_header(r))) {
        end = like ? meta_end(data, len) : 0;
        if (end && end == meta_end(like_data, like_len) && memcmp(data, like_data, end) == 0) {
            lent = 1;
            rc = meta_like(r, e, like, end);
        } else {
            rc = read_meta(r, e);
        }
    }
    if (!rc &&
        !(rc = read_procs(r, e, &tree_of, &nt)) && !(rc = read_trees(r, e, &trees, &ntrees)) &&
        !(rc = attach_trees(r, e, tree_of, nt, trees, ntrees, &rows)) &&
        !(rc = read_values(r, e, rows)) && !(rc = sec_open(r, SEC_END)) && !(rc = sec_close(r))) {
        if (r->pos != r->len) {
            r->sec_at = r->pos;
            rc = bfail(r, "%zu bytes after the last section", r->len - r->pos);
        } else if ((rc = aa_experiment_check(e, err))) {
            aa_err_prefix(err, "%s", r->name);
            rc = AA_EINPUT;
        }
    }
    if (lent) { /* like's regions go back */
        e->regions = NULL;
        e->nregions = 0;
    }
    if (r->zinit && r->enc == ENC_ZLIB)
        inflateEnd(&r->z);
    for (i = 0; i < ntrees; i++)
        free(trees[i].nodes);
    free(trees);
    free(tree_of);
    free(r);
    if (rc) {
        aa_experiment_free(e);
        return rc;
    }
    *out = e;
    return AA_OK;
}

int aa_experiment_read_binary_memory(const void *data, size_t len, const char *name,
                                     aa_experiment **out, aa_err *err)
{
    return read_binary(data, len, name, NULL, 0, NULL, out, err);
}

int aa_experiment_read_binary_like(const void *data, size_t len, const char *name,
                                   const void *like_data, size_t like_len,
                                   const aa_experiment *like, aa_experiment **out, aa_err *err)
{
    return read_binary(data, len, name, like_data, like_len, like, out, err);
}

/* Maps the file; a small one (a rank file) is read instead, since unmapping
 * costs more than copying it; so is a pipe or other unmappable file. */
#define MAP_MIN (4u << 20)
int aa_experiment_read_binary(const char *path, aa_experiment **out, aa_err *err)
{
    struct stat st;
    void *map = MAP_FAILED;
    char *data = NULL;
    size_t len = 0;
    int fd, rc;
    *out = NULL;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)MAP_MIN) {
        len = (size_t)st.st_size;
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED)
            madvise(map, len, MADV_SEQUENTIAL);
    }
    if (fd >= 0)
        close(fd);
    if (map != MAP_FAILED) {
        rc = aa_experiment_read_binary_memory(map, len, path, out, err);
        munmap(map, len);
        return rc;
    }
    if ((rc = aa_read_file(path, &data, &len, err)))
        return rc;
    rc = aa_experiment_read_binary_memory(data, len, path, out, err);
    free(data);
    return rc;
}
