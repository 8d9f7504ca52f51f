"""GAUC without a sort, and in ``factor_ranking_report`` beside the candidates
(issue 31, goal 1).

A user's AUC needs only its positives' places among its candidates: for
each positive, the candidate negatives scored below it and those tied with
it.  ``_auc_2d`` counts them (two passes over the row per positive) in the
rows with few positives and sorts the others; the factor report reads each
tile's whole rows for GAUC while its top-k metrics rank the candidates.
Every value must be the sorted form's, bit for bit, and the brute-force
AUC over every (positive, candidate negative) pair.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rankmetrics import (
    factor_ranking_report,
    group_auc_score,
    ranking_report,
)
from sklearn_rankmetrics._metrics import _auc
from sklearn_rankmetrics._utils._conventions import CONVENTIONS

pytestmark = pytest.mark.filterwarnings(
    "ignore:exclude removes:UserWarning",
    "ignore::sklearn.exceptions.UndefinedMetricWarning",
)


def _brute_row(labels, scores):
    """AUC of one row over every (positive, candidate negative) pair; a tie
    counts 1/2, a positive scored -inf beats no candidate; nan without a
    positive or a candidate negative."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y]
    neg = [s for y, s in zip(labels, scores, strict=True) if not y and s > -math.inf]
    if not pos or not neg:
        return math.nan, len(pos), len(neg)
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg)), len(pos), len(neg)


def _assert_same(got, ref):
    for a, b in zip(got, ref, strict=True):
        if b is None:
            assert a is None
        else:
            np.testing.assert_array_equal(np.asarray(a, dtype=float), b)


def _random_case(rng, n, m, levels, p_inf, p_pos, grades=3):
    values = np.concatenate([rng.normal(size=levels), [np.inf]])
    S = rng.choice(values, size=(n, m))
    S[rng.random((n, m)) < p_inf] = -np.inf
    Y = rng.integers(1, grades + 1, size=(n, m)) * (rng.random((n, m)) < p_pos)
    return Y, S


# ---------------------------------------------------------------------------
# _auc_2d against the sorted rows and brute force
# ---------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 9),
    m=st.integers(1, 40),
    levels=st.integers(1, 6),
    p_inf=st.sampled_from([0.0, 0.2, 0.7]),
    p_pos=st.sampled_from([0.0, 0.1, 0.4, 0.9]),
    threshold=st.sampled_from([None, 2]),
    constant=st.booleans(),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_counted_rows_equal_the_sorted_rows(
    seed, n, m, levels, p_inf, p_pos, threshold, constant, dtype
):
    # Ties (few score levels), -inf positives and negatives, +inf, rows
    # without positives, without candidate negatives, all -inf, and rows
    # with more positives than the counting takes (sorted, then merged).
    rng = np.random.default_rng(seed)
    Y, S = _random_case(rng, n, m, levels, p_inf, p_pos)
    S = S.astype(dtype)
    labels = Y > 0 if threshold is None else Y >= threshold
    # (_constant_scores raises IndexError when no row is read at all: fixed
    # on another branch; brute force below covers that input)
    sortable = not constant or (labels | (S > -np.inf)).any()
    for form, y in (("dense", Y), ("sparse", sp.csr_matrix(Y))):
        got = _auc._auc_2d(y, S, form, threshold, constant)
        if sortable:
            _assert_same(got, _auc._sorted_rows(y, S, form, threshold, constant))
    for i in range(n):
        auc, n_pos, n_neg = _brute_row(labels[i].tolist(), S[i].tolist())
        assert got[1][i] == n_pos and got[2][i] == n_neg
        assert got[0][i] == pytest.approx(auc, rel=1e-15, nan_ok=True)
        if constant:
            read = S[i][labels[i] | (S[i] > -np.inf)]
            assert got[3][i] == (np.unique(read).size == 1)


def test_counted_rows_hand_worked():
    # Row 0: positives at scores 3 and 1, negatives 2, 1, -inf (not a
    # candidate).  Positive 3 beats 2 and 1: 2; positive 1 ties with 1:
    # 0.5.  AUC = 2.5 / (2 positives x 2 candidate negatives) = 0.625.
    # Row 1: a positive at -inf beats nothing, a positive at 0 beats -1 and
    # ties 0: 1.5; AUC = 1.5 / (2 x 2) = 0.375.
    # Row 2: one positive, every other item -inf: no candidate negative.
    S = np.array(
        [
            [3.0, 1.0, 2.0, 1.0, -np.inf],
            [-np.inf, 0.0, -1.0, 0.0, -np.inf],
            [5.0, -np.inf, -np.inf, -np.inf, -np.inf],
        ]
    )
    Y = np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0]])
    auc, n_pos, n_neg, _ = _auc._auc_2d(Y, S, "dense", None)
    np.testing.assert_array_equal(auc, [0.625, 0.375, np.nan])
    np.testing.assert_array_equal(n_pos, [2, 2, 1])
    np.testing.assert_array_equal(n_neg, [2, 2, 0])


