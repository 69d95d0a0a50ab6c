#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# seeds.sh: the fuzz harnesses, built as plain programs with the normal
# compiler (tests/fuzz/standalone.c gives them a main), run over the
# seed corpus mkcorpus writes.  Keeps "make fuzz" from rotting: the
# plain builds use the same source lists, so a harness that no longer
# links or traps on a seed fails make check.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
F=$top_builddir/tests/fuzz
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-seeds.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

"$F/mkcorpus" "$work" || { echo "FAIL: mkcorpus"; exit 1; }
n=$(ls "$work" | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: mkcorpus wrote no seeds"; exit 1; }
"$F/fuzz_recovery_plain" "$work" || { echo "FAIL: fuzz_recovery"; exit 1; }
# fuzz_jsb: the head of each seed (12 limit bytes, then a superblock)
"$F/fuzz_jsb_plain" "$work" || { echo "FAIL: fuzz_jsb"; exit 1; }
# fuzz_fc: the same bytes as fast-commit areas (most given a live HEAD)
"$F/fuzz_fc_plain" "$work" || { echo "FAIL: fuzz_fc"; exit 1; }
# fuzz_fc_replay: the same bytes as a program of fast-commit records,
# replayed into a small ext4 image (mke2fs and debugfs make it)
# (and the inputs that once failed it, in tests/fuzz/fc_replay/)
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
"$F/fuzz_fc_replay_plain" "$work" "$top_srcdir/tests/fuzz/fc_replay" ||
	{ echo "FAIL: fuzz_fc_replay"; exit 1; }
echo "PASS: $n seeds through the four harnesses"
