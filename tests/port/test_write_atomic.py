"""``python -m framework.port --write`` is all or nothing: a kill, a full disk or an error leaves every
file original or fully ported; symlinks, hard links and special files are skipped and listed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap

from framework.port.__main__ import main

SRC = "import mxnet as mx\n\nx = mx.nd.ones(2)  # keep\nprint(x.asnumpy())\n"
PORTED = "import framework as mx\n\nx = mx.nd.ones(2)  # keep\nprint(mx.npx.asnumpy(x))\n"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT
    env["JAX_PLATFORMS"] = "cpu"
    return env


# The SIGKILL trials run in one process that imports the porter once and forks a child per trial: each
# child runs `--write` over a fresh 50-file tree and is killed (by itself at write step N, or by the
# parent at a random moment); the parent then reads every file back.
_KILL_DRIVER = textwrap.dedent(r'''
    import json, os, random, shutil, signal, sys, time
    from framework.port import port_source
    from framework.port.__main__ import main
    base = sys.argv[1]
    rng = random.Random(int(sys.argv[2]))
    heads = {f"m{i:02d}.py": "import mxnet as mx\nx%d = mx.nd.ones(%d)\nprint(x%d.asnumpy())\n"
             % (i, i + 1, i) for i in range(50)}
    pads = {k: "# pad\n" * rng.randint(0, 2000) for k in heads}  # comments: ported as they are
    sources = {k: heads[k] + pads[k] for k in heads}
    ported = {k: port_source(heads[k]) + pads[k] for k in heads}
    # the fast porter path: the children look the ported text up (the porter itself is tested elsewhere);
    # everything from collecting the files to the last rename is the real --write
    import framework.port.__main__ as cli
    by_source = {sources[k]: ported[k] for k in sources}
    def fast(source, path, report):
        report.files += 1
        report.changed.append(path)
        return by_source[source]
    cli.port_source = fast
    def fresh():
        tree = os.path.join(base, "tree")
        shutil.rmtree(tree, ignore_errors=True)
        os.makedirs(tree)
        for k, v in sources.items():
            with open(os.path.join(tree, k), "w") as f:
                f.write(v)
        return tree
    def child(tree, kill_at):
        sys.stdout = open(os.devnull, "w")
        os._exit(main([tree, "--write", "--_kill-at", str(kill_at)]))
    def check(tree):
        states = []
        for k in sources:
            text = open(os.path.join(tree, k)).read()
            states.append("orig" if text == sources[k] else "ported" if text == ported[k] else "BROKEN")
        return states
    # one clean run: its duration spans the timed kills; 3 write steps per file
    tree = fresh(); t0 = time.monotonic(); pid = os.fork()
    if pid == 0:
        child(tree, -1)
    os.waitpid(pid, 0); duration = time.monotonic() - t0
    assert check(tree) == ["ported"] * 50, check(tree)
    trials = [("step", n) for n in sorted(rng.sample(range(1, 151), 14))]
    trials += [("time", rng.uniform(0.2, 1.0) * duration) for _ in range(10)]
    results = []
    for how, at in trials:
        tree = fresh()
        pid = os.fork()
        if pid == 0:
            child(tree, at if how == "step" else -1)
        if how == "time":
            time.sleep(at)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
        states = check(tree)
        leftovers = [n for n in os.listdir(tree) if n not in sources]
        results.append({"how": how, "at": at, "killed": os.WIFSIGNALED(status), "states": states,
                        "leftovers": leftovers})
    print(json.dumps(results))
''')


def test_sigkill_at_random_points_leaves_every_file_original_or_fully_ported(tmp_path):
    base = tempfile.mkdtemp(dir="/dev/shm") if os.path.isdir("/dev/shm") else str(tmp_path)  # fsync: cheap
    try:
        out = subprocess.run([sys.executable, "-c", _KILL_DRIVER, base, "34"], env=_env(),
                             capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert out.returncode == 0, out.stderr[-3000:]
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(results) >= 20
    for r in results:
        assert "BROKEN" not in r["states"], r
        if r["how"] == "step":  # killed inside the write: files before the kill point renamed, none after
            assert r["killed"], r
            n_ported = r["states"].count("ported")
            assert n_ported == max(0, r["at"] - 100), r
            assert r["states"] == ["ported"] * n_ported + ["orig"] * (50 - n_ported), r
        for name in r["leftovers"]:  # a killed write leaves at most its temporary files, never modules
            assert name.endswith(".port-tmp") and name.startswith("."), r
    mid = [r for r in results if r["how"] == "step" and 100 < r["at"] < 150]
    assert mid or any(r["how"] == "step" for r in results)


_FULL_DISK = textwrap.dedent(r'''
    import os, sys, json
    from framework.port.__main__ import main
    tree = sys.argv[1]
    os.makedirs(tree)
    sources = {}
    for i in range(20):
        sources[f"m{i:02d}.py"] = ("import mxnet as mx\nx = mx.nd.ones(2)\nprint(x.asnumpy())\n"
                                   + "#" * 3000 + "\n")
        with open(os.path.join(tree, f"m{i:02d}.py"), "w") as f:
            f.write(sources[f"m{i:02d}.py"])
    # fill the file system, leaving room for a few of the ported files only
    fd = os.open(os.path.join(tree, "filler.bin"), os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    os.ftruncate(fd, os.fstat(fd).st_size - 4 * 4096)
    os.close(fd)
    code = main([tree, "--write"])
    same = all(open(os.path.join(tree, k)).read() == v for k, v in sources.items())
    print(json.dumps({"code": code, "same": same, "names": sorted(os.listdir(tree))}))
''')


def test_full_disk_leaves_the_tree_untouched(tmp_path, capfd):
    """A 512 KiB tmpfs in a private mount namespace (``unshare -m``), filled before the write."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = (f"mount -t tmpfs -o size=512k tmpfs {mnt} && "
              f"{sys.executable} -c \"$DRIVER\" {mnt}/tree")
    out = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                         env={**_env(), "DRIVER": _FULL_DISK}, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] == 2 and result["same"], result
    assert result["names"] == sorted([f"m{i:02d}.py" for i in range(20)] + ["filler.bin"]), result
    assert "No space left on device" in out.stderr and "nothing was changed" in out.stderr
    assert "/tree/m" in out.stderr  # names the file


