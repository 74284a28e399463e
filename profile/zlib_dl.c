/*
 * profile/zlib_dl.c -- zlib reached through dlopen for the runtime's copy of
 * the binary experiment writer (profile/zlib_dl.h says why).  libz.so.1 is
 * loaded once, at the first call (RTLD_LOCAL: nothing of it becomes
 * visible to the program); when it is missing or lacks a function, every
 * compression call fails with Z_STREAM_ERROR, aa_zdl_usable() is 0 so the
 * writer never asks for one, and CRC-32 comes from a table computed here.
 * Not for a signal handler (dlopen allocates): the crash profile stays XML.
 */
#include "profile/zlib_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

static struct {
    int (*deflateInit_)(z_streamp, int, const char *, int);
    int (*deflate)(z_streamp, int);
    int (*deflateEnd)(z_streamp);
    int (*inflateInit_)(z_streamp, const char *, int);
    int (*inflate)(z_streamp, int);
    int (*inflateEnd)(z_streamp);
    int (*inflateReset)(z_streamp);
    int (*compress2)(Bytef *, uLongf *, const Bytef *, uLong, int);
    uLong (*compressBound)(uLong);
    uLong (*crc32)(uLong, const Bytef *, uInt);
    int usable;
} z;
static pthread_once_t z_once = PTHREAD_ONCE_INIT;
static uint32_t crc_table[256];

static void crc_table_make(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

/* the library loaded (a test build names one that does not exist) */
#ifndef AA_ZDL_LIB
#define AA_ZDL_LIB "libz.so.1"
#endif

static void z_load(void)
{
    void *h = dlopen(AA_ZDL_LIB, RTLD_NOW | RTLD_LOCAL);
    crc_table_make();
    if (!h)
        return;
#define SYM(f) *(void **)&z.f = dlsym(h, #f)
    SYM(deflateInit_);
    SYM(deflate);
    SYM(deflateEnd);
    SYM(inflateInit_);
    SYM(inflate);
    SYM(inflateEnd);
    SYM(inflateReset);
    SYM(compress2);
    SYM(compressBound);
    SYM(crc32);
#undef SYM
    z.usable = z.deflateInit_ && z.deflate && z.deflateEnd && z.inflateInit_ && z.inflate &&
               z.inflateEnd && z.inflateReset && z.compress2 && z.compressBound && z.crc32;
}

int aa_zdl_usable(void)
{
    pthread_once(&z_once, z_load);
    return z.usable;
}

int aa_zdl_deflateInit_(z_streamp s, int level, const char *version, int size)
{
    return aa_zdl_usable() ? z.deflateInit_(s, level, version, size) : Z_STREAM_ERROR;
}

int aa_zdl_deflate(z_streamp s, int flush)
{
    return aa_zdl_usable() ? z.deflate(s, flush) : Z_STREAM_ERROR;
}

int aa_zdl_deflateEnd(z_streamp s)
{
    return aa_zdl_usable() ? z.deflateEnd(s) : Z_STREAM_ERROR;
}

int aa_zdl_inflateInit_(z_streamp s, const char *version, int size)
{
    return aa_zdl_usable() ? z.inflateInit_(s, version, size) : Z_STREAM_ERROR;
}

int aa_zdl_inflate(z_streamp s, int flush)
{
    return aa_zdl_usable() ? z.inflate(s, flush) : Z_STREAM_ERROR;
}

int aa_zdl_inflateEnd(z_streamp s)
{
    return aa_zdl_usable() ? z.inflateEnd(s) : Z_STREAM_ERROR;
}

int aa_zdl_inflateReset(z_streamp s)
{
    return aa_zdl_usable() ? z.inflateReset(s) : Z_STREAM_ERROR;
}

int aa_zdl_compress2(Bytef *dst, uLongf *dlen, const Bytef *src, uLong slen, int level)
{
    return aa_zdl_usable() ? z.compress2(dst, dlen, src, slen, level) : Z_STREAM_ERROR;
}

uLong aa_zdl_compressBound(uLong n)
{
    /* zlib's bound, also used to size buffers when zlib is missing */
    return aa_zdl_usable() ? z.compressBound(n) : n + (n >> 12) + (n >> 14) + (n >> 25) + 13;
}

uLong aa_zdl_crc32(uLong crc, const Bytef *p, uInt n)
{
    uint32_t c;
    if (aa_zdl_usable())
        return z.crc32(crc, p, n);
    if (!p)
        return 0;
    c = (uint32_t)crc ^ 0xFFFFFFFFu;
    while (n--)
        c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}
