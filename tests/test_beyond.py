"""Beyond-accuracy metrics against slow references and tie enumeration."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import pairwise_distances

from sklearn_rankmetrics import (
    average_popularity_at_k,
    catalog_coverage_at_k,
    gini_index_at_k,
    intra_list_diversity_at_k,
    novelty_at_k,
)


def _orderings(row):
    """All top-down orderings of a row's retrieved items, ties permuted."""
    items = [i for i in range(len(row)) if row[i] > -np.inf]
    levels = sorted({row[i] for i in items}, reverse=True)
    groups = [[i for i in items if row[i] == v] for v in levels]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for p in perms for i in p]


def _all_lists(S, k):
    """Every joint choice of lists (one ordering per user), equally weighted
    within each user, as a list of (weight, lists)."""
    per_user = [[o[:k] for o in _orderings(row)] for row in S]
    for combo in itertools.product(*per_user):
        w = np.prod([1.0 / len(u) for u in per_user])
        yield w, combo


def _gini(c):
    c = np.sort(np.asarray(c, dtype=float))
    n = c.size
    if c.sum() == 0:
        return np.nan
    return sum((2 * (j + 1) - n - 1) * c[j] for j in range(n)) / (n * c.sum())


def _random_scores(rng, n_users, n_items, levels=3, p_inf=0.15):
    S = rng.integers(0, levels, size=(n_users, n_items)).astype(float)
    S[rng.random(S.shape) < p_inf] = -np.inf
    return S


def _brute(S, k, item_pop=None, share=None, D=None):
    n_items = S.shape[1]
    cov = gini_counts = 0.0
    gini_counts = np.zeros(n_items)
    pop = nov = ild = 0.0
    for w, lists in _all_lists(S, k):
        seen = set(i for lst in lists for i in lst)
        cov += w * len(seen) / n_items
        for lst in lists:
            for i in lst:
                gini_counts[i] += w
        nonempty = [lst for lst in lists if lst]
        if item_pop is not None and nonempty:
            pop += w * np.mean(
                [np.mean([item_pop[i] for i in lst]) for lst in nonempty]
            )
            nov += w * np.mean(
                [np.mean([-np.log2(share[i]) for i in lst]) for lst in nonempty]
            )
        two = [lst for lst in lists if len(lst) > 1]
        if D is not None and two:
            vals = [
                np.mean([D[i, j] for i, j in itertools.combinations(lst, 2)])
                for lst in two
            ]
            ild += w * np.mean(vals)
    if not any(min(k, np.sum(row > -np.inf)) > 1 for row in S):
        ild = np.nan  # no user has a pair: undefined
    return cov, gini_counts, pop, nov, ild


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [1, 2, 3, 6])
def test_tie_enumeration(seed, k):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 3, 5)
    S[0, :2] = -np.inf
    Y = (rng.random(S.shape) < 0.3).astype(int)
    train = (rng.random((6, 5)) < 0.5).astype(int)
    train[0] = 1  # every item seen once
    share = train.sum(axis=0) / train.shape[0]
    counts = train.sum(axis=0)
    F = rng.random((5, 3))
    D = pairwise_distances(F, metric="cosine")
    cov, ec, pop, nov, ild = _brute(S, k, item_pop=counts, share=share, D=D)
    for yt in (Y, sp.csr_matrix(Y)):
        assert catalog_coverage_at_k(yt, S, k=k) == pytest.approx(cov, abs=1e-12)
        # documented rule: Gini of the expected counts
        got = gini_index_at_k(yt, S, k=k)
        if np.isnan(_gini(ec)):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(_gini(ec), abs=1e-12)
        assert average_popularity_at_k(
            yt, S, k=k, item_popularity=train
        ) == pytest.approx(pop, abs=1e-12)
        assert average_popularity_at_k(
            yt, S, k=k, item_popularity=counts
        ) == pytest.approx(pop, abs=1e-12)
        assert novelty_at_k(yt, S, k=k, item_popularity=train) == pytest.approx(
            nov, abs=1e-12
        )
        got = intra_list_diversity_at_k(yt, S, k=k, item_features=F)
        if np.isnan(ild):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ild, abs=1e-12)


