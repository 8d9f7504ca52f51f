"""RankingEvaluator(window=N): ``result(window=True)`` is the report of the
queries completed by the last N updates -- a query belongs to the last
update that brought rows of it -- equal to ranking_report on those
queries' rows, whatever the chunking and the merges."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankmetrics import RankingEvaluator, ndcg_at_k, ranking_report

RTOL = 1e-12
K = (1, 3, 10)
OPTIONS = [
    {},
    {"no_relevant": 0.0, "gain": "exponential"},
    {"relevance_threshold": 2, "query_weighting": "uniform"},
]


# ---------------------------------------------------------------------------
# Data and the slow reference
# ---------------------------------------------------------------------------
def make_rows(seed, n_queries=25, max_rows=10, spread=20, first_id=0):
    """Long-form rows grouped by query (queries in random order, rows of a
    query in random order): coarse scores (ties), grades 0..3, queries
    without a relevant item, query weights over many powers of two."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, size=n_queries)
    ids = first_id + rng.permutation(n_queries) * 5 + 1
    q = np.repeat(ids, sizes)
    n = q.size
    y = rng.integers(0, 4, size=n) * (rng.random(n) < 0.4)
    s = np.round(rng.random(n) * 4) / 4
    w_q = np.ldexp(
        rng.random(n_queries) + 0.01, rng.integers(-spread, spread + 1, n_queries)
    )
    w = np.repeat(w_q, sizes)
    return y, s, q, w


def cut(rows, bounds, rng=None):
    """The chunks of ``rows`` (grouped by query) between ``bounds``; with
    ``rng``, each chunk's rows shuffled but those of its last row's query,
    which stay last (so that the query can run on into the next chunk)."""
    chunks = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        chunk = tuple(a[lo:hi] for a in rows)
        if rng is not None and hi > lo:
            q = chunk[2]
            last = q == q[-1]
            order = np.concatenate(
                [rng.permutation(np.flatnonzero(~last)), np.flatnonzero(last)]
            )
            chunk = tuple(a[order] for a in chunk)
        chunks.append(chunk)
    return chunks


def random_chunks(rows, cuts, rng=None):
    n = rows[0].size
    return cut(rows, [0, *sorted(c for c in cuts if c <= n), n], rng)


def window_rows(chunks, window):
    """The rows of the queries whose last row is in one of the last
    ``window`` chunks (the slow, obvious reading of the rule)."""
    last = {}
    for number, (_, _, q, _) in enumerate(chunks, start=1):
        for query in q.tolist():
            last[query] = number
    first = len(chunks) - window + 1
    keep = [query for query, number in last.items() if number >= first]
    y, s, q, w = (np.concatenate([c[i] for c in chunks]) for i in range(4))
    m = np.isin(q, keep)
    return y[m], s[m], q[m], w[m]


def feed(ev, chunks, weighted=True):
    for y, s, q, w in chunks:
        ev.update(y, s, query_id=q, sample_weight=w if weighted else None)
    return ev


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


def report_of(rows, options, weighted=True, **kwargs):
    y, s, q, w = rows
    return quiet(
        ranking_report,
        y,
        s,
        k=K,
        query_id=q,
        sample_weight=w if weighted else None,
        output_dict=True,
        **options,
        **kwargs,
    )


def assert_same_report(got, want):
    assert list(got) == list(want)
    assert_allclose(list(got.values()), list(want.values()), rtol=RTOL, atol=0)


