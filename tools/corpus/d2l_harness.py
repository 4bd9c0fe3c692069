"""One section in one process: ``python d2l_harness.py JOB.json`` (run by ``tools/corpus/d2l.py``).

The job names the engine (``framework``: the cells are ported as one module by ``framework.port`` and
run under ``framework.run``'s import hook, which ports ``d2l/mxnet.py`` when a cell imports it;
``mxnet``: the cells run as written on MXNet 1.9.1), the cells, the reductions and the data folder.
Each cell runs in one ``__main__`` namespace, as a notebook kernel runs them; its last expression is
shown as IPython would show it (its ``repr`` printed). One JSON line per cell is appended to the
results file as soon as the cell ends, so a section killed by its timeout keeps what it did.

Instrumentation, the same for both engines (nothing in d2l's text is changed):
- the network is closed (``socket``); ``d2l.download`` serves files from the data folder by the
  file name of the URL, and otherwise raises ``NetworkNeeded``;
- the engine's ``gluon.data.DataLoader`` yields at most ``batches`` batches (and says so in ``len``);
- ``d2l.ProgressBoard.draw`` and ``d2l.Animator.add`` are wrapped to record the plotted series;
- with a seed in the job, Python's, NumPy's and the engine's random streams are seeded first.

Only the standard library is imported here before the engine: this file runs under MXNet's Python too.
"""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import traceback

CELL_MARK = "# d2l-runner: cell {}"


class NetworkNeeded(ConnectionError):
    """A cell asked for something that only the network has (a download not in the data folder)."""


