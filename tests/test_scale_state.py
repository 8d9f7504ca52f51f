"""Mergeable report states and the chunked RankingEvaluator: whatever the
chunking or the order of merges, the result is the in-memory report's."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import RankingEvaluator, ndcg_at_k, ranking_report
from sklearn_rankmetrics._evaluation._per_query import _means, _per_query_report
from sklearn_rankmetrics._evaluation._state import ReportState, chunk_state

RTOL = 1e-12
K = (1, 3, 10)
OPTIONS = [
    {},
    {"no_relevant": 0.0, "gain": "exponential"},
    {"relevance_threshold": 2, "query_weighting": "uniform"},
    {"ap_denominator": "min_k", "ignore_ties": True},
]


def make_rows(seed, n_queries=30, max_rows=12, weighted=True, spread=20):
    """Long-form rows in random order: coarse scores (many ties), grades
    0..3, queries without a relevant item, query weights spanning many
    powers of two (the engine rescales weights per call).

    GAUC's per-query values lose relative precision ~ (weight spread) *
    1e-16 (a cumulative sum over all the queries), so tests of per-query
    values use a small ``spread``."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    n = qid.size
    y = rng.integers(0, 4, size=n) * (rng.random(n) < 0.4)
    s = np.round(rng.random(n) * 4) / 4
    w = None
    if weighted:
        w_q = np.ldexp(
            rng.random(n_queries) + 0.01, rng.integers(-spread, spread + 1, n_queries)
        )
        w = np.repeat(w_q, sizes)
    perm = rng.permutation(n)
    return y[perm], s[perm], qid[perm], None if w is None else w[perm]


def in_memory(y, s, q, w, **options):
    report = _per_query_report(
        y, s, k=K, metrics=None, query_id=q, sample_weight=w, **options
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return _means(report)


def assert_same_report(got, want):
    assert list(got) == list(want)
    assert_allclose(list(got.values()), list(want.values()), rtol=RTOL, atol=0)


def _take(rows, mask):
    return tuple(None if a is None else a[mask] for a in rows)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_chunks=st.integers(1, 6),
    options=st.sampled_from(OPTIONS),
    data=st.data(),
)
def test_merged_states_equal_in_memory(seed, n_chunks, options, data):
    """States of any partition of the queries, merged in any order and
    tree shape, give the in-memory report (empty chunks included)."""
    rows = make_rows(seed)
    y, s, q, w = rows
    ids = np.unique(q)
    chunk_of = np.random.default_rng(seed).integers(0, n_chunks, size=ids.size)
    states = []
    for c in range(n_chunks):
        yc, sc, qc, wc = _take(rows, np.isin(q, ids[chunk_of == c]))
        states.append(
            chunk_state(
                yc, sc, query_id=qc, sample_weight=wc, k=K, metrics=None, **options
            )
        )
    states = data.draw(st.permutations(states))
    while len(states) > 1:  # merge two random neighbours, in random order
        i = data.draw(st.integers(0, len(states) - 2))
        a, b = states[i], states[i + 1]
        if data.draw(st.booleans()):
            a, b = b, a
        states[i : i + 2] = [a.merge(b)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = states[0].means()
    assert_same_report(got, in_memory(y, s, q, w, **options))
    assert states[0].n_queries == ids.size


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    cuts=st.lists(st.integers(0, 300), max_size=8),
    options=st.sampled_from(OPTIONS[:3]),
)
def test_sorted_rows_cut_anywhere(seed, cuts, options):
    """Rows sorted by query, cut at arbitrary rows (a query may run over
    several chunks): the open query carries over."""
    y, s, q, w = make_rows(seed)
    order = np.argsort(q, kind="stable")
    y, s, q, w = y[order], s[order], q[order], w[order]
    bounds = [0, *sorted(c for c in cuts if c < q.size), q.size]
    ev = RankingEvaluator(k=K, **options)
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        ev.update(y[lo:hi], s[lo:hi], query_id=q[lo:hi], sample_weight=w[lo:hi])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = ev.result(output_dict=True)
    assert_same_report(got, in_memory(y, s, q, w, **options))


def test_one_query_over_every_chunk():
    y, s, q, w = make_rows(1, n_queries=3, max_rows=40)
    order = np.argsort(q, kind="stable")
    y, s, q, w = y[order], s[order], q[order], w[order]
    big = q == q[-1]  # the last query's rows, one per chunk
    ev = RankingEvaluator(k=K)
    ev.update(y[~big], s[~big], query_id=q[~big], sample_weight=w[~big])
    for i in np.flatnonzero(big):
        ev.update(
            y[i : i + 1],
            s[i : i + 1],
            query_id=q[i : i + 1],
            sample_weight=w[i : i + 1],
        )
    assert ev.n_chunks_ == 1 + big.sum()
    assert_same_report(ev.result(output_dict=True), in_memory(y, s, q, w))


