#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mounted.sh: nothing writes to a mounted filesystem or to a device that
# another program holds open with O_EXCL (issue 32, item 1).
#
# As root, an image with a log to replay is loop-mounted read-only without
# recovery (so that the kernel writes nothing either, and the image file
# must come back from the umount byte for byte as it went in); then
# e2journal replay, write and corrupt, on the loop device and on the image
# file, the API (api_test --not-ours) and the journal_t level
# (jopen_mounted) must each refuse, the programs with e2fsck's words and
# exit 8 (our e2fsck too: e2fsprogs' e2fsck says it).  Then the same image mounted read-write, a file
# written and synced (the issue's case): every writer refused, e2fsck -fn
# clean after the umount.  Then the loop device, not mounted, held open
# with O_EXCL by another process: "is in use.", exit 8, nothing written;
# the same for an external journal device so held (the journal_t level).
# Skipped (exit 77) when not root or when loop devices cannot be set up.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MKE2FS:=/sbin/mke2fs}"
E2JOURNAL=$top_builddir/misc/e2journal
API=$top_builddir/tests/api/api_test
JOPEN=$top_builddir/tests/api/jopen_mounted
OURS=$top_builddir/e2fsck/e2fsck
E2FSCK_SYS=/sbin/e2fsck

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: mounted.sh needs root (loop devices and mount)"
	exit 77
fi
for t in losetup mount umount python3 sha256sum; do
	command -v $t >/dev/null 2>&1 ||
		{ echo "SKIP: mounted.sh needs $t"; exit 77; }
done
[ -x "$E2JOURNAL" ] || { echo "SKIP: $E2JOURNAL not built"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-mounted.XXXXXX") || exit 99
loop= jloop= holder= mnt=$work/mnt
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	[ -n "$jloop" ] && losetup -d "$jloop" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$mnt"

fails=0 checks=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

img=$work/img
"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -O metadata_csum,64bit \
	-E lazy_itable_init=1 "$img" 16384 >/dev/null 2>&1 ||
	{ echo "FAIL: mke2fs"; exit 1; }
"$E2JOURNAL" write "$img" --txn 'blocks=3000-3003:fill:0x11' \
	--txn 'blocks=3100:fill:0x22' >/dev/null ||
	{ echo "FAIL: e2journal write"; exit 1; }

loop=$(losetup -f --show "$img" 2>/dev/null)
if [ -z "$loop" ]; then
	echo "SKIP: no loop device could be set up here"
	exit 77
fi
if ! mount -o ro,noload "$loop" "$mnt" 2>/dev/null; then
	echo "SKIP: mounting a loop device is not allowed here"
	exit 77
fi

# refused PATH WORD CMD...: CMD exits 8 saying "PATH is WORD." and
# e2fsck's "Cannot continue, aborting."
refused() {
	local path=$1 word=$2 rc
	shift 2
	checks=$((checks + 1))
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc != 8 ] || ! grep -qx "$path is $word." "$work/out" ||
			! grep -q "Cannot continue, aborting." "$work/err"; then
		fail "not refused (exit $rc, want 8): $*"
		sed 's/^/    /' "$work/out" "$work/err" | head -10
	fi
}

# every writer, on the device and on the image file behind it
writers() {
	local word=$1 p
	for p in "$loop" "$img"; do
		refused "$p" "$word" "$E2JOURNAL" replay "$p"
		refused "$p" "$word" "$E2JOURNAL" replay -y "$p"
		refused "$p" "$word" "$E2JOURNAL" write "$p" --no-layout \
			--txn 'blocks=3200'
		refused "$p" "$word" "$E2JOURNAL" corrupt "$p" commit-csum \
			--layout "$img.layout" \
			--tid 1
	done
}

# 1. mounted read-only, no recovery: the kernel writes nothing either
sum_before=$(sha256sum <"$img")
writers mounted
# read-only commands still work on it
checks=$((checks + 1))
"$E2JOURNAL" plan "$loop" >/dev/null 2>&1 ||
	fail "e2journal plan refused a mounted filesystem (read-only)"
if [ -x "$API" ]; then
	checks=$((checks + 1))
	"$API" --not-ours mounted "$loop" >"$work/out" 2>&1 &&
		"$API" --not-ours mounted "$img" >>"$work/out" 2>&1 ||
		{ fail "the API opened a mounted filesystem for writing"
		  sed 's/^/    /' "$work/out"; }
fi
# the journal_t level (what e2fsck and e2journal drive) on its own
if [ -x "$JOPEN" ]; then
	checks=$((checks + 1))
	"$JOPEN" mounted "$loop" >"$work/out" 2>&1 ||
		{ fail "ej_journal_open() in write mode on a mounted filesystem"
		  sed 's/^/    /' "$work/out"; }
fi
# our e2fsck: e2fsprogs' words and exit status
if [ -x "$OURS" ]; then
	for o in -p -y; do
		refused "$loop" mounted "$OURS" $o "$loop"
	done
