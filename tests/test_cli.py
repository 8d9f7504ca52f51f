"""The rankmetrics command line: trec_eval's output byte for byte, the
--long tables, the output formats, dispatch, and bad input (exit status 2,
a message, never a traceback)."""

import csv
import inspect
import io
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._cli import main
from tests.test_trec import random_files, write


@pytest.fixture(autouse=True)
def _arrow_reader_on_small_files(monkeypatch):
    """The tests' small files go through pyarrow's reader, as large files
    do (by default files under 1 MB are read in Python); the Python reader
    is compared with it in test_small_files_read_in_python_print_the_same."""
    from sklearn_rankmetrics._io import _trec

    monkeypatch.setattr(_trec, "_SMALL_FILE_BYTES", 0)


ROOT = Path(__file__).resolve().parents[1]

# trec_eval's measures this package computes (the rest are listed in the
# user guide as not implemented yet)
IN_SCOPE = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "recip_rank")
IN_SCOPE_PREFIX = ("P_", "recall_", "ndcg_cut_", "map_cut_", "success_")
IN_SCOPE_EXACT = (*IN_SCOPE, "runid", "ndcg", "set_P", "set_recall", "set_F")
IN_SCOPE_EXACT += ("Rprec", "bpref", "rbp", "rbp_resid")

CASES = {
    "aq": ["qrels.test", "results.test"],
    "aqc": ["-c", "qrels.test", "results.trunc"],
    "aqcM": ["-c", "-M100", "qrels.test", "results.trunc"],
    "aql": ["-l2", "qrels.rel_level", "results.test"],
}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def in_scope(line):
    name = line.split("\t")[0].strip()
    return name in IN_SCOPE_EXACT or name.startswith(IN_SCOPE_PREFIX)


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_output_byte_for_byte(capsys, case, trec_eval_data):
    peer = trec_eval_data
    args = [a if a.startswith("-") else str(peer / a) for a in CASES[case]]
    code, out, err = run_cli(capsys, "evaluate", "-q", "-m", "all_trec", *args)
    assert code == 0
    expected = (peer / f"out.test.{case}").read_text()
    expected = "".join(
        line for line in expected.splitlines(keepends=True) if in_scope(line)
    )
    assert out == expected  # every in-scope line, same order, same bytes
    assert "skipping trec_eval measures not in this package: gm_map" in err


def test_trec_eval_default_measures_and_single_measures(capsys, trec_eval_data):
    peer = trec_eval_data
    qrels, run = str(peer / "qrels.test"), str(peer / "results.test")
    expected = (peer / "out.test.aq").read_text().splitlines(keepends=True)
    code, out, _ = run_cli(capsys, "evaluate", qrels, run)
    official = ("runid", *IN_SCOPE, "Rprec", "bpref")
    want = [
        line
        for line in expected
        if "\tall\t" in line and (line.split()[0] in official or line.startswith("P_"))
    ]
    assert code == 0 and out == "".join(want)
    code, out, _ = run_cli(
        capsys, "evaluate", "-q", "-m", "ndcg_cut.10", "-m", "P.5", qrels, run
    )
    want = [line for line in expected if line.split()[0] in ("P_5", "ndcg_cut_10")]
    assert out == "".join(want)


def _json(capsys, *argv):
    code, out, _ = run_cli(capsys, "evaluate", "--format", "json", *argv)
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize("neg_inf", [False, True])
@pytest.mark.parametrize("level", [1, 2])
def test_cli_matches_pytrec_eval_on_generated_files(tmp_path, capsys, level, neg_inf):
    # neg_inf: run lines scored -inf are retrieved documents (num_ret)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = random_files(tmp_path, 3 + level, neg_inf=neg_inf)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    measures = ["map", "recip_rank", "ndcg", "P.3,10", "recall.5", "ndcg_cut.10"]
    measures += ["map_cut.5", "success.1,5", "num_ret", "num_rel", "num_rel_ret"]
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures), relevance_level=level
    ).evaluate(run)
    args = [x for m in measures for x in ("-m", m)]
    ours = _json(capsys, "-q", "-l", str(level), *args, qrels_path, run_path)
    ((tag, result),) = ours.items()
    assert tag == "gen4" if level == 1 else "gen5"
    assert sorted(result["queries"]) == sorted(theirs)
    for query, values in result["queries"].items():
        assert values.keys() == theirs[query].keys()
        for name, value in values.items():
            assert value == pytest.approx(theirs[query][name], rel=1e-12, abs=1e-12)
    for name, value in result["all"].items():
        column = [theirs[q][name] for q in theirs]
        total = np.sum(column) if name.startswith("num_") else np.mean(column)
        assert value == pytest.approx(total, rel=1e-12)


def test_formats_csv_table_and_several_runs(tmp_path, capsys, trec_eval_data):
    peer = trec_eval_data
    qrels, run = str(peer / "qrels.test"), str(peer / "results.test")
    trunc = str(peer / "results.trunc")
    code, out, _ = run_cli(
        capsys, "evaluate", "--format", "csv", "-q", "-m", "map", qrels, run
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["query"], round(float(r["value"]), 4)) for r in rows] == [
        ("301", 0.0324),
        ("302", 0.4175),
        ("303", 0.0858),
        ("all", 0.1785),
    ]
    # several runs side by side (same runid -> file names)
    code, out, _ = run_cli(
        capsys, "evaluate", "--no-compare", "-m", "map", "-m", "P.5", qrels, run, trunc
    )
    lines = out.splitlines()
    assert lines[0].split() == ["measure", "query", "results.test", "results.trunc"]
    assert lines[2].split() == ["map", "all", "0.1785", "0.1523"]
    assert lines[3].split() == ["P_5", "all", "0.2667", "0.3000"]
    # the package's names on TREC files use trec_eval's conventions
    result = _json(capsys, "-m", "ndcg@10", "-m", "map@100", qrels, run)
    assert round(result["STANDARD"]["all"]["ndcg@10"], 4) == 0.3016
    assert round(result["STANDARD"]["all"]["map@100"], 4) == 0.1622
    # --per-query writes every query's values with its id
    out_path = tmp_path / "pq.csv"
    code, _, _ = run_cli(
        capsys, "evaluate", "-m", "map", "--per-query", str(out_path), qrels, run
    )
    rows = list(csv.DictReader(out_path.open()))
    assert [(r["query"], r["model"]) for r in rows] == [
        ("301", "STANDARD"),
        ("302", "STANDARD"),
        ("303", "STANDARD"),
    ]
    assert round(float(rows[1]["map"]), 4) == 0.4175


