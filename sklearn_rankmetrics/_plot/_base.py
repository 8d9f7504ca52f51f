"""What the Displays share: the metric name checks and the estimator's
scores, as the scorers get them."""

from .._registry import is_beyond, metric_names, parse_metric
from .._scoring._scorer import (
    _RESPONSE_METHOD,
    _call_response,
    _is_2d,
    _long_form,
    _multilabel_scores,
    _n_labels,
    _response_method_name,
)

__all__ = []  # private module


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
