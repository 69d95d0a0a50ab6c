#!/bin/sh
# The main job on a demonstration image: the 2008 linux-ext4 scenario.
#
# Transactions 2 to 6 each log a new version of one file's data block; the
# commit block of transaction 4 is damaged.  e2fsprogs 1.47 replays 2 and 3,
# silently drops 5 and 6 and calls the filesystem clean.  Our e2fsck replays
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

say "Transactions 2-6 log new versions of that block (journal checksum v3)"
set --
for t in 2 3 4 5 6; do
	printf 'version from transaction %s\n' "$t" >"$work/v$t"
	truncate -s 4096 "$work/v$t"
	set -- "$@" --txn "blocks=$blk:file:$work/v$t"
done
"$E2JOURNAL" write --csum v3 --first-tid 2 "$@" "$img"
say "The commit block of transaction 4 is damaged"
"$E2JOURNAL" corrupt "$img" commit-csum --tid 4
cp --sparse=always "$img" "$work/stock.img"

say "e2journal plan: what replay would do, block by block"
"$E2JOURNAL" plan "$img" || true

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
