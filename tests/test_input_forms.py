"""Every input form gives the values of the dense 2-D form.

The same random graded data (tied scores, ``-inf`` scores on relevant and
irrelevant items, queries without relevant items, query weights) is given
as a dense 2-D array, as every ``scipy.sparse`` format (matrices and sparse
arrays), and in the long form (shuffled rows, string or int query ids,
pandas and polars Series).  Every metric and option must give the same
float and the same per-query array.

Exact equality is expected with integer grades: every form computes the
same per-rank quantities and sums them in the same order.  Two places may
legitimately differ in the last bits, and are compared at 1e-12:

* float grades: the gains of a tie group cut by ``k`` are summed over the
  group's items in storage order, which differs between forms;
* the mean over queries when the long form's ``np.unique(query_id)`` order
  differs from the dense row order (the dot product is summed in another
  order).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._engine._select import _argsort_desc, _group_order

# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
N_QUERIES, N_ITEMS = 24, 11


def make_case(seed, float_grades=False):
    """Dense y_true (n, m), y_score with ties and -inf, query weights."""
    rng = np.random.default_rng(seed)
    n, m = N_QUERIES, N_ITEMS
    if float_grades:
        Y = np.round(rng.uniform(0.1, 3.0, (n, m)), 3)
    else:
        Y = rng.integers(1, 4, (n, m))
    Y = Y * (rng.random((n, m)) < 0.35)
    Y[[2, 9]] = 0  # queries without a relevant item
    Y[5] = Y[5].max() if Y[5].max() > 0 else 1  # every item relevant
    S = rng.integers(0, 4, (n, m)).astype(np.float64)  # many ties
    S[rng.random((n, m)) < 0.25] = -np.inf  # unretrieved items
    S[7] = -np.inf  # a query that retrieved nothing
    S[7, 0] = 1.0
    S[11] = 2.0  # a query tied throughout
    w = rng.integers(1, 4, n).astype(np.float64)
    w[3] = 0.0
    return Y, S, w


def to_long(Y, S, w, rng, ids, order="shuffle", drop_unretrieved=True):
    """Long-form rows of the 2-D case.

    ``ids[i]`` is the query id of row ``i`` of the 2-D form.  Items that are
    irrelevant and unretrieved carry no information and are dropped when
    ``drop_unretrieved`` (except column 0, so that no query disappears).
    ``order="shuffle"`` permutes all rows; ``"interleave"`` mixes the queries
    but keeps each query's items in column order (what ``ignore_ties=True``
    needs to match the 2-D form).
    """
    n, m = Y.shape
    r, c = np.divmod(np.arange(n * m), m)
    keep = np.ones(n * m, dtype=bool)
    if drop_unretrieved:
        keep = (Y[r, c] > 0) | (S[r, c] > -np.inf) | (c == 0)
    r, c = r[keep], c[keep]
    perm = rng.permutation(r.shape[0])
    if order == "interleave":  # refill each query's slots in column order
        slots = np.argsort(perm)
        for q in range(n):
            mine = np.flatnonzero(r == q)
            slots[mine] = np.sort(slots[mine])
        perm = np.argsort(slots)
    r, c = r[perm], c[perm]
    return Y[r, c], S[r, c], np.asarray(ids)[r], w[r]


# ---------------------------------------------------------------------------
# Sparse formats, found by feature detection
# ---------------------------------------------------------------------------
MATRIX_FORMATS = ["csr", "csc", "coo", "lil", "dok", "bsr", "dia"]
ARRAY_FORMATS = [f"{name}_array" for name in MATRIX_FORMATS]


def sparse_of(Y, fmt):
    if fmt.endswith("_array"):
        return getattr(sp, fmt)(Y)  # scipy >= 1.8
    return sp.csr_matrix(Y).asformat(fmt)


# ---------------------------------------------------------------------------
# Metrics and options
# ---------------------------------------------------------------------------
TOPK = [
    srm.precision_at_k,
    srm.recall_at_k,
    srm.f1_at_k,
    srm.fbeta_at_k,
    srm.hit_rate_at_k,
    srm.reciprocal_rank_at_k,
    srm.average_precision_at_k,
    srm.dcg_at_k,
    srm.ndcg_at_k,
]
MICRO = {srm.precision_at_k, srm.recall_at_k, srm.f1_at_k, srm.fbeta_at_k}
GRADED = {srm.dcg_at_k, srm.ndcg_at_k}


def option_sets(func):
    """A small grid over every option of ``func``."""
    sets = [
        {"k": k, "no_relevant": nr, "average": avg}
        for k in (1, 3, None, N_ITEMS + 4)
        for nr, avg in (("skip", "queries"), (0.0, None), ("skip", None))
    ]
    if func in MICRO:
        sets += [{"k": 3, "average": "micro"}, {"average": "micro", "no_relevant": 1.0}]
    if func is srm.fbeta_at_k:
        sets += [
            {"k": 4, "beta": 2.0},
            {"k": 4, "beta": 0.5, "average": "micro"},
            {"beta": 3.0, "average": None},
        ]
    if func in GRADED:
        sets += [
            {"k": 4, "gain": "exponential"},
            {"k": 5, "log_base": 10, "average": None},
            {"gain": "exponential", "no_relevant": 0.0},
        ]
    else:
        sets += [
            {"k": 4, "relevance_threshold": 2},
            {"relevance_threshold": 2.5, "average": None},
        ]
    if func is srm.average_precision_at_k:
        sets += [{"k": 3, "ap_denominator": "min_k"}, {"ap_denominator": "min_k"}]
    return sets


def call(func, y_true, y_score, opts, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all-skipped options warn
        return func(y_true, y_score, **opts, **extra)


def assert_same(got, expected, exact=True):
    if exact:
        assert_array_equal(got, expected)
    else:
        assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert type(got) is type(expected)


CASES = [(func, opts) for func in TOPK for opts in option_sets(func)]
CASE_IDS = [
    f"{func.__name__}-" + ",".join(f"{k}={v}" for k, v in opts.items())
    for func, opts in CASES
]


# ---------------------------------------------------------------------------
# Cross-form equality
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("func, opts", CASES, ids=CASE_IDS)
def test_sparse_and_long_equal_dense(func, opts, weighted):
    Y, S, w = make_case(0)
    weight = w if weighted else None
    expected = call(func, Y, S, opts, sample_weight=weight)

    for fmt in ("csr", "csc", "coo", "lil", "dok", "csr_array", "coo_array"):
        got = call(func, sparse_of(Y, fmt), S, opts, sample_weight=weight)
        assert_same(got, expected)

    rng = np.random.default_rng(1)
    ids = np.array([f"q{i:03d}" for i in range(N_QUERIES)])  # sorted = rows
    y, s, qid, w_rows = to_long(Y, S, w, rng, ids)
    got = call(
        func, y, s, opts, query_id=qid, sample_weight=w_rows if weighted else None
    )
    assert_same(got, expected)


@pytest.mark.parametrize("func, opts", CASES, ids=CASE_IDS)
def test_ignore_ties_forms_agree_when_order_is_kept(func, opts):
    """ignore_ties=True breaks ties by position: the long form agrees with
    the 2-D form when each query's rows keep the column order."""
    Y, S, w = make_case(1)
    opts = dict(opts, ignore_ties=True)
    expected = call(func, Y, S, opts, sample_weight=w)
    got = call(func, sp.csr_matrix(Y), S, opts, sample_weight=w)
    assert_same(got, expected)
    ids = np.arange(N_QUERIES) * 3 + 100  # ints, sorted like the rows
    y, s, qid, w_rows = to_long(
        Y, S, w, np.random.default_rng(2), ids, order="interleave"
    )
    got = call(func, y, s, opts, query_id=qid, sample_weight=w_rows)
    assert_same(got, expected)


