#!/usr/bin/env python3
"""Runs the tensordiff CLI over the hostile corpus (tests/data/generate_hostile.py).

    python3 tests/cli/run_hostile.py CLI CORPUS_DIR [NAME_REGEX]

Each case runs with its own timeout and an address-space limit (ulimit -v, as
RLIMIT_AS; skipped under sanitizers, which reserve terabytes of address space)
and must give its exit code, match its stdout/stderr regexes, print at most
one line on stderr, and leave every file of the corpus unchanged (nothing
outside the case's own output folder may be written). Exit 1 on any failure.
"""
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

CLI, CORPUS = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PATTERN = re.compile(sys.argv[3] if len(sys.argv) > 3 else "")
SANITIZED = os.environ.get("TD_SANITIZED", "") not in ("", "0", "OFF")


def snapshot():
    """(path → kind and digest) of every entry of the corpus, without opening FIFOs or devices."""
    out = {}
    for root, dirs, files in os.walk(CORPUS):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p) and st.st_size < (64 << 20):
                with open(p, "rb") as f:
                    out[p] = ("file", hashlib.md5(f.read()).hexdigest())
            else:
                out[p] = ("other", st.st_size, st.st_mtime_ns, st.st_mode)
    return out


def limit(mem_mb):
    def apply():
        if not SANITIZED:
            b = mem_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
    return apply


def run_case(c, tmp):
    argv = [CLI] + [a.replace("{tmp}", tmp) for a in c["argv"]]
    try:
        p = subprocess.run(argv, capture_output=True, timeout=c["timeout"], preexec_fn=limit(c["mem_mb"]))
    except subprocess.TimeoutExpired:
        return ["timed out after %ss" % c["timeout"]]
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != c["exit"]:
        problems.append("exit %d, expected %d" % (p.returncode, c["exit"]))
    for rx in c["stderr"]:
        if not re.search(rx, err, re.M):
            problems.append("stderr lacks /%s/" % rx)
    for rx in c["not_stderr"]:
        if re.search(rx, err, re.M):
            problems.append("stderr has /%s/" % rx)
    for rx in c["stdout"]:
        if not re.search(rx, out, re.M):
            problems.append("stdout lacks /%s/" % rx)
    if err.count("\n") > 1:
        problems.append("stderr has %d lines (one expected)" % err.count("\n"))
    if problems:
        problems.append("stderr: %r" % err[:600])
        problems.append("stdout: %r" % out[:300])
    return problems


def main():
    with open(os.path.join(CORPUS, "cases.json")) as f:
        cases = [c for c in json.load(f) if PATTERN.search(c["name"])]
    before = snapshot()
    failed = 0
    for c in cases:
        tmp = tempfile.mkdtemp(prefix="td_hostile_")
        try:
            problems = run_case(c, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        print(("FAIL " if problems else "ok   ") + c["name"])
        for pr in problems:
            print("     " + pr)
        failed += bool(problems)
    after = snapshot()
    if after != before:
        changed = sorted(set(before.items()) ^ set(after.items()))
        print("FAIL corpus changed: %s" % changed[:5])
        failed += 1
    print("%d of %d cases failed" % (failed, len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
