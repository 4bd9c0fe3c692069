"""``python -m train``: see :mod:`train.cli` (``python -m train --help``)."""

from .cli import main

raise SystemExit(main())
