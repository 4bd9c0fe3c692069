"""Run "Dive into Deep Learning" (d2l-en, the MXNet tab) section by section on framework or on MXNet.

    python tools/corpus/d2l.py [--repo GIT_DIR] [--engine framework|mxnet] [--data DIR]
                               [--sections GLOB ...] [--jobs 2] [--timeout 900] [--out DIR]
    python tools/corpus/d2l.py --summary DIR            # print the summary of a finished run again
    python tools/corpus/d2l.py --compare FW_DIR MX_DIR  # final losses side by side
    python tools/corpus/d2l.py --sections GLOB --seeds 0 1 2 --out DIR  # seeded runs, DIR/seed0 ...
    python tools/corpus/d2l.py --compare 'FW/seed*' 'MX/seed*'  # means of seeded runs side by side

Each section's MXNet cells (d2lbook's tab rules: ``d2l_extract``) run in order in a fresh process
(``d2l_harness``), with d2l's helper library ``d2l/mxnet.py`` taken unchanged from the snapshot and, on
framework, imported through ``framework.run``'s hook. Reductions are mechanical and recorded per cell:
epoch counts above ``--epochs`` (default 1) are lowered, and every ``gluon.data.DataLoader`` yields at
most ``--batches`` (default 4) batches. Failures are classified:

- ``network``: the cell needs a download that the data folder does not hold (or any other connection);
- ``data``: a local file the section reads is missing;
- ``framework``: anything else (the traceback's innermost frame in framework, d2l or the cell is named);

and a failure caused by an earlier failed cell (it reads a name that cell should have bound, directly or
through a function an intervening cell defined over it) takes that cell's class, marked ``(after)``.
The summary prints per chapter ok/total, the cells that need no network, and each failure's cause with
``file:line``.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from d2l_compare import compare, load, load_all, loss_rows  # noqa: E402
from d2l_extract import Section, Snapshot, sections  # noqa: E402
from d2l_prepare import names_bound, names_read, prepare  # noqa: E402

DEFAULT_REPO = "/work/.mirror/d2l-ai+d2l-en/repo"


def _materialise(snapshot: Snapshot, root: Path) -> Path:
    """d2l's helper package (``d2l/__init__.py``, ``d2l/mxnet.py``) as the snapshot has it, and the
    book's raster images (``img/*.jpg|png``, which cells read as ``../img/...``) where the snapshot holds
    them."""
    pkg = root / "lib" / "d2l"
    pkg.mkdir(parents=True, exist_ok=True)
    for name in ("__init__.py", "mxnet.py"):
        (pkg / name).write_text(snapshot.read(f"d2l/{name}"))
    img = root / "work" / "img"
    img.mkdir(parents=True, exist_ok=True)
    for path in snapshot.files:
        wanted = path.startswith("img/") and path.endswith((".jpg", ".png"))
        if wanted and not (root / "work" / path).exists():
            data = snapshot.read_bytes(path)
            if data is not None:
                (root / "work" / path).write_bytes(data)
    return root / "lib"


def _engine_env(args, root: Path) -> dict[str, str]:
    env = dict(os.environ)
    extra = [p for p in (args.extra_path or "").split(os.pathsep) if p]
    if args.engine == "framework":
        extra.append(str(ROOT))
        home = root / "framework_home"
        env["FRAMEWORK_HOME"] = str(home)
        if args.data and (Path(args.data) / "fashion-mnist").is_dir():
            target = home / "datasets" / "fashion-mnist"
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                shutil.copytree(Path(args.data) / "fashion-mnist", target)
        env.setdefault("JAX_PLATFORMS", "cpu")
        # the network is closed: a data set the data folder lacks fails at once, as on a machine without
        # one, instead of retrying each download mirror with back-off (15-25 s a cell)
        env["FRAMEWORK_OFFLINE"] = "1"
    else:
        home = root / "mxnet_home"
        env["MXNET_HOME"] = str(home)
        if args.data and (Path(args.data) / "fashion-mnist").is_dir():
            target = home / "datasets" / "fashion-mnist"
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                shutil.copytree(Path(args.data) / "fashion-mnist", target)
    env["PYTHONPATH"] = os.pathsep.join(extra + [p for p in [env.get("PYTHONPATH")] if p])
    env["MPLBACKEND"] = "Agg"
    env["PYTHONHASHSEED"] = "0"
    return env


def _run_section(args, section: Section, root: Path, lib: Path, env: dict, python: str) -> dict:
    slug = section.name.replace("/", "__")
    work = root / "work" / section.chapter
    work.mkdir(parents=True, exist_ok=True)
    results = root / "results" / f"{slug}.jsonl"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.unlink(missing_ok=True)
    cells = []
    for c in section.cells:
        src, notes = prepare(c.source, args.epochs)
        cells.append({"index": c.index, "line": c.line, "source": src, "notes": notes})
    job = {"engine": args.engine, "section": section.path, "cells": cells, "results": str(results),
           "d2l_root": str(lib), "data_dir": args.data, "batches": args.batches, "seed": args.seed}
    job_path = root / "jobs" / f"{slug}.json"
    job_path.parent.mkdir(parents=True, exist_ok=True)
    job_path.write_text(json.dumps(job))
    log = root / "logs" / f"{slug}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.Popen(["nice", "-n", str(args.nice), python, str(HERE / "d2l_harness.py"),
                                 str(job_path)], cwd=work, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=args.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
            timed_out = True
    wall = time.perf_counter() - t0
    return _section_record(section, cells, results, log, rc, timed_out, wall)


def _section_record(section, cells, results: Path, log: Path, rc, timed_out, wall) -> dict:
    done = {}
    port_notes: list[str] = []
    if results.exists():
        for line in results.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("event") == "cell":
                done[rec["index"]] = rec
            elif rec.get("event") == "start":
                port_notes = rec.get("port_notes", [])
    out_cells = []
    tainted: dict[str, tuple[int, str]] = {}  # name -> (cell, kind) of a failed cell that binds it
    text = log.read_text(errors="replace") if log.exists() else ""
    log_lines = [x for x in text.splitlines() if x.strip()]
    log_last = log_lines[-1][:300] if log_lines else ""
    for c in cells:
        rec = done.get(c["index"])
        if rec is None:
            why = "timeout" if timed_out else "crash"
            rec = {"index": c["index"], "line": c["line"], "status": "error", "kind": why,
                   "error": why, "message": f"the section's process {why} (rc {rc})" +
                   ("" if timed_out else f": {log_last}"), "frames": []}
        rec["notes"] = c["notes"]
        if rec["status"] == "error" and rec.get("kind") == "data" and \
                "pretrained weights" in rec.get("message", ""):
            rec["kind"] = "network"  # model-zoo weights that MXNet would download
        if rec["status"] == "error":
            origin = next((tainted[n] for n in sorted(names_read(c["source"])) if n in tainted), None)
            if origin is not None and rec["kind"] not in ("timeout", "crash"):
                rec["kind"], rec["after"], rec["root"] = origin[1], origin[0], origin[2]
            root = rec.get("root") or {"error": rec.get("error"), "message": rec.get("message"),
                                       "where": _where(rec, section.path)}
            for n in names_bound(c["source"]):
                tainted.setdefault(n, (rec.get("after", c["index"]), rec["kind"], root))
        else:
            # a cell that ran but read a name a failed cell should have bound (a function defined over
            # it) passes the failure on to what it binds
            origin = next((tainted[n] for n in sorted(names_read(c["source"])) if n in tainted), None)
            for n in names_bound(c["source"]):
                if origin is None:
                    tainted.pop(n, None)
                else:
                    tainted[n] = origin
        out_cells.append(rec)
    return {"section": section.path, "chapter": section.chapter, "cells": out_cells, "rc": rc,
            "timed_out": timed_out, "wall_s": wall, "port_notes": port_notes}


_TRANSPARENT = ("/framework/run.py", "/framework/np/eager/")


def _where(rec: dict, section: str) -> str:
    """file:line of a failure: the innermost frame in framework, else in d2l, else in the cell. The
    frames of ``framework.run``'s hook and of ``framework.np.eager`` (which applies the operator the
    code wrote: a list's ``IndexError`` raised there is the cell's) are not the framework's."""
    frames = rec.get("frames") or []
    for test in (lambda f: "/framework/" in f and not any(p in f for p in _TRANSPARENT),
                 lambda f: f.endswith("d2l/mxnet.py"),
                 lambda f: f == section):
        for f, line, _ in reversed(frames):
            if test(f):
                short = f.split(str(ROOT) + "/", 1)[-1] if str(ROOT) in f else f
                short = "d2l/mxnet.py" if f.endswith("d2l/mxnet.py") else short
                return f"{short}:{line}"
    if frames:
        return f"{frames[-1][0]}:{frames[-1][1]}"
    return f"{section}:{rec['line']}"


