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

Issue 31's measure: what the distributed layer adds beyond the shuffle,
``(report - floor) / engine``, all three in CPU seconds measured in the same
run (goal: at most 1.15):

- *report*: the distributed report, the CPU time of every process (this
  driver, the Dask scheduler and workers, Spark's JVM and Python workers),
  also printed split by process;
- *floor*: what no distributed report can avoid, on the same partitions
  after the shuffle -- reading the Parquet files, shuffling the rows by
  query and handing them to Python (Dask: a row count of each shuffled
  pandas partition; Spark: ``mapInArrow`` counting the Arrow rows, with
  the report's job settings);
- *engine*: the in-memory ``ranking_report`` on the same rows as numpy
  arrays, in this process, one BLAS thread (read from the Parquet files
  first, untimed).

For Spark the same ratio of the Python workers alone is printed too: the
package's code runs there, while the JVM's CPU time moves by seconds
between calls of the same job, which sets the ratio of the whole.

Also printed: the report on the same log laid out by query (Dask, no
shuffle; ``--no-aligned`` skips it), the report and its floor with one
partition per core after the shuffle, Spark's floor in parts (the Parquet
read, read + shuffle in the JVM), Spark's own
``pyspark.ml.evaluation.RankingEvaluator`` against ours on the same log
(NDCG@10 + MAP@10, and those plus precision@10 and recall@10; one
``evaluate`` per metric as its API requires), the peak resident memory of
the workers, the load average, and the largest relative difference of each
engine's values from the in-memory report.  Both engines are warmed up
first (workers started, the package imported in every worker, Spark's JIT
on the full read and shuffle and the report); Spark's Python workers again
before every timed call (Spark ends a Python worker idle for a minute, and
a new one's start-up would be counted in the next call).

``--repeat N`` runs the timed calls of an engine N times, interleaved (the
report, then its floor, then the next call, ... and again), and keeps the
cheapest of each (Spark's JIT warms up over the first few full-size jobs;
other jobs on a shared machine come and go).

Issue 31's figures::

    python benchmarks/bench_scale.py --rows 2000000 --queries 100000 \\
        --partitions 16 --data /tmp/bench2m --repeat 3
    python benchmarks/bench_scale.py --rows 20000000 --queries 1000000 \\
        --partitions 160 --data /tmp/bench20m --repeat 3

The default is issue 19's 100,000,000 rows / 5,000,000 queries in 400
files.  Run from the repository root, with the ``dask`` and ``spark``
extras.
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

METRICS = ["ndcg", "map", "gauc"]  # --metrics
K = 10
GOAL = 1.15  # issue 31: (report - floor) <= 1.15 x the in-memory engine
COLUMNS = ["qid", "click", "score"]  # what the reports read
# the beyond-accuracy report: NDCG and three metrics of the set of lists over
# a catalogue of N_ITEMS items (the log's "item" column), with popularities
BEYOND = ["ndcg", "catalog_coverage", "gini_index", "novelty"]
N_ITEMS = 50_000


def item_popularity():
    """Training interaction counts of the catalogue's items (some 0)."""
    return np.random.default_rng(31).integers(0, 1000, size=N_ITEMS).astype(float)


BEYOND_OPTIONS = {"item_popularity": item_popularity(), "unseen": "one"}


def generate_partition(index, n_rows, n_queries, seed):
    """One partition of the click log as a pandas DataFrame: random query
    ids over the whole range, scores with ties (3 decimals), clicks more
    likely for higher scores."""
    import pandas as pd

    rng = np.random.default_rng([seed, index])
    qid = rng.integers(0, n_queries, size=n_rows, dtype=np.int64)
    score = np.round(rng.random(n_rows), 3)
    click = (rng.random(n_rows) < 0.02 + 0.2 * score**2).astype(np.int8)
    frame = pd.DataFrame({"qid": qid, "click": click, "score": score})
    # an item per row, distinct within a query over every partition: the
    # (partition, occurrence of the query in it) pairs are distinct offsets,
    # spread over the catalogue by the query id
    seen = frame.groupby("qid").cumcount().to_numpy()
    assert seen.max(initial=0) < 64
    frame["item"] = (qid * 7919 + index * 64 + seen) % N_ITEMS
    return frame


def write_dataset(path, n_rows, n_queries, n_parts, seed):
    assert n_parts * 64 <= N_ITEMS  # the items of a query stay distinct
    sizes = np.full(n_parts, n_rows // n_parts)
    sizes[: n_rows % n_parts] += 1
    path.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for i, size in enumerate(sizes):
        part = generate_partition(i, int(size), n_queries, seed)
        part.to_parquet(path / f"part-{i:05d}.parquet", index=False)
    return time.perf_counter() - start


def write_aligned_dataset(path, n_rows, n_queries, n_parts, seed):
    """The same log laid out by query: partition ``i`` holds queries
    ``[i * n_queries / n_parts, (i + 1) * n_queries / n_parts)``, sorted, with
    the query id as the index, so Dask reads known divisions and needs no
    shuffle (a log written by a job that already grouped it by user)."""

    sizes = np.full(n_parts, n_rows // n_parts)
    sizes[: n_rows % n_parts] += 1
    bounds = np.linspace(0, n_queries, n_parts + 1).astype(np.int64)
    path.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for i, size in enumerate(sizes):
        part = generate_partition(i, int(size), int(bounds[i + 1] - bounds[i]), seed)
        part["qid"] += bounds[i]
        part = part.sort_values("qid", kind="stable").set_index("qid")
        part.to_parquet(path / f"part-{i:05d}.parquet")
    return time.perf_counter() - start


def in_memory_report(qid, click, score, metrics=None, **options):
    return srm.ranking_report(
        click,
        score,
        query_id=qid,
        k=K,
        metrics=METRICS if metrics is None else metrics,
        output_dict=True,
        **options,
    )


def _cheapest(func):
    """The least CPU time of ``REPEAT`` calls of ``func`` in this process,
    one BLAS/OpenMP thread, and its output."""
    from threadpoolctl import threadpool_limits

    best, out = None, None
    with threadpool_limits(limits=1):
        for _ in range(REPEAT):
            start = time.process_time()
            out = func()
            cpu = time.process_time() - start
            best = cpu if best is None else min(best, cpu)
    return best, out


def bench_in_memory(path):
    """The in-memory engine on the same rows: every Parquet file read into
    numpy arrays (untimed), then ``ranking_report`` on them in this process
    with one BLAS/OpenMP thread, as in the Dask and Spark workers (both set
    OMP_NUM_THREADS=1): the cheapest CPU time of ``REPEAT`` calls and the
    values, of the report and of the beyond-accuracy report."""
    import pyarrow.parquet as pq

    table = pq.read_table(str(path))
    qid, click, score, item = (table.column(c).to_numpy() for c in (*COLUMNS, "item"))
    del table
    out = {"rows": qid.size}
    out["engine"] = _cheapest(lambda: in_memory_report(qid, click, score))
    out["beyond"] = _cheapest(
        lambda: in_memory_report(
            qid, click, score, BEYOND, item_id=item, **BEYOND_OPTIONS
        )
    )
    return out


def _tiny(n_rows=2000):
    return generate_partition(0, n_rows, n_rows // 20, 0)


def _warm_up(report, frame, **kwargs):
    """Start the workers and import the package in them before timing."""
    report(frame, query_col="qid", label_col="click", score_col="score", k=K, **kwargs)


def _categories(engine):
    """``process -> category`` for :func:`cpu_by_process`."""
    import psutil

    me = psutil.Process()

    def category(proc):
        if proc.pid == me.pid:
            return "driver"
        try:
            if "java" in proc.name():
                return "JVM"
        except psutil.NoSuchProcess:
            pass
        return "workers" if engine == "dask" else "Python workers"

    return category


def cpu_by_process(category):
    """CPU time used so far by this process and all its descendants (the
    Dask worker processes, Spark's JVM and its Python workers), summed by
    ``category(process)``: the figures below are CPU times, which hold on
    a loaded machine.  A process that ended was reaped by its parent, whose
    ``children_*`` times then hold it."""
    import psutil

    me = psutil.Process()
    totals = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            t = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        name = category(proc)
        totals[name] = totals.get(name, 0.0) + (
            t.user + t.system + t.children_user + t.children_system
        )
    return totals


def _pids():
    import psutil

    return {p.pid for p in psutil.Process().children(recursive=True)}


class Timing:
    """One timed call: wall time, CPU time of every process and its split
    by category."""

    def __init__(self, wall, split, started=0):
        self.wall = wall
        self.split = {k: v for k, v in split.items() if abs(v) >= 0.005}
        self.cpu = sum(split.values())
        self.started = started  # processes started during the call

    def by_process(self):
        out = ", ".join(f"{k} {v:.2f}" for k, v in sorted(self.split.items()))
        return out + (f"; {self.started} processes started" if self.started else "")


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --repeat: every timed call of an engine runs this many times, interleaved
# with the others, and the run of least CPU time is kept (Spark's JIT keeps
# compiling over the first few full-size jobs: on a quiet machine the
# report measured 9.5, 8.0, 7.6 CPU s in three runs, its floor 6.5 each
# time).
REPEAT = 1


def interleaved(calls, category, prepare=None):
    """Run each of ``calls`` (name -> function) once per round, ``REPEAT``
    rounds; per name, the output and :class:`Timing` of its cheapest run.
    ``prepare()``, if given, runs untimed before each call."""
    best = {}
    for _ in range(REPEAT):
        for name, func in calls.items():
            if prepare is not None:
                prepare()
            pids = _pids()
            before, start = cpu_by_process(category), time.perf_counter()
            out = func()
            wall = time.perf_counter() - start
            after = cpu_by_process(category)
            split = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
            timing = Timing(wall, split, len(_pids() - pids))
            if name not in best or timing.cpu < best[name][1].cpu:
                best[name] = (out, timing)
    return best


def _beyond_report(ranking_report, df, **kwargs):
    return _report(
        ranking_report, df, BEYOND, item_col="item", **BEYOND_OPTIONS, **kwargs
    )


def _report(ranking_report, df, metrics=None, **kwargs):
    return ranking_report(
        df,
        query_col="qid",
        label_col="click",
        score_col="score",
        k=K,
        metrics=METRICS if metrics is None else metrics,
        output_dict=True,
        **kwargs,
    )


def _count_rows(pdf):
    return len(pdf)


def _engine_in_worker(path, repeat):
    """In a Dask worker: the in-memory engine on every row (read from the
    Parquet files, untimed), as a partition's is run (glibc's thresholds
    held for the task); the least process CPU time of ``repeat`` runs --
    the worker's own threads (event loop, profiler) included."""
    sys.path.insert(0, str(ROOT))
    import pyarrow.parquet as pq

    from sklearn_rankmetrics.dask import _engine_allocations

    table = pq.read_table(path, columns=COLUMNS)
    arrays = [table.column(c).to_numpy() for c in COLUMNS]
    del table
    best = None
    for _ in range(repeat):
        start = time.process_time()
        with _engine_allocations():
            in_memory_report(*arrays)
        cpu = time.process_time() - start
        best = cpu if best is None else min(best, cpu)
    return best


def bench_dask(path, aligned_path, n_workers, partitions):
    """The report on the shuffled log and its floor (the same read and
    shuffle, then a row count of each partition), at the report's default
    partitioning and at two partitions per worker; and, if
    ``aligned_path``, the report on the log laid out by query (no
    shuffle)."""
    import dask.dataframe as dd
    import distributed

    from sklearn_rankmetrics.dask import _SHRINK, ranking_report

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
    category = _categories("dask")
    try:
        client.run(lambda: sys.path.insert(0, str(ROOT)))
        full = dd.read_parquet(str(path))
        if full.npartitions != partitions:
            full = full.repartition(npartitions=partitions)
        df = full[COLUMNS]
        # every worker imports the package (a report with a task per worker)
        _warm_up(
            ranking_report,
            dd.from_pandas(_tiny(), npartitions=2 * n_workers),
            npartitions=2 * n_workers,
        )
        _report(ranking_report, df)  # and runs it at full size once

        def floor(npartitions, frame=df):
            return (
                frame.shuffle(on="qid", npartitions=npartitions, shuffle_method="tasks")
                .map_partitions(_count_rows)
                .sum()
                .compute()
            )

        default = -(-df.npartitions // _SHRINK)  # the report's partitioning
        few = 2 * n_workers
        calls = {
            "report": lambda: _report(ranking_report, df),
            "floor": lambda: floor(default),
            "few_report": lambda: _report(ranking_report, df, npartitions=few),
            "few_floor": lambda: floor(few),
            "beyond": lambda: _beyond_report(ranking_report, full),
            "beyond_floor": lambda: floor(default, full),
        }
        if aligned_path is not None:
            da = dd.read_parquet(
                str(aligned_path), index="qid", calculate_divisions=True
            )
            assert da.known_divisions
            calls["aligned"] = lambda: _report(ranking_report, da)
        out = interleaved(calls, category)
        out["peaks"] = sorted(client.run(_peak_rss_mb).values())
        out["engine_in_worker"] = client.submit(
            _engine_in_worker, str(path), REPEAT, pure=False
        ).result()
        out["few"] = few
        out["default"] = default
    finally:
        client.close()
        cluster.close()
    return out


def _count_batches(batches):
    import pyarrow as pa

    n = sum(b.num_rows for b in batches)
    yield pa.RecordBatch.from_pydict({"n": pa.array([n], pa.int64())})


def _report_rss(batches):
    """The report's per-partition work, then the worker's peak RSS."""
    import pyarrow as pa

    from sklearn_rankmetrics._evaluation._state import report_names
    from sklearn_rankmetrics.spark import _state_rows

    list(
        _state_rows(
            batches,
            names=report_names(K, METRICS, {}),
            columns=("qid", "click", "score", None),
            k=K,
            metrics=METRICS,
            options={},
        )
    )
    yield pa.RecordBatch.from_pydict({"rss": [_peak_rss_mb()]})


def _jvm_peak_rss_mb():
    """Peak resident memory (VmHWM) of the Spark JVM (driver and executor in
    local mode), None if not found."""
    import psutil

    for proc in psutil.Process().children(recursive=True):
        try:
            if "java" not in proc.name():
                continue
            with open(f"/proc/{proc.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except (psutil.NoSuchProcess, OSError):
            continue
    return None


EVALUATOR_METRICS = [
    "ndcgAtK",
    "meanAveragePrecisionAtK",
    "precisionAtK",
    "recallAtK",
]
OURS_OF = {
    "ndcgAtK": "ndcg",
    "meanAveragePrecisionAtK": "map",
    "precisionAtK": "precision",
    "recallAtK": "recall",
}


def _spark_evaluator(df, names, cache=True):
    """``pyspark.ml.evaluation.RankingEvaluator`` at k=10, one ``evaluate``
    per metric, on its input built from the long form: per query, the item
    ids ranked by score and the ids of the clicked items (a row id serves as
    the item id).  ``cache``: the lists are built once and cached for the
    calls (else each call builds them again)."""
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F

    items = df.withColumn("item", F.monotonically_increasing_id().cast("double"))
    lists = items.groupBy("qid").agg(
        F.transform(
            F.array_sort(F.collect_list(F.struct(-F.col("score"), F.col("item")))),
            lambda s: s["item"],
        ).alias("prediction"),
        F.collect_list(F.when(F.col("click") > 0, F.col("item"))).alias("label"),
    )
    if cache:
        lists = lists.cache()
    try:
        return [
            RankingEvaluator(
                metricName=name, k=K, predictionCol="prediction", labelCol="label"
            ).evaluate(lists)
            for name in names
        ]
    finally:
        if cache:
            lists.unpersist()


def _with_conf(spark, settings, func):
    """``func()`` with the session's ``settings`` changed for its job."""
    saved = {key: spark.conf.get(key, None) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        return func()
    finally:
        for key, value in saved.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


# The report's settings for its job (spark.ranking_report): 1M-row Arrow
# batches (not the session's 10,000) and the shuffle's partitions coalesced
# by adaptive execution; the floor runs with the same, so at the report's
# partitioning.
REPORT_JOB = {
    "spark.sql.execution.arrow.maxRecordsPerBatch": "1000000",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
}


def bench_spark(path, cores, partitions):
    """The report and its floor (reading, shuffling by query and handing the
    rows to Python as Arrow, a row count in Python), at the report's
    default partitioning and at one partition per core; the floor's JVM
    parts as jobs of their own (reading the Parquet files, reading and
    shuffling by query; the JVM sums the columns); Spark's
    RankingEvaluator against ours on 2 and 4 metrics."""
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
    category = _categories("spark")
    try:
        full = spark.read.parquet(str(path))
        df = full.select(*COLUMNS)
        # every Python worker imports the package: one task per core.  Spark
        # kills a Python worker idle for a minute, and a new one costs 0.6-1
        # CPU s (starting, importing pyarrow and the package): at 2,000,000
        # rows the report measured 1.2 CPU s in the Python workers after the
        # long JVM-only jobs of the round, 0.7 after a report.  So this runs
        # again, untimed, before every timed call.
        tiny = spark.createDataFrame(_tiny())

        def warm_workers():
            _warm_up(ranking_report, tiny, num_partitions=cores)

        warm_workers()
        # the JVM's JIT warmed up on the full read and shuffle and the report
        # (untimed): the first full-size job measured about 1.5x the later
        # ones at 5,000,000 rows, which would favour whichever job runs
        # second
        df.repartition("qid").mapInArrow(_count_batches, "n long").collect()
        _report(ranking_report, df)
        sums = [F.sum(c) for c in ("qid", "click", "score")]

        def floor(*by, frame=df):
            return _with_conf(
                spark,
                REPORT_JOB,
                lambda: (
                    frame.repartition(*by)
                    .mapInArrow(_count_batches, "n long")
                    .agg(F.sum("n").alias("n"))
                    .collect()[0]["n"]
                ),
            )

        few = cores
        calls = {
            "report": lambda: _report(ranking_report, df),
            "floor": lambda: floor("qid"),
            "few_report": lambda: _report(ranking_report, df, num_partitions=few),
            "few_floor": lambda: floor(few, "qid"),
            "beyond": lambda: _beyond_report(ranking_report, full),
            "beyond_floor": lambda: floor("qid", frame=full),
            "read": lambda: df.agg(*sums).collect(),
            # spark_partition_id() ties the sums to the shuffled partitions:
            # at 100,000,000 rows the plain sums after repartition measured
            # 9.9 CPU s against 8.3 for the read alone, too little for a
            # shuffle of every row (at 4,000,000 rows the shuffle was
            # measured, 2.8 CPU s).
            "jvm_shuffle": lambda: (
                df.repartition("qid")
                .withColumn("partition", F.spark_partition_id())
                .agg(*sums, F.sum("partition"))
                .collect()
            ),
        }
        # Spark's own pyspark.ml.evaluation.RankingEvaluator, one call per
        # metric as its API requires, on the lists it needs (built in the same
        # job: item ids, grouped by query, ranked by score), against ours on
        # the same metrics.
        for names in (EVALUATOR_METRICS[:2], EVALUATOR_METRICS):
            key = len(names)
            calls[f"evaluator_{key}"] = lambda names=names: _spark_evaluator(df, names)
            calls[f"uncached_{key}"] = lambda names=names: _spark_evaluator(
                df, names, cache=False
            )
            calls[f"ours_{key}"] = lambda names=names: _report(
                ranking_report, df, metrics=[OURS_OF[n] for n in names]
            )
        out = interleaved(calls, category, prepare=warm_workers)
        out["few"] = few
        # the report's Python workers: the largest peak over the tasks, on a
        # tenth of the files in a tenth of the partitions (partitions of the
        # same size, a tenth of the time)
        files = sorted(str(f) for f in path.glob("*.parquet"))
        tenth = max(1, len(files) // 10)
        peak = (
            spark.read.parquet(*files[:tenth])
            .select(*COLUMNS)
            .repartition(max(1, partitions * tenth // len(files)), "qid")
            .mapInArrow(_report_rss, "rss double")
            .agg(F.max("rss"))
            .collect()[0][0]
        )
        out["peaks"] = [peak]
        out["jvm_peak"] = _jvm_peak_rss_mb()
    finally:
        spark.stop()
    return out


def _load():
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def _difference(got, want):
    return max(abs(got[n] - want[n]) / abs(want[n]) for n in want)


def print_engine(engine, out, memory):
    """The engine's figures (see the module docstring)."""
    n_rows, (engine_cpu, want) = memory["rows"], memory["engine"]
    report, floor = out["report"][1], out["floor"][1]
    added = report.cpu - floor.cpu
    print(
        f"{engine}: the report {report.wall:.1f} s wall, {report.cpu:.2f} CPU s "
        f"({report.by_process()}); {n_rows / report.cpu:,.0f} rows per CPU s"
    )
    hand_off = "row count" if engine == "dask" else "Arrow hand-off"
    print(
        f"   floor (read + shuffle + {hand_off}): {floor.wall:.1f} s wall, "
        f"{floor.cpu:.2f} CPU s ({floor.by_process()})"
    )
    print(
        f"   (report - floor) / in-memory engine: {added:.2f} / {engine_cpu:.2f} "
        f"= {added / engine_cpu:.2f}x (goal <= {GOAL}); the report / its "
        f"floor: {report.cpu / floor.cpu:.2f}x"
    )
    if engine == "spark":
        # what the package's own code adds runs in the Python workers; the
        # JVM's time moves by CPU seconds between calls of the same job
        py = "Python workers"
        py_added = report.split.get(py, 0.0) - floor.split.get(py, 0.0)
        print(
            f"   the Python workers alone, (report - floor) / in-memory engine: "
            f"{py_added:.2f} / {engine_cpu:.2f} = {py_added / engine_cpu:.2f}x; "
            f"the JVM, report - floor: "
            f"{report.split.get('JVM', 0.0) - floor.split.get('JVM', 0.0):+.2f} CPU s"
        )
    if "engine_in_worker" in out:
        in_worker = out["engine_in_worker"]
        print(
            f"   the in-memory engine inside one Dask worker: {in_worker:.2f} CPU s "
            f"({in_worker / engine_cpu:.2f}x this process's); so the report "
            f"beyond its floor and that: {added - in_worker:+.2f} CPU s"
        )
    few_r, few_f = out["few_report"][1], out["few_floor"][1]
    print(
        f"   {out['few']} partitions after the shuffle: the report "
        f"{few_r.cpu:.2f} CPU s, its floor {few_f.cpu:.2f}: (report - floor) / "
        f"engine {(few_r.cpu - few_f.cpu) / engine_cpu:.2f}x"
    )
    if "aligned" in out:
        aligned = out["aligned"][1]
        print(
            f"   laid out by query (no shuffle): the report {aligned.cpu:.2f} CPU "
            f"s ({aligned.by_process()}): {aligned.cpu / engine_cpu:.2f}x the "
            "in-memory engine"
        )
    peaks_mb = ", ".join(f"{p:,.0f}" for p in out["peaks"])
    what = "worker" if engine == "dask" else "Python worker"
    print(f"   peak RSS per {what}: {peaks_mb} MB")
    if engine == "spark":
        r_cpu, j_cpu = out["read"][1].cpu, out["jvm_shuffle"][1].cpu
        print(
            f"   peak RSS of the JVM (driver and executor): {out['jvm_peak']:,.0f} MB"
        )
        print(
            f"   the floor's parts (CPU s): Parquet read {r_cpu:.2f}; read + "
            f"shuffle {j_cpu:.2f} (both in the JVM, the session's "
            f"{out['partitions']} shuffle partitions); read + shuffle + Arrow "
            f"hand-off {floor.cpu:.2f}"
        )
        for key in (2, 4):
            e, o = out[f"evaluator_{key}"][1], out[f"ours_{key}"][1]
            u = out[f"uncached_{key}"][1]
            print(
                f"   {key} metrics at k={K}: ours {o.cpu:.2f} CPU s "
                f"({o.by_process()}); Spark's RankingEvaluator, one call per "
                f"metric on cached lists {e.cpu:.2f} CPU s ({e.by_process()}): "
                f"{e.cpu / o.cpu:.2f}x ours, the lists built for each call "
                f"{u.cpu:.2f} CPU s: {u.cpu / o.cpu:.2f}x ours (goal >= "
                f"{2 if key == 2 else 3}); our floor alone would be "
                f"{e.cpu / floor.cpu:.2f}x / {u.cpu / floor.cpu:.2f}x cheaper"
            )
    b_report, b_floor = out["beyond"][1], out["beyond_floor"][1]
    b_engine, b_want = memory["beyond"]
    print(
        f"   with beyond-accuracy metrics ({', '.join(BEYOND)} @{K}; item_col, "
        f"{N_ITEMS:,} items): the report {b_report.cpu:.2f} CPU s "
        f"({b_report.by_process()}), its floor (the item column too) "
        f"{b_floor.cpu:.2f}, the in-memory report {b_engine:.2f}: (report - "
        f"floor) / in-memory {(b_report.cpu - b_floor.cpu) / b_engine:.2f}x; "
        "largest relative difference from the in-memory values "
        f"{_difference(out['beyond'][0], b_want):.1e}"
    )
    print(f"   {out['report'][0]}")
    print(
        "   largest relative difference from the in-memory report: "
        f"{_difference(out['report'][0], want):.1e}; {_load()}"
    )


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
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="interleaved runs of each timed call, keeping the cheapest (CPU)",
    )
    parser.add_argument(
        "--metrics",
        default=",".join(METRICS),
        help="comma-separated metrics of the report (default: ndcg,map,gauc)",
    )
    parser.add_argument(
        "--no-aligned",
        action="store_true",
        help="skip Dask's report on the log laid out by query (no shuffle)",
    )
    args = parser.parse_args()
    global REPEAT
    REPEAT = args.repeat
    METRICS[:] = args.metrics.split(",")

    owned = args.data is None
    root = Path(args.data or tempfile.mkdtemp(prefix="bench_scale_"))
    path, aligned_path = root / "log", root / "log_by_query"
    engines = args.engines.split(",")
    with_aligned = "dask" in engines and not args.no_aligned
    print(
        f"{args.rows:,} rows, {args.queries:,} queries, {args.partitions} "
        f"partitions, {args.cores} cores; metrics {METRICS} at k={K}; each "
        f"timed call: the cheapest of {REPEAT} (CPU), interleaved; {_load()}"
    )
    try:
        if not path.exists():
            t = write_dataset(path, args.rows, args.queries, args.partitions, args.seed)
            print(f"generated and written partition by partition in {t:.1f} s")
        if with_aligned and not aligned_path.exists():
            t = write_aligned_dataset(
                aligned_path, args.rows, args.queries, args.partitions, args.seed
            )
            print(f"the same laid out by query in {t:.1f} s")
        memory = bench_in_memory(path)
        n_rows, engine_cpu = memory["rows"], memory["engine"][0]
        assert n_rows == args.rows, (n_rows, args.rows)
        print(
            f"in-memory engine (ranking_report on the {n_rows:,} rows as numpy "
            f"arrays, one process, one thread): {engine_cpu:.2f} CPU s, "
            f"{n_rows / engine_cpu:,.0f} rows per CPU s; with beyond-accuracy "
            f"metrics ({', '.join(BEYOND)}): {memory['beyond'][0]:.2f} CPU s; "
            f"{_load()}"
        )
        results = {}
        for engine in engines:
            if engine == "dask":
                out = bench_dask(
                    path,
                    aligned_path if with_aligned else None,
                    args.cores,
                    args.partitions,
                )
            else:
                out = bench_spark(path, args.cores, args.partitions)
                out["partitions"] = args.partitions
            for name in ("floor", "few_floor", "beyond_floor"):
                assert out[name][0] == args.rows, (name, out[name][0], args.rows)
            results[engine] = out["report"][0]
            print_engine(engine, out, memory)
        if len(results) == 2:
            a, b = results.values()
            print(
                f"largest relative difference between engines: {_difference(a, b):.1e}"
            )
    finally:
        if owned:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
