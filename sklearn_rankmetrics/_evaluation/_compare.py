"""Comparing rankers over queries: :func:`compare_rankings`.

The unit of everything here is the query: each model's per-query values
(:func:`~sklearn_rankmetrics._evaluation._per_query._per_query_report`) are averaged,
resampled and tested over queries, paired between models.  The statistics
are scipy's: :func:`scipy.stats.bootstrap` for the intervals,
:func:`scipy.stats.ttest_rel` and :func:`scipy.stats.wilcoxon` for the
paired tests, :func:`scipy.stats.false_discovery_control` for
Benjamini-Hochberg.  The paired randomization test is the sign-flip test of
``scipy.stats.permutation_test(..., permutation_type="samples")``, with the
same p-value definition, computed for every metric and pair at once from
one matrix of random signs (a matrix product); see
:func:`_sign_flip_pvalues` for why.
"""

import inspect
import numbers
import textwrap
import warnings

import numpy as np
import scipy.stats
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._averaging import weighted_mean
from .._utils._validation import check_option, user_stacklevel
from ._per_query import _per_query_report

__all__ = ["RankingComparison", "compare_rankings"]

_TESTS = ("permutation", "t-test", "wilcoxon")
_CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
_TEST_LABELS = {
    "permutation": "paired randomization (sign-flip) test",
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
}
_BATCH = 500  # resamples per batch at most ...


