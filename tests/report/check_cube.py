#!/usr/bin/env python3
"""tests/report/check_cube.py -- reads a CUBE4 file (.cubex) written by
`autoanalyzer export --format cube` with a reader written from the format's
published description (Cube 4.4: the cubelib/cubew sources' layout, also
described in pyCubexR's docs/cube_file_format.md), sharing no code with the
writer.

  check_cube.py FILE.cubex [EXPERIMENT.xml]

Checks: the file is a tar archive holding anchor.xml; anchor.xml is
well-formed XML opening with <cube version="4.x"> (Cube's lexer matches the
whole tag), with <metrics>, <program> (regions, nested cnodes whose
calleeId names a region) and <system> (system tree nodes, location groups,
locations with dense ids); every metric's N.index ("CUBEX.INDEX", the
endianness mark 1, version 0, sparse (1) or dense (3) index, positions) and
N.data ("CUBEX.DATA" and exactly cnodes x locations values of the metric's
dtype).  Index positions count cnodes in the metric's enumeration of the
call tree (document order): depth-first for EXCLUSIVE metrics, "wide" (a
node's children listed together, then each child's subtree the same way)
for INCLUSIVE ones, id order for SIMPLE ones, as cubew writes them.  Every
value is read back; inclusive values of EXCLUSIVE metrics are the sums over
the cnode's subtree.  Prints "cnodes=N locations=L
metrics=M" and one line "rank,thread,path,metric=inclusive" per value.

With EXPERIMENT.xml (AutoAnalyzer's profile format, read with ElementTree),
every measured value of every process, thread and calling context is
compared with Cube's: inclusive values (visits: the node's own), and
"compared=K" is printed.

Exit 0 when everything holds, 1 with a message otherwise.
"""
import io
import math
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET

DTYPES = {"DOUBLE": "d", "UINT64": "Q", "INT64": "q", "INTEGER": "q", "FLOAT": "f",
          "UINT32": "I", "INT32": "i", "UINT16": "H", "INT16": "h", "UINT8": "B", "INT8": "b",
          "MINDOUBLE": "d", "MAXDOUBLE": "d"}
METRIC_TYPES = ("EXCLUSIVE", "INCLUSIVE", "SIMPLE")


def fail(msg):
    print("not valid: " + msg)
    sys.exit(1)


def child_text(el, tag, what):
    c = el.find(tag)
    if c is None:
        fail("%s has no <%s>" % (what, tag))
    return c.text or ""


def read_anchor(raw):
    head = raw[:200].decode("utf-8", "replace")
    if not head.startswith("<?xml"):
        fail("anchor.xml does not start with an XML declaration")
    if '<cube version="4.' not in head:
        fail("anchor.xml does not open with <cube version=\"4.x\">")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        fail("anchor.xml: %s" % e)
    if root.tag != "cube" or not root.get("version", "").startswith("4."):
        fail("root element is <%s version=%r>" % (root.tag, root.get("version")))
    for sec in ("metrics", "program", "system"):
        if root.find(sec) is None:
            fail("anchor.xml has no <%s>" % sec)
    return root


def read_metrics(root):
    metrics = {}
    for m in root.find("metrics").iter("metric"):
        mid = int(m.get("id"))
        if mid in metrics:
            fail("metric id %d twice" % mid)
        mtype = m.get("type", "EXCLUSIVE")
        if mtype not in METRIC_TYPES:
            fail("metric %d: type %r" % (mid, mtype))
        dtype = child_text(m, "dtype", "metric %d" % mid)
        if dtype not in DTYPES:
            fail("metric %d: dtype %r" % (mid, dtype))
        for tag in ("disp_name", "uniq_name", "uom", "descr"):
            child_text(m, tag, "metric %d" % mid)
        metrics[mid] = {"name": child_text(m, "uniq_name", ""), "type": mtype, "dtype": dtype}
    if not metrics:
        fail("no metric")
    return metrics


