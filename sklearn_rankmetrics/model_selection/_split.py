"""Leakage-safe splitters over the rows of an interaction log.

Each splitter is a scikit-learn cross-validator (``split`` and
``get_n_splits``): ``GridSearchCV(..., cv=TimeRangeSplit(...))`` and
``cross_validate`` take it as they take ``GroupKFold``.  The rows are
interactions or impressions (the long form); the user of each row arrives as
``groups`` and its time as the routed metadata ``time`` (and its item as
``items``, for the cold-item and already-seen filters).  Every splitter
requests the three by default, so with metadata routing enabled
``search.fit(X, y, groups=users, time=t)`` reaches ``split``; without it,
``split(X, y, groups, time=t)`` can be called directly and its list passed
as ``cv=``.

Unlike scikit-learn's splitters, a row may be on neither side of a fold
(after the test window, inside the gap, removed by a filter); each fold's
counts are kept in ``fold_info_`` so that nothing is dropped silently.
"""

import datetime
import math
import numbers
import re
import warnings

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import check_random_state

from .._utils._validation import _as_array, check_query_id, user_stacklevel

__all__ = ["GlobalTemporalSplit", "LeaveLastNOut", "PerUserHoldout", "TimeRangeSplit"]

_ROUTING_HINT = (
    "With metadata routing enabled (sklearn.set_config("
    "enable_metadata_routing=True)), pass it to the tool: "
    "search.fit(X, y, groups=users, time=t) or cross_validate(..., "
    "params={'groups': users, 'time': t}) -- the splitter requests groups, "
    "time and items by default.  Without routing, call "
    "cv.split(X, y, groups=users, time=t) yourself and pass the list of "
    "folds as cv=list(...)."
)


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------
def _n_rows(X):
    if hasattr(X, "shape") and len(X.shape) >= 1:
        return int(X.shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(
            "X must be array-like (an array, a DataFrame, a sparse matrix or a "
            f"list of rows), got {type(X).__name__}."
        ) from None


def _codes(values, name, n, used=True):
    """Integer codes ``0..n_distinct-1`` of an id column (users or items).

    The ids are read as given: ``"007"`` and ``"7"`` are two ids; a missing
    id (None, NaN) is an error naming the argument and the row.  A column
    the split does not read (``used=False``) is checked all the same, but
    integer ids, which need no check beyond the shape, are not numbered:
    ``(None, None)``.
    """
    arr = _as_array(name, values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one id per row), got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries but X has {n} rows; pass one "
            f"{'user' if name == 'groups' else 'item'} per row of X."
        )
    if not used and arr.dtype.kind in "biu":
        return None, None
    try:
        codes, uniques = check_query_id(values if isinstance(values, list) else arr, n)
    except (TypeError, ValueError) as exc:
        raise type(exc)(str(exc).replace("query_id", name)) from None
    return np.asarray(codes, dtype=np.intp), uniques


def _to_naive_utc(time):
    """A pandas object with a time zone, converted to naive UTC (numpy has no
    time zones); anything else unchanged."""
    dt = getattr(time, "dt", None)
    if dt is not None and getattr(dt, "tz", None) is not None:
        return dt.tz_convert("UTC").dt.tz_localize(None)
    if getattr(time, "tz", None) is not None and hasattr(time, "tz_convert"):
        return time.tz_convert("UTC").tz_localize(None)
    return time


def _datetime_objects(arr):
    """An object array of ``datetime``/``date`` values as ``datetime64[us]``
    (aware ones in UTC), or None if it holds anything else."""
    values = []
    for v in arr:
        if isinstance(v, datetime.datetime):
            if v.tzinfo is not None:
                v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        elif not isinstance(v, datetime.date):
            return None
        values.append(v)
    return np.array(values, dtype="datetime64[us]")


def _check_time(time, n, owner):
    """The time column as a 1-D array of numbers, datetime64 or timedelta64.

    Rows need not be sorted by time; a missing time is an error naming the
    row.
    """
    if time is None:
        raise ValueError(
            f"{owner} needs time=, the time of each row (numbers or "
            f"datetimes). {_ROUTING_HINT}"
        )
    arr = _as_array("time", _to_naive_utc(time))
    if arr.ndim != 1:
        raise ValueError(f"time must be 1-D (one time per row), got shape {arr.shape}.")
    if arr.shape[0] != n:
        raise ValueError(
            f"time has {arr.shape[0]} entries but X has {n} rows; pass one time "
            "per row of X."
        )
    if arr.dtype.kind == "O":
        converted = _datetime_objects(arr) if n else None
        if converted is None:
            if any(v is None for v in arr):
                first = next(i for i, v in enumerate(arr) if v is None)
                raise ValueError(
                    f"time is missing at row {first}; every row needs a time."
                )
            try:
                converted = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    "time must hold numbers or datetimes (datetime64, "
                    "datetime.datetime, pandas Timestamps); got objects such as "
                    f"{arr[0]!r}. Parse text times first, e.g. with "
                    "pandas.to_datetime."
                ) from None
        arr = converted
    kind = arr.dtype.kind
    if kind in "US":
        raise TypeError(
            "time holds strings; parse them into datetimes or numbers first "
            "(e.g. pandas.to_datetime(time)), so that their order is not the "
            "order of the text."
        )
    if kind not in "iufMm":
        raise TypeError(f"time must hold numbers or datetimes, got dtype {arr.dtype}.")
    missing = (
        np.isnat(arr) if kind in "Mm" else (np.isnan(arr) if kind == "f" else None)
    )
    if missing is not None and missing.any():
        raise ValueError(
            f"time is missing (NaN/NaT) at row {np.flatnonzero(missing)[0]} "
            f"({int(missing.sum())} rows in all); every row needs a time."
        )
    if kind == "f" and np.isinf(arr).any():
        raise ValueError(
            f"time is infinite at row {np.flatnonzero(np.isinf(arr))[0]}; every "
            "row needs a finite time."
        )
    return arr


