"""The package and its command line import only what they use.

``import sklearn_rankmetrics`` is lazy (PEP 562): a public name's module is
imported on first use.  The command line and the metric functions need
numpy and scipy.sparse only; scikit-learn (about a second to import),
pandas, matplotlib and pyarrow are imported by the surfaces that use them.
Each check runs in a fresh interpreter, since this test process has
imported everything already.
"""

import json
import subprocess
import sys

import pytest

import sklearn_rankmetrics

HEAVY = ("sklearn", "pandas", "matplotlib", "pyarrow", "scipy.stats", "dask", "pyspark")


def _loaded_after(code, heavy=HEAVY):
    """The ``heavy`` modules in sys.modules after running ``code`` afresh."""
    script = (
        "import sys, json\n"
        f"{code}\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import sklearn_rankmetrics",
        "import sklearn_rankmetrics._cli",
        "from sklearn_rankmetrics import ndcg_at_k, ranking_report, group_auc_score\n"
        "ndcg_at_k([[1, 0, 2]], [[0.3, 0.2, 0.1]], k=2)\n"
        "ranking_report([1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], query_id=[0, 0, 1, 1])",
    ],
)
def test_no_heavy_import(code):
    assert _loaded_after(code) == []


def test_command_line_run_imports_no_heavy_module(tmp_path):
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 0.9 r\n1 Q0 d2 2 0.5 r\n")
    code = (
        "import io, contextlib\n"
        "from sklearn_rankmetrics._cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'ndcg_cut.10',"
        " '-m', 'map', '-m', 'P.5'])"
    )
    # The TREC reader splits lines with pyarrow when it is installed (which
    # may load pandas); scikit-learn and the rest stay out.
    heavy = tuple(m for m in HEAVY if m not in ("pyarrow", "pandas"))
    assert _loaded_after(code, heavy) == []


def test_every_public_name_resolves():
    for name in sklearn_rankmetrics.__all__:
        value = getattr(sklearn_rankmetrics, name)
        assert value.__name__ == name
    assert sklearn_rankmetrics.__all__ == sorted(sklearn_rankmetrics.__all__)
    assert set(sklearn_rankmetrics.__all__) <= set(dir(sklearn_rankmetrics))


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'ndcg'"):
        sklearn_rankmetrics.ndcg  # noqa: B018


def test_public_submodules_are_attributes():
    assert sklearn_rankmetrics.datasets.make_interactions is not None


def test_warning_class_is_sklearns():
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning):
        sklearn_rankmetrics.ndcg_at_k([[0, 0]], [[0.2, 0.1]], k=1)
