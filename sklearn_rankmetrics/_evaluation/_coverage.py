"""Coverage counters: which queries a report's means count, and which of
their lists are empty or short.

One set of counters, computed by :func:`coverage_counters`, for every
report that counts them -- per segment in :func:`ranking_report` by
segment, for the users of :func:`recommendation_table_report` -- and
described once, on the reports page of the user guide:

- ``n_queries``: the queries (users) of the report;
- ``n_evaluated``: those in the means, i.e. those its first ranking metric
  scores (under the default ``no_relevant="skip"``: with a relevant item);
- ``n_skipped``: the others (``n_queries - n_evaluated``);
- ``n_empty``: the queries whose list is empty (no item retrieved: every
  score ``-inf``, a user without recommendations);
- ``n_short@k``, one per cut-off ``k``: the queries whose list holds at
  least one but fewer than ``k`` retrieved items (they still count in the
  means, as missing ranks).
"""

import numpy as np

from ._per_query import _GAUC

__all__ = []  # private module

# The counters of every report, before the short lists of each cut-off.
COUNTERS = ("n_queries", "n_evaluated", "n_skipped", "n_empty")


def short_key(k):
    """The key of the short lists at cut-off ``k``: ``"n_short@10"``."""
    return f"n_short@{k}"


def counter_keys(ks):
    """Every counter's key, in order, for the cut-offs ``ks``."""
    return [*COUNTERS, *(short_key(k) for k in ks)]


def evaluated_queries(report):
    """The queries in the means of a
    :class:`~sklearn_rankmetrics._evaluation._per_query.PerQueryReport`: a
    mask, those its first ranking metric scores (else GAUC's)."""
    ranked = [name for name in report.values if name != _GAUC]
    return ~np.isnan(report.values[ranked[0] if ranked else _GAUC])


def retrieved_per_query(y_score, codes, n_queries):
    """The items each query retrieves (its scores above ``-inf``): 2-D, per
    row; long form (``codes``: the query code of each row), per code."""
    retrieved = np.asarray(y_score) > -np.inf
    if codes is None:
        return np.count_nonzero(retrieved, axis=1)
    return np.bincount(codes[retrieved], minlength=n_queries)


def coverage_counters(n_retrieved, evaluated, ks):
    """The counters (:data:`COUNTERS`, then ``n_short@k`` for each cut-off
    of ``ks``) of the queries whose retrieved items are ``n_retrieved``,
    those in the means being ``evaluated`` (a mask)."""
    n_retrieved = np.asarray(n_retrieved)
    n = int(n_retrieved.shape[0])
    n_evaluated = int(np.count_nonzero(evaluated))
    counters = {
        "n_queries": n,
        "n_evaluated": n_evaluated,
        "n_skipped": n - n_evaluated,
        "n_empty": int(np.count_nonzero(n_retrieved == 0)),
    }
    for k in ks:
        short = (n_retrieved > 0) & (n_retrieved < k)
        counters[short_key(k)] = int(np.count_nonzero(short))
    return counters


def _shown(ks):
    """The cut-offs whose short lists the text shows (no list is shorter
    than 1)."""
    return [k for k in ks if k > 1]


def coverage_lines(labelled, ks):
    """The counters as a text table: a header, then one line per ``(label,
    counters)`` of ``labelled``."""
    shown = _shown(ks)
    headers = ["queries", "evaluated", "skipped", "empty list"]
    headers += [f"short@{k}" for k in shown]
    keys = [*COUNTERS, *(short_key(k) for k in shown)]
    rows = [[label] + [str(c[key]) for key in keys] for label, c in labelled]
    widths = [max(len(r[0]) for r in rows)] + [
        max(len(h), *(len(r[i + 1]) for r in rows)) for i, h in enumerate(headers)
    ]
    pairs = list(zip(headers, widths[1:], strict=True))
    lines = [" " * widths[0] + "".join("  " + h.rjust(w) for h, w in pairs)]
    for r in rows:
        cells = zip(r[1:], widths[1:], strict=True)
        lines.append(
            r[0].ljust(widths[0]) + "".join("  " + c.rjust(w) for c, w in cells)
        )
    return lines


def coverage_notes(ks):
    """What the columns of :func:`coverage_lines` count, in words."""
    return (
        "evaluated: queries in the means (with a relevant item); skipped: "
        "without one; empty list: no item retrieved (every score -inf)"
        + ("; short@k: 1 to k - 1 items retrieved." if _shown(ks) else ".")
    )
