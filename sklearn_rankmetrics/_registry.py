"""The metric registry: one table that every surface reads.

:data:`METRICS` maps each metric's report and scorer name (``"ndcg"``,
``"map"``, ``"gauc"``, ...) to a :class:`MetricSpec`: its public function,
its per-query kernel (how it reads a
:class:`~sklearn_rankmetrics._engine._rank.Ranking`), the options that kernel
takes, what else it needs, whether it takes a cut-off, whether it has a
scorer, and its trec_eval measures.  The scorers (:func:`get_scorer`,
:func:`get_scorer_names`, :func:`make_scoring`), :func:`ranking_report`,
:class:`RankingEvaluator`, :func:`compare_rankings`, the Displays, the
Dask/Spark reports and the command line all read this table, so a metric
added here is available everywhere, and ``tests/test_registry.py`` walks
the table through every surface to prove that each gives the metric
function's number.

Every surface reads metric names with :func:`parse_metric` (one rule, one
set of messages), its default metrics from :func:`default_metrics` (the
``default`` flags) and what a metric reads of each query from
:attr:`MetricSpec.reads`; :func:`kernels` is the name -> kernel view.

This module sits above the metrics (``_metrics/``, which never import it)
and below every surface (``_evaluation/`` and up); see
``doc/developers.rst``.

Developer note -- adding a metric, in three steps:

1. In ``_metrics/``, write its per-query kernel -- a few vectorised lines
   over a :class:`~sklearn_rankmetrics._engine._rank.Ranking` and one
   :class:`~sklearn_rankmetrics._metrics._kernels.Kernel` naming what
   defines a query, the kernel's options and what else it requires, in
   ``_kernels.py`` -- and its public function in ``_ranking.py``: the
   explicit signature and numpydoc docstring, ``@with_convention`` and
   ``@fill_doc``, and a body that checks the metric's own options and
   returns ``metric_value(name, KERNEL, locals())``
   (:func:`~sklearn_rankmetrics._metrics._driver.metric_value` reads the
   options every metric shares, ranks, applies the kernel and the
   undefined rule, and averages).
2. Add one :class:`MetricSpec` to :data:`METRICS` below: its name, its
   function, its kernel, whether it takes a cut-off, has a scorer, is a
   default, and its trec_eval measures.  Nothing else lists it: the
   package root exports its function, and the scorers, reports, states,
   comparison, Displays, Dask/Spark and the command line read it here.
3. Run ``tests/test_registry.py`` and ``tests/test_common.py``: they walk
   the table through every surface and fail until each gives the
   function's value (``tests/test_recipe.py`` follows these steps with a
   throwaway metric).
"""

import difflib
import functools
import inspect
import re
from collections.abc import Callable
from typing import NamedTuple

from ._metrics._auc import group_auc_score
from ._metrics._beyond import (
    AVERAGE_POPULARITY_KERNEL,
    CATALOG_COVERAGE_KERNEL,
    EXPOSURE_ENTROPY_KERNEL,
    GINI_INDEX_KERNEL,
    INTRA_LIST_DIVERSITY_KERNEL,
    NOVELTY_KERNEL,
    SERENDIPITY_KERNEL,
    average_popularity_at_k,
    catalog_coverage_at_k,
    exposure_entropy_at_k,
    gini_index_at_k,
    intra_list_diversity_at_k,
    novelty_at_k,
    serendipity_at_k,
)
from ._metrics._kernels import (
    AVERAGE_PRECISION_KERNEL,
    BPREF_KERNEL,
    DCG_KERNEL,
    ERR_KERNEL,
    F1_KERNEL,
    FALLOUT_KERNEL,
    FBETA_KERNEL,
    HIT_RATE_KERNEL,
    NDCG_KERNEL,
    PRECISION_KERNEL,
    R_PRECISION_KERNEL,
    RBP_KERNEL,
    RBP_RESIDUAL_KERNEL,
    RECALL_KERNEL,
    RECIPROCAL_RANK_KERNEL,
    Kernel,
)
from ._metrics._ranking import (
    average_precision_at_k,
    bpref_score,
    dcg_at_k,
    expected_reciprocal_rank_at_k,
    f1_at_k,
    fallout_at_k,
    fbeta_at_k,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    r_precision_score,
    rank_biased_precision_at_k,
    rbp_residual_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    success_at_k,
)

