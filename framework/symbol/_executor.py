"""MXNet's executor: a symbol bound to arrays (``simple_bind``/``bind``), run by ``forward`` and
``backward``, each compiled once per shape through the compile layer.

``forward(is_train=True)`` waits: when ``backward`` follows, the forward and the backward run as ONE
program (outputs, auxiliary-state updates and gradients together); reading ``outputs`` first runs the
forward alone (the backward then recomputes it with the same random key, so both see the same values).
Gradients follow MXNet: a loss head (``SoftmaxOutput``, ``MakeLoss``, ...) gives its own gradient, any
other head needs ``out_grads``; ``grad_req`` is ``'write'``, ``'add'`` or ``'null'`` per argument.

Arrays are immutable: ``arg_dict``/``grad_dict``/``aux_dict`` are dictionaries the executor reads at
every forward, so ``exe.arg_dict['data'] = x`` (what the porter makes of ``exe.arg_dict['data'][:] = x``)
or ``exe.forward(data=x)`` feeds it.

>>> import jax.numpy as jnp
>>> from framework import symbol as sym
>>> net = sym.MakeLoss(sym.square(sym.var('x')), name='loss')
>>> exe = net.simple_bind(None, x=(2,))
>>> exe.arg_dict['x'] = jnp.array([1.0, 3.0])
>>> _ = exe.forward(is_train=True)
>>> exe.backward()
>>> exe.grad_dict['x'].tolist(), exe.outputs[0].tolist()
([2.0, 6.0], [1.0, 9.0])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp

from .. import _compile
from ._infer import declared_dtype
from ._interp import Program
from ._ops_loss import LOSS_OPS
from ._symbol import Symbol

__all__ = ["Executor", "simple_bind", "bind"]

_STOCHASTIC = {"Dropout", "LeakyReLU", "RNN", "_random_uniform", "_random_normal"}


def program_of(symbol: Symbol) -> Program:
    """The interpreter's program of ``symbol`` (every variable a parameter), cached on the symbol."""
    graph = symbol.graph
    prog = symbol.__dict__.get("_program")
    if prog is None or prog.graph is not graph:
        prog = Program(graph, [], source=symbol.source)
        symbol.__dict__["_program"] = prog
    return prog


def _device(ctx: Any) -> jax.Device:
    if ctx is None:
        return jax.devices()[0]
    if isinstance(ctx, (list, tuple)):
        ctx = ctx[0]
    return ctx


def _to_device(x: Any, device: jax.Device, dtype: Any = None) -> jax.Array:
    if hasattr(x, "value") and isinstance(x.value, jax.Array):  # a Variable holder
        x = x.value
    arr = x if isinstance(x, jax.Array) else jnp.asarray(onp.asarray(x))
    if dtype is not None and arr.dtype != jnp.dtype(dtype):
        arr = arr.astype(dtype)
    return jax.device_put(arr, device)


def _forward_fn(prog: Program, training: bool):
    def run(params, key):
        return prog(params, [], training=training, key=key)
    return run


def _fwd_bwd_fn(prog: Program, grad_names: tuple[str, ...], add_names: tuple[str, ...],
                differentiable: tuple[bool, ...]):
    def run(params, key, head_grads, old_grads):
        fixed = {k: v for k, v in params.items() if k not in grad_names}

        def f(diff):
            outs, new_aux = prog({**fixed, **diff}, [], training=True, key=key)
            floats = tuple(o for o, d in zip(outs, differentiable, strict=True) if d)
            return floats, (outs, new_aux)

        _, pull, (outs, new_aux) = jax.vjp(f, {k: params[k] for k in grad_names}, has_aux=True)
        cot = tuple(g for g, d in zip(head_grads, differentiable, strict=True) if d)
        (grads,) = pull(cot)
        for k in add_names:
            grads[k] = grads[k] + old_grads[k]
        return outs, new_aux, grads
    return run


