"""calibration_report against the scikit-learn calls it replaces.

Prints the time of ``calibration_report(..., groups=...)`` (every
statistic for every field value, overall and the field RCE) and ratios to
baselines measured in the same run: one ``sklearn.metrics.log_loss`` plus
one ``roc_auc_score`` on all rows (two statistics, overall only), and a
per-group Python loop of ``log_loss`` + ``roc_auc_score`` (the obvious
way to get them per field value).

    python benchmarks/bench_calibration.py
"""

import numpy as np
from _timing import paired_times
from sklearn.metrics import log_loss, roc_auc_score

from sklearn_rankmetrics import calibration_report


def main(n_rows=1_000_000, n_groups=200, repeat=3):
    rng = np.random.default_rng(0)
    groups = rng.integers(0, n_groups, n_rows)
    p = rng.uniform(0.001, 0.3, n_rows)
    y = (rng.uniform(size=n_rows) < p).astype(np.int8)

    def report():
        calibration_report(y, p, groups=groups, output_dict=True)

    def overall_only():
        log_loss(y, p)
        roc_auc_score(y, p)

    def per_group_loop():
        for g in range(n_groups):
            m = groups == g
            log_loss(y[m], p[m], labels=[0, 1])
            roc_auc_score(y[m], p[m])

    base, ours, ratio = paired_times(overall_only, report, repeat)
    print(f"{n_rows} rows, {n_groups} field values")
    print(f"calibration_report            {ours * 1e3:8.1f} ms")
    print(f"log_loss + roc_auc_score      {base * 1e3:8.1f} ms   ratio {ratio:.2f}")
    loop, ours, ratio = paired_times(per_group_loop, report, 1)
    print(f"per-group loop of the two     {loop * 1e3:8.1f} ms   ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
