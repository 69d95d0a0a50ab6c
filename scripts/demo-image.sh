#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo-image.sh IMG: the demonstration image of the 2008 linux-ext4
# scenario (scripts/demo.sh, make check-package).  A 64 MiB ext4 with
# notes.txt; transactions 1-5, written by debugfs into the journal (v3
# checksums), each log a new version of notes.txt's block; the commit
# block of transaction 3 is damaged (one byte of its checksum).  Prints
# what it did.  Needs mke2fs and debugfs.
set -e
img=$1
[ -n "$img" ] || { echo "usage: demo-image.sh IMG" >&2; exit 2; }
PATH=$PATH:/sbin:/usr/sbin
work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-img.XXXXXX")
trap 'rm -rf "$work"' EXIT

say() { printf '\n=== %s\n' "$*"; }

say "A small ext4 filesystem with a file, notes.txt"
mke2fs -q -F -t ext4 -O metadata_csum,64bit -b 4096 "$img" 64M
printf 'version 1 (before the crash)\n' >"$work/v1"
debugfs -w -R "write $work/v1 notes.txt" "$img" >/dev/null 2>&1
blk=$(debugfs -R "blocks /notes.txt" "$img" 2>/dev/null | awk '{print $1}')
echo "notes.txt lives in block $blk"

say "Transactions 1-5 log new versions of that block (journal checksum v3)"
: >"$work/cmds"
for t in 1 2 3 4 5; do
	printf 'version from transaction %s\n' "$t" >"$work/v$t"
	truncate -s 4096 "$work/v$t"
	printf 'jo -c\njw -b %s %s\njc\n' "$blk" "$work/v$t" >>"$work/cmds"
done
debugfs -w -f "$work/cmds" "$img" >/dev/null 2>&1

say "The commit block of transaction 3 is damaged (one byte of its checksum)"
cblk=$(debugfs -R "logdump" "$img" 2>/dev/null |
	awk '/sequence 3, type 2/ {print $NF; exit}')
pblk=$(debugfs -R "bmap <8> $cblk" "$img" 2>/dev/null)
printf '\377' | dd of="$img" bs=1 seek=$((pblk * 4096 + 16)) conv=notrunc \
	2>/dev/null
echo "commit of transaction 3: journal block $cblk (disk block $pblk)"
