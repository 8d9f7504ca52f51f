"""One candidate set for every metric (issue 27, item 1).

An item scored ``-inf`` is not a candidate.  Top-k metrics: a relevant item
scored ``-inf`` is relevant but not retrieved.  AUC: a non-candidate
negative is left out of the pairs; a non-candidate positive counts as
ranked below every candidate.  So padding (grade 0, score ``-inf``), the
catalogue of ``ranked_lists_to_arrays`` and the other users of a matrix
never change a query's value, and every input form gives the same number.

The references below are brute force: every (positive, negative) pair of a
query, one query at a time.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import (
    factor_ranking_report,
    group_auc_score,
    ranked_lists_to_arrays,
    ranking_report,
)

pytestmark = pytest.mark.filterwarnings("ignore:exclude removes:UserWarning")


# ---------------------------------------------------------------------------
# Brute-force references
# ---------------------------------------------------------------------------
def brute_auc(labels, scores):
    """AUC of one query over every (positive, candidate negative) pair, a
    tie counting 1/2; nan without a positive or a candidate negative.  A
    positive scored -inf is kept (it beats no candidate negative)."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y]
    neg = [s for y, s in zip(labels, scores, strict=True) if not y and s != -math.inf]
    if not pos or not neg:
        return math.nan
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def brute_gauc(y, s, qid, weighting="impressions", threshold=None):
    """Per-query AUCs (queries in np.unique order) and their weighted mean;
    "impressions" weighs a query by the rows its AUC reads (its positives
    and its candidate negatives)."""
    y, s, qid = np.asarray(y), np.asarray(s, dtype=float), np.asarray(qid)
    labels = y > 0 if threshold is None else y >= threshold
    values, weights = [], []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        lab, sc = labels[rows].tolist(), s[rows].tolist()
        values.append(brute_auc(lab, sc))
        read = sum(1 for a, b in zip(lab, sc, strict=True) if a or b != -math.inf)
        weights.append(
            {"impressions": read, "uniform": 1, "clicks": sum(lab)}[weighting]
        )
    values, weights = np.array(values), np.array(weights, dtype=float)
    keep = ~np.isnan(values)
    mean = np.average(values[keep], weights=weights[keep]) if keep.any() else np.nan
    return values, mean


