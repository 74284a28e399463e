#!/usr/bin/env bash
# tests/e2e/analysis_opts.t -- the analysis options shared by every command
# that runs the analysis (cli/analysis_opts.c): `analyze --list-settings`
# lists every entry of the thresholds table (analyze/options.c); `--set`
# with an unknown name, a non-number or an out-of-range value is a usage
# error naming the setting in analyze, run, report, nightly and space add;
# and each of those commands honours the options (excluded ranks, eps and
# excluded regions show in its JSON, HTML or stored findings), not just
# accepts them.  Experiments come from the aa_synth helper; `run` and
# `nightly` launch a shell that copies one into the experiment directory.
. "$(dirname "$0")/lib.sh"
SYNTH="$AA_BUILD/tests/aa_synth"
[ -x "$SYNTH" ] || skip_all "aa_synth helper not built"

read -r l2region _ < <("$SYNTH" --scenario l2 --procs 8 -o "$T/l2.xml")
flat() { tr -d ' \n' < "$1"; }
# the "program" run by run and nightly: it writes the experiment
printf '#!/bin/sh\ncp "%s" "$AUTOANALYZER_OUTPUT/experiment.xml"\n' "$T/l2.xml" > "$T/prog.sh"

# ---- --list-settings: every entry of the table, nothing else ------------------
expect_status 0 "analyze --list-settings without an experiment" "$AA" analyze --list-settings
listing=$(cat "$T/.out")
want=$(sed -n 's/^ *T("\([A-Za-z0-9_]*\)",.*/\1/p' "$TOP/analyze/options.c" | sort)
got=$(printf '%s\n' "$listing" | sed 1d | awk '{print $1}' | sort)
[ -n "$want" ] || echo "# no T(\"name\", ...) entries found in analyze/options.c"
is "$got" "$want" "--list-settings lists exactly the tunables of analyze/options.c"
is "$(printf '%s\n' "$listing" | sed 1d | wc -l)" "$(printf '%s\n' "$want" | wc -l)" \
    "one line per tunable"
like "$(printf '%s\n' "$listing" | head -1)" "^name +default +range +unit +justification" \
    "header names the columns"
like "$(printf '%s\n' "$listing" | grep '^noise_factor ')" \
    '^noise_factor +[0-9.e+-]+ +[0-9.e+-]+\.\.[0-9.e+-]+ +x noise +OPTICS eps of a level' \
    "noise_factor: default, range, unit, justification"
# an out-of-range value for the first tunable, from its listed range
read -r tname tmax < <(printf '%s\n' "$listing" | sed -n 2p |
    awk '{split($3, r, /\.\./); print $1, r[2]}')
bad=$(awk -v m="$tmax" 'BEGIN { printf "%.17g", m + (m < 0 ? -m : m) + 1 }')

# ---- bad --set values: exit 2, the setting named, in every command -----------
mkdir -p "$T/nwd"
nightly_conf="$T/nwd/n.conf"
printf '%s\n' "name = opts" "run = sh -c 'exit 0'" "db = n.db" > "$nightly_conf"
for cmd in analyze run report nightly space; do
    case $cmd in
    analyze) pre=(analyze -q); post=("$T/l2.xml") ;;
    run)     pre=(run --no-store --out "$T/never"); post=(-- sh -c 'exit 0') ;;
    report)  pre=(report -o "$T/never.html"); post=("$T/l2.xml") ;;
    nightly) pre=(nightly); post=("$nightly_conf") ;;
    space)   pre=(space add --db "$T/never.db"); post=("$T/l2.xml") ;;
    esac
    expect_status 2 "$cmd --set nosuch=1: usage" "$AA" "${pre[@]}" --set nosuch=1 "${post[@]}"
    like "$(cat "$T/.err")" "unknown setting 'nosuch'" "$cmd: unknown setting named"
    expect_status 2 "$cmd --set noise_factor=abc: usage" "$AA" "${pre[@]}" --set noise_factor=abc "${post[@]}"
    like "$(cat "$T/.err")" "noise_factor: 'abc' is not a number" "$cmd: bad number named"
    expect_status 2 "$cmd --set $tname=$bad: usage" "$AA" "${pre[@]}" --set "$tname=$bad" "${post[@]}"
    like "$(cat "$T/.err")" "$tname: .* is outside \[" "$cmd: out-of-range value named"
    expect_status 2 "$cmd --eps -1: usage" "$AA" "${pre[@]}" --eps -1 "${post[@]}"
    like "$(cat "$T/.err")" "--eps: .*'-1'" "$cmd: bad --eps named with its value"
    expect_status 2 "$cmd --set without a value: usage" "$AA" "${pre[@]}" --set
    # the help lists the shared options once
    "$AA" "${pre[0]}" --help >"$T/help" 2>&1
    is "$(grep -c -- '--set NAME=VALUE' "$T/help")" 1 "$cmd --help lists --set once"
    is "$(grep -c -- '--exclude-ranks LIST' "$T/help")" 1 "$cmd --help lists --exclude-ranks once"
