#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""crashcheck.py: judge the replay of kernel-written crash images.

Usage: crashcheck.py [options] IMAGE...

For each IMAGE (made by crashgen.py, or a kept copy of one) every program
replays its own copy, and the results are compared:

  ref      e2fsprogs' e2fsck (/sbin/e2fsck) -fy
  stop     our e2fsck -fy -E journal_policy=stop: the whole image must
           equal ref's, but for the fields listed in ALLOWED below, and so
           must the exit status and the output
  all      our e2fsck -fy (replay-all, the default): no corruption in a
           crash image, so the same as stop
  refuse   our e2fsck -fy -E journal_policy=refuse: the same
  jo       our e2fsck -y -E journal_only under each policy against
           e2fsprogs' -y -E journal_only: the whole image
  tool     e2journal replay --policy P: every logged block as e2fsprogs'
           journal-only replay left it
  preen    our e2fsck -p (replay and orphans, what a boot runs), then
           e2fsprogs' e2fsck -fn must find the filesystem clean (exit 0)
  kernel   the image Linux left after replaying the journal (a copy with
           the error state set, so that Linux skips its orphan cleanup,
           mounted in User-Mode Linux, whose process group is killed as
           soon as the mount returns: no sync, no checkpoint; --uml, or
           IMAGE.kernel.xz kept beside IMAGE): every logged block must
           equal e2journal's replay; in the superblock only the fields a
           mount itself writes may differ (KERNEL_ALLOWED).  And a copy
           mounted and unmounted cleanly: e2fsprogs' e2fsck -fn must find
           it clean (kernel-umount-fn, only with --uml).  With
           --host-kernel, Linux is the running kernel: loop mounts of
           the two copies, the second cut with EXT4_IOC_SHUTDOWN
           NOLOGFLUSH as soon as its mount returns (host_mount)
  damage   copies with one block damaged (commit checksum or body in the
           middle and at the end of the log, a torn last commit, a data
           block, a descriptor, a revoke block) judged against POLICY.md's
           rows under replay-all, and under stop against e2fsprogs

Fast-commit images (live fast commits: a HEAD of the tid after the last
full commit) are ours under replay-all and refuse, e2fsprogs' under stop:
  e2fsck-stop, journal_only-stop   = e2fsprogs, as above, but for
           directory leaves that differ only after their last name (the
           heap bytes libext2fs' leaf split leaves, leaf_slack_only())
  e2fsck-refuse, journal_only-refuse   = the same run under replay-all
  fn-after-fy(-refuse), preen-then-fn   e2fsprogs -fn clean after ours
  fc-full-commits-POL   e2journal replay under replay-all and refuse:
           every block the full commits log is as `e2journal replay
           --policy stop` (the full commits alone) writes it, but where
           the records may write (fccompare.outside_fc)
  fy-repairs-nothing   our -fy only replays and releases orphans
  fc-linux-all, fc-linux-refuse   our -E journal_only (replay, orphans
           released) against Linux's replay of a copy (mounted and
           unmounted) on every inode and name the
           records touch (tests/crash/fccompare.py), i_blocks counted
           from the map
  kernel   Linux's replay (no orphan cleanup) = e2journal's under
           replay-all on the full commits' blocks, as above; where Linux
           refuses the mount, PASS only when doc/policy.md says why (a
           fast-commit area full to the journal's last block; an INODE
           record of a file unlinked while open)
  kernel-umount-fn   also passes when e2fsprogs -fn finds only what
           doc/policy.md lists for Linux's fast-commit replay (i_blocks,
           link and directory counts short); each listed at the end
The damaged copies are not made for them.

Checks listed in tests/crash/pending (known failures, each with its
reason) print XFAIL instead of FAIL; a listed check that passes prints
XPASS and fails the run (remove its line).

Prints "PASS image/check ..." and "FAIL image/check ..." lines and a
summary; exit 1 when anything failed or passed while pending.

