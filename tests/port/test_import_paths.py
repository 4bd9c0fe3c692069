"""No rule rewrites a module path inside ``import`` / ``from ... import`` (defect 9), and every ported
module is compiled before it is returned: a rule that makes broken code is named with the file and line."""

from __future__ import annotations

import libcst as cst
import pytest

from framework.port import _porter, port_source
from framework.port._porter import PortError
from framework.port.rules import ORDER

# For each rule: import statements whose dotted paths hold the names that rule rewrites elsewhere.
CASES = {
    "UnportedScan": ["from pkg.mx.nd import norm", "import pkg.mx.nd.contrib as c"],
    "ImportsRule": ["from pkg.mxnet import gluon", "import pkg.mxnet.nd as nd2", "from mxnetlike import x"],
    "IsinstanceRule": ["from pkg.mx.nd import NDArray", "import pkg.mx.nd.NDArray as A"],
    "ContextRule": ["from pkg.mx.context import get_ctx", "import pkg.mx.context as c", "import a.ctx",
                    "from a.b.device_type import f", "import q.device_id"],
    "MethodsRule": ["from pkg.asnumpy import f", "import pkg.x.copyto as c", "from .as_in_context import g"],
    "SetitemRule": ["from pkg.mx.setitem import s", "import pkg.mx.nd as x"],
    "AttachGradRule": ["from pkg.attach_grad import a", "import pkg.mx.attach_grad as ag"],
    "NumpyAliasRule": ["import numpy.float_ as f", "from numpy.bool8 import b", "import numpy.NINF"],
    "VersionRule": ["from pkg.mx import __version__", "import pkg.mx.__version__ as v",
                    "import pkg.mxnet.__version__ as v"],
    "ArraysRule": ["from pkg.mx.nd import reshape", "import pkg.x.expand_dims as e"],
    "OutArgRule": ["from pkg.mx.nd import sigmoid", "import pkg.out as out"],
    "GetitemRule": ["from pkg.range import array", "import pkg.mx.getitem as g", "from pkg.range import r",
                    "import pkg.mx.nd as idx",
                    "from pkg.mx.getitem import g", "import pkg.array.tensor as t"],
    "ScalarsRule": ["from pkg.float import int", "import pkg.int.float as f", "from pkg.float import f",
                    "import pkg.int as i",
                    "import pkg.mx.float as f"],
}


def test_every_rule_has_a_case():
    assert {r.__name__ for r in ORDER} == set(CASES)


@pytest.mark.parametrize("rule,line", [(r, line) for r, lines in CASES.items() for line in lines])
def test_import_statement_paths_are_never_rewritten(rule, line):
    src = f"import mxnet as mx\n{line}\nx = mx.nd.ones(2)\nprint(x.asnumpy(), x.context)\n"
    out = port_source(src, "m.py")
    assert out.splitlines()[1] == line, out
    compile(out, "m.py", "exec")
    assert port_source(out, "m.py") == out  # a second port changes nothing


def test_the_reported_case_compiles():
    src = ("import mxnet as mx\nfrom pkg.mx.context import get_ctx\nimport pkg.mx.context as c\n"
           "ctx = get_ctx()\ny = c.ctx\n")
    out = port_source(src, "lib.py")
    assert "from pkg.mx.context import get_ctx\nimport pkg.mx.context as c\n" in out
    compile(out, "lib.py", "exec")


class _Broken(cst.CSTTransformer):
    """A rule with a bug: ``x = 1`` -> ``x() = 1`` (libcst does not check assignment targets)."""

    def __init__(self, ctx):
        super().__init__()

    def leave_AssignTarget(self, original, updated):
        return updated.with_changes(target=cst.Call(func=updated.target))


class _Raises(cst.CSTTransformer):
    def __init__(self, ctx):
        super().__init__()

    def leave_Name(self, original, updated):
        raise RuntimeError("bug in a rule")


def test_a_rule_that_makes_code_that_does_not_compile_is_named(monkeypatch):
    monkeypatch.setattr(_porter, "ORDER", (*ORDER, _Broken))
    with pytest.raises(PortError, match=r"pkg/m\.py:3: the porter's rule '_Broken' made code that does not "
                                        r"compile") as e:
        port_source("import mxnet as mx\n\nx = 1\n", "pkg/m.py")
    assert isinstance(e.value, SyntaxError) and e.value.filename == "pkg/m.py" and e.value.lineno == 3


def test_a_rule_that_raises_is_named(monkeypatch):
    monkeypatch.setattr(_porter, "ORDER", (*ORDER, _Raises))
    with pytest.raises(PortError, match="_Raises.*RuntimeError: bug in a rule"):
        port_source("import mxnet as mx\nx = 1\n", "m.py")


def test_write_leaves_the_source_when_a_rule_breaks_it(monkeypatch, tmp_path, capsys):
    from framework.port.__main__ import main

    monkeypatch.setattr(_porter, "ORDER", (*ORDER, _Broken))
    (tmp_path / "m.py").write_text("import mxnet as mx\nx = 1\n")
    assert main([str(tmp_path), "--write"]) == 2
    assert (tmp_path / "m.py").read_text() == "import mxnet as mx\nx = 1\n"
    assert "m.py:2: the porter's rule '_Broken'" in capsys.readouterr().err
