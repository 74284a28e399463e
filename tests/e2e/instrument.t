#!/bin/bash
# tests/e2e/instrument.t -- `autoanalyzer instrument`: help and usage
# errors, bad input (missing file, syntax error, instrumenting twice) with
# exit 3 and file:line and no output file, region maps against the
# expected ones in tests/instrument/expected/, id stability across edits
# and across the refine round, plan and filter files, #line (compiler
# messages point at the user's lines), compile_commands.json.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
TD=tests/instrument/torture

ok "--help" "$AA" instrument --help
like "$("$AA" instrument --help)" "--mode LIST" "help lists --mode"
expect_status 2 "no file is a usage error" "$AA" instrument
expect_status 2 "unknown option" "$AA" instrument --frob x.c
expect_status 2 "unknown mode" "$AA" instrument --mode loopz $TD/c89.c

expect_status 3 "missing file -> 3" "$AA" instrument -o "$T/m.c" "$T/nope.c" --
like "$(cat "$T/.err")" "nope\\.c" "message names the missing file"
printf 'int main(void)\n{\n    int x = ;\n    return x;\n}\n' > "$T/syn.c"
expect_status 3 "syntax error -> 3" "$AA" instrument -o "$T/syn.out.c" "$T/syn.c" --
like "$(cat "$T/.err")" "syn\\.c:3:[0-9]+: " "syntax error names file:line"
[ ! -e "$T/syn.out.c" ] && [ ! -e "$T/syn.out.c.regions.xml" ]; is $? 0 "no half-written output"
ok "instrument once" "$AA" instrument $TD/c89.c -o "$T/once.c" --
expect_status 3 "instrumenting twice -> 3" "$AA" instrument "$T/once.c" -o "$T/twice.c" --
like "$(cat "$T/.err")" "already instrumented" "twice: clear message"

# region maps against expected ones (paths relative to the top directory)
for n in early_exit calls user_pragma; do
    case $n in calls) m=all ;; user_pragma) m=functions,outer-loops,user ;; *) m=default ;; esac
    "$AA" instrument -q --mode $m $TD/$n.c -o "$T/$n.i.c" --map "$T/$n.xml" -- -Wno-unknown-pragmas
    if cmp -s "$T/$n.xml" tests/instrument/expected/$n.regions.xml; then _tap_result 0 "$n: region map as expected"
    else _tap_result 1 "$n: region map as expected"; diff tests/instrument/expected/$n.regions.xml "$T/$n.xml" | head -10 | sed 's/^/#   /'; fi
done
ok "default map name is OUT.regions.xml" test -s "$T/once.c.regions.xml"

# id stability: edit an unrelated function; ids of the others do not change
mkdir -p "$T/v1" "$T/v2"
cp $TD/early_exit.c "$T/v1/prog.c"
# v2: three new lines on top and a changed body of find()
{ printf '/* new\n   header */\n#define UNUSED_NEW 1\n'; sed 's/return -1;/return -2 + UNUSED_NEW;/' $TD/early_exit.c; } > "$T/v2/prog.c"
(cd "$T/v1" && "$AA" instrument -q prog.c -o i.c --) && (cd "$T/v2" && "$AA" instrument -q prog.c -o i.c --)
ids() { sed -n 's/.*<region id="\([0-9]*\)" kind="\([a-z]*\)" name="[^"]*" function="\([^"]*\)".*/\1 \2 \3/p' "$1" | sort; }
is "$(ids "$T/v1/i.c.regions.xml")" "$(ids "$T/v2/i.c.regions.xml")" "ids unchanged by an unrelated edit (lines moved)"
like "$(grep -c '<region ' "$T/v1/i.c.regions.xml")" "^6$" "3 functions + 3 outer loops"

# round 2: refine on loop_break keeps all round-1 ids, adds fine regions inside only
fid=$(sed -n 's/.*<region id="\([0-9]*\)" kind="function" name="loop_break".*/\1/p' "$T/v1/i.c.regions.xml")
printf '# critical regions\n%s\n' "$fid" > "$T/v1/crit.txt"
(cd "$T/v1" && "$AA" instrument -q --refine crit.txt prog.c -o r.c --)
r1=$(ids "$T/v1/i.c.regions.xml")
r2=$(ids "$T/v1/r.c.regions.xml")
is "$(comm -23 <(echo "$r1") <(echo "$r2"))" "" "refine keeps every round-1 id"
added=$(comm -13 <(echo "$r1") <(echo "$r2"))
like "$added" "loop loop_break" "refine adds the inner loop of loop_break"
is "$(echo "$added" | grep -vc 'loop_break$')" "0" "nothing added outside the critical region"
printf '{"dissimilarity":{"bottlenecks":[{"region":%s,"name":"loop_break"}]}}\n' "$fid" > "$T/v1/a.json"
(cd "$T/v1" && "$AA" instrument -q --refine a.json prog.c -o r2.c --)
is "$(ids "$T/v1/r2.c.regions.xml")" "$r2" "refine from analysis JSON = from id list"
gcc -Wall -Werror -c "$T/v1/r.c" -o "$T/v1/r.o"; is $? 0 "refined file compiles"

