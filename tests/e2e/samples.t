#!/usr/bin/env bash
# The sample MPI programs (samples/*.c, built by `make` into build/samples/):
# each runs under mpirun with 4 ranks (imbalance and master_worker also with
# 8), exits 0, prints a checksum that is the same on a second run, and io /
# comm print exactly the byte counts their documented formulas give.  Also:
# bad arguments exit 2, io cleans up its temporary directory, and every
# BOTTLENECK-AT line of a header points at the source line carrying its marker.
. "$(dirname "$0")/lib.sh"

S="$AA_BUILD/samples"
SRC="$TOP/samples"
command -v mpirun >/dev/null 2>&1 || { echo "Bail out! mpirun not found"; exit 1; }

# run NAME NP OUTFILE [ARGS...]: runs the sample, returns its exit status.
run() {
    local name=$1 np=$2 out=$3; shift 3
    timeout 120 mpirun -np "$np" "$S/$name" "$@" >"$out" 2>"$out.err"
}

checksum_of() { sed -n 's/^checksum: //p' "$1"; }

# check_sample NAME NP [ARGS...]: two runs, status 0, one checksum line, equal.
check_sample() {
    local name=$1 np=$2 st1 st2 c1 c2; shift 2
    local tag="$name -np $np${*:+ $*}"
    if [ ! -x "$S/$name" ]; then
        _tap_result 1 "$tag: $S/$name is built"; return
    fi
    run "$name" "$np" "$T/$name.$np.1" "$@"; st1=$?
    run "$name" "$np" "$T/$name.$np.2" "$@"; st2=$?
    is "$st1/$st2" "0/0" "$tag: exits 0 (twice)"
    [ "$st1" = 0 ] || sed 's/^/#   /' "$T/$name.$np.1.err" | head -20
    is "$(grep -c '^checksum: [-+0-9.e]*$' "$T/$name.$np.1")" 1 "$tag: one checksum line"
    c1=$(checksum_of "$T/$name.$np.1"); c2=$(checksum_of "$T/$name.$np.2")
    if [ -n "$c1" ] && [ "$c1" = "$c2" ]; then _tap_result 0 "$tag: same checksum on two runs ($c1)"
    else _tap_result 1 "$tag: same checksum on two runs"; echo "#   '$c1' vs '$c2'"; fi
}

mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

for name in balanced imbalance hotspot cache io comm master_worker serial_io rotating; do
    check_sample "$name" 4
done
check_sample imbalance 8
check_sample master_worker 8

# The checksum depends on the rank count for imbalance (ranks 3 and 7 heavy),
# but not for master_worker (results summed in task order).
is "$(checksum_of "$T/master_worker.8.1")" "$(checksum_of "$T/master_worker.4.1")" \
   "master_worker: checksum independent of the number of workers"
like "$(cat "$T/imbalance.4.1")" "4 ranks \(1 heavy\)" "imbalance: 1 heavy rank of 4"
like "$(cat "$T/imbalance.8.1")" "8 ranks \(2 heavy\)" "imbalance: 2 heavy ranks of 8"

# io: bytes = 8 MiB (small) or 32 MiB (large) per iteration and rank.
value_of() { sed -n "s/^$2: //p" "$1"; }
is "$(value_of "$T/io.4.1" 'bytes written per rank')" $((8 * 1048576)) "io small: bytes written"
is "$(value_of "$T/io.4.1" 'bytes read per rank')" $((8 * 1048576)) "io small: bytes read"
run io 4 "$T/io.n2" -n 2; is "$?" 0 "io -n 2 exits 0"
is "$(value_of "$T/io.n2" 'bytes written per rank')" $((2 * 8 * 1048576)) "io -n 2: bytes written"
is "$(value_of "$T/io.n2" 'bytes read per rank')" $((2 * 8 * 1048576)) "io -n 2: bytes read"
is "$(find "$T/tmp" -mindepth 1 | wc -l)" 0 "io removes its temporary files"

# serial_io: rank 0 writes 4 MiB (small) per checkpoint, 3 checkpoints by
# default, -n N of them; it removes its checkpoint directory.
is "$(value_of "$T/serial_io.4.1" 'checkpoint bytes written')" $((3 * 4 * 1048576)) \
   "serial_io small: rank 0's checkpoint bytes"
