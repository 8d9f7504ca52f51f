"""Propensity estimation and the diagnostics of inverse-propensity weights.

:func:`popularity_propensity` and :func:`position_propensity` estimate the
exposure probabilities that the IPS estimators (:mod:`._ips`) divide by;
the diagnostic totals (:data:`DIAGNOSTIC_TOTALS`) add up over chunks of
queries, and :func:`diagnostics_from_totals` reads the figures of
``propensity_diagnostics`` from them.
"""

import math

import numpy as np

from .._utils._validation import (
    _cell_array,
    _check_min,
    _check_propensity,
    _check_y_true_form,
)
from ._ips import _per_query_sum

__all__ = ["popularity_propensity", "position_propensity"]


def popularity_propensity(X, *, gamma, min_propensity=None):
    r"""Item propensities from popularity (Yang et al. 2018).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_users, n_items)
        Training interactions; a cell > 0 counts as an observation.
    gamma : float
        Popularity exponent: :math:`p_i \propto n_i^{(\gamma + 1) / 2}`.
    min_propensity : float, default=None
        Lower clip. Small propensities give large weights ``1/p`` and a
        high-variance estimate; clipping bounds the weights at
        ``1/min_propensity`` at the price of a bias (towards the naive metric).

    Returns
    -------
    propensity : ndarray of shape (n_items,)
        Scaled so that the most popular item has propensity 1. Items never
        observed get ``min_propensity`` (or the smallest positive value).

    See Also
    --------
    position_propensity, ips_dcg_at_k

    Notes
    -----
    Only relative propensities matter for SNIPS-type ratios; the scaling to
    1 for the top item assumes it is always observed when relevant.

    References
    ----------
    .. [1] Yang et al., RecSys 2018.

    Examples
    --------
    >>> from sklearn_rankmetrics import popularity_propensity
    >>> popularity_propensity([[1, 1], [1, 0], [1, 0], [1, 0]], gamma=1.0)
    array([1.  , 0.25])
    """
    import scipy.sparse as sp

    if not np.isscalar(gamma) or not np.isfinite(gamma):
        raise ValueError(f"gamma must be a finite number; got {gamma!r}.")
    obs = (X > 0) if sp.issparse(X) else np.asarray(X) > 0
    if obs.ndim != 2:
        raise ValueError("X must be 2-D (users x items).")
    n = np.asarray(obs.sum(axis=0), dtype=np.float64).ravel()
    if n.max(initial=0) == 0:
        raise ValueError("X has no interaction (no cell > 0).")
    p = (n / n.max()) ** ((gamma + 1.0) / 2.0)
    floor = min_propensity
    if floor is not None:
        _check_min(floor)
    else:
        floor = p[p > 0].min()
    return np.maximum(p, floor)


def position_propensity(
    rank=None, *, eta=1.0, clicks=None, n_ranks=None, min_propensity=None
):
    r"""Position-based propensities: ``1 / rank ** eta``, or from a
    result-randomisation log.

    Parameters
    ----------
    rank : array-like of int
        1-based ranks. Without ``clicks``: the propensity of each rank.
        With ``clicks``: the displayed rank of each logged impression.
    eta : float, default=1.0
        Examination exponent (ignored with ``clicks``).
    clicks : array-like of {0, 1}, default=None
        Clicks of a randomised log (items shuffled, so relevance does not
        depend on rank): the propensity of rank r is CTR(r) / CTR(1).
    n_ranks : int, default=None
        With ``clicks``: the ranks 1..n_ranks estimated (default max rank).
    min_propensity : float, default=None
        Lower clip (see :func:`popularity_propensity`).

    Returns
    -------
    propensity : ndarray
        Per element of ``rank``, or with ``clicks`` per rank 1..n_ranks.

    See Also
    --------
    popularity_propensity

    Notes
    -----
    Under the position-based model :math:`P(click) = P(exam \mid r) P(rel)`
    and randomisation makes :math:`P(rel)` equal at every rank.

    References
    ----------
    .. [1] Joachims et al., "Unbiased learning-to-rank with biased
       feedback", WSDM 2017.

    Examples
    --------
    >>> from sklearn_rankmetrics import position_propensity
    >>> position_propensity([1, 2, 4], eta=1.0)
    array([1.  , 0.5 , 0.25])
    >>> position_propensity([1, 1, 2, 2], clicks=[1, 1, 1, 0])
    array([1. , 0.5])
    """
    r = np.asarray(rank)
    if r.size == 0 or not np.issubdtype(r.dtype, np.integer) or r.min() < 1:
        raise ValueError("rank must be a non-empty array of integers >= 1.")
    if min_propensity is not None:
        _check_min(min_propensity)
    if clicks is None:
        p = 1.0 / r.astype(np.float64) ** float(eta)
    else:
        c = np.asarray(clicks, dtype=np.float64)
        if c.shape != r.shape or not np.isin(c, (0, 1)).all():
            raise ValueError("clicks must be 0/1, one per element of rank.")
        size = int(n_ranks or r.max())
        shown = np.bincount(r, minlength=size + 1)[1 : size + 1]
        clicked = np.bincount(r, weights=c, minlength=size + 1)[1 : size + 1]
        if shown[0] == 0 or clicked[0] == 0:
            raise ValueError("the log needs clicks at rank 1 to scale CTRs.")
        with np.errstate(divide="ignore", invalid="ignore"):
            ctr = np.where(shown > 0, clicked / np.maximum(shown, 1), np.nan)
        p = ctr / ctr[0]
        if np.isnan(p).any():
            raise ValueError("every rank 1..n_ranks must appear in the log.")
    if min_propensity is not None:
        p = np.maximum(p, min_propensity)
    return np.minimum(p, 1.0)


