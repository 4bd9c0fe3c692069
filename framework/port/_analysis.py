"""What the porter knows about a module before rewriting it: which names are bound to mxnet/framework
modules (and to other modules), and which names are known arrays, devices or Python containers.

The knowledge is deliberately shallow (module-wide, by name, no data flow): a rule that needs more than
this leaves the code alone or reports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

__all__ = ["ModuleInfo", "analyse", "dotted", "root_name", "map_module", "DEVICE_FUNCS"]

# mxnet submodules whose framework counterpart has another name
_RENAMED = {"ndarray": "nd", "numpy": "np", "numpy_extension": "npx", "context": "device",
            "init": "initializer"}

# libraries whose values are never MXNet arrays; a value made by any other module (a user's helper
# module, which may well return MXNet arrays: ``d2l.ones(...)``) is of unknown kind
FOREIGN_LIBRARIES = {"numpy", "pandas", "scipy", "torch", "tensorflow", "PIL", "cv2", "matplotlib", "sklearn",
                     "jax", "math", "random", "os", "sys", "json", "pickle", "time", "collections", "re",
                     "itertools", "functools", "pathlib", "io", "csv", "gzip", "zipfile", "tarfile"}
_CONTAINER_CALLS = {"list", "dict", "set", "tuple", "defaultdict", "OrderedDict", "deque"}
DEVICE_FUNCS = {"cpu", "gpu", "cpu_pinned", "Context", "Device", "current_context", "current_device"}


def map_module(path: str) -> str:
    """``mxnet.ndarray.foo`` -> ``framework.nd.foo`` (``mxnet`` alone -> ``framework``)."""
    parts = path.split(".")
    if parts[0] != "mxnet":
        return path
    rest = parts[1:]
    if rest:
        rest[0] = _RENAMED.get(rest[0], rest[0])
    return ".".join(["framework", *rest])


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` as a string, or None if the expression is not a plain dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def root_name(node: cst.BaseExpression) -> str | None:
    """The leftmost name of ``a.b(c).d[e]`` (``a``)."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        else:
            return None


@dataclass
class ModuleInfo:
    aliases: dict[str, str] = field(default_factory=dict)  # bound name -> module path (framework.*)
    imports_mx: bool = False  # the module imports mxnet or framework
    arrays: set[str] = field(default_factory=set)
    devices: set[str] = field(default_factory=set)
    containers: set[str] = field(default_factory=set)
    foreign: set[str] = field(default_factory=set)  # values made by another library (numpy, ...)
    assigned_attrs: set[str] = field(default_factory=set)  # "args.ctx": attributes code assigns to
    array_attrs: set[str] = field(default_factory=set)  # "self.mean": attributes assigned MXNet arrays only

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """The module path a dotted expression stands for: ``mx.nd.NDArray`` -> ``framework.nd.NDArray``."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    def is_mx_module(self, name: str | None) -> bool:
        """``name`` is bound to an mxnet/framework module or to something imported from one."""
        return name is not None and self.aliases.get(name, "").startswith("framework")

    def is_module(self, name: str | None) -> bool:
        return name is not None and name in self.aliases

    def mx_rooted(self, node: cst.BaseExpression) -> bool:
        return self.is_mx_module(root_name(node))

    def namespace(self, what: str) -> cst.BaseExpression | None:
        """An expression reaching ``framework.<what>`` with the module's own names, if there is one."""
        target = f"framework.{what}"
        for name, path in self.aliases.items():
            if path == target:
                return cst.Name(name)
        for name, path in self.aliases.items():
            if path == "framework":
                return cst.Attribute(value=cst.Name(name), attr=cst.Name(what))
        return None


# the functions the porter writes for array methods, attributes, subscripts and conversions: a second
# port must draw from them what the first drew from the forms they replace (the porter is idempotent)
PORTED_FORMS = frozenset({"asnumpy", "asscalar", "wait_to_read", "as_in_context", "copyto", "copy_into",
                          "context_of", "device_type", "device_id", "setitem", "getitem", "nd_getitem",
                          "to_float", "to_int", "attach_grad_attributes", "detach"})
