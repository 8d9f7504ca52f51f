"""The variants of group AUC used by CTR teams, as options over
:func:`sklearn_rankmetrics._auc.group_auc_score` (which computes the
per-query AUCs): skipping users whose scores are all equal, weighting users
by clicks, and the value returned when no user can be scored."""

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

from . import _auc
from ._conventions import with_convention
from ._engine import _relevant, check_inputs, exact_threshold
from ._validation import check_average, check_option, check_real

__all__ = ["group_auc_score"]


def _per_query_stats(form, Y, S, codes, n_q, w, threshold):
    """Rows (or summed row weights), relevant rows, and whether all scores
    are equal, per query."""
    if form == "long":
        ones = np.ones(codes.shape[0]) if w is None else w
        rows = np.bincount(codes, weights=ones, minlength=n_q)
        clicks = np.bincount(
            codes, weights=ones * _relevant(Y, threshold), minlength=n_q
        )
        low = np.full(n_q, np.inf)
        high = np.full(n_q, -np.inf)
        np.minimum.at(low, codes, S)
        np.maximum.at(high, codes, S)
        return rows, clicks, low == high, np.bincount(codes, minlength=n_q)
    n, m = S.shape
    if form == "sparse":
        hit = sp.csr_matrix(
            (_relevant(Y.data, threshold), Y.indices, Y.indptr), Y.shape
        )
        clicks = np.asarray(hit.sum(axis=1), dtype=np.float64).ravel()
    else:
        clicks = np.count_nonzero(_relevant(Y, threshold), axis=1).astype(np.float64)
    rows = np.full(n, float(m))
    if w is not None:
        rows, clicks = rows * w, clicks * w
    return rows, clicks, S.max(axis=1) == S.min(axis=1), None


@with_convention
def group_auc_score(
    y_true,
    y_score,
    *,
    query_id=None,
    relevance_threshold=None,
    query_weighting="impressions",
    constant_scores="keep",
    undefined_value=np.nan,
    sample_weight=None,
    average="queries",
):
    r"""Group AUC (GAUC): ROC AUC within each query, averaged over queries.

    The AUC of the scores of each query (user, session, ...) taken alone,
    weighted over the queries that have both relevant and irrelevant items
    (Zhou et al. [1]_).  Ties count one half, as in
    :func:`sklearn.metrics.roc_auc_score`.

    Read more in the :ref:`User Guide <metrics>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
        Relevance (clicks); an item is positive when ``y_true > 0`` (or
        ``>= relevance_threshold``).

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Predicted scores.

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form.

    relevance_threshold : float > 0 or None, default=None
        An item is positive when ``y_true >= relevance_threshold``.

    query_weighting : {"impressions", "uniform", "clicks"}, default="impressions"
        Weight of a query in the mean: its number of rows (impressions, the
        DIN paper; the sum of its row weights in the long form), 1, or its
        number of positive rows (clicks; summed row weights).  In the 2-D
        form the query's ``sample_weight`` multiplies it.

    constant_scores : {"keep", "skip"}, default="keep"
        "skip" leaves out the queries whose items all have the same score
        (their AUC is 0.5 but carries no ranking information), as several
        CTR teams report.

    undefined_value : float, default=nan
        The value returned when no query can be scored (every query has a
        single class, or is skipped, or weighs 0).  With nan an
        ``UndefinedMetricWarning`` is raised too.

    sample_weight : array-like of shape (n_queries,) or (n_rows,), default=None
        2-D form: one weight per query.  Long form: one per row, weighting
        the rows inside each AUC.

    average : {"queries"} or None, default="queries"
        None returns the per-query AUCs (nan where undefined or skipped).

    Returns
    -------
    score : float or ndarray of shape (n_queries,)

    See Also
    --------
    sklearn.metrics.roc_auc_score : The AUC of one query.

    Notes
    -----
    .. math::

        GAUC = \frac{\sum_q v_q AUC_q}{\sum_q v_q}

    over the queries with both classes (and, with
    ``constant_scores="skip"``, more than one distinct score), :math:`v_q`
    being the query weight.

    References
    ----------
    .. [1] Zhou, G. et al. (2018). Deep Interest Network for Click-Through
           Rate Prediction. KDD 2018.

    Examples
    --------
    >>> from sklearn_rankmetrics import group_auc_score
    >>> y_true = [1, 0, 0, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.5, 0.6, 0.5, 0.5, 0.5, 0.4]
    >>> query_id = ["u1", "u1", "u1", "u2", "u2", "u2", "u3"]
    >>> group_auc_score(y_true, y_score, query_id=query_id)
    0.75
    >>> group_auc_score(y_true, y_score, query_id=query_id, constant_scores="skip")
    1.0
    >>> group_auc_score(y_true, y_score, query_id=query_id, query_weighting="clicks")
    0.666...
    """
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    query_weighting = check_option(
        "query_weighting", query_weighting, ("impressions", "uniform", "clicks")
    )
    constant_scores = check_option("constant_scores", constant_scores, ("keep", "skip"))
    if isinstance(undefined_value, (bool, np.bool_)) or not isinstance(
        undefined_value, numbers.Real
    ):
        raise TypeError(
            f"undefined_value must be a number (or nan); got {undefined_value!r}."
        )
    average = check_average(average, ("queries",))
    auc = _auc.group_auc_score(
        y_true,
        y_score,
        query_id=query_id,
        relevance_threshold=relevance_threshold,
        sample_weight=sample_weight,
        average=None,
    )
    form, Y, S, codes, _, w = check_inputs(
        y_true, y_score, query_id, sample_weight, row_weights=True
    )
    threshold = exact_threshold(threshold, Y.dtype)
    rows, clicks, constant, n_rows = _per_query_stats(
        form, Y, S, codes, auc.shape[0], w, threshold
    )
    defined = ~np.isnan(auc)
    if constant_scores == "skip":
        defined &= ~constant
    values = np.where(defined, auc, np.nan)
    if average is None:
        return values
    if query_weighting == "impressions":
        weights = rows
    elif query_weighting == "clicks":
        weights = clicks
    elif form == "long":  # the mean row weight, as _auc does
        weights = np.ones_like(rows) if w is None else rows / n_rows
    else:
        weights = np.ones_like(rows) if w is None else w
    weights = weights[defined]
    total = weights.sum()
    if total == 0:
        if np.isnan(undefined_value):
            warnings.warn(
                "group_auc_score: no query could be scored (every query has "
                "a single class, was skipped or weighs 0); returning nan.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        return float(undefined_value)
    return float(np.dot(weights, values[defined]) / total)
