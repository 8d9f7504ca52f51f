"""compare_rankings: its statistics are scipy's on the per-query values."""

import warnings

import numpy as np
import pytest
import scipy.stats
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._cli import _demo
from sklearn_rankmetrics._evaluation import _compare
from sklearn_rankmetrics._evaluation._compare import (
    _bootstrap_means,
    _scipy_rng_kwarg,
    _sign_flip_pvalues,
    adjust_pvalues,
)
from sklearn_rankmetrics._evaluation._per_query import _per_query_report
from sklearn_rankmetrics._utils._averaging import weighted_mean


def _data(seed=0, n=60, m=20, n_models=3):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < 0.15) * rng.integers(1, 3, (n, m))
    scores = {f"model{i}": 0.15 * i * Y + rng.random((n, m)) for i in range(n_models)}
    return Y, scores


def _rng(seed, func):
    return {_scipy_rng_kwarg(func): np.random.default_rng(seed)}


def test_means_and_intervals_equal_scipy_bootstrap_on_the_per_query_values():
    Y, scores = _data()
    res = srm.compare_rankings(
        Y,
        scores,
        k=5,
        metrics=["ndcg", "precision", "gauc"],
        n_bootstrap=300,
        confidence_level=0.9,
        random_state=3,
    )
    for i, model in enumerate(res.models):
        for j, name in enumerate(res.metrics):
            metric, _, k = name.partition("@")
            func = _per_query_report
            report = func(
                Y,
                scores[model],
                k=5,
                metrics=[metric],
                query_id=None,
                sample_weight=None,
            )
            values = report.values[name]
            assert_array_equal(res.per_query_values[model][:, j], values)
            v = values[~np.isnan(values)]
            # the report's own mean (GAUC: weighted by impressions, here every
            # query's 20 items, so the plain mean to rounding)
            want = srm.ranking_report(
                Y, scores[model], k=5, metrics=[metric], output_dict=True
            )[name]
            assert res.mean[i, j] == want == weighted_mean(values, report.weights[name])
            assert res.mean[i, j] == pytest.approx(v.mean(), rel=1e-14)
            assert res.n_queries[i, j] == v.size
            ci = scipy.stats.bootstrap(
                (v,),
                np.mean,
                n_resamples=300,
                batch=_compare._batch_size(v.size),
                confidence_level=0.9,
                method="percentile",
                **_rng(3, scipy.stats.bootstrap),
            ).confidence_interval
            assert_allclose([res.ci_low[i, j], res.ci_high[i, j]], ci, rtol=1e-12)


@pytest.mark.parametrize("test", ["t-test", "wilcoxon"])
def test_ttest_and_wilcoxon_equal_scipy(test):
    Y, scores = _data(1)
    res = srm.compare_rankings(
        Y,
        scores,
        k=10,
        metrics=["map", "mrr"],
        test=test,
        correction=None,
        random_state=0,
    )
    assert res.pairs == [
        ("model1", "model0"),
        ("model2", "model0"),
        ("model2", "model1"),
    ]
    func = scipy.stats.ttest_rel if test == "t-test" else scipy.stats.wilcoxon
    for p, (model, ref) in enumerate(res.pairs):
        for j in range(2):
            a, b = res.per_query_values[ref][:, j], res.per_query_values[model][:, j]
            keep = ~np.isnan(a) & ~np.isnan(b)
            expected = func(b[keep], a[keep])
            assert res.pvalue[p, j] == expected.pvalue
            assert res.statistic[p, j] == expected.statistic
            assert res.pvalue_corrected[p, j] == res.pvalue[p, j]
            assert res.difference[p, j] == pytest.approx((b - a)[keep].mean())
            assert res.n_paired[p, j] == keep.sum()


def _scipy_sign_flip(d, n_resamples, seed):
    with np.errstate(over="ignore"):  # scipy 1.9 overflows computing n!
        return scipy.stats.permutation_test(
            (d,),
            lambda x, axis: np.mean(x, axis=axis),
            vectorized=True,
            permutation_type="samples",
            n_resamples=n_resamples,
            **_rng(seed, scipy.stats.permutation_test),
        )


