"""Beyond-accuracy metrics against slow references and tie enumeration."""

import inspect
import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import pairwise_distances

from sklearn_rankmetrics import (
    average_popularity_at_k,
    catalog_coverage_at_k,
    gini_index_at_k,
    intra_list_diversity_at_k,
    novelty_at_k,
)


def _orderings(row):
    """All top-down orderings of a row's retrieved items, ties permuted."""
    items = [i for i in range(len(row)) if row[i] > -np.inf]
    levels = sorted({row[i] for i in items}, reverse=True)
    groups = [[i for i in items if row[i] == v] for v in levels]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for p in perms for i in p]


def _all_lists(S, k):
    """Every joint choice of lists (one ordering per user), equally weighted
    within each user, as a list of (weight, lists)."""
    per_user = [[o[:k] for o in _orderings(row)] for row in S]
    for combo in itertools.product(*per_user):
        w = np.prod([1.0 / len(u) for u in per_user])
        yield w, combo


def _gini(c):
    c = np.sort(np.asarray(c, dtype=float))
    n = c.size
    if c.sum() == 0:
        return np.nan
    return sum((2 * (j + 1) - n - 1) * c[j] for j in range(n)) / (n * c.sum())


def _random_scores(rng, n_users, n_items, levels=3, p_inf=0.15):
    S = rng.integers(0, levels, size=(n_users, n_items)).astype(float)
    S[rng.random(S.shape) < p_inf] = -np.inf
    return S


def _brute(S, k, item_pop=None, share=None, D=None):
    n_items = S.shape[1]
    cov = gini_counts = 0.0
    gini_counts = np.zeros(n_items)
    pop = nov = ild = 0.0
    for w, lists in _all_lists(S, k):
        seen = set(i for lst in lists for i in lst)
        cov += w * len(seen) / n_items
        for lst in lists:
            for i in lst:
                gini_counts[i] += w
        nonempty = [lst for lst in lists if lst]
        if item_pop is not None and nonempty:
            pop += w * np.mean(
                [np.mean([item_pop[i] for i in lst]) for lst in nonempty]
            )
            nov += w * np.mean(
                [np.mean([-np.log2(share[i]) for i in lst]) for lst in nonempty]
            )
        two = [lst for lst in lists if len(lst) > 1]
        if D is not None and two:
            vals = [
                np.mean([D[i, j] for i, j in itertools.combinations(lst, 2)])
                for lst in two
            ]
            ild += w * np.mean(vals)
    if not any(min(k, np.sum(row > -np.inf)) > 1 for row in S):
        ild = np.nan  # no user has a pair: undefined
    return cov, gini_counts, pop, nov, ild


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [1, 2, 3, 6])
def test_tie_enumeration(seed, k):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 3, 5)
    S[0, :2] = -np.inf
    Y = (rng.random(S.shape) < 0.3).astype(int)
    train = (rng.random((6, 5)) < 0.5).astype(int)
    train[0] = 1  # every item seen once
    share = train.sum(axis=0) / train.shape[0]
    counts = train.sum(axis=0)
    F = rng.random((5, 3))
    D = pairwise_distances(F, metric="cosine")
    cov, ec, pop, nov, ild = _brute(S, k, item_pop=counts, share=share, D=D)
    for yt in (Y, sp.csr_matrix(Y)):
        assert catalog_coverage_at_k(yt, S, k=k) == pytest.approx(cov, abs=1e-12)
        # documented rule: Gini of the expected counts
        got = gini_index_at_k(yt, S, k=k)
        if np.isnan(_gini(ec)):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(_gini(ec), abs=1e-12)
        assert average_popularity_at_k(
            yt, S, k=k, item_popularity=train
        ) == pytest.approx(pop, abs=1e-12)
        assert average_popularity_at_k(
            yt, S, k=k, item_popularity=counts
        ) == pytest.approx(pop, abs=1e-12)
        assert novelty_at_k(yt, S, k=k, item_popularity=train) == pytest.approx(
            nov, abs=1e-12
        )
        got = intra_list_diversity_at_k(yt, S, k=k, item_features=F)
        if np.isnan(ild):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ild, abs=1e-12)


def _slow_lists(S, k):
    """Top-k lists without ties (distinct scores), one per user."""
    out = []
    for row in S:
        order = [i for i in np.argsort(-row, kind="stable") if row[i] > -np.inf]
        out.append(order[:k])
    return out


@pytest.mark.parametrize("seed", range(5))
def test_against_per_user_reference_no_ties(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items, k = 40, 30, 5
    S = rng.random((n_users, n_items))
    S[rng.random(S.shape) < 0.2] = -np.inf
    Y = np.zeros_like(S)
    lists = _slow_lists(S, k)
    counts = np.zeros(n_items)
    for lst in lists:
        counts[lst] += 1
    assert catalog_coverage_at_k(Y, S, k=k) == pytest.approx(
        np.count_nonzero(counts) / n_items
    )
    assert gini_index_at_k(Y, S, k=k) == pytest.approx(_gini(counts))
    pop = rng.integers(1, 50, size=n_items)
    share = pop / pop.sum()
    assert average_popularity_at_k(Y, S, k=k, item_popularity=pop) == pytest.approx(
        np.mean([np.mean(pop[lst]) for lst in lists])
    )
    assert novelty_at_k(Y, S, k=k, item_popularity=pop) == pytest.approx(
        np.mean([np.mean(-np.log2(share[lst])) for lst in lists])
    )
    F = rng.normal(size=(n_items, 4))
    for metric in ("cosine", "euclidean"):
        D = pairwise_distances(F, metric=metric)
        ref = np.mean(
            [
                np.mean([D[i, j] for i, j in itertools.combinations(lst, 2)])
                for lst in lists
            ]
        )
        got = intra_list_diversity_at_k(Y, S, k=k, item_features=F, metric=metric)
        assert got == pytest.approx(ref)


def test_hand_worked():
    S = np.array([[1.0, 1.0, 1.0, 0.0]])
    Y = np.zeros_like(S)
    # 3 tied items, 2 kept: each in with prob 2/3; item 3 never
    assert catalog_coverage_at_k(Y, S, k=2) == pytest.approx(3 * (2 / 3) / 4)
    # two users, same tie: P(item in nobody's) = (1/3)^2
    S2 = np.vstack([S, S])
    assert catalog_coverage_at_k(np.zeros_like(S2), S2, k=2) == pytest.approx(
        3 * (1 - 1 / 9) / 4
    )
    # k above the catalogue: the whole catalogue
    assert catalog_coverage_at_k(Y, S, k=99) == 1.0
    assert gini_index_at_k(Y, S, k=99) == pytest.approx(0.0)


def test_inputs_not_modified_and_errors():
    rng = np.random.default_rng(0)
    S = rng.random((4, 5))
    Y = np.zeros((4, 5))
    S0 = S.copy()
    catalog_coverage_at_k(Y, S, k=2)
    intra_list_diversity_at_k(Y, S, k=2, item_features=rng.random((5, 2)))
    np.testing.assert_array_equal(S, S0)
    with pytest.raises(ValueError, match="item_popularity"):
        novelty_at_k(Y, S, k=2, item_popularity=[1, 2, 3])
    with pytest.raises(ValueError, match="item_popularity"):
        average_popularity_at_k(Y, S, k=2, item_popularity=[1, 2, -3, 4, 5])
    with pytest.raises(ValueError, match="item_popularity"):
        novelty_at_k(Y, S, k=2)
    with pytest.raises(ValueError, match="item_features"):
        intra_list_diversity_at_k(Y, S, k=2, item_features=np.ones((3, 2)))
    with pytest.raises(ValueError, match="k"):
        gini_index_at_k(Y, S, k=0)
    with pytest.raises(TypeError, match="k"):
        gini_index_at_k(Y, S, k=1.5)
    bad = S.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError):
        catalog_coverage_at_k(Y, bad, k=2)
    with pytest.raises(ValueError):
        catalog_coverage_at_k(np.zeros((3, 5)), S, k=2)


