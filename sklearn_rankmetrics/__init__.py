"""Ranking and recommendation metrics and scorers for scikit-learn.

Metrics follow the ``sklearn.metrics`` convention
``metric(y_true, y_score, *, k=..., ...)`` on 2-D relevance/score arrays (one
query per row), sparse relevance matrices, and the long form (1-D rows plus
``query_id``).
"""

from ._auc import group_auc_score
from ._beyond import (
    average_popularity_at_k,
    catalog_coverage_at_k,
    exposure_entropy_at_k,
    gini_index_at_k,
    intra_list_diversity_at_k,
    novelty_at_k,
    serendipity_at_k,
)
from ._calibration import (
    CalibrationEvaluator,
    calibration_ratio,
    calibration_report,
    expected_calibration_error,
    normalized_entropy,
)
from ._calibration_plot import GroupCalibrationDisplay
from ._compare import RankingComparison, compare_rankings
from ._config import config_context, get_config, set_config
from ._factor import factor_ranking_report
from ._idlists import ranked_lists_to_arrays
from ._ltr import QueryRanker
from ._plot import MetricAtKDisplay, PerQueryDifferenceDisplay
from ._propensity import (
    ips_dcg_at_k,
    ips_precision_at_k,
    ips_recall_at_k,
    popularity_propensity,
    position_propensity,
)
from ._ranking import (
    average_precision_at_k,
    bpref_score,
    dcg_at_k,
    expected_reciprocal_rank_at_k,
    f1_at_k,
    fallout_at_k,
    fbeta_at_k,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision_score,
    rank_biased_precision_at_k,
    rbp_residual_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    success_at_k,
)
from ._report import ranking_report
from ._scorer import get_scorer, get_scorer_names, make_scoring
from ._state import RankingEvaluator
from ._trec import read_trec_qrels, read_trec_run, trec_to_long_form

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
    "exposure_entropy_at_k",
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
    "serendipity_at_k",
    "set_config",
    "success_at_k",
    "trec_to_long_form",
]
