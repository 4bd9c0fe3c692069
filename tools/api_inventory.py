"""The inventory of MXNet's public Python API, and framework's coverage of it.

Two commands::

    /tmp/mx/bin/python tools/api_inventory.py generate   # MXNet 1.9.1's venv: tests/api/inventory.json
    python tools/api_inventory.py report [--missing MOD] # the project's venv: the coverage table

``generate`` imports real MXNet 1.9.1 and lists the public names of each module below (``dir()``), by
THE RULE:

* names starting with ``_`` are private: left out;
* C-API helpers are left out: ctypes objects and types, and whatever ``mxnet.base`` (the ctypes
  bridge) defines, except its exception classes (``MXNetError``);
* names whose object comes from the standard library or a third-party package (NumPy, SciPy, ...) are
  imports, not API: left out. Exception: in the NumPy interface (``np``, ``np.random``, ``np.linalg``,
  ``npx``, ``npx.random``) NumPy's dtypes, constants and the functions MXNet serves by falling back to
  NumPy ARE the API (``mx.np.float32``, ``mx.np.pi``, ``mx.np.allclose``), so they count;
* other plain values (constants, tuples, None) count only in that NumPy interface;
* a module-valued attribute counts when it is a child of the module (``mx.io``, ``mx.gluon.nn``,
  ``mx.image.detection``), not when it is an import of another module (``mx.metric.ndarray``);
* names of MXNet objects re-exported from another MXNet module count (``mx.npx.cpu``): MXNet code can
  reach them there.

Modules: ``mx`` itself, the NumPy interface (``np``, ``np.random``, ``np.linalg``, ``npx``), ``nd`` with
``contrib``, ``random``, ``linalg``, ``gluon`` and every sub-package under it (``contrib`` included)
plus each plain module that is not an implementation file (a file is one when all the public names it
defines are re-exported by its package: ``gluon.nn.basic_layers`` is, ``gluon.loss`` is not), then
``autograd``, ``init``, ``optimizer``, ``lr_scheduler``, ``metric``, ``io``, ``kv``, ``image``,
``recordio``, ``test_utils``, ``profiler``, ``callback``, ``operator``.

For ``np``, ``np.random``, ``np.linalg``, ``npx`` (with ``npx.random``, ``npx.image``) and
``gluon.probability`` (with its sub-packages), MXNet 2.0's names are added from the source of MXNet's
``master`` branch, read statically (``ast``; no MXNet 2.0 is imported): every module's public top-level
definitions, its explicit imports from MXNet modules and its star-imports (following ``__all__``),
and the operators that 2.0 registers at import time from C++ (``_np_*``/``_npx_*`` in ``src/``, routed to
``random``/``linalg``/``image`` as 2.0's ``_init_np_op_module`` does). Those names are marked ``2.0``.

A name is *present* when ``import framework as mx`` reaches it the way MXNet code reaches it: by
attributes from ``mx`` (``mx.gluon.data.vision.transforms.ToTensor``), or, for a module MXNet itself
offers only by import, by importing ``framework.<path>``. Each missing name must be listed either in
framework's table of refusals, ``framework/_refusals.py`` (with the reason and what to use instead;
``report --refusals`` prints it), or in
``tests/api/expected_missing.txt`` (work not done yet; the list only shrinks: ``report
--write-expected`` rewrites it to what is still missing).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INVENTORY = ROOT / "tests" / "api" / "inventory.json"
EXPECTED_MISSING = ROOT / "tests" / "api" / "expected_missing.txt"
MXNET_GIT = Path("/work/.mirror/apache+mxnet/repo")

NUMPY_INTERFACE = ("np", "np.random", "np.linalg", "npx", "npx.random")
FIXED_MODULES = [
    "",
    "np",
    "np.random",
    "np.linalg",
    "npx",
    "npx.random",
    "npx.image",
    "nd",
    "nd.contrib",
    "nd.random",
    "nd.linalg",
    "autograd",
    "init",
    "optimizer",
    "lr_scheduler",
    "metric",
    "io",
    "kv",
    "image",
    "recordio",
    "test_utils",
    "profiler",
    "callback",
    "operator",
]
V2_PACKAGES = {  # module path in the inventory -> python/mxnet/... source path of MXNet 2.0
    "np": "numpy",
    "np.random": "numpy/random.py",
    "np.linalg": "numpy/linalg.py",
    "npx": "numpy_extension",
    "npx.random": "numpy_extension/random.py",
    "npx.image": "numpy_extension/image.py",
    "gluon.probability": "gluon/probability",
    "gluon.probability.block": "gluon/probability/block",
    "gluon.probability.distributions": "gluon/probability/distributions",
    "gluon.probability.transformation": "gluon/probability/transformation",
}
STDLIB = set(getattr(sys, "stdlib_module_names", ())) | {"builtins", "_ctypes", "_thread"}


# ----------------------------------------------------------------------------------------------------
# generate (MXNet 1.9.1 side: stdlib only besides mxnet)


def _origin(obj) -> str | None:
    """The top-level package an object comes from ('mxnet', 'numpy', 'os', ...), None for a value."""
    if isinstance(obj, type) or callable(obj):
        mod = getattr(obj, "__module__", None) or type(obj).__module__
        if mod in ("ndarray", "symbol"):  # MXNet's generated operators
            return "mxnet"
        return (mod or "").split(".")[0] or None
    return None


def _is_ctypes(obj) -> bool:
    import ctypes

    if isinstance(obj, type):
        return (
            issubclass(obj, ctypes._SimpleCData)
            or obj.__module__ in ("ctypes", "_ctypes")
            or any(b.__module__ in ("ctypes", "_ctypes") for b in obj.__mro__[1:-1])
        )
    return isinstance(obj, (ctypes._SimpleCData, ctypes._Pointer, ctypes.Structure))


def public_names(mod: types.ModuleType, path: str) -> list[str]:
    """The names of ``mod`` that THE RULE (module docstring) counts."""
    numpy_if = path in NUMPY_INTERFACE
    out = []
    for name in dir(mod):
        if name.startswith("_"):
            continue
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            parts = obj.__name__.split(".")
            if (
                parts[0] == "mxnet"
                and not any(p.startswith("_") for p in parts)
                and obj.__name__.rpartition(".")[0] == mod.__name__
            ):
                out.append(name)
            continue
        if _is_ctypes(obj):
            continue
        origin = _origin(obj)
        if origin is None:
            if numpy_if:
                out.append(name)
            continue
        if origin == "mxnet":
            own = getattr(obj, "__module__", "") or ""
            if own == "mxnet.base" and not (isinstance(obj, type) and issubclass(obj, BaseException)):
                continue
            out.append(name)
        elif numpy_if and origin == "numpy":
            out.append(name)
    return sorted(out)


def _is_implementation(parent: types.ModuleType, child: types.ModuleType) -> bool:
    own = [
        k
        for k in dir(child)
        if not k.startswith("_") and getattr(getattr(child, k), "__module__", None) == child.__name__
    ]
    return bool(own) and all(getattr(parent, k, None) is getattr(child, k) for k in own)


def gluon_modules(mx) -> list[str]:
    """``gluon`` and its sub-packages and non-implementation modules, as inventory paths."""
    out = []

    def walk(mod, path):
        out.append(path)
        for name in sorted(dir(mod)):
            obj = getattr(mod, name)
            if (
                name.startswith("_")
                or not isinstance(obj, types.ModuleType)
                or obj.__name__.rpartition(".")[0] != mod.__name__
            ):
                continue
            if hasattr(obj, "__path__") or not _is_implementation(mod, obj):
                walk(obj, f"{path}.{name}")

    walk(mx.gluon, "gluon")
    return out


def _resolve(mx, path: str):
    obj = mx
    for part in path.split(".") if path else ():
        obj = getattr(obj, part)
    return obj


def _reached_by_attribute(paths: list[str]) -> dict[str, bool]:
    """Which module paths a fresh ``import mxnet`` reaches by attributes alone (before any other
    import of them: a fresh process)."""
    code = (
        "import json, sys, mxnet as mx\nout = {}\nfor path in json.loads(sys.argv[1]):\n"
        "    obj = mx\n    try:\n        for p in path.split('.') if path else ():\n"
        "            obj = getattr(obj, p)\n        out[path] = True\n"
        "    except AttributeError:\n        out[path] = False\nprint(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(paths)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- MXNet 2.0, statically


class _Source:
    """Read python/mxnet/... files of a git revision without a work tree."""

    def __init__(self, git_dir: Path, rev: str):
        self.git_dir, self.rev = git_dir, rev
        listing = self._git("ls-tree", "-r", "--name-only", rev)
        self.files = set(listing.splitlines())

    def _git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(self.git_dir), *args], check=True, capture_output=True, text=True
        ).stdout

    def read(self, path: str) -> str:
        return self._git("show", f"{self.rev}:{path}")

    def module_file(self, dotted: str) -> str | None:
        base = "python/" + dotted.replace(".", "/")
        for cand in (base + "/__init__.py", base + ".py"):
            if cand in self.files:
                return cand
        return None


def _abs_module(current: str, is_pkg: bool, level: int, module: str | None) -> str:
    parts = current.split(".")
    if not is_pkg:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))


def static_names(src: _Source, dotted: str, all_only: bool = False, _seen=None) -> set[str]:
    """Public names of an MXNet 2.0 module read from its source: top-level definitions, imports from
    MXNet modules, star-imports (following ``__all__``). ``all_only``: what a star-import gives."""
    _seen = set() if _seen is None else _seen
    key = (dotted, all_only)
    if key in _seen:
        return set()
    _seen.add(key)
    path = src.module_file(dotted)
    if path is None:
        return set()
    tree = ast.parse(src.read(path))
    is_pkg = path.endswith("__init__.py")
    names: set[str] = set()
    declared_all: list[str] | None = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    if t.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                        declared_all = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                    else:
                        names.add(t.id)
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == "__all__"
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            declared_all = (declared_all or []) + [
                e.value for e in node.value.elts if isinstance(e, ast.Constant)
            ]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            target = _abs_module(dotted, is_pkg, node.level, node.module)
            if target == "mxnet.base":  # the ctypes bridge: C-API helpers
                continue
            for alias in node.names:
                if alias.name == "*":
                    names |= static_names(src, target, True, _seen)
                elif src.module_file(f"{target}.{alias.name}") is None or target == dotted:
                    names.add(alias.asname or alias.name)  # a name, or a child module
                # else: an import of another MXNet module, not a child (the rule for modules)
    if all_only and declared_all is not None:
        return {n for n in declared_all if not n.startswith("_")} | {n for n in names if n in declared_all}
    return {n for n in names if not n.startswith("_")}


def registered_ops(src: _Source) -> dict[str, set[str]]:
    """Operators MXNet 2.0 registers into np/npx at import time (C++ names ``_np_*``/``_npx_*``)."""
    base = src.read("python/mxnet/base.py")
    tree = ast.parse(base)
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                consts[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    pattern = re.compile(r'(?:REGISTER\w*\(\s*|add_alias\(\s*")(_npx?_[A-Za-z0-9_]+)')
    grep = src._git(
        "grep",
        "-h",
        "-o",
        "-E",
        r'(REGISTER[A-Za-z0-9_]*\( *|add_alias\( *")_npx?_[A-Za-z0-9_]+',
        src.rev,
        "--",
        "src/*.cc",
        "src/*.cu",
        "src/*.h",
    )
    found = set(pattern.findall(grep))
    out: dict[str, set[str]] = {
        "np": set(),
        "np.random": set(),
        "np.linalg": set(),
        "npx": set(),
        "npx.random": set(),
        "npx.image": set(),
    }
    for name in found:
        if name.startswith("_npx_"):
            prefix, subs, done, mod = (
                "_npx_",
                consts["_NP_EXT_OP_SUBMODULE_LIST"],
                consts["_NP_EXT_OP_IMPLEMENTED_SET"],
                "npx",
            )
        else:
            prefix, subs, done, mod = (
                "_np_",
                consts["_NP_OP_SUBMODULE_LIST"],
                consts["_NP_OP_IMPLEMENTED_SET"],
                "np",
            )
        if name in done:
            continue
        rest = name[len(prefix) :]
        for sub in subs:
            if rest.startswith(sub):
                out[f"{mod}.{sub.strip('_')}"].add(rest[len(sub) :])
                break
        else:
            out[mod].add(rest)
    return out


def generate(out_path: Path, git_dir: Path, rev: str) -> dict:
    import mxnet as mx

    modules = FIXED_MODULES[:7] + gluon_modules(mx) + FIXED_MODULES[7:]
    reached = _reached_by_attribute(modules)
    inv: dict = {"format": 1, "mxnet": mx.__version__, "mxnet_2_source": None, "modules": {}}
    for path in modules:
        mod = _resolve(mx, path)
        inv["modules"][path] = {
            "python": mod.__name__,
            "attribute": reached[path],
            "names": public_names(mod, path),
            "names_2_0": [],
        }
    src = _Source(git_dir, rev)
    inv["mxnet_2_source"] = {"branch": rev, "commit": src._git("rev-parse", rev).strip()}
    ops = registered_ops(src)
    for path, source in V2_PACKAGES.items():
        dotted = "mxnet." + source.removesuffix(".py").replace("/", ".")
        names = static_names(src, dotted) | ops.get(path, set())
        entry = inv["modules"].setdefault(
            path, {"python": dotted, "attribute": True, "names": [], "names_2_0": []}
        )
        entry["names_2_0"] = sorted(n for n in names if n not in entry["names"])
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(inv, indent=1, sort_keys=False) + "\n")
    tmp.replace(out_path)
    return inv


# ----------------------------------------------------------------------------------------------------
# report (framework side)


def load_inventory(path: Path = INVENTORY) -> dict:
    return json.loads(Path(path).read_text())


def load_not_supported() -> dict[tuple[str, str], tuple[str, str]]:
    """``{(module, name): (reason, instead)}`` from framework's one table of refusals
    (``framework/_refusals.py``; ``mx.nd.NOT_SUPPORTED`` and the like are views of it)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from framework._refusals import REFUSALS

    return {
        ("" if module == "mx" else module.removeprefix("mx."), name): (r.reason, r.instead)
        for module, table in REFUSALS.items()
        for name, r in table.items()
    }


