"""The registry's recipe, followed to the letter: adding a metric is writing
its kernel and its function, adding one ``MetricSpec`` and running the
registry test -- and the metric is then on every surface.

The throwaway metric is the *capped recall* at k: the hits in the top k
over the most hits possible, ``min(k, R)`` (1 for a perfect ranking even
when a query has more than k relevant items).  Its kernel and function are
written here as a developer writes them in ``_metrics/``; the registry
entry is monkeypatched in for each test only.
"""

import importlib
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import BaseEstimator, RegressorMixin

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import _registry
from sklearn_rankmetrics._metrics._base import with_convention
from sklearn_rankmetrics._metrics._driver import metric_value
from sklearn_rankmetrics._metrics._kernels import Kernel, _divide
from tests._reference import random_case


# ---------------------------------------------------------------------------
# Step 1: the kernel (_metrics/_kernels.py) and the function (_metrics/)
# ---------------------------------------------------------------------------
def _capped_recall_values(rk):
    # expected hits in the top k over min(k, R): linear in the hits, so
    # exact under ties; k=None: the retrieved items
    return _divide(rk.hits, np.minimum(rk.cutoff, rk.n_rel))


CAPPED_RECALL_KERNEL = Kernel(_capped_recall_values, "n_rel")


@with_convention
def capped_recall_at_k(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    relevance_threshold=None,
    ties=None,
    ignore_ties=False,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
):
    """Capped recall at k: the hits in the top k over ``min(k, R)``."""
    return metric_value("capped_recall_at_k", CAPPED_RECALL_KERNEL, locals())


# Step 2: one MetricSpec (added to _registry.METRICS by the fixture below)
SPEC = _registry.MetricSpec("capped_recall", capped_recall_at_k, CAPPED_RECALL_KERNEL)


# Every surface, imported before the metric is registered: one that read
# the registry when imported would miss it.
SURFACES = (
    "sklearn_rankmetrics._scoring._scorer",
    "sklearn_rankmetrics._evaluation._report",
    "sklearn_rankmetrics._evaluation._state",
    "sklearn_rankmetrics._evaluation._compare",
    "sklearn_rankmetrics._evaluation._factor",
    "sklearn_rankmetrics._plot._metric_at_k",
    "sklearn_rankmetrics._cli",
    "sklearn_rankmetrics.dask",
    "tests.test_common",
)


@pytest.fixture
def registered(monkeypatch):
    """The metric in the registry for one test (and nowhere else)."""
    for module in SURFACES:
        importlib.import_module(module)
    monkeypatch.setitem(_registry.METRICS, SPEC.name, SPEC)
    yield SPEC
    # the root keeps a name it has looked up: forget it with the registry's
    vars(srm).pop("capped_recall_at_k", None)


# ---------------------------------------------------------------------------
# The function itself: a brute-force reference, hand-worked values
# ---------------------------------------------------------------------------
def _naive(y_true, y_score, k):
    """Per query, without ties: sort, count, divide (nan without R)."""
    out = []
    for rel, score in zip(y_true, y_score, strict=True):
        retrieved = np.isfinite(score)
        order = np.argsort(-score[retrieved], kind="stable")
        top = (rel[retrieved] > 0)[order][: k if k is not None else None]
        n_rel = np.count_nonzero(rel > 0)
        cut = top.size if k is None else k
        out.append(top.sum() / min(cut, n_rel) if n_rel else np.nan)
    return np.array(out)


@pytest.mark.parametrize("k", [1, 3, None])
@pytest.mark.parametrize("seed", range(4))
def test_the_throwaway_metric_is_right(seed, k):
    y_true, y_score = random_case(seed, 12, 7, score_levels=None)
    got = capped_recall_at_k(y_true, y_score, k=k, average=None)
    assert_allclose(got, _naive(y_true, y_score, k), rtol=1e-12, equal_nan=True)
    # min(k, R) is also precision's "min_k" denominator
    other = srm.precision_at_k(
        y_true, y_score, k=k, precision_denominator="min_k", average=None
    )
    if k is not None:
        assert_allclose(got, other, rtol=1e-12, equal_nan=True)


