"""sklearn_rankmetrics.spark on a local SparkSession (local[2]): the same
values as the in-memory report on the same rows, whatever the
partitioning, retry-safe, and clear errors on bad frames."""

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pyspark_sql = pytest.importorskip("pyspark.sql")

from numpy.testing import assert_allclose, assert_array_equal  # noqa: E402

import sklearn_rankmetrics  # noqa: E402
from sklearn_rankmetrics.spark import ranking_report  # noqa: E402
from tests._scale_data import COLS, RTOL, K, assert_same, in_memory, make_frame  # noqa: E402

# PySpark 4.3 with pandas 3: a FutureWarning and pandas' deprecations of
# arguments PySpark passes (its own code, not ours).
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:PySpark does not yet fully support pandas:FutureWarning"
    ),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def spark():
    # Spark starts its Python workers with PYSPARK_PYTHON (else the system
    # Python) and they import this package: give them this interpreter and
    # this checkout.
    root = str(Path(sklearn_rankmetrics.__file__).resolve().parent.parent)
    saved = {
        v: os.environ.get(v)
        for v in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH")
    }
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, saved["PYTHONPATH"]) if p
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            pyspark_sql.SparkSession.builder.master("local[2]")
            .appName("sklearn_rankmetrics-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "3")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .config("spark.python.worker.reuse", "true")
            .config("spark.sql.adaptive.enabled", "false")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    for var, value in saved.items():
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value


def to_spark(spark, frame, n_slices):
    """``frame`` as a Spark DataFrame of ``n_slices`` partitions in row order
    (rows of a query spread over them)."""
    schema = "qid {}, rel long, score double, w double, other string".format(
        "string"
        if frame["qid"].dtype.kind in "OUT" or str(frame["qid"].dtype) == "str"
        else "long"
    )
    rows = [
        tuple(r)
        for r in frame[["qid", "rel", "score", "w", "other"]].itertuples(
            index=False, name=None
        )
    ]
    rdd = spark.sparkContext.parallelize(rows, n_slices)
    return spark.createDataFrame(rdd, schema)


def test_equals_in_memory_and_retry_safe(spark):
    """Rows in random order over 4 input partitions (a query in all of
    them), a cached 1-partition frame, another number of shuffle
    partitions: the same report."""
    frame = make_frame(11)
    want = in_memory(frame, output_dict=True)
    df = to_spark(spark, frame, 4)
    assert df.rdd.getNumPartitions() == 4
    slices = np.array_split(frame["qid"].to_numpy(), 4)  # parallelize's slices
    assert set.intersection(*(set(s) for s in slices))
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert_same(got, want)
    cached = to_spark(spark, frame, 1).cache()
    assert cached.count() == len(frame)  # materialised
    got = ranking_report(cached, **COLS, weight_col="w", k=K, output_dict=True)
    cached.unpersist()
    assert_same(got, want)
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "7")
    try:
        got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    assert_same(got, want)


def test_text_options_and_per_query(spark):
    frame = make_frame(12, string_ids=True)
    df = to_spark(spark, frame, 3)
    options = {
        "no_relevant": 0.0,
        "relevance_threshold": 2,
        "query_weighting": "uniform",
    }
    text = ranking_report(df, **COLS, k=K, **options)
    assert text == in_memory(frame, weighted=False, **options)
    out = ranking_report(df, **COLS, weight_col="w", k=K, per_query=True)
    assert isinstance(out, pyspark_sql.DataFrame)
    want = in_memory(frame, per_query=True)
    assert out.columns == ["qid", *list(want.columns)[1:]]
    got = out.toPandas().sort_values("qid").reset_index(drop=True)
    assert_array_equal(got["qid"].to_numpy(str), want["query_id"].to_numpy(str))
    assert_allclose(
        got.iloc[:, 1:].to_numpy(float), want.iloc[:, 1:].to_numpy(float), rtol=RTOL
    )


def test_bad_frames(spark):
    frame = make_frame(13, n_queries=6)
    df = to_spark(spark, frame, 2)
    with pytest.raises(
        ValueError, match=r"label_col='label' is not a column.*'qid', 'rel'"
    ):
        ranking_report(df, query_col="qid", label_col="label", score_col="score")
    with pytest.raises(TypeError, match=r"score_col='other' must be a numeric"):
        ranking_report(df, query_col="qid", label_col="rel", score_col="other")
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        ranking_report(frame, **COLS)
    with pytest.raises(ValueError, match="ignore_ties=True"):
        ranking_report(df, **COLS, ignore_ties=True)
    # 6 queries over 12 partitions: empty partitions add nothing
    got = ranking_report(
        df, **COLS, weight_col="w", k=K, output_dict=True, num_partitions=12
    )
    assert_same(got, in_memory(frame, output_dict=True))
    with pytest.raises(ValueError, match="no rows"):
        ranking_report(df.filter("score > 2"), **COLS, output_dict=True)
    with_null = df.withColumn(
        "qid", pyspark_sql.functions.when(df["rel"] == 2, None).otherwise(df["qid"])
    )
    with pytest.raises(
        ValueError, match=r"column 'qid' has \d+ null value\(s\) in partition \d+"
    ):
        ranking_report(with_null, **COLS, output_dict=True)


def test_spark_preset_matches_spark_ranking_metrics(spark):
    """convention="spark" reproduces pyspark.mllib's RankingMetrics on
    predicted id lists and relevant id sets (binary relevance), including
    a query without relevant ids (Spark scores it 0) and relevant ids that
    were never predicted (they count in the denominators)."""
    from pyspark.mllib.evaluation import RankingMetrics

    rng = np.random.default_rng(0)
    predicted, relevant = [], []
    for q in range(40):
        ids = rng.permutation(30)[: rng.integers(1, 15)]
        predicted.append([int(i) for i in ids])
        n_rel = 0 if q % 10 == 0 else int(rng.integers(1, 8))
        relevant.append([int(i) for i in rng.permutation(30)[:n_rel]])
    metrics = RankingMetrics(
        spark.sparkContext.parallelize(list(zip(predicted, relevant, strict=True)), 2)
    )
    y_true, y_score, _ = sklearn_rankmetrics.ranked_lists_to_arrays(predicted, relevant)
    ours = {
        "precision": sklearn_rankmetrics.precision_at_k,
        "recall": sklearn_rankmetrics.recall_at_k,
        "map": sklearn_rankmetrics.average_precision_at_k,
        "ndcg": sklearn_rankmetrics.ndcg_at_k,
    }
    theirs = {
        "precision": metrics.precisionAt,
        "recall": metrics.recallAt,
        "map": metrics.meanAveragePrecisionAt,
        "ndcg": metrics.ndcgAt,
    }
    for k in (1, 3, 5, 10):
        for name, func in ours.items():
            value = func(y_true, y_score, k=k, convention="spark")
            assert value == pytest.approx(theirs[name](k), abs=1e-12), (name, k)
    whole = sklearn_rankmetrics.average_precision_at_k(
        y_true, y_score, convention="spark"
    )
    assert whole == pytest.approx(metrics.meanAveragePrecision, abs=1e-12)
