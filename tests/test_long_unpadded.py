"""The long form at k=None is ranked in parts, not padded to its largest
query (issue 9), and its per-query values stay those of the 2-D form, bit
for bit, whatever the width each query is padded to."""

import tracemalloc

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._engine import _rank
from sklearn_rankmetrics._engine._rank import row_sum

# Widths on both sides of numpy's pairwise steps: 8 partial sums, blocks of
# 128 items, halves of longer rows.
SIZES = (1, 2, 5, 8, 9, 17, 64, 130, 300, 1000)

METRICS = {
    "precision": srm.precision_at_k,
    "recall": srm.recall_at_k,
    "f1": srm.f1_at_k,
    "hit_rate": srm.hit_rate_at_k,
    "mrr": srm.reciprocal_rank_at_k,
    "map": srm.average_precision_at_k,
    "dcg": srm.dcg_at_k,
    "ndcg": srm.ndcg_at_k,
    "r_precision": srm.r_precision_score,
    "fallout": srm.fallout_at_k,
    "rbp": srm.rank_biased_precision_at_k,
    "rbp_residual": srm.rbp_residual_at_k,
    "bpref": srm.bpref_score,
}


def _pad(x, width):
    out = np.zeros((x.shape[0], width))
    out[:, : x.shape[1]] = x
    return out


# ---------------------------------------------------------------------------
# row_sum
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_row_sum_does_not_depend_on_trailing_zeros(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 5))
        width = int(rng.choice([rng.integers(1, 20), rng.integers(1, 3000)]))
        x = rng.random((n, width)) * 10.0 ** rng.integers(-8, 9, (n, width))
        x *= rng.choice([-1.0, 1.0], (n, width))
        expected = row_sum(x)
        for more in (1, 7, int(rng.integers(1, 300)), int(rng.integers(300, 3000))):
            np.testing.assert_array_equal(row_sum(_pad(x, width + more)), expected)
        # a row alone, and any memory layout, give the same sums
        np.testing.assert_array_equal(row_sum(x[:1]), expected[:1])
        np.testing.assert_array_equal(row_sum(np.asfortranarray(x)), expected)
        # as accurate as a pairwise sum
        exact = np.array([np.sum(np.sort(r).astype(np.longdouble)) for r in x])
        scale = np.abs(x).sum(axis=1)
        assert np.all(np.abs(expected - exact) <= 1e-14 * scale)


def test_row_sum_is_numpys_sum_on_its_blocks():
    rng = np.random.default_rng(0)
    x = rng.random((3, 128))
    np.testing.assert_array_equal(row_sum(x), x.sum(axis=1))
    x = rng.random((3, 16))
    np.testing.assert_array_equal(row_sum(x), x.sum(axis=1))
    np.testing.assert_array_equal(row_sum(np.zeros((0, 300))), np.zeros(0))


def test_numpys_own_sum_depends_on_the_width():
    """Why row_sum exists: if this ever fails, numpy's sums no longer depend
    on trailing zeros, and row_sum could be plain ``x.sum(axis=1)``."""
    rng = np.random.default_rng(0)
    x = rng.random((200, 300))
    assert not np.array_equal(x.sum(axis=1), _pad(x, 1000).sum(axis=1))


# ---------------------------------------------------------------------------
# The long form at k=None against the 2-D form, query by query
# ---------------------------------------------------------------------------
def _skewed_long_form(rng, sizes, ties):
    qid = np.repeat(np.arange(len(sizes)), sizes)
    n = qid.size
    y_true = rng.choice([0.0, 0.0, 0.5, 1.0, 2.5, 3.0], n)
    y_score = rng.random(n)
    if ties:
        y_score = np.round(y_score, 1)
    y_score[rng.random(n) < 0.05] = -np.inf  # unretrieved rows
    perm = rng.permutation(n)
    return y_true[perm], y_score[perm], qid[perm] * 7 + 3


