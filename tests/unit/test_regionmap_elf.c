/*
 * tests/unit/test_regionmap_elf.c -- region maps inside objects and
 * programs (profile/regionmap_elf.c).
 *
 * Round trips through the real compilers: aa_regionmap_embed_asm text
 * appended to a C file, compiled with gcc (and clang, g++, -flto, -m32 where
 * they work here) under -Wall -Wextra -pedantic -Werror, read back from the
 * object, from a static library (ar archive) and from a linked program whose
 * two sources share a base name in different directories (both maps, no
 * collision).  Then hand-made ELF images in all four class/byte-order
 * combinations, and bad input: not ELF, truncated at every length, bogus
 * offsets and huge sizes, damaged frames, conflicting region identities --
 * each AA_EINPUT with "name: ..." and never a crash.  Inputs kept in
 * tests/data/elf/fuzz-regress/ (fuzzer findings) are replayed.
 */
#include "profile/aa_profile.h"
#include "tests/tap.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[512];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int have(const char *tool)
{
    return run("command -v %s >/dev/null 2>&1", tool) == 0;
}

static aa_regionmap *make_map(const char *source, const char *func, uint32_t base, int n)
{
    aa_regionmap *m = aa_regionmap_new(source);
    int i;
    for (i = 0; i < n; i++) {
        aa_region r;
        char name[64];
        memset(&r, 0, sizeof r);
        r.id = base + (uint32_t)i;
        r.kind = i == 0 ? AA_KIND_FUNCTION : AA_KIND_LOOP;
        if (i == 0)
            snprintf(name, sizeof name, "%s", func);
        else
            snprintf(name, sizeof name, "loop@%d", 10 + i);
        r.name = name;
        r.function = (char *)func;
        /* every awkward character the assembler string must carry */
        r.file = (char *)(i == 1 ? "dir with \"quotes\" \\ and ?\?= {|} \t\xc3\xa9.c" : source);
        r.line = 10 + i;
        r.col = 3;
        r.parent = i == 0 ? 0 : base;
        aa_regionmap_add_region(m, &r);
    }
    return m;
}

static void write_text(const char *path, const char *text, const aa_buf *tail)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        diag("cannot write %s", path);
        return;
    }
    fputs(text, fp);
    if (tail && tail->len)
        fwrite(tail->data, 1, tail->len, fp);
    fclose(fp);
}

/* Writes DIR/rel: code followed by the embedded map m. */
static void source_with_map(const char *rel, const char *code, const aa_regionmap *m)
{
    char path[1024];
    aa_buf b;
    aa_err err;
    aa_buf_init(&b);
    if (aa_regionmap_embed_asm(m, &b, &err))
        diag("embed: %s", err.msg);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    write_text(path, code, &b);
    aa_buf_free(&b);
}

static int same_regions(const aa_regionmap *a, const aa_regionmap *b)
{
    size_t i, j;
    if (a->nregions != b->nregions)
        return 0;
    for (i = 0; i < a->nregions; i++) {
        const aa_region *x = &a->regions[i];
        for (j = 0; j < b->nregions; j++)
            if (b->regions[j].id == x->id)
                break;
        if (j == b->nregions || strcmp(b->regions[j].name, x->name) ||
            strcmp(b->regions[j].file, x->file) || b->regions[j].line != x->line)
            return 0;
    }
    return 1;
}

/* Reads path; returns status, *nregions and *nmaps. */
static int read_counts(const char *path, size_t *nregions, size_t *nmaps, aa_err *err)
{
    aa_regionmap *m = NULL;
    int rc = aa_regionmap_read_elf(path, &m, nmaps, err);
    *nregions = m ? m->nregions : 0;
    aa_regionmap_free(m);
    return rc;
}

static const char code_f[] = "int f(int n);\nint f(int n) { return n + 1; }\n";

