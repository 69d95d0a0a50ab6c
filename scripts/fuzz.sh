#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fuzz.sh: run the libFuzzer harnesses of tests/fuzz for DURATION seconds
# each, all four at once, with a seed corpus of journals made by
# the library's writer (tests/fuzz/mkcorpus).
#
# Usage: scripts/fuzz.sh DURATION [BUILDDIR]
# Builds with "make fuzz" in BUILDDIR (default: the source tree); corpora,
# logs and crash artifacts go to BUILDDIR/tests/fuzz/run.  A harness that
# finds a crash, leak or timeout stops early and leaves its input as
# run/artifacts/crash-* (or leak-*, timeout-*); the exit status is then 1.
# Reproduce with: tests/fuzz/fuzz_recovery run/artifacts/crash-...
set -u

dur=${1:?usage: fuzz.sh DURATION [BUILDDIR]}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$src}
run=$build/tests/fuzz/run

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	sh "$src/scripts/deps.sh" fuzz || exit 2
fi
make -C "$build" ${FUZZ_CC:+FUZZ_CC="$FUZZ_CC"} fuzz || exit 2
mkdir -p "$run/seed" "$run/corpus_recovery" "$run/corpus_jsb" \
	"$run/corpus_fc" "$run/corpus_fc_replay" "$run/artifacts" || exit 2
"$build/tests/fuzz/mkcorpus" "$run/seed" || exit 2

start=$(date +%s)
"$build/tests/fuzz/fuzz_recovery" -max_total_time="$dur" -max_len=65600 \
	-timeout=30 -print_final_stats=1 -artifact_prefix="$run/artifacts/" \
	"$run/corpus_recovery" "$run/seed" >"$run/recovery.log" 2>&1 &
p1=$!
"$build/tests/fuzz/fuzz_jsb" -max_total_time="$dur" -timeout=30 \
	-print_final_stats=1 -artifact_prefix="$run/artifacts/" \
	"$run/corpus_jsb" >"$run/jsb.log" 2>&1 &
p2=$!
"$build/tests/fuzz/fuzz_fc" -max_total_time="$dur" -max_len=33000 \
	-timeout=30 -print_final_stats=1 -artifact_prefix="$run/artifacts/" \
	"$run/corpus_fc" "$run/seed" >"$run/fc.log" 2>&1 &
p3=$!
# the replay harness copies a 4 MiB image per input: into tmpfs
TMPDIR=${FUZZ_TMPDIR:-/dev/shm} \
"$build/tests/fuzz/fuzz_fc_replay" -max_total_time="$dur" -max_len=4096 \
	-timeout=30 -print_final_stats=1 -artifact_prefix="$run/artifacts/" \
	"$run/corpus_fc_replay" "$run/seed" >"$run/fc_replay.log" 2>&1 &
p4=$!
wait $p1
r1=$?
wait $p2
r2=$?
wait $p3
r3=$?
wait $p4
r4=$?
end=$(date +%s)

for h in recovery jsb fc fc_replay; do
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$run/$h.log" | tail -n 1)
	echo "fuzz_$h: ${execs:-?} execs"
done
echo "wall time: $((end - start)) s, the four harnesses at once"
if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || [ $r3 -ne 0 ] || [ $r4 -ne 0 ]; then
	echo "FINDINGS: see $run/artifacts and the logs in $run"
	exit 1
fi
echo "no findings"
exit 0
