#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# write-floor.sh - how long a plain program takes to write what a replay
# of IMG writes: the same runs of home blocks, at the same offsets, with
# nothing of ours in the way.
#
# The runs come from "e2journal plan IMG" (the blocks it marks replayed,
# sorted and joined where consecutive: one write per run, as the write
# phase issues them).  bench/wfloor.c (built here with cc) writes them
# with O_DIRECT through Linux native AIO from one thread, 256 in flight,
# into TARGET: a fresh sparse copy of IMG (so that, as in the bench, each
# write fills holes of the copy), or the block device given with --dev.
# Output: "floor runs S (N writes, M blocks)", S the seconds from the
# first write submitted to the last one ended; "floor runs skipped
# (REASON)" when it cannot be measured.
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
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/write-floor.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! "${CC:-cc}" -O2 -o "$tmp/wfloor" "$here/wfloor.c" 2>"$tmp/cc"; then
	echo "floor runs skipped (wfloor.c does not build: $(head -1 "$tmp/cc"))"
	exit 0
fi

bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
# "tid jblock fsblock replayed": the home blocks, each once, ascending
"$e2journal" plan "$img" 2>/dev/null |
	awk '$4 == "replayed" && $3 ~ /^[0-9]+$/ { print $3 }' |
	sort -n -u >"$tmp/blocks"
awk -v bs="$bs" '
	function put() { printf "%.0f %.0f\n", s * bs, (p - s + 1) * bs; n++ }
	NR == 1 { s = p = $1; next }
	$1 == p + 1 { p = $1; next }
	{ put(); s = p = $1 }
	END {
		if (NR) put()
		printf "%d %d\n", n, NR > "/dev/stderr"
	}' "$tmp/blocks" >"$tmp/runs" 2>"$tmp/count"
read -r nwrites nblocks <"$tmp/count"
target=$dev
if [ -z "$target" ]; then
	target="$tmp/copy"
	cp --sparse=always "$img" "$target"
	sync "$target"
	sync
fi
if ! "$tmp/wfloor" "$target" 256 <"$tmp/runs" >"$tmp/out" 2>&1; then
	echo "floor runs skipped (wfloor failed: $(head -1 "$tmp/out"))"
	exit 0
fi
# "writes S fsync S"
secs=$(awk '$1 == "writes" { print $2 }' "$tmp/out")
printf 'floor runs %.3f (%s writes, %s blocks)\n' "${secs:-0}" "$nwrites" "$nblocks"
