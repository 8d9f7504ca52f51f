"""Inverse-propensity-scored (IPS) estimators: their facts, checks,
averages and diagnostics; propensity estimates.

Logged feedback only shows the relevant items a user was exposed to.  With
a known exposure probability ``p`` per cell, dividing each observed relevant
item's contribution by ``p`` makes every metric that is a sum over relevant
items (DCG@k, precision@k) unbiased for its full-information value.  The
estimators are the metric functions themselves (``metric(...,
propensity=p)``); :data:`ESTIMATORS` says which functions have one and of
which form, and :func:`ips_average` is the one place that averages their
per-query values ("queries", the pooled "micro" ratio, or per query).
"""

import math
from typing import NamedTuple

import numpy as np

from ._engine import _undefined, average_queries, check_inputs, weighted_mean
from ._validation import check_query_id

__all__ = [
    "popularity_propensity",
    "position_propensity",
    "propensity_diagnostics",
]


class Estimator(NamedTuple):
    """What the IPS estimator of one metric function is.

    form
        ``"sum"``: a sum over the observed relevant items, unbiased
        (precision_at_k); ``"choice"``: the sum, or with
        ``self_normalized=True`` its ratio to the estimated relevant gain
        (dcg_at_k); ``"ratio"``: a ratio by construction (recall_at_k,
        ndcg_at_k, group_auc_score), consistent, not unbiased.
    fraction
        True if the full-information value lies in [0, 1] (for
        ``"choice"``: with ``self_normalized=True``), so that a per-query
        estimate above 1 is an artefact of the weights (reported by
        :func:`propensity_diagnostics`).
    """

    form: str
    fraction: bool


# The metric functions with an IPS estimator (those taking ``propensity=``;
# tests/test_ips_surfaces.py checks the two lists agree).  Every one has a
# pooled form, ``average="micro"``: the ratio of the summed numerators to
# the summed denominators (for a sum estimator, its mean).
ESTIMATORS = {
    "precision_at_k": Estimator("sum", True),
    "recall_at_k": Estimator("ratio", True),
    "dcg_at_k": Estimator("choice", False),
    "ndcg_at_k": Estimator("ratio", True),
    "group_auc_score": Estimator("ratio", True),
}


class _PerQueryParts:
    """The ``average`` value with which an estimator returns its
    :class:`IPSParts` (private: the report's pooled average reads them)."""

    def __repr__(self):
        return "PARTS"


PARTS = _PerQueryParts()


class IPSParts(NamedTuple):
    """Per-query values of an IPS estimator (as ``average=None`` gives
    them) and the weights whose weighted mean of those values is its
    pooled (``average="micro"``) value: the query weight times the
    query's denominator (0 where the query is undefined)."""

    values: np.ndarray
    weights: np.ndarray


def check_ips_average(average, name, propensity):
    """``average`` of an IPS estimator: "queries", "micro", None (or the
    private :data:`PARTS`); "micro" needs ``propensity``."""
    if average is PARTS or average is None:
        return average
    if isinstance(average, str) and average in ("queries", "micro"):
        if average == "micro" and propensity is None:
            raise ValueError(
                f"{name}: average='micro' is the pooled inverse-propensity "
                "ratio and needs propensity= (the plain metric averages "
                "over queries)."
            )
        return average
    raise ValueError(
        f"{name} with propensity= takes average='queries', 'micro' (the pooled "
        f"ratio) or None; got average={average!r}."
    )


def ips_average(
    values, defined, query_w, den, average, no_relevant, name, what="propensity="
):
    r"""Average the per-query values of an IPS estimator.

    ``defined`` marks the queries whose estimate is defined (a ratio
    estimator: its denominator is > 0), ``query_w`` the query weights
    (None: 1), ``den`` the per-query denominators of the pooled form (a
    sum estimator: its constant normaliser, k or 1).  ``"queries"`` and
    None follow ``no_relevant`` as every metric does; ``"micro"`` is
    :math:`\sum_q w_q\, num_q / \sum_q w_q\, den_q`, computed as the mean
    of the per-query values weighted by :math:`w_q\, den_q` -- the weights
    the report's states add up, so the report gives it bit for bit and its
    chunked states to rounding.
    """
    if no_relevant == "raise" and not defined.all():
        lack = "observed relevant item" if what == "propensity=" else "weighted gain"
        raise ValueError(
            f"{np.count_nonzero(~defined)} queries have no {lack}, so "
            f"{name}({what}) is 0/0 for them. Pass "
            "no_relevant='skip' to leave them out, or a number (e.g. 0.0) to "
            "score them."
        )
    if average not in ("micro", PARTS):
        return average_queries(values, defined, query_w, average, no_relevant, name)
    values = average_queries(values, defined, None, None, no_relevant, name)
    weights = np.broadcast_to(den, values.shape).astype(np.float64)
    if query_w is not None:
        weights = weights * query_w
    weights[~defined] = 0.0
    if average is PARTS:
        return IPSParts(values, weights)
    mean = weighted_mean(values, weights)
    return _undefined(name) if np.isnan(mean) else mean


