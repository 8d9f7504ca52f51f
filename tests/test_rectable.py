"""Tests of recommendation_table_report and factor_ranking_report's top-k
tables.

The values are checked against (a) a slow per-user reference written here
(every ordering of tied items enumerated), (b) ranking_report on the long
form built here row by row, and on the dense matrices of
ranked_lists_to_arrays, (c) RecTools' calc_metrics: its numbers on a shared
case, and a slow re-implementation of its formulas on random cases.
"""

import itertools
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rankmetrics import (
    factor_ranking_report,
    ranked_lists_to_arrays,
    ranking_report,
    recommendation_table_report,
)
from sklearn_rankmetrics._registry import METRICS
from sklearn_rankmetrics._utils._conventions import CONVENTIONS

# ---------------------------------------------------------------------------
# Random cases: tables as lists of tuples, turned into any table kind
# ---------------------------------------------------------------------------

# ids that look alike: each is its own id
LOOKALIKE_USERS = ["7", "07", "007", "u", "U", "u ", " u", "1", "01", "1.0", "x"]
LOOKALIKE_ITEMS = ["a", "A", "a ", "0", "00", "000", "i1", "i01", "i10", "b", "-1"]
INT_USERS = [7, 70, 700, -7, 2**40, 0, 1, 10, 11, 12, 3]
INT_ITEMS = [0, 1, 2, 3, 10, 100, -1, 2**35, 5, 6, 7]


class Case:
    """A random recommendations table, held-out and excluded pairs and a
    catalogue, as lists of tuples (rows in table order)."""

    def __init__(
        self,
        seed,
        *,
        ints=False,
        ties=False,
        labels=False,
        exclude=False,
        minus_inf=False,
        outside=True,
    ):
        rng = np.random.default_rng(seed)
        users = INT_USERS if ints else LOOKALIKE_USERS
        items = INT_ITEMS if ints else LOOKALIKE_ITEMS
        catalog = [i for i in items if rng.random() < 0.85] or items[:3]
        self.catalog = list(rng.permutation(np.array(catalog, dtype=object)))
        self.reco = []
        for u in users:
            if rng.random() < 0.2:
                continue  # no list
            n = int(rng.integers(0, min(7, len(self.catalog)) + 1))
            chosen = rng.choice(len(self.catalog), size=n, replace=False)
            for r, j in enumerate(chosen, start=1):
                if ties:
                    score = float(rng.integers(0, 3))
                else:
                    score = float(n - r) + rng.random() * 0.5
                if minus_inf and rng.random() < 0.15:
                    score = -np.inf
                self.reco.append((u, self.catalog[j], r, score))
        order = rng.permutation(len(self.reco))
        self.reco = [self.reco[j] for j in order]  # rows out of order
        self.held = []
        pool = items if outside else self.catalog
        for u in users:
            if rng.random() < 0.25:
                continue  # not evaluated
            n = int(rng.integers(1, 5))
            for j in rng.choice(len(pool), size=min(n, len(pool)), replace=False):
                label = int(rng.integers(0, 4)) if labels else 1
                self.held.append((u, pool[j], label))
        order = rng.permutation(len(self.held))
        self.held = [self.held[j] for j in order]
        self.exclude = []
        if exclude:
            for u in users:
                for i in items:
                    if rng.random() < 0.12:
                        self.exclude.append((u, i))
            # also exclude some pairs that are recommended or held out
            for u, i, *_ in self.reco[:3] + self.held[:3]:
                self.exclude.append((u, i))
        if not self.held:
            self.held.append((users[0], items[0], 1))


def as_dict(rows, names):
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in names]
    out = {}
    for name, column in zip(names, columns, strict=True):
        values = list(column)
        if all(isinstance(v, str) for v in values):
            out[name] = np.array(values, dtype=object)
        else:
            out[name] = np.array(values)
    return out


RECO_COLS = ["user_id", "item_id", "rank", "score"]
HELD_COLS = ["user_id", "item_id", "label"]
PAIR_COLS = ["user_id", "item_id"]


def tables(case):
    reco = as_dict(case.reco, RECO_COLS)
    held = as_dict(case.held, HELD_COLS)
    excl = as_dict(case.exclude, PAIR_COLS) if case.exclude else None
    return reco, held, excl


def report(case, *, by="rank", labels=False, **kw):
    reco, held, excl = tables(case)
    return recommendation_table_report(
        reco,
        held,
        rank_col="rank" if by == "rank" else None,
        score_col="score" if by == "score" else None,
        label_col="label" if labels else None,
        exclude=excl,
        **kw,
    )


