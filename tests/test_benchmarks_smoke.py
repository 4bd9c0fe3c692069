"""``python -m benchmarks``: the entry point and the quick runs of the epochs and peers benchmarks."""

from __future__ import annotations

import importlib.util
import json

import pytest

from benchmarks import __main__ as entry
from benchmarks import available


def test_epochs_and_peers_quick(tmp_path, fashion_root, capsys):
    argv = ["epochs", "peers", "--quick", "--data-root", str(fashion_root), "--out", str(tmp_path)]
    status = entry.main(argv)
    out = capsys.readouterr().out
    assert status == 0, out
    for name in ("epochs", "peers"):
        for ext in ("json", "md", "png"):
            assert (tmp_path / f"{name}.{ext}").stat().st_size > 0, (name, ext)
    epochs = json.loads((tmp_path / "epochs.json").read_text())
    rows = {r["variant"]: r for r in epochs["rows"]}
    for loop in ("gluon loop", "compiled step", "whole-epoch program"):
        assert {f"{loop}, cpu x1", f"{loop}, cpu x2"} <= set(rows)
        assert rows[f"{loop}, cpu x1"]["speedup_vs_cpu_x1"] == 1.0
    assert all(0.0 < r["test_acc"] <= 1.0 and r["s_per_epoch"] > 0 for r in rows.values())
    peers = json.loads((tmp_path / "peers.json").read_text())
    rows = {r["variant"]: r for r in peers["rows"]}
    assert {"framework --loop compiled", "framework --loop gluon", "plain JAX (jit step)"} <= set(rows)
    assert rows["plain JAX (jit step)"]["vs_plain_jax"] == 1.0
    assert rows["MXNet 1.9.1 hybridized (quoted)"]["test_acc"] is None
    assert any("Quoted, not measured" in n for n in peers["notes"])
    assert "| variant |" in (tmp_path / "peers.md").read_text()
    assert "vs_plain_jax" in out


def test_unknown_benchmark_is_an_error(capsys):
    with pytest.raises(SystemExit) as exc:
        entry.main(["nope"])
    assert exc.value.code == 2
    assert "unknown benchmark(s) ['nope']" in capsys.readouterr().err


def test_known_names_come_first():
    names = available()
    assert names[:4] == ["epochs", "peers", "data_pipeline", "lenet_formulations"]
    assert "common" not in names


def test_only_declared_options_are_passed(tmp_path):
    path = tmp_path / "fake_bench.py"
    path.write_text('COMMON_OPTIONS = ("--quick", "--data-root")\n')
    spec = importlib.util.spec_from_file_location("fake_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = entry._parser([]).parse_args(["--quick", "--data-root", "/d", "--out", "/o", "--repeats", "3"])
    assert entry._argv_for(module, args) == ["--quick", "--data-root", "/d"]


@pytest.mark.parametrize("name", ["epochs", "peers", "data_pipeline", "lenet_formulations",
                                  "step_overhead", "hybridize", "eager_shapes", "split"])
def test_each_benchmark_parses_what_it_declares(name, monkeypatch):
    """Every option a benchmark declares in COMMON_OPTIONS is one its own parser accepts."""
    import argparse

    module = importlib.import_module(f"benchmarks.{name}")
    args = entry._parser([]).parse_args(["--quick", "--repeats", "2", "--data-root", "/d", "--out", "/o"])
    argv = entry._argv_for(module, args)
    assert argv and set(a for a in argv if a.startswith("--")) == set(module.COMMON_OPTIONS)
    seen = {}

    def fake_parse(self, a=None, namespace=None):
        seen["ns"] = argparse.ArgumentParser.parse_known_args(self, a, namespace)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", fake_parse)
    with pytest.raises(SystemExit):
        module.main(argv)
    assert seen["ns"][1] == []  # no option left unrecognised


def test_accuracy_check_catches_a_variant_that_does_not_learn():
    from benchmarks.peers import accuracy_ok

    good = [{"test_acc": 0.80}, {"test_acc": 0.82}, {"test_acc": None}]
    assert accuracy_ok(good, quick=False)
    assert not accuracy_ok([*good, {"test_acc": 0.10}], quick=False)
    assert not accuracy_ok([{"test_acc": 0.3}, {"test_acc": 0.3}], quick=False)
    assert accuracy_ok([{"test_acc": 0.3}, {"test_acc": 0.3}], quick=True)
    assert not accuracy_ok([{"test_acc": float("nan")}], quick=True)
