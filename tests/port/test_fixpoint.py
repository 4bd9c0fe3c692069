"""A port is a fixpoint: porting a ported module again changes nothing (tools/port_corpus_check.py
checks it over GluonCV and MXNet's examples). Each case is a shape of code where a rewrite used to
change what a second port saw: the forms the porter writes (``npx.asnumpy(x)``, ``x = npx.setitem(x,
...)``) taken as new evidence about a name, ``from mxnet import ndarray as nd`` read as
``framework.ndarray``, a name that is a NumPy array in one function and an nd result in another, and a
write through a subscript (``a[i][j] = v``), which ran the arrays rule on its inner read."""

from __future__ import annotations

import numpy as np
import pytest

from framework.port import port_source

CASES = {
    "numpy_result": """import mxnet as mx
import numpy as np


def grad(x, labels):
    y = x.asnumpy()
    y[np.arange(2), labels] -= 1.0
    return y


def blank():
    y = np.zeros(3)
    return y
""",
    "ndarray_alias": """from mxnet import ndarray as nd


def is_array(x):
    return isinstance(x, nd.NDArray)
""",
    "mixed_name": """import mxnet as mx
import numpy as np
from mxnet.gluon import nn


def tile(image):
    output = np.zeros((4, 4))
    output[0:2, 0:2] = image
    return output


class D(nn.Block):
    def __init__(self):
        super().__init__()
        self.main = nn.Dense(4)

    def forward(self, x):
        output = self.main(x)
        output = output.mean(axis=0)
        return output
""",
    "nested": """import mxnet as mx

rows = mx.nd.zeros((2, 3))
rows[0][1:] = 5
""",
    "written_then_read": """import mxnet as mx


def copy(p, q):
    new = p.data()
    old = q.data()
    new[1] = old[2]
    new[0:1] = old[0:1]
    return new
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_second_port_changes_nothing(name):
    once = port_source(CASES[name], f"{name}.py")
    assert once != CASES[name]
    assert port_source(once, f"{name}.py") == once


def test_what_the_first_port_makes_of_each_case():
    ported = {name: port_source(src, f"{name}.py") for name, src in CASES.items()}
    # y is a NumPy array (asnumpy's result): its subscript write stays NumPy's
    assert "    y[np.arange(2), labels] -= 1.0\n" in ported["numpy_result"]
    assert "isinstance(x, npx.NDArray)" in ported["ndarray_alias"]
    assert "mx.nd.mean(output, axis=0)" in ported["mixed_name"]
    scope: dict = {}
    exec(compile(ported["mixed_name"], "mixed_name.py", "exec"), scope)  # noqa: S102
    tiled = scope["tile"](np.ones((2, 2)))  # the NumPy array written in place, whichever form
    assert isinstance(tiled, np.ndarray) and tiled.sum() == 4 and tiled[:2, :2].tolist() == [[1, 1], [1, 1]]


def test_a_write_through_a_subscript_changes_the_array():
    """MXNet 1.9.1: ``rows[0][1:] = 5`` writes through the view ``rows[0]``: [[0, 5, 5], [0, 0, 0]]."""
    scope: dict = {}
    exec(compile(port_source(CASES["nested"], "nested.py"), "nested.py", "exec"), scope)  # noqa: S102
    assert scope["rows"].tolist() == [[0.0, 5.0, 5.0], [0.0, 0.0, 0.0]]
