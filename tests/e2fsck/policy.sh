#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# policy.sh: what our e2fsck does beyond e2fsprogs' e2fsck: the
# journal_policy values replay-all and refuse on damaged journals, the
# JSON report, the saved copy of the journal, fast commits (ours, but
# the engine's under stop), and our own -E keys on the command line.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup policy

# run OPTS...: our e2fsck on $IMG; output in $WORK/out, status in $RC.
run() {
	"$OURS" "$@" "$IMG" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
}

# block N of $IMG, as a hex digest
block() {
	dd if="$IMG" bs=1024 skip="$1" count=1 2>/dev/null | sha256sum
}

# Two transactions of recognisable data: 1 logs 1500-1505 from file A,
# 2 logs 1506-1510 from file B.
ab_files
two_txns() {
	logged_txns 1500-1505 "$WORK/a" 1506-1510 "$WORK/b"
}
A=$(head -c 1024 "$WORK/a" | sha256sum)
B=$(head -c 1024 "$WORK/b" | sha256sum)
ZERO=$(head -c 1024 /dev/zero | sha256sum)

NAME="last commit damaged, replay-all"
two_txns
spoil "$(logged_at 2 2)" 16
run -y -E journal_policy=replay-all
expect_rc 1
expect_out "journal transaction 2 was corrupt; replayed it"
expect_out "Pass 1"
[ "$(block 1508)" = "$B" ] || fail "transaction 2 not replayed"
"$E2FSCK_REF" -fn "$IMG" >"$WORK/out" 2>&1 || fail "not clean afterwards"

NAME="last commit damaged, replay-all, journal_only"
two_txns
spoil "$(logged_at 2 2)" 16
run -y -E journal_only,journal_policy=replay-all
expect_rc 1
expect_out "journal transaction 2 was corrupt; replayed it"
grep -q "^Pass 1" "$WORK/out" && fail "passes run under journal_only"
"$DUMPE2FS" -h "$IMG" 2>/dev/null | grep -q "^Filesystem state: *clean with errors" ||
	fail "no error state left for the next check"

NAME="last commit damaged, stop"
two_txns
spoil "$(logged_at 2 2)" 16
run -fy -E journal_policy=stop
expect_rc 0
expect_out "Journal transaction 2 was corrupt, replay was aborted."
[ "$(block 1502)" = "$A" ] || fail "transaction 1 not replayed"
[ "$(block 1508)" = "$ZERO" ] || fail "transaction 2 replayed"

NAME="last commit damaged, refuse"
two_txns
spoil "$(logged_at 2 2)" 16
before=$(img_sum)
run -fy -E journal_policy=refuse
expect_rc 4
expect_out "nothing replayed (journal_policy=refuse)"
expect_unchanged "$before"

NAME="data block damaged, replay-all"
two_txns
spoil $(($(logged_at 1 1) + 3)) 100
run -fy -E journal_policy=replay-all,journal_report="$WORK/r.json"
expect_rc 1
expect_out "JBD2: Invalid checksum recovering data block"
expect_out "skipped 1 bad block(s)"
[ "$(block 1508)" = "$B" ] || fail "transaction 2 not replayed"
[ "$(block 1502)" = "$ZERO" ] || fail "the damaged block was written"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/r.json" \
	2>"$WORK/out" || fail "journal_report is not JSON"
grep -q bad_csum "$WORK/r.json" || fail "journal_report has no bad_csum"

NAME="healthy, replay-all"
two_txns
run -y
expect_rc 0
expect_out "recovering journal"
[ "$(block 1508)" = "$B" ] && [ "$(block 1500)" = "$A" ] ||
	fail "not replayed"

NAME="journal_save"
two_txns
"$DEBUGFS" -R "dump <8> $WORK/jnl.debugfs" "$IMG" >/dev/null 2>&1
run -fy -E journal_save="$WORK/jnl.saved"
expect_rc 0
# E2JSAVE1, as "e2journal save" writes it: a header block, then the journal
[ "$(head -c 8 "$WORK/jnl.saved")" = E2JSAVE1 ] ||
	fail "the saved journal has no E2JSAVE1 header"
tail -c +$(($(bs) + 1)) "$WORK/jnl.saved" | cmp -s - "$WORK/jnl.debugfs" ||
	fail "the saved journal differs from the journal before replay"