def test_unseen_item_novelty_rules():
    # items 0 and 1 recommended; counts 3, 0 (never seen), 1: 4 interactions
    S = np.array([[2.0, 1.0, 0.0]])
    Y = np.zeros((1, 3))
    counts = [3, 0, 1]
    with pytest.warns(UndefinedMetricWarning, match="unseen='one'"):
        assert novelty_at_k(Y, S, k=2, item_popularity=counts) == np.inf
    with pytest.raises(ValueError, match="never seen in training"):
        novelty_at_k(Y, S, k=2, item_popularity=counts, unseen="raise")
    # "one": counted as seen once, -log2(1/4) = 2; item 0: -log2(3/4)
    want = (-np.log2(3 / 4) + 2.0) / 2
    got = novelty_at_k(Y, S, k=2, item_popularity=counts, unseen="one")
    assert got == pytest.approx(want, rel=1e-15)
    # "zero": adds nothing (but counts in the mean)
    want = (-np.log2(3 / 4) + 0.0) / 2
    got = novelty_at_k(Y, S, k=2, item_popularity=counts, unseen="zero")
    assert got == pytest.approx(want, rel=1e-15)
    # not in any list: no warning, every rule the same finite value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S2 = np.array([[2.0, -np.inf, 1.0]])
        values = {
            rule: novelty_at_k(Y, S2, k=2, item_popularity=counts, unseen=rule)
            for rule in ("warn", "raise", "one", "zero")
        }
    assert len(set(values.values())) == 1 and np.isfinite(values["warn"])
    with pytest.raises(ValueError, match="unseen must be"):
        novelty_at_k(Y, S, k=2, item_popularity=counts, unseen="skip")
    # an unseen item tied at the cut: in the list with probability 1/2
    tied = np.array([[2.0, 1.0, 1.0]])
    got = novelty_at_k(Y, tied, k=2, item_popularity=counts, unseen="one")
    want = (-np.log2(3 / 4) + 0.5 * 2.0 + 0.5 * -np.log2(1 / 4)) / 2
    assert got == pytest.approx(want, rel=1e-15)
    with pytest.warns(UndefinedMetricWarning):
        assert novelty_at_k(Y, tied, k=2, item_popularity=counts) == np.inf


def test_active_users_share():
    # 4 training rows, one without interaction: RecTools' n_users is 3
    train = np.array([[1, 1, 0], [1, 0, 1], [1, 0, 0], [0, 0, 0]])
    S = np.array([[3.0, 2.0, 1.0]])
    got = novelty_at_k(
        np.zeros((1, 3)), S, k=2, item_popularity=train, share="active_users"
    )
    assert got == pytest.approx((-np.log2(3 / 3) - np.log2(1 / 3)) / 2)
    got = novelty_at_k(np.zeros((1, 3)), S, k=2, item_popularity=train)
    assert got == pytest.approx((-np.log2(3 / 4) - np.log2(1 / 4)) / 2)
    with pytest.raises(ValueError, match="training matrix"):
        novelty_at_k(
            np.zeros((1, 3)), S, k=2, item_popularity=[3, 1, 1], share="active_users"
        )


# ---------------------------------------------------------------------------
# Input forms, exposure entropy and serendipity
# ---------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sklearn_rankmetrics import exposure_entropy_at_k, serendipity_at_k  # noqa: E402


def _entropy_ref(c, normalization="none"):
    c = np.asarray(c, dtype=float)
    if c.sum() == 0:
        return np.nan
    h = 0.0
    for x in c:
        if x > 0:
            q = x / c.sum()
            h -= q * np.log(q)
    if normalization == "max":
        return h / np.log(c.size)
    if normalization == "recbole":
        return h / np.count_nonzero(c)
    return h


def _pop_rank(counts):
    """Dense popularity rank, by hand: 1 + number of distinct larger counts;
    n + 1 for items never seen."""
    n = len(counts)
    return [1 + len({c for c in counts if c > x}) if x > 0 else n + 1 for x in counts]


def _serendipity_list(lst, rel_row, counts):
    """RecTools' Serendipity of one list without ties (ranks 1..L)."""
    n = len(counts)
    pr = _pop_rank(counts)
    vals = []
    for r, i in enumerate(lst, start=1):
        p_user = (n + 1 - r) / n
        p_any = (n + 1 - pr[i]) / n if counts[i] > 0 else 0.0
        vals.append(max(p_user - p_any, 0.0) * (rel_row[i] > 0))
    return np.mean(vals)


def _serendipity_brute(S, Y, k, counts):
    """Expected serendipity over every ordering of tied items, per user."""
    per_user = []
    for row, y in zip(S, Y, strict=True):
        orders = list(_orderings(row))
        vals = [_serendipity_list(o[:k], y, counts) for o in orders if o]
        if vals:
            per_user.append(np.mean(vals))
    return np.mean(per_user) if per_user else np.nan


def _long(Y, S, drop_inf=True, shuffle=None):
    """The long form of 2-D arrays: query_id = row, item_id = column."""
    q, i = np.nonzero(np.ones(S.shape, dtype=bool))
    if drop_inf:
        keep = S[q, i] > -np.inf
        q, i = q[keep], i[keep]
    if shuffle is not None:
        perm = shuffle.permutation(q.size)
        q, i = q[perm], i[perm]
    return np.asarray(Y)[q, i], S[q, i], q, i


