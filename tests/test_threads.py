"""Chunks, threads and the package configuration (issue 9).

Large 2-D inputs are ranked in row chunks spread over threads; the values
must not depend on the chunks or on the thread count, errors must be the
same whichever chunk holds the bad value, and ``config_context`` must
validate, nest and restore like scikit-learn's.
"""

import subprocess
import sys
import threading
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._engine import _rank, _select
from sklearn_rankmetrics._engine._select import _sort_rows
from sklearn_rankmetrics._utils import _config
from tests._reference import random_case

METRICS = [
    srm.precision_at_k,
    srm.recall_at_k,
    srm.hit_rate_at_k,
    srm.reciprocal_rank_at_k,
    srm.average_precision_at_k,
    srm.dcg_at_k,
    srm.ndcg_at_k,
]


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Chunks of a few rows each (the row size of the cases below is
    ``12 * 8`` bytes), so that small inputs cross many chunk boundaries."""
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 3 * 12 * 8)


def _values(metric, y_true, y_score, **kw):
    return metric(y_true, y_score, average=None, no_relevant=0.0, **kw)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("levels", [None, 3])
@pytest.mark.parametrize("k", [1, 3, 11, 12, None])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_threads_and_chunks_give_bit_identical_values(
    monkeypatch, seed, levels, k, ignore_ties
):
    # 29 rows: the chunks of 3 rows leave a last chunk of 2
    Y, S = random_case(seed, 29, 12, score_levels=levels, p_unretrieved=0.2)
    W = np.random.default_rng(seed).random(29)
    expected = {}
    for metric in METRICS:
        for y in (Y, sp.csr_matrix(Y)):
            expected[metric, sp.issparse(y)] = _values(
                metric, y, S, k=k, ignore_ties=ignore_ties, sample_weight=W
            )
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 3 * 12 * 8)
    for n_threads in (1, 2, 5):
        with srm.config_context(n_threads=n_threads):
            for (metric, sparse), want in expected.items():
                y = sp.csr_matrix(Y) if sparse else Y
                got = _values(
                    metric, y, S, k=k, ignore_ties=ignore_ties, sample_weight=W
                )
                assert_array_equal(got, want, err_msg=f"{metric.__name__}")


@pytest.mark.parametrize("n_rows", [1, 2, 3, 4, 7])
def test_chunk_boundaries(tiny_chunks, n_rows):
    """Chunks of one row, a partial last chunk, a single chunk."""
    Y, S = random_case(n_rows, n_rows, 12, score_levels=4)
    with srm.config_context(n_threads=2):
        got = srm.ndcg_at_k(Y, S, k=5, average=None)
    for i in range(n_rows):
        one = srm.ndcg_at_k(Y[i : i + 1], S[i : i + 1], k=5, average=None)
        assert_array_equal(got[i : i + 1], one)


@pytest.mark.parametrize("row", [0, 4, 8])
def test_errors_do_not_depend_on_the_chunk(tiny_chunks, row):
    Y, S = random_case(0, 9, 12)
    S_nan = S.copy()
    S_nan[row, 5] = np.nan
    Y_neg = Y.astype(float)
    Y_neg[row, 2] = -1.0
    Y_inf = Y.astype(float)
    Y_inf[row, 3] = np.inf
    with srm.config_context(n_threads=2):
        with pytest.raises(ValueError, match="y_score contains NaN"):
            srm.ndcg_at_k(Y, S_nan, k=3)
        with pytest.raises(ValueError, match="negative"):
            srm.precision_at_k(Y_neg, S, k=3)
        with pytest.raises(ValueError, match="NaN or inf"):
            srm.dcg_at_k(Y_inf, S, k=None)


def test_nan_scores_are_found_in_any_position():
    Y, S = random_case(1, 4, 50)
    for k in (1, 5, None):
        for col in (0, 17, 49):
            S_nan = S.copy()
            S_nan[2, col] = np.nan
            with pytest.raises(ValueError, match="y_score contains NaN"):
                srm.ndcg_at_k(Y, S_nan, k=k)
    S_nan = np.full((2, 50), -np.inf)
    S_nan[1, 3] = np.nan
    with pytest.raises(ValueError, match="y_score contains NaN"):
        srm.ndcg_at_k(Y[:2], S_nan, k=2)


@pytest.mark.parametrize("levels", [4, 40, 400, None])
def test_full_sort_orders_ties_by_column(levels):
    """Rows full of ties (one sort per row) or with a few (the tied items
    only): equal scores by column either way, as a stable sort does."""
    rng = np.random.default_rng(0)
    if levels is None:  # continuous, a few equal pairs
        S = rng.random((50, 300))
        S[:, 1::50] = S[:, ::50]
    else:
        S = rng.integers(0, levels, (50, 300)).astype(float)
    S[S == 0] = -np.inf
    idx, top, ties = _sort_rows(S)
    expected = np.argsort(-S, axis=1, kind="stable")
    assert_array_equal(idx, expected)
    assert_array_equal(top, np.take_along_axis(S, expected, axis=1))
    assert ties


def test_row_chunks_bound_the_scores_and_the_per_rank_arrays():
    row_bytes = 5000 * 8
    top_k = _select._row_chunks(2000, row_bytes, 10)  # per-rank arrays small
    whole = _select._row_chunks(2000, row_bytes, 5000)  # as wide as the rows
    assert top_k[0] == (0, _select._CHUNK_BYTES // row_bytes)
    assert whole[0] == (0, _select._RANK_CHUNK_BYTES // row_bytes)
    for chunks in (top_k, whole):  # every row once, in order
        rows = np.concatenate([np.arange(a, b) for a, b in chunks])
        assert_array_equal(rows, np.arange(2000))
    assert _select._row_chunks(3, 10**9, 10**9) == [(0, 1), (1, 2), (2, 3)]


def test_full_sort_says_when_there_is_no_tie():
    S = np.random.default_rng(0).random((20, 300))
    idx, top, ties = _sort_rows(S)
    assert not ties
    assert_array_equal(idx, np.argsort(-S, axis=1))


def test_tie_statistics_are_built_only_when_read():
    """NDCG reads the mean gains of the tie groups; the other statistics of
    the ranking (running counts of relevant items, ...) are never built."""
    Y, S = random_case(0, 6, 12, score_levels=3)
    rk = _rank.rank(Y, S, k=None, query_id=None, sample_weight=None)
    assert rk.groups._built == {}
    mean_gain = rk.mean_gain
    assert set(rk.groups._built) == {"mean_gain"}
    assert np.shares_memory(rk.at(4).mean_gain, mean_gain)  # built once
    assert_array_equal(rk.at(4).relevant_before, rk.relevant_before[:, :4])


# ---------------------------------------------------------------------------
# config_context, set_config, get_config
# ---------------------------------------------------------------------------
def test_config_context_nests_and_restores():
    assert srm.get_config() == {"n_threads": "auto"}
    with srm.config_context(n_threads=2):
        assert srm.get_config()["n_threads"] == 2
        with srm.config_context(n_threads=1):
            assert srm.get_config()["n_threads"] == 1
        with srm.config_context():  # None: unchanged
            assert srm.get_config()["n_threads"] == 2
        assert srm.get_config()["n_threads"] == 2
    assert srm.get_config()["n_threads"] == "auto"
    with pytest.raises(RuntimeError):
        with srm.config_context(n_threads=3):
            raise RuntimeError
    assert srm.get_config()["n_threads"] == "auto"


def test_get_config_returns_a_copy():
    config = srm.get_config()
    config["n_threads"] = 7
    assert srm.get_config()["n_threads"] == "auto"


@pytest.mark.parametrize(
    "value, error",
    [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)]
    + [("all", TypeError), ([2], TypeError)],
)
def test_n_threads_is_validated(value, error):
    with pytest.raises(error, match="n_threads"):
        srm.set_config(n_threads=value)
    with pytest.raises(error, match="n_threads"):
        with srm.config_context(n_threads=value):
            pass  # pragma: no cover
    assert srm.get_config()["n_threads"] == "auto"


def test_set_config_is_thread_local():
    seen = []
    with srm.config_context(n_threads=3):
        worker = threading.Thread(target=lambda: seen.append(srm.get_config()))
        worker.start()
        worker.join()
    assert seen == [{"n_threads": "auto"}]
    srm.set_config(n_threads=np.int64(2))
    try:
        assert srm.get_config()["n_threads"] == 2
    finally:
        srm.set_config(n_threads="auto")


def test_effective_n_threads():
    effective = _config.effective_n_threads
    assert effective(1) == 1  # nothing to share
    with srm.config_context(n_threads=4):
        assert effective(10) == 4
        assert effective(3) == 3  # no more threads than chunks
    assert 1 <= effective(1000) <= _config._available_cpus()


def test_auto_is_one_thread_inside_joblib_workers_and_under_limits():
    from joblib import Parallel, delayed
    from threadpoolctl import threadpool_limits

    def count():
        return _config.effective_n_threads(1000)

    for backend in ("threading", "loky"):
        counts = Parallel(n_jobs=2, backend=backend)(delayed(count)() for _ in "ab")
        assert counts == [1, 1], backend
    if _config._threadpool_limit() is not None:
        with threadpool_limits(limits=1):
            assert count() == 1
    with srm.config_context(n_threads=2):  # explicit: the user's choice
        assert count() == 2


def test_grid_search_with_n_jobs_runs_one_thread_per_worker(monkeypatch):
    """GridSearchCV(n_jobs=2) does not oversubscribe: its workers score
    with one thread each (the threading backend keeps the monkeypatch)."""
    from joblib import parallel_config
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    used = []
    original = _config.effective_n_threads

    def spy(n_tasks):
        used.append(original(1000))
        return original(n_tasks)

    monkeypatch.setattr(_select, "effective_n_threads", spy)
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 64)
    rng = np.random.default_rng(0)
    X, y = rng.random((60, 3)), rng.random((60, 4))
    scorer = srm.get_scorer("ndcg@3")
    with parallel_config(backend="threading"):
        GridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, scoring=scorer, n_jobs=2).fit(X, y)
    assert used and set(used) == {1}


def test_the_package_never_needs_pandas():
    """Without pandas (blocked) the package imports, and factorises ids
    with its numpy fallback (scikit-learn itself may import pandas, so the
    import is blocked rather than watched)."""
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "import numpy as np, sklearn_rankmetrics as srm\n"
        "from sklearn_rankmetrics._utils import _validation\n"
        "_validation._HASH_MIN_ROWS = 0\n"
        "ids = np.array(['b', 'a', 'b'], dtype=object)\n"
        "print(srm.ndcg_at_k([1, 0, 1], [0.3, 0.2, 0.1], query_id=ids))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "1.0"


# ---------------------------------------------------------------------------
# Long form: query ids factorised by hashing, queries of very unequal sizes
# ---------------------------------------------------------------------------
def _id_cases(rng, n_rows, n_queries):
    codes = rng.integers(0, n_queries, n_rows)
    strings = np.array([f"q{i:05d}" for i in rng.permutation(n_queries)])
    spread = rng.choice(2**62, n_queries, replace=False) - 2**61
    huge = np.uint64(2**63) + rng.choice(2**62, n_queries, replace=False).astype(
        np.uint64
    )
    return {
        "object str": strings.astype(object)[codes],
        "unicode": strings[codes],
        "spread int64": spread[codes],
        "uint64 above 2**63": huge[codes],
    }


@pytest.mark.parametrize("hash_min_rows", [0, 10**9])  # pandas / np.unique
def test_factorised_ids_match_np_unique(monkeypatch, hash_min_rows):
    from sklearn_rankmetrics._utils import _validation

    monkeypatch.setattr(_validation, "_HASH_MIN_ROWS", hash_min_rows)
    rng = np.random.default_rng(0)
    for label, ids in _id_cases(rng, 3000, 700).items():
        codes, uniques = _validation.check_query_id(ids, ids.shape[0])
        sortable = ids.astype(str) if ids.dtype == object else ids
        want_uniques, want_codes = np.unique(sortable, return_inverse=True)
        assert_array_equal(codes, want_codes.ravel(), err_msg=label)
        assert_array_equal(uniques.astype(want_uniques.dtype), want_uniques)
        assert uniques.dtype == ids.dtype, label


@pytest.mark.parametrize("hash_min_rows", [0, 10**9])
def test_long_form_ids_of_any_kind_give_the_same_values(monkeypatch, hash_min_rows):
    from sklearn_rankmetrics._utils import _validation

    monkeypatch.setattr(_validation, "_HASH_MIN_ROWS", hash_min_rows)
    rng = np.random.default_rng(1)
    n = 4000
    y = np.where(rng.random(n) < 0.2, rng.integers(1, 4, n), 0)
    s = np.round(rng.random(n), 2)
    cases = _id_cases(rng, n, 300)
    codes = np.unique(cases["spread int64"], return_inverse=True)[1].ravel()
    metrics = [
        partial(srm.ndcg_at_k, k=5),
        partial(srm.average_precision_at_k, k=5),
        srm.group_auc_score,
    ]
    for metric in metrics:
        want = metric(y, s, query_id=codes, average=None)
        for label, ids in cases.items():
            got = metric(y, s, query_id=ids, average=None)
            # per-query values come in the order of each kind's np.unique
            sortable = ids.astype(str) if ids.dtype == object else ids
            own = np.unique(sortable, return_inverse=True)[1].ravel()
            assert_array_equal(got[own], want[codes], err_msg=label)


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_whole_ranking_of_very_unequal_queries(ignore_ties):
    """k=None on the long form: one query of 3000 rows among 500 of 1-3
    rows; each query's value is the value of that query alone."""
    rng = np.random.default_rng(2)
    sizes = np.concatenate([[3000], rng.integers(1, 4, 500), [1]])
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = qid.shape[0]
    y = np.where(rng.random(n) < 0.3, rng.integers(1, 3, n), 0)
    s = np.round(rng.random(n), 2)
    s[rng.random(n) < 0.1] = -np.inf
    perm = rng.permutation(n)
    y, s, qid = y[perm], s[perm], qid[perm]
    for metric in METRICS:
        got = metric(
            y, s, query_id=qid, average=None, ignore_ties=ignore_ties, no_relevant=0.0
        )
        for q in (0, 1, 250, sizes.shape[0] - 1):
            rows = qid == q
            alone = metric(
                y[rows][None, :],
                s[rows][None, :],
                average=None,
                ignore_ties=ignore_ties,
                no_relevant=0.0,
            )
            np.testing.assert_allclose(got[q], alone[0], rtol=1e-12, atol=1e-15)


def test_averages_do_not_depend_on_the_blas_threads():
    """The weighted mean over queries is numpy's pairwise sum, not
    ``np.dot``, whose split over OpenBLAS's threads (more than 10,000
    items) changes the last bit with their number: a joblib worker (one
    BLAS thread) and the main process must agree bit for bit."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    for seed in range(4):
        rng = np.random.default_rng(seed)
        Y = (rng.random((40_000, 8)) < 0.3).astype(int)
        S = rng.random((40_000, 8))
        W = rng.random(40_000)
        per_query = srm.ndcg_at_k(Y, S, k=5, sample_weight=W, average=None)
        keep = ~np.isnan(per_query)
        expected = np.add.reduce(W[keep] * per_query[keep]) / W[keep].sum()
        got = srm.ndcg_at_k(Y, S, k=5, sample_weight=W)
        with threadpoolctl.threadpool_limits(1):
            one_blas_thread = srm.ndcg_at_k(Y, S, k=5, sample_weight=W)
        assert got == expected
        assert one_blas_thread == got
        report = srm.ranking_report(
            Y, S, k=5, metrics=["ndcg"], sample_weight=W, output_dict=True
        )
        assert report["ndcg@5"] == got
