#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkimages.py: the images check-kernel-fc.sh boots Linux on.

Usage: mkimages.py OUTDIR

Writes into OUTDIR, from the two crash images tests/j_crash_fc keeps
(written by Linux 6.1 under User-Mode Linux, make check-crash's `fc`
configuration):

  fc-6.img          as written: its live fast commits log an INODE of
                    inode 41, unlinked while open (no link, on the
                    orphan list): Linux's replay fails on it
  fcdir-1.img       as written: live fast commits Linux replays (the
                    control: both kernels mount it)
  fc-6-torn1.img    fc-6 with the crc in the TAIL of its first fast
  fcdir-1-torn1.img commit spoiled (one byte), as a power cut while the
                    first fast commit after a full commit was written
                    leaves it: never acknowledged
  fc-6-stale.img    the same two with the tid in HEAD one older: what a
  fcdir-1-stale.img full commit after fast commits leaves, which Linux
                    already passes over quietly (the full commits
                    alone are replayed): the reference for -torn1
  NAME.area         the filesystem blocks of NAME's fast-commit area,
                    one a line (the damaged block lies there)

and prints one line per image: name, the tid of the area's HEAD, the
number of verified fast commits, and what was changed.
"""

import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
sys.path.insert(0, os.path.join(TOP, "tests", "crash"))
import crashgen  # noqa: E402
import fccompare  # noqa: E402

SRC = os.path.join(TOP, "tests", "j_crash_fc")


def unxz(name, dst):
    with open(dst, "wb") as out:
        subprocess.run(["xz", "-dc", os.path.join(SRC, name + ".img.xz")],
                       stdout=out, check=True)


def spoil_first_tail(img):
    """Flip one byte of the crc in the first verified TAIL of @img."""
    tails = []
    tid, bs, _ = fccompare.records(img, tails)
    if not tails:
        raise SystemExit("mkimages: %s has no verified fast commit" % img)
    j, _ = crashgen.journal_of(img)
    jb, off = tails[0]
    blk = bytearray(j.read(jb))
    # TAIL: tag and length (4 bytes), tid (4), crc (4)
    blk[off + 8] ^= 0xFF
    j.write(jb, bytes(blk))
    return jb, off, len(tails)


def stale_head(img):
    """Make the tid in the HEAD of @img's area one older."""
    j, _ = crashgen.journal_of(img)
    jb = j.jsb.last + 1
    blk = bytearray(j.read(jb))
    # HEAD: tag and length (4 bytes), features (4), tid (4)
    tid = struct.unpack("<I", blk[8:12])[0]
    blk[8:12] = struct.pack("<I", (tid - 1) & 0xFFFFFFFF)
    j.write(jb, bytes(blk))
    return jb


def area_blocks(img):
    j, _ = crashgen.journal_of(img)
    return [j.phys(b) for b in range(j.jsb.last + 1, j.jsb.maxlen)]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in ("fc-6", "fcdir-1"):
        img = os.path.join(out, name + ".img")
        unxz(name, img)
        tails = []
        tid, _, _ = fccompare.records(img, tails)
        print("%s.img: HEAD tid %s, %d verified fast commits, as written"
              % (name, tid, len(tails)))
        torn = os.path.join(out, name + "-torn1.img")
        shutil.copyfile(img, torn)
        jb, off, n = spoil_first_tail(torn)
        tails = []
        tid, _, _ = fccompare.records(torn, tails)
        print("%s-torn1.img: HEAD tid %s, %d verified fast commits, the "
              "crc of the first TAIL (journal block %d, offset %d) spoiled"
              % (name, tid, len(tails), jb, off))
        stale = os.path.join(out, name + "-stale.img")
        shutil.copyfile(img, stale)
        jb = stale_head(stale)
        tid, _, _ = fccompare.records(stale, [])
        print("%s-stale.img: HEAD tid %s (journal block %d), one older "
              "than the log expects" % (name, tid, jb))
        with open(os.path.join(out, name + ".area"), "w") as f:
            f.write("".join("%d\n" % b for b in area_blocks(img)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
