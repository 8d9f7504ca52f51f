"""Splitters of interaction logs (sklearn_rankmetrics.model_selection).

Checked against RecTools' TimeRangeSplitter / LastNSplitter (their
documented examples, and a slow re-implementation of their rules written
below from RecTools 0.19.0's source, which was compared with the installed
RecTools 0.19.0 on 4,800 random logs -- and our splitters with RecTools on
1,388 more -- when it was written), against slow
per-user references, by property tests (hypothesis), and inside
GridSearchCV / cross_validate with the users and times routed.  Metadata
routing is only ever enabled inside ``sklearn.config_context``.
"""

import datetime
import warnings

import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, cross_validate

from sklearn_rankmetrics import QueryRanker, make_scoring, ndcg_at_k
from sklearn_rankmetrics.datasets import make_click_log
from sklearn_rankmetrics.model_selection import (
    GlobalTemporalSplit,
    LeaveLastNOut,
    PerUserHoldout,
    TimeRangeSplit,
)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _folds(cv, n, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return [(a.tolist(), b.tolist()) for a, b in cv.split(np.zeros(n), **kw)]


# ---------------------------------------------------------------------------
# RecTools' rules, written out row by row (RecTools 0.19.0,
# rectools/model_selection/{time_split,last_n_split,splitter}.py)
# ---------------------------------------------------------------------------
def _rectools_filter(users, items, train, test, cold_users, cold_items, seen):
    train_users = {users[i] for i in train}
    train_items = {items[i] for i in train}
    train_pairs = {(users[i], items[i]) for i in train}
    if cold_users:
        test = [i for i in test if users[i] in train_users]
    if cold_items:
        test = [i for i in test if items[i] in train_items]
    if seen:
        test = [i for i in test if (users[i], items[i]) not in train_pairs]
    return train, test


def _rectools_time_range(times, users, items, days, n_splits, filters):
    """TimeRangeSplitter(f"{days}D", n_splits, *filters) on day-resolution
    datetimes given as datetime.datetime: the last fold ends at the last
    time ceiled to the day (one day later when it is exactly midnight)."""
    last = max(times)
    end = datetime.datetime(last.year, last.month, last.day) + datetime.timedelta(1)
    folds = []
    for j in range(n_splits):
        start = end - datetime.timedelta(days * (n_splits - j))
        stop = start + datetime.timedelta(days)
        train = [i for i, t in enumerate(times) if t < start]
        test = [i for i, t in enumerate(times) if start <= t < stop]
        folds.append(_rectools_filter(users, items, train, test, *filters))
    return folds


def _rectools_last_n(times, users, items, n, n_splits, filters):
    """LastNSplitter(n, n_splits, *filters): a user's rows ranked by time,
    ties by row order (rank(method="first")), counted from the last."""
    from_last = {}
    for u in set(users):
        rows = sorted((t, i) for i, t in enumerate(times) if users[i] == u)
        for r, (_, i) in enumerate(rows):
            from_last[i] = len(rows) - r
    folds = []
    for split in reversed(range(n_splits)):
        low, high = split * n, split * n + n
        test = [i for i in range(len(times)) if low < from_last[i] <= high]
        train = [i for i in range(len(times)) if from_last[i] > high]
        folds.append(_rectools_filter(users, items, train, test, *filters))
    return folds


def test_time_range_split_rectools_example():
    # TimeRangeSplitter's docstring example (RecTools 0.19.0): ("1D", 2)
    # gives [0 1 2 3] [4 5] and [0 1 2 3 4 5] [6]; with
    # filter_cold_users=True the first test loses row 5 (user 4, cold).
    time = np.array(
        [
            "2021-09-01",
            "2021-09-02",
            "2021-09-03",
            "2021-09-03",
            "2021-09-04",
            "2021-09-04",
            "2021-09-05",
        ],
        dtype="datetime64[ns]",
    )
    users = [1, 2, 2, 3, 3, 4, 1]
    items = [2, 1, 3, 2, 3, 4, 2]
    cv = TimeRangeSplit(2, "1D")
    assert _folds(cv, 7, groups=users, time=time) == [
        ([0, 1, 2, 3], [4, 5]),
        ([0, 1, 2, 3, 4, 5], [6]),
    ]
    cv = TimeRangeSplit(2, "1D", filter_cold_users=True)
    assert _folds(cv, 7, groups=users, time=time, items=items) == [
        ([0, 1, 2, 3], [4]),
        ([0, 1, 2, 3, 4, 5], [6]),
    ]
    assert cv.fold_info_[0]["n_cold_user_rows"] == 1
    assert cv.fold_info_[0]["n_users_dropped"] == 1
    assert cv.fold_info_[0]["test_start"] == np.datetime64("2021-09-04")
    assert cv.fold_info_[0]["test_end"] == np.datetime64("2021-09-05")


def test_leave_last_n_out_rectools_example():
    # LastNSplitter's docstring example (RecTools 0.19.0): LastNSplitter(2, 2)
    # gives [0] [1 2 5] and [0 1 2 5] [3 4 6 7]; with filter_cold_users the
    # first test loses row 5 (user 2 has 3 rows: only 1 left before its
    # last 2, which fold 0 holds out; RecTools tests it and drops it as cold).
    time = np.array(
        [
            "2021-09-01",
            "2021-09-02",
            "2021-09-03",
            "2021-09-04",
            "2021-09-05",
            "2021-08-20",
            "2021-08-21",
            "2021-08-22",
        ],
        dtype="datetime64[ns]",
    )
    users = [1, 1, 1, 1, 1, 2, 2, 2]
    items = [1, 2, 1, 2, 2, 1, 2, 2]
    cv = LeaveLastNOut(2, n_splits=2, short_users="drop", filter_cold_users=True)
    assert _folds(cv, 8, groups=users, time=time, items=items) == [
        ([0], [1, 2]),
        ([0, 1, 2, 5], [3, 4, 6, 7]),
    ]
    # ours by default: user 2's single available row trains in fold 0
    cv = LeaveLastNOut(2, n_splits=2)
    assert _folds(cv, 8, groups=users, time=time) == [
        ([0, 5], [1, 2]),
        ([0, 1, 2, 5], [3, 4, 6, 7]),
    ]
    assert [f["n_short_users"] for f in cv.fold_info_] == [1, 0]


def _random_log(rng, n):
    users = rng.integers(0, rng.integers(2, 12), n)
    items = rng.integers(0, rng.integers(2, 10), n)
    days = rng.integers(0, 15, n)
    hours = rng.integers(0, 24, n) * rng.integers(0, 2)  # some at midnight
    base = datetime.datetime(2021, 9, 1)
    times = [
        base + datetime.timedelta(int(d), hours=int(h))
        for d, h in zip(days, hours, strict=True)
    ]
    return users.tolist(), items.tolist(), times


@pytest.mark.parametrize("seed", range(25))
def test_time_range_split_equals_rectools_rule(seed):
    rng = np.random.default_rng(seed)
    users, items, times = _random_log(rng, int(rng.integers(20, 80)))
    filters = tuple(bool(b) for b in rng.integers(0, 2, 3))
    days, n_splits = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    expected = _rectools_time_range(times, users, items, days, n_splits, filters)
    cv = TimeRangeSplit(
        n_splits,
        f"{days}D",
        filter_cold_users=filters[0],
        filter_cold_items=filters[1],
        filter_already_seen=filters[2],
    )
    time = np.array(times, dtype="datetime64[s]")
    if not expected[0][0] or not all(test for _, test in expected):
        with pytest.raises(ValueError, match="n_splits|no test row"):
            _folds(cv, len(times), groups=users, time=time, items=items)
        return
    assert _folds(cv, len(times), groups=users, time=time, items=items) == expected


@pytest.mark.parametrize("seed", range(25))
def test_leave_last_n_out_equals_rectools_rule(seed):
    # RecTools tests users with too few rows and drops them as cold users:
    # short_users="drop" with filter_cold_users=True is the same split.
    rng = np.random.default_rng(seed)
    users, items, times = _random_log(rng, int(rng.integers(20, 80)))
    seen, cold_items = (bool(b) for b in rng.integers(0, 2, 2))
    n, n_splits = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    expected = _rectools_last_n(
        times, users, items, n, n_splits, (True, cold_items, seen)
    )
    cv = LeaveLastNOut(
        n,
        n_splits=n_splits,
        short_users="drop",
        filter_cold_users=True,
        filter_cold_items=cold_items,
        filter_already_seen=seen,
    )
    time = np.array(times, dtype="datetime64[s]")
    if not all(test for _, test in expected):
        with pytest.raises(ValueError, match="no test row"):
            _folds(cv, len(times), groups=users, time=time, items=items)
        return
    assert _folds(cv, len(times), groups=users, time=time, items=items) == expected


# ---------------------------------------------------------------------------
# Slow per-user references of our own rules
# ---------------------------------------------------------------------------
def _leave_last_reference(users, time, n, n_splits, short_users):
    folds = []
    for j in range(n_splits):
        held = (n_splits - 1 - j) * n
        train, test = [], []
        for u in dict.fromkeys(users):
            rows = sorted((time[i], i) for i in range(len(users)) if users[i] == u)
            rows = [i for _, i in rows]
            available = rows[: max(len(rows) - held, 0)]
            if len(available) <= n:
                if short_users == "train":
                    train += available
                continue
            train += available[:-n]
            test += available[-n:]
        folds.append((sorted(train), sorted(test)))
    return folds


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("short_users", ["train", "drop"])
def test_leave_last_n_out_reference(seed, short_users):
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(5, 60))
    users = [f"u{u:03d}" for u in rng.integers(0, 8, n_rows)]
    time = rng.integers(0, 10, n_rows).astype(float)  # many ties
    n, n_splits = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    expected = _leave_last_reference(users, time.tolist(), n, n_splits, short_users)
    cv = LeaveLastNOut(n, n_splits=n_splits, short_users=short_users)
    if not all(test for _, test in expected):
        with pytest.raises(ValueError, match="no test row"):
            _folds(cv, n_rows, groups=users, time=time)
        return
    assert _folds(cv, n_rows, groups=users, time=time) == expected


