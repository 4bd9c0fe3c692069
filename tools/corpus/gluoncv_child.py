"""One MXNet 1.x program, run by both interpreters for tools/corpus/gluoncv.py: by MXNet 1.9.1 itself
(``--mode reference``) and by ``python -m framework.run`` (``--mode ours``). Not part of the framework:
it is ordinary MXNet code, ported on the fly on our side like any user's script.

For each model named on the command line it builds ``gluoncv.model_zoo.get_model(name, pretrained=False,
...)`` and runs one forward in inference mode on a fixed input:

- reference: initialise, run once (deferred shapes), give BatchNorm's running statistics random values
  (so that inference normalisation is not the identity), run again (initialised again with Xavier's
  scale when an output is not finite, recorded as ``"init": "xavier"``) and save the parameters
  (``<out>/<model>.params``), the input and every output (``.npy``);
- ours: build, load the reference's parameters, run on the same input and save every output.

One JSON line per model goes to ``<out>/<mode>.jsonl``: build/forward status, error and seconds.
"""

import argparse
import contextlib
import gc
import inspect
import json
import os
import signal
import sys
import time
import traceback

import mxnet as mx
import numpy as onp

# Inputs by model family: (batch, channels, height, width) unless noted; what each architecture accepts
# (fixed pooling sizes, strides of 32) at a modest cost on a CPU.
_VIDEO = ("kinetics400", "kinetics700", "ucf101", "hmdb51", "sthsthv2")


def input_shape(name):
    """The input a model of this family takes (MXNet's and GluonCV's documented sizes, made small where
    the architecture allows)."""
    if name.startswith("cifar"):
        return (1, 3, 32, 32)
    if any(v in name for v in _VIDEO) or name.startswith(("c3d", "p3d", "r2plus1d", "i3d", "slowfast")):
        if name.startswith(("c3d", "p3d", "r2plus1d", "i3d")):
            return (1, 3, 16 if name.startswith(("c3d", "p3d")) else 8, 112, 112)
        if name.startswith("slowfast"):
            # the fast path's frames, then the slow path's: 32+4 (4x16), 32+8 (8x8), 64+16 (16x8)
            return (1, 3, 36 if "4x16" in name else 80 if "16x8" in name else 40, 112, 112)
        return (1, 3, 299, 299) if "inceptionv3" in name else (1, 3, 224, 224)  # 2-D, per frame
    if name.startswith(("inceptionv3", "xception")) or "inceptionv3" in name:
        return (1, 3, 299, 299)
    if name.startswith("nasnet"):
        return (1, 3, 224, 224)
    if name.startswith("ssd_300"):
        return (1, 3, 300, 300)
    if name.startswith("ssd_512"):
        return (1, 3, 512, 512)
    if name.startswith("yolo3"):
        return (1, 3, 320, 320)
    if "rcnn" in name:
        return (1, 3, 320, 320)
    if name.startswith("center_net"):
        return (1, 3, 256, 256)
    if name.startswith(("simple_pose", "mobile_pose", "alpha_pose")):
        return (1, 3, 256, 192)
    if name.startswith("monodepth2"):
        return (1, 3, 192, 640)
    if name.startswith(("fcn", "psp", "deeplab", "danet")):
        return (1, 3, 480, 480) if name.startswith(("psp", "deeplab")) else (1, 3, 256, 256)
    if name.startswith(("icnet", "fastscnn")):
        return (1, 3, 256, 256)
    if name.startswith("siamrpn"):
        return (1, 3, 127, 127)
    return (1, 3, 224, 224)


def make_kwargs(fn):
    """pretrained=False, no pretrained base network (no download) and, where required, three classes."""
    kwargs = {"pretrained": False}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return kwargs
    if "pretrained_base" in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        kwargs["pretrained_base"] = False  # passed on to the model's constructor by most **kwargs
    if "classes" in params and params["classes"].default is inspect.Parameter.empty:
        kwargs["classes"] = ["c0", "c1", "c2"]
    return kwargs


def _refuses_uninitialized(err):
    return "Cannot reset context" in str(err) and "not been initialized" in str(err)


def _downloads(err):
    """Whether the error came from fetching pretrained weights (no network here)."""
    return any(os.path.basename(f.filename) == "model_store.py"
               for f in traceback.extract_tb(err.__traceback__))


@contextlib.contextmanager
def _reset_ctx_skips_uninitialized():
    """``Parameter.reset_ctx`` passes over a Parameter that has no value yet (MXNet 1.9.1 raises)."""
    cls = mx.gluon.Parameter
    original = cls.__dict__["reset_ctx"]

    def reset_ctx(self, ctx):
        try:
            original(self, ctx)
        except ValueError as err:
            if not _refuses_uninitialized(err):
                raise

    cls.reset_ctx = reset_ctx
    try:
        yield
    finally:
        cls.reset_ctx = original


_NOT_DOWNLOADED = "<pretrained weights not downloaded: left to the random initialisation>"


@contextlib.contextmanager
def _pretrained_left_random():
    """A pretrained network that a constructor loads whatever ``pretrained_base`` says (GluonCV's
    action-recognition ResNets build their base with ``pretrained=True``) is not downloaded: its
    Parameters stay uninitialised, and are initialised below as every model's are."""
    store = sys.modules["gluoncv.model_zoo.model_store"]
    block = mx.gluon.Block
    saved = store.get_model_file, block.__dict__["load_parameters"]

    def get_model_file(name, *args, **kwargs):
        return _NOT_DOWNLOADED

    def load_parameters(self, filename, *args, **kwargs):
        if filename != _NOT_DOWNLOADED:
            saved[1](self, filename, *args, **kwargs)

    store.get_model_file, block.load_parameters = get_model_file, load_parameters
    try:
        yield
    finally:
        store.get_model_file, block.load_parameters = saved


