"""The engine of every report: the per-query values of every metric at every
cut-off from one ranking (:func:`_per_query_report`), the report's option
checks and plans, its means and its text table.

The scores are ranked once, at the largest cut-off, and each cut-off reads
that ranking (:meth:`~sklearn_rankmetrics._engine._rank.Ranking.at`).  Each
metric reads its function's options and ``convention=`` preset, resolved as
the function resolves them; metrics whose resolved options give the same
ranking share one.  :func:`ranking_report`, the mergeable state, the
comparison, the reports by segment and the Displays all read it.
"""

import inspect
import numbers
import warnings
from functools import partial
from typing import NamedTuple

import numpy as np

from .._engine._per_query import rank_per_query
from .._engine._select import _relevant, exact_threshold
from .._metrics._auc import gauc_per_query
from .._metrics._driver import candidate_negatives, items_per_query
from .._metrics._ips import ESTIMATORS, PARTS
from .._metrics._kernels import (
    AP_DENOMINATORS,
    IDEAL_RULES,
    PRECISION_DENOMINATORS,
    RBP_GAINS,
    UNDEFINED_WHEN,
    query_defined,
)
from .._metrics._propensity import above_one, diagnostic_totals, format_diagnostics
from .._registry import METRICS, is_beyond, parse_metric
from .._registry import default_metrics as registry_default_metrics
from .._utils._averaging import average_queries, weighted_mean
from .._utils._conventions import check_convention, convention_options
from .._utils._validation import (
    _check_ties,
    check_discount,
    check_gain,
    check_inputs,
    check_no_relevant,
    check_option,
    check_persistence,
    check_real,
    query_weights,
    undefined_metric_warning,
    user_stacklevel,
)

__all__ = []  # private module

_GAUC = "gauc"
# The key of output_dict holding propensity_diagnostics(), with propensity=.
DIAGNOSTICS_KEY = "propensity_diagnostics"


def available_metrics():
    """Names ``ranking_report`` and ``compare_rankings`` accept, in order:
    every metric of the registry."""
    return list(METRICS)


def default_metrics(long_form):
    """The metrics of a report when ``metrics=None``: the registry's one
    default set (:func:`~sklearn_rankmetrics._registry.default_metrics`)."""
    return registry_default_metrics(long_form)


def _whole_list(metric):
    """Metrics without a cut-off: GAUC and the kernels of the whole list."""
    return metric in METRICS and not METRICS[metric].cutoff


class PerQueryReport(NamedTuple):
    """Per-query values of a report, and the weights that average them.

    ``np.average`` of ``values[name]`` over its non-nan entries with
    ``weights[name]`` (as ``sum(w * v) / w.sum()``) is the report's, and
    the metric function's, value of ``name``.
    """

    query_id: np.ndarray  # long form: np.unique(query_id); 2-D: 0..n-1
    values: dict  # scorer name -> float64 (n_queries,), nan = skipped
    weights: dict  # scorer name -> float64 (n_queries,) query weights
    # with propensity=: the totals of the diagnostics
    # (_metrics._propensity.DIAGNOSTIC_TOTALS) and, per scorer name of an estimator
    # bounded by 1, (per-query estimates above 1, defined estimates)
    propensity: tuple | None = None


def _check_cutoffs(k, allow_none=False):
    """``k`` as a tuple of distinct ints >= 1 (and None, the whole list,
    if ``allow_none``), in the order given."""
    ks = (k,) if isinstance(k, numbers.Integral) else k
    try:
        ks = list(ks)
    except TypeError:
        raise TypeError(
            f"k must be an int >= 1 or a list of them such as (1, 5, 10, 20); "
            f"got {k!r}."
        ) from None
    if not ks:
        raise ValueError("k is empty; pass at least one cut-off such as k=(10,).")
    out = []
    for kk in ks:
        if kk is None and allow_none:
            if None not in out:
                out.append(None)
            continue
        if isinstance(kk, (bool, np.bool_)) or not isinstance(kk, numbers.Integral):
            raise TypeError(
                f"k must hold ints >= 1 (the cut-offs), got {kk!r} of type "
                f"{type(kk).__name__}; k=None (the whole list) is not "
                "supported in a report: pass the largest list length instead."
            )
        if kk < 1:
            raise ValueError(f"k must hold ints >= 1; got {kk}.")
        if int(kk) not in out:
            out.append(int(kk))
    return tuple(out)


