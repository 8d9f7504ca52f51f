"""Mergeable report states: evaluate a report chunk by chunk, or partition
by partition on a cluster.

Every metric of a report is a weighted mean of per-query values, so what a
chunk of *whole* queries contributes is, per scorer name (``"ndcg@10"``,
...), two numbers: the sum of ``weight * value`` over its scored queries
and the sum of their weights.  States add up (:meth:`ReportState.merge` is
associative and commutative) and the final means equal one in-memory
:func:`ranking_report` call on all the rows.  The per-chunk work is the
report's own vectorised engine
(:func:`~sklearn_rankmetrics._evaluation._per_query._per_query_report`).

:class:`RankingEvaluator` is the public chunked API for one machine; the
Dask and Spark integrations (:mod:`sklearn_rankmetrics.dask`,
:mod:`sklearn_rankmetrics.spark`) build one state per partition and add
them up.
"""

import warnings
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from .._metrics._beyond import _catalogue_warning, _finish_value, refuse_unseen
from .._metrics._calibration import (
    _STATISTICS,
    _check_binary,
    _check_groups,
    _field_rce,
    _grouped_sums,
    _statistics_from_sums,
)
from .._metrics._propensity import diagnostics_from_totals, merge_diagnostic_totals
from .._registry import BEYOND_METRICS
from .._utils._averaging import mean_of_totals, weighted_totals
from .._utils._tables import table_output
from .._utils._validation import (
    _as_array,
    check_query_id,
    check_sample_weight,
    issparse,
    undefined_metric_warning,
    user_stacklevel,
)
from ._beyond_report import (
    _BEYOND_OPTIONS,
    _TIE_OPTIONS,
    report_sums,
    split_report_metrics,
)
from ._per_query import (
    _GAUC,
    DIAGNOSTICS_KEY,
    _check_cutoffs,
    _format,
    _per_query_report,
    check_per_row_options,
    ips_options_given,
    resolved_option,
    same_option,
)

__all__ = ["CalibrationEvaluator", "RankingEvaluator"]


# ---------------------------------------------------------------------------
# The beyond-accuracy metrics of a set of whole users
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BeyondState:
    """What a set of whole users contributes to the beyond-accuracy metrics
    of a report (catalogue coverage, Gini index, ...; see
    :class:`~sklearn_rankmetrics._metrics._beyond.SetKernel`).

    Per metric and cut-off, a *part* that merges exactly as the metric
    functions combine users: per item, the probability that no list has it
    (coverage; parts multiply), per item the expected number of lists
    holding it (Gini, entropy; parts add), or the sum and number of the
    per-user values (popularity, novelty, diversity, serendipity; both
    add).  The per-item parts are over the catalogue's items
    (``labels=None``: item ids are column numbers of a known catalogue) or
    over the sorted item ``labels`` the users' rows name (no catalogue
    given, or ``n_items`` with ids that are not column numbers): states
    then merge by label, and the items no row names are added when the
    values are computed, as the metric functions number them.

    Attributes
    ----------
    names : tuple of str
        The metrics, in report order.
    ks : tuple of int
        The cut-offs.
    settings : tuple of (str, object)
        What the values are computed with (``padding_items``,
        ``normalization``, ``base``, ``unseen``, ``n_items``, and the names
        of the metrics that warn without a catalogue size): states built
        with different settings do not merge.
    n_users : int
        Users (queries) evaluated.
    n_relevant : int
        Those with an item of grade above 0 (the report's footer).
    labels : ndarray or None
        The item labels of the per-item parts, sorted; None: column numbers.
    parts : dict
        ``{(name, k): part}``.
    unseen : dict
        ``{k: items}``: the items never seen in training that may be in a
        list (novelty's ``unseen`` rule, applied to all the users at once).
    """

    names: tuple
    ks: tuple
    settings: tuple
    n_users: int = 0
    n_relevant: int = 0
    labels: np.ndarray | None = None
    parts: dict = field(default_factory=dict)
    unseen: dict = field(default_factory=dict)

    def merge(self, other):
        """The state of the union of two disjoint sets of users."""
        if (self.names, self.ks) != (other.names, other.ks) or not _same_settings(
            self.settings, other.settings
        ):
            raise ValueError(
                "cannot merge beyond-accuracy metrics of different metrics, "
                "cut-offs or options; build every state with the same ones."
            )
        if (self.labels is None) != (other.labels is None):
            raise ValueError(
                "cannot merge beyond-accuracy metrics whose item ids were "
                "column numbers in one chunk and labels in another; give "
                "item ids of one kind (with n_items=, integers 0..n_items-1)."
            )
        labels, place = self.labels, None
        if labels is not None:
            labels, place = _union_labels(self.labels, other.labels)
            _check_labels_fit(labels.size, dict(self.settings)["n_items"])
        parts = {}
        for key, part in self.parts.items():
            parts[key] = _merge_part(
                BEYOND_METRICS[key[0]].kernel.part,
                part,
                other.parts[key],
                place,
                labels,
            )
        unseen = {
            k: np.union1d(items, other.unseen[k]) for k, items in self.unseen.items()
        }
        return BeyondState(
            names=self.names,
            ks=self.ks,
            settings=self.settings,
            n_users=self.n_users + other.n_users,
            n_relevant=self.n_relevant + other.n_relevant,
            labels=labels,
            parts=parts,
            unseen=unseen,
        )

    def values(self):
        """``{"catalog_coverage@10": float, ...}`` in the order of the
        names, then cut-offs, as :func:`ranking_report`; novelty's
        ``unseen`` rule and the catalogue warning applied once."""
        settings = dict(self.settings)
        size = settings["n_items"]
        if self.labels is not None:
            if size is None:
                size = self.labels.size
                if settings["warn_catalogue"]:
                    _catalogue_warning(settings["warn_catalogue"])
        for k in self.ks:
            if k in self.unseen:
                refuse_unseen(self.unseen[k].size, settings["unseen"])
        out = {}
        for name in self.names:
            kind = BEYOND_METRICS[name].kernel.part
            for k in self.ks:
                part = self.parts[(name, k)]
                if self.labels is not None and kind != "users":
                    fill = np.ones if kind == "none" else np.zeros
                    part = np.concatenate([part, fill(size - part.size)])
                out[f"{name}@{k}"] = _finish_value(name, part, settings)
        return out


def _same_settings(a, b):
    return len(a) == len(b) and all(
        ka == kb and (va == vb if isinstance(va, tuple) else same_option(va, vb))
        for (ka, va), (kb, vb) in zip(a, b, strict=True)
    )


def _union_labels(a, b):
    """The sorted union of two sorted label arrays, and where each one's
    labels are in it."""
    try:
        if a.size and b.size and _is_text(a) != _is_text(b):
            raise TypeError  # numpy would turn the numbers into text
        union = np.unique(np.concatenate([a, b]))
    except TypeError:
        raise TypeError(
            "item_id mixes types across chunks or partitions (e.g. ints and "
            "strings); use one type for every item id."
        ) from None
    return union, (np.searchsorted(union, a), np.searchsorted(union, b))


def _is_text(labels):
    kind = labels.dtype.kind
    return kind in "US" or (kind == "O" and isinstance(labels[0], (str, bytes)))


def _merge_part(kind, a, b, place, labels):
    """Two parts of one metric and cut-off merged (``place``: where each
    one's items are among ``labels``, or None for column numbers)."""
    if kind == "users":  # (sum of the per-user values, their number)
        return (a[0] + b[0], a[1] + b[1])
    if place is None and a.shape != b.shape:
        raise ValueError(
            f"cannot merge per-item counts over {a.shape[0]} and {b.shape[0]} "
            "items; use one catalogue (n_items=)."
        )
    if place is None:
        return a * b if kind == "none" else a + b
    out = (np.ones if kind == "none" else np.zeros)(labels.size)
    out[place[0]] = a  # the labels of one state are distinct
    if kind == "none":
        out[place[1]] *= b
    else:
        out[place[1]] += b
    return out


