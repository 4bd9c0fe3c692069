"""Devices. A context (MXNet 1.x) or device (MXNet 2.0) IS a :class:`jax.Device`.

``mx.Context('cpu', 1)`` / ``mx.Device('gpu', 0)`` return the ``jax.Device`` (``isinstance(d, mx.Context)``
holds for every jax device); what a ``jax.Device`` cannot carry is a function: :func:`device_type`
(MXNet's ``ctx.device_type``) and :func:`device_id` (``ctx.device_id``). A ``jax.Device`` is not a
context manager and JAX's types are never patched, so MXNet's ``with ctx:`` is spelled
``with mx.device_scope(ctx):`` (the porter rewrites it); it sets the device of array creation and of
``initialize()``. As in MXNet, naming a GPU that is not there succeeds: :func:`gpu` then returns an
:class:`AbsentDevice` (``gpu(0)``, with MXNet's ``device_type``/``device_id``, equal to itself), and
what would place data on it (array creation, ``initialize``, copies) raises :class:`DeviceUnavailableError`
(a ``ValueError``) naming the device, the GPUs present and the fix; nothing silently lands on the CPU.

>>> import framework as mx
>>> from framework import npx
>>> npx.cpu(0).platform
'cpu'
>>> mx.Context('cpu', 1) == mx.cpu(1), isinstance(mx.cpu(1), mx.Context)
(True, True)
>>> mx.device.device_type(mx.cpu(1)), mx.device.device_id(mx.cpu(1))
('cpu', 1)
>>> npx.num_gpus() >= 0
True
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator

import jax
import numpy as onp

from .base import FrameworkError

__all__ = [
    "AbsentDevice",
    "DeviceUnavailableError",
    "Device",
    "Context",
    "device_type",
    "device_id",
    "set_default_device",
    "set_default_context",
    "cpu",
    "gpu",
    "num_gpus",
    "current_device",
    "current_context",
    "device_scope",
    "as_device",
    "cpu_pinned",
]


class DeviceUnavailableError(FrameworkError, ValueError):
    """Data was to be placed on a device this machine does not have (MXNet: "GPU is not enabled")."""


class AbsentDevice:
    """A GPU named by ``gpu(i)`` that this process does not have: MXNet creates such a context and fails
    only when something is allocated on it. It compares, hashes and prints like the context
    (``gpu(1)``); :func:`as_device` -- hence every array creation, copy or ``initialize`` on it -- raises
    :class:`DeviceUnavailableError`.

    >>> from framework import npx
    >>> g = AbsentDevice("gpu", 1)
    >>> g, g == AbsentDevice("gpu", 1), device_type(g), device_id(g)
    (gpu(1), True, 'gpu', 1)
    """

    __slots__ = ("platform", "id")

    def __init__(self, platform: str, device_id: int) -> None:
        self.platform, self.id = platform, int(device_id)

    def __repr__(self) -> str:
        return f"{self.platform}({self.id})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsentDevice) and (other.platform, other.id) == (self.platform, self.id)

    def __hash__(self) -> int:
        return hash(("AbsentDevice", self.platform, self.id))

    def unavailable(self, what: str = "device") -> DeviceUnavailableError:
        n = len(_devices("gpu")) if _has_gpu() else 0
        fix = ("use npx.cpu() (check npx.num_gpus() before choosing a GPU), or install a CUDA jaxlib "
               "(pip install 'jax[cuda12]')") if n == 0 else f"use an id in 0..{n - 1}"
        return DeviceUnavailableError(
            f"{what}={self!r}: this process has {n} GPU(s), so nothing can be placed on {self!r}; {fix}.")


class _DeviceMeta(type):
    """``Context(kind, id)`` builds nothing of its own: it returns the :class:`jax.Device` (or the
    :class:`AbsentDevice` of a GPU that is not there); ``isinstance(d, Context)`` holds for both."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, (jax.Device, AbsentDevice))

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, (jax.Device, AbsentDevice))

    def __call__(cls, device_type: object, device_id: int = 0) -> jax.Device:  # type: ignore[override]
        if isinstance(device_type, (jax.Device, AbsentDevice)):  # mx.Context(ctx): the device itself
            return device_type
        if not isinstance(device_type, str):
            raise TypeError(
                f"{cls.__name__}(device_type={device_type!r}): expected 'cpu', 'gpu' or 'cpu_pinned' "
                "(or a device)"
            )
        kind = device_type.lower()
        if kind in ("cpu", "cpu_pinned", "cpu_shared"):
            return cpu(int(device_id))
        if kind in _GPU_PLATFORMS:
            return gpu(int(device_id))
        raise ValueError(
            f"{cls.__name__}(device_type={device_type!r}): unknown device type; use 'cpu' or 'gpu'"
        )


class Context(metaclass=_DeviceMeta):
    """MXNet 1.x's ``mx.Context(device_type, device_id=0)``: returns the :class:`jax.Device`."""


class Device(metaclass=_DeviceMeta):
    """MXNet 2.0's ``mx.Device(device_type, device_id=0)``: returns the :class:`jax.Device`."""


def device_type(device: object) -> str:
    """MXNet's ``ctx.device_type`` ('cpu' or 'gpu') of a device or a ``'cpu:1'`` string.

    >>> device_type(cpu(0))
    'cpu'
    """
    dev = device if isinstance(device, AbsentDevice) else as_device(device)
    return "gpu" if dev.platform in _GPU_PLATFORMS else dev.platform


def device_id(device: object) -> int:
    """MXNet's ``ctx.device_id``: the device's index among the local devices of its kind.

    >>> device_id(cpu(3))
    3
    """
    if isinstance(device, AbsentDevice):
        return device.id
    dev = as_device(device)
    same = [d for d in jax.local_devices() if d.platform == dev.platform]
    return same.index(dev) if dev in same else int(dev.id)


