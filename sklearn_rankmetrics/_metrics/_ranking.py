"""Ranking metrics: precision, recall, F, hit rate, MRR, MAP, DCG, NDCG,
R-precision, fall-out, ERR, RBP and bpref.

Each public function documents its metric, checks its own options and
hands its arguments to :func:`~._driver.metric_value` with its kernel
(:mod:`._kernels`, a few vectorised lines over the per-rank tie-group
description built by :mod:`sklearn_rankmetrics._engine`); the
inverse-propensity estimators go to :func:`~._ips.ips_metric`.
"""

import numpy as np

from .._utils._averaging import pooled_ratio
from .._utils._docstrings import fill_doc
from .._utils._validation import (
    check_discount,
    check_option,
    check_persistence,
    check_query_id,
    check_real,
)
from ._base import with_convention
from ._driver import Pooled, metric_value, relevant_counts
from ._ips import _check_self_normalized, ips_metric
from ._kernels import (
    AP_DENOMINATORS,
    AVERAGE_PRECISION_KERNEL,
    BPREF_KERNEL,
    DCG_KERNEL,
    ERR_KERNEL,
    FALLOUT_KERNEL,
    FBETA_KERNEL,
    HIT_RATE_KERNEL,
    IDEAL_RULES,
    NDCG_KERNEL,
    PRECISION_DENOMINATORS,
    PRECISION_KERNEL,
    R_PRECISION_KERNEL,
    RBP_GAINS,
    RBP_KERNEL,
    RBP_RESIDUAL_KERNEL,
    RECALL_KERNEL,
    RECIPROCAL_RANK_KERNEL,
    THRESHOLD_AVERAGE_PRECISION_KERNEL,
    _fbeta_weights,
    _precision_cutoff,
)

# private module: the package exports its metrics from the registry
__all__ = []


# ---------------------------------------------------------------------------
# The micro averages: pooled counts (average="micro")
# ---------------------------------------------------------------------------
def _pooled_precision(precision_denominator):
    """Total hits over the total precision denominators."""

    def counts(rk):
        return {
            "hits": rk.hits,
            "cutoff": _precision_cutoff(rk, precision_denominator),
        }

    def value(q, keep, name):
        return pooled_ratio(q.hits, q.cutoff, keep, q.weights, name)

    return Pooled(counts, value)


def _recall_counts(rk):
    return {"hits": rk.hits}


def _pooled_recall_value(q, keep, name):
    return pooled_ratio(q.hits, q.n_rel, keep, q.weights, name)


# Total hits over the total relevant items.
_POOLED_RECALL = Pooled(_recall_counts, _pooled_recall_value)


def _pooled_fbeta(beta):
    """The F-beta of the pooled precision and recall."""

    def counts(rk):
        return {"hits": rk.hits, "cutoff": rk.cutoff}

    def value(q, keep, name):
        p = pooled_ratio(q.hits, q.cutoff, keep, q.weights, name)
        if np.isnan(p):  # every query skipped: warned once
            return p
        r = pooled_ratio(q.hits, q.n_rel, keep, q.weights, name)
        w_rel, w_cut = _fbeta_weights(beta)
        den = w_rel * p + w_cut * r
        return float(p * r / den) if den else 0.0

    return Pooled(counts, value)


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
    %(ranking_inputs)s

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

    %(ranking_options_micro)s

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

    %(min_propensity)s

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
        return ips_metric("precision_at_k", locals())
    return metric_value(
        "precision_at_k",
        PRECISION_KERNEL,
        locals(),
        pooled=_pooled_precision(precision_denominator),
    )


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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options_micro)s

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

    %(min_propensity)s

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
        return ips_metric("recall_at_k", locals())
    return metric_value("recall_at_k", RECALL_KERNEL, locals(), pooled=_POOLED_RECALL)


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

    %(ranking_options_micro)s

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
    return metric_value(
        "fbeta_at_k", FBETA_KERNEL, locals(), pooled=_pooled_fbeta(beta)
    )


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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options_micro)s

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
    return fbeta_at_k(**locals(), beta=1.0)


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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options)s

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
    return metric_value("hit_rate_at_k", HIT_RATE_KERNEL, locals())


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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options)s

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
    return metric_value("reciprocal_rank_at_k", RECIPROCAL_RANK_KERNEL, locals())


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
    %(ranking_inputs)s

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
    if isinstance(ties, str) and ties == "threshold":
        return _threshold_average_precision(locals())
    return metric_value("average_precision_at_k", AVERAGE_PRECISION_KERNEL, locals())