@pytest.mark.parametrize("fmt", MATRIX_FORMATS + ARRAY_FORMATS)
@pytest.mark.parametrize("func", TOPK, ids=lambda f: f.__name__)
def test_every_sparse_format(func, fmt):
    Y, S, w = make_case(2)
    Ysp = sparse_of(Y, fmt)
    for opts in ({"k": 3, "average": None}, {"k": None}, {"k": 2, "ignore_ties": True}):
        expected = call(func, Y, S, opts, sample_weight=w)
        assert_same(call(func, Ysp, S, opts, sample_weight=w), expected)


@pytest.mark.parametrize("func", TOPK, ids=lambda f: f.__name__)
def test_float_grades(func):
    """Non-integer grades: tie-group gain sums may round differently."""
    Y, S, w = make_case(3, float_grades=True)
    ids = np.array([f"u{i:02d}" for i in range(N_QUERIES)])
    y, s, qid, w_rows = to_long(Y, S, w, np.random.default_rng(4), ids)
    opts = {"relevance_threshold": 1.0} if func not in GRADED else {}
    for k in (2, 5, None):
        for avg in ("queries", None):
            expected = call(func, Y, S, dict(opts, k=k, average=avg), sample_weight=w)
            got = call(
                func, sp.csr_matrix(Y), S, dict(opts, k=k, average=avg), sample_weight=w
            )
            assert_same(got, expected, exact=False)
            got = call(
                func, y, s, dict(opts, k=k, average=avg),
                query_id=qid, sample_weight=w_rows,
            )  # fmt: skip
            assert_same(got, expected, exact=False)