def test_sign_flip_equals_scipy_permutation_test_when_exact():
    rng = np.random.default_rng(0)
    D = rng.normal(0.3, 1.0, size=(11, 4))  # 2**11 sign vectors <= 9999
    stat, p = _sign_flip_pvalues(D, np.full(4, 11), 9999, seed=0)
    for j in range(4):
        expected = _scipy_sign_flip(D[:, j], 9999, 0)
        assert stat[j] == pytest.approx(expected.statistic, rel=1e-14)
        assert p[j] == expected.pvalue


def test_sign_flip_agrees_with_scipy_within_monte_carlo_error():
    rng = np.random.default_rng(1)
    D = rng.normal(0.0, 1.0, size=(150, 3)) + [0.0, 0.12, 0.25]
    _, p = _sign_flip_pvalues(D, np.full(3, 150), 9999, seed=5)
    for j in range(3):
        expected = _scipy_sign_flip(D[:, j], 9999, 7).pvalue
        # two independent estimates of the same p: sd <= sqrt(2 p / 9999)
        assert abs(p[j] - expected) < 6 * np.sqrt(2 * max(expected, 0.01) / 9999)


def test_dropped_queries_do_not_move_the_randomization_test():
    rng = np.random.default_rng(2)
    d = rng.normal(0.2, 1.0, size=12)
    padded = np.concatenate([d, np.zeros(5)])[:, None]  # 5 queries dropped
    stat, p = _sign_flip_pvalues(padded, np.array([12]), 2**17, seed=0)
    stat_12, p_12 = _sign_flip_pvalues(d[:, None], np.array([12]), 2**17, seed=0)
    assert stat[0] == pytest.approx(stat_12[0]) == pytest.approx(d.mean())
    assert p[0] == p_12[0]  # exact enumeration in both cases


def test_simulation_interval_coverage_and_test_size():
    """Seeded: intervals cover the true mean ~95 % of the time, the tests
    reject a true null ~5 % of the time (loose bounds)."""
    rng = np.random.default_rng(42)
    n, reps = 80, 400
    V = rng.exponential(0.5, size=(n, reps))  # skewed per-query values
    low, high = _bootstrap_means(V, 0.95, 999, seed=1)
    coverage = np.mean((low <= 0.5) & (0.5 <= high))
    assert 0.88 <= coverage <= 0.99
    D = rng.normal(0.0, 1.0, size=(n, reps)) * rng.exponential(1.0, (n, 1))
    _, p = _sign_flip_pvalues(D, np.full(reps, n), 999, seed=2)
    assert 0.02 <= np.mean(p < 0.05) <= 0.09
    p_t = scipy.stats.ttest_rel(D, np.zeros_like(D)).pvalue
    assert 0.02 <= np.mean(p_t < 0.05) <= 0.09
    # under an alternative the test has power
    _, p_alt = _sign_flip_pvalues(D + 1.0, np.full(reps, n), 999, seed=2)
    assert np.mean(p_alt < 0.05) > 0.8


