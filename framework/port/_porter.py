"""The driver: parse with libcst, apply the rules in order, add the imports a rewrite needs, and say
what changed. Everything outside a rewritten span is kept byte for byte (libcst round-trips source)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from .._files import read_bytes
from ._analysis import ModuleInfo, analyse, dotted
from ._write import collect
from .report import Report
from .rules import ORDER
from .rules._base import PortContext

__all__ = ["PortedFile", "PortError", "port_source", "port_paths", "iter_python_files"]


class PortError(SyntaxError):
    """The porter made code that does not compile (or a rule failed): names the file, line and rule.

    Nothing is written or run when it is raised; the source stays as it was. It is a porter bug: report
    it with the named construct."""

    def __init__(self, path: str, line: int, rule: str, why: str, text: str | None = None) -> None:
        super().__init__(f"{path}:{line}: the porter's rule {rule!r} made code that does not compile "
                         f"({why}); nothing was written or run. Port this construct by hand, and report "
                         "it as a porter bug", (path, line or 1, None, text))
        self.rule = rule


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
    # right after the module's first framework import, so that every use below it sees the names (a
    # later import may sit past code that needs them, or in a part of the module that fails first)
    at = next((i + 1 for i, stmt in enumerate(body) if _is_framework_import(stmt)), None)
    if at is None:
        at = 0
        while at < len(body) and _is_preamble(body[at], at == 0):
            at += 1
    body.insert(at, line)
    return module.with_changes(body=body)


_EXTRA_PASSES = 2


def _kinds(info: ModuleInfo) -> tuple[frozenset[str], ...]:
    """What the analysis says names hold: what the rules decide by."""
    return tuple(frozenset(getattr(info, f)) for f in ("arrays", "devices", "containers", "foreign",
                                                         "array_attrs"))


def _apply_rules(module: cst.Module, info: ModuleInfo, path: str,
                 report: Report) -> tuple[cst.Module, list[tuple[str, cst.Module]]]:
    """One pass of every rule in ORDER, then the imports the rewrites need; the tree after each step
    (to name the rule of a failure: trees are immutable, their code is generated only then)."""
    ctx = PortContext(path=path, info=info, report=report, module=module)
    steps: list[tuple[str, cst.Module]] = []
    for rule in ORDER:
        ctx.module = module
        try:
            module = module.visit(rule(ctx))
        except Exception as e:  # noqa: BLE001  (libcst's CSTValidationError and any rule's bug)
            raise PortError(path, 0, rule.__name__, f"{type(e).__name__}: {e}") from e
        steps.append((rule.__name__, module))
    if ctx.needs:
        report.count("add_import")
        module = _add_imports(module, ctx.needs)
        steps.append(("add_import", module))
    return module, steps


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
    module, steps = _apply_rules(module, info, path, report)
    # A port is a fixpoint: porting the ported module again changes nothing. Rewrites can change what
    # the module visibly does with a name (an array method became an nd call), so where the analysis
    # of the output differs, the rules run again on the output (their counts kept, the unported
    # constructs reported by the first pass, with the original's lines).
    for _ in range(_EXTRA_PASSES):
        again = analyse(module)
        if _kinds(again) == _kinds(info):
            break
        info = again
        scratch = Report()
        ported, more = _apply_rules(module, info, path, scratch)
        if ported.code == module.code:
            break
        report.counts.update(scratch.counts)
        module, steps = ported, steps + more
    out = module.code
    if out != source:
        _check_compiles(source, out, path, steps)
        report.changed.append(path)
    return out


def _check_compiles(source: str, out: str, path: str, steps: list[tuple[str, cst.Module]]) -> None:
    """``out`` compiles, or :class:`PortError` names the line and the first rule whose output does not."""
    try:
        compile(out, path, "exec", dont_inherit=True)
        return
    except SyntaxError as e:
        err = e
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError:
        return  # the source itself does not compile here (another Python's syntax): not the porter's doing
    rule = steps[-1][0]
    for name, tree in steps:
        try:
            compile(tree.code, path, "exec", dont_inherit=True)
        except SyntaxError as e:
            rule, err = name, e
            break
    raise PortError(path, err.lineno or 0, rule, err.msg, err.text)


def iter_python_files(paths: Iterable[str | os.PathLike]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*.py") if not any(part.startswith(".") for part in f.parts))
        else:
            yield p


def read_source(path: str | os.PathLike) -> str:
    """A module's text (a regular file only: a FIFO named ``x.py`` cannot block; newlines kept)."""
    return read_bytes(path, what="Python file").decode("utf-8")


def port_paths(paths: Iterable[str | os.PathLike], report: Report) -> list[PortedFile]:
    """Port every ``.py`` file under ``paths`` (nothing is written; see :func:`.collect` for which)."""
    return [PortedFile(f, source := read_source(f), port_source(source, f, report))
            for f in collect(paths).files]