# What the child may allow a constructor, on both sides alike, when it cannot be built here otherwise:
# the name recorded, whether an error asks for it, and the context that allows it.
_ALLOWANCES = {
    "reset_ctx": (_refuses_uninitialized, _reset_ctx_skips_uninitialized),
    "download": (_downloads, _pretrained_left_random),
}


def build(zoo, name, kwargs):
    """``zoo.get_model(name, **kwargs)`` and the allowances it needed (in the order they were asked)."""
    allowed = []
    while True:
        try:
            with contextlib.ExitStack() as stack:
                for a in allowed:
                    stack.enter_context(_ALLOWANCES[a][1]())
                return zoo.get_model(name, **kwargs), allowed
        except Exception as err:  # noqa: BLE001  only an error an allowance answers is retried
            need = [a for a, (asks, _) in _ALLOWANCES.items() if a not in allowed and asks(err)]
            if not need:
                raise
            allowed.append(need[0])


def flatten(out):
    if isinstance(out, (list, tuple)):
        return [leaf for o in out for leaf in flatten(o)]
    return [out] if out is not None else []


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("model timed out")


def randomise_running_stats(net, seed):
    rng = onp.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        if name.endswith(("running_mean", "moving_mean")):
            p.set_data(mx.nd.array(rng.uniform(-0.2, 0.2, p.shape), dtype=p.dtype))
        elif name.endswith(("running_var", "moving_var")):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape), dtype=p.dtype))


def run_one(name, mode, out_dir, zoo):
    rec = {"model": name, "built": False, "forward": False, "error": ""}
    t0 = time.time()
    stage = "build"
    try:
        fn = zoo._models[name]
        kwargs = make_kwargs(fn)
        try:
            net, allowed = build(zoo, name, kwargs)
        except Exception:  # noqa: BLE001  a constructor that refuses pretrained_base in its own way
            if "pretrained_base" not in kwargs:  # (TypeError, or darknet's `raise Warning(...)`)
                raise
            del kwargs["pretrained_base"]
            net, allowed = build(zoo, name, kwargs)
        if allowed:
            # The constructor could not be built here as written: with no network, Parameters that
            # only a pretrained load would have initialised (`reset_ctx` refuses them in MXNet 1.9.1;
            # a base network loaded regardless of `pretrained_base`). Built with the allowances (on
            # both sides alike), and initialised below as every model is.
            rec["allowance"] = "+".join(allowed)
        params = os.path.join(out_dir, name + ".params")
        x_file = os.path.join(out_dir, name + ".input.npy")
        if mode == "reference":
            shape = input_shape(name)
            x_host = onp.random.RandomState(0).uniform(-1, 1, shape).astype("float32")
            net.initialize()
            x = mx.nd.array(x_host)
            stage = "forward"
            net(x)
            randomise_running_stats(net, 1)
            outs = flatten(net(x))
            if not all(onp.isfinite(o.asnumpy()).all() for o in outs):
                # GluonCV's default initialisation overflows some deep detectors (YOLOv3's box decoder
                # exponentiates raw predictions of ~1e2): outputs of inf, and finite ones so large that
                # float32 rounding decides them. Xavier's scale keeps every activation finite.
                for p in net.collect_params().values():  # Xavier (the default) needs a matrix
                    if p.init is not None or len(p.shape) >= 2:
                        p.initialize(None, default_init=mx.init.Xavier(), force_reinit=True)
                randomise_running_stats(net, 1)
                outs = flatten(net(x))
                rec["init"] = "xavier"
            net.save_parameters(params)
            onp.save(x_file, x_host)
        else:
            if not os.path.exists(params):
                rec["error"] = "no reference parameters"
                return rec
            net.load_parameters(params)
            rec["built"] = True
            stage = "forward"
            x = mx.nd.array(onp.load(x_file, allow_pickle=False))
            outs = flatten(net(x))
        rec["built"] = True
        for i, o in enumerate(outs):
            onp.save(os.path.join(out_dir, f"{name}.{mode}.out{i}.npy"), o.asnumpy())
        rec["outputs"] = len(outs)
        rec["forward"] = True
    except Timeout:
        rec["error"] = f"{stage}: timed out"
    except Exception as err:  # a model that fails is a row of the table, not the end of the run
        tb = traceback.extract_tb(sys.exc_info()[2])
        where = [f"{f.filename}:{f.lineno}" for f in tb if "gluoncv" in f.filename or
                 "framework" in f.filename][-2:]
        first = str(err).splitlines()[0][:300] if str(err) else ""
        rec["error"] = f"{stage}: {type(err).__name__}: {first} [{' <- '.join(reversed(where))}]"
    finally:
        rec["seconds"] = round(time.time() - t0, 2)
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("reference", "ours"), required=True)
    ap.add_argument("--src", required=True, help="directory holding the gluoncv package")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    sys.path.insert(0, args.src)
    t0 = time.time()
    import gluoncv  # noqa: F401
    from gluoncv.model_zoo import model_zoo as zoo
    log = open(os.path.join(args.out, args.mode + ".jsonl"), "a")
    log.write(json.dumps({"import_seconds": round(time.time() - t0, 2),
                          "models_listed": len(list(zoo.get_model_list()))}) + "\n")
    log.flush()
    signal.signal(signal.SIGALRM, _alarm)
    for name in args.models:
        log.write(json.dumps({"start": name}) + "\n")
        log.flush()
        signal.alarm(args.timeout)
        try:
            rec = run_one(name, args.mode, args.out, zoo)
        finally:
            signal.alarm(0)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        gc.collect()
        if hasattr(mx, "clear_caches"):
            mx.clear_caches()


if __name__ == "__main__":
    main()
