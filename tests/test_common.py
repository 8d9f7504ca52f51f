"""Invariance and API properties shared by every metric (dense 2-D form).

The cases are read from the registry (``_registry.METRICS``): every metric
at a cut-off (``name@3``) when it takes one, and on the whole list
(``name``), plus a few option variants.  What the registry does not hold
-- the range of the values and the value of a perfect ranking -- has
defaults ([0, 1]; 1 for a quality) and the exceptions below, with their
arithmetic; a metric added to the registry is walked by every test here,
and one that is not a quality must state its values first.
"""

import math
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import _registry
from tests._reference import random_case, random_weights

RTOL = ATOL = 1e-12

# func, kwargs, value range [low, high], whether average=None applies,
# the value of y_score = y_true on rows with 3 relevant items out of 8
# (``perfect``; None: not checked) and of retrieving exactly those 3
# (the others scored -inf; ``only_relevant``).
Metric = namedtuple("Metric", "func kwargs low high per_query perfect only_relevant")

P = 0.8  # the default persistence of RBP and its residual
DCG3 = 1 + 1 / math.log2(3) + 1 / 2  # three relevant items at ranks 1-3
# Values of a perfect ranking (3 relevant of 8, all 8 retrieved) that are
# not 1, by (registry name, k); k=None is the whole list.
PERFECT = {
    ("precision", None): 3 / 8,  # k=None divides by the 8 retrieved items
    ("f1", None): 6 / 11,  # P = 3/8, R = 1: 2PR / (P + R) = (6/8) / (11/8)
    ("fbeta", None): 6 / 11,  # beta = 1 by default
    ("dcg", 3): DCG3,
    ("dcg", None): DCG3,
    ("fallout", 3): 0.0,  # no non-relevant item in the top 3
    ("fallout", None): 1.0,  # all 5 non-relevant items retrieved: 5 / 5
    # binary grades: each relevant item stops the user with probability
    # (2**1 - 1) / 2**1 = 1/2: 1/2 + (1/2)(1/2)/2 + (1/4)(1/2)/3 = 2/3
    ("err", 3): 2 / 3,
    ("err", None): 2 / 3,
    ("rbp", 3): (1 - P) * (1 + P + P**2),  # 0.488
    ("rbp", None): (1 - P) * (1 + P + P**2),
    ("rbp_residual", 3): P**3,  # the unseen depth after 3 ranks
    ("rbp_residual", None): P**8,  # after all 8 retrieved
}
# Values of retrieving exactly the 3 relevant items that are not 1.
ONLY_RELEVANT = {
    **{key: value for key, value in PERFECT.items() if key[0] in ("dcg", "err")},
    **{key: value for key, value in PERFECT.items() if key[0] == "rbp"},
    # the candidate rule: the non-relevant items scored -inf are not
    # candidates, so fall-out has no candidate negative: undefined
    ("fallout", 3): np.nan,
    ("fallout", None): np.nan,
    ("rbp_residual", 3): P**3,  # 3 ranks retrieved, either way
    ("rbp_residual", None): P**3,
    # the candidate rule: the -inf negatives are not candidates, so no query
    # has a candidate negative and GAUC is undefined
    ("gauc", None): np.nan,
}
HIGH = {"dcg": np.inf}


def _facts(name, k):
    """(perfect, only_relevant) of a registry metric at ``k``."""
    key = (name, k)
    stated = key in PERFECT and key in ONLY_RELEVANT
    if not _registry.METRICS[name].scorer and not stated:
        raise AssertionError(
            f"{name} is not a quality (its registry entry has no scorer): "
            f"state its perfect and only-relevant values at k={k} in "
            "tests/test_common.py"
        )
    return PERFECT.get(key, 1.0), ONLY_RELEVANT.get(key, 1.0)


def _registry_cases():
    """The cases of every registry metric (read when called: a metric added
    to the registry is a case, tests/test_recipe.py)."""
    cases = {}
    for name, spec in _registry.METRICS.items():
        for k in (3, None) if spec.cutoff else (None,):
            label = name if k is None else f"{name}@{k}"
            kwargs = {} if k is None else {"k": k}
            cases[label] = Metric(
                spec.function, kwargs, 0, HIGH.get(name, 1), True, *_facts(name, k)
            )
    return cases


