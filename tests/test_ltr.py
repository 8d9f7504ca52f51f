"""QueryRanker: learning-to-rank estimators in scikit-learn's tools.

The conversion (grouping, group sizes / qid / group_id, weights, eval
sets) is checked first with recording stand-ins that have the fit
signature of each library, so it is tested where no GBDT library is
installed; then with the real LightGBM, XGBoost and CatBoost rankers
(``importorskip``) in every model-selection tool, on synthetic data and on
LightGBM's lambdarank example.  GBDT models are tiny (few trees, one
thread) to keep the file fast.  Metadata routing is only ever enabled
inside ``sklearn.config_context`` (the ``routing`` fixture).
"""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_rankmetrics import (
    QueryRanker,
    average_precision_at_k,
    get_scorer,
    make_scoring,
    ndcg_at_k,
)
from sklearn_rankmetrics.datasets import make_ranking_dataset

SKLEARN_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2])
# validation_curve and learning_curve route metadata (params=) from 1.6
needs_curve_routing = pytest.mark.skipif(
    SKLEARN_VERSION < (1, 6),
    reason="validation_curve/learning_curve route metadata from scikit-learn 1.6",
)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny fits: OpenMP threads only cost time (HistGradientBoosting)."""
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def data():
    """Shuffled long form: 40 queries of 4-12 rows, graded relevance."""
    return make_ranking_dataset(n_queries=40, n_docs=(4, 12), random_state=0)


# ---------------------------------------------------------------------------
# Recording stand-ins with each library's fit signature
# ---------------------------------------------------------------------------
class _Recorder(BaseEstimator):
    """Records what fit received; predicts the first feature."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def _record(self, X, y, **kwargs):
        self.X_, self.y_, self.kwargs_ = X, np.asarray(y), kwargs
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0] * self.alpha


class FakeLGBMRanker(_Recorder):
    def fit(
        self,
        X,
        y,
        sample_weight=None,
        group=None,
        eval_set=None,
        eval_group=None,
        init_score=None,
        callbacks=None,
    ):
        return self._record(
            X,
            y,
            sample_weight=sample_weight,
            group=group,
            eval_set=eval_set,
            eval_group=eval_group,
            callbacks=callbacks,
        )


class FakeXGBRanker(_Recorder):
    def fit(
        self,
        X,
        y,
        *,
        group=None,
        qid=None,
        sample_weight=None,
        eval_set=None,
        eval_group=None,
        eval_qid=None,
        base_margin=None,
    ):
        return self._record(
            X,
            y,
            qid=qid,
            sample_weight=sample_weight,
            eval_set=eval_set,
            eval_qid=eval_qid,
        )


class FakeCatBoostRanker(_Recorder):
    def fit(
        self,
        X,
        y=None,
        group_id=None,
        sample_weight=None,
        group_weight=None,
        eval_set=None,
    ):
        return self._record(
            X,
            y,
            group_id=group_id,
            group_weight=group_weight,
            sample_weight=sample_weight,
        )


class FakeWithPredictParams(_Recorder):
    def fit(self, X, y):
        return self._record(X, y)

    def predict(self, X, offset=0.0):
        return super().predict(X) + offset


class FakePointwise(_Recorder):
    def fit(self, X, y, sample_weight=None):
        return self._record(X, y, sample_weight=sample_weight)


SHUFFLED_QID = np.array([7, 3, 7, 5, 3, 7, 5, 3])
X_SMALL = np.arange(16.0).reshape(8, 2)
Y_SMALL = np.array([0, 1, 2, 0, 1, 0, 3, 0])
# rows grouped by sorted id (3, 5, 7), each query's rows in input order
GROUPED = np.array([1, 4, 7, 3, 6, 0, 2, 5])


def test_lightgbm_gets_grouped_rows_and_group_sizes():
    ranker = QueryRanker(FakeLGBMRanker()).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)
    inner = ranker.estimator_
    np.testing.assert_array_equal(inner.X_, X_SMALL[GROUPED])
    np.testing.assert_array_equal(inner.y_, Y_SMALL[GROUPED])
    np.testing.assert_array_equal(inner.kwargs_["group"], [3, 2, 3])
    assert inner.kwargs_["sample_weight"] is None


def test_xgboost_gets_sorted_qid_and_catboost_group_id():
    xgb = QueryRanker(FakeXGBRanker()).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)
    np.testing.assert_array_equal(xgb.estimator_.X_, X_SMALL[GROUPED])
    np.testing.assert_array_equal(
        xgb.estimator_.kwargs_["qid"], [0, 0, 0, 1, 1, 2, 2, 2]
    )
    cat = QueryRanker(FakeCatBoostRanker()).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)
    np.testing.assert_array_equal(cat.estimator_.y_, Y_SMALL[GROUPED])
    np.testing.assert_array_equal(
        cat.estimator_.kwargs_["group_id"], [0, 0, 0, 1, 1, 2, 2, 2]
    )