NAME="fast commits: the engine's under stop only"
CONF=${CONFORMANCE_DIR:-$top_srcdir/tests/conformance}
if [ -f "$CONF/j_recover_fast_commit/image.gz" ]; then
	gzip -dc "$CONF/j_recover_fast_commit/image.gz" >"$IMG"
	run -fy -E journal_policy=stop
	expect_rc 0
	expect_out "holds fast commits; leaving its replay to"
	expect_out "recovering journal"
	for p in replay-all refuse; do
		gzip -dc "$CONF/j_recover_fast_commit/image.gz" >"$IMG"
		run -fy -E journal_policy=$p
		expect_rc 0
		expect_out "recovering journal"
		grep -q "leaving its replay to" "$WORK/out" &&
			fail "$p: the fast commits went to the engine"
	done
else
	fail "no $CONF/j_recover_fast_commit/image.gz"
fi

# Where the journal phase runs, seen by strace: the engine's execve made
# to fail (ENOENT injected), so that what is on the image afterwards is
# what our e2fsck did before handing over.  Under replay-all and refuse
# the fast commits ("a/new" replaces "a/old") are on disk and
# needs_recovery gone before the engine is ever asked to run, and it is
# run with -N for passes 1-5 only; under stop the image is untouched
# when the engine is called with the user's command line.
NAME="fast commits: replayed before the engine runs (strace)"
ENGINE=$(sed -n 's/^#define E2FSCK_ENGINE "\(.*\)"$/\1/p' "$top_builddir/config.h" 2>/dev/null)
if ! command -v strace >/dev/null || ! strace -o /dev/null true 2>/dev/null; then
	echo "SKIP $NAME: strace cannot trace here"
elif [ -z "$ENGINE" ] || [ ! -f "$CONF/j_recover_fast_commit/image.gz" ]; then
	fail "no engine path in $top_builddir/config.h or no j_recover_fast_commit image"
else
	gzip -dc "$CONF/j_recover_fast_commit/image.gz" >"$WORK/fc.orig"
	for p in replay-all refuse stop; do
		cp "$WORK/fc.orig" "$IMG"
		strace -f -qq -P "$ENGINE" -e trace=execve \
			-e inject=execve:error=ENOENT -o "$WORK/trace" \
			"$OURS" -fy -E journal_policy=$p "$IMG" >"$WORK/out" 2>&1
		RC=$?
		checks=$((checks + 1))
		expect_rc 8
		expect_out "cannot run $ENGINE"
		grep -q 'execve(.*ENOENT.*INJECTED' "$WORK/trace" ||
			fail "$p: strace saw no call of $ENGINE"
		names=$(debugfs -R "ls a" "$IMG" 2>/dev/null | tr -s ' ')
		if [ $p = stop ]; then
			cmp -s "$WORK/fc.orig" "$IMG" ||
				fail "stop: the image changed before the engine ran"
			grep -q '"-N"' "$WORK/trace" &&
				fail "stop: the engine was run for passes 1-5 only"
		else
			grep -q '"-N"' "$WORK/trace" ||
				fail "$p: the engine was not run for passes 1-5 (-N)"
			case $names in
			*" new "*) ;;
			*) fail "$p: the fast commits were not replayed before the engine: $names" ;;
			esac
			dumpe2fs -h "$IMG" 2>/dev/null | grep -q needs_recovery &&
				fail "$p: needs_recovery still set when the engine was called"
		fi
	done
fi

NAME="-E with our keys"
two_txns
run -fy -E journal_policy=sideways
expect_rc 1
expect_out "Invalid journal policy"
expect_out "journal_policy=<replay-all, stop or refuse>"
run -fy -E nonsense
expect_rc 1
expect_out "Unknown extended option: nonsense"
expect_out "check_encoding"
run -fy -E journal_report
expect_rc 1
# e2fsck reads only the last -E; our keys are read from every one, so
# this one refuses (and fragcheck still reaches the engine)
spoil "$(logged_at 2 2)" 16
run -fy -E journal_policy=refuse -E fragcheck
expect_rc 4
expect_out "nothing replayed (journal_policy=refuse)"

NAME="-V"
"$OURS" -V >"$WORK/out" 2>&1
RC=$?
expect_rc 0
expect_out "Using EXT2FS Library"
expect_out "passes 1-5: "

echo "$checks runs, $fails failures"
[ $fails = 0 ]
