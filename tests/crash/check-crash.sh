#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-crash.sh: the crash corpus written by Linux (make check-crash).
#
# Boots Debian's User-Mode Linux (package user-mode-linux, Linux 6.1) on
# fresh ext4 images, kills it in the middle of a workload
# (tests/crash/crashgen.py), then judges every image's replay by our
# e2fsck under each policy, e2journal, e2fsprogs 1.47 and Linux itself
# (tests/crash/crashcheck.py).  See doc/testing.md.
#
# Usage: check-crash.sh [-n SEEDS] [-c "CONFIG..."] [-k] BUILDDIR
#   -n SEEDS   seeds 1..SEEDS of every configuration [7]; fc gets nine more (about half of them hold live fast commits)
#   -c LIST    only these configurations
#   -k         keep the corpus and the work directories
#              (BUILDDIR/tests/crash/corpus, .../work)
# Needs root for nothing; installs user-mode-linux with apt-get when it is
# missing and this runs as root.  tests/crash/uml-probe.py first boots it
# with an init that prints a marker: where this host cannot run UML's
# user space, its line is printed and the target skips (exit 0 when
# CI=true or E2J_ALLOW_SKIP=1, else 77).
set -eu

seeds=7
configs="4k 1k nocsum v1 v3 async wrap4k wrap1k fc"
keep=0
while [ $# -gt 1 ]; do
	case $1 in
	-n) seeds=$2; shift 2 ;;
	-c) configs=$2; shift 2 ;;
	-k) keep=1; shift ;;
	*) break ;;
	esac
done
builddir=$(cd "${1:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/crash/corpus.sh
. "$here/corpus.sh"
seeds_of() {
	if [ "$1" = fc ]; then echo $((seeds + 9)); else echo "$seeds"; fi
}
uml=${UML:-/usr/bin/linux.uml}

if [ ! -x "$uml" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "check-crash: installing user-mode-linux"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			user-mode-linux >/dev/null
	fi
	[ -x "$uml" ] || { echo "check-crash: $uml missing (apt-get install user-mode-linux)" >&2; exit 1; }
fi
for t in xz debugfs mke2fs python3; do
	command -v $t >/dev/null || { echo "check-crash: $t missing" >&2; exit 1; }
done
# Can this host run UML's user space at all?  (Not on AMX hosts: UML 6.1
# and 6.12 hand ptrace a 2696-byte FPU buffer, doc/testing.md.)  Where
# it cannot, say so in one line and skip: exit 0 when CI=true or
# E2J_ALLOW_SKIP=1, else 77; never a pass of checks that did not run.
probe=$(python3 "$here/uml-probe.py" "$uml") || {
	echo "$probe"
	skip_corpus "check-crash: SKIP, no image written by UML: its user space does not run on this host"
}
echo "$probe"

out=$builddir/tests/crash
corpus=$out/corpus
work=$out/work
rm -rf "$corpus" "$work"
mkdir -p "$corpus" "$work"
# every UML this script starts runs in its own session and is killed by
# process group (crashgen.py, crashcheck.py); none outlives its step

t0=$(date +%s)
# shellcheck disable=SC2086
specs=$(corpus_specs $configs)
export top_builddir="$builddir"
genrc=0
# shellcheck disable=SC2086
UML=$uml python3 "$here/crashgen.py" "$corpus" $specs >"$out/gen.log" ||
	genrc=$?
cat "$out/gen.log"
t1=$(date +%s)
checkrc=0
python3 "$here/crashcheck.py" --uml "$uml" --work "$work" "$corpus"/*.img \
	>"$out/check.log" 2>&1 || checkrc=$?
t2=$(date +%s)
grep -v '^PASS\|^XFAIL\|^XPASS' "$out/check.log" || true
echo "check-crash: $(grep -c '^GEN [^F]' "$out/gen.log" || true) images written by Linux $("$uml" --version 2>/dev/null | head -1) (UML $uml), $(grep -c '^PASS' "$out/check.log") checks passed, $(grep -c '^FAIL' "$out/check.log") failed"
statrc=0
python3 "$here/corpus_stats.py" "$corpus" >"$out/stats.log" || statrc=$?
cat "$out/stats.log"
echo "generation $((t1 - t0)) s, checks $((t2 - t1)) s"
[ "$keep" = 1 ] || rm -rf "$work"
[ $genrc = 0 ] && [ $checkrc = 0 ] && [ $statrc = 0 ]