fi
umount "$mnt" || { echo "FAIL: umount"; exit 1; }
checks=$((checks + 1))
[ "$(sha256sum <"$img")" = "$sum_before" ] ||
	fail "the image changed while it was mounted"

# 2. mounted read-write (the kernel replays), a file written and synced
mount "$loop" "$mnt" || { echo "FAIL: mount read-write"; exit 1; }
echo data >"$mnt/file" && sync
writers mounted
[ -x "$API" ] && { checks=$((checks + 1))
	"$API" --not-ours mounted "$loop" >/dev/null 2>&1 ||
		fail "the API opened a mounted filesystem for writing"; }
umount "$mnt" || { echo "FAIL: umount"; exit 1; }
if [ -x "$E2FSCK_SYS" ]; then
	checks=$((checks + 1))
	"$E2FSCK_SYS" -fn "$loop" >"$work/out" 2>&1 ||
		{ fail "e2fsck -fn after the mounted runs"
		  sed 's/^/    /' "$work/out" | head -10; }
fi

# 3. not mounted, but held with O_EXCL by another process
"$E2JOURNAL" write "$img" --txn 'blocks=3000-3003:fill:0x33' \
	>/dev/null || { echo "FAIL: e2journal write"; exit 1; }
hold() {
	python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(600)' "$1" >"$work/held" &
	holder=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q held "$work/held"; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q held "$work/held" || { echo "FAIL: cannot hold $1"; exit 1; }
}
unhold() {
	kill "$holder" && wait "$holder" 2>/dev/null
	holder=
}
hold "$loop"
sum_before=$(sha256sum <"$img")
for cmd in "replay" "replay -y"; do
	refused "$loop" "in use" "$E2JOURNAL" $cmd "$loop"
done
refused "$loop" "in use" "$E2JOURNAL" write "$loop" --no-layout \
	--txn 'blocks=3200'
refused "$loop" "in use" "$E2JOURNAL" corrupt "$loop" commit-csum \
	--tid 1 --layout "$img.layout"
if [ -x "$API" ]; then
	checks=$((checks + 1))
	"$API" --not-ours busy "$loop" >"$work/out" 2>&1 ||
		{ fail "the API opened a device held with O_EXCL for writing"
		  sed 's/^/    /' "$work/out"; }
fi
if [ -x "$JOPEN" ]; then
	checks=$((checks + 1))
	"$JOPEN" busy "$loop" >"$work/out" 2>&1 ||
		{ fail "ej_journal_open() in write mode on a held device"
		  sed 's/^/    /' "$work/out"; }
fi
[ -x "$OURS" ] && refused "$loop" "in use" "$OURS" -y "$loop"
unhold
checks=$((checks + 1))
[ "$(sha256sum <"$img")" = "$sum_before" ] ||
	fail "the image changed while another process held it"
[ -x "$JOPEN" ] && { checks=$((checks + 1))
	"$JOPEN" free "$loop" >/dev/null 2>&1 ||
		fail "ej_journal_open() refused a device nobody holds"; }
# and once let go, replay goes ahead (the check refuses no more than that)
checks=$((checks + 1))
"$E2JOURNAL" replay "$loop" >"$work/out" 2>&1 ||
	{ fail "replay of the released device"; sed 's/^/    /' "$work/out"; }

# 4. an external journal device held with O_EXCL (as the kernel holds a
#    mounted filesystem's): the journal_t level refuses to write it
jimg=$work/jnl fimg=$work/fs
"$MKE2FS" -F -q -o Linux -b 1024 -O journal_dev "$jimg" 2048 \
	>/dev/null 2>&1 || { echo "FAIL: mke2fs -O journal_dev"; exit 1; }
jloop=$(losetup -f --show "$jimg") || { echo "FAIL: losetup"; exit 1; }
"$MKE2FS" -F -q -o Linux -b 1024 -J device="$jloop" "$fimg" 16384 \
	>/dev/null 2>&1 || { echo "FAIL: mke2fs -J device="; exit 1; }
"$E2JOURNAL" write "$fimg" -j "$jloop" --txn 'blocks=3000:fill:0x44' \
	>/dev/null || { echo "FAIL: e2journal write -j"; exit 1; }
hold "$jloop"
sum_before=$(cat "$fimg" "$jimg" | sha256sum)
refused "$jloop" "in use" "$E2JOURNAL" replay -j "$jloop" "$fimg"
refused "$jloop" "in use" "$E2JOURNAL" write "$fimg" -j "$jloop" \
	--no-layout --txn 'blocks=3200'
unhold
checks=$((checks + 1))
[ "$(cat "$fimg" "$jimg" | sha256sum)" = "$sum_before" ] ||
	fail "the filesystem or its journal changed while the journal was held"

echo "$checks checks, $fails failed"
[ $fails = 0 ]
