"""IPS metrics and propensity estimates: brute-force references over tied
orderings, unbiasedness / consistency by simulation, bad input."""

import itertools

import numpy as np
import pytest

from sklearn_rankmetrics import (
    dcg_at_k,
    ips_dcg_at_k,
    ips_precision_at_k,
    ips_recall_at_k,
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
    """Mean over queries of the expected sum over top-k of y/p * disc(rank)."""
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


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_ips_dcg_matches_brute_force_over_tied_orderings(seed, k):
    y_true, y_score, p = _random(np.random.default_rng(seed))
    ref = _ref(y_true, y_score, p, k, lambda r: 1 / np.log2(1 + r))
    got = ips_dcg_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    # the empty query counts 0 (not skipped): the mean is over all 5
    assert got == pytest.approx(ref.mean(), rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_ips_precision_and_recall_match_brute_force(seed, k):
    y_true, y_score, p = _random(np.random.default_rng(seed))
    top = _ref(y_true, y_score, p, k, lambda r: 1.0)
    got = ips_precision_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    assert got == pytest.approx(top.mean() / k, rel=1e-12)
    total = (y_true / p).sum(axis=1)
    keep = total > 0
    got = ips_recall_at_k(y_true, y_score, propensity=p, k=k, ties="expected")
    assert got == pytest.approx((top[keep] / total[keep]).mean(), rel=1e-12)


def test_hand_worked():
    # items ranked a, b, c; a and c relevant with p 0.5: 1/0.5/1 + 1/0.5/2
    y_true, y_score = [[1, 0, 1]], [[0.9, 0.5, 0.1]]
    p = [[0.5, 1.0, 0.5]]
    assert ips_dcg_at_k(y_true, y_score, propensity=p) == pytest.approx(3.0)
    assert ips_precision_at_k(y_true, y_score, propensity=p, k=2) == 1.0
    # recall@1: (1/0.5) / (1/0.5 + 1/0.25) = 2 / 6
    p = [[0.5, 1.0, 0.25]]
    assert ips_recall_at_k(y_true, y_score, propensity=p, k=1) == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", range(3))
def test_all_propensities_one_equal_plain_metrics(seed):
    y_true, y_score, _ = _random(np.random.default_rng(seed))
    ones = np.ones_like(y_true)
    assert ips_dcg_at_k(y_true, y_score, propensity=ones, k=3) == pytest.approx(
        dcg_at_k(y_true, y_score, k=3, no_relevant=0.0)
    )
    assert ips_precision_at_k(y_true, y_score, propensity=ones, k=3) == (
        pytest.approx(precision_at_k(y_true, y_score, k=3, no_relevant=0.0))
    )
    assert ips_recall_at_k(y_true, y_score, propensity=ones, k=3) == (
        pytest.approx(recall_at_k(y_true, y_score, k=3))
    )


def test_recall_invariant_to_scaling_a_query_propensities():
    y_true, y_score, p = _random(np.random.default_rng(7))
    scale = np.array([[0.5], [0.3], [0.9], [0.2], [0.7]])
    a = ips_recall_at_k(y_true, y_score, propensity=p, k=2)
    b = ips_recall_at_k(y_true, y_score, propensity=p * scale, k=2)
    assert a == pytest.approx(b, rel=1e-12)


def _world(rng, n_q, n_i):
    relevance = (rng.random((n_q, n_i)) < 0.3).astype(float)
    score = rng.random((n_q, n_i)) + 0.5 * relevance
    # exposure depends on the item: popular (low index) items seen more
    p = np.broadcast_to(np.linspace(1.0, 0.1, n_i), (n_q, n_i)).copy()
    return relevance, score, p


def test_ips_unbiased_by_simulation():
    rng = np.random.default_rng(0)
    relevance, score, p = _world(rng, 40, 12)
    full_dcg = dcg_at_k(relevance, score, k=5, no_relevant=0.0)
    full_prec = precision_at_k(relevance, score, k=5, no_relevant=0.0)
    ips, naive_prec = [], []
    for _ in range(2000):
        observed = relevance * (rng.random(p.shape) < p)
        ips.append(
            (
                ips_dcg_at_k(observed, score, propensity=p, k=5),
                ips_precision_at_k(observed, score, propensity=p, k=5),
            )
        )
        naive_prec.append(precision_at_k(observed, score, k=5, no_relevant=0.0))
    ips = np.array(ips)
    mean, se = ips.mean(axis=0), ips.std(axis=0, ddof=1) / np.sqrt(len(ips))
    assert abs(mean[0] - full_dcg) < 4 * se[0]
    assert abs(mean[1] - full_prec) < 4 * se[1]
    naive = np.array(naive_prec)
    naive_se = naive.std(ddof=1) / np.sqrt(len(naive))
    assert abs(naive.mean() - full_prec) > 10 * naive_se  # the naive one is biased


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
            reps.append(ips_recall_at_k(observed, score, propensity=p, k=n_i // 4))
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
        ips_dcg_at_k([[1, 0, 1], [0, 1, 1]], [[1, 2, 3], [3, 2, 1]], propensity=p)


def test_bad_shapes_and_options():
    y, s = [[1, 0, 1]], [[1, 2, 3]]
    with pytest.raises(ValueError, match="propensity has shape"):
        ips_dcg_at_k(y, s, propensity=[[0.5, 0.5]])
    with pytest.raises(ValueError, match="2-D"):
        ips_dcg_at_k([1, 0, 1], [1, 2, 3], propensity=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="k must be"):
        ips_precision_at_k(y, s, propensity=[[1, 1, 1]], k=0)
    with pytest.raises(ValueError, match="min_propensity"):
        ips_dcg_at_k(y, s, propensity=[[1, 1, 1]], min_propensity=0)
    with pytest.raises(ValueError, match="gamma"):
        popularity_propensity([[1]], gamma=np.nan)
    with pytest.raises(ValueError, match="rank"):
        position_propensity([0, 1])


def test_inputs_not_modified_and_clipping():
    y = np.array([[1.0, 0, 1]])
    p = np.array([[0.01, 1, 1]])
    p0 = p.copy()
    clipped = ips_dcg_at_k(y, [[3, 2, 1]], propensity=p, min_propensity=0.5)
    assert clipped == pytest.approx(2 + 1 / np.log2(4))
    assert (p == p0).all()
    # one propensity per item broadcasts over the queries
    assert ips_dcg_at_k(y, [[3, 2, 1]], propensity=[0.5, 1, 1]) == pytest.approx(
        2 + 0.5
    )


def test_long_form_equals_2d():
    rng = np.random.default_rng(11)
    y_true, y_score, p = _random(rng, n_q=6, n_i=5)
    qid = np.repeat(np.arange(6), 5)
    perm = rng.permutation(qid.size)  # rows out of order
    long = dict(query_id=qid[perm], propensity=p.ravel()[perm])
    yt, ys = y_true.ravel()[perm], y_score.ravel()[perm]
    for k in (None, 2):
        assert ips_dcg_at_k(yt, ys, k=k, **long) == pytest.approx(
            ips_dcg_at_k(y_true, y_score, propensity=p, k=k)
        )
    assert ips_precision_at_k(yt, ys, k=3, **long) == pytest.approx(
        ips_precision_at_k(y_true, y_score, propensity=p, k=3)
    )
    with pytest.raises(ValueError, match="propensity has shape"):
        ips_dcg_at_k(yt, ys, query_id=qid, propensity=p.ravel()[:-1])


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
    with pytest.raises(ValueError, match="average='queries' or None"):
        precision_at_k(y_true, y_score, k=2, propensity=p, average="micro")
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
    with pytest.raises(ValueError, match="average='queries' or None"):
        recall_at_k(y_true, y_score, k=k, propensity=p, average="micro")


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