static void compiler_round_trips(void)
{
    aa_regionmap *m = make_map("src/f.c", "f", 1000, 5), *back = NULL;
    aa_err err;
    size_t nmaps = 0, nr;
    char path[1024];
    int rc;
    static const char *const variants[][2] = {
        {"gcc", "-std=c89 -Wall -Wextra -pedantic -Werror"},
        {"gcc", "-std=c11 -Wall -Wextra -pedantic -Werror -O2"},
        {"gcc", "-std=gnu11 -Wall -Wextra -Wpedantic -Werror -flto -ffat-lto-objects"},
        {"gcc", "-std=c11 -m32 -Wall -Wextra -pedantic -Werror"},
        {"clang", "-std=c11 -Wall -Wextra -pedantic -Werror"},
        {"clang", "-std=c99 -Weverything -Wno-missing-prototypes -Werror"},
        {"g++", "-x c++ -std=c++11 -Wall -Wextra -pedantic -Werror"},
        {"clang++", "-x c++ -Wall -Wextra -pedantic -Werror"},
    };
    size_t v;

    source_with_map("f.c", code_f, m);
    for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const char *cc = variants[v][0], *flags = variants[v][1];
        if (!have(cc)) {
            ok(1, "# SKIP %s not installed", cc);
            continue;
        }
        if (strstr(flags, "-m32") &&
            run("echo 'int x;' | %s -m32 -x c -c - -o %s/m32.o 2>/dev/null", cc, dir) != 0) {
            ok(1, "# SKIP %s cannot build -m32 objects here", cc);
            continue;
        }
        rc = run("cd %s && %s %s -c f.c -o f%zu.o 2>f%zu.err", dir, cc, flags, v, v);
        if (!ok(rc == 0, "%s %s compiles the embedded map without a warning", cc, flags)) {
            snprintf(path, sizeof path, "%s/f%zu.err", dir, v);
            run("sed 's/^/#   /' %s | head -10", path);
            continue;
        }
        snprintf(path, sizeof path, "%s/f%zu.o", dir, v);
        rc = aa_regionmap_read_elf(path, &back, &nmaps, &err);
        if (!ok(rc == AA_OK && back && nmaps == 1 && same_regions(m, back),
                "%s %s: the object carries the map (quotes, backslashes, ?\?=, UTF-8 intact)", cc,
                flags))
            diag("rc %d nmaps %zu: %s", rc, nmaps, rc ? err.msg : "");
        aa_regionmap_free(back);
        back = NULL;
    }

    /* a plain object: no section, an empty map */
    write_text((snprintf(path, sizeof path, "%s/plain.c", dir), path), code_f, NULL);
    if (run("cd %s && gcc -c plain.c -o plain.o", dir) == 0) {
        snprintf(path, sizeof path, "%s/plain.o", dir);
        rc = read_counts(path, &nr, &nmaps, &err);
        ok(rc == AA_OK && nr == 0 && nmaps == 0, "an object without the section: empty map");
    }

    /* the section is not allocated: no memory at run time */
    ok(run("cd %s && readelf -SW f1.o | grep -F .autoanalyzer.regions | grep -vq ' A '", dir) == 0,
       "the section has no ALLOC flag");

    /* static library: two members with maps, one without */
    {
        aa_regionmap *g = make_map("src/g.c", "g", 2000, 3);
        source_with_map("g.c", "int g(void);\nint g(void) { return 2; }\n", g);
        rc = run("cd %s && gcc -c g.c -o g.o && rm -f lib.a && ar rcs lib.a f1.o g.o plain.o",
                 dir);
        ok(rc == 0, "static library built");
        snprintf(path, sizeof path, "%s/lib.a", dir);
        rc = read_counts(path, &nr, &nmaps, &err);
        if (!ok(rc == AA_OK && nmaps == 2 && nr == 8, "static library: both members' maps"))
            diag("rc %d nmaps %zu regions %zu: %s", rc, nmaps, nr, rc ? err.msg : "");
        /* a program linked against it carries the maps of the members it uses */
        write_text((snprintf(path, sizeof path, "%s/main.c", dir), path),
                   "int g(void);\nint main(void) { return g() - 2; }\n", NULL);
        rc = run("cd %s && gcc main.c lib.a -o withlib && ./withlib", dir);
        ok(rc == 0, "program linked with the library runs");
        snprintf(path, sizeof path, "%s/withlib", dir);
        rc = read_counts(path, &nr, &nmaps, &err);
        ok(rc == AA_OK && nmaps == 1 && nr == 3,
           "program: the map of the member it linked (g.o), not of unused f1.o");
        aa_regionmap_free(g);
    }

    /* one-step build of a/x.c and b/x.c: same base name, both maps */
    {
        aa_regionmap *a = make_map("a/x.c", "xa", 3000, 4), *b = make_map("b/x.c", "xb", 4000, 6);
        aa_regionmap *prog = NULL;
        run("mkdir -p %s/a %s/b", dir, dir);
        source_with_map("a/x.c", "int xa(void);\nint xa(void) { return 1; }\n", a);
        source_with_map("b/x.c", "int xa(void);\nint main(void) { return xa() - 1; }\n", b);
        rc = run("cd %s && gcc -Wall -Wextra -pedantic -Werror -o prog a/x.c b/x.c && ./prog", dir);
        ok(rc == 0, "cc -o prog a/x.c b/x.c builds and runs");
        snprintf(path, sizeof path, "%s/prog", dir);
        rc = aa_regionmap_read_elf(path, &prog, &nmaps, &err);
        ok(rc == AA_OK && nmaps == 2 && prog && prog->nregions == 10,
           "the program carries both maps (2 frames, 10 regions)");
        if (prog) {
            size_t i;
            int found_a = 0, found_b = 0;
            for (i = 0; i < prog->nregions; i++) {
                found_a += strcmp(prog->regions[i].function, "xa") == 0;
                found_b += strcmp(prog->regions[i].function, "xb") == 0;
            }
            ok(found_a == 4 && found_b == 6, "regions of a/x.c and of b/x.c, none lost");
            is_str(prog->source, path, "merged map's source is the program");
        }
        aa_regionmap_free(prog);
        prog = NULL;
        /* a shared library carries its own objects' maps */
        if (run("cd %s && gcc -shared -fPIC -o libx.so a/x.c", dir) == 0) {
            snprintf(path, sizeof path, "%s/libx.so", dir);
            rc = read_counts(path, &nr, &nmaps, &err);
            ok(rc == AA_OK && nmaps == 1 && nr == 4, "a shared library carries its map");
        }
        /* stripped programs keep the section (not debug information) */
        if (run("cd %s && strip -o prog.stripped prog 2>/dev/null", dir) == 0) {
            snprintf(path, sizeof path, "%s/prog.stripped", dir);
            rc = read_counts(path, &nr, &nmaps, &err);
            ok(rc == AA_OK && nmaps == 2 && nr == 10, "strip keeps the maps");
        }
        aa_regionmap_free(a);
        aa_regionmap_free(b);
    }
    aa_regionmap_free(m);
}

