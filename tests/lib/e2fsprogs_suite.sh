# SPDX-License-Identifier: GPL-2.0
# e2fsprogs_suite.sh: run one test of e2fsprogs 1.47.0's own suite on our
# e2fsck, the way that suite runs it, and compare (sourced by the
# tests/j_e2fsprogs_*/script of the tests whose outcome differs under our
# default policy; see doc/e2fsprogs-suite.md).
#
# The suite's image and expected output of each test are taken from the
# e2fsprogs source that "make check-e2fsprogs" fetches, found in
# $E2FSPROGS_TESTS or BUILDDIR/.cache/e2fsprogs/e2fsprogs-1.47.0/tests,
# and otherwise from the copy in the tree, tests/conformance/ (the
# j_corrupt_* tests there have 1.47.0's expect files; its README says
# so), so that a clone with nothing beside it runs these too.
#
# suite_case NAME [pad]: e2fsprogs' test NAME (a j_corrupt_* journal test: two
# "e2fsck -fy -N test_filesys" runs on its image, then "cat /a" in
# debugfs when the test does that) with our e2fsck
#   - under journal_policy=stop (from an e2fsck.conf): the output must be
#     the suite's own expected output, byte for byte;
#   - under the default policy (replay-all): the output must be $T/expect,
#     our expected output, reviewed by hand.
# Lines naming the programs' versions are dropped from both, as the suite
# drops them.  "pad": the test's script ends its output with an empty line.
# Our e2fsck is run as the suite runs it, as ../e2fsck/e2fsck from a
# tests/ directory: it names itself by argv[0] in some messages.

. "$top_srcdir/tests/lib/jtest.sh"

: "${E2FSPROGS_TESTS:=$top_builddir/.cache/e2fsprogs/e2fsprogs-1.47.0/tests}"
# E2FSCK_UNDER_TEST: another e2fsck in ours' place (check-e2fsprogs-series
# runs these on e2fsprogs' e2fsck with e2fsprogs/patches applied)
OURS=${E2FSCK_UNDER_TEST:-$top_builddir/e2fsck/e2fsck}
FSCK=../e2fsck/e2fsck

# suite_run IMAGE CATA OUT: the two runs (and "cat /a" if CATA=1), output
# in OUT, ended as the test's script ends it ($WORK/pad); the current
# E2FSCK_CONFIG is the one used.
suite_run() {
	local img=$WORK/test.img status
	gzip -dc "$1" >"$img"
	: >"$3.raw"
	for _ in 1 2; do
		(cd "$WORK/tests" && $FSCK -fy -N test_filesys "$img") \
			>>"$3.raw" 2>&1
		status=$?
		echo "Exit status is $status" >>"$3.raw"
	done
	if [ "$2" = 1 ]; then
		printf 'cat /a\n\n' >"$WORK/cmd"
		"$DEBUGFS" -f "$WORK/cmd" "$img" >>"$3.raw" 2>&1
	fi
	sed -e '/^e2fsck [0-9][0-9.]* (/d' -e '/^debugfs [0-9][0-9.]* (/d' \
		-e "s;$img;test.img;g" "$3.raw" >"$3"
	cat "$WORK/pad" >>"$3"
	rm -f "$img"
}

# same WANT GOT PASS FAIL: a RESULT line, PASS (saying PASS) when GOT is
# WANT byte for byte, else FAIL (saying FAIL) with the diff in the log.
same() {
	if cmp -s "$1" "$2"; then
		echo "RESULT PASS $name: $3"
		return 0
	fi
	echo "RESULT FAIL $name: $4"
	diff -u "$1" "$2" | cut -c 1-200 >&2
	return 1
}

suite_case() {
	local name=$1 dir cata=1 want rc=0
	: >"$WORK/pad"
	[ "${2:-}" = pad ] && printf '\n' >"$WORK/pad"
	dir=$E2FSPROGS_TESTS/$name
	[ -f "$dir/image.gz" ] || dir=$top_srcdir/tests/conformance/$name
	if [ ! -f "$dir/image.gz" ]; then
		echo "RESULT FAIL $name: neither $E2FSPROGS_TESTS nor tests/conformance holds it"
		exit 1
	fi
	if [ ! -x "$OURS" ]; then
		echo "RESULT FAIL $name: $OURS not built"
		exit 1
	fi
	# the suite's expected output of the whole test
	if [ -f "$dir/expect" ]; then
		want=$dir/expect
	else
		# expect.1 and expect.2: one file per e2fsck run, no debugfs
		cata=0
		cat "$dir/expect.1" "$dir/expect.2" >"$WORK/suite.expect"
		want=$WORK/suite.expect
	fi
	mkdir -p "$WORK/e2fsck" "$WORK/tests"
	cp "$OURS" "$WORK/e2fsck/e2fsck"

	printf '[options]\n\tjournal_policy = stop\n' >"$WORK/stop.conf"
	E2FSCK_CONFIG=$WORK/stop.conf suite_run "$dir/image.gz" "$cata" \
		"$WORK/out.stop"
	same "$want" "$WORK/out.stop" \
		"journal_policy=stop gives e2fsprogs' output" \
		"journal_policy=stop differs from e2fsprogs' expect" || rc=1

	E2FSCK_CONFIG=/dev/null suite_run "$dir/image.gz" "$cata" \
		"$WORK/out.replay-all"
	same "$T/expect" "$WORK/out.replay-all" \
		"replay-all gives our expect" \
		"replay-all differs from $T/expect" || rc=1
	if cmp -s "$want" "$WORK/out.replay-all"; then
		echo "RESULT FAIL $name: replay-all gives e2fsprogs' output (remove it from tests/e2fsprogs/replay-all.list)"
		rc=1
	fi
	return $rc
}
