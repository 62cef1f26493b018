"""Every ```python block of docs/python.md and docs/tutorial.md, executed in
order (one namespace per document, as a reader pasting them into one
session) in a scratch folder holding the source tree's models/, cases/ and
data/; where the text says what a block prints (a "prints" line and a code
block after it), the output is checked against it: the same words, and each
number within two units of its last printed digit (a debug and an optimised
build may differ there)."""
import contextlib
import io
import os
import re

import pytest

from conftest import SOURCE

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def blocks(path):
    """[(code, expected output or None)] of a Markdown file."""
    text = open(path, encoding="utf-8").read()
    out = []
    pattern = re.compile(r"```python\n(.*?)```\n(?:\s*prints\s*\n+```\n(.*?)```)?", re.S)
    for m in pattern.finditer(text):
        out.append((m.group(1), m.group(2)))
    return out


def _unit(token):
    """Two units of the last printed digit of a number as the document prints it."""
    mant, _, exp = token.lower().partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    return 2 * 10.0 ** (-decimals + (int(exp) if exp else 0))


def same_output(got, expected):
    g, e = got.split(), expected.split()
    if len(g) != len(e):
        return False
    for a, b in zip(g, e):
        na, nb = NUMBER.fullmatch(a.strip("[](),")), NUMBER.fullmatch(b.strip("[](),"))
        if na and nb:
            if abs(float(na.group()) - float(nb.group())) > _unit(nb.group()):
                return False
        elif a != b:
            return False
    return True


@pytest.mark.parametrize("doc", ["python.md", "tutorial.md"])
def test_doc_examples(doc, tmp_path, monkeypatch):
    found = blocks(os.path.join(SOURCE, "docs", doc))
    assert found, "no python blocks in docs/%s" % doc
    for d in ("models", "cases", "data"):
        os.symlink(os.path.join(SOURCE, d), tmp_path / d)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__doc_example__"}
    for k, (code, expected) in enumerate(found):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "docs/%s block %d" % (doc, k + 1), "exec"), namespace)
        if expected is not None:
            assert same_output(buf.getvalue(), expected), (
                "docs/%s block %d printed:\n%s\nthe document says:\n%s"
                % (doc, k + 1, buf.getvalue(), expected))


def test_same_output_catches_a_change():
    assert same_output("kappa 0.924797 [-0.6  0.4]", "kappa 0.924798 [-0.6 0.4]")
    assert not same_output("kappa 0.924807", "kappa 0.924797")
    assert not same_output("error 1.1e-03", "error 1.4e-03")
    assert not same_output("converged: False", "converged: True")
