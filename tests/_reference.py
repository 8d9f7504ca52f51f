"""Slow, obvious reference implementations of every metric (dense 2-D form).

Written from the definitions in SPEC.md, one query at a time, with plain
Python loops over the query's ranked list.  Nothing here is vectorised or
clever, so that each function can be checked by reading it.

Every ``naive_*`` function has the signature of the library function of the
same name.  Ties:

* ``ignore_ties=True``: tied items are ordered by column (earlier first).
* ``ignore_ties=False``: the value is the *average over every ordering of
  the tied items*, obtained by enumerating them (``itertools.permutations``
  of each tie group; only the part of the orderings that reaches the top k,
  see :func:`tie_orderings`).  This is the brute-force check of the
  library's closed forms, so keep the tie groups small.
"""

import functools
import itertools
import math
import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

__all__ = [
    "METRIC_NAMES",
    "NAIVE",
    "NAIVE_MORE",
    "auc_of_row",
    "naive_average_precision_at_k",
    "naive_bpref_score",
    "naive_dcg_at_k",
    "naive_expected_reciprocal_rank_at_k",
    "naive_f1_at_k",
    "naive_fallout_at_k",
    "naive_fbeta_at_k",
    "naive_group_auc_score",
    "naive_hit_rate_at_k",
    "naive_ndcg_at_k",
    "naive_precision_at_k",
    "naive_r_precision_score",
    "naive_rank_biased_precision_at_k",
    "naive_rbp_residual_at_k",
    "naive_recall_at_k",
    "naive_reciprocal_rank_at_k",
    "naive_success_at_k",
    "query_value",
    "random_case",
    "random_weights",
    "tie_broken_order",
    "tie_orderings",
]

# Refuse to enumerate more orderings than this for one query: a test that
# needs more is badly designed (too many ties), not a slow test.
MAX_ORDERINGS = 50_000


# ---------------------------------------------------------------------------
# Ranked lists
# ---------------------------------------------------------------------------
def _tie_groups(score_row):
    """Retrieved columns grouped by equal score, best score first.

    Inside a group the columns are in increasing order.  Items scored
    ``-inf`` are not retrieved and belong to no group.
    """
    by_score = {}
    for col, s in enumerate(score_row):
        s = float(s)
        if s == -math.inf:
            continue
        by_score.setdefault(s, []).append(col)
    return [by_score[s] for s in sorted(by_score, reverse=True)]


def tie_broken_order(score_row):
    """The ranked list with ties broken by position (earlier column first)."""
    order = []
    for group in _tie_groups(score_row):
        order.extend(group)
    return order


def tie_orderings(score_row, k=None):
    """Ranked lists over the orderings of the items inside tie groups.

    With ``k=None``: every ordering of every tie group, each once.

    With an int ``k``, only the top k ranks are enumerated: a group wholly
    inside the top k is fully permuted; for the group cut by k, which
    holds s ranks of the top k, every *ordered choice* of s of its items
    (``itertools.permutations(group, s)``) fills those ranks, its other
    items following in column order; groups below the cut keep column
    order.  Under a uniformly random ordering of a group, the items on its
    first s ranks are a uniformly random ordered s-choice, so the average
    over these lists of any metric that only reads the top k (and the
    number of retrieved items) is the same exact expectation, with far
    fewer lists when a large tie group crosses the cut.
    """
    groups = _tie_groups(score_row)
    per_group = []  # for each group: its possible arrangements
    n_orderings = 1
    start = 0  # rank - 1 of the group's first item
    for group in groups:
        if k is None or start + len(group) <= k:
            per_group.append(itertools.permutations(group))
            n_orderings *= math.factorial(len(group))
        elif start < k:
            s = k - start

            def arrangements(group=group, s=s):
                for head in itertools.permutations(group, s):
                    yield head + tuple(c for c in group if c not in head)

            per_group.append(arrangements())
            n_orderings *= math.perm(len(group), s)
        else:
            per_group.append([tuple(group)])
        start += len(group)
    if n_orderings > MAX_ORDERINGS:
        raise RuntimeError(
            f"{n_orderings} tie orderings: use fewer ties in this test case."
        )
    for choice in itertools.product(*per_group):
        order = []
        for group in choice:
            order.extend(group)
        yield order


@functools.lru_cache(maxsize=4096)
def _all_orderings(score_row, k):
    """Cached ``list(tie_orderings(score_row, k))`` (the tests reuse rows)."""
    return tuple(tuple(order) for order in tie_orderings(score_row, k))


# ---------------------------------------------------------------------------
# One query, one ranked list
# ---------------------------------------------------------------------------
def _is_relevant(grade, threshold):
    if threshold is None:
        return grade > 0
    return grade >= threshold


def _gain(grade, gain):
    if isinstance(gain, dict):
        return 0.0 if grade == 0 else float(gain[grade])
    if isinstance(gain, (list, tuple)):
        return float(gain[int(grade)])
    if callable(gain):
        return float(gain(np.array([grade]))[0])
    if gain == "linear":
        return float(grade)
    return 2.0 ** float(grade) - 1.0


def _discount(rank, log_base, discount="log"):
    """1 / log_b(rank + 1), 1 / rank, or the user's discount(ranks)."""
    if discount == "log":
        return 1.0 / math.log(rank + 1, log_base)
    if discount == "reciprocal":
        return 1.0 / rank
    return float(discount(np.array([float(rank)]))[0])


def _ordered_ties(rel, score, worst_first):
    """The ranked list with each tie group sorted by grade: increasing
    (pessimistic) or decreasing (optimistic), then by column."""
    order = []
    for group in _tie_groups(score):
        sign = 1.0 if worst_first else -1.0
        order.extend(sorted(group, key=lambda c: (sign * rel[c], c)))
    return order


def _one_ranking(name, rel, order, opts):
    """Metric value of one query for one ranked list ``order``.

    ``rel`` are the grades of all the query's items (by column); ``order``
    the retrieved columns, best first.  Returns ``(value, hits, cutoff)``
    where ``hits`` and ``cutoff`` are the micro-average counts of P/R/F.
    """
    k = opts["k"]
    thr = opts["relevance_threshold"]
    top = order if k is None else order[:k]
    n_rel = sum(1 for grade in rel if _is_relevant(grade, thr))
    hits = sum(1 for col in top if _is_relevant(rel[col], thr))
    # P@k divides by k even when fewer than k items are retrieved; with
    # k=None it divides by the number of retrieved items.
    cutoff = len(order) if k is None else k
    if opts["precision_denominator"] == "retrieved":
        cutoff = len(top)  # min(k, number of retrieved items)

    precision = hits / cutoff if cutoff > 0 else 0.0
    recall = hits / n_rel if n_rel > 0 else 0.0
    if name == "precision_at_k":
        value = precision
    elif name == "recall_at_k":
        value = recall
    elif name in ("fbeta_at_k", "f1_at_k"):
        b2 = opts["beta"] ** 2
        if precision == 0 and recall == 0:
            value = 0.0
        else:
            value = (1 + b2) * precision * recall / (b2 * precision + recall)
    elif name == "hit_rate_at_k":
        value = 1.0 if hits > 0 else 0.0
    elif name == "reciprocal_rank_at_k":
        value = 0.0
        for i, col in enumerate(top, start=1):
            if _is_relevant(rel[col], thr):
                value = 1.0 / i
                break
    elif name == "average_precision_at_k":
        total = 0.0
        hits_so_far = 0
        for i, col in enumerate(top, start=1):
            if _is_relevant(rel[col], thr):
                hits_so_far += 1
                total += hits_so_far / i  # precision at rank i
        if opts["ap_denominator"] == "min_k" and k is not None:
            denominator = min(n_rel, k)
        else:
            denominator = n_rel
        value = total / denominator if denominator > 0 else 0.0
    elif name in ("dcg_at_k", "ndcg_at_k"):
        dcg = 0.0
        for i, col in enumerate(top, start=1):
            dcg += _gain(rel[col], opts["gain"]) * _discount(
                i, opts["log_base"], opts["discount"]
            )
        if name == "dcg_at_k":
            value = dcg
        else:
            # Ideal ranking: ALL the query's grades (retrieved or not),
            # sorted decreasingly, cut at k.
            ideal = sorted(rel, reverse=True)
            if k is not None:
                ideal = ideal[:k]
            idcg = 0.0
            for i, grade in enumerate(ideal, start=1):
                idcg += _gain(grade, opts["gain"]) * _discount(
                    i, opts["log_base"], opts["discount"]
                )
            value = dcg / idcg if idcg > 0 else 0.0
    elif name == "r_precision_score":
        # k = R: the enumeration in query_value already stops at rank R.
        first = order[:n_rel]
        found = sum(1 for col in first if _is_relevant(rel[col], thr))
        value = found / n_rel if n_rel > 0 else 0.0
    elif name == "fallout_at_k":
        # the non-relevant candidates: retrieved (scored above -inf) items
        n_nonrel = sum(1 for col in order if not _is_relevant(rel[col], thr))
        value = (len(top) - hits) / n_nonrel if n_nonrel > 0 else 0.0
    elif name == "success_at_k":
        value = 1.0 if hits > 0 else 0.0
    elif name == "expected_reciprocal_rank_at_k":
        value = 0.0
        not_stopped = 1.0
        for i, col in enumerate(top, start=1):
            stop = opts["stop_probability"][col]
            value += not_stopped * stop / i
            not_stopped *= 1.0 - stop
    elif name == "rank_biased_precision_at_k":
        p = opts["persistence"]
        value = 0.0
        for i, col in enumerate(top, start=1):
            if _is_relevant(rel[col], thr):
                value += (1.0 - p) * p ** (i - 1)
    elif name == "rbp_residual_at_k":
        value = opts["persistence"] ** len(top)
    elif name == "bpref_score":
        # trec_eval's loop: every item is judged.
        n_nonrel = len(rel) - n_rel
        nonrel_so_far = 0
        total = 0.0
        for col in order:
            if _is_relevant(rel[col], thr):
                if nonrel_so_far > 0:
                    total += 1.0 - min(nonrel_so_far, n_rel) / min(n_rel, n_nonrel)
                else:
                    total += 1.0
            else:
                nonrel_so_far += 1
        value = total / n_rel if n_rel > 0 else 0.0
    else:
        raise ValueError(name)
    return value, hits, cutoff


