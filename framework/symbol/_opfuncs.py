"""The operator functions of ``mx.sym`` (one per operator name the interpreter runs, generated from its
signature), ``Variable``/``var`` and ``Group``, with MXNet 1.x's rules:

- inputs are Symbols, given by position (in MXNet's input order) or by name; a missing input becomes a
  variable ``<name>_<input>`` carrying the operator's attributes (``fullyconnected0_weight``);
- other arguments are attributes stored as text (``str(value)``; a ``dtype`` as its NumPy name);
  ``attr=`` and the :class:`~.naming.AttrScope` add attributes (``lr_mult`` stored as ``__lr_mult__``);
- the node is named by the current :class:`~.naming.NameManager` from the function's name in lower case.

>>> from framework import symbol as sym
>>> with sym.NameManager():
...     c = sym.Convolution(sym.var('data'), kernel=(3, 3), num_filter=8)
>>> c.list_arguments()
['data', 'convolution0_weight', 'convolution0_bias']
>>> sym.var('w', shape=(2, 3), lr_mult=2.0).list_attr()
{'__shape__': '(2, 3)', '__lr_mult__': '2.0', 'lr_mult': '2.0'}
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as onp

from ._arith import register_builders
from ._node import Entry, SymNode, is_aux_input, visible_outputs
from ._signatures import SIGNATURES, Signature
from ._symbol import HIDDEN_KEYS, Symbol, hidden_key
from .naming import current_attr_scope, current_name_manager

__all__ = ["make_op", "internal_op", "var", "Variable", "Group", "zeros", "ones", "full", "arange",
           "linspace", "eye", "maximum", "minimum", "hypot", "pow", "power", "split_v2", "DTYPE_FLAGS"]

#: MXNet's dtype flags (``__dtype__`` of a variable).
DTYPE_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6,
               "bool": 7, "int16": 8, "uint16": 9, "uint32": 10, "uint64": 11, "bfloat16": 12}
_STYPES = {"default": 0, "row_sparse": 1, "csr": 2}

# attributes an operator sets on the variables it makes (MXNet's FSetInputVarAttrOnCompose)
_BN_INIT = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}
_VAR_INIT: dict[str, dict[str, str]] = {
    **dict.fromkeys(("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm", "_contrib_BatchNormWithReLU"),
                    _BN_INIT),
}


def _dtype_name(v: Any) -> str:
    if isinstance(v, str) and v == "None":
        return v
    try:
        return onp.dtype(v).name if str(v) != "bfloat16" else "bfloat16"
    except TypeError:
        return str(v)


def _text(key: str, value: Any) -> str:
    return _dtype_name(value) if key == "dtype" and value is not None else str(value)


def _scope_attrs(attr: dict[str, Any] | None) -> dict[str, str]:
    merged = current_attr_scope().get(attr)
    return {hidden_key(k): str(v) for k, v in merged.items()}


def _present_inputs(sig: Signature, attrs: dict[str, str]) -> tuple[str, ...]:
    """The inputs an operator has with these attributes (MXNet's ListArguments)."""
    def flag(key: str, default: bool = False) -> bool:
        v = attrs.get(key)
        return default if v is None else v.strip().lower() in ("true", "1")
    op, names = sig.op, sig.inputs
    if op == "BatchNorm_v1":  # a legacy operator: its auxiliary states are not in its input list
        names = names + ("moving_mean", "moving_var")
    drop: set[str] = set()
    if op in ("FullyConnected", "Convolution", "Convolution_v1", "_contrib_DeformableConvolution",
              "_contrib_ModulatedDeformableConvolution") and flag("no_bias"):
        drop.add("bias")
    if op == "Deconvolution" and flag("no_bias", True):
        drop.add("bias")
    if op == "RNN":
        if attrs.get("mode", "").strip() != "lstm":
            drop.add("state_cell")
        if not flag("use_sequence_length"):
            drop.add("sequence_length")
    if op == "LeakyReLU" and attrs.get("act_type", "leaky").strip() != "prelu":
        drop.add("gamma")
    if op in ("softmax", "log_softmax", "softmin") and not flag("use_length"):
        drop.add("length")
    if op in ("SequenceMask", "SequenceLast", "SequenceReverse") and not flag("use_sequence_length"):
        drop.add("sequence_length")
    if op == "CTCLoss":
        if not flag("use_data_lengths"):
            drop.add("data_lengths")
        if not flag("use_label_lengths"):
            drop.add("label_lengths")
    if op == "UpSampling" and attrs.get("sample_type", "").strip() == "bilinear":
        return ("data", "weight")
    if op == "_contrib_BilinearResize2D" and attrs.get("mode", "size").strip() not in ("like", "to_even_down",
                                                                                        "to_even_up"):
        drop.add("like")
    return tuple(n for n in names if n not in drop)


def _variable_node(name: str, attrs: dict[str, str]) -> SymNode:
    return SymNode("null", name, attrs)


def create(fname: str, sig: Signature, inputs: Sequence[Symbol] | dict[str, Symbol], attrs: dict[str, str],
           name: str | None) -> Symbol:
    """Make the node of operator function ``fname`` (attributes already text) and its missing inputs."""
    name = current_name_manager().get(name, fname.lower())
    node = SymNode(sig.op, name, attrs)
    if isinstance(inputs, dict):  # fixed inputs by name; the missing ones become variables
        present = _present_inputs(sig, attrs)
        unknown = [k for k in inputs if k not in present]
        if unknown:
            raise TypeError(f"{fname}: {unknown} are not inputs of {sig.op} with these arguments; its inputs "
                            f"are {list(present)}")
        entries = []
        for key in present:
            s = inputs.get(key)
            if s is None:
                var_attrs = dict(attrs)
                extra = _VAR_INIT.get(sig.op, {}).get(key)
                if extra is not None:
                    var_attrs["__init__"] = extra
                if sig.op == "LeakyReLU" and key == "gamma":
                    var_attrs["__init__"] = '["Constant", {"value": 0.25}]'
                entries.append(Entry(_variable_node(f"{name}_{key}", var_attrs), 0))
            else:
                entries.append(_single(s, fname, key))
    else:
        entries = [_single(s, fname, f"input {i}") for i, s in enumerate(inputs)]
        bilinear = attrs.get("sample_type", "").strip() == "bilinear"
        if sig.op == "UpSampling" and bilinear and len(entries) == 1:  # MXNet makes the weight variable
            weight = _variable_node(f"{name}_weight", {**attrs, "__init__": '["bilinear", {}]'})
            entries.append(Entry(weight, 0))
    for pos, e in enumerate(entries):
        if e.node.op == "null" and is_aux_input(sig.op, pos, attrs):
            e.node.mutations += 1
            entries[pos] = Entry(e.node, e.index, e.node.mutations)
    node.inputs = entries
    return Symbol([Entry(node, i) for i in range(visible_outputs(node))])


def _single(s: Any, fname: str, what: str) -> Entry:
    if not isinstance(s, Symbol):
        raise TypeError(f"{fname}: {what} must be a Symbol, got {type(s).__name__}")
    if len(s._heads) != 1:
        raise ValueError(f"{fname}: {what} is a symbol of {len(s._heads)} outputs "
                         f"({s.list_outputs()}); pass one of them (symbol[i])")
    return s._heads[0]


@functools.cache
def make_op(fname: str, pyname: str | None = None) -> Callable[..., Symbol]:
    """The operator function of operator name ``fname`` (a name of :data:`SIGNATURES`), offered as
    ``pyname`` (default ``fname``; ``mx.sym.contrib.box_nms`` is ``_contrib_box_nms``): automatic
    names are ``pyname`` in lower case followed by a count."""
    sig = SIGNATURES[fname]
    accepted = set(sig.params) | set(HIDDEN_KEYS) | ({sig.var} if sig.var not in ("", "*") else set())
    pyname = pyname or fname

    def op(*args: Any, name: str | None = None, attr: dict[str, Any] | None = None, out: Any = None,
           **kwargs: Any) -> Symbol:
        kwargs.update(current_attr_scope().get(attr))
        symbols = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
        params = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)}
        if sig.var:
            if symbols:
                if args:
                    raise TypeError(f"{fname}: pass the input Symbols either by position or by keyword, "
                                    "not both")
                inputs: Any = list(symbols.values())
            else:
                bad = [a for a in args if not isinstance(a, Symbol)]
                if bad:
                    raise TypeError(f"{fname}: positional arguments must be Symbols, got "
                                    f"{type(bad[0]).__name__}")
                inputs = list(args)
            if sig.var != "*" and sig.var not in params:
                params[sig.var] = len(inputs)
        else:
            inputs = dict(symbols)
            slots = list(sig.inputs) + list(sig.params)
            if len(args) > len(slots):
                raise TypeError(f"{fname} takes at most {len(slots)} positional arguments ({slots}), got "
                                f"{len(args)}")
            for key, value in zip(slots, args, strict=False):
                if value is None:
                    continue
                if key in sig.inputs:
                    if not isinstance(value, Symbol):
                        raise TypeError(f"{fname}: argument {key} must be a Symbol, got "
                                        f"{type(value).__name__}")
                    inputs[key] = value
                else:
                    params[key] = value
        unknown = [k for k in params if k not in accepted and not (k.startswith("__") and k.endswith("__"))]
        if unknown:
            raise TypeError(f"{fname}() got unexpected keyword argument(s) {unknown}; it takes the inputs "
                            f"{list(sig.inputs)} and the arguments {list(sig.params)} (plus name= and attr=)")
        attrs = {hidden_key(k): _text(k, v) for k, v in params.items()}
        return create(pyname, sig, inputs, attrs, name)

    op.__name__ = op.__qualname__ = pyname
    op.__doc__ = (f"MXNet's ``{pyname}`` (operator ``{sig.op}``): inputs {', '.join(sig.inputs) or 'none'}"
                  + (f" (any number, counted by {sig.var})" if sig.var else "")
                  + f"; arguments {', '.join(sig.params) or 'none'}.")
    return op


