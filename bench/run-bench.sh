#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-bench.sh - the "Fast replay" benchmark: our e2fsck against e2fsprogs'
# on the images a, b, c and a revoke-heavy journal, with the targets.
#
# Builds missing images with the bench kit (bench/kit/), runs
# replay-bench.sh --verify (fresh copy per run, candidate and reference
# alternated), and prints per image the median wall time of both, the
# per-pair wall ratios, their median, the peak RSS, and PASS/MISS for each
# target.  Not part of "make check": it takes minutes and depends on load.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

# shellcheck disable=SC2034  # lib.sh reads it
bench_name=run-bench
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
work="${BENCH_WORK:-$top/bench/work}"
runs=5
warmup=1
images="a b c r"
e2journal="$top/misc/e2journal"
cold=0

usage() {
	cat <<'EOF'
Usage: bench/run-bench.sh [options]

  --kit DIR       the bench kit [bench/kit, or $BENCH_KIT]
  --work DIR      where the images live / are built [bench/work, or $BENCH_WORK]
  --runs N        measured pairs per image (at least 5 for the targets) [5]
  --warmup N      untimed pairs first [1]
  --images LIST   any of "a b c r" (r: revoke-heavy) ["a b c r"]
  --candidate F   our e2fsck [e2fsck/e2fsck]
  --ref F         e2fsprogs' e2fsck [/usr/sbin/e2fsck, or $REF_E2FSCK]
  --cold          replay from a loop block device with direct I/O, the
                  copy evicted from the page cache before every run
                  (bench/cold-pairs.sh; needs root), with the cold read
                  and write floors
  -h, --help      this text

Both run as "F -y -E journal_only IMG" on fresh copies of each image.
Targets (wall ratio ours/e2fsprogs, median of the per-pair ratios):
  a <= 0.12, b <= 0.30, c <= 0.5, r <= 0.05 and our median wall < 5 s;
  our peak RSS <= 64 MiB on every image; every run verified.
Cold targets: a <= 0.15 and our median within 1.2x of the cold read
floor, b <= 0.22, c <= 0.40 (r: as warm).  Issue 25's stricter warm
targets (a 0.08, b 0.22, c 0.35, r 0.02) are printed beside the others.
Each image also gets its write floor: the replay's runs of home blocks
written by a plain program (bench/write-floor.sh, native AIO).
Exit status: 0 when every target is met, 1 otherwise, 2 on usage errors.
EOF
}

bench_args "--images:images --cold=cold" "$@"

image_path() {
	case "$1" in
	r) echo "$work/rw1m.img" ;;
	*) echo "$work/$1.img" ;;
	esac
}

# The revoke-heavy journal, written by our own writer (e2journal write):
# a 5632 MiB fs with a 1 GiB journal (csum v3, 64-bit), 100 transactions
# of 100 logged blocks each (a hot set of 2,500 blocks near the end of the
# fs, each logged 4 times) and 10,000 revoke records each: 9,975 distinct
# never-logged blocks plus the first 25 blocks the previous transaction
# logged.  1,000,000 records, 999,975 distinct blocks, 12,200 log blocks.
build_revoke_image() {
	local img="$1" t hs rs ps rv
	local -a txns=()

	[ -x "$e2journal" ] || die "$e2journal is not built (make -j2)"
	for t in $(seq 0 99); do
		hs=$((1400000 + (t * 100) % 2500))
		if [ "$t" -lt 53 ]; then
			rs=$((20000 + t * 10000))
		else
			rs=$((830000 + (t - 53) * 10000))
		fi
		if [ "$t" -eq 0 ]; then
			rv="$rs-$((rs + 9999))"
		else
			ps=$((1400000 + ((t - 1) * 100) % 2500))
			rv="$rs-$((rs + 9974)),$ps-$((ps + 24))"
		fi
		txns+=(-t "blocks=$hs-$((hs + 99));revoke=$rv")
	done
	rm -f "$img.tmp"
	truncate -s 5632M "$img.tmp"
	mke2fs -q -F -t ext4 -O 64bit,has_journal,metadata_csum -J size=1024 \
		-b 4096 "$img.tmp"
	"$e2journal" write --no-layout "${txns[@]}" "$img.tmp"
	mv "$img.tmp" "$img"
}

