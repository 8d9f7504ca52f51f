"""The inverse-propensity estimators' pooled form, their undefined queries
and their diagnostics (issue 27, items 4 and 5).

Every pooled value (``average="micro"``) is checked against a slow
per-query reference written here (numerators and denominators summed over
queries), in every input form; the simulations show, with stated
tolerances and seeds, that the pooled forms are unbiased (or consistent)
at the sparsity of a real log and order two models correctly where the
per-user ratios do not, and that the corrected GAUC's bias shrinks with
the items per user while the positives-only weighting's does not.
"""

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import sparse

from sklearn_rankmetrics import (
    dcg_at_k,
    group_auc_score,
    ndcg_at_k,
    precision_at_k,
    propensity_diagnostics,
    ranking_report,
    recall_at_k,
)
from sklearn_rankmetrics._metrics._ips import ESTIMATORS

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _orderings(score):
    """Every ordering of the items consistent with descending scores, ties
    in any order; an item scored -inf is not ranked."""
    shown = [i for i in range(len(score)) if score[i] != -np.inf]
    levels = sorted({score[i] for i in shown}, reverse=True)
    groups = [[i for i in shown if score[i] == s] for s in levels]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perms for i in g]


def _top(weights, score, k, discount):
    """Expected sum over the top k of weight * discount(rank), over the
    tied orderings."""
    vals = []
    for order in _orderings(score):
        top = order[: k or len(order)]
        vals.append(sum(weights[i] * discount(r + 1) for r, i in enumerate(top)))
    return float(np.mean(vals))


def _log2_discount(rank):
    return 1.0 / np.log2(rank + 1.0)


def _ideal(gains, counts, n_ranks):
    """Ideal DCG of fractional counts of each gain, ranks filled in
    decreasing gain (the estimated ideal of ndcg_at_k)."""
    total, rank, room = 0.0, 1, 1.0
    for g, c in sorted(zip(gains, counts, strict=True), reverse=True):
        left = c if g > 0 else 0.0
        while left > 1e-12 and rank <= n_ranks:
            take = min(left, room)
            total += g * take * _log2_discount(rank)
            left, room = left - take, room - take
            if room <= 1e-12:
                rank, room = rank + 1, 1.0
    return total


def _parts(name, y, s, p, k):
    """Per query (numerator, denominator) of an IPS estimator, written out
    from its definition."""
    nums, dens = [], []
    for yq, sq, pq in zip(y, s, p, strict=True):
        rel = (yq > 0).astype(float)
        if name == "precision":
            nums.append(_top(rel / pq, sq, k, lambda r: 1.0))
            dens.append(float(k))
        elif name == "recall":
            nums.append(_top(rel / pq, sq, k, lambda r: 1.0))
            dens.append(float((rel / pq).sum()))
        elif name == "dcg":
            nums.append(_top(yq / pq, sq, k, _log2_discount))
            dens.append(1.0)
        elif name == "dcg_sn":
            nums.append(_top(yq / pq, sq, k, _log2_discount))
            dens.append(float((yq / pq).sum()))
        else:  # ndcg: the ideal of the estimated counts of each grade
            nums.append(_top(yq / pq, sq, k, _log2_discount))
            dens.append(_ideal(yq, 1.0 / pq, min(k or len(yq), len(yq))))
    return np.array(nums), np.array(dens)


_CALLS = {
    "precision": (precision_at_k, {}),
    "recall": (recall_at_k, {}),
    "dcg": (dcg_at_k, {}),
    "dcg_sn": (dcg_at_k, {"self_normalized": True}),
    "ndcg": (ndcg_at_k, {}),
}


