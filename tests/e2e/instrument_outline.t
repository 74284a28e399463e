#!/usr/bin/env bash
# The outlined form of a C function region (docs/instrument.md, "The
# rewrite"): the probe in a wrapper of the function's name, the body renamed
# NAME__aa_body (static, noinline), so that the compiler decides inside the
# body as in the plain build.  Checks: the shapes of
# tests/instrument/torture/outline.c get the form or keep the probe in the
# body with the reason (-v); with only function regions the body compiles
# to the plain function's instructions; lines keep their numbers;
# --probe-in-body and AUTOANALYZER_PROBE_IN_BODY=1 give the old form.
# (outline.c itself runs in instrument_torture.t: output, enter counts.)
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
command -v gcc >/dev/null || skip_all "no gcc"
cp "$TOP/tests/instrument/torture/outline.c" "$TOP/tests/instrument/outline/kernel.c" .

expect_status 0 "instrument -v --mode all outline.c" sh -c "'$AA' instrument -v --mode all -o o.c outline.c -- -std=gnu11 2> o.err"
for f in value nothing pair_of early written_static noproto vla_sum arr_static fact via_ptr jumps find multi macro_type \
         cond_params checked; do
    ok "$f(): outlined" grep -q "static[^;]* ${f}__aa_body(" o.c
done
ok "early(): static through its prototype, the body made static" grep -q 'static int early__aa_body(int x) __attribute__((noinline)); int early(int x) {' o.c
for f in sum_va:variadic named:__func__ attr:attributes ext:'storage class' knr:'K&R' \
         main:'implicit return' leaf:'nothing to inline'; do
    n=${f%%:*} why=${f#*:}
    ok "$n(): probe in the body ($why)" grep -q "function $n: probe in the body: .*$why" o.err
    ok "$n(): not outlined" sh -c "! grep -q '${n}__aa_body' o.c"
done
is "$(sed -n '/^#line 1 /,$p' o.c | tail -n +2 | wc -l)" "$(wc -l < outline.c)" "no line added"
ok "outline.c: instrumented builds with -Wall -Werror" gcc -std=gnu11 -Wall -Werror -c -I"$TOP" -o o.o o.c
ok "cond_params(): the copies keep only the active parameter" grep -q 'int cond_params(int a ) {' o.c
expect_status 0 "-DEXTRA_PARAM: instrument" "$AA" instrument -q --mode all -o oe.c outline.c -- -std=gnu11 -DEXTRA_PARAM
ok "-DEXTRA_PARAM: the copies keep both parameters" grep -q 'int cond_params(int a , int b ) {' oe.c

# the body compiles as the plain function (trailing padding aside)
asm_of() { # OBJECT FUNCTION -> its instructions, addresses and padding left out
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on=1; next} /^$/ {on=0} on' |
        sed 's/^ *[0-9a-f]*:\t//; s/[0-9a-f]* <[^>]*>/ADDR/; s/#.*//; s/ *$//' |
        grep -v '^nop\|^xchg *%ax,%ax\|^cs nopw\|^data16' ; }
expect_status 0 "kernel.c: --mode functions" "$AA" instrument -q --mode functions -o kf.c kernel.c --
gcc -O2 -c kernel.c -o k.o && gcc -O2 -c kf.c -o kf.o
is "$(asm_of kf.o macro__aa_body | md5sum)" "$(asm_of k.o macro | md5sum)" \
    "-O2: macro's outlined body is the plain macro, instruction for instruction"
gcc -O3 -c kernel.c -o k3.o && gcc -O3 -c kf.c -o kf3.o
is "$(asm_of kf3.o macro__aa_body | md5sum)" "$(asm_of k3.o macro | md5sum)" "-O3: the same"
like "$(gcc -O3 -c kf.c -o /dev/null -fopt-info-inline-optimized 2>&1)" "Inlined micro/[0-9]+ into macro__aa_body" \
    "-O3: micro inlined into the body"

# the old form on request
expect_status 0 "--probe-in-body" "$AA" instrument -q --probe-in-body -o b.c outline.c -- -std=gnu11
ok "--probe-in-body: nothing outlined" sh -c "! grep -q '__aa_body(' b.c"
ok "--probe-in-body: value's probe in its body" grep -q '^{ AA_INSTRUMENT_SCOPE_(aa_r_[0-9]*);' b.c
expect_status 0 "cc: default" env AUTOANALYZER_MAPDIR="$T/maps" "$AA" cc gcc -O2 -c -o c1.o kernel.c
ok "cc: the object has macro__aa_body" sh -c "nm c1.o | grep -q ' t macro__aa_body'"
expect_status 0 "cc: AUTOANALYZER_PROBE_IN_BODY=1" env AUTOANALYZER_PROBE_IN_BODY=1 "$AA" cc gcc -O2 -c -o c2.o kernel.c
ok "cc: AUTOANALYZER_PROBE_IN_BODY=1: no outlined body" sh -c "! nm c2.o | grep -q __aa_body"
done_testing
