"""Strong generalisation: UserKFold, DecompositionRecommender, exclude_seen.

The scorers built with ``exclude_seen=True`` are checked against the metric
functions on the dense score matrix with the input items set to -inf (not
through factor_ranking_report, which they call), and a whole GridSearchCV
against the mean over its folds of factor_ranking_report recomputed by hand.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.decomposition import NMF, PCA, FactorAnalysis, IncrementalPCA, TruncatedSVD
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.utils.estimator_checks import check_estimator

from sklearn_rankmetrics import (
    factor_ranking_report,
    get_scorer,
    group_auc_score,
    make_scoring,
    ndcg_at_k,
    recall_at_k,
)
from sklearn_rankmetrics.datasets import make_interactions
from sklearn_rankmetrics.model_selection import DecompositionRecommender, UserKFold

SKLEARN_VERSION = tuple(int(p) for p in sklearn.__version__.split(".")[:2])
pytestmark = pytest.mark.filterwarnings("ignore:UserKFold. .* users have too few")


def _interactions(seed=0, n_users=120, n_items=40):
    train, test = make_interactions(
        n_users=n_users,
        n_items=n_items,
        interactions_per_user=(1, 15),
        random_state=seed,
    )
    return (train + test).tocsr()


# ---------------------------------------------------------------------------
# UserKFold.input_target
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("target_size", [0.2, 0.5, 1, 3])
def test_input_target_random_counts(target_size):
    R = _interactions(1)
    R.data = np.arange(1, R.nnz + 1, dtype=float)  # values identify the cells
    before = R.copy()
    cv = UserKFold(3, target_size=target_size, random_state=0)
    X, y = cv.input_target(R)
    assert (R != before).nnz == 0  # not modified
    assert ((X + y) != R).nnz == 0 and X.multiply(y).nnz == 0
    n = np.diff(R.indptr)
    if isinstance(target_size, int):
        expected = np.where(n > target_size, target_size, 0)
    else:
        expected = np.ceil(np.round(target_size * n, 9)).astype(int)
        expected[expected >= n] = 0
    assert np.array_equal(np.diff(y.indptr), expected)
    info = cv.target_info_
    assert info["n_users_input_only"] == np.count_nonzero((expected == 0) & (n > 0))
    assert info["n_target"] == y.nnz and info["n_input"] == X.nnz
    # deterministic with an int seed, different with another
    X2, y2 = UserKFold(3, target_size=target_size, random_state=0).input_target(R)
    assert (y2 != y).nnz == 0
    if y.nnz:
        _, y3 = UserKFold(3, target_size=target_size, random_state=1).input_target(R)
        assert (y3 != y).nnz > 0


def test_input_target_warns_about_users_without_target():
    R = np.array([[1, 1, 0], [0, 1, 0], [1, 1, 1]])
    with pytest.warns(UserWarning, match="1 users have too few interactions"):
        X, y = UserKFold(2, target_size=0.5, random_state=0).input_target(R)
    assert np.diff(y.indptr).tolist() == [1, 0, 2]  # ceil(0.5*3) = 2


def _latest_reference(R, T, n_target):
    """The n_target latest interactions of each user (ties: higher column)."""
    R = np.asarray(R)
    out = np.zeros_like(R)
    for u in range(R.shape[0]):
        cols = np.flatnonzero(R[u])
        if n_target[u] == 0:
            continue
        ordered = sorted(cols, key=lambda c: (T[u, c], c))
        for c in ordered[-n_target[u] :]:
            out[u, c] = R[u, c]
    return out


@pytest.mark.parametrize("seed", range(5))
def test_input_target_by_time(seed):
    rng = np.random.default_rng(seed)
    R = (rng.random((30, 12)) < 0.4) * rng.integers(1, 4, (30, 12))
    T = rng.integers(0, 5, (30, 12)).astype(float)  # ties
    T[R == 0] = np.nan  # times of non-interactions are never read
    cv = UserKFold(3, target_size=0.3, target_by="time")
    X, y = cv.input_target(R, time=T)
    n = (R != 0).sum(axis=1)
    k = np.ceil(np.round(0.3 * n, 9)).astype(int)
    k[k >= n] = 0
    assert np.array_equal(y.toarray(), _latest_reference(R, T, k))
    assert np.array_equal((X + y).toarray(), R)
    # datetimes, and a sparse time matrix with the same pattern
    stamps = np.datetime64("2024-01-01") + np.nan_to_num(T).astype("timedelta64[D]")
    _, y_dt = cv.input_target(R, time=stamps)
    assert (y_dt != y).nnz == 0
    _, y_sp = cv.input_target(
        sp.csr_matrix(R), time=sp.csr_matrix(np.nan_to_num(T) + 1)
    )
    assert (y_sp != y).nnz == 0


@pytest.mark.parametrize(
    "kwargs, call, error, match",
    [
        ({"target_by": "time"}, {}, ValueError, "needs time="),
        ({}, {"time": np.zeros((3, 3))}, ValueError, "only read with target_by='time'"),
        ({"target_by": "time"}, {"time": np.zeros((2, 3))}, ValueError, "shape"),
        ({"target_by": "last"}, {}, ValueError, "target_by must be"),
        ({"target_size": 0}, {}, ValueError, "target_size"),
        ({"target_size": 1.5}, {}, ValueError, "target_size"),
        ({"target_size": "20%"}, {}, TypeError, "target_size"),
    ],
)
def test_input_target_bad_input(kwargs, call, error, match):
    R = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1]])
    with pytest.raises(error, match=match):
        UserKFold(2, **kwargs).input_target(R, **call)


def test_input_target_names_the_interaction_without_time():
    R = np.array([[1, 1, 0], [0, 1, 1]])
    T = np.array([[1.0, 2.0, 0.0], [0.0, np.nan, 3.0]])
    with pytest.raises(ValueError, match="user 1 with item 1"):
        UserKFold(2, target_by="time").input_target(R, time=T)
    with pytest.raises(ValueError, match="negative"):
        UserKFold(2).input_target(-np.eye(3))
    with pytest.raises(ValueError, match="2-D"):
        UserKFold(2).input_target([1, 2, 3])


# ---------------------------------------------------------------------------
# UserKFold.split
# ---------------------------------------------------------------------------
def test_split_holds_out_only_users_with_a_target():
    R = _interactions(2)
    cv = UserKFold(4, target_size=0.5, random_state=3)
    X, y = cv.input_target(R)
    testable = np.diff(y.indptr) > 0
    folds = list(cv.split(X, y))
    assert len(folds) == 4 == cv.get_n_splits()
    tested = np.concatenate([test for _, test in folds])
    assert np.array_equal(np.sort(tested), np.flatnonzero(testable))
    for train, test in folds:
        assert np.array_equal(np.sort(np.concatenate([train, test])), np.arange(120))
        assert testable[test].all()
        assert (~testable).sum() == np.isin(np.flatnonzero(~testable), train).sum()
    assert [f["n_test_users"] for f in cv.fold_info_] == [len(t) for _, t in folds]
    # the same folds again with the seed; without y every user can be held out
    assert all(
        np.array_equal(a[1], b[1])
        for a, b in zip(folds, cv.split(X, y.toarray()), strict=True)
    )
    assert sum(len(t) for _, t in cv.split(X)) == 120


def test_split_bad_input():
    X = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="n_splits=3 is more than the 2 users"):
        list(UserKFold(3).split(X, sp.csr_matrix([[1, 0, 0], [0, 0, 0], [0, 0, 1]])))
    with pytest.raises(ValueError, match="y has 2 rows"):
        UserKFold(2).split(X, np.ones((2, 3)))
    with pytest.raises(ValueError, match="n_splits"):
        UserKFold(1).split(X)


# ---------------------------------------------------------------------------
# DecompositionRecommender
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "estimator",
    [
        TruncatedSVD(4, random_state=0),
        NMF(4, init="nndsvda", max_iter=400),
        PCA(4),
        PCA(4, whiten=True),
        IncrementalPCA(4),
    ],
    ids=["svd", "nmf", "pca", "pca-whiten", "ipca"],
)
def test_scores_are_the_reconstruction(estimator):
    R = _interactions(3).toarray()
    rec = DecompositionRecommender(estimator).fit(R)
    est = rec.estimator_
    expected = est.inverse_transform(est.transform(R[:20]))
    assert np.allclose(rec.predict(R[:20]), expected, rtol=1e-10, atol=1e-12)
    assert np.array_equal(
        rec.predict(R[:20]), rec.user_factors(R[:20]) @ rec.item_factors_.T
    )
    assert rec.n_features_in_ == R.shape[1]


def test_factor_analysis_scores():
    # FactorAnalysis has no inverse_transform: transform(X) @ components_ + mean_
    R = _interactions(4).toarray()
    rec = DecompositionRecommender(FactorAnalysis(3, random_state=0)).fit(R)
    est = rec.estimator_
    expected = est.transform(R[:5]) @ est.components_ + est.mean_
    assert np.allclose(rec.predict(R[:5]), expected, rtol=1e-12, atol=1e-12)


def test_fit_learns_from_the_whole_history():
    R = _interactions(5)
    X, y = UserKFold(2, random_state=0).input_target(R)
    rec = DecompositionRecommender(TruncatedSVD(3, random_state=0)).fit(X, y)
    svd = TruncatedSVD(3, random_state=0).fit(R)
    assert np.allclose(rec.estimator_.components_, svd.components_)
    # dense X with a sparse y: the same
    rec2 = DecompositionRecommender(TruncatedSVD(3, random_state=0)).fit(X.toarray(), y)
    assert np.allclose(rec2.estimator_.components_, svd.components_)


@pytest.mark.parametrize(
    "y, match",
    [
        (np.ones(10), "got a 1-D y"),
        (np.ones((10, 3)), "y has shape"),
    ],
)
def test_fit_bad_y(y, match):
    X = np.random.default_rng(0).random((10, 5))
    with pytest.raises(ValueError, match=match):
        DecompositionRecommender(TruncatedSVD(2)).fit(X, y)


def test_fit_bad_estimator_and_input():
    from sklearn.decomposition import KernelPCA
    from sklearn.preprocessing import StandardScaler

    X = np.random.default_rng(0).random((10, 5))
    with pytest.raises(TypeError, match="no components_"):
        DecompositionRecommender(KernelPCA(2)).fit(X)
    with pytest.raises(TypeError, match="no components_"):
        DecompositionRecommender(StandardScaler()).fit(X)
    with pytest.raises(TypeError, match="has no fit"):
        DecompositionRecommender(BaseEstimator()).fit(X)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        DecompositionRecommender(TruncatedSVD(2)).fit(X)


def test_estimator_conventions():
    rec = DecompositionRecommender(TruncatedSVD(5))
    assert rec.get_params()["estimator__n_components"] == 5
    rec.set_params(estimator__n_components=3)
    assert clone(rec).estimator.n_components == 3
    assert "estimator" not in vars(clone(rec).fit(np.eye(5)).estimator)


class _IgnoreVectorTarget(DecompositionRecommender):
    """scikit-learn's common checks pass a 1-D y, which the recommender
    refuses (its y is the users x items target part); this stand-in drops a
    1-D y so that every other convention is checked."""

    def fit(self, X, y=None):
        return super().fit(X, None if y is None or np.ndim(y) == 1 else y)


# predict gives one score per item, (n_samples, n_items): the sparse-input
# checks assert one output per sample (sparse input itself is tested above).
_NOT_APPLICABLE = {
    "check_estimator_sparse_data",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
}


@pytest.mark.parametrize(
    "estimator", [TruncatedSVD(n_components=1), PCA(n_components=1)], ids=["svd", "pca"]
)
def test_check_estimator(estimator):
    rec = _IgnoreVectorTarget(estimator)
    failed, passed = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if SKLEARN_VERSION >= (1, 6):
            for result in check_estimator(rec, on_fail=None):
                if result["status"] == "failed":
                    failed.append(result["check_name"])
                passed += result["status"] == "passed"
        else:
            for est, check in check_estimator(rec, generate_only=True):
                try:
                    check(est)
                    passed += 1
                except Exception:  # noqa: BLE001 - recorded and asserted below
                    failed.append(getattr(check, "func", check).__name__)
    assert set(failed) <= _NOT_APPLICABLE, failed
    assert passed >= 25  # 28 checks on scikit-learn 1.4, 39 on 1.9


# ---------------------------------------------------------------------------
# Scorers with exclude_seen=True
# ---------------------------------------------------------------------------
def _masked_scores(rec, X):
    S = rec.predict(X)
    S[np.asarray(sp.csr_matrix(X).toarray()) != 0] = -np.inf
    return S


class _Popularity(BaseEstimator):
    """Scores every item by its training count (no factors: the scorer
    calls predict on blocks of users); records the blocks it is given."""

    def fit(self, X, y=None):
        full = sp.csr_matrix(X) + (0 if y is None else sp.csr_matrix(y))
        self.counts_ = np.asarray(full.sum(axis=0)).ravel()
        self.blocks_ = []
        return self

    def predict(self, X):
        self.blocks_.append(X.shape[0])
        return np.tile(self.counts_, (X.shape[0], 1))


@pytest.mark.parametrize("metric", ["ndcg@10", "recall@5", "map@10", "gauc"])
def test_exclude_seen_equals_the_metric_on_masked_scores(metric):
    R = _interactions(6)
    X, y = UserKFold(2, random_state=0).input_target(R)
    rec = DecompositionRecommender(TruncatedSVD(5, random_state=0)).fit(X, y)
    S = _masked_scores(rec, X)
    Y = y.toarray()
    func, k = {
        "ndcg@10": (ndcg_at_k, 10),
        "recall@5": (recall_at_k, 5),
        "map@10": (__import__("sklearn_rankmetrics").average_precision_at_k, 10),
        "gauc": (group_auc_score, None),
    }[metric]
    kwargs = {} if k is None else {"k": k}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = func(Y, S, **kwargs)
    scorer = get_scorer(metric, exclude_seen=True)
    assert scorer(rec, X, y) == pytest.approx(expected, rel=1e-12)
    # and through a plain estimator's predict, block by block
    pop = _Popularity().fit(X, y)
    S = pop.predict(X.toarray())
    S[X.toarray() != 0] = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = func(Y, S, **kwargs)
    assert scorer(pop, X, y) == pytest.approx(expected, rel=1e-12)


def test_exclude_seen_changes_the_value():
    # without exclusion the input items (always known) crowd the top k
    R = _interactions(7)
    X, y = UserKFold(2, random_state=0).input_target(R)
    rec = DecompositionRecommender(TruncatedSVD(5, random_state=0)).fit(X, y)
    plain = get_scorer("ndcg@10")(rec, X, y)
    assert plain == pytest.approx(ndcg_at_k(y.toarray(), rec.predict(X), k=10))
    assert get_scorer("ndcg@10", exclude_seen=True)(rec, X, y) > plain + 0.05


def test_exclude_seen_blocks_follow_working_memory():
    rng = np.random.default_rng(0)
    n_items = 3000
    X = sp.random(60, n_items, density=0.01, random_state=1, format="csr")
    X.data[:] = 1
    y = sp.random(60, n_items, density=0.002, random_state=2, format="csr")
    y.data[:] = 1
    y = y - y.multiply(X)
    y.eliminate_zeros()
    pop = _Popularity().fit(X, rng.random((60, n_items)) < 0.01)
    scorer = get_scorer("ndcg@10", exclude_seen=True)
    big = scorer(pop, X, y)
    pop.blocks_ = []
    # a block of users holds 3 float64 arrays of n_items columns per user:
    # 0.2 MiB / (3 * 8 * 3000 bytes) = 8 users (all threads together)
    with sklearn.config_context(working_memory=0.2):
        small = scorer(pop, X, y)
    assert small == big
    assert max(pop.blocks_) <= 8 and sum(pop.blocks_) == 60


def test_exclude_seen_options_and_refusals():
    R = _interactions(8)
    X, y = UserKFold(2, random_state=0).input_target(R)
    rec = DecompositionRecommender(TruncatedSVD(5, random_state=0)).fit(X, y)
    scorer = get_scorer("ndcg@10", exclude_seen=True, gain="exponential")
    assert (
        repr(scorer) == "get_scorer('ndcg@10', gain='exponential', exclude_seen=True)"
    )
    expected = ndcg_at_k(y.toarray(), _masked_scores(rec, X), k=10, gain="exponential")
    assert scorer(rec, X, y) == pytest.approx(expected, rel=1e-12)
    assert repr(get_scorer("ndcg@10", exclude_seen=False)) == "get_scorer('ndcg@10')"
    with pytest.raises(TypeError, match="exclude_seen must be True or False"):
        get_scorer("ndcg@10", exclude_seen="yes")
    with pytest.raises(TypeError, match="does not take average"):
        get_scorer("recall@10", exclude_seen=True, average="micro")
    with pytest.raises(ValueError, match="needs a cut-off"):
        get_scorer("ndcg", exclude_seen=True)
    with pytest.raises(TypeError, match="only apply to the ranking scorers"):
        get_scorer("roc_auc", exclude_seen=True)
    scoring = make_scoring(["ndcg@10", "neg_log_loss"], exclude_seen=True)
    assert repr(scoring["ndcg@10"]).endswith("exclude_seen=True)")
    with pytest.raises(ValueError, match="got a 1-D y"):
        scorer(rec, X, np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="same shape"):
        scorer(rec, X[:, :10], y)


# ---------------------------------------------------------------------------
# GridSearchCV
# ---------------------------------------------------------------------------
def _by_hand(X, y, cv, n_components, metric, k):
    values = []
    for train, test in cv.split(X, y):
        svd = TruncatedSVD(n_components, random_state=0).fit(X[train] + y[train])
        report = factor_ranking_report(
            y[test],
            svd.transform(X[test]),
            svd.components_.T,
            exclude=X[test],
            k=k,
            metrics=[metric],
            output_dict=True,
        )
        values.append(report[f"{metric}@{k}"])
    return np.mean(values)


@pytest.mark.parametrize("routing", [False, True])
def test_grid_search_best_score_is_the_mean_of_factor_reports(routing):
    R = _interactions(9, n_users=200, n_items=60)
    cv = UserKFold(3, target_size=0.3, random_state=0)
    X, y = cv.input_target(R)
    search = GridSearchCV(
        DecompositionRecommender(TruncatedSVD(random_state=0)),
        {"estimator__n_components": [2, 6, 12]},
        cv=cv,
        scoring=make_scoring(["ndcg@10", "recall@20"], exclude_seen=True),
        refit="ndcg@10",
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        search.fit(X, y)
    for i, n in enumerate([2, 6, 12]):
        for metric, k in (("ndcg", 10), ("recall", 20)):
            expected = _by_hand(X, y, cv, n, metric, k)
            got = search.cv_results_[f"mean_test_{metric}@{k}"][i]
            assert got == pytest.approx(expected, rel=1e-12)
    best = search.cv_results_["mean_test_ndcg@10"].max()
    assert search.best_score_ == best
    assert isinstance(search.best_estimator_, DecompositionRecommender)


def test_cross_validate_an_item_item_model():
    # a closed-form item-item model without factors (EASE-like) goes
    # through the block-by-block path
    class ItemItem(BaseEstimator):
        def __init__(self, l2=10.0):
            self.l2 = l2

        def fit(self, X, y):
            full = (sp.csr_matrix(X) + sp.csr_matrix(y)).toarray()
            G = full.T @ full + self.l2 * np.eye(full.shape[1])
            P = np.linalg.inv(G)
            self.B_ = -P / np.diag(P)
            np.fill_diagonal(self.B_, 0.0)
            return self

        def predict(self, X):
            return sp.csr_matrix(X) @ self.B_

    R = _interactions(10)
    cv = UserKFold(2, random_state=0)
    X, y = cv.input_target(R)
    # cross_validate (unlike the searches) takes no sparse y: a dense one
    y = y.toarray()
    result = cross_validate(
        ItemItem(), X, y, cv=cv, scoring=get_scorer("ndcg@10", exclude_seen=True)
    )
    for value, (train, test) in zip(result["test_score"], cv.split(X, y), strict=True):
        model = ItemItem().fit(X[train], y[train])
        S = np.asarray(model.predict(X[test]))
        S[X[test].toarray() != 0] = -np.inf
        assert value == pytest.approx(ndcg_at_k(y[test], S, k=10), rel=1e-12)


def test_exclude_seen_scorer_pickles():
    import pickle

    R = _interactions(11)
    X, y = UserKFold(2, random_state=0).input_target(R)
    rec = DecompositionRecommender(TruncatedSVD(4, random_state=0)).fit(X, y)
    scorer = get_scorer("recall@10", exclude_seen=True)
    again = pickle.loads(pickle.dumps(scorer))
    assert repr(again) == repr(scorer)
    assert again(rec, X, y) == scorer(rec, X, y)
    assert pickle.loads(pickle.dumps(rec)).predict(X[:3]).shape == (3, 40)
