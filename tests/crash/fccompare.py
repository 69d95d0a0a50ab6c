# SPDX-License-Identifier: GPL-2.0
"""fccompare.py: what the fast commits of a crash image touch, and our
replay of them against Linux's, on those inodes and names.

Shared by tests/j_fc_host/fchost.py (images kept in the tree) and
tests/crash/crashcheck.py (the kernel corpora, make check-crash and
make check-crash-host).

records(img): (tid, block size, [(tag, value)]) of the verified fast
commits of @img's fast-commit area (HEAD's tid; a TAIL must carry it and
the crc of its fast commit, else the scan ends).
touched(recs): the inodes (INODE, ADD_RANGE, DEL_RANGE, and the inodes
and parents CREAT, LINK and UNLINK name) and the names.
compare(ours, linux, recs, bs, linux_fn): [(ok, what, why)] on every
touched inode (type, mode, size, links, i_blocks, block map; the inodes
that names name included) and name,
with Linux's own errors that doc/policy.md lists (Linux's fast-commit
replay leaves i_blocks and link counts short: e2fsck -fn's corrections
of them in @linux_fn, its output on Linux's image) taken as corrected
and said in the `what`.
"""

import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
sys.path.insert(0, HERE)
import jfmt  # noqa: E402
import crashgen  # noqa: E402

DEBUGFS = os.environ.get("DEBUGFS", "debugfs")
ENV = dict(os.environ, LC_ALL="C")
HEAD, TAIL = 9, 8
ADD_RANGE, DEL_RANGE, CREAT, LINK, UNLINK, INODE = 1, 2, 3, 4, 5, 6


