"""``rankmetrics evaluate``: TREC runs and tables of impressions (CSV, TSV,
Parquet, chunk by chunk when large) into per-query values, summaries and
comparisons."""

import csv
import io
import math
import os
import sys
import time

import numpy as np

from .._io._trec import (
    _align,
    _encode,
    _read_qrels,
    _read_run,
    _release_arrow_memory,
    _use_arrow,
)
from ._common import UsageError, prog
from ._measures import (
    _COUNTS,
    _LONG_DEFAULT,
    PerQuery,
    Result,
    _summary,
    parse_measures,
    per_query_values,
)
from ._output import _COMPARISON_WRITERS, _WRITERS, _write_per_query

__all__ = []  # private module


class _Progress:
    """Steps on stderr ("reading run.txt ... 1.2 s") when it is a terminal."""

    def __init__(self, quiet):
        self.on = not quiet and sys.stderr.isatty()
        self.start = None

    def step(self, message):
        if self.on:
            self.done()
            print(f"{prog()}: {message} ...", end="", file=sys.stderr, flush=True)
            self.start = time.perf_counter()

    def done(self):
        if self.on and self.start is not None:
            print(
                f" {time.perf_counter() - self.start:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            self.start = None


def _evaluate_trec(args, measures, progress):
    """One :class:`Result` per run file of ``args.files[1:]``, each
    evaluated against the qrels ``args.files[0]`` as trec_eval does."""
    _check_trec_args(args)
    progress.step(f"reading {args.files[0]}")
    arrow = _use_arrow(*args.files)
    qrels = _read_qrels(args.files[0], arrow)
    results = []
    for path in args.files[1:]:
        aligned = _aligned_run(args, qrels, path, arrow, progress)
        results.append(_trec_result(args, measures, aligned))
    progress.done()
    return _named_by_file(results, args.files[1:])


def _check_trec_args(args):
    if len(args.files) < 2:
        raise UsageError(
            "evaluate needs a qrels file and at least one run file "
            "(evaluate QRELS RUN [RUN ...]), or --long FILE for one row per "
            "impression."
        )
    if args.level is not None and args.level < 1:
        raise UsageError(
            f"-l/--level must be >= 1 (got {args.level}); a level of 0 would "
            "make judged non-relevant documents relevant, which this package "
            "does not support."
        )
    if args.max_docs is not None and args.max_docs < 1:
        raise UsageError(f"-M/--max-docs must be >= 1, got {args.max_docs}.")


def _aligned_run(args, qrels, path, arrow, progress):
    """The run ``path`` read and joined with the qrels (trec_eval's -M, -c
    and -J applied): an ``_io._trec._align`` result."""
    progress.step(f"reading {path}")
    run = _read_run(path, arrow)
    _release_arrow_memory()
    progress.step(f"evaluating {path}")
    aligned = _align(
        qrels,
        run,
        max_docs=args.max_docs,
        all_queries=args.complete,
        duplicates=args.duplicates,
    )
    run = None  # the run's columns are in ``aligned`` now
    _release_arrow_memory()
    if len(aligned.query_ids) == 0:
        raise UsageError(
            f"no query of the run {path!r} is in the qrels "
            f"{args.files[0]!r}; check that both use the same query ids "
            "(or pass -c to score the qrels' queries anyway)."
        )
    if args.judged_only:
        # trec_eval -J: an unjudged retrieved document is not retrieved
        # (after -M); the judged ones keep their order
        drop = ~aligned.judged & (aligned.score > -np.inf)
        aligned = aligned._replace(
            score=np.where(drop, -np.inf, aligned.score),
            rank=np.where(drop, -np.inf, aligned.rank),
        )
    return aligned


def _trec_result(args, measures, aligned):
    """The per-query values and summary of one aligned run."""
    n_q = len(aligned.query_ids)
    exact = args.ties == "expected"
    y_true = np.maximum(aligned.grade, 0, out=aligned.grade)  # our copy
    y_score = aligned.score if exact else aligned.rank
    # only y_true, y_score and judged are read from here on
    aligned = aligned._replace(grade=None, score=None, rank=None)
    options = dict(
        n_queries=n_q,
        ignore_ties=not exact,
        no_relevant=0.0,
        relevance_threshold=args.level or 1,
        query_weighting=args.query_weighting,
    )
    cut = [m for m in measures if m.k is not None]
    values, weights = per_query_values(
        [m for m in measures if m.k is None],
        y_true,
        y_score,
        aligned.codes,
        judged=aligned.judged,
        **options,
    )
    if cut:
        rows, cut_score = _top_rows(
            aligned.codes, y_true, y_score, max(m.k for m in cut), exact
        )
        codes = aligned.codes
        if rows is not None:
            y_true, codes = y_true[rows], codes[rows]
        cut_values = per_query_values(cut, y_true, cut_score, codes, **options)
        values.update(cut_values.values)
        weights.update(cut_values.weights)
    summary = _summary(measures, values, weights, n_q)
    return Result(aligned.run_tag, aligned.query_ids, values, summary, weights)


def _named_by_file(results, paths):
    """Runs sharing a runid go by their file names instead."""
    tags = [r.name for r in results]
    if len(set(tags)) == len(tags):
        return results
    return [
        r._replace(name=os.path.basename(path))
        for r, path in zip(results, paths, strict=True)
    ]


def _top_rows(codes, y_true, y_score, k, exact):
    """The rows a measure with cut-off <= k needs, and their scores.

    Rows are in trec_eval's order (by query, then rank, unretrieved last).
    A measure cut at k only reads the first k ranked rows of each query and
    the relevant rows (for recall's denominator and the ideal DCG); the
    relevant rows beyond k are passed as unretrieved (-inf), which changes
    no value at a cut-off <= k.  Dropping the other rows cuts the work
    (``ndcg@10`` on 10M rows, 1000 per query, 5 % relevant, shared 2-core
    machine: 0.44 s instead of 4.1 s, same values).  With
    tie-exact values a tie group across the cut needs every row: no cut.
    ``rows`` is None when every row is kept (the tie-exact values, or no
    query with more than k rows).
    """
    if exact or np.bincount(codes).max() <= k:
        return None, y_score
    start = np.searchsorted(codes, np.arange(codes[-1] + 1))
    retrieved = y_score > -np.inf
    # position among the query's retrieved rows (-J leaves -inf rows among
    # them); each query keeps its first row, so none goes missing
    before = np.cumsum(retrieved) - retrieved
    top = (before - before[start][codes] < k) & retrieved
    keep = top | (y_true > 0)
    keep[start] = True
    rows = np.flatnonzero(keep)
    return rows, np.where(top[rows], y_score[rows], -np.inf)


# ---------------------------------------------------------------------------
# Long-form tables (CSV, TSV, Parquet)
# ---------------------------------------------------------------------------
def _is_parquet(path):
    return path.lower().endswith((".parquet", ".pq"))


def _text_sep(path, sep):
    if sep is not None:
        return sep
    return "\t" if path.lower().endswith((".tsv", ".tab", ".tsv.gz")) else ","


def _read_long(path, columns, sep, id_col):
    """The requested columns of a table file: numeric columns as numpy
    arrays, and the query ids (column ``id_col``) read once, as
    :func:`_id_column` says: a text table's ids are strings exactly as
    written (``007`` is not ``7``, ``NA`` is an id), a Parquet column keeps
    its type, and a missing id is an error naming the file, the column and
    the first row."""
    unique = list(dict.fromkeys(columns))
    if _is_parquet(path):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise UsageError(
                f"--long {path!r}: reading Parquet needs pyarrow "
                "(pip install pyarrow), or convert the file to CSV."
            ) from None
        available = pq.read_schema(path).names
        _check_columns(path, columns, available)
        table = pq.read_table(path, columns=unique)
        return {
            c: _id_column(path, c, table.column(c))
            if c == id_col
            else _cells(path, c, table.column(c))
            for c in columns
        }
    sep = _text_sep(path, sep)
    with open(path, encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    _check_columns(path, columns, header)
    try:
        import pyarrow as pa
        import pyarrow.csv as pa_csv
    except ImportError:
        pa_csv = None
    if pa_csv is not None:
        table = pa_csv.read_csv(
            path,
            parse_options=pa_csv.ParseOptions(delimiter=sep),
            convert_options=pa_csv.ConvertOptions(
                include_columns=unique,
                # the ids as written: no type guessed, no null strings
                column_types={id_col: pa.string()},
                strings_can_be_null=False,
                null_values=_text_nulls(pa_csv),
            ),
        )
        return {
            c: _id_column(path, c, table.column(c))
            if c == id_col
            else _cells(path, c, table.column(c))
            for c in columns
        }
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        options = _pandas_id_options(id_col, unique)
        frame = pd.read_csv(path, sep=sep, usecols=unique, **options)
        return {
            c: _id_column(path, c, frame[c].to_numpy(dtype=object))
            if c == id_col
            else _cells(path, c, frame[c])
            for c in columns
        }
    with open(path, encoding="utf-8", newline="") as fh:  # pragma: no cover
        reader = csv.DictReader(fh, delimiter=sep)
        rows = list(reader)
    out = {c: np.array([r[c] for r in rows]) for c in columns}  # pragma: no cover
    out[id_col] = _id_column(path, id_col, out[id_col].astype(object))
    return out  # pragma: no cover


def _text_nulls(pa_csv):
    """The cells pyarrow's CSV reader reads as missing: its defaults (the
    empty cell, ``NA``, ``null``, ...) but NaN's spellings (``nan``,
    ``NaN``, ``-nan``), which stay numbers, so that a NaN cell is reported
    as NaN and an empty one as empty."""
    return [
        v
        for v in pa_csv.ConvertOptions().null_values
        if v.lstrip("+-").lower() != "nan"
    ]


def _pandas_id_options(id_col, columns):
    """``read_csv`` options that keep the ids as written: strings, and no
    cell of the id column read as NA (``NA``, ``nan`` and ``None`` are ids
    in a text file; an empty cell stays empty, and is refused); in the
    other columns an empty cell is NA (a clear error there too)."""
    others = {c: [""] for c in columns if c != id_col}
    return dict(dtype={id_col: str}, keep_default_na=False, na_values=others)


def _id_column(path, name, column, first_row=0):
    """The ids of column ``name``, read once and never re-typed.

    Strings (a text table's, or a Parquet string column's) stay exactly as
    written; another Parquet type stays what it is (integers are numbers,
    so the same digits in a CSV table group the same rows).  A missing id
    -- a null, a NaN, an empty cell or one of spaces only -- is an error
    naming the file, the column and the first such row (``first_row``:
    the file row of the column's first entry, for chunks).

    Returns a pyarrow string array (the text and Parquet readers), or a
    numpy array (numbers, or strings without pyarrow).
    """
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa is not None and isinstance(column, pa.Array):
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        if pa.types.is_large_string(column.type) or (
            hasattr(pa.types, "is_string_view") and pa.types.is_string_view(column.type)
        ):
            column = column.cast(pa.string())
        if pa.types.is_string(column.type):
            import pyarrow.compute as pc

            blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(column)), 0)
            missing = _arrow_numpy(pc.fill_null(blank, True))
            if missing.any():
                i = int(np.flatnonzero(missing)[0])
                _missing_id(path, name, first_row + i, column[i].as_py())
            return column
        if column.null_count:
            missing = _arrow_numpy(column.is_null())
            _missing_id(path, name, first_row + int(np.flatnonzero(missing)[0]), None)
        column = np.asarray(column.to_numpy(zero_copy_only=False))
    ids = np.asarray(column)
    if ids.dtype.kind == "f":
        nan = np.isnan(ids)
        if nan.any():
            _missing_id(path, name, first_row + int(np.flatnonzero(nan)[0]), math.nan)
    elif (ids.dtype == object or ids.dtype.kind == "U") and pa is not None:
        # strings (pandas' chunks): checked in Arrow, returned as they are
        _id_column(
            path, name, pa.array(ids, type=pa.string(), from_pandas=True), first_row
        )
        return ids
    elif ids.dtype == object or ids.dtype.kind == "U":  # without pyarrow
        text = np.array([x if isinstance(x, str) else "" for x in ids], dtype=object)
        missing = np.char.str_len(np.char.strip(text.astype(str))) == 0
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            _missing_id(path, name, first_row + i, ids[i])
        ids = text
    return ids