def _reference_failures(reference: list[dict] | None) -> set[tuple[str, int]]:
    """(section, line) of the cells that fail under the reference run (MXNet 1.9.1) for any reason but
    the network: on this machine they need what neither engine has (GPUs)."""
    out = set()
    for sec in reference or []:
        for rec in sec["cells"]:
            if rec["status"] != "ok" and rec["kind"] not in ("network", "timeout", "crash"):
                out.add((sec["section"], rec["line"]))
    return out


def summarise(records: list[dict], out=sys.stdout, reference: list[dict] | None = None) -> dict:
    per_chapter: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    causes: dict[tuple, list[str]] = collections.defaultdict(list)
    mx_fails = _reference_failures(reference)
    for sec in records:
        for rec in sec["cells"]:
            ch = per_chapter[sec["chapter"]]
            ch["total"] += 1
            if rec["status"] == "ok":
                ch["ok"] += 1
            else:
                ch[rec["kind"]] += 1
                if rec["kind"] != "network" and (sec["section"], rec["line"]) in mx_fails:
                    ch["mxnet too"] += 1
                if rec["kind"] != "network":
                    root = rec.get("root") or {"error": rec.get("error"), "message": rec.get("message"),
                                               "where": _where(rec, sec["section"])}
                    key = (rec["kind"], root["error"], (root["message"] or "").split("\n")[0][:160],
                           root["where"])
                    after = " (after)" if "after" in rec else ""
                    causes[key].append(f"{sec['section']}:{rec['line']}{after}")
    total = collections.Counter()
    mx_col = f" {'mx fail':>7} {'ok of runnable':>14}" if reference is not None else ""
    print(f"{'chapter':52} {'ok':>5} {'total':>5} {'net':>4} {'offline ok':>10}{mx_col}", file=out)

    def line(name: str, c: collections.Counter) -> str:
        offline = c["total"] - c["network"]
        pct = 100.0 * c["ok"] / offline if offline else 100.0
        text = f"{name:52} {c['ok']:5} {c['total']:5} {c['network']:4} {pct:9.1f}%"
        if reference is not None:
            runnable = offline - c["mxnet too"]
            text += f" {c['mxnet too']:7} {100.0 * c['ok'] / runnable if runnable else 100.0:13.1f}%"
        return text

    for name in sorted(per_chapter):
        total.update(per_chapter[name])
        print(line(name, per_chapter[name]), file=out)
    print(line("TOTAL", total), file=out)
    offline = total["total"] - total["network"]
    kinds = ", ".join(f"{k} {total[k]}" for k in ("framework", "data", "timeout", "crash") if total[k])
    also = f"; {total['mxnet too']} of them fail under MXNet 1.9.1 on this machine too" \
        if reference is not None else ""
    print(f"cells {total['total']} in {len(records)} sections: ok {total['ok']}, need the network "
          f"{total['network']}, other failures {offline - total['ok']} ({kinds or 'none'}){also}", file=out)
    if causes:
        print("\nfailures (cells that need no network), by cause:", file=out)
        for key, where in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            kind, err, msg, loc = key
            print(f"  [{len(where)}] {kind}: {err}: {msg}\n      at {loc}\n      cells: " +
                  ", ".join(where[:6]) + (" ..." if len(where) > 6 else ""), file=out)
    return {"total": dict(total), "chapters": {k: dict(v) for k, v in per_chapter.items()}}