@pytest.mark.parametrize("func", TOPK, ids=lambda f: f.__name__)
def test_long_form_query_order_is_np_unique(func):
    """average=None follows np.unique(query_id), whatever the row order."""
    Y, S, w = make_case(4)
    rng = np.random.default_rng(5)
    ids = rng.permutation(N_QUERIES) * 7 - 50  # unsorted, negative ints
    y, s, qid, w_rows = to_long(Y, S, w, rng, ids)
    expected = call(func, Y, S, {"k": 3, "average": None})
    got = call(func, y, s, {"k": 3, "average": None}, query_id=qid)
    uniques = np.unique(qid)
    rows = np.searchsorted(uniques, ids)  # dense row i is query ids[i]
    assert_array_equal(got[rows], expected)
    # The mean is the same, summed in another query order.
    assert_same(
        call(func, y, s, {"k": 3}, query_id=qid, sample_weight=w_rows),
        call(func, Y, S, {"k": 3}, sample_weight=w),
        exact=False,
    )


def test_long_form_does_not_depend_on_row_order():
    Y, S, _ = make_case(5)
    ids = np.array([f"q{i:03d}" for i in range(N_QUERIES)])
    values = []
    for seed in range(4):
        y, s, qid, _ = to_long(
            Y, S, np.ones(N_QUERIES), np.random.default_rng(seed), ids
        )
        values.append([f(y, s, k=3, query_id=qid, average=None) for f in TOPK])
    for other in values[1:]:
        for a, b in zip(values[0], other, strict=True):
            assert_array_equal(a, b)


def test_large_and_small_int_ids_agree():
    """Small-range int ids are factorised without a sort; huge ones by
    np.unique: both number the queries in sorted-id order."""
    Y, S, _ = make_case(6)
    y, s, qid, _ = to_long(
        Y, S, np.ones(N_QUERIES), np.random.default_rng(0), np.arange(N_QUERIES)
    )
    for scaled in (
        qid,
        qid * 10**12,
        (qid - 12).astype(np.int8),
        qid.astype(np.uint64),
    ):
        got = srm.ndcg_at_k(y, s, k=3, query_id=scaled, average=None)
        assert_array_equal(got, srm.ndcg_at_k(Y, S, k=3, average=None))


def test_bool_and_int_relevance_in_long_form():
    Y, S, _ = make_case(7)
    ids = np.arange(N_QUERIES)
    y, s, qid, _ = to_long(Y, S, np.ones(N_QUERIES), np.random.default_rng(0), ids)
    for func in TOPK:
        expected = func(Y > 0, S, k=3, average=None)
        assert_array_equal(func(y > 0, s, k=3, query_id=qid, average=None), expected)