def read_program(root):
    prog = root.find("program")
    regions = {}
    for r in prog.findall("region"):
        rid = int(r.get("id"))
        if rid in regions:
            fail("region id %d twice" % rid)
        int(r.get("begin", "-1"))
        int(r.get("end", "-1"))
        regions[rid] = child_text(r, "name", "region %d" % rid)
    cnodes = {}  # id -> (region name, parent id, path)
    kids = {}    # id -> children ids, document order
    roots = []

    def walk(el, parent, path):
        cid = int(el.get("id"))
        callee = int(el.get("calleeId"))
        if cid in cnodes:
            fail("cnode id %d twice" % cid)
        if callee not in regions:
            fail("cnode %d calls region %d, which is not defined" % (cid, callee))
        p = path + [regions[callee]]
        cnodes[cid] = (regions[callee], parent, p)
        kids[cid] = [int(c.get("id")) for c in el.findall("cnode")]
        for c in el.findall("cnode"):
            walk(c, cid, p)

    for c in prog.findall("cnode"):
        roots.append(int(c.get("id")))
        walk(c, None, [])
    if not cnodes:
        fail("no cnode")
    return regions, cnodes, enumerations(roots, kids, cnodes)


def enumerations(roots, kids, cnodes):
    """Position -> cnode id for each metric type."""
    deep = []

    def d(c):
        deep.append(c)
        for k in kids[c]:
            d(k)

    wide = []

    def w(c):
        wide.extend(kids[c])
        for k in kids[c]:
            w(k)

    for r in roots:
        d(r)
        wide.append(r)
        w(r)
    return {"EXCLUSIVE": deep, "INCLUSIVE": wide, "SIMPLE": sorted(cnodes)}


def read_system(root):
    locations = {}  # id -> (process rank, thread rank)

    def walk_stn(el):
        child_text(el, "name", "system tree node")
        child_text(el, "class", "system tree node")
        for s in el.findall("systemtreenode"):
            walk_stn(s)
        for g in el.findall("locationgroup"):
            rank = int(child_text(g, "rank", "location group"))
            if child_text(g, "type", "location group") not in ("process", "metric", "accelerator"):
                fail("location group type")
            for loc in g.findall("location"):
                lid = int(loc.get("Id"))
                if lid in locations:
                    fail("location id %d twice" % lid)
                child_text(loc, "name", "location")
                if child_text(loc, "type", "location") not in ("thread", "accelerator", "metric"):
                    fail("location type")
                locations[lid] = (rank, int(child_text(loc, "rank", "location")))

    stns = root.find("system").findall("systemtreenode")
    if not stns:
        fail("no system tree node")
    for s in stns:
        walk_stn(s)
    if sorted(locations) != list(range(len(locations))) or not locations:
        fail("location ids are not 0..L-1")
    return locations


def read_index(raw, mid, order):
    if raw[:11] != b"CUBEX.INDEX":
        fail("%d.index: no CUBEX.INDEX marker" % mid)
    if struct.unpack("<I", raw[11:15])[0] == 1:
        end = "<"
    elif struct.unpack(">I", raw[11:15])[0] == 1:
        end = ">"
    else:
        fail("%d.index: endianness mark is not 1" % mid)
    version, fmt = struct.unpack(end + "HB", raw[15:18])
    if version != 0:
        fail("%d.index: version %d" % (mid, version))
    if fmt == 3:  # dense: every cnode, in enumeration order
        if len(raw) != 18:
            fail("%d.index: bytes after a dense header" % mid)
        return end, list(order)
    if fmt != 1:
        fail("%d.index: index format %d" % (mid, fmt))
    (n,) = struct.unpack(end + "I", raw[18:22])
    if len(raw) != 22 + 4 * n:
        fail("%d.index: %d bytes for %d ids" % (mid, len(raw), n))
    pos = list(struct.unpack(end + "%dI" % n, raw[22:]))
    if len(set(pos)) != n or any(i >= len(order) for i in pos):
        fail("%d.index: positions not distinct cnodes" % mid)
    return end, [order[i] for i in pos]


