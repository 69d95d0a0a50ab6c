#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""crashgen.py: ext4 images whose journal Linux itself wrote, crashed.

Each image is made from a configuration name and a seed: mke2fs builds a
fresh filesystem, Debian's User-Mode Linux (/usr/bin/linux.uml, Linux
6.1) mounts it with the configuration's options and runs workload.py with
a workload seed drawn from the seed; crashgen counts the workload's "@@ N"
console lines and, after the operation the seed chose and a delay the seed
chose, kills the UML process group with SIGKILL.  An image is kept when
its superblock says needs_recovery and its journal holds at least one
committed transaction; otherwise the next attempt (seed, attempt 1, 2, ...)
is made.

Determinism: the filesystem (fixed UUID and clock for mke2fs), the
workload and the kill point (operation, delay) follow from the seed.  In
the small-journal configurations (wrap4k, wrap1k) the kill then waits, up
to WRAP_WAIT seconds, for the first moment at which the log on disk wraps
(crashgen reads the image file while Linux writes it), so that most of
their images hold a log that runs past the end of the journal.  What
Linux has written to the image by then depends on timing (jbd2's commit
thread, writeback), so two runs of one seed give images of the same kind,
not byte-identical ones; the checks (crashcheck.py) therefore look only at
what is in each image, never at expected contents.

Usage: crashgen.py [--uml BIN] [--keep-failed] OUTDIR CONFIG:SEED...
       crashgen.py --list
"""

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
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import jfmt  # noqa: E402

MKE2FS = os.environ.get("MKE2FS", "mke2fs")
UML = os.environ.get("UML", "/usr/bin/linux.uml")
BOOT_TIMEOUT = 120

# name: (blocksize, size in blocks, mke2fs -O, journal blocks,
#        mount options, workload kind, operations, kill window)
# The kill window is the range of operation numbers after which the kill
# may come.
CONFIGS = {
    "4k":     (4096, 8192, "64bit,metadata_csum", 2048,
               "commit=1", "mixed", 400, (20, 300)),
    "1k":     (1024, 32768, "64bit,metadata_csum", 4096,
               "commit=1", "mixed", 400, (20, 300)),
    "nocsum": (4096, 8192, "^metadata_csum,^64bit", 2048,
               "commit=1", "mixed", 400, (20, 300)),
    "v1":     (4096, 8192, "^metadata_csum,64bit", 2048,
               "commit=1,journal_checksum", "mixed", 400, (20, 300)),
    "v3":     (4096, 8192, "metadata_csum,^64bit", 2048,
               "commit=1,data=journal", "mixed", 400, (20, 300)),
    "async":  (4096, 8192, "64bit,metadata_csum", 2048,
               "commit=1,journal_async_commit,data=writeback", "mixed",
               400, (20, 300)),
    "wrap4k": (4096, 8192, "64bit,metadata_csum", 1024,
               "commit=1,data=journal", "heavy", 1500, (400, 1400)),
    "wrap1k": (1024, 32768, "^metadata_csum,^64bit", 1024,
               "commit=1,journal_checksum,data=journal", "heavy", 1500,
               (400, 1400)),
    "fc":     (4096, 8192, "64bit,metadata_csum,fast_commit", 2048,
               "commit=5", "fsync", 500, (30, 450)),
    # not in the corpus by default: issue 21 item 12's directory growth
    "fcdir":  (4096, 8192, "64bit,metadata_csum,fast_commit", 2048,
               "commit=30", "fcdir", 900, (200, 850)),
    # make check-crash-host's fast-commit mix (issue 33): every record
    "fcmix":  (4096, 8192, "64bit,metadata_csum,fast_commit", 2048,
               "commit=30", "fcmix", 400, (40, 380)),
    "fcmix1k": (1024, 32768, "64bit,metadata_csum,fast_commit", 4096,
                "commit=30", "fcmix", 400, (40, 380)),
}

# the configurations of the corpus (make check-crash): all but fcdir
# and the fast-commit mixes (make check-crash-host)
CORPUS = [n for n in CONFIGS if n not in ("fcdir", "fcmix", "fcmix1k")]

FS_UUID = "5eed0000-c4a5-4000-8000-00000000%04x"
FAKE_TIME = "1764000000"       # mke2fs' clock: 2025-11-24


def log(msg):
    print(msg, flush=True)


def kill_group(p):
    """SIGKILL UML's whole process group (it forks its helpers) and reap."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def sb_of(path):
    with open(path, "rb") as f:
        f.seek(1024)
        return f.read(1024)


