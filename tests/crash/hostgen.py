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
import hashlib
import json
import os
import random
import select
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
WRAP_WAIT = crashgen.WRAP_WAIT


def log(msg):
    print(msg, flush=True)


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
    rnd = random.Random("host/%s/%d/%d" % (name, seed, attempt))
    wseed = rnd.getrandbits(31)
    kill_at = rnd.randint(*window)
    delay = rnd.randint(0, 250) / 1000.0
    rec = {"wseed": wseed, "kill_after": kill_at,
           "delay_ms": int(delay * 1000), "attempt": attempt}
    mnt = os.path.join(workdir, "mnt")
    want_wrap = name.startswith("wrap")
    j = crashgen.journal_of(img)[0] if want_wrap else None
    t0 = time.time()
    done, errors = 0, 0
    with Loop(img, mnt, opts) as lp:
        rec["mounted"] = True
        p = subprocess.Popen([sys.executable,
                              os.path.join(HERE, "workload.py"), mnt,
                              str(wseed), kind, str(nops)],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, cwd="/",
                             start_new_session=True)
        buf = b""
        armed = None
        eof = False
        try:
            while True:
                left = RUN_TIMEOUT - (time.time() - t0)
                if left <= 0:
                    rec["outcome"] = "timeout"
                    break
                if armed is not None and time.time() >= armed + delay:
                    if crashgen.log_wraps(j) or \
                            time.time() > armed + delay + WRAP_WAIT:
                        lp.shutdown()
                        rec["outcome"] = "cut"
                        rec["waited_for_wrap_ms"] = int(
                            (time.time() - armed - delay) * 1000)
                        break
                if eof:
                    time.sleep(0.02)    # the workload ended: wait for
                    continue            # the wrap, or WRAP_WAIT
                r, _, _ = select.select([p.stdout], [], [],
                                        min(left, 1.0 if armed is None
                                            else 0.02))
                if not r:
                    continue
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    if armed is not None:
                        eof = True
                        continue
                    rec["outcome"] = "workload ended before the cut"
                    break
                buf += chunk
                lines = buf.split(b"\n")
                buf = lines.pop()
                cut = False
                for line in lines:
                    if line.startswith(b"@@ error"):
                        errors += 1
                    elif line.startswith(b"@@ ") and line[3:].isdigit():
                        done = int(line[3:])
                        if done == kill_at and want_wrap:
                            armed = time.time()
                        elif done == kill_at:
                            time.sleep(delay)
                            lp.shutdown()
                            cut = True
                            break
                if cut:
                    rec["outcome"] = "cut"
                    break
        finally:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            p.stdout.close()
    rec["ops_seen"] = done
    rec["op_errors"] = errors
    rec["secs"] = round(time.time() - t0, 2)
    return rec


def generate(outdir, name, seed, attempts=6):
    cfg = crashgen.CONFIGS[name]
    base = "%s-%d" % (name, seed)
    img = os.path.join(outdir, base + ".img")
    workdir = os.path.join(outdir, base + ".run")
    os.makedirs(workdir, exist_ok=True)
    want_fc = "fast_commit" in cfg[2]
    tries = []
    best = None
    for attempt in range(attempts):
        crashgen.make_fs(img, cfg, seed)
        rec = crash_once(img, name, cfg, seed, attempt, workdir)
        tries.append(rec)
        rec["kept"] = False
        if rec["outcome"] != "cut":
            continue
        rec.update(crashgen.facts(img))
        if not (rec["needs_recovery"] and rec["committed"] > 0):
            continue
        if want_fc and not rec["fc_blocks"] and attempt + 1 < attempts:
            # a crash image, but no live fast commit: keep it aside in
            # case no attempt gives one
            if best is None:
                best = attempt
                os.replace(img, img + ".nofc")
            continue
        rec["kept"] = True
        break
    else:
        if best is not None:
            os.replace(img + ".nofc", img)
            tries[best]["kept"] = True
        else:
            if os.path.exists(img):
                os.unlink(img)
            log("GEN FAIL %s: no image with committed transactions in %d "
                "attempts" % (base, attempts))
            return None
    if os.path.exists(img + ".nofc"):
        os.unlink(img + ".nofc")
    kept = next(t for t in tries if t["kept"])
    meta = {"config": name, "seed": seed, "blocksize": cfg[0],
            "blocks": cfg[1], "features": cfg[2], "journal_blocks": cfg[3],
            "mount": cfg[4], "workload": cfg[5], "ops": cfg[6],
            "writer": "Linux %s (loop mount, EXT4_IOC_SHUTDOWN "
                      "NOLOGFLUSH)" % os.uname().release,
            "tries": tries}
    meta.update(kept)
    with open(os.path.join(outdir, base + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    with open(img, "rb") as f:
        meta["sha1"] = hashlib.sha1(f.read()).hexdigest()
    log("GEN %s: attempt %d, cut after op %d (+%d ms), %d committed, "
        "%d log blocks%s%s, %.1f s" % (
            base, meta["attempt"], meta["ops_seen"], meta["delay_ms"],
            meta["committed"], meta["log_blocks"],
            ", wraps" if meta["wraps"] else "",
            ", %d fast-commit blocks" % meta["fc_blocks"]
            if meta["fc_blocks"] else "",
            sum(t["secs"] for t in tries)))
    return meta


def main(argv):
    if argv[:1] == ["--can-mount"] and len(argv) == 2:
        ok, why = can_mount(argv[1])
        if not ok:
            print(why)
        return 0 if ok else 1
    if len(argv) < 2 or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 16
    outdir = argv[0]
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    for spec in argv[1:]:
        name, seed = spec.split(":")
        try:
            if generate(outdir, name, int(seed)) is None:
                bad += 1
        except OSError as e:
            log("GEN FAIL %s: %s" % (spec, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
