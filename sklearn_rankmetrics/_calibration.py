"""Calibration metrics for click-through-rate (CTR) models."""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

__all__ = ["calibration_ratio", "expected_calibration_error", "normalized_entropy"]


def _check_binary(y_true, y_prob, sample_weight):
    y_true = np.asarray(y_true)
    y_prob = np.asarray(y_prob, dtype=float)
    if y_true.ndim != 1 or y_prob.ndim != 1:
        raise ValueError(
            "y_true and y_prob must be 1-D arrays; pass one row per impression."
        )
    if y_true.shape[0] != y_prob.shape[0]:
        raise ValueError(
            f"y_true and y_prob have different lengths ({y_true.shape[0]} and "
            f"{y_prob.shape[0]}); pass one probability per label."
        )
    if y_true.shape[0] == 0:
        raise ValueError("y_true is empty; pass at least one impression.")
    if np.isnan(y_prob).any():
        raise ValueError("y_prob contains NaN; drop or impute those rows.")
    if ((y_prob < 0) | (y_prob > 1)).any():
        raise ValueError(
            "y_prob must be probabilities in [0, 1]; apply a sigmoid to raw scores."
        )
    try:
        y = y_true.astype(float)
    except (TypeError, ValueError):
        raise ValueError("y_true must be binary (0/1 clicks).") from None
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("y_true must be binary (0/1 clicks); found other values.")
    if sample_weight is None:
        w = np.ones_like(y)
    else:
        w = np.asarray(sample_weight, dtype=float)
        if w.shape != y.shape:
            raise ValueError(
                f"sample_weight has shape {w.shape}, expected {y.shape}; "
                "pass one weight per row."
            )
        if not np.isfinite(w).all() or (w < 0).any():
            raise ValueError("sample_weight must be finite and non-negative.")
        if w.sum() <= 0:
            raise ValueError("sample_weight sums to zero; pass positive weights.")
    return y, y_prob, w


def normalized_entropy(y_true, y_prob, *, sample_weight=None, eps=1e-15):
    r"""Normalized entropy (He et al., 2014) of predicted click probabilities.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary clicks (0 or 1).
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the impressions.
    eps : float, default=1e-15
        Probabilities are clipped to ``[eps, 1 - eps]`` in the log loss.

    Returns
    -------
    score : float
        Weighted log loss divided by the entropy of the weighted base rate
        (lower is better; 1 is the constant base-rate predictor). ``nan`` with
        an ``UndefinedMetricWarning`` when all labels are equal (zero entropy).

    See Also
    --------
    calibration_ratio : Sum of predictions over sum of clicks.
    sklearn.metrics.d2_log_loss_score : Equals ``1 - normalized_entropy``.

    Notes
    -----
    With base rate :math:`p = \sum_i w_i y_i / \sum_i w_i`,

    .. math::

        NE = \frac{-\sum_i w_i (y_i \log q_i + (1 - y_i)\log(1 - q_i)) / \sum_i w_i}
                  {-(p \log p + (1 - p) \log(1 - p))}.

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
    y, q, w = _check_binary(y_true, y_prob, sample_weight)
    q = np.clip(q, eps, 1 - eps)
    total = w.sum()
    log_loss = -np.sum(w * (y * np.log(q) + (1 - y) * np.log1p(-q))) / total
    p = np.sum(w * y) / total
    if p <= 0 or p >= 1:
        warnings.warn(
            "normalized_entropy is undefined when all labels are equal "
            "(the base-rate entropy is zero); returning nan.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    entropy = -(p * np.log(p) + (1 - p) * np.log1p(-p))
    return float(log_loss / entropy)


def calibration_ratio(y_true, y_prob, *, sample_weight=None):
    r"""Ratio of the (weighted) sum of predictions to the sum of clicks.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary clicks (0 or 1).
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the impressions.

    Returns
    -------
    ratio : float
        :math:`\sum_i w_i q_i / \sum_i w_i y_i`; 1 is perfectly calibrated on
        average, above 1 over-predicts. Without any click the ratio is
        undefined: ``nan`` with an ``UndefinedMetricWarning``.

    See Also
    --------
    normalized_entropy : Log loss normalized by the base-rate entropy.

    Examples
    --------
    >>> from sklearn_rankmetrics import calibration_ratio
    >>> float(calibration_ratio([1, 0, 0, 1], [0.5, 0.25, 0.25, 0.5]))
    0.75
    """
    y, q, w = _check_binary(y_true, y_prob, sample_weight)
    clicks = np.sum(w * y)
    if clicks == 0:
        warnings.warn(
            "calibration_ratio is undefined without clicks; returning nan.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(np.sum(w * q) / clicks)


def expected_calibration_error(
    y_true, y_prob, *, n_bins=10, strategy="uniform", sample_weight=None
):
    r"""Expected calibration error over the bins of ``calibration_curve``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary clicks (0 or 1).
    y_prob : array-like of shape (n_samples,)
        Predicted click probabilities in [0, 1].
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Bin edges as in :func:`sklearn.calibration.calibration_curve`
        (quantile edges are unweighted quantiles of ``y_prob``, computed with
        the same floating-point percentiles so that ties on edges agree).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the impressions.

    Returns
    -------
    ece : float
        Sum over non-empty bins of the bin's share of total weight times
        ``|mean prediction - observed rate|`` in the bin.

    See Also
    --------
    sklearn.calibration.calibration_curve : The same bins.

    Notes
    -----
    .. math:: ECE = \sum_b \frac{W_b}{W} \left| \bar q_b - \bar y_b \right|.

    Examples
    --------
    >>> from sklearn_rankmetrics import expected_calibration_error
    >>> y, q = [0, 1, 1, 1], [0.1, 0.2, 0.8, 0.9]
    >>> round(expected_calibration_error(y, q, n_bins=2), 4)
    0.25
    """
    y, q, w = _check_binary(y_true, y_prob, sample_weight)
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    if strategy == "quantile":
        bins = np.percentile(q, np.linspace(0, 1, n_bins + 1) * 100)
    elif strategy == "uniform":
        bins = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}.")
    ids = np.searchsorted(bins[1:-1], q)
    bq = np.bincount(ids, weights=w * q, minlength=n_bins)
    by = np.bincount(ids, weights=w * y, minlength=n_bins)
    return float(np.sum(np.abs(bq - by)) / w.sum())
