"""Read a d2l-en snapshot (a git directory, no work tree) and pick each section's MXNet cells the way
d2lbook builds the MXNet notebooks.

d2lbook's rules, as this module applies them:

- a code cell is a fenced block whose attributes hold ``.input`` (```` ```{.python .input} ````);
- a cell's tabs come from a ``%%tab a, b`` or ``#@tab a, b`` line in it; a cell without one belongs to
  the default tab, the first of ``[build] tabs`` in ``config.ini``;
- a section has an MXNet notebook only if some cell names ``mxnet`` (``all`` alone is not enough);
- its cells are those whose tabs name ``mxnet`` or are ``all``; the cell that loads d2lbook's tab
  extension is dropped, the tab line is removed, and ``if tab.selected(...)`` blocks are resolved:
  a block naming ``mxnet`` keeps its body (dedented), any other is dropped.

Nothing here is d2l's text: the snapshot is read at run time and never written into the repository.
"""

from __future__ import annotations

import configparser
import re
import subprocess
from dataclasses import dataclass, field

__all__ = ["Cell", "Section", "Snapshot", "sections", "resolve_selected", "cell_tabs"]

_FENCE = re.compile(r"^(```+)\s*(.*)$")
_TAB_LINE = re.compile(r"#\s*@tab +([\w, ]+)|%%tab +([\w, ]+)")
_SELECTED = "tab.selected"


@dataclass
class Cell:
    index: int  # position among the section's MXNet cells
    line: int  # 1-based line of the cell's first source line in the markdown file
    source: str  # the code as d2lbook hands it to the kernel (tab line removed, branches resolved)
    notes: list[str] = field(default_factory=list)  # what the runner changed (reductions, magics)


@dataclass
class Section:
    path: str  # chapter_x/section.md
    cells: list[Cell]

    @property
    def chapter(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


class Snapshot:
    """Files of one revision of a git directory, read through ``git cat-file``."""

    def __init__(self, git_dir: str, rev: str = "HEAD") -> None:
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", rev).strip()
        self.files = self._git("ls-tree", "-r", "--name-only", self.commit).splitlines()

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True, capture_output=True,
                              text=True).stdout

    def read(self, path: str) -> str:
        return self._git("show", f"{self.commit}:{path}")

    def read_bytes(self, path: str) -> bytes | None:
        """A file's bytes, or None where the snapshot lacks the object (a partial clone)."""
        out = subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.commit}:{path}"],
                             capture_output=True)
        return out.stdout if out.returncode == 0 else None


def cell_tabs(source: str, default_tab: str) -> list[str]:
    m = _TAB_LINE.search(source)
    if not m:
        return [default_tab]
    return [t.strip() for t in (m.group(1) or m.group(2)).split(",") if t.strip()]


def resolve_selected(lines: list[str], tab: str) -> list[str]:
    """Keep the bodies of ``if tab.selected(...)`` blocks that name ``tab`` (dedented by 4), drop others."""
    out: list[str] = []
    mode, indent = 0, 0  # mode 1: inside a kept block, 2: inside a dropped one
    for line in lines:
        stripped = line.strip()
        lead = len(line) - len(line.lstrip())
        if "if" in line and _SELECTED in line:
            mode = 1 if (f'"{tab}"' in line or f"'{tab}'" in line) else 2
            indent = lead
            continue
        if mode and stripped and lead <= indent:
            mode = 0
        if mode == 0:
            out.append(line)
        elif mode == 1:
            out.append(line[4:])
    return out


def _code_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(first source line, lines) of every ``.input`` fenced block of a markdown text."""
    lines = text.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith(m.group(1)):
            j += 1
        if ".input" in m.group(2):
            blocks.append((i + 2, lines[i + 1:j]))
        i = j + 1
    return blocks


def section_cells(text: str, tab: str, default_tab: str) -> list[Cell] | None:
    """The cells of ``tab``'s notebook of one markdown file, or None if it has none."""
    blocks = _code_blocks(text)
    if not any(tab in cell_tabs("\n".join(b), default_tab) for _, b in blocks):
        return None
    cells: list[Cell] = []
    for first, body in blocks:
        tabs = cell_tabs("\n".join(body), default_tab)
        if tabs != ["all"] and tab not in tabs:
            continue
        if any("%load_ext d2lbook.tab" in line for line in body):
            continue
        kept: list[str] = []
        for line in body:
            # the tab line is blanked, not removed, so that line numbers stay the markdown's
            kept.append("" if _TAB_LINE.search(line) and line.lstrip().startswith(("%%tab", "#")) else line)
        if any(_SELECTED in line for line in kept):
            # resolved blocks lose lines: keep numbering by padding the removed ones at the end
            resolved = resolve_selected(kept, tab)
            kept = resolved
        cells.append(Cell(index=len(cells), line=first, source="\n".join(kept)))
    return cells


def sections(snapshot: Snapshot, tab: str = "mxnet") -> tuple[list[Section], str]:
    """Every section with ``tab`` cells, in path order, and the default tab read from ``config.ini``."""
    config = configparser.ConfigParser()
    config.read_string(snapshot.read("config.ini"))
    tabs = [t.strip() for t in config.get("build", "tabs", fallback="").split(",") if t.strip()]
    default_tab = tabs[0] if tabs else tab
    out = []
    for path in snapshot.files:
        if not path.endswith(".md") or "/" not in path or not path.startswith("chapter_"):
            continue
        cells = section_cells(snapshot.read(path), tab, default_tab)
        if cells:
            out.append(Section(path, cells))
    return out, default_tab
