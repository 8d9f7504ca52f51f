"""Top-k ranking metrics: precision, recall, F, hit rate, MRR, MAP, DCG, NDCG.

Each metric is a few vectorised lines over the per-rank tie-group
description built by :mod:`sklearn_rankmetrics._engine`.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._docstrings import fill_doc
from ._engine import average_queries, pooled_ratio, rank
from ._validation import (
    check_average,
    check_no_relevant,
    check_option,
    check_real,
)

__all__ = [
    "average_precision_at_k",
    "dcg_at_k",
    "f1_at_k",
    "fbeta_at_k",
    "hit_rate_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank_at_k",
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
    averages=("queries",),
    relevance_threshold=None,
    gain="linear",
    need_ideal=False,
):
    """Check the options every metric shares and rank the queries."""
    if not isinstance(ignore_ties, (bool, np.bool_)):
        raise TypeError(f"ignore_ties must be True or False; got {ignore_ties!r}.")
    no_relevant = check_no_relevant(no_relevant)
    average = check_average(average, averages)
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    gain = check_option("gain", gain, ("linear", "exponential"))
    rk = rank(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        threshold=threshold,
        gain=gain,
        ignore_ties=bool(ignore_ties),
        need_ideal=need_ideal,
    )
    return rk, no_relevant, average


def _divide(num, den):
    """``num / den`` with 0 where ``den == 0``."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


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


def _fbeta_weights(beta):
    """``(b^2, 1) / (1 + b^2)``, the weights of R (or recall) and k (or
    precision) in F-beta's denominator, without overflow for any beta."""
    if beta <= 1.0:
        b2 = beta * beta
        return b2 / (1.0 + b2), 1.0 / (1.0 + b2)
    ib2 = (1.0 / beta) ** 2
    return 1.0 / (1.0 + ib2), ib2 / (1.0 + ib2)


def _fbeta_from_counts(hits, n_rel, cutoff, beta):
    """F-beta = (1 + b^2) hits / (b^2 R + k), linear in hits (exact ties)."""
    w_rel, w_cut = _fbeta_weights(beta)
    return _divide(hits, w_rel * n_rel + w_cut * cutoff)


def _discount(rk, log_base):
    """1 / log_b(i + 1) for the ranks 1..K."""
    return np.log(log_base) / np.log1p(rk.rank)


# ---------------------------------------------------------------------------
# Per-query kernels: one value per query of a Ranking (SPEC appendix).  The
# public functions below, and the report, average their output.
# ---------------------------------------------------------------------------
def _precision_values(rk):
    return _divide(rk.hits, rk.cutoff)


def _recall_values(rk):
    return _divide(rk.hits, rk.n_rel)


def _fbeta_values(rk, beta=1.0):
    return _fbeta_from_counts(rk.hits, rk.n_rel, rk.cutoff, beta)


def _hit_rate_values(rk):
    return 1.0 - np.prod(rk.no_hit_factors(), axis=1)


def _reciprocal_rank_values(rk):
    q = rk.no_hit_factors()
    survive = np.ones_like(q)  # P(no relevant item before rank i)
    np.cumprod(q[:, :-1], axis=1, out=survive[:, 1:])
    return (survive * (1.0 - q) / rk.rank).sum(axis=1)


def _average_precision_values(rk, ap_denominator="relevant"):
    # E[rel_i * hits@i] = (r/g) (h + 1 + (i - a)(r - 1)/(g - 1))
    same_group_before = _divide(
        (rk.rank - rk.group_start) * (rk.group_relevant - 1.0), rk.group_size - 1.0
    )
    expected = rk.p_relevant * (rk.relevant_before + 1.0 + same_group_before)
    total = (expected / rk.rank).sum(axis=1)
    denominator = rk.n_rel
    if ap_denominator == "min_k" and rk.k is not None:
        denominator = np.minimum(denominator, float(rk.k))
    return _divide(total, denominator)


def _dcg_values(rk, log_base=2.0):
    return _gain_sum(rk.mean_gain, _discount(rk, log_base), rk.gain)


def _ndcg_values(rk, log_base=2.0):
    discount = _discount(rk, log_base)
    dcg = _gain_sum(rk.mean_gain, discount, rk.gain)
    return _divide(dcg, _gain_sum(rk.ideal_gain, discount, rk.gain))


class Kernel(NamedTuple):
    """How one metric reads a :class:`~sklearn_rankmetrics._engine.Ranking`.

    ``values(rk, **options)`` gives one value per query; the query is
    defined (has something to find) where ``getattr(rk, defined_by) > 0``;
    ``needs_ideal`` asks :func:`rank` for the ideal gains; ``options`` are
    the keyword options ``values`` takes.
    """

    values: Callable
    defined_by: str
    needs_ideal: bool = False
    options: tuple = ()


# Scorer name (without "@k") -> kernel: the one table the report and the
# scorers read, so that a metric added here is everywhere.
KERNELS = {
    "precision": Kernel(_precision_values, "n_rel"),
    "recall": Kernel(_recall_values, "n_rel"),
    "f1": Kernel(_fbeta_values, "n_rel"),
    "fbeta": Kernel(_fbeta_values, "n_rel", options=("beta",)),
    "hit_rate": Kernel(_hit_rate_values, "n_rel"),
    "mrr": Kernel(_reciprocal_rank_values, "n_rel"),
    "map": Kernel(_average_precision_values, "n_rel", options=("ap_denominator",)),
    "dcg": Kernel(_dcg_values, "n_pos", options=("log_base",)),
    "ndcg": Kernel(_ndcg_values, "n_pos", needs_ideal=True, options=("log_base",)),
}


