"""save_parameters / load_parameters / export in MXNet's ``.params`` format.

Files written here are read by MXNet 1.9.1 (V3, np semantics: what ``save_parameters`` writes after
``npx.set_np()``), and files MXNet wrote load here: structural names (``'0.weight'``), and the names with
block prefixes of ``export`` (``arg:conv0_weight``) or of legacy ``collect_params().save``.

>>> import os, tempfile
>>> from framework import gluon, np
>>> net = gluon.nn.Dense(2, in_units=3); net.initialize()
>>> path = os.path.join(tempfile.mkdtemp(), 'net.params')
>>> net.save_parameters(path)
>>> net2 = gluon.nn.Dense(2); net2.load_parameters(path)
>>> bool((net2.weight.data() == net.weight.data()).all())
True
"""

from __future__ import annotations

import os
from typing import Any

import numpy as onp

from .. import serialization
from .parameter import ParameterDict

__all__ = ["save_parameters", "load_parameters", "load_into", "save_dict", "export"]


def _brief(names: Any, limit: int = 8) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:limit])
    return f"[{shown}{', ...' if len(names) > limit else ''}] ({len(names)} in all)"


def save_parameters(block: Any, filename: str | os.PathLike, deduplicate: bool = False) -> None:
    """Write every Parameter (first replica) under its structural name, atomically. A shared Parameter
    is written under each of its names, or once with ``deduplicate=True`` (under its last name, as
    MXNet does)."""
    params = block._collect_params_with_prefix()
    if deduplicate:
        params = {name: p for p, name in {p: name for name, p in params.items()}.items()}
    arrays = {}
    for name, p in params.items():
        arrays[name] = onp.asarray(p._check_initialized()[next(iter(p._data))])
    # MXNet 1.x code (name scopes, prefix=/params=, hybrid_forward) runs outside NumPy mode, where
    # MXNet reads only the legacy (V2) container; 0-d arrays need the NumPy-mode one (V3)
    from .name_scope import written_for_1x

    legacy = written_for_1x(block) and all(a.ndim > 0 for a in arrays.values())
    serialization.save(filename, arrays, format="nd" if legacy else "np")


def _split_prefixed(name: str) -> tuple[str, str]:
    """'arg:conv0_weight' -> ('conv0_', 'weight'); 'batchnorm0_running_mean' -> ('batchnorm0_', ...)."""
    bare = name.split(":", 1)[1] if name.startswith(("arg:", "aux:")) else name
    for local in ("running_mean", "running_var", "moving_mean", "moving_var", "i2h_weight", "h2h_weight",
                  "i2h_bias", "h2h_bias"):
        if bare.endswith("_" + local) or bare == local:
            return bare[: len(bare) - len(local)], local
    head, _, tail = bare.rpartition("_")
    return (head + "_" if head else ""), tail


def _map_prefixed(loaded: dict[str, Any], params: ParameterDict, filename: str, allow_missing: bool,
                  ignore_extra: bool) -> dict[str, Any]:
    """Map block-prefixed names (export / legacy files) onto structural names, block by block in order;
    inside a block, a missing or extra parameter is allowed as ``allow_missing``/``ignore_extra`` say."""
    groups: dict[str, dict[str, Any]] = {}
    for name, value in loaded.items():
        prefix, local = _split_prefixed(name)
        groups.setdefault(prefix, {})[local] = value
    ours: dict[str, dict[str, str]] = {}
    for name in params:
        owner, _, local = name.rpartition(".")
        ours.setdefault(owner, {})[local] = name
    if len(groups) != len(ours):
        raise ValueError(
            f"{filename}: its names carry block prefixes ({_brief(loaded)}) and form {len(groups)} "
            f"block(s), but this network has {len(ours)} block(s) with parameters ({_brief(params)}). "
            "Load it into the architecture that saved it."
        )
    mapped = {}
    for (prefix, group), (owner, names) in zip(groups.items(), ours.items(), strict=True):
        missing, extra = set(names) - set(group), set(group) - set(names)
        if (missing and not allow_missing) or (extra and not ignore_extra):
            raise ValueError(
                f"{filename}: block '{prefix}' holds {sorted(group)} but the matching block "
                f"'{owner or type(params).__name__}' of this network has {sorted(names)}."
            )
        for local, value in group.items():
            mapped[names.get(local, f"{prefix}{local}")] = value  # an extra keeps its own name
    return mapped


def load_parameters(block: Any, filename: str | os.PathLike, ctx: Any = None, allow_missing: bool = False,
                    ignore_extra: bool = False, cast_dtype: bool = False,
                    dtype_source: str = "current") -> None:
    """Load a ``.params`` file into ``block`` (MXNet's rules and messages)."""
    load_into(block._collect_params_with_prefix(), filename, ctx, allow_missing, ignore_extra, cast_dtype,
              dtype_source)


