"""
=====================================================
Tuning a multilabel recommender on 2-D targets
=====================================================

A recommender can be framed as multilabel classification: one row per
user, one column per item, ``Y[u, i] = 1`` when user ``u`` interacted with
item ``i``.  Any scikit-learn estimator that handles multilabel targets
(:class:`~sklearn.neighbors.KNeighborsClassifier`,
:class:`~sklearn.linear_model.RidgeClassifier`,
:class:`~sklearn.multiclass.OneVsRestClassifier`, ...) then scores every
item for every user, and the ranking metrics compare each user's ranking
with the items they actually chose.

In this *2-D form* there is no query id to route: each row is a query.  The
scorers of :func:`~sklearn_rankmetrics.make_scoring` work in a
:class:`~sklearn.model_selection.GridSearchCV` as they are.
"""

# %%
# Users and items
# ---------------
#
# :func:`~sklearn.datasets.make_multilabel_classification` gives 800 users
# described by 20 features, each with about four of 30 items.
import pandas as pd
from sklearn.datasets import make_multilabel_classification
from sklearn.model_selection import train_test_split

X, Y = make_multilabel_classification(
    n_samples=800,
    n_features=20,
    n_classes=30,
    n_labels=4,
    allow_unlabeled=False,
    random_state=0,
)
X_train, X_test, Y_train, Y_test = train_test_split(X, Y, random_state=0)
n_users, n_items = Y.shape
print(f"{n_users} users, {n_items} items, {Y.sum(axis=1).mean():.1f} per user")

# %%
# One search, two model families
# ------------------------------
#
# Nearest neighbours recommend what similar users chose; a ridge classifier
# fits one linear model per item.  The search is scored by four ranking
# metrics of the top 5 and, for contrast, by scikit-learn's
# ``"f1_samples"``, which looks at the predicted *labels* (the items whose
# probability is above 0.5) instead of the ranking.  (Not by scikit-learn's
# ``"roc_auc"``: on a 2-D target it averages one AUC per *item*, undefined
# for an item that no user of a test fold chose, hence ``nan``; ``"gauc"``
# is the per-user AUC, see :ref:`pitfalls_roc_auc_2d`.)
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rankmetrics import make_scoring

scoring = make_scoring(
    ["ndcg@5", "precision@5", "recall@5", "map@5", "gauc", "f1_samples"]
)
pipeline = Pipeline(
    [("scale", StandardScaler()), ("model", KNeighborsClassifier())]
)
param_grid = [
    {"model": [KNeighborsClassifier()], "model__n_neighbors": [5, 15, 40]},
    {"model": [RidgeClassifier()], "model__alpha": [1.0, 100.0, 1000.0]},
]
search = GridSearchCV(
    pipeline, param_grid, scoring=scoring, refit="ndcg@5", cv=3
)
search.fit(X_train, Y_train)


def describe(params):
    options = {k.split("__")[1]: v for k, v in params.items() if "__" in k}
    return f"{type(params['model']).__name__} {options}"


results = pd.DataFrame(
    {name: search.cv_results_[f"mean_test_{name}"] for name in scoring},
    index=[describe(p) for p in search.cv_results_["params"]],
)
results.round(4)

# %%
# The ranking metrics agree with each other and pick the ridge classifier
# with ``alpha=100``.  ``f1_samples`` would pick the 5-neighbour model: with
# more neighbours fewer items pass the 0.5 threshold, so the F1 of the
# predicted labels collapses while the *ranking* of the items keeps
# improving.  A recommender shows the top of the ranking, whatever the
# threshold, so the ranking metrics are the ones to select on.
#
# Note also that a k-nearest-neighbours model outputs probabilities that are
# multiples of ``1 / n_neighbors``: many items of a user are tied.  The
# metrics count tied items as the average over their possible orders (see
# :ref:`convention_ties`), so the model is not credited for the order in
# which the items happen to be stored.
print(describe(search.best_params_))

# %%
# Side by side, per candidate: the ranking metrics and ``f1_samples`` pull
# in opposite directions as the number of neighbours grows.
import matplotlib.pyplot as plt

short_names = {"KNeighborsClassifier": "kNN", "RidgeClassifier": "Ridge"}
to_plot = results[["ndcg@5", "map@5", "gauc", "f1_samples"]].rename(
    index=lambda label: " ".join(short_names.get(w, w) for w in label.split())
)
ax = to_plot.plot.barh(figsize=(7.5, 4.5), width=0.8)
ax.invert_yaxis()  # candidates in the order of the table
ax.set_xlabel("mean cross-validated score")
ax.set_title("The ranking metrics and f1_samples disagree")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
ax.figure.tight_layout()
plt.show()

# %%
# The refitted best model on the held-out users
# ---------------------------------------------
#
# The search's scorers work on any fitted estimator, here the refitted
# search itself on the test users.
for name in ("ndcg@5", "precision@5", "recall@5", "map@5"):
    print(f"{name:12s} {scoring[name](search, X_test, Y_test):.4f}")

# %%
# The same numbers straight from the metric functions, with the per-user
# scores of ``decision_function``:
from sklearn_rankmetrics import ndcg_at_k

Y_score = search.decision_function(X_test)
print(f"ndcg@5       {ndcg_at_k(Y_test, Y_score, k=5):.4f}")