def reclassify(root: Path) -> None:
    """Rebuild a finished run's records from its jobs and raw results (after the classification rules
    changed); times and exit statuses are kept."""
    old = {r["section"]: r for r in load(root)}
    records = []
    for sec_path, rec in old.items():
        slug = sec_path[:-3].replace("/", "__")
        job = json.loads((root / "jobs" / f"{slug}.json").read_text())
        section = Section(sec_path, [])
        records.append(_section_record(section, job["cells"], root / "results" / f"{slug}.jsonl",
                                       root / "logs" / f"{slug}.log", rec["rc"], rec["timed_out"],
                                       rec["wall_s"]))
    meta = json.loads((root / "summary.json").read_text())
    meta["sections"] = records
    (root / "summary.json").write_text(json.dumps(meta))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", default=DEFAULT_REPO, help="git directory of a d2l-en snapshot")
    p.add_argument("--rev", default="HEAD")
    p.add_argument("--engine", choices=("framework", "mxnet"), default="framework")
    p.add_argument("--python", help="the sections' Python (default: this one; mxnet: /tmp/mx/bin/python)")
    p.add_argument("--extra-path", help="folders put on the sections' PYTHONPATH (pandas, IPython, ...)")
    p.add_argument("--data", help="folder that serves d2l's data sets (found by file name; "
                                  "fashion-mnist/ for gluon's FashionMNIST)")
    p.add_argument("--sections", nargs="*", default=[], help="glob patterns over section paths")
    p.add_argument("--jobs", type=int, default=2, help="sections at once (at most 2)")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per section")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batches", type=int, default=4)
    p.add_argument("--nice", type=int, default=10)
    p.add_argument("--seeds", type=int, nargs="+", metavar="S",
                   help="run the selection once per seed (random, numpy.random and mx.random seeded before "
                        "the first cell), into OUT/seedS each; compare with --compare 'FW/seed*' 'MX/seed*'")
    p.add_argument("--out", help="results folder (default /tmp/d2l_runs/ENGINE)")
    p.add_argument("--reclassify", metavar="DIR", nargs="+", help="re-derive finished runs' failure classes")
    p.add_argument("--summary", metavar="DIR", nargs="+",
                   help="print the summary of finished runs (later runs' sections win)")
    p.add_argument("--reference", metavar="MX_DIR[,MX_DIR]", help="finished MXNet runs: cells failing "
                                                                  "there too are counted apart")
    p.add_argument("--compare", nargs=2, metavar=("FW_DIRS", "MX_DIRS"),
                   help="final losses side by side (comma-separated folders or globs: the mean of several "
                        "seeded runs)")
    p.add_argument("--write-results", nargs=3, metavar=("FW_DIR", "MX_DIR", "OUT"),
                   help="write the numbers of two finished runs as Markdown (notes/d2l_results.md)")
    args = p.parse_args(argv)
    for d in args.reclassify or []:
        reclassify(Path(d))
    if args.reclassify and not args.summary:
        return 0
    reference = load_all([Path(r) for r in args.reference.split(",")]) if args.reference else None
    if args.summary:
        summarise(load_all([Path(d) for d in args.summary]), reference=reference)
        return 0
    if args.compare:
        return compare(args.compare[0], args.compare[1])
    if args.write_results:
        return write_results(*map(Path, args.write_results))
    if args.jobs < 1 or args.jobs > 2:
        p.error("--jobs must be 1 or 2 (the machine is shared)")
    python = args.python or ("/tmp/mx/bin/python" if args.engine == "mxnet" else sys.executable)
    base = Path(args.out or f"/tmp/d2l_runs/{args.engine}").resolve()
    snapshot = Snapshot(args.repo, args.rev)
    secs, default_tab = sections(snapshot)
    if args.sections:
        secs = [s for s in secs if any(fnmatch.fnmatch(s.path, g) or g in s.path for g in args.sections)]
    for seed in args.seeds or [None]:
        args.seed = seed
        run_sections(args, snapshot, default_tab, secs, base if seed is None else base / f"seed{seed}",
                     python, reference, home=base)
    return 0