# Arrays of one value per row (long form) or per cell (2-D / sparse) that
# a report carries with the rows, read by the metric functions that take
# them (detected from their signatures: ``MetricSpec.propensity``, ...).
PER_ROW = ("propensity", "item_weight")
# Options that only mean something with ``propensity``.
_IPS_OPTIONS = ("min_propensity", "self_normalized")
# A report's averages: over queries, or the pooled IPS ratio (propensity=).
_AVERAGES = ("queries", "micro")


def check_report_average(average, caller="ranking_report"):
    """``average`` of a report: "queries" or "micro"."""
    if not isinstance(average, str) or average not in _AVERAGES:
        raise ValueError(
            f"{caller}: average must be 'queries' (the mean over queries) or "
            "'micro' (with propensity=: the pooled ratio of every estimator); "
            f"got average={average!r}. For per-query values pass "
            "per_query=True."
        )
    return average


def ips_options_given(options):
    """The IPS options set in ``options``: those of :data:`_IPS_OPTIONS`
    given, and ``average="micro"``, the pooled IPS ratio."""
    given = [o for o in _IPS_OPTIONS if options.get(o) not in (None, False)]
    if options.get("average", "queries") == "micro":
        given.append("average='micro'")
    return given


def check_per_row_options(options, per_row, caller="ranking_report"):
    """ValueError for an IPS option (``min_propensity``, ``average="micro"``,
    ...) given without ``propensity``: no metric would read it."""
    if "propensity" in per_row:
        return
    given = ips_options_given(options)
    if given:
        raise ValueError(
            f"{caller}: {', '.join(given)} only "
            f"{'applies' if len(given) == 1 else 'apply'} to the "
            "inverse-propensity estimates; pass propensity= (one value per "
            "row of the long form, per cell of the 2-D form) or leave them "
            "unset."
        )


def _check_estimators(metrics, per_row):
    """ValueError naming the metrics whose function does not take a per-row
    array given (``propensity``, ``item_weight``), listing those that do."""
    for arg in per_row:
        missing = [m for m in metrics if not getattr(METRICS[m], arg)]
        if missing:
            having = [n for n, spec in METRICS.items() if getattr(spec, arg)]
            what = "estimator with" if arg == "propensity" else "argument"
            raise ValueError(
                f"{arg}= was given, but {', '.join(map(repr, missing))} "
                f"{'has' if len(missing) == 1 else 'have'} no {what} {arg}=; "
                f"the metrics that take it: {', '.join(map(repr, having))}. "
                "Leave the others out of metrics."
            )


def _check_metrics(metrics, long_form, per_row=()):
    if metrics is None:
        out = default_metrics(long_form)
        if per_row:  # the default metrics that have an estimator
            out = [m for m in out if all(getattr(METRICS[m], a) for a in per_row)]
            _check_estimators(out or [default_metrics(long_form)[0]], per_row)
        return out
    if isinstance(metrics, str):
        metrics = [metrics]
    out = []
    for m in metrics:
        spec, k = parse_metric(m)  # the one name rule; unknown names listed
        if k is not None:
            raise ValueError(
                f"{m!r} in metrics: give the name without '@k' ({spec.name!r}); "
                "the cut-offs come from k."
            )
        if is_beyond(spec):
            raise ValueError(
                f"{m!r} is a beyond-accuracy metric of the set of lists: "
                "ranking_report, RankingEvaluator and the Dask and Spark "
                "reports compute it (with item_id= / item_col=, and "
                "item_popularity= / item_features=), this surface does not "
                "yet; use the metric function or one of those."
            )
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError("metrics is empty; pass at least one metric name.")
    _check_estimators(out, per_row)
    return out


def _ranking_kind(requires):
    """The ranking a kernel reads: cut at max(k) (most metrics), the
    whole list, or exponential gains without a threshold (ERR)."""
    for kind in ("whole_list", "exponential_gain"):
        if kind in requires:
            return kind
    return "cut"


def scorer_name(metric, k):
    """``"ndcg@10"``; ``"gauc"``, ``"r_precision"`` and ``"bpref"`` have
    no cut-off, and a metric of the whole list (k None) is named alone."""
    return metric if _whole_list(metric) or k is None else f"{metric}@{k}"


