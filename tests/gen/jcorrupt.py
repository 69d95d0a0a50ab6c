#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jcorrupt.py: helpers of the corrupt-journal tests (tests/j_corrupt_*).

The journals are written by "e2journal write" and damaged by "e2journal
corrupt"; this file only looks at the results.

    jcorrupt.py summary FILE [--rc N]
        a replay/plan --json report, as a few stable lines
    jcorrupt.py content IMG BLOCK...
        what each block holds: its fill byte ("5000-5009:06"), or "~" and
        a short hash when the bytes differ
    jcorrupt.py cmp ORIG A B
        "same" when A and B agree outside ORIG's superblocks, group
        descriptors and journal (blocks inside the filesystem only), else
        the blocks that differ
    jcorrupt.py changed ORIG NEW [--allow LIST]
        blocks of NEW that differ from ORIG outside the superblocks, group
        descriptors and journal and are not in LIST
    jcorrupt.py diff --seed S --count N --work DIR
        the differential test (see run_diff)

Tools come from the environment: MKE2FS, DEBUGFS, DUMPE2FS, E2FSCK_ENGINE,
E2JOURNAL.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jfmt  # noqa: E402

ENV = dict(os.environ)
for _v in ("E2FSPROGS_FAKE_TIME", "SOURCE_DATE_EPOCH", "E2FSCK_TIME"):
    ENV.pop(_v, None)
ENV.update({"LC_ALL": "C", "TZ": "GMT0", "E2FSCK_CONFIG": "/dev/null",
            "BLKID_FILE": "/dev/null", "E2FSPROGS_SKIP_PROGRESS": "yes",
            "EXT2FS_NO_MTAB_OK": "yes"})
_conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib",
                     "mke2fs.conf")
ENV.setdefault("MKE2FS_CONFIG", os.path.abspath(_conf))

MKE2FS = ENV.get("MKE2FS") or "mke2fs"
DEBUGFS = ENV.get("DEBUGFS") or "debugfs"
DUMPE2FS = ENV.get("DUMPE2FS") or "dumpe2fs"
E2FSCK = ENV.get("E2FSCK_ENGINE") or "e2fsck"
E2JOURNAL = ENV.get("E2JOURNAL", "e2journal")

VERDICT_ORDER = ["replayed", "superseded", "revoked", "bad_csum",
                 "untrusted_desc", "out_of_range", "async_tail",
                 "not_replayed", "io_error", "user_skip"]
SKIP_VERDICTS = {"bad_csum", "untrusted_desc", "out_of_range", "async_tail",
                 "io_error"}


def log(msg):
    sys.stderr.write(msg.rstrip("\n") + "\n")


def result(status, name, why=""):
    sys.stdout.write("RESULT %s %s%s\n" % (status, name,
                                           (": " + why) if why else ""))
    sys.stdout.flush()


# ------------------------------------------------------------------ images

