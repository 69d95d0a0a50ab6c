#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-upstream.sh - "make check-e2fsprogs-upstream E2FSPROGS_SRC=DIR":
# the bug-fix series of e2fsprogs/master/patches on e2fsprogs master.
#
# DIR is a checkout of the commit master/README.md names ("Base:"); the
# files the series changes must have master/base-blobs' ids.  Its
# source files (those of its git index when DIR is a git work tree, so
# that a built tree does too) are copied twice under the work directory:
#
#  1. pristine/ as it is, patched/ with the series applied by git am,
#     patch by patch;
#  2. both configured and built (nice, make -jN);
#  3. e2fsprogs' whole "make check" (lib unit tests and tests/) on both;
#     every test of tests/ that passes on pristine/ must pass on
#     patched/;
#  4. each test the series adds (a tests/ directory that pristine/ does
#     not have) must pass in patched/'s suite, and fail when run with
#     test_one in pristine/ (the directory copied there); a test of
#     be_only below fails pristine only on a big-endian host, and on a
#     little-endian one must pass there too; one of le_only the other
#     way round.
#
# Without a source it says so and exits 0 (CI cannot fetch e2fsprogs).
# The last line reads "check-e2fsprogs-upstream: PASS", "... FAIL" or
# "... SKIP".  Exit 0 pass or skip, 1 fail.
set -uo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patches=$here/patches
source_dir=""
work=""
jobs=2
fails=0

usage() {
	cat <<'EOF'
Usage: check-upstream.sh [--source DIR] [--work DIR] [--jobs N]

  --source DIR  a checkout of the e2fsprogs commit master/README.md names
                (empty or absent: say so and skip)
  --work DIR    where the two trees are built
                [${TMPDIR:-/tmp}/e2fsprogs-upstream.XXXXXX, removed after]
  --jobs N      make -j N [2]
EOF
}

say() {
	echo "check-e2fsprogs-upstream: $*"
}

pass() {
	echo "PASS $*"
}

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

