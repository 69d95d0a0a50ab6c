#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jtool.py - damage the JBD2 journal of an ext4 image in one exact place.

Used by check-kernel.sh to build its test images until the project's own
writer (`e2journal write` / `e2journal corrupt`) can make them.  The
journal itself is written by `debugfs -w` (jo/jw/jc); this tool walks the
log it wrote and flips the byte a test names, fixing every checksum that
the test does not mean to break.

    jtool.py IMAGE OP [ARGS] [OP [ARGS] ...]

OPs (transactions are named by tid, data blocks and tags count from 0):
    layout               print the transactions found in the log
    set-sequence N       make the journal superblock expect tid N first
    set-async            turn on the async_commit journal feature
    commit-csum TID      break TID's commit checksum (one byte of the time)
    commit-garble TID    wipe the magic number of TID's commit block
    commit-torn TID      overwrite TID's commit block after 512 bytes
    data-flip TID N      flip one byte of TID's data block N
    descr-flip TID       flip one unused byte of TID's first descriptor
    tag-block TID N BLK  make tag N of TID name filesystem block BLK
"""

import os
import struct
import subprocess
import sys

# The format's numbers and crc32c: tests/gen/jfmt.py, the tests' reading
# of FORMAT.md.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "gen"))
from jfmt import (  # noqa: E402
    COMMIT, DESCRIPTOR, F_LAST_TAG, F_SAME_UUID, INCOMPAT_64BIT,
    INCOMPAT_ASYNC, INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3, MAGIC, REVOKE, SB_V1,
    SB_V2, crc32c)


class Journal:
    def __init__(self, path):
        self.path = path
        self.f = open(path, "r+b")
        self.f.seek(1024 + 24)
        self.bs = 1024 << struct.unpack("<I", self.f.read(4))[0]
        out = subprocess.run(["debugfs", "-R", "blocks <8>", path],
                             capture_output=True, text=True, check=True)
        self.map = [int(x) for x in out.stdout.split()]
        if not self.map:
            sys.exit("jtool: %s has no journal inode" % path)
        self.load_sb()

    def read(self, lblk):
        self.f.seek(self.map[lblk] * self.bs)
        return bytearray(self.f.read(self.bs))

    def write(self, lblk, buf):
        self.f.seek(self.map[lblk] * self.bs)
        self.f.write(bytes(buf))

    def load_sb(self):
        sb = self.read(0)
        magic, btype = struct.unpack(">II", sb[0:8])
        if magic != MAGIC or btype not in (SB_V1, SB_V2):
            sys.exit("jtool: no journal superblock")
        (self.maxlen, self.first, self.sequence,
         self.start) = struct.unpack(">IIII", sb[16:32])
        self.incompat = struct.unpack(">I", sb[0x28:0x2C])[0]
        self.seed = crc32c(0xFFFFFFFF, sb[0x30:0x40])

    def csum_v2v3(self):
        return bool(self.incompat & (INCOMPAT_CSUM_V2 | INCOMPAT_CSUM_V3))

    def write_sb(self, sb):
        if self.csum_v2v3():
            sb[0xFC:0x100] = b"\0\0\0\0"
            crc = crc32c(0xFFFFFFFF, sb[:1024])
            sb[0xFC:0x100] = struct.pack(">I", crc)
        self.write(0, sb)
        self.load_sb()

    def tag_bytes(self):
        if self.incompat & INCOMPAT_CSUM_V3:
            return 16
        size = 12
        if self.incompat & INCOMPAT_CSUM_V2:
            size += 2
        if not self.incompat & INCOMPAT_64BIT:
            size -= 4
        return size

    def tags(self, buf):
        """(offset, flags) of each tag of a descriptor block."""
        space = self.bs - (4 if self.csum_v2v3() else 0)
        off, out = 12, []
        while off + self.tag_bytes() <= space:
            if self.incompat & INCOMPAT_CSUM_V3:
                flags = struct.unpack(">I", buf[off + 4:off + 8])[0]
            else:
                flags = struct.unpack(">H", buf[off + 6:off + 8])[0]
            out.append((off, flags))
            off += self.tag_bytes()
            if not flags & F_SAME_UUID:
                off += 16
            if flags & F_LAST_TAG:
                break
        return out

    def walk(self):
        """The transactions of the log, as dicts, in order."""
        txns, blk, tid, cur = [], self.start, self.sequence, None
        loglen = self.maxlen - self.first
        for _ in range(loglen):
            if not blk:
                break
            buf = self.read(blk)
            magic, btype, seq = struct.unpack(">III", buf[0:12])
            if magic != MAGIC or seq != tid:
                break
            if cur is None:
                cur = {"tid": tid, "descr": [], "data": [], "revoke": [],
                       "commit": None}
                txns.append(cur)
            nxt = 1
            if btype == DESCRIPTOR:
                cur["descr"].append(blk)
                for i, (off, _flags) in enumerate(self.tags(buf)):
                    jblk = self.advance(blk, 1 + i)
                    cur["data"].append((jblk, blk, off))
                    nxt += 1
            elif btype == REVOKE:
                cur["revoke"].append(blk)
            elif btype == COMMIT:
                cur["commit"] = blk
                cur = None
                tid += 1
            else:
                break
            blk = self.advance(blk, nxt)
        return txns

    def advance(self, blk, n):
        return self.first + (blk - self.first + n) % (self.maxlen - self.first)

    def txn(self, tid):
        for t in self.walk():
            if t["tid"] == tid:
                return t
        sys.exit("jtool: no transaction %d in the log" % tid)

    def fix_descr(self, blk, buf):
        if self.csum_v2v3():
            buf[self.bs - 4:] = b"\0\0\0\0"
            buf[self.bs - 4:] = struct.pack(">I", crc32c(self.seed, buf))
        self.write(blk, buf)


def flip(buf, off):
    buf[off] ^= 0x5A


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    j = Journal(argv[1])
    args = argv[2:]
    while args:
        op = args.pop(0)
        if op == "layout":
            for t in j.walk():
                print("tid %d descr %s data %s revoke %s commit %s" % (
                    t["tid"], t["descr"], [d[0] for d in t["data"]],
                    t["revoke"], t["commit"]))
        elif op == "set-sequence":
            sb = j.read(0)
            sb[0x18:0x1C] = struct.pack(">I", int(args.pop(0)))
            j.write_sb(sb)
        elif op == "set-async":
            sb = j.read(0)
            inc = struct.unpack(">I", sb[0x28:0x2C])[0] | INCOMPAT_ASYNC
            sb[0x28:0x2C] = struct.pack(">I", inc)
            j.write_sb(sb)
        elif op in ("commit-csum", "commit-garble", "commit-torn"):
            blk = j.txn(int(args.pop(0)))["commit"]
            buf = j.read(blk)
            if op == "commit-csum":
                flip(buf, 59)		# low byte of h_commit_nsec
            elif op == "commit-garble":
                buf[0:4] = b"\0\0\0\0"
            else:
                buf[512:] = b"\x5a" * (j.bs - 512)
            j.write(blk, buf)
        elif op == "data-flip":
            t = j.txn(int(args.pop(0)))
            jblk = t["data"][int(args.pop(0))][0]
            buf = j.read(jblk)
            flip(buf, j.bs // 2)
            j.write(jblk, buf)
        elif op == "descr-flip":
            blk = j.txn(int(args.pop(0)))["descr"][0]
            buf = j.read(blk)
            flip(buf, j.bs - 8)
            j.write(blk, buf)
        elif op == "tag-block":
            t = j.txn(int(args.pop(0)))
            _jblk, dblk, off = t["data"][int(args.pop(0))]
            new = int(args.pop(0))
            buf = j.read(dblk)
            buf[off:off + 4] = struct.pack(">I", new & 0xFFFFFFFF)
            if j.incompat & INCOMPAT_64BIT:
                hi = 8
                buf[off + hi:off + hi + 4] = struct.pack(">I", new >> 32)
            elif new >> 32:
                sys.exit("jtool: block %d needs a 64bit journal" % new)
            j.fix_descr(dblk, buf)
        else:
            sys.exit("jtool: unknown operation %s" % op)
    j.f.close()


if __name__ == "__main__":
    main(sys.argv)
