"""What the command line imports: ``--help``, ``--version`` and usage
errors load no metric (no numpy, no registry); ``evaluate --help`` reads
the default measures from the registry when it prints them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import contextlib, io, json, sys
from sklearn_rankmetrics._cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    code = main(sys.argv[1:])
loaded = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("numpy", "scipy", "sklearn", "pandas", "pyarrow")
    or m.startswith(("sklearn_rankmetrics._registry", "sklearn_rankmetrics._metrics",
                     "sklearn_rankmetrics._engine", "sklearn_rankmetrics._evaluation"))
)
print(json.dumps({"code": code, "out": out.getvalue(), "loaded": loaded}))
"""


def probe(*argv):
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "argv, code, text",
    [
        (["--help"], 0, "evaluate  evaluate TREC runs"),
        (["--version"], 0, "(sklearn-rankmetrics)"),
        (["evaluate", "--format", "xml"], 2, "invalid choice: 'xml'"),
        (["evaluate", "--bogus"], 2, "unrecognized arguments: --bogus"),
    ],
)
def test_help_version_and_usage_errors_load_no_metric(argv, code, text):
    got = probe(*argv)
    assert got["code"] == code and text in got["out"]
    assert got["loaded"] == []


def test_evaluate_help_lists_the_registry_default_measures():
    from sklearn_rankmetrics._cli._measures import _LONG_DEFAULT
    from sklearn_rankmetrics._registry import METRICS, default_metrics

    got = probe("evaluate", "--help")
    assert got["code"] == 0
    text = " ".join(got["out"].split())  # argparse wraps the lines
    listed = " ".join(METRICS[m].label(10) for m in default_metrics(long_form=True))
    assert listed == " ".join(_LONG_DEFAULT)
    assert f"'official' set for TREC files, {listed} for --long" in text


def test_a_one_query_evaluate_loads_no_scipy_sklearn_or_pandas(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\n")
    run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\n")
    got = probe("evaluate", "-m", "ndcg_cut.10", str(qrels), str(run))
    assert got["code"] == 0
    assert got["out"] == "ndcg_cut_10           \tall\t0.7602\n"
    # (1/log2(2) + 2/log2(4)) / (2/log2(2) + 1/log2(3)) = 2 / 2.6309 = 0.7602
    heavy = [m for m in got["loaded"] if m.split(".")[0] != "numpy"]
    assert not [m for m in heavy if not m.startswith("sklearn_rankmetrics")]
