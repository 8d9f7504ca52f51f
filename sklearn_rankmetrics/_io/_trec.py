"""Read TREC qrels and run files into the long form, the trec_eval way.

A *qrels* file holds judgements, ``query iter doc grade`` per line; a *run*
holds a system's results, ``query Q0 doc rank score tag`` per line (fields
separated by any whitespace; trec_eval ignores the ``iter``, ``Q0`` and
``rank`` fields and any field after the tag).  :func:`trec_to_long_form`
joins the two into the long form every metric of the package takes, with
trec_eval's conventions:

- each query's documents are ranked by decreasing score, ties broken by
  *decreasing* document id (byte order), as trec_eval's ``form_res_rels``
  does.  The rows come out in that order, so a metric with
  ``ignore_ties=True`` (earlier rows first among ties) ranks exactly as
  trec_eval does, while the default ``ignore_ties=False`` gives the
  tie-exact expected value;
- judged documents the run did not return are rows scored ``-inf`` (not
  retrieved): relevant ones still count in recall and in the ideal DCG;
- retrieved documents without a judgement are non-relevant (grade 0);
- only the queries of the qrels are evaluated, and of those only the ones
  the run answers, unless ``all_queries=True`` (trec_eval's ``-c``);
- ``max_docs`` keeps the first documents of each ranking (``-M``).

Parsing is vectorised with pyarrow when it is installed (split on
whitespace in Arrow, no Python loop over lines); without pyarrow a plain
Python reader takes over (slower, same results and messages).
"""

import os
import sys
from typing import NamedTuple

import numpy as np

from ._columns import one_array

__all__ = ["read_trec_qrels", "read_trec_run", "trec_to_long_form"]

_DUPLICATES = ("error", "first", "last")


class TrecQrels(NamedTuple):
    """Judgements of a qrels file, one entry per (query, document) pair."""

    query_id: np.ndarray
    doc_id: np.ndarray
    relevance: np.ndarray


class TrecRun(NamedTuple):
    """Results of a run file, one entry per (query, document) pair."""

    query_id: np.ndarray
    doc_id: np.ndarray
    score: np.ndarray
    run_tag: str


class TrecLongForm(NamedTuple):
    """A run joined with its qrels, in the package's long form."""

    y_true: np.ndarray
    y_score: np.ndarray
    query_id: np.ndarray


class TrecJudgedLongForm(NamedTuple):
    """:class:`TrecLongForm` and which rows the qrels judge."""

    y_true: np.ndarray
    y_score: np.ndarray
    query_id: np.ndarray
    judged: np.ndarray


class TrecFormatError(ValueError):
    """A TREC file that cannot be read (malformed line, duplicate pair)."""


# ---------------------------------------------------------------------------
# Reading: string columns (pyarrow arrays, or numpy object arrays without
# pyarrow) and the 1-based line number of each entry, for messages
# ---------------------------------------------------------------------------
def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pa_csv
    except ImportError:  # pragma: no cover - exercised without pyarrow
        return None
    return pa, pc, pa_csv


def _release_arrow_memory():
    """Give the memory pyarrow's pool keeps back to the system (the
    reader's buffers, the hash tables of an encoding: mimalloc and jemalloc
    keep freed pages).  2M-line run: peak RSS of the command line 334 ->
    291 MB for the calls in _align."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


def _line_text(path, line_no):
    """The text of line ``line_no`` (1-based) of ``path``, for messages."""
    with open(path, "rb") as fh:
        for i, line in enumerate(fh, start=1):
            if i == line_no:
                return line.decode("utf-8", "replace").rstrip("\r\n")
    return ""


def _check_path(path, what):
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} file not found: {path!r}")
    return path


def _bad_field_count(path, line_no, n_fields, expected):
    text = _line_text(path, line_no)
    return TrecFormatError(
        f"{path}, line {line_no}: expected {expected}, found {n_fields} "
        f"field(s): {text!r}"
    )


def _arrow_numpy(array):
    """A pyarrow array as numpy; numbers without nulls straight from the
    array's buffer (pyarrow's ``to_numpy`` imports pandas, about half a
    second of the command line's start-up)."""
    pa, _, _ = _pyarrow()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    if array.null_count == 0 and (
        pa.types.is_integer(kind) or pa.types.is_floating(kind)
    ):
        code = "f" if pa.types.is_floating(kind) else "i"
        if pa.types.is_unsigned_integer(kind):
            code = "u"
        dtype = np.dtype(f"<{code}{kind.bit_width // 8}")
        if len(array) == 0:
            return np.empty(0, dtype=dtype)
        return np.frombuffer(
            array.buffers()[1],
            dtype=dtype,
            count=len(array),
            offset=array.offset * dtype.itemsize,
        )
    return array.to_numpy(zero_copy_only=False)


def _arrow_indices(rows):
    """Row numbers as a pyarrow int64 array (without ``pa.array``, which
    imports pandas)."""
    pa, _, _ = _pyarrow()
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), rows.size, [None, pa.py_buffer(rows)])


