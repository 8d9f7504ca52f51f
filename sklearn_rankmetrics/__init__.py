"""Ranking and recommendation metrics and scorers for scikit-learn.

Metrics follow the ``sklearn.metrics`` convention
``metric(y_true, y_score, *, k=..., ...)`` on 2-D relevance/score arrays (one
query per row), sparse relevance matrices, and the long form (1-D rows plus
``query_id``).
"""

import importlib

_LAZY = {
    # public name -> private submodule defining it (imported on first use)
    "CalibrationEvaluator": "_calibration",
    "GroupCalibrationDisplay": "_calibration_plot",
    "MetricAtKDisplay": "_plot",
    "PerQueryDifferenceDisplay": "_plot",
    "QueryRanker": "_ltr",
    "RankingComparison": "_compare",
    "RankingEvaluator": "_state",
    "average_popularity_at_k": "_beyond",
    "average_precision_at_k": "_ranking",
    "bpref_score": "_ranking",
    "calibration_ratio": "_calibration",
    "calibration_report": "_calibration",
    "catalog_coverage_at_k": "_beyond",
    "compare_rankings": "_compare",
    "config_context": "_config",
    "dcg_at_k": "_ranking",
    "expected_calibration_error": "_calibration",
    "expected_reciprocal_rank_at_k": "_ranking",
    "f1_at_k": "_ranking",
    "factor_ranking_report": "_factor",
    "fallout_at_k": "_ranking",
    "fbeta_at_k": "_ranking",
    "get_config": "_config",
    "get_scorer": "_scorer",
    "get_scorer_names": "_scorer",
    "gini_index_at_k": "_beyond",
    "group_auc_score": "_auc",
    "hit_rate_at_k": "_ranking",
    "intra_list_diversity_at_k": "_beyond",
    "ips_dcg_at_k": "_propensity",
    "ips_precision_at_k": "_propensity",
    "ips_recall_at_k": "_propensity",
    "make_scoring": "_scorer",
    "ndcg_at_k": "_ranking",
    "normalized_entropy": "_calibration",
    "novelty_at_k": "_beyond",
    "popularity_propensity": "_propensity",
    "position_propensity": "_propensity",
    "precision_at_k": "_ranking",
    "r_precision_score": "_ranking",
    "rank_biased_precision_at_k": "_ranking",
    "ranked_lists_to_arrays": "_idlists",
    "ranking_report": "_report",
    "rbp_residual_at_k": "_ranking",
    "read_trec_qrels": "_trec",
    "read_trec_run": "_trec",
    "recall_at_k": "_ranking",
    "reciprocal_rank_at_k": "_ranking",
    "set_config": "_config",
    "success_at_k": "_ranking",
    "trec_to_long_form": "_trec",
}

__version__ = "0.1.0.dev0"

__all__ = [
    "CalibrationEvaluator",
    "GroupCalibrationDisplay",
    "MetricAtKDisplay",
    "PerQueryDifferenceDisplay",
    "QueryRanker",
    "RankingComparison",
    "RankingEvaluator",
    "average_popularity_at_k",
    "average_precision_at_k",
    "bpref_score",
    "calibration_ratio",
    "calibration_report",
    "catalog_coverage_at_k",
    "compare_rankings",
    "config_context",
    "dcg_at_k",
    "expected_calibration_error",
    "expected_reciprocal_rank_at_k",
    "f1_at_k",
    "factor_ranking_report",
    "fallout_at_k",
    "fbeta_at_k",
    "get_config",
    "get_scorer",
    "get_scorer_names",
    "gini_index_at_k",
    "group_auc_score",
    "hit_rate_at_k",
    "intra_list_diversity_at_k",
    "ips_dcg_at_k",
    "ips_precision_at_k",
    "ips_recall_at_k",
    "make_scoring",
    "ndcg_at_k",
    "normalized_entropy",
    "novelty_at_k",
    "popularity_propensity",
    "position_propensity",
    "precision_at_k",
    "r_precision_score",
    "rank_biased_precision_at_k",
    "ranked_lists_to_arrays",
    "ranking_report",
    "rbp_residual_at_k",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "set_config",
    "success_at_k",
    "trec_to_long_form",
]


def __getattr__(name):
    # PEP 562: import the defining submodule on first access, so that
    # ``import sklearn_rankmetrics`` (and the command line) does not pay for
    # scikit-learn, scipy.stats, pandas, ... until a name needs them.
    try:
        module_name = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
