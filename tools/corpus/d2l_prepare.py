"""Mechanical changes the runner makes to a cell before it runs, each recorded as a note on the cell.

- Reductions: an integer literal given to a name or keyword called ``num_epochs``, ``max_epochs``,
  ``epochs`` or ``num_epoch`` (an assignment, a tuple assignment, a keyword argument, a parameter's
  default) that is larger than the limit is replaced by the limit. Batches per loader are limited at run
  time by the harness (``d2l_harness.limit_loaders``).
- Notebook syntax: ``%matplotlib ...`` lines are blanked (the harness uses a non-interactive backend);
  a ``!command`` line runs the command through the harness's ``_d2l_system``, as IPython would.

Positions come from Python's ``ast``; the text is changed in place, so line numbers never move.
"""

from __future__ import annotations

import ast
import re

__all__ = ["EPOCH_NAMES", "prepare", "reduce_epochs", "names_bound", "names_read"]

EPOCH_NAMES = ("num_epochs", "max_epochs", "epochs", "num_epoch")
_SHELL = re.compile(r"^(\s*)!(.*)$")
_MAGIC = re.compile(r"^\s*%(?!%)")


def _int_literal(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _epoch_literals(tree: ast.AST) -> list[tuple[ast.Constant, str]]:
    found: list[tuple[ast.Constant, str]] = []

    def target_pairs(target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name) and target.id in EPOCH_NAMES and _int_literal(value):
            found.append((value, target.id))  # type: ignore[arg-type]
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and \
                len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts, strict=False):
                target_pairs(t, v)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target_pairs(t, node.value)
        elif isinstance(node, ast.keyword) and node.arg in EPOCH_NAMES and _int_literal(node.value):
            found.append((node.value, node.arg))  # type: ignore[arg-type]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = a.posonlyargs + a.args
            for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults, strict=False):
                if arg.arg in EPOCH_NAMES and _int_literal(default):
                    found.append((default, arg.arg))  # type: ignore[arg-type]
            for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=False):
                if default is not None and arg.arg in EPOCH_NAMES and _int_literal(default):
                    found.append((default, arg.arg))  # type: ignore[arg-type]
    return found


def reduce_epochs(source: str, limit: int) -> tuple[str, list[str]]:
    """``num_epochs = 10`` -> ``num_epochs = 1`` (for ``limit=1``); returns the text and the notes.

    >>> reduce_epochs("lr, num_epochs = 0.1, 10\\nd2l.Trainer(max_epochs=3)\\n", 1)[1]
    ['line 1: num_epochs 10 -> 1', 'line 2: max_epochs 3 -> 1']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    lines = source.split("\n")
    edits = sorted(((c.lineno, c.col_offset, c.end_col_offset, c.value, name)
                    for c, name in _epoch_literals(tree) if c.value > limit), reverse=True)
    notes = []
    for lineno, start, end, value, name in edits:
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + str(limit) + line[end:]
        notes.append(f"line {lineno}: {name} {value} -> {limit}")
    return "\n".join(lines), sorted(notes, key=lambda n: int(n.split()[1].rstrip(":")))


def _notebook_syntax(source: str) -> tuple[str, list[str]]:
    out, notes = [], []
    for n, line in enumerate(source.split("\n"), 1):
        shell = _SHELL.match(line)
        if _MAGIC.match(line):
            notes.append(f"line {n}: magic {line.strip()!r} dropped")
            out.append("")
        elif shell:
            notes.append(f"line {n}: shell command run by the harness")
            out.append(f"{shell.group(1)}_d2l_system({shell.group(2).strip()!r})")
        else:
            out.append(line)
    return "\n".join(out), notes


def prepare(source: str, epochs: int) -> tuple[str, list[str]]:
    """Notebook syntax made Python, then the epoch reduction; line numbers are kept."""
    text, notes = _notebook_syntax(source)
    text, more = reduce_epochs(text, epochs)
    return text, notes + more


class _Names(ast.NodeVisitor):
    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.read: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        (self.read if isinstance(node.ctx, ast.Load) else self.bound).add(node.id)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.bound.add(node.name)
        for d in node.decorator_list:
            self.visit(d)
        inner = _Names()
        inner.bound |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        for stmt in node.body:
            inner.visit(stmt)
        self.read |= inner.read - inner.bound

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bound.add(node.name)
        for d in [*node.decorator_list, *node.bases]:
            self.visit(d)
        for stmt in node.body:
            self.visit(stmt)

    def visit_alias(self, node: ast.alias) -> None:
        self.bound.add((node.asname or node.name).split(".")[0])


def _names(source: str) -> _Names:
    v = _Names()
    try:
        v.visit(ast.parse(source))
    except SyntaxError:
        pass
    return v


def names_bound(source: str) -> set[str]:
    """Top-level names a cell binds (assignments, defs, classes, imports)."""
    return _names(source).bound


def names_read(source: str) -> set[str]:
    """Names a cell reads, including free names its functions read."""
    return _names(source).read
