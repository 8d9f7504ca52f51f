"""The engine's :class:`Ranking`: immutable, and readable at smaller cut-offs.

A ranking built once for the largest cut-off must give, at every smaller
``k``, exactly the per-query values of a ranking built for that ``k`` --
the report relies on it to rank the scores once for all its cut-offs.
"""

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

from sklearn_rankmetrics._engine._rank import rank
from sklearn_rankmetrics._metrics import _kernels
from sklearn_rankmetrics._registry import kernels
from tests._reference import random_case

KERNELS = {
    "precision": _kernels._precision_values,
    "recall": _kernels._recall_values,
    "f1": _kernels._fbeta_values,
    "hit_rate": _kernels._hit_rate_values,
    "mrr": _kernels._reciprocal_rank_values,
    "map": _kernels._average_precision_values,
    "dcg": _kernels._dcg_values,
    "ndcg": _kernels._ndcg_values,
}


def _forms(Y, S):
    """The same queries as 2-D, sparse and long-form inputs."""
    n, m = S.shape
    qid = np.repeat(np.arange(n), m)
    yield "dense", Y, S, None
    yield "sparse", sp.csr_matrix(Y), S, None
    yield "long", Y.ravel(), S.ravel(), qid


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("levels", [None, 3])
def test_ranking_at_smaller_k_equals_a_ranking_built_for_it(seed, ignore_ties, levels):
    Y, S = random_case(seed, 9, 12, score_levels=levels)
    for form, y_true, y_score, qid in _forms(Y, S):
        opts = dict(query_id=qid, sample_weight=None, ignore_ties=ignore_ties)
        wide = rank(y_true, y_score, k=8, need_ideal=True, **opts)
        for k in (1, 2, 3, 5, 8):
            narrow = rank(y_true, y_score, k=k, need_ideal=True, **opts)
            read = wide.at(k)
            assert read.k == k
            for name, kernel in KERNELS.items():
                assert_array_equal(
                    kernel(read), kernel(narrow), err_msg=f"{form} {name}@{k}"
                )
        # the whole list: a ranking for k=None reads at any k
        full = rank(y_true, y_score, k=None, need_ideal=True, **opts)
        narrow = rank(y_true, y_score, k=4, need_ideal=True, **opts)
        for name, kernel in KERNELS.items():
            assert_array_equal(kernel(full.at(4)), kernel(narrow), err_msg=name)


