"""The conventions of issue 12: tie rules, precision's denominator, rank
discounts and gain tables, checked against the references of
``tests/_reference.py`` and on every input form."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm
from tests._reference import NAIVE, NAIVE_MORE, random_case, random_weights

RTOL = ATOL = 1e-12

RANKING = [n for n in NAIVE if n != "group_auc_score"] + [
    n for n in NAIVE_MORE if n != "expected_reciprocal_rank_at_k"
]
NO_K = ("r_precision_score", "bpref_score")
REFERENCE = {**NAIVE, **NAIVE_MORE}


def _close(a, b):
    assert_allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)


def _cases():
    out = []
    for seed, (n, m, levels) in enumerate([(12, 6, 3), (10, 8, 2), (6, 9, 4)]):
        y_true, y_score = random_case(seed + 70, n, m, score_levels=levels)
        out.append((y_true, y_score, random_weights(seed, n)))
    return out


CASES = _cases()


def _kw(name, k):
    return {} if name in NO_K else {"k": k}


# ---------------------------------------------------------------------------
# ties=
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("rule", ["pessimistic", "optimistic", "input_order"])
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("name", RANKING)
def test_tie_rules_match_reference(name, k, rule):
    func, naive = getattr(srm, name), REFERENCE[name]
    for y_true, y_score, w in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = func(y_true, y_score, ties=rule, average=None, **_kw(name, k))
            want = naive(y_true, y_score, ties=rule, average=None, **_kw(name, k))
        _close(got, want)
        got = func(y_true, y_score, ties=rule, sample_weight=w, **_kw(name, k))
        want = naive(y_true, y_score, ties=rule, sample_weight=w, **_kw(name, k))
        _close(got, want)


def test_err_tie_rules_match_reference():
    # ERR's pessimistic / optimistic orders are deterministic: no tie rule.
    name = "expected_reciprocal_rank_at_k"
    for y_true, y_score, _ in CASES:
        for rule in ("pessimistic", "optimistic"):
            got = srm.expected_reciprocal_rank_at_k(y_true, y_score, k=3, ties=rule)
            _close(got, REFERENCE[name](y_true, y_score, k=3, ties=rule))


MONOTONE = [
    n
    for n in RANKING
    if n not in ("fallout_at_k", "rbp_residual_at_k")  # lower is better / no grades
]


@pytest.mark.parametrize("name", MONOTONE)
def test_pessimistic_expected_optimistic_are_ordered(name):
    func = getattr(srm, name)
    differ = False
    for y_true, y_score, _ in CASES:
        kw = _kw(name, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            low = func(y_true, y_score, ties="pessimistic", average=None, **kw)
            mid = func(y_true, y_score, average=None, **kw)
            high = func(y_true, y_score, ties="optimistic", average=None, **kw)
        ok = ~np.isnan(mid)
        assert (low[ok] <= mid[ok] + 1e-12).all()
        assert (mid[ok] <= high[ok] + 1e-12).all()
        differ |= bool((low[ok] < high[ok]).any())
    assert differ  # the cases have informative ties


def test_fallout_tie_rules_are_reversed():
    y_true, y_score, _ = CASES[0]
    low = srm.fallout_at_k(y_true, y_score, k=3, ties="optimistic", average=None)
    high = srm.fallout_at_k(y_true, y_score, k=3, ties="pessimistic", average=None)
    ok = ~np.isnan(low)
    assert (low[ok] <= high[ok]).all() and (low[ok] < high[ok]).any()


def test_ties_input_order_is_ignore_ties():
    y_true, y_score, w = CASES[1]
    for func in (srm.ndcg_at_k, srm.average_precision_at_k, srm.bpref_score):
        assert func(y_true, y_score, ties="input_order", sample_weight=w) == func(
            y_true, y_score, ignore_ties=True, sample_weight=w
        )
        assert func(y_true, y_score, ties="expected") == func(y_true, y_score)


def test_ties_contradicting_ignore_ties_raises():
    with pytest.raises(ValueError, match="ignore_ties=True means ties='input_order'"):
        srm.ndcg_at_k([[1, 0]], [[1, 1]], ties="pessimistic", ignore_ties=True)
    with pytest.raises(ValueError, match="ties must be one of"):
        srm.ndcg_at_k([[1, 0]], [[1, 1]], ties="worst")


@pytest.mark.parametrize("rule", ["pessimistic", "optimistic"])
@pytest.mark.parametrize("name", ["ndcg_at_k", "average_precision_at_k", "bpref_score"])
def test_tie_rules_on_every_input_form(name, rule):
    func = getattr(srm, name)
    y_true, y_score, w = CASES[0]
    kw = {"ties": rule, "average": None, **_kw(name, 3)}
    dense = func(y_true, y_score, sample_weight=w, **kw)
    sparse = func(sp.csr_matrix(y_true), y_score, sample_weight=w, **kw)
    n, m = y_true.shape
    r, c = np.divmod(np.random.default_rng(0).permutation(n * m), m)
    long = func(
        y_true[r, c], y_score[r, c], query_id=r, sample_weight=w[r], **kw
    )  # rows shuffled: the rule does not depend on row order
    _close(sparse, dense)
    _close(long, dense)


# ---------------------------------------------------------------------------
# precision_denominator=
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("average", [None, "queries", "micro"])
@pytest.mark.parametrize("k", [None, 2, 5, 20])
def test_precision_denominator_retrieved(k, average):
    for y_true, y_score, w in CASES:
        got = srm.precision_at_k(
            y_true,
            y_score,
            k=k,
            precision_denominator="retrieved",
            sample_weight=w,
            average=average,
        )
        want = NAIVE["precision_at_k"](
            y_true,
            y_score,
            k=k,
            precision_denominator="retrieved",
            sample_weight=w,
            average=average,
        )
        _close(got, want)


def test_precision_denominator_hand_worked():
    # 3 items retrieved, 1 relevant among them; k = 5.
    y_true, y_score = [[1, 0, 0, 1]], [[3, 2, 1, -np.inf]]
    assert srm.precision_at_k(y_true, y_score, k=5) == 1 / 5
    assert srm.precision_at_k(
        y_true, y_score, k=5, precision_denominator="retrieved"
    ) == (1 / 3)
    with pytest.raises(ValueError, match="precision_denominator must be one of"):
        srm.precision_at_k(y_true, y_score, k=5, precision_denominator="hits")


# ---------------------------------------------------------------------------
# discount= and gain tables
# ---------------------------------------------------------------------------
def _harmonic(ranks):
    return 1.0 / np.sqrt(ranks)


@pytest.mark.parametrize("discount", ["reciprocal", _harmonic])
@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("name", ["dcg_at_k", "ndcg_at_k"])
def test_discounts_match_reference(name, k, discount):
    func, naive = getattr(srm, name), NAIVE[name]
    for y_true, y_score, _ in CASES:
        for ignore_ties in (False, True):
            kw = dict(k=k, discount=discount, ignore_ties=ignore_ties)
            _close(
                func(y_true, y_score, average=None, **kw),
                naive(y_true, y_score, average=None, **kw),
            )


LABEL_GAIN = [0, 1, 3, 7, 15]  # LightGBM's default label_gain: 2**i - 1
TREC_TABLE = {1: 1.0, 2: 5.0, 3: 10.0}  # a trec_eval -G style gain table


def _cubic(grades):
    return grades**3


@pytest.mark.parametrize("gain", [LABEL_GAIN, TREC_TABLE, _cubic])
@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("name", ["dcg_at_k", "ndcg_at_k"])
def test_gain_tables_match_reference(name, k, gain):
    func, naive = getattr(srm, name), NAIVE[name]
    for y_true, y_score, w in CASES:
        _close(
            func(y_true, y_score, k=k, gain=gain, sample_weight=w),
            naive(y_true, y_score, k=k, gain=gain, sample_weight=w),
        )


def test_label_gain_is_exponential_gain():
    for y_true, y_score, _ in CASES:
        _close(
            srm.ndcg_at_k(y_true, y_score, k=3, gain=LABEL_GAIN, average=None),
            srm.ndcg_at_k(y_true, y_score, k=3, gain="exponential", average=None),
        )


def test_gain_table_errors():
    with pytest.raises(ValueError, match=r"no gain for the grade\(s\) \[3.0\]"):
        srm.dcg_at_k([[3, 1]], [[1, 2]], gain={1: 1.0, 2: 2.0})
    with pytest.raises(ValueError, match="must not decrease"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], gain={1: 3.0, 2: 2.0})
    with pytest.raises(ValueError, match="grade 0 must gain 0"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], gain={0: 1.0, 1: 3.0, 2: 4.0})
    with pytest.raises(ValueError, match="gain 0 for grade 0"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], gain=lambda g: g + 1)
    with pytest.raises(ValueError, match="gain must be"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], gain=3)
    with pytest.raises(ValueError, match="discount must be one of"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], discount="linear")
    with pytest.raises(ValueError, match="one finite weight per rank"):
        srm.dcg_at_k([[2, 1]], [[1, 2]], discount=lambda r: r[:1])


# ---------------------------------------------------------------------------
# k per query
# ---------------------------------------------------------------------------
AT_K = [
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_rate_at_k",
    "reciprocal_rank_at_k",
    "average_precision_at_k",
    "dcg_at_k",
    "ndcg_at_k",
    "fallout_at_k",
    "expected_reciprocal_rank_at_k",
    "rank_biased_precision_at_k",
    "rbp_residual_at_k",
]


@pytest.mark.parametrize("rule", ["expected", "input_order"])
@pytest.mark.parametrize("name", AT_K)
def test_k_per_query_is_each_query_at_its_k(name, rule):
    func = getattr(srm, name)
    for y_true, y_score, w in CASES:
        kw = {"ties": rule}
        if name == "average_precision_at_k":
            kw["ap_denominator"] = "min_k"
        if name == "expected_reciprocal_rank_at_k":  # the whole input's top grade
            kw["max_grade"] = float(y_true.max())
        ks = np.random.default_rng(len(y_true)).integers(1, 7, size=len(y_true))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = func(y_true, y_score, k=ks, average=None, **kw)
            want = [
                func(y_true[[q]], y_score[[q]], k=int(ks[q]), **kw)
                for q in range(len(y_true))
            ]
            mean = func(y_true, y_score, k=ks, sample_weight=w, **kw)
        _close(got, want)
        ok = ~np.isnan(got)
        _close(mean, np.dot(w[ok], got[ok]) / w[ok].sum())
        n, m = y_true.shape
        r, c = np.divmod(np.arange(n * m), m)
        long = func(y_true[r, c], y_score[r, c], query_id=r, k=ks, average=None, **kw)
        _close(long, got)


def test_k_per_query_micro_precision():
    y_true, y_score, w = CASES[0]
    ks = np.arange(len(y_true)) % 4 + 1
    hits = srm.precision_at_k(y_true, y_score, k=ks, average=None) * ks
    ok = ~np.isnan(hits)
    got = srm.precision_at_k(y_true, y_score, k=ks, average="micro", sample_weight=w)
    _close(got, np.dot(w[ok], hits[ok]) / np.dot(w[ok], ks[ok]))


def test_k_per_query_errors():
    with pytest.raises(ValueError, match="2 cut-offs for 1 queries"):
        srm.ndcg_at_k([[1, 0]], [[1, 2]], k=[1, 2])
    with pytest.raises(ValueError, match="per-query k must be >= 1"):
        srm.ndcg_at_k([[1, 0]], [[1, 2]], k=[0])
    with pytest.raises(ValueError, match="one cut-off per query"):
        srm.ndcg_at_k([[1, 0]], [[1, 2]], k=[1.5])


def test_mixed_int_and_str_query_ids_are_refused():
    """numpy reads [1, "1"] as two equal strings: refuse, never merge them."""
    y, s = [1, 0, 1, 0], [1.0, 2.0, 3.0, 4.0]
    for func in (srm.precision_at_k, srm.group_auc_score):
        with pytest.raises(TypeError, match="query_id mixes"):
            func(y, s, query_id=[1, "1", 1, "1"])
        with pytest.raises(TypeError, match="query_id mixes"):
            func(y, s, query_id=np.array([1, "1", 1, "1"], dtype=object))
    # one type is fine, in lists and tuples
    assert srm.precision_at_k(y, s, query_id=("a", "b", "a", "b"), k=1) == 1.0
    assert srm.precision_at_k(y, s, query_id=[1, 2, 1, 2], k=1) == 1.0


# ---------------------------------------------------------------------------
# ndcg_at_k(ideal="k") and ap_denominator="k" (RecTools' defaults / options)
# ---------------------------------------------------------------------------
from tests._reference import tie_orderings  # noqa: E402


def _naive_ndcg_ideal_k(rel, score, k, gain, discount):
    """Mean over the orderings of tied items of DCG@k over the DCG of k
    items of the query's top grade (k=None: every retrieved rank)."""
    g = (lambda x: 2.0**x - 1) if gain == "exponential" else (lambda x: float(x))
    w = (lambda i: 1 / np.log2(i + 1)) if discount == "log" else (lambda i: 1.0 / i)
    if max(rel) <= 0:
        return np.nan
    n_ret = sum(1 for s in score if s > -np.inf)
    cut = n_ret if k is None else k
    ideal = g(max(rel)) * sum(w(i) for i in range(1, cut + 1))
    values = []
    for order in tie_orderings(tuple(score), k):
        top = order if k is None else order[:k]
        dcg = sum(g(rel[c]) * w(i) for i, c in enumerate(top, start=1))
        values.append(dcg / ideal if ideal > 0 else 0.0)
    return float(np.mean(values))