def check_sum_no_relevant(no_relevant, observed, name):
    """``no_relevant`` for a sum estimator, whose value is defined (0) for a
    query without an observed relevant item: kept under "skip" (skipping
    it would bias the sum) and 0.0; refused under "raise" and other
    numbers."""
    if no_relevant == "raise" and not observed.all():
        raise ValueError(
            f"{np.count_nonzero(~observed)} queries have no observed relevant "
            f"item; {name}(propensity=) scores them 0 and keeps them (the IPS "
            "sum is unbiased only over every query). Pass no_relevant='skip' "
            "(the default) or 0.0 to accept that."
        )
    if isinstance(no_relevant, float) and no_relevant != 0.0:
        raise ValueError(
            f"{name}(propensity=) is defined for a query without an observed "
            f"relevant item (its IPS sum is 0); no_relevant={no_relevant!r} "
            "does not apply. Leave no_relevant at 'skip' or 0.0."
        )


def _check_y_true_form(y_true, query_id):
    y_true = np.asarray(y_true)
    if y_true.ndim != (1 if query_id is not None else 2):
        raise ValueError(
            "y_true must be a 2-D array (one query per row), or 1-D rows with "
            f"query_id=, for the IPS metrics; got {y_true.ndim} dimension(s)."
        )
    return y_true


def _cell_array(name, values, y_true):
    """``values`` as float64 of the shape of ``y_true`` (one per cell, or
    for 2-D one per item, broadcast over the queries)."""
    from scipy import sparse

    if sparse.issparse(values):
        values = values.toarray()
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers.") from None
    if y_true.ndim == 2 and v.ndim == 1 and v.shape[0] == y_true.shape[1]:
        v = np.broadcast_to(v, y_true.shape)  # one value per item
    if v.shape != y_true.shape:
        raise ValueError(
            f"{name} has shape {v.shape}; give one value per cell of "
            f"y_true {y_true.shape} (or, 2-D, one per item: shape "
            f"({y_true.shape[-1]},))."
        )
    return v


def _check_propensity(propensity, y_true, min_propensity=None, query_id=None):
    """A float copy of ``propensity``, one value in (0, 1] per cell (2-D
    form) or per row (long form, with ``query_id``)."""
    y_true = _check_y_true_form(y_true, query_id)
    p = _cell_array("propensity", propensity, y_true)
    if min_propensity is not None:
        _check_min(min_propensity)
        p = np.maximum(p, min_propensity)
    bad = ~((p > 0) & (p <= 1))  # also catches NaN
    if bad.any():
        raise ValueError(
            "propensity must be in (0, 1] (no 0, negative, NaN or value above "
            f"1); got {p[bad].ravel()[0]!r}. Clip small values with "
            "min_propensity=."
        )
    if np.asarray(y_true, dtype=np.float64).min(initial=0.0) < 0:
        raise ValueError("y_true must be >= 0 for the IPS metrics.")
    return p


def _check_item_weight(item_weight, y_true, query_id=None):
    """A float copy of ``item_weight``: finite and >= 0, one per cell
    (row)."""
    y_true = _check_y_true_form(y_true, query_id)
    w = _cell_array("item_weight", item_weight, y_true)
    bad = ~(np.isfinite(w) & (w >= 0))
    if bad.any():
        raise ValueError(
            "item_weight must be finite and >= 0 (one weight per item); got "
            f"{w[bad].ravel()[0]!r}."
        )
    return w


def _check_self_normalized(self_normalized, name, propensity, min_propensity=None):
    """Validate ``self_normalized`` (and that ``min_propensity`` comes with
    ``propensity``) for the metric function ``name``; return whether the
    ratio form is asked.

    The estimator's form (:data:`ESTIMATORS`): "choice" (dcg_at_k: the sum
    or the ratio), "sum" (the estimator is a sum only: precision_at_k),
    "ratio" (self-normalised by construction: recall_at_k, ndcg_at_k,
    group_auc_score).
    """
    form = ESTIMATORS[name].form
    if min_propensity is not None and propensity is None:
        raise ValueError(
            f"{name}: min_propensity is given without propensity=; pass the "
            "propensities (or drop min_propensity)."
        )
    if self_normalized is None:
        return form == "ratio" and propensity is not None
    if not isinstance(self_normalized, (bool, np.bool_)):
        raise TypeError(
            f"self_normalized must be True or False; got {self_normalized!r}."
        )
    if form == "ratio" and not self_normalized:
        raise ValueError(
            f"{name}(propensity=) is self-normalised by construction (a ratio "
            "estimator: its normaliser is unknown and estimated with the same "
            "weights); self_normalized=False has no meaning here. Leave "
            "self_normalized at its default (or True)."
        )
    if self_normalized and propensity is None:
        raise ValueError(
            f"{name}: self_normalized=True needs propensity= (the "
            "self-normalised estimate divides by the sum of the inverse "
            "propensity weights)."
        )
    if form == "sum" and self_normalized:
        raise ValueError(
            f"{name} has no self-normalised form: normalising its IPS sum by "
            "the estimated number of relevant items gives recall; use "
            "recall_at_k(..., propensity=p) for it."
        )
    return bool(self_normalized)


