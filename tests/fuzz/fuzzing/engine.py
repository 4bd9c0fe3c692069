"""The seeded mutation engine: cases from (format, seed, index), run and classified.

A :class:`Target` is one file format: a generator of valid files (each with the fields a structured
mutation may change and what the file should load as), a loader, and the documented error type(s).
Every case is a pure function of ``(target, seed, index)`` (``random.Random`` seeded with a string), so
a failure is replayed exactly with :func:`make_case`. A case is one of

* ``valid``: an unchanged generated file, which must load and equal what was generated;
* ``field``: a valid file with one field (a size, a rank, a type flag, a metadata value) replaced by a
  boundary value (structured generation);
* ``bytes``: one to four byte-level mutations (flip, insert, delete, overwrite a word with a huge
  value, truncate, splice in a piece of another valid file).

Allowed outcomes: ``loaded`` (and, for ``valid`` cases, equal to the original) and ``rejected`` (the
documented error, naming the file and, where the target says so, the byte offset). Everything else
is a failure: ``crash:<Type>`` (another exception), ``wrong`` (a load that returns something invalid),
``unlocated`` (the documented error without the file or offset), ``slow`` (over 5 s of CPU time),
``memory`` (resident growth over the bound) and ``hang`` (killed by the watchdog of :mod:`.batch`).

>>> from fuzzing import targets
>>> case = make_case(targets()["params"], seed=0, index=7)
>>> again = make_case(targets()["params"], seed=0, index=7)
>>> case.data == again.data, case.mode in ("valid", "field", "bytes")
(True, True)
"""

from __future__ import annotations

import os
import random
import struct
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Field", "Valid", "Target", "Case", "Outcome", "make_case", "run_case", "FAILURES",
           "TIME_LIMIT_S", "memory_bound", "INTERESTING"]

#: A case that takes more CPU time than this fails (a case blocked far longer is caught by the
#: watchdog of :mod:`.batch` as a ``hang``).
TIME_LIMIT_S = 5.0
#: Resident growth allowed: a fixed slack plus a multiple of the file's size.
MEMORY_SLACK = 48 << 20
MEMORY_FACTOR = 64

#: Boundary values a structured mutation writes into an integer field.
INTERESTING = [0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 127, 128, 255, 256, 1023, 4096, 65535, 65536,
               2**24, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40, 2**48, 2**62, 2**63 - 1]
FAILURES = ("crash", "wrong", "unlocated", "slow", "memory", "hang")


@dataclass(frozen=True)
class Field:
    """A fixed-width integer at ``offset``: ``fmt`` is its struct code with byte order (``'<i'``)."""

    offset: int
    fmt: str
    name: str = ""


@dataclass
class Valid:
    """A generated file: its bytes, what it loads as, and the fields a structured mutation may change."""

    data: bytes
    expected: Any
    fields: list[Field] = field(default_factory=list)
    label: str = ""


@dataclass(frozen=True)
class Target:
    """One file format under test.

    ``generate(rng)`` returns a :class:`Valid` file; ``load(path)`` reads a file as the library's users
    do; ``errors`` are the documented error types; ``check(result, expected)`` raises AssertionError
    when a load is wrong (``expected`` is None for mutated files: only invariants are checked);
    ``structured(rng, valid)`` may replace the default field mutation (e.g. JSON metadata);
    ``located(err, path)`` says whether an error names the file and its offset.
    """

    name: str
    suffix: str
    generate: Callable[[random.Random], Valid]
    load: Callable[[str], Any]
    errors: tuple[type[BaseException], ...]
    check: Callable[[Any, Any], None]
    structured: Callable[[random.Random, Valid], bytes] | None = None
    located: Callable[[BaseException, str], bool] | None = None
    warm: Callable[[], None] | None = None  # run once per worker before any case (first compilations)


@dataclass
class Case:
    target: str
    seed: int
    index: int
    mode: str
    data: bytes
    expected: Any
    detail: str


@dataclass
class Outcome:
    kind: str  # loaded | rejected | crash:<Type> | wrong | unlocated | slow | memory | hang
    mode: str
    seconds: float
    growth: int = 0
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.kind.split(":")[0] in FAILURES


def memory_bound(size: int) -> int:
    """The resident growth a case of ``size`` bytes may cause."""
    return MEMORY_SLACK + MEMORY_FACTOR * size


def _field_mutation(rng: random.Random, valid: Valid) -> tuple[bytes, str]:
    data = bytearray(valid.data)
    if not valid.fields:
        return _byte_mutations(rng, valid.data, [])
    f = rng.choice(valid.fields)
    width = struct.calcsize(f.fmt)
    (old,) = struct.unpack_from(f.fmt, data, f.offset)
    choice = rng.random()
    if choice < 0.6:
        value = rng.choice(INTERESTING)
    elif choice < 0.8:
        value = old + rng.choice([-2, -1, 1, 2])
    else:
        value = -rng.choice(INTERESTING[1:10])
    bits = 8 * width
    value %= 1 << bits  # write the bit pattern: negative values become their two's complement
    if f.fmt[-1].islower() and value >= 1 << (bits - 1):
        value -= 1 << bits
    struct.pack_into(f.fmt, data, f.offset, value)
    return bytes(data), f"field {f.name or f.offset} {old} -> {value}"


