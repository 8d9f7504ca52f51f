"""Inverse-propensity-scored (IPS) metrics and propensity estimates.

Logged feedback only shows the relevant items a user was exposed to.  With
a known exposure probability ``p`` per cell, dividing each observed relevant
item's contribution by ``p`` makes every metric that is a sum over relevant
items (DCG@k, precision@k) unbiased for its full-information value.
"""

import numpy as np

from ._conventions import with_convention
from ._engine import check_inputs
from ._ranking import dcg_at_k, precision_at_k
from ._validation import check_query_id

__all__ = [
    "ips_dcg_at_k",
    "ips_precision_at_k",
    "ips_recall_at_k",
    "popularity_propensity",
    "position_propensity",
]


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


def _check_self_normalized(
    self_normalized, name, propensity, form, min_propensity=None
):
    """Validate ``self_normalized`` (and that ``min_propensity`` comes with
    ``propensity``); return whether the ratio form is asked.

    ``form``: "choice" (dcg_at_k: the sum or the ratio), "sum" (the
    estimator is a sum only: precision_at_k), "ratio" (self-normalised by
    construction: recall_at_k, ndcg_at_k, group_auc_score).
    """
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


def _ips_sum(
    y_true, y_score, propensity, k, discount, ties, min_propensity, query_id=None
):
    p = _check_propensity(propensity, y_true, min_propensity, query_id)
    weighted = np.asarray(y_true, dtype=np.float64) / p
    # One ranking by the engine; the per-item weights rel / p ride as linear
    # grades, so tied items share their group's mean weight (exact ties).
    return dcg_at_k(
        weighted,
        y_score,
        k=k,
        query_id=query_id,
        gain="linear",
        discount=discount,
        ties=ties,
        no_relevant=0.0,
        average=None,
    )


@with_convention
def ips_dcg_at_k(
    y_true,
    y_score,
    *,
    propensity,
    k=None,
    ties=None,
    min_propensity=None,
    query_id=None,
):
    r"""IPS estimate of DCG@k (linear gain) from logged relevance.

    The same as ``dcg_at_k(y_true, y_score, propensity=propensity,
    gain="linear")``, kept as a name of its own.

    Parameters
    ----------
    y_true : array-like of shape (n_queries, n_items) or (n_rows,)
        Observed relevance (0 where not observed as relevant); 1-D rows of
        the long form with ``query_id``.
    y_score : array-like, shape of ``y_true``
        Scores of the ranking under evaluation.
    propensity : array-like, shape of ``y_true``, or (n_items,) for 2-D
        Probability in (0, 1] that each cell's (row's) relevance was
        observed.
    k : int, default=None
        Cutoff (None: the whole list).
    ties : {"expected", "optimistic", "pessimistic"}, default=None
        Tie handling as in :func:`dcg_at_k` (None: the configured default).
    min_propensity : float, default=None
        Clip propensities below this value (less variance, some bias).
    query_id : array-like of shape (n_rows,), default=None
        Query of each row (long form).

    Returns
    -------
    score : float
        Mean over queries; a query with no observed relevant item counts 0
        (it is not skipped: skipping it would bias the estimate).

    See Also
    --------
    dcg_at_k, ips_precision_at_k, popularity_propensity

    Notes
    -----
    :math:`\widehat{DCG}@k = \sum_{i: r_i \le k} \frac{o_i y_i}{p_i \log_2(1 + r_i)}`,
    unbiased since :math:`E[o_i] = p_i`. It is DCG with linear gain of the
    per-item weights :math:`y_i / p_i`.

    References
    ----------
    .. [1] Yang et al., "Unbiased offline recommender evaluation for
       missing-not-at-random implicit feedback", RecSys 2018.

    Examples
    --------
    >>> from sklearn_rankmetrics import ips_dcg_at_k
    >>> ips_dcg_at_k([[1, 0, 1]], [[0.9, 0.5, 0.1]], propensity=[[0.5, 1, 0.5]])
    3.0
    """
    return float(
        dcg_at_k(
            y_true,
            y_score,
            propensity=propensity,
            min_propensity=min_propensity,
            k=k,
            ties=ties,
            query_id=query_id,
            gain="linear",
        )
    )


