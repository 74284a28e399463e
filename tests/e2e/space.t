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
done_testing
