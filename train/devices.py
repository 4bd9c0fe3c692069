"""``--devices``: which devices the main job trains on.

Grammar (case-insensitive): ``auto`` (every GPU, else one CPU device), ``cpu`` (one CPU device),
``cpu:N`` (N host CPU devices, JAX's virtual devices over the same cores), ``gpu`` (every GPU),
``gpu:I[,J...]`` (those GPU ids, MXNet's ``gpu(i)``). :func:`parse` only reads the text and needs no
JAX backend; :func:`prepare` must run before JAX computes anything (it sets the CPU device count);
:func:`resolve` returns the :class:`jax.Device` list.

>>> parse("cpu:4")
DeviceSpec(kind='cpu', count=4, ids=())
>>> parse("gpu:0,1")
DeviceSpec(kind='gpu', count=None, ids=(0, 1))
>>> parse("auto")
DeviceSpec(kind='auto', count=None, ids=())
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DeviceSpec", "DeviceSpecError", "parse", "prepare", "resolve"]

_FIX = ("Use auto, cpu, cpu:N (N CPU devices), gpu (all GPUs) or gpu:I[,J...] (GPU ids), "
        "e.g. --devices gpu:0,1.")


class DeviceSpecError(ValueError):
    """A ``--devices`` value that cannot be read or cannot be satisfied on this machine."""


@dataclass(frozen=True)
class DeviceSpec:
    """What ``--devices`` asked for: ``kind`` is 'auto', 'cpu' or 'gpu'."""

    kind: str
    count: int | None = None
    ids: tuple[int, ...] = ()


def parse(text: str | None) -> DeviceSpec:
    """Read a ``--devices`` value (None means ``auto``)."""
    raw = "auto" if text is None else str(text).strip().lower()
    kind, sep, rest = raw.partition(":")
    if kind == "auto" and not sep:
        return DeviceSpec("auto")
    if kind not in ("cpu", "gpu"):
        raise DeviceSpecError(f"--devices {text!r}: unknown device kind {kind!r}. {_FIX}")
    if not sep:
        return DeviceSpec(kind, 1 if kind == "cpu" else None)
    parts = [p.strip() for p in rest.split(",")]
    if not all(p.isdigit() for p in parts):
        raise DeviceSpecError(f"--devices {text!r}: {rest!r} is not a count or a list of ids. {_FIX}")
    numbers = tuple(int(p) for p in parts)
    if kind == "cpu":
        if len(numbers) != 1 or numbers[0] < 1:
            raise DeviceSpecError(f"--devices {text!r}: cpu:N takes one count N >= 1. {_FIX}")
        return DeviceSpec("cpu", numbers[0])
    if len(set(numbers)) != len(numbers):
        raise DeviceSpecError(f"--devices {text!r}: a GPU id is listed twice. {_FIX}")
    return DeviceSpec("gpu", None, numbers)


def prepare(spec: DeviceSpec) -> None:
    """Ask JAX for enough CPU devices for ``cpu:N``; call before the first JAX computation."""
    if spec.kind != "cpu" or not spec.count or spec.count <= 1:
        return
    import jax

    current = int(jax.config.jax_num_cpu_devices or 0)
    if current < spec.count:
        try:
            jax.config.update("jax_num_cpu_devices", spec.count)
        except RuntimeError as err:  # the backend already started with fewer devices
            raise DeviceSpecError(
                f"--devices cpu:{spec.count}: JAX already started with {max(current, 1)} CPU device(s) and "
                "cannot add more in this process. Set XLA_FLAGS=--xla_force_host_platform_device_count="
                f"{spec.count} before starting Python, or ask for fewer."
            ) from err


def resolve(spec: DeviceSpec) -> list:
    """The devices ``spec`` names, as :class:`jax.Device` objects of this process."""
    import jax

    def local(platform: str) -> list:
        try:
            return list(jax.local_devices(backend=platform))
        except RuntimeError:
            return []

    if spec.kind == "auto":
        return local("gpu") or local("cpu")[:1]
    if spec.kind == "cpu":
        cpus = local("cpu")
        if len(cpus) < (spec.count or 1):
            raise DeviceSpecError(
                f"--devices cpu:{spec.count}: only {len(cpus)} CPU device(s) exist in this process. Run "
                "the job as `python -m train` (it sets the count before JAX starts), or set "
                f"XLA_FLAGS=--xla_force_host_platform_device_count={spec.count}."
            )
        return cpus[: spec.count or 1]
    gpus = local("gpu")
    if not gpus:
        raise DeviceSpecError(
            f"--devices {_text(spec)}: this machine has no GPU visible to JAX. Use --devices cpu (or "
            "cpu:N), or install a CUDA jaxlib (pip install 'jax[cuda12]')."
        )
    if not spec.ids:
        return gpus
    by_id = dict(enumerate(gpus))  # MXNet's gpu(i): the i-th GPU of this process
    missing = [i for i in spec.ids if i not in by_id]
    if missing:
        raise DeviceSpecError(
            f"--devices {_text(spec)}: GPU id(s) {missing} do not exist; this machine has GPU ids "
            f"{sorted(by_id)}."
        )
    return [by_id[i] for i in spec.ids]


def _text(spec: DeviceSpec) -> str:
    if spec.kind == "gpu" and spec.ids:
        return "gpu:" + ",".join(map(str, spec.ids))
    return spec.kind if spec.count in (None, 1) else f"{spec.kind}:{spec.count}"
