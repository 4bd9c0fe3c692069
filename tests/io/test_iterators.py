"""mx.io's iterators against MXNet 1.9.1 (tests/reference/api/io.npz, made by
tools/mxnet_reference/gen_api.py with the inputs stored beside it): the same batches, labels and pads,
epoch after epoch."""

from __future__ import annotations

import json

import jax
import numpy as onp
import pytest

import framework as mx
from conftest import REFERENCE

API = REFERENCE / "api"


@pytest.fixture(scope="module")
def ref():
    with onp.load(API / "io.npz") as f:
        return {k: f[k] for k in f.files}


def _record(it, epochs, prefix, real=None):
    out = {}
    for ep in range(epochs):
        for b, batch in enumerate(it):
            assert isinstance(batch.data[0], jax.Array) and isinstance(batch.label[0], jax.Array)
            data, label = onp.asarray(batch.data[0]), onp.asarray(batch.label[0])
            if real is not None:  # MXNet leaves the rest uninitialised with pad=0; here pad counts it
                n = min(it.batch_size, real - b * it.batch_size)
                assert batch.pad == it.batch_size - n
                data, label = data[:n], label[:n]
            else:
                out[f"{prefix}/{ep}/{b}/pad"] = onp.asarray(batch.pad)
            out[f"{prefix}/{ep}/{b}/data"], out[f"{prefix}/{ep}/{b}/label"] = data, label
        it.reset()
    return out


def _compare(ours, ref, prefix, atol=0.0):
    want = {k: v for k, v in ref.items() if k.startswith(prefix + "/")}
    assert sorted(ours) == sorted(want), f"{prefix}: batches {sorted(ours)} vs MXNet's {sorted(want)}"
    for k, v in want.items():
        assert ours[k].shape == v.shape, f"{k}: {ours[k].shape} vs {v.shape}"
        onp.testing.assert_allclose(ours[k].astype(onp.float64), v.astype(onp.float64), atol=atol, err_msg=k)


DATA = onp.arange(40, dtype=onp.float32).reshape(10, 2, 2)
LABEL = onp.arange(10, dtype=onp.float32)