def _batch_size(n_queries):
    """... and fewer for many queries: a batch's (resamples, queries)
    float64 matrix stays under 64 MB."""
    return max(1, min(_BATCH, 8_000_000 // max(n_queries, 1)))


# ---------------------------------------------------------------------------
# Statistics (vectorised glue around scipy.stats)
# ---------------------------------------------------------------------------
def _scipy_rng_kwarg(func):
    """``rng`` (scipy >= 1.15) or ``random_state`` (older scipy)."""
    return "rng" if "rng" in inspect.signature(func).parameters else "random_state"


def _bootstrap_means(V, confidence_level, n_resamples, seed, W=None):
    """Percentile bootstrap intervals of the column means of ``V`` (n, c),
    every column resampled with the same query indices; weighted means
    with the query weights ``W`` (n, c) if given.

    One :func:`scipy.stats.bootstrap` call: the statistic receives resampled
    query *indices* and returns the means of every column, so its interval
    of column ``j`` equals ``bootstrap((V[:, j],), np.mean, ...)`` with a
    generator seeded the same way.
    """
    n = V.shape[0]
    VW = None if W is None else V * W

    def means(counts):
        if W is None:
            return counts @ V / n
        return (counts @ VW) / (counts @ W)

    def column_means(idx, axis=-1):
        idx = np.asarray(idx, dtype=np.intp)
        if idx.ndim == 1:
            return means(np.bincount(idx, minlength=n))
        b = idx.shape[0]
        counts = np.bincount((idx + n * np.arange(b)[:, None]).ravel(), minlength=b * n)
        return means(counts.reshape(b, n)).T

    kwargs = {_scipy_rng_kwarg(scipy.stats.bootstrap): np.random.default_rng(seed)}
    res = scipy.stats.bootstrap(
        (np.arange(n, dtype=np.float64),),
        column_means,
        n_resamples=n_resamples,
        batch=_batch_size(n),
        vectorized=True,
        confidence_level=confidence_level,
        method="percentile",
        **kwargs,
    )
    ci = res.confidence_interval
    return np.atleast_1d(ci.low), np.atleast_1d(ci.high)


def _sign_flip_pvalues(D, n_valid, n_resamples, seed):
    """Two-sided p-values of the paired randomization test of each column
    of the differences ``D`` (n, c; 0 where a query is dropped).

    The test of :func:`scipy.stats.permutation_test` with one sample and
    ``permutation_type="samples"``: under the null each query's difference
    is as likely to have either sign; the statistic is the mean difference
    over the ``n_valid`` paired queries (a weighted mean when ``D`` holds
    each query's weight times its difference and ``n_valid`` the sum of
    the weights); the p-value is twice the smaller
    tail, ``(count + 1) / (n_resamples + 1)`` per tail for random signs,
    and exact (every sign vector) when ``2**n <= n_resamples``, as scipy
    does, ``n`` counting the queries with a non-zero difference (the others
    do not move the statistic; scipy counts them in ``n``).

    scipy's ``permutation_test`` draws and applies one permutation per
    query and resample (about 2 microseconds per query-resample here, 20 s
    for 10,000 queries and 10,000 resamples, whatever the number of
    metrics); one matrix of random signs multiplied by ``D`` serves every
    metric and pair at once in a fraction of that.  ``tests/test_compare.py``
    checks the p-values equal scipy's in the exact case and agree with them
    within Monte Carlo error otherwise.
    """
    total = D.sum(axis=0)
    observed = total / n_valid
    # A query whose differences are all 0 (a dropped query, or one no model
    # pair changes) takes either sign without moving any statistic: leave
    # it out of the sign vectors.
    D = D[D.any(axis=1)]
    n, c = D.shape
    exact = n < 64 and 2**n <= n_resamples
    rng = np.random.default_rng(seed)
    gamma = np.maximum(1e-14, 1e-14 * np.abs(observed))
    below = np.zeros(c)
    above = np.zeros(c)
    n_null = 2**n if exact else n_resamples
    batch = _batch_size(n)
    for start in range(0, n_null, batch):
        size = min(batch, n_null - start)
        if exact:  # the bits of 0..2**n - 1: every sign vector
            codes = np.arange(start, start + size, dtype=np.int64)[:, None]
            flips = ((codes >> np.arange(n)) & 1).astype(np.float64)
        else:
            flips = rng.integers(0, 2, size=(size, n), dtype=np.int8)
            flips = flips.astype(np.float64)
        null = (total - 2.0 * (flips @ D)) / n_valid
        below += np.count_nonzero(null <= observed + gamma, axis=0)
        above += np.count_nonzero(null >= observed - gamma, axis=0)
    adjustment = 0 if exact else 1
    p = 2 * np.minimum(below + adjustment, above + adjustment)
    return observed, np.clip(p / (n_null + adjustment), 0.0, 1.0)


def _paired_test(test, a, b):
    """(statistic, p-value) of scipy's paired ``test`` of ``b`` against ``a``
    on the queries where both are defined (1-D arrays without nan)."""
    d = b - a
    if d.size == 0:
        return np.nan, np.nan
    if not d.any():  # identical rankings: no evidence of a difference
        return 0.0, 1.0
    if test == "t-test":
        if np.all(d == d[0]):  # zero variance: scipy returns nan and warns
            return np.copysign(np.inf, d[0]), 0.0
        res = scipy.stats.ttest_rel(b, a)
    else:
        res = scipy.stats.wilcoxon(b, a)
    return float(res.statistic), float(res.pvalue)


def _holm(p):
    """Holm's step-down adjusted p-values (vectorised)."""
    m = p.shape[0]
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _benjamini_hochberg(p):
    """Benjamini-Hochberg adjusted p-values: scipy's
    ``false_discovery_control`` (scipy >= 1.11), else the same formula."""
    if hasattr(scipy.stats, "false_discovery_control"):
        return scipy.stats.false_discovery_control(p, method="bh")
    m = p.shape[0]
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def adjust_pvalues(p, method):
    """p-values adjusted for testing them together (nan entries ignored)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if method is None or not ok.any():
        out[ok] = p[ok]
        return out
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(q * q.shape[0], 1.0)
    elif method == "holm":
        out[ok] = _holm(q)
    else:
        out[ok] = _benjamini_hochberg(q)
    return out


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------
class RankingComparison:
    """The result of :func:`compare_rankings`: one row per metric and model.

    Printing it gives a table in the style of ranx's ``compare``: each
    model has a letter, and a model's row lists the letters of the models
    it beats significantly (after the multiple-comparison correction).

    Attributes
    ----------
    models : list of str
        The model names, in the order given; ``letters`` labels them.
    metrics : list of str
        Scorer names, such as ``"ndcg@10"``.
    baseline : str or None
        The reference model, or None when every pair is tested.
    mean, ci_low, ci_high : ndarray of shape (n_models, n_metrics)
        Mean over the queries where the metric is defined, and the
        bootstrap confidence interval of that mean.
    n_queries : ndarray of shape (n_models, n_metrics)
        Queries entering each mean.
    pairs : list of (str, str)
        Tested pairs ``(model, reference)``: the difference is
        ``model - reference``.
    difference, statistic, pvalue, pvalue_corrected : ndarray of shape \
(n_pairs, n_metrics)
        Mean paired difference over the queries defined for both, the test
        statistic (the mean difference for the randomization test), its
        two-sided p-value, and the p-value corrected across the pairs of
        each metric.
    n_paired : ndarray of shape (n_pairs, n_metrics)
        Queries entering each paired test.
    significant : ndarray of bool, shape (n_pairs, n_metrics)
        ``pvalue_corrected < alpha``.
    per_query_values : dict of str to ndarray of shape (n_queries, n_metrics)
        Each model's per-query values (nan: skipped), rows in the order of
        ``query_id``.  (Named ``per_query`` before 0.2: that name, which
        elsewhere asks for per-query output, is deprecated.)
    query_weights : dict of str to ndarray of shape (n_queries, n_metrics)
        Each model's query weights: 1, except GAUC's under its
        ``query_weighting`` (as :func:`ranking_report` weighs them).
    query_id : ndarray of shape (n_queries,)
        Long form: ``np.unique(query_id)``; 2-D: the row numbers.
    """

    def __init__(self, **fields):
        for name, value in fields.items():
            setattr(self, name, value)

    @property
    def per_query(self):
        """Deprecated alias of :attr:`per_query_values`."""
        warnings.warn(
            "RankingComparison.per_query is deprecated since 0.2 and will be "
            "removed in 0.4; use per_query_values (per_query= elsewhere asks "
            "for per-query output).",
            FutureWarning,
            stacklevel=user_stacklevel(),
        )
        return self.per_query_values

    @property
    def letters(self):
        """Letter of each model in the table: a, b, c, ..."""
        return [_letter(i) for i in range(len(self.models))]

    def wins(self):
        """``{(model, metric): [models it beats significantly]}``."""
        out = {(m, metric): [] for m in self.models for metric in self.metrics}
        for p, (model, ref) in enumerate(self.pairs):
            for j, metric in enumerate(self.metrics):
                if not self.significant[p, j]:
                    continue
                if self.difference[p, j] > 0:
                    out[model, metric].append(ref)
                elif self.difference[p, j] < 0:
                    out[ref, metric].append(model)
        return out

    def to_dict(self):
        """Nested plain dicts: ``{"summary": {metric: {model: {...}}},
        "tests": [{"model", "reference", "metric", ...}, ...], "settings"}``."""
        summary = {
            metric: {
                model: {
                    "mean": float(self.mean[i, j]),
                    "ci_low": float(self.ci_low[i, j]),
                    "ci_high": float(self.ci_high[i, j]),
                    "n_queries": int(self.n_queries[i, j]),
                }
                for i, model in enumerate(self.models)
            }
            for j, metric in enumerate(self.metrics)
        }
        tests = [
            {
                "model": model,
                "reference": ref,
                "metric": metric,
                "difference": float(self.difference[p, j]),
                "statistic": float(self.statistic[p, j]),
                "pvalue": float(self.pvalue[p, j]),
                "pvalue_corrected": float(self.pvalue_corrected[p, j]),
                "significant": bool(self.significant[p, j]),
                "n_paired": int(self.n_paired[p, j]),
            }
            for p, (model, ref) in enumerate(self.pairs)
            for j, metric in enumerate(self.metrics)
        ]
        settings = {
            "baseline": self.baseline,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
        }
        return {"summary": summary, "tests": tests, "settings": settings}

    def to_frame(self):
        """A :class:`pandas.DataFrame` indexed by (metric, model): mean,
        interval, queries, the models beaten, and with a baseline the
        difference and p-values against it."""
        import pandas as pd

        wins = self.wins()
        rows = []
        for j, metric in enumerate(self.metrics):
            for i, model in enumerate(self.models):
                row = {
                    "metric": metric,
                    "model": model,
                    "mean": self.mean[i, j],
                    "ci_low": self.ci_low[i, j],
                    "ci_high": self.ci_high[i, j],
                    "n_queries": self.n_queries[i, j],
                    "wins_over": ", ".join(wins[model, metric]),
                }
                if self.baseline is not None:
                    p = self._pair_index(model)
                    nan = p is None
                    row["difference"] = np.nan if nan else self.difference[p, j]
                    row["pvalue"] = np.nan if nan else self.pvalue[p, j]
                    row["pvalue_corrected"] = (
                        np.nan if nan else self.pvalue_corrected[p, j]
                    )
                rows.append(row)
        return pd.DataFrame(rows).set_index(["metric", "model"])

    def pairs_frame(self):
        """A :class:`pandas.DataFrame` of every pair tested, indexed by
        (metric, model, reference): the mean difference ``model -
        reference``, the statistic, raw and corrected p-values,
        significance and paired queries (``to_dict()["tests"]`` as a
        table)."""
        import pandas as pd

        frame = pd.DataFrame(self.to_dict()["tests"])
        return frame.set_index(["metric", "model", "reference"])

    def _pair_index(self, model):
        for p, (m, _) in enumerate(self.pairs):
            if m == model:
                return p
        return None

    def __repr__(self):
        return self.to_string()

    def __str__(self):
        return self.to_string()

    def to_string(self, digits=4):
        """The table as text (what ``print`` shows)."""
        wins = self.wins()
        letter = dict(zip(self.models, self.letters, strict=True))
        rows = []
        for j, metric in enumerate(self.metrics):
            for i, model in enumerate(self.models):
                ci = (
                    f"[{self.ci_low[i, j]:.{digits}f}, {self.ci_high[i, j]:.{digits}f}]"
                )
                row = [
                    metric if i == 0 else "",
                    f"{letter[model]} {model}",
                    f"{self.mean[i, j]:.{digits}f}",
                    ci,
                ]
                if self.baseline is not None:
                    p = self._pair_index(model)
                    if p is None:
                        row += ["", ""]
                    else:
                        row += [
                            f"{self.difference[p, j]:+.{digits}f}",
                            _format_p(self.pvalue_corrected[p, j]),
                        ]
                row.append("".join(letter[m] for m in wins[model, metric]))
                rows.append(row)
        level = f"{100 * self.confidence_level:g}% CI"
        header = ["metric", "model", "mean", level]
        if self.baseline is not None:
            p_label = "p" if self.correction is None else f"p ({self.correction})"
            header += [f"vs {self.baseline}", p_label]
        header.append("wins over")
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        right = {2, 4} if self.baseline is not None else {2}

        def fmt(r):
            cells = [
                r[c].rjust(widths[c]) if c in right else r[c].ljust(widths[c])
                for c in range(len(r))
            ]
            return "  ".join(cells).rstrip()

        lines = [fmt(header)] + [fmt(r) for r in rows]
        n = int(self.query_id.shape[0])
        corrected = (
            "no correction"
            if self.correction is None
            else f"{self.correction} correction across the {len(self.pairs)} "
            "pair(s) of each metric"
        )
        note = (
            f"{n} queries; mean and {level} (bootstrap) over the queries where "
            "the metric is defined. 'wins over': significantly better than "
            f"those models (two-sided {_TEST_LABELS[self.test]}, paired over "
            f"queries, {corrected}, alpha={self.alpha:g})."
        )
        lines += ["", *textwrap.wrap(note, 79)]
        if self.baseline is None:
            lines += ["", *self._pairs_lines(digits)]
        return "\n".join(lines)

    def _pairs_lines(self, digits):
        """Without a baseline: every pair's difference and p-values."""
        p_label = "p" if self.correction is None else f"p ({self.correction})"
        header = ["metric", "pair", "difference", "p", p_label]
        rows = [
            [
                metric if p == 0 else "",
                f"{model} - {ref}",
                f"{self.difference[p, j]:+.{digits}f}",
                _format_p(self.pvalue[p, j]),
                _format_p(self.pvalue_corrected[p, j]),
            ]
            for j, metric in enumerate(self.metrics)
            for p, (model, ref) in enumerate(self.pairs)
        ]
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(5)]
        return [
            "  ".join(
                r[c].rjust(widths[c]) if c >= 2 else r[c].ljust(widths[c])
                for c in range(5)
            ).rstrip()
            for r in [header, *rows]
        ]


def _letter(i):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]


