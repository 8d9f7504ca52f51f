r"""
==========================================================
Tuning a click-through-rate model with ranking metrics
==========================================================

A click-through-rate (CTR) model predicts, for each impression (a user shown
an item), the probability of a click.  It is trained as a binary classifier
on the *long form* of a click log -- one row per impression -- and usually
tuned on ``roc_auc`` or the log-loss.  But what the product does with the
predictions is to **rank each user's items**, so what matters is how well
the model orders the items *of one user*: NDCG\@10 or the group AUC (GAUC).

This example runs one :class:`~sklearn.model_selection.GridSearchCV` scored
by NDCG\@10 and GAUC next to scikit-learn's ``"roc_auc"`` and
``"neg_log_loss"``, on a synthetic click log, with the user ids feeding
both the :class:`~sklearn.model_selection.GroupKFold` splitter and the
ranking metrics.
"""

# %%
# A synthetic click log
# ---------------------
#
# :func:`~sklearn_rankmetrics.datasets.make_click_log` draws users, the
# items shown to them and the clicks from a known logistic model.  The
# first five columns of ``X`` describe the user, the other five the item.
import pandas as pd

from sklearn_rankmetrics.datasets import make_click_log

X, y, user = make_click_log(n_users=400, random_state=0)
print(
    f"{len(y)} impressions of {len(set(user))} users, {y.mean():.1%} clicked"
)

# %%
# Scorers, and routing the user ids
# ---------------------------------
#
# :func:`~sklearn_rankmetrics.make_scoring` builds one ``scoring`` dict
# from names, ours and scikit-learn's.  The ranking scorers need to know
# which rows belong to the same user: scikit-learn passes such per-row
# metadata to scorers only when metadata routing is enabled.  Here the
# scorers take the ``groups`` array -- the user ids, which
# :class:`~sklearn.model_selection.GroupKFold` also uses so that no user is
# split between training and test folds.
import sklearn

from sklearn_rankmetrics import make_scoring

sklearn.set_config(enable_metadata_routing=True)

scoring = make_scoring(["ndcg@10", "gauc", "roc_auc", "neg_log_loss"])
for name in ("ndcg@10", "gauc"):
    scoring[name].set_score_request(query_id="groups")
scoring

# %%
# The search
# ----------
#
# The candidates: a logistic regression on all features or on the user
# features only, and a gradient-boosted tree model, which can learn the
# user-item interaction of the click model.  ``refit="ndcg@10"`` selects
# the best model by NDCG\@10.
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

user_features_only = ColumnTransformer(
    [("user", "passthrough", [0, 1, 2, 3, 4])]
)
pipeline = Pipeline(
    [
        ("features", "passthrough"),
        ("scale", StandardScaler()),
        ("model", LogisticRegression()),
    ]
)
param_grid = [
    {
        "features": ["passthrough", user_features_only],
        "model": [LogisticRegression()],
        "model__C": [0.01, 1.0],
    },
    {
        "model": [
            HistGradientBoostingClassifier(
                max_iter=60, early_stopping=False, random_state=0
            )
        ],
        "model__max_leaf_nodes": [3, 15],
    },
]
search = GridSearchCV(
    pipeline,
    param_grid,
    scoring=scoring,
    refit="ndcg@10",
    cv=GroupKFold(n_splits=3),
)
search.fit(X, y, groups=user)


def describe(params):
    model = type(params["model"]).__name__
    if params.get("features") is user_features_only:
        model += " (user features)"
    options = {k.split("__")[1]: v for k, v in params.items() if "__" in k}
    return f"{model} {options}"


results = pd.DataFrame(
    {name: search.cv_results_[f"mean_test_{name}"] for name in scoring},
    index=[describe(p) for p in search.cv_results_["params"]],
).sort_values("ndcg@10", ascending=False)
results.round(4)

# %%
# The best model by NDCG\@10:
print(describe(search.best_params_), f"NDCG@10 = {search.best_score_:.4f}")

# %%
# Reading the results
# -------------------
#
# * The gradient-boosted trees win on every metric: they learn the
#   interaction between user and item features.
# * The model that only sees **user features** scores every item of a user
#   alike.  It cannot order a user's items at all: its GAUC is 0.5 and its
#   NDCG\@10 the chance level, because tied scores count as the average over
#   their orderings (:ref:`convention_ties`).  (A score of 0.4999 instead of
#   0.5 comes from the last bits of floating-point arithmetic, which can
#   differ between rows that are equal in exact arithmetic.)  Yet its pooled
#   ROC AUC is well above 0.5, because it tells active users from passive
#   ones -- which changes nothing in what any user is shown.
# * ``roc_auc`` and ``neg_log_loss`` are still worth watching: a CTR model
#   is also used for its calibrated probabilities (bidding, budgeting).
#   Scoring all four in one search costs a single prediction per fold:
#   the scorers share scikit-learn's prediction cache.
import matplotlib.pyplot as plt

# Points of candidates with similar scores would overlap, and so would
# their labels: each candidate gets its own marker, named in the legend.
fig, ax = plt.subplots(figsize=(7, 4.5))
markers = ["o", "s", "^", "v", "D", "P"]
for (label, row), marker in zip(results.iterrows(), markers, strict=True):
    ax.scatter(row["roc_auc"], row["gauc"], marker=marker, s=60, label=label)
ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
ax.set_xlabel("pooled ROC AUC (roc_auc)")
ax.set_ylabel("group AUC (gauc)")
ax.set_title("Pooled AUC rewards ranking users, GAUC only items")
ax.legend(fontsize=7, loc="upper left")
fig.tight_layout()
plt.show()

# %%
sklearn.set_config(enable_metadata_routing=False)
