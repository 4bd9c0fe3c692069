"""Reference outputs for the MXNet programs in ``tests/port/corpus2_snippets/*.txt`` (MXNet 1.9.1).

    /tmp/mx/bin/python tools/mxnet_reference/gen_corpus2.py

Each snippet is a small MXNet program of the kind the corpora (d2l, GluonCV, MXNet's examples) are made
of; it prints one JSON line as its last line. This runs each under MXNet 1.9.1, writes that line to
``tests/reference/corpus2/<snippet>.json`` and then the area's manifest.
``tests/port/test_corpus2_snippets.py`` runs the same programs through ``framework.run`` and compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "tests" / "port" / "corpus2_snippets"
AREA = ROOT / "tests" / "reference" / "corpus2"


def main() -> None:
    import mxnet

    AREA.mkdir(parents=True, exist_ok=True)
    for path in sorted(SNIPPETS.glob("*.txt")):
        proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=SNIPPETS,
                              timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"{path.name} failed under MXNet:\n{proc.stderr[-2000:]}")
        value = json.loads(proc.stdout.strip().splitlines()[-1])
        (AREA / f"{path.stem}.json").write_text(json.dumps(value, indent=0, sort_keys=True) + "\n")
        print(path.stem, "ok")
    subprocess.run([sys.executable, str(ROOT / "tools" / "mxnet_reference" / "manifest.py"), str(AREA),
                    "--generator", "tools/mxnet_reference/gen_corpus2.py", "--mxnet-version",
                    mxnet.__version__], check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
