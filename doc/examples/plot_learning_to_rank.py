r"""
==========================================================
Tuning a learning-to-rank model and a pointwise regressor
==========================================================

A search engine or recommender scores the candidate items of each *query*
and shows them best first.  Two families of models do that:

* a **pointwise** model predicts each item's relevance grade on its own --
  here scikit-learn's
  :class:`~sklearn.ensemble.HistGradientBoostingRegressor`;
* a **learning-to-rank** model optimises the order of the items within
  each query directly -- here LightGBM's ``LGBMRanker`` (lambdarank).

The ranker's ``fit`` needs the rows of each query together, described by
group sizes, which scikit-learn's cross-validation splits break.
:class:`~sklearn_rankmetrics.QueryRanker` takes one query id per row
instead, so both models are tuned by the same
:class:`~sklearn.model_selection.GridSearchCV` with
:class:`~sklearn.model_selection.GroupKFold`, and compared on held-out
queries with NDCG\@10 and MAP\@10.  Where LightGBM is not installed the
example tunes the pointwise model only.
"""

# %%
# Queries with graded relevance
# -----------------------------
#
# :func:`~sklearn_rankmetrics.datasets.make_ranking_dataset` draws queries,
# ten features per (query, item) row and a relevance grade 0-4 from a
# known non-linear model.  A hidden per-query shift makes some queries
# richer in relevant items than others: it moves the grades, not the
# order within a query.  The rows are shuffled, as a log comes.
import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit
from threadpoolctl import threadpool_limits

from sklearn_rankmetrics import (
    QueryRanker,
    average_precision_at_k,
    make_scoring,
    ndcg_at_k,
)
from sklearn_rankmetrics.datasets import make_ranking_dataset

X, y, qid = make_ranking_dataset(
    n_queries=200, n_docs=(10, 30), random_state=0
)
print(f"{X.shape[0]} rows, {np.unique(qid).size} queries; grade counts:")
print(dict(enumerate(np.bincount(y).tolist())))

# Hold out a quarter of the queries for the final comparison.
train, test = next(
    GroupShuffleSplit(test_size=0.25, random_state=0).split(X, y, qid)
)

# %%
# Two models, one search
# ----------------------
#
# With metadata routing on, ``QueryRanker`` requests ``query_id`` for
# ``fit`` and the ranking scorers request it for scoring; the splitter
# reads the same array as its ``groups``.  One ``query_id=`` argument
# feeds all three.
sklearn.set_config(enable_metadata_routing=True)

models = {
    "HistGradientBoostingRegressor (pointwise)": (
        HistGradientBoostingRegressor(max_iter=30, random_state=0),
        {"estimator__max_leaf_nodes": [7, 15]},
    )
}
try:
    from lightgbm import LGBMRanker
except ImportError:
    print("lightgbm is not installed: the LGBMRanker part is skipped.")
else:
    models["LGBMRanker (lambdarank)"] = (
        LGBMRanker(n_estimators=30, n_jobs=1, verbose=-1, random_state=0),
        {"estimator__num_leaves": [7, 15]},
    )

scoring = make_scoring(["ndcg@10", "map@10"])
cv = GroupKFold(3).set_split_request(groups="query_id")
searches = {}
# Models this small fit faster on one thread than with one OpenMP thread
# per core (HistGradientBoosting's default): limit them to one.
with threadpool_limits(limits=1, user_api="openmp"):
    for name, (estimator, grid) in models.items():
        search = GridSearchCV(
            QueryRanker(estimator),
            grid,
            scoring=scoring,
            refit="ndcg@10",
            cv=cv,
        )
        searches[name] = search.fit(X[train], y[train], query_id=qid[train])
        print(f"{name}: best {search.best_params_}")
        results = search.cv_results_
        for i, params in enumerate(results["params"]):
            print(
                f"    {params}  NDCG@10 {results['mean_test_ndcg@10'][i]:.3f} "
                f"(+/- {results['std_test_ndcg@10'][i]:.3f})  "
                f"MAP@10 {results['mean_test_map@10'][i]:.3f}"
            )

# %%
# Held-out queries
# ----------------
#
# Each refitted model scores the test rows -- in any order, without
# query ids -- and the metrics group them by query.  The ranking metrics
# only look at the order within each query, so the regressor's grade
# predictions and the ranker's unbounded scores are compared fairly.
import matplotlib.pyplot as plt

table = {}
for name, search in searches.items():
    pred = search.predict(X[test])
    table[name] = {
        "NDCG@10": ndcg_at_k(y[test], pred, k=10, query_id=qid[test]),
        "MAP@10": average_precision_at_k(
            y[test], pred, k=10, query_id=qid[test]
        ),
    }
    print(
        f"{name}: " + ", ".join(f"{m} {v:.3f}" for m, v in table[name].items())
    )

fig, ax = plt.subplots(figsize=(6, 3))
width = 0.8 / len(table)
for i, (name, values) in enumerate(table.items()):
    ax.bar(np.arange(2) + i * width, list(values.values()), width, label=name)
ax.set_xticks(
    np.arange(2) + width * (len(table) - 1) / 2, ["NDCG@10", "MAP@10"]
)
ax.set_ylim(0, 1)
ax.set_ylabel("held-out queries")
ax.legend(loc="lower right", fontsize="small")
fig.tight_layout()

# %%
# Reading the numbers: each cross-validated score is the mean over folds
# of the mean over the fold's queries, and the ``+/-`` is the spread over
# the three folds -- differences smaller than it say little.  MAP\@10
# counts an item as relevant when its grade is above 0, so it ignores how
# relevant; NDCG\@10 rewards putting the high grades first, which is what
# lambdarank optimises.  On this synthetic data the two models are close:
# the per-query shift, the one thing a pointwise model must spend capacity
# on, is visible in a feature.  Queries without any relevant item are left
# out of both means (they are undefined); the NDCG that LightGBM prints
# while training counts them as 1 (see :ref:`convention_gbdt_ndcg`).
sklearn.set_config(enable_metadata_routing=False)
