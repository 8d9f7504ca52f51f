"""Per-query kernels: one value per query of a
:class:`~sklearn_rankmetrics._engine._rank.Ranking` (SPEC appendix).

Each is a few vectorised lines over the ranking's per-rank tie-group
fields.  The public functions (:mod:`._ranking`) and the report average
their output; the registry pairs each with its metric (:class:`Kernel`).
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .._engine._rank import row_sum

__all__ = []  # private module


def _divide(num, den):
    """``num / den`` with 0 where ``den == 0``."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _fbeta_weights(beta):
    """``(b^2, 1) / (1 + b^2)``, the weights of R (or recall) and k (or
    precision) in F-beta's denominator, without overflow for any beta."""
    if beta <= 1.0:
        b2 = beta * beta
        return b2 / (1.0 + b2), 1.0 / (1.0 + b2)
    ib2 = (1.0 / beta) ** 2
    return 1.0 / (1.0 + ib2), ib2 / (1.0 + ib2)


def _fbeta_from_counts(hits, n_rel, cutoff, beta):
    """F-beta = (1 + b^2) hits / (b^2 R + k), linear in hits (exact ties)."""
    w_rel, w_cut = _fbeta_weights(beta)
    return _divide(hits, w_rel * n_rel + w_cut * cutoff)


def _discount(rk, log_base, discount="log"):
    """The discount of the ranks 1..K: 1 / log_b(i + 1), 1 / i, or a
    user callable of the ranks."""
    return _discount_of_ranks(rk.rank, log_base, discount)


def _discount_of_ranks(rank, log_base, discount="log"):
    """The discount of the float ranks ``rank`` (see :func:`_discount`)."""
    if discount == "log":
        return np.log(log_base) / np.log1p(rank)
    if discount == "reciprocal":
        return 1.0 / rank
    weights = np.asarray(discount(rank), dtype=np.float64)
    if weights.shape != rank.shape or not np.isfinite(weights).all():
        raise ValueError(
            "discount(ranks) must return one finite weight per rank: got shape "
            f"{weights.shape} for {rank.shape[0]} ranks."
        )
    if (weights < 0).any():
        raise ValueError("discount(ranks) returned a negative weight.")
    return weights


# ---------------------------------------------------------------------------
# Per-query kernels: one value per query of a Ranking (SPEC appendix).  The
# public functions below, and the report, average their output.
# ---------------------------------------------------------------------------
def _precision_cutoff(rk, precision_denominator="k"):
    """k (None: the retrieved count), or min(k, retrieved) for "retrieved",
    min(k, R) for "min_k"."""
    if precision_denominator == "retrieved":
        return rk.retrieved.sum(axis=1, dtype=np.float64)
    if precision_denominator == "min_k":
        return np.minimum(rk.cutoff, rk.n_rel)
    return rk.cutoff


def _precision_values(rk, precision_denominator="k"):
    return _divide(rk.hits, _precision_cutoff(rk, precision_denominator))


def _recall_values(rk):
    return _divide(rk.hits, rk.n_rel)


def _fbeta_values(rk, beta=1.0):
    return _fbeta_from_counts(rk.hits, rk.n_rel, rk.cutoff, beta)


def _hit_rate_values(rk):
    return 1.0 - np.prod(rk.no_hit_factors(), axis=1)


class _RelevantRuns:
    """The ranks of the runs of equal scores that hold a relevant retrieved
    item (:class:`_engine._rank.Runs`), flattened: where the terms of MAP and MRR
    do not vanish.  Each field is the per-rank field of :class:`Ranking`
    at those ranks, the same values bit for bit, and :meth:`sum_ranks`
    places terms among zeros and sums them as ``Ranking.sum_ranks``:
    a few reads of the size of ``y_score`` instead of a dozen (with ties at
    k=None, about a tenth of the ranks are in such runs)."""

    def __init__(self, rk, runs):
        K = runs.K
        keep = np.flatnonzero((runs.relevant > 0) & runs.retrieved)
        length = runs.length[keep]
        self.run = np.repeat(keep, length)  # the run of each rank
        first = np.cumsum(length) - length  # its first rank among these
        self.at = runs.start[self.run] + (
            np.arange(self.run.size) - np.repeat(first, length)
        )
        self.shape = (rk.n_queries, K)
        self.rank = (self.at % K + 1).astype(np.float64)
        self.group_start = (runs.start[self.run] % K + 1).astype(np.float64)
        self.group_size = runs.size[self.run]
        self.group_relevant = runs.relevant[self.run]
        self._before = runs.before
        self._rk = rk

    @property
    def relevant_before(self):
        return self._before()[self.run]

    def sum_ranks(self, x):
        """``Ranking.sum_ranks`` of ``x`` at these ranks, 0 elsewhere."""
        out = np.zeros(self.shape)
        out.reshape(-1)[self.at] = x
        return self._rk.sum_ranks(out)


