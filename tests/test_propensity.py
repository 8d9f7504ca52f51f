"""IPS estimators (``metric(..., propensity=p)``) and propensity estimates:
brute-force references over tied orderings, unbiasedness / consistency by
simulation, bad input."""

import itertools

import numpy as np
import pytest

import sklearn_rankmetrics
from sklearn_rankmetrics import (
    dcg_at_k,
    group_auc_score,
    ndcg_at_k,
    popularity_propensity,
    position_propensity,
    precision_at_k,
    recall_at_k,
)


def _orderings(score):
    """Every ordering of the items consistent with descending scores (ties
    in any order), as lists of item indices."""
    levels = sorted(set(score.tolist()), reverse=True)
    groups = [[i for i in range(len(score)) if score[i] == s] for s in levels]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in perms for i in g]


def _ref(y_true, y_score, p, k, disc):
    """Per query, the expected sum over top-k of y/p * disc(rank)."""
    out = []
    for t, s, q in zip(y_true, y_score, p, strict=True):
        vals = []
        for order in _orderings(s):
            top = order[: (k or len(order))]
            vals.append(sum(t[i] / q[i] * disc(r + 1) for r, i in enumerate(top)))
        out.append(np.mean(vals))
    return np.array(out)


def _random(rng, n_q=5, n_i=6):
    y_true = (rng.random((n_q, n_i)) < 0.4).astype(float)
    y_true[0] = 0  # a query without an observed relevant item
    y_score = rng.integers(0, 3, (n_q, n_i)).astype(float)  # many ties
    p = rng.uniform(0.05, 1.0, (n_q, n_i))
    return y_true, y_score, p


def test_one_spelling_the_ips_functions_are_gone():
    """Issue 27 item 4: metric(..., propensity=p) is the one spelling."""
    for name in ("ips_dcg_at_k", "ips_precision_at_k", "ips_recall_at_k"):
        assert name not in sklearn_rankmetrics.__all__
        assert not hasattr(sklearn_rankmetrics, name)
        assert name not in dir(sklearn_rankmetrics)