def _all_metrics(y_true, y_score, k, counts, F, **form):
    n = {} if "n_items" not in form else {"n_items": form.pop("n_items")}
    return [
        catalog_coverage_at_k(y_true, y_score, k=k, **form, **n),
        gini_index_at_k(y_true, y_score, k=k, **form, **n),
        exposure_entropy_at_k(y_true, y_score, k=k, **form, **n),
        exposure_entropy_at_k(
            y_true, y_score, k=k, normalization="recbole", **form, **n
        ),
        average_popularity_at_k(y_true, y_score, k=k, item_popularity=counts, **form),
        novelty_at_k(y_true, y_score, k=k, item_popularity=counts, **form),
        intra_list_diversity_at_k(y_true, y_score, k=k, item_features=F, **form),
        serendipity_at_k(y_true, y_score, k=k, item_popularity=counts, **form),
    ]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (np.isnan(x) and np.isnan(y)) or x == y, (a, b)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [1, 3, 7])
def test_forms_agree_exactly(seed, k):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 6, 7, levels=3)
    S[2] = -np.inf  # a user with nothing retrieved
    Y = (rng.random(S.shape) < 0.3) * rng.integers(1, 3, size=S.shape)
    counts = rng.integers(0, 5, size=7).astype(float)
    F = rng.random((7, 3))
    dense = _all_metrics(Y, S, k, counts, F)
    _same(dense, _all_metrics(sp.csr_matrix(Y), S, k, counts, F))
    _same(dense, _all_metrics(sp.coo_matrix(Y), S, k, counts, F))
    for drop_inf in (True, False):
        y, s, q, i = _long(Y, S, drop_inf=drop_inf, shuffle=rng)
        _same(dense, _all_metrics(y, s, k, counts, F, query_id=q, item_id=i, n_items=7))
    # string ids for users; catalogue from item_popularity / item_features
    y, s, q, i = _long(Y, S, drop_inf=False)
    qs = np.array([f"user{j:02d}" for j in q])
    got = _all_metrics(y, s, k, counts, F, query_id=qs, item_id=i)
    _same(dense[4:], got[4:])


@pytest.mark.parametrize("seed", range(4))
def test_long_form_catalogue_of_ids(seed):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 5, 6, levels=4, p_inf=0.0)
    Y = np.zeros_like(S)
    y, s, q, i = _long(Y, S)
    names = np.array(["a", "b", "c", "d", "e", "f"])[i]
    for metric in (catalog_coverage_at_k, gini_index_at_k, exposure_entropy_at_k):
        # every item has a row: the distinct ids are the catalogue
        assert metric(y, s, k=2, query_id=q, item_id=names) == metric(Y, S, k=2)
    # catalogue larger than the ids seen: n_items
    wide = np.hstack([S, np.full((5, 3), -np.inf)])
    assert catalog_coverage_at_k(
        y, s, k=2, query_id=q, item_id=i, n_items=9
    ) == catalog_coverage_at_k(np.zeros_like(wide), wide, k=2)


def test_user_order_invariance():
    rng = np.random.default_rng(3)
    S = _random_scores(rng, 30, 12, levels=4)
    Y = (rng.random(S.shape) < 0.3).astype(int)
    counts = rng.integers(0, 9, size=12)
    F = rng.random((12, 4))
    perm = rng.permutation(30)
    a = _all_metrics(Y, S, 4, counts, F)
    b = _all_metrics(Y[perm], S[perm], 4, counts, F)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(1, 8),
    st.integers(0, 2**31 - 1),
)
def test_forms_agree_property(n_users, n_items, k, seed):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, n_users, n_items, levels=rng.integers(1, 4), p_inf=0.3)
    Y = (rng.random(S.shape) < 0.4).astype(int)
    counts = rng.integers(0, 4, size=n_items)
    F = rng.random((n_items, 2))
    dense = _all_metrics(Y, S, k, counts, F)
    y, s, q, i = _long(Y, S, shuffle=rng)
    if y.size == 0:
        return  # the long form needs one row
    _same(
        dense, _all_metrics(y, s, k, counts, F, query_id=q, item_id=i, n_items=n_items)
    )


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("k", [1, 2, 4, 6])
def test_entropy_and_serendipity_tie_enumeration(seed, k):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 3, 5)
    Y = (rng.random(S.shape) < 0.5).astype(int)
    counts = rng.integers(0, 4, size=5)
    _, ec, _, _, _ = _brute(S, k)
    for norm in ("none", "max", "recbole"):
        got = exposure_entropy_at_k(Y, S, k=k, normalization=norm)
        ref = _entropy_ref(ec, norm)
        if np.isnan(ref):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ref, abs=1e-12)
    ref = _serendipity_brute(S, Y, k, counts)
    got = serendipity_at_k(Y, S, k=k, item_popularity=counts)
    if np.isnan(ref):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(ref, abs=1e-12)


def test_serendipity_rectools_documented_example():
    # RecTools' Serendipity docstring: reco (user, item, rank), interactions
    # (held-out), prev_interactions (training), catalog i1..i4.
    # calc_per_user at k=1: [0, 0.25, 0, 0.25]; at k=2: [0, 0.5, 0, 0.125]
    # Long form, ranks as scores (rank 1 scored highest).
    users = ["u1", "u1", "u2", "u2", "u3", "u4", "u4"]
    items = [0, 1, 1, 2, 2, 1, 2]
    ranks = np.array([1, 2, 1, 2, 1, 1, 2])
    held_out = {("u1", 0), ("u1", 1), ("u2", 1), ("u2", 2), ("u3", 1), ("u4", 1)}
    y = [int((u, i) in held_out) for u, i in zip(users, items, strict=True)]
    train = {"u1": [0, 1], "u2": [0, 1], "u3": [0]}
    X = np.zeros((3, 4))
    for r, (_, its) in enumerate(train.items()):
        X[r, its] = 1
    kw = dict(query_id=users, item_id=items, item_popularity=X)
    assert serendipity_at_k(y, -ranks, k=1, **kw) == pytest.approx(
        np.mean([0, 0.25, 0, 0.25])
    )
    assert serendipity_at_k(y, -ranks, k=2, **kw) == pytest.approx(
        np.mean([0, 0.5, 0, 0.125])
    )


@pytest.mark.parametrize("seed", range(4))
def test_serendipity_against_reference_no_ties(seed):
    rng = np.random.default_rng(seed)
    S = rng.random((25, 15))
    S[rng.random(S.shape) < 0.2] = -np.inf
    Y = (rng.random(S.shape) < 0.3).astype(int)
    counts = rng.integers(0, 6, size=15)
    lists = _slow_lists(S, 5)
    ref = np.mean(
        [_serendipity_list(lst, Y[u], counts) for u, lst in enumerate(lists) if lst]
    )
    assert serendipity_at_k(Y, S, k=5, item_popularity=counts) == pytest.approx(ref)
    # users without relevant items count (as 0)
    Y2 = Y.copy()
    Y2[:10] = 0
    ref2 = np.mean(
        [_serendipity_list(lst, Y2[u], counts) for u, lst in enumerate(lists) if lst]
    )
    assert serendipity_at_k(Y2, S, k=5, item_popularity=counts) == pytest.approx(ref2)


