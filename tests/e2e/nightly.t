#!/usr/bin/env bash
# `autoanalyzer nightly CONFIG`: configuration errors (file:line, exit 3),
# and three nightly runs of one configuration sharing a Program Space: the
# first has nothing to compare with (exit 0), an unchanged second passes its
# gates (exit 0), a deliberately slowed third (-DSLOW=1) trips them (exit 1,
# naming the gate and the region).  One process: the gates under test are
# the slowdown and new-bottleneck ones, and on a shared 2-core machine two
# ranks differ by scheduling noise alone (the dissimilarity gate is covered
# deterministically by tests/unit/test_report.c).
. "$(dirname "$0")/lib.sh"

# ---- configuration errors ------------------------------------------------------
cfg() { printf '%s\n' "$@" > "$T/bad.conf"; }
cfg "name = x" "run = ./prog" "np = 4" "bogus-key = 1"
expect_status 3 "unknown key" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:4: unknown key 'bogus-key'" "unknown key: file:line"
cfg "name = x" "run = ./prog" "fail-on-new-ccr = yes"
expect_status 3 "misspelt key" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: .*did you mean 'fail-on-new-cccr'" "misspelt key: suggestion"
cfg "name = x" "# comment" "" "run ./prog"
expect_status 3 "line without =" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:4: expected .key = value." "line without =: file:line"
cfg "name = x" "run = ./prog" "np = four"
expect_status 3 "bad np" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: np" "bad np: file:line"
cfg "name = x" "run = ./prog" "max-region-slowdown = ten percent"
expect_status 3 "bad percentage" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: max-region-slowdown" "bad percentage: file:line"
cfg "name = x" "run = ./prog" "max-region-slowdown = 10"
expect_status 3 "percentage without %" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: max-region-slowdown wants a percentage with its % sign" "a bare number is refused at its line"
cfg "name = x" "run = ./prog" "min-region-share = 0.02"
expect_status 3 "share without %" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: min-region-share" "share without %: file:line"
cfg "name = x" "run = ./prog" "slowdown-metric = cycles"
expect_status 3 "unknown slowdown metric" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: slowdown-metric wants wall or cpu, not 'cycles'" "slowdown metric: file:line"
cfg "name = x" "" "[gates]" "run = ./prog"
expect_status 3 "INI section" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: sections are not used" "a section header is refused at its line"
cfg "name = x" "run = ./prog" "build = exit 7"
expect_status 4 "failing build with --json and --junit" "$AA" nightly --json "$T/fail.json" --junit "$T/fail.xml" "$T/bad.conf"
like "$(cat "$T/fail.json")" '"status": *"error"' "failed build: the JSON says error"
ok "failed build: JUnit XML is valid" xmllint --noout --schema "$TOP/tests/data/nightly/junit.xsd" "$T/fail.xml"
like "$(cat "$T/fail.xml")" '<error message="[^"]*build failed' "failed build: one testcase with the error"
expect_status 2 "--json without a file" "$AA" nightly "$T/bad.conf" --json
cfg "name = x" "run = ./prog" "fail-on-new-cccr = maybe"
expect_status 3 "bad yes/no" "$AA" nightly "$T/bad.conf"
cfg "name = x" "name = y" "run = ./prog"
expect_status 3 "duplicate key" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "bad.conf:2: 'name' given twice" "duplicate key: file:line"
cfg "name = x" "np = 2"
expect_status 3 "missing run" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "missing required key 'run'" "missing run is named"
cfg "name = x" "# c" "run = ./prog 'unterminated"
expect_status 3 "unterminated quote in run" "$AA" nightly "$T/bad.conf"
is "$(cat "$T/.err")" "autoanalyzer: $T/bad.conf:3: run: unterminated quote: ./prog 'unterminated" "unterminated quote: file:line"
if [ -n "${AA_SAN_BUILD:-}" ]; then
    case "$AA_SAN_BUILD" in /*) SAN="$AA_SAN_BUILD" ;; *) SAN="$TOP/$AA_SAN_BUILD" ;; esac
    ASAN_OPTIONS=detect_leaks=1:exitcode=86 "$SAN/bin/autoanalyzer" nightly "$T/bad.conf" 2>"$T/san.err"
    is $? 3 "unterminated quote under ASan: exit 3, no leak"
    is "$(grep -c 'LeakSanitizer\|ERROR: AddressSanitizer' "$T/san.err")" "0" "no sanitizer report"
    cfg "name = x" "run = ./prog" "analysis = --exclude-ranks \"0"
    ASAN_OPTIONS=detect_leaks=1:exitcode=86 "$SAN/bin/autoanalyzer" nightly "$T/bad.conf" 2>"$T/san.err"
    is $? 3 "unterminated quote in analysis under ASan: exit 3, no leak"
    like "$(cat "$T/san.err")" "bad\.conf:3: analysis: unterminated quote" "analysis quote: file:line"
fi
printf 'name = x\nrun = ./prog\n# a\0b\nnp = 2\n' > "$T/bad.conf"
expect_status 3 "NUL byte" "$AA" nightly "$T/bad.conf"
is "$(cat "$T/.err")" "autoanalyzer: $T/bad.conf:3: NUL byte (not a text file)" "NUL byte reported at its line"
for n in ../../x a/b .hidden "two words" ""; do
    cfg "name = $n" "run = ./prog"
    expect_status 3 "name '$n' refused" "$AA" nightly "$T/bad.conf"
done
cfg "name = ../../x" "run = ./prog"
"$AA" nightly "$T/bad.conf" 2>"$T/.err"
like "$(cat "$T/.err")" "bad\.conf:1: name must be a plain name" "a path as name is named"
cfg "name = x" "run = ./prog" "env = NOEQUALS"
expect_status 3 "env without =" "$AA" nightly "$T/bad.conf"
expect_status 2 "no config" "$AA" nightly
expect_status 4 "missing config file" "$AA" nightly "$T/nonexistent.conf"
cfg "name = x" "run = ./prog" "build = exit 7"
expect_status 4 "failing build" "$AA" nightly "$T/bad.conf"
like "$(cat "$T/.err")" "build failed" "failing build is reported"

# ---- the gates -------------------------------------------------------------------
command -v mpicc >/dev/null 2>&1 || { echo "# SKIP gates: mpicc not installed"; done_testing; exit $?; }

mkdir -p "$T/proj"
cat > "$T/proj/stencil.c" <<'CEOF'
/* A small SPMD kernel for the nightly test; -DSLOW=1 adds a costly pass. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define N 200000
static double a[N], b[N];
static void relax(int iters)
{
    int it, i;
    for (it = 0; it < iters; it++)
        for (i = 1; i < N - 1; i++)
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1] + 1e-9 * it;
}
static void copy_back(void)
{
    int i;
    for (i = 0; i < N; i++)
        a[i] = b[i];
}
#if SLOW
static void extra_pass(int iters)
{
    int it, i;
    for (it = 0; it < iters; it++)
        for (i = 1; i < N - 1; i++)
            b[i] = (b[i - 1] + b[i] + b[i + 1]) / 3.0;
}
#endif
int main(int argc, char **argv)
{
    int rank, step;
    double s = 0, t = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (step = 0; step < 10; step++) {
        relax(40);
#if SLOW
        extra_pass(400);
#endif
        copy_back();
        s = a[N / 2] + b[N / 3];
        MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("checksum: %.6g\n", t);
    MPI_Finalize();
    /* STENCIL_FAIL: a crashed night (its profile is complete, its status not) */
    return getenv("STENCIL_FAIL") ? 3 : 0;
}
CEOF
write_conf() { # FILE EXTRA_CFLAGS
    cat > "$1" <<CONF
# nightly test configuration
name = stencil-nightly
build = autoanalyzer cc mpicc -O1 $2 -o stencil stencil.c
run = ./stencil
np = 1
db = space.db
out = runs
report = nightly.html
fail-on-new-cccr = yes
max-region-slowdown = 300%
CONF
}
write_conf "$T/proj/normal.conf" ""
write_conf "$T/proj/slow.conf" "-DSLOW=1"
write_conf "$T/proj/crash.conf" ""
echo "env = STENCIL_FAIL=1" >> "$T/proj/crash.conf"
export PATH="$AA_BUILD/bin:$PATH"