def refusals_markdown() -> str:
    """The table of refusals as Markdown: one row per module and reason."""
    from framework._refusals import REFUSALS

    lines = ["| module | names | reason | instead |", "| --- | --- | --- | --- |"]
    for module, table in REFUSALS.items():
        rows: dict[tuple[str, str], list[str]] = {}
        for name, r in table.items():
            rows.setdefault((r.reason, r.instead), []).append(name)
        for (reason, instead), names in rows.items():
            listed = ", ".join(f"`{n}`" for n in names)
            lines.append(f"| {module} | {listed} | {reason} | {instead} |")
    return "\n".join(lines)


def load_expected_missing(path: Path = EXPECTED_MISSING) -> set[tuple[str, str]]:
    out = set()
    text = Path(path).read_text() if Path(path).exists() else ""
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line:
            module, name = line.split()
            out.add(("" if module == "mx" else module.removeprefix("mx."), name))
    return out


def _framework_module(path: str, by_attribute: bool):
    import framework as fw

    obj = fw
    try:
        for part in path.split(".") if path else ():
            obj = getattr(obj, part)
        return obj, True
    except Exception:
        pass
    if by_attribute:
        return None, False
    try:
        return importlib.import_module("framework." + path), True
    except Exception:
        return None, False


def _has(obj, name: str) -> bool:
    try:
        getattr(obj, name)
        return True
    except Exception:
        return False