def internal_op(name: str) -> Callable[..., Symbol]:
    """The function of operator name ``name`` (``_Plus``, ``_plus_scalar``, ``FullyConnected`` ...)."""
    return make_op(name)


# ------------------------------------------------------------------------------------ variables
def var(name: str, attr: dict[str, str] | None = None, shape: Sequence[int] | None = None,
        lr_mult: float | None = None, wd_mult: float | None = None, dtype: Any = None, init: Any = None,
        stype: str | None = None, profiler_scope: str | None = None, **kwargs: Any) -> Symbol:
    """A variable (an input or a parameter of a graph): MXNet's ``mx.sym.var``/``Variable``."""
    if not isinstance(name, str):
        raise TypeError(f"Expect a string for variable `name`, got {type(name).__name__}")
    attrs = _scope_attrs(attr)
    if shape is not None:
        attrs["__shape__"] = str(shape)
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        flag = DTYPE_FLAGS.get(_dtype_name(dtype))
        if flag is None:
            raise TypeError(f"var({name!r}): dtype {dtype!r} is not one of MXNet's {sorted(DTYPE_FLAGS)}")
        attrs["__dtype__"] = str(flag)
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in _STYPES:
            raise ValueError(f"var({name!r}): stype {stype!r} is not one of {sorted(_STYPES)}")
        attrs["__storage_type__"] = str(_STYPES[stype])
    if profiler_scope is not None:
        attrs["__profiler_scope__"] = profiler_scope
    for k, v in kwargs.items():
        if not (k.startswith("__") and k.endswith("__")):
            raise ValueError(f"Attribute name={k} is not supported. Additional attributes must start and end "
                             "with double underscores, e.g, __yourattr__")
        attrs[k] = str(v)
    return Symbol([Entry(SymNode("null", name, attrs), 0)])