def quiet(func, *args, **kwargs):
    """``func`` with the exclusion warning silenced."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "exclude removes", UserWarning)
        return func(*args, **kwargs)


# ---------------------------------------------------------------------------
# The slow per-user reference
# ---------------------------------------------------------------------------


def user_lists(case, by):
    """Per user: the list [(item, score)] in table order, after exclusion,
    and the held-out grades {item: grade} (an excluded held-out pair stays
    relevant: it is only never recommended)."""
    excluded = set(case.exclude)
    lists = defaultdict(list)
    for u, i, r, s in case.reco:
        if (u, i) not in excluded:
            lists[u].append((i, -float(r) if by == "rank" else s))
    held = defaultdict(dict)
    for u, i, g in case.held:
        held[u][i] = g
    return lists, held


def orderings(scored):
    """Every ordering of the retrieved items of ``scored`` [(item, score)]
    by decreasing score, tied items in every order (equally likely)."""
    retrieved = [x for x in scored if x[1] > -np.inf]
    groups = defaultdict(list)
    for item, s in retrieved:
        groups[s].append(item)
    blocks = [groups[s] for s in sorted(groups, reverse=True)]
    for perm in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [item for block in perm for item in block]


def per_ranking(ranking, grades, k, n_negatives=None, ap_denominator="relevant"):
    """Metric values of one user for one ordering (``grades``: held-out)."""
    rel = {i for i, g in grades.items() if g > 0}
    R = len(rel)
    top = ranking[:k]
    hits = sum(i in rel for i in top)
    out = {
        "precision": hits / k,
        "recall": hits / R,
        "hit_rate": float(hits > 0),
        "mrr": next((1 / (j + 1) for j, i in enumerate(top) if i in rel), 0.0),
    }
    p, r = out["precision"], out["recall"]
    out["f1"] = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    ap = sum(
        sum(x in rel for x in top[: j + 1]) / (j + 1)
        for j, i in enumerate(top)
        if i in rel
    )
    out["map"] = ap / (R if ap_denominator == "relevant" else min(R, k))
    dcg = sum(grades.get(i, 0) / math.log2(j + 2) for j, i in enumerate(top))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
    out["dcg"] = dcg
    out["ndcg"] = dcg / idcg
    if n_negatives is not None:
        out["fallout"] = (len(top) - hits) / n_negatives
    return out


def reference(case, k, *, by="rank", catalog=False, **kw):
    """Per evaluated user (sorted ids) the expected values over the
    orderings of tied items; users without a relevant item are nan."""
    lists, held = user_lists(case, by)
    excluded = set(case.exclude)
    out = {}
    for u in sorted(u for u in held if held[u]):
        grades = held[u]
        if not any(g > 0 for g in grades.values()):
            out[u] = None
            continue
        n_negatives = None
        if catalog:  # the candidates (excluded items are not) not relevant
            items = (set(case.catalog) | set(grades)) - {
                i for (v, i) in excluded if v == u
            }
            n_negatives = len(items - {i for i, g in grades.items() if g > 0})
        runs = [
            per_ranking(o, grades, k, n_negatives, **kw) for o in orderings(lists[u])
        ]
        out[u] = {m: float(np.mean([run[m] for run in runs])) for m in runs[0]}
    return out


def reference_means(ref):
    names = next(v for v in ref.values() if v is not None)
    return {
        m: float(np.mean([v[m] for v in ref.values() if v is not None])) for m in names
    }


TOP_K = ["precision", "recall", "f1", "hit_rate", "mrr", "map", "dcg", "ndcg"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("by", ["rank", "score"])
def test_against_slow_reference(seed, by):
    case = Case(seed, ties=by == "score", exclude=seed % 2 == 0, ints=seed % 3 == 0)
    for k in (1, 3, 5):
        ref = reference(case, k, by=by)
        got = quiet(report, case, by=by, k=k, metrics=TOP_K, output_dict=True)
        for m, v in reference_means(ref).items():
            assert got[f"{m}@{k}"] == pytest.approx(v, rel=1e-12, abs=1e-15), (m, k)


@given(
    seed=st.integers(0, 2**32 - 1),
    ints=st.booleans(),
    ties=st.booleans(),
    exclude=st.booleans(),
    minus_inf=st.booleans(),
    k=st.integers(1, 8),
)
@settings(max_examples=40, deadline=None)
def test_property_reference_and_long_form(seed, ints, ties, exclude, minus_inf, k):
    case = Case(seed, ints=ints, ties=ties, exclude=exclude, minus_inf=minus_inf)
    ref = reference_means(reference(case, k, by="score"))
    got = quiet(report, case, by="score", k=k, metrics=TOP_K, output_dict=True)
    for m, v in ref.items():
        assert got[f"{m}@{k}"] == pytest.approx(v, rel=1e-12, abs=1e-15), m
    y, s, q = long_form(case, "score")
    want = ranking_report(y, s, query_id=q, k=k, metrics=TOP_K, output_dict=True)
    assert want == {n: got[n] for n in want}


@pytest.mark.parametrize("seed", range(8))
def test_graded_labels_and_ap_denominator(seed):
    case = Case(seed, labels=True, ties=True, exclude=True)
    for ap in ("relevant", "min_k"):
        ref = reference(case, 3, by="score", ap_denominator=ap)
        got = quiet(
            report,
            case,
            by="score",
            labels=True,
            k=3,
            metrics=TOP_K,
            ap_denominator=ap,
            per_query=True,
            output_dict=True,
        )
        assert list(got["user_id"]) == sorted(ref)
        for j, u in enumerate(got["user_id"]):
            for m in TOP_K:
                value = got[f"{m}@3"][j]
                if ref[u] is None:  # no relevant item: skipped
                    assert np.isnan(value)
                else:
                    assert value == pytest.approx(ref[u][m], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_fallout_over_the_catalogue(seed):
    # a user's items: the catalogue and its held-out items, less the excluded
    case = Case(seed, exclude=True)
    for k in (2, 4):
        ref = reference(case, k, catalog=True)
        got = quiet(
            report,
            case,
            k=k,
            metrics=["fallout"],
            catalog=case.catalog,
            per_query=True,
            output_dict=True,
        )
        for j, u in enumerate(got["user_id"]):
            assert got[f"fallout@{k}"][j] == pytest.approx(ref[u]["fallout"], rel=1e-12)


def counter_keys(*ks):
    keys = ["n_queries", "n_evaluated", "n_skipped", "n_empty"]
    return [*keys, *(f"n_short@{k}" for k in ks), "n_lists_without_held_out"]


def test_hand_worked_example():
    # u1 ranks a, b, c and liked b; u2 ranks a, d and liked d and e; u3 has
    # no list and liked a.
    reco = {
        "user_id": ["u1", "u1", "u1", "u2", "u2"],
        "item_id": ["a", "b", "c", "a", "d"],
        "rank": [1, 2, 3, 1, 2],
    }
    held = {"user_id": ["u1", "u2", "u2", "u3"], "item_id": ["b", "d", "e", "a"]}
    got = recommendation_table_report(
        reco,
        held,
        rank_col="rank",
        k=2,
        metrics=["precision", "recall", "ndcg", "fallout"],
        catalog=["a", "b", "c", "d", "e", "f"],
        output_dict=True,
    )
    # P@2: (1/2 + 1/2 + 0) / 3
    assert got["precision@2"] == pytest.approx(1 / 3)
    # R@2: (1/1 + 1/2 + 0) / 3
    assert got["recall@2"] == pytest.approx(1 / 2)
    # NDCG@2: u1 1/log2(3) / 1; u2 (1/log2(3)) / (1 + 1/log2(3)); u3 0
    g = 1 / math.log2(3)
    assert got["ndcg@2"] == pytest.approx((g + g / (1 + g)) / 3)
    # fall-out@2 over 6 items: u1 a is 1 of 5 non-relevant, u2 a is 1 of 4,
    # u3 retrieves nothing: (1/5 + 1/4 + 0) / 3
    assert got["fallout@2"] == pytest.approx((1 / 5 + 1 / 4) / 3)
    # counters: 3 users, each with a relevant item; u3 has no list; no list
    # is shorter than 2 (u1 has 3 items, u2 has 2)
    assert {c: got[c] for c in counter_keys(2)} == {
        "n_queries": 3,
        "n_evaluated": 3,
        "n_skipped": 0,
        "n_empty": 1,
        "n_short@2": 0,
        "n_lists_without_held_out": 0,
    }


# ---------------------------------------------------------------------------
# Equal to ranking_report on the same rows, and on the dense matrices
# ---------------------------------------------------------------------------


def long_form(case, by, labels=False):
    """The rows the report builds, made here: the recommended pairs of the
    evaluated users (table order) and the held-out pairs not recommended
    (table order) at -inf; excluded recommendations dropped (an excluded
    held-out pair is then never recommended)."""
    excluded = set(case.exclude)
    held = {(u, i): (g if labels else 1) for u, i, g in case.held}
    evaluated = {u for u, _ in held}
    y, s, q, recommended = [], [], [], set()
    for u, i, r, score in case.reco:
        if (u, i) in excluded or u not in evaluated:
            continue
        recommended.add((u, i))
        y.append(held.get((u, i), 0))
        s.append(-float(r) if by == "rank" else score)
        q.append(u)
    for u, i, _ in case.held:
        if (u, i) in held and (u, i) not in recommended:
            y.append(held[(u, i)])
            s.append(-np.inf)
            q.append(u)
    return np.array(y, dtype=float), np.array(s), np.array(q, dtype=object)


ALL_LONG = [
    m for m in METRICS if not {"n_items", "n_negatives"} & set(METRICS[m].requires)
]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("by", ["rank", "score"])
def test_equals_long_form_report_every_metric(seed, by):
    case = Case(
        seed, ties=by == "score", labels=True, exclude=True, minus_inf=by == "score"
    )
    y, s, q = long_form(case, by, labels=True)
    for k in ((1, 3), (5,)):
        want = ranking_report(y, s, query_id=q, k=k, metrics=ALL_LONG, output_dict=True)
        got = quiet(
            report, case, by=by, labels=True, k=k, metrics=ALL_LONG, output_dict=True
        )
        for name, value in want.items():
            np.testing.assert_equal(got[name], value, err_msg=name)


@pytest.mark.parametrize("convention", sorted(CONVENTIONS))
def test_equals_long_form_report_every_convention(convention):
    case = Case(3, ties=True, labels=True, exclude=True)
    y, s, q = long_form(case, "score", labels=True)
    names = ["precision", "recall", "map", "ndcg", "mrr", "rbp", "gauc"]
    want = ranking_report(
        y,
        s,
        query_id=q,
        k=(2, 4),
        metrics=names,
        convention=convention,
        output_dict=True,
    )
    got = quiet(
        report,
        case,
        by="score",
        labels=True,
        k=(2, 4),
        metrics=names,
        convention=convention,
        output_dict=True,
    )
    for name, value in want.items():
        np.testing.assert_equal(got[name], value, err_msg=name)


def test_options_reach_the_metrics():
    case = Case(1, ties=True, labels=True)
    y, s, q = long_form(case, "score", labels=True)
    options = dict(
        relevance_threshold=2,
        gain="exponential",
        ignore_ties=True,
        no_relevant=0.0,
        metrics=TOP_K,
    )
    want = ranking_report(y, s, query_id=q, k=3, output_dict=True, **options)
    got = report(case, by="score", labels=True, k=3, output_dict=True, **options)
    assert want == {n: got[n] for n in want}
    plain = report(case, by="score", labels=True, k=3, output_dict=True)
    assert want != {n: plain[n] for n in want}  # the options do change them


def dense(case, by, catalog):
    """y_true, y_score (users x catalogue) of the evaluated users, sorted."""
    lists, held = user_lists(case, by)
    users = sorted(u for u in held if held[u])
    if by == "rank":
        ranked = [[i for i, _ in sorted(lists[u], key=lambda x: -x[1])] for u in users]
        Y, S, items = ranked_lists_to_arrays(
            ranked, [held[u] for u in users], items=catalog
        )
        return Y, S
    col = {i: j for j, i in enumerate(catalog)}
    Y = np.zeros((len(users), len(catalog)))
    S = np.full((len(users), len(catalog)), -np.inf)
    for r, u in enumerate(users):
        for i, g in held[u].items():
            Y[r, col[i]] = g
        for i, score in lists[u]:
            S[r, col[i]] = score
    return Y, S


# fall-out is left out of the comparisons with dense matrices: there the
# items scored -inf are no candidates (SPEC 4d), while a table's catalogue
# makes every catalogue item a candidate, listed or not (fall-out divides by
# the catalogue's non-relevant items; test_fallout_over_the_catalogue)
TOP_K_ALL = [m for m in METRICS if METRICS[m].kernel is not None and m != "fallout"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("by", ["rank", "score"])
def test_equals_dense_report(seed, by):
    # held-out items inside the catalogue, no exclusion: the dense rows are
    # the catalogue (fall-out and bpref count it); GAUC's rule for padding
    # is helper "cand"'s and not compared here
    case = Case(seed, ties=by == "score", labels=True, outside=False)
    Y, S = dense(case, by, case.catalog)
    for k in ((1, 4), (3,)):
        want = ranking_report(Y, S, k=k, metrics=TOP_K_ALL, output_dict=True)
        got = report(
            case,
            by=by,
            labels=True,
            k=k,
            metrics=TOP_K_ALL,
            catalog=case.catalog,
            output_dict=True,
        )
        for name, value in want.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-12, err_msg=name)


def test_large_table_in_parts_equals_dense():
    # above the engine's part size (2**18 rows): the items per user of
    # fall-out and bpref follow the queries into each part
    rng = np.random.default_rng(0)
    n_users, n_items, length = 15_000, 200, 20
    user = np.repeat(np.arange(n_users), length)
    item = np.argsort(rng.random((n_users, n_items)), axis=1)[:, :length].ravel()
    rank = np.tile(np.arange(1, length + 1), n_users)
    key = np.unique(rng.integers(0, n_users * n_items, 40_000))
    held_user, held_item = key // n_items, key % n_items
    Y = np.zeros((n_users, n_items))
    Y[held_user, held_item] = 1
    S = np.full((n_users, n_items), -np.inf)
    S[user, item] = -rank
    evaluated = np.unique(held_user)
    names = ["bpref", "ndcg", "r_precision"]  # fall-out: see TOP_K_ALL
    got = recommendation_table_report(
        {"user_id": user, "item_id": item, "rank": rank},
        {"user_id": held_user, "item_id": held_item},
        rank_col="rank",
        k=(5, 20),
        metrics=names,
        catalog=np.arange(n_items),
        output_dict=True,
    )
    want = ranking_report(
        Y[evaluated], S[evaluated], k=(5, 20), metrics=names, output_dict=True
    )
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-12, err_msg=name)


def test_gauc_per_user_against_pairs():
    # AUC of the recommended list with the held-out items not recommended
    # ranked below every recommended item (none of them ties): the rule of
    # SPEC 4d, for which padding never changes a value
    case = Case(11, ties=True)
    got = report(case, by="score", metrics=["gauc"], per_query=True, output_dict=True)
    lists, held = user_lists(case, "score")
    for j, u in enumerate(got["user_id"]):
        pos = [s for i, s in lists[u] if i in held[u]]
        pos += [-np.inf] * sum(i not in dict(lists[u]) for i in held[u])
        neg = [s for i, s in lists[u] if i not in held[u]]
        pairs = [(p > n) + 0.5 * (p == n) for p in pos for n in neg]
        if not pairs:
            assert np.isnan(got["gauc"][j])
        else:
            assert got["gauc"][j] == pytest.approx(np.mean(pairs), rel=1e-12)


# ---------------------------------------------------------------------------
# Beyond-accuracy metrics and RecTools
# ---------------------------------------------------------------------------

# The shared case: RecTools 0.19.0's calc_metrics on these tables gave the
# numbers below (computed in a separate environment: RecTools pins numpy < 2
# and pandas < 3, so it cannot join the newest CI environment).
RT_RECO = [  # (user, item, rank)
    ("u1", "i1", 1),
    ("u1", "i2", 2),
    ("u1", "i3", 3),
    ("u1", "i4", 4),
    ("u1", "i5", 5),
    ("u2", "i2", 1),
    ("u2", "i6", 2),
    ("u2", "i1", 3),
    ("u3", "i7", 1),
    ("u3", "i3", 2),
    ("u3", "i8", 3),
    ("u3", "i1", 4),
    ("u3", "i2", 5),
    ("u4", "i1", 1),
    ("u5", "i4", 1),
    ("u5", "i5", 2),
    ("u5", "i9", 3),
    ("u5", "i2", 4),
    ("u7", "i1", 1),
    ("u7", "i6", 2),
    ("u7", "i3", 3),
]
RT_TEST = [  # held-out (user, item); u6 has no list, u7 no held-out item
    ("u1", "i2"),
    ("u1", "i5"),
    ("u1", "i10"),
    ("u2", "i6"),
    ("u3", "i8"),
    ("u3", "i2"),
    ("u3", "i7"),
    ("u3", "i11"),
    ("u4", "i3"),
    ("u5", "i9"),
    ("u5", "i4"),
    ("u6", "i1"),
    ("u6", "i2"),
]
RT_TRAIN = [
    ("u1", "i1"),
    ("u1", "i3"),
    ("u2", "i1"),
    ("u2", "i2"),
    ("u2", "i3"),
    ("u3", "i1"),
    ("u4", "i1"),
    ("u4", "i2"),
    ("u5", "i1"),
    ("u5", "i6"),
    ("u6", "i3"),
    ("u6", "i4"),
    ("u7", "i5"),
    ("u7", "i7"),
    ("u8", "i8"),
    ("u8", "i9"),
    ("u8", "i2"),
    ("u9", "i4"),
]
RT_CATALOG = [f"i{j}" for j in range(1, 13)]
# calc_metrics({name: Metric(k)}, reco, test, train, RT_CATALOG) with
# Precision, Recall, NDCG(divide_by_achievable=True) ("ndcg"), NDCG() (its
# default: "ndcg_k"), MAP(), MAP(divide_by_k=True) ("map_k"), MRR, HitRate,
# CatalogCoverage(normalize=True), MeanInvUserFreq, AvgRecPopularity,
# Serendipity
RECTOOLS_0_19_0 = {
    "precision@3": 0.3333333333333333,
    "recall@3": 0.47222222222222215,
    "ndcg@3": 0.42510842378660746,
    "ndcg_k@3": 0.33333333333333326,
    "map@3": 0.3194444444444444,
    "map_k@3": 0.2407407407407407,
    "mrr@3": 0.5,
    "hit_rate@3": 0.6666666666666666,
    "catalog_coverage@3": 0.75,
    "novelty@3": 1.900126052946204,
    "average_popularity@3": 2.944444444444444,
    "serendipity@3": 0.041666666666666664,
    "precision@5": 0.26666666666666666,
    "recall@5": 0.5694444444444444,
    "ndcg@5": 0.46081065657313686,
    "ndcg_k@5": 0.2846438833857645,
    "map@5": 0.3666666666666667,
    "map_k@5": 0.17777777777777778,
    "mrr@5": 0.5,
    "hit_rate@5": 0.6666666666666666,
    "catalog_coverage@5": 0.75,
    "novelty@5": 1.8416743866081122,
    "average_popularity@5": 3.025,
    "serendipity@5": 0.03078703703703704,
}
RECTOOLS_NAMES = [
    "precision",
    "recall",
    "ndcg",
    "map",
    "mrr",
    "hit_rate",
    "catalog_coverage",
    "novelty",
    "average_popularity",
    "serendipity",
]


def ours_as_rectools(reco, test, train, catalog, ks):
    """Our report under the options matching RecTools' definitions, keyed
    as RECTOOLS_0_19_0.  NDCG's default (ideal DCG of k relevant items) and
    MAP(divide_by_k=True) have no option yet (helper "presets" adds the
    "rectools" preset): they are derived from DCG and the per-user AP."""
    reco_t = as_dict(reco, ["user_id", "item_id", "rank"])
    test_t = as_dict(test, PAIR_COLS)
    train_t = as_dict(train, PAIR_COLS)
    got = recommendation_table_report(
        reco_t,
        test_t,
        rank_col="rank",
        k=ks,
        metrics=RECTOOLS_NAMES + ["dcg"],
        catalog=catalog,
        item_popularity=train_t,
        output_dict=True,
    )
    per_user = recommendation_table_report(
        reco_t,
        test_t,
        rank_col="rank",
        k=ks,
        metrics=["map"],
        per_query=True,
        output_dict=True,
    )
    n_rel = defaultdict(int)
    for u, _ in test:
        n_rel[u] += 1
    R = np.array([n_rel[u] for u in per_user["user_id"]])
    for k in ks:
        ideal_k = sum(1 / math.log2(j + 2) for j in range(k))
        got[f"ndcg_k@{k}"] = got[f"dcg@{k}"] / ideal_k
        got[f"map_k@{k}"] = float(np.mean(per_user[f"map@{k}"] * R / k))
    return got


def test_rectools_shared_case():
    got = ours_as_rectools(RT_RECO, RT_TEST, RT_TRAIN, RT_CATALOG, (3, 5))
    for name, value in RECTOOLS_0_19_0.items():
        assert got[name] == pytest.approx(value, rel=1e-13), name
    assert got["n_queries"] == 6  # u1..u6
    assert got["n_evaluated"] == 6  # each with a held-out item
    assert got["n_skipped"] == 0
    assert got["n_empty"] == 1  # u6
    assert got["n_short@3"] == 1  # u4
    assert got["n_short@5"] == 3  # u2, u4, u5
    assert got["n_lists_without_held_out"] == 1  # u7


def rectools_reference(reco, test, train, catalog, k):
    """RecTools 0.19.0's calc_metrics re-implemented from its source
    (rectools/metrics/classification.py, ranking.py, catalog.py,
    novelty.py, popularity.py, serendipity.py), one user at a time; checked
    against RecTools itself on these random cases in a separate
    environment (and by test_rectools_live where it is installed).

    Accuracy metrics average over the users of ``test`` (a left merge: a
    user without recommendations scores 0); the others over the users of
    ``reco``.  Novelty: -log2(users of the item / users of train), a cold
    item counted as one user; popularity: rows of train; serendipity: rank
    r of n = len(catalog) items, popularity rank pi (dense, by train rows),
    max(0, (pi - r) / n) for relevant items, 0 for cold items.
    """
    rank = {(u, i): r for u, i, r in reco}
    relevant = defaultdict(set)
    for u, i in test:
        relevant[u].add(i)
    out = defaultdict(list)
    for u in sorted(relevant):
        ranks = sorted(rank[(u, i)] for i in relevant[u] if (u, i) in rank)
        found = [r for r in ranks if r <= k]
        R = len(relevant[u])
        out["precision"].append(len(found) / k)
        out["recall"].append(len(found) / R)
        out["hit_rate"].append(float(bool(found)))
        out["mrr"].append(1 / found[0] if found else 0.0)
        dcg = sum(1 / math.log2(r + 1) for r in found)
        idcg = sum(1 / math.log2(j + 1) for j in range(1, min(R, k) + 1))
        out["ndcg"].append(dcg / idcg)
        out["ndcg_k"].append(dcg / sum(1 / math.log2(j + 1) for j in range(1, k + 1)))
        ap = sum((j + 1) / r for j, r in enumerate(found))
        out["map"].append(ap / R)
        out["map_k"].append(ap / k)
    result = {m: float(np.mean(v)) for m, v in out.items()}
    top = [(u, i, r) for u, i, r in reco if r <= k]
    result["catalog_coverage"] = len({i for _, i, _ in top}) / len(catalog)
    train_users = {u for u, _ in train}
    users_of = defaultdict(set)
    rows_of = defaultdict(int)
    for u, i in train:
        users_of[i].add(u)
        rows_of[i] += 1
    levels = sorted(set(rows_of.values()), reverse=True)
    pop_rank = {i: levels.index(c) + 1 for i, c in rows_of.items()}
    n = len(catalog)
    per_user = defaultdict(lambda: defaultdict(list))
    for u, i, r in top:
        users = len(users_of[i]) or 1
        per_user[u]["novelty"].append(-math.log2(users / len(train_users)))
        per_user[u]["average_popularity"].append(rows_of.get(i, 0))
        p_user = (n + 1 - r) / n
        p_any = (n + 1 - pop_rank[i]) / n if i in pop_rank else 0.0
        per_user[u]["serendipity"].append(max(p_user - p_any, 0.0) * (i in relevant[u]))
    for m in ("novelty", "average_popularity", "serendipity"):
        result[m] = float(np.mean([np.mean(v[m]) for v in per_user.values()]))
    return result


def rectools_case(seed):
    """Random tables for the RecTools comparison: lists of every length,
    users without list or without held-out items, held-out items outside
    the lists and the catalogue; every catalogue item seen in training (a
    cold item's novelty is finite in RecTools, inf here)."""
    rng = np.random.default_rng(seed)
    catalog = [f"item{j}" for j in range(int(rng.integers(5, 15)))]
    users = [f"user{j}" for j in range(int(rng.integers(3, 12)))]
    reco, test, train = [], [], []
    for u in users:
        if rng.random() < 0.8:
            n = int(rng.integers(1, min(8, len(catalog)) + 1))
            for r, j in enumerate(rng.choice(len(catalog), n, replace=False), 1):
                reco.append((u, catalog[j], r))
        if rng.random() < 0.8:
            for j in rng.choice(
                len(catalog) + 3, int(rng.integers(1, 5)), replace=False
            ):
                test.append((u, catalog[j] if j < len(catalog) else f"new{j}"))
        for j in rng.choice(len(catalog), int(rng.integers(0, 4)), replace=False):
            train.append((u, catalog[j]))
    for j, item in enumerate(catalog):
        if rng.random() < 0.7 or not any(i == item for _, i in train):
            train.append((f"extra{j}", item))
    if not test:
        test.append((users[0], catalog[0]))
    return reco, test, train, catalog


@pytest.mark.parametrize("seed", range(25))
def test_rectools_reimplementation(seed):
    reco, test, train, catalog = rectools_case(seed)
    for k in (1, 3, 6):
        want = rectools_reference(reco, test, train, catalog, k)
        got = ours_as_rectools(reco, test, train, catalog, (k,))
        for name, value in want.items():
            assert got[f"{name}@{k}"] == pytest.approx(value, rel=1e-12, abs=1e-15), (
                name,
                k,
            )


def test_rectools_live():
    # runs where RecTools is installed (it pins numpy < 2 and pandas < 3)
    pd = pytest.importorskip("pandas")
    rt = pytest.importorskip("rectools.metrics")
    cases = [(RT_RECO, RT_TEST, RT_TRAIN, RT_CATALOG)]
    cases += [rectools_case(seed) for seed in range(10)]
    for reco, test, train, catalog in cases:
        reco_df = pd.DataFrame(reco, columns=["user_id", "item_id", "rank"])
        test_df = pd.DataFrame(test, columns=PAIR_COLS)
        train_df = pd.DataFrame(train, columns=PAIR_COLS)
        for k in (1, 3, 5):
            metrics = {
                "precision": rt.Precision(k),
                "recall": rt.Recall(k),
                "ndcg": rt.NDCG(k, divide_by_achievable=True),
                "ndcg_k": rt.NDCG(k),
                "map": rt.MAP(k),
                "map_k": rt.MAP(k, divide_by_k=True),
                "mrr": rt.MRR(k),
                "hit_rate": rt.HitRate(k),
                "catalog_coverage": rt.CatalogCoverage(k, normalize=True),
                "novelty": rt.MeanInvUserFreq(k),
                "average_popularity": rt.AvgRecPopularity(k),
                "serendipity": rt.Serendipity(k),
            }
            want = rt.calc_metrics(metrics, reco_df, test_df, train_df, catalog)
            mine = rectools_reference(reco, test, train, catalog, k)
            got = ours_as_rectools(reco, test, train, catalog, (k,))
            for name, value in want.items():
                assert mine[name] == pytest.approx(value, rel=1e-12, abs=1e-15)
                assert got[f"{name}@{k}"] == pytest.approx(value, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_beyond_equals_long_form(seed):
    # every list of the recommendations (users evaluated or not), excluded
    # pairs dropped; items numbered by their place in the catalogue
    case = Case(seed, ties=True, exclude=True, labels=True)
    names = [
        "catalog_coverage",
        "gini_index",
        "exposure_entropy",
        "average_popularity",
        "novelty",
        "intra_list_diversity",
        "serendipity",
    ]
    rng = np.random.default_rng(seed)
    features = rng.random((len(case.catalog), 3))
    counts = rng.integers(1, 9, len(case.catalog))
    excluded = set(case.exclude)
    held = {(u, i): g for u, i, g in case.held if (u, i) not in excluded}
    col = {i: j for j, i in enumerate(case.catalog)}
    rows = [(u, i, s) for u, i, _, s in case.reco if (u, i) not in excluded]
    y = np.array([held.get((u, i), 0) for u, i, _ in rows], dtype=float)
    s = np.array([x for _, _, x in rows])
    q = np.array([u for u, _, _ in rows], dtype=object)
    items = np.array([col[i] for _, i, _ in rows])
    want = ranking_report(
        y,
        s,
        query_id=q,
        item_id=items,
        n_items=len(case.catalog),
        k=(2, 5),
        metrics=names,
        item_popularity=counts,
        item_features=features,
        output_dict=True,
    )
    got = quiet(
        report,
        case,
        by="score",
        labels=True,
        k=(2, 5),
        metrics=names,
        catalog=case.catalog,
        item_popularity=counts,
        item_features=features,
        output_dict=True,
    )
    for name, value in want.items():
        np.testing.assert_equal(got[name], value, err_msg=name)


def test_beyond_with_ranking_metrics_and_text():
    got = recommendation_table_report(
        as_dict(RT_RECO, ["user_id", "item_id", "rank"]),
        as_dict(RT_TEST, PAIR_COLS),
        rank_col="rank",
        k=3,
        metrics=["recall", "catalog_coverage"],
        catalog=RT_CATALOG,
    )
    assert got.splitlines()[1].split() == ["recall", "0.4722"]
    assert got.splitlines()[2].split() == ["catalog_coverage", "0.7500"]
    assert "6 users: 6 evaluated, 0 skipped (no relevant item)." in got
    assert "Lists: 1 empty, 1 shorter than 3 items." in got
    assert "1 list of users without held-out interactions" in got


# ---------------------------------------------------------------------------
# Counters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("no_relevant", ["skip", 0.0])
def test_counters(seed, no_relevant):
    # graded held-out rows: users whose held-out grades are all 0 have no
    # relevant item (skipped, unless no_relevant scores them)
    case = Case(seed, exclude=True, minus_inf=True, labels=True)
    lists, held = user_lists(case, "score")
    queries = {u for u in held if held[u]}
    relevant = {u for u in queries if any(g > 0 for g in held[u].values())}
    length = {u: sum(s > -np.inf for _, s in v) for u, v in lists.items()}
    kw = dict(by="score", labels=True, k=(1, 3, 5), output_dict=True)
    got = quiet(report, case, no_relevant=no_relevant, **kw)
    n_evaluated = len(relevant) if no_relevant == "skip" else len(queries)
    want = {
        "n_queries": len(queries),
        "n_evaluated": n_evaluated,
        "n_skipped": len(queries) - n_evaluated,
        "n_empty": sum(length.get(u, 0) == 0 for u in queries),
        **{
            f"n_short@{k}": sum(0 < length.get(u, 0) < k for u in queries)
            for k in (1, 3, 5)
        },
        "n_lists_without_held_out": sum(
            n > 0 and u not in queries for u, n in length.items()
        ),
    }
    assert list(got)[-len(want) :] == list(want)  # after the values, in order
    assert {c: got[c] for c in want} == want
    # the counters of the reports by segment on the same rows: one set
    y, s, q = long_form(case, "score", labels=True)
    segments = ranking_report(
        y,
        s,
        query_id=q,
        k=(1, 3, 5),
        metrics=["ndcg", "recall"],
        groups=np.zeros(y.shape[0]),
        no_relevant=no_relevant,
        output_dict=True,
    )
    assert segments["coverage"]["overall"] == {
        c: v for c, v in want.items() if c != "n_lists_without_held_out"
    }
    # the beyond-accuracy metrics alone: evaluated are the users with a
    # relevant held-out item, as the ranking metrics' default counts them
    alone = quiet(
        report, case, metrics=["catalog_coverage"], catalog=case.catalog, **kw
    )
    want["n_evaluated"] = len(relevant)
    want["n_skipped"] = len(queries) - len(relevant)
    assert {c: alone[c] for c in want} == want


def test_exclusion_warns_with_the_count():
    reco = {"user_id": ["a", "a"], "item_id": ["x", "y"], "rank": [1, 2]}
    held = {"user_id": ["a", "a", "b"], "item_id": ["y", "z", "x"]}
    excl = {"user_id": ["a", "b", "b"], "item_id": ["x", "x", "q"]}
    with pytest.warns(UserWarning, match="removes 1 held-out"):
        got = recommendation_table_report(
            reco,
            held,
            rank_col="rank",
            exclude=excl,
            k=1,
            output_dict=True,
            metrics=["precision", "recall"],
        )
    # a's list closes up: y is first (P@1 = 1, R@1 = 1/2); b's only held-out
    # pair is excluded: still relevant, never found (P@1 = R@1 = 0), as in
    # factor_ranking_report; means (1 + 0) / 2 and (1/2 + 0) / 2
    assert got["precision@1"] == 0.5
    assert got["recall@1"] == 0.25
    assert got["n_queries"] == 2


# ---------------------------------------------------------------------------
# Ids
# ---------------------------------------------------------------------------


def test_lookalike_ids_are_distinct():
    reco = {
        "user_id": ["7", "7", "007", "007"],
        "item_id": ["1", "01", "01", "1"],
        "rank": [1, 2, 1, 2],
    }
    held = {"user_id": ["7", "007", "07"], "item_id": ["01", "1", "1"]}
    got = recommendation_table_report(
        reco,
        held,
        rank_col="rank",
        k=1,
        metrics=["recall", "mrr"],
        per_query=True,
        output_dict=True,
    )
    # sorted ids: "007", "07", "7"; "7" finds "01" at rank 2, "007" finds
    # "1" at rank 2, "07" has no list
    assert list(got["user_id"]) == ["007", "07", "7"]
    assert list(got["recall@1"]) == [0.0, 0.0, 0.0]
    got = recommendation_table_report(
        reco,
        held,
        rank_col="rank",
        k=2,
        metrics=["mrr"],
        per_query=True,
        output_dict=True,
    )
    assert list(got["mrr@2"]) == [0.5, 0.0, 0.5]


def test_strings_never_match_numbers():
    reco = {"user_id": [7, 7], "item_id": ["a", "b"], "rank": [1, 2]}
    held = {"user_id": ["7"], "item_id": ["a"]}
    with pytest.raises(TypeError, match=r"user ids are numbers in .*strings in"):
        recommendation_table_report(reco, held, rank_col="rank")
    held = {"user_id": [7], "item_id": [1]}
    with pytest.raises(TypeError, match="item ids are"):
        recommendation_table_report(reco, held, rank_col="rank")


def test_integral_float_ids_meet_int_ids():
    reco = {"user_id": [7, 7], "item_id": [1, 2], "rank": [1, 2]}
    held = {"user_id": np.array([7.0]), "item_id": np.array([2.0])}
    got = recommendation_table_report(
        reco, held, rank_col="rank", k=2, metrics=["mrr"], output_dict=True
    )
    assert got["mrr@2"] == 0.5
    held = {"user_id": np.array([7.5]), "item_id": np.array([2.0])}
    with pytest.raises(TypeError, match="non-integer float ids"):
        recommendation_table_report(reco, held, rank_col="rank")


def test_mixed_id_types_in_a_column():
    reco = {
        "user_id": np.array([7, "7"], dtype=object),
        "item_id": ["a", "b"],
        "rank": [1, 1],
    }
    held = {"user_id": np.array([7], dtype=object), "item_id": ["a"]}
    with pytest.raises(TypeError, match="mixes ids of types int, str"):
        recommendation_table_report(reco, held, rank_col="rank")


# ---------------------------------------------------------------------------
# Table kinds
# ---------------------------------------------------------------------------


def convert(table, kind):
    if kind == "dict":
        return table
    if kind.startswith("polars"):  # from the columns: no pandas, no pyarrow
        pl = pytest.importorskip("polars")
        out = pl.DataFrame({c: list(v) for c, v in table.items()})
        return out.lazy() if kind == "polars-lazy" else out
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({c: list(v) for c, v in table.items()})
    if kind == "pandas":
        return frame
    if kind == "pandas-categorical":
        for c in ("user_id", "item_id"):
            frame[c] = frame[c].astype("category")
        return frame
    if kind == "pandas-string":
        for c in ("user_id", "item_id"):
            frame[c] = frame[c].astype("string")
        return frame
    pa = pytest.importorskip("pyarrow")
    out = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "pyarrow-dictionary":
        import pyarrow.compute as pc

        for c in ("user_id", "item_id"):
            j = out.column_names.index(c)
            out = out.set_column(j, c, pc.dictionary_encode(out.column(c)))
    return out


KINDS = [
    "dict",
    "pandas",
    "pandas-categorical",
    "pandas-string",
    "polars",
    "polars-lazy",
    "pyarrow",
    "pyarrow-dictionary",
]


@pytest.mark.parametrize("kind", KINDS)
def test_table_kinds_give_the_same_values(kind):
    case = Case(4, labels=True, exclude=True, ties=True)
    reco, held, excl = tables(case)
    # training pairs: every held-out user with every second catalogue item
    train = [(u, i) for u, *_ in case.held for i in case.catalog[::2]]
    train = as_dict(sorted(set(train)), PAIR_COLS)
    kw = dict(
        score_col="score",
        label_col="label",
        k=(2, 5),
        catalog=case.catalog,
        metrics=["ndcg", "map", "fallout", "catalog_coverage", "serendipity"],
        output_dict=True,
    )
    want = quiet(
        recommendation_table_report,
        reco,
        held,
        exclude=excl,
        item_popularity=train,
        **kw,
    )
    got = quiet(
        recommendation_table_report,
        convert(reco, kind),
        convert(held, kind),
        exclude=convert(excl, kind),
        item_popularity=convert(train, kind),
        **kw,
    )
    assert got == want
    assert want["serendipity@5"] > 0


def test_dictionary_columns_chunked_and_with_unused_entries():
    # Arrow dictionary columns whose chunks carry different dictionaries, and
    # dictionaries holding ids no row uses (a polars categorical of a global
    # string cache, a filtered Arrow table): the values of plain columns.
    pa = pytest.importorskip("pyarrow")
    case = Case(5, exclude=True, ties=True)
    reco, held, excl = tables(case)
    kw = dict(score_col="score", k=(1, 3), metrics=["ndcg", "mrr", "catalog_coverage"])
    kw.update(catalog=case.catalog, output_dict=True)
    want = quiet(recommendation_table_report, reco, held, exclude=excl, **kw)
    unused = pa.array(["never used", "nor this"])

    def chunked_dictionary(values):
        values = pa.array(list(values))
        half = len(values) // 2
        chunks = [  # each chunk encoded alone, then padded with unused ids
            pa.DictionaryArray.from_arrays(
                part.dictionary_encode().indices,
                pa.concat_arrays([part.dictionary_encode().dictionary, unused]),
            )
            for part in (values.slice(0, half), values.slice(half))
        ]
        return pa.chunked_array(chunks)

    def arrow(table):
        cols = {
            c: chunked_dictionary(v) if c in ("user_id", "item_id") else v
            for c, v in table.items()
        }
        return pa.table(cols)

    got = quiet(
        recommendation_table_report, arrow(reco), arrow(held), exclude=arrow(excl), **kw
    )
    assert got == want
    pl = pytest.importorskip("polars")
    got = quiet(
        recommendation_table_report,
        pl.from_arrow(arrow(reco)),
        pl.from_arrow(arrow(held)),
        exclude=pl.from_arrow(arrow(excl)),
        **kw,
    )
    assert got == want


def test_record_batch_and_unused_duplicate_columns():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    case = Case(3)
    reco, held, _ = tables(case)
    kw = dict(rank_col="rank", k=3, metrics=["recall"], output_dict=True)
    want = recommendation_table_report(reco, held, **kw)
    batch = pa.RecordBatch.from_pydict({c: list(v) for c, v in reco.items()})
    assert recommendation_table_report(batch, held, **kw) == want
    # a column name repeated among the columns not read is no error
    frame = convert(reco, "pandas")
    frame = pd.concat([frame, frame[["score", "score"]]], axis=1)
    assert recommendation_table_report(frame, held, **kw) == want
    arrow = pa.table(
        [pa.array(list(reco[c])) for c in ("user_id", "item_id", "rank", "rank")],
        names=["user_id", "item_id", "rank", "rank"],
    )
    with pytest.raises(ValueError, match="several columns named 'rank'"):
        recommendation_table_report(arrow, held, **kw)


def test_object_ids_are_not_merged_by_equality():
    # a pandas column of Python objects is read as it is, not hashed:
    # True == 1 and 1.0 == 1 would merge in a hash pass
    pd = pytest.importorskip("pandas")
    held = pd.DataFrame({"user_id": [1], "item_id": [1]})
    for odd in (True, 1.0):
        reco = pd.DataFrame(
            {
                "user_id": pd.Series([1, odd], dtype=object),
                "item_id": pd.Series([1, 2], dtype=object),
                "rank": [1, 2],
            }
        )
        kind = type(odd).__name__
        with pytest.raises(TypeError, match=f"mixes ids of types {kind}, int|int, "):
            recommendation_table_report(reco, held, rank_col="rank")


def test_categorical_of_ints_meets_int_ids():
    # a pandas categorical of ints holds numbers: they meet int ids
    pd = pytest.importorskip("pandas")
    reco = pd.DataFrame(
        {
            "user_id": pd.Series([7, 7, 8], dtype="category"),
            "item_id": pd.Series([1, 2, 1], dtype="category"),
            "rank": [1, 2, 1],
        }
    )
    held = {"user_id": np.array([7, 8]), "item_id": np.array([2, 3])}
    got = recommendation_table_report(
        reco, held, rank_col="rank", k=2, metrics=["mrr"], output_dict=True
    )
    assert got["mrr@2"] == 0.25  # user 7: item 2 at rank 2; user 8: not found


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_catalog_as_a_column(kind):
    pd = pytest.importorskip("pandas")
    case = Case(2)
    reco, held, _ = tables(case)
    column = pd.Series(case.catalog, dtype=object)
    if kind == "polars":
        column = pytest.importorskip("polars").Series(case.catalog)
    elif kind == "pyarrow":
        column = pytest.importorskip("pyarrow").array(case.catalog)
    kw = dict(rank_col="rank", metrics=["catalog_coverage"], k=3, output_dict=True)
    assert recommendation_table_report(
        reco, held, catalog=column, **kw
    ) == recommendation_table_report(reco, held, catalog=case.catalog, **kw)


def test_inputs_not_modified():
    pd = pytest.importorskip("pandas")
    case = Case(6, exclude=True, labels=True)
    reco, held, excl = (convert(t, "pandas") for t in tables(case))
    copies = [t.copy() for t in (reco, held, excl)]
    quiet(
        recommendation_table_report,
        reco,
        held,
        rank_col="rank",
        label_col="label",
        exclude=excl,
        k=3,
    )
    for before, after in zip(copies, (reco, held, excl), strict=True):
        pd.testing.assert_frame_equal(before, after)
    reco, held, excl = tables(case)  # dicts of arrays, scores as given
    copies = [{c: v.copy() for c, v in t.items()} for t in (reco, held, excl)]
    quiet(
        recommendation_table_report,
        reco,
        held,
        score_col="score",
        label_col="label",
        exclude=excl,
        k=3,
        metrics=["ndcg", "catalog_coverage"],
        catalog=case.catalog,
    )
    for before, after in zip(copies, (reco, held, excl), strict=True):
        for c in before:
            np.testing.assert_array_equal(before[c], after[c])


def test_per_query_dataframe_with_user_column():
    pd = pytest.importorskip("pandas")
    reco = pd.DataFrame({"u": ["b", "a"], "i": [1, 2], "r": [1, 1]})
    held = pd.DataFrame({"u": ["a", "b"], "i": [2, 2]})
    got = recommendation_table_report(
        reco,
        held,
        user_col="u",
        item_col="i",
        rank_col="r",
        k=1,
        metrics=["precision"],
        per_query=True,
    )
    assert isinstance(got, pd.DataFrame)
    assert list(got["u"]) == ["a", "b"]
    assert list(got["precision@1"]) == [1.0, 0.0]


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

RECO = {"user_id": ["a", "a", "b"], "item_id": ["x", "y", "x"], "rank": [1, 2, 1]}
HELD = {"user_id": ["a", "b"], "item_id": ["y", "z"]}


def call(reco=RECO, held=HELD, **kw):
    kw.setdefault("rank_col", "rank")
    return recommendation_table_report(reco, held, **kw)


def test_missing_column_lists_available():
    with pytest.raises(
        ValueError,
        match=r"rank_col='pos'.*available columns: "
        r"'user_id', 'item_id', 'rank'",
    ):
        call(rank_col="pos")
    with pytest.raises(
        ValueError, match="label_col='label' is not a column of interactions"
    ):
        call(label_col="label")
    with pytest.raises(
        ValueError, match="user_col='user' is not a column of recommendations"
    ):
        call(user_col="user")


def test_rank_xor_score():
    with pytest.raises(ValueError, match="exactly one of rank_col"):
        call(rank_col=None)
    with pytest.raises(ValueError, match="exactly one of rank_col"):
        call(score_col="rank")
    with pytest.raises(TypeError, match="user_col must be a column name"):
        call(user_col=1)


@pytest.mark.parametrize(
    "ranks, message",
    [
        ([1, 3, 1], r"row 1 \(rank 3\) breaks that"),
        ([1, 1, 1], r"row 1 \(rank 1\) breaks that"),
        ([0, 1, 1], "integers >= 1"),
        ([1, 1.5, 1], "integers >= 1"),
        ([2, 1, 2], r"row 0 \(rank 2\) breaks that for a user with 1 row"),
    ],
)
def test_rank_gaps_and_repeats(ranks, message):
    reco = dict(RECO, rank=ranks)
    if ranks == [2, 1, 2]:
        reco = {"user_id": ["b", "a", "a"], "item_id": ["x", "x", "y"], "rank": ranks}
    with pytest.raises(ValueError, match=message):
        call(reco)


def test_duplicate_pairs():
    reco = {"user_id": ["a", "a", "a"], "item_id": ["x", "y", "x"], "rank": [1, 2, 3]}
    with pytest.raises(
        ValueError,
        match=r"recommendations has the pair \(user 'a', "
        r"item 'x'\) twice, at rows 0 and 2",
    ):
        call(reco)
    held = {"user_id": ["a", "b", "a"], "item_id": ["y", "z", "y"]}
    with pytest.raises(ValueError, match=r"interactions has the pair .* rows 0 and 2"):
        call(held=held)


@pytest.mark.parametrize("kind", ["dict", "pandas", "polars", "pyarrow"])
def test_nulls_named_by_column_and_row(kind):
    reco = dict(RECO, item_id=np.array(["x", None, "x"], dtype=object))
    with pytest.raises(
        ValueError,
        match=r"column 'item_id' \(item_col\) of "
        r"recommendations has 1 null value\(s\), the first at row 1",
    ):
        call(convert(reco, kind), convert(HELD, kind))
    held = dict(HELD, label=np.array([1.0, np.nan]))
    with pytest.raises(
        ValueError,
        match=r"column 'label' \(label_col\) of "
        r"interactions has 1 null value\(s\), the first at row 1",
    ):
        call(convert(RECO, kind), convert(held, kind), label_col="label")
    held = dict(HELD, user_id=np.array([None, "b"], dtype=object))
    with pytest.raises(
        ValueError,
        match=r"'user_id' \(user_col\) of interactions "
        r"has 1 null value\(s\), the first at row 0",
    ):
        call(convert(RECO, kind), convert(held, kind))


def test_catalogue_errors():
    with pytest.raises(
        ValueError,
        match=r"recommendations has 1 row\(s\) whose item "
        r"is not in catalog, the first at row 1 \(item 'y'\)",
    ):
        call(catalog=["x", "z"])
    with pytest.raises(ValueError, match="catalog has the item 'x' more than once"):
        call(catalog=["x", "y", "x"])
    with pytest.raises(ValueError, match="catalog_coverage depend on the catalogue"):
        call(metrics=["catalog_coverage"])
    with pytest.raises(ValueError, match="fallout depend on the catalogue"):
        call(metrics=["fallout"])
    with pytest.raises(ValueError, match="catalog has 1 null"):
        call(catalog=np.array(["x", None], dtype=object), metrics=["recall"])
    train = {"user_id": ["c"], "item_id": ["w"]}
    with pytest.raises(ValueError, match=r"item_popularity has 1 row.*not in catalog"):
        call(catalog=["x", "y"], metrics=["novelty"], item_popularity=train)
    with pytest.raises(ValueError, match="counts per item needs catalog="):
        call(metrics=["novelty"], item_popularity=[1, 2])


def test_labels_and_scores_checked():
    held = dict(HELD, label=[1, -1])
    with pytest.raises(ValueError, match=r"grades >= 0; row 1 has -1"):
        call(held=held, label_col="label")
    held = dict(HELD, label=["1", "0"])
    with pytest.raises(TypeError, match="'label' .* must be numeric"):
        call(held=held, label_col="label")
    reco = dict(RECO, score=["a", "b", "c"])
    with pytest.raises(TypeError, match="'score' .* must be numeric"):
        call(reco, rank_col=None, score_col="score")


def test_options_and_metrics_checked():
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        call(metrics=["nope"])
    with pytest.raises(TypeError, match="unknown option"):
        call(bogus=1)
    with pytest.raises(TypeError, match="item_popularity: options of the beyond"):
        call(metrics=["recall"], item_popularity=[1, 2])
    with pytest.raises(ValueError, match="no per-query value"):
        call(metrics=["recall", "catalog_coverage"], catalog=["x", "y"], per_query=True)
    with pytest.raises(TypeError, match="gain: options of the ranking"):
        call(metrics=["catalog_coverage"], catalog=["x", "y"], gain="exponential")
    with pytest.raises(ValueError, match="convention must be"):
        call(convention="nope")
    with pytest.raises(TypeError, match="must be a table"):
        call(reco=[("a", "x", 1)])
    with pytest.raises(ValueError, match="no user has a held-out interaction"):
        call(held={"user_id": [], "item_id": []})


def test_catalogue_metrics_by_their_function_refused():
    # fall-out with a tie rule no shared ranking serves would be computed
    # by fallout_at_k, which counts a user's rows, not the catalogue
    with pytest.raises(ValueError, match="fallout@1 with these options"):
        call(metrics=["fallout"], catalog=["x", "y", "z"], k=1, ties="pessimistic")
    got = call(metrics=["recall"], k=2, ties="pessimistic", output_dict=True)
    assert got["recall@2"] == 0.5  # a: y at rank 2 of [x, y]; b: z not listed


def test_duplicate_pandas_column_names():
    pd = pytest.importorskip("pandas")
    reco = pd.DataFrame(
        [["a", "x", 1, 1]], columns=["user_id", "item_id", "rank", "rank"]
    )
    with pytest.raises(ValueError, match="several columns named 'rank'"):
        call(reco, convert(HELD, "pandas"))


# ---------------------------------------------------------------------------
# factor_ranking_report(return_top_k=True)
# ---------------------------------------------------------------------------


def factor_case(seed, n_users=150, n_items=60, ties=False):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n_users, 4))
    V = rng.normal(size=(n_items, 4))
    if ties:  # coarse factors: many equal scores
        U, V = np.round(U), np.round(V)
    train = sp.csr_matrix(rng.random((n_users, n_items)) < 0.15)
    held = (rng.random((n_users, n_items)) < 0.06) & ~train.toarray()
    grades = held * rng.integers(1, 4, held.shape)
    return U, V, train, sp.csr_matrix(grades)


