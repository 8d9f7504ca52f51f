"""Every metric at every cut-off from one ranking: :func:`ranking_report`.

The scores are ranked once, at the largest cut-off, and each cut-off reads
that ranking (:meth:`~sklearn_rankmetrics._engine.Ranking.at`), so a report
of nine metrics at four cut-offs costs about one metric call.  The metrics
are those of the registry :data:`~sklearn_rankmetrics._registry.METRICS`
(a metric added there can be asked for here), and each value is
averaged by the same code as the metric function, so it is *equal* to it.
Each metric reads its function's options and ``convention=`` preset,
resolved as the function resolves them; metrics whose resolved options
give the same ranking share one (the whole list for R-precision and bpref,
exponential gains for ERR, one per tie rule, ...), so the metrics that need
another ranking than the default one are not in the default report.
"""

import inspect
import numbers
import warnings
from typing import NamedTuple

import numpy as np

from ._auc import gauc_per_query
from ._beyond import report_values, split_report_metrics
from ._conventions import check_convention, convention_options
from ._engine import (
    _relevant,
    average_queries,
    check_inputs,
    exact_threshold,
    query_weights,
    weighted_mean,
)
from ._propensity import (
    ESTIMATORS,
    PARTS,
    above_one,
    diagnostic_totals,
    diagnostics_from_totals,
    format_diagnostics,
)
from ._ranking import (
    AP_DENOMINATORS,
    IDEAL_RULES,
    PRECISION_DENOMINATORS,
    RBP_GAINS,
    UNDEFINED_WHEN,
    _check_ties,
    candidate_negatives,
    check_discount,
    check_gain,
    check_persistence,
    items_per_query,
    query_defined,
    rank_per_query,
)
from ._registry import METRICS, is_beyond, parse_metric
from ._registry import default_metrics as registry_default_metrics
from ._validation import (
    check_no_relevant,
    check_option,
    check_real,
    undefined_metric_warning,
)