@with_convention
def ips_precision_at_k(
    y_true,
    y_score,
    *,
    propensity,
    k,
    ties=None,
    min_propensity=None,
    query_id=None,
):
    r"""IPS estimate of precision@k from logged relevance.

    The same as ``precision_at_k(y_true, y_score, k=k,
    propensity=propensity)`` (an item is relevant when ``y_true > 0``).

    Parameters
    ----------
    y_true, y_score, propensity, ties, min_propensity, query_id
        As in :func:`ips_dcg_at_k`.
    k : int
        Cutoff (the denominator).

    Returns
    -------
    score : float
        Mean over queries of :math:`\frac1k \sum_{r_i \le k} o_i y_i / p_i`.

    See Also
    --------
    precision_at_k, ips_dcg_at_k

    Notes
    -----
    Unbiased, as a sum over relevant items with a constant weight ``1/k``.

    References
    ----------
    .. [1] Yang et al., RecSys 2018.

    Examples
    --------
    >>> from sklearn_rankmetrics import ips_precision_at_k
    >>> y_true, y_score = [[1, 0, 1]], [[0.9, 0.5, 0.1]]
    >>> ips_precision_at_k(y_true, y_score, propensity=[[0.5, 1, 0.5]], k=2)
    1.0
    """
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}.")
    return float(
        precision_at_k(
            y_true,
            y_score,
            propensity=propensity,
            min_propensity=min_propensity,
            k=k,
            ties=ties,
            query_id=query_id,
        )
    )


@with_convention
def ips_recall_at_k(y_true, y_score, *, propensity, k, ties=None, min_propensity=None):
    r"""Self-normalised IPS (SNIPS) estimate of recall@k.

    Parameters
    ----------
    y_true, y_score, propensity, ties, min_propensity
        As in :func:`ips_dcg_at_k`.
    k : int
        Cutoff.

    Returns
    -------
    score : float
        Mean, over queries with an observed relevant item, of
        :math:`\sum_{r_i \le k} o_i y_i / p_i \,/\, \sum_i o_i y_i / p_i`.

    See Also
    --------
    recall_at_k, ips_precision_at_k

    Notes
    -----
    Recall divides by the unknown number of relevant items; its IPS
    estimate is the ratio above, which is consistent (not unbiased): it
    converges to recall@k as the number of items grows. With all
    propensities 1 it equals :func:`recall_at_k` (binary relevance). It is
    invariant to scaling all propensities of a query.

    References
    ----------
    .. [1] Yang et al., RecSys 2018.
    .. [2] Schnabel et al., "Recommendations as treatments", ICML 2016.

    Examples
    --------
    >>> from sklearn_rankmetrics import ips_recall_at_k
    >>> y_true, y_score = [[1, 0, 1]], [[0.9, 0.5, 0.1]]
    >>> ips_recall_at_k(y_true, y_score, propensity=[[0.5, 1, 0.25]], k=1)
    0.3333333333333333
    """
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}.")
    top = _ips_sum(y_true, y_score, propensity, k, np.ones_like, ties, min_propensity)
    p = _check_propensity(propensity, y_true, min_propensity)
    total = (np.asarray(y_true, dtype=np.float64) / p).sum(axis=1)
    keep = total > 0
    if not keep.any():
        raise ValueError("no query of y_true has an observed relevant item.")
    return float(np.mean(top[keep] / total[keep]))


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


def _ips_grades(
    y_true, propensity, *, min_propensity, query_id, to_gain, item_weight=None
):
    """Per-item weights ``to_gain(y_true) * item_weight / propensity`` as a
    dense float array (the input is not modified).  The metrics pass them
    to the engine as linear grades: a tie group takes their mean, so the
    tie-exact expected value stays exact (it is linear in per-item gains).
    """
    gains, inverse = _gains_and_counts(
        y_true,
        propensity,
        item_weight,
        min_propensity=min_propensity,
        query_id=query_id,
        to_gain=to_gain,
    )
    return gains if inverse is None else gains * inverse


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