/* ---- hand-made ELF images ----------------------------------------------------- */

static void put(unsigned char *p, uint64_t v, int size, int big)
{
    int i;
    for (i = 0; i < size; i++)
        p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static uint32_t fnv(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 16777619u;
    }
    return h;
}

/* A frame (docs/profile-format.md) around m's XML, appended to b. */
static void frame(aa_buf *b, const aa_regionmap *m)
{
    aa_buf x;
    aa_err err;
    aa_buf_init(&x);
    aa_regionmap_write_buf(m, &x, &err);
    aa_buf_printf(b, "AAREGMAP%08lx%08lx", (unsigned long)x.len, (unsigned long)fnv(x.data, x.len));
    aa_buf_add(b, x.data, x.len);
    aa_buf_free(&x);
}

/* ELF image: header, section contents, .shstrtab, section headers
 * (null, .autoanalyzer.regions, .shstrtab). */
static unsigned char *make_elf(int is64, int big, const aa_buf *sec, size_t *len)
{
    static const char strtab[] = "\0.autoanalyzer.regions\0.shstrtab";
    size_t eh = is64 ? 64 : 52, she = is64 ? 64 : 40;
    size_t secoff = eh, stroff = secoff + sec->len, shoff = stroff + sizeof strtab;
    size_t total = shoff + 3 * she, i;
    unsigned char *p = calloc(1, total);
    memcpy(p, "\177ELF", 4);
    p[4] = is64 ? 2 : 1;
    p[5] = big ? 2 : 1;
    p[6] = 1;
    put(p + 16, 1, 2, big); /* ET_REL */
    if (is64) {
        put(p + 40, shoff, 8, big);
        put(p + 52, eh, 2, big);
        put(p + 58, she, 2, big);
        put(p + 60, 3, 2, big);
        put(p + 62, 2, 2, big);
    } else {
        put(p + 32, shoff, 4, big);
        put(p + 40, eh, 2, big);
        put(p + 46, she, 2, big);
        put(p + 48, 3, 2, big);
        put(p + 50, 2, 2, big);
    }
    memcpy(p + secoff, sec->data, sec->len);
    memcpy(p + stroff, strtab, sizeof strtab);
    for (i = 1; i < 3; i++) {
        unsigned char *h = p + shoff + i * she;
        uint64_t name = i == 1 ? 1 : 23, off = i == 1 ? secoff : stroff;
        uint64_t size = i == 1 ? sec->len : sizeof strtab, type = i == 1 ? 1 : 3;
        put(h, name, 4, big);
        put(h + 4, type, 4, big);
        if (is64) {
            put(h + 24, off, 8, big);
            put(h + 32, size, 8, big);
        } else {
            put(h + 16, off, 4, big);
            put(h + 20, size, 4, big);
        }
    }
    *len = total;
    return p;
}

