"""Benchmark: cost per row of the long form as it grows (not a test).

Target 4 of issue 9: the cost per row of ``ndcg_at_k(k=10)`` and
``group_auc_score`` on the long form stays flat from 200,000 to 20,000,000
rows -- growing no faster than the cost per row of ``np.argsort`` of the
scores, timed on the same arrays in the same run.  Each size has 20 rows
per query on average (1-40, shuffled) and query ids spread over the int64
range.  The table gives nanoseconds per row, each call's ratio to
``np.argsort``, and the peak memory allocated beyond the inputs
(tracemalloc) over the three input arrays.  The last lines give each
call's growth: its cost per row at the largest size over that at the
smallest (issue 19 goal 4: GAUC within 1.3x from 200,000 to 20,000,000
rows), next to the growth of ``np.argsort``'s, and of ``ids``: the
validation's numbering of the query ids (a hash of 64-bit ids, the step
every long-form metric but GAUC pays before it ranks anything,
``check_inputs``).  Three GAUC paths give the same values bit for bit:
``gauc`` is ``group_auc_score`` with integer ids and no weights, which
splits the rows by a hash of the id into cache-sized buckets and never
numbers the ids over all the rows (``_auc._gauc_hashed``); ``numbered``
is the way string ids and the report take it: the ids numbered first,
then the same buckets over the codes (``gauc_per_query``); ``runs`` is
the path of row weights and propensities: the ids numbered, then the
AUC run by run of queries in id order (``_auc._gauc_long``, with unit
weights).

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_scaling.py [--sizes 200000 2000000
        20000000] [--repeat 3]
"""

import argparse
import os
from functools import partial

import numpy as np
from _timing import best_time, peak_bytes  # benchmarks/ is on sys.path

import sklearn_rankmetrics as rm
from sklearn_rankmetrics._metrics._auc import _gauc_long, gauc_per_query
from sklearn_rankmetrics._utils._validation import check_inputs


def long_form(n_rows, rng):
    """``n_rows`` shuffled rows, 1-40 per query, int64 ids spread widely."""
    sizes = rng.integers(1, 41, n_rows // 20 + 1)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n_rows) + 1]
    codes = np.repeat(np.arange(sizes.shape[0]), sizes)[:n_rows]
    ids = rng.choice(2**62, sizes.shape[0], replace=False)
    query_id = ids[codes][rng.permutation(n_rows)]
    y_true = np.where(rng.random(n_rows) < 0.1, rng.integers(1, 4, n_rows), 0)
    return y_true, rng.random(n_rows), query_id


def numbered_gauc(y, s, qid):
    """GAUC with the ids numbered first (string ids, the report)."""
    _, y, s, codes, ids, _ = check_inputs(y, s, qid, None, row_weights=True)
    return gauc_per_query("long", y, s, codes, ids.shape[0], None, None, "impressions")


def runs_gauc(y, s, qid):
    """GAUC run by run of queries in id order (row weights, propensities)."""
    _, y, s, codes, ids, _ = check_inputs(y, s, qid, None, row_weights=True)
    w = np.ones(y.shape[0])
    return _gauc_long(y, s, codes, ids.shape[0], w, None, "impressions", "keep")


def peak_ratio(func, inputs):
    return peak_bytes(func) / inputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[200_000, 2_000_000, 20_000_000]
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-memory", action="store_true", help="skip the (slow) tracemalloc runs"
    )
    parser.add_argument(
        "--gauc-only", action="store_true", help="skip ndcg@10 (faster)"
    )
    args = parser.parse_args()
    print(
        f"long form, k=10, best of {args.repeat}; load average "
        f"{os.getloadavg()[0]:.1f}\n"
        f"{'rows':>11s} {'argsort':>9s} {'ids':>9s} {'ndcg@10':>9s} {'/argsort':>8s} "
        f"{'memory':>7s} {'gauc':>9s} {'/argsort':>8s} {'memory':>7s} "
        f"{'numbered':>9s} {'/argsort':>8s} {'memory':>7s} "
        f"{'runs':>9s} {'/argsort':>8s} {'memory':>7s}   (ns/row)"
    )
    per_row = {
        "argsort": [],
        "ids": [],
        "ndcg@10": [],
        "gauc": [],
        "numbered": [],
        "runs": [],
    }
    for n in args.sizes:
        rng = np.random.default_rng(0)
        y, s, qid = long_form(n, rng)
        inputs = y.nbytes + s.nbytes + qid.nbytes
        r = args.repeat
        t_sort = best_time(lambda s=s: np.argsort(s), r) / n * 1e9
        ids = partial(check_inputs, y, s, qid, None, defer=True)
        t_ids = best_time(ids, r) * 1e9 / n
        row = f"{n:11,d} {t_sort:9.1f} {t_ids:9.1f}"
        per_row["argsort"].append(t_sort)
        per_row["ids"].append(t_ids)
        for name, func in (
            ("ndcg@10", partial(rm.ndcg_at_k, y, s, k=10, query_id=qid)),
            ("gauc", partial(rm.group_auc_score, y, s, query_id=qid)),
            ("numbered", partial(numbered_gauc, y, s, qid)),
            ("runs", partial(runs_gauc, y, s, qid)),
        ):
            if name == "ndcg@10" and args.gauc_only:
                per_row[name].append(float("nan"))
                row += f" {'':9s} {'':8s} {'':7s}"
                continue
            t = best_time(func, r) / n * 1e9
            per_row[name].append(t)
            mem = float("nan") if args.no_memory else peak_ratio(func, inputs)
            row += f" {t:9.1f} {t / t_sort:8.2f} {mem:6.2f}x"
        print(row, flush=True)
    if len(args.sizes) > 1:
        print(f"cost per row at {args.sizes[-1]:,d} rows over {args.sizes[0]:,d}:")
        for name, times in per_row.items():
            print(f"  {name:10s} {times[-1] / times[0]:5.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