def test_long_form_with_only_unretrieved_rows():
    """A query whose rows are all -inf still counts its relevant items."""
    y = [1, 0, 1, 1]
    s = [0.5, 0.2, -np.inf, -np.inf]
    qid = ["a", "a", "b", "b"]
    assert_array_equal(
        srm.recall_at_k(y, s, k=2, query_id=qid, average=None), [1.0, 0.0]
    )
    assert srm.ndcg_at_k(y, s, k=5, query_id=qid, no_relevant=0.0) == 0.5


def test_k_larger_than_every_query_keeps_ideal():
    """IDCG@k needs every relevant row, also unretrieved ones past k."""
    y = [1, 0, 3, 2, 2]
    s = [0.9, 0.1, -np.inf, -np.inf, -np.inf]
    got = srm.ndcg_at_k(y, s, k=10, query_id=[0, 0, 0, 0, 0])
    dense = srm.ndcg_at_k([y], [s], k=10)
    assert got == dense
    assert dense == pytest.approx(1.0 / (3 + 2 / np.log2(3) + 2 / 2 + 1 / np.log2(5)))


# ---------------------------------------------------------------------------
# group_auc_score on every form (the reference comparison is in test_gauc.py)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["impressions", "uniform"])
def test_gauc_forms_agree(weighting):
    Y, S, w = make_case(8)
    expected = srm.group_auc_score(Y, S, query_weighting=weighting, sample_weight=w)
    per_query = srm.group_auc_score(Y, S, average=None)
    for fmt in ("csr", "csc", "coo", "dok", "csr_array"):
        Ysp = sparse_of(Y, fmt)
        got = srm.group_auc_score(Ysp, S, query_weighting=weighting, sample_weight=w)
        assert_same(got, expected)
        assert_same(srm.group_auc_score(Ysp, S, average=None), per_query)
    ids = np.array([f"q{i:03d}" for i in range(N_QUERIES)])
    # Every item is a row (GAUC counts -inf items as the lowest scores).
    y, s, qid, w_rows = to_long(
        Y, S, w, np.random.default_rng(0), ids, drop_unretrieved=False
    )
    got = srm.group_auc_score(
        y, s, query_id=qid, query_weighting=weighting, sample_weight=w_rows
    )
    if weighting == "uniform":  # row weights: each weighted query counts once
        expected = srm.group_auc_score(
            Y, S, query_weighting=weighting, sample_weight=(w > 0).astype(float)
        )
    assert_same(got, expected, exact=False)  # weighted sums inside each AUC
    assert_same(srm.group_auc_score(y, s, query_id=qid, average=None), per_query)


# ---------------------------------------------------------------------------
# pandas and polars inputs
# ---------------------------------------------------------------------------
def test_pandas_series_inputs():
    pd = pytest.importorskip("pandas")
    Y, S, w = make_case(9)
    ids = np.array([f"q{i:03d}" for i in range(N_QUERIES)])
    y, s, qid, w_rows = to_long(Y, S, w, np.random.default_rng(0), ids)
    frame = pd.DataFrame({"rel": y, "score": s, "qid": qid, "w": w_rows})
    variants = [
        frame["qid"],
        frame["qid"].astype("category"),
        frame["qid"].astype("string"),
        frame["qid"].astype(object),
    ]
    for func in TOPK:
        expected = func(Y, S, k=3, sample_weight=w)
        for q in variants:
            got = func(
                frame["rel"], frame["score"], k=3, query_id=q, sample_weight=frame["w"]
            )
            assert_same(got, expected)
        got = func(
            frame["rel"].astype("Int64"), frame["score"], k=3,
            query_id=frame["qid"], sample_weight=frame["w"],
        )  # fmt: skip
        assert_same(got, expected)
    assert_same(
        srm.group_auc_score(
            frame["rel"], frame["score"], query_id=frame["qid"], average=None
        ),
        srm.group_auc_score(y, s, query_id=qid, average=None),
    )


