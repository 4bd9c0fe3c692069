"""Replays the cases of ``tests/reference/ops/ops.npz`` (made by ``tools/mxnet_reference/gen_ops.py`` with
MXNet 1.9.1) through the framework: compiled (``jax.jit`` of ``jax.vjp``) and eagerly inside
``autograd.record()`` with ``backward`` on attached inputs.

``BODIES``/``invoke``: the functions control-flow cases take and how they are called;
``tools/mxnet_reference/ops_cases.py`` defines the same ones for MXNet.
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as onp

import framework as mx
from framework import autograd

REF = Path(__file__).resolve().parent / "reference" / "ops" / "ops.npz"
#: more case files of the same format (``gen_api2.py``'s ``api2_*`` cases), replayed with ``ops.npz``'s
MORE = [Path(__file__).resolve().parent / "reference" / "api2" / "ops.npz"]
DATA: dict[str, onp.ndarray] = {}
CASES: dict[str, dict] = {}
for _path in (REF, *MORE):
    with onp.load(_path, allow_pickle=False) as _f:
        _data = {k: _f[k] for k in _f.files}
    _cases = json.loads(str(_data.pop("__cases__")))
    _clash = set(_cases) & set(CASES)
    if _clash:
        raise ValueError(f"{_path}: case names {sorted(_clash)} are already taken")
    CASES.update(_cases)
    DATA.update(_data)


def _foreach_body(F):
    def body(x, states):
        h = F.tanh(x * 2 + states[0] * 0.5)
        return [h, x * states[0]], [h]
    return body


def _foreach_single(F):
    def body(x, states):
        return x + states[0] * states[1], [states[0] * 0.9 + x, states[1]]
    return body


def _while_cond(F):
    def cond(i, s):
        return F.sum(i) < 3
    return cond


def _while_body(F):
    def body(i, s):
        return s * 2, (i + 1, F.sin(s) * 2 + 1)
    return body


def _cond_then(F):
    def then(x, y):
        return x * y + 1
    return then


def _cond_else(F):
    def other(x, y):
        return [x - y, F.exp(y)]
    return other


BODIES = {
    "foreach_body": _foreach_body,
    "foreach_single": _foreach_single,
    "while_cond": _while_cond,
    "while_body": _while_body,
    "cond_then": _cond_then,
    "cond_else": _cond_else,
}


def invoke(fn, call, F, inputs, kw):
    """Call a control-flow operator: ``call`` says which, the functions are ``BODIES`` built for ``F``."""
    if call == "foreach":
        return fn(BODIES[kw["__body__"]](F), inputs[0], list(inputs[1:]))
    if call == "while_loop":
        return fn(BODIES[kw["__cond__"]](F), BODIES[kw["__body__"]](F), list(inputs),
                  max_iterations=kw["max_iterations"])
    if call == "multi_lists":  # multi_adamw/lamb: lists of weights, grads, means, vars (, weights32)
        n, k = kw["__n__"], kw["__lists__"]
        lists = [list(inputs[i * n:(i + 1) * n]) for i in range(k)]
        rest = {key: v for key, v in kw.items() if not key.startswith("__")}
        return fn(*lists, *inputs[k * n:], **rest)
    if call == "cond":
        then, other = BODIES[kw["__then__"]](F), BODIES[kw["__else__"]](F)
        return fn(inputs[0], lambda: then(*inputs[1:]), lambda: other(*inputs[1:]))
    raise ValueError(f"unknown control-flow call {call!r}")


# float32 kernels whose MXNet formulas differ (accumulation order, series): a little more room
LOOSE: set[str] = set()


def names(prefix: str) -> list[str]:
    """The cases whose operator path starts with ``prefix`` (``npx.``, ``nd.contrib.``, ``nd.``)."""
    out = []
    for name, spec in CASES.items():
        op = spec["op"]
        if prefix == "nd." and op.startswith("nd.contrib."):
            continue
        if op.startswith(prefix):
            out.append(name)
    return sorted(out)


def recorded_names(prefix: str) -> list[str]:
    """One differentiable case per operator (the eager, recorded path is slower: a sample suffices)."""
    seen: set = set()
    out = []
    for name in names(prefix):
        fn = resolve(CASES[name]["op"])
        op = getattr(fn, "__wrapped__", fn)  # aliases (nd.CTCLoss, nd.contrib.ctc_loss) count once
        if CASES[name]["grad"] and op not in seen:
            seen.add(op)
            out.append(name)
    return out


def resolve(path: str):
    obj = mx
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _kwargs(spec: dict) -> tuple[dict, bool, int | None, object]:
    kw = dict(spec["kwargs"])
    train = kw.pop("__train__", False)
    nlist = kw.pop("__list__", None)
    ns = mx.np if spec["op"].startswith(("npx.", "np.")) else mx.nd
    for k, v in list(kw.items()):
        if isinstance(v, list):
            kw[k] = tuple(v)
    return kw, train, nlist, ns


def call(name: str, inputs: list) -> list:
    spec = CASES[name]
    kw, train, nlist, ns = _kwargs(spec)
    fn = resolve(spec["op"])
    args = [list(inputs[:nlist])] + list(inputs[nlist:]) if nlist else list(inputs)
    if spec.get("call"):
        return flatten(invoke(fn, spec["call"], ns, list(inputs), kw))
    if train:
        with autograd.train_mode():
            res = fn(*args, **kw)
    else:
        res = fn(*args, **kw)
    return flatten(res)


def flatten(res) -> list:
    if isinstance(res, (list, tuple)):
        out = []
        for r in res:
            out.extend(flatten(r))
        return out
    return [res]


def inputs_of(name: str) -> list[jax.Array]:
    return [jnp.asarray(DATA[f"{name}.in{i}"]) for i in range(CASES[name]["n_in"])]


def tol(name: str) -> dict:
    return {"rtol": 1e-4, "atol": 1e-4} if name in LOOSE else {"rtol": 1e-5, "atol": 1e-5}


def check_values(name: str, res: list) -> None:
    spec = CASES[name]
    assert len(res) == spec["n_out"], f"{name}: {len(res)} outputs, MXNet gives {spec['n_out']}"
    for j, got in enumerate(res):
        want = DATA[f"{name}.out{j}"]
        got = onp.asarray(got)
        assert got.shape == want.shape, f"{name} out{j}: shape {got.shape} vs MXNet {want.shape}"
        want_dt = jax.dtypes.canonicalize_dtype(want.dtype)  # int64 is int32 unless jax_enable_x64
        assert got.dtype == want_dt, f"{name} out{j}: dtype {got.dtype} vs MXNet {want.dtype}"
        onp.testing.assert_allclose(got, want, err_msg=f"{name} out{j}", **tol(name))


def check_grads(name: str, grads) -> None:
    for i, g in zip(CASES[name]["grad"], grads, strict=True):
        onp.testing.assert_allclose(onp.asarray(g), DATA[f"{name}.grad{i}"], err_msg=f"{name} grad{i}",
                                    **tol(name))


def check_compiled(name: str) -> None:
    """Outputs and input gradients of one jitted ``jax.vjp`` against MXNet's."""
    spec = CASES[name]
    inputs = inputs_of(name)
    wrt = spec["grad"]

    def f(*diff):
        args = list(inputs)
        for i, v in zip(wrt, diff, strict=True):
            args[i] = v
        return call(name, args)

    if spec.get("eager_only"):
        check_values(name, f(*[inputs[i] for i in wrt]))
        return

    def program(diff):
        res, vjp = jax.vjp(f, *diff)
        if not wrt:
            return res, ()
        heads = [jnp.asarray(DATA[f"{name}.head{j}"]) if j in spec["heads"]
                 else jnp.zeros(r.shape, jax.dtypes.float0 if not jnp.issubdtype(r.dtype, jnp.inexact)
                                else r.dtype)
                 for j, r in enumerate(res)]
        return res, vjp(heads)

    res, grads = jax.jit(program)([inputs[i] for i in wrt])
    check_values(name, res)
    check_grads(name, grads)


def check_recorded(name: str) -> None:
    """The same case run eagerly: inputs attached, ``autograd.record()``, ``autograd.backward``."""
    spec = CASES[name]
    inputs = inputs_of(name)
    wrt = spec["grad"]
    for i in wrt:
        inputs[i] = autograd.attach_grad(inputs[i])
    with autograd.record():
        res = call(name, inputs)
    check_values(name, res)
    heads = [jnp.asarray(DATA[f"{name}.head{j}"]) for j in spec["heads"]]
    autograd.backward([res[j] for j in spec["heads"]], heads)
    check_grads(name, [inputs[i].grad for i in wrt])
