/*
 * tests/unit/test_space.c -- Program Space library tests: resource path
 * names of regions, mapping directives, and (per backend) import in one
 * transaction (an injected failure midway leaves the database unchanged),
 * the operators through the API, export/import round trip and bad import
 * text.  Runs on SQLite in a temporary file; also on PostgreSQL when
 * AA_SPACE_PG_URL is set (tests/e2e/space_pg.t does that with a throwaway
 * server; AA_SPACE_PG_ONLY=1 skips the SQLite pass).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "space/aa_space.h"
#include "tests/space/fixture.h"
#include "tests/tap.h"

static void test_paths(void)
{
    aa_experiment *e = space_fixture("base", 2);
    char **p = aa_space_code_paths(e);
    aa_region r;
    ok(p != NULL, "code paths built");
    is_str(p[0], "/Code", "program region is /Code");
    is_str(p[1], "/Code/main.c/main", "function path");
    is_str(p[3], "/Code/solver.c/solve/loop@10", "nested region path");
    is_str(p[6], "/Code/solver.c/compute/MPI_Allreduce@30", "call site path");
    aa_space_free_strings(p, e->nregions);
    /* a file with directories, a name with a slash, and a duplicate */
    memset(&r, 0, sizeof r);
    r.id = 7;
    r.kind = AA_KIND_FUNCTION;
    r.name = "op/div";
    r.function = "op/div";
    r.file = "./src/lib/x.c";
    aa_experiment_add_region(e, &r);
    r.id = 8;
    aa_experiment_add_region(e, &r);
    p = aa_space_code_paths(e);
    is_str(p[7], "/Code/src/lib/x.c/op%2Fdiv", "directories become levels, '/' escaped");
    is_str(p[8], "/Code/src/lib/x.c/op%2Fdiv#8", "duplicate paths get #id");
    aa_space_free_strings(p, e->nregions);
    aa_experiment_free(e);
}

static void test_map(void)
{
    aa_space_map m;
    char *x;
    memset(&m, 0, sizeof m);
    aa_space_map_add(&m, "/Code/a.c", "/Code/b.c");
    aa_space_map_add(&m, "/Code/b.c/f", "/Code/b.c/g");
    x = aa_space_map_apply(&m, "/Code/a.c/f/loop@3");
    is_str(x, "/Code/b.c/g/loop@3", "directives apply in order, chained");
    free(x);
    x = aa_space_map_apply(&m, "/Code/a.cc/f");
    is_str(x, "/Code/a.cc/f", "prefixes match whole components only");
    free(x);
    aa_space_map_free(&m);
}

static long long count(aa_space *s)
{
    long long n = -1;
    aa_err err;
    aa_space_count(s, &n, &err);
    return n;
}

/* perfdiff, and the number of differing foci. */
static int perfdiff_n(aa_space *s, long long a, long long b, const aa_space_perfdiff_options *po,
                      size_t *nd, aa_space_perfdiff_result *pd)
{
    aa_err err;
    int rc = aa_space_perfdiff(s, a, b, po, pd, &err);
    *nd = rc == AA_OK ? pd->ndiffering : 99;
    if (rc != AA_OK)
        diag("perfdiff: %s", err.msg);
    return rc;
}

