"""``python -m sklearn_rankmetrics``: the command line (see :mod:`._cli`).

With no arguments, or with the demo's options, it runs the tuning demo;
``evaluate`` scores TREC runs or impression tables.
"""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
