"""``x.attach_grad()`` -> ``x = autograd.attach_grad(x)``: the Variable replaces the array under the same
name, attribute or subscript (``self.w``, ``params[0]``), with ``grad_req=`` passed on.

Loops: ``for p in params: p.attach_grad()`` must leave ``params`` holding Variables. A loop whose body is
only that becomes ``params[:] = [autograd.attach_grad(p) for p in params]`` (the caller's list changes,
as MXNet's arrays did); a loop over a literal list of names rebinds the names; a loop doing more becomes an
index loop (``for _i, p in enumerate(params): p = params[_i] = autograd.attach_grad(p)``); a loop over
what a method returns (``for p in self.get_params(): p.attach_grad()``) becomes
``npx.attach_grad_attributes(self, self.get_params())``, which rebinds the attributes holding them. When
``params`` was built in the same block from a list of names (``params = [W1, b1]``), the names are
rebound too (``W1, b1 = params``), because MXNet's in-place attach made them all the same arrays.
Anything else (an ``attach_grad()`` inside an expression, on a call's result, on a tuple loop target) is
reported."""

from __future__ import annotations

import libcst as cst

from .._analysis import dotted
from ._base import Rule, assignable

__all__ = ["AttachGradRule"]


def _attach_call(node: cst.BaseExpression) -> cst.Call | None:
    """``E.attach_grad(**kw)`` with no positional argument (the method form)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "attach_grad" and all(a.keyword is not None for a in node.args):
        return node
    return None


def _owner_of(seq: cst.Call) -> cst.BaseExpression | None:
    """``self`` of ``self.params()`` / ``self.model.params()``: the object whose attributes hold them."""
    node: cst.BaseExpression = seq.func
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) and isinstance(seq.func, cst.Attribute) else None


def _statement_call(stmt: cst.BaseStatement) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
            isinstance(stmt.body[0], cst.Expr):
        return _attach_call(stmt.body[0].value)
    return None


class AttachGradRule(Rule):
    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._handled: set[int] = set()  # attach_grad calls a statement or loop rewrite takes care of
        self._loops: dict[int, str] = {}  # id(For) -> "comprehension" | "index"
        self._blocks: list[list[cst.BaseStatement]] = []
        self._loop_names: list[set[str]] = []  # names bound by the enclosing for-loops' targets
        self._statements: set[int] = set()  # id(Expr) rewritten to an assignment

    # --------------------------------------------------------------- blocks (for `params = [W1, b1]`)
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._blocks.append(list(node.body))

    def leave_IndentedBlock(self, original, updated):
        self._blocks.pop()
        return updated

    def visit_Module(self, node: cst.Module) -> None:
        self._blocks.append(list(node.body))

    def _names_bound_to(self, loop: cst.For, seq: str) -> list[cst.BaseExpression] | None:
        """The elements of ``seq = [a, b, c]`` if that is the last binding of ``seq`` before ``loop``."""
        if not self._blocks:
            return None
        block = self._blocks[-1]
        try:
            pos = next(i for i, s in enumerate(block) if s is loop)
        except StopIteration:
            return None
        for stmt in reversed(block[:pos]):
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(dotted(t.target) == seq for t in small.targets):
                    value = small.value
                    if isinstance(value, (cst.List, cst.Tuple)) and value.elements and all(
                            isinstance(e, cst.Element) and isinstance(e.value, (cst.Name, cst.Attribute))
                            for e in value.elements):
                        return [e.value for e in value.elements]  # type: ignore[union-attr]
                    return None
        return None

    # --------------------------------------------------------------- loops
    def visit_For(self, node: cst.For) -> None:
        self._loop_names.append({n.value for n in _names_in(node.target)})
        if not isinstance(node.target, cst.Name) or not isinstance(node.body, cst.IndentedBlock):
            return
        name = node.target.value
        calls = [c for c in map(_statement_call, node.body.body) if c is not None
                 and isinstance(c.func.value, cst.Name) and c.func.value.value == name]  # type: ignore[attr-defined]
        if not calls:
            return
        seq = node.iter
        only = all(_statement_call(s) is not None for s in node.body.body) and not node.orelse
        if isinstance(seq, cst.Call) and only and isinstance(_owner_of(seq), cst.Name):
            self._loops[id(node)] = "owned"  # for p in self.params(): p.attach_grad()
            for c in calls:
                self._handled.add(id(c))
            return
        if not (assignable(seq) or isinstance(seq, (cst.List, cst.Tuple))):
            return  # reported by the statement form below (p is a loop variable over a computed sequence)
        only = all(_statement_call(s) is not None for s in node.body.body) and not node.orelse
        if not only and not assignable(seq):
            return
        self._loops[id(node)] = "comprehension" if only else "index"
        for c in calls:
            self._handled.add(id(c))

    def leave_For(self, original: cst.For, updated: cst.For):
        self._loop_names.pop()
        kind = self._loops.get(id(original))
        if kind is None:
            return updated
        self.count("attach_grad_loop")
        name = original.target.value  # type: ignore[attr-defined]
        seq = updated.iter
        if kind == "owned":
            first = _statement_call(updated.body.body[0])
            call = self.call("npx", "attach_grad_attributes", _owner_of(seq), seq,
                             *(first.args if first is not None else []))
            return _line(cst.Expr(call))
        literal = isinstance(seq, (cst.List, cst.Tuple))
        aliases = [e.value for e in seq.elements] if literal else (  # type: ignore[union-attr]
            self._names_bound_to(original, dotted(seq) or "") if isinstance(seq, cst.Name) else None)
        out: list[cst.BaseStatement] = []
        if kind == "comprehension":
            call = self.call("autograd", "attach_grad", cst.Name(name), *_kwargs_of(updated))
            comp = cst.ListComp(elt=call, for_in=cst.CompFor(target=cst.Name(name), iter=seq))
            if literal:
                target: cst.BaseExpression = cst.Tuple(
                    elements=[cst.Element(v) for v in aliases], lpar=[], rpar=[])  # type: ignore[union-attr]
                out.append(_line(cst.Assign(targets=[cst.AssignTarget(target)], value=comp)))
                aliases = None
            else:
                everything = [cst.SubscriptElement(cst.Slice(lower=None, upper=None))]
                whole = cst.Subscript(value=seq, slice=everything)
                out.append(_line(cst.Assign(targets=[cst.AssignTarget(whole)], value=comp)))
        else:
            index = cst.Name("_i")
            body = []
            for stmt in updated.body.body:
                c = _statement_call(stmt)
                if c is not None and isinstance(c.func.value, cst.Name) and c.func.value.value == name:  # type: ignore
                    call = self.call("autograd", "attach_grad", cst.Name(name), *c.args)
                    sub = cst.Subscript(value=seq, slice=[cst.SubscriptElement(cst.Index(index))])
                    stmt = stmt.with_changes(body=[cst.Assign(
                        targets=[cst.AssignTarget(cst.Name(name)), cst.AssignTarget(sub)], value=call)])
                body.append(stmt)
            enum = cst.Call(func=cst.Name("enumerate"), args=[cst.Arg(seq)])
            pair = cst.Tuple(elements=[cst.Element(index), cst.Element(cst.Name(name))], lpar=[], rpar=[])
            new_body = updated.body.with_changes(body=body)
            out.append(updated.with_changes(target=pair, iter=enum, body=new_body))
        if aliases:
            tup = cst.Tuple(elements=[cst.Element(v) for v in aliases], lpar=[], rpar=[])
            out.append(_line(cst.Assign(targets=[cst.AssignTarget(tup)], value=seq)))
        out[0] = out[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel(out)

    # --------------------------------------------------------------- statements
    def visit_Expr(self, node: cst.Expr) -> None:
        call = _attach_call(node.value)
        if call is None or id(call) in self._handled:
            return
        receiver = call.func.value  # type: ignore[attr-defined]
        if isinstance(receiver, cst.Name) and any(receiver.value in names for names in self._loop_names):
            return  # rebinding a loop variable would lose the Variable: reported by leave_Call
        if assignable(receiver) and not self.is_module_ref(receiver):
            self._handled.add(id(call))
            self._statements.add(id(node))

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        if id(original) not in self._statements:
            return updated
        call = updated.value
        receiver = call.func.value  # type: ignore[attr-defined]
        self.count("attach_grad")
        value = self.call("autograd", "attach_grad", receiver, *call.args)  # type: ignore[attr-defined]
        return cst.Assign(targets=[cst.AssignTarget(target=receiver)], value=value,
                          semicolon=updated.semicolon)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        call = _attach_call(original)
        if call is not None and id(call) not in self._handled and not self.is_module_ref(call.func.value):  # type: ignore
            self.unported(original, "attach_grad() here cannot rebind what it is called on (inside an "
                          "expression, on a call's result, or on a loop variable over a computed sequence)",
                          "bind the array to a name first, then `x = autograd.attach_grad(x)` and use x")
        return updated


def _names_in(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names_in(e.value)]
    return []


def _kwargs_of(loop: cst.For) -> list[cst.Arg]:
    for stmt in loop.body.body:  # type: ignore[attr-defined]
        c = _statement_call(stmt)
        if c is not None:
            return list(c.args)
    return []


def _line(small: cst.BaseSmallStatement) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[small])