def test_the_throwaway_metric_by_hand():
    # query 1: R = 3, top 2 = (rel, irrel): 1 hit of min(2, 3) = 2 -> 1/2;
    # query 2: R = 1, top 2 = (irrel, rel): 1 of min(2, 1) = 1 -> 1;
    # query 3: no relevant item -> undefined (skipped); mean (1/2 + 1) / 2
    y_true = [[1, 0, 1, 1], [0, 1, 0, 0], [0, 0, 0, 0]]
    y_score = [[0.9, 0.8, 0.1, 0.2], [0.9, 0.8, 0.1, 0.2], [0.9, 0.8, 0.1, 0.2]]
    got = capped_recall_at_k(y_true, y_score, k=2, average=None)
    assert_allclose(got, [0.5, 1.0, np.nan], equal_nan=True)
    assert capped_recall_at_k(y_true, y_score, k=2) == 0.75
    # a tie of the relevant item with two others at the cut: P(in top 1) = 1/3
    assert capped_recall_at_k([[1, 0, 0]], [[0.5, 0.5, 0.5]], k=1) == 1 / 3
    with pytest.raises(ValueError, match="have no relevant item, so"):
        capped_recall_at_k(y_true, y_score, k=2, no_relevant="raise")


def test_a_parameter_the_kernel_does_not_read_is_refused():
    # the driver refuses an argument no one reads: a metric wired wrongly
    def wrongly_wired(y_true, y_score, *, k=None, beta=2.0):
        return metric_value("wrongly_wired", CAPPED_RECALL_KERNEL, locals())

    with pytest.raises(TypeError, match=r"\['beta'\] is neither an option"):
        wrongly_wired([[1, 0]], [[0.5, 0.2]])


# ---------------------------------------------------------------------------
# Step 3: the registry test finds it on every surface
# ---------------------------------------------------------------------------
def _long_case(seed=0):
    """Long form, graded, ties and -inf, rows out of order, string ids that
    look alike ("7" and "007")."""
    Y, S = random_case(seed, 9, 6, score_levels=4)
    qid = np.repeat(np.array(["7", "007", "q1", "q10", "q2", "b", "a", "c", "d"]), 6)
    order = np.random.default_rng(seed).permutation(qid.size)
    return Y.ravel()[order], S.ravel()[order], qid[order]


K = 3


def test_root_import(registered):
    namespace = {}
    exec("from sklearn_rankmetrics import capped_recall_at_k", namespace)
    assert namespace["capped_recall_at_k"] is capped_recall_at_k
    assert "capped_recall_at_k" in srm.__all__
    assert "capped_recall_at_k" in dir(srm)


def test_root_forgets_an_unregistered_metric():
    # without the registry entry the root has no such name
    assert "capped_recall_at_k" not in srm.__all__
    with pytest.raises(AttributeError, match="capped_recall_at_k"):
        srm.capped_recall_at_k  # noqa: B018


def test_parse_metric_and_names(registered):
    assert _registry.parse_metric("capped_recall@3") == (SPEC, 3)
    assert "capped_recall" in _registry.metric_names(scorer=True)
    assert SPEC.reads == "top_k"


def test_ranking_report(registered):
    y, s, q = _long_case()
    want = capped_recall_at_k(y, s, query_id=q, k=K)
    got = srm.ranking_report(
        y, s, query_id=q, k=K, metrics=["capped_recall", "ndcg"], output_dict=True
    )
    assert got["capped_recall@3"] == want
    per_query = srm.ranking_report(
        y,
        s,
        query_id=q,
        k=K,
        metrics=["capped_recall"],
        per_query=True,
        output_dict=True,
    )
    assert list(per_query["query_id"]) == sorted(set(q))  # "007" before "7"
    assert_array_equal(
        per_query["capped_recall@3"],
        capped_recall_at_k(y, s, query_id=q, k=K, average=None),
    )


def test_scorers(registered):
    class _Scores(RegressorMixin, BaseEstimator):
        """Predicts the first column of X: the scores of the case."""

        def fit(self, X, y):
            self.n_features_in_ = np.shape(X)[1]
            return self

        def predict(self, X):
            return np.asarray(X)[:, 0]

    y, s, q = _long_case(1)
    X = np.column_stack([np.where(np.isfinite(s), s, -1e300), np.zeros_like(s)])
    est = _Scores().fit(X, y)
    want = capped_recall_at_k(y, est.predict(X), query_id=q, k=K)
    assert srm.get_scorer("capped_recall@3")(est, X, y, query_id=q) == want
    scoring = srm.make_scoring(["capped_recall@3", "ndcg@3"])
    assert scoring["capped_recall@3"](est, X, y, query_id=q) == want
    assert "capped_recall" in srm.get_scorer_names()


