/*
 * profile/regionmap_elf.c -- region maps that travel inside objects and
 * programs (docs/profile-format.md "Region maps inside objects").
 *
 * aa_regionmap_embed_asm turns a map into C text: top-level __asm__
 * statements that put one framed copy of the serialized map into the
 * non-allocated section .autoanalyzer.regions.  The linker concatenates
 * that section from every object, so a program or shared library carries
 * the maps of all its translation units.
 *
 * aa_regionmap_read_elf reads the section back: a small ELF reader (ELF32
 * and ELF64, either byte order, no libelf) that checks every offset and
 * size against the file before using it, and also walks `ar` archives
 * (static libraries) member by member.  Every framed map found is parsed
 * with the ordinary XML reader and merged; one id with two different
 * identities is an error naming the file.
 *
 * Frame: "AAREGMAP" (8 bytes), the payload length and the FNV-1a 32-bit
 * hash of the payload as 8 lowercase hex digits each, then the payload (the
 * region map XML).  Zero bytes between frames (alignment padding) are
 * skipped.  The header is text, so it reads the same in either byte order.
 */
#include "profile/aa_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAME_MAGIC "AAREGMAP"
#define FRAME_MAGIC_LEN 8
#define FRAME_HEADER_LEN 24
/* Bytes of payload per .ascii directive and per __asm__ statement: every
 * string literal stays below the 509 characters C90 compilers must accept,
 * so -pedantic (-Woverlength-strings) never warns, whatever the -std. */
#define ASCII_PER_LINE 48
#define LINES_PER_STMT 4

static uint32_t fnv1a(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* ---- embedding ------------------------------------------------------------ */

/* Characters written as themselves inside the assembler string.  Left out:
 * '"' and '\\' (string syntax, twice: C and assembler), '?' (trigraphs),
 * '{' '|' '}' (asm dialect alternatives), and everything outside ASCII
 * printables. */
static int plain_char(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 1;
    return c == ' ' || (c != '"' && c != '\\' && c != '?' && c != '{' && c != '|' && c != '}' &&
                        c > ' ' && c < 127);
}

static void put_ascii_line(aa_buf *out, const unsigned char *p, size_t n)
{
    size_t i;
    aa_buf_puts(out, "        \".ascii \\\"");
    for (i = 0; i < n; i++) {
        if (plain_char(p[i]))
            aa_buf_putc(out, (char)p[i]);
        else /* assembler octal escape; the backslash escaped for C */
            aa_buf_printf(out, "\\\\%03o", (unsigned)p[i]);
    }
    aa_buf_puts(out, "\\\"\\n\"\n");
}

int aa_regionmap_embed_asm(const aa_regionmap *m, aa_buf *out, aa_err *err)
{
    aa_buf frame;
    size_t off, payload;
    int rc;
    char head[FRAME_HEADER_LEN + 1];

    if (!m || !out)
        return aa_err_set(err, AA_EUSAGE, "aa_regionmap_embed_asm: no map or no buffer");
    aa_buf_init(&frame);
    aa_buf_add(&frame, "........................", FRAME_HEADER_LEN); /* header, below */
    rc = aa_regionmap_write_buf(m, &frame, err);
    if (rc) {
        aa_buf_free(&frame);
        return rc;
    }
    if (frame.failed) {
        aa_buf_free(&frame);
        return aa_err_set(err, AA_EENV, "out of memory embedding the region map");
    }
    payload = frame.len - FRAME_HEADER_LEN;
    if ((uint64_t)payload > 0xffffffffu) {
        aa_buf_free(&frame);
        return aa_err_set(err, AA_EUSAGE, "region map of %s too large to embed (%zu bytes)",
                          m->source ? m->source : "?", payload);
    }
    snprintf(head, sizeof head, FRAME_MAGIC "%08lx%08lx", (unsigned long)payload,
             (unsigned long)fnv1a((const unsigned char *)frame.data + FRAME_HEADER_LEN, payload));
    memcpy(frame.data, head, FRAME_HEADER_LEN);

    aa_buf_puts(out, "\n/* autoanalyzer: the region map of this translation unit, in the\n"
                     "   non-allocated section " AA_REGIONMAP_SECTION
                     " (docs/profile-format.md) */\n");
    for (off = 0; off < frame.len;) {
        int line;
        aa_buf_puts(out, "__asm__(\".pushsection " AA_REGIONMAP_SECTION
                         ",\\\"\\\",@progbits\\n\"\n");
        for (line = 0; line < LINES_PER_STMT && off < frame.len; line++) {
            size_t n = frame.len - off < ASCII_PER_LINE ? frame.len - off : ASCII_PER_LINE;
            put_ascii_line(out, (const unsigned char *)frame.data + off, n);
            off += n;
        }
        aa_buf_puts(out, "        \".popsection\");\n");
    }
    aa_buf_free(&frame);
    if (out->failed)
        return aa_err_set(err, AA_EENV, "out of memory embedding the region map");
    return AA_OK;
}

/* ---- reading: bounds-checked ELF ---------------------------------------------- */

typedef struct elf {
    const unsigned char *p;
    size_t len;
    int is64, big;
    const char *name; /* for messages */
    size_t base;      /* offset of this ELF image in the file (archive members) */
} elf;

/* Regions of every framed map, collected first and merged at the end
 * (sort by id, then compare duplicates): n log n for large programs. */
typedef struct entry {
    aa_region r;
    size_t map; /* index into sources */
    size_t seq; /* order of appearance, for a stable sort */
} entry;

typedef struct merge_state {
    entry *ents;
    size_t nents, cap;
    char **sources; /* source attribute of each framed map */
    size_t nmaps;
    aa_err *err;
} merge_state;

static uint64_t rd(const elf *f, size_t off, int size)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < size; i++) {
        unsigned b = f->p[off + (size_t)(f->big ? i : size - 1 - i)];
        v = (v << 8) | b;
    }
    return v;
}

