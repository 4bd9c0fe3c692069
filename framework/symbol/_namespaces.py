"""Which operator names go where: ``mx.sym.<name>`` (public names), ``mx.sym._internal`` (names starting
with ``_``), ``mx.sym.contrib`` (``_contrib_<name>``), ``mx.sym.linalg`` (``_linalg_<name>``) and
``mx.sym.random`` (``_random_<name>``), as MXNet 1.9.1 arranges its generated functions.

>>> functions('contrib')['box_nms'].__name__
'box_nms'
>>> 'FullyConnected' in functions('') and '_Plus' in functions('_internal')
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ._opfuncs import make_op
from ._signatures import SIGNATURES

__all__ = ["functions"]

_PREFIX = {"contrib": "_contrib_", "linalg": "_linalg_", "random": "_random_"}


@functools.cache
def functions(space: str) -> dict[str, Callable]:
    """The operator functions of one namespace ('' for ``mx.sym`` itself), by the name offered there."""
    out = {}
    for name in SIGNATURES:
        if space == "":
            if not name.startswith("_"):
                out[name] = make_op(name)
        elif space == "_internal":
            if name.startswith("_"):
                out[name] = make_op(name)
        elif name.startswith(_PREFIX[space]):
            short = name[len(_PREFIX[space]):]
            out[short] = make_op(name, short)
    return out