Options: --uml BIN (boot Linux for the kernel check; without it the
kernel check uses IMAGE.kernel.xz when there is one), --host-kernel
(the kernel check by loop mounts of the running kernel, as root:
make check-crash-host), --pending FILE (instead of tests/crash/pending),
--no-damage,
--work DIR (kept afterwards: every copy, a few hundred MB an image),
--save-kernel (write IMAGE.kernel.xz for later runs without UML).
Environment: E2FSCK (our e2fsck), E2JOURNAL, E2FSCK_REF (/sbin/e2fsck),
top_builddir, EJ_BE_ENGINE (set by check-cross on a big-endian ARCH: the
engine our e2fsck runs there; see BE_ENGINE below).
"""

import fnmatch
import os
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
sys.path.insert(0, HERE)
import jfmt  # noqa: E402
import crashgen  # noqa: E402
import fccompare  # noqa: E402

TOP_BUILD = os.environ.get("top_builddir",
                           os.path.join(HERE, "..", ".."))
OURS = os.environ.get("E2FSCK", os.path.join(TOP_BUILD, "e2fsck", "e2fsck"))
TOOL = os.environ.get("E2JOURNAL",
                      os.path.join(TOP_BUILD, "misc", "e2journal"))
REF = os.environ.get("E2FSCK_REF", "/sbin/e2fsck")
ENV = dict(os.environ, LC_ALL="C", TZ="GMT0", E2FSCK_CONFIG="/dev/null",
           BLKID_FILE="/dev/null", E2FSPROGS_SKIP_PROGRESS="yes")
for v in ("E2FSPROGS_FAKE_TIME", "E2FSCK_TIME", "SOURCE_DATE_EPOCH"):
    ENV.pop(v, None)
TIMEOUT = 120
# check-cross on a big-endian ARCH (scripts/check-cross.sh): our e2fsck
# and its engine, e2fsprogs' e2fsck for ARCH, run under qemu, while REF
# stays this host's (little-endian) e2fsprogs.  e2fsprogs 1.47.0 on a
# big-endian host writes the i_block of an extent inode it clears
# (e2fsck_clear_inode() zeroes i_flags, then ext2fs_swap_inode_full() no
# longer sees EXTENTS_FL and swaps i_block as 15 block numbers) with each
# 32-bit word byte-swapped: doc/testing.md.  With BE_ENGINE set, a block
# whose only difference from REF is that, in cleared inodes of the inode
# table, is accepted, but then our image must equal, byte for byte, what
# BE_ENGINE itself leaves on the same input.
BE_ENGINE = os.environ.get("EJ_BE_ENGINE")
BOOT_TIMEOUT = 100

# superblock fields by offset: (name, size)
SB_FIELDS = {
    0x00: ("s_inodes_count", 4), 0x04: ("s_blocks_count_lo", 4),
    0x0C: ("s_free_blocks_count_lo", 4), 0x10: ("s_free_inodes_count", 4),
    0x2C: ("s_mtime", 4), 0x30: ("s_wtime", 4), 0x34: ("s_mnt_count", 2),
    0x36: ("s_max_mnt_count", 2), 0x3A: ("s_state", 2),
    0x3C: ("s_errors", 2), 0x40: ("s_lastcheck", 4),
    0x5C: ("s_feature_compat", 4), 0x60: ("s_feature_incompat", 4),
    0x64: ("s_feature_ro_compat", 4), 0x88: ("s_last_mounted", 64),
    0xE8: ("s_last_orphan", 4), 0x158: ("s_free_blocks_count_hi", 4),
    0x170: ("s_mmp_block", 8), 0x178: ("s_kbytes_written", 8),
    0x194: ("s_error_count", 4), 0x198: ("s_first_error_time", 4),
    0x19C: ("s_first_error_ino", 4), 0x1A0: ("s_first_error_block", 8),
    0x1A8: ("s_first_error_func", 32), 0x1C8: ("s_first_error_line", 4),
    0x1CC: ("s_last_error_time", 4), 0x1D0: ("s_last_error_ino", 4),
    0x1D4: ("s_last_error_line", 4), 0x1D8: ("s_last_error_block", 8),
    0x1E0: ("s_last_error_func", 32), 0x27C: ("s_mtime_hi", 1),
    0x27D: ("s_wtime_hi", 1), 0x27E: ("s_lastcheck_hi", 1),
    0x3FC: ("s_checksum", 4),
}

# What may differ between our e2fsck and e2fsprogs' on the same image
# (every other byte of the image must be equal):
ALLOWED = {
    # judged on its own (Checker.kbytes), a check of its own
    "s_kbytes_written": "checked apart: the -kbytes checks",
    # the time of the last superblock write: two runs, two clocks
    "s_wtime": "the time of the run",
    "s_wtime_hi": "the time of the run",
    # follows from any field that differs
    "s_checksum": "the checksum of the fields above",
}
# s_lastcheck, inode dtimes of released orphans and the like are e2fsck's
# clock too: a 32-bit word that holds, on both sides, a time within the
# runs' window is accepted anywhere (same_but_clock).

# e2journal replay against debugfs' journal_run (e2fsprogs' recovery.c
# without e2fsck around it), every block outside the journal:
TOOL_ALLOWED = {
    "s_wtime": "the time of the run", "s_wtime_hi": "the time of the run",
    "s_kbytes_written": "a statistic: debugfs counts its own writes",
    "s_checksum": "the checksum of the fields above",
}

# What a mount itself writes into the superblock, besides the replay:
KERNEL_ALLOWED = {
    "s_mtime": "mount time", "s_mtime_hi": "mount time",
    "s_wtime": "write time", "s_wtime_hi": "write time",
    "s_mnt_count": "counted by the mount",
    "s_kbytes_written": "counted by the mount",
    "s_state": "set to errors before the mount (mark_errors)",
    "s_error_count": "the mount records the error state",
    "s_first_error_time": "the mount records the error state",
    "s_last_error_time": "the mount records the error state",
    "s_feature_incompat": "needs_recovery is set while mounted",
    "s_free_blocks_count_lo": "recomputed at mount from the groups",
    "s_free_blocks_count_hi": "recomputed at mount from the groups",
    "s_free_inodes_count": "recomputed at mount from the groups",
    "s_last_orphan": "Linux empties the orphan list at mount (a replay "
                     "leaves it)",
    "s_last_mounted": "set at the first open",
    "s_checksum": "the checksum of the fields above",
}


def load_pending(path=None):
    """tests/crash/pending (or @path): "IMAGE/CHECK-PATTERN reason" lines,
    the checks
    known to fail: on main until another branch is merged, or because of
    a bug outside the project (e2fsprogs, Linux) that doc/testing.md
    describes.  They are reported as XFAIL (XPASS when they pass).  A
    pattern that starts with "?" names a known bug that the timed cut
    shows on some images and not on others: XFAIL when it fails, PASS
    when it passes."""
    out = []
    try:
        with open(path or os.path.join(HERE, "pending")) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    pat, _, why = line.partition(" ")
                    maybe = pat.startswith("?")
                    out.append((pat.lstrip("?"), why.strip(), maybe))
    except FileNotFoundError:
        pass
    return out


PENDING = load_pending()


def out_diff(mine, ref):
    """The first line where two normalised outputs differ, or None."""
    if mine == ref:
        return None
    first = next((i for i, (u, v) in enumerate(zip(mine, ref)) if u != v),
                 min(len(mine), len(ref)))
    u = mine[first] if first < len(mine) else "(end)"
    v = ref[first] if first < len(ref) else "(end)"
    return "output differs at line %d: %r, e2fsprogs %r" % (first + 1, u, v)


def field_at(off):
    for o, (name, size) in SB_FIELDS.items():
        if o <= off < o + size:
            return name
    return "superblock byte 0x%x" % off


def run(argv, cwd=None, timeout=TIMEOUT):
    try:
        p = subprocess.run(argv, env=ENV, cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return p.returncode, p.stdout.decode("utf-8", "replace")


def norm(out, prog, img):
    lines = []
    for l in out.splitlines():
        l = l.replace(img, "IMAGE")
        if l.startswith("e2fsck 1.") or l.startswith("Memory used") or \
                l.startswith("I/O read"):
            continue
        if "the journal holds fast commits; leaving its replay to" in l:
            # our front end says that it hands the replay over
            continue
        lines.append(l.replace(prog + ":", "e2fsck:"))
    return lines


def copy(src, dst):
    subprocess.run(["cp", "--sparse=always", src, dst], check=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def read_block_j(im, path, jb):
    """Journal block @jb of the image @path, as it was (undamaged)."""
    return jfmt.Journal(path, im.bs, im.j.map).read(jb)


def read_block(path, n, bs):
    with open(path, "rb") as f:
        return os.pread(f.fileno(), bs, n * bs)


def differing_blocks(fa, fb, bs, chunk=1 << 20):
    """Numbers of the blocks in which open files @fa and @fb differ, read
    a chunk at a time (only differing chunks are looked at block by
    block)."""
    out = []
    off = 0
    while True:
        x, y = fa.read(chunk), fb.read(chunk)
        if not x and not y:
            return out
        if x != y:
            for i in range(0, max(len(x), len(y)), bs):
                if x[i:i + bs] != y[i:i + bs]:
                    out.append((off + i) // bs)
        off += chunk


def leaf_slack_only(x, y, csum):
    """Whether directory leaf blocks @x and @y hold the same entries and
    differ only after the last entry's name (up to the checksum tail)
    and in the tail's checksum: what libext2fs 1.47.0's dx_split_leaf()
    leaves in both halves of a leaf it splits for ext2fs_link(), its
    uncleared buffer (e2fsprogs' fast-commit replay, whose heap differs
    run to run)."""
    end = len(x) - (12 if csum else 0)
    off, last = 0, None
    while off < end:
        ino, rec_len, nlen = struct.unpack("<IHB", x[off:off + 7])
        if rec_len < 8 or off + rec_len > end or \
                x[off:off + 8 + nlen] != y[off:off + 8 + nlen]:
            return False
        last = off + ((8 + nlen + 3) & ~3)
        off += rec_len
    if off != end or last is None or not ino:
        return False
    return x[:last] == y[:last] and x[end:end + 8] == y[end:end + 8]


def slack_note(slack):
    """The PASS line's words for the leaves leaf_slack_only() passed."""
    if not slack:
        return ""
    return (" but blocks %s: directory leaves that differ only after "
            "their last name, where e2fsprogs' fast-commit replay leaves "
            "heap bytes (libext2fs 1.47.0 dx_split_leaf(), "
            "doc/testing.md)" % ", ".join(map(str, slack)))


def same_but_clock(x, y, lo, hi):
    for off in range(0, len(x) - 3, 4):
        a, b = x[off:off + 4], y[off:off + 4]
        if a != b:
            ta, tb = struct.unpack("<I", a)[0], struct.unpack("<I", b)[0]
            if not (lo <= ta <= hi and lo <= tb <= hi):
                return False
    return True


