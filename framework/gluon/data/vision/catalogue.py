"""The catalogue of supported datasets: sources, licences, sizes and checksums, in one place.

``framework.gluon.data.vision.datasets`` reads it to find and verify files; the top-level ``datasets``
command-line tool (``python -m datasets list|where|fetch|verify|prepare``) reads it to fetch them.

Checksums of IDX files are of the *decompressed* content: the original gzip files and Debian's
re-compressed ones differ as files but decompress to the same bytes. ``gz["sha256"]`` lists known
gzip wrappers as well (the original downloads as tensorflow-datasets records them, and Debian's
``dataset-fashion-mnist`` 0.0~git20200523.55506a9-1), which is all that is known for MNIST. CIFAR
``sha1`` values are of the extracted binary batches (as MXNet records them).

Downloads (see :mod:`._fetch`) come first from MXNet's repository layout, ``<repo>/gluon/dataset/
<mxnet_namespace>/<file>`` (``$MXNET_GLUON_REPO`` or MXNet's default), then from ``urls``. ``gz["sha1"]``
and ``archive["sha1"]`` hold the SHA-1 MXNet 1.9.1 publishes for its copies of the ``.gz`` files and
archives (read from its ``gluon/data/vision/datasets.py``); a file is accepted when it matches them or
the checksums above.

>>> entry = CATALOGUE["fashion-mnist"]
>>> entry["licence"]
'MIT'
>>> sorted(f["split"] for f in entry["files"].values())
['test', 'test', 'train', 'train']
"""

from __future__ import annotations

from typing import Any

__all__ = ["CATALOGUE", "entry_for"]

_CIFAR_LICENCE = ("no licence stated; cite Krizhevsky (2009), Learning Multiple Layers of Features "
                  "from Tiny Images")
_FMNIST_URLS = [
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/",
]
_MNIST_URLS = [
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
]


def _idx(split: str, kind: str, count: int, sha256: str | None, gz_size: int, gz_sha256: str,
         gz_md5: str | None = None, debian_gz_sha256: str | None = None, *,
         mxnet_sha1: str) -> dict[str, Any]:
    shape = [count, 28, 28] if kind == "images" else [count]
    size = 8 + 4 * (len(shape) - 1) + count * (784 if kind == "images" else 1)
    gz = {"size": gz_size, "sha256": [gz_sha256] + ([debian_gz_sha256] if debian_gz_sha256 else []),
          "sha1": [mxnet_sha1]}
    if gz_md5:
        gz["md5"] = gz_md5
    return {"split": split, "kind": kind, "shape": shape, "size": size, "sha256": sha256, "gz": gz}


