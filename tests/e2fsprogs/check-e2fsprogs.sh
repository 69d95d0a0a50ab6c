#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-e2fsprogs.sh - run e2fsprogs 1.47.0's own test suite on our e2fsck.
#
# Fetches Debian's e2fsprogs 1.47.0-2 source package (apt-get source; a
# deb-src entry is added under /etc/apt/sources.list.d/ when there is
# none), builds it once into BUILDDIR/.cache/e2fsprogs/, and puts a copy
# of our e2fsck/e2fsck in the place of its e2fsck/e2fsck.  The suite runs
# "../e2fsck/e2fsck" from its tests/ directory, so the copy is run under
# that name, which e2fsck prints in its messages (argv[0]); e2fsprogs' own
# binary is kept as e2fsck/e2fsck.e2fsprogs.
#
# The whole suite ("make -C tests check", slow tests skipped as by
# default) is then run up to three times:
#
#   stock       e2fsprogs' own e2fsck, once per cache: which tests fail on
#               this host whatever e2fsck is (measured on the development
#               machine: m_assume_storage_prezeroed, which depends on the
#               host's filesystem);
#   stop        ours, with an e2fsck.conf saying "journal_policy = stop"
#               (E2FSCK_CONFIG in a copy of the suite's test_config, which
#               otherwise sets it to /dev/null): must fail exactly the
#               stock set;
#   replay-all  ours with the suite's own test_config (no e2fsck.conf:
#               our default policy): must fail exactly the stock set plus
#               the tests listed in tests/e2fsprogs/replay-all.list, each
#               explained in doc/e2fsprogs-suite.md.
#
# With --stock-list the stock run is skipped: its failures are taken from
# tests/e2fsprogs/stock.list, and e2fsprogs' e2fsck is run afterwards only
# on the tests whose outcome was not the expected one.  Last, our tests
# of the replay-all list (tests/j_e2fsprogs_*) are run.
#
# The last line reads "check-e2fsprogs: PASS" or "check-e2fsprogs: FAIL".
set -euo pipefail
export LC_ALL=C

usage() {
	cat <<'EOF'
Usage: check-e2fsprogs.sh [options] [BUILDDIR]

BUILDDIR is the project's build directory (e2fsck/e2fsck is taken from it,
.cache/e2fsprogs is made in it); default: the current directory.

Options:
  --source DIR   use this unpacked e2fsprogs 1.47.0 source tree (copied
                 into the cache) instead of "apt-get source"
  --policy P     run only P: stop or replay-all (default: both)
  --tests LIST   run only these suite tests (space-separated names); the
                 expected sets are cut down to them
  --jobs N       make -jN for the build and the suite [2]
  --no-install   never run apt-get; fail if something is missing
  --rebuild      throw away the cached build and build again
  --stock-list   do not run the whole suite with e2fsprogs' e2fsck: take
                 its failures from tests/e2fsprogs/stock.list and run it
                 only on the tests whose outcome is not the expected one
  -h, --help     this text
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=$(cd "$here/../.." && pwd)
builddir=.
source_dir=""
policies="stop replay-all"
only_tests=""
jobs=2
install=1
rebuild=0
stock_list=0

while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--source) source_dir=$2; shift 2 ;;
	--policy) policies=$2; shift 2 ;;
	--tests) only_tests=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--no-install) install=0; shift ;;
	--rebuild) rebuild=1; shift ;;
	--stock-list) stock_list=1; shift ;;
	-*) echo "check-e2fsprogs: unknown option $1" >&2; exit 16 ;;
	*) builddir=$1; shift ;;
	esac
done
for p in $policies; do
	case $p in
	stop|replay-all) ;;
	*) echo "check-e2fsprogs: unknown policy $p" >&2; exit 16 ;;
	esac
done
builddir=$(cd "$builddir" && pwd)

STEP_PROG=check-e2fsprogs
. "$top_srcdir/scripts/steps.sh"
. "$top_srcdir/tests/lib/e2fsprogs_src.sh"

version=$e2src_version
cache=$builddir/.cache/e2fsprogs
src=$cache/e2fsprogs-$version
ours=$builddir/e2fsck/e2fsck
replay_list=$here/replay-all.list

build_source() {
	step "configure and build e2fsprogs $version in $src"
	(cd "$src" && ./configure --quiet >"$cache/configure.log" 2>&1) ||
		die "configure failed (see $cache/configure.log)"
	(cd "$src" && make -j"$jobs" >"$cache/build.log" 2>&1) ||
		die "build failed (see $cache/build.log)"
	cp "$src/e2fsck/e2fsck" "$src/e2fsck/e2fsck.e2fsprogs"
	touch "$src/.e2journal-built"
}