def _format_p(p):
    if np.isnan(p):
        return "nan"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


# ---------------------------------------------------------------------------
# compare_rankings
# ---------------------------------------------------------------------------
def _check_scores(y_true, y_scores):
    from collections.abc import Mapping

    if not isinstance(y_scores, Mapping):
        raise TypeError(
            "y_scores must be a dict {model name: y_score} with at least two "
            f"models; got {type(y_scores).__name__}."
        )
    if len(y_scores) < 2:
        raise ValueError(
            f"compare_rankings needs at least two models in y_scores, got "
            f"{len(y_scores)}; for a single model use ranking_report."
        )
    shape = tuple(np.shape(y_true)) if not hasattr(y_true, "shape") else y_true.shape
    for name, score in y_scores.items():
        if not isinstance(name, str):
            raise TypeError(f"model names must be strings; got {name!r}.")
        s_shape = score.shape if hasattr(score, "shape") else np.shape(score)
        if tuple(s_shape) != tuple(shape):
            raise ValueError(
                f"y_scores[{name!r}] has shape {tuple(s_shape)} but y_true has "
                f"shape {tuple(shape)}; every model must score the same rows "
                "(the same queries and items) for a paired comparison."
            )


def _seed(random_state):
    """One integer seed from ``random_state`` (None: fresh entropy)."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy % 2**63)
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, (bool, np.bool_)
    ):
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or RandomState; "
        f"got {random_state!r}."
    )


def compare_rankings(
    y_true,
    y_scores=None,
    *,
    k=10,
    metrics=None,
    query_id=None,
    baseline=None,
    test="permutation",
    n_resamples=9999,
    n_bootstrap=1999,
    confidence_level=0.95,
    correction="holm",
    alpha=0.05,
    random_state=None,
    query_col=None,
    label_col=None,
    score_col=None,
    propensity_col=None,
    item_weight_col=None,
    tie_break_col=None,
    tie_break_ascending=True,
    **options,
):
    """Compare rankers over queries: means, bootstrap intervals, paired tests.

    Every model is scored on the same queries; each metric's per-query
    values are paired between models.  For each model and metric the
    table gives the mean over queries and a bootstrap confidence interval;
    for each pair of models (each model against ``baseline``, or every
    pair) a paired test over queries, with the p-values corrected for the
    several pairs tested on each metric.

    Read more in the :ref:`User Guide <reports>`.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
        Relevance grades, shared by all models.

    y_scores : dict of str to array-like
        ``{model name: y_score}``, at least two, each of the shape of
        ``y_true``: every model scores the same rows.  Align models scored
        on different candidate sets first (``-np.inf`` for an item a model
        did not retrieve).

    k : int or sequence of int, default=10
        Cut-off(s); every metric is evaluated at each.

    metrics : sequence of str, default=None
        Metric names as in :func:`ranking_report` (``"gauc"`` included).
        None: the default metrics of :func:`ranking_report` (the registry's
        one default set; ``"gauc"`` is among them in the long form).

    query_id : array-like of shape (n_rows,), default=None
        Query of each row of the long form; None for 2-D input.

    baseline : str, default=None
        Name of the reference model: every other model is tested against
        it.  None tests every pair.

    test : {"permutation", "t-test", "wilcoxon"}, default="permutation"
        The paired test over queries: the randomization (sign-flip) test of
        the mean difference, as :func:`scipy.stats.permutation_test` with
        ``permutation_type="samples"``; :func:`scipy.stats.ttest_rel`; or
        :func:`scipy.stats.wilcoxon`.  All two-sided.  Where every paired
        query differs by the same non-zero amount the t statistic is
        infinite: the t-test gives ``(+-inf, 0.0)`` (a certain difference),
        whatever the scipy version (some return nan and warn); where
        no query differs, ``(0.0, 1.0)``.

    n_resamples : int >= 1, default=9999
        Random sign vectors of the randomization test (``test=
        "permutation"``).  Its smallest possible p-value is
        ``2 / (n_resamples + 1)``.

    n_bootstrap : int >= 1, default=1999
        Bootstrap resamples of the intervals.  The interval ends then vary
        between seeds by about 3 % of the interval's half-width (1.4 % with
        9999, at five times the cost).

    confidence_level : float in (0, 1), default=0.95
        Level of the percentile bootstrap intervals
        (:func:`scipy.stats.bootstrap`).

    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Multiple-comparison correction across the pairs tested on each
        metric: Holm and Bonferroni control the family-wise error rate,
        "fdr_bh" (Benjamini-Hochberg) the false discovery rate.

    alpha : float in (0, 1), default=0.05
        Significance level of the marks in the table.

    random_state : int, numpy Generator or RandomState, default=None
        Seed of the resampling; an int makes the result reproducible.  The
        bootstrap and the randomization test each use
        ``np.random.default_rng(seed)``.

    query_col, label_col : str, default=None
        The data-frame form: pass a pandas, polars (eager or lazy) or
        pyarrow table as ``y_true``, no ``y_scores``, and name its columns
        of query ids and grades, as in :func:`ranking_report`; the values
        are those of the arrays of the columns, bit for bit.  See
        :ref:`frames`.

    score_col : list of str or dict of str to str, default=None
        With a data frame: one score column per model, a list (the models
        are named by their columns) or a dict ``{model name: column}``.

    propensity_col, item_weight_col, tie_break_col : str, default=None
        With a data frame: the columns of ``propensity`` and
        ``item_weight``, and a column sorting each query's rows first
        (see :func:`ranking_report`).

    tie_break_ascending : bool, default=True
        Sort order of ``tie_break_col``.

    **options
        ``convention`` and the options of the metric functions, as in
        :func:`ranking_report` (``relevance_threshold``, ``gain``,
        ``ties``, ``no_relevant``, ``ap_denominator``, ...);
        ``query_weighting`` weighs GAUC's queries, see Notes.
        ``propensity`` (with ``min_propensity``, ...) compares the
        inverse-propensity estimates, as in :func:`ranking_report`.

    Returns
    -------
    comparison : RankingComparison
        Prints as a table; ``to_frame()`` and ``to_dict()`` convert it.

    Notes
    -----
    Queries are the unit: rows (items) of one query are not independent,
    and the metrics are per-query quantities.  A query where a metric is
    undefined (:ref:`candidates`: e.g. no relevant item under
    ``no_relevant="skip"``; for GAUC no positive or no candidate negative)
    is left out of that metric's mean, and out of a paired test when it is
    skipped for either model.  Each mean is the metric's own: queries
    weigh alike, except GAUC's, which weigh as ``query_weighting`` says
    (by default their impressions, as :func:`group_auc_score` and
    :func:`ranking_report`), so every surface gives one number.  The
    bootstrap resamples queries with their weights, and the randomization
    test flips the signs of weighted differences; a paired query must then
    weigh the same for both models (the same candidates: the same items
    scored ``-inf``), else pass ``query_weighting="uniform"``.  The t-test
    and the Wilcoxon test weigh queries alike: they refuse queries of
    unequal weights (use ``test="permutation"`` or
    ``query_weighting="uniform"``).  The randomization test draws one set
    of random signs shared by every metric and pair.  A metric no query can
    be scored for gives nan with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankmetrics import compare_rankings
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.random((200, 30)) < 0.1
    >>> scores = {"random": rng.random((200, 30)),
    ...           "good": y_true + rng.random((200, 30))}
    >>> result = compare_rankings(y_true, scores, k=5, metrics=["ndcg"],
    ...                           baseline="random", random_state=0)
    >>> result.significant
    array([[ True]])
    >>> print(f"{result.difference[0, 0]:.2f}")
    0.86
    """
    if y_scores is None or any(
        col is not None
        for col in (query_col, label_col, score_col, propensity_col)
        + (item_weight_col, tie_break_col)
    ):
        arguments = dict(locals())  # the arguments given, for the array form
        from .._io._dataframe import frame_compare  # a data frame by column name

        return frame_compare(compare_rankings, arguments)
    _check_scores(y_true, y_scores)
    if "sample_weight" in options:
        raise TypeError(
            "compare_rankings weighs every query equally (queries are the "
            "unit of resampling); sample_weight is not supported."
        )
    if options.get("average", "queries") != "queries":
        raise ValueError(
            "compare_rankings averages every metric over queries, the unit of "
            f"its intervals and tests; average={options['average']!r} is not "
            "supported. The pooled IPS ratios (average='micro') order models as "
            "the IPS sums do: compare precision or dcg with propensity=, or "
            "compute the pooled means with ranking_report(average='micro')."
        )
    models = list(y_scores)
    _check_settings(
        models, baseline, test, correction, n_resamples, n_bootstrap,
        confidence_level, alpha,
    )  # fmt: skip
    reports = {
        name: _per_query_report(
            y_true,
            score,
            k=k,
            metrics=metrics,
            query_id=query_id,
            sample_weight=None,
            caller="compare_rankings",
            **options,
        )
        for name, score in y_scores.items()
    }
    first = reports[models[0]]
    names = list(first.values)
    values = {
        m: np.column_stack([r.values[n] for n in names]) for m, r in reports.items()
    }
    weights = {
        m: np.column_stack([r.weights[n] for n in names]) for m, r in reports.items()
    }
    return _compare_values(
        values,
        names,
        first.query_id,
        weights=weights,
        baseline=baseline,
        test=test,
        n_resamples=n_resamples,
        n_bootstrap=n_bootstrap,
        confidence_level=confidence_level,
        correction=correction,
        alpha=alpha,
        random_state=random_state,
    )


def _check_settings(
    models,
    baseline,
    test,
    correction,
    n_resamples,
    n_bootstrap,
    confidence_level,
    alpha,
):
    """Check the comparison settings; returns ``(test, correction)``."""
    test = check_option("test", test, _TESTS)
    if correction is not None:
        correction = check_option("correction", correction, _CORRECTIONS)
    for name, value in (("n_resamples", n_resamples), ("n_bootstrap", n_bootstrap)):
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, numbers.Integral)
            or value < 1
        ):
            raise ValueError(f"{name} must be an int >= 1; got {value!r}.")
    for name, value in (("confidence_level", confidence_level), ("alpha", alpha)):
        if not isinstance(value, numbers.Real) or not 0 < value < 1:
            raise ValueError(f"{name} must be a number in (0, 1); got {value!r}.")
    if baseline is not None and baseline not in models:
        raise ValueError(
            f"baseline={baseline!r} is not a model of y_scores; choose among "
            f"{', '.join(map(repr, models))}, or None to test every pair."
        )
    return test, correction


def _compare_values(
    values,
    names,
    query_id,
    *,
    weights=None,
    baseline=None,
    test="permutation",
    n_resamples=9999,
    n_bootstrap=1999,
    confidence_level=0.95,
    correction="holm",
    alpha=0.05,
    random_state=None,
):
    """The comparison of per-query values already computed.

    The statistics of :func:`compare_rankings` (which computes the values
    with the report's engine and calls this); the command line calls it
    with values computed under trec_eval's conventions.

    Parameters
    ----------
    values : dict of str to ndarray of shape (n_queries, n_metrics)
        ``{model: values}``, at least two models, rows paired (the same
        query in the same row for every model), nan where a query is
        skipped.
    names : list of str
        The metric names of the columns.
    query_id : ndarray of shape (n_queries,)
        The ids of the rows.
    weights : dict of str to ndarray of shape (n_queries, n_metrics), \
default=None
        Each model's query weights (the metrics' own, e.g. GAUC's
        impressions); None: every query weighs 1.
    baseline, test, n_resamples, n_bootstrap
        As in :func:`compare_rankings`.
    confidence_level, correction, alpha, random_state
        As in :func:`compare_rankings`.

    Returns
    -------
    comparison : RankingComparison
    """
    models = list(values)
    if len(models) < 2:
        raise ValueError(f"a comparison needs at least two models, got {len(models)}.")
    test, correction = _check_settings(
        models, baseline, test, correction, n_resamples, n_bootstrap,
        confidence_level, alpha,
    )  # fmt: skip
    seed = _seed(random_state)
    values = {
        m: np.asarray(v, dtype=np.float64).reshape(-1, len(names))
        for m, v in values.items()
    }
    if weights is None:
        weights = {m: np.ones(v.shape) for m, v in values.items()}
    weights = {
        m: np.asarray(weights[m], dtype=np.float64).reshape(values[m].shape)
        for m in models
    }

    mean, ci_low, ci_high, n_queries = _means_and_intervals(
        values, models, confidence_level, n_bootstrap, seed, weights
    )
    pairs = _pairs(models, baseline)
    difference, statistic, pvalue, n_paired = _paired_tests(
        values, pairs, test, n_resamples, seed, weights, names
    )
    pvalue_corrected = _correct_per_metric(pvalue, correction)
    with np.errstate(invalid="ignore"):
        significant = pvalue_corrected < alpha
    _warn_degenerate(names, n_queries)
    return RankingComparison(
        models=models,
        metrics=names,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=float(alpha),
        confidence_level=float(confidence_level),
        n_resamples=int(n_resamples),
        n_bootstrap=int(n_bootstrap),
        seed=seed,
        mean=mean,
        ci_low=ci_low,
        ci_high=ci_high,
        n_queries=n_queries,
        pairs=pairs,
        difference=difference,
        statistic=statistic,
        pvalue=pvalue,
        pvalue_corrected=pvalue_corrected,
        significant=significant,
        n_paired=n_paired,
        per_query_values=values,
        query_weights=weights,
        query_id=np.asarray(query_id),
    )


def _means_and_intervals(values, models, confidence_level, n_bootstrap, seed, weights):
    """Weighted mean over queries, bootstrap interval and query count of
    each model (rows) and metric (columns), nan where no query is scored."""
    n_m = values[models[0]].shape[1]
    shape = (len(models), n_m)
    columns = np.column_stack([values[m] for m in models])  # (n_q, models*n_m)
    w_columns = np.column_stack([weights[m] for m in models])
    valid = ~np.isnan(columns)
    # Columns sharing the same skipped queries are resampled together.
    groups = {}
    for c in range(columns.shape[1]):
        groups.setdefault(valid[:, c].tobytes(), []).append(c)
    flat_mean = np.full(columns.shape[1], np.nan)
    flat_low, flat_high = flat_mean.copy(), flat_mean.copy()
    for cols in groups.values():
        rows = valid[:, cols[0]]
        V = columns[rows][:, cols]
        if V.shape[0] == 0:
            continue
        W = w_columns[rows][:, cols]
        flat_mean[cols] = [weighted_mean(V[:, j], W[:, j]) for j in range(len(cols))]
        if V.shape[0] >= 2:
            flat_low[cols], flat_high[cols] = _bootstrap_means(
                V, confidence_level, n_bootstrap, seed, None if (W == 1).all() else W
            )
    n_queries = valid.sum(axis=0).reshape(shape).astype(np.intp)
    return (
        flat_mean.reshape(shape),
        flat_low.reshape(shape),
        flat_high.reshape(shape),
        n_queries,
    )


def _pairs(models, baseline):
    """(model, reference) pairs: each model against ``baseline``, or every
    pair, the later model against the earlier one."""
    if baseline is None:
        return [(b, a) for i, a in enumerate(models) for b in models[i + 1 :]]
    return [(m, baseline) for m in models if m != baseline]


def _paired_weights(weights, model, ref, both, names):
    """The query weights of the pair (0 where a query is not paired), the
    same for both models; ValueError naming the metric where they differ."""
    w = np.where(both, weights[model], 0.0)
    differ = (w != np.where(both, weights[ref], 0.0)).any(axis=0)
    if differ.any():
        name = names[int(np.flatnonzero(differ)[0])]
        raise ValueError(
            f"{name}: a query weighs differently for {model!r} and {ref!r} "
            "(GAUC's impressions are the items its AUC reads: the two models "
            "score different items -inf, so their candidates differ), and a "
            "paired test needs one weight per query; pass "
            "query_weighting='uniform', or give both models the same "
            "candidates."
        )
    return w


def _paired_tests(values, pairs, test, n_resamples, seed, weights, names):
    """Mean difference, statistic, raw p-value and paired query count of
    each pair (rows) and metric (columns): weighted by the query weights,
    which a paired query must have equal for both models."""
    n_q, n_m = next(iter(values.values())).shape
    shape = (len(pairs), n_m)
    difference = np.full(shape, np.nan)
    statistic, pvalue = difference.copy(), difference.copy()
    n_paired = np.zeros(shape, dtype=np.intp)
    w_paired = np.zeros(shape)
    D = np.zeros((n_q, len(pairs) * n_m))
    for p, (model, ref) in enumerate(pairs):
        d = values[model] - values[ref]
        both = ~np.isnan(d)
        n_paired[p] = both.sum(axis=0)
        w = _paired_weights(weights, model, ref, both, names)
        w_paired[p] = w.sum(axis=0)
        D[:, p * n_m : (p + 1) * n_m] = np.where(both, d, 0.0) * w
        with np.errstate(invalid="ignore"):
            difference[p] = np.where(
                n_paired[p] > 0, D[:, p * n_m : (p + 1) * n_m].sum(0), np.nan
            ) / np.where(w_paired[p] > 0, w_paired[p], 1.0)
        if test != "permutation":
            for j in range(n_m):
                keep = both[:, j]
                if np.unique(w[keep, j]).size > 1:
                    raise ValueError(
                        f"{names[j]}: the {_TEST_LABELS[test]} weighs every "
                        "query alike, but this metric's queries weigh "
                        "differently (GAUC's query_weighting); pass "
                        "test='permutation' (weighted differences) or "
                        "query_weighting='uniform'."
                    )
                statistic[p, j], pvalue[p, j] = _paired_test(
                    test, values[ref][keep, j], values[model][keep, j]
                )
    if test == "permutation":
        testable = n_paired.ravel() > 0
        if testable.any():
            stat, pv = _sign_flip_pvalues(
                D[:, testable], w_paired.ravel()[testable], n_resamples, seed
            )
            statistic.ravel()[testable] = stat
            pvalue.ravel()[testable] = pv
    return difference, statistic, pvalue, n_paired


def _correct_per_metric(pvalue, correction):
    """The p-values (pairs, metrics) corrected over the pairs, separately
    for each metric (column)."""
    return np.column_stack(
        [adjust_pvalues(pvalue[:, j], correction) for j in range(pvalue.shape[1])]
    ).reshape(pvalue.shape)


def _warn_degenerate(names, n_queries):
    """Warn of metrics scored on a single query, or on none."""
    single = [n for j, n in enumerate(names) if (n_queries[:, j] == 1).any()]
    if single:
        warnings.warn(
            f"{', '.join(single)}: a single query can be scored, so there is "
            "no bootstrap interval (nan) and no test can reject; compare "
            "models on many queries.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    undefined = [n for j, n in enumerate(names) if (n_queries[:, j] == 0).all()]
    if undefined:
        warnings.warn(
            f"{', '.join(undefined)}: no query could be scored (every query "
            "was skipped: no relevant item, or for gauc a single class); "
            "their means, intervals and tests are nan.",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )
