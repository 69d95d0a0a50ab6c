#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# save_fail.sh: -E journal_save=PATH that cannot be written (issue 32,
# item 2).  The copy is made before anything is written; when it cannot
# be made, e2fsck stops there: exit 8, the image byte for byte as it was
# (its journal and needs_recovery with it), under -p, -y and -n, with a
# healthy and a damaged journal, for an external journal, and when the
# journal is left to e2fsprogs' e2fsck (MMP).  A save
# that can be written still lets the run go on.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup savefail

# run ARGS...: our e2fsck on the image ($PRE, when set, runs it)
PRE=
run() {
	$PRE "$OURS" "$@" "$IMG" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
}

ab_files
for damage in none commit; do
	for opt in -p -y -n "-fy"; do
		# no such directory, a directory, a device that is full
		for where in /nonexistent/x.save "$WORK" /dev/full; do
			NAME="journal_save=$where, $opt, damage $damage"
			logged_txns 1500-1505 "$WORK/a" 1506-1510 "$WORK/b"
			[ $damage = commit ] && spoil "$(logged_at 2 2)" 16
			sum=$(img_sum)
			run $opt -E journal_save="$where"
			expect_rc 8
			expect_out "the journal was not saved; nothing written"
			expect_unchanged "$sum"
		done
	done
done

# an external journal: neither the filesystem nor the journal device
NAME="journal_save unwritable, external journal"
ext_journal ""
sum=$(cat "$IMG" "$JNL" | sha256sum)
run -fy -j "$JNL" -E journal_save=/nonexistent/x.save
expect_rc 8
expect_out "the journal was not saved; nothing written"
[ "$(cat "$IMG" "$JNL" | sha256sum)" = "$sum" ] ||
	fail "the filesystem or its journal changed"
run -fy -j "$JNL" -E journal_save="$WORK/ext.save"
expect_rc 0
[ "$(head -c 8 "$WORK/ext.save" 2>/dev/null)" = E2JSAVE1 ] ||
	fail "no saved external journal"

# a filesystem our journal phase leaves to e2fsprogs' e2fsck (MMP): the
# copy is made (or its failure stops the run) before the engine replays.
# libext2fs waits 11 s at every read-write open of an MMP filesystem
# (four here): tests/lib/nosleep.so, where it was built and loads, skips
# the waits (the MMP block is still written and read back)
NAME="journal_save, MMP (e2fsprogs' e2fsck replays)"
E2JOURNAL=$top_builddir/misc/e2journal
nosleep=$top_builddir/tests/lib/nosleep.so
if [ -f "$nosleep" ] && [ -z "$(LD_PRELOAD=$nosleep true 2>&1)" ]; then
	PRE="env LD_PRELOAD=$nosleep"
fi
"$MKE2FS" -F -q -o Linux -b 1024 -T ext4 -O mmp,metadata_csum -J size=1 \
	"$IMG" 16384 >/dev/null 2>&1 &&
	$PRE "$E2JOURNAL" write "$IMG" --no-layout --txn 'blocks=3000-3003' \
	>/dev/null || fail "mke2fs -O mmp, e2journal write"
cp "$IMG" "$WORK/mmp"
sum=$(img_sum)
run -fy -E journal_save=/nonexistent/x.save
expect_rc 8
expect_out "the journal was not saved; nothing written"
expect_unchanged "$sum"
cp "$WORK/mmp" "$IMG"
run -fy -E journal_save="$WORK/mmp.save"
expect_rc 0
[ "$(head -c 8 "$WORK/mmp.save" 2>/dev/null)" = E2JSAVE1 ] ||
	fail "no saved journal before e2fsprogs' e2fsck replayed it"
PRE=

# the same run with a save that can be written goes ahead
NAME="journal_save writable, -p"
logged_txns 1500-1505 "$WORK/a" 1506-1510 "$WORK/b"
run -p -E journal_save="$WORK/ok.save"
expect_rc 0
expect_out "recovering journal"
[ "$(head -c 8 "$WORK/ok.save" 2>/dev/null)" = E2JSAVE1 ] ||
	fail "no saved journal"

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