class LazyOutputs(list):
    """The list ``forward(is_train=True)`` returns: filled (by running the forward) when first read."""

    def __init__(self, executor: Executor) -> None:
        super().__init__()
        self._executor = executor
        self._filled = False

    def _fill(self) -> None:
        if not self._filled:
            self._filled = True
            super().extend(self._executor.outputs)

    def __getitem__(self, i):  # type: ignore[override]
        self._fill()
        return super().__getitem__(i)

    def __iter__(self):  # type: ignore[override]
        self._fill()
        return super().__iter__()

    def __len__(self) -> int:
        self._fill()
        return super().__len__()

    def __repr__(self) -> str:
        self._fill()
        return super().__repr__()


class Executor:
    """A bound symbol (see the module docstring). Made by :func:`simple_bind` / :func:`bind`."""

    def __init__(self, symbol: Symbol, ctx: Any, args: dict[str, jax.Array], grads: dict[str, jax.Array],
                 grad_req: dict[str, str], aux: dict[str, jax.Array]) -> None:
        self._symbol = symbol
        self._ctx = _device(ctx)
        self._program = program_of(symbol)
        self.arg_dict: dict[str, jax.Array] = args
        self.grad_dict: dict[str, jax.Array] = grads
        self.aux_dict: dict[str, jax.Array] = aux
        self._grad_req = grad_req
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self._outputs: list[jax.Array] | None = None
        self._pending: tuple[dict, Any] | None = None  # (inputs of the waiting training forward, key)
        self._aux_applied = False
        heads = symbol._heads
        self._loss_heads = tuple(h.node.op in LOSS_OPS and not (
            h.node.op in ("SoftmaxOutput", "Softmax") and h.node.attrs.get("out_grad", "").lower() in
            ("true", "1")) for h in heads)
        order = symbol._order()
        self._stochastic = any(n.op in _STOCHASTIC for n in order)
        self._monitor = None

    # ------------------------------------------------------------------ views
    @property
    def arg_arrays(self) -> list[jax.Array]:
        return [self.arg_dict[n] for n in self._arg_names]

    @property
    def grad_arrays(self) -> list[jax.Array | None]:
        return [self.grad_dict.get(n) for n in self._arg_names]

    @property
    def aux_arrays(self) -> list[jax.Array]:
        return [self.aux_dict[n] for n in self._aux_names]

    @property
    def outputs(self) -> list[jax.Array]:
        """The outputs of the last forward (a waiting training forward runs now)."""
        if self._outputs is None and self._pending is not None:
            params, key = self._pending
            fn = _compile.jit(("sym_forward", True), lambda: _forward_fn(self._program, True),
                              owner=self._program)
            outs, new_aux = fn(params, key)
            self._set_outputs(outs)
            self._apply_aux(new_aux)
        if self._outputs is None:
            raise RuntimeError("Executor.outputs: call forward() first")
        return self._outputs

    @property
    def output_dict(self) -> dict[str, jax.Array]:
        return dict(zip(self._symbol.list_outputs(), self.outputs, strict=True))

    def _set_outputs(self, outs: Sequence[jax.Array]) -> None:
        self._outputs = list(outs)

    def _report_internals(self, params: dict[str, jax.Array], key: Any, training: bool) -> None:
        """Hand the installed monitor callback every operator node's outputs, in graph order (one more
        compiled forward of the internals, run only while a callback is installed)."""
        internals = self.__dict__.get("_internals")
        if internals is None:
            heads = [h for h in self._symbol.get_internals()._heads if h.node.op != "null"]
            internals = self.__dict__["_internals"] = Symbol(heads, self._symbol.source)
        prog = program_of(internals)
        fn = _compile.jit(("sym_forward", training), lambda: _forward_fn(prog, training), owner=prog)
        outs, _ = fn(params, key)
        for name, v in zip(internals.list_outputs(), outs, strict=True):
            self._monitor(name, v)  # type: ignore[misc]

    def _apply_aux(self, new_aux: Mapping[str, jax.Array]) -> None:
        if not self._aux_applied:
            self.aux_dict.update(new_aux)
            self._aux_applied = True

    def _params(self, kwargs: Mapping[str, Any]) -> dict[str, jax.Array]:
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise ValueError(f"forward: {name!r} is not an argument of the symbol; its arguments are "
                                 f"{self._arg_names}")
            old = self.arg_dict[name]
            arr = _to_device(value, self._ctx, old.dtype)
            if arr.shape != old.shape:
                raise ValueError(f"forward: {name} has shape {tuple(arr.shape)}, the executor was bound with "
                                 f"{tuple(old.shape)}; use executor.reshape({name}=...) for another shape")
            self.arg_dict[name] = arr
        return {**{n: self.arg_dict[n] for n in self._arg_names},
                **{n: self.aux_dict[n] for n in self._aux_names}}

    def _key(self) -> Any:
        if not self._stochastic:
            return None
        from ..np import random as _random

        return _random.next_key(device=self._ctx)

    # ------------------------------------------------------------------ running
    def forward(self, is_train: bool = False, **kwargs: Any) -> list[jax.Array]:
        """Run the graph (``is_train``: training mode; BatchNorm updates its moving statistics, Dropout
        drops). ``kwargs`` feed arguments by name. Returns the outputs."""
        params = self._params(kwargs)
        key = self._key()
        self._outputs = None
        self._aux_applied = False
        if self._monitor is not None:
            self._report_internals(params, key, is_train)
        if is_train:
            self._pending = (params, key)
            return LazyOutputs(self)
        self._pending = None
        fn = _compile.jit(("sym_forward", False), lambda: _forward_fn(self._program, False),
                          owner=self._program)
        outs, _ = fn(params, key)
        self._set_outputs(outs)
        return self._outputs  # type: ignore[return-value]

    def backward(self, out_grads: Any = None, is_train: bool = True) -> None:
        """Gradients of the last training forward into ``grad_dict`` (``out_grads``: the head
        gradients, one per output; needed for heads that are not loss layers)."""
        if self._pending is None:
            raise RuntimeError("Executor.backward: call forward(is_train=True) first")
        params, key = self._pending
        heads = self._symbol._heads
        if out_grads is None:
            out_grads = [None] * len(heads)
        elif not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        if len(out_grads) != len(heads):
            raise ValueError(f"backward: {len(out_grads)} out_grads for {len(heads)} outputs")
        shapes = self._out_structs(params, key)
        head_grads = []
        for i, (g, loss) in enumerate(zip(out_grads, self._loss_heads, strict=True)):
            if g is None:
                if not loss:
                    raise ValueError(
                        f"backward: output {i} ({self._symbol.list_outputs()[i]}) is not a loss layer, so "
                        "its head gradient is required when calling backward: pass out_grads. To minimize "
                        "the output as an objective, pass it through MakeLoss (mx.sym.MakeLoss)")
                g = jnp.zeros(shapes[i].shape, shapes[i].dtype)
            else:
                g = _to_device(g, self._ctx, shapes[i].dtype)
            head_grads.append(g)
        grad_names = tuple(n for n in self._arg_names if self._grad_req.get(n, "null") != "null"
                           and n in self.grad_dict and jnp.issubdtype(params[n].dtype, jnp.inexact))
        add_names = tuple(n for n in grad_names if self._grad_req[n] == "add")
        differentiable = tuple(jnp.issubdtype(s.dtype, jnp.inexact) for s in shapes)
        fn = _compile.jit(("sym_fwd_bwd", grad_names, add_names, differentiable),
                          lambda: _fwd_bwd_fn(self._program, grad_names, add_names, differentiable),
                          owner=self._program)
        old = {k: self.grad_dict[k] for k in add_names}
        outs, new_aux, grads = fn(params, key, head_grads, old)
        if self._outputs is None:
            self._set_outputs(outs)
        self._apply_aux(new_aux)
        self.grad_dict.update(grads)

    def _out_structs(self, params: dict, key: Any) -> list[Any]:
        cache = self.__dict__.setdefault("_struct_cache", {})
        sig = tuple((n, tuple(v.shape), str(v.dtype)) for n, v in params.items())
        if sig not in cache:
            cache[sig] = jax.eval_shape(lambda p, k: self._program(p, [], training=True, key=k)[0], params,
                                        key)
        return cache[sig]

    # ------------------------------------------------------------------ MXNet's other methods
    def set_monitor_callback(self, callback: Any, monitor_all: bool = False) -> None:
        """Call ``callback(name, array)`` at each forward with the outputs of every operator node
        (``fc1_output``, ...; MXNet's names, in graph order). Unlike MXNet, the backward's nodes are not
        reported (gradients are one JAX program) and ``monitor_all`` (each node's inputs too) is refused."""
        if monitor_all:
            raise ValueError("set_monitor_callback: monitor_all=True (the inputs of every node) is not "
                             "supported; with monitor_all=False every node's outputs are reported, and "
                             "mx.mon.Monitor.toc() adds the arguments and auxiliary states")
        self._monitor = callback

    def copy_params_from(self, arg_params: Mapping[str, Any], aux_params: Mapping[str, Any] | None = None,
                         allow_extra_params: bool = False) -> None:
        """Copy values into ``arg_dict``/``aux_dict`` (cast to the bound dtype, checked for shape)."""
        pairs = ((arg_params, self.arg_dict, "arg"), (aux_params or {}, self.aux_dict, "aux"))
        for source, target, what in pairs:
            for name, value in source.items():
                if name not in target:
                    if allow_extra_params:
                        continue
                    raise ValueError(f"Find name \"{name}\" that is not in the {what}uments")
                old = target[name]
                arr = _to_device(value, self._ctx, old.dtype)
                if arr.shape != old.shape:
                    raise ValueError(f"copy_params_from: {name} has shape {tuple(arr.shape)}, the "
                                     f"executor's is {tuple(old.shape)}")
                target[name] = arr

    def reshape(self, partial_shaping: bool = False, allow_up_sizing: bool = False,
                **kwargs: Any) -> Executor:
        """An executor of the same symbol for new input shapes, sharing the arrays whose shape is
        unchanged (new arrays, zeros, for the others)."""
        shapes = {n: tuple(v.shape) for n, v in self.arg_dict.items()}
        shapes.update({k: tuple(v) for k, v in kwargs.items()})
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**{k: v for k, v in shapes.items()
                                                                if k in kwargs})
        if arg_shapes is None:
            raise ValueError(f"reshape: cannot infer the shapes of the arguments from {kwargs}")
        args, grads, aux = {}, {}, {}
        for name, shape in zip(self._arg_names, arg_shapes, strict=True):
            old = self.arg_dict[name]
            if tuple(old.shape) == tuple(shape):
                args[name] = old
                if name in self.grad_dict:
                    grads[name] = self.grad_dict[name]
            else:
                if name not in kwargs and not partial_shaping:
                    raise ValueError(f"reshape: the shape of {name} changes from {tuple(old.shape)} to "
                                     f"{tuple(shape)}; pass partial_shaping=True to allow it")
                args[name] = jax.device_put(jnp.zeros(shape, old.dtype), self._ctx)
                if name in self.grad_dict:
                    grads[name] = jax.device_put(jnp.zeros(shape, old.dtype), self._ctx)
        for name, shape in zip(self._aux_names, aux_shapes, strict=True):
            old = self.aux_dict[name]
            aux[name] = old if tuple(old.shape) == tuple(shape) else \
                jax.device_put(jnp.zeros(shape, old.dtype), self._ctx)
        return Executor(self._symbol, self._ctx, args, grads, dict(self._grad_req), aux)

    def debug_str(self) -> str:
        return self._symbol.debug_str()


