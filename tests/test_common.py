"""Invariance and API properties shared by every metric (dense 2-D form).

``METRICS`` is the registry: name -> (callable, fixed kwargs, value range,
per_query, perfect).  ``per_query`` tells whether ``average=None`` applies
(not for the micro averages); ``perfect`` whether ``y_score = y_true`` on
rows with exactly 3 relevant items out of 8 must give 1.
"""

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from tests._reference import random_case, random_weights

RTOL = ATOL = 1e-12

Metric = namedtuple("Metric", "func kwargs low high per_query perfect")

METRICS = {
    "precision@3": Metric(srm.precision_at_k, {"k": 3}, 0, 1, True, True),
    "precision": Metric(srm.precision_at_k, {}, 0, 1, True, False),
    "precision@3 micro": Metric(
        srm.precision_at_k, {"k": 3, "average": "micro"}, 0, 1, False, True
    ),
    "recall@3": Metric(srm.recall_at_k, {"k": 3}, 0, 1, True, True),
    "recall@1": Metric(srm.recall_at_k, {"k": 1}, 0, 1, True, False),
    "recall": Metric(srm.recall_at_k, {}, 0, 1, True, True),
    "recall@3 micro": Metric(
        srm.recall_at_k, {"k": 3, "average": "micro"}, 0, 1, False, True
    ),
    "f1@3": Metric(srm.f1_at_k, {"k": 3}, 0, 1, True, True),
    "f1": Metric(srm.f1_at_k, {}, 0, 1, True, False),
    "f2@3": Metric(srm.fbeta_at_k, {"k": 3, "beta": 2.0}, 0, 1, True, True),
    "f0.5@3 micro": Metric(
        srm.fbeta_at_k, {"k": 3, "beta": 0.5, "average": "micro"}, 0, 1, False, True
    ),
    "hit_rate@1": Metric(srm.hit_rate_at_k, {"k": 1}, 0, 1, True, True),
    "hit_rate@3": Metric(srm.hit_rate_at_k, {"k": 3}, 0, 1, True, True),
    "mrr@3": Metric(srm.reciprocal_rank_at_k, {"k": 3}, 0, 1, True, True),
    "mrr": Metric(srm.reciprocal_rank_at_k, {}, 0, 1, True, True),
    "map@3": Metric(srm.average_precision_at_k, {"k": 3}, 0, 1, True, True),
    "map@2 min_k": Metric(
        srm.average_precision_at_k,
        {"k": 2, "ap_denominator": "min_k"},
        0,
        1,
        True,
        True,
    ),  # fmt: skip
    "map": Metric(srm.average_precision_at_k, {}, 0, 1, True, True),
    "map@2 threshold=2": Metric(
        srm.average_precision_at_k,
        {"k": 2, "relevance_threshold": 2},
        0,
        1,
        True,
        False,
    ),  # fmt: skip
    "dcg@3": Metric(srm.dcg_at_k, {"k": 3}, 0, np.inf, True, False),
    "dcg exp base10": Metric(
        srm.dcg_at_k, {"gain": "exponential", "log_base": 10}, 0, np.inf, True, False
    ),
    "ndcg@3": Metric(srm.ndcg_at_k, {"k": 3}, 0, 1, True, True),
    "ndcg": Metric(srm.ndcg_at_k, {}, 0, 1, True, True),
    "ndcg@5 exp": Metric(
        srm.ndcg_at_k, {"k": 5, "gain": "exponential"}, 0, 1, True, True
    ),
    "ndcg@3 no_relevant=1": Metric(
        srm.ndcg_at_k, {"k": 3, "no_relevant": 1.0}, 0, 1, True, True
    ),
    "precision@3 no_relevant=0": Metric(
        srm.precision_at_k, {"k": 3, "no_relevant": 0.0}, 0, 1, True, False
    ),
    "gauc": Metric(srm.group_auc_score, {}, 0, 1, True, True),
    "gauc uniform": Metric(
        srm.group_auc_score, {"query_weighting": "uniform"}, 0, 1, True, True
    ),
}
ALL = sorted(METRICS)
PER_QUERY = [name for name in ALL if METRICS[name].per_query]
RANKING = [name for name in ALL if METRICS[name].func is not srm.group_auc_score]


