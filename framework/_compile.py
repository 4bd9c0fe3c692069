"""The compile layer: the ONE module of the framework that calls ``jax.jit`` and ``jax.pmap``.

Everything the framework compiles -- a Block's forward (hybridized, built-in layer by layer, replayed by
the autograd recorder), the recorder's backward program, the Trainer's update and the data-parallel
training step -- is asked for here with a *description*: a pure, hashable value saying what to compile
(function identity, static arguments tagged with their type so ``0``, ``False`` and ``0.0`` differ, tree
structures, input references, the training flag) and a ``build`` callable that makes the function from
it. A description never holds an array or a recorded value, so no cache keeps one alive.

Caches are per *owner* (a Block, a Trainer, a DataParallel step): stored on the owner, registered here
weakly, so they die with it. Descriptions without an owner (recorded computations) share one bounded
LRU. :func:`clear_caches` (also ``framework.clear_caches()``) empties all of them.

>>> import jax.numpy as jnp
>>> f = jit(("doc", "square"), lambda: lambda x: x * x)
>>> float(f(jnp.float32(3.0))), f is jit(("doc", "square"), lambda: None)
(9.0, True)
>>> static(0) == static(False), static(2) == static(2.0)
(False, False)
>>> thaw(static((1, slice(None, 2), [True])))
(1, slice(None, 2, None), [True])
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import jax

from . import _compile_cache, _jax_compat, config

_compile_cache.enable()  # before the first compilation: JAX reads the setting once

__all__ = ["jit", "jit_on_repeat", "FirstSeen",
           "pmap", "compiler_options", "static", "thaw", "clear_caches", "on_clear", "program_names",
           "block_function", "block_program", "Opaque", "forget",
           "register_rewrite", "rewrites", "rewrites_enabled", "sequence_plan", "rewrite_listing"]

_lock = threading.RLock()
_owners: weakref.WeakSet = weakref.WeakSet()
_shared: OrderedDict = OrderedDict()
_SHARED_MAX = 256
_clear_hooks: list[Callable[[], None]] = []


# ------------------------------------------------------------------------------------ descriptions
class Opaque:
    """An unhashable static argument, compared by identity (its program is not shared)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


_SCALARS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))


def static(x: Any) -> Hashable:
    """A hashable description of a static (non-array) argument, tagged with its type."""
    if isinstance(x, _SCALARS):
        return (type(x), x)
    if isinstance(x, slice):
        return (slice, static(x.start), static(x.stop), static(x.step))
    if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
        return (type(x), tuple(static(v) for v in x))
    try:
        hash(x)
    except TypeError:
        return (Opaque, Opaque(x))
    return (type(x), x)


def thaw(d: Hashable) -> Any:
    """The value a :func:`static` description stands for."""
    kind, *rest = d  # type: ignore[misc]
    if kind is slice:
        return slice(*(thaw(v) for v in rest))
    if kind in (list, tuple):
        return kind(thaw(v) for v in rest[0])
    if kind is Opaque:
        return rest[0].value
    return rest[0]


# ------------------------------------------------------------------------------------------ caches
def _lookup(desc: Hashable, owner: Any, make: Callable[[], Callable]) -> Callable:
    with _lock:
        if owner is None:
            cache = _shared
        else:
            cache = owner.__dict__.get("_compiled")
            if cache is None:
                cache = owner.__dict__["_compiled"] = {}
                _owners.add(owner)
        fn = cache.get(desc)
        if fn is None:
            fn = cache[desc] = make()
            if owner is None and len(_shared) > _SHARED_MAX:
                _shared.popitem(last=False)
        elif owner is None:
            _shared.move_to_end(desc)
    return fn


_trace_state_clean = _jax_compat.trace_state_clean  # JAX's own function: no framework call per program call
_refused: list[bool] = [False]  # set once this XLA refused the options: every later program goes without


