#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostgen.py: crash images written by the running kernel (loop mounts).

crashgen.py's corpus, without User-Mode Linux: each image is made from a
configuration (crashgen.CONFIGS: the same filesystems, mount options and
workloads) and a seed.  mke2fs builds the filesystem, a loop device of
this host's kernel is mounted with the configuration's options, and
workload.py runs on it (a child process, "@@ N" after each operation);
after the operation and the delay the seed chose (the small journals
then wait for the log on disk to wrap, as crashgen does), the filesystem
is cut with the ext4 shutdown ioctl, EXT4_IOC_SHUTDOWN with
EXT4_GOING_FLAGS_NOLOGFLUSH (what xfstests' godown does): the journal is
aborted where it stands, nothing more reaches it, as after a power
failure.  Then the workload is killed, the filesystem unmounted and the
loop device detached.  An image is kept when it needs recovery and its
journal holds a committed transaction; otherwise the next attempt of the
seed is made.  The fast-commit configuration's images are kept only with
live fast commits (blocks whose HEAD carries the tid after the last full
commit) unless none came in all attempts.

Needs root (losetup, mount).  Every loop device and mount made here is
undone before the image is judged, and on any error.

Usage: hostgen.py OUTDIR CONFIG:SEED...
       hostgen.py --can-mount DIR   (exit 0 when loop mounts work here)
"""

import fcntl
import os
import signal
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import crashgen  # noqa: E402

EXT4_IOC_SHUTDOWN = 0x8004587d          # _IOR('X', 125, __u32)
EXT4_GOING_FLAGS_NOLOGFLUSH = 0x2
RUN_TIMEOUT = 120


def sh(argv, check=True):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace").strip()
    if check and p.returncode:
        raise OSError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                            out))
    return p.returncode, out


class Loop:
    """A loop device on an image file and, optionally, its mount; undone
    (umount, losetup -d) by close(), also after errors."""

    def __init__(self, img, mnt=None, opts=None, ro=False):
        self.dev = None
        self.mnt = None
        _, self.dev = sh(["losetup", "--find", "--show", img])
        if mnt is None:
            return
        os.makedirs(mnt, exist_ok=True)
        argv = ["mount", "-t", "ext4"]
        o = ",".join(x for x in (opts, "ro" if ro else "") if x)
        if o:
            argv += ["-o", o]
        rc, out = sh(argv + [self.dev, mnt], check=False)
        if rc:
            self.close()
            raise OSError("mount %s: %s" % (img, out))
        self.mnt = mnt

    def shutdown(self):
        fd = os.open(self.mnt, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN,
                        struct.pack("<I", EXT4_GOING_FLAGS_NOLOGFLUSH))
        finally:
            os.close(fd)

    def close(self):
        err = None
        if self.mnt:
            for i in range(50):
                rc, out = sh(["umount", self.mnt], check=False)
                if rc == 0:
                    break
                time.sleep(0.1)      # a killed workload still closing
            else:
                err = "umount %s: %s" % (self.mnt, out)
            self.mnt = None
        if self.dev:
            rc, out = sh(["losetup", "-d", self.dev], check=False)
            if rc and not err:
                err = "losetup -d %s: %s" % (self.dev, out)
            self.dev = None
        if err:
            raise OSError(err)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


def can_mount(d):
    """(True, "") when this process may loop-mount an ext4 image, else
    (False, why)."""
    if os.geteuid() != 0:
        return False, "not root"
    for t in ("losetup", "mount", "umount"):
        if subprocess.run(["sh", "-c", "command -v " + t],
                          stdout=subprocess.DEVNULL).returncode:
            return False, t + " missing"
    os.makedirs(d, exist_ok=True)
    img = os.path.join(d, "probe.img")
    try:
        sh(["mke2fs", "-q", "-F", "-t", "ext4", img, "4M"])
        with Loop(img, os.path.join(d, "probe.mnt")) as lp:
            lp.shutdown()
    except OSError as e:
        return False, str(e).splitlines()[0]
    finally:
        if os.path.exists(img):
            os.unlink(img)
    return True, ""


def crash_once(img, name, cfg, seed, attempt, workdir):
    """Mount @img, run the workload, cut it: the run's record."""
    bs, blocks, feats, jblocks, opts, kind, nops, window = cfg
    rec, kill_at, delay = crashgen.draw("host/%s/%d/%d" % (name, seed,
                                                           attempt),
                                        cfg, attempt)
    mnt = os.path.join(workdir, "mnt")
    j = crashgen.journal_of(img)[0] if name.startswith("wrap") else None
    t0 = time.time()
    with Loop(img, mnt, opts) as lp:
        rec["mounted"] = True
        p = subprocess.Popen([sys.executable,
                              os.path.join(HERE, "workload.py"), mnt,
                              str(rec["wseed"]), kind, str(nops)],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, cwd="/",
                             start_new_session=True)
        try:
            # the workload may end before the small journals' wrap
            crashgen.watch(p, rec, kill_at, delay, lp.shutdown, "cut",
                           "workload ended before the cut", j,
                           timeout=RUN_TIMEOUT, wait_eof=True)
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            p.stdout.close()
    rec["secs"] = round(time.time() - t0, 2)
    return rec


def generate(outdir, name, seed):
    """crashgen.generate() with this host's crash_once(); the
    fast-commit configurations want live fast commits."""
    return crashgen.generate(
        outdir, name, seed, crash=crash_once,
        writer="Linux %s (loop mount, EXT4_IOC_SHUTDOWN NOLOGFLUSH)" %
        os.uname().release,
        want_fc="fast_commit" in crashgen.CONFIGS[name][2])


def main(argv):
    if argv[:1] == ["--can-mount"] and len(argv) == 2:
        ok, why = can_mount(argv[1])
        if not ok:
            print(why)
        return 0 if ok else 1
    if len(argv) < 2 or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 16
    return crashgen.generate_all(argv[0], argv[1:], generate)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
