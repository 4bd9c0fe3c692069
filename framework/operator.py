"""MXNet's ``mx.operator``: user-defined operators with their own backward (``CustomOp``,
``CustomOpProp``, ``register``), called as ``mx.nd.Custom(*inputs, op_type=name, **kwargs)``.

Each operator becomes a :func:`jax.custom_vjp` function: its ``forward`` gives the outputs and its
hand-written ``backward`` the input gradients, so it trains inside ``autograd.record()``/``backward()``,
in hybridized Blocks and under ``jax.jit``/``jax.grad``. ``forward``/``backward`` receive ``jax.Array`` s
and write their results through ``self.assign(dst, req, value)`` (or ``dst[:] = value``) into writable
slots. A ``forward``/``backward`` that needs concrete values (``npx.asnumpy(x)``, NumPy) while JAX traces
it is run on the host instead, through :func:`jax.pure_callback` (the operator's type remembers this).
As in MXNet, the keyword arguments reach the ``CustomOpProp`` constructor as strings.

>>> import jax, jax.numpy as jnp
>>> import framework as mx
>>> class Double(mx.operator.CustomOp):
...     def forward(self, is_train, req, in_data, out_data, aux):
...         self.assign(out_data[0], req[0], in_data[0] * 2)
...     def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
...         self.assign(in_grad[0], req[0], out_grad[0] * 10)   # deliberately not the true gradient
>>> @mx.operator.register("double_doc")
... class DoubleProp(mx.operator.CustomOpProp):
...     def create_operator(self, ctx, shapes, dtypes):
...         return Double()
>>> mx.nd.Custom(jnp.ones(2), op_type="double_doc").tolist()
[2.0, 2.0]
>>> jax.grad(lambda x: mx.nd.Custom(x, op_type="double_doc").sum())(jnp.ones(2)).tolist()
[10.0, 10.0]
"""

from __future__ import annotations

import collections
import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as onp

from .initializer.slot import ArraySlot
from .util import is_np_array

__all__ = [
    "CustomOp",
    "CustomOpProp",
    "register",
    "Custom",
    "CustomResult",
    "apply_custom",
    "custom_prop",
    "NDArray",
    "OperatorArguments",
    "get_all_registered_operators",
    "get_operator_arguments",
    "is_np_array",
]

NDArray = jax.Array
OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])

_REGISTRY: dict[str, type] = {}
_FUNCTIONS: dict[tuple, Callable[..., Any]] = {}
_SPECS: dict[tuple, Any] = {}  # the _Spec behind each of _FUNCTIONS
_HOST: set[tuple[str, str]] = set()  # (op_type, 'forward'|'backward') that must run on the host
_LOCK = threading.Lock()
_TRACER_ERRORS = (
    jax.errors.TracerArrayConversionError,
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerIntegerConversionError,
    jax.errors.TracerBoolConversionError,
)


class CustomOp:
    """Base class of an operator's computation: override :meth:`forward` and :meth:`backward`."""

    def forward(
        self,
        is_train: bool,
        req: Sequence[str],
        in_data: Sequence[Any],
        out_data: Sequence[Any],
        aux: Sequence[Any],
    ) -> None:
        """Write each output into ``out_data[i]`` (with :meth:`assign`)."""
        raise NotImplementedError(f"{type(self).__name__}.forward")

    def backward(
        self,
        req: Sequence[str],
        out_grad: Sequence[Any],
        in_data: Sequence[Any],
        out_data: Sequence[Any],
        in_grad: Sequence[Any],
        aux: Sequence[Any],
    ) -> None:
        """Write the gradient of each input into ``in_grad[i]`` (with :meth:`assign`)."""
        raise NotImplementedError(f"{type(self).__name__}.backward")

    def assign(self, dst: Any, req: str, src: Any) -> None:
        """``dst[:] = src`` for req 'write'/'inplace', ``dst[:] += src`` for 'add', nothing for 'null'."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = jnp.asarray(dst.value if isinstance(dst, ArraySlot) else dst) + jnp.asarray(src)
        else:
            raise ValueError(f"CustomOp.assign: req={req!r}; expected 'write', 'inplace', 'add' or 'null'")


class CustomOpProp:
    """Base class of an operator's description: its arguments, outputs, shapes and types, and
    :meth:`create_operator`. ``need_top_grad=False`` marks a loss-like operator whose backward ignores
    the output gradient."""

    def __init__(self, need_top_grad: bool = True) -> None:
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape: list) -> tuple[list, list, list]:
        """(input shapes, output shapes, aux shapes): by default every output has the first input's shape."""
        return in_shape, [in_shape[0]] * len(self.list_outputs()), []

    def infer_type(self, in_type: list) -> tuple[list, list, list]:
        """(input types, output types, aux types): by default the first input's type everywhere."""
        return (
            in_type,
            [in_type[0]] * len(self.list_outputs()),
            [in_type[0]] * len(self.list_auxiliary_states()),
        )

    def infer_storage_type(self, in_stype: list) -> tuple[list, list, list]:
        if any(s != "default" for s in in_stype):
            raise ValueError("CustomOpProp: only dense ('default') storage exists here")
        return (
            in_stype,
            ["default"] * len(self.list_outputs()),
            ["default"] * len(self.list_auxiliary_states()),
        )

    def list_outputs(self) -> list[str]:
        return ["output"]

    def list_arguments(self) -> list[str]:
        return ["data"]

    def list_auxiliary_states(self) -> list[str]:
        return []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        deps = list(in_data) + list(out_data)
        return deps + list(out_grad) if self.need_top_grad_ else deps

    def create_operator(self, ctx: Any, in_shapes: list, in_dtypes: list) -> CustomOp:
        raise NotImplementedError(f"{type(self).__name__}.create_operator must return a CustomOp")


