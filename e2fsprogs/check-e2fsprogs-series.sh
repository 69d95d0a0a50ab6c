#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-e2fsprogs-series.sh - apply e2fsprogs/patches to e2fsprogs 1.47.0,
# build every step, and test the result ("make check-e2fsprogs-series").
#
#  1. source: Debian's e2fsprogs 1.47.0-2 (apt-get source, a deb-src
#     entry added when there is none; or --source DIR), kept unpacked in
#     BUILDDIR/.cache/e2fsprogs-series/pristine;
#  2. the series is generated again from the project's files
#     (mkseries.sh) and must be e2fsprogs/patches byte for byte (with
#     --regenerate it is written there instead, and the check ends);
#  3. a git copy of the source takes the patches one by one with git am,
#     and e2fsprogs is built (out of tree, -jN) after each: every step
#     must build with -Wall -Wextra without a warning in the files the
#     series touches;
#  4. e2fsprogs' whole "make check" on the patched tree, under the
#     default policy (replay-all), must fail only what the same suite
#     fails with e2fsprogs unpatched (built and run here too, unless
#     --stock-list: tests/e2fsprogs/stock.list), and the tests whose
#     expectations the series updates must pass; then once more with an
#     e2fsck.conf saying journal_policy = stop and the suite's original
#     expectations, which must fail only what stock fails;
#  5. the conformance corpus (tests/conformance/run.sh --fsck with
#     -E journal_policy=stop) against the patched e2fsck must give
#     reference-1.47.0.txt;
#  6. the project's tests with the patched e2fsck in ours' place
#     (E2FSCK_UNDER_TEST): tests/e2fsck/diff_engine.sh (stop against
#     e2fsprogs 1.47.0, every journal problem, six option sets) and
#     tests/j_e2fsprogs_* (stop: e2fsprogs' expected output, with the
#     suite's original expectations; replay-all: ours);
#  7. e2fsprogs/compare.sh: the patched e2fsck against ours on damaged
#     journals under each policy (replay-all, stop, refuse): the same
#     exit status, the same report lines, the same filesystem.
#
# The last line reads "check-e2fsprogs-series: PASS" or "... FAIL".
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: check-e2fsprogs-series.sh [options] [BUILDDIR]

BUILDDIR is the project's build directory (its e2fsck/e2fsck is "ours";
.cache/e2fsprogs-series is made in it); default: the current directory.

Options:
  --source DIR    an unpacked e2fsprogs 1.47.0 source instead of apt-get
  --regenerate    write e2fsprogs/patches from the project's files and stop
  --jobs N        make -jN [2]
  --stock-list    do not build and run unpatched e2fsprogs: take its
                  failures from tests/e2fsprogs/stock.list
  --no-bisect     build only the last step
  --no-install    never run apt-get
  -h, --help      this text
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/.." && pwd)
builddir=.
source_dir=""
regenerate=0
jobs=2
stock_list=0
bisect=1
install=1
while [[ $# -gt 0 ]]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--source) source_dir=$2; shift 2 ;;
	--regenerate) regenerate=1; shift ;;
	--jobs) jobs=$2; shift 2 ;;
	--stock-list) stock_list=1; shift ;;
	--no-bisect) bisect=0; shift ;;
	--no-install) install=0; shift ;;
	-*) echo "check-e2fsprogs-series: unknown option $1" >&2; exit 16 ;;
	*) builddir=$1; shift ;;
	esac
done
builddir=$(cd "$builddir" && pwd)

STEP_PROG=check-e2fsprogs-series
. "$top_srcdir/scripts/steps.sh"
. "$top_srcdir/tests/lib/e2fsprogs_src.sh"

version=$e2src_version
cache=$builddir/.cache/e2fsprogs-series
pristine=$cache/pristine
ours=$builddir/e2fsck/e2fsck
# the suite's tests whose expectations the series updates
updated=$top_srcdir/tests/e2fsprogs/replay-all.list

# ------------------------------------------------------------ building
# configure_in DIR SRC: an out-of-tree build of SRC in DIR.
configure_in() {
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$1" && "$2/configure" --quiet) >"$1.configure.log" 2>&1 ||
		die "configure of $2 failed (see $1.configure.log)"
}

# build_in DIR LOG [CFLAGS]
build_in() {
	if [[ -n ${3:-} ]]; then
		(cd "$1" && make -j"$jobs" CFLAGS="$3") >"$2" 2>&1
	else
		(cd "$1" && make -j"$jobs") >"$2" 2>&1
	fi
}

