#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Remake this test's images (needs /usr/bin/linux.uml; not run by make
# check): crash images of three configurations, seed 101, and for each the
# image Linux 6.1 left after replaying it (IMAGE.kernel.xz), so that the
# test compares with Linux without booting it.  The images depend on
# timing (tests/crash/crashgen.py): a rerun gives new images of the same
# kind, not the same bytes.
# Usage: make-images.sh [OUTDIR]   (default: this directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/../crash/crashgen.py" "$tmp" async:101 wrap4k:101 wrap1k:101
python3 "$here/../crash/crashcheck.py" --uml "${UML:-/usr/bin/linux.uml}" \
	--save-kernel --no-damage "$tmp"/*.img
for f in "$tmp"/*.img; do
	b=$(basename "$f" .img)
	xz -9 -c "$f" >"$out/$b.img.xz"
	cp "$f.kernel.xz" "$out/$b.img.kernel.xz"
	cp "$tmp/$b.json" "$out/$b.json"
done
