"""GluonCV's model zoo under ``python -m framework.run``, compared with MXNet 1.9.1.

    python tools/corpus/gluoncv.py --named            # the 17 models the issue names
    python tools/corpus/gluoncv.py --all              # every gluoncv.model_zoo.get_model_list() entry
    python tools/corpus/gluoncv.py resnet18_v1b darknet53 --work /tmp/gcv_corpus

GluonCV's ``gluoncv`` package is extracted from a git snapshot (``--gluoncv-git``, ``--rev``; default
the mirror's master) into ``--work``; nothing of it enters this repository. For each model,
``tools/corpus/gluoncv_child.py`` (an ordinary MXNet program) runs twice:

1. under MXNet 1.9.1 (``--mxnet-python``): build with ``pretrained=False`` (no pretrained base network;
   three classes where a constructor requires them), initialise, give BatchNorm's running statistics
   random values, run one inference forward on a fixed random input, save the parameters and outputs;
2. under ``python -m framework.run`` with this repository's framework: build the same model, load the
   reference's parameters, run the same input, save the outputs.

Some constructors cannot be built with no network: GluonCV's action-recognition models end in
``collect_params().reset_ctx(ctx)``, which MXNet 1.9.1 refuses for Parameters that only a pretrained
download would have initialised (allowance ``reset_ctx``: that call made a no-op for uninitialised
Parameters), and some build their base network with ``pretrained=True`` whatever ``pretrained_base``
says (allowance ``download``: ``get_model_file`` fetches nothing and the load is skipped, so the base is
initialised at random as the rest of the model is). An allowance is made only when the constructor
fails without it, on both sides alike; the summary counts the matches built with each.

A model matches when it has the same number of outputs, of the same shapes, and the largest absolute
difference over every output is at most ``--tol`` (1e-4) of that output's largest magnitude, or, for a
detector whose outputs are aligned rows (ids, scores, boxes), when the two sides hold the same rows in
another order (rows of equal score come out in the order each sort happens to give). The table
(model, reference, built, forward, match, max relative error, error) goes to stdout and
``<work>/gluoncv_table.md``; the last line is the summary. Runs resume: models already in a phase's log
are skipped (``--fresh`` starts over;
``--retry`` runs our side again for the models that did not match).
``--chunk N`` runs both sides N models at a time, and ``--prune`` then deletes the parameters and outputs of
each model once it is decided (matched, or failed under MXNet), keeping the verdict in
``<out>/compare.jsonl``: the whole zoo's parameters take tens of gigabytes. A model that crashes its
process is recorded and the run goes on.

GluonCV imports tqdm, portalocker, Pillow and scipy; give MXNet's interpreter and ours a directory with
them through ``--mxnet-path`` / ``--our-path`` (e.g. ``/tmp/mx/bin/python -m pip install --target
/tmp/gcv_mxdeps tqdm portalocker pillow 'scipy<1.12' numpy==1.23.5``: without the pin, scipy brings a
NumPy that MXNet 1.9.1 cannot import).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as onp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gcv_common import (  # noqa: E402
    GLUONCV_GIT,
    MXNET_PYTHON,
    ROOT,
    env_with,
    extract,
    markdown_table,
    our_command,
    read_jsonl,
    run_logged,
)

CHILD = Path(__file__).resolve().parent / "gluoncv_child.py"
NAMED = ["resnet18_v1b", "resnet50_v1d", "mobilenetv3_small", "se_resnext50_32x4d", "resnest14",
         "mobilenet1.0", "cifar_resnet20_v1", "densenet121", "googlenet", "darknet53",
         "ssd_300_vgg16_atrous_voc",
         "yolo3_darknet53_voc", "faster_rcnn_resnet50_v1b_voc", "center_net_resnet18_v1b_voc",
         "fcn_resnet50_voc", "deeplab_resnet50_ade", "simple_pose_resnet18_v1b"]


def model_list(src: Path, mx_python: str, env: dict[str, str], work: Path) -> list[str]:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from gluoncv.model_zoo import model_zoo; "
            "print('\\n'.join(model_zoo.get_model_list()))")
    import subprocess

    proc = subprocess.run([mx_python, "-c", code, str(src)], env=env, capture_output=True, text=True,
                          cwd=work, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"cannot list GluonCV's models under MXNet:\n{proc.stderr[-3000:]}\n"
                         "Give MXNet's interpreter GluonCV's dependencies with --mxnet-path (see --help).")
    return [n for n in proc.stdout.split() if n]


def run_phase(mode: str, models: list[str], cmd_for, env: dict[str, str], out: Path, timeout: int,
              log: Path) -> dict[str, dict]:
    """Run the child over ``models`` not yet in ``<out>/<mode>.jsonl``; restart after a crash."""
    jsonl = out / f"{mode}.jsonl"
    while True:
        entries = read_jsonl(jsonl)
        done = {e["model"]: e for e in entries if "model" in e}
        started = [e["start"] for e in entries if "start" in e]
        for name in started:
            if name not in done:  # the process died while running it
                rec = {"model": name, "built": False, "forward": False, "error": "process crashed",
                       "seconds": 0}
                with open(jsonl, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                done[name] = rec
        todo = [m for m in models if m not in done]
        if not todo:
            return done
        print(f"[{mode}] {len(todo)} model(s) to run", flush=True)
        rc, secs = run_logged(cmd_for(todo), env, out, log, timeout=timeout * len(todo) + 600)
        after = read_jsonl(jsonl)
        if len(after) == len(entries):  # nothing happened: the program cannot start at all
            tail = log.read_text(errors="replace")[-3000:]
            for name in todo:
                done[name] = {"model": name, "built": False, "forward": False, "seconds": 0,
                              "error": f"{mode} program failed to start (rc {rc}); see {log}"}
            print(tail, file=sys.stderr)
            return done


def compare(name: str, out: Path, n_ref: int, n_ours: int, tol: float) -> tuple[bool, float, str]:
    if n_ref != n_ours:
        return False, float("nan"), f"{n_ours} outputs, MXNet {n_ref}"
    refs = [onp.load(out / f"{name}.reference.out{i}.npy", allow_pickle=False) for i in range(n_ref)]
    ours = [onp.load(out / f"{name}.ours.out{i}.npy", allow_pickle=False) for i in range(n_ref)]
    worst = 0.0
    for i, (ref, our) in enumerate(zip(refs, ours, strict=True)):
        if ref.shape != our.shape:
            return False, float("nan"), f"output {i}: shape {our.shape}, MXNet {ref.shape}"
        if ref.size == 0:
            continue
        ref64, ours64 = ref.astype(onp.float64), our.astype(onp.float64)
        if not onp.isfinite(ref64).all():
            same = onp.array_equal(onp.isnan(ref64), onp.isnan(ours64))
            mask = onp.isfinite(ref64)
            if not same:
                return False, float("nan"), f"output {i}: non-finite values differ"
            ref64, ours64 = ref64[mask], ours64[mask]
            if ref64.size == 0:
                continue
        scale = max(float(onp.abs(ref64).max()), 1e-12)
        worst = max(worst, float(onp.abs(ref64 - ours64).max()) / scale)
    if worst > tol and _same_rows(refs, ours, tol):
        return True, tol, "the same detections; rows of equal score in another order"
    return worst <= tol, worst, ""


def _rows(arrays: list[onp.ndarray]) -> list[onp.ndarray] | None:
    """A detector's outputs (ids, scores, boxes: each (batch, N, ...)) as one (N, k) row matrix per
    batch element; None when the outputs are not row-aligned that way."""
    if len(arrays) < 2 or any(a.ndim < 2 or a.shape[:2] != arrays[0].shape[:2] for a in arrays):
        return None
    batch, rows = arrays[0].shape[:2]
    return [onp.concatenate([a[b].reshape(rows, -1).astype(onp.float64) for a in arrays], axis=1)
            for b in range(batch)]


def _same_rows(refs: list[onp.ndarray], ours: list[onp.ndarray], tol: float) -> bool:
    """Whether the two sides' detections are the same rows up to order: a detector orders rows of
    equal score as its sort happens to (MXNet's topk/NMS and XLA's differ), so each side's rows are put
    in one canonical order (by their values rounded to the tolerance of their column) before each column
    is compared within twice its tolerance."""
    ref, our = _rows(refs), _rows(ours)
    if ref is None or our is None:
        return False
    for r, o in zip(ref, our, strict=True):
        if not (onp.isfinite(r).all() and onp.isfinite(o).all()):
            return False
        step = tol * onp.maximum(onp.abs(r).max(axis=0), 1e-12)
        canon = [m[onp.lexsort(onp.round(m / step).T[::-1])] for m in (r, o)]
        if not (onp.abs(canon[0] - canon[1]) <= 2 * step).all():
            return False
    return True


def forget_failures(out: Path, verdicts: dict[str, dict]) -> None:
    """Drop our side's entries for the models that did not match, so that they run again."""
    jsonl = out / "ours.jsonl"
    ref = {e["model"]: e for e in read_jsonl(out / "reference.jsonl") if "model" in e}
    keep = []
    for e in read_jsonl(jsonl):
        name = e.get("model", e.get("start"))
        if name in verdicts or not ref.get(name, {}).get("forward"):
            keep.append(e)
        elif e.get("forward") and (out / f"{name}.ours.out0.npy").exists():
            r = ref[name]
            if compare(name, out, r.get("outputs", 0), e.get("outputs", 0), 1e-4)[0]:
                keep.append(e)
    tmp = jsonl.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(e) + "\n" for e in keep))
    tmp.replace(jsonl)