# The arguments a report handles itself; every other keyword option of a
# metric function is a report option, read by the metrics that take it.
_NOT_OPTIONS = frozenset(
    (
        *("y_true", "y_score", "k", "query_id", "sample_weight", "average"),
        *("convention", "propensity", "item_weight"),
    )
)
# What a ranking is built with (the rest are the kernels' options).
_RANKING_OPTIONS = ("ties", "ignore_ties", "no_relevant", "relevance_threshold", "gain")


def _function_options(spec):
    """Keyword option -> default of the metric's public function."""
    params = inspect.signature(spec.function).parameters
    return {n: p.default for n, p in params.items() if n not in _NOT_OPTIONS}


def report_options():
    """Every option a report takes: the options of the registry's metric
    functions, in table order."""
    names = {}
    for spec in METRICS.values():
        names.update(dict.fromkeys(_function_options(spec)))
    return tuple(names)


def _check_report_options(options, caller="ranking_report"):
    """TypeError for a name no metric function takes; the values given are
    checked as the functions check them, whichever metrics read them.
    ``average`` is the report's own (:func:`check_report_average`)."""
    if "average" in options:
        options = dict(options)
        check_report_average(options.pop("average"), caller)
    unknown = sorted(set(options) - set(report_options()))
    if unknown:
        raise TypeError(
            f"{caller}() got unknown option(s) {', '.join(map(repr, unknown))}; "
            "the options are those of the metric functions: "
            f"{', '.join(report_options())}."
        )
    for name, value in options.items():
        _check_kernel_option(name, value)
    if "gain" in options:
        check_gain(options["gain"])
    if "no_relevant" in options:
        check_no_relevant(options["no_relevant"])
    check_real(
        "relevance_threshold",
        options.get("relevance_threshold"),
        low=0.0,
        allow_none=True,
    )
    ties = options.get("ties")
    if not (isinstance(ties, str) and ties == "threshold"):
        _check_ties(ties, options.get("ignore_ties", False))


def _resolve_options(spec, convention, options, k):
    """The options ``spec``'s function is called with: its defaults, then
    the convention's (as :func:`with_convention` gives them at cut-off
    ``k``), then the ones given explicitly."""
    resolved = _function_options(spec)
    if convention is not None:
        preset = convention_options(
            convention, spec.function.__name__, resolved, k=k if spec.cutoff else None
        )
        if "ignore_ties" in options and "ties" not in options:
            preset.pop("ties", None)  # the explicit tie option wins
        resolved.update(preset)
    resolved.update((o, v) for o, v in options.items() if o in resolved)
    return resolved


def resolved_option(metric, option, options):
    """The value of ``option`` for ``metric`` under ``options`` (which may
    hold ``convention``), as the report resolves it."""
    options = dict(options)
    convention = options.pop("convention", None)
    return _resolve_options(METRICS[metric], convention, options, None).get(option)


def _check_kernel_option(name, value):
    """A kernel option checked as its metric function checks it."""
    check = _KERNEL_OPTION_CHECKS.get(name)
    return value if check is None else check(value)


_KERNEL_OPTION_CHECKS = {
    "precision_denominator": lambda v: check_option(
        "precision_denominator", v, PRECISION_DENOMINATORS
    ),
    "beta": lambda v: check_real("beta", v, low=0.0),
    "ap_denominator": lambda v: check_option("ap_denominator", v, AP_DENOMINATORS),
    "ideal": lambda v: check_option("ideal", v, IDEAL_RULES),
    "log_base": lambda v: check_real("log_base", v, low=1.0),
    "discount": check_discount,
    "max_grade": lambda v: None if v is None else check_real("max_grade", v, low=0.0),
    "persistence": check_persistence,
    "rbp_gain": lambda v: check_option("rbp_gain", v, RBP_GAINS),
}


class _Plan(NamedTuple):
    """How the report computes one metric at one cut-off (None: no cut-off).

    ``ranking`` is None when the metric is read through its public
    function (options the shared ranking does not serve: pessimistic or
    optimistic ties, ``ties="threshold"``, ``judged``, the per-row arrays
    ``propensity`` and ``item_weight``); else the ranking
    options (kind, tie rule, gain, threshold -- None where the metric does
    not read them) and ``kernel_options`` the kernel's.
    """

    metric: str
    k: int | None
    options: dict  # every option of the function, resolved
    ranking: tuple | None
    kernel_options: dict
    needs_ideal: bool
    no_relevant: object