def _data(seed, n_q=6, n_i=5):
    """Graded labels, a query without a relevant item, ties, -inf."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (n_q, n_i)) * (rng.random((n_q, n_i)) < 0.5)
    y[0] = 0
    s = rng.integers(0, 3, (n_q, n_i)).astype(float)
    s[rng.random(s.shape) < 0.15] = -np.inf
    p = rng.uniform(0.05, 1.0, (n_q, n_i))
    w = rng.uniform(0.2, 3.0, n_q)
    return y.astype(float), s, p, w


def _long(y, s, p, w, rng):
    """The long form, rows shuffled, ids that look alike ("007" and "7")."""
    n_q, n_i = y.shape
    ids = np.array([f"{q:03d}" if q % 2 else str(q) for q in range(n_q)])
    order = rng.permutation(n_q * n_i)
    qid = np.repeat(ids, n_i)
    rows = (y.ravel(), s.ravel(), p.ravel(), qid, np.repeat(w, n_i))
    return tuple(a[order] for a in rows), np.argsort(ids)


@pytest.mark.parametrize("name", list(_CALLS))
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3])
def test_pooled_form_matches_the_reference_in_every_form(name, seed, k):
    func, options = _CALLS[name]
    y, s, p, w = _data(seed)
    num, den = _parts(name, y, s, p, k)
    keep = den > 0
    want = (w * num)[keep].sum() / (w * den)[keep].sum()
    want_unweighted = num[keep].sum() / den[keep].sum()
    call = dict(k=k, propensity=p, average="micro", **options)
    assert func(y, s, **call) == pytest.approx(want_unweighted, rel=1e-12)
    assert func(y, s, sample_weight=w, **call) == pytest.approx(want, rel=1e-12)
    got = func(sparse.csr_matrix(y), s, sample_weight=w, **call)
    assert got == pytest.approx(want, rel=1e-12)
    (yl, sl, pl, ql, wl), _ = _long(y, s, p, w, np.random.default_rng(seed))
    call["propensity"] = pl
    got = func(yl, sl, query_id=ql, sample_weight=wl, **call)
    assert got == pytest.approx(want, rel=1e-12)
    # the per-query values (average=None) are the ratios, whatever the mean
    per_query = func(y, s, k=k, propensity=p, average=None, **options)
    ratio = np.where(keep, num / np.where(keep, den, 1.0), np.nan)
    if name in ("precision", "dcg"):  # sums: defined (0) for every query
        ratio = num / den
    assert_allclose(per_query, ratio, rtol=1e-12)


def test_pooled_recall_hand_worked():
    # user 1: items a, b relevant, p 0.5 and 1; a ranked first
    #   top-1 weight 2, total 2 + 1 = 3      (per-user recall 2/3)
    # user 2: c relevant, p 0.25, ranked second
    #   top-1 weight 0, total 4              (per-user recall 0)
    # pooled: (2 + 0) / (3 + 4) = 2/7; per user: (2/3 + 0) / 2 = 1/3
    y = [[1, 1, 0], [0, 1, 0]]
    s = [[0.9, 0.1, 0.5], [0.9, 0.5, 0.1]]
    p = [[0.5, 1.0, 1.0], [1.0, 0.25, 1.0]]
    assert recall_at_k(y, s, k=1, propensity=p, average="micro") == 2 / 7
    assert recall_at_k(y, s, k=1, propensity=p) == pytest.approx(1 / 3)
    # NDCG@1: DCG@1 = 2 and 0; ideal DCG@1 of 3 and 4 estimated items: 1, 1
    assert ndcg_at_k(y, s, k=1, propensity=p, average="micro") == 1.0
    assert ndcg_at_k(y, s, k=1, propensity=p, average=None).tolist() == [2.0, 0.0]


@pytest.mark.parametrize("seed", range(3))
def test_pooled_ratios_order_models_as_the_ips_sums(seed):
    """The pooled denominators do not depend on the scores: two models on
    the same log compare as their IPS sums (exactly, to rounding)."""
    rng = np.random.default_rng(seed)
    y = (rng.random((30, 12)) < 0.3) * rng.integers(1, 3, (30, 12))
    p = rng.uniform(0.05, 1.0, y.shape)
    a, b = rng.random(y.shape), rng.random(y.shape)
    w = rng.uniform(0.5, 2.0, 30)
    kw = dict(k=4, propensity=p, sample_weight=w)

    def ratio(func, **options):
        return func(y, a, **kw, **options) / func(y, b, **kw, **options)

    dcg = ratio(dcg_at_k)
    assert ratio(ndcg_at_k, average="micro") == pytest.approx(dcg, rel=1e-12)
    sn = ratio(dcg_at_k, self_normalized=True, average="micro")
    assert sn == pytest.approx(dcg, rel=1e-12)
    pooled_recall = ratio(recall_at_k, average="micro")
    assert pooled_recall == pytest.approx(ratio(precision_at_k), rel=1e-12)
    # and the sums' pooled forms are their means
    assert dcg_at_k(y, a, average="micro", **kw) == pytest.approx(
        dcg_at_k(y, a, **kw), rel=1e-12
    )
    assert precision_at_k(y, a, average="micro", **kw) == pytest.approx(
        precision_at_k(y, a, **kw), rel=1e-12
    )


def test_pooled_form_does_not_depend_on_query_or_row_order():
    y, s, p, w = _data(9, n_q=12, n_i=6)
    rng = np.random.default_rng(0)
    order = rng.permutation(12)
    for func, options in _CALLS.values():
        call = dict(k=3, average="micro", **options)
        a = func(y, s, propensity=p, sample_weight=w, **call)
        b = func(
            y[order], s[order], propensity=p[order], sample_weight=w[order], **call
        )
        assert a == pytest.approx(b, rel=1e-12)
    for kw in ({}, {"query_weighting": "uniform"}):
        a = group_auc_score(y, s, propensity=p, average="micro", **kw)
        b = group_auc_score(
            y[order], s[order], propensity=p[order], average="micro", **kw
        )
        assert a == pytest.approx(b, rel=1e-10)


def test_pooled_form_of_no_query_is_nan_with_a_warning():
    from sklearn.exceptions import UndefinedMetricWarning

    y, s, p = np.zeros((2, 3)), np.ones((2, 3)), np.full((2, 3), 0.5)
    for func, options in _CALLS.values():
        if func is precision_at_k or (func is dcg_at_k and not options):
            continue  # the sums are defined: 0
        with pytest.warns(UndefinedMetricWarning):
            got = func(y, s, k=2, propensity=p, average="micro", **options)
        assert np.isnan(got)
    assert precision_at_k(y, s, k=2, propensity=p, average="micro") == 0.0
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(group_auc_score(y, s, propensity=p, average="micro"))
    assert (
        group_auc_score(y, s, propensity=p, average="micro", undefined_value=0.5) == 0.5
    )


# ---- no_relevant with propensity= (issue 27) --------------------------------


@pytest.mark.parametrize("name", list(_CALLS))
@pytest.mark.parametrize("average", ["queries", "micro", None])
def test_no_relevant_raise_is_honoured(name, average):
    func, options = _CALLS[name]
    y, s, p, _ = _data(5)  # query 0 has no relevant item
    with pytest.raises(ValueError, match="1 queries have no observed relevant item"):
        func(y, s, k=2, propensity=p, no_relevant="raise", average=average, **options)
    # without such a query it is a plain call
    got = func(y[1:], s[1:], k=2, propensity=p[1:], no_relevant="raise", **options)
    assert got == func(y[1:], s[1:], k=2, propensity=p[1:], **options)


def test_no_relevant_of_the_sums_and_of_the_ratios():
    y, s, p, _ = _data(6)
    for func in (precision_at_k, dcg_at_k):
        # the IPS sum of a query without an observed relevant item is 0, kept
        zero = func(y, s, k=2, propensity=p, no_relevant=0.0, average=None)
        assert zero[0] == 0.0
        assert func(y, s, k=2, propensity=p, average=None)[0] == 0.0
        with pytest.raises(ValueError, match="does not apply"):
            func(y, s, k=2, propensity=p, no_relevant=1.0)
    for func, options in (_CALLS["recall"], _CALLS["ndcg"], _CALLS["dcg_sn"]):
        per_query = func(y, s, k=2, propensity=p, average=None, **options)
        assert np.isnan(per_query[0])
        one = func(y, s, k=2, propensity=p, no_relevant=1.0, average=None, **options)
        assert one[0] == 1.0
        assert_allclose(one[1:], per_query[1:], rtol=0)


# ---- GAUC: the corrected estimator ------------------------------------------


def _gauc_ref(y, s, p, row_w):
    """Per query (numerator, denominator): pairs of distinct items, an
    observed positive weighing w/p as a positive and w - w/p as a negative,
    an item scored -inf no negative."""
    nums, dens = [], []
    for yq, sq, pq, wq in zip(y, s, p, row_w, strict=True):
        wp = np.where(yq > 0, wq / pq, 0.0)
        wn = np.where(np.isneginf(sq), 0.0, wq - wp)
        num = den = 0.0
        for i, j in itertools.permutations(range(len(yq)), 2):
            den += wp[i] * wn[j]
            ordered = 1.0 if sq[i] > sq[j] else 0.5 if sq[i] == sq[j] else 0.0
            num += wp[i] * wn[j] * ordered
        nums.append(num)
        dens.append(den)
    return np.array(nums), np.array(dens)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["impressions", "uniform", "clicks"]),
)
def test_gauc_ips_is_the_pairwise_reference(n_q, n_i, seed, query_weighting):
    """Random small inputs: ties, -inf, single-class queries, row weights
    (long form), rows shuffled; per query and pooled."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n_q, n_i)) < 0.4).astype(float)
    s = rng.integers(0, 3, (n_q, n_i)).astype(float)
    s[rng.random(s.shape) < 0.2] = -np.inf
    p = rng.choice([0.1, 0.5, 1.0], (n_q, n_i))
    row_w = rng.choice([0.5, 1.0, 2.0], (n_q, n_i))
    num, den = _gauc_ref(y, s, p, np.ones_like(p))
    got = group_auc_score(y, s, propensity=p, average=None)
    want = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    # long form, row weights, rows shuffled
    num, den = _gauc_ref(y, s, p, row_w)
    qid = np.repeat(np.arange(n_q) * 7, n_i)
    order = rng.permutation(qid.size)
    args = (y.ravel()[order], s.ravel()[order])
    kw = dict(
        query_id=qid[order],
        propensity=p.ravel()[order],
        sample_weight=row_w.ravel()[order],
        query_weighting=query_weighting,
    )
    got = group_auc_score(*args, average=None, **kw)
    want = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    if query_weighting == "uniform":
        v = np.ones(n_q)
    elif query_weighting == "impressions":  # the rows the AUC reads
        v = (row_w * ((y > 0) | (s > -np.inf))).sum(axis=1)
    else:
        v = (row_w * (y > 0)).sum(axis=1)
    keep = den > 0
    if (v * den)[keep].sum() > 0:
        pooled = group_auc_score(*args, average="micro", **kw)
        want = (v * num)[keep].sum() / (v * den)[keep].sum()
        assert pooled == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_gauc_candidates_and_undefined_queries():
    p = [[0.5, 1, 1, 1]]
    # an item scored -inf is no candidate: removing a negative that way is
    # removing it from the query
    y, s = [[1, 0, 0, 0]], [[0.5, 0.9, 0.1, -np.inf]]
    got = group_auc_score(y, s, propensity=p, average=None)
    want = group_auc_score([[1, 0, 0]], [[0.5, 0.9, 0.1]], propensity=[[0.5, 1, 1]])
    assert got[0] == want
    # a positive scored -inf ranks below every candidate (and is no
    # negative): 0 correctly ordered pairs of 2 x (1 + 1 + 1) = 6
    got = group_auc_score([[1, 0, 0, 0]], [[-np.inf, 0.9, 0.1, 0.3]], propensity=p)
    assert got == 0.0
    # no negative candidate, no positive: undefined (skipped, nan alone)
    for y, s in (([[1, 0]], [[0.5, -np.inf]]), ([[0, 0]], [[0.5, 0.1]])):
        with pytest.warns(Warning):
            assert np.isnan(group_auc_score(y, s, propensity=[[0.5, 1]]))


