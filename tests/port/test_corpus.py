"""The porter over the corpus: each MXNet snippet (``corpus/*.in.txt``, written for these tests) ports to
its expected source (``*.out.txt``), porting is idempotent, and the ported snippet runs (each snippet
asserts its own results; the same assertions hold for the original under MXNet 1.9.1, checked by the
last test where MXNet is installed)."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from framework.port import Report, port_source
from framework.port.rules.arrays import ROUTED

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(p.name[: -len(".in.txt")] for p in CORPUS.glob("*.in.txt"))
NOT_RUN = {"unported", "mixed_500"}  # they keep MXNet-only constructs on purpose


def read(name: str) -> str:
    with open(CORPUS / name, encoding="utf-8", newline="") as fh:
        return fh.read()


@pytest.mark.parametrize("case", CASES)
def test_ports_to_the_expected_source(case):
    assert port_source(read(f"{case}.in.txt"), f"{case}.py") == read(f"{case}.out.txt")


@pytest.mark.parametrize("case", CASES)
def test_idempotent(case):
    ported = read(f"{case}.out.txt")
    report = Report()
    assert port_source(ported, f"{case}.py", report) == ported
    assert not report.changed


@pytest.mark.parametrize("case", [c for c in CASES if c not in NOT_RUN])
def test_ported_snippet_runs(case):
    code = compile(read(f"{case}.out.txt"), f"{case}.py", "exec")
    exec(code, {"__name__": f"corpus_{case}", "print": lambda *a, **k: None})


def test_unchanged_lines_are_kept_byte_for_byte():
    """Lines outside rewritten spans come out identical and in order (a line diff matches them); every
    line that differs held something a rule rewrites, or continues such a line."""
    for case in CASES:
        src = read(f"{case}.in.txt").splitlines(keepends=True)
        out = read(f"{case}.out.txt").splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(a=src, b=out, autojunk=False)
        kept = {i for blk in matcher.get_matching_blocks() for i in range(blk.a, blk.a + blk.size)}
        rewritten = [i for i in range(len(src)) if i not in kept]
        markers = ("mxnet", ".asnumpy(", ".asscalar(", ".attach_grad(", "] =", "] +=", "] *=", ".context",
                   ".copyto(", ".as_in_context(", ".wait_to_read(", "NDArray", ".as_n", ".ctx",
                   ".device_type", "for ", "with ", "[range(", "[[", "idx]", ".array([", "float(", "int(",
                   "np.", *(f".{m}(" for m in ROUTED))
        for i in rewritten:  # a rewritten line held something a rule rewrites (or continues such a line)
            assert any(m in line for m in markers for line in src[max(0, i - 2): i + 3]), (case, src[i])


def test_comments_and_blank_lines_survive():
    out = read("formatting.out.txt")
    for text in ("#!/usr/bin/env python\n", '"""A module docstring that stays."""\n',
                 "# comments around rewritten lines stay where they are\n", "   # odd spacing stays\n",
                 "  # trailing comment stays\n", "  ; z = 1  # two statements on one line\n",
                 "import framework as mx    # the runtime\n", "from framework import nd   ,  autograd\n"):
        assert text in out, text


def test_crlf_files_keep_their_line_endings():
    src = "import mxnet as mx\r\nx = mx.nd.ones(2)\r\nprint(x.asnumpy())\r\n"
    assert port_source(src) == "import framework as mx\r\nx = mx.nd.ones(2)\r\nprint(mx.npx.asnumpy(x))\r\n"


def test_unported_report():
    report = Report()
    out = port_source(read("unported.in.txt"), "unported.py", report)
    got = {(u.line, u.code) for u in report.unported}
    expected = {
        (4, "from mxnet import rtc"),
        (5, "import mxnet.contrib.onnx as onnx_mxnet"),
        (14, "x.tostype('default')"),
        (18, "net.weight.grad()[:]"),
        (19, "p.attach_grad()"),
        (21, "p.attach_grad()"),
        (23, "q.attach_grad()"),
    }  # x.norm() (13) and x.flatten() (25) of an nd array: ported with MXNet's meaning (rules/arrays.py)
    assert got == expected
    fixes = {u.line: u.fix for u in report.unported}
    assert fixes[14] == "drop .tostype('default'); rewrite sparse code densely"
    assert fixes[18] == "net.weight.zero_grad() to clear it"
    assert "n = nd.norm(x)\n" in out and "flat = nd.flatten(x)\n" in out
    assert "from mxnet import rtc\n" in out and "import mxnet.contrib.onnx as onnx_mxnet\n" in out
    text = report.format()
    assert "not ported (7): change by hand" in text
    assert ("  unported.py:14: x.tostype('default')\n      why: sparse storage types are not supported\n"
            "      fix: drop .tostype('default'); rewrite sparse code densely") in text


def test_counts_by_rule():
    report = Report()
    port_source(read("devices.in.txt"), "devices.py", report)
    assert report.counts["copyto"] == 4 and report.counts["context"] == 11
    assert report.counts["as_in_context"] == 3 and report.counts["imports"] == 2


def test_files_without_mxnet_are_skipped():
    report = Report()
    src = read("not_mxnet.in.txt")
    assert port_source(src, "plain.py", report) == src
    assert report.skipped == ["plain.py"] and not report.counts


MXNET = os.environ.get("MXNET_PYTHON", "/tmp/mx/bin/python")


@pytest.mark.skipif(not Path(MXNET).exists(), reason="MXNet 1.9.1 side venv not installed")
def test_original_snippets_pass_under_mxnet():
    """The snippets' own assertions hold under real MXNet: the ported code keeps MXNet's results."""
    script = (
        "import sys\n"
        "for path in sys.argv[1:]:\n"
        "    ns = {'__name__': 'corpus', 'print': lambda *a: None}\n"
        "    exec(compile(open(path).read(), path, 'exec'), ns)\n"
    )
    paths = [str(CORPUS / f"{c}.in.txt") for c in CASES if c not in NOT_RUN]
    proc = subprocess.run([MXNET, "-c", script, *paths], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sys.executable != MXNET


def test_report_on_a_500_line_mixed_file():
    src = read("mixed_500.in.txt")
    assert len(src.splitlines()) >= 500
    report = Report()
    port_source(src, "mixed_500.py", report)
    text = report.format()
    head, _, unported = text.partition("not ported")
    assert dict(report.counts) == {"imports": 5, "asnumpy": 12, "asscalar": 10, "as_in_context": 9,
                                   "copyto": 3, "context": 5, "isinstance": 1, "attach_grad": 5,
                                   "attach_grad_loop": 3, "setitem": 11, "scalar": 7, "array_method": 17,
                                   "nd_getitem": 2}
    assert [int(n) for n in re.findall(r"mixed_500\.py:(\d+):", unported)] == \
        [378, 428]  # the others are NDArray methods jax.Array lacks: nd.array_method decides at run time
    assert all(len(line) <= 120 for line in text.splitlines())