__all__ = []  # private module

# trec_eval's default cut-offs (m_P.c, m_recall.c, m_ndcg_cut.c, m_map_cut.c)
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# m_success.c
TREC_SUCCESS_CUTOFFS = (1, 5, 10)


class TrecMeasure(NamedTuple):
    """One trec_eval measure that a registry metric computes.

    ``name`` is trec_eval's ``-m`` name (``"ndcg_cut"``); ``cutoffs`` its
    default cut-offs (None: the whole ranked list, one value); ``label``
    what trec_eval prints: the prefix before the cut-off (``"ndcg_cut_"``
    -> ``ndcg_cut_10``) when there are cut-offs, else the whole label
    (``"Rprec"``); ``options`` the metric options that trec_eval's default
    parameters mean (e.g. RBP's persistence 0.9), on top of
    ``convention="trec_eval"``.
    """

    name: str
    cutoffs: tuple | None
    label: str
    options: tuple = ()  # (option, value) pairs


class MetricSpec(NamedTuple):
    """Everything the surfaces need to know about one metric.

    name
        The report and scorer name, without ``"@k"`` (``"ndcg"``).
    function
        The public metric function; every surface gives its value.
    kernel
        The per-query kernel (:class:`~sklearn_rankmetrics._metrics._kernels.Kernel`:
        ``values``, ``defined_by``, ``needs_ideal``, ``options`` and
        ``requires``, e.g. ``"whole_list"``, ``"n_items"``,
        ``"exponential_gain"``; later ``"judged"``, ``"item_id"``,
        ``"propensity"``), or None for GAUC, which is not read from a
        ranking but from every pair of a query's items.
    cutoff
        True if the metric takes ``k`` (the name may end in ``"@k"``).
    scorer
        True if :func:`get_scorer` offers it (a quality, greater is
        better: fall-out and the RBP residual are not).
    default
        True if ``ranking_report(metrics=None)`` includes it,
        ``"long_form"`` if only in the long form (:func:`default_metrics`).
    trec
        The trec_eval measures it computes (:class:`TrecMeasure`).

    Derived from the function's signature (not stored, so it cannot
    disagree with the function): :attr:`propensity` and
    :attr:`item_weight`, whether the function has an inverse-propensity
    estimator (takes ``propensity=``) or per-item weights.  Derived from
    the kernel: :attr:`options`, :attr:`requires` and :attr:`reads`, what
    the metric reads of each query (its top k, its whole list, every item,
    or every pair of items).
    """

    name: str
    function: Callable
    kernel: Kernel | None
    cutoff: bool = True
    scorer: bool = True
    default: bool | str = False
    trec: tuple = ()

    @property
    def options(self):
        """The keyword options of the per-query kernel."""
        return () if self.kernel is None else self.kernel.options

    @property
    def requires(self):
        """What the kernel needs besides a ranking (see :class:`Kernel`)."""
        return () if self.kernel is None else self.kernel.requires

    @property
    def reads(self):
        """What the metric reads of each query (derived from its kernel):

        - ``"top_k"``: its top k entries, with its relevant items and its
          ideal ranking -- so the items below the k best-scored and not
          relevant can be dropped before ranking (``factor_ranking_report``
          does); the beyond-accuracy metrics read the top-k lists too;
        - ``"whole_list"``: every ranked item (R-precision, bpref);
        - ``"all_items"``: its top k and a count over all its items, ranked
          or not (fall-out's non-relevant candidates);
        - ``"pairs"``: every pair of its items (GAUC, no kernel).
        """
        if self.kernel is None:
            return "pairs"
        if "whole_list" in self.requires:
            return "whole_list"
        if {"n_items", "n_negatives"} & set(self.requires):
            return "all_items"
        return "top_k"

    @property
    def propensity(self):
        """True if the function takes ``propensity=`` (an IPS estimator)."""
        return "propensity" in function_parameters(self.function)

    @property
    def item_weight(self):
        """True if the function takes ``item_weight=`` (per-item weights)."""
        return "item_weight" in function_parameters(self.function)

    def label(self, k=None):
        """The scorer and report name: ``"ndcg@10"``, ``"gauc"``."""
        return self.name if k is None or not self.cutoff else f"{self.name}@{k}"


