/*
 * tests/unit/test_instrument.c -- instrument/: mode parsing, filter and plan
 * files (good and bad, with file:line), the call tables, region ids (a hash
 * of identity, not of line numbers: stable when unrelated code changes),
 * the refine/plan selection, and that the prelude's copy of the probe ABI
 * agrees with runtime/aa_probe.h (both compiled together by the system
 * compiler).
 */
#include "instrument/aa_instrument.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int instr_call_tables_sorted(void);

static char dir[] = "/tmp/aa-test-instr.XXXXXX";

static char *path_in(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *name, const char *text)
{
    FILE *f = fopen(path_in(name), "w");
    fputs(text, f);
    fclose(f);
}

static void test_modes(void)
{
    unsigned m;
    aa_err err;
    ok(aa_instrument_parse_modes("functions,outer-loops", &m, &err) == 0 && m == AA_MODE_DEFAULT,
       "default modes");
    ok(aa_instrument_parse_modes("mpi", &m, &err) == 0 && m == AA_MODE_MPI, "mpi");
    ok(aa_instrument_parse_modes("inner-loops", &m, &err) == 0 &&
           (m & AA_MODE_INNER_LOOPS) && (m & AA_MODE_OUTER_LOOPS), "inner-loops means all loops");
    ok(aa_instrument_parse_modes("functons", &m, &err) == AA_EUSAGE && strstr(err.msg, "functons"),
       "unknown mode rejected: %s", err.msg);
    ok(instr_call_tables_sorted(), "call name tables sorted (bsearch)");
}

static void test_filter(void)
{
    aa_instr_filter *f = aa_instr_filter_new();
    aa_err err;
    put("good.filter", "# comment\nSCOREP_REGION_NAMES_BEGIN\n  EXCLUDE solve_* helper\n"
                       "  INCLUDE solve_main\nSCOREP_REGION_NAMES_END\n\n"
                       "SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE */generated/*\nSCOREP_FILE_NAMES_END\n");
    ok(aa_instr_filter_load(f, path_in("good.filter"), &err) == 0, "filter file loads");
    ok(!aa_instr_filter_accepts(f, "a.c", "solve_x"), "EXCLUDE glob");
    ok(aa_instr_filter_accepts(f, "a.c", "solve_main"), "later INCLUDE wins");
    ok(!aa_instr_filter_accepts(f, "src/generated/b.c", "main"), "file EXCLUDE");
    ok(aa_instr_filter_accepts(f, "src/b.c", "main"), "default include");
    aa_instr_filter_free(f);
    f = aa_instr_filter_new();
    put("bad.filter", "SCOREP_REGION_NAMES_BEGIN\n\n  DROP foo\nSCOREP_REGION_NAMES_END\n");
    ok(aa_instr_filter_load(f, path_in("bad.filter"), &err) == AA_EINPUT &&
           strstr(err.msg, "bad.filter:3:"), "bad filter names file:line: %s", err.msg);
    put("bad2.filter", "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE x\n");
    ok(aa_instr_filter_load(f, path_in("bad2.filter"), &err) == AA_EINPUT, "unterminated section");
    put("bad3.filter", "SCOREP_REGION_NAMES_BEGIN junk\n EXCLUDE x\nSCOREP_REGION_NAMES_END\n");
    ok(aa_instr_filter_load(f, path_in("bad3.filter"), &err) == AA_EINPUT &&
           strstr(err.msg, "bad3.filter:1: unexpected 'junk'"), "junk after BEGIN: %s", err.msg);
    put("bad4.filter", "SCOREP_REGION_NAMES_BEGIN\n EXCLUDE\nSCOREP_REGION_NAMES_END\n");
    ok(aa_instr_filter_load(f, path_in("bad4.filter"), &err) == AA_EINPUT &&
           strstr(err.msg, "bad4.filter:2: EXCLUDE without a name"), "EXCLUDE alone: %s", err.msg);
    aa_instr_filter_free(f);
}

