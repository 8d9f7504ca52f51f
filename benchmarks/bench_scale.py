"""Benchmark: ranking reports at scale on Dask and Spark (a benchmark, not a
test).

Generates a click log partition by partition (never one array): ``--rows``
rows over ``--queries`` queries, each partition drawing its query ids from
the whole range, so every query is spread over many partitions and the
engines must shuffle by query.  The partitions are written to Parquet
(``--data``), then both engines read them and compute NDCG@10, MAP@10 and
GAUC with ``sklearn_rankmetrics.dask.ranking_report`` (a
``distributed.LocalCluster`` with one single-threaded worker process per
core) and ``sklearn_rankmetrics.spark.ranking_report`` (``local[*]``).

Reported per engine: the wall time and the CPU time of all the processes
(workers, JVM); rows per CPU second against the in-memory engine
(``ranking_report`` on one partition's worth of rows, one core; goal:
within 2x; CPU time, unlike wall time, holds on a shared machine); the
peak resident memory of each worker process (Dask workers, Spark's Python
workers; goal: bounded by the partition, not the dataset); and the share
of the shuffle by query alone (the same read and shuffle, followed by a
row count instead of the report).  Both engines are warmed up first
(workers started, the package imported) on a tiny frame.

The default is the issue's 100,000,000 rows / 5,000,000 queries; on a
small machine run it smaller, e.g.::

    python benchmarks/bench_scale.py --rows 10000000 --queries 500000 \\
        --partitions 40

Run from the repository root, with the ``dask`` and ``spark`` extras.
"""

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sklearn_rankmetrics as srm  # noqa: E402

METRICS = ["ndcg", "map", "gauc"]
K = 10


def generate_partition(index, n_rows, n_queries, seed):
    """One partition of the click log as a pandas DataFrame: random query
    ids over the whole range, scores with ties (3 decimals), clicks more
    likely for higher scores."""
    import pandas as pd

    rng = np.random.default_rng([seed, index])
    qid = rng.integers(0, n_queries, size=n_rows, dtype=np.int64)
    score = np.round(rng.random(n_rows), 3)
    click = (rng.random(n_rows) < 0.02 + 0.2 * score**2).astype(np.int8)
    return pd.DataFrame({"qid": qid, "click": click, "score": score})