def _variant(name, kwargs, perfect=1.0, only_relevant=1.0, per_query=True):
    func = _registry.METRICS[name].function
    return Metric(func, kwargs, 0, HIGH.get(name, 1), per_query, perfect, only_relevant)


# Option variants (micro averages, denominators, gains, thresholds, ...)
VARIANTS = {
    "precision@3 micro": _variant("precision", {"k": 3, "average": "micro"}),
    "recall@3 micro": _variant("recall", {"k": 3, "average": "micro"}),
    # R = 3 > k = 1: one of the three relevant items fits in the cut
    "recall@1": _variant("recall", {"k": 1}, 1 / 3, 1 / 3),
    "f2@3": _variant("fbeta", {"k": 3, "beta": 2.0}),
    "f0.5@3 micro": _variant(
        "fbeta", {"k": 3, "beta": 0.5, "average": "micro"}, per_query=False
    ),
    "hit_rate@1": _variant("hit_rate", {"k": 1}),
    "map@2 min_k": _variant("map", {"k": 2, "ap_denominator": "min_k"}),
    # binary relevance below the threshold: every query is skipped (nan)
    "map@2 threshold=2": _variant(
        "map", {"k": 2, "relevance_threshold": 2}, None, None
    ),
    # exponential gains of binary grades are the grades; base-10 discounts
    "dcg exp base10": _variant(
        "dcg",
        {"gain": "exponential", "log_base": 10},
        1 / math.log10(2) + 1 / math.log10(3) + 1 / math.log10(4),
        1 / math.log10(2) + 1 / math.log10(3) + 1 / math.log10(4),
    ),
    "ndcg@5 exp": _variant("ndcg", {"k": 5, "gain": "exponential"}),
    "ndcg@3 no_relevant=1": _variant("ndcg", {"k": 3, "no_relevant": 1.0}),
    "precision@3 no_relevant=0": _variant("precision", {"k": 3, "no_relevant": 0.0}),
    "gauc uniform": _variant(
        "gauc", {"query_weighting": "uniform"}, only_relevant=np.nan
    ),
}
VARIANTS["precision@3 micro"] = VARIANTS["precision@3 micro"]._replace(per_query=False)
VARIANTS["recall@3 micro"] = VARIANTS["recall@3 micro"]._replace(per_query=False)

METRICS = {**_registry_cases(), **VARIANTS}
ALL = sorted(METRICS)
PER_QUERY = [name for name in ALL if METRICS[name].per_query]
RANKING = [name for name in ALL if METRICS[name].func is not srm.group_auc_score]


def test_every_registry_metric_is_walked():
    walked = {m.func for m in METRICS.values()}
    assert walked == {spec.function for spec in _registry.METRICS.values()}


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


@pytest.mark.parametrize("name", [n for n in ALL if METRICS[n].perfect is not None])
def test_perfect_ranking(name):
    # y_score = y_true: the 3 relevant items share the top score, so every
    # ordering of the ties is perfect (1 for a quality; PERFECT otherwise).
    y_true = _three_relevant_of_eight()
    want = METRICS[name].perfect
    assert _call(name, y_true, y_true.astype(float)) == pytest.approx(want, rel=RTOL)
    assert _call(name, y_true, y_true) == pytest.approx(want, rel=RTOL)
    assert _call(name, y_true.astype(bool), y_true) == pytest.approx(want, rel=RTOL)


@pytest.mark.parametrize(
    "name", [n for n in ALL if METRICS[n].only_relevant is not None]
)
def test_retrieving_exactly_the_relevant_items(name):
    # Retrieve only the relevant items (the others score -inf): precision
    # with k=None is 1 too; recall@1 is 1/3 (R = 3 > k = 1).
    y_true = _three_relevant_of_eight()
    y_score = np.where(
        y_true > 0, np.random.default_rng(0).random(y_true.shape), -np.inf
    )
    want = METRICS[name].only_relevant
    if np.isnan(want):  # undefined: no candidate negative (GAUC, fall-out)
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(_call(name, y_true, y_score))
        return
    assert _call(name, y_true, y_score) == pytest.approx(want, rel=RTOL)


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
