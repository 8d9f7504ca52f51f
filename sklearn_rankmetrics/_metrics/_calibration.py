"""Calibration of click-through-rate (CTR) predictions.

Metrics of predicted probabilities against binary outcomes (clicks):
normalized entropy (He et al. 2014), the calibration ratio and the
expected calibration error.  All are vectorised sums over the rows.
"""

import warnings

import numpy as np

from .._utils._averaging import EVERY_QUERY, weighted_mean, weighted_sum
from .._utils._validation import (
    check_option,
    check_query_id,
    undefined_metric_warning,
    user_stacklevel,
)
from ._auc import gauc_per_query

__all__ = ["calibration_ratio", "expected_calibration_error", "normalized_entropy"]

# Predictions are clipped to [_EPS, 1 - _EPS] inside the logarithms, so that
# a confident wrong prediction (0 or 1) gives a large finite log loss.
_EPS = np.finfo(np.float64).eps


def _check_binary(y_true, y_prob, sample_weight):
    """Validated float64 copies of (y_true, y_prob, sample_weight or None)."""
    y = np.asarray(y_true)
    p = np.asarray(y_prob)
    for name, arr in (("y_true", y), ("y_prob", p)):
        if arr.ndim != 1:
            raise ValueError(
                f"{name} must be 1-D (one row per impression); got shape "
                f"{arr.shape}. Flatten it, e.g. with np.ravel."
            )
        if arr.dtype.kind not in "biuf":
            raise TypeError(
                f"{name} must be numeric (clicks 0/1 and probabilities); got "
                f"dtype {arr.dtype}."
            )
    if y.shape[0] != p.shape[0]:
        raise ValueError(
            f"y_true and y_prob must have the same length; got {y.shape[0]} "
            f"and {p.shape[0]}."
        )
    if y.shape[0] == 0:
        raise ValueError("y_true and y_prob are empty; pass at least one row.")
    y = y.astype(np.float64)
    p = p.astype(np.float64)
    if np.isnan(y).any() or not np.isin(y, (0.0, 1.0)).all():
        bad = np.unique(y[~np.isin(y, (0.0, 1.0))])[:5]
        raise ValueError(
            "y_true must be binary clicks (0 or 1, or booleans); found the "
            f"values {bad.tolist()}. Binarise graded labels first, e.g. "
            "y_true > 0."
        )
    if np.isnan(p).any():
        raise ValueError(
            "y_prob contains NaN; every row needs a predicted probability."
        )
    if ((p < 0) | (p > 1)).any():
        raise ValueError(
            f"y_prob must be probabilities in [0, 1]; found values from "
            f"{p.min()!r} to {p.max()!r}. Pass predict_proba(X)[:, 1], or apply "
            "a sigmoid to raw scores (scipy.special.expit)."
        )
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight)
        if w.dtype.kind not in "biuf":
            raise TypeError(f"sample_weight must be numeric; got dtype {w.dtype}.")
        w = w.astype(np.float64)
        if w.shape != y.shape:
            raise ValueError(
                f"sample_weight must have one weight per row, shape "
                f"{y.shape}; got {w.shape}."
            )
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must be finite and non-negative.")
        if not w.sum() > 0:
            raise ValueError(
                "sample_weight sums to 0: at least one row must weigh more than 0."
            )
    return y, p, w


def _undefined(value, message):
    """``value``, warning when it is nan."""
    if np.isnan(value):
        warnings.warn(message, undefined_metric_warning(), stacklevel=user_stacklevel())
    return float(value)


def _row_log_loss(y, p):
    """Per-row binary cross-entropy, predictions clipped to [eps, 1 - eps]."""
    p = np.clip(p, _EPS, 1 - _EPS)
    return -np.where(y > 0, np.log(p), np.log1p(-p))


def _entropy(rate):
    """Binary entropy (nats) of base rates in [0, 1]; 0 at 0 and 1."""
    rate = np.asarray(rate, dtype=np.float64)
    out = np.zeros(rate.shape)
    inside = (rate > 0) & (rate < 1)
    r = rate[inside]
    out[inside] = -(r * np.log(r) + (1 - r) * np.log1p(-r))
    return out


