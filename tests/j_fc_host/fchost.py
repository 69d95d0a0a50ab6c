# SPDX-License-Identifier: GPL-2.0
"""j_fc_host: fast-commit images cut by the running kernel (Linux 6.18,
loop mount, ext4 shutdown ioctl with NOLOGFLUSH; mkimages.sh made them
and says how), replayed by e2journal under replay-all and refuse,
and compared with Linux's own replay of a copy (NAME.linux.img.xz, a
mount and unmount) on every inode and name the fast commits touch.

Per image:
 1. the fast-commit area holds verified fast commits of the expected tid
    (else the image tests nothing);
 2. `e2journal replay` exits 0 under replay-all and refuse, nothing
    flagged, and both give the same image (but for the padding after
    names in directory blocks, which libext2fs leaves as it finds it);
 3. stock e2fsck -fy then has nothing to do but release the orphans (as a
    mount would), and e2fsck -fn finds the result clean;
 4. each inode an INODE/ADD_RANGE/DEL_RANGE record names has, in ours
    and in Linux's, the same type, mode, size, links and block map, and
    i_blocks counted from the map (Linux's, where it differs, is listed);
    each name CREAT/LINK/UNLINK names resolves the same way;
 5. without a Linux replay (NAME.linux.failed: Linux 6.18 refused to
    mount, e.g. the INODE of a file unlinked while open, POLICY.md's last
    row), 2 and 3 alone.
Under `stop` the fast commits stay e2fsprogs' (exit 4, fast commits
pending), as before.
"""

import glob
import os
import re
import shutil
import struct
import subprocess
import sys

T = os.environ["T"]
TOP = os.environ.get("top_srcdir", os.path.join(T, "..", ".."))
BUILD = os.environ.get("top_builddir", TOP)
sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
import jfmt  # noqa: E402

EJ = os.path.join(BUILD, "misc", "e2journal")
REF = os.environ.get("E2FSCK_REF", "/sbin/e2fsck")
DEBUGFS = os.environ.get("DEBUGFS", "debugfs")
# fixed times: replay-all and refuse are compared byte for byte
ENV = dict(os.environ, LC_ALL="C", E2FSCK_CONFIG="/dev/null",
           E2FSPROGS_SKIP_PROGRESS="yes", E2FSPROGS_FAKE_TIME="1700000000")
fails = 0
BS = [4096]


def result(ok, what, why=""):
    global fails
    if not ok:
        fails += 1
    print("RESULT %s %s%s" % ("PASS" if ok else "FAIL", what,
                              (": " + why) if why and not ok else ""))


