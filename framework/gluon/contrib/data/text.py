"""MXNet's ``gluon.contrib.data.text``: the WikiText-2 and WikiText-103 word-level language-modelling
corpora as datasets of ``(data, label)`` rows of ``seq_len`` token indices (``label`` is ``data``
shifted by one token; each line of text ends with ``<eos>``), with MXNet's vocabulary order
(:class:`framework.contrib.text.vocab.Vocabulary`: ``<unk>``, ``<eos>``, then by frequency).

The segment's file (``wiki.train.tokens``, ``wiki.valid.tokens``, ``wiki.test.tokens``) is read from
``root`` (default ``$FRAMEWORK_HOME/datasets/wikitext-2`` or ``-103``) when its SHA-1 is MXNet's (any
file with ``verify=False``); otherwise MXNet's archive is downloaded the way MXNet does it
(``gluon.utils.download`` from ``$MXNET_GLUON_REPO``, SHA-1 checked; not when ``FRAMEWORK_OFFLINE=1``)
and its files are put in ``root``.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> with open(os.path.join(root, "wiki.train.tokens"), "w") as f:
...     _ = f.write(" = Title = \\n\\n the cat sat on the mat \\n")
>>> ds = WikiText2(root, seq_len=4, verify=False)
>>> len(ds), ds.vocabulary.idx_to_token[:4], ds[0][0].tolist(), ds[0][1].tolist()
(2, ['<unk>', '<eos>', '=', 'the'], [2, 4, 2, 1], [4, 2, 1, 3])
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as onp

from ....contrib.text import utils as _text_utils
from ....contrib.text.vocab import Vocabulary
from ..._download import check_sha1, download, downloads_allowed, repo_file_url
from ...data.dataset import Dataset
from ...data.vision._files import DatasetNotFoundError, framework_home

__all__ = ["WikiText2", "WikiText103", "download", "check_sha1"]

EOS_TOKEN = "<eos>"


class _WikiText(Dataset):
    _namespace = ""
    _archive: tuple[str, str] = ("", "")
    _files: dict[str, tuple[str, str]] = {}

    def __init__(self, root: str | os.PathLike | None = None, segment: str = "train",
                 vocab: Vocabulary | None = None, seq_len: int = 35, *, verify: bool = True) -> None:
        if segment not in self._files:
            raise ValueError(f"{type(self).__name__}: segment={segment!r} is not one of "
                             f"{sorted(self._files)}")
        if int(seq_len) < 1:
            raise ValueError(f"{type(self).__name__}: seq_len={seq_len} must be at least 1")
        self._root = (Path(root).expanduser() if root is not None
                      else framework_home() / "datasets" / self._namespace)
        self._segment, self._seq_len, self._verify = segment, int(seq_len), verify
        self._vocab = vocab
        self._counter = None
        self._get_data()

    @property
    def vocabulary(self) -> Vocabulary:
        """The vocabulary the indices refer to (given, or built from this segment)."""
        return self._vocab

    @property
    def frequencies(self) -> Any:
        """The token counts of this segment (a ``collections.Counter``)."""
        return self._counter

    def _file(self) -> Path:
        name, sha1 = self._files[self._segment]
        path = self._root / name
        if path.is_file() and (not self._verify or check_sha1(path, sha1)):
            return path
        who = f"{type(self).__name__}(segment={self._segment!r})"
        if not downloads_allowed():
            raise DatasetNotFoundError(
                f"{who}: {path} is missing or not MXNet's file (SHA-1 {sha1}) and downloads are off "
                "(FRAMEWORK_OFFLINE). Put the file there, or pass verify=False to read another file.")
        archive, archive_sha1 = self._archive
        self._root.mkdir(parents=True, exist_ok=True)
        zipped = download(repo_file_url(f"gluon/dataset/{self._namespace}", archive), path=str(self._root),
                          sha1_hash=archive_sha1)
        with zipfile.ZipFile(zipped) as zf:
            for member in zf.namelist():
                base = os.path.basename(member)
                if base:
                    _write_atomic(self._root / base, zf.read(member))
        if not path.is_file():
            raise DatasetNotFoundError(f"{who}: the archive {zipped} holds no {path.name}")
        return path

    def _get_data(self) -> None:
        content = self._file().read_text(encoding="utf8")
        if self._counter is None:
            self._counter = _text_utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = Vocabulary(counter=self._counter, reserved_tokens=[EOS_TOKEN])
        tokens = []
        for line in content.splitlines():
            words = line.strip().split()
            if words:
                tokens.extend(words)
                tokens.append(EOS_TOKEN)
        ids = onp.asarray(self._vocab.to_indices(tokens), dtype=onp.int32)
        n = (len(ids) - 1) // self._seq_len * self._seq_len
        self._data = ids[:-1][:n].reshape(-1, self._seq_len)
        self._label = ids[1:][:n].reshape(-1, self._seq_len)

    def __getitem__(self, idx: Any) -> tuple[onp.ndarray, onp.ndarray]:
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class WikiText2(_WikiText):
    """WikiText-2 (about 2 million training tokens); see the module docstring."""

    _namespace = "wikitext-2"
    _archive = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
    _files = {"train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
              "validation": ("wiki.valid.tokens", "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
              "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172")}


class WikiText103(_WikiText):
    """WikiText-103 (about 103 million training tokens); see the module docstring."""

    _namespace = "wikitext-103"
    _archive = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
    _files = {"train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
              "validation": ("wiki.valid.tokens", "c326ac59dc587676d58c422eb8a03e119582f92b"),
              "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47")}

