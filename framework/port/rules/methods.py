"""NDArray methods that ``jax.Array`` lacks -> ``npx`` functions: ``x.asnumpy()`` -> ``npx.asnumpy(x)``,
``asscalar``, ``wait_to_read``, ``as_in_context``/``as_in_ctx``, ``copyto``; ``as_np_ndarray()`` /
``as_nd_ndarray()`` are dropped (one array type here). Inside f-strings and ``%`` formats too.

Star arguments are passed along (``x.asnumpy(*args, **kwargs)`` -> ``npx.asnumpy(x, *args, **kwargs)``,
as in a helper that forwards whatever it is given).

``x.copyto(t)`` as a statement (its value unused) was MXNet's in-place copy into ``t``: it becomes
``t = npx.copy_into(x, t)``, which leaves a device as it is, updates a Variable in place and rebinds an
immutable array; where ``t`` is visibly a device (``mx.gpu(1)``, a name assigned one) it stays
``npx.copyto(x, t)``. Inside an expression, a copy into a name the module made as an array becomes
``(t := npx.copy_into(x, t))``, so ``t`` sees the copy as it did in MXNet; into anything else it is
``npx.copyto(x, t)`` (right for devices and Variables; a plain array target keeps its old value)."""

from __future__ import annotations

import libcst as cst

from ._base import Rule, assignable, plain_args, strip_comma

__all__ = ["MethodsRule"]

_NO_ARG = {"asnumpy": "asnumpy", "asscalar": "asscalar", "wait_to_read": "wait_to_read"}
_ONE_ARG = {"as_in_context": "as_in_context", "as_in_ctx": "as_in_context", "copyto": "copyto"}
_DROP = ("as_np_ndarray", "as_nd_ndarray")


class MethodsRule(Rule):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._statement_copies: set[int] = set()

    def _method(self, call: cst.Call) -> str | None:
        func = call.func
        if not isinstance(func, cst.Attribute) or self.is_module_ref(func.value):
            return None
        name = func.attr.value
        if (name in _NO_ARG or name in _DROP) and not call.args:
            return name
        if name in _ONE_ARG and plain_args(call, 1):
            return name
        if (name in _NO_ARG or name in _ONE_ARG) and call.args and all(a.star for a in call.args):
            return name  # passed through: `lambda x, *args, **kwargs: x.asnumpy(*args, **kwargs)`
        return None

    def _is_device(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            path = self.info.resolve(node.func) or ""
            last = path.rsplit(".", 1)[-1]
            return path.startswith("framework") and last in ("cpu", "gpu", "Context", "Device", "cpu_pinned")
        return isinstance(node, cst.Name) and node.value in self.info.devices

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and self._method(call) == "copyto":
            target = call.args[0].value
            if not self._is_device(target) and assignable(target):
                self._statement_copies.add(id(call))
            elif not self._is_device(target):
                self.unported(node, "a copy into the array a call returns is lost (jax arrays are immutable)",
                              "assign the copy where it belongs, e.g. param.set_data(x) for a Parameter")

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        if id(original.value) not in self._statement_copies:
            return updated
        call = updated.value
        assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
        target = call.args[0].value
        self.count("copyto")
        value = self.call("npx", "copy_into", call.func.value, target)
        return cst.Assign(targets=[cst.AssignTarget(target=target)], value=value, semicolon=updated.semicolon)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = self._method(updated)
        if name is None or id(original) in self._statement_copies:
            return updated
        receiver = updated.func.value  # type: ignore[attr-defined]
        if name in _DROP:
            self.count("as_np_ndarray")
            return receiver.with_changes(lpar=[*updated.lpar, *receiver.lpar],
                                         rpar=[*receiver.rpar, *updated.rpar]) if updated.lpar else receiver
        if updated.args and all(a.star for a in updated.args):
            target = _NO_ARG.get(name) or _ONE_ARG[name]
            self.count(target)
            out = self.call("npx", target, receiver, *updated.args)
        elif name in _NO_ARG:
            self.count(name)
            out = self.call("npx", _NO_ARG[name], receiver)
        else:
            target = _ONE_ARG[name]
            self.count(target)
            arg = updated.args[0].value
            if target == "copyto" and isinstance(arg, cst.Name) and arg.value in self.info.arrays:
                call = self.call("npx", "copy_into", receiver, arg)
                return cst.NamedExpr(target=arg, value=call, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            out = self.call("npx", target, receiver, strip_comma(updated.args[0]))
        return out.with_changes(lpar=updated.lpar, rpar=updated.rpar)
