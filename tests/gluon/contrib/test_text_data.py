"""``gluon.contrib.data.text.WikiText2`` against MXNet 1.9.1 reading the same local corpus
(``tests/reference/api2/text.npz``, ``tools/mxnet_reference/gen_api2.py text``): MXNet's vocabulary
order, counts and ``(data, label)`` rows; downloads go through ``gluon.utils.download`` as MXNet's do."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest

from framework.gluon.contrib.data import text
from framework.gluon.data.vision import DatasetNotFoundError

REF = Path(__file__).resolve().parents[2] / "reference" / "api2" / "text.npz"
with onp.load(REF) as _f:
    R = {k: _f[k] for k in _f.files}


@pytest.fixture()
def root(tmp_path):
    (tmp_path / "wiki.train.tokens").write_text(str(R["corpus"]), encoding="utf8")
    (tmp_path / "wiki.valid.tokens").write_text(str(R["valid"]), encoding="utf8")
    return tmp_path


def rows(ds):
    return onp.stack([ds[i][0] for i in range(len(ds))]), onp.stack([ds[i][1] for i in range(len(ds))])


def test_wikitext2_matches_mxnet(root):
    for seq_len in (5, 35):
        ds = text.WikiText2(root, segment="train", seq_len=seq_len, verify=False)
        data, label = rows(ds) if len(ds) else (onp.zeros((0, seq_len)), onp.zeros((0, seq_len)))
        onp.testing.assert_array_equal(data, R[f"train{seq_len}.data"])
        onp.testing.assert_array_equal(label, R[f"train{seq_len}.label"])
    assert ds.vocabulary.idx_to_token == json.loads(str(R["vocab"]))
    assert sorted(map(list, ds.frequencies.items())) == json.loads(str(R["freq"]))
    val = text.WikiText2(root, segment="validation", seq_len=4, vocab=ds.vocabulary, verify=False)
    data, label = rows(val)
    onp.testing.assert_array_equal(data, R["valid4.data"])
    onp.testing.assert_array_equal(label, R["valid4.label"])


def test_a_file_that_is_not_mxnets_is_downloaded_and_offline_says_so(root, monkeypatch):
    monkeypatch.setenv("FRAMEWORK_OFFLINE", "1")
    with pytest.raises(DatasetNotFoundError, match="SHA-1 863f29c4.*downloads are off"):
        text.WikiText2(root)
    with pytest.raises(ValueError, match="segment='dev' is not one of"):
        text.WikiText103(root, segment="dev")
