"""Benchmark: recommendation_table_report against RecTools' calc_metrics.

Issue 30 ("Speed"): a 1,000,000-row recommendations table (100,000 users x
10 items, ranks 1..10), 5 held-out items for 90 % of the users and 10
training interactions per user, over a 20,000-item catalogue with
long-tailed popularity; ids are ints (``--string-ids``: strings).  Times,
at k=10, the same ten metrics on both sides --

    precision, recall, NDCG (RecTools: ``divide_by_achievable=True``),
    MAP, MRR, hit rate, catalogue coverage (``normalize=True``), novelty
    (``MeanInvUserFreq``), average popularity (``AvgRecPopularity``) and
    serendipity

-- ``recommendation_table_report(reco, test, rank_col="rank", k=10,
metrics=..., catalog=..., item_popularity=train, output_dict=True)``
against ``calc_metrics(metrics, reco, test, train, catalog)`` on the same
pandas DataFrames, asserts equal values (to 1e-12) and prints the CPU
times (each process's own ``time.process_time``; the cheapest of
``--repeat`` runs) and their ratio.  Every catalogue item is given one
training interaction (RecTools counts a cold item's novelty as one user's,
this package gives ``inf``).

RecTools pins numpy < 2 and pandas < 3.  If it can be imported here, both
run in this process, interleaved; otherwise ``--rectools-python`` names
the interpreter of an environment that has it (and this package, e.g. on
PYTHONPATH): the tables are written to a temporary ``.npz`` that it reads,
and it runs the RecTools side and prints its times and values as JSON.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_rectable.py \\
        [--rectools-python /path/to/venv/bin/python] [--users 100000] \\
        [--items 20000] [--list 10] [--repeat 3] [--string-ids]

The machine may be shared: the ratio is only meaningful within one run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

NAMES = [
    "precision",
    "recall",
    "ndcg",
    "map",
    "mrr",
    "hit_rate",
    "catalog_coverage",
    "novelty",
    "average_popularity",
    "serendipity",
]


def distinct_items(rng, n_users, per_user, popularity):
    """``per_user`` distinct items per user, drawn by popularity: arrays
    (user, item, position 1..per_user)."""
    n_items = popularity.shape[0]
    users = np.repeat(np.arange(n_users), per_user)
    items = rng.choice(n_items, size=users.size, p=popularity)
    while True:
        order = np.lexsort((items, users))
        u, i = users[order], items[order]
        dup = np.zeros(u.size, dtype=bool)
        dup[1:] = (u[1:] == u[:-1]) & (i[1:] == i[:-1])
        if not dup.any():
            break
        items[order[dup]] = rng.choice(n_items, size=int(dup.sum()), p=popularity)
    position = np.tile(np.arange(1, per_user + 1), n_users)
    return users, items, position


def make_tables(n_users, n_items, per_list, seed=0):
    """Columns of the recommendations, held-out and training tables, and
    the catalogue (int arrays)."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.8
    popularity /= popularity.sum()
    ru, ri, rr = distinct_items(rng, n_users, per_list, popularity)
    tu, ti, _ = distinct_items(rng, n_users, 5, popularity)
    keep = np.isin(tu, np.flatnonzero(rng.random(n_users) < 0.9))
    pu, pi, _ = distinct_items(rng, n_users, 10, popularity)
    # one training interaction per catalogue item (by extra users)
    pu = np.concatenate([pu, n_users + np.arange(n_items)])
    pi = np.concatenate([pi, np.arange(n_items)])
    return {
        "reco_user": ru,
        "reco_item": ri,
        "reco_rank": rr,
        "test_user": tu[keep],
        "test_item": ti[keep],
        "train_user": pu,
        "train_item": pi,
        "catalog": np.arange(n_items),
    }


def frames(arrays, string_ids):
    import pandas as pd

    def ids(a, prefix):
        return np.char.add(prefix, a.astype(str)).astype(object) if string_ids else a

    def table(kind, rank=False):
        out = {
            "user_id": ids(arrays[f"{kind}_user"], "u"),
            "item_id": ids(arrays[f"{kind}_item"], "i"),
        }
        if rank:
            out["rank"] = arrays["reco_rank"]
        return pd.DataFrame(out)

    catalog = ids(arrays["catalog"], "i")
    return table("reco", True), table("test"), table("train"), catalog


