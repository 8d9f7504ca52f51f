"""Data frames by column name: pandas, polars and pyarrow through narwhals.

Every surface that takes the long form (the metric functions,
:func:`ranking_report`, :func:`compare_rankings`, :func:`calibration_report`,
:meth:`RankingEvaluator.update`) also takes a data frame and the names of
its columns, with the keywords of :func:`sklearn_rankmetrics.dask.ranking_report`
and :func:`sklearn_rankmetrics.spark.ranking_report` (``query_col``,
``label_col``, ``score_col``, ``weight_col``, ...): the columns are read
into the arrays of the long form and the array code runs on them, so the
values are those of the array form, bit for bit.

- Frames are recognised by the module of their type (``pandas``,
  ``polars``, ``pyarrow``, ...), so nothing here imports a frame library
  for array input.  narwhals (which scikit-learn >= 1.8 depends on) is
  imported when a frame is given; without it, an ImportError says
  ``pip install narwhals``.
- A polars ``LazyFrame`` is collected once, its used columns only.
- Numeric columns are read as numpy arrays, without a copy where the
  library keeps them contiguous (numpy-backed pandas columns, polars and
  Arrow columns of one chunk without nulls).
- Text and categorical query ids are numbered once (a hash pass: pandas'
  ``factorize``, Arrow's ``dictionary_encode``) in the order of
  ``np.unique`` of the ids, so the engine groups small ints and its
  per-query output keeps the order of the array form; the ids are put
  back where the output shows them.  Integer ids are passed as they are.
- A null cell is an error naming the column and the first row.
"""

import functools
import sys
import textwrap
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .._utils import _validation
from .._utils._validation import (
    _factorize_fixed_width,
    _is_missing,
    _number,
    _query_groups,
    check_query_id,
    mark_numbered,
    pandas_factorize,
    sorted_numbering,
    str_order,
)
from ._columns import (
    _duplicate_tie_break,
    check_columns,
    check_nulls,
    check_tie_break,
    not_numeric_error,
    one_array,
)

__all__ = []  # private module

# keyword of the frame form -> argument of the array form
FRAME_ARGUMENTS = {
    "query_col": "query_id",
    "label_col": "y_true",
    "score_col": "y_score",
    "weight_col": "sample_weight",
    "propensity_col": "propensity",
    "item_weight_col": "item_weight",
    "item_col": "item_id",
    "group_col": "groups",
    "item_group_col": "item_groups",
}
# every keyword that selects the frame form
FRAME_KEYWORDS = (*FRAME_ARGUMENTS, "tie_break_col")
_NUMERIC = ("y_true", "y_score", "sample_weight", "propensity", "item_weight")
# libraries whose frames are read here, and the engines of their own
_EAGER = ("pandas", "polars", "pyarrow", "narwhals", "modin", "cudf")
_ENGINES = {"dask": "dask", "dask_expr": "dask", "pyspark": "spark"}


class EncodedIds(NamedTuple):
    """Ids numbered in the order of ``np.unique(ids)``: ``uniques[codes]``
    are the ids of the rows."""

    codes: np.ndarray  # intp, one per row
    uniques: np.ndarray  # the distinct ids, sorted


def frame_library(x):
    """``"frame"`` for a pandas, polars or pyarrow table (eager or lazy),
    ``"dask"`` or ``"spark"`` for those engines' frames, else None; read
    from the type's module, without importing any of them."""
    cls = type(x)
    top = cls.__module__.partition(".")[0]
    if top in _ENGINES:
        return _ENGINES[top] if cls.__name__ == "DataFrame" else None
    if top in _EAGER and cls.__name__ in ("DataFrame", "LazyFrame", "Table"):
        return "frame"
    return None


def import_narwhals(caller):
    try:
        import narwhals.stable.v2 as nw
    except ImportError:
        try:
            import narwhals as nw
        except ImportError:
            raise ImportError(
                f"{caller}: reading a data frame by column name needs narwhals "
                "(scikit-learn >= 1.8 installs it): pip install narwhals. Or "
                "pass the columns as arrays (df[col].to_numpy())."
            ) from None
    return nw


def split_columns(options):
    """``(columns, options)``: the frame keywords given in ``options`` (a
    dict, not modified) and the rest."""
    columns = {k: options[k] for k in FRAME_KEYWORDS if k in options}
    rest = {k: v for k, v in options.items() if k not in FRAME_KEYWORDS}
    return columns, rest


def check_frame_call(frame, y_score, columns, caller, second="y_score"):
    """TypeError unless ``frame`` is a data frame given with ``label_col``
    and without the second array (``y_score``)."""
    kind = frame_library(frame)
    given = {k: v for k, v in columns.items() if v is not None}
    if kind is None:
        if not given:
            raise TypeError(
                f"{caller}() missing {second}: pass y_true and {second} as "
                "arrays, or a data frame (pandas, polars, pyarrow) with "
                "label_col=, score_col= (and query_col=) naming its columns."
            )
        raise TypeError(
            f"{caller}: {', '.join(f'{k}=' for k in given)} name(s) columns of "
            "a data frame (pandas, polars or pyarrow), but the first argument "
            f"is a {type(frame).__name__}; pass the frame, or the arrays "
            f"without the column names."
        )
    if y_score is not None:
        raise TypeError(
            f"{caller}: got a data frame and {second}; with a frame, name its "
            "columns (label_col=, score_col=, query_col=, ...) instead of "
            f"passing {second}."
        )
    for required in ("label_col", "score_col"):
        if given.get(required) is None and required in columns:
            raise TypeError(
                f"{caller}: a data frame needs {required}= (the column of "
                f"{'relevance grades' if required == 'label_col' else 'scores'})"
                f"; its columns: {', '.join(map(repr, frame_columns(frame)))}."
            )
    return kind


def frame_columns(frame):
    """The column names of an eager or lazy frame (for messages)."""
    try:
        nw = import_narwhals("sklearn_rankmetrics")
        df = nw.from_native(frame)
        if hasattr(df, "collect_schema"):
            return list(df.collect_schema().names())
        return list(df.columns)
    except Exception:  # pragma: no cover - only for an error message
        return list(getattr(frame, "columns", []))


def _eager(frame, names, caller):
    """The narwhals DataFrame of ``frame``'s columns ``names`` (a lazy
    frame collected once, those columns only)."""
    nw = import_narwhals(caller)
    df = nw.from_native(frame)
    if isinstance(df, nw.LazyFrame):
        df = df.select(list(names)).collect()
    return nw, df


def _first_null(series):
    return int(series.is_null().arg_true().to_numpy()[0])


def _numeric(series, nw, col, arg):
    """A label, score or weight column as a numpy array."""

    dtype = series.dtype
    if not (dtype.is_numeric() or dtype == nw.Boolean):
        raise not_numeric_error(col, dtype, None)
    arr = series.to_numpy()
    if arr.dtype.kind == "O":  # decimals
        arr = arr.astype(np.float64)
    nan = np.flatnonzero(np.isnan(arr)) if arr.dtype.kind == "f" else ()
    if len(nan):  # a float NaN (nulls were refused before)
        what = "score(s)" if arg == "y_score" else "value(s)"
        raise ValueError(
            f"sklearn_rankmetrics: column {col!r} has {len(nan)} NaN {what} "
            f"(the first at row {nan[0]}); "
            + (
                "NaN is not a score (use -inf for an item not retrieved)."
                if arg == "y_score"
                else "fill them or filter those rows out."
            )
        )
    return arr