def register(reg_name: str) -> Callable[[type], type]:
    """Register a :class:`CustomOpProp` subclass as operator ``reg_name`` (a class decorator)."""

    def do_register(prop_cls: type) -> type:
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise TypeError(f"register({reg_name!r}): {prop_cls!r} is not a CustomOpProp subclass")
        with _LOCK:
            _REGISTRY[reg_name] = prop_cls
            for key in [k for k in _FUNCTIONS if k[0] == reg_name]:
                del _FUNCTIONS[key], _SPECS[key]
            _HOST.difference_update({(reg_name, "forward"), (reg_name, "backward")})
        return prop_cls

    return do_register


def _slots(shapes: Sequence[tuple], dtypes: Sequence[Any]) -> list[ArraySlot]:
    return [ArraySlot(tuple(s), d) for s, d in zip(shapes, dtypes, strict=True)]


def _read(slots: Sequence[Any], shapes: Sequence[tuple], dtypes: Sequence[Any], what: str) -> list[jax.Array]:
    out = []
    for i, (slot, shape, dtype) in enumerate(zip(slots, shapes, dtypes, strict=True)):
        value = slot.value if isinstance(slot, ArraySlot) else jnp.asarray(slot)
        if tuple(value.shape) != tuple(shape):
            raise ValueError(
                f"Custom operator: {what}[{i}] has shape {tuple(value.shape)}, expected {tuple(shape)}"
            )
        out.append(value.astype(dtype))
    return out