expect_status 0 "first nightly run: nothing to compare with" "$AA" nightly "$T/proj/normal.conf"
like "$(cat "$T/.out")" "no earlier run" "first run says there is no baseline"
ok "report written" test -s "$T/proj/nightly.html"
expect_status 0 "unchanged second run passes the gates" "$AA" nightly --json "$T/n2.json" --junit "$T/n2.xml" "$T/proj/normal.conf"
n2out=$(cat "$T/.out")
like "$(cat "$T/.out")" "gates: all passed" "unchanged run: all gates passed"
like "$(cat "$T/n2.json")" '"status": *"passed"' "--json: status passed"
like "$(cat "$T/n2.json")" '"report": *"[^"]*nightly.html"' "--json links the report"
is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["baseline"]["eid"], len(d["gates"]), d["gates"][0]["tripped"])' "$T/n2.json")" "1 2 False" "--json: the stored baseline and every gate, as JSON"
ok "--junit: valid JUnit XML" xmllint --noout --schema "$TOP/tests/data/nightly/junit.xsd" "$T/n2.xml"
is "$(grep -c '<testcase ' "$T/n2.xml")" 2 "--junit: one testcase per gate"
is "$(grep -c '<failure' "$T/n2.xml")" 0 "--junit: no failure"
like "$(cat "$T/n2.xml")" '<property name="report" value="[^"]*nightly.html"' "--junit links the report"
# history-guided: the comparison says what it learned, the analysis what it used
like "$n2out" 'history: no run-to-run noise known: 1 good stored run of stencil-nightly, 3 needed' "nightly compares through the history and says what it knows"
like "$n2out" 'History used \(Program Space [^,]*space.db, stencil-nightly\):' "the analysis uses the Program Space's history"
like "$n2out" 'priorities from executions 1: ' "priorities from the first night"
case "$n2out" in *'History used'*) ;; *) # say why, for a failure seen once under load
    { echo "#   second night's output:"; printf '%s\n' "$n2out" | sed 's/^/#   /'
      sed 's/^/#   /' "$T/n2.json"; } >&2 ;; esac