@functools.cache
def function_parameters(function):
    """The parameter names of a metric function (its signature, read once)."""
    return tuple(inspect.signature(function).parameters)


_P = TrecMeasure("P", TREC_CUTOFFS, "P_")

# In the order of the report's rows and of available_metrics().
METRICS = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "precision",
            precision_at_k,
            PRECISION_KERNEL,
            default=True,
            trec=(_P, TrecMeasure("set_P", None, "set_P")),
        ),
        MetricSpec(
            "recall",
            recall_at_k,
            RECALL_KERNEL,
            default=True,
            trec=(
                TrecMeasure("recall", TREC_CUTOFFS, "recall_"),
                TrecMeasure("set_recall", None, "set_recall"),
            ),
        ),
        MetricSpec(
            "f1",
            f1_at_k,
            F1_KERNEL,
            default=True,
            trec=(TrecMeasure("set_F", None, "set_F", (("beta", 1.0),)),),
        ),
        MetricSpec(
            "fbeta",
            fbeta_at_k,
            FBETA_KERNEL,
        ),
        MetricSpec(
            "hit_rate",
            hit_rate_at_k,
            HIT_RATE_KERNEL,
            default=True,
        ),
        MetricSpec(
            "mrr",
            reciprocal_rank_at_k,
            RECIPROCAL_RANK_KERNEL,
            default=True,
            trec=(TrecMeasure("recip_rank", None, "recip_rank"),),
        ),
        MetricSpec(
            "map",
            average_precision_at_k,
            AVERAGE_PRECISION_KERNEL,
            default=True,
            trec=(
                TrecMeasure("map", None, "map"),
                TrecMeasure("map_cut", TREC_CUTOFFS, "map_cut_"),
            ),
        ),
        MetricSpec(
            "dcg",
            dcg_at_k,
            DCG_KERNEL,
            default=True,
        ),
        MetricSpec(
            "ndcg",
            ndcg_at_k,
            NDCG_KERNEL,
            default=True,
            trec=(
                TrecMeasure("ndcg", None, "ndcg"),
                TrecMeasure("ndcg_cut", TREC_CUTOFFS, "ndcg_cut_"),
            ),
        ),
        MetricSpec(
            "r_precision",
            r_precision_score,
            R_PRECISION_KERNEL,
            cutoff=False,
            trec=(TrecMeasure("Rprec", None, "Rprec"),),
        ),
        MetricSpec(
            "fallout",
            fallout_at_k,
            FALLOUT_KERNEL,
            scorer=False,  # lower is better
        ),
        MetricSpec(
            "err",
            expected_reciprocal_rank_at_k,
            ERR_KERNEL,
        ),
        MetricSpec(
            "rbp",
            rank_biased_precision_at_k,
            RBP_KERNEL,
            # trec_eval 10's rbp weighs a document by grade / top grade
            trec=(
                TrecMeasure(
                    "rbp",
                    None,
                    "rbp",
                    (("persistence", 0.9), ("rbp_gain", "max_normalized")),
                ),
            ),
        ),
        MetricSpec(
            "rbp_residual",
            rbp_residual_at_k,
            RBP_RESIDUAL_KERNEL,
            scorer=False,  # an uncertainty, not a quality
            # trec_eval's rbp_resid counts unjudged documents, which the long
            # form does not mark yet: no trec measure until it does.
        ),
        MetricSpec(
            "bpref",
            bpref_score,
            BPREF_KERNEL,
            cutoff=False,
            trec=(TrecMeasure("bpref", None, "bpref"),),
        ),
        MetricSpec(
            "success",
            success_at_k,
            HIT_RATE_KERNEL,
            trec=(TrecMeasure("success", TREC_SUCCESS_CUTOFFS, "success_"),),
        ),
        # a default of the long form only (see default_metrics)
        MetricSpec("gauc", group_auc_score, None, cutoff=False, default="long_form"),
    )
}

