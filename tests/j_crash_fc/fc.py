# SPDX-License-Identifier: GPL-2.0
"""j_crash_fc: issue 21 item 12, the fast-commit image that no replayer
finishes, on a kernel-written image kept here (fcdir-1.img.xz: crashgen.py
configuration "fcdir", seed 1; fcdir-1.json records the run).  Asserts the
analysis summed up in doc/testing.md ("Fast commits") and kept whole in
bench/results/testing-runs.md ("Fast commits on the crash corpus"):

 1. the image is a good one: its fast-commit log holds CREAT tags, under
    the tid that follows the last full commit, that add names to a
    directory (inode 13) whose only block, as the full commits leave it,
    has no room for them, and no INODE or ADD_RANGE tag for that
    directory: the replayer has to grow the directory, as Linux does when
    it replays a create;
 2. Linux 6.1 replays it (fcdir-1.linux.img.xz: the image after a mount
    and a clean unmount in User-Mode Linux): the names are there, the
    directory grew to 3 blocks (it became an htree), but its i_blocks
    says 1 block: e2fsprogs' e2fsck -fn then reports
    "i_blocks is 8, should be 24";
 3. e2fsprogs 1.47.0 fails: "No free space in the directory" in
    ext4_fc_handle_link_and_create (it adds names with ext2fs_link, which
    never grows a directory), then writes a superblock whose checksum is
    that of its stale in-memory copy (read before the full commits were
    replayed: the journal's copy of the superblock, with s_last_mounted
    and s_last_orphan, is on disk, the checksum is of the old one plus
    e2fsck's own changes); it then fails to reopen the filesystem
    ("Superblock checksum does not match superblock"), exit 12;
 4. our e2fsck under journal_policy=stop, which hands fast commits to
    e2fsprogs' e2fsck, ends the same way; under replay-all (the default)
    it replays them itself (issue 33) and the result is clean;
 5. fc-6.img.xz (crashgen.py configuration "fc", seed 6 of the corpus run
    of 2026-12-04, fc-6.json): the live fast commits log an INODE tag of
    a file unlinked while open (i_links_count 0, i_dtime the next orphan),
    the input on which Linux 6.1's replay fails ("JBD2: recovery failed":
    ext4_iget refuses the linkless inode it has just written); with
    E2J_UML=/usr/bin/linux.uml the test boots it and checks that, else
    it checks the tags only;
 6. e2journal's own fast-commit replay (issue 33; step 1 now uses
    "-p stop" for the full commits alone) grows the directory, counts
    its i_blocks from its map, and leaves stock e2fsck nothing to do but
    release the orphans;
 7. fcdir-host-4.img.xz (check-crash-host's "fcdir" seed 4, written by
    Linux 6.18 through a loop mount, fcdir-host-4.json): the fast commits
    add names to directory 12, an htree, whose leaves are full, so
    ext2fs_link() splits leaves, in a buffer libext2fs never clears;
    ours zeroes the bytes after each split leaf's last name, so two
    replays with different heap contents (MALLOC_PERTURB_) write the
    same image, and no byte of the heap reaches the disk; e2fsprogs'
    own replay (stop's) still writes heap bytes there, and only those
    leaves pass crashcheck.py's leaf_slack_only();
 8. fc-xattr-7.img.xz (check-crash's "fc" seed 7 of a CI run, Linux
    6.1, fc-xattr-7.json): the fast commits unlink inode 17's last name,
    then log the inode with no link and its xattr block (2599), which the
    full commits leave it with: the file unlinked while open.  Our UNLINK
    deletes the file and releases the xattr block (its count to 0); the
    INODE record brings the inode back onto the orphan list with that
    block, so the replay takes the block's reference again (take_acl()
    in fc_replay.c).  Without that, e2fsck's release of the orphan left
    block 2599 marked in use and owned by nothing ("Block bitmap
    differences: -2599");
 9. fc-clock-9.img.xz (check-crash's "fc" seed 9 of a CI run, Linux 6.1,
    fc-clock-9.json): the fast commits unlink inode 62's last name, and
    our replay deletes it.  Its dtime is the run's clock, E2FSCK_TIME
    when set, as every other time e2fsck writes: the replay's own
    filesystem takes the caller's clock (fc_host.c).  Before, it was
    the wall clock, and two runs a second apart differed there.
"""