def read_data(raw, mid, end, ids, nloc, dtype):
    if raw[:11] == b"ZCUBEX.DATA":
        fail("%d.data: compressed data is not read by this checker" % mid)
    if raw[:10] != b"CUBEX.DATA":
        fail("%d.data: no CUBEX.DATA marker" % mid)
    code = DTYPES[dtype]
    size = struct.calcsize(code)
    if len(raw) != 10 + len(ids) * nloc * size:
        fail("%d.data: %d bytes for %d cnodes x %d locations of %s" %
             (mid, len(raw), len(ids), nloc, dtype))
    vals = struct.unpack(end + "%d%s" % (len(ids) * nloc, code), raw[10:])
    return {c: list(vals[k * nloc:(k + 1) * nloc]) for k, c in enumerate(ids)}


def inclusive(cnodes, rows, nloc):
    children = {c: [] for c in cnodes}
    for c, (_, p, _) in cnodes.items():
        if p is not None:
            children[p].append(c)
    memo = {}

    def inc(c):
        if c not in memo:
            v = list(rows.get(c, [0] * nloc))
            for k in children[c]:
                v = [a + b for a, b in zip(v, inc(k))]
            memo[c] = v
        return memo[c]

    return {c: inc(c) for c in cnodes}


def read_experiment(path):
    ns = "{urn:autoanalyzer:profile:1}"
    root = ET.parse(path).getroot()
    names = [m.get("name") for m in root.iter(ns + "metric")]
    regions = {int(r.get("id")): r.get("name") for r in root.find(ns + "regions").iter(ns + "region")}
    out = {}
    for p in root.iter(ns + "process"):
        for t in p.iter(ns + "thread"):
            paths = []
            for n in t.iter(ns + "node"):
                par = int(n.get("parent"))
                path = (paths[par] if par >= 0 else []) + [regions[int(n.get("region"))]]
                paths.append(path)
                for name, v in zip(names, n.get("v").split(" ")):
                    if v != "-":
                        key = (int(p.get("rank")), int(t.get("id")), "/".join(path), name)
                        out[key] = out.get(key, 0.0) + float(v)
    return out


def main():
    if len(sys.argv) not in (2, 3):
        fail("usage: check_cube.py FILE.cubex [EXPERIMENT.xml]")
    try:
        tar = tarfile.open(sys.argv[1], "r:")
    except tarfile.TarError as e:
        fail("not a tar archive: %s" % e)
    members = {}
    for m in tar.getmembers():
        if not m.isfile():
            fail("member %s is not a regular file" % m.name)
        if m.name in members:
            fail("member %s twice" % m.name)
        members[m.name] = tar.extractfile(m).read()
    if "anchor.xml" not in members:
        fail("no anchor.xml")
    root = read_anchor(members["anchor.xml"])
    metrics = read_metrics(root)
    regions, cnodes, orders = read_program(root)
    locations = read_system(root)
    nloc = len(locations)
    values = {}
    for mid, m in sorted(metrics.items()):
        if "%d.index" % mid not in members:
            continue  # a metric without data is allowed (all zero)
        if "%d.data" % mid not in members:
            fail("%d.index without %d.data" % (mid, mid))
        end, ids = read_index(members["%d.index" % mid], mid, orders[m["type"]])
        rows = read_data(members["%d.data" % mid], mid, end, ids, nloc, m["dtype"])
        if m["type"] == "EXCLUSIVE":
            values[m["name"]] = (rows, inclusive(cnodes, rows, nloc))
        else:
            values[m["name"]] = (rows, rows)
    print("cnodes=%d locations=%d metrics=%d" % (len(cnodes), nloc, len(metrics)))
    cube = {}
    for name, (own, inc) in values.items():
        for c, (_, _, path) in sorted(cnodes.items()):
            for lid, (rank, thread) in sorted(locations.items()):
                v = inc[c][lid] if name != "visits" else own.get(c, [0] * nloc)[lid]
                cube[(rank, thread, "/".join(path), name)] = v
                print("%d,%d,%s,%s=%.9g" % (rank, thread, "/".join(path), name, v))
    if len(sys.argv) == 3:
        exp = read_experiment(sys.argv[2])
        for key, want in sorted(exp.items()):
            got = cube.get(key)
            if got is None:
                fail("%r is not in the CUBE file" % (key,))
            if not math.isclose(got, want, rel_tol=1e-6, abs_tol=2e-6):
                fail("%r: CUBE has %r, the experiment %r" % (key, got, want))
        print("compared=%d" % len(exp))


if __name__ == "__main__":
    main()
