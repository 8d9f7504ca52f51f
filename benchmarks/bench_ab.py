"""Benchmark: two checkouts of the package, interleaved in one process.

Loads ``sklearn_rankmetrics`` from ``--old`` (for example the main
checkout) under another module name next to this checkout's, checks that
both give the same values, and prints for each case the medians of the
interleaved rounds' ratios: old / baseline, new / baseline and new / old
(wall time; the baseline is the numpy call the case rests on).  Machine
load moves all three calls of a round alike, so these ratios compare two
versions more fairly than two runs of bench_regression.py.

Run from the repository root::

    python benchmarks/bench_ab.py --old /path/to/other/checkout [--repeat 5]
"""

import argparse
import importlib.util
import os
import pathlib
import sys
import time
from functools import partial

import numpy as np


def load(name, root):
    package = pathlib.Path(root) / "sklearn_rankmetrics"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="root of the other checkout")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    old = load("rm_old", args.old)
    new = load("rm_new", pathlib.Path(__file__).resolve().parents[1])
    print(f"old: {old.__file__}\nnew: {new.__file__}")
    rng = np.random.default_rng(0)
    n, m = 2000, 5000
    Y = np.where(rng.random((n, m)) < 0.02, rng.integers(1, 4, (n, m)), 0)
    S = rng.random((n, m))
    S3 = np.round(S, 3)
    S2 = np.round(S, 2)
    rows = 1_000_000
    qid = rng.integers(0, rows // 20, rows)
    y = np.where(rng.random(rows) < 0.1, rng.integers(1, 4, rows), 0)
    s2 = np.round(rng.random(rows), 2)

    def rows_sort(x):
        return lambda: np.argsort(x, axis=1)

    cases = [
        ("ndcg k=None", lambda rm: rm.ndcg_at_k(Y, S), rows_sort(S)),
        ("ndcg k=None ties", lambda rm: rm.ndcg_at_k(Y, S3), rows_sort(S3)),
        ("dcg k=None ties", lambda rm: rm.dcg_at_k(Y, S3), rows_sort(S3)),
        (
            "map k=None ties",
            lambda rm: rm.average_precision_at_k(Y, S3),
            rows_sort(S3),
        ),
        ("mrr k=None ties", lambda rm: rm.reciprocal_rank_at_k(Y, S3), rows_sort(S3)),
        ("precision k=None ties", lambda rm: rm.precision_at_k(Y, S3), rows_sort(S3)),
        ("recall k=None ties", lambda rm: rm.recall_at_k(Y, S3), rows_sort(S3)),
        (
            "ndcg@10 (2-D)",
            lambda rm: rm.ndcg_at_k(Y, S, k=10),
            lambda: np.argpartition(S, -10, axis=1),
        ),
        (
            "ndcg@10 ties (2-D)",
            lambda rm: rm.ndcg_at_k(Y, S2, k=10),
            lambda: np.argpartition(S2, -10, axis=1),
        ),
        (
            "ndcg@10 ties (long)",
            lambda rm: rm.ndcg_at_k(y, s2, k=10, query_id=qid),
            lambda: np.argsort(s2),
        ),
    ]
    print(
        f"{'case':24s} {'old/base':>9s} {'new/base':>9s} {'new/old':>9s}   "
        f"(medians of {args.repeat} interleaved rounds; load "
        f"{os.getloadavg()[0]:.1f})"
    )
    for label, func, base in cases:
        a, b = func(old), func(new)
        if not np.array_equal(a, b):
            print(f"{label}: values differ: {a!r} != {b!r}")
        ratios = []
        for _ in range(args.repeat):
            times = []
            for call in (base, partial(func, old), partial(func, new)):
                start = time.perf_counter()
                call()
                times.append(time.perf_counter() - start)
            tb, to, tn = times
            ratios.append((to / tb, tn / tb, tn / to))
        med = [sorted(r[i] for r in ratios)[len(ratios) // 2] for i in range(3)]
        print(f"{label:24s} {med[0]:9.2f} {med[1]:9.2f} {med[2]:9.2f}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
