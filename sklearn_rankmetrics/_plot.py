"""Plots in scikit-learn's Display style: metric against k, per-query wins.

A Display holds the computed values as attributes; ``from_predictions`` and
``from_estimator`` compute them and call ``plot``, which draws on a
matplotlib axes and stores ``line_``, ``ax_`` and ``figure_``.  matplotlib
is imported inside ``plot`` only.
"""

import numpy as np

from ._engine import weighted_mean
from ._registry import is_beyond, metric_names, parse_metric
from ._report import _check_cutoffs, _per_query_report
from ._scorer import (
    _RESPONSE_METHOD,
    _call_response,
    _is_2d,
    _long_form,
    _multilabel_scores,
    _n_labels,
    _response_method_name,
)

__all__ = ["MetricAtKDisplay", "PerQueryDifferenceDisplay"]


def _check_metric(metric, caller):
    """The registry spec of a Display's ``metric`` (the registry's one name
    rule, :func:`~sklearn_rankmetrics._registry.parse_metric`): a ranking
    metric named without ``@k`` (the cut-offs come from ``k``)."""
    spec, k = parse_metric(metric)
    if k is not None:
        raise ValueError(
            f"{caller}: metric={metric!r}: give the name without '@k' "
            f"({spec.name!r}); the cut-offs come from k."
        )
    if is_beyond(spec):
        raise ValueError(
            f"{caller}: metric={metric!r} is a beyond-accuracy metric of the "
            "set of lists, which the Displays do not plot; compute it with "
            f"{spec.function.__name__} or ranking_report."
        )
    return spec


def _check_cutoff_metric(metric):
    """MetricAtKDisplay's ``metric``: one that takes a cut-off (the
    registry's ``cutoff`` flag).  A metric of the whole ranked list
    (R-precision, bpref, GAUC) has one value, not a curve against k: a
    clear error rather than a flat line that would read as "evaluated at
    every k"."""
    spec = _check_metric(metric, "MetricAtKDisplay")
    if not spec.cutoff:
        with_cutoff = ", ".join(map(repr, metric_names(cutoff=True)))
        raise ValueError(
            f"MetricAtKDisplay: metric={metric!r} takes no cut-off (it reads "
            "every item of a query), so it has one value, not a curve "
            f"against k: get it from {spec.function.__name__} or "
            f"ranking_report. Metrics with a cut-off: {with_cutoff}."
        )
    return spec.name


def _estimator_scores(estimator, X, y, query_id, pos_label, metric):
    """(y_true, y_score) of a fitted estimator, as the ranking scorers get
    them: 2-D ``y`` from a multilabel estimator's per-item scores, 1-D ``y``
    (long form, ``query_id`` required) from a classifier or regressor."""
    method = _response_method_name(estimator, _RESPONSE_METHOD)
    if _is_2d(y):
        return y, _multilabel_scores(estimator, X, method, None, _n_labels(y))
    if query_id is None:
        raise ValueError(
            "y is 1-D (the long form, one row per (query, item) pair): pass "
            "query_id=... (one id per row), or a 2-D y with one query per row."
        )
    return _long_form(estimator, X, y, method, _call_response, pos_label, metric)


def _name_of(estimator):
    return type(estimator).__name__


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