# ------------------------------------------------------------------------------------------ network
def close_network() -> None:
    """Internet sockets cannot connect (local ones can: worker processes talk over AF_UNIX)."""
    def refuse(*args, **kwargs):
        raise NetworkNeeded(f"the network is closed by the d2l runner (asked for {args[:1]!r})")

    connect = socket.socket.connect

    def connect_local(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            refuse(address)
        return connect(self, address)

    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
    socket.socket.connect = connect_local  # type: ignore[method-assign]


def _file_index(data_dir: str | None) -> dict[str, str]:
    index: dict[str, str] = {}
    if data_dir and os.path.isdir(data_dir):
        for root, _, files in os.walk(data_dir, followlinks=True):
            for f in files:
                index.setdefault(f, os.path.join(root, f))
                folder = os.path.basename(root)
                index.setdefault(f"{folder}/{f}", os.path.join(root, f))
    return index


# ------------------------------------------------------------------------------------------ metrics
class Recorder:
    def __init__(self) -> None:
        self.series: dict[str, list[list[float]]] = {}

    def add(self, label: str, x, y) -> None:
        try:
            self.series.setdefault(str(label), []).append([float(x), float(y)])
        except Exception:  # a value that is no number: not a metric
            pass

    def take(self) -> dict[str, list[list[float]]]:
        out, self.series = self.series, {}
        return out


RECORDER = Recorder()


def instrument_d2l(module, files: dict[str, str]) -> None:
    """Serve downloads from the data folder and record plotted series (module: ``d2l.mxnet``)."""
    original = getattr(module, "download", None)
    if original is not None:
        def download(url, folder="../data", sha1_hash=None, _original=original):
            real = url if url.startswith("http") else module.DATA_HUB[url][0]
            name = real.split("/")[-1]
            if name not in files:
                raise NetworkNeeded(f"{name} is not in the data folder (d2l downloads it from {real})")
            os.makedirs(folder, exist_ok=True)
            target = os.path.join(folder, name)
            if not os.path.exists(target):
                shutil.copyfile(files[name], target)
            return _original(url, folder, sha1_hash)

        module.download = download
    board = getattr(module, "ProgressBoard", None)
    if board is not None:
        draw = board.draw

        def draw_recorded(self, x, y, label, every_n=1, _draw=draw):
            RECORDER.add(label, x, y)
            return _draw(self, x, y, label, every_n)

        board.draw = draw_recorded
    animator = getattr(module, "Animator", None)
    if animator is not None:
        init, add = animator.__init__, animator.add

        def init_recorded(self, *args, _init=init, **kwargs):
            legend = kwargs.get("legend", args[2] if len(args) > 2 else None)
            self._runner_legend = list(legend or [])
            _init(self, *args, **kwargs)

        def add_recorded(self, x, y, _add=add):
            ys = y if hasattr(y, "__len__") else [y]
            xs = x if hasattr(x, "__len__") else [x] * len(ys)
            legend = getattr(self, "_runner_legend", [])
            for i, (a, b) in enumerate(zip(xs, ys, strict=False)):
                if a is not None and b is not None:
                    RECORDER.add(legend[i] if i < len(legend) else f"y{i}", a, b)
            return _add(self, x, y)

        animator.__init__ = init_recorded
        animator.add = add_recorded


def serve_mxnet_datasets(files: dict[str, str]) -> list[str]:
    """MXNet's gluon data sets download their files by URL; a file the data folder holds (as
    ``<data set>/<file>``, e.g. ``fashion-mnist/train-images-idx3-ubyte.gz``) is served from there
    instead. Its SHA-1 is not checked: MXNet's published files and other copies of the same data
    (Fashion-MNIST's original ``.gz`` files) differ in their gzip wrappers only."""
    import mxnet.gluon.data.vision.datasets as vision

    fetch = vision.download

    def download(url, path=None, overwrite=False, sha1_hash=None, **kwargs):
        # by the data set's folder and file name (MNIST and Fashion-MNIST share their file names)
        name = "/".join(url.split("/")[-2:])
        if name in files:
            target = os.path.join(path, name) if path and os.path.isdir(path) else (path or name)
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            if not os.path.exists(target):
                shutil.copyfile(files[name], target)
            return target
        return fetch(url, path=path, overwrite=overwrite, sha1_hash=sha1_hash, **kwargs)

    vision.download = download
    return ["mxnet gluon data set files served from the data folder by name"]


class _D2LHook:
    """Instruments ``d2l.mxnet`` right after it is executed, whichever finder loads it."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def find_spec(self, fullname, path, target=None):
        if fullname != "d2l.mxnet":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader, files = spec.loader, self.files
        exec_module = loader.exec_module

        def exec_instrumented(module):
            exec_module(module)
            instrument_d2l(module, files)

        loader.exec_module = exec_instrumented
        return spec


# ------------------------------------------------------------------------------------------ libraries
def library_compat() -> list[str]:
    """Keywords that the library versions d2l pins accepted and newer ones removed as no-ops; dropped
    where given, the same on both engines. Returns what was installed."""
    done = []
    try:
        import matplotlib.axes
        import matplotlib.pyplot as plt
    except ImportError:
        return done
    import inspect

    if "use_line_collection" not in inspect.signature(matplotlib.axes.Axes.stem).parameters:
        axes_stem, plt_stem = matplotlib.axes.Axes.stem, plt.stem

        def stem_axes(self, *args, use_line_collection=True, **kwargs):
            return axes_stem(self, *args, **kwargs)

        def stem_plt(*args, use_line_collection=True, **kwargs):
            return plt_stem(*args, **kwargs)

        matplotlib.axes.Axes.stem, plt.stem = stem_axes, stem_plt
        done.append("matplotlib stem(use_line_collection=) accepted and ignored (a no-op since 3.6)")
    return done


# ------------------------------------------------------------------------------------------ loaders
def limit_loaders(loader_cls, batches: int) -> None:
    iterate, length = loader_cls.__iter__, loader_cls.__len__

    def limited_iter(self):
        it = iterate(self)
        for n, batch in enumerate(it):
            yield batch
            if n + 1 >= batches:
                break
        close = getattr(it, "close", None)
        if close is not None:
            close()

    def limited_len(self):
        return min(length(self), batches)

    loader_cls.__iter__ = limited_iter
    loader_cls.__len__ = limited_len


# ------------------------------------------------------------------------------------------ cells
def seed_everything(engine: str, seed: int) -> str:
    """Seed every random stream a section may draw from before its first cell: Python's ``random``,
    NumPy's global generator and the engine's own (``mx.random.seed``; on framework the same call
    through the engine's ``random`` module). The same seed gives different numbers on the two engines
    (different generators): seeds make each engine's runs repeatable and several of them comparable as
    samples."""
    import random

    import numpy

    random.seed(seed)
    numpy.random.seed(seed)
    if engine == "framework":
        import framework as mx
    else:
        import mxnet as mx
    mx.random.seed(seed)
    return f"random streams seeded with {seed} (random, numpy.random, mx.random)"


def _display(value) -> None:
    if value is not None:
        text = repr(value)
        print(text if len(text) < 2000 else text[:2000] + "...")


def _system(command: str) -> None:
    out = subprocess.run(command, shell=True, capture_output=True, text=True)
    print(out.stdout + out.stderr, end="")


def compile_cell(source: str, filename: str, first_line: int, instrument=None):
    """A cell's code: its last expression displayed; ``instrument`` (``framework.port.operators``'s,
    for the framework's sections) applied to the tree as ``framework.run`` applies it to a module."""
    tree = ast.parse(source, filename)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        call = ast.Call(func=ast.Name("_d2l_display", ast.Load()), args=[last.value], keywords=[])
        tree.body[-1] = ast.Expr(call)
        ast.copy_location(tree.body[-1], last)
        ast.fix_missing_locations(tree)
    if instrument is not None:
        tree = instrument(tree)
    ast.increment_lineno(tree, first_line - 1)
    return compile(tree, filename, "exec", dont_inherit=True)


def port_cells(cells: list[dict], path: str) -> tuple[list[str], list[str]]:
    """Port the section as one module (the porter needs the whole module's imports); split it back."""
    from framework.port import Report, port_source

    text = "".join(CELL_MARK.format(c["index"]) + "\n" + c["source"] + "\n" for c in cells)
    report = Report()
    notes = []
    try:
        ported = port_source(text, path, report)
    except Exception as e:  # a cell that is no valid Python: port cell by cell
        notes.append(f"the section does not parse as one module ({type(e).__name__}); ported cell by cell")
        out = []
        for c in cells:
            try:
                out.append(port_source(c["source"], path, report))
            except Exception:
                out.append(c["source"])
        return out, notes
    for u in report.unported:
        notes.append(f"not ported: {u.code} ({u.why}; {u.fix})")
    parts: dict[int, list[str]] = {}
    current = -1
    for line in ported.split("\n"):
        if line.startswith("# d2l-runner: cell "):
            current = int(line.rsplit(" ", 1)[1])
            parts[current] = []
        else:
            parts.setdefault(current, []).append(line)
    head = parts.pop(-1, [])  # imports the porter put above the first cell
    out = []
    for c in cells:
        lines = parts.get(c["index"], [])
        if head:
            lines, head = head + lines, []
        out.append("\n".join(lines))
    return out, notes


def _frames(tb) -> list[list]:
    return [[f.filename, f.lineno, f.name] for f in traceback.extract_tb(tb)]


def _chain(e: BaseException) -> list[BaseException]:
    out, seen = [], set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def classify(e: BaseException) -> str:
    names = {type(x).__name__ for x in _chain(e)}
    for x in _chain(e):
        mod = type(x).__module__ or ""
        if isinstance(x, NetworkNeeded) or mod.startswith(("requests", "urllib3")) or \
                type(x).__name__ in ("URLError", "HTTPError", "gaierror") or \
                "network is closed by the d2l runner" in str(x):
            return "network"
    if "DatasetNotFoundError" in names:  # a gluon data set that MXNet would download
        return "network"
    if any("pretrained weights" in str(x) for x in _chain(e)):  # model-zoo weights MXNet would download
        return "network"
    if names & {"FileNotFoundError", "DataFileError"}:
        return "data"
    return "framework"


class _Tee(io.TextIOBase):
    def __init__(self, stream) -> None:
        self.stream, self.buffer_ = stream, []

    def write(self, s):
        self.buffer_.append(s)
        return self.stream.write(s)

    def flush(self):
        self.stream.flush()

    def tail(self, n: int = 600) -> str:
        return "".join(self.buffer_)[-n:]


def main(job_path: str) -> int:
    with open(job_path) as fh:
        job = json.load(fh)
    close_network()
    files = _file_index(job.get("data_dir"))
    sys.path.insert(0, job["d2l_root"])
    sys.meta_path.insert(0, _D2LHook(files))
    out = open(job["results"], "a", buffering=1)
    started = time.perf_counter()
    engine = job["engine"]
    cells = job["cells"]
    context = instrument = None
    if engine == "framework":
        import framework.run
        from framework.gluon.data import DataLoader
        from framework.port.operators import instrument
        sources, notes = port_cells(cells, job["section"])
        context = framework.run.activated()
        context.__enter__()
        sys.meta_path.remove(next(f for f in sys.meta_path if isinstance(f, _D2LHook)))
        sys.meta_path.insert(0, _D2LHook(files))
    else:
        from mxnet.gluon.data import DataLoader
        sources, notes = [c["source"] for c in cells], []
        notes += serve_mxnet_datasets(files)
    limit_loaders(DataLoader, job["batches"])
    notes += library_compat()
    if job.get("seed") is not None:
        notes.append(seed_everything(engine, job["seed"]))
    out.write(json.dumps({"event": "start", "engine": engine, "port_notes": notes,
                          "setup_s": time.perf_counter() - started}) + "\n")
    main_module = type(sys)("__main__")
    main_module.__dict__.update(_d2l_display=_display, _d2l_system=_system, __builtins__=__builtins__)
    sys.modules["__main__"] = main_module
    for cell, source in zip(cells, sources, strict=False):
        record = {"event": "cell", "index": cell["index"], "line": cell["line"]}
        tee = _Tee(sys.stdout)
        saved = sys.stdout
        sys.stdout = tee
        t0 = time.perf_counter()
        try:
            code = compile_cell(source, job["section"], cell["line"], instrument)
            exec(code, main_module.__dict__)
            record["status"] = "ok"
        except BaseException as e:  # noqa: BLE001 -- every failure is recorded, as a kernel would show it
            if isinstance(e, KeyboardInterrupt):
                raise
            record.update(status="error", kind=classify(e), error=type(e).__name__,
                          message=str(e)[:1500], frames=_frames(e.__traceback__))
        finally:
            sys.stdout = saved
        record["seconds"] = time.perf_counter() - t0
        record["stdout_tail"] = tee.tail()
        record["series"] = RECORDER.take()
        out.write(json.dumps(record) + "\n")
    out.write(json.dumps({"event": "end", "seconds": time.perf_counter() - started}) + "\n")
    out.close()
    sys.stdout.flush()
    os._exit(0)  # worker pools and compiled caches need no orderly teardown


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
