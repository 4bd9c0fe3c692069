"""The porter's NumPy-alias rules, one case per removed name: the original fails under NumPy 2 (or means
another type there), the port is the expected text, is counted under its rule, and runs under NumPy 2
with the value MXNet's NumPy (1.23) gave -- the corpus file ``numpy_aliases.in.txt`` holds the same
assertions and passes under real MXNet 1.9.1 (tests/port/test_corpus.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as onp
import pytest

from framework.port import Report, port_source

HEAD = "import mxnet as mx\nimport numpy as np\n"
PORTED_HEAD = "import framework as mx\nimport numpy as np\n"

# source expression, ported expression, rule, check of the ported value under NumPy 2
CASES = [
    ("np.float", "float", "np_builtin_alias", lambda v: v is float),
    ("np.int", "int", "np_builtin_alias", lambda v: v is int),
    ("np.bool", "bool", "np_builtin_alias", lambda v: v is bool),
    ("np.object", "object", "np_builtin_alias", lambda v: v is object),
    ("np.complex", "complex", "np_builtin_alias", lambda v: v is complex),
    ("np.str", "str", "np_builtin_alias", lambda v: v is str),
    ("np.long", "int", "np_builtin_alias", lambda v: v is int),
    ("np.unicode", "str", "np_builtin_alias", lambda v: v is str),
    ("np.bool8", "np.bool_", "np_removed_alias", lambda v: v is onp.bool_),
    ("np.int0", "np.intp", "np_removed_alias", lambda v: v is onp.intp),
    ("np.uint0", "np.uintp", "np_removed_alias", lambda v: v is onp.uintp),
    ("np.object0", "np.object_", "np_removed_alias", lambda v: v is onp.object_),
    ("np.str0", "np.str_", "np_removed_alias", lambda v: v is onp.str_),
    ("np.bytes0", "np.bytes_", "np_removed_alias", lambda v: v is onp.bytes_),
    ("np.void0", "np.void", "np_removed_alias", lambda v: v is onp.void),
    ("np.float_", "np.float64", "np_removed_alias", lambda v: v is onp.float64),
    ("np.complex_", "np.complex128", "np_removed_alias", lambda v: v is onp.complex128),
    ("np.longfloat", "np.longdouble", "np_removed_alias", lambda v: v is onp.longdouble),
    ("np.singlecomplex", "np.complex64", "np_removed_alias", lambda v: v is onp.complex64),
    ("np.cfloat", "np.complex128", "np_removed_alias", lambda v: v is onp.complex128),
    ("np.longcomplex", "np.clongdouble", "np_removed_alias", lambda v: v is onp.clongdouble),
    ("np.clongfloat", "np.clongdouble", "np_removed_alias", lambda v: v is onp.clongdouble),
    ("np.string_", "np.bytes_", "np_removed_alias", lambda v: v is onp.bytes_),
    ("np.unicode_", "np.str_", "np_removed_alias", lambda v: v is onp.str_),
    ("np.Inf", "np.inf", "np_removed_alias", lambda v: v == float("inf")),
    ("np.Infinity", "np.inf", "np_removed_alias", lambda v: v == float("inf")),
    ("np.infty", "np.inf", "np_removed_alias", lambda v: v == float("inf")),
    ("np.PINF", "np.inf", "np_removed_alias", lambda v: v == float("inf")),
    ("np.NaN", "np.nan", "np_removed_alias", lambda v: v != v),
    ("np.NINF", "-np.inf", "np_removed_alias", lambda v: v == -float("inf")),
    ("np.NINF ** 2", "(-np.inf) ** 2", "np_removed_alias", lambda v: v == float("inf")),
    ("np.NZERO", "-0.0", "np_removed_alias", lambda v: v == 0 and str(v) == "-0.0"),
    ("np.PZERO", "0.0", "np_removed_alias", lambda v: v == 0 and str(v) == "0.0"),
    ("np.round_(2.567, 1)", "np.round(2.567, 1)", "np_removed_alias", lambda v: v == 2.6),
    ("np.product([2, 3])", "np.prod([2, 3])", "np_removed_alias", lambda v: v == 6),
    ("np.cumproduct([2, 3])", "np.cumprod([2, 3])", "np_removed_alias", lambda v: v.tolist() == [2, 6]),
    ("np.alltrue([1, 0])", "np.all([1, 0])", "np_removed_alias", lambda v: not v),
    ("np.sometrue([1, 0])", "np.any([1, 0])", "np_removed_alias", lambda v: bool(v)),
    ("np.trapz([1.0, 2.0, 3.0])", "np.trapezoid([1.0, 2.0, 3.0])", "np_removed_alias", lambda v: v == 4.0),
    ("np.row_stack([[1], [2]])", "np.vstack([[1], [2]])", "np_removed_alias", lambda v: v.shape == (2, 1)),
    ("np.issubsctype(np.float32, np.floating)", "np.issubdtype(np.float32, np.floating)", "np_removed_alias",
     lambda v: v is True),
    ("np.mat([[1, 2]])", "np.asmatrix([[1, 2]])", "np_removed_alias", lambda v: v.shape == (1, 2)),
    ("np.typeDict['float32']", "np.sctypeDict['float32']", "np_removed_alias", lambda v: v is onp.float32),
    ("np.asscalar(np.array([4]))", "np.array([4]).item()", "np_asscalar",
     lambda v: v == 4 and type(v) is int),
    ("np.asscalar(a + 1)", "(a + 1).item()", "np_asscalar", lambda v: v == 3.0 and type(v) is float),
    ("np.msort(np.array([[3, 1], [1, 2]]))", "np.sort(np.array([[3, 1], [1, 2]]), axis=0)", "np_removed_call",
     lambda v: v.tolist() == [[1, 1], [3, 2]]),
    ("np.in1d([[1, 2], [3, 4]], [2, 3])", "np.isin([[1, 2], [3, 4]], [2, 3]).ravel()", "np_removed_call",
     lambda v: v.tolist() == [False, True, True, False]),
    ("np.asfarray(a)", "np.asarray(a, dtype=np.float64)", "np_removed_call",
     lambda v: v.dtype == onp.float64),
    ("np.alen([[1], [2], [3]])", "len([[1], [2], [3]])", "np_removed_call", lambda v: v == 3),
    ("np.rank([[1, 2]])", "np.ndim([[1, 2]])", "np_removed_call", lambda v: v == 2),
    ("np.issubclass_(np.float32, np.floating)", "issubclass(np.float32, np.floating)", "np_removed_call",
     lambda v: v is True),
    ("np.fromstring(b'\\x01\\xff', dtype=np.int8)", "np.frombuffer(b'\\x01\\xff', dtype=np.int8).copy()",
     "np_removed_call", lambda v: v.tolist() == [1, -1] and v.flags.writeable),
]


def run(source: str) -> dict:
    namespace = {"a": onp.array([2.0], onp.float32)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix
        exec(compile(source, "case.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize(("src", "ported", "rule", "check"), CASES, ids=[c[0].split("(")[0] for c in CASES])
def test_each_removed_name(src, ported, rule, check):
    report = Report()
    out = port_source(f"{HEAD}v = {src}\n", "case.py", report)
    assert out == f"{PORTED_HEAD}v = {ported}\n"
    assert report.counts[rule] == 1 and sum(report.counts.values()) == 2  # and the mxnet import
    assert check(run(out.replace(PORTED_HEAD, "import numpy as np\n"))["v"])
    with warnings.catch_warnings(record=True) as caught:  # the original, under NumPy 2
        warnings.simplefilter("always")
        try:
            broken = not check(run(f"import numpy as np\nv = {src}\n")["v"])
        except (AttributeError, ValueError):  # ValueError: fromstring's binary mode
            broken = True
    assert broken or any(issubclass(w.category, DeprecationWarning) for w in caught)  # row_stack < 2.5
    assert port_source(out, "case.py") == out  # idempotent


def test_only_where_np_is_numpy():
    src = ("import mxnet as mx\nfrom mxnet import np\nimport numpy\nimport numpy as onp\n"
           "a = np.float\nb = numpy.float\nc = onp.bool8\nd = mx.np.float\n")
    assert port_source(src) == ("import framework as mx\nfrom framework import np\nimport numpy\n"
                                "import numpy as onp\na = np.float\nb = float\nc = onp.bool_\n"
                                "d = mx.np.float\n")
    plain = "import numpy as np\nx = np.float\n"  # no mxnet import: the porter leaves the file alone
    assert port_source(plain) == plain


def test_assignments_and_deletions_are_left_alone():
    src = f"{HEAD}np.float = float\nnp.int = np.int64\ndel np.bool\nx = np.float\n"
    assert port_source(src) == f"{PORTED_HEAD}np.float = float\nnp.int = np.int64\ndel np.bool\nx = float\n"


def test_negative_constants_are_parenthesised_where_needed():
    src = f"{HEAD}a = np.NINF\nb = f(np.NINF, k=np.NZERO)\nc = x * np.NINF\nd = [np.NINF]\ne = -np.NINF\n"
    assert port_source(src) == (f"{PORTED_HEAD}a = -np.inf\nb = f(-np.inf, k=-0.0)\nc = x * (-np.inf)\n"
                                "d = [-np.inf]\ne = -(-np.inf)\n")


def test_names_without_a_one_to_one_replacement_are_reported_with_the_fix():
    report = Report()
    src = (f"{HEAD}x = np.asarray([1])\n"
           "y = np.cast['float32'](x)\n"
           "t = np.find_common_type([np.float32], [])\n"
           "z = np.asscalar(x, 0)\n"
           "w = onp_like = np.sctypes\n")
    assert port_source(src, "legacy.py", report) == src.replace("mxnet", "framework")
    got = {(u.line, u.code, u.fix) for u in report.unported}
    assert got == {
        (4, "np.cast", "np.asarray(x, dtype=dtype) (np.cast[dtype](x) before)"),
        (5, "np.find_common_type([np.float32], [])",
         "np.result_type(*array_types, *scalar_types) or np.promote_types(a, b)"),
        (6, "np.asscalar(x, 0)", "a.item()"),
        (7, "np.sctypes", "name the dtypes explicitly"),
    }
    assert all("NumPy 2 has no np." in u.why for u in report.unported)
    text = report.format()
    assert "legacy.py:5: np.find_common_type([np.float32], [])" in text


def test_the_report_counts_each_rule():
    report = Report()
    port_source(f"{HEAD}a = np.float\nb = np.bool8\nc = np.asscalar(x)\nd = np.msort(x)\ne = np.int\n",
                "r.py", report)
    assert {k: v for k, v in report.counts.items() if k.startswith("np_")} == {
        "np_builtin_alias": 2, "np_removed_alias": 1, "np_asscalar": 1, "np_removed_call": 1}
    text = report.format()
    assert "  np_builtin_alias     2  np.float / int / bool / object / complex / str / long / unicode -> " \
           "the builtin" in text


def test_a_script_using_the_old_names_runs_under_framework_run(tmp_path):
    """What failed before (``module 'numpy' has no attribute 'float'``), end to end."""
    (tmp_path / "old_numpy.py").write_text(
        "import mxnet as mx\nimport numpy as np\n"
        "boxes = np.array([[1.2, 2.7]], dtype=np.float)\n"
        "keep = np.ones(1, dtype=np.bool)\n"
        "print(np.asscalar(boxes.astype(np.int).sum()), keep.dtype, np.NaN != np.NaN)\n")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.fspath(root))
    out = subprocess.run([sys.executable, "-m", "framework.run", "old_numpy.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout == "3 bool True\n"