def inode_tables(path, sb, bs):
    """The block numbers of every inode table of the image @path (its
    superblock @sb), read from the group descriptors; empty with meta_bg
    (descriptors elsewhere: nothing is then excused, see BE_ENGINE)."""
    def u32(o):
        return struct.unpack_from("<I", sb, o)[0]

    def u16(o):
        return struct.unpack_from("<H", sb, o)[0]

    incompat = u32(0x60)
    if incompat & 0x10:     # meta_bg
        return set()
    is64 = incompat & 0x80
    blocks = u32(0x04) | ((u32(0x150) << 32) if is64 else 0)
    first, bpg, ipg = u32(0x14), u32(0x20), u32(0x28)
    dsz = u16(0xFE) if is64 and u16(0xFE) >= 64 else 32
    ngroups = (blocks - first + bpg - 1) // bpg
    per = ipg * u16(0x58) // bs
    out = set()
    with open(path, "rb") as f:
        gdt = os.pread(f.fileno(), ngroups * dsz, (first + 1) * bs)
    for g in range(ngroups):
        d = gdt[g * dsz:(g + 1) * dsz]
        t = struct.unpack_from("<I", d, 8)[0]
        if dsz >= 64:
            t |= struct.unpack_from("<I", d, 0x28)[0] << 32
        out.update(range(t, t + per))
    return out


def be_cleared_swap(x, y, isize):
    """True when inode table blocks @x and @y differ only as e2fsprogs on
    a big-endian host makes them differ from a little-endian host (see
    BE_ENGINE): in inodes cleared on both sides (no links, a dtime, no
    EXTENTS_FL left), i_block with its 32-bit words byte-swapped, and the
    inode checksum that follows."""
    csum = {0x7C, 0x7D, 0x82, 0x83}
    for o in range(0, len(x), isize):
        a, b = x[o:o + isize], y[o:o + isize]
        if a == b:
            continue
        for i in (a, b):
            links = struct.unpack_from("<H", i, 0x1A)[0]
            dtime = struct.unpack_from("<I", i, 0x14)[0]
            flags = struct.unpack_from("<I", i, 0x20)[0]
            if links or not dtime or flags & 0x80000:
                return False
        if any(a[k] != b[k] for k in range(isize)
               if not 0x28 <= k < 0x64 and k not in csum):
            return False
        swapped = b"".join(b[k:k + 4][::-1] for k in range(0x28, 0x64, 4))
        if swapped != a[0x28:0x64]:
            return False
    return True


def sb_diff(a, b):
    """Names of the superblock fields that differ between the 1024-byte
    superblocks @a and @b."""
    names = set()
    for off in range(1024):
        if a[off] != b[off]:
            names.add(field_at(off))
    return names


class Image:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        if self.name.endswith(".img"):
            self.name = self.name[:-4]
        sb = crashgen.sb_of(path)
        self.bs = 1024 << struct.unpack("<I", sb[24:28])[0]
        self.sb_off = 1024
        self.sb_block = 1024 // self.bs
        j, bmap = crashgen.journal_of(path)
        self.j = j
        self.jblocks = set(bmap)
        self.txns, self.end, self.used = j.walk()
        self.committed = [t for t in self.txns if t["committed"]]
        self.csum = j.jsb.csum_v2 or j.jsb.csum_v3
        # metadata_csum: directory leaves end in a checksum tail
        self.dir_tail = bool(struct.unpack("<I", sb[0x64:0x68])[0] & 0x400)
        self.v1 = j.jsb.csum_v1
        self.async_commit = bool(j.jsb.incompat & jfmt.INCOMPAT_ASYNC)
        self.fc_feature = bool(j.jsb.incompat & jfmt.INCOMPAT_FAST_COMMIT)
        self.isize = struct.unpack("<H", sb[0x58:0x5A])[0]
        self.itables = inode_tables(path, sb, self.bs) if BE_ENGINE \
            else set()
        self.facts = crashgen.facts(path)
        self.fast = self.facts["fc_blocks"] > 0
        # a fast-commit area whose HEAD names another tid: stale, which
        # costs e2fsprogs 1.47.0 the whole journal (doc/policy.md), so
        # replay-all and refuse are judged as for live fast commits
        self.stale_fc = self.fc_feature and not self.fast and \
            fccompare.records(path)[0] is not None
        self.ours_fc = self.fast or self.stale_fc
        nblocks = os.path.getsize(path) // self.bs
        self.outside_journal = set(range(nblocks)) - self.jblocks
        self.logged = set()
        for t in self.committed:
            for fsb, _, _ in t["tags"]:
                self.logged.add(fsb)