def test_leave_last_n_out_ties_broken_by_row_order():
    # user "a": rows 0, 1, 2 all at time 5 -> row 2 is the last interaction
    users = ["a", "a", "a", "b", "b"]
    time = [5, 5, 5, 1, 0]
    assert _folds(LeaveLastNOut(1), 5, groups=users, time=time) == [([0, 1, 4], [2, 3])]
    assert _folds(LeaveLastNOut(2), 5, groups=users, time=time) == [([0, 3, 4], [1, 2])]


def test_leave_last_n_out_short_users():
    users = [1, 1, 1, 2, 2, 3]
    time = [1, 2, 3, 1, 2, 1]
    cv = LeaveLastNOut(2)
    with pytest.warns(
        UserWarning, match="2 users with too few rows.*kept wholly in train"
    ):
        folds = _warned_folds(cv, 6, groups=users, time=time)
    assert folds == [([0, 3, 4, 5], [1, 2])]
    info = cv.fold_info_[0]
    assert (info["n_short_users"], info["n_short_rows"]) == (2, 0)
    cv = LeaveLastNOut(2, short_users="drop")
    with pytest.warns(UserWarning, match=r"left out of the fold \(3 rows\)"):
        assert _warned_folds(cv, 6, groups=users, time=time) == [([0], [1, 2])]
    assert cv.fold_info_[0]["n_short_rows"] == 3
    assert cv.fold_info_[0]["n_outside"] == 0
    with pytest.raises(ValueError, match=r"groups 2, 3\).*more than 2 rows per user"):
        LeaveLastNOut(2, short_users="raise").split(
            np.zeros(6), groups=users, time=time
        )


