# SPDX-License-Identifier: GPL-2.0
"""fctest: what the fast-commit tests' Python scripts share (j_fc_write,
j_fc_rows, j_fc_host, j_crash_fc): the programs and the environment they
run in, RESULT lines, a command's exit and output, an unpacked image, the
names replay left in a directory, stock e2fsck's verdict on a replayed
image, and a fast-commit area built as ext4 writes one.

A script finds it as $top_srcdir/tests/lib (tests/lib/jtest.sh sets
PYTHONDONTWRITEBYTECODE, so nothing is left behind); importing it puts
tests/gen and tests/crash on the path too, for jfmt, crashgen and
fccompare.
"""

import os
import struct
import subprocess
import sys

T = os.environ["T"]
TOP = os.environ.get("top_srcdir", os.path.join(T, "..", ".."))
BUILD = os.environ.get("top_builddir", TOP)
for _d in ("gen", "crash"):
    if os.path.join(TOP, "tests", _d) not in sys.path:
        sys.path.insert(0, os.path.join(TOP, "tests", _d))
import jfmt  # noqa: E402

EJ = os.environ.get("E2JOURNAL", os.path.join(BUILD, "misc", "e2journal"))
OURS = os.environ.get("E2FSCK", os.path.join(BUILD, "e2fsck", "e2fsck"))
REF = os.environ.get("E2FSCK_REF", "/sbin/e2fsck")
MKE2FS = os.environ.get("MKE2FS", "mke2fs")
DEBUGFS = os.environ.get("DEBUGFS", "debugfs")
# j_fc_rows' and j_fc_write's images: /d and its one-block file /d/base0
DIR = 12
FILE = 13


def environ(**more):
    """e2fsprogs' test environment: no configuration, no progress bars."""
    return dict(os.environ, LC_ALL="C", E2FSCK_CONFIG="/dev/null",
                E2FSPROGS_SKIP_PROGRESS="yes", **more)


ENV = environ()


class Results:
    """result(ok, what, why): one RESULT line; .fails counts the FAILs.
    @name (the test's) starts each line when given."""

    def __init__(self, name=None):
        self.prefix = name + ": " if name else ""
        self.fails = 0

    def __call__(self, ok, what, why=""):
        if not ok:
            self.fails += 1
        print("RESULT %s %s%s%s" % ("PASS" if ok else "FAIL", self.prefix,
                                    what,
                                    (": " + why) if why and not ok else ""))
        sys.stdout.flush()


def run(argv, env=None):
    """Exit status and output (stderr with stdout) of @argv."""
    p = subprocess.run(argv, env=ENV if env is None else env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def unxz(src, dst):
    with open(dst, "wb") as f:
        subprocess.run(["xz", "-dc", src], stdout=f, check=True)


def replay(result, what, pol, img, want, orig):
    """e2journal replay -p @pol @img exits @want; refused (4), it wrote
    nothing (@orig: the image's bytes before).  True when it went on."""
    rc, out = run([EJ, "replay", "-p", pol, img])
    result(rc == want, "%s: %s exits %d" % (what, pol, want),
           "exit %d\n%s" % (rc, out))
    if rc != 4:
        return True
    with open(img, "rb") as f:
        result(f.read() == orig, "%s: %s writes nothing" % (what, pol))
    return False


def names(img, ino):
    """debugfs's listing of directory @ino."""
    rc, out = run([DEBUGFS, "-R", "ls <%d>" % ino, img])
    return out


def check_names(result, what, ls, present, absent):
    """Each of @present in the listing @ls, none of @absent."""
    for n in present:
        result(n in ls, "%s replays %s" % (what, n), ls)
    for n in absent:
        result(n not in ls, "%s leaves out %s" % (what, n), ls)


def stock_clean(img):
    """stock e2fsck -fy: nothing but summary counts recounted.  (-y: a
    flagged replay leaves the journal's errno, which -n cannot clear; the
    summary counts as the full commits left them are recounted as after
    any replay.)"""
    rc, out = run([REF, "-fy", img])
    ok = ("Pass ", "e2fsck ", img + ":", "Fix? yes",
          "Free blocks count wrong (", "Free inodes count wrong (")
    extra = [ln for ln in out.splitlines()
             if ln.strip() and not ln.startswith(ok)]
    return rc in (0, 1) and not extra, out


class Area:
    """A fast-commit area written as ext4 writes one: records in blocks of
    @bs, a PAD where the next would not fit, each fast commit closed by a
    TAIL whose crc32c covers it (@spoil added to spoil it)."""

    def __init__(self, bs):
        self.bs = bs
        self.buf = bytearray()
        self.crc = 0

    def rec(self, tag, val):
        if self.bs - len(self.buf) % self.bs < 4:
            self.buf += bytes(self.bs - len(self.buf) % self.bs)
        if len(self.buf) % self.bs + 4 + len(val) > self.bs:
            left = self.bs - len(self.buf) % self.bs - 4
            pad = struct.pack("<HH", 7, left) + bytes(left)
            self.crc = jfmt.crc32c(self.crc, pad)
            self.buf += pad
        r = struct.pack("<HH", tag, len(val)) + val
        self.crc = jfmt.crc32c(self.crc, r)
        self.buf += r

    def head(self, tid, features=0):
        self.rec(9, struct.pack("<II", features, tid))

    def dentry(self, tag, parent, ino, name):
        self.rec(tag, struct.pack("<II", parent, ino) + name.encode())

    def tail(self, tid, spoil=0):
        if len(self.buf) % self.bs + 12 > self.bs:
            self.rec(7, bytes(self.bs - len(self.buf) % self.bs - 4))
        ln = self.bs - len(self.buf) % self.bs - 4
        t = struct.pack("<HHI", 8, ln, tid)
        crc = jfmt.crc32c(self.crc, t)
        self.buf += t + struct.pack("<I", (crc + spoil) & 0xFFFFFFFF)
        self.buf += bytes(ln - 8)
        self.crc = 0
