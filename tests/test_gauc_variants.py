"""GAUC variants: constant_scores="skip", query_weighting="clicks" and
undefined_value, against a loop over queries (tests/_reference.py's AUC)."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._metrics import _auc
from tests._reference import auc_of_row, random_case, random_weights


def _case(seed):
    y_true, y_score = random_case(seed, 20, 6, score_levels=3, p_unretrieved=0.0)
    y_score[[1, 4]] = 7.0  # users whose scores are all equal
    y_true[4] = np.where(np.arange(6) < 2, 2, 0)  # ... with both classes
    return y_true, y_score, random_weights(seed, 20)


def _naive(y_true, y_score, weights, weighting, skip_constant, threshold=None):
    values, ws = [], []
    for q, (rel, score) in enumerate(zip(y_true, y_score, strict=True)):
        auc = auc_of_row(list(rel), list(score), threshold)
        if math.isnan(auc) or (skip_constant and len(set(score)) == 1):
            continue
        clicks = sum(1 for g in rel if (g > 0 if threshold is None else g >= threshold))
        base = {"impressions": len(rel), "uniform": 1, "clicks": clicks}[weighting]
        values.append(auc)
        ws.append(base * (1.0 if weights is None else weights[q]))
    total = math.fsum(ws)
    return math.fsum(v * w for v, w in zip(values, ws, strict=True)) / total


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("weighting", ["impressions", "uniform", "clicks"])
def test_matches_loop(weighting, skip):
    for seed in range(3):
        y_true, y_score, w = _case(seed)
        for weights in (None, w):
            for threshold in (None, 2):
                got = srm.group_auc_score(
                    y_true,
                    y_score,
                    query_weighting=weighting,
                    constant_scores="skip" if skip else "keep",
                    relevance_threshold=threshold,
                    sample_weight=weights,
                )
                want = _naive(y_true, y_score, weights, weighting, skip, threshold)
                assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("weighting", ["impressions", "uniform", "clicks"])
def test_input_forms_agree(weighting, skip):
    y_true, y_score, w = _case(3)
    kw = dict(query_weighting=weighting, constant_scores="skip" if skip else "keep")
    dense = srm.group_auc_score(y_true, y_score, sample_weight=w, **kw)
    sparse = srm.group_auc_score(sp.csr_matrix(y_true), y_score, sample_weight=w, **kw)
    n, m = y_true.shape
    r, c = np.divmod(np.random.default_rng(0).permutation(n * m), m)
    long = srm.group_auc_score(
        y_true[r, c], y_score[r, c], query_id=r, sample_weight=w[r], **kw
    )
    assert sparse == pytest.approx(dense, rel=1e-12)
    if weighting == "uniform":
        # row weights weigh rows inside a query: each weighted query counts 1
        dense = srm.group_auc_score(
            y_true, y_score, sample_weight=(w > 0).astype(float), **kw
        )
    assert long == pytest.approx(dense, rel=1e-12)


def test_defaults_are_the_base_function():
    y_true, y_score, w = _case(4)
    for kw in ({}, {"query_weighting": "uniform"}, {"sample_weight": w}):
        assert srm.group_auc_score(y_true, y_score, **kw) == _auc.group_auc_score(
            y_true, y_score, **kw
        )
    per_query = srm.group_auc_score(y_true, y_score, average=None)
    np.testing.assert_array_equal(
        per_query, _auc.group_auc_score(y_true, y_score, average=None)
    )
    skipped = srm.group_auc_score(y_true, y_score, average=None, constant_scores="skip")
    assert np.isnan(skipped[[1, 4]]).all() and per_query[4] == 0.5


def test_undefined_value():
    y_true, y_score = [[1, 0], [0, 0]], [[0.5, 0.5], [1.0, 2.0]]
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(srm.group_auc_score(y_true, y_score, constant_scores="skip"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = srm.group_auc_score(
            y_true, y_score, constant_scores="skip", undefined_value=0.5
        )
    assert value == 0.5
    with pytest.raises(TypeError, match="undefined_value must be a number"):
        srm.group_auc_score(y_true, y_score, undefined_value="nan")
    with pytest.raises(ValueError, match="constant_scores must be one of"):
        srm.group_auc_score(y_true, y_score, constant_scores="drop")
