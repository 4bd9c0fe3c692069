"""Block and HybridBlock: a thin stateful shell around pure functions of parameter pytrees.

``net.functional_call(params, *inputs, training=False, key=None)`` is the pure function: ``params`` is a
flat dict keyed by Gluon's structural names (``'0.weight'``), usable under ``jax.jit``/``grad``/``vmap``/
``pmap`` with no framework state. ``net(x)`` binds the Parameters' values on ``x``'s device and runs it:
compiled (built-in layers always; a HybridBlock tree as one ``jax.jit`` after ``hybridize()``), recorded
inside ``autograd.record()``.

>>> import jax
>>> from framework import gluon, np
>>> net = gluon.nn.Dense(3)
>>> net.initialize()
>>> net(np.ones((2, 5))).shape
(2, 3)
>>> params = net.collect_params().values_on()  # {'weight': ..., 'bias': ...}
>>> jax.jit(net.functional_call)(params, np.ones((2, 5))).shape
(2, 3)
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import jax

from .. import _compile, config
from .. import device as _device
from ..autograd import mode, tape
from ..autograd.graph import Abstract, BlockDesc, abstract_eval, interned
from ..autograd.lazy import Deferred
from ..autograd.tape import Recorded
from ..base import StrictKwargs, check_kwargs
from ..np import random
from . import binding as _binding
from . import name_scope as _names
from . import persist as _persist
from . import summary as _summary
from ._inputs import check_inputs
from .hooks import HookHandle
from .hybrid_forward import call_hybrid_forward, defines_hybrid_forward
from .parameter import DeferredInitializationError, Parameter, ParameterDict
from .symbolic_call import call_on_symbols, has_symbol, infer_shapes_through_graph

__all__ = ["Block", "HybridBlock"]

_STRUCTURE_EPOCH = itertools.count(1)
_epoch = [0]
_infer = threading.local()


def _bump() -> None:
    _epoch[0] = next(_STRUCTURE_EPOCH)


_MXNET_OPTIMIZE_OPTIONS = ("partition_if_dynamic", "static_alloc", "static_shape", "inline_limit",
                           "forward_bulk_size", "backward_bulk_size")


def _has_tracer(tree: Any) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(tree))


def _leaf_device(a: Any) -> jax.Device | None:
    """The device of a recorded value, or of a concrete array on one device; None for anything else."""
    if isinstance(a, Recorded):  # a Variable too
        return a.device
    if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer):
        devs = a.devices()
        if len(devs) == 1:
            return next(iter(devs))
    return None


def _input_device(leaves: list, params: ParameterDict) -> jax.Device:
    """The device of the first input on one device (recorded values are leaves), else the parameters'."""
    for a in leaves:
        dev = _leaf_device(a)
        if dev is not None:
            return dev
    ctxs = params.list_ctx() if params else []
    if len(ctxs) == 1:
        return ctxs[0]
    return _device.current_device()


@functools.lru_cache(maxsize=16)
def _leaves_treedef(n: int) -> Any:
    return jax.tree_util.tree_structure((0,) * n)


def _treedef(args: tuple) -> Any:
    """The tree structure of a call's arguments, recorded values as leaves (a tuple of ``n`` arrays,
    the usual call, without a walk)."""
    for a in args:
        if not isinstance(a, (jax.Array, Recorded)):
            return jax.tree_util.tree_structure(args, is_leaf=lambda x: isinstance(x, Recorded))
    return _leaves_treedef(len(args))


def _prefixed(root: Block) -> Iterator[tuple[str, Block]]:
    """(structural prefix, block) of ``root``'s tree in depth-first order, children in registration
    order. A loop, not a recursive closure: a closure that calls itself is a reference cycle, and the
    Blocks it reaches would then wait for the garbage collector instead of dying with their last use."""
    stack: list[tuple[str, Block]] = [("", root)]
    while stack:
        prefix, block = stack.pop()
        yield prefix, block
        stack.extend((f"{prefix}{name}.", child) for name, child in reversed(block._children.items()))