def _relevant_runs(rk):
    """:class:`_RelevantRuns` of ``rk`` at k=None with ties, else None."""
    if rk.k is not None:
        return None
    runs = rk.groups.runs()
    return None if runs is None else _RelevantRuns(rk, runs)


def _reciprocal_rank_values(rk):
    sparse = _relevant_runs(rk)
    if sparse is not None:
        return _sparse_reciprocal_rank_values(sparse)
    q = rk.no_hit_factors()
    survive = np.ones_like(q)  # P(no relevant item before rank i)
    np.cumprod(q[:, :-1], axis=1, out=survive[:, 1:])
    return rk.sum_ranks(survive * (1.0 - q) / rk.rank)


def _sparse_reciprocal_rank_values(ranks):
    # Ranking.no_hit_factors and the cumulative product above at the ranks
    # of relevant runs only: the factor is exactly 1 elsewhere, and a
    # product by 1 changes nothing, so the values are the same bit for bit.
    left = ranks.rank - ranks.group_start
    np.subtract(ranks.group_size, left, out=left)
    q = left - ranks.group_relevant
    np.maximum(left, 1.0, out=left)
    np.divide(q, left, out=q)
    np.clip(q, 0.0, 1.0, out=q)
    # the product of the factors before each rank of its query: a row of
    # factors per query, after a 1 and padded with 1s, multiplied in place
    n, K = ranks.shape
    row = ranks.at // K
    count = np.bincount(row, minlength=n)
    width = int(count.max(initial=0)) + 1
    first = np.cumsum(count) - count  # each row's first factor
    at = np.arange(1, row.size + 1) + (row * width - first[row])
    padded = np.ones((n, width))
    padded.reshape(-1)[at] = q
    np.multiply.accumulate(padded, axis=1, out=padded)
    survive = padded.reshape(-1)[at - 1]
    return ranks.sum_ranks(survive * (1.0 - q) / ranks.rank)


def _average_precision_values(rk, ap_denominator="relevant"):
    sparse = _relevant_runs(rk) if ap_denominator != "hits" else None
    # E[rel_i * hits@i] = (r/g) (h + 1 + (i - a)(r - 1)/(g - 1)), summed over
    # the ranks of relevant runs only when known (0 elsewhere)
    at = rk if sparse is None else sparse
    same_group_before = _divide(
        (at.rank - at.group_start) * (at.group_relevant - 1.0), at.group_size - 1.0
    )
    p_relevant = rk.p_relevant if sparse is None else at.group_relevant / at.group_size
    expected = p_relevant * (at.relevant_before + 1.0 + same_group_before)
    total = at.sum_ranks(expected / at.rank)
    denominator = rk.n_rel
    if ap_denominator == "min_k" and rk.k is not None:
        denominator = np.minimum(denominator, rk.cutoff)
    elif ap_denominator == "k":
        if rk.k is None:
            raise ValueError(
                "ap_denominator='k' divides by the cut-off (RecTools' "
                "MAP(divide_by_k=True)); give k an int."
            )
        denominator = rk.cutoff
    elif ap_denominator == "hits":
        # E[sum / hits] is not linear in the ranks: defined for one ordering.
        if (rk.group_size[rk.retrieved] > 1).any():
            raise ValueError(
                "ap_denominator='hits' divides by the relevant items found, "
                "which has no closed form over the orderings of tied items; "
                "use ties='input_order', 'pessimistic' or 'optimistic'."
            )
        denominator = rk.hits
    return _divide(total, denominator)


def _threshold_average_precision_values(rk):
    # scikit-learn's average_precision_score: a tie group is one threshold,
    # sum over groups of (r / R) * precision at the group's last rank.
    last = rk.group_start + rk.group_size - 1.0
    precision = _divide(rk.relevant_before + rk.group_relevant, last)
    return _divide(rk.sum_ranks(rk.p_relevant * precision), rk.n_rel)


def _dcg_values(rk, log_base=2.0, discount="log"):
    return _gain_sum(rk, rk.mean_gain, _discount(rk, log_base, discount))