def journal_of(img):
    """(Journal, blockmap) of the internal journal of @img."""
    bs = 1024 << struct.unpack("<I", sb_of(img)[24:28])[0]
    env = dict(os.environ, LC_ALL="C")
    # -c: a crashed filesystem's bitmaps may not match their checksums
    # until the journal is replayed, and debugfs would not open it
    bmap, _ = jfmt.journal_inode_blocks(os.environ.get("DEBUGFS", "debugfs"),
                                        img, env, opts=("-c",))
    return jfmt.Journal(img, bs, bmap), bmap


def facts(img):
    """What the crash left: needs_recovery, transactions, wrap, fast
    commits."""
    sb = sb_of(img)
    incompat = struct.unpack("<I", sb[0x60:0x64])[0]
    out = {"needs_recovery": bool(incompat & 0x4)}
    j, _ = journal_of(img)
    txns, end, used = j.walk()
    jsb = j.jsb
    out["start"] = jsb.start
    out["sequence"] = jsb.sequence
    out["committed"] = sum(1 for t in txns if t["committed"])
    out["tail_uncommitted"] = sum(1 for t in txns if not t["committed"])
    out["log_blocks"] = used
    out["wraps"] = bool(jsb.start) and end < jsb.start and used > 0
    out["revokes"] = sum(len(t["revokes"]) for t in txns if t["committed"])
    out["tags"] = sum(len(t["tags"]) for t in txns if t["committed"])
    out["features"] = "0x%x/0x%x" % (jsb.compat, jsb.incompat)
    out["fc_blocks"] = fc_blocks(j, txns) if \
        jsb.incompat & jfmt.INCOMPAT_FAST_COMMIT else 0
    return out


FC_HEAD, FC_TAIL, FC_PAD = 9, 8, 7


def fc_blocks(j, txns):
    """Fast-commit blocks that belong to the log: the fast-commit area
    (after the normal log and one unused block: Linux puts the first
    fast-commit block at j_last + 1) read from its start, tag by tag (le16 tag,
    le16 length, value), for as long as the tags parse; a block counts
    when a TAIL tag of the expected tid ends in it or before it."""
    jsb = j.jsb
    tid = (jsb.sequence + len([t for t in txns if t["committed"]])) \
        & 0xFFFFFFFF
    count = 0
    blk = jsb.last + 1
    seen = 0
    while blk < jsb.maxlen:
        data = j.read(blk)
        off = 0
        good = False
        while off + 4 <= len(data):
            tag, ln = struct.unpack("<HH", data[off:off + 4])
            if tag == 0 or tag > 9 or off + 4 + ln > len(data):
                break
            if tag == FC_HEAD and seen == 0:
                htid = struct.unpack("<I", data[off + 8:off + 12])[0]
                if htid != tid:
                    return 0
            if tag == FC_TAIL:
                ttid = struct.unpack("<I", data[off + 4:off + 8])[0]
                if ttid == tid:
                    good = True
            if tag in (FC_TAIL, FC_PAD):
                off = len(data)
                break
            off += 4 + ln
            seen += 1
        if not seen:
            break
        if good or off >= len(data):
            count += 1
        else:
            break
        blk += 1
    return count


FC_NAMES = {1: "ADD_RANGE", 2: "DEL_RANGE", 3: "CREAT", 4: "LINK",
            5: "UNLINK", 6: "INODE", 7: "PAD", 8: "TAIL", 9: "HEAD"}


def fc_tags(j):
    """The tags of the fast-commit area of journal @j, in order, as dicts
    (block, tag name, and per tag: tid; parent, ino, name; ino, size,
    i_blocks), until a block does not parse."""
    out = []
    for blk in range(j.jsb.last + 1, j.jsb.maxlen):
        data = j.read(blk)
        off, n = 0, 0
        while off + 4 <= len(data):
            tag, ln = struct.unpack("<HH", data[off:off + 4])
            if tag not in FC_NAMES or off + 4 + ln > len(data):
                break
            v = data[off + 4:off + 4 + ln]
            t = {"block": blk, "tag": FC_NAMES[tag]}
            if tag in (3, 4, 5):
                t["parent"], t["ino"] = struct.unpack("<II", v[:8])
                t["name"] = v[8:].decode("utf-8", "replace")
            elif tag == 6:
                t["ino"] = struct.unpack("<I", v[:4])[0]
                t["size"] = struct.unpack("<I", v[8:12])[0]
                t["i_blocks"] = struct.unpack("<I", v[32:36])[0]
            elif tag in (1, 2):
                t["ino"] = struct.unpack("<I", v[:4])[0]
            elif tag == 8:
                t["tid"] = struct.unpack("<I", v[:4])[0]
            elif tag == 9:
                t["tid"] = struct.unpack("<I", v[4:8])[0]
            out.append(t)
            n += 1
            if tag in (7, 8):
                break
            off += 4 + ln
        if not n:
            break
    return out