def test_pandas_dataframe_2d_and_missing_query_id():
    pd = pytest.importorskip("pandas")
    Y, S, _ = make_case(10)
    got = srm.ndcg_at_k(pd.DataFrame(Y), pd.DataFrame(S), k=3)
    assert got == srm.ndcg_at_k(Y, S, k=3)
    for bad in (
        pd.Series(["a", None, "b"]),
        pd.Series(["a", pd.NA, "b"], dtype="string"),
        pd.Series([1, None, 2], dtype="Int64"),
        pd.Series([1.0, np.nan, 2.0]),
    ):
        with pytest.raises(ValueError, match="query_id contains"):
            srm.ndcg_at_k([1, 0, 1], [0.1, 0.2, 0.3], query_id=bad)


def test_polars_series_inputs():
    pl = pytest.importorskip("polars")
    Y, S, w = make_case(11)
    ids = np.array([f"q{i:03d}" for i in range(N_QUERIES)])
    y, s, qid, w_rows = to_long(Y, S, w, np.random.default_rng(0), ids)
    for func in TOPK:
        got = func(
            pl.Series(y), pl.Series(s), k=3, query_id=pl.Series(qid),
            sample_weight=pl.Series(w_rows),
        )  # fmt: skip
        assert_same(got, func(Y, S, k=3, sample_weight=w))
    y, s, qid, _ = to_long(
        Y, S, w, np.random.default_rng(1), ids, drop_unretrieved=False
    )
    int_ids = pl.Series(np.searchsorted(ids, qid))
    got = srm.group_auc_score(
        pl.Series(y), pl.Series(s), query_id=int_ids, average=None
    )
    assert_same(got, srm.group_auc_score(Y, S, average=None))
    with pytest.raises(ValueError, match="query_id contains None"):
        srm.ndcg_at_k(
            pl.Series([1, 0]), pl.Series([0.1, 0.2]), query_id=pl.Series(["a", None])
        )


# ---------------------------------------------------------------------------
# Inputs are never modified
# ---------------------------------------------------------------------------
def test_non_canonical_sparse_is_not_modified():
    Y, S, _ = make_case(12)
    Y[0, 3] = 3
    # CSR arrays with every row's columns reversed and Y[0, 3] stored as
    # two duplicate entries 1 + 2: valid, but not in canonical format.
    data, indices, indptr = [], [], [0]
    for i in range(Y.shape[0]):
        cols = np.flatnonzero(Y[i])[::-1]
        vals = Y[i, cols]
        if i == 0:
            vals = np.where(cols == 3, 1, vals)
            cols, vals = np.append(cols, 3), np.append(vals, 2)
        indices += list(cols)
        data += list(vals)
        indptr.append(len(indices))
    messy = sp.csr_matrix(
        (np.array(data), np.array(indices), np.array(indptr)), shape=Y.shape
    )
    assert not messy.has_canonical_format
    assert_array_equal(messy.toarray(), Y)
    before = (messy.data.copy(), messy.indices.copy(), messy.indptr.copy())
    for func in TOPK:
        assert_same(func(messy, S, k=3, average=None), func(Y, S, k=3, average=None))
    assert_same(srm.group_auc_score(messy, S), srm.group_auc_score(Y, S))
    for got, old in zip((messy.data, messy.indices, messy.indptr), before, strict=True):
        assert_array_equal(got, old)


def test_long_inputs_are_not_modified():
    y = np.array([1, 0, 2, 0, 1])
    s = np.array([0.3, -np.inf, 0.3, 0.9, 0.1])
    qid = np.array(["b", "a", "b", "a", "a"], dtype=object)
    w = np.array([2.0, 1.0, 2.0, 1.0, 1.0])
    copies = [a.copy() for a in (y, s, qid, w)]
    for func in TOPK:
        func(y, s, k=2, query_id=qid, sample_weight=w, ignore_ties=True)
        func(y, s, k=2, query_id=qid, sample_weight=w)
    srm.group_auc_score(y, s, query_id=qid, sample_weight=w)
    for a, b in zip((y, s, qid, w), copies, strict=True):
        assert_array_equal(a, b)


