#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jgen.py: journal test images from recipes, and the checks run on them.

An image recipe ("spec") is a few lines of text:

    fs BS BLOCKS FEATURES       mke2fs -b BS -O FEATURES -T ext4 IMG BLOCKS
    journal internal SIZE       internal journal of SIZE blocks
    journal external SIZE [nousers]
                                journal device of SIZE blocks, attached as
                                e2fsprogs' tests do (debugfs feature/ssv); its
                                s_users lists the filesystem unless nousers
    csum none|v1|v2|v3          how the first "jo" is given: v1 = jo -c on a
                                filesystem without metadata_csum, v3 = jo -c
                                with it, v2 = jo -c -v 2
    open                        start a debugfs jo ... jc group
    txn [log=REFS] [data=KINDS] [revoke=REFS] [nocommit]
                                one "jw": log these blocks (their content
                                from a generated file) and/or revoke these
    wrap K                      move the finished log so that it starts K
                                blocks before the end of the journal
    sequence N                  the journal superblock's s_sequence before
                                the first "jo" (the first tid; tids wrap
                                past 0xffffffff when N is near it)
    assert REF pre|txn N        what replay must leave in REF: its content
                                before replay, or what transaction N (1 =
                                the first txn line) logged
    seed S                      content seed (default 0)
    v1fix on|off                on (default): re-sign v1 commit blocks
                                the way Linux does (see Build.fix_v1)
    oracle on|off               off: do not hold the replays to the
                                recipe's model, only to each other
    replay_args ARGS...         extra arguments of e2journal replay
    replay_exit N|any           e2journal's exit status (default 0)

REFS are comma-separated: F<i> is the i-th free block of the new
filesystem, F<i>-F<j> a range of them, a plain number a block number,
"bitmaps" every block and inode bitmap block.  KINDS is a comma-separated
list used in turn for the logged blocks: random, zero, magic (the journal
magic in the first 4 bytes, then random), magiczero.

Commands:
    jgen.py run --spec FILE --name NAME --work DIR
    jgen.py random --seed S --count N --name NAME --work DIR [--only I]
    jgen.py fuzz --seed S --count N --name NAME --work DIR
                 [--target dump|replay] [--valgrind "valgrind ..."]
    jgen.py build --spec FILE --work DIR      (just make the image)

Results are lines "RESULT PASS|FAIL|SKIP name[: why]" on stdout; details go
to stderr.  Tools come from the environment: MKE2FS, DEBUGFS, DUMPE2FS,
E2FSCK_ENGINE, E2JOURNAL; EJ_HAVE_DUMP / EJ_HAVE_REPLAY = 1 when e2journal
can dump / replay (the runner finds out).
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
E2JOURNAL = ENV.get("E2JOURNAL", "")
HAVE_DUMP = ENV.get("EJ_HAVE_DUMP") == "1"
HAVE_REPLAY = ENV.get("EJ_HAVE_REPLAY") == "1"
# -f would make e2fsck ignore journal_only and run passes 1-5 (its
# check_if_skip() returns early for a forced check), which may rewrite
# metadata: replay only, so that the two replays are compared alone.
E2FSCK_ARGS = ENV.get("EJ_E2FSCK_ARGS", "-y -E journal_only").split()

EXT_UUID_BASE = "1db3f677-6832-4adb-bafc-"
RECOVER = 0x4


def log(msg):
    sys.stderr.write(msg.rstrip("\n") + "\n")


def result(status, name, why=""):
    sys.stdout.write("RESULT %s %s%s\n" % (status, name,
                                           (": " + why) if why else ""))
    sys.stdout.flush()


class SpecError(Exception):
    pass


# ------------------------------------------------------------------ specs

class Spec:
    def __init__(self, text):
        self.text = text
        self.bs = self.blocks = None
        self.features = ""
        self.jkind, self.jsize, self.nousers = "internal", 1024, False
        self.csum = "none"
        self.groups = []        # list of lists of txn dicts
        self.wrap = 0
        self.sequence = None
        self.asserts = []
        self.seed = "0"
        self.v1fix = "on"
        self.oracle = "on"
        self.replay_args = []
        self.replay_exit = "0"
        for n, line in enumerate(text.splitlines(), 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            try:
                self._line(words)
            except (ValueError, IndexError) as e:
                raise SpecError("line %d: %s: %s" % (n, line.strip(), e))
        if not self.bs:
            raise SpecError("no fs line")
        txns = self.txns()
        for t in txns[:-1]:
            if t["nocommit"]:
                raise SpecError("only the last txn may be nocommit")
        if self.csum == "v1" and "metadata_csum" in self.fs_features():
            raise SpecError("csum v1 needs a filesystem without "
                            "metadata_csum")
        if self.csum in ("v2", "v3") and \
                "metadata_csum" not in self.fs_features():
            raise SpecError("csum %s needs metadata_csum" % self.csum)

    def _line(self, w):
        if w[0] == "fs":
            self.bs, self.blocks, self.features = int(w[1]), int(w[2]), w[3]
        elif w[0] == "journal":
            self.jkind, self.jsize = w[1], int(w[2])
            self.nousers = "nousers" in w[3:]
            if self.jkind not in ("internal", "external"):
                raise ValueError("journal internal|external")
        elif w[0] == "csum":
            if w[1] not in ("none", "v1", "v2", "v3"):
                raise ValueError("csum none|v1|v2|v3")
            self.csum = w[1]
        elif w[0] == "open":
            self.groups.append([])
        elif w[0] == "txn":
            t = {"log": "", "data": "random", "revoke": "", "nocommit": False}
            for a in w[1:]:
                if a == "nocommit":
                    t["nocommit"] = True
                elif "=" in a and a.split("=", 1)[0] in t:
                    k, v = a.split("=", 1)
                    t[k] = v
                else:
                    raise ValueError("unknown txn word %r" % a)
            if not self.groups:
                self.groups.append([])
            self.groups[-1].append(t)
        elif w[0] == "wrap":
            self.wrap = int(w[1])
        elif w[0] == "sequence":
            self.sequence = int(w[1], 0) & 0xFFFFFFFF
        elif w[0] == "assert":
            self.asserts.append((w[1], w[2], int(w[3]) if w[2] == "txn"
                                 else 0))
        elif w[0] == "seed":
            self.seed = w[1]
        elif w[0] in ("v1fix", "oracle"):
            if w[1] not in ("on", "off"):
                raise ValueError("on|off")
            setattr(self, w[0], w[1])
        elif w[0] == "replay_args":
            self.replay_args = w[1:]
        elif w[0] == "replay_exit":
            self.replay_exit = w[1]
        else:
            raise ValueError("unknown directive")

    def txns(self):
        return [t for g in self.groups for t in g]

    def fs_features(self):
        on = set()
        for f in self.features.split(","):
            if f.startswith("^"):
                on.discard(f[1:])
            elif f:
                on.add(f)
        return on


def resolve(refs, layout):
    out = []
    for item in refs.split(","):
        item = item.strip()
        if not item:
            continue
        if item == "bitmaps":
            out.extend(layout.bitmaps)
            continue
        m = re.match(r"^F(\d+)(?:-F(\d+))?$", item)
        if m:
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) else lo
            if hi >= len(layout.free):
                raise SpecError("%s: only %d free blocks" %
                                (item, len(layout.free)))
            out.extend(layout.free[lo:hi + 1])
            continue
        if re.match(r"^\d+$", item):
            out.append(int(item))
            continue
        raise SpecError("bad block reference %r" % item)
    return out


