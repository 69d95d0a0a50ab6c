#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The main job on a demonstration image: the 2008 linux-ext4 scenario.
#
# Transactions 1 to 5 (written by debugfs) each log a new version of one
# file's data block; the commit block of transaction 3 is damaged.
# e2fsprogs 1.47 replays 1 and 2, silently drops 4 and 5 and calls the
# filesystem clean.  Our e2fsck replays
# all five, writes no block known to be bad, flags the filesystem and runs
# the full check.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/build.sh" >/dev/null
E2JOURNAL="$top/misc/e2journal"
E2FSCK="$top/e2fsck/e2fsck"
PATH=$PATH:/sbin:/usr/sbin

work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
img=$work/demo.img

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
cp --sparse=always "$img" "$work/stock.img"

say "e2journal replay --dry-run: what replay would do, block by block"
"$E2JOURNAL" replay --dry-run "$img" || true

say "e2fsck -fy (journal_policy=replay-all, the default)"
rc=0
"$E2FSCK" -fy "$img" || rc=$?
echo "exit status $rc"
echo "notes.txt now says: $(debugfs -R 'cat /notes.txt' "$img" 2>/dev/null)"
rc=0
"$E2FSCK" -fy "$img" >/dev/null || rc=$?
echo "a second e2fsck -fy exits $rc"

say "For comparison, e2fsprogs' own e2fsck on the same damaged image"
rc=0
/usr/sbin/e2fsck -fy "$work/stock.img" || rc=$?
echo "exit status $rc"
echo "notes.txt now says: $(debugfs -R 'cat /notes.txt' "$work/stock.img" 2>/dev/null)"