__all__ = ["ranking_report"]

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
    # (_propensity.DIAGNOSTIC_TOTALS) and, per scorer name of an estimator
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
    weights of its pooled form (:class:`~._propensity.IPSParts`), and the
    report carries the totals of :func:`propensity_diagnostics`.

    ``n_items_per_query`` (long form, in the order of the query ids) gives
    the items of each query when they are not its rows -- a catalogue's,
    for the recommendation tables -- to the metrics that read it (fall-out,
    bpref).
    """
    _check_report_options(options, caller)
    average = check_report_average(average, caller)
    if convention is not None:
        check_convention(convention)
    per_row = {
        name: array
        for name, array in (("propensity", propensity), ("item_weight", item_weight))
        if array is not None
    }
    check_per_row_options({"average": average}, per_row, caller)
    ks = _check_cutoffs(k, allow_none=allow_whole_list)
    metrics = _check_metrics(metrics, query_id is not None, per_row)
    plans = []
    for m in metrics:
        for kk in ks if METRICS[m].cutoff else (None,):
            plans.append(_plan(m, kk, convention, options, bool(per_row)))
    if query_id is None and _GAUC not in metrics:
        # 2-D, ranking metrics only: rank() validates; no second pass.
        form, Y, S, codes, ids, row_w = "2-D", y_true, y_score, None, None, None
        sample_w = sample_weight
    else:
        # Validate once; the ranking and GAUC then read the checked arrays.
        form, Y, S, codes, ids, row_w = check_inputs(
            y_true, y_score, query_id, sample_weight, row_weights=True
        )
        sample_w = row_w
    values, weights = {}, {}
    ranked = [p for p in plans if p.metric != _GAUC]
    if ranked and form == "long" and row_w is not None:
        only_gauc = " Only GAUC (metrics=['gauc']) takes row weights."
        query_weights(row_w, codes, ids, hint=only_gauc)
    rank_args = dict(query_id=codes, sample_weight=sample_w)
    n_items = None
    if any("n_items" in METRICS[p.metric].requires for p in ranked):
        # one number for 2-D inputs: the kernels may read it on chunks
        n_items = items_per_query(S, codes) if form == "long" else None
        n_items = float(np.shape(S)[1]) if n_items is None else n_items
    if n_items_per_query is not None:
        n_items = np.asarray(n_items_per_query, dtype=np.float64)
    query_w = None
    for (kind, rule, gain, threshold), group in _group_plans(
        [p for p in ranked if p.ranking is not None]
    ):
        inputs = {}
        if n_items is not None and any(
            "n_items" in METRICS[p.metric].requires for p in group
        ):
            inputs["n_items"] = n_items
        if any("n_negatives" in METRICS[p.metric].requires for p in group):
            if n_items_per_query is None:
                inputs["n_negatives"] = candidate_negatives(Y, S, codes, threshold)
            else:  # every item of a query's catalogue is a candidate
                relevant = _relevant(Y, exact_threshold(threshold, Y.dtype))
                n_rel = np.bincount(codes, weights=relevant, minlength=ids.shape[0])
                inputs["n_negatives"] = n_items - n_rel

        def read_kernels(rk, group=group, inputs=inputs):
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

        # Large 2-D inputs are ranked in chunks of rows, as by the metric
        # functions (ERR scales by the largest grade of all queries: one
        # ranking).
        cut = [p.k for p in group]
        q = rank_per_query(
            Y,
            S,
            read_kernels,
            k=None if kind == "whole_list" or None in cut else max(cut),
            chunks=kind != "exponential_gain",
            threshold=threshold,
            gain="linear" if gain is None else check_gain(gain),
            ignore_ties=rule == "input_order",
            need_ideal=any(p.needs_ideal for p in group),
            **rank_args,
        )
        n_q = q["n_rel"].shape[0]
        query_w = np.ones(n_q) if q["weights"] is None else q["weights"]
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
    for plan in ranked:
        if plan.ranking is not None:
            continue
        # options no shared ranking serves: the metric function itself
        name = scorer_name(plan.metric, plan.k)
        if n_items_per_query is not None and CATALOGUE_INPUTS & set(
            METRICS[plan.metric].requires
        ):
            raise ValueError(
                f"{caller}: {name} with these options is computed by its "
                "function, which counts a query's rows as its items, not the "
                "catalogue; use the default tie rule or drop it."
            )
        func = METRICS[plan.metric].function
        call = _estimator_options(func, plan.options, propensity)
        if plan.k is not None:
            call["k"] = plan.k
        if average == "micro":  # the pooled IPS ratio: its own weights
            values[name], weights[name] = func(
                y_true,
                y_score,
                query_id=query_id,
                sample_weight=sample_weight,
                average=PARTS,
                **call,
                **per_row,
            )
            continue
        values[name] = func(
            y_true,
            y_score,
            query_id=query_id,
            sample_weight=sample_weight,
            average=None,
            **call,
            **per_row,
        )
        if query_w is None and sample_weight is None:
            query_w = np.ones(np.shape(values[name])[0])
        if query_w is None:  # the query weights of a ranking
            q = rank_per_query(Y, S, lambda rk: {}, k=1, ignore_ties=True, **rank_args)
            n_q = q["n_rel"].shape[0]
            query_w = np.ones(n_q) if q["weights"] is None else q["weights"]
        weights[name] = query_w
    if _GAUC in metrics:
        (plan,) = [p for p in plans if p.metric == _GAUC]
        opts = plan.options
        undefined_value = opts.get("undefined_value", np.nan)
        if not (
            isinstance(undefined_value, numbers.Real) and np.isnan(undefined_value)
        ):
            raise ValueError(
                f"{caller}: undefined_value={undefined_value!r} is "
                "group_auc_score's value when no query has an AUC; a report "
                "gives nan (with a warning) instead. Leave it unset."
            )
        threshold = check_real(
            "relevance_threshold",
            opts.get("relevance_threshold"),
            low=0.0,
            allow_none=True,
        )
        query_weighting = check_option(
            "query_weighting",
            opts.get("query_weighting", "impressions"),
            ("impressions", "uniform", "clicks"),
        )
        constant_scores = check_option(
            "constant_scores", opts.get("constant_scores", "keep"), ("keep", "skip")
        )
        n_q = ids.shape[0] if form == "long" else S.shape[0]
        t = exact_threshold(threshold, Y.dtype)
        values[_GAUC], weights[_GAUC] = gauc_per_query(
            form, Y, S, codes, n_q, row_w, t, query_weighting, constant_scores
        )
        if per_row:  # the function's estimator, with the same query weights
            parts = METRICS[_GAUC].function(
                y_true,
                y_score,
                query_id=query_id,
                sample_weight=sample_weight,
                average=PARTS if average == "micro" else None,
                **_estimator_options(METRICS[_GAUC].function, opts, propensity),
                **per_row,
            )
            if average == "micro":  # the pooled pairs: their own weights
                values[_GAUC], weights[_GAUC] = parts
            else:
                values[_GAUC] = parts
    # Order the keys as the report prints them: metric by metric.
    order = [scorer_name(m, kk) for m in metrics for kk in ks]
    order = list(dict.fromkeys(order))
    if form == "long":
        query_ids = ids
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
            stacklevel=3,
        )
    return out


def _as_table(per_query, output_dict):
    """Per-query values as a DataFrame (ids in column ``query_id``), or a
    dict of arrays without pandas or with ``output_dict``."""
    return table_output(
        {"query_id": per_query.query_id, **per_query.values}, output_dict
    )


def table_output(table, output_dict):
    """The dict of columns ``table`` as a DataFrame, or as it is without
    pandas or with ``output_dict``."""
    if output_dict:
        return table
    try:
        import pandas as pd
    except ImportError:
        return table
    return pd.DataFrame(table)


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


def ranking_report(
    y_true,
    y_score=None,
    *,
    k=(1, 5, 10, 20),
    metrics=None,
    query_id=None,
    sample_weight=None,
    convention=None,
    output_dict=False,
    per_query=False,
    digits=4,
    propensity=None,
    min_propensity=None,
    self_normalized=None,
    item_weight=None,
    average="queries",
    groups=None,
    item_groups=None,
    confidence_level=None,
    n_bootstrap=1999,
    random_state=None,
    query_col=None,
    label_col=None,
    score_col=None,
    weight_col=None,
    propensity_col=None,
    item_weight_col=None,
    item_col=None,
    group_col=None,
    item_group_col=None,
    tie_break_col=None,
    tie_break_ascending=True,
    **options,
):
    """Report every ranking metric at every cut-off, from one ranking.

    The ranking counterpart of :func:`sklearn.metrics.classification_report`:
    the scores are ranked once, at the largest cut-off, and every metric at
    every cut-off is read from that ranking.  Each value equals what the
    metric function returns with the same options (for example
    ``ranking_report(..., output_dict=True)["ndcg@10"] ==
    ndcg_at_k(..., k=10)``).

    Read more in the :ref:`User Guide <reports>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
        Relevance grades, non-negative; any input form of the metrics.

    y_score : array-like of shape (n_queries, n_items), or (n_rows,)
        Predicted scores, higher ranks first; ``-np.inf``: not retrieved.

    k : int or sequence of int >= 1, default=(1, 5, 10, 20)
        The cut-offs.

    metrics : sequence of str, default=None
        Metric names without ``@k``: any name of the metric registry
        (``"precision"``, ``"recall"``, ``"f1"``, ``"fbeta"``,
        ``"hit_rate"``, ``"mrr"``, ``"map"``, ``"dcg"``, ``"ndcg"``,
        ``"r_precision"``, ``"fallout"``, ``"err"``, ``"rbp"``,
        ``"bpref"``, ``"success"``, ``"gauc"``, ...).  None means
        ``"precision"``, ``"recall"``, ``"f1"``, ``"hit_rate"``, ``"mrr"``,
        ``"map"``, ``"dcg"`` and ``"ndcg"``, and ``"gauc"`` for the long
        form only, because on a wide 2-D matrix its full sort of every row
        costs several times the rest of the report.

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form; None for 2-D input.

    sample_weight : array-like of shape (n_queries,) or (n_rows,), \
default=None
        Query weights (long form: one per row, constant within a query;
        with ``metrics=["gauc"]`` only, row weights as in
        :func:`group_auc_score`).

    convention : str or None, default=None
        A preset of options reproducing another library's numbers
        (``"trec_eval"``, ``"sklearn"``, ``"lightgbm"``, ...; see the
        presets page).  Each metric takes the preset's options as its
        function does with ``convention=``, including the preset's rules for
        that metric alone; options given explicitly win.

    output_dict : bool, default=False
        Return a dict instead of the text table.

    per_query : bool, default=False
        Return one row per query instead of the means: a
        :class:`pandas.DataFrame` with the query ids in the column
        ``"query_id"`` (or a dict of arrays if pandas is not installed or
        ``output_dict=True``).  Rows come in the order of
        ``np.unique(query_id)`` for the long form (sorted ids, as with
        ``average=None``) and of the rows for 2-D input (ids 0..n-1);
        skipped queries are nan.

    digits : int, default=4
        Digits of the text table.

    propensity : array-like or sparse matrix of the shape of ``y_true``, \
default=None
        Probability in (0, 1] that each row's (long form) or cell's (2-D,
        sparse) relevance was observed; given, every metric is its
        inverse-propensity-scored (IPS) estimate, computed by its function
        with the same ``propensity`` (see :ref:`logged_feedback`).  Only
        the metrics whose function takes ``propensity=`` have an estimator
        (``"precision"``, ``"recall"``, ``"dcg"``, ...); asking for another
        raises a ``ValueError`` naming it, and ``metrics=None`` then means
        the default metrics that have one.  The values follow the rows: in
        the long form, in any order, one per row.  The footer of the text
        table (and the key ``"propensity_diagnostics"`` of ``output_dict``)
        then holds the figures of :func:`propensity_diagnostics`.

    min_propensity : float in (0, 1], default=None
        With ``propensity``: clip propensities below it, as the functions
        do.

    self_normalized : bool, default=None
        With ``propensity``: True picks the self-normalised (SNIPS)
        estimate, False the IPS sum, for the metrics that have both
        (``"dcg"``); the others have one estimator each (precision the IPS
        sum; recall, NDCG and GAUC a ratio) and take it whatever this
        option.  None: each function's default.

    average : {"queries", "micro"}, default="queries"
        "queries": each metric is the weighted mean of its per-query
        values.  "micro" (with ``propensity``): each estimator's pooled
        form, as ``metric(..., average="micro")`` -- the sum over queries
        of its numerators over the sum of its denominators, which orders
        models correctly where the per-query ratios may not (see
        :ref:`logged_feedback`).  The per-query table is the same under
        both.

    item_weight : array-like of the shape of ``y_true``, default=None
        Per-item weights (one per row or cell), passed with the rows to
        the metric functions that take ``item_weight=``; the same rules as
        ``propensity``.

    groups : array-like of shape (n_queries,) or (n_rows,), default=None
        A segment of queries (a user's country, device, activity level,
        ...): one label per query of the 2-D form, one per row of the long
        form (the same for every row of a query; a label that varies
        within a query is an error naming it).  The report then gives
        every metric for all queries ("overall", equal to the report
        without ``groups``) and for each segment (equal, bit for bit, to
        the report on the segment's rows alone), with coverage counters
        per segment.  See :ref:`segments`.

    item_groups : array-like of shape (n_items,) or (n_rows,), default=None
        A stratum of items (e.g. :func:`popularity_strata`: head, torso,
        tail): one label per item (column) of the 2-D form, per row of the
        long form.  Each stratum's row is the report with only the
        stratum's items counted as relevant (the ranking unchanged): its
        recall@k is the share of the query's relevant items of the
        stratum found in the top k; a query without one is undefined.

    confidence_level : float in (0, 1), default=None
        Add percentile bootstrap intervals (over the queries of each row of
        the report, weighted as its means) at this level, computed by
        :func:`compare_rankings`' bootstrap.  None: no intervals.  Given
        without ``groups`` or ``item_groups``, the overall row alone.

    n_bootstrap : int >= 1, default=1999
        Bootstrap resamples of the intervals.

    random_state : int, numpy Generator or RandomState, default=None
        Seed of the bootstrap.

    query_col, label_col, score_col, weight_col : str, default=None
        The data-frame form: pass a pandas, polars (eager or lazy, which is
        collected once) or pyarrow table as ``y_true``, no ``y_score``,
        and name its columns of query ids, grades, scores and query
        weights -- the keywords of :func:`sklearn_rankmetrics.dask.ranking_report`
        and :func:`sklearn_rankmetrics.spark.ranking_report`, so a Dask or
        a Spark DataFrame given here runs that engine's report.  The values
        are those of the arrays of those columns, bit for bit.  Text,
        categorical and integer ids are read as they are (``"007"`` is not
        ``"7"``); a null cell is an error naming the column and the row.
        See :ref:`frames`.

    propensity_col, item_weight_col, item_col : str, default=None
        Columns of ``propensity``, ``item_weight`` and of the item ids
        (``item_id`` of the beyond-accuracy metrics).

    group_col, item_group_col : str, default=None
        Columns of ``groups`` and ``item_groups``.

    tie_break_col : str, default=None
        A column identifying the rows of each query (e.g. the document
        id): each query's rows are sorted by it before ranking, so that a
        tie rule reading the row order (``ignore_ties=True``, the
        trec_eval preset, ...) gives the numbers of the Dask and Spark
        reports.  A value repeated within a query is an error.

    tie_break_ascending : bool, default=True
        Sort order of ``tie_break_col``.

    **options
        Options of the metric functions, each read by the metrics whose
        function takes it, with that function's default otherwise:
        ``relevance_threshold`` (binary metrics and GAUC: relevant when
        ``y_true >= threshold``), ``gain`` (DCG, NDCG), ``ties`` and
        ``ignore_ties`` (the tie rule; default: the exact expected value
        over the orderings of tied items), ``no_relevant`` (queries without
        a relevant item: ``"skip"``, ``"raise"`` or a number; GAUC always
        skips queries with a single class), ``precision_denominator``,
        ``beta``, ``ap_denominator``, ``log_base``, ``discount``,
        ``max_grade``, ``persistence``, ``rbp_gain``, ``judged``,
        ``query_weighting``, ``constant_scores``.  A name no metric function
        takes raises a ``TypeError``.  Metrics whose options give the same
        ranking share it; a tie rule or option that no shared ranking
        serves (``ties="pessimistic"``, ``"optimistic"``, ``"threshold"``,
        ``judged``) computes that metric by its function.  The
        beyond-accuracy metrics (``"catalog_coverage"``, ``"gini_index"``,
        ``"exposure_entropy"``, ``"average_popularity"``, ``"novelty"``,
        ``"intra_list_diversity"``, ``"serendipity"``) take the options of
        their functions (``item_popularity``, ``item_features``, ``metric``,
        ``normalization``, ``share``, and ``item_id``, ``n_items`` for the
        long form); they have no per-query value (``per_query=True``
        refuses them); see :ref:`beyond_accuracy`.

    Returns
    -------
    report : str, dict, DataFrame
        Text table (metrics by cut-off), or a dict ``{"ndcg@10": float,
        ..., "gauc": float}`` (with ``propensity``, and the key
        ``"propensity_diagnostics"``: the dict of
        :func:`propensity_diagnostics`), or the per-query table.  By segment
        (``groups``, ``item_groups`` or ``confidence_level`` given): per
        metric one line per segment and stratum, then the coverage
        counters; ``output_dict=True`` gives ``{"overall": {...},
        "groups": {label: {...}}, "item_groups": {label: {...}},
        "intervals": {...}, "coverage": {"overall": {...}, "groups":
        {label: {...}}}}``, each counter dict holding ``n_queries``,
        ``n_evaluated`` (in the means: with a relevant item),
        ``n_skipped``, ``n_empty`` (no item retrieved) and ``n_short``
        (fewer items retrieved than the largest cut-off).  A metric no query
        can be scored for is nan, with one
        :class:`~sklearn.exceptions.UndefinedMetricWarning` naming them.

    See Also
    --------
    compare_rankings : Several models, with confidence intervals and
        paired tests.
    MetricAtKDisplay : Plot of a metric against the cut-off.

    Examples
    --------
    >>> from sklearn_rankmetrics import ranking_report
    >>> y_true = [[0, 1, 0, 1], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.7], [0.3, 0.9, 0.5, 0.1]]
    >>> print(ranking_report(y_true, y_score, k=(1, 3), metrics=["ndcg", "map"]))
              @1      @3
    ndcg  0.0000  0.5967
    map   0.0000  0.4583
    <BLANKLINE>
    2 queries, 2 with a relevant item.
    <BLANKLINE>
    >>> ranking_report(y_true, y_score, k=3, metrics=["mrr"], output_dict=True)
    {'mrr@3': 0.41666666666666663}
    >>> ranking_report(y_true, y_score, k=3, metrics=["mrr"], per_query=True,
    ...                output_dict=True)
    {'query_id': array([0, 1]), 'mrr@3': array([0.5       , 0.33333333])}

    By segment of queries, and from a data frame by column name:

    >>> report = ranking_report(y_true, y_score, k=3, metrics=["mrr"],
    ...                         groups=["web", "app"], output_dict=True)
    >>> report["groups"]
    {'app': {'mrr@3': 0.3333333333333333}, 'web': {'mrr@3': 0.5}}
    >>> import pandas as pd
    >>> df = pd.DataFrame({"user": ["b", "a", "a", "b"], "clicked": [1, 0, 1, 0],
    ...                    "score": [0.2, 0.9, 0.4, 0.8]})
    >>> ranking_report(df, query_col="user", label_col="clicked",
    ...                score_col="score", k=1, metrics=["mrr"], output_dict=True)
    {'mrr@1': 0.0}
    """
    columns = {
        "query_col": query_col,
        "label_col": label_col,
        "score_col": score_col,
        "weight_col": weight_col,
        "propensity_col": propensity_col,
        "item_weight_col": item_weight_col,
        "item_col": item_col,
        "group_col": group_col,
        "item_group_col": item_group_col,
        "tie_break_col": tie_break_col,
    }
    if y_score is None or any(col is not None for col in columns.values()):
        arguments = dict(locals())  # the arguments given, for the array form
        del arguments["columns"]
        from ._dataframe import frame_report  # a data frame by column name

        return frame_report(ranking_report, arguments, columns)
    if not isinstance(digits, numbers.Integral) or digits < 0:
        raise ValueError(f"digits must be an int >= 0; got {digits!r}.")
    per_row = {
        name: array
        for name, array in (("propensity", propensity), ("item_weight", item_weight))
        if array is not None
    }
    options.update(
        (name, value)
        for name, value in (
            ("min_propensity", min_propensity),
            ("self_normalized", self_normalized),
        )
        if value is not None
    )
    check_per_row_options(
        {**options, "average": check_report_average(average)}, per_row
    )
    if average != "queries" and (
        groups is not None or item_groups is not None or confidence_level is not None
    ):
        raise ValueError(
            "ranking_report by segment averages over queries; average="
            f"{average!r} is not supported with groups=, item_groups= or "
            "confidence_level=."
        )
    if groups is not None or item_groups is not None or confidence_level is not None:
        from ._segments import segment_report  # a report by segment

        return segment_report(
            y_true,
            y_score,
            groups=groups,
            item_groups=item_groups,
            k=k,
            metrics=metrics,
            query_id=query_id,
            sample_weight=sample_weight,
            convention=convention,
            per_row=per_row,
            options=options,
            confidence_level=confidence_level,
            n_bootstrap=n_bootstrap,
            random_state=random_state,
            output_dict=output_dict,
            per_query=per_query,
            digits=digits,
        )
    metrics, beyond = split_report_metrics(metrics)
    if beyond and per_row:
        raise ValueError(
            f"{', '.join(map(repr, beyond))}: the beyond-accuracy metrics have "
            f"no {' or '.join(per_row)}= estimator; leave them out of metrics."
        )
    if beyond:  # takes its options out of ``options``
        beyond_means, n_users, n_rel = report_values(
            y_true,
            y_score,
            _check_cutoffs(k),
            beyond,
            query_id=query_id,
            per_query=per_query,
            sample_weight=sample_weight,
            convention=convention,
            options=options,
            alone=not metrics,
        )
        if not metrics:
            if output_dict:
                return beyond_means
            return _format(
                beyond_means, beyond, _check_cutoffs(k), digits, n_users, n_rel
            )
    report = _per_query_report(
        y_true,
        y_score,
        k=k,
        metrics=metrics,
        query_id=query_id,
        sample_weight=sample_weight,
        convention=convention,
        average=average,
        **per_row,
        **options,
    )
    if per_query:
        return _as_table(report, output_dict)
    means = _means(report)
    if beyond:
        means.update(beyond_means)
    diagnostics = None
    if report.propensity is not None:
        diagnostics = diagnostics_from_totals(*report.propensity)
    if output_dict:
        if diagnostics is not None:
            means[DIAGNOSTICS_KEY] = diagnostics
        return means
    ks = _check_cutoffs(k)
    names = list(dict.fromkeys(n.partition("@")[0] for n in report.values))
    names += beyond
    ranked = [n for n in report.values if n != _GAUC]
    scored = report.values[ranked[0]] if ranked else report.values[_GAUC]
    n_scored = int(np.count_nonzero(~np.isnan(scored)))
    if diagnostics is not None:
        n_scored = diagnostics["n_queries"] - int(report.propensity[0][1])
    n_queries = report.query_id.shape[0]
    return _format(means, names, ks, digits, n_queries, n_scored, diagnostics)
