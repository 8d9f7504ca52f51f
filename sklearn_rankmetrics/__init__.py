"""Ranking and recommendation metrics and scorers for scikit-learn.

Metrics follow the ``sklearn.metrics`` convention
``metric(y_true, y_score, *, k=..., ...)`` on 2-D relevance/score arrays (one
query per row), sparse relevance matrices, and the long form (1-D rows plus
``query_id``).
"""

import importlib

__version__ = "0.1.0.dev0"

# The public names: every metric of the registry under its function's name
# (``_registry.METRICS`` and ``BEYOND_METRICS``, read when a name is first
# used), and the names below, which the registry does not know (private
# module -> the public names it defines).  A module is imported when one of
# its names is first used (PEP 562): ``import sklearn_rankmetrics`` costs
# nothing, a metric function loads numpy, scipy.sparse and the engine, and
# scikit-learn, matplotlib or pandas are imported only by the scorers,
# estimators, Displays and frames that need them -- so the command line
# starts in a fraction of a second.
_SUBMODULES = {
    "_dispatch": ("ranking_report",),
    "_evaluation._calibration_report": ("calibration_report",),
    "_evaluation._compare": (
        "RankingComparison",
        "compare_rankings",
    ),
    "_evaluation._factor": ("factor_ranking_report",),
    "_evaluation._rectable": ("recommendation_table_report",),
    "_evaluation._report": ("propensity_diagnostics",),
    "_evaluation._segments": ("popularity_strata",),
    "_evaluation._state": (
        "CalibrationEvaluator",
        "RankingEvaluator",
    ),
    "_io._idlists": ("ranked_lists_to_arrays",),
    "_io._trec": (
        "read_trec_qrels",
        "read_trec_run",
        "trec_to_long_form",
    ),
    "_metrics._calibration": (
        "calibration_ratio",
        "expected_calibration_error",
        "normalized_entropy",
    ),
    "_metrics._propensity": (
        "popularity_propensity",
        "position_propensity",
    ),
    "_plot._group_calibration": ("GroupCalibrationDisplay",),
    "_plot._metric_at_k": ("MetricAtKDisplay",),
    "_plot._per_query_difference": ("PerQueryDifferenceDisplay",),
    "_scoring._ltr": ("QueryRanker",),
    "_scoring._scorer": (
        "get_scorer",
        "get_scorer_names",
        "make_scoring",
    ),
    "_utils._config": (
        "config_context",
        "get_config",
        "set_config",
    ),
}
_WHERE = {name: module for module, names in _SUBMODULES.items() for name in names}
# Public submodules, also importable as attributes.
_PUBLIC_MODULES = ("dask", "datasets", "model_selection", "spark")


def _metric_functions():
    """Function name -> function of every registry metric, read from the
    registry at each call (imported, by name, by the first one)."""
    registry = importlib.import_module("._registry", __name__)
    specs = registry.all_metrics().values()
    return {spec.function.__name__: spec.function for spec in specs}


def _public_names():
    """``__all__``: the registry's metric functions and the names of
    :data:`_SUBMODULES`, sorted."""
    return sorted({*_WHERE, *_metric_functions()})


def __getattr__(name):
    if name in _WHERE:
        module = importlib.import_module(f".{_WHERE[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    if name in _PUBLIC_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name == "__all__":  # computed when asked (``from ... import *``)
        return _public_names()
    if not name.startswith("_"):  # a metric function is named in the registry
        value = _metric_functions().get(name)
        if value is not None:
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_public_names()) | set(_PUBLIC_MODULES))