def test_graded_recall_counts_items_not_grades():
    # issue 27: ips_recall_at_k gave 0.667 here (it weighted by grade); the
    # relevant items are the first and the third: one of two in the top 1
    y, s, p = [[2, 0, 1]], [[0.9, 0.8, 0.7]], [[1, 1, 1]]
    assert recall_at_k(y, s, propensity=p, k=1) == 0.5
    assert recall_at_k(y, s, k=1) == 0.5
    # every form: sparse, long with query ids
    from scipy import sparse

    assert recall_at_k(sparse.csr_matrix(y), s, propensity=p, k=1) == 0.5
    long = dict(query_id=["7", "7", "7"], propensity=[1, 1, 1], k=1)
    assert recall_at_k([1, 0, 2], [0.7, 0.8, 0.9], **long) == 0.5


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_ips_dcg_matches_brute_force_over_tied_orderings(seed, k):
    y_true, y_score, p = _random(np.random.default_rng(seed))
    ref = _ref(y_true, y_score, p, k, lambda r: 1 / np.log2(1 + r))
    got = dcg_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    # the empty query counts 0 (not skipped): the mean is over all 5
    assert got == pytest.approx(ref.mean(), rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_ips_precision_and_recall_match_brute_force(seed, k):
    y_true, y_score, p = _random(np.random.default_rng(seed))
    top = _ref(y_true, y_score, p, k, lambda r: 1.0)
    got = precision_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    assert got == pytest.approx(top.mean() / k, rel=1e-12)
    total = (y_true / p).sum(axis=1)
    keep = total > 0
    got = recall_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    assert got == pytest.approx((top[keep] / total[keep]).mean(), rel=1e-12)


def test_hand_worked():
    # items ranked a, b, c; a and c relevant with p 0.5: 1/0.5/1 + 1/0.5/2
    y_true, y_score = [[1, 0, 1]], [[0.9, 0.5, 0.1]]
    p = [[0.5, 1.0, 0.5]]
    assert dcg_at_k(y_true, y_score, propensity=p) == pytest.approx(3.0)
    assert precision_at_k(y_true, y_score, propensity=p, k=2) == 1.0
    # recall@1: (1/0.5) / (1/0.5 + 1/0.25) = 2 / 6
    p = [[0.5, 1.0, 0.25]]
    assert recall_at_k(y_true, y_score, propensity=p, k=1) == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", range(3))
def test_all_propensities_one_equal_plain_metrics(seed):
    y_true, y_score, _ = _random(np.random.default_rng(seed))
    ones = np.ones_like(y_true)
    assert dcg_at_k(y_true, y_score, propensity=ones, k=3) == pytest.approx(
        dcg_at_k(y_true, y_score, k=3, no_relevant=0.0)
    )
    assert precision_at_k(y_true, y_score, propensity=ones, k=3) == (
        pytest.approx(precision_at_k(y_true, y_score, k=3, no_relevant=0.0))
    )
    assert recall_at_k(y_true, y_score, propensity=ones, k=3) == (
        pytest.approx(recall_at_k(y_true, y_score, k=3))
    )


def test_recall_invariant_to_scaling_a_query_propensities():
    y_true, y_score, p = _random(np.random.default_rng(7))
    scale = np.array([[0.5], [0.3], [0.9], [0.2], [0.7]])
    a = recall_at_k(y_true, y_score, propensity=p, k=2)
    b = recall_at_k(y_true, y_score, propensity=p * scale, k=2)
    assert a == pytest.approx(b, rel=1e-12)


def _world(rng, n_q, n_i):
    relevance = (rng.random((n_q, n_i)) < 0.3).astype(float)
    score = rng.random((n_q, n_i)) + 0.5 * relevance
    # exposure depends on the item: popular (low index) items seen more
    p = np.broadcast_to(np.linspace(1.0, 0.1, n_i), (n_q, n_i)).copy()
    return relevance, score, p


def test_snips_recall_consistent_by_simulation():
    # the error of the ratio estimator shrinks as the item count grows
    rng = np.random.default_rng(1)
    errors = []
    for n_i in (20, 2000):
        relevance, score, _ = _world(rng, 30, n_i)
        p = rng.uniform(0.2, 1.0, relevance.shape)
        full = recall_at_k(relevance, score, k=n_i // 4)
        reps = []
        for _ in range(30):
            observed = relevance * (rng.random(p.shape) < p)
            reps.append(recall_at_k(observed, score, propensity=p, k=n_i // 4))
        errors.append(np.sqrt(np.mean((np.array(reps) - full) ** 2)))
    assert errors[1] < errors[0] / 3


def test_popularity_propensity():
    X = np.zeros((10, 3))
    X[:9, 0] = 1
    X[:1, 1] = 1
    p = popularity_propensity(X, gamma=1.0)
    assert p == pytest.approx([1.0, 1 / 9, 1 / 9])  # unseen item: the floor
    p = popularity_propensity(X, gamma=0.0, min_propensity=0.5)
    assert p == pytest.approx([1.0, 0.5, 0.5])
    import scipy.sparse as sp

    assert popularity_propensity(sp.csr_matrix(X), gamma=0.0) == pytest.approx(
        popularity_propensity(X, gamma=0.0)
    )


def test_position_propensity_recovers_curve_from_randomised_log():
    rng = np.random.default_rng(3)
    truth = 1 / np.arange(1, 6) ** 0.7
    rank = rng.integers(1, 6, 200_000)
    clicks = (rng.random(rank.size) < truth[rank - 1] * 0.4).astype(int)
    est = position_propensity(rank, clicks=clicks)
    assert est == pytest.approx(truth, abs=0.03)
    assert position_propensity([1, 2, 3], eta=2.0) == pytest.approx([1, 1 / 4, 1 / 9])
    assert position_propensity([1, 100], eta=1.0, min_propensity=0.1)[1] == 0.1


@pytest.mark.parametrize("bad", [0.0, -0.5, np.nan, 1.5])
def test_bad_propensity_values(bad):
    p = np.full((2, 3), 0.5)
    p[1, 2] = bad
    with pytest.raises(ValueError, match="propensity must be in"):
        dcg_at_k([[1, 0, 1], [0, 1, 1]], [[1, 2, 3], [3, 2, 1]], propensity=p)


def test_bad_shapes_and_options():
    y, s = [[1, 0, 1]], [[1, 2, 3]]
    with pytest.raises(ValueError, match="propensity has shape"):
        dcg_at_k(y, s, propensity=[[0.5, 0.5]])
    with pytest.raises(ValueError, match="query_id"):
        dcg_at_k([1, 0, 1], [1, 2, 3], propensity=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="k >= 1"):
        precision_at_k(y, s, propensity=[[1, 1, 1]], k=0)
    with pytest.raises(ValueError, match="min_propensity"):
        dcg_at_k(y, s, propensity=[[1, 1, 1]], min_propensity=0)
    with pytest.raises(ValueError, match="gamma"):
        popularity_propensity([[1]], gamma=np.nan)
    with pytest.raises(ValueError, match="rank"):
        position_propensity([0, 1])


def test_inputs_not_modified_and_clipping():
    y = np.array([[1.0, 0, 1]])
    p = np.array([[0.01, 1, 1]])
    p0 = p.copy()
    clipped = dcg_at_k(y, [[3, 2, 1]], propensity=p, min_propensity=0.5)
    assert clipped == pytest.approx(2 + 1 / np.log2(4))
    assert (p == p0).all()
    # one propensity per item broadcasts over the queries
    assert dcg_at_k(y, [[3, 2, 1]], propensity=[0.5, 1, 1]) == pytest.approx(2 + 0.5)


def test_long_form_equals_2d():
    rng = np.random.default_rng(11)
    y_true, y_score, p = _random(rng, n_q=6, n_i=5)
    qid = np.repeat(np.arange(6), 5)
    perm = rng.permutation(qid.size)  # rows out of order
    long = dict(query_id=qid[perm], propensity=p.ravel()[perm])
    yt, ys = y_true.ravel()[perm], y_score.ravel()[perm]
    for k in (None, 2):
        assert dcg_at_k(yt, ys, k=k, **long) == pytest.approx(
            dcg_at_k(y_true, y_score, propensity=p, k=k)
        )
    assert precision_at_k(yt, ys, k=3, **long) == pytest.approx(
        precision_at_k(y_true, y_score, propensity=p, k=3)
    )
    with pytest.raises(ValueError, match="propensity has shape"):
        dcg_at_k(yt, ys, query_id=qid, propensity=p.ravel()[:-1])


# ---- propensity= on the metric functions themselves (issue 21, item 1) ----


def _to_long(y_true, y_score, p, rng):
    """The long form of a 2-D input, rows shuffled; query ids as strings."""
    n_q, n_i = y_true.shape
    qid = np.repeat([f"q{i:02d}" for i in range(n_q)], n_i)
    order = rng.permutation(n_q * n_i)
    return y_true.ravel()[order], y_score.ravel()[order], p.ravel()[order], qid[order]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_dcg_propensity_brute_force_all_forms(seed, k):
    from scipy import sparse

    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    y_true = y_true * rng.integers(1, 4, y_true.shape)  # graded
    for gain, g in [("linear", y_true), ("exponential", 2.0**y_true - 1)]:
        ref = _ref(g, y_score, p, k, lambda r: 1 / np.log2(1 + r))
        per_q = dcg_at_k(y_true, y_score, k=k, gain=gain, propensity=p, average=None)
        np.testing.assert_allclose(per_q, ref, rtol=1e-12)
        assert dcg_at_k(y_true, y_score, k=k, gain=gain, propensity=p) == (
            pytest.approx(ref.mean(), rel=1e-12)  # the empty query counts 0
        )
        got = dcg_at_k(sparse.csr_matrix(y_true), y_score, k=k, gain=gain, propensity=p)
        assert got == pytest.approx(ref.mean(), rel=1e-12)
        yt, ys, pp, qid = _to_long(y_true, y_score, p, rng)
        got = dcg_at_k(yt, ys, k=k, gain=gain, propensity=pp, query_id=qid)
        assert got == pytest.approx(ref.mean(), rel=1e-12)
    w = rng.uniform(0.5, 2, len(y_true))
    ref = _ref(y_true, y_score, p, k, lambda r: 1 / np.log2(1 + r))
    got = dcg_at_k(y_true, y_score, k=k, propensity=p, sample_weight=w)
    assert got == pytest.approx(np.average(ref, weights=w), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_precision_propensity_brute_force_all_forms(seed, k):
    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    graded = y_true * rng.integers(1, 4, y_true.shape)
    ref = _ref(y_true, y_score, p, k, lambda r: 1.0) / k
    got = precision_at_k(graded, y_score, k=k, propensity=p, average=None)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    yt, ys, pp, qid = _to_long(graded, y_score, p, rng)
    got = precision_at_k(yt, ys, k=k, propensity=pp, query_id=qid)
    assert got == pytest.approx(ref.mean(), rel=1e-12)
    # relevance_threshold: relevant when grade >= 2
    ref = _ref((graded >= 2).astype(float), y_score, p, k, lambda r: 1.0) / k
    got = precision_at_k(graded, y_score, k=k, propensity=p, relevance_threshold=2)
    assert got == pytest.approx(ref.mean(), rel=1e-12)


def test_propensity_ignore_ties_breaks_by_position():
    y_true, y_score, p = [[0, 1, 1]], [[0.5, 0.5, 0.5]], [[1.0, 0.5, 0.25]]
    # ranks 1, 2, 3 in column order: 1/0.5/log2(3) at rank 2 + 1/0.25/2 at rank 3
    expected = 2 / np.log2(3) + 4 / 2
    assert dcg_at_k(y_true, y_score, propensity=p, ignore_ties=True) == (
        pytest.approx(expected)
    )
    assert precision_at_k(y_true, y_score, k=2, propensity=p, ignore_ties=True) == 1.0


def test_propensity_argument_unbiased_by_simulation():
    rng = np.random.default_rng(1)
    relevance, score, p = _world(rng, 40, 12)
    full = (
        dcg_at_k(relevance, score, k=5, no_relevant=0.0),
        precision_at_k(relevance, score, k=5, no_relevant=0.0),
    )
    ips, naive = [], []
    for _ in range(2000):
        observed = relevance * (rng.random(p.shape) < p)
        ips.append(
            (
                dcg_at_k(observed, score, k=5, propensity=p),
                precision_at_k(observed, score, k=5, propensity=p),
            )
        )
        naive.append(dcg_at_k(observed, score, k=5, no_relevant=0.0))
    ips, naive = np.array(ips), np.array(naive)
    se = ips.std(axis=0, ddof=1) / np.sqrt(len(ips))
    assert np.all(np.abs(ips.mean(axis=0) - full) < 4 * se)
    naive_se = naive.std(ddof=1) / np.sqrt(len(naive))
    assert abs(naive.mean() - full[0]) > 10 * naive_se


@pytest.mark.parametrize("bad", [0.0, -0.2, np.nan, 1.5])
def test_propensity_argument_bad_values(bad):
    p = np.array([[0.5, bad, 1.0]])
    for metric, kw in [(dcg_at_k, {}), (precision_at_k, {"k": 2})]:
        with pytest.raises(ValueError, match="propensity must be in"):
            metric([[1, 0, 1]], [[0.3, 0.2, 0.1]], propensity=p, **kw)


def test_propensity_argument_options_and_clipping():
    y_true, y_score = np.array([[1, 0, 1]]), np.array([[0.9, 0.5, 0.1]])
    p = np.array([[0.01, 1.0, 0.5]])
    before = p.copy()
    got = dcg_at_k(y_true, y_score, propensity=p, min_propensity=0.1)
    assert got == pytest.approx(1 / 0.1 + 1 / 0.5 / 2)
    np.testing.assert_array_equal(p, before)
    with pytest.raises(ValueError, match="integer cutoff k"):
        precision_at_k(y_true, y_score, propensity=p)
    with pytest.raises(ValueError, match="precision_denominator='k'"):
        precision_at_k(
            y_true, y_score, k=2, propensity=p, precision_denominator="retrieved"
        )
    with pytest.raises(ValueError, match="average='queries', 'micro'"):
        precision_at_k(y_true, y_score, k=2, propensity=p, average="macro")
    with pytest.raises(ValueError, match="gain='linear' or 'exponential'"):
        dcg_at_k(y_true, y_score, propensity=p, gain={0: 0, 1: 3})
    with pytest.raises(ValueError, match="propensity has shape"):
        dcg_at_k(y_true, y_score, propensity=[[0.5, 0.5]])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_recall_propensity_brute_force_all_forms(seed, k):
    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    y_score[1, 0] = -np.inf  # not retrieved, still in the denominator
    top = _ref(y_true, y_score, p, k, lambda r: 1.0)
    total = (y_true / p).sum(axis=1)
    keep = total > 0
    ref = np.full(len(y_true), np.nan)
    ref[keep] = top[keep] / total[keep]
    got = recall_at_k(y_true, y_score, k=k, propensity=p, average=None)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert recall_at_k(y_true, y_score, k=k, propensity=p) == (
        pytest.approx(ref[keep].mean(), rel=1e-12)
    )
    zero = recall_at_k(y_true, y_score, k=k, propensity=p, no_relevant=0.0)
    assert zero == pytest.approx(np.nan_to_num(ref).mean(), rel=1e-12)
    w = rng.uniform(0.5, 2, len(y_true))
    yt, ys, pp, qid = _to_long(y_true, y_score, p, rng)
    row_w = w[np.array([int(q[1:]) for q in qid])]
    got = recall_at_k(yt, ys, k=k, propensity=pp, query_id=qid, sample_weight=row_w)
    assert got == pytest.approx(np.average(ref[keep], weights=w[keep]), rel=1e-12)
    with pytest.raises(ValueError, match="average='queries', 'micro'"):
        recall_at_k(y_true, y_score, k=k, propensity=p, average="samples")


def test_scorer_routes_propensity_in_cross_validate():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold, cross_validate

    from sklearn_rankmetrics import get_scorer

    rng = np.random.default_rng(0)
    n = 200
    X = rng.random((n, 3))
    y = (X[:, 0] + rng.random(n) > 1).astype(float)
    qid = np.repeat(np.arange(20), 10)
    p = rng.uniform(0.2, 1, n)
    cv = GroupKFold(2)
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(
            Ridge(),
            X,
            y,
            cv=cv,
            scoring={"dcg": get_scorer("dcg@5"), "mrr": get_scorer("mrr@5")},
            params={"query_id": qid, "propensity": p, "groups": qid},
        )
    for fold, (train, test) in enumerate(cv.split(X, y, qid)):
        score = Ridge().fit(X[train], y[train]).predict(X[test])
        want = dcg_at_k(y[test], score, k=5, query_id=qid[test], propensity=p[test])
        assert got["test_dcg"][fold] == pytest.approx(want, rel=1e-12)
        naive = dcg_at_k(y[test], score, k=5, query_id=qid[test])
        assert want != pytest.approx(naive)  # the propensities did arrive


# ---- ndcg_at_k(propensity=), self_normalized, item_weight, GAUC (item 1) ----


def _disc_log(r):
    return 1 / np.log2(1 + r)


def _ideal_ref(levels, counts, n_ranks, disc):
    """Fill the ranks 1..n_ranks one by one in decreasing level, each level
    taking its (fractional) count of rank slots."""
    by_level = {}
    for g, c in zip(levels, counts, strict=True):
        if g > 0:
            by_level[g] = by_level.get(g, 0.0) + c
    total, rank, room = 0.0, 1, 1.0
    for g in sorted(by_level, reverse=True):
        left = by_level[g]
        while left > 1e-12 and rank <= n_ranks:
            take = min(left, room)
            total += g * take * disc(rank)
            left -= take
            room -= take
            if room <= 1e-12:
                rank, room = rank + 1, 1.0
    return total


def _ndcg_ref(gains, y_score, p, k, disc=_disc_log):
    """Per query: expected IPS DCG@k over tied orderings / the ideal DCG@k
    of the estimated counts (nan when there is no observed relevant item)."""
    shown = np.where(np.isneginf(y_score), 0.0, gains)  # -inf: not retrieved
    num = _ref(shown, y_score, p, k, disc)
    out = []
    for g, q, top in zip(gains, p, num, strict=True):
        ideal = _ideal_ref(g, 1 / q, min(k or len(g), len(g)), disc)
        out.append(top / ideal if ideal > 0 else np.nan)
    return np.array(out)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_ndcg_propensity_brute_force_all_forms(seed, k):
    from scipy import sparse

    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    y_true = y_true * rng.integers(1, 4, y_true.shape)  # graded
    y_score[2, 1] = -np.inf  # not retrieved: still in the ideal
    for gain, g in [("linear", y_true), ("exponential", 2.0**y_true - 1)]:
        ref = _ndcg_ref(g, y_score, p, k)
        assert np.isnan(ref[0])  # no observed relevant item: 0/0
        got = ndcg_at_k(y_true, y_score, k=k, gain=gain, propensity=p, average=None)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        mean = np.nanmean(ref)  # no_relevant="skip": the empty query left out
        got = ndcg_at_k(
            sparse.csr_matrix(y_true), y_score, k=k, gain=gain, propensity=p
        )
        assert got == pytest.approx(mean, rel=1e-12)
        yt, ys, pp, qid = _to_long(y_true, y_score, p, rng)
        got = ndcg_at_k(yt, ys, k=k, gain=gain, propensity=pp, query_id=qid)
        assert got == pytest.approx(mean, rel=1e-12)
        zero = ndcg_at_k(y_true, y_score, k=k, gain=gain, propensity=p, no_relevant=0.0)
        assert zero == pytest.approx(np.nan_to_num(ref).mean(), rel=1e-12)
    w = rng.uniform(0.5, 2, len(y_true))
    ref = _ndcg_ref(y_true, y_score, p, k)
    got = ndcg_at_k(y_true, y_score, k=k, propensity=p, sample_weight=w)
    keep = ~np.isnan(ref)
    assert got == pytest.approx(np.average(ref[keep], weights=w[keep]), rel=1e-12)


def test_ndcg_propensity_hand_worked():
    # ranked b, c, a; b observed with p 0.5: numerator 2 / log2(3) + 1 / 2;
    # estimated counts 2 + 1 relevant items fill ranks 1..3
    got = ndcg_at_k([[0, 1, 1]], [[0.9, 0.5, 0.1]], propensity=[[1, 0.5, 1]])
    assert got == pytest.approx(
        (2 / np.log2(3) + 0.5) / (1 + 1 / np.log2(3) + 0.5), rel=1e-14
    )
    # a fractional count fills part of a rank: grade 2 (p 0.4: 2.5 items)
    # then grade 1 (1 item) over k = 3 ranks: 2 + 2/log2(3) + (0.5*2 + 0.5*1)/2
    y, s = [[2, 1, 0]], [[3, 2, 1]]
    got = ndcg_at_k(y, s, k=3, propensity=[[0.4, 1, 1]], average=None)
    ideal = 2 + 2 / np.log2(3) + 0.75
    assert got[0] == pytest.approx((5 + 1 / np.log2(3)) / ideal, rel=1e-14)


@pytest.mark.parametrize("seed", range(3))
def test_ndcg_all_propensities_one_equal_plain(seed):
    rng = np.random.default_rng(seed)
    y_true, y_score, _ = _random(rng, n_q=8, n_i=7)
    y_true = y_true * rng.integers(1, 5, y_true.shape)
    ones = np.ones_like(y_true)
    for kw in [
        {},
        {"k": 1},
        {"k": 3, "gain": "exponential"},
        {"k": 20},
        {"k": 4, "discount": "reciprocal"},
        {"log_base": 10, "no_relevant": 0.0},
        {"k": 2, "ties": "pessimistic"},
        {"k": 2, "ignore_ties": True},
    ]:
        want = ndcg_at_k(y_true, y_score, average=None, **kw)
        got = ndcg_at_k(y_true, y_score, propensity=ones, average=None, **kw)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        got = ndcg_at_k(y_true, y_score, item_weight=ones, average=None, **kw)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_ndcg_propensity_consistent_by_simulation():
    # the bias of the ratio estimator shrinks as the item count grows and
    # stays far below the naive metric's (observed relevance, no weights)
    rng = np.random.default_rng(5)
    bias, naive_bias = [], []
    for n_i in (10, 1000):
        relevance = (rng.random((20, n_i)) < 0.3) * rng.integers(1, 3, (20, n_i))
        p = np.broadcast_to(np.linspace(1.0, 0.1, n_i), relevance.shape)
        # a model that also likes the rarely seen items
        score = rng.random(relevance.shape) + 0.4 * relevance - 0.3 * p
        k = n_i // 2
        full = ndcg_at_k(relevance, score, k=k, average=None)
        ips, naive = [], []
        for _ in range(60):
            observed = relevance * (rng.random(p.shape) < p)
            ips.append(ndcg_at_k(observed, score, k=k, propensity=p, average=None))
            naive.append(ndcg_at_k(observed, score, k=k, average=None))
        bias.append(np.abs(np.nanmean(ips, axis=0) - full).mean())
        naive_bias.append(np.abs(np.nanmean(naive, axis=0) - full).mean())
    assert bias[1] < bias[0] / 3
    assert bias[1] < naive_bias[1] / 5


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 2])
def test_dcg_self_normalized_brute_force_all_forms(seed, k):
    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    y_true = y_true * rng.integers(1, 4, y_true.shape)
    for gain, g in [("linear", y_true), ("exponential", 2.0**y_true - 1)]:
        top = _ref(g, y_score, p, k, _disc_log)
        total = (g / p).sum(axis=1)
        ref = np.where(total > 0, top / np.where(total > 0, total, 1), np.nan)
        kw = dict(k=k, gain=gain, self_normalized=True)
        got = dcg_at_k(y_true, y_score, propensity=p, average=None, **kw)
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        yt, ys, pp, qid = _to_long(y_true, y_score, p, rng)
        got = dcg_at_k(yt, ys, propensity=pp, query_id=qid, **kw)
        assert got == pytest.approx(np.nanmean(ref), rel=1e-12)
        got = dcg_at_k(y_true, y_score, propensity=p, no_relevant=0.0, **kw)
        assert got == pytest.approx(np.nan_to_num(ref).mean(), rel=1e-12)
    # invariant to a common scale of each query's propensities
    scale = rng.uniform(0.1, 1.0, (len(p), 1))
    a = dcg_at_k(y_true, y_score, k=k, propensity=p, self_normalized=True)
    b = dcg_at_k(y_true, y_score, k=k, propensity=p * scale, self_normalized=True)
    assert a == pytest.approx(b, rel=1e-12)


def _tfr_dcg(labels, scores, weights, topn=None):
    """TF-Ranking's documented weighted DCG of one list: the items sorted by
    score, sum over the top n of weight * (2**label - 1) / log2(rank + 1)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[: topn or None]
    return sum(
        weights[i] * (2.0 ** labels[i] - 1) / np.log2(r + 2)
        for r, i in enumerate(order)
    )


def _tfr_ndcg(labels, scores, weights, topn=None):
    """TF-Ranking's weighted NDCG: the ideal sorts by weighted gain."""
    weighted = [w * (2.0**y - 1) for y, w in zip(labels, weights, strict=True)]
    ideal = _tfr_dcg(labels, weighted, weights, topn)
    return _tfr_dcg(labels, scores, weights, topn) / ideal if ideal else 0.0


def _tfr_list_weights(labels, weights):
    """TF-Ranking's per-list weights: sum(w * gain) / sum(gain); a list
    without gain gets the mean of the others' (1 when there are none)."""
    out = []
    for y, w in zip(labels, weights, strict=True):
        gain = 2.0 ** np.asarray(y) - 1
        out.append((w * gain).sum() / gain.sum() if gain.sum() > 0 else np.nan)
    out = np.array(out)
    fill = np.nanmean(out) if (~np.isnan(out)).any() else 1.0
    return np.where(np.isnan(out), fill, out)


def test_item_weight_tf_ranking_cases():
    # 1. TF-Ranking metrics_impl_test "ndcg with weights": one list
    labels, scores, weights = [[1.0, 2, 3]], [[1.0, 2, 3]], [[4.0, 1, 1]]
    got = ndcg_at_k(labels, scores, gain="exponential", item_weight=weights)
    want = (7 / 1 + 3 / np.log2(3) + 1 / 2 * 4) / (7 / 1 + 4 / np.log2(3) + 3 / 2)
    assert got == pytest.approx(want, rel=1e-12)
    assert want == pytest.approx(_tfr_ndcg(labels[0], scores[0], weights[0]))
    # 2. keras metrics_test "NDCG with weights": two lists, per-list weights
    labels = np.array([[0.0, 0, 1], [0, 1, 2]])
    scores = np.array([[1.0, 3, 2], [1, 2, 3]])
    weights = np.array([[1.0, 2, 3], [4, 5, 6]])
    list_w = _tfr_list_weights(labels, weights)
    for topn in (None, 1):
        per_list = [
            _tfr_ndcg(*args, topn) for args in zip(labels, scores, weights, strict=True)
        ]
        want = np.average(per_list, weights=list_w)
        got = ndcg_at_k(
            labels,
            scores,
            k=topn,
            gain="exponential",
            item_weight=weights,
            sample_weight=list_w,
            no_relevant=0.0,
        )
        assert got == pytest.approx(want, rel=1e-12)
    # 3. metrics_test "DCG with weights": TF-Ranking divides the summed DCGs
    # by the summed per-list weights
    labels = np.array([[0.0, 0, 1], [0, 1, 2]])
    weights = np.array([[1.0, 1, 1], [2, 2, 1]])
    list_w = _tfr_list_weights(labels, weights)
    assert list_w == pytest.approx([1.0, (3 * 1 + 1 * 2) / 4])
    per_list = dcg_at_k(
        labels, scores, gain="exponential", item_weight=weights, average=None
    )
    args = zip(labels, scores, weights, strict=True)
    assert per_list.sum() == pytest.approx(sum(_tfr_dcg(*a) for a in args))
    # the test's own expectation: (dcg_1 + weighted dcg_2) / (1 + 5 / 4)
    want = (1 / np.log2(3) + 3 + 2 / np.log2(3)) / (1 + 5 / 4)
    assert per_list.sum() / list_w.sum() == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 2])
def test_item_weight_brute_force_all_forms(seed, k):
    from scipy import sparse

    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng)
    y_true = y_true * rng.integers(1, 4, y_true.shape)
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], y_true.shape)
    ones = np.ones_like(p)
    g = y_true * weight
    dcg = _ref(g, y_score, ones, k, _disc_log)
    ndcg = _ndcg_ref(g, y_score, ones, k)
    got = ndcg_at_k(y_true, y_score, k=k, item_weight=weight, average=None)
    np.testing.assert_allclose(got, ndcg, rtol=1e-12)
    got = dcg_at_k(y_true, y_score, k=k, item_weight=weight, no_relevant=0.0)
    assert got == pytest.approx(dcg.mean(), rel=1e-12)
    got = ndcg_at_k(sparse.csr_matrix(y_true), y_score, k=k, item_weight=weight)
    assert got == pytest.approx(np.nanmean(ndcg), rel=1e-12)
    yt, ys, ww, qid = _to_long(y_true, y_score, weight, rng)
    got = ndcg_at_k(yt, ys, k=k, item_weight=ww, query_id=qid)
    assert got == pytest.approx(np.nanmean(ndcg), rel=1e-12)
    # with propensities too: gain * weight / p, ideal from the counts 1 / p
    ref = _ndcg_ref(g, y_score, p, k)
    got = ndcg_at_k(y_true, y_score, k=k, item_weight=weight, propensity=p)
    assert got == pytest.approx(np.nanmean(ref), rel=1e-12)
    got = dcg_at_k(y_true, y_score, k=k, item_weight=weight, propensity=p)
    assert got == pytest.approx(_ref(g, y_score, p, k, _disc_log).mean(), rel=1e-12)


