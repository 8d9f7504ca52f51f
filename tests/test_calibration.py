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


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_ne_with_probabilities_zero_and_one(seed, weighted):
    # confidently wrong and confidently right rows: finite, as log loss clips
    y, p, w = ctr_data(seed, n=60, weighted=weighted, extremes=True)
    p[:4] = [0.0, 1.0, 0.0, 1.0]
    y[:4] = [1, 0, 0, 1]
    if weighted:
        w[:4] = [2.0, 0.5, 1.0, 3.0]
    got = srm.normalized_entropy(y, p, sample_weight=w)
    assert np.isfinite(got)
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


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_bins", [1, 4, 10])
def test_ece_integer_weights_are_repeated_rows(seed, n_bins):
    # uniform bins: weighted ECE equals the unweighted reference (built on
    # calibration_curve) on the rows repeated by their weights
    y, p, _ = ctr_data(seed, n=120, extremes=True)
    w = np.random.default_rng(seed).integers(0, 4, size=y.shape[0])
    w[0] = 1
    yy, pp = np.repeat(y, w), np.repeat(p, w)
    assert_allclose(
        srm.expected_calibration_error(y, p, n_bins=n_bins, sample_weight=w),
        ref_ece_unweighted(yy, pp, n_bins, "uniform"),
        rtol=1e-12,
        atol=1e-15,
    )


def test_ece_edge_inputs():
    # one impression: |p - y|; all-zero clicks: the mean prediction
    assert_allclose(srm.expected_calibration_error([1], [0.25]), 0.75)
    assert_allclose(srm.expected_calibration_error([0], [0.25]), 0.25)
    p = np.array([0.0, 0.05, 0.3, 0.95, 1.0])
    assert_allclose(
        srm.expected_calibration_error(np.zeros(5, int), p, n_bins=10), p.mean()
    )
    # probabilities 0 and 1 with matching outcomes are perfectly calibrated
    assert srm.expected_calibration_error([0, 1, 0, 1], [0.0, 1.0, 0.0, 1.0]) == 0.0


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


# -- calibration report -----------------------------------------------------
def ref_report(y, p, groups, w):
    """Per-group loop with the scalar metrics and scikit-learn's."""
    from sklearn.metrics import roc_auc_score

    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    out = {}
    for g in sorted(set(groups)):
        m = np.array([gi == g for gi in groups])
        yg, pg, wg = y[m], p[m], w[m]
        imp, clicks = wg.sum(), (wg * yg).sum()
        row = {
            "impressions": imp,
            "clicks": clicks,
            "ctr": clicks / imp,
            "mean_prediction": (wg * pg).sum() / imp,
            "calibration_ratio": (wg * pg).sum() / clicks if clicks > 0 else np.nan,
            "log_loss": log_loss(yg, pg, sample_weight=wg, labels=[0, 1]),
        }
        defined = 0 < clicks < imp and len(set(yg[wg > 0])) == 2
        row["normalized_entropy"] = ref_ne(yg, pg, wg) if defined else np.nan
        row["auc"] = roc_auc_score(yg, pg, sample_weight=wg) if defined else np.nan
        out[g] = row
    used = [g for g in out if out[g]["clicks"] > 0]
    num = sum(
        out[g]["impressions"]
        * abs(out[g]["clicks"] - out[g]["mean_prediction"] * out[g]["impressions"])
        / out[g]["clicks"]
        for g in used
    )
    rce = num / sum(out[g]["impressions"] for g in used) if used else np.nan
    return out, rce


def report_data(seed, weighted):
    y, p, w = ctr_data(seed, n=400, weighted=weighted)
    rng = np.random.default_rng(seed + 100)
    groups = rng.choice(["de", "fr", "us", "jp", "br"], size=y.shape[0]).astype("<U8")
    groups[0] = "solo"  # a field value with one impression
    if weighted:
        w[0] = 1.5
    y[groups == "br"] = 0  # a field value without clicks
    return y, p, w, groups


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_report_against_per_group_reference(seed, weighted):
    y, p, w, groups = report_data(seed, weighted)
    got = srm.calibration_report(y, p, groups=groups, sample_weight=w, output_dict=True)
    expected, rce = ref_report(y, p, list(groups), w)
    assert list(got["groups"]) == sorted(expected)
    for g, row in expected.items():
        for stat, value in row.items():
            assert_allclose(got["groups"][g][stat], value, rtol=1e-10, err_msg=stat)
    assert_allclose(got["field_rce"], rce, rtol=1e-12)
    # the overall row is the scalar metrics on all rows
    overall = got["overall"]
    assert_allclose(
        overall["normalized_entropy"], srm.normalized_entropy(y, p, sample_weight=w)
    )
    assert_allclose(
        overall["calibration_ratio"], srm.calibration_ratio(y, p, sample_weight=w)
    )
    from sklearn.metrics import roc_auc_score

    assert_allclose(overall["auc"], roc_auc_score(y, p, sample_weight=w))
    assert_allclose(overall["log_loss"], log_loss(y, p, sample_weight=w))


