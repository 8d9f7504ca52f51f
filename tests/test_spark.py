"""sklearn_rankmetrics.spark on a local SparkSession (local[2]): the same
values as the in-memory report on the same rows, whatever the
partitioning, retry-safe, and clear errors on bad frames."""

import os
import pickle
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


# ---------------------------------------------------------------------------
# The executors' side (mapInArrow) on Arrow batches, without a Spark job
# ---------------------------------------------------------------------------
pa = pytest.importorskip("pyarrow")

from sklearn_rankmetrics._evaluation._state import ReportState  # noqa: E402
from sklearn_rankmetrics._evaluation._state import report_names as _report_names  # noqa: E402
from sklearn_rankmetrics.spark import _per_query_rows, _state_rows  # noqa: E402


def _batches(frame, n_batches, schema=None):
    """``frame`` as Arrow record batches (some empty), as mapInArrow
    passes a partition."""
    table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
    cuts = np.linspace(0, len(frame), n_batches + 1).astype(int)
    out = [pa.RecordBatch.from_pylist([], schema=table.schema)]
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        out.extend(table.slice(a, b - a).to_batches())
    return out


def _state_of(rows, names):
    """The ReportState of the one-row batches _state_rows yields (a pickled
    state each)."""
    state = ReportState()
    for batch in rows:
        (row,) = batch.to_pylist()
        part = pickle.loads(row["state"])
        assert part.names == names
        state = state.merge(part)
    return state


def _config(weight_col="w", **options):
    names = _report_names(K, None, options)
    config = dict(
        columns=("qid", "rel", "score", weight_col),
        k=K,
        metrics=None,
        options=options,
    )
    return names, config


@pytest.mark.parametrize("string_ids", [False, True])
def test_arrow_partitions_equal_in_memory(string_ids):
    """Whole queries over three partitions, each in several Arrow batches
    (an empty one first), with weights and ties: the merged state is the
    in-memory report."""
    frame = make_frame(21, string_ids=string_ids).drop(columns="other")
    names, config = _config()
    ids = frame["qid"].unique()
    rows = []
    for part_ids in np.array_split(ids, 3):
        part = frame[frame["qid"].isin(part_ids)]
        rows.extend(_state_rows(_batches(part, 4), names=names, **config))
    assert len(rows) == 3
    assert_same(_state_of(rows, names).means(), in_memory(frame, output_dict=True))
    # an empty partition yields no row at all
    assert list(_state_rows([], names=names, **config)) == []
    assert list(_state_rows(_batches(frame.iloc[:0], 1), names=names, **config)) == []


def test_arrow_column_types():
    """Boolean labels, decimal scores and int8 labels are read as numbers;
    a string label column (which the driver's schema check also refuses)
    and nulls are errors naming the column."""
    from decimal import Decimal

    frame = make_frame(22).drop(columns="other")
    names, config = _config(weight_col=None)
    want = _state_of(_state_rows(_batches(frame, 2), names=names, **config), names)
    assert_same(want.means(), in_memory(frame, weighted=False, output_dict=True))
    schema = pa.schema(
        [
            ("qid", pa.int32()),
            ("rel", pa.int8()),
            ("score", pa.decimal128(4, 2)),
            ("w", pa.float64()),
        ]
    )
    as_decimal = frame.assign(score=[Decimal(f"{s:.2f}") for s in frame["score"]])
    rows = _state_rows(_batches(as_decimal, 2, schema), names=names, **config)
    assert_same(_state_of(rows, names).means(), want.means())

    binary = frame.assign(rel=frame["rel"] > 0)
    names, config = _config(weight_col=None, relevance_threshold=1)
    rows = _state_rows(_batches(binary, 2), names=names, **config)
    assert_same(
        _state_of(rows, names).means(),
        in_memory(binary, weighted=False, relevance_threshold=1, output_dict=True),
    )

    names, config = _config()
    with pytest.raises(TypeError, match=r"column 'rel' must be numeric.*string"):
        list(
            _state_rows(
                _batches(frame.assign(rel=frame["rel"].astype(str)), 2),
                names=names,
                **config,
            )
        )
    with_null = pa.Table.from_pandas(frame, preserve_index=False)
    w = with_null.column("w").to_pylist()
    w[3] = None
    with_null = with_null.set_column(3, "w", pa.array(w, pa.float64()))
    with pytest.raises(ValueError, match=r"column 'w' has 1 null value\(s\);"):
        list(_state_rows(with_null.to_batches(), names=names, **config))


