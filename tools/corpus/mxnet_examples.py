# ruff: noqa: E501  (the EXAMPLES table: one example per entry, its arguments on a line)
"""MXNet's own example programs (apache/mxnet, branch v1.x) under MXNet 1.9.1 and under
``python -m framework.run``, with local or synthetic data, comparing the metrics they print.

    python tools/corpus/mxnet_examples.py                       # every example below
    python tools/corpus/mxnet_examples.py lstm_crf actor_critic --mx-runs 3

The examples' files are extracted from the git snapshot (``--mxnet-git``, ``--rev`` v1.x) into
``--work``; nothing of them enters this repository. Each runs in a directory of its own per side, made
small by its own command-line arguments and, where it has none, by the mechanical reductions listed in
``EXAMPLES`` (a loop bound, the size of a synthetic data set), applied to the extracted copy for both
sides alike. Local data:

- MNIST-family examples read Fashion-MNIST (``--fashion-mnist``: the same IDX files and shapes; the
  examples' ``vision.MNIST`` is spelt ``vision.FashionMNIST`` in the copy);
- CartPole: ``tools/corpus/fake_gym`` (the classic equations) stands in for gym;
- image folders (BSDS500, CUB-200, style images) are random images made here, and the style-transfer
  VGG weights are a random initialisation saved by MXNet;
- MXNet checks the SHA-1 of its hosted data files; a ``sitecustomize`` for MXNet's side only accepts a
  file that is present locally (``mxnet.gluon.utils.check_sha1``), as no hosted file is reachable.

MXNet runs ``--mx-runs`` times and ours ``--our-runs`` times (seeds 1, 2, ... where the example takes
``--seed``); a metric of ours (the median of our runs) is within MXNet's spread when it lies in [min, max]
of MXNet's runs widened by the metric's tolerance
(``max(abs, rel * |value|)``, given per metric below: a few batches of training move metrics a lot). Our
side also reports how many XLA programs it compiled (jax.monitoring). The table goes to stdout and
``<work>/examples_table.md``; the last line is the summary.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as onp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gcv_common import MXNET_GIT, MXNET_PYTHON, ROOT, env_with, extract, markdown_table, run_logged  # noqa: E402

HERE = Path(__file__).resolve().parent
MX_SITE = '''# written by tools/corpus/mxnet_examples.py for MXNet's side: local files stand in for hosted ones
import mxnet.gluon.utils as _u
_check = _u.check_sha1
def _present(filename, sha1_hash):
    import os
    return os.path.exists(filename) or _check(filename, sha1_hash)
_u.check_sha1 = _present
import mxnet.gluon.data.vision.datasets as _d
_d.check_sha1 = _present
import mxnet.gluon.contrib.data.text as _t
_t.check_sha1 = _present
'''
COUNT_COMPILES = '''# written by tools/corpus/mxnet_examples.py: our side counts XLA compiles
import atexit, sys
import jax.monitoring
_n = [0]
def _listen(event, duration, **kw):
    if event == "/jax/core/compile/backend_compile_duration":
        _n[0] += 1
jax.monitoring.register_event_duration_secs_listener(_listen)
atexit.register(lambda: print("[runner] XLA compiles: %d" % _n[0], file=sys.stderr))
# local files stand in for hosted ones, as on MXNet's side (the text data sets check MXNet's SHA-1)
import os
import framework.gluon.contrib.data.text as _t
_check = _t.check_sha1
_t.check_sha1 = lambda filename, sha1_hash: os.path.exists(filename) or _check(filename, sha1_hash)
'''


@dataclass
class Example:
    name: str
    files: list[str]  # paths in the mxnet repository
    cwd: str  # directory (in the repository) the script runs in
    script: str
    args: list[str]
    metrics: dict[str, tuple[str, float, float]]  # name -> (regex with one group, abs tol, rel tol)
    reductions: list[tuple[str, str, str]] = field(default_factory=list)  # (file, old, new)
    seed_arg: str | None = None
    setup: str | None = None  # name of a function below that makes the example's local data
    timeout: int = 1800


G = "example/gluon"
IC = "example/image-classification"  # the Module (symbolic) path
EXAMPLES = [
    Example("image_classification", [f"{G}/image_classification.py", f"{G}/data.py"], G, "image_classification.py",
            ["--dataset", "dummy", "--model", "resnet18_v1", "--batch-size", "2", "--epochs", "1",
             "--num-worker", "0", "--log-interval", "2", "--save-frequency", "0"],
            {"train_acc": (r"training: accuracy=([-\d.e]+)", 0.5, 0.0),
             "val_acc": (r"validation: accuracy=([-\d.e]+)", 0.5, 0.0)},
            [("data.py", "batches = 100", "batches = 4")], seed_arg="--seed"),
    Example("image_classification_hybrid", [f"{G}/image_classification.py", f"{G}/data.py"], G,
            "image_classification.py",
            ["--dataset", "dummy", "--model", "resnet18_v1", "--batch-size", "2", "--epochs", "1", "--mode",
             "hybrid", "--num-worker", "0", "--log-interval", "2", "--save-frequency", "0"],
            {"train_acc": (r"training: accuracy=([-\d.e]+)", 0.5, 0.0),
             "val_acc": (r"validation: accuracy=([-\d.e]+)", 0.5, 0.0)},
            [("data.py", "batches = 100", "batches = 4")], seed_arg="--seed"),
    Example("lstm_crf", [f"{G}/lstm_crf/lstm_crf.py"], f"{G}/lstm_crf", "lstm_crf.py", [],
            {"nll": (r"Negative Log Likelihood ([-\d.e]+)", 1.0, 0.3)},
            [("lstm_crf.py", "for epoch in range(300):", "for epoch in range(3):")]),
    Example("actor_critic", [f"{G}/actor_critic/actor_critic.py"], f"{G}/actor_critic", "actor_critic.py",
            ["--log-interval", "5"],
            {"avg_length": (r"Average length: ([-\d.e]+)", 5.0, 0.5)},
            [("actor_critic.py", "for epoch in count(1):", "for epoch in range(1, 21):")], seed_arg="--seed"),
    Example("embedding_learning", [f"{G}/embedding_learning/train.py", f"{G}/embedding_learning/model.py",
                                   f"{G}/embedding_learning/data.py"], f"{G}/embedding_learning", "train.py",
            ["--data-path", "cub", "--model", "resnet18_v2", "--batch-size", "10", "--batch-k", "5",
             "--epochs", "1", "--log-interval", "2", "--steps", "12"],
            {"train_loss": (r"\] training loss=([-\d.e]+)", 2.0, 0.5),
             "recall1": (r"validation: Recall@1=([-\d.e]+)", 0.2, 0.0)},
            [("train.py", "for i in range(200):", "for i in range(4):")], seed_arg="--seed", setup="cub"),
    Example("rbm_gluon", ["example/restricted-boltzmann-machine/binary_rbm_gluon.py",
                          "example/restricted-boltzmann-machine/binary_rbm.py"],
            "example/restricted-boltzmann-machine", "binary_rbm_gluon.py",
            ["--num-hidden", "50", "--k", "2", "--batch-size", "80", "--num-epoch", "1", "--ais-batch-size", "20",
             "--ais-num-batch", "1", "--ais-intermediate-steps", "2", "--ais-burn-in-steps", "2",
             "--data-loader-num-worker", "0", "--no-cuda"],
            {"test_ll": (r"test log-likelihood ([-\d.e]+)", 30.0, 0.3),
             "train_ll": (r"train log-likelihood ([-\d.e]+)", 30.0, 0.3)},
            [("binary_rbm_gluon.py", "mx.gluon.data.vision.MNIST(", "mx.gluon.data.vision.FashionMNIST(root='./data', "),
             ("binary_rbm_gluon.py", "showcase_num_samples_w = ", "import sys; sys.exit(0)\nshowcase_num_samples_w = ")],
            setup="fashion"),
    Example("style_transfer", [f"{G}/style_transfer/main.py", f"{G}/style_transfer/net.py",
                               f"{G}/style_transfer/utils.py", f"{G}/style_transfer/option.py",
                               f"{G}/style_transfer/data.py"], f"{G}/style_transfer", "main.py",
            ["optim", "--content-image", "content.jpg", "--style-image", "style.jpg", "--content-size", "64",
             "--style-size", "64", "--iters", "4", "--log-interval", "1", "--cuda", "0", "--output-image",
             "out.jpg"],
            {"loss": (r"loss:([-\d.e]+)", 0.0, 0.5)}, setup="style"),
    Example("word_language_model", [f"{G}/word_language_model/train.py", f"{G}/word_language_model/model.py"],
            f"{G}/word_language_model", "train.py",
            ["--emsize", "16", "--nhid", "16", "--nlayers", "1", "--epochs", "1", "--batch_size", "4",
             "--bptt", "8", "--log-interval", "5", "--lr", "1"],
            {"valid_loss": (r"valid loss ([-\d.e]+)", 1.0, 0.2), "test_loss": (r"test loss ([-\d.e]+)", 1.0, 0.2)},
            setup="wikitext"),
    Example("super_resolution", [f"{G}/super_resolution/super_resolution.py", f"{G}/data.py"],
            f"{G}/super_resolution", "super_resolution.py",
            ["--epochs", "1", "--batch_size", "4", "--test_batch_size", "4"],
            {"train_mse": (r"training mse at epoch 0: mse=([-\d.e]+)", 0.05, 0.5),
             "val_psnr": (r"validation avg psnr: ([-\d.e]+)", 2.0, 0.2)},
            [("super_resolution.py", "from data import ImagePairIter", "sys.path.insert(0, '..')\nfrom data import ImagePairIter")],
            seed_arg="--seed", setup="bsds"),
    Example("dc_gan", [f"{G}/dc_gan/dcgan.py", f"{G}/dc_gan/inception_score.py"], f"{G}/dc_gan", "dcgan.py",
            ["--dataset", "mnist", "--nepoch", "1", "--batch-size", "16", "--ngf", "8", "--ndf", "8", "--nz", "10",
             "--inception_score", "", "--check-point", ""],
            {"d_loss": (r"discriminator loss = ([-\d.e]+)", 1.0, 0.5), "g_loss": (r"generator loss = ([-\d.e]+)", 2.0, 0.5)},
            [("dcgan.py", "gluon.data.vision.MNIST('./data', train=True, transform=transformer)",
              "gluon.data.vision.FashionMNIST('./data', train=True, transform=transformer).take(64)"),
             ("dcgan.py", "gluon.data.vision.MNIST('./data', train=False, transform=transformer)",
              "gluon.data.vision.FashionMNIST('./data', train=False, transform=transformer).take(32)")],
            setup="fashion"),
    Example("train_mnist", [f"{IC}/train_mnist.py", *(f"{IC}/common/{f}.py" for f in ("__init__", "find_mxnet", "fit", "util")),
                            *(f"{IC}/symbols/{f}.py" for f in ("__init__", "mlp", "lenet"))], IC, "train_mnist.py",
            ["--num-epochs", "1", "--network", "mlp"],
            {"val_acc": (r"Epoch\[0\] Validation-accuracy=([-\d.e]+)", 0.03, 0.0)}, setup="fashion"),
    Example("mnist", [f"{G}/mnist/mnist.py"], f"{G}/mnist", "mnist.py",
            ["--epochs", "1", "--batch-size", "100", "--log-interval", "100"],
            {"val_acc": (r"Validation: accuracy=([-\d.e]+)", 0.03, 0.0)},
            [("mnist.py", "gluon.data.vision.MNIST('./data', train=True", "gluon.data.vision.FashionMNIST('./data', train=True"),
             ("mnist.py", "gluon.data.vision.MNIST('./data', train=False", "gluon.data.vision.FashionMNIST('./data', train=False")],
            setup="fashion"),
]


# ---------------------------------------------------------------- local data
def _images(folder: Path, n: int, size: tuple[int, int], seed: int, ext: str = "jpg") -> list[Path]:
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = onp.random.RandomState(seed)
    out = []
    for i in range(n):
        p = folder / f"img{i:04d}.{ext}"
        Image.fromarray(rng.randint(0, 256, (size[1], size[0], 3)).astype("uint8")).save(p)
        out.append(p)
    return out


def setup_fashion(d: Path, opts) -> None:
    (d / "data").mkdir(exist_ok=True)
    for f in Path(opts.fashion_mnist).glob("*.gz"):
        shutil.copy(f, d / "data" / f.name)


def setup_cub(d: Path, opts) -> None:
    from PIL import Image

    root = d / "cub"
    lines_img, lines_lab, lines_box = [], [], []
    k = 0
    for cls in range(200):
        for j in range(5 if cls < 100 else 1):
            rel = f"c{cls:03d}/i{j}.jpg"
            (root / "images" / f"c{cls:03d}").mkdir(parents=True, exist_ok=True)

            rng = onp.random.RandomState(cls * 10 + j)
            Image.fromarray(rng.randint(0, 256, (40, 40, 3)).astype("uint8")).save(root / "images" / rel)
            k += 1
            lines_img.append(f"{k} {rel}")
            lines_lab.append(f"{k} {cls + 1}")
            lines_box.append(f"{k} 2.0 2.0 36.0 36.0")
    (root / "images.txt").write_text("\n".join(lines_img) + "\n")
    (root / "image_class_labels.txt").write_text("\n".join(lines_lab) + "\n")
    (root / "bounding_boxes.txt").write_text("\n".join(lines_box) + "\n")


def setup_bsds(d: Path, opts) -> None:
    base = d / "home" / ".mxnet" / "datasets" / "BSDS500" / "images"
    _images(base / "train", 8, (300, 300), 1)
    _images(base / "test", 4, (300, 300), 2)
    (d.parent / "BSDS500").mkdir(exist_ok=True)


def setup_style(d: Path, opts) -> None:
    from PIL import Image

    rng = onp.random.RandomState(3)
    for name in ("content.jpg", "style.jpg"):
        Image.fromarray(rng.randint(0, 256, (80, 80, 3)).astype("uint8")).save(d / name)
    (d / "models").mkdir(exist_ok=True)
    weights = opts.work / "mxvgg.params"
    if not weights.exists():  # a random VGG-16 initialisation saved by MXNet (the example loads mxvgg.params)
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import mxnet as mx; import net; v = net.Vgg16(); "
                "v.initialize(mx.init.Xavier()); v(mx.nd.ones((1, 3, 64, 64))); "
                "v.collect_params().save(sys.argv[2])")
        import subprocess

        subprocess.run([opts.mxnet_python, "-c", code, str(d), str(weights)], check=True, cwd=d,
                       env=env_with(opts.mxnet_path))
    shutil.copy(weights, d / "models" / "mxvgg.params")


def setup_wikitext(d: Path, opts) -> None:
    rng = onp.random.RandomState(5)
    words = [f"w{i}" for i in range(50)]
    root = d / "data"  # the example's WikiText2 root
    root.mkdir(parents=True, exist_ok=True)
    for name, n in (("wiki.train.tokens", 400), ("wiki.valid.tokens", 80), ("wiki.test.tokens", 80)):
        lines = [" ".join(rng.choice(words, 12)) for _ in range(n // 12 + 1)]
        (root / name).write_text("\n".join(lines) + "\n")


SETUPS = {"fashion": setup_fashion, "cub": setup_cub, "bsds": setup_bsds, "style": setup_style,
          "wikitext": setup_wikitext}


def prepare(ex: Example, src: Path, side_dir: Path, opts) -> Path:
    """A fresh copy of the example's directory for one side, reduced, with its data."""
    if side_dir.exists():
        shutil.rmtree(side_dir)
    shutil.copytree(src / ex.cwd, side_dir)
    for f in ex.files:  # a module the example imports from outside its directory (example/gluon/data.py)
        if not f.startswith(ex.cwd + "/"):
            shutil.copy(src / f, side_dir / Path(f).name)
    for fname, old, new in ex.reductions:
        path = side_dir / fname
        text = path.read_text()
        if old not in text:
            raise RuntimeError(f"{ex.name}: reduction target {old!r} not found in {fname}")
        path.write_text(text.replace(old, new))
    if ex.setup:
        SETUPS[ex.setup](side_dir, opts)
    return side_dir


