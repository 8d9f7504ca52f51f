"""Layer 3: the ranking engine shared by every metric.

Every input form (dense 2-D, sparse ``y_true``, long form with ``query_id``)
is reduced to the same padded, per-rank description of each query's top-k:

1. **selection** (:mod:`._select`, one builder per input form): the ``K``
   best-scored items of every query, sorted by decreasing score, padded with
   ``-inf``; their relevance grades; and, for the tie group cut by ``k``,
   that group's size, relevant count and gain sum over *all* the query's
   items (the only group that can extend past the cut).
2. **tie groups** (:mod:`._rank`): for every rank ``i`` the group of tied
   items it belongs to -- its first rank (``a`` in the SPEC appendix), size
   (``g``), relevant count (``r``), relevant items in earlier groups (``h``)
   and mean gain.  Each ordering of a group being equally likely, rank ``i``
   holds a relevant item with probability ``r / g``; all metrics are
   closed-form sums over ranks of these quantities, so ties cost O(k) per
   query.  The result is an immutable :class:`~._rank.Ranking`.
3. **per-query values** (:mod:`._per_query`): a metric's function of a
   ranking read on the whole input, on chunks of rows of a large 2-D input
   or on parts of a large long form, put back in query order.

With ``ignore_ties=True`` every item is its own group, ordered by position.

No step loops over queries in Python.  Imports ``_utils`` only.
"""
