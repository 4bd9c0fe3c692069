"""What every rule shares: the module's facts, the report, where a node is, and how to reach ``npx`` /
``autograd`` from the module's own names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider
from libcst.metadata.base_provider import ProviderT

from .._analysis import ModuleInfo, dotted
from ..report import Report, Unported

__all__ = ["PortContext", "Rule", "ARGPARSE_LIKE"]

# receivers whose .ctx / .context is a user's setting, not an array's device
ARGPARSE_LIKE = {"self", "cls", "args", "opt", "opts", "config", "cfg", "options", "hparams", "flags",
                 "FLAGS", "kwargs", "settings", "conf"}


@dataclass
class PortContext:
    path: str
    info: ModuleInfo
    report: Report
    module: cst.Module
    needs: set[str] = field(default_factory=set)


_MISSING = object()


class Rule(cst.CSTTransformer):
    """A rewrite rule: a libcst transformer with the module's facts and the report at hand.

    Metadata (a node's line, its load/store context, its parent) is computed for the whole module the
    first time a rule asks for that kind (:meth:`meta`), not before every rule: most rules never ask, and
    each kind costs a walk of the module (positions a whole code generation)."""

    def __init__(self, ctx: PortContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.info = ctx.info
        self._tables: dict[ProviderT, Mapping[cst.CSTNode, object]] = {}

    def meta(self, provider: ProviderT, node: cst.CSTNode, default: object = _MISSING) -> Any:
        """``provider``'s value for ``node`` of the module this rule visits (an original node)."""
        table = self._tables.get(provider)
        if table is None:
            wrapper = cst.MetadataWrapper(self.ctx.module, unsafe_skip_copy=True)
            table = self._tables[provider] = wrapper.resolve(provider)
        if default is _MISSING:
            return table[node]
        return table.get(node, default)

    # A module path in an import statement is a name of the importing system, never an expression: no
    # rule rewrites anything inside one (``from pkg.mx.context import f`` keeps ``pkg.mx.context``).
    # Rules still see the nodes there (a rule may note the names an import binds), and a rule's
    # leave_Import / leave_ImportFrom still rewrites the statement as a whole (the imports rule).
    _import_depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self._import_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        if isinstance(original_node, (cst.Import, cst.ImportFrom)):
            self._import_depth -= 1
        elif self._import_depth:
            return original_node  # inside an import statement: no leave_* runs, nothing changes
        return super().on_leave(original_node, updated_node)

    def line(self, node: cst.CSTNode) -> int:
        position = self.meta(PositionProvider, node, None)
        return 0 if position is None else position.start.line

    def count(self, rule: str) -> None:
        self.ctx.report.count(rule)

    def unported(self, node: cst.CSTNode, why: str, fix: str) -> None:
        code = " ".join(self.ctx.module.code_for_node(node).split())
        if len(code) > 72:
            code = code[:69] + "..."
        self.ctx.report.unported.append(Unported(self.ctx.path, self.line(node), code, why, fix))

    def ns(self, what: str) -> cst.BaseExpression:
        """``npx`` / ``mx.npx`` / a Name whose import the driver adds."""
        expr = self.info.namespace(what)
        if expr is None:
            self.ctx.needs.add(what)
            expr = cst.Name(what)
        return expr

    def call(self, what: str, fn: str, *args: cst.BaseExpression | cst.Arg) -> cst.Call:
        """``<what>.<fn>(*args)``."""
        return cst.Call(func=cst.Attribute(value=self.ns(what), attr=cst.Name(fn)),
                        args=[a if isinstance(a, cst.Arg) else cst.Arg(unparen(a)) for a in args])

    def is_module_ref(self, node: cst.BaseExpression) -> bool:
        """``node`` is a dotted name starting at an imported module (``mx.nd``, ``onp``)."""
        name = dotted(node)
        return name is not None and self.info.is_module(name.split(".")[0])


def unparen(node: cst.BaseExpression) -> cst.BaseExpression:
    """``(x + 1)`` -> ``x + 1`` where it becomes a call's argument (tuples and generators keep theirs)."""
    if node.lpar and not isinstance(node, (cst.Tuple, cst.GeneratorExp, cst.Yield, cst.NamedExpr)) \
            and len(node.lpar) == 1:
        return node.with_changes(lpar=[], rpar=[])
    return node


def plain_args(call: cst.Call, n: int) -> bool:
    """``call`` has exactly ``n`` positional arguments and no keyword or star arguments."""
    return len(call.args) == n and all(a.keyword is None and not a.star for a in call.args)


def strip_comma(arg: cst.Arg) -> cst.Arg:
    return arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)


def assignable(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute, cst.Subscript))