def fs_geometry(img):
    """(block size, block count) from the primary superblock."""
    with open(img, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    lo, log_bs = struct.unpack("<I", sb[4:8])[0], \
        struct.unpack("<I", sb[24:28])[0]
    incompat = struct.unpack("<I", sb[0x60:0x64])[0]
    hi = struct.unpack("<I", sb[0x150:0x154])[0] if incompat & 0x80 else 0
    return 1024 << log_bs, lo | hi << 32


class FsInfo:
    """Which blocks of an image the comparisons leave out: superblocks,
    group descriptors (with the reserved GDT blocks) and the internal
    journal with its mapping blocks."""

    def __init__(self, img):
        self.lay = jfmt.Layout(DUMPE2FS, img, ENV)
        self.bs = self.lay.bs
        self.blocks = self.lay.blocks
        self.jmap, self.jblocks = [], set()
        if "has_journal" in self.lay.features:
            try:
                self.jmap, self.jblocks = jfmt.journal_inode_blocks(
                    DEBUGFS, img, ENV)
            except RuntimeError:
                pass            # an external journal
        self.skip = self.lay.sb_gdt | self.jblocks


def read_image(path, bs, nblocks):
    with open(path, "rb") as f:
        data = f.read(bs * nblocks)
    if len(data) < bs * nblocks:
        data += bytes(bs * nblocks - len(data))
    return data


def differing(info, a, b, limit=None):
    """Blocks (not skipped) where images @a and @b (bytes) differ."""
    bs, n = info.bs, info.blocks
    out = []
    step = 256
    for first in range(0, n, step):
        lo, hi = first * bs, min(n, first + step) * bs
        if a[lo:hi] == b[lo:hi]:
            continue
        for blk in range(first, min(n, first + step)):
            if blk in info.skip:
                continue
            o = blk * bs
            if a[o:o + bs] != b[o:o + bs]:
                out.append(blk)
                if limit and len(out) >= limit:
                    return out
    return out


def ranges(nums):
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


def parse_list(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo, 0), int(hi, 0) + 1))
        else:
            out.append(int(part, 0))
    return out


def block_label(data):
    if data == bytes([data[0]]) * len(data):
        return "%02x" % data[0]
    return "~" + hashlib.sha256(data).hexdigest()[:8]


# ------------------------------------------------------------------ commands

def cmd_summary(path, rc):
    with open(path) as f:
        doc = json.load(f)
    lines = ["exit %s, corruption: %s" % (
        rc, ", ".join(doc["corrupt_reasons"]) or "none")]
    refused = str(rc) == "4"
    for t in doc["transactions"]:
        s = "txn %d: %s" % (t["tid"], t["status"])
        # Refused: the decision says nothing about what was written.
        if not refused:
            s += ", replayed" if t["replayed"] else ", not replayed"
        if not refused and t["replayed"] != t["revokes_honoured"]:
            s += ", revokes %s" % ("honoured" if t["revokes_honoured"]
                                   else "ignored")
        if t["bad_descriptor_blocks"]:
            s += ", %d bad descriptor" % t["bad_descriptor_blocks"]
        if t["bad_revoke_blocks"]:
            s += ", %d bad revoke" % t["bad_revoke_blocks"]
        lines.append(s)
    counts = doc["counts"]
    lines.append("blocks: " + (", ".join(
        "%s %d" % (v, counts[v]) for v in VERDICT_ORDER
        if counts.get(v)) or "none"))
    skips = ["  txn %d fs block %d: %s" % (b["tid"], b["fs_block"],
                                           b["verdict"])
             for b in doc["blocks"] if b["verdict"] in SKIP_VERDICTS]
    # Garbage tags of an untrusted descriptor: one line for a run.
    i = 0
    while i < len(skips):
        j = i
        while j + 1 < len(skips) and skips[j + 1] == skips[i]:
            j += 1
        lines.append(skips[i] + (" (%d times)" % (j - i + 1)
                                 if j > i else ""))
        i = j + 1
    print("\n".join(lines))


def cmd_content(img, blocks):
    bs, _ = fs_geometry(img)
    labels = []
    with open(img, "rb") as f:
        for b in blocks:
            f.seek(b * bs)
            labels.append((b, block_label(f.read(bs))))
    out = []
    i = 0
    while i < len(labels):
        j = i
        while j + 1 < len(labels) and labels[j + 1][0] == labels[j][0] + 1 \
                and labels[j + 1][1] == labels[i][1]:
            j += 1
        name = str(labels[i][0]) if i == j else "%d-%d" % (labels[i][0],
                                                           labels[j][0])
        out.append("%s:%s" % (name, labels[i][1]))
        i = j + 1
    print(" ".join(out))


def cmd_cmp(orig, a, b):
    info = FsInfo(orig)
    da = read_image(a, info.bs, info.blocks)
    db = read_image(b, info.bs, info.blocks)
    d = differing(info, da, db)
    print("same" if not d else "differ at %d blocks: %s" % (len(d),
                                                             ranges(d)))
    return 0 if not d else 1