_METHOD_CALLS = {("framework.npx", m) for m in ("asnumpy", "asscalar", "wait_to_read")}


class _Collector(cst.CSTVisitor):
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.kinds: dict[str, set[str]] = {}
        self.attr_kinds: dict[str, set[str]] = {}

    # ---------------------------------------------------------------- imports
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name) or ""
            mapped = map_module(full)
            if mapped.split(".")[0] == "framework":
                self.info.imports_mx = True
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.info.aliases[alias.asname.name.value] = mapped
            else:
                head = full.split(".")[0]
                self.info.aliases[head] = map_module(head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        source = dotted(node.module) or ""
        mod = map_module(source)
        if mod.split(".")[0] == "framework":
            self.info.imports_mx = True
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted(alias.name) or ""
            bound = alias.asname.name.value if alias.asname is not None else name  # type: ignore[union-attr]
            # mapped from the path as written (`from mxnet import ndarray as nd` is framework.nd)
            self.info.aliases[bound] = map_module(f"{source}.{name}") if mod.startswith("framework") \
                else f"{mod}.{name}"

    # ---------------------------------------------------------------- what names hold
    def _kind_of(self, value: cst.BaseExpression) -> str | None:
        if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
            return "container"
        if isinstance(value, cst.IfExp):
            a, b = self._kind_of(value.body), self._kind_of(value.orelse)
            return a if a == b else None
        if isinstance(value, cst.Call):
            func = value.func
            if isinstance(func, cst.Name) and func.value in _CONTAINER_CALLS:
                return "container"
            path = self.info.resolve(func) or ""
            last = path.rsplit(".", 1)[-1]
            if path.startswith("framework.npx.") and last in PORTED_FORMS:
                return None  # says no more than the method, subscript or conversion it was ported from
            if path.startswith("framework") and last in DEVICE_FUNCS:
                return "device"
            if path.startswith(("framework.nd", "framework.np", "framework.npx")) or \
                    path in ("framework.autograd.attach_grad",):
                return "array"
            if path and path.split(".")[0] in FOREIGN_LIBRARIES:
                return "other"
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        kind = self._kind_of(node.value)
        for t in node.targets:
            if isinstance(t.target, cst.Name) and kind is not None:
                self.kinds.setdefault(t.target.value, set()).add(kind)
            elif isinstance(t.target, cst.Attribute):
                name = dotted(t.target)
                if name:
                    self.info.assigned_attrs.add(name)
                    self.attr_kinds.setdefault(name, set()).add(kind or "unknown")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if len(node.args) == 1 and isinstance(node.args[0].value, cst.Name) and \
                (self.info.resolve(func) or "").rpartition(".")[::2] in _METHOD_CALLS:
            # `npx.asnumpy(x)`: the ported `x.asnumpy()`, the same evidence that x is an array
            self.kinds.setdefault(node.args[0].value.value, set()).add("array")
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and \
                func.attr.value in ("asnumpy", "asscalar", "attach_grad", "wait_to_read") and not node.args:
            self.kinds.setdefault(func.value.value, set()).add("array")


def analyse(module: cst.Module) -> ModuleInfo:
    info = ModuleInfo()
    collector = _Collector(info)
    module.visit(collector)
    for name, kinds in collector.kinds.items():
        if len(kinds) != 1 or name in info.aliases:
            continue
        kind = next(iter(kinds))
        {"array": info.arrays, "device": info.devices, "container": info.containers,
         "other": info.foreign}[kind].add(name)
    for name, kinds in collector.attr_kinds.items():
        if "array" in kinds and kinds <= {"array", "unknown"}:  # never visibly anything but an array
            info.array_attrs.add(name)
    return info
