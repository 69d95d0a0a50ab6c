#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# progress.sh: -C during the journal phase.  With -C FD our e2fsck writes
# completion lines "0 CURRENT 1000 DEVICE" (pass 0: the journal phase) on
# FD while it replays, rising to "0 1000 1000 DEVICE", before the engine's
# own lines for passes 1-5; with -C 0 it draws a bar on standard output
# and clears it; without -C it shows neither.  Under -n (nothing is
# replayed) there is no journal progress.  The replayed image is the same
# with and without -C.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup progress
EJ=$top_builddir/misc/e2journal

# A 4 MiB journal holding 40 transactions of 64 blocks each.
make_image() {
	local i spec=()
	mkfs has_journal,metadata_csum 16384 1024 4
	for i in $(seq 0 39); do
		spec+=(--txn "blocks=$((3000 + (i % 8) * 64))-$((3063 + (i % 8) * 64)):fill:$((i + 1))")
	done
	"$EJ" write "$IMG" --csum v3 "${spec[@]}" >/dev/null 2>&1 ||
		{ echo "FAIL: e2journal write"; exit 1; }
	cp "$IMG" "$WORK/orig"
}

# run ARGS...: our e2fsck -fy ARGS on a fresh copy; stdout in $WORK/out,
# -C 3's lines in $WORK/fd, the exit status in $RC.
run() {
	cp "$WORK/orig" "$IMG"
	: >"$WORK/fd"
	"$OURS" -fy "$@" "$IMG" >"$WORK/out" 2>&1 3>"$WORK/fd"
	RC=$?
	checks=$((checks + 1))
}

make_image

NAME=fd
run -C 3
expect_rc 0
cp "$IMG" "$WORK/with_fd"
python3 - "$WORK/fd" "$IMG" <<'PY' || fail "completion lines: see above"
import sys
lines = open(sys.argv[1]).read().splitlines()
dev = sys.argv[2]
journal = [l.split() for l in lines if l.startswith("0 ")]
engine = [l.split() for l in lines if not l.startswith("0 ")]
bad = []
if not journal:
    bad.append("no pass-0 lines")
for f in journal:
    if len(f) != 4 or f[2] != "1000" or f[3] != dev:
        bad.append("odd line %r" % " ".join(f))
cur = [int(f[1]) for f in journal if len(f) == 4]
if cur != sorted(cur):
    bad.append("pass 0 goes backwards: %r" % cur)
if cur and cur[-1] != 1000:
    bad.append("pass 0 ends at %d" % cur[-1])
if not any(f[0] == "1" for f in engine):
    bad.append("no pass 1 line from the engine after the journal")
first_engine = next((i for i, l in enumerate(lines) if not l.startswith("0 ")), len(lines))
if any(l.startswith("0 ") for l in lines[first_engine:]):
    bad.append("journal lines after the engine's")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY

NAME=bar
run -C 0
expect_rc 0
grep -q "$(printf '\001')$IMG: journal |" "$WORK/out" ||
	fail "no journal bar on stdout"
# every bar between \001 and \002, as logsave expects
python3 - "$WORK/out" <<'PY' || fail "a bar outside \\001...\\002"
import re, sys
out = open(sys.argv[1], "rb").read()
left = re.sub(rb"\x01[^\x02]*\x02", b"", out)
sys.exit(1 if b"journal |" in left or b"\x01" in left else 0)
PY
grep -q "100.0%" "$WORK/out" || fail "the bar never reaches 100.0%"
same_image "$IMG" "$WORK/with_fd" || fail "-C 0 and -C 3 replay differently"

NAME=none
run
expect_rc 0
grep -q "journal |" "$WORK/out" && fail "a bar without -C"
[ -s "$WORK/fd" ] && fail "completion lines without -C"
same_image "$IMG" "$WORK/with_fd" || fail "replay differs with and without -C"

NAME=readonly
cp "$WORK/orig" "$IMG"
"$OURS" -n -C 3 "$IMG" >"$WORK/out" 2>&1 3>"$WORK/fd"
checks=$((checks + 1))
grep -q '^0 ' "$WORK/fd" && fail "journal progress under -n"

echo "$checks progress runs, $fails failed"
[ $fails = 0 ]