def metrics_of(ex: Example, text: str) -> dict[str, float]:
    out = {}
    for name, (pattern, _, _) in ex.metrics.items():
        found = re.findall(pattern, text)
        if found:
            try:
                out[name] = float(found[-1])
            except ValueError:
                pass
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("examples", nargs="*", help=f"some of: {', '.join(e.name for e in EXAMPLES)}")
    ap.add_argument("--mxnet-git", default=MXNET_GIT)
    ap.add_argument("--rev", default="v1.x")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mxnet_examples"))
    ap.add_argument("--mxnet-python", default=MXNET_PYTHON)
    ap.add_argument("--mxnet-path", action="append", default=[])
    ap.add_argument("--our-path", action="append", default=[])
    ap.add_argument("--fashion-mnist", default="/usr/share/datasets/fashion-mnist",
                    help="directory with Fashion-MNIST's four .gz files")
    ap.add_argument("--mx-runs", type=int, default=2)
    ap.add_argument("--our-runs", type=int, default=1,
                    help="runs on our side (seeds 1, 2, ...); the median of their metrics is compared")
    ap.add_argument("--skip-mxnet", action="store_true", help="reuse MXNet's logs of an earlier run")
    opts = ap.parse_args(argv)

    chosen = [e for e in EXAMPLES if not opts.examples or e.name in opts.examples]
    unknown = set(opts.examples) - {e.name for e in EXAMPLES}
    if unknown:
        raise SystemExit(f"unknown examples: {sorted(unknown)}")
    work: Path = opts.work
    work.mkdir(parents=True, exist_ok=True)
    files = sorted({f for e in chosen for f in e.files})
    src = extract(opts.mxnet_git, opts.rev, files, work / "src")
    mx_site = work / "mx_site"
    mx_site.mkdir(exist_ok=True)
    (mx_site / "sitecustomize.py").write_text(MX_SITE)
    our_site = work / "our_site"
    our_site.mkdir(exist_ok=True)
    (our_site / "sitecustomize.py").write_text(COUNT_COMPILES)

    rows, within_all = [], 0
    for ex in chosen:
        mx_values: list[dict[str, float]] = []
        notes = []
        for run in range(opts.mx_runs):
            d = work / ex.name / f"mxnet{run}"
            log = work / ex.name / f"mxnet{run}.log"
            if not (opts.skip_mxnet and log.exists()):
                prepare(ex, src, d, opts)
                log.unlink(missing_ok=True)
                args = list(ex.args) + ([ex.seed_arg, str(run + 1)] if ex.seed_arg else [])
                env = env_with([str(mx_site), str(HERE / "fake_gym"), *opts.mxnet_path], HOME=str(d / "home"),
                               OMP_NUM_THREADS="1")
                rc, secs = run_logged([opts.mxnet_python, ex.script, *args], env, d, log, ex.timeout)
                if rc != 0:
                    notes.append(f"MXNet run {run} rc {rc}")
            mx_values.append(metrics_of(ex, log.read_text(errors="replace")))
        our_values: list[dict[str, float]] = []
        compiles: list[str] = []
        for run in range(opts.our_runs):
            d = work / ex.name / ("ours" if run == 0 else f"ours{run}")
            log = work / ex.name / ("ours.log" if run == 0 else f"ours{run}.log")
            prepare(ex, src, d, opts)
            log.unlink(missing_ok=True)
            args = list(ex.args) + ([ex.seed_arg, str(run + 1)] if ex.seed_arg else [])
            env = env_with([str(our_site), str(ROOT), str(HERE / "fake_gym"), *opts.our_path],
                           HOME=str(d / "home"))
            rc, secs = run_logged([sys.executable, "-m", "framework.run", ex.script, *args], env, d, log,
                                  ex.timeout)
            text = log.read_text(errors="replace")
            our_values.append(metrics_of(ex, text))
            compiles += re.findall(r"\[runner\] XLA compiles: (\d+)", text)[-1:]
            if rc != 0:
                break
        within = rc == 0 and all(our_values)
        cells = []
        for name, (_, abs_tol, rel_tol) in ex.metrics.items():
            ref = [v[name] for v in mx_values if name in v]
            mine = [v[name] for v in our_values if name in v]
            got = float(onp.median(mine)) if mine else None
            if not ref or got is None:
                within = False
                cells.append(f"{name}: ours {got} / MXNet {ref or '-'}")
                continue
            lo, hi = min(ref), max(ref)
            tol = max(abs_tol, rel_tol * max(abs(lo), abs(hi)))
            ok = lo - tol <= got <= hi + tol
            within &= ok
            spread = f" (ours [{min(mine):.4g}, {max(mine):.4g}])" if len(mine) > 1 else ""
            cells.append(f"{name}: {got:.4g}{spread} in [{lo:.4g}, {hi:.4g}]±{tol:.2g}{'' if ok else ' NO'}")
        if rc != 0:
            err = [line for line in text.splitlines() if line.strip() and not line.startswith("[runner]")][-1:] or ["?"]
            notes.append(f"ours rc {rc}: {err[0][:200]}")
        within_all += within
        rows.append([ex.name, "yes" if rc == 0 else "no", "; ".join(cells), "/".join(compiles) or "-",
                     f"{secs:.0f}", "yes" if within else "no", " ".join(notes)])
        print(f"[{ex.name}] ours rc {rc}, within MXNet's spread: {within}", flush=True)
    table = markdown_table(["example", "ours completes", "metrics (ours in MXNet's [min, max] ± tol)",
                            "XLA compiles", "s ours", "within spread", "notes"], rows)
    summary = (f"mxnet examples: {len(chosen)} run; ours completed {sum(r[1] == 'yes' for r in rows)}, "
               f"within MXNet 1.9.1's spread {within_all}")
    (work / "examples_table.md").write_text(table + "\n\n" + summary + "\n")
    print(table)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