class Structure(NamedTuple):
    """A Block tree's structure, cached until the tree changes (``epoch``): its Parameters once each
    (``params``, structural name -> Parameter, the pytree of ``functional_call``) and under every name
    that reaches them (``every``), its blocks (id -> structural name), the hashable ``key`` of the tree
    (part of a program's key) and ``param_list``, the Parameters in ``params`` order."""

    epoch: int
    params: ParameterDict
    blocks: dict
    every: ParameterDict
    key: tuple
    param_list: tuple


class LastRecord(NamedTuple):
    """What a Block's last recorded call on a device described, replayed while nothing it depends on
    changed (:meth:`Block._replay`): the tree, the mode, the type of each input and the aval of each
    input and Parameter value (JAX hands out the same aval objects in a loop's steady state)."""

    structure: Structure
    training: bool
    kinds: tuple
    avals: tuple
    desc: BlockDesc
    abstract: Abstract


class Block(StrictKwargs):
    """Base class of all layers and models. Assign Blocks and Parameters as attributes to register them.

    Subclasses define ``forward(*inputs)``; parameters are read with ``self.weight.data()``.
    """

    _transient = False  # a helper block around others' Parameters (does not rename them)
    _compiled_leaf = False  # built-in layers set True: compiled layer by layer when not hybridized

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a user's subclass of a built-in layer or loss with its own forward/hybrid_forward is the user's
        # code: it runs as Python until hybridized, as in MXNet (its Python branches on values, the
        # Parameters it is handed as arguments), not as the built-in's compiled call
        if cls._compiled_leaf and "_compiled_leaf" not in cls.__dict__ and \
                not cls.__module__.startswith("framework.") and \
                ("forward" in cls.__dict__ or "hybrid_forward" in cls.__dict__):
            cls._compiled_leaf = False

    def __init__(self, prefix: str | None = None, params: Any = None, **kwargs: Any) -> None:
        if kwargs:  # a subclass passed on what Block does not take: Python's TypeError, with the names
            check_kwargs(f"{type(self).__name__}: Block.__init__()", kwargs, ("prefix", "params"))
        object.__setattr__(self, "_children", OrderedDict())
        object.__setattr__(self, "_reg_params", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_structure_cache", None)
        object.__setattr__(self, "_active", False)
        _names.assign(self, prefix, params)  # MXNet 1.x prefix and params= sharing

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name)
        for kind in (Block, Parameter):  # MXNet: a registered attribute keeps its kind
            if isinstance(old, kind) and not isinstance(value, kind):
                raise TypeError(
                    f"Changing attribute type for {name} from {type(old).__name__} to "
                    f"{type(value).__name__} is not allowed: '{name}' is a registered {kind.__name__}. "
                    f"Assign another {kind.__name__}, or use a new attribute name."
                )
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            value = _names.adopt(self, name, value)  # the shared Parameter when made with params=
            self._reg_params[name] = value
            value._structural_name = value._structural_name or name
            _bump()
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Block) for v in value):
            warnings.warn(
                f'"{name}" is an unregistered container with Blocks. Note that Blocks inside the list, '
                "tuple or dict will not be registered automatically. Make sure to register them using "
                "register_child() or switching to nn.Sequential/nn.HybridSequential instead.",
                stacklevel=2,
            )
        object.__setattr__(self, name, value)

    def register_child(self, block: Block, name: str | None = None) -> Block:
        """Register ``block`` as a child (named ``name``, default its index)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block
        _bump()
        return block

    def register_forward_hook(self, hook: Callable) -> HookHandle:
        """Call ``hook(block, inputs, output)`` after each forward; ``.detach()`` the handle to remove it.

        >>> from framework import gluon, np
        >>> net = gluon.nn.Dense(2); net.initialize(); seen = []
        >>> handle = net.register_forward_hook(lambda b, i, o: seen.append(o.shape))
        >>> _ = net(np.ones((3, 4))); handle.detach(); _ = net(np.ones((3, 4)))
        >>> seen
        [(3, 2)]
        """
        return HookHandle(self._forward_hooks, hook, _bump)

    def register_forward_pre_hook(self, hook: Callable) -> HookHandle:
        """Call ``hook(block, inputs)`` before each forward; ``.detach()`` the handle to remove it."""
        return HookHandle(self._forward_pre_hooks, hook, _bump)

    # ------------------------------------------------------------------ structure
    def _structure(self) -> tuple[ParameterDict, dict[int, str]]:
        """(structural name -> Parameter, id(block) -> structural name), cached until the tree changes.

        A Parameter shared by several blocks appears once, under its first name: this is the pytree of
        :meth:`functional_call`. :meth:`collect_params` lists every name (:attr:`Structure.every`).
        """
        return self._tree()[1:3]

    def _tree(self) -> Structure:
        """The tree's :class:`Structure`, cached until the tree changes."""
        cache = self._structure_cache
        if cache is not None and cache.epoch == _epoch[0]:
            return cache
        params = ParameterDict()
        every = ParameterDict()
        blocks: dict[int, str] = {}
        seen: set[int] = set()

        for prefix, block in _prefixed(self):
            blocks.setdefault(id(block), prefix.rstrip("."))
            for name, p in block._reg_params.items():
                if p is None:
                    continue
                every[prefix + name] = p
                if id(p) not in seen:
                    seen.add(id(p))
                    params[prefix + name] = p
                    if not self._transient:
                        p._structural_name = prefix + name
        cache = Structure(_epoch[0], params, blocks, every, (tuple(params), tuple(blocks.items())),
                          tuple(params.values()))
        object.__setattr__(self, "_structure_cache", cache)
        return cache

    def _structure_key(self) -> tuple:
        """A hashable description of the tree (parameter names, blocks): part of a program's key, so
        that adding or replacing a child compiles afresh."""
        return self._tree().key

    def collect_params(self, select: str | None = None) -> ParameterDict:
        """All Parameters of this tree keyed by structural name; ``select`` is a regex on the names: the
        1.x full names (``rbm_dense0_weight``) in a tree written for MXNet 1.x, as MXNet 1.x matches
        them, else the structural names.

        A shared Parameter is listed under each name that reaches it (MXNet 2.0), so
        ``save_parameters`` writes one entry per name unless ``deduplicate=True``; in a tree written for
        MXNet 1.x it is listed once, under the first name that reaches it, as MXNet 1.x's dictionary
        keyed by full names holds it (code that pairs two networks' parameters by position counts on
        it). ``_collect_params_with_prefix`` lists every name in both.
        """
        params = self._tree().every
        legacy = _names.written_for_1x(self)
        if legacy:
            seen: set[int] = set()
            params = {k: v for k, v in params.items() if not (id(v) in seen or seen.add(id(v)))}
        if select is None:
            return ParameterDict(params)
        regex = re.compile(select)
        if legacy:
            return ParameterDict((k, v) for k, v in params.items() if regex.match(v._var_name))
        return ParameterDict((k, v) for k, v in params.items() if regex.match(k))

    @property
    def params(self) -> ParameterDict:
        """This block's own Parameters (not its children's), with MXNet 1.x's ``get``/``get_constant``."""
        return _names.block_params(self)

    # MXNet 1.x naming (framework/gluon/name_scope.py)
    @property
    def prefix(self) -> str:
        """MXNet 1.x's prefix of this block's Parameter names, e.g. ``'dense0_'``."""
        return self.__dict__["_prefix"]

    @property
    def name(self) -> str:
        """The prefix without its trailing underscore, e.g. ``'dense0'``."""
        return self.prefix[:-1] if self.prefix.endswith("_") else self.prefix

    def name_scope(self) -> Any:
        """``with self.name_scope():`` children made inside are named under this block's prefix."""
        return _names.scope(self)

    def _collect_params_with_prefix(self, prefix: str = "") -> ParameterDict:
        """Every Parameter under every structural name that reaches it (what ``save_parameters``
        writes and ``load_parameters`` reads, as in MXNet)."""
        return ParameterDict((prefix + k, v) for k, v in self._tree().every.items())

    # ------------------------------------------------------------------ state management
    def initialize(self, init: Any = None, ctx: Any = None, verbose: bool = False,
                   force_reinit: bool = False, *, device: Any = None) -> None:
        """Initialise every Parameter (default ``initializer.Uniform()``; MXNet's precedence)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit, device=device)

    def zero_grad(self) -> None:
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx: Any) -> None:
        self.collect_params().reset_ctx(ctx)

    reset_device = reset_ctx

    def cast(self, dtype: Any) -> None:
        for p in self.collect_params().values():
            p.cast(dtype)

    def apply(self, fn: Callable[[Block], Any]) -> Block:
        """Apply ``fn`` to every child recursively, then to this block (MXNet's ``Block.apply``)."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def share_parameters(self, shared: dict[str, Parameter] | None) -> Block:
        """Use the Parameters in ``shared`` (structural name -> Parameter) instead of this tree's own;
        ``None`` shares nothing (MXNet 2.0)."""
        if shared is None:
            return self
        slots: dict[str, tuple[Block, str]] = {}  # structural name -> (owning block, registered key)
        for prefix, block in _prefixed(self):
            for key in block._reg_params:
                slots.setdefault(prefix + key, (block, key))
        for name, p in shared.items():
            if name not in slots:
                continue
            owner, key = slots[name]
            old = owner._reg_params[key]
            owner._reg_params[key] = p
            for attr, value in list(vars(owner).items()):  # the attribute and any alias (rnn's l0_i2h_weight)
                if value is old:
                    object.__setattr__(owner, attr, p)
        _bump()
        return self

    def values_on(self, ctx: Any = None) -> dict[str, jax.Array]:
        """``{structural name: value}`` on one device: the pytree for :meth:`functional_call`."""
        return self.collect_params().values_on(ctx)

    # ------------------------------------------------------------------ the pure function
    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def functional_call(self, params: dict[str, Any], *inputs: Any, training: bool = False,
                        key: jax.Array | None = None, return_state: bool = False,
                        device: jax.Device | None = None) -> Any:
        """Run ``forward`` on ``params`` (structural name -> array) with no framework state.

        ``return_state=True`` returns ``(outputs, new_state)`` where ``new_state`` maps the names of
        non-trained parameters updated in training mode (BatchNorm statistics) to their new values;
        without it, a call that updates state raises rather than dropping it. Layers that need
        randomness in training mode use ``key`` (required under ``jax.jit``/``grad``/``vmap``).
        ``device`` is the device the arrays will be on, which picks the backend rewrites (default: the
        inputs' device, or the default backend's under a trace).
        """
        named, blocks = self._structure()
        values: dict[Parameter, Any] = {}
        for name, p in named.items():
            if name in params:
                values[p] = params[name]
            elif p._data is not None:
                raise KeyError(
                    f"functional_call of {type(self).__name__}: params has no entry {name!r}; pass every "
                    f"parameter of collect_params() (missing: {sorted(set(named) - set(params))})."
                )
        names_of = {p: n for n, p in named.items()}
        traced = key is None and (_has_tracer(params) or _has_tracer(inputs))
        with _binding.Binding(values, training=training, key=key, block_names=blocks, device=device,
                              traced=traced, owner=self) as b, config.platform_scope(device):
            out = self._invoke_forward(*inputs)
        if return_state:
            return out, {names_of[p]: v for p, v in b.state.items()}
        if b.state:
            changed = ", ".join(sorted(names_of[p] for p in b.state))
            raise _binding.StateDroppedError(
                f"{type(self).__name__}.functional_call(training=True) updated state ({changed}) that a "
                "pure call cannot store; pass return_state=True and keep the returned state, or call with "
                "training=False."
            )
        return out

    def _invoke_forward(self, *args: Any) -> Any:
        """Run this block's math: ``forward`` (the hook where 1.x's ``hybrid_forward`` plugs in)."""
        return self.forward(*args)

    # ------------------------------------------------------------------ the shell
    def __call__(self, *args: Any) -> Any:
        out = None if self._forward_pre_hooks else self._replay(args)
        if out is None:
            if has_symbol(args):  # MXNet 1.x: a Block called on Symbols builds their graph
                return call_on_symbols(self, *args)
            check_inputs(self, args)
            if self._forward_pre_hooks:
                for hook in tuple(self._forward_pre_hooks.values()):
                    hook(self, args)
            out = self._call(*args)
        if self._forward_hooks:
            for hook in tuple(self._forward_hooks.values()):
                hook(self, args, out)
        return out

    def _call(self, *args: Any) -> Any:
        bound = _binding.current()
        if bound is not None and bound.values is not None:  # inside a pure call
            return self._invoke_forward(*args)
        if getattr(_infer, "active", False):  # inside the abstract evaluation of a hybridized tree
            self._infer_own(args)
            with _binding.Binding(device=None):
                return self._invoke_forward(*args)
        tree = self._tree()  # the cached tree (collect_params() returns a copy)
        params = tree.params
        datas = [p._replicas for p in tree.param_list]  # per device, or None
        leaves = jax.tree_util.tree_leaves(args)  # a recorded value is a leaf (not a pytree)
        traced = any(isinstance(x, jax.core.Tracer) for x in leaves)
        compiled = self._runs_compiled()
        if any(d is None for d in datas):
            compiled = self._fix_shapes(args, params, compiled, traced)
            datas = [p._replicas for p in tree.param_list]
        if traced:
            # called inside the user's own jit/grad/vmap: stay pure, parameters enter as constants;
            # randomness needs an explicit key there (functional_call(key=...)), state cannot be kept
            return self.functional_call(params.values_on(), *args, training=mode.is_training())
        if not mode.is_recording() and any(isinstance(x, Recorded) for x in leaves):
            args = tape.values_of(args)
            leaves = jax.tree_util.tree_leaves(args)
        dev = _input_device(leaves, params)
        if compiled:
            try:
                values = [d[dev] for d in datas]
            except KeyError:
                params.values_on(dev)  # raises the error naming the Parameter and the fix
                raise
            if Deferred in map(type, values):  # a layer state a backward left deferred: compute it
                values = [p._data[dev] for p in tree.param_list]
            return self._call_compiled(dev, values, args)
        with _binding.Binding(device=dev):
            return self._invoke_forward(*args)

    def _runs_compiled(self) -> bool:
        return False

    def _call_compiled(self, dev: jax.Device, values: list[jax.Array], args: tuple) -> Any:
        """Run (or record) this tree as one compiled call on ``dev``; ``values`` are its Parameters'
        arrays there, in :meth:`_structure` order."""
        tree = self._structure_cache
        names, training = tree.key[0], mode.is_training()
        key = random.next_key_parts(device=dev)
        if mode.is_recording():
            return self._record(tree, training, dev, values, key, args)
        # MXNet commits BatchNorm statistics at backward only: train_mode() without record()
        # computes them and keeps the running ones (tests/gluon/nn/test_nn_reference.py)
        program = _compile.block_program(self, training, True, dev)
        out, _state = program(dict(zip(names, values, strict=True)), key, *args)
        return out

    def _record(self, tree: Structure, training: bool, dev: jax.Device, values: list[jax.Array],
                key: tuple, args: tuple) -> Any:
        """Record this call as one node, and remember what it described for :meth:`_replay`."""
        desc = interned(BlockDesc(weakref.ref(self), training, _treedef(args), tree.key[0], dev, tree.key))
        abstract = abstract_eval(desc, (*key, *args), values)
        avals = tuple(getattr(a, "aval", None) for a in (*args, *values))
        if None not in avals:  # every input an array or recorded value (a leaf): replayable
            records = self.__dict__.get("_last_record")  # one per device (the seed calls it on each)
            if records is None or len(records) > 8:
                records = self.__dict__["_last_record"] = {}
            records[dev] = LastRecord(tree, training, tuple(map(type, args)), avals, desc, abstract)
        return tape.record_block(self, desc, tree.param_list, values, key, args, dev, abstract=abstract)

    def _replay(self, args: tuple) -> Any:
        """A training loop's steady state: record this call as the last recorded call on its device was
        (the same description and abstract result), without the decisions :meth:`_call` makes, when
        nothing they depend on changed: recording, outside a pure call, the tree (its structure, hooks,
        hybridization: each bumps its epoch) and the training flag the same, every input of the same
        type and aval, every Parameter's value on that device of the same aval. None otherwise: the
        full path then runs."""
        records = self.__dict__.get("_last_record")
        if records is None or not args or not mode.flags.recording or getattr(_infer, "active", False):
            return None
        stack = _binding.bindings.stack
        if stack and stack[-1].values is not None:  # inside a pure call
            return None
        dev = _leaf_device(args[0])
        last = records.get(dev)
        tree = self._structure_cache
        if last is None or last.structure is not tree or tree.epoch != _epoch[0] \
                or last.training != mode.flags.training or len(args) != len(last.kinds):
            return None
        for a, kind, aval in zip(args, last.kinds, last.avals, strict=False):
            if type(a) is not kind or a.aval is not aval:
                return None
        values = []
        for p, aval in zip(tree.param_list, last.avals[len(args):], strict=True):
            v = p._replicas.get(dev) if p._replicas is not None else None
            if v is None or type(v) is Deferred or v.aval is not aval:
                return None
            values.append(v)
        key = random.next_key_parts(device=dev)
        return tape.record_block(self, last.desc, tree.param_list, values, key, args, dev,
                                 abstract=last.abstract)

    # ------------------------------------------------------------------ deferred shape inference
    def _fix_shapes(self, args: tuple, params: ParameterDict, compiled: bool, traced: bool) -> bool:
        """Fix the shapes of Parameters still deferred before this call; returns whether the call runs
        compiled.

        As in MXNet, a Block fixes its own Parameters' shapes from the input it receives
        (``infer_shape``, on the concrete input: no trace), and its children theirs as they run, so a
        plain Block's or an un-hybridized HybridBlock's ``forward`` runs as Python on concrete arrays
        from the first call on. A hybridized tree (or a call inside the user's own trace) is traced
        anyway: its shapes come from abstract evaluation, as MXNet infers a hybridized graph's
        symbolically. So is a tree that runs as one program (a built-in layer with children, a stack of
        built-in or hybridized layers: pure code), whose first call then records the node every later
        call records (one whole-graph program for a training loop, not a first one of its layers)."""
        if traced or (compiled and self._active):
            self._deferred_infer(args, params)
            return compiled
        self._infer_own(args)
        if compiled and any(p._replicas is None for p in self._tree().param_list):
            self._deferred_infer(args, params)
        return compiled

    def _deferred_infer(self, args: tuple, params: ParameterDict) -> None:
        missing = [n for n, p in params.items() if p._data is None and p._deferred is None]
        if missing:
            raise RuntimeError(
                f"Parameter '{missing[0]}' has not been initialized. Call {type(self).__name__}."
                "initialize() (or collect_params().initialize()) before the first forward pass."
            )
        abstract = jax.tree_util.tree_map(
            lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype) if hasattr(a, "shape") else a, args,
            is_leaf=lambda x: isinstance(x, Recorded))
        _infer.active = True
        prev = mode.set_recording(False)
        try:
            jax.eval_shape(lambda *xs: self._call(*xs), *abstract)
        finally:
            _infer.active = False
            mode.set_recording(prev)

    def _infer_own(self, args: tuple) -> None:
        own = [p for p in self._reg_params.values() if p is not None and p._data is None]
        if not own:
            return
        if any(not p._known for p in own):
            self.infer_shape(*args)
        for p in own:
            p._finish_deferred_init()

    def infer_shape(self, *args: Any) -> None:
        """Set the unknown (0) dimensions of this block's own Parameters from its first inputs. A 1.x
        block (``hybrid_forward``) gets them as MXNet gives them: inferred through the graph of its
        operators, the block called on Symbols of the inputs' shapes."""
        why = infer_shapes_through_graph(self, args) if defines_hybrid_forward(self) else None
        unknown = [n for n, p in self._reg_params.items() if p is not None and not p._known]
        if not unknown:
            return
        if why:
            raise DeferredInitializationError(
                f"{type(self).__name__} has Parameters of unknown shape {unknown}; inferring them through "
                f"the graph of its hybrid_forward failed ({why}): give the shapes explicitly, or define "
                "infer_shape(*inputs)")
        raise DeferredInitializationError(
            f"{type(self).__name__} has Parameters of unknown shape {unknown} and defines no "
            "infer_shape(*inputs): give the shapes explicitly, or define infer_shape."
        )

    # ------------------------------------------------------------------ misc MXNet API
    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Compile the tree with ``jax.jit`` (HybridBlocks); plain Blocks pass it to their children."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def summary(self, *inputs: Any) -> None:
        _summary.summary(self, *inputs)

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        _persist.save_parameters(self, filename, deduplicate=deduplicate)

    def load_parameters(self, filename: str, ctx: Any = None, allow_missing: bool = False,
                        ignore_extra: bool = False, cast_dtype: bool = False,
                        dtype_source: str = "current", *, device: Any = None) -> None:
        _persist.load_parameters(self, filename, device if device is not None else ctx, allow_missing,
                        ignore_extra, cast_dtype, dtype_source)

    def __repr__(self) -> str:
        if not self._children:
            return f"{type(self).__name__}()"
        lines = [f"{type(self).__name__}("]
        for name, child in self._children.items():
            body = repr(child).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        lines.append(")")
        return "\n".join(lines)


