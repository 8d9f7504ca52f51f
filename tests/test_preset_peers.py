"""Presets checked against the peer libraries themselves on hard cases (issue 18).

Each test scores random adversarial inputs -- ties, graded labels, queries
without a relevant item, queries interleaved in the rows -- with
``convention=<preset>`` and with the peer, on the very same scores.

How the peers evaluate *given* scores:

* LightGBM: ``lgb.train`` on a ``Dataset`` whose ``init_score`` holds the
  scores, validated on itself.  LightGBM refuses ``learning_rate=0``, so the
  one boosting round is made a single leaf (``min_data_in_leaf`` above the
  row count): it adds one constant to every score, which keeps the order
  and the ties, so the printed ndcg@k / map@k are those of the scores.
* XGBoost: ``xgb.train`` with ``base_margin`` = scores and ``eta=0`` (the
  round adds 0); ``ndcg@k`` with its default ``ndcg_exp_gain=True``.

pytrec_eval (preset ``trec_eval``) and ranx are compared on hard files in
tests/test_presets.py, and so is torchmetrics (CI's newest environment
installs torch's CPU build for it; .ci/run).
"""

import warnings

import numpy as np
import pytest

import sklearn_rankmetrics as srm


def _case(seed, n_queries=6, grades=3, binary=False):
    """Grouped rows (what the peers need) and an interleaved copy (ours).

    Query sizes 1..8, scores from 3 levels (many ties), one query or more
    without a relevant item, labels graded 0..grades-1 (or 0/1).
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 2 if binary else grades, qid.size)
    y[qid == rng.integers(n_queries)] = 0  # a query without relevant item
    s = rng.integers(0, 3, qid.size).astype(np.float64)
    # Interleave the queries while keeping each query's rows in order (the
    # order that breaks ties under "input_order"): a random sequence of the
    # query ids, each query's rows dealt in order to its slots.
    slots = rng.permutation(qid)
    order = np.empty(qid.size, dtype=np.int64)
    for q in range(n_queries):  # test helper, not a hot path
        order[slots == q] = np.flatnonzero(qid == q)
    return sizes, qid, y, s, order


def _ours(metric, y, s, qid, order, k, convention):
    return metric(y[order], s[order], query_id=qid[order], k=k, convention=convention)


def _lightgbm_eval(sizes, y, s, k):
    lgb = pytest.importorskip("lightgbm")
    X = np.zeros((y.size, 1))
    data = lgb.Dataset(X, y, group=sizes, init_score=s, free_raw_data=False)
    params = {
        "objective": "lambdarank",
        "metric": ["ndcg", "map"],
        "eval_at": [k],
        "min_data_in_leaf": y.size + 1,  # no split: a constant round
        "verbose": -1,
    }
    record = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lgb.train(
            params,
            data,
            num_boost_round=1,
            valid_sets=[data],
            valid_names=["v"],
            callbacks=[lgb.record_evaluation(record)],
        )
    return record["v"][f"ndcg@{k}"][0], record["v"][f"map@{k}"][0]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_lightgbm_preset_is_lightgbm(seed, k):
    sizes, qid, y, s, order = _case(seed)
    ndcg, map_ = _lightgbm_eval(sizes, y, s, k)
    ours_ndcg = _ours(srm.ndcg_at_k, y, s, qid, order, k, "lightgbm")
    ours_map = _ours(srm.average_precision_at_k, y, s, qid, order, k, "lightgbm")
    assert ours_ndcg == pytest.approx(ndcg, rel=1e-9)
    assert ours_map == pytest.approx(map_, rel=1e-9)
    # Not expressed: LightGBM's query weights (the first row's weight of
    # each query) and -inf init scores; both compared by worked cases only.


def _xgboost_eval(qid, y, s, k, metric):
    xgb = pytest.importorskip("xgboost")
    X = np.zeros((y.size, 1))
    data = xgb.DMatrix(X, y, qid=qid, base_margin=s)
    record = {}
    xgb.train(
        {"objective": "rank:ndcg", "eta": 0.0, "eval_metric": [f"{metric}@{k}"]},
        data,
        num_boost_round=1,
        evals=[(data, "v")],
        evals_result=record,
        verbose_eval=False,
    )
    return record["v"][f"{metric}@{k}"][0]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_xgboost_preset_is_xgboost_ndcg(seed, k):
    sizes, qid, y, s, order = _case(seed)
    theirs = _xgboost_eval(qid, y, s, k, "ndcg")
    assert _ours(srm.ndcg_at_k, y, s, qid, order, k, "xgboost") == pytest.approx(
        theirs,
        rel=1e-6,  # XGBoost reports float32-accumulated values
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_xgboost_preset_is_xgboost_map(seed, k):
    # XGBoost's map@k refuses graded labels ("map can only be used with
    # binary labels"): binary labels only.
    sizes, qid, y, s, order = _case(seed, binary=True)
    theirs = _xgboost_eval(qid, y, s, k, "map")
    ours = _ours(srm.average_precision_at_k, y, s, qid, order, k, "xgboost")
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_lightgbm_ap_denominator_more_relevant_than_k():
    # map_metric.hpp divides the sum of precisions at the hits by
    # min(relevant, k).  One query, 3 relevant items, k=2: the ranking is
    # item 0 (relevant), item 1 (not): sum of P@i at hits = 1/1, divided by
    # min(3, 2) = 2 -> 0.5 (ap_denominator="relevant" would give 1/3).
    y_true = [[1, 0, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.1]]
    value = srm.average_precision_at_k(y_true, y_score, k=2, convention="lightgbm")
    assert value == pytest.approx(0.5)
    other = srm.average_precision_at_k(y_true, y_score, k=2, convention="ranx")
    assert other == pytest.approx(1 / 3)


def test_xgboost_ap_denominator_more_relevant_than_k():
    # XGBoost's map@k (checked against XGBoost 3.2 above) also divides by
    # min(relevant, k): the same query as above gives 1/2, not 1/3.
    y_true = [[1, 0, 1, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.1]]
    value = srm.average_precision_at_k(y_true, y_score, k=2, convention="xgboost")
    assert value == pytest.approx(0.5)
