"""Ranking reports on PySpark DataFrames.

:func:`ranking_report` computes the same values as the in-memory
:func:`sklearn_rankmetrics.ranking_report` on a
:class:`pyspark.sql.DataFrame` in the long form (one row per (query, item)
pair), where the rows of a query may be in any partitions:

1. ``repartition`` by the query column: one shuffle, after which every
   query is whole in one partition;
2. ``mapInArrow`` runs the in-memory vectorised engine on each partition
   (its Arrow columns as numpy arrays, without pandas) and emits one small
   row: the partition's state (per metric, the sums of weight * value and
   of weights; per-item counts for the beyond-accuracy metrics), pickled;
3. the states are added up as :class:`~sklearn_rankmetrics.RankingEvaluator`
   and the Dask report add them: the driver collects the partitions' rows
   (a few numbers each); with beyond-accuracy metrics, whose states hold
   per-item arrays, the executors first add them up in a stage of their
   own (one task per core) and the driver receives one per core.

No row of data is collected to the driver and no Python code loops over
queries.  With ``per_query=True`` step 3 is skipped and a Spark DataFrame
of per-query values is returned, still distributed.  Every partition's
output is a pure function of its rows, so a retried task gives the same
numbers.

PySpark is imported when the function is called, not when this module is
imported; ``pip install sklearn-rankmetrics[spark]`` installs it, and the
package must be importable by the executors' Python.  Read more in the
:ref:`User Guide <scale>`.
"""

import contextlib
import functools
import pickle
import re

import numpy as np

from ._evaluation._partitions import check_item_col, check_options, report_output
from ._evaluation._per_query import check_per_row_options
from ._evaluation._state import ReportState, chunk_state, report_plan
from ._io._columns import (
    check_columns,
    check_nulls,
    check_tie_break,
    check_ties_option,
    not_numeric_error,
    order_arrow_rows,
    per_row_columns,
)
from ._utils._docstrings import fill_doc

__all__ = ["ranking_report"]


# One row per partition: its ReportState, pickled (the driver adds them up
# with ReportState.merge, as every other surface).
_STATE_SCHEMA = "state binary"


_FUNC = "sklearn_rankmetrics.spark.ranking_report"


def _import_pyspark():
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "sklearn_rankmetrics.spark needs pyspark and pyarrow: "
            "pip install 'sklearn-rankmetrics[spark]'."
        ) from exc


def _partition_table(batches):
    """The whole partition as one ``pyarrow.Table`` (None if empty)."""
    import pyarrow as pa

    batches = [b for b in batches if b.num_rows]
    return pa.Table.from_batches(batches) if batches else None


def _partition_id():
    from pyspark import TaskContext

    context = TaskContext.get()
    return None if context is None else context.partitionId()


def _arrow_numeric(column, col, partition):
    """A label, score or weight column (a ``pyarrow.ChunkedArray`` without
    nulls) as a numpy array: bool, int and float as they are, decimals as
    float64 (as pandas would have)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = column.type
    if pa.types.is_decimal(dtype):
        column = pc.cast(column, pa.float64())
    elif not (
        pa.types.is_integer(dtype)
        or pa.types.is_floating(dtype)
        or pa.types.is_boolean(dtype)
    ):
        raise not_numeric_error(col, dtype, partition)
    return column.to_numpy()


def _arrow_items(column):
    """A column of item ids (no nulls) as a numpy array, or for a text
    column ``(codes, sorted labels)`` numbered by Arrow (hashing, rather
    than ``np.unique`` comparing Python strings); Arrow orders text by its
    UTF-8 bytes, which is the order of Python's strings (code points)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype = column.type
    if not (
        pa.types.is_string(dtype)
        or pa.types.is_large_string(dtype)
        or pa.types.is_string_view(dtype)
    ):
        return column.to_numpy()
    encoded = pc.dictionary_encode(column.combine_chunks())
    order = pc.array_sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    labels = encoded.dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False)
    codes = rank[encoded.indices.to_numpy()]
    return codes, np.asarray(labels, dtype=object)