def _byte_mutation(rng: random.Random, data: bytearray, donors: list[bytes]) -> str | None:
    """Apply one byte-level mutation in place; returns a description, or None when nothing applied."""
    n = len(data)
    kind = rng.choice(["flip", "flip", "insert", "delete", "word", "word", "truncate", "splice"])
    pos = rng.randrange(n + 1)
    if kind == "flip" and n:
        pos = min(pos, n - 1)
        data[pos] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
    elif kind == "insert":
        data[pos:pos] = rng.randbytes(rng.choice([1, 2, 4, 8, 16]))
    elif kind == "delete" and n:
        del data[pos:pos + rng.choice([1, 2, 4, 8, 16])]
    elif kind == "word" and n >= 4:
        width = rng.choice([4, 8])
        pos = min(pos - pos % 4, max(n - width, 0))
        order = rng.choice("<>")
        value = rng.choice(INTERESTING) if rng.random() < 0.8 else rng.getrandbits(8 * width)
        data[pos:pos + width] = struct.pack(f"{order}Q", value % 2**64)[:width] if order == "<" else \
            struct.pack(f"{order}Q", value % 2**64)[8 - width:]
    elif kind == "truncate":
        del data[pos:]
    elif kind == "splice" and donors:
        donor = rng.choice(donors)
        start = rng.randrange(len(donor) + 1)
        piece = donor[start:start + rng.choice([4, 8, 16, 64, 256])]
        data[pos:pos + len(piece)] = piece
    else:
        return None
    return f"{kind}@{pos}"


def _byte_mutations(rng: random.Random, data: bytes, donors: list[bytes]) -> tuple[bytes, str]:
    buf = bytearray(data)
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        what = _byte_mutation(rng, buf, donors)
        if what:
            done.append(what)
    return bytes(buf), "bytes " + ",".join(done)


def make_case(target: Target, seed: int, index: int) -> Case:
    """The case ``index`` of ``target`` for ``seed`` (deterministic)."""
    rng = random.Random(f"{target.name}:{seed}:{index}")
    valid = target.generate(rng)
    roll = rng.random()
    if roll < 0.1:
        return Case(target.name, seed, index, "valid", valid.data, valid.expected, valid.label)
    if roll < 0.55:
        if target.structured is not None and rng.random() < 0.5:
            data, detail = target.structured(rng, valid), "structured"
        else:
            data, detail = _field_mutation(rng, valid)
        return Case(target.name, seed, index, "field", data, None, f"{valid.label} {detail}")
    donors = [target.generate(rng).data]
    data, detail = _byte_mutations(rng, valid.data, donors)
    return Case(target.name, seed, index, "bytes", data, None, f"{valid.label} {detail}")


def _read_kib(path: str, key: str) -> int:
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return 0


class PeakMeter:
    """Resident-memory growth of this process during a block: Linux's peak counter, reset per case."""

    def __init__(self) -> None:
        self.works = os.path.exists("/proc/self/clear_refs")
        if self.works:
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                self.works = False

    def start(self) -> int:
        if not self.works:
            return 0
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current resident size
        return _read_kib("/proc/self/status", b"VmRSS:")

    def growth(self, base: int) -> int:
        return max(0, _read_kib("/proc/self/status", b"VmHWM:") - base) if self.works else 0


def run_case(target: Target, case: Case, path: str, meter: PeakMeter | None = None) -> Outcome:
    """Write the case to ``path``, load it, and classify what happened."""
    with open(path, "wb") as f:
        f.write(case.data)
    base = meter.start() if meter else 0
    tic, cpu = time.perf_counter(), time.process_time()
    kind, message = "loaded", ""
    result = None
    try:
        result = target.load(path)
    except target.errors as err:
        ok = target.located(err, path) if target.located else path in str(err)
        kind, message = ("rejected", "") if ok else ("unlocated", str(err)[:300])
    except Exception as err:  # noqa: BLE001 - any other exception is the failure being counted
        kind, message = f"crash:{type(err).__name__}", str(err)[:300]
    seconds = time.perf_counter() - tic
    cpu_seconds = time.process_time() - cpu
    growth = meter.growth(base) if meter else 0
    if kind == "loaded":
        try:
            target.check(result, case.expected)
        except AssertionError as err:
            kind, message = "wrong", str(err)[:300]
        except Exception as err:  # noqa: BLE001
            kind, message = "wrong", f"{type(err).__name__}: {err}"[:300]
    del result
    if cpu_seconds > TIME_LIMIT_S:  # CPU time: on a shared machine the wall clock also counts waiting
        kind, message = "slow", f"{cpu_seconds:.1f} s of CPU ({seconds:.1f} s wall)"
    elif growth > memory_bound(len(case.data)):
        kind, message = "memory", f"{growth >> 20} MiB for a {len(case.data)}-byte file"
    return Outcome(kind, case.mode, seconds, growth, message)


def summarize(outcomes: Iterable[tuple[str, Outcome]]) -> dict[str, dict[str, int]]:
    """``{target: {outcome kind: count}}``."""
    table: dict[str, dict[str, int]] = {}
    for name, out in outcomes:
        row = table.setdefault(name, {})
        row[out.kind] = row.get(out.kind, 0) + 1
    return table
