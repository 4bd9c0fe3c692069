"""``mx.test_utils``' checks of symbols: bind an executor on given values and compare its outputs
(:func:`check_symbolic_forward`) or gradients (:func:`check_symbolic_backward`) with expected ones,
using ``assert_almost_equal``'s per-dtype tolerances and MXNet's error text; :func:`simple_forward`,
:func:`same_symbol_structure` and :func:`check_speed` as MXNet's.

>>> import numpy as onp
>>> from framework import symbol as sym
>>> a, b = sym.var('a'), sym.var('b')
>>> _ = check_symbolic_forward(a * b, [onp.float32([1, 2]), onp.float32([3, 4])], [onp.float32([3, 8])])
>>> grads = check_symbolic_backward(a * b, {'a': onp.float32([1, 2]), 'b': onp.float32([3, 4])},
...                                 [onp.ones(2)], {'a': onp.float32([3, 4]), 'b': onp.float32([1, 2])})
>>> simple_forward(a + b, a=onp.ones(2), b=onp.ones(2)).tolist()
[2.0, 2.0]
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from . import device as _device
from ._tolerance import assert_almost_equal

__all__ = ["check_symbolic_forward", "check_symbolic_backward", "simple_forward", "same_symbol_structure",
           "check_speed"]

_DTYPES = (onp.float16, onp.float32, onp.float64)


def _check_dtype(dtype: Any) -> None:
    if not (isinstance(dtype, str) and dtype == "asnumpy") and dtype not in _DTYPES:
        raise ValueError(f"dtype={dtype!r}: expected 'asnumpy', numpy.float16, numpy.float32 or "
                         "numpy.float64")


def _array(v: Any, dtype: Any, device: jax.Device) -> Any:
    """A NumPy value becomes an array of ``dtype`` (its own dtype for 'asnumpy'); arrays pass as they are."""
    if isinstance(v, onp.ndarray):
        return jax.device_put(jnp.asarray(v, v.dtype if isinstance(dtype, str) else dtype), device)
    return v


def _parse_location(sym: Any, location: Any, device: jax.Device, dtype: Any) -> dict[str, Any]:
    if not isinstance(location, (dict, list, tuple)):
        raise TypeError(f"location must be a list (in sym.list_arguments() order) or a dict, got "
                        f"{type(location).__name__}")
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location) != set(names):
            raise ValueError("Symbol arguments and keys of the given location do not match."
                             f"symbol args:{set(names)}, location.keys():{set(location)}")
    else:
        location = dict(zip(names, location, strict=False))
    return {k: _array(v, dtype, device) for k, v in sorted(location.items())}


def _parse_aux_states(sym: Any, aux_states: Any, device: jax.Device, dtype: Any) -> dict[str, Any] | None:
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise ValueError("Symbol aux_states names and given aux_states do not match."
                             f"symbol aux_names:{set(names)}, aux_states.keys:{set(aux_states)}")
    elif isinstance(aux_states, (list, tuple)):
        aux_states = dict(zip(names, aux_states, strict=False))
    else:
        raise TypeError(f"aux_states must be a list or a dict, got {type(aux_states).__name__}")
    return {k: _array(v, dtype, device) for k, v in sorted(aux_states.items())}


def _device_of(ctx: Any) -> jax.Device:
    return _device.resolve(ctx) or _device.current_device()


def check_symbolic_forward(sym: Any, location: Any, expected: Any, rtol: float | None = None,
                           atol: float | None = None, aux_states: Any = None, ctx: Any = None,
                           equal_nan: bool = False, dtype: Any = onp.float32) -> list[jax.Array]:
    """Bind ``sym`` on ``location`` (a list in ``sym.list_arguments()`` order or a dict), run an inference
    forward and compare each output with ``expected`` (a list, or a dict by ``sym.list_outputs()``
    name). Returns the outputs; an ``AssertionError`` naming ``EXPECTED_<out>``/``FORWARD_<out>``."""
    _check_dtype(dtype)
    device = _device_of(ctx)
    args = _parse_location(sym, location, device, dtype)
    aux = _parse_aux_states(sym, aux_states, device, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    exe = sym.bind(device, args=args, aux_states=aux)
    outputs = exe.forward(is_train=False)
    for name, want, got in zip(sym.list_outputs(), expected, outputs, strict=False):
        assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym: Any, location: Any, out_grads: Any, expected: Any, rtol: float | None = None,
                            atol: float | None = None, aux_states: Any = None, grad_req: Any = "write",
                            ctx: Any = None, grad_stypes: Any = None, equal_nan: bool = False,
                            dtype: Any = onp.float32) -> dict[str, jax.Array]:
    """Bind ``sym`` on ``location``, run a training forward and ``backward(out_grads)`` (None for loss
    heads; a list or a dict by output name) and compare the gradients with ``expected`` (a list in
    argument order or a dict: only those arguments are checked). As MXNet, the gradient buffers start
    from NumPy's normal draws: ``'add'`` checks the gradient minus them, ``'null'`` that they are kept.
    Returns the gradients by name."""
    _check_dtype(dtype)
    if grad_stypes is not None and any(s not in (None, "default") for s in dict(grad_stypes).values()):
        raise ValueError(f"grad_stypes={grad_stypes!r}: only dense ('default') gradients exist here")
    device = _device_of(ctx)
    args = _parse_location(sym, location, device, dtype)
    aux = _parse_aux_states(sym, aux_states, device, dtype)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected, strict=False))
    initial = {k: onp.random.normal(size=onp.shape(v)) for k, v in sorted(expected.items())}
    grads_in = {k: jnp.asarray(v, onp.asarray(expected[k]).dtype if isinstance(dtype, str) else dtype)
                for k, v in initial.items()}
    if isinstance(grad_req, str):
        grad_req = dict.fromkeys(names, grad_req)
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req, strict=False))
    exe = sym.bind(device, args=args, args_grad=grads_in, aux_states=aux, grad_req=grad_req)
    exe.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        out_grads = [_array(g, dtype, device) for g in out_grads]
    elif isinstance(out_grads, Mapping):
        out_grads = [_array(out_grads[k], dtype, device) for k in sym.list_outputs()]
    elif out_grads is not None:
        raise TypeError(f"out_grads must be None, a list or a dict, got {type(out_grads).__name__}")
    exe.backward(out_grads)
    grads = {k: exe.grad_dict[k] for k in expected}
    for name in expected:
        req = grad_req.get(name, "null")
        labels = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        if req == "write":
            assert_almost_equal(expected[name], grads[name], rtol, atol, labels, equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(expected[name], onp.asarray(grads[name]) - initial[name], rtol, atol, labels,
                                equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(initial[name], grads[name], rtol, atol, labels, equal_nan=equal_nan)
        else:
            raise ValueError(f"Invalid grad_req {req} for argument {name}")
    return grads


def simple_forward(sym: Any, ctx: Any = None, is_train: bool = False, **inputs: Any) -> Any:
    """Run ``sym`` on NumPy ``inputs`` (by argument name, made float32 arrays); the output as a NumPy
    array, or a list of them for several outputs."""
    device = _device_of(ctx)
    args = {k: jax.device_put(jnp.asarray(onp.asarray(v), onp.float32), device) for k, v in inputs.items()}
    exe = sym.bind(device, args=args)
    outputs = [onp.asarray(x) for x in exe.forward(is_train=is_train)]
    return outputs[0] if len(outputs) == 1 else outputs


def same_symbol_structure(sym1: Any, sym2: Any) -> bool:
    """Whether the nodes of the two graphs (in their JSON order) have the same operators, pairwise."""
    import json

    nodes1, nodes2 = json.loads(sym1.tojson())["nodes"], json.loads(sym2.tojson())["nodes"]
    return all(n1["op"] == n2["op"] for n1, n2 in zip(nodes1, nodes2, strict=False))


def check_speed(sym: Any, location: Mapping[str, Any] | None = None, ctx: Any = None, N: int = 20,  # noqa: N803
                grad_req: Any = None, typ: str = "whole", **kwargs: Any) -> float:
    """Seconds per run of ``sym``: forward + backward (``typ='whole'``, the outputs as head gradients) or
    the inference forward (``'forward'``), averaged over ``N`` runs after a warm-up (which compiles).
    Without ``location``, ``kwargs`` give the input shapes and the values are normal draws."""
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    device = _device_of(ctx)
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(device, grad_req=grad_req, **kwargs)
        location = {k: onp.random.normal(size=arr.shape, scale=1.0) for k, arr in exe.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise TypeError(f'Expect dict, get "location"={location}')
        exe = sym.simple_bind(device, grad_req=grad_req, **{k: onp.shape(v) for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name] = jax.device_put(jnp.asarray(value, exe.arg_dict[name].dtype), device)

    def run() -> Sequence[jax.Array]:
        if typ == "whole":
            outs = list(exe.forward(is_train=True))
            exe.backward(out_grads=outs)
            return [*outs, *exe.grad_dict.values()]
        return exe.forward(is_train=False)

    jax.block_until_ready(run())
    tic = time.time()
    for _ in range(N):
        last = run()
    jax.block_until_ready(last)
    return (time.time() - tic) / N
