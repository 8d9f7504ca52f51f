"""Displays: the drawn data equal the metric values."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import MetricAtKDisplay, PerQueryDifferenceDisplay
from sklearn_rankmetrics._registry import METRICS

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(seed=0, n=40, m=25):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < 0.15) * rng.integers(1, 4, (n, m))
    return Y, 0.5 * Y + rng.random((n, m)), rng.random((n, m))


@pytest.mark.parametrize(
    "metric, func",
    [
        ("ndcg", srm.ndcg_at_k),
        ("precision", srm.precision_at_k),
        ("map", srm.average_precision_at_k),
        ("hit_rate", srm.hit_rate_at_k),
    ],
)
def test_metric_at_k_line_equals_metric_values(metric, func):
    Y, good, bad = _data()
    ks = [1, 2, 5, 10, 20]
    disp = MetricAtKDisplay.from_predictions(Y, good, metric=metric, k=ks, name="good")
    xy = disp.line_.get_xydata()
    assert_array_equal(xy[:, 0], ks)
    assert_array_equal(xy[:, 1], [func(Y, good, k=k) for k in ks])
    assert disp.ax_.get_ylabel() == f"{metric}@k"
    assert disp.figure_ is disp.ax_.figure
    # a second model on the same axes
    other = MetricAtKDisplay.from_predictions(
        Y, bad, metric=metric, k=ks, name="bad", ax=disp.ax_
    )
    assert other.ax_ is disp.ax_ and len(disp.ax_.get_lines()) == 2
    assert [t.get_text() for t in disp.ax_.get_legend().get_texts()] == ["good", "bad"]
    assert_array_equal(other.line_.get_ydata(), [func(Y, bad, k=k) for k in ks])


def test_metric_at_k_long_form_and_options():
    Y, good, _ = _data(1)
    n, m = Y.shape
    qid = np.repeat(np.arange(n), m)
    disp = MetricAtKDisplay.from_predictions(
        Y.ravel(),
        good.ravel(),
        query_id=qid,
        metric="ndcg",
        k=range(1, 6),
        metric_options={"gain": "exponential"},
        color="red",
    )
    expected = [
        srm.ndcg_at_k(Y.ravel(), good.ravel(), query_id=qid, k=k, gain="exponential")
        for k in range(1, 6)
    ]
    assert_array_equal(disp.line_.get_ydata(), expected)
    assert disp.line_.get_color() == "red"
    assert disp.ax_.get_legend() is None  # no name, no legend


def test_metric_at_k_plot_again_with_a_new_name():
    Y, good, _ = _data(2)
    disp = MetricAtKDisplay.from_predictions(Y, good, k=[1, 3], plot=False)
    assert not hasattr(disp, "line_")
    fig, ax = plt.subplots()
    disp.plot(ax=ax, name="renamed")
    assert disp.ax_ is ax and disp.line_.get_label() == "renamed"


def test_metric_at_k_from_estimator_multilabel_and_long_form():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] + rng.normal(size=(60, 3)) > 0.5).astype(int)
    clf = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    disp = MetricAtKDisplay.from_estimator(clf, X, Y, metric="mrr", k=[1, 2, 3])
    expected = [
        srm.reciprocal_rank_at_k(Y, clf.decision_function(X), k=k) for k in (1, 2, 3)
    ]
    assert_array_equal(disp.line_.get_ydata(), expected)
    assert disp.line_.get_label() == "OneVsRestClassifier"

    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    qid = np.repeat(np.arange(6), 10)
    lr = LogisticRegression().fit(X, y)
    disp = MetricAtKDisplay.from_estimator(
        lr, X, y, query_id=qid, metric="ndcg", k=[1, 5], name="lr"
    )
    expected = [
        srm.ndcg_at_k(y, lr.decision_function(X), query_id=qid, k=k) for k in (1, 5)
    ]
    assert_array_equal(disp.line_.get_ydata(), expected)
    with pytest.raises(ValueError, match="pass query_id"):
        MetricAtKDisplay.from_estimator(lr, X, y)


def test_metric_at_k_bad_metric():
    Y, good, _ = _data()
    with pytest.raises(ValueError, match="k must hold ints"):
        MetricAtKDisplay.from_predictions(Y, good, k=[0, 1])


@pytest.mark.parametrize("name", list(METRICS))
def test_metric_at_k_follows_the_registry_cutoff_flag(name):
    # A metric with a cut-off draws one point per k (its function at that
    # k); one without (r_precision, bpref, gauc: one value of the whole
    # list) is a clear error before any plotting -- it used to be accepted
    # and then failed inside matplotlib.
    Y, good, _ = _data()
    spec = METRICS[name]
    if spec.cutoff:
        disp = MetricAtKDisplay.from_predictions(Y, good, metric=name, k=[1, 3])
        want = [spec.function(Y, good, k=k) for k in (1, 3)]
        assert_array_equal(disp.line_.get_ydata(), want)
    else:
        with pytest.raises(ValueError, match=f"metric='{name}' takes no cut-off"):
            MetricAtKDisplay.from_predictions(Y, good, metric=name, k=[1, 3])


@pytest.mark.parametrize(
    "metric, error, message",
    [
        ("ndcg@5", ValueError, "without '@k'"),
        ("NDCG", ValueError, "did you mean 'ndcg'"),
        ("catalog_coverage", ValueError, "beyond-accuracy"),
        ("no_such_metric", ValueError, "'serendipity'"),  # every name listed
        (5, TypeError, "must be a str"),
    ],
)
def test_display_metric_names_follow_the_registry_rule(metric, error, message):
    Y, good, bad = _data()
    with pytest.raises(error, match=message):
        MetricAtKDisplay.from_predictions(Y, good, metric=metric, plot=False)
    with pytest.raises(error, match=message):
        PerQueryDifferenceDisplay.from_predictions(
            Y, good, bad, metric=metric, k=5, plot=False
        )


@pytest.mark.parametrize("kind", ["sorted", "hist"])
def test_per_query_difference_display(kind):
    Y, good, bad = _data(3)
    disp = PerQueryDifferenceDisplay.from_predictions(
        Y,
        good,
        bad,
        metric="ndcg",
        k=5,
        name="good",
        reference_name="bad",
        kind=kind,
    )
    d = srm.ndcg_at_k(Y, good, k=5, average=None) - srm.ndcg_at_k(
        Y, bad, k=5, average=None
    )
    assert_array_equal(disp.difference, d)
    kept = np.sort(d[~np.isnan(d)])
    assert disp.n_wins_ == (kept > 0).sum() and disp.n_losses_ == (kept < 0).sum()
    assert disp.n_wins_ + disp.n_losses_ + disp.n_ties_ == kept.size
    assert f"good better on {disp.n_wins_}" in disp.ax_.get_title()
    if kind == "sorted":
        xy = disp.line_.get_xydata()
        assert_array_equal(xy[:, 0], np.arange(1, kept.size + 1))
        assert_array_equal(xy[:, 1], kept)
        assert disp.ax_.get_ylabel() == "ndcg@5: good - bad"
    else:
        heights = [p.get_height() for p in disp.bars_]
        assert sum(heights) == kept.size
        assert_array_equal(heights, np.histogram(kept, bins=30)[0])


def test_per_query_difference_bad_input():
    Y, good, bad = _data()
    with pytest.raises(ValueError, match="same shape"):
        PerQueryDifferenceDisplay.from_predictions(Y, good, bad[:, :3])
    with pytest.raises(ValueError, match="single cut-off"):
        PerQueryDifferenceDisplay.from_predictions(Y, good, bad, k=(1, 2))
    disp = PerQueryDifferenceDisplay.from_predictions(Y, good, bad, plot=False)
    with pytest.raises(ValueError, match="kind must be"):
        disp.plot(kind="violin")


def test_per_query_difference_from_comparison():
    Y, good, bad = _data(4)
    res = srm.compare_rankings(
        Y, {"bad": bad, "good": good}, k=(3, 5), metrics=["map"], random_state=0
    )
    disp = PerQueryDifferenceDisplay.from_comparison(res, "good", "bad", metric="map@5")
    direct = PerQueryDifferenceDisplay.from_predictions(
        Y, good, bad, metric="map", k=5, plot=False
    )
    assert_array_equal(disp.difference, direct.difference)
    kept = np.sort(direct.difference[~np.isnan(direct.difference)])
    assert_array_equal(disp.line_.get_ydata(), kept)
    first = PerQueryDifferenceDisplay.from_comparison(res, "good", "bad", plot=False)
    assert first.metric == "map@3"
    with pytest.raises(ValueError, match="name='x' is not a model"):
        PerQueryDifferenceDisplay.from_comparison(res, "x", "bad")
    with pytest.raises(ValueError, match="metric='ndcg@5' is not in"):
        PerQueryDifferenceDisplay.from_comparison(res, "good", "bad", metric="ndcg@5")


@pytest.mark.parametrize(
    "metric, func", [("ndcg", srm.ndcg_at_k), ("map", srm.average_precision_at_k)]
)
def test_metric_at_k_sample_weight_equals_the_weighted_metric(metric, func):
    Y, good, _ = _data(seed=2)
    w = np.random.default_rng(3).random(Y.shape[0]) * 5
    ks = [1, 3, 10]
    disp = MetricAtKDisplay.from_predictions(
        Y, good, metric=metric, k=ks, sample_weight=w
    )
    expected = [func(Y, good, k=k, sample_weight=w) for k in ks]
    np.testing.assert_allclose(disp.line_.get_ydata(), expected, rtol=1e-12)
    unweighted = [func(Y, good, k=k) for k in ks]
    assert not np.allclose(expected, unweighted)  # the weights matter here