import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", os.path.join(
    os.environ["T"], "..", "..")), "tests", "lib"))
from fctest import T, EJ, REF, OURS, DEBUGFS, ENV, run, unxz  # noqa: E402
import fctest  # noqa: E402
import jfmt  # noqa: E402
import crashgen  # noqa: E402

result = fctest.Results("j_crash_fc")


def stat(img, ino):
    rc, out = run([DEBUGFS, "-R", "stat <%d>" % ino, img])
    size = int(re.search(r"Size: (\d+)", out).group(1))
    count = int(re.search(r"Blockcount: (\d+)", out).group(1))
    ext = re.findall(r"\((\d+)(?:-(\d+))?\):", out)
    nblk = sum(int(b) - int(a) + 1 if b else 1 for a, b in ext)
    return size, count, nblk


def sb(img):
    with open(img, "rb") as f:
        f.seek(1024)
        return bytearray(f.read(1024))


def main():
    rc, out = run([REF, "-V"])
    if "1.47.0" not in out:
        print("RESULT SKIP j_crash_fc: %s is not e2fsprogs 1.47.0" % REF)
        return 0
    img = "fcdir-1.img"
    unxz(os.path.join(T, "fcdir-1.img.xz"), img)
    unxz(os.path.join(T, "fcdir-1.linux.img.xz"), "linux.img")

    # 1. the log
    j, _ = crashgen.journal_of(img)
    txns, _, _ = j.walk()
    tid = (j.jsb.sequence + len([t for t in txns if t["committed"]])) \
        & 0xFFFFFFFF
    tags = crashgen.fc_tags(j)
    live = []
    for t in tags:
        if t["tag"] in ("HEAD", "TAIL") and t["tid"] != tid:
            break
        live.append(t)
    creates = [t for t in live if t["tag"] == "CREAT" and t["parent"] == 13]
    grow = [t for t in live if t["tag"] in ("INODE", "ADD_RANGE") and
            t["ino"] == 13]
    result(live and live[0]["tag"] == "HEAD" and len(creates) >= 1 and
           not grow, "the fast-commit log (tid %d) adds %d names to "
           "directory 13 and logs neither its inode nor a range of it" %
           (tid, len(creates)), "" if creates and not grow else
           "%d creates, %d INODE/ADD_RANGE tags" % (len(creates), len(grow)))
    # the directory as the full commits leave it: one block, no room for
    # one more 56-byte entry
    full = "full.img"
    subprocess.run(["cp", "--sparse=always", img, full], check=True)
    run([EJ, "replay", "-p", "stop", full])
    size, count, nblk = stat(full, 13)
    rc, out = run([DEBUGFS, "-R", "ls <13>", full])
    names = len(re.findall(r"n\d{6}-x+", out))
    # "." and ".." (12 bytes each), 56 bytes a name (8 + 48), the 12-byte
    # checksum tail of metadata_csum
    room = (4096 - 12 - 24 - 56 * names) // 56
    result(size == 4096 and nblk == 1 and room < len(creates),
           "after the full commits directory 13 is one block holding %d "
           "names, room for %d more" % (names, room),
           "size %d, %d blocks" % (size, nblk))

    # 2. Linux
    size, count, nblk = stat("linux.img", 13)
    rc, out = run([DEBUGFS, "-R", "ls <13>", "linux.img"])
    have = all(t["name"] in out for t in creates)
    result(have and nblk == 3 and size == 3 * 4096,
           "Linux 6.1 replayed the names into a directory of 3 blocks",
           "names %s, size %d, %d blocks" % (have, size, nblk))
    rc, out = run([REF, "-fn", "linux.img"])
    result(count == 8 and "Inode 13, i_blocks is 8, should be 24" in out,
           "Linux 6.1 left i_blocks %d (1 block) on it; e2fsck -fn exit %d"
           % (count, rc), "" if count == 8 else "i_blocks %d" % count)

    # 3. e2fsprogs 1.47.0
    subprocess.run(["cp", "--sparse=always", img, "ref.img"], check=True)
    pre = sb(img)
    rc, out = run([REF, "-fy", "ref.img"])
    nospace = re.search(r'"No free space in the directory" encountered in '
                        r'function ext4_fc_handle_link_and_create', out)
    badsb = "Superblock checksum does not match superblock" in out
    result(rc == 12 and nospace and badsb,
           "e2fsprogs 1.47.0: no free space in the directory, then a bad "
           "superblock checksum, exit %d" % rc)
    post = sb("ref.img")
    stored = struct.unpack("<I", post[0x3FC:0x400])[0]
    ondisk = jfmt.crc32c(0xFFFFFFFF, bytes(post[:0x3FC]))
    # the superblock e2fsck had in memory: what is on disk now, but for
    # the bytes the journal's last copy of the superblock brought (block
    # 0 of a 4 KiB filesystem, bytes 1024-2047), which it never read
    logged = None
    for t in txns:
        if t["committed"]:
            for fsb, jb, _ in t["tags"]:
                if fsb == 0:
                    logged = j.read(jb)[1024:2048]
    mem = bytearray(post)
    brought = [i for i in range(0x3FC) if logged and logged[i] != pre[i]]
    for i in brought:
        mem[i] = pre[i]
    stale = jfmt.crc32c(0xFFFFFFFF, bytes(mem[:0x3FC]))
    journaled = bool(brought) and all(post[i] == logged[i] or
                                      post[i] != pre[i] for i in brought)
    result(stored != ondisk and stored == stale and journaled,
           "its superblock checksum 0x%08x is that of its stale copy "
           "(0x%08x), not of the superblock written (0x%08x)" %
           (stored, stale, ondisk))

    # 4. ours
    subprocess.run(["cp", "--sparse=always", img, "ours.img"], check=True)
    orc, oout = run([OURS, "-fy", "-E", "journal_policy=stop", "ours.img"])
    result(orc == rc and "No free space in the directory" in oout and
           "Superblock checksum does not match" in oout,
           "our e2fsck under stop (fast commits are e2fsprogs' job there) "
           "ends the same: exit %d" % orc)
    # replay-all (the default): the fast commits are ours (issue 33)
    subprocess.run(["cp", "--sparse=always", img, "ours.img"], check=True)
    orc, oout = run([OURS, "-fy", "ours.img"])
    result(orc == 0 and "leaving its replay" not in oout,
           "our e2fsck under replay-all replays the fast commits itself: "
           "exit %d" % orc, oout)
    rc2, out2 = run([REF, "-fn", "ours.img"])
    result(rc2 == 0, "after our e2fsck, e2fsck -fn finds it clean", out2)
    ours_lib(img, creates)
    open_unlinked()
    split_leaf()
    unlinked_xattr()
    clock_dtime()
    return 1 if result.fails else 0


