"""The names of MXNet 1.9.1's public API that framework refuses, each with the reason and what to use
instead: the one table. ``mx.nd.NOT_SUPPORTED``, ``mx.nd.contrib.NOT_SUPPORTED`` and
``mx.npx.NOT_SUPPORTED`` are views of it, the attribute errors of those modules quote it, and
``tools/api_inventory.py`` (with ``tests/api/test_inventory.py``) reads it to account for every name of
MXNet's inventory.

>>> from framework._refusals import REFUSALS, not_supported
>>> REFUSALS["mx.nd"]["sparse"].instead
'dense arrays (x.tostype(...) is refused the same way)'
>>> not_supported("mx.nd")["sparse"].startswith("sparse storage")
True
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Refusal", "REFUSALS", "not_supported", "refusal_message"]


class Refusal(NamedTuple):
    """Why a name is not offered, and what a user does instead."""

    reason: str
    instead: str


REFUSALS: dict[str, dict[str, Refusal]] = {}


def _refuse(module: str, names: str, reason: str, instead: str) -> None:
    """Refuse each of the space-separated ``names`` of ``module`` (``mx``, ``mx.nd``, ...)."""
    table = REFUSALS.setdefault(module, {})
    for name in names.split():
        if name in table:
            raise ValueError(f"{module}.{name} is refused twice")
        table[name] = Refusal(reason, instead)


def not_supported(module: str) -> dict[str, str]:
    """``{name: "reason; instead: ..."}`` of one module (``mx.nd``): what its ``NOT_SUPPORTED`` shows."""
    return {n: f"{r.reason}; instead: {r.instead}" for n, r in REFUSALS.get(module, {}).items()}


def refusal_message(module: str, name: str) -> str | None:
    """The sentence an ``AttributeError`` for a refused name carries, or None when it is not refused."""
    r = REFUSALS.get(module, {}).get(name)
    if r is None:
        return None
    return f"{module}.{name} is not supported: {r.reason}. Instead: {r.instead}"


_refuse("mx", "api libinfo library tvmop",
        "the C API, the C++ library's loader and paths, and TVM operators: JAX's runtime replaces them",
        "jax.print_environment_info(); mx.runtime.Features for build questions")
_refuse("mx", "executor_manager", "MXNet's pre-Module data-parallel executor manager "
        "(DataParallelExecutorManager, used by the deprecated FeedForward model)",
        "mx.mod.Module(sym, context=[devices]) (its DataParallelExecutorGroup splits each batch)")
_refuse("mx", "ndarray_doc symbol_doc numpy_dispatch_protocol numpy_op_fallback numpy_op_signature",
        "documentation and dispatch internals of MXNet's Python layer",
        "jax.Array implements NumPy's protocols itself")
_refuse("mx", "notebook", "Jupyter callbacks of the Module API", "mx.callback.ProgressBar / Speedometer")
_refuse("mx", "onnx", "ONNX export of MXNet symbols", "jax.export (StableHLO) of net.functional_call")
_refuse("mx", "rtc", "CUDA run-time compilation of hand-written kernels",
        "jax.pure_callback, Pallas, or mx.operator.CustomOp")
_refuse("mx", "th torch", "the Torch plugin (Lua Torch operators)", "plain JAX functions")
_refuse("mx", "rnn", "the 1.x symbolic RNN cells (mx.rnn.LSTMCell over symbols)", "gluon.rnn")

_refuse("mx.np", "arrayprint fallback fallback_linalg function_base io multiarray stride_tricks utils",
        "implementation modules of MXNet's np package", "the names themselves on mx.np")
_refuse("mx.np", "may_share_memory shares_memory",
        "whether two arrays overlap in memory: JAX arrays are immutable and a slice is a copy, so MXNet's "
        "answers for views (True) cannot hold", "compare the arrays' values, or `a is b`")
_refuse("mx.np", "mirr npv ppmt pv rate",
        "NumPy's financial functions (removed from NumPy 1.20; MXNet served them by NumPy fallback)",
        "the numpy_financial package")
_refuse("mx.np.linalg", "wrap_data_api_linalg_func", "a decorator internal to MXNet 2.0",
        "the np.linalg functions")
_refuse("mx.np.random", "wrap_ctx_to_device_func", "a decorator internal to MXNet 2.0",
        "the np.random functions, which take ctx= or device=")
_refuse("mx.npx.random", "wrap_ctx_to_device_func", "a decorator internal to MXNet 2.0",
        "the npx.random functions")
_refuse("mx.npx", "to_dlpack_for_write",
        "hands out a buffer for another library to write into; JAX arrays are immutable and their buffers "
        "must not change",
        "compute the result in the other library and bring it back with npx.from_dlpack, or "
        "npx.to_dlpack_for_read of a copy")

_refuse("mx.gluon.data.dataloader",
        "ConnectionWrapper Queue SimpleQueue rebuild_ndarray rebuild_np_ndarray reduce_ndarray "
        "reduce_np_ndarray",
        "shared-memory pickling of NDArrays between forked workers; framework's workers are spawned "
        "processes that send NumPy buffers", "DataLoader(num_workers=N)")
_refuse("mx.gluon.data.dataloader", "fetcher_loop_v1 worker_loop_v1",
        "the worker and fetcher loops of MXNet's first DataLoader (forked processes sharing NDArrays)",
        "DataLoaderV1 / DataLoader(num_workers=N)")

_refuse("mx.autograd", "get_symbol", "the symbol of a recorded graph (MXNet's NNVM graph)",
        "jax.make_jaxpr of the pure function (net.functional_call)")
_refuse("mx.init", "FusedRNN",
        "initializer of MXNet's fused cuDNN RNN parameter blob; framework's RNN layers keep per-gate "
        "parameters", "the layers' own initializers (i2h_weight_initializer=...)")
_refuse("mx.profiler", "set_kvstore_handle",
        "hands the profiler a C kvstore handle for server-side profiling (no parameter server here)",
        "mx.profiler on each process")
_refuse("mx.operator", "NDArrayOp NumpyOp PythonOp",
        "MXNet's deprecated first custom-operator interfaces, which build symbols (removed in 2.0)",
        "mx.operator.CustomOp / CustomOpProp")
_refuse("mx.io", "MXDataIter", "the wrapper of C++ iterator handles", "the Python iterators of mx.io")
_refuse("mx.io", "LibSVMIter", "yields CSR (sparse) batches; JAX arrays are dense",
        "read the file with sklearn.datasets.load_svmlight_file, then mx.io.NDArrayIter")
_refuse("mx.io", "ImageDetRecordIter", "the C++ detection record iterator",
        "mx.image.ImageDetIter(path_imgrec=...) (MXNet's Python detection iterator, with the same label "
        "format)")
_refuse("mx.kv", "KVStoreServer kvstore_server",
        "the parameter server's server and scheduler roles (framework has no parameter server)",
        "kv.create('dist_sync') over jax.distributed")
_refuse("mx.test_utils", "create_sparse_array create_sparse_array_zd rand_sparse_ndarray "
        "shuffle_csr_column_indices", "sparse storage (CSR/row_sparse); JAX arrays are dense",
        "rand_ndarray(shape)")
_refuse("mx.test_utils", "np_symbol", "the symbols of MXNet's numpy graph API",
        "exported graphs: gluon.SymbolBlock.imports")
_refuse("mx.test_utils", "get_im2rec_path", "the path of MXNet's tools/im2rec.py script",
        "python -m datasets im2rec PREFIX ROOT (framework's im2rec, run from the repository)")
_refuse("mx.test_utils", "get_mnist_pkl", "reads a pickled MNIST (loading a pickle runs code)",
        "get_mnist()")

_refuse("mx.nd", "CachedOp", "MXNet's graph executor handle", "hybridize() (one jax.jit)")
_refuse("mx.nd", "IdentityAttachKLSparseReg",
        "keeps a moving average as an auxiliary state updated during backward",
        "add a KL sparsity penalty to the loss")
_refuse("mx.nd", "sparse", "sparse storage (csr/row_sparse): JAX arrays are dense",
        "dense arrays (x.tostype(...) is refused the same way)")
_refuse("mx.nd", "register", "MXNet's C-operator registration machinery",
        "mx.operator.register for Python operators")
_refuse("mx.nd", "gen__internal gen_contrib gen_image gen_linalg gen_op gen_sparse",
        "MXNet's generated operator modules", "the operators on mx.nd (and mx.nd.op)")
_refuse("mx.nd", "get_indexing_dispatch_code get_oshape_of_gather_nd_op indexing_key_expand_implicit_axes",
        "MXNet's internal indexing helpers", "indexing with x[key]")

_refuse("mx.nd.contrib", "quantized_rnn",
        "oneDNN's int8 LSTM (its own packed weights, scales and uint8 recurrence); no integer recurrent "
        "kernel here", "npx.rnn in float32 or bfloat16")
_refuse("mx.npx", "contrib_quantized_rnn",
        "oneDNN's int8 LSTM (its own packed weights, scales and uint8 recurrence); no integer recurrent "
        "kernel here", "npx.rnn in float32 or bfloat16")
_refuse("mx.npx", "intgemm_prepare_weight intgemm_take_weight intgemm_fully_connected",
        "the intgemm library's int8 GEMM on x86: weights are rearranged into a tile layout that depends on "
        "the CPU's instruction set (SSSE3/AVX2/AVX512) and only its own kernel reads",
        "npx.contrib_quantize_v2 and npx.quantized_fully_connected (int8), or npx.fully_connected")
_refuse("mx.nd.contrib", "dgl_adjacency dgl_csr_neighbor_non_uniform_sample dgl_csr_neighbor_uniform_sample "
        "dgl_graph_compact dgl_subgraph edge_id",
        "DGL's graph operators read a CSR matrix whose stored values are edge ids counted from 0: a dense "
        "array cannot tell edge 0 from no edge", "the DGL library itself")
_refuse("mx.nd.contrib", "backward_hawkesll backward_index_copy backward_quadratic",
        "MXNet's internal backward operators, which its nd functions expose without their inputs (a call "
        "fails in MXNet too)", "gradients come from autograd (jax.vjp of the forward)")


def missing_reason(dotted: str) -> str:
    """Why MXNet's ``dotted`` (``mxnet.rtc``, ``mxnet.contrib.onnx``, ``mxnet.io.MXDataIter``) has no
    counterpart here: its refusal's reason and what to use instead, or a general sentence.

    >>> missing_reason('mxnet.rtc').startswith('mx.rtc is not supported: CUDA run-time compilation')
    True
    """
    parts = dotted.split(".")
    if parts and parts[0] in ("mxnet", "framework"):
        parts[0] = "mx"
    module, _, name = ".".join(parts).rpartition(".")
    return refusal_message(module, name) or (
        f"framework has no counterpart of {dotted} (the refused names and their replacements: "
        "framework/_refusals.py)")