def run(argv):
    p = subprocess.run(argv, env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def unxz(src, dst):
    with open(dst, "wb") as f:
        subprocess.check_call(["xz", "-dc", src], stdout=f)


def fc_records(img):
    """The records of the verified fast commits: (tag, value)."""
    if os.path.exists("jnl.bin"):
        os.unlink("jnl.bin")
    # catastrophic mode: the crash image's bitmaps may fail their sums
    run([DEBUGFS, "-c", "-R", "dump <8> jnl.bin", img])
    d = open("jnl.bin", "rb").read()
    bs, maxlen = struct.unpack(">II", d[12:20])
    BS[0] = bs
    nfc = struct.unpack(">I", d[0x54:0x58])[0] or 256
    area = d[(maxlen - nfc + 1) * bs:maxlen * bs]
    tag, ln = struct.unpack("<HH", area[:4])
    if tag != 9:
        return None, []
    tid = struct.unpack("<I", area[8:12])[0]
    out, cur, crc, pos = [], [], 0, 0
    while pos + 4 <= len(area):
        if pos % bs + 4 > bs:
            pos += bs - pos % bs
            continue
        tag, ln = struct.unpack("<HH", area[pos:pos + 4])
        if tag < 1 or tag > 9 or pos % bs + 4 + ln > bs:
            break
        if tag == 8:
            crc = jfmt.crc32c(crc, area[pos:pos + 8])
            t, c = struct.unpack("<II", area[pos + 4:pos + 12])
            if t != tid or c != crc:
                break
            out += cur
            cur, crc = [], 0
            pos += 4 + ln
            continue
        crc = jfmt.crc32c(crc, area[pos:pos + 4 + ln])
        cur.append((tag, area[pos + 4:pos + 4 + ln]))
        pos += 4 + ln
    return tid, out


def stat(img, ino):
    rc, out = run([DEBUGFS, "-R", "stat <%d>" % ino, img])
    f = {}
    m = re.search(r"Type: (\S+)\s+Mode:\s+(\d+)", out)
    f["type"] = m and m.groups()
    m = re.search(r"Size: (\d+)", out)
    f["size"] = m and m.group(1)
    m = re.search(r"Links: (\d+)\s+Blockcount: (\d+)", out)
    f["links"] = m and m.group(1)
    f["iblocks"] = m and int(m.group(2))
    m = re.search(r"EXTENTS:\n(.*)", out)
    f["map"] = m.group(1).strip() if m else ""
    m = re.search(r"BLOCKS:\n(.*)", out)
    if m:
        f["map"] = m.group(1).strip()
    return f


def mapped(f):
    """Blocks the map names (data and tree), as 512-byte sectors."""
    n = 0
    for part in f["map"].split(","):
        m = re.search(r":(\d+)(?:-(\d+))?$", part.strip())
        if m:
            a = int(m.group(1))
            b = int(m.group(2) or a)
            n += b - a + 1
    return n * BS[0] // 512


def lookup(img, parent, name):
    rc, out = run([DEBUGFS, "-R", "ls -l <%d>" % parent, img])
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 2 and w[-1] == name:
            return int(w[0])
    return 0


def masked(img):
    """The image, with the superblock's times and checksum zeroed."""
    d = bytearray(open(img, "rb").read())
    for off, n in ((0x30, 4), (0x178, 8), (0x3fc, 4)):
        d[1024 + off:1024 + off + n] = bytes(n)
    return bytes(d)


def same_but_padding(a, b, images):
    """Equal images, but for the padding after names in directory
    blocks (libext2fs' ext2fs_link leaves it as its buffer had it):
    every block that differs belongs to a directory whose listing is
    the same in both."""
    x, y = images["replay-all"], images["refuse"]
    if len(x) != len(y):
        return False
    bs = BS[0]
    blocks = [i for i in range(0, len(x), bs) if x[i:i + bs] != y[i:i + bs]]
    for off in blocks:
        rc, out = run([DEBUGFS, "-R", "icheck %d" % (off // bs), a])
        w = out.split()
        if not w or not w[-1].isdigit():
            return False
        ino = int(w[-1])
        if "Type: directory" not in stat_raw(a, ino):
            return False
        la = run([DEBUGFS, "-R", "ls -l <%d>" % ino, a])[1]
        lb = run([DEBUGFS, "-R", "ls -l <%d>" % ino, b])[1]
        if la != lb:
            return False
    return True


def stat_raw(img, ino):
    return run([DEBUGFS, "-R", "stat <%d>" % ino, img])[1]


def one(base):
    name = os.path.basename(base)
    unxz(base + ".img.xz", "crash.img")
    tid, recs = fc_records("crash.img")
    rc, out = run([EJ, "plan", "crash.img"])
    m = re.search(r"next transaction (\d+)", out)
    live = m and tid == int(m.group(1)) - 1
    if live:
        result(bool(recs), "%s: verified fast commits of tid %s" %
               (name, tid))
    else:
        print("%s: the fast-commit area (tid %s) is stale: %s" %
              (name, tid, m and m.group(0)))
    images = {}
    for pol in ("replay-all", "refuse"):
        shutil.copy("crash.img", pol + ".img")
        rc, out = run([EJ, "replay", "-p", pol, pol + ".img"])
        result(rc == 0 and "corruption: none" in out,
               "%s: e2journal replay -p %s exits 0, nothing flagged" %
               (name, pol), "exit %d\n%s" % (rc, out))
        images[pol] = masked(pol + ".img")
    result(same_but_padding("replay-all.img", "refuse.img", images),
           "%s: replay-all and refuse give the same image" % name)
    shutil.copy("crash.img", "stop.img")
    rc, out = run([EJ, "replay", "-p", "stop", "stop.img"])
    result((rc == 4 and "fast commit" in out.lower()) if live else rc == 0,
           "%s: under stop the fast commits stay e2fsprogs'" % name,
           "exit %d\n%s" % (rc, out))
    ours = "replay-all.img"
    rc, out = run([REF, "-fy", ours])
    # a stale area: the full commits alone leave the summary counts
    # as Linux does (it recounts at mount), e2fsprogs' e2fsck too
    ok = ("Pass ", "e2fsck ", "Clearing orphaned", ours + ":") + \
        (() if live else ("Free blocks count wrong (",
                          "Free inodes count wrong (", "Fix? yes"))
    extra = [ln for ln in out.splitlines()
             if not ln.startswith(ok) and ln.strip()]
    result(rc in (0, 1) and not extra,
           "%s: e2fsck -fy only releases orphans" % name,
           "exit %d\n%s" % (rc, out))
    rc, out = run([REF, "-fn", ours])
    result(rc == 0, "%s: e2fsck -fn clean after ours" % name, out)

    inos, names = set(), []
    for tag, v in recs:
        if tag in (1, 2, 6):
            inos.add(struct.unpack("<I", v[:4])[0])
        elif tag in (3, 4, 5):
            p, i = struct.unpack("<II", v[:8])
            names.append((tag, p, v[8:].decode("latin-1"), i))
    for i in sorted(inos):
        f = stat(ours, i)
        if f["type"] and f["links"] != "0":
            result(f["iblocks"] == mapped(f),
                   "%s: inode %d: i_blocks %d counted from its map" %
                   (name, i, f["iblocks"]), str(f))
    if not os.path.exists(base + ".linux.img.xz"):
        why = open(base + ".linux.failed").read().strip()
        print("%s: no Linux replay to compare with (%s)" % (name, why))
        return
    unxz(base + ".linux.img.xz", "linux.img")
    for i in sorted(inos):
        a, b = stat(ours, i), stat("linux.img", i)
        if a["links"] == "0" and b["links"] == "0":
            # deleted in both (an orphan released): Linux truncates
            # it, e2fsck only frees its blocks and inode
            result(True, "%s: inode %d deleted in both" % (name, i))
            continue
        if b["iblocks"] != a["iblocks"] and b["iblocks"] != mapped(b):
            print("%s: inode %d: Linux's i_blocks %d, its map says %d" %
                  (name, i, b["iblocks"], mapped(b)))
            b["iblocks"] = a["iblocks"]
        result(a == b, "%s: inode %d as Linux replays it" % (name, i),
               "ours %s\nLinux %s" % (a, b))
    for tag, p, n, i in names:
        a, b = lookup(ours, p, n), lookup("linux.img", p, n)
        result(a == b, "%s: name %d/%s as Linux replays it (%d)" %
               (name, p, n, a), "ours %d, Linux %d" % (a, b))


def main():
    for img in sorted(glob.glob(os.path.join(T, "*.img.xz"))):
        if img.endswith(".linux.img.xz"):
            continue
        one(img[:-len(".img.xz")])
    return 1 if fails else 0


sys.exit(main())