def _recbole_entropy(item_matrix):
    # RecBole ShannonEntropy.get_entropy, restated: shares over |U| k, natural
    # log, divided by the number of distinct recommended items
    values, cnt = np.unique(item_matrix, return_counts=True)
    p = cnt / item_matrix.size
    return -np.sum(p * np.log(p)) / values.size


def _recbole_gini(item_matrix, num_items):
    _, cnt = np.unique(item_matrix, return_counts=True)
    cnt = np.sort(cnt)
    idx = np.arange(num_items - cnt.size + 1, num_items + 1)
    return np.sum((2 * idx - num_items - 1) * cnt) / item_matrix.size / num_items


@pytest.mark.parametrize("seed", range(4))
def test_recbole_entropy_and_gini(seed):
    rng = np.random.default_rng(seed)
    S = rng.random((20, 30)) ** 3  # distinct scores, full lists
    top = np.argsort(-S, axis=1)[:, :5]
    Y = np.zeros_like(S)
    assert exposure_entropy_at_k(Y, S, k=5, normalization="recbole") == pytest.approx(
        _recbole_entropy(top)
    )
    assert gini_index_at_k(Y, S, k=5) == pytest.approx(_recbole_gini(top, 30))


def test_k_above_catalogue_long_form():
    S = np.array([[3.0, 1.0, 2.0], [1.0, -np.inf, 2.0]])
    Y = np.zeros_like(S)
    y, s, q, i = _long(Y, S)
    for metric in (catalog_coverage_at_k, exposure_entropy_at_k):
        assert metric(y, s, k=50, query_id=q, item_id=i) == metric(Y, S, k=3)
    assert catalog_coverage_at_k(y, s, k=50, query_id=q, item_id=i) == 1.0


def test_form_errors():
    S = np.array([[3.0, 1.0, 2.0], [1.0, 0.0, 2.0]])
    Y = np.zeros_like(S)
    y, s, q, i = _long(Y, S)
    with pytest.raises(ValueError, match="item_id= is required"):
        catalog_coverage_at_k(y, s, k=2, query_id=q)
    with pytest.raises(TypeError, match="long form"):
        catalog_coverage_at_k(Y, S, k=2, item_id=[0, 1, 2])
    with pytest.raises(ValueError, match="repeats an item"):
        catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=np.zeros_like(i))
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i, n_items=2)
    with pytest.raises(ValueError, match="item_id must be 1-D"):
        catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i[:3])
    # ids that are not column numbers cannot index item_popularity
    with pytest.raises(TypeError, match="integer column numbers"):
        novelty_at_k(
            y, s, k=2, query_id=q, item_id=i.astype(str), item_popularity=[1, 2, 3]
        )
    # ... and name fewer items than the catalogue, not more
    with pytest.raises(ValueError, match="3 distinct items but n_items=2"):
        catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i.astype(str), n_items=2)
    with pytest.raises(ValueError, match="n_items"):
        catalog_coverage_at_k(Y, S, k=2, n_items=5)
    with pytest.raises(ValueError, match="disagrees"):
        novelty_at_k(
            y, s, k=2, query_id=q, item_id=i, n_items=4, item_popularity=[1, 2, 3]
        )
    with pytest.raises(ValueError, match="item_popularity describes"):
        serendipity_at_k(Y, S, k=2, item_popularity=[1, 2])
    with pytest.raises(TypeError, match="sparse"):
        catalog_coverage_at_k(Y, sp.csr_matrix(S), k=2)
    with pytest.raises(ValueError, match="normalization"):
        exposure_entropy_at_k(Y, S, k=2, normalization="bits")
    with pytest.raises(TypeError, match="n_items"):
        catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i, n_items=2.5)
    # inputs not modified
    s0, i0 = s.copy(), i.copy()
    serendipity_at_k(y, s, k=2, query_id=q, item_id=i, item_popularity=[1, 0, 2])
    np.testing.assert_array_equal(s, s0)
    np.testing.assert_array_equal(i, i0)


# ---------------------------------------------------------------------------
# Registry entries, ranking_report and the mergeable sums
# ---------------------------------------------------------------------------

from sklearn_rankmetrics import ndcg_at_k, ranking_report  # noqa: E402
from sklearn_rankmetrics._evaluation._beyond_report import BeyondSums  # noqa: E402
from sklearn_rankmetrics._registry import BEYOND_METRICS, METRICS  # noqa: E402


def _function_values(spec, Y, S, k, counts, F, **form):
    opts = {}
    if "item_popularity" in spec.requires:
        opts["item_popularity"] = counts
    if "item_features" in spec.requires:
        opts["item_features"] = F
    return spec.function(Y, S, k=k, **opts, **form)


@pytest.mark.parametrize("name", list(BEYOND_METRICS))
@pytest.mark.parametrize("seed", [0, 1])
def test_report_gives_the_function_value(name, seed):
    spec = BEYOND_METRICS[name]
    assert name not in METRICS and not spec.scorer
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 9, 8, levels=3)
    Y = (rng.random(S.shape) < 0.3).astype(int)
    counts = rng.integers(0, 5, size=8)
    F = rng.random((8, 3))
    ks = (1, 3, 20)
    y, s, q, i = _long(Y, S, shuffle=rng)
    for yt, st_, form in (
        (Y, S, {}),
        (sp.csr_matrix(Y), S, {}),
        (y, s, {"query_id": q, "item_id": i}),
    ):
        rep = ranking_report(
            yt,
            st_,
            k=ks,
            metrics=["ndcg", name],
            item_popularity=counts,
            item_features=F,
            n_items=8 if form else None,
            output_dict=True,
            **form,
        )
        for kk in ks:
            want = _function_values(spec, Y, S, kk, counts, F)
            got = rep[spec.label(kk)]
            assert (np.isnan(want) and np.isnan(got)) or got == want
        # alone, and as text
        alone = ranking_report(
            yt,
            st_,
            k=ks,
            metrics=[name],
            item_popularity=counts,
            item_features=F,
            n_items=8 if form else None,
            output_dict=True,
            **form,
        )
        assert list(alone) == [spec.label(kk) for kk in ks]
        text = ranking_report(
            yt,
            st_,
            k=ks,
            metrics=[name],
            item_popularity=counts,
            item_features=F,
            n_items=8 if form else None,
            **form,
        )
        assert text.splitlines()[1].startswith(name)