@fill_doc
def precision_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
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

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

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
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
    )
    defined = rk.n_rel > 0
    name = "precision_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        return pooled_ratio(rk.hits, rk.cutoff, keep, rk.weights, name)
    values = _precision_values(rk)
    return average_queries(values, defined, rk.weights, average, no_relevant, name)


@fill_doc
def recall_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
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

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_micro)s

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
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
    )
    defined = rk.n_rel > 0
    name = "recall_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        return pooled_ratio(rk.hits, rk.n_rel, keep, rk.weights, name)
    values = _recall_values(rk)
    return average_queries(values, defined, rk.weights, average, no_relevant, name)


@fill_doc
def fbeta_at_k(
    y_true,
    y_score,
    *,
    k=None,
    beta=1.0,
    query_id=None,
    relevance_threshold=None,
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
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        averages=("queries", "micro"),
        relevance_threshold=relevance_threshold,
    )
    defined = rk.n_rel > 0
    name = "fbeta_at_k"
    if average == "micro":
        keep = _micro_keep(defined, no_relevant, name)
        p = pooled_ratio(rk.hits, rk.cutoff, keep, rk.weights, name)
        if np.isnan(p):  # every query skipped: warned once
            return p
        r = pooled_ratio(rk.hits, rk.n_rel, keep, rk.weights, name)
        w_rel, w_cut = _fbeta_weights(beta)
        den = w_rel * p + w_cut * r
        return float(p * r / den) if den else 0.0
    values = _fbeta_values(rk, beta)
    return average_queries(values, defined, rk.weights, average, no_relevant, name)


@fill_doc
def f1_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
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
        no_relevant=no_relevant,
        sample_weight=sample_weight,
        average=average,
    )


@fill_doc
def hit_rate_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
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
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
    )
    values = _hit_rate_values(rk)
    return average_queries(
        values, rk.n_rel > 0, rk.weights, average, no_relevant, "hit_rate_at_k"
    )


@fill_doc
def reciprocal_rank_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
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
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
    )
    values = _reciprocal_rank_values(rk)
    return average_queries(
        values, rk.n_rel > 0, rk.weights, average, no_relevant, "reciprocal_rank_at_k"
    )


@fill_doc
def average_precision_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ap_denominator="relevant",
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

    ap_denominator : {"relevant", "min_k"}, default="relevant"
        "relevant" divides by :math:`R`, all relevant items of the query,
        as trec_eval does; "min_k" divides by :math:`\min(R, k)` (the
        ``apk`` of ml_metrics, common in recommender code), so a perfect
        top k scores 1 even when :math:`R > k`.  With ``k=None`` both are
        :math:`R`.

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
        D = R \text{ or } \min(R, k) .

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
    ap_denominator = check_option(
        "ap_denominator", ap_denominator, ("relevant", "min_k")
    )
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        relevance_threshold=relevance_threshold,
    )
    values = _average_precision_values(rk, ap_denominator)
    name = "average_precision_at_k"
    return average_queries(values, rk.n_rel > 0, rk.weights, average, no_relevant, name)


def _gain_sum(gains, discount, gain):
    """Discounted sum of each row of ``gains``; ValueError if it overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = (gains * discount).sum(axis=1)
    if not np.isfinite(total).all():
        raise ValueError(
            f"The gains of the y_true grades overflow float64 with gain={gain!r}"
            " (2**rel - 1 is infinite for grades >= 1024 with 'exponential'); "
            "use smaller grades, or gain='linear'."
        )
    return total


@fill_doc
def dcg_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    gain="linear",
    log_base=2,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    r"""Discounted cumulative gain at k.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    %(y_true)s

    %(y_score)s

    %(k)s

    %(query_id)s

    gain : {"linear", "exponential"}, default="linear"
        Gain of a grade: "linear" is the grade itself (as
        :func:`sklearn.metrics.dcg_score` and trec_eval); "exponential" is
        :math:`2^{rel} - 1` (as LightGBM and XGBoost).

    log_base : float > 1, default=2
        Base of the logarithm of the discount.

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

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
    """
    log_base = check_real("log_base", log_base, low=1.0)
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        gain=gain,
    )
    values = _dcg_values(rk, log_base)
    return average_queries(
        values, rk.n_pos > 0, rk.weights, average, no_relevant, "dcg_at_k"
    )


@fill_doc
def ndcg_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    gain="linear",
    log_base=2,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
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

    gain : {"linear", "exponential"}, default="linear"
        Gain of a grade: "linear" is the grade itself (as
        :func:`sklearn.metrics.ndcg_score` and trec_eval); "exponential" is
        :math:`2^{rel} - 1` (as LightGBM and XGBoost).

    log_base : float > 1, default=2
        Base of the logarithm of the discount.

    %(ignore_ties)s

    %(no_relevant)s

    %(sample_weight)s

    %(average_queries)s

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

    where :math:`rel^*` are all the query's grades in decreasing order.
    ``no_relevant=0.0`` reproduces :func:`sklearn.metrics.ndcg_score`, which
    scores queries without relevant items as 0.  %(ties_note)s

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
    """
    log_base = check_real("log_base", log_base, low=1.0)
    rk, no_relevant, average = _prepare(
        y_true,
        y_score,
        k=k,
        query_id=query_id,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        no_relevant=no_relevant,
        average=average,
        gain=gain,
        need_ideal=True,
    )
    values = _ndcg_values(rk, log_base)
    return average_queries(
        values, rk.n_pos > 0, rk.weights, average, no_relevant, "ndcg_at_k"
    )