/* off + n <= len without overflow */
static int fits(uint64_t off, uint64_t n, size_t len)
{
    return off <= len && n <= len - off;
}

/* Takes m's regions and source (m is left empty). */
static int take_map(merge_state *s, aa_regionmap *m, const char *name)
{
    size_t i;
    char **ns = realloc(s->sources, (s->nmaps + 1) * sizeof *ns);
    if (!ns)
        return aa_err_set(s->err, AA_EENV, "out of memory reading %s", name);
    s->sources = ns;
    ns[s->nmaps++] = m->source;
    m->source = NULL;
    if (s->cap - s->nents < m->nregions) {
        size_t cap = s->cap ? s->cap : 64;
        entry *ne;
        while (cap - s->nents < m->nregions)
            cap *= 2;
        ne = realloc(s->ents, cap * sizeof *ne);
        if (!ne)
            return aa_err_set(s->err, AA_EENV, "out of memory reading %s", name);
        s->ents = ne;
        s->cap = cap;
    }
    for (i = 0; i < m->nregions; i++) {
        entry *e = &s->ents[s->nents];
        e->r = m->regions[i];
        e->map = s->nmaps - 1;
        e->seq = s->nents++;
    }
    m->nregions = 0; /* moved */
    return AA_OK;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->r.id != y->r.id)
        return x->r.id < y->r.id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts, checks duplicates, moves the unique regions into out. */
static int finish_merge(merge_state *s, aa_regionmap *out, const char *name)
{
    size_t i, j, n = 0;
    if (s->nents == 0)
        return AA_OK;
    qsort(s->ents, s->nents, sizeof *s->ents, cmp_entry);
    for (i = 1; i < s->nents; i++) {
        const aa_region *a = &s->ents[i - 1].r, *b = &s->ents[i].r;
        if (a->id == b->id && aa_region_identity_differs(a, b)) {
            const char *sa = s->sources[s->ents[i - 1].map], *sb = s->sources[s->ents[i].map];
            return aa_err_set(s->err, AA_EINPUT,
                              "%s: region %u is '%s' (%s:%d) in the map of %s but '%s' (%s:%d) "
                              "in the map of %s: two translation units give one region id "
                              "different meanings",
                              name, a->id, a->name, a->file ? a->file : "", a->line,
                              sa ? sa : "?", b->name, b->file ? b->file : "", b->line,
                              sb ? sb : "?");
        }
    }
    out->regions = malloc(s->nents * sizeof *out->regions);
    if (!out->regions)
        return aa_err_set(s->err, AA_EENV, "out of memory reading %s", name);
    for (i = 0; i < s->nents; i = j) {
        out->regions[n++] = s->ents[i].r;
        for (j = i + 1; j < s->nents && s->ents[j].r.id == s->ents[i].r.id; j++)
            aa_region_free_fields(&s->ents[j].r);
    }
    out->nregions = n;
    s->nents = 0; /* all moved or freed */
    return AA_OK;
}

