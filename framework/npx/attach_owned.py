"""``for p in owner.params(): p.attach_grad()`` where the arrays are attributes of ``owner``.

MXNet's ``attach_grad`` changes an array in place, so attaching gradients to the arrays a helper
returns (d2l's ``for param in self.get_scratch_params(): param.attach_grad()``) reaches the attributes
that hold them. A ``jax.Array`` cannot change: :func:`attach_grad_attributes` makes each one a Variable
and puts it wherever ``owner``'s attributes held the array -- on ``owner`` and, recursively, on the
objects its attributes hold (a model's sub-modules) -- then returns the Variables. The porter writes it
for such a loop.

>>> from framework import np, npx
>>> class Model:
...     def __init__(self):
...         self.w, self.b = np.ones(2), np.zeros(1)
...     def params(self):
...         return [self.w, self.b]
>>> m = Model()
>>> _ = npx.attach_grad_attributes(m, m.params())
>>> type(m.w).__name__, m.w.grad.tolist()
('Variable', [0.0, 0.0])
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any

from ..autograd.variable import Variable, attach_grad

__all__ = ["attach_grad_attributes"]


def attach_grad_attributes(owner: Any, arrays: Iterable[Any], grad_req: str = "write") -> list[Variable]:
    """Attach gradients to ``arrays`` and rebind the attributes of ``owner`` (recursively) that held them."""
    arrays = list(arrays)
    made = {id(a): attach_grad(a, grad_req=grad_req) for a in arrays}
    seen: set[int] = set()
    todo = [owner]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType)):
            continue
        seen.add(id(obj))
        attrs = getattr(obj, "__dict__", None)
        if not isinstance(attrs, dict):
            continue
        for name, value in list(attrs.items()):
            if id(value) in made:
                setattr(obj, name, made[id(value)])
            elif hasattr(value, "__dict__") and not isinstance(value, Variable):
                todo.append(value)
    return [made[id(a)] for a in arrays]
