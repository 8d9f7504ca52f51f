"""sampled_metrics: naive and corrected sampled-candidate metrics.

Checked against hand-worked tables, slow references built with math.comb,
exact identities (a full sample is the exact metric; at gamma=1 the
estimator is unbiased for uniformly distributed ranks), the sampler's
distribution, and, on a factor model over a 2,000 x 5,000 catalogue, the
exact catalogue metric (Krichene & Rendle, KDD 2020).
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.decomposition import TruncatedSVD

from sklearn_rankmetrics import hit_rate_at_k, ndcg_at_k
from sklearn_rankmetrics.datasets import make_interactions
from sklearn_rankmetrics.model_selection import sampled_metrics
from sklearn_rankmetrics.model_selection._sampled import _tables, sampled_rank_pmf

pytestmark = pytest.mark.filterwarnings("ignore:n_negatives=.* is too small")


def _pmf_reference(n, m):
    """P(sampled rank j | full rank r) with math.comb: j - 1 of the m
    negatives among the r - 1 items above, the rest among the n - r below."""
    A = np.zeros((n, m + 1))
    for r in range(1, n + 1):
        for j in range(1, m + 2):
            A[r - 1, j - 1] = (
                math.comb(r - 1, j - 1)
                * math.comb(n - r, m - j + 1)
                / math.comb(n - 1, m)
            )
    return A


def _metric_reference(name, rank, k):
    if rank > k:
        return 0.0
    return {
        "hit_rate": 1.0,
        "recall": 1.0,
        "precision": 1.0 / k,
        "ndcg": 1.0 / math.log2(rank + 1),
        "mrr": 1.0 / rank,
        "map": 1.0 / rank,
    }[name]


@pytest.mark.parametrize("n, m", [(4, 1), (12, 5), (30, 29), (200, 7)])
def test_pmf(n, m):
    A = sampled_rank_pmf(np.arange(1, n + 1), n, m)
    assert np.allclose(A, _pmf_reference(n, m), rtol=1e-10, atol=1e-15)
    assert np.allclose(A.sum(axis=1), 1.0)
    # E[sampled rank - 1 | r] = m (r - 1) / (n - 1)
    mean = A @ np.arange(m + 1)
    assert np.allclose(mean, m * np.arange(n) / (n - 1))


def test_hand_worked_tables():
    # n = 4 items, m = 1 negative, HR@1: M(r) = [1, 0, 0, 0];
    # A = [[1, 0], [2/3, 1/3], [1/3, 2/3], [0, 1]] (r - 1 of the 3 others
    # are above the held-out item, the negative is one of the 3).
    # A'A = [[14/9, 4/9], [4/9, 14/9]], A'M = [1, 0], diag(A'1) = diag(2, 2).
    # - minimal bias, unconstrained: [0.7, -0.2]; with 0 <= c <= 1 the second
    #   value is 0 and the first minimises (c - 1)^2 + (2c/3)^2 + (c/3)^2:
    #   c = 1 / (14/9) = 9/14.
    # - gamma = 1: c_j = (A'M)_j / (A'1)_j = [1/2, 0].
    # - gamma = 1/2: [[16/9, 2/9], [2/9, 16/9]] c = [1, 0], det = 252/81:
    #   c = [4/7, -1/14].
    # - rescaled: ranks 1 + (j - 1) * 3 = [1, 4] -> [1, 0]; naive [1, 0].
    tables = _tables(["hit_rate"], [1], 4, 1, 0.5)[("hit_rate", 1)]
    assert np.allclose(tables["minimal_bias"], [9 / 14, 0])
    assert np.allclose(tables["bias_variance"], [4 / 7, -1 / 14])
    assert np.allclose(tables["rescaled"], [1, 0])
    assert np.allclose(tables["naive"], [1, 0])
    assert np.allclose(
        _tables(["hit_rate"], [1], 4, 1, 1.0)[("hit_rate", 1)]["bias_variance"],
        [0.5, 0],
    )
    # two points at sampled ranks 1 and 2: the means of the tables
    result = sampled_metrics(
        [1, 2], n_items=4, n_negatives=1, k=1, gamma=0.5, metrics=["hit_rate"]
    )
    assert result["naive"]["hit_rate@1"] == 0.5
    assert result["minimal_bias"]["hit_rate@1"] == pytest.approx(9 / 28)
    assert result["bias_variance"]["hit_rate@1"] == pytest.approx((4 / 7 - 1 / 14) / 2)


@pytest.mark.parametrize("gamma", [0.05, 0.3, 1.0])
@pytest.mark.parametrize("name, k", [("ndcg", 3), ("hit_rate", 5), ("mrr", 4)])
def test_bias_variance_reference(gamma, name, k):
    n, m = 30, 6
    A = _pmf_reference(n, m)
    M = np.array([_metric_reference(name, r, k) for r in range(1, n + 1)])
    lhs = (1 - gamma) * A.T @ A + gamma * np.diag(A.sum(axis=0))
    expected = np.linalg.solve(lhs, A.T @ M)
    got = _tables([name], [k], n, m, gamma)[(name, k)]["bias_variance"]
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)
    if gamma == 1.0:  # the posterior mean of M for uniformly distributed ranks
        posterior = (A * M[:, None]).sum(axis=0) / A.sum(axis=0)
        assert np.allclose(got, posterior)
        # hence unbiased over uniformly distributed ranks
        assert (A @ got).mean() == pytest.approx(M.mean(), rel=1e-10)


@pytest.mark.parametrize("name, k", [("ndcg", 3), ("hit_rate", 5), ("precision", 4)])
def test_minimal_bias_reference(name, k):
    from scipy.optimize import lsq_linear

    n, m = 40, 7
    A = _pmf_reference(n, m)
    M = np.array([_metric_reference(name, r, k) for r in range(1, n + 1)])
    expected = lsq_linear(A, M, bounds=(0, M.max()), method="bvls").x
    got = _tables([name], [k], n, m, 0.1)[(name, k)]["minimal_bias"]
    assert np.allclose(got, expected, atol=1e-7)
    assert got.min() >= 0 and got.max() <= M.max() + 1e-12
    # no table with the same bounds has a smaller squared bias
    rng = np.random.default_rng(0)
    best = np.sum((A @ got - M) ** 2)
    for _ in range(200):
        other = np.clip(got + rng.normal(scale=0.05, size=got.shape), 0, M.max())
        assert np.sum((A @ other - M) ** 2) >= best - 1e-12


@pytest.mark.parametrize("metric", ["hit_rate", "recall", "precision", "ndcg", "mrr"])
def test_a_full_sample_is_the_exact_metric(metric):
    # m = n - 1: the sampled rank is the rank; every estimator is exact
    n = 25
    ranks = np.array([1, 2, 3, 5, 8, 13, 21, 25])
    result = sampled_metrics(
        ranks, n_items=n, n_negatives=n - 1, k=[3, 10], metrics=[metric]
    )
    for kk in (3, 10):
        exact = np.mean([_metric_reference(metric, r, kk) for r in ranks])
        for estimator in result:
            value = result[estimator][f"{metric}@{kk}"]
            assert value == pytest.approx(exact, abs=1e-9), (estimator, kk)


def test_metric_values_come_from_the_metric_functions():
    # naive NDCG@10 of sampled rank 3 is 1/log2(4) = 0.5; precision@10 1/10
    result = sampled_metrics(
        [3], n_items=1000, n_negatives=99, k=10, metrics=["ndcg", "precision", "mrr"]
    )
    assert result["naive"] == {"ndcg@10": 0.5, "precision@10": 0.1, "mrr@10": 1 / 3}
    # rescaled: rank 1 + 2 * 999 / 99 = 21.18 -> 21, outside the top 10
    assert result["rescaled"]["ndcg@10"] == 0.0
    result = sampled_metrics([3], n_items=100, n_negatives=99, k=10, metrics=["ndcg"])
    assert result["rescaled"]["ndcg@10"] == 0.5


def test_sampler_distribution_and_seed():
    # every row: the positive (item 7) at full rank 13 of 50 items
    n, m, r = 50, 10, 13
    rows = 20000
    base = np.arange(n, 0, -1, dtype=float)  # item i at full rank i + 1
    y_score = np.tile(base, (rows, 1))
    positives = np.full(rows, r - 1)
    result, negatives = sampled_metrics(
        y_score=y_score,
        positives=positives,
        n_negatives=m,
        k=1,
        metrics=["hit_rate"],
        random_state=0,
        return_negatives=True,
    )
    assert negatives.shape == (rows, m)
    assert not (negatives == positives[:, None]).any()
    assert (np.diff(np.sort(negatives, axis=1), axis=1) > 0).all()
    sampled = 1 + (negatives < r - 1).sum(axis=1)  # negatives above the positive
    freq = np.bincount(sampled, minlength=m + 2)[1:] / rows
    pmf = _pmf_reference(n, m)[r - 1]
    assert np.abs(freq - pmf).max() < 0.012  # 3.5 standard errors at most
    # the same negatives with the same seed, and for any working_memory
    import sklearn

    with sklearn.config_context(working_memory=0.05):
        again, negatives2 = sampled_metrics(
            y_score=y_score,
            positives=positives,
            n_negatives=m,
            k=1,
            metrics=["hit_rate"],
            random_state=0,
            return_negatives=True,
        )
    assert np.array_equal(negatives, negatives2) and again == result
    # fixed negatives: the same estimates as the sampled ranks
    from_ranks = sampled_metrics(
        sampled, n_items=n, n_negatives=m, k=1, metrics=["hit_rate"]
    )
    assert from_ranks == result
    fixed = sampled_metrics(
        y_score=y_score,
        positives=positives,
        negatives=negatives,
        k=1,
        metrics=["hit_rate"],
    )
    assert fixed == result


def test_ties_and_non_candidates():
    # scores: positive 0.5, negatives 0.9 (above), 0.5 (tied), 0.1 (below)
    y_score = np.array([[0.5, 0.9, 0.5, 0.1, 0.0], [-np.inf, 0.3, -np.inf, 0.2, 0.1]])
    negatives = np.array([[1, 2, 3], [1, 2, 3]])
    result = sampled_metrics(
        y_score=y_score,
        positives=[0, 0],
        negatives=negatives,
        k=2,
        metrics=["hit_rate"],
    )
    # row 0: sampled rank 2 or 3, each with probability 1/2 -> HR@2 = 1/2;
    # row 1: a positive scored -inf is last (rank 4) -> 0
    assert result["naive"]["hit_rate@2"] == pytest.approx(0.25)


def test_small_sample_warns():
    with pytest.warns(UserWarning, match=r"n_negatives=99 is too small for k=\[10\]"):
        sampled_metrics([1, 2], n_items=5000, n_negatives=99, k=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sampled_metrics([1, 2], n_items=1000, n_negatives=200, k=10)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"ranks": [0, 1], "n_items": 10, "n_negatives": 3}, ValueError, "ranks"),
        (
            {"ranks": [1, 5], "n_items": 10, "n_negatives": 3},
            ValueError,
            "from 1 .* to 4",
        ),
        ({"ranks": [1.5], "n_items": 10, "n_negatives": 3}, ValueError, "whole"),
        ({"ranks": [np.nan], "n_items": 10, "n_negatives": 3}, ValueError, "NaN"),
        ({"ranks": [[1]], "n_items": 10, "n_negatives": 3}, ValueError, "1-D"),
        (
            {"ranks": [1], "n_items": 10, "n_negatives": 10},
            ValueError,
            "more than the 9 items",
        ),
        ({"ranks": [1], "n_items": 10}, ValueError, "needs n_items"),
        ({"ranks": [1], "n_items": 10, "n_negatives": 3, "k": 0}, ValueError, "k"),
        (
            {"ranks": [1], "n_items": 10, "n_negatives": 3, "metrics": ["gauc"]},
            ValueError,
            "not a metric",
        ),
        (
            {"ranks": [1], "n_items": 10, "n_negatives": 3, "gamma": 2},
            ValueError,
            "gamma",
        ),
        (
            {"ranks": [1, 2], "n_items": 10, "n_negatives": 3, "sample_weight": [1]},
            ValueError,
            "sample_weight",
        ),
        ({}, ValueError, "Give ranks"),
        (
            {"ranks": [1], "y_score": np.zeros((1, 3)), "positives": [0]},
            ValueError,
            "not both",
        ),
        (
            {
                "y_score": np.zeros((2, 5)),
                "positives": [0, 1],
                "negatives": [[0, 2], [2, 3]],
            },
            ValueError,
            "contains the held-out item of user 0",
        ),
        (
            {
                "y_score": np.zeros((2, 5)),
                "positives": [0, 1],
                "negatives": [[1, 1], [2, 3]],
            },
            ValueError,
            "repeats an item for user 0",
        ),
        (
            {
                "y_score": np.zeros((2, 5)),
                "positives": [0, 1],
                "negatives": [[1, 9], [2, 3]],
            },
            ValueError,
            "outside the catalogue",
        ),
        (
            {"y_score": np.zeros((2, 5)), "positives": [0, 1], "n_negatives": 5},
            ValueError,
            "more than the 4 items",
        ),
        (
            {"y_score": np.zeros((2, 5)), "positives": [0, 7], "n_negatives": 2},
            ValueError,
            "positives",
        ),
        (
            {"y_score": np.full((2, 5), np.nan), "positives": [0, 1], "n_negatives": 2},
            ValueError,
            "NaN",
        ),
        ({"y_score": np.zeros((2, 5)), "positives": [0, 1]}, ValueError, "n_negatives"),
    ],
)
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        sampled_metrics(**kwargs)


# ---------------------------------------------------------------------------
# The paper's findings
# ---------------------------------------------------------------------------
def _expected(A_rows, table):
    """The expectation over the negative sample of an estimator's mean."""
    return float((A_rows @ table).mean())


