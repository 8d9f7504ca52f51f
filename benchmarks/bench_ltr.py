"""Benchmark: QueryRanker's own work (a benchmark, not a test).

QueryRanker's own work is everything its ``fit`` does besides the wrapped
estimator's ``fit``: validate and factorise the query ids, group the rows
(a stable radix grouping), take the rows of ``X``, ``y`` in grouped order
and build the group sizes / qid.  It is timed by wrapping a stand-in
estimator whose ``fit`` has ``LGBMRanker.fit``'s signature and does
nothing.

Part (a), the example data: LightGBM's lambdarank example (3,005 rows,
300 sparse features, 201 queries; ``../shared/peer-data`` beside the
repository, or ``--data DIR``), rows shuffled.  QueryRanker's own work
against one ``LGBMRanker(n_estimators=100)`` fit on the same rows already
grouped (target: <= 5 %).  Without lightgbm or the data, part (a) says so.

Part (b), 2,000,000 rows over 100,000 queries (1-40 rows each, shuffled,
small int ids as in ``bench_forms.py``): the grouping of the ids alone
(factorise, order, sizes) and the whole of QueryRanker's own work with a
``(n_rows, --features)`` float64 ``X``, against ``np.lexsort`` of the ids
measured in the same run (target for the grouping: <= 1x).  The
whole own work also copies ``X`` and ``y`` in grouped order, which any
way of feeding a ranker must do: it is compared with ``np.lexsort`` plus
that copy and the group sizes, written by hand.

Timings are the best of ``--repeat`` runs.  Run from the repository root::

    python benchmarks/bench_ltr.py [--part example|large|both] [--rows 2000000]
        [--queries 100000] [--features 10] [--repeat 3] [--data DIR]
"""

import argparse
import inspect
from pathlib import Path

import numpy as np
from _timing import best_time  # benchmarks/ is on sys.path
from bench_forms import long_form_data

from sklearn_rankmetrics import QueryRanker
from sklearn_rankmetrics._scoring._ltr import _group_rows

ROOT = Path(__file__).resolve().parents[1]


class NoFit:
    """A stand-in with ``LGBMRanker.fit``'s parameters; fits nothing."""

    def fit(self, X, y, sample_weight=None, group=None, eval_set=None):
        self.n_rows_ = len(y)
        return self

    def predict(self, X):
        return np.zeros(X.shape[0])

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def find_data(path):
    candidates = [path] if path else []
    candidates += [
        parent / "shared" / "peer-data" / "lightgbm_lambdarank"
        for parent in (ROOT.parent, ROOT.parent.parent)
    ]
    return next((p for p in candidates if p and (p / "rank.train").is_file()), None)


def bench_example(args):
    try:
        import lightgbm
    except ImportError:
        print("(a) skipped: lightgbm is not installed (pip install lightgbm)")
        return
    data = find_data(args.data)
    if data is None:
        print("(a) skipped: LightGBM's lambdarank example not found; pass --data DIR")
        return
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(data / "rank.train"))
    sizes = np.loadtxt(data / "rank.train.query", dtype=int)
    qid = np.repeat(np.arange(sizes.size), sizes)
    perm = np.random.default_rng(0).permutation(y.size)
    Xs, ys, qs = X[perm], y[perm], qid[perm]
    r = args.repeat
    print(
        f"(a) LightGBM's lambdarank example: {X.shape[0]:,} rows x "
        f"{X.shape[1]} sparse features, {sizes.size} queries, rows shuffled; "
        f"best of {r}"
    )
    own = best_time(lambda: QueryRanker(NoFit()).fit(Xs, ys, query_id=qs), max(r, 20))
    # one thread: the machine running the benchmark may be shared
    ranker = lightgbm.LGBMRanker(n_estimators=100, n_jobs=1, verbose=-1)
    t_fit = best_time(lambda: ranker.fit(X, y, group=sizes), r)
    t_wrapped = best_time(lambda: QueryRanker(ranker).fit(Xs, ys, query_id=qs), r)
    print(f"  QueryRanker's own work (grouping, rows, sizes) {own * 1e3:8.2f} ms")
    print(f"  LGBMRanker(n_estimators=100, n_jobs=1).fit     {t_fit * 1e3:8.1f} ms")
    print(
        f"  own work / LightGBM fit = {own / t_fit:6.2%}  (target <= 5 %); "
        f"QueryRanker(LGBMRanker).fit on shuffled rows {t_wrapped * 1e3:.1f} ms"
    )


def bench_large(args):
    rng = np.random.default_rng(0)
    y, _, qid = long_form_data(args.rows, args.queries, rng)
    n = y.shape[0]
    X = rng.random((n, args.features))
    r = args.repeat
    print(
        f"\n(b) {n:,} rows, {np.unique(qid).shape[0]:,} queries (1-40 rows "
        f"each, shuffled), X of {args.features} float64 columns; best of {r}"
    )
    t_lex = best_time(lambda: np.lexsort((qid,)), r)
    print(f"  np.lexsort((query_id,)) alone              {t_lex * 1e3:8.1f} ms")
    t_group = best_time(lambda: _group_rows(qid, n, "query_id", "bench"), r)
    print(
        f"  grouping of the ids (factorise, order, sizes) {t_group * 1e3:8.1f} ms"
        f"   / lexsort = {t_group / t_lex:5.2f}  (target <= 1)"
    )
    t_own = best_time(lambda: QueryRanker(NoFit()).fit(X, y, query_id=qid), r)

    def by_hand():  # what a user would write: sort the ids, take the rows
        order = np.lexsort((qid,))
        return X[order], y[order], np.unique(qid[order], return_counts=True)

    t_hand = best_time(by_hand, r)
    print(
        f"  QueryRanker's whole own work, X included     {t_own * 1e3:8.1f} ms"
        f"   / lexsort = {t_own / t_lex:5.2f}, / lexsort + rows of X, y + "
        f"sizes ({t_hand * 1e3:.0f} ms) = {t_own / t_hand:5.2f}"
    )
    big_ids = rng.choice(2**62, size=args.queries, replace=False)[
        np.searchsorted(np.unique(qid), qid)
    ]
    t_lex_big = best_time(lambda: np.lexsort((big_ids,)), r)
    t_big = best_time(lambda: _group_rows(big_ids, n, "query_id", "bench"), r)
    print(
        f"  huge int64 ids: grouping {t_big * 1e3:.1f} ms / lexsort "
        f"{t_lex_big * 1e3:.1f} ms = {t_big / t_lex_big:5.2f}  (np.unique sorts them)"
    )


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=inspect.cleandoc(__doc__.split("\n", 1)[1]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--part", choices=["example", "large", "both"], default="both")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    if args.part in ("example", "both"):
        bench_example(args)
    if args.part in ("large", "both"):
        bench_large(args)


if __name__ == "__main__":
    main()