def _plan(metric, k, convention, options, per_row=False):
    spec = METRICS[metric]
    opts = _resolve_options(spec, convention, options, k)
    if spec.kernel is None:  # GAUC: all pairs of a query's items
        return _Plan(metric, None, opts, None, {}, False, "skip")
    if per_row:  # propensity, item_weight: the function's own estimator
        return _Plan(metric, k, opts, None, {}, False, None)
    kernel = spec.kernel
    ties = opts.get("ties")
    if isinstance(ties, str) and ties == "threshold":
        return _Plan(metric, k, opts, None, {}, False, None)
    rule = _check_ties(ties, opts.get("ignore_ties", False))
    no_relevant = check_no_relevant(opts.get("no_relevant", "skip"))
    # options of the function that the kernel does not take: the shared
    # ranking serves them at their defaults only
    defaults = _function_options(spec)
    extra = set(opts) - set(_RANKING_OPTIONS) - set(kernel.options)
    if rule not in ("expected", "input_order") or any(
        not same_option(opts[o], defaults[o]) for o in extra
    ):
        return _Plan(metric, k, opts, None, {}, False, no_relevant)
    kernel_options = {
        o: _check_kernel_option(o, opts[o]) for o in kernel.options if o in opts
    }
    kind = _ranking_kind(kernel.requires)
    if k is None and kind == "cut":
        kind = "whole_list"  # (ERR's ranking of exponential gains stays its own)
    needs_ideal = kernel.needs_ideal
    if callable(needs_ideal):
        needs_ideal = needs_ideal(**kernel_options)
    if kind == "exponential_gain":
        gain, threshold = "exponential", None
    else:
        gain = opts.get("gain")
        if needs_ideal and "gain" not in opts:
            gain = "linear"  # graded RBP reads the grades themselves
        threshold = check_real(
            "relevance_threshold",
            opts.get("relevance_threshold"),
            low=0.0,
            allow_none=True,
        )
        if gain is not None:
            check_gain(gain)
    return _Plan(
        metric,
        k,
        opts,
        (kind, rule, gain, threshold),
        kernel_options,
        needs_ideal,
        no_relevant,
    )


def same_option(a, b):
    """Equal option values: strings and numbers by value, anything else (an
    array, a gain table, a callable) by identity."""
    scalars = (str, numbers.Number)
    return a is b or (isinstance(a, scalars) and isinstance(b, scalars) and a == b)


def _group_plans(plans):
    """Plans sharing one ranking: same kind and tie rule, and the same gain
    and threshold where both read them.  -> list of (ranking, plans)."""
    groups = []
    for plan in plans:
        kind, rule, gain, threshold = plan.ranking
        for group in groups:
            g_kind, g_rule, g_gain, g_threshold = group[0]
            if (kind, rule) != (g_kind, g_rule):
                continue
            if (
                gain is not None
                and g_gain is not None
                and not same_option(gain, g_gain)
            ):
                continue
            if threshold is not None and g_threshold is not None:
                if threshold != g_threshold:
                    continue
            group[0] = (
                kind,
                rule,
                g_gain if gain is None else gain,
                g_threshold if threshold is None else threshold,
            )
            group[1].append(plan)
            break
        else:
            groups.append([plan.ranking, [plan]])
    return groups


# what a query's items are when they are not its rows (n_items_per_query)
CATALOGUE_INPUTS = {"n_items", "n_negatives"}


