#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# conf.sh: journal_policy from e2fsck.conf ([options] journal_policy =
# ...), read from $E2FSCK_CONFIG as e2fsck reads it.  e2fsck.conf saying
# stop must give exactly what -E journal_policy=stop gives (output, exit
# status, resulting image); -E on the command line wins over the file;
# the parser takes only the top level of [options], understands comments,
# subsections and quoted values; a bad value is refused; a file that is
# not profile syntax is left to the engine, which reports it.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

check_setup conf

# run CONF OPTS...: our e2fsck on $IMG with E2FSCK_CONFIG=CONF; output in
# $WORK/out, status in $RC.
run() {
	local conf=$1
	shift
	E2FSCK_CONFIG=$conf "$OURS" "$@" "$IMG" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
}

conf() {
	printf '%b' "$2" >"$WORK/$1.conf"
}

# Three transactions logging 1500-1505 (a), 1506-1510 (b), 1511-1512 (a).
ab_files
three_txns() {
	logged_txns 1500-1505 "$WORK/a" 1506-1510 "$WORK/b" 1511-1512 "$WORK/a"
}

# the damaged journals compared, one function each: they leave $IMG
commit_bad() {
	three_txns
	spoil "$(logged_at 2 2)" 16
}
descr_bad() {
	three_txns
	spoil "$(logged_at 2 1)" 40
}
data_bad() {
	three_txns
	spoil $(($(logged_at 1 1) + 2)) 100
}
jsb_bad() {
	three_txns
	poke badcsum
}
healthy() {
	three_txns
}

conf stop '# e2fsck.conf\n[options]\n\tjournal_policy = stop\n'
conf none '[options]\n\tbroken_system_clock = 1\n'

# --- e2fsck.conf stop == -E journal_policy=stop, and != the default
for make in commit_bad descr_bad data_bad jsb_bad healthy; do
	for opts in "-fy" "-fn" "-fp" "-y"; do
		NAME="$make $opts: e2fsck.conf stop vs -E journal_policy=stop"
		$make
		cp "$IMG" "$WORK/orig"
		run "$WORK/stop.conf" $opts
		cp "$WORK/out" "$WORK/out.conf"
		rc_conf=$RC
		cp "$IMG" "$WORK/img.conf"
		cp "$WORK/orig" "$IMG"
		run /dev/null $opts -E journal_policy=stop
		[ "$RC" = "$rc_conf" ] || fail "exit $rc_conf with the file, $RC with -E"
		cmp -s "$WORK/out" "$WORK/out.conf" ||
			fail "output differs: $(diff "$WORK/out.conf" "$WORK/out" | head -5)"
		# e2fsck resets a corrupt journal superblock with a new
		# random sequence: those images cannot be the same
		[ "$make" = jsb_bad ] ||
			same_image "$IMG" "$WORK/img.conf" ||
			fail "resulting images differ"
		# the file is really read: without it the damaged ones differ
		if [ "$make" != healthy ] && [ "$opts" != -fn ]; then
			cp "$WORK/orig" "$IMG"
			run "$WORK/none.conf" $opts
			cmp -s "$WORK/out" "$WORK/out.conf" &&
				fail "the default policy gave stop's output"
		fi
	done
done

# --- the command line wins
NAME="e2fsck.conf stop, -E journal_policy=replay-all"
commit_bad
run "$WORK/stop.conf" -fy -E journal_policy=replay-all
expect_rc 1
expect_out "journal transaction 2 was corrupt; replayed it"

NAME="e2fsck.conf refuse, -E journal_policy=stop"
conf refuse '[options]\njournal_policy = refuse\n'
commit_bad
run "$WORK/refuse.conf" -fy -E journal_policy=stop
expect_rc 0
expect_out "Journal transaction 2 was corrupt, replay was aborted."

# --- several -E: e2fsck reads only the last, but our key of an
# earlier one still counts (and a later journal_policy wins)
NAME="-E journal_policy=stop -y -E journal_only"
commit_bad
run /dev/null -E journal_policy=stop -y -E journal_only
expect_rc 0
expect_out "Journal transaction 2 was corrupt, replay was aborted."

NAME="-E journal_policy=stop -E journal_policy=replay-all,journal_only"
commit_bad
run /dev/null -E journal_policy=stop -y -E journal_policy=replay-all,journal_only
expect_rc 1
expect_out "journal transaction 2 was corrupt; replayed it"

NAME="-E journal_policy=bogus -E journal_only"
commit_bad
run /dev/null -E journal_policy=bogus -y -E journal_only
expect_rc 1	# e2fsck's exit for a bad -E
expect_out "Invalid journal policy: bogus"

NAME="e2fsck.conf refuse"
commit_bad
before=$(img_sum)
run "$WORK/refuse.conf" -fy
expect_rc 4
expect_out "nothing replayed (journal_policy=refuse)"
expect_unchanged "$before"

NAME="e2fsck.conf replay-all, -E journal_policy=refuse"
conf replay '[options]\njournal_policy = replay-all\n'
commit_bad
run "$WORK/replay.conf" -fy -E journal_policy=refuse
expect_rc 4
expect_out "nothing replayed (journal_policy=refuse)"

# --- the parser
NAME="only the top level of [options], first value, quotes, comments"
conf tricky '; leading comment\n[scratch_files]\n\tjournal_policy = refuse\n[options]*\n  # indented comment\n\tbroken_dirs = {\n\t\tjournal_policy = refuse\n\t\tdeeper = {\n\t\t\tx = y\n\t\t}\n\t}\n\tjournal_policy = "stop"\n\tjournal_policy = refuse\n[problems]\n\tjournal_policy = refuse\n'
commit_bad
run "$WORK/tricky.conf" -fy
expect_rc 0
expect_out "Journal transaction 2 was corrupt, replay was aborted."

NAME="E2FSCK_CONFIG names a missing file: the default"
commit_bad
run "$WORK/no-such.conf" -fy
expect_rc 1
expect_out "replayed it"

NAME="unknown policy in e2fsck.conf"
conf bad '[options]\njournal_policy = sideways\n'
commit_bad
before=$(img_sum)
run "$WORK/bad.conf" -fy
expect_rc 8
expect_out "invalid journal_policy \"sideways\" in $WORK/bad.conf"
expect_unchanged "$before"

NAME="unknown policy in e2fsck.conf, -E wins"
commit_bad
run "$WORK/bad.conf" -fy -E journal_policy=stop
expect_rc 0
expect_out "Journal transaction 2 was corrupt, replay was aborted."

NAME="e2fsck.conf syntax error: the engine reports it"
conf syntax '[options\njournal_policy = stop\n'
commit_bad
before=$(img_sum)
run "$WORK/syntax.conf" -fy
expect_rc 8
expect_out "Syntax error in e2fsck config file"
expect_unchanged "$before"

echo "$checks runs, $fails failures"
[ $fails = 0 ]
