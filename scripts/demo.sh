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

sh "$top/scripts/demo-image.sh" "$img"
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