class PerQueryDifferenceDisplay:
    """Per-query difference of a metric between two models.

    Shows, query by query, where a model beats a reference and where it
    loses: the differences sorted (``kind="sorted"``: one point per query,
    wins above zero, losses below) or their histogram (``kind="hist"``).
    Queries skipped for either model are left out.

    Read more in the :ref:`User Guide <reports>`.

    Parameters
    ----------
    difference : ndarray of shape (n_queries,)
        ``metric(model) - metric(reference)`` per query (nan: skipped).
    query_id : ndarray of shape (n_queries,)
        Query ids (long form: ``np.unique`` order; 2-D: row numbers).
    metric : str
        Scorer name, e.g. ``"ndcg@10"``.
    name, reference_name : str, default=None
        The two models.

    Attributes
    ----------
    n_wins_, n_losses_, n_ties_ : int
        Queries where the model is better, worse, equal.
    line_ : matplotlib Line2D
        ``kind="sorted"``: the sorted differences (x = 1..n, y = difference).
    bars_ : matplotlib BarContainer
        ``kind="hist"``: the histogram.
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import PerQueryDifferenceDisplay
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> a = [[0.9, 0.1, 0.2], [0.9, 0.1, 0.2], [0.9, 0.1, 0.2]]
    >>> b = [[0.1, 0.9, 0.2], [0.1, 0.9, 0.2], [0.1, 0.9, 0.2]]
    >>> d = PerQueryDifferenceDisplay.from_predictions(
    ...     y_true, b, a, metric="mrr", k=3, plot=False)
    >>> d.difference
    array([-0.66666667,  0.66666667,  0.        ])
    >>> d.n_wins_, d.n_losses_, d.n_ties_
    (1, 1, 1)
    """

    def __init__(self, *, difference, query_id, metric, name=None, reference_name=None):
        self.difference = np.asarray(difference, dtype=np.float64)
        self.query_id = np.asarray(query_id)
        self.metric = metric
        self.name = name
        self.reference_name = reference_name
        d = self.difference[~np.isnan(self.difference)]
        self.n_wins_ = int(np.count_nonzero(d > 0))
        self.n_losses_ = int(np.count_nonzero(d < 0))
        self.n_ties_ = int(np.count_nonzero(d == 0))

    def plot(self, ax=None, *, kind="sorted", **kwargs):
        """Draw the sorted differences or their histogram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
        kind : {"sorted", "hist"}, default="sorted"
        **kwargs
            Passed to :meth:`~matplotlib.axes.Axes.plot` (sorted) or
            :meth:`~matplotlib.axes.Axes.hist`.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        import matplotlib.pyplot as plt

        if kind not in ("sorted", "hist"):
            raise ValueError(f"kind must be 'sorted' or 'hist'; got {kind!r}.")
        if ax is None:
            _, ax = plt.subplots()
        d = np.sort(self.difference[~np.isnan(self.difference)])
        model = self.name or "model"
        ref = self.reference_name or "reference"
        summary = (
            f"{model} better on {self.n_wins_}, worse on {self.n_losses_}, "
            f"equal on {self.n_ties_} queries"
        )
        if kind == "sorted":
            x = np.arange(1, d.size + 1)
            (self.line_,) = ax.plot(x, d, **{"color": "black", "lw": 1, **kwargs})
            ax.fill_between(
                x,
                d,
                0,
                where=d > 0,
                color="tab:green",
                alpha=0.4,
                step="mid",
                label=f"{model} wins",
            )
            ax.fill_between(
                x,
                d,
                0,
                where=d < 0,
                color="tab:red",
                alpha=0.4,
                step="mid",
                label=f"{model} loses",
            )
            ax.axhline(0.0, color="grey", lw=0.8)
            ax.set_xlabel("queries, sorted by difference")
            ax.set_ylabel(f"{self.metric}: {model} - {ref}")
            ax.legend(loc="upper left")
        else:
            *_, self.bars_ = ax.hist(d, **{"bins": 30, **kwargs})
            ax.axvline(0.0, color="grey", lw=0.8)
            ax.set_xlabel(f"{self.metric}: {model} - {ref}")
            ax.set_ylabel("queries")
        ax.set_title(summary, fontsize="medium")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        y_score_reference,
        *,
        metric="ndcg",
        k=10,
        query_id=None,
        name=None,
        reference_name=None,
        ax=None,
        kind="sorted",
        plot=True,
        metric_options=None,
        convention=None,
        **kwargs,
    ):
        """Per-query ``metric@k`` of ``y_score`` minus that of
        ``y_score_reference``, and plot it.

        Parameters
        ----------
        y_true : array-like or sparse matrix, or 1-D with ``query_id``
            Relevance grades shared by both models.
        y_score, y_score_reference : array-like of the shape of ``y_true``
            Scores of the model and of the reference.
        metric : str, default="ndcg"
            Metric name (``"gauc"`` included; then ``k`` is ignored).
        k : int, default=10
            The cut-off.
        query_id : array-like of shape (n_rows,), default=None
        name, reference_name : str, default=None
            Labels of the two models.
        ax : matplotlib Axes, default=None
        kind : {"sorted", "hist"}, default="sorted"
        plot : bool, default=True
            False computes without drawing.
        metric_options : dict, default=None
            Options of the metric.
        convention : str or None, default=None
            A preset of the metric's options (see :func:`ranking_report`);
            ``metric_options`` win over it.
        **kwargs
            Passed to :meth:`plot`.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        metric = _check_metric(metric, "PerQueryDifferenceDisplay").name
        ks = _check_cutoffs(k)
        if len(ks) != 1:
            raise ValueError(f"k must be a single cut-off here; got {k!r}.")
        if np.shape(y_score) != np.shape(y_score_reference):
            raise ValueError(
                f"y_score and y_score_reference must have the same shape (the "
                f"same queries and items); got {np.shape(y_score)} and "
                f"{np.shape(y_score_reference)}."
            )
        values = []
        for s in (y_score, y_score_reference):
            rep = _per_query_report(
                y_true,
                s,
                k=ks,
                metrics=[metric],
                query_id=query_id,
                sample_weight=None,
                convention=convention,
                caller="PerQueryDifferenceDisplay.from_predictions",
                **(metric_options or {}),
            )
            (v,) = rep.values.values()
            values.append(v)
        display = cls(
            difference=values[0] - values[1],
            query_id=rep.query_id,
            metric=next(iter(rep.values)),
            name=name,
            reference_name=reference_name,
        )
        return display.plot(ax=ax, kind=kind, **kwargs) if plot else display

    @classmethod
    def from_comparison(
        cls,
        comparison,
        name,
        reference_name,
        *,
        metric=None,
        ax=None,
        kind="sorted",
        plot=True,
        **kwargs,
    ):
        """The per-query differences kept by :func:`compare_rankings`.

        Parameters
        ----------
        comparison : RankingComparison
            The result of :func:`compare_rankings`.
        name, reference_name : str
            Two of its models: the difference is ``name - reference_name``.
        metric : str, default=None
            One of ``comparison.metrics`` (e.g. ``"ndcg@10"``); None takes
            the first.
        ax, kind, plot, **kwargs
            As in :meth:`from_predictions`.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        for label, model in (("name", name), ("reference_name", reference_name)):
            if model not in comparison.models:
                raise ValueError(
                    f"{label}={model!r} is not a model of the comparison; "
                    f"choose among {', '.join(map(repr, comparison.models))}."
                )
        metric = comparison.metrics[0] if metric is None else metric
        if metric not in comparison.metrics:
            raise ValueError(
                f"metric={metric!r} is not in the comparison; choose among "
                f"{', '.join(map(repr, comparison.metrics))}."
            )
        j = comparison.metrics.index(metric)
        display = cls(
            difference=comparison.per_query_values[name][:, j]
            - comparison.per_query_values[reference_name][:, j],
            query_id=comparison.query_id,
            metric=metric,
            name=name,
            reference_name=reference_name,
        )
        return display.plot(ax=ax, kind=kind, **kwargs) if plot else display