def _call(name, y_true, y_score, **kwargs):
    metric = METRICS[name]
    return metric.func(y_true, y_score, **{**metric.kwargs, **kwargs})


def _data(seed=0, n_queries=30, n_items=8, levels=4):
    """Graded relevance, tied scores, -inf, rows without relevant items."""
    return random_case(seed, n_queries, n_items, score_levels=levels)


DATASETS = {
    "ties": _data(0, levels=4),
    "continuous": _data(1, levels=None),
    "heavy-ties": _data(2, n_items=12, levels=2),
}


def _assert_close(a, b):
    assert_allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)


# ---------------------------------------------------------------------------
# Invariances
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", ALL)
def test_query_order(name, data):
    y_true, y_score = DATASETS[data]
    w = random_weights(5, y_true.shape[0])
    perm = np.random.default_rng(1).permutation(y_true.shape[0])
    for weights in (None, w):
        pw = None if weights is None else weights[perm]
        mean = _call(name, y_true, y_score, sample_weight=weights)
        mean_perm = _call(name, y_true[perm], y_score[perm], sample_weight=pw)
        _assert_close(mean_perm, mean)
    if METRICS[name].per_query:
        values = _call(name, y_true, y_score, average=None)
        values_perm = _call(name, y_true[perm], y_score[perm], average=None)
        _assert_close(values_perm, values[perm])


@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", ALL)
def test_item_order(name, data):
    # Each row gets its own permutation of the items; with exact ties the
    # value does not depend on where the tied items sit.
    y_true, y_score = DATASETS[data]
    rng = np.random.default_rng(2)
    perm = np.array([rng.permutation(y_true.shape[1]) for _ in y_true])
    t = np.take_along_axis(y_true, perm, axis=1)
    s = np.take_along_axis(y_score, perm, axis=1)
    kwargs = {"average": None} if METRICS[name].per_query else {}
    _assert_close(_call(name, t, s, **kwargs), _call(name, y_true, y_score, **kwargs))


