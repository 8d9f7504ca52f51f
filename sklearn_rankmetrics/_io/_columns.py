"""Columns of a data frame or a partition: the checks naming the column (and
the partition) and the numpy arrays of the long form.

Shared by the frame form (:mod:`._dataframe`) and the per-partition work of
the Dask and Spark integrations; nothing here imports pandas, Dask or
Spark.
"""

import sys

import numpy as np

from .._utils._conventions import CONVENTIONS
from .._utils._validation import pandas_factorize

__all__ = []  # private module


def one_array(values):
    """A pyarrow ``ChunkedArray`` as one ``Array``: its only chunk, read in
    place (``combine_chunks`` copies even a single chunk: 0.8 s for a
    column of 10,000,000 hex ids), else its chunks concatenated
    (dictionaries unified); any other value as it is.  A chunk may start
    at an offset into its buffers (a sliced table): readers of the buffers
    take ``offset`` into account."""
    pa = sys.modules.get("pyarrow")  # (no pyarrow imported: no ChunkedArray)
    if pa is None or not isinstance(values, pa.ChunkedArray):
        return values
    return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()


def check_columns(
    available,
    *,
    query_col,
    label_col,
    score_col,
    weight_col,
    propensity_col=None,
    item_weight_col=None,
    **more,
):
    """The columns to read, in order; an error listing ``available`` if one
    is missing (``more``: other keyword -> column, e.g. ``group_col``)."""
    wanted = {
        "query_col": query_col,
        "label_col": label_col,
        "score_col": score_col,
        "weight_col": weight_col,
        "propensity_col": propensity_col,
        "item_weight_col": item_weight_col,
        **more,
    }
    wanted = {arg: col for arg, col in wanted.items() if col is not None}
    for arg, col in wanted.items():
        if not isinstance(col, str):
            raise TypeError(f"{arg} must be a column name (str); got {col!r}.")
        if col not in available:
            raise ValueError(
                f"{arg}={col!r} is not a column of the DataFrame; available "
                f"columns: {', '.join(map(repr, available))}."
            )
    cols = list(dict.fromkeys(wanted.values()))
    if len(cols) < len(wanted):
        raise ValueError(
            f"{', '.join(wanted)} must name different columns; got {wanted}."
        )
    return cols


def _input_order_ties(options):
    """Why ``options`` break ties by row order (None if they do not)."""
    if options.get("ignore_ties", False):
        return "ignore_ties=True breaks ties by row order"
    if options.get("ties") == "input_order":
        return 'ties="input_order" breaks ties by row order'
    convention = options.get("convention")
    if isinstance(convention, str):
        preset = CONVENTIONS.get(convention)
        if preset is not None:
            if any(rule.get("ties") == "input_order" for rule in preset.rules()):
                return (
                    f"convention={convention!r} breaks ties by row order "
                    "(as its library does)"
                )
    return None


def check_ties_option(options, engine, tie_break_col=None, func=None):
    """Refuse options whose tie rule is the row order without
    ``tie_break_col``: a shuffle does not keep the row order, so the result
    would depend on the partitioning."""
    why = _input_order_ties(options)
    if why is not None and tie_break_col is None:
        raise ValueError(
            f"{why}, which {engine}'s shuffle by query does not keep; tied "
            "scores would be ordered differently from one partitioning to "
            "the next. Pass tie_break_col= (a column unique within each "
            "query, such as the document id; the rows of each query are "
            "sorted by it before ranking, tie_break_ascending=False for a "
            "decreasing order as trec_eval's), or count ties exactly (the "
            "default ties='expected')."
        )


def check_tie_break(tie_break_col, tie_break_ascending, available, columns, func):
    """``(column, ascending)`` or None: the checked ``tie_break_col``."""
    if not isinstance(tie_break_ascending, (bool, np.bool_)):
        raise TypeError(
            f"{func}: tie_break_ascending must be True or False; got "
            f"{tie_break_ascending!r}."
        )
    if tie_break_col is None:
        return None
    if not isinstance(tie_break_col, str):
        raise TypeError(
            f"{func}: tie_break_col must be a column name (str) or None; got "
            f"{tie_break_col!r}."
        )
    if tie_break_col not in available:
        raise ValueError(
            f"{func}: tie_break_col={tie_break_col!r} is not a column of the "
            f"DataFrame; available columns: {', '.join(map(repr, available))}."
        )
    if tie_break_col in columns:
        raise ValueError(
            f"{func}: tie_break_col={tie_break_col!r} is already the query, "
            "label, score or weight column; name a column that identifies "
            "the item, such as the document id."
        )
    return tie_break_col, bool(tie_break_ascending)


def _duplicate_tie_break(query_col, tie_break_col, partition):
    return _error(
        f"column {tie_break_col!r} (tie_break_col) repeats a value within a "
        f"query of {query_col!r}{{where}}; it must identify the rows of a "
        "query (e.g. the document id), or the order of tied scores would "
        "still depend on the partitioning.",
        partition,
    )


