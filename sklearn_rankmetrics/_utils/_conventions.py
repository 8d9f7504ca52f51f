"""Convention presets: named sets of metric options that reproduce another
library's numbers (``convention="trec_eval"``, ``"lightgbm"``, ...).

A preset is a :class:`Convention`: options for every metric that takes them
and, where a library treats one metric differently, options for that metric
only.  :func:`with_convention` adds the ``convention=`` argument to a metric
function; options given explicitly always win over the preset's.  The
user guide's "Presets" page tabulates each preset with its sources.
"""

from typing import NamedTuple

__all__ = []  # private module


class Convention(NamedTuple):
    """Options of one library's convention.

    ``options`` go to every metric that takes them; ``per_metric`` maps a
    metric function's name to options for it alone (they win over
    ``options``); ``whole_list`` likewise, but only when the metric reads
    the whole ranked list (``k=None``): a rule the library defines for
    that case alone, such as scikit-learn's tie thresholds in
    ``average_precision_score``, which has no cut-off; ``source`` says
    where each choice comes from.
    """

    options: dict
    per_metric: dict
    source: str
    whole_list: dict = {}

    def rules(self):
        """Every option set of the preset (to search for a rule)."""
        return [
            self.options,
            *self.per_metric.values(),
            *self.whole_list.values(),
        ]