def ours_lib(img, creates):
    """6. e2journal's own fast-commit replay (issue 33): every name in
    directory 13, grown as needed, its i_blocks from its map, and stock
    e2fsck then has nothing to do but release the orphans."""
    subprocess.run(["cp", "--sparse=always", img, "lib.img"], check=True)
    rc, out = run([EJ, "replay", "lib.img"])
    result(rc == 0, "e2journal replay (replay-all) replays the fast commits",
           "exit %d\n%s" % (rc, out))
    size, count, nblk = stat("lib.img", 13)
    rc, out = run([DEBUGFS, "-R", "ls <13>", "lib.img"])
    have = all(t["name"] in out for t in creates)
    result(have and size == nblk * 4096 and count == nblk * 8 and nblk > 1,
           "ours grew directory 13 to %d blocks, i_blocks %d, every name "
           "in it" % (nblk, count), "size %d, names %s" % (size, have))
    rc, out = run([REF, "-fy", "lib.img"])
    extra = [ln for ln in out.splitlines() if ln.strip() and
             not ln.startswith(("Pass ", "e2fsck ", "Clearing orphaned",
                                "lib.img:"))]
    result(rc in (0, 1) and not extra,
           "after ours, e2fsck -fy only releases the orphans",
           "exit %d\n%s" % (rc, out))
    rc, out = run([REF, "-fn", "lib.img"])
    result(rc == 0, "after ours, e2fsck -fn finds it clean", out)


