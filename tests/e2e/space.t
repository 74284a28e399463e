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
for sub in "list" "show 1" "query --metric wall" "diff 1 2" "perfdiff 1 2 --metric wall --threshold 1" "export --all -o $T/x.txt" "migrate" "map --list"; do
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
expect_status 4 "add of a missing experiment exits 4 (as analyze does)" "$AA" space add "$T/nothing.xml" --db "$T/new3.db"
ok "and creates no database" test ! -e "$T/new3.db"
done_testing
