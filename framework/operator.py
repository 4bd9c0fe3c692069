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
from collections.abc import Callable, Sequence
from typing import Any

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
                del _FUNCTIONS[key]
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
        if op_type not in _REGISTRY:
            raise ValueError(
                f"Custom: op_type={op_type!r} is not registered; known: {sorted(_REGISTRY)}. "
                "Decorate the CustomOpProp subclass with @mx.operator.register(name)"
            )
        self.op_type, self.is_train = op_type, is_train
        self.prop = _REGISTRY[op_type](**dict(kwargs))
        n_args = len(self.prop.list_arguments())
        if self.prop.list_auxiliary_states():
            raise NotImplementedError(
                f"Custom {op_type!r}: auxiliary states are not supported (arrays are "
                "immutable, so an operator cannot update them in place); keep such state "
                "in a Block's Parameter or return it as an output"
            )
        if len(shapes) != n_args:
            raise ValueError(
                f"Custom {op_type!r}: {len(shapes)} inputs given, the operator's arguments are "
                f"{self.prop.list_arguments()}"
            )
        in_shapes, out_shapes, _ = self.prop.infer_shape([list(s) for s in shapes])
        in_types, out_types, _ = self.prop.infer_type([onp.dtype(d).type for d in dtypes])
        self.in_shapes = [tuple(int(d) for d in s) for s in in_shapes]
        self.out_shapes = [tuple(int(d) for d in s) for s in out_shapes]
        self.in_dtypes = [jnp.dtype(t) for t in in_types]
        self.out_dtypes = [jnp.dtype(t) for t in out_types]
        from .device import current_device

        self.op = self.prop.create_operator(
            current_device(), [list(s) for s in self.in_shapes], [onp.dtype(t).type for t in self.in_dtypes]
        )
        self.n_out = len(self.out_shapes)

    # ---- the user's code, on arrays (tracers or concrete)
    def forward(self, inputs: Sequence[Any]) -> list[jax.Array]:
        outs = _slots(self.out_shapes, self.out_dtypes)
        self.op.forward(
            is_train=self.is_train, req=["write"] * self.n_out, in_data=list(inputs), out_data=outs, aux=[]
        )
        return _read(outs, self.out_shapes, self.out_dtypes, "out_data")

    def backward(
        self, inputs: Sequence[Any], outputs: Sequence[Any], grads: Sequence[Any]
    ) -> list[jax.Array]:
        in_grad = _slots(self.in_shapes, self.in_dtypes)
        self.op.backward(
            req=["write"] * len(inputs),
            out_grad=list(grads),
            in_data=list(inputs),
            out_data=list(outputs),
            in_grad=in_grad,
            aux=[],
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
        n_in = len(self.in_shapes)
        if kind == "forward":
            fn, shapes, dtypes = self.forward, self.out_shapes, self.out_dtypes
        else:

            def fn(a):
                return self.backward(a[:n_in], a[n_in : n_in + self.n_out], a[n_in + self.n_out :])

            shapes, dtypes = self.in_shapes, self.in_dtypes
        key = (self.op_type, kind)
        if key not in _HOST:
            try:
                return fn(list(arrays))
            except _TRACER_ERRORS:
                _HOST.add(key)
        if not any(isinstance(a, jax.core.Tracer) for a in arrays):
            return fn(list(arrays))
        return self._on_host(fn, arrays, shapes, dtypes)


def _function(spec: _Spec) -> Callable[..., Any]:
    """The custom_vjp function of one operator instance."""

    @jax.custom_vjp
    def op(*inputs: jax.Array) -> Any:
        outs = spec.run("forward", inputs)
        return outs[0] if spec.n_out == 1 else tuple(outs)

    def fwd(*inputs: jax.Array) -> tuple[Any, tuple]:
        outs = spec.run("forward", inputs)
        return (outs[0] if spec.n_out == 1 else tuple(outs)), (tuple(inputs), tuple(outs))

    def bwd(res: tuple, g: Any) -> tuple:
        inputs, outs = res
        grads = [g] if spec.n_out == 1 else list(g)
        if not spec.prop.need_top_grad_:
            grads = [jnp.ones_like(o) for o in outs]
        return tuple(spec.run("backward", [*inputs, *outs, *grads]))

    op.defvjp(fwd, bwd)
    op.__name__ = f"Custom_{spec.op_type}"
    return op


def Custom(*data: Any, op_type: str, name: str | None = None, out: Any = None, **kwargs: Any) -> Any:
    """Apply the registered operator ``op_type`` to ``data`` (``mx.nd.Custom``): one array, or a list
    for several outputs. The keyword arguments reach the operator's ``CustomOpProp`` as strings."""
    from .autograd import is_training
    from .np.dispatch import recordable

    if out is not None:
        raise TypeError("nd.Custom(..., out=...): arrays are immutable; use the returned value")
    frozen = tuple(sorted((k, str(v)) for k, v in kwargs.items()))
    shapes = tuple(tuple(int(d) for d in jnp.shape(x)) for x in data)
    dtypes = tuple(str(jnp.result_type(x)) for x in data)
    key = (op_type, frozen, shapes, dtypes, bool(is_training()))
    with _LOCK:
        fn = _FUNCTIONS.get(key)
    if fn is None:
        fn = _function(_Spec(op_type, frozen, shapes, dtypes, bool(is_training())))
        with _LOCK:
            fn = _FUNCTIONS.setdefault(key, fn)
    result = recordable(fn)(*data)
    return list(result) if isinstance(result, tuple) else result


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