def _warned_folds(cv, n, **kw):
    return [(a.tolist(), b.tolist()) for a, b in cv.split(np.zeros(n), **kw)]


def _holdout_reference_counts(users, test_size):
    counts = {u: users.count(u) for u in set(users)}
    out = {}
    for u, c in counts.items():
        k = (
            test_size
            if isinstance(test_size, int)
            else -(-round(test_size * c * 1e6) // 10**6)
        )
        out[u] = 0 if k >= c else k
    return out


@pytest.mark.parametrize("test_size", [0.2, 0.5, 0.7, 1, 3])
def test_per_user_holdout_counts_and_seed(test_size):
    rng = np.random.default_rng(3)
    users = rng.integers(0, 30, 600).tolist()
    cv = PerUserHoldout(test_size, n_splits=3, random_state=7)
    folds = _folds(cv, 600, groups=users)
    expected = _holdout_reference_counts(users, test_size)
    for train, test in folds:
        assert sorted(train + test) == list(range(600))  # short users train
        held = {u: 0 for u in expected}
        for i in test:
            held[users[i]] += 1
        assert held == expected
    # deterministic with an int seed, and the repeats differ
    assert (
        _folds(PerUserHoldout(test_size, n_splits=3, random_state=7), 600, groups=users)
        == folds
    )
    assert folds[0] != folds[1]
    other = _folds(
        PerUserHoldout(test_size, n_splits=3, random_state=8), 600, groups=users
    )
    assert other != folds


def test_per_user_holdout_share_rounds_up_exactly():
    # 0.7 * 10 = 7.000000000000001 in floating point: 7 rows, not 8
    users = [0] * 10 + [1] * 3
    cv = PerUserHoldout(0.7, random_state=0)
    ((train, test),) = _folds(cv, 13, groups=users)
    assert [users[i] for i in test].count(0) == 7
    # user 1: ceil(0.7 * 3) = 3 rows = all of them -> short, kept in train
    assert [users[i] for i in test].count(1) == 0
    assert cv.fold_info_[0]["n_short_users"] == 1


def test_per_user_holdout_short_users_raise_names_users():
    with pytest.raises(ValueError, match=r"groups '007'\).*every one of their rows"):
        PerUserHoldout(2, short_users="raise").split(
            np.zeros(5), groups=["7", "7", "7", "007", "007"]
        )


# ---------------------------------------------------------------------------
# Filters
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(10))
def test_filters_counts_add_up(seed):
    rng = np.random.default_rng(seed)
    n = 200
    users = rng.integers(0, 40, n)
    items = rng.integers(0, 25, n)
    time = rng.integers(0, 50, n)
    cv = TimeRangeSplit(
        3,
        5,
        gap=2,
        filter_cold_users=True,
        filter_cold_items=True,
        filter_already_seen=True,
    )
    folds = _folds(cv, n, groups=users, time=time, items=items)
    for (train, test), info in zip(folds, cv.fold_info_, strict=True):
        start, end = info["test_start"], info["test_end"]
        raw = [i for i in range(n) if start <= time[i] < end]
        _, expected = _rectools_filter(
            users.tolist(), items.tolist(), train, raw, True, True, True
        )
        assert test == expected
        assert train == [i for i in range(n) if time[i] < start - 2]
        total = sum(
            info[k]
            for k in (
                "n_train",
                "n_test",
                "n_outside",
                "n_cold_user_rows",
                "n_cold_item_rows",
                "n_seen_rows",
            )
        )
        assert total == n
        lost = {users[i] for i in raw} - {users[i] for i in test}
        assert info["n_users_dropped"] == len(lost)


