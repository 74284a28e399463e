/*
 * fuzz/fuzz_instrument.c -- libFuzzer target for the instrumenter
 * (`make fuzz-instrument`, part of `make fuzz`).
 *
 * The first byte of an input picks how the rest is used:
 *   even: the rest is C source as it is (the seed corpus is
 *         tests/instrument/torture/), so mutations exercise the source
 *         scanner, parse-error reporting and whatever still parses;
 *   odd:  the rest drives a small grammar that always writes a valid
 *         translation unit (nested loops, call statements, error and loop
 *         macros, switch with case ranges, goto and labels, #if/#else,
 *         statement expressions, user region pragmas, OpenMP/unroll
 *         pragmas, inline functions), so mutations reach the region
 *         checks and the rewrite.
 * The text is written to a private temporary file and given to
 * aa_instrument_file in every mode (modes from the second byte), with
 * diagnostics going to /dev/null.  Besides crashes, leaks and undefined
 * behaviour (ASan+UBSan), it checks the contract: AA_OK with a region map,
 * or AA_EINPUT/AA_EENV with a message naming the file.
 */
#include "instrument/aa_instrument.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static FILE *devnull;

/* ---- the grammar ---------------------------------------------------------- */

typedef struct gen {
    const uint8_t *p, *end;
    aa_buf out;
    int loops;    /* enclosing loops (break/continue allowed) */
    int labels;   /* labels defined so far in the function */
    int gotos;    /* highest label a forward goto names, +1 */
    int regions;  /* user region names */
    int budget;   /* statements left */
} gen;

static unsigned next(gen *g)
{
    return g->p < g->end ? *g->p++ : 0;
}

static void stmts(gen *g, int depth);

static void stmt(gen *g, int depth)
{
    unsigned op = next(g) % 24, k = next(g);
    if (g->budget-- <= 0 || depth > 40)
        op = 3;
    switch (op) {
    case 0:
        aa_buf_printf(&g->out, "for (int i%d = 0; i%d < n; i%d++) {\n", depth, depth, depth);
        g->loops++;
        stmts(g, depth + 1);
        g->loops--;
        aa_buf_puts(&g->out, "}\n");
        break;
    case 1:
        aa_buf_puts(&g->out, "while (j < n) {\nj++;\n");
        g->loops++;
        stmts(g, depth + 1);
        g->loops--;
        aa_buf_puts(&g->out, "}\n");
        break;
    case 2:
        aa_buf_puts(&g->out, "do\n");
        g->loops++;
        stmt(g, depth + 1);
        g->loops--;
        aa_buf_puts(&g->out, "while (0);\n");
        break;
    case 3:
        aa_buf_puts(&g->out, k & 1 ? "x = sqrt(x);\n" : "x += cos(x);\n");
        break;
    case 4:
        aa_buf_puts(&g->out, k & 1 ? "memset(buf, 0, sizeof buf);\n" : "(void)strlen(buf);\n");
        break;
    case 5:
        aa_buf_puts(&g->out, k & 1 ? "CHECK(printf(\"%d\", n));\n" : "SUM(n, j);\n");
        break;
    case 6:
        aa_buf_puts(&g->out, "LOOP(2) {\n");
        g->loops++;
        stmts(g, depth + 1);
        g->loops--;
        aa_buf_puts(&g->out, "}\n");
        break;
    case 7:
        aa_buf_puts(&g->out, "if (n > 1)\n");
        stmt(g, depth + 1);
        if (k & 1) {
            aa_buf_puts(&g->out, "else\n");
            stmt(g, depth + 1);
        }
        break;
    case 8:
        aa_buf_puts(&g->out, "switch (n) {\ncase 0:\n");
        stmts(g, depth + 1);
        aa_buf_puts(&g->out, "break;\ncase 1 ... 3:\n");
        g->loops++; /* break is fine in a switch */
        stmts(g, depth + 1);
        g->loops--;
        aa_buf_puts(&g->out, "default:\nbreak;\n}\n");
        break;
    case 9:
        if (k & 1 && g->labels)
            aa_buf_printf(&g->out, "if (j > 100) goto L%u;\n", k % (unsigned)g->labels);
        else if (g->gotos < 8)
            aa_buf_printf(&g->out, "if (j > 100) goto E%d;\n", g->gotos++);
        break;
    case 10:
        aa_buf_printf(&g->out, "L%d: j++;\n", g->labels++);
        break;
    case 11:
        aa_buf_printf(&g->out, "#if %u\n", k & 1);
        stmt(g, depth + 1);
        aa_buf_puts(&g->out, "#else\n");
        stmt(g, depth + 1);
        aa_buf_puts(&g->out, "#endif\n");
        break;
    case 12:
        aa_buf_puts(&g->out, "j += ({ int s_ = 0;\n");
        stmts(g, depth + 1);
        aa_buf_puts(&g->out, "s_; });\n");
        break;
    case 13:
        aa_buf_printf(&g->out, "#pragma autoanalyzer region r%d\n", g->regions++);
        stmts(g, depth + 1);
        if (k % 7)
            aa_buf_puts(&g->out, "#pragma autoanalyzer end\n");
        break;
    case 14:
        aa_buf_puts(&g->out, k & 1 ? "#pragma omp parallel for\n" : "_Pragma(\"GCC unroll 2\")\n");
        aa_buf_puts(&g->out, "for (int p = 0; p < n; p++)\n");
        g->loops++;
        stmt(g, depth + 1);
        g->loops--;
        break;
    case 15:
        aa_buf_puts(&g->out, "if (n < 0)\nreturn n;\n");
        break;
    case 16:
        aa_buf_puts(&g->out, k & 1 ? "CALL(memset(buf, 1, 2));\n" : "x = CALL(sqrt(x));\n");
        break;
    case 17:
        aa_buf_puts(&g->out, "{\n");
        stmts(g, depth + 1);
        aa_buf_puts(&g->out, "}\n");
        break;
    case 18:
        aa_buf_puts(&g->out, "if (strlen(buf) > 2) x = cos(x);\n");
        break;
    case 19:
        if (g->loops)
            aa_buf_puts(&g->out, k & 1 ? "if (j == 3) break;\n" : "if (j == 4) continue;\n");
        break;
    case 20:
        aa_buf_puts(&g->out, "FOREVER {\nbreak;\n}\n");
        break;
    case 21:
        aa_buf_puts(&g->out, k & 1 ? "j = helper(j);\n" : "j += k_r(j, 2);\n");
        break;
    case 22:
        aa_buf_puts(&g->out, "{ struct pt q = {1, 2}; (void)memcpy(&q, &(struct pt){3, 4}, sizeof q); j += q.a; }\n");
        break;
    default:
        aa_buf_printf(&g->out, "j += %u;\n", k);
        break;
    }
}