def _naive_ap_over_k(rel, score, k):
    values = []
    for order in tie_orderings(tuple(score), k):
        hits, total = 0, 0.0
        for i, c in enumerate(order[:k], start=1):
            if rel[c] > 0:
                hits += 1
                total += hits / i
        values.append(total / k)
    return float(np.mean(values)) if max(rel) > 0 else np.nan


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 3, 12])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("discount", ["log", "reciprocal"])
def test_ndcg_ideal_k_matches_reference(seed, k, gain, discount):
    # graded, ties, -inf (some relevant), queries without relevant items,
    # k above the row length
    y_true, y_score = random_case(seed, 7, 6, score_levels=3)
    got = srm.ndcg_at_k(
        y_true, y_score, k=k, gain=gain, discount=discount, ideal="k", average=None
    )
    want = [
        _naive_ndcg_ideal_k(list(r), list(s), k, gain, discount)
        for r, s in zip(y_true, y_score, strict=True)
    ]
    _close(got, want)
    # every input form: sparse, long form with rows shuffled and padding
    # rows (-inf, grade 0) that change nothing
    _close(
        srm.ndcg_at_k(
            sp.csr_matrix(y_true),
            y_score,
            k=k,
            gain=gain,
            discount=discount,
            ideal="k",
            average=None,
        ),
        got,
    )
    n, m = y_true.shape
    r, c = np.divmod(np.arange(n * m), m)
    if k is not None:  # the long form keeps each query's row order: ties
        pad_r = np.arange(n)
        yt = np.concatenate([y_true[r, c], np.zeros(n)])
        ys = np.concatenate([y_score[r, c], np.full(n, -np.inf)])
        q = np.concatenate([r, pad_r])
        long = srm.ndcg_at_k(
            yt,
            ys,
            query_id=q,
            k=k,
            gain=gain,
            discount=discount,
            ideal="k",
            average=None,
        )
        _close(long, got)