def _stop_probabilities(rel, score, max_grade, rule):
    """ERR's stop probability (2**g - 1) / 2**max_grade of each item.

    With ``rule="group_mean"`` (the library's documented tie rule for
    graded ERR), the relevant items of each tie group get the mean stop
    probability of the group's relevant items.
    """
    stop = [(2.0 ** float(g) - 1.0) / 2.0**max_grade for g in rel]
    if rule == "group_mean":
        for group in _tie_groups(score):
            positive = [c for c in group if rel[c] > 0]
            if positive:
                mean = math.fsum(stop[c] for c in positive) / len(positive)
                for c in positive:
                    stop[c] = mean
    return stop


def _defined(name, rel, score, opts):
    """Is the metric defined: has the query a relevant item (for fall-out,
    a non-relevant candidate: an item scored above -inf)?"""
    if name in ("dcg_at_k", "ndcg_at_k", "expected_reciprocal_rank_at_k"):
        return any(grade > 0 for grade in rel)
    if name == "fallout_at_k":
        return any(
            not _is_relevant(g, opts["relevance_threshold"]) and s != -math.inf
            for g, s in zip(rel, score, strict=True)
        )
    return any(_is_relevant(grade, opts["relevance_threshold"]) for grade in rel)


def query_value(name, rel, score, **opts):
    """(value, expected hits, cutoff, R) of one query, ties per ``opts``."""
    opts = _full_opts(opts)
    rel = [float(x) for x in rel]
    n_rel = sum(1 for g in rel if _is_relevant(g, opts["relevance_threshold"]))
    depth = opts["k"]
    if name == "r_precision_score":
        depth = max(n_rel, 1)
    elif name == "bpref_score":
        depth = None
    if name == "expected_reciprocal_rank_at_k":
        max_grade = opts["max_grade"]
        if max_grade is None:
            max_grade = max(rel)
        opts["stop_probability"] = _stop_probabilities(
            rel, score, max_grade, opts["err_rule"]
        )
    if opts["ties"] in ("pessimistic", "optimistic"):
        orderings = [_ordered_ties(rel, score, opts["ties"] == "pessimistic")]
    elif opts["ignore_ties"] or opts["ties"] == "input_order":
        orderings = [tie_broken_order(score)]
    else:
        orderings = _all_orderings(tuple(float(s) for s in score), depth)
    results = [_one_ranking(name, rel, order, opts) for order in orderings]
    value = math.fsum(r[0] for r in results) / len(results)
    hits = math.fsum(r[1] for r in results) / len(results)
    cutoff = results[0][2]  # the same for every ordering
    return value, hits, cutoff, n_rel


_DEFAULTS = {
    "k": None,
    "relevance_threshold": None,
    "beta": 1.0,
    "gain": "linear",
    "log_base": 2,
    "ap_denominator": "relevant",
    "ignore_ties": False,
    "ties": None,
    "precision_denominator": "k",
    "discount": "log",
    "persistence": 0.8,
    "max_grade": None,
    # ERR with graded ties: "exact" brute force, or the library's rule
    # "group_mean" (see _stop_probabilities).
    "err_rule": "exact",
}


