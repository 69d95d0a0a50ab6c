# SPDX-License-Identifier: GPL-2.0
"""j_fc_rows: POLICY.md "Fast commits", row by row, on crafted fast-commit
areas written over a kernel-cut image (../j_fc_host/plain-1.img.xz, whose
log ends before the expected tid).  Each case rewrites the area (HEAD,
fast commits of LINK/UNLINK/CREAT/ADD_RANGE/DEL_RANGE/INODE records, each
closed by a TAIL with its crc32c, as ext4 writes them), then replays it
with e2journal under replay-all and refuse and checks what the row says:
what is replayed (names in directory 12), the exit status (0 clean, 1
flagged, 4 refused: nothing at all written, the full commits included)
and that stock e2fsck -fn finds the result clean where the row replays.
"""

import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", os.path.join(
    os.environ["T"], "..", "..")), "tests", "lib"))
from fctest import T, EJ, DEBUGFS, ENV, DIR, FILE, Area, run  # noqa: E402
import fctest  # noqa: E402
import jfmt  # noqa: E402

G = {}
result = fctest.Results("j_fc_rows")


def setup():
    fctest.unxz(os.path.join(T, "..", "j_fc_host", "plain-1.img.xz"),
                "base.img")
    run([DEBUGFS, "-c", "-R", "dump <8> jnl.bin", "base.img"])
    d = open("jnl.bin", "rb").read()
    bs, maxlen = struct.unpack(">II", d[12:20])
    nfc = struct.unpack(">I", d[0x54:0x58])[0] or 256
    bmap, _ = jfmt.journal_inode_blocks(DEBUGFS, "base.img", ENV,
                                        opts=("-c",))
    G["bs"] = bs
    G["fc"] = [bmap[b] for b in range(maxlen - nfc + 1, maxlen)]
    rc, out = run([EJ, "plan", "base.img"])
    G["tid"] = int(out.split("next transaction ")[1].split()[0]) - 1
    # inode 13's raw inode (group 0's inode table) and its one block
    rc, out = run(["dumpe2fs", "base.img"])
    itab = int(out.split("Inode table at ")[1].split("-")[0])
    isz = int(out.split("Inode size:")[1].split()[0])
    with open("base.img", "rb") as f:
        f.seek(itab * bs + (FILE - 1) * isz)
        G["raw"] = f.read(isz)
    rc, out = run([DEBUGFS, "-c", "-R", "bmap <%d> 0" % FILE, "base.img"])
    G["blk0"] = int(out.split()[-1])


def image(area, name):
    shutil.copy("base.img", name)
    data = bytes(area.buf) + bytes(len(G["fc"]) * G["bs"] - len(area.buf))
    with open(name, "r+b") as f:
        for i, p in enumerate(G["fc"]):
            f.seek(p * G["bs"])
            f.write(data[i * G["bs"]:(i + 1) * G["bs"]])


def case(what, build, rc_all, rc_refuse, present, absent, clean=True):
    a = Area(G["bs"])
    build(a, G["tid"])
    image(a, "crafted.img")
    orig = open("crafted.img", "rb").read()
    for pol, want in (("replay-all", rc_all), ("refuse", rc_refuse)):
        img = pol + ".img"
        shutil.copy("crafted.img", img)
        if not fctest.replay(result, what, pol, img, want, orig):
            continue
        fctest.check_names(result, "%s: %s" % (what, pol),
                           fctest.names(img, DIR), present, absent)
        if clean:
            ok, out = fctest.stock_clean(img)
            result(ok, "%s: %s: e2fsck finds nothing wrong" % (what, pol),
                   out)


def link(a, name, ino=FILE, parent=DIR, tag=4):
    a.dentry(tag, parent, ino, name)


def inode(a, links):
    raw = bytearray(G["raw"])
    raw[0x1A:0x1C] = struct.pack("<H", links)
    a.rec(6, struct.pack("<I", FILE) + bytes(raw))


