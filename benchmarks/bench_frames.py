"""Benchmark: ranking_report on a data frame by column name against the
numpy path (a benchmark, not a test).

An impressions table of ``--rows`` rows (default 10,000,000) over
``--users`` users (1-39 rows each, rows shuffled): the user id (text such as
``"u0012345"``, or of different lengths, ``"u12345"``, with ``--id-width
varied``, or random hex of about 30 characters with ``--id-width hex``:
ids that differ in far more than 64 bits, which are hashed and checked
where the others are packed into exact integer keys; categorical with
``--ids cat``; int64 with ``--ids int``), a
click label (int8) and the model's score (float64).  The same table is held
as numpy arrays (text ids as an object array of Python strings, one object
per id as indexing a list of names gives; with ``--numpy-ids to_numpy``,
one object per row, as pandas' ``Series.to_numpy()`` of its string dtype
gives), a pandas DataFrame (numpy-backed columns; the
ids as pandas' default string dtype, or category), a polars DataFrame
(String or Categorical) and a pyarrow Table (string or dictionary), all
built before timing.

Each round times, in turn, the numpy path ``ranking_report(y, s,
query_id=q)`` and the frame path ``ranking_report(frame, query_col=...,
label_col=..., score_col=...)`` on each frame, measuring *CPU time*
(``time.process_time``: every thread of the process), interleaved so that a
change of machine load favours no side.  It prints each path's cheapest
CPU time and the median over rounds of the ratio frame / numpy (goal of
issue 30: <= 1.1x), and checks that every frame gives the numpy path's
values exactly (``output_dict=True``, compared with ``==``).

The frame path reads the numeric columns without a copy where the library
allows it (numpy-backed pandas and polars columns, Arrow columns of one
chunk) and numbers text ids once by hashing (pandas' ``factorize``, Arrow's
``dictionary_encode``, polars through Arrow), where the numpy path numbers
an object array of Python strings (by object, then its distinct objects by
value; by value when each row holds its own object).

With ``--polars-copy``, each round also times the polars frame with its
text ids copied to Arrow's ``large_string`` first (``Series.to_arrow()``,
as before its string views were read in place), the row "polars
(copied)".

Run from the repository root::

    python benchmarks/bench_frames.py [--rows 10000000] [--users 500000]
        [--ids str|cat|int] [--id-width fixed|varied|hex]
        [--numpy-ids names|to_numpy] [--repeat 3]
        [--metrics ndcg,recall,map,precision] [--k 10]
        [--frames pandas,polars,pyarrow] [--polars-copy]
"""

import argparse
import os
import time

import numpy as np

import sklearn_rankmetrics as rm


def make_table(n_rows, n_users, ids, seed=0, width="fixed"):
    """The impressions as numpy columns (ids: text or int64)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, n_users)
    sizes = np.maximum(1, np.round(sizes * n_rows / sizes.sum())).astype(np.int64)
    user = np.repeat(np.arange(n_users), sizes)[:n_rows]
    user = user[rng.permutation(user.shape[0])]
    n = user.shape[0]
    clicked = (rng.random(n) < 0.05 + 0.1 * (user % 3 == 0)).astype(np.int8)
    score = np.round(rng.random(n) + 0.3 * clicked, 3)  # ties
    if ids == "str" and width == "hex":  # UUID-like: far more than 64 bits
        hexes = [rng.bytes(15).hex().lstrip("0") for _ in range(n_users)]
        user = np.array(hexes, dtype=object)[user]
    elif ids == "str":
        form = "u{:07d}" if width == "fixed" else "u{}"
        names = np.array([form.format(i) for i in range(n_users)], dtype=object)
        user = names[user]
    else:
        user = user.astype(np.int64) * 7919 - 10**9  # spread, negative
    return {"user": user, "clicked": clicked, "score": score}


def make_frames(cols, kinds, categorical=False):
    """The table as each library's frame; ``categorical``: the text ids as
    pandas' category, polars' Categorical, Arrow's dictionary type."""
    frames = {}
    if "pandas" in kinds:
        import pandas as pd

        frames["pandas"] = pd.DataFrame(cols)
        if categorical:
            frames["pandas"]["user"] = frames["pandas"]["user"].astype("category")
    if "polars" in kinds:
        import polars as pl

        user = cols["user"]
        if user.dtype == object:
            user = pl.Series("user", user.tolist(), dtype=pl.String)
            if categorical:
                user = user.cast(pl.Categorical)
        frames["polars"] = pl.DataFrame(
            {"user": user, "clicked": cols["clicked"], "score": cols["score"]}
        )
    if "pyarrow" in kinds:
        import pyarrow as pa

        user = cols["user"]
        user = pa.array(user.tolist() if user.dtype == object else user)
        if categorical:
            user = user.dictionary_encode()
        frames["pyarrow"] = pa.table(
            {"user": user, "clicked": cols["clicked"], "score": cols["score"]}
        )
    return frames