# ---------------------------------------------------------------------------
# Validation of the sparse and long forms
# ---------------------------------------------------------------------------
Y0 = np.array([[1, 0, 2], [0, 1, 0]])
S0 = np.array([[0.5, 0.2, 0.1], [0.3, 0.9, -np.inf]])
y0 = np.array([1, 0, 2, 0])
s0 = np.array([0.5, 0.2, 0.1, 0.3])
q0 = np.array([1, 1, 2, 2])


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        # 1-D without query_id, and query_id with 2-D input
        ({"y_true": y0, "y_score": s0}, ValueError, "pass query_id"),
        (
            {"y_true": Y0, "y_score": S0, "query_id": q0},
            ValueError,
            "query_id is given",
        ),
        (
            {"y_true": y0, "y_score": S0, "query_id": q0},
            ValueError,
            "y_score must be 1-D",
        ),
        # lengths
        ({"y_true": y0[:3], "y_score": s0, "query_id": q0}, ValueError, "same length"),
        (
            {"y_true": y0, "y_score": s0, "query_id": q0[:3]},
            ValueError,
            "query_id has 3",
        ),
        (
            {"y_true": y0, "y_score": s0, "query_id": [q0]},
            ValueError,
            "query_id must be 1-D",
        ),
        (
            {"y_true": y0, "y_score": s0, "query_id": q0, "sample_weight": [1, 1]},
            ValueError,
            "one weight per row",
        ),
        # ids
        (
            {"y_true": y0, "y_score": s0, "query_id": [1.0, np.nan, 2.0, 2.0]},
            ValueError,
            "query_id contains NaN",
        ),
        (
            {"y_true": y0, "y_score": s0, "query_id": ["a", None, "b", "b"]},
            ValueError,
            "query_id contains None",
        ),
        (
            {
                "y_true": y0,
                "y_score": s0,
                "query_id": np.array([1, "a", 2, 2], dtype=object),
            },
            TypeError,
            "cannot be sorted",
        ),
        (
            {"y_true": y0, "y_score": s0, "query_id": np.array([1j, 1j, 2j, 2j])},
            TypeError,
            "query_id must hold ints or strings",
        ),
        # weights must be constant within a query
        (
            {
                "y_true": y0,
                "y_score": s0,
                "query_id": q0,
                "sample_weight": [1, 2, 3, 3],
            },
            ValueError,
            "constant within each query.*query_id=1",
        ),
        # sparse where it cannot be
        (
            {"y_true": sp.csr_matrix(Y0), "y_score": sp.csr_matrix(S0)},
            TypeError,
            "y_score must be a dense",
        ),
        (
            {"y_true": Y0, "y_score": sp.csr_matrix(S0)},
            TypeError,
            "y_score must be a dense",
        ),
        (
            {"y_true": sp.csr_matrix(y0), "y_score": s0, "query_id": q0},
            TypeError,
            "y_true must be a dense 1-D",
        ),
        (
            {"y_true": y0, "y_score": sp.csr_matrix(s0), "query_id": q0},
            TypeError,
            "y_score must be a dense 1-D",
        ),
        (
            {"y_true": y0, "y_score": s0, "query_id": sp.csr_matrix(q0)},
            TypeError,
            "query_id must be a dense",
        ),
        # sparse y_true contents and shape
        ({"y_true": sp.csr_matrix(Y0[:1]), "y_score": S0}, ValueError, "same shape"),
        ({"y_true": sp.csr_matrix(-Y0), "y_score": S0}, ValueError, "negative"),
        (
            {"y_true": sp.csr_matrix(Y0 * np.nan), "y_score": S0},
            ValueError,
            "NaN or inf",
        ),
        # long-form contents
        ({"y_true": -y0, "y_score": s0, "query_id": q0}, ValueError, "negative"),
        (
            {"y_true": y0, "y_score": [0.1, np.nan, 0.2, 0.3], "query_id": q0},
            ValueError,
            "y_score contains NaN",
        ),
        (
            {"y_true": ["a", "b", "c", "d"], "y_score": s0, "query_id": q0},
            TypeError,
            "y_true must be numeric",
        ),
        ({"y_true": [], "y_score": [], "query_id": []}, ValueError, "empty"),
    ],
)
def test_validation(kwargs, error, match):
    for func in (srm.ndcg_at_k, srm.precision_at_k):
        with pytest.raises(error, match=match):
            func(**kwargs, k=2)
    if "sample_weight" not in kwargs or "constant" not in match:
        with pytest.raises(error, match=match):
            srm.group_auc_score(**kwargs)