def test_ranking_evaluator(registered):
    y, s, q = _long_case(2)
    evaluator = srm.RankingEvaluator(k=K, metrics=["capped_recall"])
    first = np.isin(q, ["7", "q1", "a", "c"])
    for rows in (first, ~first):
        evaluator.update(y[rows], s[rows], query_id=q[rows])
    got = evaluator.result(output_dict=True)["capped_recall@3"]
    assert_allclose(got, capped_recall_at_k(y, s, query_id=q, k=K), rtol=1e-12)


def test_compare_rankings(registered):
    y, s, q = _long_case(3)
    s2 = np.where(np.isfinite(s), -s, s)
    result = srm.compare_rankings(
        y,
        {"a": s, "b": s2},
        k=K,
        metrics=["capped_recall"],
        query_id=q,
        n_resamples=9,
        n_bootstrap=9,
        random_state=0,
    )
    assert result.metrics == ["capped_recall@3"]
    for i, score in enumerate((s, s2)):
        assert result.mean[i, 0] == capped_recall_at_k(y, score, query_id=q, k=K)


def test_metric_at_k_display(registered):
    y, s, q = _long_case(4)
    display = srm.MetricAtKDisplay.from_predictions(
        y, s, metric="capped_recall", k=(1, 2, 4), query_id=q, plot=False
    )
    want = [capped_recall_at_k(y, s, query_id=q, k=k) for k in (1, 2, 4)]
    assert list(display.values) == want


def test_factor_ranking_report(registered):
    rng = np.random.default_rng(5)
    U, V = rng.normal(size=(8, 3)), rng.normal(size=(10, 3))
    Y = (rng.random((8, 10)) < 0.3).astype(float)
    got = srm.factor_ranking_report(
        Y, U, V, k=K, metrics=["capped_recall"], output_dict=True
    )
    want = capped_recall_at_k(Y, U @ V.T, k=K)
    assert_allclose(got["capped_recall@3"], want, rtol=1e-12)


def test_dask_report(registered):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rankmetrics.dask import ranking_report as dask_report

    y, s, q = _long_case(6)
    frame = pd.DataFrame({"q": q, "y": y, "s": s})
    with dask.config.set(scheduler="synchronous"):
        got = dask_report(
            dd.from_pandas(frame, npartitions=3),
            query_col="q",
            label_col="y",
            score_col="s",
            k=K,
            metrics=["capped_recall"],
            output_dict=True,
        )
    want = capped_recall_at_k(y, s, query_id=q, k=K)
    assert_allclose(got["capped_recall@3"], want, rtol=1e-12)


def test_command_line(registered, tmp_path, capsys):
    from sklearn_rankmetrics._cli import main

    y, s, q = _long_case(7)
    s = np.where(np.isfinite(s), s, -1e300)  # a CSV cell cannot say -inf here
    path = tmp_path / "t.csv"
    lines = ["user,label,score"]
    lines += [f"{a},{b:g},{float(c)!r}" for a, b, c in zip(q, y, s, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    argv = ["evaluate", "--long", str(path), "--query-col", "user", "--label-col"]
    argv += ["label", "--score-col", "score", "--format", "json"]
    code = main([*argv, "-m", "capped_recall@3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (values,) = [r["all"] for r in json.loads(out).values()]
    want = capped_recall_at_k(y, s, query_id=q.astype(str), k=K)
    assert values == {"capped_recall@3": pytest.approx(want, rel=1e-12)}


def test_common_tests_walk_it(registered, monkeypatch):
    # the case table of tests/test_common.py is built from the registry:
    # the new metric is walked, at a cut-off and on the whole list, by its
    # invariance tests
    from tests import test_common

    cases = test_common._registry_cases()
    assert cases["capped_recall@3"].func is capped_recall_at_k
    assert cases["capped_recall"].func is capped_recall_at_k
    for label in ("capped_recall@3", "capped_recall"):
        monkeypatch.setitem(test_common.METRICS, label, cases[label])
        test_common.test_query_order(label, "ties")
        test_common.test_item_order(label, "heavy-ties")
        test_common.test_increasing_transform_of_scores(label, "ties", "cube")
        test_common.test_values_in_range(label, "continuous")
        test_common.test_perfect_ranking(label)
        test_common.test_retrieving_exactly_the_relevant_items(label)
        test_common.test_list_ndarray_dataframe_agree(label)
        test_common.test_integer_weights_are_repeated_rows(label, "ties")
        test_common.test_zero_weight_drops_the_row(label, "ties")
        test_common.test_inputs_not_modified_and_read_only_ok(label)
        test_common.test_returns_python_float(label)