def set_default_device(device: object) -> jax.Device:
    """Make ``device`` the default of every later array creation and ``initialize()`` (MXNet's
    ``test_utils.set_default_context``); returns the previous default."""
    previous = current_device()
    jax.config.update("jax_default_device", as_device(device))
    return previous


set_default_context = set_default_device

_GPU_PLATFORMS = ("gpu", "cuda", "rocm")
_scope = threading.local()


def _devices(platform: str) -> list[jax.Device]:
    try:
        return list(jax.devices(platform))
    except RuntimeError:  # no backend of that kind is present
        return []


def cpu(device_id: int = 0) -> jax.Device:
    """The ``device_id``-th CPU device (JAX exposes several with ``jax_num_cpu_devices``).

    >>> cpu().id
    0
    """
    devs = _devices("cpu")
    if not 0 <= device_id < len(devs):
        raise ValueError(
            f"cpu({device_id}): this process has {len(devs)} CPU device(s) (ids 0..{len(devs) - 1}). "
            "Ask for more before JAX starts with jax.config.update('jax_num_cpu_devices', N) "
            "or XLA_FLAGS=--xla_force_host_platform_device_count=N."
        )
    return devs[device_id]


def cpu_pinned(device_id: int = 0) -> jax.Device:
    """MXNet's pinned host memory; on JAX, the CPU device."""
    return cpu(device_id)


def num_gpus() -> int:
    """Number of GPUs visible to this process (0 on a CPU-only machine).

    >>> isinstance(num_gpus(), int)
    True
    """
    return sum(len(_devices(p)) for p in ("gpu",)) if _has_gpu() else 0


def _has_gpu() -> bool:
    try:
        return jax.default_backend() in _GPU_PLATFORMS or bool(_devices("gpu"))
    except RuntimeError:
        return False


def gpu(device_id: int = 0) -> jax.Device | AbsentDevice:
    """The ``device_id``-th GPU; where there is no such GPU, an :class:`AbsentDevice` that fails when
    something is placed on it (as MXNet's context does).

    >>> num_gpus() > 0 or gpu(0)
    gpu(0)
    """
    device_id = int(device_id)
    if device_id < 0:
        raise ValueError(f"gpu({device_id}): a device id is 0 or more.")
    devs = _devices("gpu") if _has_gpu() else []
    if device_id >= len(devs):
        return AbsentDevice("gpu", device_id)
    return devs[device_id]


def current_device() -> jax.Device:
    """The device new arrays go to: the innermost :func:`device_scope`, else JAX's default.

    >>> current_device() == jax.devices()[0]
    True
    """
    stack = getattr(_scope, "stack", None)
    if stack:
        return stack[-1]
    default = jax.config.jax_default_device
    if isinstance(default, jax.Device):
        return default
    return jax.local_devices()[0]


current_context = current_device


@contextlib.contextmanager
def device_scope(device: jax.Device) -> Iterator[jax.Device]:
    """``with device_scope(npx.cpu(1)):`` -- MXNet's ``with mx.Context(...)``.

    >>> with device_scope(cpu(0)) as d:
    ...     current_device() == d
    True
    """
    device = as_device(device)
    stack = getattr(_scope, "stack", None)
    if stack is None:
        stack = _scope.stack = []
    stack.append(device)
    try:
        with jax.default_device(device):
            yield device
    finally:
        stack.pop()


def as_device(device: object, *, what: str = "device") -> jax.Device:
    """Normalise ``ctx=``/``device=`` arguments: a jax.Device, or a string like ``'cpu:1'``/``'gpu'``.

    >>> as_device('cpu:0') == cpu(0)
    True
    """
    if isinstance(device, jax.Device):
        return device
    if isinstance(device, str):
        kind, _, idx = device.partition(":")
        index = int(idx or 0)
        if kind == "cpu":
            return cpu(index)
        if kind in _GPU_PLATFORMS:
            device = gpu(index)
            if isinstance(device, jax.Device):
                return device
    if isinstance(device, AbsentDevice):
        raise device.unavailable(what)
    raise TypeError(
        f"{what}={device!r}: expected a jax.Device (npx.cpu(i), npx.gpu(i)) or a string such as "
        "'cpu:0' or 'gpu:1'."
    )


def resolve(ctx: object = None, device: object = None) -> jax.Device | None:
    """The one device named by MXNet 1.x ``ctx=`` or MXNet 2.0 ``device=`` (None if neither)."""
    if ctx is not None and device is not None and as_device(ctx) != as_device(device):
        raise ValueError(f"ctx={ctx} and device={device} disagree: pass only one of them.")
    chosen = device if device is not None else ctx
    return None if chosen is None else as_device(chosen, what="device" if device is not None else "ctx")


@functools.lru_cache(maxsize=64)
def _sharding(device: jax.Device) -> jax.sharding.Sharding:
    return jax.sharding.SingleDeviceSharding(device)


def host_to_device(host: onp.ndarray, device: jax.Device) -> jax.Array:
    """The NumPy array ``host`` as a ``jax.Array`` on ``device`` (dtypes as ``jax.device_put`` gives
    them), through ``jax.make_array_from_callback``: about a third of ``jax.device_put``'s host time per
    array (19-39 against 56-83 us measured here), what the DataLoader, ``split_and_load`` and arrays made
    on the host pay. On a CPU the result may share ``host``'s memory: pass an array nobody changes later
    (copy the caller's own buffers first, as ``split_and_load`` does).

    >>> a = host_to_device(onp.arange(3.0), cpu(0))
    >>> a.dtype, a.devices() == {cpu(0)}
    (dtype('float32'), True)
    """
    return jax.make_array_from_callback(host.shape, _sharding(device), lambda _: host)