# ------------------------------------------------------------ the suite
# run_suite LABEL TEST_CONFIG: the suite in $src/tests; its failures,
# sorted, in $cache/LABEL.failed, its logs under $cache/results/LABEL/.
run_suite() {
	local label=$1 config=$2 out
	out=$cache/results/$label
	rm -rf "$out"
	mkdir -p "$out"
	(cd "$src/tests" && rm -f ./*.ok ./*.failed ./*.log ./*.slow)
	if [[ -n $only_tests ]]; then
		# one after the other, as "make check" would run them
		(cd "$src/tests" && make test_one test_script >/dev/null &&
			TEST_CONFIG=$config ./test_script $only_tests) \
			>"$out/suite.log" 2>&1 || true
	else
		(cd "$src/tests" && TEST_CONFIG=$config make -j"$jobs" check) \
			>"$out/suite.log" 2>&1 || true
	fi
	(cd "$src/tests" && ls ./*.failed 2>/dev/null || true) |
		sed -e 's;^\./;;' -e 's/\.failed$//' | sort >"$cache/$label.failed"
	(cd "$src/tests" && for f in ./*.failed; do
		[[ -f $f ]] && cp "$f" "$out/"
	done) || true
	grep -E "tests succeeded" "$out/suite.log" | tail -n 1 |
		sed -e "s/^/  $label: /" || log "  $label: no summary (see $out/suite.log)"
}

# install_e2fsck WHICH: "ours" or "stock" in the place of e2fsck/e2fsck.
install_e2fsck() {
	if [[ $1 == ours ]]; then
		cp "$ours" "$src/e2fsck/e2fsck.new"
	else
		cp "$src/e2fsck/e2fsck.e2fsprogs" "$src/e2fsck/e2fsck.new"
	fi
	mv -f "$src/e2fsck/e2fsck.new" "$src/e2fsck/e2fsck"
}

# cut_to_selection: keep only the selected tests (with --tests) of stdin.
cut_to_selection() {
	local t all
	all=$(cat)
	if [[ -z $only_tests ]]; then
		printf '%s\n' "$all"
		return
	fi
	for t in $only_tests; do
		printf '%s\n' "$all" | grep -Fx "$t" || true
	done
}

# compare LABEL EXPECTED-FILE
compare() {
	local label=$1 expected=$2 extra missing
	extra=$(comm -13 "$expected" "$cache/$label.failed" | tr '\n' ' ')
	missing=$(comm -23 "$expected" "$cache/$label.failed" | tr '\n' ' ')
	log "  $label failed: $(tr '\n' ' ' <"$cache/$label.failed")"
	if [[ -z $extra && -z $missing ]]; then
		log "  $label: as expected"
		return 0
	fi
	[[ -n $extra ]] && log "  $label: UNEXPECTED failures: $extra (diffs in $cache/results/$label/)"
	[[ -n $missing ]] && log "  $label: expected to fail but passed: $missing"
	return 1
}

# ------------------------------------------------------------ main
[[ -x $ours ]] || die "$ours not built (run make first)"
grep -q e2journal_engine_marker "$ours" ||
	die "$ours is not e2journal's e2fsck"
mkdir -p "$cache"
engine=$("$ours" -V 2>&1 | sed -n 's/.*passes 1-5: //p')
log "check-e2fsprogs: our e2fsck's engine: $engine, $("$engine" -V 2>&1 | head -n 1)"

step "tools"
# shellcheck disable=SC2119  # no tools beyond the common ones
e2src_need_pkgs

if [[ $rebuild -eq 1 ]]; then
	rm -rf "$src"
fi
if [[ ! -f $src/.e2journal-built ]]; then
	if [[ ! -d $src ]]; then
		step "fetch e2fsprogs $e2src_debversion source"
		e2src_fetch "$src" "$cache"
	fi
	build_source
	rm -f "$cache/stock.failed"
else
	log "check-e2fsprogs: using the cached build in $src"
fi

# the e2fsck.conf for stop, and a test_config that points at it
e2src_stop_config "$cache" "$src/tests"

# expected_for P: the failures expected under policy P, given
# $cache/stock.failed, in $cache/P.expected.
expected_for() {
	case $1 in
	stop)
		cp "$cache/stock.failed" "$cache/stop.expected"
		;;
	replay-all)
		{
			cat "$cache/stock.failed"
			e2src_list "$replay_list" | cut_to_selection
		} | sed -e '/^$/d' | sort -u >"$cache/replay-all.expected"
		;;
	esac
}

# the stock failures: measured once per build (and per selection), or,
# with --stock-list, taken from tests/e2fsprogs/stock.list and measured
# only for the tests whose outcome is not the expected one
stock_key=$(printf '%s' "${only_tests:-all}" | cksum | cut -d' ' -f1)
stock_assumed=0
if [[ -f $cache/stock.failed && -f $cache/stock.key &&
      $(cat "$cache/stock.key") == "$stock_key" ]]; then
	log "check-e2fsprogs: stock failures from the cache: $(tr '\n' ' ' <"$cache/stock.failed")"
elif [[ $stock_list -eq 1 ]]; then
	e2src_list "$here/stock.list" | cut_to_selection | sed -e '/^$/d' | sort -u >"$cache/stock.failed"
	stock_assumed=1
	rm -f "$cache/stock.key"
	log "check-e2fsprogs: stock failures assumed from tests/e2fsprogs/stock.list: $(tr '\n' ' ' <"$cache/stock.failed")"
else
	step "suite with e2fsprogs' own e2fsck (stock; kept in the cache)"
	install_e2fsck stock
	run_suite stock "$src/tests/test_config"
	echo "$stock_key" >"$cache/stock.key"
fi

install_e2fsck ours
status=0
for p in $policies; do
	case $p in
	stop)
		step "suite with our e2fsck, e2fsck.conf journal_policy = stop"
		run_suite stop "$cache/test_config.stop"
		;;
	replay-all)
		step "suite with our e2fsck, default policy (replay-all)"
		run_suite replay-all "$src/tests/test_config"
		;;
	esac
	expected_for "$p"
done

# --stock-list: the tests whose outcome is not the expected one are run
# with e2fsprogs' e2fsck, which says what this host makes of them
if [[ $stock_assumed -eq 1 ]]; then
	odd=$(for p in $policies; do
		comm -3 "$cache/$p.expected" "$cache/$p.failed" | tr -d '\t'
	done | sort -u | tr '\n' ' ')
	if [[ -n ${odd// /} ]]; then
		step "e2fsprogs' own e2fsck on the unexpected ones: $odd"
		install_e2fsck stock
		saved_tests=$only_tests
		only_tests=$odd
		run_suite stock-check "$src/tests/test_config"
		only_tests=$saved_tests
		install_e2fsck ours
		{
			comm -23 "$cache/stock.failed" \
				<(printf '%s\n' $odd | sort -u)
			cat "$cache/stock-check.failed"
		} | sed -e '/^$/d' | sort -u >"$cache/stock.failed.new"
		mv "$cache/stock.failed.new" "$cache/stock.failed"
		log "  stock failures on this host: $(tr '\n' ' ' <"$cache/stock.failed")"
		for p in $policies; do
			expected_for "$p"
		done
	fi
fi
for p in $policies; do
	compare "$p" "$cache/$p.expected" || status=1
done
install_e2fsck stock

# our tests of the replay-all list: one per listed test, each passing
if [[ " $policies " == *" replay-all "* ]]; then
	step "our tests of the replay-all list (tests/j_e2fsprogs_*)"
	pats=()
	while read -r t; do
		[[ -z $t ]] && continue
		if [[ ! -f $top_srcdir/tests/j_e2fsprogs_${t#j_}/expect ]]; then
			log "  no test of ours for $t: tests/j_e2fsprogs_${t#j_}/expect"
			status=1
		fi
		pats+=("j_e2fsprogs_${t#j_}")
	done < <(e2src_list "$replay_list" | cut_to_selection)
	if [[ ${#pats[@]} -gt 0 ]]; then
		top_srcdir=$top_srcdir top_builddir=$builddir \
			E2FSPROGS_TESTS=$src/tests \
			sh "$top_srcdir/tests/run_jtests.sh" "${pats[@]}" \
			>"$cache/results/jtests.log" 2>&1 || status=1
		sed -e 's/^/  /' "$cache/results/jtests.log" | grep -v '^  ----\|^    ' || true
		grep -q '^SKIP' "$cache/results/jtests.log" && status=1
	fi
fi

step "done"
if [[ $status -eq 0 ]]; then
	log "check-e2fsprogs: PASS"
else
	log "check-e2fsprogs: FAIL"
fi
exit $status
