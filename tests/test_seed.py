"""Seed note 001's worked example, k = 5.

Ranked lists (item ids, best first) and relevant sets of three users, items
0..21; items not in a user's list are not retrieved (score -inf)::

    R = [[2, 5, 1, 3, 9], [6, 2, 0, 12, 8], [1, 6, 7, 11, 2]]
    T = [[3, 10, 7, 21], [15, 0, 5, 2, 13], [19]]

Hits in the top 5:
    user 0: item 3 at rank 4                  (1 hit,  R = 4)
    user 1: item 2 at rank 2, item 0 at rank 3 (2 hits, R = 5)
    user 2: none                               (0 hits, R = 1)
"""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm
from tests._reference import NAIVE

RANKED = [[2, 5, 1, 3, 9], [6, 2, 0, 12, 8], [1, 6, 7, 11, 2]]
RELEVANT = [[3, 10, 7, 21], [15, 0, 5, 2, 13], [19]]
N_ITEMS = 22
K = 5


def seed_arrays():
    """The 2-D form: y_true[u, item] = 1 if relevant; y_score = 5, 4, ..., 1
    down each ranked list, -inf for the items not in it."""
    y_true = np.zeros((3, N_ITEMS), dtype=int)
    y_score = np.full((3, N_ITEMS), -np.inf)
    for u, (ranked, relevant) in enumerate(zip(RANKED, RELEVANT, strict=True)):
        y_true[u, relevant] = 1
        y_score[u, ranked] = np.arange(len(ranked), 0, -1)
    return y_true, y_score


Y_TRUE, Y_SCORE = seed_arrays()


def _d(rank):
    """1 / log2(rank + 1)"""
    return 1.0 / math.log2(rank + 1)


def test_arrays_match_the_note():
    # Sanity check of the construction: the top-5 of each row are R's lists.
    for u in range(3):
        order = np.argsort(-Y_SCORE[u], kind="stable")[:K]
        assert list(order) == RANKED[u]
        assert set(np.flatnonzero(Y_TRUE[u])) == set(RELEVANT[u])


def test_precision():
    # per user: 1/5, 2/5, 0/5 -> mean (0.2 + 0.4 + 0) / 3 = 0.2
    assert srm.precision_at_k(Y_TRUE, Y_SCORE, k=K) == pytest.approx(0.2)
    # micro: (1 + 2 + 0) / (5 + 5 + 5) = 3/15 = 0.2 (the note's formula)
    p = srm.precision_at_k(Y_TRUE, Y_SCORE, k=K, average="micro")
    assert p == pytest.approx(0.2)
    assert_allclose(
        srm.precision_at_k(Y_TRUE, Y_SCORE, k=K, average=None), [0.2, 0.4, 0.0]
    )


def test_recall():
    # per user: 1/4, 2/5, 0/1 -> mean (0.25 + 0.4 + 0) / 3 = 0.65/3 = 0.21667
    r = srm.recall_at_k(Y_TRUE, Y_SCORE, k=K)
    assert r == pytest.approx(0.65 / 3)
    assert round(r, 5) == 0.21667
    # micro: (1 + 2 + 0) / (4 + 5 + 1) = 3/10 = 0.3 (the note's formula)
    assert srm.recall_at_k(Y_TRUE, Y_SCORE, k=K, average="micro") == pytest.approx(0.3)


def test_f1():
    # micro: F1 of the pooled P = 0.2 and R = 0.3: 2 * 0.2 * 0.3 / 0.5 = 0.24
    f = srm.f1_at_k(Y_TRUE, Y_SCORE, k=K, average="micro")
    assert f == pytest.approx(0.24)
    # per user: 2 * 0.2 * 0.25 / 0.45 = 2/9, 2 * 0.4 * 0.4 / 0.8 = 0.4, 0
    # mean (2/9 + 0.4 + 0) / 3 = 0.207407...
    f = srm.f1_at_k(Y_TRUE, Y_SCORE, k=K)
    assert f == pytest.approx((2 / 9 + 0.4) / 3)
    # F-beta at beta = 1 is F1.
    f = srm.fbeta_at_k(Y_TRUE, Y_SCORE, k=K, beta=1.0, average="micro")
    assert f == pytest.approx(0.24)
    # F2 micro: 5 * P * R / (4 * P + R) = 5 * 0.06 / (0.8 + 0.3) = 0.3/1.1
    f = srm.fbeta_at_k(Y_TRUE, Y_SCORE, k=K, beta=2.0, average="micro")
    assert f == pytest.approx(0.3 / 1.1)


