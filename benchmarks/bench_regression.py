"""Benchmark: the cases issue 9 must not slow down (a benchmark, not a test).

Target 5 of issue 9: sparse ``y_true``, tied scores, ``ignore_ties=True``
and weights, on the 2-D and the long form.  Each case's time is printed
with its ratio to the numpy baseline it rests on, timed in the same run
(``np.argpartition`` for 2-D top k, ``np.argsort`` of the scores for the
long form and GAUC, ``np.argsort(axis=1)`` for k=None), interleaved with
it call by call (the median of the rounds' ratios is printed), so that
two versions of the package can be compared across runs whatever the
machine load::

    PYTHONPATH=/path/to/old/checkout python benchmarks/bench_regression.py
    PYTHONPATH=. python benchmarks/bench_regression.py

Options: ``--queries``/``--items`` (2-D shape), ``--rows`` (long form),
``--repeat``.  The peak memory column is tracemalloc's, beyond the inputs.
"""

import argparse
import os
from functools import partial

import numpy as np
import scipy.sparse as sp
from _timing import best_time, paired_times, peak_bytes  # benchmarks/ on sys.path

import sklearn_rankmetrics as rm


def peak_mib(func):
    return peak_bytes(func) / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n, m, r = args.queries, args.items, args.repeat
    rng = np.random.default_rng(0)
    Y = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0)
    Y_sparse = sp.csr_matrix(Y)
    S = rng.random((n, m))
    S_tied = np.round(S, 2)
    S_tied3 = np.round(S, 3)
    W = rng.random(n)
    rows = args.rows
    qid = rng.integers(0, rows // 20, rows)
    y = np.where(rng.random(rows) < 0.1, rng.integers(1, 4, rows), 0)
    s = rng.random(rows)
    s_tied = np.round(s, 2)
    w = rng.random(rows // 20)[qid]
    print(
        f"{rm.__file__}\n2-D {n} x {m}, long form {rows:,} rows, best of {r}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    t_part = best_time(lambda: np.argpartition(S, -10, axis=1), r)
    t_sort = best_time(lambda: np.argsort(s), r)
    t_rows = best_time(lambda: np.argsort(S_tied3, axis=1), r)
    print(
        f"  baselines: np.argpartition 2-D {t_part * 1e3:.1f} ms, np.argsort "
        f"long {t_sort * 1e3:.1f} ms, np.argsort 2-D rows {t_rows * 1e3:.1f} ms"
    )
    part = partial(np.argpartition, S, -10, axis=1)
    long_sort = partial(np.argsort, s)
    row_sort = partial(np.argsort, S_tied3, axis=1)
    cases = [
        ("2-D ndcg@10", part, partial(rm.ndcg_at_k, Y, S, k=10)),
        ("2-D ndcg@10 ties", part, partial(rm.ndcg_at_k, Y, S_tied, k=10)),
        (
            "2-D ndcg@10 ignore_ties",
            part,
            partial(rm.ndcg_at_k, Y, S_tied, k=10, ignore_ties=True),
        ),
        (
            "2-D map@10 ties weights",
            part,
            partial(rm.average_precision_at_k, Y, S_tied, k=10, sample_weight=W),
        ),
        ("sparse ndcg@10", part, partial(rm.ndcg_at_k, Y_sparse, S, k=10)),
        ("sparse ndcg@10 ties", part, partial(rm.ndcg_at_k, Y_sparse, S_tied, k=10)),
        ("2-D gauc", part, partial(rm.group_auc_score, Y, S)),
        ("2-D ndcg k=None ties", row_sort, partial(rm.ndcg_at_k, Y, S_tied3)),
        (
            "2-D map k=None ties",
            row_sort,
            partial(rm.average_precision_at_k, Y, S_tied3),
        ),
        (
            "long ndcg@10 ties",
            long_sort,
            partial(rm.ndcg_at_k, y, s_tied, k=10, query_id=qid),
        ),
        (
            "long ndcg@10 ignore_ties",
            long_sort,
            partial(rm.ndcg_at_k, y, s, k=10, query_id=qid, ignore_ties=True),
        ),
        (
            "long map@10 weights",
            long_sort,
            partial(
                rm.average_precision_at_k, y, s, k=10, query_id=qid, sample_weight=w
            ),
        ),
        (
            "long gauc ties",
            long_sort,
            partial(rm.group_auc_score, y, s_tied, query_id=qid),
        ),
        (
            "long gauc row weights",
            long_sort,
            partial(rm.group_auc_score, y, s, query_id=qid, sample_weight=w),
        ),
    ]
    print(
        f"  {'case':28s} {'time':>10s} {'/ baseline':>10s} {'median':>7s} "
        f"{'memory':>10s}"
    )
    for label, base, func in cases:
        t_base, t, median = paired_times(base, func, r)
        print(
            f"  {label:28s} {t * 1e3:7.1f} ms {t / t_base:10.2f} {median:7.2f} "
            f"{peak_mib(func):6.0f} MiB"
        )
    print(f"  load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