def _auc_ref(y_true, y_score, p, row_w=None, pooled=False):
    """Per query, the IPS AUC written out pair by pair: an observed positive
    weighs c/p as a positive and 1 - c/p as a negative (times the row
    weight), an item scored -inf is no negative; the pairs of two distinct
    items, a tie counting 1/2.  nan where the estimated pairs are <= 0.
    ``pooled``: (numerators, denominators) instead."""
    nums, dens = [], []
    for i, (y, s, q) in enumerate(zip(y_true, y_score, p, strict=True)):
        base = np.ones(len(y)) if row_w is None else row_w[i]
        wp = [base[a] / q[a] if y[a] > 0 else 0.0 for a in range(len(y))]
        wn = [base[a] - wp[a] for a in range(len(y))]
        wn = [0.0 if s[a] == -np.inf else wn[a] for a in range(len(y))]
        num = den = 0.0
        for a in range(len(y)):
            for b in range(len(y)):
                if a == b:
                    continue
                pair = wp[a] * wn[b]
                den += pair
                num += pair * (1.0 if s[a] > s[b] else 0.5 if s[a] == s[b] else 0.0)
        nums.append(num)
        dens.append(den)
    nums, dens = np.array(nums), np.array(dens)
    if pooled:
        return nums, dens
    return np.where(dens > 0, nums / np.where(dens > 0, dens, 1), np.nan)