def test_pointwise_estimator_gets_rows_as_given():
    ranker = QueryRanker(FakePointwise()).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)
    assert ranker.estimator_.X_ is X_SMALL
    np.testing.assert_array_equal(ranker.estimator_.y_, Y_SMALL)


def test_grouped_input_is_not_copied():
    qid = np.sort(SHUFFLED_QID)
    ranker = QueryRanker(FakeLGBMRanker()).fit(X_SMALL, Y_SMALL, query_id=qid)
    assert ranker.estimator_.X_ is X_SMALL
    np.testing.assert_array_equal(ranker.estimator_.kwargs_["group"], [3, 2, 3])


@pytest.mark.parametrize("kind", ["str", "object", "pandas", "polars", "float"])
def test_query_id_types(kind):
    ids = {
        "str": SHUFFLED_QID.astype(str),  # '3' < '5' < '7' as well
        "object": SHUFFLED_QID.astype(object),
        "float": SHUFFLED_QID.astype(float),
    }
    if kind == "pandas":
        pd = pytest.importorskip("pandas")
        ids[kind] = pd.Series(SHUFFLED_QID, index=np.arange(8)[::-1])
    if kind == "polars":
        pl = pytest.importorskip("polars")
        ids[kind] = pl.Series(SHUFFLED_QID)
    ranker = QueryRanker(FakeXGBRanker()).fit(X_SMALL, Y_SMALL, query_id=ids[kind])
    np.testing.assert_array_equal(ranker.estimator_.X_, X_SMALL[GROUPED])


def test_dataframe_and_sparse_X_keep_their_type():
    pd = pytest.importorskip("pandas")
    import scipy.sparse as sp

    frame = pd.DataFrame(X_SMALL, columns=["a", "b"])
    ranker = QueryRanker(FakeLGBMRanker()).fit(
        frame, pd.Series(Y_SMALL), query_id=SHUFFLED_QID
    )
    assert isinstance(ranker.estimator_.X_, pd.DataFrame)
    np.testing.assert_array_equal(ranker.estimator_.X_.to_numpy(), X_SMALL[GROUPED])
    for matrix in (sp.csr_matrix(X_SMALL), sp.coo_matrix(X_SMALL)):
        ranker = QueryRanker(FakeLGBMRanker()).fit(
            matrix, Y_SMALL, query_id=SHUFFLED_QID
        )
        assert sp.issparse(ranker.estimator_.X_)
        np.testing.assert_array_equal(ranker.estimator_.X_.toarray(), X_SMALL[GROUPED])


def test_sample_weight_per_library():
    w = np.array([2.0, 1.0, 2.0, 5.0, 1.0, 2.0, 5.0, 1.0])  # constant per query
    lgb = QueryRanker(FakeLGBMRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w
    )
    np.testing.assert_array_equal(lgb.estimator_.kwargs_["sample_weight"], w[GROUPED])
    xgb = QueryRanker(FakeXGBRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w
    )
    np.testing.assert_array_equal(
        xgb.estimator_.kwargs_["sample_weight"], [1.0, 5.0, 2.0]
    )
    cat = QueryRanker(FakeCatBoostRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w
    )
    np.testing.assert_array_equal(cat.estimator_.kwargs_["group_weight"], w[GROUPED])
    assert cat.estimator_.kwargs_["sample_weight"] is None
    point = QueryRanker(FakePointwise()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w
    )
    np.testing.assert_array_equal(point.estimator_.kwargs_["sample_weight"], w)
    # LightGBM weights rows: weights varying within a query are passed on
    w[0] = 9.0
    lgb.fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w)
    np.testing.assert_array_equal(lgb.estimator_.kwargs_["sample_weight"], w[GROUPED])


@pytest.mark.parametrize(
    "fake, library", [(FakeXGBRanker, "XGBoost"), (FakeCatBoostRanker, "CatBoost")]
)
def test_non_constant_query_weights(fake, library):
    w = np.ones(8)
    w[2] = 3.0  # row 2 is in query 7
    with pytest.raises(
        ValueError,
        match=f"{library} ranking takes one weight per query.*query 7.*same weight",
    ):
        QueryRanker(fake()).fit(
            X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=w
        )