def test_unsorted_chunks_of_whole_queries():
    """Rows of a query anywhere inside its chunk: whole-query chunks need no
    sorting."""
    y, s, q, w = make_rows(2)
    ids = np.unique(q)
    ev = RankingEvaluator(k=K)
    for part in np.array_split(ids, 4):
        m = np.isin(q, part)
        ev.update(y[m], s[m], query_id=q[m], sample_weight=w[m])
    assert_same_report(ev.result(output_dict=True), in_memory(y, s, q, w))


def test_reappearing_query_raises_and_changes_nothing():
    y, s, q, w = make_rows(3, weighted=False)
    order = np.argsort(q, kind="stable")
    y, s, q = y[order], s[order], q[order]
    first, second = q < 60, q >= 60
    ev = RankingEvaluator(k=K)
    ev.update(y[first], s[first], query_id=q[first])
    ev.update(y[second], s[second], query_id=q[second])
    before = ev.result(output_dict=True)
    closed = int(q[0])  # closed in chunk 1
    with pytest.raises(
        ValueError,
        match=rf"query_id={closed} appears in chunk 3 but was closed in chunk 1",
    ):
        ev.update([1, 0], [0.3, 0.2], query_id=[10_000, closed])
    assert ev.n_chunks_ == 2
    assert ev.result(output_dict=True) == before
    # the open query (the last row's) may continue
    ev.update([1], [0.1], query_id=[q[-1]])
    y2, s2, q2 = np.append(y, 1), np.append(s, 0.1), np.append(q, q[-1])
    assert_same_report(ev.result(output_dict=True), in_memory(y2, s2, q2, None))


def test_result_keeps_the_open_query_open():
    ev = RankingEvaluator(k=2, metrics=["ndcg"])
    ev.update([1, 0], [0.9, 0.1], query_id=["a", "a"])
    first = ev.result(output_dict=True)
    ev.update([2], [0.05], query_id=["a"])  # still open: no error
    assert first == {"ndcg@2": 1.0}
    want = ndcg_at_k([1, 0, 2], [0.9, 0.1, 0.05], k=2, query_id=["a"] * 3)
    assert ev.result(output_dict=True)["ndcg@2"] == pytest.approx(want, rel=RTOL)
    assert ev.result(output_dict=True)["ndcg@2"] < 1.0


def test_merge_evaluators():
    y, s, q, w = make_rows(4)
    ids = np.unique(q)
    a, b = RankingEvaluator(k=K), RankingEvaluator(k=K)
    m = np.isin(q, ids[::2])
    a.update(y[m], s[m], query_id=q[m], sample_weight=w[m])
    b.update(y[~m], s[~m], query_id=q[~m], sample_weight=w[~m])
    want = in_memory(y, s, q, w)
    assert_same_report(a.merge(b).result(output_dict=True), want)
    assert_same_report(b.merge(a).result(output_dict=True), want)
    # neither is modified
    assert a.n_queries_ + b.n_queries_ + 2 == ids.size  # two open queries
    with pytest.raises(ValueError, match="evaluated by both evaluators"):
        a.merge(a)
    with pytest.raises(ValueError, match="different parameters"):
        a.merge(RankingEvaluator(k=3))
    with pytest.raises(TypeError, match="RankingEvaluator"):
        a.merge(ReportState())


def test_per_query_values_sorted_like_in_memory():
    y, s, q, w = make_rows(5, spread=2)
    want = _per_query_report(y, s, k=K, metrics=None, query_id=q, sample_weight=w)
    ev = RankingEvaluator(k=K, per_query=True)
    ids = np.unique(q)
    for part in (ids[10:], ids[:3], ids[3:10]):  # not in id order
        m = np.isin(q, part)
        ev.update(y[m], s[m], query_id=q[m], sample_weight=w[m])
    got = ev.result(output_dict=True)
    assert_array_equal(got["query_id"], want.query_id)
    assert list(got) == ["query_id", *want.values]
    for name, values in want.values.items():
        assert_allclose(got[name], values, rtol=RTOL)


def test_string_ids_and_pandas_chunks():
    pd = pytest.importorskip("pandas")
    y, s, q, w = make_rows(6, weighted=False)
    q = np.array([f"user{i}" for i in q], dtype=object)
    frame = pd.DataFrame({"q": q, "y": y, "s": s}).sort_values("q")
    ev = RankingEvaluator(k=K)
    for chunk in np.array_split(np.arange(len(frame)), 5):
        part = frame.iloc[chunk]
        ev.update(part["y"], part["s"], query_id=part["q"])
    assert_same_report(ev.result(output_dict=True), in_memory(y, s, q, None))