def test_group_auc_propensity_hand_worked():
    # one user, items a..d scored 0.9, 0.5, 0.1, 0.3; a and c observed
    # positives with p = 0.5: each weighs 2 as a positive and 1 - 2 = -1 as
    # a negative, b and d weigh 1 as negatives.
    #   pairs (positive, other item), weight 2 x the other's negative weight:
    #   a over b (+1), c (-1), d (+1): 2 x 1 = 2 correctly ordered
    #   c over nothing: 0
    #   estimated pairs: (2 + 2) x (-1 + 1 - 1 + 1) - (2 x -1 + 2 x -1) = 4
    y, s, p = [[1, 0, 1, 0]], [[0.9, 0.5, 0.1, 0.3]], [[0.5, 1, 0.5, 1]]
    assert group_auc_score(y, s, propensity=p) == 0.5
    # a second user: d the only observed positive, p = 0.5, ranked first:
    # 2 x (1 + 1 + 1) = 6 over 2 x (3 - 1) - 2 x (-1) = 6
    y2, s2, p2 = [[0, 0, 0, 1]], [[0.3, 0.2, 0.1, 0.4]], [[1, 1, 1, 0.5]]
    assert group_auc_score(y2, s2, propensity=p2) == 1.0
    both = dict(propensity=p + p2)
    assert group_auc_score(y + y2, s + s2, **both) == 0.75  # equal impressions
    # pooled: (2 + 6) / (4 + 6), each user's pairs weighted by its 4 items
    assert group_auc_score(y + y2, s + s2, average="micro", **both) == 0.8