INIT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p {mnt}
if mount -t ext4 -o {opts} /dev/ubda {mnt}; then
	echo "@@ mounted"
	cd /
	{python} {workload} {mnt} {wseed} {kind} {nops}
	# the kill may still come (small journals wait for the log to wrap)
	sleep 30
else
	echo "@@ mount failed"
fi
echo "@@ halt"
poweroff -f
"""


WRAP_WAIT = 20


def log_wraps(j):
    """Whether the log on disk, walked from the journal superblock's
    s_start, wraps (a heuristic read of an image being written)."""
    try:
        j.jsb = jfmt.JSB(j.read(j.sb_block))
        txns, end, used = j.walk()
    except (IOError, IndexError, struct.error):
        return False
    return bool(j.jsb.start) and used > 0 and end < j.jsb.start and \
        any(t["committed"] for t in txns)


def make_fs(img, cfg, seed):
    bs, blocks, feats, jblocks = cfg[:4]
    if os.path.exists(img):
        os.unlink(img)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME=FAKE_TIME,
               MKE2FS_CONFIG=os.path.join(HERE, "..", "lib", "mke2fs.conf"))
    argv = [MKE2FS, "-q", "-F", "-t", "ext4", "-b", str(bs),
            "-O", feats, "-J", "size=%d" % (jblocks * bs // (1 << 20)),
            "-U", FS_UUID % seed, "-E",
            "lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0",
            img, str(blocks)]
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)


def draw(key, cfg, attempt):
    """The attempt's random choices, from @key ("CONFIG/SEED/ATTEMPT",
    hostgen's prefixed): the run's record (workload seed, the operation
    after which the cut comes, the delay), the operation and the delay
    in seconds."""
    rnd = random.Random(key)
    wseed = rnd.getrandbits(31)
    kill_at = rnd.randint(*cfg[7])
    delay = rnd.randint(0, 250) / 1000.0
    rec = {"wseed": wseed, "kill_after": kill_at,
           "delay_ms": int(delay * 1000), "attempt": attempt}
    return rec, kill_at, delay


def watch(p, rec, kill_at, delay, cut, word, eof_word, j=None,
          timeout=BOOT_TIMEOUT, logf=None, wait_eof=False):
    """Read the "@@ N" lines process @p prints (UML's console, or the
    workload's) and call cut() @delay seconds after operation @kill_at;
    with the journal @j (the small journals) at the first moment after
    that when the log on disk, read from its s_start, runs past the end
    of the journal, or WRAP_WAIT seconds later.  rec["outcome"] is @word
    then, "timeout", or @eof_word when @p ends first (with @wait_eof, an
    end after the operation still waits for the wrap).  Also sets
    ops_seen, op_errors, and mounted when "@@ mounted" is seen."""
    t0 = time.time()
    buf, done, errors, armed, eof = b"", 0, 0, None, False
    rec["outcome"] = None
    while rec["outcome"] is None:
        left = timeout - (time.time() - t0)
        if left <= 0:
            rec["outcome"] = "timeout"
            break
        if armed is not None and time.time() >= armed + delay:
            if log_wraps(j) or time.time() > armed + delay + WRAP_WAIT:
                cut()
                rec["outcome"] = word
                rec["waited_for_wrap_ms"] = int(
                    (time.time() - armed - delay) * 1000)
                break
        if eof:
            time.sleep(0.02)
            continue
        r, _, _ = select.select([p.stdout], [], [],
                                min(left, 1.0 if armed is None else 0.02))
        if not r:
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            eof = armed is not None and wait_eof
            if not eof:
                rec["outcome"] = eof_word
            continue
        if logf:
            logf.write(chunk)
        buf += chunk
        lines = buf.split(b"\n")
        buf = lines.pop()
        for line in lines:
            line = line.strip(b"\r")
            if line == b"@@ mounted":
                rec["mounted"] = True
            elif line.startswith(b"@@ error"):
                errors += 1
            elif line.startswith(b"@@ ") and line[3:].isdigit():
                done = int(line[3:])
                if done != kill_at:
                    continue
                if j is not None:
                    armed = time.time()
                    continue
                time.sleep(delay)
                cut()
                rec["outcome"] = word
                break
    rec["ops_seen"] = done
    rec["op_errors"] = errors


def crash_once(img, name, cfg, seed, attempt, workdir):
    """Boot UML on @img, kill it after the drawn operation: returns the
    run's record."""
    bs, blocks, feats, jblocks, opts, kind, nops, window = cfg
    rec, kill_at, delay = draw("%s/%d/%d" % (name, seed, attempt), cfg,
                               attempt)
    mnt = os.path.join(workdir, "mnt")
    init = os.path.join(workdir, "init.sh")
    with open(init, "w") as f:
        f.write(INIT.format(mnt=mnt, opts=opts, python=sys.executable,
                            workload=os.path.join(HERE, "workload.py"),
                            wseed=rec["wseed"], kind=kind, nops=nops))
    os.chmod(init, 0o755)
    argv = [UML, "mem=256M", "ubd0=" + img, "root=/dev/root",
            "rootfstype=hostfs", "rootflags=/", "rw", "init=" + init,
            "con=null", "con0=fd:0,fd:1"]
    rec["mounted"] = False
    # the small journals (wrap4k, wrap1k) wait for the log to wrap
    j = journal_of(img)[0] if name.startswith("wrap") else None
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, cwd=workdir)
    t0 = time.time()
    logf = open(os.path.join(workdir, "console.log"), "wb")
    try:
        watch(p, rec, kill_at, delay, lambda: os.killpg(p.pid,
                                                        signal.SIGKILL),
              "killed", "exited before the kill", j, logf=logf)
    finally:
        kill_group(p)
        logf.close()
    rec["secs"] = round(time.time() - t0, 2)
    return rec