def check(inv: dict | None = None) -> dict[str, dict]:
    """Per module: ``present``/``missing`` lists of 1.9.1 names and of 2.0-only names. A submodule of
    ``mx`` counts only if ``import framework`` alone reaches it (defined, or lazily loaded through
    ``framework._LAZY``), not because another module happened to import it first."""
    import framework as fw

    pristine = set(vars(fw)) | set(getattr(fw, "_LAZY", {}))
    inv = load_inventory() if inv is None else inv
    out = {}
    for path, entry in inv["modules"].items():
        mod, _ = _framework_module(path, entry["attribute"])
        res = {"present": [], "missing": [], "present_2_0": [], "missing_2_0": []}
        for key, names in (("", entry["names"]), ("_2_0", entry["names_2_0"])):
            for name in names:
                ok = mod is not None and _has(mod, name)
                if ok and path == "" and isinstance(getattr(mod, name), types.ModuleType):
                    ok = name in pristine
                res[("present" if ok else "missing") + key].append(name)
        out[path] = res
    return out


def module_label(path: str) -> str:
    return "mx" if path == "" else "mx." + path


def unlisted(result: dict, not_supported: dict, expected: set) -> list[str]:
    """Missing names that are in neither table."""
    bad = []
    for path, res in result.items():
        for name in res["missing"] + res["missing_2_0"]:
            if (
                (path, name) not in not_supported
                and (path, "*") not in not_supported
                and (path, name) not in expected
            ):
                bad.append(f"{module_label(path)} {name}")
    return bad


