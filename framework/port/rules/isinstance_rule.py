"""``isinstance(x, mx.nd.NDArray)`` (and ``nd.NDArray``, ``mx.np.ndarray``, inside tuples too) ->
``isinstance(x, npx.NDArray)``, which is true for a ``jax.Array``, a Variable and a recorded value."""

from __future__ import annotations

import libcst as cst

from ._base import Rule

__all__ = ["IsinstanceRule"]

_ARRAY_TYPES = {"framework.nd.NDArray", "framework.nd.ndarray.NDArray", "framework.np.ndarray",
                "framework.nd.ndarray"}


class IsinstanceRule(Rule):
    def _swap(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, cst.Tuple):
            return node.with_changes(elements=[e.with_changes(value=self._swap(e.value))
                                               for e in node.elements])
        if self.info.resolve(node) in _ARRAY_TYPES:
            self.count("isinstance")
            return cst.Attribute(value=self.ns("npx"), attr=cst.Name("NDArray"), lpar=node.lpar,
                                 rpar=node.rpar)
        return node

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not (isinstance(updated.func, cst.Name) and updated.func.value in ("isinstance", "issubclass")):
            return updated
        if len(updated.args) != 2:
            return updated
        second = updated.args[1]
        new = self._swap(second.value)
        return updated if new is second.value else updated.with_changes(
            args=[updated.args[0], second.with_changes(value=new)])