def adversarial_log(seed, n_queries=40, max_items=9):
    """A long-form log with ties, -inf positives and negatives, queries
    without a positive, without a candidate negative, whose every item is
    -inf, and ids that look alike ("007" and "7")."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_items + 1, n_queries)
    sizes[:4] = np.maximum(sizes[:4], 2)
    qid = np.repeat(np.arange(n_queries), sizes)
    n = qid.size
    y = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    s = np.round(rng.random(n), 1)  # ties
    s[rng.random(n) < 0.2] = -np.inf
    y[qid == 0] = 0  # no positive
    s[qid == 1] = -np.inf  # every item excluded
    y[qid == 1] = [1] + [0] * (np.count_nonzero(qid == 1) - 1)
    s[(qid == 2) & (y == 0)] = -np.inf  # no candidate negative
    first = np.flatnonzero(qid == 3)[:2]
    y[first] = [1, 0]
    s[(qid == 3) & (y > 0)] = -np.inf  # every positive excluded
    s[first[1]] = 0.5  # ... and a candidate negative
    # query 2j is named "j", query 2j + 1 "00j": "7" and "007" are two queries
    names = np.array(
        [f"{q // 2:03d}" if q % 2 else str(q // 2) for q in range(n_queries)]
    )
    order = rng.permutation(n)  # rows of a query not contiguous
    return y[order], s[order], qid[order], names[qid[order]]


def to_padded(y, s, qid):
    """The long form as a 2-D matrix, one row per query (np.unique order),
    padded with grade 0 / score -inf."""
    codes = np.unique(qid, return_inverse=True)[1]
    n_q = codes.max() + 1
    sizes = np.bincount(codes, minlength=n_q)
    order = np.argsort(codes, kind="stable")
    col = np.arange(y.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    width = sizes.max() + 3  # at least three pads per row
    Y = np.zeros((n_q, width), dtype=y.dtype)
    S = np.full((n_q, width), -np.inf)
    Y[codes[order], col] = y[order]
    S[codes[order], col] = s[order]
    return Y, S


# ---------------------------------------------------------------------------
# GAUC: the candidate rule in every form
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["impressions", "uniform", "clicks"])
@pytest.mark.parametrize("seed", range(4))
def test_gauc_every_form_equals_brute_force(seed, weighting):
    y, s, qid, names = adversarial_log(seed)
    values, mean = brute_gauc(y, s, qid, weighting)
    assert np.isnan(values[[0, 1, 2]]).all()  # undefined: never 0.5
    assert values[3] == 0.0  # the positives are all below the candidate
    Y, S = to_padded(y, s, qid)
    opts = dict(query_weighting=weighting)
    forms = {
        "long int ids": dict(y_true=y, y_score=s, query_id=qid),
        "long string ids": dict(y_true=y, y_score=s, query_id=names),
        "long row weights": dict(
            y_true=y, y_score=s, query_id=qid, sample_weight=np.ones(y.size)
        ),
        "dense padded": dict(y_true=Y, y_score=S),
        "sparse padded": dict(y_true=sp.csr_matrix(Y), y_score=S),
    }
    # the queries in np.unique order of their names
    by_name = dict(zip(names.tolist(), qid.tolist(), strict=True))
    name_order = [by_name[n] for n in np.unique(names)]
    assert len(name_order) == values.size
    for form, data in forms.items():
        got = group_auc_score(**data, average=None, **opts)
        want = values[name_order] if form == "long string ids" else values
        assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=form)
        assert group_auc_score(**data, **opts) == pytest.approx(mean, abs=1e-12), form
        # the report (and so the state, Dask, Spark and the CLI) reads the
        # same per-query function
        rep = ranking_report(
            **data, metrics=["gauc"], per_query=True, output_dict=True, **opts
        )
        assert_allclose(rep["gauc"], got, rtol=0, atol=0, err_msg=form)


def test_gauc_hand_worked_padding_changes_nothing():
    # One query: positive 0.5, negatives 0.6 and 0.4.  Pairs: (.5,.6) = 0,
    # (.5,.4) = 1 -> AUC 1/2.  Padded with a grade-0 item at -inf: before
    # the candidate rule the pad was a third negative beaten by the
    # positive, (0 + 1 + 1) / 3 = 2/3; it is not a candidate: still 1/2.
    assert group_auc_score([1, 0, 0], [0.5, 0.6, 0.4], query_id=[7, 7, 7]) == 0.5
    assert group_auc_score([[1, 0, 0, 0]], [[0.5, 0.6, 0.4, -np.inf]]) == 0.5
    # Two queries of 3 and 2 items, padded to a width of 3: the impressions
    # weights are the rows read, 3 and 2, not the width 3 twice.
    # q0 as above: 1/2; q1: positive 0.2 < negative 0.3 -> 0.
    # GAUC = (3 * 1/2 + 2 * 0) / 5 = 0.3.
    long = group_auc_score(
        [1, 0, 0, 1, 0], [0.5, 0.6, 0.4, 0.2, 0.3], query_id=[0, 0, 0, 1, 1]
    )
    padded = group_auc_score(
        [[1, 0, 0], [1, 0, 0]], [[0.5, 0.6, 0.4], [0.2, 0.3, -np.inf]]
    )
    assert long == padded == pytest.approx(0.3, abs=1e-15)


def test_gauc_non_candidate_positive_ranks_below_every_candidate():
    # positives 0.7 and -inf, negatives 0.5, 0.9 and a pad: pairs
    # (.7,.5) = 1, (.7,.9) = 0, (-inf,.5) = 0, (-inf,.9) = 0 -> 1/4
    y, s = [[1, 1, 0, 0, 0]], [[0.7, -np.inf, 0.5, 0.9, -np.inf]]
    assert group_auc_score(y, s) == 0.25
    # every positive scored -inf, a candidate negative: 0 (not undefined)
    assert group_auc_score([[1, 1, 0]], [[-np.inf, -np.inf, 0.1]]) == 0.0
    # no candidate negative (the negatives all -inf): undefined
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(group_auc_score([[1, 0, 0]], [[0.3, -np.inf, -np.inf]]))
    # every item excluded: undefined, never 0.5
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(group_auc_score([[1, 0, 0]], [[-np.inf] * 3]))
    values = group_auc_score(
        [[1, 0, 0], [1, 0, 1]], [[-np.inf] * 3, [0.2, 0.1, 0.3]], average=None
    )
    assert np.isnan(values[0]) and values[1] == 1.0
    # constant_scores="skip" reads the rows the AUC reads: a pad does not
    # make a row of one score "non-constant"
    y, s = [[1, 0, 0]], [[0.4, 0.4, -np.inf]]
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(group_auc_score(y, s, constant_scores="skip"))
    assert group_auc_score(y, s) == 0.5


@settings(max_examples=60, deadline=None)
@given(
    n_items=st.integers(1, 6),
    n_pad=st.integers(1, 4),
    data=st.data(),
)
def test_gauc_padding_and_other_users_never_change_a_value(n_items, n_pad, data):
    """Property: adding pad columns (grade 0, -inf) and other users with
    items of their own changes no user's AUC, nor the mean, under every
    weighting, in the dense, sparse and long forms."""
    cell = st.tuples(st.integers(0, 2), st.sampled_from([-np.inf, 0.0, 0.5, 1.0]))
    rows = data.draw(
        st.lists(
            st.lists(cell, min_size=n_items, max_size=n_items), min_size=1, max_size=4
        )
    )
    Y = np.array([[g for g, _ in r] for r in rows])
    S = np.array([[v for _, v in r] for r in rows])
    expected = np.array(
        [brute_auc(list(yr > 0), list(sr)) for yr, sr in zip(Y, S, strict=True)]
    )
    n = Y.shape[0]
    Yp = np.hstack([Y, np.zeros((n, n_pad), dtype=Y.dtype)])
    Sp = np.hstack([S, np.full((n, n_pad), -np.inf)])
    # another user scoring only the pad columns: the columns of a catalogue
    other_y = np.zeros((1, n_items + n_pad), dtype=Y.dtype)
    other_y[0, -1] = 1
    other_s = np.full((1, n_items + n_pad), -np.inf)
    other_s[0, n_items:] = np.arange(n_pad)
    Yo, So = np.vstack([Yp, other_y]), np.vstack([Sp, other_s])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for weighting in ("impressions", "uniform", "clicks"):
            opts = dict(query_weighting=weighting)
            base = group_auc_score(Y, S, **opts)
            for Yx, Sx in ((Yp, Sp), (sp.csr_matrix(Yp), Sp)):
                got = group_auc_score(Yx, Sx, average=None, **opts)
                assert_allclose(got, expected, rtol=0, atol=1e-12)
                assert_allclose(group_auc_score(Yx, Sx, **opts), base, atol=1e-12)
            got = group_auc_score(Yo, So, average=None, **opts)
            assert_allclose(got[:n], expected, rtol=0, atol=1e-12)
            qid = np.repeat(np.arange(n), Yp.shape[1])
            long = group_auc_score(Yp.ravel(), Sp.ravel(), query_id=qid, **opts)
            assert_allclose(long, base, atol=1e-12)


def test_ranked_lists_catalogue_and_other_users_change_nothing():
    # User 0 ranks items 10, 13, 11, 12 (scores 4, 3, 2, 1) and liked 13
    # and 20 (never ranked: -inf).  Candidate negatives: 10, 11, 12.
    # Pairs: 13 beats 11 and 12, loses to 10 -> 2; 20 beats none -> 0.
    # AUC = 2 / (2 * 3) = 1/3, whatever the other columns.
    ranked, relevant = [[10, 13, 11, 12]], [{13, 20}]
    alone = group_auc_score(*ranked_lists_to_arrays(ranked, relevant)[:2])
    assert alone == pytest.approx(1 / 3, abs=1e-15)
    others = ranked + [[30, 31, 10], [40, 41, 42, 43]]
    rel = relevant + [{31}, {99}]
    y, s, _ = ranked_lists_to_arrays(others, rel)
    assert group_auc_score(y, s, average=None)[0] == alone
    y, s, _ = ranked_lists_to_arrays(ranked, relevant, items=range(1000))
    assert group_auc_score(y, s) == alone
    y, s, _ = ranked_lists_to_arrays(
        ranked, relevant, items=range(1000), sparse_output=True
    )
    assert group_auc_score(y, s) == alone


# ---------------------------------------------------------------------------
# factor_ranking_report(exclude=) removes the excluded items
# ---------------------------------------------------------------------------
def _auc_without_excluded(test, S, train):
    """LightFM's auc_score(train_interactions=) per user, without ties: over
    the items not in training, the share of (test item, other item) pairs
    the test item wins."""
    out = []
    for y, s, t in zip(test, S, train, strict=True):
        keep = ~t
        pos, neg = s[keep & (y > 0)], s[keep & (y == 0)]
        if pos.size == 0 or neg.size == 0:
            out.append(np.nan)
            continue
        out.append(np.mean(pos[:, None] > neg[None, :]))
    return np.array(out)


@pytest.mark.parametrize("sparse", [False, True])
def test_factor_report_exclude_removes_items_from_gauc(sparse):
    # A random model, 40 of 50 items excluded per user: AUC about 0.5 (it
    # was 0.93: the excluded items counted as negatives ranked last).
    rng = np.random.default_rng(0)
    n_users, n_items = 300, 50
    train = np.zeros((n_users, n_items), dtype=bool)
    for u in range(n_users):
        train[u, rng.choice(n_items, 40, replace=False)] = True
    test = (~train & (rng.random((n_users, n_items)) < 0.3)).astype(float)
    U, V = rng.normal(size=(n_users, 8)), rng.normal(size=(n_items, 8))
    exclude = sp.csr_matrix(train) if sparse else train
    per_user = factor_ranking_report(
        test,
        U,
        V,
        exclude=exclude,
        metrics=["gauc"],
        per_query=True,
        output_dict=True,
        working_memory=0.05,
    )["gauc"]
    expected = _auc_without_excluded(test, U @ V.T, train)
    assert_allclose(per_user, expected, rtol=0, atol=1e-12)
    mean = factor_ranking_report(
        test, U, V, exclude=exclude, metrics=["gauc"], output_dict=True
    )["gauc"]
    assert abs(mean - 0.5) < 0.03
    # the long form of the non-excluded (user, item) pairs: the same values
    users, items = np.nonzero(~train)
    long = group_auc_score(
        test[users, items], (U @ V.T)[users, items], query_id=users, average=None
    )
    assert_allclose(per_user, long, rtol=0, atol=1e-12)


def test_factor_report_user_with_every_item_excluded_is_undefined():
    rng = np.random.default_rng(1)
    Y = (rng.random((6, 5)) < 0.4).astype(float)
    Y[:, 0] = 1
    exclude = np.zeros((6, 5), dtype=bool)
    exclude[2] = True  # user 2: no candidate at all
    U, V = rng.normal(size=(6, 2)), rng.normal(size=(5, 2))
    got = factor_ranking_report(
        Y, U, V, exclude=exclude, metrics=["gauc"], per_query=True, output_dict=True
    )["gauc"]
    assert np.isnan(got[2])
    S = np.where(exclude, -np.inf, U @ V.T)
    assert_allclose(got, group_auc_score(Y, S, average=None), rtol=0, atol=0)


# ---------------------------------------------------------------------------
# The propensity-weighted GAUC reads the same candidates
# ---------------------------------------------------------------------------
def test_ips_gauc_same_candidates():
    y, s, qid, _ = adversarial_log(5)
    p = np.random.default_rng(5).uniform(0.2, 1.0, y.size)
    # propensity 1 everywhere: the plain GAUC, every weighting
    for weighting in ("impressions", "uniform", "clicks"):
        plain = group_auc_score(
            y, s, query_id=qid, query_weighting=weighting, average=None
        )
        ones = group_auc_score(
            y,
            s,
            query_id=qid,
            query_weighting=weighting,
            propensity=np.ones(y.size),
            average=None,
        )
        assert_allclose(ones, plain, rtol=0, atol=1e-12)
    # padding changes nothing with propensities either
    Y, S = to_padded(y, s, qid)
    P = np.ones(Y.shape)
    P_long = np.ones(Y.shape)
    codes = np.unique(qid, return_inverse=True)[1]
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    col = np.arange(y.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    P_long[codes[order], col] = p[order]
    P[:] = P_long
    long = group_auc_score(y, s, query_id=qid, propensity=p, average=None)
    padded = group_auc_score(Y, S, propensity=P, average=None)
    assert_allclose(padded, long, rtol=0, atol=1e-12)
    assert group_auc_score(Y, S, propensity=P) == pytest.approx(
        group_auc_score(y, s, query_id=qid, propensity=p), abs=1e-12
    )


def test_inputs_are_not_modified():
    y, s, qid, _ = adversarial_log(7)
    Y, S = to_padded(y, s, qid)
    copies = [a.copy() for a in (y, s, qid, Y, S)]
    group_auc_score(y, s, query_id=qid, constant_scores="skip")
    group_auc_score(Y, S, constant_scores="skip")
    srm.ranking_report(Y, S, metrics=["gauc", "fallout"], k=2)
    for before, after in zip(copies, (y, s, qid, Y, S), strict=True):
        assert before.tobytes() == after.tobytes()
