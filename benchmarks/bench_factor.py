"""Benchmark: factor_ranking_report against implicit (a benchmark, not a test).

Issue 20, item 4 and issue 31, goal 1: 100k users x 50k items, 64 float32
factors, 20 training items (excluded) and 5 held-out items per user, k=10.
Times ``factor_ranking_report`` with these metric sets (``--metrics``):

- ``accuracy``: NDCG, MAP, precision, recall;
- ``beyond``: the same plus catalog coverage, Gini and novelty (each
  item's training count plus one as ``item_popularity``) -- goal: at most 0.8x
  implicit's ``ranking_metrics_at_k`` (accuracy only);
- ``ndcg`` and ``gauc``: NDCG alone, and NDCG with GAUC over each user's
  candidates (every item not excluded) -- goal: at most 2x NDCG alone;

against implicit's ``ranking_metrics_at_k(model, train, test, K=10)`` on
the same factors (an ``AlternatingLeastSquares`` whose factors are set, not
fitted), both on the CPUs of this process, and asserts equal values:

- implicit's NDCG is ours on binary relevance;
- its MAP is ours with ``ap_denominator="min_k"``;
- its precision is total hits / sum of min(K, held-out items): with 5
  held-out items per user and K=10 that is our recall@10.

Both score in float32 (ours keeps the factors' dtype), but not with the same
products, so two items within an ulp may swap: the values are asserted
equal to 1e-6.  The calls are interleaved, ``--repeat`` rounds, and the
cheapest wall (and CPU) time of each is kept; the ratios are of those, all
measured in this run.  The load average is printed before and after: the
machine may be shared.

Peak memory: each call runs once more in a fresh process (this script with
``--child``), which builds the data, starts the peak RSS again from there
(``/proc/self/clear_refs``), imports the library and makes the call, then
prints the peak RSS (``VmHWM``: the data, the imports and the call), the RSS
before the call and whether scikit-learn was imported; the peak of ours is
compared with implicit's (``--no-rss`` skips it).

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_factor.py [--users 100000]
        [--items 50000] [--factors 64] [--repeat 3]
        [--metrics accuracy beyond ndcg gauc] [--no-rss]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

ACCURACY = ["ndcg", "map", "precision", "recall"]
METRIC_SETS = {
    "accuracy": ACCURACY,
    "beyond": ACCURACY + ["catalog_coverage", "gini_index", "novelty"],
    "ndcg": ["ndcg"],
    "gauc": ["ndcg", "gauc"],
}


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


def make_data(n, m, d):
    """Factors and the training / held-out interactions (seeded)."""
    rng = np.random.default_rng(0)
    V = rng.normal(size=(m, d)).astype(np.float32)
    both = interactions(rng, n, m, 25)
    order = rng.permuted(np.tile(np.arange(25), (n, 1)), axis=1)
    both = both[np.arange(n)[:, None], order]
    # a user's factors point towards its items, so that the model finds some
    U = (0.5 * V[both].sum(axis=1) + rng.normal(size=(n, d))).astype(np.float32)
    return U, V, as_csr(both[:, :20], m), as_csr(both[:, 20:], m)


def ours(data, k, which):
    from sklearn_rankmetrics import factor_ranking_report

    U, V, train, test = data
    extra = {}
    if which == "beyond":  # the training count of each item, plus one
        extra["item_popularity"] = np.bincount(train.indices, minlength=V.shape[0]) + 1
    return factor_ranking_report(
        test,
        U,
        V,
        exclude=train,
        k=k,
        metrics=METRIC_SETS[which],
        ap_denominator="min_k",
        output_dict=True,
        **extra,
    )


def implicit_call(data, k, cpus):
    from implicit.cpu.als import AlternatingLeastSquares
    from implicit.evaluation import ranking_metrics_at_k

    U, V, train, test = data
    model = AlternatingLeastSquares(factors=U.shape[1], num_threads=cpus)
    model.user_factors, model.item_factors = U, V
    return ranking_metrics_at_k(
        model, train, test, K=k, show_progress=False, num_threads=cpus
    )


def cpus_of_process():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def memory_mib():
    """``(current, peak)`` RSS of this process, MiB (Linux's VmRSS and
    VmHWM; ``ru_maxrss`` for the peak elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f)
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return float("nan"), peak
    return (int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))


