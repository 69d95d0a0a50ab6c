#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""beswap.py WORKDIR: check crashcheck.py's allowance for e2fsprogs'
big-endian i_block swap (BE_ENGINE) on an image made by mke2fs and
debugfs: a cleared extent inode whose i_block words are byte-swapped is
excused, and nothing else is (a live inode, an inode that kept
EXTENTS_FL, a word left unswapped, another field changed, a block outside
the inode tables, or any block without BE_ENGINE).  Prints RESULT lines
for tests/run_jtests.sh (tests/j_crash_beswap)."""

import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import crashcheck  # noqa: E402
import crashgen  # noqa: E402

BS = 4096


def result(ok, what):
    print("RESULT %s j_crash_beswap: %s" % ("PASS" if ok else "FAIL", what))
    return ok


def sh(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def inode_at(ino, isize, first_table):
    """(block, offset in it) of inode @ino (group 0 only)."""
    off = (ino - 1) * isize
    return first_table + off // BS, off % BS


def swap_iblock(raw):
    """@raw (one inode) with i_block's 32-bit words byte-swapped, as
    e2fsprogs on a big-endian host writes a cleared extent inode."""
    words = b"".join(raw[k:k + 4][::-1] for k in range(0x28, 0x64, 4))
    return raw[:0x28] + words + raw[0x64:0x7C] + b"\x5a\xa5" + \
        raw[0x7E:0x82] + b"\xc3\x3c" + raw[0x84:]


class Im:
    """What judge_blocks() needs of crashcheck.Image."""
    def __init__(self, itables, isize):
        self.bs, self.sb_block = BS, 0
        self.itables, self.isize = itables, isize


def main(work):
    mke2fs = os.environ.get("MKE2FS", "mke2fs")
    debugfs = os.environ.get("DEBUGFS", "debugfs")
    img = os.path.join(work, "be.img")
    data = os.path.join(work, "data")
    with open(data, "wb") as f:
        f.write(b"x" * 10000)
    sh(mke2fs, "-q", "-F", "-t", "ext4", "-b", str(BS), "-O",
       "metadata_csum,64bit", img, "16M")
    cmds = ["write %s cleared" % data, "write %s kept" % data,
            "write %s live" % data,
            "sif cleared links_count 0", "sif cleared dtime 1800000000",
            "sif cleared flags 0",
            "sif kept links_count 0", "sif kept dtime 1800000000"]
    for c in cmds:
        sh(debugfs, "-w", "-R", c, img)
    inos = {}
    for name in ("cleared", "kept", "live"):
        out = subprocess.run([debugfs, "-R", "stat " + name, img],
                             capture_output=True, text=True).stdout
        inos[name] = int(out.split("Inode: ")[1].split()[0])
    sb = crashgen.sb_of(img)
    isize = struct.unpack("<H", sb[0x58:0x5A])[0]
    tables = crashcheck.inode_tables(img, sb, BS)
    first = min(tables)
    ok = True
    # the same blocks as dumpe2fs says
    out = subprocess.run([os.environ.get("DUMPE2FS", "dumpe2fs"), img],
                         capture_output=True, text=True).stdout
    want = set()
    for line in out.splitlines():
        if "Inode table at " in line:
            a, b = line.split("Inode table at ")[1].split()[0].split("-")
            want.update(range(int(a), int(b) + 1))
    ok &= result(bool(want) and tables == want, "inode tables read from the "
                 "descriptors = dumpe2fs (%d blocks from %d)"
                 % (len(tables), first))
    with open(img, "rb") as f:
        raw = f.read()

    def block(n):
        return raw[n * BS:(n + 1) * BS]

    def edit(name, fn):
        """The inode table block of @name, and a copy with fn(inode)."""
        n, o = inode_at(inos[name], isize, first)
        b = block(n)
        return n, b, b[:o] + fn(b[o:o + isize]) + b[o + isize:]

    cases = [
        ("cleared", swap_iblock, True,
         "a cleared inode's i_block words swapped: excused"),
        ("live", swap_iblock, False,
         "a live inode's i_block swapped: reported"),
        ("kept", swap_iblock, False,
         "an unlinked inode that kept EXTENTS_FL, swapped: reported"),
        ("cleared", lambda r: swap_iblock(r)[:0x28] + r[0x28:0x2C] +
         swap_iblock(r)[0x2C:], False,
         "one i_block word left as it was: reported"),
        ("cleared", lambda r: swap_iblock(r)[:4] + b"\x01" +
         swap_iblock(r)[5:], False,
         "i_size changed too: reported"),
    ]
    for name, fn, want, what in cases:
        n, x, y = edit(name, fn)
        if x == y:
            ok &= result(False, what + " (the edit changed nothing)")
            continue
        excused = []
        c = crashcheck.Checker(work)
        bad = c.judge_blocks(Im(tables, isize), [(n, x, y)], 0, 0, excused)
        ok &= result((excused == [n] and not bad) if want else
                     (bad == ["block %d" % n] and not excused), what)
    # outside the inode tables, and without BE_ENGINE (no tables known)
    n, x, y = edit("cleared", swap_iblock)
    for tabs, what in ((tables - {n}, "the same bytes outside the inode "
                        "tables: reported"),
                       (set(), "without BE_ENGINE: reported")):
        excused = []
        bad = crashcheck.Checker(work).judge_blocks(
            Im(tabs, isize), [(n, x, y)], 0, 0, excused)
        ok &= result(bad == ["block %d" % n] and not excused, what)
    # without a list to fill (every other comparison): reported
    bad = crashcheck.Checker(work).judge_blocks(Im(tables, isize),
                                                [(n, x, y)], 0, 0)
    ok &= result(bad == ["block %d" % n], "a comparison that takes no "
                 "excuse: reported")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