def test_eval_set_is_grouped_like_the_training_data():
    X_val, y_val, qid_val = X_SMALL[:5], Y_SMALL[:5], np.array([2, 1, 2, 1, 2])
    lgb = QueryRanker(FakeLGBMRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, eval_set=[(X_val, y_val, qid_val)]
    )
    ((Xv, yv),) = lgb.estimator_.kwargs_["eval_set"]
    np.testing.assert_array_equal(Xv, X_val[[1, 3, 0, 2, 4]])
    np.testing.assert_array_equal(yv, y_val[[1, 3, 0, 2, 4]])
    np.testing.assert_array_equal(lgb.estimator_.kwargs_["eval_group"], [[2, 3]])
    xgb = QueryRanker(FakeXGBRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, eval_set=[(X_val, y_val, qid_val)] * 2
    )
    np.testing.assert_array_equal(
        xgb.estimator_.kwargs_["eval_qid"], [[0, 0, 1, 1, 1]] * 2
    )


def test_fit_params_reach_the_estimator(routing):
    callbacks = [print]
    ranker = QueryRanker(FakeLGBMRanker().set_fit_request(callbacks=True))
    ranker.fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, callbacks=callbacks)
    assert ranker.estimator_.kwargs_["callbacks"] is callbacks


def test_fit_params_without_routing():
    callbacks = [print]
    ranker = QueryRanker(FakeLGBMRanker()).fit(
        X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, callbacks=callbacks
    )
    assert ranker.estimator_.kwargs_["callbacks"] is callbacks


def test_predict_params(routing):
    inner = FakeWithPredictParams().set_predict_request(offset=True)
    ranker = QueryRanker(inner).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)
    np.testing.assert_array_equal(
        ranker.predict(X_SMALL, offset=1.0), X_SMALL[:, 0] + 1
    )
    with sklearn.config_context(enable_metadata_routing=False):
        ranker = QueryRanker(FakeWithPredictParams()).fit(
            X_SMALL, Y_SMALL, query_id=SHUFFLED_QID
        )
        np.testing.assert_array_equal(
            ranker.predict(X_SMALL, offset=2.0), X_SMALL[:, 0] + 2
        )


def test_polars_frame_keeps_its_type():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(X_SMALL, schema=["a", "b"])
    ranker = QueryRanker(FakeXGBRanker()).fit(
        frame, pl.Series(Y_SMALL), query_id=pl.Series(SHUFFLED_QID)
    )
    assert isinstance(ranker.estimator_.X_, pl.DataFrame)
    np.testing.assert_array_equal(ranker.estimator_.X_.to_numpy(), X_SMALL[GROUPED])
    np.testing.assert_array_equal(ranker.estimator_.y_, Y_SMALL[GROUPED])


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
def test_missing_query_id_without_routing():
    with pytest.raises(
        ValueError, match=r"QueryRanker.fit needs query_id=.*enable_metadata_routing"
    ):
        QueryRanker(FakeLGBMRanker()).fit(X_SMALL, Y_SMALL)
    with pytest.raises(ValueError, match="QueryRanker.fit needs query_id="):
        GridSearchCV(
            QueryRanker(Ridge()), {"estimator__alpha": [1.0]}, cv=2, error_score="raise"
        ).fit(X_SMALL, Y_SMALL)


def test_missing_query_id_with_routing(routing, data):
    X, y, qid = data
    search = GridSearchCV(
        QueryRanker(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=GroupKFold(2),
        scoring=get_scorer("ndcg@10"),
        error_score="raise",
    )
    with pytest.raises(ValueError, match="QueryRanker.fit needs query_id="):
        search.fit(X, y, groups=qid)  # groups go to the splitter only
    with pytest.raises(ValueError, match="QueryRanker.score needs query_id="):
        QueryRanker(Ridge()).fit(X, y, query_id=qid).score(X, y)


@pytest.mark.parametrize(
    "query_id, error, match",
    [
        (SHUFFLED_QID[:5], ValueError, "query_id has 5 entries but X has 8 rows"),
        (np.r_[SHUFFLED_QID[:7], np.nan], ValueError, "query_id contains NaN"),
        (
            np.array([*SHUFFLED_QID[:7].tolist(), None], dtype=object),
            ValueError,
            "query_id contains None or NaN",
        ),
        (SHUFFLED_QID.reshape(4, 2), ValueError, "query_id must be 1-D"),
        (
            np.array([*SHUFFLED_QID[:7].tolist(), "a"], dtype=object),
            TypeError,
            "query_id mixes types",
        ),
    ],
)
def test_bad_query_id(query_id, error, match):
    with pytest.raises(error, match="QueryRanker.fit: " + match):
        QueryRanker(FakeLGBMRanker()).fit(X_SMALL, Y_SMALL, query_id=query_id)


def test_bad_y_weights_and_eval_set():
    ranker = QueryRanker(FakeLGBMRanker())
    with pytest.raises(
        ValueError, match="y must be 1-D with one relevance grade per row"
    ):
        ranker.fit(X_SMALL, Y_SMALL[:6], query_id=SHUFFLED_QID)
    with pytest.raises(
        ValueError, match="sample_weight must be 1-D with one weight per row"
    ):
        ranker.fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=np.ones(3))
    with pytest.raises(
        ValueError, match="sample_weight must be finite and non-negative"
    ):
        ranker.fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, sample_weight=-np.ones(8))
    with pytest.raises(
        ValueError, match=r"eval_set must be a list of \(X_val, y_val, query_id_val\)"
    ):
        ranker.fit(
            X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, eval_set=[(X_SMALL, Y_SMALL)]
        )
    with pytest.raises(
        ValueError, match=r"eval_set\[0\]\[2\] has 3 entries but X has 8 rows"
    ):
        ranker.fit(
            X_SMALL,
            Y_SMALL,
            query_id=SHUFFLED_QID,
            eval_set=[(X_SMALL, Y_SMALL, [1, 2, 3])],
        )
    with pytest.raises(TypeError, match="FakePointwise.fit takes no eval_set"):
        QueryRanker(FakePointwise()).fit(
            X_SMALL,
            Y_SMALL,
            query_id=SHUFFLED_QID,
            eval_set=[(X_SMALL, Y_SMALL, SHUFFLED_QID)],
        )