# ---------------------------------------------------------------------------
# --long
# ---------------------------------------------------------------------------
def impressions(n_users=40, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=n_users)
    user = np.repeat([f"u{i:03d}" for i in range(n_users)], sizes)
    click = (rng.random(user.size) < 0.3).astype(int)
    a = np.round(rng.random(user.size) + 0.5 * click, 2)
    b = np.round(rng.random(user.size), 1)  # coarse: ties
    order = rng.permutation(user.size)
    return user[order], click[order], a[order], b[order]


def write_table(path, sep=","):
    user, click, a, b = impressions()
    lines = [sep.join(["user", "click", "model_a", "model_b"])]
    lines += [
        sep.join([u, str(c), str(float(x)), str(float(y))])
        for u, c, x, y in zip(user, click, a, b, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    return user, click, a, b


LONG_ARGS = ["--query-col", "user", "--label-col", "click"]


@pytest.mark.parametrize("ext, sep", [("csv", ","), ("tsv", "\t")])
def test_long_table_matches_public_functions(tmp_path, capsys, ext, sep):
    path = tmp_path / f"clicks.{ext}"
    user, click, a, b = write_table(path, sep)
    per_query = tmp_path / "per_query.csv"
    result = _json(
        capsys,
        "--long", str(path), *LONG_ARGS, "--score-col", "model_a", "model_b",
        "-m", "ndcg@5", "-m", "map@10", "-m", "gauc", "-m", "P.3",
        "--per-query", str(per_query), "-q", "--no-compare",
    )  # fmt: skip
    assert list(result) == ["model_a", "model_b"]
    for name, score in (("model_a", a), ("model_b", b)):
        got = result[name]["all"]
        kw = dict(query_id=user)
        assert got["ndcg@5"] == pytest.approx(srm.ndcg_at_k(click, score, k=5, **kw))
        assert got["map@10"] == pytest.approx(
            srm.average_precision_at_k(click, score, k=10, **kw)
        )
        assert got["gauc"] == pytest.approx(srm.group_auc_score(click, score, **kw))
        assert got["P_3"] == pytest.approx(srm.precision_at_k(click, score, k=3, **kw))
        per_user = srm.group_auc_score(click, score, average=None, **kw)
        queries = result[name]["queries"]
        assert list(queries) == list(np.unique(user))
        got_gauc = [queries[u]["gauc"] for u in np.unique(user)]
        np.testing.assert_allclose(
            np.array(got_gauc, dtype=float), per_user, equal_nan=True
        )
    rows = list(csv.DictReader(per_query.open()))
    assert len(rows) == 2 * np.unique(user).size
    assert rows[0]["user"] == "u000" and rows[0]["model"] == "model_a"
    assert set(rows[0]) == {"user", "model", "ndcg@5", "map@10", "gauc", "P_3"}


def test_long_parquet_weights_and_table(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    user, click, a, _ = impressions(seed=1)
    weight = np.unique(user, return_inverse=True)[1] % 3 + 1.0  # per user
    path = tmp_path / "clicks.parquet"
    pq.write_table(
        pa.table({"user": user, "click": click, "score": a, "w": weight}), path
    )
    args = ["--long", str(path), *LONG_ARGS, "--score-col", "score"]
    result = _json(capsys, *args, "--weight-col", "w", "-m", "ndcg@10", "-m", "gauc")
    expected = srm.ndcg_at_k(click, a, k=10, query_id=user, sample_weight=weight)
    assert result["score"]["all"]["ndcg@10"] == pytest.approx(expected)
    expected = srm.group_auc_score(click, a, query_id=user, sample_weight=weight)
    assert result["score"]["all"]["gauc"] == pytest.approx(expected)
    code, out, _ = run_cli(capsys, "evaluate", *args)  # default: a table
    assert code == 0
    assert out.splitlines()[0].split() == ["measure", "query", "score"]
    # the registry's default set of the long form, at k=10, in its order
    assert [line.split()[0] for line in out.splitlines()[2:]] == [
        "precision@10", "recall@10", "f1@10", "hit_rate@10", "mrr@10",
        "map@10", "dcg@10", "ndcg@10", "gauc",
    ]  # fmt: skip


def test_long_missing_column_lists_available_columns(tmp_path, capsys):
    path = tmp_path / "clicks.csv"
    write_table(path)
    code, out, err = run_cli(
        capsys, "evaluate", "--long", str(path), "--query-col", "uid",
        "--label-col", "click", "--score-col", "model_a",
    )  # fmt: skip
    assert code == 2 and out == ""
    assert "no column 'uid'" in err
    assert "Available columns: 'user', 'click', 'model_a', 'model_b'" in err
    code, _, err = run_cli(capsys, "evaluate", "--long", str(path), *LONG_ARGS)
    assert code == 2 and "--score-col" in err
    argv = ["evaluate", "--long", str(path), *LONG_ARGS, "--score-col", "model_a"]
    code, _, err = run_cli(capsys, *argv, "-c")
    assert code == 2 and "-c and -M apply to TREC runs only" in err


def test_long_relevance_level(tmp_path, capsys):
    user, _, a, _ = impressions(seed=2)
    grade = np.arange(user.size) % 4
    path = tmp_path / "graded.csv"
    rows = [f"{u},{g},{x}" for u, g, x in zip(user, grade, a, strict=True)]
    path.write_text("user,grade,score\n" + "\n".join(rows) + "\n")
    args = ["--long", str(path), "--query-col", "user", "--label-col", "grade"]
    result = _json(capsys, *args, "--score-col", "score", "-l", "2", "-m", "map")
    expected = srm.average_precision_at_k(
        grade, a, query_id=user, relevance_threshold=2
    )
    assert result["score"]["all"]["map"] == pytest.approx(expected)
    assert expected != pytest.approx(
        srm.average_precision_at_k(grade, a, query_id=user)
    )


# ---------------------------------------------------------------------------
# Bad input: exit status 2, one message, no traceback
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "run_text, message",
    [
        ("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 x r\n", "line 2: the score"),
        ("q1 Q0 d1 1 0.5 r\nq1 Q0 d1 2 0.4 r\n", "lines 1 and 2"),
        ("q1 Q0 d1 1 0.5\n", "line 1: expected at least 6 fields"),
        ("", "the run file has no results"),
        ("q7 Q0 d1 1 0.5 r\n", "no query of the run"),
    ],
)
def test_bad_input_exits_2_with_a_message(tmp_path, capsys, run_text, message):
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run", run_text)
    code, out, err = run_cli(capsys, "evaluate", qrels, run)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_usage_errors(tmp_path, capsys):
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run", "q1 Q0 d1 1 0.5 r\nq1 Q0 d1 2 0.4 r\n")
    for argv, message in [
        (["-m", "infAP", qrels, run], "infAP is not implemented"),
        (["-m", "bpref@5", qrels, run], "takes no cut-off"),
        (["-m", "rbp.q=0.5", qrels, run], "rbp takes p=<number>"),
        (["-m", "rbp.p=x", qrels, run], "p must be a number"),
        (["-m", "ndcg_cut.23.4", qrels, run], "cut-offs after '.' must be integers"),
        (["-m", "nope@3", qrels, run], "measure 'nope@3': unknown metric"),
        (["-m", "P.x", qrels, run], "cut-offs after '.' must be integers"),
        (["-m", "gauc@5", qrels, run], "takes no cut-off"),
        (["-l", "0", qrels, run], "-l/--level must be >= 1"),
        ([qrels], "at least one run file"),
        ([qrels, str(tmp_path / "absent")], "run file not found"),
        (["--format", "xml", qrels, run], "invalid choice: 'xml'"),
    ]:
        code, out, err = run_cli(capsys, "evaluate", *argv)
        assert code == 2 and out == "", argv
        assert message in err and "Traceback" not in err, (argv, err)
    code, out, _ = run_cli(capsys, "evaluate", "--duplicates", "last", qrels, run)
    assert code == 0 and "map                   \tall\t1.0000" in out


def test_dispatch_demo_version_and_help(monkeypatch, capsys):
    calls = []
    fake = types.ModuleType("sklearn_rankmetrics._cli._demo")
    fake.main = lambda argv=None: calls.append(argv) or 0
    monkeypatch.setitem(sys.modules, "sklearn_rankmetrics._cli._demo", fake)
    import sklearn_rankmetrics._cli

    monkeypatch.setattr(sklearn_rankmetrics._cli, "_demo", fake, raising=False)
    assert main([]) == 0
    assert main(["--folds", "3"]) == 0
    assert main(["demo", "--n-users", "50"]) == 0
    assert calls == [[], ["--folds", "3"], ["--n-users", "50"]]
    code, out, _ = run_cli(capsys, "--version")
    assert (
        code == 0
        and out.strip() == f"rankmetrics (sklearn-rankmetrics) {srm.__version__}"
    )
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "evaluate" in out and "demo" in out
    code, out, _ = run_cli(capsys, "evaluate", "--help")
    assert code == 0 and "--long" in out and "all_trec" in out


def test_progress_on_stderr_when_it_is_a_terminal(tmp_path, capsys, monkeypatch):
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run", "q1 Q0 d1 1 0.5 r\n")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run_cli(capsys, "evaluate", "-m", "map", qrels, run)
    assert code == 0 and out == "map                   \tall\t1.0000\n"
    lines = err.splitlines()
    assert [line.split(" ...")[0] for line in lines] == [
        f"rankmetrics: reading {qrels}",
        f"rankmetrics: reading {run}",
        f"rankmetrics: evaluating {run}",
    ]
    assert all(re.fullmatch(r".* \.\.\. \d+\.\d s", line) for line in lines)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = run_cli(capsys, "evaluate", "--quiet", "-m", "map", qrels, run)
    assert code == 0 and err == ""


def test_quiet_and_no_progress_when_stderr_is_not_a_terminal(tmp_path, capsys):
    qrels = write(tmp_path, "qrels", "q1 0 d1 1\n")
    run = write(tmp_path, "run", "q1 Q0 d1 1 0.5 r\n")
    code, _, err = run_cli(capsys, "evaluate", "-m", "map", qrels, run)
    assert code == 0 and err == ""  # capsys' stderr is not a TTY
    code, _, err = run_cli(capsys, "evaluate", "--quiet", qrels, run)
    assert code == 0 and err == ""  # the note on skipped measures is quiet too


def test_module_runs_as_a_script(trec_eval_data):
    peer = trec_eval_data
    proc = subprocess.run(
        [
            sys.executable, "-m", "sklearn_rankmetrics._cli", "evaluate",
            "-m", "map", str(peer / "qrels.test"), str(peer / "results.test"),
        ],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # like trec_eval, only the requested measures (no runid line)
    assert proc.stdout == "map                   \tall\t0.1785\n"


# ---------------------------------------------------------------------------
# Several runs or score columns: the comparison
# ---------------------------------------------------------------------------
def two_runs(tmp_path):
    """A qrels, its run, and a second run: the same lines with other scores
    and without a few queries (so the runs answer different queries)."""
    qrels, run = random_files(tmp_path, 4, n_queries=40)
    rng = np.random.default_rng(9)
    lines = Path(run).read_text().splitlines()
    queries = sorted({line.split()[0] for line in lines})
    dropped = set(queries[::9])
    other = []
    for line in lines:
        q, q0, doc, rank, score, _ = line.split()
        if q not in dropped:
            score = float(score) + rng.normal(scale=0.5)
            other.append(f"{q} {q0} {doc} {rank} {score:.3f} other")
    return qrels, run, write(tmp_path, "other", "\n".join(other) + "\n")


def test_comparison_of_trec_runs_from_trec_eval_values(tmp_path, capsys):
    qrels, run_a, run_b = two_runs(tmp_path)
    measures = ["-m", "map", "-m", "ndcg_cut.10", "-m", "P.5", "-m", "num_ret"]
    plain = _json(capsys, "--no-compare", "-q", *measures, qrels, run_a, run_b)
    assert list(plain) == ["gen4", "other"]
    options = ["--test", "t-test", "--correction", "none", "--baseline", "gen4"]
    result = _json(capsys, *options, *measures, qrels, run_a, run_b)
    assert result["runs"] == {
        name: {"all": plain[name]["all"]} for name in ("gen4", "other")
    }
    comparison = result["comparison"]
    settings = comparison["settings"]
    assert (settings["test"], settings["correction"]) == ("t-test", None)
    assert settings["baseline"] == "gen4" and settings["seed"] == 0
    assert list(comparison["summary"]) == ["map", "P_5", "ndcg_cut_10"]  # no counts
    a, b = plain["gen4"]["queries"], plain["other"]["queries"]
    common = sorted(set(a) & set(b))
    assert len(common) < len(a)  # the runs answer different queries
    for test in comparison["tests"]:
        m = test["metric"]
        # each run's mean is trec_eval's (over the queries it answers)
        for name in ("gen4", "other"):
            mean = comparison["summary"][m][name]["mean"]
            assert mean == pytest.approx(plain[name]["all"][m], rel=1e-12)
        # the test pairs the queries both runs answer, with the per-query
        # values of trec_eval's conventions
        x = np.array([a[q][m] for q in common])
        y = np.array([b[q][m] for q in common])
        assert (test["model"], test["reference"]) == ("other", "gen4")
        assert test["n_paired"] == len(common)
        assert test["difference"] == pytest.approx(np.mean(y - x), rel=1e-12)
        expected = scipy.stats.ttest_rel(y, x).pvalue
        assert test["pvalue"] == pytest.approx(expected, rel=1e-9)
        assert test["pvalue_corrected"] == test["pvalue"]
    # the default layout for several runs: the comparison table
    code, out, _ = run_cli(capsys, "evaluate", *measures, qrels, run_a, run_b)
    assert code == 0
    assert out.splitlines()[0].split() == [
        "metric", "model", "mean", "95%", "CI", "wins", "over",
    ]  # fmt: skip
    assert "a gen4" in out and "b other" in out
    words = " ".join(out.split())
    assert "paired randomization (sign-flip) test" in words and "holm" in words
    # the same seed gives the same table; another level changes it
    assert run_cli(capsys, "evaluate", *measures, qrels, run_a, run_b)[1] == out
    code, out90, _ = run_cli(
        capsys, "evaluate", "--confidence-level", "0.9", *measures, qrels, run_a, run_b
    )
    assert "90% CI" in out90
    # with -q, the per-query values side by side before the comparison
    code, out_q, _ = run_cli(capsys, "evaluate", "-q", *measures, qrels, run_a, run_b)
    assert out_q.startswith("measure") and out_q.endswith(out)
    # the queries of both runs, each once per measure, in sorted id order
    table = out_q[: len(out_q) - len(out)].splitlines()
    map_rows = [line.split()[1] for line in table if line[:4] == "map "]
    assert map_rows[0] == "all"
    assert map_rows[1:] == sorted(set(a) | set(b))
    # trec_eval's layout has no comparison
    code, out_trec, _ = run_cli(
        capsys, "evaluate", "--format", "trec", *measures, qrels, run_a, run_b
    )
    assert "CI" not in out_trec and out_trec.count("map   ") == 2


def test_comparison_csv_and_wins(tmp_path, capsys):
    qrels, run_a, run_b = two_runs(tmp_path)
    code, out, _ = run_cli(
        capsys, "evaluate", "--format", "csv", "-m", "map", "-m", "P.5",
        "--correction", "bonferroni", qrels, run_a, run_b,
    )  # fmt: skip
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["metric"], r["model"], r["reference"]) for r in rows] == [
        ("map", "gen4", ""),
        ("map", "other", "gen4"),
        ("P_5", "gen4", ""),
        ("P_5", "other", "gen4"),
    ]
    result = _json(capsys, "-m", "map", "-m", "P.5", "--correction", "bonferroni",
                   qrels, run_a, run_b)  # fmt: skip
    tests = {t["metric"]: t for t in result["comparison"]["tests"]}
    for row in rows:
        summary = result["comparison"]["summary"][row["metric"]][row["model"]]
        assert float(row["mean"]) == summary["mean"]
        assert float(row["ci_low"]) == summary["ci_low"]
        if row["reference"]:
            test = tests[row["metric"]]
            assert float(row["pvalue_corrected"]) == test["pvalue_corrected"]
            assert row["significant"] == str(test["significant"]).lower()


def test_comparison_of_score_columns_marks_significant_wins(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n_users = 120
    user = np.repeat(np.arange(n_users), 8)
    click = (rng.random(user.size) < 0.3).astype(int)
    good = click + rng.random(user.size)  # ranks the clicks first
    noise = rng.random(user.size)
    path = tmp_path / "clicks.csv"
    lines = ["user,click,good,noise"] + [
        f"{u},{c},{g},{x}" for u, c, g, x in zip(user, click, good, noise, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    args = ["--long", str(path), *LONG_ARGS, "--score-col", "noise", "good"]
    code, out, _ = run_cli(capsys, "evaluate", *args, "-m", "ndcg@5", "-m", "gauc")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:5]]
    assert (
        rows
        == [
            ["ndcg@5", "a", "noise", *rows[0][3:6]],
            ["b", "good", *rows[1][2:5], "a"],  # good beats noise
            ["gauc", "a", "noise", *rows[2][3:6]],
            ["b", "good", *rows[3][2:5], "a"],
        ]
    )
    # --score-col repeated is the same as several columns after one flag
    repeated = ["--long", str(path), *LONG_ARGS, "--score-col", "noise"]
    repeated += ["--score-col", "good", "-m", "ndcg@5", "-m", "gauc"]
    assert run_cli(capsys, "evaluate", *repeated)[1] == out
    result = _json(capsys, *args, "-m", "ndcg@5", "--baseline", "noise", "--test",
                   "wilcoxon", "--n-resamples", "99")  # fmt: skip
    ((test,),) = [result["comparison"]["tests"]]
    assert test["significant"] and test["difference"] > 0
    expected = srm.compare_rankings(
        click, {"noise": noise, "good": good}, k=5, metrics=["ndcg"],
        query_id=user, baseline="noise", test="wilcoxon", n_resamples=99,
        random_state=0,
    ).to_dict()  # fmt: skip
    assert test["pvalue"] == pytest.approx(expected["tests"][0]["pvalue"], rel=1e-12)
    summary = result["comparison"]["summary"]["ndcg@5"]["good"]
    assert summary["mean"] == pytest.approx(
        expected["summary"]["ndcg@5"]["good"]["mean"], rel=1e-12
    )


def test_comparison_usage_errors(tmp_path, capsys):
    qrels, run_a, run_b = two_runs(tmp_path)
    for argv, message in [
        (["--baseline", "nope", qrels, run_a, run_b], "--baseline 'nope' is not one"),
        (["--baseline", "gen4", qrels, run_a], "--baseline names the reference"),
        (["--confidence-level", "95", qrels, run_a, run_b], "must be in (0, 1)"),
        (["--n-resamples", "0", qrels, run_a, run_b], "--n-resamples must be >= 1"),
        (["--test", "z", qrels, run_a, run_b], "invalid choice: 'z'"),
        (["-m", "num_ret", qrels, run_a, run_b], "nothing to compare"),
        (["--format", "csv", "-q", qrels, run_a, run_b], "--per-query OUT"),
    ]:
        code, out, err = run_cli(capsys, "evaluate", *argv)
        assert code == 2 and out == "", argv
        assert message in err and "Traceback" not in err, (argv, err)


# ---------------------------------------------------------------------------
# --long in chunks
# ---------------------------------------------------------------------------
def sorted_table(path, n_users=60, seed=5, fmt="csv"):
    """Rows grouped by user (user ids in shuffled order, not sorted)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=n_users)
    names = rng.permutation([f"u{i:03d}" for i in range(n_users)])
    user = np.repeat(names, sizes)
    click = (rng.random(user.size) < 0.3).astype(int)
    a = np.round(rng.random(user.size) + 0.5 * click, 2)
    b = np.round(rng.random(user.size), 1)  # ties
    w = np.repeat(rng.integers(1, 4, size=n_users), sizes).astype(float)
    columns = {"user": user, "click": click, "a": a, "b": b, "w": w}
    if fmt == "parquet":
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        pq.write_table(pa.table(columns), path, row_group_size=37)
    else:
        lines = [",".join(columns)] + [
            ",".join(map(str, row)) for row in zip(*columns.values(), strict=True)
        ]
        path.write_text("\n".join(lines) + "\n")
    return columns


CHUNK_ARGS = [
    *LONG_ARGS, "--score-col", "a", "b", "--weight-col", "w", "-q",
    "-m", "ndcg@5", "-m", "map@3", "-m", "gauc", "-m", "mrr", "-m", "num_rel",
]  # fmt: skip


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("chunk_rows", [1, 13, 200])
def test_long_in_chunks_equals_in_memory(tmp_path, capsys, fmt, chunk_rows):
    path = tmp_path / f"clicks.{fmt}"
    columns = sorted_table(path, fmt=fmt)
    assert columns["user"].size > 200  # every case is read in several chunks
    args = ["--long", str(path), *CHUNK_ARGS, "--no-compare"]
    whole = _json(capsys, *args)
    pq_whole, pq_chunks = tmp_path / "whole.csv", tmp_path / "chunks.csv"
    _json(capsys, *args, "--per-query", str(pq_whole))
    chunked = _json(
        capsys, *args, "--chunk-rows", str(chunk_rows), "--per-query", str(pq_chunks)
    )
    assert list(chunked) == list(whole) == ["a", "b"]
    for col in ("a", "b"):
        assert list(chunked[col]["queries"]) == sorted(set(columns["user"]))
        assert list(chunked[col]["queries"]) == list(whole[col]["queries"])
        for query, values in whole[col]["queries"].items():
            for name, value in values.items():
                got = chunked[col]["queries"][query][name]
                if value is None:  # nan: a skipped query
                    assert got is None
                else:
                    assert got == pytest.approx(value, rel=1e-12, abs=1e-12)
        for name, value in whole[col]["all"].items():
            assert chunked[col]["all"][name] == pytest.approx(value, rel=1e-12)
    # the in-memory result is the public functions' (weights included)
    kw = dict(query_id=columns["user"], sample_weight=columns["w"])
    click, a = columns["click"], columns["a"]
    assert chunked["a"]["all"]["ndcg@5"] == pytest.approx(
        srm.ndcg_at_k(click, a, k=5, **kw), rel=1e-12
    )
    assert chunked["a"]["all"]["gauc"] == pytest.approx(
        srm.group_auc_score(click, a, **kw), rel=1e-12
    )
    rows_whole = list(csv.DictReader(pq_whole.open()))
    rows_chunks = list(csv.DictReader(pq_chunks.open()))
    assert [(r["user"], r["model"]) for r in rows_chunks] == [
        (r["user"], r["model"]) for r in rows_whole
    ]
    for r_c, r_w in zip(rows_chunks, rows_whole, strict=True):
        for name in ("ndcg@5", "map@3", "gauc", "mrr", "num_rel"):
            assert float(r_c[name]) == pytest.approx(
                float(r_w[name]), rel=1e-12, abs=1e-12, nan_ok=True
            )
    # and the comparison of the two columns is the same
    cmp_args = ["--long", str(path), *CHUNK_ARGS[:-2]]
    whole = _json(capsys, *cmp_args)["comparison"]
    chunked = _json(capsys, *cmp_args, "--chunk-rows", str(chunk_rows))["comparison"]
    assert chunked["summary"].keys() == whole["summary"].keys()
    for metric, models in whole["summary"].items():
        for model, stats in models.items():
            got = chunked["summary"][metric][model]
            assert got == pytest.approx(stats, rel=1e-12)


def test_long_in_chunks_needs_rows_grouped_by_query(tmp_path, capsys):
    path = tmp_path / "clicks.csv"
    columns = sorted_table(path)
    n = columns["user"].size
    order = np.random.default_rng(0).permutation(n)  # queries scattered
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0]] + [lines[1 + i] for i in order]) + "\n")
    args = ["evaluate", "--long", str(path), *LONG_ARGS, "--score-col", "a"]
    code, out, err = run_cli(capsys, *args, "--chunk-rows", "50")
    assert code == 2 and out == "" and "Traceback" not in err
    assert "are not together" in err and "(chunk 2)" in err
    assert "sort the file by the 'user' column" in err
    assert "sklearn_rankmetrics.dask" in err and "sklearn_rankmetrics.spark" in err
    # a table that fits in one chunk need not be grouped (as before)
    code, out, _ = run_cli(capsys, *args, "--chunk-rows", str(n))
    assert code == 0 and out.startswith("measure")
    code, _, err = run_cli(capsys, *args, "--chunk-rows", "0")
    assert code == 2 and "--chunk-rows must be >= 1" in err


def test_long_fits_in_one_chunk_counts_rows_not_lines(tmp_path):
    from sklearn_rankmetrics._cli._evaluate import _fits_in_one_chunk

    path = tmp_path / "t.csv"
    path.write_text("q,y,s\n1,1,0.5\n1,0,0.2\n2,1,0.3")  # no final newline
    assert _fits_in_one_chunk(str(path), 3)
    assert not _fits_in_one_chunk(str(path), 2)
    path.write_text("q,y,s\n1,1,0.5\n1,0,0.2\n2,1,0.3\n")
    assert _fits_in_one_chunk(str(path), 3)
    assert not _fits_in_one_chunk(str(path), 2)


def test_run_line_scored_minus_inf_is_retrieved(tmp_path, capsys):
    # The case: trec_eval gives num_ret 2 and map 0.5 (d1, the only
    # relevant document, is retrieved at rank 2).
    qrels = tmp_path / "qrels"
    qrels.write_text("301 0 d1 1\n301 0 d2 0\n")
    run = tmp_path / "run"
    run.write_text("301 Q0 d1 1 -inf r\n301 Q0 d2 2 1.0 r\n")
    result = _json(capsys, "-m", "map", "-m", "num_ret", str(qrels), str(run))
    assert result["r"]["all"] == {"num_ret": 2, "map": 0.5}


def test_rbp_persistence_and_package_names_of_whole_list_metrics(
    capsys, trec_eval_data
):
    # rbp.p=0.5 is rank_biased_precision_at_k with trec_eval's graded rule;
    # the package's names of the whole-list metrics are accepted too.
    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    y, s, q = srm.trec_to_long_form(qrels, run)
    common = dict(query_id=q, ignore_ties=True, no_relevant=0.0)
    got = _json(
        capsys,
        "-m",
        "rbp.p=0.5",
        "-m",
        "r_precision",
        "-m",
        "err@10",
        str(qrels),
        str(run),
    )
    (values,) = [r["all"] for r in got.values()]
    assert values["rbp"] == pytest.approx(
        srm.rank_biased_precision_at_k(
            y, s, persistence=0.5, rbp_gain="max_normalized", **common
        ),
        rel=1e-12,
    )
    assert values["r_precision"] == pytest.approx(
        srm.r_precision_score(y, s, **common), rel=1e-12
    )
    assert values["err@10"] == pytest.approx(
        srm.expected_reciprocal_rank_at_k(y, s, k=10, **common), rel=1e-12
    )


def test_every_registry_metric_is_a_cli_measure(tmp_path, capsys):
    # A metric added to the registry is a measure of the command line: its
    # package name (with @k where it takes a cut-off) on an impression
    # table, and each of its trec_eval names on a TREC run (next test),
    # give the metric function's value.
    from sklearn_rankmetrics._registry import METRICS

    path = tmp_path / "clicks.csv"
    user, click, a, _ = write_table(path, ",")
    kw = dict(query_id=user)
    for name, spec in METRICS.items():
        label = f"{name}@3" if spec.cutoff else name
        result = _json(
            capsys, "--long", str(path), *LONG_ARGS, "--score-col", "model_a",
            "-m", label,
        )  # fmt: skip
        extra = {"k": 3} if spec.cutoff else {}
        want = spec.function(click, a, **extra, **kw)
        assert result["model_a"]["all"][label] == pytest.approx(want, rel=1e-12), name


def test_every_registry_trec_measure_is_a_cli_measure(capsys, trec_eval_data):
    from sklearn_rankmetrics._registry import METRICS, trec_measures

    qrels, run = trec_eval_data / "qrels.test", trec_eval_data / "results.test"
    y, s, q = srm.trec_to_long_form(qrels, run)
    for trec_name, (metric, measure) in trec_measures().items():
        result = _json(capsys, "-m", trec_name, str(qrels), str(run))
        (values,) = [r["all"] for r in result.values()]
        k = None if measure.cutoffs is None else measure.cutoffs[0]
        label = measure.label if k is None else f"{measure.label}{k}"
        func = METRICS[metric].function
        accepted = inspect.signature(func).parameters
        opts = {o: v for o, v in measure.options if o in accepted}
        if "k" in accepted:
            opts["k"] = k
        if "relevance_threshold" in accepted and metric not in ("ndcg", "rbp"):
            opts["relevance_threshold"] = 1
        judged = {}
        if metric == "bpref":
            *_, judged = srm.trec_to_long_form(qrels, run, return_judged=True)
            judged = {"judged": judged}
        want = func(
            y, s, query_id=q, ignore_ties=True, no_relevant=0.0, **opts, **judged
        )
        assert values[label] == pytest.approx(want, rel=1e-12), trec_name


@pytest.mark.parametrize(
    "text, weight, message",
    [
        ("", True, "t.csv': the file is empty"),
        ("q,y,s,w\nu0,1,0.5,1\nu1,1,0.5,1\nu1,0,0.3,2\n", True, "query 'u1' has"),
        ("q,y,s,w\nu0,1,0.5,1\nu1,1,,1\n", True, "column 's', line 3: a cell is empty"),
        ("q,y,s\nu0,1,0.5\nu1,-1,0.5\n", False, "column 'y', line 3: a cell is neg"),
    ],
)
def test_long_form_messages_name_file_column_line(
    tmp_path, capsys, text, weight, message
):
    path = tmp_path / "t.csv"
    path.write_text(text)
    argv = ["--query-col", "q", "--label-col", "y", "--score-col", "s"]
    if weight:
        argv += ["--weight-col", "w"]
    assert main(["evaluate", "--long", str(path), *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_judged_only_matches_pytrec_eval(tmp_path, capsys, seed):
    # -J: unjudged documents (and qrels grades < 0) leave the ranking, the
    # judged ones close up (trec_eval's judged_docs_only_flag)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = random_files(tmp_path, seed, neg_inf=True)
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    measures = ["map", "recip_rank", "ndcg", "P.3,10", "recall.5", "ndcg_cut.5"]
    measures += ["bpref", "Rprec", "success.1,5", "num_ret", "num_rel_ret"]
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures), judged_docs_only_flag=True
    ).evaluate(run)
    plain = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    args = [x for m in measures for x in ("-m", m)]
    ours = _json(capsys, "-q", "-J", *args, qrels_path, run_path)
    ((_, result),) = ours.items()
    assert sorted(result["queries"]) == sorted(theirs)
    changed = 0
    for query, values in result["queries"].items():
        assert values.keys() == theirs[query].keys()
        for name, value in values.items():
            assert value == pytest.approx(theirs[query][name], rel=1e-12, abs=1e-12)
            changed += theirs[query][name] != plain[query][name]
    assert changed > 0  # the files have unjudged retrieved documents


@pytest.fixture(scope="module")
def trec_eval_binary(tmp_path_factory, peer_data):
    """trec_eval built with ``make`` in a temporary copy of its source."""
    import shutil

    source = peer_data("trec_eval_src")
    if shutil.which("make") is None:
        pytest.skip("make is not available to build trec_eval")
    dest = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(source, dest)
    done = subprocess.run(["make"], cwd=dest, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"make failed: {done.stderr[-500:]}")
    return str(dest / "trec_eval")


@pytest.mark.parametrize(
    "opts",
    # without -J: rbp_resid reads the unjudged retrieved documents
    [["-J"], ["-J", "-M6"], ["-J", "-M3", "-l2"], [], ["-M6", "-l2"]],
)
def test_judged_only_matches_the_trec_eval_binary(
    tmp_path, capsys, trec_eval_binary, opts
):
    qrels_path, run_path = random_files(tmp_path, 21, neg_inf=True)
    # the binary's -J stops at a query that only one file has: keep the others
    qrels_lines = Path(qrels_path).read_text().splitlines()
    run_lines = Path(run_path).read_text().splitlines()
    both = {x.split()[0] for x in qrels_lines} & {x.split()[0] for x in run_lines}
    qrels_path = write(
        tmp_path, "q", "\n".join(x for x in qrels_lines if x.split()[0] in both)
    )
    run_path = write(
        tmp_path, "r", "\n".join(x for x in run_lines if x.split()[0] in both)
    )
    argv = ["-q", *opts, "-m", "all_trec", qrels_path, run_path]
    theirs = subprocess.run(
        [trec_eval_binary, *argv], capture_output=True, text=True, check=True
    ).stdout
    code, out, _ = run_cli(capsys, "evaluate", *argv)
    assert code == 0
    lines = {tuple(x.split()[:2]): x.split()[2] for x in theirs.splitlines()}
    ours = [x.split() for x in out.splitlines()]
    assert len(ours) > 500
    for name, query, value in ours:
        assert lines[name, query] == value, (name, query)


def test_trec_evaluation_does_not_import_pandas_or_sklearn(tmp_path):
    # start-up: pyarrow's to_numpy / pa.array import pandas (~0.5 s); the
    # TREC path reads Arrow buffers instead
    pytest.importorskip("pyarrow")
    qrels, run = random_files(tmp_path, 3)
    code = (
        "import sys\n"
        "from sklearn_rankmetrics._cli import main\n"
        f"assert main(['evaluate', '-q', '-m', 'all_trec', {qrels!r}, {run!r}]) == 0\n"
        "print(sorted(m for m in ('pandas', 'sklearn') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=str(Path(__file__).resolve().parents[1]),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"


def test_measures_sharing_a_report_equal_each_measure_alone():
    # per_query_values merges option sets no metric of the other reads
    # (set_F's beta joins map, P, bpref...; graded rbp stays apart), and
    # keeps the measures of the whole list apart from those with a cut-off:
    # every measure's per-query values and weights equal the measure
    # evaluated alone
    from sklearn_rankmetrics._cli._measures import _merged_groups, parse_measures
    from sklearn_rankmetrics._cli._measures import per_query_values as pqv

    rng = np.random.default_rng(3)
    n_q, per = 40, 25
    codes = np.repeat(np.arange(n_q), per)
    y_true = rng.choice([0, 0, 0, 1, 2], size=codes.size)
    y_score = np.where(
        rng.random(codes.size) < 0.1, -np.inf, np.round(rng.normal(size=codes.size))
    )
    judged = rng.random(codes.size) < 0.7
    judged |= y_true > 0
    names = ["all_trec", "rbp.p=0.5", "ndcg@5", "map@3", "mrr", "gauc"]
    measures = parse_measures(names, default=[], notes=[])
    assert {m.k for m in measures} > {None, 5}  # whole lists and cut-offs
    options = dict(n_queries=n_q, no_relevant=0.0, judged=judged)
    for ignore_ties, threshold in [(True, 1), (False, 2)]:
        options.update(ignore_ties=ignore_ties, relevance_threshold=threshold)
        together = pqv(measures, y_true, y_score, codes, **options)
        for m in measures:
            if m.metric in ("runid", "num_q"):
                continue
            alone = pqv([m], y_true, y_score, codes, **options)
            np.testing.assert_array_equal(
                together.values[m.label], alone.values[m.label], err_msg=m.label
            )
            assert together.weights.keys() >= alone.weights.keys()
            if m.label in alone.weights:
                np.testing.assert_array_equal(
                    together.weights[m.label], alone.weights[m.label]
                )
    # set_F's option joins the shared report; rbp's (graded) does not
    groups = {}
    for m in measures:
        if m.metric in ("f1", "map", "rbp") and m.k is None:
            graded = dict(m.options).get("rbp_gain", "binary") != "binary"
            groups.setdefault((m.options, graded, True), []).append(m)
    merged = _merged_groups(groups)
    assert sorted(len(g) for g in merged.values()) == [1, 2]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_small_files_read_in_python_print_the_same(tmp_path, monkeypatch, capsys, seed):
    # files under _SMALL_FILE_BYTES skip pyarrow (start-up): same output
    # byte for byte, on files with ties, -inf scores, unjudged and
    # unretrieved documents, queries out of order, blank lines and CRLF
    pytest.importorskip("pyarrow")
    from sklearn_rankmetrics._io import _trec

    qrels, run = random_files(tmp_path, seed, neg_inf=seed == 1)
    if seed == 2:  # CRLF line ends, blank lines, a comment
        text = Path(run).read_text().replace("\n", "\r\n\r\n")
        Path(run).write_text("# comment\r\n" + text)
    args = ["evaluate", "-q", "-m", "all_trec", "-c", qrels, run]
    outputs = {}
    called = []
    real = _trec._read_simple
    monkeypatch.setattr(_trec, "_read_simple", lambda *a: called.append(1) or real(*a))
    for limit in (0, 1 << 20):
        monkeypatch.setattr(_trec, "_SMALL_FILE_BYTES", limit)
        called.clear()
        outputs[limit] = run_cli(capsys, *args)
        assert bool(called) == (limit == 0)  # pyarrow's reader, or not
    assert outputs[0] == outputs[1 << 20]
    assert outputs[0][0] == 0 and "map" in outputs[0][1]


@pytest.mark.parametrize("seed", [0, 1])
def test_cut_measures_equal_with_and_without_the_top_rows(tmp_path, capsys, seed):
    # -m P.5 ... (largest cut-off 5: only each query's top rows and its
    # relevant rows are ranked) prints what all_trec (cut-off 1000, more
    # than any query's rows: every row) prints for the same measures
    qrels, run = random_files(tmp_path, seed, neg_inf=seed == 1)
    names = ["P.5", "ndcg_cut.5", "map_cut.5", "recall.5", "success.1,5"]
    flags = [f for name in names for f in ("-m", name)]
    code, small, _ = run_cli(capsys, "evaluate", "-q", *flags, qrels, run)
    assert code == 0
    code, full, _ = run_cli(capsys, "evaluate", "-q", "-m", "all_trec", qrels, run)
    assert code == 0
    small_lines = small.splitlines()
    kept = {line.split("\t")[0].strip() for line in small_lines}
    assert kept == {
        "P_5",
        "ndcg_cut_5",
        "map_cut_5",
        "recall_5",
        "success_1",
        "success_5",
    }
    assert small_lines == [
        line for line in full.splitlines() if line.split("\t")[0].strip() in kept
    ]


def test_long_whole_list_metrics_beside_err(tmp_path, capsys):
    # -m r_precision -m err@10 failed on a table ("ERR reads exponential
    # gains"): the whole-list ranking and ERR's exponential gains are two
    # rankings; every measure equals its function alone.
    path = tmp_path / "clicks.csv"
    user, click, a, _ = write_table(path, ",")
    grade = click  # binary grades: ERR's top grade is 1
    measures = ["r_precision", "err@10", "err", "bpref", "ndcg@5", "gauc", "rbp@5"]
    got = _json(
        capsys, "--long", str(path), *LONG_ARGS, "--score-col", "model_a",
        *[x for m in measures for x in ("-m", m)],
    )["model_a"]["all"]  # fmt: skip
    kw = dict(query_id=user)
    want = {
        "r_precision": srm.r_precision_score(grade, a, **kw),
        "err@10": srm.expected_reciprocal_rank_at_k(grade, a, k=10, **kw),
        "err": srm.expected_reciprocal_rank_at_k(grade, a, **kw),
        "bpref": srm.bpref_score(grade, a, **kw),
        "ndcg@5": srm.ndcg_at_k(grade, a, k=5, **kw),
        "gauc": srm.group_auc_score(grade, a, **kw),
        "rbp@5": srm.rank_biased_precision_at_k(grade, a, k=5, **kw),
    }
    assert got == pytest.approx(want, rel=1e-12)


# The printing order of mixed measures, as command_line.rst states it:
# trec_eval's measures first, in trec_eval's own order whatever the order
# of -m (each measure's cut-offs increasing), then the package's in the
# order given; a measure named twice prints once.
MIXED = ["ndcg@10", "P.10,5", "gauc", "map", "mrr@3", "recip_rank", "num_ret"]
MIXED += ["ndcg@10", "map"]
MIXED_ORDER = ["num_ret", "map", "recip_rank", "P_5", "P_10"]
MIXED_ORDER += ["ndcg@10", "gauc", "mrr@3"]


def test_printing_order_of_mixed_measures_on_a_table(tmp_path, capsys):
    path = tmp_path / "clicks.csv"
    write_table(path, ",")
    argv = ["--long", str(path), *LONG_ARGS, "--score-col", "model_a"]
    code, out, err = run_cli(
        capsys, "evaluate", *argv, *[x for m in MIXED for x in ("-m", m)]
    )
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()[2:]] == MIXED_ORDER
    # json keeps the same order
    got = _json(capsys, *argv, *[x for m in MIXED for x in ("-m", m)])
    assert list(got["model_a"]["all"]) == MIXED_ORDER


def test_printing_order_of_mixed_measures_on_a_trec_run(tmp_path, capsys):
    qrels, run = random_files(tmp_path, 3)
    code, out, err = run_cli(
        capsys, "evaluate", *[x for m in MIXED for x in ("-m", m)], qrels, run
    )
    assert code == 0, err
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == MIXED_ORDER
