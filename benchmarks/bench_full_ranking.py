"""Benchmark: the whole ranking of a 2-D input, k=None (a benchmark, not a test).

Target 2 of issue 9: ``ndcg_at_k(y_true, y_score)`` (k=None) on a
2000 x 5000 float64 score matrix at most 1.5x ``np.argsort(y_score,
axis=1)`` timed in the same run (interleaved), with an extra peak memory of at most 3x
``y_score`` (tracemalloc: the peak allocated during the call, beyond its
inputs).  Continuous scores (no ties) and scores rounded to 3 decimals
(many ties) are both timed; ``sklearn.metrics.ndcg_score`` is timed once
for reference.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_full_ranking.py [--queries 2000]
        [--items 5000] [--repeat 5]
"""

import argparse
import os

import numpy as np
from _timing import best_time, paired_times, peak_bytes  # benchmarks/ on sys.path
from sklearn.metrics import ndcg_score

import sklearn_rankmetrics as rm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n, m, r = args.queries, args.items, args.repeat
    rng = np.random.default_rng(0)
    y_true = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0)
    scores = rng.random((n, m))
    print(
        f"y_score {n} x {m} float64 ({scores.nbytes / 2**20:.0f} MiB), k=None, "
        f"best of {r}; load average {os.getloadavg()[0]:.1f}"
    )
    for label, y_score in (
        ("continuous scores", scores),
        ("scores with ties (3 decimals)", np.round(scores, 3)),
    ):

        def call(s=y_score):
            return rm.ndcg_at_k(y_true, s)

        t_sort, t, median = paired_times(
            lambda s=y_score: np.argsort(s, axis=1), call, r
        )
        peak = peak_bytes(call)
        print(f"\n{label}")
        print(f"  np.argsort(y_score, axis=1)  {t_sort * 1e3:8.1f} ms")
        print(
            f"  ndcg_at_k(k=None)            {t * 1e3:8.1f} ms   / argsort = "
            f"{t / t_sort:5.2f}  (target <= 1.5; median of the {r} "
            f"interleaved rounds' ratios {median:.2f})"
        )
        print(
            f"  peak extra memory            {peak / 2**20:8.1f} MiB   "
            f"({peak / y_score.nbytes:.2f} x y_score, target <= 3)"
        )
        t_sk = best_time(lambda s=y_score: ndcg_score(y_true, s), 1)
        print(
            f"  sklearn.metrics.ndcg_score   {t_sk * 1e3:8.1f} ms   (once; "
            f"ours is {t_sk / t:.1f}x faster)"
        )
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
