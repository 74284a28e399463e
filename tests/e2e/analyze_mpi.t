#!/bin/bash
# tests/e2e/analyze_mpi.t -- autoanalyzer-analyze-mpi, the analysis as an
# MPI job: on the same rank files, the serial `autoanalyzer analyze` and the
# MPI job on 4 and 64 ranks (oversubscribed) report the same regions and
# severity classes, the same process clusters and the same findings (region,
# CCCR, slow and waiting ranks, where they wait); the data-bubble path (200
# processes on 8 ranks) with the per-region distributions (exact order
# statistics); processes that shared CPUs; an experiment file as input; a --synth block run;
# bad input (exit 3 naming the file), usage errors (exit 2).
. "$(dirname "$0")/lib.sh"

MPIA="$AA_BUILD/bin/autoanalyzer-analyze-mpi"
SYNTH="$AA_BUILD/tests/aa_synth"
command -v mpirun >/dev/null || skip_all "mpirun not found"
command -v python3 >/dev/null || skip_all "python3 not found"

# digest JSON: what the comparison covers (floats are left out: the sums
# are taken in another order)
cat > "$T/digest.py" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
d, p = a["dissimilarity"], a["disparity"]
print("processes", a["processes"], a["rank_set"], "excluded", a["excluded_ranks"])
print("regions", [(r["index"], r["id"], r["parent_index"], r["processes"], r["severity"])
                  for r in a["regions"]])
print("clusters", sorted(c["rank_set"] for c in d["clusters"]))
for b in d["bottlenecks"]:
    print("imbalance", b["index"], b["cccr"], b.get("slow_rank_set"),
          b.get("waiting_rank_set"), (b.get("wait_region") or {}).get("index"))
    print("  causes", b["root_causes"], "--", b["suggestion"])
for b in p["bottlenecks"]:
    print("hotspot", b["index"], b["cccr"], b["severity_class"])
    print("  causes", b["root_causes"], "confidence %.9f" % b["confidence"], "--", b["suggestion"])
y = a.get("dynamic", {})
print("dynamic", y.get("measured"), [(b["index"], b["cccr"], b.get("waiting_rank_set"),
      (b.get("wait_region") or {}).get("index"), "%.6f" % b["impact_seconds"])
      for b in y.get("bottlenecks", [])])
print("attributes", a["attributes"], a["unavailable"])
EOF
digest() { python3 "$T/digest.py" "$1"; }

# same_as_serial NAME DIR NP [OPTION...]: the MPI job on NP ranks against
# the serial analysis
same_as_serial() {
    local name=$1 dir=$2 np=$3
    shift 3
    [ -f "$dir.serial" ] || { "$AA" analyze -q ${SERIAL_OPTS:-} --json "$dir.json" "$dir" &&
                              digest "$dir.json" > "$dir.serial"; }
    rm -f "$T/p.json"
    mpirun -np "$np" "$MPIA" -q --json "$T/p.json" "$@" "$dir" > "$T/p.out" 2>&1
    is "$(digest "$T/p.json" 2>&1)" "$(cat "$dir.serial")" "$name: $np ranks find what the serial analysis finds"
}

for sc in slow-group l2; do
    mkdir -p "$T/$sc"
    "$SYNTH" --scenario "$sc" --procs 64 --split "$T/$sc" >/dev/null
done
same_as_serial slow-group "$T/slow-group" 4
same_as_serial slow-group "$T/slow-group" 64
same_as_serial l2 "$T/l2" 4
like "$(grep -c imbalance "$T/slow-group.serial") $(grep -c hotspot "$T/l2.serial")" '^[1-9][0-9]* 1$' \
    "the comparisons cover imbalances and hotspots (other scenarios: test_analyze_parallel)"
like "$(grep -A1 hotspot "$T/l2.serial" | grep causes)" "causes \\['l2_miss_rate'\\] confidence 1\\.0+ -- many L2 cache misses" \
    "... and the root causes (rough sets), suggestions and confidence"

# more processes than the exact clustering takes: data bubbles over the ranks
mkdir -p "$T/big"
"$SYNTH" --scenario slow-group --procs 200 --split "$T/big" >/dev/null
same_as_serial "slow-group, 200 processes (data bubbles)" "$T/big" 8 --regions-json "$T/rj.json"

# rank files that do not all list every region: a master's regions are in
# rank 0's file only (every rank must still take the same decisions)
mkdir -p "$T/master"
"$SYNTH" --scenario slow-group --procs 16 --master --split "$T/master" >/dev/null
for f in "$T"/master/rank-[1-9]*.xml; do
    grep -v 'function="manage"' "$f" > "$f.tmp" && mv "$f.tmp" "$f"