def _per_query_report(
    y_true,
    y_score,
    *,
    k,
    metrics,
    query_id,
    sample_weight,
    convention=None,
    caller="ranking_report",
    allow_whole_list=False,
    propensity=None,
    item_weight=None,
    n_items_per_query=None,
    average="queries",
    **options,
):
    """Per-query values of every metric at every cut-off.

    Returns a :class:`PerQueryReport`: the query ids (long form: the order
    of ``np.unique(query_id)``; 2-D: the row numbers), and per scorer name
    (``"ndcg@10"``, ..., ``"gauc"``) the per-query values (nan where the
    query is skipped) and the query weights (ones without
    ``sample_weight``; for GAUC the weights :func:`group_auc_score` uses,
    e.g. the number of rows of each query).  The weighted mean of the
    non-nan values is the metric function's value, bit for bit.

    ``options`` are the metric functions' options and ``convention`` their
    preset: each metric reads the options its function takes, resolved as
    the function resolves them.  The metrics whose options give the same
    ranking (kind, tie rule, gain, threshold) are read from one ranking,
    at the largest cut-off; options no shared ranking serves (pessimistic
    or optimistic ties, ``ties="threshold"``, ``judged``) call the metric
    function itself.  ``allow_whole_list=True`` (the command line) accepts
    None in ``k``: the metrics of the whole ranked list, named without
    ``@k``.

    ``propensity`` and ``item_weight`` (:data:`PER_ROW`: one value per row
    of the long form, per cell of the 2-D form, given as the rows are) are
    passed with the rows to the functions that take them, each metric then
    computed by its function; a metric whose function does not take one
    given is an error naming it, and with ``metrics=None`` the default
    metrics are those whose functions take them.  With ``propensity``,
    ``average="micro"`` gives each estimator's per-query values with the
    weights of its pooled form
    (:class:`~sklearn_rankmetrics._metrics._ips.IPSParts`), and the report
    carries the totals of :func:`propensity_diagnostics`.

    ``n_items_per_query`` (long form, in the order of the query ids) gives
    the items of each query when they are not its rows -- a catalogue's,
    for the recommendation tables -- to the metrics that read it (fall-out,
    bpref).

    The parts, in order: the checks and plans (:func:`_check_report_call`),
    the inputs checked once (:func:`_report_inputs`), the metrics read from
    the shared rankings (:func:`_shared_ranking_values`), those computed by
    their function (:func:`_function_values`), GAUC (:func:`_gauc_values`)
    and, with ``propensity``, the diagnostics (:func:`_diagnostic_parts`).
    """
    per_row = _per_row_arrays(propensity, item_weight)
    average, ks, metrics, plans = _check_report_call(
        k,
        metrics,
        query_id,
        convention,
        options,
        per_row,
        average,
        caller,
        allow_whole_list,
    )
    call = _ReportCall(
        y_true,
        y_score,
        query_id,
        sample_weight,
        per_row,
        average,
        n_items_per_query,
        caller,
    )
    inputs = _report_inputs(call, gauc=_GAUC in metrics)
    ranked = [p for p in plans if p.metric != _GAUC]
    if ranked and inputs.form == "long" and inputs.row_weights is not None:
        only_gauc = " Only GAUC (metrics=['gauc']) takes row weights."
        query_weights(inputs.row_weights, inputs.codes, inputs.ids, hint=only_gauc)
    values, weights, query_w = _shared_ranking_values(
        [p for p in ranked if p.ranking is not None],
        inputs,
        call,
        _items_per_query(ranked, inputs, n_items_per_query),
    )
    _function_values(
        [p for p in ranked if p.ranking is None], inputs, call, query_w, values, weights
    )
    if _GAUC in metrics:
        (plan,) = [p for p in plans if p.metric == _GAUC]
        values[_GAUC], weights[_GAUC] = _gauc_values(plan, inputs, call)
    # Order the keys as the report prints them: metric by metric.
    order = list(dict.fromkeys(scorer_name(m, kk) for m in metrics for kk in ks))
    if inputs.form == "long":
        query_ids = inputs.ids
    else:
        query_ids = np.arange(next(iter(values.values())).shape[0])
    diagnostics = None
    if propensity is not None:
        diagnostics = _diagnostic_parts(
            y_true, propensity, query_id, plans, values, options
        )
    return PerQueryReport(
        query_ids,
        {n: values[n] for n in order},
        {n: weights[n] for n in order},
        diagnostics,
    )


class _ReportCall(NamedTuple):
    """The arguments of one :func:`_per_query_report` call that its parts
    read (the inputs as given: the metric functions take them so)."""

    y_true: object
    y_score: object
    query_id: object
    sample_weight: object
    per_row: dict  # "propensity" / "item_weight" -> the array given
    average: str  # "queries" or "micro"
    n_items_per_query: object  # the items of each query when not its rows
    caller: str  # the surface named in messages


class _Inputs(NamedTuple):
    """The inputs as the rankings read them: checked once (long form, or
    GAUC asked for), or as given (2-D ranking metrics only: the ranking
    checks them, without a second pass)."""

    form: str  # "long" or "2-D"
    y_true: object
    y_score: object
    codes: np.ndarray | None  # the query code of each row (checked inputs)
    ids: np.ndarray | None  # the distinct query ids, sorted (long form)
    row_weights: np.ndarray | None  # the checked sample_weight
    sample_weight: object  # the weights the rankings take

    def rank_args(self):
        """The query and weight arguments of :func:`rank_per_query`."""
        return dict(query_id=self.codes, sample_weight=self.sample_weight)


