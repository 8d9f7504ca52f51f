"""A metric against the cut-off k: :class:`MetricAtKDisplay`."""

import numpy as np

from .._evaluation._per_query import _check_cutoffs, _per_query_report
from .._utils._averaging import weighted_mean
from ._base import _check_cutoff_metric, _estimator_scores, _name_of

__all__ = ["MetricAtKDisplay"]


class MetricAtKDisplay:
    """A ranking metric against the cut-off k, for one or several models.

    Build it with :meth:`from_predictions` or :meth:`from_estimator`; call
    :meth:`plot` again with another model's display and the same ``ax`` to
    draw several models on one axes.

    Read more in the :ref:`User Guide <reports>`.

    Parameters
    ----------
    k : ndarray of shape (n_cutoffs,)
        The cut-offs.
    values : ndarray of shape (n_cutoffs,)
        The metric at each cut-off (what the metric function returns).
    metric : str
        Metric name, e.g. ``"ndcg"``.
    name : str, default=None
        Model name, used as the legend label.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve; ``line_.get_xydata()`` is ``(k, values)``.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    See Also
    --------
    ranking_report : The values as a table.
    PerQueryDifferenceDisplay : Where one model wins over another.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import MetricAtKDisplay
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.random((50, 30)) < 0.1
    >>> display = MetricAtKDisplay.from_predictions(
    ...     y_true, y_true + rng.random((50, 30)), metric="recall",
    ...     k=[1, 5, 10], name="good", plot=False)
    >>> display.values.round(2)
    array([0.44, 0.98, 1.  ])
    """

    def __init__(self, *, k, values, metric, name=None):
        self.k = np.asarray(k)
        self.values = np.asarray(values, dtype=np.float64)
        self.metric = metric
        self.name = name

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (another model's display's ``ax_`` to compare);
            None creates a figure.
        name : str, default=None
            Legend label; None uses the display's ``name``.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        line_kwargs = {"marker": "o", "markersize": 3}
        if name is not None:
            line_kwargs["label"] = name
        line_kwargs.update(kwargs)
        (self.line_,) = ax.plot(self.k, self.values, **line_kwargs)
        ax.set_xlabel("cut-off k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(f"{self.metric}@k")
        if name is not None:
            ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        metric="ndcg",
        k=range(1, 21),
        query_id=None,
        sample_weight=None,
        name=None,
        ax=None,
        plot=True,
        metric_options=None,
        convention=None,
        **kwargs,
    ):
        """Compute the metric at every k (from one ranking) and plot it.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_queries, n_items), \
or array-like of shape (n_rows,) with ``query_id``
            Relevance grades.
        y_score : array-like of the shape of ``y_true``
            Predicted scores.
        metric : str, default="ndcg"
            A metric with a cut-off (the registry's names without ``@k``):
            "precision", "recall", "f1", "fbeta", "hit_rate", "mrr", "map",
            "dcg", "ndcg", "fallout", "err", "rbp", "rbp_residual",
            "success".  A metric without one ("r_precision", "bpref",
            "gauc") has a single value, not a curve against k: a
            ``ValueError`` says so.
        k : sequence of int >= 1, default=range(1, 21)
            The cut-offs.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row of the long form.
        sample_weight : array-like, default=None
            Query weights, as in the metric functions.
        name : str, default=None
            Legend label.
        ax : matplotlib Axes, default=None
            Axes to draw on.
        plot : bool, default=True
            False computes the values without drawing (no matplotlib).
        metric_options : dict, default=None
            Options of the metric (``ignore_ties``, ``gain``,
            ``relevance_threshold``, ``no_relevant``, ...).
        convention : str or None, default=None
            A preset of the metric's options (see :func:`ranking_report`);
            ``metric_options`` win over it.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        metric = _check_cutoff_metric(metric)
        ks = _check_cutoffs(k)
        report = _per_query_report(
            y_true,
            y_score,
            k=ks,
            metrics=[metric],
            query_id=query_id,
            sample_weight=sample_weight,
            convention=convention,
            caller="MetricAtKDisplay.from_predictions",
            **(metric_options or {}),
        )
        values = [
            weighted_mean(v, report.weights[name_k])
            for name_k, v in report.values.items()
        ]
        display = cls(k=np.array(ks), values=values, metric=metric, name=name)
        return display.plot(ax=ax, **kwargs) if plot else display

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        metric="ndcg",
        k=range(1, 21),
        query_id=None,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        plot=True,
        metric_options=None,
        convention=None,
        **kwargs,
    ):
        """Score a fitted estimator as the ranking scorers do, and plot.

        The scores are the estimator's ``decision_function``, else
        ``predict_proba``, else ``predict``: per item for a 2-D (multilabel)
        ``y``, per row for the long form (``query_id`` required; the
        probability of ``pos_label`` or of the positive class of a binary
        classifier).

        Parameters
        ----------
        estimator : fitted estimator
        X : array-like
            Input of the estimator.
        y : array-like of shape (n_queries, n_items) or (n_rows,)
            Relevance (2-D) or the long-form target.
        pos_label : object, default=None
            Relevant class of a binary classifier (long form).
        name : str, default=None
            Legend label; None uses the estimator's class name.
        metric, k, query_id, sample_weight, ax, plot, metric_options, \
convention, **kwargs
            As in :meth:`from_predictions`.

        Returns
        -------
        display : MetricAtKDisplay
        """
        _check_cutoff_metric(metric)  # before predicting
        y_true, y_score = _estimator_scores(
            estimator, X, y, query_id, pos_label, metric
        )
        return cls.from_predictions(
            y_true,
            y_score,
            metric=metric,
            k=k,
            query_id=query_id,
            sample_weight=sample_weight,
            name=_name_of(estimator) if name is None else name,
            ax=ax,
            plot=plot,
            metric_options=metric_options,
            convention=convention,
            **kwargs,
        )