def test_report_refusals():
    rng = np.random.default_rng(0)
    S = rng.random((4, 5))
    Y = (rng.random((4, 5)) < 0.5).astype(int)
    with pytest.raises(ValueError, match="no per-query value"):
        ranking_report(Y, S, k=2, metrics=["catalog_coverage"], per_query=True)
    with pytest.raises(ValueError, match="sample_weight"):
        ranking_report(
            Y, S, k=2, metrics=["catalog_coverage"], sample_weight=np.ones(4)
        )
    with pytest.raises(ValueError, match="item_popularity is required"):
        ranking_report(Y, S, k=2, metrics=["novelty"])
    # options of the ranking metrics, in a report without any
    with pytest.raises(TypeError, match="options of the ranking metrics"):
        ranking_report(Y, S, k=2, metrics=["catalog_coverage"], gain="exponential")
    with pytest.raises(ValueError, match="relevance_threshold"):
        ranking_report(
            Y,
            S,
            k=2,
            metrics=["ndcg", "serendipity"],
            relevance_threshold=1,
            item_popularity=np.ones(5),
        )
    # beside a ranking metric, each reads its own options
    rep = ranking_report(
        Y,
        S,
        k=2,
        metrics=["ndcg", "exposure_entropy", "novelty"],
        gain="exponential",
        normalization="max",
        item_popularity=np.ones(5),
        share="interactions",
        convention="sklearn",
        output_dict=True,
    )
    assert rep["exposure_entropy@2"] == exposure_entropy_at_k(
        Y, S, k=2, normalization="max"
    )
    assert rep["novelty@2"] == novelty_at_k(
        Y, S, k=2, item_popularity=np.ones(5), share="interactions"
    )
    assert rep["ndcg@2"] == ndcg_at_k(
        Y, S, k=2, gain="exponential", convention="sklearn"
    )


@pytest.mark.parametrize("seed", range(3))
def test_sums_merge_over_blocks(seed):
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 23, 9, levels=4)
    Y = (rng.random(S.shape) < 0.3).astype(int)
    counts = rng.integers(0, 5, size=9)
    F = rng.random((9, 3))
    names = list(BEYOND_METRICS)
    opts = dict(item_popularity=counts, item_features=F)
    whole = BeyondSums(names, (2, 4), **opts).add(Y, S).values()
    blocks = [slice(0, 5), slice(5, 6), slice(6, 23)]
    parts = [BeyondSums(names, (2, 4), **opts).add(Y[b], S[b]) for b in blocks]
    merged = parts[0].merge(parts[1]).merge(parts[2])
    assert merged.n_users == 23
    got = merged.values()
    assert list(got) == list(whole)
    for key, want in whole.items():
        assert got[key] == pytest.approx(want, rel=1e-12, nan_ok=True)
    # one block: the functions' values bit for bit
    for name in names:
        for kk in (2, 4):
            want = _function_values(BEYOND_METRICS[name], Y, S, kk, counts, F)
            assert whole[f"{name}@{kk}"] == want or (
                np.isnan(want) and np.isnan(whole[f"{name}@{kk}"])
            )


# ---------------------------------------------------------------------------
# Anchors: RecTools' documented examples (users, items, ranks restated; the
# rank is turned into a score, rank 1 highest; item ids are column numbers)
# ---------------------------------------------------------------------------


def _reco(users, items, ranks):
    ranks = np.asarray(ranks, dtype=float)
    return np.zeros(ranks.size), -ranks, dict(query_id=users, item_id=items)


def test_rectools_avg_rec_popularity_example():
    # reco: u1 [1, 2], u2 [3, 1, 2], u3 [3, 2]; prev_interactions counts:
    # item 1: 3, item 2: 2, item 3: 1.  calc_per_user: k=1 [3, 1, 1];
    # k=3 [2.5, 2, 1.5]
    y, s, form = _reco(
        [1, 1, 2, 2, 2, 3, 3], [1, 2, 3, 1, 2, 3, 2], [1, 2, 1, 2, 3, 1, 2]
    )
    counts = [0, 3, 2, 1]  # column 0 unused
    assert average_popularity_at_k(
        y, s, k=1, item_popularity=counts, **form
    ) == pytest.approx(np.mean([3, 1, 1]))
    assert average_popularity_at_k(
        y, s, k=3, item_popularity=counts, **form
    ) == pytest.approx(np.mean([2.5, 2, 1.5]))


def test_rectools_mean_inv_user_freq_example():
    # prev_interactions: user 1 {1, 2}, user 2 {1}, user 3 {1}: 3 users;
    # item 1 seen by 3, item 2 by 1.  At k=1 users 2 and 3 get items 2 and 1:
    # -log2(1/3) and -log2(3/3) (RecTools: 1.5849625 and 0).  User 1's item 3
    # is cold: RecTools counts it as one user, here it is inf (left out).
    train = np.array([[0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 0, 0]])
    y, s, form = _reco([2, 2, 3, 3], [2, 3, 1, 2], [1, 2, 1, 2])
    got = novelty_at_k(y, s, k=1, item_popularity=train, **form)
    assert got == pytest.approx(np.mean([1.5849625, 0.0]))


def test_rectools_intra_list_diversity_example():
    # reco: u1 [1, 2, 3], u2 [1, 4]; features (Hamming distance as a count
    # of differing features = cityblock on 0/1): 1 (0, 0), 2 (0, 1),
    # 3 (1, 1), 4 (0, 0).  calc_per_user: k=2 [1, 0]; k=3 [1.3333, 0].
    # k=1: RecTools gives 0 to one-item lists; here no user has a pair: nan.
    F = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [0, 0]])  # row 0 unused
    y, s, form = _reco([1, 1, 1, 2, 2], [1, 2, 3, 1, 4], [1, 2, 3, 1, 2])
    kw = dict(item_features=F, metric="cityblock", **form)
    assert intra_list_diversity_at_k(y, s, k=2, **kw) == pytest.approx(0.5)
    assert intra_list_diversity_at_k(y, s, k=3, **kw) == pytest.approx(
        np.mean([4 / 3, 0])
    )
    assert np.isnan(intra_list_diversity_at_k(y, s, k=1, **kw))


def test_novelty_share_options():
    train = np.array([[1, 1, 0], [1, 0, 1], [1, 0, 0], [1, 0, 0]])
    S = np.array([[3.0, 2.0, 1.0]])
    Y = np.zeros_like(S)
    # items 0 and 1 are recommended; 4 users, counts (4, 1, 1), 6 interactions
    by_users = (-np.log2(4 / 4) - np.log2(1 / 4)) / 2
    by_inter = (-np.log2(4 / 6) - np.log2(1 / 6)) / 2
    for share, want in (("auto", by_users), ("users", by_users)):
        got = novelty_at_k(Y, S, k=2, item_popularity=train, share=share)
        assert got == pytest.approx(want)
    got = novelty_at_k(Y, S, k=2, item_popularity=train, share="interactions")
    assert got == pytest.approx(by_inter)
    counts = [4, 1, 1]
    for share in ("auto", "interactions"):
        got = novelty_at_k(Y, S, k=2, item_popularity=counts, share=share)
        assert got == pytest.approx(by_inter)
    with pytest.raises(ValueError, match="training matrix"):
        novelty_at_k(Y, S, k=2, item_popularity=counts, share="users")
    with pytest.raises(ValueError, match="share must be"):
        novelty_at_k(Y, S, k=2, item_popularity=counts, share="items")


