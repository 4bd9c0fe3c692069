"""Values made by a user's own helper module (``from d2l import mxnet as d2l``: its functions return
MXNet arrays) are not taken for another library's: the array rules still apply to them; values of NumPy
and other known libraries stay untouched."""

from framework.port import port_source

SRC = """from mxnet import np, npx
from mytools import mxnet as helpers
import numpy as onp

X = helpers.ones((2, 3))
where = X.ctx
X[:] = 1
b = onp.zeros(3)
b[:] = 2
where_b = b.ctx
"""


def test_helper_values_are_ported_numpy_values_are_not():
    out = port_source(SRC, "m.py").splitlines()
    assert "where = npx.context_of(X)" in out
    assert "X = npx.setitem(X, slice(None), 1)" in out
    assert "b[:] = 2" in out and "where_b = b.ctx" in out
