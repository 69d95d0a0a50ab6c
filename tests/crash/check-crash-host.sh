#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# check-crash-host.sh: the crash corpus written by the running kernel
# (make check-crash-host).
#
# make check-crash's corpus without User-Mode Linux: as root, each
# configuration's image is loop-mounted on this host, a seeded workload
# runs on it and the filesystem is cut at a seeded moment with
# EXT4_IOC_SHUTDOWN (EXT4_GOING_FLAGS_NOLOGFLUSH) (tests/crash/hostgen.py);
# then every image is judged as make check-crash judges it: our e2fsck
# under each policy against e2fsprogs 1.47.0, e2journal, e2fsprogs, and
# Linux itself, a loop mount of a copy (tests/crash/crashcheck.py
# --host-kernel).  See doc/testing.md.
#
# Usage: check-crash-host.sh [-n SEEDS] [-f FCSEEDS] [-c "CONFIG..."] [-k]
#                            [--no-damage] BUILDDIR
#   -n SEEDS     seeds 1..SEEDS of every configuration [7]; fc gets 3 more
#   -f FCSEEDS   seeds 1..FCSEEDS of fcmix and fcmix1k, the fast-commit
#                mixes, and 1..FCSEEDS/8 of fcdir [25]
#   -c LIST      only these configurations
#   -k           keep the corpus and the work directories
#                (BUILDDIR/tests/crash-host/corpus, .../work)
#   --no-damage  no damaged copies
# Where this cannot run (not root, no loop devices, no ext4 mount) it
# says why in one line and skips: exit 0 when CI=true or E2J_ALLOW_SKIP=1,
# else 77.  It never reports checks it did not run.
set -eu

seeds=7
fcseeds=25
configs="4k 1k nocsum v1 v3 async wrap4k wrap1k fc fcdir fcmix fcmix1k"
# issue 33: at least 60 images with live fast commits by default
minfc=60
keep=0
damage=""
while [ $# -gt 1 ]; do
	case $1 in
	-n) seeds=$2; minfc=5; shift 2 ;;
	-f) fcseeds=$2; minfc=5; shift 2 ;;
	-c) configs=$2; minfc=5; shift 2 ;;
	-k) keep=1; shift ;;
	--no-damage) damage=--no-damage; shift ;;
	*) break ;;
	esac
done
kernel="Linux $(uname -r)"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/crash/corpus.sh
. "$here/corpus.sh"

skip() {
	skip_corpus "check-crash-host: SKIP, no image written by $kernel: $*"
}

# fast commits: the most varied images; the mixes (every record,
# fsynced: tests/crash/workload.py's fcmix) make most of the 60
seeds_of() {
	case $1 in
	fc) echo $((seeds + 3)) ;;
	fcmix|fcmix1k) echo "$fcseeds" ;;
	fcdir) echo $(((fcseeds + 7) / 8)) ;;
	*) echo "$seeds" ;;
	esac
}

for t in debugfs mke2fs python3; do
	command -v $t >/dev/null || { echo "check-crash-host: $t missing" >&2; exit 1; }
done
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" = 0 ] || skip "not root (loop mounts need root)"
builddir=$(cd "${1:-.}" && pwd)

out=$builddir/tests/crash-host
corpus=$out/corpus
work=$out/work
rm -rf "$corpus" "$work"
mkdir -p "$corpus" "$work"
why=$(python3 "$here/hostgen.py" --can-mount "$work/probe") ||
	{ rm -rf "$work"; skip "loop mounts do not work here: $why"; }
echo "check-crash-host: images written by $kernel (loop mounts, EXT4_IOC_SHUTDOWN NOLOGFLUSH)"

t0=$(date +%s)
# shellcheck disable=SC2086
specs=$(corpus_specs $configs)
export top_builddir="$builddir"
genrc=0
# shellcheck disable=SC2086
python3 "$here/hostgen.py" "$corpus" $specs >"$out/gen.log" || genrc=$?
cat "$out/gen.log"
t1=$(date +%s)
checkrc=0
set -- "$corpus"/*.img
[ -e "$1" ] || set --
if [ $# -gt 0 ]; then
	python3 "$here/crashcheck.py" --host-kernel $damage \
		--pending "$here/pending-host" --work "$work" "$@" \
		>"$out/check.log" 2>&1 || checkrc=$?
else
	echo "no image made" >"$out/check.log"
	checkrc=1
fi
t2=$(date +%s)
grep -v '^PASS\|^XFAIL\|^XPASS\|^SKIP\|^IMAGE' "$out/check.log" || true
statrc=0
python3 "$here/corpus_stats.py" --min-fc "$minfc" "$corpus" \
	>"$out/stats.log" || statrc=$?
cat "$out/stats.log"
nimg=$(grep -c '^GEN [^F]' "$out/gen.log" || true)
nfc=$(grep -c '^GEN fc.*fast-commit blocks' "$out/gen.log" || true)
np=$(grep -c '^PASS' "$out/check.log" || true)
nf=$(grep -c '^FAIL' "$out/check.log" || true)
nx=$(grep -c '^XFAIL' "$out/check.log" || true)
nxp=$(grep -c '^XPASS' "$out/check.log" || true)
ns=$(grep -c '^SKIP' "$out/check.log" || true)
echo "generation $((t1 - t0)) s, checks $((t2 - t1)) s"
echo "check-crash-host: $nimg images written by $kernel ($nfc with live fast commits), $((np + nf + nx + nxp)) checks: $np passed, $nf failed, $nx expected failures, $nxp passes of pending checks; $ns skipped"
[ "$keep" = 1 ] || rm -rf "$work"
[ $genrc = 0 ] && [ $checkrc = 0 ] && [ $statrc = 0 ]