def test_counting_does_not_sort_and_heavy_rows_do(monkeypatch):
    rng = np.random.default_rng(0)
    n, m = 130, 300  # three blocks of rows; at most 18 positives are counted
    S = np.round(rng.normal(size=(n, m)), 1)
    Y = (rng.random((n, m)) < 0.02).astype(int)
    Y[7, :40] = 1  # a row with 40+ positives: sorted
    ref = _auc._sorted_rows(Y, S, "dense", None, True)
    sorted_rows = []
    original = _auc._sorted_form

    def spy(Y, S, form, threshold):
        sorted_rows.append(S.shape[0])
        return original(Y, S, form, threshold)

    monkeypatch.setattr(_auc, "_sorted_form", spy)
    _assert_same(_auc._auc_2d(Y, S, "dense", None, True), ref)
    assert sorted_rows == [1]  # only the heavy row
    Y[7, :40] = 0
    sorted_rows.clear()
    _auc._auc_2d(Y, S, "dense", None)
    assert sorted_rows == []


@pytest.mark.parametrize("weighting", ["impressions", "uniform", "clicks"])
@pytest.mark.parametrize("constant", ["keep", "skip"])
def test_group_auc_score_2d_against_brute_force(weighting, constant):
    rng = np.random.default_rng(3)
    Y, S = _random_case(rng, 60, 25, 4, 0.2, 0.15)
    S[5] = 1.5  # constant scores
    S[6] = -np.inf
    labels = Y > 0
    values, weights = [], []
    for i in range(S.shape[0]):
        auc, n_pos, n_neg = _brute_row(labels[i].tolist(), S[i].tolist())
        if constant == "skip" and len(set(S[i][labels[i] | (S[i] > -np.inf)])) == 1:
            auc = math.nan
        values.append(auc)
        weights.append({"impressions": n_pos + n_neg, "uniform": 1, "clicks": n_pos})
    values = np.array(values)
    w = np.array([x[weighting] for x in weights], dtype=float)
    keep = ~np.isnan(values)
    expected = np.sum(values[keep] * w[keep]) / np.sum(w[keep])
    for y in (Y, sp.csr_matrix(Y)):
        got = group_auc_score(y, S, query_weighting=weighting, constant_scores=constant)
        assert got == pytest.approx(expected, rel=1e-14)


# ---------------------------------------------------------------------------
# factor_ranking_report: GAUC from each tile's whole rows
# ---------------------------------------------------------------------------
def _catalogue(seed, n_users=300, n_items=400, d=8, rounded=True, dtype=np.float64):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n_users, d))
    V = rng.normal(size=(n_items, d))
    if rounded:  # exact products, many ties
        U, V = np.round(U), np.round(V)
    Y = rng.integers(1, 4, size=(n_users, n_items)) * (
        rng.random((n_users, n_items)) < 0.02
    )
    Y[:5] = 0  # users without held-out items
    Y[5, :60] = 2  # a user with many: its AUC from the sorted row
    train = sp.random(n_users, n_items, density=0.05, random_state=seed, format="csr")
    train = train.toarray() != 0
    train[6] = True  # every item excluded: no candidate
    train[6, 0] = False
    return U.astype(dtype), V.astype(dtype), Y, train


