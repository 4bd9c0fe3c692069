"""pretrained=True: MXNet's file names and SHA-1 checks, the places looked in, no download."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as onp
import pytest

from framework import serialization
from framework.gluon.model_zoo import model_store, vision

REF = Path(__file__).resolve().parents[2] / "reference" / "zoo"


def test_missing_file_says_where_it_looked_the_name_and_that_nothing_is_downloaded(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "mxhome"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(
        FileNotFoundError,
        match=r"resnet18_v1-a0666292\.params.*mxhome/models.*\.mxnet/models"
        r".*downloads nothing \(no network here\)",
    ):
        vision.get_model("resnet18_v1", pretrained=True)
    with pytest.raises(FileNotFoundError, match=r"'squeezenet1\.1'.*squeezenet1\.1-33ba0f93\.params"):
        vision.squeezenet1_1(pretrained=True, root=tmp_path)


def test_a_file_with_the_wrong_sha1_is_refused(tmp_path):
    (tmp_path / "alexnet-44335d1f.params").write_bytes(b"not MXNet's weights")
    with pytest.raises(
        ValueError, match=r"has SHA-1 .* but MXNet published 44335d1f0046b328243b32a26a4fbd62d9057b45"
    ):
        vision.alexnet(pretrained=True, root=tmp_path)


def test_a_file_with_the_published_sha1_loads(tmp_path, monkeypatch):
    with onp.load(REF / "mobilenet0.25.npz") as data:  # MXNet's names and shapes for classes=10
        names, dims = [str(n) for n in data["shape_names"]], json.loads(str(data["shape_dims"]))
    rs = onp.random.RandomState(0)
    values = {n: rs.uniform(-1, 1, d).astype(onp.float32) for n, d in zip(names, dims, strict=True)}
    saved = tmp_path / "saved.params"
    serialization.save(str(saved), values)
    digest = hashlib.sha1(saved.read_bytes()).hexdigest()
    monkeypatch.setitem(model_store._MODEL_SHA1, "mobilenet0.25", digest)
    saved.rename(tmp_path / f"mobilenet0.25-{digest[:8]}.params")
    net = vision.get_model("mobilenet0.25", pretrained=True, root=tmp_path, classes=10)
    onp.testing.assert_array_equal(net.output.weight.data(), values["output.weight"])


def test_names_and_arguments_are_checked():
    with pytest.raises(
        ValueError, match="Model 'resnet19_v1' is not supported. Available options are: alexnet"
    ):
        vision.get_model("resnet19_v1")
    with pytest.raises(TypeError, match="unexpected keyword argument 'clases'"):
        vision.get_model("vgg11", clases=3)
    with pytest.raises(ValueError, match="Pretrained model for 'resnet9' is not available"):
        model_store.get_model_file("resnet9")
    assert vision.get_model("ResNet18_V2").output.weight.shape == (1000, 512)