# Beyond-accuracy metrics (_metrics/_beyond.py): read from the set of every user's
# list, not averaged from per-query kernels, so they are a table of their
# own that the surfaces walking METRICS do not see.  Their "kernel" is a
# _metrics._beyond.SetKernel (how a block of users contributes and how blocks
# merge, which report option it requires: item_popularity / item_features,
# and whether it reads the catalogue size).  ranking_report accepts them by
# name; they have no scorer (they are reported, not optimised: make_scoring
# with a stated objective if need be).
BEYOND_METRICS = {
    spec.name: spec
    for spec in (
        MetricSpec(name, function, kernel, scorer=False)
        for name, function, kernel in (
            ("catalog_coverage", catalog_coverage_at_k, CATALOG_COVERAGE_KERNEL),
            ("gini_index", gini_index_at_k, GINI_INDEX_KERNEL),
            ("exposure_entropy", exposure_entropy_at_k, EXPOSURE_ENTROPY_KERNEL),
            (
                "average_popularity",
                average_popularity_at_k,
                AVERAGE_POPULARITY_KERNEL,
            ),
            ("novelty", novelty_at_k, NOVELTY_KERNEL),
            (
                "intra_list_diversity",
                intra_list_diversity_at_k,
                INTRA_LIST_DIVERSITY_KERNEL,
            ),
            ("serendipity", serendipity_at_k, SERENDIPITY_KERNEL),
        )
    )
}


def metric_names(*, scorer=None, cutoff=None, default=None, kernel=None):
    """Registry names in table order, filtered by the given spec fields
    (``kernel=True``: the metrics read from a ranking, not GAUC)."""
    out = []
    for spec in METRICS.values():
        if scorer is not None and spec.scorer != scorer:
            continue
        if cutoff is not None and spec.cutoff != cutoff:
            continue
        if default is not None and spec.default != default:
            continue
        if kernel is not None and (spec.kernel is not None) != kernel:
            continue
        out.append(spec.name)
    return out


# The one rule for a metric name, on every surface (scorers, reports,
# Displays, the command line): a registry name exactly as listed
# (lowercase, no spaces), then, for a metric with a cut-off, "@k" with k an
# int >= 1 written plainly ("ndcg@10", not "NDCG@10" or "ndcg@010").


class UnknownMetricError(ValueError):
    """A name that is not a registry metric (the message lists the names,
    or suggests the one meant).  A ``ValueError``: surfaces that also take
    other names (scikit-learn's scorers, trec_eval's measures) catch it."""


def all_metrics():
    """Every registry metric, those read from a ranking (:data:`METRICS`)
    then the beyond-accuracy ones (:data:`BEYOND_METRICS`): name -> spec."""
    return {**METRICS, **BEYOND_METRICS}


def is_beyond(spec):
    """True for a beyond-accuracy metric (read from the set of lists)."""
    return BEYOND_METRICS.get(spec.name) is spec


def default_metrics(long_form):
    """The one default metric set: ``ranking_report(metrics=None)``, the
    mergeable state, Dask/Spark, :func:`compare_rankings` and the command
    line all read it.

    The registry's ``default`` flag: True in every input form,
    ``"long_form"`` in the long form only.  GAUC needs a full sort of
    every query's items: in the long form a second sort of the rows (the
    report then costs about 2.1 ndcg_at_k calls instead of 1.2), on a wide
    2-D matrix 10 to 20 times the top-k selection the other metrics need.
    So it is a default of the long form (CTR logs, where it is the usual
    metric) only; ``metrics=[..., "gauc"]`` adds it for 2-D input.
    """
    return [
        name
        for name, spec in METRICS.items()
        if spec.default is True or (long_form and spec.default == "long_form")
    ]


