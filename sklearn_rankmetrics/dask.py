"""Ranking reports on Dask DataFrames.

:func:`ranking_report` computes the same values as the in-memory
:func:`sklearn_rankmetrics.ranking_report` on a :class:`dask.dataframe.DataFrame`
in the long form (one row per (query, item) pair), where the rows of a
query may be spread over any partitions:

1. the rows are shuffled by the query column once, so that every query is
   whole in one partition (skipped when the query column is the index
   with known divisions, which already guarantees it);
2. each partition is evaluated by the in-memory vectorised engine into a
   small state: per metric, the sum of weight * value and of weights;
3. the states are added up by a tree reduction, and the means computed
   from the total.

With ``per_query=True`` step 3 is skipped and a Dask DataFrame of
per-query values is returned, still distributed.

Dask is imported when the function is called, not when this module is
imported; ``pip install sklearn-rankmetrics[dask]`` installs it.  Read
more in the :ref:`User Guide <scale>`.
"""

import contextlib
import functools
import os

from ._evaluation._partitions import (
    check_item_col,
    check_options,
    merge_states,
    partition_per_query,
    partition_state,
    report_output,
)
from ._evaluation._per_query import check_per_row_options
from ._evaluation._state import report_plan
from ._io._columns import (
    check_columns,
    check_tie_break,
    check_ties_option,
    per_row_columns,
)
from ._utils._docstrings import fill_doc

__all__ = ["ranking_report"]


def _import_dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise ImportError(
            "sklearn_rankmetrics.dask needs dask[dataframe]: "
            "pip install 'sklearn-rankmetrics[dask]'."
        ) from exc
    return dask, dd


def _check_dtypes(dtypes, label_col, score_col, weight_col, **more):
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for arg, col in (
        ("label_col", label_col),
        ("score_col", score_col),
        ("weight_col", weight_col),
        *more.items(),
    ):
        if col is None:
            continue
        dtype = dtypes[col]
        if not (is_numeric_dtype(dtype) or is_bool_dtype(dtype)):
            raise TypeError(
                f"{arg}={col!r} must be a numeric (or bool) column; its dtype "
                f"is {dtype}. Cast it first, e.g. "
                f"df[{col!r}] = df[{col!r}].astype('float64')."
            )


_SHRINK = 8  # input partitions per partition after the shuffle, by default


def _by_query(df, query_col, cols, npartitions, shuffle_method):
    """``df[cols]`` with every query whole in one partition."""
    if query_col not in df.columns:  # the query ids are the index
        if df.known_divisions and npartitions is None:
            return df[cols[1:]].reset_index()  # divisions: already aligned
        df = df[cols[1:]].reset_index()
    else:
        df = df[cols]
    if npartitions is None:
        # few, larger partitions after the shuffle: fewer tasks and states
        # (5,000,000 rows in 30 partitions, bench_scale.py: 4 partitions cut
        # the report's CPU by a third, as measured in issue 19)
        npartitions = -(-df.npartitions // _SHRINK)
    return df.shuffle(
        on=query_col, npartitions=npartitions, shuffle_method=shuffle_method
    )


class _Failed:
    """A partition's clear error (bad input), carried to the client as a
    value: raised in a task, the error would first be logged by every
    distributed worker as "Compute Failed" with a traceback."""

    def __init__(self, exc):
        self.exc = exc


# glibc's mallopt parameters and values (malloc.h): M_MMAP_THRESHOLD, its
# default (128 KiB) and the largest value its dynamic threshold reaches;
# M_TRIM_THRESHOLD, held for the task at twice that (as the dynamic
# threshold does).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_DEFAULT = 128 * 1024
_MMAP_THRESHOLD_DYNAMIC_MAX = 32 * 1024 * 1024
_TRIM_THRESHOLD_TASK = 2 * _MMAP_THRESHOLD_DYNAMIC_MAX


@functools.cache
def _glibc():
    """glibc through ctypes, or None (another libc, or not Linux); looked
    up once per process."""
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    import ctypes

    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


@contextlib.contextmanager
def _engine_allocations():
    """Let glibc serve the engine's temporary arrays from the heap while a
    partition is evaluated, as it does in a plain Python process.

    Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``
    (``distributed.nanny.pre-spawn-environ``, to hand freed memory back
    to the system).  Setting any such variable turns off glibc's dynamic
    mmap threshold, so every temporary array above 128 KiB is a fresh
    ``mmap`` whose pages are faulted in and zeroed, and released at once:
    the engine measured 1.55x its CPU time in a plain process
    (``benchmarks/bench_scale.py``; 5,000,000 rows, 30 partitions).  For
    the duration of the task, the threshold is raised to the value the
    dynamic threshold reaches (32 MiB) and then set back to glibc's default,
    which is the value in force under that variable.  The trim threshold is
    held at 64 MiB for the task too, so that the heap the engine's arrays
    are freed to is not handed back to the system between them (1,000,000
    rows in a worker: 0.28 -> 0.26 CPU s, as in a plain process), then set
    back to the variable's value.  Nothing is changed where the variable is
    not set or is not a number, where ``MALLOC_MMAP_THRESHOLD_`` is (the
    user chose it), or without glibc.  The values do not depend on it.
    """
    libc = trim = None
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        try:
            trim = int(os.environ["MALLOC_TRIM_THRESHOLD_"])
        except (KeyError, ValueError):
            trim = None
    if trim is not None:
        libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_DYNAMIC_MAX)
    libc.mallopt(_M_TRIM_THRESHOLD, max(trim, _TRIM_THRESHOLD_TASK))
    try:
        yield
    finally:
        libc.mallopt(_M_TRIM_THRESHOLD, trim)
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_DEFAULT)