@pytest.mark.parametrize(
    "fake, param",
    [
        (FakeLGBMRanker, "group"),
        (FakeLGBMRanker, "eval_group"),
        (FakeXGBRanker, "qid"),
        (FakeXGBRanker, "group"),
        (FakeXGBRanker, "eval_qid"),
        (FakeCatBoostRanker, "group_id"),
        (FakeCatBoostRanker, "group_weight"),
        (FakePointwise, "group"),
    ],
)
def test_fit_params_colliding_with_the_grouping(fake, param):
    with pytest.raises(
        TypeError,
        match=f"{param} is computed by QueryRanker from query_id.*query_id=...",
    ):
        QueryRanker(fake()).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, **{param: [8]})


def test_per_row_fit_params_are_refused():
    with pytest.raises(TypeError, match="init_score holds per-row data"):
        QueryRanker(FakeLGBMRanker()).fit(
            X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, init_score=np.zeros(8)
        )
    with pytest.raises(TypeError, match="base_margin holds per-row data"):
        QueryRanker(FakeXGBRanker()).fit(
            X_SMALL, Y_SMALL, query_id=SHUFFLED_QID, base_margin=np.zeros(8)
        )


class _NoPredict(BaseEstimator):
    def fit(self, X, y):
        return self


@pytest.mark.parametrize(
    "estimator, match",
    [
        (_NoPredict(), "_NoPredict, which has no predict"),
        ("LGBMRanker", "str, which has no fit or predict"),
        (Ridge, "a class; pass an instance"),
    ],
)
def test_estimator_without_fit_or_predict(estimator, match):
    with pytest.raises(
        TypeError,
        match=f"estimator must be an estimator instance with fit and predict.*{match}",
    ):
        QueryRanker(estimator).fit(X_SMALL, Y_SMALL, query_id=SHUFFLED_QID)


def test_scoring_must_be_a_name_or_callable(data):
    X, y, qid = data
    with pytest.raises(TypeError, match="scoring must be a scorer name"):
        QueryRanker(Ridge(), scoring=10).fit(X, y, query_id=qid).score(
            X, y, query_id=qid
        )


# ---------------------------------------------------------------------------
# Estimator API: params, clone, pickle, Pipeline, score, routing requests
# ---------------------------------------------------------------------------
def test_params_clone_pickle(data):
    X, y, qid = data
    ranker = QueryRanker(Ridge(alpha=1.0), scoring="map@10")
    assert ranker.get_params()["estimator__alpha"] == 1.0
    ranker.set_params(estimator__alpha=10.0)
    assert ranker.estimator.alpha == 10.0
    copy = clone(ranker)
    assert copy.estimator is not ranker.estimator and copy.estimator.alpha == 10.0
    ranker.fit(X, y, query_id=qid)
    restored = pickle.loads(pickle.dumps(ranker))
    np.testing.assert_array_equal(restored.predict(X), ranker.predict(X))
    np.testing.assert_array_equal(
        ranker.predict(X), Ridge(alpha=10.0).fit(X, y).predict(X)
    )
    assert ranker.n_features_in_ == X.shape[1]


