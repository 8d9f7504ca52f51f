"""The ``rankmetrics`` command line: ``demo`` and ``evaluate``.

``rankmetrics evaluate QRELS RUN [RUN ...]`` evaluates TREC runs as
trec_eval does and prints trec_eval's layout by default;
``rankmetrics evaluate --long FILE ...`` evaluates one-row-per-impression
data (CSV, TSV or Parquet).  ``rankmetrics`` alone, or followed by options
that are not a subcommand, runs the tuning demo.

The flow of ``evaluate``: read the files into the long form
(:mod:`._trec` for TREC files, :func:`_read_long` for tables), compute
"measure -> per-query values" in :func:`per_query_values` (the one place
that calls the metric functions), average them in :func:`_summary`,
compare several runs from those values (:func:`_compare`), and print with
one of the ``_print_*`` writers.  A table of more than ``--chunk-rows``
rows is evaluated chunk by chunk (:func:`_evaluate_long_chunked`).
"""

import argparse
import csv
import io
import json
import math
import os
import sys
import time
from typing import NamedTuple

import numpy as np

from . import __version__
from ._registry import (
    METRICS,
    UnknownMetricError,
    default_metrics,
    is_beyond,
    parse_metric,
    trec_measures,
)
from ._report import _function_options, _per_query_report, scorer_name
from ._trec import (
    TrecFormatError,
    _align,
    _encode,
    _read_qrels,
    _read_run,
    _release_arrow_memory,
    _use_arrow,
)

PROG = "rankmetrics"

# ---------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------
# Every name, function and trec_eval measure comes from the metric
# registry (_registry.METRICS); the command line adds trec_eval's counts,
# its printing order and its parameter syntax.
_COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")
# trec_eval prints its measures in this order (runid and the counts are
# the command line's own; every other name is a registry TrecMeasure)
_TREC_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map Rprec bpref recip_rank P "
    "recall ndcg ndcg_cut map_cut success set_P set_recall set_F rbp rbp_resid"
).split()


def _trec_table():
    """trec_eval measure -> (package metric, default cut-offs or None,
    label (prefix), options), in trec_eval's printing order."""
    table = {name: (name, None, name, ()) for name in ("runid", *_COUNTS)}
    # trec_eval's rbp_resid: the rbp residual of the judged documents (see
    # _rbp_resid), the command line's own, as the counts
    table["rbp_resid"] = ("rbp_resid", None, "rbp_resid", (("persistence", 0.9),))
    known = trec_measures()
    for name in known:
        metric, measure = known[name]
        table[name] = (metric, measure.cutoffs, measure.label, measure.options)
    order = sorted(table, key=lambda n: (_TREC_ORDER + [n]).index(n))
    return {name: table[name] for name in order}


_TREC_MEASURES = _trec_table()
# trec_eval's parameters of a measure, by trec_eval's name (rbp.p=0.8)
_TREC_PARAMS = {"rbp": {"p": "persistence"}, "rbp_resid": {"p": "persistence"}}
# trec_eval measures this package does not compute (yet); all_trec and
# official skip them with a note on stderr.
_TREC_MISSING = (
    "gm_map iprec_at_recall relstring unj infAP "
    "gm_bpref utility 11pt_avg relative_P Rprec_mult ndcg_rel Rndcg binG G "
    "set_relative_P set_map num_nonrel_judged_ret"
).split()
_NICKNAMES = {
    "all_trec": [m for m in _TREC_MEASURES],
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map Rprec bpref recip_rank P"
    ).split(),
}
_NICKNAME_MISSING = {
    "all_trec": _TREC_MISSING,
    "official": "gm_map iprec_at_recall".split(),
}
# --long without -m: the registry's one default set (that of the long
# form, as ranking_report(query_id=...)), each at this cut-off
_LONG_DEFAULT_K = 10
_LONG_DEFAULT = [
    METRICS[name].label(_LONG_DEFAULT_K) for name in default_metrics(long_form=True)
]


class Measure(NamedTuple):
    """One value per query: ``label`` as printed, ``metric`` and ``k``."""

    label: str
    metric: str  # a registry name, a count, "rbp_resid" or "runid"
    k: object  # int or None
    order: tuple  # sort key: trec_eval's table order, then as requested
    options: tuple = ()  # (name, value) pairs for the metric function