while [[ $# -gt 0 ]]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--source) source_dir=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	*) usage >&2; exit 16 ;;
	esac
done

base=$(sed -n -e 's/^Base: e2fsprogs master \([0-9a-f]*\) .*$/\1/p' \
	"$here/README.md")
if [[ -z $source_dir ]]; then
	say "no e2fsprogs source given: nothing was run"
	say "run it as: make check-e2fsprogs-upstream E2FSPROGS_SRC=DIR, DIR a checkout of e2fsprogs master $base"
	say "SKIP"
	exit 0
fi

[[ -x $source_dir/configure && -f $source_dir/e2fsck/recovery.c ]] || {
	say "$source_dir is not an e2fsprogs source tree"
	say FAIL
	exit 1
}
source_dir=$(cd "$source_dir" && pwd)

# 0. the source is the base commit (for the files the series changes)
bad=0
while read -r want f; do
	got=$(git hash-object "$source_dir/$f" 2>/dev/null || echo missing)
	if [[ $got != "$want" ]]; then
		echo "    $f is $got, the base commit's is $want"
		bad=1
	fi
done <"$here/base-blobs"
if [[ $bad -ne 0 ]]; then
	fail "source: $source_dir is not e2fsprogs master $base"
	say FAIL
	exit 1
fi
pass "source: the files the series changes are master $base's"

if [[ -z $work ]]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/e2fsprogs-upstream.XXXXXX") || exit 99
	trap 'rm -rf "$work"' EXIT
else
	mkdir -p "$work" || exit 99
	work=$(cd "$work" && pwd)
	rm -rf "$work/pristine" "$work/patched"
fi

copy_source() {
	mkdir -p "$2"
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$1" && git ls-files -z | tar --null -T - -cf -) |
			(cd "$2" && tar -xf -)
	else
		cp -a "$1/." "$2"
		rm -rf "$2/.git" "$2/.pc"
		if [[ -f $2/Makefile ]]; then
			make -C "$2" distclean >/dev/null 2>&1
		fi
	fi
}

elapsed() {
	echo "$(($(date +%s) - $1)) s"
}

# 1. the two trees
t0=$(date +%s)
copy_source "$source_dir" "$work/pristine"
copy_source "$source_dir" "$work/patched"
(
	cd "$work/patched" &&
	git init -q &&
	git add -A &&
	git -c user.name=check-upstream -c user.email=check@invalid \
		commit -q --no-verify -m "e2fsprogs master $base" &&
	while read -r p; do
		git -c user.name=check-upstream -c user.email=check@invalid \
			am -q "$patches/$p" || {
			echo "    git am $p failed"
			exit 1
		}
	done < <(sed -e '/^#/d' -e '/^$/d' "$patches/series")
) >"$work/am.log" 2>&1
if [[ $? -ne 0 ]]; then
	sed -e 's/^/    /' "$work/am.log"
	fail "apply: the series does not apply"
	say FAIL
	exit 1
fi
npatches=$(sed -e '/^#/d' -e '/^$/d' "$patches/series" | wc -l)
pass "apply: $npatches patches, git am ($(elapsed "$t0"))"

# 2. build
build() {
	(
		cd "$1" &&
		./configure >"$1.configure.log" 2>&1 &&
		nice -n 19 make -j"$jobs" >"$1.build.log" 2>&1
	)
}
for tree in pristine patched; do
	t0=$(date +%s)
	if build "$work/$tree"; then
		pass "build: $tree ($(elapsed "$t0"))"
	else
		tail -n 20 "$work/$tree.build.log" 2>/dev/null | sed -e 's/^/    /'
		fail "build: $tree (see $work/$tree.build.log)"
		say FAIL
		exit 1
	fi
done

# 3. the whole suite on both
suite() {
	(
		cd "$1" &&
		nice -n 19 make -k -j"$jobs" check >"$1.check.log" 2>&1
	)
	(cd "$1/tests" && ls -d -- *.ok 2>/dev/null | sed -e 's/\.ok$//') |
		sort >"$1.pass"
	(cd "$1/tests" && ls -d -- *.failed 2>/dev/null |
		sed -e 's/\.failed$//') | sort >"$1.fail"
}
for tree in pristine patched; do
	t0=$(date +%s)
	suite "$work/$tree"
	echo "    $tree: $(wc -l <"$work/$tree.pass") passed," \
		"$(wc -l <"$work/$tree.fail") failed" \
		"($(elapsed "$t0"))"
	[[ -s $work/$tree.fail ]] &&
		echo "    $tree failed: $(tr '\n' ' ' <"$work/$tree.fail")"
done
regress=$(comm -12 "$work/pristine.pass" "$work/patched.fail")
lost=$(comm -23 "$work/pristine.pass" \
	<(sort -u "$work/patched.pass" "$work/patched.fail"))
if [[ -z $regress && -z $lost ]]; then
	pass "suite: every test that passes pristine passes patched" \
		"($(wc -l <"$work/pristine.pass") pristine," \
		"$(wc -l <"$work/patched.pass") patched)"
else
	[[ -n $regress ]] && echo "    fail patched only: $(echo $regress)"
	[[ -n $lost ]] && echo "    not run patched: $(echo $lost)"
	fail "suite: tests that pass pristine do not pass patched"
fi

# 4. the new tests
# tests whose bug shows only on a big-endian host, or only on a
# little-endian one (master/README.md)
be_only=" f_clear_inode_iblock_order "
le_only=" j_revoke_hash_size j_revoke_hash_size_debugfs "
little_endian=
[[ $(printf '\001\000\000\000' | od -A n -t u4 | tr -d ' ') == 1 ]] &&
	little_endian=1
mapfile -t new < <(comm -13 <(cd "$work/pristine/tests" && ls -d [a-z]_*/ |
	tr -d / | sort) <(cd "$work/patched/tests" && ls -d [a-z]_*/ |
	tr -d / | sort))
if [[ ${#new[@]} -eq 0 ]]; then
	fail "new tests: the series adds none"
fi
for t in "${new[@]}"; do
	if grep -qx "$t" "$work/patched.pass"; then
		p=ok
	else
		p=failed
	fi
	cp -a "$work/patched/tests/$t" "$work/pristine/tests/$t"
	(cd "$work/pristine/tests" && rm -f "$t.ok" "$t.failed" &&
		nice -n 19 ./test_one "$t" >/dev/null 2>&1)
	if [[ -f $work/pristine/tests/$t.ok ]]; then
		q=ok
	else
		q=failed
	fi
	rm -rf "$work/pristine/tests/$t"
	if [[ $p == ok && $q == failed ]]; then
		pass "new test $t: pristine failed, patched ok"
	elif [[ $p == ok && $q == ok && -n $little_endian &&
		$be_only == *" $t "* ]]; then
		pass "new test $t: pristine ok, patched ok" \
			"(it fails pristine only on a big-endian host)"
	elif [[ $p == ok && $q == ok && -z $little_endian &&
		$le_only == *" $t "* ]]; then
		pass "new test $t: pristine ok, patched ok" \
			"(it fails pristine only on a little-endian host)"
	else
		fail "new test $t: pristine $q, patched $p (want failed, ok)"
	fi
done

if [[ $fails -ne 0 ]]; then
	say FAIL
	exit 1
fi
say PASS
exit 0