static void test_plan(void)
{
    aa_instr_plan *p = aa_instr_plan_new();
    aa_err err;
    put("p.plan", "# plan\neliminate main 12\nsplit solve\n");
    ok(aa_instr_plan_load(p, path_in("p.plan"), &err) == 0, "plan loads");
    put("bad.plan", "eliminate x\nfrobnicate y\n");
    ok(aa_instr_plan_load(p, path_in("bad.plan"), &err) == AA_EINPUT &&
           strstr(err.msg, "bad.plan:2:"), "bad plan names file:line: %s", err.msg);
    put("a.json", "{\"disparity\":{\"bottlenecks\":[{\"region\":42,\"name\":\"x\"}]},"
                  "\"dissimilarity\":{\"bottlenecks\":[{\"region\": 7}]}}");
    ok(aa_instr_plan_load_refine(p, path_in("a.json"), &err) == 0, "refine from analysis JSON");
    /* round 1 found nothing: the suspects are where round 2 looks */
    put("sus.json", "{\"dissimilarity\":{\"bottlenecks\":[],\"suspects\":[{\"region\":9}]},"
                    "\"disparity\":{\"bottlenecks\":[]}}");
    ok(aa_instr_plan_load_refine(p, path_in("sus.json"), &err) == 0,
       "refine from the suspects of an analysis without findings");
    put("empty.json", "{\"regions\":[]}");
    ok(aa_instr_plan_load_refine(p, path_in("empty.json"), &err) == AA_EINPUT,
       "refine with no critical region is bad input");
    aa_instr_plan_free(p);
}

/* Malformed refine and plan files: exit-3 errors naming file:line. */
static void test_plan_bad(void)
{
    static const struct { const char *file, *text, *want; int refine; } cases[] = {
        {"trunc.json", "{\"dissimilarity\":{\"bottlenecks\":[{\"region\":4",
         "trunc.json:1: expected ',' or '}' (the JSON ends early)", 1},
        {"str.json", "{\"disparity\":{\"bottlenecks\":[\n{\"region\":\"abc\"}]}}",
         "str.json:2: \"region\" must be a region id", 1},
        {"big.json", "{\"disparity\":{\"bottlenecks\":[{\"region\":4294967296}]}}",
         "big.json:1: \"region\" must be a region id", 1},
        {"frac.json", "{\"disparity\":{\"bottlenecks\":[{\"region\":1.5}]}}",
         "frac.json:1: \"region\" must be a region id", 1},
        {"susobj.json", "{\"dissimilarity\":{\"bottlenecks\":[],\n\"suspects\":{}}}",
         "susobj.json:2: \"suspects\" must be an array, not object", 1},
        {"susneg.json", "{\"dissimilarity\":{\"bottlenecks\":[],\"suspects\":[{\"region\":-1}]}}",
         "susneg.json:1: \"region\" must be a region id", 1},
        {"other.json", "{\"regions\":[{\"region\":3}]}",
         "other.json:1: no \"dissimilarity\" or \"disparity\"", 1},
        {"garbage.json", "{garbage", "garbage.json:1: expected a member name in quotes", 1},
        {"bad.xml", "<a>\n<b region=\"12\">\n</a>", "bad.xml:3:", 1},
        {"badid.xml", "<a>\n<b region=\"x1\"/></a>", "badid.xml:2: region=\"x1\" is not a region id", 1},
        {"two.txt", "solve\nsolve extra\n", "two.txt:2: one region id or name per line", 1},
        {"bigid.txt", "# c\n99999999999\n", "bigid.txt:2: '99999999999' is not a region id (ids are below 2^32)", 1},
        {"hex.txt", "0x1ffffffff\n", "hex.txt:1: '0x1ffffffff' is not a region id (ids are below 2^32)", 1},
        {"junk.txt", "12abc\n", "junk.txt:1: '12abc' is not a region id or name", 1},
        {"cxx.txt", "ns::Vec<T>::norm\n(anonymous)::f\nmain/lambda@4\nx\"y\n",
         "cxx.txt:4: 'x\"y' is not a region id or name", 1},
        {"nul.txt", "solve\n\nx\0y\n", "nul.txt:3: NUL byte", 1},
        {"c1.plan", "eliminate solve\n# x\nsplit solve\n",
         "c1.plan:3: 'split solve' contradicts 'eliminate solve' at ", 0},
        {"c2.plan", "merge a b\nmerge b c\n", "c2.plan:2: 'merge b' contradicts 'merge b' at ", 0},
        {"c3.plan", "merge a a\n", "c3.plan:1: 'a' appears twice in one merge", 0},
        {"c4.plan", "split 12\neliminate x 12\n", "c4.plan:2: 'eliminate 12' contradicts", 0},
        {"q.plan", "eliminate \"solve\"\n", "q.plan:1: '\"solve\"' is not a region id or name", 0},
    };
    aa_err err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aa_instr_plan *p = aa_instr_plan_new();
        FILE *f = fopen(path_in(cases[i].file), "w");
        int rc;
        fwrite(cases[i].text, 1, strlen(cases[i].text) + (strstr(cases[i].file, "nul") ? 3 : 0), f);
        fclose(f);
        rc = cases[i].refine ? aa_instr_plan_load_refine(p, path_in(cases[i].file), &err)
                             : aa_instr_plan_load(p, path_in(cases[i].file), &err);
        ok(rc == AA_EINPUT, "%s is bad input", cases[i].file);
        ok(rc && strstr(err.msg, cases[i].want), "%s: message '%s'", cases[i].file,
           rc ? err.msg : "");
        aa_instr_plan_free(p);
    }
}