class UsageError(Exception):
    """Bad command-line input: exit status 2 with the message."""


def parse_measures(names, *, default, notes):
    """Resolve ``-m`` values into :class:`Measure` objects, printing order.

    Accepts trec_eval's names (``map``, ``P.5,10``, ``ndcg_cut.10``,
    ``all_trec``) and the package's (``ndcg@10``, ``map@100``, ``gauc``).
    Measures the package lacks are reported in ``notes`` when requested
    through a nickname, and are an error when named directly.
    """
    names = list(names) or list(default)
    found = {}
    trec_order = {name: i for i, name in enumerate(_TREC_MEASURES)}
    for n_given, raw in enumerate(names):
        name = raw
        if name in _NICKNAMES:
            for sub in _NICKNAMES[name]:
                _add_trec(found, sub, None, trec_order)
            notes.append(
                f"{name}: skipping trec_eval measures not in this package: "
                + ", ".join(_NICKNAME_MISSING[name])
            )
            continue
        base, _, params = name.partition(".")
        if base in _TREC_MEASURES:
            _add_trec(found, base, params or None, trec_order, raw)
            continue
        if base in _TREC_MISSING:
            raise UsageError(
                f"measure {raw!r}: trec_eval's {base} is not implemented in "
                "this package yet. Measures available the trec_eval way: "
                + ", ".join(_TREC_MEASURES)
            )
        try:
            spec, k = parse_metric(name)  # the one name rule (the scorers')
        except UnknownMetricError as exc:
            raise UsageError(
                f"measure {raw!r}: {exc} trec_eval's names work too (map, "
                "P.10, recall.100, ndcg, ndcg_cut.10, map_cut.10, recip_rank, "
                "success.1,5, set_P, set_recall, set_F, num_ret, all_trec, ...)."
            ) from None
        except ValueError as exc:
            raise UsageError(f"measure {exc}") from None
        if is_beyond(spec):
            raise UsageError(
                f"measure {raw!r}: {spec.name} is a beyond-accuracy metric of "
                "the set of lists; it reads item ids and the catalogue, which "
                "the command line does not take: use "
                f"sklearn_rankmetrics.ranking_report or {spec.function.__name__}."
            )
        found.setdefault(name, Measure(name, spec.name, k, (1, n_given, 0)))
    return sorted(found.values(), key=lambda m: m.order)


def _trec_options(base, params, raw):
    """trec_eval's options of ``base`` with ``params`` (``p=0.8``)."""
    options = dict(_TREC_MEASURES[base][3])
    names = _TREC_PARAMS[base]
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key not in names:
            raise UsageError(
                f"measure {raw!r}: {base} takes "
                + ", ".join(f"{n}=<number>" for n in names)
                + f" (e.g. {base}.{next(iter(names))}=0.8)."
            )
        try:
            options[names[key]] = float(value)
        except ValueError:
            raise UsageError(f"measure {raw!r}: {key} must be a number.") from None
    return options


def _add_trec(found, base, params, trec_order, raw=None):
    metric, cuts, prefix, options = _TREC_MEASURES[base]
    if base in _TREC_PARAMS:
        if params is not None:
            options = tuple(_trec_options(base, params, raw).items())
        m = Measure(base, metric, None, (0, trec_order[base], 0), options)
        found.setdefault(base, m)
        return
    if params is not None and cuts is None:
        raise UsageError(
            f"measure {raw!r}: {base} takes no parameters here (trec_eval's "
            "ndcg gain table and set_F's beta are not supported)."
        )
    if cuts is None:
        m = Measure(base, metric, None, (0, trec_order[base], 0), options)
        found.setdefault(base, m)
        return
    if params is not None:
        try:
            cuts = sorted({int(c) for c in params.split(",")})
        except ValueError:
            # trec_eval itself reads "23.4" as 23: refuse instead
            raise UsageError(
                f"measure {raw!r}: the cut-offs after '.' must be integers "
                f"separated by commas, e.g. {base}.5,10."
            ) from None
        if cuts[0] < 1:
            raise UsageError(f"measure {raw!r}: cut-offs must be >= 1.")
    for k in cuts:
        label = f"{prefix}{k}"
        m = Measure(label, metric, k, (0, trec_order[base], k), options)
        found.setdefault(label, m)