def test_ndcg_ideal_k_hand_worked_and_bounds():
    # one relevant item at rank 1, k=3: 1 / (1 + 1/log2(3) + 1/2)
    value = srm.ndcg_at_k([[1, 0, 0]], [[0.9, 0.5, 0.1]], k=3, ideal="k")
    assert value == pytest.approx(1 / (1 + 1 / np.log2(3) + 0.5), rel=1e-15)
    # k above the row: the ideal still has k ranks (RecTools)
    value = srm.ndcg_at_k([[1]], [[0.9]], k=2, ideal="k")
    assert value == pytest.approx(1 / (1 + 1 / np.log2(3)), rel=1e-15)
    # graded: the top grade at every rank; ideal="k" never exceeds the
    # default (its ideal is at least as large)
    y_true, y_score = random_case(11, 30, 8, score_levels=4)
    a = srm.ndcg_at_k(y_true, y_score, k=4, ideal="k", average=None)
    b = srm.ndcg_at_k(y_true, y_score, k=4, average=None)
    ok = ~np.isnan(b)
    assert np.all(a[ok] <= b[ok] + 1e-15) and np.any(a[ok] < b[ok])
    with pytest.raises(ValueError, match="ideal must be"):
        srm.ndcg_at_k([[1, 0]], [[1, 2]], k=1, ideal="all")
    with pytest.raises(ValueError, match="ideal='k' is not defined"):
        srm.ndcg_at_k([[1, 0]], [[1, 2]], k=1, ideal="k", propensity=[[1, 1]])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 12])
