#!/bin/bash
# tests/e2e/space.t -- the Program Space operator suite (tests/space/suite.sh)
# against the SQLite backend, plus the default location and AUTOANALYZER_DB.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/space/suite.sh"
[ -x "$AA_BUILD/tests/space_mkexp" ] || skip_all "space_mkexp not built (make all)"

space_suite "$T/space.db"

# Location: AUTOANALYZER_DB, sqlite:PATH, default file in the working directory.
"$AA_BUILD/tests/space_mkexp" base "$T/b.xml"
is "$(AUTOANALYZER_DB="sqlite:$T/env.db" "$AA" space add "$T/b.xml" --json 2>/dev/null)" '{"eid":1}' "AUTOANALYZER_DB with sqlite:PATH"
ok "the env database exists" test -s "$T/env.db"
mkdir -p "$T/wd"
(cd "$T/wd" && unset AUTOANALYZER_DB && "$AA" space add "$T/b.xml" --json >/dev/null 2>&1)
ok "default ./autoanalyzer-space.db" test -s "$T/wd/autoanalyzer-space.db"

# A mistyped --db: reading subcommands refuse it instead of creating an
# empty database; a rejected first add or import leaves no file behind.
for sub in "list" "show 1" "query --metric wall" "diff 1 2" "perfdiff 1 2 --metric wall --threshold 1" "export --all -o $T/x.txt" "migrate" "map --list" "map --clear"; do
    expect_status 3 "space $sub on a missing database exits 3" "$AA" space $sub --db "$T/typo.db"
done
like "$(cat "$T/.err")" 'typo.db: no Program Space there' "the message says there is no Program Space there"
ok "no database was created" test ! -e "$T/typo.db"
"$AA_BUILD/tests/space_mkexp" huge "$T/huge.xml"
expect_status 3 "a rejected first add exits 3" "$AA" space add "$T/huge.xml" --db "$T/new.db"
ok "and leaves no empty database file" test ! -e "$T/new.db"
printf 'format autoanalyzer-space 1\nexecution 1\napplication a\nresource /Code\tbogus\nend\n' > "$T/bad.txt"
expect_status 3 "a rejected first import exits 3" "$AA" space --db "$T/new2.db" import "$T/bad.txt"
ok "and leaves no empty database file" test ! -e "$T/new2.db"
expect_status 3 "add of a missing experiment exits 3 (bad input, as analyze does)" "$AA" space add "$T/nothing.xml" --db "$T/new3.db"
like "$(cat "$T/.err")" 'autoanalyzer: .*nothing\.xml: No such file or directory' "and names the file"
ok "and creates no database" test ! -e "$T/new3.db"

# A schema-3 database (before prunes and the findings' costs) gets the
# prunes table and the costs on open; its old findings read back with
# their costs unknown.
"$AA" space add "$T/b.xml" --db "$T/old.db" >/dev/null 2>&1
sqlite3 "$T/old.db" "DROP TABLE prunes; DROP TABLE finding_contexts;
  ALTER TABLE findings DROP COLUMN impact; ALTER TABLE findings DROP COLUMN run_share;
  DELETE FROM schema_migrations WHERE version >= 4"
is "$(sqlite3 "$T/old.db" 'SELECT MAX(version) FROM schema_migrations')" 3 "a schema-3 database"
is "$("$AA" space prune solver /Code --db "$T/old.db" 2>&1)" 'pruned /Code for solver' "takes prunes after the migration on open"
like "$("$AA" space migrate --db "$T/old.db")" 'schema version 5 \(0 migrations applied\)' "and is at schema 5"
ok "its findings' costs unknown" test "$(sqlite3 "$T/old.db" 'SELECT COUNT(*) FROM findings WHERE impact IS NULL')" -gt 0
"$AA" space add "$T/b.xml" --db "$T/old.db" >/dev/null 2>&1
like "$("$AA" space show 2 --db "$T/old.db")" 'impact [0-9.e-]+ s \([0-9.]+% of the run\)' "a finding added after it states its cost"
like "$("$AA" space show 2 --json --db "$T/old.db")" '"impact_seconds": ?[0-9.e-]+, ?"run_share": ?[0-9.e-]+, ?"contexts": ?\[' \
    "... in the JSON too (impact_seconds, run_share, contexts)"