build_image() {
	local name="$1" img
	img=$(image_path "$name")
	[ -f "$img" ] && return 0
	echo "run-bench: building $img"
	case "$name" in
	a) "$kit/mkjournal-image.sh" "$img" ;;
	b) "$kit/mkjournal-image.sh" "$img" --distinct 234000 ;;
	c) "$kit/mkjournal-image.sh" "$img" --journal-mb 32 ;;
	r) build_revoke_image "$img" ;;
	*) die "unknown image $name" ;;
	esac
}

target_of() {
	[ "$cold" = 1 ] && case "$1" in
	a) echo 0.15; return ;;
	b) echo 0.22; return ;;
	c) echo 0.40; return ;;
	esac
	case "$1" in
	a) echo 0.12 ;;
	b) echo 0.30 ;;
	c) echo 0.5 ;;
	r) echo 0.05 ;;
	esac
}

# the stricter warm targets of issue 25 ("boot-time speed"), printed
# beside the ones above; the exit status follows the ones above
target25_of() {
	case "$1" in
	a) echo 0.08 ;;
	b) echo 0.22 ;;
	c) echo 0.35 ;;
	r) echo 0.02 ;;
	esac
}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

summary=""
fail=0

# cold_image NAME IMG LOG: bench/cold-pairs.sh's runs, summed up as the
# warm ones are, with the floors beside them.
cold_image() {
	local name=$1 img=$2 log=$3 cw rw rss ratios cmed rmed ratio t v
	local fread fwrite fruns v_floor=
	"$here/cold-pairs.sh" "$kit" "$img" "$runs" "$warmup" "$cand" "$ref" \
		"$e2journal" >"$log" 2>&1 || { cat "$log"; fail=1; return; }
	cw=$(awk '$2 == "ours" { print $5 }' "$log")
	rw=$(awk '$2 == "ref" { print $5 }' "$log")
	rss=$(awk '$2 == "ours" { print $7 / 1024 }' "$log" | sort -g | tail -1)
	ratios=$(paste <(echo "$cw") <(echo "$rw") |
		 awk '$2 > 0 { printf "%.3f\n", $1 / $2 }')
	cmed=$(echo "$cw" | median)
	rmed=$(echo "$rw" | median)
	ratio=$(echo "$ratios" | median)
	fread=$(awk '$1 == "floor" && $2 == "read" { print $3 }' "$log")
	fwrite=$(awk '$1 == "floor" && $2 == "write" { print $3 }' "$log")
	fruns=$(awk '$1 == "floor" && $2 == "runs" { print $3 }' "$log")
	t=$(target_of "$name")
	v=$(awk -v x="$ratio" -v t="$t" 'BEGIN { print (x <= t) ? "PASS" : "MISS" }')
	[ "$v" = PASS ] || fail=1
	if [ "$name" = a ]; then
		v_floor=$(awk -v x="$cmed" -v f="$fread" \
			  'BEGIN { print (x <= 1.2 * f) ? "PASS" : "MISS" }')
		[ "$v_floor" = PASS ] || fail=1
		v_floor="  <= 1.2 x read floor: $v_floor"
	fi
	grep -q 'verify FAIL' "$log" && fail=1
	echo "   per-pair wall ratios: $(echo $ratios)"
	line=$(printf '%-2s cold: ours %7.3f s  e2fsprogs %7.3f s  ratio %6.3f (<= %s: %s)  floors: read %.3f s, write %.3f s, runs %s s  peak RSS %5.1f MiB  verify %s%s' \
	       "$name" "$cmed" "$rmed" "$ratio" "$t" "$v" "${fread:-0}" \
	       "${fwrite:-0}" "${fruns:-?}" "${rss:-0}" \
	       "$(grep -q 'verify FAIL' "$log" && echo FAIL || echo OK)" "$v_floor")
	echo "   $line"
	summary="$summary$line"$'\n'
}

