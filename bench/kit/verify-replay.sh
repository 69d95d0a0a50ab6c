#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# verify-replay.sh - check that a replayed image holds, for every fs block
# logged in the original image's journal, the last version that survives
# revocation (or the original content if every version was revoked).
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: verify-replay.sh ORIG.img REPLAYED.img

ORIG.img is the image before replay (needs_recovery set), REPLAYED.img the
same image after a replay by the tool under test.  The expected content is
computed from ORIG.img alone: `debugfs -R 'logdump -a'` gives every
(transaction, fs block, journal block, flags) and the revoke records; a
version is dropped if a revoke record for its block has a sequence >= its
transaction's; the last remaining version must be in REPLAYED.img (with the
JBD2 magic restored for escaped blocks), and a block whose versions were all
revoked must be unchanged.  Journal block numbers are mapped to disk through
journal-extents.sh.  Only logged blocks are checked (not the superblock or
the journal itself).  Exit status 0 when every block matches, 1 otherwise.
EOF
}

case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[[ $# -eq 2 ]] || { usage >&2; exit 2; }
orig=$1
repl=$2
[[ -r $orig && -r $repl ]] || { echo "verify-replay: cannot read inputs" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bs=$(dumpe2fs -h "$orig" 2>/dev/null | awk -F: '/^Block size:/ {gsub(/ /,"",$2); print $2}')
"$here/journal-extents.sh" "$orig" >"$tmp/ext.txt"
debugfs -R 'logdump -a' "$orig" >"$tmp/logdump.txt" 2>/dev/null

python3 - "$orig" "$repl" "$bs" "$tmp/ext.txt" "$tmp/logdump.txt" <<'PYEOF'
import re, sys
orig, repl, bs, extf, logf = sys.argv[1:]
bs = int(bs)
ext = [tuple(map(int, l.split())) for l in open(extf) if l.strip()]
def jphys(j):
    for s, n in ext:
        if j < n:
            return s + j
        j -= n
    raise SystemExit("verify-replay: journal block %d outside the journal" % j)
seq, vers, rev = None, [], {}
for l in open(logf):
    m = re.match(r"Found expected sequence (\d+)", l)
    if m:
        seq = int(m.group(1)); continue
    m = re.match(r"\s+FS block (\d+) logged at journal block (\d+) \(flags 0x([0-9a-f]+)\)", l)
    if m:
        vers.append((seq, int(m.group(1)), int(m.group(2)), int(m.group(3), 16))); continue
    m = re.match(r"\s+Revoke FS block (\d+)", l)
    if m:
        b = int(m.group(1)); rev[b] = max(rev.get(b, 0), seq)
if not vers:
    raise SystemExit("verify-replay: no logged blocks in %s's journal" % orig)
last = {}
for s, b, j, f in vers:
    if not (b in rev and rev[b] >= s):
        last[b] = (j, f)
blocks = sorted({b for _, b, _, _ in vers})
bad = []
with open(orig, "rb") as fo, open(repl, "rb") as fr:
    for b in blocks:
        fr.seek(b * bs); got = fr.read(bs)
        if b in last:
            j, f = last[b]
            fo.seek(jphys(j) * bs); exp = bytearray(fo.read(bs))
            if f & 1:                      # JBD2_FLAG_ESCAPE
                exp[0:4] = b"\xc0\x3b\x39\x98"
            exp = bytes(exp)
        else:
            fo.seek(b * bs); exp = fo.read(bs)
        if got != exp:
            bad.append(b)
print("verify-replay: %d logged blocks (%d with a live version, %d fully revoked): %s"
      % (len(blocks), len(last), len(blocks) - len(last),
         "all match" if not bad else "%d MISMATCH, first %s" % (len(bad), bad[:5])))
sys.exit(1 if bad else 0)
PYEOF
