"""The driver: parse with libcst, apply the rules in order, add the imports a rewrite needs, and say
what changed. Everything outside a rewritten span is kept byte for byte (libcst round-trips source)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from ._analysis import analyse, dotted
from .report import Report
from .rules import ORDER
from .rules._base import PortContext

__all__ = ["PortedFile", "port_source", "port_paths", "iter_python_files"]


@dataclass
class PortedFile:
    path: str
    source: str
    ported: str

    @property
    def changed(self) -> bool:
        return self.source != self.ported


def _is_framework_import(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Import) and any(
                (dotted(a.name) or "").split(".")[0] == "framework" for a in small.names):
            return True
        if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative and \
                (dotted(small.module) or "").split(".")[0] == "framework":
            return True
    return False


def _is_preamble(stmt: cst.BaseStatement, first: bool) -> bool:
    """A module docstring or a ``from __future__`` import."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if first and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString,
                                                                          cst.ConcatenatedString)):
        return True
    return isinstance(small, cst.ImportFrom) and dotted(small.module) == "__future__"  # type: ignore[arg-type]


def _add_imports(module: cst.Module, names: set[str]) -> cst.Module:
    line = cst.parse_statement(f"from framework import {', '.join(sorted(names))}\n")
    body = list(module.body)
    at = None
    for i, stmt in enumerate(body):
        if _is_framework_import(stmt):
            at = i + 1
    if at is None:
        at = 0
        while at < len(body) and _is_preamble(body[at], at == 0):
            at += 1
    body.insert(at, line)
    return module.with_changes(body=body)


def port_source(source: str, path: str = "<string>", report: Report | None = None) -> str:
    """Port one module's source; rewrites and unported constructs are added to ``report``.

    >>> from framework.port import port_source
    >>> print(port_source("import mxnet as mx\\nx = mx.nd.ones(3)\\nprint(x.asnumpy())\\n"), end="")
    import framework as mx
    x = mx.nd.ones(3)
    print(mx.npx.asnumpy(x))
    """
    report = report if report is not None else Report()
    report.files += 1
    module = cst.parse_module(source)
    info = analyse(module)
    if not info.imports_mx:
        report.skipped.append(path)
        return source
    ctx = PortContext(path=path, info=info, report=report, module=module)
    for rule in ORDER:
        ctx.module = module
        module = cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(rule(ctx))
    if ctx.needs:
        report.count("add_import")
        module = _add_imports(module, ctx.needs)
    out = module.code
    if out != source:
        report.changed.append(path)
    return out


def iter_python_files(paths: Iterable[str | os.PathLike]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*.py") if not any(part.startswith(".") for part in f.parts))
        else:
            yield p


def port_paths(paths: Iterable[str | os.PathLike], report: Report) -> list[PortedFile]:
    """Port every ``.py`` file under ``paths`` (nothing is written)."""
    out = []
    for f in iter_python_files(paths):
        with open(f, encoding="utf-8", newline="") as fh:
            source = fh.read()
        out.append(PortedFile(str(f), source, port_source(source, str(f), report)))
    return out