def _split_pyarrow(path, n_min, n_max, expected, keep):
    """Fields ``keep`` of every content line, split in Arrow."""
    pa, pc, pa_csv = _pyarrow()
    try:
        table = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=["line"], block_size=4 << 20),
            parse_options=pa_csv.ParseOptions(
                delimiter="\x1f",
                quote_char=False,
                escape_char=False,
                ignore_empty_lines=False,
            ),
            convert_options=pa_csv.ConvertOptions(column_types={"line": pa.string()}),
        )
    except pa.ArrowInvalid as exc:
        if "Empty CSV file" in str(exc):
            return None
        raise TrecFormatError(f"{path}: cannot read the file as text: {exc}") from exc
    text = one_array(table.column("line"))
    trimmed = pc.utf8_trim_whitespace(text)
    fields = pc.ascii_split_whitespace(trimmed)
    n_fields = pc.list_value_length(fields).to_numpy(zero_copy_only=False)
    blank = pc.equal(pc.binary_length(trimmed), 0).to_numpy(zero_copy_only=False)
    comment = pc.starts_with(trimmed, "#").to_numpy(zero_copy_only=False)
    content = ~blank & ~comment
    bad = content & ((n_fields < n_min) | (n_fields > n_max))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _bad_field_count(path, i + 1, int(n_fields[i]), expected)
    rows = np.flatnonzero(content)
    if rows.size == 0:
        return None
    if rows.size != len(text):
        fields = fields.take(_arrow_indices(rows))
    columns = [pc.list_element(fields, j) for j in keep]
    return columns, rows + 1


def _split_python(path, n_min, n_max, expected, keep):
    """The fallback reader (no pyarrow): the same fields, split in Python."""
    with open(path, encoding="utf-8", errors="strict") as fh:
        try:
            raw = fh.read()
        except UnicodeDecodeError as exc:
            raise TrecFormatError(f"{path}: the file is not UTF-8 text: {exc}") from exc
    split = [line.split() for line in raw.splitlines()]
    rows = [
        i for i, parts in enumerate(split) if parts and not parts[0].startswith("#")
    ]
    for i in rows:
        if not n_min <= len(split[i]) <= n_max:
            raise _bad_field_count(path, i + 1, len(split[i]), expected)
    if not rows:
        return None
    columns = [np.array([split[i][j] for i in rows], dtype=object) for j in keep]
    return columns, np.asarray(rows, dtype=np.int64) + 1


def _split(path, n_min, n_max, expected, keep, arrow=True):
    if arrow and _pyarrow() is not None:
        return _split_pyarrow(path, n_min, n_max, expected, keep)
    return _split_python(path, n_min, n_max, expected, keep)


def _first_content_line(path):
    with open(path, "rb") as fh:
        for raw in fh:
            line = raw.decode("utf-8", "replace").strip()
            if line and not line.startswith("#"):
                return raw.decode("utf-8", "replace")
    return None


def _read_simple(path, n_fields, keep, types):
    """The fast path: ``pyarrow.csv`` on a file whose fields are separated
    by exactly one tab or one space (as TREC tools write them).

    Returns the ``keep`` columns (strings, or numbers for the entries of
    ``types`` that are not None), or None when the file is not that simple
    (extra fields, runs of spaces, comments, a bad number...): the general
    reader then parses it and reports errors with their line numbers.
    Line numbers are not tracked here; error paths recompute them.
    """
    arrow = _pyarrow()
    if arrow is None:
        return None
    pa, pc, pa_csv = arrow
    first = _first_content_line(path)
    if first is None:
        return None
    names = [f"f{i}" for i in range(n_fields)]
    wanted = [names[j] for j in keep]
    column_types = {
        name: pa.string() if kind is None else kind(pa)
        for name, kind in zip(wanted, types, strict=True)
    }
    delimiter = "\t" if "\t" in first else " "
    # a space inside a tab-separated field (or a tab inside a space-separated
    # one) is a field separator for trec_eval: the general reader splits it
    # (vertical tabs and form feeds are not looked for)
    other = " " if delimiter == "\t" else "\t"
    try:
        table = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=names, block_size=4 << 20),
            parse_options=pa_csv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                escape_char=False,
            ),
            convert_options=pa_csv.ConvertOptions(
                include_columns=wanted, column_types=column_types
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    columns = []
    for name, kind in zip(wanted, types, strict=True):
        column = one_array(table.column(name))
        if kind is None:
            # a field with whitespace inside, an empty field or a comment
            # line: leave the file to the general reader
            if len(column) == 0 or pc.any(pc.starts_with(column, "#")).as_py():
                return None
            if pc.min(pc.binary_length(column)).as_py() == 0:
                return None
            if _has_byte(column, other):
                return None
        columns.append(column)
    return columns


def _has_byte(column, char):
    """Whether a string of the pyarrow string array ``column`` holds the
    ASCII character ``char`` (numpy over the data buffer, a MB at a time:
    a quarter of ``match_substring``'s time)."""
    pa, _, _ = _pyarrow()
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    offsets = np.frombuffer(column.buffers()[1], dtype=width)
    first = int(offsets[column.offset])
    last = int(offsets[column.offset + len(column)])
    if last <= first:
        return False
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)[first:last]
    code, step = ord(char), 1 << 20
    return any(
        bool((data[a : a + step] == code).any()) for a in range(0, data.size, step)
    )


def _last_tag(path):
    """The run tag (6th field) of the last content line, as trec_eval keeps."""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        block = 1 << 16
        while True:
            start = max(0, size - block)
            fh.seek(start)
            tail = fh.read().decode("utf-8", "replace").splitlines()
            lines = tail if start == 0 else tail[1:]
            for line in reversed(lines):
                fields = line.split()
                if fields and not fields[0].startswith("#"):
                    return fields[5]
            if start == 0:
                return ""
            block *= 4


def _to_numpy_str(column):
    """A column of strings as a numpy object array."""
    if isinstance(column, np.ndarray):
        return column
    if len(column) < 100_000:  # to_numpy imports pandas: not for a few ids
        out = np.empty(len(column), dtype=object)
        out[:] = column.to_pylist()
        return out
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=object)


