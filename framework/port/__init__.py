"""``python -m framework.port``: rewrite MXNet code to run on framework, source to source.

It rewrites the imports (``mxnet`` -> ``framework``), NDArray methods that ``jax.Array`` lacks
(``x.asnumpy()`` -> ``npx.asnumpy(x)``, ``copyto``, ``as_in_context``, ``.context``), ``attach_grad`` (to
Variables, loops included), subscript assignment (``x[:] = v`` -> ``x = npx.setitem(x, slice(None), v)``)
and ``isinstance(x, mx.nd.NDArray)``; it keeps comments and formatting (libcst), is idempotent, changes
nothing it does not understand, and reports what it could not port with the fix. Only files that import
mxnet (or framework) are touched.

>>> from framework.port import Report, port_source
>>> r = Report()
>>> src = "from mxnet import nd\\nw = nd.ones(2)\\nw.attach_grad()\\nw[:] = 0\\n"
>>> print(port_source(src, "a.py", r), end="")
from framework import nd
from framework import autograd, npx
w = nd.ones(2)
w = autograd.attach_grad(w)
w = npx.setitem(w, slice(None), 0)
>>> r.counts["setitem"], r.counts["attach_grad"]
(1, 1)
"""

from ._porter import PortedFile, iter_python_files, port_paths, port_source
from .report import RULES, Report, Unported

__all__ = ["port_source", "port_paths", "iter_python_files", "PortedFile", "Report", "Unported", "RULES"]