def main():
    setup()
    tid = G["tid"]
    print("base image: expected tid %d, fast-commit area blocks %s..." %
          (tid, G["fc"][:2]))

    def none(a, t):
        link(a, "nohead")
        a.tail(t)
    case("row 1, no HEAD", none, 0, 0, [], ["nohead"])

    def stale(a, t):
        a.head(t - 1)
        link(a, "stale")
        inode(a, 2)
        a.tail(t - 1)
    case("row 2, stale HEAD", stale, 0, 0, [], ["stale"])

    def feats(a, t):
        a.head(t, features=4)
        link(a, "feat")
        inode(a, 2)
        a.tail(t)
    case("row 3, unknown HEAD features", feats, 1, 4, [], ["feat"])

    def verified(a, t):
        a.head(t)
        link(a, "v1")
        inode(a, 2)
        a.tail(t)
        link(a, "v2")
        inode(a, 3)
        a.tail(t)
    case("row 4, verified", verified, 0, 0, ["v1", "v2"], [])

    # (doc/policy.md: Linux 6.18 reads one block past such an area and
    # refuses the mount; check-crash-host's fcdir images show it)
    nfull = len(G["fc"])

    def full(a, t):
        a.head(t)
        for i in range(nfull):
            link(a, "full%02d" % i)
            inode(a, i + 2)     # after the name, as ext4 logs it
            a.tail(t)
    case("row 4, verified up to the area's last block", full, 0, 0,
         ["full00", "full%02d" % (nfull - 1)], [])

    def unacked(a, t):
        a.head(t)
        link(a, "u1")
        inode(a, 2)
        a.tail(t)
        link(a, "u2")
        inode(a, 3)
        a.tail(t, spoil=1)
    case("row 5, last one torn (crc)", unacked, 0, 0, ["u1"], ["u2"])

    def unacked_tid(a, t):
        a.head(t)
        link(a, "w1")
        inode(a, 2)
        a.tail(t)
        link(a, "w2")
        a.tail(t + 1)
    case("row 5, last one of another tid", unacked_tid, 0, 0, ["w1"],
         ["w2"])

    def first_torn(a, t):
        a.head(t)
        link(a, "ft")
        a.tail(t, spoil=7)
    case("row 5, first one torn", first_torn, 0, 0, [], ["ft"])

    def skipped(a, t):
        a.head(t)
        link(a, "s1")
        inode(a, 3)
        a.tail(t)
        link(a, "s2")
        a.tail(t, spoil=1)
        link(a, "s3")
        a.tail(t)
    case("row 6, failed then verified", skipped, 1, 4, ["s1", "s3"],
         ["s2"], clean=False)

    def badlen(a, t):
        a.head(t)
        link(a, "b1")
        inode(a, 2)
        a.tail(t)
        a.rec(5, struct.pack("<II", DIR, FILE))     # UNLINK, no name
        link(a, "b2")
        a.tail(t)
        link(a, "b3")
        a.tail(t)
    case("row 7, impossible record length", badlen, 1, 4, ["b1"],
         ["b2", "b3"])

    def badblk(a, t):
        a.head(t)
        inode(a, 2)
        # block 0 (superblock), then one past the end of the filesystem
        a.rec(1, struct.pack("<IIHHI", FILE, 5, 1, 0, 0))
        a.rec(1, struct.pack("<IIHHI", FILE, 6, 1, 0, 1 << 30))
        a.rec(1, struct.pack("<IIHHI", FILE, 7, 1, 0, G["fc"][0]))
        # logical blocks past 2^32 - 1
        a.rec(1, struct.pack("<IIHHI", FILE, 0xFFFFFFF0, 30, 0,
                             G["blk0"] + 300))
        link(a, "k1")
        link(a, "k0", ino=0)
        link(a, "k9", ino=1 << 20)
        link(a, "kr", parent=1)
        inode(a, 2)
        a.tail(t)
    case("row 8, bad blocks and inode numbers", badblk, 1, 4, ["k1"],
         ["k0", "k9", "kr"])

    def parent(a, t):
        a.head(t)
        link(a, "p1")
        link(a, "p2", parent=FILE)
        link(a, "p3", ino=400)
        inode(a, 2)
        a.tail(t)
    # refuse can tell these only once the full commits are on disk: it
    # replays nothing of the area then (flagged), the full commits stay
    case("row 9, parent not a directory, inode not in use", parent, 1, 1,
         [], ["p3"])
    rc, out = run([DEBUGFS, "-R", "ls <%d>" % DIR, "replay-all.img"])
    result("p1" in out, "row 9: replay-all replays the other records", out)
    rc, out = run([DEBUGFS, "-R", "ls <%d>" % DIR, "refuse.img"])
    result("p1" not in out and "base0" in out,
           "row 9: refuse replays the full commits, nothing of the area",
           out)
    # our e2fsck says what the replay skipped, and checks in full
    shutil.copy("crafted.img", "e2fsck.img")
    rc, out = run([fctest.OURS, "-y", "e2fsck.img"])
    result("a fast commit failed its checks" in out and
           "check forced" in out,
           "row 9: our e2fsck says so and checks in full", out)

    def cannot(a, t):
        # inode 13 logged with inline data, then a range mapped into it:
        # libext2fs maps no block of an inline-data inode
        raw = bytearray(G["raw"])
        flags = struct.unpack("<I", raw[0x20:0x24])[0]
        flags = (flags & ~0x80000) | 0x10000000
        raw[0x20:0x24] = struct.pack("<I", flags)
        a.head(t)
        a.rec(6, struct.pack("<I", FILE) + bytes(raw))
        a.rec(1, struct.pack("<IIHHI", FILE, 50, 1, 0, G["blk0"] + 200))
        link(a, "q2")
        a.tail(t)
    case("a record libext2fs cannot apply", cannot, 1, 1, ["q2"], [],
         clean=False)
    rc, out = run([EJ, "plan", "crafted.img"])
    rc, out = run([EJ, "replay", "crafted.img"])
    result("fast-commit records were skipped" in out,
           "a record that cannot be applied: replay says so", out)

    def idem(a, t):
        a.head(t)
        a.dentry(5, DIR, FILE, "not-there")
        a.rec(2, struct.pack("<III", FILE, 1000, 5))
        a.rec(1, struct.pack("<IIHHI", FILE, 0, 1, 0, G["blk0"]))
        a.tail(t)
    case("row 10, idempotent records", idem, 0, 0, ["base0"], [])

    def grow(a, t):
        a.head(t)
        for i in range(90):
            link(a, "g%03d-%s" % (i, "y" * 50))
        inode(a, 1 + 90)
        a.tail(t)
    case("row 11, directory grows", grow, 0, 0,
         ["g000-", "g089-"], [])
    rc, out = run([DEBUGFS, "-R", "stat <%d>" % DIR, "replay-all.img"])
    result("Size: 4096" not in out,
           "row 11: directory %d grew past one block" % DIR, out)
    links_cases()
    return 1 if result.fails else 0