def _first_bad(tokens, dtype):
    """Index of the first token that does not convert (error path only)."""
    for i, token in enumerate(tokens):
        try:
            np.asarray(token).astype(dtype)
        except ValueError:
            return i
    return 0


def _parse_numbers(path, column, lines, dtype, what):
    """Convert a string column to numbers, naming the first bad line."""
    if isinstance(column, np.ndarray):
        try:
            return np.asarray(column.astype(dtype))
        except ValueError:
            bad = _first_bad(column, dtype)
    else:
        pa, pc, _ = _pyarrow()
        target = pa.float64() if dtype is np.float64 else pa.int64()
        try:
            return _arrow_numpy(pc.cast(column, target))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            bad = _first_bad(column.to_pylist(), dtype)
    line_no = int(lines[bad])
    kind = "a number" if dtype is np.float64 else "an integer"
    raise TrecFormatError(
        f"{path}, line {line_no}: {what} is not {kind}: {_line_text(path, line_no)!r}"
    )


class _TrecFile(NamedTuple):
    """A parsed TREC file: string columns, numeric values, line numbers."""

    path: str
    query: object  # pyarrow string array, or numpy object array
    doc: object
    value: np.ndarray  # grades (int64) or scores (float64)
    lines: object  # 1-based line numbers; None if the fast reader skipped them
    tag: object  # the run's tag (last line's); None for qrels


_QRELS_SPEC = (4, 4, "4 fields (query iter doc grade)", (0, 2, 3))
_RUN_SPEC = (
    6,
    np.iinfo(np.int32).max,
    "at least 6 fields (query Q0 doc rank score tag)",
    (0, 2, 4, 5),
)


def _line_numbers(file):
    """1-based line numbers of a file's entries (recomputed on error paths
    when the fast reader did not track them)."""
    if file.lines is not None:
        return file.lines
    spec = _QRELS_SPEC if file.tag is None else _RUN_SPEC
    return _split(file.path, *spec)[1]


# Files this small (every file of a call) are read in Python: splitting
# them takes less than importing pyarrow.compute (about 0.1 s of the start-up
# of a one-query run; figures in benchmarks/bench_cli.py).
_SMALL_FILE_BYTES = 1 << 20


def _use_arrow(*paths):
    """Whether to read ``paths`` with pyarrow: installed, and some file is
    not small (a path that is not a file: the reader says so)."""
    small = all(
        isinstance(p, str | os.PathLike)
        and os.path.isfile(p)
        and os.path.getsize(p) < _SMALL_FILE_BYTES
        for p in paths
    )
    return not small and _pyarrow() is not None


def _read_qrels(path, arrow=True):
    path = _check_path(path, "qrels")
    fast = None
    if arrow:
        fast = _read_simple(path, 4, (0, 2, 3), (None, None, lambda pa: pa.int64()))
    if fast is not None:
        query, doc, grade = fast
        value = _arrow_numpy(grade)
        return _TrecFile(path, query, doc, value, None, None)
    split = _split(path, *_QRELS_SPEC, arrow=arrow)
    if split is None:
        raise TrecFormatError(f"{path}: the qrels file has no judgements.")
    (query, doc, grade), lines = split
    value = _parse_numbers(path, grade, lines, np.int64, "the grade (4th field)")
    return _TrecFile(path, query, doc, value, lines, None)


def _read_run(path, arrow=True):
    path = _check_path(path, "run")
    fast = None
    if arrow:
        fast = _read_simple(path, 6, (0, 2, 4), (None, None, lambda pa: pa.float64()))
    if fast is not None:
        query, doc, score = fast
        value = _arrow_numpy(score)
        file = _TrecFile(path, query, doc, value, None, _last_tag(path))
    else:
        split = _split(path, *_RUN_SPEC, arrow=arrow)
        if split is None:
            raise TrecFormatError(f"{path}: the run file has no results.")
        (query, doc, score, tag), lines = split
        value = _parse_numbers(path, score, lines, np.float64, "the score (5th field)")
        # trec_eval keeps the tag of the last line
        last_tag = tag[len(tag) - 1]
        last_tag = last_tag if isinstance(last_tag, str) else last_tag.as_py()
        file = _TrecFile(path, query, doc, value, lines, last_tag)
    nan = np.flatnonzero(np.isnan(file.value))
    if nan.size:
        line_no = int(_line_numbers(file)[nan[0]])
        raise TrecFormatError(
            f"{path}, line {line_no}: the score (5th field) is NaN: "
            f"{_line_text(path, line_no)!r}"
        )
    return file


# ---------------------------------------------------------------------------
# Encoding ids as integers (hash-based with pyarrow, sorting without)
# ---------------------------------------------------------------------------
def _encode(columns, sort, dtype=np.int64):
    """Integer codes of the strings of ``columns`` against one vocabulary.

    Returns ``(codes_per_column, vocabulary)``, codes of ``dtype``.  With
    ``sort`` the codes follow the byte order of the strings (the order of
    trec_eval's ``strcmp``); otherwise the order is arbitrary (first
    occurrence).
    """
    if isinstance(columns[0], np.ndarray):
        allv = np.concatenate(columns).astype(str)
        vocab, inverse = np.unique(allv, return_inverse=True)
        bounds = np.cumsum([0] + [len(c) for c in columns])
        codes = [
            inverse.reshape(-1)[a:b].astype(dtype)
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ]
        return codes, vocab.astype(object)
    pa, pc, _ = _pyarrow()
    encoded = pa.chunked_array(columns).dictionary_encode()
    vocab = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([])
    # (sorted: the codes are gathered below, no copy needed here)
    codes = [
        _arrow_numpy(chunk.indices).astype(dtype, copy=not sort)
        for chunk in encoded.chunks
    ]
    if sort and len(vocab):
        order = _arrow_numpy(pc.sort_indices(vocab))
        rank = np.empty(order.size, dtype=dtype)
        rank[order] = np.arange(order.size)
        codes = [rank[c] for c in codes]
        vocab = vocab.take(_arrow_indices(order))
    return codes, vocab