# ---------------------------------------------------------------------------
# Per-query values: the one place that calls the metrics
# ---------------------------------------------------------------------------
def per_query_values(
    measures,
    y_true,
    y_score,
    query_id,
    *,
    n_queries,
    ignore_ties,
    no_relevant,
    relevance_threshold=None,
    sample_weight=None,
    judged=None,
):
    """Measure label -> per-query values (queries in ``np.unique`` order).

    ``query_id`` are integer codes 0..n_queries-1 whose order is the
    output order.  The metrics are read from the report's per-query path
    (:func:`~sklearn_rankmetrics._report._per_query_report`): the measures
    sharing options are one report, whose metrics share one ranking per
    kind (cut at the largest cut-off, the whole list); the counts
    (num_ret, num_rel, num_rel_ret) are bincounts over the rows.
    ``judged`` (TREC runs) marks the rows whose document is judged: bpref
    reads those only, as trec_eval does.
    """
    values = {}
    groups = {}  # (measure options, graded) -> measures: one report each
    for m in measures:
        if m.metric in ("runid", "num_q"):
            continue
        if m.metric in _COUNTS:
            values[m.label] = _counts(
                m.metric, y_true, y_score, query_id, n_queries, relevance_threshold
            )
            continue
        if m.metric == "rbp_resid":
            values[m.label] = _rbp_resid(
                y_score, query_id, n_queries, judged, dict(m.options)["persistence"]
            )
            continue
        options = dict(m.options)
        # graded RBP reads the grades themselves: no relevance threshold
        graded = options.get("rbp_gain", "binary") != "binary"
        key = ("gauc",) if m.metric == "gauc" else (m.options, graded)
        groups.setdefault(key, []).append(m)
    for key, group in _merged_groups(groups).items():
        if key == ("gauc",):  # row weights: a report of its own
            opts = {}
        else:
            opts = dict(key[0], ignore_ties=ignore_ties, no_relevant=no_relevant)
            if relevance_threshold is not None and not key[1]:
                opts["relevance_threshold"] = relevance_threshold
            if judged is not None and any(m.metric == "bpref" for m in group):
                opts["judged"] = judged
        report = _per_query_report(
            y_true,
            y_score,
            k=tuple(dict.fromkeys(m.k for m in group)),
            metrics=list(dict.fromkeys(m.metric for m in group)),
            query_id=query_id,
            sample_weight=sample_weight,
            caller="rankmetrics evaluate",
            allow_whole_list=True,
            **opts,
        )
        for m in group:
            values[m.label] = report.values[scorer_name(m.metric, m.k)]
    return values


def _merged_groups(groups):
    """Option sets merged where no metric of one takes an option of the
    other: one report (one ranking) serves both, each metric reading the
    same options as alone (trec_eval's set_F, with beta=1, joins map,
    P, ndcg...)."""
    merged = {}
    for key, group in groups.items():
        for other in merged:
            if _can_merge(key, group, other, merged[other]):
                new = (tuple(sorted({*other[0], *key[0]})), other[1])
                merged[new] = merged.pop(other) + group
                break
        else:
            merged[key] = list(group)
    return merged


def _can_merge(key, group, other, other_group):
    if key == ("gauc",) or other == ("gauc",) or key[1] != other[1]:
        return False
    names = {o for o, _ in key[0]}
    other_names = {o for o, _ in other[0]}

    def takes(metrics, options):
        return any(options & set(_function_options(METRICS[m.metric])) for m in metrics)

    return not takes(group, other_names) and not takes(other_group, names)


def _rbp_resid(y_score, codes, n_queries, judged, persistence):
    """trec_eval's rbp_resid: ``p**n + (1 - p) * sum(p**(i - 1))`` over the
    unjudged retrieved documents at ranks i, n being the retrieved ones --
    the most RBP could rise if every unjudged document were relevant -- and
    0 for a query without unjudged retrieved documents (as trec_eval).

    Rows come in trec_eval's order (by query, then rank: the aligned TREC
    run), which gives the ranks; ``judged`` marks the judged rows.
    """
    if judged is None:
        raise UsageError(
            "rbp_resid reads which retrieved documents are judged: it needs "
            "TREC qrels and runs, not --long tables."
        )
    retrieved = y_score > -np.inf
    codes = codes[retrieved]
    unjudged = ~np.asarray(judged, dtype=bool)[retrieved]
    n_ret = np.bincount(codes, minlength=n_queries)
    start = np.concatenate([[0], np.cumsum(n_ret)[:-1]])
    rank0 = np.arange(codes.size) - start[codes]  # 0-based rank in its query
    p = float(persistence)
    # p**rank0 from a table of the powers (a gather instead of a pow per row)
    powers = p ** np.arange(int(n_ret.max(initial=0)) + 1)
    weights = np.where(unjudged, powers[rank0], 0.0)
    tail = np.bincount(codes, weights=weights, minlength=n_queries)
    any_unjudged = np.bincount(codes[unjudged], minlength=n_queries) > 0
    return np.where(any_unjudged, p**n_ret + (1.0 - p) * tail, 0.0)


