"""Start-up cost: the package and its command line import lazily (issue 19).

Each check runs in a fresh interpreter, since the test session itself has
long imported scikit-learn.
"""

import importlib
import json
import subprocess
import sys

import pytest

import sklearn_rankmetrics

HEAVY = ["sklearn", "scipy.stats", "scipy.special", "pandas", "matplotlib", "pyarrow"]


def _run(code):
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["sklearn_rankmetrics", "sklearn_rankmetrics._cli"])
def test_import_does_not_load_heavy_modules(module):
    loaded = _run(
        f"import json, sys, {module}\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    assert loaded == []


def test_cli_module_does_not_load_scipy():
    # scipy.sparse alone costs 0.3-0.8 s (scipy._lib._array_api); dense and
    # TREC inputs never need it.
    loaded = _run(
        "import json, sys, sklearn_rankmetrics._cli\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] == 'scipy']\n"
        "print(json.dumps(sorted(loaded)))"
    )
    assert loaded == []


def test_every_public_name_resolves_and_is_listed():
    names = _run(
        "import json, sklearn_rankmetrics as s\n"
        "ok = [n for n in s.__all__ if getattr(s, n) is not None]\n"
        "print(json.dumps([ok, dir(s), s.__all__]))"
    )
    ok, listed, all_ = names
    assert ok == all_
    assert set(all_) <= set(listed)
    assert all_ == sorted(all_)
    # __all__ is the hand table of the names the registry does not know and
    # the registry's metric functions, each once
    from sklearn_rankmetrics._registry import all_metrics

    metrics = {spec.function.__name__ for spec in all_metrics().values()}
    assert set(all_) == set(sklearn_rankmetrics._WHERE) | metrics
    assert not metrics & set(sklearn_rankmetrics._WHERE)


def test_star_import_gives_every_public_name():
    # PEP 562: __all__ is computed when ``import *`` asks for it
    got = _run(
        "import json\n"
        "namespace = {}\n"
        "exec('from sklearn_rankmetrics import *', namespace)\n"
        "import sklearn_rankmetrics as s\n"
        "print(json.dumps([sorted(n for n in namespace if n != '__builtins__'),"
        " s.__all__, namespace['ndcg_at_k'] is s.ndcg_at_k]))"
    )
    star, all_, same = got
    assert star == all_
    assert {"ndcg_at_k", "catalog_coverage_at_k", "group_auc_score"} <= set(star)
    assert {"ranking_report", "get_scorer", "normalized_entropy"} <= set(star)
    assert same


def test_root_import_does_not_read_the_registry():
    # the root's metric names come from the registry, read at their first use
    loaded = _run(
        "import json, sys, sklearn_rankmetrics\n"
        "before = 'sklearn_rankmetrics._registry' in sys.modules\n"
        "sklearn_rankmetrics.ndcg_at_k\n"
        "print(json.dumps([before, 'sklearn_rankmetrics._registry' in sys.modules]))"
    )
    assert loaded == [False, True]


def test_command_line_never_reads_the_root_lazy_names(tmp_path):
    # The command line imports what it needs from the modules that define
    # it: starting it and evaluating a run asks the root for no name (so it
    # never imports the registry through the root's lazy exports).
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 0.9 r\n1 Q0 d2 2 0.5 r\n")
    asked = _run(
        "import io, json, contextlib, sklearn_rankmetrics as root\n"
        "asked = []\n"
        "lazy = root.__getattr__\n"
        "def spy(name):\n"
        "    asked.append(name)\n"
        "    return lazy(name)\n"
        "root.__getattr__ = spy\n"
        "from sklearn_rankmetrics._cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'ndcg_cut.10',"
        " '-m', 'map'])\n"
        "print(json.dumps(asked))"
    )
    assert asked == []


def test_public_names_are_the_defining_objects():
    import importlib

    from sklearn_rankmetrics._registry import all_metrics

    for name, module_name in sklearn_rankmetrics._WHERE.items():
        module = importlib.import_module(f"sklearn_rankmetrics.{module_name}")
        assert getattr(sklearn_rankmetrics, name) is getattr(module, name)
    for spec in all_metrics().values():
        function = spec.function
        assert getattr(sklearn_rankmetrics, function.__name__) is function
        module = importlib.import_module(function.__module__)
        assert getattr(module, function.__name__) is function
    exec("from sklearn_rankmetrics import ndcg_at_k, ranking_report", {})


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_metric'"):
        sklearn_rankmetrics.not_a_metric  # noqa: B018


def test_metric_call_and_sklearn_warning_class_in_fresh_interpreter():
    # ndcg of one query ranking the relevant item second: 1 / log2(3);
    # the second call has no relevant item anywhere -> nan and the warning,
    # which must be scikit-learn's class (users filter it by that class).
    value, warned, loaded_before = _run(
        "import json, sys, warnings\n"
        "from sklearn_rankmetrics import ndcg_at_k\n"
        "v = ndcg_at_k([[0, 1]], [[0.9, 0.1]], k=2)\n"
        "before = 'sklearn' in sys.modules\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    ndcg_at_k([[0, 0]], [[0.9, 0.1]], k=2)\n"
        "from sklearn.exceptions import UndefinedMetricWarning\n"
        "print(json.dumps([v, [x.category is UndefinedMetricWarning for x in w],"
        " before]))"
    )
    assert value == pytest.approx(1 / __import__("math").log2(3))
    assert warned and all(warned)
    assert loaded_before is False


def test_sparse_input_still_recognised():
    sp = pytest.importorskip("scipy.sparse")
    from sklearn_rankmetrics import precision_at_k

    y_true = sp.csr_matrix([[1, 0, 1], [0, 1, 0]])
    y_score = [[0.3, 0.2, 0.1], [0.1, 0.9, 0.5]]
    # query 1: top-2 = items 0, 1 -> 1 hit; query 2: items 1, 2 -> 1 hit
    assert precision_at_k(y_true, y_score, k=2) == pytest.approx(0.5)


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
    # The TREC reader splits lines with pyarrow when it is installed;
    # scikit-learn, pandas and the rest stay out.
    heavy = [m for m in HEAVY if m != "pyarrow"]
    report = (
        "\nimport json, sys\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    assert _run(code + report) == []


def test_public_submodules_are_attributes():
    assert sklearn_rankmetrics.datasets.make_interactions is not None


def test_every_registry_function_is_public():
    # A metric added to the registry is a public function of the package,
    # with no other list to edit: listed in __all__ and importable from the
    # root, the very object; the root's hand table holds no registry name
    # (tests/test_recipe.py adds a metric and finds it there).
    from sklearn_rankmetrics._registry import BEYOND_METRICS, METRICS

    specs = [*METRICS.values(), *BEYOND_METRICS.values()]
    for spec in specs:
        name = spec.function.__name__
        assert name in sklearn_rankmetrics.__all__, name
        assert getattr(sklearn_rankmetrics, name) is spec.function, name
        assert name not in sklearn_rankmetrics._WHERE, name


def test_no_private_module_lists_registry_names():
    # the registry is the one list of metrics: a private module's __all__
    # (its own copy of names, which a new metric would have to join) holds
    # none of them
    import pkgutil

    from sklearn_rankmetrics._registry import all_metrics

    names = {spec.function.__name__ for spec in all_metrics().values()}
    checked = 0
    for info in pkgutil.walk_packages(
        sklearn_rankmetrics.__path__, "sklearn_rankmetrics."
    ):
        if info.name.rpartition(".")[2] in ("dask", "spark", "__main__"):
            continue  # (optional engines, the command line's entry point)
        module = importlib.import_module(info.name)
        listed = set(getattr(module, "__all__", ()))
        assert not listed & names, (info.name, sorted(listed & names))
        checked += 1
    assert checked > 30


# Public names that compute without scikit-learn: importing them loads none
# of the heavy modules (scikit-learn comes when a metric warns; the
# scorers, estimators, comparisons and plots build on it), nor do the
# engine integrations' modules (Dask and Spark workers import them).
LIGHT = (
    "ndcg_at_k",
    "group_auc_score",
    "catalog_coverage_at_k",
    "ranking_report",
    "RankingEvaluator",
    "CalibrationEvaluator",
    "calibration_report",
    "normalized_entropy",
    "popularity_strata",
    "propensity_diagnostics",
    "read_trec_run",
)


@pytest.mark.parametrize("name", [*LIGHT, "dask", "spark"])
def test_computing_surfaces_import_no_heavy_module(name):
    loaded = _run(
        "import json, sys, sklearn_rankmetrics\n"
        f"getattr(sklearn_rankmetrics, {name!r})\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    assert loaded == [], name