static void test_backend(const char *loc, const char *label)
{
    aa_space *s = NULL;
    aa_experiment *base = space_fixture("base", 4), *slow = space_fixture("slow", 4);
    aa_space_add_options o;
    aa_space_perfdiff_options po;
    aa_space_perfdiff_result pd;
    aa_err err;
    long long ea = 0, eb = 0, ex = 0, before, *eids = NULL;
    size_t nd = 99, neids = 0;
    int v = 0, applied = -1;
    aa_buf out, exp1, exp2;
    static char *causes[] = {"l1_miss_rate", "mpi_bytes"};
    static char *contexts[] = {"/Code/solver.c/compute", "/Code/solver.c/solve"};
    aa_space_finding f = {"disparity", "/Code/solver.c/compute", 0.75, 3, 0.5, 2, causes,
                          "look at it", -1, 0.25, 0.125, 2, contexts};

    diag("backend %s", label);
    if (!ok(aa_space_open(loc, &s, &err) == AA_OK, "%s: open", label)) {
        diag("%s", err.msg);
        goto done;
    }
    aa_space_migrate(s, &applied, &err);
    aa_space_schema_version(s, &v, &err);
    is_int(v, AA_SPACE_SCHEMA_VERSION, "schema at the current version");
    is_int(applied, 0, "migrations already applied on open");
    before = count(s);
    memset(&o, 0, sizeof o);
    o.nfindings = 1;
    o.findings = &f;
    ok(aa_space_add(s, base, &o, &ea, &err) == AA_OK && ea > 0, "%s: add", label);
    ok(aa_space_add(s, slow, NULL, &eb, &err) == AA_OK && eb == ea + 1, "%s: add second", label);
    is_int(count(s), before + 2, "two executions more");
    /* all or nothing */
    o.fail_after_rows = 25;
    ok(aa_space_add(s, base, &o, &ex, &err) != AA_OK, "%s: injected failure midway", label);
    is_int(count(s), before + 2, "failed import left nothing behind");
    o.fail_after_rows = 0;
    /* operators */
    memset(&po, 0, sizeof po);
    po.metric = "wall";
    po.threshold = 10;
    po.relative = 1;
    aa_buf_init(&out);
    ok(perfdiff_n(s, ea, eb, &po, &nd, &pd) == AA_OK, "perfdiff");
    is_int(nd, 27, "perfdiff: 27 differing foci (root, files, hosts, ranks, main, compute)");
    is_str(pd.unit, "s", "perfdiff: the metric's unit");
    {
        /* (a stored mapping may have renamed compute to compute_v2) */
        size_t i, found = 0, sorted = 1;
        for (i = 0; i < pd.n; i++) {
            if (strncmp(pd.rows[i].focus[0], "/Code/solver.c/compute", 22) == 0 &&
                !pd.rows[i].focus[0][22 + (pd.rows[i].focus[0][22] == '_' ? 3 : 0)] &&
                strcmp(pd.rows[i].focus[2], "/Process") == 0 && pd.rows[i].a == 6 &&
                pd.rows[i].b == 18)
                found = 1;
            if (i && fabs(pd.rows[i].delta) > fabs(pd.rows[i - 1].delta) * (1 + 1e-9))
                sorted = 0;
        }
        ok(found, "perfdiff finds compute");
        ok(sorted, "perfdiff rows: largest |delta| first");
    }
    aa_space_perfdiff_free(&pd);
    ok(perfdiff_n(s, ea, ea, &po, &nd, &pd) == AA_OK && nd == 0,
       "an execution does not differ from itself");
    aa_space_perfdiff_free(&pd);
    {
        aa_space_shown x;
        ok(aa_space_show(s, ea, &x, &err) == AA_OK && x.nfindings == 1 &&
               x.findings[0].ncauses == 2 && strcmp(x.findings[0].causes[1], "mpi_bytes") == 0,
           "findings stored with their causes");
        ok(x.nfindings == 1 && x.findings[0].impact_s == 0.25 &&
               x.findings[0].run_share == 0.125 && x.findings[0].ncontexts == 2 &&
               strcmp(x.findings[0].contexts[1], "/Code/solver.c/solve") == 0,
           "... with their impact, run share and calling contexts");
        ok(x.nmetrics == 3 && strcmp(x.metrics[2], "wall") == 0 && strcmp(x.units[2], "s") == 0,
           "show: metrics with their units");
        aa_space_shown_free(&x);
        is_int(aa_space_show(s, 987654, &x, &err), AA_EINPUT, "unknown EID is bad input");
    }
    /* history: the findings of the latest matching execution */
    {
        const char *keys[1] = {"version"}, *vals[1] = {"1.0"};
        aa_space_where w = {1, keys, vals};
        aa_space_finding *hf = NULL;
        size_t nh = 0;
        long long he = 0;
        ok(aa_space_latest_findings(s, &w, &he, &hf, &nh, &err) == AA_OK && he == ea && nh == 1,
           "latest findings of version 1.0");
        if (nh == 1) {
            is_str(hf[0].region, "/Code/solver.c/compute", "finding region");
            ok(hf[0].ncauses == 2 && strcmp(hf[0].causes[1], "mpi_bytes") == 0, "finding causes");
            is_int(hf[0].severity_class, 3, "finding class");
        }
        aa_space_findings_free(hf, nh);
        vals[0] = "no such version";
        ok(aa_space_latest_findings(s, &w, &he, &hf, &nh, &err) == AA_OK && he == 0 && nh == 0,
           "no matching execution");
    }
    /* a process with two threads gets per-thread foci */
    {
        aa_experiment *t = space_fixture("base", 2);
        aa_process *p0 = aa_experiment_process(t, 0);
        aa_thread *th = aa_process_add_thread(p0, 1);
        long n0 = aa_thread_add_node(t, th, 0, -1), n1 = aa_thread_add_node(t, th, 2, (int32_t)n0);
        const char *foci[2] = {"/Code/solver.c/solve", "/Process/0/1"};
        aa_space_query q;
        aa_space_query_result qr;
        long long et = 0;
        space_fx_set(t, th, n0, 1.25, 1);
        space_fx_set(t, th, n1, 1.0, 1);
        ok(aa_space_add(s, t, NULL, &et, &err) == AA_OK, "add a threaded experiment");
        memset(&q, 0, sizeof q);
        q.metric = "wall";
        q.nfoci = 2;
        q.foci = foci;
        q.agg = "sum";
        ok(aa_space_run_query(s, &q, &qr, &err) == AA_OK && qr.n == 1 &&
               strcmp(qr.rows[0].focus[2], "/Process/0/1") == 0 && qr.rows[0].value == 1 &&
               qr.rows[0].executions == 1,
           "per-thread result");
        aa_space_query_free(&qr);
        foci[1] = "/Process/0";
        aa_buf_reset(&out);
        /* solve on rank 0: 5.5 (thread 0) + 1.0 (thread 1) */
        q.nfoci = 2;
        {
            char w[24];
            const char *keys[1] = {"experiment"}, *vals[1] = {w};
            snprintf(w, sizeof w, "base");
            q.where.n = 1;
            q.where.keys = keys;
            q.where.values = vals;
            q.agg = "max";
            ok(aa_space_run_query(s, &q, &qr, &err) == AA_OK && qr.n == 1 &&
                   qr.rows[0].value == 6.5,
               "process value sums its threads");
            aa_space_query_free(&qr);
        }
        aa_experiment_free(t);
    }
    /* export -> import -> export */
    aa_buf_init(&exp1);
    aa_buf_init(&exp2);
    ok(aa_space_export(s, ea, &exp1, &err) == AA_OK, "export");
    ok(aa_space_import(s, exp1.data, "exp1", &eids, &neids, &err) == AA_OK && neids == 1,
       "import");
    if (neids != 1)
        diag("%s", err.msg);
    if (neids == 1) {
        ok(aa_space_export(s, eids[0], &exp2, &err) == AA_OK, "export the copy");
        /* identical but for the execution line */
        const char *a = strstr(exp1.data, "\napplication "), *b = strstr(exp2.data, "\napplication ");
        ok(a && b && strcmp(a, b) == 0, "round trip identical");
        ok(strstr(exp1.data, "finding disparity\t/Code/solver.c/compute\t0.75\t3\t0.5\t"
                             "l1_miss_rate,mpi_bytes\tlook at it\t0.25\t0.125\t"
                             "/Code/solver.c/compute\\n/Code/solver.c/solve\n") != NULL,
           "a finding's record holds its impact, run share and contexts");
        ok(perfdiff_n(s, ea, eids[0], &po, &nd, &pd) == AA_OK && nd == 0,
           "the copy has the same results");
        aa_space_perfdiff_free(&pd);
    }
    free(eids);
    eids = NULL;
    before = count(s);
    /* Every truncation of a valid export is rejected cleanly (or, when it
     * ends right after a block, imported). */
    {
        size_t len = exp1.len, cut, bad = 0, okn = 0;
        for (cut = 0; cut < len; cut++) {
            char *t;
            int r;
            if (exp1.data[cut] != '\n' && cut % 7)
                continue;
            t = strndup(exp1.data, cut);
            r = aa_space_import(s, t, "cut", &eids, &neids, &err);
            if (r == AA_OK) {
                okn += neids;
                free(eids);
                eids = NULL;
            } else if (r != AA_EINPUT || strncmp(err.msg, "cut:", 4) != 0) {
                bad++;
                diag("cut at %zu: %d %s", cut, r, err.msg);
            }
            free(t);
        }
        is_int(bad, 0, "truncated exports give file:line errors");
        is_int(count(s), before + (long long)okn, "only whole blocks were imported");
        before = count(s);
    }
    is_int(aa_space_import(s, "format autoanalyzer-space 1\nexecution 1\napplication a\nbogus\nend\n",
                           "t.txt", &eids, &neids, &err),
           AA_EINPUT, "bad record rejected");
    is_str(err.msg, "t.txt:4: unknown record 'bogus'", "with file:line");
    is_int(aa_space_import(s, "format autoanalyzer-space 1\nexecution 1\napplication a\n",
                           "t.txt", &eids, &neids, &err),
           AA_EINPUT, "missing end rejected");
    is_int(aa_space_import(s, "format autoanalyzer-space 1\nexecution 1\napplication a\n"
                              "resource /Code\tprogram\nresult wall\t/Code\t/Machine\t/Process\t1\nend\n",
                           "t.txt", &eids, &neids, &err),
           AA_EINPUT, "undeclared metric rejected");
    is_int(count(s), before, "rejected imports change nothing");
    {
        /* an old export's 7-field finding: costs unknown; bad costs or contexts refused */
        static const char *const head =
            "format autoanalyzer-space 1\nexecution 1\napplication a\nexperiment x\n"
            "started 2026-01-01T00:00:00Z\nnprocs 1\nresource /Code\tprogram\n"
            "resource /Code/a.c\tfile\nresource /Code/a.c/f\tfunction\n";
        static const char *const tail[4] = {
            "finding disparity\t/Code/a.c/f\t0.5\t3\t1\t\t\nend\n",
            "finding disparity\t/Code/a.c/f\t0.5\t3\t1\t\t\t-1\t\t\nend\n",
            "finding disparity\t/Code/a.c/f\t0.5\t3\t1\t\t\t1\t0.5\t/Code/a.c/g\nend\n",
            "finding disparity\t/Code/a.c/f\t0.5\t3\t1\t\t\t1\t0.5\t\t\nend\n"};
        static const char *const what[4] = {"7 fields", "a negative impact",
                                            "an undeclared context", "11 fields"};
        int k, rc;
        for (k = 0; k < 4; k++) {
            aa_buf t;
            long long c0 = count(s);
            aa_buf_init(&t);
            aa_buf_printf(&t, "%s%s", head, tail[k]);
            rc = aa_space_import(s, t.data, "old", &eids, &neids, &err);
            if (k == 0) {
                aa_space_finding *of = NULL;
                size_t no = 0;
                ok(rc == AA_OK && neids == 1 &&
                       aa_space_findings_of(s, eids[0], &of, &no, &err) == AA_OK && no == 1 &&
                       isnan(of[0].impact_s) && isnan(of[0].run_share) && of[0].ncontexts == 0,
                   "import of %s: the finding's costs unknown, no contexts", what[k]);
                aa_space_findings_free(of, no);
            } else {
                ok(rc == AA_EINPUT && count(s) == c0 && strstr(err.msg, "old:10:"),
                   "import of %s refused at its line (%s)", what[k], err.msg);
            }
            free(eids);
            eids = NULL;
            aa_buf_free(&t);
        }
    }
    aa_buf_free(&out);
    aa_buf_free(&exp1);
    aa_buf_free(&exp2);
done:
    aa_space_close(s);
    aa_experiment_free(base);
    aa_experiment_free(slow);
}

int main(void)
{
    const char *pg = getenv("AA_SPACE_PG_URL");
    aa_space *s = NULL;
    aa_err err;
    test_paths();
    test_map();
    is_int(aa_space_open("mysql://x", &s, &err), AA_EENV, "unsupported URL is an environment error");
    if (!getenv("AA_SPACE_PG_ONLY")) {
        char dir[] = "/tmp/aa-space-unit.XXXXXX", path[64];
        if (mkdtemp(dir)) {
            snprintf(path, sizeof path, "%s/s.db", dir);
            test_backend(path, "sqlite");
            snprintf(path, sizeof path, "%s/s.db", dir);
            unlink(path);
            snprintf(path, sizeof path, "%s/s.db-wal", dir);
            unlink(path);
            snprintf(path, sizeof path, "%s/s.db-shm", dir);
            unlink(path);
            rmdir(dir);
        }
    }
    if (pg && *pg)
        test_backend(pg, "postgresql");
    return tap_done();
}
