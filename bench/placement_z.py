#!/usr/bin/env python3
"""bench/placement_z.py EXPERIMENT.xml ANALYSIS.json [...pairs]

The placement test's statistic (analyze/placement.c, docs/analysis.md §2
"Processes that shared CPUs"), recomputed from the profile for every
dissimilarity bottleneck of an analysis -- made with `--set placement_z=0`
so that the imbalances the test would drop are listed too.  Per bottleneck:
whether its partition follows the processes' CPUs (`cpus`, else `cpu`;
the host), the number of regions compared (self value of at least
finding_min_share, 1%, of the median program metric on every process), the
median log ratio slow / others over them, their spread (1.4826 MAD), the
region's own log ratio and z = (own - median) / sqrt(spread^2 + se^2).
The analysis drops a bottleneck that follows the CPUs with z <= 3
(placement_z).  Used for bench/diagnosis.md, nineteenth step:

    autoanalyzer analyze -q --set placement_z=0 --json A.json run0/experiment.xml
    python3 bench/placement_z.py run0/experiment.xml A.json

The metric is the analysis' main one: CPU time less the CPU time inside MPI
and I/O calls, summed over threads, self values clamped at 0.
"""
import json
import math
import re
import statistics
import sys

MIN_SHARE = 0.01     # finding_min_share
MIN_PLACE = 0.5      # placement_min_share
MIN_REGIONS = 5      # AN_PLACE_MIN_REGIONS


def read_profile(path):
    text = open(path, errors="replace").read()
    names = re.findall(r'<metric name="([^"]+)"', text)
    ix = {m: i for i, m in enumerate(names)}
    procs = {}
    for pm in re.finditer(r'<process rank="(\d+)"([^>]*)>(.*?)</process>', text, re.S):
        rank, head, body = int(pm.group(1)), pm.group(2), pm.group(3)
        host = re.search(r'host="([^"]*)"', head)
        cpus = re.search(r'name="cpus">([^<]*)<', body)
        cpu = re.search(r'name="cpu">(-?\d+)<', body)
        main = None
        if cpus:
            parts = [p.split(":") for p in cpus.group(1).split(",") if ":" in p]
            best = max(parts, key=lambda p: float(p[1]))
            main = (int(best[0]), float(best[1]))
        elif cpu:
            main = (int(cpu.group(1)), 1.0)
        mm = {}
        for th in re.finditer(r'<thread[^>]*>(.*?)</thread>', body, re.S):
            paths = []
            for nm in re.finditer(r'<node region="(\d+)" parent="(-?\d+)" v="([^"]*)"', th.group(1)):
                reg, par = nm.group(1), int(nm.group(2))
                v = [float("nan") if x == "-" else float(x) for x in nm.group(3).split()]
                p = (paths[par] + (reg,)) if par >= 0 else (reg,)
                paths.append(p)
                val = v[ix["cpu"]]
                for m in ("mpi_cpu", "io_cpu"):
                    if m in ix and not math.isnan(v[ix[m]]):
                        val -= v[ix[m]]
                mm[p] = mm.get(p, 0.0) + max(0.0, 0.0 if math.isnan(val) else val)
        procs[rank] = {"host": host.group(1) if host else "", "cpu": main, "mm": mm}
    return procs


def self_values(mm):
    out = {}
    for p, v in mm.items():
        kids = sum(w for q, w in mm.items() if len(q) == len(p) + 1 and q[:len(p)] == p)
        out[p] = max(0.0, v - kids)
    return out


def region_paths(ana):
    regs = ana["regions"]
    paths = []
    for r in regs:
        par = r.get("parent_index")
        paths.append((paths[par - 1] if par else ()) + (str(r["id"]),))
    return paths


def mad_spread(d):
    med = statistics.median(d)
    return med, 1.4826 * statistics.median([abs(x - med) for x in d])


def judge(procs, ranks, slow, path):
    key = {r: (procs[r]["host"], procs[r]["cpu"][0]) if procs[r]["cpu"] and
           procs[r]["cpu"][1] >= MIN_PLACE else None for r in ranks}
    follows = all(key[r] for r in ranks) and len(set(key.values())) < len(ranks) and \
        all((a in slow) == (b in slow) for a in ranks for b in ranks if key[a] == key[b])
    selfv = {r: self_values(procs[r]["mm"]) for r in ranks}
    prog = statistics.median(procs[r]["mm"].get(("0",), 0.0) for r in ranks)
    fast = [r for r in ranks if r not in slow]
    d = []
    for p in set.intersection(*(set(s) for s in selfv.values())):
        a = statistics.mean(selfv[r][p] for r in slow)
        b = statistics.mean(selfv[r][p] for r in fast)
        if all(selfv[r][p] > 0 for r in ranks) and min(a, b) >= MIN_SHARE * prog:
            d.append(math.log(a / b))
    x = {r: procs[r]["mm"].get(path, 0.0) for r in ranks}
    if len(d) < MIN_REGIONS or min(x.values()) <= 0:
        return follows, len(d), None
    med, spread = mad_spread(d)
    ls = [math.log(x[r]) for r in slow]
    lf = [math.log(x[r]) for r in fast]
    diff = statistics.mean(ls) - statistics.mean(lf)
    df = len(ls) + len(lf) - 2
    ss = sum((v - statistics.mean(ls)) ** 2 for v in ls) + \
        sum((v - statistics.mean(lf)) ** 2 for v in lf)
    se = math.sqrt(ss / df) * math.sqrt(1 / len(ls) + 1 / len(lf)) if df >= 1 else 0.0
    scale = math.sqrt(spread ** 2 + se ** 2)
    z = (diff - med) / scale if scale > 0 else float("inf")
    return follows, len(d), (med, spread, diff, z)


def main(args):
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    for xml, js in zip(args[0::2], args[1::2]):
        procs = read_profile(xml)
        ana = json.load(open(js))
        ranks = ana["ranks"]
        paths = region_paths(ana)
        for b in ana["dissimilarity"].get("bottlenecks", []):
            slow = set(b.get("slow_ranks") or [])
            if not slow or len(slow) == len(ranks):
                continue
            follows, n, st = judge(procs, ranks, slow, paths[b["index"] - 1])
            line = "%s %s@%s:%s cccr=%s slow=%s follows_cpus=%s regions=%d" % (
                js, b["name"], b["function"], b["line"], b["cccr"], b.get("slow_rank_set"),
                "yes" if follows else "no", n)
            if st:
                line += " median=%.4f spread=%.4f own=%.4f z=%.1f" % st
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