class Checker:
    def __init__(self, work, uml=None, damage=True, save_kernel=False,
                 host=False):
        self.work = work
        self.uml = uml
        self.host = host
        self.kernel_name = "Linux %s" % os.uname().release if host \
            else "Linux 6.1"
        self.damage = damage
        self.save_kernel = save_kernel
        self.npass = self.nfail = self.nskip = 0
        self.nxfail = self.nxpass = 0
        self.fails = []
        self.linux_refused = []
        self.xpassed = []
        self.linux_wrong = []
        self.linux_fn = []

    def result(self, ok, img, check, why=""):
        word = "PASS" if ok else "FAIL"
        hit = next(((r, maybe) for pat, r, maybe in PENDING
                    if fnmatch.fnmatchcase("%s/%s" % (img.name, check),
                                           pat)), None)
        pend, maybe = hit if hit else (None, False)
        if ok is None:
            word = "SKIP"
            self.nskip += 1
        elif ok and pend and not maybe:
            word = "XPASS"
            self.nxpass += 1
            self.xpassed.append("%s/%s" % (img.name, check))
            why += " [listed in tests/crash/pending: %s]" % pend
        elif ok:
            self.npass += 1
        elif pend:
            word = "XFAIL"
            self.nxfail += 1
            why += " [pending: %s]" % pend
        else:
            self.nfail += 1
            self.fails.append("%s/%s: %s" % (img.name, check, why))
        print("%s %s/%s%s" % (word, img.name, check,
                              ": " + why if why else ""), flush=True)

    # ------------------------------------------------------ comparisons
    def compare_images(self, im, a, b, lo, hi, allowed, blocks=None,
                       excused=None, slack=None):
        """Differences between image files @a and @b: a list of strings
        (empty: equal but for @allowed superblock fields and clock
        words).  @blocks limits the comparison to these block numbers.
        With a list @excused (and BE_ENGINE), blocks that differ only by
        e2fsprogs' big-endian i_block swap are added to it, not reported;
        with a list @slack, directory leaves that differ only in the
        unused bytes after their last entry (leaf_slack_only())."""
        bs = im.bs
        bad = []
        if os.path.getsize(a) != os.path.getsize(b):
            return ["sizes %d and %d" % (os.path.getsize(a),
                                         os.path.getsize(b))]
        sbnames = sb_diff(crashgen.sb_of(a), crashgen.sb_of(b))
        extra = sorted(n for n in sbnames if n not in allowed)
        if extra:
            bad.append("superblock fields " + ", ".join(extra))
        nblocks = os.path.getsize(a) // bs
        with open(a, "rb") as fa, open(b, "rb") as fb:
            if blocks is None:
                rng = differing_blocks(fa, fb, bs)
            else:
                rng = sorted(n for n in blocks if n < nblocks)
            pairs = ((n, os.pread(fa.fileno(), bs, n * bs),
                      os.pread(fb.fileno(), bs, n * bs)) for n in rng)
            bad += self.judge_blocks(im, pairs, lo, hi, excused, slack)
        return bad

    def judge_blocks(self, im, pairs, lo, hi, excused=None, slack=None):
        bs = im.bs
        bad = []
        for n, xb, yb in pairs:
            if xb == yb:
                continue
            if n == im.sb_block:
                # the superblock itself was judged above; the rest of the
                # block (boot sector, or group descriptors at 1 KiB...)
                o = 1024 - n * bs
                xb = xb[:o] + xb[o + 1024:]
                yb = yb[:o] + yb[o + 1024:]
                if xb == yb:
                    continue
            if same_but_clock(xb, yb, lo, hi):
                continue
            if excused is not None and n in im.itables and \
                    be_cleared_swap(xb, yb, im.isize):
                excused.append(n)
                continue
            if slack is not None and leaf_slack_only(xb, yb, im.dir_tail):
                slack.append(n)
                continue
            bad.append("block %d" % n)
            if len(bad) > 5:
                bad.append("...")
                break
        return bad

    def kbytes(self, im, check, mine, ref):
        """s_kbytes_written alone: e2fsprogs adds the replay's writes;
        ours must too (issue 21, item 2)."""
        a = struct.unpack("<Q", crashgen.sb_of(mine)[0x178:0x180])[0]
        b = struct.unpack("<Q", crashgen.sb_of(ref)[0x178:0x180])[0]
        self.result(a == b, im, check + "-kbytes",
                    "s_kbytes_written %d, e2fsprogs %d" % (a, b))

    # ------------------------------------------------------ the runs
    def fsck(self, prog, img, args, d):
        rc, out = run([prog] + args + [img])
        return rc, norm(out, prog, img)

    def vs_ref(self, im, src, mine, ref, args, d, lo, hi):
        """Our e2fsck's run @mine against e2fsprogs' @ref, each a tuple
        (image, exit status, normalised output) of a run with @args on a
        copy of @src: a list of differences and a note for the PASS line.
        Blocks excused as e2fsprogs' big-endian i_block swap (BE_ENGINE)
        make BE_ENGINE run on another copy of @src, and then our image,
        exit status and output must equal its own."""
        bad = []
        if mine[1] != ref[1]:
            bad.append("exit %s, e2fsprogs %s" % (mine[1], ref[1]))
        od = out_diff(mine[2], ref[2])
        if od:
            bad.append(od)
        excused = []
        # live fast commits: e2fsprogs replays them under stop, and the
        # leaves its ext2fs_link() splits hold heap bytes (doc/testing.md)
        slack = [] if im.fast else None
        bad += self.compare_images(im, mine[0], ref[0], lo, hi, ALLOWED,
                                   excused=excused, slack=slack)
        if not excused:
            return bad, slack_note(slack)
        e = os.path.join(d, "be-engine.img")
        copy(src, e)
        rc, out = self.fsck(BE_ENGINE, e, args, d)
        hi = int(time.time()) + 2
        be = []
        if rc != mine[1]:
            be.append("exit %s, the big-endian engine %s" % (mine[1], rc))
        od = out_diff(mine[2], out)
        if od:
            be.append(od.replace("e2fsprogs", "the big-endian engine"))
        be += ["the big-endian engine's image: " + x for x in
               self.compare_images(im, mine[0], e, lo, hi, ALLOWED)]
        os.unlink(e)
        note = (" but blocks %s: e2fsprogs' big-endian i_block swap of "
                "cleared inodes (doc/testing.md); = the big-endian engine "
                "byte for byte" % ", ".join(map(str, excused)))
        return bad + be, note

    def check_image(self, path):
        im = Image(path)
        d = os.path.join(self.work, im.name)
        os.makedirs(d, exist_ok=True)
        f = im.facts
        print("IMAGE %s: %d committed transactions, %d log blocks%s, "
              "%d logged blocks, %d revoke records%s" % (
                  im.name, f["committed"], f["log_blocks"],
                  ", wraps" if f["wraps"] else "", len(im.logged),
                  f["revokes"], ", %d fast-commit blocks" % f["fc_blocks"]
                  if im.fast else ""), flush=True)
        ok = f["needs_recovery"] and f["committed"] > 0
        self.result(ok, im, "crashed",
                    "" if ok else "no needs_recovery or no commit")
        if not ok:
            return
        lo = int(time.time()) - 2
        p = {}
        # one clock for every e2fsck run of this image (dtimes of released
        # orphans, s_lastcheck), a little ahead so that no superblock
        # written meanwhile (our replay's s_wtime) is "in the future"
        ENV["E2FSCK_TIME"] = str(int(time.time()) + 60)
        for who in ("ref", "stop", "all", "refuse", "ref-jo"):
            p[who] = os.path.join(d, who + ".img")
            copy(path, p[who])
        out = {}
        out["ref"] = self.fsck(REF, p["ref"], ["-fy"], d)
        for pol, who in (("stop", "stop"), ("replay-all", "all"),
                         ("refuse", "refuse")):
            out[who] = self.fsck(OURS, p[who], ["-fy", "-E",
                                 "journal_policy=" + pol], d)
        hi = int(time.time()) + 2
        for who in ("stop", "all", "refuse"):
            if im.ours_fc and who != "stop":
                # live fast commits are ours under replay-all and
                # refuse: judged against Linux (fast_commits), not
                # against e2fsprogs' replay of them
                continue
            bad, note = self.vs_ref(im, path, (p[who],) + out[who],
                                    (p["ref"],) + out["ref"], ["-fy"], d,
                                    lo, hi)
            self.result(not bad, im, "e2fsck-" + who,
                        "; ".join(bad) if bad else
                        "= e2fsprogs -fy (exit %s)%s" % (out["ref"][0],
                                                         note))
            self.kbytes(im, "e2fsck-" + who, p[who], p["ref"])
        if im.ours_fc:
            bad = []
            if out["refuse"][0] != out["all"][0]:
                bad.append("exit %s, replay-all %s" % (out["refuse"][0],
                                                       out["all"][0]))
            bad += self.compare_images(im, p["refuse"], p["all"], lo, hi,
                                       ALLOWED)
            self.result(not bad, im, "e2fsck-refuse",
                        "; ".join(bad) if bad else
                        "= e2fsck -fy under replay-all (exit %s)" %
                        out["all"][0])
        # stock e2fsck -fn on what ref and ours left
        rc, o = run([REF, "-fn", p["all"]])
        self.result(rc == 0, im, "fn-after-fy", "exit %s" % rc)
        if im.fast:
            rc, o = run([REF, "-fn", p["refuse"]])
            self.result(rc == 0, im, "fn-after-fy-refuse", "exit %s" % rc)
            # and -fy itself had nothing to repair after our replay:
            # orphans released, as a mount would
            ok = ("Pass ", "IMAGE: recovering journal", "Clearing orphaned",
                  "IMAGE: ", "***** FILE SYSTEM WAS MODIFIED")
            # (an extent tree that "could be shorter" is e2fsck's
            # optimisation, not a repair: Linux leaves such trees too)
            extra = [ln for ln in out["all"][1] if ln.strip() and
                     not ln.startswith(ok) and
                     not re.search(r"extent tree \(at level \d+\) could "
                                   r"be (shorter|narrower)", ln)]
            self.result(not extra, im, "fy-repairs-nothing",
                        "; ".join(extra[:4]) if extra else
                        "our -fy only replays and releases orphans")

        # journal only: ours under each policy, e2journal replay
        lo = int(time.time()) - 2
        rrc, rout = self.fsck(REF, p["ref-jo"], ["-y", "-E", "journal_only"],
                              d)
        # e2fsprogs' replay alone (journal_only also releases orphans)
        p["dbg"] = os.path.join(d, "dbg.img")
        copy(path, p["dbg"])
        run(["debugfs", "-w", "-R", "journal_run", p["dbg"]])
        if crashgen.facts(p["dbg"])["needs_recovery"]:
            # it could not open it: bitmaps that fail their checksums
            # until the replay; -n: do not verify metadata checksums
            run(["debugfs", "-w", "-n", "-R", "journal_run", p["dbg"]])
        for pol in ("stop", "replay-all", "refuse"):
            q = os.path.join(d, "jo-%s.img" % pol)
            copy(path, q)
            # one -E: the engine, as e2fsprogs' e2fsck, reads only the
            # last -E, and journal_only given in another is lost
            orc, oout = self.fsck(OURS, q, ["-y", "-E", "journal_only,"
                                            "journal_policy=" + pol], d)
            hi = int(time.time()) + 2
            bad = []
            if im.ours_fc and pol != "stop":
                # ours: replay-all and refuse give the same image
                if pol == "replay-all":
                    jo_all = (q, orc)
                else:
                    if orc != jo_all[1]:
                        bad.append("exit %s, replay-all %s" %
                                   (orc, jo_all[1]))
                    bad += self.compare_images(im, q, jo_all[0], lo, hi,
                                               ALLOWED)
                    self.result(not bad, im, "journal_only-" + pol,
                                "; ".join(bad) if bad else
                                "= -E journal_only under replay-all (exit "
                                "%s)" % orc)
            elif orc != rrc:
                bad.append("exit %s, e2fsprogs %s" % (orc, rrc))
            if not (im.ours_fc and pol != "stop"):
                slack = [] if im.fast else None
                bad += self.compare_images(im, q, p["ref-jo"], lo, hi,
                                           ALLOWED, slack=slack)
                self.result(not bad, im, "journal_only-" + pol,
                            "; ".join(bad) if bad else
                            "= e2fsprogs -y -E journal_only (exit %s)%s" %
                            (rrc, slack_note(slack)))
                self.kbytes(im, "journal_only-" + pol, q, p["ref-jo"])
            if im.fast:
                continue
            t = os.path.join(d, "tool-%s.img" % pol)
            copy(path, t)
            trc, tout = run([TOOL, "replay", "--policy", pol, t])
            if im.stale_fc and pol != "stop":
                # the full commits as our stop replays them, every one
                lost = [n for n in sorted(im.logged - {im.sb_block})
                        if read_block(t, n, im.bs) != read_block(
                            os.path.join(d, "tool-stop.img"), n, im.bs)]
                bad = ["exit %s" % trc] if trc else []
                if lost:
                    bad.append("blocks %s not as stop writes them" %
                               ", ".join(map(str, lost[:6])))
                self.result(not bad, im, "fc-full-commits-" + pol,
                            "; ".join(bad) if bad else
                            "stale fast-commit area: %d logged blocks as "
                            "the full commits alone leave them" %
                            len(im.logged))
            if im.fc_feature:
                # debugfs' journal_run drops a fast-commit journal whole
                # (doc/testing.md): no reference here, Linux is one
                self.result(None, im, "e2journal-replay-" + pol,
                            "fast_commit journal: debugfs journal_run "
                            "replays none of it")
                continue
            bad = []
            if trc != 0:
                bad.append("exit %s" % trc)
            bad += self.compare_images(im, t, p["dbg"], 0, 0, TOOL_ALLOWED,
                                       im.outside_journal)
            self.result(not bad, im, "e2journal-replay-" + pol,
                        "; ".join(bad) if bad else
                        "= debugfs journal_run (e2fsprogs' replay) outside "
                        "the journal")
        # what a boot does: preen, then a full check must be clean
        q = os.path.join(d, "preen.img")
        copy(path, q)
        prc, _ = run([OURS, "-p", q])
        rc, o = run([REF, "-fn", q])
        self.result(prc in (0, 1) and rc == 0, im, "preen-then-fn",
                    "e2fsck -p exit %s, e2fsprogs -fn exit %s" % (prc, rc))
        if im.fast:
            self.fast_commits(im, path, d)
        self.kernel(im, path, d, p)
        if self.damage:
            self.damaged(im, path, d)

    # ------------------------------------------------------ fast commits
    def fast_commits(self, im, path, d):
        """Live fast commits, replayed by ours: no full commit lost.
        e2journal replay under stop writes the full commits alone (and
        leaves the fast commits to e2fsck, exit 4); under replay-all and
        refuse every block the full commits log must be as stop wrote
        it, but where the fast commits' records may have written
        (fccompare.outside_fc)."""
        tid, bs, recs = fccompare.records(path)
        im.fc_recs = recs
        full = os.path.join(d, "tool-stop.img")
        copy(path, full)
        src, _ = run([TOOL, "replay", "--policy", "stop", full])
        self.result(src == 4, im, "e2journal-replay-stop",
                    "exit %s (4: the full commits replayed, the fast "
                    "commits left to e2fsck)" % src)
        for pol in ("replay-all", "refuse"):
            t = os.path.join(d, "tool-%s.img" % pol)
            copy(path, t)
            trc, tout = run([TOOL, "replay", "--policy", pol, t])
            bad = []
            if trc != 0:
                bad.append("exit %s" % trc)
            lost = fccompare.outside_fc(t, full, recs, bs, im.logged)
            if lost:
                bad.append("blocks %s of the full commits not as stop "
                           "writes them" % ", ".join(map(str, lost[:6])))
            self.result(not bad, im, "fc-full-commits-" + pol,
                        "; ".join(bad) if bad else
                        "%d logged blocks as the full commits left them "
                        "but where %d fast-commit records wrote" %
                        (len(im.logged), len(recs)))

    # ------------------------------------------------------ Linux
    def kernel(self, im, path, d, p):
        kimg = path + ".kernel"
        kz = kimg + ".xz"
        ka = os.path.join(d, "kernel-umount.img")
        kb = os.path.join(d, "kernel.img")
        have = False
        if self.uml or self.host:
            copy(path, ka)
            copy(path, kb)
            mark_errors(kb)
            if self.host:
                rc, log = host_mount(ka, kb, d)
            else:
                rc, log = boot_mount(self.uml, ka, kb, d)
            if rc is None:
                why = self.linux_refuses(im)
                if why:
                    self.result(True, im, "kernel", why + "; Linux: " +
                                log.splitlines()[0])
                    self.linux_refused.append("%s: %s" % (im.name, why))
                    return
                self.result(False, im, "kernel", "the boot: " + log)
                return
            have = True
            if self.save_kernel:
                subprocess.run(["xz", "-k", "-f", "-9", kb], check=True)
                shutil.move(kb + ".xz", kz)
            rc, o = run([REF, "-fn", ka])
            known = self.linux_fc_errors(im, o) if rc == 4 else None
            if known:
                self.result(True, im, "kernel-umount-fn",
                            "e2fsprogs -fn after Linux mounted and "
                            "unmounted it: exit 4, only Linux's known "
                            "fast-commit errors (doc/policy.md): " +
                            "; ".join(known))
                self.linux_fn.append("%s: %s" % (im.name,
                                                 "; ".join(known)))
            else:
                self.result(rc == 0, im, "kernel-umount-fn",
                            "e2fsprogs -fn after Linux mounted and "
                            "unmounted it: exit %s" % rc)
            if im.fast:
                self.fc_vs_linux(im, p, ka, o)
        elif os.path.exists(kz):
            with open(kb, "wb") as f:
                subprocess.run(["xz", "-dc", kz], stdout=f, check=True)
            have = True
        if not have:
            self.result(None, im, "kernel", "no --uml, no --host-kernel "
                        "and no " + kz)
            return
        # ours: e2journal replay (stop; replay-all is the same here).
        # Fast commits: Linux replays them after the log, e2journal does
        # not, and e2fsprogs' replay of them is broken (doc/testing.md):
        # no second replayer to compare with
        if im.fast:
            # Linux's replay (no orphan cleanup) and e2journal's under
            # replay-all: every block the full commits log, but where
            # the fast commits' records may have written (compared
            # there by fc_vs_linux)
            mine = os.path.join(d, "tool-replay-all.img")
            lost = fccompare.outside_fc(mine, kb, im.fc_recs, im.bs,
                                        im.logged - {im.sb_block})
            self.result(not lost, im, "kernel",
                        "blocks %s differ" % ", ".join(map(str, lost[:6]))
                        if lost else
                        "%d logged blocks = %s's replay but where the "
                        "fast commits wrote" % (len(im.logged),
                                                self.kernel_name))
            return
        mine = os.path.join(d, "tool-stop.img")
        bad = self.compare_images(im, kb, mine, 0, 0, KERNEL_ALLOWED,
                                  im.logged)
        self.result(not bad, im, "kernel",
                    "; ".join(bad) if bad else
                    "%d logged blocks = %s's replay" % (len(im.logged),
                                                        self.kernel_name))

    def linux_refuses(self, im):
        """Why Linux's refusal to mount a fast-commit image is one that
        doc/policy.md lists (a full fast-commit area; an INODE record of
        a file unlinked while open), or None."""
        if not im.fast:
            return None
        if fccompare.area_full(im.path):
            return ("the fast commits fill the area to the journal's "
                    "last block, and Linux reads one block past it "
                    "(fc_do_one_pass() up to j_fc_last = s_maxlen: "
                    "\"JBD2: corrupted journal superblock\"; "
                    "doc/policy.md, Fast commits: ours replays them)")
        dead = fccompare.unlinked_inode_records(im.fc_recs)
        if not dead:
            return None
        return ("Linux refuses the INODE record of inode(s) %s, unlinked "
                "while open (doc/policy.md, Fast commits: ours writes "
                "it)" % ", ".join(map(str, sorted(dead))))

    def linux_fc_errors(self, im, out):
        """e2fsprogs -fn's complaints on Linux's replay of a fast-commit
        image when they are only those doc/policy.md lists for Linux
        (i_blocks, link and directory counts short): a list of them, or
        None."""
        if not im.fast:
            return None
        ok = ("Pass ", "e2fsck ", "Fix? no", "*****")
        known, other = [], []
        for ln in out.splitlines():
            s = ln.strip()
            if not s or s.startswith(ok) or " files (" in s or \
                    "**********" in s or \
                    s.endswith(("was not cleanly unmounted, check forced.",
                                "clean")):
                continue
            if re.match(r"Inode \d+, i_blocks is \d+, should be \d+", s) \
                    or re.match(r"Inode \d+ ref count is \d+, should be "
                                r"\d+", s) \
                    or s.startswith("Directories count wrong for group"):
                known.append(s.replace("  Fix? no", ""))
            else:
                other.append(s)
        return known if known and not other else None

    def fc_vs_linux(self, im, p, ka, linux_fn):
        """Ours (e2fsck -fy under replay-all and refuse) against Linux's
        replay of a copy (mounted and unmounted) on every inode and name
        the fast commits touch; i_blocks counted from the map."""
        for who in ("all", "refuse"):
            # our -E journal_only (the replay and the orphans released,
            # as a mount and umount do), not -fy, which would repair
            mine = os.path.join(os.path.dirname(p["all"]), "jo-%s.img" %
                                {"all": "replay-all"}.get(who, who))
            res = fccompare.compare(mine, ka, im.fc_recs, im.bs, linux_fn)
            res += fccompare.iblocks_from_map(mine, im.fc_recs, im.bs)
            bad = [w + ": " + y for ok, w, y in res if not ok]
            notes = [w for ok, w, y in res if ok and "; " in w]
            if who == "all":
                self.linux_wrong += ["%s %s" % (im.name, n.replace(
                    " as Linux replays it; ", ": ").split(" (doc/")[0])
                    for n in notes]
            self.result(not bad, im, "fc-linux-" + who,
                        "; ".join(bad[:4]) if bad else
                        "%d inodes and names = %s's replay%s" % (
                            len(res), self.kernel_name,
                            " (Linux's own errors: %d)" % len(notes)
                            if notes else ""))

    # ------------------------------------------------------ damage
    def damaged(self, im, path, d):
        rnd = random.Random(im.name)
        cases = []
        cm = im.committed
        mid = cm[0] if len(cm) >= 2 else None
        last = cm[-1]
        if mid and (im.csum or im.v1):
            cases.append(("commit-mid-csum", mid, "commit", 16, "flag"))
        if mid and im.csum:
            cases.append(("commit-mid-body", mid, "commit", 200, "flag"))
        if im.csum or im.v1:
            if im.async_commit:
                cases.append(("commit-last-async-csum", last, "commit", 16,
                              "skip"))
                if im.csum:
                    cases.append(("commit-last-async-body", last, "commit",
                                  200, "skip"))
            elif im.csum:
                cases.append(("commit-last-torn", last, "commit", None,
                              "torn"))
        if im.csum:
            t = next((t for t in cm[:-1] if t["tags"]), None)
            if t:
                cases.append(("data", t, "data", None, "data"))
                cases.append(("descriptor", t, "descriptor", 20,
                              "descr"))
            t = next((t for t in cm if "revoke" in t["blocks"].values()),
                     None)
            if t:
                cases.append(("revoke", t, "revoke", im.bs - 2, "revoke"))
        if im.fast:
            self.fc_damage(im, path, d)
            return
        # the undamaged replay, for reference
        base = os.path.join(d, "tool-replay-all.img")
        for name, txn, kind, off, rule in cases:
            self.one_damage(im, path, d, base, name, txn, kind, off, rule,
                            rnd)

    def fc_damage(self, im, path, d):
        """A stale fast-commit area (HEAD's tid one older: what a full
        commit after fast commits leaves) and a torn last fast commit
        (its TAIL's crc spoiled: never acknowledged).  No full commit
        lost under replay-all and refuse (stale: every logged block as
        the full commits alone leave it; torn: but where the records
        may write), exit 0, e2fsprogs -fn clean after our -fy; under
        stop ours = e2fsprogs."""
        tails = []
        fccompare.records(path, tails)
        full = os.path.join(d, "tool-stop.img")
        for name in ("fc-stale", "fc-torn"):
            if name == "fc-torn" and not tails:
                continue
            q = os.path.join(d, "dmg-%s.img" % name)
            copy(path, q)
            j = jfmt.Journal(q, im.bs, im.j.map)
            jb, off = (j.jsb.last + 1, 8) if name == "fc-stale" else \
                (tails[-1][0], tails[-1][1] + 8)
            blk = bytearray(j.read(jb))
            if name == "fc-stale":
                t = struct.unpack("<I", blk[off:off + 4])[0]
                blk[off:off + 4] = struct.pack("<I", (t - 1) & 0xFFFFFFFF)
            else:
                blk[off] ^= 0xFF
            j.write(jb, bytes(blk))
            for pol in ("replay-all", "refuse"):
                t = os.path.join(d, "dmg-%s-%s.img" % (name, pol))
                copy(q, t)
                rc, _ = run([TOOL, "replay", "--policy", pol, t])
                bad = ["exit %s" % rc] if rc != 0 else []
                if name == "fc-stale":
                    lost = [n for n in sorted(im.logged - {im.sb_block})
                            if read_block(t, n, im.bs) !=
                            read_block(full, n, im.bs)]
                else:
                    lost = fccompare.outside_fc(t, full, im.fc_recs,
                                                im.bs, im.logged)
                if lost:
                    bad.append("blocks %s of the full commits not as "
                               "stop writes them" %
                               ", ".join(map(str, lost[:6])))
                u = os.path.join(d, "dmg-%s-%s-fy.img" % (name, pol))
                copy(q, u)
                run([OURS, "-fy", "-E", "journal_policy=" + pol, u])
                frc, _ = run([REF, "-fn", u])
                if frc != 0:
                    bad.append("e2fsprogs -fn exit %s after our -fy" % frc)
                self.result(not bad, im, "damage-%s-%s" % (name, pol),
                            "; ".join(bad) if bad else
                            "exit 0, the full commits' %d blocks kept, "
                            "-fn clean" % len(im.logged))
                for f in (t, u):
                    os.unlink(f)
            r, s = self.damage_stop(im, q, d, name)
            for f in (r, s, q):
                os.unlink(f)

    def damage_stop(self, im, q, d, name):
        """stop on the damaged copy @q: ours equals e2fsprogs -fy.  Returns
        the two replayed copies (e2fsprogs', ours)."""
        lo = int(time.time()) - 2
        r, s = os.path.join(d, "dmg-%s-ref.img" % name), \
            os.path.join(d, "dmg-%s-stop.img" % name)
        copy(q, r)
        copy(q, s)
        rr = self.fsck(REF, r, ["-fy"], d)
        sr = self.fsck(OURS, s, ["-fy", "-E", "journal_policy=stop"], d)
        hi = int(time.time()) + 2
        bad, note = self.vs_ref(im, q, (s,) + sr, (r,) + rr, ["-fy"], d,
                                lo, hi)
        self.result(not bad, im, "damage-%s-stop" % name,
                    "; ".join(bad) if bad else
                    "= e2fsprogs -fy (exit %s)%s" % (rr[0], note))
        return r, s

    def one_damage(self, im, path, d, base, name, txn, kind, off, rule, rnd):
        jbs = sorted(b for b, k in txn["blocks"].items() if k == kind)
        jb = jbs[0]
        if kind == "data":
            # a version that a later revoke cancels is never read (nor
            # checked): damage one that is not revoked
            revoked = set()
            for u in im.committed:
                if jfmt.tid_le(txn["tid"], u["tid"]):
                    revoked |= set(u["revokes"])
            jb = next((b for f, b, _ in txn["tags"] if f not in revoked),
                      None)
            if jb is None:
                return
        q = os.path.join(d, "dmg-%s.img" % name)
        copy(path, q)
        j = jfmt.Journal(q, im.bs, im.j.map)
        blk = bytearray(j.read(jb))
        if rule == "torn":
            # a torn commit: the header sector written, the rest stale
            for i in range(512, im.bs):
                blk[i] = rnd.randrange(256)
        elif kind == "data":
            blk[rnd.randrange(im.bs)] ^= 0xFF
        else:
            blk[off] ^= 0xFF
        j.write(jb, bytes(blk))
        where = "tid %d, journal block %d" % (txn["tid"], jb)
        # replay-all with e2journal
        t = os.path.join(d, "dmg-%s-all.img" % name)
        copy(q, t)
        rc, out = run([TOOL, "replay", "--policy", "replay-all", t])
        bad = []
        others = im.logged
        if rule == "flag":
            if rc != 1:
                bad.append("exit %s, not 1 (flagged)" % rc)
            why = "replayed and flagged"
        elif rule in ("skip",):
            if rc != 0:
                bad.append("exit %s, not 0 (an async tail is tolerated)"
                           % rc)
            why = "skipped, not flagged"
            # the reference: the log whose last transaction never
            # committed (its commit block's magic gone: POLICY.md's row
            # "no commit block", whose revoke records are not honoured
            # either; --upto would still honour them)
            ref = os.path.join(d, "dmg-%s-nocommit.img" % name)
            copy(path, ref)
            rj = jfmt.Journal(ref, im.bs, im.j.map)
            # and the log ends there: an uncommitted transaction after it
            # (a descriptor of the next tid) would make a commit block
            # with no magic a garbled one, replayed and flagged (POLICY.md),
            # so its descriptor and revoke blocks lose their magic too
            cut = [jb] + [b for t in im.txns if not t["committed"] and
                          t["tid"] is not None and
                          jfmt.tid_le(txn["tid"], t["tid"])
                          for b, k in t["blocks"].items()
                          if k in ("descriptor", "revoke", "commit")]
            for b in cut:
                nb = bytearray(rj.read(b))
                nb[0:4] = bytes(4)
                rj.write(b, bytes(nb))
            run([TOOL, "replay", "--policy", "replay-all", ref])
            base = ref
        elif rule == "torn":
            if rc != 0:
                bad.append("exit %s, not 0 (a torn last commit is "
                           "complete)" % rc)
            why = "replayed, not flagged"
        else:
            if rc != 1:
                bad.append("exit %s, not 1 (flagged)" % rc)
            why = "flagged"
        if rule == "data":
            fsb = next(f for f, b, _ in txn["tags"] if b == jb)
            # that version is never written: the block holds what the
            # undamaged replay gives unless this transaction's version is
            # the one that survives
            others = im.logged - {fsb}
            got = read_block(t, fsb, im.bs)
            if got == bytes(blk):
                bad.append("the damaged block %d was written" % fsb)
        if rule == "descr":
            # the damaged descriptor's own tags (POLICY.md: none of ITS
            # data blocks is written): a transaction may have more than
            # one descriptor, and jbs[0] is the lowest journal block, not
            # the first in the log, when the transaction runs past the
            # end of the journal (a wrapping log of the host corpus)
            skipped = {f for _, f, _ in jfmt.tags(im.j.jsb, im.bs,
                                                  read_block_j(im, path,
                                                               jb))}
            others = im.logged - skipped
            later = set()
            for u in im.committed:
                if jfmt.tid_le(txn["tid"] + 1, u["tid"]):
                    later |= {f for f, _, _ in u["tags"]}
            for fsb in sorted(skipped - later):
                a = read_block(path, fsb, im.bs)
                b = read_block(t, fsb, im.bs)
                if fsb == im.sb_block:
                    # the replay writes the superblock itself (the
                    # recovery flag, the error state): all but it
                    o = 1024 - fsb * im.bs
                    a, b = a[:o] + a[o + 1024:], b[:o] + b[o + 1024:]
                if a != b:
                    bad.append("block %d of the bad descriptor written"
                               % fsb)
                    break
        diff = self.compare_images(
            im, t, base, 0, 0, {"s_kbytes_written", "s_wtime", "s_state",
                                "s_checksum", "s_error_count",
                                "s_first_error_time", "s_last_error_time"},
            others)
        if diff:
            bad.append("differs from the undamaged replay: " +
                       ", ".join(diff))
        self.result(not bad, im, "damage-%s-replay-all" % name,
                    "; ".join(bad) if bad else "%s (%s)" % (why, where))
        r, s = self.damage_stop(im, q, d, name)
        self.kbytes(im, "damage-%s-stop" % name, s, r)
        # refuse: flagged damage leaves the image untouched, exit 4
        if rule in ("flag", "data", "descr", "revoke"):
            u = os.path.join(d, "dmg-%s-refuse.img" % name)
            copy(q, u)
            rc, _ = run([OURS, "-fy", "-E", "journal_policy=refuse", u])
            with open(u, "rb") as fu, open(q, "rb") as fq:
                same = not differing_blocks(fu, fq, im.bs)
            self.result(rc == 4 and same, im, "damage-%s-refuse" % name,
                        "exit %s, image %s" % (rc, "untouched" if same
                                                else "changed"))
        for f in (t, r, s, q):
            os.unlink(f)


