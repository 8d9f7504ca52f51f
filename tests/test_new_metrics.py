"""R-precision, fall-out, ERR, RBP (and its residual), bpref and success@k.

Each is checked against the loop-and-brute-force references of
``tests/_reference.py`` (every ordering of the tied items enumerated), on
every input form, and against trec_eval (through ``pytrec_eval``) where the
definitions coincide (``Rprec``, ``bpref``, ``success_1/5/10``).
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._metrics._driver import candidate_negatives, items_per_query
from sklearn_rankmetrics._metrics._kernels import query_defined
from sklearn_rankmetrics._registry import kernels
from tests._reference import NAIVE_MORE, random_case, random_weights

KERNELS = kernels()  # registry name -> kernel

RTOL = ATOL = 1e-12

TAKES_K = [
    "fallout_at_k",
    "success_at_k",
    "expected_reciprocal_rank_at_k",
    "rank_biased_precision_at_k",
    "rbp_residual_at_k",
]
NO_K = ["r_precision_score", "bpref_score"]
BINARY = [name for name in NAIVE_MORE if name != "expected_reciprocal_rank_at_k"]


def _close(a, b):
    assert_allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)


def _cases():
    """Graded relevance, heavy ties, -inf, queries without relevant items."""
    out = []
    for seed, (n_queries, n_items, levels) in enumerate(
        [(12, 6, 3), (10, 8, 2), (8, 7, None), (6, 9, 4)]
    ):
        y_true, y_score = random_case(
            seed + 40, n_queries, n_items, score_levels=levels
        )
        out.append((y_true, y_score, random_weights(seed, n_queries)))
    return out


CASES = _cases()


def _call(name, y_true, y_score, k, **kw):
    func = getattr(srm, name)
    if name in NO_K:
        return func(y_true, y_score, **kw)
    return func(y_true, y_score, k=k, **kw)


def _naive(name, y_true, y_score, k, **kw):
    if name in NO_K:
        return NAIVE_MORE[name](y_true, y_score, **kw)
    return NAIVE_MORE[name](y_true, y_score, k=k, **kw)


# ---------------------------------------------------------------------------
# Brute force
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(
    "name, k",
    [(n, k) for n in BINARY for k in ([None] if n in NO_K else [None, 1, 3, 20])],
)
def test_matches_brute_force(name, k, ignore_ties):
    for y_true, y_score, w in CASES:
        for kw in ({}, {"relevance_threshold": 2}, {"no_relevant": 0.0}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = _call(
                    name,
                    y_true,
                    y_score,
                    k,
                    ignore_ties=ignore_ties,
                    average=None,
                    **kw,
                )
                want = _naive(
                    name,
                    y_true,
                    y_score,
                    k,
                    ignore_ties=ignore_ties,
                    average=None,
                    **kw,
                )
            _close(got, want)
            got = _call(
                name, y_true, y_score, k, ignore_ties=ignore_ties, sample_weight=w
            )
            want = _naive(
                name, y_true, y_score, k, ignore_ties=ignore_ties, sample_weight=w
            )
            _close(got, want)


@pytest.mark.parametrize("persistence", [0.5, 0.95])
def test_rbp_persistence_matches_brute_force(persistence):
    for y_true, y_score, _ in CASES:
        for name in ("rank_biased_precision_at_k", "rbp_residual_at_k"):
            got = _call(name, y_true, y_score, 4, persistence=persistence, average=None)
            want = _naive(
                name, y_true, y_score, 4, persistence=persistence, average=None
            )
            _close(got, want)


def _binary(y_true):
    return (y_true > 0).astype(np.int64)


@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_err_exact_with_ties_for_binary_relevance(k):
    # Binary grades: the relevant items of a tie group share one grade, so
    # the tie rule is the exact expectation over the orderings.
    name = "expected_reciprocal_rank_at_k"
    for y_true, y_score, w in CASES:
        for max_grade in (None, 1, 3):
            got = _call(
                name, _binary(y_true), y_score, k, max_grade=max_grade, sample_weight=w
            )
            want = _naive(
                name, _binary(y_true), y_score, k, max_grade=max_grade, sample_weight=w
            )
            _close(got, want)


@pytest.mark.parametrize("k", [None, 2, 5])
def test_err_exact_without_ties(k):
    name = "expected_reciprocal_rank_at_k"
    y_true, y_score = random_case(7, 15, 8)  # continuous scores, graded
    _close(
        _call(name, y_true, y_score, k, average=None),
        _naive(name, y_true, y_score, k, average=None),
    )


@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_err_graded_ties_follow_the_documented_rule(k):
    name = "expected_reciprocal_rank_at_k"
    for y_true, y_score, w in CASES:
        got = _call(name, y_true, y_score, k, average=None, sample_weight=w)
        rule = _naive(name, y_true, y_score, k, average=None, err_rule="group_mean")
        _close(got, rule)


def test_err_graded_ties_rule_is_not_the_exact_expectation():
    # One tie group holding grades 1 and 3: the group-mean rule differs from
    # the true expectation (the docs say so); this pins that down.
    name = "expected_reciprocal_rank_at_k"
    y_true, y_score = np.array([[1, 3]]), np.array([[0.5, 0.5]])
    exact = _naive(name, y_true, y_score, None)
    rule = _naive(name, y_true, y_score, None, err_rule="group_mean")
    assert not math.isclose(exact, rule)
    _close(_call(name, y_true, y_score, None), rule)


def test_err_hand_worked():
    # Grades 3, 0, 2 ranked in that order, max grade 3: rho = 7/8, 0, 3/8.
    # ERR = 7/8 + (1/8)(0)/2 + (1/8)(1)(3/8)/3 = 7/8 + 1/64
    value = srm.expected_reciprocal_rank_at_k([[3, 0, 2]], [[3, 2, 1]])
    assert value == pytest.approx(7 / 8 + 1 / 64, rel=1e-15)
    # A perfect first item of the top grade does not make ERR 1.
    assert srm.expected_reciprocal_rank_at_k([[1]], [[1.0]]) == 0.5
    # max_grade=4 on the 0..4 scale of Chapelle et al.
    value = srm.expected_reciprocal_rank_at_k([[3, 0, 2]], [[3, 2, 1]], max_grade=4)
    assert value == pytest.approx(7 / 16 + (9 / 16) * (3 / 16) / 3, rel=1e-15)


def test_err_constant_predictor_binary():
    # g items, r relevant, all tied: ERR = sum_j P(first stop at j) / (j+1)
    # enumerated by hand for g = 3, r = 1, rho = 1/2: the relevant item is
    # at rank 1, 2 or 3 with probability 1/3 each -> (1 + 1/2 + 1/3) / 6.
    value = srm.expected_reciprocal_rank_at_k([[0, 1, 0]], [[0, 0, 0]])
    assert value == pytest.approx((1 + 1 / 2 + 1 / 3) / 6, rel=1e-14)


def test_err_max_grade_below_a_grade_raises():
    with pytest.raises(ValueError, match="max_grade=1.0 is below"):
        srm.expected_reciprocal_rank_at_k([[0, 2]], [[1, 2]], max_grade=1)


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -0.1])
def test_persistence_out_of_range_raises(bad):
    with pytest.raises(ValueError, match="persistence"):
        srm.rank_biased_precision_at_k([[0, 1]], [[1, 2]], persistence=bad)


def test_rbp_plus_residual_bounds():
    # RBP + residual is an upper bound of RBP of any continuation, and
    # with the whole list retrieved and all items judged the residual is
    # the weight of the ranks past the list.
    y_true, y_score = random_case(3, 20, 6, score_levels=3)
    rbp = srm.rank_biased_precision_at_k(y_true, y_score, k=3, average=None)
    res = srm.rbp_residual_at_k(y_true, y_score, k=3, average=None)
    full = srm.rank_biased_precision_at_k(y_true, y_score, average=None)
    ok = ~np.isnan(rbp)
    assert (full[ok] <= rbp[ok] + res[ok] + 1e-15).all()
    assert (full[ok] >= rbp[ok] - 1e-15).all()


def test_success_is_hit_rate():
    for y_true, y_score, w in CASES:
        for k in (None, 1, 3):
            assert srm.success_at_k(y_true, y_score, k=k, sample_weight=w) == (
                srm.hit_rate_at_k(y_true, y_score, k=k, sample_weight=w)
            )


def test_r_precision_perfect_and_reverse():
    y_true = np.array([[1, 1, 0, 0, 1, 0]])
    assert srm.r_precision_score(y_true, y_true) == 1.0
    assert srm.r_precision_score(y_true, -y_true) == 0.0
    # tied throughout: R/n of the first R ranks is relevant on average
    assert srm.r_precision_score(y_true, np.zeros((1, 6))) == pytest.approx(0.5)


def test_fallout_hand_worked():
    # 5 items, 2 relevant: N = 3; the top 2 holds one non-relevant item.
    assert srm.fallout_at_k([[1, 0, 1, 0, 0]], [[5, 4, 1, 2, 3]], k=2) == 1 / 3
    # a -inf item is not a candidate (issue 27): the non-relevant candidates
    # are item 1 alone, N = 1, and the top 3 holds it
    value = srm.fallout_at_k([[1, 0, 0]], [[1, 2, -np.inf]], k=3)
    assert value == 1.0
    # every item relevant: N = 0, fall-out 0/0 is undefined (skipped)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(srm.fallout_at_k([[1, 1]], [[1, 2]], k=1))


def test_bpref_hand_worked():
    # trec_eval's loop on the ranking n r n r n (R = 2, N = 3):
    # first relevant: 1 - 1/2; second: 1 - 2/2 -> (1/2 + 0) / 2
    assert srm.bpref_score([[0, 1, 0, 1, 0]], [[5, 4, 3, 2, 1]]) == 0.25
    # a relevant item not retrieved contributes 0
    assert srm.bpref_score([[1, 0, 1]], [[3, 2, -np.inf]]) == 0.5


# ---------------------------------------------------------------------------
# Input forms
# ---------------------------------------------------------------------------
def _long(y_true, y_score, w, seed):
    """Every (query, item) pair as a row, shuffled; ids are strings."""
    n, m = y_true.shape
    r, c = np.divmod(np.arange(n * m), m)
    perm = np.random.default_rng(seed).permutation(n * m)
    r, c = r[perm], c[perm]
    ids = np.array([f"q{q:03d}" for q in range(n)])
    return y_true[r, c], y_score[r, c], ids[r], w[r]


@pytest.mark.parametrize("name", list(NAIVE_MORE))
def test_input_forms_agree(name):
    for i, (y_true, y_score, w) in enumerate(CASES):
        dense = _call(name, y_true, y_score, 3, sample_weight=w, average=None)
        sparse = _call(
            name, sp.csr_matrix(y_true), y_score, 3, sample_weight=w, average=None
        )
        yl, sl, ql, wl = _long(y_true, y_score, w, i)
        long = _call(name, yl, sl, 3, query_id=ql, sample_weight=wl, average=None)
        _close(sparse, dense)
        _close(long, dense)


def test_items_per_query():
    assert_allclose(items_per_query(np.zeros((2, 5)), None), [5.0, 5.0])
    assert_allclose(items_per_query([1, 2, 3], ["b", "a", "b"]), [1.0, 2.0])


# ---------------------------------------------------------------------------
# trec_eval
# ---------------------------------------------------------------------------
def _trec_case(seed, n_queries=25, n_items=15):
    """Graded judgments of every item; a run of the retrieved items with
    distinct scores (trec_eval breaks ties by document id)."""
    rng = np.random.default_rng(seed)
    y_true, _ = random_case(seed, n_queries, n_items, p_unretrieved=0.0)
    y_score = np.array([rng.permutation(n_items) + rng.random() for _ in y_true])
    unretrieved = rng.random((n_queries, n_items)) < 0.25
    unretrieved[:, 0] = False
    y_score[unretrieved] = -np.inf
    qrel, run = {}, {}
    for q in range(n_queries):
        qrel[f"q{q}"] = {f"d{c:03d}": int(y_true[q, c]) for c in range(n_items)}
        run[f"q{q}"] = {
            f"d{c:03d}": float(y_score[q, c])
            for c in range(n_items)
            if y_score[q, c] > -np.inf
        }
    return y_true, y_score, qrel, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_eval_rprec_bpref_success(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y_true, y_score, qrel, run = _trec_case(seed)
    measures = {"Rprec", "bpref", "success"}
    trec = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    queries = [f"q{q}" for q in range(y_true.shape[0])]
    has_rel = (y_true > 0).any(axis=1)
    assert 0 < has_rel.sum() < len(queries)  # the case is interesting

    def trec_values(measure):
        return np.array([trec[q][measure] for q in queries])[has_rel]

    ours = {
        "Rprec": srm.r_precision_score(y_true, y_score, average=None),
        "bpref": srm.bpref_score(y_true, y_score, average=None),
        "success_1": srm.success_at_k(y_true, y_score, k=1, average=None),
        "success_5": srm.success_at_k(y_true, y_score, k=5, average=None),
        "success_10": srm.success_at_k(y_true, y_score, k=10, average=None),
    }
    for measure, values in ours.items():
        _close(values[has_rel], trec_values(measure))


def test_new_kernels_match_the_public_functions():
    """Each new KERNELS entry, read as its ``requires`` says, is its public
    metric function."""
    from sklearn_rankmetrics._engine._rank import rank

    public = {
        "r_precision": srm.r_precision_score,
        "fallout": srm.fallout_at_k,
        "err": srm.expected_reciprocal_rank_at_k,
        "rbp": srm.rank_biased_precision_at_k,
        "rbp_residual": srm.rbp_residual_at_k,
        "bpref": srm.bpref_score,
    }
    Y, S = random_case(3, 7, 9, score_levels=4)
    options = {"persistence": 0.6, "max_grade": 5.0, "rbp_gain": "max_normalized"}
    for name, func in public.items():
        kernel = KERNELS[name]
        opts = {o: options[o] for o in kernel.options}
        k = None if "whole_list" in kernel.requires else 4
        gain = "exponential" if "exponential_gain" in kernel.requires else "linear"
        rk = rank(
            Y, S, k=k, query_id=None, sample_weight=None, gain=gain, need_ideal=True
        )
        extra = {}
        if "n_items" in kernel.requires:
            extra["n_items"] = items_per_query(S, None)
        if "n_negatives" in kernel.requires:
            extra["n_negatives"] = candidate_negatives(Y, S, None)
        values = kernel.values(rk, **opts, **extra)
        values = np.where(query_defined(kernel, rk, extra), values, np.nan)
        kw = {} if k is None else {"k": k}
        _close(values, func(Y, S, average=None, **kw, **opts))


# ---------------------------------------------------------------------------
# Scorers
# ---------------------------------------------------------------------------
def test_scorers_of_the_new_metrics():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    X = np.arange(8.0).reshape(-1, 1)
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]] * 2)
    clf = OneVsRestClassifier(LogisticRegression()).fit(X, Y)
    proba = clf.predict_proba(X)
    cases = {
        "r_precision": (srm.r_precision_score, {}),
        "bpref": (srm.bpref_score, {}),
        "err@2": (srm.expected_reciprocal_rank_at_k, {"k": 2}),
        "rbp@2": (srm.rank_biased_precision_at_k, {"k": 2, "persistence": 0.5}),
        "success@1": (srm.success_at_k, {"k": 1}),
    }
    for name, (func, kw) in cases.items():
        options = {"persistence": 0.5} if name.startswith("rbp") else {}
        scorer = srm.get_scorer(name, **options)
        assert scorer(clf, X, Y) == func(Y, proba, **kw), name
    assert {"r_precision", "bpref", "err", "rbp", "success"} <= set(
        srm.get_scorer_names()
    )
    with pytest.raises(ValueError, match="takes no cut-off"):
        srm.get_scorer("r_precision@5")
    gauc = srm.get_scorer("gauc", constant_scores="skip", query_weighting="clicks")
    assert "constant_scores='skip'" in repr(gauc)


# ---------------------------------------------------------------------------
# Invariances (as tests/test_common.py checks for the other metrics)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NAIVE_MORE))
def test_invariances(name):
    y_true, y_score, w = CASES[0]
    base = _call(name, y_true, y_score, 3, average=None, sample_weight=w)
    rng = np.random.default_rng(0)
    cols = rng.permutation(y_true.shape[1])  # item order: exact ties make it moot
    _close(_call(name, y_true[:, cols], y_score[:, cols], 3, average=None), base)
    rows = rng.permutation(y_true.shape[0])  # query order
    _close(_call(name, y_true[rows], y_score[rows], 3, average=None), base[rows])
    # a strictly increasing transform of the scores (-inf stays -inf)
    moved = np.where(np.isinf(y_score), y_score, np.exp(y_score) * 3 + 1)
    _close(_call(name, y_true, moved, 3, average=None), base)
    # inputs are not modified
    before = (y_true.copy(), y_score.copy())
    _call(name, y_true, y_score, 3, sample_weight=w)
    assert (before[0] == y_true).all() and (before[1] == y_score).all()