static uint32_t id_of(const aa_regionmap *m, const char *name)
{
    for (size_t i = 0; m && i < m->nregions; i++)
        if (!strcmp(m->regions[i].name, name))
            return m->regions[i].id;
    return 0;
}

static const char *prog_a =
    "#include <stdio.h>\n"
    "static int other(int x) { return x + 1; }\n"
    "int work(int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < i; j++) s += j;\n"
    "  while (s > 100) s -= 7;\n"
    "  return s + other(n);\n"
    "}\n";
static const char *prog_b = /* `other` changed and moved, lines shifted */
    "#include <stdio.h>\n"
    "/* a new comment\n   over two lines */\n"
    "static int other(int x) {\n  int y = x * 3;\n  for (int k = 0; k < 2; k++) y--;\n"
    "  return y;\n}\n"
    "int work(int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < i; j++) s += j;\n"
    "  while (s > 100) s -= 7;\n"
    "  return s + other(n);\n"
    "}\n";

static int run(const char *name, unsigned modes, const aa_instr_plan *plan,
               aa_instrument_result *r)
{
    aa_instrument_opts o;
    aa_err err;
    int rc;
    memset(&o, 0, sizeof o);
    o.modes = modes;
    o.plan = plan;
    o.display_name = "prog.c"; /* same identity for both versions */
    rc = aa_instrument_file(path_in(name), 0, NULL, &o, r, &err);
    if (rc)
        diag("%s", err.msg);
    return rc;
}