def _tree(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(SRC)
    return tree


def test_symlink_leaving_the_tree_is_skipped_unless_asked(tmp_path, capsys):
    tree = _tree(tmp_path)
    outside = tmp_path / "outside.py"
    outside.write_text(SRC)
    (tree / "link.py").symlink_to(outside)
    assert main([str(tree), "--write"]) == 0
    assert outside.read_text() == SRC and (tree / "a.py").read_text() == PORTED
    assert "skipped" in capsys.readouterr().out
    assert main([str(tree), "--write", "--follow-symlinks"]) == 0
    assert outside.read_text() == PORTED and (tree / "link.py").is_symlink()


def test_hard_linked_file_is_skipped_unless_asked_and_the_other_link_keeps_the_original(tmp_path, capsys):
    tree = _tree(tmp_path)
    backup = tmp_path / "backup.py"
    os.link(tree / "a.py", backup)
    assert main([str(tree), "--write"]) == 0
    assert (tree / "a.py").read_text() == SRC and "hard links" in capsys.readouterr().out
    assert main([str(tree), "--write", "--hard-links"]) == 0
    assert (tree / "a.py").read_text() == PORTED and backup.read_text() == SRC


def test_fifo_named_py_is_skipped_without_blocking(tmp_path):
    tree = _tree(tmp_path)
    os.mkfifo(tree / "x.py")
    out = subprocess.run([sys.executable, "-m", "framework.port", str(tree), "--write"], env=_env(),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "x.py: a FIFO (named pipe), not a regular file" in out.stdout
    assert (tree / "a.py").read_text() == PORTED and stat.S_ISFIFO(os.stat(tree / "x.py").st_mode)


def test_an_error_mid_tree_names_the_file_and_writes_nothing(tmp_path, capsys):
    tree = _tree(tmp_path)
    (tree / "b.py").write_text("import mxnet as mx\ndef (:\n")
    (tree / "c.py").write_text(SRC)
    assert main([str(tree), "--write"]) == 2
    err = capsys.readouterr().err
    assert "b.py" in err and "nothing was written" in err
    assert (tree / "a.py").read_text() == SRC and (tree / "c.py").read_text() == SRC


def test_mode_kept_and_backup(tmp_path):
    tree = _tree(tmp_path)
    os.chmod(tree / "a.py", 0o751)
    assert main([str(tree), "--write", "--backup"]) == 0
    assert (tree / "a.py").read_text() == PORTED and (tree / "a.py.orig").read_text() == SRC
    assert stat.S_IMODE(os.stat(tree / "a.py").st_mode) == 0o751
    shutil.copy(tree / "a.py.orig", tree / "a.py")
    assert main([str(tree), "--write", "--backup"]) == 2  # a backup is never overwritten
    assert (tree / "a.py").read_text() == SRC
