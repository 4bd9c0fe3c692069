"""MXNet's array semantics on values that are MXNet arrays by construction: NDArray methods become calls
of the ``nd`` operator that the method stood for, so they mean what they meant in MXNet 1.x.

``x.expand_dims(1)`` -> ``F.expand_dims(x, 1)``, ``x.reshape((0, -1, C))`` -> ``F.reshape(x, (0, -1,
C))`` (MXNet's special codes 0/-1/-2/-3/-4), ``x.reshape(0, -1)`` -> ``F.reshape(x, (0, -1))``,
``x.transpose(axes=(0, 2, 1))``, ``x.flatten()`` (keeps the first axis), ``x.sum()`` (shape ``(1,)``),
``x.argmax(1)`` (float indices), ``x.slice_axis(...)``, ``x.topk(...)``, ...; a read with no slice in its
index, ``x[0, j]`` -> ``npx.nd_getitem(x, (0, j))`` (shape ``(1,)`` where JAX's is 0-d). Inside
``hybrid_forward(self, F, ...)`` the namespace is ``F`` (framework.nd there); elsewhere it is the
module's ``nd``.

Which values are MXNet arrays, per function and without data flow beyond names: the arguments of a
class's ``hybrid_forward`` (after ``F``), ``forward`` (those without a literal non-None default)
and ``backward`` (of a ``CustomOp`` or an ``autograd.Function``); the parameters of a method that
the class's own calls ``self.method(...)`` give arrays (:mod:`._method_args`); results of ``F.*`` and
``mx.nd.*`` calls; the elements of ``gluon.utils.split_and_load``'s list and the batches of a
``gluon.data.DataLoader``;
indexing, arithmetic and routed methods of those; a call of ``self.<attr>(...)`` or of a name (a child
Block, a helper) with an array argument; loop variables over them; and names bound to such values
(unless also bound to something visibly not an array). Nested functions see their enclosing function's arrays.

In a module in NumPy mode (it imports ``mxnet.numpy``/``numpy_extension`` or calls ``set_np``) the arrays
a Block receives have NumPy's semantics, which ``jax.Array`` already has: there only the results of
``mx.nd.*`` calls (and of ``x.as_nd_ndarray()``) count as MXNet arrays. Where a ``reshape`` with
MXNet's special codes or a ``transpose(axes=...)`` is called on a value the porter cannot tell is an
MXNet array, it is reported with the file's line and the fix.

>>> from framework.port import port_source
>>> src = '''from mxnet import gluon
... class Net(gluon.HybridBlock):
...     def hybrid_forward(self, F, x):
...         y = x.reshape((0, -1)).expand_dims(1)
...         return y.transpose(axes=(0, 2, 1))
... '''
>>> print(port_source(src).split("x):")[1], end="")
<BLANKLINE>
        y = F.expand_dims(F.reshape(x, (0, -1)), 1)
        return F.transpose(y, axes=(0, 2, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from .._analysis import dotted
from ._array_facts import (
    DISPATCHED,
    NOT_ARRAY_CALLS,
    Bindings,
    has_special_code,
    literal_default,
    names_of,
    not_array,
)
from ._base import Rule, unparen
from ._method_args import method_array_params

__all__ = ["ArraysRule", "ROUTED"]

# NDArray methods of MXNet 1.9.1 routed to the nd operator of the same name: the ones jax.Array lacks,
# and the ones it has with other semantics (reshape codes, transpose(axes=), flatten, reductions of shape
# (1,), float indices of argmax/argsort/topk, round half away from zero, take's clipping, clip(a_min=)).
ROUTED = frozenset({
    "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax", "argmax_channel",
    "argmin", "argsort", "broadcast_axes", "broadcast_like", "broadcast_to", "cbrt", "ceil", "clip", "cos",
    "cosh", "degrees", "depth_to_space", "diag", "exp", "expand_dims", "expm1", "fix", "flatten", "flip",
    "floor", "log", "log10", "log1p", "log2", "log_softmax", "max", "mean", "min", "nanprod", "nansum",
    "norm", "one_hot", "ones_like", "pad", "pick", "prod", "radians", "rcbrt", "reciprocal", "relu",
    "repeat", "reshape", "reshape_like", "rint", "round", "rsqrt", "shape_array", "sigmoid", "sign", "sin",
    "sinh", "size_array", "slice", "slice_axis", "slice_like", "softmax", "softmin", "sort",
    "space_to_depth", "split", "sqrt", "square", "squeeze", "sum", "swapaxes", "take", "tan", "tanh",
    "tile", "topk", "transpose", "trunc", "zeros_like", "detach",
})
# `x.detach()` is npx.detach(x) (a value cut off the graph, as MXNet's); in hybrid_forward F.stop_gradient
_RENAME = {"detach": "stop_gradient"}
_DROP_KEYWORDS = {"flatten": {"inplace"}, "squeeze": {"inplace"}}
# methods whose result is an array too (besides the routed ones)
_ARRAY_RESULT = ROUTED | {"astype", "copy", "as_in_context", "as_in_ctx", "copyto", "data", "T"}
_NP_MODE = ("framework.np", "framework.npx")
# gluon functions that return a list of NDArrays (MXNet 1.x): iterating or indexing one gives NDArrays
# (and a DataLoader, whose batches are NDArrays, or tuples of them, with its default batchify)
_ARRAY_LISTS = {"framework.gluon.utils.split_and_load", "framework.gluon.utils.split_data",
                "framework.gluon.data.DataLoader", "framework.gluon.data.dataloader.DataLoader"}


@dataclass
class _Scope:
    arrays: set[str] = field(default_factory=set)
    f_name: str | None = None  # hybrid_forward's operator namespace


class ArraysRule(Rule):

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        aliases = ctx.info.aliases.values()
        self._np_mode = any(a in _NP_MODE or a.startswith(tuple(p + "." for p in _NP_MODE)) for a in aliases)
        self._scopes: list[_Scope] = []
        self._class_depth = 0
        self._method_arrays: dict[str, set[str]] = {}
        self._made: set[int] = set()
        self._written: set[int] = set()  # `a[i]` of `a[i][j] = v`: the array written into, not a read

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        try:
            store = self.meta(ExpressionContextProvider, node) in (ExpressionContext.STORE,
                                                                           ExpressionContext.DEL)
        except KeyError:
            store = False
        if (store or id(node) in self._written) and isinstance(node.value, cst.Subscript):
            self._written.add(id(node.value))
        return True

    def visit_Assign(self, node: cst.Assign) -> bool:
        """``a[i] = npx.setitem(a[i], ...)`` (the setitem rule's form of ``a[i][:] = v``): the ``a[i]``
        read there is the array written into, as in the statement it came from."""
        value = node.value
        if isinstance(value, cst.Call) and value.args and len(node.targets) == 1 and \
                (self.info.resolve(value.func) or "") == "framework.npx.setitem" and \
                value.args[0].value.deep_equals(node.targets[0].target):
            self._written.add(id(value.args[0].value))
        return True

    # ---------------------------------------------------------------- what is an array
    def _is_nd_call(self, func: cst.BaseExpression, scope: _Scope) -> bool:
        name = dotted(func)
        if name is None:
            return False
        head = name.split(".")[0]
        if scope.f_name is not None and head == scope.f_name and "." in name:
            return True
        path = self.info.resolve(func) or ""
        return path.startswith(("framework.nd.", "framework.ndarray."))

    def _is_array(self, node: cst.BaseExpression, scope: _Scope) -> bool:
        if id(node) in self._made:
            return True
        if isinstance(node, cst.Name):  # (the operator namespace never is one)
            return node.value in scope.arrays and node.value != scope.f_name
        if isinstance(node, cst.Subscript):
            return self._is_array(node.value, scope)
        if isinstance(node, cst.BinaryOperation):
            return self._is_array(node.left, scope) or self._is_array(node.right, scope)
        if isinstance(node, cst.UnaryOperation):
            return self._is_array(node.expression, scope)
        if isinstance(node, cst.IfExp):
            return all(self._is_array(b, scope) or (isinstance(b, cst.Name) and b.value == "None")
                       for b in (node.body, node.orelse))
        if isinstance(node, cst.Attribute):
            return node.attr.value == "T" and self._is_array(node.value, scope)
        if isinstance(node, cst.Call):
            func = node.func
            if self._is_nd_call(func, scope):
                return True
            if isinstance(func, cst.Attribute) and func.attr.value == "as_nd_ndarray":
                return True
            if self._np_mode:
                return False  # NumPy mode: a Block's arguments and what they give are NumPy arrays
            if (self.info.resolve(func) or "") in _ARRAY_LISTS:
                return True  # a list of NDArrays: its elements and loop variables over it are arrays
            if isinstance(func, cst.Attribute):
                if func.attr.value in _ARRAY_RESULT and self._is_array(func.value, scope):
                    return True
                owner = func.value
                while isinstance(owner, cst.Attribute):
                    owner = owner.value
                if (isinstance(owner, cst.Name) and owner.value == "self") or (
                        isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name)
                        and owner.func.value == "super"):
                    return any(self._is_array(a.value, scope) for a in node.args)
            if isinstance(func, cst.Name) and func.value not in NOT_ARRAY_CALLS and \
                    not self.info.is_module(func.value):  # a child Block or a helper, given arrays
                return any(self._is_array(a.value, scope) for a in node.args)
        return False

    def _iter_elements(self, target: cst.BaseExpression, it: cst.BaseExpression, scope: _Scope) -> list[str]:
        """Names of a loop target that take arrays from ``it``."""
        if self._is_array(it, scope):
            return names_of(target)
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and isinstance(target, cst.Tuple):
            elements = [e.value for e in target.elements]
            if it.func.value == "enumerate" and len(elements) == 2 and it.args and \
                    self._is_array(it.args[0].value, scope):
                return names_of(elements[1])
            if it.func.value == "zip" and len(elements) == len(it.args):
                return [n for el, a in zip(elements, it.args, strict=True)
                        if self._is_array(a.value, scope) for n in names_of(el)]
        return []

    def _scope_for(self, body: cst.CSTNode, outer: set[str], params: set[str], f_name: str | None,
                   shadow: set[str]) -> _Scope:
        """The arrays of one scope: ``params`` and names bound to an array, unless also bound to
        something that is visibly not one (a number, a string, a shape, ``len(...)``...), and the
        enclosing scope's arrays this scope does not bind (``shadow``: its parameters, all of them)."""
        visitor = Bindings()
        body.visit(visitor)
        assigned = {n for target, _, _ in visitor.binds for n in names_of(target)}
        initial = (outer - shadow - assigned) | params
        scope = _Scope(set(initial), f_name)
        for _ in range(4):  # names bound to other names: a few rounds reach the fixpoint in practice
            yes: set[str] = set()
            no: set[str] = set()
            for target, value, kind in visitor.binds:
                names = set(names_of(target))
                if kind == "iter":
                    yes |= set(self._iter_elements(target, value, scope))  # type: ignore[arg-type]
                elif kind == "aug" or value is None:
                    continue
                elif self._is_array(value, scope):
                    yes |= names
                elif not_array(value):
                    no |= names
            new = (initial | yes) - no
            if new == scope.arrays:
                break
            scope.arrays = new
        return scope

    # ---------------------------------------------------------------- scopes
    def visit_Module(self, node: cst.Module) -> None:
        self._scopes.append(self._scope_for(node, set(), set(), None, set()))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._class_depth += 1
        if self._class_depth == 1 and len(self._scopes) == 1 and not self._np_mode:
            outer = self._scopes[-1]

            def arrays_of(fn: cst.FunctionDef, extra: set[str]) -> _Scope:
                params, f_name, every = self._params_of(fn, outer, True)
                return self._scope_for(fn.body, outer.arrays, params | extra, f_name, every)

            self._method_arrays = method_array_params(node, arrays_of, self._is_array)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self._class_depth -= 1
        if self._class_depth == 0:
            self._method_arrays = {}
        return updated

    def _params_of(self, node: cst.FunctionDef, outer: _Scope, in_class: bool
                   ) -> tuple[set[str], str | None, set[str]]:
        """(parameters that hold arrays, the operator namespace, every parameter) of a function."""
        named = [*node.params.params, *node.params.kwonly_params]
        every = {p.name.value for p in named}
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                every.add(star.name.value)
        name = node.name.value
        positional = node.params.params
        params: set[str] = set()
        f_name = outer.f_name if outer.f_name not in every else None
        if self._np_mode:
            pass  # F and a Block's arguments hold NumPy arrays here
        elif in_class and name == "hybrid_forward" and len(positional) >= 2:
            f_name = positional[1].name.value
            params = {p.name.value for p in named[2:] if not literal_default(p)}
        elif in_class and name in ("forward", "backward") and positional:  # Blocks, CustomOp, Function
            params = {p.name.value for p in named[1:] if not literal_default(p)}
            if "F" in params:  # an old-style forward(self, F, x): F is the operator namespace
                f_name = "F"
        elif "F" in every:  # a helper taking the operator namespace, as hybrid_forward passes it on
            f_name = "F"
        star = node.params.star_arg
        if in_class and name in ("hybrid_forward", "forward") and isinstance(star, cst.Param) and \
                not self._np_mode:
            params.add(star.name.value)
        return params, f_name, every

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        outer = self._scopes[-1] if self._scopes else _Scope()
        in_class = self._class_depth > 0 and len(self._scopes) == 1
        params, f_name, every = self._params_of(node, outer, in_class)
        if in_class:  # a helper method the class's own calls give arrays
            params |= self._method_arrays.get(node.name.value, set())
        self._scopes.append(self._scope_for(node.body, outer.arrays, params, f_name, every))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self._scopes.pop()
        return updated

    # ---------------------------------------------------------------- rewrites
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if not isinstance(func, cst.Attribute) or self.is_module_ref(func.value):
            return updated
        method = func.attr.value
        if method not in ROUTED or not self._scopes:
            return updated
        scope = self._scopes[-1]
        if method == "detach" and not scope.f_name and not updated.args and not self._np_mode:
            # right whatever the receiver holds: npx.detach calls a non-array's own detach()
            self.count("array_method")
            new_detach = self.call("npx", "detach", func.value).with_changes(lpar=updated.lpar,
                                                                             rpar=updated.rpar)
            self._made.add(id(new_detach))
            return new_detach
        if not self._is_array(func.value, scope):
            if self._np_mode:
                return updated
            if method in DISPATCHED and not self._foreign(func.value) and not scope.f_name:
                # jax.Array lacks the method: decided when it runs (an array's nd operator, else the
                # object's own method)
                self.count("array_method")
                made = self.call("nd", "array_method", func.value, cst.SimpleString(f'"{method}"'),
                                 *updated.args).with_changes(lpar=updated.lpar, rpar=updated.rpar)
                self._made.add(id(made))
                return made
            self._report_undecided(original, method)
            return updated
        if any(a.star for a in updated.args):
            return updated
        ns: cst.BaseExpression = cst.Name(scope.f_name) if scope.f_name else self.ns("nd")
        dropped = _DROP_KEYWORDS.get(method, ())
        args = [a for a in updated.args if not (a.keyword is not None and a.keyword.value in dropped)]
        positional = [a for a in args if a.keyword is None]
        if method == "reshape" and len(positional) > 1:
            elements = [cst.Element(a.value, comma=a.comma) for a in positional]
            elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            args = [cst.Arg(cst.Tuple(elements)), *(a for a in args if a.keyword is not None)]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        first = cst.Arg(unparen(func.value),
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if args else
                        cst.MaybeSentinel.DEFAULT)
        new = cst.Call(func=cst.Attribute(value=ns, attr=cst.Name(_RENAME.get(method, method))),
                       args=[first, *args], lpar=updated.lpar, rpar=updated.rpar)
        self.count("array_method")
        self._made.add(id(new))
        return new

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        """A read of an NDArray with no slice among its index parts -> ``npx.nd_getitem(x, index)``: an
        NDArray has at least one axis, so ``x[0, j]`` of a matrix has shape ``(1,)`` (JAX's is 0-d)."""
        if self._np_mode or not self._scopes or any(isinstance(el.slice, cst.Slice) for el in updated.slice) \
                or id(original) in self._written:
            return updated
        try:
            if self.meta(ExpressionContextProvider, original) != ExpressionContext.LOAD:
                return updated
        except KeyError:
            return updated
        scope = self._scopes[-1]
        if not (self._is_array(updated.value, scope) or self._is_array(original.value, scope)):
            return updated
        from .setitem import _index_expr

        index = _index_expr(updated)
        if index is None:
            return updated
        self.count("nd_getitem")
        new = self.call("npx", "nd_getitem", updated.value, index).with_changes(lpar=updated.lpar,
                                                                               rpar=updated.rpar)
        self._made.add(id(new))
        return new

    def _foreign(self, value: cst.BaseExpression) -> bool:
        """Another library's value, a container, or F (an operator namespace)."""
        root = dotted(value)
        return root is not None and root.split(".")[0] in self.info.foreign | self.info.containers | {"F"}

    def _report_undecided(self, node: cst.Call, method: str) -> None:
        func = node.func
        assert isinstance(func, cst.Attribute)
        if self._foreign(func.value):
            return
        x = self.ctx.module.code_for_node(func.value)
        if method == "reshape" and has_special_code(node):
            self.unported(node, "MXNet's reshape codes (0, -2, -3, -4) on a value the porter cannot tell is "
                                "an MXNet array", f"nd.reshape({x}, shape) if {x} is an NDArray")
        elif method == "transpose" and any(a.keyword is not None and a.keyword.value == "axes"
                                           for a in node.args):
            self.unported(node, "transpose(axes=...) on a value the porter cannot tell is an MXNet array "
                                "(jax.Array.transpose takes the axes positionally)",
                          f"nd.transpose({x}, axes=...) if {x} is an NDArray")