static void test_ids(void)
{
    aa_instrument_result a, b, c;
    aa_instr_plan *plan = aa_instr_plan_new();
    char line[64];
    int all_kept = 1;
    put("a.c", prog_a);
    put("b.c", prog_b);
    ok(run("a.c", 0, NULL, &a) == 0, "instrument version A");
    ok(run("b.c", 0, NULL, &b) == 0, "instrument version B");
    ok(id_of(a.map, "work") && id_of(a.map, "work") == id_of(b.map, "work"),
       "function id unchanged by edits elsewhere");
    ok(id_of(a.map, "loop@5") && id_of(a.map, "loop@5") == id_of(b.map, "loop@11"),
       "loop id unchanged although its line moved");
    ok(id_of(a.map, "loop@7") == id_of(b.map, "loop@13"), "second loop id unchanged");
    ok(id_of(a.map, "loop@6") == 0, "inner loop not in default mode");
    ok(id_of(a.map, "prog.c") == 0 && a.map->nregions == 3 && a.map->nskipped == 1 &&
           !strcmp(a.map->skipped[0].region.name, "other") &&
           !strcmp(a.map->skipped[0].reason, "tiny leaf function"),
       "3 regions (work, 2 loops); the tiny leaf other() listed as not instrumented");
    for (size_t i = 0; i < a.map->nregions; i++)
        ok(a.map->regions[i].id != 0, "region id %u is not the root id 0", a.map->regions[i].id);
    {
        /* left-out entries round-trip apart from the regions */
        aa_buf xml;
        aa_regionmap *back = NULL;
        aa_experiment *ex = NULL;
        aa_err err;
        const char *bad = "<regionmap xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" "
                          "source=\"a.c\"><region id=\"3\" kind=\"function\" name=\"f\" "
                          "instrumented=\"maybe\"/></regionmap>\n";
        const char *exp = "<experiment xmlns=\"urn:autoanalyzer:profile:1\" version=\"1\" "
                          "id=\"e\" program=\"p\" nprocs=\"1\"><environment/><metrics/>"
                          "<regions><region id=\"0\" kind=\"program\" name=\"program\"/>"
                          "<region id=\"3\" kind=\"function\" name=\"f\" instrumented=\"no\" "
                          "reason=\"tiny leaf function\"/></regions></experiment>\n";
        aa_buf_init(&xml);
        ok(aa_regionmap_write_buf(a.map, &xml, &err) == 0 &&
               strstr(xml.data, "instrumented=\"no\" reason=\"tiny leaf function\"") &&
               aa_regionmap_read_memory(xml.data, xml.len, "map", &back, &err) == 0 &&
               back->nregions == 3 && back->nskipped == 1 &&
               !strcmp(back->skipped[0].reason, "tiny leaf function") &&
               back->skipped[0].region.id == a.map->skipped[0].region.id,
           "left-out entries round-trip through the map reader, apart from the regions");
        aa_regionmap_free(back);
        back = NULL;
        ok(aa_regionmap_read_memory(bad, strlen(bad), "bad.xml", &back, &err) == AA_EINPUT &&
               strstr(err.msg, "bad.xml:1:"),
           "instrumented=\"maybe\" is rejected (%s)", back ? "" : err.msg);
        aa_regionmap_free(back);
        ok(aa_experiment_read_memory(exp, strlen(exp), "e.xml", &ex, &err) == 0 &&
               ex->nregions == 1,
           "a left-out entry in an experiment is ignored");
        aa_experiment_free(ex);
        aa_buf_free(&xml);
    }
    /* refine: split `work`; round-1 ids stay, fine regions only inside it */
    snprintf(line, sizeof line, "%u\n", id_of(a.map, "work"));
    put("crit.txt", line);
    {
        aa_err err;
        ok(aa_instr_plan_load_refine(plan, path_in("crit.txt"), &err) == 0, "refine list loads");
    }
    ok(run("a.c", 0, plan, &c) == 0, "round 2 instruments");
    for (size_t i = 0; i < a.map->nregions; i++)
        if (id_of(c.map, a.map->regions[i].name) != a.map->regions[i].id)
            all_kept = 0;
    ok(all_kept, "round 2 keeps every round-1 region and id");
    ok(id_of(c.map, "loop@6") != 0, "round 2 adds the inner loop of the critical function");
    ok(c.map->nregions == 4, "and nothing outside it (%zu regions)", c.map->nregions);
    ok(strstr(c.source.data, AA_INSTRUMENT_MARKER) == c.source.data, "prelude starts with the marker");
    {
        aa_buf xml;
        aa_regionmap *back = NULL;
        aa_err err;
        aa_buf_init(&xml);
        ok(aa_regionmap_write_buf(c.map, &xml, &err) == 0 &&
               aa_regionmap_read_memory(xml.data, xml.len, "map", &back, &err) == 0 &&
               back->nregions == c.map->nregions,
           "region map round-trips through the profile XML reader");
        if (back) {
            int same = 1;
            for (size_t i = 0; i < back->nregions; i++)
                if (id_of(c.map, back->regions[i].name) != back->regions[i].id ||
                    back->regions[i].line <= 0)
                    same = 0;
            ok(same, "ids, names and lines survive the round trip");
        }
        aa_regionmap_free(back);
        aa_buf_free(&xml);
    }
    ok(strstr(c.source.data, "#line 1 \"prog.c\"\n") != NULL, "#line after the prelude");
    aa_instrument_result_free(&a);
    aa_instrument_result_free(&b);
    aa_instrument_result_free(&c);
    aa_instr_plan_free(plan);
    ok(aa_instrument_region_hash("a.c", "f", "loop", "loop 1") !=
           aa_instrument_region_hash("a.c", "f", "loop", "loop 2"), "hash depends on the path");
    ok(aa_instrument_region_hash("a.c", "f", "loop", "loop 1") ==
           aa_instrument_region_hash("a.c", "f", "loop", "loop 1"), "hash is deterministic");
}