def _counts(kind, y_true, y_score, codes, n_queries, threshold):
    retrieved = y_score > -np.inf
    relevant = y_true >= threshold if threshold is not None else y_true > 0
    mask = {"num_ret": retrieved, "num_rel": relevant}.get(kind, retrieved & relevant)
    return np.bincount(codes[mask], minlength=n_queries).astype(np.float64)


def _summary(measures, values, n_queries, query_weights, gauc_weights):
    """The "all" row: weighted mean over queries (sum for the counts)."""
    out = {}
    for m in measures:
        if m.metric == "runid":
            continue
        if m.metric == "num_q":
            out[m.label] = float(n_queries)
            continue
        v = values[m.label]
        if m.metric in _COUNTS:
            out[m.label] = float(v.sum())
            continue
        w = gauc_weights if m.metric == "gauc" else query_weights
        w = np.ones(v.shape) if w is None else w
        keep = ~np.isnan(v) & (w > 0)
        out[m.label] = (
            float(np.average(v[keep], weights=w[keep])) if keep.any() else math.nan
        )
    return out


# ---------------------------------------------------------------------------
# One evaluated run: what the writers print
# ---------------------------------------------------------------------------
class Result(NamedTuple):
    name: str  # runid / score column
    query_ids: np.ndarray
    values: dict  # label -> per-query ndarray
    summary: dict  # label -> float


class _Progress:
    """Steps on stderr ("reading run.txt ... 1.2 s") when it is a terminal."""

    def __init__(self, quiet):
        self.on = not quiet and sys.stderr.isatty()
        self.start = None

    def step(self, message):
        if self.on:
            self.done()
            print(f"{PROG}: {message} ...", end="", file=sys.stderr, flush=True)
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
    progress.step(f"reading {args.files[0]}")
    arrow = _use_arrow(*args.files)
    qrels = _read_qrels(args.files[0], arrow)
    results = []
    for path in args.files[1:]:
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
        n_q = len(aligned.query_ids)
        if n_q == 0:
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
        )
        cut = [m for m in measures if m.k is not None]
        values = per_query_values(
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
            values.update(per_query_values(cut, y_true, cut_score, codes, **options))
        summary = _summary(measures, values, n_q, None, None)
        results.append(Result(aligned.run_tag, aligned.query_ids, values, summary))
    progress.done()
    tags = [r.name for r in results]
    if len(set(tags)) < len(tags):  # same runid: tell the runs by file name
        results = [
            r._replace(name=os.path.basename(path))
            for r, path in zip(results, args.files[1:], strict=True)
        ]
    return results


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
            else _column_numpy(table.column(c))
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
            ),
        )
        return {
            c: _id_column(path, c, table.column(c))
            if c == id_col
            else _column_numpy(table.column(c))
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
            else frame[c].to_numpy()
            for c in columns
        }
    with open(path, encoding="utf-8", newline="") as fh:  # pragma: no cover
        reader = csv.DictReader(fh, delimiter=sep)
        rows = list(reader)
    out = {c: np.array([r[c] for r in rows]) for c in columns}  # pragma: no cover
    out[id_col] = _id_column(path, id_col, out[id_col].astype(object))
    return out  # pragma: no cover


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
            _missing_id(path, name, first_row + int(np.flatnonzero(nan)[0]), None)
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
    what = "is empty" if value is None or value == "" else f"is blank ({value!r})"
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


