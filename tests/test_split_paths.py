"""The splitters' fast paths (issue 31) against the sorts they replace.

Each helper of ``model_selection/_split.py`` that avoids sorting the rows is
compared with the slow, obvious computation it stands for (a lexsort of the
rows per user, a set of training pairs, a full sort of the time column), on
random logs with ties, extreme values and users of every size; the
splitters' folds are compared with those of the previous implementation,
written out below.
"""

import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from sklearn_rankmetrics.model_selection import (
    GlobalTemporalSplit,
    LeaveLastNOut,
    PerUserHoldout,
    _split,
)


def lexsort_positions(users, key):
    """Each row's position among its user's rows ordered by (key, row): the
    previous implementation, ``np.lexsort((rows, key, users))``."""
    n = len(users)
    users = np.asarray(users)
    order = np.lexsort((np.arange(n), key, users))
    counts = np.bincount(users)
    starts = np.cumsum(counts) - counts
    position = np.empty(n, dtype=np.intp)
    position[order] = np.arange(n) - starts[users[order]]
    return position, counts


def ranks_from_last_reference(users, time, depth):
    """Row by row: 1 + the number of rows of the same user later in (time,
    row) order, capped at depth + 1."""
    out = []
    for i, (u, t) in enumerate(zip(users, time, strict=True)):
        later = sum(
            1
            for j, (v, s) in enumerate(zip(users, time, strict=True))
            if v == u and (s > t or (s == t and j > i))
        )
        out.append(min(later + 1, depth + 1))
    return np.array(out)


TIME_KINDS = {
    "int64": lambda t: t.astype(np.int64),
    "int64 at the least value": lambda t: t.astype(np.int64) + np.iinfo(np.int64).min,
    "uint64 from 0": lambda t: t.astype(np.uint64),
    "uint8": lambda t: t.astype(np.uint8),
    "float": lambda t: t / 3.0,
    "float with -0.0": lambda t: np.where(t == 0, -0.0, t / 7.0),
    "float32": lambda t: (t / 3.0).astype(np.float32),
    "datetime64[s]": lambda t: t.astype("datetime64[s]"),
    "timedelta64[ms]": lambda t: t.astype("timedelta64[ms]"),
}


@pytest.mark.parametrize("kind", sorted(TIME_KINDS))
@pytest.mark.parametrize("passes_max", [0, 6])  # the sort, or the passes
def test_ranks_from_last_equal_the_reference(kind, passes_max, monkeypatch):
    monkeypatch.setattr(_split, "_PASSES_MAX", passes_max)
    rng = np.random.default_rng(0)
    for n in (1, 2, 9, 60, 200):
        users = rng.integers(0, max(1, n // 6), n)
        raw = rng.integers(0, 5, n)  # many ties within a user
        time = TIME_KINDS[kind](raw)
        before = time.copy()
        for depth in (1, 2, 5):
            want = ranks_from_last_reference(users.tolist(), raw.tolist(), depth)
            got = _split._ranks_from_last(users, users.max() + 1, time, depth)
            assert_array_equal(got, want, err_msg=f"{kind}, n={n}, depth={depth}")
        assert_array_equal(time, before)  # not modified


def test_ranks_from_last_hand_worked():
    # user 0: rows 0 (t=5), 2 (t=5), 3 (t=1): row 2 is the latest (a tie at
    # 5 goes to the later row), row 0 second, row 3 third; user 1: row 1
    users = np.array([0, 1, 0, 0])
    time = np.array([5, 9, 5, 1])
    for passes_max in (0, 6):
        _split._PASSES_MAX, old = passes_max, _split._PASSES_MAX
        try:
            assert _split._ranks_from_last(users, 2, time, 2).tolist() == [2, 1, 1, 3]
        finally:
            _split._PASSES_MAX = old


@settings(max_examples=80, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 6), st.integers(-3, 3)), min_size=1, max_size=40
    ),
    depth=st.integers(1, 4),
    passes_max=st.sampled_from([0, 6]),
)
def test_property_ranks_from_last(data, depth, passes_max):
    users = np.array([u for u, _ in data])
    time = np.array([t for _, t in data])
    old = _split._PASSES_MAX
    _split._PASSES_MAX = passes_max
    try:
        got = _split._ranks_from_last(users, 7, time, depth)
    finally:
        _split._PASSES_MAX = old
    want = ranks_from_last_reference(users.tolist(), time.tolist(), depth)
    assert_array_equal(got, want)


def smallest_keys_reference(users, key, n_test):
    position, _ = lexsort_positions(users, key)
    return position < n_test[users]