def test_corrections():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    assert_allclose(adjust_pvalues(p, "bonferroni")[:4], [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, running max
    assert_allclose(adjust_pvalues(p, "holm")[:4], [0.03, 0.06, 0.06, 0.02])
    # BH: sorted times 4/1, 4/2, 4/3, 4/4, running min from the top
    assert_allclose(adjust_pvalues(p, "fdr_bh")[:4], [0.02, 0.04, 0.04, 0.02])
    assert np.isnan(adjust_pvalues(p, "holm")[4])
    assert_array_equal(adjust_pvalues(p, None)[:4], p[:4])


def test_benjamini_hochberg_fallback_equals_scipy(monkeypatch):
    rng = np.random.default_rng(0)
    p = rng.random(50) ** 3
    with_scipy = _compare._benjamini_hochberg(p)
    if hasattr(scipy.stats, "false_discovery_control"):
        assert_allclose(with_scipy, scipy.stats.false_discovery_control(p))
        monkeypatch.delattr(scipy.stats, "false_discovery_control")
    fallback = _compare._benjamini_hochberg(p)
    assert_allclose(fallback, with_scipy, rtol=1e-14)
    assert (fallback >= p).all() and (fallback <= 1).all()


def test_deterministic_under_random_state_and_table():
    Y, scores = _data(3)
    kw = dict(k=(5, 10), metrics=["ndcg", "hit_rate"], baseline="model0")
    a = srm.compare_rankings(Y, scores, random_state=0, **kw).to_dict()
    b = srm.compare_rankings(Y, scores, random_state=0, **kw).to_dict()
    c = srm.compare_rankings(Y, scores, random_state=1, **kw).to_dict()
    assert a == b
    assert a["summary"] != c["summary"]
    res = srm.compare_rankings(Y, scores, random_state=0, **kw)
    assert res.metrics == ["ndcg@5", "ndcg@10", "hit_rate@5", "hit_rate@10"]
    assert res.pairs == [("model1", "model0"), ("model2", "model0")]
    text = str(res)
    assert text.splitlines()[0].split()[:5] == ["metric", "model", "mean", "95%", "CI"]
    wins = res.wins()
    for p, (model, ref) in enumerate(res.pairs):
        for j, metric in enumerate(res.metrics):
            beats = res.significant[p, j] and res.difference[p, j] > 0
            assert (ref in wins[model, metric]) == beats
    assert res.significant.any()  # model2 is much better than model0
    row = [line for line in text.splitlines() if "c model2" in line][0]
    assert row.rstrip().endswith(" a")


def test_to_frame():
    pd = pytest.importorskip("pandas")
    Y, scores = _data(4)
    res = srm.compare_rankings(
        Y, scores, k=3, metrics=["ndcg"], baseline="model1", random_state=0
    )
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.tolist() == [("ndcg@3", f"model{i}") for i in range(3)]
    assert np.isnan(frame.loc[("ndcg@3", "model1"), "pvalue"])
    assert frame.loc[("ndcg@3", "model2"), "pvalue"] == res.pvalue[1, 0]
    assert_array_equal(frame["mean"], res.mean[:, 0])


def test_all_queries_skipped_is_nan_with_a_warning():
    Y = np.zeros((5, 4))
    rng = np.random.default_rng(0)
    scores = {"a": rng.random((5, 4)), "b": rng.random((5, 4))}
    with pytest.warns(UndefinedMetricWarning, match="ndcg@2"):
        res = srm.compare_rankings(Y, scores, k=2, metrics=["ndcg"], random_state=0)
    assert np.isnan(res.mean).all() and np.isnan(res.pvalue).all()
    assert not res.significant.any()
    assert "nan" in str(res)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"y_scores": {"a": 1}}, ValueError, "at least two models"),
        ({"y_scores": [1, 2]}, TypeError, "must be a dict"),
        ({"bad_shape": True}, ValueError, r"y_scores\['b'\] has shape \(6, 4\)"),
        ({"baseline": "c"}, ValueError, "baseline='c' is not a model"),
        ({"metrics": ["ndcg@5"]}, ValueError, "without '@k'"),
        ({"metrics": ["nope"]}, ValueError, "unknown metric"),
        ({"k": 0}, ValueError, "k must hold ints >= 1"),
        ({"n_resamples": 0}, ValueError, "n_resamples must be an int >= 1"),
        ({"n_bootstrap": 0.5}, ValueError, "n_bootstrap must be an int >= 1"),
        ({"test": "z"}, ValueError, "test must be one of"),
        ({"correction": "bh"}, ValueError, "correction must be one of"),
        ({"confidence_level": 95}, ValueError, "confidence_level"),
        ({"sample_weight": np.ones(6)}, TypeError, "sample_weight"),
        ({"random_state": "x"}, TypeError, "random_state"),
    ],
)
def test_bad_input(kwargs, error, match):
    rng = np.random.default_rng(0)
    Y = rng.random((6, 5)) < 0.3
    scores = {"a": rng.random((6, 5)), "b": rng.random((6, 5))}
    if kwargs.pop("bad_shape", False):
        scores["b"] = scores["b"][:, :4]
    scores = kwargs.pop("y_scores", scores)
    with pytest.raises(error, match=match):
        srm.compare_rankings(Y, scores, **kwargs)