class HybridBlock(Block):
    """A Block whose ``forward`` is a pure function of its inputs and Parameters: compilable.

    Built-in layers run compiled even un-hybridized; ``hybridize()`` compiles a whole tree as one jit.
    """

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        object.__setattr__(self, "_active", active)
        _compile.forget(self)
        _bump()  # whether this tree (and those holding it) runs as one compiled call may change
        super().hybridize(active, **kwargs)

    def _runs_compiled(self) -> bool:
        return self._active or self._compiled_leaf

    def forward(self, *args: Any) -> Any:
        """MXNet 2.0 subclasses define ``forward``; a 1.x one defining ``hybrid_forward(self, F, x, ...)``
        runs through it (see framework/gluon/hybrid_forward.py)."""
        if defines_hybrid_forward(self):
            return call_hybrid_forward(self, *args)
        raise NotImplementedError(f"{type(self).__name__} must define forward() (or 1.x's hybrid_forward)")

    def prng_key(self) -> jax.Array:
        """The PRNG key of this call (derived from the call's key and this block's structural name)."""
        bound = _binding.current()
        if bound is None:
            return random.next_key()
        return bound.block_key(self)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True, *,
               inputs: Any = None) -> tuple[str, str]:
        """Write ``path-symbol.json`` (the traced program as MXNet operators) and ``path-%04d.params``
        (``arg:``/``aux:`` names) that MXNet's ``SymbolBlock.imports`` loads; returns both file names.
        The input shapes are those of the last compiled call (hybridize and run once), or ``inputs``."""
        from ..symbol._export import export_block

        return export_block(self, path, epoch, remove_amp_cast, inputs=inputs)

    def optimize_for(self, x: Any, *args: Any, backend: str | list[str] | None = None,
                     backend_opts: Any = None, clear: bool = True, **kwargs: Any) -> None:
        """Hybridize and run once on ``x``. ``backend`` names registered rewrites of the compile layer
        (``'conv_pool'``) to apply on any platform, the explicit form of the rewrites applied by
        default where they are faster. MXNet's other options are accepted and need nothing here."""
        check_kwargs("optimize_for", kwargs, _MXNET_OPTIMIZE_OPTIONS)
        known = _compile.rewrites()
        names = () if backend is None else (backend,) if isinstance(backend, str) else tuple(backend)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"optimize_for: backend={backend!r} is not a registered rewrite; known: "
                             f"{sorted(known)}.")
        self.apply(lambda b: object.__setattr__(b, "_rewrite_backends", names))
        self.hybridize(True)
        self(x, *args)