def _arrow_arrays(table, columns, partition, item_col=None):
    """``(y_true, y_score, query_codes, sample_weight, ids, per_row)`` of a
    partition of whole queries, read from its Arrow columns without pandas
    (``per_row``: the propensity and item-weight arrays given, by name).

    String query ids are replaced by integer codes (``dictionary_encode``):
    the engine only groups rows by query, and grouping small ints is much
    cheaper than ``np.unique`` over Python strings.  ``ids`` maps a code
    back to its id (None for integer ids, which are used as they are).
    With ``item_col``, ``per_row["item_id"]`` holds the item ids
    (:func:`_arrow_items`).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    query_col, label_col, score_col, weight_col = columns[:4]
    per_row = per_row_columns(columns)
    used = [query_col, label_col, score_col] + (
        [] if weight_col is None else [weight_col]
    )
    used += list(per_row.values())
    used += [] if item_col is None else [item_col]
    check_nulls(
        {col: table.column(col).null_count for col in used}, query_col, partition
    )
    y = _arrow_numeric(table.column(label_col), label_col, partition)
    s = _arrow_numeric(table.column(score_col), score_col, partition)
    w = (
        None
        if weight_col is None
        else _arrow_numeric(table.column(weight_col), weight_col, partition)
    )
    per_row = {
        n: _arrow_numeric(table.column(col), col, partition)
        for n, col in per_row.items()
    }
    if item_col is not None:
        per_row["item_id"] = _arrow_items(table.column(item_col))
    query = table.column(query_col)
    if pa.types.is_integer(query.type):
        return y, s, query.to_numpy(), w, None, per_row
    encoded = pc.dictionary_encode(query.combine_chunks())
    return y, s, encoded.indices.to_numpy(), w, encoded.dictionary, per_row


def _arrow_state(
    table,
    *,
    columns,
    partition,
    k,
    metrics,
    options,
    per_query,
    tie_break=None,
    item_col=None,
    beyond=None,
):
    table = order_arrow_rows(table, columns[0], tie_break, partition)
    y, s, q, w, ids, per_row = _arrow_arrays(table, columns, partition, item_col)
    state = chunk_state(
        y,
        s,
        query_id=q,
        sample_weight=w,
        k=k,
        metrics=metrics,
        per_query=per_query,
        beyond=beyond,
        **per_row,
        **options,
    )
    return state, ids


# mapInArrow rather than mapInPandas: the columns go from Arrow to numpy
# without a pandas DataFrame.  On bench_scale.py (4,000,000 rows in 16
# partitions, local[2], three interleaved runs each) the Python workers
# used 3.0 instead of 3.45 CPU s (median), about 4 % of the report's ~10
# CPU s; the rest is mostly the JVM's (Parquet decoding, the shuffle, rows
# to Arrow) -- see doc/user_guide/scale.rst.
def _state_rows(batches, *, names, **config):
    """mapInArrow: the rows of one partition -> its state as one row, pickled
    (nothing for an empty partition)."""
    import pyarrow as pa

    table = _partition_table(batches)
    if table is None:
        return
    state, _ = _arrow_state(table, partition=_partition_id(), per_query=False, **config)
    if state.names != names:  # cannot happen: the names come from report_plan
        raise RuntimeError(f"partition state gave metrics {state.names}")
    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    yield pa.RecordBatch.from_pydict({"state": pa.array([data], pa.binary())})


def _add_row(total, row):
    """``(state, number of rows)`` with one row's state added."""
    return total[0].merge(pickle.loads(row[0])), total[1] + 1


def _merge_rows(batches):
    """mapInArrow: the pickled states of some partitions -> their sum as one
    row (nothing if none), unpickled one at a time."""
    import pyarrow as pa

    total = None
    for batch in batches:
        for data in batch.column(0).to_pylist():
            state = pickle.loads(data)
            total = state if total is None else total.merge(state)
    if total is None:
        return
    data = pickle.dumps(total, protocol=pickle.HIGHEST_PROTOCOL)
    yield pa.RecordBatch.from_pydict({"state": pa.array([data], pa.binary())})


def _merged_state(states, tree):
    """The partitions' states (the rows of ``states``) added up on the
    driver, and the number of rows it received (0: no row in any
    partition).  With ``tree`` (states with per-item arrays), the executors
    first add them up in a stage of their own, one task per core holding
    one state at a time, and the driver receives one state per core.

    (``treeAggregate`` over ``states.rdd`` ran its Python code in the
    engine's tasks, beside the Arrow worker: a second Python worker per
    task, started afresh by the report -- 2-3 processes and about 1 CPU s
    at 2,000,000 rows on 2 cores, ``benchmarks/bench_scale.py``.)"""
    if tree:
        cores = states.sparkSession.sparkContext.defaultParallelism
        states = states.repartition(cores).mapInArrow(_merge_rows, _STATE_SCHEMA)
    total = (ReportState(), 0)
    for row in states.collect():
        total = _add_row(total, row)
    return total


