"""The beyond-accuracy metrics chunk by chunk (RankingEvaluator) and merged
from states: equal to the in-memory report (ranking_report, itself equal to
the metric functions) -- bit for bit where the merged parts are sums of
whole numbers, within 1e-15 relative where per-user sums or fractional
inclusion probabilities are added in another order -- and clear errors for
what cannot be merged."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankmetrics as srm
from sklearn_rankmetrics import RankingEvaluator
from sklearn_rankmetrics._evaluation._partitions import merge_states
from sklearn_rankmetrics._evaluation._state import chunk_state, report_plan
from tests._beyond_data import (
    BEYOND,
    COUNTS,
    N_ITEMS,
    RANKING,
    K,
    assert_same,
    in_memory,
    make_log,
)

TIES = ["expected", "input_order", "pessimistic", "optimistic"]


def _sorted(y, s, q, it):
    order = np.argsort(q, kind="stable")
    return y[order], s[order], q[order], it[order]


def _evaluate(y, s, q, it, cuts, metrics, k=K, **options):
    """RankingEvaluator fed the rows cut at ``cuts`` (rows sorted by user:
    a user may run on into the next chunk)."""
    ev = RankingEvaluator(k=k, metrics=metrics, **options)
    bounds = [0, *cuts, q.size]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        ev.update(y[a:b], s[a:b], query_id=q[a:b], item_id=it[a:b])
    return ev


def _exact(ties):
    """What merges bit for bit: per-item counts and no-list probabilities
    of 0/1 inclusions (every tie broken, or no tie cut by k)."""
    return COUNTS if ties != "expected" else ()


# ---------------------------------------------------------------------------
# A hand-worked example
# ---------------------------------------------------------------------------
def test_hand_worked_two_chunks():
    # A catalogue of 5 items (n_items=5), k=2, three users in two chunks:
    #   u1: items 0 (0.9), 1 (0.8), 2 (0.1)  -> list {0, 1}
    #   u2: items 1 (0.7), 3 (0.7), 4 (0.7)  -> a tie of 3 cut by k=2: each
    #        item in the list with probability 2/3
    #   u3: items 2 (-inf)                    -> an empty list
    # Expected counts: item 0: 1, item 1: 1 + 2/3, item 2: 0, items 3, 4:
    # 2/3 each; total 4 (two full lists).
    # Coverage: P(item in some list) = 1, 1, 0, 2/3, 2/3 -> (10/3) / 5 = 2/3.
    # Gini of the counts sorted (0, 2/3, 2/3, 1, 5/3), n = 5, total 4:
    #   sum (2j - n - 1) c_j = -4*0 - 2*(2/3) + 0*(2/3) + 2*1 + 4*(5/3)
    #                        = -4/3 + 2 + 20/3 = 22/3
    #   G = (22/3) / (5 * 4) = 11/30.
    # Average popularity with counts (5, 4, 3, 2, 1): u1 (5 + 4) / 2 = 4.5,
    #   u2 (4 + 2 + 1) * (2/3) / 2 = 7/3; u3 has no list -> (4.5 + 7/3) / 2.
    y = np.array([1, 0, 0, 0, 1, 0, 0])
    s = np.array([0.9, 0.8, 0.1, 0.7, 0.7, 0.7, -np.inf])
    q = np.array([1, 1, 1, 2, 2, 2, 3])
    it = np.array([0, 1, 2, 1, 3, 4, 2])
    metrics = ["catalog_coverage", "gini_index", "average_popularity"]
    popularity = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    ev = RankingEvaluator(k=2, metrics=metrics, item_popularity=popularity)
    ev.update(y[:4], s[:4], query_id=q[:4], item_id=it[:4])  # u2 runs on
    ev.update(y[4:], s[4:], query_id=q[4:], item_id=it[4:])
    got = ev.result(output_dict=True)
    assert got["catalog_coverage@2"] == pytest.approx(2 / 3, rel=1e-15)
    assert got["gini_index@2"] == pytest.approx(11 / 30, rel=1e-15)
    assert got["average_popularity@2"] == pytest.approx((4.5 + 7 / 3) / 2, rel=1e-15)
    want = srm.ranking_report(
        y,
        s,
        query_id=q,
        item_id=it,
        k=2,
        metrics=metrics,
        item_popularity=popularity,
        output_dict=True,
    )
    assert_same(got, want)
    # the text table: three users, two with a relevant item
    assert ev.result() == srm.ranking_report(
        y,
        s,
        query_id=q,
        item_id=it,
        k=2,
        metrics=metrics,
        item_popularity=popularity,
    )


# ---------------------------------------------------------------------------
# Chunk by chunk, against the in-memory report
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chunks_equal_in_memory_every_metric(seed, ties):
    """Every beyond-accuracy metric beside NDCG and MAP, rows sorted by
    user and cut anywhere (users split over chunks), with the catalogue
    given by item_popularity / item_features: ties, -inf, empty lists,
    items never recommended, an unseen item (counted once)."""
    y, s, q, it, extra = make_log(seed)
    y, s, q, it = _sorted(y, s, q, it)
    options = dict(extra, unseen="one", ties=ties)
    metrics = RANKING + BEYOND
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, q.size), size=5, replace=False))
    got = _evaluate(y, s, q, it, cuts, metrics, **options).result(output_dict=True)
    assert_same(got, in_memory(y, s, q, it, metrics, **options), _exact(ties))


@pytest.mark.parametrize(
    "ids, options",
    [
        ("int", {"n_items": N_ITEMS}),  # column numbers of the catalogue
        ("int", {}),  # labels: the catalogue is the items seen
        ("str", {"n_items": N_ITEMS}),  # labels of some of the catalogue
        ("str", {}),
    ],
)
@pytest.mark.parametrize("ties", ["expected", "pessimistic"])
def test_item_ids_as_numbers_and_labels(ids, options, ties):
    """Coverage, Gini and entropy (normalized by the catalogue) over
    chunks whose items differ: labels merged by label ("7", "07" and "007"
    are three items), the catalogue's other items added as the functions
    number them."""
    y, s, q, it, _ = make_log(5, n_users=40, ids=ids)
    y, s, q, it = _sorted(y, s, q, it)
    options = dict(options, ties=ties, normalization="max")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # no catalogue size
        want = in_memory(y, s, q, it, COUNTS, **options)
        for cuts in ([], [1], [37, 38, 120], list(range(10, q.size, 10))):
            got = _evaluate(y, s, q, it, cuts, COUNTS, **options)
            assert_same(got.result(output_dict=True), want, _exact(ties))


def test_unsorted_chunks_of_whole_users_and_merged_evaluators():
    """Chunks of whole users in any row order, and evaluators fed apart
    (pickled, as from other processes) then merged."""
    y, s, q, it, extra = make_log(7, n_users=50)
    options = dict(extra, unseen="zero")
    metrics = ["mrr", *BEYOND]
    users = np.unique(q)
    groups = np.array_split(np.random.default_rng(0).permutation(users), 4)
    evaluators = []
    for group in groups:
        ev = RankingEvaluator(k=K, metrics=metrics, **options)
        rows = np.isin(q, group)
        ev.update(y[rows], s[rows], query_id=q[rows], item_id=it[rows])
        evaluators.append(pickle.loads(pickle.dumps(ev)))
    merged = evaluators[0]
    for ev in evaluators[1:]:
        merged = merged.merge(ev)
    want = in_memory(y, s, q, it, metrics, **options)
    assert_same(merged.result(output_dict=True), want)


def test_states_merge_in_any_order():
    """States of whole users merge associatively and commutatively (to
    rounding), whatever the grouping of the merges."""
    y, s, q, it, _ = make_log(11, n_users=40, ids="str")
    plan = report_plan(K, COUNTS, {"n_items": N_ITEMS})
    users = np.unique(q)
    states = []
    for group in np.array_split(users, 5):
        rows = np.isin(q, group)
        states.append(
            chunk_state(
                y[rows],
                s[rows],
                query_id=q[rows],
                k=K,
                metrics=plan.metrics,
                item_id=it[rows],
                beyond=plan.beyond,
                **plan.options,
            )
        )
    want = in_memory(y, s, q, it, COUNTS, n_items=N_ITEMS)
    forward = merge_states(states).output_dict()
    backward = merge_states(states[::-1]).output_dict()
    tree = merge_states(
        [merge_states(states[:2]), merge_states(states[2:])]
    ).output_dict()
    for got in (forward, backward, tree):
        assert_same(got, want)


def test_window_reports_the_users_of_the_last_updates():
    y, s, q, it, extra = make_log(3, n_users=30)
    y, s, q, it = _sorted(y, s, q, it)
    options = dict(extra, unseen="one")
    ev = RankingEvaluator(k=K, metrics=BEYOND, window=1, **options)
    cut = int(np.searchsorted(q, q[q.size // 2]))  # a user boundary
    ev.update(y[:cut], s[:cut], query_id=q[:cut], item_id=it[:cut])
    ev.update(y[cut:], s[cut:], query_id=q[cut:], item_id=it[cut:])
    want = in_memory(y[cut:], s[cut:], q[cut:], it[cut:], BEYOND, **options)
    assert_same(ev.result(output_dict=True, window=True), want)
    assert_same(ev.result(output_dict=True), in_memory(y, s, q, it, BEYOND, **options))


def test_text_tables_equal_ranking_report():
    y, s, q, it, extra = make_log(4)
    y, s, q, it = _sorted(y, s, q, it)
    for metrics in (["catalog_coverage", "gini_index"], ["ndcg", "gini_index"]):
        ev = _evaluate(y, s, q, it, [17, 60], metrics, n_items=N_ITEMS)
        want = srm.ranking_report(
            y, s, query_id=q, item_id=it, k=K, metrics=metrics, n_items=N_ITEMS
        )
        assert ev.result() == want


def test_dataframe_chunks_with_item_col():
    pd = pytest.importorskip("pandas")
    y, s, q, it, _ = make_log(8, ids="str")
    y, s, q, it = _sorted(y, s, q, it)
    frame = pd.DataFrame({"user": q, "clicked": y, "score": s, "item": it})
    ev = RankingEvaluator(k=K, metrics=COUNTS, n_items=N_ITEMS)
    for chunk in np.array_split(np.arange(len(frame)), 3):
        part = frame.iloc[chunk]
        ev.update(
            part,
            query_col="user",
            label_col="clicked",
            score_col="score",
            item_col="item",
        )
    assert_same(
        ev.result(output_dict=True), in_memory(y, s, q, it, COUNTS, n_items=N_ITEMS)
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_cuts=st.integers(0, 8),
    ties=st.sampled_from(TIES),
    ids=st.sampled_from(["int", "str"]),
)
def test_any_chunking_equals_in_memory(seed, n_cuts, ties, ids):
    y, s, q, it, extra = make_log(seed, n_users=12, ids=ids, ties=seed % 3 > 0)
    y, s, q, it = _sorted(y, s, q, it)
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, q.size), size=min(n_cuts, q.size - 1)))
    if ids == "int":
        metrics, options = RANKING + BEYOND, dict(extra, unseen="one", ties=ties)
    else:
        metrics, options = COUNTS, {"n_items": N_ITEMS, "ties": ties}
    got = _evaluate(y, s, q, it, list(cuts), metrics, **options)
    want = in_memory(y, s, q, it, metrics, **options)
    assert_same(got.result(output_dict=True), want, _exact(ties))


# ---------------------------------------------------------------------------
# Warnings and refusals, as the in-memory report's
# ---------------------------------------------------------------------------
def test_unseen_items_counted_over_every_chunk():
    """Novelty's unseen rule reads all the users at once: one warning (or
    error) naming the unseen items of every chunk, as in memory."""
    y, s, q, it, extra = make_log(9, n_users=40)
    y, s, q, it = _sorted(y, s, q, it)
    popularity = extra["item_popularity"].copy()
    popularity[:6] = 0  # unseen items spread over the chunks
    with pytest.warns(UndefinedMetricWarning) as want_warnings:
        want = in_memory(y, s, q, it, ["novelty"], k=5, item_popularity=popularity)
    ev = _evaluate(
        y, s, q, it, [50, 100, 150], ["novelty"], k=5, item_popularity=popularity
    )
    with pytest.warns(UndefinedMetricWarning) as got_warnings:
        got = ev.result(output_dict=True)
    assert got == want  # inf
    assert [str(w.message) for w in got_warnings] == [
        str(w.message) for w in want_warnings
    ]
    ev = _evaluate(
        y,
        s,
        q,
        it,
        [50, 100, 150],
        ["novelty"],
        k=5,
        item_popularity=popularity,
        unseen="raise",
    )
    with pytest.raises(ValueError, match=r"novelty: \d+ item\(s\) never seen") as got:
        ev.result()
    with pytest.raises(ValueError) as want:
        in_memory(
            y, s, q, it, ["novelty"], k=5, item_popularity=popularity, unseen="raise"
        )
    assert str(got.value) == str(want.value)


def test_catalogue_warning_without_n_items():
    y, s, q, it, _ = make_log(2)
    ev = _evaluate(y, s, q, it, [], ["catalog_coverage"], k=3)
    with pytest.warns(UserWarning, match="catalog_coverage_at_k: in the long form"):
        ev.result(output_dict=True)
    ev = _evaluate(y, s, q, it, [], ["catalog_coverage"], k=3, n_items=N_ITEMS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.result(output_dict=True)


def test_refusals():
    y, s, q, it, extra = make_log(1)
    y, s, q, it = _sorted(y, s, q, it)
    with pytest.raises(ValueError, match="no per-query value"):
        RankingEvaluator(k=3, metrics=["gini_index"], per_query=True)
    with pytest.raises(ValueError, match="item_popularity is required"):
        RankingEvaluator(k=3, metrics=["novelty"])
    with pytest.raises(TypeError, match="options of the ranking metrics"):
        RankingEvaluator(k=3, metrics=["gini_index"], gain="exponential")
    with pytest.raises(TypeError, match="give it with the rows"):
        RankingEvaluator(k=3, metrics=["gini_index"], item_id=it)
    ev = RankingEvaluator(k=3, metrics=["ndcg", "gini_index"])
    with pytest.raises(ValueError, match="need the item of each row"):
        ev.update(y, s, query_id=q)
    with pytest.raises(ValueError, match="do not take sample_weight"):
        ev.update(y, s, query_id=q, item_id=it, sample_weight=np.ones(q.size))
    with pytest.raises(ValueError, match="no propensity= estimator"):
        ev.update(y, s, query_id=q, item_id=it, propensity=np.ones(q.size))
    with pytest.raises(ValueError, match="item_id has shape"):
        ev.update(y, s, query_id=q, item_id=it[:-1])
    assert ev.n_chunks_ == 0  # nothing evaluated
    with pytest.raises(TypeError, match="item_id= is read by the beyond-accuracy"):
        RankingEvaluator(k=3, metrics=["ndcg"]).update(y, s, query_id=q, item_id=it)
    # a (user, item) pair twice: the row named, as in memory
    dup = RankingEvaluator(k=3, metrics=["gini_index"])
    with pytest.raises(ValueError, match="repeats an item within a query"):
        dup.update([0, 1, 0], [0.1, 0.2, 0.3], query_id=[1, 1, 2], item_id=[5, 5, 6])


def test_item_ids_that_cannot_merge():
    y, s, q, it, _ = make_log(6, n_users=20)
    y, s, q, it = _sorted(y, s, q, it)
    half = int(np.searchsorted(q, q[q.size // 2]))
    # column numbers (n_items) in one chunk, labels in the next
    # (the error comes with the chunk that cannot merge, which is not
    # evaluated: the evaluator keeps the rows before it)
    first = in_memory(y[:half], s[:half], q[:half], it[:half], ["gini_index"], k=3)
    ev = RankingEvaluator(k=3, metrics=["gini_index"], n_items=N_ITEMS)
    ev.update(y[:half], s[:half], query_id=q[:half], item_id=it[:half])
    with pytest.raises(ValueError, match="column numbers in one chunk and labels"):
        ev.update(y[half:], s[half:], query_id=q[half:], item_id=it[half:].astype(str))
    # labels of two types
    ev = RankingEvaluator(k=3, metrics=["gini_index"])
    ev.update(y[:half], s[:half], query_id=q[:half], item_id=it[:half])
    with pytest.raises(TypeError, match="mixes types across chunks"):
        ev.update(y[half:], s[half:], query_id=q[half:], item_id=it[half:].astype(str))
    assert ev.n_chunks_ == 1
    assert_same(ev.result(output_dict=True), first)
    # more labels over all the chunks than the catalogue holds
    labels = np.array([f"i{i}" for i in it])
    n_items = max(np.unique(labels[:half]).size, np.unique(labels[half:]).size)
    assert np.unique(labels).size > n_items  # each chunk fits, not both
    ev = RankingEvaluator(k=3, metrics=["gini_index"], n_items=n_items)
    ev.update(y[:half], s[:half], query_id=q[:half], item_id=labels[:half])
    with pytest.raises(ValueError, match=f"distinct items but n_items={n_items}"):
        ev.update(y[half:], s[half:], query_id=q[half:], item_id=labels[half:])
    # numbers that are not integers: neither column numbers nor labels
    ev = RankingEvaluator(k=3, metrics=["gini_index"], n_items=N_ITEMS)
    with pytest.raises(ValueError, match="not integers"):
        ev.update(y, s, query_id=q, item_id=it + 0.5)
    # column numbers out of the catalogue
    with pytest.raises(ValueError, match=r"column numbers in \[0, 40\)"):
        ev.update(y, s, query_id=q, item_id=it + N_ITEMS)


def test_inputs_not_modified():
    y, s, q, it, extra = make_log(12, ids="str")
    copies = [a.copy() for a in (y, s, q, it, extra["item_popularity"])]
    ev = RankingEvaluator(
        k=K, metrics=["ndcg", *COUNTS], n_items=N_ITEMS, ties="pessimistic"
    )
    ev.update(y, s, query_id=q, item_id=it)
    ev.result()
    for a, b in zip((y, s, q, it, extra["item_popularity"]), copies, strict=True):
        assert np.array_equal(a, b)