def test_filters_warn_with_counts():
    users = [1, 1, 2, 1, 3]
    items = [1, 2, 1, 1, 1]
    time = [1, 2, 3, 3, 3]
    cv = GlobalTemporalSplit(cutoff=3, filter_cold_users=True)
    with pytest.warns(
        UserWarning, match=r"every test row of 2 users \(cold users: 2 rows"
    ):
        assert _warned_folds(cv, 5, groups=users, time=time, items=items) == [
            ([0, 1], [3])
        ]
    # nothing dropped: no warning
    cv = GlobalTemporalSplit(cutoff=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(cv.split(np.zeros(5), groups=users, time=time))


def test_ids_that_look_alike_are_different_users():
    # "7" trains, "007" only appears in test: a cold user
    users = np.array(["7", "7", "007", "007"])
    time = [1, 2, 3, 4]
    cv = GlobalTemporalSplit(cutoff=3, filter_cold_users=True)
    with pytest.raises(ValueError, match="no test row"):
        list(cv.split(np.zeros(4), groups=users, time=time))
    users = ["7", "7", "7", "007"]
    cv = GlobalTemporalSplit(cutoff=3, filter_cold_users=True)
    with pytest.warns(UserWarning, match="1 users"):
        assert _warned_folds(cv, 4, groups=users, time=time) == [([0, 1], [2])]


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------
_times = st.lists(st.integers(0, 30), min_size=4, max_size=60)


@settings(max_examples=60, deadline=None)
@given(time=_times, data=st.data())
def test_temporal_splits_never_test_before_training(time, data):
    n = len(time)
    users = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    items = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    t = np.array(time)
    n_splits = data.draw(st.integers(1, 3))
    size = data.draw(st.integers(1, 6))
    gap = data.draw(st.integers(0, 3))
    flags = data.draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    filters = dict(
        zip(
            ("filter_cold_users", "filter_cold_items", "filter_already_seen"),
            flags,
            strict=True,
        )
    )
    for cv in (
        TimeRangeSplit(n_splits, size, gap=gap, **filters),
        GlobalTemporalSplit(data.draw(st.floats(0.05, 0.95)), gap=gap, **filters),
    ):
        try:
            folds = _folds(cv, n, groups=users, time=t, items=items)
        except ValueError:
            continue  # no training row or no test row left: refused
        for (train, test), info in zip(folds, cv.fold_info_, strict=True):
            assert train and test
            assert t[train].max() < t[test].min()
            assert t[test].min() - t[train].max() > gap  # the gap is kept
            assert not set(train) & set(test)
            assert train == sorted(train) and test == sorted(test)
            counted = info["n_outside"] + info["n_cold_user_rows"]
            counted += info["n_cold_item_rows"] + info["n_seen_rows"]
            assert len(train) + len(test) + counted == n
            assert min(counted, info["n_outside"]) >= 0


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_per_user_splits_partition_rows(data):
    n = data.draw(st.integers(2, 50))
    users = data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    time = data.draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    seed = data.draw(st.integers(0, 2**31 - 1))
    for cv in (
        LeaveLastNOut(data.draw(st.integers(1, 3))),
        PerUserHoldout(data.draw(st.floats(0.1, 0.9)), random_state=seed),
    ):
        try:
            folds = _folds(cv, n, groups=users, time=time)
        except ValueError:
            continue  # every user too short: no test row
        for (train, test), info in zip(folds, cv.fold_info_, strict=True):
            # short_users="train": every row on exactly one side
            assert sorted(train + test) == list(range(n))
            assert info["n_outside"] == 0
            # each tested user keeps a training row
            assert {users[i] for i in test} <= {users[i] for i in train}
        if isinstance(cv, PerUserHoldout):
            assert _folds(cv, n, groups=users, time=time) == folds  # same seed
        else:  # leave-last: a user's test rows are its latest
            for train, test in folds:
                for i in test:
                    assert all(
                        time[j] <= time[i] for j in train if users[j] == users[i]
                    )


def test_rows_out_of_order_give_the_same_folds():
    rng = np.random.default_rng(0)
    n = 120
    users = rng.integers(0, 10, n)
    time = rng.permutation(n)  # distinct times: no tie rule involved
    perm = rng.permutation(n)
    for cv in (TimeRangeSplit(3, 10), GlobalTemporalSplit(0.3), LeaveLastNOut(2)):
        a = _folds(cv, n, groups=users, time=time)
        b = _folds(cv, n, groups=users[perm], time=time[perm])
        for (tr, te), (tr2, te2) in zip(a, b, strict=True):
            assert sorted(perm[tr2].tolist()) == tr
            assert sorted(perm[te2].tolist()) == te


def test_inputs_are_not_modified():
    users = np.array([3, 1, 2, 1, 3, 2])
    time = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 6.0])
    items = np.array([1, 2, 1, 2, 1, 2])
    copies = users.copy(), time.copy(), items.copy()
    cv = TimeRangeSplit(1, 2, filter_already_seen=True)
    _folds(cv, 6, groups=users, time=time, items=items)
    for a, b in zip((users, time, items), copies, strict=True):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------------------