def test_other_surfaces_refuse_clearly():
    # (factor_ranking_report takes them: tests/test_factor.py; the chunked
    # and distributed reports: tests/test_state_beyond.py)
    from sklearn_rankmetrics import compare_rankings

    S = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="beyond-accuracy metric"):
        compare_rankings(
            np.ones((3, 4)), {"a": S, "b": -S}, k=2, metrics=["gini_index"]
        )


@pytest.mark.parametrize("levels", [1, 2, 5, 1000])
@pytest.mark.parametrize("k", [1, 3, 10, 40])
def test_wide_rows_forms_agree(levels, k):
    # wide rows: the engine's top-k keeps 2k + 16 candidates, and the tie
    # group cut by k may spill out of them; the long form selects by sorting
    rng = np.random.default_rng(levels * 100 + k)
    S = _random_scores(rng, 12, 90, levels=levels, p_inf=0.1)
    S[3, :85] = -np.inf  # fewer retrieved than k
    Y = (rng.random(S.shape) < 0.2).astype(int)
    counts = rng.integers(0, 6, size=90)
    F = rng.random((90, 3))
    dense = _all_metrics(Y, S, k, counts, F)
    y, s, q, i = _long(Y, S, shuffle=rng)
    _same(dense, _all_metrics(y, s, k, counts, F, query_id=q, item_id=i, n_items=90))
    # coverage against the inclusion probabilities by hand
    none = np.ones(90)
    for row in S:
        fin = row[row > -np.inf]
        L = min(k, fin.size)
        if L == 0:
            continue
        t = np.sort(fin)[::-1][L - 1]
        a, g = np.sum(row > t), np.sum(row == t)
        p = np.where(row > t, 1.0, np.where(row == t, (L - a) / g, 0.0))
        none *= 1 - p
    assert dense[0] == pytest.approx(np.mean(1 - none), abs=1e-12)


# ---------------------------------------------------------------------------
# Issue 27: tie rules, units, the peers' options, the long-form catalogue
# ---------------------------------------------------------------------------
def _ordered(row, y, ties):
    """One ordering of a row's retrieved items under a deterministic tie
    rule: by score, then (pessimistic / optimistic) by grade, then column."""
    items = [i for i in range(len(row)) if row[i] > -np.inf]
    grade = {"pessimistic": 1, "optimistic": -1}.get(ties, 0)
    return sorted(items, key=lambda i: (-row[i], grade * y[i], i))


