"""Per-field calibration plot: predicted against observed CTR per group."""

import numpy as np
from scipy.stats import norm

from .._metrics._calibration import _check_binary, _check_groups, _grouped_statistics

__all__ = ["GroupCalibrationDisplay"]


def wilson_interval(clicks, n, confidence):
    """Wilson score interval of a binomial proportion ``clicks / n``.

    Arrays of equal shape; nan where ``n`` is 0.
    """
    clicks = np.asarray(clicks, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = norm.ppf(0.5 + confidence / 2)
    lower = np.full(n.shape, np.nan)
    upper = np.full(n.shape, np.nan)
    ok = n > 0
    nn, rate = n[ok], clicks[ok] / n[ok]
    denom = 1 + z**2 / nn
    center = (rate + z**2 / (2 * nn)) / denom
    half = z / denom * np.sqrt(rate * (1 - rate) / nn + z**2 / (4 * nn**2))
    lower[ok] = np.maximum(center - half, 0.0)
    upper[ok] = np.minimum(center + half, 1.0)
    return lower, upper


class GroupCalibrationDisplay:
    r"""Predicted against observed CTR for each value of a field.

    One point per field value (ad position, country, ...): the mean
    prediction on the x axis, the observed CTR on the y axis, with a
    Wilson score interval of the observed CTR, next to the diagonal of
    perfect calibration.  Built like scikit-learn's
    :class:`~sklearn.calibration.CalibrationDisplay`: use
    :meth:`from_predictions` or :meth:`from_estimator`.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    groups : ndarray of shape (n_groups,)
        The field values (sorted).
    mean_prediction : ndarray of shape (n_groups,)
        Mean predicted probability of each group.
    observed_ctr : ndarray of shape (n_groups,)
        Observed click rate of each group.
    lower, upper : ndarray of shape (n_groups,)
        Bounds of the interval of the observed CTR.
    impressions : ndarray of shape (n_groups,)
        Impressions (summed weights) of each group.
    name : str, default=None
        Model name, used as the legend label.

    Attributes
    ----------
    errorbar_ : matplotlib ErrorbarContainer
        The points and their intervals; ``errorbar_.lines[0].get_xydata()``
        is ``(mean_prediction, observed_ctr)``.
    line_ : matplotlib Line2D
        The points (``errorbar_.lines[0]``).
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    calibration_report : The same statistics as a table.
    sklearn.calibration.CalibrationDisplay : Calibration over bins of the
        predictions.

    Notes
    -----
    The interval of a group with :math:`n` impressions and observed rate
    :math:`\hat p` is Wilson's score interval at level ``confidence``, with
    :math:`z` the standard normal quantile of :math:`(1 + \text{confidence})/2`:

    .. math::

        \frac{\hat p + \frac{z^2}{2n} \pm z \sqrt{\frac{\hat p (1 - \hat p)}{n}
            + \frac{z^2}{4 n^2}}}{1 + \frac{z^2}{n}}.

    With ``sample_weight``, :math:`\hat p` is the weighted rate and
    :math:`n` Kish's effective sample size
    :math:`(\sum_i w_i)^2 / \sum_i w_i^2` of the group.

    Examples
    --------
    >>> from sklearn_rankmetrics import GroupCalibrationDisplay
    >>> display = GroupCalibrationDisplay.from_predictions(
    ...     [1, 0, 0, 1, 0, 0], [0.5, 0.5, 0.2, 0.4, 0.2, 0.2],
    ...     groups=["a", "a", "a", "b", "b", "b"], plot=False)
    >>> display.observed_ctr.round(3)
    array([0.333, 0.333])
    >>> display.lower.round(3), display.upper.round(3)
    (array([0.061, 0.061]), array([0.792, 0.792]))
    """

    def __init__(
        self,
        *,
        groups,
        mean_prediction,
        observed_ctr,
        lower,
        upper,
        impressions,
        name=None,
    ):
        self.groups = np.asarray(groups)
        self.mean_prediction = np.asarray(mean_prediction, dtype=np.float64)
        self.observed_ctr = np.asarray(observed_ctr, dtype=np.float64)
        self.lower = np.asarray(lower, dtype=np.float64)
        self.upper = np.asarray(upper, dtype=np.float64)
        self.impressions = np.asarray(impressions, dtype=np.float64)
        self.name = name

    def plot(self, ax=None, *, name=None, ref_line=True, annotate=True, **kwargs):
        """Draw the points, their intervals and the diagonal.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None creates a figure.
        name : str, default=None
            Legend label; None uses the display's ``name``.
        ref_line : bool, default=True
            Draw the diagonal of perfect calibration.
        annotate : bool, default=True
            Write each field value next to its point.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.errorbar`.

        Returns
        -------
        display : GroupCalibrationDisplay
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        yerr = np.vstack(
            [self.observed_ctr - self.lower, self.upper - self.observed_ctr]
        )
        kw = {"fmt": "o", "capsize": 3}
        if name is not None:
            kw["label"] = name
        kw.update(kwargs)
        self.errorbar_ = ax.errorbar(
            self.mean_prediction, self.observed_ctr, yerr=yerr, **kw
        )
        self.line_ = self.errorbar_.lines[0]
        if ref_line:
            top = np.nanmax(np.concatenate([self.upper, self.mean_prediction, [0.0]]))
            top = min(1.0, 1.1 * top) if top > 0 else 1.0
            ax.plot([0, top], [0, top], "k:", label="Perfectly calibrated")
        if annotate:
            for g, x, y in zip(
                self.groups, self.mean_prediction, self.observed_ctr, strict=True
            ):
                ax.annotate(str(g), (x, y), textcoords="offset points", xytext=(4, 4))
        ax.set_xlabel("Mean predicted CTR")
        ax.set_ylabel("Observed CTR")
        if name is not None or ref_line:
            ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_prob,
        *,
        groups,
        sample_weight=None,
        confidence=0.95,
        name=None,
        ax=None,
        plot=True,
        **kwargs,
    ):
        """Build (and draw) the display from clicks and predictions.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Binary outcomes (clicks).
        y_prob : array-like of shape (n_samples,)
            Predicted probabilities in [0, 1].
        groups : array-like of shape (n_samples,)
            The field value of each row.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights.
        confidence : float in (0, 1), default=0.95
            Level of the Wilson intervals.
        name : str, default=None
            Legend label.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        plot : bool, default=True
            Draw now; False only computes the values.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : GroupCalibrationDisplay
        """
        if not (isinstance(confidence, (float, int)) and 0 < confidence < 1):
            raise ValueError(
                "confidence must be a float in (0, 1) such as 0.95; got "
                f"{confidence!r}."
            )
        y, p, w = _check_binary(y_true, y_prob, sample_weight)
        codes, names = _check_groups(groups, y.shape[0])
        n_groups = len(names)
        table, _ = _grouped_statistics(y, p, w, codes, n_groups)
        if w is None:
            n_eff = table["impressions"]
        else:
            sq = np.bincount(codes, weights=w * w, minlength=n_groups)
            n_eff = np.zeros(n_groups)
            np.divide(table["impressions"] ** 2, sq, out=n_eff, where=sq > 0)
        rate = np.nan_to_num(table["ctr"])
        lower, upper = wilson_interval(rate * n_eff, n_eff, confidence)
        display = cls(
            groups=names,
            mean_prediction=table["mean_prediction"],
            observed_ctr=table["ctr"],
            lower=lower,
            upper=upper,
            impressions=table["impressions"],
            name=name,
        )
        if plot:
            display.plot(ax=ax, **kwargs)
        return display

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        groups,
        sample_weight=None,
        pos_label=None,
        confidence=0.95,
        name=None,
        ax=None,
        plot=True,
        **kwargs,
    ):
        """Build (and draw) the display from a fitted binary classifier.

        Parameters
        ----------
        estimator : fitted classifier
            Has ``predict_proba``; the probability of ``pos_label`` is the
            prediction.
        X : array-like
            Its input.
        y : array-like of shape (n_samples,)
            Binary outcomes; rows equal to ``pos_label`` are clicks.
        groups, sample_weight, confidence, name, ax, plot, **kwargs
            As in :meth:`from_predictions`.
        pos_label : object, default=None
            The click class; None means ``estimator.classes_[-1]``.

        Returns
        -------
        display : GroupCalibrationDisplay
        """
        if not hasattr(estimator, "predict_proba"):
            raise TypeError(
                f"{type(estimator).__name__} has no predict_proba; pass a "
                "fitted probabilistic classifier, or use from_predictions."
            )
        classes = list(estimator.classes_)
        if len(classes) != 2:
            raise ValueError(
                f"from_estimator needs a binary classifier; got classes {classes}."
            )
        pos_label = classes[-1] if pos_label is None else pos_label
        if pos_label not in classes:
            raise ValueError(f"pos_label={pos_label!r} is not one of {classes}.")
        prob = np.asarray(estimator.predict_proba(X))[:, classes.index(pos_label)]
        y_true = (np.asarray(y) == pos_label).astype(int)
        name = type(estimator).__name__ if name is None else name
        return cls.from_predictions(
            y_true,
            prob,
            groups=groups,
            sample_weight=sample_weight,
            confidence=confidence,
            name=name,
            ax=ax,
            plot=plot,
            **kwargs,
        )
