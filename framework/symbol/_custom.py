"""MXNet's ``Custom`` graph node: a user-defined operator (:mod:`framework.operator`) in a graph; the
function ``mx.sym.Custom`` that makes one is :mod:`._custom_node`'s.

The node's operator is ``Custom``; its attributes are ``op_type`` and the operator's own keyword
arguments (text, as MXNet passes them to the ``CustomOpProp``). The registered ``CustomOpProp`` says
what the node takes (``list_arguments`` then ``list_auxiliary_states``), what it gives
(``list_outputs``, named ``<node>_<output>``) and the shapes of inputs left unknown (``infer_shape``):
an input not given becomes the variable ``<node>_<argument>``. The interpreter runs the operator's
``forward``, and the auxiliary states it changes are the node's state updates.

>>> import framework as mx
>>> class Twice(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * in_data[1])
>>> @mx.operator.register("twice_doc")
... class TwiceProp(mx.operator.CustomOpProp):
...     def list_arguments(self):
...         return ["data", "scale"]
...     def infer_shape(self, in_shape):
...         return [in_shape[0], [1]], [in_shape[0]], []
...     def create_operator(self, ctx, shapes, dtypes):
...         return Twice()
>>> s = mx.sym.Custom(mx.sym.var("data"), op_type="twice_doc", name="t")
>>> s.list_arguments(), s.list_outputs()
(['data', 't_scale'], ['t_output'])
>>> s.infer_shape(data=(2, 3))[0]
[(2, 3), (1,)]
"""

from __future__ import annotations

from typing import Any

from ._attrs import Attrs
from ._registry import Call, register

__all__ = ["prop_of", "aux_positions", "custom_outputs", "custom_input_shapes"]


def prop_of(raw: dict[str, str]) -> Any:
    """The ``CustomOpProp`` of a ``Custom`` node with attributes ``raw``."""
    from ..operator import custom_prop

    attrs = {k: v for k, v in raw.items() if not k.startswith("__")}
    op_type = attrs.pop("op_type", None)
    if op_type is None:
        raise ValueError("a Custom node needs the attribute op_type (the registered operator's name)")
    return custom_prop(op_type, attrs)


def aux_positions(raw: dict[str, str]) -> tuple[int, ...]:
    """The input positions of a ``Custom`` node that are auxiliary states."""
    prop = prop_of(raw)
    n_args = len(prop.list_arguments())
    return tuple(range(n_args, n_args + len(prop.list_auxiliary_states())))


def custom_outputs(raw: dict[str, str]) -> list[str]:
    """The names the operator gives its outputs (``list_outputs``)."""
    return list(prop_of(raw).list_outputs())


def custom_input_shapes(raw: dict[str, str], shapes: list[tuple | None]) -> list[tuple | None]:
    """Every input's shape as the operator's ``infer_shape`` gives it from the inputs' known shapes
    (unknown ones are passed as ``()``, as MXNet does), arguments then auxiliary states."""
    prop = prop_of(raw)
    n_args = len(prop.list_arguments())
    in_shapes, _, aux_shapes = prop.infer_shape([list(s) if s is not None else [] for s in shapes[:n_args]])
    return [tuple(int(d) for d in s) if s is not None else None for s in [*in_shapes, *aux_shapes]]


def _run(c: Call, xs: list[Any], a: Attrs) -> list[Any]:
    from ..operator import apply_custom

    raw = dict(a.raw)
    op_type = raw.pop("op_type")
    res = apply_custom(op_type, raw, xs, c.training)
    n_args = len(xs) - len(res.aux)
    for i in range(len(res.aux)) if res.aux_written is None else res.aux_written:
        c.updates[n_args + i] = res.aux[i]
    return res.outputs


register("Custom", outputs=lambda a: len(custom_outputs(a.raw)), aux=lambda a: aux_positions(a.raw))(_run)