for name in $images; do
	build_image "$name"
	img=$(image_path "$name")
	log="$work/bench-$name.log"
	echo "run-bench: image $name ($img), $runs pairs$( [ "$cold" = 1 ] && echo ', cold')"
	status=0
	if [ "$cold" = 1 ]; then
		cold_image "$name" "$img" "$log"
		continue
	fi
	"$kit/replay-bench.sh" --runs "$runs" --warmup "$warmup" --no-floor --verify \
		--ref "$ref -y -E journal_only {img}" --image "$img" -- \
		"$cand" -y -E journal_only {img} >"$log" 2>&1 || status=$?

	# "candidate run 3  wall   0.546 s  user ... maxrss    13.1 MiB  rc 0  ok"
	cw=$(awk '$1 == "candidate" && $2 == "run" && $3 != "w" { print $5 }' "$log")
	rw=$(awk '$1 == "reference" && $2 == "run" && $3 != "w" { print $5 }' "$log")
	rss=$(awk '$1 == "candidate" && $2 == "run" { print $12 }' "$log" |
	      sort -g | tail -1)
	ratios=$(paste <(echo "$cw") <(echo "$rw") |
		 awk '$2 > 0 { printf "%.3f\n", $1 / $2 }')
	cmed=$(echo "$cw" | median)
	rmed=$(echo "$rw" | median)
	ratio=$(echo "$ratios" | median)
	# replay-bench's own median of per-pair CPU (user+sys) ratios
	cpu=$(sed -n 's/^ratio cand.* cpu \([0-9.]*\).*/\1/p' "$log")
	verified=OK
	[ "$status" -eq 0 ] && grep -q '^RESULT: OK' "$log" || verified=FAIL

	t=$(target_of "$name")
	t25=$(target25_of "$name")
	v_ratio=$(awk -v x="$ratio" -v t="$t" 'BEGIN { print (x <= t) ? "PASS" : "MISS" }')
	v25=$(awk -v x="$ratio" -v t="$t25" 'BEGIN { print (x <= t) ? "met" : "missed" }')
	v_rss=$(awk -v x="${rss:-999}" 'BEGIN { print (x <= 64) ? "PASS" : "MISS" }')
	# what a plain program needs to write the replay's runs
	fruns=$("$here/write-floor.sh" "$e2journal" "$img" |
		awk '$1 == "floor" && $2 == "runs" && $3 ~ /^[0-9.]+$/ { print $3 }')
	line=$(printf '%-2s ours %7.3f s  e2fsprogs %7.3f s  ratio %6.3f (<= %s: %s; issue 25 <= %s: %s)  write floor %s s (%s of e2fsprogs)  peak RSS %5.1f MiB (%s)  verify %s' \
	       "$name" "$cmed" "$rmed" "$ratio" "$t" "$v_ratio" "$t25" "$v25" \
	       "${fruns:-?}" \
	       "$(awk -v f="${fruns:-}" -v r="$rmed" 'BEGIN { if (f == "" || r <= 0) print "?"; else printf "%.3f", f / r }')" \
	       "${rss:-0}" "$v_rss" "$verified")
	if [ "$name" = r ]; then
		v_wall=$(awk -v x="$cmed" 'BEGIN { print (x < 5) ? "PASS" : "MISS" }')
		line="$line  wall < 5 s: $v_wall"
		[ "$v_wall" = PASS ] || fail=1
	fi
	echo "   per-pair wall ratios: $(echo $ratios); CPU ratio (median): ${cpu:-?}"
	echo "   $line"
	summary="$summary$line"$'\n'
	[ "$v_ratio" = PASS ] && [ "$v_rss" = PASS ] && [ "$verified" = OK ] || fail=1
done

echo
echo "run-bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s' "$summary"
if [ "$fail" -eq 0 ]; then
	echo "RESULT: PASS (every target met)"
else
	echo "RESULT: MISS (see above)"
fi
exit "$fail"
