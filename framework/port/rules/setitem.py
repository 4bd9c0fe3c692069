"""Subscript assignment on arrays: ``x[i] = v`` -> ``x = npx.setitem(x, i, v)`` and ``x[i] += v`` ->
``x = npx.setitem(x, i, x[i] + v)``. ``npx.setitem`` changes a Variable (or a NumPy array, list, dict)
in place and returns it, and returns the updated copy of an immutable ``jax.Array``, so the rewrite is
right whatever ``x`` holds; it is applied where ``x`` looks like an array: the index has a slice, an
``...``, ``None`` or several axes (``x[:]``, ``x[1, 2]``), or ``x`` is a name the module makes with
``nd``/``np``/``npx``, with any array-making function (``c = helpers.zeros(n)``) or uses as an array.
Plain ``d[key] = v`` on anything else, and ``seq[:] = [...]``
(a list), are left alone.
A write into a Parameter's data, ``p.data()[i] = v`` (MXNet's ``data()`` is the parameter's own
storage), becomes ``p.set_data(npx.setitem(p.data(), i, v))``; other assignments into a call's result
(``p.grad()[:] = v``) are reported with the fix."""

from __future__ import annotations

import libcst as cst

from .._analysis import PORTED_FORMS
from ._base import Rule

__all__ = ["SetitemRule"]


def _index_expr(sub: cst.Subscript) -> cst.BaseExpression | None:
    """The index of ``x[...]`` as an ordinary expression (slices as ``slice(...)`` calls)."""
    parts: list[cst.BaseExpression] = []
    for el in sub.slice:
        s = el.slice
        if isinstance(s, cst.Index):
            if s.star is not None:
                return None
            parts.append(s.value)
        else:
            bounds = [s.lower, s.upper] + ([s.step] if s.step is not None else [])
            if bounds == [None, None]:
                bounds = [None]  # slice(None); never slice(lower) alone, which means slice(None, lower)
            parts.append(cst.Call(func=cst.Name("slice"),
                                  args=[cst.Arg(b if b is not None else cst.Name("None")) for b in bounds]))
    if len(parts) == 1 and sub.slice[0].comma is cst.MaybeSentinel.DEFAULT:
        return parts[0]
    return cst.Tuple(elements=[cst.Element(p) for p in parts])


def _array_like_index(sub: cst.Subscript) -> bool:
    if len(sub.slice) > 1 or sub.slice[0].comma is not cst.MaybeSentinel.DEFAULT:
        return True
    s = sub.slice[0].slice
    if isinstance(s, cst.Slice):
        return True
    v = s.value
    return isinstance(v, (cst.Ellipsis, cst.Tuple)) or (isinstance(v, cst.Name) and v.value == "None")


def _data_call(node: cst.Call) -> bool:
    """``p.data()``: a Parameter's value (no device argument: every replica is set)."""
    return isinstance(node.func, cst.Attribute) and node.func.attr.value == "data" and not node.args


# functions that make a new array, by their last name (``np.zeros``, ``d2l.zeros``, ``nd.array``)
_MAKERS = {"zeros", "ones", "empty", "full", "array", "tensor", "arange", "linspace", "eye", "normal",
           "uniform", "randn", "rand", "zeros_like", "ones_like", "full_like", "empty_like"}


class _Made(cst.CSTVisitor):
    """Names the module assigns an array to: a call of an array-making function (``c = d2l.zeros(n)``)
    or of an ``np``/``nd``/``npx`` function, also by unpacking (``conf, ids = np.max(p), np.argmax(p)``)."""

    def __init__(self, info) -> None:
        self.info = info
        self.names: set[str] = set()

    def _array_call(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in _MAKERS:
            return True
        path = self.info.resolve(value.func) or ""
        if path.startswith("framework.npx.") and path.rpartition(".")[2] in PORTED_FORMS:
            return False  # what the porter wrote (`x = npx.setitem(x, ...)`) is no new evidence
        return path.startswith(("framework.np.", "framework.nd.", "framework.npx."))

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name) and self._array_call(node.value):
                self.names.add(t.target.value)
            elif isinstance(t.target, (cst.Tuple, cst.List)) and \
                    isinstance(node.value, (cst.Tuple, cst.List)) and \
                    len(t.target.elements) == len(node.value.elements):
                for target, value in zip(t.target.elements, node.value.elements, strict=True):
                    if isinstance(target.value, cst.Name) and self._array_call(value.value):
                        self.names.add(target.value.value)