/* 1 when reading data gives AA_EINPUT, no map, and a message naming "img"
 * that contains want (when not NULL). */
static int rejects(const unsigned char *data, size_t len, const char *want, aa_err *err)
{
    aa_regionmap *m = NULL;
    int rc = aa_regionmap_read_elf_memory(data, len, "img", &m, NULL, err);
    int good = rc == AA_EINPUT && m == NULL && strncmp(err->msg, "img", 3) == 0 &&
               (!want || strstr(err->msg, want));
    if (!good)
        diag("rc %d: %s", rc, rc ? err->msg : "(accepted)");
    aa_regionmap_free(m);
    return good;
}

static void synthetic(void)
{
    aa_regionmap *m1 = make_map("one.c", "one", 10, 3), *m2 = make_map("two.c", "two", 20, 2);
    aa_regionmap *out = NULL;
    aa_buf sec;
    aa_err err;
    size_t len, nmaps, cut;
    unsigned char *img;
    int is64, big, rc, all_ok;

    /* two frames, zero padding before, between and after, shared region 10 */
    aa_buf_init(&sec);
    aa_buf_add(&sec, "\0\0\0", 3);
    frame(&sec, m1);
    aa_buf_add(&sec, "\0\0\0\0\0\0\0", 7);
    frame(&sec, m2);
    frame(&sec, m1); /* the same map twice (e.g. a header compiled into two objects) */
    aa_buf_add(&sec, "\0\0\0\0", 4);
    for (is64 = 0; is64 < 2; is64++)
        for (big = 0; big < 2; big++) {
            img = make_elf(is64, big, &sec, &len);
            rc = aa_regionmap_read_elf_memory(img, len, "img", &out, &nmaps, &err);
            if (!ok(rc == AA_OK && nmaps == 3 && out && out->nregions == 5,
                    "ELF%d %s-endian: 3 frames with zero padding, 5 distinct regions",
                    is64 ? 64 : 32, big ? "big" : "little"))
                diag("rc %d nmaps %zu: %s", rc, nmaps, rc ? err.msg : "");
            aa_regionmap_free(out);
            out = NULL;
            free(img);
        }

    /* truncated at every length: rejected or read, never a crash */
    img = make_elf(1, 0, &sec, &len);
    all_ok = 1;
    for (cut = 0; cut < len; cut++) {
        rc = aa_regionmap_read_elf_memory(img, cut, "img", &out, NULL, &err);
        if (rc != AA_EINPUT || out || strncmp(err.msg, "img", 3) != 0) {
            if (all_ok)
                diag("cut at %zu: rc %d %s", cut, rc, err.msg);
            all_ok = 0;
        }
        aa_regionmap_free(out);
        out = NULL;
    }
    ok(all_ok, "truncated at each of %zu lengths: AA_EINPUT naming the input", len);
    ok(rejects(img, 10, "not an ELF file", &err), "10 bytes: not an ELF file (%s)", err.msg);
    ok(rejects(img, 40, "truncated ELF header", &err), "40 bytes: %s", err.msg);

    /* bogus fields (ELF64 little endian: shoff at 40, shentsize 58, shnum 60, shstrndx 62) */
    {
        unsigned char *bad = malloc(len);
        size_t shoff = len - 3 * 64;
#define BAD(mutation, want, what)                                                                \
    do {                                                                                         \
        memcpy(bad, img, len);                                                                   \
        mutation;                                                                                \
        ok(rejects(bad, len, want, &err), what ": %s", err.msg);                                 \
    } while (0)
        BAD(put(bad + 40, (uint64_t)len + 100, 8, 0), "past the end", "section headers past the end");
        BAD(put(bad + 40, UINT64_MAX - 10, 8, 0), "past the end", "section header offset near 2^64");
        BAD(put(bad + 60, 0xfff0, 2, 0), "past the end", "huge section count");
        BAD(put(bad + 58, 8, 2, 0), "entry size", "section header entry size too small");
        BAD(put(bad + 62, 9, 2, 0), "name table index", "name table index out of range");
        BAD(put(bad + shoff + 64 + 24, (uint64_t)len, 8, 0), "outside the file", "section offset past the end");
        BAD(put(bad + shoff + 64 + 32, UINT64_MAX, 8, 0), "outside the file", "section size 2^64-1");
        BAD(put(bad + shoff + 128 + 32, UINT64_MAX / 2, 8, 0), "outside the file", "name table size huge");
        BAD(bad[4] = 7, "ELF class", "unknown ELF class");
        BAD(bad[5] = 0, "byte order", "unknown byte order");
        BAD(bad[64 + 3] = 'X', "no region map frame", "damaged frame magic");
        BAD(bad[64 + 3 + 8] = 'g', "frame header", "non-hex frame length");
        BAD(bad[64 + 3 + 8] = 'f', "runs past the end", "frame length beyond the section");
        BAD(bad[64 + 3 + 30] ^= 1, "checksum", "payload changed: checksum mismatch");
        BAD(bad[len - 3 * 64 - 33 - 2] = 'Z', "no region map frame", "junk after the last frame");
        BAD(put(bad + shoff + 64 + 8, 0x800, 8, 0), "compressed", "compressed section");
#undef BAD
        /* a name offset outside the string table: the section is just not found */
        memcpy(bad, img, len);
        put(bad + shoff + 64, 100000, 4, 0);
        rc = aa_regionmap_read_elf_memory(bad, len, "img", &out, &nmaps, &err);
        ok(rc == AA_OK && nmaps == 0, "section name offset out of range: no section, no crash");
        aa_regionmap_free(out);
        out = NULL;
        /* a map whose XML is bad: the XML reader's message, naming the file */
        memcpy(bad, img, len);
        {
            char *x = memchr(bad + 64, '<', 200);
            uint32_t h;
            size_t plen;
            char head[17];
            x[1] = '!';
            memcpy(head, bad + 64 + 3 + 8, 8);
            head[8] = 0;
            plen = strtoul(head, NULL, 16);
            h = fnv((const char *)bad + 64 + 3 + 24, plen);
            snprintf(head, sizeof head, "%08lx", (unsigned long)h);
            memcpy(bad + 64 + 3 + 16, head, 8);
        }
        ok(rejects(bad, len, "img[map 1]", &err), "malformed XML in a frame: %s", err.msg);
        free(bad);
    }
    free(img);

    /* conflicting identities: region 10 means two things */
    {
        aa_regionmap *c = make_map("other.c", "other", 10, 1);
        aa_buf s2;
        aa_buf_init(&s2);
        frame(&s2, m1);
        frame(&s2, c);
        img = make_elf(1, 1, &s2, &len);
        ok(rejects(img, len, "region 10", &err), "one id, two identities: %s", err.msg);
        ok(strstr(err.msg, "one.c") && strstr(err.msg, "other.c"), "names both sources");
        free(img);
        aa_buf_free(&s2);
        aa_regionmap_free(c);
    }

    /* not ELF, empty, archives */
    ok(rejects((const unsigned char *)"#!/bin/sh\necho hi\n", 18, "not an ELF file", &err),
       "a shell script: %s", err.msg);
    ok(rejects((const unsigned char *)"", 0, "not an ELF file", &err), "empty input");
    ok(rejects((const unsigned char *)"!<thin>\nxxxx", 12, "thin archive", &err), "thin archive");
    ok(rejects((const unsigned char *)"!<arch>\nfoo.o/          0           0     0     644     "
                                      "99999     `\n",
               68, "past the end", &err),
       "archive member larger than the file: %s", err.msg);
    ok(rejects((const unsigned char *)"!<arch>\nfoo.o/  junk", 20, "member header", &err),
       "archive member header cut short: %s", err.msg);
    ok(aa_regionmap_read_elf("/nonexistent/prog", &out, NULL, &err) == AA_EINPUT && !out &&
           strstr(err.msg, "/nonexistent/prog"),
       "missing file: %s", err.msg);

    aa_buf_free(&sec);
    aa_regionmap_free(m1);
    aa_regionmap_free(m2);
}

