"""Regression tests for bugs found by QA, one test per bug.

Each test says in a comment what used to go wrong.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm


def test_uint64_grades_above_four_in_dense_ndcg():
    # A dense uint64 y_true with grades 5..64 crashed in the ideal ranking
    # (uint64 + int64 offsets gave float64 bincount keys: numpy TypeError).
    y = np.array([[5, 0, 3, 0], [0, 7, 0, 1]])
    s = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    expected = srm.ndcg_at_k(y, s, k=2)
    assert srm.ndcg_at_k(y.astype(np.uint64), s, k=2) == expected
    assert srm.ndcg_at_k(sp.csr_matrix(y.astype(np.uint64)), s, k=2) == expected


def test_get_scorer_raise_with_high_threshold():
    # get_scorer's option check ran the metric on a tiny query with grades
    # 2, 1, 0, so relevance_threshold=3 with no_relevant="raise" failed at
    # construction ("1 queries have no relevant item") for a valid scorer.
    scorer = srm.get_scorer("precision@2", relevance_threshold=3, no_relevant="raise")
    scoring = srm.make_scoring(
        ["map@2", "gauc"], relevance_threshold=3, no_relevant="raise"
    )
    assert "no_relevant='raise'" in repr(scorer)
    assert "relevance_threshold=3" in repr(scoring["map@2"])


def test_large_integer_scores_keep_their_order():
    # int64/uint64 scores beyond 2**53 (e.g. nanosecond timestamps) were
    # cast to float64, which merged distinct scores into ties: the better
    # item scored as a coin flip (P@1 = 0.5, GAUC = 0.5 instead of 1.0).
    t = 1_700_000_000_000_000_000  # ns timestamps 1 ns apart
    s = np.array([[t + 1, t, t - 1]])
    y = np.array([[1, 0, 0]])
    assert srm.precision_at_k(y, s, k=1) == 1.0
    assert srm.ndcg_at_k(sp.csr_matrix(y), s) == 1.0
    assert srm.group_auc_score(y, s) == 1.0
    assert srm.reciprocal_rank_at_k(y[0], s[0], query_id=[7, 7, 7]) == 1.0
    assert srm.group_auc_score(y[0], s[0], query_id=[7, 7, 7]) == 1.0
    u = np.array([[2**64 - 2, 2**64 - 1]], dtype=np.uint64)
    assert srm.hit_rate_at_k([[0, 1]], u, k=1) == 1.0
    assert srm.average_precision_at_k([[1, 0]], -s[:, :2], k=1) == 0.0
    # long doubles that round to the same float64 (where they are wider)
    one = np.longdouble(1)
    ld = np.array([[one + np.finfo(np.longdouble).eps, one, -np.inf]])
    assert srm.precision_at_k([[1, 0, 0]], ld, k=1) == 1.0
    assert srm.precision_at_k([[0, 0, 1]], ld, k=None) == 0.0  # -inf kept


@pytest.mark.parametrize("metric", [srm.dcg_at_k, srm.ndcg_at_k])
@pytest.mark.parametrize(
    "y_true, gain",
    [
        ([[2000, 0, 1]], "exponential"),  # 2**2000 - 1 overflows
        ([[1023, 1023, 1023]], "exponential"),  # each fits, their sum does not
        ([[1e308, 1e308, 1e308]], "linear"),
    ],
)
def test_overflowing_gains_are_a_clear_error(metric, y_true, gain):
    # Huge grades made the gains or their sum overflow: a RuntimeWarning
    # and an inf DCG or nan NDCG instead of an error naming the cause.
    y_score = [[0.3, 0.2, 0.1]]
    with pytest.raises(ValueError, match="y_true.*overflow"):
        metric(y_true, y_score, gain=gain)
    with pytest.raises(ValueError, match="y_true.*overflow"):
        metric(np.ravel(y_true), y_score[0], gain=gain, query_id=[1, 1, 1])
    # large but representable gains still work
    assert np.isfinite(metric([[1000, 0, 1]], y_score, gain="exponential"))


def test_strings_in_object_arrays_are_not_numbers():
    # Object arrays (e.g. a DataFrame column read as text) of strings were
    # parsed as numbers by astype(float), while the same strings in a list
    # were rejected: non-numeric relevance, scores and weights must fail.
    pd = pytest.importorskip("pandas")
    text = pd.DataFrame({"a": ["1", "0"], "b": ["0", "2"]})
    with pytest.raises(TypeError, match="y_true must be numeric"):
        srm.ndcg_at_k(text, [[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(TypeError, match="y_score must be numeric"):
        srm.ndcg_at_k([[1, 0], [0, 2]], text)
    with pytest.raises(TypeError, match="y_true must be numeric"):
        srm.group_auc_score(
            np.array([b"1", 0], dtype=object), [0.1, 0.2], query_id=[1, 1]
        )
    with pytest.raises(TypeError, match="sample_weight must be numeric"):
        srm.ndcg_at_k(
            [[1, 0]], [[0.1, 0.2]], sample_weight=np.array(["2"], dtype=object)
        )
    # object arrays of numbers are still fine
    numbers = text.astype(int)
    y_score = [[0.1, 0.2], [0.3, 0.4]]
    expected = srm.ndcg_at_k(numbers, y_score)
    assert srm.ndcg_at_k(numbers.astype(object), y_score) == expected


def test_min_k_ap_with_a_k_beyond_int64():
    # ap_denominator="min_k" took np.minimum(R, k) with the Python int k:
    # on numpy < 2 a k beyond int64 made an object array and a numpy
    # UFuncTypeError instead of the value of the whole ranked list.
    y, s = [[1, 0, 1]], [[0.1, 0.2, 0.3]]
    expected = srm.average_precision_at_k(y, s, k=3, ap_denominator="min_k")
    for k in (2**63, 10**30):
        got = srm.average_precision_at_k(y, s, k=k, ap_denominator="min_k")
        assert got == expected


RANKING = [
    srm.precision_at_k,
    srm.recall_at_k,
    srm.f1_at_k,
    srm.hit_rate_at_k,
    srm.reciprocal_rank_at_k,
    srm.average_precision_at_k,
    srm.dcg_at_k,
    srm.ndcg_at_k,
]


@pytest.mark.parametrize("scale", [1e-200, 1e-310, 1e200, 5e307])
def test_sample_weight_scale_does_not_matter(scale):
    # Weights are relative, but very large ones overflowed their sums (a
    # RuntimeWarning and nan) and tiny ones underflowed the products of
    # GAUC's row weights (every query skipped: nan).
    y = np.array([1, 0, 0, 1, 1, 0, 0, 1])
    s = np.array([0.3, 0.2, 0.1, 0.1, 0.5, 0.4, 0.2, 0.2])
    q = np.array([1, 1, 1, 2, 2, 2, 3, 3])
    w = np.array([1.0, 1, 1, 3, 3, 3, 2, 2])
    for qw in ("impressions", "uniform"):
        kw = dict(query_id=q, query_weighting=qw)
        expected = srm.group_auc_score(y, s, sample_weight=w, **kw)
        got = srm.group_auc_score(y, s, sample_weight=scale * w, **kw)
        assert got == pytest.approx(expected, rel=1e-9)
    y2, s2, w2 = y[:6].reshape(2, 3), s[:6].reshape(2, 3), np.array([1.0, 3.0])
    expected = srm.group_auc_score(y2, s2, sample_weight=w2)
    got = srm.group_auc_score(y2, s2, sample_weight=scale * w2)
    assert got == pytest.approx(expected, rel=1e-9)
    for metric in RANKING:
        expected = metric(y, s, k=2, query_id=q, sample_weight=w)
        got = metric(y, s, k=2, query_id=q, sample_weight=scale * w)
        assert got == pytest.approx(expected, rel=1e-9)
        expected = metric(y2, s2, k=2, sample_weight=w2)
        got = metric(y2, s2, k=2, sample_weight=scale * w2)
        assert got == pytest.approx(expected, rel=1e-9)
    for metric in RANKING[:3]:
        expected = metric(y, s, k=2, query_id=q, sample_weight=w, average="micro")
        got = metric(y, s, k=2, query_id=q, sample_weight=scale * w, average="micro")
        assert got == pytest.approx(expected, rel=1e-9)


def test_fbeta_with_extreme_beta():
    # beta=1e200 passed the "finite > 0" check but beta**2 (or beta**2 * R)
    # overflowed: a RuntimeWarning and nan (micro: a silent nan).  F-beta
    # tends to recall as beta grows and to precision as it shrinks.
    y, s = [[1] * 10 + [0] * 2], [[0.1] * 10 + [0.2, 0.3]]
    for beta, limit in ((1e200, srm.recall_at_k), (1e154, srm.recall_at_k),
                        (1e-200, srm.precision_at_k)):  # fmt: skip
        for average in ("queries", "micro"):
            got = srm.fbeta_at_k(y, s, k=4, beta=beta, average=average)
            assert got == pytest.approx(limit(y, s, k=4, average=average))


def test_ranked_lists_grades_beyond_int64_and_fractions():
    # A grade of 2**63 became uint64 and wrapped to a negative int64, so the
    # item was silently dropped as not relevant; a Fraction or a huge int
    # grade failed in np.isfinite with a numpy TypeError naming nothing.
    from fractions import Fraction

    y_true, _, _ = srm.ranked_lists_to_arrays([[1, 2]], [{1: 2**63}])
    assert y_true.tolist() == [[2.0**63, 0.0]]
    y_true, _, _ = srm.ranked_lists_to_arrays([[1, 2]], [{1: Fraction(1, 2)}])
    assert y_true.tolist() == [[0.5, 0.0]]
    y_true, _, _ = srm.ranked_lists_to_arrays([[1, 2]], [{2: 10**30}])
    assert y_true.tolist() == [[0.0, 1e30]]
    with pytest.raises(ValueError, match=r"relevant\[0\]\[1\].*finite"):
        srm.ranked_lists_to_arrays([[1, 2]], [{1: 10**400}])


def test_micro_fbeta_warns_once_when_every_query_is_skipped():
    # The micro F-beta pooled precision and recall separately and each
    # warned, so an all-skipped call gave two UndefinedMetricWarnings.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = srm.f1_at_k([[0, 0]], [[0.1, 0.2]], k=1, average="micro")
    assert np.isnan(value)
    assert [w.category for w in caught] == [UndefinedMetricWarning]


def test_click_log_with_a_very_negative_intercept():
    # intercept=-1000 is a valid (if extreme) baseline, but exp(-logit)
    # overflowed: a RuntimeWarning instead of a log without clicks.
    from sklearn_rankmetrics.datasets import make_click_log

    X, y, query_id, proba = make_click_log(
        n_users=5, intercept=-1000.0, return_proba=True, random_state=0
    )
    assert y.sum() == 0 and proba.max() == 0.0


def test_non_iterable_items_is_named_in_the_error():
    # items=5 failed with Python's bare "'int' object is not iterable",
    # naming no argument.
    with pytest.raises(TypeError, match="items"):
        srm.ranked_lists_to_arrays([[1, 2]], [[1]], items=5)


def test_non_iterable_scorer_names_are_named_in_the_error():
    # make_scoring(None) failed with Python's bare "'NoneType' object is not
    # iterable", naming no argument.
    with pytest.raises(TypeError, match="names"):
        srm.make_scoring(None)
    with pytest.raises(TypeError, match="names"):
        srm.make_scoring(10)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_relevance_threshold_with_low_precision_float_grades(dtype):
    # Grades of a float type narrower than float64 were compared with the
    # threshold in their own dtype when counting R (and in GAUC) but in
    # float64 for the ranked items: float32 0.7 (= 0.69999998...) counted as
    # relevant in R and not as a hit, so R@1 = 0 with the item at rank 1.
    # Now "relevant" means grade >= threshold exactly, whatever the dtype.
    y64 = np.array([[0.7, 0.2, 0.0, 0.9], [0.7, 0.0, 0.5, 0.3]])
    y = y64.astype(dtype)
    s = np.array([[0.9, 0.5, 0.1, 0.3], [0.1, 0.5, 0.9, 0.7]])
    for threshold in (0.7, 0.3, 1e-10, 1e300):
        for metric in RANKING[:6] + [srm.group_auc_score]:
            kw = {} if metric is srm.group_auc_score else {"k": 2}
            kw.update(relevance_threshold=threshold, average=None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                expected = metric(y.astype(np.float64), s, **kw)
                assert np.array_equal(metric(y, s, **kw), expected, equal_nan=True)
                if dtype is np.float32:  # new scipy has no float16 sparse
                    got = metric(sp.csr_matrix(y), s, **kw)
                    assert np.array_equal(got, expected, equal_nan=True)
                got = metric(y.ravel(), s.ravel(), query_id=[0] * 4 + [1] * 4, **kw)
                assert np.array_equal(got, expected, equal_nan=True)


def test_import_under_python_OO():
    # python -OO strips docstrings; fill_doc did None % dict at import time
    result = subprocess.run(
        [
            sys.executable,
            "-OO",
            "-c",
            "import sklearn_rankmetrics as m; print(m.ndcg_at_k([[1, 0]], [[1, 0]]))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1.0"


@pytest.mark.parametrize("value", ["zero", "Skip", "0.0"])
def test_no_relevant_message_says_a_number_is_allowed(value):
    # the message of a wrong string listed only 'skip' and 'raise'
    with pytest.raises(ValueError, match=r"'skip', 'raise' or a number such as 0\.0"):
        srm.ndcg_at_k([[1, 0]], [[0.9, 0.1]], no_relevant=value)


def test_predict_proba_with_query_id_says_take_the_positive_column():
    # an (n, 2) predict_proba output with query_id was told to drop query_id,
    # and without query_id that 1-D y_true needs query_id: a circle
    y = np.array([1, 0, 0, 1])
    proba = np.array([[0.2, 0.8], [0.6, 0.4], [0.9, 0.1], [0.3, 0.7]])
    qid = np.array([0, 0, 1, 1])
    for func in (srm.ndcg_at_k, srm.group_auc_score):
        with pytest.raises(ValueError, match=r"y_score\[:, 1\]"):
            func(y, proba, query_id=qid)
    # other 2-D shapes keep the plain message
    with pytest.raises(ValueError, match="Drop query_id") as info:
        srm.ndcg_at_k(y, np.ones((4, 3)), query_id=qid)
    assert "y_score[:, 1]" not in str(info.value)


def test_metric_functions_reject_class_labels_that_are_not_grades():
    # the scorers need pos_label for such labels; the metric functions see
    # y_true directly and must not guess either ({1, 2} are valid grades)
    pd = pytest.importorskip("pandas")
    score, qid = [0.3, 0.2, 0.1], [0, 0, 0]
    for y in (
        np.array(["click", "skip", "skip"]),
        pd.Series(pd.Categorical(["click", "skip", "skip"])),
    ):
        with pytest.raises(TypeError, match="y_true must be numeric"):
            srm.ndcg_at_k(y, score, query_id=qid)
        with pytest.raises(TypeError, match="y_true must be numeric"):
            srm.group_auc_score(y, score, query_id=qid)
    graded = srm.ndcg_at_k(np.array([1, 2, 2]), score, query_id=qid)
    # DCG = 1 + 2/log2(3) + 2/2, ideal = 2 + 2/log2(3) + 1/2
    expected = (2 + 2 / np.log2(3)) / (2.5 + 2 / np.log2(3))
    assert graded == pytest.approx(expected)