def _state_or_error(part, partition_info=None, **config):
    """The partition's state (or its :class:`_Failed`), as the one element
    of a pandas Series: run by ``map_partitions``, in the task that
    assembles the shuffled partition, so that only the small state leaves
    it (a separate task per partition received the whole partition:
    ``to_delayed`` of the rows cost the workers 0.1-0.3 CPU s more at
    2,000,000 rows, ``bench_scale.py``)."""
    import pandas as pd

    number = None if partition_info is None else partition_info["number"]
    try:
        with _engine_allocations():
            state = partition_state(part, partition=number, **config)
    except (ValueError, TypeError) as exc:  # our checks of the rows
        state = _Failed(exc)
    return pd.Series([state], dtype=object)


def _merge_or_error(states):
    # the leaves are _state_or_error's Series, the inner nodes states
    states = [s.iloc[0] if hasattr(s, "iloc") else s for s in states]
    for state in states:
        if isinstance(state, _Failed):
            return state
    return merge_states(states)


def _tree_reduce(dask, states, split_every):
    """Merge delayed states, ``split_every`` at a time, level by level."""
    merge = dask.delayed(_merge_or_error, pure=True)
    while len(states) > 1:
        states = [
            merge(states[i : i + split_every])
            for i in range(0, len(states), split_every)
        ]
    return states[0]