/* The prelude's declarations and runtime/aa_probe.h, compiled in one TU
 * with the prelude's names renamed: same layout, field types, prototypes
 * and macros (an identical macro redefinition is allowed, a different one
 * fails under -Werror). */
static void test_prelude_agrees(void)
{
    FILE *f = fopen(path_in("agree.c"), "w");
    char cmd[2048];
    const char *fields[] = {"id", "parent", "kind", "line", "col", "end_line", "end_col",
                            "name", "function", "file", "handle"};
    fputs("#include <stddef.h>\n"
          "#define aa_runtime_region pre_region\n#define aa_runtime_enter pre_enter\n"
          "#define aa_runtime_exit pre_exit\n#define aa_runtime_scope_end pre_scope_end\n"
          "#define aa_runtime_gates pre_gates\n#define aa_runtime_gates_at pre_gates_at\n"
          "#define aa_runtime_enter_scope pre_enter_scope\n"
          "#define aa_runtime_scope_close pre_scope_close\n", f);
    fputs(aa_instrument_probe_decls(), f);
    fputs("#ifndef AA_RUNTIME_REFINED\n#error the prelude lacks AA_RUNTIME_REFINED\n#endif\n", f);
    fputs("#undef aa_runtime_region\n#undef aa_runtime_enter\n#undef aa_runtime_exit\n"
          "#undef aa_runtime_scope_end\n#undef aa_runtime_gates\n#undef aa_runtime_gates_at\n"
          "#undef aa_runtime_enter_scope\n#undef aa_runtime_scope_close\n"
          "#undef AA_PROBE_H\n#include \"runtime/aa_probe.h\"\n"
          "_Static_assert(sizeof(pre_gates) == sizeof(aa_runtime_gates), \"gates size\");\n"
          "_Static_assert(offsetof(pre_gates, visits) == offsetof(aa_runtime_gates, visits), \"gates\");\n"
          "_Static_assert(_Generic(pre_gates_at, pre_gates *: 1, default: 0), \"gates now\");\n"
          "_Static_assert(_Generic(&pre_enter_scope, pre_region *(*)(pre_region *): 1, default: 0), \"es\");\n"
          "_Static_assert(_Generic(&pre_scope_close, void (*)(pre_region **): 1, default: 0), \"sc\");\n"
          "_Static_assert(sizeof(pre_region) == sizeof(aa_runtime_region), \"size\");\n"
          "_Static_assert(_Alignof(pre_region) == _Alignof(aa_runtime_region), \"align\");\n"
          "#define SAME(f) _Static_assert(offsetof(pre_region, f) == offsetof(aa_runtime_region, f)"
          " && _Generic(((pre_region *)0)->f, __typeof__(((aa_runtime_region *)0)->f): 1,"
          " default: 0), #f);\n", f);
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        fprintf(f, "SAME(%s)\n", fields[i]);
    fputs("_Static_assert(_Generic(&pre_enter, void (*)(pre_region *): 1, default: 0), \"e\");\n"
          "_Static_assert(_Generic(&aa_runtime_enter, void (*)(aa_runtime_region *): 1, default: 0), \"e\");\n"
          "_Static_assert(_Generic(&pre_exit, void (*)(pre_region *): 1, default: 0), \"x\");\n"
          "_Static_assert(_Generic(&aa_runtime_exit, void (*)(aa_runtime_region *): 1, default: 0), \"x\");\n"
          "_Static_assert(_Generic(&pre_scope_end, void (*)(pre_region **): 1, default: 0), \"s\");\n"
          "_Static_assert(_Generic(&aa_runtime_scope_end, void (*)(aa_runtime_region **): 1, default: 0), \"s\");\n"
          "_Static_assert(AA_RUNTIME_ABI == 1, \"abi\");\n"
          "/* a field count check: the last field ends the struct (modulo padding) */\n"
          "_Static_assert(sizeof(aa_runtime_region) - offsetof(aa_runtime_region, handle) < sizeof(int) + _Alignof(aa_runtime_region), \"fields\");\n"
          "void use(aa_runtime_region *r);\n"
          "void use(aa_runtime_region *r) { AA_RUNTIME_SCOPE(*r); }\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I. %s",
             path_in("agree.c"));
    ok(system(cmd) == 0, "prelude and runtime/aa_probe.h agree (%s)", cmd);
}

