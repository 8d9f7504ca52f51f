"""Ranking reports on PySpark DataFrames.

:func:`ranking_report` computes the same values as the in-memory
:func:`sklearn_rankmetrics.ranking_report` on a
:class:`pyspark.sql.DataFrame` in the long form (one row per (query, item)
pair), where the rows of a query may be in any partitions:

1. ``repartition`` by the query column: one shuffle, after which every
   query is whole in one partition;
2. ``mapInPandas`` (Arrow batches) runs the in-memory vectorised engine on
   each partition and emits one small row per metric: the sums of
   weight * value and of weights;
3. a ``groupBy().agg(sum)`` adds the partition rows up (Spark's partial
   aggregation: a tree), and the driver collects one row per metric.

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

import functools
import re

import numpy as np

from ._frames import (
    check_columns,
    check_ties_option,
    partition_per_query,
    partition_state,
    report_output,
)
from ._state import ReportState, report_names

__all__ = ["ranking_report"]

_STATE_COLUMNS = (
    "position long, metric string, weighted_sum double, weight_sum double, "
    "n_scored long, n_queries long"
)


def _import_pyspark():
    try:
        import pyspark.sql  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "sklearn_rankmetrics.spark needs pyspark and pyarrow: "
            "pip install 'sklearn-rankmetrics[spark]'."
        ) from exc


def _partition_frame(batches):
    """The whole partition as one pandas DataFrame (None if empty)."""
    import pandas as pd

    batches = [b for b in batches if len(b)]
    if not batches:
        return None
    return batches[0] if len(batches) == 1 else pd.concat(batches, ignore_index=True)


def _partition_id():
    from pyspark import TaskContext

    context = TaskContext.get()
    return None if context is None else context.partitionId()


def _state_rows(batches, *, columns, k, metrics, options):
    """mapInPandas: the rows of one partition -> its state, one row per
    metric (nothing for an empty partition)."""
    import pandas as pd

    pdf = _partition_frame(batches)
    if pdf is None:
        return
    state = partition_state(
        pdf,
        columns=columns,
        partition=_partition_id(),
        k=k,
        metrics=metrics,
        options=options,
    )
    n = len(state.names)
    yield pd.DataFrame(
        {
            "position": range(n),
            "metric": list(state.names),
            "weighted_sum": state.weighted_sum,
            "weight_sum": state.weight_sum,
            "n_scored": state.n_scored.astype("int64"),
            "n_queries": [state.n_queries] * n,
        }
    )


def _per_query_rows(batches, *, names, **config):
    """mapInPandas: the rows of one partition -> one row per query."""
    pdf = _partition_frame(batches)
    if pdf is None:
        return
    yield partition_per_query(pdf, partition=_partition_id(), names=names, **config)


def _check_types(schema, label_col, score_col, weight_col):
    from pyspark.sql.types import BooleanType, NumericType

    for arg, col in (
        ("label_col", label_col),
        ("score_col", score_col),
        ("weight_col", weight_col),
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
    its own message, rather than the Java stack trace around it."""
    from pyspark.errors import PythonException

    if not isinstance(exc, PythonException):
        return
    found = re.findall(r"^(ValueError|TypeError): (.+)$", str(exc), re.MULTILINE)
    if found:
        kind, message = found[-1]
        error = ValueError if kind == "ValueError" else TypeError
        raise error(f"{message} (raised on a Spark executor)") from exc


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
    **options,
):
    """Report every ranking metric at every cut-off on a PySpark DataFrame.

    The same values as :func:`sklearn_rankmetrics.ranking_report` on the
    same rows (to rounding, about 1e-15 relative), computed on the
    executors: one ``repartition`` by query, ``mapInPandas`` running the
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
        Partitions of the shuffle by query (None:
        ``spark.sql.shuffle.partitions``).  Each task holds one partition
        in memory, so raise it for large data.

    **options
        The other options of :func:`sklearn_rankmetrics.ranking_report`
        (``relevance_threshold``, ``gain``, ``no_relevant``, ``beta``,
        ``log_base``, ``ap_denominator``, ``query_weighting``).
        ``ignore_ties=True`` is refused: it breaks ties by row order,
        which the shuffle does not keep.

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
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StructField, StructType

    if not isinstance(df, DataFrame):
        raise TypeError(
            f"df must be a pyspark.sql.DataFrame; got {type(df).__name__}. Use "
            "sklearn_rankmetrics.ranking_report for in-memory data, or "
            "spark.createDataFrame(...)."
        )
    cols = check_columns(
        df.columns,
        query_col=query_col,
        label_col=label_col,
        score_col=score_col,
        weight_col=weight_col,
    )
    _check_types(df.schema, label_col, score_col, weight_col)
    check_ties_option(options, "Spark")
    names = report_names(k, metrics, options)  # checks k, metrics, options
    if num_partitions is not None and (
        not isinstance(num_partitions, int) or num_partitions < 1
    ):
        raise ValueError(
            f"num_partitions must be an int >= 1 or None; got {num_partitions!r}."
        )
    selected = df.select(*cols)
    if num_partitions is None:
        by_query = selected.repartition(query_col)
    else:
        by_query = selected.repartition(num_partitions, query_col)
    config = dict(
        columns=(query_col, label_col, score_col, weight_col),
        k=k,
        metrics=metrics,
        options=options,
    )
    if per_query:
        schema = StructType(
            [df.schema[query_col]] + [StructField(n, DoubleType(), True) for n in names]
        )
        return by_query.mapInPandas(
            functools.partial(_per_query_rows, names=names, **config), schema
        )
    states = by_query.mapInPandas(
        functools.partial(_state_rows, **config), _STATE_COLUMNS
    )
    totals = states.groupBy("position", "metric").agg(
        F.sum("weighted_sum").alias("weighted_sum"),
        F.sum("weight_sum").alias("weight_sum"),
        F.sum("n_scored").alias("n_scored"),
        F.sum("n_queries").alias("n_queries"),
    )
    try:
        rows = sorted(totals.collect(), key=lambda row: row["position"])
    except Exception as exc:
        _reraise_executor_error(exc)
        raise
    state = ReportState()
    if rows:
        state = ReportState(
            names=tuple(row["metric"] for row in rows),
            weighted_sum=np.array([row["weighted_sum"] for row in rows]),
            weight_sum=np.array([row["weight_sum"] for row in rows]),
            n_queries=int(rows[0]["n_queries"]),
            n_scored=np.array([row["n_scored"] for row in rows]),
        )
        if state.names != names:  # cannot happen: every partition had them
            raise RuntimeError(f"partition states gave metrics {state.names}")
    return report_output(state, k=k, output_dict=output_dict, digits=digits)
