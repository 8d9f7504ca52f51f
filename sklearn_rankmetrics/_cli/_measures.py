"""Measures of the command line: trec_eval's names and the package's,
resolved into :class:`Measure` objects; their per-query values (the one
place that calls the metric functions) and summaries."""

from typing import NamedTuple

import numpy as np

from .._evaluation._per_query import _function_options, _per_query_report, scorer_name
from .._registry import (
    METRICS,
    UnknownMetricError,
    default_metrics,
    is_beyond,
    parse_metric,
    trec_measures,
)
from .._utils._averaging import weighted_mean
from ._common import _COUNTS, UsageError

__all__ = []  # private module

# ---------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------
# Every name, function and trec_eval measure comes from the metric
# registry (_registry.METRICS); the command line adds trec_eval's counts,
# its printing order and its parameter syntax.
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
class PerQuery(NamedTuple):
    """What :func:`per_query_values` returns."""

    values: dict  # measure label -> per-query values
    # measure label -> the query weights of its mean, the report's own
    # (1, the query's sample weight, GAUC's impressions...); a label
    # without weights (the counts, rbp_resid) weighs every query 1
    weights: dict


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
    query_weighting=None,
):
    """Per-query values of the measures (queries in ``np.unique`` order),
    and the query weights that average them, as a :class:`PerQuery`.

    ``query_id`` are integer codes 0..n_queries-1 whose order is the
    output order.  The metrics are read from the report's per-query path
    (:func:`~sklearn_rankmetrics._evaluation._per_query._per_query_report`),
    values and weights alike, so that every mean of the command line (its
    summary and its comparison) is the report's: the measures sharing
    options are one report, whose metrics share one ranking per kind (cut
    at the largest cut-off, the whole list).  The measures of the whole
    list and those with a cut-off are two reports, so that no metric is
    computed at a cut-off nobody asked for (a report computes each of its
    metrics at each of its cut-offs).  The counts (num_ret, num_rel,
    num_rel_ret) are bincounts over the rows.  ``judged`` (TREC runs)
    marks the rows whose document is judged: bpref reads those only, as
    trec_eval does.  ``query_weighting`` is GAUC's (None: its default).
    """
    values, weights = {}, {}
    groups = {}  # (measure options, graded, whole list) -> measures
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
        key = ("gauc",) if m.metric == "gauc" else (m.options, graded, m.k is None)
        groups.setdefault(key, []).append(m)
    for key, group in _merged_groups(groups).items():
        if key == ("gauc",):  # row weights: a report of its own
            opts = {}
            if query_weighting is not None:
                opts["query_weighting"] = query_weighting
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
            name = scorer_name(m.metric, m.k)
            values[m.label] = report.values[name]
            weights[m.label] = _in_weight_units(report.weights[name], sample_weight)
    return PerQuery(values, weights)


def _in_weight_units(query_weights, sample_weight):
    """A report's query weights in the units of ``sample_weight``.

    A report takes row weights as relative: it scales them by a power of
    two so that the largest is in [0.5, 1)
    (:func:`~sklearn_rankmetrics._utils._validation.check_sample_weight`),
    which changes no mean of its own.  The command line undoes it, exactly,
    so that the weights of the parts of a table read in chunks, each
    scaled by its own largest weight, mean the same thing.
    """
    if sample_weight is None or np.size(sample_weight) == 0:
        return query_weights
    return np.ldexp(query_weights, np.frexp(np.max(sample_weight))[1])


def _merged_groups(groups):
    """Option sets merged where no metric of one takes an option of the
    other: one report (one ranking) serves both, each metric reading the
    same options as alone (trec_eval's set_F, with beta=1, joins map,
    P, ndcg...)."""
    merged = {}
    for key, group in groups.items():
        for other in merged:
            if _can_merge(key, group, other, merged[other]):
                new = (tuple(sorted({*other[0], *key[0]})), *other[1:])
                merged[new] = merged.pop(other) + group
                break
        else:
            merged[key] = list(group)
    return merged


def _can_merge(key, group, other, other_group):
    # (graded, whole list) alike
    if key == ("gauc",) or other == ("gauc",) or key[1:] != other[1:]:
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


def _summary(measures, values, weights, n_queries):
    """The "all" row: each measure's mean over queries with its query
    weights (``weights``, the report's; 1 for a label without), the sum
    for the counts."""
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
        w = weights.get(m.label)
        keep = ~np.isnan(v) if w is None else ~np.isnan(v) & (w > 0)
        out[m.label] = weighted_mean(v, w, keep)  # the package's one mean
    return out


# ---------------------------------------------------------------------------
# One evaluated run: what the writers print
# ---------------------------------------------------------------------------
class Result(NamedTuple):
    name: str  # runid / score column
    query_ids: np.ndarray
    values: dict  # label -> per-query ndarray
    summary: dict  # label -> float
    weights: dict  # label -> the query weights of the summary's mean