def _column_numpy(column):
    arr = column.to_numpy()
    if arr.dtype == object:
        return arr
    return np.asarray(arr)


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
    """Empty (NaN) cells, and negative ones if ``negative``: a clear error
    (naming the line when ``locate``: the rows are the whole file's)."""
    bad = np.isnan(values)
    if negative:
        bad |= values < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if np.isnan(values[i]):
            what, fix = "is empty", "fill the cell"
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
    part = _long_part(args, measures, data, codes, len(ids), ids=ids)
    progress.done()
    return _long_results(args, measures, ids, *part), measures


def _long_part(args, measures, data, codes, n_q, ids=None):
    """Per score column the per-query values of rows holding whole
    queries (``codes`` 0..n_q-1, ``ids`` their ids in the file when
    known), and the query weights of the summary."""
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
    # per-query weights for the summary: the metrics' own averaging
    if weight is None:
        query_w = None
    else:
        query_w = np.zeros(n_q)
        query_w[codes] = weight
    # GAUC's (impressions): the rows its AUC reads, positives and candidates
    # (a row scored -inf is not a candidate), per score column
    gauc_w = np.zeros((n_q, len(args.score_col)))
    values = {}
    for i, col in enumerate(args.score_col):
        y_score = _numeric(path, col, data[col])
        _check_cells(path, col, y_score, locate=locate)
        read = (y_true > 0) | (y_score > -np.inf)
        read = read if weight is None else weight * read
        gauc_w[:, i] = np.bincount(codes, weights=read, minlength=n_q)
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
        )
    return values, query_w, gauc_w


