"""``import gluoncv`` under ``python -m framework.run``: the first import (every module ported) against
the second (ported modules read from the port cache), each in a fresh process.

    python benchmarks/gluoncv_import.py [--work /tmp/gcv_corpus] [--our-path DIR]

GluonCV is extracted from the git snapshot (see tools/corpus/gluoncv.py; nothing of it enters the
repository); the port cache lives in a fresh ``FRAMEWORK_HOME`` under ``--work``, so the first import
really ports everything. ``--our-path`` adds a directory with GluonCV's own dependencies (portalocker).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "corpus"))
from _gcv_common import GLUONCV_GIT, env_with, extract, our_command  # noqa: E402

SCRIPT = "import sys, time\nsys.path.insert(0, sys.argv[1])\nt = time.time()\nimport gluoncv\n" \
         "print('import gluoncv %.2f s' % (time.time() - t))\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("/tmp/gcv_corpus"))
    ap.add_argument("--gluoncv-git", default=GLUONCV_GIT)
    ap.add_argument("--rev", default="master")
    ap.add_argument("--our-path", action="append", default=[])
    args = ap.parse_args()
    src = extract(args.gluoncv_git, args.rev, ["gluoncv"], args.work / "src")
    home = Path(tempfile.mkdtemp(prefix="gcv_bench_home_", dir=args.work))
    script = home / "import_gluoncv.py"
    script.write_text(SCRIPT)
    env = env_with([str(ROOT), *args.our_path], FRAMEWORK_HOME=str(home), FRAMEWORK_PORT_CACHE="1")
    times = []
    for label in ("first (ports every module)", "second (port cache)"):
        t0 = time.time()
        proc = subprocess.run(our_command(script, str(src)), env=env, capture_output=True, text=True,
                              cwd=home)
        wall = time.time() - t0
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        inner = [line for line in proc.stdout.splitlines() if line.startswith("import gluoncv")]
        times.append(wall)
        print(f"{label}: {inner[-1] if inner else '?'}; process {wall:.2f} s", flush=True)
    print(f"gluoncv import: first {times[0]:.1f} s, second {times[1]:.1f} s ({times[0] / times[1]:.0f}x)")
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