@pytest.mark.parametrize("seed", range(4))
def test_group_auc_propensity_matches_the_pairwise_reference(seed):
    from scipy import sparse

    rng = np.random.default_rng(seed)
    y_true, y_score, p = _random(rng, n_q=7, n_i=6)
    y_true[1] = 1  # one class only: no candidate negative's pair
    y_score[2, [0, 3]] = -np.inf  # not candidates
    ref = _auc_ref(y_true, y_score, p)
    assert np.isnan(ref[:2]).all() and (~np.isnan(ref)).sum() >= 2
    got = group_auc_score(y_true, y_score, propensity=p, average=None)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    got = group_auc_score(sparse.csr_matrix(y_true), y_score, propensity=p)
    # impressions: the rows the AUC reads (positives, candidate negatives)
    read = ((y_true > 0) | (y_score > -np.inf)).sum(axis=1)
    defined = ~np.isnan(ref)
    want = np.average(ref[defined], weights=read[defined])
    assert got == pytest.approx(want, rel=1e-12)
    yt, ys, pp, qid = _to_long(y_true, y_score, p, rng)
    got = group_auc_score(yt, ys, propensity=pp, query_id=qid, average=None)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # query weights unchanged: impressions (rows), clicks (positive rows)
    keep = ~np.isnan(ref)
    clicks = (y_true > 0).sum(axis=1)
    got = group_auc_score(y_true, y_score, propensity=p, query_weighting="clicks")
    assert got == pytest.approx(np.average(ref[keep], weights=clicks[keep]))
    qw = rng.uniform(0.5, 2, len(y_true))
    got = group_auc_score(y_true, y_score, propensity=p, sample_weight=qw)
    assert got == pytest.approx(np.average(ref[keep], weights=(qw * read)[keep]))
    # pooled: the summed numerators over the summed estimated pairs, each
    # query's weighted by its query weight (the rows its AUC reads, times qw)
    num, den = _auc_ref(y_true, y_score, p, pooled=True)
    pos = den > 0
    for kw, v in (({}, read), ({"sample_weight": qw}, qw * read)):
        got = group_auc_score(y_true, y_score, propensity=p, average="micro", **kw)
        want = (v * num)[pos].sum() / (v * den)[pos].sum()
        assert got == pytest.approx(want, rel=1e-12)
    got = group_auc_score(
        yt, ys, propensity=pp, query_id=qid, average="micro", query_weighting="uniform"
    )
    assert got == pytest.approx(num[pos].sum() / den[pos].sum(), rel=1e-12)
    # long form: per-row weights multiply both weights of a row
    row_w = rng.uniform(0.5, 2, y_true.shape)
    ref_w = _auc_ref(y_true, y_score, p, row_w)
    _, _, ww, _ = _to_long(y_true, y_score, row_w, np.random.default_rng(seed))
    yt, ys, pp, qid = _to_long(y_true, y_score, p, np.random.default_rng(seed))
    got = group_auc_score(
        yt, ys, propensity=pp, query_id=qid, sample_weight=ww, average=None
    )
    np.testing.assert_allclose(got, ref_w, rtol=1e-12, atol=1e-12)
    got = group_auc_score(
        yt,
        ys,
        propensity=pp,
        query_id=qid,
        sample_weight=ww,
        query_weighting="impressions",
    )
    keep = ~np.isnan(ref_w)
    read_w = (row_w * ((y_true > 0) | (y_score > -np.inf))).sum(axis=1)
    assert got == pytest.approx(np.average(ref_w[keep], weights=read_w[keep]))


