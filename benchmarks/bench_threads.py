"""Benchmark: the dense 2-D top-k path on threads (a benchmark, not a test).

Target 1 of issue 9: ``ndcg_at_k(y_true, y_score, k=10)`` on a 10000 x 2000
float64 score matrix (graded relevance, ~2 % of the items), the default call,
at most 1.0x one whole-array ``np.argpartition(y_score, -10, axis=1)`` timed
in the same run (the two interleaved, round by round).  Also times the call
with 1 thread and with each thread count up to the CPUs of the process
(``config_context(n_threads=...)``), checks that every thread count gives
bit-identical per-query values, and reports the peak memory allocated
beyond the inputs (tracemalloc).  The machine load (``os.getloadavg``) is
printed: the ratios are only meaningful within one run.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_threads.py [--queries 10000]
        [--items 2000] [--k 10] [--repeat 7]
"""

import argparse
import os

import numpy as np
from _timing import best_time, paired_times, peak_bytes  # benchmarks/ on sys.path

import sklearn_rankmetrics as rm
from sklearn_rankmetrics._utils._config import _available_cpus


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--items", type=int, default=2_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    n, m, k, r = args.queries, args.items, args.k, args.repeat
    rng = np.random.default_rng(0)
    y_true = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0)
    y_score = rng.random((n, m))
    print(
        f"y_score {n} x {m} float64 ({y_score.nbytes / 2**20:.0f} MiB), k={k}, "
        f"best of {r}; load average {os.getloadavg()[0]:.1f} on "
        f"{_available_cpus()} CPUs"
    )

    def call():
        return rm.ndcg_at_k(y_true, y_score, k=k, average=None)

    t_part, t_default, median = paired_times(
        lambda: np.argpartition(y_score, -k, axis=1), call, r
    )
    print(f"  np.argpartition(y_score, -{k}, axis=1)     {t_part * 1e3:8.1f} ms")
    print(
        f"  ndcg_at_k, default (n_threads='auto')   {t_default * 1e3:8.1f} ms"
        f"   / argpartition = {t_default / t_part:5.2f}  (target <= 1.0; "
        f"median of the {r} interleaved rounds' ratios {median:.2f})"
    )
    reference = call()
    for n_threads in range(1, _available_cpus() + 1):
        with rm.config_context(n_threads=n_threads):
            t = best_time(call, r)
            same = np.array_equal(call(), reference, equal_nan=True)
        print(
            f"  ndcg_at_k, n_threads={n_threads:<2d}                 "
            f"{t * 1e3:8.1f} ms   / argpartition = {t / t_part:5.2f}"
            f"   bit-identical: {same}"
        )
    peak = peak_bytes(call)
    print(
        f"  peak extra memory (default call)        {peak / 2**20:8.1f} MiB"
        f"   ({peak / y_score.nbytes:.2f} x y_score)"
    )
    print(f"  load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