# Time columns
# ---------------------------------------------------------------------------
def test_time_column_forms_give_the_same_folds():
    pd = pytest.importorskip("pandas")
    stamps = [
        "2024-03-01 10:00",
        "2024-03-02 09:00",
        "2024-03-03 23:00",
        "2024-03-04 00:00",
        "2024-03-04 12:00",
        "2024-03-05 01:00",
    ]
    users = [1, 2, 1, 2, 1, 2]
    expected = _folds(
        TimeRangeSplit(2, "1D"),
        6,
        groups=users,
        time=np.array(stamps, "datetime64[ns]"),
    )
    # the last row is on 03-05: windows [03-04, 03-05) and [03-05, 03-06)
    assert expected == [([0, 1, 2], [3, 4]), ([0, 1, 2, 3, 4], [5])]
    series = pd.Series(pd.to_datetime(stamps))
    forms = [
        series,
        pd.DatetimeIndex(series),
        series.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris"),
        [stamp.to_pydatetime() for stamp in series],
        [datetime.datetime.fromisoformat(s) for s in stamps],
        np.array(stamps, dtype="datetime64[s]"),
    ]
    for form in forms:
        assert _folds(TimeRangeSplit(2, "1D"), 6, groups=users, time=form) == expected
    for size in (
        datetime.timedelta(days=1),
        pd.Timedelta("1D"),
        np.timedelta64(1, "D"),
        "24h",
    ):
        # "24h" floors the last time (03-05 01:00) to the hour: the windows
        # are [03-03 02:00, 03-04 02:00) and [03-04 02:00, 03-05 02:00)
        got = _folds(TimeRangeSplit(2, size), 6, groups=users, time=series)
        if size == "24h":
            assert got == [([0, 1], [2, 3]), ([0, 1, 2, 3], [4, 5])]
        else:
            assert got == expected
    polars = pytest.importorskip("polars")
    pl_time = polars.Series(stamps).str.to_datetime()
    assert _folds(TimeRangeSplit(2, "1D"), 6, groups=users, time=pl_time) == expected