# ---- the diagnostics ---------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_diagnostics_match_a_hand_computation(seed):
    rng = np.random.default_rng(seed)
    y = (rng.random((20, 8)) < 0.2) * rng.integers(1, 3, (20, 8))
    y[:3] = 0  # queries without an observed relevant item
    s = rng.random(y.shape)
    p = rng.uniform(0.01, 1.0, y.shape)
    for min_p, threshold in ((None, None), (0.1, None), (0.05, 2)):
        opts = {} if threshold is None else {"relevance_threshold": threshold}
        got = propensity_diagnostics(
            y, s, propensity=p, k=(2, 4), min_propensity=min_p, **opts
        )
        observed = y >= threshold if threshold else y > 0
        clipped = np.maximum(p, min_p) if min_p else p
        w = 1 / clipped[observed]
        assert got["n_queries"] == 20
        assert got["n_observed"] == observed.sum()
        ess = w.sum() ** 2 / (w**2).sum()
        assert got["effective_sample_size"] == pytest.approx(ess, rel=1e-12)
        assert got["effective_sample_share"] == pytest.approx(ess / w.size, rel=1e-12)
        assert got["max_weight"] == w.max()
        assert got["skipped_share"] == np.mean(~observed.any(axis=1))
        n_clipped = (p[observed] < min_p).sum() if min_p else 0
        assert got["clipped_share"] == n_clipped / w.size
        # above 1: the defined per-query estimates of the bounded metrics
        for label, share in got["above_one"].items():
            name, _, k = label.partition("@")
            func = {"precision": precision_at_k, "recall": recall_at_k}.get(
                name, ndcg_at_k
            )
            kw = {} if func is ndcg_at_k else opts  # NDCG reads the grades
            values = func(
                y, s, k=int(k), propensity=p, min_propensity=min_p, average=None, **kw
            )
            values = values[~np.isnan(values)]
            assert share == np.mean(values > 1 + 1e-12), label
        assert "dcg@2" not in got["above_one"]  # the IPS sum is not bounded