# History-guided comparison: report --baseline EID learns the run-to-run
# noise of the configuration from the stored runs and says what it used.
for x in base moved cancel slow; do "$AA_BUILD/tests/space_mkexp" $x "$T/h-$x.xml"; done
out=$("$AA" report "$T/h-slow.xml" --baseline 1 --db "$T/h.db" -o "$T/h0.html" 2>&1)
ok "report --baseline EID on a missing database fails" test $? -ne 0
ok "and creates no database" test ! -e "$T/h.db"
for x in base moved cancel; do "$AA" space add "$T/h-$x.xml" --db "$T/h.db" >/dev/null 2>&1; done
out=$("$AA" report "$T/h-slow.xml" --baseline 1 --db "$T/h.db" -o "$T/h.html" 2>&1)
like "$out" 'history: run-to-run noise of [0-9]+ regions learned from 3 stored runs of solver \(EIDs 3, 2, 1\); [0-9]+ of the [0-9]+ region differences lie within 3 times their noise' "report says which stored runs its noise came from"
like "$(grep -o '<p class="history">[^<]*' "$T/h.html")" 'History: run-to-run noise of [0-9]+ regions learned from 3 stored runs' "and the HTML report too"
like "$(cat "$T/h.html")" 'within run-to-run noise, &#177;' "a difference within the noise is marked as such"

# History-guided analysis: the stored runs of the same version vary by about
# 20% in loop@10, so base's imbalance there (8% of the loop) lies within
# their noise; the other runs' findings are its priorities.
"$AA" space add "$T/h-slow.xml" --db "$T/h.db" >/dev/null 2>&1
out=$("$AA" analyze "$T/h-base.xml" 2>&1)
like "$out" 'imbalance [0-9.]+ s .* loop@10' "without history: an imbalance in loop@10"
if printf '%s' "$out" | grep -q 'History used'; then r=1; else r=0; fi
is "$r" 0 "and no history"
out=$("$AA" analyze "$T/h-base.xml" --history-from-space solver --db "$T/h.db" --json "$T/hb.json" 2>&1)
like "$out" 'History used \(Program Space [^,]*h.db, solver\):' "analyze --history-from-space says which Program Space and application"
like "$out" 'noise from executions 4, 3, 2: [0-9]+ regions, [0-9]+ noisier between runs than within this one; [1-9][0-9]* imbalances? within 3 times that noise removed' "the learned noise (the run itself left out) removes imbalances within it"
if ! printf '%s' "$out" | grep -q '^Findings by impact' ||
    printf '%s' "$out" | grep -q 'imbalance [0-9.]* s'; then r=1; else r=0; fi
is "$r" 0 "no imbalance left in loop@10"
like "$out" 'priorities from executions 4, 3, 2: [1-9][0-9]* regions with earlier bottlenecks' "priorities from the other stored runs"
like "$out" 'found before: in 3 earlier runs \(a priority\)' "a finding earlier runs found too is marked"
like "$(tr -d ' \n' < "$T/hb.json")" '"history":\{"source":"ProgramSpace[^"]*h.db,solver","pruned":\[\],"priorities_from":\[4,3,2\]' "the JSON says which history was used"
expect_status 3 "--history-from-space of a name never stored exits 3" "$AA" analyze "$T/h-base.xml" --history-from-space nosuch --db "$T/h.db"
like "$(cat "$T/.err")" 'history-from-space nosuch: no stored execution of that name or application' "and says so"
expect_status 3 "--history-from-space without a Program Space exits 3" "$AA" analyze "$T/h-base.xml" --history-from-space solver --db "$T/none.db"
like "$(cat "$T/.err")" 'none.db: no Program Space there' "and says so"
ok "and creates none" test ! -e "$T/none.db"
done_testing