@pytest.mark.parametrize("seed", range(3))
def test_group_auc_all_propensities_one_is_the_plain_gauc(seed):
    rng = np.random.default_rng(seed)
    y_true, y_score, _ = _random(rng, n_q=9, n_i=7)
    ones = np.ones_like(y_true)
    for kw in ({}, {"query_weighting": "clicks"}, {"constant_scores": "skip"}):
        np.testing.assert_allclose(
            group_auc_score(y_true, y_score, propensity=ones, average=None, **kw),
            group_auc_score(y_true, y_score, average=None, **kw),
            rtol=1e-12,
        )
        assert group_auc_score(y_true, y_score, propensity=ones, **kw) == pytest.approx(
            group_auc_score(y_true, y_score, **kw), rel=1e-12
        )


@pytest.mark.parametrize("bad", [0.0, -0.2, np.nan, 1.5])
def test_bad_propensity_on_ndcg_and_auc(bad):
    p = np.array([[0.5, bad, 1.0]])
    for metric in (ndcg_at_k, group_auc_score):
        with pytest.raises(ValueError, match="propensity must be in"):
            metric([[1, 0, 1]], [[0.3, 0.2, 0.1]], propensity=p)
    with pytest.raises(ValueError, match="propensity must be in"):
        dcg_at_k([[1, 0, 1]], [[0.3, 0.2, 0.1]], propensity=p, self_normalized=True)