# ------------------------------------------------------------------------------ binding
def _req_dict(grad_req: Any, names: list[str]) -> dict[str, str]:
    if isinstance(grad_req, str):
        reqs = dict.fromkeys(names, grad_req)
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise ValueError(f"grad_req: {len(grad_req)} values for {len(names)} arguments {names}")
        reqs = dict(zip(names, grad_req, strict=True))
    elif isinstance(grad_req, Mapping):
        reqs = {n: grad_req.get(n, "null") for n in names}
    else:
        raise TypeError(f"grad_req must be a str, a list or a dict, got {type(grad_req).__name__}")
    for n, r in reqs.items():
        if r not in ("write", "add", "null", "inplace"):
            raise ValueError(f"grad_req[{n!r}] = {r!r} must be 'write', 'add' or 'null'")
    return {n: "write" if r == "inplace" else r for n, r in reqs.items()}


def _named(values: Any, names: list[str], what: str, device: jax.Device, required: bool = True) -> dict:
    if values is None:
        if required and names:
            raise ValueError(f"bind: {what} are required: {names}")
        return {}
    if isinstance(values, Mapping):
        missing = [n for n in names if n not in values]
        if missing and required:
            raise ValueError(f"bind: {what} misses {missing}")
        return {n: _to_device(values[n], device) for n in names if n in values and values[n] is not None}
    values = list(values)
    if len(values) != len(names):
        raise ValueError(f"bind: {len(values)} {what} for {len(names)} names {names}")
    return {n: _to_device(v, device) for n, v in zip(names, values, strict=True) if v is not None}


