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

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rankmetrics import group_auc_score
from sklearn_rankmetrics._metrics import _auc

pytestmark = pytest.mark.filterwarnings(
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