# run_suite DIR LABEL [TEST_CONFIG]: e2fsprogs' make check in build DIR;
# the failed tests of its tests/ in $cache/LABEL.failed.
run_suite() {
	local dir=$1 label=$2 config=${3:-}
	(cd "$dir/tests" && rm -f ./*.ok ./*.failed ./*.log)
	if [[ -n $config ]]; then
		(cd "$dir/tests" && TEST_CONFIG=$config make -j"$jobs" check) \
			>"$cache/$label.suite.log" 2>&1 || true
	else
		(cd "$dir" && make -j"$jobs" check) \
			>"$cache/$label.suite.log" 2>&1 || true
	fi
	(cd "$dir/tests" && ls ./*.failed 2>/dev/null || true) |
		sed -e 's;^\./;;' -e 's/\.failed$//' | sort >"$cache/$label.failed"
	log "  $label: $(grep -E 'tests succeeded' "$cache/$label.suite.log" | tail -n 1)"
	log "  $label failed: $(tr '\n' ' ' <"$cache/$label.failed")"
	# a unit test of lib/ failing stops make before tests/ ran
	grep -q 'tests succeeded' "$cache/$label.suite.log" ||
		{ log "  $label: the suite did not run to its end (see $cache/$label.suite.log)"; return 1; }
}

list_of() {
	e2src_list "$1" | sort -u
}

# ------------------------------------------------------------ main
mkdir -p "$cache"
status=0

step "tools"
e2src_need_pkgs git:git patch:patch python3:python3

step "source"
if [[ ! -f $pristine/version.h ]]; then
	e2src_fetch "$pristine" "$cache"
else
	log "using $pristine"
fi
# quilt's record of Debian's patches (apt-get source) is no part of it
rm -rf "$pristine/.pc"

step "generate the series from the project's files"
gen=$cache/generated
rm -rf "$gen"
"$here/mkseries.sh" --source "$pristine" --out "$gen" --keep-tree "$cache/tree"
if [[ $regenerate -eq 1 ]]; then
	rm -f "$here"/patches/*.patch "$here/patches/series"
	cp "$gen"/* "$here/patches/"
	log "wrote $here/patches: $(tr '\n' ' ' <"$here/patches/series")"
	exit 0
fi
if diff -r "$gen" "$here/patches" >"$cache/generated.diff"; then
	log "  e2fsprogs/patches is what mkseries.sh makes"
else
	log "  e2fsprogs/patches is NOT what mkseries.sh makes (see $cache/generated.diff; make e2fsprogs-series)"
	status=1
fi

step "apply the series with git am, building each step"
src=$cache/src
rm -rf "$src"
cp -a "$pristine" "$src"
(
	cd "$src"
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	git init -q
	git add -A
	git -c user.name=check -c user.email=check@e2journal.invalid \
		commit -q -m "e2fsprogs $version"
)
configure_in "$cache/build" "$src"
mapfile -t patches < <(sed -e '/^#/d' -e '/^$/d' "$here/patches/series")
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	(cd "$src" && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
		git -c user.name=check -c user.email=check@e2journal.invalid \
		am -q "$here/patches/$p") >"$cache/am.log" 2>&1 ||
		die "git am $p failed (see $cache/am.log)"
	if [[ $bisect -eq 1 || $n -eq ${#patches[@]} ]]; then
		if build_in "$cache/build" "$cache/build-$n.log" \
			"-g -O2 -Wall -Wextra"; then
			files=$(cd "$src" && git diff --name-only HEAD~1 HEAD -- '*.c' '*.h' |
				sed -e 's;.*/;;' | sort -u | tr '\n' '|')
			warn=$(grep -E "(${files%|}):[0-9]+:[0-9]+: warning" \
				"$cache/build-$n.log" || true)
			if [[ -n $warn ]]; then
				log "  $p: builds, with warnings:"
				printf '%s\n' "$warn" | sed -e 's/^/    /'
				status=1
			else
				log "  $p: builds"
			fi
		else
			log "  $p: does NOT build (see $cache/build-$n.log)"
			status=1
		fi
	else
		log "  $p: applied"
	fi
done
patched_e2fsck=$cache/build/e2fsck/e2fsck
[[ -x $patched_e2fsck ]] || die "no patched e2fsck was built"

step "e2fsprogs' failures unpatched"
if [[ $stock_list -eq 1 ]]; then
	list_of "$top_srcdir/tests/e2fsprogs/stock.list" >"$cache/stock.failed"
	log "  from tests/e2fsprogs/stock.list: $(tr '\n' ' ' <"$cache/stock.failed")"
elif [[ -f $cache/stock.failed && -f $cache/stock-build/.suite-done ]]; then
	log "  from the cache: $(tr '\n' ' ' <"$cache/stock.failed")"
else
	configure_in "$cache/stock-build" "$pristine"
	build_in "$cache/stock-build" "$cache/stock-build.log" ||
		die "unpatched e2fsprogs does not build (see $cache/stock-build.log)"
	run_suite "$cache/stock-build" stock || status=1
	touch "$cache/stock-build/.suite-done"
fi

step "e2fsprogs' make check on the patched tree (default policy, replay-all)"
run_suite "$cache/build" patched || status=1
list_of "$updated" >"$cache/updated.list"
# the updated tests must pass; nothing may fail that stock passes
extra=$(comm -13 "$cache/stock.failed" "$cache/patched.failed" | tr '\n' ' ')
bad=$(comm -12 "$cache/updated.list" "$cache/patched.failed" | tr '\n' ' ')
if [[ -n ${extra// /} || -n ${bad// /} ]]; then
	[[ -n ${extra// /} ]] && log "  UNEXPECTED failures: $extra (logs in $cache/build/tests/)"
	[[ -n ${bad// /} ]] && log "  the series' updated tests fail: $bad"
	status=1
else
	log "  as expected: only what stock fails, the $(wc -l <"$cache/updated.list") updated tests pass"
fi

step "the suite again under journal_policy = stop, with the original expectations"
e2src_stop_config "$cache" "$src/tests"
base=$(cd "$src" && git rev-list --max-parents=0 HEAD)
(cd "$src" && git diff --name-only "$base" HEAD -- tests) >"$cache/changed-tests"
(cd "$src" && xargs -r git checkout "$base" -- <"$cache/changed-tests")
run_suite "$cache/build" stop "$cache/test_config.stop" || status=1
(cd "$src" && xargs -r git checkout HEAD -- <"$cache/changed-tests")
if cmp -s "$cache/stock.failed" "$cache/stop.failed"; then
	log "  as expected: only what stock fails"
else
	log "  UNEXPECTED: stop fails $(tr '\n' ' ' <"$cache/stop.failed"), stock $(tr '\n' ' ' <"$cache/stock.failed")"
	status=1
fi

step "conformance corpus, -E journal_policy=stop"
conf=${CONFORMANCE_DIR:-$top_srcdir/tests/conformance}
if [[ ! -x $conf/run.sh || ! -f $conf/reference-1.47.0.txt ]]; then
	log "  no conformance corpus in $conf"
	status=1
else
	(cd "$cache" && "$conf/run.sh" \
		--fsck "$patched_e2fsck -E journal_policy=stop") \
		>"$cache/conformance.txt" 2>&1 || true
	if diff -u "$conf/reference-1.47.0.txt" "$cache/conformance.txt" \
		>"$cache/conformance.diff"; then
		log "  $(tail -n 1 "$cache/conformance.txt"), as reference-1.47.0.txt"
	else
		log "  differs from reference-1.47.0.txt (see $cache/conformance.diff)"
		status=1
	fi
fi

step "the project's tests with the patched e2fsck in ours' place"
mkdir -p "$cache/bin"
cp "$patched_e2fsck" "$cache/bin/e2fsck"
if E2FSCK_UNDER_TEST=$cache/bin/e2fsck top_srcdir=$top_srcdir \
	top_builddir=$builddir bash "$top_srcdir/tests/e2fsck/diff_engine.sh" \
	>"$cache/diff_engine.log" 2>&1; then
	log "  tests/e2fsck/diff_engine.sh: $(tail -n 1 "$cache/diff_engine.log")"
else
	grep '^FAIL' "$cache/diff_engine.log" | head -n 10 | sed -e 's/^/  /'
	log "  tests/e2fsck/diff_engine.sh: $(tail -n 1 "$cache/diff_engine.log") (see $cache/diff_engine.log)"
	status=1
fi
if E2FSCK_UNDER_TEST=$cache/bin/e2fsck E2FSPROGS_TESTS=$pristine/tests \
	top_srcdir=$top_srcdir top_builddir=$builddir \
	sh "$top_srcdir/tests/run_jtests.sh" 'j_e2fsprogs_*' \
	>"$cache/jtests.log" 2>&1 && ! grep -q '^SKIP' "$cache/jtests.log"; then
	log "  tests/j_e2fsprogs_*: $(tail -n 1 "$cache/jtests.log")"
else
	grep -E '^(FAIL|SKIP)' "$cache/jtests.log" | head -n 10 | sed -e 's/^/  /'
	log "  tests/j_e2fsprogs_*: $(tail -n 1 "$cache/jtests.log") (see $cache/jtests.log)"
	status=1
fi

step "the patched e2fsck against ours, under each policy"
if [[ -x $here/compare.sh ]]; then
	if "$here/compare.sh" --ours "$ours" --patched "$patched_e2fsck" \
		--e2journal "$builddir/misc/e2journal" \
		--suite "$src/tests" >"$cache/compare.log" 2>&1; then
		log "  $(tail -n 1 "$cache/compare.log")"
	else
		grep -E '^(FAIL|DIFF)' "$cache/compare.log" | head -n 20 | sed -e 's/^/  /'
		log "  $(tail -n 1 "$cache/compare.log") (see $cache/compare.log)"
		status=1
	fi
else
	log "  e2fsprogs/compare.sh not there; skipped"
fi

step "done"
if [[ $status -eq 0 ]]; then
	log "check-e2fsprogs-series: PASS"
else
	log "check-e2fsprogs-series: FAIL"
fi
exit $status