# ---------------------------------------------------------------------------
# Diagnostics of the weights
# ---------------------------------------------------------------------------
# The totals the diagnostics are read from, for a set of whole queries:
# every one adds up over chunks of queries but the largest weight, a maximum.
DIAGNOSTIC_TOTALS = (
    "n_queries",
    "n_unobserved",  # queries without an observed relevant item
    "n_observed",  # observed relevant items (cells, rows)
    "weight_sum",  # of their weights 1 / p (p clipped by min_propensity)
    "weight_square_sum",
    "n_clipped",  # of them with p below min_propensity
    "max_weight",
)
# Relative tolerance of "a per-query estimate above 1": a ratio that is 1
# in exact arithmetic may come out a few units in the last place above it.
_ABOVE_ONE = 1.0 + 1e-12


def diagnostic_totals(
    y_true, propensity, *, query_id=None, min_propensity=None, relevance_threshold=None
):
    """The :data:`DIAGNOSTIC_TOTALS` of validated rows (2-D, sparse or long
    form): an item is an observed relevant one when ``y_true > 0`` (``>=
    relevance_threshold`` if given), and weighs ``1 / p``."""
    from scipy import sparse

    if sparse.issparse(y_true):
        y_true = y_true.toarray()
    y = np.asarray(_check_y_true_form(y_true, query_id), dtype=np.float64)
    raw = _cell_array("propensity", propensity, y)
    p = _check_propensity(propensity, y, min_propensity, query_id)
    observed = y >= relevance_threshold if relevance_threshold is not None else y > 0
    weights = 1.0 / p[observed]
    per_query = _per_query_sum(observed.astype(np.float64), query_id)
    n_clipped = 0
    if min_propensity is not None:
        n_clipped = np.count_nonzero(raw[observed] < min_propensity)
    return np.array(
        [
            per_query.shape[0],
            np.count_nonzero(per_query == 0),
            weights.shape[0],
            weights.sum(),
            np.square(weights).sum(),
            n_clipped,
            weights.max(initial=0.0),
        ],
        dtype=np.float64,
    )


def merge_diagnostic_totals(a, b):
    """The totals of two disjoint sets of queries."""
    out = a + b
    out[-1] = max(a[-1], b[-1])  # the largest weight
    return out


def above_one(values):
    """``(n_above, n_scored)``: the per-query estimates above 1 and those
    defined (not nan)."""
    scored = ~np.isnan(values)
    return int(np.count_nonzero(values[scored] > _ABOVE_ONE)), int(scored.sum())


def diagnostics_from_totals(totals, above):
    """The dict of :func:`propensity_diagnostics` from the totals and, per
    scorer name of an estimator whose full-information value is in
    [0, 1], ``(n_above, n_scored)``."""
    t = dict(zip(DIAGNOSTIC_TOTALS, totals.tolist(), strict=True))
    n_obs, n_q = t["n_observed"], t["n_queries"]
    ess = t["weight_sum"] ** 2 / t["weight_square_sum"] if n_obs else 0.0
    return {
        "n_queries": int(n_q),
        "n_observed": int(n_obs),
        "effective_sample_size": ess,
        "effective_sample_share": ess / n_obs if n_obs else math.nan,
        "max_weight": t["max_weight"] if n_obs else math.nan,
        "skipped_share": t["n_unobserved"] / n_q if n_q else math.nan,
        "clipped_share": t["n_clipped"] / n_obs if n_obs else math.nan,
        "above_one": {
            name: (n_above / n_scored if n_scored else math.nan)
            for name, (n_above, n_scored) in above.items()
        },
    }


def _percent(x):
    return "nan" if math.isnan(x) else f"{100 * x:.1f}%"


def format_diagnostics(diagnostics, width=79):
    """The lines of a report's footer with ``propensity=``."""
    import textwrap

    d = diagnostics
    text = (
        f"Propensity weights: {d['n_observed']} observed relevant items, "
        f"effective sample size {d['effective_sample_size']:.1f} "
        f"({_percent(d['effective_sample_share'])}), largest weight "
        f"{d['max_weight']:.4g}, {_percent(d['clipped_share'])} clipped by "
        f"min_propensity; {_percent(d['skipped_share'])} of the queries "
        "without an observed relevant item (the ratio estimators skip them)."
    )
    lines = textwrap.wrap(text, width)
    if d["above_one"]:
        cells = ", ".join(f"{n} {_percent(v)}" for n, v in d["above_one"].items())
        lines += textwrap.wrap(f"Per-query estimates above 1: {cells}.", width)
    return lines
