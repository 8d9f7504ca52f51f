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


# ---------------------------------------------------------------------------
# Scores sorted by radix passes (_select.sort_order)
# ---------------------------------------------------------------------------
_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-310, -1e-310, 3.0, 2.0**60]
_FLOATS += [-(2.0**60), np.inf, -np.inf, np.finfo(float).max, -np.finfo(float).max]


def _stable_desc(key):
    """The stable decreasing order of a float64 or int64 key (``~x``
    reverses int64 without overflow; ``-x`` makes -0.0 and 0.0 equal)."""
    return np.argsort(~key if key.dtype.kind == "i" else -key, kind="stable")


@pytest.mark.parametrize("seed", range(12))
def test_sort_order_is_the_stable_argsort(seed, monkeypatch):
    # float64 keys from a pool of edge values (both zeros, subnormals,
    # infinities, the extremes) and random ones, int64 keys with the
    # extremes; each below and above the radix limit (the comparison sort
    # and the radix passes), ascending and descending: always numpy's
    # stable order, equal keys (-0.0 and 0.0 among them) in input order
    from sklearn_rankmetrics._engine import _select

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    floats = np.where(
        rng.random(n) < 0.5,
        rng.choice(_FLOATS, n),
        np.round(rng.normal(size=n) * 10.0 ** rng.integers(-3, 4), 2),
    )
    info = np.iinfo(np.int64)
    ints = rng.integers(info.min, info.max, n, endpoint=True)
    ints[rng.random(n) < 0.2] = rng.choice([info.min, info.max, 0, -1, 1])
    ints[rng.random(n) < 0.3] = ints[0]  # ties
    for limit in (1, n + 1):
        monkeypatch.setattr(_select, "_RADIX_MIN_ROWS", limit)
        for key in (floats, ints):
            before = key.copy()
            assert_array_equal(_select.sort_order(key), np.argsort(key, kind="stable"))
            want = _stable_desc(key)
            assert_array_equal(_select.sort_order(key, descending=True), want)
            if key.dtype.kind == "f":
                assert_array_equal(_select._argsort_desc(key, stable=True), want)
            assert_array_equal(key, before)  # the input is left alone
    # NaN keys, other dtypes: numpy's own stable sort
    monkeypatch.setattr(_select, "_RADIX_MIN_ROWS", 1)
    nan = floats.copy()
    nan[:: max(1, n // 5)] = np.nan
    assert _select._ordered_bits(nan, False) is None
    assert_array_equal(_select.sort_order(nan), np.argsort(nan, kind="stable"))
    assert_array_equal(
        _select.sort_order(nan, descending=True), np.argsort(-nan, kind="stable")
    )
    with np.errstate(over="ignore"):  # float64's extremes: inf
        f32 = floats.astype(np.float32)
    assert_array_equal(_select.sort_order(f32), np.argsort(f32, kind="stable"))


def test_tie_order_free_only_for_integer_linear_gains():
    from sklearn_rankmetrics._engine._select import _tie_order_free

    assert _tie_order_free(np.array([0.0, 3.0, 1.0]), "linear")
    assert _tie_order_free(np.array([0, 3, 1]), "linear")
    assert not _tie_order_free(np.array([0.0, 0.5, 1.0]), "linear")
    assert not _tie_order_free(np.array([0.0, 3.0, 1.0]), "exponential")
    assert not _tie_order_free(np.array([0.0, 3.0, 1.0]), lambda g: g)
    assert not _tie_order_free(np.array([0.0, 2.0**40] * 4096), "linear")
    assert _tie_order_free(np.array([0.0, 2.0**40] * 1024), "linear")
    assert not _tie_order_free(np.array([0.0, np.inf]), "linear")
    assert not _tie_order_free(np.array([]), "linear")


def _long_ties_case(seed, n_rows=6000):
    """A long form of many rows (above the radix limit) with tied scores,
    both zeros, -inf, integer or fractional grades."""
    rng = np.random.default_rng(seed)
    n_q = int(rng.choice([40, 700, 3000]))
    q = rng.integers(0, n_q, n_rows)
    s = np.round(rng.normal(size=n_rows), 1)
    zero = rng.random(n_rows) < 0.1
    s[zero] = rng.choice([0.0, -0.0], int(zero.sum()))
    s[rng.random(n_rows) < 0.05] = -np.inf
    grades = rng.integers(0, 4, n_rows) * (rng.random(n_rows) < 0.4)
    return q, s, grades, rng


@pytest.mark.parametrize("seed", range(3))
def test_radix_passes_change_no_long_form_value(seed, monkeypatch):
    # Every registry metric in the long form, with the radix passes used
    # for every sort (the limit 1) and for none: the same values bit for
    # bit.  Integer grades sort tied rows stably (their sums are exact in
    # any order); fractional grades (and IPS weights, the exponential gain)
    # keep the comparison sort's order, as a stable order would move their
    # sums by an ulp -- so this fails if _tie_order_free lets them through.
    import warnings

    import sklearn_rankmetrics as srm
    from sklearn_rankmetrics import _registry
    from sklearn_rankmetrics._engine import _select

    q, s, grades, rng = _long_ties_case(seed)
    fractional = np.round(grades * rng.uniform(0.1, 1.0, grades.size), 3)
    p = rng.uniform(0.05, 1.0, grades.size)
    w = rng.uniform(0.5, 2.0, q.max() + 1)[q]
    calls = []
    for y in (grades, grades.astype(np.float64), fractional):
        for name, spec in _registry.METRICS.items():
            for opt in ({}, {"ignore_ties": True}, {"gain": "exponential"}):
                calls.append((spec.function, y, {"k": 10, **opt}, name))
            calls.append((spec.function, y, {"k": None, "sample_weight": w}, name))
            if spec.propensity:
                calls.append((spec.function, y, {"k": 10, "propensity": p}, name))
        calls.append((srm.group_auc_score, (y > 0).astype(int), {}, "gauc"))
    values = {}
    for limit in (1, 1 << 40):
        monkeypatch.setattr(_select, "_RADIX_MIN_ROWS", limit)
        for i, (func, y, kw, name) in enumerate(calls):
            kw = {key: v for key, v in kw.items() if key != "k" or _has_k(func)}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = func(y, s, query_id=q, average=None, **kw)
            except (TypeError, ValueError) as exc:  # an option the metric refuses
                got = repr(exc)
            if limit == 1:
                values[i] = got
            elif isinstance(got, str):
                assert values[i] == got, (name, kw)
            else:
                assert_array_equal(values[i], got, err_msg=f"{name} {kw}")
    assert sum(not isinstance(v, str) for v in values.values()) > len(calls) // 2


def _has_k(func):
    import inspect

    return "k" in inspect.signature(func).parameters


@pytest.mark.parametrize("seed", range(3))
def test_signed_zero_scores_are_one_score_in_the_long_form(seed):
    # -0.0 == 0.0: rows scored -0.0 and 0.0 are tied, and with ignore_ties
    # a tie keeps the rows' order, whichever zero each row holds (the radix
    # passes read the float's bits, in which -0.0 sorts below 0.0)
    import sklearn_rankmetrics as srm

    q, s, grades, _ = _long_ties_case(seed)
    plus = np.where(s == 0, 0.0, s)
    assert np.signbit(s[s == 0]).any() and not np.signbit(plus[plus == 0]).any()
    for func in (srm.ndcg_at_k, srm.average_precision_at_k, srm.precision_at_k):
        for ignore_ties in (False, True):
            a = func(grades, s, k=5, query_id=q, average=None, ignore_ties=ignore_ties)
            b = func(
                grades, plus, k=5, query_id=q, average=None, ignore_ties=ignore_ties
            )
            assert_array_equal(a, b, err_msg=f"{func.__name__} {ignore_ties}")
    yb = (grades > 0).astype(int)
    assert_array_equal(
        srm.group_auc_score(yb, s, query_id=q, average=None),
        srm.group_auc_score(yb, plus, query_id=q, average=None),
    )
