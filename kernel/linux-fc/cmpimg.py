#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cmpimg.py: the blocks in which two results of a mount differ, but
for what the mount's clock alone makes differ.

Usage: cmpimg.py A B
       cmpimg.py --fc ORIG LINUX OURS

A and B are copies of one crash image (or of two copies damaged in
different places of the fast-commit area), each mounted and unmounted
by a kernel.  Prints the numbers of the blocks that differ, on one line
(nothing when they agree), leaving out:
  - the superblock's block (mount and write times, mount count);
  - the journal's blocks but its superblock (the transactions the
    mount itself commits: orphan cleanup, the superblock; the
    fast-commit area, where the copies were damaged);
  - in the inode tables, the time fields of each inode and its
    checksum (orphan cleanup sets i_dtime and i_ctime to the time of
    the boot); every other byte of the inode is compared.

--fc: every inode and name the verified fast commits of ORIG (the
crash image) touch, in LINUX (a kernel's mount of a copy) against OURS
(our e2fsck -E journal_only of a copy), as tests/crash/fccompare.py
compares them for the crash corpora (Linux's short i_blocks and link
counts, doc/policy.md, taken as e2fsck -fn corrects them).  Prints
"N checks, M differ" and each difference; exit 1 when one differs.
"""

import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
sys.path.insert(0, os.path.join(TOP, "tests", "crash"))
import crashgen  # noqa: E402
import fccompare  # noqa: E402

# ext4 inode fields set from the clock: (offset, length)
TIMES = ((0x08, 4), (0x0C, 4), (0x10, 4), (0x14, 4),  # a, c, m, dtime
         (0x7C, 2), (0x82, 2),                        # checksum lo, hi
         (0x84, 4), (0x88, 4), (0x8C, 4),             # c, m, a extra
         (0x90, 4), (0x94, 4))                        # crtime, extra


def inode_tables(img):
    out = subprocess.run(["dumpe2fs", img], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL,
                         env=dict(os.environ, LC_ALL="C")).stdout.decode()
    blocks = set()
    for a, b in re.findall(r"Inode table at (\d+)-(\d+)", out):
        blocks.update(range(int(a), int(b) + 1))
    return blocks


def masked(blk, isize):
    b = bytearray(blk)
    for base in range(0, len(b), isize):
        for off, ln in TIMES:
            if off + ln <= isize:
                b[base + off:base + off + ln] = bytes(ln)
    return bytes(b)


def fc(orig, linux, ours):
    _, bs, recs = fccompare.records(orig)
    fn = subprocess.run(["e2fsck", "-fn", linux], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        env=dict(os.environ, LC_ALL="C")).stdout.decode()
    res = fccompare.compare(ours, linux, recs, bs, fn)
    res += fccompare.iblocks_from_map(ours, recs, bs)
    bad = [w + ": " + y for ok, w, y in res if not ok]
    print("%d checks, %d differ" % (len(res), len(bad)))
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--fc":
        return fc(*sys.argv[2:5])
    a, b = sys.argv[1:3]
    fa, fb = open(a, "rb").read(), open(b, "rb").read()
    sb = fa[1024:2048]
    bs = 1024 << struct.unpack("<I", sb[24:28])[0]
    isize = struct.unpack("<H", sb[0x58:0x5A])[0]
    j, bmap = crashgen.journal_of(a)
    skip = set(bmap[1:]) | {1024 // bs}
    itab = inode_tables(a)
    diff = []
    for n in range(min(len(fa), len(fb)) // bs):
        x, y = fa[n * bs:(n + 1) * bs], fb[n * bs:(n + 1) * bs]
        if n in skip or x == y:
            continue
        if n in itab and masked(x, isize) == masked(y, isize):
            continue
        diff.append(n)
    if len(fa) != len(fb):
        diff.append("size")
    print(" ".join(str(n) for n in diff))
    return 0


if __name__ == "__main__":
    sys.exit(main())