@pytest.mark.parametrize("seed", range(6))
def test_smallest_keys_equal_the_lexsort(seed):
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 50))
    # users of every size: one row, a few, and one user with many rows
    users = np.concatenate(
        [rng.integers(0, n_users, int(rng.integers(1, 400))), np.zeros(300, int)]
    )
    users = users[rng.permutation(users.shape[0])]
    counts = np.bincount(users, minlength=n_users)
    for key in (
        rng.random(users.shape[0]),
        np.round(rng.random(users.shape[0]), 2),  # equal keys: by row
        rng.random(users.shape[0]) * 1e-6,  # every key in the first bucket
        1.0 - rng.random(users.shape[0]) * 1e-12,  # in the last bucket
    ):
        for share in (0.1, 0.5, 0.9):
            n_test = np.ceil(share * counts).astype(np.intp)
            n_test = np.minimum(n_test, np.maximum(counts - 1, 0))  # no short user
            got = _split._smallest_keys(users, n_users, key, n_test)
            assert_array_equal(got, smallest_keys_reference(users, key, n_test))


def test_smallest_keys_hand_worked():
    # user 0's keys 0.9, 0.1, 0.5, 0.3 (rows 0, 2, 3, 5): its 2 smallest are
    # rows 2 and 5; user 1's keys 0.7, 0.7 (rows 1, 4): the tie goes to row 1
    users = np.array([0, 1, 0, 0, 1, 0])
    key = np.array([0.9, 0.7, 0.1, 0.5, 0.7, 0.3])
    got = _split._smallest_keys(users, 2, key, np.array([2, 1]))
    assert np.flatnonzero(got).tolist() == [1, 2, 5]


def previous_holdout_folds(users, test_size, n_splits, random_state):
    """PerUserHoldout's folds as the previous implementation drew them: the
    same random keys, positions by lexsort."""
    codes = np.unique(users, return_inverse=True)[1].reshape(-1)
    counts = np.bincount(codes)
    if isinstance(test_size, int):
        n_test = np.full(counts.shape, test_size)
    else:
        n_test = np.ceil(np.round(test_size * counts, 9)).astype(np.intp)
    short = n_test >= counts
    rng = np.random.RandomState(random_state)
    folds = []
    for _ in range(n_splits):
        key = rng.random_sample(codes.shape[0])
        position, _ = lexsort_positions(codes, key)
        test = (position < n_test[codes]) & ~short[codes]
        folds.append((np.flatnonzero(~test).tolist(), np.flatnonzero(test).tolist()))
    return folds


@pytest.mark.parametrize("test_size", [0.2, 0.5, 1, 3])
def test_per_user_holdout_folds_are_the_previous_ones(test_size):
    rng = np.random.default_rng(1)
    users = rng.integers(0, 40, 3000)
    users[:200] = 7  # one heavy user
    cv = PerUserHoldout(test_size, n_splits=3, random_state=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = [(a.tolist(), b.tolist()) for a, b in cv.split(users, groups=users)]
    assert got == previous_holdout_folds(users, test_size, 3, 11)


def seen_reference(users, items, train, test):
    pairs = {(users[i], items[i]) for i in np.flatnonzero(train)}
    return np.array(
        [bool(test[i]) and (users[i], items[i]) in pairs for i in range(len(users))]
    )


class _Rows:
    def __init__(self, users, items):
        self.n = users.shape[0]
        self.users = users
        self.items = items
        self.user_ids = np.arange(users.max() + 1)
        self.item_ids = np.arange(items.max() + 1)


@pytest.mark.parametrize("lookup", ["pandas", "numpy"])
@pytest.mark.parametrize("seed", range(8))
def test_seen_pairs_equal_a_set_of_training_pairs(seed, lookup, monkeypatch):
    # the exact look-up by pandas' hash table or, without pandas, by sorted
    # keys (an import of pandas then fails)
    if lookup == "numpy":
        monkeypatch.setitem(sys.modules, "pandas", None)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 3000))
    users = rng.integers(0, int(rng.integers(1, 60)), n)
    items = rng.integers(0, int(rng.integers(1, 60)), n)
    rows = _Rows(users, items)
    for _ in range(3):
        split = rng.random(n)
        train, test = split < 0.6, split >= 0.7  # some rows on neither side
        at = np.flatnonzero(test)
        got = _split._seen_pairs(rows, train, at)
        assert_array_equal(got, seen_reference(users, items, train, test)[at])


