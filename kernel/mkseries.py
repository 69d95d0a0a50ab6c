#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkseries.py - generate the kernel patch series from the project's files.

    mkseries.py KVER                 write kernel/patches-KVER/
    mkseries.py --check KVER...      cheap check (no kernel source needed)
    mkseries.py --check --full KVER  also regenerate and compare
    mkseries.py --extract KVER       write the intermediate recovery.c
                                     files from the committed patches

The series is made, never hand-edited, from:
  - the pristine kernel files it touches (from Debian's
    /usr/src/linux-source-KVER.tar.xz, or --git TREE: a git tree of that
    source with a "pristine" tag),
  - e2fsck/recovery.c, which becomes fs/jbd2/recovery.c byte for byte
    at the last step that changes it; the steps before it bring in
    intermediate versions, each a whole file.  Those live in the
    committed patches only: --extract (and generation, when they are
    missing) applies patches-KVER/ to the pristine source and writes
    each into its step's directory (NAME for 6.1, NAME@6.12 for 6.12;
    not tracked by git), where it can be edited before regenerating,
  - lib/journal/jbd2_policy.h, whose definitions go into
    include/linux/jbd2.h as they are (one source for both),
  - kernel/series/: for each step a directory holding "message" (the
    commit message), "ops" (what the step does) and the hunks and files
    the ops name; kernel/series/files/ holds the new files whole.  A file
    NAME@KVER, where it exists, is used for that kernel version instead
    of NAME.

ops lines:
  policy                 put jbd2_policy.h's definitions into jbd2.h
  recovery               fs/jbd2/recovery.c := e2fsck/recovery.c
  file PATH NAME         PATH := NAME in the step's directory (an
                         intermediate version of a file, whole)
  copy PATH              PATH := kernel/series/files/PATH
  patch DIFF [-R]        apply DIFF (relative to the step) with patch -p1

Each step becomes one commit of a scratch git repository, and
git format-patch writes the series (full blob ids in the index lines, so
that the check below can prove what the series' files are without the
kernel source).  SOURCES in the output lists the hash of every input;
--check fails when an input changed and the series was not regenerated,
or when the blob a patch gives recovery.c, the policy definitions in
jbd2.h, a new file or an intermediate file is not the project's, or
when a step's diff of a file does not start from the blob the step
before it left (the chain would not apply).
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SERIES = os.environ.get("MKSERIES_SERIES", os.path.join(HERE, "series"))
# Where patches-KVER/ are read by --check (kernel/check-series.sh points
# it at a damaged copy).
PATCHES = os.environ.get("MKSERIES_PATCHES", HERE)
# The environment may name other copies (kernel/check-series.sh shows
# with them that the check fails when the series and the files disagree).
RECOVERY_C = os.environ.get("MKSERIES_RECOVERY_C",
                            os.path.join(TOP, "e2fsck", "recovery.c"))
POLICY_H = os.environ.get("MKSERIES_POLICY_H",
                          os.path.join(TOP, "lib", "journal", "jbd2_policy.h"))
AUTHOR = "e2journal developer <dev@e2journal.invalid>"
DATE = "2026-12-04T09:%02d:00+00:00"
POLICY_ANCHOR = "#define JBD2_FC_REPLAY_CONTINUE\t1\n\n"


def die(msg):
    sys.stderr.write("mkseries: %s\n" % msg)
    sys.exit(1)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def variant(path, kver):
    """PATH@KVER if it exists, else PATH."""
    v = "%s@%s" % (path, kver)
    return v if os.path.exists(v) else path


def steps():
    out = []
    for line in read(os.path.join(SERIES, "series")).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def step_ops(step):
    ops = []
    for line in read(os.path.join(SERIES, step, "ops")).splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            ops.append(line)
    return ops


def policy_body():
    """The definitions of jbd2_policy.h: between its include guard lines."""
    text = read(POLICY_H)
    m = re.search(r"#define E2JOURNAL_JBD2_POLICY_H\n(.*)\n#endif /\* E2JOURNAL_JBD2_POLICY_H \*/",
                  text, re.S)
    if not m:
        die("%s: include guard not found" % POLICY_H)
    return m.group(1).strip("\n") + "\n"


def inputs(kver):
    """Every file the series of KVER is made from, project-relative."""
    files = [RECOVERY_C, POLICY_H, os.path.join(SERIES, "series"),
             variant(os.path.join(SERIES, "cover"), kver),
             os.path.abspath(__file__)]
    for step in steps():
        d = os.path.join(SERIES, step)
        files.append(variant(os.path.join(d, "message"), kver))
        files.append(os.path.join(d, "ops"))
        for op in step_ops(step):
            if op[0] == "copy":
                files.append(variant(os.path.join(SERIES, "files", op[1]), kver))
            elif op[0] == "patch":
                files.append(variant(os.path.normpath(os.path.join(d, op[1])), kver))
    # The intermediate files ("file" ops) are not inputs: the patches
    # carry them, and check() proves their blobs when they are extracted.
    return files


def input_name(f):
    """How SOURCES names an input: kernel/series/... for the steps'
    files wherever MKSERIES_SERIES puts them."""
    if f == RECOVERY_C:
        return "e2fsck/recovery.c"
    if f == POLICY_H:
        return "lib/journal/jbd2_policy.h"
    rel = os.path.relpath(f, SERIES)
    if not rel.startswith(".."):
        return os.path.join("kernel", "series", rel)
    return os.path.relpath(f, TOP)


def sources_text(kver):
    lines = ["# sha256 of every input of this series (kernel/mkseries.py)"]
    for f in inputs(kver):
        h = hashlib.sha256(read(f, "rb")).hexdigest()
        lines.append("%s  %s" % (h, input_name(f)))
    return "\n".join(lines) + "\n"


def touched(kver):
    """Kernel paths the series reads or writes."""
    paths = {"include/linux/jbd2.h", "fs/jbd2/recovery.c"}
    for step in steps():
        d = os.path.join(SERIES, step)
        for op in step_ops(step):
            if op[0] in ("copy", "file"):
                paths.add(op[1])
            elif op[0] == "patch":
                diff = read(variant(os.path.normpath(os.path.join(d, op[1])), kver))
                for m in re.finditer(r"^(?:---|\+\+\+) [ab]/(\S+)", diff, re.M):
                    paths.add(m.group(1))
    return sorted(paths)