def bind(symbol: Symbol, ctx: Any, args: Any, args_grad: Any = None, grad_req: Any = "write",
         aux_states: Any = None, group2ctx: Any = None, shared_exec: Any = None) -> Executor:
    """An executor on the given arrays (lists in ``list_arguments`` order, or dicts by name)."""
    device = _device(ctx)
    names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    arg = _named(args, names, "args", device)
    grads = _named(args_grad, names, "args_grad", device, required=False)
    aux = _named(aux_states, aux_names, "aux_states", device, required=bool(aux_names))
    reqs = _req_dict(grad_req, names)
    if args_grad is None:
        reqs = dict.fromkeys(names, "null")
    return Executor(symbol, device, arg, grads, reqs, aux)


def simple_bind(symbol: Symbol, ctx: Any, grad_req: Any = "write", type_dict: Mapping[str, Any] | None = None,
                stype_dict: Any = None, group2ctx: Any = None, shared_arg_names: Any = None,
                shared_exec: Executor | None = None, shared_buffer: Any = None, **kwargs: Any) -> Executor:
    """An executor with zero arrays of the shapes inferred from ``kwargs`` (input shapes by name)."""
    device = _device(ctx)
    arg_shapes, _, aux_shapes = symbol.infer_shape(**kwargs)
    if arg_shapes is None:
        partial = symbol.infer_shape_partial(**kwargs)[0]
        unknown = [n for n, s in zip(symbol.list_arguments(), partial, strict=True) if not s]
        raise ValueError(f"simple_bind: cannot infer the shapes of {unknown} from {kwargs}; give them")
    names, aux_names = symbol.list_arguments(), symbol.list_auxiliary_states()
    types = dict(zip(names, symbol.infer_type(**dict(type_dict or {}))[0], strict=True))
    variables = symbol._variables()
    reqs = _req_dict(grad_req, names)
    shared = shared_exec.arg_dict if shared_exec is not None else {}
    args, grads, aux = {}, {}, {}
    for name, shape in zip(names, arg_shapes, strict=True):
        dtype = ((type_dict or {}).get(name) or declared_dtype(variables[name]) or types.get(name)
                 or onp.float32)
        old = shared.get(name)
        if old is not None and tuple(old.shape) == tuple(shape):
            args[name] = old
        else:
            args[name] = jax.device_put(jnp.zeros(shape, dtype), device)
        if reqs[name] != "null":
            grads[name] = jax.device_put(jnp.zeros(shape, dtype), device)
    for name, shape in zip(aux_names, aux_shapes, strict=True):
        dtype = declared_dtype(variables[name]) or onp.float32
        old = shared_exec.aux_dict.get(name) if shared_exec is not None else None
        aux[name] = old if old is not None and tuple(old.shape) == tuple(shape) else \
            jax.device_put(jnp.zeros(shape, dtype), device)
    return Executor(symbol, device, args, grads, reqs, aux)