def _sorted_codes(codes, uniques, col, all_used=False):
    """Renumber ``codes`` (into ``uniques``, any order: an array, or an
    Arrow array of text) in the order of the sorted uniques, dropping those
    no row uses (unless ``all_used``: a hash pass's uniques)."""
    arrow = _arrow_text(uniques)
    if not arrow:
        uniques = np.asarray(uniques)
    used = None if all_used else np.bincount(codes, minlength=len(uniques)) > 0
    if used is not None and not used.all():  # categories no row has
        keep = np.flatnonzero(used)
        new = np.full(len(uniques), -1, dtype=np.intp)
        new[keep] = np.arange(keep.shape[0])
        codes, uniques = new[codes], uniques.take(keep)
    if arrow:  # UTF-8 bytes sort as their code points: np.unique's order
        import pyarrow.compute as pc

        order = pc.array_sort_indices(uniques).to_numpy()
        uniques = uniques.to_numpy(zero_copy_only=False)
    else:
        try:
            if uniques.dtype.kind == "O" and set(map(type, uniques)) <= {str}:
                order = str_order(uniques)  # as np.unique sorts them
            elif uniques.dtype.kind in "iu":
                order = _validation.distinct_ints_order(uniques)
            else:
                order = np.argsort(uniques, kind="stable")
        except TypeError:
            raise TypeError(
                f"column {col!r} mixes ids of types that cannot be sorted (e.g. "
                "ints and strings); use one type for every id."
            ) from None
    return EncodedIds(*sorted_numbering(codes, uniques, order))


def _arrow_text(values):
    """Whether ``values`` is a pyarrow array of (large) strings."""
    if not type(values).__module__.startswith("pyarrow"):
        return False
    import pyarrow as pa

    return pa.types.is_string(values.type) or pa.types.is_large_string(values.type)


def encode_ids(series, nw, col):
    """Text or categorical ids as :class:`EncodedIds` (one hash pass:
    :func:`factorize_ids`); None for integer ids and for libraries without a
    fast path (the caller then passes the ids as they are, to the array
    code).

    Arrow-backed columns (pyarrow, polars, pandas' string dtype on pyarrow)
    are dictionary-encoded by Arrow and their distinct ids sorted by Arrow
    (UTF-8 bytes sort as code points: the order of ``np.unique``); other
    pandas columns by ``pandas.factorize``.
    """
    ids = factorize_ids(series, nw, arrow=True)
    if ids is None:
        return None
    if ids.in_order:
        return EncodedIds(ids.codes, ids.uniques)
    return _sorted_codes(ids.codes, ids.uniques, col, all_used=True)


class FrameColumns(NamedTuple):
    """The columns of a frame as the arrays of the long form."""

    arrays: dict  # argument (y_true, y_score, query_id, ...) -> ndarray
    encoded: dict  # argument -> EncodedIds, for the id columns numbered
    n_rows: int


def read_frame(
    frame,
    columns,
    *,
    caller,
    encode=("query_id",),
    tie_break_ascending=True,
    scores=None,
):
    """Read the columns ``columns`` (frame keyword -> column name; None
    entries ignored) of ``frame`` into the arrays of the long form.

    The id columns named in ``encode`` (arguments: ``"query_id"``,
    ``"groups"``, ...) are numbered (:func:`encode_ids`; their codes in
    ``arrays``, codes and ids in ``encoded``); other id columns are read as
    they are.  ``scores`` (name -> column) are more numeric columns, read
    into ``arrays[name]`` (the models of a comparison).  ``tie_break_col``
    sorts the rows of each query by that column (a value may not repeat
    within a query), as the Dask and Spark reports do; without it the rows
    keep the frame's order.
    """

    given = {k: v for k, v in columns.items() if v is not None}
    tie_break = given.pop("tie_break_col", None)
    names = frame_columns(frame)
    wanted = {k: v for k, v in given.items() if k in FRAME_ARGUMENTS}
    scores = dict(scores or {})
    base = ("query_col", "label_col", "score_col", "weight_col")
    check_columns(
        names,
        **{k: wanted.get(k) for k in base},
        **{k: v for k, v in wanted.items() if k not in base},
        **scores,
    )
    # (column, ascending) or None, checked as the Dask and Spark reports do
    tie_break = check_tie_break(
        tie_break, tie_break_ascending, names, list(wanted.values()), caller
    )
    if tie_break is not None and "query_col" not in wanted:
        raise ValueError(
            f"{caller}: tie_break_col orders the rows of each query; give "
            "query_col too."
        )
    used = [*wanted.values(), *scores.values(), *([tie_break[0]] if tie_break else [])]
    used = list(dict.fromkeys(used))
    nw, df = _eager(frame, used, caller)
    query_col = wanted.get("query_col")
    series = {col: df.get_column(col) for col in used}
    null_counts = {col: int(s.null_count()) for col, s in series.items()}
    if any(null_counts.values()):
        first = {col: _first_null(series[col]) for col, n in null_counts.items() if n}
        check_nulls(null_counts, query_col, None, first_rows=first)
    arrays, encoded = {}, {}
    for keyword, col in wanted.items():
        arg = FRAME_ARGUMENTS[keyword]
        s = series[col]
        if arg in _NUMERIC:
            arrays[arg] = _numeric(s, nw, col, arg)
            continue
        ids = encode_ids(s, nw, col) if arg in encode else None
        if ids is None:
            arrays[arg] = text_to_numpy(s, nw)
        else:
            arrays[arg], encoded[arg] = ids.codes, ids
    for key, col in scores.items():
        arrays[key] = _numeric(series[col], nw, col, "y_score")
    n_rows = int(df.shape[0])
    if tie_break is not None:
        col, ascending = tie_break
        order = _tie_break_order(
            series[col], arrays["query_id"], query_col, col, ascending
        )
        arrays = {a: v[order] for a, v in arrays.items()}
        encoded = {a: EncodedIds(arrays[a], e.uniques) for a, e in encoded.items()}
    if "query_id" in encoded:  # new codes, each used: not checked again
        mark_numbered(arrays["query_id"], len(encoded["query_id"].uniques))
    return FrameColumns(arrays, encoded, n_rows)


def _tie_break_order(series, query_id, query_col, col, ascending):
    """The row order with each query's rows sorted by ``series`` (stable);
    ValueError if a value repeats within a query."""

    values = series.to_numpy()
    codes, _ = check_query_id(values, values.shape[0])
    q_codes, _ = check_query_id(query_id, query_id.shape[0])
    # the rows of each query sorted by the column; the queries in the order
    # of their ids (the engine groups rows by query, in any order)
    order = np.lexsort((codes if ascending else -codes, q_codes))
    q, c = q_codes[order], codes[order]
    if ((q[1:] == q[:-1]) & (c[1:] == c[:-1])).any():
        raise _duplicate_tie_break(query_col, col, None)
    return order


def relabel(query_ids, encoded):
    """The ids of the array code's output (``query_ids``: the codes of
    :func:`encode_ids`, sorted) as the frame's ids."""
    if encoded is None:
        return query_ids
    return encoded.uniques[np.asarray(query_ids, dtype=np.intp)]


