"""``python -m sklearn_rankmetrics._cli``: the command line, as ``rankmetrics``."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
