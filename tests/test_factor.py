"""factor_ranking_report equals ranking_report on the dense scores, bit for bit."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from threadpoolctl import threadpool_limits

from sklearn_rankmetrics import factor_ranking_report, precision_at_k, ranking_report
from sklearn_rankmetrics._evaluation._per_query import available_metrics
from sklearn_rankmetrics._utils._conventions import CONVENTIONS

# exclusions that remove held-out items warn; the tests of that warning use
# pytest.warns, which sees it anyway
pytestmark = pytest.mark.filterwarnings("ignore:exclude removes:UserWarning")


def _data(seed, n_users=23, n_items=9, d=3, grades=4):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n_users, d))
    V = rng.normal(size=(n_items, d))
    # round the factors so that ties occur in the scores
    U = np.round(U)
    V = np.round(V)
    Y = rng.integers(0, grades, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.3
    )
    Y[:3] = 0  # users without held-out items
    train = rng.random((n_users, n_items)) < 0.25
    return U, V, Y, train


def _dense(U, V, train):
    S = U @ V.T
    if train is not None:
        S = S.copy()
        S[train] = -np.inf
    return S


def _metrics():
    return [m for m in available_metrics() if m != "gauc"]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ignore_ties": True},
        {"gain": "exponential", "no_relevant": 0.0},
        {"relevance_threshold": 2, "ap_denominator": "min_k"},
        {"beta": 2.0, "log_base": 10},
    ],
)
@pytest.mark.parametrize("wm", [None, 0.0005])
def test_bit_for_bit(seed, options, wm):
    U, V, Y, train = _data(seed)
    k = (1, 3, 20)
    S = _dense(U, V, train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(Y, S, k=k, metrics=_metrics(), output_dict=True, **options)
        ref_q = ranking_report(
            Y, S, k=k, metrics=_metrics(), output_dict=True, per_query=True, **options
        )
        for y, excl in ((Y, train), (sp.csr_matrix(Y), sp.csr_matrix(train))):
            got = factor_ranking_report(
                y,
                U,
                V,
                exclude=excl,
                k=k,
                metrics=_metrics(),
                output_dict=True,
                working_memory=wm,
                **options,
            )
            assert list(got) == list(ref)
            for name in ref:
                assert np.array_equal(got[name], ref[name], equal_nan=True), name
            got_q = factor_ranking_report(
                y,
                U,
                V,
                exclude=excl,
                k=k,
                metrics=_metrics(),
                output_dict=True,
                per_query=True,
                working_memory=wm,
                **options,
            )
            for name in ref_q:
                np.testing.assert_array_equal(got_q[name], ref_q[name])


def test_sample_weight_callable_and_text():
    U, V, Y, train = _data(7, n_users=40)
    w = np.random.default_rng(0).random(40)
    S = _dense(U, V, None)
    ref = ranking_report(Y, S, k=5, sample_weight=w, output_dict=True)
    got = factor_ranking_report(
        Y, U, V, k=5, sample_weight=w, output_dict=True, working_memory=0.0002
    )
    assert got == ref
    got = factor_ranking_report(
        Y,
        lambda idx: U[idx] @ V.T,
        k=5,
        sample_weight=w,
        output_dict=True,
        working_memory=0.0002,
    )
    assert got == ref
    assert factor_ranking_report(Y, U, V, k=(1, 5)) == ranking_report(Y, S, k=(1, 5))


def test_exclude_relevant_warns_once():
    U, V, Y, _ = _data(1)
    excl = Y > 0
    n = int(excl.sum())
    with pytest.warns(UserWarning, match=f"removes {n} held-out") as rec:
        factor_ranking_report(
            Y, U, V, exclude=excl, k=3, output_dict=True, working_memory=0.0002
        )
    assert sum("held-out" in str(r.message) for r in rec) == 1


def test_bad_input():
    U, V, Y, train = _data(2)
    with pytest.raises(ValueError, match="inner dimension"):
        factor_ranking_report(Y, U, V[:, :2])
    with pytest.raises(ValueError, match="exclude"):
        factor_ranking_report(Y, U, V, exclude=train[:, :3])
    with pytest.raises(ValueError, match="y_true"):
        factor_ranking_report(Y[:4], U, V)
    bad = U.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        factor_ranking_report(Y, bad, V)
    with pytest.raises(TypeError, match="item_factors"):
        factor_ranking_report(Y, lambda idx: U[idx] @ V.T, V)
    U0, V0 = U.copy(), V.copy()
    with pytest.warns(UserWarning, match="held-out"):
        factor_ranking_report(Y, U, V, exclude=train)
    np.testing.assert_array_equal(U, U0)
    np.testing.assert_array_equal(V, V0)


def test_bad_weights_and_memory():
    U, V, Y, _ = _data(3)
    with pytest.raises(ValueError, match="sample_weight"):
        factor_ranking_report(Y, U, V, sample_weight=-np.ones(Y.shape[0]))
    with pytest.raises(ValueError, match="sample_weight"):
        factor_ranking_report(Y, U, V, sample_weight=np.ones(2))
    with pytest.raises(ValueError, match="working_memory"):
        factor_ranking_report(Y, U, V, working_memory=0)


# ---------------------------------------------------------------------------
# Threads, blocks and the candidate path (issue 20, item 1)
# ---------------------------------------------------------------------------
def _catalogue(seed, n_users=300, n_items=400, d=8, rounded=True, dtype=np.float64):
    """A catalogue large enough for the candidate path (k <= 10), 20
    training items per user excluded, graded held-out items, a few users
    without any."""
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n_users, d))
    V = rng.normal(size=(n_items, d))
    if rounded:  # exact products, many ties
        U, V = np.round(U), np.round(V)
    Y = rng.integers(1, 4, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.02
    )
    Y[:5] = 0
    train = sp.random(n_users, n_items, density=0.05, random_state=seed, format="csr")
    return U.astype(dtype), V.astype(dtype), Y, train


_TOP_K = ["precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg", "err"]


def _count_packed(monkeypatch):
    """Count the blocks (or tiles) that took the candidate path."""
    from sklearn_rankmetrics._evaluation import _factor

    calls = {"packed": 0, "full": 0}
    original = _factor._candidates

    def spy(S, Yb, k):
        out = original(S, Yb, k)
        calls["full" if out is None else "packed"] += 1
        return out

    monkeypatch.setattr(_factor, "_candidates", spy)
    return calls


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ignore_ties": True},
        {"gain": "exponential", "no_relevant": 0.0, "ap_denominator": "min_k"},
        {"relevance_threshold": 2},
    ],
)
def test_candidate_path_bit_for_bit(seed, options, monkeypatch):
    # Rounded factors: exact scores full of ties, so the tie group cut at k
    # and the candidates' bound are exercised; the exclusions put -inf in.
    U, V, Y, train = _catalogue(seed)
    S = _dense(U, V, train.toarray() != 0)
    k = (1, 5, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(
            Y, S, k=k, metrics=_TOP_K, output_dict=True, per_query=True, **options
        )
        calls = _count_packed(monkeypatch)
        for y in (Y, sp.csr_matrix(Y)):
            got = factor_ranking_report(
                y,
                U,
                V,
                exclude=train,
                k=k,
                metrics=_TOP_K,
                output_dict=True,
                per_query=True,
                working_memory=0.3,
                **options,
            )
            assert list(got) == list(ref)
            for name in ref:
                np.testing.assert_array_equal(got[name], ref[name], err_msg=name)
    assert calls["packed"] > 1 and calls["full"] == 0  # several blocks, packed


@pytest.mark.parametrize("name", available_metrics())
def test_candidate_path_follows_the_registry_reads_fact(name, monkeypatch):
    # Only the metrics that read each user's top k (MetricSpec.reads, from
    # the kernel) take the packed candidates; the others (R-precision and
    # bpref: the whole list; fall-out: every item's grade; GAUC: every
    # pair) rank the whole rows.  Either way the report's value, bit for bit.
    from sklearn_rankmetrics._registry import METRICS

    U, V, Y, train = _catalogue(2, n_users=40)
    S = _dense(U, V, train.toarray() != 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(Y, S, k=3, metrics=[name], output_dict=True)
        calls = _count_packed(monkeypatch)
        got = factor_ranking_report(
            Y, U, V, exclude=train, k=3, metrics=[name], output_dict=True
        )
    np.testing.assert_equal(got, ref)
    # (the other metrics never reach the candidates: calls stay 0)
    assert (calls["packed"] > 0) == (METRICS[name].reads == "top_k")


def test_candidate_path_callable_and_fallback(monkeypatch):
    U, V, Y, train = _catalogue(5, n_users=60)
    S = _dense(U, V, train.toarray() != 0)
    ref = ranking_report(Y, S, k=3, metrics=["ndcg", "map"], output_dict=True)
    calls = _count_packed(monkeypatch)
    got = factor_ranking_report(
        Y,
        lambda idx: U[idx] @ V.T,
        exclude=train,
        k=3,
        metrics=["ndcg", "map"],
        output_dict=True,
    )
    assert got == ref and calls["packed"] == 1
    # a user whose every item is excluded but a few: no bound, full rows
    excl = train.toarray() != 0
    excl[7, 3:] = True
    S = _dense(U, V, excl)
    ref = ranking_report(Y, S, k=3, metrics=["ndcg", "map"], output_dict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = factor_ranking_report(
            Y, U, V, exclude=excl, k=3, metrics=["ndcg", "map"], output_dict=True
        )
    assert got == ref and calls["full"] >= 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_threads_and_blocks_bit_identical(dtype):
    # Continuous factors: the scores depend on how BLAS sums; every thread
    # count and block size must still give the same bits.
    U, V, Y, train = _catalogue(11, n_users=700, rounded=False, dtype=dtype)
    results = []
    for n_threads in (1, 2, 3):
        for wm in (0.05, 0.5, None):
            for metrics in (_TOP_K, ["ndcg", "fallout", "r_precision"]):
                results.append(
                    factor_ranking_report(
                        Y,
                        U,
                        V,
                        exclude=train,
                        k=(1, 10),
                        metrics=metrics,
                        per_query=True,
                        output_dict=True,
                        working_memory=wm,
                        n_threads=n_threads,
                    )
                )
    first = {}
    for got in results:
        for name, values in got.items():
            first.setdefault(name, values)
            np.testing.assert_array_equal(values, first[name], err_msg=name)
    # the candidate path and the full rows agree on the shared metrics
    assert set(first) >= {"ndcg@1", "ndcg@10", "fallout@10"}


def test_float32_factors_score_in_float32():
    U, V, Y, train = _catalogue(3, rounded=False, dtype=np.float32)
    S = (U @ V.T).astype(np.float64)
    S[train.toarray() != 0] = -np.inf
    ref = ranking_report(Y, S, k=5, output_dict=True, per_query=True)
    got = factor_ranking_report(
        Y, U, V, exclude=train, k=5, output_dict=True, per_query=True
    )
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name])


@pytest.mark.parametrize("wm, n_threads", [(1, 2), (20, 2), (20, 1)])
def test_working_memory_bounds_all_threads(wm, n_threads, monkeypatch):
    # The blocks in flight take working_memory together (24 bytes per score:
    # scores, grades, selection), in whole product tiles, at least one.
    from sklearn_rankmetrics._evaluation import _factor, _tiling

    seen = []
    original = _factor._per_query_report

    def spy(Y, S, **kwargs):
        seen.append(S.shape[0])
        return original(Y, S, **kwargs)

    monkeypatch.setattr(_factor, "_per_query_report", spy)
    n_items = 1000
    U, V, Y, _ = _catalogue(2, n_users=1000, n_items=n_items)
    factor_ranking_report(
        Y, U, V, k=5, metrics=["fallout"], working_memory=wm, n_threads=n_threads
    )
    tile = _tiling._tile_rows(8 * n_items)
    rows = wm * 2**20 // n_threads // (24 * n_items)
    assert sum(seen) == 1000
    assert max(seen) == max(tile, rows // tile * tile)


def test_k_above_catalogue_is_whole_catalogue():
    U, V, Y, train = _data(4)
    n_items = V.shape[0]
    S = _dense(U, V, train)
    for k in (n_items, n_items + 5):
        got = factor_ranking_report(Y, U, V, exclude=train, k=k, output_dict=True)
        ref = ranking_report(Y, S, k=k, output_dict=True)
        assert got == ref


def test_bad_threads_and_factors():
    U, V, Y, _ = _data(2)
    with pytest.raises(ValueError, match="n_threads"):
        factor_ranking_report(Y, U, V, n_threads=0)
    with pytest.raises(TypeError, match="n_threads"):
        factor_ranking_report(Y, U, V, n_threads=1.5)
    with pytest.raises(TypeError, match="item_factors is required"):
        factor_ranking_report(Y, U)
    with pytest.raises(TypeError, match="user_factors must hold real numbers"):
        factor_ranking_report(Y, U.astype(str), V)
    bad = V.copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="item_factors contains NaN or inf"):
        factor_ranking_report(Y, U, bad)

    def nan_scores(idx):
        S = U[idx] @ V.T
        S[0, 0] = np.nan
        return S

    with pytest.raises(ValueError, match="callable returned NaN"):
        factor_ranking_report(Y, nan_scores)
    with pytest.raises(ValueError, match="callable returned shape"):
        factor_ranking_report(Y, lambda idx: U[idx] @ V[:4].T)
    with pytest.raises(ValueError, match="exclude must have the shape"):
        factor_ranking_report(Y, U, V, exclude=sp.csr_matrix(Y[:, :4]))


# ---------------------------------------------------------------------------
# precision_denominator="min_k" and the implicit anchor (issue 20, item 3)
# ---------------------------------------------------------------------------
def _orderings(scores):
    """Every ordering of the items by decreasing score, tied items in every
    order (brute force, for a handful of items)."""
    n = len(scores)
    for perm in itertools.permutations(range(n)):
        if all(scores[perm[i]] >= scores[perm[i + 1]] for i in range(n - 1)):
            yield perm


def _precision_min_k_reference(y_true, y_score, k):
    """Per query: the mean over tied orderings of hits@k / min(k, R), and
    the pooled hits and denominators (nan / 0 for a query without any
    relevant item)."""
    values, hits, dens = [], [], []
    for y, s in zip(y_true, y_score, strict=True):
        R = int(np.count_nonzero(y > 0))
        found = [sum(y[j] > 0 for j in perm[:k]) for perm in _orderings(s)]
        h = sum(found) / len(found)
        den = min(k, R)
        values.append(h / den if den else np.nan)
        hits.append(h)
        dens.append(den)
    return np.array(values), np.array(hits), np.array(dens)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 4, 7])
def test_precision_min_k(seed, k):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(6, 6)) * (rng.random((6, 6)) < 0.5)
    y_true[0] = 0  # no relevant item: skipped
    y_score = rng.integers(0, 3, size=(6, 6)).astype(float)  # ties
    values, hits, dens = _precision_min_k_reference(y_true, y_score, k)
    got = precision_at_k(
        y_true, y_score, k=k, precision_denominator="min_k", average=None
    )
    np.testing.assert_allclose(got[1:], values[1:], rtol=1e-12)
    got = precision_at_k(y_true, y_score, k=k, precision_denominator="min_k")
    np.testing.assert_allclose(got, np.nanmean(values), rtol=1e-12)
    got = precision_at_k(
        y_true, y_score, k=k, precision_denominator="min_k", average="micro"
    )
    np.testing.assert_allclose(got, hits.sum() / dens.sum(), rtol=1e-12)


def test_precision_min_k_hand_worked():
    # one user, 2 relevant items, k=3: 1 hit in the top 3 -> 1 / min(3, 2)
    y_true = [[1, 0, 0, 1, 0]]
    y_score = [[0.9, 0.8, 0.7, 0.1, 0.2]]
    assert precision_at_k(y_true, y_score, k=3, precision_denominator="min_k") == 0.5
    # k=1: the hit at rank 1 -> 1 / min(1, 2) = 1
    assert precision_at_k(y_true, y_score, k=1, precision_denominator="min_k") == 1.0


def _implicit_data(seed, n_users=80, n_items=200, K=10):
    """Float32 factors with exact, distinct scores (small integers plus a
    distinct multiple of 1/256 per item), 10 training items per user and
    0..15 held-out ones, disjoint."""
    rng = np.random.default_rng(seed)
    U = rng.integers(-3, 4, size=(n_users, 5)).astype(np.float32)
    V = rng.integers(-3, 4, size=(n_items, 5)).astype(np.float32)
    U[:, -1] = 1.0
    V[:, -1] = rng.permutation(n_items) / 256.0
    train = np.zeros((n_users, n_items), dtype=np.float32)
    test = np.zeros((n_users, n_items), dtype=np.float32)
    for u in range(n_users):
        n_test = rng.integers(0, 16)
        items = rng.choice(n_items, size=10 + n_test, replace=False)
        train[u, items[:10]] = 1
        test[u, items[10:]] = 1
    return U, V, sp.csr_matrix(train), sp.csr_matrix(test)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("K", [3, 10])
def test_implicit_ranking_metrics_at_k(seed, K):
    pytest.importorskip("implicit")
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k

    U, V, train, test = _implicit_data(seed, K=K)
    # (implicit warns when OpenBLAS runs several threads)
    with threadpool_limits(1, user_api="blas"):
        model = AlternatingLeastSquares(factors=U.shape[1], num_threads=1)
        model.user_factors, model.item_factors = U, V
        theirs = ranking_metrics_at_k(model, train, test, K=K, show_progress=False)
    S = (U.astype(np.float64) @ V.T.astype(np.float64)).astype(np.float32)
    assert len(np.unique(S[0])) == S.shape[1]  # no ties: both rank alike
    ours = factor_ranking_report(
        test,
        U,
        V,
        exclude=train,
        k=K,
        metrics=["ndcg", "map"],
        ap_denominator="min_k",
        output_dict=True,
    )
    # its NDCG is ours on binary relevance; its MAP divides by min(K, R)
    np.testing.assert_allclose(ours[f"ndcg@{K}"], theirs["ndcg"], rtol=1e-12)
    np.testing.assert_allclose(ours[f"map@{K}"], theirs["map"], rtol=1e-12)
    # its precision: total hits / sum of min(K, R), a micro average
    S_dense = U @ V.T
    S_dense = np.where(train.toarray() != 0, -np.inf, S_dense)
    precision = precision_at_k(
        test.toarray(),
        S_dense,
        k=K,
        precision_denominator="min_k",
        average="micro",
    )
    np.testing.assert_allclose(precision, theirs["precision"], rtol=1e-12)
    # (its "auc" counts the misses of the top K only, every item below it
    # as tied: a truncated AUC, not group_auc_score's)


def test_duplicate_entries_and_inputs_untouched():
    # CSR inputs with duplicate (summed) entries, as scipy allows
    U, V, Y, train = _catalogue(8, n_users=50)
    Yc = sp.coo_matrix(Y)
    half = Yc.data // 2
    dup = sp.csr_matrix(
        (
            np.concatenate([Yc.data - half, half]),
            (np.concatenate([Yc.row, Yc.row]), np.concatenate([Yc.col, Yc.col])),
        ),
        shape=Y.shape,
    )
    dup.has_canonical_format = False
    tc = train.tocoo()
    excl = sp.csr_matrix(
        (
            np.ones(2 * tc.nnz),
            (np.concatenate([tc.row, tc.row]), np.concatenate([tc.col, tc.col])),
        ),
        shape=train.shape,
    )
    excl.has_canonical_format = False
    before = (dup.data.copy(), dup.indices.copy(), excl.data.copy())
    ref = factor_ranking_report(
        Y, U, V, exclude=train, k=5, output_dict=True, per_query=True
    )
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = factor_ranking_report(
            dup, U, V, exclude=excl, k=5, output_dict=True, per_query=True
        )
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name])
    n_removed = int(np.count_nonzero((train.toarray() != 0) & (Y > 0)))
    [warning] = [r for r in rec if "held-out" in str(r.message)]
    assert f"removes {n_removed} held-out" in str(warning.message)
    np.testing.assert_array_equal(dup.data, before[0])
    np.testing.assert_array_equal(dup.indices, before[1])
    np.testing.assert_array_equal(excl.data, before[2])


def test_blas_threads_restored_and_empty_input():
    from threadpoolctl import threadpool_info

    U, V, Y, _ = _catalogue(9, n_users=300)
    before = [info["num_threads"] for info in threadpool_info()]
    for n_threads in (1, 2):
        factor_ranking_report(Y, U, V, k=5, n_threads=n_threads, working_memory=0.2)
    assert [info["num_threads"] for info in threadpool_info()] == before
    with pytest.raises(ValueError, match="at least one user"):
        factor_ranking_report(np.zeros((0, 4)), np.zeros((0, 2)), np.zeros((4, 2)))


# -- beyond-accuracy metrics (issue 20) ---------------------------------------

_BEYOND = [
    "catalog_coverage",
    "gini_index",
    "exposure_entropy",
    "average_popularity",
    "novelty",
    "intra_list_diversity",
    "serendipity",
]


def _beyond_options(name, rng, n_items, variant):
    """The options each beyond-accuracy metric needs, in two variants."""
    options = {}
    if name in ("average_popularity", "novelty", "serendipity"):
        if variant:  # a users x items training matrix
            options["item_popularity"] = sp.csr_matrix(rng.random((30, n_items)) < 0.3)
            options["share"] = "users" if name == "novelty" else "auto"
        else:
            options["item_popularity"] = rng.integers(0, 5, size=n_items)
    if name == "intra_list_diversity":
        options["item_features"] = np.round(rng.normal(size=(n_items, 3)))
        options["item_features"][0] = 0  # cosine distance to a zero vector
        options["metric"] = "euclidean" if variant else "cosine"
    if name == "exposure_entropy" and variant:
        options["normalization"] = "recbole"
    return options


def _assert_same(got, ref):
    assert list(got) == list(ref)
    for name in ref:
        assert np.array_equal(got[name], ref[name], equal_nan=True), name


@pytest.mark.parametrize("name", _BEYOND)
@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize("seed", range(2))
def test_beyond_bit_for_bit(name, variant, seed):
    """Each beyond-accuracy metric equals ranking_report's on the dense
    scores with the excluded items at -inf, bit for bit, alone and beside
    ranking metrics, for any blocks and threads (ties in the scores)."""
    U, V, Y, train = _data(seed, n_users=61, n_items=11)
    rng = np.random.default_rng(seed)
    options = _beyond_options(name, rng, V.shape[0], variant)
    S = _dense(U, V, train)
    k = (1, 3, 20)
    for metrics in ([name], ["ndcg", name, "recall"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = ranking_report(
                Y, S, k=k, metrics=metrics, output_dict=True, **options
            )
        for y, excl in ((Y, train), (sp.csr_matrix(Y), sp.csr_matrix(train))):
            for wm, n_threads in [(None, 1), (0.0005, 2), (0.00002, 1), (0.00002, 2)]:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = factor_ranking_report(
                        y,
                        U,
                        V,
                        exclude=excl,
                        k=k,
                        metrics=metrics,
                        output_dict=True,
                        working_memory=wm,
                        n_threads=n_threads,
                        **options,
                    )
                _assert_same(got, ref)


@pytest.mark.parametrize("chunk", [3, 7])
def test_beyond_streamed_in_canonical_chunks(monkeypatch, chunk):
    """With canonical chunks of a few users, the factor report streams its
    blocks' lists into chunks that the blocks do not align with, and still
    equals ranking_report (which reads the same chunks of all the users at
    once) bit for bit, for any blocks and threads."""
    from sklearn_rankmetrics._evaluation import _tiling
    from sklearn_rankmetrics._evaluation._beyond_report import ListStream
    from sklearn_rankmetrics._metrics import _beyond

    monkeypatch.setattr(_beyond, "_CHUNK_USERS", chunk)
    monkeypatch.setattr(_tiling, "_TILE", 4)  # blocks of 4, 8, ... users
    U, V, Y, train = _data(3, n_users=61, n_items=11)
    rng = np.random.default_rng(3)
    options = {}
    for name in _BEYOND:
        options.update(_beyond_options(name, rng, V.shape[0], 0))
    # every item seen in training: novelty finite (a sum, not inf)
    options["item_popularity"] = rng.integers(1, 5, size=V.shape[0])
    S = _dense(U, V, train)
    k = (1, 3, 20)
    metrics = ["ndcg", *_BEYOND]
    ref = ranking_report(Y, S, k=k, metrics=metrics, output_dict=True, **options)
    pushed = []
    push = ListStream.push

    def recording_push(self, lists):
        pushed.append(lists[k[0]].n_users)
        push(self, lists)

    monkeypatch.setattr(ListStream, "push", recording_push)
    runs = [(U, V, wm, n) for wm in (None, 0.0005, 0.00002) for n in (1, 2)]
    runs.append((lambda users: U[users] @ V.T, None, 0.00001, 2))  # 1-user tiles
    for factors, items, wm, n_threads in runs:
        pushed.clear()
        got = factor_ranking_report(
            Y,
            factors,
            items,
            exclude=train,
            k=k,
            metrics=metrics,
            output_dict=True,
            working_memory=wm,
            n_threads=n_threads,
            **options,
        )
        _assert_same(got, ref)
        assert sum(pushed) == 61
        if wm is not None and wm < 0.001:  # some blocks cut a chunk
            assert len(pushed) > 1 and any(n % chunk for n in pushed), pushed


@pytest.mark.parametrize("chunk", [3, 10**6])
def test_beyond_unseen_warns_once_per_cutoff(monkeypatch, chunk):
    """Novelty's warning about items never seen in training counts them over
    every chunk of users (not chunk by chunk), once per cut-off, as
    ranking_report, and points at the caller."""
    from sklearn_rankmetrics._evaluation import _tiling
    from sklearn_rankmetrics._metrics import _beyond

    monkeypatch.setattr(_beyond, "_CHUNK_USERS", chunk)
    monkeypatch.setattr(_tiling, "_TILE", 4)
    U, V, Y, train = _data(5, n_users=40, n_items=9)
    U[:, 0], V[:, 0] = 1, [6, 6, 6, 3, 3, 3, 0, 0, 0]  # items 0-2 ahead
    pop = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0])  # items 0, 4, 8 unseen
    S = _dense(U, V, train)
    k = (1, 4)
    # brute force: the unseen items in some user's top-k (ties included)
    want = []
    for kk in k:
        listed = set()
        for row in S:
            finite = np.sort(row[row > -np.inf])[::-1]
            if finite.size:
                t = finite[min(kk, finite.size) - 1]
                listed |= set(np.flatnonzero(row >= t))
        want.append(len(listed & {0, 4, 8}))
    assert want[0] < want[1] == 3  # the counts differ with the cut-off

    def messages(call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = call()
        return values, [w for w in caught if "never seen" in str(w.message)]

    options = dict(k=k, metrics=["novelty"], item_popularity=pop, output_dict=True)
    ref, ref_w = messages(lambda: ranking_report(Y, S, **options))
    got, got_w = messages(
        lambda: factor_ranking_report(
            Y, U, V, exclude=train, working_memory=0.00002, **options
        )
    )
    assert got == ref == {"novelty@1": np.inf, "novelty@4": np.inf}
    assert [str(w.message) for w in got_w] == [str(w.message) for w in ref_w]
    assert [str(w.message).split()[1] for w in got_w] == [str(n) for n in want]
    assert all(w.filename == __file__ for w in got_w)


def _beyond_reference(name, S, k, pop):
    """A slow per-user reference without ties: each user's top-k items
    (those scored -inf left out), then the metric from its definition."""
    n_users, n_items = S.shape
    lists = []
    for u in range(n_users):
        order = [i for i in np.argsort(-S[u], kind="stable") if S[u, i] > -np.inf]
        lists.append(order[:k])
    if name == "catalog_coverage":
        return len({i for L in lists for i in L}) / n_items
    if name == "gini_index":
        counts = np.sort(np.bincount([i for L in lists for i in L], minlength=n_items))
        j = np.arange(1, n_items + 1)
        return float(np.sum((2 * j - n_items - 1) * counts) / (n_items * counts.sum()))
    # average_popularity: mean over users with a list of their items' mean
    return float(np.mean([np.mean(pop[L]) for L in lists if L]))


@pytest.mark.parametrize(
    "name", ["catalog_coverage", "gini_index", "average_popularity"]
)
@pytest.mark.parametrize("seed", range(3))
def test_beyond_slow_reference(name, seed):
    """Without ties, against the obvious per-user computation (blocks of a
    few users, several threads, large enough to leave the candidate path)."""
    U, V, Y, train = _catalogue(seed, n_users=90, n_items=150, rounded=False)
    train = train.toarray() > 0 if sp.issparse(train) else train
    pop = np.random.default_rng(seed).integers(0, 50, size=V.shape[0])
    options = {"item_popularity": pop} if name == "average_popularity" else {}
    got = factor_ranking_report(
        Y,
        U,
        V,
        exclude=train,
        k=(1, 5),
        metrics=["ndcg", name],
        output_dict=True,
        working_memory=0.0002,
        n_threads=2,
        **options,
    )
    S = _dense(U, V, train)
    for kk in (1, 5):
        assert got[f"{name}@{kk}"] == pytest.approx(
            _beyond_reference(name, S, kk, pop), rel=1e-12
        )


def test_beyond_hand_worked_and_text():
    # user 0 prefers item 0, user 1 item 2; item 1 is second for both
    U = np.array([[2.0, 0.0], [0.0, 2.0]])
    V = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [-1.0, -1.0]])
    y_true = np.array([[0, 1, 0, 0], [0, 0, 1, 0]])
    got = factor_ranking_report(
        y_true, U, V, k=1, metrics=["catalog_coverage", "gini_index"], output_dict=True
    )
    # lists {0} and {2}: 2 of 4 items; counts (0, 0, 1, 1): gini (0*... + 1 + 3) / 8
    assert got == {"catalog_coverage@1": 0.5, "gini_index@1": 0.5}
    # excluding item 0 for user 0 moves it to item 1: lists {1}, {2}
    excl = np.array([[1, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)
    got = factor_ranking_report(
        y_true, U, V, exclude=excl, k=2, metrics=["catalog_coverage"], output_dict=True
    )
    assert got == {"catalog_coverage@2": 0.5}  # lists {1, 2} and {2, 1}
    S = _dense(U, V, excl)
    for metrics in (["catalog_coverage", "novelty"], ["mrr", "novelty"]):
        text = factor_ranking_report(
            y_true,
            U,
            V,
            exclude=excl,
            k=(1, 2),
            metrics=metrics,
            item_popularity=[3, 2, 1, 0],
        )
        assert text == ranking_report(
            y_true, S, k=(1, 2), metrics=metrics, item_popularity=[3, 2, 1, 0]
        )


def test_beyond_callable_scores():
    U, V, Y, train = _data(4, n_users=40, n_items=10)
    S = _dense(U, V, train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(Y, S, k=(2, 5), metrics=_BEYOND[:3], output_dict=True)
        got = factor_ranking_report(
            Y,
            lambda users: U[users] @ V.T,
            exclude=train,
            k=(2, 5),
            metrics=_BEYOND[:3],
            output_dict=True,
            working_memory=0.00001,
        )
    _assert_same(got, ref)


def test_beyond_refusals():
    U, V, Y, train = _data(1)
    pop = np.ones(V.shape[0])
    with pytest.raises(ValueError, match="no per-query value"):
        factor_ranking_report(Y, U, V, metrics=["ndcg", "gini_index"], per_query=True)
    with pytest.raises(ValueError, match="sample_weight"):
        factor_ranking_report(
            Y, U, V, metrics=["ndcg", "catalog_coverage"], sample_weight=np.ones(len(U))
        )
    with pytest.raises(ValueError, match="relevance_threshold"):
        factor_ranking_report(
            Y,
            U,
            V,
            metrics=["ndcg", "serendipity"],
            item_popularity=pop,
            relevance_threshold=2,
        )
    with pytest.raises(TypeError, match="gain: options of the ranking"):
        factor_ranking_report(Y, U, V, metrics=["gini_index"], gain="exponential")
    with pytest.raises(TypeError, match="item_popularity: options of the beyond"):
        factor_ranking_report(Y, U, V, metrics=["ndcg"], item_popularity=pop)
    with pytest.raises(ValueError, match="item_popularity"):  # too short
        factor_ranking_report(Y, U, V, metrics=["novelty"], item_popularity=pop[:-1])
    with pytest.raises(ValueError, match="item_popularity"):  # missing
        factor_ranking_report(Y, U, V, metrics=["novelty"])
    with pytest.raises(ValueError, match="normalization"):
        factor_ranking_report(Y, U, V, metrics=["exposure_entropy"], normalization="x")
    # the same refusals as ranking_report
    S = _dense(U, V, None)
    with pytest.raises(ValueError, match="no per-query value"):
        ranking_report(Y, S, metrics=["ndcg", "gini_index"], per_query=True)
    with pytest.raises(TypeError, match="gain: options of the ranking"):
        ranking_report(Y, S, metrics=["gini_index"], gain="exponential")


@pytest.mark.parametrize("seed", range(2))
def test_beyond_with_candidate_path(seed, monkeypatch):
    """The beyond-accuracy metrics select their lists from the candidates
    the top-k metrics rank (the top k and the tie group k cuts are all
    there), never from the whole rows: still bit for bit (ties and -inf
    from rounded factors and exclusions)."""
    from sklearn_rankmetrics._evaluation._beyond_report import BeyondSums

    def whole_rows(*args, **kwargs):
        raise AssertionError("a beyond-accuracy list selected from whole rows")

    U, V, Y, train = _catalogue(seed)
    S = _dense(U, V, train.toarray() != 0)
    rng = np.random.default_rng(seed)
    pop = rng.integers(0, 30, size=V.shape[0])
    feats = np.round(rng.normal(size=(V.shape[0], 4)))
    metrics = _TOP_K + _BEYOND
    k = (1, 5, 10)
    opts = dict(item_popularity=pop, item_features=feats, normalization="max")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(Y, S, k=k, metrics=metrics, output_dict=True, **opts)
        monkeypatch.setattr(BeyondSums, "lists", whole_rows)
        calls = _count_packed(monkeypatch)
        for y, n_threads in ((Y, 1), (sp.csr_matrix(Y), 2)):
            got = factor_ranking_report(
                y,
                U,
                V,
                exclude=train,
                k=k,
                metrics=metrics,
                output_dict=True,
                working_memory=0.3,
                n_threads=n_threads,
                **opts,
            )
            _assert_same(got, ref)
    assert calls["packed"] > 1 and calls["full"] == 0  # several blocks, packed


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ties": "pessimistic"},
        {"precision_denominator": "retrieved", "persistence": 0.5},
        {"gain": "exponential", "no_relevant": 0.0},
    ],
    ids=str,
)
def test_convention_and_options_bit_for_bit(convention, options):
    # Every preset and the metric functions' options, as ranking_report on
    # the dense scores with the excluded items at -inf (rounded factors:
    # ties; blocks of a few users).
    rng = np.random.default_rng(11)
    U = np.round(rng.random((40, 3)), 1)
    V = np.round(rng.random((25, 3)), 1)
    Y = rng.integers(0, 3, (40, 25)) * (rng.random((40, 25)) < 0.3)
    exclude = rng.random((40, 25)) < 0.1
    S = np.where(exclude, -np.inf, U @ V.T)
    metrics = ["precision", "recall", "ndcg", "map", "mrr", "rbp", "fallout", "err"]
    metrics += ["r_precision"]
    got = factor_ranking_report(
        Y, U, V, exclude=exclude, k=(3, 5), metrics=metrics, convention=convention,
        output_dict=True, working_memory=0.001, **options,
    )  # fmt: skip
    want = ranking_report(
        Y, S, k=(3, 5), metrics=metrics, convention=convention, output_dict=True,
        **options,
    )  # fmt: skip
    assert list(got) == list(want)
    for name, value in want.items():
        assert (np.isnan(value) and np.isnan(got[name])) or got[name] == value, name


# ---------------------------------------------------------------------------
# Planted bugs (issue 27): each test fails on the bug it names
# ---------------------------------------------------------------------------
def test_precision_at_k_above_the_catalogue_divides_by_k():
    # 8 items, k = 20: the whole catalogue is ranked and P@20 divides by 20
    # (SPEC: P@k divides by k), not by the 8 items.  User 0 holds 3
    # relevant items: P@20 = 3/20, P@8 = 3/8.
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(4, 2)), rng.normal(size=(8, 2))
    Y = np.zeros((4, 8))
    Y[0, [1, 4, 6]] = 1
    Y[1, 2] = 1
    got = factor_ranking_report(
        Y, U, V, k=(8, 20), metrics=["precision"], per_query=True, output_dict=True
    )
    assert got["precision@20"][0] == 3 / 20 and got["precision@8"][0] == 3 / 8
    assert got["precision@20"][1] == 1 / 20
    assert factor_ranking_report(
        Y, U, V, k=20, metrics=["precision"], output_dict=True
    ) == {"precision@20": precision_at_k(Y, U @ V.T, k=20)}


def test_explicit_zeros_in_a_sparse_exclude_exclude_nothing():
    U, V, Y, train = _data(5)
    excl = sp.csr_matrix(train.astype(float))
    # the same matrix with explicit zeros stored at other positions
    rows, cols = np.nonzero(~train)
    pick = np.random.default_rng(5).random(rows.size) < 0.5
    stored = sp.csr_matrix(
        (
            np.concatenate([excl.data, np.zeros(pick.sum())]),
            (
                np.concatenate([excl.nonzero()[0], rows[pick]]),
                np.concatenate([excl.nonzero()[1], cols[pick]]),
            ),
        ),
        shape=train.shape,
    )
    assert stored.nnz > excl.nnz  # the zeros are stored
    nnz = stored.nnz
    metrics = ["precision", "ndcg", "fallout", "gauc"]
    want = factor_ranking_report(
        Y, U, V, exclude=excl, k=3, metrics=metrics, output_dict=True
    )
    for wm in (None, 0.0002):
        got = factor_ranking_report(
            Y,
            U,
            V,
            exclude=stored,
            k=3,
            metrics=metrics,
            output_dict=True,
            working_memory=wm,
        )
        assert got == want
    assert stored.nnz == nnz  # the caller's matrix keeps its zeros
    # the values of the dense scores with only the true exclusions at -inf
    ref = ranking_report(Y, _dense(U, V, train), k=3, metrics=metrics, output_dict=True)
    assert got == ref


def test_score_callable_returning_a_view_is_not_modified():
    U, V, Y, train = _data(6)
    M = U @ V.T
    before = M.copy()

    def view(users):  # a view of the caller's matrix, not a copy
        out = M[users[0] : users[-1] + 1]
        assert np.shares_memory(out, M)
        return out

    got = factor_ranking_report(
        Y, view, exclude=train, k=3, output_dict=True, working_memory=0.0002
    )
    assert_array_equal(M, before)  # no -inf written into the caller's scores
    assert got == factor_ranking_report(Y, U, V, exclude=train, k=3, output_dict=True)


def test_score_callable_returning_a_sparse_matrix_is_a_type_error():
    U, V, Y, _ = _data(7)
    M = sp.csr_matrix(np.maximum(U @ V.T, 0))
    with pytest.raises(TypeError, match="returned a sparse matrix.*dense array"):
        factor_ranking_report(Y, lambda users: M[users], k=3)


@pytest.mark.parametrize("callable_scores", [False, True])
def test_err_scales_by_the_top_grade_of_every_block(callable_scores):
    # One user holds grade 4, every other user at most 2: ERR's stop
    # probabilities (2**g - 1) / 2**4 read the largest grade of the whole
    # input, so the blocks without a 4 must not scale by their own top (2).
    rng = np.random.default_rng(8)
    n_users, n_items = 300, 10
    U, V = rng.normal(size=(n_users, 3)), rng.normal(size=(n_items, 3))
    Y = rng.integers(0, 3, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.4
    )
    Y[0, 3] = 4
    S = U @ V.T
    scores = (lambda users: S[users]) if callable_scores else U
    factors = None if callable_scores else V
    want = srm_err(Y, S)
    for wm in (None, 0.0002, 0.01):  # one block, or many (user 0 in the first)
        got = factor_ranking_report(
            Y,
            scores,
            factors,
            k=(3, 10),
            metrics=["err"],
            per_query=True,
            output_dict=True,
            working_memory=wm,
        )
        for k in (3, 10):
            assert_array_equal(got[f"err@{k}"], want[k])
    # a user far from user 0: its value with max_grade=4, not 2
    assert want[10][-1] != srm_err(Y[1:], S[1:])[10][-1]


def srm_err(Y, S):
    from sklearn_rankmetrics import expected_reciprocal_rank_at_k

    return {k: expected_reciprocal_rank_at_k(Y, S, k=k, average=None) for k in (3, 10)}


@pytest.mark.parametrize("seed", range(3))
def test_beyond_alone_reads_candidates(seed, monkeypatch):
    # Without ranking metrics too: the lists come from the candidates
    # (hypothesis-free adversarial data: rounded factors, exclusions, a
    # user whose best items all tie), bit for bit.
    U, V, Y, train = _catalogue(seed)
    U[7] = 0  # every item scores 0: one tie group of all (its block: whole rows)
    S = _dense(U, V, train.toarray() != 0)
    metrics = ["catalog_coverage", "gini_index", "exposure_entropy"]
    ref = ranking_report(Y, S, k=(1, 10), metrics=metrics, output_dict=True)
    calls = _count_packed(monkeypatch)
    for ties in ({}, {"ignore_ties": True}):
        ref = ranking_report(Y, S, k=(1, 10), metrics=metrics, output_dict=True, **ties)
        got = factor_ranking_report(
            Y,
            U,
            V,
            exclude=train,
            k=(1, 10),
            metrics=metrics,
            output_dict=True,
            working_memory=0.3,
            **ties,
        )
        _assert_same(got, ref)
    assert calls["packed"] > 1 and calls["full"] == 2  # user 7's block, twice


def test_no_scikit_learn_import_on_the_factor_path():
    # issue 31: the factor report does not need scikit-learn (about 80 MiB
    # and a second to import); the blocks follow SKLEARN_WORKING_MEMORY,
    # scikit-learn's own setting, while scikit-learn is not loaded.
    import json
    import os
    import subprocess
    import sys

    code = """
