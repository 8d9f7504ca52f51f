"""``python -m sklearn_rankmetrics``: the command line (see :mod:`._cli`).

With no arguments, or with the demo's options, it runs the tuning demo;
``evaluate`` scores TREC runs or impression tables.
"""

import sys

from . import _cli
from ._cli import _common

if __name__ == "__main__":
    _common.PROG = "python -m sklearn_rankmetrics"  # how the user called it
    sys.exit(_cli.main())
