"""Tests of the CTR calibration metrics (normalized entropy, calibration
ratio, ECE, the calibration report and scorers)."""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.calibration import calibration_curve
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import log_loss

import sklearn_rankmetrics as srm


def ctr_data(seed, n=500, weighted=False, extremes=False):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, n)
    if extremes:
        # ties and the bin edges themselves
        p[: n // 5] = rng.choice([0.0, 0.1, 0.2, 0.5, 1.0], n // 5)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    w = rng.exponential(size=n) if weighted else None
    if weighted:
        w[::7] = 0.0
    return y, p, w


# -- slow, obvious references ----------------------------------------------
def ref_ne(y, p, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    eps = np.finfo(float).eps
    ll = 0.0
    for yi, pi, wi in zip(y, p, w, strict=True):
        pi = min(max(pi, eps), 1 - eps)
        ll -= wi * (math.log(pi) if yi == 1 else math.log(1 - pi))
    ll /= sum(w)
    rate = sum(wi * yi for yi, wi in zip(y, w, strict=True)) / sum(w)
    h = -(rate * math.log(rate) + (1 - rate) * math.log(1 - rate))
    return ll / h


def ref_ece_unweighted(y, p, n_bins, strategy):
    """Built on scikit-learn's calibration_curve (unweighted)."""
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    # recompute the bins by hand to get their sizes
    if strategy == "uniform":
        edges = np.linspace(0, 1, n_bins + 1)
    else:
        edges = np.percentile(p, np.linspace(0, 100, n_bins + 1))
    members = {}
    for yi, pi in zip(y, p, strict=True):
        b = 0
        while b < n_bins - 1 and pi > edges[b + 1]:
            b += 1
        members.setdefault(b, []).append((yi, pi))
    keys = sorted(members)
    assert len(keys) == len(prob_true)
    ece = 0.0
    for key, t, m in zip(keys, prob_true, prob_pred, strict=True):
        rows = members[key]
        assert math.isclose(sum(r[0] for r in rows) / len(rows), t, abs_tol=1e-12)
        assert math.isclose(sum(r[1] for r in rows) / len(rows), m, abs_tol=1e-12)
        ece += len(rows) / len(y) * abs(m - t)
    return ece


# -- normalized entropy --------------------------------------------------------
def test_ne_torcheval_anchors():
    assert round(srm.normalized_entropy([1, 0], [0.2, 0.3]), 4) == 1.4183
    assert (
        round(srm.normalized_entropy([1, 0], [0.2, 0.3], sample_weight=[5, 1]), 4)
        == 3.1087
    )
    # hand-worked: (-(ln .2 + ln .7) / 2) / ln 2
    assert_allclose(
        srm.normalized_entropy([1, 0], [0.2, 0.3]),
        -(math.log(0.2) + math.log(0.7)) / 2 / math.log(2),
        rtol=1e-14,
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_ne_against_reference_and_log_loss(seed, weighted):
    y, p, w = ctr_data(seed, weighted=weighted)
    got = srm.normalized_entropy(y, p, sample_weight=w)
    assert_allclose(got, ref_ne(y, p, w), rtol=1e-12)
    rate = np.average(y, weights=w)
    h = -(rate * np.log(rate) + (1 - rate) * np.log(1 - rate))
    assert_allclose(got, log_loss(y, p, sample_weight=w) / h, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_ne_is_one_minus_d2_log_loss(weighted):
    metrics = pytest.importorskip("sklearn.metrics")
    if not hasattr(metrics, "d2_log_loss_score"):
        pytest.skip("d2_log_loss_score needs scikit-learn >= 1.5")
    y, p, w = ctr_data(7, weighted=weighted)
    d2 = metrics.d2_log_loss_score(y, p, sample_weight=w)
    assert_allclose(srm.normalized_entropy(y, p, sample_weight=w), 1 - d2, rtol=1e-10)


def test_ne_of_base_rate_is_one_and_confident_errors_are_finite():
    y = np.array([1, 0, 0, 0])
    assert_allclose(srm.normalized_entropy(y, np.full(4, 0.25)), 1.0, rtol=1e-14)
    v = srm.normalized_entropy(y, [0.0, 1.0, 0.0, 0.0])
    assert np.isfinite(v) and v > 10


@pytest.mark.parametrize("y", [[0, 0, 0], [1, 1, 1]])
def test_ne_undefined_rule(y):
    with pytest.warns(UndefinedMetricWarning, match="undefined"):
        assert np.isnan(srm.normalized_entropy(y, [0.1, 0.2, 0.3]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert srm.normalized_entropy(y, [0.1, 0.2, 0.3], undefined_value=0.0) == 0.0


def test_ne_zero_weight_rows_do_not_count():
    y, p, w = ctr_data(3, weighted=True)
    keep = w > 0
    assert_allclose(
        srm.normalized_entropy(y, p, sample_weight=w),
        srm.normalized_entropy(y[keep], p[keep], sample_weight=w[keep]),
        rtol=1e-12,
    )


# -- calibration ratio -----------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_calibration_ratio_reference(weighted):
    y, p, w = ctr_data(11, weighted=weighted)
    ww = np.ones_like(p) if w is None else w
    expected = sum(pi * wi for pi, wi in zip(p, ww, strict=True)) / sum(
        yi * wi for yi, wi in zip(y, ww, strict=True)
    )
    assert_allclose(srm.calibration_ratio(y, p, sample_weight=w), expected, rtol=1e-12)


def test_calibration_ratio_hand_worked():
    assert srm.calibration_ratio([1, 0, 0, 1], [0.5, 0.25, 0.25, 0.5]) == 0.75
    # weights 2, 1, 1: predictions 2*.5 + .25 + .9 = 2.15; clicks 2 + 1 = 3
    assert_allclose(
        srm.calibration_ratio([1, 0, 1], [0.5, 0.25, 0.9], sample_weight=[2, 1, 1]),
        2.15 / 3,
    )
    assert srm.calibration_ratio([True, False], [1.0, 0.0]) == 1.0


def test_calibration_ratio_no_clicks_rule():
    with pytest.warns(UndefinedMetricWarning, match="without clicks"):
        assert np.isnan(srm.calibration_ratio([0, 0], [0.1, 0.2]))
    # clicks only on zero-weight rows count as no clicks
    with pytest.warns(UndefinedMetricWarning):
        srm.calibration_ratio([1, 0], [0.1, 0.2], sample_weight=[0, 1])
    assert srm.calibration_ratio([0, 0], [0.1, 0.2], undefined_value=-1.0) == -1.0


# -- ECE ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 3, 10])
def test_ece_against_calibration_curve(seed, strategy, n_bins):
    y, p, _ = ctr_data(seed, n=200, extremes=seed % 2 == 1)
    assert_allclose(
        srm.expected_calibration_error(y, p, n_bins=n_bins, strategy=strategy),
        ref_ece_unweighted(y, p, n_bins, strategy),
        rtol=1e-12,
        atol=1e-15,
    )


def test_ece_hand_worked():
    # two bins [0, .5], (.5, 1]: gaps |.1 + .3 - 1| / 2 = .3, |.8 + .9 - 1| / 2 = .35
    assert_allclose(
        srm.expected_calibration_error([0, 1, 1, 0], [0.1, 0.3, 0.8, 0.9], n_bins=2),
        0.5 * 0.3 + 0.5 * 0.35,
    )
    # weighted: weights 3, 1 | 1, 1 -> W = 6
    # bin 0: mean pred (.3 + .3) / 4 = .15, rate 1/4, share 4/6: gap .1
    # bin 1: mean pred .85, rate .5, share 2/6: gap .35
    assert_allclose(
        srm.expected_calibration_error(
            [0, 1, 1, 0], [0.1, 0.3, 0.8, 0.9], n_bins=2, sample_weight=[3, 1, 1, 1]
        ),
        4 / 6 * 0.1 + 2 / 6 * 0.35,
    )
    # integer weights = repeated rows
    assert_allclose(
        srm.expected_calibration_error(
            [0, 1, 1, 0], [0.1, 0.3, 0.8, 0.9], n_bins=2, sample_weight=[3, 1, 1, 1]
        ),
        srm.expected_calibration_error(
            [0, 0, 0, 1, 1, 0], [0.1, 0.1, 0.1, 0.3, 0.8, 0.9], n_bins=2
        ),
    )
    # perfectly calibrated bins
    assert srm.expected_calibration_error([0, 1], [0.5, 0.5]) == 0.0


# -- bad input ------------------------------------------------------------------
@pytest.mark.parametrize(
    "func",
    [srm.normalized_entropy, srm.calibration_ratio, srm.expected_calibration_error],
)
def test_bad_input(func):
    with pytest.raises(ValueError, match=r"y_prob must be probabilities in \[0, 1\]"):
        func([0, 1], [0.5, 1.5])
    with pytest.raises(ValueError, match=r"y_prob must be probabilities"):
        func([0, 1], [-0.1, 0.5])
    with pytest.raises(ValueError, match="NaN"):
        func([0, 1], [np.nan, 0.5])
    with pytest.raises(ValueError, match="same length"):
        func([0, 1, 1], [0.2, 0.5])
    with pytest.raises(ValueError, match="binary"):
        func([0, 2], [0.2, 0.5])
    with pytest.raises(ValueError, match="binary"):
        func([0, np.nan], [0.2, 0.5])
    with pytest.raises(ValueError, match="1-D"):
        func([[0, 1]], [[0.2, 0.5]])
    with pytest.raises(ValueError, match="empty"):
        func([], [])
    with pytest.raises(TypeError, match="numeric"):
        func(["a", "b"], [0.2, 0.5])
    with pytest.raises(ValueError, match="sample_weight"):
        func([0, 1], [0.2, 0.5], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sample_weight"):
        func([0, 1], [0.2, 0.5], sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="sample_weight sums to 0"):
        func([0, 1], [0.2, 0.5], sample_weight=[0, 0])


def test_ece_bad_options():
    with pytest.raises(ValueError, match="n_bins"):
        srm.expected_calibration_error([0, 1], [0.2, 0.5], n_bins=0)
    with pytest.raises(ValueError, match="n_bins"):
        srm.expected_calibration_error([0, 1], [0.2, 0.5], n_bins=2.5)
    with pytest.raises(ValueError, match="strategy"):
        srm.expected_calibration_error([0, 1], [0.2, 0.5], strategy="equal")


def test_inputs_not_modified():
    y, p, w = ctr_data(5, weighted=True)
    copies = y.copy(), p.copy(), w.copy()
    srm.normalized_entropy(y, p, sample_weight=w)
    srm.calibration_ratio(y, p, sample_weight=w)
    srm.expected_calibration_error(y, p, sample_weight=w, strategy="quantile")
    for a, b in zip((y, p, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)
