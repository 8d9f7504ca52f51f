"""Ranking metrics: precision, recall, F, hit rate, MRR, MAP, DCG, NDCG,
R-precision, fall-out, ERR, RBP and bpref.

Each metric is a few vectorised lines over the per-rank tie-group
description built by :mod:`sklearn_rankmetrics._engine`.
"""

from types import SimpleNamespace

import numpy as np

from .._engine._per_query import rank_per_query
from .._engine._select import _relevant, exact_threshold
from .._utils._averaging import _micro_keep, average_queries, pooled_ratio
from .._utils._docstrings import fill_doc
from .._utils._validation import (
    _check_per_query_k,
    _check_ties,
    check_average,
    check_discount,
    check_gain,
    check_inputs,
    check_no_relevant,
    check_option,
    check_persistence,
    check_query_id,
    check_real,
)
from ._base import with_convention
from ._ips import (
    _check_self_normalized,
    _gains_and_counts,
    _ideal_from_counts,
    _ips_check_k,
    _per_query_sum,
    _query_weights,
    check_ips_average,
    check_sum_no_relevant,
    ips_average,
)
from ._kernels import (
    AP_DENOMINATORS,
    FALLOUT_KERNEL,
    IDEAL_RULES,
    PRECISION_DENOMINATORS,
    RBP_GAINS,
    UNDEFINED_WHEN,
    _average_precision_values,
    _bpref_values,
    _dcg_values,
    _discount,
    _err_values,
    _fbeta_values,
    _fbeta_weights,
    _hit_rate_values,
    _ndcg_values,
    _precision_cutoff,
    _precision_values,
    _r_precision_values,
    _rbp_residual_values,
    _rbp_values,
    _recall_values,
    _reciprocal_rank_values,
    _threshold_average_precision_values,
    query_defined,
)

__all__ = [
    "average_precision_at_k",
    "bpref_score",
    "dcg_at_k",
    "expected_reciprocal_rank_at_k",
    "f1_at_k",
    "fallout_at_k",
    "fbeta_at_k",
    "hit_rate_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision_score",
    "rank_biased_precision_at_k",
    "rbp_residual_at_k",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "success_at_k",
]


def _prepare(
    y_true,
    y_score,
    *,
    k,
    query_id,
    sample_weight,
    ignore_ties,
    no_relevant,
    average,
    per_query,
    averages=("queries",),
    relevance_threshold=None,
    gain="linear",
    need_ideal=False,
    ties=None,
    chunks=True,
):
    """Check the options every metric shares, rank the queries and read
    each query's values off its ranking.

    ``per_query(rk)`` returns a dict of per-query arrays computed from a
    :class:`Ranking` ``rk``; it may be called on chunks of the queries (see
    ``_CHUNK_RANKING_ABOVE``; ``chunks=False`` ranks them all at once).
    Returns ``(q, no_relevant, average)``, ``q`` holding those arrays for
    every query, with ``n_rel``, ``n_pos`` and ``weights``.
    """
    ties = _check_ties(ties, ignore_ties)
    no_relevant = check_no_relevant(no_relevant)
    average = check_average(average, averages)
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    gain = check_gain(gain)
    per_query_k = None
    if isinstance(k, (list, tuple, np.ndarray)):
        per_query_k = _check_per_query_k(k)
        k = int(per_query_k.max())
    if ties in ("pessimistic", "optimistic"):
        y_true, y_score, query_id, sample_weight = _order_ties(
            y_true, y_score, query_id, sample_weight, worst_first=ties == "pessimistic"
        )

    q = rank_per_query(
        y_true,
        y_score,
        per_query,
        k=k,
        per_query_k=per_query_k,
        chunks=chunks,
        query_id=query_id,
        sample_weight=sample_weight,
        threshold=threshold,
        gain=gain,
        ignore_ties=ties != "expected",
        need_ideal=need_ideal,
    )
    return SimpleNamespace(**q), no_relevant, average


def _order_ties(y_true, y_score, query_id, sample_weight, worst_first):
    """The inputs with each query's items sorted by grade (ascending if
    ``worst_first``), so that breaking ties by position ranks a tie group's
    worst (pessimistic) or best (optimistic) items first.  A sparse
    ``y_true`` becomes dense (``y_score`` is dense already)."""
    form, Y, S, codes, _, w = check_inputs(
        y_true, y_score, query_id, sample_weight, row_weights=True
    )
    if form == "sparse":
        Y = Y.toarray()
    key = Y.astype(np.float64)
    if not worst_first:
        key = -key
    if form == "long":
        order = np.argsort(key, kind="stable")
        return Y[order], S[order], codes[order], None if w is None else w[order]
    order = np.argsort(key, axis=1, kind="stable")
    return (
        np.take_along_axis(Y, order, axis=1),
        np.take_along_axis(S, order, axis=1),
        None,
        w,
    )


def _n_items(y_score, query_id):
    """:func:`items_per_query`, as one number for a 2-D ``y_score`` (the
    kernels may then read it on chunks of the queries)."""
    if query_id is None:
        return float(np.shape(y_score)[1])
    return items_per_query(y_score, query_id)


def _n_items_once(y_score, query_id):
    """A function returning :func:`_n_items`, computed at its first call
    (on validated inputs) and kept for the next ones: the parts of a long
    form (:func:`rank_parts`) each read it."""
    kept = []

    def n_items():
        if not kept:
            kept.append(_n_items(y_score, query_id))
        return kept[0]

    return n_items


def candidate_negatives(y_true, y_score, query_id, threshold=None):
    """Non-relevant candidates of each query: items whose grade is not
    relevant (``<= 0``, or below ``threshold``) and whose score is above
    ``-inf`` (an item scored ``-inf`` is not a candidate: padding, an
    excluded item, an item not retrieved).  2-D: one count per row; long
    form: per query in the order of ``np.unique(query_id)``.  Vectorised
    over every item; the inputs are validated (not their grades' values)."""
    form, Y, S, codes, ids, _ = check_inputs(
        y_true, y_score, query_id, None, row_weights=True, defer=True
    )
    threshold = exact_threshold(threshold, Y.dtype)
    candidate = S > -np.inf
    if form == "long":
        negative = candidate & ~_relevant(Y, threshold)
        return np.bincount(codes, weights=negative, minlength=ids.shape[0])
    if form == "sparse":
        rows = np.repeat(np.arange(Y.shape[0], dtype=np.intp), np.diff(Y.indptr))
        keep = _relevant(Y.data, threshold)
        rows, cols = rows[keep], Y.indices[keep]
        found = np.bincount(rows, weights=candidate[rows, cols], minlength=S.shape[0])
        return np.count_nonzero(candidate, axis=1) - found
    negative = candidate & ~_relevant(np.asarray(Y), threshold)
    return np.count_nonzero(negative, axis=1).astype(np.float64)