class SetitemRule(Rule):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        made = _Made(ctx.info)
        ctx.module.visit(made)
        self.made = made.names

    def _wanted(self, original: cst.Subscript) -> bool:
        base = original.value
        info = self.info
        if isinstance(base, cst.Call) and _data_call(base):
            return True
        if isinstance(base, cst.Call):
            fix = "write the new value with the object's setter"
            if isinstance(base.func, cst.Attribute) and base.func.attr.value == "data":
                fix = f"{self.ctx.module.code_for_node(base.func.value)}.set_data(new_value)"
            elif isinstance(base.func, cst.Attribute) and base.func.attr.value == "grad":
                fix = f"{self.ctx.module.code_for_node(base.func.value)}.zero_grad() to clear it"
            self.unported(original, "assignment into the array a call returns: jax arrays are immutable, so "
                          "the change would be lost", fix)
            return False
        if not isinstance(base, (cst.Name, cst.Attribute, cst.Subscript)) or self.is_module_ref(base):
            return False
        if isinstance(base, cst.Name) and base.value in (info.containers | info.foreign | info.devices):
            return False
        return _array_like_index(original) or (isinstance(base, cst.Name) and
                                                (base.value in info.arrays or base.value in self.made))

    def _rewrite(self, target: cst.Subscript, value: cst.BaseExpression,
                 semicolon: cst.Semicolon | cst.MaybeSentinel) -> cst.BaseSmallStatement | None:
        index = _index_expr(target)
        if index is None:
            return None
        self.count("setitem")
        outer = target.value
        nested = isinstance(outer, cst.Subscript) and self._wanted(outer) and _index_expr(outer) is not None
        if nested:  # `a[i][j] = v`: the read of a[i] written as a call (the arrays rule leaves it alone)
            outer_index = _index_expr(outer)  # type: ignore[arg-type]
            read = self.call("npx", "getitem", outer.value, outer_index)  # type: ignore[attr-defined]
            call = self.call("npx", "setitem", read, index, value)
        else:
            call = self.call("npx", "setitem", target.value, index, value)
        if isinstance(target.value, cst.Call) and _data_call(target.value):
            owner = target.value.func.value  # type: ignore[attr-defined]
            setter = cst.Call(func=cst.Attribute(value=owner, attr=cst.Name("set_data")),
                              args=[cst.Arg(call)])
            return cst.Expr(setter, semicolon=semicolon)
        if nested:
            # `a[i][j] = v` -> `a[i] = setitem(a[i], j, v)`, itself an assignment into `a` the rule
            # rewrites: done here, so that porting the ported text changes nothing
            return self._rewrite(outer, call, semicolon)  # type: ignore[arg-type]
        return cst.Assign(targets=[cst.AssignTarget(target.value)], value=call, semicolon=semicolon)

    def _unpacking(self, original: cst.Assign, updated: cst.Assign):
        """``a[:2], b[3:] = u, v``: the values first (as Python does), then one write per target."""
        targets = original.targets[0].target.elements  # type: ignore[attr-defined]
        if any(isinstance(e, cst.StarredElement) for e in targets) or \
                not any(isinstance(e.value, cst.Subscript) and self._wanted(e.value) for e in targets):
            return updated
        values = cst.Name("_ported_values")
        first = cst.Assign(targets=[cst.AssignTarget(values)], value=updated.value)
        out: list[cst.BaseSmallStatement] = [first]
        new_targets = updated.targets[0].target.elements  # type: ignore[attr-defined]
        for i, (old, new) in enumerate(zip(targets, new_targets, strict=True)):
            item = cst.Subscript(value=values, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(i))))])
            if isinstance(old.value, cst.Subscript) and self._wanted(old.value):
                write = self._rewrite(new.value, item, cst.MaybeSentinel.DEFAULT)
                if write is None:
                    return updated
                out.append(write)
            else:
                out.append(cst.Assign(targets=[cst.AssignTarget(new.value)], value=item))
        out[-1] = out[-1].with_changes(semicolon=updated.semicolon)
        return cst.FlattenSentinel(out)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if len(original.targets) == 1 and isinstance(original.targets[0].target, (cst.Tuple, cst.List)) and \
                all(isinstance(e.value, (cst.Subscript, cst.Name, cst.Attribute))
                    for e in original.targets[0].target.elements if not isinstance(e, cst.StarredElement)):
            return self._unpacking(original, updated)
        if len(original.targets) != 1 or not isinstance(original.targets[0].target, cst.Subscript):
            return updated
        if isinstance(original.value, (cst.List, cst.ListComp)):
            return updated  # `seq[:] = [...]`: a Python list operation
        if not self._wanted(original.targets[0].target):
            return updated
        out = self._rewrite(updated.targets[0].target, updated.value, updated.semicolon)  # type: ignore[arg-type]
        return updated if out is None else out

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.BaseSmallStatement:
        if not isinstance(original.target, cst.Subscript) or not self._wanted(original.target):
            return updated
        target = updated.target
        op = getattr(cst, type(updated.operator).__name__.replace("Assign", ""))()
        right = updated.value
        loose = (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda)
        if isinstance(right, loose) and not right.lpar:
            right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        read: cst.BaseExpression = target
        if not any(isinstance(el.slice, cst.Slice) for el in target.slice):  # type: ignore[attr-defined]
            # a read the arrays rule would route: written as a call, so that porting the ported text
            # again leaves it as it is
            index = _index_expr(target)  # type: ignore[arg-type]
            if index is None:
                return updated
            read = self.call("npx", "getitem", target.value, index)  # type: ignore[attr-defined]
        value = cst.BinaryOperation(left=read, operator=op, right=right)
        out = self._rewrite(target, value, updated.semicolon)  # type: ignore[arg-type]
        return updated if out is None else out