# Units of a time step: name -> numpy unit; "W" is 7 days.
_UNITS = {
    "W": "W",
    "D": "D",
    "h": "h",
    "H": "h",
    "min": "m",
    "m": "m",
    "s": "s",
    "S": "s",
    "ms": "ms",
    "us": "us",
    "ns": "ns",
}
_FLOOR_UNITS = ("D", "h", "m", "s", "ms", "us", "ns")  # coarsest first
_STEP_RE = re.compile(r"^\s*(\d+)\s*([A-Za-z]+)\s*$")


def _time_step(value, name, time, *, positive):
    """``value`` (``test_size`` or ``gap``) in the units of ``time``.

    For a datetime (or timedelta) column: a ``numpy.timedelta64``, a
    ``datetime.timedelta`` (pandas ``Timedelta`` included) or a string such
    as ``"7D"``, ``"12h"``, ``"30min"``; for a numeric column: a real number.
    Returns the step and the unit a datetime column is floored to (the
    string's unit, else the coarsest unit dividing the step; None for
    numbers).
    """
    low = "> 0" if positive else ">= 0"
    if time.dtype.kind in "Mm":
        unit = None
        if not positive and _is_zero_number(value):
            return np.timedelta64(0, "ns"), "ns"  # the default gap=0
        if isinstance(value, str):
            match = _STEP_RE.match(value)
            if match is None or match.group(2) not in _UNITS:
                raise ValueError(
                    f"{name}={value!r} is not a time step; use a count and a "
                    "unit among W, D, h, min, s, ms, us, ns, e.g. '7D' or '12h' "
                    "(months and years have no fixed length)."
                )
            unit = _UNITS[match.group(2)]
            step = np.timedelta64(int(match.group(1)), unit)
            unit = "D" if unit == "W" else unit
        elif isinstance(value, (datetime.timedelta, np.timedelta64)):
            step = np.timedelta64(value)
            if step.dtype == np.dtype("m8"):  # a generic timedelta64(0)
                step = step.astype("m8[s]")
        else:
            raise TypeError(
                f"time holds datetimes, so {name} must be a duration: a string "
                "such as '7D', a datetime.timedelta, a pandas Timedelta or a "
                f"numpy.timedelta64; got {value!r}."
            )
        if np.isnat(step):
            raise ValueError(f"{name} is NaT; give a duration {low}.")
        zero = np.timedelta64(0, "ns")
        if step < zero or (positive and step == zero):
            raise ValueError(f"{name} must be a duration {low}; got {value!r}.")
        if unit is None:
            unit = next(
                (
                    u
                    for u in _FLOOR_UNITS
                    if step % np.timedelta64(1, u) == np.timedelta64(0, u)
                ),
                "ns",
            )
        return step, unit
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"time holds numbers, so {name} must be a number in the same unit; "
            f"got {value!r}."
        )
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise ValueError(f"{name} must be a finite number {low}; got {value!r}.")
    return value, None


def _is_zero_number(value):
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and value == 0
    )


def _time_point(value, name, time):
    """``value`` (``cutoff``) as a point of the time column's kind."""
    if time.dtype.kind == "M":
        value = _to_naive_utc(value)
        if isinstance(value, datetime.datetime) and value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        try:
            point = np.datetime64(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"time holds datetimes, so {name} must be a datetime (a "
                "numpy.datetime64, datetime.datetime, pandas Timestamp or an ISO "
                f"string such as '2024-03-01'); got {value!r}."
            ) from None
        if np.isnat(point):
            raise ValueError(f"{name} is NaT; give a datetime.")
        return point
    if time.dtype.kind == "m":
        try:
            point = np.timedelta64(value)
        except (TypeError, ValueError):
            raise TypeError(
                f"time holds durations, so {name} must be a duration; got {value!r}."
            ) from None
        return point
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"time holds numbers, so {name} must be a number; got {value!r}."
        )
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    return value


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def _check_int(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int >= {low}, got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value}.")
    return int(value)


def _check_short_users(value):
    if not isinstance(value, str) or value not in ("train", "drop", "raise"):
        raise ValueError(
            f"short_users must be 'train', 'drop' or 'raise'; got {value!r}."
        )
    return value


class _Rows:
    """The validated columns of one ``split`` call.

    ``users`` and ``items`` are integer codes (or None when not given), with
    the ids they stand for in ``user_ids`` / ``item_ids``; ``time`` the
    time column (or None).
    """

    def __init__(self, n, users, user_ids, items, item_ids, time):
        self.n = n
        self.users = users
        self.user_ids = user_ids
        self.items = items
        self.item_ids = item_ids
        self.time = time


# ---------------------------------------------------------------------------
# The common part: filters, counts, warnings
# ---------------------------------------------------------------------------
def _seen(codes, mask, size):
    """Which of ``size`` codes occur in the rows of ``mask`` (a mask or row
    indices)."""
    return np.bincount(codes[mask], minlength=size) > 0