def _vocab_numpy(vocab, idx=None):
    if isinstance(vocab, np.ndarray):
        return vocab if idx is None else vocab[idx]
    pa, _, _ = _pyarrow()
    if idx is not None:
        vocab = vocab.take(_arrow_indices(idx))
    return _to_numpy_str(vocab)


def _duplicates(file, qcode, dcode, n_docs, what, policy, rows=None):
    """Entries to keep of a file, after checking (query, doc) duplicates.

    ``qcode`` and ``dcode`` number the query and document of each entry
    exactly; ``rows`` are the entries' indices in the file when they are a
    subset of it.  Returns None when there is no duplicate, else the sorted
    indices of the entries to keep (raising with ``policy="error"``).
    """
    key = qcode * np.int64(n_docs) + dcode
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    same = sorted_key[1:] == sorted_key[:-1]
    if not same.any():
        return None
    if policy == "error":
        j = int(np.flatnonzero(same)[0])
        first, second = sorted(order[j : j + 2])
        if rows is not None:
            first, second = rows[first], rows[second]
        lines = _line_numbers(file)
        raise TrecFormatError(
            f"{file.path}, lines {lines[first]} and {lines[second]}: "
            f"the {what} has the same (query, document) pair twice: "
            f"{_line_text(file.path, int(lines[second]))!r}. Remove the "
            "duplicate, or pass duplicates='first' or 'last' (the command "
            "line's --duplicates) to keep one; trec_eval itself stops with "
            "'duplicate docs'."
        )
    # among equal keys the stable order keeps file order
    if policy == "first":
        keep = np.ones(key.size, dtype=bool)
        keep[1:] = ~same
    else:
        keep = np.ones(key.size, dtype=bool)
        keep[:-1] = ~same
    return np.sort(order[keep])


def _check_duplicates(value):
    if value not in _DUPLICATES:
        raise ValueError(
            f"duplicates must be one of {', '.join(map(repr, _DUPLICATES))}, "
            f"got {value!r}."
        )


def _take(column, rows):
    if isinstance(column, np.ndarray):
        return column[rows]
    pa, _, _ = _pyarrow()
    return column.take(_arrow_indices(rows))


# ---------------------------------------------------------------------------
# Public readers
# ---------------------------------------------------------------------------
def read_trec_qrels(path, *, duplicates="error"):
    """Read a TREC qrels file.

    Each content line is ``query iter doc grade``, separated by any
    whitespace (``iter`` is ignored).  Blank lines and lines starting with
    ``#`` are skipped.  Grades are integers; trec_eval reads a negative
    grade as "in the pool but not judged" (never relevant, gain 0).

    Read more in the :ref:`User Guide <command_line>`.

    Parameters
    ----------
    path : str or path-like
        The qrels file.

    duplicates : {"error", "first", "last"}, default="error"
        What to do when a (query, document) pair occurs twice: raise a
        ``ValueError`` naming both lines (trec_eval stops too), or keep the
        first or the last occurrence (``"last"`` is what readers building a
        dict, such as pytrec_eval's ``parse_qrel``, do).

    Returns
    -------
    qrels : TrecQrels
        A named tuple ``(query_id, doc_id, relevance)`` of 1-D arrays in
        file order: ids as object arrays of ``str``, grades as ``int64``.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        On a malformed line (wrong number of fields, a grade that is not
        an integer), naming the file, the line number and its content; on
        a duplicate pair with ``duplicates="error"``; on a file without
        judgements.

    See Also
    --------
    read_trec_run : Read a TREC run file.
    trec_to_long_form : Join a run with its qrels into the long form.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankmetrics import read_trec_qrels
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "qrels.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d1 2\\n")
    ...     qrels = read_trec_qrels(path)
    >>> qrels.query_id.tolist(), qrels.doc_id.tolist(), qrels.relevance.tolist()
    (['q1', 'q1', 'q2'], ['d1', 'd2', 'd1'], [1, 0, 2])
    """
    _check_duplicates(duplicates)
    file = _read_qrels(path, _use_arrow(path))
    return _public_table(file, duplicates, "qrels", TrecQrels)


def read_trec_run(path, *, duplicates="error"):
    """Read a TREC run (results) file.

    Each content line is ``query Q0 doc rank score tag``, separated by any
    whitespace; the ``Q0`` and ``rank`` fields and any field after the tag
    are ignored, as trec_eval does (the rank is recomputed from the
    scores).  Blank lines and lines starting with ``#`` are skipped.

    Read more in the :ref:`User Guide <command_line>`.

    Parameters
    ----------
    path : str or path-like
        The run file.

    duplicates : {"error", "first", "last"}, default="error"
        What to do when a (query, document) pair occurs twice: raise a
        ``ValueError`` naming both lines (trec_eval stops with "duplicate
        docs" too), or keep the first or the last occurrence (``"last"``
        is what readers building a dict, such as pytrec_eval's
        ``parse_run``, do).

    Returns
    -------
    run : TrecRun
        A named tuple ``(query_id, doc_id, score, run_tag)``: ids as object
        arrays of ``str`` and scores as ``float64`` in file order, and the
        tag of the last line (the one trec_eval prints as ``runid``).

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        On a malformed line (fewer than 6 fields, a score that is not a
        number or is NaN), naming the file, the line number and its
        content; on a duplicate pair with ``duplicates="error"``; on a run
        without results.

    See Also
    --------
    read_trec_qrels : Read a TREC qrels file.
    trec_to_long_form : Join a run with its qrels into the long form.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankmetrics import read_trec_run
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "run.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    ...     run = read_trec_run(path)
    >>> run.doc_id.tolist(), run.score.tolist(), run.run_tag
    (['d1', 'd2'], [2.5, 1.0], 'bm25')
    """
    _check_duplicates(duplicates)
    file = _read_run(path, _use_arrow(path))
    return _public_table(file, duplicates, "run", TrecRun)