def test_long_form_and_identical_models():
    rng = np.random.default_rng(5)
    n = 400
    qid = rng.integers(0, 40, n)
    y = rng.random(n) < 0.3
    s = rng.random(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = srm.compare_rankings(
            y,
            {"a": s, "b": s.copy()},
            query_id=qid,
            metrics=["map", "gauc"],
            random_state=0,
            test="wilcoxon",
            query_weighting="uniform",  # the Wilcoxon test weighs queries alike
        )
    assert_array_equal(res.query_id, np.unique(qid))
    assert (res.pvalue == 1.0).all() and (res.difference == 0).all()
    gauc = srm.group_auc_score(y, s, query_id=qid, query_weighting="uniform")
    assert res.mean[0, 1] == pytest.approx(gauc, rel=1e-14)
    res = srm.compare_rankings(
        y, {"a": s, "b": s.copy()}, query_id=qid, metrics=["gauc"], random_state=0
    )
    assert res.mean[0, 0] == srm.group_auc_score(y, s, query_id=qid)
    assert res.pvalue[0, 0] == 1.0 and res.difference[0, 0] == 0


def test_report_and_compare_text_for_the_demo():
    Y, scores = _data(6)
    text = _demo._report_and_compare(
        Y, scores, best="model2", baseline="model0", k=(1, 10), random_state=0
    )
    assert text.startswith("Ranking report of 'model2'\n\n")
    assert srm.ranking_report(Y, scores["model2"], k=(1, 10)) in text
    comparison = srm.compare_rankings(  # the registry's default metrics
        Y, scores, k=10, baseline="model0", random_state=0
    )
    assert text.endswith(f"Every model against 'model0'\n\n{comparison}\n")
    with pytest.raises(ValueError, match="best='x' is not a model"):
        _demo._report_and_compare(Y, scores, best="x", baseline="model0")


def test_a_single_query_warns_and_has_no_interval():
    rng = np.random.default_rng(0)
    Y = np.array([[1, 0, 0, 1]])
    scores = {"a": rng.random((1, 4)), "b": rng.random((1, 4))}
    with pytest.warns(UserWarning, match="a single query"):
        res = srm.compare_rankings(Y, scores, k=2, metrics=["ndcg"], random_state=0)
    assert np.isnan(res.ci_low).all() and np.isnan(res.ci_high).all()
    assert res.pvalue[0, 0] == 1.0  # both signs of one difference: exact test


def test_to_frame_and_dict_without_baseline():
    pytest.importorskip("pandas")
    Y, scores = _data(7)
    res = srm.compare_rankings(Y, scores, k=5, metrics=["ndcg"], random_state=0)
    frame = res.to_frame()
    assert "pvalue" not in frame.columns  # every pair: see to_dict()["tests"]
    wins = res.wins()
    for model in res.models:
        assert frame.loc[("ndcg@5", model), "wins_over"] == ", ".join(
            wins[model, "ndcg@5"]
        )
    tests = res.to_dict()["tests"]
    assert [(t["model"], t["reference"]) for t in tests] == res.pairs
    assert [t["pvalue"] for t in tests] == res.pvalue[:, 0].tolist()


def test_compare_values_is_the_engine_of_compare_rankings():
    # The private entry point (used by the command line with per-query
    # values computed under trec_eval's conventions) gives the same result
    # as compare_rankings from the same per-query values.
    from sklearn_rankmetrics._evaluation._compare import _compare_values

    rng = np.random.default_rng(3)
    y_true = rng.random((60, 12)) < 0.2
    scores = {"a": rng.random((60, 12)), "b": y_true + rng.random((60, 12))}
    kw = dict(test="wilcoxon", correction="bonferroni", random_state=5)
    ref = srm.compare_rankings(y_true, scores, k=5, metrics=["ndcg", "map"], **kw)
    got = _compare_values(ref.per_query_values, ref.metrics, ref.query_id, **kw)
    assert got.to_dict() == ref.to_dict()
    assert str(got) == str(ref)
    with pytest.raises(ValueError, match="at least two models"):
        _compare_values({"a": ref.per_query_values["a"]}, ref.metrics, ref.query_id)


def test_per_query_attribute_is_a_deprecated_alias_of_per_query_values():
    # per_query= asks for per-query output everywhere else; the comparison's
    # dict of per-query values is per_query_values, per_query still works
    rng = np.random.default_rng(4)
    y_true = rng.random((20, 6)) < 0.3
    scores = {"a": rng.random((20, 6)), "b": rng.random((20, 6))}
    res = srm.compare_rankings(y_true, scores, k=3, metrics=["ndcg"], n_resamples=9)
    want = srm.ndcg_at_k(y_true, scores["b"], k=3, average=None)
    assert_array_equal(res.per_query_values["b"][:, 0], want)
    with pytest.warns(FutureWarning, match="use per_query_values"):
        old = res.per_query
    assert old is res.per_query_values


def _gauc_log(seed=3, n_q=12):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_q), rng.integers(2, 9, n_q))
    y = (rng.random(qid.size) < 0.4).astype(int)
    y[qid == 0] = [1] + [0] * (np.count_nonzero(qid == 0) - 1)
    s = np.round(rng.random(qid.size), 1)
    s[rng.random(qid.size) < 0.1] = -np.inf  # not candidates, in both models
    s2 = np.where(s > -np.inf, rng.random(qid.size), -np.inf)
    return y, s, s2, qid


