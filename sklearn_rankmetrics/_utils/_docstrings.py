"""Parameter descriptions shared by the metric docstrings.

Docstrings write ``%(y_true)s`` and friends; :func:`fill_doc` substitutes
the text below so every metric documents its common options identically.
"""

import textwrap

__all__ = []  # private module

_DOCS = {
    # the Dask and Spark reports: the columns that travel with the rows
    "frame_row_columns": """\
tie_break_col : str, default=None
    A column identifying the rows of each query (e.g. the document
    id): the rows of each query are sorted by it before ranking, so
    that a tie rule reading the row order (``ties="input_order"``,
    ``ignore_ties=True``, the trec_eval, LightGBM, ... presets) gives
    the same numbers whatever the partitioning -- those of the
    in-memory report on the rows in that order.  Such a tie rule is
    refused without it: the shuffle does not keep the row order.

tie_break_ascending : bool, default=True
    Sort order of ``tie_break_col`` (False: decreasing, as trec_eval
    breaks ties by decreasing document id).

propensity_col : str, default=None
    Column of propensities, one per row in (0, 1]: the report of the
    inverse-propensity estimates, as ``propensity=`` of
    :func:`sklearn_rankmetrics.ranking_report` (``min_propensity`` and
    the other IPS options among ``options``; metrics=None: the default
    metrics that have an estimator).

item_weight_col : str, default=None
    Column of per-item weights, as ``item_weight=`` of
    :func:`sklearn_rankmetrics.ranking_report`, for the metrics whose
    function takes it.""",
    "frame_item_col": """\
item_col : str, default=None
    Column of item ids, for the beyond-accuracy metrics in ``metrics``
    (``"catalog_coverage"``, ``"gini_index"``, ...; required with them,
    refused without), as ``item_id=`` of the metric functions: column
    numbers ``0 <= id < n_items`` when the catalogue size is given
    (``n_items``, ``item_popularity`` or ``item_features`` among
    ``options``), otherwise labels (ints or strings).  Their values equal
    the in-memory report's: bit for bit where the partitions' per-item
    numbers are whole, within 1e-15 relative where their sums or products
    of fractions are combined in another order.""",
    "y_true": """\
y_true : array-like or sparse matrix of shape (n_queries, n_items), or \
array-like of shape (n_rows,) with ``query_id``
    Relevance grades, non-negative (bool, int or float; 0 = not
    relevant).  2-D: one query per row, dense or any ``scipy.sparse``
    format (never densified).  1-D: the long form, one (query, item) pair
    per row, grouped by ``query_id``.""",
    "y_score": """\
y_score : array-like of shape (n_queries, n_items), or (n_rows,) with \
``query_id``
    Predicted scores, higher ranks first.  ``-np.inf`` marks an item as
    not retrieved: it takes no rank, but a relevant one still counts in the
    number of relevant items and in the ideal ranking.  NaN is an error.""",
    "k": """\
k : int >= 1, None or array-like of ints, default=None
    Only the top ``k`` ranks count.  None means the whole retrieved
    list.  An array gives each query its own cut-off (2-D: one per row;
    long form: in the order of ``np.unique(query_id)``).""",
    "query_id": """\
query_id : array-like of shape (n_rows,), default=None
    Query (or user) of each row of the long form: ints or strings (also
    pandas or polars Series), in any order; rows of a query need not be
    contiguous.  Must be None for 2-D input.  With ``average=None`` the
    values come in the order of ``np.unique(query_id)``: label them with
    ``pd.Series(values, index=np.unique(query_id))``.""",
    "relevance_threshold": """\
relevance_threshold : float > 0 or None, default=None
    An item is relevant when ``y_true >= relevance_threshold``, compared
    exactly whatever the dtype of ``y_true`` (a float32 grade 0.7 is below
    a threshold of 0.7, as it is below float64 0.7); None means
    ``y_true > 0``.""",
    "ignore_ties": """\
ignore_ties : bool, default=False
    If False, tied scores give the exact expected value over all
    orderings of the tied items (each equally likely).  If True, ties are
    broken by position (earlier column, or earlier row of the long form,
    ranks first): faster, but the value depends on item order.  The same
    as ``ties="input_order"``.""",
    "ties": """\
ties : {"expected", "input_order", "pessimistic", "optimistic"} or None, \
default=None
    The tie rule; None follows ``ignore_ties``.  "expected": the exact
    mean over all orderings of the tied items (``ignore_ties=False``).
    "input_order": ties broken by position (``ignore_ties=True``).
    "pessimistic" / "optimistic": a tie group ranks its items by
    increasing / decreasing grade (its non-relevant / relevant items
    first), the worst / best case of the tied orderings (a sparse
    ``y_true`` is made dense for these two).""",
    "no_relevant": """\
no_relevant : {"skip", "raise"} or float, default="skip"
    What to do with a query where the metric is undefined: one that has
    no relevant item (for fall-out, one without a non-relevant candidate;
    see :ref:`candidates`).  "skip" leaves it out of the average (it is
    ``nan`` with ``average=None``); a number such as 0.0 scores it with
    that value; "raise" raises ``ValueError``.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_queries,) or (n_rows,), default=None
    Weight of each query.  2-D: one weight per row.  Long form: one weight
    per row, constant within a query.""",
    "average_queries": """\
average : {"queries"} or None, default="queries"
    "queries": weighted mean over queries.  None: the per-query values.""",
    "average_micro": """\
average : {"queries", "micro"} or None, default="queries"
    "queries": weighted mean of the per-query values.  "micro": pooled
    counts over queries (weighted sums of hits and of the denominators).
    None: the per-query values.""",
    "gain": """\
gain : {"linear", "exponential"}, mapping, sequence or callable, \
default="linear"
    Gain of a grade: "linear" is the grade itself (as
    :func:`sklearn.metrics.dcg_score`, :func:`~sklearn.metrics.ndcg_score`
    and trec_eval); "exponential" is :math:`2^{rel} - 1` (as LightGBM and
    XGBoost).  A mapping ``{grade: gain}`` (trec_eval's gain table) or a
    sequence indexed by integer grade (LightGBM's ``label_gain``) gives
    each grade its gain; every grade of ``y_true`` must be in it, grade 0
    gains 0 and the gains must not decrease with the grade.  A callable
    maps an array of grades to their gains (non-decreasing, 0 for grade
    0).""",
    "log_base": """\
log_base : float > 1, default=2
    Base of the logarithm of the "log" discount.""",
    "discount": r"""discount : {"log", "reciprocal"} or callable, default="log"
    Weight of rank :math:`i`: "log" is :math:`1 / \log_b(i + 1)`,
    "reciprocal" is :math:`1 / i`; a callable maps the float array of
    ranks ``1..K`` to non-negative weights.  With ties a group gets its
    mean gain times the sum of its ranks' weights, exact for any
    discount.""",
    "min_propensity": """\
min_propensity : float in (0, 1], default=None
    With ``propensity``: clip propensities below it (less variance, some
    bias).""",
    "returns": """\
score : float or ndarray of shape (n_queries,)
    The averaged score, or the per-query values if ``average=None``.""",
    "ties_note": """\
Ties are handled exactly: with ``ignore_ties=False`` the value is the
mean of the metric over every ordering of tied items, computed in closed
form per tie group (McSherry and Najork [1]_), so a constant predictor
gets the chance level, not a perfect score.""",
    "mcsherry": """\
.. [1] McSherry, F. and Najork, M. (2008). Computing Information
       Retrieval Performance Measures Efficiently in the Presence of Tied
       Scores. ECIR 2008, LNCS 4956, pp. 414-421.""",
}
# The parameters most ranking metrics list together, in signature order.
_SHARED = ("ties", "ignore_ties", "no_relevant", "sample_weight")
_DOCS["ranking_inputs"] = "\n\n".join(
    _DOCS[key] for key in ("y_true", "y_score", "k", "query_id")
)
_DOCS["ranking_options"] = "\n\n".join(
    _DOCS[key] for key in (*_SHARED, "average_queries")
)
_DOCS["ranking_options_micro"] = "\n\n".join(
    _DOCS[key] for key in (*_SHARED, "average_micro")
)


def fill_doc(func):
    """Substitute the shared parameter descriptions into ``func.__doc__``.

    Under ``python -OO`` docstrings are stripped (``func.__doc__`` is None):
    ``func`` is returned unchanged.
    """
    if func.__doc__ is None:
        return func
    indented = {
        key: textwrap.indent(value, "    ").lstrip() for key, value in _DOCS.items()
    }
    func.__doc__ = func.__doc__ % indented
    return func
