#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# replay-syscalls.sh - count the I/O syscalls a journal-replay command issues
# on a fresh copy of an image, split into journal reads and fs writes, and
# compare with what the journal holds (logdump).
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: replay-syscalls.sh [options] --image IMG [-- CMD...]

Runs CMD (default: e2fsck -fy -E journal_only {img}) once under
`strace -f -y -s 0` on a fresh sparse copy of IMG ({img} in CMD is replaced
by the copy's path) and reports, for I/O on the image file:
  - calls and bytes per syscall (pread64, pwrite64, read, write, fsync, ...)
  - reads/writes inside the journal's extents vs elsewhere in the fs
  - fs blocks written: total, distinct, max writes to one block
and compares with the journal's content from `debugfs -R 'logdump -a' IMG`:
transactions, logged block versions, revoke records, versions that survive
revocation (what a replay that writes every version must write) and distinct
blocks (what a replay that writes only the last version must write).

Then (unless --no-timing) a second run on a fresh copy under
`strace -f -c -w` for wall time spent per syscall (strace slows the process
down, so use the split, not the absolute figures), and with --perf a third
run under `perf record -g -e cpu-clock`: CPU samples per DSO, the inclusive
share of the pread64/pwrite64/fsync system calls, and the top symbols.

Options:
  --image IMG    image with needs_recovery set
  --no-timing    skip the strace -c -w run
  --perf         add the perf profile run (needs perf)
  --keep DIR     copy the raw strace log and summaries into DIR
  -h, --help     this text
EOF
}

die() { echo "replay-syscalls: error: $*" >&2; exit 2; }