def test_naive_sampled_metrics_reorder_models_even_in_expectation():
    # Krichene & Rendle's finding: model A puts 40 % of the held-out items
    # in its top 5 and the rest anywhere in a catalogue of 2,000; model B
    # puts every item between ranks 1 and 40.  Catalogue HR@10: A about
    # 0.40, B 0.25.  Among a few sampled negatives an item at rank <= 40 is
    # almost always in the sampled top 10, so the naive sampled HR@10 puts
    # B far above A -- in expectation over the samples, not by chance.
    # With 199 negatives (a sampled rank stands for 10 catalogue ranks) the
    # corrected estimates order the models as the catalogue metric does.
    n = 2000
    rng = np.random.default_rng(0)
    top = rng.random(5000) < 0.4
    ranks_a = np.where(top, rng.integers(1, 6, 5000), rng.integers(1, n + 1, 5000))
    ranks_b = rng.integers(1, 41, 5000)
    exact_a, exact_b = np.mean(ranks_a <= 10), np.mean(ranks_b <= 10)
    assert exact_a > exact_b + 0.1
    for m in (19, 199):
        tables = _tables(["hit_rate"], [10], n, m, 0.1)[("hit_rate", 10)]
        pmf_a = sampled_rank_pmf(ranks_a, n, m)
        pmf_b = sampled_rank_pmf(ranks_b, n, m)
        naive_a = _expected(pmf_a, tables["naive"])
        naive_b = _expected(pmf_b, tables["naive"])
        assert naive_b > naive_a + 0.25  # the naive metric reverses the order
        if m == 199:
            for estimator in ("minimal_bias", "bias_variance"):
                corrected_a = _expected(pmf_a, tables[estimator])
                corrected_b = _expected(pmf_b, tables[estimator])
                assert corrected_a > corrected_b + 0.05, estimator
                assert abs(corrected_b - exact_b) < 0.2 * abs(naive_b - exact_b)