@pytest.mark.parametrize("qid_type", ["int64", "string", "date32"])
def test_arrow_per_query_keeps_the_ids(qid_type):
    import datetime

    frame = make_frame(23).drop(columns="other")
    want = in_memory(frame, per_query=True)
    names, config = _config()
    if qid_type == "string":
        frame["qid"] = [f"u{q:03d}" for q in frame["qid"]]
        expected_ids = [f"u{q:03d}" for q in want["query_id"]]
    elif qid_type == "date32":
        day = datetime.date(2020, 1, 1)
        frame["qid"] = [day + datetime.timedelta(days=int(q)) for q in frame["qid"]]
        expected_ids = [day + datetime.timedelta(days=int(q)) for q in want["query_id"]]
    else:
        expected_ids = list(want["query_id"])
    (batch,) = _per_query_rows(_batches(frame, 3), names=names, **config)
    got = batch.to_pandas()
    assert (
        batch.schema.field("qid").type
        == pa.Table.from_pandas(frame).schema.field("qid").type
    )
    order = np.argsort([expected_ids.index(q) for q in got["qid"]])
    got = got.iloc[order].reset_index(drop=True)
    assert list(got["qid"]) == expected_ids
    assert list(got.columns[1:]) == list(want.columns[1:])
    assert_allclose(
        got.iloc[:, 1:].to_numpy(float), want.iloc[:, 1:].to_numpy(float), rtol=RTOL
    )
    assert list(_per_query_rows([], names=names, **config)) == []


def test_decimal_and_boolean_columns_and_null_weight(spark):
    """Through a Spark job: decimal scores and boolean labels give the
    in-memory report; a null weight is an error naming the column."""
    frame = make_frame(24)
    df = to_spark(spark, frame, 3)
    F = pyspark_sql.functions
    cast = df.withColumn("score", df["score"].cast("decimal(4,2)")).withColumn(
        "rel", df["rel"] > 0
    )
    got = ranking_report(cast, **COLS, weight_col="w", k=K, output_dict=True)
    binary = frame.assign(rel=(frame["rel"] > 0).astype(int))
    assert_same(got, in_memory(binary, output_dict=True))
    with_null = df.withColumn("w", F.when(df["rel"] == 3, None).otherwise(df["w"]))
    with pytest.raises(ValueError, match=r"column 'w' has \d+ null value\(s\)"):
        ranking_report(with_null, **COLS, weight_col="w", output_dict=True)


@pytest.mark.parametrize(
    "option, error, match",
    [
        ({"gian": "exponential"}, TypeError, r"^sklearn_rankmetrics\.spark\.ranking"),
        ({"ignore_ties": True}, ValueError, "ignore_ties=True breaks ties by row"),
        ({"ties": "input_order"}, ValueError, 'ties="input_order" breaks ties'),
        ({"convention": "trec_eval"}, ValueError, "convention='trec_eval' breaks"),
    ],
)
def test_options_checked_on_the_driver(spark, option, error, match):
    df = to_spark(spark, make_frame(5, n_queries=3), 2)
    with pytest.raises(error, match=match) as info:
        ranking_report(df, **COLS, **option)
    assert "_per_query_report" not in str(info.value)


def test_arrow_batch_size_restored(spark):
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    frame = make_frame(17, n_queries=8)
    before = spark.conf.get(key, None)
    spark.conf.set(key, "3")  # tiny batches: a partition spans many
    try:
        got = ranking_report(
            to_spark(spark, frame, 3), **COLS, weight_col="w", k=K, output_dict=True
        )
        assert spark.conf.get(key) == "3"
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)
    assert_same(got, in_memory(frame, output_dict=True))


