"""Array devices: ``x.context`` / ``x.ctx`` -> ``npx.context_of(x)``, ``ctx.device_type`` ->
``npx.device_type(ctx)``, ``ctx.device_id`` -> ``npx.device_id(ctx)`` (a context is a ``jax.Device``,
which has none of these attributes), and ``with ctx:`` / ``with mx.gpu(1):`` (a default-device scope)
-> ``with mx.device_scope(ctx):`` (a ``jax.Device`` is no context manager).

Left alone: attributes of modules (``mx.context``), of ``self``/``cls`` and argparse-like objects
(``args.ctx``; but ``self.mean.ctx`` is ported where the module assigns ``self.mean`` MXNet arrays and
nothing visibly else), of names holding devices, containers or other libraries' values, and attributes
the code assigns to."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from .._analysis import DEVICE_FUNCS, dotted, root_name
from ._base import ARGPARSE_LIKE, Rule

__all__ = ["ContextRule"]


class ContextRule(Rule):

    def _receiver_ok(self, node: cst.Attribute, *, device: bool) -> bool:
        receiver = node.value
        if self.is_module_ref(receiver):
            return False
        root = root_name(receiver)
        if root in ARGPARSE_LIKE and dotted(receiver) not in self.info.array_attrs:
            return False
        info = self.info
        if isinstance(receiver, cst.Name) and receiver.value in (
                info.containers | info.foreign | (set() if device else info.devices)):
            return False
        name = dotted(node)
        if name is not None and name in info.assigned_attrs:
            return False
        return self.meta(ExpressionContextProvider, node, ExpressionContext.LOAD) \
            == ExpressionContext.LOAD

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        attr = updated.attr.value
        if attr in ("context", "ctx") and self._receiver_ok(original, device=False):
            self.count("context")
            return self.call("npx", "context_of", updated.value).with_changes(lpar=updated.lpar,
                                                                             rpar=updated.rpar)
        if attr in ("device_type", "device_id") and self._receiver_ok(original, device=True):
            self.count("context")
            return self.call("npx", attr, updated.value).with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return updated

    def _is_device(self, expr: cst.BaseExpression) -> bool:
        """A name known to hold a device, or a call of MXNet's device constructors (``mx.cpu(0)``)."""
        if isinstance(expr, cst.Name):
            return expr.value in self.info.devices
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            return expr.func.attr.value in DEVICE_FUNCS and self.is_module_ref(expr.func.value)
        return False

    def leave_WithItem(self, original: cst.WithItem, updated: cst.WithItem) -> cst.WithItem:
        if not self._is_device(original.item):
            return updated
        self.count("context")
        scope = cst.Call(func=self.ns("device_scope"), args=[cst.Arg(updated.item)])
        return updated.with_changes(item=scope)