def test_score_is_ndcg_at_10_or_the_chosen_scorer(data):
    X, y, qid = data
    ranker = QueryRanker(Ridge()).fit(X, y, query_id=qid)
    pred = ranker.predict(X)
    assert ranker.score(X, y, query_id=qid) == ndcg_at_k(y, pred, k=10, query_id=qid)
    ranker.set_params(scoring="map@5")
    assert ranker.score(X, y, query_id=qid) == average_precision_at_k(
        y, pred, k=5, query_id=qid
    )
    w = np.arange(40.0)[qid] + 1
    ranker.set_params(scoring=get_scorer("ndcg@3", gain="exponential"))
    expected = ndcg_at_k(
        y, pred, k=3, query_id=qid, gain="exponential", sample_weight=w
    )
    assert ranker.score(X, y, query_id=qid, sample_weight=w) == expected


def test_metadata_requests(routing):
    routing_info = QueryRanker(Ridge()).get_metadata_routing()
    text = str(routing_info)
    assert "'query_id': True" in text.replace('"', "'")
    ranker = QueryRanker(Ridge()).set_fit_request(sample_weight=True)
    assert "'sample_weight': True" in str(ranker.get_metadata_routing()).replace(
        '"', "'"
    )


def test_pipeline_last_step(data, routing):
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), QueryRanker(FakeLGBMRanker()))
    pipe.fit(X, y, query_id=qid)  # routed to the last step, which requests it
    inner = pipe[-1].estimator_
    assert np.all(np.diff(qid[np.argsort(qid, kind="stable")]) >= 0)
    np.testing.assert_allclose(
        inner.X_, StandardScaler().fit_transform(X)[np.argsort(qid, kind="stable")]
    )
    scores = cross_val_score(
        pipe,
        X,
        y,
        cv=GroupKFold(3),
        params={"query_id": qid, "groups": qid},
        scoring=get_scorer("ndcg@10"),
    )
    assert scores.shape == (3,) and np.all((0 < scores) & (scores <= 1))


def test_pipeline_without_routing(data):
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), QueryRanker(Ridge()))
    pipe.fit(X, y, queryranker__query_id=qid)
    expected = make_pipeline(StandardScaler(), Ridge()).fit(X, y).predict(X)
    np.testing.assert_allclose(pipe.predict(X), expected)


def test_classifier_is_delegated(data, routing):
    X, y, qid = data
    ranker = QueryRanker(LogisticRegression())
    assert is_classifier(ranker) and not is_classifier(QueryRanker(Ridge()))
    ranker.fit(X, y > 0, query_id=qid)
    proba = ranker.predict_proba(X)[:, 1]
    assert ranker.score(X, y > 0, query_id=qid) == ndcg_at_k(
        y > 0, proba, k=10, query_id=qid
    )
    np.testing.assert_array_equal(ranker.classes_, [False, True])
    assert not hasattr(QueryRanker(Ridge()), "predict_proba")


def _hand_cv(estimator, X, y, qid, cv, metric):
    """Fit and score fold by fold, as a search does."""
    values = []
    for train, test in cv.split(X, y, groups=qid):
        fitted = clone(estimator).fit(X[train], y[train], query_id=qid[train])
        values.append(metric(y[test], fitted.predict(X[test]), query_id=qid[test]))
    return np.array(values)


def _ndcg10(y, s, query_id):
    return ndcg_at_k(y, s, k=10, query_id=query_id)


# ---------------------------------------------------------------------------
# Every model-selection tool, with LightGBM, XGBoost, CatBoost and pointwise
# ---------------------------------------------------------------------------
def _lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMRanker(
        n_estimators=5,
        num_leaves=7,
        min_child_samples=5,
        n_jobs=1,
        verbose=-1,
        random_state=0,
    )


def _xgboost():
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBRanker(n_estimators=5, max_depth=3, n_jobs=1, random_state=0)


def _catboost():
    catboost = pytest.importorskip("catboost")
    return catboost.CatBoostRanker(
        iterations=5,
        depth=3,
        thread_count=1,
        verbose=0,
        random_seed=0,
        allow_writing_files=False,
    )


def _pointwise():
    return HistGradientBoostingRegressor(max_iter=5, max_leaf_nodes=7, random_state=0)


MODELS = {"lightgbm": _lightgbm, "xgboost": _xgboost, "pointwise": _pointwise}
GRIDS = {
    "lightgbm": {"estimator__num_leaves": [3, 7]},
    "xgboost": {"estimator__max_depth": [2, 3]},
    "catboost": {"estimator__depth": [2, 3]},
    "pointwise": {"estimator__max_leaf_nodes": [3, 7]},
}


@pytest.fixture(params=list(MODELS))
def model(request):
    return request.param, QueryRanker(MODELS[request.param]())