def held_table(y_true):
    y = sp.coo_matrix(y_true)
    return {"user_id": y.row, "item_id": y.col, "label": y.data}


def slow_top_k(U, V, train, k):
    S = U @ V.T
    S[train.toarray()] = -np.inf
    rows = []
    for u in range(S.shape[0]):
        order = sorted(
            (j for j in range(S.shape[1]) if S[u, j] > -np.inf),
            key=lambda j: (-S[u, j], j),
        )
        rows += [(u, j, r + 1, S[u, j]) for r, j in enumerate(order[:k])]
    return rows


@pytest.mark.parametrize("working_memory", [None, 0.05])
def test_factor_top_k_table(working_memory):
    U, V, train, y = factor_case(0, ties=True)
    _, top = factor_ranking_report(
        y,
        U,
        V,
        exclude=train,
        k=(3, 7),
        output_dict=True,
        return_top_k=True,
        working_memory=working_memory,
    )
    top = {c: np.asarray(top[c]) for c in ("user_id", "item_id", "rank", "score")}
    want = slow_top_k(U, V, train, 7)
    got = list(
        zip(*(top[c] for c in ("user_id", "item_id", "rank", "score")), strict=True)
    )
    assert [g[:3] for g in got] == [w[:3] for w in want]
    np.testing.assert_array_equal([g[3] for g in got], [w[3] for w in want])


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n_items", [60, 1200])  # 1200: the packed path
def test_factor_top_k_reevaluated(ties, n_items):
    U, V, train, y = factor_case(1, n_items=n_items, ties=ties)
    options = dict(ignore_ties=True) if ties else {}
    names = ["precision", "recall", "map", "ndcg", "mrr"]
    # the beyond-accuracy metrics count ties exactly whatever ignore_ties
    # (they read every tied item): equal to the lists' without ties
    names += [] if ties else ["catalog_coverage", "gini_index"]
    report_, top = factor_ranking_report(
        y,
        U,
        V,
        exclude=train,
        k=(2, 5),
        metrics=names,
        output_dict=True,
        return_top_k=True,
        working_memory=0.2,
        n_threads=2,
        **options,
    )
    again = recommendation_table_report(
        top,
        held_table(y),
        rank_col="rank",
        label_col="label",
        k=(2, 5),
        metrics=names,
        catalog=np.arange(n_items),
        output_dict=True,
        **options,
    )
    for name, value in report_.items():
        np.testing.assert_equal(again[name], value, err_msg=name)


def test_factor_top_k_callable_and_text():
    U, V, train, y = factor_case(2)
    text, top = factor_ranking_report(
        y,
        lambda users: U[users] @ V.T,
        exclude=train,
        k=4,
        metrics=["ndcg"],
        return_top_k=True,
    )
    assert text.startswith(" ")
    _, top2 = factor_ranking_report(
        y, U, V, exclude=train, k=4, metrics=["ndcg"], return_top_k=True
    )
    for c in ("user_id", "item_id", "rank"):
        np.testing.assert_array_equal(np.asarray(top[c]), np.asarray(top2[c]))
    with pytest.raises(TypeError, match="return_top_k must be True or False"):
        factor_ranking_report(y, U, V, return_top_k="yes")
    out = factor_ranking_report(y, U, V, k=4, metrics=["ndcg"], output_dict=True)
    assert isinstance(out, dict)  # without return_top_k: the report alone