def normalized_entropy(y_true, y_prob, *, sample_weight=None, undefined_value=np.nan):
    r"""Normalized entropy (NE): log loss divided by the base rate's entropy.

    The log loss of the predictions relative to that of the best constant
    prediction, the observed click-through rate (He et al. [1]_).  Lower is
    better: 1 means no better than predicting the base rate, below 1 means
    the model carries information beyond it.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes (clicks), 0/1 or booleans.

    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of a click, in [0, 1].

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights; they weight both the log loss and the
        base rate.

    undefined_value : float, default=nan
        The value returned when the base rate is 0 or 1 (no clicks, or
        only clicks): its entropy is 0.  With nan an
        :class:`~sklearn.exceptions.UndefinedMetricWarning` is raised too.

    Returns
    -------
    ne : float
        The normalized entropy, >= 0.

    See Also
    --------
    calibration_ratio : Sum of predictions over sum of clicks.
    expected_calibration_error : Binned gap between predictions and rates.
    sklearn.metrics.log_loss : The numerator.
    sklearn.metrics.d2_log_loss_score : Equals ``1 - NE``.

    Notes
    -----
    With weights :math:`w_i`, outcomes :math:`y_i` and predictions
    :math:`p_i`, the base rate is
    :math:`\bar p = \sum_i w_i y_i / \sum_i w_i` and

    .. math::

        \mathrm{NE} = \frac{-\sum_i w_i \left(y_i \log p_i
            + (1 - y_i) \log(1 - p_i)\right) / \sum_i w_i}
            {-\left(\bar p \log \bar p + (1 - \bar p) \log(1 - \bar p)\right)}.

    Predictions are clipped to :math:`[\epsilon, 1 - \epsilon]` (the
    float64 machine epsilon) inside the logarithms.  NE equals
    ``1 - sklearn.metrics.d2_log_loss_score`` on binary outcomes.

    References
    ----------
    .. [1] X. He et al., "Practical Lessons from Predicting Clicks on Ads at
       Facebook", ADKDD 2014.

    Examples
    --------
    >>> from sklearn_rankmetrics import normalized_entropy
    >>> round(normalized_entropy([1, 0], [0.2, 0.3]), 4)
    1.4183
    >>> round(normalized_entropy([1, 0], [0.2, 0.3], sample_weight=[5, 1]), 4)
    3.1087
    """
    y, p, w = _check_binary(y_true, y_prob, sample_weight)
    total = float(y.shape[0]) if w is None else float(w.sum())
    log_loss = weighted_sum(w, _row_log_loss(y, p)) / total
    rate = weighted_sum(w, y) / total
    entropy = float(_entropy(rate))
    if entropy == 0.0:
        return _undefined(
            undefined_value,
            "normalized_entropy is undefined when every outcome is 0 (no "
            "clicks) or every outcome is 1: the base rate's entropy is 0. "
            "Returning undefined_value.",
        )
    return log_loss / entropy


def calibration_ratio(y_true, y_prob, *, sample_weight=None, undefined_value=np.nan):
    r"""Calibration ratio: the sum of the predictions over the sum of clicks.

    1 for predictions that are calibrated on average; above 1 the model
    over-predicts clicks, below 1 it under-predicts them.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes (clicks), 0/1 or booleans.

    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of a click, in [0, 1].

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights.

    undefined_value : float, default=nan
        The value returned when there is no click (weighted clicks sum to
        0).  With nan an :class:`~sklearn.exceptions.UndefinedMetricWarning`
        is raised too.

    Returns
    -------
    ratio : float
        The calibration ratio, >= 0.

    See Also
    --------
    normalized_entropy : Log loss relative to the base rate's entropy.
    expected_calibration_error : Binned gap between predictions and rates.

    Notes
    -----
    .. math::

        \mathrm{ratio} = \frac{\sum_i w_i p_i}{\sum_i w_i y_i}.

    Examples
    --------
    >>> from sklearn_rankmetrics import calibration_ratio
    >>> calibration_ratio([1, 0, 0, 1], [0.5, 0.25, 0.25, 0.5])
    0.75
    """
    y, p, w = _check_binary(y_true, y_prob, sample_weight)
    clicks = weighted_sum(w, y)
    if clicks == 0.0:
        return _undefined(
            undefined_value,
            "calibration_ratio is undefined without clicks (y_true sums to "
            "0). Returning undefined_value.",
        )
    return weighted_sum(w, p) / clicks


def _bin_ids(p, n_bins, strategy):
    """Bin of each prediction, as :func:`sklearn.calibration.calibration_curve`."""
    if strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    return np.searchsorted(edges[1:-1], p)