def frame_metric_arguments(func, frame, y_score, options, accepted):
    """The metric functions' frame form: ``(y_true, y_score, options)`` of
    the array form from ``frame`` and the column keywords in ``options``."""
    caller = func.__name__
    unknown = [k for k in options if k.endswith("_col") and k not in FRAME_KEYWORDS]
    if unknown:
        raise TypeError(
            f"{caller}() got unknown column keyword(s) {', '.join(unknown)}; "
            f"the frame form takes {', '.join(FRAME_KEYWORDS)}."
        )
    columns, options = split_columns(options)
    required = {"label_col": None, "score_col": None}
    kind = check_frame_call(frame, y_score, {**required, **columns}, caller)
    if kind != "frame":
        raise TypeError(
            f"{caller} does not take a {kind} DataFrame; evaluate it with "
            f"sklearn_rankmetrics.{kind}.ranking_report(df, query_col=..., "
            "label_col=..., score_col=..., metrics=[...]) (the same values)."
        )
    for keyword, col in columns.items():
        arg = FRAME_ARGUMENTS.get(keyword)
        if arg is None or arg in ("y_true", "y_score") or col is None:
            continue
        if arg not in accepted:
            raise TypeError(
                f"{caller}() has no {arg}= argument, so {keyword}= does not "
                "apply to it."
            )
        if options.get(arg) is not None:
            raise TypeError(
                f"{caller}: got both {keyword}= and {arg}=; with a data frame "
                f"name the column ({keyword}=) only."
            )
    read = read_frame(
        frame,
        columns,
        caller=caller,
        tie_break_ascending=options.pop("tie_break_ascending", True),
    )
    arrays = dict(read.arrays)
    y_true, y_score = arrays.pop("y_true"), arrays.pop("y_score")
    return y_true, y_score, {**options, **arrays}


def check_no_arrays(caller, given):
    """TypeError for an array argument given with a data frame (``given``:
    argument -> value)."""
    for arg, value in given.items():
        if value is not None:
            keyword = next(k for k, a in FRAME_ARGUMENTS.items() if a == arg)
            raise TypeError(
                f"{caller}: got a data frame and {arg}=; with a frame name the "
                f"column instead ({keyword}=)."
            )


def metric_frame_doc(accepted):
    """The frame form's entry in the Parameters of a metric function that
    takes the keyword arguments ``accepted``."""
    pairs = [
        (keyword, arg)
        for keyword, arg in FRAME_ARGUMENTS.items()
        if arg in ("y_true", "y_score") or arg in accepted
    ]
    names = ", ".join(keyword for keyword, _ in pairs)
    which = ", ".join(f"``{keyword}`` ({arg})" for keyword, arg in pairs)
    text = (
        "The data-frame form: pass a pandas, polars (eager or lazy) or "
        "pyarrow table as the first argument, no ``y_score``, and name its "
        f"columns, one per argument of the long form: {which}.  The values "
        "are those of the arrays read from those columns, bit for bit; "
        "``tie_break_col`` sorts each query's rows by that column first "
        "(``tie_break_ascending=False``: decreasing).  See :ref:`frames`."
    )
    body = textwrap.fill(text, 79, initial_indent=" " * 8, subsequent_indent=" " * 8)
    return f"    {names}, tie_break_col : str, default=None\n{body}\n\n"


# ---------------------------------------------------------------------------
# Ids numbered by their library, and tables read by role
# ---------------------------------------------------------------------------


class FactorizedIds(NamedTuple):
    """Ids numbered by their library in one hash pass: ``uniques[codes]``
    are the ids of the rows; ``uniques`` in any order (sorted as
    ``np.unique`` sorts them when ``in_order``), each used by a row."""

    codes: np.ndarray  # intp, one per row
    uniques: np.ndarray  # the distinct ids
    in_order: bool = False

    @property
    def shape(self):
        return self.codes.shape


def text_to_numpy(series, nw):
    """``series.to_numpy()``, with text ids as an object array of ``str``:
    a library that converts them to a numpy ``U`` array (polars without
    pyarrow) drops their trailing NULs, so ``"7"`` and ``"7\x00"`` would be
    one id."""
    values = series.to_numpy()
    if values.dtype.kind in "US" and series.dtype == nw.String:
        out = np.empty(values.shape[0], dtype=object)
        out[:] = series.to_list()
        return out
    return values


def factorize_ids(series, nw, *, objects=True, arrow=False):
    """Text or categorical ids of a narwhals Series as
    :class:`FactorizedIds`: pandas' ``factorize``, Arrow text (polars, and
    pandas' string dtype on pyarrow, through Arrow: no copy) read in place
    (:func:`_equal_width_numbering`, :func:`_varied_width_numbering`) or
    else by Arrow's ``dictionary_encode``, or a dictionary column's own
    codes.  None for
    numeric ids, for libraries without a fast path and, with
    ``objects=False``, for a pandas column of Python objects (whose
    equal-comparing ids of different types, ``1`` and ``True``, a hash pass
    would merge).  Nulls get the code -1.  With ``arrow``, the ``uniques``
    of an Arrow text column stay an Arrow array (sorted by Arrow, without a
    Python string each: :func:`encode_ids`)."""
    dtype = series.dtype
    if dtype.is_numeric() or dtype == nw.Boolean:
        return None
    textual = dtype in (nw.String, nw.Categorical) or isinstance(dtype, nw.Enum)
    if not textual:
        return None
    impl = series.implementation
    native = series.to_native()
    if impl.is_pandas() and getattr(native.dtype, "storage", None) == "pyarrow":
        native = series.to_arrow()  # no copy: the column's own Arrow data
    elif impl.is_pandas():
        if not objects and native.dtype == object:
            return None
        import pandas as pd

        codes, uniques = pandas_factorize(pd, native)
        text = dtype == nw.String
        uniques = np.asarray(uniques, dtype=object if text else None)
        return FactorizedIds(codes.astype(np.intp, copy=False), uniques)
    elif impl.is_polars():
        if "pyarrow" not in sys.modules:
            try:  # polars converts to Arrow with pyarrow only
                import pyarrow  # noqa: F401
            except ImportError:
                return None
        # (its categories as Arrow converts them by default: a dictionary)
        native = _polars_arrow(native) if dtype == nw.String else native.to_arrow()
    elif not impl.is_pyarrow():
        return None
    return _arrow_factorize(native, arrow=arrow)


def _polars_arrow(series):
    """A polars Series as an Arrow array, without a copy: its strings as
    string views (polars' own layout, read in place by
    :func:`_view_bytes`) where polars and pyarrow both have them; the
    default conversion copies every id's bytes to ``large_string`` (0.24 s
    for 10,000,000 ids of 30 bytes)."""
    import polars as pl
    import pyarrow as pa

    newest = getattr(pl, "CompatLevel", None)
    if newest is None or not hasattr(pa.types, "is_string_view"):
        return series.to_arrow()
    return series.to_arrow(compat_level=newest.newest())


