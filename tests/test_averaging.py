"""The one mean (``_utils/_averaging.py``): its variants, and the means of
the package that are it -- the metric functions' mean over queries, the
beyond-accuracy per-user means, the calibration sums over rows and mean
over groups, the sampled metrics' mean over users."""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._utils._averaging import (
    EVERY_QUERY,
    weighted_mean,
    weighted_sum,
    weighted_totals,
)


def test_weighted_sum_without_weights_is_the_plain_sum():
    values = np.random.default_rng(0).random(50_001)
    assert weighted_sum(None, values) == float(np.add.reduce(values))
    assert weighted_sum(np.ones(values.size), values) == weighted_sum(None, values)
    # booleans and integers are counted, not averaged
    assert weighted_sum(None, np.array([True, False, True])) == 2.0
    assert weighted_sum(np.array([2.0, 3.0]), np.array([1, 4])) == 14.0  # 2 + 12


def test_weighted_mean_skips_nan_unless_every_query_counts():
    # (1 * 1 + 3 * 3) / (1 + 3) = 2.5 without the nan query; with it, nan
    values = np.array([1.0, np.nan, 3.0])
    weights = np.array([1.0, 5.0, 3.0])
    assert weighted_mean(values, weights) == 2.5
    assert math.isnan(weighted_mean(values, weights, keep=EVERY_QUERY))
    assert weighted_mean(values[[0, 2]], weights[[0, 2]], keep=EVERY_QUERY) == 2.5
    assert weighted_totals(values, None, keep=EVERY_QUERY)[1] == 3.0


def test_no_query_is_nan_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(weighted_mean(np.array([])))
        assert math.isnan(weighted_mean(np.array([]), keep=EVERY_QUERY))
        assert math.isnan(weighted_mean(np.array([2.0]), np.array([0.0])))


def _lists_case(seed=1):
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 4, size=(9, 7)).astype(float)  # ties
    y_score[rng.random(y_score.shape) < 0.3] = -np.inf
    y_score[0] = -np.inf  # a user without a list
    return np.zeros(y_score.shape), y_score


def test_per_user_means_are_the_one_mean_of_the_per_user_values():
    # average_popularity with ties: each user's expected mean count over
    # its list (brute force: every item's probability of being in the top
    # k), then the mean over the users with a list, each counting once
    y_true, y_score = _lists_case()
    counts = np.arange(7, dtype=float) ** 2
    k = 3
    per_user = []
    for row in y_score:
        finite = row[np.isfinite(row)]
        if finite.size == 0:
            continue  # an empty list: the user is not scored
        length = min(k, finite.size)
        cut = np.sort(finite)[::-1][length - 1]
        above = np.isfinite(row) & (row > cut)
        tied = row == cut
        p = np.where(above, 1.0, 0.0)
        p[tied] = (length - above.sum()) / tied.sum()
        per_user.append(float(p @ counts) / length)
    got = srm.average_popularity_at_k(y_true, y_score, k=k, item_popularity=counts)
    assert got == pytest.approx(sum(per_user) / len(per_user), rel=1e-12)
    assert len(per_user) == y_score.shape[0] - 1


def test_a_nan_user_value_makes_the_per_user_mean_nan():
    # every user with a list counts: a distance that is nan for one pair
    # makes that user's diversity nan, and the mean over users nan (it is
    # not skipped as an undefined query would be)
    features = np.array([[0.0], [1.0], [2.0]])

    def distance(a, b):
        return np.nan if {a[0], b[0]} == {0.0, 1.0} else abs(a[0] - b[0])

    y_score = np.array([[2.0, 1.0, -np.inf], [-np.inf, 2.0, 1.0]])
    y_true = np.zeros(y_score.shape)
    ild = srm.intra_list_diversity_at_k(
        y_true, y_score, k=2, item_features=features, metric=distance
    )
    assert math.isnan(ild)
    # the second user alone: |1 - 2| = 1
    alone = srm.intra_list_diversity_at_k(
        y_true[1:], y_score[1:], k=2, item_features=features, metric=distance
    )
    assert alone == 1.0


def test_sampled_metrics_mean_over_users_is_the_one_mean():
    # integer weights are repeated users, and no weight is weight 1
    from sklearn_rankmetrics.model_selection import sampled_metrics

    rng = np.random.default_rng(3)
    ranks = rng.integers(1, 22, size=40)  # among 20 sampled negatives
    weights = rng.integers(1, 4, size=40).astype(float)
    kwargs = dict(n_items=60, n_negatives=20, k=5, metrics=["hit_rate", "ndcg"])
    weighted = sampled_metrics(ranks, sample_weight=weights, **kwargs)
    repeated = sampled_metrics(np.repeat(ranks, weights.astype(int)), **kwargs)
    ones = sampled_metrics(ranks, sample_weight=np.ones(40), **kwargs)
    plain = sampled_metrics(ranks, **kwargs)
    for estimator, values in weighted.items():
        for name, value in values.items():
            assert value == pytest.approx(repeated[estimator][name], rel=1e-12)
            assert ones[estimator][name] == plain[estimator][name]
    # the naive hit rate by hand: held-out item ranked within the top 5
    hits = (ranks <= 5).astype(float)
    assert_allclose(weighted["naive"]["hit_rate@5"], hits @ weights / weights.sum())