def _ndcg_values(rk, log_base=2.0, discount="log", ideal="relevant"):
    weights = _discount(rk, log_base, discount)
    dcg = _gain_sum(rk, rk.mean_gain, weights)
    if ideal == "relevant":
        return _divide(dcg, _gain_sum(rk, rk.ideal_gain, weights))
    # ideal="k": k items of the query's top grade (RecTools' default NDCG,
    # divide_by_achievable=False), whatever the query's relevant count and
    # the number of its items; k=None: every retrieved rank (rk.cutoff)
    cut = rk.cutoff.astype(np.intp)
    ranks = np.arange(1, int(cut.max(initial=0)) + 1, dtype=np.float64)
    prefix = np.concatenate(
        ([0.0], np.cumsum(_discount_of_ranks(ranks, log_base, discount)))
    )
    top = rk.ideal_gain[:, 0] if rk.ideal_gain.shape[1] else np.zeros(rk.n_queries)
    with np.errstate(over="ignore", invalid="ignore"):
        idcg = top * prefix[cut]
    if not np.isfinite(idcg).all():
        raise ValueError(
            f"The gains of the y_true grades overflow float64 with gain={rk.gain!r}"
            "; use smaller grades, or gain='linear'."
        )
    return _divide(dcg, idcg)


def _r_precision_values(rk):
    # Precision at the query's own cut-off R: ranks i <= R.
    if rk.k is not None and (rk.n_rel > rk.retrieved.shape[1]).any():
        raise ValueError(
            "R-precision reads the first R ranks of every query; this ranking "
            f"was built for k={rk.k} < R. Rank with k=None."
        )
    within = rk.rank <= rk.n_rel[:, None]
    # r_precision_score ranks at k = the largest R of all its queries, so
    # this width varies with the other queries: row_sum whatever k.
    return _divide(row_sum(rk.p_relevant * within), rk.n_rel)


def _fallout_values(rk, n_negatives):
    # Non-relevant items retrieved in the top k over the query's non-relevant
    # candidates (items scored above -inf: candidate_negatives); 0/0 where
    # every candidate is relevant, which the caller marks undefined.
    # every candidate negative retrieved is exactly n_negatives: the
    # difference of the expected counts can miss it by an ulp under ties
    retrieved = rk.retrieved.sum(axis=1)
    n_negatives = rk.of_queries(n_negatives)
    return _divide(np.clip(retrieved - rk.hits, 0, n_negatives), n_negatives)


def _hypergeometric_pgf(t, population, successes, draws):
    """E[t**X] for X ~ Hypergeometric(population, successes, draws), elementwise.

    A sum over the possible values x of X (a loop over x, not over queries).
    """
    t, N, S, n = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (t, population, successes, draws))
    )
    out = np.zeros(N.shape)
    if N.size == 0:
        return out
    from scipy.special import gammaln  # lazy: scipy.special costs ~0.2 s to import

    log_total = gammaln(N + 1) - gammaln(n + 1) - gammaln(N - n + 1)
    with np.errstate(divide="ignore"):
        log_t = np.log(t)
    for x in range(int(np.minimum(n, S).max()) + 1):
        ok = (x <= S) & (x <= n) & (n - x <= N - S)
        log_p = (
            gammaln(S + 1)
            - gammaln(x + 1)
            - gammaln(np.maximum(S - x, 0) + 1)
            + gammaln(N - S + 1)
            - gammaln(np.maximum(n - x, 0) + 1)
            - gammaln(np.maximum(N - S - n + x, 0) + 1)
            - log_total
        )
        power = np.where(x == 0, 0.0, x * log_t)
        out += np.where(ok, np.exp(np.where(ok, log_p + power, -np.inf)), 0.0)
    return out


def _err_values(rk, max_grade=None):
    # Chapelle et al. (2009): the user stops at rank i with probability
    # rho_i = (2**grade_i - 1) / 2**max_grade, having not stopped before.
    if rk.gain != "exponential":
        raise ValueError(
            "ERR reads exponential gains 2**grade - 1; rank with gain='exponential'."
        )
    # 2**(largest grade) - 1, over every query even if rk holds some
    top = rk.max_gain
    if top is None:
        top = float(rk.ideal_gain.max(initial=0.0))
    scale = top + 1.0 if max_grade is None else 2.0**max_grade
    if top >= scale:
        raise ValueError(
            f"max_grade={max_grade} is below the largest grade of y_true; "
            "pass max_grade >= every grade (or None: the largest grade)."
        )
    # In a tie group of g items, r of them relevant (grade > 0), every
    # relevant item gets the group's mean stop probability rho (exact when
    # they share one grade).  The item at position j = i - a of the group
    # is relevant with probability r / g and then stops the user with
    # probability rho * E[(1 - rho)**X], X ~ Hypergeometric(g - 1, r - 1, j)
    # the relevant items among the j before it.
    g, r = rk.group_size, rk.group_relevant
    rho = _divide(rk.mean_gain * g, r * scale)
    j = rk.rank - rk.group_start
    not_first = np.ones_like(rho)
    tied = rk.retrieved & (r > 1) & (j > 0)
    not_first[tied] = _hypergeometric_pgf(
        1.0 - rho[tied], g[tied] - 1, r[tied] - 1, j[tied]
    )
    stop = rk.p_relevant * rho * not_first
    # The user passes a whole group with probability (1 - rho)**r; the
    # product over earlier groups is the chance of reaching this one.
    last = rk.rank == rk.group_start + g - 1
    through = np.where(last & rk.retrieved, (1.0 - rho) ** r, 1.0)
    reach = np.ones_like(through)
    np.cumprod(through[:, :-1], axis=1, out=reach[:, 1:])
    return rk.sum_ranks(reach * stop / rk.rank)