def _arrow_factorize(native, arrow=False):
    """:class:`FactorizedIds` of an Arrow array of text (or a dictionary
    array: its codes, the unused entries of its dictionary dropped); with
    ``arrow``, ``uniques`` of text stay an Arrow array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    native = one_array(native)
    encoded = native if pa.types.is_dictionary(native.type) else None
    if encoded is None:
        numbered = _equal_width_numbering(native)
        if numbered is not None:
            return numbered
        numbered = _varied_width_numbering(native)  # (string views too)
        views = getattr(pa.types, "is_string_view", lambda t: False)
        if numbered is None and views(native.type):
            # views scattered over their buffers, or ids over 128 bytes;
            # and not every kernel takes string views
            native = pc.cast(native, pa.large_string())
            numbered = _equal_width_numbering(native)
            if numbered is not None:
                return numbered
            numbered = _varied_width_numbering(native)
        if numbered is None:
            encoded = pc.dictionary_encode(native)
    if encoded is None:  # numbered in np.unique's order
        codes, rows, in_order = numbered
        return FactorizedIds(codes, _take_text(native, rows), in_order)
    indices = encoded.indices
    if indices.null_count:
        indices = indices.fill_null(-1)
    codes = indices.to_numpy(zero_copy_only=False).astype(np.intp)
    uniques = encoded.dictionary
    if not (arrow and _arrow_text(uniques)):
        uniques = uniques.to_numpy(zero_copy_only=False)
        if uniques.dtype.kind in "OU":
            uniques = uniques.astype(object, copy=False)
    if native is encoded:  # a dictionary may hold entries no row uses
        used = np.bincount(codes[codes >= 0], minlength=len(uniques)) > 0
        if not used.all():
            keep = np.flatnonzero(used)
            new = np.full(len(uniques) + 1, -1, dtype=np.intp)
            new[keep] = np.arange(keep.shape[0])
            codes, uniques = new[codes], uniques.take(keep)
    return FactorizedIds(codes, uniques, False)


def _equal_width_numbering(text):
    """:class:`FactorizedIds` (``in_order``) of an Arrow array of text
    without nulls whose ids all take the same number of bytes (``u0000042``,
    a UUID, ...); None for other arrays.

    Its bytes are read in place as a numpy ``S`` array and numbered by a
    hash of each id's bytes, every row then compared with one row of its
    hash (:func:`~sklearn_rankmetrics._utils._validation._factorize_fixed_width`),
    about half the time of Arrow's ``dictionary_encode``.  Ids of equal
    length are equal exactly when their bytes are, and UTF-8 bytes sort as
    code points: the codes and the order of ``np.unique`` of the ids.  The
    distinct ids are read as ``str`` from the array (a ``S`` array would
    drop trailing NUL bytes)."""
    import pyarrow as pa

    n = len(text)
    large = pa.types.is_large_string(text.type)
    if not (large or pa.types.is_string(text.type)) or n == 0 or text.null_count:
        return None
    offsets_type = np.dtype(np.int64 if large else np.int32)
    _, offset_buffer, data_buffer = text.buffers()
    offsets = np.frombuffer(
        offset_buffer,
        dtype=offsets_type,
        count=n + 1,
        offset=text.offset * offsets_type.itemsize,
    )
    width = int(offsets[1] - offsets[0])
    if width == 0 or int(offsets[n] - offsets[0]) != n * width:
        return None
    if not (np.diff(offsets) == width).all():
        return None
    start = int(offsets[0])
    data = np.frombuffer(data_buffer, dtype=f"S{width}", count=n, offset=start)
    numbered = _factorize_fixed_width(data, rows=True)
    if numbered is None:  # two ids share a hash: Arrow numbers them
        return None
    codes, _, rows = numbered
    return FactorizedIds(codes, _take_text(text, rows), in_order=True)


# Longest id (bytes) that _varied_width_numbering reads; longer: Arrow's
# dictionary_encode.
_VARIED_MAX_BYTES = 128
# Rows per block of _varied_width_numbering (their words stay in cache).
_VARIED_BLOCK_ROWS = 1 << 15
_WORD_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def _varied_width_numbering(text):
    """``(codes, one row of each code, in_order)`` of an Arrow array of
    text without nulls whose ids take different numbers of bytes (at most
    ``_VARIED_MAX_BYTES``), or None (the caller then runs Arrow's
    ``dictionary_encode``).  The codes and rows are those of ``np.unique``
    (``in_order``, always True here).

    The ids' bytes are read in place (:func:`_text_bytes`: the data of a
    string array, or the views and data buffers of string views).  When
    the ids differ in at most 64 bits (:func:`_packed_text`: ids of at
    most 7 bytes always do), they are numbered by exact keys in their
    order.  Else each id is read as 8-byte words, zero past its end
    (:func:`_words`), hashed with its length, and the rows are
    numbered by hash (:func:`_number`, in order of first appearance); every
    row is then compared, length and words, with one row of its hash, so
    the codes are exact (should two ids share a hash: None).  Two ids are
    equal exactly when their lengths and words are.  Only the distinct ids
    are then sorted (:func:`_distinct_order`).  About a third of
    ``dictionary_encode``'s time at 10,000,000 rows (benchmarks/README.md,
    issue 31 goal 5).
    """
    layout = _text_bytes(text)
    if layout is None:
        return None
    source, starts, lengths, n_words = layout
    keys = _packed_text(source, starts, lengths, n_words)
    if keys is not None:  # exact keys in the ids' order: no check, no sort
        codes, rows = _number(keys)
        order = _validation.distinct_ints_order(_validation.unspread_bits(keys[rows]))
    else:
        codes, rows = _number(_varied_hashes(source, starts, lengths, n_words))
        first = _words(source, starts[rows], lengths[rows], n_words), lengths[rows]
        if not _rows_match(source, starts, lengths, codes, *first):
            return None
        order = _distinct_order(*first)
    return (*sorted_numbering(codes, rows, order), True)


def _text_bytes(text):
    """Where the ids of an Arrow array of text lie, read in place:
    ``(source, starts, lengths, n_words)``, the :class:`_ByteSpaces` that
    hold their bytes, the :class:`_Positions` of each id's first byte, its
    length in bytes, and the words of 8 bytes that the longest takes; None for
    other arrays, nulls, no rows, an id over ``_VARIED_MAX_BYTES``, and
    string views scattered over their buffers (:func:`_view_bytes`)."""
    import pyarrow as pa

    n = len(text)
    if n == 0 or text.null_count:
        return None
    large = pa.types.is_large_string(text.type)
    if not (large or pa.types.is_string(text.type)):
        views = getattr(pa.types, "is_string_view", lambda t: False)
        return _view_bytes(text, n) if views(text.type) else None
    _, offset_buffer, data_buffer = text.buffers()
    offsets = np.frombuffer(
        offset_buffer,
        dtype=np.int64 if large else np.int32,
        count=n + 1,
        offset=text.offset * (8 if large else 4),
    )  # read in place: a string array's data is under 2 GiB, int32 offsets
    lengths = np.diff(offsets)
    n_words = _words_of(lengths)
    if n_words is None:
        return None
    return _ByteSpaces([data_buffer]), _Positions(offsets[:-1]), lengths, n_words


def _words_of(lengths):
    """The 8-byte words that the longest of ids of ``lengths`` bytes takes
    (at least one), or None when it is over ``_VARIED_MAX_BYTES``."""
    longest = int(lengths.max())
    return None if longest > _VARIED_MAX_BYTES else max(1, -(-longest // 8))


# Bytes of an id that a string view holds itself (longer ids: in a data
# buffer), and where they start in the view (after its length).
_VIEW_INLINE = 12
_VIEW_PREFIX = 4


def _view_bytes(text, n):
    """:func:`_text_bytes` of an Arrow array of string views (polars'
    strings), read in place (:func:`_view_layout`).  None when the ids'
    buffers change more often along the rows than once a block of
    ``_VARIED_BLOCK_ROWS`` rows on average (a frame's rows sorted after
    its strings were built): each block of rows would be read from many
    buffers, and the caller casts the array to ``large_string`` (one copy
    of its bytes) instead."""
    source, starts, lengths, space = _view_layout(text, n)
    n_words = _words_of(lengths)
    if n_words is None:
        return None
    if space is not None:
        changes = np.count_nonzero(space[1:] != space[:-1])
        if changes * _VARIED_BLOCK_ROWS > n:
            return None
    return source, starts, lengths, n_words


def _view_layout(text, n):
    """``(source, starts, lengths, space)`` of the string views of
    ``text``: the :class:`_ByteSpaces` of its data buffers then its views
    buffer, the :class:`_Positions` of the ids in them, their lengths in
    bytes, and the buffer of each id (None: every id in its view).

    A view is 16 bytes: the id's length, then either the id itself
    (``_VIEW_INLINE`` bytes at most, zero-padded) or its first 4 bytes, the
    data buffer that holds it and where it starts there (read in place)."""
    buffers = text.buffers()
    views = np.frombuffer(
        buffers[1], dtype=np.int32, count=4 * n, offset=16 * text.offset
    ).reshape(n, 4)
    view_bytes = np.frombuffer(
        buffers[1], dtype=np.uint8, count=16 * n, offset=16 * text.offset
    )
    source = _ByteSpaces([*buffers[2:], view_bytes])
    in_views = len(buffers) - 2  # the views buffer's number
    lengths = views[:, 0].copy()
    inline = lengths <= _VIEW_INLINE
    if inline.all():
        starts = np.arange(_VIEW_PREFIX, 16 * n, 16, dtype=np.int64)
        return source, _Positions(starts, only=in_views), lengths, None
    if not inline.any():
        space = views[:, 2]
        return source, _Positions(views[:, 3], space), lengths, space
    space = np.where(inline, in_views, views[:, 2])
    starts = np.where(inline, np.arange(_VIEW_PREFIX, 16 * n, 16), views[:, 3])
    return source, _Positions(starts, space), lengths, space


def _take_text(text, rows):
    """The ids of the rows ``rows`` of an Arrow array of text, as an object
    array of ``str``.  Arrow's ``take`` has no kernel for string views
    (pyarrow 26): the views of the rows are gathered here into a new array
    on the same data buffers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    views = getattr(pa.types, "is_string_view", lambda t: False)
    if views(text.type):
        buffers = text.buffers()
        records = np.frombuffer(
            buffers[1], dtype="V16", count=len(text), offset=16 * text.offset
        )
        taken = pa.Array.from_buffers(
            text.type, rows.shape[0], [None, pa.py_buffer(records[rows]), *buffers[2:]]
        )
        out = pc.cast(taken, pa.large_string())
    else:
        out = text.take(pa.array(rows))
    return out.to_numpy(zero_copy_only=False).astype(object, copy=False)