def stat(img, ino):
    rc, out = run([DEBUGFS, "-R", "stat <%d>" % ino, img])
    return out


def raw_inode(mode, links, gen=None, size=None):
    """Inode 13's raw inode with another mode, link count, generation
    and size, its block map an empty extent tree (a new inode)."""
    raw = bytearray(G["raw"])
    raw[0:2] = struct.pack("<H", mode)
    raw[0x1A:0x1C] = struct.pack("<H", links)
    if size is not None:
        raw[4:8] = struct.pack("<I", size)
        raw[0x6C:0x70] = bytes(4)
        raw[0x1C:0x20] = bytes(4)                   # i_blocks
        raw[0x28:0x64] = struct.pack("<HHHHI", 0xF30A, 0, 4, 0, 0) + \
            bytes(48)
    if gen is not None:
        raw[0x64:0x68] = struct.pack("<I", gen)
    return bytes(raw)


def links_cases():
    """Issue 33: link counts as Linux's replay leaves them (CREAT one,
    LINK one more, UNLINK one less and the inode deleted with its last
    link), a new directory's parent counted, and an inode number reused
    for another file giving up the old file's blocks.  Each fails on a
    replay that changes no link count and keeps the old map."""
    gen = struct.unpack("<I", G["raw"][0x64:0x68])[0]
    new = 300       # an inode number plain-1 does not use

    def link_only(a, t):
        a.head(t)
        link(a, "l1")
        a.tail(t)
    case("LINK without an INODE after it adds a link", link_only, 0, 0,
         ["l1", "base0"], [])
    result("Links: 2" in stat("replay-all.img", FILE),
           "LINK: inode %d has 2 links" % FILE, stat("replay-all.img",
                                                      FILE))

    def unlink_last(a, t):
        a.head(t)
        a.dentry(5, DIR, FILE, "base0")
        a.tail(t)
    case("UNLINK of the last link deletes the inode", unlink_last, 0, 0,
         [], ["base0"])
    out = stat("replay-all.img", FILE)
    rc, bm = run([DEBUGFS, "-R", "testb %d" % G["blk0"], "replay-all.img"])
    result("Links: 0" in out and "not in use" in bm,
           "UNLINK: inode %d deleted, its block %d free" %
           (FILE, G["blk0"]), out + bm)

    def reuse(a, t):
        a.head(t)
        a.dentry(5, DIR, FILE, "base0")
        a.rec(6, struct.pack("<I", FILE) +
              raw_inode(0o100644, 1, gen + 1, 0))
        a.dentry(3, DIR, FILE, "fresh")
        a.rec(6, struct.pack("<I", FILE) +
              raw_inode(0o100644, 1, gen + 1, 0))
        a.tail(t)
    case("an inode number reused after UNLINK", reuse, 0, 0, ["fresh"],
         ["base0"])
    out = stat("replay-all.img", FILE)
    result("Links: 1" in out and "(0):" not in out,
           "reuse: inode %d empty, the old file's block gone" % FILE, out)

    def regen(a, t):
        # the name is the old one's (a rerun after the UNLINK and the
        # CREAT reached the directory): another i_generation says reuse
        a.head(t)
        a.rec(6, struct.pack("<I", FILE) +
              raw_inode(0o100644, 1, gen + 1, 0))
        a.tail(t)
    case("an INODE of another i_generation drops the old map", regen, 0, 0,
         ["base0"], [])
    out = stat("replay-all.img", FILE)
    result("(0):" not in out,
           "another i_generation: the old file's block gone", out)

    def mkdir(a, t):
        a.head(t)
        a.rec(6, struct.pack("<I", new) + raw_inode(0o40755, 2, 7, 0))
        a.dentry(3, DIR, new, "sub")
        a.tail(t)
    case("CREAT of a directory counts in its parent", mkdir, 0, 0, ["sub"],
         [])
    before = stat("crafted.img", DIR).split("Links: ")[1].split()[0]
    after = stat("replay-all.img", DIR).split("Links: ")[1].split()[0]
    result(int(after) == int(before) + 1,
           "mkdir: directory %d has %d links, had %s" %
           (DIR, int(after), before))

    def rmdir(a, t):
        mkdir(a, t)
        a.dentry(5, DIR, new, "sub")
        a.tail(t)
    case("UNLINK of a directory removes it (rmdir)", rmdir, 0, 0, [],
         ["sub"])
    result("Links: 0" in stat("replay-all.img", new) and
           stat("replay-all.img", DIR).split("Links: ")[1].split()[0] ==
           before, "rmdir: directory %d freed, its parent's count back" %
           new)


if __name__ == "__main__":
    sys.exit(main())