/* C++: the prelude of an instrumented .cpp declares what runtime/aa_probe.h
 * declares for C++ (extern "C" probes, the RAII guard and its macro), so a
 * file that includes the header after the prelude (skipped by its include
 * guard) still compiles, in every dialect; and the guard of the header
 * itself compiles with the prelude's names renamed. */
static void test_prelude_cxx(void)
{
    aa_instrument_result r;
    aa_err err;
    char cmd[2048];
    FILE *f;
    int rc;
    put("guard.cpp", "#include \"runtime/aa_probe.h\"\n"
                     "static aa_runtime_region mine = {1u, 0u, 4, 1, 1, 1, 1, \"mine\", \"f\", \"g.cpp\", 0};\n"
                     "int f(int n);\n"
                     "int f(int n) { AA_RUNTIME_GUARD(mine); int s = 0; for (int i = 0; i < n; i++) s += i; "
                     "if (s > 100) throw s; return s; }\n"
                     "int main() { try { return f(3) - 3; } catch (int) { return 1; } }\n");
    const char *const flags[] = {"-I."};
    rc = aa_instrument_file(path_in("guard.cpp"), 1, flags, NULL, &r, &err);
    ok(rc == 0, "a .cpp file is instrumented (%s)", rc ? err.msg : "ok");
    if (rc)
        return;
    ok(strstr(r.source.data, "extern \"C\"") && strstr(r.source.data, "struct aa_runtime_guard") &&
           strstr(r.source.data, "AA_INSTRUMENT_SCOPE_(d) ::aa_runtime_guard"),
       "C++ prelude: extern \"C\" probes, the RAII guard");
    f = fopen(path_in("guard.inst.cpp"), "w");
    fwrite(r.source.data, 1, r.source.len, f);
    fclose(f);
    aa_instrument_result_free(&r);
    for (int k = 0; k < 3; k++) {
        static const char *const std[] = {"c++98", "c++17", "c++20"};
        snprintf(cmd, sizeof cmd, "c++ -std=%s -Wall -Wextra -Werror -fsyntax-only -I. %s", std[k],
                 path_in("guard.inst.cpp"));
        ok(system(cmd) == 0, "instrumented C++ compiles with the header's guard in use (%s)", cmd);
    }
    snprintf(cmd, sizeof cmd, "c++ -Wall -Wextra -Werror -fsyntax-only -I. -x c++ runtime/aa_probe.h");
    ok(system(cmd) == 0, "runtime/aa_probe.h compiles as C++ (%s)", cmd);
}