def _full_opts(opts):
    out = dict(_DEFAULTS)
    out.update(opts)
    return out


# ---------------------------------------------------------------------------
# Averaging over queries
# ---------------------------------------------------------------------------
def _undefined():
    warnings.warn("no query could be scored", UndefinedMetricWarning, stacklevel=3)
    return math.nan


def _weighted_mean(values, weights):
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if not math.isnan(v)]
    total = math.fsum(w for _, w in pairs)
    if total == 0:
        return _undefined()
    return math.fsum(v * w for v, w in pairs) / total


def _naive(
    name,
    y_true,
    y_score,
    *,
    no_relevant="skip",
    sample_weight=None,
    average="queries",
    **opts,
):
    y_true = np.asarray(y_true, dtype=np.float64)
    y_score = np.asarray(y_score, dtype=np.float64)
    n_queries = y_true.shape[0]
    weights = [1.0] * n_queries if sample_weight is None else list(sample_weight)
    full = _full_opts(opts)
    if name == "expected_reciprocal_rank_at_k" and full["max_grade"] is None:
        opts = {**opts, "max_grade": float(y_true.max())}

    values, hits, cutoffs, n_rels, defined = [], [], [], [], []
    for q in range(n_queries):
        v, h, c, r = query_value(name, list(y_true[q]), list(y_score[q]), **opts)
        values.append(v)
        hits.append(h)
        cutoffs.append(c)
        n_rels.append(r)
        defined.append(_defined(name, list(y_true[q]), list(y_score[q]), full))

    if no_relevant == "raise" and not all(defined):
        raise ValueError("a query has no relevant item")

    if average == "micro":
        # Pooled counts: sum of weighted hits over the sum of weighted k
        # (precision) or R (recall).  "skip" pools the defined queries
        # only; a number keeps every query's counts.
        w_sum = h = c = r = 0.0
        for q in range(n_queries):
            if defined[q] or no_relevant != "skip":
                w_sum += weights[q]
                h += weights[q] * hits[q]
                c += weights[q] * cutoffs[q]
                r += weights[q] * n_rels[q]
        if w_sum == 0:
            return _undefined()
        precision = h / c if c > 0 else 0.0
        recall = h / r if r > 0 else 0.0
        if name == "precision_at_k":
            return precision
        if name == "recall_at_k":
            return recall
        b2 = full["beta"] ** 2
        if precision == 0 and recall == 0:
            return 0.0
        return (1 + b2) * precision * recall / (b2 * precision + recall)

    per_query = []
    for v, d in zip(values, defined, strict=True):
        if d:
            per_query.append(v)
        elif no_relevant == "skip":
            per_query.append(math.nan)
        else:
            per_query.append(float(no_relevant))
    if average is None:
        return np.array(per_query)
    return _weighted_mean(per_query, weights)


def _make(name):
    def naive(y_true, y_score, **kwargs):
        return _naive(name, y_true, y_score, **kwargs)

    naive.__name__ = "naive_" + name
    return naive


naive_precision_at_k = _make("precision_at_k")
naive_recall_at_k = _make("recall_at_k")
naive_fbeta_at_k = _make("fbeta_at_k")
naive_f1_at_k = _make("f1_at_k")
naive_hit_rate_at_k = _make("hit_rate_at_k")
naive_reciprocal_rank_at_k = _make("reciprocal_rank_at_k")
naive_average_precision_at_k = _make("average_precision_at_k")
naive_dcg_at_k = _make("dcg_at_k")
naive_ndcg_at_k = _make("ndcg_at_k")
naive_r_precision_score = _make("r_precision_score")
naive_fallout_at_k = _make("fallout_at_k")
naive_success_at_k = _make("success_at_k")
naive_expected_reciprocal_rank_at_k = _make("expected_reciprocal_rank_at_k")
naive_rank_biased_precision_at_k = _make("rank_biased_precision_at_k")
naive_rbp_residual_at_k = _make("rbp_residual_at_k")
naive_bpref_score = _make("bpref_score")


# ---------------------------------------------------------------------------
# Group AUC
# ---------------------------------------------------------------------------
def auc_of_row(rel, score, relevance_threshold=None):
    """Mann-Whitney AUC of one row, a tie counting 1/2; nan without a
    positive or without a candidate negative.  The candidate rule: a
    negative scored -inf is not a candidate and is left out; a positive
    scored -inf stays (it loses to every candidate negative)."""
    pos = [
        s
        for g, s in zip(rel, score, strict=True)
        if _is_relevant(g, relevance_threshold)
    ]
    neg = [
        s
        for g, s in zip(rel, score, strict=True)
        if not _is_relevant(g, relevance_threshold) and s != -math.inf
    ]
    if not pos or not neg:
        return math.nan
    wins = 0.0
    for sp in pos:
        for sn in neg:
            if sp > sn:
                wins += 1.0
            elif sp == sn:
                wins += 0.5
    return wins / (len(pos) * len(neg))


