"""
=====================================================
NDCG by user segment and by item popularity stratum
=====================================================

An average over all users hides who a recommender serves and what it
recommends.  This example evaluates two models of MovieLens-like implicit
feedback -- the most popular items, and a truncated SVD factorisation --
from an impressions table in a pandas DataFrame, by column name, with
:func:`~sklearn_rankmetrics.ranking_report`:

- ``group_col=``: one row per segment of users (light, medium and heavy
  users by their number of training interactions), each the report on the
  segment's users alone;
- ``item_group_col=``: one row per popularity stratum of items (head,
  torso, tail, by :func:`~sklearn_rankmetrics.popularity_strata`), counting
  only the stratum's held-out items as relevant;

with 95 % bootstrap intervals over the users of each row
(``confidence_level=``), and plots NDCG@10 for each.
"""

# %%
# Data: implicit feedback, and a long table of candidate items
# -------------------------------------------------------------
# Every user's candidates are the items not seen in training; the table
# holds one row per (user, candidate item) with the held-out label and each
# model's score.
import numpy as np
import pandas as pd
from sklearn.decomposition import TruncatedSVD

from sklearn_rankmetrics.datasets import make_interactions

train, test = make_interactions(n_users=1500, n_items=400, random_state=0)
seen = train.toarray() > 0
user, item = np.nonzero(~seen)

popularity = np.asarray(train.sum(axis=0)).ravel()
svd = TruncatedSVD(n_components=16, random_state=0).fit(train)
svd_scores = svd.transform(train) @ svd.components_

n_seen = seen.sum(axis=1)
activity = pd.cut(
    n_seen, [-np.inf, 10, 25, np.inf], labels=["light", "medium", "heavy"]
)

# %%
# The popularity strata of the items: the head holds the first 20 % of the
# training interactions, the tail the last 20 %.
import sklearn_rankmetrics as rm

stratum = rm.popularity_strata(popularity)
print({s: int((stratum == s).sum()) for s in ("head", "torso", "tail")})

table = pd.DataFrame(
    {
        "user": user,
        "item": item,
        "held_out": test.toarray()[user, item],
        "popularity": popularity[item],
        "svd": svd_scores[user, item],
        "activity": activity[user],
        "stratum": stratum[item],
    }
)
print(f"{len(table)} rows, {table['user'].nunique()} users")

# %%
# Reports by segment and by stratum
# ---------------------------------
# One call per model; the segments and strata are columns of the table.
reports = {}
for model in ("popularity", "svd"):
    reports[model] = rm.ranking_report(
        table,
        query_col="user",
        label_col="held_out",
        score_col=model,
        group_col="activity",
        item_group_col="stratum",
        k=10,
        metrics=["ndcg", "recall"],
        confidence_level=0.95,
        n_bootstrap=999,
        random_state=0,
        output_dict=True,
    )
print(
    rm.ranking_report(
        table,
        query_col="user",
        label_col="held_out",
        score_col="svd",
        group_col="activity",
        item_group_col="stratum",
        k=10,
        metrics=["ndcg", "recall"],
    )
)

# %%
# The plot
# --------
# NDCG@10 with its interval, per segment of users (left) and per stratum of
# items (right).  Both models serve heavy users better than light ones.
# The popularity model finds the held-out head items and almost nothing
# else; the SVD model spreads its hits over the head and the torso; neither
# finds a tail item -- which their overall NDCG does not show.
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
panels = [
    ("groups", ["light", "medium", "heavy"], "users by activity"),
    ("item_groups", ["head", "torso", "tail"], "items by popularity"),
]
for ax, (section, labels, title) in zip(axes, panels, strict=True):
    x = np.arange(len(labels))
    for offset, (model, report) in zip(
        (-0.15, 0.15), reports.items(), strict=True
    ):
        means = [report[section][label]["ndcg@10"] for label in labels]
        intervals = [
            report["intervals"][section][label]["ndcg@10"] for label in labels
        ]
        low = [m - lo for m, (lo, _) in zip(means, intervals, strict=True)]
        high = [hi - m for m, (_, hi) in zip(means, intervals, strict=True)]
        ax.errorbar(
            x + offset,
            means,
            yerr=[low, high],
            fmt="o",
            capsize=4,
            label=model,
        )
        overall = report["overall"]["ndcg@10"]
        ax.axhline(overall, color=ax.lines[-1].get_color(), lw=0.8, ls=":")
    ax.set_xticks(x, labels)
    ax.set_title(title)
axes[0].set_ylabel("NDCG@10 (95% bootstrap interval)")
axes[0].legend(title="model (dotted: overall)")
fig.tight_layout()
plt.show()
