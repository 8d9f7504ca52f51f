"""group_auc_score equals a per-query loop over sklearn.metrics.roc_auc_score.

The reference below takes the long form (the CTR case: one row per
impression, a click label, a predicted probability, a user id), loops over
the queries in ``np.unique`` order, skips the ones with a single class, and
averages ``roc_auc_score(y, s, sample_weight=w)`` with the query weights of
``query_weighting``: the number of rows (sum of row weights when weighted)
for "impressions", 1 for "uniform" (each query counts once, whatever its
row weights).  The candidate rule first: a negative row scored ``-inf`` is
not a candidate and is dropped (from the AUC and from the impressions); a
positive row scored ``-inf`` stays, below every candidate.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.metrics import roc_auc_score

import sklearn_rankmetrics as srm


def reference_gauc(y_true, y_score, query_id, *, weighting, sample_weight=None,
                   threshold=None):  # fmt: skip
    """Per-query values and the weighted mean, one query at a time."""
    y_true, y_score = np.asarray(y_true), np.asarray(y_score, dtype=float)
    query_id = np.asarray(query_id)
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight)
    labels = y_true > 0 if threshold is None else y_true >= threshold
    values, weights = [], []
    for q in np.unique(query_id):
        rows = query_id == q
        rows &= labels | (y_score > -np.inf)  # the candidate rule
        yq, sq, wq = labels[rows], y_score[rows].copy(), w[rows]
        if yq.all() or not yq.any() or not wq.any():  # no AUC, or no weight
            values.append(np.nan)
            weights.append(0.0)
            continue
        # roc_auc_score rejects infinite scores; only their order matters
        finite = sq[np.isfinite(sq)]
        low = finite.min() - 1.0 if finite.size else 0.0
        high = finite.max() + 1.0 if finite.size else 1.0
        sq[sq == -np.inf], sq[sq == np.inf] = low, high
        values.append(roc_auc_score(yq, sq, sample_weight=wq))
        if weighting == "impressions":
            weights.append(wq.sum())
        else:
            weights.append(1.0)
    values, weights = np.array(values), np.array(weights)
    keep = ~np.isnan(values)
    return values, np.average(values[keep], weights=weights[keep])


def click_log(seed, n_rows=600, n_users=70):
    """A shuffled CTR log: clicks, coarse probabilities (ties), user ids."""
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n_rows)
    user_names = np.array([f"user{u:03d}" for u in users], dtype=object)
    p = np.round(rng.random(n_rows), 1)  # ties within users
    p[rng.random(n_rows) < 0.05] = -np.inf
    clicks = (rng.random(n_rows) < 0.2 + 0.5 * np.nan_to_num(p, neginf=0)).astype(int)
    clicks[users == 3] = 0  # single-class users are skipped
    clicks[users == 4] = 1
    row_w = rng.integers(1, 5, n_rows).astype(float)
    return clicks, p, user_names, row_w


@pytest.mark.parametrize("weighting", ["impressions", "uniform"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "row_weights"])
@pytest.mark.parametrize("seed", [0, 1])
def test_long_form_equals_roc_auc_per_query(seed, weighted, weighting):
    y, s, qid, row_w = click_log(seed)
    w = row_w if weighted else None
    values, mean = reference_gauc(y, s, qid, weighting=weighting, sample_weight=w)
    got = srm.group_auc_score(
        y, s, query_id=qid, query_weighting=weighting, sample_weight=w, average=None
    )
    assert_allclose(got, values, rtol=0, atol=1e-12)  # nan where skipped
    got = srm.group_auc_score(
        y, s, query_id=qid, query_weighting=weighting, sample_weight=w
    )
    assert got == pytest.approx(mean, rel=0, abs=1e-12)
    assert type(got) is float


def test_relevance_threshold():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 400)
    s = rng.random(400)
    qid = rng.integers(0, 30, 400)
    values, mean = reference_gauc(y, s, qid, weighting="impressions", threshold=2)
    got = srm.group_auc_score(y, s, query_id=qid, relevance_threshold=2)
    assert got == pytest.approx(mean, rel=0, abs=1e-12)


@pytest.mark.parametrize("weighting", ["impressions", "uniform"])
def test_2d_forms_equal_roc_auc_per_row(weighting):
    """2-D: each row is a query; sample_weight multiplies the query weight."""
    rng = np.random.default_rng(4)
    Y = (rng.random((40, 15)) < 0.3).astype(int)
    Y[0], Y[1] = 0, 1
    S = np.round(rng.random((40, 15)), 1)
    S[rng.random((40, 15)) < 0.1] = -np.inf
    qw = rng.integers(0, 4, 40).astype(float)
    r, c = np.divmod(np.arange(Y.size), Y.shape[1])
    values, _ = reference_gauc(Y.ravel(), S.ravel(), r, weighting=weighting)
    # 2-D: the query weight times the rows the AUC reads ("impressions":
    # positives and candidate negatives, the -inf negatives left out) or 1
    read = ((Y > 0) | (S > -np.inf)).sum(axis=1)
    base = read if weighting == "impressions" else 1.0
    keep = ~np.isnan(values)
    mean = np.average(values[keep], weights=(base * qw)[keep])
    for y_true in (Y, sp.csr_matrix(Y), sp.csc_matrix(Y)):
        got = srm.group_auc_score(
            y_true, S, query_weighting=weighting, sample_weight=qw
        )
        assert got == pytest.approx(mean, rel=0, abs=1e-12)
        assert_allclose(
            srm.group_auc_score(y_true, S, average=None), values, rtol=0, atol=1e-12
        )
    # the long form of the same data, shuffled, with the query weight per
    # row: "impressions" sums it, so it equals the 2-D value; "uniform"
    # counts each query with a nonzero weight once
    perm = rng.permutation(Y.size)
    got = srm.group_auc_score(
        Y.ravel()[perm], S.ravel()[perm], query_id=r[perm],
        query_weighting=weighting, sample_weight=qw[r][perm],
    )  # fmt: skip
    if weighting == "uniform":
        mean = np.mean(values[keep & (qw > 0)])
    assert got == pytest.approx(mean, rel=0, abs=1e-12)


def test_uniform_weighting_counts_each_weighted_query_once():
    """Issue 18: row weights weigh the rows inside each query's AUC, never
    the query, under query_weighting="uniform" (long form and report)."""
    y = [1, 0, 0, 1, 0, 1]
    s = [0.9, 0.5, 0.95, 0.2, 0.3, 0.8]
    qid = [0, 0, 0, 1, 1, 1]
    w = [1.0, 1.0, 3.0, 2.0, 1.0, 1.0]
    per_query = [
        roc_auc_score(y[:3], s[:3], sample_weight=w[:3]),
        roc_auc_score(y[3:], s[3:], sample_weight=w[3:]),
    ]
    assert per_query == pytest.approx([0.25, 1 / 3], abs=1e-12)  # by hand
    got = srm.group_auc_score(
        y, s, query_id=qid, sample_weight=w, query_weighting="uniform"
    )
    assert got == pytest.approx(np.mean(per_query), rel=0, abs=1e-12)
    report = srm.ranking_report(
        y, s, query_id=qid, sample_weight=w, metrics=["gauc"], k=1,
        query_weighting="uniform", output_dict=True,
    )  # fmt: skip
    assert report["gauc"] == pytest.approx(np.mean(per_query), rel=0, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_report_gauc_equals_reference(seed):
    y, s, qid, row_w = click_log(seed)
    for weighting in ("impressions", "uniform"):
        _, mean = reference_gauc(y, s, qid, weighting=weighting, sample_weight=row_w)
        report = srm.ranking_report(
            y, s, query_id=qid, sample_weight=row_w, metrics=["gauc"], k=1,
            query_weighting=weighting, output_dict=True,
        )  # fmt: skip
        assert report["gauc"] == pytest.approx(mean, rel=0, abs=1e-12)


def test_all_queries_single_class_is_nan_with_warning():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning):
        got = srm.group_auc_score([1, 1, 0], [0.2, 0.3, 0.1], query_id=[1, 1, 2])
    assert np.isnan(got)


def test_many_queries_uses_the_wide_grouping():
    """More than 65536 queries take the two-pass radix grouping."""
    rng = np.random.default_rng(5)
    n_q = 70_000
    qid = np.concatenate([np.arange(n_q), np.arange(n_q)]) * 3 + 7
    y = np.concatenate([np.ones(n_q), np.zeros(n_q)])
    s = rng.random(2 * n_q)
    perm = rng.permutation(2 * n_q)
    got = srm.group_auc_score(y[perm], s[perm], query_id=qid[perm], average=None)
    expected = (s[:n_q] > s[n_q:]).astype(float)
    assert_allclose(got, expected)


@pytest.mark.parametrize("fmt", ["csr", "coo", "csr_array"])
def test_sparse_wide_rows_with_ties(fmt):
    """Sparse y_true over many items: relevant items tied with each other and
    with irrelevant ones, explicit zeros, -inf and +inf scores."""
    rng = np.random.default_rng(6)
    n, m = 30, 1500
    Y = sp.random(n, m, density=0.01, random_state=7, format="csr")
    Y.data = np.ceil(Y.data * 3)
    Y.data[::5] = 0.0  # explicit zeros are not relevant
    S = np.round(rng.random((n, m)), 2)
    S[:, :40] = 0.5  # a wide tie group in every row
    S[rng.random((n, m)) < 0.05] = -np.inf
    S[0, :3] = np.inf
    cls = getattr(sp, fmt if fmt.endswith("_array") else fmt + "_matrix")
    Ysp = cls(Y)
    r, c = np.divmod(np.arange(n * m), m)
    for threshold in (None, 2):
        values, mean = reference_gauc(
            Y.toarray().ravel(), S.ravel(), r, weighting="impressions",
            threshold=threshold,
        )  # fmt: skip
        got = srm.group_auc_score(Ysp, S, relevance_threshold=threshold, average=None)
        assert_allclose(got, values, rtol=0, atol=1e-12)
        got = srm.group_auc_score(Ysp, S, relevance_threshold=threshold)
        assert got == pytest.approx(mean, rel=0, abs=1e-12)


def test_weighted_auc_of_a_query_does_not_depend_on_the_other_queries():
    """A query's AUC keeps full precision next to queries whose row
    weights are 2**40 times larger (row weights are scaled per query)."""
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n) * 1e-6
    qid = np.full(n, 99)  # after the heavy queries in the running sums
    alone = srm.group_auc_score(y, s, query_id=qid, sample_weight=w, average=None)
    heavy = rng.uniform(0.5, 2.0, 5 * n) * 2.0**40
    others = srm.group_auc_score(
        np.concatenate([rng.integers(0, 2, 5 * n), y]),
        np.concatenate([rng.normal(size=5 * n), s]),
        query_id=np.concatenate([np.repeat(np.arange(1, 6), n), qid]),
        sample_weight=np.concatenate([heavy, w]),
        average=None,
    )
    expected = roc_auc_score(y, s, sample_weight=w)
    assert alone[0] == pytest.approx(expected, rel=1e-13)
    assert others[-1] == pytest.approx(expected, rel=1e-13)


def _many_runs_log(seed, n_rows=6000, n_users=400):
    """A log with single-class users, ties, -inf, zero weights and queries
    weighted 2**-40..2**40."""
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n_rows)
    y = np.where(rng.random(n_rows) < 0.25, rng.integers(1, 3, n_rows), 0)
    y[users % 7 == 0] = 0  # no click
    y[users % 13 == 0] = 2  # clicks only
    s = np.round(rng.random(n_rows), 2)  # ties
    s[users % 11 == 0] = 0.5  # constant scores
    s[rng.random(n_rows) < 0.03] = -np.inf
    w = rng.random(n_rows) * 2.0 ** rng.integers(-40, 41, n_users)[users]
    w[rng.random(n_rows) < 0.1] = 0.0
    return y, s, users * 3 + 5, w


def _one_pass_gauc(y, s, qid, w, weighting, skip):
    """The previous long-form implementation: the rows sorted in the same
    (query, score) order, then one running sum over all of them."""
    from sklearn_rankmetrics._engine import _rank
    from sklearn_rankmetrics._metrics import _auc

    ids, codes = np.unique(qid, return_inverse=True)
    n_q = ids.size
    order = _rank.sorted_by_query(codes, n_q, s)
    q = np.repeat(np.arange(n_q), np.bincount(codes, minlength=n_q))
    s_sorted, pos = s[order], y[order] > 0
    if w is None:
        auc, total_pos, total_neg = _auc._auc_per_query(q, s_sorted, pos, None, n_q)
        rows = total_pos + total_neg
    else:
        sums = np.bincount(codes, weights=w, minlength=n_q)
        scale = sums[q]
        row_w = np.zeros(q.shape[0])
        np.divide(w[order], scale, out=row_w, where=scale > 0)
        auc, total_pos, total_neg = _auc._auc_per_query(q, s_sorted, pos, row_w, n_q)
        # the weight of the rows the AUC reads (candidate rule), in row order
        read = (y > 0) | (s > -np.inf)
        rows = np.bincount(codes, weights=w * read, minlength=n_q)
        total_pos = total_pos * sums
    query_w = {"impressions": rows, "clicks": total_pos}.get(weighting, np.ones(n_q))
    if skip == "skip":
        auc = np.where(_auc._constant_scores(q, s_sorted, n_q, pos), np.nan, auc)
    return auc, query_w


@pytest.mark.parametrize("skip", ["keep", "skip"])
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "row_weights"])
@pytest.mark.parametrize("cells", [1, 64, 1000, 1 << 30])
def test_long_form_in_runs_equals_one_pass_bit_for_bit(
    monkeypatch, cells, weighted, weighting, skip
):
    """The long form is scored run after run of queries (_PART_CELLS rows):
    per-query values and weights are those of one pass over all the rows
    in the same order (the previous implementation), bit for bit; the
    weighted running sum carries over from run to run."""
    from sklearn_rankmetrics._engine import _rank

    monkeypatch.setattr(_rank, "_PART_CELLS", cells)
    y, s, qid, w = _many_runs_log(0)
    w = w if weighted else None
    runs = _rank.query_runs(np.bincount(np.unique(qid, return_inverse=True)[1]))
    assert (runs is None) == (cells == 1 << 30)
    assert runs is None or len(runs) > 2
    expected, query_w = _one_pass_gauc(y, s, qid, w, weighting, skip)
    options = dict(
        query_id=qid, sample_weight=w, query_weighting=weighting, constant_scores=skip
    )
    got = srm.group_auc_score(y, s, average=None, **options)
    assert got.tobytes() == expected.tobytes()
    keep = ~np.isnan(expected)
    mean = np.add.reduce(query_w[keep] * expected[keep]) / query_w[keep].sum()
    assert srm.group_auc_score(y, s, **options) == mean


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "row_weights"])
def test_long_form_values_do_not_depend_on_the_runs(monkeypatch, weighted):
    """Unweighted, the counts are integers: bit for bit whatever the run
    size.  Weighted, rows tied within a query may be summed in another
    order when the runs change: equal to rounding."""
    from sklearn_rankmetrics._engine import _rank

    y, s, qid, w = _many_runs_log(2)
    w = w if weighted else None
    results = []
    for cells in (1 << 30, 1, 64, 1000):
        monkeypatch.setattr(_rank, "_PART_CELLS", cells)
        results.append(
            srm.group_auc_score(y, s, query_id=qid, sample_weight=w, average=None)
        )
    for got in results[1:]:
        if weighted:
            assert_allclose(got, results[0], rtol=1e-13, atol=1e-15)
        else:
            assert got.tobytes() == results[0].tobytes()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "row_weights"])
def test_long_form_in_runs_equals_roc_auc_per_query(monkeypatch, weighted):
    from sklearn_rankmetrics._engine import _rank

    monkeypatch.setattr(_rank, "_PART_CELLS", 100)
    y, s, qid, w = _many_runs_log(1, n_rows=1500, n_users=120)
    w = w if weighted else None
    values, mean = reference_gauc(y, s, qid, weighting="impressions", sample_weight=w)
    got = srm.group_auc_score(y, s, query_id=qid, sample_weight=w, average=None)
    assert_allclose(got, values, rtol=1e-12, atol=1e-12)  # nan where skipped
    got = srm.group_auc_score(y, s, query_id=qid, sample_weight=w)
    assert got == pytest.approx(mean, rel=1e-12)


def test_long_form_runs_of_empty_groups(monkeypatch):
    """A run holding only queries without rows (trailing empty groups of
    the calibration report) gives nan, as in one pass."""
    from sklearn_rankmetrics._engine import _rank
    from sklearn_rankmetrics._metrics import _auc

    codes = np.repeat(np.arange(6), 3)
    y = np.tile([0.0, 1.0, 0.0], 6)
    p = np.linspace(0, 1, 18)
    expected = [0.5] * 6 + [np.nan] * 3
    for cells in (4, 1 << 18):
        monkeypatch.setattr(_rank, "_PART_CELLS", cells)
        auc, w = _auc.gauc_per_query("long", y, p, codes, 9, None, None, "impressions")
        assert_allclose(auc, expected)
        assert_allclose(w, [3.0] * 6 + [0.0] * 3)


def _id_kinds(users):
    """The same queries under integer ids of several kinds: negative,
    spread over the int64 range, unsigned above 2**63, 32-bit, strings."""
    spread = np.random.default_rng(5).choice(2**62, users.max() + 1, replace=False)
    return {
        "int64": users * 3 + 5,
        "negative": users - 200,
        "spread": spread[users] - 2**61,
        "uint64": users.astype(np.uint64) * np.uint64(2**52) + np.uint64(2**63),
        "int32": (users * 7).astype(np.int32),
        "string": np.array([f"u{u:04d}" for u in users]),
    }


@pytest.mark.parametrize("skip", ["keep", "skip"])
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("bucket_rows", [1, 16, 700, 1 << 30])
@pytest.mark.parametrize("split_rows", [333, 1 << 30])
def test_hashed_buckets_equal_one_pass_bit_for_bit(
    monkeypatch, split_rows, bucket_rows, weighting, skip
):
    """Unweighted long forms with integer ids are split into buckets by a
    hash of the id (_BUCKET_ROWS rows each, laid out block by block of
    _SPLIT_ROWS rows) and never numbered as a whole: the per-query values
    (in np.unique order of the ids), the weights and the mean are those of
    one pass over all the rows, bit for bit, for every kind of integer id
    and whatever the bucket and block sizes; string ids (numbered first,
    the same buckets over the codes) give the same bits."""
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", bucket_rows)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", split_rows)
    y, s, users, _ = _many_runs_log(3)
    options = dict(query_weighting=weighting, constant_scores=skip)
    for kind, qid in _id_kinds(users).items():
        expected, query_w = _one_pass_gauc(y, s, qid, None, weighting, skip)
        keep = ~np.isnan(expected)
        mean = np.add.reduce(query_w[keep] * expected[keep]) / query_w[keep].sum()
        got = srm.group_auc_score(y, s, query_id=qid, average=None, **options)
        assert got.tobytes() == expected.tobytes(), kind
        assert srm.group_auc_score(y, s, query_id=qid, **options) == mean, kind


@pytest.mark.parametrize("seed", range(4))
def test_hashed_buckets_equal_roc_auc_per_query(monkeypatch, seed):
    """Many buckets (8 rows each) on a shuffled log with ties, -inf and
    single-class users, against the per-query roc_auc_score reference; the
    inputs are not modified."""
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", 8)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", 256)
    y, s, users, _ = _many_runs_log(seed, n_rows=1500, n_users=120)
    qid = _id_kinds(users)["spread"]
    copies = y.copy(), s.copy(), qid.copy()
    values, mean = reference_gauc(y, s, qid, weighting="impressions", threshold=2)
    got = srm.group_auc_score(y, s, query_id=qid, relevance_threshold=2, average=None)
    assert_allclose(got, values, rtol=1e-12, atol=1e-12)
    got = srm.group_auc_score(y, s, query_id=qid, relevance_threshold=2)
    assert got == pytest.approx(mean, rel=1e-12)
    for before, after in zip(copies, (y, s, qid), strict=True):
        assert before.tobytes() == after.tobytes()


def test_hashed_buckets_many_buckets_in_16_bit_keys(monkeypatch):
    """More than 128 buckets: the (bucket, positive) key takes 16 bits."""
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", 2)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", 1000)
    y, s, users, _ = _many_runs_log(4, n_rows=3000, n_users=1000)
    expected, _ = _one_pass_gauc(y, s, users, None, "impressions", "keep")
    got = srm.group_auc_score(y, s, query_id=users, average=None)
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("skip", ["keep", "skip"])
@pytest.mark.parametrize("weighting", ["impressions", "clicks", "uniform"])
@pytest.mark.parametrize("bucket_rows", [1, 50, 1 << 30])
def test_report_codes_hashed_equal_the_runs(monkeypatch, bucket_rows, weighting, skip):
    """gauc_per_query (the report's GAUC) takes the codes as integer ids
    in the hashed path when unweighted: per-query values and weights equal
    the run-by-run path's bit for bit, queries without rows included (nan,
    weight 0; 1 when uniform)."""
    from sklearn_rankmetrics._metrics import _auc

    monkeypatch.setattr(_auc, "_BUCKET_ROWS", bucket_rows)
    monkeypatch.setattr(_auc, "_SPLIT_ROWS", 512)
    y, s, users, _ = _many_runs_log(5, n_rows=2000, n_users=150)
    codes = np.unique(users, return_inverse=True)[1] * 2  # odd codes: no rows
    n_q = int(codes.max()) + 3
    args = (y, s, codes, n_q, None, None, weighting, skip)
    got_auc, got_w = _auc.gauc_per_query("long", *args)
    runs_auc, runs_w = _auc._gauc_long(*args)
    assert got_auc.tobytes() == runs_auc.tobytes()
    assert got_w.tobytes() == runs_w.astype(np.float64).tobytes()
    assert np.isnan(got_auc[1::2]).all()
