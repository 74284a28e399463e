#!/usr/bin/env python3
"""bench/one_visit.py CASES_DIR ANALYSES_DIR

How a region visited once varies between processes, against the two noise
figures the analysis has for it (analyze/noise.c; docs/analysis.md §2 "A
region visited once").  For every kept run of a diagnosis-suite directory
(CASES_DIR/seed-*/run<k>/experiment.xml) and its analysis
(ANALYSES_DIR/seed-*/analysis<k>.json, `run.py --reanalyze` output): the
case's set-up loop -- the same work on every process, visited once -- and
its spread between processes (the median gap between the sorted process
values made a standard deviation for that many normal values, relative to
the median, as the analysis measures its noise).  Printed: that spread over the run's noise (JSON dissimilarity.noise.
relative) and over how much one visit of the program's repeated loops varies
(the median over the loops every process visited twice or more of the
median over the processes of sqrt(n) x sqrt(cpu_sq - cpu^2/n) / cpu), with
their median, 90% and largest.  CPU time outside MPI and I/O calls, as the
analysis clusters.  Used for bench/diagnosis.md, twenty-first step.
"""
import glob
import json
import math
import os
import random
import statistics
import sys
import xml.etree.ElementTree as ET

NS = "{urn:autoanalyzer:profile:1}"
SETUP = {"setup_mesh", "init_fields", "build_tables", "partition_domain", "load_config"}
_scale = {}


def gap_scale(n):
    """1 / the mean median gap of n sorted standard normal values."""
    if n not in _scale:
        rng, s = random.Random(1), 0.0
        for _ in range(400):
            x = sorted(rng.gauss(0, 1) for _ in range(n))
            s += statistics.median(x[i + 1] - x[i] for i in range(n - 1))
        _scale[n] = 400 / s
    return _scale[n]


def gap_noise(v):
    v = sorted(v)
    m = statistics.median(v)
    g = statistics.median(v[i + 1] - v[i] for i in range(len(v) - 1))
    return gap_scale(len(v)) * g / m if m > 0 else float("nan")


def nodes_of(path):
    """({(region, parent): {rank: {metric: value}}}, regions by id, processes)."""
    root = ET.parse(path).getroot()
    names = [m.get("name") for m in root.iter(NS + "metric")]
    regions = {r.get("id"): r for r in root.iter(NS + "region")}
    nodes, nproc = {}, 0
    for proc in root.iter(NS + "process"):
        nproc += 1
        for n in proc.iter(NS + "node"):
            v = {names[i]: (float(x) if x != "-" else 0.0) for i, x in enumerate(n.get("v").split())}
            nodes.setdefault((n.get("region"), n.get("parent")), {})[int(proc.get("rank"))] = v
    return nodes, regions, nproc


def study(xml, js):
    """(spread / run's noise, spread / one visit's noise or None), or None."""
    try:
        noise = json.load(open(js))["dissimilarity"]["noise"]["relative"]
    except (OSError, ValueError, KeyError):
        return None
    nodes, regions, P = nodes_of(xml)
    setup, one = None, []
    for (rid, _), by in nodes.items():
        if len(by) < P or P < 2:
            continue
        r = regions[rid]
        out = [d["cpu"] - d["mpi_cpu"] - d.get("io_cpu", 0.0) for d in by.values()]
        visits = [d["visits"] for d in by.values()]
        if statistics.median(out) < 0.002 or r.get("kind") != "loop":
            continue
        if r.get("function") in SETUP and max(visits) == 1:
            setup = gap_noise(out)
        elif min(visits) >= 2:
            one.append(statistics.median(
                math.sqrt(max(0.0, d["cpu_sq"] - d["cpu"] ** 2 / d["visits"])) / d["cpu"]
                * math.sqrt(d["visits"]) for d in by.values()))
    if setup is None or not noise > 0:
        return None
    ov = statistics.median(one) if len(one) >= 3 else 0.0
    return setup / noise, setup / ov if ov > 0 else None


def quantiles(v):
    v = sorted(v)
    return "median %.2f, 90%% %.2f, largest %.2f" % (
        statistics.median(v), v[int(0.9 * (len(v) - 1))], v[-1])


def main(args):
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    rel, one = [], []
    for d in sorted(glob.glob(os.path.join(args[0], "seed-*"))):
        for xml in sorted(glob.glob(os.path.join(d, "run[0-9]*", "experiment.xml"))):
            k = os.path.basename(os.path.dirname(xml))[3:]
            st = study(xml, os.path.join(args[1], os.path.basename(d), "analysis%s.json" % k))
            if st:
                rel.append(st[0])
                if st[1] is not None:
                    one.append(st[1])
    if not rel:
        print("no set-up loops visited once")
        return 1
    print("set-up loops visited once: %d" % len(rel))
    print("  spread / run's noise:      " + quantiles(rel))
    if one:
        print("  spread / one visit's noise: %s (%d)" % (quantiles(one), len(one)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