class _Positions:
    """Where ids start: at byte ``local`` of the buffer ``space`` (one per
    id; None: all in the buffer ``only``) of a :class:`_ByteSpaces`.
    Indexed as an array of rows."""

    __slots__ = ("local", "space", "only")

    def __init__(self, local, space=None, only=0):
        self.local, self.space, self.only = local, space, only

    def __getitem__(self, rows):
        space = None if self.space is None else self.space[rows]
        return _Positions(self.local[rows], space, self.only)


class _ByteSpaces:
    """The bytes of the ids of an Arrow text array, in one buffer or more
    (string views), read in place: each buffer as a ``uint8`` array
    (``buffers``).  An id's bytes lie in one buffer."""

    def __init__(self, buffers):
        self.buffers = [
            np.frombuffer(b"" if buffer is None else buffer, dtype=np.uint8)
            for buffer in buffers  # (None: no bytes)
        ]

    def groups(self, starts):
        """The ids at ``starts`` (:class:`_Positions`) by the buffer that
        holds them: a list of ``(rows, data, local)``, the ids' rows (None:
        all), the buffer's bytes and where the ids start in it.  Ids of one
        buffer (a block of rows, usually) are one group; else they are
        sorted by buffer (a radix sort)."""
        space = starts.space
        if space is None:
            return [(None, self.buffers[starts.only], starts.local)]
        if space.shape[0] == 0:
            return []
        first, last = space.min(), space.max()
        if first == last:
            return [(None, self.buffers[first], starts.local)]
        space = space.astype(np.int16 if len(self.buffers) < 1 << 15 else np.int32)
        order = np.argsort(space, kind="stable")
        bounds = np.searchsorted(space[order], np.arange(len(self.buffers) + 1))
        return [
            (order[a:b], self.buffers[s], starts.local[order[a:b]])
            for s, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))
            if a < b
        ]


def _rows_match(source, starts, lengths, codes, first_words, first_lengths):
    """Whether every id (its length and :func:`_words`) equals the id of its
    code (``first_words[code]``, ``first_lengths[code]``: one row of each
    code): block by block of rows, each compared with its code's length
    (one byte each: ids of at most ``_VARIED_MAX_BYTES``) and its code's
    words, as one record (one gather of ``8 * n_words`` bytes a row)."""
    n, n_words = lengths.shape[0], first_words.shape[1]
    first_len = first_lengths.astype(np.uint8)
    table = first_words.view(f"V{8 * n_words}").reshape(-1)
    for a in range(0, n, _VARIED_BLOCK_ROWS):
        b = min(n, a + _VARIED_BLOCK_ROWS)
        block_codes = codes[a:b]
        if (first_len.take(block_codes) != lengths[a:b]).any():
            return False
        first = table.take(block_codes).view(np.uint64)
        words = _words(source, starts[a:b], lengths[a:b], n_words)
        if (first != words.reshape(-1)).any():
            return False
    return True


def _distinct_order(words, lengths):
    """The permutation that sorts distinct ids, given by their
    :func:`_words` and ``lengths``, as ``np.unique`` does: by their words
    from the start, zero-padded, as big-endian numbers (the id's first byte
    highest), then their length (``"a"`` before ``"a\x00"``); UTF-8 bytes
    compare as code points.  By the first varying word, then the ids that
    share it (:func:`~sklearn_rankmetrics._utils._validation.words_order`):
    500,000 random hex ids in about 0.1 s, where Arrow's sort of the
    strings took 0.25 s and their conversion to Python strings 0.05 s
    more."""
    keys = [words[:, j].byteswap() for j in range(words.shape[1])]
    keys.append(lengths.astype(np.uint64))
    return _validation.words_order(keys)


def _words(source, starts, lengths, n_words):
    """The bytes of each id that starts at ``starts`` (:class:`_Positions`)
    of ``source`` (a :class:`_ByteSpaces`) with ``lengths`` bytes, as
    ``n_words`` little-endian 8-byte words, zero past the id's end: an
    array of shape ``(n_ids, n_words)``.  Two ids are equal exactly when
    their lengths and words are.  Buffer by buffer
    (:func:`_buffer_words`)."""
    groups = source.groups(starts)
    if len(groups) == 1:
        _, data, local = groups[0]
        return _buffer_words(data, local, lengths, n_words)
    words = np.empty((lengths.shape[0], n_words), dtype=np.uint64)
    for rows, data, local in groups:
        words[rows] = _buffer_words(data, local, lengths[rows], n_words)
    return words


