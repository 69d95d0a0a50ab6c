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

import functools
import glob
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", os.path.join(
    os.environ["T"], "..", "..")), "tests", "lib"))
from fctest import T, EJ, REF, DEBUGFS, unxz  # noqa: E402
import fctest  # noqa: E402
import fccompare  # noqa: E402  (shared with crashcheck.py)

# fixed times: replay-all and refuse are compared byte for byte
ENV = fctest.environ(E2FSPROGS_FAKE_TIME="1700000000")
run = functools.partial(fctest.run, env=ENV)
result = fctest.Results()
BS = [4096]


def fc_records(img):
    """The records of the verified fast commits: (tag, value)."""
    tid, BS[0], recs = fccompare.records(img)
    return tid, recs


def stat(img, ino):
    return fccompare.stat(img, ino)


def mapped(f):
    return fccompare.mapped(f, BS[0])


def lookup(img, parent, name):
    return fccompare.lookup(img, parent, name)


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

    for ok, what, why in fccompare.iblocks_from_map(ours, recs, BS[0]):
        result(ok, "%s: %s" % (name, what), why)
    if not os.path.exists(base + ".linux.img.xz"):
        why = open(base + ".linux.failed").read().strip()
        print("%s: no Linux replay to compare with (%s)" % (name, why))
        return
    unxz(base + ".linux.img.xz", "linux.img")
    for ok, what, why in fccompare.compare(ours, "linux.img", recs, BS[0]):
        if "; " in what:
            print("%s: %s" % (name, what))
        result(ok, "%s: %s" % (name, what), why)


def main():
    for img in sorted(glob.glob(os.path.join(T, "*.img.xz"))):
        if img.endswith(".linux.img.xz"):
            continue
        one(img[:-len(".img.xz")])
    return 1 if result.fails else 0


sys.exit(main())
