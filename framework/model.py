"""MXNet's ``mx.model``: checkpoints (``prefix-symbol.json`` + ``prefix-%04d.params`` with ``arg:``/``aux:``
names), byte-compatible with MXNet 1.9.1 both ways, and ``BatchEndParam``.

>>> import os, tempfile
>>> import numpy as onp
>>> import framework as mx
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
>>> prefix = os.path.join(tempfile.mkdtemp(), 'net')
>>> save_checkpoint(prefix, 3, net, {'fc_weight': onp.ones((2, 4), 'f'), 'fc_bias': onp.zeros(2, 'f')}, {})
>>> sym, arg, aux = load_checkpoint(prefix, 3)
>>> sym.list_arguments(), sorted(arg), aux
(['data', 'fc_weight', 'fc_bias'], ['fc_bias', 'fc_weight'], {})
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as onp

from . import serialization
from .callback import BatchEndParam

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "save_params_file", "load_params_file",
           "BatchEndParam"]


def save_checkpoint(prefix: str, epoch: int, symbol: Any, arg_params: dict, aux_params: dict,
                    remove_amp_cast: bool = True) -> None:
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params``: MXNet's
    files (its JSON text, its legacy NDArray container), written atomically."""
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
    param_name = f"{prefix}-{epoch:04d}.params"
    save_params_file(param_name, arg_params, aux_params)
    logging.info('Saved checkpoint to "%s"', param_name)


def _host(v: Any) -> onp.ndarray:
    if hasattr(v, "data") and callable(v.data):  # a gluon Parameter
        v = v.data()
    return onp.asarray(v)


def save_params_file(fname: str, arg_params: dict, aux_params: dict | None) -> None:
    """Write ``arg_params`` and ``aux_params`` to ``fname`` as ``arg:<name>``/``aux:<name>`` arrays in
    MXNet's NDArray container (the ``.params`` of a checkpoint or of ``Module.save_params``)."""
    arrays = {f"arg:{k}": _host(v) for k, v in arg_params.items()}
    arrays.update({f"aux:{k}": _host(v) for k, v in (aux_params or {}).items()})
    serialization.save(fname, arrays, format="nd")


def load_params_file(fname: str) -> tuple[dict, dict]:
    """``(arg_params, aux_params)`` of a ``.params`` file of ``arg:<name>``/``aux:<name>`` arrays; any
    other key, or an unnamed list of arrays, is refused naming the file."""
    loaded = serialization.load(fname)
    if isinstance(loaded, list):
        if loaded:
            raise ValueError(f"{fname}: holds an unnamed list of arrays, not arg:/aux: parameters")
        loaded = {}
    arg, aux = {}, {}
    for k, v in loaded.items():
        kind, _, name = k.partition(":")
        if kind not in ("arg", "aux"):
            raise ValueError(f"{fname}: key {k!r} is neither arg:<name> nor aux:<name> (not a file of "
                             "save_checkpoint or Module.save_params)")
        (arg if kind == "arg" else aux)[name] = v
    return arg, aux


def load_params(prefix: str, epoch: int) -> tuple[dict, dict]:
    """``(arg_params, aux_params)`` of ``prefix-%04d.params``."""
    return load_params_file(f"{prefix}-{epoch:04d}.params")


def load_checkpoint(prefix: str, epoch: int) -> tuple[Any, dict, dict]:
    """``(symbol, arg_params, aux_params)`` of a checkpoint written by MXNet or :func:`save_checkpoint`."""
    from . import symbol as sym

    symbol = sym.load(f"{prefix}-symbol.json")
    arg, aux = load_params(prefix, epoch)
    return symbol, arg, aux


def __getattr__(name: str) -> Any:
    if name == "FeedForward":
        raise AttributeError("mx.model.FeedForward (deprecated since MXNet 0.10) is not offered: use "
                             "mx.mod.Module(symbol, context=...).fit(...), which trains the same way")
    raise AttributeError(f"module 'framework.model' has no attribute {name!r}")