def test_adaptive_partitions_for_the_job_restored(spark):
    """The report enables adaptive execution for its job (the shuffle's
    partitions coalesced from the data) and restores the session's
    settings; the values equal the in-memory report and those of a fixed
    num_partitions."""
    keys = (
        "spark.sql.adaptive.enabled",
        "spark.sql.adaptive.coalescePartitions.enabled",
    )
    before = {key: spark.conf.get(key, None) for key in keys}
    assert before[keys[0]] == "false"  # the fixture's session
    frame = make_frame(19)
    df = to_spark(spark, frame, 4)
    got = ranking_report(df, **COLS, weight_col="w", k=K, output_dict=True)
    assert {key: spark.conf.get(key, None) for key in keys} == before
    fixed = ranking_report(
        df, **COLS, weight_col="w", k=K, output_dict=True, num_partitions=5
    )
    want = in_memory(frame, output_dict=True)
    assert_same(got, want)
    assert_same(fixed, want)


def test_assume_grouped(spark):
    frame = make_frame(19, n_queries=9)
    want = in_memory(frame, output_dict=True)
    grouped = to_spark(spark, frame, 3).repartition(4, "qid")
    got = ranking_report(
        grouped, **COLS, weight_col="w", k=K, output_dict=True, assume_grouped=True
    )
    assert_same(got, want)
    # rows of queries spread over partitions: an error, never a double count
    spread = to_spark(spark, frame, 3)
    with pytest.raises(ValueError, match="more than one partition"):
        ranking_report(spread, **COLS, output_dict=True, assume_grouped=True)
    with pytest.raises(ValueError, match="cannot be combined"):
        ranking_report(grouped, **COLS, per_query=True, assume_grouped=True)
    with pytest.raises(TypeError, match="assume_grouped must be a bool"):
        ranking_report(grouped, **COLS, assume_grouped="yes")


# ---------------------------------------------------------------------------
# Beyond-accuracy metrics (item_col=): merged per-item counts and per-user
# sums equal to the in-memory report
# ---------------------------------------------------------------------------
from sklearn_rankmetrics._evaluation._state import report_plan  # noqa: E402
from tests._beyond_data import BEYOND, COUNTS, N_ITEMS, RANKING, make_log  # noqa: E402
from tests._beyond_data import K as BK  # noqa: E402
from tests._beyond_data import assert_same as assert_beyond  # noqa: E402
from tests._beyond_data import in_memory as beyond_in_memory  # noqa: E402

BCOLS = dict(query_col="user", label_col="rel", score_col="score", item_col="item")


def _log_frame(seed, ids="int", **kwargs):
    y, s, q, it, extra = make_log(seed, ids=ids, **kwargs)
    frame = pd.DataFrame({"user": q, "rel": y, "score": s, "item": it})
    return frame, extra


def _log_spark(spark, frame, n_slices):
    item = "string" if frame["item"].dtype.kind in "OUT" else "long"
    schema = f"user long, rel long, score double, item {item}"
    rows = [tuple(r) for r in frame.itertuples(index=False)]
    return spark.createDataFrame(spark.sparkContext.parallelize(rows, n_slices), schema)


@pytest.mark.parametrize("item_type", [pa.int64(), pa.string(), pa.large_string()])
def test_arrow_partitions_with_item_ids(item_type):
    """Users over three partitions, each in several Arrow batches: text ids
    numbered by Arrow and merged by label, integer ids as column numbers;
    the states add up to the in-memory report."""
    ids = "int" if pa.types.is_integer(item_type) else "str"
    frame, extra = _log_frame(13, ids=ids, n_users=40)
    if ids == "int":
        metrics, options = RANKING + BEYOND, dict(extra, unseen="one")
    else:
        metrics, options = ["ndcg", *COUNTS], {"n_items": N_ITEMS}
    plan = report_plan(BK, metrics, options)
    config = dict(
        columns=("user", "rel", "score", None),
        k=BK,
        metrics=plan.metrics,
        options=plan.options,
        item_col="item",
        beyond=plan.beyond,
    )
    schema = pa.schema(
        [("user", pa.int64()), ("rel", pa.int64()), ("score", pa.float64())]
        + [("item", item_type)]
    )
    rows = []
    for users in np.array_split(frame["user"].unique(), 3):
        part = frame[frame["user"].isin(users)]
        rows.extend(_state_rows(_batches(part, 3, schema), names=plan.names, **config))
    got = _state_of(rows, plan.names).output_dict()
    want = beyond_in_memory(
        *(frame[c].to_numpy() for c in ("rel", "score", "user", "item")),
        metrics,
        **options,
    )
    assert_beyond(got, want)