done
is "$(ls "$T" | grep -c '^never')" 0 "usage errors wrote nothing"

# ---- analyze honours them --------------------------------------------------------
ok "analyze with options" "$AA" analyze -q --json "$T/a.json" --exclude-ranks 0 --eps 0.25 \
    --set "noise_factor=5" "$T/l2.xml"
like "$(flat "$T/a.json")" '"processes":7,"ranks":\[1,2,3,4,5,6,7\],"rank_set":"1-7","excluded_ranks":\[0\]' \
    "analyze --exclude-ranks 0: rank 0 excluded"
like "$(flat "$T/a.json")" '"eps":0.25[,}]' "analyze --eps 0.25: eps used"
ok "analyze --opt=VALUE form" "$AA" analyze -q --json "$T/a2.json" --eps=0.5 --exclude-ranks=6 "$T/l2.xml"
like "$(flat "$T/a2.json")" '"excluded_ranks":\[6\].*"eps":0.5[,}]' "--eps=0.5 --exclude-ranks=6 honoured"

# ---- run --------------------------------------------------------------------------
"$AA" run --no-store --out "$T/r1" --json --exclude-ranks 3 --eps 0.25 -- sh "$T/prog.sh" \
    >"$T/r1.json" 2>"$T/r1.err"
is "$?" 0 "run with options"
like "$(flat "$T/r1.json")" '"excluded_ranks":\[3\]' "run --exclude-ranks 3: printed JSON"
like "$(flat "$T/r1.json")" '"eps":0.25[,}]' "run --eps 0.25: printed JSON"
like "$(flat "$T/r1/analysis.json")" '"excluded_ranks":\[3\]' "run: stored analysis.json honours it"
like "$(cat "$T/r1/report.html")" 'excluded ranks: 3\)' "run: report.html honours it"
# the baseline is analysed with the same options: excluding the hot loop in
# both leaves nothing gone (a default-analysed baseline would lose its CCCR)
"$AA" run --no-store --out "$T/r2" --baseline "$T/l2.xml" --exclude-regions "$l2region" \
    -- sh "$T/prog.sh" >"$T/r2.out" 2>&1
like "$(cat "$T/r2.out")" "Compared with .*: 0 new, 0 gone, 0 changed" \
    "run --baseline: baseline analysed with the same options"
like "$(flat "$T/r2/analysis.json")" '"cccr":true' "run --exclude-regions: other findings remain"
is "$(grep -c '"region": '"$l2region"',' "$T/r2/analysis.json")" 0 \
    "run --exclude-regions: the excluded region has no finding"

