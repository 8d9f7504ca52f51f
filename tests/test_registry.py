"""The registry walk: every metric of the table, through every surface
wired so far, gives its public function's number."""

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._registry import METRICS, metric_names, parse_metric


def _case(seed, n_q=7, n_items=6):
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 3, size=(n_q, n_items)).astype(float)
    Y[0] = 0.0  # a query without relevant items
    S = rng.integers(0, 3, size=(n_q, n_items)).astype(float)  # ties
    S[1, 0] = -np.inf
    return Y, S


def test_scorer_names_are_the_registry_names():
    sklearn_names = set(__import__("sklearn").metrics.get_scorer_names())
    ours = {n for n in metric_names(scorer=True) if n not in sklearn_names}
    assert set(srm.get_scorer_names()) == ours


@pytest.mark.parametrize("name", list(METRICS))
@pytest.mark.parametrize("seed", [0, 1])
def test_report_gives_the_function_value(name, seed):
    spec = METRICS[name]
    Y, S = _case(seed)
    q = np.repeat(np.arange(Y.shape[0]), Y.shape[1])
    y, s = Y.ravel(), S.ravel()
    k = 3
    kw = {"k": k} if spec.cutoff else {}
    report = srm.ranking_report(y, s, query_id=q, k=k, metrics=[name], output_dict=True)
    expected = spec.function(y, s, query_id=q, **kw)
    np.testing.assert_allclose(report[spec.label(k)], expected, rtol=1e-12)
    assert parse_metric(spec.label(k)) == (spec, k if spec.cutoff else None)


# ---------------------------------------------------------------------------
# Conventions and every option through the report: each metric equals its
# function called with the same convention and options, bit for bit
# ---------------------------------------------------------------------------
from sklearn_rankmetrics._conventions import CONVENTIONS  # noqa: E402

# Option sets that each change some metric's value (and its ranking).
OPTION_SETS = [
    {},
    {"ignore_ties": True},
    {"ties": "pessimistic"},
    {"ties": "optimistic", "no_relevant": 0.0},
    {"gain": "exponential", "relevance_threshold": 2},
    {"precision_denominator": "retrieved", "ap_denominator": "min_k"},
    {"persistence": 0.5, "rbp_gain": "max_normalized", "beta": 2.0},
    {"log_base": 10, "discount": "reciprocal", "max_grade": 4},
    {"rbp_gain": "raw", "query_weighting": "uniform", "no_relevant": 1.0},
    {"gain": {0: 0.0, 1: 3.0, 2: 7.0}, "ap_denominator": "hits", "ties": "input_order"},
]


def _function_value(spec, y, s, q, w, k, options, convention):
    import inspect

    accepted = inspect.signature(spec.function).parameters
    kw = {o: v for o, v in options.items() if o in accepted}
    if spec.cutoff:
        kw["k"] = k
    return spec.function(y, s, query_id=q, sample_weight=w, convention=convention, **kw)


def _long_case(seed, weights):
    Y, S = _case(seed, n_q=9, n_items=5)
    rng = np.random.default_rng(seed + 100)
    q = np.repeat(np.arange(Y.shape[0]) * 3 + 1, Y.shape[1])
    order = rng.permutation(q.shape[0])  # rows out of order
    w = None
    if weights:
        w = np.repeat(rng.integers(1, 4, size=Y.shape[0]).astype(float), Y.shape[1])
        w = w[order]
    return Y.ravel()[order], S.ravel()[order], q[order], w


def _equal(got, want):
    got, want = np.float64(got), np.float64(want)
    assert (np.isnan(got) and np.isnan(want)) or got == want, (got, want)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@pytest.mark.parametrize("convention", [None, *CONVENTIONS])
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_report_with_convention_and_options_is_the_function(convention, options):
    ks = (2, 4)
    for weights, form in ((False, "2-D"), (True, "long")):
        if form == "2-D":
            Y, S = _case(3, n_q=8, n_items=6)
            y, s, q, w = Y, S, None, None
        else:
            y, s, q, w = _long_case(4, weights)
        names = list(METRICS)
        got = srm.ranking_report(
            y,
            s,
            k=ks,
            metrics=names,
            query_id=q,
            sample_weight=w,
            convention=convention,
            output_dict=True,
            **options,
        )
        for name in names:
            spec = METRICS[name]
            for k in ks if spec.cutoff else (None,):
                want = _function_value(spec, y, s, q, w, k, options, convention)
                _equal(got[spec.label(k)], want)


def test_report_refuses_an_option_no_metric_takes():
    Y, S = _case(0)
    with pytest.raises(TypeError, match="unknown option.*'gian'"):
        srm.ranking_report(Y, S, gian="linear")


def test_report_checks_given_options_whatever_the_metrics():
    Y, S = _case(0)
    with pytest.raises(ValueError, match="persistence"):
        srm.ranking_report(Y, S, metrics=["ndcg"], persistence=1.5)


def test_report_shares_rankings_between_metrics_with_equal_options(monkeypatch):
    # Two tie rules -> two rankings at the largest cut-off, not one per metric.
    from sklearn_rankmetrics import _report

    calls = []
    real = _report.rank_per_query

    def spy(*args, **kwargs):
        calls.append(kwargs["ignore_ties"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_report, "rank_per_query", spy)
    Y, S = _case(1)
    srm.ranking_report(
        Y, S, k=(1, 3), metrics=["precision", "ndcg", "map"], convention="torchmetrics"
    )
    # torchmetrics: ndcg with averaged ties, the others in input order
    assert sorted(calls) == [False, True]