class _InteractionSplit(BaseCrossValidator):
    """Base of the splitters over interaction rows.

    Subclasses implement ``_folds(rows)``, yielding per fold the boolean
    masks ``(train, test)`` before the filters and a dict of what the fold
    is (window borders, counts of short users), and set ``_needs_time`` /
    ``_needs_users``.
    """

    # Request the users, times and items for split by default, as
    # GroupKFold requests groups: with routing enabled,
    # search.fit(X, y, groups=users, time=t, items=i) just works.
    __metadata_request__split = {"groups": True, "time": True, "items": True}
    _needs_time = True
    _needs_users = False

    def _check_filters(self):
        return {
            name: _check_bool(name, getattr(self, name))
            for name in (
                "filter_cold_users",
                "filter_cold_items",
                "filter_already_seen",
            )
        }

    def _rows(self, X, groups, time, items):
        owner = type(self).__name__
        n = _n_rows(X)
        if n < 2:
            raise ValueError(f"{owner} needs at least 2 rows to split; got {n}.")
        filters = self._check_filters()
        need_users = self._needs_users or filters["filter_cold_users"]
        need_users = need_users or filters["filter_already_seen"]
        need_items = filters["filter_cold_items"] or filters["filter_already_seen"]
        users = user_ids = item_codes = item_ids = None
        if groups is None and need_users:
            why = (
                "to split each user's rows"
                if self._needs_users
                else "for filter_cold_users / filter_already_seen"
            )
            raise ValueError(
                f"{owner} needs groups=, the user of each row, {why}. {_ROUTING_HINT}"
            )
        if groups is not None:  # read by the filters' counts too
            used = self._needs_users or any(filters.values())
            users, user_ids = _codes(groups, "groups", n, used)
        if need_items:
            if items is None:
                raise ValueError(
                    f"{owner} needs items=, the item of each row, for "
                    "filter_cold_items / filter_already_seen (or set them to "
                    f"False). {_ROUTING_HINT.replace('time=t', 'items=i')}"
                )
        if items is not None:
            item_codes, item_ids = _codes(items, "items", n, need_items)
        t = _check_time(time, n, owner) if self._needs_time else None
        return _Rows(n, users, user_ids, item_codes, item_ids, t)

    def split(self, X, y=None, groups=None, *, time=None, items=None):
        """Generate the indices of the training and test rows of each fold.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            The rows (interactions or impressions); only their number is
            read.
        y : array-like of shape (n_samples,), default=None
            Ignored; there for scikit-learn's API.
        groups : array-like of shape (n_samples,), default=None
            The user (or query) of each row; ids are compared as given
            (``"007"`` and ``"7"`` are two users).
        time : array-like of shape (n_samples,), default=None
            The time of each row: numbers, or datetimes (``datetime64``,
            ``datetime.datetime``, pandas Timestamps; aware ones are read in
            UTC).  Rows need not be sorted.
        items : array-like of shape (n_samples,), default=None
            The item of each row, for ``filter_cold_items`` and
            ``filter_already_seen``.

        Yields
        ------
        train : ndarray
            The training row indices of the fold, increasing.
        test : ndarray
            The test row indices of the fold, increasing.
        """
        rows = self._rows(X, groups, time, items)
        folds = self._folds(rows)  # validates the options before the first fold
        self.fold_info_ = []
        return self._generate(rows, folds)

    def _generate(self, rows, folds):
        filters = self._check_filters()
        for i, (train, test, info) in enumerate(folds):
            test, counts = _filter_test(rows, train, test, **filters)
            info = {"fold": i, **info}
            info["n_train"] = int(np.count_nonzero(train))
            info["n_test"] = int(np.count_nonzero(test))
            info.update(counts)
            used = info["n_train"] + info["n_test"] + info.get("n_short_rows", 0)
            used += counts["n_cold_user_rows"] + counts["n_cold_item_rows"]
            used += counts["n_seen_rows"]
            info["n_outside"] = rows.n - used
            if info["n_test"] == 0:
                raise ValueError(
                    f"{type(self).__name__}: fold {i} has no test row left "
                    f"({_describe(info)}); change the options so that every "
                    "fold tests something."
                )
            self.fold_info_.append(info)
            self._warn(info)
            yield np.flatnonzero(train), np.flatnonzero(test)

    def _warn(self, info):
        parts = []
        if info.get("n_short_users"):
            if self.short_users == "drop":
                what = f"left out of the fold ({info['n_short_rows']} rows)"
            else:
                what = "kept wholly in train"
            parts.append(
                f"{info['n_short_users']} users with too few rows to hold any "
                f"out were {what}"
            )
        if info["n_users_dropped"]:
            parts.append(
                f"the filters removed every test row of {info['n_users_dropped']} "
                f"users ({_filtered(info)})"
            )
        if parts:
            warnings.warn(
                f"{type(self).__name__}, fold {info['fold']}: "
                + "; ".join(parts)
                + ". The counts of each fold are in fold_info_.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )

    def _iter_test_indices(self, X=None, y=None, groups=None):  # pragma: no cover
        raise NotImplementedError("the splitters override split")


def _filtered(info):
    return (
        f"cold users: {info['n_cold_user_rows']} rows, cold items: "
        f"{info['n_cold_item_rows']} rows, already seen: {info['n_seen_rows']} rows"
    )


def _describe(info):
    keys = [k for k in info if k not in ("fold",)]
    return ", ".join(f"{k}={info[k]}" for k in keys)


def _filter_test(
    rows, train, test, filter_cold_users, filter_cold_items, filter_already_seen
):
    """Remove from ``test`` (a mask) the rows the filters drop, in RecTools'
    order: cold users, cold items, then (user, item) pairs seen in train.
    The filters read the test rows only (by index), the training rows once
    per filter."""
    counts = {"n_cold_user_rows": 0, "n_cold_item_rows": 0, "n_seen_rows": 0}
    if not (filter_cold_users or filter_cold_items or filter_already_seen):
        return test.copy(), {**counts, "n_users_dropped": 0}
    before = kept = np.flatnonzero(test)
    if filter_cold_users:
        warm = _seen(rows.users, train, rows.user_ids.shape[0])[rows.users[kept]]
        counts["n_cold_user_rows"] = kept.shape[0] - int(np.count_nonzero(warm))
        kept = kept[warm]
    if filter_cold_items:
        warm = _seen(rows.items, train, rows.item_ids.shape[0])[rows.items[kept]]
        counts["n_cold_item_rows"] = kept.shape[0] - int(np.count_nonzero(warm))
        kept = kept[warm]
    if filter_already_seen:
        seen = _seen_pairs(rows, train, kept)
        counts["n_seen_rows"] = int(np.count_nonzero(seen))
        kept = kept[~seen]
    n_dropped = 0
    if rows.users is not None and counts != dict.fromkeys(counts, 0):
        n_users = rows.user_ids.shape[0]
        had = _seen(rows.users, before, n_users)
        has = _seen(rows.users, kept, n_users)
        n_dropped = int(np.count_nonzero(had & ~has))
    counts["n_users_dropped"] = n_dropped
    test = np.zeros(rows.n, dtype=bool)
    test[kept] = True
    return test, counts


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing's multiplier


def _pair_keys(rows):
    """``(keys, slots)``: a uint64 key per row, equal exactly for the rows
    of one (user, item) pair, and its slot in a table of about twice as
    many entries as rows (a multiplicative hash of the key; computed once
    per ``split`` call)."""
    if getattr(rows, "_pairs", None) is None:
        keys = rows.users.astype(np.uint64) * np.uint64(rows.item_ids.shape[0])
        keys += rows.items.astype(np.uint64)
        bits = min(26, max(10, (2 * rows.n).bit_length()))  # at most 64 MiB
        slots = keys * _GOLDEN
        slots >>= np.uint64(64 - bits)
        rows._pairs = keys, slots.astype(np.intp), 1 << bits
    return rows._pairs


def _seen_pairs(rows, train, candidates):
    """Whether the (user, item) pair of each row of ``candidates`` (test
    row indices) has a row in ``train`` (a mask).

    A table of bits marks the slots of the candidates' pairs: the training
    rows in a marked slot are the possible partners (the table, packed to
    one bit a slot, is read in cache).  A second table marks the partners'
    slots: a candidate in an unmarked slot is not seen, and the keys of
    the few others are looked up exactly among the partners' keys
    (:func:`_isin`).  So no step sorts or hashes every pair (a numbering of
    the pairs, ``np.unique`` of 10,000,000 keys, cost 1.7x an argsort of
    the time column alone; benchmarks/README.md, issue 31).
    """
    keys, slots, size = _pair_keys(rows)
    marked = np.zeros(size, dtype=bool)
    candidate_slots = slots[candidates]
    marked[candidate_slots] = True
    partners = _marked(marked, slots)
    partners &= train
    partners = np.flatnonzero(partners)
    marked[:] = False
    marked[slots[partners]] = True
    seen = _marked(marked, candidate_slots)
    maybe = np.flatnonzero(seen)
    seen[maybe] = _isin(keys[candidates[maybe]], keys[partners])
    return seen


def _marked(table, slots):
    """``table[slots]`` (a bool table), read from the table packed to one
    bit a slot: 8x smaller, so the random reads stay in cache (1.7x faster
    over 10,000,000 slots of a 32 MiB table)."""
    packed = np.packbits(table, bitorder="little")
    bits = packed[slots >> 3]
    bits >>= (slots & 7).astype(np.uint8)
    bits &= 1
    return bits.view(bool)


def _isin(values, among):
    """``np.isin(values, among)`` for uint64 keys: pandas' hash table when
    pandas is installed (2x faster than sorting), else sorted look-ups."""
    try:
        import pandas as pd  # lazily: importing this package never does
    except ImportError:
        pass
    else:
        return pd.Series(values, copy=False).isin(among).to_numpy()
    among = np.sort(among)
    order = np.argsort(values)  # sorted look-ups: 2x faster
    wanted = values[order]
    at = np.searchsorted(among, wanted)
    found = at < among.shape[0]
    found[found] = among[at[found]] == wanted[found]
    out = np.empty(values.shape[0], dtype=bool)
    out[order] = found
    return out


def _ids_repr(ids, codes):
    shown = [repr(v) for v in ids[codes[:3]].tolist()]
    return ", ".join(shown) + (", ..." if codes.shape[0] > 3 else "")


# ---------------------------------------------------------------------------
# Temporal splits
# ---------------------------------------------------------------------------
class GlobalTemporalSplit(_InteractionSplit):
    """One split at a global point in time: earlier rows train, later rows test.

    Every test row is at or after the cut-off and every training row before
    it (minus ``gap``), for all users alike, so no model is trained on
    anything that happened after what it is tested on.  The cut-off is
    given (``cutoff``) or chosen so that the test side holds the last
    ``test_size`` of the rows.

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    test_size : float in (0, 1) or int >= 1, default=None
        Share (float) or number (int) of the rows to test on, the latest
        ones; the cut-off is the time of the earliest of them, and rows
        tied with it at that time are tested on too.  Give this or
        ``cutoff``.
    cutoff : number or datetime, default=None
        The time from which rows are tested on (rows with ``time >=
        cutoff``): a number for a numeric time column; a datetime
        (``numpy.datetime64``, ``datetime.datetime``, pandas Timestamp, or
        an ISO string such as ``"2024-03-01"``) for datetimes.
    gap : number or duration, default=0
        Rows with ``cutoff - gap <= time < cutoff`` are on neither side (in
        the time column's units; a duration such as ``"1D"`` for
        datetimes).
    filter_cold_users, filter_cold_items, filter_already_seen : bool, default=False
        Drop from the test side the rows of users without a training row,
        of items without a training row, and of (user, item) pairs seen in
        training, in this order (as RecTools' splitters, whose defaults are
        True).  The users need ``groups``, the items ``items``.

    Attributes
    ----------
    fold_info_ : list of dict
        Filled by :meth:`split`, one dict per fold: its borders
        (``test_start``, ``train_end``: training rows are before it) and
        counts of rows -- ``n_train``, ``n_test``, ``n_outside`` (in the
        gap), ``n_cold_user_rows``, ``n_cold_item_rows``, ``n_seen_rows``
        (removed by the filters) -- which add up to the number of rows, and
        ``n_users_dropped``, the users whose every test row the filters
        removed (also said in a warning).

    See Also
    --------
    TimeRangeSplit : Several consecutive test windows.
    LeaveLastNOut : The last interactions of each user.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.model_selection import GlobalTemporalSplit
    >>> time = np.array([5, 1, 4, 2, 3, 6])
    >>> users = np.array([1, 1, 2, 2, 3, 3])
    >>> cv = GlobalTemporalSplit(test_size=2)
    >>> for train, test in cv.split(time, groups=users, time=time):
    ...     print(train, test)
    [1 2 3 4] [0 5]
    >>> int(cv.fold_info_[0]["test_start"])
    5
    """

    def __init__(
        self,
        test_size=None,
        *,
        cutoff=None,
        gap=0,
        filter_cold_users=False,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        self.test_size = test_size
        self.cutoff = cutoff
        self.gap = gap
        self.filter_cold_users = filter_cold_users
        self.filter_cold_items = filter_cold_items
        self.filter_already_seen = filter_already_seen

    def get_n_splits(self, X=None, y=None, groups=None, *, time=None, items=None):
        """The number of folds: 1.

        Parameters
        ----------
        X, y, groups, time, items : object
            Ignored; there for scikit-learn's API.

        Returns
        -------
        n_splits : int
        """
        return 1

    def _folds(self, rows):
        t = rows.time
        if (self.test_size is None) == (self.cutoff is None):
            raise ValueError(
                "GlobalTemporalSplit takes test_size (the share or number of "
                "the latest rows to test on) or cutoff (a time), exactly one "
                f"of them; got test_size={self.test_size!r}, "
                f"cutoff={self.cutoff!r}."
            )
        gap, _ = _time_step(self.gap, "gap", t, positive=False)
        if self.cutoff is not None:
            cutoff = _time_point(self.cutoff, "cutoff", t)
        else:
            n_test = _test_count(self.test_size, rows.n)
            # the (n - n_test)-th smallest time: a selection, not a sort
            cutoff = np.partition(t, rows.n - n_test)[rows.n - n_test]
        train = t < cutoff - gap
        test = t >= cutoff
        if not test.any():
            raise ValueError(
                f"cutoff={cutoff!r} is after every row (the last is at "
                f"{t.max()!r}); no row would be tested on."
            )
        if not train.any():
            raise ValueError(
                f"No row is before cutoff - gap = {cutoff - gap!r} (the first "
                f"is at {t.min()!r}); lower gap or use a later cutoff / "
                "smaller test_size."
            )
        return [(train, test, {"test_start": cutoff, "train_end": cutoff - gap})]


def _test_count(test_size, n):
    """Rows to test on for ``test_size``: a share (rounded up) or a count."""
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(
        test_size, numbers.Real
    ):
        raise TypeError(
            f"test_size must be a float in (0, 1) or an int >= 1; got {test_size!r}."
        )
    if isinstance(test_size, numbers.Integral):
        if not 1 <= test_size < n:
            raise ValueError(
                f"test_size={test_size} rows must be between 1 and n_samples - 1 "
                f"= {n - 1}."
            )
        return int(test_size)
    if not 0 < test_size < 1:
        raise ValueError(
            f"test_size={test_size!r} as a share must be in (0, 1) (or an int "
            "number of rows)."
        )
    n_test = math.ceil(round(test_size * n, 9))
    return min(max(n_test, 1), n - 1)


class TimeRangeSplit(_InteractionSplit):
    """Consecutive test windows of fixed length at the end of the log.

    The ``n_splits`` test windows ``[start, start + test_size)`` follow one
    another and end with the time unit holding the last row; fold ``i``
    trains on every row before its window (minus ``gap``) and tests on the
    rows inside it.  This is RecTools' ``TimeRangeSplitter`` (a sliding
    window over the time line) as a scikit-learn cross-validator.

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    n_splits : int >= 1, default=3
        Number of test windows (folds).
    test_size : number or duration, default=None
        Length of each test window, in the time column's units: a number
        for numeric times, a duration for datetimes (``"7D"``, ``"12h"``,
        ``"30min"``, a ``datetime.timedelta`` or pandas ``Timedelta``).
        Required.
    gap : number or duration, default=0
        Rows in the ``gap`` before a window are on neither side of its fold.
    filter_cold_users, filter_cold_items, filter_already_seen : bool, default=False
        As in :class:`GlobalTemporalSplit` (RecTools' defaults are True).

    Attributes
    ----------
    fold_info_ : list of dict
        Filled by :meth:`split`, one dict per fold: ``test_start``,
        ``test_end`` (the window), ``train_end`` (training rows are before
        it) and the row counts of :class:`GlobalTemporalSplit` (rows after
        the window or in the gap are ``n_outside``).

    See Also
    --------
    GlobalTemporalSplit : One split at a given time.

    Notes
    -----
    The last window ends at the end of the time unit that holds the last
    row: the last row's time floored to the unit, plus one unit.  For
    datetimes the unit is that of ``test_size`` when it is a string
    (``"7D"``: the day, ``"4h"``: the hour, ``"2W"``: the day), else the
    coarsest of day, hour, minute, second, ... that divides ``test_size``;
    for numbers it is 1.  This is RecTools' rule (``last_dt.ceil(unit)``,
    one unit later when the last row is exactly on a unit border), so the
    folds equal those of ``TimeRangeSplitter(test_size, n_splits)`` with
    the same filters (pinned in the tests).  Folds are yielded from the
    earliest window to the last.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.model_selection import TimeRangeSplit
    >>> time = np.array(["2021-09-01", "2021-09-02", "2021-09-03", "2021-09-03",
    ...                  "2021-09-04", "2021-09-04", "2021-09-05"],
    ...                 dtype="datetime64[ns]")
    >>> users = np.array([1, 2, 2, 3, 3, 4, 1])
    >>> cv = TimeRangeSplit(n_splits=2, test_size="1D")
    >>> for train, test in cv.split(time, groups=users, time=time):
    ...     print(train, test)
    [0 1 2 3] [4 5]
    [0 1 2 3 4 5] [6]
    """

    def __init__(
        self,
        n_splits=3,
        test_size=None,
        *,
        gap=0,
        filter_cold_users=False,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        self.n_splits = n_splits
        self.test_size = test_size
        self.gap = gap
        self.filter_cold_users = filter_cold_users
        self.filter_cold_items = filter_cold_items
        self.filter_already_seen = filter_already_seen

    def get_n_splits(self, X=None, y=None, groups=None, *, time=None, items=None):
        """The number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups, time, items : object
            Ignored; there for scikit-learn's API.

        Returns
        -------
        n_splits : int
        """
        return _check_int("n_splits", self.n_splits, 1)

    def borders(self, time):
        """The ``(start, end)`` of each test window for this time column.

        Parameters
        ----------
        time : array-like of shape (n_samples,)
            The time of each row.

        Returns
        -------
        borders : list of tuple
            ``(start, end)`` per fold, earliest first; a fold tests the rows
            with ``start <= time < end``.
        """
        t = _check_time(time, _n_rows(time), "TimeRangeSplit")
        return self._borders(t)

    def _borders(self, t):
        n_splits = _check_int("n_splits", self.n_splits, 1)
        if self.test_size is None:
            raise ValueError(
                "TimeRangeSplit needs test_size, the length of a test window in "
                "the time column's units (e.g. 7 for integer days, '7D' for "
                "datetimes)."
            )
        step, unit = _time_step(self.test_size, "test_size", t, positive=True)
        last = t.max()
        if t.dtype.kind in "Mm":
            end = last.astype(f"{t.dtype.kind}8[{unit}]") + np.timedelta64(1, unit)
            end = end.astype(t.dtype) if _fits(end, t.dtype) else end
        else:
            end = math.floor(last) + 1
        starts = [end - (n_splits - i) * step for i in range(n_splits)]
        return [(s, s + step) for s in starts]

    def _folds(self, rows):
        t = rows.time
        gap, _ = _time_step(self.gap, "gap", t, positive=False)
        borders = self._borders(t)
        first = borders[0][0] - gap
        if not (t < first).any():
            raise ValueError(
                f"n_splits={self.n_splits} windows of test_size="
                f"{self.test_size!r} (gap={self.gap!r}) leave no training row "
                f"for the first fold: it trains on rows before {first!r}, but "
                f"the first row is at {t.min()!r}. Lower n_splits, test_size "
                "or gap."
            )
        return self._generate_masks(t, borders, gap)

    @staticmethod
    def _generate_masks(t, borders, gap):
        return [
            (
                t < start - gap,
                (t >= start) & (t < end),
                {"test_start": start, "test_end": end, "train_end": start - gap},
            )
            for start, end in borders
        ]


def _fits(value, dtype):
    """Whether a datetime/timedelta converts to ``dtype`` exactly."""
    return value.astype(dtype).astype(value.dtype) == value


# ---------------------------------------------------------------------------
# Per-user splits
# ---------------------------------------------------------------------------
# Up to this many ranks from the last, _ranks_from_last takes each user's
# latest row in turn (a pass of grouped maxima per rank) instead of sorting
# the rows by time and grouping them by user: on 10,000,000 rows one pass
# costs 0.07x an argsort of the time, the sort and grouping 1.75x
# (benchmarks/README.md, issue 31).
_PASSES_MAX = 24


def _ranks_from_last(users, n_users, time, depth):
    """Each row's rank among its user's rows counted from the last (1: the
    latest), capped at ``depth + 1``: rows ordered by time, ties by row
    order (the later row is the later interaction)."""
    n = users.shape[0]
    if depth > _PASSES_MAX:
        return _ranks_by_sort(users, n_users, time, depth)
    if time.dtype.kind in "Mm":
        time = time.view(np.int64)  # NaT (the least int64) was refused
    low = -np.inf if time.dtype.kind == "f" else np.iinfo(time.dtype).min
    work = time.astype(np.float64 if time.dtype.kind == "f" else time.dtype)
    rank = np.full(n, depth + 1, dtype=np.intp)
    done = np.zeros(n, dtype=bool)
    for r in range(1, depth + 1):
        latest = np.full(n_users, low, dtype=work.dtype)
        np.maximum.at(latest, users, work)  # ranked rows hold `low`
        candidates = np.flatnonzero((work == latest[users]) & ~done)
        last_row = np.full(n_users, -1, dtype=np.intp)
        np.maximum.at(last_row, users[candidates], candidates)
        chosen = candidates[last_row[users[candidates]] == candidates]
        rank[chosen] = r
        work[chosen] = low
        done[chosen] = True
    return rank


def _ranks_by_sort(users, n_users, time, depth):
    """:func:`_ranks_from_last` by one stable sort of the time and a
    grouping of the rows by user (radix passes)."""
    from .._engine._select import _group_order

    perm = _group_order(users, n_users, np.argsort(time, kind="stable"))
    ends = np.cumsum(np.bincount(users, minlength=n_users))
    rank = np.empty(users.shape[0], dtype=np.intp)
    rank[perm] = ends[users[perm]] - np.arange(users.shape[0])
    return np.minimum(rank, depth + 1, out=rank)


def _smallest_keys(users, n_users, key, n_test):
    """Whether each row is among the ``n_test[user]`` first of its user's
    rows ordered by ``key`` (floats in [0, 1]), ties by row order: the rows
    whose position in ``np.lexsort((rows, key, users))`` within their user
    is below ``n_test[user]`` -- without sorting the rows.

    The keys fall in ``b`` equal buckets; a count of each user's rows per
    bucket tells the bucket holding the user's ``n_test``-th row.  Rows in
    earlier buckets are taken, rows in later ones are not, and so are the
    rows of that bucket when the user takes all of them; only the users
    taking part of it have its rows sorted by key (about one row in
    ``2 b``).
    """
    from .._engine._select import _group_order

    n = users.shape[0]
    buckets = 1 << max(1, min(8, (n // max(n_users, 1)).bit_length() - 1))
    # (small dtypes: every array of the size of the input here is a fresh
    # allocation, whose pages cost as much as the arithmetic)
    bucket = (key * buckets).astype(np.int16)  # floor
    np.minimum(bucket, buckets - 1, out=bucket)  # (a key of 1.0)
    cell = users * buckets
    cell += bucket
    below = np.bincount(cell, minlength=n_users * buckets).reshape(n_users, buckets)
    del cell
    np.cumsum(below, axis=1, out=below)  # rows of the user up to each bucket
    # the user's bucket holding its n_test-th row (the last one for a user
    # with fewer rows: such a user is short, handled by the caller), the
    # rows before it and the rows of it the user takes
    last = np.minimum((below < n_test[:, None]).sum(axis=1), buckets - 1)
    before = np.where(last > 0, below[np.arange(n_users), last - 1], 0)
    need = n_test - before
    whole = need >= below[np.arange(n_users), last] - before
    # a row is taken if 2 bucket < 2 last + whole; 2 bucket == 2 last: sort
    bucket *= 2
    edge = (2 * last + whole).astype(np.int16)[users]
    taken = bucket < edge
    rows = np.flatnonzero(bucket == edge)
    if rows.shape[0]:
        # by user, then key, then row (a stable sort of the keys, then a
        # stable radix grouping by user: 2.4x faster than np.lexsort)
        rows = rows[
            _group_order(users[rows], n_users, np.argsort(key[rows], kind="stable"))
        ]
        u = users[rows]
        start = np.flatnonzero(np.concatenate(([True], u[1:] != u[:-1])))
        rank = np.arange(rows.shape[0]) - np.repeat(
            start, np.diff(start, append=rows.shape[0])
        )
        taken[rows] = rank < need[u]
    return taken


def _short_users_error(owner, rows, short, need):
    codes = np.flatnonzero(short)
    raise ValueError(
        f"{owner}: {codes.shape[0]} users (groups {_ids_repr(rows.user_ids, codes)}) "
        f"have too few rows: {need}. Use short_users='train' (keep them "
        "wholly in train) or 'drop', or remove them from the data."
    )


class LeaveLastNOut(_InteractionSplit):
    """Hold out each user's last ``n`` interactions (leave-last-N-out).

    Each user's rows are ordered by time; the last ``n`` are tested on, the
    earlier ones trained on.  With ``n_splits > 1`` the folds slide back in
    each user's history, as RecTools' ``LastNSplitter``: fold ``i`` (of
    ``s``) tests each user's rows ``(s - 1 - i) * n + 1`` to ``(s - i) * n``
    counted from the last and trains on the rows before them.

    Unlike the global temporal splits, this split leaks: another user's
    training rows may be later than a user's test rows (the model learns
    from the future of the catalogue).  Prefer :class:`TimeRangeSplit` or
    :class:`GlobalTemporalSplit` unless the protocol to reproduce is
    leave-last-out (sequential recommendation papers).

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    n : int >= 1, default=1
        Interactions per user held out in each fold.
    n_splits : int >= 1, default=1
        Number of folds.
    short_users : {"train", "drop", "raise"}, default="train"
        What to do in a fold with a user whose available rows (those not held
        out by later folds) number ``n`` or fewer, so that holding ``n`` out
        would leave nothing to train on: keep all of them in train
        (``"train"``), leave them out of the fold (``"drop"``: what RecTools
        does with ``filter_cold_users=True``), or raise a ``ValueError``.
        Counted in ``fold_info_`` and said in a warning.
    filter_cold_users, filter_cold_items, filter_already_seen : bool, default=False
        As in :class:`GlobalTemporalSplit`.

    Attributes
    ----------
    fold_info_ : list of dict
        Filled by :meth:`split`, one dict per fold: the row counts of
        :class:`GlobalTemporalSplit` plus ``n_short_users`` (users with
        ``n`` or fewer available rows) and ``n_short_rows`` (their rows
        left out with ``short_users="drop"``).

    Notes
    -----
    Ties in time are broken by row order: of two rows of a user at the same
    time, the later row in the input is the later interaction (as RecTools'
    ``rank(method="first")``).  The folds are thus repeatable, and the same
    whatever the order of rows with different times.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.model_selection import LeaveLastNOut
    >>> users = np.array(["a", "a", "a", "b", "b", "c"])
    >>> time = np.array([3, 1, 2, 1, 2, 1])
    >>> cv = LeaveLastNOut(n=1)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for train, test in cv.split(users, groups=users, time=time):
    ...         print(train, test)
    [1 2 3 5] [0 4]
    >>> cv.fold_info_[0]["n_short_users"]  # "c" has a single row: kept in train
    1
    >>> print(caught[0].message)
    LeaveLastNOut, fold 0: 1 users with too few rows to hold any out were kept
    wholly in train. The counts of each fold are in fold_info_.
    """

    _needs_users = True

    def __init__(
        self,
        n=1,
        *,
        n_splits=1,
        short_users="train",
        filter_cold_users=False,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        self.n = n
        self.n_splits = n_splits
        self.short_users = short_users
        self.filter_cold_users = filter_cold_users
        self.filter_cold_items = filter_cold_items
        self.filter_already_seen = filter_already_seen

    def get_n_splits(self, X=None, y=None, groups=None, *, time=None, items=None):
        """The number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups, time, items : object
            Ignored; there for scikit-learn's API.

        Returns
        -------
        n_splits : int
        """
        return _check_int("n_splits", self.n_splits, 1)

    def _folds(self, rows):
        n = _check_int("n", self.n, 1)
        s = _check_int("n_splits", self.n_splits, 1)
        short_users = _check_short_users(self.short_users)
        counts = np.bincount(rows.users, minlength=rows.user_ids.shape[0])
        # 1 = the user's last row; ranks beyond n * s are all n * s + 1
        from_last = _ranks_from_last(
            rows.users, rows.user_ids.shape[0], rows.time, n * s
        )
        if short_users == "raise":
            short = counts <= n * s
            if short.any():
                _short_users_error(
                    "LeaveLastNOut",
                    rows,
                    short,
                    f"n={n} held out in each of n_splits={s} folds needs more "
                    f"than {n * s} rows per user",
                )
        folds = []
        for i in range(s):
            held = (s - 1 - i) * n  # rows held out by later folds
            available = counts - held
            short = available <= n
            short_row = short[rows.users]
            train = (from_last > held + n) & ~short_row
            test = (from_last > held) & (from_last <= held + n) & ~short_row
            n_short_rows = 0
            if short_users == "train":
                train |= short_row & (from_last > held)
            else:
                n_short_rows = int(np.count_nonzero(short_row & (from_last > held)))
            info = {
                "n_short_users": int(np.count_nonzero(short)),
                "n_short_rows": n_short_rows,
            }
            folds.append((train, test, info))
        return folds


class PerUserHoldout(_InteractionSplit):
    """Hold out a random share of each user's interactions.

    For each user, ``test_size`` of the rows (a share, rounded up, or a
    number) are drawn at random for the test side; the rest are trained
    on.  With ``n_splits > 1`` each fold draws anew (as scikit-learn's
    ``ShuffleSplit``).  Random holdouts ignore time: they leak the future
    into training and suit time-less data or reproducing a paper's
    protocol; see :class:`GlobalTemporalSplit` for a leakage-safe split.

    Read more in the :ref:`User Guide <evaluation_protocol>`.

    Parameters
    ----------
    test_size : float in (0, 1) or int >= 1, default=0.2
        Share of each user's rows (rounded up) or number of rows per user
        held out.
    n_splits : int >= 1, default=1
        Number of random holdouts.
    short_users : {"train", "drop", "raise"}, default="train"
        What to do with a user whose rows would all be held out (a single
        row, or ``test_size`` rows or fewer with an int): keep them in
        train, leave them out, or raise a ``ValueError``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws; an int gives the same folds at every call.
    filter_cold_users, filter_cold_items, filter_already_seen : bool, default=False
        As in :class:`GlobalTemporalSplit` (no user is cold here).

    Attributes
    ----------
    fold_info_ : list of dict
        Filled by :meth:`split`, as in :class:`LeaveLastNOut`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics.model_selection import PerUserHoldout
    >>> users = np.repeat([0, 1, 2], [5, 5, 1])
    >>> cv = PerUserHoldout(test_size=0.4, random_state=0)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # 1 user too short, said in a warning
    ...     train, test = next(cv.split(users, groups=users))
    >>> np.bincount(users[test], minlength=3)  # 2 of 5 rows; the 1-row user trains
    array([2, 2, 0])
    """

    _needs_time = False
    _needs_users = True

    def __init__(
        self,
        test_size=0.2,
        *,
        n_splits=1,
        short_users="train",
        random_state=None,
        filter_cold_users=False,
        filter_cold_items=False,
        filter_already_seen=False,
    ):
        self.test_size = test_size
        self.n_splits = n_splits
        self.short_users = short_users
        self.random_state = random_state
        self.filter_cold_users = filter_cold_users
        self.filter_cold_items = filter_cold_items
        self.filter_already_seen = filter_already_seen

    def get_n_splits(self, X=None, y=None, groups=None, *, time=None, items=None):
        """The number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups, time, items : object
            Ignored; there for scikit-learn's API.

        Returns
        -------
        n_splits : int
        """
        return _check_int("n_splits", self.n_splits, 1)

    def _per_user_test_counts(self, counts):
        size = self.test_size
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, numbers.Real):
            raise TypeError(
                f"test_size must be a float in (0, 1) or an int >= 1; got {size!r}."
            )
        if isinstance(size, numbers.Integral):
            if size < 1:
                raise ValueError(f"test_size must be an int >= 1; got {size}.")
            return np.full(counts.shape, int(size))
        if not 0 < size < 1:
            raise ValueError(
                f"test_size={size!r} as a share must be in (0, 1) (or an int "
                "number of rows per user)."
            )
        return np.ceil(np.round(size * counts, 9)).astype(np.intp)

    def _folds(self, rows):
        s = _check_int("n_splits", self.n_splits, 1)
        short_users = _check_short_users(self.short_users)
        n_users = rows.user_ids.shape[0]
        counts = np.bincount(rows.users, minlength=n_users)
        n_test = self._per_user_test_counts(counts)
        short = n_test >= counts
        if short_users == "raise" and short.any():
            _short_users_error(
                "PerUserHoldout",
                rows,
                short,
                f"test_size={self.test_size!r} would hold out every one of their rows",
            )
        rng = check_random_state(self.random_state)
        short_row = short[rows.users]
        n_short = int(np.count_nonzero(short))
        n_short_rows = 0 if short_users == "train" else int(np.count_nonzero(short_row))
        folds = []
        for _ in range(s):
            key = rng.random_sample(rows.n)
            test = _smallest_keys(rows.users, n_users, key, n_test) & ~short_row
            train = ~test & ~short_row
            if short_users == "train":
                train |= short_row
            info = {"n_short_users": n_short, "n_short_rows": n_short_rows}
            folds.append((train, test, info))
        return folds