def _per_row_arrays(propensity, item_weight):
    """The per-row arrays given (:data:`PER_ROW`), by argument name."""
    return {
        name: array
        for name, array in (("propensity", propensity), ("item_weight", item_weight))
        if array is not None
    }


def _check_report_call(
    k,
    metrics,
    query_id,
    convention,
    options,
    per_row,
    average,
    caller,
    allow_whole_list,
):
    """``(average, ks, metrics, plans)``: the checked average, cut-offs and
    metric names, and the plan of every metric at each of its cut-offs."""
    _check_report_options(options, caller)
    average = check_report_average(average, caller)
    if convention is not None:
        check_convention(convention)
    check_per_row_options({"average": average}, per_row, caller)
    ks = _check_cutoffs(k, allow_none=allow_whole_list)
    metrics = _check_metrics(metrics, query_id is not None, per_row)
    plans = [
        _plan(m, kk, convention, options, bool(per_row))
        for m in metrics
        for kk in (ks if METRICS[m].cutoff else (None,))
    ]
    return average, ks, metrics, plans


def _report_inputs(call, gauc):
    """:class:`_Inputs` of the call (``gauc``: GAUC is asked for)."""
    if call.query_id is None and not gauc:
        # 2-D, ranking metrics only: rank() validates; no second pass.
        return _Inputs(
            "2-D", call.y_true, call.y_score, None, None, None, call.sample_weight
        )
    # Validate once; the ranking and GAUC then read the checked arrays.
    form, Y, S, codes, ids, row_w = check_inputs(
        call.y_true, call.y_score, call.query_id, call.sample_weight, row_weights=True
    )
    return _Inputs(form, Y, S, codes, ids, row_w, row_w)


def _requires(plans, what):
    """Whether a metric of ``plans`` reads ``what`` (``"n_items"``, ...)."""
    return any(what in METRICS[p.metric].requires for p in plans)


def _items_per_query(ranked, inputs, n_items_per_query):
    """The number of items of each query for the metrics that read it
    (fall-out, bpref): the catalogue's if given, else the query's rows (one
    number for 2-D inputs: the kernels may read it on chunks); None if no
    metric of ``ranked`` reads it and no catalogue is given."""
    n_items = None
    if _requires(ranked, "n_items"):
        S = inputs.y_score
        n_items = items_per_query(S, inputs.codes) if inputs.form == "long" else None
        n_items = float(np.shape(S)[1]) if n_items is None else n_items
    if n_items_per_query is not None:
        n_items = np.asarray(n_items_per_query, dtype=np.float64)
    return n_items


def _query_weights_of(q):
    """The query weights of a :func:`rank_per_query` result (ones without
    sample weights)."""
    return np.ones(q["n_rel"].shape[0]) if q["weights"] is None else q["weights"]


def _shared_ranking_values(plans, inputs, call, n_items):
    """``(values, weights, query_weights)`` of the metrics read from shared
    rankings: one ranking per group of plans (:func:`_group_plans`) at its
    largest cut-off, each metric's kernel read at its own; the query
    weights of the last ranking (None without one)."""
    values, weights, query_w = {}, {}, None
    for (kind, rule, gain, threshold), group in _group_plans(plans):
        extra = _kernel_inputs(group, inputs, call, n_items, threshold)
        # Large 2-D inputs are ranked in chunks of rows, as by the metric
        # functions (ERR scales by the largest grade of all queries: one
        # ranking).
        cut = [p.k for p in group]
        q = rank_per_query(
            inputs.y_true,
            inputs.y_score,
            partial(_read_kernels, group=group, inputs=extra),
            k=None if kind == "whole_list" or None in cut else max(cut),
            chunks=kind != "exponential_gain",
            threshold=threshold,
            gain="linear" if gain is None else check_gain(gain),
            ignore_ties=rule == "input_order",
            need_ideal=any(p.needs_ideal for p in group),
            **inputs.rank_args(),
        )
        query_w = _query_weights_of(q)
        for plan in group:
            name = scorer_name(plan.metric, plan.k)
            lacking = UNDEFINED_WHEN[METRICS[plan.metric].kernel.defined_by]
            values[name] = average_queries(
                q[name],
                q[name + " defined"],
                query_w,
                None,
                plan.no_relevant,
                name,
                lacking,
            )
            weights[name] = query_w
    return values, weights, query_w


