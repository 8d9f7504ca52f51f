"""The ``rankmetrics`` command line: ``demo`` and ``evaluate``.

``rankmetrics evaluate QRELS RUN [RUN ...]`` evaluates TREC runs as
trec_eval does and prints trec_eval's layout by default;
``rankmetrics evaluate --long FILE ...`` evaluates one-row-per-impression
data (CSV, TSV or Parquet).  ``rankmetrics`` alone, or followed by options
that are not a subcommand, runs the tuning demo.

The flow of ``evaluate``: read the files into the long form
(:mod:`._trec` for TREC files, :func:`_read_long` for tables), compute
"measure -> per-query values" in :func:`per_query_values` (the one place
that calls the metric functions), average them in :func:`_summary`,
compare several runs from those values (:func:`_compare`), and print with
one of the ``_print_*`` writers.  A table of more than ``--chunk-rows``
rows is evaluated chunk by chunk (:func:`_evaluate_long_chunked`).
"""

import sys

from ._common import UsageError, prog
from ._parser import _build_parser

__all__ = []  # private module


def _run_demo(argv):
    from . import _demo  # the demo lives in its own module

    return _demo.main(argv)


def main(argv=None):
    """Run the command line; ``argv`` as for argparse (None: ``sys.argv[1:]``).

    Returns the exit status: 0 on success, 2 on a usage or input error
    (with a message on stderr, never a traceback).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("demo", "evaluate", "-h", "--help", "--version"):
        return _run_demo(argv)
    if argv[0] == "demo":
        return _run_demo(argv[1:])
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    # imported once the arguments are read: --help, --version and usage
    # errors load no metric (nor numpy)
    from ._evaluate import _evaluate

    try:
        return _evaluate(args)
    except (UsageError, ValueError, TypeError, OSError) as exc:
        # usage errors, bad files (_io._trec.TrecFormatError is a
        # ValueError), the metrics' input checks (ValueError, TypeError),
        # unreadable files
        print(f"{prog()} evaluate: error: {exc}", file=sys.stderr)
    return 2
