"""The command line agrees with the Python surfaces: its comparison is
compare_rankings' (GAUC's query weighting included), its summary is the
comparison's means, it computes only the measures it prints, and it says
what is wrong with a cell (empty, or NaN)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import sklearn_rankmetrics as srm
from sklearn_rankmetrics._cli import _measures, main
from tests.test_trec import random_files

LONG_ARGS = ["--query-col", "user", "--label-col", "click"]


def run_cli(capsys, *argv):
    code = main(["evaluate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys, *argv):
    code, out, err = run_cli(capsys, "--format", "json", *argv)
    assert code == 0, err
    return json.loads(out)


def by_pair(tests):
    """The tests of a comparison in one order (the command line lists the
    measures in its printing order)."""
    return sorted(tests, key=lambda t: (t["model"], t["reference"], t["metric"]))


def clean(obj):
    """nan -> None, as the command line's JSON writes it."""
    if isinstance(obj, dict):
        return {k: clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [clean(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def impressions(seed, n_users=50, other_candidates=False):
    """An impression table in rows out of query order: ids that look alike
    ("007", "7", "07"), users without a click and users clicking every
    row, tied scores, rows scored -inf (not candidates: the same rows for
    both columns unless ``other_candidates``), a weight per user."""
    rng = np.random.default_rng(seed)
    names = [f"{i:03d}" for i in range(n_users - 3)] + ["7", "07", "u 1"]
    sizes = rng.integers(1, 12, size=n_users)
    user = np.repeat(np.array(names, dtype=object), sizes)
    click = (rng.random(user.size) < 0.3).astype(int)
    click[user == names[0]] = 0  # no relevant row: skipped
    click[user == names[1]] = 1  # every row relevant: no AUC
    a = np.round(rng.random(user.size) + 0.4 * click, 1)  # ties
    b = np.round(rng.random(user.size), 1)
    out = rng.random(user.size) < 0.15
    a[out] = -np.inf
    b[out if not other_candidates else rng.random(user.size) < 0.15] = -np.inf
    weight = np.repeat(rng.integers(1, 4, size=n_users), sizes).astype(float)
    order = rng.permutation(user.size)
    return {
        "user": user[order],
        "click": click[order],
        "a": a[order],
        "b": b[order],
        "w": weight[order],
    }


def write_csv(path, columns):
    lines = [",".join(columns)]
    for row in zip(*columns.values(), strict=True):
        lines.append(",".join(str(x) if x != -np.inf else "-inf" for x in row))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


SETTINGS = ["--n-resamples", "199", "--n-bootstrap", "99", "--seed", "3"]
PY_SETTINGS = dict(n_resamples=199, n_bootstrap=99, random_state=3)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "weighting, test",
    [(None, "permutation"), ("uniform", "t-test"), ("clicks", "permutation")],
)
def test_score_columns_comparison_is_compare_rankings(
    tmp_path, capsys, seed, weighting, test
):
    # GAUC's queries weigh as in compare_rankings (impressions by default):
    # the whole comparison is compare_rankings', bit for bit
    data = impressions(seed)
    path = write_csv(tmp_path / "log.csv", data)
    extra = [] if weighting is None else ["--query-weighting", weighting]
    got = cli_json(
        capsys, "--long", path, *LONG_ARGS, "--score-col", "a", "b",
        "-m", "ndcg@5", "-m", "gauc", "-m", "map@5", "--test", test,
        *SETTINGS, *extra,
    )  # fmt: skip
    options = {} if weighting is None else {"query_weighting": weighting}
    want = srm.compare_rankings(
        data["click"],
        {"a": data["a"], "b": data["b"]},
        k=5,
        metrics=["ndcg", "map", "gauc"],
        query_id=data["user"],
        test=test,
        **PY_SETTINGS,
        **options,
    )
    assert got["comparison"]["summary"] == clean(want.to_dict()["summary"])
    assert by_pair(got["comparison"]["tests"]) == by_pair(
        clean(want.to_dict()["tests"])
    )
    # the summary line is the comparison's mean, and the function's value
    for col in "ab":
        gauc = srm.group_auc_score(
            data["click"], data[col], query_id=data["user"], **options
        )
        assert got["runs"][col]["all"]["gauc"] == gauc
        assert got["comparison"]["summary"]["gauc"][col]["mean"] == gauc


def test_impressions_weigh_gauc_in_the_comparison(tmp_path, capsys):
    # the case that differed: a user with many rows weighs more than a user
    # with few (DIN's GAUC); worked by hand:
    #   u1: 4 rows, clicks on rows 1, 2; a ranks them 1st, 3rd -> AUC 3/4
    #   u2: 2 rows, click on row 1; a ranks it 2nd -> AUC 0
    #   impressions: (4 * 0.75 + 2 * 0) / 6 = 0.5; uniform: 0.375
    path = tmp_path / "log.csv"
    path.write_text(
        "user,click,a,b\n"
        "u1,1,0.9,0.1\nu1,1,0.5,0.2\nu1,0,0.7,0.3\nu1,0,0.1,0.4\n"
        "u2,1,0.2,0.5\nu2,0,0.8,0.6\n"
    )
    args = ["--long", str(path), *LONG_ARGS, "--score-col", "a", "b", "-m", "gauc"]
    got = cli_json(capsys, *args, "--n-resamples", "9", "--n-bootstrap", "9")
    assert got["runs"]["a"]["all"]["gauc"] == 0.5
    assert got["comparison"]["summary"]["gauc"]["a"]["mean"] == 0.5
    got = cli_json(capsys, *args, "--query-weighting", "uniform")
    assert got["runs"]["a"]["all"]["gauc"] == 0.375
    assert got["comparison"]["summary"]["gauc"]["a"]["mean"] == 0.375


def test_weight_col_weighs_the_comparison_as_the_summary(tmp_path, capsys):
    data = impressions(2)
    path = write_csv(tmp_path / "log.csv", data)
    got = cli_json(
        capsys, "--long", path, *LONG_ARGS, "--score-col", "a", "b",
        "--weight-col", "w", "-m", "ndcg@5", "-m", "gauc", "-m", "mrr", "-q",
        "--baseline", "a", *SETTINGS,
    )  # fmt: skip
    summary = got["comparison"]["summary"]
    for label in ("ndcg@5", "gauc", "mrr"):
        for col in "ab":
            assert summary[label][col]["mean"] == got["runs"][col]["all"][label]
    # the weighted mean difference, by hand over the paired users
    ids = sorted(set(data["user"]))
    weight = {u: w for u, w in zip(data["user"], data["w"], strict=True)}
    (test,) = [t for t in got["comparison"]["tests"] if t["metric"] == "ndcg@5"]
    pairs = [
        (
            got["runs"]["b"]["queries"][u]["ndcg@5"],
            got["runs"]["a"]["queries"][u]["ndcg@5"],
        )
        for u in ids
    ]
    paired = [(u, b, a) for u, (b, a) in zip(ids, pairs, strict=True) if a is not None]
    diff = sum(weight[u] * (b - a) for u, b, a in paired)
    diff /= sum(weight[u] for u, _, _ in paired)
    assert test["difference"] == pytest.approx(diff, rel=1e-12)
    assert test["n_paired"] == len(paired)
    # ndcg@5's mean, by hand
    values = [(weight[u], got["runs"]["a"]["queries"][u]["ndcg@5"]) for u in ids]
    values = [(w, v) for w, v in values if v is not None]
    mean = sum(w * v for w, v in values) / sum(w for w, _ in values)
    assert summary["ndcg@5"]["a"]["mean"] == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize("chunk_rows", [None, 7])
def test_tests_that_weigh_queries_alike_refuse_unequal_weights(
    tmp_path, capsys, chunk_rows
):
    data = impressions(4)
    data = {k: v[np.argsort(data["user"], kind="stable")] for k, v in data.items()}
    path = write_csv(tmp_path / "log.csv", data)
    args = ["--long", path, *LONG_ARGS, "--score-col", "a", "b", *SETTINGS]
    if chunk_rows:
        args += ["--chunk-rows", str(chunk_rows)]
    for extra, message in [
        (["-m", "gauc", "--test", "t-test"], "gauc: --test t-test weighs every"),
        (["-m", "ndcg@3", "--weight-col", "w", "--test", "wilcoxon"], "--weight-col"),
    ]:
        code, out, err = run_cli(capsys, *args, *extra)
        assert code == 2 and out == ""
        assert message in err and "--test permutation" in err, err
        assert "Traceback" not in err
    # uniform GAUC: the t-test is compare_rankings'
    got = cli_json(capsys, *args, "-m", "gauc", "--test", "t-test",
                   "--query-weighting", "uniform")  # fmt: skip
    want = srm.compare_rankings(
        data["click"], {"a": data["a"], "b": data["b"]}, metrics=["gauc"],
        query_id=data["user"], test="t-test", query_weighting="uniform",
        **PY_SETTINGS,
    )  # fmt: skip
    assert got["comparison"]["tests"] == clean(want.to_dict()["tests"])


def test_columns_with_other_candidates_cannot_pair_impressions(tmp_path, capsys):
    # a and b score different rows -inf: GAUC's impressions differ between
    # them, so a query has no single weight for a paired test
    data = impressions(5, other_candidates=True)
    path = write_csv(tmp_path / "log.csv", data)
    args = ["--long", path, *LONG_ARGS, "--score-col", "a", "b", "-m", "gauc"]
    code, out, err = run_cli(capsys, *args, *SETTINGS)
    assert code == 2 and out == ""
    assert "gauc: query '" in err and "--query-weighting uniform" in err
    # --no-compare prints both summaries, each the function's value
    got = cli_json(capsys, *args, "--no-compare")
    for col in "ab":
        want = srm.group_auc_score(data["click"], data[col], query_id=data["user"])
        assert got[col]["all"]["gauc"] == want
    got = cli_json(capsys, *args, "--query-weighting", "uniform", *SETTINGS)
    want = srm.compare_rankings(
        data["click"], {"a": data["a"], "b": data["b"]}, metrics=["gauc"],
        query_id=data["user"], query_weighting="uniform", **PY_SETTINGS,
    )  # fmt: skip
    assert got["comparison"]["summary"] == clean(want.to_dict()["summary"])


@pytest.mark.parametrize("seed", [3, 4])
def test_trec_runs_weigh_gauc_queries_alike_by_default(tmp_path, capsys, seed):
    # trec_eval weighs every query alike: so does GAUC on TREC runs unless
    # --query-weighting says otherwise
    qrels, run = random_files(tmp_path, seed)
    y, s, q = srm.trec_to_long_form(qrels, run)
    args = ["-m", "gauc", "--ties", "expected", qrels, run]
    ((_, got),) = cli_json(capsys, *args).items()
    want = srm.group_auc_score(y, s, query_id=q, query_weighting="uniform")
    assert got["all"]["gauc"] == pytest.approx(want, rel=1e-14)
    ((_, got),) = cli_json(capsys, *args, "--query-weighting", "impressions").items()
    assert got["all"]["gauc"] == pytest.approx(
        srm.group_auc_score(y, s, query_id=q), rel=1e-14
    )


def test_only_the_printed_measures_are_computed(tmp_path, capsys, monkeypatch):
    # a report computes each of its metrics at each of its cut-offs: the
    # measures of the whole list and those with a cut-off go to separate
    # reports, so that no metric is computed at a cut-off nobody asked for
    data = impressions(6)
    path = write_csv(tmp_path / "log.csv", data)
    asked = []
    report = _measures._per_query_report

    def recording(*args, k, metrics, **kwargs):
        asked.append((tuple(metrics), tuple(k)))
        return report(*args, k=k, metrics=metrics, **kwargs)

    monkeypatch.setattr(_measures, "_per_query_report", recording)
    measures = ["ndcg@10", "mrr", "map@10", "r_precision", "gauc", "ndcg"]
    got = cli_json(
        capsys, "--long", path, *LONG_ARGS, "--score-col", "a",
        *[x for m in measures for x in ("-m", m)],
    )["a"]["all"]  # fmt: skip
    computed = set()
    for metrics, ks in asked:
        for m in metrics:
            cut = srm._registry.METRICS[m].cutoff
            for kk in ks if cut else (None,):
                computed.add(m if kk is None else f"{m}@{kk}")
    assert computed == set(measures) == set(got)
    assert len(asked) == 3  # the cut-offs, the whole lists, GAUC
    for m in measures:  # and each is the function's value
        name, _, k = m.partition("@")
        func = srm._registry.METRICS[name].function
        kw = {"k": int(k)} if k else {}
        assert got[m] == pytest.approx(
            func(data["click"], data["a"], query_id=data["user"], **kw), rel=1e-12
        )


@pytest.mark.parametrize("chunk_rows", [None, 3])
@pytest.mark.parametrize(
    "cell, column, what",
    [
        ("nan", "a", "a cell is NaN (not a number)"),
        ("NaN", "click", "a cell is NaN (not a number)"),
        ("-nan", "w", "a cell is NaN (not a number)"),
        ("", "a", "a cell is empty"),
        ("", "click", "a cell is empty"),
        ("", "w", "a cell is empty"),
    ],
)
def test_a_cell_that_is_not_a_number_says_what_it_is(
    tmp_path, capsys, chunk_rows, cell, column, what
):
    rows = [["u1", "1", "0.5", "1"], ["u1", "0", "0.2", "1"], ["u2", "1", "0.3", "2"]]
    rows += [["u2", "0", "0.1", "2"], ["u3", "1", "0.4", "1"]]
    rows[3][["user", "click", "a", "w"].index(column)] = cell
    path = tmp_path / "log.csv"
    path.write_text("user,click,a,w\n" + "\n".join(map(",".join, rows)) + "\n")
    args = ["--long", str(path), *LONG_ARGS, "--score-col", "a", "--weight-col", "w"]
    if chunk_rows:
        args += ["--chunk-rows", str(chunk_rows)]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert f"column {column!r}, line 5: {what}" in err, err


@pytest.mark.parametrize("chunk_rows", [None, 2])
def test_parquet_null_is_empty_and_nan_is_nan(tmp_path, capsys, chunk_rows):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for value, what in [(None, "is empty"), (float("nan"), "is NaN (not a number)")]:
        score = pa.array([0.5, 0.2, 0.3, value, 0.4], type=pa.float64())
        table = pa.table(
            {
                "user": ["u1", "u1", "u2", "u2", "u3"],
                "click": [1, 0, 1, 0, 1],
                "a": score,
            }
        )
        path = tmp_path / "log.parquet"
        pq.write_table(table, path)
        args = ["--long", str(path), *LONG_ARGS, "--score-col", "a"]
        if chunk_rows:
            args += ["--chunk-rows", str(chunk_rows)]
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and out == ""
        assert f"column 'a', row 4: a cell {what}" in err, err


def test_trec_runs_with_other_documents_pair_gauc_queries_alike(tmp_path, capsys):
    # two runs retrieve different documents: by impressions a query weighs
    # differently for each, which a paired test cannot use; alike (the
    # default for TREC runs) it pairs, and each mean is the run's summary
    qrels, run = random_files(tmp_path, 7)
    lines = Path(run).read_text().splitlines()
    rng = np.random.default_rng(0)
    other = []
    for line in lines:
        if rng.random() < 0.2:
            continue  # not retrieved by the other run
        q, q0, doc, rank, score, _ = line.split()
        other.append(f"{q} {q0} {doc} {rank} {float(score) + rng.normal():.3f} other")
    run2 = tmp_path / "run_other"
    run2.write_text("\n".join(other) + "\n")
    args = ["-m", "gauc", "-m", "map", qrels, run, str(run2), *SETTINGS]
    code, out, err = run_cli(capsys, *args, "--query-weighting", "impressions")
    assert code == 2 and out == ""
    assert "gauc: query '" in err and "--query-weighting uniform" in err, err
    got = cli_json(capsys, *args)
    for run_name, entry in got["runs"].items():
        for label in ("gauc", "map"):
            mean = got["comparison"]["summary"][label][run_name]["mean"]
            assert mean == pytest.approx(entry["all"][label], rel=1e-14)