def mark_errors(img):
    """Set the error state in @img's superblock (checksum redone): Linux
    then replays the journal but skips its orphan cleanup ("Skipping
    orphan recovery on fs with errors"), whose result it would otherwise
    write back before the mount returns."""
    with open(img, "r+b") as f:
        f.seek(1024)
        sb = bytearray(f.read(1024))
        sb[0x3A] |= 2
        if struct.unpack("<I", sb[0x64:0x68])[0] & 0x400:
            sb[0x3FC:0x400] = struct.pack("<I", jfmt.crc32c(
                0xFFFFFFFF, bytes(sb[:0x3FC])))
        f.seek(1024)
        f.write(sb)


INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p {mnt}
if mount -t ext4 -o noinit_itable /dev/ubda {mnt}; then
	echo "@@ a mounted"
	umount {mnt} && echo "@@ a unmounted"
fi
if mount -t ext4 -o noinit_itable /dev/ubdb {mnt}; then
	echo "@@ b mounted"
	sleep 60
fi
poweroff -f
"""


def boot_mount(uml, ka, kb, d):
    """Boot Linux with @ka (mounted and unmounted) and @kb (mounted, then
    the machine powered off: what is on disk is the replay, nothing
    checkpointed after it).  (0, log) or (None, why)."""
    init = os.path.join(d, "kinit.sh")
    with open(init, "w") as f:
        f.write(INIT.format(mnt=os.path.join(d, "kmnt")))
    os.chmod(init, 0o755)
    argv = [uml, "mem=128M", "ubd0=" + ka,
            "ubd1=" + kb, "root=/dev/root", "rootfstype=hostfs",
            "rootflags=/", "rw", "init=" + init, "con=null",
            "con0=fd:0,fd:1"]
    # the process group is killed as soon as ubdb is mounted: no sync,
    # no unmount (poweroff would sync, and write back what the mount did
    # after the replay), or after BOOT_TIMEOUT seconds.  UML is started
    # directly (not under timeout(1), which would leave it in a process
    # group of its own)
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    raw = b""
    t0 = time.time()
    try:
        buf = b""
        while time.time() - t0 < BOOT_TIMEOUT:
            r, _, _ = select.select([p.stdout], [], [], 1.0)
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            raw += chunk
            buf += chunk
            if b"@@ b mounted" in buf:
                break
            buf = buf[-64:]
    finally:
        crashgen.kill_group(p)
    p.returncode = p.returncode or 0
    log = raw.decode("utf-8", "replace").replace("\r", "")
    with open(os.path.join(d, "kernel.log"), "w") as f:
        f.write(log)
    for want in ("@@ a unmounted", "@@ b mounted"):
        if want not in log:
            said = [m for m in ("JBD2: recovery failed",
                                "error loading journal",
                                "invalid superblock checksum")
                    if m in log]
            return None, "no '%s' (%s; see kernel.log)" % (
                want, ", ".join(said) if said else
                "exit %d" % p.returncode)
    return 0, log


def host_mount(ka, kb, d):
    """The running kernel through loop devices (--host-kernel, as root):
    @ka mounted and unmounted; @kb (its error state set, see mark_errors)
    mounted, then cut at once with EXT4_IOC_SHUTDOWN NOLOGFLUSH and
    unmounted, as UML is killed when its mount returns: what is on disk
    is the replay and what the mount wrote itself, nothing checkpointed
    after it.  (Not a read-only mount: Linux 6.18 then replays a classic
    log, but fails on fast commits, whose replay starts handles on the
    read-only filesystem: "JBD2: journal recovery failed".)  (0, log) or
    (None, why)."""
    import hostgen
    mnt = os.path.join(d, "kmnt")
    msgs = []
    rc, why = 0, None
    for img, tag in ((ka, "a"), (kb, "b")):
        try:
            with hostgen.Loop(img, mnt, "noinit_itable") as lp:
                msgs.append("@@ %s mounted" % tag)
                if tag == "b":
                    lp.shutdown()
                    msgs.append("@@ b shut down")
            msgs.append("@@ %s unmounted" % tag)
        except OSError as e:
            msgs.append("%s: %s" % (tag, e))
            rc, why = None, "%s (see kernel.log)" % e
            break
    log = "\n".join(msgs)
    with open(os.path.join(d, "kernel.log"), "w") as f:
        f.write(log + "\n")
    return (0, log) if rc == 0 else (None, why)


def main(argv):
    global PENDING
    uml, damage, work, save, host = None, True, None, False, False
    while argv and argv[0].startswith("-"):
        a = argv.pop(0)
        if a == "--uml":
            uml = argv.pop(0)
        elif a == "--host-kernel":
            host = True
        elif a == "--pending":
            PENDING = load_pending(argv.pop(0))
        elif a == "--no-damage":
            damage = False
        elif a == "--work":
            work = argv.pop(0)
        elif a == "--save-kernel":
            save = True
        else:
            print("crashcheck: unknown option " + a, file=sys.stderr)
            return 16
    if not argv:
        print(__doc__, file=sys.stderr)
        return 16
    keep = work is not None
    if work is None:
        work = tempfile.mkdtemp(prefix="crashcheck.")
    c = Checker(work, uml, damage, save, host)
    try:
        for path in argv:
            c.check_image(path)
            if not keep:
                shutil.rmtree(os.path.join(work, os.path.basename(path)[:-4]),
                              ignore_errors=True)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed, %d skipped, %d expected failures "
          "(tests/crash/pending), %d passes of pending checks" % (
              c.npass, c.nfail, c.nskip, c.nxfail, c.nxpass))
    for f in c.fails:
        print("  failed: " + f)
    for n in c.linux_refused:
        print("  Linux refused to mount " + n)
    for n in c.linux_fn:
        print("  e2fsprogs -fn after Linux's replay (doc/policy.md): " + n)
    for n in c.linux_wrong:
        print("  Linux differs where allowed (doc/policy.md; tree "
              "shape): " + n)
    for n in c.xpassed:
        print("  passed, but listed as pending: " + n)
    # a pending check that passes is a line to remove (or a pattern to
    # narrow): it fails the run, so that no XPASS goes unseen
    return 1 if c.nfail or c.nxpass else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