def _buffer_words(data, starts, lengths, n_words):
    """:func:`_words` of ids in one buffer, its bytes ``data``: each id's
    ``8 * n_words`` bytes from its start are read as one record (a void
    dtype over a strided view of the buffer at every byte: one gather a
    row; the four gathers of 8-byte words of ids of about 30 bytes cost
    about eight times as much), then the bytes past its end cleared.  The
    ids that start too near the buffer's end for a whole record are read
    from a zero-padded copy of its last bytes."""
    width = 8 * n_words
    record = np.dtype(f"V{width}")
    limit = data.shape[0] - width  # the last start of a whole record
    over = starts > limit
    if limit >= 0:
        view = np.ndarray((limit + 1,), dtype=record, buffer=data, strides=(1,))
        clipped = np.minimum(starts, min(limit, np.iinfo(starts.dtype).max))
        records = view[clipped]
    else:
        records = np.empty(starts.shape[0], dtype=record)
    if over.any():
        base = max(0, limit)
        tail = np.zeros(data.shape[0] - base + width, dtype=np.uint8)
        tail[: data.shape[0] - base] = data[base:]
        size = tail.shape[0] - width + 1
        view = np.ndarray((size,), dtype=record, buffer=tail, strides=(1,))
        records[over] = view[starts[over] - base]
    words = records.view(np.uint64).reshape(-1, n_words)
    words &= _byte_masks(n_words).take(lengths).view(np.uint64).reshape(-1, n_words)
    return words


# The low `i` bytes of a little-endian 8-byte word, i = 0..8.
_LOW_BYTES = np.array([(1 << (8 * i)) - 1 for i in range(9)], dtype=np.uint64)


@functools.cache
def _byte_masks(n_words):
    """For each length ``0..8 * n_words``, the mask of the bytes of an id of
    that length in ``n_words`` little-endian words, as one record (a row of
    ``8 * n_words`` bytes; read-only)."""
    lengths = np.arange(8 * n_words + 1)[:, None]
    low = np.clip(lengths - 8 * np.arange(n_words), 0, 8)
    masks = np.ascontiguousarray(_LOW_BYTES[low]).view(f"V{8 * n_words}").reshape(-1)
    masks.flags.writeable = False
    return masks


def _packed_text(source, starts, lengths, n_words):
    """Keys of the ids of :func:`_varied_width_numbering` as unsigned 64-bit
    ints, equal exactly when the ids are and, once
    :func:`~sklearn_rankmetrics._utils._validation.unspread_bits` undoes
    the spread made for the hash table, in their order; None when the ids
    differ in more than 64 bits.

    An id is its bytes zero-padded to ``n_words`` words (as big-endian
    numbers, :func:`_packed_columns`), then its length (``"a"`` and
    ``"a\x00"`` pad alike): ids compare as these numbers do, one after
    the other, and UTF-8 bytes compare as code points.  The bits equal in
    every id carry nothing: the key packs, word after word and the length
    last, each one's span of varying bits (first to last varying bit).
    """
    n = lengths.shape[0]
    limit = _validation._PACKED_MAX_BITS
    first = _packed_columns(source, starts, lengths, 0, 1, n_words)
    first = [column[0] for column in first]
    # first pass: the varying bits of each word and of the length; word 0
    # is kept in `keys`, which the second pass packs in place
    keys = np.empty(n, dtype=np.uint64)
    varying = np.zeros(n_words + 1, dtype=np.uint64)
    for a in range(0, n, _VARIED_BLOCK_ROWS):
        b = min(n, a + _VARIED_BLOCK_ROWS)
        columns = _packed_columns(source, starts, lengths, a, b, n_words)
        for j, (column, value) in enumerate(zip(columns, first, strict=True)):
            if j == 0:
                keys[a:b] = column
            column ^= value
            varying[j] |= np.bitwise_or.reduce(column)
        if sum(bin(int(v)).count("1") for v in varying) > limit:
            return None
    fields = []  # (column, lowest varying bit, number of bits)
    for j, bits in enumerate(varying.tolist()):
        if bits:
            low = (bits & -bits).bit_length() - 1
            fields.append((j, low, bits.bit_length() - low))
    if sum(w for _, _, w in fields) > limit:
        return None
    for a in range(0, n, _VARIED_BLOCK_ROWS):
        b = min(n, a + _VARIED_BLOCK_ROWS)
        key = keys[a:b]  # word 0
        rest = fields
        if fields and fields[0][0] == 0:  # word 0's span, in place
            _span(key, *fields[0][1:])
            rest = fields[1:]
        else:
            key[...] = 0
        if any(j < n_words for j, _, _ in rest):  # (not the length alone)
            columns = _packed_columns(source, starts, lengths, a, b, n_words)
        else:
            columns = {n_words: lengths[a:b].astype(np.uint64)}
        for j, low, width in rest:
            key <<= np.uint64(width)
            key |= _span(columns[j], low, width)
        _validation.spread_bits(key, out=key)  # for the hash table
    return keys


def _packed_columns(source, starts, lengths, a, b, n_words):
    """The columns of :func:`_packed_text` for rows ``[a, b)``: each word
    of the ids as a big-endian number (the id's first byte highest), then
    their lengths."""
    words = _words(source, starts[a:b], lengths[a:b], n_words)
    columns = [words[:, j].byteswap() for j in range(n_words)]
    columns.append(lengths[a:b].astype(np.uint64))
    return columns


def _span(v, low, width):
    """Bits ``[low, low + width)`` of the uint64 array ``v``, in place."""
    if low:
        v >>= np.uint64(low)
    if width < 64:
        v &= np.uint64((1 << width) - 1)
    return v


def _varied_hashes(source, starts, lengths, n_words):
    """A 64-bit hash of each id of :func:`_varied_width_numbering` (its
    length, then its words, :func:`_words`), block by block of rows."""
    n = lengths.shape[0]
    hashes = np.empty(n, dtype=np.uint64)
    for a in range(0, n, _VARIED_BLOCK_ROWS):
        b = min(n, a + _VARIED_BLOCK_ROWS)
        h = lengths[a:b].astype(np.uint64) * _WORD_MULTIPLIER
        words = _words(source, starts[a:b], lengths[a:b], n_words)
        for j in range(n_words):
            h ^= words[:, j]
            h *= _WORD_MULTIPLIER
            h ^= h >> np.uint64(29)
        hashes[a:b] = h
    return hashes


def _typed_text(series, nw):
    """Whether the library types the column as text: a string column, or
    categories of strings (a pandas column of Python objects is not typed,
    whatever it holds)."""
    dtype = series.dtype
    native = series.to_native()
    if series.implementation.is_pandas():
        import pandas as pd

        kind = native.dtype
        if isinstance(kind, pd.CategoricalDtype):
            kind = kind.categories.dtype
        return isinstance(kind, pd.StringDtype)
    if series.implementation.is_pyarrow():
        return _is_arrow_text(native.type)
    return dtype == nw.String or dtype == nw.Categorical or isinstance(dtype, nw.Enum)


