"""``python -m datasets``: see :mod:`datasets.cli`."""

import sys

from .cli import main

sys.exit(main())
