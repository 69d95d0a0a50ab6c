#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# write-floor.sh - how long the device alone takes to write what a replay
# of IMG writes: the same runs of home blocks, at the same offsets, with
# nothing of ours in the way.
#
# The runs come from "e2journal plan IMG" (the blocks it marks replayed,
# sorted and joined where consecutive: one write per run, as the write
# phase issues them).  fio replays them as an I/O log (ioengine io_uring,
# O_DIRECT, every write handed to the kernel's workers, 256 in flight)
# into TARGET: a fresh sparse copy of IMG (so that, as in the bench, each
# write fills holes of the copy), or the block device given with --dev.
# Output: "floor runs S (N writes, M blocks)", or "floor runs skipped
# (REASON)" when fio is missing.
#
# Usage: write-floor.sh [--dev DEV] E2JOURNAL IMG
set -euo pipefail

dev=
if [ "${1:-}" = --dev ]; then
	dev=$2
	shift 2
fi
[ $# -eq 2 ] || { echo "usage: write-floor.sh [--dev DEV] E2JOURNAL IMG" >&2; exit 2; }
e2journal=$1 img=$2
if ! command -v fio >/dev/null; then
	echo "floor runs skipped (fio is not installed)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/write-floor.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
# "tid jblock fsblock replayed": the home blocks, each once, ascending
"$e2journal" plan "$img" 2>/dev/null |
	awk '$4 == "replayed" && $3 ~ /^[0-9]+$/ { print $3 }' |
	sort -n -u >"$tmp/blocks"
awk -v bs="$bs" '
	function put() { printf "t write %.0f %.0f\n", s * bs, (p - s + 1) * bs; n++ }
	NR == 1 { s = p = $1; next }
	$1 == p + 1 { p = $1; next }
	{ put(); s = p = $1 }
	END {
		if (NR) put()
		printf "%d %d\n", n, NR > "/dev/stderr"
	}' "$tmp/blocks" >"$tmp/runs" 2>"$tmp/count"
read -r nwrites nblocks <"$tmp/count"
{
	echo "fio version 2 iolog"
	echo "t add"
	echo "t open"
	cat "$tmp/runs"
	echo "t close"
} >"$tmp/iolog"

target=$dev
if [ -z "$target" ]; then
	target="$tmp/copy"
	cp --sparse=always "$img" "$target"
	sync "$target"
	sync
fi
fio --name=floor --read_iolog="$tmp/iolog" --replay_redirect="$target" \
	--ioengine=io_uring --direct=1 --iodepth=256 --force_async=1 \
	--output-format=terse >"$tmp/fio" 2>&1 || {
	echo "floor runs skipped (fio failed: $(head -1 "$tmp/fio"))"
	exit 0
}
# terse v3: field 50 is the write runtime in milliseconds
ms=$(awk -F';' 'NF > 50 { print $50; exit }' "$tmp/fio")
printf 'floor runs %.3f (%s writes, %s blocks)\n' \
	"$(awk -v m="${ms:-0}" 'BEGIN { print m / 1000 }')" "$nwrites" "$nblocks"