def _chunk_items(beyond, item_id, n_rows):
    """``(codes, labels, n_items)``: the column numbers of a chunk's items
    for ``beyond.block_parts``, the sorted item labels they number (None
    when the ids are column numbers of the catalogue) and the size of the
    catalogue they number.

    Ids are column numbers when the catalogue size is known (``n_items``,
    or ``item_popularity`` / ``item_features``) and they are integers, as
    for the metric functions; otherwise labels, numbered within the chunk
    (the states then merge by label).  Non-integer numbers with
    ``n_items`` are refused: one chunk could not tell them from column
    numbers as all the rows do.  ``item_id`` may also be given numbered
    already, as ``(codes, sorted labels)``.
    """
    known = beyond._catalogue if beyond._catalogue is not None else beyond.n_items
    if isinstance(item_id, tuple):  # numbered by the caller (Arrow)
        codes, labels = item_id
        if known is None or beyond._catalogue is None:
            _check_labels_fit(labels.size, known)
            return codes, labels, labels.size
        item_id = labels[codes]  # the catalogue's rules apply to the ids
    ids = _as_array("item_id", item_id)
    if ids.ndim != 1 or ids.shape[0] != n_rows:
        raise ValueError(
            f"item_id must be 1-D with one id per row ({n_rows}), got shape "
            f"{ids.shape}."
        )
    kind = ids.dtype.kind
    integers = kind in "iu" or (kind == "f" and bool(np.all(ids == np.floor(ids))))
    if known is not None and (integers or beyond._catalogue is not None):
        return ids, None, known  # column numbers (checked by the lists)
    if kind == "f" and np.isnan(ids).any():
        raise ValueError("item_id contains NaN; every row needs an item id.")
    if kind == "f" and known is not None:
        raise ValueError(
            "item_id holds numbers that are not integers, with n_items=: "
            "chunk by chunk (or partition by partition) they cannot be read "
            "as labels while integer ids are column numbers; cast them to "
            "str (labels of some of the n_items items) or to int (column "
            "numbers)."
        )
    try:
        labels, codes = np.unique(ids, return_inverse=True)
    except TypeError:
        raise TypeError(
            "item_id mixes types that cannot be sorted; use one type for every id."
        ) from None
    _check_labels_fit(labels.size, known)
    return codes.reshape(-1), labels, labels.size


def _check_labels_fit(n_labels, n_items):
    if n_items is not None and n_labels > n_items:
        raise ValueError(
            f"item_id names {n_labels} distinct items but n_items={n_items}; "
            "n_items is the catalogue size, at least the number of items seen."
        )


def beyond_state(beyond, y_true, y_score, query_id, item_id):
    """The :class:`BeyondState` of rows of whole users (long form):
    ``beyond`` is the report's (empty)
    :class:`~sklearn_rankmetrics._evaluation._beyond_report.BeyondSums`, which holds the
    metrics, cut-offs and options."""
    n = np.shape(query_id)[0]
    if item_id is None:
        raise ValueError(
            f"{', '.join(beyond.names)} need the item of each row: pass "
            "item_id= (item_col= with a data frame)."
        )
    codes, labels, n_items = _chunk_items(beyond, item_id, n)
    parts, n_users, unseen = beyond.block_parts(
        y_true, y_score, query_id, codes, n_items
    )
    q_codes, ids = check_query_id(query_id, n)
    relevant = np.bincount(
        q_codes, weights=np.asarray(y_true) > 0, minlength=ids.shape[0]
    )
    return BeyondState(
        names=tuple(beyond.names),
        ks=beyond.ks,
        settings=beyond_settings(beyond),
        n_users=n_users,
        n_relevant=int(np.count_nonzero(relevant)),
        labels=labels,
        parts=parts,
        unseen=unseen,
    )


def beyond_settings(beyond):
    """The settings of :class:`BeyondState` from the report's
    :class:`~sklearn_rankmetrics._evaluation._beyond_report.BeyondSums`."""
    warn = beyond._warn_catalogue if beyond._catalogue is None else ()
    return (
        ("padding_items", beyond.options["padding_items"]),
        ("normalization", beyond.options["normalization"]),
        ("base", beyond.options["base"]),
        ("unseen", beyond.unseen),
        ("n_items", beyond.n_items if beyond._catalogue is None else beyond._catalogue),
        ("warn_catalogue", tuple(warn) if beyond.n_items is None else ()),
    )