class _Spec:
    """One operator instance with its shapes and types (what a compiled function is built for)."""

    def __init__(self, op_type: str, kwargs: tuple, shapes: tuple, dtypes: tuple, is_train: bool) -> None:
        self.op_type, self.is_train = op_type, is_train
        self.prop = custom_prop(op_type, dict(kwargs))
        self.arg_names = list(self.prop.list_arguments())
        self.aux_names = list(self.prop.list_auxiliary_states())
        n_args, n_aux = len(self.arg_names), len(self.aux_names)
        if len(shapes) != n_args + n_aux:
            raise ValueError(
                f"Custom {op_type!r}: {len(shapes)} inputs given, the operator takes its arguments "
                f"{self.arg_names} and auxiliary states {self.aux_names}"
            )
        in_shapes, out_shapes, aux_shapes = self.prop.infer_shape([list(s) for s in shapes[:n_args]])
        in_types, out_types, aux_types = self.prop.infer_type([onp.dtype(d).type for d in dtypes[:n_args]])
        self.in_shapes = [tuple(int(d) for d in s) for s in in_shapes]
        self.out_shapes = [tuple(int(d) for d in s) for s in out_shapes]
        self.aux_shapes = [tuple(int(d) for d in s) for s in aux_shapes]
        self.in_dtypes = [jnp.dtype(t) for t in in_types]
        self.out_dtypes = [jnp.dtype(t) for t in out_types]
        self.aux_dtypes = [jnp.dtype(t) for t in aux_types] or [jnp.dtype(d) for d in dtypes[n_args:]]
        from .device import current_device

        self.op = self.prop.create_operator(
            current_device(), [list(s) for s in self.in_shapes], [onp.dtype(t).type for t in self.in_dtypes]
        )
        self.n_out = len(self.out_shapes)
        self.n_args = n_args
        # which auxiliary states the last run of the user's forward wrote (None: not known, as when
        # the forward runs later on the host)
        self.aux_written: list[int] | None = None

    # ---- the user's code, on arrays (tracers or concrete)
    def forward(self, inputs: Sequence[Any]) -> list[jax.Array]:
        """The outputs, then the auxiliary states as the forward left them."""
        outs = _slots(self.out_shapes, self.out_dtypes)
        aux = _slots(self.aux_shapes, self.aux_dtypes)
        for slot, value in zip(aux, inputs[self.n_args:], strict=True):
            slot[:] = value
            slot.written = False
        self.op.forward(
            is_train=self.is_train, req=["write"] * self.n_out, in_data=list(inputs[: self.n_args]),
            out_data=outs, aux=aux
        )
        self.aux_written = [i for i, slot in enumerate(aux) if slot.written]
        return [*_read(outs, self.out_shapes, self.out_dtypes, "out_data"),
                *_read(aux, self.aux_shapes, self.aux_dtypes, "aux")]

    def backward(
        self, inputs: Sequence[Any], outputs: Sequence[Any], grads: Sequence[Any]
    ) -> list[jax.Array]:
        """The gradients of the arguments (``outputs`` ends with the auxiliary states after the
        forward, which the backward sees as MXNet's does)."""
        in_grad = _slots(self.in_shapes, self.in_dtypes)
        self.op.backward(
            req=["write"] * self.n_args,
            out_grad=list(grads),
            in_data=list(inputs[: self.n_args]),
            out_data=list(outputs[: self.n_out]),
            in_grad=in_grad,
            aux=list(outputs[self.n_out:]),
        )
        return _read(in_grad, self.in_shapes, self.in_dtypes, "in_grad")

    # ---- on the host, when the user's code needs concrete values
    def _on_host(
        self, fn: Callable, arrays: Sequence[Any], shapes: Sequence[tuple], dtypes: Sequence[Any]
    ) -> list[jax.Array]:
        cpu = jax.devices("cpu")[0]

        def call(*host: onp.ndarray) -> tuple[onp.ndarray, ...]:
            with jax.default_device(cpu):
                got = fn([jax.device_put(h, cpu) for h in host])
                return tuple(onp.asarray(g, dtype=d) for g, d in zip(got, dtypes, strict=True))

        result = [jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes, strict=True)]
        return list(jax.pure_callback(call, result, *arrays, vmap_method="sequential"))

    def run(self, kind: str, arrays: Sequence[Any]) -> list[jax.Array]:
        n_in, n_all = self.n_args + len(self.aux_shapes), self.n_out + len(self.aux_shapes)
        if kind == "forward":
            fn = self.forward
            shapes, dtypes = self.out_shapes + self.aux_shapes, self.out_dtypes + self.aux_dtypes
        else:

            def fn(a):
                return self.backward(a[:n_in], a[n_in : n_in + n_all], a[n_in + n_all :])

            shapes, dtypes = self.in_shapes, self.in_dtypes
        key = (self.op_type, kind)
        if key not in _HOST:
            try:
                return fn(list(arrays))
            except _TRACER_ERRORS:
                _HOST.add(key)
        if not any(isinstance(a, jax.core.Tracer) for a in arrays):
            return fn(list(arrays))
        if kind == "forward":
            self.aux_written = None
        return self._on_host(fn, arrays, shapes, dtypes)


def _function(spec: _Spec) -> Callable[..., Any]:
    """The custom_vjp function of one operator instance: arguments and auxiliary states in, outputs and
    the auxiliary states after the forward out (their gradients are zero)."""

    @jax.custom_vjp
    def op(*inputs: jax.Array) -> tuple:
        return tuple(spec.run("forward", inputs))

    def fwd(*inputs: jax.Array) -> tuple[tuple, tuple]:
        outs = tuple(spec.run("forward", inputs))
        return outs, (tuple(inputs), outs)

    def bwd(res: tuple, g: tuple) -> tuple:
        inputs, outs = res
        grads = list(g[: spec.n_out])
        if not spec.prop.need_top_grad_:
            grads = [jnp.ones_like(o) for o in outs[: spec.n_out]]
        in_grads = spec.run("backward", [*inputs, *outs, *grads])
        return (*in_grads, *[jnp.zeros_like(a) for a in inputs[spec.n_args:]])

    op.defvjp(fwd, bwd)
    op.__name__ = f"Custom_{spec.op_type}"
    return op


