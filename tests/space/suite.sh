# tests/space/suite.sh -- the Program Space operator suite, sourced by
# tests/e2e/space.t (SQLite) and tests/e2e/space_pg.t (PostgreSQL) after
# tests/e2e/lib.sh.  Run `space_suite DB` with DB an empty database; the
# answers come from the hand-built experiments of tests/space/fixture.h.

space_suite() {
    DB=$1
    MK="$AA_BUILD/tests/space_mkexp"
    S() { "$AA" space "$@" --db "$DB"; }
    for s in base renamed slow cancel evil; do "$MK" $s "$T/$s.xml" || echo "# mkexp $s failed"; done
    mkdir -p "$T/expdir" && cp "$T/cancel.xml" "$T/expdir/experiment.xml"

    # ---- add / list / show -------------------------------------------------
    is "$(S add "$T/base.xml" --json 2>"$T/add1.err")" '{"eid":1}' "add prints the eid"
    is "$(S add "$T/renamed.xml" --json 2>/dev/null)" '{"eid":2}' "add renamed version"
    is "$(S add "$T/slow.xml" --json --attr run=second 2>/dev/null)" '{"eid":3}' "add with --attr"
    is "$(S add "$T/expdir" --json 2>/dev/null)" '{"eid":4}' "add an output directory"
    out=$(S list --json)
    is "$(printf '%s' "$out" | grep -o '"eid":[0-9]*' | tr '\n' ' ')" '"eid":1 "eid":2 "eid":3 "eid":4 ' "list shows all executions"
    like "$out" '^\{"executions":\[\{"eid":1,.*"processes":4,"started":"2026-01-01T00:00:00Z","attrs":\{' "list JSON keys (§9)"
    is "$(S list --json --where version=1.2 | grep -o '"eid":[0-9]*' | tr '\n' ' ')" '"eid":3 ' "list --where selects by attribute"
    is "$(S list --json --where version=1.2 --where run=first | grep -o '"eid":[0-9]*' | tr '\n' ' ')" '' "list --where: all must match"
    like "$(S list --json --where run=second)" '"run":"second"' "--attr becomes a SpaceMap attribute"
    out=$(S show 3 --json)
    like "$out" '"eid":3,"application":"solver"' "show EID"
    like "$out" '"metrics":\["cpu","visits","wall"\]' "show lists the metrics"
    # The analysis findings go in too (tolerated only when the analyzer says
    # it is not available).
    if grep -q 'analysis not available' "$T/add1.err"; then
        echo "# analysis not available: $(cat "$T/add1.err")"
        like "$(S show 1 --json)" '"findings":\[' "show lists findings (analysis not available)"
    else
        like "$(S show 1 --json)" '"findings":\[\{"kind":"(disparity|dissimilarity)","region":"/Code[^"]*","severity":' "analysis findings stored with the execution"
    fi
    expect_status 3 "show unknown EID exits 3" S show 99
    like "$(cat "$T/.err")" 'unknown execution 99' "unknown EID message"

    # ---- performance difference ---------------------------------------------
    out=$(S perfdiff 1 3 --metric wall --threshold 10% --json)
    like "$out" '^\{"metric":"wall","unit":"s","threshold":10,' "perfdiff JSON header (§9) with the unit"
    like "$out" '"differences":\[\{"focus":\["/Code","/Machine","/Process"\],"a":3[01][.0-9]*,"b":4[23][.0-9]*,"delta":1[12][.0-9]*,"differs":true,"hidden":false\}' "perfdiff: the root first (largest change, ties breadth-first)"
    like "$out" '"focus":\["/Code/solver.c/compute","/Machine","/Process"\],"a":6,"b":18,"delta":12' "perfdiff finds the slow function"
    like "$out" '"focus":\["/Code/solver.c/compute","/Machine","/Process/2"\],"a":1.5,"b":4.5,"delta":3' "perfdiff refines to function x process"
    if printf '%s' "$out" | grep -Eq '/solve"|loop@|MPI_Allreduce'; then r=1; else r=0; fi
    is "$r" 0 "perfdiff does not report unchanged regions"
    # Changes that cancel out at their parent: the top-down search stopped at
    # solve; every common focus is compared now, so the default finds them.
    out=$(S perfdiff 1 4 --metric wall --threshold 0.5 --json)
    like "$out" '"differences":\[\{"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process"\],"a":8.6,"b":12.6[0-9]*,"delta":4[.0-9]*,"differs":true,"hidden":true\},\{"focus":\["/Code/solver.c/solve/loop@20","/Machine","/Process"\],"a":12,"b":8,"delta":-4,"differs":true,"hidden":true\}' "perfdiff finds a change below a parent that moved less than the threshold (largest first, marked hidden)"
    if printf '%s' "$out" | grep -q '"/Code/solver.c/solve",'; then r=1; else r=0; fi
    is "$r" 0 "perfdiff: the parent that does not differ is not listed"
    like "$out" '"compared":[0-9]+,"differing":10,' "perfdiff: 10 differing foci (two loops x all and each process)"
    out=$(S perfdiff 1 4 --metric wall --threshold 0.5 --exhaustive --json)
    like "$out" '"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process"\],"a":8.6,"b":12.6[0-9]*,"delta":4' "--exhaustive finds the loop that got slower"
    like "$out" '"focus":\["/Code/solver.c/solve/loop@20","/Machine","/Process"\],"a":12,"b":8,"delta":-4' "--exhaustive finds the loop that got faster"
    like "$out" '"focus":\["/Code/solver.c/solve","/Machine","/Process"\],"a":[0-9.]*,"b":[0-9.]*,"delta":[-0-9.e]*,"differs":false' "--exhaustive lists every common focus, the parent that does not differ too"
    is "$(printf '%s' "$out" | grep -o '"focus"' | wc -l | tr -d ' ')" "$(printf '%s' "$out" | grep -o '"compared":[0-9]*' | tr -dc 0-9)" "--exhaustive: one row per compared focus"
    # --min-size: only changes of at least V (metric units)
    out=$(S perfdiff 1 4 --metric wall --threshold 0.5 --min-size 2 --json)
    is "$(printf '%s' "$out" | grep -o '"focus":\["[^"]*","[^"]*","[^"]*"' | tr '\n' ' ')" '"focus":["/Code/solver.c/solve/loop@10","/Machine","/Process" "focus":["/Code/solver.c/solve/loop@20","/Machine","/Process" ' "--min-size 2 leaves out the per-process changes of 1 s"
    expect_status 2 "--min-size takes a number" S perfdiff 1 4 --metric wall --threshold 0.5 --min-size x
    # text: sorted, with units, human formatting
    out=$(S perfdiff 1 3 --metric wall --threshold 10%)
    like "$out" '^performance difference of wall \(s\) between executions 1 and 3 \(threshold 10%\): 27 of [0-9]+ common foci differ, largest first' "perfdiff text header: metric unit, counts"
    like "$(printf '%s\n' "$out" | sed -n 2p)" '^  \+12 s +\(\+38\.7%\) +<\/Code, \/Machine, \/Process>  31 s -> 43 s$' "perfdiff text: the largest change first, values with units"
    like "$(S perfdiff 1 4 --metric wall --threshold 0.5)" 'loop@10, /Machine, /Process>  8.6 s -> 12.6 s  \(its parents moved less than the threshold\)' "perfdiff text says which changes a top-down search misses"
    expect_status 3 "perfdiff unknown EID exits 3" S perfdiff 1 42 --metric wall --threshold 1
    expect_status 3 "perfdiff unknown metric exits 3" S perfdiff 1 3 --metric nope --threshold 1
    expect_status 2 "perfdiff bad threshold exits 2" S perfdiff 1 3 --metric wall --threshold x%

    # ---- structural difference and mapping ---------------------------------
    is "$(S diff 1 2 --json)" '{"only_in":{"1":["/Code/solver.c/compute","/Code/solver.c/compute/MPI_Allreduce@30"],"2":["/Code/solver.c/compute_v2","/Code/solver.c/compute_v2/MPI_Allreduce@30"]}}' "diff finds the renamed region"
    out=$(S diff 1 2)
    like "$out" '\[solver.c\]' "diff text shows placeholders for common ancestors"
    like "$out" '\+ compute_v2' "diff text marks differing resources"
    is "$(S diff 1 3 4 --json)" '{"only_in":{"1":[],"3":[],"4":[]}}' "diff of structurally equal executions"
    printf 'map /Code/solver.c/compute /Code/solver.c/compute_v2\n' > "$T/rename.map"
    is "$(S diff 1 2 --map "$T/rename.map" --json)" '{"only_in":{"1":[],"2":[]}}' "diff --map FILE reconciles the rename"
    ok "space map stores a directive" S map /Code/solver.c/compute /Code/solver.c/compute_v2
    is "$(S map --list)" 'map /Code/solver.c/compute /Code/solver.c/compute_v2' "map --list"
    is "$(S diff 1 2 --json)" '{"only_in":{"1":[],"2":[]}}' "stored mapping applied before diff"
    is "$(S perfdiff 1 2 --metric wall --threshold 0.001 --json | grep -o '"differences":.*')" '"differences":[]}' "mapped executions have no performance difference"
    printf 'map /Code/a\nbogus\n' > "$T/bad.map"
    expect_status 3 "malformed map file exits 3" S diff 1 2 --map "$T/bad.map"
    like "$(cat "$T/.err")" 'bad.map:1:' "map error names file:line"

    # ---- query ----------------------------------------------------------------
    out=$(S query --metric wall --focus /Code/solver.c/compute --json)
    is "$(printf '%s' "$out" | grep -o '"eid":[0-9]*,"focus":[^]]*\],"value":[0-9.]*' | tr '\n' ' ')" \
       '"eid":1,"focus":["/Code/solver.c/compute","/Machine","/Process"],"value":6 "eid":3,"focus":["/Code/solver.c/compute","/Machine","/Process"],"value":18 "eid":4,"focus":["/Code/solver.c/compute","/Machine","/Process"],"value":6 ' "query one focus across executions"
    like "$(S query --metric wall --focus /Code/solver.c/compute --agg max --json)" '"results":\[\{"focus":\["/Code/solver.c/compute","/Machine","/Process"\],"value":18,"executions":3\}\]' "query --agg max"
    like "$(S query --metric wall --focus /Code/solver.c/compute --agg mean --json)" '"value":10,"executions":3' "query --agg mean"
    like "$(S query --metric wall --focus /Code/solver.c/compute --where version=1.2 --json)" '^\{"metric":"wall","unit":"s","results":\[\{"eid":3,[^}]*"value":18\}\]\}' "query --where (JSON with the unit)"
    is "$(S query --metric wall --focus /Code/solver.c/compute --where version=1.2)" '3 wall /Code/solver.c/compute /Machine /Process = 18 s' "query text: value with its unit"
    is "$(S query --metric wall --focus /Code/solver.c/compute/MPI_Allreduce@30 --focus /Process/0 --where version=1.2)" '3 wall /Code/solver.c/compute/MPI_Allreduce@30 /Machine /Process/0 = 500 ms' "query text: human formatting (0.5 s = 500 ms)"
    like "$(S query --metric visits --focus /Code/solver.c/solve/loop@10 --agg sum)" '^sum\(visits\) /Code/solver.c/solve/loop@10 /Machine /Process = 1.6 k over 4 executions$' "query text: counts scaled (1600 = 1.6 k)"
    like "$(S show 1)" 'metrics      cpu \(s\) visits \(count\) wall \(s\)' "show: metrics with their units"
    out=$(S query --metric wall --focus /Code/solver.c/solve --descendants --where version=1.0 --json)
    is "$(printf '%s' "$out" | grep -o '"/Code[^"]*"' | tr '\n' ' ')" '"/Code/solver.c/solve" "/Code/solver.c/solve/loop@10" "/Code/solver.c/solve/loop@20" ' "query --descendants (closure table)"
    out=$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --ancestors --where version=1.0 --json)
    is "$(printf '%s' "$out" | grep -o '"/Code[^"]*"' | tr '\n' ' ')" '"/Code" "/Code/solver.c" "/Code/solver.c/solve" "/Code/solver.c/solve/loop@10" ' "query --ancestors"
    like "$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --focus /Process/2 --where version=1.0 --json)" '"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process/2"\],"value":2.2' "query code x process focus"
    expect_status 3 "query unknown resource exits 3" S query --metric wall --focus /Code/nope.c

    # ---- SQL metacharacters ------------------------------------------------------
    EVIL="x'; DROP TABLE executions;--"
    is "$(S add "$T/evil.xml" --name "$EVIL" --attr "k'\"=$EVIL" --json 2>/dev/null)" '{"eid":5}' "names with SQL metacharacters are stored"
    is "$(S list --json --where "input=$EVIL" | grep -o '"eid":[0-9]*' | tr '\n' ' ')" '"eid":5 ' "and selected"
    is "$(S list --json | grep -o '"eid":[0-9]*' | wc -l | tr -d ' ')" 5 "tables intact"
    like "$(S show 5 --json)" "\"application\":\"x'; DROP TABLE executions;--\"" "application name kept verbatim"
    like "$(S query --metric wall --focus "/Code/solver.c/$EVIL" --json)" '"eid":5' "query a resource with metacharacters"

    # ---- export / import -----------------------------------------------------------
    ok "export --all" S export --all -o "$T/all.txt"
    ok "export one" S export 3 -o "$T/three.txt"
    like "$(head -2 "$T/three.txt")" 'format autoanalyzer-space 1' "export header"
    ok "import into a fresh database" "$AA" space import "$T/all.txt" --db "$T/copy.db"
    ok "export the copy" "$AA" space export --all -o "$T/all2.txt" --db "$T/copy.db"
    ok "export/import round trip is identical" cmp "$T/all.txt" "$T/all2.txt"

    # ---- formats other tools read, from a stored execution --------------------------------
    for f in csv hatchet cube; do
        ok "export --from-space --format $f" "$AA" export --from-space 1 --db "$DB" --format $f -o "$T/fs.$f"
        "$AA" export "$T/base.xml" --format $f -o "$T/file.$f"
        ok "export --from-space --format $f: the same file as from the experiment" cmp "$T/fs.$f" "$T/file.$f"
    done
    if command -v python3 >/dev/null 2>&1; then
        ok "export --from-space: the CUBE file holds the stored experiment's values" \
            "$TOP/tests/report/check_cube.py" "$T/fs.cube" "$T/base.xml"
    fi
    expect_status 3 "export --from-space of an unknown EID exits 3" "$AA" export --from-space 99 --db "$DB" --format csv -o "$T/fs99.csv"
    like "$(cat "$T/.err")" 'unknown execution 99' "the unknown EID is named"
    ok "nothing written for an unknown EID" test ! -e "$T/fs99.csv"
    expect_status 3 "export --from-space of an execution without a stored experiment exits 3" \
        "$AA" export --from-space 1 --db "$T/copy.db" --format cube -o "$T/fsc.cube"
    ok "nothing written without a stored experiment" test ! -e "$T/fsc.cube"
    expect_status 2 "export with an experiment and --from-space exits 2" "$AA" export "$T/base.xml" --from-space 1 --db "$DB" --format csv
    like "$(cat "$T/.err")" 'experiment or --from-space EID, not both' "which says why"
    expect_status 2 "export --from-space with a bad EID exits 2" "$AA" export --from-space x --db "$DB" --format csv
    like "$(cat "$T/.err")" "--from-space wants an execution id, not 'x'" "which names the value"
    is "$("$AA" space perfdiff 1 3 --metric wall --threshold 10% --json --db "$T/copy.db")" "$(S perfdiff 1 3 --metric wall --threshold 10% --json)" "operators agree on the copy"
    sed '5s/.*/nprocs many/' "$T/three.txt" > "$T/bad.txt"
    expect_status 3 "malformed import exits 3" S import "$T/bad.txt"
    like "$(cat "$T/.err")" 'bad.txt:5: ' "import error names file:line"
    { cat "$T/three.txt"; printf 'execution 9\napplication x\nresult wall /Code /Machine /Process 1\nend\n'; } > "$T/bad2.txt"
    expect_status 3 "import of an undeclared focus exits 3" S import "$T/bad2.txt"
    is "$(S list --json | grep -o '"eid":[0-9]*' | wc -l | tr -d ' ')" 5 "failed imports change nothing"

    # ---- all or nothing, concurrency ---------------------------------------------------
    S export --all -o "$T/before.txt"
    AA_SPACE_TEST_FAIL_AFTER=20 expect_status 4 "an import failing midway exits 4" S add "$T/base.xml"
    S export --all -o "$T/after.txt"
    ok "a failed import leaves the database unchanged" cmp "$T/before.txt" "$T/after.txt"
    S add "$T/base.xml" --json > "$T/w1" 2>/dev/null & p1=$!
    S add "$T/slow.xml" --json > "$T/w2" 2>/dev/null & p2=$!
    wait $p1; r1=$?; wait $p2; r2=$?
    is "$r1$r2" 00 "two concurrent writers succeed"
    is "$(cat "$T/w1" "$T/w2" | sort | tr '\n' ' ')" '{"eid":6} {"eid":7} ' "both get distinct EIDs"
    is "$(S list --json | grep -o '"eid":[0-9]*' | wc -l | tr -d ' ')" 7 "nothing lost"
    is "$(S diff 6 7 --json)" '{"only_in":{"6":[],"7":[]}}' "both executions complete"

    # ---- clearing the mappings ------------------------------------------------------
    ok "map --clear" S map --clear
    is "$(S map --list)" '' "no directives left"
    like "$(S diff 1 2 --json)" '"1":\["/Code/solver.c/compute",' "diff sees the rename again"
    expect_status 2 "map with a bad path exits 2" S map /Code/a/ /Code/b

    # ---- an output directory of per-rank files (collect's files mode) ------------------
    mkdir -p "$T/ranks" && "$MK" base "$T/ranks/" && rm -f "$T/ranks/rank-3.xml"
    out=$(S add "$T/ranks" --json 2>"$T/ranks.err")
    like "$out" '^\{"eid":[0-9]+\}$' "add merges a directory of rank files"
    like "$(cat "$T/ranks.err")" '1 of 4 ranks have no profile.*missing: 3' "missing ranks are noted"
    eid=$(printf '%s' "$out" | tr -dc 0-9)
    is "$(S diff 1 "$eid" --json)" "{\"only_in\":{\"1\":[\"/Process/3\",\"/Process/3/0\"],\"$eid\":[]}}" "the missing rank shows in diff"

    # ---- identities that survive edits: three lines added above the loops ------------------
    "$MK" moved "$T/moved.xml"
    out=$(S add "$T/moved.xml" --json 2>/dev/null)
    mv=$(printf '%s' "$out" | tr -dc 0-9)
    is "$(S diff 1 "$mv" --json)" "{\"only_in\":{\"1\":[],\"$mv\":[]}}" "diff matches regions that moved lines by their stable ids"
    out=$(S perfdiff 1 "$mv" --metric wall --threshold 0.5 --json)
    like "$out" '"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process"\],"a":8.6,"b":12.6[0-9]*,"delta":4[.0-9]*,"differs":true' "perfdiff follows the loop that moved to the slower one"
    out=$(S perfdiff 1 3 --metric wall --threshold 10% --json)
    like "$out" '"focus":\["/Code/solver.c/compute","/Machine","/Process"\],"a":6,"b":18' "perfdiff of other executions unchanged"
    out=$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --where experiment=moved --json)
    like "$out" "\"eid\":$mv,\"focus\":\\[\"/Code/solver.c/solve/loop@10\",\"/Machine\",\"/Process\"\\],\"stored_as\":\"/Code/solver.c/solve/loop@13\",\"value\":12.6" "query follows a region that moved lines (stored as loop@13)"
    like "$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --where experiment=moved)" 'loop@10 /Machine /Process = 12.6 s \(stored as /Code/solver.c/solve/loop@13\)' "the text says under which name it is stored"
    like "$(S query --metric wall --focus /Code/solver.c/solve/loop@13 --where experiment=base --json)" '"focus":\["/Code/solver.c/solve/loop@13","/Machine","/Process"\],"stored_as":"/Code/solver.c/solve/loop@10","value":8.6' "and back: loop@13 finds loop@10 of the earlier run"
    like "$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --agg max --where experiment=moved --json)" '"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process"\],"value":12.6[0-9]*,"executions":1' "aggregates under the queried name"
    like "$(S query --metric wall --focus /Code/solver.c/solve/loop@10 --ancestors --where experiment=moved --json)" '"focus":\["/Code/solver.c/solve/loop@10","/Machine","/Process"\],"stored_as":"/Code/solver.c/solve/loop@13"' "--ancestors of the moved region include it"

    # ---- prunes: resources marked irrelevant for an application ------------------------------
    is "$(S prune solver /Code/solver.c/solve/loop@13 --reason 'setup, not tuned')" 'pruned /Code/solver.c/solve/loop@13 for solver' "prune a resource of an application"
    like "$(S prune --list --json)" '^\[\{"application":"solver","resource":"/Code/solver.c/solve/loop@13","region_id":[0-9]+,"reason":"setup, not tuned","added":"[0-9T:-]+Z"\}\]$' "prune --list: the prune with its stable region id and reason"
    like "$(S prune --list solver)" '^solver /Code/solver.c/solve/loop@13 \(region [0-9]+\): setup, not tuned \[' "prune --list APP (text)"
    expect_status 0 "prune --list of another application" S prune --list other
    is "$(cat "$T/.out")" '' "lists none"
    S prune solver /Code/solver.c >/dev/null
    like "$(S prune --list --json)" '"resource":"/Code/solver.c","region_id":null,"reason":""' "a file is pruned without a region id"
    expect_status 3 "a second prune of the same resource exits 3" S prune solver /Code/solver.c/solve/loop@13
    like "$(cat "$T/.err")" "'/Code/solver.c/solve/loop@13' is pruned for 'solver' already" "and says so"
    expect_status 3 "prune for an application never stored exits 3" S prune nosuchapp /Code/solver.c
    like "$(cat "$T/.err")" "no stored execution of 'nosuchapp'" "and names it"
    expect_status 3 "prune of a resource never stored exits 3" S prune solver /Code/solver.c/nope
    like "$(cat "$T/.err")" "resource '/Code/solver.c/nope' is in no stored execution of 'solver'" "and names it"
    expect_status 2 "prune outside /Code is a usage error" S prune solver /Machine
    like "$(cat "$T/.err")" "prune /Machine: a code resource path" "and says what is wanted"
    expect_status 2 "prune with one argument is a usage error" S prune solver
    like "$(cat "$T/.err")" "prune takes APP PATH" "and says what it takes"
    expect_status 3 "removing a prune that is not there exits 3" S prune --remove solver /Code/solver.c/compute
    like "$(cat "$T/.err")" "'/Code/solver.c/compute' is not pruned for 'solver'" "and says so"
    is "$(S prune --remove solver /Code/solver.c)" 'unpruned /Code/solver.c for solver' "prune --remove"
    is "$(S prune --list --json | grep -o '"resource":"[^"]*"' | tr '\n' ' ')" '"resource":"/Code/solver.c/solve/loop@13" ' "the other prune stays"
    # the history-guided analysis leaves the pruned loop out: base's loop@10
    # is the loop stored as loop@13 (same region id), so the prune follows it
    out=$("$AA" analyze "$T/base.xml" --history-from-space solver --db "$DB" 2>&1)
    like "$out" 'pruned: 1 resource \(/Code/solver.c/solve/loop@13: setup, not tuned\), [1-9][0-9]* findings? removed' "analyze --history-from-space removes the findings at a pruned region and says why"
    if ! printf '%s' "$out" | grep -q '^Findings by impact' ||
        printf '%s' "$out" | sed -n '/^Findings by impact/,/^$/p' | grep -q 'loop@10'; then r=1; else r=0; fi
    is "$r" 0 "no finding left at the pruned loop, although its lines moved"
    like "$out" 'priorities from executions [0-9, ]+: [1-9][0-9]* regions? with earlier bottlenecks' "priorities from the stored runs"
    S prune --remove solver /Code/solver.c/solve/loop@13 >/dev/null

    # ---- numbers that add up: a file's value counts nested functions once ------------------
    "$MK" onefile "$T/onefile.xml"
    of=$(S add "$T/onefile.xml" --json 2>/dev/null | tr -dc 0-9)
    Q() { S query --metric wall --focus "$1" --where experiment=onefile --json | grep -o '"value":[0-9.e+-]*' | cut -d: -f2; }
    file=$(Q /Code/solver.c); prog=$(Q /Code); mainv=$(Q /Code/solver.c/main)
    is "$file" "$mainv" "a file whose main calls its other functions gets main's value (outermost regions, inclusive)"
    ok "no file exceeds the program" awk -v f="$file" -v p="$prog" 'BEGIN { exit !(f <= p) }'
    is "$(Q /Code/solver.c/solve)" 22.6 "a region keeps its own inclusive value"

    # ---- bad input ------------------------------------------------------------------------------
    "$MK" huge "$T/huge.xml"
    n0=$(S list --json | grep -o '"eid":' | wc -l)
    expect_status 3 "an experiment whose sums overflow is refused" S add "$T/huge.xml"
    like "$(cat "$T/.err")" "metric 'wall' at \(/Code, /Machine, /Process\): the value is not a finite number" "the overflow message names metric and focus"
    is "$(S list --json | grep -o '"eid":' | wc -l)" "$n0" "nothing stored"
    H='format autoanalyzer-space 1\nexecution 1\napplication bad\n'
    R='resource /Code\tprogram\nresource /Machine\tmachine\nresource /Process\texecution\nmetric wall\ts\n'
    bad() { # NAME TEXT MESSAGE-REGEX
        printf "$H$2end\n" > "$T/bad-$1.txt"
        expect_status 3 "import refuses $1" S import "$T/bad-$1.txt"
        like "$(cat "$T/.err")" "bad-$1.txt:$3" "import $1: file:line and what"
    }
    bad bogus-type 'resource /Code\tbogus\n' "4: resource '/Code' has type 'bogus', which is no type of its hierarchy"
    bad new-root 'resource /Elsewhere\tgroup\n' "4: resource '/Elsewhere' is in no hierarchy"
    bad finding-path "$R"'finding disparity\t/Code/nope.c/f\t0.5\t2\t0.5\t\t\n' "8: finding at '/Code/nope.c/f', which is no declared /Code resource"
    bad metric-unit "$R"'metric wall\tms\n' "8: metric 'wall' declared again with unit 'ms' \(line 7 says 's'\)"
    bad space-unit 'resource /Code\tprogram\nresource /Machine\tmachine\nresource /Process\texecution\nmetric wall\tms\n' "7: metric 'wall' has unit 'ms' here but 's' in the space"
    bad negative "$R"'result wall\t/Code\t/Machine\t/Process\t-2.5\n' "8: negative value -2.5"
    bad duplicate-attr 'attr k\t1\nattr k\t2\n' "5: attribute 'k' given twice \(first at line 4\)"
    bad duplicate-result "$R"'result wall\t/Code\t/Machine\t/Process\t1\nresult wall\t/Code\t/Machine\t/Process\t2\n' "9: a second result for metric 'wall' at \(/Code, /Machine, /Process\) \(first at line 8\)"
    bad inf "$R"'result wall\t/Code\t/Machine\t/Process\tinf\n' "8: bad value 'inf' \(a finite number\)"
    is "$(S list --json | grep -o '"eid":' | wc -l)" "$n0" "rejected imports store nothing"
    printf "$H$R"'result wall\t/Code\t/Machine\t/Process\t1e308\nend\n' > "$T/big.txt"
    big=$(S import "$T/big.txt" --json | tr -dc 0-9)
    S export "$big" -o "$T/big-out.txt"
    like "$(grep '^result' "$T/big-out.txt")" '/Process	1e\+308$' "1e308 is stored and exported as itself, not inf"
    ok "and imports again" S import "$T/big-out.txt"

    # ---- the command line -----------------------------------------------------------------
    is "$("$AA" space --db "$DB" list --json | grep -o '"eid":' | wc -l)" "$(S list --json | grep -o '"eid":' | wc -l)" "--db before the subcommand (git-style)"
    like "$("$AA" space --db "$DB" add "$T/base.xml" 2>/dev/null)" '^added execution [0-9]+ \([0-9]+ findings?\)$' "space add prints what its help says"
    out=$("$AA" space add --help)
    like "$out" '^usage: autoanalyzer space \[--db LOCATION\] add ' "space add --help: the add subcommand's help"
    like "$out" "'added execution N \(K findings\)', or \{\"eid\":N\} with --json" "which says what add prints"
    out=$("$AA" space perfdiff --help)
    like "$out" 'perfdiff A B --metric M --threshold T' "space perfdiff --help shows perfdiff"
    if printf '%s' "$out" | grep -q 'export EID'; then r=1; else r=0; fi
    is "$r" 0 "and not the other subcommands"

    # ---- misc -----------------------------------------------------------------------------
    like "$(S migrate)" 'schema version 5 \(0 migrations applied\)' "migrate on a current schema"
    expect_status 4 "unsupported URL exits 4" "$AA" space list --db "mysql://localhost/x"
    printf 'not a database, just text\n%.0s' $(seq 1 200) > "$T/junk.db"
    expect_status 3 "a file that is not a database exits 3" "$AA" space list --db "$T/junk.db"
    expect_status 2 "unknown subcommand exits 2" "$AA" space frobnicate
    ok "--help" "$AA" space --help
}