def block_data(seed, txn_no, idx, kind, bs):
    rnd = random.Random("%s:%d:%d" % (seed, txn_no, idx))
    if kind == "zero":
        return bytes(bs)
    if kind == "magiczero":
        return struct.pack(">I", jfmt.MAGIC) + bytes(bs - 4)
    body = rnd.randbytes(bs)
    if kind == "magic":
        return struct.pack(">I", jfmt.MAGIC) + body[4:]
    if kind == "random":
        # Never start with the magic by accident: "random" means no escape.
        if body[:4] == struct.pack(">I", jfmt.MAGIC):
            body = b"\0" + body[1:]
        return body
    raise SpecError("unknown data kind %r" % kind)


# ------------------------------------------------------------------ build

class Build:
    """A built image, its journal and what replaying it must give."""

    def __init__(self, spec, work):
        self.spec = spec
        self.work = work
        self.img = os.path.join(work, "image")
        self.jnl = os.path.join(work, "image.jnl") \
            if spec.jkind == "external" else None
        self.txns = []          # resolved: tid, log, data, revoke, committed

    def tool(self, cmd, stdin=None, what=None):
        rc, out, err = jfmt.run(cmd, ENV, stdin)
        if rc != 0:
            raise SpecError("%s failed (%d): %s%s" % (what or " ".join(cmd),
                                                      rc, out, err))
        return out, err

    def mkfs(self):
        s = self.spec
        for p in (self.img, self.jnl):
            if p:
                with open(p, "wb") as f:
                    f.truncate(s.blocks * s.bs)
        uuid = hashlib.sha256(s.text.encode()).hexdigest()
        fs_uuid = "%s-%s-4%s-8%s-%s" % (uuid[0:8], uuid[8:12], uuid[13:16],
                                         uuid[17:20], uuid[20:32])
        cmd = [MKE2FS, "-F", "-q", "-o", "Linux", "-b", str(s.bs), "-T",
               "ext4", "-U", fs_uuid, "-E", "lazy_itable_init=1"]
        if s.jkind == "internal":
            if (s.jsize * s.bs) % (1024 * 1024):
                raise SpecError("journal size must be whole MiB")
            cmd += ["-O", s.features,
                    "-J", "size=%d" % (s.jsize * s.bs // (1024 * 1024))]
        else:
            ext_uuid = EXT_UUID_BASE + uuid[32:44]
            with open(self.jnl, "wb") as f:
                f.truncate(s.jsize * s.bs)
            self.tool([MKE2FS, "-F", "-q", "-o", "Linux", "-b", str(s.bs),
                       "-O", "journal_dev", "-T", "ext4", "-U", ext_uuid,
                       self.jnl, str(s.jsize)])
            cmd += ["-O", s.features + ",^has_journal"]
        self.tool(cmd + [self.img, str(s.blocks)])
        if s.jkind == "external":
            self.tool([DEBUGFS, "-w", "-f", "-", self.img],
                      stdin=("feature has_journal\nssv journal_dev 0x9999\n"
                             "ssv journal_uuid %s\n" % ext_uuid).encode())
            if not s.nousers:
                self.add_user(fs_uuid)

    def add_user(self, fs_uuid):
        """List the filesystem in the journal device's s_users, as mke2fs
        -J device= does for a block device."""
        bs = self.spec.bs
        sb = jfmt.ext_journal_sb_block(bs)
        with open(self.jnl, "r+b") as f:
            f.seek(sb * bs)
            jsb = bytearray(f.read(1024))
            jsb[0x40:0x44] = struct.pack(">I", 1)
            jsb[0x100:0x110] = bytes.fromhex(fs_uuid.replace("-", ""))
            if struct.unpack(">I", jsb[0x28:0x2C])[0] & 0x18:
                jfmt.jsb_set_checksum(jsb)
            f.seek(sb * bs)
            f.write(jsb)

    def open_journal(self, path=None, jpath=None):
        bs = self.spec.bs
        if self.jnl:
            return jfmt.Journal(jpath or self.jnl, bs,
                                sb_block=jfmt.ext_journal_sb_block(bs))
        return jfmt.Journal(path or self.img, bs, blockmap=self.jmap)

    def layout(self):
        self.lay = jfmt.Layout(DUMPE2FS, self.img, ENV)
        self.jmap, self.jblocks = None, set()
        if self.jnl is None:
            self.jmap, self.jblocks = jfmt.journal_inode_blocks(
                DEBUGFS, self.img, ENV)

    def write_journal(self):
        s, bs = self.spec, self.spec.bs
        cmds = []
        no = 0
        for gi, group in enumerate(s.groups):
            jo = "jo"
            if gi == 0 and s.csum != "none":
                jo += " -c" + (" -v 2" if s.csum == "v2" else "")
            if self.jnl:
                jo += " -f " + self.jnl
            cmds.append(jo)
            for t in group:
                no += 1
                blocks = resolve(t["log"], self.lay)
                revoke = resolve(t["revoke"], self.lay)
                kinds = t["data"].split(",")
                if len(set(blocks)) != len(blocks):
                    raise SpecError("txn %d logs a block twice" % no)
                for b in blocks + revoke:
                    if b >= self.lay.blocks:
                        raise SpecError("block %d outside the fs" % b)
                for b in blocks:
                    if b in self.jblocks or b in self.lay.sb_gdt:
                        raise SpecError("txn %d logs block %d (superblock, "
                                        "descriptors or journal)" % (no, b))
                data = [block_data(s.seed, no, i, kinds[i % len(kinds)], bs)
                        for i in range(len(blocks))]
                jw = "jw"
                if blocks:
                    fname = os.path.join(self.work, "data%d.bin" % no)
                    with open(fname, "wb") as f:
                        f.write(b"".join(data))
                    jw += " -b " + ",".join(map(str, blocks))
                if revoke:
                    jw += " -r " + ",".join(map(str, revoke))
                if t["nocommit"]:
                    jw += " -c"
                if blocks:
                    jw += " " + fname
                if not blocks and not revoke:
                    raise SpecError("txn %d is empty" % no)
                cmds.append(jw)
                if (revoke or len(blocks) > 40) and t is not group[-1]:
                    # debugfs reserves journal_guess_blocks() for a jw, which
                    # counts neither revoke blocks nor every descriptor: the
                    # next jw would land on this one's commit block, or
                    # leave a gap.  Re-opening makes it find the real head.
                    cmds += ["jc", "jo" + (" -f " + self.jnl
                                           if self.jnl else "")]
                self.txns.append({"no": no, "log": blocks, "data": data,
                                  "revoke": revoke,
                                  "committed": not t["nocommit"]})
            cmds.append("jc")
        cmdfile = os.path.join(self.work, "debugfs.cmd")
        with open(cmdfile, "w") as f:
            f.write("\n".join(cmds) + "\n")
        out, err = self.tool([DEBUGFS, "-w", "-f", cmdfile, self.img])
        bad = [l for l in err.splitlines() if l and not l.startswith("debugfs ")]
        bad += [l for l in out.splitlines()
                if "rror" in l or "not open" in l or "Unknown" in l]
        if bad:
            raise SpecError("debugfs: " + "; ".join(bad))

    def fix_v1(self):
        """debugfs 1.47 runs its v1 commit checksum over every block of the
        transaction, revoke blocks included; Linux and e2fsck leave revoke
        blocks out, and so reject such a commit.  Sign the commits as Linux
        would, unless the recipe wants debugfs' own checksums."""
        j = self.open_journal()
        if not j.jsb.csum_v1 or self.spec.v1fix == "off":
            return
        txns, end, used = j.walk()
        for t in txns:
            if not t["committed"]:
                continue
            crc = 0xFFFFFFFF
            commit = None
            for b, kind in t["blocks"].items():
                if kind in ("descriptor", "data"):
                    crc = jfmt.crc32_be(crc, j.read(b))
                elif kind == "commit":
                    commit = b
            raw = bytearray(j.read(commit))
            raw[12:14] = bytes([1, 4])
            raw[16:20] = struct.pack(">I", crc)
            j.write(commit, bytes(raw))

    def rotate(self, k):
        """Move the log so that it starts k blocks before the journal's end
        (the log wraps); every checksum stays valid: none covers a block's
        position."""
        j = self.open_journal()
        jsb = j.jsb
        if jsb.start != jsb.first:
            raise SpecError("wrap: log does not start at s_first")
        txns, end, used = j.walk()
        length = used
        span = jsb.last - jsb.first
        if length > 1:
            # Recipes may ask for more than the log holds: fold k into it.
            k = 1 + (k - 1) % (length - 1)
        if not 0 < k < length or length >= span:
            raise SpecError("wrap %d: log of %d blocks, journal of %d" %
                            (k, length, span))
        blocks = [j.read(jsb.first + i) for i in range(length)]
        zero = bytes(j.bs)
        for b in range(jsb.first, jsb.last):
            j.write(b, zero)
        start = jsb.last - k
        pos = start
        for data in blocks:
            j.write(pos, data)
            pos = j.next(pos)
        raw = bytearray(j.read(j.sb_block))
        raw[0x1C:0x20] = struct.pack(">I", start)
        if jsb.csum_v2 or jsb.csum_v3:
            jfmt.jsb_set_checksum(raw)
        j.write(j.sb_block, bytes(raw))

    def set_sequence(self, seq):
        """Give the empty journal's superblock s_sequence @seq: debugfs'
        "jo" starts its first transaction there."""
        j = self.open_journal()
        raw = bytearray(j.read(j.sb_block))
        raw[0x18:0x1C] = struct.pack(">I", seq)
        if struct.unpack(">I", raw[0x28:0x2C])[0] & 0x18:
            jfmt.jsb_set_checksum(raw)
        j.write(j.sb_block, bytes(raw))

    def verify(self):
        """The journal must hold exactly what the recipe asked for."""
        j = self.open_journal()
        found, end, used = j.walk()
        tid = j.jsb.sequence
        want = self.txns
        if j.jsb.start == 0:
            # debugfs leaves the journal empty when nothing was committed.
            if any(t["committed"] for t in want):
                raise SpecError("journal empty but txns were committed")
            want = []
        if len(found) != len(want):
            raise SpecError("journal holds %d transactions, recipe %d" %
                            (len(found), len(want)))
        for t, f in zip(want, found):
            t["tid"] = f["tid"]
            if f["tid"] != tid:
                raise SpecError("tid %d, expected %d" % (f["tid"], tid))
            tid = (tid + 1) & 0xFFFFFFFF
            if [x[0] for x in f["tags"]] != t["log"]:
                raise SpecError("txn %d: tags %s, recipe %s" %
                                (t["no"], [x[0] for x in f["tags"]], t["log"]))
            for (fsb, jb, flags), d in zip(f["tags"], t["data"]):
                esc = d[:4] == struct.pack(">I", jfmt.MAGIC)
                if bool(flags & jfmt.F_ESCAPE) != esc:
                    raise SpecError("txn %d block %d: escape flag %s" %
                                    (t["no"], fsb, flags))
                stored = j.read(jb)
                if (b"\0\0\0\0" + d[4:] if esc else d) != stored:
                    raise SpecError("txn %d block %d: journal copy differs"
                                    % (t["no"], fsb))
            if sorted(f["revokes"]) != sorted(t["revoke"]):
                raise SpecError("txn %d: revokes differ" % t["no"])
            if f["committed"] != t["committed"]:
                raise SpecError("txn %d: committed %s" % (t["no"],
                                                          f["committed"]))
        for t in self.txns:
            t.setdefault("tid", None)
        self.walked = (found, end, used)

    def model(self):
        """block -> (txn no, data) of what replay must write."""
        committed = [t for t in self.txns if t["committed"]
                     and t["tid"] is not None]
        final = {}
        for t in committed:
            for b, d in zip(t["log"], t["data"]):
                revoked = any(b in r["revoke"] and
                              jfmt.tid_le(t["tid"], r["tid"])
                              for r in committed)
                if not revoked:
                    final[b] = (t["no"], d)
        self.final = final
        return final

    def check_asserts(self):
        for ref, what, n in self.spec.asserts:
            for b in resolve(ref, self.lay):
                got = self.final.get(b, (None,))[0]
                want = n if what == "txn" else None
                if got != want:
                    raise SpecError("assert %s %s %s: the model gives %s" %
                                    (ref, what, n or "",
                                     "txn %d" % got if got else "pre"))

    def build(self):
        self.mkfs()
        self.layout()
        if self.spec.sequence is not None:
            self.set_sequence(self.spec.sequence)
        self.write_journal()
        self.fix_v1()
        if self.spec.wrap:
            self.rotate(self.spec.wrap)
        self.verify()
        self.model()
        self.check_asserts()
        with open(os.path.join(self.work, "spec"), "w") as f:
            f.write(self.spec.text)


# ------------------------------------------------------------------ checks

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def logdump_events(text):
    ev, seq = [], None
    for line in text.splitlines():
        m = re.match(r"Journal starts at block (\d+), transaction (\d+)", line)
        if m:
            ev.append(("start", int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"Found expected sequence (\d+), type (\d+) .* at block "
                     r"(\d+)", line)
        if m:
            seq, t, b = int(m.group(1)), int(m.group(2)), int(m.group(3))
            name = {1: "desc", 2: "commit", 5: "revoke"}.get(t, "type%d" % t)
            ev.append((name, seq, b))
            continue
        m = re.match(r"\s+FS block (\d+) logged at journal block (\d+) "
                     r"\(flags 0x([0-9a-f]+)\)", line)
        if m:
            ev.append(("tag", seq, int(m.group(1)), int(m.group(2)),
                       int(m.group(3), 16) & 0xFFFF))
            continue
        m = re.match(r"\s+Revoke FS block (\d+)", line)
        if m:
            ev.append(("rec", seq, int(m.group(1))))
            continue
        m = re.match(r"(No magic number|Found sequence \d+ \(not \d+\)|"
                     r"Unexpected block type \d+) at block (\d+)", line)
        if m:
            ev.append(("end", int(m.group(2))))
    return ev


def dump_events(doc):
    ev = [("start", doc["log_start"], doc["log_sequence"])]
    for t in doc["transactions"]:
        for b in t["blocks"]:
            if b["type"] == "descriptor":
                ev.append(("desc", b["sequence"], b["block"]))
                for tag in b["tags"]:
                    ev.append(("tag", b["sequence"], tag["fs_block"],
                               tag["journal_block"], tag["flags"] & 0xFFFF))
            elif b["type"] == "revoke":
                ev.append(("revoke", b["sequence"], b["block"]))
                for r in b["records"]:
                    ev.append(("rec", b["sequence"], r))
            elif b["type"] == "commit":
                ev.append(("commit", b["sequence"], b["block"]))
    if doc["log_start"]:
        ev.append(("end", doc["end"]["block"]))
    return ev


def ej_args(b, img, jnl):
    return [img] + (["-j", jnl] if jnl else [])


def check_dump(b, name):
    if not HAVE_DUMP:
        result("SKIP", name, "(e2journal dump not available)")
        return
    before = [sha(p) for p in (b.img, b.jnl) if p]
    cmd = ["logdump -a" + (" -f " + b.jnl if b.jnl else "")]
    rc, ld, err = jfmt.run([DEBUGFS, "-R", cmd[0], b.img], ENV)
    if rc != 0:
        result("FAIL", name, "debugfs logdump failed: " + err)
        return
    rc, js, err = jfmt.run([E2JOURNAL, "dump", "--json"] +
                           ej_args(b, b.img, b.jnl), ENV)
    if rc != 0:
        result("FAIL", name, "e2journal dump --json exit %d: %s" % (rc, err))
        return
    try:
        doc = json.loads(js)
    except ValueError as e:
        log(js)
        result("FAIL", name, "dump --json is not JSON: %s" % e)
        return
    rc, txt, err = jfmt.run([E2JOURNAL, "dump"] + ej_args(b, b.img, b.jnl),
                            ENV)
    if rc != 0:
        result("FAIL", name, "e2journal dump exit %d: %s" % (rc, err))
        return
    after = [sha(p) for p in (b.img, b.jnl) if p]
    if before != after:
        result("FAIL", name, "e2journal dump changed the image")
        return
    a, o = logdump_events(ld), dump_events(doc)
    if a != o:
        log("logdump -a:\n" + ld)
        log("e2journal dump:\n" + txt)
        for i, (x, y) in enumerate(zip(a + [None] * len(o),
                                       o + [None] * len(a))):
            if x != y:
                log("first difference at event %d: logdump %s, dump %s" %
                    (i, x, y))
                break
        result("FAIL", name, "dump and logdump -a disagree")
        return
    # Our text summary must tell the same story as the JSON.
    s = doc["summary"]
    want = "%d transaction" % s["transactions"]
    if want not in txt or ("%d tag" % s["tags"]) not in txt:
        log(txt)
        result("FAIL", name, "text summary disagrees with --json")
        return
    found, end, used = b.walked
    ntags = sum(len(t["tags"]) for t in found)
    if s["tags"] != ntags or s["transactions"] != len(found):
        result("FAIL", name, "dump counts %d txns/%d tags, journal has %d/%d"
               % (s["transactions"], s["tags"], len(found), ntags))
        return
    if b.spec.v1fix == "off" and b.txns and any(t["revoke"]
                                               for t in b.txns):
        # debugfs' own v1 checksums over revoke blocks: dump must see them.
        if not s["bad_checksums"]:
            result("FAIL", name, "dump finds no bad v1 commit checksum")
            return
    elif s["bad_checksums"]:
        result("FAIL", name, "dump reports %d bad checksums in a healthy "
               "journal" % s["bad_checksums"])
        return
    result("PASS", name, "%d events" % len(a))


def fs_state(path):
    with open(path, "rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    state = struct.unpack("<H", sb[0x3A:0x3C])[0]
    incompat = struct.unpack("<I", sb[0x60:0x64])[0]
    return state, incompat


def jsb_summary(b, img, jnl):
    j = b.open_journal(img, jnl)
    raw = j.read(j.sb_block)
    s = j.jsb
    users = struct.unpack(">I", raw[0x40:0x44])[0]
    return {"start": s.start, "sequence": s.sequence, "errno": s.errno,
            "first": s.first, "maxlen": s.maxlen, "compat": s.compat,
            "incompat": s.incompat, "rocompat": s.rocompat,
            "uuid": s.uuid.hex(), "nr_users": users,
            "users": raw[0x100:0x100 + 16 * min(users, 48)].hex()}


def compare_images(b, pre, post, expect):
    """Differences of @post from @pre patched with @expect (block -> data),
    outside superblocks, group descriptors and the journal."""
    bs = b.spec.bs
    skip = b.lay.sb_gdt | b.jblocks
    per = (1 << 20) // bs
    diffs = []
    with open(pre, "rb") as fp, open(post, "rb") as fq:
        first = 0
        while first < b.lay.blocks:
            a = bytearray(fp.read(per * bs))
            q = bytearray(fq.read(per * bs))
            n = min(per, b.lay.blocks - first)
            if len(a) < n * bs or len(q) < n * bs:
                diffs.append((first, "image too short"))
                break
            for blk in range(first, first + n):
                o = (blk - first) * bs
                if blk in skip:
                    q[o:o + bs] = a[o:o + bs]
                elif blk in expect:
                    a[o:o + bs] = expect[blk][1]
            if a != q:
                for blk in range(first, first + n):
                    o = (blk - first) * bs
                    if a[o:o + bs] != q[o:o + bs]:
                        diffs.append((blk, describe(b, blk, bytes(q[o:o + bs]),
                                                    expect)))
            first += n
    return diffs


def describe(b, blk, got, expect):
    want = ("txn %d" % expect[blk][0]) if blk in expect else "pre-replay"
    src = "other content"
    for t in b.txns:
        for lb, d in zip(t["log"], t["data"]):
            if lb == blk and d == got:
                src = "txn %d's data" % t["no"]
    if src == "other content" and not any(got):
        src = "zeroes"
    return "expected %s content, found %s" % (want, src)


def sparse_copy(src, dst):
    """cp --sparse=always: the images are mostly holes."""
    size = os.path.getsize(src)
    zero = bytes(1 << 20)
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        while True:
            chunk = fi.read(1 << 20)
            if not chunk:
                break
            if chunk == zero[:len(chunk)]:
                fo.seek(len(chunk), 1)
            else:
                fo.write(chunk)
        fo.truncate(size)


def run_replay(b, tag, argv):
    img = os.path.join(b.work, tag + ".img")
    jnl = os.path.join(b.work, tag + ".jnl") if b.jnl else None
    sparse_copy(b.img, img)
    if jnl:
        sparse_copy(b.jnl, jnl)
    rc, out, err = jfmt.run(argv(img, jnl), ENV)
    log("%s: exit %d\n%s%s" % (" ".join(argv(img, jnl)), rc, out, err))
    return img, jnl, rc


def check_replayed(b, img, jnl, who):
    problems = []
    state, incompat = fs_state(img)
    if incompat & RECOVER:
        problems.append("%s left needs_recovery set" % who)
    try:
        s = jsb_summary(b, img, jnl)
        if s["start"] != 0:
            problems.append("%s left the journal not empty (s_start %d)" %
                            (who, s["start"]))
    except (IOError, IndexError) as e:
        problems.append("%s: journal superblock unreadable: %s" % (who, e))
    if b.spec.oracle == "on":
        diffs = compare_images(b, b.img, img, b.final)
        for blk, why in diffs[:8]:
            problems.append("%s: block %d: %s" % (who, blk, why))
        if len(diffs) > 8:
            problems.append("%s: %d blocks differ in all" % (who, len(diffs)))
    return problems, state


def check_replay(b, name):
    fimg, fjnl, frc = run_replay(
        b, "e2fsck", lambda i, j: [E2FSCK] + E2FSCK_ARGS +
        (["-j", j] if j else []) + [i])
    problems = []
    if frc not in (0, 1):
        problems.append("e2fsck exit %d" % frc)
    p, fstate = check_replayed(b, fimg, fjnl, "e2fsck")
    problems += p
    if problems:
        # The recipe's model and e2fsprogs disagree: a generator bug or a
        # finding; either way nothing can be judged against it.
        result("FAIL", name, "model vs e2fsck: " + "; ".join(problems))
        return
    if not HAVE_REPLAY:
        result("SKIP", name, "(e2journal replay not available)")
        return
    eimg, ejnl, erc = run_replay(
        b, "e2journal", lambda i, j: [E2JOURNAL, "replay"] +
        ej_args(b, i, j) + b.spec.replay_args)
    want = b.spec.replay_exit
    if want != "any" and erc != int(want):
        problems.append("e2journal replay exit %d (want %s)" % (erc, want))
    if erc < 0 or erc >= 8:
        problems.append("e2journal replay failed (exit %d)" % erc)
    p, estate = check_replayed(b, eimg, ejnl, "e2journal")
    problems += p
    if (estate & 3) != (fstate & 3):
        problems.append("s_state 0x%x, e2fsck leaves 0x%x" % (estate, fstate))
    diffs = compare_images(b, fimg, eimg, {})
    for blk, why in diffs[:8]:
        problems.append("block %d differs from e2fsck's result (%s)" %
                        (blk, describe(b, blk, read_block(eimg, b.spec.bs,
                                                          blk), b.final)))
    if len(diffs) > 8:
        problems.append("%d blocks differ from e2fsck's result" % len(diffs))
    try:
        fs_, es_ = jsb_summary(b, fimg, fjnl), jsb_summary(b, eimg, ejnl)
        for k in sorted(fs_):
            if fs_[k] != es_[k]:
                problems.append("journal %s: e2journal %s, e2fsck %s" %
                                (k, es_[k], fs_[k]))
    except (IOError, IndexError) as e:
        problems.append("journal superblock unreadable: %s" % e)
    if problems:
        result("FAIL", name, "; ".join(problems))
    else:
        result("PASS", name, "%d blocks replayed, same as e2fsck" %
               len(b.final))


def read_block(path, bs, blk):
    with open(path, "rb") as f:
        f.seek(blk * bs)
        return f.read(bs)


def run_spec(text, name, work, what=("dump", "replay")):
    os.makedirs(work, exist_ok=True)
    log("== %s, recipe:\n%s" % (name, text))
    try:
        spec = Spec(text)
        b = Build(spec, work)
        b.build()
    except (SpecError, RuntimeError, IOError, IndexError) as e:
        result("FAIL", name + "/build", str(e))
        return False
    if "dump" in what:
        check_dump(b, name + "/dump")
    if "replay" in what:
        check_replay(b, name + "/replay")
    return True


# ------------------------------------------------------------------ random

FS_CHOICES = [
    # (bs, blocks, 64bit, metadata_csum)
    (1024, 8192), (1024, 16384), (1024, 32768), (1024, 65536),
    (4096, 3072), (4096, 4096), (4096, 8192), (4096, 16384),
]


def random_header(rnd, index):
    """Cycle through sizes, 32/64-bit and metadata_csum so that every mix
    turns up within a few dozen recipes; the rest is random."""
    bs, blocks = FS_CHOICES[index % len(FS_CHOICES)]
    b64 = (index // len(FS_CHOICES)) % 2 == 1
    mcsum = (index // (2 * len(FS_CHOICES)) + index) % 2 == 0
    feats = ["64bit" if b64 else "^64bit",
             "metadata_csum" if mcsum else "^metadata_csum"]
    opts = ["v3", "v2", "none"] if mcsum else ["v1", "none"]
    csum = opts[(index // len(FS_CHOICES) + index) % len(opts)]
    external = rnd.random() < 0.25
    jsize = rnd.choice([1024, 2048]) if blocks >= 4 * 2048 else 1024
    lines = ["# random recipe %d" % index,
             "fs %d %d %s" % (bs, blocks, ",".join(feats)),
             "journal %s %d" % ("external" if external else "internal",
                                jsize),
             "csum %s" % csum,
             "seed %d" % rnd.getrandbits(32)]
    return lines, bs, jsize, b64, csum


def log_cost(bs, tag_bytes, tail, rec, n, r):
    per_desc = (bs - 12 - tail - 16) // tag_bytes
    desc = -(-n // per_desc) if n else 0
    per_rev = (bs - 16 - tail) // rec
    rev = -(-r // per_rev) if r else 0
    return desc + n + rev + 1


def random_body(rnd, bs, jsize, b64, csum, nfree):
    tag_bytes = {"v3": 16, "v2": 14 if b64 else 10}.get(csum,
                                                        12 if b64 else 8)
    tail = 4 if csum in ("v2", "v3") else 0
    rec = 8 if b64 else 4
    budget = int((jsize - 2) * 0.85)
    lines, used, logged = [], 0, []
    pool = min(nfree, 3000)
    ngroups = rnd.randint(1, 4)
    kinds = ["random", "random", "random", "zero", "magic", "magiczero"]
    no = 0
    done = False
    for g in range(ngroups):
        lines.append("open")
        for _ in range(rnd.randint(1, 5)):
            big = rnd.random() < 0.12
            n = rnd.randint(60, 300) if big else rnd.randint(0, 24)
            n = min(n, pool)
            idx = rnd.sample(range(pool), n)
            # Re-log some blocks of earlier transactions (supersede).
            if logged and n and rnd.random() < 0.6:
                seen = sorted(set(logged))
                k = rnd.randint(1, min(len(seen), max(1, n // 2)))
                again = rnd.sample(seen, k)
                idx = list(dict.fromkeys(again + idx))[:max(n, k)]
            rev = []
            if rnd.random() < 0.45:
                cand = sorted(set(logged + idx)) or list(range(pool))
                rev = rnd.sample(cand, rnd.randint(1, min(len(cand), 20)))
                if rnd.random() < 0.2:
                    rev += rnd.sample(range(pool), rnd.randint(1, 10))
                if rnd.random() < 0.08:
                    rev += rnd.sample(range(pool), min(pool, 400))
                rev = list(dict.fromkeys(rev))
            if not idx and not rev:
                idx = [rnd.randrange(pool)]
            cost = log_cost(bs, tag_bytes, tail, rec, len(idx), len(rev))
            if used + cost > budget:
                done = True
                break
            used += cost
            no += 1
            data = ",".join(rnd.choice(kinds) for _ in range(
                rnd.randint(1, 4)))
            words = ["txn"]
            if idx:
                words += ["log=" + ",".join("F%d" % i for i in idx),
                          "data=" + data]
            if rev:
                words.append("revoke=" + ",".join("F%d" % i for i in rev))
            lines.append(" ".join(words))
            logged += idx
        if done:
            break
    if lines and lines[-1] == "open":
        lines.pop()
    nocommit = rnd.random() < 0.2 and lines and lines[-1].startswith("txn")
    if nocommit:
        lines[-1] += " nocommit"
    # A lone uncommitted txn leaves the journal empty: nothing to wrap.
    if rnd.random() < 0.35 and used > 2 and not (nocommit and no == 1):
        lines.append("wrap %d" % rnd.randint(1, used - 1))
    return lines


def run_random(seed, count, name, work, only=None):
    for i in range(count):
        if only is not None and i != only:
            continue
        rnd = random.Random("%s/%d" % (seed, i))
        head, bs, jsize, b64, csum = random_header(rnd, i)
        sub = os.path.join(work, "%02d" % i)
        os.makedirs(sub, exist_ok=True)
        # The free block count is only known once the filesystem exists.
        try:
            probe = Build(Spec("\n".join(head) + "\n"), sub)
            probe.mkfs()
            probe.layout()
            nfree = len(probe.lay.free)
        except (SpecError, RuntimeError) as e:
            result("FAIL", "%s/%02d/build" % (name, i), str(e))
            continue
        body = random_body(rnd, bs, jsize, b64, csum, nfree)
        text = "\n".join(head + body) + "\n"
        desc = "%s-%dk-%s-%s" % (head[2].split()[1][:3], bs // 1024,
                                 "64" if b64 else "32", csum)
        ok = run_spec(text, "%s/%02d-%s" % (name, i, desc), sub)
        if ok and not ENV.get("EJ_KEEP"):
            shutil.rmtree(sub, ignore_errors=True)


# ------------------------------------------------------------------ fuzz

def corrupt(rnd, j, walked, kind):
    """Damage journal @j one way; returns a description."""
    jsb = j.jsb
    txns, end, used = walked
    blocks = sorted({b for t in txns for b in t["blocks"]}) or [jsb.first]
    ctl = sorted({b for t in txns for b, k in t["blocks"].items()
                  if k != "data"}) or blocks
    sbraw = bytearray(j.read(j.sb_block))

    def put_sb(off, val):
        sbraw[off:off + 4] = struct.pack(">I", val & 0xFFFFFFFF)
        if rnd.random() < 0.5:
            jfmt.jsb_set_checksum(sbraw)
        j.write(j.sb_block, bytes(sbraw))

    if kind == "flip":
        b = rnd.choice(blocks + [end])
        raw = bytearray(j.read(b))
        for _ in range(rnd.randint(1, 16)):
            raw[rnd.randrange(len(raw))] ^= 1 << rnd.randrange(8)
        j.write(b, bytes(raw))
        return "bit flips in block %d" % b
    if kind == "tags":
        desc = [b for t in txns for b, k in t["blocks"].items()
                if k == "descriptor"] or ctl
        b = rnd.choice(desc)
        raw = bytearray(j.read(b))
        for o in range(12, len(raw)):
            raw[o] = rnd.getrandbits(8)
        if rnd.random() < 0.5:
            # tags that never end, all sharing one UUID
            step = jsb.tag_bytes()
            for o in range(12, len(raw) - step, step):
                raw[o + 4:o + 8] = struct.pack(">I", 2 if jsb.csum_v3
                                               else 0x20002)
        j.write(b, bytes(raw))
        return "garbage tags in descriptor %d" % b
    if kind == "rcount":
        b = rnd.choice(ctl)
        raw = bytearray(j.read(b))
        raw[0:12] = struct.pack(">III", jfmt.MAGIC, jfmt.REVOKE,
                                struct.unpack(">I", raw[8:12])[0])
        raw[12:16] = struct.pack(">I", rnd.choice(
            [0, 1, 15, 17, 0xFFFFFFFF, j.bs, j.bs + 1, j.bs - 1, 0x7FFFFFFF]))
        j.write(b, bytes(raw))
        return "revoke block with odd r_count at %d" % b
    if kind == "same":
        # every log block a copy of the first descriptor: the walk must
        # notice that it runs round
        raw = j.read(ctl[0])
        for b in range(jsb.first, min(jsb.last, jsb.first + 64)):
            j.write(b, raw)
        put_sb(0x10, min(jsb.maxlen, jsb.first + 64))
        return "log of copies of one descriptor"
    if kind == "sb":
        field, vals = rnd.choice([
            (0x1C, [0, jsb.maxlen, jsb.maxlen + 5, 0xFFFFFFFF, 1]),
            (0x14, [0, jsb.maxlen, 0xFFFFFFFF, jsb.maxlen - 1]),
            (0x10, [0, 1, 2, 0xFFFFFFFF, jsb.first + 1, jsb.start + 1]),
            (0x0C, [512, 0, 65536, 2048, 0xFFFFFFFF]),
            (0x28, [0xFFFFFFFF, 0x12, 0x1A, 0x40]),
            (0x04, [3, 1, 0, 99]),
            (0x40, [0xFFFFFFFF, 49, 1000]),
            (0x54, [0xFFFFFFFF, 5, jsb.maxlen]),
        ])
        v = rnd.choice(vals)
        put_sb(field, v)
        return "journal superblock field 0x%x = %d" % (field, v)
    if kind == "tiny":
        # A journal so short that one descriptor's tags go round it.
        put_sb(0x10, jsb.first + rnd.randint(1, 4))
        return "s_maxlen just past s_first"
    raise ValueError(kind)


FUZZ_BASES = [
    "fs 1024 8192 ^64bit,^metadata_csum\njournal internal 1024\ncsum none\n",
    "fs 1024 16384 64bit,metadata_csum\njournal internal 1024\ncsum v3\n",
    "fs 1024 8192 ^64bit,metadata_csum\njournal internal 1024\ncsum v2\n",
    "fs 4096 4096 64bit,metadata_csum\njournal external 1024\ncsum v2\n",
    "fs 1024 8192 64bit,^metadata_csum\njournal internal 1024\ncsum v1\n",
]
FUZZ_BODY = ("open\ntxn log=F0-F9 data=random,magic revoke=F20\n"
             "txn log=F3-F40\ntxn revoke=F1-F50\nopen\n"
             "txn log=F100-F104 data=magiczero\n")


def fuzz_dump(b, img, jnl, what, vg):
    """e2journal dump on a damaged journal: exit 0 or 8, valid JSON, the
    image untouched."""
    bad = []
    before = [sha(p) for p in (img, jnl) if p]
    for mode in (["--json"], []):
        rc, out, err = jfmt.run(vg + [E2JOURNAL, "dump"] + mode +
                                ej_args(b, img, jnl), ENV)
        if rc not in (0, 8):
            bad.append("%s, %s: exit %d %s" % (what, " ".join(mode) or
                                               "text", rc,
                                               err.strip()[-300:]))
            continue
        if rc == 0 and mode:
            try:
                json.loads(out)
            except ValueError as e:
                bad.append("%s: bad JSON: %s" % (what, e))
    if before != [sha(p) for p in (img, jnl) if p]:
        bad.append("%s: dump changed the image" % what)
    return bad


def fuzz_replay(b, img, jnl, what, vg):
    """e2journal replay on a damaged journal, under each policy: an fsck
    exit status, never a crash; the image never grows (no block written
    past the end of the filesystem); "refuse" that refuses (4) leaves
    everything as it was."""
    bad = []
    size = os.path.getsize(img)
    for policy in ("replay-all", "stop", "refuse"):
        pimg = img + "." + policy
        pjnl = jnl + "." + policy if jnl else None
        sparse_copy(img, pimg)
        if jnl:
            sparse_copy(jnl, pjnl)
        before = [sha(p) for p in (pimg, pjnl) if p]
        rc, out, err = jfmt.run(vg + [E2JOURNAL, "replay"] +
                                ej_args(b, pimg, pjnl) +
                                ["--policy", policy], ENV)
        if rc not in (0, 1, 4, 8):
            bad.append("%s, --policy %s: exit %d %s" %
                       (what, policy, rc, err.strip()[-300:]))
        if os.path.getsize(pimg) != size:
            bad.append("%s, --policy %s: the image grew to %d bytes" %
                       (what, policy, os.path.getsize(pimg)))
        if policy == "refuse" and rc == 4 and \
                before != [sha(p) for p in (pimg, pjnl) if p]:
            bad.append("%s, --policy refuse: exit 4 but the image changed"
                       % what)
        for p in (pimg, pjnl):
            if p:
                os.unlink(p)
    return bad


def run_fuzz(seed, count, name, work, valgrind, target="dump"):
    have = HAVE_DUMP if target == "dump" else HAVE_REPLAY
    if not have:
        result("SKIP", name, "(e2journal %s not available)" % target)
        return
    bases = []
    for i, head in enumerate(FUZZ_BASES):
        sub = os.path.join(work, "base%d" % i)
        os.makedirs(sub, exist_ok=True)
        try:
            b = Build(Spec(head + FUZZ_BODY), sub)
            b.build()
        except (SpecError, RuntimeError) as e:
            result("FAIL", "%s/base%d" % (name, i), str(e))
            return
        bases.append(b)
    kinds = ["flip", "flip", "tags", "rcount", "sb", "sb", "same", "tiny"]
    rnd = random.Random(seed)
    bad = []
    vg_runs = 0
    for i in range(count):
        b = bases[i % len(bases)]
        kind = kinds[i % len(kinds)] if i < len(kinds) * 2 else \
            rnd.choice(kinds)
        img = os.path.join(work, "fuzz.img")
        jnl = os.path.join(work, "fuzz.jnl") if b.jnl else None
        sparse_copy(b.img, img)
        if jnl:
            sparse_copy(b.jnl, jnl)
        j = b.open_journal(img, jnl)
        what = "case %d (%s)" % (i, corrupt(rnd, j, b.walked, kind))
        log(what)
        vg = []
        # valgrind is slow: a few cases of different kinds are enough.
        if valgrind and vg_runs < 4 and i % 5 == 0:
            vg = valgrind
            vg_runs += 1
        if target == "dump":
            bad += fuzz_dump(b, img, jnl, what, vg)
        else:
            bad += fuzz_replay(b, img, jnl, what, vg)
    if bad:
        for x in bad:
            log(x)
        result("FAIL", name, "%d problems on %d damaged journals: %s" %
               (len(bad), count, bad[0]))
    else:
        result("PASS", name, "%d damaged journals%s" %
               (count, ", %d under valgrind" % vg_runs
                if vg_runs else ""))


# ------------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("command", choices=["run", "random", "fuzz", "build"])
    ap.add_argument("--target", default="dump", choices=["dump", "replay"])
    ap.add_argument("--spec")
    ap.add_argument("--name", default="test")
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--only", type=int)
    ap.add_argument("--what", default="dump,replay")
    ap.add_argument("--valgrind", default="")
    a = ap.parse_args()
    if a.command in ("run", "build"):
        with open(a.spec) as f:
            text = f.read()
        if a.command == "build":
            b = Build(Spec(text), a.work)
            b.build()
            print(json.dumps({str(k): v[0] for k, v in
                              sorted(b.final.items())}))
            return
        run_spec(text, a.name, a.work, tuple(a.what.split(",")))
    elif a.command == "random":
        run_random(a.seed, a.count, a.name, a.work, a.only)
    else:
        run_fuzz(a.seed, a.count, a.name, a.work, a.valgrind.split(),
                 a.target)


if __name__ == "__main__":
    main()
