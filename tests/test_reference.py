"""Every metric and option against the slow reference of ``_reference.py``.

Random graded cases (seeded): several shapes, integer scores (many ties),
continuous scores, ``-inf`` (not retrieved, relevant items included),
``+inf``, rows without relevant items, query weights with a zero.  With
``ignore_ties=False`` the reference enumerates every ordering of the tied
items, so these tests also check the closed forms for ties.
"""

import functools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from tests._reference import NAIVE, random_case, random_weights

RTOL = ATOL = 1e-12

# (seed, n_queries, n_items, case options)
CASES = [
    (0, 10, 1, {"score_levels": 2}),
    (1, 12, 5, {"score_levels": 3}),
    (2, 12, 8, {"score_levels": 4}),
    (3, 8, 8, {}),  # continuous scores, no ties
    (4, 6, 11, {"score_levels": 7, "p_posinf": 0.1}),
    (5, 10, 6, {"score_levels": 3, "float_grades": True, "p_unretrieved": 0.4}),
]


@functools.cache
def _cached_case(seed, n_queries, n_items, options):
    y_true, y_score = random_case(seed, n_queries, n_items, **dict(options))
    # Shared between tests, so read-only: a metric writing to its input fails.
    y_true.setflags(write=False)
    y_score.setflags(write=False)
    return y_true, y_score


def _case(seed, n_queries, n_items, options):
    return _cached_case(seed, n_queries, n_items, tuple(sorted(options.items())))