def test_diagnostics_spot_the_small_propensities():
    # equal weights: every observed item counts; one tiny propensity: the
    # effective sample falls to about one item
    y = np.array([[1, 1, 0, 0], [0, 1, 1, 0]])
    s = np.array([[0.9, 0.1, 0.5, 0.2], [0.3, 0.8, 0.1, 0.9]])
    even = propensity_diagnostics(y, s, propensity=np.full(y.shape, 0.5), k=2)
    assert even["effective_sample_size"] == pytest.approx(4.0)
    assert even["effective_sample_share"] == pytest.approx(1.0)
    p = np.full(y.shape, 0.5)
    p[0, 1] = 0.001
    skewed = propensity_diagnostics(y, s, propensity=p, k=2)
    # weights 2, 1000, 2, 2: 1006^2 / (3 x 4 + 1000^2) = 1.012
    assert skewed["effective_sample_size"] == pytest.approx(1006**2 / 1000012)
    assert skewed["max_weight"] == 1000.0
    clipped = propensity_diagnostics(y, s, propensity=p, k=2, min_propensity=0.01)
    assert clipped["clipped_share"] == 0.25
    assert clipped["max_weight"] == 100.0


def test_diagnostics_refuse_bad_input_and_leave_inputs_alone():
    y, s, p, _ = _data(3)
    copies = [a.copy() for a in (y, s, p)]
    propensity_diagnostics(y, s, propensity=p, k=2, min_propensity=0.2)
    ranking_report(y, s, k=2, propensity=p, average="micro", min_propensity=0.2)
    for a, b in zip((y, s, p), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="propensity must be in"):
        propensity_diagnostics(y, s, propensity=np.zeros_like(p), k=2)
    with pytest.raises(ValueError, match="propensity has shape"):
        propensity_diagnostics(y, s, propensity=p[:, :2], k=2)
    with pytest.raises(ValueError, match="has no estimator"):
        propensity_diagnostics(y, s, propensity=p, k=2, metrics=["mrr"])


