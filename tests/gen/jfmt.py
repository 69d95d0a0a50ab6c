# SPDX-License-Identifier: GPL-2.0
"""jfmt.py: what the journal tests need to know about images.

A small, independent reading of the JBD2 format (FORMAT.md) used to check
that a generated journal holds what its recipe asked for, to move a log so
that it wraps, and to read the layout of a filesystem from dumpe2fs and
debugfs output.  It trusts nothing it reads: every count is bounded.
"""

import re
import struct
import subprocess

MAGIC = 0xC03B3998
DESCRIPTOR, COMMIT, SB_V1, SB_V2, REVOKE = 1, 2, 3, 4, 5
F_ESCAPE, F_SAME_UUID, F_DELETED, F_LAST_TAG = 1, 2, 4, 8
COMPAT_CHECKSUM = 0x1
INCOMPAT_REVOKE, INCOMPAT_64BIT, INCOMPAT_ASYNC = 0x1, 0x2, 0x4
INCOMPAT_CSUM_V2, INCOMPAT_CSUM_V3, INCOMPAT_FAST_COMMIT = 0x8, 0x10, 0x20


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc32c_table()


def crc32c(crc, data):
    """The raw crc32c register (no final inversion), as FORMAT.md says."""
    for b in data:
        crc = _CRC32C[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def _crc32be_table():
    table = []
    for i in range(256):
        c = i << 24
        for _ in range(8):
            c = ((c << 1) ^ 0x04C11DB7) if c & 0x80000000 else c << 1
        table.append(c & 0xFFFFFFFF)
    return table


_CRC32BE = _crc32be_table()


def crc32_be(crc, data):
    """Big-endian crc32 register, as libext2fs' ext2fs_crc32_be."""
    for b in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC32BE[((crc >> 24) ^ b) & 0xFF]
    return crc


def jsb_set_checksum(jsb):
    """Recompute s_checksum of a 1024-byte journal superblock (bytearray)."""
    jsb[0xFC:0x100] = b"\0\0\0\0"
    jsb[0xFC:0x100] = struct.pack(">I", crc32c(0xFFFFFFFF, bytes(jsb[:1024])))


class JSB:
    """The fields of a journal superblock the tests use."""

    def __init__(self, raw):
        (self.magic, self.blocktype, self.sequence0, self.blocksize,
         self.maxlen, self.first, self.sequence, self.start, self.errno,
         self.compat, self.incompat, self.rocompat) = struct.unpack(
             ">IIIIIIIIiIII", raw[:48])
        self.uuid = bytes(raw[0x30:0x40])
        self.nr_users = struct.unpack(">I", raw[0x40:0x44])[0]
        self.num_fc = struct.unpack(">I", raw[0x54:0x58])[0]
        v2 = self.blocktype == SB_V2
        if not v2:
            self.compat = self.incompat = 0
        self.csum_v3 = bool(self.incompat & INCOMPAT_CSUM_V3)
        self.csum_v2 = bool(self.incompat & INCOMPAT_CSUM_V2)
        self.csum_v1 = bool(self.compat & COMPAT_CHECKSUM)
        self.is_64 = bool(self.incompat & INCOMPAT_64BIT)
        self.last = self.maxlen
        if self.incompat & INCOMPAT_FAST_COMMIT:
            self.last -= self.num_fc or 256

    def tag_bytes(self):
        if self.csum_v3:
            return 16
        size = 12
        if self.csum_v2:
            size += 2
        return size if self.is_64 else size - 4

    def tail_bytes(self):
        return 4 if (self.csum_v2 or self.csum_v3) else 0


def tags(jsb, bs, blk):
    """The tags of descriptor block @blk (bytes) of a journal with
    superblock @jsb, as recovery reads them: (byte offset, fsblock,
    flags) each."""
    tb, tail = jsb.tag_bytes(), jsb.tail_bytes()
    off = 12
    while off + tb <= bs - tail:
        fsblock = struct.unpack(">I", blk[off:off + 4])[0]
        if jsb.csum_v3:
            flags = struct.unpack(">I", blk[off + 4:off + 8])[0]
        else:
            flags = struct.unpack(">H", blk[off + 6:off + 8])[0]
        if jsb.is_64:
            fsblock |= struct.unpack(">I", blk[off + 8:off + 12])[0] << 32
        yield off, fsblock, flags
        off += tb + (0 if flags & F_SAME_UUID else 16)
        if flags & F_LAST_TAG:
            break


class Journal:
    """Logical journal blocks of an image: an internal journal through its
    block map, or an external journal device (logical = device block)."""

    def __init__(self, path, blocksize, blockmap=None, sb_block=0):
        self.path = path
        self.bs = blocksize
        self.map = blockmap
        self.sb_block = sb_block
        self.jsb = JSB(self.read(sb_block))

    def phys(self, lblk):
        if self.map is None:
            return lblk
        if lblk < 0 or lblk >= len(self.map):
            raise IndexError("journal block %d outside the journal" % lblk)
        return self.map[lblk]

    def read(self, lblk):
        with open(self.path, "rb") as f:
            f.seek(self.phys(lblk) * self.bs)
            data = f.read(self.bs)
        if len(data) != self.bs:
            raise IOError("short read of journal block %d" % lblk)
        return data

    def write(self, lblk, data):
        assert len(data) == self.bs
        with open(self.path, "r+b") as f:
            f.seek(self.phys(lblk) * self.bs)
            f.write(data)

    def next(self, b):
        b += 1
        if b >= self.jsb.last:
            b = self.jsb.first + (b - self.jsb.last)
        return b

    def walk(self, start=None, sequence=None):
        """Walk the log like recovery's scan.  Returns (txns, end, used):
        txns is a list of dicts (tid, tags [(fsblock, jblock, flags)],
        revokes [fsblock], blocks {jblock: kind}, committed); end the block
        where the walk stopped; used the number of log blocks walked."""
        jsb = self.jsb
        b = jsb.start if start is None else start
        seq = jsb.sequence if sequence is None else sequence
        txns, cur, used = [], None, 0
        if b == 0:
            return txns, 0, 0
        tail = jsb.tail_bytes()
        limit = jsb.last - jsb.first
        while used <= limit:
            blk = self.read(b)
            magic, btype, bseq = struct.unpack(">III", blk[:12])
            if magic != MAGIC or bseq != seq:
                break
            if cur is None:
                cur = {"tid": seq, "tags": [], "revokes": [], "blocks": {},
                       "committed": False}
                txns.append(cur)
            if btype == DESCRIPTOR:
                cur["blocks"][b] = "descriptor"
                jb = b
                for _, fsblock, flags in tags(jsb, self.bs, blk):
                    jb = self.next(jb)
                    cur["tags"].append((fsblock, jb, flags))
                    cur["blocks"][jb] = "data"
                    used += 1
                used += 1
                b = self.next(jb)
                continue
            if btype == REVOKE:
                cur["blocks"][b] = "revoke"
                rec = 8 if jsb.is_64 else 4
                count = struct.unpack(">I", blk[12:16])[0]
                end = min(count, self.bs - tail)
                off = 16
                while off + rec <= end:
                    fmt = ">Q" if rec == 8 else ">I"
                    cur["revokes"].append(
                        struct.unpack(fmt, blk[off:off + rec])[0])
                    off += rec
            elif btype == COMMIT:
                cur["blocks"][b] = "commit"
                cur["committed"] = True
                cur = None
                seq = (seq + 1) & 0xFFFFFFFF
            else:
                break
            used += 1
            b = self.next(b)
        return txns, b, used


def run(cmd, env, stdin=None, cwd=None, merge=False, timeout=None):
    """(status, stdout, stderr) of @cmd, run in @cwd; with @merge stderr
    goes into stdout (interleaved as written) and comes back empty.  A
    program that cannot be started gives status 127, as in the shell; one
    still running after @timeout seconds is killed and gives None."""
    try:
        p = subprocess.run(cmd, env=env, input=stdin, cwd=cwd,
                           stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT if merge
                           else subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    except OSError as e:
        return 127, "", "%s: %s\n" % (cmd[0], e)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace") if p.stderr else "")


def tid_le(a, b):
    """Transaction id a <= b, modulo 2^32 (as JBD2 compares them)."""
    return ((b - a) & 0xFFFFFFFF) < 0x80000000


def _ranges(text):
    """Block numbers of "1-3, 7, 9-10"."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        m = re.match(r"^(\d+)(?:-(\d+))?$", part)
        if not m:
            continue
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.extend(range(lo, hi + 1))
    return out


class Layout:
    """What dumpe2fs says about a filesystem image."""

    def __init__(self, dumpe2fs, img, env):
        rc, out, err = run([dumpe2fs, img], env)
        if rc != 0:
            raise RuntimeError("dumpe2fs %s failed: %s" % (img, err))
        self.sb_gdt = set()     # superblocks, group descriptors, reserved GDT
        self.bitmaps = []
        self.itables = []
        self.free = []
        self.features = set()
        self.blocks = 0
        self.bs = 0
        for line in out.splitlines():
            s = line.strip()
            if s.startswith("Filesystem features:"):
                self.features = set(s.split(":", 1)[1].split())
            elif s.startswith("Block count:"):
                self.blocks = int(s.split(":")[1])
            elif s.startswith("Block size:"):
                self.bs = int(s.split(":")[1])
            for m in re.finditer(r"superblock at (\d+)", s):
                self.sb_gdt.add(int(m.group(1)))
            for m in re.finditer(
                    r"(Group descriptors|Reserved GDT blocks) at (\d+)-(\d+)",
                    s):
                self.sb_gdt.update(range(int(m.group(2)),
                                         int(m.group(3)) + 1))
            m = re.match(r"(Block|Inode) bitmap at (\d+)", s)
            if m:
                self.bitmaps.append(int(m.group(2)))
            m = re.match(r"Inode table at (\d+)-(\d+)", s)
            if m:
                self.itables.extend(range(int(m.group(1)),
                                          int(m.group(2)) + 1))
            # Only the groups' lists: the header's "Free blocks:" is a count.
            if line.startswith("  Free blocks: "):
                self.free.extend(_ranges(s.split(":", 1)[1]))
        if self.bs == 0 or self.blocks == 0:
            raise RuntimeError("dumpe2fs %s: no block size/count" % img)
        # With 4 KiB blocks the primary superblock lives in block 0.
        if 0 in self.sb_gdt or self.bs > 1024:
            self.sb_gdt.add(0)


def journal_inode_blocks(debugfs, img, env, ino=8, opts=()):
    """(logical map, all blocks incl. mapping metadata) of inode @ino;
    @opts are more debugfs options (-c: a filesystem whose bitmaps do not
    read)."""
    rc, out, err = run([debugfs] + list(opts) + ["-R", "stat <%d>" % ino,
                                                 img], env)
    if rc != 0:
        raise RuntimeError("debugfs stat <%d> failed: %s" % (ino, err))
    lmap = {}
    meta = set()
    for m in re.finditer(r"\(([0-9A-Z-]+)\):(\d+)(?:-(\d+))?", out):
        key, lo = m.group(1), int(m.group(2))
        hi = int(m.group(3)) if m.group(3) else lo
        km = re.match(r"^(\d+)(?:-(\d+))?$", key)
        if km:
            l0 = int(km.group(1))
            for i, p in enumerate(range(lo, hi + 1)):
                lmap[l0 + i] = p
        else:
            meta.update(range(lo, hi + 1))
    if not lmap:
        raise RuntimeError("no block map for inode %d in %s" % (ino, img))
    n = max(lmap) + 1
    if len(lmap) != n:
        raise RuntimeError("journal inode of %s has holes" % img)
    blockmap = [lmap[i] for i in range(n)]
    return blockmap, set(blockmap) | meta


def ext_journal_sb_block(bs):
    """Device block of an external journal's superblock: the block after
    the ext2 superblock (which sits at byte 1024)."""
    return 2 if bs == 1024 else 1
