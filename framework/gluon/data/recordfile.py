"""``RecordFileDataset``: the records of a RecordIO ``.rec`` file (random access through its ``.idx``).

Picklable: each DataLoader worker opens its own file handle on first use.

>>> import os, tempfile
>>> from framework import recordio
>>> from framework.gluon.data import RecordFileDataset
>>> d = tempfile.mkdtemp()
>>> w = recordio.MXIndexedRecordIO(os.path.join(d, 'x.idx'), os.path.join(d, 'x.rec'), 'w')
>>> for i in range(3):
...     w.write_idx(i, b'record %d' % i)
>>> w.close()
>>> ds = RecordFileDataset(os.path.join(d, 'x.rec'))
>>> len(ds), ds[2]
(3, b'record 2')
"""

from __future__ import annotations

import os

from ... import recordio
from .dataset import Dataset

__all__ = ["RecordFileDataset"]


class RecordFileDataset(Dataset):
    """Items are the raw payloads (bytes) of ``filename``'s records, in the ``.idx`` file's order."""

    def __init__(self, filename: str | os.PathLike) -> None:
        self.filename = os.fspath(filename)
        self.idx_file = os.path.splitext(self.filename)[0] + ".idx"
        for path, what in ((self.filename, "record"), (self.idx_file, "index")):
            if not os.path.exists(path):  # a special file is refused by the reader, by name
                raise FileNotFoundError(f"RecordFileDataset: {what} file {path!r} does not exist (a .rec "
                                        "file needs its .idx beside it; im2rec writes both)")
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx: int) -> bytes:
        keys = self._record.keys
        if not -len(keys) <= idx < len(keys):
            raise IndexError(f"RecordFileDataset: index {idx} out of range for {len(keys)} records")
        return self._record.read_idx(keys[idx])

    def __len__(self) -> int:
        return len(self._record.keys)