def _per_query_partition(pdf, partition_info=None, **kwargs):
    number = None if partition_info is None else partition_info["number"]
    with _engine_allocations():
        return partition_per_query(pdf, partition=number, **kwargs)


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
    npartitions=None,
    split_every=8,
    shuffle_method="tasks",
    tie_break_col=None,
    tie_break_ascending=True,
    propensity_col=None,
    item_weight_col=None,
    item_col=None,
    **options,
):
    """Report every ranking metric at every cut-off on a Dask DataFrame.

    The same values as :func:`sklearn_rankmetrics.ranking_report` on the
    same rows (to rounding, about 1e-15 relative), computed where the data
    lives: one shuffle by query, the in-memory engine on each partition,
    and a tree reduction of a few numbers per metric.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        The long form: one row per (query, item) pair, in any order and
        any partitioning.

    query_col : str
        Column of query ids (ints or strings; no nulls).  May also name
        the index; with known divisions the shuffle is then skipped.

    label_col : str
        Column of relevance grades (numeric or bool, non-negative).

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
        Return a lazy Dask DataFrame of per-query values instead (the
        query column then one column per scorer name; nan where a query is
        skipped), one partition per shuffled partition, each sorted by
        query id.  Nothing is computed or collected.

    digits : int, default=4
        Digits of the text table.

    npartitions : int, default=None
        Partitions after the shuffle by query (None: one per 8 partitions
        of ``df``, rounded up; fewer, larger partitions measured cheaper).

    split_every : int, default=8
        Fan-in of the tree reduction of the partition states.

    shuffle_method : {"tasks", "p2p", "disk"} or None, default="tasks"
        How Dask shuffles the rows by query (``shuffle_method=`` of
        :meth:`dask.dataframe.DataFrame.shuffle`; None: Dask's default,
        ``"p2p"`` on a distributed cluster).  ``"tasks"`` measured the
        cheapest on ``benchmarks/bench_scale.py`` and logs no P2P shuffle
        warnings; the values do not depend on it.

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
    report : str, dict or dask.dataframe.DataFrame
        As :func:`sklearn_rankmetrics.ranking_report`; with
        ``per_query=True``, a lazy Dask DataFrame.

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
    sklearn_rankmetrics.spark.ranking_report : On a PySpark DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from sklearn_rankmetrics.dask import ranking_report
    >>> rows = pd.DataFrame({
    ...     "user": [1, 2, 1, 2, 1, 3, 3],
    ...     "clicked": [1, 0, 0, 1, 0, 0, 1],
    ...     "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.4],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=3)  # users split over partitions
    >>> ranking_report(df, query_col="user", label_col="clicked",
    ...                score_col="score", k=2, metrics=["ndcg", "mrr"],
    ...                output_dict=True)
    {'ndcg@2': 0.8154..., 'mrr@2': 0.75}

    On a cluster, create a :class:`distributed.Client` first; the report
    then runs on its workers.
    """
    dask, dd = _import_dask()
    if not isinstance(df, dd.DataFrame):
        raise TypeError(
            f"df must be a dask.dataframe.DataFrame; got {type(df).__name__}. "
            "Use sklearn_rankmetrics.ranking_report for in-memory data, or "
            "dask.dataframe.from_pandas(df, npartitions=...)."
        )
    available = list(df.columns)
    if df.index.name is not None and df.index.name not in available:
        available.append(df.index.name)
    cols = check_columns(
        available,
        query_col=query_col,
        label_col=label_col,
        score_col=score_col,
        weight_col=weight_col,
        propensity_col=propensity_col,
        item_weight_col=item_weight_col,
        item_col=item_col,
    )
    _check_dtypes(
        df.dtypes,
        label_col,
        score_col,
        weight_col,
        propensity_col=propensity_col,
        item_weight_col=item_weight_col,
    )
    func = "sklearn_rankmetrics.dask.ranking_report"
    tie_break = check_tie_break(
        tie_break_col,
        tie_break_ascending,
        list(df.columns),
        [c for c in cols if c != item_col],  # the item id may break ties
        func,
    )
    check_ties_option(options, "Dask", tie_break_col)
    columns = (query_col, label_col, score_col, weight_col)
    columns += (propensity_col, item_weight_col)
    per_row = tuple(per_row_columns(columns))
    check_per_row_options(options, per_row, func)
    # checks k, metrics, options; the beyond-accuracy metrics' taken out
    plan = report_plan(
        k,
        metrics,
        options,
        caller=func,
        per_row=per_row,
        per_query=per_query,
        weighted=weight_col is not None,
    )
    check_options(plan.options, func)
    check_item_col(item_col, plan.beyond, func)
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an int >= 2; got {split_every!r}.")
    if shuffle_method not in ("tasks", "p2p", "disk", None):
        raise ValueError(
            'shuffle_method must be "tasks", "p2p", "disk" or None; '
            f"got {shuffle_method!r}."
        )
    if tie_break is not None and tie_break[0] not in cols:
        cols = [*cols, tie_break[0]]
    aligned = _by_query(df, query_col, cols, npartitions, shuffle_method)
    config = dict(columns=columns, k=k, metrics=plan.metrics, options=plan.options)
    if tie_break is not None:
        config["tie_break"] = tie_break
    import pandas as pd

    if per_query:
        meta = {query_col: pd.Series(dtype=aligned.dtypes[query_col])}
        meta.update((n, pd.Series(dtype="float64")) for n in plan.names)
        return aligned.map_partitions(
            _per_query_partition, meta=pd.DataFrame(meta), names=plan.names, **config
        )
    if plan.beyond is not None:
        config.update(item_col=item_col, beyond=plan.beyond)
    states = aligned.map_partitions(
        _state_or_error, meta=pd.Series(dtype=object), **config
    ).to_delayed()
    total = _tree_reduce(dask, states, split_every)
    if len(states) == 1:  # no merge node: merge the one leaf
        total = dask.delayed(_merge_or_error, pure=True)([total])
    total = total.compute()
    if isinstance(total, _Failed):
        raise total.exc
    return report_output(total, k=k, output_dict=output_dict, digits=digits)