done
like "$(grep -c 'function="manage"' "$T/master/rank-0.xml") $(cat "$T"/master/rank-[1-9]*.xml | grep -c 'function="manage"')" \
    '^[1-9][0-9]* 0$' "the master's regions are listed in rank 0's file only"
SERIAL_OPTS=--no-auto-exclude same_as_serial "master regions in one rank file" "$T/master" 4 --no-auto-exclude
# ... and the master detected and left out by both
mkdir -p "$T/master2"
"$SYNTH" --scenario slow-group --procs 16 --master --split "$T/master2" >/dev/null
same_as_serial "rank 0 a master, excluded" "$T/master2" 4
like "$(head -1 "$T/master2.serial")" 'excluded \[0\]' "... which the serial analysis excludes"

# processes that shared CPUs (analyze/placement.c): 16 rank files of the
# balanced scenario, the odd ranks 3% slower in every region and on CPU 1,
# the even ones on CPU 0 -- the CPUs' speed: one cluster and the note in the
# MPI job as in the serial one (keys and partitions gathered, sums reduced)
mkdir -p "$T/cpus"
"$SYNTH" --scenario none --procs 16 --noise 0.002 --split "$T/cpus" >/dev/null
python3 - "$T"/cpus/rank-*.xml <<'EOF'
import re, sys
for f in sys.argv[1:]:
    r = int(re.search(r'rank-(\d+)', f).group(1))
    t = open(f).read()
    if r % 2:
        t = re.sub(r' v="(\S+) ([^"]*)"', lambda m: ' v="%s %s"' % (m.group(1), " ".join(
            x if x == "-" else repr(float(x) * 1.03) for x in m.group(2).split())), t)
    t = re.sub(r'(<process [^>]*>)', r'\1<attr name="cpus">%d:1.000</attr>' % (r % 2), t, count=1)
    open(f, "w").write(t)