run serial_io 3 "$T/sio.n2" -n 2 -s large; is "$?" 0 "serial_io -np 3 -n 2 -s large exits 0"
is "$(value_of "$T/sio.n2" 'checkpoint bytes written')" $((2 * 16 * 1048576)) \
   "serial_io -n 2 -s large: rank 0's checkpoint bytes"
is "$(find "$T/tmp" -mindepth 1 | wc -l)" 0 "serial_io removes its checkpoint directory"

# rotating: the same checksum in both modes' two runs; bad -m is a usage error.
like "$(cat "$T/rotating.4.1")" "4 ranks, 48 steps, rotating" "rotating small: 48 steps, rotating"
run rotating 3 "$T/rot.sync" -m synchronous -s large; is "$?" 0 "rotating -np 3 -m synchronous -s large exits 0"
like "$(cat "$T/rot.sync")" "3 ranks, 96 steps, synchronous" "rotating -m synchronous -s large: 96 steps"
run rotating 1 "$T/bad" -m sideways; is "$?" 2 "rotating -m sideways exits 2"

# comm: R*P*BLOCK + R*STEPS*MSG with R=10, BLOCK=131072, STEPS=100, MSG=8192.
is "$(value_of "$T/comm.4.1" 'alltoall bytes sent per rank')" $((10 * 4 * 131072)) "comm small: alltoall bytes"
is "$(value_of "$T/comm.4.1" 'ring bytes sent per rank')" $((10 * 100 * 8192)) "comm small: ring bytes"
is "$(value_of "$T/comm.4.1" 'bytes sent per rank')" $((10 * 4 * 131072 + 10 * 100 * 8192)) "comm small: bytes sent"
run comm 2 "$T/comm.n3" -n 3; is "$?" 0 "comm -np 2 -n 3 exits 0"
is "$(value_of "$T/comm.n3" 'bytes sent per rank')" $((3 * 2 * 131072 + 3 * 100 * 8192)) "comm -np 2 -n 3: bytes sent"

# Bad arguments: usage error, exit 2 (all samples share the same option
# parsing; three are enough to keep the test fast).
for name in balanced io master_worker; do
    run "$name" 1 "$T/bad" -s huge; st=$?
    # mpirun reports the first non-zero status of its processes
    is "$st" 2 "$name -s huge exits 2"
    like "$(cat "$T/bad.err")" "usage: " "$name -s huge prints usage"
done

# Every BOTTLENECK-AT line names a source line that carries its marker, and
# that line lies inside the named function.
for f in "$SRC"/*.c; do
    n=0
    while read -r fn ln mark; do
        n=$((n + 1))
        line=$(sed -n "${ln}p" "$f")
        like "$line" "/\\* $mark \\*/" "$(basename "$f"): line $ln has marker $mark"
        # the nearest function definition above the line
        def=$(head -n "$ln" "$f" | grep -E '^[a-z].*[a-z_0-9]+\(.*\)?$|^[a-z].*\($' | tail -1)
        like "$def" "[ *]${fn%()}\(" "$(basename "$f"): line $ln is inside $fn"
    done < <(sed -n 's/^ \* BOTTLENECK-AT: \([a-z_0-9]*()\) line \([0-9]*\) ("\([A-Z ]*\)")$/\1 \2 \3/p' "$f")
    if ! grep -q 'BOTTLENECK-AT: none' "$f"; then
        [ "$n" -gt 0 ]; _tap_result $? "$(basename "$f"): documents its bottleneck line"
    fi
done

# The standalone samples/Makefile (used with CC="autoanalyzer cc mpicc")
# builds every sample, in a copy so the source tree stays clean.
mkdir -p "$T/standalone"
cp "$SRC"/*.c "$SRC/Makefile" "$T/standalone/"
ok "make -C samples CC=mpicc builds the samples" make -s -C "$T/standalone" CC=mpicc
for name in balanced imbalance hotspot cache io comm master_worker; do
    ok "standalone build made $name" test -x "$T/standalone/$name"
done
S="$T/standalone" run imbalance 4 "$T/imbalance.standalone"
is "$(checksum_of "$T/imbalance.standalone")" "$(checksum_of "$T/imbalance.4.1")" \
   "standalone imbalance gives the same checksum"

done_testing