import json, sys
import numpy as np, scipy.sparse as sp
from sklearn_rankmetrics import factor_ranking_report
from sklearn_rankmetrics._evaluation import _tiling
rng = np.random.default_rng(0)
U, V = rng.normal(size=(500, 8)), rng.normal(size=(3000, 8))
test = sp.random(500, 3000, density=0.003, format="csr", random_state=0)
train = sp.random(500, 3000, density=0.01, format="csr", random_state=1)
report = factor_ranking_report(
    test, U, V, exclude=train, k=10, n_threads=2,
    metrics=["ndcg", "map", "precision", "recall", "gauc",
             "catalog_coverage", "gini_index", "novelty"],
    item_popularity=np.arange(3000) + 1, output_dict=True)
print(json.dumps({"sklearn": sorted(m for m in sys.modules
                                    if m.split(".")[0] == "sklearn"),
                  "working_memory": _tiling._working_memory(),
                  "n": len(report)}))
"""
    env = dict(os.environ, SKLEARN_WORKING_MEMORY="7")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"sklearn": [], "working_memory": 7, "n": 8}


def test_working_memory_follows_scikit_learn_when_loaded(monkeypatch):
    # With scikit-learn loaded, its config_context applies, as before.
    import sklearn

    from sklearn_rankmetrics._evaluation import _factor

    U, V, Y, train = _catalogue(0, n_users=300)
    seen = []
    original = _factor.block_bounds

    def spy(*args):
        out = original(*args)
        seen.append(len(out))
        return out

    monkeypatch.setattr(_factor, "block_bounds", spy)
    with sklearn.config_context(working_memory=0.05):
        factor_ranking_report(Y, U, V, k=5, n_threads=1)
    factor_ranking_report(Y, U, V, k=5, n_threads=1, working_memory=0.05)
    factor_ranking_report(Y, U, V, k=5, n_threads=1)
    # 300 users in tiles of 128: 3 blocks of one tile, or 256 + 44 users
    assert seen == [3, 3, 2]


# ---------------------------------------------------------------------------
# One exclusion rule (issue 27): exclude= removes candidates, not relevance
# ---------------------------------------------------------------------------
def _pairs(X):
    X = sp.coo_matrix(X)
    return {"user_id": X.row, "item_id": X.col, "label": X.data}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_items", [50, 900])  # 900: the candidate path
def test_top_k_table_reevaluated_with_the_same_exclude(seed, n_items):
    # Held-out pairs that are also excluded (trained on) stay relevant and
    # are never recommended in both reports: the table report on the
    # factor report's own top-k table, with the same exclude, gives its
    # values (continuous scores: no ties at the cut).
    from sklearn_rankmetrics import recommendation_table_report

    rng = np.random.default_rng(seed)
    n_users = 120
    U, V = rng.normal(size=(n_users, 5)), rng.normal(size=(n_items, 5))
    Y = rng.integers(1, 4, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.05
    )
    # every user has a held-out item: the table report evaluates those
    # users only, and fall-out is defined for the others too
    Y[np.arange(n_users), rng.integers(0, n_items, n_users)] = 1
    train = rng.random((n_users, n_items)) < 0.1
    train[:10] |= Y[:10] > 0  # users whose every held-out item is excluded
    assert (train & (Y > 0)).sum() > 10
    metrics = ["precision", "recall", "ndcg", "map", "mrr", "hit_rate", "fallout"]
    k = (1, 5)
    with pytest.warns(UserWarning, match="stay relevant") as rec:
        report, top = factor_ranking_report(
            sp.csr_matrix(Y),
            U,
            V,
            exclude=sp.csr_matrix(train),
            k=k,
            metrics=metrics,
            output_dict=True,
            return_top_k=True,
        )
    n_removed = int((train & (Y > 0)).sum())
    assert f"removes {n_removed} held-out relevant" in str(rec[0].message)
    with pytest.warns(UserWarning, match=f"removes {n_removed} held-out relevant"):
        again = recommendation_table_report(
            top,
            _pairs(Y),
            rank_col="rank",
            label_col="label",
            exclude=_pairs(train),
            catalog=np.arange(n_items),
            k=k,
            metrics=metrics,
            output_dict=True,
        )
    for name, value in report.items():
        assert again[name] == pytest.approx(value, rel=1e-12, abs=1e-15), name
    # every user with a held-out item is evaluated, the excluded ones too
    assert again["n_queries"] == n_users
    # a user whose held-out items are all excluded: relevant, never found
    per_user = factor_ranking_report(
        Y,
        U,
        V,
        exclude=train,
        k=5,
        metrics=["recall"],
        per_query=True,
        output_dict=True,
    )
    assert (per_user["recall@5"][:10] == 0.0).all()


def test_one_refusal_of_beyond_options():
    # factor_ranking_report and recommendation_table_report refuse the
    # beyond-accuracy options without those metrics, and per_query with
    # them, with one function (the table report names itself)
    from sklearn_rankmetrics import recommendation_table_report

    U, V, Y, _ = _data(0)
    reco = {"user_id": [0, 0], "item_id": [1, 2], "rank": [1, 2]}
    held = {"user_id": [0], "item_id": [2]}
    msg = "item_popularity: options of the beyond-accuracy metrics"
    with pytest.raises(TypeError, match=f"^{msg}"):
        factor_ranking_report(Y, U, V, metrics=["ndcg"], item_popularity=[1] * 9)
    with pytest.raises(TypeError, match=f"^recommendation_table_report: {msg}"):
        recommendation_table_report(
            reco, held, rank_col="rank", metrics=["ndcg"], item_popularity=[1, 2]
        )
    for call in (
        lambda: factor_ranking_report(
            Y, U, V, metrics=["catalog_coverage"], per_query=True
        ),
        lambda: recommendation_table_report(
            reco,
            held,
            rank_col="rank",
            metrics=["catalog_coverage"],
            catalog=[0, 1, 2],
            per_query=True,
        ),
    ):
        with pytest.raises(ValueError, match="catalog_coverage: these beyond"):
            call()
