#!/usr/bin/env python3
"""bench/speed_z.py EXPERIMENT.xml ANALYSIS.json [...pairs]
bench/speed_z.py --suite CASES_DIR ANALYSES_DIR

The speed test's statistic (analyze/speed.c, docs/analysis.md §2
"Processes slower in every region alike"), recomputed from the profile for
every dissimilarity CCCR of an analysis -- made with `--set speed_z=0` so
that the imbalances the test would drop are listed too.  Per CCCR: the
regions the speeds come from (self value of at least finding_min_share, 1%,
of the median program metric on every process), the region's log ratio
slow / others (raw), the slow processes' speed less the others' (U), what
the speeds leave of the ratio (D = raw - U), the processes' mean spread (s)
and z = D / (s sqrt(1/|S| + 1/|F|)).  The analysis drops a CCCR with
0 < U <= log(speed_max = 1.5) and z <= speed_z (5).  --suite: every kept
run of a diagnosis-suite directory (cases/seed-*/run<k>/experiment.xml)
against the analyses of a `run.py --reanalyze ... --set speed_z=0`
output (cases/seed-*/analysis<k>.json), each line marked TRUE (the
injected imbalance's function) or FALSE.  Used for bench/diagnosis.md,
twentieth step.
"""
import glob
import importlib.util
import json
import math
import os
import statistics
import sys

_spec = importlib.util.spec_from_file_location(
    "placement_z", os.path.join(os.path.dirname(os.path.abspath(__file__)), "placement_z.py"))
pz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pz)


def speed_stat(procs, ranks, slow, path):
    """(regions, raw, U, D, s, z), or None when fewer than 5 regions."""
    selfv = {r: pz.self_values(procs[r]["mm"]) for r in ranks}
    prog = statistics.median(procs[r]["mm"].get(("0",), 0.0) for r in ranks)
    regs = [p for p in set.intersection(*(set(s) for s in selfv.values()))
            if min(selfv[r][p] for r in ranks) >= max(pz.MIN_SHARE * prog, 1e-300)]
    x = {r: procs[r]["mm"].get(path, 0.0) for r in ranks}
    if len(regs) < pz.MIN_REGIONS or min(x.values()) <= 0:
        return None
    mu = {p: statistics.mean(math.log(selfv[r][p]) for r in ranks) for p in regs}
    e = {r: [math.log(selfv[r][p]) - mu[p] for p in regs] for r in ranks}
    speed = {r: statistics.median(e[r]) for r in ranks}
    spread = {r: 1.4826 * statistics.median(abs(v - speed[r]) for v in e[r]) for r in ranks}
    S = [r for r in ranks if r in slow]
    F = [r for r in ranks if r not in slow]
    raw = statistics.mean(math.log(x[r]) for r in S) - statistics.mean(math.log(x[r]) for r in F)
    U = statistics.mean(speed[r] for r in S) - statistics.mean(speed[r] for r in F)
    s = statistics.mean(spread.values())
    z = (raw - U) / (s * math.sqrt(1 / len(S) + 1 / len(F))) if s > 0 else float("inf")
    return len(regs), raw, U, raw - U, s, z


def lines(xml, js, label=""):
    procs = pz.read_profile(xml)
    a = json.load(open(js))
    ranks, paths = a["ranks"], pz.region_paths(a)
    for b in a["dissimilarity"].get("bottlenecks", []):
        slow = set(b.get("slow_ranks") or [])
        if not b.get("cccr") or not slow or len(slow) == len(ranks):
            continue
        st = speed_stat(procs, ranks, slow, paths[b["index"] - 1])
        yield b, "%s%s@%s slow=%s %s" % (
            label, b["name"], b["function"], b.get("slow_rank_set"),
            "regions=%d raw=%.3f U=%.3f D=%.3f s=%.3f z=%.1f" % st if st else "-")


def main(args):
    if len(args) == 3 and args[0] == "--suite":
        for d in sorted(glob.glob(os.path.join(args[1], "seed-*"))):
            exp = json.load(open(os.path.join(d, "expected.json")))
            e = exp["expect"]
            for js in sorted(glob.glob(os.path.join(args[2], os.path.basename(d),
                                                    "analysis[0-9].json"))):
                xml = os.path.join(d, "run" + js[-6], "experiment.xml")
                if not os.path.exists(xml):
                    continue
                for b, line in lines(xml, js, "%s rep%s " % (exp["case"], js[-6])):
                    true = bool(e.get("dissimilar")) and e.get("cccr") and \
                        b["function"] == e["cccr"]["function"]
                    print(("TRUE  " if true else "FALSE ") + line)
        return
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    for xml, js in zip(args[0::2], args[1::2]):
        for _, line in lines(xml, js, js + " "):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
