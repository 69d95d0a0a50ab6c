#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cold-pairs.sh - one image, replayed cold from a block device: ours and
# e2fsprogs' e2fsck alternating, as run-bench.sh --cold runs it.
#
# Every run: a fresh sparse copy of IMG, fsynced and evicted from the page
# cache (posix_fadvise DONTNEED), attached to a loop device with direct
# I/O (losetup --direct-io=on), the device's buffers flushed (blockdev
# --flushbufs), then "CMD -y -E journal_only /dev/loopN" timed (wall from
# date +%s%N, peak RSS from /usr/bin/time -v).  After the run the device
# is detached and the copy checked with verify-replay.sh (untimed).
# Then the floors, on a fresh copy, also cold:
#   read   the journal's extents read once with 1 MiB O_DIRECT reads;
#   write  the replayed blocks' bytes (plan's "replayed" count times the
#          block size) written once, in order, with 1 MiB O_DIRECT writes;
#   runs   the replayed blocks written home in the runs replay writes
#          them in, by a plain program (write-floor.sh), on the loop device.
# Output: one line per run,
#   "cold ours|ref RUN wall S rss KIB rc N verify OK|FAIL", then
#   "floor read S", "floor write S", "floor runs S (...)".
# Needs root (losetup).  Usage: cold-pairs.sh KIT IMG RUNS WARMUP OURS REF E2JOURNAL
set -euo pipefail

kit=$1 img=$2 runs=$3 warmup=$4 ours=$5 ref=$6 e2journal=$7
for p in "$ours" "$ref" "$e2journal"; do
	[ -x "$p" ] || { echo "cold-pairs: $p is not built" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "cold-pairs: needs root (losetup)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cold-bench.XXXXXX")
loop=

cleanup() {
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

evict() {
	python3 - "$1" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
PY
}

attach() {
	cp --sparse=always "$img" "$tmp/copy"
	sync "$tmp/copy"
	evict "$tmp/copy"
	loop=$(losetup --direct-io=on -f --show "$tmp/copy")
	blockdev --flushbufs "$loop"
}

detach() {
	losetup -d "$loop"
	loop=
}

# run WHO N CMD: one timed cold run
run() {
	local who=$1 n=$2 cmd=$3 t0 t1 rc=0 rss v=OK
	attach
	t0=$(date +%s%N)
	/usr/bin/time -v -o "$tmp/time" "$cmd" -y -E journal_only "$loop" \
		>"$tmp/out" 2>&1 || rc=$?
	t1=$(date +%s%N)
	detach
	rss=$(awk -F: '/Maximum resident/ { gsub(/ /, "", $2); print $2 }' \
	      "$tmp/time")
	"$kit/verify-replay.sh" "$img" "$tmp/copy" >"$tmp/verify" 2>&1 ||
		v=FAIL
	[ "$n" = w ] && return 0
	printf 'cold %s %s wall %.4f rss %s rc %s verify %s\n' "$who" "$n" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" \
		"$rss" "$rc" "$v"
}

for i in $(seq 1 "$warmup"); do
	run ours w "$ours"
	run ref w "$ref"
done
for i in $(seq 1 "$runs"); do
	run ours "$i" "$ours"
	run ref "$i" "$ref"
done

# The floors, on one more cold copy.
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
replayed=$("$e2journal" plan "$img" 2>/dev/null |
	   sed -n "s/.*, write \([0-9]*\) blocks.*/\1/p" | tail -1)
"$kit/journal-extents.sh" --bytes "$img" >"$tmp/extents"
attach
# one process, timed from inside, so that its start-up is not counted
python3 - "$loop" "$tmp/extents" >"$tmp/floor" <<'PY'
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
ext = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if l.strip()]
buf = mmap.mmap(-1, 1 << 20)
t0 = time.monotonic()
for off, length in ext:
    end = off + length
    while off < end:
        n = os.preadv(fd, [memoryview(buf)[:min(1 << 20, end - off)]], off)
        if n <= 0:
            break
        off += n
print("%.4f" % (time.monotonic() - t0))
os.close(fd)
PY
echo "floor read $(cat "$tmp/floor")"
# the write floor goes where the journal was read: the copy is thrown away
bytes=$(( ${replayed:-0} * bs ))
first=$(head -1 "$tmp/extents" | cut -d' ' -f1)
blockdev --flushbufs "$loop"
t0=$(date +%s%N)
dd if=/dev/zero of="$loop" bs=1M count=$(( (bytes + 1048575) / 1048576 )) \
	seek="$first" oflag=direct,seek_bytes conv=notrunc,fsync 2>/dev/null
t1=$(date +%s%N)
printf 'floor write %.4f (%s blocks)\n' \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" "${replayed:-0}"
detach
# and the replayed runs themselves, where replay writes them, cold
attach
"$(dirname "$0")/write-floor.sh" --dev "$loop" "$e2journal" "$img"
detach
