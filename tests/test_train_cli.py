"""train.cli / train.devices / train.metrics / train.plot: arguments, device specs, output files."""

from __future__ import annotations

import json

import pytest

from train import cli, devices, metrics, plot


def test_defaults_are_the_seeds():
    cfg = cli.config_from_args([])
    assert (cfg.epochs, cfg.batch_size, cfg.lr, cfg.loop, cfg.devices) == (10, 256, 0.1, "compiled", "auto")
    assert cfg.params == "net.params" and not cfg.resume


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.config_from_args(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--epochs", "--batch-size", "--lr", "--devices", "--loop", "--data-root", "--subset",
                 "--out", "--params", "--resume", "--overwrite", "--progress", "--coordinator",
                 "--num-processes",
                 "--process-id", "--seed", "exit status"):
        assert flag in text, flag
    assert "--_hang-at" not in text


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "--epochs 0: must be at least 1"),
    (["--lr", "nan"], "--lr nan: the learning rate must be a positive finite number"),
    (["--resume", "--overwrite"], "contradict"),
    (["--devices", "tpu:1"], "unknown device kind 'tpu'"),
    (["--loop", "gluon", "--num-processes", "2"], "--loop gluon runs in one process"),
])
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.config_from_args(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_environment_gives_multi_host_defaults(monkeypatch):
    monkeypatch.setenv("FRAMEWORK_COORDINATOR", "127.0.0.1:1234")
    monkeypatch.setenv("FRAMEWORK_NUM_PROCESSES", "2")
    monkeypatch.setenv("FRAMEWORK_PROCESS_ID", "1")
    cfg = cli.config_from_args([])
    assert (cfg.coordinator, cfg.num_processes, cfg.process_id) == ("127.0.0.1:1234", 2, 1)


@pytest.mark.parametrize("text, spec", [
    ("auto", devices.DeviceSpec("auto")), (None, devices.DeviceSpec("auto")),
    ("cpu", devices.DeviceSpec("cpu", 1)), ("CPU:4", devices.DeviceSpec("cpu", 4)),
    ("gpu", devices.DeviceSpec("gpu")), ("gpu:0,1", devices.DeviceSpec("gpu", None, (0, 1))),
])
def test_device_specs(text, spec):
    assert devices.parse(text) == spec


@pytest.mark.parametrize("text, message", [
    ("cpu:0", "one count N >= 1"), ("cpu:1,2", "one count"), ("gpu:0,0", "listed twice"),
    ("gpu:x", "not a count or a list of ids"),
])
def test_bad_device_specs(text, message):
    with pytest.raises(devices.DeviceSpecError, match=message):
        devices.parse(text)


def test_resolve_on_this_machine():
    import jax

    assert devices.resolve(devices.parse("cpu:4")) == jax.devices("cpu")[:4]
    auto = devices.resolve(devices.parse("auto"))
    assert len(auto) >= 1
    with pytest.raises(devices.DeviceSpecError, match="only 4 CPU device"):
        devices.resolve(devices.parse("cpu:64"))
    if not any(d.platform == "gpu" for d in jax.devices()):
        with pytest.raises(devices.DeviceSpecError, match="no GPU visible"):
            devices.resolve(devices.parse("gpu:0"))


def test_metrics_and_plot_files(tmp_path):
    rows = [{"epoch": 1, "loss": 1.5, "test_acc": 0.7, "seconds": 5.0, "samples_per_s": 12000.0},
            {"epoch": 2, "loss": 0.8, "test_acc": 0.8, "seconds": 4.0, "samples_per_s": 15000.0}]
    metrics.write(tmp_path, rows, {"lr": 0.1})
    doc = json.loads((tmp_path / "metrics.json").read_text())
    assert doc["run"] == {"lr": 0.1} and doc["epochs"][1]["loss"] == 0.8
    lines = (tmp_path / "metrics.csv").read_text().splitlines()
    assert lines[0] == "epoch,loss,test_acc,seconds,samples_per_s" and lines[2].startswith("2,0.8,0.8")
    plot.plot_curves(rows, tmp_path / "curves.png", title="t")
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    line = metrics.format_row(rows[0], 10)
    assert line == "Epoch 1/10: loss 1.500, test acc 0.7000, 5.0 s, 12000 samples/s"
