"""What the arrays rule (:mod:`.arrays`) knows without scopes: the names a statement binds, the values
that are visibly not arrays, the methods decided at run time, and MXNet's reshape codes.

>>> import libcst as cst
>>> names_of(cst.parse_expression("(a, [b, *c])"))
['a', 'b', 'c']
>>> not_array(cst.parse_expression("len(x)")), not_array(cst.parse_expression("x + 1"))
(True, False)
"""

from __future__ import annotations

import libcst as cst

__all__ = ["DISPATCHED", "NOT_ARRAY_CALLS", "Bindings", "literal_default", "names_of", "not_array",
           "has_special_code"]

def literal_default(param: cst.Param) -> bool:
    d = param.default
    if d is None or (isinstance(d, cst.Name) and d.value == "None"):
        return False
    return isinstance(d, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Tuple,
                          cst.List, cst.Dict, cst.UnaryOperation)) or (
        isinstance(d, cst.Name) and d.value in ("True", "False"))


def names_of(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in names_of(el.value)]
    if isinstance(target, cst.StarredElement):
        return names_of(target.value)
    return []


class Bindings(cst.CSTVisitor):
    """Every binding of a name in one scope (not inside nested functions, lambdas or classes)."""

    def __init__(self) -> None:
        self.binds: list[tuple[cst.BaseExpression, cst.BaseExpression | None, str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self.binds.append((t.target, node.value, "value"))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.binds.append((node.target, node.value, "value"))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.binds.append((node.target, node.value, "aug"))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.binds.append((node.target, node.value, "value"))

    def visit_For(self, node: cst.For) -> None:
        self.binds.append((node.target, node.iter, "iter"))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.binds.append((node.target, node.iter, "iter"))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.binds.append((node.asname.name, None, "other"))


# NDArray methods jax.Array lacks (or has with another meaning) and few other objects have: on a receiver
# the porter cannot type,
# nd.array_method decides when the call runs, right for any receiver (split, pad and slice are left as they
# are: strings and lists have them, and the rewrite would only make their code longer)
DISPATCHED = frozenset({
    "sigmoid", "tile", "expand_dims", "exp", "expm1", "log1p", "log2", "log10", "sqrt", "rsqrt", "square",
    "relu", "softmax", "log_softmax", "softmin", "tanh", "arctanh", "sinh", "cosh", "broadcast_to",
    "broadcast_like", "broadcast_axes", "slice_axis", "slice_like", "reshape_like", "one_hot", "pick",
    "topk", "zeros_like", "ones_like", "reciprocal", "rcbrt", "cbrt", "nansum", "nanprod",
    "argmax_channel", "depth_to_space", "space_to_depth", "shape_array", "size_array", "log", "abs", "sign",
    "floor", "ceil", "trunc", "fix", "rint", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arcsinh",
    "arccosh", "degrees", "radians", "flip", "diag", "norm",
    "flatten",  # jax.Array's and NumPy's make 1-d arrays: an array of the framework keeps the first axis
})
NOT_ARRAY_CALLS = {"len", "int", "float", "str", "bool", "range", "list", "tuple", "dict", "set", "sorted",
                    "isinstance", "hasattr", "repr", "format", "enumerate", "zip", "type"}
_NOT_ARRAY_ATTRS = {"shape", "ndim", "size", "dtype", "context", "ctx", "stype", "name"}
_HOST_METHODS = {"asnumpy", "asscalar", "tolist", "item", "format", "join", "split", "lower", "upper",
                 "startswith", "endswith", "keys", "items", "values", "get"}


def not_array(value: cst.BaseExpression) -> bool:
    """``value`` is visibly not an array: a literal, a comparison, a shape, a built-in's result..."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                          cst.FormattedString, cst.Comparison, cst.Lambda, cst.Dict, cst.Set, cst.DictComp,
                          cst.SetComp)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False")
    if isinstance(value, cst.Attribute):
        return value.attr.value in _NOT_ARRAY_ATTRS
    if isinstance(value, cst.Subscript):
        return isinstance(value.value, cst.Attribute) and value.value.attr.value in _NOT_ARRAY_ATTRS
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name):
            return func.value in NOT_ARRAY_CALLS
        return isinstance(func, cst.Attribute) and func.attr.value in _HOST_METHODS
    return False


def has_special_code(call: cst.Call) -> bool:
    """A literal 0, -2, -3 or -4 among the shape arguments of a reshape call."""
    values: list[cst.BaseExpression] = []
    for a in call.args:
        if a.keyword is not None and a.keyword.value != "shape":
            continue
        v = a.value
        values += [e.value for e in v.elements] if isinstance(v, (cst.Tuple, cst.List)) else [v]
    for v in values:
        if isinstance(v, cst.Integer) and v.value == "0":
            return True
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus) and \
                isinstance(v.expression, cst.Integer) and v.expression.value in ("2", "3", "4"):
            return True
    return False