/* Fuzzer findings: read without crashing, AA_OK or AA_EINPUT naming the input. */
static void regressions(const char *d)
{
    DIR *dp = opendir(d);
    struct dirent *de;
    int n = 0, good = 1;
    if (!dp) {
        ok(0, "%s is there", d);
        return;
    }
    while ((de = readdir(dp))) {
        char path[1024];
        char *data = NULL;
        size_t len = 0;
        aa_regionmap *m = NULL;
        aa_err err;
        int rc;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", d, de->d_name);
        if (aa_read_file(path, &data, &len, &err))
            continue;
        rc = aa_regionmap_read_elf_memory(data, len, "fuzz", &m, NULL, &err);
        if (rc != AA_OK && (rc != AA_EINPUT || m || strncmp(err.msg, "fuzz", 4) != 0)) {
            diag("%s: rc %d %s", path, rc, err.msg);
            good = 0;
        }
        aa_regionmap_free(m);
        free(data);
        n++;
    }
    closedir(dp);
    ok(good && n > 0, "%d inputs of %s read safely", n, d);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/aa-rmelf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    synthetic();
    regressions("tests/data/elf/fuzz-regress");
    if (have("gcc") && have("ar") && have("readelf"))
        compiler_round_trips();
    else
        ok(1, "# SKIP gcc, ar or readelf missing: no compiler round trip");
    run("rm -rf '%s'", dir);
    return tap_done();
}