@pytest.fixture(scope="module")
def factor_model():
    """Leave-one-out on 2,000 users x 5,000 items, a TruncatedSVD(8)."""
    R, _ = make_interactions(
        n_users=2000,
        n_items=5000,
        interactions_per_user=(5, 40),
        test_size=0.0,
        random_state=0,
    )
    rng = np.random.default_rng(0)
    R = R.tocsr()
    pick = R.indptr[:-1] + rng.integers(0, np.diff(R.indptr))
    positives = R.indices[pick]
    train = R.copy()
    train.data[pick] = 0
    train.eliminate_zeros()
    svd = TruncatedSVD(8, random_state=0).fit(train)
    S = svd.transform(train) @ svd.components_
    S[train.toarray() != 0] = -np.inf  # training items are not recommended
    Y = np.zeros(S.shape)
    Y[np.arange(S.shape[0]), positives] = 1
    return S, Y, positives


def test_corrected_estimates_are_closer_to_the_catalogue_metric(factor_model):
    # The catalogue metric ranks each held-out item among all 5,000 items
    # (training items at -inf, below it); the sample draws 99 of the 4,999
    # others, training items included (they stay below the positive), so
    # the hypergeometric model of the sampled rank holds exactly.
    S, Y, positives = factor_model
    exact = {
        "hit_rate@10": hit_rate_at_k(Y, S, k=10),
        "ndcg@10": ndcg_at_k(Y, S, k=10),
    }
    result = sampled_metrics(
        y_score=S,
        positives=positives,
        n_negatives=99,
        k=10,
        metrics=["hit_rate", "ndcg"],
        random_state=0,
    )
    for key, value in exact.items():
        naive_error = abs(result["naive"][key] - value)
        assert naive_error > 0.3  # e.g. HR@10: 0.72 sampled, 0.23 exact
        for estimator in ("minimal_bias", "bias_variance"):
            error = abs(result[estimator][key] - value)
            # the margin: Krichene & Rendle's corrections leave at most 30 %
            # of the naive error (here 13-23 %), and less than 0.11
            assert error <= 0.3 * naive_error, (key, estimator)
            assert error < 0.11
        # rescaling the rank alone is coarser, but still closer than naive
        assert abs(result["rescaled"][key] - value) < 0.6 * naive_error
