"""Long-form recommendation logs for the chunked and distributed
beyond-accuracy tests, and the in-memory report they must equal."""

import numpy as np
from numpy.testing import assert_allclose

import sklearn_rankmetrics as srm

K = (1, 3, 5)
N_ITEMS = 40  # the catalogue: items 0..39, some never in any list
# ranking metrics beside them, and every beyond-accuracy metric
RANKING = ["ndcg", "map"]
BEYOND = [
    "catalog_coverage",
    "gini_index",
    "exposure_entropy",
    "average_popularity",
    "novelty",
    "intra_list_diversity",
    "serendipity",
]
# the metrics read from per-item counts alone (no catalogue option needed)
COUNTS = ["catalog_coverage", "gini_index", "exposure_entropy"]


def make_log(seed=0, n_users=30, ids="int", ties=True):
    """``(y, s, q, items, extra)``: users with 0 to 12 candidate items among
    the catalogue's first 30 (items 30..39 never a candidate), in random row
    order; scores with ties (or without), some ``-inf`` (not retrieved),
    users whose every row is ``-inf`` (an empty list), users without a
    relevant item; one item with no training interaction (count 0).

    ``ids``: ``"int"`` column numbers, or text labels that look alike
    (``"7"``, ``"07"``, ``"007"``, ...; ``"str"``).  ``extra``: the
    catalogue's ``item_popularity`` and ``item_features``.
    """
    rng = np.random.default_rng(seed)
    users, items = [], []
    for u in range(n_users):
        m = int(rng.integers(1, 13))
        users.append(np.full(m, 3 * u + 1))
        items.append(rng.choice(30, size=m, replace=False))
    q = np.concatenate(users)
    it = np.concatenate(items)
    n = q.size
    levels = 4 if ties else 10**9
    s = np.round(rng.random(n) * levels) / levels
    s[rng.random(n) < 0.1] = -np.inf
    s[q == q[0]] = -np.inf  # a user with an empty list
    y = rng.integers(0, 4, size=n) * (rng.random(n) < 0.35)
    order = rng.permutation(n)
    q, it, s, y = q[order], it[order], s[order], y[order]
    popularity = rng.integers(0, 9, size=N_ITEMS).astype(float)
    popularity[int(it[0])] = 0.0  # a candidate never seen in training
    features = rng.random((N_ITEMS, 3))
    extra = {"item_popularity": popularity, "item_features": features}
    if ids == "str":  # "7", "07", "007", "0007": distinct labels
        it = np.array([("0" * (i % 4)) + str(i) for i in it], dtype=object)
    return y, s, q, it, extra


def in_memory(y, s, q, it, metrics, k=K, **options):
    return srm.ranking_report(
        y, s, query_id=q, item_id=it, k=k, metrics=metrics, output_dict=True, **options
    )


def assert_same(got, want, exact=()):
    """Equal to the in-memory report: bit for bit for the names in
    ``exact`` (scorer names, or metric names without @k), else within
    1e-15 relative (sums added in another order)."""
    assert list(got) == list(want)
    for name, value in want.items():
        if name in exact or name.partition("@")[0] in exact:
            assert got[name] == value or (np.isnan(value) and np.isnan(got[name])), (
                name,
                got[name],
                value,
            )
        else:
            assert_allclose(got[name], value, rtol=1e-15, atol=0, err_msg=name)