def test_ranking_is_immutable_and_refuses_larger_k():
    Y, S = random_case(0, 3, 5)
    rk = rank(Y, S, k=2, query_id=None, sample_weight=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rk.k = 3
    with pytest.raises(ValueError, match="k=2 at k=3"):
        rk.at(3)
    assert rk.ideal_gain is None  # only computed when asked for


def test_kernel_table_matches_the_public_functions():
    """Each KERNELS entry, averaged, is its public metric function."""
    import sklearn_rankmetrics as srm

    public = {
        "precision": srm.precision_at_k,
        "recall": srm.recall_at_k,
        "f1": srm.f1_at_k,
        "fbeta": srm.fbeta_at_k,
        "hit_rate": srm.hit_rate_at_k,
        "mrr": srm.reciprocal_rank_at_k,
        "map": srm.average_precision_at_k,
        "dcg": srm.dcg_at_k,
        "ndcg": srm.ndcg_at_k,
    }
    # The kernels of issue 12 (R-precision, ERR, ...) need more than a
    # ranking at k (see Kernel.requires): tests/test_new_metrics.py.
    assert set(public) <= set(kernels())
    Y, S = random_case(3, 7, 9, score_levels=4)
    options = {"beta": 2.0, "ap_denominator": "min_k", "log_base": 3.0}
    for name in public:
        kernel = kernels()[name]
        opts = {o: options[o] for o in kernel.options if o in options}
        rk = rank(Y, S, k=4, query_id=None, sample_weight=None, need_ideal=True)
        values = kernel.values(rk, **opts)
        values = np.where(getattr(rk, kernel.defined_by) > 0, values, np.nan)
        expected = public[name](Y, S, k=4, average=None, **opts)
        assert_array_equal(values, expected, err_msg=name)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("seed", range(6))
def test_whole_row_sort_order_of_ties_changes_no_value(seed, gain):
    # With integer grades a whole-row sort (k=None) leaves equal scores in
    # the sort's own order (_engine._sums_exact); float grades keep them in
    # column order.  Every per-query value must be the same bit for bit,
    # and the same again with the columns permuted.
    rng = np.random.default_rng(seed)
    n, m = 7, int(rng.integers(2, 60))
    Y = np.where(rng.random((n, m)) < 0.3, rng.integers(1, 4, (n, m)), 0)
    S = np.round(rng.random((n, m)), 1)  # many ties
    S[rng.random((n, m)) < 0.1] = -np.inf
    perm = rng.permutation(m)
    for name, kernel in KERNELS.items():
        values = [
            kernel(
                rank(
                    y,
                    s,
                    k=None,
                    query_id=None,
                    sample_weight=None,
                    gain=gain,
                    need_ideal=True,
                )
            )
            for y, s in ((Y, S), (Y.astype(np.float64), S), (Y[:, perm], S[:, perm]))
        ]
        assert_array_equal(values[0], values[1], err_msg=name)
        assert_array_equal(values[0], values[2], err_msg=name)


def test_sums_exact_only_for_small_integer_gains():
    from sklearn_rankmetrics._engine._select import _sums_exact

    Y = np.array([[0, 3, 1]])
    assert _sums_exact(Y, None, "linear")
    assert _sums_exact(Y.astype(bool), None, "linear")
    assert not _sums_exact(Y.astype(np.float64), None, "linear")
    assert not _sums_exact(np.array([[0, 60, 1]]), None, "exponential")
    assert _sums_exact(np.array([[0, 40, 1]]), None, "exponential")
    assert not _sums_exact(np.array([[0, 5000, 1]]), None, "exponential")
    assert _sums_exact(np.array([[0, 5000, 1]]), None, "linear")


def _sparse_grades_case(seed, n, m, levels):
    """Few graded items per row (the whole-row fast path's condition),
    scores with ties, -inf, and both signs of zero."""
    rng = np.random.default_rng(seed)
    Y = np.zeros((n, m), dtype=np.int64)
    for q in range(n):
        cols = rng.choice(m, int(rng.integers(0, m // 4 + 1)), replace=False)
        Y[q, cols] = rng.integers(1, 4, cols.size)
    S = np.round(rng.random((n, m)) * levels) / levels - 0.5
    S[S == 0] = rng.choice([0.0, -0.0], int((S == 0).sum()))
    S[rng.random((n, m)) < 0.1] = -np.inf
    return Y, S


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_whole_row_placed_grades_equal_the_argsort_path(
    seed, ignore_ties, gain, monkeypatch
):
    # k=None with few graded items sorts the scores' values and places the
    # graded items (_select._sort_values_place_graded): every per-query
    # value must equal, bit for bit, the argsort path's and the long
    # form's, with integer and float grades, ties or none.
    from sklearn_rankmetrics._engine import _select

    rng = np.random.default_rng(seed)
    m = int(rng.integers(4, 80))
    Y, S = _sparse_grades_case(seed, 9, m, levels=int(rng.choice([3, 10, 10**6])))
    cases = [(Y, S), (Y.astype(np.float64), S), (Y > 0, S)]
    opts = dict(
        k=None, sample_weight=None, gain=gain, ignore_ties=ignore_ties, need_ideal=True
    )
    placed = [
        {n: kern(rank(y, s, query_id=None, **opts)) for n, kern in KERNELS.items()}
        for y, s in cases
    ]
    qid = np.repeat(np.arange(9), m)
    long = [
        {
            n: kern(rank(y.ravel(), s.ravel(), query_id=qid, **opts))
            for n, kern in KERNELS.items()
        }
        for y, s in cases
    ]
    monkeypatch.setattr(_select, "_sort_values_place_graded", lambda *a: None)
    for case, (y, s) in enumerate(cases):
        rk = rank(y, s, query_id=None, **opts)
        for name, kernel in KERNELS.items():
            expected = kernel(rk)
            assert_array_equal(placed[case][name], expected, err_msg=name)
            assert_array_equal(long[case][name], expected, err_msg=name)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("form", ["2-D", "long"])
def test_relevant_runs_kernels_equal_the_per_rank_fields(seed, form, monkeypatch):
    # With ties at k=None, MAP and MRR sum over the ranks of the runs that
    # hold a relevant item only (_ranking._RelevantRuns): bit for bit the
    # values of their per-rank formulas over every rank, with integer,
    # float and boolean grades, -inf, signed zeros and rows without
    # relevant items.
    from sklearn_rankmetrics._engine import _rank

    rng = np.random.default_rng(seed)
    n, m = 9, int(rng.integers(2, 60))
    Y, S = _sparse_grades_case(seed, n, m, levels=int(rng.choice([2, 3, 10])))
    Y[0] = 0
    Y[1] = rng.integers(0, 3, m)  # more than a quarter graded
    S[2] = 0.25  # one run: ties in every case
    qid = np.repeat(np.arange(n), m) if form == "long" else None
    kernels = {
        "mrr": _kernels._reciprocal_rank_values,
        "map": _kernels._average_precision_values,
        "map min_k": lambda rk: _kernels._average_precision_values(rk, "min_k"),
    }
    opts = dict(k=None, sample_weight=None, gain="linear", need_ideal=True)
    for y in (Y, Y.astype(np.float64) / 2, Y > 0):
        for threshold in (None, 1.0):
            if threshold is not None and y.dtype == bool:
                continue
            ys, ss = (y.ravel(), S.ravel()) if qid is not None else (y, S)
            rk = rank(
                ys, ss, query_id=qid, ignore_ties=False, threshold=threshold, **opts
            )
            assert rk.groups.runs() is not None
            sparse = {name: kern(rk) for name, kern in kernels.items()}
            with monkeypatch.context() as patch:
                patch.setattr(_rank.TieGroups, "runs", lambda self: None)
                for name, kern in kernels.items():
                    assert_array_equal(sparse[name], kern(rk), err_msg=name)


@pytest.mark.parametrize("seed", range(6))
def test_whole_row_placed_grades_match_brute_force(seed):
    # ... and the exact expected value over every ordering of tied items.
    from tests import _reference

    Y, S = _sparse_grades_case(seed, 6, 8, levels=3)
    for name in ("ndcg_at_k", "average_precision_at_k", "reciprocal_rank_at_k"):
        import sklearn_rankmetrics as srm

        ours = getattr(srm, name)(Y, S, average=None)
        naive = getattr(_reference, "naive_" + name)(Y, S, average=None)
        np.testing.assert_allclose(ours, naive, rtol=1e-12, atol=1e-12, err_msg=name)