# ---- report -------------------------------------------------------------------------
expect_status 0 "report with options" "$AA" report "$T/l2.xml" -o "$T/rep.html" --exclude-ranks 1,2
like "$(cat "$T/rep.html")" 'excluded ranks: 1-2\)' "report --exclude-ranks 1,2 shown in the HTML"
expect_status 0 "report without options" "$AA" report "$T/l2.xml" -o "$T/rep0.html"
is "$(grep -c 'excluded ranks:' "$T/rep0.html")" 0 "report without options excludes nothing"
expect_status 0 "report --baseline with options" "$AA" report "$T/l2.xml" --baseline "$T/l2.xml" \
    --exclude-ranks 5 -o "$T/rep2.html"
like "$(cat "$T/rep2.html")" 'excluded ranks: 5\)' "report --baseline: options honoured"
# a huge eps makes one cluster: no dissimilarity finding in the run, and none
# gone from the baseline, which is analysed with the same eps
"$SYNTH" --scenario slow-group --procs 8 -o "$T/sg.xml" >/dev/null
expect_status 0 "report --baseline --eps 1000" "$AA" report "$T/sg.xml" --baseline "$T/sg.xml" \
    --eps 1000 -o "$T/rep3.html"
is "$(grep -c '<td>dissimilarity</td>' "$T/rep3.html")" 0 "report --eps 1000: no dissimilarity finding"
like "$(cat "$T/rep3.html")" 'Same core bottlenecks as the baseline' \
    "report --baseline: the baseline is analysed with the same --eps"

# ---- nightly: CONFIG's `analysis` line, then the command line --------------------------
mkdir -p "$T/night"
printf '%s\n' "name = opts" "run = sh $T/prog.sh" "db = n.db" "out = runs" \
    "analysis = --exclude-ranks 2 --set noise_factor=6" > "$T/night/n.conf"
expect_status 0 "nightly with options" "$AA" nightly --exclude-ranks 4 "$T/night/n.conf"
j=$(ls "$T"/night/runs/*/analysis.json 2>/dev/null | head -1)
like "$(flat "$j")" '"excluded_ranks":\[2,4\]' "nightly: CONFIG and command-line options honoured"
printf '%s\n' "name = opts" "run = sh -c 'exit 0'" "analysis = --set noise_factor=abc" > "$T/night/bad.conf"
expect_status 3 "nightly: bad analysis line in CONFIG" "$AA" nightly "$T/night/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: analysis: --set noise_factor: 'abc'" "bad analysis line: file:line"
printf '%s\n' "name = opts" "run = sh -c 'exit 0'" "analysis = --frobnicate" > "$T/night/bad.conf"
expect_status 3 "nightly: unknown option in CONFIG's analysis" "$AA" nightly "$T/night/bad.conf"
like "$(cat "$T/.err")" "bad.conf:3: analysis: '--frobnicate'" "unknown analysis option named"

# ---- space add: the stored findings come from the analysis with the options --------------
is "$("$AA" space add --db "$T/s.db" --json "$T/l2.xml")" '{"eid":1}' "space add without options"
is "$("$AA" space add --db "$T/s.db" --json --exclude-regions "$l2region" "$T/l2.xml")" '{"eid":2}' \
    "space add --exclude-regions"
"$AA" space show --db "$T/s.db" --json 1 >"$T/s1.json"
"$AA" space show --db "$T/s.db" --json 2 >"$T/s2.json"
like "$(flat "$T/s1.json")" '"findings":\[\{[^]]*transpose/loop@73' "default analysis stores the hot loop"
like "$(flat "$T/s2.json")" '"findings":\[\{' "space add --exclude-regions: findings stored"
is "$(grep -c 'transpose/loop@73' "$T/s2.json")" 0 "space add --exclude-regions: the region has no finding"
"$AA" space add --db "$T/s.db" --metric wall --exclude-ranks 0-7 "$T/l2.xml" >"$T/s3.out" 2>&1
like "$(tr '\n' ' ' < "$T/s3.out")" "excluded.*added execution 3 \(0 findings\)" \
    "space add --exclude-ranks: every rank excluded, nothing to find"
expect_status 2 "space query does not take analysis options" "$AA" space query --db "$T/s.db" \
    --metric wall --set noise_factor=5
done_testing
