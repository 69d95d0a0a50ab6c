#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# replay-bench.sh - time a journal-replay candidate against e2fsck on fresh
# copies of an image with a dirty journal, interleaved, with medians/ratios.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: replay-bench.sh [options] --image IMG -- CANDIDATE_CMD...

For each run: make a fresh sparse copy of IMG (cp --sparse=always, then
fsync it so its dirty pages are not flushed inside the timed run), run the
candidate with every literal "{img}" in its arguments replaced by the copy's
path, and record wall time, user+sys CPU and peak RSS (GNU /usr/bin/time -v;
wall from date +%s%N around it).  The reference command is run the same
number of times on its own fresh copies, interleaved A B A B.  Copy and
fsync time are not counted.  After every run the copy must no longer have
needs_recovery (dumpe2fs -h); otherwise the run is marked FAIL.  The exit
status of each command is shown but is not by itself a FAIL (e2fsck exits 1
when it changed the file system).

Then a "floor": the time to read the whole journal (extents from
journal-extents.sh) sequentially once with dd bs=1M, from IMG, page-cached
(after one untimed warm-up read), and with O_DIRECT (device read).

Options:
  --image IMG       image with needs_recovery set (e.g. from mkjournal-image.sh)
  --runs N          measured runs per command [5]
  --warmup N        untimed candidate+reference runs first [1]
  --ref 'CMD'       reference command, one string, {img} substituted
                    ['e2fsck -fy -E journal_only {img}']
                    NOTE: with -f, e2fsck 1.47 also runs passes 1-5 after the
                    replay; 'e2fsck -y -E journal_only {img}' replays only.
  --no-ref          run the candidate only
  --no-floor        skip the floor measurement
  --no-direct       skip the O_DIRECT floor
  --fsck            after each run also run `e2fsck -fn` on the copy
                    (untimed); a non-zero exit marks the run FAIL
  --verify          after each run also run verify-replay.sh IMG COPY
                    (untimed): every logged block must hold its last
                    unrevoked version; a mismatch marks the run FAIL
  --show-output     print each command's output (default: only on FAIL)
  -h, --help        this text

Temp copies go under a directory from mktemp -d (set TMPDIR to move it);
IMG's file system needs room for two copies' written blocks.
Exit status: 0 if every run passed, 1 if any FAIL.

Example (sanity: reference against itself):
  bench/kit/replay-bench.sh --runs 5 --image a.img -- \
      e2fsck -fy -E journal_only {img}
EOF
}

die() { echo "replay-bench: error: $*" >&2; exit 2; }
show_cmd() { # print a command, quoting words with blanks
	local a out=""
	for a in "$@"; do
		if [[ $a =~ [[:space:]] || -z $a ]]; then out+="'$a' "; else out+="$a "; fi
	done
	echo "${out% }"
}

image=""
runs=5
warmup=1
ref='e2fsck -fy -E journal_only {img}'
do_ref=1
do_floor=1
do_direct=1
do_fsck=0
do_verify=0
show=0
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--image) [[ $# -ge 2 ]] || die "--image needs an argument"; image=$2; shift 2 ;;
	--runs) [[ $# -ge 2 ]] || die "--runs needs an argument"; runs=$2; shift 2 ;;
	--warmup) [[ $# -ge 2 ]] || die "--warmup needs an argument"; warmup=$2; shift 2 ;;
	--ref) [[ $# -ge 2 ]] || die "--ref needs an argument"; ref=$2; shift 2 ;;
	--no-ref) do_ref=0; shift ;;
	--no-floor) do_floor=0; shift ;;
	--no-direct) do_direct=0; shift ;;
	--fsck) do_fsck=1; shift ;;
	--verify) do_verify=1; shift ;;
	--show-output) show=1; shift ;;
	--) shift; break ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
