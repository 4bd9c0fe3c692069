"""Special functions MXNet exposes in ``npx``: ``erf``, ``erfinv``, ``gamma``, ``gammaln``, ``digamma``.

>>> import jax.numpy as jnp
>>> from framework import npx
>>> round(float(npx.gamma(jnp.array(5.0))), 3)
24.0
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special as _sp

__all__ = ["erf", "erfinv", "gamma", "gammaln", "digamma"]


def erf(data: jax.Array) -> jax.Array:
    """The error function.

    >>> import jax.numpy as jnp
    >>> float(erf(jnp.array(0.0)))
    0.0
    """
    return lax.erf(jnp.asarray(data, jnp.result_type(float, data)))


def erfinv(data: jax.Array) -> jax.Array:
    """The inverse error function.

    >>> import jax.numpy as jnp
    >>> float(erfinv(jnp.array(0.0)))
    0.0
    """
    return lax.erf_inv(jnp.asarray(data, jnp.result_type(float, data)))


def gamma(data: jax.Array) -> jax.Array:
    """The gamma function (``gamma(n) = (n-1)!``).

    >>> import jax.numpy as jnp
    >>> round(float(gamma(jnp.array(1.0))), 4)
    1.0
    """
    return _sp.gamma(data)


def gammaln(data: jax.Array) -> jax.Array:
    """``log(|gamma(x)|)``.

    >>> import jax.numpy as jnp
    >>> round(float(gammaln(jnp.array(1.0))), 4)
    0.0
    """
    return _sp.gammaln(data)


def digamma(data: jax.Array) -> jax.Array:
    """The derivative of :func:`gammaln`.

    >>> import jax.numpy as jnp
    >>> round(float(digamma(jnp.array(1.0))), 4)
    -0.5772
    """
    return _sp.digamma(data)
