"""Array devices: ``x.context`` / ``x.ctx`` -> ``npx.context_of(x)``, ``ctx.device_type`` ->
``npx.device_type(ctx)``, ``ctx.device_id`` -> ``npx.device_id(ctx)`` (a context is a ``jax.Device``,
which has none of these attributes).

Left alone: attributes of modules (``mx.context``), of ``self``/``cls`` and argparse-like objects
(``args.ctx``), of names holding devices, containers or other libraries' values, and attributes the code
assigns to."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from .._analysis import dotted, root_name
from ._base import ARGPARSE_LIKE, Rule

__all__ = ["ContextRule"]


class ContextRule(Rule):
    METADATA_DEPENDENCIES = (*Rule.METADATA_DEPENDENCIES, ExpressionContextProvider)

    def _receiver_ok(self, node: cst.Attribute, *, device: bool) -> bool:
        receiver = node.value
        if self.is_module_ref(receiver):
            return False
        root = root_name(receiver)
        if root in ARGPARSE_LIKE:
            return False
        info = self.info
        if isinstance(receiver, cst.Name) and receiver.value in (
                info.containers | info.foreign | (set() if device else info.devices)):
            return False
        name = dotted(node)
        if name is not None and name in info.assigned_attrs:
            return False
        return self.get_metadata(ExpressionContextProvider, node, ExpressionContext.LOAD) \
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
