"""``import mxnet as mx`` -> ``import framework as mx``; ``from mxnet import nd, gluon`` -> ``from
framework import nd, gluon``; submodules map to theirs (``mxnet.ndarray`` -> ``framework.nd``). Names stay
bound as before, so the rest of the module reads the same. What framework lacks is left and reported."""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache

import libcst as cst

from ..._refusals import missing_reason
from .._analysis import _RENAMED, dotted, map_module
from ._base import Rule

__all__ = ["ImportsRule"]


@cache
def _module_exists(path: str) -> bool:
    try:
        return importlib.util.find_spec(path) is not None
    except (ImportError, ValueError):
        return False


@cache
def _name_exists(module: str, name: str) -> bool:
    if _module_exists(f"{module}.{name}"):
        return True
    try:
        return hasattr(importlib.import_module(module), name)
    except ImportError:
        return False


def _dotted_expr(path: str) -> cst.Attribute | cst.Name:
    parts = path.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for p in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(p))
    return node


def _is_mxnet(path: str | None) -> bool:
    return path is not None and (path == "mxnet" or path.startswith("mxnet."))




def _target_name(module: str, name: str) -> str:
    return _RENAMED.get(name, name) if module == "framework" else name


class ImportsRule(Rule):
    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        names: list[cst.ImportAlias] = []
        changed = False
        for alias in updated.names:
            full = dotted(alias.name)
            if not _is_mxnet(full):
                names.append(alias)
                continue
            mapped = map_module(full)  # type: ignore[arg-type]
            if not _module_exists(mapped):
                self.unported(original, f"{full}: {missing_reason(full)}",
                              "rebuild it with framework's np/npx/gluon, or keep this part on MXNet")
                names.append(alias)
                continue
            changed = True
            if alias.asname is not None:
                names.append(alias.with_changes(name=_dotted_expr(mapped)))
            elif full == "mxnet":
                names.append(alias.with_changes(name=cst.Name("framework"),
                                                asname=cst.AsName(name=cst.Name("mxnet"))))
            else:  # `import mxnet.a.b` binds `mxnet`: load framework.a.b and bind `mxnet` to framework
                names.append(alias.with_changes(name=_dotted_expr(mapped), comma=cst.MaybeSentinel.DEFAULT))
                names.append(cst.ImportAlias(name=cst.Name("framework"),
                                             asname=cst.AsName(name=cst.Name("mxnet")), comma=alias.comma))
        if not changed:
            return updated
        self.count("imports")
        return updated.with_changes(names=names)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        if updated.relative or updated.module is None:
            return updated
        full = dotted(updated.module)
        if not _is_mxnet(full):
            return updated
        mapped = map_module(full)  # type: ignore[arg-type]
        if not _module_exists(mapped):
            self.unported(original, f"{full}: {missing_reason(full)}",
                          "rebuild it with framework's np/npx/gluon, or keep this part on MXNet")
            return updated
        new_names = updated.names
        if not isinstance(updated.names, cst.ImportStar):
            missing = [dotted(a.name) or "" for a in updated.names
                       if not _name_exists(mapped, _target_name(mapped, dotted(a.name) or ""))]
            for name in missing:
                self.unported(original, f"{full}.{name}: {missing_reason(f'{full}.{name}')}",
                              f"remove `{name}` from this import and rewrite its uses")
            if missing:
                return updated
            new_names = []
            for alias in updated.names:
                name = dotted(alias.name) or ""
                target = _target_name(mapped, name)
                if target != name:
                    asname = alias.asname or cst.AsName(name=cst.Name(name))
                    alias = alias.with_changes(name=cst.Name(target), asname=asname)
                new_names.append(alias)
        self.count("imports")
        return updated.with_changes(module=_dotted_expr(mapped), names=new_names)