def _per_query_rows(batches, *, names, **config):
    """mapInArrow: the rows of one partition -> one row per query (the
    query column as it came, then one double column per scorer name)."""
    import pyarrow as pa

    table = _partition_table(batches)
    if table is None:
        return
    query_col = config["columns"][0]
    state, ids = _arrow_state(
        table, partition=_partition_id(), per_query=True, **config
    )
    if state.names != names:  # cannot happen: the names come from report_names
        raise RuntimeError(f"partition state gave metrics {state.names}")
    query_type = table.schema.field(query_col).type
    if ids is None:
        query = pa.array(state.query_id, query_type)
    else:
        query = ids.take(pa.array(state.query_id))
    columns = {query_col: query}
    columns.update(
        (n, pa.array(state.values[:, j], pa.float64())) for j, n in enumerate(names)
    )
    yield pa.RecordBatch.from_pydict(columns)


def _check_types(schema, label_col, score_col, weight_col, **more):
    from pyspark.sql.types import BooleanType, NumericType

    for arg, col in (
        ("label_col", label_col),
        ("score_col", score_col),
        ("weight_col", weight_col),
        *more.items(),
    ):
        if col is None:
            continue
        dtype = schema[col].dataType
        if not isinstance(dtype, (NumericType, BooleanType)):
            raise TypeError(
                f"{arg}={col!r} must be a numeric (or boolean) column; its type "
                f"is {dtype.simpleString()}. Cast it first, e.g. "
                f"df.withColumn({col!r}, df[{col!r}].cast('double'))."
            )


def _reraise_executor_error(exc):
    """Raise the ``ValueError`` / ``TypeError`` a Spark executor raised, with
    its own message, rather than the Java stack trace around it (a
    ``PythonException``, or the Java error wrapping one when the rows are
    fetched partition by partition)."""
    from pyspark.errors import PythonException

    if not isinstance(exc, PythonException) and (
        "org.apache.spark.api.python.PythonException" not in str(exc)
    ):
        return
    found = re.findall(r"^(ValueError|TypeError): (.+)$", str(exc), re.MULTILINE)
    if found:
        kind, message = found[-1]
        error = ValueError if kind == "ValueError" else TypeError
        raise error(f"{message} (raised on a Spark executor)") from exc