# plan: eliminate, split
printf 'eliminate find\nsplit main\n' > "$T/v1/p.plan"
(cd "$T/v1" && "$AA" instrument -q --plan p.plan prog.c -o p.c --)
is "$(grep -c 'name="find"' "$T/v1/p.c.regions.xml")" "0" "plan: eliminated region is gone"
like "$(grep 'function="main"' "$T/v1/p.c.regions.xml" | grep -c 'kind="call"')" "^[1-9]" "plan: split main adds its call sites"
printf 'merge loop@22 loop@33\n' > "$T/v1/m.plan"
(cd "$T/v1" && "$AA" instrument -q --plan m.plan prog.c -o mg.c --)
like "$(cat "$T/v1/mg.c.regions.xml")" 'kind="user" name="merge\(loop@22\+loop@33\)"' "plan: merge makes one region"
is "$(grep -c 'name="loop@\(22\|33\)"' "$T/v1/mg.c.regions.xml")" "0" "plan: merged members are gone"
gcc -c -I"$TOP" tests/instrument/checkprobe.c -o "$T/cp.o"
gcc -Wall -Werror "$T/v1/mg.c" "$T/cp.o" -o "$T/v1/mg" && (cd "$T/v1" && AA_CHECK_OUT=chk ./mg >/dev/null)
like "$(cat "$T/v1/chk")" "merge\(loop@22\+loop@33\) 1 1" "merged region runs and closes"
printf 'merge loop@10 loop@22\n' > "$T/v1/m2.plan"
(cd "$T/v1" && "$AA" instrument --plan m2.plan prog.c -o mg2.c -- 2>mg2.err)
like "$(cat "$T/v1/mg2.err")" "not every region was found in function" "merge across functions refused with a diagnostic"
printf 'obliterate find\n' > "$T/v1/bad.plan"
expect_status 3 "bad plan -> 3" "$AA" instrument --plan "$T/v1/bad.plan" "$T/v1/prog.c" --
like "$(cat "$T/.err")" "bad\\.plan:1:" "bad plan names file:line"
# names and ids that match no region: a warning naming the plan's line
printf '# misspelled\neliminate nosuchfn find\nsplit 12345\n' > "$T/v1/w.plan"
(cd "$T/v1" && "$AA" instrument --plan w.plan prog.c -o w.c -- 2>w.err); is $? 0 "a plan naming no region still instruments"
like "$(cat "$T/v1/w.err")" "^w\.plan:2: warning: eliminate 'nosuchfn' matches no region of prog\.c" "unmatched name warned with file:line"
like "$(cat "$T/v1/w.err")" "w\.plan:3: warning: split '12345' matches no region" "unmatched id warned with file:line"
is "$(grep -c "'find'" "$T/v1/w.err")" "0" "a matching name is not warned"
printf 'lop_break\n' > "$T/v1/typo.txt"
(cd "$T/v1" && "$AA" instrument --refine typo.txt prog.c -o t.c -- 2>t.err); is $? 0 "a refine list naming no region still instruments"
like "$(cat "$T/v1/t.err")" "typo\.txt:1: warning: split 'lop_break' matches no region" "misspelled refine name warned"
printf 'eliminate find\nsplit find\n' > "$T/v1/contra.plan"
expect_status 3 "contradictory plan -> 3" "$AA" instrument --plan "$T/v1/contra.plan" "$T/v1/prog.c" --
like "$(cat "$T/.err")" "contra\.plan:2: 'split find' contradicts 'eliminate find' at .*contra\.plan:1" "the contradiction names both lines"
printf '{"dissimilarity":{"bottlenecks":[{"region":"abc"}]}}' > "$T/v1/s.json"
expect_status 3 "refine with a string region -> 3" "$AA" instrument --refine "$T/v1/s.json" "$T/v1/prog.c" --
like "$(cat "$T/.err")" "s\.json:1: \"region\" must be a region id" "string region named"
printf '{"dissimilarity":{"bottlenecks":[{"region":1' > "$T/v1/tr.json"
expect_status 3 "truncated refine JSON -> 3" "$AA" instrument --refine "$T/v1/tr.json" "$T/v1/prog.c" --

