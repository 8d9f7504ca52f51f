"""Per-query wins and losses of one ranker against another:
:class:`PerQueryDifferenceDisplay`."""

import numpy as np

from .._evaluation._per_query import _check_cutoffs, _per_query_report
from ._base import _check_metric

__all__ = ["PerQueryDifferenceDisplay"]


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
