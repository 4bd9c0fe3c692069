"""Smoke test of the overhead benchmarks (issues 3 and 4): they run in --quick mode and return ratios.

No timing is asserted: only that every variant ran, compiled nothing in steady state, agrees with the
others (gradients; parameters after a training step), and that the ratios are finite positive numbers.
"""

import math


def _finite_positive(values):
    values = list(values)
    return bool(values) and all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in values)


def _clocks(res):
    """Every ms figure and every ratio of a result, flattened."""
    out = [v for d in res["ms"].values() for c, v in d.items() if c != "host"]
    return out + [v for r in res["ratios"].values() for v in r.values()]


def test_hybridize_quick(tmp_path, capsys):
    from benchmarks import hybridize

    res = hybridize.main(["--quick", "--out", str(tmp_path)])
    assert set(res["ms"]) == {"plain_jax", "hybrid_pure", "hybrid_recorded", "unhybrid_recorded"}
    assert _finite_positive(_clocks(res))
    assert "unhybrid_recorded / hybrid_recorded" in res["ratios"]
    assert all(d < 1e-3 for d in res["diffs"].values()), res["diffs"]
    assert sum(res["compiles"].values()) == 0, res["compiles"]
    assert (tmp_path / "hybridize.json").exists()
    assert "hybrid_recorded / plain_jax" in capsys.readouterr().out


def test_step_overhead_quick(tmp_path, capsys):
    from benchmarks import step_overhead

    res = step_overhead.main(["--quick", "--no-x2", "--out", str(tmp_path)])
    assert {"gluon_seed", "gluon_hybrid", "compiled"} <= set(res["ms"]), res["failed"]
    assert not res["failed"] and _finite_positive(_clocks(res))
    assert "gluon_seed / compiled" in res["ratios"]
    # one seed-loop step and one compiled step from the same parameters give the same parameters
    assert res["check"]["max_param_diff"] < 1e-5 and res["check"]["loss_diff"] < 1e-5, res["check"]
    assert res["ok"]
    assert sum(res["compiles"].values()) == 0, res["compiles"]
    assert (tmp_path / "step_overhead.json").exists()
    assert "gluon_seed / compiled" in capsys.readouterr().out


def test_split_quick(tmp_path, capsys):
    """The three ways to cut a batch on its device agree, and every figure is a finite positive number."""
    import jax
    import numpy as onp

    from benchmarks import split

    x = jax.device_put(onp.arange(8 * 784, dtype=onp.float32).reshape(8, 1, 28, 28), jax.devices()[0])
    cuts = {name: [onp.asarray(p) for p in fn()] for name, fn in split.variants(x).items()}
    for parts in cuts.values():
        assert len(parts) == 2
        onp.testing.assert_array_equal(onp.concatenate(parts), onp.asarray(x))
    res = split.main(["--quick", "--out", str(tmp_path)])
    assert [r["batch"] for r in res["rows"]] == [8, 256]
    assert _finite_positive(v for r in res["rows"] for k, v in r.items() if k != "batch")
    assert (tmp_path / "split.json").exists() and "split_and_load" in capsys.readouterr().out
