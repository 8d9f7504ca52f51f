"""Benchmark: the dense 2-D path of ``ndcg_at_k`` (a benchmark, not a test).

Prints the time of ``ndcg_at_k`` (ties averaged, the default) on a
2000 x 5000 float64 score matrix with k=10, and its ratios to two baselines
timed in the same run: ``sklearn.metrics.ndcg_score`` and
``np.argpartition(y_score, -10, axis=1)`` alone.  Also reports the peak
memory the call allocates beyond its inputs (tracemalloc).

Run from the repository root::

    python benchmarks/bench_dense.py [--queries 2000] [--items 5000] [--k 10]
"""

import argparse

import numpy as np
from _timing import best_time, peak_bytes  # benchmarks/ is on sys.path
from sklearn.metrics import ndcg_score

import sklearn_rankmetrics as rm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n, m, k = args.queries, args.items, args.k
    rng = np.random.default_rng(0)
    # Graded relevance, ~2% of items relevant with grades 1..3.
    y_true = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0)
    cases = {
        "continuous scores": rng.random((n, m)),
        "scores with ties (3 decimals)": np.round(rng.random((n, m)), 3),
    }
    input_mb = cases["continuous scores"].nbytes / 2**20
    print(
        f"y_score {n} x {m} float64 ({input_mb:.0f} MiB), k={k}, best of {args.repeat}"
    )
    for label, y_score in cases.items():
        print(f"\n{label}")
        report(y_true, y_score, k, args.repeat)


def report(y_true, y_score, k, repeat):
    t_ours = best_time(lambda: rm.ndcg_at_k(y_true, y_score, k=k), repeat)
    t_part = best_time(lambda: np.argpartition(y_score, -k, axis=1), repeat)
    t_sk = best_time(lambda: ndcg_score(y_true, y_score, k=k), 1)
    ours = rm.ndcg_at_k(y_true, y_score, k=k, no_relevant=0.0)
    theirs = ndcg_score(y_true, y_score, k=k)
    peak = peak_bytes(lambda: rm.ndcg_at_k(y_true, y_score, k=k))
    print(f"  ndcg_at_k                     {t_ours * 1e3:8.1f} ms")
    print(
        f"  np.argpartition alone         {t_part * 1e3:8.1f} ms"
        f"   ours / argpartition = {t_ours / t_part:5.2f}  (target <= 3)"
    )
    print(
        f"  sklearn.metrics.ndcg_score    {t_sk * 1e3:8.1f} ms"
        f"   speed-up vs sklearn  = {t_sk / t_ours:5.1f}x (target >= 10)"
    )
    print(
        f"  peak extra memory             {peak / 2**20:8.1f} MiB"
        f"   ({peak / y_score.nbytes:.2f} x the input)"
    )
    print(f"  |ours - sklearn| (no_relevant=0.0) = {abs(ours - theirs):.1e}")


if __name__ == "__main__":
    main()
