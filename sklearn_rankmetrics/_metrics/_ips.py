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

from typing import NamedTuple

import numpy as np

from .._utils._averaging import _undefined, average_queries, weighted_mean
from .._utils._validation import (
    _check_item_weight,
    _check_per_query_k,
    _check_propensity,
    _check_y_true_form,
    check_inputs,
    check_no_relevant,
    check_query_id,
)
from ._driver import items_per_query, metric_value
from ._kernels import DCG_KERNEL, _discount_of_ranks

__all__ = []  # private module


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
# The estimators of the ranking metric functions: one weighted DCG
# ---------------------------------------------------------------------------
def ips_metric(name, args):
    """The IPS estimate of the metric function ``name`` (precision_at_k,
    recall_at_k, dcg_at_k, ndcg_at_k) from its arguments ``args``, or its
    value with per-item weights (dcg_at_k, ndcg_at_k with ``item_weight``).

    The per-item values gain * item_weight / propensity ride through the
    DCG kernel as linear grades (one ranking; a tie group takes its mean
    weight, exact).  Each query's numerator is that weighted DCG@k (a
    binary gain and a flat discount for precision and recall); the
    denominator is k (precision), 1 (the IPS DCG sum), the sum of the
    weights (recall, self-normalised DCG) or the ideal DCG of the
    estimated grade counts (NDCG).  :func:`ips_average` averages them:
    over queries, pooled (``average="micro"``), or per query.
    """
    propensity = args["propensity"]
    what = "propensity=" if propensity is not None else "item_weight="
    average = _check_ips_average_option(name, what, propensity, args["average"])
    no_relevant = check_no_relevant(args["no_relevant"])
    to_gain, discount = _ips_gain(name, what, args)
    levels, inverse = _gains_and_counts(
        args["y_true"],
        propensity,
        args.get("item_weight"),
        min_propensity=args["min_propensity"],
        query_id=args["query_id"],
        to_gain=to_gain,
    )
    weights = levels if inverse is None else levels * inverse
    sum_form = ESTIMATORS[name].form == "sum" or (
        ESTIMATORS[name].form == "choice" and not args["self_normalized"]
    )
    if name == "dcg_at_k" and not args["self_normalized"] and propensity is None:
        # item_weight alone: the plain DCG of the weighted gains
        return _weighted_dcg(weights, args, discount, no_relevant, average)
    top = _weighted_dcg(weights, args, discount, 0.0, None)
    total = _per_query_sum(weights, args["query_id"])  # estimated relevant gain
    query_w = _query_weights(
        weights, args["y_score"], args["query_id"], args["sample_weight"]
    )
    if sum_form:  # defined (0) without an observed relevant item
        check_sum_no_relevant(no_relevant, total > 0, name)
        den = float(args["k"]) if name == "precision_at_k" else 1.0
        defined = np.ones(top.shape, dtype=bool)
        return ips_average(top / den, defined, query_w, den, average, 0.0, name)
    if name == "ndcg_at_k":  # over the ideal DCG of the estimated grade counts
        total = _estimated_ideal(levels, inverse, args, discount)
    # a ratio: recall and the self-normalised DCG over the estimated
    # relevant gain, NDCG over the ideal DCG of the estimated counts
    defined = total > 0
    values = np.zeros_like(top)
    np.divide(top, total, out=values, where=defined)
    return ips_average(
        values, defined, query_w, total, average, no_relevant, name, what
    )


def _check_ips_average_option(name, what, propensity, average):
    """``average`` with ``propensity=`` (:func:`check_ips_average`), or with
    ``item_weight=`` alone: "queries" or None."""
    if propensity is not None:
        return check_ips_average(average, name, propensity)
    if average not in ("queries", None):
        raise ValueError(
            f"{name} with {what} supports average='queries' or None; "
            f"got average={average!r}."
        )
    return average


def _ips_gain(name, what, args):
    """``(to_gain, discount)``: the gain of a grade and the discount of a
    rank of the estimator ``name`` (binary and flat for precision and
    recall), after the checks of its cut-off and options."""
    k = args["k"]
    if name in ("precision_at_k", "recall_at_k"):
        if name == "precision_at_k":
            _ips_check_k(k, name)
            if args["precision_denominator"] != "k":
                raise ValueError(
                    "precision_at_k with propensity= needs precision_denominator='k'."
                )
        return _binary_gain(args["relevance_threshold"]), np.ones_like
    gain = args["gain"]
    if isinstance(gain, str) and gain == "linear":
        to_gain = np.asarray
    elif isinstance(gain, str) and gain == "exponential":
        to_gain = _exponential_gain
    else:
        raise ValueError(
            f"{name} with {what} needs gain='linear' or 'exponential'; "
            f"got gain={gain!r}."
        )
    if isinstance(k, (list, tuple, np.ndarray)):
        _check_per_query_k(k)  # one cut-off per query
    elif k is not None and (
        isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1
    ):
        raise ValueError(
            f"{name} with {what} needs k=None, an integer k >= 1 or one "
            f"per query; got k={k!r}."
        )
    return to_gain, args["discount"]


def _binary_gain(threshold):
    """1 for a relevant grade (above 0, or at least ``threshold``), else 0."""

    def to_gain(y):
        return (y >= threshold if threshold is not None else y > 0).astype(float)

    return to_gain


def _exponential_gain(y):
    return np.exp2(y) - 1.0


def _weighted_dcg(weights, args, discount, no_relevant, average):
    """The DCG@k of the per-item ``weights`` taken as linear grades, ranked
    by the scores and options of ``args``."""
    return metric_value(
        "dcg_at_k",
        DCG_KERNEL,
        {
            "y_true": weights,
            "y_score": args["y_score"],
            "k": args["k"],
            "query_id": args["query_id"],
            "ties": args["ties"],
            "ignore_ties": args["ignore_ties"],
            "sample_weight": args["sample_weight"],
            "gain": "linear",
            "no_relevant": no_relevant,
            "average": average,
            "log_base": args.get("log_base", 2.0),
            "discount": discount,
        },
    )


def _estimated_ideal(levels, inverse, args, discount):
    """The ideal DCG@k of each query's estimated grade counts
    (:func:`_ideal_from_counts`), over at most its items."""
    k, query_id, log_base = args["k"], args["query_id"], args["log_base"]
    n_items = items_per_query(args["y_score"], query_id)
    if isinstance(k, (list, tuple, np.ndarray)):
        k = _check_per_query_k(k)
    cap = n_items if k is None else np.minimum(n_items, k)

    def discount_of(size):
        ranks = np.arange(1, size + 1, dtype=np.float64)
        return _discount_of_ranks(ranks, log_base, discount)

    return _ideal_from_counts(
        levels,
        np.ones_like(levels) if inverse is None else inverse,
        query_id,
        cap,
        discount_of,
    )