def cmd_changed(orig, new, allow):
    info = FsInfo(orig)
    d = differing(info, read_image(orig, info.bs, info.blocks),
                  read_image(new, info.bs, info.blocks))
    bad = [x for x in d if x not in allow]
    if os.path.getsize(new) != os.path.getsize(orig):
        print("image size changed: %d -> %d" % (os.path.getsize(orig),
                                                os.path.getsize(new)))
        return 1
    print("changed: %s" % (ranges(d) or "none"))
    if bad:
        print("not allowed: %s" % ranges(bad))
        return 1
    return 0


# ------------------------------------------------------------------ diff

def run(cmd):
    return jfmt.run(cmd, ENV)


def copy(src, dst):
    shutil.copyfile(src, dst)


def parse_layout(path):
    """The sidecar of e2journal write: txns with their data blocks."""
    lay = {"txns": []}
    cur = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "log":
                lay["first"], lay["last"] = int(w[1]), int(w[2])
            elif w[0] == "txn":
                cur = {"tid": int(w[1]), "commit": w[2] == "commit",
                       "data": [], "descr": [], "jblocks": []}
                lay["txns"].append(cur)
            elif cur is not None and w[0] in ("data", "descriptor",
                                               "revoke", "commit"):
                cur["jblocks"].append(int(w[2]))
                if w[0] == "data":
                    kv = dict(zip(w[3::2], w[4::2]))
                    cur["data"].append({"jblock": int(w[2]),
                                        "fs": int(kv["fs"]),
                                        "desc": int(kv["desc"]),
                                        "flags": int(kv["flags"], 0)})
                elif w[0] == "descriptor":
                    cur["descr"].append(int(w[2]))
    return lay


def model_final(txns, lay, excluded, skipped):
    """fs block -> (txn index, data index) of the version replay leaves,
    for the policy that replays every transaction not in @excluded,
    honours their revoke records and writes no (txn, data) in
    @skipped."""
    final = {}
    for t, txn in enumerate(txns):
        if t in excluded:
            continue
        tid = lay["txns"][t]["tid"]
        for i, b in enumerate(txn["blocks"]):
            if (t, i) in skipped:
                continue
            revoked = any(b in txns[u]["revokes"] and
                          jfmt.tid_le(tid, lay["txns"][u]["tid"])
                          for u in range(len(txns)) if u not in excluded)
            if not revoked:
                final[b] = (t, i)
    return final