def _is_arrow_text(kind):
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    views = getattr(pa.types, "is_string_view", lambda t: False)
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or views(kind)


def is_table(x):
    """Whether ``x`` is a table :func:`read_table` reads: a pandas, polars
    or pyarrow table (eager or lazy, or an Arrow ``RecordBatch``) or a dict
    of columns; found without importing any frame library."""
    return _table_library(x) is not None


def _table_library(table):
    """``"frame"``, ``"arrow-batch"``, ``"dict"`` or None."""
    if frame_library(table) == "frame":
        return "frame"
    cls = type(table)
    if cls.__module__.partition(".")[0] == "pyarrow" and cls.__name__ == "RecordBatch":
        return "arrow-batch"
    if isinstance(table, Mapping):
        return "dict"
    return None


class TableColumns(NamedTuple):
    """The columns of a table read by role (:func:`read_table`)."""

    columns: dict  # role -> 1-D ndarray, or FactorizedIds for an id role
    text: frozenset  # the roles whose column the table types as text
    n_rows: int


def read_table(table, columns, *, caller, arg, ids=()):
    """Read the columns ``columns`` names (role -> column name, such as
    ``{"user_col": "user_id", "rank_col": "rank"}``) of ``table``: a pandas,
    polars (a lazy frame collected once, those columns only) or pyarrow
    table, or a dict of equal-length 1-D arrays.

    Each column is a 1-D ndarray as its library gives it; the text and
    categorical columns of the roles in ``ids`` are numbered by their
    library instead (:func:`factorize_ids`: no Python string per row).
    Errors name ``caller``, the table (``arg``), the role and the column: a
    table of another type, a missing column (listing the available ones), a
    column name given twice in the table, columns of different lengths, and
    a missing value (null, NaN, None; with the first row holding one)."""
    kind = _table_library(table)
    if kind is None:
        raise TypeError(
            f"{caller}: {arg} must be a table: a pandas, polars or pyarrow "
            f"DataFrame/Table, or a dict of equal-length columns; got "
            f"{type(table).__name__}."
        )
    if kind == "arrow-batch":
        import pyarrow as pa

        table, kind = pa.Table.from_batches([table]), "frame"
    available = _available_columns(table, kind)
    for role, col in columns.items():
        if col not in available:
            raise ValueError(
                f"{caller}: {role}={col!r} is not a column of {arg}; available "
                f"columns: {', '.join(map(repr, available))}."
            )
    used = list(dict.fromkeys(columns.values()))
    for col in used:
        if available.count(col) > 1:
            raise ValueError(
                f"{caller}: {arg} has several columns named {col!r}; rename them."
            )
    if kind == "dict":
        read = {col: _dict_column(table, col, caller, arg) for col in used}
    else:
        read = _frame_columns(table, available, used, columns, ids, caller)
    out, text, n_rows = {}, set(), None
    for role, col in columns.items():
        values, null, is_text = read[col]
        if n_rows is not None and values.shape[0] != n_rows:
            raise ValueError(
                f"{caller}: the columns of {arg} have different lengths "
                f"({n_rows} and {values.shape[0]} for {col!r})."
            )
        n_rows = values.shape[0]
        missing = missing_rows(values, null)
        if missing.any():
            rows = np.flatnonzero(missing)
            raise ValueError(
                f"{caller}: column {col!r} ({role}) of {arg} has "
                f"{rows.size} null value(s), the first at row {rows[0]}; every "
                "row needs a value (drop or fill those rows)."
            )
        out[role] = values
        if is_text:
            text.add(role)
    return TableColumns(out, frozenset(text), 0 if n_rows is None else n_rows)


def _available_columns(table, kind):
    """The column names of a table, repeated names included (a lazy
    frame's from its schema)."""
    if kind == "dict":
        return list(table.keys())
    names = getattr(table, "column_names", None)  # pyarrow
    if names is not None:
        return list(names)
    if type(table).__name__ == "LazyFrame":  # polars < 1.0: no collect_schema
        schema = getattr(table, "collect_schema", None)
        return list(table.columns if schema is None else schema().names())
    return list(table.columns)


def _frame_columns(table, available, used, columns, ids, caller):
    """Column name -> ``(values, null mask or None, typed as text)`` of the
    columns ``used`` of a frame, read through narwhals; the columns of the
    roles ``ids`` numbered by their library where it can."""
    if len(set(available)) < len(available):  # narwhals takes unique names
        module = type(table).__module__.partition(".")[0]
        table = table[used] if module == "pandas" else table.select(used)
    nw, df = _eager(table, used, caller)
    coded = {col for role, col in columns.items() if role in ids}
    read = {}
    for col in used:
        series = df.get_column(col)
        text = _typed_text(series, nw)
        # numbered ids: a null's code is -1 (no pass of their own for nulls)
        values = factorize_ids(series, nw, objects=False) if col in coded else None
        null = None
        if values is None:
            null = series.is_null().to_numpy() if series.null_count() else None
            values = text_to_numpy(series, nw)
        read[col] = (values, null, text)
    return read


def _dict_column(table, col, caller, arg):
    values = table[col]
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(
            f"{caller}: column {col!r} of {arg} must be 1-D; got shape {values.shape}."
        )
    return values, None, False


def missing_rows(values, null=None):
    """Rows holding a missing value: the library's nulls (``null``, a mask,
    or the code -1 of :class:`FactorizedIds`), NaN and None."""
    if isinstance(values, FactorizedIds):
        return values.codes < 0
    missing = np.zeros(values.shape[0], dtype=bool) if null is None else null
    if values.dtype.kind == "f":
        missing = missing | np.isnan(values)
    elif values.dtype.kind == "O" and null is None:
        missing = np.fromiter(map(_is_missing, values), bool, values.shape[0])
    return missing


def read_id_column(values, *, caller, arg):
    """A 1-D array of ids (a catalogue): a list, an ndarray, or a pandas,
    polars or pyarrow column; an error naming ``arg`` and the first position
    of a missing value."""
    null = None
    module = type(values).__module__.partition(".")[0]
    if module == "pyarrow" and hasattr(values, "null_count"):
        if values.null_count:
            import pyarrow.compute as pc

            null = np.asarray(pc.is_null(values).to_numpy(zero_copy_only=False))
        values = values.to_numpy(zero_copy_only=False)
    elif module == "polars" and hasattr(values, "is_null"):
        null = values.is_null().to_numpy()
        values = values.to_numpy()
    elif module == "pandas" and hasattr(values, "isna"):
        null = np.asarray(values.isna())
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"{caller}: {arg} must be 1-D (one id per item); got shape {arr.shape}."
        )
    missing = missing_rows(arr, null)
    if missing.any():
        raise ValueError(
            f"{caller}: {arg} has {int(missing.sum())} null value(s), the first "
            f"at position {np.flatnonzero(missing)[0]}; every item needs an id."
        )
    return arr


# ---------------------------------------------------------------------------
# The surfaces' frame forms
# ---------------------------------------------------------------------------
_REPORT_ARRAYS = (
    "query_id",
    "sample_weight",
    "propensity",
    "item_weight",
    "groups",
    "item_groups",
)


