"""``python -m framework.run script.py [args...]``: run an MXNet script on framework, unchanged.

The script, and every module it imports that imports ``mxnet``, is ported on the fly by
:mod:`framework.port` (an import hook; the files themselves are never written, nor any ``.pyc`` of them).
``import mxnet`` (and ``mxnet.gluon``, ``mxnet.ndarray``, ...) in code that is not ported resolves to
framework's modules. What the porter could not port is printed to stderr before the script runs.
Ported modules are kept in the user's port cache (:mod:`framework.port.cache`,
``$FRAMEWORK_HOME/port-cache``), so a module is ported once per version of its source and of the porter;
``FRAMEWORK_PORT_CACHE=0`` ports every time. The ported code is compiled with its operators routed
through :mod:`framework.np.eager` (:mod:`framework.port.operators`): eager code runs an operator's
first-seen shapes in host memory instead of compiling a program for each.

>>> import sys
>>> with activated():
...     import mxnet
...     mxnet is sys.modules["framework"]
True
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import sysconfig
import types
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import config
from ._refusals import missing_reason
from .port import Report, port_source
from .port._analysis import _RENAMED, map_module
from .port.cache import PortCache, Ported, default_location
from .port.operators import compile_ported

__all__ = ["main", "activated", "run_path"]

_IMPORTS_MXNET = re.compile(rb"^[ \t]*(?:import|from)[ \t]+mxnet\b", re.M)
_FRAMEWORK_DIR = str(Path(__file__).resolve().parent)


def _library_dirs() -> tuple[str, ...]:
    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(str(Path(p).resolve()) for p in paths if p) + (_FRAMEWORK_DIR,)


_caches: dict[Path, PortCache | None] = {}


def _port_cache() -> PortCache | None:
    """The user's port cache (opened once per location); None where ``FRAMEWORK_PORT_CACHE=0`` or where
    its directory is not private to the user (said once, on stderr)."""
    if not config.get("port_cache"):
        return None
    location = default_location()
    if location not in _caches:
        try:
            _caches[location] = PortCache(location)
        except OSError as err:
            _caches[location] = None
            print(f"framework.run: port cache not used: {err}", file=sys.stderr)
    return _caches[location]


def _port(source: str, path: str) -> str:
    cache = _port_cache()
    ported = cache.get(source) if cache is not None else None
    if ported is None:
        report = Report()
        out = port_source(source, path, report)
        ported = Ported(out, tuple((u.line, u.code, u.why, u.fix) for u in report.unported))
        if cache is not None:
            try:
                cache.put(source, ported)
            except OSError as err:
                print(f"framework.run: port cache: {path} not stored ({err})", file=sys.stderr)
    for line, code, why, fix in ported.unported:
        print(f"framework.run: {path}:{line}: not ported: {code} ({why}; {fix})", file=sys.stderr)
    return ported.source


def _resolve(path: str, wanted: str) -> types.ModuleType:
    """``framework.a.b`` as a module: a submodule, or a module-valued attribute (``framework.metric``)."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        parent, _, name = path.rpartition(".")
        value = getattr(importlib.import_module(parent), name, None) if parent else None
        if isinstance(value, types.ModuleType):
            return value
    raise ModuleNotFoundError(f"No module named {wanted!r}: {missing_reason(wanted)}; keep that code on "
                              "MXNet or rewrite it with framework's np/npx/gluon.", name=wanted)


class _AliasLoader(importlib.abc.Loader):
    """Makes ``mxnet.x`` the already-imported ``framework.x`` module (one module object, two names)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._spec = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _resolve(self.target, spec.name)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self._spec  # the import system set mxnet's spec on framework's module: undo


class _PortingLoader(importlib.machinery.SourceFileLoader):
    """Compiles the ported source; never writes bytecode (it would be the unported file's cache)."""

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        with open(path, encoding="utf-8", newline="") as fh:
            source = fh.read()
        return compile_ported(_port(source, path), path)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self.library = _library_dirs()

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None):
        if fullname.startswith("framework.") and fullname.split(".")[1] in _RENAMED:
            # `from mxnet import ndarray`: the import system asks the aliased module by its own name
            fullname_mx = "mxnet." + fullname.split(".", 1)[1]
            return importlib.util.spec_from_loader(fullname, _AliasLoader(map_module(fullname_mx)))
        if fullname == "mxnet" or fullname.startswith("mxnet."):
            mapped = map_module(fullname)
            _resolve(mapped, fullname)  # fails here, with the reason, for what framework lacks
            return importlib.util.spec_from_loader(fullname, _AliasLoader(mapped))
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        origin = str(Path(spec.origin).resolve()) if spec.origin else ""
        if not origin.endswith(".py") or origin.startswith(self.library):
            return None
        with open(origin, "rb") as fh:
            if not _IMPORTS_MXNET.search(fh.read()):
                return None
        spec.loader = _PortingLoader(fullname, spec.origin)
        return spec


@contextlib.contextmanager
def activated() -> Iterator[None]:
    """Install the import hook for the duration of the block (the ``mxnet`` names it made go with it)."""
    finder = _Finder()
    before = {n for n in sys.modules if n == "mxnet" or n.startswith("mxnet.")}
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if (n == "mxnet" or n.startswith("mxnet.")) and n not in before]:
            del sys.modules[name]


def run_path(script: str | os.PathLike, argv: Sequence[str] = ()) -> dict:
    """Port and run ``script`` as ``__main__`` with ``sys.argv = [script, *argv]``; returns its globals."""
    path = str(script)
    with open(path, encoding="utf-8", newline="") as fh:
        source = fh.read()
    code = compile_ported(_port(source, path), path)
    main_module = types.ModuleType("__main__")
    main_module.__file__ = path
    main_module.__builtins__ = __builtins__  # type: ignore[attr-defined]
    saved = sys.argv, sys.path[0] if sys.path else None, sys.modules.get("__main__")
    sys.argv = [path, *argv]
    script_dir = str(Path(path).resolve().parent)
    if sys.path:
        sys.path[0] = script_dir
    else:
        sys.path.append(script_dir)
    sys.modules["__main__"] = main_module
    try:
        with activated():
            exec(code, main_module.__dict__)
    finally:
        sys.argv = saved[0]
        if saved[1] is not None:
            sys.path[0] = saved[1]
        if saved[2] is not None:
            sys.modules["__main__"] = saved[2]
    return main_module.__dict__


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m framework.run script.py [args...]\n\n" + (__doc__ or "").split("\n\n")[1],
              file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    if not Path(args[0]).is_file():
        print(f"framework.run: {args[0]!r} is not a file; usage: python -m framework.run script.py [args...]",
              file=sys.stderr)
        return 2
    run_path(args[0], args[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
