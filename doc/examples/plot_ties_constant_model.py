"""
=============================================
Ties: why a constant model is not perfect
=============================================

When a model gives several items the same score, their order is not
decided by the model.  A metric that breaks the tie by the position of the
items in the data -- "earlier column first" -- credits the model with
whatever order the data happens to be stored in.  This example shows how
far that goes: a model that scores every item alike gets a perfect NDCG
when the clicked items are stored first, as they often are in logs.

``sklearn_rankmetrics`` avoids this by default: tied items count as the
**exact average over all their orderings** (``ignore_ties=False``), so the
constant model gets the chance level and no storage order changes any
value.
"""

# %%
# Users, items, and a model that knows nothing
# --------------------------------------------
import numpy as np

import sklearn_rankmetrics as rm

rng = np.random.default_rng(0)
n_users, n_items = 300, 40
y_true = (rng.random((n_users, n_items)) < 0.1).astype(int)
constant = np.full((n_users, n_items), 0.5)

print(f"NDCG@10:      {rm.ndcg_at_k(y_true, constant, k=10):.4f}")
print(f"precision@10: {rm.precision_at_k(y_true, constant, k=10):.4f}")

# %%
# Precision\@10 is the share of relevant items of the users (about 10 %):
# drawing 10 items at random finds that share on average.  NDCG\@10 is the
# chance level of NDCG, far from 1.
#
# :func:`sklearn.metrics.ndcg_score` averages ties the same way.  It keeps
# the few users without any relevant item in the mean, with the value 0;
# ``no_relevant=0.0`` does the same (:ref:`convention_no_relevant`):
from sklearn.metrics import ndcg_score

theirs = ndcg_score(y_true, constant, k=10)
ours = rm.ndcg_at_k(y_true, constant, k=10, no_relevant=0.0)
print(
    f"sklearn ndcg_score: {theirs:.4f}, ndcg_at_k(no_relevant=0.0): {ours:.4f}"
)

# %%
# Breaking ties by position
# -------------------------
#
# Suppose the evaluation data lists each user's clicked items first -- a
# common layout of logs that append the positives, then sample negatives.
# With ``ignore_ties=True`` ties are broken by position, and the constant
# model becomes perfect:
order = np.argsort(-y_true, axis=1, kind="stable")  # clicked items first
y_true_clicked_first = np.take_along_axis(y_true, order, axis=1)

by_position = rm.ndcg_at_k(
    y_true_clicked_first, constant, k=10, ignore_ties=True
)
exact = rm.ndcg_at_k(y_true_clicked_first, constant, k=10)
print(f"ignore_ties=True: {by_position:.4f}, exact (default): {exact:.4f}")

# %%
# With the items in random orders, ``ignore_ties=True`` gives a different
# value for every order.  Those values scatter around the exact expectation,
# which the default computes in closed form, without drawing any order:
n_orders = 200
by_position = []
for _ in range(n_orders):
    shuffled = y_true[:, rng.permutation(n_items)]
    by_position.append(
        rm.ndcg_at_k(shuffled, constant, k=10, ignore_ties=True)
    )
exact = rm.ndcg_at_k(y_true, constant, k=10)
mean = np.mean(by_position)
print(f"mean of {n_orders} random orders: {mean:.4f}; exact: {exact:.4f}")

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(by_position, bins=25, color="lightgrey", edgecolor="grey",
        label="ignore_ties=True, random item orders")  # fmt: skip
ax.axvline(exact, color="C0", linewidth=2, label="exact expectation (default)")
ax.set_xlabel("NDCG@10 of the constant model")
ax.set_ylabel("item orders")
ax.set_title("Tie-breaking by position: one value per storage order")
ax.legend(loc="upper right", fontsize=8)
fig.tight_layout()
plt.show()

# %%
# Coarse scores
# -------------
#
# Ties are not only a matter of constant models.  Models with few distinct
# outputs -- small trees, rounded probabilities, popularity counts, the
# neighbour votes of a k-nearest-neighbours model -- tie many items.  Here a
# model with some skill has its scores rounded to integers:
latent = y_true + rng.normal(scale=0.8, size=y_true.shape)
coarse = np.round(latent)
coarse_clicked_first = np.take_along_axis(coarse, order, axis=1)
print(f"distinct scores: {np.unique(coarse).size}")
exact = rm.ndcg_at_k(y_true, coarse, k=10)
by_position = rm.ndcg_at_k(
    y_true_clicked_first, coarse_clicked_first, k=10, ignore_ties=True
)
print(
    f"exact: {exact:.4f}, ignore_ties=True, clicked first: {by_position:.4f}"
)

# %%
# The exact value is the same for every storage order; breaking ties by
# position inflates the coarse model's score when the clicked items come
# first, and would make it look better than finer models.  Use
# ``ignore_ties=True`` only for scores without ties, or to reproduce a tool
# that breaks ties that way (:ref:`comparison`).
