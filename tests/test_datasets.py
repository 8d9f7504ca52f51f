"""make_click_log: shapes, determinism, the click model, input checks."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from sklearn_rankmetrics import group_auc_score
from sklearn_rankmetrics.datasets import make_click_log


def test_shapes_and_types():
    X, y, qid, proba = make_click_log(
        n_users=30, n_impressions=(2, 7), n_features=5, return_proba=True,
        random_state=0,
    )  # fmt: skip
    n = X.shape[0]
    assert X.shape == (n, 5) and X.dtype == np.float64
    assert y.shape == qid.shape == proba.shape == (n,)
    assert set(np.unique(y)) <= {0, 1} and y.dtype.kind == "i"
    assert set(np.unique(qid)) == set(range(30))
    counts = np.bincount(qid)
    assert counts.min() >= 2 and counts.max() <= 7
    assert ((proba > 0) & (proba < 1)).all()


def test_fixed_impressions_and_user_features_are_constant_per_user():
    X, y, qid = make_click_log(
        n_users=4, n_impressions=3, n_features=6, n_user_features=2,
        shuffle=False, random_state=1,
    )  # fmt: skip
    np.testing.assert_array_equal(qid, np.repeat(np.arange(4), 3))
    for user in range(4):
        rows = X[qid == user]
        assert (rows[:, :2] == rows[0, :2]).all()  # user features
        assert len(np.unique(rows[:, 2])) == 3  # item features vary


def test_random_state_reproducible_and_shuffle_permutes():
    a = make_click_log(n_users=20, random_state=3, return_proba=True)
    b = make_click_log(n_users=20, random_state=3, return_proba=True)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    c = make_click_log(n_users=20, random_state=3, shuffle=False, return_proba=True)
    # same rows, other order
    key = np.lexsort(a[0].T)
    key_c = np.lexsort(c[0].T)
    for u, v in zip(a, c, strict=True):
        np.testing.assert_array_equal(u[key], v[key_c])
    assert not np.array_equal(a[2], c[2])
    assert np.all(np.diff(c[2]) >= 0)  # unshuffled: user by user


def test_clicks_follow_the_probabilities():
    X, y, qid, proba = make_click_log(
        n_users=400, n_impressions=(10, 20), return_proba=True, random_state=0
    )
    # the mean click rate matches the mean probability (binomial noise)
    assert abs(y.mean() - proba.mean()) < 4 * np.sqrt(proba.mean() / y.size)
    assert roc_auc_score(y, proba) > 0.75


def test_user_bias_separates_auc_from_gauc():
    X, y, qid, proba = make_click_log(
        n_users=300, user_bias=2.0, return_proba=True, random_state=0
    )
    # the true model ranks users' overall rates too: pooled AUC > GAUC
    assert roc_auc_score(y, proba) > group_auc_score(y, proba, query_id=qid) + 0.03
    # without the bias and the user terms' spread, they come closer
    X, y, qid, proba = make_click_log(
        n_users=300, user_bias=0.0, return_proba=True, random_state=0
    )
    gap_without = roc_auc_score(y, proba) - group_auc_score(y, proba, query_id=qid)
    assert gap_without < 0.05


def test_interaction_is_not_linear():
    # with interaction only a linear model falls short of the true model
    X, y, qid, proba = make_click_log(
        n_users=300, user_bias=0.0, interaction=3.0, return_proba=True,
        random_state=0,
    )  # fmt: skip
    linear = LogisticRegression().fit(X, y).decision_function(X)
    assert roc_auc_score(y, proba) > roc_auc_score(y, linear) + 0.05


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_users": 0}, ValueError, "n_users must be >= 1"),
        ({"n_users": 2.5}, TypeError, "n_users must be an int"),
        ({"n_features": 1}, ValueError, "n_features must be >= 2"),
        ({"n_features": 4, "n_user_features": 4}, ValueError, "n_user_features"),
        ({"n_impressions": (5, 2)}, ValueError, r"n_impressions\[1\]"),
        ({"n_impressions": (1, 2, 3)}, ValueError, "low, high"),
        ({"n_impressions": 0}, ValueError, "n_impressions must be >= 1"),
        ({"user_bias": -1.0}, ValueError, "user_bias must be >= 0"),
        ({"user_bias": np.inf}, ValueError, "user_bias must be a finite number"),
        ({"interaction": np.nan}, ValueError, "interaction must be a finite"),
        ({"interaction": True}, TypeError, "interaction must be a real number"),
        ({"intercept": "high"}, TypeError, "intercept must be a real number"),
        ({"intercept": -np.inf}, ValueError, "intercept must be a finite number"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_click_log(**kwargs)


# ---------------------------------------------------------------------------
# make_ranking_dataset
# ---------------------------------------------------------------------------
def make_ranking_dataset(**kwargs):
    # imported here: this part of the file is kept apart from the one above
    from sklearn_rankmetrics.datasets import make_ranking_dataset

    return make_ranking_dataset(**kwargs)


def ndcg_at_k(*args, **kwargs):
    from sklearn_rankmetrics import ndcg_at_k

    return ndcg_at_k(*args, **kwargs)


def test_ranking_dataset_shapes_and_grades():
    X, y, qid = make_ranking_dataset(
        n_queries=30, n_docs=(3, 7), n_features=6, max_grade=3, random_state=0
    )
    counts = np.bincount(qid)
    assert counts.shape == (30,) and counts.min() >= 3 and counts.max() <= 7
    assert X.shape == (counts.sum(), 6) and y.shape == qid.shape == (counts.sum(),)
    assert y.dtype.kind == "i" and y.min() >= 0 and y.max() <= 3
    # the last feature is constant within each query (a view of its shift)
    for q in range(30):
        assert np.ptp(X[qid == q, -1]) == 0.0


def test_ranking_dataset_grades_follow_relevant_fraction():
    _, y, _ = make_ranking_dataset(
        n_queries=2000, relevant_fraction=0.3, query_shift=0.0, random_state=0
    )
    frequency = np.bincount(y, minlength=5) / y.size
    assert 0.25 < 1 - frequency[0] < 0.35
    # each grade about half as frequent as the one below (the top grade
    # also takes everything above the last cut)
    assert np.all(frequency[2:4] < 0.75 * frequency[1:3])


def test_ranking_dataset_is_learnable_and_reproducible():
    from sklearn.linear_model import LinearRegression

    X, y, qid = make_ranking_dataset(n_queries=150, random_state=1)
    X2, y2, qid2 = make_ranking_dataset(n_queries=150, random_state=1)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(qid, qid2)
    # a linear model of the features ranks far better than a noise feature
    linear = LinearRegression().fit(X, y).predict(X)
    informative = ndcg_at_k(y, linear, k=10, query_id=qid)
    noise = ndcg_at_k(y, X[:, 6], k=10, query_id=qid)
    assert informative > noise + 0.2


def test_ranking_dataset_shuffle():
    _, _, qid = make_ranking_dataset(n_queries=5, n_docs=2, shuffle=False)
    np.testing.assert_array_equal(qid, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    _, _, qid = make_ranking_dataset(n_queries=50, n_docs=4, random_state=0)
    assert np.any(np.diff(qid) < 0)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_queries": 0}, ValueError, "n_queries must be >= 1"),
        ({"n_docs": (5, 2)}, ValueError, r"n_docs\[1\]"),
        ({"n_docs": (1, 2, 3)}, ValueError, "low, high"),
        ({"n_features": 5, "n_informative": 5}, ValueError, "n_features must be >= 6"),
        ({"n_informative": 1}, ValueError, "n_informative must be >= 2"),
        ({"max_grade": 0}, ValueError, "max_grade must be >= 1"),
        (
            {"relevant_fraction": 1.0},
            ValueError,
            r"relevant_fraction must be in \(0, 1\)",
        ),
        ({"noise": -1.0}, ValueError, "noise"),
        ({"query_shift": "big"}, TypeError, "query_shift"),
    ],
)
def test_ranking_dataset_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_ranking_dataset(**kwargs)


# ---------------------------------------------------------------------------
# make_interactions
# ---------------------------------------------------------------------------
def test_make_interactions_shapes_counts_and_split():
    from sklearn_rankmetrics.datasets import make_interactions

    train, test = make_interactions(
        n_users=400, n_items=80, interactions_per_user=(3, 12), random_state=0
    )
    assert train.shape == test.shape == (400, 80)
    both = (train + test).toarray()
    assert set(np.unique(both)) <= {0.0, 1.0}  # disjoint, 0/1
    per_user = both.sum(axis=1)
    assert per_user.min() >= 3 and per_user.max() <= 12
    assert {3, 12} <= set(per_user.astype(int))  # both ends drawn
    share = test.nnz / (train.nnz + test.nnz)
    assert 0.15 < share < 0.25  # test_size=0.2 over ~3000 interactions
    again = make_interactions(
        n_users=400, n_items=80, interactions_per_user=(3, 12), random_state=0
    )
    assert (again[0] != train).nnz == 0 and (again[1] != test).nnz == 0


def test_make_interactions_popularity_and_tastes():
    from sklearn_rankmetrics.datasets import make_interactions

    def top_share(popularity):
        train, _ = make_interactions(
            n_users=500, n_items=200, popularity=popularity, random_state=1
        )
        counts = np.sort(np.asarray(train.sum(axis=0)).ravel())[::-1]
        return counts[:20].sum() / counts.sum()

    # Zipf popularity: the 10 % most popular items take far more than 10 %
    assert top_share(1.5) > 0.4 > top_share(0.0)
    # hidden tastes: a 2-factor model of the training part finds the held-out
    # items better than popularity (0.40 and 0.23 here; chance 0.12)
    from sklearn.decomposition import TruncatedSVD

    from sklearn_rankmetrics import recall_at_k

    train, test = make_interactions(
        n_users=400, n_items=100, n_factors=2, popularity=0.0, random_state=2
    )
    svd = TruncatedSVD(n_components=2, random_state=0).fit(train)
    seen = train.toarray() > 0
    model = np.where(seen, -np.inf, svd.transform(train) @ svd.components_)
    counts = np.asarray(train.sum(axis=0)).ravel()
    popular = np.where(seen, -np.inf, np.tile(counts, (400, 1)))
    assert recall_at_k(test, model, k=10) > 1.5 * recall_at_k(test, popular, k=10)
    # ... and not without them
    train, test = make_interactions(
        n_users=400, n_items=100, taste=0.0, popularity=0.0, random_state=2
    )
    svd = TruncatedSVD(n_components=2, random_state=0).fit(train)
    seen = train.toarray() > 0
    model = np.where(seen, -np.inf, svd.transform(train) @ svd.components_)
    assert recall_at_k(test, model, k=10) < 0.2  # chance: about 10 / 80


def test_make_interactions_bad_input():
    from sklearn_rankmetrics.datasets import make_interactions

    with pytest.raises(ValueError, match="interactions_per_user"):
        make_interactions(n_items=10, interactions_per_user=(5, 20))
    with pytest.raises(ValueError, match="interactions_per_user"):
        make_interactions(interactions_per_user=(1, 2, 3))
    with pytest.raises(ValueError, match="test_size"):
        make_interactions(test_size=1.5)
    with pytest.raises(ValueError, match="popularity"):
        make_interactions(popularity=-1)
    with pytest.raises(ValueError, match="taste"):
        make_interactions(taste=-1)
    with pytest.raises(TypeError, match="n_users"):
        make_interactions(n_users=2.5)