def test_estimators_table_forms():
    # the forms the checks and the report read, one place
    assert ESTIMATORS["precision_at_k"].form == "sum"
    assert ESTIMATORS["dcg_at_k"].form == "choice"
    assert {ESTIMATORS[n].form for n in ("recall_at_k", "ndcg_at_k")} == {"ratio"}
    assert ESTIMATORS["group_auc_score"].form == "ratio"
    assert not ESTIMATORS["dcg_at_k"].fraction


# ---- simulations -------------------------------------------------------------


def _world(seed):
    """500 users x 200 items, relevance from latent factors (about 30 per
    user); a logging system ranked every item by popularity, a little
    personalisation and noise; rank r examined with probability 1/r^0.8,
    about 2.6 observed relevant items per user.  Model "personal" (the
    factors, noisy) is truly better than "popular" (close to the logs)."""
    rng = np.random.default_rng(seed)
    n_users, n_items, dim = 500, 200, 8
    users = rng.normal(size=(n_users, 1, dim))
    items = rng.normal(size=(n_items, dim))
    affinity = (users * items).sum(axis=-1) / np.sqrt(dim)
    popularity = rng.normal(size=n_items)
    relevance = rng.random((n_users, n_items)) < 1 / (
        1 + np.exp(2.7 - 2 * affinity - 0.5 * popularity)
    )
    shown = popularity + 0.3 * affinity + 0.5 * rng.normal(size=(n_users, n_items))
    rank = np.argsort(np.argsort(-shown, axis=1), axis=1) + 1
    p = 1.0 / rank**0.8
    noise = rng.normal(size=(2, n_users, n_items))
    models = (2 * affinity + 0.5 * popularity + 2.2 * noise[0], shown + 0.3 * noise[1])
    return rng, relevance, p, models