def prune(out: Path, models: list[str], tol: float, verdicts: dict[str, dict]) -> None:
    """Record the verdict of each decided model in compare.jsonl and delete its large files."""
    ref = {e["model"]: e for e in read_jsonl(out / "reference.jsonl") if "model" in e}
    ours = {e["model"]: e for e in read_jsonl(out / "ours.jsonl") if "model" in e}
    for m in models:
        r, o = ref.get(m), ours.get(m)
        if r is None or m in verdicts:
            continue
        if r.get("forward") and o and o.get("forward"):
            match, err, why = compare(m, out, r.get("outputs", 0), o.get("outputs", 0), tol)
        elif not r.get("forward"):
            match, err, why = False, float("nan"), ""
        else:
            continue  # our side failed: keep the files so that --retry can run it again
        if r.get("forward") and not match:
            continue
        rec = {"model": m, "match": match, "err": err, "why": why}
        with open(out / "compare.jsonl", "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        verdicts[m] = rec
        n_out = max(r.get("outputs", 0), (o or {}).get("outputs", 0))
        files = [f"{m}.params", f"{m}.input.npy"]
        files += [f"{m}.{side}.out{i}.npy" for side in ("reference", "ours") for i in range(n_out)]
        for f in files:
            (out / f).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--named", action="store_true", help="the 17 models of the issue")
    ap.add_argument("--all", action="store_true", help="every get_model_list() entry")
    ap.add_argument("--gluoncv-git", default=GLUONCV_GIT)
    ap.add_argument("--rev", default="master")
    ap.add_argument("--work", default="/tmp/gcv_corpus", type=Path)
    ap.add_argument("--mxnet-python", default=MXNET_PYTHON)
    ap.add_argument("--mxnet-path", action="append", default=[],
                    help="extra PYTHONPATH entry for MXNet's side")
    ap.add_argument("--our-path", action="append", default=[], help="extra PYTHONPATH entry for our side")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per model and side")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--phase", choices=("all", "reference", "ours", "compare"), default="all")
    ap.add_argument("--fresh", action="store_true", help="forget earlier results in --work")
    ap.add_argument("--retry", action="store_true", help="run our side again where it did not match")
    ap.add_argument("--chunk", type=int, default=0, help="run both sides this many models at a time")
    ap.add_argument("--prune", action="store_true",
                    help="delete a decided model's parameters and outputs (verdict kept in compare.jsonl)")
    args = ap.parse_args(argv)

    work: Path = args.work
    if args.fresh and (work / "out").exists():
        shutil.rmtree(work / "out")
    src = extract(args.gluoncv_git, args.rev, ["gluoncv"], work / "src")
    out = work / "out"
    out.mkdir(parents=True, exist_ok=True)
    mx_env = env_with(args.mxnet_path, OMP_NUM_THREADS="1")
    our_env = env_with([str(ROOT), *args.our_path])
    listed = model_list(src, args.mxnet_python, mx_env, work)
    if args.all:
        models = NAMED + [m for m in listed if m not in NAMED]
    elif args.named:
        models = list(NAMED)
    else:
        models = args.models or list(NAMED)
    unknown = [m for m in models if m not in listed]
    if unknown:
        raise SystemExit(f"not in gluoncv.model_zoo.get_model_list(): {unknown}")

    common = ["--src", str(src), "--out", str(out), "--timeout", str(args.timeout)]
    log = work / "gluoncv_runs.log"
    verdicts = {e["model"]: e for e in read_jsonl(out / "compare.jsonl") if "model" in e}
    if args.retry:
        forget_failures(out, verdicts)
    step = args.chunk or len(models)
    for lo in range(0, len(models), step):
        chunk = [m for m in models[lo:lo + step] if m not in verdicts]
        if args.phase in ("all", "reference") and chunk:
            run_phase("reference", chunk, lambda todo: [args.mxnet_python, str(CHILD), "--mode",
                                                         "reference", *common, *todo],
                      mx_env, out, args.timeout, log)
        if args.phase in ("all", "ours") and chunk:
            ready = [m for m in chunk if (out / f"{m}.params").exists()]
            run_phase("ours", ready, lambda todo: our_command(CHILD, "--mode", "ours", *common, *todo),
                      our_env, out, args.timeout, log)
        if args.prune:
            prune(out, chunk, args.tol, verdicts)
    ref = {e["model"]: e for e in read_jsonl(out / "reference.jsonl") if "model" in e}
    ours = {e["model"]: e for e in read_jsonl(out / "ours.jsonl") if "model" in e}

    rows, matched, errors = [], [], []
    n_ref = n_built = n_fwd = 0
    allowed: dict[str, int] = {}
    for m in models:
        r, o = ref.get(m, {}), ours.get(m, {})
        ref_ok = bool(r.get("forward"))
        n_ref += ref_ok
        built, fwd = bool(o.get("built")), bool(o.get("forward"))
        n_built += built
        n_fwd += fwd
        match, err, why = False, float("nan"), ""
        if m in verdicts:  # decided in an earlier run (its arrays may have been pruned)
            match, err, why = verdicts[m]["match"], verdicts[m]["err"], verdicts[m]["why"]
        elif ref_ok and fwd:
            match, err, why = compare(m, out, r.get("outputs", 0), o.get("outputs", 0), args.tol)
        if match:
            matched.append(m)
            errors.append(err)
            for a in filter(None, r.get("allowance", "").split("+")):
                allowed[a] = allowed.get(a, 0) + 1
        note = why or o.get("error", "") or ("" if ref_ok else "MXNet: " + r.get("error", "not run"))
        rows.append([m, "ok" if ref_ok else "fail", "yes" if built else "no", "yes" if fwd else "no",
                     "yes" if match else "no", f"{err:.1e}" if err == err else "-",
                     f"{o.get('seconds', '-')}/{r.get('seconds', '-')}", note[:160]])
    table = markdown_table(["model", "MXNet", "built", "forward", "match", "max rel err", "s ours/MXNet",
                            "note"], rows)
    named_ok = sum(m in matched for m in NAMED if m in models)
    n_named = sum(m in models for m in NAMED)
    total = len(listed) if args.all else len(models)
    summary = (f"gluoncv: {len(models)} models run of {len(listed)} listed; MXNet 1.9.1 forward {n_ref}; "
               f"ours built {n_built}, forward {n_fwd}, match {len(matched)} "
               f"({100.0 * len(matched) / max(total, 1):.1f}% of {'all listed' if args.all else 'run'}, "
               f"{100.0 * len(matched) / max(n_ref, 1):.1f}% of MXNet's; built with allowances: "
               f"{', '.join(f'{a} {n}' for a, n in sorted(allowed.items())) or 'none'}); "
               f"named {named_ok}/{n_named}; "
               f"max rel err of matches {max(errors) if errors else float('nan'):.1e}")
    (work / "gluoncv_table.md").write_text(table + "\n\n" + summary + "\n")
    print(table)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