/* One section's contents: a sequence of frames with zero padding between. */
static int read_frames(merge_state *s, const elf *f, size_t off, size_t size)
{
    size_t pos = 0;
    while (pos < size) {
        const unsigned char *p = f->p + off + pos;
        unsigned long plen, hash;
        char hex[9];
        aa_regionmap *m = NULL;
        char *label;
        aa_buf lb;
        int rc, k;
        if (*p == 0) {
            pos++;
            continue;
        }
        if (size - pos < FRAME_HEADER_LEN || memcmp(p, FRAME_MAGIC, FRAME_MAGIC_LEN) != 0)
            return aa_err_set(s->err, AA_EINPUT,
                              "%s: offset %zu: section " AA_REGIONMAP_SECTION
                              " holds no region map frame here (want \"" FRAME_MAGIC "\")",
                              f->name, f->base + off + pos);
        for (k = 0; k < 16; k++) {
            unsigned char c = p[FRAME_MAGIC_LEN + k];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return aa_err_set(s->err, AA_EINPUT,
                                  "%s: offset %zu: malformed region map frame header",
                                  f->name, f->base + off + pos);
        }
        memcpy(hex, p + FRAME_MAGIC_LEN, 8);
        hex[8] = 0;
        plen = strtoul(hex, NULL, 16);
        memcpy(hex, p + FRAME_MAGIC_LEN + 8, 8);
        hash = strtoul(hex, NULL, 16);
        if (plen > size - pos - FRAME_HEADER_LEN)
            return aa_err_set(s->err, AA_EINPUT,
                              "%s: offset %zu: region map frame of %lu bytes runs past the end "
                              "of section " AA_REGIONMAP_SECTION " (%zu bytes left)",
                              f->name, f->base + off + pos, plen,
                              size - pos - FRAME_HEADER_LEN);
        if (fnv1a(p + FRAME_HEADER_LEN, plen) != (uint32_t)hash)
            return aa_err_set(s->err, AA_EINPUT,
                              "%s: offset %zu: region map frame is damaged (checksum mismatch)",
                              f->name, f->base + off + pos);
        aa_buf_init(&lb);
        aa_buf_printf(&lb, "%s[map %zu]", f->name, s->nmaps + 1);
        label = lb.data ? lb.data : (char *)f->name;
        rc = aa_regionmap_read_memory((const char *)p + FRAME_HEADER_LEN, plen, label, &m,
                                      s->err);
        if (rc == AA_OK)
            rc = take_map(s, m, f->name);
        else if (rc != AA_EINPUT && rc != AA_EENV)
            rc = AA_EINPUT;
        aa_regionmap_free(m);
        aa_buf_free(&lb);
        if (rc)
            return rc;
        pos += FRAME_HEADER_LEN + plen;
    }
    return AA_OK;
}

#define SHN_XINDEX_ 0xffffu
#define SHT_NOBITS_ 8u
#define SHF_COMPRESSED_ 0x800u

static int elf_error(merge_state *s, const elf *f, size_t off, const char *what)
{
    return aa_err_set(s->err, AA_EINPUT, "%s: offset %zu: %s", f->name, f->base + off, what);
}

/* Section header i: its fields. */
typedef struct shdr {
    uint64_t name, type, flags, offset, size, link;
} shdr;

static void read_shdr(const elf *f, size_t at, shdr *h)
{
    if (f->is64) {
        h->name = rd(f, at, 4);
        h->type = rd(f, at + 4, 4);
        h->flags = rd(f, at + 8, 8);
        h->offset = rd(f, at + 24, 8);
        h->size = rd(f, at + 32, 8);
        h->link = rd(f, at + 40, 4);
    } else {
        h->name = rd(f, at, 4);
        h->type = rd(f, at + 4, 4);
        h->flags = rd(f, at + 8, 4);
        h->offset = rd(f, at + 16, 4);
        h->size = rd(f, at + 20, 4);
        h->link = rd(f, at + 24, 4);
    }
}