_SIMULATED = {
    # name: (function, options)
    "recall@10": (recall_at_k, {"k": 10}),
    "dcg@10 SN": (dcg_at_k, {"k": 10, "self_normalized": True}),
    "gauc": (group_auc_score, {}),
}


def test_pooled_forms_are_unbiased_and_order_models_where_per_user_ratios_fail():
    """At realistic sparsity (500 users x 200 items, about 2.6 observed
    relevant items per user, examination 1/rank^0.8; seed 1, 25 logs):

    - pooled recall, self-normalised DCG and GAUC: |mean bias| below 4
      standard errors of the mean plus 0.003 for each model, and the better
      model first in at least 90 % of the logs;
    - the per-user ratios: the worse model first in at least 90 % of the
      logs, and biased by more than 0.05 for the model the logs favour;
    - IPS precision and DCG: the better model first in at least 90 %.
    """
    rng, relevance, p, models = _world(1)
    ones = np.ones_like(p)
    observed_per_user = []
    pooled, per_user, sums = [], [], []
    for _ in range(25):
        observed = relevance & (rng.random(p.shape) < p)
        observed_per_user.append(observed.sum(axis=1).mean())
        pooled.append(
            [
                [f(observed, m, propensity=p, average="micro", **o) for m in models]
                for f, o in _SIMULATED.values()
            ]
        )
        per_user.append(
            [
                [f(observed, m, propensity=p, **o) for m in models]
                for f, o in _SIMULATED.values()
            ]
        )
        sums.append(
            [
                [precision_at_k(observed, m, k=10, propensity=p) for m in models],
                [dcg_at_k(observed, m, k=10, propensity=p) for m in models],
            ]
        )
    assert 2.2 < np.mean(observed_per_user) < 3.0  # realistic sparsity
    pooled, per_user, sums = np.array(pooled), np.array(per_user), np.array(sums)
    for j, (f, o) in enumerate(_SIMULATED.values()):
        truth_pooled = [
            f(relevance, m, propensity=ones, average="micro", **o) for m in models
        ]
        truth = [f(relevance, m, propensity=ones, **o) for m in models]
        assert truth_pooled[0] > truth_pooled[1] and truth[0] > truth[1]
        values = pooled[:, j]
        se = values.std(axis=0, ddof=1) / np.sqrt(len(values))
        bias = values.mean(axis=0) - truth_pooled
        assert np.all(np.abs(bias) < 4 * se + 0.003), (j, bias, se)
        assert np.mean(values[:, 0] > values[:, 1]) >= 0.9
        values = per_user[:, j]
        assert np.mean(values[:, 0] < values[:, 1]) >= 0.9
        assert values[:, 1].mean() - truth[1] > 0.05
    for j in range(2):
        assert np.mean(sums[:, j, 0] > sums[:, j, 1]) >= 0.9


def test_corrected_gauc_bias_shrinks_with_the_items_per_user():
    """The per-user GAUC of the corrected estimator: its mean bias over 15
    logs of 40 users falls below a fifth of its value at 50 items per user
    (and below 0.004) at 800; weighting the positives only keeps a bias
    above 0.03 (the unobserved relevant items stay among the negatives).
    Seed 0; relevance 0.2, propensities uniform in (0.1, 1)."""
    rng = np.random.default_rng(0)
    corrected, positives_only = [], []
    for n_items in (50, 800):
        rel = rng.random((40, n_items)) < 0.2
        score = 0.8 * rel + rng.random((40, n_items))
        p = rng.uniform(0.1, 1.0, (40, n_items))
        truth = group_auc_score(rel, score, average=None)
        qid = np.repeat(np.arange(40), n_items)
        a, b = [], []
        for _ in range(15):
            obs = rel & (rng.random(p.shape) < p)
            a.append(group_auc_score(obs, score, propensity=p, average=None) - truth)
            # Yang et al.'s: 1/p on the observed positives, 1 elsewhere
            w = np.where(obs, 1 / p, 1.0).ravel()
            b.append(
                group_auc_score(
                    obs.ravel(),
                    score.ravel(),
                    query_id=qid,
                    sample_weight=w,
                    average=None,
                )
                - truth
            )
        corrected.append(abs(np.nanmean(a)))
        positives_only.append(abs(np.nanmean(b)))
    assert corrected[1] < corrected[0] / 5 and corrected[1] < 0.004
    assert min(positives_only) > 0.03