# ---------------------------------------------------------------------------
# The state of a chunk of whole queries
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportState:
    """What a set of whole queries contributes to every metric of a report.

    Attributes
    ----------
    names : tuple of str, or None
        Scorer names (``"ndcg@10"``, ..., ``"gauc"``) in report order; None
        for the empty state, the identity of :meth:`merge`.
    weighted_sum : ndarray of shape (n_names,)
        Per name, the sum over scored queries of weight * value.
    weight_sum : ndarray of shape (n_names,)
        Per name, the sum of the weights of the scored queries.
    n_queries : int
        Queries evaluated.
    n_scored : ndarray of shape (n_names,)
        Per name, the queries with a value (not skipped).
    query_id : ndarray of shape (n_queries,) or None
        With per-query values kept: the ids of the queries, in any order.
    values : ndarray of shape (n_queries, n_names) or None
        With per-query values kept: their values (nan where skipped).
    per_row : tuple of str
        The per-row arrays the values were computed with (``"propensity"``,
        ``"item_weight"``): states with and without them do not add up.
    propensity_totals : ndarray or None
        With ``propensity``: the totals of the diagnostics
        (:data:`~sklearn_rankmetrics._metrics._propensity.DIAGNOSTIC_TOTALS`).
    n_above_one : ndarray of shape (n_names,) or None
        With ``propensity``: per name, the per-query estimates above 1 (nan
        for a metric not bounded by 1).
    beyond : BeyondState or None
        The beyond-accuracy metrics of the report (None without them);
        ``names`` then holds the other metrics' names only (none: ``()``).
    """

    names: tuple | None = None
    weighted_sum: np.ndarray | None = None
    weight_sum: np.ndarray | None = None
    n_queries: int = 0
    n_scored: np.ndarray | None = None
    query_id: np.ndarray | None = None
    values: np.ndarray | None = None
    per_row: tuple = ()
    propensity_totals: np.ndarray | None = None
    n_above_one: np.ndarray | None = None
    beyond: BeyondState | None = None

    @property
    def keeps_per_query(self):
        return self.query_id is not None

    def merge(self, other):
        """The state of the union of two disjoint sets of queries."""
        if self.names is None:
            return other
        if other.names is None:
            return self
        if self.names != other.names:
            raise ValueError(
                "cannot merge reports of different metrics or cut-offs: "
                f"{list(self.names)} and {list(other.names)}; build every "
                "state with the same k, metrics and options."
            )
        if self.per_row != other.per_row:
            given = " and ".join(f"{a}=" for a in self.per_row or other.per_row)
            raise ValueError(
                f"cannot merge a report evaluated with {given} with one "
                "evaluated without: give it for every chunk or partition, or "
                "for none."
            )
        query_id = values = None
        if self.keeps_per_query and other.keeps_per_query:
            query_id = _concatenate_ids(self.query_id, other.query_id)
            values = np.concatenate([self.values, other.values])
        elif self.keeps_per_query or other.keeps_per_query:
            raise ValueError(
                "cannot merge a state that keeps per-query values with one "
                "that does not; build both with the same per_query."
            )
        totals = above = None
        if self.propensity_totals is not None:
            totals = merge_diagnostic_totals(
                self.propensity_totals, other.propensity_totals
            )
            above = self.n_above_one + other.n_above_one
        beyond = None
        if self.beyond is not None or other.beyond is not None:
            if self.beyond is None or other.beyond is None:
                raise ValueError(
                    "cannot merge a report with beyond-accuracy metrics with "
                    "one without; build every state with the same metrics."
                )
            beyond = self.beyond.merge(other.beyond)
        return ReportState(
            names=self.names,
            weighted_sum=self.weighted_sum + other.weighted_sum,
            weight_sum=self.weight_sum + other.weight_sum,
            n_queries=self.n_queries + other.n_queries,
            n_scored=self.n_scored + other.n_scored,
            query_id=query_id,
            values=values,
            per_row=self.per_row,
            propensity_totals=totals,
            n_above_one=above,
            beyond=beyond,
        )

    def means(self):
        """Scorer name -> weighted mean over the scored queries, then the
        beyond-accuracy metrics' values.

        A metric no query could score is nan, with one
        :class:`~sklearn.exceptions.UndefinedMetricWarning` naming every
        such metric (as the in-memory report).
        """
        if self.names is None:
            raise ValueError(
                "no rows were evaluated, so there is no report; pass at least "
                "one row (an empty dataset or only empty chunks was given)."
            )
        out = {}
        for name, num, den in zip(
            self.names, self.weighted_sum, self.weight_sum, strict=True
        ):
            out[name] = mean_of_totals(num, den)
        undefined = [name for name, v in out.items() if np.isnan(v)]
        if undefined:
            warnings.warn(
                f"{', '.join(undefined)}: no query could be scored (every "
                "query was skipped -- no relevant item, or for gauc a single "
                "class -- or had zero weight); reporting nan.",
                undefined_metric_warning(),
                stacklevel=user_stacklevel(),
            )
        if self.beyond is not None:
            out.update(self.beyond.values())
        return out

    def diagnostics(self):
        """:func:`propensity_diagnostics` of these queries (None without
        ``propensity``)."""
        if self.propensity_totals is None:
            return None
        above = {
            name: (int(n), int(scored))
            for name, n, scored in zip(
                self.names, self.n_above_one, self.n_scored, strict=True
            )
            if not np.isnan(n)
        }
        return diagnostics_from_totals(self.propensity_totals, above)

    def output_dict(self):
        """``ranking_report(..., output_dict=True)``: the means, and with
        ``propensity`` the diagnostics."""

        out = self.means()
        if self.propensity_totals is not None:
            out[DIAGNOSTICS_KEY] = self.diagnostics()
        return out

    def text(self, k, digits=4):
        """The text table of :func:`ranking_report` for these means."""

        means = self.means()
        metrics = list(dict.fromkeys(n.partition("@")[0] for n in self.names))
        if not self.names:  # the beyond-accuracy metrics alone
            return _format(
                means,
                list(self.beyond.names),
                _check_cutoffs(k),
                digits,
                self.beyond.n_users,
                self.beyond.n_relevant,
            )
        if self.beyond is not None:
            metrics += self.beyond.names
        # "n with a relevant item": the queries the first ranking metric scored
        first = next((j for j, n in enumerate(self.names) if n != _GAUC), 0)
        n_scored = int(self.n_scored[first])
        diagnostics = self.diagnostics()
        if diagnostics is not None:  # with an observed relevant item
            n_scored = self.n_queries - int(self.propensity_totals[1])
        return _format(
            means,
            metrics,
            _check_cutoffs(k),
            digits,
            self.n_queries,
            n_scored,
            diagnostics,
        )

    def per_query_table(self, output_dict=False):
        """The per-query table of ``ranking_report(per_query=True)``: rows
        sorted by query id (the order of ``np.unique`` over all the rows,
        as the in-memory report)."""
        if not self.keeps_per_query:
            raise ValueError("this state was built without per-query values.")
        order = np.argsort(self.query_id, kind="stable")
        ids = self.query_id[order]
        dup = np.flatnonzero(ids[1:] == ids[:-1])
        if dup.size:
            raise ValueError(
                f"query_id={_py(ids[dup[0]])!r} was evaluated in two states; "
                "each query must be in exactly one chunk or partition."
            )
        values = self.values[order]
        table = {"query_id": ids}
        table.update((name, values[:, j]) for j, name in enumerate(self.names))
        return table_output(table, output_dict)


def _same_options(a, b):
    """Equal option dicts: arrays (``item_popularity``, a gain table) by
    value, so that evaluators built apart (in other processes) merge."""
    return a.keys() == b.keys() and all(_same_value(a[o], b[o]) for o in a)


def _same_value(a, b):
    if a is b or same_option(a, b):
        return True
    if issparse(a) or issparse(b):
        return issparse(a) and issparse(b) and a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _concatenate_ids(a, b):
    if a.dtype.kind != b.dtype.kind and "O" not in (a.dtype.kind, b.dtype.kind):
        return np.concatenate([a.astype(object), b.astype(object)])
    return np.concatenate([a, b])


def _py(value):
    return value.item() if isinstance(value, np.generic) else value


def chunk_state(
    y_true,
    y_score,
    *,
    query_id,
    sample_weight=None,
    k,
    metrics,
    per_query=False,
    propensity=None,
    item_weight=None,
    item_id=None,
    beyond=None,
    **options,
):
    """The :class:`ReportState` of rows holding whole queries (long form).

    Each chunk goes through the report's engine unchanged, so a state is a
    pure function of its rows.  The engine rescales the weights of a call
    by a power of two (``check_sample_weight``); the sums are brought back
    to the caller's scale exactly, so that states of chunks with different
    largest weights add up.  ``propensity`` and ``item_weight`` (one per
    row, or None) go with the rows to the report's engine.  ``beyond``
    (the :class:`~sklearn_rankmetrics._evaluation._beyond_report.BeyondSums` of
    :func:`report_plan`, or None) adds the beyond-accuracy metrics, read
    with the rows' ``item_id``; ``metrics=[]``: those alone.
    """
    per_row = {
        name: array
        for name, array in (("propensity", propensity), ("item_weight", item_weight))
        if array is not None
    }
    n = np.shape(query_id)[0] if np.ndim(query_id) else 0
    if n == 0 and _length(y_score) == 0:
        return ReportState()
    extra = None
    if beyond is not None:
        extra = beyond_state(beyond, y_true, y_score, query_id, item_id)
        if metrics is not None and len(metrics) == 0:  # nothing else
            return ReportState(
                names=(),
                weighted_sum=np.zeros(0),
                weight_sum=np.zeros(0),
                n_queries=extra.n_users,
                n_scored=np.zeros(0, dtype=np.int64),
                beyond=extra,
            )
    scale_exp = 0
    if sample_weight is not None:
        raw = np.asarray(_as_array("sample_weight", sample_weight))
        sample_weight = check_sample_weight(raw, raw.shape[0], "row")
        # check_sample_weight returned raw * 2**-scale_exp, the largest in
        # [0.5, 1): the engine leaves such weights as they are.
        top = float(np.max(np.asarray(raw, dtype=np.float64)))
        scale_exp = int(np.frexp(top)[1]) if top > 0 else 0
    report = _per_query_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        **per_row,
        **options,
    )
    names = tuple(report.values)
    values = np.column_stack([report.values[n] for n in names])
    weights = np.column_stack([report.weights[n] for n in names])
    sums = np.empty(len(names))
    weight_sum = np.empty(len(names))
    for j in range(len(names)):  # as the in-memory mean, over the scored
        sums[j], weight_sum[j] = weighted_totals(values[:, j], weights[:, j])
    # GAUC's "uniform" query weights are 1 whatever the row weights' scale
    uniform = resolved_option("gauc", "query_weighting", options) == "uniform"
    exps = np.array([0 if uniform and n == "gauc" else scale_exp for n in names])
    if options.get("average") == "micro" and "gauc" in names:
        # GAUC's pooled weights: the query weight (1, or a sum of row
        # weights) times the estimated pairs, a product of two sums of row
        # weights
        j = names.index("gauc")
        exps[j] = scale_exp * (2 if uniform else 3)
    totals = above = None
    if report.propensity is not None:
        totals, counts = report.propensity
        above = np.array([counts[n][0] if n in counts else np.nan for n in names])
    return ReportState(
        names=names,
        weighted_sum=np.ldexp(sums, exps),
        weight_sum=np.ldexp(weight_sum, exps),
        n_queries=values.shape[0],
        n_scored=np.count_nonzero(~np.isnan(values), axis=0),
        query_id=report.query_id if per_query else None,
        values=values if per_query else None,
        per_row=tuple(per_row),
        propensity_totals=totals,
        n_above_one=above,
        beyond=extra,
    )