# ---------------------------------------------------------------------------
# Equal to ranking_report on the window's rows
# ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    cuts=st.lists(st.integers(0, 200), max_size=9),
    window=st.integers(1, 5),
    options=st.sampled_from(OPTIONS),
    shuffle=st.booleans(),
    weighted=st.booleans(),
)
def test_window_equals_report_on_its_queries(
    seed, cuts, window, options, shuffle, weighted
):
    """Rows cut anywhere (queries held over one or several updates, empty
    updates): after every update, the window is ranking_report on the rows
    of the queries completed by the last ``window`` updates, and the
    lifetime value is unchanged by the window."""
    rows = make_rows(seed)
    rng = np.random.default_rng(seed) if shuffle else None
    chunks = random_chunks(rows, cuts, rng)
    ev = RankingEvaluator(k=K, window=window, **options)
    plain = RankingEvaluator(k=K, **options)
    for i, chunk in enumerate(chunks, start=1):
        feed(ev, [chunk], weighted)
        feed(plain, [chunk], weighted)
        want_rows = window_rows(chunks[:i], window)
        if want_rows[0].size == 0:
            with pytest.raises(ValueError, match="completed no query"):
                ev.result(output_dict=True, window=True)
        else:
            got = quiet(ev.result, output_dict=True, window=True)
            assert_same_report(got, report_of(want_rows, options, weighted))
        assert len(ev._recent) <= window  # bounded memory
    lifetime = quiet(ev.result, output_dict=True)
    assert_same_report(lifetime, report_of(rows, options, weighted))
    assert_same_report(lifetime, quiet(plain.result, output_dict=True))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_chunks=st.integers(1, 8),
    window=st.integers(1, 4),
    options=st.sampled_from(OPTIONS),
)
def test_updates_of_whole_queries_equal_a_fresh_evaluator(
    seed, n_chunks, window, options
):
    """Each update a batch of whole queries (some empty): the window is
    exactly a fresh evaluator fed the last ``window`` updates and
    ranking_report on their rows."""
    rows = make_rows(seed)
    rng = np.random.default_rng(seed)
    q = rows[2]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])  # query boundaries
    bounds = np.sort(rng.choice(np.r_[starts, q.size], size=n_chunks - 1))
    chunks = cut(rows, [0, *bounds.tolist(), q.size], rng)
    ev = feed(RankingEvaluator(k=K, window=window, **options), chunks)
    recent = chunks[-window:]
    recent_rows = tuple(np.concatenate([c[i] for c in recent]) for i in range(4))
    if recent_rows[0].size == 0:
        with pytest.raises(ValueError, match="completed no query"):
            ev.result(window=True)
        return
    got = quiet(ev.result, output_dict=True, window=True)
    fresh = feed(RankingEvaluator(k=K, **options), recent)
    assert_same_report(got, quiet(fresh.result, output_dict=True))
    assert_same_report(got, report_of(recent_rows, options))


def test_per_query_table_of_the_window():
    rows = make_rows(3, spread=2)
    chunks = random_chunks(rows, [17, 40, 41, 41, 90, 120])
    ev = feed(RankingEvaluator(k=K, per_query=True, window=3), chunks)
    got = ev.result(output_dict=True, window=True)
    want_rows = window_rows(chunks, 3)
    want = report_of(want_rows, {}, per_query=True)
    assert list(got) == list(want)
    assert_array_equal(got["query_id"], want["query_id"])
    for name in list(want)[1:]:
        assert_allclose(got[name], want[name], rtol=RTOL)
    # the lifetime table has every query
    assert_array_equal(ev.result(output_dict=True)["query_id"], np.unique(rows[2]))


def test_text_table_of_the_window():
    rows = make_rows(4, spread=2)
    chunks = random_chunks(rows, [30, 60, 95])
    ev = feed(RankingEvaluator(k=K, window=2), chunks)
    y, s, q, w = window_rows(chunks, 2)
    assert ev.result(window=True) == ranking_report(
        y, s, k=K, query_id=q, sample_weight=w
    )
    assert ev.result(window=True, digits=2) == ranking_report(
        y, s, k=K, query_id=q, sample_weight=w, digits=2
    )


# ---------------------------------------------------------------------------
# Queries held across updates: hand-worked cases
# ---------------------------------------------------------------------------
def window_ids(ev):
    return ev.result(output_dict=True, window=True)["query_id"].tolist()