static int read_one_elf(merge_state *s, elf *f)
{
    const unsigned char *p = f->p;
    uint64_t shoff, shnum, shstrndx, shentsize, i;
    size_t ehsize;
    shdr sh0, strh;
    static const char want[] = AA_REGIONMAP_SECTION;

    if (f->len < 16 || memcmp(p, "\177ELF", 4) != 0)
        return aa_err_set(s->err, AA_EINPUT,
                          "%s: not an ELF file (no \\177ELF signature): cannot hold embedded "
                          "region maps",
                          f->name);
    if (p[4] != 1 && p[4] != 2)
        return elf_error(s, f, 4, "unknown ELF class (neither ELF32 nor ELF64)");
    if (p[5] != 1 && p[5] != 2)
        return elf_error(s, f, 5, "unknown ELF byte order");
    f->is64 = p[4] == 2;
    f->big = p[5] == 2;
    ehsize = f->is64 ? 64 : 52;
    if (f->len < ehsize)
        return elf_error(s, f, 0, "truncated ELF header");
    if (f->is64) {
        shoff = rd(f, 40, 8);
        shentsize = rd(f, 58, 2);
        shnum = rd(f, 60, 2);
        shstrndx = rd(f, 62, 2);
    } else {
        shoff = rd(f, 32, 4);
        shentsize = rd(f, 46, 2);
        shnum = rd(f, 48, 2);
        shstrndx = rd(f, 50, 2);
    }
    if (shoff == 0)
        return AA_OK; /* no section headers (stripped to the bone): nothing embedded */
    if (shentsize < (f->is64 ? 64u : 40u))
        return elf_error(s, f, f->is64 ? 58 : 46, "section header entry size too small");
    if (!fits(shoff, shentsize, f->len))
        return elf_error(s, f, f->is64 ? 40 : 32,
                         "section header table starts past the end of the file");
    read_shdr(f, (size_t)shoff, &sh0);
    if (shnum == 0)
        shnum = sh0.size; /* more than 0xff00 sections: count in entry 0 */
    if (shstrndx == SHN_XINDEX_)
        shstrndx = sh0.link;
    if (shnum == 0)
        return AA_OK;
    if (shnum > (f->len - shoff) / shentsize)
        return elf_error(s, f, (size_t)shoff,
                         "section header table runs past the end of the file");
    if (shstrndx == 0 || shstrndx >= shnum)
        return elf_error(s, f, f->is64 ? 62 : 50, "section name table index out of range");
    read_shdr(f, (size_t)(shoff + shstrndx * shentsize), &strh);
    if (strh.type == SHT_NOBITS_ || !fits(strh.offset, strh.size, f->len))
        return elf_error(s, f, (size_t)(shoff + shstrndx * shentsize),
                         "section name table lies outside the file");

    for (i = 1; i < shnum; i++) {
        size_t at = (size_t)(shoff + i * shentsize);
        shdr h;
        int rc;
        read_shdr(f, at, &h);
        /* the name must fit inside the string table, NUL included */
        if (h.name >= strh.size || strh.size - h.name < sizeof want ||
            memcmp(p + strh.offset + h.name, want, sizeof want) != 0)
            continue;
        if (h.type == SHT_NOBITS_)
            continue;
        if (h.flags & SHF_COMPRESSED_)
            return elf_error(s, f, at, "section " AA_REGIONMAP_SECTION " is compressed "
                                       "(not supported)");
        if (!fits(h.offset, h.size, f->len))
            return elf_error(s, f, at, "section " AA_REGIONMAP_SECTION
                                       " lies outside the file (bogus offset or size)");
        rc = read_frames(s, f, (size_t)h.offset, (size_t)h.size);
        if (rc)
            return rc;
    }
    return AA_OK;
}

/* ---- ar archives (static libraries) ---------------------------------------------- */