def _length(x):
    return 0 if x is None else len(x)


class ReportPlan(NamedTuple):
    """What every chunk or partition of a report computes
    (:func:`report_plan`)."""

    names: tuple  # the scorer names of the metrics other than beyond-accuracy
    metrics: list | None  # those metrics (None: the default; []: none)
    options: dict  # their options (the convention and tie rule included)
    beyond: object  # the beyond-accuracy metrics' (empty) BeyondSums, or None


def report_plan(
    k,
    metrics,
    options,
    caller="ranking_report",
    per_row=(),
    per_query=False,
    weighted=False,
):
    """The :class:`ReportPlan` of a chunked or distributed report, every
    option checked before any data is read.

    The beyond-accuracy metrics in ``metrics`` (``"catalog_coverage"``,
    ...) take their options out of ``options`` (``item_popularity``,
    ``n_items``, ...; the tie rule is every metric's) and are refused as
    :func:`ranking_report` refuses them: with ``per_query``, row weights
    (``weighted``), propensities; their item ids come with the rows.
    """
    ranking, beyond = split_report_metrics(metrics)
    if not beyond:
        names = report_names(k, metrics, options, caller, per_row)
        return ReportPlan(names, metrics, options, None)
    if "item_id" in options:
        raise TypeError(
            f"{caller}: item_id is one item id per row; give it with the rows "
            "(item_id= of RankingEvaluator.update, item_col= of a data frame), "
            "not as an option."
        )
    if per_row:
        raise ValueError(
            f"{', '.join(map(repr, beyond))}: the beyond-accuracy metrics have "
            f"no {' or '.join(per_row)}= estimator; leave them out of metrics."
        )
    own = {o: options[o] for o in _BEYOND_OPTIONS if o in options}
    rest = {o: v for o, v in options.items() if o not in own}
    sums = report_sums(
        beyond,
        _check_cutoffs(k),
        convention=rest.get("convention"),
        alone=not ranking,
        per_query=per_query,
        sample_weight=True if weighted else None,
        relevance_threshold=rest.get("relevance_threshold"),
        ranking_options=[o for o in rest if o not in (*_TIE_OPTIONS, "convention")],
        **own,
        **{o: rest[o] for o in _TIE_OPTIONS if o in rest},
    )
    names = report_names(k, ranking, rest, caller) if ranking else ()
    return ReportPlan(names, ranking, rest, sums)


def report_names(k, metrics, options, caller="ranking_report", per_row=()):
    """The scorer names of a report, checking ``k``, ``metrics`` and the
    options on two rows before any data is read (the same code as the
    chunks, so the names and the errors are the report's own; ``caller``
    is the public function the errors name; ``per_row`` the names of the
    per-row arrays that will be given, ``"propensity"``, ...)."""
    if (
        metrics is not None
        and "err" in ([metrics] if isinstance(metrics, str) else metrics)
        and options.get("max_grade") is None
    ):
        raise ValueError(
            "metrics: 'err' without max_grade cannot be evaluated chunk by "
            "chunk or per partition: ERR then scales its stop probabilities "
            "by the largest grade of the whole input, which one chunk does "
            "not know. Pass max_grade= (the top grade of the scale, e.g. 4), "
            "or evaluate it in memory."
        )
    options = {**options, "no_relevant": "skip"}
    if ips_options_given(options):
        per_row = (*per_row, "propensity")  # given to every update
    per_row = dict.fromkeys(per_row, np.ones(2))
    report = _per_query_report(
        np.array([1.0, 0.0]),
        np.array([1.0, 0.0]),
        k=k,
        metrics=metrics,
        query_id=np.array([0, 0]),
        sample_weight=None,
        caller=caller,
        **per_row,
        **options,
    )
    return tuple(report.values)


# ---------------------------------------------------------------------------
# Query ids already evaluated, for the chunked API
# ---------------------------------------------------------------------------
class _ClosedQueries:
    """The ids of queries already evaluated and the chunk of each.

    Sorted runs of ids merged when a run grows as large as the one before
    it (a binary counter), so adding ``n`` ids in total costs
    O(n log n) and a look-up O(log^2 n), whatever the number of chunks.
    """

    def __init__(self):
        self.runs = []  # [(sorted ids, chunk number of each)]

    def copy(self):
        new = _ClosedQueries()
        new.runs = list(self.runs)  # runs are never modified in place
        return new

    def add(self, ids, chunk):
        if ids.size == 0:
            return
        order = np.argsort(ids, kind="stable")
        self.runs.append((ids[order], np.full(ids.size, chunk, dtype=np.int64)))
        while len(self.runs) > 1 and self.runs[-2][0].size <= self.runs[-1][0].size:
            (a, ca), (b, cb) = self.runs.pop(), self.runs.pop()
            ids_ab = _concatenate_ids(b, a)
            order = np.argsort(ids_ab, kind="stable")
            self.runs.append((ids_ab[order], np.concatenate([cb, ca])[order]))

    def extend(self, other):
        for ids, chunks in other.runs:
            self.runs.append((ids, chunks))
        self.runs.sort(key=lambda run: -run[0].size)

    def find(self, ids):
        """The first of ``ids`` already closed, and its chunk, or None."""
        for run, chunks in self.runs:
            try:
                pos = np.searchsorted(run, ids)
            except TypeError:
                raise TypeError(
                    "query_id mixes types across chunks (e.g. ints and "
                    "strings); use one type for every id."
                ) from None
            pos = np.minimum(pos, run.size - 1)
            hit = np.flatnonzero(run[pos] == ids)
            if hit.size:
                return _py(ids[hit[0]]), int(chunks[pos[hit[0]]])
        return None


def with_held_rows(held, arrays):
    """``arrays`` (a tuple of 1-D columns, None for an absent one) after
    the rows ``held`` back from the chunk before (None: nothing held).

    With :func:`hold_last_query`, the open-query handling of every reader
    of chunks grouped by query (:class:`RankingEvaluator`, the command
    line's ``--long`` reader): the query of a chunk's last row may go on
    in the next chunk, so its rows wait for it.
    """
    if held is None:
        return arrays
    return tuple(
        None if a is None else np.concatenate([a, b])
        for a, b in zip(held, arrays, strict=True)
    )


