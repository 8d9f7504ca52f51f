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


# ---------------------------------------------------------------------------
# The recommender libraries' presets (issue 27): each against the peer's
# formula restated from its source (tests/_peer_formulas.py, checked against
# the peer itself by the ``*_is_the_peer`` tests where it is installed), and
# implicit against implicit itself.
# ---------------------------------------------------------------------------
import scipy.sparse as sp  # noqa: E402

from tests import _peer_formulas as peer  # noqa: E402


def _recsys_case(seed, n_users=12, n_items=9, levels=3, p_inf=0.2, full=False):
    """Binary held-out relevance with users without any (left out by every
    peer), tied scores from ``levels`` values and training items scored
    -inf (never recommended); ``full``: no -inf (whole-catalogue lists)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n_users, n_items)) < 0.3).astype(int)
    Y[rng.integers(n_users)] = 0
    S = rng.integers(0, levels, size=(n_users, n_items)).astype(float)
    S += rng.integers(0, 2, size=(n_users, n_items)) * 0.5  # more levels
    train = np.zeros((n_users, n_items), dtype=bool)
    if not full:
        train = (rng.random((n_users, n_items)) < p_inf) & (Y == 0)
        S[train] = -np.inf
    return Y, S, train


def _close_all(ours, theirs, rtol=1e-12):
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=rtol, abs=1e-15, nan_ok=True), (
            name
        )


# --------------------------- Microsoft recommenders -------------------------
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 12])
def test_recommenders_preset_is_recommenders(seed, k):
    Y, S, _ = _recsys_case(seed)
    # recommenders leaves a user without any prediction out of precision,
    # recall and MAP (here it scores 0): every user keeps a candidate
    S[np.all(S == -np.inf, axis=1), 0] = 0.0
    theirs = peer.recommenders_ranking(peer.ranked_lists(S), peer.relevant_sets(Y), k)
    kw = dict(k=k, convention="recommenders")
    ours = {
        "precision": srm.precision_at_k(Y, S, **kw),
        "recall": srm.recall_at_k(Y, S, **kw),
        "ndcg": srm.ndcg_at_k(Y, S, **kw),
        "map_at_k": srm.average_precision_at_k(Y, S, **kw),
        # its map (no "_at_k") divides by the relevant count
        "map": srm.average_precision_at_k(Y, S, ap_denominator="relevant", **kw),
    }
    _close_all(ours, theirs)


def test_recommenders_map_at_k_follows_1_2():
    # One user, 3 relevant items, k=2, hits at ranks 1 and 2:
    # map_at_k = (1/1 + 2/2) / min(3, 2) = 1 (recommenders >= 1.2; before
    # 1.2 it divided by 3: 2/3, the old preset's value).
    y_true, y_score = [[1, 1, 1, 0]], [[0.9, 0.8, 0.1, 0.5]]
    value = srm.average_precision_at_k(y_true, y_score, k=2, convention="recommenders")
    assert value == 1.0
    assert srm.average_precision_at_k(y_true, y_score, k=2) == pytest.approx(2 / 3)


def _train_pairs(train_matrix):
    return [(u, i) for u, i in zip(*np.nonzero(train_matrix), strict=True)]


def _beyond_case(seed, n_users=15, n_items=10, k=3):
    """Full lists of k items (k <= the retrieved count of every user), tied
    scores, a training matrix with a user without interaction and items
    never seen in training, integer features with ties and zero rows
    avoided (cosine needs a norm)."""
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 3, size=(n_users, n_items)).astype(float)
    cold = rng.random((n_users, n_items)) < 0.2
    cold[:, : k + 1] = False  # at least k + 1 candidates per user
    S[cold] = -np.inf
    Y = (rng.random((n_users, n_items)) < 0.3).astype(int)
    train = (rng.random((n_users + 2, n_items)) < 0.4).astype(int)
    train[:, rng.choice(n_items, 2, replace=False)] = 0  # never seen
    train[-1] = 0  # a user without a training interaction
    F = rng.integers(0, 3, size=(n_items, 4))
    F[:, 0] = 1
    return Y, S, train, F


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3])
def test_recommenders_beyond_preset_is_recommenders(seed, k):
    Y, S, train, F = _beyond_case(seed, k=k)
    theirs = peer.recommenders_beyond(
        peer.ranked_lists(S), _train_pairs(train), k, features=F
    )
    kw = dict(k=k, convention="recommenders")
    ours = {
        "novelty": srm.novelty_at_k(Y, S, item_popularity=train, **kw),
        "distributional_coverage": srm.exposure_entropy_at_k(Y, S, **kw),
        "diversity": srm.intra_list_diversity_at_k(Y, S, item_features=F, **kw),
    }
    _close_all(ours, {m: theirs[m] for m in ours})
    # its catalog_coverage divides by the distinct training items: our
    # catalogue when that is every item seen in training
    seen = np.flatnonzero(train.sum(axis=0))
    cov = srm.catalog_coverage_at_k(Y[:, seen], S[:, seen], **kw)
    sub = peer.recommenders_beyond(
        peer.ranked_lists(S[:, seen]),
        _train_pairs(train[:, seen]),
        k,
    )
    assert cov == pytest.approx(sub["catalog_coverage"], rel=1e-12)


# --------------------------------- RecTools ---------------------------------
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 12])
def test_rectools_preset_is_rectools(seed, k):
    Y, S, _ = _recsys_case(seed)
    S[3] = -np.inf  # a user with no recommendation: 0 for every metric
    theirs = peer.rectools_ranking(peer.ranked_lists(S), peer.relevant_sets(Y), k)
    kw = dict(k=k, convention="rectools")
    ours = {
        "precision": srm.precision_at_k(Y, S, **kw),
        "r_precision": srm.precision_at_k(Y, S, precision_denominator="min_k", **kw),
        "recall": srm.recall_at_k(Y, S, **kw),
        "hit_rate": srm.hit_rate_at_k(Y, S, **kw),
        "mrr": srm.reciprocal_rank_at_k(Y, S, **kw),
        "map": srm.average_precision_at_k(Y, S, **kw),
        "map_divide_by_k": srm.average_precision_at_k(Y, S, ap_denominator="k", **kw),
        "ndcg": srm.ndcg_at_k(Y, S, **kw),
        "ndcg_achievable": srm.ndcg_at_k(Y, S, ideal="relevant", **kw),
    }
    _close_all(ours, theirs)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 20])
def test_rectools_beyond_preset_is_rectools(seed, k):
    Y, S, train, F = _beyond_case(seed, k=min(k, 3))
    theirs = peer.rectools_beyond(
        peer.ranked_lists(S),
        _train_pairs(train),
        k,
        features=F,
        catalog_size=S.shape[1],
    )
    kw = dict(k=k, convention="rectools")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # cold items are finite: no warning
        ours = {
            "miuf": srm.novelty_at_k(Y, S, item_popularity=train, **kw),
            "catalog_coverage": srm.catalog_coverage_at_k(Y, S, **kw),
            "ild": srm.intra_list_diversity_at_k(Y, S, item_features=F, **kw),
        }
    _close_all(ours, theirs)


def test_rectools_documented_examples():
    # rectools/metrics/ranking.py's docstrings: users 1-4, reco
    # u1 [7, 8], u2 [1, 2], u3 [1, 2, 3, 4], u4 [1, 2, 3]; interactions
    # u1 {1, 2}, u2 {1}, u3 {1, 3, 4}, u4 {1, 2, 3}.
    Y = np.zeros((4, 9))
    for u, items in enumerate([[1, 2], [1], [1, 3, 4], [1, 2, 3]]):
        Y[u, items] = 1
    S = np.full((4, 9), -np.inf)
    for u, items in enumerate([[7, 8], [1, 2], [1, 2, 3, 4], [1, 2, 3]]):
        S[u, items] = -np.arange(1.0, len(items) + 1)  # rank 1 highest
    kw = dict(convention="rectools", average=None)
    # NDCG(k=3): [0, 0.46927873, 0.70391809, 1]; NDCG(k=1): [0, 1, 1, 1]
    # (user 2: 1 / (1 + 1/log2(3) + 1/2))
    assert_close = np.testing.assert_allclose
    assert_close(srm.ndcg_at_k(Y, S, k=3, **kw), [0, 0.46927873, 0.70391809, 1], 1e-8)
    assert_close(srm.ndcg_at_k(Y, S, k=1, **kw), [0, 1, 1, 1])
    # MAP(k=3): [0, 1, 0.55555556, 1]; divide_by_k: [0, 1/3, 0.5556, 1]
    assert_close(
        srm.average_precision_at_k(Y, S, k=3, **kw), [0, 1, 5 / 9, 1], rtol=1e-12
    )
    assert_close(
        srm.average_precision_at_k(Y, S, k=3, ap_denominator="k", **kw),
        [0, 1 / 3, 5 / 9, 1],
        rtol=1e-12,
    )
    # MAP(k=1): [0, 1, 0.33333333, 0.33333333]; divide_by_k: [0, 1, 1, 1]
    assert_close(
        srm.average_precision_at_k(Y, S, k=1, **kw), [0, 1, 1 / 3, 1 / 3], rtol=1e-12
    )
    assert_close(
        srm.average_precision_at_k(Y, S, k=1, ap_denominator="k", **kw), [0, 1, 1, 1]
    )


# --------------------------------- RecBole ----------------------------------
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 9])
def test_recbole_preset_is_recbole(seed, k):
    Y, S, _ = _recsys_case(seed, full=True)  # RecBole ranks every item
    theirs = peer.recbole_ranking(peer.ranked_lists(S), peer.relevant_sets(Y), k)
    kw = dict(k=k, convention="recbole")
    ours = {
        "hit": srm.hit_rate_at_k(Y, S, **kw),
        "mrr": srm.reciprocal_rank_at_k(Y, S, **kw),
        "map": srm.average_precision_at_k(Y, S, **kw),
        "recall": srm.recall_at_k(Y, S, **kw),
        "ndcg": srm.ndcg_at_k(Y, S, **kw),
        "precision": srm.precision_at_k(Y, S, **kw),
    }
    _close_all(ours, theirs)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 9])
def test_recbole_beyond_preset_is_recbole(seed, k):
    Y, S, _ = _recsys_case(seed, full=True)
    Y[:, 0] = 1  # RecBole evaluates the users with a test item only
    counts = np.random.default_rng(seed).integers(0, 6, size=S.shape[1])
    ranked = peer.ranked_lists(S)
    # num_items counts the padding item 0: the catalogue plus one
    theirs = peer.recbole_beyond(ranked, k, S.shape[1] + 1, item_count=counts)
    kw = dict(k=k, convention="recbole")
    ours = {
        "itemcoverage": srm.catalog_coverage_at_k(Y, S, **kw),
        "giniindex": srm.gini_index_at_k(Y, S, **kw),
        "shannonentropy": srm.exposure_entropy_at_k(Y, S, **kw),
        "averagepopularity": srm.average_popularity_at_k(
            Y, S, item_popularity=counts, **kw
        ),
    }
    _close_all(ours, theirs)
    # the padding item is where the preset differs from the plain metric:
    # one more item in the catalogue, never recommended
    n = S.shape[1]
    plain = srm.catalog_coverage_at_k(Y, S, k=k, ties="input_order")
    assert ours["itemcoverage"] == pytest.approx(plain * n / (n + 1), rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_recbole_gauc_preset_is_recbole(seed):
    Y, S, _ = _recsys_case(seed, full=True)
    theirs = peer.recbole_gauc(S, Y)
    assert srm.group_auc_score(Y, S, convention="recbole") == pytest.approx(
        theirs, rel=1e-12
    )


# --------------------------------- implicit ---------------------------------
def _implicit_case(seed, n_users=60, n_items=40):
    """Float32 factors giving exact scores with ties (small integers),
    disjoint training and held-out items, users without held-out items."""
    rng = np.random.default_rng(seed)
    U = rng.integers(-2, 3, size=(n_users, 3)).astype(np.float32)
    V = rng.integers(-2, 3, size=(n_items, 3)).astype(np.float32)
    train = rng.random((n_users, n_items)) < 0.2
    test = (rng.random((n_users, n_items)) < 0.15) & ~train
    test[:5] = False
    return U, V, sp.csr_matrix(train.astype(np.float32)), test


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("K", [1, 5, 10])
def test_implicit_preset_is_implicit(seed, K):
    pytest.importorskip("implicit")
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k
    from threadpoolctl import threadpool_limits

    U, V, train, test = _implicit_case(seed)
    with threadpool_limits(1, user_api="blas"):
        model = AlternatingLeastSquares(factors=U.shape[1], num_threads=1)
        model.user_factors, model.item_factors = U, V
        theirs = ranking_metrics_at_k(
            model, train, sp.csr_matrix(test), K=K, show_progress=False
        )
        ids, _ = model.recommend(
            np.arange(U.shape[0]), train, N=K, filter_already_liked_items=True
        )
    # implicit orders tied scores its own way (a partial sort): score the
    # items by its order, so that both rank alike; the preset's values are
    # then implicit's
    S = np.full(test.shape, -np.inf)
    for u, row in enumerate(ids):
        row = row[row >= 0]
        S[u, row] = -np.arange(row.size, dtype=float)
    kw = dict(k=K, convention="implicit")
    assert srm.ndcg_at_k(test, S, **kw) == pytest.approx(theirs["ndcg"], rel=1e-12)
    assert srm.average_precision_at_k(test, S, **kw) == pytest.approx(
        theirs["map"], rel=1e-12
    )
    # its precision pools the hits over the users: average="micro"
    precision = srm.precision_at_k(test, S, average="micro", **kw)
    assert precision == pytest.approx(theirs["precision"], rel=1e-12)


# --------------------------------- LightFM ----------------------------------
def _lightfm_case(seed, n_users=14, n_items=10):
    """Tied scores, but no two test items of a user tied (where LightFM's
    ranks are those of the pessimistic ordering), training items, users
    without test items."""
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 4, size=(n_users, n_items)).astype(float)
    train = rng.random((n_users, n_items)) < 0.2
    test = np.zeros((n_users, n_items), dtype=bool)
    for u in range(2, n_users):
        free = np.flatnonzero(~train[u])
        _, first = np.unique(S[u, free], return_index=True)  # distinct scores
        pick = rng.choice(first, size=rng.integers(1, first.size), replace=False)
        test[u, free[pick]] = True
    return S, test, train


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 10])
def test_lightfm_preset_is_lightfm(seed, k):
    S, test, train = _lightfm_case(seed)
    theirs = peer.lightfm_metrics(S, test, train, k)
    scores = np.where(train, -np.inf, S)  # train_interactions= is exclude
    kw = dict(convention="lightfm")
    ours = {
        "precision": srm.precision_at_k(test, scores, k=k, **kw),
        "recall": srm.recall_at_k(test, scores, k=k, **kw),
        "rr": srm.reciprocal_rank_at_k(test, scores, k=None, **kw),
    }
    _close_all(ours, {m: theirs[m] for m in ours})


@pytest.mark.parametrize("seed", range(6))
def test_lightfm_auc_preset_without_ties(seed):
    # auc_score: a tie with a negative counts 0 there, 1/2 here; without
    # ties, the plain mean of the per-user AUCs over the non-training items
    rng = np.random.default_rng(seed)
    S = rng.random((10, 12))
    test = rng.random(S.shape) < 0.3
    test[:, 0], test[:, 1] = True, False
    train = (rng.random(S.shape) < 0.2) & ~test
    train[:, 1] = False
    theirs = peer.lightfm_metrics(S, test, train, 5)["auc"]
    users, items = np.nonzero(~train)  # the long form of the candidates
    ours = srm.group_auc_score(
        test[users, items], S[users, items], query_id=users, convention="lightfm"
    )
    assert ours == pytest.approx(theirs, rel=1e-12)


# ------------------------- the real peers, where present --------------------
@pytest.mark.parametrize("seed", range(3))
def test_recommenders_formula_is_the_peer(seed):
    pytest.importorskip("recommenders")
    pd = pytest.importorskip("pandas")
    from recommenders.evaluation import python_evaluation as pe

    Y, S, _ = _recsys_case(seed)
    S[np.all(S == -np.inf, axis=1), 0] = 0.0
    u, i = np.nonzero(Y)
    truth = pd.DataFrame({"userID": u, "itemID": i, "rating": 1.0})
    u, i = np.nonzero(S > -np.inf)  # rows in column order within a user
    pred = pd.DataFrame({"userID": u, "itemID": i, "prediction": S[u, i]})
    for k in (1, 3, 12):
        mine = peer.recommenders_ranking(peer.ranked_lists(S), peer.relevant_sets(Y), k)
        kw = dict(k=k)
        theirs = {
            "precision": pe.precision_at_k(truth, pred, **kw),
            "recall": pe.recall_at_k(truth, pred, **kw),
            "ndcg": pe.ndcg_at_k(truth, pred, **kw),
            "map_at_k": pe.map_at_k(truth, pred, **kw),
            "map": pe.map(truth, pred, **kw),
        }
        _close_all(mine, theirs)
    Y, S, train, F = _beyond_case(seed)
    k = 3
    ranked = peer.ranked_lists(S, k)
    u, i = np.nonzero(train)  # training users apart from the reco's
    train_df = pd.DataFrame({"userID": u + 10_000, "itemID": i})
    reco = pd.DataFrame(
        [(u, i) for u, lst in enumerate(ranked) for i in lst],
        columns=["userID", "itemID"],
    )
    mine = peer.recommenders_beyond(ranked, _train_pairs(train), k, features=F)
    feats = pd.DataFrame({"itemID": np.arange(F.shape[0]), "features": list(F)})
    theirs = {
        "novelty": pe.novelty(train_df, reco),
        "distributional_coverage": pe.distributional_coverage(train_df, reco),
        "catalog_coverage": pe.catalog_coverage(train_df, reco),
        "diversity": pe.diversity(
            train_df,
            reco,
            item_feature_df=feats,
            item_sim_measure="item_feature_vector",
        ),
    }
    _close_all(mine, theirs, rtol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_rectools_formula_is_the_peer(seed):
    pytest.importorskip("rectools")
    pd = pytest.importorskip("pandas")
    from rectools import metrics as rt
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator

    def reco_frame(ranked):
        rows = [
            (u, i, r)
            for u, lst in enumerate(ranked)
            for r, i in enumerate(lst, start=1)
        ]
        return pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])

    Y, S, _ = _recsys_case(seed)
    S[3] = -np.inf
    u, i = np.nonzero(Y)
    inter = pd.DataFrame({"user_id": u, "item_id": i})
    ranked = peer.ranked_lists(S)
    reco = reco_frame(ranked)
    for k in (1, 3, 12):
        mine = peer.rectools_ranking(ranked, peer.relevant_sets(Y), k)
        objects = {
            "precision": rt.Precision(k),
            "r_precision": rt.Precision(k, r_precision=True),
            "recall": rt.Recall(k),
            "hit_rate": rt.HitRate(k),
            "mrr": rt.MRR(k),
            "map": rt.MAP(k),
            "map_divide_by_k": rt.MAP(k, divide_by_k=True),
            "ndcg": rt.NDCG(k),
            "ndcg_achievable": rt.NDCG(k, divide_by_achievable=True),
        }
        # the users with no recommendation score 0 (calc_metrics' merge)
        theirs = rt.calc_metrics(objects, reco, inter, catalog=range(S.shape[1]))
        _close_all(mine, theirs)
    Y, S, train, F = _beyond_case(seed)
    ranked = peer.ranked_lists(S)
    reco = reco_frame(ranked)
    u, i = np.nonzero(train)
    prev = pd.DataFrame({"user_id": u, "item_id": i})
    feats = pd.DataFrame(F, index=pd.Index(np.arange(F.shape[0]), name="item_id"))
    calc = PairwiseHammingDistanceCalculator(feats)
    for k in (1, 3, 20):
        mine = peer.rectools_beyond(
            ranked, _train_pairs(train), k, features=F, catalog_size=S.shape[1]
        )
        theirs = {
            "miuf": rt.MeanInvUserFreq(k).calc(reco, prev),
            "catalog_coverage": rt.CatalogCoverage(k, normalize=True).calc(
                reco, range(S.shape[1])
            ),
            "ild": rt.IntraListDiversity(k, calc).calc(reco),
        }
        _close_all(mine, theirs, rtol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_recbole_formula_is_the_peer(seed):
    pytest.importorskip("recbole")
    from recbole.evaluator import metrics as rb

    Y, S, _ = _recsys_case(seed, full=True)
    S = S + np.random.default_rng(seed).random(S.shape) * 1e-3  # no ties:
    # torch.topk's order among ties is not specified
    ranked = peer.ranked_lists(S)
    relevant = peer.relevant_sets(Y)
    users = [u for u in range(len(ranked)) if relevant[u]]
    K = 9
    pos_index = np.array([[i in relevant[u] for i in ranked[u][:K]] for u in users])
    pos_len = np.array([len(relevant[u]) for u in users])
    config = {"topk": [K], "metric_decimal_place": 12}
    for k in (1, 3, 9):
        mine = peer.recbole_ranking(ranked, relevant, k)
        theirs = {
            "hit": rb.Hit(config).metric_info(pos_index),
            "mrr": rb.MRR(config).metric_info(pos_index),
            "map": rb.MAP(config).metric_info(pos_index, pos_len),
            "recall": rb.Recall(config).metric_info(pos_index, pos_len),
            "ndcg": rb.NDCG(config).metric_info(pos_index, pos_len),
            "precision": rb.Precision(config).metric_info(pos_index),
        }
        _close_all(mine, {m: v.mean(axis=0)[k - 1] for m, v in theirs.items()})
        matrix = np.array([ranked[u][:k] for u in users])
        counts = np.random.default_rng(seed).integers(0, 6, size=S.shape[1])
        mine = peer.recbole_beyond(
            [ranked[u] for u in users], k, S.shape[1] + 1, item_count=counts
        )
        pop = rb.AveragePopularity(config)
        theirs = {
            "itemcoverage": rb.ItemCoverage(config).get_coverage(
                matrix, S.shape[1] + 1
            ),
            "giniindex": rb.GiniIndex(config).get_gini(matrix, S.shape[1] + 1),
            "shannonentropy": rb.ShannonEntropy(config).get_entropy(matrix),
            "averagepopularity": pop.metric_info(
                pop.get_pop(matrix, dict(enumerate(counts)))
            ).mean(axis=0)[k - 1],
        }
        _close_all(mine, theirs)
    # GAUC from collector.py's average ranks (ties kept)
    from scipy.stats import rankdata

    Y, S, _ = _recsys_case(seed, full=True)
    # the full sort scores the padding item 0 -inf
    S = np.hstack([np.full((S.shape[0], 1), -np.inf), S])
    Y = np.hstack([np.zeros((Y.shape[0], 1), dtype=Y.dtype), Y])
    desc = -np.sort(-S, axis=1)
    avg = np.array([rankdata(-row) for row in S])  # descending, average
    pos_rank_sum = np.sum(np.where(Y > 0, avg, 0.0), axis=1)
    user_len = np.argmin(desc, axis=1)
    gauc = rb.GAUC(config).metric_info(
        pos_rank_sum[:, None], user_len, Y.sum(axis=1).astype(float)
    )
    assert peer.recbole_gauc(S[:, 1:], Y[:, 1:]) == pytest.approx(gauc, rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_lightfm_formula_is_the_peer(seed):
    pytest.importorskip("lightfm")
    from lightfm import LightFM
    from lightfm import evaluation as lfm

    # scores = user embedding . item embedding (+ biases 0), small integers:
    # exact in float32, with ties
    rng = np.random.default_rng(seed)
    n_users, n_items = 14, 10
    Ue = rng.integers(-2, 3, size=(n_users, 2)).astype(np.float32)
    Ie = rng.integers(-2, 3, size=(n_items, 2)).astype(np.float32)
    S = Ue.astype(float) @ Ie.T.astype(float)
    train = rng.random((n_users, n_items)) < 0.2
    test = np.zeros((n_users, n_items), dtype=bool)
    for u in range(2, n_users):
        free = np.flatnonzero(~train[u])
        _, first = np.unique(S[u, free], return_index=True)
        pick = rng.choice(first, size=rng.integers(1, first.size), replace=False)
        test[u, free[pick]] = True
    model = LightFM(no_components=2)
    model.fit_partial(sp.coo_matrix(test.astype(np.float32)), epochs=0)
    model.user_embeddings[:] = Ue
    model.item_embeddings[:] = Ie
    model.user_biases[:] = 0
    model.item_biases[:] = 0
    tr = sp.csr_matrix(train.astype(np.float32))
    te = sp.csr_matrix(test.astype(np.float32))
    for k in (1, 3, 10):
        mine = peer.lightfm_metrics(S, test, train, k)
        theirs = {
            "precision": lfm.precision_at_k(model, te, tr, k=k).mean(),
            "recall": lfm.recall_at_k(model, te, tr, k=k).mean(),
            "rr": lfm.reciprocal_rank(model, te, tr).mean(),
            "auc": lfm.auc_score(model, te, tr).mean(),
        }
        _close_all(mine, theirs, rtol=1e-6)  # float32 means