@pytest.mark.parametrize("ties", ["input_order", "pessimistic", "optimistic"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_tie_rules_are_one_ordering(ties, seed, k):
    """Under a deterministic tie rule the lists are those of one ordering:
    every metric equals its value on scores without ties that rank alike,
    in every form (the long form's position is its row)."""
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 7, 6, levels=2)
    Y = (rng.random(S.shape) < 0.4) * rng.integers(1, 3, size=S.shape)
    counts = rng.integers(1, 5, size=6)
    F = rng.random((6, 3))
    distinct = np.full(S.shape, -np.inf)
    for u, row in enumerate(S):
        order = _ordered(row, Y[u], ties)
        distinct[u, order] = -np.arange(len(order), dtype=float)
    want = _all_metrics(Y, distinct, k, counts, F)
    kw = {"ties": ties}
    got = [
        catalog_coverage_at_k(Y, S, k=k, **kw),
        gini_index_at_k(Y, S, k=k, **kw),
        exposure_entropy_at_k(Y, S, k=k, **kw),
        exposure_entropy_at_k(Y, S, k=k, normalization="recbole", **kw),
        average_popularity_at_k(Y, S, k=k, item_popularity=counts, **kw),
        novelty_at_k(Y, S, k=k, item_popularity=counts, **kw),
        intra_list_diversity_at_k(Y, S, k=k, item_features=F, **kw),
        serendipity_at_k(Y, S, k=k, item_popularity=counts, **kw),
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    # the long form, rows in column order within each user, shuffled users
    y, s, q, i = _long(Y, S)
    perm = np.lexsort((i, rng.permutation(7)[q]))
    y, s, q, i = y[perm], s[perm], q[perm], i[perm]
    long = [
        catalog_coverage_at_k(y, s, k=k, query_id=q, item_id=i, n_items=6, **kw),
        serendipity_at_k(
            y, s, k=k, query_id=q, item_id=i, item_popularity=counts, **kw
        ),
    ]
    np.testing.assert_allclose(long, [want[0], want[7]], rtol=1e-12, atol=1e-15)
    if ties == "input_order":
        _same(got, _all_metrics(Y, S, k, counts, F, ignore_ties=True))


def test_input_order_in_the_long_form_is_the_row_order():
    # one user, items 0..2 tied; the rows list item 2 first: it is the list
    y, s = np.zeros(3), np.ones(3)
    q, i = np.zeros(3, dtype=int), np.array([2, 0, 1])
    counts = np.array([5.0, 5.0, 1.0])
    got = average_popularity_at_k(
        y, s, k=1, query_id=q, item_id=i, item_popularity=counts, ties="input_order"
    )
    assert got == 1.0
    # the expected rule: (5 + 5 + 1) / 3
    got = average_popularity_at_k(
        y, s, k=1, query_id=q, item_id=i, item_popularity=counts
    )
    assert got == pytest.approx(11 / 3)


def test_tie_rule_errors():
    S, Y = np.ones((2, 3)), np.zeros((2, 3))
    with pytest.raises(ValueError, match="ties must be"):
        catalog_coverage_at_k(Y, S, k=1, ties="random")
    with pytest.raises(ValueError, match="average precision"):
        gini_index_at_k(Y, S, k=1, ties="threshold")
    with pytest.raises(ValueError, match="contradicts"):
        catalog_coverage_at_k(Y, S, k=1, ties="pessimistic", ignore_ties=True)


@pytest.mark.parametrize("seed", range(4))
def test_entropy_base(seed):
    # Microsoft recommenders' distributional_coverage: bits
    rng = np.random.default_rng(seed)
    S = rng.random((9, 7))
    top = np.argsort(-S, axis=1)[:, :3]
    p = np.bincount(top.ravel(), minlength=7) / top.size
    bits = -sum(x * np.log2(x) for x in p if x > 0)
    Y = np.zeros_like(S)
    assert exposure_entropy_at_k(Y, S, k=3, base=2) == pytest.approx(bits, rel=1e-14)
    nats = exposure_entropy_at_k(Y, S, k=3)
    assert exposure_entropy_at_k(Y, S, k=3, base=np.e) == pytest.approx(nats)
    # "max" is a ratio of two logarithms: no unit
    for norm in ("max",):
        assert exposure_entropy_at_k(
            Y, S, k=3, base=2, normalization=norm
        ) == exposure_entropy_at_k(Y, S, k=3, normalization=norm)
    rb = exposure_entropy_at_k(Y, S, k=3, normalization="recbole")
    assert exposure_entropy_at_k(
        Y, S, k=3, base=2, normalization="recbole"
    ) == pytest.approx(rb / np.log(2))
    with pytest.raises(ValueError, match="base"):
        exposure_entropy_at_k(Y, S, k=3, base=1)
    with pytest.raises(TypeError, match="base"):
        exposure_entropy_at_k(Y, S, k=3, base="2")


def test_hamming_count_and_single_item_rectools_example():
    # rectools/metrics/diversity.py's docstring: reco u1 [1, 2, 3], u2 [1, 4];
    # features 1 (0, 0), 2 (0, 1), 3 (1, 1), 4 (0, 0) with the Hamming
    # calculator: k=1 [0, 0], k=2 [1, 0], k=3 [1.33333333, 0]
    F = np.array([[9, 9], [0, 0], [0, 1], [1, 1], [0, 0]])  # row 0 unused
    y, s, form = _reco([1, 1, 1, 2, 2], [1, 2, 3, 1, 4], [1, 2, 3, 1, 2])
    kw = dict(item_features=F, metric="hamming_count", single_item=0.0, **form)
    for k, want in ((1, [0, 0]), (2, [1, 0]), (3, [4 / 3, 0])):
        got = intra_list_diversity_at_k(y, s, k=k, **kw)
        assert got == pytest.approx(np.mean(want), rel=1e-15)
    # the count is scikit-learn's hamming share times the feature count
    rng = np.random.default_rng(0)
    G = rng.integers(0, 3, size=(6, 5))
    S = rng.random((4, 6))
    Y = np.zeros_like(S)
    share = intra_list_diversity_at_k(Y, S, k=4, item_features=G, metric="hamming")
    count = intra_list_diversity_at_k(
        Y, S, k=4, item_features=G, metric="hamming_count"
    )
    assert count == pytest.approx(5 * share, rel=1e-14)
    assert count == intra_list_diversity_at_k(
        Y, S, k=4, item_features=sp.csr_matrix(G), metric="hamming_count"
    )


def test_single_item_option():
    F = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    S = np.array([[2.0, 1.0, 0.0], [2.0, -np.inf, -np.inf]])  # user 2: 1 item
    Y = np.zeros_like(S)
    d01 = 1.0  # cosine distance of orthogonal items
    assert intra_list_diversity_at_k(Y, S, k=2, item_features=F) == d01
    got = intra_list_diversity_at_k(Y, S, k=2, item_features=F, single_item=0.0)
    assert got == (d01 + 0.0) / 2
    got = intra_list_diversity_at_k(Y, S, k=1, item_features=F, single_item=0.5)
    assert got == 0.5
    assert np.isnan(intra_list_diversity_at_k(Y, S, k=1, item_features=F))
    with pytest.raises(TypeError, match="single_item"):
        intra_list_diversity_at_k(Y, S, k=2, item_features=F, single_item="zero")
    with pytest.raises(ValueError, match="single_item"):
        intra_list_diversity_at_k(Y, S, k=2, item_features=F, single_item=np.nan)


@pytest.mark.parametrize("seed", range(4))
def test_padding_items(seed):
    # RecBole's num_items counts its padding item: one more catalogue item,
    # never recommended (count 0)
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 6, 5, levels=3)
    Y = np.zeros_like(S)
    padded = np.hstack([S, np.full((6, 2), -np.inf)])
    for metric in (catalog_coverage_at_k, gini_index_at_k):
        got = metric(Y, S, k=2, padding_items=2)
        want = metric(np.zeros_like(padded), padded, k=2)
        assert got == pytest.approx(want, rel=1e-14, nan_ok=True)
        assert metric(Y, S, k=2, padding_items=0) == metric(Y, S, k=2) or np.isnan(
            metric(Y, S, k=2)
        )
        with pytest.raises(ValueError, match="padding_items"):
            metric(Y, S, k=2, padding_items=-1)
        with pytest.raises(TypeError, match="padding_items"):
            metric(Y, S, k=2, padding_items=1.5)


def test_long_form_catalogue_warns_and_takes_labels():
    # a table of recommendations alone: every item seen is recommended
    q = np.array(["u", "u", "v"])
    i = np.array(["007", "7", "7"])  # ids that look alike stay apart
    y, s = np.zeros(3), np.array([2.0, 1.0, 1.0])
    with pytest.warns(UserWarning, match="n_items="):
        assert catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i) == 1.0
    with pytest.warns(UserWarning, match="gini_index_at_k"):
        gini_index_at_k(y, s, k=2, query_id=q, item_id=i)
    with pytest.warns(UserWarning, match="exposure_entropy_at_k"):
        exposure_entropy_at_k(y, s, k=2, query_id=q, item_id=i, normalization="max")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # labels of 2 of a catalogue of 10 items
        assert (
            catalog_coverage_at_k(y, s, k=2, query_id=q, item_id=i, n_items=10) == 0.2
        )
        gini = gini_index_at_k(y, s, k=2, query_id=q, item_id=i, n_items=10)
        counts = np.zeros(10)
        counts[:2] = [1, 2]
        assert gini == pytest.approx(_gini(counts), rel=1e-14)
        # entropy without "max" does not read the catalogue: no warning
        exposure_entropy_at_k(y, s, k=2, query_id=q, item_id=i)
    # the same with column numbers and with the 2-D form
    S = np.array([[2.0, 1.0] + [-np.inf] * 8, [-np.inf, 1.0] + [-np.inf] * 8])
    assert catalog_coverage_at_k(np.zeros_like(S), S, k=2) == 0.2