def write_dataset(path, n_rows, n_queries, n_parts, seed):
    sizes = np.full(n_parts, n_rows // n_parts)
    sizes[: n_rows % n_parts] += 1
    path.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for i, size in enumerate(sizes):
        part = generate_partition(i, int(size), n_queries, seed)
        part.to_parquet(path / f"part-{i:05d}.parquet", index=False)
    return time.perf_counter() - start


def bench_in_memory(n_rows, n_queries, n_parts, seed):
    """The in-memory engine on one partition's worth of whole queries (the
    rows per query of the full dataset), on one core."""
    rows = n_rows // n_parts
    part = generate_partition(0, rows, max(1, n_queries // n_parts), seed)
    start = time.process_time()
    srm.ranking_report(
        part["click"],
        part["score"],
        query_id=part["qid"],
        k=K,
        metrics=METRICS,
        output_dict=True,
    )
    elapsed = time.process_time() - start
    return rows, elapsed


def _tiny():
    return generate_partition(0, 2000, 100, 0)


def _warm_up(report, frame):
    """Start the workers and import the package in them before timing."""
    report(frame, query_col="qid", label_col="click", score_col="score", k=K)


def cpu_seconds():
    """CPU time used so far by this process and all its descendants (the
    Dask worker processes, Spark's JVM and its Python workers): the
    per-core figures below divide by it, so they hold on a loaded machine."""
    import psutil

    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_dask(path, n_workers, partitions):
    import dask.dataframe as dd
    import distributed

    from sklearn_rankmetrics.dask import ranking_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit=None,
        )
        client = distributed.Client(cluster)
    try:
        client.run(lambda: sys.path.insert(0, str(ROOT)))
        df = dd.read_parquet(str(path))
        if df.npartitions != partitions:
            df = df.repartition(npartitions=partitions)
        _warm_up(ranking_report, dd.from_pandas(_tiny(), npartitions=n_workers))
        cpu, start = cpu_seconds(), time.perf_counter()
        report = ranking_report(
            df,
            query_col="qid",
            label_col="click",
            score_col="score",
            k=K,
            metrics=METRICS,
            output_dict=True,
        )
        total = time.perf_counter() - start, cpu_seconds() - cpu
        peaks = sorted(client.run(_peak_rss_mb).values())
        cpu, start = cpu_seconds(), time.perf_counter()
        n = df.shuffle(on="qid").map_partitions(len).sum().compute()
        shuffle = time.perf_counter() - start, cpu_seconds() - cpu
    finally:
        client.close()
        cluster.close()
    return report, total, shuffle, peaks, n


def _count_partition(batches):
    import pandas as pd

    n = sum(len(b) for b in batches)
    yield pd.DataFrame({"n": [n], "rss": [_peak_rss_mb()]})


def bench_spark(path, cores, partitions):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from sklearn_rankmetrics.spark import ranking_report

    warnings.filterwarnings("ignore", category=FutureWarning)
    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        # as many partitions after the shuffle as Dask's (the same size)
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.sql.adaptive.coalescePartitions.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        df = spark.read.parquet(str(path))
        _warm_up(ranking_report, spark.createDataFrame(_tiny()))
        cpu, start = cpu_seconds(), time.perf_counter()
        report = ranking_report(
            df,
            query_col="qid",
            label_col="click",
            score_col="score",
            k=K,
            metrics=METRICS,
            output_dict=True,
        )
        total = time.perf_counter() - start, cpu_seconds() - cpu
        cpu, start = cpu_seconds(), time.perf_counter()
        counts = (
            df.repartition("qid")
            .mapInPandas(_count_partition, "n long, rss double")
            .agg(F.sum("n").alias("n"), F.max("rss").alias("rss"))
            .collect()[0]
        )
        shuffle = time.perf_counter() - start, cpu_seconds() - cpu
        # the report's Python workers: the largest peak over the tasks
        peak = (
            df.repartition("qid")
            .mapInPandas(_report_rss, "rss double")
            .agg(F.max("rss"))
            .collect()[0][0]
        )
    finally:
        spark.stop()
    return report, total, shuffle, [peak], counts["n"]


def _report_rss(batches):
    """The report's per-partition work, then the worker's peak RSS."""
    import pandas as pd

    from sklearn_rankmetrics._frames import partition_state
    from sklearn_rankmetrics.spark import _partition_frame

    pdf = _partition_frame(batches)
    if pdf is not None:
        partition_state(
            pdf,
            columns=("qid", "click", "score", None),
            partition=None,
            k=K,
            metrics=METRICS,
            options={},
        )
    yield pd.DataFrame({"rss": [_peak_rss_mb()]})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--queries", type=int, default=5_000_000)
    parser.add_argument("--partitions", type=int, default=400)
    parser.add_argument(
        "--engines", default="dask,spark", help="comma-separated: dask,spark"
    )
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--data", default=None, help="Parquet directory (temp)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    owned = args.data is None
    path = Path(args.data or tempfile.mkdtemp(prefix="bench_scale_")) / "log"
    print(
        f"{args.rows:,} rows, {args.queries:,} queries, {args.partitions} "
        f"partitions, {args.cores} cores; metrics {METRICS} at k={K}"
    )
    try:
        if not path.exists():
            t = write_dataset(path, args.rows, args.queries, args.partitions, args.seed)
            print(f"generated and written partition by partition in {t:.1f} s")
        rows, t = bench_in_memory(args.rows, args.queries, args.partitions, args.seed)
        base = rows / t
        print(
            f"in-memory engine, one partition ({rows:,} rows), one core: "
            f"{t:.2f} CPU s, {base:,.0f} rows per CPU second"
        )
        results = {}
        for engine in args.engines.split(","):
            run = bench_dask if engine == "dask" else bench_spark
            report, (wall, cpu), (s_wall, s_cpu), peaks, n = run(
                path, args.cores, args.partitions
            )
            assert n == args.rows, (n, args.rows)
            results[engine] = report
            per_cpu = args.rows / cpu
            peaks_mb = ", ".join(f"{p:,.0f}" for p in peaks)
            print(
                f"{engine}: {wall:.1f} s wall ({args.rows / wall / args.cores:,.0f} "
                f"rows/s/core), {cpu:.1f} CPU s ({per_cpu:,.0f} rows per CPU "
                f"second: {base / per_cpu:.2f}x the in-memory cost); shuffle "
                f"alone {s_wall:.1f} s wall, {s_cpu:.1f} CPU s ({s_cpu / cpu:.0%} "
                f"of the report's CPU); peak RSS per worker {peaks_mb} MB"
            )
            print(f"   {report}")
        if len(results) == 2:
            a, b = results.values()
            diff = max(abs(a[n] - b[n]) / abs(a[n]) for n in a)
            print(f"largest relative difference between engines: {diff:.1e}")
    finally:
        if owned:
            shutil.rmtree(path.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