# filters
(cd "$T/v1" && "$AA" instrument -q --exclude 'find*' prog.c -o f.c --)
is "$(grep -c 'function="find"' "$T/v1/f.c.regions.xml")" "0" "--exclude drops the function and its loops"
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main\nSCOREP_REGION_NAMES_END\n' > "$T/v1/f.filter"
(cd "$T/v1" && "$AA" instrument -q --filter f.filter prog.c -o g.c --)
is "$(sed -n 's/.*function="\([^"]*\)".*/\1/p' "$T/v1/g.c.regions.xml" | sort -u)" "main" "filter file: only main"
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE x\nSCOREP_FILE_NAMES_END\n' > "$T/v1/bad.filter"
expect_status 3 "bad filter -> 3" "$AA" instrument --filter "$T/v1/bad.filter" "$T/v1/prog.c" --
like "$(cat "$T/.err")" "bad\\.filter:3:" "bad filter names file:line"
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE\nSCOREP_REGION_NAMES_END\n' > "$T/v1/bad2.filter"
expect_status 3 "EXCLUDE without a name -> 3" "$AA" instrument --filter "$T/v1/bad2.filter" "$T/v1/prog.c" --
like "$(cat "$T/.err")" "bad2\\.filter:2: EXCLUDE without a name" "names the line"

# #ifdef twins: only the branch the preprocessor keeps is edited
changed() { # instrumented original -> changed line numbers of the user's text
    local skip; skip=$(grep -n '^#line 1 ' "$1" | head -1 | cut -d: -f1)
    tail -n +$((skip + 1)) "$1" | diff - "$2" | awk -F'[c,]' '/^[0-9]+(,[0-9]+)?c/ {
        e = ($0 ~ /^[0-9]+,[0-9]+c/) ? $2 : $1; for (i = $1; i <= e; i++) printf "%d ", i }'
}
"$AA" instrument -q --mode all $TD/knr.c -o "$T/knr1.c" -- -std=gnu89
"$AA" instrument -q --mode all $TD/knr.c -o "$T/knr2.c" -- -std=gnu89 -DUSE_PROTOTYPES
is "$(changed "$T/knr1.c" $TD/knr.c)" "13 25 27 28 34 35 " "K&R branch active: only its lines (and add, main) change"
is "$(changed "$T/knr2.c" $TD/knr.c)" "13 19 34 35 " "prototype branch active: the K&R twin is untouched"
gcc -std=gnu89 -DUSE_PROTOTYPES -Wall -Werror -c "$T/knr2.c" -o /dev/null; is $? 0 "prototype branch builds"

# #line: compiler messages point at the user's line
printf '#include <stdio.h>\n\nint f(int n)\n{\n    for (int i = 0; i < n; i++)\n        printf("%%d\\n", i);\n    int unused_here = 3;\n    return n;\n}\n' > "$T/ln.c"
"$AA" instrument -q --mode all "$T/ln.c" -o "$T/ln.i.c" --
gcc -c -Wall "$T/ln.c" -o /dev/null 2>"$T/w1"; gcc -c -Wall "$T/ln.i.c" -o /dev/null 2>"$T/w2"
is "$(grep -o 'ln\.c:[0-9]*' "$T/w2" | head -1)" "$(grep -o 'ln\.c:[0-9]*' "$T/w1" | head -1)" "warning points at the original line"

# compile_commands.json supplies the flags when none are given
mkdir -p "$T/db/inc"
printf '#include "cfg.h"\n#ifndef NEEDED\n#error NEEDED not defined\n#endif\nint main(void) { return CFG; }\n' > "$T/db/m.c"
printf '#define CFG 0\n' > "$T/db/inc/cfg.h"
printf '[{"directory":"%s","command":"cc -DNEEDED -Iinc -c m.c -o m.o","file":"m.c"}]\n' "$T/db" > "$T/db/compile_commands.json"
ok "flags from compile_commands.json" "$AA" instrument "$T/db/m.c" -o "$T/db/m.i.c"
expect_status 3 "without them the file does not parse" "$AA" instrument "$T/db/m.c" -o "$T/db/m2.c" --
done_testing