def open_unlinked():
    img = "fc-6.img"
    unxz(os.path.join(T, "fc-6.img.xz"), img)
    j, _ = crashgen.journal_of(img)
    txns, _, _ = j.walk()
    tid = (j.jsb.sequence + len([t for t in txns if t["committed"]])) \
        & 0xFFFFFFFF
    live = []
    for t in crashgen.fc_tags(j):
        if t["tag"] in ("HEAD", "TAIL") and t["tid"] != tid:
            break
        live.append(t)
    # the raw inode of each INODE tag: i_links_count and i_dtime
    linkless = []
    for t in live:
        if t["tag"] != "INODE":
            continue
        blk = j.read(t["block"])
        off = 0
        while off + 4 <= len(blk):
            tag, ln = struct.unpack("<HH", blk[off:off + 4])
            if tag == 6 and struct.unpack("<I", blk[off + 4:off + 8])[0] \
                    == t["ino"]:
                raw = blk[off + 8:off + 4 + ln]
                links = struct.unpack("<H", raw[0x1A:0x1C])[0]
                dtime = struct.unpack("<I", raw[0x14:0x18])[0]
                if links == 0 and dtime:
                    linkless.append(t["ino"])
                break
            if tag in (7, 8):
                break
            off += 4 + ln
    result(41 in linkless, "fc-6: the fast commits (tid %d) log inode 41 "
           "with no link, on the orphan list" % tid,
           "linkless inodes %s" % linkless)
    uml = os.environ.get("E2J_UML")
    if not uml:
        return
    init = os.path.abspath("init.sh")
    with open(init, "w") as f:
        f.write("#!/bin/sh\nmount -t proc proc /proc\n"
                "mount -t devtmpfs dev /dev\nmkdir -p %s/m\n"
                "mount -t ext4 /dev/ubda %s/m && echo '@@ mounted'\n"
                "poweroff -f\n" % (os.getcwd(), os.getcwd()))
    os.chmod(init, 0o755)
    # its own session: every UML process is killed with the group
    p = subprocess.Popen([uml, "mem=128M", "ubd0=" + os.path.abspath(img),
                          "root=/dev/root", "rootfstype=hostfs",
                          "rootflags=/", "rw", "init=" + init, "con=null",
                          "con0=fd:0,fd:1"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    try:
        raw, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        raw = b""
    finally:
        crashgen.kill_group(p)
    out = raw.decode("utf-8", "replace")
    result("JBD2: recovery failed" in out and "@@ mounted" not in out,
           "fc-6: Linux says \"JBD2: recovery failed\" and does not mount")


def split_leaf():
    """7. the leaves libext2fs splits for ours hold no heap bytes."""
    img = "fcdir-host-4.img"
    unxz(os.path.join(T, img + ".xz"), img)
    outs = []
    for pol, perturb in (("stop", "0"), ("replay-all", "165"),
                         ("replay-all", "90")):
        o = "split-%s-%s.img" % (pol, perturb)
        subprocess.run(["cp", "--sparse=always", img, o], check=True)
        env = dict(ENV, MALLOC_PERTURB_=perturb)
        p = subprocess.run([EJ, "replay", "-p", pol, o], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        outs.append((o, p.returncode))
    full = stat(outs[0][0], 12)[0] // 4096
    after = stat(outs[1][0], 12)[0] // 4096
    result(after > full, "fcdir-host-4: the fast commits grow htree "
           "directory 12 from %d to %d blocks" % (full, after))
    with open(outs[1][0], "rb") as a, open(outs[2][0], "rb") as b:
        x, y = a.read(), b.read()
    # but for the superblock (its write time: the runs' clocks differ)
    same = x[:1024] + x[2048:] == y[:1024] + y[2048:]
    result(outs[1][1] == 0 and outs[2][1] == 0 and same,
           "fcdir-host-4: two replays with other heap contents write the "
           "same blocks (the split leaves' slack zeroed)",
           "exits %d %d, same %s" % (outs[1][1], outs[2][1], same))
    # e2fsprogs' own fast-commit replay (what stop hands the journal to)
    # writes heap bytes there: crashcheck.py passes those leaves, only
    import crashcheck
    refs = []
    for perturb in ("0", "165"):
        o = "split-ref-%s.img" % perturb
        subprocess.run(["cp", "--sparse=always", img, o], check=True)
        env = dict(ENV, MALLOC_PERTURB_=perturb, E2FSCK_TIME="1765000000")
        subprocess.run([REF, "-fy", o], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(o, "rb") as f:
            refs.append(f.read())
    bs = 4096
    # (from block 1: the superblock's write time may differ)
    differ = [n for n in range(1, len(refs[0]) // bs)
              if refs[0][n * bs:(n + 1) * bs] != refs[1][n * bs:(n + 1) * bs]]
    leaves = [n for n in differ if crashcheck.leaf_slack_only(
        refs[0][n * bs:(n + 1) * bs], refs[1][n * bs:(n + 1) * bs], True)]
    result(differ and leaves == differ,
           "fcdir-host-4: e2fsprogs' own replay leaves heap bytes in %d "
           "split leaves, which crashcheck.py's leaf_slack_only() passes"
           % len(differ), "blocks %s differ, %s passed" % (differ, leaves))
    x = bytearray(refs[0][differ[0] * bs:(differ[0] + 1) * bs]) \
        if differ else bytearray(bs)
    y = bytearray(x)
    y[20] ^= 1
    result(not crashcheck.leaf_slack_only(bytes(x), bytes(y), True),
           "leaf_slack_only() fails a leaf whose entries differ")



def unlinked_xattr():
    """8. the file unlinked while open keeps its xattr block's reference."""
    img = "fc-xattr-7.img"
    unxz(os.path.join(T, "fc-xattr-7.img.xz"), img)
    # a good image: the full commits leave 2599 inode 17's xattr block,
    # and the fast commits unlink it and log it with no link
    subprocess.run(["cp", "--sparse=always", img, "x-stop.img"], check=True)
    rc, _ = run([EJ, "replay", "--policy", "stop", "x-stop.img"])
    rc, out = run([DEBUGFS, "-R", "stat <17>", "x-stop.img"])
    result("File ACL: 2599" in out and re.search(r"Links: 1\b", out),
           "fc-xattr-7: the full commits leave inode 17 one link and "
           "xattr block 2599", out)
    rc, out = run([EJ, "dump", img])
    result(re.search(r"unlink .*ino 17 ", out) and
           re.search(r"inode +ino 17 mode \S+ links 0", out),
           "fc-xattr-7: the fast commits unlink inode 17 and log it with "
           "no link", out)
    subprocess.run(["cp", "--sparse=always", img, "x.img"], check=True)
    rc, out = run([EJ, "replay", "x.img"])
    result(rc == 0, "fc-xattr-7: e2journal replay (replay-all)",
           "exit %d\n%s" % (rc, out))
    rc, out = run([DEBUGFS, "-R", "stat <17>", "x.img"])
    result("File ACL: 2599" in out and re.search(r"Links: 0\b", out),
           "fc-xattr-7: ours leaves inode 17 with no link and its xattr "
           "block", out)
    rc, out = run([REF, "-fy", "x.img"])
    extra = [ln for ln in out.splitlines() if ln.strip() and
             not ln.startswith(("Pass ", "e2fsck ", "Clearing orphaned",
                                "x.img:"))]
    result(rc in (0, 1) and not extra and "Clearing orphaned inode 17" in out,
           "fc-xattr-7: after ours, e2fsck -fy only releases the orphan "
           "(its xattr block with it)", "exit %d\n%s" % (rc, out))
    rc, out = run([DEBUGFS, "-R", "testb 2599", "x.img"])
    result("not in use" in out,
           "fc-xattr-7: block 2599 is free once the orphan is released", out)
    rc, out = run([REF, "-fn", "x.img"])
    result(rc == 0, "fc-xattr-7: then e2fsck -fn finds it clean", out)



def clock_dtime():
    """9. a file the replay deletes gets the run's clock as its dtime."""
    img = "fc-clock-9.img"
    unxz(os.path.join(T, "fc-clock-9.img.xz"), img)
    rc, out = run([EJ, "dump", img])
    result(re.search(r"unlink .*ino 62 .*to replay", out),
           "fc-clock-9: the fast commits unlink inode 62", out)
    env = dict(ENV, E2FSCK_TIME="1700000000")
    rc, out = run([OURS, "-y", "-E", "journal_only", img], env=env)
    result(rc in (0, 1), "fc-clock-9: our e2fsck -y -E journal_only",
           "exit %d\n%s" % (rc, out))
    rc, out = run([DEBUGFS, "-R", "stat <62>", img])
    result(re.search(r"Links: 0\b", out) and
           re.search(r"dtime: 0x6553f100\b", out),
           "fc-clock-9: inode 62 deleted, its dtime E2FSCK_TIME "
           "(1700000000)", out)


if __name__ == "__main__":
    sys.exit(main())