TRANSFORMS = {
    "exp": lambda x: np.exp(x / 4),
    "affine": lambda x: 3 * x + 7,
    "arctan": np.arctan,
    "cube": lambda x: x**3 - 100,
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", ALL)
def test_increasing_transform_of_scores(name, data, transform):
    # Only the finite scores are transformed: -inf means "not retrieved".
    y_true, y_score = DATASETS[data]
    finite = np.isfinite(y_score)
    s = y_score.copy()
    s[finite] = TRANSFORMS[transform](y_score[finite])
    # the transform kept the order and the ties of every row
    for a, b in zip(y_score, s, strict=True):
        assert_array_equal(np.argsort(a, kind="stable"), np.argsort(b, kind="stable"))
        assert np.unique(a).size == np.unique(b).size
    kwargs = {"average": None} if METRICS[name].per_query else {}
    _assert_close(
        _call(name, y_true, s, **kwargs), _call(name, y_true, y_score, **kwargs)
    )


@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", PER_QUERY)
def test_values_in_range(name, data):
    y_true, y_score = DATASETS[data]
    metric = METRICS[name]
    for ignore_ties in (False, True):
        kwargs = {"average": None}
        if metric.func is not srm.group_auc_score:
            kwargs["ignore_ties"] = ignore_ties
        values = _call(name, y_true, y_score, **kwargs)
        values = values[~np.isnan(values)]
        assert values.size > 0
        assert (values >= metric.low).all() and (values <= metric.high).all()
        mean = _call(name, y_true, y_score)
        assert metric.low <= mean <= metric.high


@settings(max_examples=50, deadline=None)
@given(
    name=st.sampled_from(PER_QUERY),
    seed=st.integers(0, 2**32 - 1),
    n_items=st.integers(1, 9),
    levels=st.integers(1, 4),
)
def test_property_range_and_item_order(name, seed, n_items, levels):
    y_true, y_score = random_case(seed, 6, n_items, score_levels=levels)
    metric = METRICS[name]
    values = _call(name, y_true, y_score, average=None)
    finite = values[~np.isnan(values)]
    assert ((finite >= metric.low) & (finite <= metric.high)).all()
    perm = np.random.default_rng(seed).permutation(n_items)
    _assert_close(_call(name, y_true[:, perm], y_score[:, perm], average=None), values)


# ---------------------------------------------------------------------------
# Perfect ranking
# ---------------------------------------------------------------------------
def _three_relevant_of_eight(seed=3, n_queries=10):
    rng = np.random.default_rng(seed)
    y_true = np.zeros((n_queries, 8), dtype=int)
    for row in y_true:
        row[rng.choice(8, size=3, replace=False)] = 1
    return y_true


@pytest.mark.parametrize("name", [n for n in ALL if METRICS[n].perfect])
def test_perfect_ranking_scores_one(name):
    # y_score = y_true: the 3 relevant items share the top score, so every
    # ordering of the ties is perfect.
    y_true = _three_relevant_of_eight()
    assert _call(name, y_true, y_true.astype(float)) == pytest.approx(1.0, rel=RTOL)
    assert _call(name, y_true, y_true) == pytest.approx(1.0, rel=RTOL)
    assert _call(name, y_true.astype(bool), y_true) == pytest.approx(1.0, rel=RTOL)


@pytest.mark.parametrize(
    "name", [n for n in ALL if not n.startswith("dcg") and "threshold" not in n]
)
def test_retrieving_exactly_the_relevant_items_scores_one(name):
    # Retrieve only the relevant items (the others score -inf): precision
    # with k=None is 1 too.
    y_true = _three_relevant_of_eight()
    y_score = np.where(
        y_true > 0, np.random.default_rng(0).random(y_true.shape), -np.inf
    )
    if name.startswith("gauc"):
        # the candidate rule: the -inf negatives are not candidates, so no
        # query has a candidate negative and GAUC is undefined
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(_call(name, y_true, y_score))
        return
    value = _call(name, y_true, y_score)
    if name == "recall@1":
        assert value < 1.0  # R = 3 > k: the cut hides relevant items
    else:
        assert value == pytest.approx(1.0, rel=RTOL)


@pytest.mark.parametrize("k", [None, 1, 3, 20])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_perfect_graded_ranking_ndcg_is_one(k, gain):
    y_true, _ = random_case(4, 20, 9, p_no_relevant=0.0, float_grades=True)
    for y_score in (y_true, y_true * 10 - 3, np.exp(y_true)):
        value = srm.ndcg_at_k(y_true, y_score, k=k, gain=gain, average=None)
        _assert_close(value[~np.isnan(value)], 1.0)
    # The reversed ranking is worse on every row with two distinct grades.
    worse = srm.ndcg_at_k(y_true, -y_true, k=k, gain=gain, average=None)
    distinct = np.array([np.unique(row).size > 1 for row in y_true])
    assert (worse[distinct] < 1.0 - 1e-9).all()


# ---------------------------------------------------------------------------
# Input types
# ---------------------------------------------------------------------------
def _same(a, b):
    """Exactly equal (nan == nan), scalars or arrays."""
    if np.ndim(a) == 0:
        assert type(a) is type(b)
        assert a == b or (np.isnan(a) and np.isnan(b))
    else:
        assert_array_equal(a, b)


def _strided(x):
    """A non-contiguous view holding the same values as ``x``."""
    big = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype)
    big[..., ::2] = x
    view = big[..., ::2]
    assert not view.flags.c_contiguous
    return view


@pytest.mark.parametrize("name", ALL)
def test_list_ndarray_dataframe_agree(name):
    y_true, y_score = DATASETS["ties"]
    w = random_weights(0, y_true.shape[0])
    expected = _call(name, y_true, y_score, sample_weight=w)
    inputs = [
        (y_true.tolist(), y_score.tolist(), w.tolist()),
        (pd.DataFrame(y_true), pd.DataFrame(y_score), pd.Series(w)),
        (
            pd.DataFrame(y_true, columns=[f"item{i}" for i in range(8)]),
            pd.DataFrame(y_score, index=np.arange(30) + 100),
            tuple(w),
        ),
        (y_true.astype(np.float32), y_score, w),
        (np.asfortranarray(y_true), np.asfortranarray(y_score), w),
        (_strided(y_true), _strided(y_score), _strided(w)),
    ]
    for t, s, sw in inputs:
        _same(_call(name, t, s, sample_weight=sw), expected)
    if METRICS[name].per_query:
        expected = _call(name, y_true, y_score, average=None)
        got = _call(name, pd.DataFrame(y_true), pd.DataFrame(y_score), average=None)
        _same(got, expected)


