"""Reference files for the rest of MXNet's API (issue 31) made by real MXNet 1.9.1 (run in its side venv):

    /tmp/mx/bin/python tools/mxnet_reference/gen_api2.py [ops] [resize] [text] [optimizer]
    python tools/mxnet_reference/manifest.py tests/reference/api2 \\
        --generator tools/mxnet_reference/gen_api2.py --mxnet-version 1.9.1

Writes to ``tests/reference/api2/``:

- ``ops.npz``: the cases of ``api2_cases.py`` (``nd.contrib`` PSROIPooling, DeformablePSROIPooling,
  RROIAlign, Proposal/MultiProposal, hawkesll, getnnz of CSR matrices, backward_gradientmultiplier, the
  int8 quantization operators, ``nd.slice_like`` with an int ``axes``), in ``gen_ops.py``'s format:
  ``tests/ops_reference.py`` replays them with ``ops.npz``'s own cases.
- ``resize.npz``: ``mx.image.imresize`` of seeded uint8 (3 channels and 1) and float32 images with
  every OpenCV code 0-4 to sizes that shrink (by integer and other factors), enlarge and mix, and
  ``gluon.data.vision.transforms.Resize`` on a few of them.
- ``text.npz``: ``gluon.contrib.data.text.WikiText2`` over a small synthetic corpus (SHA-1 check off,
  so MXNet reads the local file): vocabulary, frequencies, data and label rows, for two ``seq_len`` and
  a validation segment indexed with the training vocabulary.
- ``optimizer.npz``: weights after each of six updates by ``LBSGD`` (every warm-up strategy,
  ``batch_scale`` 3, momentum, wd, LARS), ``Test`` and ``contrib.GroupAdaGrad`` from seeded weights and
  gradients, through ``opt.update`` as MXNet's Updater calls it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api2_cases  # noqa: E402
import gen_ops  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "tests" / "reference" / "api2"


def _bound(op: str, inputs: list, kwargs: dict) -> list:
    """Run an operator through a bound symbol (MXNet's imperative call of it fails)."""
    syms = [mx.sym.var(f"in{i}", dtype=a.dtype.name) for i, a in enumerate(inputs)]
    node = getattr(mx.sym.contrib, op.rsplit(".", 1)[1])(*syms, **kwargs)
    args = {f"in{i}": mx.nd.array(a, dtype=a.dtype) for i, a in enumerate(inputs)}
    return [o.asnumpy() for o in node.bind(mx.cpu(), args).forward()]


def ops() -> None:
    api2_cases.build()
    gen_ops.run([c for c in api2_cases.CASES if not c[5].get("bound")], OUT / "ops.npz")
    with np.load(OUT / "ops.npz", allow_pickle=False) as f:
        out = {k: f[k] for k in f.files}
    table = json.loads(str(out["__cases__"]))
    for name, op, inputs, kwargs, _grad, extra in api2_cases.CASES:
        if not extra.get("bound"):
            continue
        outs = _bound(op, inputs, kwargs)
        out.update({f"{name}.in{i}": a for i, a in enumerate(inputs)})
        out.update({f"{name}.out{j}": o for j, o in enumerate(outs)})
        table[name] = {
            "op": op,
            "kwargs": kwargs,
            "n_in": len(inputs),
            "n_out": len(outs),
            "grad": [],
            "heads": [],
            **extra,
        }
    out["__cases__"] = np.array(json.dumps(table, sort_keys=True))
    np.savez_compressed(OUT / "ops.npz", **out)


RESIZE_SIZES = [(10, 8), (5, 4), (7, 5), (30, 21), (14, 24), (3, 2)]


def resize() -> None:
    rs = np.random.RandomState(1)
    images = {
        "u8": rs.randint(0, 256, (24, 36, 3)).astype(np.uint8),
        "f32": rs.uniform(0, 255, (24, 36, 3)).astype(np.float32),
        "gray": rs.randint(0, 256, (23, 37, 1)).astype(np.uint8),
    }
    out = {}
    for key, img in images.items():
        out[f"{key}.img"] = img
        for code in range(5):
            for w, h in RESIZE_SIZES:
                res = mx.image.imresize(mx.nd.array(img, dtype=img.dtype), w, h, interp=code)
                out[f"{key}.{code}.{w}x{h}"] = res.asnumpy()
    from mxnet.gluon.data.vision import transforms

    for code in range(5):
        res = transforms.Resize((9, 13), interpolation=code)(mx.nd.array(images["u8"], dtype=np.uint8))
        out[f"transforms.{code}"] = res.asnumpy()
    np.savez_compressed(OUT / "resize.npz", **out)


CORPUS = """ = Valkyria Chronicles III =

 Senjō no Valkyria 3 : Unrecorded Chronicles is a tactical role @-@ playing game .
 The game began development in 2010 , carrying over a large portion of the work .

 = = Gameplay = =

 As with previous games , the game is a tactical role @-@ playing game .
"""
VALID = """ = Other =
 The game is a role of the work that nobody knows .
"""


def text() -> None:
    from mxnet.gluon.contrib.data import text as mtext

    mtext.check_sha1 = lambda *a, **k: True  # read the local synthetic files as MXNet's own
    out = {"corpus": np.array(CORPUS), "valid": np.array(VALID)}
    with tempfile.TemporaryDirectory() as root:
        Path(root, "wiki.train.tokens").write_text(CORPUS, encoding="utf8")
        Path(root, "wiki.valid.tokens").write_text(VALID, encoding="utf8")
        for seq_len in (5, 35):
            ds = mtext.WikiText2(root=root, segment="train", seq_len=seq_len)
            out[f"train{seq_len}.data"] = (
                np.stack([ds[i][0].asnumpy() for i in range(len(ds))])
                if len(ds)
                else np.zeros((0, seq_len), np.int32)
            )
            out[f"train{seq_len}.label"] = (
                np.stack([ds[i][1].asnumpy() for i in range(len(ds))])
                if len(ds)
                else np.zeros((0, seq_len), np.int32)
            )
        out["vocab"] = np.array(json.dumps(ds.vocabulary.idx_to_token))
        out["freq"] = np.array(json.dumps(sorted(ds.frequencies.items())))
        val = mtext.WikiText2(root=root, segment="validation", seq_len=4, vocab=ds.vocabulary)
        out["valid4.data"] = np.stack([val[i][0].asnumpy() for i in range(len(val))])
        out["valid4.label"] = np.stack([val[i][1].asnumpy() for i in range(len(val))])
    np.savez_compressed(OUT / "text.npz", **out)


OPTIMIZERS = {
    "lbsgd_linear": (
        "lbsgd",
        {
            "learning_rate": 0.1,
            "momentum": 0.9,
            "wd": 0.01,
            "batch_scale": 3,
            "warmup_epochs": 1,
            "updates_per_epoch": 4,
            "warmup_strategy": "linear",
        },
    ),
    "lbsgd_power2": (
        "lbsgd",
        {
            "learning_rate": 0.1,
            "batch_scale": 2,
            "warmup_epochs": 2,
            "updates_per_epoch": 3,
            "warmup_strategy": "power2",
            "rescale_grad": 0.5,
        },
    ),
    "lbsgd_sqrt": (
        "lbsgd",
        {
            "learning_rate": 0.05,
            "momentum": 0.5,
            "batch_scale": 2,
            "warmup_epochs": 1,
            "updates_per_epoch": 8,
            "warmup_strategy": "sqrt",
            "begin_epoch": 1,
            "clip_gradient": 0.6,
        },
    ),
    "lbsgd_lars": ("lbsgd", {"learning_rate": 0.1, "wd": 0.001, "batch_scale": 2, "warmup_strategy": "lars"}),
    "lbsgd_plain": ("lbsgd", {"learning_rate": 0.2}),
    "test": ("test", {"rescale_grad": 0.5}),
    "groupadagrad": (
        "groupadagrad",
        {"learning_rate": 0.1, "eps": 1e-5, "rescale_grad": 2.0, "clip_gradient": 1.5},
    ),
}


def optimizer() -> None:
    rs = np.random.RandomState(5)
    w0 = rs.uniform(-1, 1, (4, 3)).astype(np.float32)
    grads = rs.uniform(-2, 2, (6, 4, 3)).astype(np.float32)
    out = {"w0": w0, "grads": grads, "__config__": np.array(json.dumps(OPTIMIZERS, sort_keys=True))}
    for key, (name, kwargs) in OPTIMIZERS.items():
        opt = mx.optimizer.create(name, **kwargs)
        w = mx.nd.array(w0)
        state = opt.create_state(0, w)
        for step in range(len(grads)):
            opt.update(0, w, mx.nd.array(grads[step]), state)
            out[f"{key}.w{step}"] = w.asnumpy()
    np.savez_compressed(OUT / "optimizer.npz", **out)


SECTIONS = {"ops": ops, "resize": resize, "text": text, "optimizer": optimizer}


def main(argv: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in argv or list(SECTIONS):
        SECTIONS[name]()
        print(f"{name}: written", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