@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
def test_gauc_is_the_report_value_under_every_weighting(weighting):
    """Issue 27: compare_rankings' GAUC was the uniform mean (0.7510) when
    the report and group_auc_score weigh queries by impressions (0.7374);
    each model's mean is now the report's, bit for bit."""
    y, s, s2, qid = _gauc_log()
    scores = {"a": s, "b": s2}
    res = srm.compare_rankings(
        y,
        scores,
        query_id=qid,
        metrics=["gauc", "ndcg"],
        k=3,
        query_weighting=weighting,
        random_state=0,
        n_resamples=2**12,
    )
    for i, score in enumerate((s, s2)):
        report = srm.ranking_report(
            y,
            score,
            query_id=qid,
            metrics=["gauc"],
            output_dict=True,
            query_weighting=weighting,
        )
        assert res.mean[i, 0] == report["gauc"]
        kw = dict(query_id=qid, query_weighting=weighting)
        assert res.mean[i, 0] == pytest.approx(srm.group_auc_score(y, score, **kw))
    # the weighted paired difference and its exact randomization test:
    # statistic sum(w d) / sum(w), the p-value of scipy's test of it
    a, b = (srm.group_auc_score(y, x, average=None, **kw) for x in (s, s2))
    w = res.query_weights["a"][:, 0]
    assert_array_equal(w, res.query_weights["b"][:, 0])
    keep = ~np.isnan(a) & ~np.isnan(b)
    d, wk = (b - a)[keep], w[keep]
    assert res.difference[0, 0] == pytest.approx(np.sum(wk * d) / wk.sum(), rel=1e-14)
    nonzero = d != 0
    assert 2 ** np.count_nonzero(nonzero) <= 2**12  # exact: every sign vector
    expected = scipy.stats.permutation_test(
        (d[nonzero],),
        lambda x, axis: np.sum(wk[nonzero] * x, axis=axis) / wk.sum(),
        vectorized=True,
        permutation_type="samples",
        n_resamples=2**12,
    )
    assert res.statistic[0, 0] == pytest.approx(expected.statistic, rel=1e-12)
    assert res.pvalue[0, 0] == pytest.approx(expected.pvalue, rel=1e-12)
    # the bootstrap resamples queries with their weights: the interval
    # holds the weighted mean
    assert res.ci_low[0, 0] <= res.mean[0, 0] <= res.ci_high[0, 0]