def _check_min(min_propensity):
    if not (isinstance(min_propensity, (int, float)) and 0 < min_propensity <= 1):
        raise ValueError(
            f"min_propensity must be a number in (0, 1]; got {min_propensity!r}."
        )


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


def _gains_and_counts(
    y_true, propensity, item_weight, *, min_propensity, query_id, to_gain
):
    """``(gain * item_weight, 1 / propensity)`` per cell (row) as dense
    float arrays; the second is None without ``propensity``."""
    from scipy import sparse

    if sparse.issparse(y_true):
        y_true = y_true.toarray()
    y_true = _check_y_true_form(y_true, query_id)
    inverse = None
    if propensity is not None:
        inverse = 1.0 / _check_propensity(propensity, y_true, min_propensity, query_id)
    elif min_propensity is not None:
        raise ValueError("min_propensity is given without propensity=.")
    try:
        y = np.asarray(y_true, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("y_true must hold numbers.") from None
    if y.min(initial=0.0) < 0 or np.isnan(y).any():
        raise ValueError("y_true must be >= 0 (no NaN) with propensity/item_weight.")
    with np.errstate(over="ignore"):
        g = np.asarray(to_gain(y), dtype=np.float64)
    if not np.isfinite(g).all():
        raise ValueError("The gains of y_true overflow float64; use smaller grades.")
    if item_weight is not None:
        g = g * _check_item_weight(item_weight, y_true, query_id)
    return g, inverse


def _per_query_sum(values, query_id):
    """Per-query sum of per-cell (per-row) ``values``, in the order of the
    per-query values of ``average=None``."""
    if query_id is None:
        return values.sum(axis=1)
    codes, ids = check_query_id(query_id, values.shape[0])
    return np.bincount(codes, weights=values, minlength=ids.shape[0])


def _query_weights(y_true_like, y_score, query_id, sample_weight):
    """One weight per query (None: unweighted), as the metrics average."""
    if sample_weight is None:
        return None
    *_, w = check_inputs(y_true_like, y_score, query_id, sample_weight)
    return w


def _ideal_from_counts(levels, counts, query_id, cap, discount_of):
    """Ideal DCG of each query when it has ``counts[i]`` (fractional)
    items of gain ``levels[i]``: ranks 1, 2, ... filled in decreasing gain,
    a fractional count filling part of a rank (the ideal DCG is then
    piecewise linear in the counts), up to the per-query cutoff ``cap``.

    ``discount_of(K)`` gives the discounts of the ranks 1..K.
    """
    if query_id is None:
        n_q = levels.shape[0]
        codes = np.repeat(np.arange(n_q), levels.shape[1])
        levels, counts = levels.ravel(), counts.ravel()
    else:
        codes, ids = check_query_id(query_id, levels.shape[0])
        n_q = ids.shape[0]
    keep = (levels > 0) & (counts > 0)
    lv, ct, qc = levels[keep], counts[keep], codes[keep]
    order = np.lexsort((-lv, qc))
    lv, ct, qc = lv[order], ct[order], qc[order]
    # filled ranks before and after each item, within its query
    after = np.cumsum(ct)
    before = after - ct
    first = np.ones(qc.shape[0], dtype=bool)
    first[1:] = qc[1:] != qc[:-1]
    base = np.maximum.accumulate(np.where(first, before, 0.0)) if qc.size else before
    c = cap[qc]
    lo = np.minimum(before - base, c)
    hi = np.minimum(after - base, c)
    size = int(np.ceil(cap.max(initial=0.0)))
    disc = np.zeros(size + 1)
    disc[:size] = discount_of(size) if size else disc[:0]
    cum = np.concatenate(([0.0], np.cumsum(disc)))

    def filled(x):  # discount mass of the first x (fractional) ranks
        whole = np.floor(x).astype(np.intp)
        return cum[whole] + (x - whole) * disc[whole]

    gain = lv * (filled(hi) - filled(lo))
    return np.bincount(qc, weights=gain, minlength=n_q)


def _ips_check_k(k, name):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(
            f"{name} with propensity= needs an integer cutoff k >= 1 (the "
            f"estimator divides by k); got k={k!r}."
        )


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


def propensity_diagnostics(
    y_true,
    y_score,
    *,
    propensity,
    k=(1, 5, 10, 20),
    metrics=None,
    query_id=None,
    sample_weight=None,
    min_propensity=None,
    **options,
):
    r"""Diagnostics of inverse-propensity (IPS) estimates on a log.

    The figures that say whether the IPS estimates of a report can be
    trusted: how much the weights :math:`1/p` concentrate the estimate on
    a few items, how many queries the ratio estimators skip, how many
    weights ``min_propensity`` clipped, and how often a per-query estimate
    of a metric bounded by 1 came out above 1.  ``ranking_report(...,
    propensity=p)`` prints the same figures under its table and returns
    them under the key ``"propensity_diagnostics"`` of ``output_dict``.

    Read more in the :ref:`User Guide <logged_feedback>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items) or (n_rows,)
        Observed relevance (0 where not observed as relevant); 1-D: the rows
        of the long form, with ``query_id``.

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Scores of the ranking whose estimates are diagnosed.

    propensity : array-like of the shape of ``y_true``, or (n_items,) for 2-D
        Probability in (0, 1] that each cell's (row's) relevance was
        observed.

    k, metrics, query_id, sample_weight
        As in :func:`ranking_report`: the estimates whose share above 1
        is reported (None: the report's default metrics that have an
        estimator).

    min_propensity : float in (0, 1], default=None
        The clip of the estimates: a propensity below it counts as clipped.

    **options
        The other options of :func:`ranking_report` (``self_normalized``,
        ``relevance_threshold``, ``convention``, ``average``, ...).

    Returns
    -------
    diagnostics : dict
        ``"n_queries"``; ``"n_observed"``, the observed relevant items
        (``y_true > 0``, or ``>= relevance_threshold``);
        ``"effective_sample_size"``, Kish's :math:`(\sum_i w_i)^2 / \sum_i
        w_i^2` of their weights :math:`w_i = 1/p_i` (clipped), and
        ``"effective_sample_share"``, that size over ``n_observed`` (1 when
        every weight is equal, small when a few weights dominate);
        ``"max_weight"``; ``"skipped_share"``, the share of queries without
        an observed relevant item (the ratio estimators skip them, the sum
        estimators score them 0); ``"clipped_share"``, the share of the
        weights ``min_propensity`` clipped; ``"above_one"``, per scorer
        name of a metric whose full-information value lies in [0, 1], the
        share of its defined per-query estimates above 1.

    See Also
    --------
    ranking_report : The estimates themselves, with these figures.

    Notes
    -----
    The effective sample size counts the observed relevant items as if
    unweighted: the weights' variance costs as much as losing
    :math:`n - ESS` of them.  A per-query estimate above 1 (NDCG, precision,
    GAUC) is not an error of the estimator -- its expectation is right --
    but many of them mean that single items with large weights drive the
    per-query values; the pooled form (``average="micro"``) then orders
    models more reliably (see :ref:`logged_feedback`).  The sample weights
    of the queries do not enter these figures.

    Examples
    --------
    >>> from sklearn_rankmetrics import propensity_diagnostics
    >>> y_true = [[1, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.5, 0.1, 0.3], [0.3, 0.2, 0.1, 0.4], [0.2, 0.9, 0.1, 0.4]]
    >>> p = [[0.5, 1, 0.1, 1], [1, 1, 1, 1], [1, 0.25, 1, 1]]
    >>> d = propensity_diagnostics(y_true, y_score, propensity=p, k=2,
    ...                            metrics=["ndcg"])
    >>> d["n_observed"], round(d["effective_sample_size"], 3), d["max_weight"]
    (3, 2.133, 10.0)
    >>> round(d["skipped_share"], 3), d["above_one"]
    (0.333, {'ndcg@2': 1.0})

    The weights are 2, 10 and 4: :math:`16^2 / (4 + 100 + 16) = 2.13`
    effective items of 3.  The second query has no observed relevant item;
    the two others' NDCG@2 estimates are above 1 (the first, for one:
    :math:`2 / 1` over the ideal DCG@2 of :math:`2 + 10` estimated relevant
    items, :math:`1 + 1/\log_2 3`).
    """
    from ._report import ranking_report

    report = ranking_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        propensity=propensity,
        min_propensity=min_propensity,
        output_dict=True,
        **options,
    )
    return report["propensity_diagnostics"]