def compiler_options() -> dict[str, str] | None:
    """The XLA options of :func:`framework.config.xla_options` for the compile layer's programs (None
    when there are none, or once this XLA has refused them)."""
    options = config.xla_options()
    return options if options and not _refused[0] else None


def _refusal(err: Exception, options: dict[str, str]) -> bool:
    """Whether ``err`` is XLA refusing ``options`` (an XLA without them): then warn once and stop
    passing them."""
    if not any(name in str(err) for name in options):
        return False
    if not _refused[0]:
        _refused[0] = True
        warnings.warn(f"framework.config: this XLA does not take the compiler options {options} "
                      f"({str(err).splitlines()[0]}); its defaults are used (the switch cpu_conv has no "
                      "effect).", RuntimeWarning, stacklevel=3)
    return True


class _Program:
    """A compiled program with compiler options: called at the top level, ``jax.jit(..., compiler_options)``;
    called inside another trace (where JAX refuses options), or where this XLA does not know them, the same
    function jitted without them. Anything else (``lower``, ``__wrapped__``...) is the top-level
    ``jax.jit``'s."""

    __slots__ = ("top", "nested", "options")

    def __init__(self, top: Callable, nested: Callable, options: dict[str, str]) -> None:
        self.top, self.nested, self.options = top, nested, options

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _refused[0]:
            return self.nested(*args, **kwargs)
        if not _trace_state_clean():
            # inside a trace: a traced input makes this call part of it (no options); concrete inputs
            # may still run now (a deferred initialisation inside jax.eval_shape), else JAX refuses
            # the options of a nested program
            if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves((args, kwargs))):
                return self.nested(*args, **kwargs)
            try:
                return self.top(*args, **kwargs)
            except ValueError as err:
                if "compiler_options" not in str(err):
                    raise
                return self.nested(*args, **kwargs)
        try:
            return self.top(*args, **kwargs)
        except jax.errors.JaxRuntimeError as err:
            if not _refusal(err, self.options):
                raise
            return self.nested(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.top, name)


def _jitted(fn: Callable, static_argnums: Any, donate_argnums: Any) -> Callable:
    plain = jax.jit(fn, static_argnums=static_argnums, donate_argnums=donate_argnums)
    options = compiler_options()
    if options is None:
        return plain
    return _Program(jax.jit(fn, static_argnums=static_argnums, donate_argnums=donate_argnums,
                            compiler_options=options), plain, options)


def jit(desc: Hashable, build: Callable[[], Callable], *, owner: Any = None,
        static_argnums: int | Sequence[int] = (), donate_argnums: int | Sequence[int] = ()) -> Callable:
    """The compiled program for ``desc`` (``jax.jit(build())``, made once per owner, description and
    value of the program switches of :mod:`framework.config`, compiled with their
    :func:`compiler_options` where it is called at the top level)."""
    return _lookup(("jit", desc, config.program_key()), owner,
                   lambda: _jitted(build(), static_argnums, donate_argnums))


def pmap(desc: Hashable, build: Callable[[], Callable], *, owner: Any, axis_name: str,
         devices: Sequence[jax.Device], static_broadcasted_argnums: int | Sequence[int] = (),
         donate_argnums: int | Sequence[int] = ()) -> Callable:
    """The program for ``desc`` mapped over ``devices`` (``jax.pmap``), made once per owner."""
    key = ("pmap", desc, axis_name, tuple(devices), config.program_key())
    return _lookup(key, owner, lambda: jax.pmap(
        build(), axis_name=axis_name, devices=list(devices),
        static_broadcasted_argnums=static_broadcasted_argnums, donate_argnums=donate_argnums))


def forget(owner: Any) -> None:
    """Drop the programs cached for ``owner`` (its structure or mode of compilation changed)."""
    with _lock:
        owner.__dict__.pop("_compiled", None)
        _owners.discard(owner)


