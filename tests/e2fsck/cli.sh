#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cli.sh: what our e2fsck says and writes around the journal phase, beside
# e2fsprogs' e2fsck: --help names our -E keys (and exits as e2fsck does),
# a bad -E exits 1 as in e2fsck, every line of a refused replay's report
# under -p carries "DEVICE: " as e2fsck's preen messages do, and under
# E2FSCK_TIME (e2fsprogs' test clock) the replayed image is e2fsprogs'
# byte for byte, its last write time included.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup cli

run() {
	"$OURS" "$@" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
}

NAME="--help"
run --help
expect_rc 16
expect_out "journal_policy="
expect_out "replay-all"
expect_out "journal_save="
"$E2FSCK_REF" --help >"$WORK/ref" 2>&1
ref_rc=$?
[ "$ref_rc" = "$RC" ] || fail "exit $RC, e2fsck's is $ref_rc"
# e2fsck's usage first, word for word but for the program's name
sed "s;$E2FSCK_REF;PROG;g" "$WORK/ref" >"$WORK/ref.n"
sed "s;$OURS;PROG;g" "$WORK/out" | head -n "$(wc -l <"$WORK/ref.n")" >"$WORK/out.n"
cmp -s "$WORK/ref.n" "$WORK/out.n" || fail "the usage above ours is not e2fsck's"

NAME="bad -E"
mkfs has_journal
run -fn -E journal_policy=sideways "$IMG"
expect_rc 1
run -fn -E no_such_key "$IMG"
expect_rc 1
grep -q 'a bad' "$top_srcdir/doc/e2jfsck.8" &&
	grep -q 'exits with 1' "$top_srcdir/doc/e2jfsck.8" ||
	fail "e2jfsck(8) does not say a bad -E exits 1"

NAME="-p under refuse"
gzip -dc "$top_srcdir/tests/conformance/j_corrupt_journal_block/image.gz" >"$IMG"
run -p -E journal_policy=refuse "$IMG"
expect_rc 4
expect_out "nothing replayed (journal_policy=refuse)"
expect_out "^$IMG: Transactions: 3"
# every line but recovery's own JBD2 message (e2fsck prints it bare too)
bare=$(grep -v -e "^$IMG: " -e '^JBD2: ' "$WORK/out")
[ -z "$bare" ] || fail "lines without \"$IMG: \": $bare"

NAME="E2FSCK_TIME"
for opts in "-y -E journal_only" "-p"; do
	mkfs has_journal,metadata_csum
	txn -c 1500-1503
	cp "$IMG" "$WORK/ref.img"
	# shellcheck disable=SC2086
	E2FSCK_TIME=1600000000 "$OURS" $opts "$IMG" >"$WORK/out" 2>&1
	# shellcheck disable=SC2086
	E2FSCK_TIME=1600000000 "$E2FSCK_REF" $opts "$WORK/ref.img" >/dev/null 2>&1
	checks=$((checks + 1))
	cmp -s "$IMG" "$WORK/ref.img" ||
		fail "$opts: the image differs from e2fsprogs' ($(cmp "$IMG" "$WORK/ref.img" | head -1))"
	"$DUMPE2FS" -h "$IMG" 2>/dev/null | grep -q 'Last write time: *Sun Sep 13 12:26:40 2020' ||
		fail "$opts: s_wtime is not E2FSCK_TIME"
done

echo "cli: $checks runs, $fails failed"
[ $fails = 0 ]