def test_numeric_time_windows_end_after_the_last_unit():
    # last time 19.5 -> the last window ends at floor(19.5) + 1 = 20
    time = np.array([0.0, 3, 9.5, 10, 14.9, 15, 19.5])
    cv = TimeRangeSplit(2, 5)
    assert _folds(cv, 7, time=time) == [([0, 1, 2], [3, 4]), ([0, 1, 2, 3, 4], [5, 6])]
    assert [(f["test_start"], f["test_end"]) for f in cv.fold_info_] == [
        (10, 15),
        (15, 20),
    ]
    assert cv.borders(time) == [(10, 15), (15, 20)]
    cv = TimeRangeSplit(2, 5, gap=1)  # rows in [9, 10) and [14, 15) are in no side
    assert _folds(cv, 7, time=time) == [([0, 1], [3, 4]), ([0, 1, 2, 3], [5, 6])]
    assert [f["n_outside"] for f in cv.fold_info_] == [3, 1]


def test_global_temporal_split_test_size_and_ties():
    time = np.array([1, 2, 3, 3, 3, 4])
    # 2 latest rows -> cut-off 3; the tied 3s are tested too
    assert _folds(GlobalTemporalSplit(2), 6, time=time) == [([0, 1], [2, 3, 4, 5])]
    assert _folds(GlobalTemporalSplit(0.5), 6, time=time) == [([0, 1], [2, 3, 4, 5])]
    assert _folds(GlobalTemporalSplit(1), 6, time=time) == [([0, 1, 2, 3, 4], [5])]
    cv = GlobalTemporalSplit(cutoff=np.datetime64("2024-01-02"), gap="1D")
    t = np.array(["2023-12-31", "2024-01-01T12", "2024-01-02", "2024-01-03"], "M8[h]")
    assert _folds(cv, 4, time=t) == [([0], [2, 3])]
    assert cv.fold_info_[0]["n_outside"] == 1
    assert _folds(GlobalTemporalSplit(cutoff="2024-01-02"), 4, time=t) == [
        ([0, 1], [2, 3])
    ]


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cv, kwargs, error, match",
    [
        (TimeRangeSplit(2, 5), {}, ValueError, "needs time=.*enable_metadata_routing"),
        (TimeRangeSplit(2, 5), {"time": [1, 2, 3]}, ValueError, "time has 3 entries"),
        (TimeRangeSplit(2, 5), {"time": [[1, 2, 3, 4, 5, 6]]}, ValueError, "1-D"),
        (
            TimeRangeSplit(2, 5),
            {"time": [1, 2, np.nan, 4, 5, 6]},
            ValueError,
            r"missing \(NaN/NaT\) at row 2",
        ),
        (
            TimeRangeSplit(2, "1D"),
            {
                "time": np.array(
                    [
                        "2024-01-01",
                        "NaT",
                        "2024-01-02",
                        "2024-01-03",
                        "2024-01-04",
                        "2024-01-05",
                    ],
                    "M8[D]",
                )
            },
            ValueError,
            "at row 1",
        ),
        (
            TimeRangeSplit(2, 5),
            {"time": ["a", "b", "c", "d", "e", "f"]},
            TypeError,
            "strings",
        ),
        (TimeRangeSplit(2, 5), {"time": [1, None, 3, 4, 5, 6]}, ValueError, "row 1"),
        (
            TimeRangeSplit(5, 5),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "n_splits=5 windows.*no training row.*Lower n_splits",
        ),
        (
            TimeRangeSplit(1, "1D"),
            {"time": [1, 2, 3, 4, 5, 6]},
            TypeError,
            "test_size must be a number",
        ),
        (
            TimeRangeSplit(1, 2),
            {"time": np.arange(6).astype("M8[D]")},
            TypeError,
            "test_size must be a duration",
        ),
        (
            TimeRangeSplit(1, "1M"),
            {"time": np.arange(6).astype("M8[D]")},
            ValueError,
            "months and years",
        ),
        (TimeRangeSplit(1, 0), {"time": [1, 2, 3, 4, 5, 6]}, ValueError, "test_size"),
        (
            TimeRangeSplit(1, None),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "needs test_size",
        ),
        (TimeRangeSplit(0, 1), {"time": [1, 2, 3, 4, 5, 6]}, ValueError, "n_splits"),
        (
            TimeRangeSplit(1, 1, gap=-1),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "gap must be",
        ),
        (
            TimeRangeSplit(1, 1, filter_cold_users=True),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "needs groups=",
        ),
        (
            TimeRangeSplit(1, 1, filter_cold_items=True),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "needs items=",
        ),
        (
            TimeRangeSplit(1, 1, filter_cold_users="yes"),
            {"time": [1, 2, 3, 4, 5, 6]},
            TypeError,
            "filter_cold_users must be True or False",
        ),
        (
            GlobalTemporalSplit(),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "exactly one",
        ),
        (
            GlobalTemporalSplit(0.5, cutoff=3),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "exactly one",
        ),
        (
            GlobalTemporalSplit(cutoff=9),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "after every row",
        ),
        (
            GlobalTemporalSplit(cutoff=1),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "No row is before",
        ),
        (
            GlobalTemporalSplit(1.5),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            r"in \(0, 1\)",
        ),
        (
            GlobalTemporalSplit(6),
            {"time": [1, 2, 3, 4, 5, 6]},
            ValueError,
            "between 1 and",
        ),
        (LeaveLastNOut(1), {"time": [1, 2, 3, 4, 5, 6]}, ValueError, "needs groups="),
        (
            LeaveLastNOut(0),
            {"time": [1] * 6, "groups": [1] * 6},
            ValueError,
            "n must be",
        ),
        (
            LeaveLastNOut(1, short_users="test"),
            {"time": [1] * 6, "groups": [1] * 6},
            ValueError,
            "short_users must be",
        ),
        (
            LeaveLastNOut(1),
            {"time": [1] * 6, "groups": [1, 2, 3, None, 5, 6]},
            ValueError,
            "groups contains None",
        ),
        (
            LeaveLastNOut(1),
            {"time": [1] * 6, "groups": [1, "1", 2, 2, 3, 3]},
            TypeError,
            "groups mixes",
        ),
        (PerUserHoldout(0), {"groups": [1] * 6}, ValueError, "test_size"),
        (PerUserHoldout(1.0), {"groups": [1] * 6}, ValueError, "test_size"),
        (PerUserHoldout(0.5), {"groups": [1, 1]}, ValueError, "groups has 2 entries"),
    ],
)
def test_bad_input(cv, kwargs, error, match):
    with pytest.raises(error, match=match):
        cv.split(np.zeros(6), **kwargs)