def expected_calibration_error(
    y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None
):
    r"""Expected calibration error (ECE) over bins of the predictions.

    The predictions are binned as :func:`sklearn.calibration.calibration_curve`
    bins them; the ECE is the mean, over the non-empty bins weighted by
    their share of the total weight, of the absolute gap between the mean
    prediction and the observed rate of the bin.  0 is perfect.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary outcomes (clicks), 0/1 or booleans.

    y_prob : array-like of shape (n_samples,)
        Predicted probabilities of a click, in [0, 1].

    n_bins : int >= 1, default=10
        Number of bins.

    strategy : {"uniform", "quantile"}, default="uniform"
        "uniform": bins of equal width on [0, 1]; "quantile": edges at the
        (unweighted) percentiles of ``y_prob``, as in
        :func:`~sklearn.calibration.calibration_curve`.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights, weighting the bins' means and shares
        (not the quantile edges).

    Returns
    -------
    ece : float
        The expected calibration error, in [0, 1].

    See Also
    --------
    sklearn.calibration.calibration_curve : The per-bin means.
    calibration_ratio : Sum of predictions over sum of clicks.

    Notes
    -----
    With :math:`B_b` the rows of bin :math:`b` and :math:`W = \sum_i w_i`,

    .. math::

        \mathrm{ECE} = \sum_b \frac{W_b}{W}
            \left|\frac{\sum_{i \in B_b} w_i p_i}{W_b}
            - \frac{\sum_{i \in B_b} w_i y_i}{W_b}\right|
            = \frac{1}{W} \sum_b \left|\sum_{i \in B_b} w_i (p_i - y_i)\right|,

    where :math:`W_b = \sum_{i \in B_b} w_i`; empty bins contribute 0.

    Examples
    --------
    >>> from sklearn_rankmetrics import expected_calibration_error
    >>> expected_calibration_error([0, 1, 1, 0], [0.1, 0.3, 0.8, 0.9], n_bins=2)
    0.325
    """
    if (
        isinstance(n_bins, bool)
        or not isinstance(n_bins, (int, np.integer))
        or n_bins < 1
    ):
        raise ValueError(f"n_bins must be an int >= 1; got {n_bins!r}.")
    check_option("strategy", strategy, ("uniform", "quantile"))
    y, p, w = _check_binary(y_true, y_prob, sample_weight)
    bins = _bin_ids(p, int(n_bins), strategy)
    diff = p - y if w is None else w * (p - y)
    gaps = np.bincount(bins, weights=diff, minlength=int(n_bins))
    total = float(y.shape[0]) if w is None else float(w.sum())
    return float(np.abs(gaps).sum() / total)


_STATISTICS = (
    "impressions",
    "clicks",
    "ctr",
    "mean_prediction",
    "calibration_ratio",
    "log_loss",
    "normalized_entropy",
    "auc",
)


def _check_groups(groups, n):
    """Codes 0..n_groups-1 (in the order of the sorted unique values) and
    the unique values; the messages name ``groups``."""
    try:
        return check_query_id(groups, n)
    except (ValueError, TypeError) as exc:
        message = str(exc).replace("query_id", "groups")
        message = message.replace("y_true and y_score", "y_true and y_prob")
        message = message.replace("query id", "group value")
        raise type(exc)(message) from None


def _grouped_sums(y, p, w, codes, n_groups):
    """Per-group impressions, clicks, summed predictions and summed log
    loss (weighted), by bincount: the mergeable part of the report."""
    ones = np.ones(y.shape[0]) if w is None else w
    return np.vstack(
        [
            np.bincount(codes, weights=ones, minlength=n_groups),
            np.bincount(codes, weights=ones * y, minlength=n_groups),
            np.bincount(codes, weights=ones * p, minlength=n_groups),
            np.bincount(codes, weights=ones * _row_log_loss(y, p), minlength=n_groups),
        ]
    )


def _statistics_from_sums(sums):
    """The report's statistics but the AUC, from :func:`_grouped_sums`.

    Undefined values are nan: the calibration ratio without clicks, the
    normalized entropy when the group's clicks are all 0 or all 1.
    """
    impressions, clicks, pred, loss = sums
    nan = np.full(impressions.shape, np.nan)
    ctr, mean_prediction, log_loss = nan.copy(), nan.copy(), nan.copy()
    weighed = impressions > 0
    np.divide(clicks, impressions, out=ctr, where=weighed)
    np.divide(pred, impressions, out=mean_prediction, where=weighed)
    np.divide(loss, impressions, out=log_loss, where=weighed)
    ratio = nan.copy()
    np.divide(pred, clicks, out=ratio, where=clicks > 0)
    entropy = _entropy(np.where(weighed, np.clip(ctr, 0.0, 1.0), 0.0))
    ne = nan.copy()
    np.divide(log_loss, entropy, out=ne, where=entropy > 0)
    return {
        "impressions": impressions,
        "clicks": clicks,
        "ctr": ctr,
        "mean_prediction": mean_prediction,
        "calibration_ratio": ratio,
        "log_loss": log_loss,
        "normalized_entropy": ne,
    }


def _grouped_statistics(y, p, w, codes, n_groups):
    """Every statistic of the report per group, by bincount (no loop);
    the AUC of a group with a single class is nan."""
    sums = _grouped_sums(y, p, w, codes, n_groups)
    table = _statistics_from_sums(sums)
    table["auc"], _ = gauc_per_query(
        "long", y, p, codes, n_groups, w, None, "impressions"
    )
    return table, sums[2]


def _field_rce(impressions, clicks, pred):
    """Field-level RCE over the groups with clicks; nan without any."""
    used = clicks > 0
    if not used.any():
        return float("nan")
    rce = np.abs(clicks[used] - pred[used]) / clicks[used]
    return weighted_mean(rce, impressions[used], keep=EVERY_QUERY)
