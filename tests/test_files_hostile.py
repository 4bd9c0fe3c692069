"""Every reader refuses a path that is not a regular file: a symlink to ``/dev/zero`` is not read until
memory runs out, a FIFO does not block. One fresh process runs every reader on both (each call guarded
by an alarm) and reports each error, how long it took and the process's peak memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_DRIVER = textwrap.dedent(r'''
    import json, os, resource, signal, sys, time
    from pathlib import Path
    import numpy as onp
    from framework import gluon, image, nd, recordio, serialization, symbol
    from framework.gluon.data.vision import ImageRecordDataset, _files
    from train import checkpoint

    d = Path(sys.argv[1])
    net = gluon.nn.Dense(2, in_units=3); net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    regular = d / "ok.rec"
    w = recordio.MXRecordIO(str(regular), "w"); w.write(b"abcd"); w.close()
    readers = {
        "nd.load": lambda p: nd.load(p),
        "serialization.load_numpy": lambda p: serialization.load_numpy(p),
        "Block.load_parameters": lambda p: net.load_parameters(p),
        "symbol.load": lambda p: symbol.load(p),
        "SymbolBlock.imports": lambda p: gluon.SymbolBlock.imports(p, ["data"]),
        "MXRecordIO": lambda p: recordio.MXRecordIO(p, "r").read(),
        "MXIndexedRecordIO(idx)": lambda p: recordio.MXIndexedRecordIO(p, str(regular), "r"),
        "IDX dataset file": lambda p: _files.read_idx(Path(p), "mnist", None, False),
        "image.imread": lambda p: image.imread(p),
        "ImageRecordDataset": lambda p: ImageRecordDataset(rec_beside_idx(p))[0],
        "Trainer.load_states": lambda p: trainer.load_states(p),
        "train checkpoint.load": lambda p: checkpoint.load(p),
    }
    def rec_beside_idx(p):  # the .rec is the hostile file; its .idx a regular one
        rec = d / (Path(p).stem + "-img.rec")
        os.symlink(p, rec)
        (d / (Path(p).stem + "-img.idx")).write_text("0\t0\n")
        return str(rec)
    def alarm(*_):
        raise TimeoutError("still reading after 5 s")
    signal.signal(signal.SIGALRM, alarm)
    zero = d / "zero.params"; zero.symlink_to("/dev/zero")
    fifo = d / "fifo.params"; os.mkfifo(fifo)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    results = []
    for name, read in readers.items():
        for kind, path in (("dev-zero", zero), ("fifo", fifo)):
            t = time.monotonic(); signal.alarm(5)
            try:
                read(str(path)); error = None
            except BaseException as e:
                error = f"{type(e).__name__}: {e}"
            finally:
                signal.alarm(0)
            results.append({"reader": name, "kind": kind, "path": str(path), "error": error,
                            "seconds": time.monotonic() - t})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"results": results, "rss_growth_kb": peak - base}))
''')


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", _DRIVER, str(d)], env=env, capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


READERS = ["nd.load", "serialization.load_numpy", "Block.load_parameters", "symbol.load",
           "SymbolBlock.imports", "MXRecordIO", "MXIndexedRecordIO(idx)", "IDX dataset file", "image.imread",
           "ImageRecordDataset",
           "Trainer.load_states", "train checkpoint.load"]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_reader_refuses_special_files_with_a_clear_error(report, reader, kind):
    (r,) = [r for r in report["results"] if r["reader"] == reader and r["kind"] == kind]
    assert r["error"] is not None and "TimeoutError" not in r["error"], r
    assert r["path"][:-len(".params")] in r["error"], r  # names the path (the .rec beside an .idx: its link)
    what = "character device" if kind == "dev-zero" else "FIFO"
    assert f"is a {what}" in r["error"] and "not a regular file" in r["error"], r


def test_memory_stays_bounded(report):
    assert report["rss_growth_kb"] < 200 * 1024, report["rss_growth_kb"]  # /dev/zero would take it all
