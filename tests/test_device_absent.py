"""A GPU that is not there: MXNet 1.9.1 makes the context and fails only when data is placed on it
(``tests/reference/d2l/behaviour.json``, made by ``tools/mxnet_reference/gen_d2l.py``)."""

import json
from pathlib import Path

import pytest

import framework as mx
from framework import gluon, np, npx

REF = json.loads((Path(__file__).parent / "reference" / "d2l" / "behaviour.json").read_text())["device"]

N = npx.num_gpus()  # MXNet's reference ran without GPUs: its gpu(i) is gpu(N + i) here


def _shift(text: str) -> str:
    return text[:4] + str(int(text[4:-1]) + N) + ")"


def test_absent_gpu_is_a_context_like_mxnets():
    g = npx.gpu(N)
    got = [repr(g), str(g), repr(npx.gpu(N + 3)), repr(mx.Context("gpu", N + 1))]
    assert got == [_shift(r) for r in REF["repr"]["value"]]
    t, i, j = REF["type_id"]["value"]
    assert [npx.device_type(g), npx.device_id(g), npx.device_id(npx.gpu(N + 2))] == [t, i + N, j + N]
    assert [g == npx.gpu(N), g == npx.gpu(N + 1), g == npx.cpu(0)] == REF["equal"]["value"]
    assert isinstance(g, mx.Context) is REF["is_context"]["value"]
    assert hash(g) == hash(npx.gpu(N)) and len({g, npx.gpu(N), npx.gpu(N + 1)}) == 2


@pytest.mark.parametrize("what", ["np_ones", "nd_ones", "as_in_ctx", "copyto", "initialize"])
def test_placing_data_on_an_absent_gpu_fails_as_in_mxnet(what):
    assert REF[what] == {"error": "MXNetError"}
    g = npx.gpu(N)
    run = {"np_ones": lambda: np.ones(2, ctx=g), "nd_ones": lambda: mx.nd.ones(2, ctx=g),
           "as_in_ctx": lambda: npx.as_in_context(np.ones(2), g), "copyto": lambda: npx.copyto(np.ones(2), g),
           "initialize": lambda: gluon.nn.Dense(2, in_units=2).initialize(ctx=g)}[what]
    with pytest.raises(mx.MXNetError, match=rf"=gpu\({N}\): this process has {N} GPU\(s\)"):
        run()
