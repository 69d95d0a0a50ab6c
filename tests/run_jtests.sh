#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# run_jtests.sh: e2journal's journal tests, in e2fsprogs' style.
#
# Every tests/j_*/ directory is a test.  It has "name" (one line saying
# what it checks) and one of:
#   script  a shell script, run in an empty work directory with $T the
#           test directory and this runner's environment;
#   spec    an image recipe (tests/gen/jgen.py): the image is built with
#           mke2fs + debugfs, "e2journal dump" is compared with debugfs'
#           "logdump -a", and the journal is replayed by e2journal and by
#           e2fsprogs' e2fsck, whose results must be the same and match
#           what the recipe logged;
#   config  "kind=random|fuzz|fuzz-replay|e2fsck-diff seed=S count=N
#           [kinds=K,...]":
#           that many generated recipes (random), or damaged journals for
#           "e2journal dump" (fuzz), "e2journal replay" under each policy
#           (fuzz-replay), or our e2fsck against e2fsprogs' and POLICY.md
#           (e2fsck-diff, tests/gen/jfsck.py).
# A test reports results as lines "RESULT PASS|FAIL|SKIP name[: why]"; a
# script that prints none passes with exit 0, is skipped with 77, and
# fails otherwise.
#
# Usage: run_jtests.sh [PATTERN...]   (shell patterns on directory names)
# Environment: top_srcdir, top_builddir, MKE2FS, DEBUGFS, DUMPE2FS,
# E2FSCK_ENGINE (from "make check"); EJ_KEEP=1 keeps the work directory;
# EJ_IO_DUAL=1 runs our e2fsck and e2journal through tests/lib/iodual
# (each run twice, with the plain I/O engine and the fast one, compared;
# differences go to $EJ_IODUAL_LOG: tests/io_engines.sh);
# EJ_REQUIRE=1 fails tests that need an e2journal command not built yet
# instead of skipping them.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
. "$top_srcdir/tests/lib/jtest.sh"

npass=0
nfail=0
nskip=0

if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "SKIP all ($PYTHON not found)"
	echo "0 passed, 0 failed"
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/e2journal-jtests.XXXXXX") || {
	echo "cannot make a work directory" >&2
	exit 99
}
cleanup() {
	if [ "${EJ_KEEP:-0}" = 1 ]; then
		echo "work directory kept: $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Test a copy of the program: "make" may relink it while the tests run.  A
# libtool wrapper script is left where it is (it finds its library).
if [ -f "$E2JOURNAL" ] && [ "$(head -c 4 "$E2JOURNAL" | tr -d '\177')" = ELF ]
then
	mkdir -p "$work/bin"
	cp "$E2JOURNAL" "$work/bin/e2journal" && E2JOURNAL=$work/bin/e2journal
fi
probe_e2journal "$work/probe"
if [ "${EJ_IO_DUAL:-0}" = 1 ]; then
	# tests/lib/iodual (make check builds it) runs each program twice
	iodual=$top_builddir/tests/lib/iodual
	if [ ! -x "$iodual" ]; then
		echo "RESULT FAIL io_engines: $iodual not built (make check)"
		echo "0 passed, 1 failed"
		exit 1
	fi
	mkdir -p "$work/bin/dual"
	for p in "e2journal $E2JOURNAL" \
		 "e2fsck ${E2FSCK:-$top_builddir/e2fsck/e2fsck}"; do
		printf '#!/bin/sh\nexec "%s" "%s" "$0" "$@"\n' \
			"$iodual" "${p#* }" \
			>"$work/bin/dual/${p%% *}"
		chmod +x "$work/bin/dual/${p%% *}"
	done
	E2JOURNAL=$work/bin/dual/e2journal
	E2FSCK=$work/bin/dual/e2fsck
	export E2JOURNAL E2FSCK
fi
[ "$EJ_HAVE_DUMP" = 1 ] || echo "note: $EJ_NO_DUMP"
[ "$EJ_HAVE_REPLAY" = 1 ] || echo "note: $EJ_NO_REPLAY"

# wanted NAME: is the test selected by the command line's patterns?
wanted() {
	[ $# -eq 1 ] && [ -z "$PATTERNS" ] && return 0
	for p in $PATTERNS; do
		case $1 in
		$p) return 0 ;;
		esac
	done
	return 1
}
PATTERNS="$*"

# tally STATUS TEXT: count and print one result; a STATUS other than PASS
# or SKIP is a failure.
tally() {
	case $1 in
	PASS)
		npass=$((npass + 1))
		echo "PASS $2"
		;;
	SKIP)
		nskip=$((nskip + 1))
		echo "SKIP $2"
		;;
	*)
		nfail=$((nfail + 1))
		failed=1
		echo "FAIL $2"
		;;
	esac
}