@pytest.mark.parametrize("seed", range(3))
def test_reports_honour_ties_and_convention(seed):
    """ranking_report and factor_ranking_report read the tie rule and the
    preset's options like the functions (they ignored them before)."""
    from sklearn_rankmetrics import factor_ranking_report

    rng = np.random.default_rng(seed)
    U = rng.integers(-1, 2, size=(12, 2)).astype(float)  # many ties
    V = rng.integers(-1, 2, size=(8, 2)).astype(float)
    S = U @ V.T
    Y = (rng.random(S.shape) < 0.3).astype(int)
    train = (rng.random((20, 8)) < 0.4).astype(int)
    train[:, 0] = 0  # never seen: RecTools counts it once, recommenders 0
    F = rng.integers(0, 2, size=(8, 3))
    names = list(BEYOND_METRICS)
    opts = dict(item_popularity=train, item_features=F)
    functions = {n: BEYOND_METRICS[n].function for n in names}

    def expected(k, **kw):
        out = {}
        for n, f in functions.items():
            extra = {}
            if "item_popularity" in BEYOND_METRICS[n].requires:
                extra["item_popularity"] = train
            if "item_features" in BEYOND_METRICS[n].requires:
                extra["item_features"] = F
            takes = inspect.signature(f).parameters  # each its own options
            own = {o: v for o, v in kw.items() if o in takes}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                out[f"{n}@{k}"] = f(Y, S, k=k, **extra, **own)
        return out

    cases = [
        ({"ties": "input_order"}, {"ties": "input_order"}),
        ({"ignore_ties": True}, {"ignore_ties": True}),
        ({"ties": "pessimistic"}, {"ties": "pessimistic"}),
        ({"convention": "rectools"}, {"convention": "rectools"}),
        ({"convention": "recommenders"}, {"convention": "recommenders"}),
        ({"convention": "recbole"}, {"convention": "recbole"}),
        # explicit options win over the preset's
        (
            {"convention": "rectools", "ties": "expected", "unseen": "zero"},
            {"convention": "rectools", "ties": "expected", "unseen": "zero"},
        ),
    ]
    for report_kw, function_kw in cases:
        want = expected(3, **function_kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            got = ranking_report(
                Y, S, k=3, metrics=names, output_dict=True, **opts, **report_kw
            )
        for key, value in want.items():
            assert got[key] == value or (np.isnan(got[key]) and np.isnan(value)), (
                report_kw,
                key,
            )
        # beside a ranking metric, which takes the same tie rule
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            both = ranking_report(
                Y,
                S,
                k=3,
                metrics=["ndcg", *names],
                output_dict=True,
                **opts,
                **report_kw,
            )
        ranking_kw = {o: v for o, v in function_kw.items() if o != "unseen"}
        assert both["ndcg@3"] == ndcg_at_k(Y, S, k=3, **ranking_kw)
        factor_kw = {key: value for key, value in report_kw.items() if key != "unseen"}
        if "unseen" in report_kw:
            continue  # factor_ranking_report names its beyond options
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            fac = factor_ranking_report(
                Y, U, V, k=3, metrics=names, output_dict=True, **opts, **factor_kw
            )
        for key, value in want.items():
            assert fac[key] == value or (np.isnan(fac[key]) and np.isnan(value)), (
                report_kw,
                key,
            )
    # the preset's values differ from the defaults here (the test can fail)
    assert expected(3, convention="rectools") != expected(3)


def test_report_refuses_conflicting_or_unknown_tie_rules():
    S, Y = np.ones((2, 3)), np.eye(2, 3)
    with pytest.raises(ValueError, match="average precision"):
        ranking_report(Y, S, k=2, metrics=["map", "catalog_coverage"], ties="threshold")
    with pytest.raises(ValueError, match="ties must be"):
        ranking_report(Y, S, k=2, metrics=["catalog_coverage"], ties="random")


# ---------------------------------------------------------------------------
# Canonical chunks of users: every surface merges the same parts in order
# ---------------------------------------------------------------------------


def _inclusion(row, k):
    """Each item's probability of being in the top-k list of one row of
    scores, from the definition: 1 above the cut score t, (L - a) / g for
    the g items tied at t (a of them above it), 0 below or -inf."""
    retrieved = row > -np.inf
    L = min(k, int(retrieved.sum()))
    p = np.zeros(row.size)
    if L == 0:
        return p, 0
    t = np.sort(row[retrieved])[::-1][L - 1]
    above = retrieved & (row > t)
    tied = row == t
    p[above] = 1.0
    p[tied] = (L - above.sum()) / tied.sum()
    return p, L


def _chunked_reference(S, k, info, chunk):
    """The parts of coverage (no-list probabilities), exposure counts and
    novelty (per-user sum and count), each chunk of ``chunk`` users'
    computed on its own -- user by user, item by item, in order -- and the
    chunks merged in user order: products, sums, pairwise sums of the
    chunk's per-user values (numpy's, as the one per-user mean)."""
    n_users, n_items = S.shape
    none = counts = users = None
    for a in range(0, n_users, chunk):
        c_none, c_counts, values = np.ones(n_items), np.zeros(n_items), []
        for u in range(a, min(a + chunk, n_users)):
            p, L = _inclusion(S[u], k)
            c_none = c_none * (1.0 - p)  # x * 1.0 == x off the list
            c_counts = c_counts + p  # x + 0.0 == x off the list
            if L:
                total = 0.0
                for i in range(n_items):  # in item order, as the entries
                    if p[i] > 0:
                        total += p[i] * info[i]
                values.append(total / L)
        c_users = (float(np.sum(np.array(values, dtype=float))), len(values))
        if none is None:
            none, counts, users = c_none, c_counts, c_users
        else:
            none, counts = none * c_none, counts + c_counts
            users = (users[0] + c_users[0], users[1] + c_users[1])
    return none, counts, users


@pytest.mark.parametrize("chunk", [1, 3, 5, 10**6])
@pytest.mark.parametrize("seed", range(2))
def test_canonical_chunks_match_the_slow_reference(monkeypatch, chunk, seed):
    from sklearn_rankmetrics._metrics import _beyond

    monkeypatch.setattr(_beyond, "_CHUNK_USERS", chunk)
    rng = np.random.default_rng(seed)
    S = _random_scores(rng, 17, 6, levels=3, p_inf=0.3)  # ties, -inf
    S[4] = -np.inf  # a user without a list
    Y = (rng.random(S.shape) < 0.3).astype(int)
    pop = rng.integers(1, 6, size=6)  # every item seen: finite novelty
    info = -np.log2(pop / pop.sum())
    names = ["catalog_coverage", "gini_index", "exposure_entropy", "novelty"]
    for k in (1, 2, 4):
        none, counts, (total, n) = _chunked_reference(S, k, info, chunk)
        sums = BeyondSums(names, (k,), item_popularity=pop).add(Y, S)
        assert np.array_equal(sums.parts[("catalog_coverage", k)], none)
        assert np.array_equal(sums.parts[("gini_index", k)], counts)
        assert np.array_equal(sums.parts[("exposure_entropy", k)], counts)
        assert sums.parts[("novelty", k)] == (total, n)
        assert n == 16  # every user but the one without a list
        got = sums.values()
        # the functions compute the same chunks' parts: bit for bit
        assert got[f"catalog_coverage@{k}"] == catalog_coverage_at_k(Y, S, k=k)
        assert got[f"catalog_coverage@{k}"] == float(np.mean(1.0 - none))
        assert got[f"gini_index@{k}"] == gini_index_at_k(Y, S, k=k)
        assert got[f"exposure_entropy@{k}"] == exposure_entropy_at_k(Y, S, k=k)
        assert got[f"novelty@{k}"] == novelty_at_k(Y, S, k=k, item_popularity=pop)
        assert got[f"novelty@{k}"] == total / n
        report = ranking_report(
            Y, S, k=k, metrics=names, item_popularity=pop, output_dict=True
        )
        assert report == got