def test_report_edge_groups_rules():
    y, p, w, groups = report_data(0, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # table values: nan without warnings
        got = srm.calibration_report(y, p, groups=groups, output_dict=True)
    solo, br = got["groups"]["solo"], got["groups"]["br"]
    assert solo["impressions"] == 1
    assert np.isnan(solo["normalized_entropy"]) and np.isnan(solo["auc"])
    assert np.isnan(br["calibration_ratio"]) and br["clicks"] == 0
    assert np.isnan(br["normalized_entropy"])
    # no clicks anywhere: field RCE undefined
    none = srm.calibration_report(
        np.zeros(4, int), [0.1, 0.2, 0.3, 0.4], groups=[1, 1, 2, 2], output_dict=True
    )
    assert np.isnan(none["field_rce"])


def test_report_hand_worked_field_rce():
    # a: 3 impressions, 1 click, predictions sum 1.2 -> |1 - 1.2| / 1 = .2
    # b: 3 impressions, 1 click, predictions sum .8 -> .2
    # c: 2 impressions, 0 clicks -> left out;  RCE = (3 * .2 + 3 * .2) / 6
    y = [1, 0, 0, 1, 0, 0, 0, 0]
    p = [0.5, 0.5, 0.2, 0.4, 0.2, 0.2, 0.9, 0.9]
    g = ["a", "a", "a", "b", "b", "b", "c", "c"]
    got = srm.calibration_report(y, p, groups=g, output_dict=True)
    assert_allclose(got["field_rce"], 0.2)
    # weighted: b's rows weigh 3 -> b counts 9 impressions, same RCE .2;
    # a's first row weighs 2 -> a: clicks 2, predictions 1.7, |2 - 1.7| / 2 = .15
    got = srm.calibration_report(
        y, p, groups=g, sample_weight=[2, 1, 1, 3, 3, 3, 1, 1], output_dict=True
    )
    assert_allclose(got["field_rce"], (4 * 0.15 + 9 * 0.2) / 13)
    # without groups: |C - P| / C of all rows
    got = srm.calibration_report(y, p, output_dict=True)
    assert_allclose(got["field_rce"], abs(2 - sum(p)) / 2)
    assert list(got["groups"]) == ["all"]


def test_report_text_and_per_group():
    y, p, w, groups = report_data(1, True)
    text = srm.calibration_report(y, p, groups=groups, sample_weight=w, digits=3)
    d = srm.calibration_report(y, p, groups=groups, sample_weight=w, output_dict=True)
    lines = text.splitlines()
    # the printed columns are the keys of output_dict and of per_group (the
    # table named mean_prediction "mean_pred", normalized_entropy "ne", ...)
    header = lines[0].split()
    assert header == ["group", *d["overall"]]
    assert f"field_rce: {d['field_rce']:.3f}" in text
    for line in lines[1:]:
        if not line.strip() or line.startswith("field_rce"):
            continue
        cells = dict(zip(header, line.split(), strict=True))
        stats = d["overall"] if cells["group"] == "overall" else d["groups"]
        values = stats if cells["group"] == "overall" else stats[cells["group"]]
        for key, value in values.items():
            assert cells[key] == f"{value:.3f}" or (
                key in ("impressions", "clicks") and cells[key] == f"{value:.0f}"
            ), (cells["group"], key)
    table = srm.calibration_report(
        y, p, groups=groups, sample_weight=w, per_group=True, output_dict=True
    )
    assert isinstance(table, dict)
    assert list(table) == header
    assert table["group"].tolist() == sorted(set(groups))
    i = table["group"].tolist().index("fr")
    assert table["auc"][i] == d["groups"]["fr"]["auc"]
    pd = pytest.importorskip("pandas")
    frame = srm.calibration_report(y, p, groups=groups, sample_weight=w, per_group=True)
    assert isinstance(frame, pd.DataFrame)
    assert_allclose(frame["log_loss"].to_numpy(), table["log_loss"])


def test_report_bad_input():
    with pytest.raises(ValueError, match="groups has 1 entries"):
        srm.calibration_report([0, 1], [0.2, 0.5], groups=[1])
    with pytest.raises(ValueError, match="groups contains NaN"):
        srm.calibration_report([0, 1], [0.2, 0.5], groups=[1.0, np.nan])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        srm.calibration_report([0, 1], [0.2, 5.0], groups=[1, 2])
    with pytest.raises(ValueError, match="digits"):
        srm.calibration_report([0, 1], [0.2, 0.5], digits=-1)


# -- scorers ----------------------------------------------------------------
def _classification_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (rng.uniform(size=300) < 1 / (1 + np.exp(-(X[:, 0] - 0.5 * X[:, 1])))).astype(
        int
    )
    return X, y


@pytest.mark.parametrize(
    "name, func, options",
    [
        ("neg_normalized_entropy", srm.normalized_entropy, {}),
        ("neg_expected_calibration_error", srm.expected_calibration_error, {}),
        (
            "neg_expected_calibration_error",
            srm.expected_calibration_error,
            {"n_bins": 5, "strategy": "quantile"},
        ),
    ],
)
def test_calibration_scorers_in_grid_search(name, func, options):
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, KFold

    X, y = _classification_data()
    cv = KFold(3, shuffle=True, random_state=0)
    grid = {"C": [0.01, 1.0]}
    scorer = srm.get_scorer(name, **options)
    search = GridSearchCV(LogisticRegression(), grid, scoring=scorer, cv=cv).fit(X, y)
    # the same folds by hand: the metric of predict_proba[:, 1], negated
    for i, C in enumerate(grid["C"]):
        folds = []
        for train, test in cv.split(X):
            model = clone(LogisticRegression(C=C)).fit(X[train], y[train])
            folds.append(-func(y[test], model.predict_proba(X[test])[:, 1], **options))
        assert_allclose(search.cv_results_["mean_test_score"][i], np.mean(folds))
    # through make_scoring, next to scikit-learn's neg_log_loss
    scoring = srm.make_scoring([name, "neg_log_loss"])
    multi = GridSearchCV(
        LogisticRegression(), grid, scoring=scoring, cv=cv, refit=name
    ).fit(X, y)
    if not options:
        assert_allclose(
            multi.cv_results_[f"mean_test_{name}"],
            search.cv_results_["mean_test_score"],
        )
    assert multi.best_score_ == max(multi.cv_results_[f"mean_test_{name}"])


def test_neg_normalized_entropy_scorer_value_and_weights():
    from sklearn.linear_model import LogisticRegression

    X, y = _classification_data()
    model = LogisticRegression().fit(X, y)
    p = model.predict_proba(X)[:, 1]
    scorer = srm.get_scorer("neg_normalized_entropy")
    assert_allclose(scorer(model, X, y), -srm.normalized_entropy(y, p))
    w = np.linspace(0.5, 2, y.shape[0])
    assert_allclose(
        scorer(model, X, y, sample_weight=w),
        -srm.normalized_entropy(y, p, sample_weight=w),
    )


def test_calibration_scorer_bad_options():
    with pytest.raises(TypeError, match="does not take the option 'k'"):
        srm.get_scorer("neg_normalized_entropy", k=3)
    with pytest.raises(TypeError, match="sample_weight"):
        srm.get_scorer("neg_normalized_entropy", sample_weight=[1, 2])
    with pytest.raises(ValueError, match="n_bins"):
        srm.get_scorer("neg_expected_calibration_error", n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        srm.get_scorer("neg_expected_calibration_error", strategy="bad")


# -- GroupCalibrationDisplay --------------------------------------------------
def test_wilson_interval_against_scipy():
    from scipy.stats import binomtest

    from sklearn_rankmetrics._plot._group_calibration import wilson_interval

    for k, n, conf in [(0, 5, 0.95), (1, 3, 0.95), (7, 20, 0.9), (20, 20, 0.99)]:
        ci = binomtest(k, n).proportion_ci(confidence_level=conf, method="wilson")
        lo, hi = wilson_interval(np.array([k]), np.array([n]), conf)
        assert_allclose([lo[0], hi[0]], [ci.low, ci.high], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
def test_group_calibration_display_artists(weighted):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.stats import binomtest

    y, p, w, groups = report_data(2, weighted)
    keep = groups != "solo"
    y, p, groups = y[keep], p[keep], groups[keep]
    w = None if w is None else w[keep]
    display = srm.GroupCalibrationDisplay.from_predictions(
        y, p, groups=groups, sample_weight=w, name="lr"
    )
    report = srm.calibration_report(
        y, p, groups=groups, sample_weight=w, output_dict=True
    )
    names = sorted(set(groups))
    assert display.groups.tolist() == names
    xy = display.line_.get_xydata()
    assert_allclose(xy[:, 0], [report["groups"][g]["mean_prediction"] for g in names])
    assert_allclose(xy[:, 1], [report["groups"][g]["ctr"] for g in names])
    # the error bars' segments run from lower to upper
    segments = display.errorbar_.lines[2][0].get_segments()
    assert_allclose([s[0][1] for s in segments], display.lower)
    assert_allclose([s[1][1] for s in segments], display.upper)
    if not weighted:
        for i, g in enumerate(names):
            m = groups == g
            ci = binomtest(int(y[m].sum()), int(m.sum())).proportion_ci(method="wilson")
            assert_allclose([display.lower[i], display.upper[i]], [ci.low, ci.high])
    else:
        # Kish's effective size: equal weights give the unweighted interval
        same = srm.GroupCalibrationDisplay.from_predictions(
            y, p, groups=groups, sample_weight=np.full(y.shape, 2.5), plot=False
        )
        plain = srm.GroupCalibrationDisplay.from_predictions(
            y, p, groups=groups, plot=False
        )
        assert_allclose(same.lower, plain.lower)
        assert_allclose(same.upper, plain.upper)
    assert display.ax_.get_legend() is not None
    assert display.figure_ is display.ax_.figure
    plt.close("all")


def test_group_calibration_display_from_estimator():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.linear_model import LogisticRegression

    X, y = _classification_data()
    groups = np.where(X[:, 2] > 0, "up", "down")
    model = LogisticRegression().fit(X, y)
    fig, ax = plt.subplots()
    display = srm.GroupCalibrationDisplay.from_estimator(
        model, X, y, groups=groups, ax=ax
    )
    assert display.ax_ is ax
    expected = srm.GroupCalibrationDisplay.from_predictions(
        y, model.predict_proba(X)[:, 1], groups=groups, plot=False
    )
    assert_allclose(display.mean_prediction, expected.mean_prediction)
    assert display.name == "LogisticRegression"
    with pytest.raises(ValueError, match="confidence"):
        srm.GroupCalibrationDisplay.from_predictions(
            y, model.predict_proba(X)[:, 1], groups=groups, confidence=95
        )
    plt.close("all")


# -- mergeable, windowed state ----------------------------------------------
def _batches(weighted):
    y, p, w, groups = report_data(4, weighted)
    cuts = [0, 37, 38, 150, 260, 400]  # one batch of a single row
    return [
        (y[a:b], p[a:b], groups[a:b], None if w is None else w[a:b])
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]


def _assert_report_equal(state_report, y, p, groups, w):
    batch = srm.calibration_report(
        y, p, groups=groups, sample_weight=w, output_dict=True
    )
    assert list(state_report["groups"]) == list(batch["groups"])
    for key in ("overall",):
        for stat, value in state_report[key].items():
            assert_allclose(value, batch[key][stat], rtol=1e-12, err_msg=stat)
    for g, row in state_report["groups"].items():
        assert "auc" not in row
        for stat, value in row.items():
            assert_allclose(value, batch["groups"][g][stat], rtol=1e-12, err_msg=stat)
    assert_allclose(state_report["field_rce"], batch["field_rce"], rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("window", [1, 2, 3, 10])
def test_state_lifetime_and_window_equal_batch_report(weighted, window):
    batches = _batches(weighted)
    state = srm.CalibrationEvaluator(window=window)
    for i, (y, p, g, w) in enumerate(batches, start=1):
        state.update(y, p, groups=g, sample_weight=w)
        seen, recent = batches[:i], batches[max(0, i - window) : i]
        for part, result in (
            (seen, state.result()),
            (recent, state.result(window=True)),
        ):
            cat = [np.concatenate([b[j] for b in part]) for j in range(3)]
            ws = None if not weighted else np.concatenate([b[3] for b in part])
            _assert_report_equal(result, *cat, ws)


def test_state_merge_equals_sequential_updates():
    batches = _batches(True)
    one = srm.CalibrationEvaluator(window=3)
    left, right = srm.CalibrationEvaluator(window=3), srm.CalibrationEvaluator(window=3)
    for i, (y, p, g, w) in enumerate(batches):
        one.update(y, p, groups=g, sample_weight=w)
        (left if i < 2 else right).update(y, p, groups=g, sample_weight=w)
    merged = left.merge(right)
    for window in (False, True):
        a, b = one.result(window=window), merged.result(window=window)
        assert list(a["groups"]) == list(b["groups"])
        assert_allclose(a["field_rce"], b["field_rce"], rtol=1e-12)
        for g in a["groups"]:
            for stat in a["groups"][g]:
                assert_allclose(a["groups"][g][stat], b["groups"][g][stat], rtol=1e-12)


def test_state_errors():
    with pytest.raises(ValueError, match="window"):
        srm.CalibrationEvaluator(window=0)
    state = srm.CalibrationEvaluator()
    with pytest.raises(ValueError, match="update"):
        state.result()
    state.update([0, 1], [0.2, 0.6])
    assert list(state.result()["groups"]) == ["all"]
    with pytest.raises(ValueError, match="no window"):
        state.result(window=True)
    with pytest.raises(ValueError, match="different windows"):
        state.merge(srm.CalibrationEvaluator(window=2))
    with pytest.raises(TypeError, match="CalibrationEvaluator"):
        state.merge({})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        state.update([0, 1], [0.2, 1.6])
