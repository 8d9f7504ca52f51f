r"""
============================================================
A leaky random split and a temporal split choose differently
============================================================

Item popularity drifts: what users click today is not what they clicked a
month ago.  A model tuned with a random split of the log is tested on
interactions surrounded, in time, by training interactions -- including
later ones, which a deployed model never has.  This example tunes one
hyperparameter of a recommender twice, with a random split
(:class:`~sklearn.model_selection.GroupKFold`) and with a temporal one
(:class:`~sklearn_rankmetrics.model_selection.TimeRangeSplit`), and checks
both choices against what happens after deployment: training on the past,
testing on the following weeks.
"""

# %%
# A click log with drifting popularity
# ------------------------------------
#
# 40 items over 120 days; each item's appeal follows a random walk, day by
# day.  Every session (a user on a day) shows 8 random items, and each is
# clicked with a probability that grows with the item's appeal that day.
import numpy as np

rng = np.random.default_rng(0)
n_items, n_days, n_sessions, shown = 40, 120, 3000, 8
appeal = np.cumsum(rng.normal(scale=1.0, size=(n_days, n_items)), axis=0)
appeal -= appeal.mean(axis=1, keepdims=True)

session_day = np.sort(rng.integers(0, n_days, n_sessions))
session_user = rng.integers(0, 500, n_sessions)
item = np.concatenate(
    [rng.choice(n_items, shown, replace=False) for _ in session_day]
)
session = np.repeat(np.arange(n_sessions), shown)
time = session_day[session] + rng.random(session.shape[0])  # in days
user = session_user[session]
p_click = 1 / (1 + np.exp(-(appeal[session_day[session], item] - 2.0)))
click = (rng.random(session.shape[0]) < p_click).astype(int)
X = np.column_stack([item, time])
print(f"{len(click)} impressions, {click.mean():.1%} clicked")

# %%
# A recommender with a time window
# --------------------------------
#
# The model scores an item by its clicks in the training rows within
# ``window`` days of the moment scored -- before *or after* it: a random
# split hands it later clicks, a deployed model only has earlier ones.
from sklearn.base import BaseEstimator


class WindowPopularity(BaseEstimator):
    """Score = training clicks on the item within ``window`` days."""

    def __init__(self, window=1.0):
        self.window = window

    def fit(self, X, y):
        clicked = np.asarray(y) == 1
        keys = X[clicked, 0] * 1e4 + X[clicked, 1]  # item, then time
        self.keys_ = np.sort(keys)
        return self

    def predict(self, X):
        center = X[:, 0] * 1e4 + X[:, 1]
        high = np.searchsorted(self.keys_, center + self.window, side="right")
        low = np.searchsorted(self.keys_, center - self.window, side="left")
        return (high - low).astype(float)


# %%
# Tuning with a random split and with a temporal split
# ----------------------------------------------------
#
# Both searches score NDCG\@3 per session (``query_id``) on the first 113
# days; the last week is kept to check the choice.  The random split keeps
# sessions whole (``GroupKFold`` over sessions); the temporal split tests on
# four consecutive weeks, training on everything before each.
# With metadata routing enabled, ``groups`` and ``time`` reach the
# splitter and ``query_id`` the scorer.
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rankmetrics import get_scorer
from sklearn_rankmetrics.model_selection import TimeRangeSplit

sklearn.set_config(enable_metadata_routing=True)

# the last week is kept for the check after "deployment"
past = time < n_days - 7
windows = [0.5, 1, 2, 4, 8, 16, 32]
grid = {"window": windows}
scoring = get_scorer("ndcg@3")

random_search = GridSearchCV(
    WindowPopularity(), grid, cv=GroupKFold(4), scoring=scoring
).fit(X[past], click[past], groups=session[past], query_id=session[past])
temporal_search = GridSearchCV(
    WindowPopularity(),
    grid,
    cv=TimeRangeSplit(n_splits=4, test_size=7),
    scoring=scoring,
).fit(
    X[past],
    click[past],
    groups=user[past],
    time=time[past],
    query_id=session[past],
)
print("random split picks window =", random_search.best_params_["window"])
print("temporal split picks window =", temporal_search.best_params_["window"])

# %%
# What deployment would have shown
# --------------------------------
#
# Train on all the past, then score the next week: a model only ever sees
# clicks from before the moment it scores.
from sklearn_rankmetrics import ndcg_at_k

future = ~past
deployed = []
for window in windows:
    model = WindowPopularity(window).fit(X[past], click[past])
    deployed.append(
        ndcg_at_k(
            click[future],
            model.predict(X[future]),
            k=3,
            query_id=session[future],
        )
    )
print("best window after deployment =", windows[int(np.argmax(deployed))])
for name, search in (("random", random_search), ("temporal", temporal_search)):
    chosen = windows.index(search.best_params_["window"])
    print(
        f"{name} split: NDCG@3 {search.best_score_:.3f} in the search, "
        f"{deployed[chosen]:.3f} after deployment"
    )

# %%
# The random split rewards a narrow window, which reads the clicks of the
# same days -- from the future as much as from the past -- and promises an
# NDCG\@3 that deployment does not deliver.  The temporal split, like
# deployment, has only the past: it prefers a window wide enough to reach
# back from every day of the test week to the training data, the window
# that is also best after deployment.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(
    windows,
    random_search.cv_results_["mean_test_score"],
    "o-",
    label="random split (GroupKFold)",
)
ax.plot(
    windows,
    temporal_search.cv_results_["mean_test_score"],
    "s-",
    label="temporal split (TimeRangeSplit)",
)
ax.plot(windows, deployed, "k^--", label="after deployment (next week)")
ax.set_xscale("log", base=2)
ax.set_xlabel("window (days)")
ax.set_ylabel("NDCG@3")
ax.legend()
fig.tight_layout()

sklearn.set_config(enable_metadata_routing=False)