class Case:
    """One random journal and one random corruption."""

    KINDS = ["commit-csum", "data", "commit-header", "descr-csum",
             "revoke-csum", "torn-commit", "tag-out-of-range", "descr-tag",
             "revoke-rcount", "jsb-csum"]
    V23_ONLY = {"descr-csum", "descr-tag", "revoke-csum", "torn-commit",
                "jsb-csum"}

    def __init__(self, seed, index, work, bases):
        self.rnd = rnd = random.Random("%s/%d" % (seed, index))
        self.seed, self.index, self.work = seed, index, work
        self.kind = self.KINDS[index % len(self.KINDS)] \
            if index < 3 * len(self.KINDS) else rnd.choice(self.KINDS)
        if self.kind in self.V23_ONLY:
            self.csum = rnd.choice(["v2", "v3"])
        else:
            self.csum = rnd.choice(["none", "v1", "v2", "v3"])
        self.bs = rnd.choice([1024, 4096])
        self.b64 = rnd.random() < 0.5
        self.mcsum = self.csum in ("v2", "v3") or rnd.random() < 0.3
        self.async_ = self.csum != "none" and rnd.random() < 0.35
        self.bases = bases

    def base(self):
        key = (self.bs, self.b64, self.mcsum)
        if key not in self.bases:
            path = os.path.join(self.work, "base-%d-%d-%d" % key)
            blocks = 4096 if self.bs == 1024 else 3072
            feats = ["64bit" if self.b64 else "^64bit",
                     "metadata_csum" if self.mcsum else "^metadata_csum"]
            with open(path, "wb") as f:
                f.truncate(blocks * self.bs)
            rc, out, err = run([MKE2FS, "-F", "-q", "-o", "Linux", "-b",
                                str(self.bs), "-T", "ext4", "-U",
                                "6b1d5c3e-2f4a-4b7c-9d8e-0123456789%02x"
                                % len(self.bases),
                                "-E", "lazy_itable_init=1", "-O",
                                ",".join(feats), "-J",
                                "size=1" if self.bs == 1024 else "size=4",
                                path, str(blocks)])
            if rc:
                raise RuntimeError("mke2fs: " + err)
            info = FsInfo(path)
            data = read_image(path, info.bs, info.blocks)
            self.bases[key] = (path, info, data)
        return self.bases[key]

    def recipe(self, info):
        rnd = self.rnd
        free = [b for b in info.lay.free if b not in info.skip][:3000]
        pool = rnd.sample(free, 120)
        ntx = rnd.randint(2, 8)
        txns, logged = [], []
        for t in range(ntx):
            n = rnd.randint(0 if t else 1, 12)
            blocks = []
            if logged and n and rnd.random() < 0.6:
                again = sorted(set(logged))
                blocks = rnd.sample(again, rnd.randint(1, min(len(again),
                                                               max(1, n // 2))))
            for b in rnd.sample(pool, n):
                if len(blocks) >= n:
                    break
                if b not in blocks:
                    blocks.append(b)
            revokes = []
            if rnd.random() < 0.35:
                cand = sorted(set(logged + blocks)) or pool
                revokes = rnd.sample(cand, rnd.randint(1, min(4, len(cand))))
            if not blocks and not revokes:
                blocks = [rnd.choice(pool)]
            srcs = [rnd.choice(["random:%d" % rnd.getrandbits(16)] * 5 +
                               ["magic:%d" % rnd.randint(0, 255)])
                    for _ in blocks]
            txns.append({"blocks": blocks, "revokes": revokes,
                         "srcs": srcs, "commit": True})
            logged += blocks
        if self.kind in ("revoke-csum", "revoke-rcount") and \
                not any(t["revokes"] for t in txns):
            t = rnd.randrange(ntx)
            txns[t]["revokes"] = rnd.sample(pool, rnd.randint(1, 3))
        if rnd.random() < 0.15:
            txns[-1]["commit"] = False
        self.txns = txns

    def write_args(self, info):
        rnd = self.rnd
        args = ["--csum", self.csum, "--64bit" if self.b64 else "--32bit"]
        if self.async_:
            args.append("--async-commit")
        self.max_tags = rnd.choice([0, 0, 0, rnd.randint(2, 5)])
        if self.max_tags:
            args += ["--max-tags", str(self.max_tags)]
        if rnd.random() < 0.15:
            self.first_tid = 0xFFFFFFFF - rnd.randint(0, 3)
        else:
            self.first_tid = rnd.randint(1, 5000)
        args += ["--first-tid", str(self.first_tid)]
        # Where the log starts: sometimes so that it wraps.
        jmaxlen = len(info.jmap)
        used = self.log_cost(info)
        if rnd.random() < 0.3 and used > 2:
            args += ["--start-block",
                     str(jmaxlen - rnd.randint(1, used - 1))]
        for t in self.txns:
            items = []
            for b, s in zip(t["blocks"], t["srcs"]):
                items.append("blocks=%d:%s" % (b, s))
            if t["revokes"]:
                items.append("revoke=" + ",".join(map(str, t["revokes"])))
            if not t["commit"]:
                items.append("nocommit")
            args += ["--txn", ";".join(items)]
        return args

    def log_cost(self, info):
        bs = self.bs
        if self.csum == "v3":
            tb = 16
        else:
            tb = (12 if self.b64 else 8) + (2 if self.csum == "v2" else 0)
        tail = 4 if self.csum in ("v2", "v3") else 0
        fit = 1 + (bs - 12 - tail - tb - 16) // tb
        per = min(fit, self.max_tags) if self.max_tags else fit
        rec = (bs - 16 - tail) // (8 if self.b64 else 4)
        n = 0
        for t in self.txns:
            n += -(-len(t["blocks"]) // per) + len(t["blocks"])
            n += -(-len(t["revokes"]) // rec) + (1 if t["commit"] else 0)
        return n

    def choose_corruption(self, lay, info):
        """The e2journal corrupt arguments and what replay-all must then
        leave out: (args, excluded txns, skipped (txn, data), flips)."""
        rnd, kind, txns = self.rnd, self.kind, self.txns
        ltx = lay["txns"]
        committed = [t for t in range(len(txns)) if txns[t]["commit"]]
        last_committed = committed[-1] if committed else None
        excluded = {t for t in range(len(txns)) if not txns[t]["commit"]}
        skipped, flips = set(), {}
        async_tail_ok = self.csum != "none" and self.async_
        args = [kind]
        self.stop_compare_fs_only = False
        # replay-all's exit where POLICY.md fixes it (None: not checked)
        self.expect_all_rc = None
        if kind in ("commit-csum", "commit-header", "torn-commit"):
            t = rnd.choice(committed)
            args += ["--tid", str(ltx[t]["tid"])]
            if kind == "commit-csum":
                args += ["--byte", str(rnd.randint(0, 3)),
                         "--value", str(rnd.randint(1, 255))]
                if async_tail_ok and t == last_committed:
                    excluded.add(t)
            elif kind == "commit-header":
                args += ["--index", str(rnd.randint(0, 2)),
                         "--byte", str(rnd.randint(0, 3))]
                # Garbled: a transaction after it makes it mid-log.
                if t == len(txns) - 1:
                    excluded.add(t)
            else:
                args += ["--byte", str(rnd.randint(60, self.bs - 1)),
                         "--value", str(rnd.getrandbits(16))]
                # Torn only as the last commit without async_commit;
                # the last async one is skipped; mid-log it failed.
                if t != last_committed:
                    self.expect_all_rc = 1
                else:
                    self.expect_all_rc = 0
                    if async_tail_ok:
                        excluded.add(t)
        elif kind in ("data", "tag-out-of-range"):
            cand = [(t, i) for t in range(len(txns))
                    for i in range(len(txns[t]["blocks"]))]
            t, i = rnd.choice(cand)
            args += ["--tid", str(ltx[t]["tid"]), "--index", str(i)]
            if kind == "data":
                byte, mask = rnd.randrange(self.bs), rnd.randint(1, 255)
                args += ["--byte", str(byte), "--value", str(mask)]
                if self.csum in ("v2", "v3"):
                    skipped.add((t, i))
                else:
                    flips[(t, i)] = (byte, mask)
                    if self.csum == "v1" and async_tail_ok and \
                            t == last_committed:
                        excluded.add(t)
            else:
                used = {j for x in ltx for j in x["jblocks"]}
                spare = [j for j in range(1, len(info.jmap))
                         if j not in used]
                if rnd.random() < 0.3 and spare:
                    value = info.jmap[spare[-1]]
                else:
                    value = info.blocks + rnd.randint(0, 64)
                    self.stop_compare_fs_only = True
                args += ["--value", str(value)]
                skipped.add((t, i))
        elif kind in ("descr-csum", "descr-tag"):
            cand = [(t, d) for t in range(len(txns))
                    for d in range(len(ltx[t]["descr"]))]
            t, d = rnd.choice(cand)
            args += ["--tid", str(ltx[t]["tid"]), "--index", str(d)]
            djb = ltx[t]["descr"][d]
            ntags = sum(1 for x in ltx[t]["data"] if x["desc"] == djb)
            if kind == "descr-csum":
                args += ["--byte", str(rnd.randint(0, 3))]
            else:
                tb = 16 if self.csum == "v3" else \
                    (14 if self.b64 else 10)
                args += ["--byte", str(rnd.randrange(ntags * tb + 16)),
                         "--value", str(rnd.randint(1, 255))]
            for i, x in enumerate(ltx[t]["data"]):
                if x["desc"] == djb:
                    skipped.add((t, i))
        elif kind in ("revoke-csum", "revoke-rcount"):
            t = rnd.choice([t for t in range(len(txns))
                            if txns[t]["revokes"]])
            args += ["--tid", str(ltx[t]["tid"])]
            if kind == "revoke-csum":
                args += ["--byte", str(rnd.randint(0, 3))]
        elif kind == "jsb-csum":
            args += ["--byte", str(rnd.randint(0, 3))]
        return args, excluded, skipped, flips

    def describe(self):
        return "%s %dk %s%s" % (self.csum, self.bs // 1024,
                                "64bit" if self.b64 else "32bit",
                                " async" if self.async_ else "")


def version_content(jimg, info, lay, t, i, flips):
    """What replay writes for data block @i of txn @t of the healthy
    journal in @jimg (bytes), with an undetectable flip applied."""
    x = lay["txns"][t]["data"][i]
    phys = info.jmap[x["jblock"]]
    data = bytearray(jimg[phys * info.bs:(phys + 1) * info.bs])
    if (t, i) in flips:
        byte, mask = flips[(t, i)]
        data[byte] ^= mask
    if x["flags"] & jfmt.F_ESCAPE:
        data[0:4] = struct.pack(">I", jfmt.MAGIC)
    return bytes(data)


def run_case(case, stats):
    """Returns a list of failure messages (empty: the case agrees)."""
    work = case.work
    path, info, base = case.base()
    case.recipe(info)
    wargs = case.write_args(info)
    U = os.path.join(work, "u.img")
    C = os.path.join(work, "c.img")
    copy(path, U)
    rc, out, err = run([E2JOURNAL, "write", U] + wargs)
    recipe = "e2journal write IMG " + " ".join(
        "'%s'" % a if ";" in a or ":" in a else a for a in wargs)
    if rc:
        return ["write failed (%d): %s; %s" % (rc, err.strip(), recipe)]
    lay = parse_layout(U + ".layout")
    copy(U, C)
    copy(U + ".layout", C + ".layout")
    cargs, excluded, skipped, flips = case.choose_corruption(lay, info)
    rc, out, err = run([E2JOURNAL, "corrupt", C] + cargs)
    recipe += "; e2journal corrupt IMG " + " ".join(cargs)
    if rc:
        return ["corrupt failed (%d): %s; %s" % (rc, err.strip(), recipe)]
    where = "seed %s case %d (%s): %s" % (case.seed, case.index,
                                          case.describe(), recipe)
    fails = []

    # e2fsprogs on the healthy and on the damaged journal
    refs = {}
    for name, src in (("ref_u", U), ("ref_c", C)):
        dst = os.path.join(work, name)
        copy(src, dst)
        rc, out, err = run([E2FSCK, "-y", "-E", "journal_only", dst])
        refs[name] = (rc, read_image(dst, info.bs, info.blocks))
    # ours under each policy, and plan
    ours = {}
    csha = hashlib.sha256(open(C, "rb").read()).hexdigest()
    rc, out, err = run([E2JOURNAL, "plan", C, "--json"])
    plan_rc = rc
    if hashlib.sha256(open(C, "rb").read()).hexdigest() != csha:
        fails.append("plan changed the image; " + where)
    for pol in ("healthy", "stop", "replay-all", "refuse"):
        dst = os.path.join(work, pol)
        copy(U if pol == "healthy" else C, dst)
        rc, out, err = run([E2JOURNAL, "replay", "--policy",
                            "replay-all" if pol == "healthy" else pol, dst])
        raw = open(dst, "rb").read()
        ours[pol] = (rc, read_image(dst, info.bs, info.blocks),
                     hashlib.sha256(raw).hexdigest())

    # 1. the healthy journal: our model of it is what e2fsprogs wrote
    healthy = model_final(case.txns, lay,
                          {t for t in range(len(case.txns))
                           if not case.txns[t]["commit"]}, set())
    Ubytes = open(U, "rb").read()
    ref_u = refs["ref_u"][1]
    bad = []
    for b in {b for t in case.txns for b in t["blocks"]}:
        want = version_content(Ubytes, info, lay, *healthy[b], {}) \
            if b in healthy else base[b * info.bs:(b + 1) * info.bs]
        if ref_u[b * info.bs:(b + 1) * info.bs] != want:
            bad.append(b)
    d = differing(info, ref_u, bytes(base), limit=0)
    stray = [x for x in d if x not in {b for t in case.txns
                                       for b in t["blocks"]}]
    ours_u = differing(info, ours["healthy"][1], ref_u)
    if bad or stray:
        fails.append("e2fsprogs replays the healthy journal differently "
                     "from the model at blocks %s; %s" %
                     (ranges(bad + stray), where))
    elif ours_u or ours["healthy"][0] != 0:
        fails.append("our replay of the healthy journal (exit %d) differs "
                     "from e2fsprogs' at blocks %s; %s" %
                     (ours["healthy"][0], ranges(ours_u), where))
    else:
        stats["healthy"] += 1

    # 2. stop == e2fsprogs 1.47 on the damaged journal
    d = differing(info, ours["stop"][1], refs["ref_c"][1])
    if d:
        fails.append("stop differs from e2fsprogs at blocks %s "
                     "(exit %d, e2fsck %d); %s" %
                     (ranges(d), ours["stop"][0], refs["ref_c"][0], where))
    else:
        stats["stop"] += 1
    stats["exits"].setdefault("%s: stop %d e2fsck %d" % (
        case.kind, ours["stop"][0], refs["ref_c"][0]), 0)
    stats["exits"]["%s: stop %d e2fsck %d" % (
        case.kind, ours["stop"][0], refs["ref_c"][0])] += 1

    # 3. replay-all == the healthy replay minus what POLICY.md skips
    final = model_final(case.txns, lay, excluded, skipped)
    expect = bytearray(ref_u)
    for b in {b for t in case.txns for b in t["blocks"]}:
        o = b * info.bs
        if b in final:
            expect[o:o + info.bs] = version_content(Ubytes, info, lay,
                                                    *final[b], flips)
        else:
            expect[o:o + info.bs] = base[o:o + info.bs]
    d = differing(info, ours["replay-all"][1], bytes(expect))
    if d:
        fails.append("replay-all differs from the healthy replay minus "
                     "skipped blocks at %s (exit %d); %s" %
                     (ranges(d), ours["replay-all"][0], where))
    else:
        stats["all"] += 1

    # 4. refuse: replays nothing when replay-all flags, else the same
    all_rc = ours["replay-all"][0]
    if case.expect_all_rc is not None and all_rc != case.expect_all_rc:
        fails.append("replay-all exits %d, POLICY.md wants %d; %s" %
                     (all_rc, case.expect_all_rc, where))
    if all_rc == 1:
        if ours["refuse"][0] != 4 or ours["refuse"][2] != csha:
            fails.append("refuse: exit %d and the image %s, replay-all "
                         "flagged; %s" % (ours["refuse"][0],
                                          "unchanged" if ours["refuse"][2]
                                          == csha else "changed", where))
    elif ours["refuse"][0] != all_rc or \
            differing(info, ours["refuse"][1], ours["replay-all"][1]):
        fails.append("refuse (exit %d) differs from replay-all (exit %d) "
                     "on a journal replay-all does not flag; %s" %
                     (ours["refuse"][0], all_rc, where))
    if plan_rc != all_rc:
        fails.append("plan exits %d, replay %d; %s" % (plan_rc, all_rc,
                                                         where))
    if not fails:
        stats["agree"] += 1
    log("case %d %-17s %-18s exit stop %d/e2fsck %d, replay-all %d, "
        "refuse %d: %s" % (case.index, case.kind, case.describe(),
                           ours["stop"][0], refs["ref_c"][0], all_rc,
                           ours["refuse"][0], "ok" if not fails else
                           "MISMATCH"))
    return fails


def run_diff(seed, count, name, work):
    """Random healthy journals, one random corruption each.  Under stop
    the image must equal e2fsprogs' replay of the same damaged journal;
    under replay-all it must equal e2fsprogs' replay of the healthy
    journal with only the blocks POLICY.md skips left out (worked out from
    the writer's layout); refuse replays nothing whenever replay-all flags
    something; plan exits as replay does and writes nothing.  The healthy
    journal itself must replay the same under e2fsprogs and ours, and as
    the recipe says."""
    rc, out, err = run([E2FSCK, "-V"])
    m = re.search(r"e2fsck (\d+\.\d+)", out + err)
    if not m or m.group(1) != "1.47":
        result("SKIP", name, "(%s is not e2fsprogs 1.47: %s)" %
               (E2FSCK, (out + err).strip()[:60]))
        return
    os.makedirs(work, exist_ok=True)
    bases = {}
    stats = {"healthy": 0, "stop": 0, "all": 0, "agree": 0, "exits": {}}
    kinds = {}
    fails = []
    t0 = time.time()
    for i in range(count):
        case = Case(seed, i, work, bases)
        kinds[case.kind] = kinds.get(case.kind, 0) + 1
        try:
            f = run_case(case, stats)
        except (RuntimeError, IOError, KeyError, IndexError,
                ValueError) as e:
            f = ["seed %s case %d: %s: %s" % (seed, i, type(e).__name__, e)]
        for x in f:
            log("FAIL " + x)
        fails += f
    log("kinds: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    log("exit codes (ours under stop / e2fsck -E journal_only):")
    for k, v in sorted(stats["exits"].items()):
        log("  %-40s %d" % (k, v))
    summary = ("%d cases in %.0fs; healthy journal: ours == e2fsprogs == "
               "model %d/%d, stop "
               "== e2fsprogs %d/%d, replay-all == model %d/%d; all checks "
               "%d/%d" % (count, time.time() - t0, stats["healthy"], count,
                          stats["stop"], count, stats["all"], count,
                          stats["agree"], count))
    log(summary)
    if fails:
        result("FAIL", name, "%d problems: %s" % (len(fails), fails[0]))
    else:
        result("PASS", name, summary)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("summary")
    p.add_argument("file")
    p.add_argument("--rc", default="?")
    p = sub.add_parser("content")
    p.add_argument("img")
    p.add_argument("blocks", nargs="+")
    p = sub.add_parser("cmp")
    p.add_argument("orig")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("changed")
    p.add_argument("orig")
    p.add_argument("new")
    p.add_argument("--allow", default="")
    p = sub.add_parser("diff")
    p.add_argument("--seed", default="1")
    p.add_argument("--count", type=int, default=60)
    p.add_argument("--name", default="j_corrupt_diff")
    p.add_argument("--work", required=True)
    a = ap.parse_args()
    if a.cmd == "summary":
        cmd_summary(a.file, a.rc)
    elif a.cmd == "content":
        cmd_content(a.img, [b for x in a.blocks for b in parse_list(x)])
    elif a.cmd == "cmp":
        sys.exit(cmd_cmp(a.orig, a.a, a.b))
    elif a.cmd == "changed":
        sys.exit(cmd_changed(a.orig, a.new, set(parse_list(a.allow))))
    else:
        run_diff(a.seed, a.count, a.name, a.work)


if __name__ == "__main__":
    main()