EOF
# (the speeds left in: speed_normalize 0, so that the placement and speed
# tests see them; by default they are taken out first, below)
SERIAL_OPTS="--set speed_normalize=0" same_as_serial "the odd ranks 3% slower on the CPU they shared" "$T/cpus" 4 --set speed_normalize=0
notes() { python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(len(a["dissimilarity"]["clusters"]), sum("the CPUs the processes shared" in n for n in a["notes"]))' "$1"; }
is "$(notes "$T/cpus.json") $(notes "$T/p.json")" "1 1 1 1" "... the CPUs' speed in both: one cluster, the note"
"$AA" analyze -q --set speed_normalize=0 --set placement_z=0 --set speed_z=0 --json "$T/cpus-off.json" "$T/cpus" >/dev/null 2>&1
is "$(notes "$T/cpus-off.json")" "2 0" "... with placement_z 0 and speed_z 0: the CPUs split the processes"
# ... without the placement, the processes' speed (analyze/speed.c): the odd
# ranks slower in every region alike, the same in the MPI job
cp -r "$T/cpus" "$T/cpus-speed"
SERIAL_OPTS="--set speed_normalize=0 --set placement_z=0" same_as_serial "the odd ranks 3% slower, placement_z 0" "$T/cpus-speed" 4 --set speed_normalize=0 --set placement_z=0
speed_notes() { python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(len(a["dissimilarity"]["clusters"]), sum("the processes'"'"' speed" in n for n in a["notes"]), int(a["dissimilarity"]["speed"] is not None))' "$1"; }
is "$(speed_notes "$T/cpus-speed.json") $(speed_notes "$T/p.json")" "1 1 1 1 1 1" "... the processes' speed in both: one cluster, the note, JSON dissimilarity.speed"
# ... by default the speeds are taken out before the processes are compared
# (speed_normalize): one cluster, the note, in both
cp -r "$T/cpus" "$T/cpus-norm"
same_as_serial "the odd ranks 3% slower, their speed taken out" "$T/cpus-norm" 4
norm_notes() { python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(len(a["dissimilarity"]["clusters"]), sum("speed taken out" in n for n in a["notes"]), int(a["dissimilarity"]["speed_normalized"]))' "$1"; }
is "$(norm_notes "$T/cpus-norm.json") $(norm_notes "$T/p.json")" "1 1 1 1 1 1" "... one cluster, the note, JSON dissimilarity.speed_normalized, in both"

# per-region distributions (--regions-json of the 8-rank run above): exact
# order statistics, checked against the sorted values of the same run
# written as one file
"$SYNTH" --scenario slow-group --procs 200 -o "$T/big.xml" >/dev/null
cat > "$T/distcheck.py" <<'EOF'
import json, sys, math
import xml.etree.ElementTree as ET
d = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
ns = root.tag.split('}')[0] + '}' if root.tag.startswith('{') else ''
names = [m.get('name') for m in root.iter(ns + 'metric')]
wi = names.index('wall')
vals = {}
for n in root.iter(ns + 'node'):
    vals.setdefault(int(n.get('region')), []).append(float(n.get('v').split()[wi]))
bad = 0
for r in d['regions']:
    v = sorted(vals[r['id']]); n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    w = r['wall']
    if (w['n'], w['min'], w['max'], w['median'], w['p90']) != (n, v[0], v[-1], med, v[math.ceil(0.9 * n) - 1]):
        bad += 1
print(len(d['regions']), bad)
EOF
like "$(python3 "$T/distcheck.py" "$T/rj.json" "$T/big.xml" 2>&1)" '^21 0$' \
    "the distributions are the exact order statistics of the processes' values"

# a CCR whose difference is in its own code (own_share, the numbers of
# test_analyze's test_ccr_own_code): the even ranks' initialisation loop is a
# CCCR beside the small CCR below it, in the MPI job as in the serial one
python3 - "$T/own.xml" <<'EOF'
import sys
own = [67.0, 2.1, 64.8, 1.9, 61.7, 1.9, 63.6, 2.0]
jump = [0.90, 1.06, 0.94, 0.85, 3.21, 0.96, 1.10, 0.87]
steps = [173.7, 4.4, 166.8, 4.8, 159.6, 3.7, 158.7, 3.6]
setup = [2.6, 2.5, 2.4, 2.6, 2.5, 2.5, 2.6, 2.4]
regions = [(1, "function", "main", 0), (2, "function", "init", 1), (3, "loop", "loop@20", 2),
           (4, "loop", "loop@30", 2), (5, "function", "jump", 4), (6, "loop", "loop@50", 1)]
out = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="own-1" program="own" nprocs="8">',
       '<environment/><metrics><metric name="visits" unit="count"/><metric name="wall" unit="s"/>'
       '<metric name="cpu" unit="s"/></metrics><regions><region id="0" kind="program" name="own"/>']
for i, k, n, par in regions:
    fn = n if k == "function" else ("init" if i < 6 else "main")
    out.append('<region id="%d" kind="%s" name="%s" function="%s" file="own.c" line="%d" parent="%d"/>'
               % (i, k, n, fn, 10 * i, par))
out.append('</regions>')
for r in range(8):
    il = (own[r] + jump[r]) / 1e3
    ini = il + setup[r] / 1e3
    tot = ini + steps[r] / 1e3 + 0.5e-3
    vals = [(0, -1, tot), (1, 0, tot), (2, 1, ini), (3, 2, setup[r] / 1e3), (4, 2, il),
            (5, 4, jump[r] / 1e3), (6, 1, steps[r] / 1e3)]
    out.append('<process rank="%d" host="node0" pid="%d"><thread id="0">' % (r, 100 + r))
    for reg, par, v in vals:
        out.append('<node region="%d" parent="%d" v="1 %.9f %.9f"/>' % (reg, par, v, v))
    out.append('</thread></process>')
out.append('</experiment>')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
same_as_serial own-code "$T/own.xml" 4
like "$(grep '^imbalance' "$T/own.xml.serial" | sort | tr '\n' ' ')" \
    '^imbalance 2 False .*imbalance 5 True 0-6:2 .*imbalance 6 True 4 .*imbalance 7 True 0-6:2' \
    "own code: the initialisation loop, the helper and the time steps are CCCRs"

# direct recursion folded (test_analyze's test_recursion_folded): refine
# calls work and itself three levels deep, rank 1 doing 4x the work; one
# refine and one work region, work the one CCCR, in both analyses
python3 - "$T/rec.xml" <<'EOF'
import sys
out = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<experiment xmlns="urn:autoanalyzer:profile:1" version="1" id="rec-1" program="rec" nprocs="8">',
       '<environment/><metrics><metric name="visits" unit="count"/><metric name="wall" unit="s"/>'
       '<metric name="cpu" unit="s"/></metrics><regions><region id="0" kind="program" name="rec"/>',
       '<region id="1" kind="function" name="main" function="main" file="rec.c" line="1"/>',
       '<region id="2" kind="loop" name="loop@10" function="main" file="rec.c" line="10" parent="1"/>',
       '<region id="3" kind="function" name="phase" function="phase" file="rec.c" line="20" parent="2"/>',
       '<region id="4" kind="function" name="refine" function="refine" file="rec.c" line="30" parent="2"/>',
       '<region id="5" kind="function" name="work" function="work" file="rec.c" line="40" parent="4"/>',
       '</regions>']
lvl = [8e-3, 4e-3, 2e-3]
for r in range(8):
    f = 4 if r == 1 else 1
    inc = [0, 0, 0]
    inc[2] = f * lvl[2]; inc[1] = f * lvl[1] + inc[2]; inc[0] = f * lvl[0] + inc[1]
    tot = 0.2 + inc[0]
    nodes = [(0, -1, tot), (1, 0, tot), (2, 1, tot), (3, 2, 0.2 * (1 + 0.002 * r))]
    parent = 2
    for d in range(3):
        nodes.append((4, parent, inc[d])); parent = len(nodes) - 1
        nodes.append((5, parent, f * lvl[d]))
    out.append('<process rank="%d" host="node0" pid="%d"><thread id="0">' % (r, 100 + r))
    for reg, par, v in nodes:
        out.append('<node region="%d" parent="%d" v="1 %.9f %.9f"/>' % (reg, par, v, v))
    out.append('</thread></process>')
out.append('</experiment>')
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
same_as_serial recursion "$T/rec.xml" 4

# the clustering is the leading CCCR's partition, not an enclosing CCR's
# (tests/data/profile/enclosing_ccr.xml, analyze.t)
cp "$TOP/tests/data/profile/enclosing_ccr.xml" "$T/enc.xml"
same_as_serial "the leading CCCR's partition" "$T/enc.xml" 4
like "$(grep '^clusters' "$T/enc.xml.serial")" "\['0,2', '1,3'\]" "... ranks 0,2 | 1,3 in both"
is "$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
ids = [r["id"] for r in a["regions"]]
cccr = [b["name"] for b in a["dissimilarity"]["bottlenecks"] if b["cccr"]]
print(ids.count(4), ids.count(5), cccr)' "$T/rec.xml.json")" "1 1 ['work']" \
    "recursion: one refine and one work region, work the one CCCR"

# an experiment file: every rank reads it and takes its block; text report
"$SYNTH" --scenario l2 --procs 16 -o "$T/l2.xml" >/dev/null
ok "an experiment file as input" mpirun -np 4 "$MPIA" --json "$T/f.json" "$T/l2.xml"
like "$(cat "$T/.out")" 'hotspot .*loop@73' "rank 0 prints the report (the L2 hotspot)"
is "$(digest "$T/f.json")" "$("$AA" analyze -q --json "$T/l2s.json" "$T/l2.xml" && digest "$T/l2s.json")" \
    "the experiment file: the same findings as the serial analysis"

# the scaling simulation: each rank generates its block; --stats
ok "--synth slow-group on 4 ranks" mpirun -np 4 "$MPIA" -q --stats --json "$T/s.json" \
    --synth slow-group --procs 1024 --regions 40
like "$(cat "$T/.out")" 'stats: 4 ranks, 1024 processes: .*peak memory per rank' "--stats: time and memory per rank"
like "$(digest "$T/s.json" | grep '^imbalance 7 True')" '1-1021:4' "--synth: the slow quarter found in the inner loop"

# a load moving between processes each step (synth dynamic): the same
# dynamic imbalance as the serial analysis, through an experiment file
"$SYNTH" --scenario dynamic --procs 64 -o "$T/dyn.xml" >/dev/null
ok "--synth dynamic: the experiment file" test -s "$T/dyn.xml"
same_as_serial "dynamic imbalance" "$T/dyn.xml" 4
like "$(digest "$T/p.json" | grep '^dynamic')" "^dynamic True \\[\\([0-9]+, True, '0-63'" \
    "--synth dynamic: one dynamic CCCR, every process waiting"

# bad input and usage errors
mkdir -p "$T/bad"
cp "$T/l2/rank-0.xml" "$T/l2/rank-1.xml" "$T/bad/"
printf '<?xml version="1.0"?>\n<experiment version="1"><oops' > "$T/bad/rank-2.xml"
expect_status 3 "a malformed rank file: exit 3" mpirun -np 3 "$MPIA" -q "$T/bad"
like "$(cat "$T/.err")" 'rank-2\.xml:[0-9]+' "the message names the file and the line"
mkdir -p "$T/empty"
expect_status 3 "a directory without rank files: exit 3" mpirun -np 2 "$MPIA" -q "$T/empty"
like "$(cat "$T/.err")" 'no rank-N.xml or rank-N.aab files' "the message says what is missing"
expect_status 3 "a missing input: exit 3" mpirun -np 1 "$MPIA" -q "$T/nothere"
mkdir -p "$T/two"
cp "$T/l2/rank-0.xml" "$T/l2/rank-1.xml" "$T/two/"
expect_status 2 "more analysis ranks than rank files: exit 2" mpirun -np 3 "$MPIA" -q "$T/two"
expect_status 2 "more analysis ranks than processes: exit 2" mpirun -np 4 "$MPIA" -q --synth l2 --procs 2
expect_status 2 "an unknown option: exit 2" mpirun -np 1 "$MPIA" --frobnicate "$T/l2"
expect_status 2 "no input: exit 2" mpirun -np 1 "$MPIA" -q
expect_status 2 "a bad analysis setting: exit 2" mpirun -np 1 "$MPIA" -q --set noise_factor=x "$T/l2"

done_testing
