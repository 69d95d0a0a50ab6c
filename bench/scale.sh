#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scale.sh - the scale curve of issue 25: replay time and peak RSS against
# journal size, ours against e2fsprogs' e2fsck, on a-type images (4,096
# distinct blocks, the log 90% full) with 1, 2, 4 and 8 GiB journals.
#
# Builds missing images with the bench kit (bench/kit/) (mkjournal-image.sh
# --journal-mb), runs replay-bench.sh (fresh fsynced copy per run, ours
# and e2fsprogs alternated, GNU time's peak RSS), and prints one line per
# size: median walls, the median of the per-pair ratios, our time per GiB
# of journal, both peak RSS (the largest of the runs).  Not part of
# "make check": the 8 GiB image alone is 8 GiB of log to copy per run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

# shellcheck disable=SC2034  # lib.sh reads it
bench_name=scale
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
work="${BENCH_WORK:-$top/bench/work/scale}"
runs=3
warmup=0
sizes="1 2 4 8"

usage() {
	cat <<'EOF'
Usage: bench/scale.sh [options]

  --kit DIR       the bench kit [bench/kit, or $BENCH_KIT]
  --work DIR      where the images aN.img live / are built
                  [bench/work/scale, or $BENCH_WORK]
  --runs N        measured pairs per size [3]
  --warmup N      untimed pairs first [0]
  --sizes LIST    journal sizes in GiB ["1 2 4 8"]
  --candidate F   our e2fsck [e2fsck/e2fsck]
  --ref F         e2fsprogs' e2fsck [/usr/sbin/e2fsck, or $REF_E2FSCK]
  -h, --help      this text

Both run as "F -y -E journal_only IMG" on fresh copies.  Targets (issue
25): our peak RSS <= 64 MiB at every size, and our time per GiB of
journal at the largest size no worse than at the smallest.
Exit status: 0 when both hold, 1 otherwise, 2 on usage errors.
EOF
}

bench_args "--sizes:sizes" "$@"

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print 0; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

fail=0
first_per_gib=
lines=""
for g in $sizes; do
	img="$work/a$g.img"
	if [ ! -f "$img" ]; then
		echo "scale: building $img (journal $g GiB)"
		"$kit/mkjournal-image.sh" "$img" --journal-mb $((g * 1024)) \
			>"$work/a$g.log" 2>&1 || { cat "$work/a$g.log"; exit 1; }
	fi
	log="$work/scale-$g.log"
	echo "scale: $g GiB journal ($img), $runs pairs"
	status=0
	"$kit/replay-bench.sh" --runs "$runs" --warmup "$warmup" --no-floor \
		--ref "$ref -y -E journal_only {img}" --image "$img" -- \
		"$cand" -y -E journal_only {img} >"$log" 2>&1 || status=$?
	[ "$status" -eq 0 ] || { echo "scale: runs failed, see $log"; fail=1; }

	# "candidate run 3  wall   0.546 s  user ... maxrss    13.1 MiB  rc 0  ok"
	cw=$(awk '$1 == "candidate" && $2 == "run" && $3 != "w" { print $5 }' "$log")
	rw=$(awk '$1 == "reference" && $2 == "run" && $3 != "w" { print $5 }' "$log")
	crss=$(awk '$1 == "candidate" && $2 == "run" { print $12 }' "$log" |
	       sort -g | tail -1)
	rrss=$(awk '$1 == "reference" && $2 == "run" { print $12 }' "$log" |
	       sort -g | tail -1)
	ratio=$(paste <(echo "$cw") <(echo "$rw") |
		awk '$2 > 0 { printf "%.3f\n", $1 / $2 }' | median)
	cmed=$(echo "$cw" | median)
	rmed=$(echo "$rw" | median)
	# user + sys: what the load of other work on the machine moves least
	ccpu=$(awk '$1 == "candidate" && $2 == "run" && $3 != "w" { print $8 + $10 }' "$log" | median)
	per_gib=$(awk -v w="$cmed" -v g="$g" 'BEGIN { printf "%.3f", w / g }')
	cpu_gib=$(awk -v w="$ccpu" -v g="$g" 'BEGIN { printf "%.3f", w / g }')
	[ -n "$first_per_gib" ] || first_per_gib=$per_gib
	v_rss=$(awk -v x="${crss:-999}" 'BEGIN { print (x <= 64) ? "PASS" : "MISS" }')
	[ "$v_rss" = PASS ] || fail=1
	line=$(printf '%2s GiB  ours %7.3f s  e2fsprogs %7.3f s  ratio %6.3f  ours %6.3f s/GiB (CPU %5.3f s/GiB)  peak RSS ours %6.1f MiB (%s)  e2fsprogs %5.1f MiB' \
	       "$g" "$cmed" "$rmed" "$ratio" "$per_gib" "$cpu_gib" \
	       "${crss:-0}" "$v_rss" "${rrss:-0}")
	echo "   per-pair wall ratios: $(paste <(echo "$cw") <(echo "$rw") |
		awk '$2 > 0 { printf "%.3f ", $1 / $2 }')"
	echo "   $line"
	lines="$lines$line"$'\n'
done
v_time=$(awk -v a="${first_per_gib:-0}" -v b="${per_gib:-0}" \
	 'BEGIN { print (b <= a) ? "PASS" : "MISS" }')
[ "$v_time" = PASS ] || fail=1

echo
echo "scale: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s' "$lines"
echo "time per GiB, largest against smallest size: $v_time"
if [ "$fail" -eq 0 ]; then
	echo "RESULT: PASS"
else
	echo "RESULT: MISS (see above)"
fi
exit "$fail"