@pytest.mark.parametrize("make", [_lightgbm, _xgboost, _catboost])
def test_predictions_equal_a_direct_fit_on_grouped_rows(make, data):
    X, y, qid = data
    estimator = make()
    ranker = QueryRanker(estimator).fit(X, y, query_id=qid)
    order = np.argsort(qid, kind="stable")
    sizes = np.bincount(qid)
    key = {
        "LGBMRanker": ("group", sizes),
        "XGBRanker": ("qid", qid[order]),
        "CatBoostRanker": ("group_id", qid[order]),
    }[type(estimator).__name__]
    direct = clone(estimator).fit(X[order], y[order], **{key[0]: key[1]})
    np.testing.assert_array_equal(ranker.predict(X), direct.predict(X))


@pytest.mark.parametrize("make", [_lightgbm, _xgboost, _catboost])
def test_weights_reach_the_library_its_way(make, data):
    X, y, qid = data
    estimator = make()
    w = (np.arange(40) % 3 + 1.0)[qid]  # one weight per query, on each row
    ranker = QueryRanker(estimator).fit(X, y, query_id=qid, sample_weight=w)
    order = np.argsort(qid, kind="stable")
    name = type(estimator).__name__
    if name == "LGBMRanker":
        direct = {"group": np.bincount(qid), "sample_weight": w[order]}
    elif name == "XGBRanker":
        direct = {"qid": qid[order], "sample_weight": np.arange(40) % 3 + 1.0}
    else:
        direct = {"group_id": qid[order], "group_weight": w[order]}
    expected = clone(estimator).fit(X[order], y[order], **direct).predict(X)
    np.testing.assert_allclose(ranker.predict(X), expected, rtol=1e-12)
    unweighted = QueryRanker(estimator).fit(X, y, query_id=qid).predict(X)
    assert not np.allclose(unweighted, expected)  # the weights did something


def test_grid_search_one_query_id_array(model, data, routing):
    name, ranker = model
    X, y, qid = data
    cv = GroupKFold(3).set_split_request(groups="query_id")  # the same array
    scoring = make_scoring(["ndcg@10", "map@10", "mrr@5"])
    search = GridSearchCV(
        ranker, GRIDS[name], scoring=scoring, refit="map@10", cv=cv, error_score="raise"
    ).fit(X, y, query_id=qid)
    best = search.best_params_
    by_hand = _hand_cv(
        clone(ranker).set_params(**best),
        X,
        y,
        qid,
        GroupKFold(3),
        lambda y, s, query_id: average_precision_at_k(y, s, k=10, query_id=query_id),
    )
    assert search.best_score_ == pytest.approx(by_hand.mean(), rel=1e-12)
    assert search.best_estimator_.estimator_ is not None
    assert np.all(search.cv_results_["mean_test_ndcg@10"] > 0.3)


def test_default_scoring_is_queryranker_score(model, data, routing):
    name, ranker = model
    X, y, qid = data
    search = GridSearchCV(ranker, GRIDS[name], cv=GroupKFold(3), error_score="raise")
    search.fit(X, y, query_id=qid, groups=qid)
    by_hand = _hand_cv(
        clone(ranker).set_params(**search.best_params_),
        X,
        y,
        qid,
        GroupKFold(3),
        _ndcg10,
    )
    assert search.best_score_ == pytest.approx(by_hand.mean(), rel=1e-12)


def test_randomized_and_halving_search(model, data, routing):
    name, ranker = model
    X, y, qid = data
    random = RandomizedSearchCV(
        ranker,
        GRIDS[name],
        n_iter=2,
        cv=GroupKFold(2),
        random_state=0,
        scoring=get_scorer("ndcg@5"),
        error_score="raise",
    )
    random.fit(X, y, query_id=qid, groups=qid)
    assert len(random.cv_results_["params"]) == 2
    halving = HalvingGridSearchCV(
        ranker,
        GRIDS[name],
        cv=GroupKFold(2),
        factor=2,
        min_resources=150,
        scoring=get_scorer("ndcg@5"),
        error_score="raise",
        random_state=0,
    )
    halving.fit(X, y, query_id=qid, groups=qid)
    assert list(halving.n_resources_) == [150, 300]
    assert np.isfinite(halving.best_score_)


def test_cross_validate_several_scorers_and_n_jobs(model, data, routing):
    name, ranker = model
    X, y, qid = data
    scoring = make_scoring(["ndcg@10", "map@10", "gauc"])
    result = cross_validate(
        ranker,
        X,
        y,
        cv=GroupKFold(3),
        scoring=scoring,
        params={"query_id": qid, "groups": qid},
        n_jobs=2,
        error_score="raise",
    )
    np.testing.assert_allclose(
        result["test_ndcg@10"],
        _hand_cv(ranker, X, y, qid, GroupKFold(3), _ndcg10),
        rtol=1e-12,
    )
    scores = cross_val_score(
        ranker,
        X,
        y,
        cv=GroupKFold(3),
        scoring=get_scorer("ndcg@10"),
        params={"query_id": qid, "groups": qid},
        error_score="raise",
    )
    np.testing.assert_allclose(scores, result["test_ndcg@10"], rtol=1e-12)


