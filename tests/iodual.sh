#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# iodual.sh: tests/lib/iodual, io_engines.sh's stand-in for our programs,
# finds what it must find.  A fake "e2journal" (a shell script) does
# something that depends on E2JOURNAL_IO (plain on iodual's first run,
# unset on its second), and iodual must log a difference exactly when
# the two runs left different files, exit statuses or output, give the
# second run the files as they were before the first, give both runs the
# same standard input, allow the random fields of a journal superblock,
# and run a command that reads no journal only once.
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
IODUAL=$top_builddir/tests/lib/iodual
if [ ! -x "$IODUAL" ]; then
	echo "SKIP: $IODUAL not built"
	exit 77
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/iodual-test.XXXXXX") || exit 99
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 99
nfail=0
checks=0
fail() {
	echo "FAIL: $NAME: $*"
	nfail=$((nfail + 1))
}

# The fake program: $MODE says what it does to its last argument, F.
cat >e2journal <<'EOF'
#!/bin/sh
for f; do :; done
f=${f##*=}
eng=${E2JOURNAL_IO:-fast}
case $MODE in
same)	echo x >>"$f"; echo "out" ;;
engine)	echo "$eng" >>"$f" ;;
rc)	[ "$eng" = plain ] && exit 1; exit 0 ;;
stdout)	echo "$eng" ;;
stderr)	echo "$eng" >&2 ;;
create)	[ "$eng" = plain ] && echo made >"$f"; : ;;
stdin)	cat >"$f" ;;
jsb)	# a journal superblock (v2, type 4) at 1 KiB, its s_sequence and
	# checksum drawn by the run, and, with BYTE, one more byte
	seq='\001\002\003\004'
	[ "$eng" = plain ] && seq='\011\012\013\014'
	{
		head -c 1024 /dev/zero
		printf '\300\073\071\230\000\000\000\004'
		head -c 16 /dev/zero
		printf "$seq"
		head -c 224 /dev/zero
		printf "$seq"
		head -c 768 /dev/zero
	} >"$f"
	if [ -n "$BYTE" ] && [ "$eng" = plain ]; then
		printf 'Z' | dd of="$f" bs=1 seek="$BYTE" conv=notrunc 2>/dev/null
	fi
	;;
esac
EOF
chmod +x e2journal

# try MODE EXPECT [ARG...]: run the fake through iodual on file "f"
# (ARGs before it); EXPECT is the DIFF text wanted, or "" for none
try() {
	NAME="$1"
	mode=$1
	want=$2
	shift 2
	: >log
	rm -f f
	# "create" names a file that is not there before
	[ "$mode" = create ] || printf 'base\n' >f
	MODE=$mode BYTE=${BYTE:-} EJ_IODUAL_LOG=$W/log \
		"$IODUAL" "$W/e2journal" "$W/e2journal" "$@" f \
		<stdin.txt >out.txt 2>err.txt
	RC=$?
	checks=$((checks + 1))
	got=$(sed -n 's/^DIFF [^:]*: [^:]*: //p' log)
	if [ -z "$want" ]; then
		[ -z "$got" ] || fail "a difference logged: $got"
	else
		case $got in
		*"$want"*) ;;
		*) fail "wanted \"$want\" logged, got \"$got\"" ;;
		esac
	fi
}
printf 'some input\n' >stdin.txt

try same "" replay
grep -q '^RUN ' log || fail "no RUN line"
[ "$(cat f)" = "$(printf 'base\nx')" ] ||
	fail "the second run did not start from the original file: $(cat f)"
[ "$(cat out.txt)" = out ] || fail "stdout not passed on"
try engine "f differs" replay
try rc "exit 1 plain, 0 fast" dump
[ $RC = 0 ] || fail "the second run's status not given back ($RC)"
try stdout "stdout differs" plan
try stderr "stderr differs" show
try create "f made by one run only" save
try stdin "" replay
[ "$(cat f)" = "some input" ] || fail "the input not given to the run"
try jsb "" replay
BYTE=1100 try jsb "f differs" replay
BYTE=
# a "k=v" argument names a file too
NAME="k=v"
: >log
printf 'base\n' >g
MODE=engine EJ_IODUAL_LOG=$W/log "$IODUAL" "$W/e2journal" e2journal \
	replay --to=g </dev/null >/dev/null 2>&1
checks=$((checks + 1))
grep -q '^DIFF .*g differs' log || fail "--to=g not compared"
# a command that reads no journal runs once, uncompared
NAME="write runs once"
: >log
printf 'base\n' >f
MODE=same EJ_IODUAL_LOG=$W/log "$IODUAL" "$W/e2journal" e2journal \
	write f </dev/null >/dev/null 2>&1
checks=$((checks + 1))
[ "$(cat f)" = "$(printf 'base\nx')" ] || fail "not run exactly once"
[ ! -s log ] || fail "logged: $(cat log)"
# --help too
NAME="--help runs once"
: >log
MODE=same EJ_IODUAL_LOG=$W/log "$IODUAL" "$W/e2journal" e2journal \
	replay --help f </dev/null >/dev/null 2>&1
checks=$((checks + 1))
[ ! -s log ] || fail "logged: $(cat log)"

echo "$checks checks, $nfail failed"
[ $nfail -eq 0 ]
