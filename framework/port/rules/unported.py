"""Report-only: MXNet constructs the porter recognises but cannot rewrite safely, each with the manual
change to make. It runs first, on the unchanged source, so line numbers are the file's own."""

from __future__ import annotations

import libcst as cst

from .._analysis import root_name
from ._base import Rule

__all__ = ["UnportedScan"]

# NDArray methods that jax.Array does not have (or has with other semantics): why, fix ({x} = receiver)
_METHODS: dict[str, tuple[str, str]] = {
    "tostype": ("sparse storage types are not supported",
                "drop .tostype('default'); rewrite sparse code densely"),
    "norm": ("jax.Array has no norm method", "np.linalg.norm({x})"),
    "broadcast_to": ("jax.Array has no broadcast_to method", "np.broadcast_to({x}, shape)"),
    "broadcast_like": ("jax.Array has no broadcast_like method", "np.broadcast_to({x}, other.shape)"),
    "expand_dims": ("jax.Array has no expand_dims method", "np.expand_dims({x}, axis)"),
    "softmax": ("jax.Array has no softmax method", "npx.softmax({x})"),
    "log_softmax": ("jax.Array has no log_softmax method", "npx.log_softmax({x})"),
    "relu": ("jax.Array has no relu method", "npx.relu({x})"),
    "sigmoid": ("jax.Array has no sigmoid method", "npx.sigmoid({x})"),
    "tanh": ("jax.Array has no tanh method", "np.tanh({x})"),
    "exp": ("jax.Array has no exp method", "np.exp({x})"),
    "log": ("jax.Array has no log method", "np.log({x})"),
    "sqrt": ("jax.Array has no sqrt method", "np.sqrt({x})"),
    "square": ("jax.Array has no square method", "np.square({x})"),
    "abs": ("jax.Array has no abs method", "np.abs({x})"),
    "one_hot": ("jax.Array has no one_hot method", "npx.one_hot({x}, depth)"),
    "topk": ("jax.Array has no topk method", "npx.topk({x}, k=...)"),
    "zeros_like": ("jax.Array has no zeros_like method", "np.zeros_like({x})"),
    "ones_like": ("jax.Array has no ones_like method", "np.ones_like({x})"),
    "slice_axis": ("jax.Array has no slice_axis method", "index it: {x}[:, begin:end]"),
    "split": ("jax.Array has no split method", "np.split({x}, n, axis)"),
    "tile": ("jax.Array has no tile method", "np.tile({x}, reps)"),
    "wait_to_write": ("jax arrays are never written in place", "drop the call (npx.wait_to_read({x}) waits)"),
    "asnd": ("no legacy array type here", "drop the call"),
}
# names no other common library uses for a method: reported whatever the receiver
_UNIQUE = {"tostype", "broadcast_like", "slice_axis", "wait_to_write", "asnd", "norm", "topk", "zeros_like",
           "ones_like", "expand_dims", "broadcast_to", "one_hot"}
# calls whose result is an array
_ARRAY_METHODS = {"as_in_context", "as_in_ctx", "copyto", "astype", "reshape", "sum", "mean", "max", "min"}
_LEGACY_FLATTEN = ("mx.nd's flatten keeps the first axis ((N, -1)); jax.Array.flatten() makes a 1-d array",
                   "{x}.reshape({x}.shape[0], -1)")


class UnportedScan(Rule):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._legacy_nd = any(path == "framework.nd" or path.startswith("framework.nd.")
                              for path in ctx.info.aliases.values()) or any(
            path == "framework" for path in ctx.info.aliases.values())

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or self.is_module_ref(func.value):
            return
        root = root_name(func.value)
        if root in self.info.foreign or root in self.info.containers or root == "F":
            return  # F: the operator namespace of a 1.x hybrid_forward
        name = func.attr.value
        x = self.ctx.module.code_for_node(func.value)
        receiver = func.value
        known_array = root in self.info.arrays or (self.info.is_mx_module(root) and not isinstance(
            receiver, (cst.Name, cst.Attribute))) or (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute)
            and receiver.func.attr.value in _ARRAY_METHODS and root not in self.info.aliases)
        if name in _METHODS and (known_array or name in _UNIQUE):
            why, fix = _METHODS[name]
            self.unported(node, why, fix.format(x=x))
        elif name == "flatten" and not node.args and self._legacy_nd and known_array:
            why, fix = _LEGACY_FLATTEN
            self.unported(node, why, fix.format(x=x))