def table(result: dict, not_supported: dict) -> str:
    lines = [
        "| module | present / MXNet 1.9.1 | % | not supported | still missing | 2.0 names present |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    tot_p = tot_n = tot_ns = 0
    for path, res in result.items():
        n = len(res["present"]) + len(res["missing"])
        ns = sum(1 for m in res["missing"] if (path, m) in not_supported or (path, "*") in not_supported)
        miss = len(res["missing"]) - ns
        n2 = len(res["present_2_0"]) + len(res["missing_2_0"])
        v2 = f"{len(res['present_2_0'])} / {n2}" if n2 else ""
        pct = f"{100 * len(res['present']) / n:.0f}" if n else ""
        label = module_label(path)
        lines.append(f"| `{label}` | {len(res['present'])} / {n} | {pct} | {ns} | {miss} | {v2} |")
        tot_p, tot_n, tot_ns = tot_p + len(res["present"]), tot_n + n, tot_ns + ns
    lines.append(
        f"| all | {tot_p} / {tot_n} | {100 * tot_p / max(tot_n, 1):.1f} | {tot_ns} | "
        f"{tot_n - tot_p - tot_ns} | |"
    )
    return "\n".join(lines)


def coverage(result: dict) -> float:
    p = sum(len(r["present"]) for r in result.values())
    n = sum(len(r["present"]) + len(r["missing"]) for r in result.values())
    return p / max(n, 1)


def write_expected(result: dict, not_supported: dict, path: Path = EXPECTED_MISSING) -> int:
    rows = []
    for mod_path, res in result.items():
        for name in res["missing"] + res["missing_2_0"]:
            if (mod_path, name) not in not_supported and (mod_path, "*") not in not_supported:
                rows.append(f"{module_label(mod_path)} {name}")
    header = (
        "# Names of tests/api/inventory.json that framework lacks and that are not refused in\n"
        "# framework/_refusals.py: work still to do. This list only shrinks; rewrite it with\n"
        "#   python tools/api_inventory.py report --write-expected\n"
    )
    tmp = path.with_suffix(".tmp")
    tmp.write_text(header + "\n".join(rows) + "\n")
    tmp.replace(path)
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write the inventory (run with MXNet 1.9.1's python)")
    g.add_argument("--out", type=Path, default=INVENTORY)
    g.add_argument("--mxnet-git", type=Path, default=MXNET_GIT, help="git dir of apache/mxnet")
    g.add_argument("--rev", default="master", help="the MXNet 2.0 revision to read (default master)")
    r = sub.add_parser("report", help="print the coverage table (run with the project's python)")
    r.add_argument("--missing", metavar="MODULE", help="list the missing names of one module (mx.io, ...)")
    r.add_argument("--write-expected", action="store_true", help="rewrite tests/api/expected_missing.txt")
    r.add_argument("--readme", action="store_true", help="rewrite the coverage table in README.md")
    r.add_argument("--refusals", action="store_true", help="print the table of refused names (Markdown)")
    args = parser.parse_args(argv)
    if args.command == "generate":
        inv = generate(args.out, args.mxnet_git, args.rev)
        n = sum(len(m["names"]) for m in inv["modules"].values())
        n2 = sum(len(m["names_2_0"]) for m in inv["modules"].values())
        print(
            f"{args.out}: {len(inv['modules'])} modules, {n} names of MXNet {inv['mxnet']}, "
            f"{n2} more of MXNet 2.0"
        )
        return 0
    sys.path.insert(0, str(ROOT))
    if args.refusals:
        print(refusals_markdown())
        return 0
    result = check()
    ns = load_not_supported()
    if args.missing is not None:
        path = "" if args.missing == "mx" else args.missing.removeprefix("mx.")
        for name in result[path]["missing"] + result[path]["missing_2_0"]:
            tag = " (not supported)" if (path, name) in ns or (path, "*") in ns else ""
            print(f"{name}{tag}")
        return 0
    if args.write_expected:
        print(f"{EXPECTED_MISSING}: {write_expected(result, ns)} names")
    text = table(result, ns)
    if args.readme:
        readme = ROOT / "README.md"
        old = readme.read_text()
        begin, end = "<!-- api-coverage:begin -->", "<!-- api-coverage:end -->"
        if begin not in old or end not in old:
            raise SystemExit(f"{readme}: no {begin} ... {end} block to rewrite")
        new = old[: old.index(begin) + len(begin)] + "\n" + text + "\n" + old[old.index(end):]
        tmp = readme.with_suffix(".tmp")
        tmp.write_text(new)
        tmp.replace(readme)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