def hold_last_query(arrays, query_codes):
    """``(closed, held)``: the rows of ``arrays`` whose query is not the
    last row's (complete), and those of the last row's query (held back)."""
    last = query_codes == query_codes[-1]
    done = ~last
    closed = tuple(None if a is None else a[done] for a in arrays)
    held = tuple(None if a is None else a[last] for a in arrays)
    return closed, held


def _rows(arrays, rows):
    """The ``rows`` of each of ``arrays`` (None stays None)."""
    return tuple(None if a is None else a[rows] for a in arrays)


def _in_window(update, first):
    """``update`` as an int, or None if before the window's ``first``."""
    return int(update) if update >= first else None


def _shifted(update, shift):
    return None if update is None else update + shift


# ---------------------------------------------------------------------------
# The public chunked API
# ---------------------------------------------------------------------------
class RankingEvaluator:
    """Evaluate a ranking report chunk by chunk, in bounded memory.

    Feed the long form (one row per (query, item) pair) in chunks with
    :meth:`update`; :meth:`result` gives exactly what one
    :func:`ranking_report` call on all the rows would (to rounding, about
    1e-15 relative).  Only a few numbers per metric are kept, so a file
    larger than memory can be evaluated chunk by chunk; evaluators fed
    with different chunks (in other processes, say) combine with
    :meth:`merge`.

    Read more in the :ref:`User Guide <scale>`.

    Parameters
    ----------
    k : int or sequence of int, default=(1, 5, 10, 20)
        The cut-offs, as in :func:`ranking_report`.

    metrics : list of str, default=None
        The metrics, as in :func:`ranking_report` (None: its default
        for the long form, GAUC included).  The beyond-accuracy metrics
        (``"catalog_coverage"``, ``"gini_index"``, ``"exposure_entropy"``,
        ``"average_popularity"``, ``"novelty"``, ``"intra_list_diversity"``,
        ``"serendipity"``) are merged from per-item counts and per-user
        sums; they need ``item_id`` in every update, and take their
        options (``item_popularity``, ``item_features``, ``n_items``, ...)
        here.

    per_query : bool, default=False
        Also keep every query's values (memory O(queries)); :meth:`result`
        then returns the per-query table of ``ranking_report(...,
        per_query=True)``.

    window : int >= 1, default=None
        Number of most recent updates kept for ``result(window=True)``;
        None keeps the lifetime value only.  See "Sliding windows" in
        Notes.

    **options
        The other options of :func:`ranking_report`: ``convention`` and
        every option of the metric functions (``ties``, ``gain``,
        ``relevance_threshold``, ``no_relevant``, ``precision_denominator``,
        ``ap_denominator``, ``persistence``, ``query_weighting``, ...),
        resolved per metric as each function resolves them.  A row-order
        tie rule (``ties="input_order"``, the trec_eval preset, ...) reads
        each chunk's rows in the order given.  ERR needs ``max_grade``: one
        chunk does not know the largest grade of all.  ``average="micro"``
        (with ``propensity`` given to :meth:`update`): the pooled
        inverse-propensity estimates, as in :func:`ranking_report`.  The
        options of the beyond-accuracy metrics: ``item_popularity``,
        ``item_features``, ``n_items`` (the catalogue size: ``item_id``
        are then column numbers, or labels of some of its items),
        ``metric``, ``normalization``, ``base``, ``share``, ``unseen``,
        ``single_item``, ``padding_items``, as in their functions.

    Attributes
    ----------
    n_chunks_ : int
        Calls to :meth:`update` so far.

    n_queries_ : int
        Queries evaluated so far (the open query excluded).

    See Also
    --------
    ranking_report : The same report in one call.
    sklearn_rankmetrics.dask.ranking_report : On a Dask DataFrame.
    sklearn_rankmetrics.spark.ranking_report : On a PySpark DataFrame.

    Notes
    -----
    **Queries split across chunks.**  A chunk's rows need not be sorted,
    but a query's rows must all be in one chunk, with one exception that
    covers data sorted (or grouped) by query and cut into chunks at
    arbitrary rows: the query of the *last row* of a chunk is kept
    *open*.  Its rows are held back and evaluated with the next chunk, so
    it may continue there.  Every other query of a chunk is *closed*: if
    it appears again in a later chunk, :meth:`update` raises a
    ``ValueError`` naming the query and both chunks, and evaluates
    nothing of that chunk -- a query is never counted twice nor cut in
    two.  :meth:`result` evaluates the open query as complete (without
    closing it, so updates may continue).

    Memory: the open query's rows, the ids of the closed queries (to
    detect a reappearing one) and, with ``per_query=True``, their values;
    with beyond-accuracy metrics, per metric and cut-off one number per
    item of the catalogue (of the items seen, without a catalogue size).

    **Beyond-accuracy metrics.**  Each chunk adds per item the probability
    that no list holds it (coverage; chunks multiply), per item its
    expected number of lists (Gini, entropy; chunks add), or the sum and
    number of per-user values (the others).  Their values equal
    :func:`ranking_report`'s bit for bit when the per-item numbers are
    whole (every tie broken by the tie rule, or no tie cut by ``k``), and
    within 1e-15 relative otherwise (sums added in another order).  Item
    ids that are column numbers in one chunk and labels in another, or
    more labels than ``n_items``, are refused with the chunk that brings
    them; novelty's ``unseen`` rule and the catalogue warning are applied
    once, by :meth:`result`, to every user.

    The weights follow :func:`ranking_report`: ``sample_weight`` is one
    weight per row, constant within a query (for GAUC, row weights).

    **Sliding windows.**  With ``window=N``, ``result(window=True)``
    reports the last ``N`` calls to :meth:`update` (empty chunks
    included) next to the lifetime value of ``result()``, as torcheval's
    windowed metrics: the report of the queries those updates *complete*,
    each query whole.  A query belongs to the update holding its last
    row: a query held open across updates belongs to the last one that
    brought rows of it, even if a later update closes it, so that updates
    of whole queries give exactly the window's rows.  The report equals
    :func:`ranking_report` on the rows of the window's queries (the rows
    of a query that began before the window included), hence that of a
    fresh evaluator fed only the last ``N`` updates when no query runs on
    into the window from an older update; the open query counts in the
    window if its last row is there.  The evaluator keeps one state per
    update of the window (O(``N`` x metrics) numbers; with
    ``per_query=True`` the values of the window's queries too).
    :meth:`merge` appends ``other``'s updates after ``self``'s and keeps
    the last ``N``, as :class:`CalibrationEvaluator` does.

    Examples
    --------
    >>> from sklearn_rankmetrics import RankingEvaluator, ranking_report
    >>> y_true = [1, 0, 1, 2, 0, 1, 0]
    >>> y_score = [0.2, 0.9, 0.4, 0.8, 0.1, 0.3, 0.3]
    >>> query_id = [1, 1, 1, 2, 2, 2, 3]
    >>> ev = RankingEvaluator(k=2, metrics=["ndcg", "map"])
    >>> ev = ev.update(y_true[:4], y_score[:4], query_id=query_id[:4])
    >>> ev = ev.update(y_true[4:], y_score[4:], query_id=query_id[4:])
    >>> ev.result(output_dict=True)
    {'ndcg@2': 0.6934..., 'map@2': 0.625}
    >>> ranking_report(
    ...     y_true, y_score, k=2, metrics=["ndcg", "map"], query_id=query_id,
    ...     output_dict=True,
    ... )
    {'ndcg@2': 0.6934..., 'map@2': 0.625}
    >>> print(ev.result())
              @2
    ndcg  0.6934
    map   0.6250
    <BLANKLINE>
    3 queries, 2 with a relevant item.
    <BLANKLINE>

    Query 2 was open at the end of the first chunk (its last row) and
    continued in the second.  A closed query that reappears is an error:

    >>> ev.update([1], [0.5], query_id=[1])
    Traceback (most recent call last):
    ...
    ValueError: query_id=1 appears in chunk 3 but was closed in chunk 1...

    With ``window=1``, ``result(window=True)`` reports the queries the last
    update completed: query 2 (continued there) and 3, not query 1.

    >>> ev = RankingEvaluator(k=2, metrics=["ndcg", "map"], window=1)
    >>> ev = ev.update(y_true[:4], y_score[:4], query_id=query_id[:4])
    >>> ev = ev.update(y_true[4:], y_score[4:], query_id=query_id[4:])
    >>> ev.result(output_dict=True, window=True)
    {'ndcg@2': 1.0, 'map@2': 1.0}
    >>> ranking_report(
    ...     y_true[3:], y_score[3:], k=2, metrics=["ndcg", "map"],
    ...     query_id=query_id[3:], output_dict=True,
    ... )
    {'ndcg@2': 1.0, 'map@2': 1.0}
    """

    def __init__(
        self,
        *,
        k=(1, 5, 10, 20),
        metrics=None,
        per_query=False,
        window=None,
        **options,
    ):
        if not isinstance(per_query, (bool, np.bool_)):
            raise TypeError(f"per_query must be True or False; got {per_query!r}.")
        if window is not None and (
            isinstance(window, (bool, np.bool_))
            or not isinstance(window, (int, np.integer))
            or window < 1
        ):
            raise ValueError(f"window must be None or an int >= 1; got {window!r}.")
        self.k = k
        self.metrics = metrics
        self.per_query = bool(per_query)
        self.window = None if window is None else int(window)
        self.options = options
        # checks the options; the beyond-accuracy metrics' options taken out
        self._plan = report_plan(
            k, metrics, options, caller="RankingEvaluator", per_query=per_query
        )
        self._state = ReportState()
        self._closed = _ClosedQueries()
        # (y_true, y_score, query_id, sample_weight, propensity, item_weight,
        # item_id) of the open query
        self._open = None
        # With a window: {update number: state of the queries it completed}
        # for the last ``window`` updates, and the update of each open row.
        self._recent = {}
        self._open_update = None
        self.n_chunks_ = 0

    @property
    def n_queries_(self):
        return self._state.n_queries

    def _chunk_state(self, y, s, codes, w, ids, p=None, iw=None, it=None):
        """State of whole queries given as ``codes`` into ``ids`` (integer
        codes make the engine's grouping a ``bincount``); ``p``, ``iw`` and
        ``it`` the rows' propensities, item weights and item ids (or
        None)."""
        plan = self._plan
        state = chunk_state(
            y,
            s,
            query_id=codes,
            sample_weight=w,
            k=self.k,
            metrics=plan.metrics,
            per_query=self.per_query,
            propensity=p,
            item_weight=iw,
            item_id=it,
            beyond=plan.beyond,
            **plan.options,
        )
        if state.keeps_per_query:
            state = replace(state, query_id=ids[state.query_id])
        return state

    def update(
        self,
        y_true,
        y_score=None,
        *,
        query_id=None,
        sample_weight=None,
        propensity=None,
        item_weight=None,
        item_id=None,
        query_col=None,
        label_col=None,
        score_col=None,
        weight_col=None,
        propensity_col=None,
        item_weight_col=None,
        item_col=None,
    ):
        """Evaluate one chunk of rows (long form).

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance grades of the chunk's rows.

        y_score : array-like of shape (n_rows,)
            Predicted scores.

        query_id : array-like of shape (n_rows,)
            Query of each row.  Every query but the last row's must be
            whole in this chunk (see Notes of the class).

        sample_weight : array-like of shape (n_rows,), default=None
            Row weights, constant within a query.  Give them in every
            chunk or in none.

        propensity : array-like of shape (n_rows,), default=None
            Probability in (0, 1] that each row's relevance was observed:
            the report of the inverse-propensity estimates, as
            ``ranking_report(..., propensity=)`` (``min_propensity`` and
            the other IPS options are given to the constructor).  Give it
            in every chunk or in none.

        item_weight : array-like of shape (n_rows,), default=None
            Per-item weights of the rows, as ``ranking_report(...,
            item_weight=)`` (TF-Ranking's per-item weights), for the
            metrics whose function takes them.  Give it in every chunk or
            in none.

        item_id : array-like of shape (n_rows,), default=None
            The item of each row, for the beyond-accuracy metrics
            (``"catalog_coverage"``, ...; required with them, refused
            without): column numbers ``0 <= id < n_items`` of the
            catalogue when its size is given (``n_items``,
            ``item_popularity`` or ``item_features`` to the constructor),
            otherwise any labels (ints or strings, one type in every
            chunk), as ``item_id`` of the metric functions.

        query_col, label_col, score_col, weight_col : str, default=None
            The data-frame form: pass a chunk as a pandas, polars (eager or
            lazy) or pyarrow table as ``y_true``, no ``y_score``, and name
            its columns, as in :func:`ranking_report`.  The query ids are
            read as they are, so a query may run on into the next chunk
            whatever the chunk's frame kind.

        propensity_col, item_weight_col, item_col : str, default=None
            With a data frame: the columns of ``propensity``,
            ``item_weight`` and ``item_id``.

        Returns
        -------
        self : RankingEvaluator
            The evaluator, updated.  On an error nothing of the chunk is
            evaluated and the evaluator is unchanged.
        """
        if y_score is None or any(
            col is not None
            for col in (query_col, label_col, score_col, weight_col)
            + (propensity_col, item_weight_col, item_col)
        ):
            arguments = dict(locals())  # the arguments given
            del arguments["self"]
            from .._io._dataframe import frame_update  # a data frame by column name

            return frame_update(self.update, arguments)
        if query_id is None:
            raise TypeError(
                "RankingEvaluator.update() missing query_id: the long form needs "
                "one query id per row (or a data frame with query_col=)."
            )
        chunk = self.n_chunks_ + 1
        y = _as_array("y_true", y_true)
        s = _as_array("y_score", y_score)
        q = _as_array("query_id", query_id)
        w = None if sample_weight is None else _as_array("sample_weight", sample_weight)
        p = None if propensity is None else _as_array("propensity", propensity)
        iw = None if item_weight is None else _as_array("item_weight", item_weight)
        it = None if item_id is None else _as_array("item_id", item_id)
        given = tuple(
            name
            for name, arr in (("propensity", p), ("item_weight", iw))
            if arr is not None
        )
        check_per_row_options(self._plan.options, given, "RankingEvaluator.update")
        if (given or w is not None) and self._plan.beyond is not None:
            # refused as ranking_report refuses them
            report_plan(
                self.k,
                self.metrics,
                self.options,
                "RankingEvaluator",
                per_row=given,
                weighted=w is not None,
            )
        if (it is None) != (self._plan.beyond is None):
            if it is None:
                raise ValueError(
                    f"{', '.join(self._plan.beyond.names)} need the item of "
                    "each row: pass item_id= (item_col= with a data frame) "
                    "to every update."
                )
            raise TypeError(
                "RankingEvaluator.update: item_id= is read by the "
                "beyond-accuracy metrics (catalog_coverage, gini_index, ...) "
                "only, and metrics has none of them; drop item_id or add them."
            )
        if given and self._open is None and self._state.names is None:
            # the first rows: the metrics must take them, even if this
            # chunk's one query is held open
            report_names(
                self.k,
                self._plan.metrics,
                self._plan.options,
                "RankingEvaluator",
                per_row=given,
            )
        n = q.shape[0] if q.ndim else -1
        for name, arr in (
            ("y_true", y),
            ("y_score", s),
            ("sample_weight", w),
            ("propensity", p),
            ("item_weight", iw),
            ("item_id", it),
        ):
            if arr is not None and (arr.ndim != 1 or arr.shape[0] != n):
                raise ValueError(
                    f"in chunk {chunk}, {name} has shape {arr.shape} but query_id "
                    f"has shape {q.shape}; pass 1-D arrays with one entry per row."
                )
        for name, arr, j in (
            ("sample_weight", w, 3),
            ("propensity", p, 4),
            ("item_weight", iw, 5),
        ):
            if self._open is not None and (arr is None) != (self._open[j] is None):
                raise ValueError(
                    f"chunk {chunk} {'lacks' if arr is None else 'has'} {name} "
                    f"but the chunk before it did not; give {name} in every "
                    "chunk or in none."
                )
        if n == 0:
            self.n_chunks_ = chunk
            return self
        codes, ids = check_query_id(q, n)
        found = self._closed.find(ids)
        if found is not None:
            raise ValueError(
                f"query_id={found[0]!r} appears in chunk {chunk} but was closed "
                f"in chunk {found[1]}: a query's rows must all be in one chunk, "
                "or run on from the end of one chunk into the next (rows "
                "sorted by query). Sort or group the rows by query_id."
            )
        if self._open is not None:  # prepend the rows held back
            y, s, q, w, p, iw, it = with_held_rows(self._open, (y, s, q, w, p, iw, it))
            codes, ids = check_query_id(q, q.shape[0])
        closed, held = hold_last_query((y, s, q, w, p, iw, it, codes), codes)
        codes_d = closed[-1]
        parts, held_update = self._split_by_update(codes, chunk)
        states = [  # every part evaluated before the evaluator changes
            (when, self._rows_state(_rows(closed, r), ids)) for when, r in parts
        ]
        state = self._state
        for _, part in states:
            state = state.merge(part)
        self._state = state
        self._remember(states, held_update, chunk)
        self._closed.add(ids[np.unique(codes_d)], chunk)
        self._open = held[:-1]  # (y, s, q, w, p, iw, it) of the last row's query
        self.n_chunks_ = chunk
        return self

    def _rows_state(self, rows, ids):
        """:meth:`_chunk_state` of ``rows``, a tuple ``(y_true, y_score,
        query_id, sample_weight, ..., codes)`` of whole queries as held
        and closed by :meth:`update` (the columns between
        ``sample_weight`` and ``codes`` passed on after ``ids``)."""
        y, s, _, w, *more, codes = rows
        return self._chunk_state(y, s, codes, w, ids, *more)

    def _split_by_update(self, codes, chunk):
        """The closed rows of update ``chunk`` in parts, by the update that
        completes each query (see Notes of the class), and the update of
        each held row.

        ``codes`` are the query codes of the update's rows after the rows
        held back (the open query's rows come first); the last row's query
        stays open.  Returns ``(parts, held_update)``: ``parts`` a list of
        ``(update, rows)`` in increasing update order, ``rows`` an index
        into the closed rows and ``update`` None for the queries completed
        before the window; without a window, one part (the whole update)
        and ``held_update`` None.
        """
        closing = codes != codes[-1]
        if self.window is None:
            return ([(chunk, slice(None))] if closing.any() else []), None
        when = np.full(codes.size, chunk, dtype=np.int64)
        if self._open_update is not None:  # the held rows, first
            when[: self._open_update.size] = self._open_update
        held_update = when[~closing]
        codes_d, when_d = codes[closing], when[closing]
        if codes_d.size == 0:
            return [], held_update
        # A query is completed by the update holding its last row.
        last = np.zeros(int(codes.max()) + 1, dtype=np.int64)
        np.maximum.at(last, codes_d, when_d)
        completed = last[codes_d]
        first = chunk - self.window + 1  # the window's oldest update
        completed[completed < first] = first - 1
        updates = np.unique(completed)
        if updates.size == 1:
            return [(_in_window(updates[0], first), slice(None))], held_update
        return [
            (_in_window(u, first), np.flatnonzero(completed == u)) for u in updates
        ], held_update

    def _remember(self, states, held_update, chunk):
        """Record the states of the queries completed by each update of the
        window (the older ones dropped)."""
        if self.window is None:
            return
        first = chunk - self.window + 1
        recent = {u: s for u, s in self._recent.items() if u >= first}
        for when, part in states:
            if when is not None:
                recent[when] = recent.get(when, ReportState()).merge(part)
        self._recent = recent
        self._open_update = held_update

    def _final_state(self, window=False):
        """The state of every row (``window``: of the queries completed by
        the last ``window`` updates), the open queries evaluated as
        complete."""
        if window:
            first = self.n_chunks_ - self.window + 1
            state = ReportState()
            for u in sorted(self._recent):  # in update order
                if u >= first:
                    state = state.merge(self._recent[u])
        else:
            state = self._state
        if self._open is not None:
            q = self._open[2]
            codes, ids = check_query_id(q, q.shape[0])
            rows = slice(None)
            if window:  # the open queries whose last row is in the window
                last = np.zeros(ids.size, dtype=np.int64)
                np.maximum.at(last, codes, self._open_update)
                rows = np.flatnonzero(last[codes] >= first)
                if rows.size == 0:
                    return state
            part = _rows((*self._open, codes), rows)
            state = state.merge(self._rows_state(part, ids))
        return state

    def merge(self, other):
        """A new evaluator holding the rows of both ``self`` and ``other``.

        Both must have been built with the same parameters, and have seen
        disjoint queries; the open queries of both stay open.  Neither
        evaluator is modified.  With a window, ``other``'s updates count
        as coming after ``self``'s: the merged window holds the last
        ``window`` of self's updates followed by other's.

        Parameters
        ----------
        other : RankingEvaluator
            Another evaluator, built with the same ``window``.

        Returns
        -------
        merged : RankingEvaluator
        """
        if not isinstance(other, RankingEvaluator):
            raise TypeError(
                f"can only merge a RankingEvaluator, got {type(other).__name__}."
            )
        if other.window != self.window:
            raise ValueError(
                f"Cannot merge evaluators with different windows ({self.window} "
                f"and {other.window})."
            )
        if (self.k, self.metrics, self.per_query) != (
            other.k,
            other.metrics,
            other.per_query,
        ) or not _same_options(self.options, other.options):
            raise ValueError(
                "cannot merge evaluators built with different parameters "
                "(k, metrics, per_query or options)."
            )
        for a, b in ((self, other), (other, self)):
            ids = []
            if b._open is not None:
                ids.append(np.unique(b._open[2]))
            for run, _ in b._closed.runs:
                ids.append(run)
            for chunk_ids in ids:
                found = a._closed.find(chunk_ids)
                if found is not None:
                    raise ValueError(
                        f"query_id={found[0]!r} was evaluated by both evaluators; "
                        "merge evaluators of disjoint sets of queries."
                    )
        merged = RankingEvaluator.__new__(RankingEvaluator)
        merged.__dict__.update(self.__dict__)
        merged._state = self._state.merge(other._state)
        merged._closed = self._closed.copy()
        merged._closed.extend(other._closed)
        opens = [o for o in (self._open, other._open) if o is not None]
        if len(opens) == 2:
            for j, name in ((3, "sample_weight"), (4, "propensity")):
                if (opens[0][j] is None) != (opens[1][j] is None):
                    raise ValueError(
                        f"one evaluator was given {name} and the other not."
                    )
            merged._open = tuple(
                None if a is None else np.concatenate([a, b])
                for a, b in zip(*opens, strict=True)
            )
        else:
            merged._open = opens[0] if opens else None
        merged.n_chunks_ = self.n_chunks_ + other.n_chunks_
        if self.window is not None:  # other's updates after self's
            shift = self.n_chunks_
            recent = {**self._recent}
            recent.update((u + shift, s) for u, s in other._recent.items())
            first = merged.n_chunks_ - self.window + 1
            merged._recent = {u: s for u, s in recent.items() if u >= first}
            updates = [
                u
                for u in (self._open_update, _shifted(other._open_update, shift))
                if u is not None
            ]
            merged._open_update = np.concatenate(updates) if updates else None
        return merged

    def result(self, *, output_dict=False, digits=4, window=False):
        """The report of every row given so far.

        The open query (see Notes of the class) is evaluated as complete;
        the evaluator is not modified, so updates may continue.

        Parameters
        ----------
        output_dict : bool, default=False
            As in :func:`ranking_report`: a dict of scorer name -> float
            (with ``per_query=True``, a dict of arrays rather than a
            DataFrame), otherwise a text table.

        digits : int, default=4
            Digits of the text table.

        window : bool, default=False
            Report the last ``window`` updates instead of the lifetime:
            the queries completed by those updates (see Notes of the
            class).

        Returns
        -------
        report : str, dict, or per-query table
            What :func:`ranking_report` returns for all the rows (with
            ``window=True``, for the rows of the window's queries).

        Raises
        ------
        ValueError
            If no row was given (with ``window=True``: if the last
            ``window`` updates completed no query), or ``window=True`` on
            an evaluator built without a window.
        """
        if not isinstance(window, (bool, np.bool_)):
            raise TypeError(f"window must be True or False; got {window!r}.")
        if window and self.window is None:
            raise ValueError(
                "This evaluator keeps no window; build it with "
                "RankingEvaluator(window=N)."
            )
        state = self._final_state(window=bool(window))
        if window and state.names is None:
            raise ValueError(
                f"the last {self.window} updates completed no query, so the "
                "window has no report; call result(window=True) after an "
                "update with rows, or use a larger window."
            )
        if self.per_query and state.names is not None:
            return state.per_query_table(output_dict)
        if output_dict:
            return state.output_dict()
        return state.text(self.k, digits)