def _slow_lists(S, k):
    """Top-k lists without ties (distinct scores), one per user."""
    out = []
    for row in S:
        order = [i for i in np.argsort(-row, kind="stable") if row[i] > -np.inf]
        out.append(order[:k])
    return out


@pytest.mark.parametrize("seed", range(5))
def test_against_per_user_reference_no_ties(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items, k = 40, 30, 5
    S = rng.random((n_users, n_items))
    S[rng.random(S.shape) < 0.2] = -np.inf
    Y = np.zeros_like(S)
    lists = _slow_lists(S, k)
    counts = np.zeros(n_items)
    for lst in lists:
        counts[lst] += 1
    assert catalog_coverage_at_k(Y, S, k=k) == pytest.approx(
        np.count_nonzero(counts) / n_items
    )
    assert gini_index_at_k(Y, S, k=k) == pytest.approx(_gini(counts))
    pop = rng.integers(1, 50, size=n_items)
    share = pop / pop.sum()
    assert average_popularity_at_k(Y, S, k=k, item_popularity=pop) == pytest.approx(
        np.mean([np.mean(pop[lst]) for lst in lists])
    )
    assert novelty_at_k(Y, S, k=k, item_popularity=pop) == pytest.approx(
        np.mean([np.mean(-np.log2(share[lst])) for lst in lists])
    )
    F = rng.normal(size=(n_items, 4))
    for metric in ("cosine", "euclidean"):
        D = pairwise_distances(F, metric=metric)
        ref = np.mean(
            [
                np.mean([D[i, j] for i, j in itertools.combinations(lst, 2)])
                for lst in lists
            ]
        )
        got = intra_list_diversity_at_k(Y, S, k=k, item_features=F, metric=metric)
        assert got == pytest.approx(ref)


def test_hand_worked():
    S = np.array([[1.0, 1.0, 1.0, 0.0]])
    Y = np.zeros_like(S)
    # 3 tied items, 2 kept: each in with prob 2/3; item 3 never
    assert catalog_coverage_at_k(Y, S, k=2) == pytest.approx(3 * (2 / 3) / 4)
    # two users, same tie: P(item in nobody's) = (1/3)^2
    S2 = np.vstack([S, S])
    assert catalog_coverage_at_k(np.zeros_like(S2), S2, k=2) == pytest.approx(
        3 * (1 - 1 / 9) / 4
    )
    # k above the catalogue: the whole catalogue
    assert catalog_coverage_at_k(Y, S, k=99) == 1.0
    assert gini_index_at_k(Y, S, k=99) == pytest.approx(0.0)


def test_inputs_not_modified_and_errors():
    rng = np.random.default_rng(0)
    S = rng.random((4, 5))
    Y = np.zeros((4, 5))
    S0 = S.copy()
    catalog_coverage_at_k(Y, S, k=2)
    intra_list_diversity_at_k(Y, S, k=2, item_features=rng.random((5, 2)))
    np.testing.assert_array_equal(S, S0)
    with pytest.raises(ValueError, match="item_popularity"):
        novelty_at_k(Y, S, k=2, item_popularity=[1, 2, 3])
    with pytest.raises(ValueError, match="item_popularity"):
        average_popularity_at_k(Y, S, k=2, item_popularity=[1, 2, -3, 4, 5])
    with pytest.raises(ValueError, match="item_popularity"):
        novelty_at_k(Y, S, k=2)
    with pytest.raises(ValueError, match="item_features"):
        intra_list_diversity_at_k(Y, S, k=2, item_features=np.ones((3, 2)))
    with pytest.raises(ValueError, match="k"):
        gini_index_at_k(Y, S, k=0)
    with pytest.raises(TypeError, match="k"):
        gini_index_at_k(Y, S, k=1.5)
    bad = S.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError):
        catalog_coverage_at_k(Y, bad, k=2)
    with pytest.raises(ValueError):
        catalog_coverage_at_k(np.zeros((3, 5)), S, k=2)


def test_unseen_item_novelty_is_inf():
    S = np.array([[2.0, 1.0, 0.0]])
    assert novelty_at_k(np.zeros((1, 3)), S, k=2, item_popularity=[3, 0, 1]) == np.inf
