"""Bad input (SPEC section 3): a ValueError or TypeError naming the argument.

Never an IndexError, a numpy broadcast error or a silently wrong number.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm

RANKING = [
    srm.precision_at_k,
    srm.recall_at_k,
    srm.fbeta_at_k,
    srm.f1_at_k,
    srm.hit_rate_at_k,
    srm.reciprocal_rank_at_k,
    srm.average_precision_at_k,
    srm.dcg_at_k,
    srm.ndcg_at_k,
]
ALL = RANKING + [srm.group_auc_score]
MICRO = [srm.precision_at_k, srm.recall_at_k, srm.fbeta_at_k, srm.f1_at_k]
BINARY = [f for f in RANKING if f not in (srm.dcg_at_k, srm.ndcg_at_k)]

Y_TRUE = [[1, 0, 2], [0, 1, 0]]
Y_SCORE = [[0.5, 0.2, 0.9], [0.1, 0.3, 0.2]]


def _id(f):
    return f.__name__


# (id, y_true, y_score, extra kwargs, exception, regex naming the argument)
DATA_CASES = [
    ("shape-mismatch", Y_TRUE, [[0.5, 0.2], [0.1, 0.3]], {}, ValueError,
     "y_true.*y_score.*shape"),
    ("rows-mismatch", Y_TRUE, [[0.5, 0.2, 0.9]], {}, ValueError,
     "y_true.*y_score.*shape"),
    ("1d-without-query_id", [1, 0, 2], [0.5, 0.2, 0.9], {}, ValueError, "query_id"),
    ("1d-y_score", Y_TRUE, [0.5, 0.2, 0.9], {}, ValueError, "y_score"),
    ("3d", np.zeros((2, 2, 2)), np.zeros((2, 2, 2)), {}, ValueError, "y_true"),
    ("scalar", 1, 0.5, {}, ValueError, "y_true"),
    ("ragged", [[1, 0], [1]], [[0.1, 0.2], [0.3]], {}, ValueError, "y_true"),
    ("negative-relevance", [[1, -1, 0], [0, 1, 0]], Y_SCORE, {}, ValueError,
     "y_true.*negative"),
    ("negative-float-relevance", [[1, -0.5, 0], [0, 1, 0]], Y_SCORE, {}, ValueError,
     "y_true.*negative"),
    ("string-relevance", [["a", "b", "c"], ["d", "e", "f"]], Y_SCORE, {}, TypeError,
     "y_true.*numeric"),
    ("object-relevance", np.array([[{}, 1, 0], [0, 1, 0]], dtype=object), Y_SCORE, {},
     TypeError, "y_true"),
    ("complex-relevance", np.ones((2, 3), dtype=complex), Y_SCORE, {}, TypeError,
     "y_true"),
    ("nan-relevance", [[1, np.nan, 0], [0, 1, 0]], Y_SCORE, {}, ValueError,
     "y_true.*NaN"),
    ("none-relevance", [[1, None, 0], [0, 1, 0]], Y_SCORE, {}, ValueError,
     "y_true.*NaN"),
    ("inf-relevance", [[1, np.inf, 0], [0, 1, 0]], Y_SCORE, {}, ValueError, "y_true"),
    ("nan-score", Y_TRUE, [[0.5, np.nan, 0.9], [0.1, 0.3, 0.2]], {}, ValueError,
     "y_score.*NaN"),
    ("string-score", Y_TRUE, [["a", "b", "c"], ["d", "e", "f"]], {}, TypeError,
     "y_score.*numeric"),
    ("empty-2d", np.zeros((0, 3)), np.zeros((0, 3)), {}, ValueError, "y_true.*empty"),
    ("empty-rows", [[]], [[]], {}, ValueError, "empty"),
    ("empty-list", [], [], {}, ValueError, "y_true"),
    ("empty-y_score", Y_TRUE, np.zeros((2, 0)), {}, ValueError, "y_score"),
    ("sample_weight-short", Y_TRUE, Y_SCORE, {"sample_weight": [1.0]}, ValueError,
     "sample_weight"),
    ("sample_weight-long", Y_TRUE, Y_SCORE, {"sample_weight": [1.0, 2.0, 3.0]},
     ValueError, "sample_weight"),
    ("sample_weight-2d", Y_TRUE, Y_SCORE, {"sample_weight": [[1.0, 2.0]]},
     ValueError, "sample_weight"),
    ("sample_weight-scalar", Y_TRUE, Y_SCORE, {"sample_weight": 1.0}, ValueError,
     "sample_weight"),
    ("sample_weight-negative", Y_TRUE, Y_SCORE, {"sample_weight": [1.0, -1.0]},
     ValueError, "sample_weight"),
    ("sample_weight-nan", Y_TRUE, Y_SCORE, {"sample_weight": [1.0, np.nan]},
     ValueError, "sample_weight"),
    ("sample_weight-inf", Y_TRUE, Y_SCORE, {"sample_weight": [1.0, np.inf]},
     ValueError, "sample_weight"),
    ("sample_weight-string", Y_TRUE, Y_SCORE, {"sample_weight": ["a", "b"]},
     TypeError, "sample_weight"),
]  # fmt: skip


@pytest.mark.parametrize("func", ALL, ids=_id)
@pytest.mark.parametrize(
    "y_true, y_score, kwargs, error, match",
    [pytest.param(*case[1:], id=case[0]) for case in DATA_CASES],
)
def test_bad_data(func, y_true, y_score, kwargs, error, match):
    with pytest.raises(error, match=match):
        func(y_true, y_score, **kwargs)


# (option, bad value, exception); applies to the metrics that have the option
COMMON_OPTIONS = [
    ("k", 0, ValueError),
    ("k", -1, ValueError),
    ("k", 2.5, TypeError),
    ("k", 2.0, TypeError),
    ("k", True, TypeError),
    ("k", "3", TypeError),
    ("k", [3], ValueError),  # one cut-off per query: wrong count
    ("average", "macro", ValueError),
    ("average", "Queries", ValueError),
    ("average", 1, ValueError),
    ("no_relevant", "zero", ValueError),
    ("no_relevant", "Skip", ValueError),
    ("no_relevant", np.nan, ValueError),
    ("no_relevant", np.inf, ValueError),
    ("no_relevant", None, TypeError),
    ("no_relevant", True, TypeError),
    ("ignore_ties", "yes", TypeError),
    ("ignore_ties", None, TypeError),
    ("ignore_ties", 1, TypeError),
    ("ignore_ties", 0.0, TypeError),
]
BINARY_OPTIONS = [
    ("relevance_threshold", 0, ValueError),
    ("relevance_threshold", -1.0, ValueError),
    ("relevance_threshold", np.nan, ValueError),
    ("relevance_threshold", np.inf, ValueError),
    ("relevance_threshold", "1", TypeError),
]
METRIC_OPTIONS = {
    srm.fbeta_at_k: [
        ("beta", 0, ValueError),
        ("beta", -1.0, ValueError),
        ("beta", np.nan, ValueError),
        ("beta", np.inf, ValueError),
        ("beta", "2", TypeError),
        ("beta", None, TypeError),
    ],
    srm.average_precision_at_k: [
        ("ap_denominator", "R", ValueError),
        ("ap_denominator", "min(R,k)", ValueError),
        ("ap_denominator", None, ValueError),
        ("average", "micro", ValueError),
    ],
    srm.dcg_at_k: [
        ("gain", "log", ValueError),
        ("gain", "Linear", ValueError),
        ("gain", None, ValueError),
        ("log_base", 1, ValueError),
        ("log_base", 0.5, ValueError),
        ("log_base", -2, ValueError),
        ("log_base", np.nan, ValueError),
        ("log_base", "e", TypeError),
        ("average", "micro", ValueError),
    ],
    srm.hit_rate_at_k: [("average", "micro", ValueError)],
    srm.reciprocal_rank_at_k: [("average", "micro", ValueError)],
}
METRIC_OPTIONS[srm.ndcg_at_k] = METRIC_OPTIONS[srm.dcg_at_k]
GAUC_OPTIONS = [
    ("query_weighting", "users", ValueError),
    ("query_weighting", None, ValueError),
    ("average", "micro", ValueError),
    ("average", "macro", ValueError),
] + BINARY_OPTIONS


def _option_cases():
    for func in RANKING:
        options = list(COMMON_OPTIONS) + METRIC_OPTIONS.get(func, [])
        if func in BINARY:
            options += BINARY_OPTIONS
        for name, value, error in options:
            yield pytest.param(
                func, name, value, error, id=f"{_id(func)}-{name}={value!r}"
            )
    for name, value, error in GAUC_OPTIONS:
        yield pytest.param(
            srm.group_auc_score, name, value, error, id=f"gauc-{name}={value!r}"
        )


@pytest.mark.parametrize("func, name, value, error", list(_option_cases()))
def test_bad_option(func, name, value, error):
    with pytest.raises(error, match=name):
        func(Y_TRUE, Y_SCORE, **{name: value})


@pytest.mark.parametrize("func", RANKING, ids=_id)
def test_good_options_accepted(func):
    # numpy scalars and the boundary values are fine
    for kwargs in (
        {"k": np.int64(2)},
        {"k": np.int32(1)},
        {"k": 1000},
        {"ignore_ties": np.bool_(True)},
        {"no_relevant": np.float64(0.0)},
        {"no_relevant": 1},
    ):
        assert isinstance(func(Y_TRUE, Y_SCORE, **kwargs), float)
    if func in BINARY:
        assert isinstance(func(Y_TRUE, Y_SCORE, relevance_threshold=1e-9), float)
    if func in (srm.dcg_at_k, srm.ndcg_at_k):
        assert isinstance(func(Y_TRUE, Y_SCORE, log_base=1.0001), float)


def test_np_int_k_equals_int_k():
    for func in RANKING:
        assert func(Y_TRUE, Y_SCORE, k=np.int64(2)) == func(Y_TRUE, Y_SCORE, k=2)


def test_plus_inf_score_is_ordinary():
    # +inf is the largest score, not an error; -inf means "not retrieved".
    y_true = [[0, 1, 0]]
    y_score = [[0.5, np.inf, -np.inf]]
    assert srm.precision_at_k(y_true, y_score, k=1) == 1.0
    assert srm.precision_at_k(y_true, y_score) == 0.5  # 2 retrieved
    assert srm.group_auc_score(y_true, y_score) == 1.0


# ---------------------------------------------------------------------------
# Queries without a relevant item
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("func", RANKING, ids=_id)
def test_no_relevant_raise(func):
    y_true = [[1, 0, 2], [0, 0, 0]]
    with pytest.raises(ValueError, match="no_relevant"):
        func(y_true, Y_SCORE, no_relevant="raise")
    with pytest.raises(ValueError, match="no_relevant"):
        func(y_true, Y_SCORE, no_relevant="raise", average=None)
    # every row has a relevant item: no error
    assert isinstance(func(Y_TRUE, Y_SCORE, no_relevant="raise"), float)


@pytest.mark.parametrize("func", MICRO, ids=_id)
def test_no_relevant_raise_micro(func):
    y_true = [[1, 0, 2], [0, 0, 0]]
    with pytest.raises(ValueError, match="no_relevant"):
        func(y_true, Y_SCORE, no_relevant="raise", average="micro")


def test_no_relevant_raise_uses_the_threshold():
    # grade 1 is not relevant at threshold 2: the second row has none
    with pytest.raises(ValueError, match="no_relevant"):
        srm.recall_at_k(Y_TRUE, Y_SCORE, relevance_threshold=2, no_relevant="raise")


@pytest.mark.parametrize("func", RANKING, ids=_id)
def test_all_queries_skipped_is_nan_with_warning(func):
    y_true = np.zeros((3, 4))
    y_score = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UndefinedMetricWarning):
        value = func(y_true, y_score)
    assert type(value) is float and math.isnan(value)
    # average=None gives nan per query, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = func(y_true, y_score, average=None)
    assert np.isnan(values).all() and values.shape == (3,)
    # a number keeps the queries: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert func(y_true, y_score, no_relevant=0.0) == 0.0
        assert func(y_true, y_score, no_relevant=1.0) == 1.0


@pytest.mark.parametrize("func", MICRO, ids=_id)
def test_all_queries_skipped_micro(func):
    y_true = np.zeros((2, 4))
    y_score = np.ones((2, 4))
    with pytest.warns(UndefinedMetricWarning):
        value = func(y_true, y_score, average="micro")
    assert type(value) is float and math.isnan(value)


@pytest.mark.parametrize("func", ALL, ids=_id)
def test_zero_total_weight_is_nan_with_warning(func):
    with pytest.warns(UndefinedMetricWarning):
        value = func(Y_TRUE, Y_SCORE, sample_weight=[0.0, 0.0])
    assert math.isnan(value)


def test_group_auc_all_single_class_is_nan_with_warning():
    y_true = [[1, 1, 1], [0, 0, 0]]
    with pytest.warns(UndefinedMetricWarning):
        value = srm.group_auc_score(y_true, Y_SCORE)
    assert type(value) is float and math.isnan(value)
    # relevance_threshold can make every row single-class too
    with pytest.warns(UndefinedMetricWarning):
        value = srm.group_auc_score(Y_TRUE, Y_SCORE, relevance_threshold=5)
    assert math.isnan(value)


# ---------------------------------------------------------------------------
# Junk never escapes as IndexError / broadcast errors
# ---------------------------------------------------------------------------
_shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)
_fill = st.sampled_from([0.0, 1.0, 2.0, -1.0, np.nan, np.inf, -np.inf])


@settings(max_examples=50, deadline=None)
@given(
    func=st.sampled_from(ALL),
    shape_true=_shapes,
    shape_score=_shapes,
    fill_true=_fill,
    fill_score=_fill,
    n_weights=st.one_of(st.none(), st.integers(0, 4)),
)
def test_property_only_value_or_type_errors(
    func, shape_true, shape_score, fill_true, fill_score, n_weights
):
    y_true = np.full(shape_true, fill_true)
    y_score = np.full(shape_score, fill_score)
    w = None if n_weights is None else np.ones(n_weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        try:
            value = func(y_true, y_score, sample_weight=w)
        except (ValueError, TypeError) as exc:
            message = str(exc)
            assert any(
                arg in message for arg in ("y_true", "y_score", "sample_weight")
            ), message
            assert "broadcast" not in message
            return
    # accepted: only well-formed input gets here
    assert y_true.ndim == 2 and y_true.shape == y_score.shape and y_true.size > 0
    assert fill_true >= 0 and np.isfinite(fill_true) and not np.isnan(fill_score)
    assert w is None or w.shape == (y_true.shape[0],)
    assert type(value) is float


def test_factorize_ints_equals_unique_on_codes_and_near_codes():
    # the fast path for ids that are codes 0..n-1 already (sorted, every
    # value present) and the inputs next to it (a gap, unsorted, not from
    # 0, one value, unsigned and 32-bit ints) all equal np.unique
    from sklearn_rankmetrics._utils._validation import _factorize_ints

    rng = np.random.default_rng(0)
    cases = [
        np.repeat(np.arange(50), rng.integers(1, 5, size=50)),
        np.array([0, 1, 1, 3]),
        np.array([0, 2, 1, 1]),
        np.array([1, 1, 2]),
        np.array([0]),
        np.array([0, 0, 0]),
        np.array([4]),
        np.array([0, 1, 2], dtype=np.uint64),
        np.array([0, 0, 1], dtype=np.int32),
    ]
    for _ in range(200):
        n = int(rng.integers(1, 30))
        x = np.sort(rng.integers(0, 4, size=n)) if rng.random() < 0.5 else None
        x = rng.integers(0, 6, size=n) if x is None else x
        cases.append(x - x.min() if rng.random() < 0.5 else x)
    for x in cases:
        before = x.copy()
        codes, uniques = _factorize_ints(x)
        want_u, want_c = np.unique(x, return_inverse=True)
        np.testing.assert_array_equal(codes, want_c.reshape(-1))
        np.testing.assert_array_equal(uniques, want_u)
        assert uniques.dtype == x.dtype
        np.testing.assert_array_equal(x, before)
        if not codes.flags.writeable:  # a view of the input: never written
            with pytest.raises(ValueError):
                codes[0] = 1
