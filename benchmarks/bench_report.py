"""Benchmark: ranking_report and compare_rankings (a benchmark, not a test).

``report``: on a dense n_queries x n_items matrix, the time of one
``ndcg_at_k(k=10)`` call, of ``ranking_report`` (every metric but fbeta at
k = 1, 5, 10, 20: the 2-D default) and of the same report with GAUC, with
their ratios to the ndcg call (target: report <= 1.5x).

The same in the long form (``--long-rows`` rows, ``--queries`` queries),
where the default report includes GAUC.

``compare``: ``compare_rankings`` of 5 models x 8 metrics at k=10 over
n_queries queries with 10,000 random sign vectors (target: < 5 s), split
into its parts: the per-query values, the bootstrap intervals
(scipy.stats.bootstrap) and the randomization test; and, for scale, one
scipy.stats.permutation_test call on one metric's differences of a
fiftieth of the queries.

Run from the repository root::

    python benchmarks/bench_report.py [report|compare|all] [--queries N] ...
"""

import argparse
import pathlib
import sys
import time

import numpy as np
from _timing import best_time, paired_times  # benchmarks/ is on sys.path

# this checkout, not an installed copy
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import sklearn_rankmetrics as rm  # noqa: E402
from sklearn_rankmetrics._evaluation import _compare  # noqa: E402
from sklearn_rankmetrics._evaluation._per_query import (
    _per_query_report,
    default_metrics,
)


def bench_report(n, m, repeat):
    rng = np.random.default_rng(0)
    Y = (rng.random((n, m)) < 0.01).astype(np.int8)
    S = rng.random((n, m))
    # interleaved: a change of machine load favours neither side
    t_ndcg, t_report, median = paired_times(
        lambda: rm.ndcg_at_k(Y, S, k=10),
        lambda: rm.ranking_report(Y, S, output_dict=True),
        repeat,
    )
    n_metrics = len(default_metrics(long_form=False))
    with_gauc = [*default_metrics(long_form=False), "gauc"]
    t_gauc = best_time(
        lambda: rm.ranking_report(Y, S, metrics=with_gauc, output_dict=True),
        max(1, repeat // 2),
    )
    t_auc = best_time(lambda: rm.group_auc_score(Y, S), max(1, repeat // 2))
    print(f"report: {n} x {m} dense, binary relevance (1 %), k = 1, 5, 10, 20")
    print(f"  ndcg_at_k(k=10)                   {t_ndcg:8.3f} s   1.00x")
    print(
        f"  ranking_report ({n_metrics} metrics x 4 k)  {t_report:8.3f} s "
        f"{t_report / t_ndcg:6.2f}x   (target <= 1.5x; median of the {repeat} "
        f"interleaved rounds' ratios {median:.2f})"
    )
    print(
        f"  ... with gauc                     {t_gauc:8.3f} s "
        f"{t_gauc / t_ndcg:6.2f}x   (group_auc_score alone "
        f"{t_auc / t_ndcg:.2f}x: a full sort of every row)"
    )


def bench_report_long(n_rows, n_queries, repeat):
    rng = np.random.default_rng(0)
    qid = rng.integers(0, n_queries, n_rows)
    y = (rng.random(n_rows) < 0.05).astype(np.int8)
    s = rng.random(n_rows)
    t_ndcg = best_time(lambda: rm.ndcg_at_k(y, s, k=10, query_id=qid), repeat)
    t_report = best_time(
        lambda: rm.ranking_report(y, s, query_id=qid, output_dict=True), repeat
    )
    without = default_metrics(long_form=False)
    t_without = best_time(
        lambda: rm.ranking_report(
            y, s, query_id=qid, metrics=without, output_dict=True
        ),
        repeat,
    )
    print(f"report, long form: {n_rows} rows, {n_queries} queries")
    print(f"  ndcg_at_k(k=10)                   {t_ndcg:8.3f} s   1.00x")
    print(
        f"  ranking_report (default: + gauc)  {t_report:8.3f} s "
        f"{t_report / t_ndcg:6.2f}x"
    )
    print(
        f"  ... without gauc                  {t_without:8.3f} s "
        f"{t_without / t_ndcg:6.2f}x"
    )


def bench_compare(n, m, n_models, n_resamples, repeat):
    rng = np.random.default_rng(0)
    Y = rng.random((n, m)) < 0.05
    scores = {f"m{i}": 0.1 * i * Y + rng.random((n, m)) for i in range(n_models)}
    metrics = default_metrics(long_form=False)

    def run():
        return rm.compare_rankings(
            Y,
            scores,
            k=10,
            metrics=metrics,
            baseline="m0",
            n_resamples=n_resamples,
            random_state=0,
        )

    t_total = best_time(run, repeat)
    start = time.perf_counter()
    values = [
        _per_query_report(
            Y, s, k=10, metrics=metrics, query_id=None, sample_weight=None
        ).values
        for s in scores.values()
    ]
    t_values = time.perf_counter() - start
    V = np.column_stack([np.column_stack(list(v.values())) for v in values])
    V = V[~np.isnan(V).any(axis=1)]
    start = time.perf_counter()
    _compare._bootstrap_means(V, 0.95, 1999, seed=0)
    t_boot = time.perf_counter() - start
    D = V[:, len(metrics) :] - np.tile(V[:, : len(metrics)], n_models - 1)
    start = time.perf_counter()
    _compare._sign_flip_pvalues(D, np.full(D.shape[1], D.shape[0]), n_resamples, 0)
    t_perm = time.perf_counter() - start
    small = D[: max(n // 50, 100), 0]  # not exact: 2**n > n_resamples
    start = time.perf_counter()
    import scipy.stats

    scipy.stats.permutation_test(
        (small,),
        lambda x, axis: np.mean(x, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=n_resamples,
    )
    t_scipy = time.perf_counter() - start
    per_elem = t_scipy / (small.size * n_resamples)
    print(
        f"compare: {n_models} models x {len(metrics)} metrics @10, {n} queries x "
        f"{m} items, {n_resamples} sign vectors, 1999 bootstrap resamples"
    )
    print(f"  compare_rankings total            {t_total:8.3f} s   (target < 5 s)")
    print(f"    per-query values ({n_models} rankings)  {t_values:8.3f} s")
    print(f"    bootstrap intervals (1 call)    {t_boot:8.3f} s")
    print(
        f"    randomization test ({D.shape[1]} tests)  {t_perm:8.3f} s "
        f"({t_perm / D.shape[1]:.3f} s per test)"
    )
    print(
        f"  scipy permutation_test, {small.size} queries, 1 test: {t_scipy:.3f} s "
        f"= {1e6 * per_elem:.2f} us per query-resample; at {n} queries x "
        f"{D.shape[1]} tests ~{per_elem * n * n_resamples * D.shape[1]:.0f} s "
        f"({per_elem * n * n_resamples:.1f} s per test)"
    )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    parser.add_argument(
        "target", nargs="?", default="all", choices=["report", "compare", "all"]
    )
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument(
        "--items", type=int, default=2000, help="items per query of the report target"
    )
    parser.add_argument(
        "--long-rows",
        type=int,
        default=1_000_000,
        help="rows of the long-form report target",
    )
    parser.add_argument("--compare-items", type=int, default=100)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.target in ("report", "all"):
        bench_report(args.queries, args.items, args.repeat)
        bench_report_long(args.long_rows, args.queries, args.repeat)
    if args.target in ("compare", "all"):
        bench_compare(
            args.queries,
            args.compare_items,
            args.models,
            args.resamples,
            max(1, args.repeat - 1),
        )


if __name__ == "__main__":
    main()