def _public_table(file, duplicates, what, cls):
    (qc,), _ = _encode([file.query], sort=False)
    (dc,), dv = _encode([file.doc], sort=False)
    keep = _duplicates(file, qc, dc, max(len(dv), 1), what, duplicates)
    query, doc, value = file.query, file.doc, file.value
    if keep is not None:
        query, doc, value = _take(query, keep), _take(doc, keep), value[keep]
    query, doc = _to_numpy_str(query), _to_numpy_str(doc)
    if cls is TrecRun:
        return TrecRun(query, doc, value, file.tag)
    return TrecQrels(query, doc, value)


# ---------------------------------------------------------------------------
# Joining a run with its qrels
# ---------------------------------------------------------------------------
class _Aligned(NamedTuple):
    """A run joined with its qrels, rows in trec_eval's ranking order.

    Rows are sorted by query (byte order of the ids), then by trec_eval's
    rank; each query's unretrieved judged documents come after its ranked
    ones.  ``codes`` index ``query_ids``.  ``grade`` is the qrels grade
    (0 for an unjudged document; negative grades are kept as read).
    ``score`` is the run's score, ``-inf`` for unretrieved rows; ``rank``
    is a score with the ties already broken trec_eval's way (decreasing
    with the row position), ``-inf`` for unretrieved rows.  ``judged``
    tells the rows whose document the qrels judge with a grade >= 0
    (trec_eval's bpref reads those only).
    """

    query_ids: np.ndarray
    codes: np.ndarray
    grade: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    run_tag: str
    judged: np.ndarray  # bool: the qrels judge the row's document (grade >= 0)


def _as_file(obj, reader, what):
    """A parsed file from a path, a reader's named tuple or a _TrecFile."""
    if isinstance(obj, _TrecFile):
        return obj
    if isinstance(obj, str | os.PathLike):
        return reader(obj)
    if isinstance(obj, tuple) and len(obj) in (3, 4):
        query = np.asarray(obj[0], dtype=object)
        doc = np.asarray(obj[1], dtype=object)
        value = np.asarray(obj[2])
        if not (query.ndim == doc.ndim == value.ndim == 1) or not (
            query.shape == doc.shape == value.shape
        ):
            raise ValueError(
                f"{what} must be a path or the tuple returned by "
                f"read_trec_{what}, with 1-D arrays of equal length."
            )
        tag = obj[3] if len(obj) == 4 else None
        lines = np.arange(1, query.size + 1)
        arrow = _pyarrow()
        if arrow is not None:  # the same column type as files read from disk
            query = arrow[0].array(query.astype(str), type=arrow[0].string())
            doc = arrow[0].array(doc.astype(str), type=arrow[0].string())
        return _TrecFile(f"<{what}>", query, doc, value, lines, tag)
    raise TypeError(
        f"{what} must be a path or the named tuple returned by "
        f"read_trec_{what}, got {type(obj).__name__}."
    )