def test_estimator_options_bad_input():
    y, s, p = [[1, 0, 1]], [[0.3, 0.2, 0.1]], [[0.5, 1, 1]]
    for metric in (ndcg_at_k, group_auc_score, dcg_at_k):
        with pytest.raises(ValueError, match="propensity has shape"):
            metric(y, s, propensity=[[0.5, 0.5]])
        with pytest.raises(ValueError, match="min_propensity"):
            metric(y, s, propensity=p, min_propensity=0)
        with pytest.raises(ValueError, match="min_propensity"):
            metric(y, s, propensity=p, min_propensity=1.5)
        with pytest.raises(ValueError, match="without propensity"):
            metric(y, s, min_propensity=0.1)
        with pytest.raises(TypeError, match="self_normalized must be True or False"):
            metric(y, s, propensity=p, self_normalized="yes")
    for metric, kw in [(ndcg_at_k, {}), (group_auc_score, {}), (recall_at_k, {"k": 2})]:
        with pytest.raises(ValueError, match="self-normalised by construction"):
            metric(y, s, propensity=p, self_normalized=False, **kw)
        metric(y, s, propensity=p, self_normalized=True, **kw)  # a no-op
    with pytest.raises(ValueError, match="recall_at_k"):
        precision_at_k(y, s, k=2, propensity=p, self_normalized=True)
    with pytest.raises(ValueError, match="needs propensity="):
        dcg_at_k(y, s, self_normalized=True)
    with pytest.raises(ValueError, match="item_weight must be finite and >= 0"):
        ndcg_at_k(y, s, item_weight=[[1, -1, 1]])
    with pytest.raises(ValueError, match="item_weight must be finite and >= 0"):
        dcg_at_k(y, s, item_weight=[[1, np.nan, 1]])
    with pytest.raises(ValueError, match="item_weight has shape"):
        ndcg_at_k(y, s, item_weight=[[1, 1]])
    with pytest.raises(ValueError, match="gain='linear' or 'exponential'"):
        ndcg_at_k(y, s, item_weight=[[1, 1, 1]], gain={0: 0, 1: 2})
    with pytest.raises(ValueError, match="k=None, an integer"):
        ndcg_at_k(y, s, propensity=p, k=1.5)
    with pytest.raises(ValueError, match="k must be an int"):
        ndcg_at_k(y, s, propensity=p, k=[1.5])
    with pytest.raises(ValueError, match="cut-offs for 1 queries"):
        ndcg_at_k(y, s, propensity=p, k=[1, 2])
    with pytest.raises(ValueError, match="average='queries', 'micro'"):
        ndcg_at_k(y, s, propensity=p, average="macro")
    # the pooled form is the inverse-propensity ratio's: not for item_weight
    with pytest.raises(ValueError, match="average='queries' or None"):
        ndcg_at_k(y, s, item_weight=[[1, 1, 1]], average="micro")
    with pytest.raises(ValueError, match="needs propensity="):
        group_auc_score(y, s, average="micro")


