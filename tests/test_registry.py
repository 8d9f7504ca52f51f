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