def run_sections(args, snapshot: Snapshot, default_tab: str, secs: list, root: Path, python: str,
                 reference: list[dict] | None, *, home: Path) -> None:
    """Run ``secs`` (one process each, ``args.jobs`` at once) into ``root`` and print the summary; the
    engine's home (data sets, port and compile caches) is under ``home`` (shared by seeded runs)."""
    root.mkdir(parents=True, exist_ok=True)
    lib = _materialise(snapshot, root)
    env = _engine_env(args, home)
    print(f"d2l-en {snapshot.commit[:12]} (default tab {default_tab}): {len(secs)} sections, "
          f"{sum(len(s.cells) for s in secs)} MXNet cells; engine {args.engine} ({python}); epochs <= "
          f"{args.epochs}, batches per loader <= {args.batches}; {args.jobs} at once"
          + ("" if args.seed is None else f"; seed {args.seed}"), flush=True)
    records: dict[str, dict] = {r["section"]: r for r in load(root)}
    lock = threading.Lock()
    queue = list(secs)
    t_start = time.perf_counter()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                sec = queue.pop(0)
            rec = _run_section(args, sec, root, lib, env, python)
            ok = sum(c["status"] == "ok" for c in rec["cells"])
            with lock:
                records[sec.path] = rec
                print(f"  {sec.path}: {ok}/{len(rec['cells'])} ok, {rec['wall_s']:.1f} s"
                      + (" (timeout)" if rec["timed_out"] else ""), flush=True)
                ordered = [records[k] for k in sorted(records)]
                (root / "summary.json").write_text(json.dumps(
                    {"commit": snapshot.commit, "engine": args.engine, "seed": args.seed,
                     "sections": ordered}))

    threads = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t_start
    ran = [records[s.path] for s in secs]
    with open(root / "runs.jsonl", "a") as fh:
        record = {"sections": len(ran), "wall_s": wall, "jobs": args.jobs, "load_avg": os.getloadavg(),
                  "finished": time.strftime("%Y-%m-%d %H:%M")}
        fh.write(json.dumps(record) + "\n")
    print(f"wall time {wall:.0f} s for {len(ran)} sections (sum of section times "
          f"{sum(r['wall_s'] for r in ran):.0f} s); load average {os.getloadavg()[0]:.2f}")
    summarise(ran, reference=reference)


