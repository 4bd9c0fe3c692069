"""What ``framework.run`` compiles: ported code with its operators routed through :mod:`framework.np.eager`.

MXNet ran every operator of imperative code at once; JAX compiles one program per operator and new shape
(tens of milliseconds on a CPU), so eager code whose shapes change at every step spends its time
compiling. :func:`instrument` rewrites a module's syntax tree, not its text (the porter's output stays
the code you wrote): ``a + b`` and the other arithmetic, bitwise and single comparison operators, ``-a``,
``~a``, reads ``a[i]``, ``name += b`` and the calls of the array methods :mod:`framework.np.eager`
computes (``x.reshape(...)``, ``x.argsort()``, ...) become calls of that module's functions, which run
an eager CPU array's first-seen shapes in host memory and give everything else Python's own operator.
Annotations, chained comparisons, ``is``/``in``, assignments to subscripts and ``obj.attr += ...`` of
an expression that is not a name are left as written; line numbers are kept, so tracebacks point at
the same lines. ``FRAMEWORK_EAGER_HOST_RUNS=0`` turns it off (:func:`compile_ported` then compiles the
text as it is).

>>> import ast
>>> print(ast.unparse(instrument(ast.parse("y = x[1:] * 2"))).replace(NAMESPACE, "E"))
import framework.np.eager as E
y = E.BINARY['mul'](E.getitem(x, E.SLICE(1, None, None)), 2)
"""

from __future__ import annotations

import ast
import contextlib
import gc
import types
from collections.abc import Iterator

from .. import config
from ..np.eager import METHOD_NAMES

__all__ = ["instrument", "compile_ported", "NAMESPACE"]

#: The name the instrumented module binds :mod:`framework.np.eager` to.
NAMESPACE = "__framework_eager__"

_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and_", ast.BitOr: "or_", ast.BitXor: "xor"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_UNARY = {ast.USub: "neg", ast.Invert: "invert"}


def _at(node: ast.AST, like: ast.AST) -> ast.AST:
    """``node`` placed where ``like`` is (every node made here is placed: no pass over the whole tree)."""
    node.lineno, node.col_offset = like.lineno, like.col_offset  # type: ignore[attr-defined]
    node.end_lineno, node.end_col_offset = like.end_lineno, like.end_col_offset  # type: ignore[attr-defined]
    return node


def _ns(attr: str, like: ast.AST) -> ast.expr:
    return _at(ast.Attribute(value=_at(ast.Name(NAMESPACE, ast.Load()), like), attr=attr, ctx=ast.Load()),
               like)  # type: ignore[return-value]


def _table(table: str, key: str, like: ast.AST) -> ast.expr:
    return _at(ast.Subscript(value=_ns(table, like), slice=_at(ast.Constant(key), like), ctx=ast.Load()),
               like)  # type: ignore[return-value]


def _call(func: ast.expr, args: list[ast.expr], like: ast.AST,
          keywords: list[ast.keyword] | None = None) -> ast.Call:
    return _at(ast.Call(func=func, args=args, keywords=keywords or []), like)  # type: ignore[return-value]


def _index(node: ast.expr) -> ast.expr | None:
    """A subscript's index as an expression (``a:b`` -> ``SLICE(a, b, None)``); None for a starred one."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else _at(ast.Constant(None), node) for p in (node.lower, node.upper,
                                                                                  node.step)]
        return _call(_ns("SLICE", node), parts, node)  # type: ignore[arg-type]
    if isinstance(node, ast.Tuple):
        elts = [_index(e) for e in node.elts]
        if any(e is None for e in elts):
            return None
        return _at(ast.Tuple(elts=elts, ctx=ast.Load()), node)  # type: ignore[return-value, arg-type]
    if isinstance(node, ast.Starred):
        return None
    return node


class _Operators(ast.NodeTransformer):

    # annotations stay as written (a string under `from __future__ import annotations`, read by typing)
    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AnnAssign:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:  # all but annotations
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
        node.body = [self.visit(s) for s in node.body]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        name = _BINARY.get(type(node.op))
        if name is None or isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant):
            return node
        return _call(_table("BINARY", name, node), [node.left, node.right], node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        name = _UNARY.get(type(node.op))
        if name is None or isinstance(node.operand, ast.Constant):  # -1: a constant
            return node
        return _call(_table("UNARY", name, node), [node.operand], node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        name = _COMPARE.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if name is None:
            return node
        return _call(_table("BINARY", name, node), [node.left, node.comparators[0]], node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        index = _index(node.slice)
        if index is None:
            return node
        return _call(_ns("getitem", node), [node.value, index], node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in METHOD_NAMES:
            return node
        name = _at(ast.Constant(func.attr), func)
        return _call(_ns("method", node), [func.value, name, *node.args], node, node.keywords)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        self.generic_visit(node)
        name = _BINARY.get(type(node.op))
        target = node.target
        if name is None or not (isinstance(target, ast.Name) or isinstance(target, ast.Attribute) and
                                isinstance(target.value, ast.Name)):
            return node
        read = ast.copy_location(type(target)(**{**{f: getattr(target, f) for f in target._fields},
                                                 "ctx": ast.Load()}), target)
        value = _call(_table("INPLACE", name, node), [read, node.value], node)
        return _at(ast.Assign(targets=[target], value=value), node)  # type: ignore[return-value]


def _insert_import(tree: ast.Module) -> None:
    at = 0
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        at = 1
    while at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__":
        at += 1
    where = body[at] if at < len(body) else None
    alias = ast.alias(name="framework.np.eager", asname=NAMESPACE)
    stmt = ast.Import(names=[alias])
    like = where if where is not None else ast.Pass(lineno=1, col_offset=0, end_lineno=1, end_col_offset=0)
    body.insert(at, _at(stmt, like))
    _at(alias, like)


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """The garbage collector held off while a module's tens of thousands of nodes are made: its passes
    over them (and over a loaded process's heap) would cost more than the work."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def instrument(tree: ast.Module) -> ast.Module:
    """Route ``tree``'s operators through :mod:`framework.np.eager` (see the module's description); the
    tree is changed in place and returned (as it is where ``FRAMEWORK_EAGER_HOST_RUNS`` is 0)."""
    if config.get("eager_host_runs") == 0:
        return tree
    with _no_collection():
        tree = _Operators().visit(tree)
    _insert_import(tree)
    return tree


def compile_ported(source: str, path: str) -> types.CodeType:
    """``compile`` for ported ``source``, :func:`instrument`-ed."""
    with _no_collection():
        return compile(instrument(ast.parse(source, path)), path, "exec", dont_inherit=True)
