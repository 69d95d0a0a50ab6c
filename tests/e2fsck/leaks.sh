#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# leaks.sh: our e2fsck built under AddressSanitizer, LeakSanitizer and
# UBSan (e2fsck/e2fsck_san, with the library compiled in) over the paths
# the front end takes: replay and hand-over, -n, each policy, a damaged
# journal, the report and the saved journal, an external journal, -N,
# journal_only, a clean filesystem, bad -E keys.  Any sanitizer report,
# a leak at exit included, fails the test.  Skipped (77) when configure
# left the sanitizers out.

. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

SAN=$top_builddir/e2fsck/e2fsck_san
if [ ! -x "$SAN" ]; then
	echo "leaks.sh: $SAN not built (configured --disable-sanitizers)"
	exit 77
fi
check_setup leaks
cp "$SAN" "$WORK/bin/e2fsck_san" && OURS=$WORK/bin/e2fsck_san
mkdir -p "$WORK/asan"
ASAN_OPTIONS=detect_leaks=1:log_path=$WORK/asan/log:abort_on_error=0
UBSAN_OPTIONS=print_stacktrace=1:log_path=$WORK/asan/log
export ASAN_OPTIONS UBSAN_OPTIONS

# run OPTS...: the sanitized e2fsck on $IMG; any report fails.
run() {
	"$OURS" "$@" >"$WORK/out" 2>&1
	RC=$?
	checks=$((checks + 1))
	if ls "$WORK/asan" | grep -q .; then
		echo "FAIL $NAME: sanitizer report from: e2fsck $*"
		cat "$WORK"/asan/* | grep -v '^ *$' | head -40 | sed 's/^/    /'
		rm -f "$WORK"/asan/*
		fails=$((fails + 1))
	fi
	case $RC in
	0|1|2|4|8|12|16) ;;
	*) fail "exit $RC: e2fsck $*" ;;
	esac
}

NAME="replay, then the engine"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -fy "$IMG"

expect_out "recovering journal"

NAME="-n on a journal that needs recovery"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -fn -E journal_policy=replay-all "$IMG"
run -n "$IMG"

NAME="damaged commit, each policy, report and saved journal"
for p in replay-all stop refuse; do
	mkfs has_journal,metadata_csum
	printf 'jo -c\njw -b 1500-1505 /dev/zero\njc\njo\njw -b 1506-1510 /dev/zero\njc\n' | dfs
	spoil "$(logged_at 2 2)" 16
	run -fy -E journal_policy=$p,journal_report="$WORK/r.json",journal_save="$WORK/j.save" \
		"$IMG"
	[ -s "$WORK/r.json" ] || fail "no report under $p"
	rm -f "$WORK/r.json" "$WORK/j.save"
done

NAME="-N, journal_only, -p"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -fy -N name -E journal_only "$IMG"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -p "$IMG"
run -p "$IMG"

NAME="-C progress during the replay"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -fy -C 0 "$IMG"
mkfs has_journal,metadata_csum
txn -c 1500-1510
run -fy -C 1 "$IMG"

NAME="external journal"
ext_journal metadata_csum
run -fy -j "$JNL" "$IMG"

expect_out "recovering journal"

NAME="external journal looked for through libblkid, not found"
run -fn "$IMG"

NAME="bad extended option"
run -fy -E journal_policy=bogus "$IMG"
expect_rc 1

NAME="device given by a UUID no one has"
run -fn UUID=00000000-1111-2222-3333-444444444444

echo "leaks.sh: $checks runs, $fails failures"
[ "$fails" = 0 ]