CATALOGUE: dict[str, dict[str, Any]] = {
    "fashion-mnist": {
        "title": "Fashion-MNIST",
        "description": "70,000 28x28 grayscale images of 10 kinds of Zalando articles "
                       "(60,000 train, 10,000 test).",
        "homepage": "https://github.com/zalandoresearch/fashion-mnist",
        "licence": "MIT",
        "copyright": "Zalando SE, 2017",
        "format": "idx",
        "classes": 10,
        "cache_subdir": "fashion-mnist",
        "mxnet_namespace": "fashion-mnist",
        "urls": _FMNIST_URLS,
        "debian": {"package": "dataset-fashion-mnist", "dir": "/usr/share/datasets/fashion-mnist"},
        "tfds": {"name": "fashion_mnist", "version": "3.0.1"},
        "files": {
            "train-images-idx3-ubyte": _idx(
                "train", "images", 60000, "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
                26421880, "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
                "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
                "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
                mxnet_sha1="0cf37b0d40ed5169c6b3aba31069a9770ac9043d"),
            "train-labels-idx1-ubyte": _idx(
                "train", "labels", 60000, "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
                29515, "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
                "25c81989df183df01b3e8a0aad5dffbe",
                "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
                mxnet_sha1="236021d52f1e40852b06a4c3008d8de8aef1e40b"),
            "t10k-images-idx3-ubyte": _idx(
                "test", "images", 10000, "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
                4422102, "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073",
                "bef4ecab320f06d8554ea6380940ec79",
                "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
                mxnet_sha1="626ed6a7c06dd17c0eec72fa3be1740f146a2863"),
            "t10k-labels-idx1-ubyte": _idx(
                "test", "labels", 10000, "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
                5148, "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
                "bb300cfdad3c16e7a12a480ee83cd310",
                "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
                mxnet_sha1="17f9ab60e7257a1620f4ad76bbbaf857c3920701"),
        },
    },
    "mnist": {
        "title": "MNIST",
        "description": "70,000 28x28 grayscale images of handwritten digits (60,000 train, 10,000 test).",
        "homepage": "http://yann.lecun.com/exdb/mnist/",
        "licence": "CC BY-SA 3.0",
        "copyright": "Yann LeCun, Corinna Cortes, Christopher J.C. Burges",
        "format": "idx",
        "classes": 10,
        "cache_subdir": "mnist",
        "mxnet_namespace": "mnist",
        "urls": _MNIST_URLS,
        "debian": None,  # Debian has no MNIST package (checked with apt-cache, 2026-12)
        "tfds": {"name": "mnist", "version": "3.0.1"},
        "files": {
            "train-images-idx3-ubyte": _idx(
                "train", "images", 60000, None,
                9912422, "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
                mxnet_sha1="6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d"),
            "train-labels-idx1-ubyte": _idx(
                "train", "labels", 60000, None,
                28881, "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
                mxnet_sha1="2a80914081dc54586dbdf242f9805a6b8d2a15fc"),
            "t10k-images-idx3-ubyte": _idx(
                "test", "images", 10000, None,
                1648877, "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
                mxnet_sha1="c3a25af1f52dad7f726cce8cacb138654b760d48"),
            "t10k-labels-idx1-ubyte": _idx(
                "test", "labels", 10000, None,
                4542, "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
                mxnet_sha1="763e7fa3757d93b0cdec073cef058b2004252c17"),
        },
    },
    "cifar10": {
        "title": "CIFAR-10",
        "description": "60,000 32x32 colour images in 10 classes (50,000 train, 10,000 test), "
                       "binary version.",
        "homepage": "https://www.cs.toronto.edu/~kriz/cifar.html",
        "licence": _CIFAR_LICENCE,
        "copyright": "Alex Krizhevsky, Vinod Nair, Geoffrey Hinton",
        "format": "cifar",
        "classes": 10,
        "label_bytes": 1,
        "cache_subdir": "cifar10",
        "mxnet_namespace": "cifar10",
        "inner_dir": "cifar-10-batches-bin",
        "archive": {"name": "cifar-10-binary.tar.gz", "size": 170052171,
                    "sha256": "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
                    "sha1": "fab780a1e191a7eda0f345501ccd62d20f7ed891"},
        "urls": ["https://www.cs.toronto.edu/~kriz/"],
        "debian": None,
        "tfds": None,
        "files": {
            **{f"data_batch_{i}.bin": {"split": "train", "records": 10000, "size": 30730000, "sha1": h}
               for i, h in enumerate(("aadd24acce27caa71bf4b10992e9e7b2d74c2540",
                                      "c0ba65cce70568cd57b4e03e9ac8d2a5367c1795",
                                      "1dd00a74ab1d17a6e7d73e185b69dbf31242f295",
                                      "aab85764eb3584312d3c7f65fd2fd016e36a258e",
                                      "26e2849e66a845b7f1e4614ae70f4889ae604628"), start=1)},
            "test_batch.bin": {"split": "test", "records": 10000, "size": 30730000,
                               "sha1": "67eb016db431130d61cd03c7ad570b013799c88c"},
        },
    },
    "cifar100": {
        "title": "CIFAR-100",
        "description": "60,000 32x32 colour images in 100 classes / 20 superclasses, binary version.",
        "homepage": "https://www.cs.toronto.edu/~kriz/cifar.html",
        "licence": _CIFAR_LICENCE,
        "copyright": "Alex Krizhevsky, Vinod Nair, Geoffrey Hinton",
        "format": "cifar",
        "classes": 100,
        "label_bytes": 2,
        "cache_subdir": "cifar100",
        "mxnet_namespace": "cifar100",
        "inner_dir": "cifar-100-binary",
        "archive": {"name": "cifar-100-binary.tar.gz", "size": 168513733,
                    "sha256": "58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec",
                    "sha1": "a0bb982c76b83111308126cc779a992fa506b90b"},
        "urls": ["https://www.cs.toronto.edu/~kriz/"],
        "debian": None,
        "tfds": None,
        "files": {
            "train.bin": {"split": "train", "records": 50000, "size": 153700000,
                          "sha1": "e207cd2e05b73b1393c74c7f5e7bea451d63e08e"},
            "test.bin": {"split": "test", "records": 10000, "size": 30740000,
                         "sha1": "8fb6623e830365ff53cf14adec797474f5478006"},
        },
    },
}


def entry_for(name: str) -> dict[str, Any]:
    """The catalogue entry of ``name``, or a ``KeyError`` listing the names there are."""
    try:
        return CATALOGUE[name]
    except KeyError:
        known = ", ".join(sorted(CATALOGUE))
        raise KeyError(f"no dataset named {name!r} in the catalogue; known: {known}") from None
