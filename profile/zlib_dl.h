/*
 * profile/zlib_dl.h -- zlib for the measurement runtime's copy of the
 * binary experiment code (profile/binary.c compiled with -DAA_ZLIB_DLOPEN):
 * the zlib calls binary.c makes are renamed to functions that reach
 * libz.so.1 through dlopen, so libautoanalyzer has no link dependency on
 * zlib (as with PAPI, docs/runtime.md) and always calls zlib's own
 * functions, whatever a program defines under those names.  Without
 * libz.so.1 the writer stores what it would have compressed (the format
 * allows stored sections and planes) and CRC-32 is computed here.
 * Included by binary.c after <zlib.h>; the tools link zlib directly.
 */
#ifndef AA_ZLIB_DL_H
#define AA_ZLIB_DL_H

#include <zlib.h>

/* 1 when libz.so.1 could be loaded (loaded at the first call). */
int aa_zdl_usable(void);

int aa_zdl_deflateInit_(z_streamp s, int level, const char *version, int size);
int aa_zdl_deflate(z_streamp s, int flush);
int aa_zdl_deflateEnd(z_streamp s);
int aa_zdl_inflateInit_(z_streamp s, const char *version, int size);
int aa_zdl_inflate(z_streamp s, int flush);
int aa_zdl_inflateEnd(z_streamp s);
int aa_zdl_inflateReset(z_streamp s);
int aa_zdl_compress2(Bytef *dst, uLongf *dlen, const Bytef *src, uLong slen, int level);
uLong aa_zdl_compressBound(uLong n);
uLong aa_zdl_crc32(uLong crc, const Bytef *p, uInt n);

#define deflateInit_ aa_zdl_deflateInit_
#define deflate aa_zdl_deflate
#define deflateEnd aa_zdl_deflateEnd
#define inflateInit_ aa_zdl_inflateInit_
#define inflate aa_zdl_inflate
#define inflateEnd aa_zdl_inflateEnd
#define inflateReset aa_zdl_inflateReset
#define compress2 aa_zdl_compress2
#define compressBound aa_zdl_compressBound
#define crc32 aa_zdl_crc32
#define AA_ZLIB_USABLE() aa_zdl_usable()

#endif
