#!/usr/bin/env python3
"""bench/mpi_call_res.py CASES_DIR:ANALYSES_DIR [...]

The impact per MPI call of every dissimilarity CCCR in a region with MPI
calls, against which `mpi_call_res` (analyze/options.c; docs/analysis.md
§2) is set: for every kept run of a diagnosis-suite directory
(CASES_DIR/seed-*/run<k>/experiment.xml) and its analysis
(ANALYSES_DIR/seed-*/analysis<k>.json, `run.py --reanalyze` output), each
CCCR's impact (s per slow process) over the median MPI calls of its region
over the processes, marked TRUE (the injected imbalance's function) or
FALSE, smallest first.  MIN_CALLS (environment, default 1): regions with
fewer calls are left out.  Used for bench/diagnosis.md, twenty-first step.
"""
import glob
import json
import os
import statistics
import sys
import xml.etree.ElementTree as ET

NS = "{urn:autoanalyzer:profile:1}"


def calls_by_region(path):
    """{region id: [MPI calls of each node of it]}."""
    root = ET.parse(path).getroot()
    names = [m.get("name") for m in root.iter(NS + "metric")]
    if "mpi_calls" not in names:
        return {}
    k = names.index("mpi_calls")
    out = {}
    for proc in root.iter(NS + "process"):
        for n in proc.iter(NS + "node"):
            v = n.get("v").split()
            out.setdefault(n.get("region"), []).append(float(v[k]) if v[k] != "-" else 0.0)
    return out


def rows(cases, analyses, min_calls):
    for d in sorted(glob.glob(os.path.join(cases, "seed-*"))):
        exp = json.load(open(os.path.join(d, "expected.json")))
        want = exp["expect"].get("cccr") or {}
        for js in sorted(glob.glob(os.path.join(analyses, os.path.basename(d),
                                                "analysis[0-9].json"))):
            a = json.load(open(js))
            ccc = [b for b in a["dissimilarity"]["bottlenecks"] if b.get("cccr")]
            xml = os.path.join(d, "run" + js[-6], "experiment.xml")
            if not ccc or not os.path.exists(xml):
                continue
            calls = calls_by_region(xml)
            for b in ccc:
                c = statistics.median(calls.get(str(b["id"]), [0.0]))
                if c < max(min_calls, 1):
                    continue
                yield (bool(want) and b["function"] == want.get("function"),
                       1e9 * b["impact_seconds"] / c, c, os.path.basename(d), js[-6],
                       "%s@%s" % (b["name"], b["function"]), exp["kind"])


def main(args):
    if not args or any(":" not in a for a in args):
        sys.stderr.write(__doc__)
        return 2
    min_calls = int(os.environ.get("MIN_CALLS", "1"))
    out = []
    for a in args:
        cases, analyses = a.split(":", 1)
        out.extend(rows(cases, analyses, min_calls))
    for r in sorted(out, key=lambda r: r[1]):
        print("%-5s %12.1f ns a call %8d calls  %s run %s  %s  %s" %
              ((("TRUE" if r[0] else "FALSE"),) + tuple(r[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