@pytest.mark.parametrize("name", [n for n in ALL if "threshold" not in n])
def test_bool_relevance_equals_int(name):
    y_true, y_score = DATASETS["ties"]
    binary = y_true > 0
    _same(_call(name, binary, y_score), _call(name, binary.astype(int), y_score))


@pytest.mark.parametrize("name", ALL)
def test_returns_python_float(name):
    y_true, y_score = DATASETS["ties"]
    assert type(_call(name, y_true, y_score)) is float
    if METRICS[name].per_query:
        values = _call(name, y_true, y_score, average=None)
        assert isinstance(values, np.ndarray)
        assert values.shape == (y_true.shape[0],)
        assert values.dtype == np.float64


# ---------------------------------------------------------------------------
# sample_weight semantics
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_sample_weight_none_is_ones(name):
    y_true, y_score = DATASETS["ties"]
    ones = np.ones(y_true.shape[0])
    _assert_close(
        _call(name, y_true, y_score, sample_weight=ones), _call(name, y_true, y_score)
    )
    # a constant weight does not change anything either
    _assert_close(
        _call(name, y_true, y_score, sample_weight=3.5 * ones),
        _call(name, y_true, y_score),
    )


@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", ALL)
def test_integer_weights_are_repeated_rows(name, data):
    y_true, y_score = DATASETS[data]
    w = np.random.default_rng(6).integers(0, 4, size=y_true.shape[0])
    weighted = _call(name, y_true, y_score, sample_weight=w)
    repeated = _call(name, np.repeat(y_true, w, axis=0), np.repeat(y_score, w, axis=0))
    _assert_close(weighted, repeated)


@pytest.mark.parametrize("data", list(DATASETS))
@pytest.mark.parametrize("name", ALL)
def test_zero_weight_drops_the_row(name, data):
    y_true, y_score = DATASETS[data]
    rng = np.random.default_rng(7)
    w = rng.uniform(0.5, 2.0, size=y_true.shape[0])
    dropped = rng.random(y_true.shape[0]) < 0.3
    w[dropped] = 0.0
    keep = ~dropped
    expected = _call(name, y_true[keep], y_score[keep], sample_weight=w[keep])
    _assert_close(_call(name, y_true, y_score, sample_weight=w), expected)


# ---------------------------------------------------------------------------
# Inputs are never modified
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_inputs_not_modified_and_read_only_ok(name):
    y_true, y_score = DATASETS["ties"]
    w = random_weights(1, y_true.shape[0])
    for dtype in (np.float64, np.float32):
        t, s, sw = y_true.copy(), y_score.astype(dtype), w.copy()
        copies = t.copy(), s.copy(), sw.copy()
        for arr in (t, s, sw):
            arr.setflags(write=False)
        expected = _call(name, copies[0], copies[1].astype(np.float64), sample_weight=w)
        _same(_call(name, t, s, sample_weight=sw), expected)
        for arr, copy in zip((t, s, sw), copies, strict=True):
            assert_array_equal(arr, copy)
            assert arr.dtype == copy.dtype
    # writable inputs are left untouched as well, including the ignore_ties
    # and average=None paths
    t, s, sw = y_true.copy(), y_score.copy(), w.copy()
    kwargs = {"average": None} if METRICS[name].per_query else {}
    if METRICS[name].func is not srm.group_auc_score:
        kwargs["ignore_ties"] = True
    _call(name, t, s, sample_weight=sw, **kwargs)
    assert_array_equal(t, y_true)
    assert_array_equal(s, y_score)
    assert_array_equal(sw, w)


@pytest.mark.parametrize("name", ALL)
def test_dataframe_inputs_not_modified(name):
    y_true, y_score = DATASETS["ties"]
    t, s = pd.DataFrame(y_true), pd.DataFrame(y_score)
    t0, s0 = t.copy(), s.copy()
    _call(name, t, s)
    pd.testing.assert_frame_equal(t, t0)
    pd.testing.assert_frame_equal(s, s0)