@fill_doc
def ranking_report(
    df,
    *,
    query_col,
    label_col,
    score_col,
    weight_col=None,
    k=(1, 5, 10, 20),
    metrics=None,
    output_dict=False,
    per_query=False,
    digits=4,
    num_partitions=None,
    assume_grouped=False,
    tie_break_col=None,
    tie_break_ascending=True,
    propensity_col=None,
    item_weight_col=None,
    item_col=None,
    **options,
):
    """Report every ranking metric at every cut-off on a PySpark DataFrame.

    The same values as :func:`sklearn_rankmetrics.ranking_report` on the
    same rows (to rounding, about 1e-15 relative), computed on the
    executors: one ``repartition`` by query, ``mapInArrow`` running the
    in-memory engine on each partition, and a sum of a few numbers per
    metric.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The long form: one row per (query, item) pair, in any order and
        any partitioning.

    query_col : str
        Column of query ids (integers or strings; no nulls).

    label_col : str
        Column of relevance grades (numeric or boolean, non-negative).

    score_col : str
        Column of predicted scores (numeric; ``-inf``: not retrieved).

    weight_col : str, default=None
        Column of row weights, constant within a query (the query's
        weight), as ``sample_weight`` of the in-memory report.

    k : int or sequence of int, default=(1, 5, 10, 20)
        The cut-offs.

    metrics : list of str, default=None
        Metric names without ``@k``; None: every metric, GAUC included.

    output_dict : bool, default=False
        Return a dict ``{"ndcg@10": float, ...}`` instead of the text
        table.

    per_query : bool, default=False
        Return a lazy Spark DataFrame of per-query values instead: the
        query column, then one double column per scorer name (``ndcg@10``
        ...; quote such names with backticks in SQL), null/NaN where a
        query is skipped.  Nothing is computed or collected.

    digits : int, default=4
        Digits of the text table.

    num_partitions : int, default=None
        Partitions of the shuffle by query (None: sized from the data --
        ``spark.sql.shuffle.partitions`` coalesced by adaptive execution,
        enabled for the job, into partitions of about
        ``spark.sql.adaptive.advisoryPartitionSizeInBytes``, 64 MB by
        default).  Each task holds one partition in memory.

    assume_grouped : bool, default=False
        The rows of every query are already in one partition of ``df``
        (e.g. a table written partitioned or bucketed by query): skip the
        shuffle by query.  Verified: the sum of the partitions' numbers of
        queries must equal the number of distinct query ids (one count
        over the query column), else a ``ValueError`` -- a query is never
        counted twice.  Not with ``per_query=True`` or ``num_partitions``.

    %(frame_row_columns)s

    %(frame_item_col)s

    **options
        The other options of :func:`sklearn_rankmetrics.ranking_report`
        (``convention``, ``ties``, ``relevance_threshold``, ``gain``,
        ``no_relevant``, ``beta``, ``log_base``, ``ap_denominator``, ...;
        with ``propensity_col``, ``average="micro"`` for the pooled
        estimates; with the beyond-accuracy metrics, theirs:
        ``item_popularity``, ``item_features``, ``n_items``, ...).

    Returns
    -------
    report : str, dict or pyspark.sql.DataFrame
        As :func:`sklearn_rankmetrics.ranking_report`; with
        ``per_query=True``, a lazy Spark DataFrame.

    Raises
    ------
    ValueError
        A missing column (the message lists the available ones), a null
        in the query, label, score or weight column (naming the column
        and the partition), or a DataFrame without rows.
    TypeError
        A label, score or weight column that is not numeric.

    See Also
    --------
    sklearn_rankmetrics.ranking_report : The in-memory report.
    sklearn_rankmetrics.RankingEvaluator : Chunk by chunk, on one machine.
    sklearn_rankmetrics.dask.ranking_report : On a Dask DataFrame.

    Notes
    -----
    PySpark 4 supports pandas >= 2.2; with pandas 3 it emits a
    ``FutureWarning`` ("PySpark does not yet fully support pandas >=
    3.0.0"), and this function is tested with pandas 3.1 and PySpark 4.3.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> from sklearn_rankmetrics.spark import ranking_report
    >>> spark = SparkSession.builder.getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame(  # doctest: +SKIP
    ...     [(1, 1, 0.9), (2, 0, 0.8), (1, 0, 0.7), (2, 1, 0.6), (1, 0, 0.5),
    ...      (3, 0, 0.4), (3, 1, 0.4)],
    ...     "user long, clicked long, score double",
    ... )
    >>> ranking_report(df, query_col="user", label_col="clicked",
    ...                score_col="score", k=2, metrics=["ndcg", "mrr"],
    ...                output_dict=True)  # doctest: +SKIP
    {'ndcg@2': 0.8154..., 'mrr@2': 0.75}
    """
    _import_pyspark()
    from pyspark.sql.types import DoubleType, StructField, StructType

    columns = (query_col, label_col, score_col, weight_col)
    columns += (propensity_col, item_weight_col)
    cols, tie_break, plan = _check_request(
        df,
        columns,
        item_col,
        tie_break_col,
        tie_break_ascending,
        k,
        metrics,
        options,
        per_query,
    )
    _check_partitioning(num_partitions, assume_grouped, per_query)
    extra = [] if tie_break is None or tie_break[0] in cols else [tie_break[0]]
    selected = df.select(*cols, *extra)
    if assume_grouped:
        by_query = selected
    elif num_partitions is None:
        by_query = selected.repartition(query_col)
    else:
        by_query = selected.repartition(num_partitions, query_col)
    config = dict(columns=columns, k=k, metrics=plan.metrics, options=plan.options)
    if tie_break is not None:
        config["tie_break"] = tie_break
    if plan.beyond is not None:
        config.update(item_col=item_col, beyond=plan.beyond)
    names = plan.names
    if per_query:
        schema = StructType(
            [df.schema[query_col]] + [StructField(n, DoubleType(), True) for n in names]
        )
        return by_query.mapInArrow(
            functools.partial(_per_query_rows, names=names, **config), schema
        )
    states = by_query.mapInArrow(
        functools.partial(_state_rows, names=names, **config), _STATE_SCHEMA
    )
    settings = _job_settings(adaptive=not assume_grouped and num_partitions is None)
    with _session_settings(df.sparkSession.conf, settings):
        try:
            # One row per partition, added up on the driver (no stage of
            # its own, unlike an aggregate); states with per-item arrays
            # added up by the executors first.
            state, n_partitions = _merged_state(states, plan.beyond is not None)
        except Exception as exc:
            _reraise_executor_error(exc)
            raise
    if assume_grouped and n_partitions:
        _check_grouped(selected, query_col, state.n_queries)
    return report_output(state, k=k, output_dict=output_dict, digits=digits)