def _canonical(name):
    """The exact name a user probably meant: case, spaces and leading
    zeros ignored (``" NDCG@010"`` -> ``"ndcg@10"``); else the closest
    registry name (``"ndgc@10"`` -> ``"ndcg@10"``); None if nothing is near."""
    table = all_metrics()
    base, at, k = re.sub(r"\s+", "", name).lower().partition("@")
    if base not in table:
        close = difflib.get_close_matches(base, list(table), n=1, cutoff=0.75)
        if not close:
            return None
        base = close[0]
    if not at or not table[base].cutoff:
        return base
    if k.isdigit() and k.isascii() and int(k) >= 1:
        return f"{base}@{int(k)}"
    return None


def get_metric(name):
    """The :class:`MetricSpec` of ``name`` (``"ndcg"`` or ``"ndcg@10"``),
    read by :func:`parse_metric`."""
    return parse_metric(name)[0]


def unknown_metric_message(name):
    """The message for a name that is no registry metric: the name meant,
    or every name (ranking and beyond-accuracy metrics)."""
    canonical = _canonical(name) if isinstance(name, str) else None
    if canonical is not None:
        return (
            f"unknown metric {name!r}; did you mean {canonical!r}? Metric names "
            "are exact: lowercase, no spaces, '@k' with an int k >= 1 such as "
            "'ndcg@10'."
        )
    return (
        f"unknown metric {name!r}; choose among the ranking metrics "
        f"{', '.join(map(repr, METRICS))} and the beyond-accuracy metrics "
        f"{', '.join(map(repr, BEYOND_METRICS))}, with '@k' (k an int >= 1, "
        "e.g. 'ndcg@10') for those with a cut-off."
    )


def parse_metric(name):
    """``"ndcg@10"`` -> (spec, 10); ``"ndcg"`` -> (spec, None).

    The one reader of metric names (the rule above), for every surface:
    the scorers, the reports, the Displays and the command line.  Knows
    the beyond-accuracy metrics too (:func:`is_beyond`); a surface that
    does not compute them says so.

    Raises :class:`UnknownMetricError` (a ``ValueError``) for a name that
    is not a registry metric -- suggesting the exact spelling of a name
    that differs only by case, spaces or leading zeros, or a close one --
    ``ValueError`` for a cut-off on a metric that takes none
    (``"gauc@10"``) or a cut-off that is not an int >= 1 written plainly,
    and ``TypeError`` for a name that is not a str.
    """
    if not isinstance(name, str):
        raise TypeError(
            f"a metric name must be a str such as 'ndcg@10' or 'gauc'; got "
            f"{name!r} of type {type(name).__name__}."
        )
    table = all_metrics()
    base, at, k = name.partition("@")
    if base not in table:
        raise UnknownMetricError(unknown_metric_message(name))
    spec = table[base]
    if not at:
        return spec, None
    if not spec.cutoff:
        raise ValueError(
            f"{name!r}: {spec.name} ranks every item of a query and takes no "
            f"cut-off; use {spec.name!r}."
        )
    if not (k.isascii() and k.isdigit()) or int(k) < 1:
        canonical = _canonical(name)
        if canonical is not None:  # "ndcg@ 10", "ndcg@10 "
            raise ValueError(
                f"{name!r}: did you mean {canonical!r}? Metric names are exact: "
                "no spaces."
            )
        raise ValueError(
            f"{name!r}: the cut-off after '@' must be an int >= 1 written "
            f"plainly, such as '{spec.name}@10'."
        )
    if k != str(int(k)):
        raise ValueError(
            f"{name!r}: did you mean '{spec.name}@{int(k)}'? Write the cut-off "
            "without leading zeros."
        )
    return spec, int(k)


def trec_measures():
    """trec_eval measure name -> (registry name, :class:`TrecMeasure`),
    for every trec_eval measure the package computes."""
    return {m.name: (spec.name, m) for spec in METRICS.values() for m in spec.trec}


def kernels():
    """Name -> kernel of every metric read from a ranking (not GAUC)."""
    return {name: spec.kernel for name, spec in METRICS.items() if spec.kernel}