@pytest.mark.parametrize("handle", ["pad", "discard", "roll_over"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_ndarray_iter_last_batch_handles_and_shuffle(ref, handle, shuffle):
    onp.random.seed(11)
    it = mx.io.NDArrayIter(DATA, LABEL, 3, shuffle, last_batch_handle=handle)
    prefix = f"ndarray/{handle}/{int(shuffle)}"
    _compare(_record(it, 3, prefix), ref, prefix)


def test_ndarray_iter_tiles_dicts_and_layouts(ref):
    _compare(_record(mx.io.NDArrayIter(DATA[:2], LABEL[:2], 5), 1, "ndarray/tile"), ref, "ndarray/tile")
    it = mx.io.NDArrayIter({"b": DATA, "a": DATA * 2}, {"y": LABEL}, 4)
    for b, batch in enumerate(it):
        onp.testing.assert_array_equal(onp.asarray(batch.data[0]), ref[f"ndarray/dict/{b}/a"])
        onp.testing.assert_array_equal(onp.asarray(batch.data[1]), ref[f"ndarray/dict/{b}/b"])
        assert batch.pad == ref[f"ndarray/dict/{b}/pad"]
    assert [[d.name, list(d.shape)] for d in it.provide_data] == json.loads(
        str(ref["ndarray/dict/provide_data"])
    )
    # layout TNC batches along axis 1 (MXNet 1.9.1 counts the examples along axis 0 whatever the layout,
    # and cuts wrong batches: that is not followed); the batches are the NTC ones, transposed
    x = onp.arange(24, dtype=onp.float32).reshape(2, 6, 2)
    tnc = [onp.asarray(b.data[0]) for b in mx.io.NDArrayIter(x, batch_size=4, layout="TNC")]
    ntc = [onp.asarray(b.data[0]) for b in mx.io.NDArrayIter(x.transpose(1, 0, 2), batch_size=4)]
    assert len(tnc) == 2 and all(
        onp.array_equal(a, b.transpose(1, 0, 2)) for a, b in zip(tnc, ntc, strict=True)
    )


def test_ndarray_iter_errors_name_the_problem():
    with pytest.raises(ValueError, match="last_batch_handle='keep'"):
        mx.io.NDArrayIter(DATA, LABEL, 3, last_batch_handle="keep")
    with pytest.raises(ValueError, match="different numbers of examples"):
        mx.io.NDArrayIter(DATA, LABEL[:5], 3)


@pytest.mark.parametrize("round_batch", [True, False])
def test_csv_iter_round_batch(ref, round_batch):
    it = mx.io.CSVIter(
        data_csv=str(API / "data.csv"),
        data_shape=(3,),
        label_csv=str(API / "label.csv"),
        batch_size=3,
        round_batch=round_batch,
    )
    _compare(_record(it, 3, f"csv/{int(round_batch)}"), ref, f"csv/{int(round_batch)}")


def test_csv_iter_wraps_and_keeps_integers(ref):
    it = mx.io.CSVIter(data_csv=str(API / "data.csv"), data_shape=(3,), batch_size=7)
    _compare(_record(it, 2, "csv/wrap"), ref, "csv/wrap")
    it = mx.io.CSVIter(
        data_csv=str(API / "data.csv"),
        data_shape=(1, 3),
        label_csv=str(API / "data.csv"),
        label_shape=(3,),
        batch_size=2,
        dtype="int32",
    )
    ours = _record(it, 1, "csv/int")
    _compare(ours, ref, "csv/int")
    assert ours["csv/int/0/0/data"].dtype == ref["csv/int/0/0/data"].dtype == onp.int32
    with pytest.raises(ValueError, match="needs 4"):
        mx.io.CSVIter(data_csv=str(API / "data.csv"), data_shape=(4,), batch_size=2)


def test_mnist_iter(ref):
    paths = dict(image=str(API / "mnist-images-idx3-ubyte"), label=str(API / "mnist-labels-idx1-ubyte"))
    _compare(
        _record(mx.io.MNISTIter(batch_size=3, shuffle=False, **paths), 2, "mnist/plain"), ref, "mnist/plain"
    )
    _compare(
        _record(mx.io.MNISTIter(batch_size=2, shuffle=False, flat=True, **paths), 1, "mnist/flat"),
        ref,
        "mnist/flat",
    )
    _compare(
        _record(
            mx.io.MNISTIter(batch_size=2, shuffle=False, num_parts=2, part_index=1, **paths), 1, "mnist/part"
        ),
        ref,
        "mnist/part",
    )
    it = mx.io.MNISTIter(batch_size=2, shuffle=True, seed=3, **paths)
    first = [onp.asarray(b.label[0]).tolist() for b in it]
    it.reset()
    assert [onp.asarray(b.label[0]).tolist() for b in it] == first  # shuffled once, at construction
    assert sorted(sum(first, [])) != sum(first, []) and len(sum(first, [])) == 6


REC_CASES = {
    "center": dict(data_shape=(3, 8, 8), batch_size=3),
    "norm_mirror": dict(
        data_shape=(3, 9, 7),
        batch_size=4,
        mean_r=120,
        mean_g=110,
        mean_b=100,
        std_r=50,
        std_g=60,
        std_b=70,
        scale=0.5,
        mirror=True,
    ),
    "uint8": dict(data_shape=(3, 8, 8), batch_size=3, dtype="uint8"),
    "gray": dict(data_shape=(1, 8, 8), batch_size=3),
    "noround": dict(data_shape=(3, 8, 8), batch_size=3, round_batch=False),
    "resize": dict(data_shape=(3, 8, 8), batch_size=3, resize=8),
    "enlarge": dict(data_shape=(3, 14, 14), batch_size=3),
    "pad": dict(data_shape=(3, 12, 12), batch_size=3, pad=2, fill_value=7),
}


@pytest.mark.parametrize("case", sorted(REC_CASES))
def test_image_record_iter(ref, case):
    it = mx.io.ImageRecordIter(path_imgrec=str(API / "images.rec"), **REC_CASES[case])
    # bilinear enlarging rounds a few pixels differently from OpenCV; a gray pixel too (Pillow's formula)
    atol = {"enlarge": 1.0, "gray": 1.0}.get(case, 0.0)
    ours = _record(it, 2, f"rec/{case}", real=7 if case == "noround" else None)
    _compare(ours, ref, f"rec/{case}", atol=atol)


def test_image_record_iter_labels_shuffle_and_refusals(ref):
    it = mx.io.ImageRecordIter(
        path_imgrec=str(API / "images3.rec"), data_shape=(3, 8, 8), batch_size=4, label_width=3
    )
    _compare(_record(it, 1, "rec/width3"), ref, "rec/width3")
    it = mx.io.ImageRecordIter(
        path_imgrec=str(API / "images.rec"),
        path_imgidx=str(API / "images.idx"),
        data_shape=(3, 8, 8),
        batch_size=7,
        shuffle=True,
        seed=1,
    )
    epochs = [onp.asarray(next(iter(it)).label[0]).tolist() for _ in range(1) if not it.reset()]
    it.reset()
    epochs.append(onp.asarray(next(iter(it)).label[0]).tolist())
    assert all(sorted(e) == [0, 0, 0, 1, 1, 2, 2] for e in epochs) and epochs[0] != epochs[1]
    with pytest.raises(ValueError, match="max_rotate_angle=10 is not supported"):
        mx.io.ImageRecordIter(
            path_imgrec=str(API / "images.rec"), data_shape=(3, 8, 8), batch_size=2, max_rotate_angle=10
        )
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        mx.io.ImageRecordIter(
            path_imgrec=str(API / "images.rec"), data_shape=(3, 8, 8), batch_size=2, bogus=1
        )


def test_random_crop_and_mirror_are_seeded_and_cover_both_sides():
    kw = dict(
        path_imgrec=str(API / "images.rec"),
        data_shape=(3, 6, 6),
        batch_size=7,
        rand_crop=True,
        rand_mirror=True,
        seed_aug=5,
    )
    a = onp.asarray(next(iter(mx.io.ImageRecordIter(**kw))).data[0])
    b = onp.asarray(next(iter(mx.io.ImageRecordIter(**kw))).data[0])
    onp.testing.assert_array_equal(a, b)
    c = onp.asarray(next(iter(mx.io.ImageRecordIter(**{**kw, "seed_aug": 6}))).data[0])
    assert not onp.array_equal(a, c)


def test_prefetching_iter_joins_iterators_in_threads_and_resets():
    import threading

    a = mx.io.NDArrayIter({"data": DATA}, {"y": LABEL}, 4)
    b = mx.io.NDArrayIter({"data": DATA * 10}, {"y": LABEL}, 4)
    it = mx.io.PrefetchingIter([a, b], rename_data=[{"data": "d1"}, {"data": "d2"}])
    assert [d.name for d in it.provide_data] == ["d1", "d2"] and it.batch_size == 4
    names = {t.name for t in threading.enumerate()}
    assert {"PrefetchingIter-0", "PrefetchingIter-1"} <= names
    for _ in range(2):
        batches = list(it)
        assert [b.pad for b in batches] == [0, 0, 2]
        onp.testing.assert_array_equal(onp.asarray(batches[1].data[1]), DATA[4:8] * 10)
        assert len(batches[0].data) == 2 and len(batches[0].label) == 2
        it.reset()
    threads = [t for t in threading.enumerate() if t.name.startswith("PrefetchingIter-")]
    it.close()
    assert threads and not any(t.is_alive() for t in threads)


def test_prefetching_iter_passes_errors_and_resize_iter_wraps():
    class Broken(mx.io.DataIter):
        provide_data = [mx.io.DataDesc("data", (2, 1))]
        provide_label = []

        def next(self):
            raise OSError("disk gone")

    it = mx.io.PrefetchingIter(Broken())
    with pytest.raises(OSError, match="disk gone"):
        next(iter(it))
    it.close()
    inner = mx.io.NDArrayIter(DATA, LABEL, 4, last_batch_handle="discard")
    resized = mx.io.ResizeIter(inner, 5)
    firsts = [onp.asarray(b.data[0])[0, 0, 0] for b in resized]
    assert firsts == [0.0, 16.0, 0.0, 16.0, 0.0]  # two batches per epoch of the inner iterator, repeated
