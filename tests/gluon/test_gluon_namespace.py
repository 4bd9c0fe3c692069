"""The lazy submodules of framework.gluon (issue 18 item 8): each listed one exists, hasattr never raises."""

from __future__ import annotations

import importlib

import pytest

from framework import gluon


def test_every_lazy_submodule_exists():
    for name, module in gluon._LAZY.items():
        assert importlib.import_module(module, "framework.gluon") is getattr(gluon, name)


def test_hasattr_is_true_for_model_zoo_and_rnn_and_false_for_absent_names():
    assert hasattr(gluon, "model_zoo") and hasattr(gluon, "rnn")
    assert not hasattr(gluon, "contrib_that_does_not_exist")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        gluon.nope  # noqa: B018


def test_a_listed_module_that_is_missing_reads_as_absent(monkeypatch):
    monkeypatch.setitem(gluon._LAZY, "ghost", ".ghost_module_not_there")
    assert not hasattr(gluon, "ghost")