def _rbp_weights(rk, persistence):
    """(1 - p) p**(i - 1) for the ranks 1..K."""
    return (1.0 - persistence) * persistence ** (rk.rank - 1.0)


RBP_GAINS = ("binary", "max_normalized", "raw")
PRECISION_DENOMINATORS = ("k", "retrieved", "min_k")
AP_DENOMINATORS = ("relevant", "min_k", "hits", "k")
IDEAL_RULES = ("relevant", "k")


def _rbp_values(rk, persistence=0.8, rbp_gain="binary"):
    if rbp_gain == "binary":
        return rk.sum_ranks(rk.p_relevant * _rbp_weights(rk, persistence))
    if rk.gain != "linear" or rk.ideal_gain is None:
        # the binary rule needs neither: the kernel's callers build them
        # only for rank_biased_precision_at_k's graded rules
        raise ValueError(
            f"rbp_gain={rbp_gain!r} reads the grades and each query's top "
            "grade: rank with gain='linear' and the ideal ranking."
        )
    # the expected grade at each rank (linear in the grades: exact with ties)
    total = rk.sum_ranks(rk.mean_gain * _rbp_weights(rk, persistence))
    if rbp_gain == "raw":
        return total
    return _divide(total, rk.ideal_gain[:, 0])  # the query's top grade


def _rbp_residual_values(rk, persistence=0.8):
    # The weight of the ranks the evaluation did not see: past the cut-off,
    # or past the end of a shorter retrieved list.
    return persistence ** rk.retrieved.sum(axis=1, dtype=np.float64)


def _bpref_values(rk, n_items):
    # Buckley and Voorhees (2004), as trec_eval: each retrieved relevant item
    # scores 1 - min(n, R) / min(R, N), n being the non-relevant items
    # ranked above it, N all the query's non-relevant items.  In a tie group
    # with m non-relevant items, the number of them above a given relevant
    # item is uniform on 0..m, so E[min(b + Y, R)] has a closed form (b:
    # non-relevant items of earlier groups).
    if rk.k is not None:
        raise ValueError("bpref reads the whole ranking; rank with k=None.")
    R = rk.n_rel[:, None]
    D = np.minimum(R, (rk.of_queries(n_items) - rk.n_rel)[:, None])
    before = rk.group_start - 1.0 - rk.relevant_before
    m = rk.group_size - rk.group_relevant
    below_cap = np.clip(R - before, 0.0, m + 1.0)  # values y with b + y < R
    total = below_cap * before + below_cap * (below_cap - 1.0) / 2.0
    total += (m + 1.0 - below_cap) * R
    penalty = _divide(total / (m + 1.0), D)
    return _divide(rk.sum_ranks(rk.p_relevant * (1.0 - penalty)), rk.n_rel)


class Kernel(NamedTuple):
    """How one metric reads a :class:`~sklearn_rankmetrics._engine._rank.Ranking`.

    ``values(rk, **options)`` gives one value per query; the query is
    defined where its count ``defined_by`` is above 0
    (:func:`query_defined`; :data:`UNDEFINED_WHEN` says what a query
    lacks when it is 0): ``"n_rel"`` its relevant items (R),
    ``"n_pos"`` its items with a grade above 0 (the ideal DCG is 0
    without one), ``"n_negatives"`` its non-relevant candidates (the
    fall-out denominator).  ``no_relevant=`` says what becomes of the
    undefined queries, for every metric alike.  ``needs_ideal`` asks
    :func:`rank` for the ideal gains (a bool, or a
    callable of the kernel's options, e.g. graded RBP); ``options`` are
    the keyword options ``values`` takes.  ``requires`` names what else
    the kernel needs from its caller:

    - "whole_list": a ranking built with ``k=None`` (R-precision, bpref);
      the kernel takes no cut-off.
    - "n_items": the keyword argument ``n_items``, the number of items of
      each query retrieved or not (:func:`items_per_query`).
    - "n_negatives": the keyword argument ``n_negatives``, the number of
      non-relevant candidates of each query (:func:`candidate_negatives`).
    - "exponential_gain": a ranking built with ``gain="exponential"`` and
      no relevance threshold (ERR's stop probabilities).
    """

    values: Callable
    defined_by: str
    needs_ideal: bool | Callable = False
    options: tuple = ()
    requires: tuple = ()


