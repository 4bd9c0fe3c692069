"""``mxnet.contrib.io``: :class:`DataLoaderIter`, a Gluon ``DataLoader`` seen as a ``DataIter`` (what
``Module.fit`` and other symbolic-API code take).

>>> import numpy as onp
>>> from framework.contrib.io import DataLoaderIter
>>> from framework.gluon.data import ArrayDataset, DataLoader
>>> data = ArrayDataset(onp.zeros((5, 3), onp.float32), onp.arange(5))
>>> it = DataLoaderIter(DataLoader(data, batch_size=2))
>>> it.provide_data[0].shape, [b.pad for b in it]
((2, 3), [0, 0, 1])
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter", "DataDesc", "DataIter"]


class DataLoaderIter(DataIter):
    """Batches of a Gluon ``DataLoader`` (each ``(data, label)``) as MXNet ``DataBatch``es: the first
    batch fixes ``batch_size``, ``provide_data`` and ``provide_label`` (named ``data_name`` /
    ``label_name``, of ``dtype``); a shorter last batch is padded with zeros to ``batch_size`` and its
    ``pad`` says how many rows were added, as MXNet 1.9.1's does."""

    def __init__(self, loader: Any, data_name: str = "data", label_name: str = "softmax_label",
                 dtype: str = "float32") -> None:
        super().__init__()
        self._loader = loader
        try:
            data, label = next(iter(loader))
        except StopIteration:
            raise ValueError("DataLoaderIter: the loader yields no batch; give it a non-empty data "
                             "set") from None
        except (TypeError, ValueError) as err:
            raise ValueError(f"DataLoaderIter: each batch of the loader must be (data, label); "
                             f"{err}") from None
        self.batch_size = int(data.shape[0])
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, tuple(data.shape), dtype)]
        self.provide_label = [DataDesc(label_name, tuple(label.shape), dtype)]
        self._batch: Any = None
        self.reset()

    def reset(self) -> None:
        self._iter = iter(self._loader)

    def iter_next(self) -> bool:
        self._batch = next(self._iter, None)
        return self._batch is not None

    def _padded(self, value: Any) -> list:
        value = jnp.asarray(value, self.dtype)
        pad = self.getpad()
        if pad:
            value = jnp.concatenate([value, jnp.zeros((pad, *value.shape[1:]), value.dtype)])
        return [value]

    def getdata(self) -> list:
        return self._padded(self._batch[0])

    def getlabel(self) -> list:
        return self._padded(self._batch[1])

    def getpad(self) -> int:
        return self.batch_size - int(self._batch[0].shape[0])

    def getindex(self) -> None:
        return None