def _string_hash(column):
    """A 64-bit hash of each string of a pyarrow string array.

    Computed in numpy over the array's buffers from the length and the last
    32 bytes of each string, read as four 8-byte words.  It only proves
    entries *different*; equal hashes are checked on the strings themselves
    (faster than ``dictionary_encode``, which the exact check then needs
    only for the few repeated hashes; figures in benchmarks/bench_cli.py).
    Strings are hashed in blocks of ``_HASH_BLOCK`` (the temporaries take
    a few MB, not several times the column).
    """
    pa, _, _ = _pyarrow()
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    offsets = np.frombuffer(column.buffers()[1], dtype=width)
    offsets = offsets[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    n = len(column)
    h = np.empty(n, dtype=np.uint64)
    for a in range(0, n, _HASH_BLOCK):
        b = min(n, a + _HASH_BLOCK)
        h[a:b] = _hash_block(data, offsets[a : b + 1].astype(np.int64))
    return h


_HASH_BLOCK = 1 << 17


def _hash_block(data, offsets):
    """:func:`_string_hash` of the strings between ``offsets`` in ``data``
    (the value of a string depends on its bytes only)."""
    lengths = offsets[1:] - offsets[:-1]
    first, last = int(offsets[0]), int(offsets[-1])
    # 32 zero bytes in front, so that every 8-byte window is in bounds
    padded = np.zeros(last - first + 32, dtype=np.uint8)
    padded[32:] = data[first:last]
    windows = np.ndarray(
        shape=(padded.size - 7,), dtype="<u8", buffer=padded, strides=(1,)
    )
    end = offsets[1:] - first + 32  # one past each string's last byte
    mult = np.uint64(0x9E3779B97F4A7C15)
    h = lengths.astype(np.uint64) * mult
    shortest, longest = int(lengths.min()), int(lengths.max())
    for i in range(4):  # always 4 rounds: the hash depends on the string only
        if longest <= 8 * i:  # no string reaches this window
            part = np.uint64(0)
        else:
            part = windows[end - 8 * (i + 1)]
        if shortest < 8 * (i + 1) < longest + 8:  # some end inside the window
            n_bytes = np.clip(lengths - 8 * i, 0, 8).astype(np.uint64)
            # little-endian: the string's bytes are the window's high bytes
            shift = np.uint64(8) * (np.uint64(8) - np.maximum(n_bytes, np.uint64(1)))
            part = np.where(n_bytes > 0, part >> shift, np.uint64(0))
        h = (h ^ part) * mult
        h ^= h >> np.uint64(29)
    return h


def _exact_codes(column, rows):
    """Exact integer codes of the strings ``column[rows]``."""
    (codes,), _ = _encode([_take(column, rows)], sort=False)
    return codes


def _run_duplicates(run, q_run, policy):
    """Run rows to keep after the (query, document) duplicate check.

    With pyarrow the documents are hashed; only rows whose (query, hash)
    pair repeats are compared exactly.  Without pyarrow, exact codes.
    """
    if isinstance(run.doc, np.ndarray):
        ident = _exact_codes(run.doc, np.arange(len(run.doc))).astype(np.uint64)
    else:
        ident = _string_hash(run.doc)
    key = ident * np.uint64(0xC2B2AE3D27D4EB4F) + q_run.astype(np.uint64)
    sorted_key = np.sort(key)
    repeated = sorted_key[1:][sorted_key[1:] == sorted_key[:-1]]
    if repeated.size == 0:
        return None  # distinct keys: distinct (query, document) pairs
    candidates = np.flatnonzero(np.isin(key, repeated))
    exact = _exact_codes(run.doc, candidates)
    keep = _duplicates(
        run,
        q_run[candidates],
        exact,
        max(int(exact.max()) + 1, 1),
        "run",
        policy,
        rows=candidates,
    )
    if keep is None:
        return None  # hash collisions only
    mask = np.ones(len(q_run), dtype=bool)
    mask[candidates] = False
    mask[candidates[keep]] = True
    return np.flatnonzero(mask)


def _judged_codes(doc, dvocab):
    """Index of each document in the qrels' vocabulary, -1 when unjudged."""
    if isinstance(doc, np.ndarray):
        vocab = np.asarray(dvocab).astype(str)  # sorted (np.unique)
        names = doc.astype(str)
        pos = np.minimum(np.searchsorted(vocab, names), max(vocab.size - 1, 0))
        found = vocab[pos] == names
        return np.where(found, pos, -1)
    pa, pc, _ = _pyarrow()
    index = pc.index_in(doc, value_set=dvocab)  # int32, null when absent
    if isinstance(index, pa.ChunkedArray):
        index = index.combine_chunks()
    n = len(index)
    if index.null_count == n:
        return np.full(n, -1, dtype=np.int32)
    # the values and the validity bitmap read in numpy (no Arrow copies)
    values = np.frombuffer(index.buffers()[1], dtype=np.int32)
    values = values[index.offset : index.offset + n]
    if index.null_count == 0:
        return values.copy()
    bits = np.frombuffer(index.buffers()[0], dtype=np.uint8)
    valid = np.unpackbits(bits, count=index.offset + n, bitorder="little")
    return np.where(valid[index.offset :].view(bool), values, np.int32(-1))


def _doc_keys(doc, rows):
    """Integer keys of the document ids of ``rows`` in byte order (equal
    ids, equal keys): pyarrow's dense rank, or ``np.unique``'s codes."""
    if isinstance(doc, np.ndarray):
        _, key = np.unique(doc[rows].astype(str), return_inverse=True)
        return key.reshape(-1)
    pa, pc, _ = _pyarrow()
    ranks = pc.rank(_take(doc, rows), sort_keys="ascending", tiebreaker="dense")
    return _arrow_numpy(ranks).astype(np.int64)


def _align(qrels, run, *, max_docs=None, all_queries=False, duplicates="error"):
    """Join parsed files into :class:`_Aligned` (trec_eval's conventions).

    In order: the queries evaluated, the run's rows to evaluate in
    trec_eval's order (:func:`_ranked_rows`), their grades
    (:func:`_run_grades`), the depth ``max_docs``, and the judged documents
    not retrieved inserted after their query's rows
    (:func:`_insert_missing`).

    Memory: a run's row takes a few words at a time here (int32 codes, no
    copy of a column that is already in order, the qrels looked up for the
    rows whose document is judged only); figures in benchmarks/bench_cli.py.
    """
    (q_run, q_qrels), qvocab = _encode(
        [run.query, qrels.query], sort=True, dtype=np.int32
    )
    (d_qrels,), dvocab = _encode([qrels.doc], sort=False)
    _release_arrow_memory()
    n_docs = max(len(dvocab), 1)
    keep = _duplicates(qrels, q_qrels, d_qrels, n_docs, "qrels", duplicates)
    g_qrels = qrels.value
    if keep is not None:
        q_qrels, d_qrels, g_qrels = q_qrels[keep], d_qrels[keep], g_qrels[keep]
    n_q = len(qvocab)
    in_qrels = np.zeros(n_q, dtype=bool)
    in_qrels[q_qrels] = True
    in_run = np.zeros(n_q, dtype=bool)
    in_run[q_run] = True
    evaluated = in_qrels if all_queries else in_qrels & in_run

    src, q_run, s_run = _ranked_rows(run, q_run, evaluated, duplicates)
    qrels_key = q_qrels.astype(np.int64) * np.int64(n_docs) + d_qrels
    del d_qrels
    found, judged_row = _judged_rows(run, dvocab, src, q_run, qrels_key, n_docs)
    del src
    n_rows = q_run.size
    g_run = np.zeros(n_rows, dtype=np.int64)
    g_run[found] = g_qrels[judged_row]
    j_run = np.zeros(n_rows, dtype=bool)
    j_run[found] = g_qrels[judged_row] >= 0

    # judged documents not retrieved (or beyond the depth): rows at -inf;
    # unjudged documents beyond the depth have no row at all
    seen = np.zeros(qrels_key.size, dtype=bool)
    del qrels_key
    if max_docs is None:
        seen[judged_row] = True
    else:
        # trec_eval's -M: only the first max_docs documents of each ranking
        start = np.searchsorted(q_run, np.arange(n_q))
        retrieved = np.arange(n_rows) - start[q_run] < max_docs
        seen[judged_row[retrieved[found]]] = True
        q_run, g_run, s_run = q_run[retrieved], g_run[retrieved], s_run[retrieved]
        j_run = j_run[retrieved]
        del retrieved
    missing = np.flatnonzero(~seen & evaluated[q_qrels])
    columns = [q_run, g_run, s_run, j_run]
    del q_run, g_run, s_run, j_run  # the list holds them: freed one by one
    q_all, g_all, s_all, j_all = _insert_missing(columns, q_qrels, g_qrels, missing)
    rank = -np.arange(q_all.size, dtype=np.float64)
    rank[s_all == -np.inf] = -np.inf

    # number the evaluated queries 0..n-1 in id order
    if evaluated.all():
        codes = q_all.astype(np.int64)
    else:
        codes = (np.cumsum(evaluated) - 1)[q_all]
    del q_all
    query_ids = _vocab_numpy(qvocab, np.flatnonzero(evaluated))
    return _Aligned(query_ids, codes, g_all, s_all, rank, run.tag, j_all)


def _ranked_rows(run, q_run, evaluated, duplicates):
    """``(src, q_run, s_run)``: the run's rows to evaluate (those of the
    ``evaluated`` queries, after the duplicate check) in trec_eval's order
    -- by query, decreasing score, ties by document id -- as their rows in
    the file (``src``; None: every row, in file order), their query codes
    and their scores.

    Every line of a run is a retrieved document, even one scored -inf
    (trec_eval and pytrec_eval rank it last): it takes the lowest finite
    score, so that -inf keeps meaning "not retrieved" in the long form."""
    src = _run_duplicates(run, q_run, duplicates)
    wanted = evaluated[q_run if src is None else q_run[src]]
    if not wanted.all():
        src = np.flatnonzero(wanted) if src is None else src[wanted]
    del wanted
    score = run.value
    if np.isneginf(score).any():
        score = np.where(np.isneginf(score), np.finfo(np.float64).min, score)
    q_run = q_run if src is None else q_run[src]
    s_run = score if src is None else score[src]
    del score
    order = _score_order(q_run, s_run)
    if order is not None:
        src = order if src is None else src[order]
        q_run, s_run = q_run[order], s_run[order]
        del order
    src = _break_ties_by_doc(q_run, s_run, src, run.doc)
    return src, q_run, s_run


def _judged_rows(run, dvocab, src, q_run, qrels_key, n_docs):
    """``(found, judged_row)``: the ranked rows (:func:`_ranked_rows`)
    whose (query, document) the qrels judge, in row order, and the qrels
    entry of each (``qrels_key``: query code x ``n_docs`` + document
    code), looked up for the rows whose document the qrels judge for some
    query only."""
    d_run = _judged_codes(run.doc, dvocab)
    _release_arrow_memory()
    cand = np.flatnonzero(d_run >= 0 if src is None else d_run[src] >= 0)
    d_cand = d_run[cand if src is None else src[cand]]
    del d_run
    by_key = np.argsort(qrels_key)
    sorted_key = qrels_key[by_key]
    key_c = q_run[cand].astype(np.int64) * np.int64(n_docs) + d_cand
    pos = np.minimum(np.searchsorted(sorted_key, key_c), max(qrels_key.size - 1, 0))
    hit = sorted_key[pos] == key_c
    return cand[hit], by_key[pos[hit]]


def _insert_missing(columns, q_qrels, g_qrels, missing):
    """The ranked rows' ``[query, grade, score, judged]`` columns with the
    judged documents not retrieved (the qrels entries ``missing``)
    inserted after their query's rows, scored -inf: both parts are sorted
    by query, so one merge pass instead of a sort.  ``columns`` is emptied
    as it goes, each old column freed once its new one is made (when the
    list holds the only reference)."""
    missing = missing[np.argsort(q_qrels[missing], kind="stable")]
    q_miss = q_qrels[missing]
    at = np.searchsorted(columns[0], q_miss, side="right")
    values = [q_miss, g_qrels[missing], -np.inf, g_qrels[missing] >= 0]
    out = []
    for value in values:
        out.append(np.insert(columns.pop(0), at, value))
    return out


def _score_order(q, s):
    """Row order by query code, then decreasing score (stable); None when
    the rows are in that order already.

    Run files are usually written query by query in rank order; then only
    the blocks need reordering, which is much cheaper than a full sort
    (figures in benchmarks/bench_cli.py).
    """
    n = q.size
    if n == 0:
        return None
    new = np.ones(n, dtype=bool)
    np.not_equal(q[1:], q[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    block_q = q[starts]
    sorted_q = np.sort(block_q)  # (np.unique would import numpy.ma)
    one_block_each = bool((sorted_q[1:] != sorted_q[:-1]).all())
    if one_block_each and np.all((s[1:] <= s[:-1]) | new[1:]):
        if np.all(block_q[1:] > block_q[:-1]):
            return None
        lengths = np.diff(np.append(starts, n))
        by_query = np.argsort(block_q, kind="stable")
        lengths = lengths[by_query]
        first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        return np.repeat(starts[by_query] - first, lengths) + np.arange(n)
    return np.lexsort((-s, q))


def _break_ties_by_doc(q, s, src, doc):
    """``src`` reordered so rows tied on (query, score) come by decreasing
    document id (in place; a new array when ``src`` is None).

    Rows are sorted by query then decreasing score; ``src`` holds each
    row's index in the file (None: row i is the file's row i), ``doc`` the
    file's document ids.  Only the tied rows need the ids' byte order, so
    only their ids are sorted.
    """
    tied_next = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not tied_next.any():
        return src
    if src is None:
        src = np.arange(q.size)
    member = np.zeros(q.size, dtype=bool)
    member[1:] |= tied_next
    member[:-1] |= tied_next
    idx = np.flatnonzero(member)
    # a new group starts where a member is not tied with the previous member
    starts = np.ones(idx.size, dtype=bool)
    starts[1:] = ~((idx[1:] == idx[:-1] + 1) & tied_next[idx[:-1]])
    group = np.cumsum(starts)
    key = _doc_keys(doc, src[idx])
    order = np.lexsort((-key, group))
    src[idx] = src[idx][order]  # q and s are equal within a group
    return src


def trec_to_long_form(
    qrels,
    run,
    *,
    max_docs=None,
    all_queries=False,
    duplicates="error",
    return_judged=False,
):
    """Join a TREC run with its qrels into the long form, trec_eval's way.

    Each query's retrieved documents are ranked by decreasing score, ties
    broken by decreasing document id (trec_eval's rule), and returned in
    that order, so a metric called with ``ignore_ties=True`` reproduces
    trec_eval's value (``ignore_ties=False`` gives the tie-exact expected
    value instead).  Judged documents the run did not retrieve become rows
    scored ``-inf``: they take no rank but count in recall and in the
    ideal DCG.  A run line scored ``-inf`` is a retrieved document (as for
    trec_eval): it gets the lowest finite float, ``np.finfo(float).min``,
    and ranks after the query's other documents.  Retrieved documents
    without a judgement get grade 0, and
    negative grades (trec_eval's "in the pool but unjudged") become 0.

    Read more in the :ref:`User Guide <command_line>`.

    Parameters
    ----------
    qrels : str, path-like or TrecQrels
        The judgements: a path, or what :func:`read_trec_qrels` returns.

    run : str, path-like or TrecRun
        The results: a path, or what :func:`read_trec_run` returns.

    max_docs : int, default=None
        Keep only the first ``max_docs`` documents of each ranking (the
        ones beyond are unretrieved), as trec_eval's ``-M``.

    all_queries : bool, default=False
        Also return the queries of the qrels that the run does not answer
        (all their rows unretrieved), as trec_eval's ``-c``.  By default
        only queries present in both files are returned.

    duplicates : {"error", "first", "last"}, default="error"
        A (query, document) pair twice in a file: raise a ``ValueError``
        naming both lines (trec_eval stops too), or keep the first or the
        last occurrence.

    return_judged : bool, default=False
        Also return ``judged``, a boolean array telling the rows whose
        document the qrels judge (grade >= 0): :func:`bpref_score` takes
        it (``judged=``) to ignore unjudged documents as trec_eval does.

    Returns
    -------
    long_form : TrecLongForm
        A named tuple ``(y_true, y_score, query_id)`` of 1-D arrays: grades
        (``int64``, >= 0), scores (``float64``) and query ids (object
        array of ``str``), sorted by query id, then by trec_eval's rank;
        with ``return_judged=True`` a 4-tuple ``(y_true, y_score, query_id,
        judged)``.

    See Also
    --------
    read_trec_qrels : Read a TREC qrels file.
    read_trec_run : Read a TREC run file.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankmetrics import ndcg_at_k, trec_to_long_form
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     qrels, run = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
    ...     with open(qrels, "w") as f:
    ...         _ = f.write("q1 0 a 1\\nq1 0 b 0\\nq1 0 c 2\\n")
    ...     with open(run, "w") as f:
    ...         _ = f.write("q1 Q0 a 1 0.5 r\\nq1 Q0 b 2 0.5 r\\nq1 Q0 x 3 0.1 r\\n")
    ...     y_true, y_score, query_id = trec_to_long_form(qrels, run)
    >>> y_true.tolist(), y_score.tolist(), query_id.tolist()
    ([0, 1, 0, 2], [0.5, 0.5, 0.1, -inf], ['q1', 'q1', 'q1', 'q1'])
    >>> # "b" ranks before "a": trec_eval breaks the tie by decreasing doc id
    >>> round(ndcg_at_k(y_true, y_score, query_id=query_id, ignore_ties=True), 4)
    0.2398
    """
    if max_docs is not None:
        if isinstance(max_docs, bool) or not isinstance(max_docs, int | np.integer):
            raise TypeError(f"max_docs must be an int >= 1 or None, got {max_docs!r}.")
        if max_docs < 1:
            raise ValueError(f"max_docs must be >= 1 or None, got {max_docs}.")
    _check_duplicates(duplicates)
    arrow = _use_arrow(qrels, run)
    qrels = _as_file(qrels, lambda path: _read_qrels(path, arrow), "qrels")
    run = _as_file(run, lambda path: _read_run(path, arrow), "run")
    aligned = _align(
        qrels,
        run,
        max_docs=max_docs,
        all_queries=bool(all_queries),
        duplicates=duplicates,
    )
    out = TrecLongForm(
        np.maximum(aligned.grade, 0),
        aligned.score,
        aligned.query_ids[aligned.codes],
    )
    if return_judged:
        return TrecJudgedLongForm(*out, aligned.judged)
    return out