def test_estimators_inputs_not_modified():
    rng = np.random.default_rng(3)
    y_true, y_score, p = _random(rng)
    w = rng.uniform(0, 2, p.shape)
    copies = [a.copy() for a in (y_true, y_score, p, w)]
    ndcg_at_k(y_true, y_score, propensity=p, item_weight=w, min_propensity=0.2, k=2)
    dcg_at_k(y_true, y_score, propensity=p, self_normalized=True, min_propensity=0.2)
    group_auc_score(y_true, y_score, propensity=p, min_propensity=0.2)
    for a, b in zip((y_true, y_score, p, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)


def test_metrics_without_an_estimator_refuse_propensity():
    from sklearn_rankmetrics import average_precision_at_k, hit_rate_at_k

    for metric in (average_precision_at_k, hit_rate_at_k):
        with pytest.raises(TypeError, match="propensity"):
            metric([[1, 0]], [[1, 0]], k=1, propensity=[[1, 1]])


def test_ndcg_propensity_per_query_k():
    rng = np.random.default_rng(9)
    y_true, y_score, p = _random(rng)
    ks = np.array([1, 2, 3, 5, 9])
    want = [
        ndcg_at_k(
            y_true[i : i + 1],
            y_score[i : i + 1],
            k=int(k),
            propensity=p[i : i + 1],
            average=None,
        )[0]
        for i, k in enumerate(ks)
    ]
    got = ndcg_at_k(y_true, y_score, k=ks, propensity=p, average=None)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    ref = [
        _ndcg_ref(y_true[i : i + 1], y_score[i : i + 1], p[i : i + 1], int(k))[0]
        for i, k in enumerate(ks)
    ]
    np.testing.assert_allclose(got, ref, rtol=1e-12)
