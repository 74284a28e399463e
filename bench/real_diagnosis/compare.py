#!/usr/bin/env python3
"""bench/real_diagnosis/compare.py EXPECTED.json ANALYSIS.json

Built-in comparison of one case of bench/real_diagnosis.sh, used while
tests/diagnosis/score.py (the diagnosis validation scorer) is absent.
Prints one line per check, "CHECK pass|FAIL got=...", then a summary line
"SCORE passed total SUMMARY".  Checks (only for fields that are not null):

  dissimilar  more than one whole-program cluster == expect.dissimilar
  slow_ranks  (expect.dissimilar only) the ranks of the clusters whose mean
              lies above the midpoint of the smallest and largest cluster
              mean == expect.slow_ranks (a rank excluded from the analysis,
              e.g. as a master, is not found); or, with expect.groups, the
              clusters as a partition of the ranks
  cccr        the first dissimilarity CCCR (strongest effect) has the
              expected function and line (loop@LINE or the function's line)
  cause       that CCCR's root causes contain the attribute
  disparity   a disparity CCCR has the expected function and line
  no_finding  (no dissimilarity bottleneck at all) == expect.no_finding

A `benign` entry ({"function", "kind": "dissimilarity", "slow_ranks"}) is a
real imbalance the case's documented mode does not remove (bench/
real_diagnosis.sh says why): a dissimilarity bottleneck in that function
whose slow ranks are exactly those is neither a dissimilarity nor a finding
for the `dissimilar: false` and `no_finding` checks; anywhere else, or with
other slow ranks, it counts as before.
"""
import json
import sys


def main():
    exp = json.load(open(sys.argv[1]))
    ana = json.load(open(sys.argv[2]))
    e = exp["expect"]
    dis = ana.get("dissimilarity", {})
    clusters = dis.get("clusters", [])
    benign = [x for x in exp.get("benign", []) if x.get("kind", "dissimilarity") == "dissimilarity"
              and x.get("slow_ranks") is not None]
    bns = dis.get("bottlenecks", [])
    cccrs = [b for b in bns if b.get("cccr")]
    # the bottlenecks that are not the known real imbalance (benign)
    other = [b for b in bns if not any(
        b.get("function") == x["function"] and sorted(b.get("slow_ranks") or []) ==
        sorted(x["slow_ranks"]) for x in benign)]
    checks = []

    def check(name, ok, got):
        checks.append((name, ok, got))

    if e.get("dissimilar") is not None:
        got = len(clusters) > 1 and (e["dissimilar"] or bool(other))
        check("dissimilar", got == e["dissimilar"], "%d clusters%s" % (
            len(clusters), " (only the benign imbalance)" if len(clusters) > 1 and not got else ""))
    if e.get("dissimilar"):
        if e.get("groups"):
            want = sorted(sorted(g) for g in e["groups"])
            got = sorted(sorted(c["ranks"]) for c in clusters)
            check("groups", want == got, got)
        elif e.get("slow_ranks") is not None:
            slow = []
            if len(clusters) > 1:
                means = [c["mean"] for c in clusters]
                mid = (min(means) + max(means)) / 2
                for c in clusters:
                    if c["mean"] > mid:
                        slow += c["ranks"]
            got = sorted(slow)
            check("slow_ranks", got == sorted(e["slow_ranks"]),
                  "%s excluded=%s" % (got, ana.get("excluded_ranks", [])))
    if e.get("cccr"):
        top = cccrs[0] if cccrs else None
        got = "%s:%s" % (top["function"], top["name"]) if top else "none"
        ok = bool(top) and top["function"] == e["cccr"]["function"] and \
            (e["cccr"].get("line") is None or top["line"] == e["cccr"]["line"])
        check("cccr", ok, got)
    if e.get("cause"):
        top = cccrs[0] if cccrs else None
        rc = top.get("root_causes", []) if top else []
        check("cause", e["cause"] in rc, rc)
    if e.get("disparity"):
        d = [b for b in ana.get("disparity", {}).get("bottlenecks", []) if b.get("cccr")]
        ok = any(b["function"] == e["disparity"]["function"] and
                 (e["disparity"].get("line") is None or b["line"] == e["disparity"]["line"])
                 for b in d)
        check("disparity", ok, ["%s@%s" % (b["function"], b["line"]) for b in d])
    if e.get("no_finding") is not None:
        got = len(other) if e["no_finding"] else len(bns)
        check("no_finding", (got == 0) == e["no_finding"], "%d bottlenecks%s" % (
            len(bns), " (%d benign)" % (len(bns) - got) if got < len(bns) else ""))

    for name, ok, got in checks:
        print("%s %s got=%s" % (name, "pass" if ok else "FAIL", got))
    summ = ";".join("%s:%s" % (n, "ok" if ok else "X") for n, ok, _ in checks)
    print("SCORE %d %d %s" % (sum(1 for c in checks if c[1]), len(checks), summ))


if __name__ == "__main__":
    main()