def test_held_query_belongs_to_the_update_of_its_last_row():
    """Update 1 ends with query b (held open); update 2 starts a new query,
    so b closes there -- but b's last row is in update 1: b belongs to
    update 1, not to update 2."""
    ev = RankingEvaluator(k=2, metrics=["ndcg"], per_query=True, window=1)
    ev.update([1, 0, 1], [0.9, 0.1, 0.5], query_id=["a", "a", "b"])
    assert window_ids(ev) == ["a", "b"]  # b open, its last row in update 1
    ev.update([0, 1], [0.4, 0.3], query_id=["c", "c"])
    assert window_ids(ev) == ["c"]
    ev2 = RankingEvaluator(k=2, metrics=["ndcg"], per_query=True, window=2)
    ev2.update([1, 0, 1], [0.9, 0.1, 0.5], query_id=["a", "a", "b"])
    ev2.update([0, 1], [0.4, 0.3], query_id=["c", "c"])
    assert window_ids(ev2) == ["a", "b", "c"]


def test_held_query_continued_belongs_to_the_later_update_whole():
    """b runs on from update 1 into update 2: it belongs to update 2 and is
    evaluated on all its rows (its row of update 1 included)."""
    ev = RankingEvaluator(k=2, metrics=["ndcg"], per_query=True, window=1)
    ev.update([1, 0, 0], [0.9, 0.1, 0.8], query_id=["a", "a", "b"])
    ev.update([2, 1, 0], [0.5, 0.4, 0.3], query_id=["b", "c", "c"])
    got = ev.result(output_dict=True, window=True)
    assert got["query_id"].tolist() == ["b", "c"]
    # b: grades [0, 2] by scores [0.8, 0.5]; the hand-computed NDCG@2
    want_b = (3 / np.log2(3)) / 3.0
    assert got["ndcg@2"][0] == pytest.approx(want_b, rel=RTOL)
    assert want_b == pytest.approx(ndcg_at_k([[0, 2]], [[0.8, 0.5]], k=2), rel=RTOL)
    assert got["ndcg@2"][1] == 1.0
    # a fresh evaluator of update 2 alone sees only b's second row
    fresh = RankingEvaluator(k=2, metrics=["ndcg"], per_query=True)
    fresh.update([2, 1, 0], [0.5, 0.4, 0.3], query_id=["b", "c", "c"])
    assert fresh.result(output_dict=True)["ndcg@2"][0] == 1.0


def test_open_query_over_several_updates_and_empty_updates():
    ev = RankingEvaluator(k=2, metrics=["ndcg"], per_query=True, window=1)
    ev.update([1, 1], [0.9, 0.2], query_id=["a", "b"])
    ev.update([0], [0.7], query_id=["b"])
    ev.update([1], [0.1], query_id=["b"])
    assert window_ids(ev) == ["b"]  # open, its last row in update 3
    got = ev.result(output_dict=True, window=True)["ndcg@2"][0]
    want = ndcg_at_k([[1, 0, 1]], [[0.2, 0.7, 0.1]], k=2)
    assert got == pytest.approx(want, rel=RTOL)
    ev.update([], [], query_id=[])  # update 4: no rows, completes nothing
    with pytest.raises(ValueError, match="the last 1 updates completed no query"):
        ev.result(window=True)
    ev.update([0, 1], [0.3, 0.6], query_id=["c", "c"])  # closes b (update 3)
    assert window_ids(ev) == ["c"]
    assert ev.result(output_dict=True)["query_id"].tolist() == ["a", "b", "c"]


def test_failed_update_changes_no_window():
    ev = RankingEvaluator(k=2, metrics=["ndcg"], window=2)
    ev.update([1, 0, 1], [0.9, 0.1, 0.5], query_id=[1, 1, 2])
    ev.update([0, 1], [0.4, 0.3], query_id=[3, 3])
    before = ev.result(output_dict=True, window=True)
    with pytest.raises(ValueError, match="query_id=1 appears in chunk 3"):
        ev.update([1, 0], [0.3, 0.2], query_id=[4, 1])
    # query 3 (held, of update 2) is evaluated first, then query 4 fails
    with pytest.raises(ValueError, match="y_score"):
        ev.update([1, 0], [np.nan, 0.2], query_id=[4, 5])
    assert ev.n_chunks_ == 2
    assert ev.result(output_dict=True, window=True) == before