def _candidate_negatives_once(y_true, y_score, query_id, threshold):
    """A function returning :func:`candidate_negatives`, computed at its
    first call (on inputs ranked, hence validated) and kept."""
    kept = []

    def n_negatives():
        if not kept:
            kept.append(candidate_negatives(y_true, y_score, query_id, threshold))
        return kept[0]

    return n_negatives


def items_per_query(y_score, query_id):
    """Items of each query, retrieved or not: the row length of a 2-D
    ``y_score``, or the rows of each query of the long form (in the order
    of ``np.unique(query_id)``).  Call it on validated inputs."""
    if query_id is None:
        shape = np.shape(y_score)
        return np.full(shape[0], float(shape[1]))
    codes, ids = check_query_id(query_id, len(query_id))
    return np.bincount(codes, minlength=ids.shape[0]).astype(np.float64)


def _ips_metric(
    name,
    y_true,
    y_score,
    propensity,
    min_propensity,
    item_weight=None,
    self_normalized=False,
    **kw,
):
    """The IPS estimate of ``name`` (precision_at_k, recall_at_k, dcg_at_k,
    ndcg_at_k), and the per-item weights of dcg_at_k / ndcg_at_k.

    The per-item values gain * item_weight / propensity ride through
    dcg_at_k as linear grades (one ranking; a tie group takes its mean
    weight, exact).  Each query's numerator is that weighted DCG@k (a
    binary gain and a flat discount for precision and recall); the
    denominator is k (precision), 1 (the IPS DCG sum), the sum of the
    weights (recall, self-normalised DCG) or the ideal DCG of the
    estimated grade counts (NDCG).
    :func:`~sklearn_rankmetrics._metrics._ips.ips_average` averages them:
    over queries, pooled (``average="micro"``), or per query.
    """

    what = "propensity=" if propensity is not None else "item_weight="
    average = kw.pop("average")
    if propensity is not None:
        average = check_ips_average(average, name, propensity)
    elif average not in ("queries", None):
        raise ValueError(
            f"{name} with {what} supports average='queries' or None; "
            f"got average={average!r}."
        )
    no_relevant = check_no_relevant(kw.pop("no_relevant", "skip"))
    k = kw["k"]
    if name in ("precision_at_k", "recall_at_k"):
        if name == "precision_at_k":
            _ips_check_k(k, name)
            if kw.pop("precision_denominator") != "k":
                raise ValueError(
                    "precision_at_k with propensity= needs precision_denominator='k'."
                )
        threshold = kw.pop("relevance_threshold")

        def to_gain(y):
            return (y >= threshold if threshold is not None else y > 0).astype(float)

        kw.update(discount=np.ones_like)
    else:
        gain = kw.pop("gain")
        if isinstance(gain, str) and gain == "linear":
            to_gain = np.asarray
        elif isinstance(gain, str) and gain == "exponential":

            def to_gain(y):
                return np.exp2(y) - 1.0

        else:
            raise ValueError(
                f"{name} with {what} needs gain='linear' or 'exponential'; "
                f"got gain={gain!r}."
            )
        if isinstance(k, (list, tuple, np.ndarray)):
            k = _check_per_query_k(k)  # one cut-off per query
        elif k is not None and (
            isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1
        ):
            raise ValueError(
                f"{name} with {what} needs k=None, an integer k >= 1 or one "
                f"per query; got k={k!r}."
            )
    query_id, sample_weight = kw["query_id"], kw.pop("sample_weight")
    levels, inverse = _gains_and_counts(
        y_true,
        propensity,
        item_weight,
        min_propensity=min_propensity,
        query_id=query_id,
        to_gain=to_gain,
    )
    weights = levels if inverse is None else levels * inverse
    if name == "dcg_at_k" and not self_normalized and propensity is None:
        # item_weight alone: the plain DCG of the weighted gains
        return dcg_at_k(
            weights,
            y_score,
            gain="linear",
            no_relevant=no_relevant,
            average=average,
            sample_weight=sample_weight,
            **kw,
        )
    top = dcg_at_k(
        weights,
        y_score,
        gain="linear",
        no_relevant=0.0,
        average=None,
        sample_weight=sample_weight,
        **kw,
    )
    total = _per_query_sum(weights, query_id)  # estimated relevant gain
    query_w = _query_weights(weights, y_score, query_id, sample_weight)
    if name == "precision_at_k" or (name == "dcg_at_k" and not self_normalized):
        # a sum estimator: defined (0) without an observed relevant item
        check_sum_no_relevant(no_relevant, total > 0, name)
        den = float(k) if name == "precision_at_k" else 1.0
        defined = np.ones(top.shape, dtype=bool)
        return ips_average(top / den, defined, query_w, den, average, 0.0, name)
    if name == "ndcg_at_k":  # over the ideal DCG of the estimated grade counts
        n_items = items_per_query(y_score, query_id)
        cap = n_items if k is None else np.minimum(n_items, k)
        log_base, discount = kw["log_base"], kw["discount"]

        def discount_of(size):
            ranks = SimpleNamespace(rank=np.arange(1, size + 1, dtype=np.float64))
            return _discount(ranks, log_base, discount)

        total = _ideal_from_counts(
            levels,
            np.ones_like(levels) if inverse is None else inverse,
            query_id,
            cap,
            discount_of,
        )
    # a ratio: recall and the self-normalised DCG over the estimated
    # relevant gain, NDCG over the ideal DCG of the estimated counts
    defined = total > 0
    values = np.zeros_like(top)
    np.divide(top, total, out=values, where=defined)
    return ips_average(
        values, defined, query_w, total, average, no_relevant, name, what
    )