def git(repo, *args, env=None, capture=False):
    e = dict(os.environ)
    e.update({"GIT_CONFIG_NOSYSTEM": "1", "HOME": repo, "LC_ALL": "C",
              "TZ": "UTC"})
    if env:
        e.update(env)
    r = subprocess.run(["git", "-C", repo] + list(args), env=e,
                       stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode:
        die("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def pristine_files(kver, repo, tarball, gittree):
    paths = touched(kver)
    if gittree:
        for p in paths:
            r = subprocess.run(["git", "-C", gittree, "show", "pristine:" + p],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                os.makedirs(os.path.dirname(os.path.join(repo, p)), exist_ok=True)
                with open(os.path.join(repo, p), "wb") as f:
                    f.write(r.stdout)
        return
    prefix = "linux-source-%s/" % kver
    tmp = os.path.join(os.path.dirname(repo), "tar")
    os.makedirs(tmp)
    # GNU tar: much faster than tarfile through the whole .xz stream.
    subprocess.run(["tar", "-C", tmp, "-xf", tarball, "--ignore-failed-read"]
                   + [prefix + p for p in paths],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for p in paths:
        src = os.path.join(tmp, prefix + p)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(repo, p)), exist_ok=True)
            shutil.copyfile(src, os.path.join(repo, p))
    if not os.path.exists(os.path.join(repo, "include/linux/jbd2.h")):
        die("%s: no %sinclude/linux/jbd2.h" % (tarball, prefix))


def do_op(kver, step, op, repo):
    d = os.path.join(SERIES, step)
    if op[0] == "policy":
        h = os.path.join(repo, "include/linux/jbd2.h")
        text = read(h)
        if text.count(POLICY_ANCHOR) != 1:
            die("%s: jbd2.h: the anchor for the policy definitions is not unique" % step)
        text = text.replace(POLICY_ANCHOR, POLICY_ANCHOR + policy_body() + "\n")
        with open(h, "w") as f:
            f.write(text)
    elif op[0] == "recovery":
        shutil.copyfile(RECOVERY_C, os.path.join(repo, "fs/jbd2/recovery.c"))
    elif op[0] == "copy":
        dst = os.path.join(repo, op[1])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(variant(os.path.join(SERIES, "files", op[1]), kver), dst)
    elif op[0] == "file":
        dst = os.path.join(repo, op[1])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(variant(os.path.join(d, op[2]), kver), dst)
    elif op[0] == "patch":
        diff = variant(os.path.normpath(os.path.join(d, op[1])), kver)
        args = ["patch", "-p1", "-s", "-F0", "--no-backup-if-mismatch", "-r", "-",
                "-d", repo, "-i", diff]
        if "-R" in op[2:]:
            args.append("-R")
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode:
            die("%s: %s does not apply to %s:\n%s" % (step, os.path.relpath(diff, TOP),
                                                     kver, r.stdout))
    else:
        die("%s: unknown op %s" % (step, op[0]))


def cover(kver, path):
    text = read(variant(os.path.join(SERIES, "cover"), kver)).replace("@KVER@", kver)
    subject, _, blurb = text.partition("\n\n")
    out = read(path)
    out = out.replace("*** SUBJECT HERE ***", subject.strip())
    out = out.replace("*** BLURB HERE ***", blurb.strip("\n"))
    with open(path, "w") as f:
        f.write(out)


def step_file(kver, step, name):
    """Where --extract puts an intermediate file of KVER."""
    d = os.path.join(SERIES, step)
    return os.path.join(d, name if kver == "6.1" else "%s@%s" % (name, kver))


def missing_steps(kver):
    return [(step, op) for step in steps() for op in step_ops(step)
            if op[0] == "file" and not os.path.exists(variant(
                os.path.join(SERIES, step, op[2]), kver))]


def pristine_repo(kver, tmp, tarball, gittree):
    """A scratch git repository under TMP holding the pristine files."""
    repo = os.path.join(tmp, "linux")
    os.makedirs(repo)
    git(repo, "init", "-q")
    pristine_files(kver, repo, tarball, gittree)
    return repo


def extract(kver, tarball, gittree):
    """Apply the committed patches-KVER/ to the pristine files and write
    each step's intermediate files as that step leaves them."""
    pdir = os.path.join(PATCHES, "patches-%s" % kver)
    names = [n for n in read(os.path.join(pdir, "series")).split() if n]
    if len(names) != len(steps()):
        die("patches-%s/series lists %d patches, kernel/series %d steps"
            % (kver, len(names), len(steps())))
    tmp = tempfile.mkdtemp(prefix="mkseries-extract.")
    try:
        repo = pristine_repo(kver, tmp, tarball, gittree)
        for n, step in zip(names, steps()):
            git(repo, "apply", "--whitespace=nowarn", os.path.join(pdir, n))
            for op in step_ops(step):
                if op[0] == "file":
                    shutil.copyfile(os.path.join(repo, op[1]),
                                    step_file(kver, step, op[2]))
    finally:
        shutil.rmtree(tmp)


def generate(kver, outdir, tarball, gittree):
    if missing_steps(kver):
        extract(kver, tarball, gittree)
    tmp = tempfile.mkdtemp(prefix="mkseries.")
    try:
        repo = pristine_repo(kver, tmp, tarball, gittree)
        ident = {"GIT_AUTHOR_NAME": AUTHOR.split(" <")[0],
                 "GIT_AUTHOR_EMAIL": AUTHOR.split("<")[1].rstrip(">"),
                 "GIT_COMMITTER_NAME": AUTHOR.split(" <")[0],
                 "GIT_COMMITTER_EMAIL": AUTHOR.split("<")[1].rstrip(">")}
        git(repo, "add", "-A", "-f")
        git(repo, "commit", "-q", "-m", "linux-source-%s" % kver,
            env=dict(ident, GIT_AUTHOR_DATE=DATE % 0, GIT_COMMITTER_DATE=DATE % 0))
        for i, step in enumerate(steps(), 1):
            for op in step_ops(step):
                do_op(kver, step, op, repo)
            msg = read(variant(os.path.join(SERIES, step, "message"), kver)).rstrip("\n")
            msg += "\n\nSigned-off-by: %s\n" % AUTHOR
            git(repo, "add", "-A", "-f")
            with open(os.path.join(tmp, "msg"), "w") as f:
                f.write(msg)
            git(repo, "commit", "-q", "-F", os.path.join(tmp, "msg"), env=dict(
                ident, GIT_AUTHOR_DATE=DATE % i, GIT_COMMITTER_DATE=DATE % i))
        pdir = os.path.join(tmp, "out")
        git(repo, "format-patch", "-q", "--cover-letter", "--zero-commit",
            "--no-signature", "--full-index", "--no-numbered-files", "-o", pdir,
            "HEAD~%d" % len(steps()), env=dict(ident, GIT_COMMITTER_DATE=DATE % 59,
                                               GIT_AUTHOR_DATE=DATE % 59))
        names = sorted(os.listdir(pdir))
        cover(kver, os.path.join(pdir, names[0]))
        os.makedirs(outdir, exist_ok=True)
        for old in os.listdir(outdir):
            if old.endswith(".patch") or old in ("series", "SOURCES"):
                os.unlink(os.path.join(outdir, old))
        for n in names:
            shutil.copyfile(os.path.join(pdir, n), os.path.join(outdir, n))
        with open(os.path.join(outdir, "series"), "w") as f:
            f.write("".join(n + "\n" for n in names[1:]))
        with open(os.path.join(outdir, "SOURCES"), "w") as f:
            f.write(sources_text(kver))
    finally:
        shutil.rmtree(tmp)


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_diffs(patch_text):
    """{path: (old blob id, new blob id, added lines)} of one patch."""
    out = {}
    for part in re.split(r"^diff --git ", patch_text, flags=re.M)[1:]:
        m = re.match(r"a/(\S+) b/(\S+)\n", part)
        idx = re.search(r"^index ([0-9a-f]+)\.\.([0-9a-f]+)", part, re.M)
        added = [l[1:] for l in part.splitlines() if l.startswith("+")
                 and not l.startswith("+++ ")]
        out[m.group(2)] = (idx.group(1) if idx else None,
                           idx.group(2) if idx else None, added)
    return out


def check(kver, full, tarball, gittree):
    outdir = os.path.join(PATCHES, "patches-%s" % kver)
    errs = []
    if not os.path.isdir(outdir):
        die("%s missing: run kernel/mkseries.py %s" % (outdir, kver))
    stored = read(os.path.join(outdir, "SOURCES"))
    if stored != sources_text(kver):
        errs.append("inputs changed since kernel/patches-%s was generated "
                    "(SOURCES differs): run kernel/mkseries.py %s" % (kver, kver))
    names = [n for n in read(os.path.join(outdir, "series")).split() if n]
    if len(names) != len(steps()):
        errs.append("patches-%s/series lists %d patches, kernel/series %d steps"
                    % (kver, len(names), len(steps())))
    # Which blob each file ends as, and where the policy entered.
    last = {}
    policy_ok = False
    body = policy_body().splitlines()
    for n, step in zip(names, steps()):
        diffs = file_diffs(read(os.path.join(outdir, n)))
        for path, (old, blob, added) in diffs.items():
            if path in last and old != last[path]:
                errs.append("patches-%s/%s: its %s does not start where the patch "
                            "before it left the file" % (kver, n, path))
            last[path] = blob
            if path == "include/linux/jbd2.h" and ["policy"] in step_ops(step):
                for i in range(len(added) - len(body) + 1):
                    if added[i:i + len(body)] == body:
                        policy_ok = True
                        break
    if blob_id(read(RECOVERY_C, "rb")) != last.get("fs/jbd2/recovery.c"):
        errs.append("patches-%s: the series' fs/jbd2/recovery.c is not e2fsck/recovery.c"
                    % kver)
    if not policy_ok:
        errs.append("patches-%s: jbd2.h does not receive lib/journal/jbd2_policy.h's "
                    "definitions as they are" % kver)
    for n, step in zip(names, steps()):
        d = os.path.join(SERIES, step)
        for op in step_ops(step):
            if op[0] == "file":
                f = variant(os.path.join(d, op[2]), kver)
                if not os.path.exists(f):
                    continue  # not extracted: the patch is the file
                got = file_diffs(read(os.path.join(outdir, n))).get(op[1])
                if not got or got[1] != blob_id(read(f, "rb")):
                    errs.append("patches-%s/%s: its %s is not %s (edited "
                                "after --extract: run kernel/mkseries.py %s)"
                                % (kver, n, op[1], input_name(f), kver))
            if op[0] == "copy":
                want = blob_id(read(variant(os.path.join(SERIES, "files", op[1]), kver), "rb"))
                if last.get(op[1]) != want:
                    errs.append("patches-%s: %s is not kernel/series/files/%s"
                                % (kver, op[1], op[1]))
    if full and not errs:
        tmp = tempfile.mkdtemp(prefix="mkseries-check.")
        try:
            generate(kver, tmp, tarball, gittree)
            for n in sorted(os.listdir(tmp)):
                if read(os.path.join(tmp, n)) != read(os.path.join(outdir, n)):
                    errs.append("patches-%s/%s differs from what mkseries.py makes now"
                                % (kver, n))
        finally:
            shutil.rmtree(tmp)
    for e in errs:
        sys.stderr.write("mkseries: %s\n" % e)
    return not errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kver", nargs="+", help="6.1 or 6.12")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--extract", action="store_true",
                    help="write the intermediate files from the committed patches")
    ap.add_argument("--full", action="store_true",
                    help="with --check: regenerate and compare (needs the source)")
    ap.add_argument("--tarball", help="default /usr/src/linux-source-KVER.tar.xz")
    ap.add_argument("--git", help="a git tree of the source with a 'pristine' tag")
    ap.add_argument("-o", "--output", help="default kernel/patches-KVER")
    a = ap.parse_args()
    ok = True
    for kver in a.kver:
        tarball = a.tarball or "/usr/src/linux-source-%s.tar.xz" % kver
        if not a.git and (not a.check or a.full) and not os.path.exists(tarball):
            die("%s not found (apt-get install linux-source-%s)" % (tarball, kver))
        if a.extract:
            extract(kver, tarball, a.git)
            print("extracted %d intermediate files of kernel/patches-%s"
                  % (sum(1 for s in steps() for o in step_ops(s) if o[0] == "file"), kver))
        elif a.check:
            r = check(kver, a.full, tarball, a.git)
            print("%s: kernel/patches-%s %s" % ("ok" if r else "FAIL", kver,
                  "agrees with its sources" if r else "disagrees (above)"))
            ok = ok and r
        else:
            generate(kver, a.output or os.path.join(HERE, "patches-%s" % kver),
                     tarball, a.git)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