def test_empty_test_window_is_an_error():
    time = [0, 1, 2, 3, 14]  # windows [5, 10) (empty) and [10, 15)
    with pytest.raises(ValueError, match="fold 0 has no test row"):
        list(TimeRangeSplit(2, 5).split(np.zeros(5), time=time))


# ---------------------------------------------------------------------------
# scikit-learn's model selection
# ---------------------------------------------------------------------------
def test_split_requests_users_times_and_items_by_default(routing):
    routing_info = TimeRangeSplit(2, 5).get_metadata_routing()
    assert routing_info.split.requests == {"groups": True, "time": True, "items": True}
    cv = TimeRangeSplit(2, 5).set_split_request(time="timestamp")
    assert cv.get_metadata_routing().split.requests["time"] == "timestamp"


def _ctr_log(seed=0):
    X, y, users = make_click_log(n_users=150, random_state=seed)[:3]
    time = np.random.default_rng(seed).integers(0, 60, size=y.shape[0])
    return X, y, users, time


def test_grid_search_ctr_classifier_with_routed_groups_and_time(routing):
    X, y, users, time = _ctr_log()
    cv = TimeRangeSplit(3, 10, filter_cold_users=True)
    search = GridSearchCV(
        LogisticRegression(),
        {"C": [0.01, 1.0]},
        cv=cv,
        scoring=make_scoring(["ndcg@5", "roc_auc"]),
        refit="ndcg@5",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search.fit(X, y, groups=users, time=time, query_id=users)
    # the same numbers by hand over the splitter's own folds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        folds = list(cv.split(X, groups=users, time=time))
    assert len(folds) == 3
    for c_index, C in enumerate([0.01, 1.0]):
        values = []
        for train, test in folds:
            assert time[train].max() < time[test].min()
            model = LogisticRegression(C=C).fit(X[train], y[train])
            score = model.decision_function(X[test])
            values.append(ndcg_at_k(y[test], score, k=5, query_id=users[test]))
        assert search.cv_results_["mean_test_ndcg@5"][c_index] == pytest.approx(
            np.mean(values), rel=1e-12
        )


def test_grid_search_query_ranker_with_time_range_split(routing):
    X, y, users, time = _ctr_log(1)
    cv = TimeRangeSplit(2, 15)
    search = GridSearchCV(
        QueryRanker(Ridge()), {"estimator__alpha": [0.1, 100.0]}, cv=cv
    )
    search.fit(X, y, groups=users, time=time, query_id=users)
    folds = list(cv.split(X, groups=users, time=time))
    expected = []
    for train, test in folds:
        model = Ridge(alpha=search.best_params_["estimator__alpha"]).fit(
            X[train], y[train]
        )
        expected.append(
            ndcg_at_k(y[test], model.predict(X[test]), k=10, query_id=users[test])
        )
    assert search.best_score_ == pytest.approx(np.mean(expected), rel=1e-12)


def test_cross_validate_routes_time_with_an_alias(routing):
    X, y, users, time = _ctr_log(2)
    cv = GlobalTemporalSplit(0.25).set_split_request(time="timestamp")
    result = cross_validate(
        LogisticRegression(), X, y, cv=cv, scoring="roc_auc", params={"timestamp": time}
    )
    ((train, test),) = list(cv.split(X, time=time))
    from sklearn.metrics import roc_auc_score

    model = LogisticRegression().fit(X[train], y[train])
    expected = roc_auc_score(y[test], model.decision_function(X[test]))
    assert result["test_score"][0] == pytest.approx(expected, rel=1e-12)


def test_without_routing_the_folds_can_be_passed_as_a_list():
    X, y, users, time = _ctr_log(3)
    cv = TimeRangeSplit(2, 10)
    with sklearn.config_context(enable_metadata_routing=False):
        # the tool calls split(X, y, groups) without time: a clear error
        with pytest.raises(ValueError, match="needs time=.*cv=list"):
            cross_validate(LogisticRegression(), X, y, cv=cv, groups=users)
        folds = list(cv.split(X, y, users, time=time))
        result = cross_validate(LogisticRegression(), X, y, cv=folds, scoring="roc_auc")
    assert result["test_score"].shape == (2,)


def test_public_submodule():
    import sklearn_rankmetrics
    from sklearn_rankmetrics import model_selection

    assert sklearn_rankmetrics.model_selection is model_selection
    assert model_selection.__all__ == sorted(model_selection.__all__)
    assert model_selection.__all__ == [
        "DecompositionRecommender",
        "GlobalTemporalSplit",
        "LeaveLastNOut",
        "PerUserHoldout",
        "TimeRangeSplit",
        "UserKFold",
        "sampled_metrics",
    ]
    assert "model_selection" in dir(sklearn_rankmetrics)
