"""Large 2-D inputs are ranked and reduced in chunks of queries (issue 9,
target 2): every metric must give the same values, bit for bit, as one
ranking of all the queries, whatever the options."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._engine import _per_query, _select
from tests._reference import random_case

N, M = 29, 12

# metric -> extra options tried (each dict is one call)
CASES = [
    (srm.precision_at_k, [{}, {"precision_denominator": "retrieved"}]),
    (srm.recall_at_k, [{}, {"relevance_threshold": 2}]),
    (srm.fbeta_at_k, [{"beta": 0.5}]),
    (srm.f1_at_k, [{}]),
    (srm.hit_rate_at_k, [{}]),
    (srm.success_at_k, [{}]),
    (srm.reciprocal_rank_at_k, [{}]),
    (srm.average_precision_at_k, [{}, {"ap_denominator": "min_k"}]),
    (srm.dcg_at_k, [{}, {"gain": "exponential", "discount": "reciprocal"}]),
    (
        srm.ndcg_at_k,
        [{}, {"gain": {1: 1.0, 2: 3.0, 3: 7.0}}, {"discount": lambda r: 1 / r}],
    ),
    (srm.fallout_at_k, [{}]),
    (srm.expected_reciprocal_rank_at_k, [{}]),
    (srm.rank_biased_precision_at_k, [{"persistence": 0.5}]),
    (srm.rbp_residual_at_k, [{}]),
]
WHOLE_LIST = [srm.r_precision_score, srm.bpref_score]
MICRO = {srm.precision_at_k, srm.recall_at_k, srm.fbeta_at_k, srm.f1_at_k}


def _calls(Y, S, W):
    """Every (metric, kwargs) pair of the cases above."""
    ks = np.random.default_rng(1).integers(1, M + 2, N)
    for metric, extras in CASES:
        for extra in extras:
            for k in (1, 5, M, None, ks):
                yield metric, dict(extra, k=k)
    for metric in WHOLE_LIST:
        yield metric, {}


def _all_values(Y, S, W):
    out = []
    for y in (Y, sp.csr_matrix(Y)):
        for metric, kw in _calls(Y, S, W):
            for ties in ("expected", "input_order", "pessimistic"):
                for w in (None, W):
                    common = dict(kw, ties=ties, sample_weight=w)
                    out.append(metric(y, S, average=None, **common))
                    out.append(metric(y, S, no_relevant=0.0, **common))
                    if metric in MICRO:
                        out.append(metric(y, S, average="micro", **common))
    return out


@pytest.mark.parametrize("seed, levels", [(0, None), (1, 3)])
def test_query_chunks_are_bit_identical(monkeypatch, seed, levels):
    Y, S = random_case(seed, N, M, score_levels=levels, p_unretrieved=0.2)
    W = np.random.default_rng(seed).random(N)
    want = _all_values(Y, S, W)
    # chunks of 3 rows (the last one of 2), on 2 threads
    monkeypatch.setattr(_per_query, "_CHUNK_RANKING_ABOVE", 0)
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 3 * M * 8)
    with srm.config_context(n_threads=2):
        got = _all_values(Y, S, W)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_array_equal(g, w)


def test_query_chunks_errors(monkeypatch):
    """Errors do not depend on the chunks."""
    Y, S = random_case(0, N, M, score_levels=3)
    monkeypatch.setattr(_per_query, "_CHUNK_RANKING_ABOVE", 0)
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 3 * M * 8)
    with pytest.raises(ValueError, match="k has 3 cut-offs for 29 queries"):
        srm.ndcg_at_k(Y, S, k=[1, 2, 3])
    bad = Y.copy()
    bad[-1, -1] = -1
    with pytest.raises(ValueError, match="negative"):
        srm.ndcg_at_k(bad, S)
    S_nan = S.copy()
    S_nan[-1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        srm.precision_at_k(Y, S_nan, k=3)
    with pytest.raises(ValueError, match="no relevant item"):
        srm.recall_at_k(Y, S, no_relevant="raise")


@pytest.mark.parametrize("levels", [None, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_report_query_chunks_are_bit_identical(monkeypatch, levels, sparse):
    from sklearn_rankmetrics._evaluation._per_query import (
        _per_query_report,
        available_metrics,
    )

    Y, S = random_case(2, N, M, score_levels=levels, p_unretrieved=0.2)
    y = sp.csr_matrix(Y) if sparse else Y
    W = np.random.default_rng(2).random(N)
    metrics = [m for m in available_metrics() if m != "gauc"]

    def report():
        return _per_query_report(
            y, S, k=(1, 5, 20), metrics=metrics, query_id=None, sample_weight=W
        )

    want = report()
    monkeypatch.setattr(_per_query, "_CHUNK_RANKING_ABOVE", 0)
    monkeypatch.setattr(_select, "_CHUNK_BYTES", 3 * M * 8)
    with srm.config_context(n_threads=2):
        got = report()
    assert list(got[1]) == list(want[1])
    for name in want[1]:
        assert_array_equal(got[1][name], want[1][name], err_msg=name)
        assert_array_equal(got[2][name], want[2][name], err_msg=name)
