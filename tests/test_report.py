"""ranking_report and its per-query core: every value *equals* (not merely
approximates) what the metric function returns on the same inputs."""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._report import PerQueryReport, _means, _per_query_report
from tests._reference import random_case, random_weights

PUBLIC = {
    "precision": srm.precision_at_k,
    "recall": srm.recall_at_k,
    "f1": srm.f1_at_k,
    "fbeta": srm.fbeta_at_k,
    "hit_rate": srm.hit_rate_at_k,
    "mrr": srm.reciprocal_rank_at_k,
    "map": srm.average_precision_at_k,
    "dcg": srm.dcg_at_k,
    "ndcg": srm.ndcg_at_k,
    "gauc": srm.group_auc_score,
}
ALL = list(PUBLIC)
KS = (1, 3, 5, 20)


def _forms(Y, S, w=None, seed=0):
    """The same queries as dense, sparse and shuffled long-form inputs."""
    n, m = S.shape
    yield "dense", Y, S, None, w
    yield "sparse", sp.csr_matrix(Y), S, None, w
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n * m)
    qid = np.array([f"q{i:02d}" for i in range(n)])[np.repeat(np.arange(n), m)]
    w_rows = None if w is None else np.repeat(w, m)[perm]
    yield "long", Y.ravel()[perm], S.ravel()[perm], qid[perm], w_rows


def _call(metric, y_true, y_score, k, qid, w, options, average):
    func = PUBLIC[metric]
    params = inspect.signature(func).parameters
    kwargs = {o: v for o, v in options.items() if o in params}
    if "k" in params:
        kwargs["k"] = k
    return func(
        y_true, y_score, query_id=qid, sample_weight=w, average=average, **kwargs
    )


OPTIONS = [
    {},
    {"ignore_ties": True},
    {"no_relevant": 0.0},
    {"relevance_threshold": 2, "gain": "exponential"},
    {"ap_denominator": "min_k", "beta": 2.0, "log_base": 10.0},
    {"query_weighting": "uniform"},
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_per_query_report_equals_the_metric_functions(seed, options, weighted):
    Y, S = random_case(seed, 12, 9, score_levels=3 if seed else None)
    w = random_weights(seed, 12) if weighted else None
    for form, y_true, y_score, qid, sw in _forms(Y, S, w, seed):
        rep = _per_query_report(
            y_true,
            y_score,
            k=KS,
            metrics=ALL,
            query_id=qid,
            sample_weight=sw,
            **options,
        )
        assert isinstance(rep, PerQueryReport)
        expected_ids = np.unique(qid) if form == "long" else np.arange(12)
        assert_array_equal(rep.query_id, expected_ids)
        means = _means(rep)
        for name, values in rep.values.items():
            metric, _, k = name.partition("@")
            k = int(k) if k else None
            msg = f"{form} {name} {options}"
            per_query = _call(metric, y_true, y_score, k, qid, sw, options, None)
            assert_array_equal(values, per_query, err_msg=msg)
            assert values.dtype == np.float64
            mean = _call(metric, y_true, y_score, k, qid, sw, options, "queries")
            assert means[name] == mean, msg
            # the documented recipe: weighted mean over the non-nan values
            keep = ~np.isnan(values)
            ww = rep.weights[name][keep]
            assert np.dot(ww, values[keep]) / ww.sum() == mean, msg


def test_per_query_report_keys_and_default_metrics():
    Y, S = random_case(0, 5, 8)
    rep = _per_query_report(
        Y, S, k=(5, 1), metrics=None, query_id=None, sample_weight=None
    )
    names = list(rep.values)
    assert names[:2] == ["precision@5", "precision@1"]
    assert "fbeta@5" not in names and "ndcg@1" in names
    assert "gauc" not in names  # 2-D: GAUC costs a full sort, ask for it
    qid = np.repeat(np.arange(5), 8)
    rep = _per_query_report(
        Y.ravel(), S.ravel(), k=5, metrics=None, query_id=qid, sample_weight=None
    )
    assert list(rep.values)[-1] == "gauc"
    assert_array_equal(rep.weights["gauc"], np.full(5, 8.0))
    assert_array_equal(rep.weights["ndcg@5"], np.ones(5))


def test_per_query_report_long_form_row_weights_for_gauc_only():
    y = np.array([1, 0, 0, 1, 0, 1])
    s = np.array([0.9, 0.2, 0.4, 0.1, 0.5, 0.3])
    qid = np.array([1, 1, 1, 2, 2, 2])
    w = np.array([1.0, 2.0, 3.0, 1.0, 1.0, 0.5])
    rep = _per_query_report(y, s, k=2, metrics=["gauc"], query_id=qid, sample_weight=w)
    assert_array_equal(
        rep.values["gauc"],
        srm.group_auc_score(y, s, query_id=qid, sample_weight=w, average=None),
    )
    # impressions: the sum of the row weights of the query (scaled: relative)
    assert rep.weights["gauc"][0] / rep.weights["gauc"][1] == 6.0 / 2.5
    with pytest.raises(ValueError, match="constant within each query.*query_id=1"):
        _per_query_report(
            y, s, k=2, metrics=["ndcg", "gauc"], query_id=qid, sample_weight=w
        )


def test_per_query_report_all_skipped_is_nan_with_one_warning():
    Y = np.zeros((3, 4))
    S = np.arange(12.0).reshape(3, 4)
    rep = _per_query_report(
        Y, S, k=(1, 2), metrics=["ndcg", "gauc"], query_id=None, sample_weight=None
    )
    assert all(np.isnan(v).all() for v in rep.values.values())
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        means = _means(rep)
    assert all(np.isnan(v) for v in means.values())
    assert len(record) == 1 and record[0].category is UndefinedMetricWarning
    assert "ndcg@1, ndcg@2, gauc" in str(record[0].message)


def test_per_query_report_no_relevant_raise():
    Y, S = random_case(1, 6, 5, p_no_relevant=0.5)
    with pytest.raises(ValueError, match="no relevant item"):
        _per_query_report(
            Y,
            S,
            k=3,
            metrics=["map"],
            query_id=None,
            sample_weight=None,
            no_relevant="raise",
        )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k": 0}, ValueError, "k must hold ints >= 1"),
        ({"k": (5, None)}, TypeError, "k=None"),
        ({"k": ()}, ValueError, "k is empty"),
        ({"k": "10"}, TypeError, "k must hold ints"),
        ({"metrics": ["ndcg@10"]}, ValueError, "unknown metric 'ndcg@10'"),
        ({"metrics": ["auc"]}, ValueError, "choose among"),
        ({"metrics": []}, ValueError, "metrics is empty"),
        ({"gain": "exp"}, ValueError, "gain must be one of"),
        ({"beta": 0}, ValueError, "beta must be"),
        ({"ignore_ties": "yes"}, TypeError, "ignore_ties"),
    ],
)
def test_per_query_report_bad_options(kwargs, error, match):
    Y, S = random_case(0, 4, 5)
    args = {"k": 3, "metrics": None, "query_id": None, "sample_weight": None}
    with pytest.raises(error, match=match):
        _per_query_report(Y, S, **{**args, **kwargs})
