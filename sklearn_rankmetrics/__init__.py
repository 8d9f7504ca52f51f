"""Ranking and recommendation metrics and scorers for scikit-learn.

Metrics follow the ``sklearn.metrics`` convention
``metric(y_true, y_score, *, k=..., ...)`` on 2-D relevance/score arrays (one
query per row), sparse relevance matrices, and the long form (1-D rows plus
``query_id``).
"""

import importlib

__version__ = "0.1.0.dev0"

# Private module -> the public names it defines.  A module is imported when
# one of its names is first used (PEP 562): ``import sklearn_rankmetrics``
# costs nothing, a metric function loads numpy, scipy.sparse and the engine,
# and scikit-learn, matplotlib or pandas are imported only by the scorers,
# estimators, Displays and frames that need them -- so the command line
# starts in a fraction of a second.
_SUBMODULES = {
    "_auc": ("group_auc_score",),
    "_beyond": (
        "average_popularity_at_k",
        "catalog_coverage_at_k",
        "exposure_entropy_at_k",
        "gini_index_at_k",
        "intra_list_diversity_at_k",
        "novelty_at_k",
        "serendipity_at_k",
    ),
    "_calibration": (
        "CalibrationEvaluator",
        "calibration_ratio",
        "calibration_report",
        "expected_calibration_error",
        "normalized_entropy",
    ),
    "_calibration_plot": ("GroupCalibrationDisplay",),
    "_compare": (
        "RankingComparison",
        "compare_rankings",
    ),
    "_config": (
        "config_context",
        "get_config",
        "set_config",
    ),
    "_factor": ("factor_ranking_report",),
    "_idlists": ("ranked_lists_to_arrays",),
    "_ltr": ("QueryRanker",),
    "_plot": (
        "MetricAtKDisplay",
        "PerQueryDifferenceDisplay",
    ),
    "_propensity": (
        "popularity_propensity",
        "position_propensity",
        "propensity_diagnostics",
    ),
    "_ranking": (
        "average_precision_at_k",
        "bpref_score",
        "dcg_at_k",
        "expected_reciprocal_rank_at_k",
        "f1_at_k",
        "fallout_at_k",
        "fbeta_at_k",
        "hit_rate_at_k",
        "ndcg_at_k",
        "precision_at_k",
        "r_precision_score",
        "rank_biased_precision_at_k",
        "rbp_residual_at_k",
        "recall_at_k",
        "reciprocal_rank_at_k",
        "success_at_k",
    ),
    "_rectable": ("recommendation_table_report",),
    "_report": ("ranking_report",),
    "_scorer": (
        "get_scorer",
        "get_scorer_names",
        "make_scoring",
    ),
    "_segments": ("popularity_strata",),
    "_state": ("RankingEvaluator",),
    "_trec": (
        "read_trec_qrels",
        "read_trec_run",
        "trec_to_long_form",
    ),
}
_WHERE = {name: module for module, names in _SUBMODULES.items() for name in names}
# Public submodules, also importable as attributes.
_PUBLIC_MODULES = ("dask", "datasets", "model_selection", "spark")

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        module = importlib.import_module(f".{_WHERE[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value  # later lookups skip __getattr__
        return value
    if name in _PUBLIC_MODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_PUBLIC_MODULES))
