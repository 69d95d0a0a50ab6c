#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: the kernel series in kernel/patches-6.1 and -6.12 is
# what kernel/mkseries.py makes of e2fsck/recovery.c,
# lib/journal/jbd2_policy.h and kernel/series (no kernel source needed:
# the patches carry full blob ids).  Then shows that the check can fail:
# with a copy of recovery.c or of the policy header differing in one
# byte, with an extracted intermediate recovery.c edited, and with a
# patch out of the chain, it must.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
mk="python3 $top_srcdir/kernel/mkseries.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/check-series.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused KVER VAR=VALUE WHAT WHY PATTERN: mkseries.py --check KVER, with
# VAR=VALUE in its environment, must fail and say PATTERN (WHY it fails).
refused() {
	if env "$2" $mk --check "$1" >"$work/out" 2>&1; then
		bad "$3 passes the check"
	elif grep -q "$5" "$work/out"; then
		ok "$3 fails the check ($4)"
	else
		cat "$work/out"
		bad "$3 fails, but not because $4"
	fi
}

if $mk --check 6.1 6.12; then
	ok "the series agree with the project's files"
else
	bad "a series disagrees with the project's files (run kernel/mkseries.py 6.1 6.12)"
fi

# The same bytes elsewhere: still agrees (the control).
cp "$top_srcdir/e2fsck/recovery.c" "$work/recovery.c"
cp "$top_srcdir/lib/journal/jbd2_policy.h" "$work/jbd2_policy.h"
if MKSERIES_RECOVERY_C=$work/recovery.c MKSERIES_POLICY_H=$work/jbd2_policy.h \
   $mk --check 6.1 >"$work/out" 2>&1; then
	ok "an identical copy of recovery.c and jbd2_policy.h agrees"
else
	cat "$work/out"
	bad "an identical copy does not agree"
fi

# One byte of recovery.c changed (a comment's letter).
sed '3s/journal/jOurnal/' "$top_srcdir/e2fsck/recovery.c" >"$work/recovery.c"
cmp -s "$work/recovery.c" "$top_srcdir/e2fsck/recovery.c" && bad "sed changed nothing"
refused 6.1 MKSERIES_RECOVERY_C="$work/recovery.c" "a changed recovery.c" \
	"the series' blob is not its" \
	"fs/jbd2/recovery.c is not e2fsck/recovery.c"

# One definition of the policy header changed.
sed 's/JBD2_POLICY_REFUSE = 2,/JBD2_POLICY_REFUSE = 3,/' \
	"$top_srcdir/lib/journal/jbd2_policy.h" >"$work/jbd2_policy.h"
cmp -s "$work/jbd2_policy.h" "$top_srcdir/lib/journal/jbd2_policy.h" &&
	bad "sed changed nothing"
refused 6.12 MKSERIES_POLICY_H="$work/jbd2_policy.h" \
	"a changed jbd2_policy.h" "jbd2.h does not get its definitions" \
	"jbd2_policy.h's definitions"
# The intermediate recovery.c files live in the patches; --extract
# writes them into a step's directory for editing, and the check then
# holds the patch to them.  A copy of kernel/series without them agrees
# (the control: the check follows MKSERIES_SERIES) ...
cp -r "$top_srcdir/kernel/series" "$work/series"
rm -f "$work"/series/[0-9]*/recovery.c "$work"/series/[0-9]*/recovery.c@*
if MKSERIES_SERIES=$work/series $mk --check 6.1 >"$work/out" 2>&1; then
	ok "kernel/series without extracted files agrees"
else
	cat "$work/out"
	bad "kernel/series without extracted files does not agree"
fi
# ... and one whose extracted 06-range/recovery.c was edited and the
# series not regenerated must not (here: another file in its place).
cp "$top_srcdir/e2fsck/recovery.c" "$work/series/06-range/recovery.c"
refused 6.1 MKSERIES_SERIES="$work/series" "an edited intermediate recovery.c" \
	"the step's blob is not its" \
	"fs/jbd2/recovery.c is not kernel/series/06-range/recovery.c"
# A patch whose diff of recovery.c does not start from the blob the
# patch before it left (patch 5's "index" line names another old blob):
# the chain would not apply.
mkdir -p "$work/p"
cp -r "$top_srcdir/kernel/patches-6.1" "$work/p/"
p5=$(ls "$work"/p/patches-6.1/0005-*.patch)
sed -i '/^index [0-9a-f]*\.\./s/^index [0-9a-f]/index f/' "$p5"
cmp -s "$p5" "$(ls "$top_srcdir"/kernel/patches-6.1/0005-*.patch)" && bad "sed changed nothing"
refused 6.1 MKSERIES_PATCHES="$work/p" "a patch out of the chain" \
	"it does not start from its predecessor's recovery.c" \
	"0005-.*does not start where the patch before it left the file"
[ "$fails" -eq 0 ]
