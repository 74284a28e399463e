#!/usr/bin/env python3
"""tests/report/check_export.py -- reads what `autoanalyzer export` wrote with
readers that share no code with it, and checks it against the formats'
published rules (docs/report.md names the versions followed).

  check_export.py csv FILE       RFC 4180 via Python's csv module (and pandas
                                 when it is installed); prints rows=N and
                                 value lines "rank,path,metric=inclusive"
  check_export.py hatchet FILE   Hatchet's literal format, checked by the
                                 rules of hatchet.GraphFrame.from_literal
                                 (and read by hatchet itself when installed);
                                 prints nodes=N and "path metric=value" lines

Exit 0 when the file follows the format, 1 with a message otherwise.
"""
import csv
import json
import math
import sys

HEADER = ["rank", "thread", "node", "parent", "region_id", "region", "kind", "function",
          "file", "line", "path", "metric", "unit", "inclusive", "exclusive", "throttled"]


def fail(msg):
    print("not valid: " + msg)
    sys.exit(1)


def check_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        raw = f.read()
    if not raw.endswith("\r\n"):
        fail("RFC 4180 records end with CRLF")
    rows = list(csv.reader(raw.splitlines(keepends=True), strict=True))
    if not rows or rows[0] != HEADER:
        fail("header is %r" % (rows[0] if rows else None))
    seen = set()
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(HEADER):
            fail("line %d has %d fields" % (i, len(r)))
        d = dict(zip(HEADER, r))
        for k in ("rank", "thread", "node", "region_id", "line"):
            int(d[k])
        if d["parent"] != "" and int(d["parent"]) >= int(d["node"]):
            fail("line %d: parent after its child" % i)
        inc, exc = float(d["inclusive"]), float(d["exclusive"])
        if not (math.isfinite(inc) and math.isfinite(exc)) or exc < 0 or exc > inc * (1 + 1e-9) + 1e-12:
            fail("line %d: exclusive %r against inclusive %r" % (i, exc, inc))
        if d["throttled"] not in ("0", "1"):
            fail("line %d: throttled is %r" % (i, d["throttled"]))
        key = (d["rank"], d["thread"], d["node"], d["metric"])
        if key in seen:
            fail("line %d: rank x thread x node x metric twice" % i)
        seen.add(key)
        print("%s,%s,%s=%s" % (d["rank"], d["path"], d["metric"], d["inclusive"]))
    try:
        import pandas  # noqa: F401
    except ImportError:
        pandas = None
    if pandas is not None:
        df = pandas.read_csv(path)
        if list(df.columns) != HEADER or len(df) != len(rows) - 1:
            fail("pandas reads %d rows, columns %r" % (len(df), list(df.columns)))
        print("pandas=yes")
    print("rows=%d" % (len(rows) - 1))


def walk(node, prefix, out, keys):
    if not isinstance(node, dict):
        fail("a node is not an object")
    extra = set(node) - {"frame", "metrics", "children", "attributes"}
    if extra:
        fail("unknown node keys %r" % sorted(extra))
    fr, me = node.get("frame"), node.get("metrics")
    if not isinstance(fr, dict) or not isinstance(fr.get("name"), str) or not isinstance(fr.get("type"), str):
        fail("frame needs a name and a type (strings)")
    if not isinstance(me, dict) or not me:
        fail("metrics must be a non-empty object")
    for k, v in me.items():
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            fail("metric %r is %r" % (k, v))
    if keys[0] is None:
        keys[0] = set(me)
    elif set(me) != keys[0]:
        fail("nodes carry different metrics")
    kids = node.get("children", [])
    if not isinstance(kids, list):
        fail("children must be a list")
    path = prefix + "/" + fr["name"] if prefix else fr["name"]
    for k in me:
        if k.endswith(" (inc)") and k[:-6] in me and me[k[:-6]] > me[k] * (1 + 1e-9) + 1e-12:
            fail("%s: %s exclusive above inclusive" % (path, k[:-6]))
    if "time (inc)" in me:
        s = me["time"] + sum(c["metrics"]["time (inc)"] for c in kids if isinstance(c, dict) and "metrics" in c)
        if abs(s - me["time (inc)"]) > 1e-6 * max(1.0, me["time (inc)"]):
            fail("%s: time (inc) %r is not time plus the children's (%r)" % (path, me["time (inc)"], s))
    out.append(path)
    for k in sorted(me):
        print("%s %s=%r" % (path, k, me[k]))
    for c in kids:
        walk(c, path, out, keys)


def check_hatchet(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list) or not data:
        fail("the literal format is a non-empty list of root nodes")
    out, keys = [], [None]
    for root in data:
        walk(root, "", out, keys)
    if not any(k.endswith(" (inc)") for k in keys[0]):
        fail("no inclusive metric")
    try:
        import hatchet
    except ImportError:
        hatchet = None
    if hatchet is not None:
        gf = hatchet.GraphFrame.from_literal(data)
        if len(gf.dataframe) != len(out):
            fail("hatchet reads %d nodes" % len(gf.dataframe))
        print("hatchet=yes")
    print("nodes=%d" % len(out))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("csv", "hatchet"):
        print(__doc__)
        sys.exit(2)
    try:
        (check_csv if sys.argv[1] == "csv" else check_hatchet)(sys.argv[2])
    except (ValueError, csv.Error, json.JSONDecodeError) as ex:
        fail(str(ex))