def _kernel_inputs(group, inputs, call, n_items, threshold):
    """What the kernels of ``group`` read besides the ranking: the items
    (``n_items``) and the candidate negatives (``n_negatives``) of each
    query."""
    extra = {}
    if n_items is not None and _requires(group, "n_items"):
        extra["n_items"] = n_items
    if _requires(group, "n_negatives"):
        Y, codes = inputs.y_true, inputs.codes
        if call.n_items_per_query is None:
            extra["n_negatives"] = candidate_negatives(
                Y, inputs.y_score, codes, threshold
            )
        else:  # every item of a query's catalogue is a candidate
            relevant = _relevant(Y, exact_threshold(threshold, Y.dtype))
            n_rel = np.bincount(codes, weights=relevant, minlength=inputs.ids.shape[0])
            extra["n_negatives"] = n_items - n_rel
    return extra


def _read_kernels(rk, group, inputs):
    """Per scorer name of ``group``, the per-query values of its kernel on
    the ranking ``rk`` at its cut-off, and (``name + " defined"``) where
    they are defined."""
    out = {}
    for plan in group:
        kernel = METRICS[plan.metric].kernel
        at_k = rk if plan.k is None else rk.at(plan.k)
        opts = dict(plan.kernel_options)
        opts.update((r, inputs[r]) for r in kernel.requires if r in inputs)
        name = scorer_name(plan.metric, plan.k)
        out[name] = kernel.values(at_k, **opts)
        out[name + " defined"] = query_defined(kernel, at_k, inputs)
    return out


def _function_values(plans, inputs, call, query_w, values, weights):
    """Add to ``values`` and ``weights`` the metrics of ``plans``, whose
    options no shared ranking serves: each computed by its function
    (``average=None``, or with ``average="micro"`` its pooled parts and
    their weights).  ``query_w``: the query weights of a shared ranking,
    if any; else those of a ranking of the inputs."""
    for plan in plans:
        name = scorer_name(plan.metric, plan.k)
        if call.n_items_per_query is not None and CATALOGUE_INPUTS & set(
            METRICS[plan.metric].requires
        ):
            raise ValueError(
                f"{call.caller}: {name} with these options is computed by its "
                "function, which counts a query's rows as its items, not the "
                "catalogue; use the default tie rule or drop it."
            )
        result = _function_value(METRICS[plan.metric].function, plan, call)
        if call.average == "micro":  # the pooled IPS ratio: its own weights
            values[name], weights[name] = result
            continue
        values[name] = result
        if query_w is None and call.sample_weight is None:
            query_w = np.ones(np.shape(values[name])[0])
        if query_w is None:  # the query weights of a ranking
            q = rank_per_query(
                inputs.y_true,
                inputs.y_score,
                lambda rk: {},
                k=1,
                ignore_ties=True,
                **inputs.rank_args(),
            )
            query_w = _query_weights_of(q)
        weights[name] = query_w


def _function_value(func, plan, call):
    """``func``'s per-query values (or, with ``average="micro"``, its
    pooled parts) under the plan's options, with the per-row arrays."""
    kwargs = _estimator_options(func, plan.options, call.per_row.get("propensity"))
    if plan.k is not None:
        kwargs["k"] = plan.k
    return func(
        call.y_true,
        call.y_score,
        query_id=call.query_id,
        sample_weight=call.sample_weight,
        average=PARTS if call.average == "micro" else None,
        **kwargs,
        **call.per_row,
    )


def _gauc_options(options, caller):
    """GAUC's options in a report, checked: ``(relevance_threshold,
    query_weighting, constant_scores)``; ``undefined_value`` is refused (a
    report gives nan)."""
    undefined_value = options.get("undefined_value", np.nan)
    if not (isinstance(undefined_value, numbers.Real) and np.isnan(undefined_value)):
        raise ValueError(
            f"{caller}: undefined_value={undefined_value!r} is "
            "group_auc_score's value when no query has an AUC; a report "
            "gives nan (with a warning) instead. Leave it unset."
        )
    threshold = check_real(
        "relevance_threshold",
        options.get("relevance_threshold"),
        low=0.0,
        allow_none=True,
    )
    query_weighting = check_option(
        "query_weighting",
        options.get("query_weighting", "impressions"),
        ("impressions", "uniform", "clicks"),
    )
    constant_scores = check_option(
        "constant_scores", options.get("constant_scores", "keep"), ("keep", "skip")
    )
    return threshold, query_weighting, constant_scores


