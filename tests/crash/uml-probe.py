#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""uml-probe.py: can this host run a User-Mode Linux kernel's user space?

Usage: uml-probe.py [--timeout SECONDS] [--break] UML

Boots UML (Debian's /usr/bin/linux.uml, or a kernel check-kernel built)
with the host's / as its root (hostfs) and an init script that prints a
marker and powers off, and says in one line whether the marker came:

  uml-probe: /usr/bin/linux.uml 6.1.176 runs user space (...)
  uml-probe: /usr/bin/linux.uml 6.1.176 cannot run user space on this
             host: init killed by SIGSEGV (...)       [one line]

Exit status 0 when it can, 1 when it cannot, 2 on a usage error.  The
boot is bounded (--timeout, default 60 s) and UML's whole process group
is killed afterwards.

The line also gives the size of the host's XSAVE register set as ptrace
(PTRACE_GETREGSET, NT_X86_XSTATE) reports it: UML 6.1 and 6.12 hand the
host a fixed 2696-byte buffer for a process's FPU state, and a host whose
set is larger (AMX: 11008 bytes) refuses PTRACE_SETREGSET with EFAULT,
after which UML kills the process with SIGSEGV (doc/testing.md, "User-Mode
Linux on AMX hosts").

--break (or UML_PROBE_BREAK=1): the init kills itself with SIGSEGV before
printing the marker, as init dies on such a host: shows the failing path
on a host that works.
"""

import ctypes
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARKER = b"@@ uml-probe: user space runs"
UML_FP_BYTES = 2696     # HOST_FP_SIZE of arch/x86/um/user-offsets.c

INIT = """#!/bin/sh
{crash}echo "{marker}"
poweroff -f
"""
# a fault in pid 1 (SIGSEGV from the kernel cannot be blocked by init)
CRASH = "exec {python} -c 'import ctypes; ctypes.string_at(0)'\n"


def xsave_size():
    """The host's NT_X86_XSTATE register set size in bytes, or None."""
    if not sys.platform.startswith("linux") or os.uname().machine != \
            "x86_64":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long,
                                ctypes.c_void_p, ctypes.c_void_p]
        libc.ptrace.restype = ctypes.c_long
    except (OSError, AttributeError):
        return None
    pid = os.fork()
    if pid == 0:
        try:
            libc.ptrace(0, 0, None, None)          # PTRACE_TRACEME
            os.kill(os.getpid(), signal.SIGSTOP)
        finally:
            os._exit(0)
    size = None
    try:
        _, st = os.waitpid(pid, 0)
        if os.WIFSTOPPED(st):
            n = 1 << 16
            buf = ctypes.create_string_buffer(n)
            iov = (ctypes.c_size_t * 2)(ctypes.addressof(buf), n)
            # PTRACE_GETREGSET 0x4204, NT_X86_XSTATE 0x202
            if libc.ptrace(0x4204, pid, 0x202, ctypes.addressof(iov)) == 0:
                size = iov[1]
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    return size


def version(uml):
    try:
        p = subprocess.run([uml, "--version"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=10, start_new_session=True)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = p.stdout.decode("utf-8", "replace").strip().splitlines()
    if p.returncode == 0 and out and re.match(r"^\d+\.\d+[\w.+-]*$",
                                              out[0].strip()):
        return out[0].strip()
    return None


def why_not(log, rc, timed_out, timeout):
    """What the console says about an init that never printed the
    marker."""
    parts = []
    m = re.search(rb"Attempted to kill init! exitcode=(0x[0-9a-f]+)", log)
    if m:
        code = int(m.group(1), 16)
        if code & 0x7f:
            try:
                name = signal.Signals(code & 0x7f).name
            except ValueError:
                name = "signal %d" % (code & 0x7f)
            parts.append("init killed by %s (exitcode=%s)" %
                         (name, m.group(1).decode()))
        else:
            parts.append("init exited with status %d" % (code >> 8))
    for pat in (rb"ptrace set fp regs failed, errno = \d+",
                rb"put_fp_registers returned -?\d+",
                rb"ptrace set regs failed, errno = \d+",
                rb"Kernel panic - not syncing: [^\r\n]*"):
        m = re.search(pat, log)
        if m and not (parts and b"Attempted to kill init" in m.group(0)):
            parts.append(m.group(0).decode("utf-8", "replace"))
    if not parts:
        if timed_out:
            parts.append("no marker within %d s" % timeout)
        elif b"Linux version" not in log and b"Linux" not in log:
            parts.append("exited with status %s before any boot message" %
                         rc)
        else:
            parts.append("exited with status %s, no marker" % rc)
    return "; ".join(parts)


def probe(uml, timeout, crash):
    d = tempfile.mkdtemp(prefix="uml-probe.")
    init = os.path.join(d, "init.sh")
    with open(init, "w") as f:
        f.write(INIT.format(marker=MARKER.decode(), crash=CRASH.format(
            python=sys.executable) if crash else ""))
    os.chmod(init, 0o755)
    argv = [uml, "mem=64M", "root=/dev/root", "rootfstype=hostfs",
            "rootflags=/", "rw", "init=" + init, "con=null",
            "con0=fd:0,fd:1"]
    log = b""
    rc = None
    timed_out = False
    t0 = time.time()
    try:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             start_new_session=True, cwd=d)
    except OSError as e:
        shutil.rmtree(d, ignore_errors=True)
        return False, "cannot start it: %s" % e.strerror, 0.0
    try:
        while True:
            left = timeout - (time.time() - t0)
            if left <= 0:
                timed_out = True
                break
            r, _, _ = select.select([p.stdout], [], [], min(left, 1.0))
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            log += chunk
            if MARKER in log:
                break
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        rc = p.wait()
        p.stdout.close()
    secs = time.time() - t0
    with open(os.path.join(d, "console.log"), "wb") as f:
        f.write(log)
    ok = MARKER in log
    why = "" if ok else why_not(log, rc, timed_out, timeout)
    keep = os.environ.get("UML_PROBE_KEEP")
    if keep:
        shutil.copy(os.path.join(d, "console.log"), keep)
    shutil.rmtree(d, ignore_errors=True)
    return ok, why, secs


def main(argv):
    timeout = 60
    crash = os.environ.get("UML_PROBE_BREAK", "") not in ("", "0")
    while argv and argv[0].startswith("--"):
        a = argv.pop(0)
        if a == "--timeout" and argv:
            timeout = int(argv.pop(0))
        elif a == "--break":
            crash = True
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    uml = argv[0]
    name = uml
    ver = version(uml) if os.access(uml, os.X_OK) else None
    if ver:
        name += " " + ver
    xs = xsave_size()
    xnote = ""
    if xs is not None:
        xnote = "host XSAVE register set %d bytes, UML 6.1/6.12 pass %d" % (
            xs, UML_FP_BYTES)
    if not os.access(uml, os.X_OK):
        print("uml-probe: %s cannot run user space on this host: no such "
              "executable" % name, flush=True)
        return 1
    ok, why, secs = probe(uml, timeout, crash)
    notes = [n for n in (xnote, "%.1f s" % secs,
                         "deliberately broken init" if crash else "") if n]
    if ok:
        print("uml-probe: %s runs user space (%s)" % (name,
                                                     "; ".join(notes)),
              flush=True)
        return 0
    print("uml-probe: %s cannot run user space on this host: %s (%s)" % (
        name, why, "; ".join(notes)), flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