def _store_aux(op_type: str, name: str | None, target: Any, value: Any, index: int) -> None:
    """Write an auxiliary state the forward changed back where it came from: a Variable in place, a
    Parameter's value in a Block's call through the Parameter (MXNet mutates the array)."""
    from .autograd.variable import Variable
    from .gluon.binding import current, parameter_of

    if isinstance(target, Variable):
        target[:] = value
        return
    param = parameter_of(target)
    if param is not None:
        if not isinstance(value, jax.core.Tracer):
            param.set_data(_values_of(value))
        elif current().pure:  # a compiled call: a state update of the call
            param.set_data(value)
        # else an abstract evaluation of an imperative call (deferred shapes): nothing to store
        return
    raise TypeError(
        f"Custom {op_type!r}{'' if name is None else f' ({name})'}: its forward changed auxiliary state "
        f"{index}, but the {type(target).__name__} given for it cannot change in place. Pass a Variable "
        "(autograd.attach_grad(x, grad_req='null')), or a Parameter's value inside a Block's forward."
    )


def _values_of(x: Any) -> Any:
    from .autograd import tape

    return tape.values_of(x)


class CustomResult(NamedTuple):
    """What one application of a custom operator gives: its outputs, its auxiliary states after the
    forward, and which of those the forward wrote (None: not known, so every one)."""

    outputs: list[Any]
    aux: list[Any]
    aux_written: list[int] | None


def custom_prop(op_type: str, attrs: Mapping[str, Any]) -> CustomOpProp:
    """The registered ``CustomOpProp`` of ``op_type`` made with ``attrs`` (as strings, as MXNet passes
    them)."""
    if op_type not in _REGISTRY:
        raise ValueError(
            f"Custom: op_type={op_type!r} is not registered; known: {sorted(_REGISTRY)}. "
            "Decorate the CustomOpProp subclass with @mx.operator.register(name)"
        )
    return _REGISTRY[op_type](**{k: str(v) for k, v in attrs.items()})


def apply_custom(op_type: str, attrs: Mapping[str, Any], data: Sequence[Any], training: bool) -> CustomResult:
    """Apply the registered operator ``op_type`` to ``data`` (its arguments, then its auxiliary
    states): what ``nd.Custom`` and the symbol interpreter's ``Custom`` node both run."""
    from .np.dispatch import recordable

    frozen = tuple(sorted((k, str(v)) for k, v in attrs.items()))
    shapes = tuple(tuple(int(d) for d in jnp.shape(x)) for x in data)
    dtypes = tuple(str(jnp.result_type(x)) for x in data)
    key = (op_type, frozen, shapes, dtypes, bool(training))
    with _LOCK:
        fn = _FUNCTIONS.get(key)
    if fn is None:
        spec = _Spec(op_type, frozen, shapes, dtypes, bool(training))
        with _LOCK:
            _SPECS.setdefault(key, spec)
            fn = _FUNCTIONS.setdefault(key, _function(_SPECS[key]))
    result = recordable(fn)(*data)
    spec = _SPECS[key]
    return CustomResult(list(result[: spec.n_out]), list(result[spec.n_out :]), spec.aux_written)


def Custom(*data: Any, op_type: str, name: str | None = None, out: Any = None, **kwargs: Any) -> Any:
    """Apply the registered operator ``op_type`` to ``data`` (``mx.nd.Custom``): one array, or a list
    for several outputs. The keyword arguments reach the operator's ``CustomOpProp`` as strings.
    Auxiliary states follow the arguments; those the forward changes are written back (a Variable in
    place, a Parameter's value in a Block's call to the Parameter)."""
    from .autograd import is_training

    if out is not None:
        raise TypeError("nd.Custom(..., out=...): arrays are immutable; use the returned value")
    res = apply_custom(op_type, kwargs, data, bool(is_training()))
    n_args = len(data) - len(res.aux)
    for i in range(len(res.aux)) if res.aux_written is None else res.aux_written:
        _store_aux(op_type, name, data[n_args + i], res.aux[i], i)
    return res.outputs[0] if len(res.outputs) == 1 else res.outputs


def get_all_registered_operators() -> list[str]:
    """The names of ``mx.nd``'s operators and of the registered custom operators."""
    from . import nd

    names = {n for n in dir(nd) if not n.startswith("_") and callable(getattr(nd, n, None))}
    return sorted(names | set(_REGISTRY))


def get_operator_arguments(op_name: str) -> OperatorArguments:
    """``(narg, names, types)`` of an ``mx.nd`` operator, from its signature."""
    from . import nd

    fn = getattr(nd, op_name, None)
    if not callable(fn):
        raise ValueError(f"get_operator_arguments: {op_name!r} is not an mx.nd operator")
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    types = [
        type(p.default).__name__ if p.default is not inspect.Parameter.empty else "required" for p in params
    ]
    return OperatorArguments(len(params), [p.name for p in params], types)