# report NAME OUT LOG RC: turn a test's output into PASS/FAIL/SKIP lines.
report() {
	local name=$1 out=$2 logf=$3 rc=$4 status rest n=0 failed=0
	while IFS= read -r line; do
		case $line in
		"RESULT "*) ;;
		*) continue ;;
		esac
		line=${line#RESULT }
		status=${line%% *}
		rest=${line#* }
		n=$((n + 1))
		tally "$status" "$rest"
	done <"$out"
	if [ $n -eq 0 ]; then
		case $rc in
		0) tally PASS "$name" ;;
		77) tally SKIP "$name" ;;
		*) tally FAIL "$name (exit $rc)" ;;
		esac
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		tally FAIL "$name (exit $rc after its results)"
	fi
	if [ $failed = 1 ]; then
		echo "---- $name: end of its log ($logf)"
		tail -n 40 "$logf" | sed -e 's/^/    /'
		echo "----"
	fi
}

# config_value FILE KEY DEFAULT
config_value() {
	local v
	v=$(sed -n -e "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$1" |
		tail -n 1)
	echo "${v:-$3}"
}

for dir in "$top_srcdir"/tests/j_*/; do
	[ -d "$dir" ] || continue
	dir=${dir%/}
	name=${dir##*/}
	wanted "$name" || continue
	tw=$work/$name
	mkdir -p "$tw"
	out=$tw/.out
	logf=$tw/.log
	if [ -f "$dir/script" ]; then
		(cd "$tw" && T=$dir WORK=$tw sh "$dir/script") >"$out" 2>"$logf"
		rc=$?
	elif [ -f "$dir/spec" ]; then
		jgen run --spec "$dir/spec" --name "$name" --work "$tw" \
			>"$out" 2>"$logf"
		rc=$?
	elif [ -f "$dir/config" ]; then
		kind=$(config_value "$dir/config" kind random)
		seed=$(config_value "$dir/config" seed 1)
		count=$(config_value "$dir/config" count 1)
		kinds=$(config_value "$dir/config" kinds "")
		case $kind in
		fuzz|fuzz-replay)
			target=dump
			[ "$kind" = fuzz-replay ] && target=replay
			vg=
			if command -v valgrind >/dev/null 2>&1 &&
			   [ "${EJ_VALGRIND:-1}" = 1 ]; then
				vg="valgrind -q --error-exitcode=99"
				# A libtool wrapper script is not the program.
				[ -x "$top_builddir/libtool" ] &&
					vg="$top_builddir/libtool --mode=execute $vg"
			fi
			jgen fuzz --seed "$seed" --count "$count" \
				--target $target --name "$name" --work "$tw" \
				--valgrind "$vg" >"$out" 2>"$logf"
			;;
		e2fsck-diff)
			E2FSCK_OURS=${E2FSCK:-$top_builddir/e2fsck/e2fsck} \
				"$PYTHON" "$top_srcdir/tests/gen/jfsck.py" \
				--seed "$seed" --count "$count" --name "$name" \
				${kinds:+--kinds "$kinds"} \
				--work "$tw" >"$out" 2>"$logf"
			;;
		*)
			jgen random --seed "$seed" --count "$count" \
				--name "$name" --work "$tw" >"$out" 2>"$logf"
			;;
		esac
		rc=$?
	else
		echo "RESULT FAIL $name: no script, spec or config" >"$out"
		: >"$logf"
		rc=1
	fi
	report "$name" "$out" "$logf" "$rc"
	[ "${EJ_KEEP:-0}" = 1 ] || [ -n "$(grep '^RESULT FAIL' "$out")" ] ||
		rm -rf "$tw"
done

[ $nskip -gt 0 ] && echo "$nskip skipped"
echo "$npass passed, $nfail failed"
[ $nfail -eq 0 ]
