#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# blkid.sh: an external journal on a loop device found without udev's
# /dev/disk links, as e2fsck finds it: through libblkid (its cache is
# /dev/null here, so it probes the devices of /proc/partitions).  Runs in
# a private mount namespace with a tmpfs over /dev/disk when there is
# one.  Our journal phase must find the journal itself (it writes the
# JSON report, replays under the policy) rather than hand the run to
# e2fsprogs' e2fsck; then the same with the journal named -j UUID=..., and
# the filesystem named LABEL=... (on a second loop device).  Skipped (77),
# with the reason, where loop devices or namespaces are not available.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

skip() {
	echo "SKIP blkid.sh: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (loop devices)"
command -v losetup >/dev/null || skip "no losetup"
command -v unshare >/dev/null || skip "no unshare"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace"

check_setup blkid
LOOPS=
trap 'for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done; rm -rf "$WORK"' EXIT

# attach FILE: a new loop device for FILE, in $LOOP
attach() {
	LOOP=$(losetup -f --show "$1" 2>/dev/null) ||
		skip "no loop device for $1"
	LOOPS="$LOOPS $LOOP"
}
detach() {
	losetup -d "$1"
	LOOPS=$(echo "$LOOPS" | sed "s|$1||")
}

# no_udev CMD...: CMD with no /dev/disk to look in; output in $WORK/out,
# status in $RC.
no_udev() {
	unshare -m sh -c '
		mount --make-rprivate / 2>/dev/null
		if [ -d /dev/disk ]; then
			mount -t tmpfs none /dev/disk || exit 99
		fi
		[ ! -e /dev/disk/by-uuid ] || exit 99
		exec "$@"' sh "$@" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
	[ $RC = 99 ] && fail "could not hide /dev/disk"
}

# Two transactions in an external journal (the second with recognisable
# data), the filesystem labelled.  The journal gets a UUID of its own:
# while its loop device is attached, e2fsprogs' e2fsck would find it in
# place of the journal other tests (frontend.sh, run beside this one by
# make -j) give lib.sh's fixed UUID.
EXT_UUID=$(cat /proc/sys/kernel/random/uuid)
LABEL=ejblkid$$
make_images() {
	ext_journal metadata_csum
	ab_files
	printf 'jo -f %s\njw -b 1511-1516 %s\njc\n' "$JNL" "$WORK/b" | dfs
	echo "ssv volume_name $LABEL" | dfs
	cp "$IMG" "$IMG.orig"
	cp "$JNL" "$JNL.orig"
}
restore() {
	cp "$IMG.orig" "$IMG"
	cp "$JNL.orig" "$JNL"
}

# replayed_by_us: the journal phase found the journal and replayed it.
replayed_by_us() {
	[ -s "$WORK/r.json" ] ||
		fail "$*: no report: the journal phase did not find the journal"
	grep -q '"replayed": true' "$WORK/r.json" 2>/dev/null ||
		fail "$*: the report says nothing was replayed"
	"$DUMPE2FS" -h "$IMG" 2>/dev/null | grep -q needs_recovery &&
		fail "$*: still needs recovery"
	[ "$(dd if="$IMG" bs=1024 skip=1513 count=1 2>/dev/null | sha256sum)" = \
	  "$(head -c 1024 "$WORK/b" | sha256sum)" ] ||
		fail "$*: transaction 2 not replayed"
	"$E2FSCK_REF" -fn -j "$JNL" "$IMG" >"$WORK/ref.out" 2>&1 ||
		fail "$*: e2fsprogs' e2fsck -fn finds problems afterwards"
	rm -f "$WORK/r.json"
}

make_images

NAME="by the journal's UUID"
restore
attach "$JNL"
J=$LOOP
no_udev "$OURS" -fy -E journal_report="$WORK/r.json" "$IMG"
expect_out "recovering journal"
replayed_by_us "$NAME"
detach "$J"

NAME="-j UUID="
restore
attach "$JNL"
J=$LOOP
no_udev "$OURS" -fy -j "UUID=$EXT_UUID" -E journal_report="$WORK/r.json" \
	"$IMG"
expect_out "recovering journal"
replayed_by_us "$NAME"
detach "$J"

NAME="the filesystem by LABEL="
restore
attach "$JNL"
J=$LOOP
attach "$IMG"
F=$LOOP
no_udev "$OURS" -fy -E journal_report="$WORK/r.json" "LABEL=$LABEL"
expect_out "recovering journal"
detach "$F"
replayed_by_us "$NAME"
detach "$J"

NAME="a UUID no device has"
restore
no_udev "$OURS" -fy -E journal_report="$WORK/r.json" "$IMG"
# e2fsprogs' words, from the journal phase's checks or the engine's
expect_out "Can't find external journal"
[ -s "$WORK/r.json" ] && fail "replayed a journal it cannot have found"

echo "blkid.sh: $checks runs, $fails failures"
[ "$fails" = 0 ]