@needs_curve_routing
def test_validation_and_learning_curves(model, data, routing):
    name, ranker = model
    X, y, qid = data
    ((param, values),) = GRIDS[name].items()
    train, test = validation_curve(
        ranker,
        X,
        y,
        param_name=param,
        param_range=values,
        cv=GroupKFold(2),
        scoring=get_scorer("ndcg@10"),
        params={"query_id": qid, "groups": qid},
        error_score="raise",
    )
    assert test.shape == (2, 2)
    by_hand = _hand_cv(
        clone(ranker).set_params(**{param: values[1]}),
        X,
        y,
        qid,
        GroupKFold(2),
        _ndcg10,
    )
    np.testing.assert_allclose(test[1], by_hand, rtol=1e-12)
    sizes, train, test = learning_curve(
        ranker,
        X,
        y,
        train_sizes=[0.5, 1.0],
        cv=GroupKFold(2),
        scoring=get_scorer("ndcg@10"),
        params={"query_id": qid, "groups": qid},
        error_score="raise",
    )
    assert test.shape == (2, 2)
    by_hand = []  # learning_curve trains on the first sizes[1] training rows
    for train, test_rows in GroupKFold(2).split(X, y, groups=qid):
        train = train[: sizes[1]]
        fitted = clone(ranker).fit(X[train], y[train], query_id=qid[train])
        pred = fitted.predict(X[test_rows])
        by_hand.append(_ndcg10(y[test_rows], pred, query_id=qid[test_rows]))
    np.testing.assert_allclose(test[1], by_hand, rtol=1e-12)


def test_permutation_importance(model, data):
    name, ranker = model
    X, y, qid = data
    ranker.fit(X, y, query_id=qid)
    scorer = get_scorer("ndcg@10", query_id=qid)
    result = permutation_importance(
        ranker, X, y, scoring=scorer, n_repeats=2, random_state=0
    )
    baseline = ndcg_at_k(y, ranker.predict(X), k=10, query_id=qid)
    # feature 0 drives the relevance; the 6th to 9th columns are noise
    assert result.importances_mean[0] > 0.02
    assert np.all(result.importances_mean <= baseline)


def test_catboost_grid_search(data, routing):
    ranker = QueryRanker(_catboost())
    X, y, qid = data
    search = GridSearchCV(
        ranker,
        GRIDS["catboost"],
        cv=GroupKFold(2).set_split_request(groups="query_id"),
        scoring=get_scorer("ndcg@10"),
        error_score="raise",
    ).fit(X, y, query_id=qid)
    by_hand = _hand_cv(
        clone(ranker).set_params(**search.best_params_),
        X,
        y,
        qid,
        GroupKFold(2),
        _ndcg10,
    )
    assert search.best_score_ == pytest.approx(by_hand.mean(), rel=1e-12)


@pytest.mark.parametrize("make", [_lightgbm, _xgboost, _catboost])
def test_early_stopping_on_an_eval_set(make, data):
    X, y, qid = data
    estimator = make()
    train, val = qid < 30, qid >= 30
    params = (
        {"n_estimators": 50}
        if hasattr(estimator, "n_estimators")
        else {"iterations": 50}
    )
    estimator.set_params(**params, learning_rate=0.3)
    fit_params = {}
    name = type(estimator).__name__
    if name == "LGBMRanker":
        import lightgbm

        fit_params["callbacks"] = [lightgbm.early_stopping(3, verbose=False)]
    elif name == "XGBRanker":
        estimator.set_params(early_stopping_rounds=3)
    else:
        estimator.set_params(early_stopping_rounds=3)
    ranker = QueryRanker(estimator).fit(
        X[train],
        y[train],
        query_id=qid[train],
        eval_set=[(X[val], y[val], qid[val].astype(str))],
        **fit_params,
    )
    inner = ranker.estimator_
    best = {
        "LGBMRanker": lambda: inner.best_iteration_,
        "XGBRanker": lambda: inner.best_iteration,
        "CatBoostRanker": lambda: inner.get_best_iteration(),
    }[name]()
    assert best < 49  # stopped early on the validation queries


# ---------------------------------------------------------------------------
# LightGBM's lambdarank example
# ---------------------------------------------------------------------------
def _load(root, name):
    """LightGBM's lambdarank example (``root``: the lambdarank_data fixture)."""
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(root / name), n_features=300)
    sizes = np.loadtxt(root / f"{name}.query", dtype=int)
    return X, y, np.repeat(np.arange(sizes.size), sizes)


