"""The porter's report: rewrites counted by rule, then each construct it could not port, with the manual
change to make.

>>> from framework.port.report import Report, Unported
>>> r = Report()
>>> r.count("asnumpy", 2)
>>> r.unported.append(Unported("train.py", 7, "x.norm()", "NDArray method with no jax.Array "
...                            "counterpart", "np.linalg.norm(x)"))
>>> print(r.format())
framework.port: 0 files read, 0 would change, 0 unchanged, 0 without mxnet imports
rewrites by rule:
  asnumpy              2  x.asnumpy() -> npx.asnumpy(x)
not ported (1): change by hand
  train.py:7: x.norm()
      why: NDArray method with no jax.Array counterpart
      fix: np.linalg.norm(x)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Report", "Unported", "RULES"]

# rule name -> what it does (the README's rule table is this list)
RULES: dict[str, str] = {
    "imports": "import mxnet as mx / from mxnet import nd -> framework (same bound names)",
    "asnumpy": "x.asnumpy() -> npx.asnumpy(x)",
    "asscalar": "x.asscalar() -> npx.asscalar(x)",
    "wait_to_read": "x.wait_to_read() -> npx.wait_to_read(x)",
    "as_in_context": "x.as_in_context(ctx) / as_in_ctx -> npx.as_in_context(x, ctx)",
    "copyto": "x.copyto(t) -> npx.copyto(x, t); as a statement: t = npx.copy_into(x, t)",
    "as_np_ndarray": "x.as_np_ndarray() / as_nd_ndarray() -> x (one array type here)",
    "context": "x.context -> npx.context_of(x); ctx.device_type -> npx.device_type(ctx); with ctx: scoped",
    "isinstance": "isinstance(x, mx.nd.NDArray) -> isinstance(x, npx.NDArray)",
    "attach_grad": "x.attach_grad() -> x = autograd.attach_grad(x) (names, attributes, subscripts)",
    "attach_grad_loop": "for p in ps: p.attach_grad() -> ps[:] = [autograd.attach_grad(p) for p in ps]",
    "out_arg": "nd.sigmoid(x, out=x) -> x = nd.sigmoid(x) (an operator applied in place, as a statement)",
    "setitem": "x[i] = v -> x = npx.setitem(x, i, v); x[i] += v likewise",
    "scalar": "float(x) / int(x) -> npx.to_float(x) / npx.to_int(x) (one-element arrays of any rank)",
    "getitem": "x[range(n), y] / x[float_array] / x[[0, 2]] -> npx.getitem(x, ...) (MXNet's index casts)",
    "add_import": "from framework import npx / autograd added where a rewrite needs it",
    "np_builtin_alias": "np.float / int / bool / object / complex / str / long / unicode -> the builtin",
    "np_removed_alias": "np.bool8 -> np.bool_, np.float_ -> np.float64, np.NaN -> np.nan, ... (NumPy 2)",
    "np_asscalar": "np.asscalar(a) -> a.item()",
    "np_removed_call": "np.msort / in1d / asfarray / alen / rank / issubclass_ -> NumPy 2's spelling",
    "array_method": "x.reshape((0, -1)) / x.expand_dims(1) on an MXNet array -> F.reshape(x, (0, -1))",
    "version": "mx.__version__ -> mx.base.__version__ (the MXNet API version implemented, 1.9.1)",
}


@dataclass(frozen=True)
class Unported:
    path: str
    line: int
    code: str
    why: str
    fix: str


@dataclass
class Report:
    counts: Counter = field(default_factory=Counter)
    unported: list[Unported] = field(default_factory=list)
    files: int = 0
    changed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def count(self, rule: str, n: int = 1) -> None:
        self.counts[rule] += n

    def merge(self, other: Report) -> None:
        self.counts.update(other.counts)
        self.unported.extend(other.unported)
        self.files += other.files
        self.changed.extend(other.changed)
        self.skipped.extend(other.skipped)

    def format(self, *, written: bool = False) -> str:
        verb = "changed" if written else "would change"
        lines = [f"framework.port: {self.files} files read, {len(self.changed)} {verb}, "
                 f"{self.files - len(self.changed) - len(self.skipped)} unchanged, "
                 f"{len(self.skipped)} without mxnet imports"]
        if self.counts:
            lines.append("rewrites by rule:")
            for rule in RULES:
                if self.counts.get(rule):
                    lines.append(f"  {rule:<18} {self.counts[rule]:>3}  {RULES[rule]}")
        if self.unported:
            lines.append(f"not ported ({len(self.unported)}): change by hand")
            for u in sorted(self.unported, key=lambda u: (u.path, u.line)):
                lines.append(f"  {u.path}:{u.line}: {u.code}")
                lines.append(f"      why: {u.why}")
                lines.append(f"      fix: {u.fix}")
        return "\n".join(lines)
