#!/bin/bash
# tests/e2e/space_compact.t -- the Program Space stores a run of more than 64
# processes compact unless `space add --full`: the sums over all processes
# and by host as in full, the distribution of every region x metric
# (<metric>:min, :median, :p90, :max, :stddev), three representative
# processes (least, median and most whole-program wall time), no experiment
# document; its queries and perfdiff answer with the full storage's numbers;
# a run of 64 processes is stored in full as before.
. "$(dirname "$0")/lib.sh"

SYNTH="$AA_BUILD/tests/aa_synth"
DB="$T/s.db"
"$SYNTH" --scenario slow-group --procs 100 -o "$T/slow.xml" >/dev/null
"$SYNTH" --scenario none --procs 100 -o "$T/none.xml" >/dev/null
"$SYNTH" --scenario none --procs 64 -o "$T/small.xml" >/dev/null

ok "add a 100-process run" "$AA" space add "$T/slow.xml" --no-analysis --db "$DB"
ok "add it again with --full" "$AA" space add "$T/slow.xml" --no-analysis --full --db "$DB"
ok "add a second 100-process run" "$AA" space add "$T/none.xml" --no-analysis --db "$DB"
ok "add a 64-process run" "$AA" space add "$T/small.xml" --no-analysis --db "$DB"

show1=$("$AA" space show 1 --db "$DB")
like "$show1" 'storage = compact' "the compact execution says so"
like "$show1" 'representatives = [0-9]+ [0-9]+ [0-9]+' "and names its three representatives"
like "$("$AA" space show 2 --db "$DB")" 'processes +100' "--full: stored in full"
unlike() { if printf '%s' "$1" | grep -Eq -- "$2"; then _tap_result 1 "$3"; else _tap_result 0 "$3"; fi; }
unlike "$("$AA" space show 2 --db "$DB")" 'storage = compact' "--full: no compact attribute"
unlike "$("$AA" space show 4 --db "$DB")" 'storage = compact' "64 processes: stored in full"

results() { "$AA" space show "$1" --db "$DB" | awk '$1 == "results" {print $2}'; }
r1=$(results 1) r2=$(results 2)
ok "compact: under a tenth of the full storage's result rows ($r1 against $r2)" test $((r1 * 10)) -lt "$r2"

# the same sums as the full storage (the exact values: --json)
command -v python3 >/dev/null || skip_all "python3 not found"
cat > "$T/vals.py" <<'PY'
import json, re, sys
# the values of execution argv[1] (all, or with a /Process/<rank> focus: "procs")
eid, procs = int(sys.argv[1]), len(sys.argv) > 2
for r in json.load(sys.stdin)["results"]:
    f = r["focus"]
    if r["eid"] == eid and (not procs or (f[0] == "/Code" and re.fullmatch(r"/Process/[0-9]+", f[2]))):
        print(repr(r["value"]))
PY
q() { "$AA" space query --metric "$1" --db "$DB" "${@:2}" --json | python3 "$T/vals.py" "$E"; }
is_num() { like "$1" '^[0-9][0-9.e+-]*$' "$3: a value ($1)"; is "$1" "$2" "$3"; }
E=1; c=$(q wall); E=2; f=$(q wall)
is_num "$c" "$f" "the sum over all processes is the full storage's"
E=1; c=$(q wall --focus /Machine/node3); E=2; f=$(q wall --focus /Machine/node3)
is_num "$c" "$f" "the sum of a host is the full storage's"

# the distribution: the median of the whole program's wall time over the
# processes, from the full storage's per-process values
"$AA" space query --metric wall --focus /Process --descendants --db "$DB" --json |
    python3 "$T/vals.py" 2 procs | sort -g > "$T/walls"
is "$(wc -l < "$T/walls")" 100 "the full storage has the 100 processes' wall times"
close() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a - b <= 1e-9 * b && b - a <= 1e-9 * b)}'; }
med=$(awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.17g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}' "$T/walls")
E=1; c=$(q wall:median)
ok "wall:median is the median of the processes ($c, from the full storage $med)" close "$c" "$med"
E=1; c=$(q wall:p90); want=$(sed -n 90p "$T/walls")
ok "wall:p90 is the 90th of 100 ($c, $want)" close "$c" "$want"
E=1; c=$(q wall:min); want=$(sed -n 1p "$T/walls")
ok "wall:min ($c, $want)" close "$c" "$want"
E=1; c=$(q wall:max); want=$(sed -n 100p "$T/walls")
ok "wall:max ($c, $want)" close "$c" "$want"
E=1; like "$(q wall:stddev)" '^[0-9.e+-]+$' "wall:stddev is stored"
# a representative's values are the full storage's
rep=$(printf '%s\n' "$show1" | awk '$1 == "representatives" {print $3}')
E=1; c=$(q wall --focus /Process/$rep); E=2; f=$(q wall --focus /Process/$rep)
is_num "$c" "$f" "representative rank $rep: its values are stored"

ok "perfdiff between two compact executions" "$AA" space perfdiff 3 1 --metric wall --threshold 5% --db "$DB"
like "$(cat "$T/.out")" '\+[0-9.]+%\) +</Code, /Machine, /Process>' "perfdiff finds the slower run"

expect_status 3 "analyze --from-space of a compact execution: exit 3" \
    "$AA" analyze --from-space 1 --db "$DB" -q
like "$(cat "$T/.err")" 'stored compact without --full' "the message says why and what to do"
ok "analyze --from-space of the --full execution" "$AA" analyze --from-space 2 --db "$DB" -q

done_testing