def _threshold_average_precision(args):
    """:func:`average_precision_at_k` with ``ties="threshold"``:
    scikit-learn's rule, which reads whole tie groups (its own kernel, on
    the ranking of the expected rule; ``ap_denominator`` is R)."""
    if args["k"] is not None or args["ignore_ties"]:
        raise ValueError(
            "ties='threshold' (scikit-learn's average_precision_score) reads "
            "whole tie groups: use it with k=None and ignore_ties=False."
        )
    args = {key: value for key, value in args.items() if key != "ap_denominator"}
    return metric_value(
        "average_precision_at_k",
        THRESHOLD_AVERAGE_PRECISION_KERNEL,
        args,
        ties="expected",
    )


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
    %(ranking_inputs)s

    %(gain)s

    %(log_base)s

    %(discount)s

    %(ranking_options)s

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

    %(min_propensity)s

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
        return ips_metric("dcg_at_k", locals())
    return metric_value("dcg_at_k", DCG_KERNEL, locals())


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
    %(ranking_inputs)s

    %(gain)s

    %(log_base)s

    %(discount)s

    %(ranking_options)s

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

    %(min_propensity)s

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
    if propensity is None and item_weight is None:
        return metric_value("ndcg_at_k", NDCG_KERNEL, locals())
    if ideal != "relevant":
        raise ValueError(
            f"ideal={ideal!r} is not defined with propensity= or item_weight= "
            "(their ideal comes from the estimated or weighted gains); use "
            "ideal='relevant'."
        )
    return ips_metric("ndcg_at_k", locals())


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

    %(ranking_options)s

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
    args = dict(locals())
    # R per query first, then the ranking at the largest R: the first R
    # ranks of every query.
    deepest = max(int(relevant_counts(args).max(initial=0.0)), 1)
    return metric_value("r_precision_score", R_PRECISION_KERNEL, args, k=deepest)


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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options)s

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
    return metric_value("fallout_at_k", FALLOUT_KERNEL, locals())


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
    %(ranking_inputs)s

    max_grade : float or None, default=None
        :math:`g_{max}`, the top grade of the relevance scale (e.g. 4 for
        grades 0..4).  None takes the largest grade of ``y_true``, over all
        queries.  Must be at least every grade.

    %(ranking_options)s

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
    return metric_value("expected_reciprocal_rank_at_k", ERR_KERNEL, locals())


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
    %(ranking_inputs)s

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

    %(ranking_options)s

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
    return metric_value("rank_biased_precision_at_k", RBP_KERNEL, locals())


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
    %(ranking_inputs)s

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
    return metric_value("rbp_residual_at_k", RBP_RESIDUAL_KERNEL, locals())


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

    %(ranking_options)s

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
    if judged is None:
        return metric_value("bpref_score", BPREF_KERNEL, locals())
    return _judged_bpref(locals())


def _judged_bpref(args):
    """:func:`bpref_score` of the judged items: those of the long form of
    the inputs (:func:`_judged_only`), each query's items counted among
    the judged ones only."""
    y_true, y_score, query_id, sample_weight, n_judged = _judged_only(
        args["y_true"],
        args["y_score"],
        args["query_id"],
        args["sample_weight"],
        args["judged"],
    )
    return metric_value(
        "bpref_score",
        BPREF_KERNEL,
        args,
        inputs={"n_items": lambda: n_judged},
        y_true=y_true,
        y_score=y_score,
        query_id=query_id,
        sample_weight=sample_weight,
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
    %(ranking_inputs)s

    %(relevance_threshold)s

    %(ranking_options)s

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
    return hit_rate_at_k(**locals())
