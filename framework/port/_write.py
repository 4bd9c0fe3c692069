"""``--write``, all or nothing: which files may be rewritten, and the atomic rewrite of a whole tree.

:func:`collect` walks the paths without following symlinks and sorts every ``*.py`` into files to port
and files skipped with the reason: a symlink whose target leaves the tree (``follow_symlinks`` ports the
target), a symlink inside the tree (its target is ported under its own name), a hard-linked file
(``hard_links`` rewrites it by rename, so the other names keep the original), and anything that is not a
regular file (FIFO, device, socket: never read).

:func:`write_all` writes each ported file to a temporary file in the original's directory (mode and
owner copied, flushed to disk, its text compiled before), and renames nothing until every temporary file
is written; then it renames them over the originals (``backup`` first keeps each original as
``NAME.orig``). A failure before the renames (a full disk, a read-only directory) removes the temporary
files and leaves the tree exactly as it was; a kill at any moment leaves every file original or fully
ported, never truncated (a leftover temporary file is named ``.NAME.<random>.port-tmp``, which is no
module).

>>> import os, tempfile
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.py")
>>> with open(p, "w") as f:
...     _ = f.write("x = 1\\n")
>>> os.chmod(p, 0o640)
>>> write_all([(p, "x = 2\\n")])
>>> open(p).read(), oct(os.stat(p).st_mode & 0o777), os.listdir(d)
('x = 2\\n', '0o640', ['a.py'])
"""

from __future__ import annotations

import os
import signal
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["Skipped", "Collected", "collect", "write_all", "WriteError"]


class WriteError(OSError):
    """Writing the ported tree failed; nothing was changed (the message names the file)."""


@dataclass(frozen=True)
class Skipped:
    path: str
    why: str


@dataclass
class Collected:
    files: list[str] = field(default_factory=list)  # regular files to port (paths to read and write)
    skipped: list[Skipped] = field(default_factory=list)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _classify(path: str, roots: Sequence[str], out: Collected, seen: set[tuple[int, int]], *,
              follow_symlinks: bool, hard_links: bool) -> None:
    try:
        lst = os.lstat(path)
    except OSError as e:
        out.skipped.append(Skipped(path, f"cannot be read: {e.strerror}"))
        return
    target = path
    if stat.S_ISLNK(lst.st_mode):
        real = os.path.realpath(path)
        if not _inside(real, roots):
            if not follow_symlinks:
                out.skipped.append(Skipped(path, f"a symlink to {real}, outside the tree: not followed "
                                                 "(pass --follow-symlinks to port the file it names)"))
                return
        elif not follow_symlinks:
            out.skipped.append(Skipped(path, f"a symlink to {real}, inside the tree: that file is ported "
                                             "under its own name"))
            return
        target = real
    try:
        st = os.stat(target)
    except OSError as e:
        out.skipped.append(Skipped(path, f"cannot be read: {e.strerror}"))
        return
    if not stat.S_ISREG(st.st_mode):
        from .._files import kind_of
        out.skipped.append(Skipped(path, f"{kind_of(st.st_mode)}, not a regular file: never read"))
        return
    if st.st_nlink > 1 and not hard_links:
        out.skipped.append(Skipped(path, f"has {st.st_nlink} hard links: rewriting it would change the "
                                         "other names too (pass --hard-links to rewrite this name only; "
                                         "the others keep the original)"))
        return
    if (st.st_dev, st.st_ino) in seen:
        return
    seen.add((st.st_dev, st.st_ino))
    out.files.append(target)


def collect(paths: Iterable[str | os.PathLike], *, follow_symlinks: bool = False,
            hard_links: bool = False) -> Collected:
    """The ``*.py`` files under ``paths`` to port, and those skipped with the reason (see the module)."""
    out = Collected()
    seen: set[tuple[int, int]] = set()
    paths = [os.fspath(p) for p in paths]
    roots = [os.path.realpath(p) for p in paths]
    kw = {"follow_symlinks": follow_symlinks, "hard_links": hard_links}
    for p in paths:
        if not os.path.isdir(p) or os.path.islink(p):
            if os.path.islink(p) and os.path.isdir(p):
                out.skipped.append(Skipped(p, "a symlink to a directory: give the directory itself"))
                continue
            if not os.path.lexists(p):
                raise FileNotFoundError(2, "no such file or directory", p)
            _classify(p, [os.path.realpath(os.path.dirname(os.path.abspath(p)))] + roots, out, seen, **kw)
            continue
        for here, dirs, names in os.walk(p, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if name.endswith(".py") and not name.startswith("."):
                    _classify(os.path.join(here, name), roots, out, seen, **kw)
    return out


# ---------------------------------------------------------------- the atomic write of a tree
_kill_at: list[int] = [-1]  # test hook (``--_kill-at N``): SIGKILL this process at write step N
_step: list[int] = [0]


def _point() -> None:
    _step[0] += 1
    if _step[0] == _kill_at[0]:
        os.kill(os.getpid(), signal.SIGKILL)


def _temp_for(path: str, text: str) -> str:
    directory, name = os.path.split(os.path.abspath(path))
    st = os.stat(path)
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".port-tmp", dir=directory)
    try:
        data = text.encode("utf-8")
        with os.fdopen(fd, "wb") as f:
            half = len(data) // 2
            f.write(data[:half])
            f.flush()
            _point()  # half written
            f.write(data[half:])
            f.flush()
            try:
                os.fchown(f.fileno(), st.st_uid, st.st_gid)
            except PermissionError:  # not ours to give away: the new file keeps the writer's owner
                pass
            os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            os.fsync(f.fileno())
        _point()  # written and flushed
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    return temp


def _sync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_all(files: Sequence[tuple[str, str]], *, backup: bool = False) -> None:
    """Replace each ``path`` by its ported ``text``, all or nothing (see the module).

    Raises :class:`WriteError` naming the file when a temporary file or a backup cannot be written;
    the tree is then as it was.
    """
    temps: list[tuple[str, str]] = []
    backups: list[str] = []
    current = ""
    try:
        for path, text in files:
            current = path
            if backup:
                keep = path + ".orig"
                if os.path.lexists(keep):
                    raise FileExistsError(17, f"the backup {keep} already exists (remove it or port "
                                              "without --backup)", keep)
                try:
                    os.link(path, keep)  # the original's inode, kept whole when the rename replaces it
                except OSError:
                    import shutil
                    shutil.copy2(path, keep)
                backups.append(keep)
            temps.append((_temp_for(path, text), path))
    except BaseException as e:
        for temp, _ in temps:
            _quiet_unlink(temp)
        for keep in backups:
            _quiet_unlink(keep)
        if isinstance(e, OSError):
            why = e.strerror or str(e)
            raise WriteError(e.errno or 0, f"cannot write the ported {current}: {why}; nothing was changed "
                                           "(every file is as it was)", current) from e
        raise
    done: list[str] = []
    try:
        for temp, path in temps:  # every new file is on disk: now the renames (each atomic)
            current = path
            os.replace(temp, path)
            done.append(path)
            _point()
    except OSError as e:  # rare (the directory changed under us): say exactly what was replaced
        for temp, _ in temps[len(done):]:
            _quiet_unlink(temp)
        raise WriteError(e.errno or 0, f"cannot rename the ported {current} into place: {e.strerror}; "
                                       f"{len(done)} file(s) were already replaced: {done[:10]}",
                         current) from e
    for directory in sorted({os.path.dirname(os.path.abspath(p)) for _, p in temps}):
        _sync_dir(directory)


def _quiet_unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
