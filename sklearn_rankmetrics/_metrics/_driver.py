"""The one path of every ranking metric function: its arguments -> checks
of the shared options -> ranking -> kernel -> undefined rule -> average.

A public function of :mod:`._ranking` checks its own options and hands its
arguments to :func:`metric_value` with its kernel
(:class:`~._kernels.Kernel`), so the options every metric shares (``k``,
``query_id``, ``ties``, ``no_relevant``, ``average``, ...) are read in one
place, by the same rules as the report's (which reads the same kernels
through the registry).  The kernels' inputs beyond a ranking, the items of
each query (:func:`items_per_query`) and its non-relevant candidates
(:func:`candidate_negatives`), are counted here too.
"""

from collections.abc import Callable
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from .._engine._per_query import rank_per_query
from .._engine._select import _relevant, exact_threshold
from .._utils._averaging import _micro_keep, average_queries
from .._utils._validation import (
    _check_per_query_k,
    _check_ties,
    check_average,
    check_gain,
    check_inputs,
    check_no_relevant,
    check_query_id,
    check_real,
)
from ._kernels import UNDEFINED_WHEN, query_defined

__all__ = []  # private module

# The options every ranking metric function shares, read by the driver
# (a function has those of them it takes; the others keep their defaults).
SHARED_OPTIONS = (
    "k",
    "query_id",
    "sample_weight",
    "ties",
    "ignore_ties",
    "no_relevant",
    "average",
    "relevance_threshold",
    "gain",
)
# Arguments a function reads itself before it calls the driver: the
# inverse-propensity estimators (``_ips.ips_metric``) and bpref's mask.
READ_BY_THE_FUNCTION = (
    "propensity",
    "min_propensity",
    "self_normalized",
    "item_weight",
    "judged",
)


class Pooled(NamedTuple):
    """The ``average="micro"`` form of a metric: ``counts(rk)`` gives the
    per-query counts it pools (a dict of arrays, read off each ranking as
    the values are), ``value(q, keep, name)`` the pooled value from them
    (``q`` holds them, with ``n_rel`` and ``weights``, for every query;
    ``keep`` marks the queries that enter the pool)."""

    counts: Callable
    value: Callable


def metric_value(name, kernel, args, *, pooled=None, inputs=None, **replace):
    """The value of the metric function ``name`` for its arguments ``args``.

    ``args`` are the function's own arguments, as ``locals()`` gives them
    when the function has checked its options (every key is a parameter:
    ``y_true``, ``y_score``, the :data:`SHARED_OPTIONS` it takes, the
    options of ``kernel`` and those of :data:`READ_BY_THE_FUNCTION`);
    ``replace`` overrides some of them.  The shared options are checked,
    the queries ranked (:func:`rank_queries`), ``kernel.values`` read off
    each ranking with the kernel's options, a query is defined where the
    kernel's ``defined_by`` count is above 0, and the values are averaged
    under ``no_relevant`` and ``average`` (``"micro"`` with ``pooled``, a
    :class:`Pooled`).

    What the kernel ``requires`` besides a ranking is given to it:
    ``"n_items"`` (:func:`items_per_query`), ``"n_negatives"``
    (:func:`candidate_negatives`), a gain of ``"exponential_gain"`` and
    one ranking of every query (ERR's scale is the largest grade of all of
    them); ``inputs`` (``{"n_items": callable}``) replaces the counts.
    """
    args = {**args, **replace}
    known = {"y_true", "y_score", *SHARED_OPTIONS, *kernel.options}
    unknown = set(args) - known - set(READ_BY_THE_FUNCTION)
    if unknown:  # a parameter no one reads: a metric wired wrongly
        raise TypeError(
            f"{name}: {sorted(unknown)} is neither an option every metric "
            "shares nor an option of its kernel (Kernel.options)."
        )
    y_true, y_score = args["y_true"], args["y_score"]
    options = {option: args[option] for option in kernel.options}
    shared = {option: args[option] for option in SHARED_OPTIONS if option in args}
    inputs = {**_kernel_inputs(kernel, y_true, y_score, shared), **(inputs or {})}
    if "exponential_gain" in kernel.requires:
        shared["gain"] = "exponential"
    needs_ideal = kernel.needs_ideal
    if callable(needs_ideal):
        needs_ideal = needs_ideal(**options)

    def per_query(rk):
        given = {key: count() for key, count in inputs.items()}
        out = {
            "values": kernel.values(rk, **options, **given),
            "defined": query_defined(kernel, rk, given),
        }
        if pooled is not None:
            out.update(pooled.counts(rk))
        return out

    q, no_relevant, average = rank_queries(
        y_true,
        y_score,
        per_query=per_query,
        averages=("queries", "micro") if pooled is not None else ("queries",),
        need_ideal=needs_ideal,
        chunks="exponential_gain" not in kernel.requires,
        **shared,
    )
    if average == "micro":
        return pooled.value(q, _micro_keep(q.defined, no_relevant, name), name)
    lacking = UNDEFINED_WHEN[kernel.defined_by]
    return average_queries(
        q.values, q.defined, q.weights, average, no_relevant, name, lacking
    )


def relevant_counts(args):
    """The relevant items of each query, for the metric function whose
    arguments are ``args`` (its shared options checked; a ranking at
    ``k=1`` is cheap)."""
    shared = {option: args[option] for option in SHARED_OPTIONS if option in args}
    q, _, _ = rank_queries(
        args["y_true"], args["y_score"], per_query=lambda rk: {}, **{**shared, "k": 1}
    )
    return q.n_rel