def test_ap_denominator_k_matches_reference(seed, k):
    y_true, y_score = random_case(seed, 7, 6, score_levels=3)
    got = srm.average_precision_at_k(
        y_true, y_score, k=k, ap_denominator="k", average=None
    )
    want = [
        _naive_ap_over_k(list(r), list(s), k)
        for r, s in zip(y_true, y_score, strict=True)
    ]
    _close(got, want)
    with pytest.raises(ValueError, match="give k an int"):
        srm.average_precision_at_k(y_true, y_score, ap_denominator="k")


@pytest.mark.parametrize("rule", ["expected", "input_order"])
def test_ideal_and_ap_k_on_every_surface(rule):
    """The registry's kernel options: the report, the scorers, the mergeable
    state, compare_rankings and the factor report give the function's
    value, per-query k included."""
    y_true, y_score = random_case(3, 20, 9, score_levels=3)
    opts = dict(ideal="k", ap_denominator="k", ties=rule)
    want_ndcg = srm.ndcg_at_k(y_true, y_score, k=4, ideal="k", ties=rule)
    want_map = srm.average_precision_at_k(
        y_true, y_score, k=4, ap_denominator="k", ties=rule
    )
    report = srm.ranking_report(
        y_true, y_score, k=4, metrics=["ndcg", "map"], output_dict=True, **opts
    )
    assert report == {"ndcg@4": want_ndcg, "map@4": want_map}
    ev = srm.RankingEvaluator(k=4, metrics=["ndcg", "map"], **opts)
    r, c = np.divmod(np.arange(y_true.size), y_true.shape[1])  # the long form
    first = r < 7
    for part in (first, ~first):
        ev.update(y_true[r, c][part], y_score[r, c][part], query_id=r[part])
    got = ev.result(output_dict=True)
    assert got["ndcg@4"] == pytest.approx(want_ndcg, rel=1e-12)
    assert got["map@4"] == pytest.approx(want_map, rel=1e-12)
    scorer = srm.get_scorer("ndcg@4", ideal="k", ties=rule)
    assert scorer._score_func(y_true, y_score, **scorer._kwargs) == want_ndcg
    # the rectools preset sets ideal="k" everywhere it computes NDCG
    assert srm.ranking_report(
        y_true,
        y_score,
        k=4,
        metrics=["ndcg"],
        convention="rectools",
        output_dict=True,
    )["ndcg@4"] == srm.ndcg_at_k(y_true, y_score, k=4, convention="rectools")
    assert srm.ndcg_at_k(y_true, y_score, k=4, convention="rectools") == srm.ndcg_at_k(
        y_true, y_score, k=4, ideal="k", ties="input_order"
    )
    ks = np.arange(20) % 5 + 1  # one cut-off per query
    per_q = srm.ndcg_at_k(y_true, y_score, k=ks, ideal="k", average=None)
    one = [
        srm.ndcg_at_k(y_true[[q]], y_score[[q]], k=int(ks[q]), ideal="k")
        for q in range(20)
    ]
    _close(per_q, one)