def run_ours(reco, test, train, catalog, k, names):
    from sklearn_rankmetrics import recommendation_table_report

    popularity = {"novelty", "average_popularity", "serendipity"} & set(names)
    out = recommendation_table_report(
        reco,
        test,
        rank_col="rank",
        k=k,
        metrics=names,
        catalog=catalog,
        item_popularity=train if popularity else None,
        output_dict=True,
    )
    return {name: out[f"{name}@{k}"] for name in names}


def run_rectools(reco, test, train, catalog, k, names):
    from rectools import metrics as rt

    metrics = {
        "precision": rt.Precision(k),
        "recall": rt.Recall(k),
        "ndcg": rt.NDCG(k, divide_by_achievable=True),
        "map": rt.MAP(k),
        "mrr": rt.MRR(k),
        "hit_rate": rt.HitRate(k),
        "catalog_coverage": rt.CatalogCoverage(k, normalize=True),
        "novelty": rt.MeanInvUserFreq(k),
        "average_popularity": rt.AvgRecPopularity(k),
        "serendipity": rt.Serendipity(k),
    }
    metrics = {name: metrics[name] for name in names}
    return rt.calc_metrics(metrics, reco, test, train, catalog)


def cpu_time(func):
    start = time.process_time()
    values = func()
    return time.process_time() - start, values


def rectools_side(path, string_ids, repeat, k, names):
    """The subprocess: RecTools on the tables of ``path``; JSON on stdout."""
    arrays = dict(np.load(path))
    reco, test, train, catalog = frames(arrays, string_ids)
    times = []
    for _ in range(repeat):
        t, values = cpu_time(lambda: run_rectools(reco, test, train, catalog, k, names))
        times.append(t)
    import rectools

    print(
        json.dumps({"times": times, "values": values, "version": rectools.__version__})
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--list", type=int, default=10)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--string-ids", action="store_true")
    parser.add_argument(
        "--metrics",
        default=",".join(NAMES),
        help="comma-separated subset of the ten metrics (default: all)",
    )
    parser.add_argument("--rectools-python", default=None)
    parser.add_argument("--rectools-side", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [n for n in args.metrics.split(",") if n]
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        sys.exit(f"unknown metrics {unknown}; choose among {NAMES}")
    if args.rectools_side:
        rectools_side(args.rectools_side, args.string_ids, args.repeat, args.k, names)
        return
    arrays = make_tables(args.users, args.items, args.list)
    reco, test, train, catalog = frames(arrays, args.string_ids)
    print(
        f"{len(reco):,} recommendations ({args.users:,} users x {args.list}), "
        f"{len(test):,} held-out and {len(train):,} training rows, "
        f"{args.items:,} items, {'string' if args.string_ids else 'int'} ids, "
        f"k={args.k}, {len(names)} metrics; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs"
    )
    ours, theirs = [], []
    try:
        import rectools  # noqa: F401

        in_process = True
    except ImportError:
        in_process = False
    if in_process:
        for _ in range(args.repeat):  # interleaved
            t, mine = cpu_time(
                lambda: run_ours(reco, test, train, catalog, args.k, names)
            )
            ours.append(t)
            t, values = cpu_time(
                lambda: run_rectools(reco, test, train, catalog, args.k, names)
            )
            theirs.append(t)
        version = rectools.__version__
    else:
        if args.rectools_python is None:
            sys.exit(
                "RecTools is not importable here: pass --rectools-python "
                "(the interpreter of an environment that has it)."
            )
        for _ in range(args.repeat):
            t, mine = cpu_time(
                lambda: run_ours(reco, test, train, catalog, args.k, names)
            )
            ours.append(t)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tables.npz")
            np.savez(path, **arrays)
            command = [
                args.rectools_python,
                os.path.abspath(__file__),
                "--rectools-side",
                path,
                "--repeat",
                str(args.repeat),
                "--k",
                str(args.k),
                "--metrics",
                ",".join(names),
            ] + (["--string-ids"] if args.string_ids else [])
            done = subprocess.run(command, capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        theirs, values, version = result["times"], result["values"], result["version"]
    for name in names:
        a, b = mine[name], values[name]
        assert np.isclose(a, b, rtol=1e-12, atol=1e-15), (name, a, b)
    print(f"values equal to RecTools {version}'s (rtol 1e-12): {mine}")
    best_ours, best_theirs = min(ours), min(theirs)
    print(
        f"CPU time, cheapest of {args.repeat}: recommendation_table_report "
        f"{best_ours:.2f} s, RecTools calc_metrics {best_theirs:.2f} s "
        f"({'same process' if in_process else 'its own process'}); "
        f"ours / RecTools = {best_ours / best_theirs:.2f}"
    )


if __name__ == "__main__":
    main()
