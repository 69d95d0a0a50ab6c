#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# journal-extents.sh - print the physical extents of an ext4 image's journal
# (inode 8), merged into contiguous runs.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: journal-extents.sh [--bytes] IMG

Prints the physical location of the internal journal (inode <8>) of IMG as
contiguous runs in logical order, one per line: "START COUNT" in fs blocks,
or with --bytes "OFFSET LENGTH" in bytes.  Parses the extent list (or block
map) printed by `debugfs -R 'stat <8>'`; extent-tree and indirect blocks are
skipped.  Block size from `dumpe2fs -h`.  Used by replay-bench.sh and
replay-syscalls.sh.
EOF
}

bytes=0
img=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--bytes) bytes=1; shift ;;
	-*) echo "journal-extents: unknown option $1" >&2; exit 2 ;;
	*) img=$1; shift ;;
	esac
done
[[ -n $img ]] || { usage >&2; exit 2; }
[[ -r $img ]] || { echo "journal-extents: cannot read $img" >&2; exit 1; }

bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F: '/^Block size:/ {gsub(/ /,"",$2); print $2}')
[[ $bs =~ ^[0-9]+$ ]] || { echo "journal-extents: no block size for $img" >&2; exit 1; }

# entries look like "(0-32767):327680-360447", "(12):5000", "(0-9[u]):..."
debugfs -R 'stat <8>' "$img" 2>/dev/null |
	grep -oE '\([0-9]+(-[0-9]+)?(\[u\])?\):[0-9]+(-[0-9]+)?' |
	sed -E 's/\[u\]//; s/^\(//; s/\):/ /; s/-/ /g' |
	awk '{ if (NF == 2) print $1, $1, $2; else print $1, $2, $3 }' |
	sort -n -k1,1 |
	awk -v bs="$bs" -v bytes="$bytes" '
	function emit() {
		if (n > 0) {
			if (bytes) printf "%.0f %.0f\n", s * bs, n * bs
			else printf "%.0f %.0f\n", s, n
		}
	}
	{ len = $2 - $1 + 1; p = $3 + 0
	  if (n > 0 && p == s + n) n += len; else { emit(); s = p; n = len } }
	END { emit(); if (n == 0) exit 1 }'