def _check_request(
    df,
    columns,
    item_col,
    tie_break_col,
    tie_break_ascending,
    k,
    metrics,
    options,
    per_query,
):
    """The checks of :func:`ranking_report` before any Spark job: the
    DataFrame, its columns and their types, the tie-break column and the
    report's plan.  ``(cols, tie_break, plan)``: the columns to select,
    the checked tie-break and the :func:`report_plan` (the beyond-accuracy
    metrics taken out)."""
    from pyspark.sql import DataFrame

    if not isinstance(df, DataFrame):
        raise TypeError(
            f"df must be a pyspark.sql.DataFrame; got {type(df).__name__}. Use "
            "sklearn_rankmetrics.ranking_report for in-memory data, or "
            "spark.createDataFrame(...)."
        )
    query_col, label_col, score_col, weight_col, propensity_col, item_weight_col = (
        columns
    )
    cols = check_columns(
        df.columns,
        query_col=query_col,
        label_col=label_col,
        score_col=score_col,
        weight_col=weight_col,
        propensity_col=propensity_col,
        item_weight_col=item_weight_col,
        item_col=item_col,
    )
    _check_types(
        df.schema,
        label_col,
        score_col,
        weight_col,
        propensity_col=propensity_col,
        item_weight_col=item_weight_col,
    )
    tie_break = check_tie_break(
        tie_break_col,
        tie_break_ascending,
        df.columns,
        [c for c in cols if c != item_col],  # the item id may break ties
        _FUNC,
    )
    check_ties_option(options, "Spark", tie_break_col)
    per_row = tuple(per_row_columns(columns))
    check_per_row_options(options, per_row, _FUNC)
    plan = report_plan(
        k,
        metrics,
        options,
        caller=_FUNC,
        per_row=per_row,
        per_query=per_query,
        weighted=weight_col is not None,
    )
    check_options(plan.options, _FUNC)
    check_item_col(item_col, plan.beyond, _FUNC)
    return cols, tie_break, plan


def _check_partitioning(num_partitions, assume_grouped, per_query):
    if num_partitions is not None and (
        not isinstance(num_partitions, int) or num_partitions < 1
    ):
        raise ValueError(
            f"num_partitions must be an int >= 1 or None; got {num_partitions!r}."
        )
    if assume_grouped not in (True, False):
        raise TypeError(f"assume_grouped must be a bool; got {assume_grouped!r}.")
    if assume_grouped and (per_query or num_partitions is not None):
        raise ValueError(
            "assume_grouped=True cannot be combined with per_query=True or "
            "num_partitions (it keeps df's partitions and verifies them when "
            "the report is computed); drop one of them."
        )


def _job_settings(adaptive):
    """The session settings of the report's job."""
    # Arrow batches of 1M rows for this job rather than Spark's 10,000:
    # fewer hand-offs to the Python workers (issue 19 measured 5.14 -> 4.30
    # CPU s with 2 shuffle partitions).
    settings = {"spark.sql.execution.arrow.maxRecordsPerBatch": "1000000"}
    if adaptive:
        # Partitions after the shuffle sized from the data: adaptive
        # execution coalesces the session's shuffle partitions into about
        # 64 MB ones (at least one per core).  Each Python task costs ~45
        # ms, so fewer, larger ones are cheaper: bench_scale.py, 5,000,000
        # rows, 2 cores, 30 shuffle partitions: 11.0 CPU s (1.37x its
        # floor), with 2 partitions 6.6 (1.11x) -- benchmarks/README.md.
        settings["spark.sql.adaptive.enabled"] = "true"
        settings["spark.sql.adaptive.coalescePartitions.enabled"] = "true"
    return settings


@contextlib.contextmanager
def _session_settings(conf, settings):
    """The session's ``conf`` with ``settings`` for the block, restored
    after it."""
    previous = {key: conf.get(key, None) for key in settings}
    for key, value in settings.items():
        conf.set(key, value)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


def _check_grouped(selected, query_col, n_queries):
    """``assume_grouped=True`` verified: the partitions' numbers of queries
    add up to the number of distinct query ids."""
    n_distinct = selected.select(query_col).distinct().count()
    if n_queries != n_distinct:
        raise ValueError(
            "assume_grouped=True, but the rows of some queries are in "
            f"more than one partition of df ({n_queries} "
            f"queries counted over the partitions, {n_distinct} distinct "
            "query ids); nothing was reported. Drop assume_grouped (the "
            "report then shuffles by query) or write df grouped by query "
            f"(e.g. df.repartition({query_col!r}))."
        )