def _add_sums(parts):
    """Sum per-group sums ``[(names, sums), ...]`` over their union of names."""
    names = np.concatenate([n for n, _ in parts])
    sums = np.hstack([s for _, s in parts])
    uniques, codes = np.unique(names, return_inverse=True)
    codes = codes.reshape(-1)
    total = np.vstack(
        [np.bincount(codes, weights=row, minlength=len(uniques)) for row in sums]
    )
    return uniques, total


_STATE_STATISTICS = _STATISTICS[:-1]  # every statistic but the AUC


class CalibrationEvaluator:
    r"""Mergeable, optionally windowed state of the calibration report.

    Feed batches of impressions with :meth:`update`, combine states built
    on separate workers with :meth:`merge`, and read the report with
    :meth:`result`: the lifetime value, or with ``window=N`` the value over
    the last ``N`` updates only (for a dashboard of recent traffic, as
    torcheval's windowed metrics).  The state keeps per-group sums only
    (impressions, clicks, summed predictions, summed log loss), so every
    statistic of :func:`calibration_report` but the AUC (a rank
    statistic, not a sum) is exact: it equals the report of the
    concatenated batches.

    Read more in the :ref:`User Guide <calibration>`.

    Parameters
    ----------
    window : int >= 1, default=None
        Number of most recent updates kept for ``result(window=True)``;
        None keeps the lifetime value only.

    See Also
    --------
    calibration_report : The report of one batch (with the AUC).

    Examples
    --------
    >>> from sklearn_rankmetrics import CalibrationEvaluator
    >>> state = CalibrationEvaluator(window=1)
    >>> state.update([1, 0, 0], [0.5, 0.5, 0.2], groups=["a", "a", "b"])
    >>> state.update([1, 0], [0.4, 0.2], groups=["b", "b"])
    >>> round(state.result()["groups"]["b"]["calibration_ratio"], 4)
    0.8
    >>> round(state.result(window=True)["groups"]["b"]["calibration_ratio"], 4)
    0.6
    """

    def __init__(self, *, window=None):
        if window is not None and (
            isinstance(window, bool)
            or not isinstance(window, (int, np.integer))
            or window < 1
        ):
            raise ValueError(f"window must be None or an int >= 1; got {window!r}.")
        self.window = window
        self._lifetime = None
        self._recent = []

    def update(self, y_true, y_prob, *, groups=None, sample_weight=None):
        """Add a batch of impressions.

        Parameters
        ----------
        y_true, y_prob, groups, sample_weight
            As in :func:`calibration_report`.

        Returns
        -------
        None
        """
        y, p, w = _check_binary(y_true, y_prob, sample_weight)
        if groups is None:
            codes, names = np.zeros(y.shape[0], dtype=np.intp), np.array(["all"])
        else:
            codes, names = _check_groups(groups, y.shape[0])
        part = (np.asarray(names), _grouped_sums(y, p, w, codes, len(names)))
        self._add([part])

    def _add(self, parts):
        if self._lifetime is None:
            self._lifetime = _add_sums(parts)
        else:
            self._lifetime = _add_sums([self._lifetime, *parts])
        if self.window is not None:
            self._recent = (self._recent + list(parts))[-self.window :]

    def merge(self, other):
        """Add another state's updates, as if they came after this one's.

        Parameters
        ----------
        other : CalibrationEvaluator
            Built with the same ``window``.

        Returns
        -------
        self : CalibrationEvaluator
        """
        if not isinstance(other, CalibrationEvaluator):
            raise TypeError(
                f"merge takes a CalibrationEvaluator; got {type(other).__name__}."
            )
        if other.window != self.window:
            raise ValueError(
                f"Cannot merge states with different windows ({self.window} and "
                f"{other.window})."
            )
        if other._lifetime is not None:
            if self._lifetime is None:
                self._lifetime = other._lifetime
            else:
                self._lifetime = _add_sums([self._lifetime, other._lifetime])
            if self.window is not None:
                self._recent = (self._recent + other._recent)[-self.window :]
        return self

    def result(self, *, window=False):
        """The report as :func:`calibration_report`'s ``output_dict``, without AUC.

        Parameters
        ----------
        window : bool, default=False
            Report the last ``window`` updates instead of the lifetime.

        Returns
        -------
        report : dict
            ``{"overall": {statistic: value}, "groups": {field value:
            {statistic: value}}, "field_rce": value}``.
        """
        if self._lifetime is None:
            raise ValueError("No data yet: call update() before result().")
        if window:
            if self.window is None:
                raise ValueError(
                    "This state keeps no window; build it with "
                    "CalibrationEvaluator(window=N)."
                )
            names, sums = _add_sums(self._recent)
        else:
            names, sums = self._lifetime
        table = _statistics_from_sums(sums)
        overall = _statistics_from_sums(sums.sum(axis=1, keepdims=True))
        return {
            "overall": {s: float(overall[s][0]) for s in _STATE_STATISTICS},
            "groups": {
                key: {s: float(table[s][i]) for s in _STATE_STATISTICS}
                for i, key in enumerate(names.tolist())
            },
            "field_rce": _field_rce(sums[0], sums[1], sums[2]),
        }