def program_names(owner: Any = None) -> list[str]:
    """The kind of each program compiled for ``owner`` (the shared cache when None): the first word of
    its description, e.g. ``['update', 'fused_step']`` for a Trainer (a debug listing)."""
    with _lock:
        cache = _shared if owner is None else owner.__dict__.get("_compiled", {})
        return [desc[1][0] for desc in cache if desc[0] in ("jit", "pmap") and isinstance(desc[1], tuple)
                and desc[1] and isinstance(desc[1][0], str)]


def on_clear(hook: Callable[[], None]) -> Callable[[], None]:
    """Register ``hook`` to run in :func:`clear_caches` (for caches of descriptions, e.g. shapes)."""
    _clear_hooks.append(hook)
    return hook


def clear_caches(disk: bool = False) -> None:
    """Forget every compiled program and cached description this process holds: the programs cached
    on Blocks, Trainers and data-parallel steps, the shared programs of recorded computations, and the
    descriptions registered with :func:`on_clear` (abstract shapes, graphs seen). Programs are built
    again on demand (from the persistent cache when it holds them). It does not clear JAX's own caches
    (``jax.clear_caches()``), nor the persistent compilation cache on disk unless ``disk=True``, which
    also deletes the files of the framework's cache (``FRAMEWORK_HOME/compile_cache``; a directory the
    user set through JAX's own setting is left alone)."""
    if disk:
        _compile_cache.wipe()
    with _lock:
        for owner in list(_owners):
            owner.__dict__.pop("_compiled", None)
        _owners.clear()
        _shared.clear()
        for hook in _clear_hooks:
            hook()


class FirstSeen:
    """A small bounded memory of values compared by equality, the least recently seen forgotten first
    (cleared with the compile caches): :meth:`first` hands back the first remembered value equal to
    its argument, so equal values made at different times become one object and later lookups holding
    it compare by identity.

    >>> memory = FirstSeen(2)
    >>> a = (1, 2)
    >>> memory.first(a) == (a, False), memory.first((1, 2))[0] is a
    (True, True)
    """

    def __init__(self, size: int) -> None:
        self._values: OrderedDict = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        on_clear(self._values.clear)

    def first(self, value: Any) -> tuple[Any, bool]:
        """The first remembered value equal to ``value`` (``value`` itself, remembered now, when there is
        none) and whether there was one."""
        with self._lock:
            hit = self._values.get(value)
            if hit is None:
                self._values[value] = value
                if len(self._values) > self._size:
                    self._values.popitem(last=False)
                return value, False
            self._values.move_to_end(hit)
            return hit, True


_ASKED = FirstSeen(256)  # the descriptions asked of jit_on_repeat lately


def jit_on_repeat(desc: Hashable, build: Callable[[], Callable]) -> Callable | None:
    """:func:`jit`'s program for ``desc`` from the second time it is asked for (None the first time: the
    caller then runs its own uncompiled way). A description seen once -- an odd batch shape -- compiles
    nothing.

    >>> import jax.numpy as jnp
    >>> build = lambda: lambda x: x + 1
    >>> first = jit_on_repeat(("doc", "inc"), build)
    >>> first is None, float(jit_on_repeat(("doc", "inc"), build)(jnp.float32(1)))
    (True, 2.0)
    """
    if not _ASKED.first(desc)[1]:
        return None
    return jit(desc, build)


# ------------------------------------------------------------------------------------- rewrites
class Rewrite:
    """A registered backend rewrite of a Block tree: ``match(children, platform)`` returns, for a
    container's children run in sequence, a list of steps (a child, or a stand-in that computes several
    consecutive children at once), or None when it changes nothing."""

    __slots__ = ("name", "platforms", "match", "applied")

    def __init__(self, name: str, platforms: tuple[str, ...], match: Callable) -> None:
        self.name, self.platforms, self.match = name, platforms, match
        self.applied = 0  # how many container plans used it (a debug counter)


_rewrites: dict[str, Rewrite] = {}