def reset_peak():
    """Start the peak RSS again from the current RSS (Linux >= 4.0), so that
    the data's construction does not count; False if it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def child(args):
    """One call in this fresh process, after the data are built: print its
    memory as JSON (the libraries are imported by the call)."""
    data = make_data(args.users, args.items, args.factors)
    reset = reset_peak()
    before, _ = memory_mib()
    if args.child == "implicit":
        implicit_call(data, args.k, cpus_of_process())
    else:
        ours(data, args.k, args.child)
    _, peak = memory_mib()
    out = {
        "before": before,
        "peak": peak,
        "reset": reset,
        "sklearn": "sklearn" in sys.modules,
    }
    print(json.dumps(out))


def timed(func):
    """Wall and CPU seconds of one call, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = func()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def load():
    return f"{os.getloadavg()[0]:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--factors", type=int, default=64)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--metrics",
        nargs="+",
        choices=list(METRIC_SETS),
        default=list(METRIC_SETS),
        help="the metric sets of ours to time (default: all)",
    )
    parser.add_argument("--no-rss", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    n, m, d, k = args.users, args.items, args.factors, args.k
    data = make_data(n, m, d)
    cpus = cpus_of_process()
    print(
        f"{n} users x {m} items, {d} float32 factors, 20 training / 5 held-out "
        f"items per user, k={k}; {cpus} CPUs; load average {load()}"
    )
    try:
        import implicit  # noqa: F401
    except ImportError:
        have_implicit = False
        print("implicit is not installed: timing ours only")
    else:
        have_implicit = True

    calls = {name: (lambda w=name: ours(data, k, w)) for name in args.metrics}
    if have_implicit:
        calls["implicit"] = lambda: implicit_call(data, k, cpus)
    times = {name: [] for name in calls}
    results = {}
    for _ in range(args.repeat):  # interleaved rounds
        for name, func in calls.items():
            wall, cpu, results[name] = timed(func)
            times[name].append((wall, cpu))
    best = {name: min(t) for name, t in times.items()}
    cpu_best = {name: min(c for _, c in t) for name, t in times.items()}
    print(f"cheapest of {args.repeat} interleaved rounds (load average {load()}):")
    for name in calls:
        label = name if name == "implicit" else f"ours {name}"
        print(
            f"  {label:14s} wall {best[name][0]:7.2f} s  CPU {cpu_best[name]:7.2f} s"
            f"  ({', '.join(METRIC_SETS.get(name, ['ranking_metrics_at_k']))})"
        )

    def ratio(a, b, goal=None):
        if a in best and b in best:
            wall = best[a][0] / best[b][0]
            cpu = cpu_best[a] / cpu_best[b]
            target = "" if goal is None else f"  (goal <= {goal})"
            print(f"  {a} / {b}: wall {wall:.2f}  CPU {cpu:.2f}{target}")

    print("ratios:")
    ratio("accuracy", "implicit")
    ratio("beyond", "implicit", 0.8)
    ratio("beyond", "accuracy")
    ratio("gauc", "ndcg", 2.0)

    for name in args.metrics:
        print(f"ours {name}: {results[name]}")
    if have_implicit:
        ref = results["implicit"]
        print(f"implicit: {ref}")
        got = next((results[w] for w in ("accuracy", "beyond") if w in results), None)
        if got is not None:
            pairs = {
                "ndcg": got[f"ndcg@{k}"],
                "map": got[f"map@{k}"],
                "precision": got[f"recall@{k}"],  # hits / (5 n): min(K, 5) = 5
            }
            for name, value in pairs.items():
                diff = abs(value - ref[name])
                print(
                    f"  {name:9s} ours {value:.9f} implicit {ref[name]:.9f} "
                    f"diff {diff:.1e}"
                )
                assert diff < 1e-6, (name, value, ref[name])

    if args.no_rss:
        return
    print("peak RSS of a fresh process, MiB (before the call: the data built):")
    base = [sys.executable, __file__, "--users", str(n), "--items", str(m)]
    base += ["--factors", str(d), "--k", str(k), "--child"]
    peaks = {}
    for name in list(args.metrics) + (["implicit"] if have_implicit else []):
        out = subprocess.run(
            base + [name], capture_output=True, text=True, check=True
        ).stdout
        mem = json.loads(out.strip().splitlines()[-1])
        peaks[name] = mem["peak"]
        label = name if name == "implicit" else f"ours {name}"
        reset = "" if mem["reset"] else "  (peak not reset: the data's)"
        print(
            f"  {label:14s} peak {mem['peak']:6.0f}  before the call "
            f"{mem['before']:6.0f}  scikit-learn imported: {mem['sklearn']}{reset}"
        )
    if "implicit" in peaks:
        for name in args.metrics:
            print(
                f"  ours {name} / implicit: {peaks[name] / peaks['implicit']:.2f}"
                "  (goal <= 1)"
            )


if __name__ == "__main__":
    main()
