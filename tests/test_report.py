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
from sklearn_rankmetrics._evaluation._per_query import (
    PerQueryReport,
    _means,
    _per_query_report,
)
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
    # not in the default report: asked for by name
    "r_precision": srm.r_precision_score,
    "bpref": srm.bpref_score,
    "fallout": srm.fallout_at_k,
    "err": srm.expected_reciprocal_rank_at_k,
    "rbp": srm.rank_biased_precision_at_k,
    "rbp_residual": srm.rbp_residual_at_k,
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
            assert np.add.reduce(ww * values[keep]) / ww.sum() == mean, msg


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
    # impressions: the rows the AUC reads (the -inf negatives are not
    # candidates)
    read = ((Y > 0) | (S > -np.inf)).sum(axis=1)
    assert_array_equal(rep.weights["gauc"], read.astype(float))
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
        ({"metrics": ["ndcg@10"]}, ValueError, "'ndcg@10' in metrics: give the"),
        ({"metrics": ["auc"]}, ValueError, "did you mean 'gauc'"),
        ({"metrics": ["nope"]}, ValueError, "choose among"),
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


# ---------------------------------------------------------------------------
# ranking_report
# ---------------------------------------------------------------------------
def test_ranking_report_dict_equals_metric_functions_at_every_cutoff():
    Y, S = random_case(5, 30, 25, score_levels=4)
    report = srm.ranking_report(Y, S, metrics=ALL, output_dict=True)
    assert len(report) == 13 * 4 + 3  # r_precision, bpref and gauc: no k
    for name, value in report.items():
        metric, _, k = name.partition("@")
        kw = {"k": int(k)} if k else {}
        assert isinstance(value, float)
        assert value == PUBLIC[metric](Y, S, **kw), name


def test_ranking_report_text_table():
    Y, S = random_case(2, 10, 8)
    text = srm.ranking_report(Y, S, k=(2, 10), metrics=["precision", "ndcg", "gauc"])
    lines = text.splitlines()
    assert lines[0].split() == ["@2", "@10"]
    assert lines[1].split() == [
        "precision",
        f"{srm.precision_at_k(Y, S, k=2):.4f}",
        f"{srm.precision_at_k(Y, S, k=10):.4f}",
    ]
    assert lines[3].split()[:2] == ["gauc", f"{srm.group_auc_score(Y, S):.4f}"]
    n_scored = int((Y > 0).any(axis=1).sum())
    assert lines[-1] == f"10 queries, {n_scored} with a relevant item."
    text = srm.ranking_report(Y, S, k=2, metrics=["map"], digits=2)
    assert (
        text.splitlines()[1].split()[1]
        == f"{srm.average_precision_at_k(Y, S, k=2):.2f}"
    )


def test_ranking_report_per_query_frame_and_dict():
    pd = pytest.importorskip("pandas")
    y = np.array([1, 0, 0, 1, 0, 1, 0, 0])
    s = np.array([0.9, 0.2, 0.4, 0.1, 0.5, 0.3, 0.7, 0.6])
    qid = np.array(["b", "b", "b", "a", "a", "a", "c", "c"])
    frame = srm.ranking_report(
        y, s, k=2, metrics=["ndcg", "gauc"], query_id=qid, per_query=True
    )
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["query_id", "ndcg@2", "gauc"]
    assert frame["query_id"].tolist() == ["a", "b", "c"]  # np.unique order
    assert_array_equal(
        frame["ndcg@2"], srm.ndcg_at_k(y, s, k=2, query_id=qid, average=None)
    )
    assert np.isnan(frame["ndcg@2"].iloc[2])  # "c" has no relevant item
    as_dict = srm.ranking_report(
        y, s, k=2, metrics=["ndcg"], query_id=qid, per_query=True, output_dict=True
    )
    assert list(as_dict) == ["query_id", "ndcg@2"]
    assert_array_equal(as_dict["query_id"], ["a", "b", "c"])


def test_ranking_report_per_query_without_pandas(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    Y, S = random_case(0, 4, 6)
    table = srm.ranking_report(Y, S, k=3, metrics=["mrr"], per_query=True)
    assert isinstance(table, dict)
    assert_array_equal(table["query_id"], np.arange(4))
    assert_array_equal(
        table["mrr@3"], srm.reciprocal_rank_at_k(Y, S, k=3, average=None)
    )


def test_ranking_report_all_skipped_warns_once_and_reports_nan():
    Y = np.zeros((3, 4))
    S = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UndefinedMetricWarning, match="ndcg@1, ndcg@5"):
        report = srm.ranking_report(Y, S, k=(1, 5), metrics=["ndcg"], output_dict=True)
    assert np.isnan(report["ndcg@1"]) and np.isnan(report["ndcg@5"])
    with pytest.warns(UndefinedMetricWarning):
        text = srm.ranking_report(Y, S, k=1, metrics=["ndcg"])
    assert "nan" in text and "3 queries, 0 with a relevant item." in text


def test_ranking_report_bad_digits():
    with pytest.raises(ValueError, match="digits"):
        srm.ranking_report([[1, 0]], [[0.1, 0.2]], digits=-1)


def test_import_needs_neither_matplotlib_nor_pandas():
    """``import sklearn_rankmetrics`` works with both made unimportable and
    does not import matplotlib (scikit-learn itself may import pandas)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['pandas'] = sys.modules['matplotlib'] = None;"
        "import sklearn_rankmetrics as s;"
        "print(s.ranking_report([[1, 0]], [[0.2, 0.1]], k=1, metrics=['ndcg'],"
        " per_query=True))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert "'ndcg@1': array([1.])" in out
    code = "import sys, sklearn_rankmetrics; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_metric_added_to_the_kernel_table_appears_in_the_report(monkeypatch):
    """The report reads the registry: a new metric (with an option the
    report does not know, left at its default) is there by name."""
    from sklearn_rankmetrics import _registry
    from sklearn_rankmetrics._metrics import _kernels

    def _hits_values(rk, scale=2.0):
        return scale * rk.hits

    kernel = _kernels.Kernel(_hits_values, "n_rel", options=("scale",))
    spec = _registry.MetricSpec("hits", srm.precision_at_k, kernel)
    monkeypatch.setitem(_registry.METRICS, "hits", spec)
    Y, S = random_case(0, 6, 7)
    report = srm.ranking_report(
        Y, S, k=(1, 3), metrics=["map", "hits"], output_dict=True
    )
    expected = 2.0 * 3 * srm.precision_at_k(Y, S, k=3)
    assert report["hits@3"] == pytest.approx(expected, rel=1e-12)
    assert "hits" in srm.ranking_report(Y, S, k=3, metrics=["hits"])
    assert "hits@3" not in srm.ranking_report(Y, S, k=3, output_dict=True)