def test_window_longer_than_the_updates_is_the_lifetime():
    rows = make_rows(5)
    chunks = random_chunks(rows, [10, 50, 51])
    ev = feed(RankingEvaluator(k=K, window=10), chunks)
    assert_same_report(
        quiet(ev.result, output_dict=True, window=True),
        quiet(ev.result, output_dict=True),
    )


# ---------------------------------------------------------------------------
# merge
# ---------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    cuts_a=st.lists(st.integers(0, 120), max_size=5),
    cuts_b=st.lists(st.integers(0, 120), max_size=5),
    window=st.integers(1, 6),
    n_after=st.integers(0, 2),
)
def test_merge_appends_other_updates_after_self(seed, cuts_a, cuts_b, window, n_after):
    """The merged window is that of self's updates followed by other's
    (held queries of both included), and stays so under further updates."""
    rows_a = make_rows(seed, n_queries=12)
    rows_b = make_rows(seed + 1, n_queries=12, first_id=1000)
    rows_c = make_rows(seed + 2, n_queries=6, first_id=2000)
    chunks_a = random_chunks(rows_a, cuts_a)
    chunks_b = random_chunks(rows_b, cuts_b)
    chunks_c = random_chunks(rows_c, [30, 60][:n_after])[:n_after]
    a = feed(RankingEvaluator(k=K, window=window), chunks_a)
    b = feed(RankingEvaluator(k=K, window=window), chunks_b)
    for first, second, chunks in (
        (a, b, chunks_a + chunks_b),
        (b, a, chunks_b + chunks_a),
    ):
        merged = feed(first.merge(second), chunks_c)
        chunks = chunks + chunks_c
        want_rows = window_rows(chunks, window)
        if want_rows[0].size == 0:
            with pytest.raises(ValueError, match="completed no query"):
                merged.result(window=True)
        else:
            assert_same_report(
                quiet(merged.result, output_dict=True, window=True),
                report_of(want_rows, {}),
            )
        all_rows = tuple(np.concatenate([c[i] for c in chunks]) for i in range(4))
        assert_same_report(
            quiet(merged.result, output_dict=True), report_of(all_rows, {})
        )
        assert len(merged._recent) <= window
    # neither evaluator was modified
    assert a.n_chunks_ == len(chunks_a) and b.n_chunks_ == len(chunks_b)


def test_merge_with_a_different_window_raises():
    a = RankingEvaluator(k=2, window=2)
    with pytest.raises(ValueError, match=r"different windows \(2 and 3\)"):
        a.merge(RankingEvaluator(k=2, window=3))
    with pytest.raises(ValueError, match=r"different windows \(2 and None\)"):
        a.merge(RankingEvaluator(k=2))
    with pytest.raises(ValueError, match=r"different windows \(None and 2\)"):
        RankingEvaluator(k=2).merge(a)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("window", [0, -1, 1.5, 2.0, True, False, "3", [2]])
def test_bad_window(window):
    with pytest.raises(ValueError, match="window must be None or an int >= 1"):
        RankingEvaluator(k=2, window=window)


def test_numpy_int_window():
    ev = RankingEvaluator(k=2, metrics=["ndcg"], window=np.int64(1))
    assert ev.window == 1 and type(ev.window) is int
    ev.update([1, 0], [0.2, 0.1], query_id=[1, 1])
    assert ev.result(output_dict=True, window=True) == {"ndcg@2": 1.0}


def test_result_window_without_a_window_raises():
    ev = RankingEvaluator(k=2).update([1, 0], [0.2, 0.1], query_id=[1, 1])
    with pytest.raises(
        ValueError, match=r"keeps no window.*RankingEvaluator\(window=N\)"
    ):
        ev.result(window=True)
    assert ev.result(window=False) == ev.result()
    with pytest.raises(TypeError, match="window must be True or False"):
        RankingEvaluator(k=2, window=2).result(window=2)


def test_window_before_any_row():
    ev = RankingEvaluator(k=2, window=2)
    with pytest.raises(ValueError, match="completed no query"):
        ev.result(window=True)
    with pytest.raises(ValueError, match="no rows were evaluated"):
        ev.result()