def _codes(values, encoded=None):
    """``(codes, ids)`` of an id column (``values``: its array, or its
    :class:`EncodedIds`; ``encoded``: how ``values`` were numbered)."""

    if isinstance(values, EncodedIds):
        return values.codes, values.uniques
    codes, ids = check_query_id(values, values.shape[0])
    if encoded is not None:
        ids = encoded.uniques[ids]
    return codes, ids


def frame_report(func, arguments, columns):
    """:func:`ranking_report`'s frame form: ``arguments`` are those the
    report was called with (the frame as ``y_true``), ``columns`` the column
    keywords."""
    caller = "ranking_report"
    arguments = dict(arguments)
    frame, y_score = arguments.pop("y_true"), arguments.pop("y_score")
    options = arguments.pop("options")
    for keyword in columns:
        arguments.pop(keyword)
    kind = check_frame_call(frame, y_score, columns, caller)
    if kind != "frame":  # (sklearn_rankmetrics.ranking_report dispatches them)
        raise TypeError(
            f"{caller} in memory does not take a {kind} DataFrame; call "
            f"sklearn_rankmetrics.{kind}.ranking_report (or "
            "sklearn_rankmetrics.ranking_report, which runs it)."
        )
    check_no_arrays(caller, {a: arguments[a] for a in _REPORT_ARRAYS})
    check_no_arrays(caller, {"item_id": options.get("item_id")})
    read = read_frame(
        frame,
        columns,
        caller=caller,
        encode=("query_id", "groups", "item_groups"),
        tie_break_ascending=arguments.pop("tie_break_ascending"),
    )
    arrays = dict(read.arrays)
    y_true, y_score = arrays.pop("y_true"), arrays.pop("y_score")
    if "item_id" in arrays:
        options = {**options, "item_id": arrays.pop("item_id")}
    for arg in ("groups", "item_groups"):
        if arg in read.encoded:
            arrays[arg] = read.encoded[arg]
    if "groups" in arrays and "query_id" in arrays:
        # a segment varying within a query, named by column and query id

        g_codes, _ = _codes(arrays["groups"])
        q_codes, q_ids = _codes(arrays["query_id"], read.encoded.get("query_id"))
        _query_groups(
            g_codes,
            q_codes,
            q_ids.shape[0],
            q_ids,
            f"column {columns['group_col']!r} (group_col)",
        )
    arguments.update(arrays)
    result = func(y_true, y_score, **arguments, **options)
    encoded = read.encoded.get("query_id")
    if arguments["per_query"] and encoded is not None:
        result["query_id"] = relabel(result["query_id"], encoded)
    return result


def frame_compare(func, arguments):
    """:func:`compare_rankings`' frame form: ``score_col`` is a list of
    score columns (the models are named by them) or a dict ``{model:
    column}``."""
    from collections.abc import Mapping

    caller = "compare_rankings"
    arguments = dict(arguments)
    frame, y_scores = arguments.pop("y_true"), arguments.pop("y_scores")
    options = arguments.pop("options")
    keywords = ("query_col", "label_col", "score_col", "propensity_col")
    keywords += ("item_weight_col", "tie_break_col")
    columns = {k: arguments.pop(k) for k in keywords}
    kind = check_frame_call(frame, y_scores, columns, caller, second="y_scores")
    if kind != "frame":
        raise TypeError(
            f"compare_rankings does not take a {kind} DataFrame; collect the "
            "rows (or a sample of queries) to pandas first."
        )
    check_no_arrays(caller, {"query_id": arguments["query_id"]})
    check_no_arrays(caller, {a: options.get(a) for a in ("propensity", "item_weight")})
    score_col = columns.pop("score_col")
    if isinstance(score_col, str):
        raise TypeError(
            f"compare_rankings: score_col={score_col!r} names one column; "
            "pass one score column per model: a list of columns (the models "
            "are named by them) or a dict {model name: column}."
        )
    if isinstance(score_col, Mapping):
        models = dict(score_col)
    else:
        try:
            models = {col: col for col in score_col}
        except TypeError:
            raise TypeError(
                "compare_rankings: score_col must be a list of score columns "
                f"or a dict {{model name: column}}; got {score_col!r}."
            ) from None
    for name, col in models.items():
        if not isinstance(name, str):
            raise TypeError(f"model names must be strings; got {name!r}.")
        columns[f"score_col[{name!r}]"] = col
    read = read_frame(
        frame,
        {k: v for k, v in columns.items() if not k.startswith("score_col[")},
        caller=caller,
        tie_break_ascending=arguments.pop("tie_break_ascending"),
        scores={k: v for k, v in columns.items() if k.startswith("score_col[")},
    )
    arrays = dict(read.arrays)
    y_true = arrays.pop("y_true")
    scores = {name: arrays.pop(f"score_col[{name!r}]") for name in models}
    arguments.update(arrays)
    result = func(y_true, scores, **arguments, **options)
    encoded = read.encoded.get("query_id")
    if encoded is not None:
        result.query_id = relabel(result.query_id, encoded)
    return result


def frame_calibration(func, arguments):
    """:func:`calibration_report`'s frame form (``score_col``: the
    predicted probabilities)."""
    caller = "calibration_report"
    arguments = dict(arguments)
    frame, y_prob = arguments.pop("y_true"), arguments.pop("y_prob")
    keywords = ("label_col", "score_col", "weight_col", "group_col")
    columns = {k: arguments.pop(k) for k in keywords}
    kind = check_frame_call(frame, y_prob, columns, caller, second="y_prob")
    if kind != "frame":
        raise TypeError(
            f"calibration_report does not take a {kind} DataFrame; collect "
            "the rows to pandas first (or sum by group in the engine)."
        )
    check_no_arrays(caller, {a: arguments[a] for a in ("groups", "sample_weight")})
    read = read_frame(frame, columns, caller=caller, encode=())
    arrays = dict(read.arrays)
    y_true, y_prob = arrays.pop("y_true"), arrays.pop("y_score")
    arguments.update(arrays)
    return func(y_true, y_prob, **arguments)


def frame_update(update, arguments):
    """:meth:`RankingEvaluator.update`'s frame form: the ids are read as
    they are (queries run on from one chunk into the next)."""
    caller = "RankingEvaluator.update"
    arguments = dict(arguments)
    frame, y_score = arguments.pop("y_true"), arguments.pop("y_score")
    keywords = ("query_col", "label_col", "score_col", "weight_col")
    keywords += ("propensity_col", "item_weight_col", "item_col")
    columns = {k: arguments.pop(k) for k in keywords}
    kind = check_frame_call(frame, y_score, columns, caller)
    if kind != "frame":
        raise TypeError(
            f"{caller} does not take a {kind} DataFrame; use "
            f"sklearn_rankmetrics.{kind}.ranking_report."
        )
    if columns["query_col"] is None:
        raise TypeError(f"{caller}: a data frame needs query_col=.")
    check_no_arrays(
        caller,
        {a: arguments[a] for a in ("query_id", "sample_weight", "propensity")},
    )
    check_no_arrays(caller, {"item_weight": arguments["item_weight"]})
    check_no_arrays(caller, {"item_id": arguments["item_id"]})
    read = read_frame(frame, columns, caller=caller, encode=())
    arrays = dict(read.arrays)
    y_true, y_score = arrays.pop("y_true"), arrays.pop("y_score")
    arguments.update(arrays)
    return update(y_true, y_score, **arguments)
