#!/bin/bash
# tests/e2e/outputs.t -- where the outputs of -o, --json, --xml and
# `space export -o` go: a regular file is replaced atomically, a symbolic
# link is followed (it stays a link, its target gets the text), a character
# device and a FIFO are written in place (never replaced by a regular
# file), "-" is stdout.  The device is made in the test's own directory
# (mknod needs root; without it the FIFO cases stand alone), never the
# system's /dev/null.
. "$(dirname "$0")/lib.sh"
IN="$TOP/tests/data/profile/good.xml"

# A regular file: replaced, permissions kept.
echo old >"$T/out.json"
chmod 640 "$T/out.json"
ok "analyze --json to a regular file" "$AA" analyze --quiet --json "$T/out.json" "$IN"
like "$(head -c 200 "$T/out.json")" '^\{' "regular file holds the JSON"
is "$(stat -c %a "$T/out.json")" "640" "replaced file keeps its permissions"

# A symbolic link (relative, through a second link): followed.
mkdir -p "$T/real"
ln -s real/target.json "$T/link1"
ln -s link1 "$T/link2"
ok "analyze --json through two symlinks" "$AA" analyze --quiet --json "$T/link2" "$IN"
ok "the link is still a link" test -L "$T/link2" -a -L "$T/link1"
like "$(head -c 200 "$T/real/target.json")" '^\{' "the link's target holds the JSON"
is "$(ls "$T/real")" "target.json" "no temporary left next to the target"

# A FIFO: written in place to its reader.
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" >"$T/fifo.got" &
reader=$!
ok "analyze --json to a FIFO" timeout 20 "$AA" analyze --quiet --json "$T/fifo" "$IN"
wait "$reader"
ok "the FIFO is still a FIFO" test -p "$T/fifo"
like "$(head -c 200 "$T/fifo.got")" '^\{' "the FIFO's reader got the JSON"
cmp -s "$T/fifo.got" "$T/out.json"; is $? 0 "the reader got the same text as the file"

# --xml and -o to a FIFO as well.
timeout 20 cat "$T/fifo" >"$T/fifo.xml" &
reader=$!
ok "analyze --xml to a FIFO" timeout 20 "$AA" analyze --quiet --xml "$T/fifo" "$IN"
wait "$reader"
like "$(head -c 100 "$T/fifo.xml")" '^<\?xml' "the FIFO's reader got the XML"
timeout 20 cat "$T/fifo" >"$T/fifo.txt" &
reader=$!
ok "analyze -o to a FIFO" timeout 20 "$AA" analyze -o "$T/fifo" "$IN"
wait "$reader"
ok "the FIFO's reader got the text report" test -s "$T/fifo.txt"

# A character device, as root: a copy of /dev/null made with mknod here.
if mknod "$T/null" c 1 3 2>/dev/null; then
    ok "analyze --json to a character device" "$AA" analyze --quiet --json "$T/null" "$IN"
    ok "the device is still a character device" test -c "$T/null"
    ok "space export -o to a character device" sh -c \
        "'$AA' space add --db '$T/s.db' --no-analysis '$IN' >/dev/null && '$AA' space export --db '$T/s.db' --all -o '$T/null'"
    ok "the device is still a character device after export" test -c "$T/null"
    ln -s null "$T/null-link"
    ok "a symlink to the device" "$AA" analyze --quiet --json "$T/null-link" "$IN"
    ok "the device is untouched behind the link" test -c "$T/null" -a -L "$T/null-link"
else
    # No mknod: the checks above on the FIFO stand for the in-place path.
    ok "space export -o to a FIFO" sh -c "timeout 20 cat '$T/fifo' >'$T/fifo.exp' & r=\$!; \
        '$AA' space add --db '$T/s.db' --no-analysis '$IN' >/dev/null && timeout 20 '$AA' space export --db '$T/s.db' --all \
        -o '$T/fifo'; s=\$?; wait \$r; exit \$s"
    ok "the FIFO is still a FIFO after export" test -p "$T/fifo"
fi

# "-" is stdout.
out=$("$AA" analyze --quiet --json - "$IN")
like "$(printf '%s' "$out" | head -c 100)" '^\{' "--json - writes to stdout"
is "$(ls "$T" | grep -c '^-')" "0" "no file named - created"

# A failing write leaves no partial file and no temporary.
mkdir -p "$T/ro"
expect_status 4 "a missing directory is an environment error" \
    "$AA" analyze --quiet --json "$T/nodir/x.json" "$IN"
ln -s "$T/nodir/x.json" "$T/ro/dangling"
ln -s ../real/new.json "$T/ro/dangling2"
ok "a dangling symlink to a new file in an existing directory" \
    "$AA" analyze --quiet --json "$T/ro/dangling2" "$IN"
ok "the new file is created at the link's target" test -s "$T/real/new.json" -a -L "$T/ro/dangling2"
expect_status 4 "a dangling symlink into a missing directory" \
    "$AA" analyze --quiet --json "$T/ro/dangling" "$IN"
ln -s loop1 "$T/loop2"; ln -s loop2 "$T/loop1"
expect_status 4 "a symlink loop is an environment error" \
    "$AA" analyze --quiet --json "$T/loop1" "$IN"
like "$(cat "$T/.err")" 'loop1: too many levels of symbolic links' "the loop is named"

done_testing
