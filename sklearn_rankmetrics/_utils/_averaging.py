"""The one mean over queries, and its weighted and pooled variants.

Every surface (the metric functions, the report, the mergeable state, the
comparison, the Displays, the command line) averages per-query values with
:func:`weighted_mean` (or its two steps, :func:`weighted_totals` and
:func:`mean_of_totals`); :func:`average_queries` applies the
``no_relevant`` policy first, and :func:`pooled_ratio` is the micro
average.  The per-user means of the beyond-accuracy metrics, the
calibration metrics' sums over rows and their mean over groups, and the
sampled metrics' mean over users are the same functions.
"""

import warnings

import numpy as np

from ._validation import undefined_metric_warning, user_stacklevel

__all__ = []  # private module


# ---------------------------------------------------------------------------
# Averaging over queries
# ---------------------------------------------------------------------------
def _undefined(what):
    warnings.warn(
        f"{what}: no query could be scored (every query was skipped or had "
        "zero weight); returning nan.",
        undefined_metric_warning(),
        stacklevel=user_stacklevel(),
    )
    return float("nan")


# ``keep`` of :func:`weighted_mean` and :func:`weighted_totals` that keeps
# every value, nan included (the mean is then nan): for the means whose
# every user, row or group counts.
EVERY_QUERY = slice(None)


def weighted_sum(w, values):
    """``sum(w * values)`` for 1-D arrays (``sum(values)`` if ``w`` is None),
    the same bit for bit whatever the machine's BLAS threads.

    ``np.dot`` splits vectors of more than 10,000 items over OpenBLAS's
    threads, whose partial sums change the last bit with their number
    (1 in a joblib worker or under threadpoolctl, the CPUs elsewhere), and
    its idle threads spin: a long-form ``ndcg_at_k`` of 12,500 queries took
    twice its wall time in CPU.  numpy's own pairwise sum does neither.
    """
    return float(np.add.reduce(values if w is None else w * values))


def average_queries(
    values, defined, weights, average, no_relevant, name, lacking="no relevant item"
):
    """Combine per-query values under ``no_relevant`` and ``average``.

    ``defined`` marks the queries where the metric is defined (most have a
    relevant item; ``lacking`` says what the others lack, see
    ``_metrics._kernels.UNDEFINED_WHEN``).
    """
    if no_relevant == "raise" and not defined.all():
        raise ValueError(
            f"{np.count_nonzero(~defined)} queries have {lacking}, so "
            f"{name} is undefined for them. Pass no_relevant='skip' to leave "
            "them out, or a number (e.g. 0.0) to score them."
        )
    if isinstance(no_relevant, float):
        values = np.where(defined, values, no_relevant)
        keep = np.ones_like(defined)
    else:
        values = np.where(defined, values, np.nan)
        keep = defined
    if average is None:
        return values
    mean = weighted_mean(values, weights, keep)
    return _undefined(name) if np.isnan(mean) else mean


def weighted_mean(values, weights=None, keep=None):
    """The one mean over queries of every surface (the metric functions,
    the report, the mergeable state, the comparison, the Displays, the
    command line): ``sum(w * v) / sum(w)`` over the queries in ``keep``
    (default: those whose value is not nan); nan, without a warning, if
    their weights sum to 0.

    Both sums are numpy's pairwise sums (:func:`weighted_sum`), so the
    result is the same bit for bit wherever it is computed.  The mergeable
    state keeps the two sums (:func:`weighted_totals`) and divides them
    when asked (:func:`mean_of_totals`): the same two steps.
    """
    return mean_of_totals(*weighted_totals(values, weights, keep))


def weighted_totals(values, weights=None, keep=None):
    """``(sum(w * v), sum(w))`` over the queries in ``keep`` (default: the
    non-nan values): the two sums of :func:`weighted_mean`."""
    values = np.asarray(values, dtype=np.float64)
    if keep is None:
        keep = ~np.isnan(values)
    w = np.ones(values.shape[0]) if weights is None else np.asarray(weights)
    w = w[keep]
    return weighted_sum(w, values[keep]), float(w.sum())


def mean_of_totals(total, weight):
    """``total / weight``, nan if the weight is 0 (no query scored)."""
    return float(total) / float(weight) if weight != 0 else float("nan")


def pooled_ratio(num, den, keep, weights, name):
    """Micro average: sum of weighted numerators over weighted denominators."""
    w = np.ones(num.shape[0]) if weights is None else weights
    w = w[keep]
    den = weighted_sum(w, den[keep])
    if w.sum() == 0:
        return _undefined(name)
    if den == 0:
        return 0.0
    return weighted_sum(w, num[keep]) / den


def _micro_keep(defined, no_relevant, name):
    """Queries entering a micro average under the ``no_relevant`` policy."""
    if no_relevant == "raise" and not defined.all():
        raise ValueError(
            f"{np.count_nonzero(~defined)} queries have no relevant item, so "
            f"{name} is undefined for them. Pass no_relevant='skip' to leave "
            "them out, or a number to keep them in the pooled counts."
        )
    if no_relevant == "skip":
        return defined
    return np.ones_like(defined)
