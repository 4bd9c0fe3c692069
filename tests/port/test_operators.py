"""framework.port.operators: the code framework.run compiles keeps Python's meaning for every value that
is not an array (in-place operators, annotations, chained comparisons, line numbers), and eager array
code of new shapes compiles nothing through it."""

from __future__ import annotations

import ast
import textwrap
import traceback

from framework.port.operators import NAMESPACE, compile_ported, instrument
from framework.run import run_path
from tests.conftest import count_compiles

PLAIN = textwrap.dedent('''
    """A module of plain Python values."""
    from __future__ import annotations
    import typing

    class Box:
        size: int = 2

        def __init__(self, items: list[int]) -> None:
            self.items = items
            self.total = 0

        def add(self, n: int) -> dict[str, int]:
            self.total += n
            self.items += [n]
            return {"total": self.total}

        def max(self):
            return max(self.items)

    class Sub(Box):
        def max(self):
            return super().max() * 10

    def run() -> dict[str, typing.Any]:
        items = [3, 1, 2]
        alias = items
        items += [4]
        box = Sub(items)
        box.add(5)
        n = 7
        n -= 2
        n **= 2
        text = "%s-%d" % ("a", n)
        flags = {1, 2} | {3}
        flags ^= {1}
        word = "abc"
        squares = [i * i for i in range(5) if i % 2 == 0]
        return {
            "alias is items": alias is items, "items": items, "total": box.total, "max": box.max(),
            "n": n, "text": text, "flags": sorted(flags), "slices": (word[::-1], word[1:], word[-1]),
            "chain": 1 < n < 100, "not chain": not (1 > n), "neg": -n, "inv": ~n, "squares": squares,
            "f": f"{n / 4:.2f}", "sorted": sorted(items, key=lambda v: -v), "pow": 2 ** -1,
            "hints": typing.get_type_hints(Box.add)["n"] is int,
            "annotations": (Box.add.__annotations__["return"], Box.__init__.__annotations__["items"]),
            "in": 3 in items, "tuple": (1, 2)[1:],
        }
''')


def _run(code) -> dict:
    scope: dict = {"__name__": "plain"}
    exec(code, scope)
    return scope["run"]()


def test_values_that_are_not_arrays_keep_pythons_meaning():
    tree = ast.parse(PLAIN)
    assert NAMESPACE in ast.unparse(instrument(tree))
    assert _run(compile_ported(PLAIN, "plain.py")) == _run(compile(PLAIN, "plain.py", "exec"))


def test_errors_point_at_the_line_written():
    source = "x = 1\ny = [1, 2]\n\nz = y[5] + x\n"
    try:
        exec(compile_ported(source, "lines.py"), {})
    except IndexError as err:
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == "lines.py"]
        assert frames[-1].lineno == 4
    else:
        raise AssertionError("no IndexError")


def test_switched_off_the_tree_is_as_written(monkeypatch):
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "0")
    tree = ast.parse(PLAIN)
    before = ast.dump(tree)
    assert ast.dump(instrument(tree)) == before


LOOP = textwrap.dedent('''
    import jax
    import numpy as onp
    from framework import np

    def shrink(n):
        x = jax.device_put(onp.linspace(0, 1, n, dtype="float32"))
        order = x.argsort()[::-1]
        kept = []
        while order.size > 0:
            i = order[0]
            kept.append(int(i))
            rest = x[order[1:]].reshape(-1)
            near = np.abs(rest - x[i]) < 0.15
            total = 0.0
            total += np.sum(np.exp(-rest ** 2)).item()
            order = order[1:][np.nonzero(~near)[0]]
        return kept
''')


def test_eager_code_of_new_shapes_compiles_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("FRAMEWORK_EAGER_HOST_RUNS", "1000")
    scope: dict = {}
    exec(compile_ported(LOOP, "loop.py"), scope)
    plain: dict = {}
    exec(compile(LOOP, "loop.py", "exec"), plain)
    shrink = scope["shrink"]
    kept: list = []
    assert count_compiles(lambda: kept.extend(shrink(23))) == 0
    assert kept == plain["shrink"](23)
    script = tmp_path / "script.py"  # framework.run compiles a script the same way
    script.write_text("import mxnet\n" + LOOP + "\nRESULT = shrink(19)\n")
    out: dict = {}
    assert count_compiles(lambda: out.update(run_path(script))) == 0
    assert out["RESULT"] == plain["shrink"](19)


def test_every_node_made_is_placed_at_the_line_it_replaces():
    source = PLAIN + LOOP + "\nz = [v[1:, None][..., ::2] for v in ()]\nq = -x[0] if x else ~y\n"
    tree = instrument(ast.parse(source))
    missing = [type(n).__name__ for n in ast.walk(tree)
               if "lineno" in n._attributes and not hasattr(n, "lineno")]
    assert missing == []
    compile(tree, "placed.py", "exec")
