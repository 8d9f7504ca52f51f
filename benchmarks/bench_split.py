"""Benchmark: the splitters of ``sklearn_rankmetrics.model_selection`` on a
large interaction log (a benchmark, not a test).

A log of ``--rows`` rows (default 10,000,000; rows in random order) over
``--users`` users and ``--items`` items (popularity long-tailed), with the
time of each row (int64 seconds over a year, or ``datetime64[s]`` with
``--time datetime``).  Each splitter runs ``split`` to the end (every
fold's training and test indices built) with and without the cold-user,
cold-item and already-seen filters, and its CPU time per fold is divided by
the CPU time of one ``np.argsort`` of the time column, the two timed in turn
round by round (issue 31: at most 1x).  The median of the rounds' ratios and
the cheapest times are printed.  (CPU time: the machine's other jobs change
the wall time of both alike only on average.)

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_split.py [--rows 10000000]
        [--users 500000] [--items 100000] [--repeat 3]
        [--time int|datetime] [--only GlobalTemporalSplit,...]
"""

import argparse
import os
import time
import warnings

import numpy as np

from sklearn_rankmetrics.model_selection import (
    GlobalTemporalSplit,
    LeaveLastNOut,
    PerUserHoldout,
    TimeRangeSplit,
)


def make_log(n_rows, n_users, n_items, time_kind, seed=0):
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n_rows)
    popularity = 1.0 / np.arange(1, n_items + 1)  # Zipf's law: a long tail
    items = rng.choice(
        rng.permutation(n_items), n_rows, p=popularity / popularity.sum()
    )
    time = rng.integers(1_600_000_000, 1_600_000_000 + 365 * 86400, n_rows)
    if time_kind == "datetime":
        time = time.astype("datetime64[s]")
    return users, items, time


def splitters(time_kind, filters):
    """``(label, splitter)`` of every case."""
    week = "7D" if time_kind == "datetime" else 7 * 86400
    cases = [
        (GlobalTemporalSplit, {"test_size": 0.2}),
        (TimeRangeSplit, {"n_splits": 3, "test_size": week}),
        (LeaveLastNOut, {"n": 1}),
        (LeaveLastNOut, {"n": 1, "n_splits": 3}),
        (PerUserHoldout, {"test_size": 0.2, "random_state": 0}),
    ]
    names = ("filter_cold_users", "filter_cold_items", "filter_already_seen")
    out = []
    for cls, options in cases:
        shown = ", ".join(
            f"{k}={v!r}" for k, v in options.items() if k != "random_state"
        )
        label = f"{cls.__name__}({shown}{', all filters' if filters else ''})"
        out.append((label, cls(**options, **dict.fromkeys(names, filters))))
    return out


def cpu_pairs(baseline, func, repeat):
    """CPU times (``time.process_time``: one thread here) of ``baseline``
    and ``func`` called in turn ``repeat`` times: the cheapest of each and
    the median of the rounds' ratios."""
    pairs = []
    for _ in range(repeat):
        times = []
        for call in (baseline, func):
            start = time.process_time()
            call()
            times.append(time.process_time() - start)
        pairs.append(times)
    ratios = sorted(b / a for a, b in pairs)
    return min(a for a, _ in pairs), min(b for _, b in pairs), ratios[len(ratios) // 2]


def run_split(cv, X, users, items, time):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short users and filtered users
        for _train, _test in cv.split(X, groups=users, time=time, items=items):
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=500_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time", choices=("int", "datetime"), default="int")
    parser.add_argument("--only", default=None, help="comma-separated class names")
    args = parser.parse_args()
    users, items, log_time = make_log(args.rows, args.users, args.items, args.time)
    X = np.empty((args.rows, 0))  # only the number of rows is read
    print(
        f"{args.rows:,} rows, {args.users:,} users, {args.items:,} items, "
        f"{args.time} times, rows in random order; CPU time, cheapest of "
        f"{args.repeat} rounds; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"  {'splitter':58s} {'per fold':>9s}  {'argsort':>8s}  "
        "per fold / argsort (median; goal <= 1)"
    )
    only = None if args.only is None else set(args.only.split(","))
    for filters in (False, True):
        for label, cv in splitters(args.time, filters):
            if only is not None and type(cv).__name__ not in only:
                continue
            folds = cv.get_n_splits()
            t_sort, t_split, ratio = cpu_pairs(
                lambda: np.argsort(log_time),
                lambda cv=cv: run_split(cv, X, users, items, log_time),
                args.repeat,
            )
            print(
                f"  {label[:58]:58s} {t_split / folds:8.2f}s  {t_sort:7.2f}s  "
                f"{ratio / folds:5.2f}",
                flush=True,
            )
    print(f"  load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
