"""Tied scores: the closed forms against brute-force enumeration.

With ``ignore_ties=False`` every metric must equal the average of the metric
over every ordering of the tied items (SPEC, "Ties").  ``_reference.py``
computes that average by enumerating the orderings (itertools.permutations
of each tie group); here the cases are built so that tie groups straddle the
cut k, and the constant predictor is checked against the chance levels
derived by hand (hypergeometric counting).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm
from tests import _reference
from tests._reference import NAIVE, random_case, tie_broken_order, tie_orderings

RTOL = ATOL = 1e-12
RANKING = [name for name in NAIVE if name != "group_auc_score"]
BINARY = [name for name in RANKING if name not in ("dcg_at_k", "ndcg_at_k")]


def _disc(i):
    """DCG discount of rank i, base 2."""
    return 1.0 / math.log2(i + 1)


# ---------------------------------------------------------------------------
# Hand-worked examples
# ---------------------------------------------------------------------------
def test_hand_worked_group_cut_by_k():
    # Scores 3 | 2 2 2 | 1: item 0 at rank 1 (irrelevant); the tie group
    # G = {1, 2, 3} holds ranks 2..4, g = 3 items, r = 2 relevant (1 and 3);
    # R = 2.  With k = 2, s = 1 rank of G is inside the cut.
    y_true = [[0, 1, 0, 1, 0]]
    y_score = [[3, 2, 2, 2, 1]]
    # E[hits@2] = 0 + (r/g) * s = 2/3
    assert srm.precision_at_k(y_true, y_score, k=2) == pytest.approx(1 / 3)  # /k
    assert srm.recall_at_k(y_true, y_score, k=2) == pytest.approx(1 / 3)  # /R
    # F1 = 2 hits / (R + k) = (4/3) / 4
    assert srm.f1_at_k(y_true, y_score, k=2) == pytest.approx(1 / 3)
    # HR@2 = 1 - C(g - r, s) / C(g, s) = 1 - C(1, 1) / C(3, 1) = 2/3
    assert srm.hit_rate_at_k(y_true, y_score, k=2) == pytest.approx(2 / 3)
    # First relevant item of G at rank 2 + j, P(j) = C(g-1-j, r-1) / C(g, r):
    # P(0) = 2/3, P(1) = 1/3.  Only rank 2 is within k: MRR@2 = (2/3)(1/2).
    assert srm.reciprocal_rank_at_k(y_true, y_score, k=2) == pytest.approx(1 / 3)
    # With k = None: (2/3)(1/2) + (1/3)(1/3) = 1/3 + 1/9 = 4/9.
    assert srm.reciprocal_rank_at_k(y_true, y_score) == pytest.approx(4 / 9)
    # AP@3 by enumeration of G's 6 orderings; the relevance pattern of ranks
    # 2, 3 (4 is cut) is (1,1), (1,0) or (0,1), each twice:
    #   (1,1): P@2 + P@3 = 1/2 + 2/3 = 7/6;  (1,0): 1/2;  (0,1): 1/3
    #   mean = (7/6 + 3/6 + 2/6) / 3 = 2/3;  AP@3 = (2/3) / R = 1/3
    assert srm.average_precision_at_k(y_true, y_score, k=3) == pytest.approx(1 / 3)
    # NDCG@2: rank 2 gets G's mean gain 2/3; IDCG@2 = 1 + 1/log2(3).
    ndcg = (2 / 3) * _disc(2) / (1 + _disc(2))
    assert srm.ndcg_at_k(y_true, y_score, k=2) == pytest.approx(ndcg, rel=RTOL)
    # ignore_ties=True ranks column 1 (relevant) at rank 2: P@2 = 1/2.
    assert srm.precision_at_k(y_true, y_score, k=2, ignore_ties=True) == 0.5


def test_hand_worked_two_groups():
    # Scores 2 2 | 1 1 1 1: G1 = {0, 1} at ranks 1-2 with no relevant item;
    # G2 = {2, 3, 4, 5} at ranks 3..6, g = 4, r = 2 (items 2 and 4), R = 2.
    # k = 4 cuts G2 after s = 2 ranks.
    y_true = [[0, 0, 1, 0, 1, 0]]
    y_score = [[2, 2, 1, 1, 1, 1]]
    # E[hits@4] = (2/4) * 2 = 1
    assert srm.precision_at_k(y_true, y_score, k=4) == pytest.approx(1 / 4)
    assert srm.recall_at_k(y_true, y_score, k=4) == pytest.approx(1 / 2)
    # HR@4 = 1 - C(2, 2) / C(4, 2) = 1 - 1/6
    assert srm.hit_rate_at_k(y_true, y_score, k=4) == pytest.approx(5 / 6)
    # P(j) = C(3 - j, 1) / C(4, 2) = (3 - j)/6 for the first hit at rank 3+j:
    # MRR@4 = (3/6)(1/3) + (2/6)(1/4) = 1/6 + 1/12 = 1/4
    assert srm.reciprocal_rank_at_k(y_true, y_score, k=4) == pytest.approx(1 / 4)
    # E[rel_i hits@i] = (r/g)(h + 1 + (i - a)(r - 1)/(g - 1)), a = 3, h = 0:
    #   rank 3: (1/2)(1) / 3 = 1/6;  rank 4: (1/2)(1 + 1/3) / 4 = 1/6
    # AP@4 = (1/6 + 1/6) / R = 1/6;  with "min_k", D = min(2, 4) = 2 too.
    assert srm.average_precision_at_k(y_true, y_score, k=4) == pytest.approx(1 / 6)
    # DCG@4 = mean gain of G2 (1/2) times the discounts of ranks 3 and 4.
    dcg = 0.5 * (_disc(3) + _disc(4))
    assert srm.dcg_at_k(y_true, y_score, k=4) == pytest.approx(dcg, rel=RTOL)


# ---------------------------------------------------------------------------
# Brute force vs closed forms, ties straddling the cut
# ---------------------------------------------------------------------------
def _straddling_cases():
    """Tie-heavy rows (2-3 score levels) with unretrieved and graded items."""
    cases = []
    for seed, (n_queries, n_items, levels) in enumerate(
        [(15, 4, 2), (15, 6, 3), (12, 7, 3), (10, 7, 2)]
    ):
        y_true, y_score = random_case(
            100 + seed, n_queries, n_items, score_levels=levels, p_unretrieved=0.15
        )
        cases.append((y_true, y_score))
    return cases


CASES = _straddling_cases()


def _straddles(score_row, k):
    """Is the item at rank k tied with the item at rank k + 1?"""
    order = tie_broken_order(score_row)
    return len(order) > k and score_row[order[k - 1]] == score_row[order[k]]


def test_cases_have_ties_across_the_cut():
    for k in (1, 2, 3, 4):
        n = sum(_straddles(row, k) for _, y_score in CASES for row in y_score)
        assert n >= 10, k


@pytest.mark.parametrize("k", [None, 1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("name", RANKING)
def test_closed_forms_match_enumeration(name, k):
    func, naive = getattr(srm, name), NAIVE[name]
    extra = [{}]
    if name == "average_precision_at_k":
        extra.append({"ap_denominator": "min_k"})
    if name in ("dcg_at_k", "ndcg_at_k"):
        extra.append({"gain": "exponential", "log_base": 3})
    if name == "fbeta_at_k":
        extra.append({"beta": 0.5})
    if name in BINARY:
        extra.append({"relevance_threshold": 2})
    for y_true, y_score in CASES:
        for opts in extra:
            kw = dict(opts, k=k, average=None)
            got = func(y_true, y_score, **kw)
            expected = naive(y_true, y_score, **kw)
            assert_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)


@pytest.mark.parametrize("k", [None, 1, 3, 5])
@pytest.mark.parametrize("name", ["precision_at_k", "recall_at_k", "f1_at_k"])
def test_micro_average_matches_enumeration(name, k):
    # Micro P, R and F are linear in the pooled hits (the denominators do
    # not depend on the ordering), so their expectation is the value at the
    # expected hits: the reference pools the enumerated mean hits.
    func, naive = getattr(srm, name), NAIVE[name]
    for y_true, y_score in CASES:
        for no_relevant in ("skip", 0.0):
            kw = dict(k=k, average="micro", no_relevant=no_relevant)
            got = func(y_true, y_score, **kw)
            assert got == pytest.approx(naive(y_true, y_score, **kw), rel=RTOL)


def test_ties_change_the_value():
    """The tie-exact values differ from position tie-breaking on these cases
    (so the comparisons above are not trivially passing)."""
    for name in RANKING:
        func = getattr(srm, name)
        differs = False
        for y_true, y_score in CASES:
            a = func(y_true, y_score, k=2, average=None)
            b = func(y_true, y_score, k=2, average=None, ignore_ties=True)
            differs |= not np.allclose(a, b, equal_nan=True)
        assert differs, name


def test_unretrieved_items_are_not_a_tie_group():
    # Three retrieved items tied, two relevant items not retrieved (-inf).
    # R = 3 (item 1 retrieved and relevant, items 3 and 4 not retrieved).
    y_true = [[0, 1, 0, 1, 1]]
    y_score = [[5.0, 5.0, 5.0, -np.inf, -np.inf]]
    # k = 5 > 3 retrieved: all three retrieved items are in the top k, so
    # hits = 1 whatever the order; P@5 = 1/5, R@5 = 1/3.
    assert srm.precision_at_k(y_true, y_score, k=5) == pytest.approx(1 / 5)
    assert srm.recall_at_k(y_true, y_score, k=5) == pytest.approx(1 / 3)
    # k = None divides by the 3 retrieved items.
    assert srm.precision_at_k(y_true, y_score) == pytest.approx(1 / 3)
    # MRR: the relevant item is at rank 1, 2 or 3 with probability 1/3 each.
    mrr = (1 + 1 / 2 + 1 / 3) / 3
    assert srm.reciprocal_rank_at_k(y_true, y_score) == pytest.approx(mrr)
    # AP = MRR / R here (one hit, precision 1/rank at it).
    ap = mrr / 3
    assert srm.average_precision_at_k(y_true, y_score) == pytest.approx(ap)


def _spill_case(seed):
    """Rows of 60 items where a tie group of 25-35 items crosses the cut.

    A few items score 5 (t of them, 1 or 2), a large group scores 3, the
    rest score 1 or -inf; relevance is random.  With k = t + 1 or t + 2
    the cut falls inside the large group, which is larger than the
    candidate set a top-k selection would normally look at; with k = t
    it falls just before it.
    """
    rng = np.random.default_rng(seed)
    n_queries, n_items = 8, 60
    y_true = rng.integers(0, 3, size=(n_queries, n_items)) * (
        rng.random((n_queries, n_items)) < 0.3
    )
    y_score = np.where(rng.random((n_queries, n_items)) < 0.5, 1.0, -np.inf)
    for q in range(n_queries):
        cols = rng.permutation(n_items)
        t = 1 + q % 2
        big = rng.integers(25, 36)
        y_score[q, cols[:t]] = 5.0
        y_score[q, cols[t : t + big]] = 3.0
    return y_true, y_score


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("name", RANKING)
def test_large_tie_group_crossing_the_cut(name, k, ignore_ties):
    y_true, y_score = _spill_case(11)
    kw = dict(k=k, average=None, ignore_ties=ignore_ties)
    got = getattr(srm, name)(y_true, y_score, **kw)
    expected = NAIVE[name](y_true, y_score, **kw)
    assert_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)


def test_top_k_enumeration_is_exact():
    """The reference's top-k shortcut equals the full enumeration, cut at k.

    ``tie_orderings(score, k)`` enumerates only the arrangements of the top
    k; the plain ``tie_orderings(score)`` enumerates every ordering.  Their
    averages of every metric at k must agree.
    """
    y_true, y_score = random_case(17, 6, 7, score_levels=2, p_unretrieved=0.1)
    for rel, score in zip(y_true, y_score, strict=True):
        rel = [float(x) for x in rel]
        for k in (1, 2, 3, 5):
            opts = _reference._full_opts({"k": k})
            full = list(tie_orderings(score))
            short = list(tie_orderings(score, k))
            assert len(short) <= len(full)
            for name in RANKING:
                a = [_reference._one_ranking(name, rel, o, opts)[0] for o in full]
                b = [_reference._one_ranking(name, rel, o, opts)[0] for o in short]
                assert math.fsum(a) / len(a) == pytest.approx(
                    math.fsum(b) / len(b), rel=RTOL, abs=ATOL
                )


@st.composite
def _tied_case(draw):
    n_queries = draw(st.integers(1, 3))
    n_items = draw(st.integers(2, 7))
    grades = st.lists(st.integers(0, 3), min_size=n_items, max_size=n_items)
    scores = st.lists(
        st.sampled_from([-np.inf, 0.0, 1.0, 1.0, 2.0]),
        min_size=n_items,
        max_size=n_items,
    )
    y_true = draw(st.lists(grades, min_size=n_queries, max_size=n_queries))
    y_score = draw(st.lists(scores, min_size=n_queries, max_size=n_queries))
    return np.array(y_true), np.array(y_score)


@settings(max_examples=50, deadline=None)
@given(case=_tied_case(), name=st.sampled_from(RANKING), k=st.integers(1, 7))
def test_property_closed_forms_match_enumeration(case, name, k):
    y_true, y_score = case
    got = getattr(srm, name)(y_true, y_score, k=k, average=None)
    expected = NAIVE[name](y_true, y_score, k=k, average=None)
    assert_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)


# ---------------------------------------------------------------------------
# Group AUC: ties count 1/2 == average over the orderings of tied items
# ---------------------------------------------------------------------------
def _auc_of_order(rel, order):
    """Fraction of (relevant, irrelevant) pairs with the relevant one first."""
    seen_neg = 0
    wins = 0
    for col in reversed(order):  # from the bottom of the ranking
        if rel[col] > 0:
            wins += seen_neg
        else:
            seen_neg += 1
    n_pos = sum(1 for x in rel if x > 0)
    return wins / (n_pos * (len(rel) - n_pos))


def test_group_auc_ties_are_expected_over_orderings():
    rng = np.random.default_rng(7)
    y_true = rng.integers(0, 2, size=(20, 7))
    y_true[:, 0], y_true[:, 1] = 1, 0  # both classes in every row
    y_score = rng.integers(0, 3, size=(20, 7)).astype(float)
    expected = []
    for rel, score in zip(y_true, y_score, strict=True):
        values = [_auc_of_order(rel, order) for order in tie_orderings(score)]
        expected.append(math.fsum(values) / len(values))
    got = srm.group_auc_score(y_true, y_score, average=None)
    assert_allclose(got, expected, rtol=RTOL)


# ---------------------------------------------------------------------------
# The constant predictor gets chance level
# ---------------------------------------------------------------------------
def _hit_rate(n, r, k):
    """1 - P(no relevant item among k drawn from n, r relevant)."""
    return 1.0 - math.comb(n - r, k) / math.comb(n, k)


def _mrr(n, r, k):
    """E[1/rank of the first relevant item], rank > k scoring 0.

    The first relevant item is at rank j + 1 when the j items before it
    are irrelevant: C(n - 1 - j, r - 1) of the C(n, r) relevant sets.
    """
    total = 0.0
    for j in range(min(k, n - r + 1)):
        total += math.comb(n - 1 - j, r - 1) / math.comb(n, r) / (j + 1)
    return total


@pytest.mark.parametrize("n, r", [(1, 1), (5, 1), (6, 2), (7, 3), (40, 5)])
def test_constant_predictor_chance_level(n, r):
    y_true = np.zeros((1, n), dtype=int)
    y_true[0, n - r :] = 1  # relevant items last: ignore_ties=True ranks them last
    y_score = np.full((1, n), 0.5)
    for k in range(1, n + 1):
        # P@k = r/n: every rank is relevant with probability r/n.
        p = srm.precision_at_k(y_true, y_score, k=k)
        assert p == pytest.approx(r / n, rel=RTOL)
        # R@k = k/n: each relevant item is in the top k with probability k/n.
        assert srm.recall_at_k(y_true, y_score, k=k) == pytest.approx(k / n, rel=RTOL)
        hr = srm.hit_rate_at_k(y_true, y_score, k=k)
        assert hr == pytest.approx(_hit_rate(n, r, k), rel=RTOL)
        mrr = srm.reciprocal_rank_at_k(y_true, y_score, k=k)
        assert mrr == pytest.approx(_mrr(n, r, k), rel=RTOL)
        # Binary NDCG@k: every rank gets the mean gain r/n; the ideal puts
        # min(r, k) relevant items first.
        dcg = r / n * sum(_disc(i) for i in range(1, k + 1))
        idcg = sum(_disc(i) for i in range(1, min(r, k) + 1))
        ndcg = srm.ndcg_at_k(y_true, y_score, k=k)
        assert ndcg == pytest.approx(dcg / idcg, rel=RTOL)
    # HR@1 = r/n
    assert srm.hit_rate_at_k(y_true, y_score, k=1) == pytest.approx(r / n, rel=RTOL)
    if r == 1:
        # One relevant item, uniformly at rank 1..n: MRR = AP = H_n / n.
        harmonic = sum(1 / i for i in range(1, n + 1))
        mrr = srm.reciprocal_rank_at_k(y_true, y_score)
        ap = srm.average_precision_at_k(y_true, y_score)
        assert mrr == pytest.approx(harmonic / n, rel=RTOL)
        assert ap == pytest.approx(harmonic / n, rel=RTOL)
    if n <= 7:  # AP and everything else: brute force over all n! orderings
        for name in RANKING:
            for k in (None, 1, 2, n):
                got = getattr(srm, name)(y_true, y_score, k=k)
                expected = NAIVE[name](y_true, y_score, k=k)
                assert got == pytest.approx(expected, rel=RTOL), (name, k)
    # Group AUC: no row has both classes when r == n; otherwise 1/2.
    if r < n:
        assert srm.group_auc_score(y_true, y_score) == 0.5


@pytest.mark.parametrize("n, r", [(5, 1), (6, 2), (7, 3), (40, 5)])
def test_constant_predictor_is_never_perfect(n, r):
    y_true = np.zeros((1, n), dtype=int)
    y_true[0, :r] = 1  # relevant items first: ignore_ties=True would score 1
    y_score = np.zeros((1, n))
    values = {
        "P@r": srm.precision_at_k(y_true, y_score, k=r),
        "R@r": srm.recall_at_k(y_true, y_score, k=r),
        "F1@r": srm.f1_at_k(y_true, y_score, k=r),
        "HR@1": srm.hit_rate_at_k(y_true, y_score, k=1),
        "MRR": srm.reciprocal_rank_at_k(y_true, y_score),
        "AP": srm.average_precision_at_k(y_true, y_score),
        "AP@r": srm.average_precision_at_k(y_true, y_score, k=r),
        "NDCG": srm.ndcg_at_k(y_true, y_score),
        "NDCG@r": srm.ndcg_at_k(y_true, y_score, k=r),
        "GAUC": srm.group_auc_score(y_true, y_score),
    }
    for what, value in values.items():
        assert value < 1.0, what
    # The same metrics with ties broken by position (relevant columns
    # first) are perfect, except GAUC (no position tie-breaking: ties = 1/2).
    assert srm.precision_at_k(y_true, y_score, k=r, ignore_ties=True) == 1.0
    assert srm.average_precision_at_k(y_true, y_score, ignore_ties=True) == 1.0
    assert srm.ndcg_at_k(y_true, y_score, ignore_ties=True) == pytest.approx(1.0)


def test_constant_predictor_all_relevant_is_perfect():
    n = 6
    y_true = np.full((2, n), 2)
    y_score = np.zeros((2, n))
    # Every ordering is perfect when every item is relevant (equal grades).
    for name in RANKING:
        if name == "dcg_at_k":
            continue
        for k in (None, n, n + 3):
            value = getattr(srm, name)(y_true, y_score, k=k)
            if name in ("precision_at_k", "fbeta_at_k", "f1_at_k") and k == n + 3:
                assert value < 1.0  # P@k divides by k > n items
            else:
                assert value == pytest.approx(1.0, rel=RTOL), (name, k)
    for k in (1, 3):
        assert srm.precision_at_k(y_true, y_score, k=k) == 1.0
        assert srm.hit_rate_at_k(y_true, y_score, k=k) == 1.0
        assert srm.reciprocal_rank_at_k(y_true, y_score, k=k) == 1.0
        assert srm.ndcg_at_k(y_true, y_score, k=k) == pytest.approx(1.0, rel=RTOL)
        ap = srm.average_precision_at_k(y_true, y_score, k=k, ap_denominator="min_k")
        assert ap == pytest.approx(1.0, rel=RTOL)


def test_constant_predictor_large_group():
    """Closed forms at a size enumeration cannot reach: n = 1000, R = 37."""
    n, r, k = 1000, 37, 10
    rng = np.random.default_rng(3)
    y_true = np.zeros((3, n), dtype=int)
    for row in y_true:
        row[rng.choice(n, size=r, replace=False)] = 1
    y_score = np.ones((3, n))
    assert srm.precision_at_k(y_true, y_score, k=k) == pytest.approx(r / n, rel=RTOL)
    assert srm.recall_at_k(y_true, y_score, k=k) == pytest.approx(k / n, rel=RTOL)
    hr = srm.hit_rate_at_k(y_true, y_score, k=k)
    assert hr == pytest.approx(_hit_rate(n, r, k), rel=1e-10)
    mrr = srm.reciprocal_rank_at_k(y_true, y_score, k=k)
    assert mrr == pytest.approx(_mrr(n, r, k), rel=1e-10)
    # Binary NDCG@k of a constant predictor: (r/n) * sum(disc) / sum(disc).
    assert srm.ndcg_at_k(y_true, y_score, k=k) == pytest.approx(r / n, rel=RTOL)
    # AP@k: rank i holds a relevant item with probability r/n, and given
    # that, the i - 1 items above hold (i - 1)(r - 1)/(n - 1) relevant ones
    # on average, so E[rel_i * hits@i] = (r/n)(1 + (i - 1)(r - 1)/(n - 1)).
    ap = sum(r / n * (1 + (i - 1) * (r - 1) / (n - 1)) / i for i in range(1, k + 1))
    got = srm.average_precision_at_k(y_true, y_score, k=k)
    assert got == pytest.approx(ap / r, rel=RTOL)
    got = srm.average_precision_at_k(y_true, y_score, k=k, ap_denominator="min_k")
    assert got == pytest.approx(ap / min(r, k), rel=RTOL)


def test_enumeration_covers_every_ordering():
    """Sanity check of the brute force itself: 3! * 2! orderings."""
    score = [1.0, 2.0, 1.0, 2.0, 1.0, -np.inf]
    orders = list(tie_orderings(score))
    assert len(orders) == 12
    assert len({tuple(o) for o in orders}) == 12
    for order in orders:
        assert sorted(order[:2]) == [1, 3]
        assert sorted(order[2:]) == [0, 2, 4]
    assert tie_broken_order(score) == [1, 3, 0, 2, 4]
    # top 3 only: both orders of {1, 3}, then each of 0, 2, 4 at rank 3
    short = list(tie_orderings(score, k=3))
    assert len(short) == 2 * 3
    assert {tuple(o[:3]) for o in short} == {
        (a, b, c) for a, b in [(1, 3), (3, 1)] for c in (0, 2, 4)
    }
    for order in short:
        assert sorted(order) == [0, 1, 2, 3, 4]