@pytest.mark.parametrize("part_cells", [None, 64, 4096])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("name", sorted(METRICS))
def test_long_form_k_none_equals_2d_per_query(monkeypatch, part_cells, ties, name):
    if part_cells is not None:
        monkeypatch.setattr(_rank, "_PART_CELLS", part_cells)
    rng = np.random.default_rng(len(name) + 10 * ties)
    sizes = rng.permutation(np.array([*SIZES, 3, 9, 130, 300]))
    y_true, y_score, qid = _skewed_long_form(rng, sizes, ties)
    func = METRICS[name]
    kw = {"no_relevant": 0.0, "average": None}
    if name not in ("r_precision", "bpref"):
        kw["k"] = None
    for ignore_ties in (False, True):
        long_values = func(y_true, y_score, query_id=qid, ignore_ties=ignore_ties, **kw)
        for i, q in enumerate(np.unique(qid)):
            rows = qid == q
            alone = func(
                y_true[rows][None], y_score[rows][None], ignore_ties=ignore_ties, **kw
            )
            assert long_values[i] == alone[0], (name, int(rows.sum()), ignore_ties)


@pytest.mark.parametrize("part_cells", [64, 4096])
def test_err_and_weights_over_parts(monkeypatch, part_cells):
    """ERR scales by the largest grade of every query, and the averages
    weight the queries: the parts do not change either."""
    rng = np.random.default_rng(1)
    sizes = rng.permutation(np.array(SIZES))
    # Without ties: a tie group's mean gain sums its gains in the order the
    # (unstable) sort leaves its rows, which may change with the rows
    # sorted together when the gains are not exact (2**g - 1 by expm1).
    y_true, y_score, qid = _skewed_long_form(rng, sizes, ties=False)
    y_true = np.round(y_true)
    w = rng.random(len(sizes))[np.searchsorted(np.unique(qid), qid)]
    calls = {
        "err": lambda **kw: srm.expected_reciprocal_rank_at_k(
            y_true, y_score, query_id=qid, k=None, **kw
        ),
        "ndcg": lambda **kw: srm.ndcg_at_k(y_true, y_score, query_id=qid, **kw),
        "map": lambda **kw: srm.average_precision_at_k(
            y_true, y_score, query_id=qid, **kw
        ),
    }
    whole = {}
    with monkeypatch.context() as m:
        m.setattr(_rank, "_PART_CELLS", 1 << 40)  # one ranking, padded
        for name, call in calls.items():
            whole[name] = (call(average=None), call(sample_weight=w))
    monkeypatch.setattr(_rank, "_PART_CELLS", part_cells)
    for name, call in calls.items():
        np.testing.assert_array_equal(call(average=None), whole[name][0])
        assert call(sample_weight=w) == whole[name][1]


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [1, 3, 10, "per_query"])
def test_long_form_with_k_over_parts(monkeypatch, k, ignore_ties):
    """With k, the parts are runs of consecutive queries at one width,
    min(k, largest query): the values are those of one ranking."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 30, 200)
    y_true, y_score, qid = _skewed_long_form(rng, sizes, ties=True)
    if k == "per_query":
        k = rng.integers(1, 12, sizes.size)
    w = rng.random(sizes.size)[np.searchsorted(np.unique(qid), qid)]
    options = dict(query_id=qid, k=k, ignore_ties=ignore_ties, no_relevant=0.0)
    funcs = [srm.ndcg_at_k, srm.precision_at_k, srm.average_precision_at_k]
    funcs += [srm.reciprocal_rank_at_k, srm.hit_rate_at_k]
    funcs += [srm.fallout_at_k, srm.rank_biased_precision_at_k]
    whole = {}
    monkeypatch.setattr(_rank, "_PART_CELLS", 1 << 40)
    for f in funcs:
        whole[f] = (
            f(y_true, y_score, average=None, **options),
            f(y_true, y_score, sample_weight=w, **options),
        )
    monkeypatch.setattr(_rank, "_PART_CELLS", 100)
    for f in funcs:
        np.testing.assert_array_equal(
            f(y_true, y_score, average=None, **options), whole[f][0]
        )
        assert f(y_true, y_score, sample_weight=w, **options) == whole[f][1]


def test_report_whole_list_metrics_over_parts(monkeypatch):
    rng = np.random.default_rng(2)
    sizes = rng.permutation(np.array(SIZES))
    y_true, y_score, qid = _skewed_long_form(rng, sizes, ties=True)
    options = dict(query_id=qid, k=5, metrics=["r_precision", "bpref", "ndcg"])
    options.update(per_query=True, output_dict=True)
    monkeypatch.setattr(_rank, "_PART_CELLS", 1 << 40)
    whole = srm.ranking_report(y_true, y_score, **options)
    monkeypatch.setattr(_rank, "_PART_CELLS", 64)
    parts = srm.ranking_report(y_true, y_score, **options)
    assert whole.keys() == parts.keys()
    for name in whole:
        np.testing.assert_array_equal(parts[name], whole[name])


# ---------------------------------------------------------------------------
# Memory: one large query among many small ones
# ---------------------------------------------------------------------------
def test_one_large_query_does_not_pad_the_others():
    # One 20,000-row query among 2,000 of 1-9 rows: one ranking padded to
    # the largest would hold 2001 x 20,000 cells (320 MB per array) for
    # 30,000 rows.
    rng = np.random.default_rng(0)
    sizes = np.concatenate([[20_000], rng.integers(1, 10, 2000)])
    qid = np.repeat(np.arange(sizes.size), sizes)
    y_true = (rng.random(qid.size) < 0.1).astype(np.float64)
    y_score = rng.random(qid.size)
    inputs = y_true.nbytes + y_score.nbytes + qid.nbytes
    srm.ndcg_at_k(y_true, y_score, query_id=qid)  # warm up
    tracemalloc.start()
    try:
        value = srm.ndcg_at_k(y_true, y_score, query_id=qid)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"peak {peak / inputs:.1f}x the inputs")
    assert peak < 10 * inputs, peak / inputs
    per_query = srm.ndcg_at_k(y_true, y_score, query_id=qid, average=None)
    big = srm.ndcg_at_k(y_true[:20_000][None], y_score[:20_000][None])
    assert per_query[0] == big
    assert value == pytest.approx(np.mean(per_query[~np.isnan(per_query)]), rel=1e-12)


@pytest.mark.parametrize("part_cells", [1, 50, 1000])
def test_gauc_over_runs_of_queries(monkeypatch, part_cells):
    """GAUC sorts the long form on runs of queries of bounded rows: the
    (query, score) order and the values are those of one sort."""
    rng = np.random.default_rng(part_cells)
    sizes = rng.integers(1, 40, 150)
    codes = rng.permutation(np.repeat(np.arange(sizes.size), sizes))
    key = np.round(rng.random(codes.size), 1)
    y = (rng.random(codes.size) < 0.3).astype(np.float64)
    w = rng.random(sizes.size)[codes]
    monkeypatch.setattr(_rank, "_PART_CELLS", 1 << 40)
    one = _rank.sorted_by_query(codes, sizes.size, key)
    whole = [
        srm.group_auc_score(y, key, query_id=codes, average=None),
        srm.group_auc_score(y, key, query_id=codes, sample_weight=w),
    ]
    monkeypatch.setattr(_rank, "_PART_CELLS", part_cells)
    runs = _rank.sorted_by_query(codes, sizes.size, key)
    np.testing.assert_array_equal(np.sort(runs), np.arange(codes.size))
    np.testing.assert_array_equal(codes[runs], codes[one])
    np.testing.assert_array_equal(key[runs], key[one])
    np.testing.assert_array_equal(
        srm.group_auc_score(y, key, query_id=codes, average=None), whole[0]
    )
    assert srm.group_auc_score(y, key, query_id=codes, sample_weight=w) == whole[1]