def write_results(fw: Path, mx: Path, out: Path) -> int:
    """notes/d2l_results.md: numbers only (per-chapter counts, wall times, final losses side by side)."""
    fw_rec = load_all([Path(d) for d in str(fw).split(",")])
    mx_rec = load_all([Path(d) for d in str(mx).split(",")])
    buf = io.StringIO()
    buf.write("# d2l-en (MXNet tab) on framework and on MXNet 1.9.1\n\n")
    meta = json.loads((Path(str(fw).split(",")[0]) / "summary.json").read_text())
    buf.write(f"Snapshot {meta['commit']}; epochs <= 1, batches per loader <= 4; written by "
              "`python tools/corpus/d2l.py --write-results FW MX OUT`.\n\n## Cells (framework run)\n\n```\n")
    summarise(fw_rec, out=buf, reference=mx_rec)
    buf.write("```\n\n## Cells (MXNet 1.9.1 run)\n\n```\n")
    summarise(mx_rec, out=buf)
    buf.write("```\n\n## Wall time (seconds, sum of section processes)\n\n"
              "| chapter | framework | MXNet 1.9.1 | ratio |\n| --- | --- | --- | --- |\n")
    per = collections.defaultdict(lambda: [0.0, 0.0])
    for i, recs in enumerate((fw_rec, mx_rec)):
        for sec in recs:
            per[sec["chapter"]][i] += sec["wall_s"]
    tot = [0.0, 0.0]
    for ch in sorted(per):
        a, b = per[ch]
        tot[0] += a
        tot[1] += b
        buf.write(f"| {ch} | {a:.0f} | {b:.0f} | {a / b if b else float('nan'):.2f} |\n")
    ratio = tot[0] / tot[1] if tot[1] else float("nan")
    buf.write(f"| TOTAL | {tot[0]:.0f} | {tot[1]:.0f} | {ratio:.2f} |\n\n")
    buf.write("## Final training loss (mean over the last epoch's plotted points)\n\n"
              "| section:line:series | framework first | framework final | MXNet first | MXNet final "
              "| rel. diff |\n| --- | --- | --- | --- | --- | --- |\n")
    fmt = lambda v, k: f"{v[k]:.4f}" if v else "-"  # noqa: E731
    for key, x, y, rel in loss_rows(fw_rec, mx_rec):
        diff = "" if rel is None else f"{rel * 100:+.1f}%"
        buf.write(f"| {key} | {fmt(x, 'first')} | {fmt(x, 'final')} | {fmt(y, 'first')} | "
                  f"{fmt(y, 'final')} | {diff} |\n")
    out.write_text(buf.getvalue())
    print(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
