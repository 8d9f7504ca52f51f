import warnings

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import log_loss

from sklearn_rankmetrics import (
    calibration_ratio,
    expected_calibration_error,
    normalized_entropy,
)


def test_normalized_entropy_torcheval_anchors():
    assert normalized_entropy([1, 0], [0.2, 0.3]) == pytest.approx(1.4183, abs=5e-5)
    ne = normalized_entropy([1, 0], [0.2, 0.3], sample_weight=[5, 1])
    assert ne == pytest.approx(3.1087, abs=5e-5)


@pytest.mark.parametrize("seed", range(5))
def test_normalized_entropy_against_log_loss(seed):
    rng = np.random.default_rng(seed)
    n = 50
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    q = rng.uniform(0.01, 0.99, n)
    w = rng.uniform(0.1, 3, n)
    p = np.average(y, weights=w)
    h = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    expected = log_loss(y, q, sample_weight=w) / h
    assert normalized_entropy(y, q, sample_weight=w) == pytest.approx(
        expected, rel=1e-12
    )
    try:
        from sklearn.metrics import d2_log_loss_score
    except ImportError:
        return
    d2 = d2_log_loss_score(y, q, sample_weight=w)
    assert normalized_entropy(y, q, sample_weight=w) == pytest.approx(1 - d2, rel=1e-10)


def test_undefined_cases_warn_nan():
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(normalized_entropy([0, 0], [0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(calibration_ratio([0, 0], [0.2, 0.3]))


def test_calibration_ratio_hand_and_weighted():
    assert calibration_ratio([1, 0, 0, 1], [0.5, 0.25, 0.25, 0.5]) == pytest.approx(
        0.75
    )
    # weights: (2*0.5 + 1*0.25) / (2*1) = 0.625
    r = calibration_ratio([1, 0], [0.5, 0.25], sample_weight=[2, 1])
    assert r == pytest.approx(0.625)


def _ece_reference(y, q, n_bins, strategy):
    # slow reference on calibration_curve: it drops empty bins; recount them
    prob_true, prob_pred = calibration_curve(y, q, n_bins=n_bins, strategy=strategy)
    if strategy == "uniform":
        bins = np.linspace(0, 1, n_bins + 1)
    else:
        bins = np.percentile(q, np.linspace(0, 1, n_bins + 1) * 100)
    # calibration_curve's rule: a sample's bin is the number of inner edges
    # strictly below it (counted one sample at a time)
    ids = [sum(edge < qi for edge in bins[1:-1]) for qi in q]
    counts = [ids.count(i) for i in range(n_bins)]
    counts = np.array([c for c in counts if c > 0])
    assert len(counts) == len(prob_true)
    return float(np.sum(counts / len(q) * np.abs(prob_pred - prob_true)))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", range(6))
def test_ece_against_calibration_curve(strategy, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    q = np.round(rng.uniform(0, 1, n), 1)  # ties on bin edges
    y = rng.integers(0, 2, n)
    n_bins = int(rng.integers(1, 8))
    got = expected_calibration_error(y, q, n_bins=n_bins, strategy=strategy)
    assert got == pytest.approx(_ece_reference(y, q, n_bins, strategy), abs=1e-12)


def test_ece_weighted_hand_worked():
    # bins [0, .5], (.5, 1]; bin 0: w=3, mean q=(2*.1+1*.2)/3=.1333, rate=0
    # bin 1: w=1, q=.8, rate=1 -> ECE = 3/4*.1333 + 1/4*.2 = 0.15
    got = expected_calibration_error(
        [0, 0, 1], [0.1, 0.2, 0.8], n_bins=2, sample_weight=[2, 1, 1]
    )
    assert got == pytest.approx(0.15)


@pytest.mark.parametrize(
    "y, q, msg",
    [
        ([0, 1], [0.2, 1.5], r"\[0, 1\]"),
        ([0, 1], [0.2, np.nan], "NaN"),
        ([0, 1, 1], [0.2, 0.3], "lengths"),
        ([0, 2], [0.2, 0.3], "binary"),
    ],
)
@pytest.mark.parametrize(
    "func", [normalized_entropy, calibration_ratio, expected_calibration_error]
)
def test_bad_input(func, y, q, msg):
    with pytest.raises(ValueError, match=msg):
        func(y, q)


def test_inputs_not_modified():
    y = np.array([0, 1, 1])
    q = np.array([0.0, 1.0, 0.5])
    y0, q0 = y.copy(), q.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normalized_entropy(y, q)
        expected_calibration_error(y, q)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(q, q0)