def test_gauc_weights_that_cannot_be_paired_are_refused():
    y, s, s2, qid = _gauc_log()
    # the t-test and Wilcoxon weigh queries alike: unequal GAUC weights refused
    for test in ("t-test", "wilcoxon"):
        with pytest.raises(ValueError, match="weighs every query alike"):
            srm.compare_rankings(
                y, {"a": s, "b": s2}, query_id=qid, metrics=["gauc"], test=test
            )
        srm.compare_rankings(
            y,
            {"a": s, "b": s2},
            query_id=qid,
            metrics=["gauc"],
            test=test,
            query_weighting="uniform",
        )
    # other candidates (other items at -inf): a query weighs differently for
    # the two models, which a paired test cannot weigh
    s3 = s2.copy()
    s3[np.flatnonzero((qid == 0) & (y == 0))[0]] = -np.inf
    with pytest.raises(ValueError, match="weighs differently for 'b' and 'a'"):
        srm.compare_rankings(y, {"a": s, "b": s3}, query_id=qid, metrics=["gauc"])
    res = srm.compare_rankings(
        y,
        {"a": s, "b": s3},
        query_id=qid,
        metrics=["gauc"],
        query_weighting="uniform",
        random_state=0,
    )
    want = srm.group_auc_score(y, s3, query_id=qid, query_weighting="uniform")
    assert res.mean[1, 0] == pytest.approx(want, rel=1e-14)


def _holm_by_hand(p):
    # Holm step-down: sorted p_(i) times (m - i), running maximum, capped at 1.
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    m = p.size
    out = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _bh_by_hand(p):
    # Benjamini-Hochberg step-up: sorted p_(i) times m / i, running minimum
    # from the largest down, capped at 1 (scipy's false_discovery_control,
    # which the floor's scipy 1.9 lacks).
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)[::-1]
    m = p.size
    out = np.empty(m)
    running = 1.0
    for position, i in enumerate(order):
        running = min(running, p[i] * m / (m - position))
        out[i] = running
    return out


@pytest.mark.parametrize("correction", ["holm", "fdr_bh"])
def test_correction_is_per_metric_end_to_end(correction):
    # 3 models without baseline: 3 pairs, on 3 metrics. Correcting over all
    # 9 p-values at once (the planted bug) moves the corrected p-values.
    Y, scores = _data(seed=3, n=40, n_models=3)
    res = srm.compare_rankings(
        Y, scores, k=5, metrics=["ndcg", "precision", "mrr"], test="t-test",
        correction=correction, random_state=0,
    )  # fmt: skip
    assert len(res.pairs) == 3 and len(res.metrics) == 3
    for j in range(len(res.metrics)):
        raw = []
        for model, ref in res.pairs:
            a, b = res.per_query_values[ref][:, j], res.per_query_values[model][:, j]
            keep = ~(np.isnan(a) | np.isnan(b))
            raw.append(scipy.stats.ttest_rel(b[keep], a[keep]).pvalue)
        assert_allclose(res.pvalue[:, j], raw, rtol=1e-12)
        if correction == "holm":
            expected = _holm_by_hand(raw)
        else:
            expected = _bh_by_hand(raw)
        assert_allclose(res.pvalue_corrected[:, j], expected, rtol=1e-12)