CONVENTIONS = {
    "trec_eval": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "precision_denominator": "k",
            "ap_denominator": "relevant",
            "persistence": 0.9,
            "rbp_gain": "max_normalized",
            "no_relevant": 0.0,
        },
        per_metric={},
        source=(
            "trec_eval 9 and 10 (usnistgov/trec_eval; its regression outputs "
            "are reproduced in the tests): a judged query without relevant "
            "document scores 0 and stays in the mean (as in pytrec_eval), "
            "P_k divides by k, map_cut by the "
            "number of relevant documents, ndcg_cut uses the grade as gain, "
            "rbp's default persistence is 0.9 and trec_eval 10 weighs a "
            "document by its grade over the query's top grade (on 0/1 "
            "judgments, trec_eval 9's binary rbp); ties are broken by decreasing "
            "document id, so the rows must come in that order (as TREC run "
            "readers give them)."
        ),
    ),
    "sklearn": Convention(
        options={"ties": "expected", "gain": "linear", "no_relevant": 0.0},
        per_metric={},
        source=(
            "sklearn.metrics.ndcg_score / dcg_score: ties averaged "
            "(McSherry and Najork), the grade as gain, rows without a "
            "relevant item scored 0 and kept in the mean; "
            "average_precision_score: tied items are one threshold "
            "(ties='threshold'; it has no cut-off, so at a cut-off the "
            "preset's averaged ties apply)."
        ),
        whole_list={"average_precision_at_k": {"ties": "threshold"}},
    ),
    "lightgbm": Convention(
        options={
            "ties": "input_order",
            "gain": "exponential",
            "ap_denominator": "min_k",
            "no_relevant": 1.0,
        },
        per_metric={},
        source=(
            "LightGBM src/metric/rank_metric.hpp, map_metric.hpp, "
            "dcg_calculator.cpp: label_gain 2**i - 1 by default, a query "
            "without relevant item scores 1 (ndcg and map), map@k divides by "
            "min(relevant, k); tied scores keep their row order (a stable "
            "sort: checked against LightGBM 4.7's printed ndcg@k and map@k "
            "with tied predictions in tests/test_ltr.py)."
        ),
    ),
    "xgboost": Convention(
        options={
            "ties": "input_order",
            "gain": "exponential",
            "ap_denominator": "min_k",
            "precision_denominator": "k",
            "no_relevant": 1.0,
        },
        per_metric={},
        source=(
            "XGBoost src/metric/rank_metric.cc (EvalNDCG, EvalMAP, "
            "EvalPrecision): gain 2**rel - 1, stable sort by prediction, a "
            "query without relevant item scores 1 ('ndcg-' / 'map-' give 0: "
            "pass no_relevant=0.0), map@k divides by min(relevant, k) (as "
            "XGBoost 3.2's printed map@k shows in tests/test_preset_peers.py), "
            "pre@k by k."
        ),
    ),
    "ranx": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "ap_denominator": "relevant",
            "precision_denominator": "k",
            "rbp_gain": "raw",
            "no_relevant": 0.0,
        },
        per_metric={},
        source=(
            "ranx (checked against ranx 0.3.21 in the tests): the run's "
            "order breaks ties, 'rbp.p' weighs a document by its grade, "
            "'ndcg' uses the grade as gain "
            "('ndcg_burges' is gain='exponential'), queries without "
            "relevant document score 0."
        ),
    ),
    "torchmetrics": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "precision_denominator": "k",
            "no_relevant": 0.0,
        },
        per_metric={
            "ndcg_at_k": {"ties": "expected"},
            "dcg_at_k": {"ties": "expected"},
            "average_precision_at_k": {"ap_denominator": "hits"},
            "group_auc_score": {"query_weighting": "uniform"},
        },
        source=(
            "torchmetrics.functional.retrieval (checked against torchmetrics "
            "1.9 in the tests): empty_target_action='neg' scores a query "
            "without positive 0; NDCG averages ties as scikit-learn does, "
            "the other metrics take torch's sort order among ties (not "
            "specified by torch; the preset uses the input order); AP@k "
            "divides by the "
            "relevant items in the top k; precision divides by k "
            "(adaptive_k=True is precision_denominator='retrieved'); its "
            "retrieval_precision counts only items scored > 0: give the "
            "others a score of -inf to match.  RetrievalAUROC is the "
            "unweighted mean of the per-query AUCs (query_weighting="
            "'uniform'); the queries with one class are left out, its "
            "empty_target_action='skip' (its default 'neg' scores a query "
            "without positive 0)."
        ),
    ),
    "recommenders": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "ap_denominator": "min_k",
            "precision_denominator": "k",
            "no_relevant": "skip",
        },
        per_metric={
            "exposure_entropy_at_k": {"base": 2},
            "novelty_at_k": {"share": "interactions", "unseen": "zero"},
        },
        source=(
            "Microsoft Recommenders 1.2.1 recommenders/evaluation/"
            "python_evaluation.py: users of the ground truth only, "
            "precision_at_k divides by k, map_at_k by min(k, the user's "
            "relevant count) (since 1.2.0; its `map` divides by the relevant "
            "count: ap_denominator='relevant'), ndcg_at_k binary gain with "
            "min(R, k) ideal items; the top k are the first rows of a "
            "stable sort by prediction (first rows win ties).  "
            "distributional_coverage is the exposure entropy in bits "
            "(base=2); novelty counts the training interactions "
            "(share='interactions') and an item never seen in training adds "
            "0 (unseen='zero')."
        ),
    ),
    "rectools": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "precision_denominator": "k",
            "ap_denominator": "relevant",
            "ideal": "k",
            "no_relevant": "skip",
        },
        per_metric={
            "novelty_at_k": {"share": "active_users", "unseen": "one"},
            "intra_list_diversity_at_k": {
                "metric": "hamming_count",
                "single_item": 0.0,
            },
        },
        source=(
            "RecTools 0.19.0 rectools/metrics/ (ranking.py, "
            "classification.py, novelty.py, diversity.py, distances.py): the "
            "users of the interactions table; Precision divides by k "
            "(r_precision=True: precision_denominator='min_k'), MAP by the "
            "user's relevant count (divide_by_k=True: ap_denominator='k'), "
            "NDCG by the ideal DCG of k relevant items "
            "(divide_by_achievable=False: ideal='k'); the ranks are given, "
            "so ties keep the row order.  MeanInvUserFreq: the users of the "
            "previous interactions (share='active_users'), a cold item "
            "counted as seen by one user (unseen='one'); IntraListDiversity "
            "with its Hamming calculator counts differing features "
            "(metric='hamming_count') and scores a one-item list 0."
        ),
    ),
    "recbole": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "precision_denominator": "k",
            "ap_denominator": "min_k",
            "no_relevant": "skip",
            "padding_items": 1,
            "normalization": "recbole",
        },
        per_metric={"group_auc_score": {"query_weighting": "clicks"}},
        source=(
            "RecBole 1.2.1 recbole/evaluator/metrics.py: users with a test "
            "item only; Precision over k, MAP over min(k, relevant), NDCG "
            "binary with min(R, k) ideal items; torch.topk orders tied "
            "scores (not specified: the preset uses the input order).  Its "
            "num_items counts the padding item 0, so ItemCoverage and "
            "GiniIndex have one more (never recommended) item "
            "(padding_items=1); ShannonEntropy divides by the number of "
            "distinct recommended items (normalization='recbole'); GAUC "
            "weighs a user by its positive items."
        ),
    ),
    "implicit": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "precision_denominator": "min_k",
            "ap_denominator": "min_k",
            "no_relevant": "skip",
        },
        per_metric={},
        source=(
            "implicit 0.7 implicit/evaluation.pyx ranking_metrics_at_k: users "
            "with a test item, binary relevance; precision is total hits "
            "over the sum of min(K, relevant) (precision_denominator='min_k' "
            "per user; with average='micro' the pooled ratio implicit "
            "prints), map@K divides by min(K, relevant), ndcg@K has min(R, "
            "K) ideal items; its 'auc' is truncated at K and is not GAUC."
        ),
    ),
    "lightfm": Convention(
        options={
            "ties": "pessimistic",
            "gain": "linear",
            "precision_denominator": "k",
            "no_relevant": "skip",
        },
        per_metric={"group_auc_score": {"query_weighting": "uniform"}},
        source=(
            "LightFM 1.17 lightfm/evaluation.py and predict_rank: users with "
            "a test item (preserve_rows=False), precision_at_k over k, "
            "recall_at_k over the relevant count, reciprocal_rank over the "
            "whole list (k=None); a test item's rank counts every other "
            "item scored >= it (ties='pessimistic', exact unless two test "
            "items tie); auc_score is the plain mean of the per-user AUCs "
            "(query_weighting='uniform'), where a tie with a negative "
            "counts 0 (here 1/2)."
        ),
    ),
    "tf_ranking": Convention(
        options={
            "ties": "expected",
            "gain": "exponential",
            "precision_denominator": "retrieved",
            "ap_denominator": "relevant",
            "no_relevant": 0.0,
        },
        per_metric={},
        source=(
            "TF-Ranking tfr.keras.metrics: PrecisionMetric divides by "
            "min(k, list size), NDCGMetric's default gain is 2**label - 1 "
            "with 1/log2(rank + 1), lists without relevant items score 0 "
            "in the mean; ties are shuffled at random, whose mean is the "
            "'expected' rule."
        ),
    ),
    "spark": Convention(
        options={
            "ties": "input_order",
            "gain": "linear",
            "ap_denominator": "min_k",
            "precision_denominator": "k",
            "no_relevant": 0.0,
        },
        per_metric={},
        source=(
            "pyspark.mllib.evaluation.RankingMetrics: the predicted list is "
            "taken in its order, precisionAt(k) divides by k, "
            "meanAveragePrecisionAt(k) by min(|labels|, k), ndcgAt(k) has "
            "binary gain, a query with empty labels scores 0."
        ),
    ),
}


def check_convention(convention):
    if convention not in CONVENTIONS:
        names = ", ".join(repr(name) for name in CONVENTIONS)
        raise ValueError(
            f"convention must be None or one of {names}; got {convention!r}."
        )
    return CONVENTIONS[convention]


def convention_options(convention, func_name, accepted, k=None):
    """The options of ``convention`` for the metric ``func_name`` that
    takes the keyword options ``accepted``, called with cut-off ``k``."""
    preset = check_convention(convention)
    merged = {**preset.options, **preset.per_metric.get(func_name, {})}
    if k is None:
        merged.update(preset.whole_list.get(func_name, {}))
    return {key: value for key, value in merged.items() if key in accepted}