def _kernel_inputs(kernel, y_true, y_score, shared):
    """The counts ``kernel`` requires besides a ranking, each a function
    computing it at its first call (on inputs the ranking has validated)
    and keeping it for the next ones: a long form is ranked in parts, each
    reading it."""
    inputs = {}
    query_id = shared.get("query_id")
    if "n_items" in kernel.requires:
        inputs["n_items"] = _once(_n_items, y_score, query_id)
    if "n_negatives" in kernel.requires:
        threshold = check_real(
            "relevance_threshold",
            shared.get("relevance_threshold"),
            low=0.0,
            allow_none=True,
        )
        inputs["n_negatives"] = _once(
            candidate_negatives, y_true, y_score, query_id, threshold
        )
    return inputs


def _once(function, *args):
    """A function returning ``function(*args)``, computed at its first call
    and kept for the next ones."""
    kept = []

    def value():
        if not kept:
            kept.append(function(*args))
        return kept[0]

    return value


def rank_queries(
    y_true,
    y_score,
    *,
    per_query,
    k=None,
    query_id=None,
    sample_weight=None,
    ignore_ties=False,
    no_relevant="skip",
    average="queries",
    averages=("queries",),
    relevance_threshold=None,
    gain="linear",
    need_ideal=False,
    ties=None,
    chunks=True,
):
    """Check the options every metric shares, rank the queries and read
    each query's values off its ranking.

    ``per_query(rk)`` returns a dict of per-query arrays computed from a
    :class:`Ranking` ``rk``; it may be called on chunks of the queries (see
    ``_engine._per_query._CHUNK_RANKING_ABOVE``; ``chunks=False`` ranks them
    all at once).  Returns ``(q, no_relevant, average)``, ``q`` holding
    those arrays for every query, with ``n_rel``, ``n_pos`` and ``weights``.
    """
    ties = _check_ties(ties, ignore_ties)
    no_relevant = check_no_relevant(no_relevant)
    average = check_average(average, averages)
    threshold = check_real(
        "relevance_threshold", relevance_threshold, low=0.0, allow_none=True
    )
    gain = check_gain(gain)
    per_query_k = None
    if isinstance(k, (list, tuple, np.ndarray)):
        per_query_k = _check_per_query_k(k)
        k = int(per_query_k.max())
    if ties in ("pessimistic", "optimistic"):
        y_true, y_score, query_id, sample_weight = _order_ties(
            y_true, y_score, query_id, sample_weight, worst_first=ties == "pessimistic"
        )

    q = rank_per_query(
        y_true,
        y_score,
        per_query,
        k=k,
        per_query_k=per_query_k,
        chunks=chunks,
        query_id=query_id,
        sample_weight=sample_weight,
        threshold=threshold,
        gain=gain,
        ignore_ties=ties != "expected",
        need_ideal=need_ideal,
    )
    return SimpleNamespace(**q), no_relevant, average


def _order_ties(y_true, y_score, query_id, sample_weight, worst_first):
    """The inputs with each query's items sorted by grade (ascending if
    ``worst_first``), so that breaking ties by position ranks a tie group's
    worst (pessimistic) or best (optimistic) items first.  A sparse
    ``y_true`` becomes dense (``y_score`` is dense already)."""
    form, Y, S, codes, _, w = check_inputs(
        y_true, y_score, query_id, sample_weight, row_weights=True
    )
    if form == "sparse":
        Y = Y.toarray()
    key = Y.astype(np.float64)
    if not worst_first:
        key = -key
    if form == "long":
        order = np.argsort(key, kind="stable")
        return Y[order], S[order], codes[order], None if w is None else w[order]
    order = np.argsort(key, axis=1, kind="stable")
    return (
        np.take_along_axis(Y, order, axis=1),
        np.take_along_axis(S, order, axis=1),
        None,
        w,
    )


def _n_items(y_score, query_id):
    """:func:`items_per_query`, as one number for a 2-D ``y_score`` (the
    kernels may then read it on chunks of the queries)."""
    if query_id is None:
        return float(np.shape(y_score)[1])
    return items_per_query(y_score, query_id)


def items_per_query(y_score, query_id):
    """Items of each query, retrieved or not: the row length of a 2-D
    ``y_score``, or the rows of each query of the long form (in the order
    of ``np.unique(query_id)``).  Call it on validated inputs."""
    if query_id is None:
        shape = np.shape(y_score)
        return np.full(shape[0], float(shape[1]))
    codes, ids = check_query_id(query_id, len(query_id))
    return np.bincount(codes, minlength=ids.shape[0]).astype(np.float64)


def candidate_negatives(y_true, y_score, query_id, threshold=None):
    """Non-relevant candidates of each query: items whose grade is not
    relevant (``<= 0``, or below ``threshold``) and whose score is above
    ``-inf`` (an item scored ``-inf`` is not a candidate: padding, an
    excluded item, an item not retrieved).  2-D: one count per row; long
    form: per query in the order of ``np.unique(query_id)``.  Vectorised
    over every item; the inputs are validated (not their grades' values)."""
    form, Y, S, codes, ids, _ = check_inputs(
        y_true, y_score, query_id, None, row_weights=True, defer=True
    )
    threshold = exact_threshold(threshold, Y.dtype)
    candidate = S > -np.inf
    if form == "long":
        negative = candidate & ~_relevant(Y, threshold)
        return np.bincount(codes, weights=negative, minlength=ids.shape[0])
    if form == "sparse":
        rows = np.repeat(np.arange(Y.shape[0], dtype=np.intp), np.diff(Y.indptr))
        keep = _relevant(Y.data, threshold)
        rows, cols = rows[keep], Y.indices[keep]
        found = np.bincount(rows, weights=candidate[rows, cols], minlength=S.shape[0])
        return np.count_nonzero(candidate, axis=1) - found
    negative = candidate & ~_relevant(np.asarray(Y), threshold)
    return np.count_nonzero(negative, axis=1).astype(np.float64)
