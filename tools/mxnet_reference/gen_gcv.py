"""Reference outputs for the MXNet 1.x programs in ``tests/port/gcv_snippets/*.txt`` (MXNet 1.9.1).

    /tmp/mx/bin/python tools/mxnet_reference/gen_gcv.py

Each snippet is an ordinary MXNet program (array methods on the arrays a Block receives, the module-level
names libraries import, ``mx.__version__``, ...) that prints one JSON line; this runs each under MXNet and
writes that line to ``tests/reference/gcv/<snippet>.json``, then the area's manifest.
``tests/port/test_gcv_snippets.py`` runs the same snippets through ``framework.run`` and compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "tests" / "port" / "gcv_snippets"
AREA = ROOT / "tests" / "reference" / "gcv"


def main() -> None:
    import mxnet

    AREA.mkdir(parents=True, exist_ok=True)
    for path in sorted(SNIPPETS.glob("*.txt")):
        proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True,
                              cwd=SNIPPETS, timeout=600)
        value = json.loads(proc.stdout.strip().splitlines()[-1])
        (AREA / f"{path.stem}.json").write_text(json.dumps(value, indent=0, sort_keys=True) + "\n")
        print(path.stem, "ok")
    subprocess.run([sys.executable, str(ROOT / "tools" / "mxnet_reference" / "manifest.py"), str(AREA),
                    "--generator", "tools/mxnet_reference/gen_gcv.py", "--mxnet-version", mxnet.__version__],
                   check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