def test_hit_rate():
    # hits in the top 5: yes, yes, no -> 2/3 = 0.6667
    hr = srm.hit_rate_at_k(Y_TRUE, Y_SCORE, k=K)
    assert hr == pytest.approx(2 / 3)
    assert round(hr, 4) == 0.6667


def test_mrr():
    # first hit at rank 4, rank 2, none -> (1/4 + 1/2 + 0) / 3 = 0.25
    assert srm.reciprocal_rank_at_k(Y_TRUE, Y_SCORE, k=K) == pytest.approx(0.25)


def test_map():
    # user 0: P@4 = 1/4 at the hit; divided by R = 4 -> 1/16 = 0.0625
    # user 1: P@2 = 1/2, P@3 = 2/3; (1/2 + 2/3) / R = (7/6) / 5 = 7/30
    # user 2: 0
    # MAP@5 = (1/16 + 7/30 + 0) / 3 = 0.098611...
    m = srm.average_precision_at_k(Y_TRUE, Y_SCORE, k=K)
    assert m == pytest.approx((1 / 16 + 7 / 30) / 3)
    assert round(m, 6) == 0.098611
    # ap_denominator="min_k": min(R, 5) = 4, 5, 1 -> the same here.
    m = srm.average_precision_at_k(Y_TRUE, Y_SCORE, k=K, ap_denominator="min_k")
    assert m == pytest.approx((1 / 16 + 7 / 30) / 3)


def test_ndcg():
    # user 0: DCG = 1/log2(5) (hit at rank 4); R = 4 relevant items, so
    #   IDCG@5 = 1/log2(2) + 1/log2(3) + 1/log2(4) + 1/log2(5) = 2.561606
    #   NDCG = 0.430677 / 2.561606 = 0.168128
    # user 1: DCG = 1/log2(3) + 1/log2(4) = 1.130930 (ranks 2 and 3); R = 5:
    #   IDCG@5 = 2.561606 + 1/log2(6) = 2.948459
    #   NDCG = 1.130930 / 2.948459 = 0.383566
    # user 2: 0 (R = 1, no hit)
    # NDCG@5 = (0.168128 + 0.383566 + 0) / 3 = 0.183898
    idcg0 = _d(1) + _d(2) + _d(3) + _d(4)
    idcg1 = idcg0 + _d(5)
    ndcg0 = _d(4) / idcg0
    ndcg1 = (_d(2) + _d(3)) / idcg1
    n = srm.ndcg_at_k(Y_TRUE, Y_SCORE, k=K)
    assert n == pytest.approx((ndcg0 + ndcg1) / 3, rel=1e-12)
    assert round(n, 6) == 0.183898
    # The note's 0.37470 normalises each user by the ideal order of its
    # hits only (user 0: 1 ideal item, user 1: 2); SPEC "Known pitfalls".
    hits_only = (_d(4) / _d(1) + (_d(2) + _d(3)) / (_d(1) + _d(2))) / 3
    assert round(hits_only, 5) == 0.37470
    assert n != pytest.approx(hits_only)


def test_dcg():
    # (1/log2(5) + (1/log2(3) + 1/log2(4)) + 0) / 3
    expected = (_d(4) + _d(2) + _d(3)) / 3
    assert srm.dcg_at_k(Y_TRUE, Y_SCORE, k=K) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", [n for n in NAIVE if n != "group_auc_score"])
def test_reference_agrees_on_the_seed(name):
    for k in (1, 3, K, 10, None):
        got = getattr(srm, name)(Y_TRUE, Y_SCORE, k=k, average=None)
        expected = NAIVE[name](Y_TRUE, Y_SCORE, k=k, average=None)
        assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
