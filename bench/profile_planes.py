#!/usr/bin/env python3
# bench/profile_planes.py -- what the binary experiment format's value
# storage (byte planes + zlib, profile/binary.c) would come to under other
# value representations, for the decision on the size target of issue 19:
# the doubles as they are (what .aab stores: lossless), the doubles with
# times rounded to 1 ns and counters to integers (lossy), and the same
# rounded values stored as 64-bit integers (ns, counts) in byte planes.
#   python3 bench/profile_planes.py EXPERIMENT.xml
# (e.g. build/tests/aa_synth --scenario slow-group --procs 128 --regions 500
# -o p128.xml).  Prints the sizes and their share of the XML.
import re, struct, zlib, sys, math
txt = open(sys.argv[1]).read()
names = re.findall(r'<metric name="([^"]+)" unit="([^"]+)"', txt)
rows = [list(map(float, v.split())) for v in re.findall(r' v="([^"]*)"', txt)]
nm = len(names)
def size(transform):
    tot = 0
    for m in range(nm):
        col = [transform(m, r[m]) for r in rows]
        if len(set(col)) == 1:
            tot += 8; continue
        raw = b''.join(struct.pack('<d', x) for x in col)
        for b in range(8):
            plane = raw[b::8]
            tot += min(len(plane), len(zlib.compress(plane, 6)))
    return tot
def ident(m, x): return x
def rounded(m, x):
    if math.isnan(x): return x
    unit = names[m][1]
    return round(x * 1e9) / 1e9 if unit == 's' else float(round(x))
xml = len(txt.encode())
a, b = size(ident), size(rounded)
print(f"values: {len(rows)} rows x {nm} metrics; XML {xml} bytes")
print(f"lossless byte planes: {a} bytes ({100*a/xml:.1f}% of XML)")
print(f"times to 1 ns, counters to integers: {b} bytes ({100*b/xml:.1f}% of XML)")
def size_int():
    tot = 0
    for m in range(nm):
        unit = names[m][1]
        col = [0 if math.isnan(r[m]) else (round(r[m] * 1e9) if unit == 's' else round(r[m])) for r in rows]
        if len(set(col)) == 1:
            tot += 8; continue
        raw = b''.join(struct.pack('<q', x) for x in col)
        for b in range(8):
            plane = raw[b::8]
            tot += min(len(plane), len(zlib.compress(plane, 6)))
    return tot
c = size_int()
print(f"the same as integers (ns, counts) in byte planes: {c} bytes ({100*c/xml:.1f}% of XML)")
