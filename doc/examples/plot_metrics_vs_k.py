"""
========================================
Ranking metrics against the cut-off k
========================================

How many items a metric looks at changes both its value and, sometimes,
which model looks better.  This example compares a personalised model with
a popularity baseline -- the same ranking of items for every user, by how
often they were chosen in the training data -- on precision, recall, NDCG
and MAP at every cut-off from 1 to 20.
"""

# %%
# Data and the two models
# -----------------------
import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.linear_model import RidgeClassifier
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

model = RidgeClassifier(alpha=100.0).fit(X_train, Y_train)
scores = {
    "ridge classifier": model.decision_function(X_test),
    # every test user gets the training popularity of each item
    "popularity": np.tile(Y_train.mean(axis=0), (len(Y_test), 1)),
}

# %%
# Metrics for k = 1 .. 20
# -----------------------
#
# Each call scores all test users at once; the loop over k is the only
# loop.
import sklearn_rankmetrics as rm

metrics = {
    "precision@k": rm.precision_at_k,
    "recall@k": rm.recall_at_k,
    "NDCG@k": rm.ndcg_at_k,
    "MAP@k": rm.average_precision_at_k,
}
ks = np.arange(1, 21)
curves = {
    (metric, name): [func(Y_test, y_score, k=int(k)) for k in ks]
    for metric, func in metrics.items()
    for name, y_score in scores.items()
}

# %%
# The plot
# --------
import matplotlib.pyplot as plt

fig, axes = plt.subplots(2, 2, figsize=(8, 6), sharex=True)
for ax, metric in zip(axes.ravel(), metrics, strict=True):
    for name in scores:
        ax.plot(ks, curves[metric, name], marker="o", markersize=3, label=name)
    ax.set_title(metric)
    ax.grid(alpha=0.3)
for ax in axes[1]:
    ax.set_xlabel("k")
axes[0, 0].legend()
fig.tight_layout()
plt.show()

# %%
# Reading the curves
# ------------------
#
# * **Precision@k falls and recall@k rises with k**: the users have about
#   four relevant items each, so past the first few ranks every extra slot
#   adds mostly irrelevant items to the denominator of precision, while
#   recall keeps collecting the remaining relevant items.
# * **MAP@k rises with k** because it divides by the number of relevant
#   items (``ap_denominator="relevant"``): at small k it cannot count the
#   relevant items that do not fit in the list yet.  Pass
#   ``ap_denominator="min_k"`` to divide by ``min(R, k)`` instead.
# * **NDCG@k is not monotone in k**: both the gain and the ideal gain grow
#   with k, at rates that depend on where the relevant items sit.
# * The **gap between the two models shrinks as k grows**: with 30 items, a
#   top 20 holds most relevant items whatever the order, so large cut-offs
#   blur the difference that the first ranks show.  Report a metric at the
#   k your product shows, and check that the conclusion holds at nearby k.
for name in scores:
    print(
        f"{name:17s} precision@1 = {curves['precision@k', name][0]:.3f}, "
        f"precision@20 = {curves['precision@k', name][-1]:.3f}"
    )
