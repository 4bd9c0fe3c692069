"""Root pytest configuration: 4 CPU devices before JAX starts (for tests and docstring examples)."""

import jax

jax.config.update("jax_num_cpu_devices", 4)