Variable = var


def Group(symbols: Sequence[Symbol], create_fn: Any = None) -> Symbol:  # noqa: N802
    """One symbol whose outputs are the outputs of ``symbols``, in order."""
    symbols = list(symbols)
    if not symbols or not all(isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([h for s in symbols for h in s._heads])


# ------------------------------------------------------------------------------------ Python-level
def _scalar_or_symbol(sym_fn: str, scalar_fn: str | None, py: Callable[[Any, Any], Any]):
    def fn(left: Any, right: Any) -> Any:
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return make_op(sym_fn)(left, right)
        if scalar_fn is None and (isinstance(left, Symbol) or isinstance(right, Symbol)):
            raise TypeError(f"{sym_fn}: a Symbol with a number is not supported; make the number a Symbol")
        if isinstance(left, Symbol) and isinstance(right, numbers.Number):
            return make_op(scalar_fn)(left, scalar=right)
        if isinstance(right, Symbol) and isinstance(left, numbers.Number):
            return make_op(scalar_fn)(right, scalar=left)
        if isinstance(left, numbers.Number) and isinstance(right, numbers.Number):
            return py(left, right)
        raise TypeError(f"types ({type(left).__name__}, {type(right).__name__}) not supported")
    return fn


maximum = _scalar_or_symbol("_Maximum", "_MaximumScalar", lambda a, b: a if a > b else b)
minimum = _scalar_or_symbol("_Minimum", "_MinimumScalar", lambda a, b: b if a > b else a)
hypot = _scalar_or_symbol("_Hypot", None, lambda a, b: (a * a + b * b) ** 0.5)


def pow(base: Any, exp: Any) -> Any:  # noqa: A001  (MXNet's name)
    """``base ** exp`` for symbols and numbers (``_Power``, ``_PowerScalar``, ``_RPowerScalar``)."""
    if isinstance(base, Symbol) and isinstance(exp, Symbol):
        return make_op("_Power")(base, exp)
    if isinstance(base, Symbol) and isinstance(exp, numbers.Number):
        return make_op("_PowerScalar")(base, scalar=exp)
    if isinstance(base, numbers.Number) and isinstance(exp, Symbol):
        return make_op("_RPowerScalar")(exp, scalar=base)
    if isinstance(base, numbers.Number) and isinstance(exp, numbers.Number):
        return base ** exp
    raise TypeError(f"types ({type(base).__name__}, {type(exp).__name__}) not supported")


power = pow


def zeros(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A ``_zeros`` node (float32 unless ``dtype``)."""
    return make_op("_zeros")(shape=shape, dtype=onp.float32 if dtype is None else dtype, **kwargs)


def ones(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A ``_ones`` node (float32 unless ``dtype``)."""
    return make_op("_ones")(shape=shape, dtype=onp.float32 if dtype is None else dtype, **kwargs)


def full(shape: Any, val: float, dtype: Any = None, **kwargs: Any) -> Symbol:
    """A ``_full`` node filled with ``val``."""
    return make_op("_full")(shape=shape, dtype=onp.float32 if dtype is None else dtype, value=float(val),
                            **kwargs)


def arange(start: float, stop: float | None = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool = False, name: str | None = None, dtype: Any = None) -> Symbol:
    """An ``_arange`` node."""
    return make_op("_arange")(start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                              name=name, dtype=onp.float32 if dtype is None else dtype)


def linspace(start: float, stop: float, num: int, endpoint: bool = True, name: str | None = None,
             dtype: Any = None) -> Symbol:
    """A ``_linspace`` node."""
    return make_op("_linspace")(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                                dtype=onp.float32 if dtype is None else dtype)


def eye(N: int, M: int = 0, k: int = 0, dtype: Any = None, **kwargs: Any) -> Symbol:  # noqa: N803
    """An ``_eye`` node."""
    return make_op("_eye")(N=N, M=M, k=k, dtype=onp.float32 if dtype is None else dtype, **kwargs)


def split_v2(ary: Symbol, indices_or_sections: int | Sequence[int], axis: int = 0,
             squeeze_axis: bool = False) -> Symbol:
    """Split into equal sections (an int) or at the given indices (``_split_v2``)."""
    if isinstance(indices_or_sections, int):
        sections, indices = indices_or_sections, []
    elif isinstance(indices_or_sections, (tuple, list)):
        sections, indices = 0, [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return make_op("_split_v2")(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections)


register_builders(internal_op, split_v2)