@pytest.mark.parametrize("make", [_lightgbm, _xgboost])
def test_tune_on_lambdarank_shuffled(make, routing, lambdarank_data):
    estimator = make()
    X, y, qid = _load(lambdarank_data, "rank.train")
    perm = np.random.default_rng(0).permutation(y.size)
    X, y, qid = X[perm], y[perm], qid[perm]
    grid = {"estimator__learning_rate": [0.05, 0.3]}
    search = GridSearchCV(
        QueryRanker(estimator),
        grid,
        scoring=get_scorer("ndcg@10"),
        cv=GroupKFold(3),
        error_score="raise",
    )
    search.fit(X, y, query_id=qid, groups=qid)
    best = clone(QueryRanker(estimator)).set_params(**search.best_params_)
    by_hand = _hand_cv(best, X, y, qid, GroupKFold(3), _ndcg10)
    assert search.best_score_ == pytest.approx(by_hand.mean(), rel=1e-12)
    other = [
        s for s in search.cv_results_["mean_test_score"] if s != search.best_score_
    ]
    assert all(s <= search.best_score_ for s in other)


def _with_unlabelled_query(X, y, qid):
    """rank.test with the labels of query 0 set to 0 (no relevant item)."""
    y = y.copy()
    y[qid == 0] = 0
    return X, y, qid


def test_lightgbm_printed_ndcg_convention(lambdarank_data):
    lightgbm = pytest.importorskip("lightgbm")
    Xtr, ytr, qtr = _load(lambdarank_data, "rank.train")
    Xte, yte, qte = _with_unlabelled_query(*_load(lambdarank_data, "rank.test"))
    ranker = QueryRanker(
        lightgbm.LGBMRanker(
            n_estimators=10, n_jobs=1, verbose=-1, metric=["ndcg", "map"]
        )
    )
    ranker.fit(
        Xtr, ytr, query_id=qtr, eval_set=[(Xte, yte, qte)], eval_at=[1, 3, 5, 10]
    )
    printed = ranker.estimator_.evals_result_["valid_0"]
    pred = ranker.predict(Xte)
    assert len(np.unique(pred)) < pred.size  # tied scores: the tie rule matters
    for k in (1, 3, 5, 10):
        ours = ndcg_at_k(
            yte,
            pred,
            k=k,
            query_id=qte,
            gain="exponential",
            ignore_ties=True,
            no_relevant=1.0,
        )
        assert printed[f"ndcg@{k}"][-1] == pytest.approx(ours, abs=1e-9)
        # the preset says the same, and reproduces LightGBM's map@k too
        preset = ndcg_at_k(yte, pred, k=k, query_id=qte, convention="lightgbm")
        assert preset == ours
        ap = average_precision_at_k(yte, pred, k=k, query_id=qte, convention="lightgbm")
        assert printed[f"map@{k}"][-1] == pytest.approx(ap, abs=1e-9)
        default = ndcg_at_k(yte, pred, k=k, query_id=qte, gain="exponential")
        assert (
            abs(printed[f"ndcg@{k}"][-1] - default) > 1e-4
        )  # ties and no_relevant differ


def test_xgboost_printed_ndcg_convention(lambdarank_data):
    xgboost = pytest.importorskip("xgboost")
    Xtr, ytr, qtr = _load(lambdarank_data, "rank.train")
    Xte, yte, qte = _with_unlabelled_query(*_load(lambdarank_data, "rank.test"))
    metrics = ["ndcg@1", "ndcg@5", "ndcg@10", "ndcg@10-", "ndcg"]
    ranker = QueryRanker(
        xgboost.XGBRanker(n_estimators=10, n_jobs=1, eval_metric=metrics)
    )
    ranker.fit(Xtr, ytr, query_id=qtr, eval_set=[(Xte, yte, qte)])
    printed = ranker.estimator_.evals_result()["validation_0"]
    pred = ranker.predict(Xte)
    assert pred.dtype == np.float32 and len(np.unique(pred)) < pred.size
    for name in metrics:
        k = int(name.split("@")[1].rstrip("-")) if "@" in name else None
        no_relevant = 0.0 if name.endswith("-") else 1.0
        ours = ndcg_at_k(
            yte,
            pred,
            k=k,
            query_id=qte,
            gain="exponential",
            ignore_ties=True,
            no_relevant=no_relevant,
        )
        assert printed[name][-1] == pytest.approx(ours, abs=1e-6), name
        preset = ndcg_at_k(
            yte, pred, k=k, query_id=qte, convention="xgboost", no_relevant=no_relevant
        )
        assert preset == ours, name