def generate(outdir, name, seed, keep_failed=False, attempts=6,
             crash=None, writer=None, want_fc=False):
    """Make image @name-@seed in @outdir: attempts of @crash (UML's
    crash_once, or hostgen's) until one leaves needs_recovery and a
    committed transaction; with @want_fc also live fast commits, unless
    no attempt gives them (then the first crash image is kept).  Writes
    the image's .json, logs its GEN line, returns its record (None when
    no attempt made one)."""
    crash = crash or crash_once
    cfg = CONFIGS[name]
    base = "%s-%d" % (name, seed)
    img = os.path.join(outdir, base + ".img")
    workdir = os.path.join(outdir, base + ".run")
    os.makedirs(workdir, exist_ok=True)
    tries = []
    best = None
    for attempt in range(attempts):
        make_fs(img, cfg, seed)
        rec = crash(img, name, cfg, seed, attempt, workdir)
        tries.append(rec)
        rec["kept"] = False
        if rec["outcome"] not in ("killed", "cut"):
            continue
        rec.update(facts(img))
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
            if not keep_failed and os.path.exists(img):
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
            "tries": tries}
    if writer:
        meta["writer"] = writer
    meta.update(kept)
    with open(os.path.join(outdir, base + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    with open(img, "rb") as f:
        meta["sha1"] = hashlib.sha1(f.read()).hexdigest()
    log("GEN %s: attempt %d, %s after op %d (+%d ms), %d committed, "
        "%d log blocks%s%s, %.1f s" % (
            base, meta["attempt"], meta["outcome"], meta["ops_seen"],
            meta["delay_ms"], meta["committed"], meta["log_blocks"],
            ", wraps" if meta["wraps"] else "",
            ", %d fast-commit blocks" % meta["fc_blocks"]
            if meta["fc_blocks"] else "",
            sum(t["secs"] for t in tries)))
    return meta


def generate_all(outdir, specs, make):
    """make(outdir, name, seed) for each CONFIG:SEED of @specs, in
    order; 1 when any made no image (GEN FAIL), else 0."""
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    for spec in specs:
        name, seed = spec.split(":")
        try:
            if make(outdir, name, int(seed)) is None:
                bad += 1
        except OSError as e:
            log("GEN FAIL %s: %s" % (spec, e))
            bad += 1
    return 1 if bad else 0


def main(argv):
    keep = False
    global UML
    while argv and argv[0].startswith("--"):
        a = argv.pop(0)
        if a == "--list":
            for n, c in CONFIGS.items():
                print(n, c)
            return 0
        if a == "--uml":
            UML = argv.pop(0)
        elif a == "--keep-failed":
            keep = True
        else:
            print("crashgen: unknown option " + a, file=sys.stderr)
            return 16
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 16
    return generate_all(argv[0], argv[1:],
                        lambda o, n, i: generate(o, n, i, keep))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