@with_convention
@fill_doc
def precision_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    precision_denominator="k",
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
    propensity=None,
    min_propensity=None,
    self_normalized=False,
):
    r"""Precision at k: the fraction of the top k that is relevant.

    A query with fewer than ``k`` retrieved items still divides by ``k``
    (as trec_eval, torchmetrics and Microsoft Recommenders do); with
    ``k=None`` the denominator is the number of retrieved items.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    precision_denominator : {"k", "retrieved", "min_k"}, default="k"
        "k" divides by :math:`k` even when fewer items were retrieved
        (trec_eval, Microsoft Recommenders, Spark); "retrieved" divides by
        :math:`\min(k, n_{ret})`, the number of ranked items in the top k
        (TF-Ranking's ``PrecisionMetric``, torchmetrics' ``adaptive_k``).
        With ``k=None`` both are :math:`n_{ret}`.  "min_k" divides by
        :math:`\min(k, R)`, the most hits possible; with
        ``average="micro"`` it is implicit's ``ranking_metrics_at_k``
        precision, total hits over :math:`\sum_q \min(k, R_q)`.

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

    propensity : array-like of the shape of ``y_true``, default=None
        Probability in (0, 1] that each cell's (long form: row's) relevance
        was observed.  Given, the value is the inverse-propensity-scored
        (IPS) estimate :math:`\frac1k \sum_{i \le k} rel_i / p_i`, unbiased
        for the full-information precision; a query without an observed
        relevant item scores 0 and is kept (skipping it would bias the
        estimate: ``no_relevant`` "skip" and 0.0 keep it, "raise" raises).
        Needs an integer ``k`` and ``precision_denominator="k"``;
        ``average="micro"``, the pooled form :math:`\sum_q w_q
        \widehat{hits}_q / \sum_q w_q k`, is the same estimate.  See
        :ref:`logged_feedback`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it (less variance,
        some bias).

    self_normalized : bool, default=False
        Only False: the IPS precision is a plain sum; normalising it by
        the estimated number of relevant items gives recall, so True
        raises (use ``recall_at_k(..., propensity=p)``).

    Returns
    -------
    %(returns)s

    See Also
    --------
    recall_at_k : Fraction of the relevant items found in the top k.
    fbeta_at_k : Weighted harmonic mean of precision and recall at k.

    Notes
    -----
    For one query with relevance indicators :math:`rel_i` of the items at
    ranks :math:`i = 1, 2, \dots`,

    .. math::

        P@k = \frac{1}{k} \sum_{i=1}^{k} rel_i .

    The micro average pools the counts: :math:`\sum_q w_q\, hits_q /
    \sum_q w_q\, k`.  %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import precision_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> precision_at_k(y_true, y_score, k=2)
    0.25
    >>> precision_at_k(y_true, y_score, k=2, average=None)
    array([0.5, 0. ])
    """
    precision_denominator = check_option(
        "precision_denominator", precision_denominator, PRECISION_DENOMINATORS
    )

    _check_self_normalized(
        self_normalized, "precision_at_k", propensity, min_propensity
    )
    if propensity is not None:
        return _ips_metric(
            "precision_at_k",
            y_true,
            y_score,
            propensity,
            min_propensity,
            k=k,
            query_id=query_id,
            ties=ties,
            ignore_ties=ignore_ties,
            no_relevant=no_relevant,
            sample_weight=sample_weight,
            average=average,
            relevance_threshold=relevance_threshold,
            precision_denominator=precision_denominator,
        )
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(
            hits=rk.hits,
            cutoff=_precision_cutoff(rk, precision_denominator),
            values=_precision_values(rk, precision_denominator),
        ),
    )
    defined = q.n_rel > 0
    name = "precision_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        return pooled_ratio(q.hits, q.cutoff, keep, q.weights, name)
    return average_queries(q.values, defined, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def recall_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
    propensity=None,
    min_propensity=None,
    self_normalized=None,
):
    r"""Recall at k: the fraction of a query's relevant items in the top k.

    Relevant items that were not retrieved (score ``-inf``, or absent from
    a ranked list) count in the denominator.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

    propensity : array-like of the shape of ``y_true``, default=None
        Probability in (0, 1] that each cell's (long form: row's) relevance
        was observed.  Given, the value is the self-normalised (ratio)
        estimate :math:`\sum_{i \le k} rel_i / p_i \,/\, \sum_i rel_i / p_i`
        (Yang et al. 2018): consistent as the items of a query grow, not
        unbiased (recall divides by the unknown number of relevant items);
        at a few observed relevant items per query it can order models
        wrongly.  ``average="micro"`` is the pooled ratio, the sum over
        queries of the numerators over the sum of the denominators
        (weighted by ``sample_weight``): consistent as the queries grow,
        and the estimate to compare models with.  A query without an
        observed relevant item is undefined and follows ``no_relevant``.
        See :ref:`logged_feedback`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it (less variance,
        some bias).

    self_normalized : None or True, default=None
        The estimate with ``propensity`` is self-normalised by
        construction: None and True are the same; False raises.

    Returns
    -------
    %(returns)s

    See Also
    --------
    precision_at_k : Fraction of the top k that is relevant.
    hit_rate_at_k : Whether any relevant item is in the top k.

    Notes
    -----
    With :math:`R` the number of relevant items of the query,

    .. math::

        R@k = \frac{1}{R} \sum_{i=1}^{k} rel_i .

    The micro average is :math:`\sum_q w_q\, hits_q / \sum_q w_q R_q`.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import recall_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> recall_at_k(y_true, y_score, k=2)
    0.25
    >>> recall_at_k(y_true, y_score, k=2, average="micro")
    0.333...
    """

    _check_self_normalized(self_normalized, "recall_at_k", propensity, min_propensity)
    if propensity is not None:
        return _ips_metric(
            "recall_at_k",
            y_true,
            y_score,
            propensity,
            min_propensity,
            k=k,
            query_id=query_id,
            relevance_threshold=relevance_threshold,
            ties=ties,
            ignore_ties=ignore_ties,
            no_relevant=no_relevant,
            sample_weight=sample_weight,
            average=average,
        )
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(hits=rk.hits, values=_recall_values(rk)),
    )
    defined = q.n_rel > 0
    name = "recall_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        return pooled_ratio(q.hits, q.n_rel, keep, q.weights, name)
    return average_queries(q.values, defined, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def fbeta_at_k(
    y_true,
    y_score,
    *,
    k=None,
    beta=1.0,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""F-beta at k: the weighted harmonic mean of precision and recall at k.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    beta : float > 0, default=1.0
        Weight of recall relative to precision.

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    f1_at_k : The case ``beta=1``.
    precision_at_k, recall_at_k

    Notes
    -----
    For one query, with :math:`P = P@k` and :math:`R = R@k`,

    .. math::

        F_\beta@k = \frac{(1 + \beta^2) P R}{\beta^2 P + R}
                  = \frac{(1 + \beta^2)\, hits@k}{\beta^2 |rel| + k},

    and 0 when :math:`P = R = 0`.  The micro average is the F-beta of the
    micro-averaged precision and recall.  %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import fbeta_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> fbeta_at_k(y_true, y_score, k=2, beta=2.0)
    0.25
    """
    beta = check_real("beta", beta, low=0.0)
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(
            hits=rk.hits, cutoff=rk.cutoff, values=_fbeta_values(rk, beta)
        ),
    )
    defined = q.n_rel > 0
    name = "fbeta_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        p = pooled_ratio(q.hits, q.cutoff, keep, q.weights, name)
        if np.isnan(p):  # every query skipped: warned once
            return p
        r = pooled_ratio(q.hits, q.n_rel, keep, q.weights, name)
        w_rel, w_cut = _fbeta_weights(beta)
        den = w_rel * p + w_cut * r
        return float(p * r / den) if den else 0.0
    return average_queries(q.values, defined, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def f1_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""F1 at k: the harmonic mean of precision and recall at k.

    Equivalent to ``fbeta_at_k(..., beta=1.0)``.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    fbeta_at_k : F-beta at k.

    Notes
    -----
    .. math::

        F_1@k = \frac{2 P@k \cdot R@k}{P@k + R@k} .

    Examples
    --------
    >>> from sklearn_rankmetrics import f1_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> f1_at_k(y_true, y_score, k=2)
    0.25
    """
    return fbeta_at_k(
        y_true,
        y_score,
        k=k,
        beta=1.0,
        query_id=query_id,
        relevance_threshold=relevance_threshold,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


@with_convention
@fill_doc
def hit_rate_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Hit rate at k: whether at least one relevant item is in the top k.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    reciprocal_rank_at_k : Rewards an early first hit.

    Notes
    -----
    .. math::

        HR@k = \mathbb{1}\left[\sum_{i=1}^{k} rel_i > 0\right] .

    With ties, a tie group of :math:`g` items holding :math:`r` relevant
    ones and cut after :math:`s` ranks misses all of them with the
    hypergeometric probability :math:`\binom{g-r}{s} / \binom{g}{s}`.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import hit_rate_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> hit_rate_at_k(y_true, y_score, k=2)
    0.5
    """
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(values=_hit_rate_values(rk)),
    )
    return average_queries(
        q.values, q.n_rel > 0, q.weights, average, no_relevant, "hit_rate_at_k"
    )


@with_convention
@fill_doc
def reciprocal_rank_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Reciprocal rank at k; its mean over queries is MRR@k.

    One over the rank of the first relevant item, or 0 if none is in the
    top k.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    hit_rate_at_k, average_precision_at_k

    Notes
    -----
    .. math::

        RR@k = \max_{i \le k} \frac{rel_i}{i} .

    With ties, the first relevant item of a group of :math:`g` items with
    :math:`r` relevant, starting at rank :math:`a`, sits at rank
    :math:`a + j` with probability :math:`\binom{g-1-j}{r-1} / \binom{g}{r}`.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import reciprocal_rank_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> reciprocal_rank_at_k(y_true, y_score, k=3)
    0.416...
    """
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(values=_reciprocal_rank_values(rk)),
    )
    return average_queries(
        q.values, q.n_rel > 0, q.weights, average, no_relevant, "reciprocal_rank_at_k"
    )


@with_convention
@fill_doc
def average_precision_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ap_denominator="relevant",
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Average precision at k; its mean over queries is MAP@k.

    The sum of the precisions at the ranks of the relevant items in the
    top k, divided by the number of relevant items (trec_eval ``map_cut``)
    or by ``min(R, k)``.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    ap_denominator : {"relevant", "min_k", "k", "hits"}, default="relevant"
        "relevant" divides by :math:`R`, all relevant items of the query,
        as trec_eval does; "min_k" divides by :math:`\min(R, k)` (the
        ``apk`` of ml_metrics, common in recommender code), so a perfect
        top k scores 1 even when :math:`R > k`.  With ``k=None`` both are
        :math:`R`.  "k" divides by :math:`k` (RecTools'
        ``MAP(divide_by_k=True)``; ``k`` must be given).  "hits" divides by
        the relevant items found in the top k
        (torchmetrics' ``retrieval_average_precision`` with ``top_k``); it
        needs one ordering of the tied items (any ``ties`` rule but
        "expected", or no ties).

    %(ties)s
        AP also takes "threshold": scikit-learn's
        :func:`~sklearn.metrics.average_precision_score` (and
        :func:`~sklearn.metrics.label_ranking_average_precision_score`), where
        a tie group is one threshold and each of its relevant items gets the
        precision at the group's last rank; with ``k=None`` only.

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    precision_at_k, ndcg_at_k

    Notes
    -----
    .. math::

        AP@k = \frac{1}{D} \sum_{i=1}^{k} rel_i \, P@i, \qquad
        D = R, \ \min(R, k) \text{ or } k .

    With ties, an item at rank :math:`i` of a group starting at rank
    :math:`a` with :math:`g` items, :math:`r` of them relevant and
    :math:`h` relevant items in earlier groups, contributes
    :math:`\frac{r}{g}\left(h + 1 + (i-a)\frac{r-1}{g-1}\right) / i`.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import average_precision_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> average_precision_at_k(y_true, y_score, k=3)
    0.458...
    """
    ap_denominator = check_option("ap_denominator", ap_denominator, AP_DENOMINATORS)
    threshold_ties = isinstance(ties, str) and ties == "threshold"
    if threshold_ties and (k is not None or ignore_ties):
        raise ValueError(
            "ties='threshold' (scikit-learn's average_precision_score) reads "
            "whole tie groups: use it with k=None and ignore_ties=False."
        )
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties="expected" if threshold_ties else ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(
            values=_threshold_average_precision_values(rk)
            if threshold_ties
            else _average_precision_values(rk, ap_denominator)
        ),
    )
    name = "average_precision_at_k"
    return average_queries(q.values, q.n_rel > 0, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def dcg_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    gain="linear",
    log_base=2,
    discount="log",
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
    propensity=None,
    min_propensity=None,
    self_normalized=False,
    item_weight=None,
):
    r"""Discounted cumulative gain at k.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    gain : {"linear", "exponential"}, mapping, sequence or callable, \
default="linear"
        Gain of a grade: "linear" is the grade itself (as
        :func:`sklearn.metrics.dcg_score` and trec_eval); "exponential" is
        :math:`2^{rel} - 1` (as LightGBM and XGBoost).  A mapping
        ``{grade: gain}`` (trec_eval's gain table) or a sequence indexed
        by integer grade (LightGBM's ``label_gain``) gives each grade its
        gain; every grade of ``y_true`` must be in it, grade 0 gains 0 and
        the gains must not decrease with the grade.  A callable maps an
        array of grades to their gains (non-decreasing, 0 for grade 0).

    log_base : float > 1, default=2
        Base of the logarithm of the "log" discount.

    discount : {"log", "reciprocal"} or callable, default="log"
        Weight of rank :math:`i`: "log" is :math:`1 / \log_b(i + 1)`,
        "reciprocal" is :math:`1 / i`; a callable maps the float array of
        ranks ``1..K`` to non-negative weights.  With ties a group gets its
        mean gain times the sum of its ranks' weights, exact for any
        discount.

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    propensity : array-like of the shape of ``y_true``, default=None
        Probability in (0, 1] that each cell's (long form: row's) relevance
        was observed.  Given, each item's gain is divided by its propensity
        (IPS): :math:`\sum_{i \le k} gain(rel_i) / (p_i \log_b(i + 1))`,
        unbiased for the full-information DCG@k; a query without an
        observed relevant item scores 0 and is kept (skipping it would bias
        the estimate: ``no_relevant`` "skip" and 0.0 keep it, "raise"
        raises).  ``gain`` must be "linear" or "exponential".
        ``average="micro"`` is the pooled form: for the IPS sum its mean,
        with ``self_normalized=True`` the summed numerators over the summed
        estimated gains.  See :ref:`logged_feedback`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it (less variance,
        some bias).

    self_normalized : bool, default=False
        With ``propensity``: True gives the self-normalised (SNIPS) form
        of Yang et al. (2018), :math:`\sum_{i \le k} w_i d_i / \sum_i w_i`
        with :math:`w_i = gain(rel_i) / p_i` over all the query's items:
        DCG per unit of estimated relevant gain.  It is consistent as the
        items of a query grow (not unbiased; at a few observed relevant
        items per query it can order models wrongly: prefer
        ``average="micro"``), invariant to a common scale of a query's
        propensities, and 0/0 for a query without an observed relevant
        item, which then follows ``no_relevant``.

    item_weight : array-like of the shape of ``y_true``, default=None
        A non-negative weight per item (TF-Ranking's per-item ``weights``):
        each item's gain is multiplied by it (with ``propensity``, before
        the division).  ``gain`` must be "linear" or "exponential".  A
        query whose weighted gains are all 0 follows ``no_relevant``.

    Returns
    -------
    %(returns)s

    See Also
    --------
    ndcg_at_k : DCG normalised by the ideal DCG.

    Notes
    -----
    .. math::

        DCG@k = \sum_{i=1}^{k} \frac{gain(rel_i)}{\log_b(i + 1)} .

    A tie group contributes its mean gain times the sum of the discounts of
    the ranks it occupies (the rule of :func:`sklearn.metrics.dcg_score`).
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    .. [2] Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based
           evaluation of IR techniques. ACM TOIS 20(4), 422-446.

    Examples
    --------
    >>> from sklearn_rankmetrics import dcg_at_k
    >>> y_true = [[3, 2, 0, 1]]
    >>> y_score = [[0.9, 0.1, 0.3, 0.8]]
    >>> dcg_at_k(y_true, y_score, k=2)
    3.630...

    From logged relevance, the IPS estimate (propensity 0.5 on the top item):

    >>> dcg_at_k([[1, 0, 1]], [[0.9, 0.5, 0.1]], propensity=[[0.5, 1, 1]])
    2.5

    Self-normalised: that sum over the estimated relevant gain 1/0.5 + 1/1:

    >>> dcg_at_k(
    ...     [[1, 0, 1]], [[0.9, 0.5, 0.1]], propensity=[[0.5, 1, 1]],
    ...     self_normalized=True,
    ... )
    0.8333...

    Per-item weights multiply the gains:

    >>> dcg_at_k([[1, 0, 1]], [[0.9, 0.5, 0.1]], item_weight=[[2, 1, 3]])
    3.5
    """
    log_base = check_real("log_base", log_base, low=1.0)
    discount = check_discount(discount)

    self_normalized = _check_self_normalized(
        self_normalized, "dcg_at_k", propensity, min_propensity
    )
    if propensity is not None or item_weight is not None:
        return _ips_metric(
            "dcg_at_k",
            y_true,
            y_score,
            propensity,
            min_propensity,
            item_weight=item_weight,
            self_normalized=self_normalized,
            no_relevant=no_relevant,
            k=k,
            query_id=query_id,
            ties=ties,
            ignore_ties=ignore_ties,
            sample_weight=sample_weight,
            average=average,
            gain=gain,
            log_base=log_base,
            discount=discount,
        )
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        gain=gain,
        per_query=lambda rk: dict(values=_dcg_values(rk, log_base, discount)),
    )
    return average_queries(
        q.values, q.n_pos > 0, q.weights, average, no_relevant, "dcg_at_k"
    )


@with_convention
@fill_doc
def ndcg_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    gain="linear",
    log_base=2,
    discount="log",
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
    propensity=None,
    min_propensity=None,
    self_normalized=None,
    item_weight=None,
    ideal="relevant",
):
    r"""Normalized discounted cumulative gain at k.

    DCG@k divided by the DCG@k of the ideal ranking of *all* the query's
    items, retrieved or not.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    gain : {"linear", "exponential"}, mapping, sequence or callable, \
default="linear"
        Gain of a grade: "linear" is the grade itself (as
        :func:`sklearn.metrics.ndcg_score` and trec_eval); "exponential" is
        :math:`2^{rel} - 1` (as LightGBM and XGBoost).  A mapping
        ``{grade: gain}`` (trec_eval's gain table) or a sequence indexed
        by integer grade (LightGBM's ``label_gain``) gives each grade its
        gain; every grade of ``y_true`` must be in it, grade 0 gains 0 and
        the gains must not decrease with the grade.  A callable maps an
        array of grades to their gains (non-decreasing, 0 for grade 0).

    log_base : float > 1, default=2
        Base of the logarithm of the "log" discount.

    discount : {"log", "reciprocal"} or callable, default="log"
        Weight of rank :math:`i`: "log" is :math:`1 / \log_b(i + 1)`,
        "reciprocal" is :math:`1 / i`; a callable maps the float array of
        ranks ``1..K`` to non-negative weights.  With ties a group gets its
        mean gain times the sum of its ranks' weights, exact for any
        discount.

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    propensity : array-like of the shape of ``y_true``, default=None
        Probability in (0, 1] that each cell's (long form: row's) relevance
        was observed.  Given, the value is a ratio estimator: the IPS
        DCG@k (as ``dcg_at_k(propensity=p)``) over the ideal DCG@k of the
        IPS-estimated grade counts :math:`\hat n_g = \sum_{i: rel_i = g}
        1 / p_i` (see Notes).  It is **consistent as the items of a query
        grow, not unbiased** (NDCG divides by an unknown ideal): at a few
        observed relevant items per query many per-query estimates exceed 1
        and models can be ordered wrongly.  ``average="micro"`` is the
        pooled ratio, the summed IPS DCG@k over the summed estimated ideal
        DCG@k: the ideal DCG of an estimated count is biased low at a few
        observed items (the ideal is concave in the count), so its level is
        biased too, but its denominator is common to every model scored on
        the same log: it orders models as the unbiased IPS DCG does.  A
        query without an observed relevant item is 0/0 and follows
        ``no_relevant``.  ``gain`` must be "linear" or "exponential", ``k``
        an integer or None.  See :ref:`logged_feedback`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it (less variance,
        some bias).

    self_normalized : None or True, default=None
        The estimate with ``propensity`` is a ratio by construction: None
        and True are the same; False raises.

    item_weight : array-like of the shape of ``y_true``, default=None
        A non-negative weight per item (TF-Ranking's per-item ``weights``):
        each item's gain is multiplied by it, and the ideal ranking sorts
        the items by weighted gain (TF-Ranking's definition).  A query
        whose weighted gains are all 0 follows ``no_relevant``.

    ideal : {"relevant", "k"}, default="relevant"
        The ideal ranking of the normaliser.  "relevant": the query's own
        grades in decreasing order (at most :math:`\min(R, k)` gains), so
        a perfect ranking scores 1.  "k": ``k`` items of the query's top
        grade, as if it had ``k`` of them -- RecTools' default ``NDCG``
        (``divide_by_achievable=False``), where a query with fewer than
        ``k`` relevant items cannot reach 1 (``k=None``: every retrieved
        rank).  For binary relevance the ideal DCG is
        :math:`\sum_{i=1}^{k} 1/\log_b(i+1)`.

    Returns
    -------
    %(returns)s

    See Also
    --------
    dcg_at_k : The unnormalised gain.

    Notes
    -----
    .. math::

        NDCG@k = \frac{DCG@k}{IDCG@k}, \qquad
        IDCG@k = \sum_{i=1}^{k} \frac{gain(rel^*_i)}{\log_b(i + 1)},

    where :math:`rel^*` are all the query's grades in decreasing order
    (``ideal="k"``: :math:`rel^*_i` is the query's top grade for every
    :math:`i \le k`).
    ``no_relevant=0.0`` reproduces :func:`sklearn.metrics.ndcg_score`, which
    scores queries without relevant items as 0.  %(ties_note)s

    With ``propensity``, the numerator gains are :math:`gain(rel_i) / p_i`
    and the ideal is filled from the estimated counts: the distinct
    positive gains :math:`g_1 > g_2 > \dots` take :math:`\hat n_{g_1}`,
    :math:`\hat n_{g_2}`, ... ranks in turn, a fractional count filling
    that fraction of a rank, up to :math:`\min(k, n_{items})` ranks:
    with :math:`C_j = \sum_{l \le j} \hat n_{g_l}` and :math:`D(x)` the
    discount of the first :math:`x` ranks (linear between integers),
    :math:`\widehat{IDCG}@k = \sum_j g_j (D(\min(C_j, K)) -
    D(\min(C_{j-1}, K)))`.  Both parts converge to their full-information
    values, so the ratio is consistent.  With all propensities 1 it is
    :func:`ndcg_at_k`.

    References
    ----------
    %(mcsherry)s

    .. [2] Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based
           evaluation of IR techniques. ACM TOIS 20(4), 422-446.

    Examples
    --------
    >>> from sklearn_rankmetrics import ndcg_at_k
    >>> y_true = [[3, 2, 0, 1]]
    >>> y_score = [[0.9, 0.1, 0.3, 0.8]]
    >>> ndcg_at_k(y_true, y_score, k=2)
    0.851...

    RecTools' default divides by the DCG of ``k`` relevant items, here
    :math:`1 / (1 + 1/\log_2 3 + 1/2)`:

    >>> ndcg_at_k([[1, 0, 0]], [[0.9, 0.5, 0.1]], k=3, ideal="k")
    0.4692...

    From logged relevance, the second item observed half the time: the IPS
    DCG :math:`2 / \log_2 3 + 1/2` over the ideal DCG of :math:`2 + 1`
    estimated relevant items:

    >>> ndcg_at_k([[0, 1, 1]], [[0.9, 0.5, 0.1]], propensity=[[1, 0.5, 1]])
    0.8268...
    """
    log_base = check_real("log_base", log_base, low=1.0)
    discount = check_discount(discount)
    ideal = check_option("ideal", ideal, IDEAL_RULES)

    _check_self_normalized(self_normalized, "ndcg_at_k", propensity, min_propensity)
    if ideal != "relevant" and (propensity is not None or item_weight is not None):
        raise ValueError(
            f"ideal={ideal!r} is not defined with propensity= or item_weight= "
            "(their ideal comes from the estimated or weighted gains); use "
            "ideal='relevant'."
        )
    if propensity is not None or item_weight is not None:
        return _ips_metric(
            "ndcg_at_k",
            y_true,
            y_score,
            propensity,
            min_propensity,
            item_weight=item_weight,
            no_relevant=no_relevant,
            k=k,
            query_id=query_id,
            ties=ties,
            ignore_ties=ignore_ties,
            sample_weight=sample_weight,
            average=average,
            gain=gain,
            log_base=log_base,
            discount=discount,
        )
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        gain=gain,
        need_ideal=True,
        per_query=lambda rk: dict(values=_ndcg_values(rk, log_base, discount, ideal)),
    )
    return average_queries(
        q.values, q.n_pos > 0, q.weights, average, no_relevant, "ndcg_at_k"
    )


@with_convention
@fill_doc
def r_precision_score(
    y_true,
    y_score,
    *,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""R-precision: precision at rank R, R being the query's relevant count.

    Each query has its own cut-off, the number :math:`R` of its relevant
    items (retrieved or not), so a perfect ranking scores 1 and precision
    and recall at that cut-off are equal.  trec_eval's ``Rprec``.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    precision_at_k : Precision at one cut-off for every query.

    Notes
    -----
    .. math::

        RPrec = \frac{1}{R} \sum_{i=1}^{R} rel_i .

    A list of fewer than :math:`R` retrieved items still divides by
    :math:`R`.  With ties the expected number of hits in the first
    :math:`R` ranks is linear in the per-rank probabilities of relevance,
    so the value is exact.  %(ties_note)s

    References
    ----------
    %(mcsherry)s

    .. [2] Buckley, C. and Voorhees, E. M. (2000). Evaluating evaluation
           measure stability. SIGIR 2000, 33-40.

    Examples
    --------
    >>> from sklearn_rankmetrics import r_precision_score
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> r_precision_score(y_true, y_score, average=None)
    array([0.5, 0. ])
    """
    options = dict(
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
    )
    # R per query first (a ranking at k=1 is cheap), then the ranking at
    # the largest R: the first R ranks of every query.
    first, _, _ = _prepare(y_true, y_score, k=1, per_query=lambda rk: {}, **options)
    deepest = max(int(first.n_rel.max(initial=0.0)), 1)
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=deepest,
        per_query=lambda rk: dict(values=_r_precision_values(rk)),
        **options,
    )
    return average_queries(
        q.values, q.n_rel > 0, q.weights, average, no_relevant, "r_precision_score"
    )


@with_convention
@fill_doc
def fallout_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Fall-out at k: the fraction of the non-relevant items in the top k.

    The false positive rate of the top k taken as the positive
    predictions, over the query's candidates (items scored above ``-inf``).
    **Lower is better**, unlike every other metric here (there is no
    ``"fallout"`` scorer for that reason).

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    recall_at_k : The true positive rate of the top k.

    Notes
    -----
    With :math:`N` the number of non-relevant candidates of the query (its
    non-relevant items scored above ``-inf``: padding, excluded and
    unretrieved items are not candidates, see :ref:`candidates`) and
    :math:`n_k` the number of retrieved items in the top k,

    .. math::

        FO@k = \frac{n_k - \sum_{i=1}^{k} rel_i}{N}.

    A query without a relevant item is scored.  Fall-out is undefined
    (0/0) for a query without a non-relevant candidate (every candidate
    relevant): ``no_relevant`` says what becomes of those queries (skipped
    by default; ``convention="trec_eval"`` scores them 0 -- trec_eval has
    no fall-out measure).  Linear in the hits, hence exact with ties.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    Examples
    --------
    >>> from sklearn_rankmetrics import fallout_at_k
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> fallout_at_k(y_true, y_score, k=2, average=None)
    array([0.5       , 0.66666667])

    A query without a relevant item is scored; one whose candidates are
    all relevant is undefined (nan with ``average=None``):

    >>> fallout_at_k([[0, 0, 0], [1, 1, 0]], [[0.9, 0.5, 0.1], [0.9, 0.5, -np.inf]],
    ...              k=1, average=None)
    array([0.33333333,        nan])
    """
    kernel = FALLOUT_KERNEL
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    n_negatives = _candidate_negatives_once(y_true, y_score, query_id, threshold)

    def per_query(rk):
        inputs = {"n_negatives": n_negatives()}
        return dict(
            values=kernel.values(rk, **inputs),
            defined=query_defined(kernel, rk, inputs),
        )

    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=per_query,
    )
    return average_queries(
        q.values,
        q.defined,
        q.weights,
        average,
        no_relevant,
        "fallout_at_k",
        UNDEFINED_WHEN[kernel.defined_by],
    )


@with_convention
@fill_doc
def expected_reciprocal_rank_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    max_grade=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Expected reciprocal rank (ERR) at k, for graded relevance.

    The cascade model of Chapelle et al. [2]_: the user scans the ranking
    from the top and stops at an item of grade :math:`g` with probability
    :math:`\rho(g) = (2^g - 1) / 2^{g_{max}}`; ERR is the expected
    reciprocal of the rank where they stop (0 if they do not stop in the
    top k).

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    max_grade : float or None, default=None
        :math:`g_{max}`, the top grade of the relevance scale (e.g. 4 for
        grades 0..4).  None takes the largest grade of ``y_true``, over all
        queries.  Must be at least every grade.

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    reciprocal_rank_at_k : The binary, deterministic-stop special case.
    rank_biased_precision_at_k : Another user model with a patience.

    Notes
    -----
    .. math::

        ERR@k = \sum_{i=1}^{k} \frac{1}{i}\, \rho_i \prod_{j<i} (1 - \rho_j).

    A query is defined when it has an item of grade > 0.

    **Ties.**  ERR is not linear in the items' positions, so its
    expectation over the orderings of a tie group depends on the grades of
    the group's items, not only on their mean.  The rule used: inside a
    tie group of :math:`g` items with :math:`r` of grade > 0, each of these
    :math:`r` items is given the group's mean stop probability
    :math:`\bar\rho`; the expectation over the group's orderings is then
    computed exactly (the item at the group's position :math:`j` is
    relevant with probability :math:`r/g` and the relevant items before it
    follow a hypergeometric law).  This is **exact** whenever the
    relevant items of every tie group share one grade -- always with
    binary relevance, and without ties -- and otherwise an approximation
    that keeps each group's total stop probability.  Its cost grows with
    the size of the tie groups (a sum over the hypergeometric values).

    References
    ----------
    .. [1] McSherry, F. and Najork, M. (2008). Computing Information
           Retrieval Performance Measures Efficiently in the Presence of
           Tied Scores. ECIR 2008, LNCS 4956, pp. 414-421.

    .. [2] Chapelle, O., Metzler, D., Zhang, Y. and Grinspan, P. (2009).
           Expected reciprocal rank for graded relevance. CIKM 2009,
           621-630.

    Examples
    --------
    >>> from sklearn_rankmetrics import expected_reciprocal_rank_at_k
    >>> y_true = [[2, 0, 1]]
    >>> y_score = [[0.2, 0.9, 0.5]]
    >>> # ranks: grade 0, grade 1, grade 2; rho = 0, 1/4, 3/4
    >>> expected_reciprocal_rank_at_k(y_true, y_score)  # 1/2 * 1/4 + 1/3 * 3/4 * 3/4
    0.3125
    """
    if max_grade is not None:
        max_grade = check_real("max_grade", max_grade, low=0.0)
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        gain="exponential",
        need_ideal=True,
        per_query=lambda rk: dict(values=_err_values(rk, max_grade)),
        # ERR scales its stop probabilities by the largest grade of every
        # query: one ranking of them all
        chunks=False,
    )
    name = "expected_reciprocal_rank_at_k"
    return average_queries(q.values, q.n_pos > 0, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def rank_biased_precision_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    persistence=0.8,
    rbp_gain="binary",
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Rank-biased precision (RBP) at k.

    The expected rate of relevant items seen by a user who looks at rank
    1 and goes on to each next rank with probability ``persistence``
    (Moffat and Zobel [2]_).  The ranks not evaluated (past ``k``, or past
    a shorter retrieved list) could add at most the residual
    :func:`rbp_residual_at_k`.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    persistence : float in (0, 1), default=0.8
        :math:`p`, the probability that the user goes on from one rank to
        the next (Moffat and Zobel use 0.5, 0.8 and 0.95).

    rbp_gain : {"binary", "max_normalized", "raw"}, default="binary"
        The worth :math:`g_i` of the item at rank i: 1 if relevant else 0
        (trec_eval 9 on binary judgments), its grade divided by the
        query's top grade (trec_eval 10's graded rbp, which rescales the
        gains to [0, 1]), or its grade (ranx, trectools).  The graded
        rules read the grades themselves: ``relevance_threshold`` then
        only decides which queries have a relevant item.

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    rbp_residual_at_k : The weight of the ranks not evaluated.

    Notes
    -----
    .. math::

        RBP@k = (1 - p) \sum_{i=1}^{k} g_i\, p^{i-1} .

    Linear in the gains, hence exact with ties.
    %(ties_note)s

    References
    ----------
    %(mcsherry)s

    .. [2] Moffat, A. and Zobel, J. (2008). Rank-biased precision for
           measurement of retrieval effectiveness. ACM TOIS 27(1), 2:1-27.

    Examples
    --------
    >>> from sklearn_rankmetrics import rank_biased_precision_at_k
    >>> y_true = [[1, 0, 1]]
    >>> y_score = [[0.9, 0.5, 0.1]]
    >>> rank_biased_precision_at_k(y_true, y_score, persistence=0.5)  # (1 + 1/4) / 2
    0.625
    >>> y_true = [[1, 0, 2]]
    >>> rank_biased_precision_at_k(y_true, y_score, persistence=0.5, rbp_gain="raw")
    0.75
    """
    persistence = check_persistence(persistence)
    rbp_gain = check_option("rbp_gain", rbp_gain, RBP_GAINS)
    graded = rbp_gain != "binary"
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        need_ideal=graded,
        per_query=lambda rk: dict(values=_rbp_values(rk, persistence, rbp_gain)),
    )
    name = "rank_biased_precision_at_k"
    return average_queries(q.values, q.n_rel > 0, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def rbp_residual_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    persistence=0.8,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""The residual of rank-biased precision at k: :math:`p^{d}`.

    The most that the ranks not evaluated could add to
    :func:`rank_biased_precision_at_k`: every item is judged here, so the
    unknown part is the tail past the evaluated depth :math:`d`, the
    number of ranked items in the top k (``min(k, retrieved)``).
    ``RBP + residual`` is the upper bound of Moffat and Zobel [1]_.  It
    reads no relevance grade, so ties do not matter.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    persistence : float in (0, 1), default=0.8
        :math:`p`, the probability of going on to the next rank.

    %(relevance_threshold)s

    ties, ignore_ties : optional
        Accepted for uniformity with the other metrics; the residual does
        not depend on the order of tied items.

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    rank_biased_precision_at_k

    References
    ----------
    .. [1] Moffat, A. and Zobel, J. (2008). Rank-biased precision for
           measurement of retrieval effectiveness. ACM TOIS 27(1), 2:1-27.

    Examples
    --------
    >>> from sklearn_rankmetrics import rbp_residual_at_k
    >>> y_true = [[1, 0, 1]]
    >>> y_score = [[0.9, 0.5, 0.1]]
    >>> rbp_residual_at_k(y_true, y_score, k=2, persistence=0.5)
    0.25
    """
    persistence = check_persistence(persistence)
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(values=_rbp_residual_values(rk, persistence)),
    )
    name = "rbp_residual_at_k"
    return average_queries(q.values, q.n_rel > 0, q.weights, average, no_relevant, name)


@with_convention
@fill_doc
def bpref_score(
    y_true,
    y_score,
    *,
    query_id=None,
    judged=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""bpref: how often relevant items rank above judged non-relevant ones.

    The measure of Buckley and Voorhees [2]_ built for incomplete
    judgments, as computed by trec_eval (``bpref``).  Every item of the
    input counts as judged unless ``judged`` says otherwise: to reproduce
    trec_eval on a run with unjudged documents, pass the mask that
    ``trec_to_long_form(..., return_judged=True)`` returns (or leave the
    unjudged documents out of the input: bpref only reads the relative
    order of judged items, so dropping them changes nothing else).

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(query_id)s

    judged : array-like of bool, of the shape of ``y_score``, default=None
        Which items were judged; None: all of them.  Unjudged items are
        ignored, as trec_eval ignores unjudged documents: they take no
        rank and are not counted in :math:`N`.  An unjudged item must have
        ``y_true == 0``.

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    average_precision_at_k
    trec_to_long_form

    Notes
    -----
    With :math:`R` relevant and :math:`N` judged non-relevant items in the query
    (retrieved or not), and :math:`n_r` the non-relevant items retrieved
    above the relevant item :math:`r`,

    .. math::

        bpref = \frac{1}{R} \sum_{r \text{ retrieved}}
            \left(1 - \frac{\min(n_r, R)}{\min(R, N)}\right),

    a term being 1 when :math:`N = 0`.  With ties: in a tie group holding
    :math:`m` non-relevant items, the number of them above a given
    relevant item of the group is uniform on :math:`0..m`, which gives the
    exact expectation in closed form.  %(ties_note)s

    References
    ----------
    %(mcsherry)s

    .. [2] Buckley, C. and Voorhees, E. M. (2004). Retrieval evaluation
           with incomplete information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from sklearn_rankmetrics import bpref_score
    >>> y_true = [[0, 1, 0, 1]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7]]
    >>> bpref_score(y_true, y_score)  # each relevant item has 1 of 2 above it
    0.5
    >>> bpref_score(y_true, y_score, judged=[[False, True, True, True]])
    1.0
    """
    if judged is not None:
        y_true, y_score, query_id, sample_weight, n_judged = _judged_only(
            y_true, y_score, query_id, sample_weight, judged
        )
        n_items = lambda: n_judged  # noqa: E731
    else:
        n_items = _n_items_once(y_score, query_id)
    q, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=None,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
        per_query=lambda rk: dict(values=_bpref_values(rk, n_items())),
    )
    return average_queries(
        q.values, q.n_rel > 0, q.weights, average, no_relevant, "bpref_score"
    )


def _judged_only(y_true, y_score, query_id, sample_weight, judged):
    """The long form of the inputs with the unjudged items scored -inf
    (they then rank below every judged item and change no count above a
    relevant one), and the number of judged items of each query."""
    mask = np.asarray(judged)
    if mask.dtype != bool:
        raise TypeError(
            f"judged must be an array of bool (True: judged); got dtype {mask.dtype}."
        )
    if query_id is None:  # 2-D: one query per row, as a long form
        score = np.asarray(y_score, dtype=np.float64)
        if score.ndim != 2 or mask.shape != score.shape:
            raise ValueError(
                f"judged must have the shape of y_score, {score.shape}; "
                f"got {mask.shape}."
            )
        n, m = score.shape
        dense = y_true.toarray() if hasattr(y_true, "toarray") else y_true
        y_true = np.asarray(dense).reshape(-1)
        y_score, query_id = score.reshape(-1), np.repeat(np.arange(n), m)
        if sample_weight is not None:
            sample_weight = np.repeat(np.asarray(sample_weight), m)
        mask = mask.reshape(-1)
    else:
        y_score = np.asarray(y_score, dtype=np.float64)
        if mask.shape != y_score.shape:
            raise ValueError(
                f"judged must have one value per row, shape {y_score.shape}; "
                f"got {mask.shape}."
            )
    if np.any(np.asarray(y_true)[~mask] != 0):
        raise ValueError(
            "judged is False for an item with y_true > 0: a relevant item was "
            "judged; fix the mask or the grades."
        )
    codes, ids = check_query_id(query_id, len(query_id))
    n_judged = np.bincount(codes, weights=mask, minlength=ids.shape[0])
    return y_true, np.where(mask, y_score, -np.inf), query_id, sample_weight, n_judged


@with_convention
@fill_doc
def success_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Success at k: trec_eval's name for the hit rate at k.

    An alias of :func:`hit_rate_at_k` (same definition, same values):
    1 if a relevant item is in the top k, else 0.  trec_eval reports it as
    ``success_1``, ``success_5`` and ``success_10``.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    %(relevance_threshold)s

    %(ties)s

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

    Returns
    -------
    %(returns)s

    See Also
    --------
    hit_rate_at_k : The same metric.

    Examples
    --------
    >>> from sklearn_rankmetrics import success_at_k
    >>> success_at_k([[0, 1, 0, 1], [1, 0, 0, 0]], [[4, 3, 2, 1], [1, 4, 3, 2]], k=2)
    0.5
    """
    return hit_rate_at_k(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        relevance_threshold=relevance_threshold,
        ignore_ties=ignore_ties,
        ties=ties,
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )
