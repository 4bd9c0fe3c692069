"""The record of one MXNet operator's signature, the entries of the generated table
``framework/symbol/_signatures.py``.

>>> compact("Concat", "", "dim num_args", "num_args")
Signature(op='Concat', inputs=(), params=('dim', 'num_args'), var='num_args')
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Signature", "compact"]


class Signature(NamedTuple):
    """``op``: the operator written into graphs; ``inputs``/``params``: names in MXNet's order;
    ``var``: the attribute counting variadic inputs ('' when the inputs are fixed, '*' when variadic
    inputs are not counted by an attribute)."""

    op: str
    inputs: tuple[str, ...]
    params: tuple[str, ...]
    var: str


def compact(op: str, inputs: str, params: str, var: str = "") -> Signature:
    """A Signature from space-separated name lists (the generated table's compact spelling)."""
    return Signature(op, tuple(inputs.split()), tuple(params.split()), var)