def _dense(U, V, train):
    S = U @ V.T
    S[train] = -np.inf
    return S


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    "metrics",
    [["gauc"], ["ndcg", "gauc"], ["gauc", "map", "catalog_coverage", "recall"]],
    ids=str,
)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"query_weighting": "uniform", "constant_scores": "skip"},
        {"query_weighting": "clicks", "relevance_threshold": 2},
    ],
    ids=str,
)
def test_factor_gauc_bit_for_bit(seed, metrics, options):
    U, V, Y, train = _catalogue(seed)
    S = _dense(U, V, train)
    if "relevance_threshold" in options and "catalog_coverage" in metrics:
        metrics = [m for m in metrics if m != "catalog_coverage"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(
            Y, S, k=(1, 5), metrics=metrics, output_dict=True, **options
        )
    for y, excl, wm, n_threads in (
        (Y, train, None, 1),
        (sp.csr_matrix(Y), sp.csr_matrix(train), 0.3, 2),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = factor_ranking_report(
                y,
                U,
                V,
                exclude=excl,
                k=(1, 5),
                metrics=metrics,
                output_dict=True,
                working_memory=wm,
                n_threads=n_threads,
                **options,
            )
        assert list(got) == list(ref)
        for name in ref:
            assert np.array_equal(got[name], ref[name], equal_nan=True), name


def test_factor_gauc_per_user_float32_and_callable():
    U, V, Y, train = _catalogue(4, rounded=False, dtype=np.float32)
    S = _dense(U, V, train)  # float32 products, as the report's tiles
    metrics = ["ndcg", "gauc"]
    ref = ranking_report(Y, S, k=5, metrics=metrics, output_dict=True, per_query=True)
    got = factor_ranking_report(
        Y, U, V, exclude=train, k=5, metrics=metrics, output_dict=True, per_query=True
    )
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)
    # the brute-force AUC of every user
    labels = Y > 0
    for u in range(0, U.shape[0], 7):
        auc, _, _ = _brute_row(labels[u].tolist(), S[u].tolist())
        assert got["gauc"][u] == pytest.approx(auc, rel=1e-15, nan_ok=True)
    got = factor_ranking_report(
        Y,
        lambda users: U[users] @ V.T,
        exclude=train,
        k=5,
        metrics=metrics,
        output_dict=True,
        per_query=True,
        working_memory=0.05,
    )
    for name in ref:
        np.testing.assert_array_equal(got[name], ref[name], err_msg=name)


@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
def test_factor_gauc_conventions(convention):
    U, V, Y, train = _catalogue(1, n_users=80)
    S = _dense(U, V, train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranking_report(
            Y, S, k=3, metrics=["gauc", "ndcg"], convention=convention, output_dict=True
        )
        got = factor_ranking_report(
            Y,
            U,
            V,
            exclude=train,
            k=3,
            metrics=["gauc", "ndcg"],
            convention=convention,
            output_dict=True,
        )
    np.testing.assert_equal(got, ref)


def test_factor_gauc_reads_candidates_and_never_sorts(monkeypatch):
    # Beside GAUC the top-k metrics keep the candidate path, and GAUC's
    # tiles are counted, not sorted (every user has few positives here).
    from sklearn_rankmetrics._evaluation import _factor

    U, V, Y, train = _catalogue(2)
    Y[5] = 0  # no user with many positives
    train[6] = False  # (a user with a single candidate takes the whole rows)
    S = _dense(U, V, train)
    ref = ranking_report(Y, S, k=5, metrics=["map", "gauc"], output_dict=True)
    packed = []
    original = _factor._candidates

    def spy(S, Yb, k):
        out = original(S, Yb, k)
        packed.append(out is not None)
        return out

    def no_sort(*args):
        raise AssertionError("GAUC sorted a row")

    monkeypatch.setattr(_factor, "_candidates", spy)
    monkeypatch.setattr(_auc, "_sorted_form", no_sort)
    got = factor_ranking_report(
        Y, U, V, exclude=train, k=5, metrics=["map", "gauc"], output_dict=True
    )
    assert got == ref
    assert packed and all(packed)


def test_factor_gauc_options_refused_as_ranking_report():
    U, V, Y, train = _catalogue(0, n_users=20, n_items=50)
    for bad, match in (
        ({"query_weighting": "x"}, "query_weighting"),
        ({"constant_scores": "x"}, "constant_scores"),
        ({"undefined_value": 0.5}, "undefined_value"),
    ):
        with pytest.raises(ValueError, match=match):
            factor_ranking_report(Y, U, V, metrics=["gauc"], **bad)
        with pytest.raises(ValueError, match=match):
            ranking_report(Y, _dense(U, V, train), metrics=["gauc"], **bad)


@pytest.mark.parametrize("metrics", [["gauc"], ["ndcg"], ["catalog_coverage"]])
def test_nan_products_are_refused(metrics, monkeypatch):
    # A product of finite factors may overflow to inf - inf = NaN (a BLAS
    # that sums partial products of opposite signs): an error, never a NaN
    # score dropped from the candidates or from GAUC's counts.
    from sklearn_rankmetrics._evaluation import _tiling

    original = _tiling._tiled_product

    def nan_product(U, VT, start, stop, tile, out=None):
        S = original(U, VT, start, stop, tile, out)
        S[-1, 3] = np.nan
        return S

    monkeypatch.setattr(_tiling, "_tiled_product", nan_product)
    U, V, Y, _ = _catalogue(0, n_users=40, n_items=600)
    with pytest.raises(ValueError, match="NaN"):
        factor_ranking_report(Y, U, V, k=5, metrics=metrics)