def cpu_time(func):
    start = time.process_time()
    out = func()
    return time.process_time() - start, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=500_000)
    parser.add_argument("--ids", choices=("str", "cat", "int"), default="str")
    parser.add_argument(
        "--id-width", choices=("fixed", "varied", "hex"), default="fixed"
    )
    parser.add_argument("--numpy-ids", choices=("names", "to_numpy"), default="names")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--metrics", default="ndcg,recall,map,precision")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--frames", default="pandas,polars,pyarrow")
    parser.add_argument("--polars-copy", action="store_true")
    args = parser.parse_args()
    kinds = args.frames.split(",")
    options = dict(k=args.k, metrics=args.metrics.split(","), output_dict=True)

    ids = "int" if args.ids == "int" else "str"
    cols = make_table(args.rows, args.users, ids, width=args.id_width)
    frames = make_frames(cols, kinds, categorical=args.ids == "cat")
    n = cols["user"].shape[0]
    if args.numpy_ids == "to_numpy" and args.ids != "int":
        import pandas as pd

        cols["user"] = pd.Series(cols["user"], dtype="str").to_numpy()
    print(
        f"{n:,} rows, {args.users:,} users, {args.ids} ids ({args.id_width} "
        f"width; numpy path: "
        f"{args.numpy_ids}), metrics {args.metrics} at k={args.k}; CPU time, "
        f"best of {args.repeat}; load average {os.getloadavg()[0]:.1f}"
    )

    def numpy_path():
        return rm.ranking_report(
            cols["clicked"], cols["score"], query_id=cols["user"], **options
        )

    def frame_path(frame):
        return rm.ranking_report(
            frame, query_col="user", label_col="clicked", score_col="score", **options
        )

    if args.polars_copy and "polars" in frames:
        from sklearn_rankmetrics._io import _dataframe

        def copied_path(frame):
            views = _dataframe._polars_arrow
            _dataframe._polars_arrow = lambda series: series.to_arrow()
            try:
                return frame_path(frame)
            finally:
                _dataframe._polars_arrow = views

        frames["polars (copied)"] = frames["polars"]

    times = {"numpy": [], **{kind: [] for kind in frames}}
    ratios = {kind: [] for kind in frames}
    expected = None
    for _ in range(args.repeat):
        base, expected = cpu_time(numpy_path)
        times["numpy"].append(base)
        for kind, frame in frames.items():
            path = copied_path if kind == "polars (copied)" else frame_path
            t, got = cpu_time(lambda frame=frame, path=path: path(frame))
            if got != expected:
                raise AssertionError(f"{kind}: {got} != numpy path {expected}")
            times[kind].append(t)
            ratios[kind].append(t / base)
    print(f"{'numpy arrays':16s} {min(times['numpy']):7.2f} s")
    for kind in frames:
        ratio = sorted(ratios[kind])[len(ratios[kind]) // 2]
        print(
            f"{kind:16s} {min(times[kind]):7.2f} s  {ratio:.2f}x the numpy path "
            "(median of rounds); values equal"
        )


if __name__ == "__main__":
    main()
