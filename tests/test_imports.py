"""framework/ has no import cycles: the graph of imports between its modules is acyclic, counting the
imports inside functions too (an import moved into a function to dodge a cycle still closes it), except
the few listed here, which wait for import-time reasons."""

import ast
import pathlib

import framework

ROOT = pathlib.Path(framework.__file__).parent

# Imports that close a cycle, and why each is there: function-local ones that wait for import-time
# reasons, and known cycles of other areas still to be split.
ALLOWED = {
    # `import framework.gluon` does not load the optimizers (and optax) until Trainer is used
    "framework.gluon": {"framework.gluon.trainer"},
    # DataLoader worker processes import gluon.data without JAX: what needs JAX waits until used
    "framework.gluon.data._rng": {"framework.np"},
    "framework.gluon.data.dataloader": {"framework.device"},
    "framework.gluon.data._worker_main": {"framework.gluon.data._batching"},
    # mx.nd.Custom is framework.operator's, looked up on first use; operator lists nd's names only when asked
    "framework.nd": {"framework.operator"},
    # mx.sym.Custom's node runs the user's registered operator (framework.operator), looked up when used
    "framework.symbol._custom": {"framework.operator"},
    # Symbol's methods (infer_shape, bind, simple_bind) hand over to the modules built on Symbol, when called
    "framework.symbol._symbol": {"framework.symbol._infer", "framework.symbol._executor"},
    # ParameterDict.save/load (MXNet 1.x) hand over to the parameter files module, built on ParameterDict
    "framework.gluon.parameter": {"framework.gluon.persist"},
}


def module_name(path: pathlib.Path) -> str:
    parts = ["framework", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def resolve(current: str, is_package: bool, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The framework modules an import statement loads (a name imported from a package counts as the
    submodule when one exists by that name)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    base = current.split(".")
    if node.level:
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    if not module.startswith("framework"):
        return []
    out = []
    for alias in node.names:
        sub = f"{module}.{alias.name}"
        out.append(sub if sub in MODULES else module)
    return [m for m in out if m in MODULES]


def imports(name: str) -> tuple[set[str], list[tuple[int, str]]]:
    """(modules imported at module level, (line, module) imported inside functions)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    package = path.name == "__init__.py"
    top: set[str] = set()
    local: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for m in resolve(name, package, child):
                    (local.append((child.lineno, m)) if in_function else top.add(m))
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, in_function or function)

    visit(tree, False)
    return top, local


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (found := dfs(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := dfs(n)):
            return found
    return None


def edges(name: str, local: bool) -> set[str]:
    top, inside = imports(name)
    found = top | ({m for _, m in inside} if local else set())
    return {m for m in found if m != name and m not in ALLOWED.get(name, ())}


def test_no_import_cycles():
    assert find_cycle({n: edges(n, False) for n in MODULES}) is None


def test_function_local_imports_hide_no_cycle():
    assert find_cycle({n: edges(n, True) for n in MODULES}) is None


def test_the_allowed_imports_exist():
    for n, allowed in ALLOWED.items():
        top, inside = imports(n)
        assert allowed <= top | {m for _, m in inside}, n


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
