"""Benchmark: factor_ranking_report against implicit (a benchmark, not a test).

Issue 20, item 4: 100k users x 50k items, 64 float32 factors, 20 training
items (excluded) and 5 held-out items per user, k=10.  Times
``factor_ranking_report(..., metrics=["ndcg", "map", "precision", "recall"])``
against implicit's
``ranking_metrics_at_k(model, train, test, K=10)`` on the same factors (an
``AlternatingLeastSquares`` whose factors are set, not fitted), both on the
CPUs of this process, and asserts equal values:

- implicit's NDCG is ours on binary relevance;
- its MAP is ours with ``ap_denominator="min_k"``;
- its precision is total hits / sum of min(K, held-out items): with 5
  held-out items per user and K=10 that is our recall@10.

Both score in float32 (ours keeps the factors' dtype), but not with the same
products, so two items within an ulp may swap: the values are asserted
equal to 1e-6.  Also prints the peak memory traced (tracemalloc) by ours,
against "2 blocks of scores plus the inputs" (the issue's goal), and the
machine load: the ratios are only meaningful within one run.

``--coverage`` also times the same report with ``catalog_coverage`` added
(a beyond-accuracy metric: it selects each user's top k from the whole row,
not from the candidates) and prints its ratio to the report without it, and
the coverage.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_factor.py [--users 100000]
        [--items 50000] [--factors 64] [--repeat 1] [--coverage]
"""

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
from _timing import peak_bytes  # benchmarks/ on sys.path

import sklearn_rankmetrics as rm
from sklearn_rankmetrics._evaluation._tiling import _chunk_rows, _tile_rows
from sklearn_rankmetrics._utils._config import _available_cpus, effective_n_threads


def interactions(rng, n_users, n_items, per_user):
    """``per_user`` distinct random items per user, as (n_users, per_user)."""
    items = rng.integers(0, n_items, size=(n_users, per_user))
    while True:
        items.sort(axis=1)
        dup = np.flatnonzero((np.diff(items, axis=1) == 0).any(axis=1))
        if not dup.size:
            return items
        items[dup] = rng.integers(0, n_items, size=(dup.size, per_user))


def as_csr(items, n_items):
    n_users, per_user = items.shape
    indptr = np.arange(0, n_users * per_user + 1, per_user)
    data = np.ones(items.size, dtype=np.float32)
    return sp.csr_matrix((data, items.ravel(), indptr), shape=(n_users, n_items))


def timed(func):
    """Wall and CPU seconds of one call, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = func()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--factors", type=int, default=64)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--coverage", action="store_true")
    args = parser.parse_args()
    n, m, d, k = args.users, args.items, args.factors, args.k
    rng = np.random.default_rng(0)
    V = rng.normal(size=(m, d)).astype(np.float32)
    both = interactions(rng, n, m, 25)
    order = rng.permuted(np.tile(np.arange(25), (n, 1)), axis=1)
    both = both[np.arange(n)[:, None], order]
    # a user's factors point towards its items, so that the model finds some
    U = (0.5 * V[both].sum(axis=1) + rng.normal(size=(n, d))).astype(np.float32)
    train, test = as_csr(both[:, :20], m), as_csr(both[:, 20:], m)
    cpus = _available_cpus()
    print(
        f"{n} users x {m} items, {d} float32 factors, 20 training / 5 held-out "
        f"items per user, k={k}; load average {os.getloadavg()[0]:.1f} on "
        f"{cpus} CPUs"
    )
    metrics = ["ndcg", "map", "precision", "recall"]

    def ours(extra=()):
        return rm.factor_ranking_report(
            test,
            U,
            V,
            exclude=train,
            k=k,
            metrics=metrics + list(extra),
            ap_denominator="min_k",
            output_dict=True,
        )

    try:
        from implicit.cpu.als import AlternatingLeastSquares
        from implicit.evaluation import ranking_metrics_at_k
    except ImportError:
        AlternatingLeastSquares = None
        print("implicit is not installed: timing ours only")

    rows = []
    for _ in range(args.repeat):
        wall, cpu, got = timed(ours)
        rows.append(("ours", wall, cpu))
        if args.coverage:
            wall, cpu, with_cov = timed(lambda: ours(["catalog_coverage"]))
            rows.append(("+coverage", wall, cpu))
            assert all(with_cov[name] == got[name] for name in got)
        if AlternatingLeastSquares is not None:
            model = AlternatingLeastSquares(factors=d, num_threads=cpus)
            model.user_factors, model.item_factors = U, V

            def theirs(model=model):
                return ranking_metrics_at_k(
                    model, train, test, K=k, show_progress=False, num_threads=cpus
                )

            wall, cpu, ref = timed(theirs)
            rows.append(("implicit", wall, cpu))
    for name, wall, cpu in rows:
        print(f"  {name:9s} wall {wall:7.2f} s  CPU {cpu:7.2f} s")
    t_ours = min(w for name, w, _ in rows if name == "ours")
    print(f"report: {got}")
    if args.coverage:
        t_cov = min(w for name, w, _ in rows if name == "+coverage")
        print(
            f"catalog_coverage@{k} {with_cov[f'catalog_coverage@{k}']:.4f}; wall "
            f"ratio with coverage / without: {t_cov / t_ours:.2f}"
        )
    if AlternatingLeastSquares is not None:
        t_theirs = min(w for name, w, _ in rows if name == "implicit")
        print(f"implicit: {ref}")
        pairs = {
            "ndcg": got[f"ndcg@{k}"],
            "map": got[f"map@{k}"],
            "precision": got[f"recall@{k}"],  # hits / (5 n): min(K, 5) = 5
        }
        for name, value in pairs.items():
            diff = abs(value - ref[name])
            print(
                f"  {name:9s} ours {value:.9f} implicit {ref[name]:.9f} diff {diff:.1e}"
            )
            assert diff < 1e-6, (name, value, ref[name])
        print(f"wall ratio ours / implicit: {t_ours / t_theirs:.2f}")

    peak = peak_bytes(ours)
    inputs = U.nbytes + V.nbytes
    for X in (train, test):
        inputs += X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    threads = effective_n_threads(n)
    tile = _tile_rows(4 * m)
    chunk = max(tile, _chunk_rows(24 * m * threads, n, None) // tile * tile)
    block = chunk * m * 4  # one block of float32 scores
    print(
        f"peak memory traced {peak / 2**20:.0f} MiB; inputs {inputs / 2**20:.0f} "
        f"MiB; a block of scores ({chunk} users, {threads} thread(s), "
        f"computed {tile} at a time) "
        f"{block / 2**20:.0f} MiB; ratio to 2 blocks + inputs "
        f"{peak / (2 * block + inputs):.2f}"
    )


if __name__ == "__main__":
    main()