# What a query lacks when a kernel's ``defined_by`` count is 0: the words of
# the error under no_relevant="raise" and of the docs' table.
UNDEFINED_WHEN = {
    "n_rel": "no relevant item",
    "n_pos": "no relevant item (no grade above 0)",
    "n_negatives": "no non-relevant candidate (every item scored above -inf is "
    "relevant)",
}


def query_defined(kernel, rk, inputs=None):
    """Where each query of ``rk`` is defined for ``kernel``: its
    ``defined_by`` count is above 0.  The count is a field of the ranking
    (``n_rel``, ``n_pos``), or one of the kernel's inputs (``inputs``,
    e.g. ``{"n_negatives": ...}``, one value per query of the input)."""
    if inputs is not None and kernel.defined_by in inputs:
        return np.asarray(rk.of_queries(inputs[kernel.defined_by])) > 0
    return getattr(rk, kernel.defined_by) > 0


def _gain_sum(rk, gains, discount):
    """Discounted sum of each row of ``gains`` (of the ranking ``rk``);
    ValueError if it overflows."""
    gain = rk.gain
    with np.errstate(over="ignore", invalid="ignore"):
        total = rk.sum_ranks(gains * discount)
    if not np.isfinite(total).all():
        raise ValueError(
            f"The gains of the y_true grades overflow float64 with gain={gain!r}"
            " (2**rel - 1 is infinite for grades >= 1024 with 'exponential'); "
            "use smaller grades, or gain='linear'."
        )
    return total


def _graded_rbp(rbp_gain="binary", **_):
    """Graded RBP reads each query's top grade: the ideal ranking."""
    return rbp_gain != "binary"


# ---------------------------------------------------------------------------
# The kernel of each metric, read by its public function (_ranking.py, through
# _driver.metric_value) and by its MetricSpec in the registry.
# ---------------------------------------------------------------------------
PRECISION_KERNEL = Kernel(
    _precision_values, "n_rel", options=("precision_denominator",)
)
RECALL_KERNEL = Kernel(_recall_values, "n_rel")
FBETA_KERNEL = Kernel(_fbeta_values, "n_rel", options=("beta",))
F1_KERNEL = Kernel(_fbeta_values, "n_rel")  # beta = 1, not an option
HIT_RATE_KERNEL = Kernel(_hit_rate_values, "n_rel")
RECIPROCAL_RANK_KERNEL = Kernel(_reciprocal_rank_values, "n_rel")
AVERAGE_PRECISION_KERNEL = Kernel(
    _average_precision_values, "n_rel", options=("ap_denominator",)
)
# average_precision_at_k(ties="threshold"): scikit-learn's rule, whole list
THRESHOLD_AVERAGE_PRECISION_KERNEL = Kernel(
    _threshold_average_precision_values, "n_rel"
)
DCG_KERNEL = Kernel(_dcg_values, "n_pos", options=("log_base", "discount"))
NDCG_KERNEL = Kernel(
    _ndcg_values, "n_pos", needs_ideal=True, options=("log_base", "discount", "ideal")
)
R_PRECISION_KERNEL = Kernel(_r_precision_values, "n_rel", requires=("whole_list",))
# defined by an input, the non-relevant candidates of each query
FALLOUT_KERNEL = Kernel(_fallout_values, "n_negatives", requires=("n_negatives",))
ERR_KERNEL = Kernel(
    _err_values,
    "n_pos",
    needs_ideal=True,
    options=("max_grade",),
    requires=("exponential_gain",),
)
RBP_KERNEL = Kernel(
    _rbp_values, "n_rel", needs_ideal=_graded_rbp, options=("persistence", "rbp_gain")
)
RBP_RESIDUAL_KERNEL = Kernel(_rbp_residual_values, "n_rel", options=("persistence",))
BPREF_KERNEL = Kernel(_bpref_values, "n_rel", requires=("whole_list", "n_items"))