def test_merge_rows_adds_partition_states():
    """The executors' merge of the partitions' states (states with per-item
    arrays): the pickled states of several Arrow batches in one task add up
    to one row, the sum the driver would have made; a task without a state
    emits no row."""
    from sklearn_rankmetrics.spark import _merge_rows

    frame, extra = _log_frame(15, n_users=30)
    metrics, options = RANKING + BEYOND, dict(extra, unseen="one")
    plan = report_plan(BK, metrics, options)
    config = dict(
        columns=("user", "rel", "score", None),
        k=BK,
        metrics=plan.metrics,
        options=plan.options,
        item_col="item",
        beyond=plan.beyond,
    )
    rows = []
    for users in np.array_split(frame["user"].unique(), 4):
        part = frame[frame["user"].isin(users)]
        rows.extend(_state_rows(_batches(part, 2), names=plan.names, **config))
    assert len(rows) == 4
    # two tasks: the first gets three states in two batches, the second one
    first = [pa.concat_batches(rows[:2]), rows[2]]
    merged = [*_merge_rows(iter(first)), *_merge_rows(iter(rows[3:]))]
    assert [b.num_rows for b in merged] == [1, 1]
    got = _state_of(merged, plan.names).output_dict()
    on_driver = _state_of(rows, plan.names).output_dict()
    assert list(got) == list(on_driver)  # same additions in the same order:
    np.testing.assert_array_equal(list(got.values()), list(on_driver.values()))
    arrays = [frame[c].to_numpy() for c in ("rel", "score", "user", "item")]
    assert_beyond(got, beyond_in_memory(*arrays, metrics, **options))
    assert list(_merge_rows(iter([]))) == []


def test_beyond_metrics_equal_in_memory(spark):
    """Every beyond-accuracy metric beside NDCG and MAP, with ties, -inf,
    empty lists and items never recommended (int ids, the catalogue given
    by item_popularity / item_features); and text ids merged by label,
    partition by partition."""
    frame, extra = _log_frame(14, n_users=40)
    options = dict(extra, unseen="one")
    metrics = RANKING + BEYOND
    got = ranking_report(
        _log_spark(spark, frame, 3),
        **BCOLS,
        k=BK,
        metrics=metrics,
        output_dict=True,
        **options,
    )
    arrays = [frame[c].to_numpy() for c in ("rel", "score", "user", "item")]
    assert_beyond(got, beyond_in_memory(*arrays, metrics, **options))
    frame, _ = _log_frame(15, ids="str", n_users=40)
    arrays = [frame[c].to_numpy() for c in ("rel", "score", "user", "item")]
    df = _log_spark(spark, frame, 3)
    text = ranking_report(
        df, **BCOLS, k=BK, metrics=COUNTS, n_items=N_ITEMS, num_partitions=3
    )
    want = sklearn_rankmetrics.ranking_report(
        *arrays[:2],
        query_id=arrays[2],
        item_id=arrays[3],
        k=BK,
        metrics=COUNTS,
        n_items=N_ITEMS,
    )
    assert text == want


def test_beyond_metrics_refusals(spark):
    frame, extra = _log_frame(16)
    df = _log_spark(spark, frame, 2).withColumn("w", pyspark_sql.functions.lit(1.0))
    cols = {k: v for k, v in BCOLS.items() if k != "item_col"}
    with pytest.raises(ValueError, match="pass item_col="):
        ranking_report(df, **cols, metrics=["gini_index"])
    with pytest.raises(TypeError, match="item_col= is read by the beyond"):
        ranking_report(df, **BCOLS, metrics=["ndcg"])
    with pytest.raises(ValueError, match="do not take sample_weight"):
        ranking_report(df, **BCOLS, weight_col="w", metrics=["gini_index"])
    with pytest.raises(ValueError, match="no per-query value"):
        ranking_report(df, **BCOLS, metrics=["gini_index"], per_query=True)
    # an executor's error, with its message
    with pytest.raises(ValueError, match=r"column numbers in \[0, 3\)"):
        ranking_report(df, **BCOLS, metrics=["gini_index"], n_items=3)