static int read_archive(merge_state *s, const unsigned char *p, size_t len, const char *name)
{
    size_t pos = 8;
    while (pos < len) {
        char sz[11];
        unsigned long long msize = 0;
        int k;
        elf f;
        if (p[pos] == '\n') { /* padding to an even offset */
            pos++;
            continue;
        }
        if (len - pos < 60 || p[pos + 58] != '`' || p[pos + 59] != '\n')
            return aa_err_set(s->err, AA_EINPUT, "%s: offset %zu: malformed archive member header",
                              name, pos);
        memcpy(sz, p + pos + 48, 10);
        sz[10] = 0;
        for (k = 0; k < 10 && sz[k] != ' '; k++) {
            if (sz[k] < '0' || sz[k] > '9')
                return aa_err_set(s->err, AA_EINPUT,
                                  "%s: offset %zu: malformed archive member size", name, pos + 48);
            msize = msize * 10 + (unsigned)(sz[k] - '0');
        }
        if (msize > len - pos - 60)
            return aa_err_set(s->err, AA_EINPUT,
                              "%s: offset %zu: archive member runs past the end of the file",
                              name, pos);
        /* symbol tables ("/", "/SYM64/") and the long-name table ("//") are not ELF */
        if (p[pos] != '/' || (p[pos + 1] != ' ' && p[pos + 1] != '/' && p[pos + 1] != 'S')) {
            if (msize >= 4 && memcmp(p + pos + 60, "\177ELF", 4) == 0) {
                int rc;
                memset(&f, 0, sizeof f);
                f.p = p + pos + 60;
                f.len = (size_t)msize;
                f.name = name;
                f.base = pos + 60;
                rc = read_one_elf(s, &f);
                if (rc)
                    return rc;
            }
        }
        pos += 60 + (size_t)msize;
    }
    return AA_OK;
}

int aa_regionmap_read_elf_memory(const void *data, size_t len, const char *name,
                                 aa_regionmap **out, size_t *nmaps, aa_err *err)
{
    merge_state s;
    const unsigned char *p = data;
    aa_regionmap *m;
    size_t i;
    int rc;

    *out = NULL;
    if (nmaps)
        *nmaps = 0;
    if (!name)
        name = "input";
    memset(&s, 0, sizeof s);
    s.err = err;
    m = aa_regionmap_new(name);
    if (!m)
        return aa_err_set(err, AA_EENV, "out of memory reading %s", name);
    if (len >= 8 && memcmp(p, "!<arch>\n", 8) == 0) {
        rc = read_archive(&s, p, len, name);
    } else if (len >= 8 && memcmp(p, "!<thin>\n", 8) == 0) {
        rc = aa_err_set(err, AA_EINPUT, "%s: a thin archive: read its member objects instead",
                        name);
    } else {
        elf f;
        memset(&f, 0, sizeof f);
        f.p = p;
        f.len = len;
        f.name = name;
        rc = read_one_elf(&s, &f);
    }
    if (rc == AA_OK)
        rc = finish_merge(&s, m, name);
    for (i = 0; i < s.nents; i++)
        aa_region_free_fields(&s.ents[i].r);
    free(s.ents);
    for (i = 0; i < s.nmaps; i++)
        free(s.sources[i]);
    free(s.sources);
    if (rc) {
        aa_regionmap_free(m);
        return rc;
    }
    if (nmaps)
        *nmaps = s.nmaps;
    *out = m;
    return AA_OK;
}

int aa_regionmap_read_elf(const char *path, aa_regionmap **out, size_t *nmaps, aa_err *err)
{
    int fd, rc;
    struct stat st;
    void *map;

    *out = NULL;
    if (nmaps)
        *nmaps = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return aa_err_set(err, errno == ENOENT ? AA_EINPUT : AA_EENV, "%s: %s", path,
                          strerror(errno));
    if (fstat(fd, &st) != 0) {
        rc = aa_err_set(err, AA_EENV, "%s: %s", path, strerror(errno));
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return aa_err_set(err, AA_EINPUT, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return aa_err_set(err, AA_EINPUT, "%s: not an ELF file (empty)", path);
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return aa_err_set(err, AA_EENV, "%s: too large", path);
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return aa_err_set(err, AA_EENV, "%s: cannot map: %s", path, strerror(errno));
    rc = aa_regionmap_read_elf_memory(map, (size_t)st.st_size, path, out, nmaps, err);
    munmap(map, (size_t)st.st_size);
    return rc;
}