def order_rows(pdf, query_col, tie_break, partition):
    """The pandas partition ``pdf`` with the rows of each query sorted by
    the tie-break column (``tie_break``: ``(column, ascending)`` or None)."""
    if tie_break is None or len(pdf) == 0:
        return pdf
    col, ascending = tie_break
    check_nulls({col: int(pdf[col].isna().sum())}, query_col, partition)
    if pdf.duplicated([query_col, col]).any():
        raise _duplicate_tie_break(query_col, col, partition)
    # the engine reads the rows of a query in the order they come
    return pdf.sort_values(col, ascending=ascending, kind="stable")


def order_arrow_rows(table, query_col, tie_break, partition):
    """:func:`order_rows` of a ``pyarrow.Table``."""
    if tie_break is None or table.num_rows == 0:
        return table
    import pyarrow.compute as pc

    col, ascending = tie_break
    check_nulls({col: table.column(col).null_count}, query_col, partition)
    order = "ascending" if ascending else "descending"
    table = table.take(pc.sort_indices(table, [(query_col, "ascending"), (col, order)]))
    q, t = table.column(query_col), table.column(col)
    n = table.num_rows
    same = pc.and_(
        pc.equal(q.slice(1), q.slice(0, n - 1)),
        pc.equal(t.slice(1), t.slice(0, n - 1)),
    )
    if n > 1 and pc.any(same).as_py():
        raise _duplicate_tie_break(query_col, col, partition)
    return table


def _error(message, partition):
    where = "" if partition is None else f" in partition {partition}"
    return ValueError(f"sklearn_rankmetrics: {message.format(where=where)}")


def check_nulls(null_counts, query_col, partition, first_rows=None):
    """An error naming the first column (and the partition) with nulls;
    ``null_counts`` maps column name -> number of nulls, ``first_rows``
    (optional) column name -> the row of its first null."""
    for col, n_null in null_counts.items():
        if n_null:
            fix = (
                "every row needs a query id"
                if col == query_col
                else "fill them or filter those rows out"
            )
            if first_rows and col in first_rows:
                n_null = f"{n_null} null value(s) (the first at row {first_rows[col]})"
            else:
                n_null = f"{n_null} null value(s)"
            raise _error(
                f"column {col!r} has {n_null}{{where}}; {fix} "
                f"(e.g. df.dropna(subset=[{col!r}])).",
                partition,
            )


def not_numeric_error(col, dtype, partition):
    return TypeError(
        f"sklearn_rankmetrics: column {col!r} must be numeric (bool, "
        f"int or float); got dtype {dtype}"
        + ("" if partition is None else f" in partition {partition}")
        + ". Cast it, e.g. with .astype('float64')."
    )


def _numeric(series, col, partition):
    arr = series.to_numpy()
    if arr.dtype.kind == "O" or not isinstance(arr.dtype, np.dtype):
        try:  # pandas extension dtypes (nullable ints, Arrow doubles)
            arr = series.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise not_numeric_error(col, series.dtype, partition) from None
    return arr


def per_row_columns(columns):
    """``{"propensity": column, "item_weight": column}`` of the columns
    given (``columns``: query, label, score, weight, then optionally the
    propensity and item-weight columns, None where absent)."""
    extra = tuple(columns[4:]) + (None,) * (6 - len(columns))
    names = ("propensity", "item_weight")
    return {n: col for n, col in zip(names, extra, strict=True) if col is not None}


def partition_arrays(pdf, columns, partition, item_col=None):
    """``(y_true, y_score, query_id, sample_weight, per_row)`` of a pandas
    partition (``per_row``: a dict of the propensity and item-weight arrays
    given, see :func:`per_row_columns`, and with ``item_col`` its item ids
    as ``"item_id"``), with an error naming the column and the partition
    for a null value."""
    query_col, label_col, score_col, weight_col = columns[:4]
    per_row = per_row_columns(columns)
    used = [query_col, label_col, score_col] + (
        [] if weight_col is None else [weight_col]
    )
    used += list(per_row.values())
    used += [] if item_col is None else [item_col]
    check_nulls({col: int(pdf[col].isna().sum()) for col in used}, query_col, partition)
    y = _numeric(pdf[label_col], label_col, partition)
    s = _numeric(pdf[score_col], score_col, partition)
    w = None if weight_col is None else _numeric(pdf[weight_col], weight_col, partition)
    q = pdf[query_col].to_numpy()
    arrays = {n: _numeric(pdf[col], col, partition) for n, col in per_row.items()}
    if item_col is not None:
        arrays["item_id"] = _item_ids(pdf[item_col])
    return y, s, q, w, arrays


def _item_ids(series):
    """A pandas column of item ids: a numpy array, or for a text column
    ``(codes, sorted labels)`` numbered by pandas (hashing, rather than
    ``np.unique`` comparing Python strings)."""
    import pandas as pd  # only ever called on a pandas partition

    if isinstance(series.dtype, pd.StringDtype):
        codes, labels = pandas_factorize(pd, series, sort=True)
        return codes.astype(np.intp, copy=False), np.asarray(labels, dtype=object)
    return series.to_numpy()