def _name_1x(key: str, param: Any) -> str:
    return getattr(param, "_legacy_name", None) or key


def save_dict(params: ParameterDict, filename: str | os.PathLike, strip_prefix: str = "") -> None:
    """MXNet 1.x's ``ParameterDict.save``: each Parameter once under its 1.x name (``net0_dense0_weight``)
    less ``strip_prefix``, in the legacy container MXNet 1.x's ``nd.load`` reads."""
    arrays = {}
    for key, p in params._unique():
        name = _name_1x(key, p)
        if not name.startswith(strip_prefix):
            raise ValueError(f"ParameterDict.save: strip_prefix is '{strip_prefix}' but Parameter '{name}' "
                             "does not start with it; pass the prefix all the names share (or '').")
        arrays[name[len(strip_prefix):]] = onp.asarray(p._check_initialized()[next(iter(p._data))])
    legacy = all(a.ndim > 0 for a in arrays.values())
    serialization.save(filename, arrays, format="nd" if legacy else "np")


def load_into(params: ParameterDict, filename: str | os.PathLike, ctx: Any = None,
              allow_missing: bool = False,
              ignore_extra: bool = False, cast_dtype: bool = False, dtype_source: str = "current",
              restore_prefix: str = "") -> None:
    """Load a ``.params`` file into the Parameters of ``params`` (``load_parameters`` and 1.x's
    ``ParameterDict.load``, which prepends ``restore_prefix`` to the names in the file)."""
    filename = os.fspath(filename)
    loaded = serialization.load_numpy(filename)
    if isinstance(loaded, list):
        raise ValueError(f"{filename}: holds an unnamed list of arrays, not named parameters.")
    if restore_prefix:
        for key, p in params.items():
            if not _name_1x(key, p).startswith(restore_prefix):
                raise ValueError(f"restore_prefix is '{restore_prefix}' but Parameter '{_name_1x(key, p)}' "
                                 "does not start with it.")
        loaded = {restore_prefix + (k[4:] if k.startswith(("arg:", "aux:")) else k): v
                  for k, v in loaded.items()}
    if not loaded and not params:
        return
    # Structural names ('0.weight'; a single layer's 'weight') match directly; only a file none of whose
    # names is one of this network's is read as block-prefixed ('arg:conv0_weight', 'dense0_weight').
    if loaded and not any(k in params for k in loaded) and not any("." in k for k in loaded):
        # MXNet 1.x names of this very network (name scopes, see name_scope.py) map exactly
        by_1x = {getattr(p, "_legacy_name", None): n for n, p in params.items()}
        bare = {_split_prefixed(k)[0] + _split_prefixed(k)[1]: k for k in loaded}
        if all(b in by_1x for b in bare):
            loaded = {by_1x[b]: loaded[k] for b, k in bare.items()}
        else:
            loaded = _map_prefixed(loaded, params, filename, allow_missing, ignore_extra)
    missing = [n for n in params if n not in loaded]
    if missing and not allow_missing:
        raise ValueError(
            f"Parameter(s) {_brief(missing)} missing in file '{filename}', which contains parameters: "
            f"{_brief(loaded)}. Set allow_missing=True to ignore missing parameters."
        )
    extra = [n for n in loaded if n not in params]
    if extra and not ignore_extra:
        raise ValueError(
            f"Parameter(s) {_brief(extra)} loaded from file '{filename}' are not present in this network, "
            f"which contains parameters {_brief(params)}. Set ignore_extra=True to ignore."
        )
    errors = []
    for name, value in loaded.items():
        if name not in params:
            continue
        param = params[name]
        if dtype_source == "saved":
            param.dtype = onp.dtype(value.dtype)
        try:
            param._load_init(value, ctx, cast_dtype=cast_dtype)
        except ValueError as e:
            errors.append(str(e))
    if errors:
        raise ValueError(f"{filename}: " + "; ".join(errors))


def export(block: Any, path: str, epoch: int = 0) -> str:
    """Write ``path-%04d.params`` with MXNet export's ``arg:``/``aux:`` names (structural names with '.'
    replaced by '_'); returns the file name. No symbol file: there is no MXNet graph here."""
    arrays = {}
    for name, p in block._collect_params_with_prefix().items():
        kind = "aux" if p.grad_req == "null" else "arg"
        arrays[f"{kind}:{name.replace('.', '_')}"] = onp.asarray(p.list_data()[0])
    filename = f"{path}-{epoch:04d}.params"
    serialization.save(filename, arrays, format="np")
    return filename
