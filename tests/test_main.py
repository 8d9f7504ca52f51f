"""python -m sklearn_rankmetrics: the tuning demo, run small."""

import re
import subprocess
import sys

import pytest
import sklearn
from threadpoolctl import threadpool_limits

import sklearn_rankmetrics
from sklearn_rankmetrics._cli._demo import METRICS, main

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SMALL = ["--n-users", "60", "--folds", "2", "--n-jobs", "1"]


def _table_rows(out, first_header):
    """The rows under the header line starting with ``first_header``."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        rows.append(line.split())
    return lines[start].split(), rows


def test_main_logreg_prints_progress_table_and_choice(capsys):
    assert main([*SMALL, "--model", "logreg", "--refit", "gauc", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Click log: 60 users" in out
    assert "GroupKFold(2)" in out
    # one progress line per candidate, as it runs, with every metric
    scores = r"\s+".join(rf"{re.escape(name)} -?\d\.\d{{4}}" for name in METRICS)
    progress = re.findall(rf"^\s+\[(\d)/5\] C=\S+\s+{scores}  \(", out, re.M)
    assert progress == ["1", "2", "3", "4", "5"]
    header, rows = _table_rows(out, "rank(gauc)")
    assert header == ["rank(gauc)", "C", *METRICS]
    assert len(rows) == 5
    assert [row[0] for row in rows] == sorted(row[0] for row in rows)
    for row in rows:
        values = [float(cell.rstrip("*")) for cell in row[2:]]
        assert all(0.0 <= v <= 1.0 for v in values[:-1])  # ranking metrics, AUC
        assert values[-1] < 0.0  # neg_log_loss
    # each metric's best is starred once, and the refit metric's is row 1
    for j in range(len(METRICS)):
        assert sum(row[2 + j].endswith("*") for row in rows) == 1
    assert rows[0][2 + METRICS.index("gauc")].endswith("*")
    assert re.search(r"^Chosen by gauc: C=\S+$", out, re.M)
    header, rows = _table_rows(out, "metric")
    assert [row[0] for row in rows] == METRICS
    held_out = {row[0]: float(row[1]) for row in rows}
    # the report of the chosen model agrees with the held-out table
    assert "Ranking report of 'chosen by gauc'" in out
    report_at = out.index("Ranking report of")
    header, rows = _table_rows(out[report_at:].split("\n", 2)[2], "   ")
    assert header == ["@1", "@5", "@10", "@20"]
    report = {row[0]: row[1:] for row in rows}
    assert float(report["ndcg"][2]) == held_out["ndcg@10"]
    assert float(report["map"][2]) == held_out["map@10"]
    assert float(report["gauc"][0]) == held_out["gauc"]
    # and every metric's choice is compared with the default parameters
    assert "Every model against 'default parameters'" in out
    assert re.search(r"^ndcg@10\s+a default parameters\s", out, re.M)
    assert re.search(r"^\s+b chosen by gauc\s", out, re.M)
    # ... on the metrics of the search that are the package's (the registry
    # reads them from METRICS), at their cut-off
    compared = re.findall(r"^(\S+)\s+a default parameters\s", out, re.M)
    assert compared == ["ndcg@10", "map@10", "mrr@10", "gauc"]
    assert compared == [m for m in METRICS if m not in ("roc_auc", "neg_log_loss")]
    assert re.search(r"^Done in \d+\.\d s\.$", out, re.M)


def test_main_hgb_default_model_restores_config(capsys):
    before = sklearn.get_config()
    # one OpenMP thread: on a busy machine HistGradientBoosting's thread
    # pool, not the work, dominates these tiny fits
    with threadpool_limits(limits=1, user_api="openmp"):
        assert main([*SMALL, "--n-users", "40"]) == 0
    assert sklearn.get_config() == before
    assert not sklearn.get_config()["enable_metadata_routing"]
    out = capsys.readouterr().out
    assert "HistGradientBoostingClassifier: 9 candidates x 2 folds = 18 fits" in out
    header, rows = _table_rows(out, "rank(ndcg@10)")
    assert header[1:3] == ["learning_rate", "max_leaf_nodes"]
    assert len(rows) == 9


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--refit", "accuracy"], "argument --refit: invalid choice"),
        (["--folds", "1"], "argument --folds: must be an int >= 2"),
        (["--folds", "0"], "argument --folds: must be an int >= 2"),
        (["--folds", "two"], "argument --folds: invalid int value: 'two'"),
        (["--n-jobs", "0"], "argument --n-jobs: must be a positive number"),
        (["--seed", "-1"], "argument --seed: must be an int from 0 to 4294967295"),
        (["--seed", str(2**32)], "argument --seed: must be an int from 0"),
        (["--n-users", "3"], "argument --n-users: must be an int >= 4"),
        (["--n-users", "5"], "argument --n-users: must be at least twice --folds"),
        (["--n-users", "7", "--folds", "4"], "at least twice --folds (8); got 7"),
        (["--model", "svm"], "argument --model: invalid choice"),
    ],
)
def test_main_rejects_bad_options_with_a_usage_error(capsys, argv, message):
    # --folds 1, --folds 0, --n-jobs 0 and --seed -1 used to crash with a
    # traceback deep in scikit-learn or numpy
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m sklearn_rankmetrics")
    assert message in err


def test_main_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == (
        f"python -m sklearn_rankmetrics {sklearn_rankmetrics.__version__}\n"
    )


def test_usage_error_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "sklearn_rankmetrics", "--folds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error: argument --folds: must be an int >= 2" in result.stderr


def test_help_as_a_module():
    result = subprocess.run(
        [sys.executable, "-m", "sklearn_rankmetrics", "--help"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert "usage: python -m sklearn_rankmetrics" in result.stdout
    for command in ["demo", "evaluate", "--version"]:
        assert command in result.stdout
    demo = subprocess.run(
        [sys.executable, "-m", "sklearn_rankmetrics", "demo", "--help"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert "usage: python -m sklearn_rankmetrics" in demo.stdout
    for option in ["--n-users", "--seed", "--refit", "--model", "--folds", "--version"]:
        assert option in demo.stdout
