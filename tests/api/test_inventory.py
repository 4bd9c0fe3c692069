"""framework against the inventory of MXNet's public API (``tests/api/inventory.json``, written by
``tools/api_inventory.py generate`` in MXNet 1.9.1's venv).

Each name of the inventory is reached on a fresh ``import framework as mx`` the way MXNet code reaches
it, or is refused in framework's one table of refusals, ``framework/_refusals.py`` (with the reason and
what to use instead; ``mx.nd.NOT_SUPPORTED`` and the like are views of it), or is
still to do in ``tests/api/expected_missing.txt``. The coverage is reported as a ``UserWarning``
(in pytest's warnings summary).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("api_inventory", ROOT / "tools" / "api_inventory.py")
inventory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(inventory)



@pytest.fixture(scope="module")
def result() -> dict:
    """The check, in a fresh process: what another test imported cannot make a name reachable."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import api_inventory as a; "
        "print(json.dumps(a.check()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "tools")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_inventory_is_well_formed():
    inv = inventory.load_inventory()
    assert inv["mxnet"] == "1.9.1"
    for module in [
        "",
        "np",
        "npx",
        "nd",
        "nd.contrib",
        "nd.random",
        "nd.linalg",
        "gluon",
        "gluon.nn",
        "gluon.contrib",
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
        "gluon.probability",
    ]:
        assert module in inv["modules"], module
    entry = inv["modules"]["io"]
    assert {"NDArrayIter", "DataBatch", "DataDesc", "PrefetchingIter"} <= set(entry["names"])
    assert "NDArrayIter" in inv["modules"]["io"]["names"]
    assert "box_nms" in inv["modules"]["npx"]["names_2_0"]  # a 2.0 operator registered from C++
    assert "Normal" in inv["modules"]["gluon.probability"]["names_2_0"]
    assert "check_call" not in inv["modules"]["profiler"]["names"]  # a C-API helper
    assert "OrderedDict" not in inv["modules"]["metric"]["names"]  # the standard library
    assert "float32" in inv["modules"]["np"]["names"]  # NumPy's dtype IS np's API


def test_tables_name_inventory_entries_with_reasons():
    inv = inventory.load_inventory()["modules"]
    known = {(m, n) for m, e in inv.items() for n in e["names"] + e["names_2_0"]}
    refused = inventory.load_not_supported()
    assert refused, "framework/_refusals.py has no rows"
    for (module, name), (reason, instead) in refused.items():
        assert module in inv, f"framework/_refusals.py: no module {module!r} in the inventory"
        assert name == "*" or (module, name) in known, f"framework/_refusals.py: {module} {name} is no entry"
        assert len(reason) > 10 and instead, (
            f"framework/_refusals.py: {module} {name} needs a reason and an alternative"
        )
    for module, name in inventory.load_expected_missing():
        assert (module, name) in known, f"expected_missing.txt: {module} {name} is no inventory entry"


def test_every_name_exists_or_is_listed(result):
    """The test that fails when a name neither exists, nor is refused, nor is still to do; and when a
    name framework had goes missing."""
    refused = inventory.load_not_supported()
    expected = inventory.load_expected_missing()
    unlisted = inventory.unlisted(result, refused, expected)
    assert not unlisted, (
        f"{len(unlisted)} inventory names are missing from framework and listed nowhere "
        f"(implement them, or refuse them in framework/_refusals.py): " + ", ".join(unlisted[:40])
    )
    text = (f"MXNet API coverage: {100 * inventory.coverage(result):.1f}% of MXNet 1.9.1's public names "
            "present (python tools/api_inventory.py report)")
    warnings.warn(UserWarning(text), stacklevel=1)  # a builtin class: xdist sends it between processes


def test_a_refused_name_is_really_missing(result):
    """A refusal of a name framework has is stale: the table must say what is true."""
    stale = [f"{inventory.module_label(m)} {n}" for (m, n) in inventory.load_not_supported()
             if n != "*" and m in result and n not in result[m]["missing"] + result[m]["missing_2_0"]]
    assert not stale, f"refused in framework/_refusals.py, yet present (delete the rows): {stale}"


def test_module_tables_are_views_of_the_one_table():
    from framework import _refusals, nd, npx

    for module, table in (("mx.nd", nd.NOT_SUPPORTED), ("mx.nd.contrib", nd.contrib.NOT_SUPPORTED),
                          ("mx.npx", npx.NOT_SUPPORTED)):
        assert set(table) == set(_refusals.REFUSALS.get(module, {})), module
    with pytest.raises(AttributeError, match="mx.nd.sparse is not supported: sparse storage"):
        nd.sparse  # noqa: B018


def test_the_checker_finds_a_missing_name_and_an_unlisted_one():
    res = inventory.check(
        {"modules": {"": {"attribute": True, "names": ["cpu", "no_such_name"], "names_2_0": ["gpu"]}}}
    )[""]
    assert res == {"present": ["cpu"], "missing": ["no_such_name"], "present_2_0": ["gpu"], "missing_2_0": []}
    assert inventory.unlisted({"io": res}, {}, set()) == ["mx.io no_such_name"]
    assert inventory.unlisted({"io": res}, {}, {("io", "no_such_name")}) == []
    assert inventory.unlisted({"io": res}, {("io", "*"): ("r", "i")}, set()) == []