image=""
timing=1
perf=0
keep=""
while [[ $# -gt 0 ]]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--image) [[ $# -ge 2 ]] || die "--image needs an argument"; image=$2; shift 2 ;;
	--no-timing) timing=0; shift ;;
	--perf) perf=1; shift ;;
	--keep) [[ $# -ge 2 ]] || die "--keep needs an argument"; keep=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
cmd=("$@")
[[ ${#cmd[@]} -gt 0 ]] || cmd=(e2fsck -fy -E journal_only '{img}')
[[ -n $image ]] || { usage >&2; exit 2; }
[[ -r $image ]] || die "cannot read $image"
for t in strace debugfs dumpe2fs python3; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found (apt-get install $t)"
done
[[ $perf -eq 0 ]] || command -v perf >/dev/null 2>&1 || die "perf not found"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
copy="$tmp/run.img"
pat='{img}'
sub=()
for a in "${cmd[@]}"; do sub+=("${a//"$pat"/$copy}"); done
fresh_copy() { rm -f "$copy"; cp --sparse=always "$image" "$copy"; sync "$copy"; }
iocalls=read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2,fsync,fdatasync,sync_file_range,lseek,fallocate,ftruncate

bs=$(dumpe2fs -h "$image" 2>/dev/null | awk -F: '/^Block size:/ {gsub(/ /,"",$2); print $2}')
"$here/journal-extents.sh" --bytes "$image" >"$tmp/ext.txt" || die "no journal extents"
debugfs -R 'logdump -a' "$image" >"$tmp/logdump.txt" 2>/dev/null || die "logdump failed"

echo "replay-syscalls: image $image"
echo "  command: ${cmd[*]}"
fresh_copy
set +e
strace -f -qq -y -s 0 -o "$tmp/trace.txt" -e trace="$iocalls" "${sub[@]}" >"$tmp/out.txt" 2>&1
rc=$?
set -e
echo "  exit status $rc"

python3 - "$tmp/trace.txt" "$tmp/ext.txt" "$tmp/logdump.txt" "$copy" "$bs" <<'PYEOF'
import re, sys, collections
trace, extf, logf, copy, bs = sys.argv[1:]
bs = int(bs)
ext = [tuple(map(int, l.split())) for l in open(extf) if l.strip()]
def in_journal(off):
    return any(o <= off < o + n for o, n in ext)

# --- journal content ---------------------------------------------------------
seq = None
versions = []                      # (seq, fs block)
revoked = {}                       # fs block -> highest revoking seq
commits = 0
for l in open(logf):
    m = re.match(r"Found expected sequence (\d+), type (\d+)", l)
    if m:
        seq = int(m.group(1))
        if m.group(2) == "2":
            commits += 1
        continue
    m = re.match(r"\s+FS block (\d+) logged at", l)
    if m:
        versions.append((seq, int(m.group(1))))
        continue
    m = re.match(r"\s+Revoke FS block (\d+)", l)
    if m:
        b = int(m.group(1))
        revoked[b] = max(revoked.get(b, 0), seq)
live = [(s, b) for s, b in versions if not (b in revoked and revoked[b] >= s)]
print("journal (logdump): %d transactions, %d logged block versions (%d distinct blocks), "
      "%d revoke records" % (commits, len(versions), len({b for _, b in versions}),
                             sum(1 for l in open(logf) if "Revoke FS block" in l)))
print("  versions not revoked: %d (= writes if every version is written); "
      "distinct blocks among them: %d (= writes if only the last version is written)"
      % (len(live), len({b for _, b in live})))

# --- trace ---------------------------------------------------------------------
line_re = re.compile(r"^(\d+)\s+(\w+)\((\d+)<([^>]*)>(.*)\)\s+=\s+(-?\d+)")
st = collections.OrderedDict()
wblocks = collections.Counter()
other = collections.Counter()
for l in open(trace):
    m = line_re.match(l)
    if not m:
        continue
    _, call, fd, path, rest, ret = m.groups()
    ret = int(ret)
    if path != copy:
        other[call] += 1
        continue
    args = [a.strip() for a in rest.split(",")]
    d = st.setdefault(call, dict(calls=0, bytes=0, jcalls=0, jbytes=0))
    d["calls"] += 1
    nbytes = ret if (ret > 0 and call not in ("lseek", "fsync", "fdatasync")) else 0
    d["bytes"] += nbytes
    if call in ("pread64", "pwrite64"):
        off = int(args[-1])
        if in_journal(off):
            d["jcalls"] += 1
            d["jbytes"] += nbytes
        elif call == "pwrite64":
            for b in range(off // bs, (off + max(nbytes, 1) - 1) // bs + 1):
                wblocks[b] += 1
print("I/O syscalls on the image copy:")
print("  %-10s %9s %12s   %s" % ("syscall", "calls", "MiB", "of which inside the journal extents"))
for call, d in st.items():
    extra = ""
    if call in ("pread64", "pwrite64"):
        extra = "%d calls, %.1f MiB" % (d["jcalls"], d["jbytes"] / 2**20)
    print("  %-10s %9d %12.1f   %s" % (call, d["calls"], d["bytes"] / 2**20, extra))
if other:
    print("  (other files: %s)" % ", ".join("%s %d" % kv for kv in sorted(other.items())))
logged = {b for _, b in versions}
tw = sum(wblocks.values())
tl = sum(c for b, c in wblocks.items() if b in logged)
print("fs blocks written outside the journal: %d writes to %d distinct blocks; "
      "to logged blocks: %d writes, %d distinct; max writes to one block: %d"
      % (tw, len(wblocks), tl, sum(1 for b in wblocks if b in logged),
         max(wblocks.values()) if wblocks else 0))
PYEOF

if [[ $timing -eq 1 ]]; then
	fresh_copy
	echo
	echo "strace -f -c -w (wall time inside each syscall; strace overhead included):"
	strace -f -c -w -o "$tmp/summary.txt" -e trace="$iocalls" "${sub[@]}" >/dev/null 2>&1 || true
	sed 's/^/  /' "$tmp/summary.txt"
fi

if [[ $perf -eq 1 ]]; then
	fresh_copy
	echo
	echo "perf record -g -e cpu-clock (CPU samples; off-CPU waits such as fsync are not seen):"
	perf record -q -g -e cpu-clock -F 4999 -o "$tmp/perf.data" -- "${sub[@]}" >/dev/null 2>&1 || true
	rep() { perf report -q -i "$tmp/perf.data" --stdio --no-call-graph "$@" 2>/dev/null | grep -v '^$' || true; }
	echo "  self samples per DSO:"
	rep --no-children --sort dso | head -8 | sed 's/^/  /'
	echo "  inclusive (children) share of the I/O system calls:"
	rep --children --sort sym | grep -E '\[k\] __x64_sys_(pread64|pwrite64|read|write|fsync|fdatasync)$' | sed 's/^/  /'
	echo "  top self symbols (stripped libraries show addresses; see README):"
	rep --no-children --sort dso,sym | head -15 | sed 's/^/  /'
fi

if [[ -n $keep ]]; then
	mkdir -p "$keep"
	cp "$tmp/trace.txt" "$tmp/logdump.txt" "$keep/"
	[[ ! -f $tmp/summary.txt ]] || cp "$tmp/summary.txt" "$keep/"
fi