def _arrow_numpy(array):
    return np.asarray(array.to_numpy(zero_copy_only=False))


def _missing_id(path, name, i, value):
    if value is None or value == "":
        what = "is empty"
    elif isinstance(value, float) and math.isnan(value):
        what = "is NaN (not a number)"
    else:
        what = f"is blank ({value!r})"
    raise UsageError(
        f"--long {path!r}: column {name!r}, {_where(path, i)}: the query id "
        f"{what}; every row needs the id of its query: fill the cell or drop "
        "the row."
    )


def _check_columns(path, wanted, available):
    if not available:
        raise UsageError(f"--long {path!r}: the file is empty (no header line).")
    missing = [c for c in dict.fromkeys(wanted) if c not in available]
    if missing:
        raise UsageError(
            f"--long {path!r}: no column {', '.join(map(repr, missing))}. "
            f"Available columns: {', '.join(map(repr, available))}."
        )


def _cells(path, name, column, first_row=0):
    """The numbers of column ``name`` (a pyarrow or pandas column,
    ``first_row`` the file row of its first entry) as float64.

    A cell that is not a number is an error naming the file, the column
    and its row: a missing one -- empty, a Parquet null, or a text
    reader's null such as ``NA`` -- as empty, a NaN (``nan`` in a text
    table) as NaN.
    """
    if hasattr(column, "isna"):  # a pandas Series (``NA`` is text there)
        missing = np.asarray(column.isna())
    else:
        missing = _arrow_numpy(column.is_null()) if column.null_count else None
    what = "is empty; fill the cell"
    if missing is None or not missing.any():
        if hasattr(column, "isna"):
            arr = column.to_numpy()
        else:
            arr = _arrow_numpy(column)
        arr = _numeric(path, name, arr)
        missing = np.isnan(arr)
        what = "is NaN (not a number); every cell must be a number"
    if missing.any():
        at = _where(path, first_row + int(np.flatnonzero(missing)[0]))
        raise UsageError(f"--long {path!r}: column {name!r}, {at}: a cell {what}.")
    return arr