def gauc_options(plan, caller="ranking_report"):
    """GAUC's options from its :func:`_plan`, checked as in a report:
    ``(relevance_threshold, query_weighting, constant_scores)``."""
    return _gauc_options(plan.options, caller)


def _gauc_values(plan, inputs, call):
    """GAUC's per-query values and query weights: those of
    :func:`gauc_per_query` on the checked inputs, or with a per-row array
    its function's estimator (with the same query weights, or with
    ``average="micro"`` the pooled pairs and their own weights)."""
    threshold, query_weighting, constant_scores = _gauc_options(
        plan.options, call.caller
    )
    Y, S = inputs.y_true, inputs.y_score
    n_q = inputs.ids.shape[0] if inputs.form == "long" else S.shape[0]
    t = exact_threshold(threshold, Y.dtype)
    values, weights = gauc_per_query(
        inputs.form,
        Y,
        S,
        inputs.codes,
        n_q,
        inputs.row_weights,
        t,
        query_weighting,
        constant_scores,
    )
    if call.per_row:  # the function's estimator
        parts = _function_value(METRICS[_GAUC].function, plan, call)
        if call.average == "micro":  # the pooled pairs: their own weights
            return parts
        values = parts
    return values, weights


def _estimator_options(func, options, propensity):
    """The options ``func`` is called with in a report: with
    ``propensity``, ``self_normalized`` picks one of the two estimators of
    the metrics that have both (``dcg``) and is left out for the others,
    which have one each (a ratio by construction, or precision's sum)."""
    call = dict(options)
    if propensity is not None and ESTIMATORS[func.__name__].form != "choice":
        call.pop("self_normalized", None)
    return call


def _diagnostic_parts(y_true, propensity, query_id, plans, values, options):
    """``PerQueryReport.propensity``: the diagnostics' totals of the rows,
    and the per-query estimates above 1 of each metric bounded by 1."""
    totals = diagnostic_totals(
        y_true,
        propensity,
        query_id=query_id,
        min_propensity=options.get("min_propensity"),
        relevance_threshold=options.get("relevance_threshold"),
    )
    above = {}
    for plan in plans:
        estimator = ESTIMATORS[METRICS[plan.metric].function.__name__]
        bounded = estimator.fraction or (
            estimator.form == "choice" and bool(plan.options.get("self_normalized"))
        )
        if bounded:
            name = scorer_name(plan.metric, plan.k)
            above[name] = above_one(values[name])
    return totals, above


def _means(per_query):
    """Scorer name -> mean; one warning naming every undefined metric."""
    out = {
        name: weighted_mean(v, per_query.weights[name])
        for name, v in per_query.values.items()
    }
    undefined = [name for name, v in out.items() if np.isnan(v)]
    if undefined:
        warnings.warn(
            f"{', '.join(undefined)}: no query could be scored (every query "
            "was skipped -- no relevant item, or for gauc a single class -- "
            "or had zero weight); reporting nan.",
            undefined_metric_warning(),
            stacklevel=user_stacklevel(),
        )
    return out


def _format(means, metrics, ks, digits, n_queries, n_scored, diagnostics=None):
    """The text table: one row per metric, one column per cut-off; with
    ``diagnostics`` (``propensity=``), their footer."""
    width = max(len(m) for m in metrics)
    col = max(digits + 4, max(len(f"@{kk}") for kk in ks) + 2)
    lines = [" " * width + "".join(f"@{kk}".rjust(col) for kk in ks)]
    for m in metrics:
        if _whole_list(m):
            cells = [f"{means[m]:.{digits}f}".rjust(col)]
            cells.append("  (whole list)")
        else:
            cells = [f"{means[scorer_name(m, kk)]:.{digits}f}".rjust(col) for kk in ks]
        lines.append(m.ljust(width) + "".join(cells))
    lines.append("")
    if diagnostics is None:
        lines.append(f"{n_queries} queries, {n_scored} with a relevant item.")
    else:  # n_scored: the queries with an observed relevant item
        lines.append(f"{n_queries} queries, {n_scored} with an observed relevant item.")
        lines.extend(format_diagnostics(diagnostics))
    return "\n".join(lines) + "\n"