def test_wins_without_baseline_counts_the_reference_beating_a_later_model():
    # The first model (the reference of every pair) is much better than
    # the later ones: wins() must credit it, not only later models.
    Y, scores = _data(seed=1, n=60, n_models=2)
    good = {"best": 5.0 * Y + scores["model0"], "worse": scores["model0"]}
    res = srm.compare_rankings(Y, good, k=5, metrics=["ndcg"], random_state=0)
    assert res.pairs == [("worse", "best")]
    assert res.difference[0, 0] < 0 and res.significant[0, 0]
    wins, metric = res.wins(), res.metrics[0]
    assert wins["best", metric] == ["worse"]
    assert wins["worse", metric] == []


def test_sign_flip_exact_boundary_equals_scipy():
    # n = 10 queries and 1024 = 2**10 resamples: exactly at the boundary,
    # the test enumerates every sign vector, as scipy does.
    rng = np.random.default_rng(7)
    d = rng.normal(0.0, 1.0, size=10)
    expected = scipy.stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=1024,
        vectorized=True,
    )  # fmt: skip
    stat, p = _sign_flip_pvalues(d[:, None], np.array([10]), 1024, seed=0)
    assert stat[0] == pytest.approx(expected.statistic, rel=1e-14)
    assert p[0] == pytest.approx(expected.pvalue, rel=1e-12)
    # And one resample short of it, the Monte Carlo form with its +1.
    _, p_mc = _sign_flip_pvalues(d[:, None], np.array([10]), 1023, seed=0)
    assert p_mc[0] != p[0]


def test_zero_variance_t_test_is_certain_whatever_scipy_gives():
    # Every query's difference is +0.25: no variance.  We return (inf, 0.0)
    # on purpose (documented under ``test``), as this scipy does; some scipy
    # versions return nan, so our result must not depend on scipy's.
    a = np.arange(8) / 8  # exact in binary: every difference is 0.25
    b = a + 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = scipy.stats.ttest_rel(b, a)
    assert np.isnan(ref.pvalue) or (ref.statistic, ref.pvalue) == (np.inf, 0.0)
    assert _compare._paired_test("t-test", a, b) == (np.inf, 0.0)
    assert _compare._paired_test("t-test", b, a) == (-np.inf, 0.0)
    assert _compare._paired_test("t-test", a, a.copy()) == (0.0, 1.0)
    # End to end: one model always 1 ahead on one metric is significant.
    Y = np.zeros((6, 4))
    Y[:, 0] = 1
    good = np.tile([4.0, 3.0, 2.0, 1.0], (6, 1))
    bad = good[:, ::-1].copy()
    res = srm.compare_rankings(
        Y, {"bad": bad, "good": good}, k=1, metrics=["precision"], test="t-test"
    )
    assert res.statistic[0, 0] == np.inf and res.pvalue[0, 0] == 0.0
    assert res.significant[0, 0]


def test_all_pairs_table_shows_differences_and_corrected_pvalues():
    Y, scores = _data(7)
    res = srm.compare_rankings(
        Y, scores, k=5, metrics=["ndcg", "precision"], random_state=0
    )
    assert res.baseline is None and len(res.pairs) == 3
    text = res.to_string()
    for j, metric in enumerate(res.metrics):
        for p, (model, ref) in enumerate(res.pairs):
            line = next(
                ln
                for ln in text.splitlines()[text.splitlines().index("") :]
                if f"{model} - {ref}" in ln
                and (metric in ln or p > 0)
                and f"{res.difference[p, j]:+.4f}" in ln
            )
            assert _compare._format_p(res.pvalue_corrected[p, j]) in line
    pd = pytest.importorskip("pandas")
    frame = res.pairs_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 6
    for j, metric in enumerate(res.metrics):
        for p, (model, ref) in enumerate(res.pairs):
            row = frame.loc[(metric, model, ref)]
            assert row["difference"] == res.difference[p, j]
            assert row["pvalue_corrected"] == res.pvalue_corrected[p, j]
            assert row["significant"] == res.significant[p, j]
