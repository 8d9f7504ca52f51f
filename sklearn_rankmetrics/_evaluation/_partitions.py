"""The per-partition work of the Dask and Spark integrations.

A partition arrives as a pandas DataFrame holding whole queries (the
engines shuffle rows by query first).  Its columns are checked (naming the
column and the partition) and handed to the in-memory report engine as
numpy arrays; nothing here imports pandas, Dask or Spark.
"""

import numpy as np

from .._io._columns import order_rows, partition_arrays
from ._per_query import _check_report_options
from ._state import ReportState, chunk_state

__all__ = []  # private module


def check_options(options, func):
    """Refuse an option the report does not take, naming the public
    ``func`` (not the private engine) and listing the accepted ones; check
    the values given as the metric functions do (``options``: those of the
    metrics other than beyond-accuracy, see :func:`report_plan`)."""
    options = {o: v for o, v in options.items() if o != "convention"}
    _check_report_options(options, func)


def check_item_col(item_col, beyond, func):
    """Item ids are read for the beyond-accuracy metrics alone: required
    with them, refused without."""
    if beyond is not None and item_col is None:
        raise ValueError(
            f"{func}: {', '.join(beyond.names)} need the item of each row; "
            "pass item_col= (the column of item ids)."
        )
    if beyond is None and item_col is not None:
        raise TypeError(
            f"{func}: item_col= is read by the beyond-accuracy metrics "
            "(catalog_coverage, gini_index, ...) only, and metrics has none "
            "of them; drop item_col or add them."
        )


def partition_state(
    pdf,
    *,
    columns,
    partition,
    k,
    metrics,
    options,
    tie_break=None,
    item_col=None,
    beyond=None,
):
    """The :class:`ReportState` of one partition of whole queries; an empty
    partition gives the empty state.  ``beyond`` (the plan's
    beyond-accuracy sums, or None) reads the item ids of ``item_col``."""
    if len(pdf) == 0:
        return ReportState()
    pdf = order_rows(pdf, columns[0], tie_break, partition)
    y, s, q, w, per_row = partition_arrays(pdf, columns, partition, item_col)
    return chunk_state(
        y,
        s,
        query_id=q,
        sample_weight=w,
        k=k,
        metrics=metrics,
        beyond=beyond,
        **per_row,
        **options,
    )


def partition_per_query(
    pdf, *, columns, partition, k, metrics, options, names, tie_break=None
):
    """One row per query of the partition (sorted by id): the query column
    then one float column per scorer name."""
    import pandas as pd  # only ever called on a pandas partition

    query_col = columns[0]
    if len(pdf) == 0:
        table = {query_col: pdf[query_col].iloc[:0]}
        table.update((n, np.zeros(0)) for n in names)
        return pd.DataFrame(table)
    pdf = order_rows(pdf, query_col, tie_break, partition)
    y, s, q, w, per_row = partition_arrays(pdf, columns, partition)
    state = chunk_state(
        y,
        s,
        query_id=q,
        sample_weight=w,
        k=k,
        metrics=metrics,
        per_query=True,
        **per_row,
        **options,
    )
    ids = pd.Series(state.query_id, dtype=pdf[query_col].dtype, name=query_col)
    table = {query_col: ids}
    table.update((n, state.values[:, j]) for j, n in enumerate(state.names))
    return pd.DataFrame(table)


def merge_states(states):
    """One state from a list of states (a node of the tree reduce)."""
    total = ReportState()
    for state in states:
        total = total.merge(state)
    return total


def report_output(state, *, k, output_dict, digits):
    """What ``ranking_report`` returns for the merged state."""
    if state.names is None:
        raise ValueError(
            "sklearn_rankmetrics: the DataFrame has no rows, so there is no "
            "report (check the filters that produced it)."
        )
    if output_dict:
        return state.output_dict()
    return state.text(k, digits)