def naive_group_auc_score(
    y_true,
    y_score,
    *,
    relevance_threshold=None,
    query_weighting="impressions",
    sample_weight=None,
    average="queries",
):
    y_true = np.asarray(y_true, dtype=np.float64)
    y_score = np.asarray(y_score, dtype=np.float64)
    n_queries, n_items = y_true.shape
    aucs = [
        auc_of_row(list(y_true[q]), list(y_score[q]), relevance_threshold)
        for q in range(n_queries)
    ]
    if average is None:
        return np.array(aucs)
    # DIN: a query weighs its number of impressions, the items the AUC
    # reads (positives and candidate negatives); times the query's sample
    # weight.
    weights = [
        float(
            sum(
                _is_relevant(g, relevance_threshold) or s != -math.inf
                for g, s in zip(y_true[q], y_score[q], strict=True)
            )
        )
        if query_weighting == "impressions"
        else 1.0
        for q in range(n_queries)
    ]
    if sample_weight is not None:
        weights = [b * float(w) for b, w in zip(weights, sample_weight, strict=True)]
    return _weighted_mean(aucs, weights)


NAIVE = {
    "precision_at_k": naive_precision_at_k,
    "recall_at_k": naive_recall_at_k,
    "fbeta_at_k": naive_fbeta_at_k,
    "f1_at_k": naive_f1_at_k,
    "hit_rate_at_k": naive_hit_rate_at_k,
    "reciprocal_rank_at_k": naive_reciprocal_rank_at_k,
    "average_precision_at_k": naive_average_precision_at_k,
    "dcg_at_k": naive_dcg_at_k,
    "ndcg_at_k": naive_ndcg_at_k,
    "group_auc_score": naive_group_auc_score,
}

METRIC_NAMES = tuple(NAIVE)

# The metrics of issue 12, kept apart because their signatures differ
# (R-precision and bpref take no k; ERR's graded ties follow a rule).
NAIVE_MORE = {
    "r_precision_score": naive_r_precision_score,
    "fallout_at_k": naive_fallout_at_k,
    "success_at_k": naive_success_at_k,
    "expected_reciprocal_rank_at_k": naive_expected_reciprocal_rank_at_k,
    "rank_biased_precision_at_k": naive_rank_biased_precision_at_k,
    "rbp_residual_at_k": naive_rbp_residual_at_k,
    "bpref_score": naive_bpref_score,
}


# ---------------------------------------------------------------------------
# Random test cases
# ---------------------------------------------------------------------------
def random_case(
    seed,
    n_queries,
    n_items,
    *,
    max_grade=3,
    score_levels=None,
    p_unretrieved=0.2,
    p_no_relevant=0.25,
    float_grades=False,
    p_posinf=0.0,
):
    """A random graded (y_true, y_score) pair of shape (n_queries, n_items).

    ``score_levels`` integer scores (many ties) or None for continuous
    scores; a fraction ``p_unretrieved`` of the scores is ``-inf`` (some of
    them on relevant items); about ``p_no_relevant`` of the rows have no
    relevant item.  ``float_grades`` gives grades in steps of 0.5.
    """
    rng = np.random.default_rng(seed)
    shape = (n_queries, n_items)
    if float_grades:
        grades = rng.integers(0, 2 * max_grade + 1, size=shape) / 2.0
    else:
        grades = rng.integers(0, max_grade + 1, size=shape)
    # Make about half of the entries irrelevant, as in real data.
    grades = np.where(rng.random(shape) < 0.5, 0, grades)
    grades[rng.random(n_queries) < p_no_relevant] = 0
    if score_levels is None:
        scores = rng.normal(size=shape)
    else:
        scores = rng.integers(0, score_levels, size=shape).astype(np.float64)
    scores[rng.random(shape) < p_unretrieved] = -np.inf
    scores[rng.random(shape) < p_posinf] = np.inf
    return grades, scores


def random_weights(seed, n_queries):
    """Non-negative query weights with at least one zero."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.0, 3.0, size=n_queries)
    w[rng.integers(n_queries)] = 0.0
    return w