def test_seen_pairs_with_every_slot_colliding(monkeypatch):
    # every pair in one slot: the bit table marks everything, the exact key
    # comparison still decides
    monkeypatch.setattr(_split, "_GOLDEN", np.uint64(0))
    rng = np.random.default_rng(9)
    users, items = rng.integers(0, 20, 500), rng.integers(0, 20, 500)
    train = rng.random(500) < 0.5
    at = np.flatnonzero(~train)
    got = _split._seen_pairs(_Rows(users, items), train, at)
    assert_array_equal(got, seen_reference(users, items, train, ~train)[at])


def test_seen_pairs_of_no_candidate_and_no_training_row():
    users, items = np.array([0, 0, 1]), np.array([1, 1, 0])
    rows = _Rows(users, items)
    none = np.array([], dtype=np.intp)
    assert _split._seen_pairs(rows, np.ones(3, dtype=bool), none).shape == (0,)
    got = _split._seen_pairs(rows, np.zeros(3, dtype=bool), np.arange(3))
    assert got.tolist() == [False, False, False]


def test_isin_backends_agree_with_a_set(monkeypatch):
    rng = np.random.default_rng(4)
    values = rng.integers(0, 50, 400).astype(np.uint64)
    among = rng.integers(0, 50, 30).astype(np.uint64)
    want = [v in set(among.tolist()) for v in values.tolist()]
    assert _split._isin(values, among).tolist() == want
    monkeypatch.setitem(sys.modules, "pandas", None)  # no pandas: sorted
    assert _split._isin(values, among).tolist() == want


def test_seen_pairs_hand_worked():
    # pairs (0, 1) and (1, 0) train; test rows (0, 1) seen, (0, 0) and (1, 1)
    # not, (1, 0) seen
    users = np.array([0, 1, 0, 0, 1, 1])
    items = np.array([1, 0, 1, 0, 1, 0])
    train = np.array([True, True, False, False, False, False])
    got = _split._seen_pairs(_Rows(users, items), train, np.arange(2, 6))
    assert got.tolist() == [True, False, False, True]  # rows 2 and 5


@pytest.mark.parametrize("test_size", [0.2, 0.5, 7, 60])
def test_global_cutoff_is_the_sorted_time_at_the_test_size(test_size):
    rng = np.random.default_rng(2)
    for time in (
        rng.integers(0, 30, 100),  # ties at the cut-off
        rng.random(100),
        rng.integers(0, 10**6, 100).astype("datetime64[s]"),
    ):
        cv = GlobalTemporalSplit(test_size=test_size)
        train, test = next(cv.split(time, time=time))
        n_test = (
            test_size if isinstance(test_size, int) else int(np.ceil(100 * test_size))
        )
        cutoff = np.sort(time)[100 - n_test]
        assert cv.fold_info_[0]["test_start"] == cutoff
        assert_array_equal(test, np.flatnonzero(time >= cutoff))
        assert_array_equal(train, np.flatnonzero(time < cutoff))


@pytest.mark.parametrize("passes_max", [0, 6])
def test_leave_last_n_out_paths_give_the_same_folds(passes_max, monkeypatch):
    rng = np.random.default_rng(4)
    users = rng.integers(0, 50, 2000)
    items = rng.integers(0, 30, 2000)
    time = rng.integers(0, 40, 2000)

    def folds(cv):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return [
                (a.tolist(), b.tolist())
                for a, b in cv.split(users, groups=users, time=time, items=items)
            ]

    options = dict(n_splits=3, filter_already_seen=True, filter_cold_items=True)
    monkeypatch.setattr(_split, "_PASSES_MAX", 0)  # the sort
    want = folds(LeaveLastNOut(2, **options))
    monkeypatch.setattr(_split, "_PASSES_MAX", passes_max)
    assert folds(LeaveLastNOut(2, **options)) == want


def test_columns_a_split_does_not_read_are_still_checked():
    # without filters GlobalTemporalSplit reads neither users nor items: int
    # ids are not numbered, but every column is checked as before
    time = np.arange(6)
    cv = GlobalTemporalSplit(test_size=2)
    folds = [
        (a.tolist(), b.tolist())
        for a, b in cv.split(time, groups=time, time=time, items=time)
    ]
    assert folds == [([0, 1, 2, 3], [4, 5])]
    with pytest.raises(ValueError, match="groups has 5 entries"):
        next(cv.split(time, groups=time[:5], time=time))
    with pytest.raises(ValueError, match="items must be 1-D"):
        next(cv.split(time, items=np.zeros((6, 2)), time=time))
    users = np.array(["a", "b", None, "a", "b", "a"], dtype=object)
    with pytest.raises(ValueError, match="groups contains None.*row 2"):
        next(cv.split(time, groups=users, time=time))
    with pytest.raises(ValueError, match="items contains NaN"):
        next(cv.split(time, items=np.array([1.0, np.nan, 2, 3, 4, 5]), time=time))