def _numeric(path, name, arr):
    try:
        out = np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(
            f"--long {path!r}: column {name!r} must be numeric; found "
            f"{next((x for x in arr if not _is_number(x)), arr[0])!r}."
        ) from None
    return out


def _where(path, i):
    """Where row ``i`` (0-based, of the rows read) is in the file."""
    if path.lower().endswith((".parquet", ".pq")):
        return f"row {i + 1}"
    return f"line {i + 2}"  # after the header line


def _check_cells(path, name, values, negative=False, locate=True):
    """NaN cells, and negative ones if ``negative``: a clear error (naming
    the line when ``locate``: the rows are the whole file's).  Empty cells
    are refused as they are read (:func:`_cells`)."""
    bad = np.isnan(values)
    if negative:
        bad |= values < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if np.isnan(values[i]):
            what, fix = "is NaN (not a number)", "every cell must be a number"
        else:
            what, fix = f"is negative ({float(values[i])!r})", "grades must be >= 0"
        at = f", {_where(path, i)}" if locate else ""
        raise UsageError(f"--long {path!r}: column {name!r}{at}: a cell {what}; {fix}.")


def _is_number(x):
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def _query_codes(q):
    """Codes 0..n-1 in sorted id order, and the ids as read (strings as
    written, in byte order as trec_eval sorts them; Parquet numbers as
    numbers, in numeric order)."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(q, np.ndarray) and q.dtype == object:
        q = pa.array(q, type=pa.string())  # strings (chunks of text)
    if pa is not None and isinstance(q, pa.Array):
        (codes,), vocab = _encode([q], sort=True)
        return codes, _vocab_list(vocab)
    ids, codes = np.unique(q, return_inverse=True)
    return codes.reshape(-1), ids


def _vocab_list(vocab):
    return np.asarray(vocab.to_numpy(zero_copy_only=False), dtype=object)


def _evaluate_long(args, measures, progress):
    if args.files:
        raise UsageError(
            "--long evaluates one table; give no qrels or run files with it "
            f"(got {' '.join(args.files)})."
        )
    if not (args.query_col and args.label_col and args.score_col):
        raise UsageError(
            "--long needs --query-col, --label-col and --score-col "
            "(several score columns compare several models)."
        )
    if args.complete or args.max_docs is not None:
        raise UsageError(
            "-c and -M apply to TREC runs only; with --long every row of the "
            "table is evaluated."
        )
    if any(m.metric == "runid" for m in measures):
        measures = [m for m in measures if m.metric != "runid"]
    if args.chunk_rows < 1:
        raise UsageError(f"--chunk-rows must be >= 1, got {args.chunk_rows}.")
    columns = [args.query_col, args.label_col, *args.score_col]
    if args.weight_col:
        columns.append(args.weight_col)
    path = args.long
    if not os.path.isfile(path):
        raise UsageError(f"--long: file not found: {path!r}")
    if not _fits_in_one_chunk(path, args.chunk_rows):
        return _evaluate_long_chunked(args, measures, columns, progress), measures
    progress.step(f"reading {path}")
    data = _read_long(path, columns, args.sep, args.query_col)
    if len(data[args.query_col]) == 0:
        raise UsageError(f"--long {path!r}: the table has no rows.")
    progress.step("evaluating")
    codes, ids = _query_codes(data[args.query_col])
    values = _long_part(args, measures, data, codes, len(ids), ids=ids)
    progress.done()
    return _long_results(args, measures, ids, values), measures


def _long_part(args, measures, data, codes, n_q, ids=None):
    """Per score column the :class:`PerQuery` values and weights of rows
    holding whole queries (``codes`` 0..n_q-1, ``ids`` their ids in the
    file when known)."""
    path = args.long
    y_true = _numeric(path, args.label_col, data[args.label_col])
    locate = ids is not None  # the chunked reader's rows are a chunk's
    _check_cells(path, args.label_col, y_true, negative=True, locate=locate)
    weight = None
    if args.weight_col:
        weight = _numeric(path, args.weight_col, data[args.weight_col])
        _check_cells(path, args.weight_col, weight, locate=locate)
        first = np.zeros(n_q)
        first[codes[::-1]] = weight[::-1]
        varying = np.flatnonzero(weight != first[codes])
        if varying.size:
            i = varying[0]
            q = ids[codes[i]] if locate else codes[i]
            at = f" ({_where(path, i)})" if locate else ""
            raise UsageError(
                f"--long {path!r}: column {args.weight_col!r} must be constant "
                f"within a query (it is the query's weight); query {q!r} has "
                f"{float(first[codes[i]])!r} and {float(weight[i])!r}{at}."
            )
    values = {}
    for col in args.score_col:
        y_score = _numeric(path, col, data[col])
        _check_cells(path, col, y_score, locate=locate)
        values[col] = per_query_values(
            measures,
            y_true,
            y_score,
            codes,
            n_queries=n_q,
            ignore_ties=args.ties == "trec_eval",
            no_relevant=args.no_relevant,
            relevance_threshold=args.level,
            sample_weight=weight,
            query_weighting=args.query_weighting,
        )
    return values


def _long_results(args, measures, ids, values):
    """One :class:`Result` per score column from its :class:`PerQuery`."""
    n_q = len(ids)
    return [
        Result(
            col,
            ids,
            values[col].values,
            _summary(measures, values[col].values, values[col].weights, n_q),
            values[col].weights,
        )
        for col in args.score_col
    ]


# ---------------------------------------------------------------------------
# Long-form tables larger than memory: chunk by chunk
# ---------------------------------------------------------------------------
def _fits_in_one_chunk(path, chunk_rows):
    """Whether the table has at most ``chunk_rows`` rows (then it is read
    whole, as it always was).  Parquet: its metadata; text: its lines,
    counted up to the limit only (a quoted field with a line break counts
    one line too many, which at worst sends a table to the chunked reader;
    compressed text is read whole)."""
    lower = path.lower()
    if lower.endswith((".parquet", ".pq")):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return True  # _read_long says pyarrow is needed
        return pq.ParquetFile(path).metadata.num_rows <= chunk_rows
    if lower.endswith((".gz", ".bz2", ".zip", ".xz", ".zst")):
        return True
    lines, last = 0, b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(1 << 24):
            lines += block.count(b"\n")
            last = block[-1:]
            if lines > chunk_rows + 1:  # the header and chunk_rows rows
                return False
    return lines + (last != b"\n") <= chunk_rows + 1


def _long_chunks(path, columns, sep, chunk_rows, query_col):
    """The requested columns of a table, ``chunk_rows`` rows at a time.

    Parquet: pyarrow's ``iter_batches``; CSV/TSV: pandas'
    ``read_csv(chunksize=...)``.  The query ids are read as by
    :func:`_read_long` (text: strings as written; Parquet: the column's
    type), as numpy arrays.
    """
    unique = list(dict.fromkeys(columns))
    row = 0  # the file row of the chunk's first row, for messages
    if _is_parquet(path):
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        _check_columns(path, columns, pf.schema_arrow.names)
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=unique):
            chunk = {}
            for c in columns:
                column = batch.column(batch.schema.get_field_index(c))
                if c == query_col:
                    column = _id_column(path, c, column, first_row=row)
                    if not isinstance(column, np.ndarray):
                        column = _arrow_numpy(column)
                else:
                    column = _cells(path, c, column, first_row=row)
                chunk[c] = column
            row += batch.num_rows
            yield chunk
        return
    try:
        import pandas as pd
    except ImportError:
        raise UsageError(
            f"--long {path!r}: reading a text table in chunks (it has more "
            "than --chunk-rows rows) needs pandas (pip install pandas), or "
            "convert it to Parquet."
        ) from None
    sep = _text_sep(path, sep)
    with open(path, encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    _check_columns(path, columns, header)
    reader = pd.read_csv(
        path,
        sep=sep,
        usecols=unique,
        chunksize=chunk_rows,
        **_pandas_id_options(query_col, unique),
    )
    with reader:
        for frame in reader:
            chunk = {
                c: _cells(path, c, frame[c], first_row=row)
                for c in columns
                if c != query_col
            }
            ids = frame[query_col].to_numpy(dtype=object)
            chunk[query_col] = _id_column(path, query_col, ids, first_row=row)
            row += len(frame)
            yield chunk


def _evaluate_long_chunked(args, measures, columns, progress):
    """The results of :func:`_evaluate_long` for a table read in chunks.

    Each chunk's whole queries go through the same code as an in-memory
    table (:func:`_long_part`), so every per-query value is the same
    function of the same rows, and the summary is computed at the end over
    every query, in id order: the output equals the in-memory one.  The
    query of a chunk's last row may continue in the next chunk: its rows
    are held back.  Any other query is closed, and a closed query seen
    again means the rows are not grouped by query: a usage error (the
    per-query values of every query are kept, O(queries) memory, for the
    comparison and --per-query).
    """
    from .._evaluation._state import _ClosedQueries, hold_last_query, with_held_rows

    path, qcol = args.long, args.query_col
    closed = _ClosedQueries()
    parts, held, row = [], None, 0
    progress.step(
        f"reading and evaluating {path} in chunks of {args.chunk_rows:,} rows"
    )
    chunks = _long_chunks(path, columns, args.sep, args.chunk_rows, qcol)
    for number, chunk in enumerate(chunks, start=1):
        n_rows = len(chunk[qcol])
        if n_rows == 0:
            continue
        codes, ids = _query_codes(chunk[qcol])
        found = closed.find(ids[np.unique(codes)])
        if found is not None:
            raise UsageError(
                f"--long {path!r}: the rows of query {found[0]!r} are not "
                f"together: it appears again in rows {row + 1:,}-"
                f"{row + n_rows:,} (chunk {number}) after other queries "
                f"(its rows before were in chunk {found[1]}). A table "
                "larger than --chunk-rows must have its rows grouped by "
                f"query: sort the file by the {qcol!r} column, or evaluate "
                "it with sklearn_rankmetrics.dask or sklearn_rankmetrics."
                "spark (or raise --chunk-rows if it fits in memory)."
            )
        row += n_rows
        # the open-query handling of RankingEvaluator.update
        arrays = with_held_rows(held, tuple(chunk[c] for c in columns))
        q = arrays[columns.index(qcol)]
        done, held = hold_last_query(arrays, q)
        data = dict(zip(columns, done, strict=True))
        if data[qcol].size:
            codes, ids = _query_codes(data[qcol])
            parts.append((ids, _long_part(args, measures, data, codes, len(ids))))
            closed.add(ids, number)
    if held is None:
        raise UsageError(f"--long {path!r}: the table has no rows.")
    held = dict(zip(columns, held, strict=True))
    codes, ids = _query_codes(held[qcol])
    parts.append((ids, _long_part(args, measures, held, codes, len(ids))))
    progress.step("summarising")
    ids = np.concatenate([p[0] for p in parts])
    order = np.argsort(ids, kind="stable")
    ids = ids[order]

    def gather(col, field):
        """``field`` of column ``col``'s PerQuery, every part's, in id order."""
        out = {}
        for label in getattr(parts[0][1][col], field):
            arrays = [getattr(part[col], field)[label] for _, part in parts]
            out[label] = np.concatenate(arrays)[order]
        return out

    values = {
        col: PerQuery(gather(col, "values"), gather(col, "weights"))
        for col in args.score_col
    }
    results = _long_results(args, measures, ids, values)
    progress.done()
    return results


def _no_relevant(value):
    if value == "skip":
        return "skip"
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if number not in (0.0, 1.0):
        raise UsageError(f"--no-relevant must be skip, 0 or 1, got {value!r}.")
    return number


def _check_comparison_options(args):
    if not 0 < args.confidence_level < 1:
        raise UsageError(
            f"--confidence-level must be in (0, 1), e.g. 0.95; got "
            f"{args.confidence_level}."
        )
    for flag, value in (
        ("--n-resamples", args.n_resamples),
        ("--n-bootstrap", args.n_bootstrap),
    ):
        if value < 1:
            raise UsageError(f"{flag} must be >= 1, got {value}.")


def _compare(args, measures, results):
    """The :class:`~sklearn_rankmetrics._evaluation._compare.RankingComparison` of the
    results, from the per-query values already computed (so TREC runs keep
    trec_eval's conventions) and their query weights, those of the summary
    (the report's: GAUC's ``--query-weighting``, ``--weight-col``), so that
    each mean of the comparison is the summary's.  Queries are paired by
    id; a query one run does not answer (TREC without -c) is nan for it:
    out of its mean, as in trec_eval, and out of the pairs it is in."""
    import warnings

    from .._evaluation._compare import _compare_values

    names = [r.name for r in results]
    if args.baseline is not None and args.baseline not in names:
        raise UsageError(
            f"--baseline {args.baseline!r} is not one of the compared "
            f"{'score columns' if args.long else 'runs'}: "
            f"{', '.join(map(repr, names))}."
        )
    labels = [
        m.label
        for m in measures
        if m.metric not in ("runid", "num_q", *_COUNTS) and m.label in results[0].values
    ]
    if not labels:
        raise UsageError(
            "nothing to compare: the measures are counts only; add a measure "
            "(e.g. -m map) or pass --no-compare."
        )
    ids = results[0].query_ids
    same = all(
        len(r.query_ids) == len(ids) and np.array_equal(r.query_ids, ids)
        for r in results
    )
    if not same:
        ids = np.unique(np.concatenate([r.query_ids for r in results]))
    per_query, weights = {}, {}
    for r in results:
        v = np.column_stack([r.values[lab] for lab in labels]).astype(np.float64)
        ones = np.ones(len(r.query_ids))
        w = np.column_stack([r.weights.get(lab, ones) for lab in labels])
        if not same:
            rows = np.searchsorted(ids, r.query_ids)
            v, w = _placed(v, rows, len(ids), np.nan), _placed(w, rows, len(ids), 0.0)
        per_query[r.name], weights[r.name] = v, w
    _check_paired_weights(args, labels, ids, per_query, weights)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparison = _compare_values(
            per_query,
            labels,
            ids,
            weights=weights,
            baseline=args.baseline,
            test=args.test,
            n_resamples=args.n_resamples,
            n_bootstrap=args.n_bootstrap,
            confidence_level=args.confidence_level,
            correction=None if args.correction == "none" else args.correction,
            random_state=args.seed,
        )
    if not args.quiet:
        for w in caught:
            print(f"{prog()}: note: {w.message}", file=sys.stderr)
    return comparison


def _placed(rows_values, rows, n_rows, fill):
    """``rows_values`` at rows ``rows`` of an array of ``n_rows`` rows."""
    out = np.full((n_rows, rows_values.shape[1]), fill)
    out[rows] = rows_values
    return out


def _check_paired_weights(args, labels, ids, per_query, weights):
    """What the paired tests need of the query weights, checked with the
    command line's words (as ``_compare_values`` checks them): a paired
    query weighs the same for both runs, and the t-test and the Wilcoxon
    test, which weigh every query alike, need equal weights."""
    from .._evaluation._compare import _pairs

    for model, ref in _pairs(list(per_query), args.baseline):
        both = ~np.isnan(per_query[model]) & ~np.isnan(per_query[ref])
        for j, label in enumerate(labels):
            w, w_ref = weights[model][both[:, j], j], weights[ref][both[:, j], j]
            gauc = label == "gauc"
            fix = "pass --query-weighting uniform" if gauc else "drop --weight-col"
            differ = np.flatnonzero(w != w_ref)
            if differ.size:
                i = differ[0]
                query = ids[np.flatnonzero(both[:, j])[i]]
                raise UsageError(
                    f"{label}: query {query!r} weighs {float(w[i]):g} for "
                    f"{model!r} and {float(w_ref[i]):g} for {ref!r} (GAUC "
                    "weighs a query by the rows its AUC reads, and the two "
                    "have different candidates), but a paired test needs "
                    f"one weight per query: {fix}, or pass --no-compare."
                )
            if args.test != "permutation" and np.unique(w).size > 1:
                why = (
                    f"GAUC weighs the queries by their {args.query_weighting}"
                    if gauc
                    else "--weight-col gives the queries different weights"
                )
                raise UsageError(
                    f"{label}: --test {args.test} weighs every query alike, "
                    f"but {why}: pass --test permutation (it weighs the "
                    f"differences), {fix}, or pass --no-compare."
                )


def _evaluate(args):
    progress = _Progress(args.quiet)
    notes = []
    _check_comparison_options(args)
    if args.query_weighting is None:  # GAUC's: trec_eval weighs queries alike
        args.query_weighting = "impressions" if args.long else "uniform"
    if args.long:
        if args.ties is None:
            args.ties = "expected"
        args.no_relevant = _no_relevant(args.no_relevant)
        measures = parse_measures(args.measure, default=_LONG_DEFAULT, notes=notes)
        results, measures = _evaluate_long(args, measures, progress)
        query_name = args.query_col
    else:
        if args.ties is None:
            args.ties = "trec_eval"
        measures = parse_measures(args.measure, default=["official"], notes=notes)
        results = _evaluate_trec(args, measures, progress)
        query_name = "query"
    if not args.quiet:
        for note in notes:
            print(f"{prog()}: note: {note}", file=sys.stderr)
    fmt = args.format
    if fmt is None:
        fmt = "trec" if len(results) == 1 and not args.long else "table"
    comparison = None
    if len(results) > 1 and not args.no_compare and fmt != "trec":
        if fmt == "csv" and args.per_query:
            raise UsageError(
                "--format csv prints one table: the comparison of the runs, "
                "or with --no-compare the values (per query with -q); write "
                "the per-query values with --per-query OUT instead of -q."
            )
        progress.step("comparing")
        comparison = _compare(args, measures, results)
        progress.done()
    elif args.baseline is not None:
        raise UsageError(
            "--baseline names the reference of the comparison of several "
            "runs or score columns"
            + (
                " (none with --format trec or --no-compare)."
                if len(results) > 1
                else "."
            )
        )
    buffer = io.StringIO()
    if comparison is None:
        _WRITERS[fmt](buffer, measures, results, args.per_query)
    else:
        _COMPARISON_WRITERS[fmt](buffer, measures, results, args.per_query, comparison)
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()
    if args.per_query_file:
        _write_per_query(args.per_query_file, measures, results, query_name)
    return 0