def _long_results(args, measures, ids, values, query_w, gauc_w):
    n_q = len(ids)
    return [
        Result(
            col,
            ids,
            values[col],
            _summary(measures, values[col], n_q, query_w, gauc_w[:, i]),
        )
        for i, col in enumerate(args.score_col)
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
            chunk = {c: frame[c].to_numpy() for c in columns}
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
    from ._state import _ClosedQueries, hold_last_query, with_held_rows

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

    def gather(get):
        arrays = [get(part) for _, part in parts]
        return None if arrays[0] is None else np.concatenate(arrays)[order]

    values = {
        col: {
            label: gather(lambda part, c=col, lab=label: part[0][c][lab])
            for label in parts[0][1][0][col]
        }
        for col in args.score_col
    }
    query_w = gather(lambda part: part[1])
    gauc_w = gather(lambda part: part[2])
    results = _long_results(args, measures, ids, values, query_w, gauc_w)
    progress.done()
    return results


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------
def _fmt_trec(m, value):
    if m.metric in _COUNTS:
        return str(int(value))
    return f"{value:6.4f}"


def _print_trec(out, measures, results, per_query):
    for res in results:
        if per_query:
            for j, qid in enumerate(res.query_ids):
                for m in measures:
                    if m.metric in ("runid", "num_q"):
                        continue
                    value = _fmt_trec(m, res.values[m.label][j])
                    out.write(f"{m.label:<22}\t{qid}\t{value}\n")
        for m in measures:
            if m.metric == "runid":
                value = res.name
            else:
                value = _fmt_trec(m, res.summary[m.label])
            out.write(f"{m.label:<22}\tall\t{value}\n")


def _json_number(value):
    return None if math.isnan(value) else value


def _print_json(out, measures, results, per_query):
    json.dump(_json_doc(measures, results, per_query), out, indent=2)
    out.write("\n")


def _json_doc(measures, results, per_query):
    doc = {}
    for res in results:
        entry = {
            "all": {
                m.label: _json_number(res.summary[m.label])
                for m in measures
                if m.metric != "runid"
            }
        }
        if per_query:
            entry["queries"] = {
                str(qid): {
                    m.label: _json_number(float(res.values[m.label][j]))
                    for m in measures
                    if m.label in res.values
                }
                for j, qid in enumerate(res.query_ids)
            }
        doc[res.name] = entry
    return doc


def _json_clean(obj):
    """nan -> None (null) in nested dicts and lists: strict JSON."""
    if isinstance(obj, dict):
        return {k: _json_clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_clean(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def _print_json_comparison(out, measures, results, per_query, comparison):
    """``{"runs": what one run prints, "comparison": to_dict()}``."""
    doc = {
        "runs": _json_doc(measures, results, per_query),
        "comparison": _json_clean(comparison.to_dict()),
    }
    json.dump(doc, out, indent=2)
    out.write("\n")


def _print_table_comparison(out, measures, results, per_query, comparison):
    """The comparison table; with -q the side-by-side values first."""
    if per_query:
        _print_table(out, measures, results, per_query)
        out.write("\n")
    out.write(f"{comparison}\n")


_COMPARISON_CSV = (
    "metric model mean ci_low ci_high n_queries reference difference "
    "statistic pvalue pvalue_corrected significant wins_over"
).split()


def _print_csv_comparison(out, measures, results, per_query, comparison):
    """One row per metric and model (mean, interval, the models it beats)
    and, for a model tested against a reference, the test's columns: one
    row per test (every pair: a model appears once per reference)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_COMPARISON_CSV)
    doc = comparison.to_dict()
    wins = comparison.wins()
    tests = {}
    for t in doc["tests"]:
        tests.setdefault((t["metric"], t["model"]), []).append(t)
    for metric, models in doc["summary"].items():
        for model, stats in models.items():
            base = [
                metric,
                model,
                *(repr(stats[c]) for c in ("mean", "ci_low", "ci_high")),
                stats["n_queries"],
            ]
            beaten = " ".join(wins[model, metric])
            rows = tests.get((metric, model)) or [None]
            for t in rows:
                if t is None:
                    cells = [""] * 6
                else:
                    cells = [
                        t["reference"],
                        *(
                            repr(t[c])
                            for c in (
                                "difference",
                                "statistic",
                                "pvalue",
                                "pvalue_corrected",
                            )
                        ),
                        str(t["significant"]).lower(),
                    ]
                writer.writerow([*base, *cells, beaten])


def _print_csv(out, measures, results, per_query):
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "measure", "query", "value"])
    for res in results:
        if per_query:
            for j, qid in enumerate(res.query_ids):
                for m in measures:
                    if m.label in res.values:
                        writer.writerow(
                            [
                                res.name,
                                m.label,
                                qid,
                                repr(float(res.values[m.label][j])),
                            ]
                        )
        for m in measures:
            if m.metric != "runid":
                writer.writerow([res.name, m.label, "all", repr(res.summary[m.label])])


def _print_table(out, measures, results, per_query):
    """Side by side: one column per run / score column."""
    names = [r.name for r in results]
    rows = []
    for m in measures:
        if m.metric == "runid":
            continue
        rows.append(
            (m.label, "all", [_fmt_cell(m, r.summary[m.label]) for r in results])
        )
    if per_query:
        # every query of any run; "-" where a run does not answer it
        ids = list(dict.fromkeys(q for r in results for q in r.query_ids))
        if len(results) > 1:
            ids.sort()
        where = [{q: j for j, q in enumerate(r.query_ids)} for r in results]
        for qid in ids:
            for m in measures:
                if m.label in results[0].values:
                    cells = [
                        _fmt_cell(m, r.values[m.label][pos[qid]]) if qid in pos else "-"
                        for r, pos in zip(results, where, strict=True)
                    ]
                    rows.append((m.label, str(qid), cells))
    w_m = max([len("measure")] + [len(r[0]) for r in rows])
    w_q = max([len("query")] + [len(r[1]) for r in rows])
    widths = [max(len(n), *(len(r[2][i]) for r in rows)) for i, n in enumerate(names)]
    head = f"{'measure':<{w_m}}  {'query':<{w_q}}"
    head += "".join(f"  {n:>{w}}" for n, w in zip(names, widths, strict=True))
    out.write(head.rstrip() + "\n")
    out.write("-" * len(head.rstrip()) + "\n")
    for label, qid, cells in rows:
        line = f"{label:<{w_m}}  {qid:<{w_q}}"
        line += "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        out.write(line + "\n")


def _fmt_cell(m, value):
    if math.isnan(value):
        return "nan"
    if m.metric in _COUNTS or m.metric == "num_q":
        return str(int(value))
    return f"{value:.4f}"


_WRITERS = {
    "trec": _print_trec,
    "csv": _print_csv,
    "json": _print_json,
    "table": _print_table,
}
_COMPARISON_WRITERS = {
    "csv": _print_csv_comparison,
    "json": _print_json_comparison,
    "table": _print_table_comparison,
}


def _write_per_query(path, measures, results, query_name):
    labels = [m.label for m in measures if m.label in results[0].values]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow([query_name, "model", *labels])
        for res in results:
            for j, qid in enumerate(res.query_ids):
                row = [float(res.values[lab][j]) for lab in labels]
                writer.writerow([qid, res.name, *map(repr, row)])


# ---------------------------------------------------------------------------
# Argument parsing and dispatch
# ---------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _evaluate_parser(subparsers):
    p = subparsers.add_parser(
        "evaluate",
        help="evaluate TREC runs against qrels, or a table of impressions",
        description=(
            "Evaluate TREC run files against a qrels file (trec_eval's "
            "conventions and output layout), or, with --long, a CSV/TSV/"
            "Parquet table with one row per (query, item) impression."
        ),
        epilog=(
            "Measures: the package's names (ndcg@10, map@100, mrr@10, "
            "precision@5, recall@100, hit_rate@10, f1@10, dcg@10, gauc) or "
            "trec_eval's (map, P.5,10, recall.100, ndcg, ndcg_cut.10, "
            "map_cut.100, recip_rank, success.1,5,10, set_P, set_recall, "
            "set_F, num_q, num_ret, num_rel, num_rel_ret, runid, official, "
            "all_trec). Examples: rankmetrics evaluate -q -m ndcg_cut.10 "
            "qrels.txt run.txt;  rankmetrics evaluate --long clicks.csv "
            "--query-col user --label-col click --score-col model_a model_b"
        ),
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="QRELS RUN",
        help="a TREC qrels file, then one or more run files",
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="a measure to compute (repeat for several); default: trec_eval's "
        "'official' set for TREC files, " + " ".join(_LONG_DEFAULT) + " for --long",
    )
    p.add_argument(
        "-q", "--per-query-output", dest="per_query", action="store_true",
        help="print each query's values too, not only the summary ('all')",
    )  # fmt: skip
    p.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score the qrels' queries the run does not answer as 0 and "
        "average over every query of the qrels (trec_eval -c)",
    )
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="evaluate over the judged documents only: the run's unjudged "
        "documents are removed before any measure (after -M), the judged "
        "ones keep their order (trec_eval -J)",
    )
    p.add_argument(
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="evaluate only the first N documents of each ranking (trec_eval -M)",
    )
    p.add_argument(
        "-l",
        "--level",
        type=int,
        metavar="L",
        help="a document is relevant when its grade is >= L (trec_eval -l; "
        "default: grade >= 1 for TREC files, > 0 for --long); NDCG always "
        "uses the grades as gains",
    )
    p.add_argument(
        "--format",
        choices=sorted(_WRITERS),
        help="output layout; default: trec (trec_eval's) for one TREC run, "
        "table for several runs (the comparison) or --long",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "first", "last"),
        default="error",
        help="a (query, document) pair twice in a file: stop with an error "
        "(default; trec_eval stops too), or keep its first or last line",
    )
    p.add_argument(
        "--ties",
        choices=("trec_eval", "expected"),
        help="tied scores: break them as trec_eval does (decreasing document "
        "id; default for TREC files) or give the exact expected value over "
        "the orders of tied items (default for --long, where ties are broken "
        "by row order with trec_eval)",
    )
    long = p.add_argument_group("one row per impression (--long)")
    long.add_argument("--long", metavar="FILE", help="a CSV, TSV or Parquet table")
    long.add_argument("--query-col", metavar="COL", help="the query (user) id column")
    long.add_argument("--label-col", metavar="COL", help="the relevance/click column")
    long.add_argument(
        "--score-col",
        nargs="+",
        action="extend",
        metavar="COL",
        help="score column(s), after one flag or repeated; several compare "
        "several models",
    )
    long.add_argument(
        "--weight-col",
        metavar="COL",
        help="row weights (the query weight for ranking metrics; constant "
        "within a query), passed as sample_weight",
    )
    long.add_argument(
        "--no-relevant",
        default="skip",
        metavar="{skip,0,1}",
        help="queries without a relevant row: leave them out (skip, default) "
        "or score them 0 or 1",
    )
    long.add_argument(
        "--chunk-rows",
        type=int,
        default=1_000_000,
        metavar="N",
        help="a table of more than N rows (default 1,000,000) is read and "
        "evaluated N rows at a time, in bounded memory; its rows must then be "
        "grouped by query (e.g. sorted by the query column)",
    )
    long.add_argument(
        "--sep", metavar="CHAR", help="field separator of a text table "
        "(default: tab for .tsv, comma otherwise)",
    )  # fmt: skip
    p.add_argument(
        "--per-query",
        dest="per_query_file",
        metavar="OUT",
        help="also write each query's values, with its id, to the CSV file OUT",
    )
    p.add_argument(
        "--quiet", action="store_true", help="no progress messages on stderr"
    )
    cmp = p.add_argument_group(
        "comparison of several runs or score columns",
        "With several runs or --score-col columns, the table, csv and json "
        "formats give the comparison of compare_rankings: each measure's "
        "mean and bootstrap confidence interval per run, and paired tests "
        "over queries with the p-values corrected across the pairs of each "
        "measure; significant wins are marked.",
    )
    cmp.add_argument(
        "--no-compare",
        action="store_true",
        help="print the values side by side instead of the comparison",
    )
    cmp.add_argument(
        "--baseline",
        metavar="NAME",
        help="test every run against this one (a runid, or the file name "
        "when runids repeat; a score column with --long); default: every pair",
    )
    cmp.add_argument(
        "--test",
        choices=("permutation", "t-test", "wilcoxon"),
        default="permutation",
        help="the paired test over queries (default: permutation, the "
        "paired randomization test of the mean difference)",
    )
    cmp.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "fdr_bh", "none"),
        default="holm",
        help="multiple-comparison correction across the pairs of each "
        "measure (default: holm)",
    )
    cmp.add_argument(
        "--confidence-level",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="level of the bootstrap intervals (default: 0.95)",
    )
    cmp.add_argument(
        "--n-resamples",
        type=int,
        default=9999,
        metavar="N",
        help="random sign vectors of the permutation test (default: 9999)",
    )
    cmp.add_argument(
        "--n-bootstrap",
        type=int,
        default=1999,
        metavar="N",
        help="bootstrap resamples of the intervals (default: 1999)",
    )
    cmp.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the resampling (default: 0, so that the output is reproducible)",
    )
    return p


def _build_parser():
    parser = _Parser(
        prog=PROG,
        description=(
            "Ranking metrics from the command line. Without a subcommand "
            "(or with the demo's options only) it runs the tuning demo."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} (sklearn-rankmetrics) "
        f"{__version__}",
    )  # fmt: skip
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.add_parser(
        "demo",
        help="tune a click-through-rate model by ranking metrics "
        "(see 'demo --help' for its options)",
        add_help=False,
    )
    _evaluate_parser(subparsers)
    return parser


def _run_demo(argv):
    from . import _demo  # the demo lives in its own module

    return _demo.main(argv)


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
    """The :class:`~sklearn_rankmetrics._compare.RankingComparison` of the
    results, from the per-query values already computed (so TREC runs keep
    trec_eval's conventions).  Queries are paired by id; a query one run
    does not answer (TREC without -c) is nan for it: out of its mean, as
    in trec_eval, and out of the pairs it is in."""
    import warnings

    from ._compare import _compare_values

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
    per_query = {}
    for r in results:
        v = np.column_stack([r.values[lab] for lab in labels]).astype(np.float64)
        if not same:
            full = np.full((len(ids), len(labels)), np.nan)
            full[np.searchsorted(ids, r.query_ids)] = v
            v = full
        per_query[r.name] = v
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comparison = _compare_values(
            per_query,
            labels,
            ids,
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
            print(f"{PROG}: note: {w.message}", file=sys.stderr)
        if args.long and args.weight_col:
            print(
                f"{PROG}: note: the comparison weighs every query equally "
                "(--weight-col weighs the summary only).",
                file=sys.stderr,
            )
    return comparison


def _evaluate(args):
    progress = _Progress(args.quiet)
    notes = []
    _check_comparison_options(args)
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
            print(f"{PROG}: note: {note}", file=sys.stderr)
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


def main(argv=None):
    """Run the command line; ``argv`` as for argparse (None: ``sys.argv[1:]``).

    Returns the exit status: 0 on success, 2 on a usage or input error
    (with a message on stderr, never a traceback).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("demo", "evaluate", "-h", "--help", "--version"):
        return _run_demo(argv)
    if argv[0] == "demo":
        return _run_demo(argv[1:])
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return _evaluate(args)
    except (UsageError, TrecFormatError, ValueError, TypeError, OSError) as exc:
        # usage errors, bad files (TrecFormatError is a ValueError), the
        # metrics' input checks (ValueError, TypeError), unreadable files
        print(f"{PROG} evaluate: error: {exc}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