cand=("$@")
[[ -n $image ]] || { usage >&2; exit 2; }
[[ ${#cand[@]} -gt 0 ]] || die "no candidate command after --"
[[ -r $image ]] || die "cannot read $image"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be >= 1"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup must be >= 0"
pat='{img}'
has_img=0
for a in "${cand[@]}"; do [[ $a == *"$pat"* ]] && has_img=1; done
[[ $has_img -eq 1 ]] || die "candidate command has no {img} token"
read -r -a refcmd <<<"$ref"
[[ $do_ref -eq 0 || $ref == *"$pat"* ]] || die "--ref has no {img} token"

if [[ ! -x /usr/bin/time ]]; then
	echo "replay-bench: installing GNU time (apt-get install time)" >&2
	{ apt-get update -qq && apt-get install -y -qq time; } >/dev/null 2>&1 ||
		die "/usr/bin/time missing and apt-get install time failed"
fi
for t in dumpe2fs debugfs python3 dd cp sync; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

dumpe2fs -h "$image" >/dev/null 2>&1 || die "$image is not an ext2/3/4 image"
if ! dumpe2fs -h "$image" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery'; then
	echo "replay-bench: warning: $image does not have needs_recovery set" >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
copy="$tmp/run.img"
results="$tmp/results.tsv"
: >"$results"
nfail=0

# run_one ROLE RUN(0 = warm-up) CMD...   (CMD still has {img} tokens)
run_one() {
	local role=$1 run=$2; shift 2
	local -a cmd=()
	local a t0 t1 rc status
	for a in "$@"; do cmd+=("${a//"$pat"/$copy}"); done
	rm -f "$copy"
	cp --sparse=always "$image" "$copy"
	sync "$copy"
	t0=$(date +%s%N)
	set +e
	/usr/bin/time -v -o "$tmp/time.txt" "${cmd[@]}" >"$tmp/out.txt" 2>&1
	rc=$?
	set -e
	t1=$(date +%s%N)
	status=ok
	if ! dumpe2fs -h "$copy" >"$tmp/sb.txt" 2>/dev/null; then
		status=FAIL:unreadable
	elif grep -q '^Filesystem features:.*needs_recovery' "$tmp/sb.txt"; then
		status=FAIL:needs_recovery
	elif [[ $do_fsck -eq 1 ]] && ! e2fsck -fn "$copy" >"$tmp/fsck.txt" 2>&1; then
		status=FAIL:fsck
	elif [[ $do_verify -eq 1 ]] && ! "$here/verify-replay.sh" "$image" "$copy" >"$tmp/verify.txt" 2>&1; then
		status=FAIL:verify
	fi
	awk -v role="$role" -v run="$run" -v wall="$(( t1 - t0 ))" -v rc="$rc" -v st="$status" -F': ' '
		/User time \(seconds\)/ { u = $2 }
		/System time \(seconds\)/ { s = $2 }
		/Maximum resident set size/ { m = $2 }
		END { printf "%s\t%d\t%.6f\t%s\t%s\t%s\t%d\t%s\n", role, run, wall / 1e9, u + 0, s + 0, m + 0, rc, st }
	' "$tmp/time.txt" >>"$results"
	tail -1 "$results" | awk -F'\t' '{ printf "  %-9s run %-2s wall %7.3f s  user %6.2f  sys %6.2f  maxrss %7.1f MiB  rc %s  %s\n", $1, ($2 == 0 ? "w" : $2), $3, $4, $5, $6 / 1024, $7, $8 }'
	if [[ $status != ok ]]; then
		nfail=$((nfail + 1))
		echo "  FAIL ($role run $run): $status; command: $(show_cmd "${cmd[@]}")"
		tail -5 "$tmp/out.txt" | sed 's/^/    | /'
		[[ $status != FAIL:fsck ]] || tail -5 "$tmp/fsck.txt" | sed 's/^/    fsck| /'
		[[ $status != FAIL:verify ]] || tail -3 "$tmp/verify.txt" | sed 's/^/    verify| /'
	elif [[ $show -eq 1 ]]; then
		sed 's/^/    | /' "$tmp/out.txt"
	fi
	rm -f "$copy"
}

echo "replay-bench: image $image, $runs runs (+$warmup warm-up), interleaved"
echo "  candidate: $(show_cmd "${cand[@]}")"
[[ $do_ref -eq 0 ]] || echo "  reference: $(show_cmd "${refcmd[@]}")"
for ((i = 1 - warmup; i <= runs; i++)); do
	r=$(( i < 1 ? 0 : i ))
	run_one candidate "$r" "${cand[@]}"
	[[ $do_ref -eq 0 ]] || run_one reference "$r" "${refcmd[@]}"
done

if [[ $do_floor -eq 1 ]]; then
	"$here/journal-extents.sh" --bytes "$image" >"$tmp/ext.txt" || die "cannot find journal extents"
	floor_read() { # extra dd iflags
		local off len
		while read -r off len; do
			dd if="$image" of=/dev/null bs=1M iflag="skip_bytes,count_bytes$1" \
				skip="$off" count="$len" status=none
		done <"$tmp/ext.txt"
	}
	floor_read ""          # warm-up: bring the journal into the page cache
	for ((i = 1; i <= runs; i++)); do
		t0=$(date +%s%N); floor_read ""; t1=$(date +%s%N)
		printf 'floor-cached\t%d\t%.6f\t0\t0\t0\t0\tok\n' "$i" "$(( t1 - t0 ))e-9" >>"$results"
	done
	if [[ $do_direct -eq 1 ]]; then
		if floor_read ",direct" 2>/dev/null; then
			for ((i = 1; i <= runs; i++)); do
				t0=$(date +%s%N); floor_read ",direct"; t1=$(date +%s%N)
				printf 'floor-direct\t%d\t%.6f\t0\t0\t0\t0\tok\n' "$i" "$(( t1 - t0 ))e-9" >>"$results"
			done
		else
			echo "  (O_DIRECT not supported here; no direct floor)"
		fi
	fi
fi

jbytes=0
[[ ! -s $tmp/ext.txt ]] || jbytes=$(awk '{ s += $2 } END { printf "%.0f", s }' "$tmp/ext.txt")
python3 - "$results" "$jbytes" <<'PYEOF'
import sys, statistics as st
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
jbytes = int(sys.argv[2])
data = {}
for role, run, wall, u, s, rss, rc, status in rows:
    if int(run) == 0:
        continue
    data.setdefault(role, {})[int(run)] = (float(wall), float(u) + float(s),
                                           float(u), float(s), float(rss) / 1024, status)
def mm(xs):
    return "%.3f [%.3f-%.3f]" % (st.median(xs), min(xs), max(xs))
print()
print("%-10s %3s  %-27s %-27s %7s %7s  %s" % ("", "n", "wall s: median [min-max]",
      "cpu s (usr+sys): med [rng]", "usr", "sys", "maxRSS MiB: med [rng]"))
for role in ("candidate", "reference"):
    if role not in data:
        continue
    v = list(data[role].values())
    w = [x[0] for x in v]; c = [x[1] for x in v]; rs = [x[4] for x in v]
    nf = sum(1 for x in v if x[5] != "ok")
    print("%-10s %3d  %-27s %-27s %7.3f %7.3f  %.1f [%.1f-%.1f]%s" % (
        role, len(v), mm(w), mm(c), st.median([x[2] for x in v]),
        st.median([x[3] for x in v]), st.median(rs), min(rs), max(rs),
        "   FAIL x%d" % nf if nf else ""))
if "candidate" in data and "reference" in data:
    pairs = [(data["candidate"][k], data["reference"][k]) for k in data["candidate"]
             if k in data["reference"]]
    def ratio(i):
        rs = [a[i] / b[i] for a, b in pairs if b[i] > 0]
        return ("%.3f [%.3f-%.3f]" % (st.median(rs), min(rs), max(rs))) if rs else "n/a"
    print("ratio cand/ref (median of %d per-run pairs [min-max]): wall %s  cpu %s  rss %s"
          % (len(pairs), ratio(0), ratio(1), ratio(4)))
for role, label in (("floor-cached", "page-cached"), ("floor-direct", "O_DIRECT")):
    if role in data:
        w = [x[0] for x in data[role].values()]
        m = st.median(w)
        print("floor (%s dd of the whole journal, %d MiB, %d runs): median %.3f s [%.3f-%.3f]  %.2f GB/s"
              % (label, jbytes >> 20, len(w), m, min(w), max(w), jbytes / m / 1e9 if m else 0))
PYEOF
if [[ $nfail -gt 0 ]]; then
	echo "RESULT: FAIL ($nfail runs)"
	exit 1
fi
echo "RESULT: OK"