def _call(func, *args, **kwargs):
    """Call, and tell whether an UndefinedMetricWarning was raised."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always", UndefinedMetricWarning)
        value = func(*args, **kwargs)
    warned = any(issubclass(w.category, UndefinedMetricWarning) for w in record)
    return value, warned


def assert_same(got, expected):
    if expected is None or np.ndim(expected) == 0:
        assert isinstance(got, float), type(got)
        if math.isnan(expected):
            assert math.isnan(got)
            return
    assert_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)


# Options exercised for each metric.  "sample_weight": True means a random
# weight vector with a zero.
_COMMON = [
    {},
    {"average": None},
    {"no_relevant": 0.0},
    {"no_relevant": 1.0, "average": None},
    {"no_relevant": 1.0},
    {"sample_weight": True},
    {"sample_weight": True, "no_relevant": 0.0},
]
_BINARY = [
    {"relevance_threshold": 2},
    {"relevance_threshold": 0.5, "average": None},
    {"relevance_threshold": 2.5, "no_relevant": 0.0},
]
_MICRO = [
    {"average": "micro"},
    {"average": "micro", "no_relevant": 0.0},
    {"average": "micro", "sample_weight": True},
    {"average": "micro", "relevance_threshold": 2},
]
_EXTRA = {
    "fbeta_at_k": [
        {"beta": 0.5},
        {"beta": 2.0, "average": None},
        {"beta": 3.0, "average": "micro"},
        {"beta": 0.25, "average": "micro", "sample_weight": True},
    ],
    "average_precision_at_k": [
        {"ap_denominator": "min_k"},
        {"ap_denominator": "min_k", "average": None},
        {"ap_denominator": "min_k", "relevance_threshold": 2},
        {"ap_denominator": "relevant", "average": None},
    ],
    "dcg_at_k": [
        {"gain": "exponential"},
        {"gain": "exponential", "average": None},
        {"log_base": 10},
        {"log_base": math.e, "gain": "exponential", "sample_weight": True},
        {"log_base": 1.5, "average": None},
    ],
}
_EXTRA["ndcg_at_k"] = _EXTRA["dcg_at_k"]


def _options(name):
    opts = list(_COMMON)
    if name not in ("dcg_at_k", "ndcg_at_k"):
        opts += _BINARY
    if name in ("precision_at_k", "recall_at_k", "fbeta_at_k", "f1_at_k"):
        opts += _MICRO
    opts += _EXTRA.get(name, [])
    return opts


def _params():
    for name in NAIVE:
        if name == "group_auc_score":
            continue
        for i, opts in enumerate(_options(name)):
            yield pytest.param(name, opts, id=f"{name}-{i}")


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [None, 1, 3, 20])
@pytest.mark.parametrize("name, opts", list(_params()))
def test_matches_reference(name, opts, k, ignore_ties):
    func, naive = getattr(srm, name), NAIVE[name]
    for seed, n_queries, n_items, case_opts in CASES:
        y_true, y_score = _case(seed, n_queries, n_items, case_opts)
        kwargs = dict(opts, k=k, ignore_ties=ignore_ties)
        if kwargs.get("sample_weight") is True:
            kwargs["sample_weight"] = random_weights(seed, n_queries)
        got, got_warned = _call(func, y_true, y_score, **kwargs)
        expected, expected_warned = _call(naive, y_true, y_score, **kwargs)
        assert_same(got, expected)
        assert got_warned == expected_warned


# Wide rows: the top-k selection works on a few candidates, not the row.
WIDE_CASES = [
    (20, 6, 200, {"score_levels": 150}),
    (21, 5, 300, {}),
    (22, 4, 120, {"score_levels": 60, "p_unretrieved": 0.6}),
]


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [1, 4, 10])
@pytest.mark.parametrize("name", [n for n in NAIVE if n != "group_auc_score"])
def test_wide_rows_match_reference(name, k, ignore_ties):
    func, naive = getattr(srm, name), NAIVE[name]
    for seed, n_queries, n_items, case_opts in WIDE_CASES:
        y_true, y_score = _case(seed, n_queries, n_items, case_opts)
        kwargs = dict(k=k, ignore_ties=ignore_ties, average=None)
        assert_same(func(y_true, y_score, **kwargs), naive(y_true, y_score, **kwargs))
    # and the averaged, weighted value
    kwargs = dict(k=k, ignore_ties=ignore_ties, sample_weight=random_weights(0, 6))
    y_true, y_score = _case(*WIDE_CASES[0])
    assert_same(func(y_true, y_score, **kwargs), naive(y_true, y_score, **kwargs))


def test_reference_cases_are_interesting():
    """The random cases do contain what the tests claim to cover."""
    n_ties = n_unretrieved_relevant = n_empty = 0
    for seed, n_queries, n_items, case_opts in CASES:
        y_true, y_score = _case(seed, n_queries, n_items, case_opts)
        for row_true, row_score in zip(y_true, y_score, strict=True):
            finite = row_score[row_score > -np.inf]
            n_ties += finite.size - np.unique(finite).size
            n_unretrieved_relevant += np.sum((row_true > 0) & (row_score == -np.inf))
            n_empty += not (row_true > 0).any()
    assert n_ties > 50
    assert n_unretrieved_relevant > 10
    assert n_empty > 5


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"average": None},
        {"query_weighting": "uniform"},
        {"sample_weight": True},
        {"query_weighting": "uniform", "sample_weight": True},
        {"relevance_threshold": 2},
        {"relevance_threshold": 0.5, "average": None},
    ],
)
def test_group_auc_matches_reference(opts):
    for seed, n_queries, n_items, case_opts in CASES:
        y_true, y_score = _case(seed, n_queries, n_items, case_opts)
        kwargs = dict(opts)
        if kwargs.get("sample_weight") is True:
            kwargs["sample_weight"] = random_weights(seed, n_queries)
        got, got_warned = _call(srm.group_auc_score, y_true, y_score, **kwargs)
        expected, expected_warned = _call(
            NAIVE["group_auc_score"], y_true, y_score, **kwargs
        )
        assert_same(got, expected)
        assert got_warned == expected_warned


def test_group_auc_hand_worked():
    # Row 0: relevant items score 0.9 and 0.4, irrelevant 0.5, 0.4, 0.1.
    #   pairs (pos, neg): (.9,.5)=1 (.9,.4)=1 (.9,.1)=1 (.4,.5)=0 (.4,.4)=1/2
    #   (.4,.1)=1  ->  4.5 / 6 = 0.75; 5 rows read.
    # Row 1: relevant 0.2, irrelevant 0.3, 0.3, 0.3, -inf.  The -inf
    #   negative is not a candidate: left out of the pairs and of the rows.
    #   (.2,.3)=0 three times  ->  0 / 3 = 0; 4 rows read.
    # Row 2: no relevant item -> skipped.
    # Row 3: relevant 0.6 and -inf, irrelevant 0.5 and -inf.  The -inf
    #   positive is not a candidate but stays, below every candidate:
    #   (.6,.5)=1, (-inf,.5)=0  ->  1 / 2 = 0.5; 3 rows read.
    y_true = [[1, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]]
    y_score = [
        [0.9, 0.5, 0.4, 0.4, 0.1],
        [0.3, 0.2, 0.3, 0.3, -np.inf],
        [0.1, 0.2, 0.3, 0.4, 0.5],
        [0.6, -np.inf, 0.5, -np.inf, -np.inf],
    ]
    per_query = srm.group_auc_score(y_true, y_score, average=None)
    assert_allclose(per_query, [0.75, 0.0, np.nan, 0.5], rtol=RTOL)
    # Impressions are the rows read: (5 * 0.75 + 4 * 0 + 3 * 0.5) / 12.
    got = srm.group_auc_score(y_true, y_score)
    assert got == pytest.approx(5.25 / 12, rel=RTOL)
    got = srm.group_auc_score(y_true, y_score, query_weighting="uniform")
    assert got == pytest.approx(1.25 / 3, rel=RTOL)
    # Query weights 1, 3, 5, 2: (5 * 0.75 + 12 * 0 + 6 * 0.5) / 23.
    got = srm.group_auc_score(y_true, y_score, sample_weight=[1, 3, 5, 2])
    assert got == pytest.approx(6.75 / 23, rel=RTOL)


# ---------------------------------------------------------------------------
# Property test: small random matrices, any metric, any k, both tie modes.
# ---------------------------------------------------------------------------
_RANKING = [n for n in NAIVE if n != "group_auc_score"]


@st.composite
def _small_case(draw):
    n_queries = draw(st.integers(1, 4))
    n_items = draw(st.integers(1, 6))
    cell = st.integers(0, 3)
    y_true = draw(
        st.lists(
            st.lists(cell, min_size=n_items, max_size=n_items),
            min_size=n_queries,
            max_size=n_queries,
        )
    )
    score = st.sampled_from([-np.inf, 0.0, 1.0, 2.0, 2.5, np.inf])
    y_score = draw(
        st.lists(
            st.lists(score, min_size=n_items, max_size=n_items),
            min_size=n_queries,
            max_size=n_queries,
        )
    )
    return np.array(y_true), np.array(y_score)


@settings(max_examples=60, deadline=None)
@given(
    case=_small_case(),
    name=st.sampled_from(_RANKING),
    k=st.one_of(st.none(), st.integers(1, 8)),
    ignore_ties=st.booleans(),
    no_relevant=st.sampled_from(["skip", 0.0, 1.0]),
)
def test_property_matches_reference(case, name, k, ignore_ties, no_relevant):
    y_true, y_score = case
    kwargs = dict(k=k, ignore_ties=ignore_ties, no_relevant=no_relevant, average=None)
    got = getattr(srm, name)(y_true, y_score, **kwargs)
    expected = NAIVE[name](y_true, y_score, **kwargs)
    assert_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
