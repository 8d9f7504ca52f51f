"""``python -m sklearn_rankmetrics``: run the tuning demo (see :mod:`._demo`)."""

import sys

from ._demo import main

if __name__ == "__main__":
    sys.exit(main())