def test_text_and_dataframe_as_ranking_report():
    pytest.importorskip("pandas")
    y, s, q, w = make_rows(7, spread=2)
    ev = RankingEvaluator(k=K)
    for part in np.array_split(np.unique(q), 3):
        m = np.isin(q, part)
        ev.update(y[m], s[m], query_id=q[m], sample_weight=w[m])
    want = ranking_report(y, s, k=K, query_id=q, sample_weight=w)
    assert ev.result() == want
    assert ev.result(digits=2) == ranking_report(
        y, s, k=K, query_id=q, sample_weight=w, digits=2
    )
    ev = RankingEvaluator(k=K, per_query=True).update(y, s, query_id=q, sample_weight=w)
    got = ev.result()
    want = ranking_report(y, s, k=K, query_id=q, sample_weight=w, per_query=True)
    assert list(got.columns) == list(want.columns)
    assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=RTOL)


def test_no_rows_and_empty_chunks():
    ev = RankingEvaluator(k=K)
    ev.update([], [], query_id=[])
    with pytest.raises(ValueError, match="no rows were evaluated"):
        ev.result(output_dict=True)
    ev.update([1, 0], [0.2, 0.1], query_id=[1, 1])
    ev.update([], [], query_id=[])
    assert ev.result(output_dict=True)["ndcg@1"] == 1.0


def test_undefined_metric_is_nan_with_warning():
    ev = RankingEvaluator(k=2, metrics=["ndcg", "gauc"])
    ev.update([0, 0, 0], [0.3, 0.2, 0.1], query_id=[1, 1, 2])
    with pytest.warns(UndefinedMetricWarning, match="ndcg@2, gauc"):
        out = ev.result(output_dict=True)
    assert np.isnan(out["ndcg@2"]) and np.isnan(out["gauc"])


def test_bad_chunks():
    ev = RankingEvaluator(k=2)
    with pytest.raises(ValueError, match="in chunk 1, y_score has shape"):
        ev.update([1, 0], [0.1], query_id=[1, 1])
    with pytest.raises(ValueError, match="NaN"):
        ev.update([1, 0], [0.1, 0.2], query_id=[1.0, np.nan])
    ev.update([1, 0], [0.1, 0.2], query_id=[1, 1], sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match="chunk 2 lacks sample_weight"):
        ev.update([1], [0.1], query_id=[2])
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        RankingEvaluator(metrics=["nope"])
    with pytest.raises(ValueError, match="gain"):
        RankingEvaluator(gain="quadratic")


def test_weights_rescaled_per_chunk_add_up():
    """Chunks whose largest weights differ by 2**60: the engine rescales
    each call, the states bring the sums back to one scale."""
    y = np.array([1, 0, 0, 1])
    s = np.array([0.9, 0.1, 0.8, 0.2])
    q = np.array([1, 1, 2, 2])
    w = np.array([2.0**30, 2.0**30, 2.0**-30, 2.0**-30])
    ev = RankingEvaluator(k=1, metrics=["precision"])
    ev.update(y[:2], s[:2], query_id=q[:2], sample_weight=w[:2])
    ev.update(y[2:], s[2:], query_id=q[2:], sample_weight=w[2:])
    want = (2.0**30 * 1.0 + 2.0**-30 * 0.0) / (2.0**30 + 2.0**-30)
    assert ev.result(output_dict=True)["precision@1"] == pytest.approx(want, rel=RTOL)


def test_core_import_pulls_no_dataframe_library():
    """``import sklearn_rankmetrics`` imports no engine and no data-frame
    library beyond what scikit-learn itself imports (scikit-learn 1.9
    imports pandas when it is installed)."""
    code = (
        "import sys; import sklearn.metrics; before = set(sys.modules); "
        "import sklearn_rankmetrics, sklearn_rankmetrics._evaluation._state; "
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} & "
        "{'pandas', 'dask', 'distributed', 'pyspark', 'pyarrow', 'polars'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_err_is_refused_chunk_by_chunk():
    """ERR's scale is the largest grade of the whole input: a chunk cannot
    know it, so the chunked evaluator refuses it rather than give a value
    that depends on the chunking."""
    with pytest.raises(
        ValueError, match="'err' without max_grade cannot be evaluated chunk by"
    ):
        RankingEvaluator(k=3, metrics=["ndcg", "err"])