static void stmts(gen *g, int depth)
{
    unsigned n = next(g) % 5;
    for (unsigned i = 0; i < n; i++)
        stmt(g, depth);
}

static void function(gen *g, int idx)
{
    static const char *const heads[] = {
        "int f%d(int n)", "static inline int f%d(int n)", "inline int f%d(int n)",
        "int f%d(n)\nint n;", "__inline__ int f%d(int n)", "static int f%d(int n)",
    };
    unsigned h = next(g) % (sizeof heads / sizeof heads[0]);
    g->labels = g->gotos = 0;
    aa_buf_printf(&g->out, heads[h], idx);
    aa_buf_puts(&g->out, "\n{\nint j = 0;\ndouble x = n;\nchar buf[16] = \"abc\";\n");
    stmts(g, 0);
    while (g->budget > 0 && g->p < g->end && next(g) % 3)
        stmt(g, 0);
    for (int e = 0; e < g->gotos; e++)
        aa_buf_printf(&g->out, "E%d: j--;\n", e);
    aa_buf_puts(&g->out, "return j + (int)x + buf[0];\n}\n");
}

static void generate(gen *g)
{
    aa_buf_puts(&g->out,
                "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
                "#define CHECK(x) do { if ((x) < 0) return 1; } while (0)\n"
                "#define SUM(n, a) do { for (int q_ = 0; q_ < (n); q_++) (a) += q_; } while (0)\n"
                "#define LOOP(n) for (int l_ = 0; l_ < (n); l_++)\n"
                "#define FOREVER for (;;)\n"
                "#define CALL(x) x\n"
                "struct pt { int a, b; };\n"
                "static int helper(int v) { return v + 1; }\n"
                "static int k_r(a, b) int a; int b; { return a * b; }\n");
    for (int i = 0; g->p < g->end && i < 8; i++)
        function(g, i);
}

/* ---- the target ------------------------------------------------------------ */

static int write_input(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

static void remove_input(void)
{
    unlink(path);
}

/* The inputs fuzz/fuzz_replay.c replays in `make check`. */
const char *const fuzz_replay_dirs[] = {"tests/data/instrument/fuzz-regress",
                                        "fuzz/corpus/instrument", NULL};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int fd;
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "/tmp/aa-fuzz-instrument-XXXXXX.c");
    fd = mkstemps(path, 2);
    if (fd < 0) {
        perror("mkstemps");
        abort();
    }
    close(fd);
    devnull = fopen("/dev/null", "w");
    atexit(remove_input);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const flags[] = {"-Itests/instrument/torture", "-std=gnu11"};
    aa_instrument_opts o;
    aa_instrument_result res;
    aa_err err;
    int rc;

    if (size < 2)
        return 0;
    memset(&o, 0, sizeof o);
    o.modes = data[1] ? data[1] : AA_MODE_ALL;
    o.diag = devnull;
    o.verbose = data[0] & 2;
    o.display_name = "fuzz.c";
    if (data[0] & 1) {
        gen g;
        memset(&g, 0, sizeof g);
        g.p = data + 2;
        g.end = data + size;
        g.budget = 400;
        aa_buf_init(&g.out);
        generate(&g);
        rc = write_input((const uint8_t *)g.out.data, g.out.len);
        aa_buf_free(&g.out);
    } else {
        rc = write_input(data + 2, size - 2);
    }
    if (rc)
        return 0;
    aa_err_clear(&err);
    rc = aa_instrument_file(path, 2, flags, &o, &res, &err);
    if (rc == AA_OK) {
        if (!res.map || !res.source.data) {
            fprintf(stderr, "AA_OK without a result\n");
            abort();
        }
        aa_instrument_result_free(&res);
    } else if ((rc != AA_EINPUT && rc != AA_EENV) || !strstr(err.msg, "fuzz.c")) {
        fprintf(stderr, "unexpected status %d: %s\n", rc, err.msg);
        abort();
    }
    return 0;
}