def register_rewrite(name: str, platforms: Sequence[str], match: Callable) -> Rewrite:
    """Register a rewrite pass, applied by default on arrays of ``platforms`` (e.g. ``('cpu',)``)."""
    rw = _rewrites[name] = Rewrite(name, tuple(platforms), match)
    return rw


def rewrites_enabled() -> bool:
    """The one switch, ``fast_cpu`` of :mod:`framework.config` (``FRAMEWORK_FAST_CPU=0``, or
    ``config.set(fast_cpu=False)`` at run time), turns every backend rewrite (and npx's fast CPU kernels)
    off; read at each plan."""
    return config.get("fast_cpu")


def rewrites() -> dict[str, Rewrite]:
    """The registered rewrites by name."""
    return dict(_rewrites)


def sequence_plan(owner: Any, children: Sequence[Any], platform: str,
                  forced: tuple[str, ...] = ()) -> list[Any]:
    """The steps that run ``children`` in sequence on ``platform``: each registered rewrite for that
    platform (or named in ``forced``, the explicit ``optimize_for(backend=...)``) in turn; cached on
    ``owner`` by the children, their hooks, the platform and the switch."""
    hooked = tuple(bool(c._forward_hooks or c._forward_pre_hooks) for c in children)
    on = rewrites_enabled()
    desc = ("sequence", tuple(children), hooked, platform, on, forced)

    def make() -> list[Any]:
        steps: list[Any] = list(children)
        log: list[tuple[str, tuple[int, ...]]] = []
        if not on:
            return [steps, log]
        for rw in _rewrites.values():
            if platform in rw.platforms or rw.name in forced:
                new = rw.match(steps, platform)
                if new is not None:
                    rw.applied += 1
                    log += [(rw.name, tuple(children.index(b) for b in step.rewrites_of))
                            for step in new if getattr(step, "rewrites_of", None)]
                    steps = new
        return [steps, log]

    return _lookup(desc, owner, make)[0]


def rewrite_listing(owner: Any) -> list[tuple[str, str, tuple[int, ...]]]:
    """(pass name, platform, child indices) of every rewrite planned for ``owner`` (its debug listing)."""
    out = []
    for desc, plan in owner.__dict__.get("_compiled", {}).items():
        if isinstance(desc, tuple) and desc and desc[0] == "sequence":
            out += [(name, desc[3], where) for name, where in plan[1]]
    return out


# ---------------------------------------------------------------------------------- Block forward
def block_function(block: Any, training: bool, return_state: bool, device: Any = None) -> Callable:
    """The pure forward of ``block`` on ``device``: ``f(params, (base key, count), *inputs)``.

    The key stream's count is folded in inside the program (no dispatch of its own); the device picks
    the backend rewrites. The function refers to the block weakly: a compiled program never keeps a
    Block alive.
    """
    ref = weakref.ref(block)

    def forward(params: dict[str, Any], key_parts: tuple[Any, Any], *inputs: Any) -> Any:
        block = ref()
        # at trace time only: the input signature HybridBlock.export traces with (MXNet: the last one)
        block.__dict__["_traced_inputs"] = [jax.ShapeDtypeStruct(a.shape, a.dtype)
                                            for a in jax.tree_util.tree_leaves(inputs)]
        key = jax.random.fold_in(*key_parts)
        return block.functional_call(params, *inputs, training=training, key=key,
                                     return_state=return_state, device=device)

    return forward


def block_program(block: Any, training: bool, return_state: bool, device: Any = None,
                  structure: Hashable | None = None) -> Callable:
    """``block_function`` compiled, cached on the block (one program per mode, device and tree
    ``structure``, by default the block's current one: adding or replacing a child compiles afresh, as
    MXNet clears its cached graph)."""
    if structure is None:
        structure = block._structure_key()
    return jit(("forward", training, return_state, device, structure),
               lambda: block_function(block, training, return_state, device), owner=block)