/* The outlined form (docs/instrument.md, "The rewrite"): work() becomes a
 * wrapper holding the probe around work__aa_body, static and noinline, on
 * the declaration's line; --probe-in-body puts the probe in the body; the
 * region ids and the line count do not change. */
static void test_outline(void)
{
    aa_instrument_result a, b;
    aa_instrument_opts o;
    aa_err err;
    memset(&o, 0, sizeof o);
    o.display_name = "prog.c";
    put("o.c", prog_a);
    if (aa_instrument_file(path_in("o.c"), 0, NULL, &o, &a, &err)) {
        ok(0, "instrument (outlined): %s", err.msg);
        return;
    }
    o.probe_in_body = 1;
    if (aa_instrument_file(path_in("o.c"), 0, NULL, &o, &b, &err)) {
        ok(0, "instrument (probe in body): %s", err.msg);
        aa_instrument_result_free(&a);
        return;
    }
    {
        const char *sa = a.source.data, *sb = b.source.data;
        const char *la = strstr(sa, "#line 1 "), *lb = strstr(sb, "#line 1 ");
        size_t na = 0, nb = 0;
        char want[200];
        snprintf(want, sizeof want,
                 "\nstatic int work__aa_body(int n) __attribute__((noinline)); int work(int n) "
                 "{ AA_INSTRUMENT_SCOPE_(aa_r_%u); return work__aa_body(n); } static int "
                 "work__aa_body(int n) {\n",
                 id_of(a.map, "work"));
        ok(strstr(sa, want) != NULL, "work() outlined on its declaration's line");
        ok(!strstr(sb, "__aa_body"), "probe_in_body: nothing outlined");
        ok(strstr(sb, "int work(int n) { AA_INSTRUMENT_SCOPE_(aa_r_") != NULL,
           "probe_in_body: the probe after the body's brace");
        ok(id_of(a.map, "work") && id_of(a.map, "work") == id_of(b.map, "work") &&
               a.map->nregions == b.map->nregions,
           "same regions and ids in both forms");
        for (const char *p = la; p && *p; p++)
            na += *p == '\n';
        for (const char *p = lb; p && *p; p++)
            nb += *p == '\n';
        ok(la && lb && na == nb && na == 10, "no line added (#line and the 9 lines) (%zu, %zu lines after #line)", na, nb);
    }
    aa_instrument_result_free(&a);
    aa_instrument_result_free(&b);
}

static void test_bad_input(void)
{
    aa_instrument_result r;
    aa_err err;
    put("bad.c", "int main(void) {\n  int x = ;\n  return 0;\n}\n");
    ok(aa_instrument_file(path_in("bad.c"), 0, NULL, NULL, &r, &err) == AA_EINPUT &&
           strstr(err.msg, "bad.c:2:"), "syntax error -> file:line (%s)", err.msg);
    ok(aa_instrument_file(path_in("missing.c"), 0, NULL, NULL, &r, &err) == AA_EINPUT &&
           strstr(err.msg, "missing.c"), "missing file (%s)", err.msg);
    put("twice.c", "int main(void) { return 0; }\n");
    if (aa_instrument_file(path_in("twice.c"), 0, NULL, NULL, &r, &err) == 0) {
        FILE *f = fopen(path_in("twice2.c"), "w");
        fwrite(r.source.data, 1, r.source.len, f);
        fclose(f);
        aa_instrument_result_free(&r);
        ok(aa_instrument_file(path_in("twice2.c"), 0, NULL, NULL, &r, &err) == AA_EINPUT &&
               strstr(err.msg, "already instrumented"), "instrumenting twice detected (%s)", err.msg);
    } else {
        ok(0, "instrument a trivial file: %s", err.msg);
    }
}

int main(void)
{
    char cmd[600];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_modes();
    test_filter();
    test_plan();
    test_plan_bad();
    test_ids();
    test_prelude_agrees();
    test_prelude_cxx();
    test_outline();
    test_bad_input();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return tap_done();
}