def test_gauc_row_weights_may_vary_within_a_query():
    """GAUC's long-form weights are row weights, not query weights."""
    # query 1: AUC 1, weight 1 + 2; query 2: AUC 0, weight 3 + 3
    got = srm.group_auc_score(y0, s0, query_id=q0, sample_weight=[1, 2, 3, 3])
    assert got == pytest.approx(3 / 9, abs=1e-15)
    # uniform: each query counts once, whatever its row weights (issue 18)
    got = srm.group_auc_score(
        y0, s0, query_id=q0, sample_weight=[1, 2, 3, 3], query_weighting="uniform"
    )
    assert got == pytest.approx(0.5, abs=1e-15)
    got = srm.group_auc_score(y0, s0, query_id=q0, query_weighting="uniform")
    assert got == 0.5


def test_one_dimensional_sparse_array_is_rejected():
    coo_array = getattr(sp, "coo_array", None)
    try:
        y = coo_array(np.array([1, 0, 2]))
    except (TypeError, ValueError):
        pytest.skip("this scipy has no 1-D sparse arrays")
    if len(y.shape) != 1:
        pytest.skip("this scipy has no 1-D sparse arrays")
    with pytest.raises(ValueError, match="sparse y_true must be 2-D"):
        srm.ndcg_at_k(y, np.array([[0.1, 0.2, 0.3]]))


# ---------------------------------------------------------------------------
# The engine's grouping helpers
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n_groups", [3, 1 << 16, (1 << 16) + 5, 1 << 20])
def test_group_order_is_a_stable_sort(n_groups):
    rng = np.random.default_rng(n_groups)
    codes = rng.integers(0, n_groups, 5000)
    codes[:50] = n_groups - 1
    assert_array_equal(_group_order(codes, n_groups), np.argsort(codes, kind="stable"))
    order = rng.permutation(5000)
    assert_array_equal(
        _group_order(codes, n_groups, order),
        order[np.argsort(codes[order], kind="stable")],
    )


def test_argsort_desc_stable_keeps_row_order_of_ties():
    rng = np.random.default_rng(0)
    key = rng.integers(0, 20, 3000).astype(np.float64)
    key[::7] = np.inf
    key[::11] = -np.inf
    assert_array_equal(_argsort_desc(key, stable=True), np.argsort(-key, kind="stable"))
    assert_array_equal(np.sort(_argsort_desc(key, stable=False)), np.arange(3000))
    assert_array_equal(key[_argsort_desc(key, stable=False)], np.sort(key)[::-1])


# ---------------------------------------------------------------------------
# Property test: any small case, any k, every form
# ---------------------------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis")
st = pytest.importorskip("hypothesis.strategies")


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(
    shape=st.tuples(st.integers(1, 5), st.integers(1, 7)),
    k=st.one_of(st.none(), st.integers(1, 9)),
    seed=st.integers(0, 2**32 - 1),
    ignore_ties=st.booleans(),
)
def test_property_forms_agree(shape, k, seed, ignore_ties):
    rng = np.random.default_rng(seed)
    n, m = shape
    Y = rng.integers(0, 4, shape) * (rng.random(shape) < 0.5)
    S = rng.choice([-np.inf, 0.0, 0.5, 1.0, np.inf], size=shape)
    order = "interleave" if ignore_ties else "shuffle"
    y, s, qid, _ = to_long(Y, S, np.ones(n), rng, np.arange(n), order=order)
    for func in TOPK:
        expected = call(
            func, Y, S, {"k": k, "average": None, "ignore_ties": ignore_ties}
        )
        for y_true in (sp.csr_matrix(Y), sp.csc_matrix(Y)):
            got = call(
                func, y_true, S, {"k": k, "average": None, "ignore_ties": ignore_ties}
            )
            assert_same(got, expected)
        got = call(
            func, y, s, {"k": k, "average": None, "ignore_ties": ignore_ties},
            query_id=qid,
        )  # fmt: skip
        assert_same(got, expected)