def debugfs(img, req):
    p = subprocess.run([DEBUGFS, "-R", req, img], env=ENV,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.stdout.decode("utf-8", "replace")


def records(img, tails=None):
    """@tails, a list: the journal block and offset of each verified
    TAIL are appended to it."""
    j, _ = crashgen.journal_of(img)
    bs = j.bs if hasattr(j, "bs") else \
        1024 << struct.unpack("<I", crashgen.sb_of(img)[24:28])[0]
    area = b"".join(j.read(b) for b in range(j.jsb.last + 1,
                                               j.jsb.maxlen))
    if len(area) < 12 or struct.unpack("<H", area[:2])[0] != HEAD:
        return None, bs, []
    tid = struct.unpack("<I", area[8:12])[0]
    out, cur, crc, pos = [], [], 0, 0
    while pos + 4 <= len(area):
        if pos % bs + 4 > bs:
            pos += bs - pos % bs
            continue
        tag, ln = struct.unpack("<HH", area[pos:pos + 4])
        if tag < 1 or tag > 9 or pos % bs + 4 + ln > bs:
            break
        if tag == TAIL:
            crc = jfmt.crc32c(crc, area[pos:pos + 8])
            t, c = struct.unpack("<II", area[pos + 4:pos + 12])
            if t != tid or c != crc:
                break
            out += cur
            if tails is not None:
                tails.append((j.jsb.last + 1 + pos // bs, pos % bs))
            cur, crc = [], 0
            pos += 4 + ln
            continue
        crc = jfmt.crc32c(crc, area[pos:pos + 4 + ln])
        cur.append((tag, area[pos + 4:pos + 4 + ln]))
        pos += 4 + ln
    return tid, bs, out


def area_full(img):
    """Whether a verified fast commit ends in the journal's last block:
    the fast commits fill the area.  Linux's scan (fc_do_one_pass())
    then asks for one block more, j_fc_last, which is s_maxlen, past the
    journal: jread() says "JBD2: corrupted journal superblock" and the
    recovery, so the mount, fails."""
    tails = []
    records(img, tails)
    j, _ = crashgen.journal_of(img)
    return any(b == j.jsb.maxlen - 1 for b, _ in tails)


def touched(recs):
    """(inodes, names): names as (tag, parent, name, inode)."""
    inos, names = set(), []
    for tag, v in recs:
        if tag in (ADD_RANGE, DEL_RANGE, INODE):
            inos.add(struct.unpack("<I", v[:4])[0])
        elif tag in (CREAT, LINK, UNLINK):
            p, i = struct.unpack("<II", v[:8])
            names.append((tag, p, v[8:].decode("latin-1"), i))
    return inos, names


def unlinked_inode_records(recs):
    """Inodes an INODE record writes with i_links_count 0 (a file
    unlinked while open): Linux refuses to mount such images."""
    out = set()
    for tag, v in recs:
        if tag == INODE and len(v) >= 4 + 28:
            raw = v[4:]
            if struct.unpack("<H", raw[26:28])[0] == 0:
                out.add(struct.unpack("<I", v[:4])[0])
    return out


def stat(img, ino):
    out = debugfs(img, "stat <%d>" % ino)
    f = {}
    m = re.search(r"Type: (\S+)\s+Mode:\s+(\d+)", out)
    f["type"] = m and m.groups()
    m = re.search(r"Size: (\d+)", out)
    f["size"] = m and m.group(1)
    m = re.search(r"Links: (\d+)\s+Blockcount: (\d+)", out)
    f["links"] = m and m.group(1)
    f["iblocks"] = m and int(m.group(2))
    m = re.search(r"File ACL: (\d+)", out)
    f["acl"] = m and int(m.group(1))
    m = re.search(r"EXTENTS:\n(.*)", out)
    f["map"] = m.group(1).strip() if m else ""
    m = re.search(r"BLOCKS:\n(.*)", out)
    if m:
        f["map"] = m.group(1).strip()
    return f


def mapped(f, bs):
    """Blocks the map names (data and tree) and the xattr block, as
    512-byte sectors."""
    n = 1 if f.get("acl") else 0
    for part in f["map"].split(","):
        m = re.search(r":(\d+)(?:-(\d+))?$", part.strip())
        if m:
            a = int(m.group(1))
            b = int(m.group(2) or a)
            n += b - a + 1
    return n * bs // 512


def data_map(m):
    """A debugfs map without its extent tree blocks."""
    return ", ".join(x.strip() for x in m.split(",")
                     if x.strip() and not x.strip().startswith("(ETB"))


def tree_blocks(m):
    return ", ".join(x.strip() for x in m.split(",")
                     if x.strip().startswith("(ETB"))


def lookup(img, parent, name):
    for line in debugfs(img, "ls -l <%d>" % parent).splitlines():
        w = line.split()
        if len(w) >= 2 and w[-1] == name:
            return int(w[0])
    return 0


def fn_fixes(out):
    """e2fsck -fn's corrections of i_blocks and link counts: {inode:
    {"iblocks": n, "links": "n"}}."""
    fix = {}
    for m in re.finditer(r"Inode (\d+), i_blocks is (\d+), should be "
                         r"(\d+)", out):
        fix.setdefault(int(m.group(1)), {})["iblocks"] = int(m.group(3))
    for m in re.finditer(r"Inode (\d+) ref count is (\d+), should be "
                         r"(\d+)", out):
        fix.setdefault(int(m.group(1)), {})["links"] = m.group(3)
    return fix


def compare(ours, linux, recs, bs, linux_fn=""):
    inos, names = touched(recs)
    # the inodes the names name too (an UNLINK must drop the link count)
    inos |= {i for _, _, _, i in names}
    fixes = fn_fixes(linux_fn)
    res = []
    for i in sorted(inos):
        a, b = stat(ours, i), stat(linux, i)
        if a["links"] == "0" and b["links"] == "0":
            # deleted in both (an orphan released): Linux truncates
            # it, e2fsck only frees its blocks and inode
            res.append((True, "inode %d deleted in both" % i, ""))
            continue
        notes = []
        for k, v in sorted(fixes.get(i, {}).items()):
            if a[k] == v and b[k] != v:
                notes.append("Linux's %s %s, e2fsck -fn says %s "
                             "(doc/policy.md: Linux's fast-commit replay "
                             "leaves i_blocks and link counts short)" %
                             ({"iblocks": "i_blocks",
                               "links": "link count"}[k], b[k], v))
                b[k] = v
        if b["iblocks"] != a["iblocks"] and b["iblocks"] != mapped(b, bs):
            notes.append("Linux's i_blocks %d, its map says %d" %
                         (b["iblocks"], mapped(b, bs)))
            b["iblocks"] = a["iblocks"]
        ta, tb = data_map(a["map"]), data_map(b["map"])
        if a["map"] != b["map"] and ta == tb and \
                a["iblocks"] == mapped(a, bs) and \
                b["iblocks"] == mapped(b, bs):
            # the same blocks at the same offsets, in extent trees of
            # different shape (Linux keeps an index block that a replay
            # which rebuilds the tree does not need): each i_blocks
            # counts its own tree
            notes.append("the same extents, Linux's tree %s, ours %s" %
                         (tree_blocks(b["map"]) or "in the inode",
                          tree_blocks(a["map"]) or "in the inode"))
            a, b = dict(a, map=ta, iblocks=0), dict(b, map=tb, iblocks=0)
        res.append((a == b, "inode %d as Linux replays it%s" %
                    (i, "; " + "; ".join(notes) if notes else ""),
                    "ours %s, Linux %s" % (a, b)))
    for tag, p, n, i in names:
        a, b = lookup(ours, p, n), lookup(linux, p, n)
        res.append((a == b, "name %d/%s as Linux replays it (%d)" %
                    (p, n, a), "ours %d, Linux %d" % (a, b)))
    return res


def iblocks_from_map(img, recs, bs):
    """[(ok, what, why)]: every touched inode in use has i_blocks counted
    from its map."""
    inos, _ = touched(recs)
    res = []
    for i in sorted(inos):
        f = stat(img, i)
        if f["type"] and f["links"] != "0":
            res.append((f["iblocks"] == mapped(f, bs),
                        "inode %d: i_blocks %d counted from its map" %
                        (i, f["iblocks"]), str(f)))
    return res


def layout(img):
    """(first bitmap block, {bitmap blocks}, [(table start, table end,
    first inode)], inode size): from debugfs' stats."""
    out = subprocess.run([DEBUGFS, "-c", "-R", "stats", img], env=ENV,
                         stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode()
    ipg = int(re.search(r"Inodes per group:\s+(\d+)", out).group(1))
    ibpg = int(re.search(r"Inode blocks per group:\s+(\d+)", out).group(1))
    isize = int(re.search(r"Inode size:\s+(\d+)", out).group(1))
    bitmaps, tables = set(), []
    for m in re.finditer(r"Group\s+(\d+): block bitmap at (\d+), inode "
                         r"bitmap at (\d+), inode table at (\d+)", out):
        g, bb, ib, it = map(int, m.groups())
        bitmaps |= {bb, ib}
        tables.append((it, it + ibpg - 1, g * ipg + 1))
    return min(bitmaps), bitmaps, tables, isize


def map_blocks(f):
    """Every block a debugfs stat map names (tree and data)."""
    out = set()
    for m in re.finditer(r":(\d+)(?:-(\d+))?", f["map"]):
        a = int(m.group(1))
        b = int(m.group(2) or a)
        if b - a < 1 << 16:
            out |= set(range(a, b + 1))
    return out


def unhooked_orphans(a, b, recs):
    """Orphans an INODE record may unhook from the orphan list: the next
    orphan (i_dtime) of each inode such a record writes, where that inode
    has no links in @a or @b.  Our replay puts them back at the head of
    the list (fc_replay.c, keep_orphans()), which writes their slots."""
    out = set()
    for tag, v in recs:
        if tag != INODE:
            continue
        i = struct.unpack("<I", v[:4])[0]
        for img in (a, b):
            s = debugfs(img, "stat <%d>" % i)
            m = re.search(r"dtime: 0x([0-9a-f]+)", s)
            if m and re.search(r"Links: 0\b", s):
                out.add(int(m.group(1), 16))
    return out


def outside_fc(a, b, recs, bs, blocks):
    """Blocks of @blocks (the full commits' logged blocks) where images
    @a and @b differ in what the fast commits cannot have written: the
    superblock, group descriptors and bitmaps, the inode-table slots of
    the inodes the records touch, and the blocks of those inodes (and of
    the directories their names are in) are theirs.  A list of block
    numbers (empty: no full commit lost)."""
    inos, names = touched(recs)
    for _, p, _, i in names:
        inos |= {p, i}
    inos |= unhooked_orphans(a, b, recs)
    first, bitmaps, tables, isize = layout(a)
    theirs = set()
    for i in inos:
        for img in (a, b):
            theirs |= map_blocks(stat(img, i))
    bad = []
    with open(a, "rb") as fa, open(b, "rb") as fb:
        for n in sorted(blocks):
            x = os.pread(fa.fileno(), bs, n * bs)
            y = os.pread(fb.fileno(), bs, n * bs)
            if x == y or n < first or n in bitmaps or n in theirs:
                continue
            t = next((t for t in tables if t[0] <= n <= t[1]), None)
            if t:
                per = bs // isize
                base = t[2] + (n - t[0]) * per
                slots = [base + k for k in range(per)
                         if x[k * isize:(k + 1) * isize] !=
                         y[k * isize:(k + 1) * isize]]
                if all(s in inos for s in slots):
                    continue
            bad.append(n)
    return bad
