r"""
==========================================
Calibration of a click-through-rate model
==========================================

A CTR model's probabilities are used as probabilities (bids, budgets), so
they must be calibrated, not only well ordered.  This example trains two
logistic regressions on a synthetic click log, one of them with
``class_weight="balanced"`` (a common trick against rare clicks, which
inflates every probability), and compares them with the normalized
entropy, the calibration ratio and the per-field calibration report and
plot of :mod:`sklearn_rankmetrics`.
"""

# %%
# A click log and two models
# --------------------------
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from sklearn_rankmetrics import (
    GroupCalibrationDisplay,
    calibration_ratio,
    calibration_report,
    normalized_entropy,
)
from sklearn_rankmetrics.datasets import make_click_log

X, y, user = make_click_log(n_users=2000, random_state=0)
# a "field": the first item feature cut into four levels
field = np.digitize(X[:, 5], np.quantile(X[:, 5], [0.25, 0.5, 0.75]))
X_train, X_test, y_train, y_test, _, field_test = train_test_split(
    X, y, field, test_size=0.5, random_state=0
)
plain = LogisticRegression().fit(X_train, y_train)
balanced = LogisticRegression(class_weight="balanced").fit(X_train, y_train)
p_plain = plain.predict_proba(X_test)[:, 1]
p_balanced = balanced.predict_proba(X_test)[:, 1]

# %%
# Overall: nearly the same AUC; NE and the ratio show the inflation
# -----------------------------------------------------------------
for name, p in [("plain", p_plain), ("balanced", p_balanced)]:
    print(
        f"{name:9s} AUC {roc_auc_score(y_test, p):.3f}  "
        f"NE {normalized_entropy(y_test, p):.3f}  "
        f"calibration ratio {calibration_ratio(y_test, p):.2f}"
    )

# %%
# Per field value
# ---------------
print(calibration_report(y_test, p_balanced, groups=field_test, digits=3))

# %%
# The plot: points far above the diagonal over-predict
display = GroupCalibrationDisplay.from_predictions(
    y_test, p_plain, groups=field_test, name="plain"
)
GroupCalibrationDisplay.from_predictions(
    y_test,
    p_balanced,
    groups=field_test,
    name="balanced",
    ax=display.ax_,
    ref_line=False,
)
