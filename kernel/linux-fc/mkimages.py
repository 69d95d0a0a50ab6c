#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkimages.py: the images check-kernel-fc.sh boots Linux on.

Usage: mkimages.py OUTDIR

Crash images written by Linux itself, as they are, and damaged copies:

  fc-6.img, fcdir-1.img   tests/j_crash_fc's, written by Linux 6.1 under
                          User-Mode Linux (make check-crash, `fc`
                          configuration, seeds 6 and 1)
  fcmix-7.img, fcmix-8.img  images/ here, written by Linux 6.18.44
                          through loop mounts (make check-crash-host's
                          hostgen.py, `fcmix` configuration, seeds 7
                          and 8; the .json beside each says how)

fc-6, fcmix-7 and fcmix-8 hold an INODE record of a file unlinked while
open (no link): Linux's replay fails on them.  fcdir-1's fast commits
grow a directory, which Linux replays: the control.  For fc-6, fcdir-1
and fcmix-8 it also writes

  NAME-torn1.img   the crc in the TAIL of the first fast commit spoiled
                   (one byte), as a power cut while the first fast
                   commit after a full commit was written leaves it:
                   never acknowledged
  NAME-stale.img   the tid in HEAD one older: what a full commit after
                   fast commits leaves, which Linux already passes over
                   quietly (the full commits alone are replayed): the
                   reference for NAME-torn1

and for each image as written NAME.unlinked, the inodes its INODE
records leave with no link, one a line.  Prints one line per image:
name, the tid of the area's HEAD, the number of verified fast commits,
and what was changed.
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

SRC = {"fc-6": os.path.join(TOP, "tests", "j_crash_fc"),
       "fcdir-1": os.path.join(TOP, "tests", "j_crash_fc"),
       "fcmix-7": os.path.join(HERE, "images"),
       "fcmix-8": os.path.join(HERE, "images")}
DAMAGED = ("fc-6", "fcdir-1", "fcmix-8")


def unxz(name, dst):
    with open(dst, "wb") as out:
        subprocess.run(["xz", "-dc", os.path.join(SRC[name],
                                                  name + ".img.xz")],
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


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sorted(SRC):
        img = os.path.join(out, name + ".img")
        unxz(name, img)
        tails = []
        tid, _, recs = fccompare.records(img, tails)
        dead = sorted(fccompare.unlinked_inode_records(recs))
        with open(os.path.join(out, name + ".unlinked"), "w") as f:
            f.write("".join("%d\n" % i for i in dead))
        print("%s.img: HEAD tid %s, %d verified fast commits, as written%s"
              % (name, tid, len(tails), "; INODE with no link: inode %s" %
                 ", ".join(map(str, dead)) if dead else ""))
        if name not in DAMAGED:
            continue
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