expect_status 4 "a crashed night fails" "$AA" nightly "$T/proj/crash.conf"
# the Program Space is the source of truth: the old experiment directories
# are gone (a cleaned CI machine), and the crashed night is never the baseline
rm -rf "$T"/proj/runs/*
[ -s "$T/.out" ] && grep 'gate tripped' "$T/.out" | sed 's/^/#   /'
like "$(cat "$T/proj/nightly.html")" '<section id="comparison"' "report holds the comparison"
expect_status 0 "a region marked irrelevant" "$AA" space --db "$T/proj/space.db" prune stencil-nightly /Code/stencil.c/copy_back --reason "plain copy"
expect_status 1 "slowed night trips a gate" "$AA" nightly --junit "$T/n4.xml" --json "$T/n4.json" "$T/proj/slow.conf"
out=$(cat "$T/.out")
like "$out" 'pruned: 1 resource \(/Code/stencil.c/copy_back: plain copy\)' "the nightly analysis applies the prune"
like "$out" 'priorities from executions 2, 1: ' "and the priorities of the good nights (not the crashed one)"
like "$(cat "$T/proj/nightly.html")" '<ul class="history-used"><li>History used \(Program Space [^<]*</li><li>pruned: 1 resource \(/Code/stencil.c/copy_back: plain copy\)' "the HTML report says which history was used"
like "$out" "compared with stored run 2 " "compared with the last good night, its directory gone"
ok "tripped: valid JUnit XML" xmllint --noout --schema "$TOP/tests/data/nightly/junit.xsd" "$T/n4.xml"
like "$(cat "$T/n4.xml")" '<failure message="region slower by' "tripped: the gate is a failed testcase"
like "$(cat "$T/n4.json")" '"status": *"tripped"' "tripped: --json says so"
like "$out" "gate tripped: region slower by [0-9.]+% \(limit 300.0%\)" "slowdown gate names the region"
like "$(cat "$T/proj/nightly.html")" 'Regions only in this run: [1-9]' "report counts the new extra_pass regions"
like "$(cat "$T/proj/nightly.html")" '<td class="num warn" data-v' "report flags the slowdown"
is "$(ls -d "$T"/proj/runs/stencil-nightly-* | wc -l | tr -d ' ')" 1 "the slowed night's experiment directory kept"
done_testing
