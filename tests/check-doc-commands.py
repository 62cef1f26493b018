#!/usr/bin/env python3
"""Runs the shell examples of a Markdown page and checks what they print, so
the page cannot rot (docs/experiments.md; tests/python/test_docs.py does the
same for the Python blocks of the tutorial).

Every ```console block is a session: a line starting with "$ " is a command
(a line ending in a backslash continues on the next), the lines after it up
to the next command are what it prints. A line "..." stands for any number
of printed lines. Printed lines are compared word by word; a number matches
within two units of the last digit the page prints or 1e-6 of its size,
whichever is larger (a debug and an optimised build may differ there). The
commands of a block run with sh in one scratch folder holding the source
tree's models/, data/ and bench/, with the cradle under test first on PATH;
a command that exits non-zero fails the check.

usage: check-doc-commands.py CRADLE_EXE DOC.md SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def sessions(path):
    """[[(command, [expected lines])]] of the page's console blocks."""
    text = open(path, encoding="utf-8").read()
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        steps, lines = [], block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("$ "):
                cmd = line[2:]
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1] + " " + lines[i].strip()
                steps.append((cmd, []))
            elif steps:
                steps[-1][1].append(line)
            i += 1
        out.append(steps)
    return out


def _unit(token):
    mant, _, exp = token.lower().partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    return 2 * 10.0 ** (-decimals + (int(exp) if exp else 0))


def same_line(got, expected):
    g, e = got.split(), expected.split()
    if len(g) != len(e):
        return False
    for a, b in zip(g, e):
        na, nb = NUMBER.fullmatch(a.strip("[](),")), NUMBER.fullmatch(b.strip("[](),"))
        if na and nb:
            x, y = float(na.group()), float(nb.group())
            if abs(x - y) > max(_unit(nb.group()), 1e-6 * abs(y)):
                return False
        elif a != b:
            return False
    return True


def matches(got, expected):
    """Whether the printed lines match the expected ones ("..." skips lines)."""
    got = [g for g in got if g.strip()]
    expected = [e for e in expected if e.strip()]
    if not expected:
        return not got
    if expected[0].strip() == "...":
        return any(matches(got[k:], expected[1:]) for k in range(len(got) + 1))
    return bool(got) and same_line(got[0], expected[0]) and matches(got[1:], expected[1:])


def self_check():
    assert same_line("K 141790.18 3.355e+04", "K 141790.19 3.356e+04")
    assert not same_line("K 141790.18", "K 141790.58")
    assert matches(["a", "b 1.0", "c"], ["...", "c"])
    assert not matches(["a", "b"], ["a"])
    assert not matches(["a"], ["a", "b"])


def main():
    self_check()
    cradle, doc, root = sys.argv[1:4]
    found = sessions(doc)
    if not found:
        sys.exit("%s: no console blocks" % doc)
    failures = 0
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(cradle)) + os.pathsep
               + os.environ.get("PATH", ""), LC_ALL="C")
    for k, steps in enumerate(found, 1):
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("models", "data", "bench"):
                os.symlink(os.path.join(root, d), os.path.join(tmp, d))
            for cmd, expected in steps:
                run = subprocess.run(["sh", "-c", cmd], cwd=tmp, env=env,
                                     capture_output=True, text=True)
                got = run.stdout.splitlines()
                if run.returncode != 0 or not matches(got, expected):
                    failures += 1
                    print("not ok - block %d: $ %s (exit %d)\n--- printed:\n%s%s--- the page says:\n%s"
                          % (k, cmd, run.returncode, run.stdout, run.stderr,
                             "\n".join(expected)))
                else:
                    print("ok - block %d: $ %s" % (k, cmd[:70]))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
